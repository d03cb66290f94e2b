/* mutex.c: mutex, spin lock and condition variable for mpd threads (block the thread, not the VP). */
#include "threads/threads_impl.h"

#include <errno.h>

void mpd_mutex_init(mpd_mutex_t *m)
{
    mpd_spin_init(&m->lk);
    atomic_init(&m->locked, 0);
    mpd_waitq_init(&m->q);
}

static int cas(atomic_int *a, int from, int to)
{
    return atomic_compare_exchange_strong_explicit(a, &from, to, memory_order_acquire,
                                                   memory_order_relaxed);
}

void mpd_mutex_lock(mpd_mutex_t *m)
{
    if (cas(&m->locked, 0, 1))
        return;
    mpd_thread_preempt_off();
    mpd_spin_lock(&m->lk);
    for (;;) {
        int s = atomic_load_explicit(&m->locked, memory_order_relaxed);
        if (s == 0) {
            if (cas(&m->locked, 0, 1)) {
                mpd_spin_unlock(&m->lk);
                break;
            }
        } else if (s == 2 || cas(&m->locked, 1, 2)) {
            mpd_waitq_wait(&m->q, &m->lk); /* returns owning the mutex (handed over) */
            break;
        }
    }
    mpd_thread_preempt_on();
}

int mpd_mutex_trylock(mpd_mutex_t *m)
{
    return cas(&m->locked, 0, 1) ? 0 : EBUSY;
}

void mpd_mutex_unlock(mpd_mutex_t *m)
{
    int one = 1;
    if (atomic_compare_exchange_strong_explicit(&m->locked, &one, 0, memory_order_release,
                                                memory_order_relaxed))
        return; /* nobody waiting */
    mpd_thread_preempt_off();
    mpd_spin_lock(&m->lk);
    mpd_proc *next = mpd_waitq_pop(&m->q);
    if (next) /* ownership passes to next */
        atomic_store_explicit(&m->locked, mpd_waitq_empty(&m->q) ? 1 : 2, memory_order_release);
    else
        atomic_store_explicit(&m->locked, 0, memory_order_release);
    mpd_spin_unlock(&m->lk);
    if (next)
        mpd_unpark(next);
    mpd_thread_preempt_on();
}

void mpd_tspin_init(mpd_tspin_t *s)
{
    mpd_spin_init(&s->s);
}

void mpd_tspin_lock(mpd_tspin_t *s)
{
    for (unsigned n = 1; !mpd_spin_trylock(&s->s); n++) {
#if defined(__x86_64__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ volatile("yield");
#endif
        if ((n & 127) == 0)
            mpd_thread_yield(); /* the holder may be on this VP */
    }
}

int mpd_tspin_trylock(mpd_tspin_t *s)
{
    return mpd_spin_trylock(&s->s) ? 0 : EBUSY;
}
void mpd_tspin_unlock(mpd_tspin_t *s)
{
    mpd_spin_unlock(&s->s);
}

void mpd_cond_init(mpd_cond_t *c)
{
    mpd_spin_init(&c->lk);
    mpd_waitq_init(&c->q);
}

void mpd_cond_wait(mpd_cond_t *c, mpd_mutex_t *m)
{
    mpd_thread_preempt_off();
    mpd_spin_lock(&c->lk); /* queue first, then release m: no lost signal */
    mpd_mutex_unlock(m);
    mpd_waitq_wait(&c->q, &c->lk);
    mpd_mutex_lock(m);
    mpd_thread_preempt_on();
}

void mpd_cond_signal(mpd_cond_t *c)
{
    mpd_thread_preempt_off();
    mpd_spin_lock(&c->lk);
    mpd_proc *p = mpd_waitq_pop(&c->q);
    mpd_spin_unlock(&c->lk);
    if (p)
        mpd_unpark(p);
    mpd_thread_preempt_on();
}

void mpd_cond_broadcast(mpd_cond_t *c)
{
    mpd_thread_preempt_off();
    mpd_spin_lock(&c->lk);
    mpd_proc *list = NULL, **tail = &list, *p;
    while ((p = mpd_waitq_pop(&c->q))) {
        *tail = p;
        tail = mpd_proc_link(p);
        *tail = NULL;
    }
    mpd_spin_unlock(&c->lk);
    while (list) {
        p = list;
        list = *mpd_proc_link(p);
        mpd_unpark(p);
    }
    mpd_thread_preempt_on();
}
