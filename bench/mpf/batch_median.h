/* batch_median.h: the median of the ping-pong batches (20 round trips each), printed beside
 * the fastest batch by mpf_bench, sock_bench and mpi_bench: the typical latency, unpinned
 * runs included, next to the best case (both sides holding a CPU). */
#ifndef BENCH_MPF_BATCH_MEDIAN_H
#define BENCH_MPF_BATCH_MEDIAN_H
#include <stdlib.h>

static double *bm_batches;
static long bm_n;

static void bm_reset(long count)
{
    bm_n = 0;
    if (!bm_batches)
        bm_batches = malloc(sizeof *bm_batches * (size_t)(count / 20 + 2));
}

static void bm_add(double dt)
{
    if (bm_batches)
        bm_batches[bm_n++] = dt;
}

static int bm_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double bm_median(void)
{
    if (!bm_batches || !bm_n)
        return 0;
    qsort(bm_batches, (size_t)bm_n, sizeof *bm_batches, bm_cmp);
    return bm_n % 2 ? bm_batches[bm_n / 2] : (bm_batches[bm_n / 2 - 1] + bm_batches[bm_n / 2]) / 2;
}
#endif
