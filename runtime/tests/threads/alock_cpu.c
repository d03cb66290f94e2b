/* alock_cpu.c: a bounded spin stops at once when the holder is off-CPU (it last ran on the
 * waiter's own CPU, so it is not running), and never on that ground while the holder runs
 * on another CPU.  OS threads pinned with affinity; needs Linux rseq (glibc >= 2.35) for the
 * CPU numbers, and a second CPU for the second half, else those parts say so and are skipped. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "mpd/alock.h"
#include "sync/adaptive_impl.h"
#include "check.h"

static mpd_alock_t *L;
static atomic_int held;
static int holder_cpu_id, waiter_cpu_id;
static long hold_ns;
static int hold_sleeping; /* 1: the holder sleeps (off-CPU); 0: it busy-waits (running) */

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
    pin(holder_cpu_id);
    mpd_alock_lock(L);
    atomic_store(&held, 1);
    if (hold_sleeping) {
        struct timespec ts = {0, hold_ns};
        nanosleep(&ts, NULL);
    } else {
        long end = now_ns() + hold_ns;
        while (now_ns() < end) {
        }
    }
    mpd_alock_unlock(L);
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    pin(waiter_cpu_id);
    while (!atomic_load(&held))
        sched_yield();
    mpd_alock_lock(L);
    mpd_alock_unlock(L);
    return NULL;
}

static mpd_alock_stats_t run(int same_cpu, int sleeping)
{
    mpd_alock_attr_t a;
    mpd_alock_attr_init(&a, MPD_ALOCK_SPIN);
    a.spin_ns = 2000000000L; /* a bounded spin of 2 s: only the off-CPU rule cuts it short */
    a.sleep_ns = MPD_ALOCK_FOREVER;
    L = mpd_alock_create(&a);
    atomic_store(&held, 0);
    hold_sleeping = sleeping;
    hold_ns = 20000000L;
    pthread_t h, w;
    pthread_create(&h, NULL, holder, NULL);
    pthread_create(&w, NULL, waiter, NULL);
    pthread_join(h, NULL);
    pthread_join(w, NULL);
    mpd_alock_stats_t s;
    mpd_alock_stats(L, &s);
    printf("%s CPU, holder %s: contended %lu spin_acquired %lu spin_failed %lu holder_off_cpu %lu "
           "blocks %lu\n",
           same_cpu ? "same" : "other", sleeping ? "asleep" : "running", s.contended,
           s.spin_acquired, s.spin_failed, s.holder_off_cpu, s.blocks);
    mpd_alock_destroy(L);
    return s;
}

/* Without rseq (cpu_id -1 or -2) a held lock's word is 1 or 2, never 0 (free): two threads
 * keep exact counts, and a second trylock fails. */
static long norseq_count;
static void sched_yield_if(int i)
{
    if ((i & 1023) == 0)
        sched_yield();
} /* a holder off-CPU now and then */
static void *norseq_worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 200000; i++) {
        mpd_alock_lock(L);
        long c = norseq_count;
        sched_yield_if(i);
        norseq_count = c + 1;
        mpd_alock_unlock(L);
    }
    return NULL;
}

static int run_without_rseq(void)
{
    CHECK(mpd_alock__my_cpu() < 0);
    mpd_alock_attr_t a;
    mpd_alock_attr_init(&a, MPD_ALOCK_ADAPTIVE);
    L = mpd_alock_create(&a);
    CHECK_EQ_L(mpd_alock_trylock(L), 0);
    int w = atomic_load(&L->state);
    CHECK(w == 1 || w == 2);
    CHECK_EQ_L(mpd_alock_trylock(L), EBUSY);
    mpd_alock_unlock(L);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, norseq_worker, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ_L(norseq_count, 400000);
    mpd_alock_destroy(L);
    printf("without rseq: lock word 1-2 while held, count %ld\n", norseq_count);
    CHECK_DONE();
}

/* Run this test again with glibc's rseq registration turned off. */
static int rerun_without_rseq(const char *self)
{
    pid_t pid = fork();
    if (pid == 0) {
        setenv("GLIBC_TUNABLES", "glibc.pthread.rseq=0", 1);
        setenv("ALOCK_CPU_NORSEQ", "1", 1);
        execl(self, self, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(int argc, char **argv)
{
    (void)argc;
    if (getenv("ALOCK_CPU_NORSEQ"))
        return run_without_rseq();
    cpu_set_t mine;
    CPU_ZERO(&mine);
    sched_getaffinity(0, sizeof mine, &mine);
    int cpus[2], n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &mine))
            cpus[n++] = c;
    pin(cpus[0]);
    if (mpd_alock__my_cpu() < 0) {
        printf("no rseq CPU numbers here: the off-CPU rule is inactive, rule tests skipped\n");
        return run_without_rseq();
    }
    CHECK_EQ_L(rerun_without_rseq(argv[0]), 0);
    /* 1. holder asleep on the waiter's CPU: the waiter stops spinning and blocks */
    holder_cpu_id = waiter_cpu_id = cpus[0];
    mpd_alock_stats_t s = run(1, 1);
    CHECK_EQ_L(s.contended, 1);
    CHECK_EQ_L(s.spin_acquired, 0);
    CHECK_EQ_L(s.spin_failed, 1);
    CHECK_EQ_L(s.holder_off_cpu, 1);
    CHECK_EQ_L(s.blocks, 1);
    /* 2. holder running on another CPU: the waiter spins it out (20 ms < the 2 s bound) */
    if (n < 2) {
        printf("one CPU only: the other-CPU case is skipped\n");
        CHECK_DONE();
    }
    holder_cpu_id = cpus[1];
    waiter_cpu_id = cpus[0];
    s = run(0, 0);
    CHECK_EQ_L(s.contended, 1);
    CHECK_EQ_L(s.holder_off_cpu, 0);
    CHECK_EQ_L(s.spin_acquired, 1);
    /* 3. the holder's CPU is part of the lock word: taken on a CPU, the word says which;
     * released, nothing of it is left for a waiter to read.  (Kept in a field of its
     * own, it was written just after the acquiring cmpxchg, and a waiter that had just
     * released the lock on its own CPU read that CPU there and blocked while the new
     * holder ran on the other CPU.) */
    mpd_alock_attr_t a;
    mpd_alock_attr_init(&a, MPD_ALOCK_ADAPTIVE);
    L = mpd_alock_create(&a);
    for (int i = 0; i < 2; i++) {
        pin(cpus[i]);
        int c = mpd_alock__my_cpu();
        CHECK_EQ_L(mpd_alock_trylock(L), 0);
        CHECK_EQ_L(atomic_load(&L->state), c + 3);
        mpd_alock_unlock(L);
        CHECK_EQ_L(atomic_load(&L->state), 0);
        mpd_alock_lock(L);
        CHECK_EQ_L(atomic_load(&L->state), c + 3);
        mpd_alock_unlock(L);
    }
    mpd_alock_destroy(L);
    CHECK_DONE();
}
