/* opfast.h: the process core's inline park and wakeup, for the handoff
 * paths of the operations layer (a semaphore P that blocks, the V that
 * wakes it).  The one exception to "lang reaches the core only through
 * opcore.h": with one VP the whole handoff -- register, pick the next
 * process, switch -- is a few dozen instructions, and a call into the core
 * for each step would double it. */
#ifndef MPD_OPFAST_H
#define MPD_OPFAST_H
#include "core/switch.h"
#include "opcore.h"

/* The running process and its VP. */
__attribute__((always_inline))
static inline mpd_proc *opk_self_on(mpd_vp **vp)
{
    *vp = vp_self();
    return (mpd_proc *)(void *)(*vp)->hot.cur;
}

/* Park the running process self (on vp), which the caller registered as a
 * waiter (with one VP, no lock is held), recording F/L.  Returns 1 when it
 * switched straight to the next ready process inline (then the caller's
 * own return may follow another process's calls: see OPK_SWITCH_RETURN). */
__attribute__((always_inline))
static inline int opk_park_self(mpd_vp *vp, mpd_proc *self, const char *F, int L)
{
    if (F) {
        self->hot.file = F;
        self->hot.line = L;
    }
    self->state = P_BLOCKED;
    int fast = block_fast1(vp, self);
    if (!fast)
        mpd_park(NULL);
    opk_check_killed_fast();
    return fast;
}

__attribute__((always_inline))
static inline int opk_park_inline(const char *F, int L)
{
    mpd_vp *vp;
    mpd_proc *self = opk_self_on(&vp);
    return opk_park_self(vp, self, F, L);
}

/* Make a parked process ready (mpd_unpark), inline with one VP. */
__attribute__((always_inline))
static inline void opk_wake(mpd_proc *p)
{
    if (__builtin_expect(mpd__fast1, 1)) {
        p->state = P_READY;
        rq1_put(p);
    } else {
        mpd_unpark(p);
    }
}

/* What the body of a blocking entry point returns: its result, and 1 in
 * `switched` when it switched to another process inline (opk_park_inline)
 * and was resumed by a switch from elsewhere. */
typedef struct { void *v; long switched; } opk_sret;
#define OPK_SRET(v, sw) ((opk_sret){ (void *)(v), (sw) })

/* OPK_SWITCH_RETURN(body): the whole body of a naked function f with the
 * same parameters as `opk_sret body(...)` (integer ones, in registers).  f
 * jumps to opk__switch_return (opcore.c), which calls body from its one
 * call site and returns to f's caller with ret when body did not switch,
 * and with an indirect jmp when it did.  After a handoff the return stack
 * buffer holds the calls of the process that switched to us: a ret into
 * our caller would be mispredicted on every handoff, and so would body's
 * own ret if each entry point called its body from a call site of its own.
 * The jmp is predicted from branch history.  It leaves one stale entry
 * behind, costing at most one misprediction later, when a return goes
 * deeper than the calls made since.  Bodies must switch at their own
 * level (opk_park_inline), not in a function they call.  x86-64 with the
 * inline switch only: elsewhere OPK_HAVE_SWITCH_RETURN is 0 and f calls
 * body. */
#if defined(__x86_64__) && defined(MPD_CSW_HAVE_INLINE) && defined(MPD_CSW_asm) && \
    !defined(MPD_ASAN) && !defined(MPD_TSAN)
#define OPK_HAVE_SWITCH_RETURN 1
#define OPK_SWITCH_RETURN(body) \
    __asm__("leaq " #body "(%rip), %r11\n\tjmp opk__switch_return")
#else
#define OPK_HAVE_SWITCH_RETURN 0
#endif
#define OPK_UNUSED __attribute__((unused))
/* The body's attributes: called from asm by name. */
#define OPK_BODY __attribute__((noinline, used, visibility("hidden")))
#endif
