/* ras_stress.c: 8 preemptible threads count through the built-in RAS fetch-and-add
 * and the RAS mutex on NVP virtual processors; no update may be lost.
 *
 *   ras_stress [NVP [ITERS [RUNS]]]   (defaults: 1, 2 and 4 VPs, 200000, 1)
 *
 * With one VP the sequences are real RAS rewound by the preemption tick;
 * with several, VPs run them concurrently (on several CPUs, or on one CPU
 * when the kernel preempts a VP's OS thread mid-sequence), which is what the
 * library must cover.  scripts/test.d/52-libs-stress.sh runs it 50 times per
 * configuration, with and without taskset -c 0. */
/* tsan: skip (preemption switches threads inside a signal handler) */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mpd/ras.h"
#include "mpd/threads.h"
#include "check.h"

#define NT 8
static volatile long fa_count; /* through mpd_ras_fetch_add */
static volatile long mx_count; /* plain increments under the RAS mutex */
static mpd_ras_mutex_t mx = MPD_RAS_MUTEX_INIT;
static long iters = 200000;

static atomic_int started;

static void *counter(void *arg)
{
    (void)arg;
    /* all threads live before anyone counts: the VPs then really overlap */
    atomic_fetch_add(&started, 1);
    while (atomic_load(&started) < NT)
        mpd_thread_yield();
    for (long i = 0; i < iters; i++) {
        mpd_ras_fetch_add(&fa_count, 1);
        if ((i & 63) == 0) {
            mpd_ras_mutex_lock(&mx);
            long v = mx_count;
            for (volatile int d = 0; d < 8; d++) {
            } /* widen the window */
            mx_count = v + 1;
            mpd_ras_mutex_unlock(&mx);
        }
    }
    return NULL;
}

static void main_fn(void *arg)
{
    (void)arg;
    mpd_thread_t *t[NT];
    /* restartable on one VP, interlocked on several */
    CHECK_EQ_L(mpd_ras_uniprocessor(), MPD_RAS_NATIVE && mpd_nvp() == 1);
    for (int i = 0; i < NT; i++) {
        mpd_thread_attr_t a;
        mpd_thread_attr_init(&a);
        a.preemptible = 1;
        a.vp = i % mpd_nvp();
        CHECK_EQ_L(mpd_thread_fork(&t[i], &a, counter, NULL), 0);
    }
    for (int i = 0; i < NT; i++)
        mpd_thread_join(t[i], NULL);
}

static int one_run(int nvp)
{
    fa_count = 0;
    mx_count = 0;
    mx.word = 0;
    atomic_store(&started, 0);
    mpd_sched_attr_t s;
    mpd_sched_attr_init(&s);
    s.preempt_us = 200; /* the project's own tick, on every VP */
    s.migrate = 0;      /* each thread stays on its VP: the VPs overlap */
    mpd_sched_install(-1, &s);
    int rc = mpd_threads_main(nvp, main_fn, NULL);
    long want = NT * iters, want_mx = NT * ((iters + 63) / 64);
    printf("%d VP(s): restarts %lu\n", nvp, mpd_ras_restarts_total());
    if (rc != 0 || fa_count != want || mx_count != want_mx) {
        fprintf(stderr, "%d VP(s): fetch_add %ld of %ld, mutex %ld of %ld (rc %d)\n", nvp, fa_count,
                want, mx_count, want_mx, rc);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int nvps[3] = {1, 2, 4}, nn = 3;
    if (argc > 1) {
        nvps[0] = atoi(argv[1]);
        nn = 1;
    }
    if (argc > 2)
        iters = atol(argv[2]);
    int runs = argc > 3 ? atoi(argv[3]) : 1;
    /* mpd_threads_main starts the runtime once per process: one configuration
     * per forked child (fork, not exec: the test also runs under qemu-user) */
    if (nn > 1) {
        for (int i = 0; i < nn; i++) {
            fflush(stdout);
            pid_t p = fork();
            if (p == 0) {
                int bad = 0;
                for (int r = 0; r < runs; r++)
                    bad += one_run(nvps[i]);
                fflush(stdout);
                _exit(bad || check_failures ? 1 : 0);
            }
            int st = 1;
            waitpid(p, &st, 0);
            CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        }
        CHECK_DONE();
    }
    for (int r = 0; r < runs; r++)
        if (one_run(nvps[0]))
            check_failures++;
    CHECK_DONE();
}
