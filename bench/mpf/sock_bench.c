/* sock_bench.c: the baseline -- the MPF benchmark patterns over Unix datagram sockets between forked processes.
 *
 *   sock_bench MODE N SIZE COUNT      (MODE: base | fcfs | broadcast | random | latency)
 * FCFS is natural here: N readers share one socket and the kernel gives each
 * datagram to one of them.  BROADCAST has to write every message to N sockets.
 * Prints the same line as mpf_bench: "socket MODE N SIZE seconds MB/s msgs/s [one-way-ns best-ns median-batch-ns]". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "batch_median.h"

static int N, COUNT;
static size_t SIZE;
static char *buf;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

/* A datagram socket pair with buffers large enough for the biggest message. */
static void pair(int sv[2])
{
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
        die("socketpair");
    int big = 4 << 20;
    for (int i = 0; i < 2; i++) {
        setsockopt(sv[i], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
        setsockopt(sv[i], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    }
}

static void sendall(int fd, const void *b, size_t n)
{
    while (send(fd, b, n, 0) < 0)
        if (errno != EINTR)
            die("send");
}

static ssize_t recvone(int fd)
{
    ssize_t n;
    while ((n = recv(fd, buf, SIZE + 1, 0)) < 0)
        if (errno != EINTR)
            die("recv");
    return n;
}

static void wait_kids(int n)
{
    for (int i = 0; i < n; i++) {
        int st;
        if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
            die("child");
    }
}

/* ready/done notifications: each child writes one byte to ctl. */
static int ctl[2];
static void notify(void)
{
    sendall(ctl[1], "", 1);
}
static void await(int n)
{
    char c;
    for (int i = 0; i < n; i++)
        if (recv(ctl[0], &c, 1, 0) < 0 && errno != EINTR)
            die("ctl");
}

static double base(double *bytes)
{
    int sv[2];
    pair(sv);
    double t0 = now();
    for (int i = 0; i < COUNT; i++) {
        sendall(sv[0], buf, SIZE);
        recvone(sv[1]);
    }
    *bytes = (double)COUNT * SIZE;
    return now() - t0;
}

static double best;
static double latency(double *bytes)
{
    int a[2], b[2];
    pair(a);
    pair(b);
    if (fork() == 0) {
        for (;;) {
            ssize_t n = recvone(a[1]);
            if (n == 0)
                _exit(0);
            sendall(b[1], buf, (size_t)n);
        }
    }
    for (int i = 0; i < COUNT / 10; i++)
        sendall(a[0], buf, SIZE), recvone(b[0]);
    double t0 = now(), tb = t0;
    best = 1e9;
    bm_reset(COUNT);
    for (int i = 1; i <= COUNT; i++) {
        sendall(a[0], buf, SIZE);
        recvone(b[0]);
        if (i % 20 == 0) {
            double tn = now();
            if (tn - tb < best)
                best = tn - tb;
            bm_add(tn - tb);
            tb = tn;
        }
    }
    double t = now() - t0;
    sendall(a[0], buf, 0);
    wait_kids(1);
    *bytes = 2.0 * COUNT * SIZE;
    return t;
}

static double fcfs(double *bytes)
{
    int sv[2];
    pair(sv);
    for (int r = 0; r < N; r++)
        if (fork() == 0) {
            notify();
            while (recvone(sv[1]) > 0) {
            }
            notify();
            _exit(0);
        }
    await(N);
    double t0 = now();
    for (int i = 0; i < COUNT; i++)
        sendall(sv[0], buf, SIZE);
    for (int r = 0; r < N; r++)
        sendall(sv[0], buf, 0);
    await(N);
    double t = now() - t0;
    wait_kids(N);
    *bytes = (double)COUNT * SIZE;
    return t;
}

static double broadcast(double *bytes)
{
    int(*sv)[2] = calloc((size_t)N, sizeof *sv);
    for (int r = 0; r < N; r++)
        pair(sv[r]);
    for (int r = 0; r < N; r++)
        if (fork() == 0) {
            notify();
            while (recvone(sv[r][1]) > 0) {
            }
            notify();
            _exit(0);
        }
    await(N);
    double t0 = now();
    for (int i = 0; i < COUNT; i++)
        for (int r = 0; r < N; r++)
            sendall(sv[r][0], buf, SIZE);
    for (int r = 0; r < N; r++)
        sendall(sv[r][0], buf, 0);
    await(N);
    double t = now() - t0;
    wait_kids(N);
    *bytes = (double)COUNT * SIZE * N;
    return t;
}

/* Each peer owns one socket; it sends to random peers and drains its own. */
static double random_bench(double *bytes)
{
    int(*sv)[2] = calloc((size_t)N, sizeof *sv);
    for (int r = 0; r < N; r++)
        pair(sv[r]);
    int go[2];
    pair(go);
    for (int p = 0; p < N; p++)
        if (fork() == 0) {
            for (int r = 0; r < N; r++)
                fcntl(sv[r][0], F_SETFL, O_NONBLOCK);
            int in = sv[p][1], ends = 0;
            char c;
            notify();
            if (recv(go[1], &c, 1, 0) < 0)
                die("go");
            unsigned seed = (unsigned)(p + 1) * 2654435761u;
            for (int i = 0; i < COUNT; i++) {
                seed = seed * 1103515245u + 12345u;
                int d = (int)((seed >> 16) % (unsigned)N);
                while (send(sv[d][0], buf, SIZE, 0) < 0) {
                    if (errno != EAGAIN && errno != EINTR)
                        die("send");
                    ssize_t n = recv(in, buf, SIZE + 1, MSG_DONTWAIT);
                    if (n == 0)
                        ends++;
                }
                ssize_t n;
                while ((n = recv(in, buf, SIZE + 1, MSG_DONTWAIT)) >= 0)
                    if (n == 0)
                        ends++;
            }
            for (int d = 0; d < N; d++)
                while (send(sv[d][0], buf, 0, 0) < 0) {
                    if (errno != EAGAIN && errno != EINTR)
                        die("send");
                    if (recv(in, buf, SIZE + 1, MSG_DONTWAIT) == 0)
                        ends++;
                }
            while (ends < N)
                if (recvone(in) == 0)
                    ends++;
            notify();
            _exit(0);
        }
    await(N);
    double t0 = now();
    for (int p = 0; p < N; p++)
        sendall(go[0], "g", 1);
    await(N);
    double t = now() - t0;
    wait_kids(N);
    *bytes = (double)N * COUNT * SIZE;
    return t;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: sock_bench base|fcfs|broadcast|random|latency N SIZE COUNT\n");
        return 2;
    }
    const char *mode = argv[1];
    N = atoi(argv[2]);
    SIZE = (size_t)atol(argv[3]);
    COUNT = atoi(argv[4]);
    if (N < 1 || N > 200 || SIZE < 1 || SIZE > (1 << 20) || COUNT < 1)
        return fprintf(stderr, "sock_bench: bad numbers\n"), 2;
    buf = calloc(1, SIZE + 1);
    pair(ctl);
    double bytes = 0, t;
    if (!strcmp(mode, "base"))
        t = base(&bytes);
    else if (!strcmp(mode, "latency"))
        t = latency(&bytes);
    else if (!strcmp(mode, "fcfs"))
        t = fcfs(&bytes);
    else if (!strcmp(mode, "broadcast"))
        t = broadcast(&bytes);
    else if (!strcmp(mode, "random"))
        t = random_bench(&bytes);
    else
        return fprintf(stderr, "sock_bench: unknown mode %s\n", mode), 2;
    printf("socket %s %d %zu %.6f %.2f %.0f", mode, N, SIZE, t, bytes / t / 1e6, bytes / SIZE / t);
    if (!strcmp(mode, "latency"))
        printf(" %.0f %.0f %.0f", t / (2.0 * COUNT) * 1e9, best / 40.0 * 1e9,
               bm_median() / 40.0 * 1e9);
    printf("\n");
    return 0;
}
