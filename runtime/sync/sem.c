/* sem.c: the waiting paths of semaphores (the fast paths are inline in mpd/rt.h). */
#include "core/switch.h"

void mpd_sem_init(mpd_sem *s, long n)
{
    atomic_init(&s->count, n);
    mpd_spin_init(&s->lock);
    s->wakeups = 0;
    mpd_waitq_init(&s->q);
}

/* The caller already decremented count and found no unit.  With several
 * VPs a V may have come between that decrement and this lock and left a
 * wakeup token instead of finding us queued. */
MPD_SWITCH_BODY mpd_sret mpd__sem_wait_body(mpd_sem *s)
{
    if (mpd__mode_one_vp()) {
        if (__builtin_expect(s->wakeups > 0, 0)) { /* left for us past a timed-out waiter */
            s->wakeups--;
            return MPD_SRET(NULL, 0);
        }
        return MPD_SRET(NULL, block_self(vp_self(), &s->q, NULL));
    }
    mpd_spin_lock(&s->lock);
    if (s->wakeups > 0) {
        s->wakeups--;
        mpd_spin_unlock(&s->lock);
        return MPD_SRET(NULL, 0);
    }
    block_self(vp_self(), &s->q, &s->lock);
    return MPD_SRET(NULL, 0);
}

#if MPD_HAVE_SWITCH_RETURN
__attribute__((naked)) void mpd__sem_wait(mpd_sem *s MPD_UNUSED)
{
    MPD_SWITCH_RETURN(mpd__sem_wait_body);
}
#else
void mpd__sem_wait(mpd_sem *s)
{
    (void)mpd__sem_wait_body(s);
}
#endif

/* The first waiter a V may wake.  A timed waiter whose timer has already
 * ended its wait is skipped: it is still counted in count and settles its
 * account itself (mpd_sem_P_timeout) when it runs. */
static inline mpd_proc *pop_claimed(mpd_sem *s)
{
    mpd_proc *p;
    while ((p = wq_pop(&s->q))) {
        int w = CL_WAITING;
        if (__builtin_expect(atomic_load_explicit(&p->claim, memory_order_relaxed) == CL_NONE, 1) ||
            atomic_compare_exchange_strong(&p->claim, &w, CL_WOKEN))
            return p;
    }
    return NULL;
}

/* The caller incremented count and found it had been negative. */
void mpd__sem_wake(mpd_sem *s)
{
    if (mpd__mode_one_vp()) {
        mpd_proc *p = pop_claimed(s);
        if (__builtin_expect(p != NULL, 1)) {
            MPD_TL(mpd__tl_woken(p, TL_BY_PROC));
            vp_ready(vp_self(), p);
        } else
            s->wakeups++;
        return;
    }
    mpd_spin_lock(&s->lock);
    mpd_proc *p = pop_claimed(s);
    if (!p)
        s->wakeups++;
    mpd_spin_unlock(&s->lock);
    if (p) {
        MPD_TL(mpd__tl_woken(p, TL_BY_PROC));
        vp_wake(vp_self(), p);
    }
}

static inline void lock_if(mpd_spinlock *l)
{
    if (!mpd__mode_one_vp())
        mpd_spin_lock(l);
}
static inline void unlock_if(mpd_spinlock *l)
{
    if (!mpd__mode_one_vp())
        mpd_spin_unlock(l);
}

/* P that gives up after ms milliseconds.  Accounting: count = (V()s on
 * their way to a waiter) - (waiters not yet served), when negative.  A
 * waiter whose timer won settles under the lock: it takes a wakeup token if
 * a V left one; else it withdraws (count + 1) while count < 0; else some V
 * that has not taken the lock yet owes it a unit, and it waits untimed. */
int mpd_sem_P_timeout(mpd_sem *s, long ms)
{
    if (mpd_sem_tryP(s))
        return 0;
    if (ms <= 0)
        return -1;
    long c = mpd__sem_dec(s);
    if (c > 0)
        return 0;
    mpd_proc *self = proc_self();
    lock_if(&s->lock);
    if (s->wakeups > 0) {
        s->wakeups--;
        unlock_if(&s->lock);
        return 0;
    }
    mpd_waitq_push(&s->q, self);
    self->wake_ns = mpd_now_ns() + (int64_t)ms * 1000000;
    atomic_store(&self->claim, CL_WAITING);
    PSTATE_SET(self, P_BLOCKED);
    if (mpd__mode_one_vp()) {
        mpd__timer_add_locked(self);
        mpd__switch_out(PS_NONE, NULL, NULL);
    } else {
        mpd__switch_out(PS_TIMED, self, &s->lock); /* timer starts off our stack */
    }
    if (atomic_load(&self->claim) == CL_WOKEN) {
        mpd__timer_cancel(self);
        atomic_store(&self->claim, CL_NONE);
        return 0;
    }
    /* timed out: settle */
    lock_if(&s->lock);
    atomic_store(&self->claim, CL_NONE);
    mpd_waitq_remove(&s->q, self);
    if (s->wakeups > 0) {
        s->wakeups--;
        unlock_if(&s->lock);
        return 0;
    }
    c = atomic_load_explicit(&s->count, memory_order_relaxed);
    while (c < 0)
        if (atomic_compare_exchange_weak_explicit(&s->count, &c, c + 1, memory_order_acq_rel,
                                                  memory_order_relaxed)) {
            unlock_if(&s->lock);
            return -1;
        }
    /* count >= 0: at least as many V()s are on their way as there are
     * unserved waiters, us included; the next one to take the lock finds
     * us queued (and claimable) */
    mpd_waitq_push(&s->q, self);
    mpd_park(mpd__mode_one_vp() ? NULL : &s->lock);
    return 0;
}

int mpd_sem_tryP(mpd_sem *s)
{
    long c = atomic_load_explicit(&s->count, memory_order_relaxed);
    if (mpd__mode_one_vp()) {
        if (c <= 0)
            return 0;
        atomic_store_explicit(&s->count, c - 1, memory_order_relaxed);
        return 1;
    }
    while (c > 0)
        if (atomic_compare_exchange_weak_explicit(&s->count, &c, c - 1, memory_order_acq_rel,
                                                  memory_order_relaxed))
            return 1;
    return 0;
}
