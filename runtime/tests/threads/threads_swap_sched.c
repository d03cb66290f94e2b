/* threads_swap_sched.c: swapping VP 1's scheduler object at run time, under load.
 *
 * 12 preemptible threads on 2 VPs (half homed on each, no migration) yield,
 * take a mutex and count, while the main thread swaps VP 1 between a
 * per-VP LIFO of the test's own and the configurable object 60 times,
 * waiting for each swap to be done.  No
 * thread may be lost in the hand-over (every one finishes: a lost one hangs
 * the join, which the test harness's timeout reports), the counts are exact,
 * and the LIFO really ran threads. */
/* tsan: skip (preemption switches threads inside a signal handler) */
#include <stdatomic.h>
#include <stdio.h>
#include "mpd/threads.h"
#include "check.h"

/* LIFO for one VP.  empty() is also called by other VPs (quiescence check):
 * the stack is guarded by a spin lock. */
typedef struct {
    mpd_spinlock lk;
    mpd_proc *top;
    atomic_long n, gets;
} lifo_t;
static lifo_t lifo_st[4];
static void *lifo_init(int vp, int nvp)
{
    (void)nvp;
    return &lifo_st[vp];
}
static void lifo_put(void *st, mpd_proc *p)
{
    lifo_t *l = st;
    mpd_spin_lock(&l->lk);
    *mpd_proc_link(p) = l->top;
    l->top = p;
    atomic_fetch_add(&l->n, 1);
    mpd_spin_unlock(&l->lk);
}
static mpd_proc *lifo_get(void *st)
{
    lifo_t *l = st;
    mpd_spin_lock(&l->lk);
    mpd_proc *p = l->top;
    if (p) {
        l->top = *mpd_proc_link(p);
        atomic_fetch_sub(&l->n, 1);
        atomic_fetch_add(&l->gets, 1);
    }
    mpd_spin_unlock(&l->lk);
    return p;
}
static int lifo_empty(void *st)
{
    return atomic_load(&((lifo_t *)st)->n) == 0;
}
static const mpd_sched_ops lifo = {"lifo", lifo_init, lifo_put, lifo_get, lifo_empty, NULL};

#define NT 12
#define SWAPS 60
static mpd_mutex_t mx = MPD_MUTEX_INIT;
static long total;
static atomic_int stop;

/* Works until told to stop; returns how many increments it made. */
static void *worker(void *arg)
{
    (void)arg;
    long mine = 0;
    while (!atomic_load(&stop)) {
        mpd_mutex_lock(&mx);
        total++;
        mpd_mutex_unlock(&mx);
        if (++mine % 4 == 0)
            mpd_thread_yield();
    }
    return (void *)mine;
}

static void main_fn(void *arg)
{
    (void)arg;
    mpd_thread_t *t[NT];
    for (int i = 0; i < NT; i++) {
        mpd_thread_attr_t a;
        mpd_thread_attr_init(&a);
        a.vp = i % 2;
        a.preemptible = 1;
        CHECK_EQ_L(mpd_thread_fork(&t[i], &a, worker, NULL), 0);
    }
    int swaps = 0;
    while (swaps < SWAPS) {
        unsigned long before = mpd_sched_object_swaps(1);
        CHECK_EQ_L(mpd_sched_install_ops(1, swaps % 2 ? &mpd_sched_configurable : &lifo), 0);
        swaps++;
        while (mpd_sched_object_swaps(1) == before)
            mpd_thread_yield(); /* VP 1 swaps at its next decision */
        for (int k = 0; k < 10; k++)
            mpd_thread_yield();
    }
    atomic_store(&stop, 1);
    long sum = 0;
    for (int i = 0; i < NT; i++) {
        void *r;
        CHECK_EQ_L(mpd_thread_join(t[i], &r), 0);
        sum += (long)r;
    }
    CHECK_EQ_L(total, sum);
    printf("asked %d swaps, VP 1 did %lu, LIFO gets %ld\n", swaps, mpd_sched_object_swaps(1),
           atomic_load(&lifo_st[1].gets));
    CHECK_EQ_L(mpd_sched_object_swaps(1), swaps);
    CHECK(atomic_load(&lifo_st[1].gets) > 0);
    CHECK(atomic_load(&lifo_st[0].gets) == 0); /* VP 0 kept the configurable object */
}

int main(void)
{
    mpd_sched_attr_t s;
    mpd_sched_attr_init(&s);
    s.migrate = 0;
    s.preempt_us = 300;
    CHECK_EQ_L(mpd_sched_install(-1, &s), 0);
    CHECK_EQ_L(mpd_threads_main(2, main_fn, NULL), 0);
    CHECK_DONE();
}
