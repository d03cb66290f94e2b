/* mpi_bench.c: the anchor -- the MPF benchmark patterns written with MPI (Open MPI's shared-memory transport).
 *
 *   mpirun -np P mpi_bench MODE SIZE COUNT
 *     base       rank 0 sends to itself and receives (P = 1)
 *     latency    ping-pong between ranks 0 and 1 (P = 2)
 *     fcfs       rank 0 sends COUNT messages to ranks 1..P-1 in turn (MPI has no shared
 *                queue; round robin is the usual stand-in for "one of them")
 *     broadcast  rank 0 broadcasts COUNT messages to ranks 1..P-1 (MPI_Bcast)
 *     random     every rank sends COUNT messages to random ranks, draining its own between sends
 * Prints the same line as mpf_bench: "mpi MODE N SIZE seconds MB/s msgs/s [one-way-ns best-ns median-batch-ns]",
 * N being the receivers (fcfs, broadcast) or the ranks (random). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "batch_median.h"

enum { DATA = 1, END = 2, WINDOW = 64 };

static int rank, nranks, COUNT;
static int SIZE;
static char *buf, *rbuf;

static double base(void)
{
    MPI_Request rq;
    double t0 = MPI_Wtime();
    for (int i = 0; i < COUNT; i++) {
        MPI_Isend(buf, SIZE, MPI_BYTE, rank, DATA, MPI_COMM_WORLD, &rq);
        MPI_Recv(rbuf, SIZE, MPI_BYTE, rank, DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    return MPI_Wtime() - t0;
}

static double best;
static double latency(void)
{
    double t = 0;
    if (rank > 1)
        return 0;
    int peer = 1 - rank;
    for (int i = 0; i < COUNT / 10; i++) {
        if (rank == 0) {
            MPI_Send(buf, SIZE, MPI_BYTE, peer, DATA, MPI_COMM_WORLD);
            MPI_Recv(rbuf, SIZE, MPI_BYTE, peer, DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, SIZE, MPI_BYTE, peer, DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, SIZE, MPI_BYTE, peer, DATA, MPI_COMM_WORLD);
        }
    }
    double t0 = MPI_Wtime(), tb = t0;
    best = 1e9;
    bm_reset(COUNT);
    for (int i = 1; i <= COUNT; i++) {
        if (rank == 0) {
            MPI_Send(buf, SIZE, MPI_BYTE, peer, DATA, MPI_COMM_WORLD);
            MPI_Recv(rbuf, SIZE, MPI_BYTE, peer, DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (i % 20 == 0) {
                double tn = MPI_Wtime();
                if (tn - tb < best)
                    best = tn - tb;
                bm_add(tn - tb);
                tb = tn;
            }
        } else {
            MPI_Recv(rbuf, SIZE, MPI_BYTE, peer, DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, SIZE, MPI_BYTE, peer, DATA, MPI_COMM_WORLD);
        }
    }
    t = MPI_Wtime() - t0;
    return t;
}

static double fcfs(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == 0) {
        for (int i = 0; i < COUNT; i++)
            MPI_Send(buf, SIZE, MPI_BYTE, 1 + i % (nranks - 1), DATA, MPI_COMM_WORLD);
        for (int r = 1; r < nranks; r++)
            MPI_Send(buf, 0, MPI_BYTE, r, END, MPI_COMM_WORLD);
    } else {
        MPI_Status st;
        do
            MPI_Recv(rbuf, SIZE, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        while (st.MPI_TAG == DATA);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime() - t0;
}

static double broadcast(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < COUNT; i++)
        MPI_Bcast(rank == 0 ? buf : rbuf, SIZE, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime() - t0;
}

/* Receive whatever has arrived; returns the END markers seen. */
static int drain(void)
{
    int ends = 0, flag;
    MPI_Status st;
    for (;;) {
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
            return ends;
        MPI_Recv(rbuf, SIZE, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        ends += st.MPI_TAG == END;
    }
}

static double random_bench(void)
{
    MPI_Request rq[WINDOW];
    for (int i = 0; i < WINDOW; i++)
        rq[i] = MPI_REQUEST_NULL;
    unsigned seed = (unsigned)(rank + 1) * 2654435761u;
    int ends = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < COUNT; i++) {
        int slot, flag;
        /* A free request slot; progress our receives while waiting for one. */
        for (;;) {
            MPI_Testany(WINDOW, rq, &slot, &flag, MPI_STATUS_IGNORE);
            if (flag && slot == MPI_UNDEFINED) { /* all null: take the first */
                slot = 0;
                break;
            }
            if (flag)
                break;
            ends += drain();
        }
        seed = seed * 1103515245u + 12345u;
        int d = (int)((seed >> 16) % (unsigned)nranks);
        MPI_Isend(buf, SIZE, MPI_BYTE, d, DATA, MPI_COMM_WORLD, &rq[slot]);
        ends += drain();
    }
    for (int d = 0; d < nranks; d++)
        MPI_Send(buf, 0, MPI_BYTE, d, END, MPI_COMM_WORLD);
    while (ends < nranks) {
        MPI_Status st;
        MPI_Recv(rbuf, SIZE, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        ends += st.MPI_TAG == END;
    }
    MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 4) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np P mpi_bench MODE SIZE COUNT\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *mode = argv[1];
    SIZE = atoi(argv[2]);
    COUNT = atoi(argv[3]);
    buf = calloc(1, (size_t)SIZE + 1);
    rbuf = calloc(1, (size_t)SIZE + 1);
    double t, bytes;
    int n = nranks - 1;
    if (!strcmp(mode, "base"))
        t = rank == 0 ? base() : 0, bytes = (double)COUNT * SIZE, n = 1;
    else if (!strcmp(mode, "latency"))
        t = latency(), bytes = 2.0 * COUNT * SIZE, n = 1;
    else if (!strcmp(mode, "fcfs"))
        t = fcfs(), bytes = (double)COUNT * SIZE;
    else if (!strcmp(mode, "broadcast"))
        t = broadcast(), bytes = (double)COUNT * SIZE * n;
    else if (!strcmp(mode, "random"))
        t = random_bench(), bytes = (double)nranks * COUNT * SIZE, n = nranks;
    else {
        if (rank == 0)
            fprintf(stderr, "mpi_bench: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
        return 2;
    }
    if (rank == 0) {
        printf("mpi %s %d %d %.6f %.2f %.0f", mode, n, SIZE, t, bytes / t / 1e6, bytes / SIZE / t);
        if (!strcmp(mode, "latency"))
            printf(" %.0f %.0f %.0f", t / (2.0 * COUNT) * 1e9, best / 40.0 * 1e9,
                   bm_median() / 40.0 * 1e9);
        printf("\n");
    }
    MPI_Finalize();
    return 0;
}
