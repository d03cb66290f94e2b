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
__attribute__((always_inline)) static inline mpd_proc *opk_self_on(mpd_vp **vp)
{
    *vp = vp_self();
    return (mpd_proc *)(void *)(*vp)->hot.cur;
}

/* Park the running process self (on vp), which the caller registered as a
 * waiter (with one VP, no lock is held), recording F/L.  Returns 1 when it
 * switched straight to the next ready process inline (then the caller's
 * own return may follow another process's calls: see OPK_SWITCH_RETURN).
 * A retired process does not come back from it (the _nokill variant leaves
 * that to the caller: in_killed_check). */
__attribute__((always_inline)) static inline int opk_park_self_nokill(mpd_vp *vp, mpd_proc *self,
                                                                      const char *F, int L)
{
    if (F) {
        self->hot.file = F;
        self->hot.line = L;
    }
    PSTATE_SET(self, P_BLOCKED);
    int fast = block_fast1(vp, self);
    if (!fast)
        mpd_park(NULL);
    return fast;
}
__attribute__((always_inline)) static inline int opk_park_self(mpd_vp *vp, mpd_proc *self,
                                                               const char *F, int L)
{
    int fast = opk_park_self_nokill(vp, self, F, L);
    opk_check_killed_fast();
    return fast;
}

__attribute__((always_inline)) static inline int opk_park_inline(const char *F, int L)
{
    mpd_vp *vp;
    mpd_proc *self = opk_self_on(&vp);
    return opk_park_self(vp, self, F, L);
}

/* Make a parked process ready (mpd_unpark), inline with one VP. */
__attribute__((always_inline)) static inline void opk_wake(mpd_proc *p)
{
    if (__builtin_expect(mpd__mode_fast(), 1)) {
        PSTATE_SET(p, P_READY);
        rq1_put(p);
    } else {
        mpd_unpark(p);
    }
}

/* What the body of a blocking entry point returns, and the naked entry
 * point that calls it: MPD_SWITCH_RETURN in core/switch.h. */
typedef mpd_sret opk_sret;
#define OPK_SRET MPD_SRET
#define OPK_HAVE_SWITCH_RETURN MPD_HAVE_SWITCH_RETURN
#define OPK_SWITCH_RETURN MPD_SWITCH_RETURN
#define OPK_UNUSED MPD_UNUSED
#define OPK_BODY MPD_SWITCH_BODY
#endif
