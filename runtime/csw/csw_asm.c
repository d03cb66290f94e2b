/* csw_asm.c: builds the first frame of a new context for the asm backends. */
#include <stdint.h>
#include "csw/csw.h"

#ifdef MPD_CSW_HAVE_ASM
void mpd_csw_asm_start(void);

/* The frame matches what mpd_csw_asm_jump pops, so the first switch to it
 * "returns" into mpd_csw_asm_start with the entry and argument in
 * callee-saved registers and the ABI's stack alignment. */
void mpd_asm_ctx_make(mpd_asm_ctx *c, void *lo, size_t size, mpd_ctx_entry fn, void *arg)
{
    uintptr_t top = ((uintptr_t)lo + size) & ~(uintptr_t)15;
#if defined(__x86_64__)
    /* after the ret, rsp = top (16-aligned), as just before a call */
    uintptr_t *f = (uintptr_t *)(top - 8 - 6 * 8);
    f[0] = 0;                     /* r15 */
    f[1] = 0;                     /* r14 */
    f[2] = (uintptr_t)fn;         /* r13 */
    f[3] = (uintptr_t)arg;        /* r12 */
    f[4] = 0;                     /* rbx */
    f[5] = 0;                     /* rbp: ends frame-pointer walks */
    f[6] = (uintptr_t)mpd_csw_asm_start;
    c->sp = f;
#elif defined(__aarch64__)
    uintptr_t *f = (uintptr_t *)(top - 160);
    for (int i = 0; i < 20; i++)
        f[i] = 0;
    f[0] = (uintptr_t)arg;        /* x19 */
    f[1] = (uintptr_t)fn;         /* x20 */
    f[10] = 0;                    /* x29 (fp) */
    f[11] = (uintptr_t)mpd_csw_asm_start;   /* x30 (lr) */
    c->sp = f;
#endif
}
#endif
