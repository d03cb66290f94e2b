/* rt_bench.c: times the runtime core's basic operations (ns per operation).
 * Prints "name ns" lines; each figure is the best of several rounds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "mpd/rt.h"
#include "csw/csw.h"

#define ROUNDS 5
static long scale = 1;

static int64_t now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
static void report(const char *name, double ns)
{
    printf("%s %.2f\n", name, ns);
    fflush(stdout);
}

/* ---- raw context switch, each backend: two contexts bounce N times ---- */
#define RAW(NAME, CTX, MAKE, SWITCH)                                                               \
    static CTX NAME##_a, NAME##_b;                                                                 \
    static long NAME##_n;                                                                          \
    /* one call site for both sides, as in the runtime: the return predictor  \
     * then sees the address it expects */                    \
    static __attribute__((noinline)) void NAME##_hop(CTX *f, CTX *t)                               \
    {                                                                                              \
        SWITCH(f, t);                                                                              \
    }                                                                                              \
    static void NAME##_peer(void *arg)                                                             \
    {                                                                                              \
        (void)arg;                                                                                 \
        for (;;)                                                                                   \
            NAME##_hop(&NAME##_b, &NAME##_a);                                                      \
    }                                                                                              \
    static double NAME##_raw(long n)                                                               \
    {                                                                                              \
        static char *stk;                                                                          \
        if (!stk)                                                                                  \
            stk = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);   \
        MAKE(&NAME##_b, stk, 65536, NAME##_peer, NULL);                                            \
        double best = 1e9;                                                                         \
        for (int r = 0; r < ROUNDS; r++) {                                                         \
            int64_t t = now();                                                                     \
            for (NAME##_n = 0; NAME##_n < n; NAME##_n++)                                           \
                NAME##_hop(&NAME##_a, &NAME##_b);                                                  \
            double ns = (double)(now() - t) / (2.0 * n); /* two switches per lap */                \
            if (ns < best)                                                                         \
                best = ns;                                                                         \
        }                                                                                          \
        return best;                                                                               \
    }
#ifdef MPD_CSW_HAVE_ASM
RAW(asm, mpd_asm_ctx, mpd_asm_ctx_make, mpd_asm_ctx_switch)
#endif
RAW(uc, mpd_uc_ctx, mpd_uc_ctx_make, mpd_uc_ctx_switch)
#ifdef MPD_HAVE_FCONTEXT
RAW(fc, mpd_fc_ctx, mpd_fc_ctx_make, mpd_fc_ctx_switch)
#endif

/* ---- inside the runtime ---- */
static mpd_sem done, s1, s2;
static long iters;

static void nothing(void *a)
{
    (void)a;
}
static void nothing_v(void *a)
{
    (void)a;
    mpd_sem_V(&done);
}

static void yielder(void *a)
{
    (void)a;
    for (long i = 0; i < iters; i++)
        mpd_yield();
    mpd_sem_V(&done);
}
static void pinger(void *a)
{
    (void)a;
    for (long i = 0; i < iters; i++) {
        mpd_sem_V(&s1);
        mpd_sem_P(&s2);
    }
    mpd_sem_V(&done);
}
static void ponger(void *a)
{
    (void)a;
    for (long i = 0; i < iters; i++) {
        mpd_sem_P(&s1);
        mpd_sem_V(&s2);
    }
    mpd_sem_V(&done);
}

static double best_of(double (*f)(void))
{
    double best = 1e18;
    for (int r = 0; r < ROUNDS; r++) {
        double ns = f();
        if (ns < best)
            best = ns;
    }
    return best;
}

static double b_create(void)
{
    /* batches of 100 detached processes that end at once */
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    long n = 200000 * scale;
    int64_t t = now();
    for (long i = 0; i < n; i += 100) {
        for (int k = 0; k < 100; k++)
            mpd_proc_create(nothing, NULL, &at);
        mpd_yield();
    }
    return (double)(now() - t) / (double)n;
}
static double b_create_wait(void)
{
    /* create, run and wait for one process at a time (a sem V/P pair) */
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    long n = 200000 * scale;
    int64_t t = now();
    for (long i = 0; i < n; i++) {
        mpd_proc_create(nothing_v, NULL, &at);
        mpd_sem_P(&done);
    }
    return (double)(now() - t) / (double)n;
}
static double b_yield(void)
{
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    iters = 1000000 * scale;
    int64_t t = now();
    mpd_proc_create(yielder, NULL, &at);
    mpd_proc_create(yielder, NULL, &at);
    mpd_sem_P(&done);
    mpd_sem_P(&done);
    return (double)(now() - t) / (2.0 * iters); /* per yield (= one switch) */
}
static double b_pv(void)
{
    mpd_sem s;
    mpd_sem_init(&s, 1);
    long n = 20000000 * scale;
    int64_t t = now();
    for (long i = 0; i < n; i++) {
        mpd_sem_P(&s);
        __asm__ volatile("" ::: "memory");
        mpd_sem_V(&s);
    }
    return (double)(now() - t) / (double)n;
}
static double b_handoff(void)
{
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    iters = (mpd_nvp() > 1 ? 200000 : 1000000) * scale;
    mpd_sem_init(&s1, 0);
    mpd_sem_init(&s2, 0);
    int64_t t = now();
    mpd_proc_create(pinger, NULL, &at);
    mpd_proc_create(ponger, NULL, &at);
    mpd_sem_P(&done);
    mpd_sem_P(&done);
    return (double)(now() - t) / (2.0 * iters); /* per one-way handoff */
}

static void main1(void *a)
{
    (void)a;
    mpd_sem_init(&done, 0);
    report("create_destroy", best_of(b_create));
    report("create_run_wait", best_of(b_create_wait));
    report("yield", best_of(b_yield));
    report("sem_pv", best_of(b_pv));
    report("sem_handoff", best_of(b_handoff));
}
static void main2(void *a)
{
    (void)a;
    mpd_sem_init(&done, 0);
    report("pingpong_2vp", best_of(b_handoff));
}

static void in_child(void (*fn)(void *), int nvp, char **argv)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        mpd_rt_set_nvp(nvp);
        _exit(mpd_rt_main(1, argv, fn, NULL));
    }
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st))
        fprintf(stderr, "rt_bench: child failed\n");
}

int main(int argc, char **argv)
{
    if (argc > 1)
        scale = atol(argv[1]) > 0 ? atol(argv[1]) : 1;
    long n = 5000000 * scale;
#ifdef MPD_CSW_HAVE_ASM
    report("switch_asm", asm_raw(n));
#endif
#ifdef MPD_HAVE_FCONTEXT
    report("switch_fcontext", fc_raw(n));
#endif
    report("switch_ucontext", uc_raw(n / 10));
    in_child(main1, 1, argv);
    in_child(main2, 2, argv);
    return 0;
}
