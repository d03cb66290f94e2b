/* table1.c: the configurable-threads paper's Table 1 remade in one run -- fork, yield,
 * ping-pong and mutex lock+unlock for mpd threads (one VP) against POSIX threads.
 * Usage: table1 [iterations (default 20000)]   Prints a markdown table (microseconds). */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "mpd/alock.h"
#include "mpd/threads.h"

static long N;
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}
#define BEST_OF 5
#define MEASURE(var, per, ...)                                                                     \
    do {                                                                                           \
        double b_ = 1e9;                                                                           \
        for (int r_ = 0; r_ < BEST_OF; r_++) {                                                     \
            double t0_ = now();                                                                    \
            __VA_ARGS__;                                                                           \
            double t_ = now() - t0_;                                                               \
            if (t_ < b_)                                                                           \
                b_ = t_;                                                                           \
        }                                                                                          \
        var = b_ * 1e6 / (double)(per);                                                            \
    } while (0)

static void *nothing(void *a)
{
    return a;
}

/* ---- POSIX threads ---- */
static volatile long pp_turn;
static long pp_rounds;
static void *p_pinger(void *arg)
{
    long me = (long)arg;
    for (long i = 0; i < pp_rounds; i++) {
        while (pp_turn != me)
            sched_yield();
        pp_turn = 1 - me;
    }
    return NULL;
}

static void pin_cpu0(void)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(0, &s);
    pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static double p_fork, p_yield, p_pingpong, p_mutex, p_spin;
static void posix_side(void)
{
    pin_cpu0(); /* one processor, as the lightweight threads get one VP */
    long nf = N / 10;
    MEASURE(
        p_fork, nf, for (long i = 0; i < nf; i++) {
            pthread_t t;
            pthread_create(&t, NULL, nothing, NULL);
            pthread_join(t, NULL);
        });
    MEASURE(p_yield, N, for (long i = 0; i < N; i++) sched_yield());
    pp_rounds = N / 4;
    MEASURE(p_pingpong, 2 * pp_rounds, {
        pthread_attr_t a;
        pthread_attr_init(&a);
        cpu_set_t s;
        CPU_ZERO(&s);
        CPU_SET(0, &s);
        pthread_attr_setaffinity_np(&a, sizeof s, &s);
        pthread_t t0, t1;
        pp_turn = 0;
        pthread_create(&t0, &a, p_pinger, (void *)0L);
        pthread_create(&t1, &a, p_pinger, (void *)1L);
        pthread_join(t0, NULL);
        pthread_join(t1, NULL);
    });
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    MEASURE(
        p_mutex, N * 10, for (long i = 0; i < N * 10; i++) {
            pthread_mutex_lock(&m);
            pthread_mutex_unlock(&m);
        });
    pthread_spinlock_t sl;
    pthread_spin_init(&sl, PTHREAD_PROCESS_PRIVATE);
    MEASURE(
        p_spin, N * 10, for (long i = 0; i < N * 10; i++) {
            pthread_spin_lock(&sl);
            pthread_spin_unlock(&sl);
        });
}

/* ---- mpd threads ---- */
static volatile long m_turn;
static void *m_pinger(void *arg)
{
    long me = (long)arg;
    for (long i = 0; i < pp_rounds; i++) {
        while (m_turn != me)
            mpd_thread_yield();
        m_turn = 1 - me;
    }
    return NULL;
}

/* Adaptive-lock kinds (mpd/alock.h): uncontended lock+unlock, and two threads on the one VP
 * that yield while holding the lock, so every other acquire finds the holder on its own VP. */
static const char *const al_names[3] = {"spin", "block", "adaptive"};
static double al_unc[3], al_same[3];
static mpd_alock_t *al_cur;
static void *al_yielder(void *arg)
{
    long n = (long)arg;
    for (long i = 0; i < n; i++) {
        mpd_alock_lock(al_cur);
        mpd_thread_yield();
        mpd_alock_unlock(al_cur);
    }
    return NULL;
}
static void alock_side(void)
{
    for (int k = 0; k < 3; k++) {
        mpd_alock_attr_t a;
        mpd_alock_attr_init(&a, (enum mpd_alock_kind)k);
        mpd_alock_t *l = mpd_alock_create(&a);
        MEASURE(
            al_unc[k], N * 10, for (long i = 0; i < N * 10; i++) {
                mpd_alock_lock(l);
                mpd_alock_unlock(l);
            });
        al_cur = l;
        MEASURE(al_same[k], 2 * N, {
            mpd_thread_t *t0, *t1;
            mpd_thread_fork(&t0, NULL, al_yielder, (void *)N);
            mpd_thread_fork(&t1, NULL, al_yielder, (void *)N);
            mpd_thread_join(t0, NULL);
            mpd_thread_join(t1, NULL);
        });
        mpd_alock_destroy(l);
    }
}

static double m_fork, m_yield, m_pingpong, m_mutex, m_spin;
static void mpd_side(void *arg)
{
    (void)arg;
    long nf = N;
    MEASURE(
        m_fork, nf, for (long i = 0; i < nf; i++) {
            mpd_thread_t *t;
            mpd_thread_fork(&t, NULL, nothing, NULL);
            mpd_thread_join(t, NULL);
        });
    MEASURE(m_yield, N, for (long i = 0; i < N; i++) mpd_thread_yield());
    pp_rounds = N;
    MEASURE(m_pingpong, 2 * pp_rounds, {
        mpd_thread_t *t0, *t1;
        m_turn = 0;
        mpd_thread_fork(&t0, NULL, m_pinger, (void *)0L);
        mpd_thread_fork(&t1, NULL, m_pinger, (void *)1L);
        mpd_thread_join(t0, NULL);
        mpd_thread_join(t1, NULL);
    });
    mpd_mutex_t m = MPD_MUTEX_INIT;
    MEASURE(
        m_mutex, N * 10, for (long i = 0; i < N * 10; i++) {
            mpd_mutex_lock(&m);
            mpd_mutex_unlock(&m);
        });
    mpd_tspin_t s = MPD_TSPIN_INIT;
    MEASURE(
        m_spin, N * 10, for (long i = 0; i < N * 10; i++) {
            mpd_tspin_lock(&s);
            mpd_tspin_unlock(&s);
        });
    alock_side();
}

int main(int argc, char **argv)
{
    N = argc > 1 ? atol(argv[1]) : 20000;
    if (N < 100) {
        fprintf(stderr, "table1: iterations must be >= 100\n");
        return 2;
    }
    mpd_threads_main(1, mpd_side, NULL);
    posix_side();
    printf(
        "## Table 1: POSIX threads vs mpd threads on this machine (microseconds, best of %d)\n\n",
        BEST_OF);
    printf("| operation | pthread | mpd thread | pthread / mpd |\n|---|---:|---:|---:|\n");
    printf("| fork (create + join) | %.3f | %.3f | %.1f |\n", p_fork, m_fork, p_fork / m_fork);
    printf("| yield (one thread ready) | %.3f | %.3f | %.1f |\n", p_yield, m_yield,
           p_yield / m_yield);
    printf("| ping-pong (two threads yielding, per switch) | %.3f | %.3f | %.1f |\n", p_pingpong,
           m_pingpong, p_pingpong / m_pingpong);
    printf("| mutex lock+unlock | %.4f | %.4f | %.1f |\n", p_mutex, m_mutex, p_mutex / m_mutex);
    printf("| spin lock+unlock (pthread_spin / mpd_tspin) | %.4f | %.4f | %.1f |\n\n", p_spin,
           m_spin, p_spin / m_spin);
    printf("Both sides run on one processor: POSIX threads pinned to CPU 0, mpd threads on one "
           "VP.\n\n");
    printf(
        "## Adaptive locks (mpd/alock.h) on one VP, per lock+unlock (microseconds, best of %d)\n\n",
        BEST_OF);
    printf(
        "| lock kind | uncontended | two threads yielding while holding it |\n|---|---:|---:|\n");
    for (int k = 0; k < 3; k++)
        printf("| %s | %.4f | %.3f |\n", al_names[k], al_unc[k], al_same[k]);
    return 0;
}
