/* blocking_chain_test.c: blocking calls that can only finish in the reverse
 * order of their submission -- each needs a helper thread of its own.
 *
 * Call k waits (on its helper thread) until call k+1 has run.  When calls were
 * queued while one helper sat idle, the runtime counted that helper as free for
 * every one of them: the first call took it and the rest waited behind it
 * forever (seen as a hung MPF test, a thread join whose thread waited on
 * processes sleeping in blocking calls).  Each wait gives up after a few
 * seconds, so the old behaviour shows as a failed check, not a hang. */
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include "harness.h"

enum { CHAIN = 8, ROUNDS = 10, GIVE_UP_MS = 5000 };
static atomic_int ran[CHAIN];
static atomic_int timed_out;
static mpd_sem done;

static void pause_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* On a helper: mark call k as run, then wait for call k+1 (the last waits for nobody). */
static intptr_t link_call(void *a)
{
    int k = (int)(intptr_t)a;
    atomic_store(&ran[k], 1);
    for (int ms = 0; k + 1 < CHAIN && !atomic_load(&ran[k + 1]); ms++) {
        if (ms == GIVE_UP_MS) {
            atomic_store(&timed_out, 1);
            return -1;
        }
        pause_ms(1);
    }
    return k;
}

static void caller(void *a)
{
    int k = (int)(intptr_t)a;
    CHECK_EQ(mpd_blocking_call(link_call, a, NULL), k);
    mpd_sem_V(&done);
}

static intptr_t nothing(void *a)
{
    return (intptr_t)a;
}

static void body(void *a)
{
    (void)a;
    alarm(60);
    mpd_sem_init(&done, 0);
    /* One helper exists and is idle (asleep on its condition) when the chain starts. */
    CHECK_EQ(mpd_blocking_call(nothing, (void *)7, NULL), 7);
    pause_ms(20);
    for (int k = 0; k < CHAIN; k++) {
        atomic_store(&ran[k], 0);
        mpd_proc_create(caller, (void *)(intptr_t)k,
                        NULL); /* submitted in this order, back to back */
    }
    for (int k = 0; k < CHAIN; k++)
        mpd_sem_P(&done);
    CHECK(!atomic_load(&timed_out));
    mpd_rt_set_exit_status(t_failures ? 1 : 0);
}

static int nvp_of(int r)
{
    return r % 2 ? 2 : 1;
}

int main(void)
{
    t_run_rounds(body, ROUNDS, nvp_of, "(hung)");
    return t_done("blocking_chain");
}
