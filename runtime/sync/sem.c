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
void mpd__sem_wait(mpd_sem *s)
{
    if (mpd__single) {
        block_self(vp_self(), &s->q, NULL);
        return;
    }
    mpd_spin_lock(&s->lock);
    if (s->wakeups > 0) {
        s->wakeups--;
        mpd_spin_unlock(&s->lock);
        return;
    }
    block_self(vp_self(), &s->q, &s->lock);
}

/* The caller incremented count and found it had been negative. */
void mpd__sem_wake(mpd_sem *s)
{
    if (mpd__single) {
        vp_ready(vp_self(), wq_pop(&s->q));
        return;
    }
    mpd_spin_lock(&s->lock);
    mpd_proc *p = wq_pop(&s->q);
    if (!p)
        s->wakeups++;
    mpd_spin_unlock(&s->lock);
    if (p)
        vp_wake(vp_self(), p);
}

int mpd_sem_tryP(mpd_sem *s)
{
    long c = atomic_load_explicit(&s->count, memory_order_relaxed);
    if (mpd__single) {
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
