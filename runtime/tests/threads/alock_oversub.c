/* alock_oversub.c: with more VPs than CPUs a backed-off waiter gives its CPU back to the
 * OS (sched_yield) at its periodic looks; with VPs to spare it does not.  OS threads, the
 * holder running (busy) on one CPU until 20 ms after the waiter is about to lock (a hold
 * fixed from the holder's start let a waiter thread started late, as under TSan on a busy
 * machine, find the lock free) and the waiter spinning on another with a 2 s bound, so
 * only the spin itself decides; the runtime's VP count is set by hand as in
 * alock_attrs.  Needs two CPUs (else skipped). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include "mpd/alock.h"
#include "sync/adaptive_impl.h"
#include "core/rt_internal.h"
#include "check.h"

static mpd_alock_t *L;
static atomic_int held, waiting;
static int cpu_of[2];

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void *holder(void *arg)
{
    (void)arg;
    pin(cpu_of[0]);
    mpd_alock_lock(L);
    atomic_store(&held, 1);
    while (!atomic_load(&waiting))
        sched_yield();
    long end = now_ns() + 20000000L;
    while (now_ns() < end) {
    }
    mpd_alock_unlock(L);
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    pin(cpu_of[1]);
    while (!atomic_load(&held))
        sched_yield();
    atomic_store(&waiting, 1);
    mpd_alock_lock(L);
    mpd_alock_unlock(L);
    return NULL;
}

static mpd_alock_stats_t run(int nvp)
{
    mpd__nvp = nvp;
    mpd_alock_attr_t a;
    mpd_alock_attr_init(&a, MPD_ALOCK_SPIN);
    a.spin_ns = 2000000000L; /* bounded (so it backs off), longer than the hold */
    a.sleep_ns = MPD_ALOCK_FOREVER;
    L = mpd_alock_create(&a);
    atomic_store(&held, 0);
    atomic_store(&waiting, 0);
    pthread_t h, w;
    pthread_create(&h, NULL, holder, NULL);
    pthread_create(&w, NULL, waiter, NULL);
    pthread_join(h, NULL);
    pthread_join(w, NULL);
    mpd_alock_stats_t s;
    mpd_alock_stats(L, &s);
    printf("%d VPs: contended %lu spin_acquired %lu os_yields %lu\n", nvp, s.contended,
           s.spin_acquired, s.os_yields);
    mpd_alock_destroy(L);
    return s;
}

int main(void)
{
    int cpus = mpd_alock__usable_cpus(); /* read once, before any thread is pinned */
    cpu_set_t mine;
    CPU_ZERO(&mine);
    sched_getaffinity(0, sizeof mine, &mine);
    int n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &mine))
            cpu_of[n++] = c;
    if (n < 2) {
        printf("one CPU only: skipped\n");
        CHECK_DONE();
    }
    mpd_alock_stats_t s = run(cpus + 1); /* more VPs than CPUs: the waiter yields */
    CHECK_EQ_L(s.contended, 1);
    CHECK_EQ_L(s.spin_acquired, 1);
    CHECK(s.os_yields > 0);
    s = run(cpus); /* VPs fit: it only pauses */
    CHECK_EQ_L(s.contended, 1);
    CHECK_EQ_L(s.spin_acquired, 1);
    CHECK_EQ_L(s.os_yields, 0);
    CHECK_DONE();
}
