/* threads_api.c: fork/join/detach/yield/self, mutex, condition, spin lock, adaptive lock on lightweight threads. */
#include <errno.h>
#include <stdio.h>
#include "mpd/alock.h"
#include "mpd/threads.h"
#include "check.h"

#define NT 16
#define ITERS 3000
static mpd_mutex_t mu = MPD_MUTEX_INIT;
static mpd_tspin_t sp = MPD_TSPIN_INIT;
static mpd_alock_t *al;
static long c_mutex, c_spin, c_alock;
static atomic_int detached_done;

static void *adder(void *arg)
{
    long k = (long)arg;
    for (int i = 0; i < ITERS; i++) {
        mpd_mutex_lock(&mu);
        long v = c_mutex;
        if ((i & 15) == 0)
            mpd_thread_yield(); /* hold it across a switch */
        c_mutex = v + 1;
        mpd_mutex_unlock(&mu);
        mpd_tspin_lock(&sp);
        c_spin++;
        mpd_tspin_unlock(&sp);
        mpd_alock_lock(al);
        v = c_alock;
        if ((i & 31) == 0)
            mpd_thread_yield();
        c_alock = v + 1;
        mpd_alock_unlock(al);
    }
    return (void *)(k * 10);
}

static void *detached_fn(void *arg)
{
    (void)arg;
    mpd_thread_yield();
    atomic_fetch_add(&detached_done, 1);
    return NULL;
}
static void *self_fn(void *arg)
{
    (void)arg;
    return mpd_thread_self();
}

/* bounded buffer with condition variables */
#define CAP 4
static int buf[CAP], nbuf, head_i, tail_i;
static mpd_cond_t not_full = MPD_COND_INIT, not_empty = MPD_COND_INIT;
static mpd_mutex_t bm = MPD_MUTEX_INIT;
static long consumed_sum;
static void *producer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= 2000; i++) {
        mpd_mutex_lock(&bm);
        while (nbuf == CAP)
            mpd_cond_wait(&not_full, &bm);
        buf[tail_i] = i;
        tail_i = (tail_i + 1) % CAP;
        nbuf++;
        mpd_cond_signal(&not_empty);
        mpd_mutex_unlock(&bm);
    }
    return NULL;
}
static void *consumer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++) {
        mpd_mutex_lock(&bm);
        while (nbuf == 0)
            mpd_cond_wait(&not_empty, &bm);
        consumed_sum += buf[head_i];
        head_i = (head_i + 1) % CAP;
        nbuf--;
        mpd_cond_broadcast(&not_full);
        mpd_mutex_unlock(&bm);
    }
    return NULL;
}

static void main_fn(void *arg)
{
    (void)arg;
    CHECK(mpd_thread_self() != NULL);
    mpd_alock_attr_t aa;
    mpd_alock_attr_init(&aa, MPD_ALOCK_ADAPTIVE);
    al = mpd_alock_create(&aa);
    mpd_thread_t *t[NT];
    for (long i = 0; i < NT; i++)
        CHECK_EQ_L(mpd_thread_fork(&t[i], NULL, adder, (void *)i), 0);
    for (long i = 0; i < NT; i++) {
        void *r = NULL;
        CHECK_EQ_L(mpd_thread_join(t[i], &r), 0);
        CHECK_EQ_L((long)r, i * 10);
    }
    CHECK_EQ_L(c_mutex, (long)NT * ITERS);
    CHECK_EQ_L(c_spin, (long)NT * ITERS);
    CHECK_EQ_L(c_alock, (long)NT * ITERS);
    mpd_alock_stats_t st;
    mpd_alock_stats(al, &st);
    printf("alock on threads: contended %lu blocks %lu adaptations %lu\n", st.contended, st.blocks,
           st.adaptations);
    mpd_alock_destroy(al);

    /* errors */
    CHECK_EQ_L(mpd_thread_join(mpd_thread_self(), NULL), EDEADLK);
    CHECK_EQ_L(mpd_thread_fork(NULL, NULL, NULL, NULL), EINVAL);

    /* detach */
    mpd_thread_attr_t a;
    mpd_thread_attr_init(&a);
    a.detached = 1;
    for (int i = 0; i < 5; i++)
        CHECK_EQ_L(mpd_thread_fork(NULL, &a, detached_fn, NULL), 0);
    mpd_thread_t *d;
    CHECK_EQ_L(mpd_thread_fork(&d, NULL, detached_fn, NULL), 0);
    CHECK_EQ_L(mpd_thread_detach(d), 0);
    while (atomic_load(&detached_done) < 6)
        mpd_thread_yield();

    /* self */
    mpd_thread_t *s;
    CHECK_EQ_L(mpd_thread_fork(&s, NULL, self_fn, NULL), 0);
    void *r;
    mpd_thread_t *expect = s;
    CHECK_EQ_L(mpd_thread_join(s, &r), 0);
    CHECK(r == (void *)expect);

    /* condition variables: 1 producer, 2 consumers */
    mpd_thread_t *p, *c1, *c2;
    mpd_thread_fork(&c1, NULL, consumer, NULL);
    mpd_thread_fork(&c2, NULL, consumer, NULL);
    mpd_thread_fork(&p, NULL, producer, NULL);
    mpd_thread_join(p, NULL);
    mpd_thread_join(c1, NULL);
    mpd_thread_join(c2, NULL);
    CHECK_EQ_L(consumed_sum, 2000L * 2001 / 2);
}

int main(void)
{
    int rc = mpd_threads_main(2, main_fn, NULL);
    CHECK_EQ_L(rc, 0);
    CHECK_DONE();
}
