/* threads_deadlock.c: a run that ends with threads blocked for ever is not a
 * success.  mpd_threads_main returns EDEADLK then (the runtime reports each
 * blocked thread on stderr).  Before, it returned 0: a test whose checks come
 * after a join that never returns (a thread lost by the scheduler, a missed
 * wakeup) ended quietly and passed -- threads_swap_sched did with its queue
 * hand-over removed.
 *
 * Each case runs in a forked child (the runtime starts once per process):
 *   1. main waits on a condition nobody signals, with a worker blocked on a
 *      mutex main holds: EDEADLK, and main's code after the wait never ran;
 *   2. a worker blocked for ever while main returns: EDEADLK as well;
 *   3. a run where every thread finishes: 0. */
#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mpd/threads.h"
#include "check.h"

static mpd_mutex_t mx = MPD_MUTEX_INIT;
static mpd_cond_t never = MPD_COND_INIT;
static int after_wait;

static void *take_mx(void *arg)
{
    (void)arg;
    mpd_mutex_lock(&mx);
    mpd_mutex_unlock(&mx);
    return NULL;
}

static void *wait_for_ever(void *arg)
{
    (void)arg;
    mpd_mutex_lock(&mx);
    mpd_cond_wait(&never, &mx);
    mpd_mutex_unlock(&mx);
    return NULL;
}

static void main_both_blocked(void *arg)
{
    (void)arg;
    mpd_thread_t *t;
    mpd_mutex_lock(&mx);
    CHECK_EQ_L(mpd_thread_fork(&t, NULL, take_mx, NULL), 0);
    mpd_cond_wait(&never, &mx); /* releases mx: the worker gets it, then nobody signals */
    after_wait = 1;
}

static void main_returns(void *arg)
{
    (void)arg;
    mpd_thread_t *t;
    CHECK_EQ_L(mpd_thread_fork(&t, NULL, wait_for_ever, NULL), 0);
    CHECK_EQ_L(mpd_thread_detach(t), 0);
}

static void *quick(void *arg)
{
    return arg;
}

static void main_done(void *arg)
{
    (void)arg;
    mpd_thread_t *t;
    void *r = NULL;
    CHECK_EQ_L(mpd_thread_fork(&t, NULL, quick, &mx), 0);
    CHECK_EQ_L(mpd_thread_join(t, &r), 0);
    CHECK(r == &mx);
}

static int child(void (*fn)(void *), int nvp, int want)
{
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        CHECK_EQ_L(mpd_threads_main(nvp, fn, NULL), want);
        CHECK_EQ_L(after_wait, 0);
        fflush(stdout);
        _exit(check_failures ? 1 : 0);
    }
    int st = 1;
    waitpid(p, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(void)
{
    for (int nvp = 1; nvp <= 2; nvp++) {
        CHECK(child(main_both_blocked, nvp, EDEADLK));
        CHECK(child(main_returns, nvp, EDEADLK));
        CHECK(child(main_done, nvp, 0));
    }
    CHECK_DONE();
}
