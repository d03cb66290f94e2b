/* ras_pcpu.c: per-CPU counter on rseq (and its fallback) keeps exact totals across OS threads. */
#include <pthread.h>
#include <stdio.h>
#include <sys/rseq.h>
#include "mpd/ras.h"
#include "check.h"

#define NTH 4
#define ADDS 200000
static mpd_pcpu_counter_t *ctr;
static int rseq_used[NTH];
static unsigned long aborts[NTH];

static void *worker(void *arg)
{
    int i = (int)(long)arg;
    rseq_used[i] = mpd_pcpu_uses_rseq();
    for (int k = 0; k < ADDS; k++)
        mpd_pcpu_add(ctr, (k & 1) ? 3 : -1);
    aborts[i] = mpd_pcpu_aborts();
    return NULL;
}

static long run(void)
{
    pthread_t t[NTH];
    for (long i = 0; i < NTH; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < NTH; i++)
        pthread_join(t[i], NULL);
    return mpd_pcpu_sum(ctr);
}

int main(void)
{
    long expect = (long)NTH * (ADDS / 2) * (3 - 1);
    ctr = mpd_pcpu_counter_new();
    CHECK(ctr != NULL);
    long s = run();
    unsigned long ab = 0;
    for (int i = 0; i < NTH; i++)
        ab += aborts[i];
    printf("rseq: registered size %u, used %d, sum %ld (expect %ld), aborts %lu\n", __rseq_size,
           rseq_used[0], s, expect, ab);
    CHECK_EQ_L(s, expect);
#if defined(__x86_64__)
    /* glibc registered rseq for us, so the rseq path must be the one taken */
    if (__rseq_size > 0)
        CHECK_EQ_L(rseq_used[0], 1);
#endif
    mpd_pcpu_counter_free(ctr);

    mpd_pcpu_force_fallback(1);
    ctr = mpd_pcpu_counter_new();
    s = run();
    printf("fallback: used rseq %d, sum %ld\n", rseq_used[0], s);
    CHECK_EQ_L(rseq_used[0], 0);
    CHECK_EQ_L(s, expect);
    mpd_pcpu_counter_free(ctr);
    CHECK_DONE();
}
