/* blocking_wake_test.c: many quick blocking calls finishing on helper threads
 * while the VPs go idle and wake again -- no completion may be lost.
 *
 * Each completion readies its process from a helper thread and wakes an idle
 * VP.  A helper that looked at the sleeping-VP count just before the VP left
 * its idle wait used to leave the "wake on its way" mark set with nobody to
 * clear it; the next idle VP then slept through every later completion (about
 * one run in 40 of this body hung).  Each round runs in a child with an alarm,
 * so a lost wakeup is a failure, not a hang. */
#include <sched.h>
#include <signal.h>
#include "harness.h"

enum { WORKERS = 4, ROUNDS_1VP = 12, ROUNDS_2VP = 6 };
static mpd_sem done;
static long calls;

static intptr_t quick(void *a)
{
    if (((intptr_t)a & 7) == 0)
        sched_yield(); /* widen the window between a completion and its wake */
    return (intptr_t)a;
}

static void worker(void *a)
{
    (void)a;
    for (long i = 0; i < calls; i++)
        if (mpd_blocking_call(quick, (void *)(intptr_t)i, NULL) != i)
            abort();
    mpd_sem_V(&done);
}

static void body(void *a)
{
    (void)a;
    alarm(30);
    mpd_sem_init(&done, 0);
    for (int k = 0; k < WORKERS; k++)
        mpd_proc_create(worker, NULL, NULL);
    for (int k = 0; k < WORKERS; k++)
        mpd_sem_P(&done);
}

static int nvp_of(int r)
{
    return r < ROUNDS_1VP ? 1 : 2;
}

int main(void)
{
    calls = t_scaled(3000);
    t_run_rounds(body, ROUNDS_1VP + ROUNDS_2VP, nvp_of, "(hung: a completion was never delivered)");
    return t_done("blocking_wake");
}
