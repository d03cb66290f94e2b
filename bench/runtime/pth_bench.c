/* pth_bench.c: the POSIX-threads analogues of the runtime core benchmarks
 * (threads, sched_yield, POSIX semaphores); prints "name ns", best of 5. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 3
static long scale = 1;

static int64_t now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
static double best_of(double (*f)(void))
{
    double b = 1e18;
    for (int r = 0; r < ROUNDS; r++) {
        double ns = f();
        if (ns < b)
            b = ns;
    }
    return b;
}
static void pin(int cpu)
{
    if (cpu < 0)
        return; /* let the kernel place it */
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}
static void unpin(void)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    for (int i = 0; i < CPU_SETSIZE; i++)
        CPU_SET(i, &s);
    pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *nothing(void *a)
{
    return a;
}

static double b_create(void)
{
    long n = 2000 * scale;
    pthread_t t[100];
    int64_t t0 = now();
    for (long i = 0; i < n; i += 100) {
        for (int k = 0; k < 100; k++)
            pthread_create(&t[k], NULL, nothing, NULL);
        for (int k = 0; k < 100; k++)
            pthread_join(t[k], NULL);
    }
    return (double)(now() - t0) / (double)n;
}
static double b_create_wait(void)
{
    long n = 2000 * scale;
    int64_t t0 = now();
    for (long i = 0; i < n; i++) {
        pthread_t t;
        pthread_create(&t, NULL, nothing, NULL);
        pthread_join(t, NULL);
    }
    return (double)(now() - t0) / (double)n;
}

static long iters;
static int cpu_a, cpu_b;
static void *yielder(void *a)
{
    pin(cpu_a);
    for (long i = 0; i < iters; i++)
        sched_yield();
    return a;
}
static double b_yield(void)
{
    iters = 20000 * scale;
    cpu_a = 0;
    pthread_t x, y;
    int64_t t0 = now();
    pthread_create(&x, NULL, yielder, NULL);
    pthread_create(&y, NULL, yielder, NULL);
    pthread_join(x, NULL);
    pthread_join(y, NULL);
    return (double)(now() - t0) / (2.0 * iters);
}
static double b_pv(void)
{
    sem_t s;
    sem_init(&s, 0, 1);
    long n = 20000000 * scale;
    int64_t t0 = now();
    for (long i = 0; i < n; i++) {
        sem_wait(&s);
        __asm__ volatile("" ::: "memory");
        sem_post(&s);
    }
    sem_destroy(&s);
    return (double)(now() - t0) / (double)n;
}
static sem_t s1, s2;
static void *ponger(void *a)
{
    pin(cpu_b);
    for (long i = 0; i < iters; i++) {
        sem_wait(&s1);
        sem_post(&s2);
    }
    return a;
}
static double pingpong(int ca, int cb, long n)
{
    iters = n;
    cpu_a = ca;
    cpu_b = cb;
    sem_init(&s1, 0, 0);
    sem_init(&s2, 0, 0);
    if (ca >= 0)
        pin(ca);
    pthread_t t;
    pthread_create(&t, NULL, ponger, NULL);
    int64_t t0 = now();
    for (long i = 0; i < n; i++) {
        sem_post(&s1);
        sem_wait(&s2);
    }
    double ns = (double)(now() - t0) / (2.0 * n);
    pthread_join(t, NULL);
    if (ca >= 0)
        unpin();
    return ns;
}
static double b_handoff(void)
{
    return pingpong(0, 0, 20000 * scale);
}
static double b_2cpu(void)
{
    return pingpong(-1, -1, 20000 * scale);
} /* like 2 VPs: unpinned */

int main(int argc, char **argv)
{
    if (argc > 1)
        scale = atol(argv[1]) > 0 ? atol(argv[1]) : 1;
    printf("create_destroy %.2f\n", best_of(b_create));
    printf("create_run_wait %.2f\n", best_of(b_create_wait));
    printf("yield %.2f\n", best_of(b_yield));
    printf("sem_pv %.2f\n", best_of(b_pv));
    printf("sem_handoff %.2f\n", best_of(b_handoff));
    printf("pingpong_2vp %.2f\n", best_of(b_2cpu));
    return 0;
}
