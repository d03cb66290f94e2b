/* threads_migrate.c: the migration attribute -- with migration allowed an idle VP takes ready
 * threads from a busy one; once VP 0 forbids it (changed at run time), threads homed
 * there stay there.  Schedulers may differ per VP (static configuration). */
#include <stdatomic.h>
#include <stdio.h>
#include "mpd/threads.h"
#include "check.h"

#define NT 8
static atomic_int ran_on[2];

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 50; i++) {
        atomic_fetch_add(&ran_on[mpd_vp_index() ? 1 : 0], 1);
        for (volatile int k = 0; k < 20000; k++) {
        }
        mpd_thread_yield();
    }
    return NULL;
}

static void batch(void)
{
    mpd_thread_t *t[NT];
    for (int i = 0; i < NT; i++) {
        mpd_thread_attr_t a;
        mpd_thread_attr_init(&a);
        a.vp = 0;
        mpd_thread_fork(&t[i], &a, worker, NULL);
    }
    for (int i = 0; i < NT; i++)
        mpd_thread_join(t[i], NULL);
}

static void main_fn(void *arg)
{
    (void)arg;
    mpd_sched_attr_t s0, s1;
    mpd_sched_get_attr(0, &s0);
    mpd_sched_get_attr(1, &s1);
    CHECK_EQ_L(s0.policy, MPD_SCHED_FIFO); /* installed per VP before start */
    CHECK_EQ_L(s1.policy, MPD_SCHED_PRIORITY);
    /* migration allowed: VP 1 is idle and takes threads homed on VP 0 (batches until it
     * has, for at most 5 s: a loaded machine may keep VP 1 off the CPU for a while) */
    int64_t end = mpd_now_ns() + 5000000000LL;
    do
        batch();
    while (atomic_load(&ran_on[1]) == 0 && mpd_now_ns() < end);
    unsigned long picks, mig1, mig0, swaps;
    mpd_sched_stats(1, &picks, &mig1, &swaps);
    printf("migration allowed: ran on VP0 %d, VP1 %d; VP1 migrations %lu\n",
           atomic_load(&ran_on[0]), atomic_load(&ran_on[1]), mig1);
    CHECK(atomic_load(&ran_on[1]) > 0);
    CHECK(mig1 > 0);
    /* forbid it on VP 0 at run time: its threads stay home */
    s0.migrate = 0;
    CHECK_EQ_L(mpd_sched_set_attr(0, &s0), 0);
    mpd_thread_yield(); /* applied at VP 0's next decision */
    mpd_sched_stats(1, &picks, &mig0, &swaps);
    atomic_store(&ran_on[0], 0);
    atomic_store(&ran_on[1], 0);
    for (int r = 0; r < 3; r++)
        batch();
    mpd_sched_stats(1, &picks, &mig1, &swaps);
    printf("migration forbidden: ran on VP0 %d, VP1 %d; new VP1 migrations %lu\n",
           atomic_load(&ran_on[0]), atomic_load(&ran_on[1]), mig1 - mig0);
    CHECK_EQ_L(atomic_load(&ran_on[1]), 0);
    CHECK_EQ_L(mig1 - mig0, 0);
    CHECK_EQ_L(atomic_load(&ran_on[0]), 3 * NT * 50);
}

int main(void)
{
    mpd_sched_attr_t s;
    mpd_sched_attr_init(&s);
    CHECK_EQ_L(mpd_sched_install(0, &s), 0);
    s.policy = MPD_SCHED_PRIORITY;
    CHECK_EQ_L(mpd_sched_install(1, &s), 0);
    CHECK_EQ_L(mpd_threads_main(2, main_fn, NULL), 0);
    CHECK_DONE();
}
