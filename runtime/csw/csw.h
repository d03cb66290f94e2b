/* csw.h: the internal context-switch interface and its three backends.
 *
 * A context is a suspended execution: a stack pointer plus the callee-saved
 * registers kept on that stack (asm, fcontext) or a ucontext_t.  Two calls:
 *   mpd_ctx_make(c, lo, size, entry, arg)  prepare c to run entry(arg) on the
 *                                          stack [lo, lo+size); entry never returns
 *   mpd_ctx_switch(from, to)               save the caller in from, resume to
 *   mpd_ctx_switch_fast(from, to)          the same, inline where possible
 * Every backend is compiled under its own names (so one benchmark can time
 * all of them); MPD_CSW_<name> picks the one the runtime uses. */
#ifndef MPD_CSW_H
#define MPD_CSW_H
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>
#include "mpd/abi/ctxjump.h"

typedef void (*mpd_ctx_entry)(void *);

/* asm: x86-64 SysV and aarch64 AAPCS64; callee-saved registers only. */
#if defined(__x86_64__)
#define MPD_CSW_HAVE_ASM 1
/* Resuming a context is "rsp = sp; jmp *pc" (csw_asm_x86_64.S). */
typedef struct {
    void *sp;
    void *pc;
} mpd_asm_ctx;
void mpd_csw_asm_jump(mpd_asm_ctx *from, mpd_asm_ctx *to); /* in csw_asm_x86_64.S */
void mpd_asm_ctx_make(mpd_asm_ctx *c, void *lo, size_t size, mpd_ctx_entry fn, void *arg);
void mpd_csw_asm_start(void);
/* mpd_asm_ctx_make inline: the first switch to c jumps to
 * mpd_csw_asm_start, which pops the argument and the entry, leaving
 * rsp = top (16-aligned) for its call. */
static inline void mpd_asm_ctx_make_inline(mpd_asm_ctx *c, void *lo, size_t size, mpd_ctx_entry fn,
                                           void *arg)
{
    uintptr_t top = ((uintptr_t)lo + size) & ~(uintptr_t)15;
    uintptr_t *f = (uintptr_t *)(top - 16);
    f[0] = (uintptr_t)arg;
    f[1] = (uintptr_t)fn;
    c->sp = f;
    c->pc = (void *)mpd_csw_asm_start;
}
static inline void mpd_asm_ctx_switch(mpd_asm_ctx *from, mpd_asm_ctx *to)
{
    mpd_csw_asm_jump(from, to);
}

/* The same switch inline, without a call (mpd/abi/ctxjump.h). */
__attribute__((always_inline)) static inline void mpd_asm_ctx_switch_inline(mpd_asm_ctx *from,
                                                                            mpd_asm_ctx *to)
{
    mpd__ctx_jump_inline(from, to);
}
#define MPD_CSW_HAVE_INLINE 1
/* Resume `to` and save nothing: for a context that is never resumed (an
 * exiting process whose stack is already given back). */
__attribute__((always_inline, noreturn)) static inline void
mpd_asm_ctx_jump_inline(const mpd_asm_ctx *to)
{
    __asm__ volatile("movq (%0), %%rsp\n\t"
                     "jmpq *8(%0)"
                     :
                     : "r"(to)
                     : "memory");
    __builtin_unreachable();
}
#elif defined(__aarch64__)
#define MPD_CSW_HAVE_ASM 1
typedef struct {
    void *sp;
} mpd_asm_ctx;
void mpd_csw_asm_jump(void **save_sp, void *to_sp); /* in csw_asm_aarch64.S */
void mpd_asm_ctx_make(mpd_asm_ctx *c, void *lo, size_t size, mpd_ctx_entry fn, void *arg);
static inline void mpd_asm_ctx_switch(mpd_asm_ctx *from, mpd_asm_ctx *to)
{
    mpd_csw_asm_jump(&from->sp, to->sp);
}
#endif

/* ucontext: getcontext/makecontext/swapcontext (saves the signal mask too). */
typedef struct {
    ucontext_t uc;
    mpd_ctx_entry fn;
    void *arg;
} mpd_uc_ctx;
void mpd_uc_ctx_make(mpd_uc_ctx *c, void *lo, size_t size, mpd_ctx_entry fn, void *arg);
void mpd_uc_ctx_switch(mpd_uc_ctx *from, mpd_uc_ctx *to);

/* fcontext: Boost.Context's make_fcontext/jump_fcontext (link -lboost_context). */
typedef struct {
    void *fctx;
    mpd_ctx_entry fn;
    void *arg;
} mpd_fc_ctx;
void mpd_fc_ctx_make(mpd_fc_ctx *c, void *lo, size_t size, mpd_ctx_entry fn, void *arg);
void mpd_fc_ctx_switch(mpd_fc_ctx *from, mpd_fc_ctx *to);

/* asm where we have it; elsewhere Boost.Context if installed, else ucontext */
#if defined(MPD_CSW_fcontext) ||                                                                   \
    (!defined(MPD_CSW_ucontext) && !defined(MPD_CSW_HAVE_ASM) && defined(MPD_HAVE_FCONTEXT))
#define MPD_CSW_NAME "fcontext"
typedef mpd_fc_ctx mpd_ctx;
#define mpd_ctx_make mpd_fc_ctx_make
#define mpd_ctx_switch mpd_fc_ctx_switch
#elif defined(MPD_CSW_HAVE_ASM) && !defined(MPD_CSW_ucontext)
#define MPD_CSW_NAME "asm"
typedef mpd_asm_ctx mpd_ctx;
#define mpd_ctx_make mpd_asm_ctx_make
#define mpd_ctx_switch mpd_asm_ctx_switch
#if defined(__x86_64__)
#define mpd_ctx_make_fast mpd_asm_ctx_make_inline
#endif
/* mpd_ctx_switch_fast: the inline switch where there is one */
#if defined(MPD_CSW_HAVE_INLINE) && !defined(MPD_CSW_NO_INLINE)
#define mpd_ctx_switch_fast mpd_asm_ctx_switch_inline
/* mpd_ctx_jump_fast(to): resume to, saving nothing (see above) */
#define MPD_CSW_HAVE_JUMP 1
#define mpd_ctx_jump_fast mpd_asm_ctx_jump_inline
#endif
#else
#define MPD_CSW_NAME "ucontext"
typedef mpd_uc_ctx mpd_ctx;
#define mpd_ctx_make mpd_uc_ctx_make
#define mpd_ctx_switch mpd_uc_ctx_switch
#endif
#ifndef mpd_ctx_switch_fast
#define mpd_ctx_switch_fast mpd_ctx_switch
#endif
#ifndef mpd_ctx_make_fast
#define mpd_ctx_make_fast mpd_ctx_make
#endif

#endif
