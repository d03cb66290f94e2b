/* mutex.c: mutex, spin lock and condition variable for mpd threads (block the thread, not the VP). */
#include "threads/threads_impl.h"

#include <errno.h>

void mpd_mutex_init(mpd_mutex_t *m) {
    mpd_spin_init(&m->lk);
    m->locked = 0;
    mpd_waitq_init(&m->q);
}

void mpd_mutex_lock(mpd_mutex_t *m) {
    mpd_thread_preempt_off();
    mpd_spin_lock(&m->lk);
    if (!m->locked) {
        m->locked = 1;
        mpd_spin_unlock(&m->lk);
    } else {
        mpd_waitq_wait(&m->q, &m->lk);   /* returns owning the mutex (handed over) */
    }
    mpd_thread_preempt_on();
}

int mpd_mutex_trylock(mpd_mutex_t *m) {
    int r = EBUSY;
    mpd_thread_preempt_off();
    mpd_spin_lock(&m->lk);
    if (!m->locked) { m->locked = 1; r = 0; }
    mpd_spin_unlock(&m->lk);
    mpd_thread_preempt_on();
    return r;
}

void mpd_mutex_unlock(mpd_mutex_t *m) {
    mpd_thread_preempt_off();
    mpd_spin_lock(&m->lk);
    mpd_proc *next = mpd_waitq_pop(&m->q);
    if (!next) m->locked = 0;            /* else ownership passes to next */
    mpd_spin_unlock(&m->lk);
    if (next) mpd_unpark(next);
    mpd_thread_preempt_on();
}

void mpd_tspin_init(mpd_tspin_t *s) { mpd_spin_init(&s->s); }

void mpd_tspin_lock(mpd_tspin_t *s) {
    for (unsigned n = 1; !mpd_spin_trylock(&s->s); n++) {
#if defined(__x86_64__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ volatile("yield");
#endif
        if ((n & 127) == 0) mpd_thread_yield();   /* the holder may be on this VP */
    }
}

int mpd_tspin_trylock(mpd_tspin_t *s) { return mpd_spin_trylock(&s->s) ? 0 : EBUSY; }
void mpd_tspin_unlock(mpd_tspin_t *s) { mpd_spin_unlock(&s->s); }

void mpd_cond_init(mpd_cond_t *c) {
    mpd_spin_init(&c->lk);
    mpd_waitq_init(&c->q);
}

void mpd_cond_wait(mpd_cond_t *c, mpd_mutex_t *m) {
    mpd_thread_preempt_off();
    mpd_spin_lock(&c->lk);               /* queue first, then release m: no lost signal */
    mpd_mutex_unlock(m);
    mpd_waitq_wait(&c->q, &c->lk);
    mpd_mutex_lock(m);
    mpd_thread_preempt_on();
}

void mpd_cond_signal(mpd_cond_t *c) {
    mpd_thread_preempt_off();
    mpd_spin_lock(&c->lk);
    mpd_proc *p = mpd_waitq_pop(&c->q);
    mpd_spin_unlock(&c->lk);
    if (p) mpd_unpark(p);
    mpd_thread_preempt_on();
}

void mpd_cond_broadcast(mpd_cond_t *c) {
    mpd_thread_preempt_off();
    mpd_spin_lock(&c->lk);
    mpd_proc *list = NULL, **tail = &list, *p;
    while ((p = mpd_waitq_pop(&c->q))) { *tail = p; tail = mpd_proc_link(p); *tail = NULL; }
    mpd_spin_unlock(&c->lk);
    while (list) { p = list; list = *mpd_proc_link(p); mpd_unpark(p); }
    mpd_thread_preempt_on();
}
