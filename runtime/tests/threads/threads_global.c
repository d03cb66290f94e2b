/* threads_global.c: GLOBAL queue locality -- VPs share one ready queue, FIFO order is global. */
#include <stdatomic.h>
#include <stdio.h>
#include "mpd/threads.h"
#include "check.h"

#define NT 8
static atomic_int ran_on[2];
static atomic_long work_done;

/* Runs at least 3000 rounds, and on until both VPs have taken work from the
 * queue (a loaded machine may keep one VP's OS thread off the CPU for a
 * while), for at most 5 s. */
static void *worker(void *arg)
{
    (void)arg;
    int64_t give_up = mpd_now_ns() + 5000000000LL;
    for (int i = 0; i < 3000 || ((!atomic_load(&ran_on[0]) || !atomic_load(&ran_on[1])) &&
                                 mpd_now_ns() < give_up);
         i++) {
        int v = mpd_vp_index();
        if (v >= 0 && v < 2)
            atomic_fetch_add(&ran_on[v], 1);
        for (volatile int k = 0; k < 200; k++) {
        }
        atomic_fetch_add(&work_done, 1);
        mpd_thread_yield();
    }
    return NULL;
}

static void main_fn(void *arg)
{
    (void)arg;
    mpd_sched_attr_t s;
    CHECK_EQ_L(mpd_sched_get_attr(1, &s), 0);
    CHECK_EQ_L(s.locality, MPD_SCHED_GLOBAL);
    mpd_thread_t *t[NT];
    for (int i = 0; i < NT; i++)
        CHECK_EQ_L(mpd_thread_fork(&t[i], NULL, worker, NULL), 0);
    for (int i = 0; i < NT; i++)
        CHECK_EQ_L(mpd_thread_join(t[i], NULL), 0);
    unsigned long p0, p1, m0, m1, s0, s1;
    mpd_sched_stats(0, &p0, &m0, &s0);
    mpd_sched_stats(1, &p1, &m1, &s1);
    printf("runs on VP0 %d, VP1 %d; picks %lu/%lu; steals %lu/%lu\n", atomic_load(&ran_on[0]),
           atomic_load(&ran_on[1]), p0, p1, m0, m1);
    CHECK(atomic_load(&work_done) >= (long)NT * 3000);
    CHECK(atomic_load(&ran_on[0]) > 0 &&
          atomic_load(&ran_on[1]) > 0); /* both VPs served the one queue */
    CHECK_EQ_L(m0 + m1, 0);             /* nothing to steal: one queue */
}

int main(void)
{
    mpd_sched_attr_t s;
    mpd_sched_attr_init(&s);
    s.locality = MPD_SCHED_GLOBAL;
    CHECK_EQ_L(mpd_sched_install(-1, &s), 0);
    CHECK_EQ_L(mpd_threads_main(2, main_fn, NULL), 0);
    CHECK_DONE();
}
