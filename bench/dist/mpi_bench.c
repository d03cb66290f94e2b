/* mpi_bench: raw MPI figures for bench/dist/run.sh, next to which the MPD
 * programs are measured in the same run.
 *   mpi_bench pingpong N        round trip of a 16-byte message, N times (2 ranks)
 *   mpi_bench stream SIZE N     N messages of SIZE bytes from rank 0 to 1,
 *                               then one reply: messages per second
 *   mpi_bench spawn K           a singleton spawns a child K times (cost of
 *                               MPI_Comm_spawn), then ping-pongs with the last
 * Prints one line "name value unit". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void pingpong(MPI_Comm c, int me, int peer, int n, const char *label)
{
    char buf[16] = {0};
    for (int warm = 0; warm < 2; warm++) {
        MPI_Barrier(c);
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) {
            if (me == 0) {
                MPI_Send(buf, 16, MPI_BYTE, peer, 1, c);
                MPI_Recv(buf, 16, MPI_BYTE, peer, 1, c, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, 16, MPI_BYTE, peer, 1, c, MPI_STATUS_IGNORE);
                MPI_Send(buf, 16, MPI_BYTE, peer, 1, c);
            }
        }
        double t = MPI_Wtime() - t0;
        if (warm && me == 0)
            printf("%s %.3f us\n", label, t / n * 1e6);
    }
}

int main(int argc, char **argv)
{
    int prov;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) { /* a spawned child */
        int n;
        MPI_Bcast(&n, 1, MPI_INT, 0, parent);
        if (n > 0)
            pingpong(parent, 1, 0, n, "");
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    const char *mode = argc > 1 ? argv[1] : "pingpong";
    if (!strcmp(mode, "pingpong") && size >= 2) {
        int n = argc > 2 ? atoi(argv[2]) : 100000;
        if (me < 2)
            pingpong(MPI_COMM_WORLD, me, 1 - me, n, "mpi_roundtrip");
    } else if (!strcmp(mode, "stream") && size >= 2) {
        int sz = atoi(argv[2]), n = atoi(argv[3]);
        char *buf = calloc(1, (size_t)sz);
        for (int warm = 0; warm < 2; warm++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (me == 0) {
                for (int i = 0; i < n; i++)
                    MPI_Send(buf, sz, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
                MPI_Recv(buf, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (me == 1) {
                for (int i = 0; i < n; i++)
                    MPI_Recv(buf, sz, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
            }
            double t = MPI_Wtime() - t0;
            if (warm && me == 0)
                printf("mpi_stream_%d %.0f msg/s\n", sz, n / t);
        }
        free(buf);
    } else if (!strcmp(mode, "spawn")) {
        int k = argc > 2 ? atoi(argv[2]) : 3, n = 20000;
        double best = 1e9;
        for (int i = 0; i < k; i++) {
            MPI_Comm child;
            double t0 = MPI_Wtime();
            MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &child,
                           MPI_ERRCODES_IGNORE);
            int zero = i == k - 1 ? n : 0;
            MPI_Bcast(&zero, 1, MPI_INT, MPI_ROOT, child);
            double t = MPI_Wtime() - t0;
            if (t < best)
                best = t;
            if (i == k - 1)
                pingpong(child, 0, 0, n, "spawned_roundtrip");
            MPI_Comm_disconnect(&child);
        }
        printf("spawn_cost %.1f ms\n", best * 1e3);
    }
    MPI_Finalize();
    return 0;
}
