/* waitq.c: FIFO queues of parked processes, the base of every blocking construct. */
#include "core/rt_internal.h"
#include "mpd/err.h"
#include "core/plist.h"

void mpd_waitq_push(mpd_waitq *q, mpd_proc *p)
{
    pl_push(q, p, PL_WAIT);
}

mpd_proc *mpd_waitq_pop(mpd_waitq *q)
{
    mpd_proc *p = pl_pop(q, PL_WAIT);
    if (p)
        p->wlink = NULL;
    return p;
}

int mpd_waitq_remove(mpd_waitq *q, mpd_proc *p)
{
    return pl_remove(q, p, PL_WAIT);
}

void mpd_waitq_wait(mpd_waitq *q, mpd_spinlock *lock)
{
    mpd_waitq_push(q, proc_self());
    mpd_park(lock);
}

/* Claims p for a wakeup: always for an untimed waiter; for a timed one only
 * if its timer has not fired. */
static int claim_for_wakeup(mpd_proc *p)
{
    int w = CL_WAITING;
    return atomic_load_explicit(&p->claim, memory_order_relaxed) == CL_NONE ||
           atomic_compare_exchange_strong(&p->claim, &w, CL_WOKEN);
}

mpd_proc *mpd_waitq_wake_one(mpd_waitq *q)
{
    mpd_proc *p;
    while ((p = mpd_waitq_pop(q)))
        if (claim_for_wakeup(p)) {
            mpd_unpark(p);
            return p;
        }
    return NULL;
}

int mpd_waitq_wake_all(mpd_waitq *q)
{
    int n = 0;
    mpd_proc *p;
    while ((p = mpd_waitq_pop(q)))
        if (claim_for_wakeup(p)) {
            mpd_unpark(p);
            n++;
        }
    return n;
}

int mpd_waitq_wait_timeout(mpd_waitq *q, mpd_spinlock *lock, long ms)
{
    mpd_proc *self = proc_self();
    if (ms < 0)
        ms = 0;
    mpd_waitq_push(q, self);
    self->wake_ns = mpd_now_ns() + (int64_t)ms * 1000000;
    atomic_store(&self->claim, CL_WAITING);
    PSTATE_SET(self, P_BLOCKED);
    if (mpd__mode_one_vp()) {
        /* only this thread fires timers: even if ours fires before we are
         * off the stack, nobody else can resume us meanwhile */
        mpd__timer_add_locked(self);
        mpd__switch_out(lock ? PS_UNLOCK : PS_NONE, NULL, lock);
    } else {
        /* the timer starts only once we are off our stack */
        mpd__switch_out(PS_TIMED, self, lock);
    }
    /* claim goes back to CL_NONE only when neither the timer nor a waker
     * can still find us: a CL_NONE waiter looks like an untimed one */
    if (atomic_load(&self->claim) == CL_WOKEN) {
        mpd__timer_cancel(self);
        atomic_store(&self->claim, CL_NONE);
        return 0;
    }
    /* timed out: leave q unless a waker popped us and lost the claim */
    if (lock)
        mpd_spin_lock(lock);
    mpd_waitq_remove(q, self);
    if (lock)
        mpd_spin_unlock(lock);
    atomic_store(&self->claim, CL_NONE);
    return -1;
}
