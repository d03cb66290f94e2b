/* csw_asm.c: builds the first frame of a new context for the asm backends. */
#include <stdint.h>
#include "csw/csw.h"

#ifdef MPD_CSW_HAVE_ASM
#if !defined(__x86_64__)
void mpd_csw_asm_start(void);
#endif

/* x86-64: the first switch to c jumps to mpd_csw_asm_start, which finds
 * the argument and the entry on the stack.  aarch64: the frame matches what
 * mpd_csw_asm_jump pops, so the first switch "returns" into
 * mpd_csw_asm_start with the entry and argument in callee-saved registers.
 * Both keep the ABI's stack alignment. */
void mpd_asm_ctx_make(mpd_asm_ctx *c, void *lo, size_t size, mpd_ctx_entry fn, void *arg)
{
    uintptr_t top = ((uintptr_t)lo + size) & ~(uintptr_t)15;
#if defined(__x86_64__)
    (void)top;
    mpd_asm_ctx_make_inline(c, lo, size, fn, arg);
#elif defined(__aarch64__)
    uintptr_t *f = (uintptr_t *)(top - 160);
    for (int i = 0; i < 20; i++)
        f[i] = 0;
    f[0] = (uintptr_t)arg;                /* x19 */
    f[1] = (uintptr_t)fn;                 /* x20 */
    f[10] = 0;                            /* x29 (fp) */
    f[11] = (uintptr_t)mpd_csw_asm_start; /* x30 (lr) */
    c->sp = f;
#endif
}
#endif
