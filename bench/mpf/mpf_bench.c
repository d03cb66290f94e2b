/* mpf_bench.c: the MPF paper's benchmarks (base, fcfs, broadcast, random) plus ping-pong latency, over MPF.
 *
 *   mpf_bench MODE DEPLOY N SIZE COUNT
 *     MODE    base | fcfs | broadcast | random | latency | bare (no MPF, the floor: procs -- ping-pong of one
 *             cache line between two processes; lwp -- ping-pong of two MPD processes through wait queues)
 *     DEPLOY  threads (one program, in-process segment) | procs (fork, named shm segment) |
 *             lwp (MPD lightweight processes, in-process; MPD_PARALLEL=n virtual processors, default 1)
 *     N       receivers (fcfs, broadcast) or processes (random); ignored by base/latency
 *     SIZE    message bytes;  COUNT  messages sent (per process for random, round trips for latency)
 * Prints one line: "mpf-DEPLOY MODE N SIZE seconds MB/s msgs/s [one-way-ns-mean one-way-ns-best-batch
 * one-way-ns-median-batch]". */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mpd/mpf.h"
#include "mpd/rt.h"

static mpf_t *m;
static int procs, lwp, N, COUNT;
static size_t SIZE;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int must(long rc, const char *what)
{
    if (rc < 0) {
        fprintf(stderr, "mpf_bench: %s: %s\n", what, mpf_strerror((int)rc));
        exit(1);
    }
    return (int)rc;
}

/* Workers are threads or forked processes; the same code either way. */
typedef struct worker {
    pthread_t t;
    pid_t p;
    mpd_proc *l;
} worker;
static worker W[256];
static int nw;

static void start(void *(*fn)(void *), long arg)
{
    worker *w = &W[nw++];
    if (lwp) {
        w->l = mpd_proc_create((void (*)(void *))(void (*)(void))fn, (void *)arg, NULL);
        return;
    }
    if (!procs) {
        pthread_create(&w->t, NULL, fn, (void *)arg);
        return;
    }
    w->p = fork();
    if (w->p == 0) {
        fn((void *)arg);
        _exit(0);
    }
}

static void join_all(void)
{
    for (int i = 0; i < nw; i++) {
        if (lwp) {
            mpd_proc_join(W[i].l, NULL);
        } else if (procs) {
            int st;
            waitpid(W[i].p, &st, 0);
            if (!WIFEXITED(st) || WEXITSTATUS(st))
                fprintf(stderr, "mpf_bench: worker failed\n"), exit(1);
        } else {
            pthread_join(W[i].t, NULL);
        }
    }
    nw = 0;
}

/* Control conversation: workers report "ready" and "done" to pid 0. */
static void ctl_send(int pid)
{
    int c = must(mpf_open_send(m, pid, "ctl"), "open ctl");
    must(mpf_message_send(m, pid, c, "", 0), "send ctl");
    must(mpf_close_send(m, pid, c), "close ctl");
}

static void ctl_wait(int ctl, int n)
{
    char b[1];
    for (int i = 0; i < n; i++)
        must(mpf_message_receive(m, 0, ctl, b, sizeof b), "ctl receive");
}

/* ---- fcfs / broadcast: pid 0 sends COUNT messages, receivers 1..N read until an empty message ---- */

static int proto;
static double best_batch;
/* Every batch's time too: the median batch is the typical latency on this
 * machine, unpinned runs included, beside the best (both sides on a CPU). */
static double *batches;
static long nbatches;
static void batch_reset(void)
{
    best_batch = 1e9;
    nbatches = 0;
    if (!batches)
        batches = malloc(sizeof *batches * (size_t)(COUNT / 20 + 2));
}
static void batch_add(double dt)
{
    if (dt < best_batch)
        best_batch = dt;
    if (batches)
        batches[nbatches++] = dt;
}
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median_batch(void)
{
    if (!batches || !nbatches)
        return 0;
    qsort(batches, (size_t)nbatches, sizeof *batches, cmp_double);
    return nbatches % 2 ? batches[nbatches / 2]
                        : (batches[nbatches / 2 - 1] + batches[nbatches / 2]) / 2;
}

static void *receiver(void *arg)
{
    int pid = (int)(long)arg;
    char *buf = malloc(SIZE + 1);
    int id = must(mpf_open_receive(m, pid, "data", proto), "open data");
    ctl_send(pid);
    for (;;) {
        ssize_t n = must(mpf_message_receive(m, pid, id, buf, SIZE + 1), "receive");
        if (n == 0)
            break;
    }
    must(mpf_close_receive(m, pid, id), "close");
    ctl_send(pid);
    free(buf);
    return NULL;
}

static double one_to_many(int ctl, double *bytes)
{
    char *buf = calloc(1, SIZE);
    int s = must(mpf_open_send(m, 0, "data"), "open send");
    for (int r = 1; r <= N; r++)
        start(receiver, r);
    ctl_wait(ctl, N);
    double t0 = now();
    for (int i = 0; i < COUNT; i++)
        must(mpf_message_send(m, 0, s, buf, SIZE), "send");
    for (int i = 0; i < (proto == MPF_FCFS ? N : 1); i++)
        must(mpf_message_send(m, 0, s, buf, 0), "send end");
    ctl_wait(ctl, N);
    double t = now() - t0;
    join_all();
    must(mpf_close_send(m, 0, s), "close send");
    *bytes = (double)COUNT * (double)SIZE * (proto == MPF_BROADCAST ? N : 1);
    free(buf);
    return t;
}

/* ---- base: one process, loop-back through one conversation ---- */

static double base(double *bytes)
{
    char *buf = calloc(1, SIZE);
    int s = must(mpf_open_send(m, 0, "loop"), "open");
    int r = must(mpf_open_receive(m, 0, "loop", MPF_FCFS), "open");
    double t0 = now();
    for (int i = 0; i < COUNT; i++) {
        must(mpf_message_send(m, 0, s, buf, SIZE), "send");
        must(mpf_message_receive(m, 0, r, buf, SIZE), "receive");
    }
    double t = now() - t0;
    must(mpf_close_send(m, 0, s), "close");
    must(mpf_close_receive(m, 0, r), "close");
    *bytes = (double)COUNT * (double)SIZE;
    free(buf);
    return t;
}

/* ---- latency: ping-pong between pid 0 and a worker ---- */

/* MPF_BENCH_PIN=1: ping on CPU 0, pong on CPU 1 (to separate placement from protocol cost). */
static void pin(int cpu)
{
    const char *e = getenv("MPF_BENCH_PIN");
    if (!e || *e != '1')
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(e[1] == 's' ? 0 : cpu, &set); /* MPF_BENCH_PIN=1s: both on CPU 0 */
    sched_setaffinity(0, sizeof set, &set);
}

static void *ponger(void *arg)
{
    (void)arg;
    pin(1);
    char *buf = malloc(SIZE + 1);
    int in = must(mpf_open_receive(m, 1, "ping", MPF_FCFS), "open");
    int out = must(mpf_open_send(m, 1, "pong"), "open");
    ctl_send(1);
    for (;;) {
        ssize_t n = must(mpf_message_receive(m, 1, in, buf, SIZE + 1), "receive");
        if (n == 0)
            break;
        must(mpf_message_send(m, 1, out, buf, (size_t)n), "send");
    }
    must(mpf_close_receive(m, 1, in), "close");
    must(mpf_close_send(m, 1, out), "close");
    return NULL;
}

static double latency(int ctl, double *bytes)
{
    char *buf = calloc(1, SIZE);
    int out = must(mpf_open_send(m, 0, "ping"), "open");
    int in = must(mpf_open_receive(m, 0, "pong", MPF_FCFS), "open");
    start(ponger, 0);
    pin(0);
    ctl_wait(ctl, 1);
    for (int i = 0; i < COUNT / 10; i++) { /* warm up */
        must(mpf_message_send(m, 0, out, buf, SIZE), "send");
        must(mpf_message_receive(m, 0, in, buf, SIZE), "receive");
    }
    /* Batches of 20 round trips; the fastest batch is the latency when both sides
     * had a core (the machine is shared, so the mean includes being descheduled). */
    double t0 = now(), tb = t0;
    batch_reset();
    for (int i = 1; i <= COUNT; i++) {
        must(mpf_message_send(m, 0, out, buf, SIZE), "send");
        must(mpf_message_receive(m, 0, in, buf, SIZE), "receive");
        if (i % 20 == 0) {
            double tn = now();
            batch_add(tn - tb);
            tb = tn;
        }
    }
    double t = now() - t0;
    must(mpf_message_send(m, 0, out, buf, 0), "send end");
    join_all();
    must(mpf_close_send(m, 0, out), "close");
    must(mpf_close_receive(m, 0, in), "close");
    *bytes = 2.0 * COUNT * (double)SIZE;
    free(buf);
    return t;
}

/* ---- bare: the floor -- two processes ping-pong a counter through two cache lines
 * of shared memory (no MPF); one way is one line transfer.  Pinned like latency. ---- */

static double bare(double *bytes)
{
    typedef struct {
        _Alignas(64) _Atomic long ping;
        _Alignas(64) _Atomic long pong;
    } lines;
    lines *x = mmap(NULL, sizeof *x, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (x == MAP_FAILED)
        perror("mmap"), exit(1);
    pid_t child = fork();
    if (child == 0) {
        pin(1);
        for (long i = 1; i <= COUNT + COUNT / 10; i++) {
            while (atomic_load_explicit(&x->ping, memory_order_acquire) != i)
                __builtin_ia32_pause();
            atomic_store_explicit(&x->pong, i, memory_order_release);
        }
        _exit(0);
    }
    pin(0);
    long i = 1;
    for (; i <= COUNT / 10; i++) { /* warm up */
        atomic_store_explicit(&x->ping, i, memory_order_release);
        while (atomic_load_explicit(&x->pong, memory_order_acquire) != i)
            __builtin_ia32_pause();
    }
    double t0 = now(), tb = t0;
    batch_reset();
    for (long k = 1; k <= COUNT; k++, i++) {
        atomic_store_explicit(&x->ping, i, memory_order_release);
        while (atomic_load_explicit(&x->pong, memory_order_acquire) != i)
            __builtin_ia32_pause();
        if (k % 20 == 0) {
            double tn = now();
            batch_add(tn - tb);
            tb = tn;
        }
    }
    double t = now() - t0;
    waitpid(child, NULL, 0);
    munmap(x, sizeof *x);
    *bytes = 2.0 * COUNT * (double)SIZE;
    return t;
}

/* bare, lwp deployment: two MPD processes ping-pong through the runtime's wait
 * queues (no MPF): what parking and waking a lightweight process costs. */
static mpd_waitq bare_q[2];
static volatile long bare_flag[2];
static void bare_lwp_pong(void *arg)
{
    (void)arg;
    for (long i = 1; i <= COUNT + COUNT / 10; i++) {
        while (bare_flag[0] != i)
            mpd_waitq_wait(&bare_q[0], NULL);
        bare_flag[1] = i;
        mpd_waitq_wake_all(&bare_q[1]);
    }
}

static double bare_lwp(double *bytes)
{
    mpd_waitq_init(&bare_q[0]);
    mpd_waitq_init(&bare_q[1]);
    mpd_proc *p = mpd_proc_create(bare_lwp_pong, NULL, NULL);
    double t0 = 0, tb = 0;
    batch_reset();
    for (long i = 1; i <= COUNT + COUNT / 10; i++) {
        if (i == COUNT / 10 + 1)
            t0 = tb = now(); /* after the warm-up */
        bare_flag[0] = i;
        mpd_waitq_wake_all(&bare_q[0]);
        while (bare_flag[1] != i)
            mpd_waitq_wait(&bare_q[1], NULL);
        if (i > COUNT / 10 && (i - COUNT / 10) % 20 == 0) {
            double tn = now();
            batch_add(tn - tb);
            tb = tn;
        }
    }
    double t = now() - t0;
    mpd_proc_join(p, NULL);
    *bytes = 2.0 * COUNT * (double)SIZE;
    return t;
}

/* ---- random: N processes, each with its own FCFS conversation, send to random peers ---- */

/* Let the others run while memory is full (MPD processes never block the VP). */
static void relax(void)
{
    if (lwp)
        mpd_yield();
    else
        sched_yield();
}

static void *random_peer(void *arg)
{
    int pid = (int)(long)arg;
    char *buf = calloc(1, SIZE + 1), name[32];
    int out[256];
    snprintf(name, sizeof name, "peer%d", pid);
    int in = must(mpf_open_receive(m, pid, name, MPF_FCFS), "open");
    for (int j = 1; j <= N; j++) {
        snprintf(name, sizeof name, "peer%d", j);
        out[j] = must(mpf_open_send(m, pid, name), "open");
    }
    ctl_send(pid);
    /* Wait for "go" so that every peer's conversation exists before traffic starts. */
    int go = must(mpf_open_receive(m, pid, "go", MPF_BROADCAST), "open go");
    ctl_send(pid);
    must(mpf_message_receive(m, pid, go, buf, SIZE + 1), "go");
    unsigned seed = (unsigned)pid * 2654435761u;
    int ends = 0;
    for (int i = 0; i < COUNT; i++) {
        seed = seed * 1103515245u + 12345u;
        int dest = 1 + (int)((seed >> 16) % (unsigned)N);
        int rc;
        while ((rc = mpf_message_send(m, pid, out[dest], buf, SIZE)) ==
               -MPF_ENOSPACE) { /* drain while full */
            if (mpf_message_try_receive(m, pid, in, buf, SIZE + 1) == 0)
                ends++;
            relax();
        }
        must(rc, "send");
        ssize_t n;
        while ((n = mpf_message_try_receive(m, pid, in, buf, SIZE + 1)) >= 0)
            if (n == 0)
                ends++;
    }
    for (int j = 1; j <= N; j++) {
        int rc;
        while ((rc = mpf_message_send(m, pid, out[j], buf, 0)) == -MPF_ENOSPACE) {
            if (mpf_message_try_receive(m, pid, in, buf, SIZE + 1) == 0)
                ends++;
            relax();
        }
        must(rc, "send end");
    }
    while (ends < N)
        if (must(mpf_message_receive(m, pid, in, buf, SIZE + 1), "receive") == 0)
            ends++;
    ctl_send(pid);
    /* Stay connected until everyone is done, so no conversation vanishes early. */
    must(mpf_message_receive(m, pid, go, buf, SIZE + 1), "go");
    for (int j = 1; j <= N; j++)
        must(mpf_close_send(m, pid, out[j]), "close");
    must(mpf_close_receive(m, pid, in), "close");
    must(mpf_close_receive(m, pid, go), "close");
    free(buf);
    return NULL;
}

static double random_bench(int ctl, double *bytes)
{
    int go = must(mpf_open_send(m, 0, "go"), "open go");
    for (int p = 1; p <= N; p++)
        start(random_peer, p);
    ctl_wait(ctl, 2 * N);
    double t0 = now();
    must(mpf_message_send(m, 0, go, "", 0), "go");
    ctl_wait(ctl, N);
    double t = now() - t0;
    must(mpf_message_send(m, 0, go, "", 0), "go");
    join_all();
    must(mpf_close_send(m, 0, go), "close");
    *bytes = (double)N * COUNT * (double)SIZE;
    return t;
}

static const char *mode;
static int status;
static void bench_main(void *unused);

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: mpf_bench base|fcfs|broadcast|random|latency|bare "
                        "threads|procs|lwp N SIZE COUNT\n");
        return 2;
    }
    mode = argv[1];
    procs = strcmp(argv[2], "procs") == 0;
    lwp = strcmp(argv[2], "lwp") == 0;
    if (!procs && !lwp && strcmp(argv[2], "threads") != 0)
        return fprintf(stderr, "mpf_bench: bad deployment\n"), 2;
    N = atoi(argv[3]);
    SIZE = (size_t)atol(argv[4]);
    COUNT = atoi(argv[5]);
    if (N < 1 || N > 200 || SIZE < 1 || SIZE > (1 << 20) || COUNT < 1)
        return fprintf(stderr, "mpf_bench: bad numbers\n"), 2;
    char seg[64];
    snprintf(seg, sizeof seg, "/mpf-bench-%d", (int)getpid());
    mpf_options o = {.shm_name = procs ? seg : NULL,
                     .replace = 1,
                     .max_lnvcs = 2 * N + 8,
                     .max_processes = N + 2,
                     .max_message = SIZE < 65536 ? 65536 : SIZE,
                     .pool_bytes = 32u << 20,
                     .max_messages = 32768,
                     .send_waits = strcmp(mode, "random") != 0,
                     .wait = lwp ? MPF_WAIT_LWP : MPF_WAIT_THREADS};
    must(mpf_init_ex(&m, &o), "init");
    if (procs)
        mpf_unlink(seg); /* the mapping stays; nothing is left in /dev/shm */
    if (lwp)
        return mpd_rt_main(argc, argv, bench_main, NULL);
    bench_main(NULL);
    return status;
}

static void bench_main(void *unused)
{
    (void)unused;
    int ctl = must(mpf_open_receive(m, 0, "ctl", MPF_FCFS), "open ctl");
    double bytes = 0, t;
    if (!strcmp(mode, "base"))
        t = base(&bytes);
    else if (!strcmp(mode, "fcfs"))
        proto = MPF_FCFS, t = one_to_many(ctl, &bytes);
    else if (!strcmp(mode, "broadcast"))
        proto = MPF_BROADCAST, t = one_to_many(ctl, &bytes);
    else if (!strcmp(mode, "random"))
        t = random_bench(ctl, &bytes);
    else if (!strcmp(mode, "latency"))
        t = latency(ctl, &bytes);
    else if (!strcmp(mode, "bare"))
        t = lwp ? bare_lwp(&bytes) : bare(&bytes);
    else {
        fprintf(stderr, "mpf_bench: unknown mode %s\n", mode);
        exit(2);
    }
    double msgs = bytes / (double)SIZE;
    const char *pinned = getenv("MPF_BENCH_PIN");
    int is_bare = !strcmp(mode, "bare");
    printf("%s%s %s %d %zu %.6f %.2f %.0f", is_bare ? (lwp ? "bare-lwp" : "bare-line") : "mpf-",
           is_bare                    ? ""
           : pinned && *pinned == '1' ? "pinned"
           : procs                    ? "procs"
           : lwp                      ? "lwp"
                                      : "threads",
           is_bare ? "latency" : mode, N, SIZE, t, bytes / t / 1e6, msgs / t);
    if (!strcmp(mode, "latency") || is_bare)
        printf(" %.0f %.0f %.0f", t / (2.0 * COUNT) * 1e9, best_batch / 40.0 * 1e9,
               median_batch() / 40.0 * 1e9);
    printf("\n");
    mpf_close_receive(m, 0, ctl);
    mpf_finish(m);
    fflush(stdout);
}
