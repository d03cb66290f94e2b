/* csw.h: the internal context-switch interface and its three backends.
 *
 * A context is a suspended execution: a stack pointer plus the callee-saved
 * registers kept on that stack (asm, fcontext) or a ucontext_t.  Two calls:
 *   mpd_ctx_make(c, lo, size, entry, arg)  prepare c to run entry(arg) on the
 *                                          stack [lo, lo+size); entry never returns
 *   mpd_ctx_switch(from, to)               save the caller in from, resume to
 * Every backend is compiled under its own names (so one benchmark can time
 * all of them); MPD_CSW_<name> picks the one the runtime uses. */
#ifndef MPD_CSW_H
#define MPD_CSW_H
#include <stddef.h>
#include <ucontext.h>

typedef void (*mpd_ctx_entry)(void *);

/* asm: x86-64 SysV and aarch64 AAPCS64; callee-saved registers only. */
#if defined(__x86_64__) || defined(__aarch64__)
#define MPD_CSW_HAVE_ASM 1
typedef struct { void *sp; } mpd_asm_ctx;
void mpd_csw_asm_jump(void **save_sp, void *to_sp);     /* in csw_asm_*.S */
void mpd_asm_ctx_make(mpd_asm_ctx *c, void *lo, size_t size, mpd_ctx_entry fn, void *arg);
static inline void mpd_asm_ctx_switch(mpd_asm_ctx *from, mpd_asm_ctx *to)
{ mpd_csw_asm_jump(&from->sp, to->sp); }
#endif

/* ucontext: getcontext/makecontext/swapcontext (saves the signal mask too). */
typedef struct { ucontext_t uc; mpd_ctx_entry fn; void *arg; } mpd_uc_ctx;
void mpd_uc_ctx_make(mpd_uc_ctx *c, void *lo, size_t size, mpd_ctx_entry fn, void *arg);
void mpd_uc_ctx_switch(mpd_uc_ctx *from, mpd_uc_ctx *to);

/* fcontext: Boost.Context's make_fcontext/jump_fcontext (link -lboost_context). */
typedef struct { void *fctx; mpd_ctx_entry fn; void *arg; } mpd_fc_ctx;
void mpd_fc_ctx_make(mpd_fc_ctx *c, void *lo, size_t size, mpd_ctx_entry fn, void *arg);
void mpd_fc_ctx_switch(mpd_fc_ctx *from, mpd_fc_ctx *to);

/* asm where we have it; elsewhere Boost.Context if installed, else ucontext */
#if defined(MPD_CSW_fcontext) || \
    (!defined(MPD_CSW_ucontext) && !defined(MPD_CSW_HAVE_ASM) && defined(MPD_HAVE_FCONTEXT))
#define MPD_CSW_NAME "fcontext"
typedef mpd_fc_ctx mpd_ctx;
#define mpd_ctx_make   mpd_fc_ctx_make
#define mpd_ctx_switch mpd_fc_ctx_switch
#elif defined(MPD_CSW_HAVE_ASM) && !defined(MPD_CSW_ucontext)
#define MPD_CSW_NAME "asm"
typedef mpd_asm_ctx mpd_ctx;
#define mpd_ctx_make   mpd_asm_ctx_make
#define mpd_ctx_switch mpd_asm_ctx_switch
#else
#define MPD_CSW_NAME "ucontext"
typedef mpd_uc_ctx mpd_ctx;
#define mpd_ctx_make   mpd_uc_ctx_make
#define mpd_ctx_switch mpd_uc_ctx_switch
#endif

#endif
