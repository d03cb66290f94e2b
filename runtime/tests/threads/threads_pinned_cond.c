/* threads_pinned_cond.c: threads pinned to 3 and 4 VPs (more VPs than this machine's CPUs,
 * usually) meet at a barrier made of a mutex and a condition variable, so each round parks
 * all but one thread and wakes them on their own VPs.  Two runtime bugs showed here: an idle
 * VP kept nudging a VP that had work but was waiting for the idle lock (a livelock: rounds
 * took seconds), and, once that was fixed, a VP checking for quiescence could read every VP
 * counted asleep while one of them was leaving to take its own work, and declared a
 * deadlock with all threads "blocked" (about one run in two of 100000 rounds).  Each
 * configuration runs in a child under a watchdog; it must finish every round, print no
 * blocked-process report and exit 0.  The watchdog is about progress, not speed (a loaded
 * machine makes rounds slow): it fires when no round ends for 60 s (a hang), or when the
 * whole run takes 20 times what a round costs on an idle machine (the livelock, whose
 * rounds took seconds) -- ROUNDS * 400 ms. */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mpd/threads.h"
#include "check.h"

/* Enough rounds that the quiescence race showed in about one run in three;
 * fewer where each round is slow (sanitizer builds, aarch64 under qemu). */
#if defined(__SANITIZE_THREAD__) || defined(__aarch64__)
#define ROUNDS 300
#else
#define ROUNDS 1500
#endif
static int nvp, rounds;
static atomic_int bar_count, bar_gen;
static mpd_mutex_t mu = MPD_MUTEX_INIT;
static mpd_cond_t cv = MPD_COND_INIT;

static void barrier(void)
{
    int g = atomic_load(&bar_gen);
    if (atomic_fetch_add(&bar_count, 1) == nvp - 1) {
        atomic_store(&bar_count, 0);
        mpd_mutex_lock(&mu);
        atomic_fetch_add(&bar_gen, 1);
        mpd_cond_broadcast(&cv);
        mpd_mutex_unlock(&mu);
        return;
    }
    mpd_mutex_lock(&mu);
    while (atomic_load(&bar_gen) == g)
        mpd_cond_wait(&cv, &mu);
    mpd_mutex_unlock(&mu);
}

/* Re-armed by every finished round: SIGALRM kills the child only after 60 s without one. */
static void *worker(void *arg)
{
    int first = arg != NULL;
    for (int i = 0; i < rounds; i++) {
        barrier();
        if (first)
            alarm(60);
    }
    return NULL;
}

static void main_fn(void *arg)
{
    (void)arg;
    mpd_thread_t *t[8];
    for (int i = 0; i < nvp; i++) {
        mpd_thread_attr_t a;
        mpd_thread_attr_init(&a);
        a.vp = i;
        mpd_thread_fork(&t[i], &a, worker, i == 0 ? (void *)1 : NULL);
    }
    for (int i = 0; i < nvp; i++)
        mpd_thread_join(t[i], NULL);
    printf("rounds %d\n", atomic_load(&bar_gen));
}

/* One configuration in a child; its output (stdout and stderr) comes back in out. */
static int run(int n, int r, char *out, size_t cap)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        close(fd[0]);
        alarm(60);
        nvp = n;
        rounds = r;
        mpd_sched_attr_t s;
        mpd_sched_attr_init(&s);
        s.migrate = 0;
        mpd_sched_install(-1, &s);
        int rc = mpd_threads_main(n, main_fn, NULL);
        fflush(NULL);
        _exit(rc);
    }
    close(fd[1]);
    /* the livelock bound: ends the child if the run as a whole takes too long */
    pid_t guard = fork();
    if (guard == 0) {
        unsigned left = (unsigned)(r / 100 * 40 + 60); /* ROUNDS * 400 ms, at least 60 s */
        while (left > 0 && kill(pid, 0) == 0) {
            sleep(1);
            left--;
        }
        if (left == 0)
            kill(pid, SIGKILL);
        _exit(0);
    }
    size_t len = 0;
    ssize_t k;
    while (len + 1 < cap && (k = read(fd[0], out + len, cap - 1 - len)) > 0)
        len += (size_t)k;
    out[len] = 0;
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    kill(guard, SIGKILL);
    waitpid(guard, NULL, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 256 + WTERMSIG(st);
}

int main(void)
{
    const char *div = getenv("MPD_TEST_DIV"); /* slow builds (sanitizers, qemu) run fewer rounds */
    int r = ROUNDS / (div && atoi(div) > 1 ? atoi(div) : 1);
    for (int n = 3; n <= 4; n++) {
        char out[4096], want[64];
        int rc = run(n, r, out, sizeof out);
        snprintf(want, sizeof want, "rounds %d\n", r);
        printf("%d VPs: status %d, %s", n, rc, out[0] ? out : "(no output)\n");
        CHECK_EQ_L(rc, 0);
        CHECK(strstr(out, want) != NULL);
        CHECK(strstr(out, "blocked") == NULL);
    }
    CHECK_DONE();
}
