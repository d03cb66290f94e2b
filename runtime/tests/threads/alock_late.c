/* alock_late.c: the default policy's late looks (adaptive_monitor.c late_looks): it probes
 * looking late, keeps doing so while the lock is taken in front of its waiters at least 3
 * times per wait (over 32 spin wins), and goes back to looking early otherwise, probing again
 * after a gap that doubles (8 .. 1024 policy runs) after every probe that did not pay; the
 * parameter late_passes sets the threshold or turns it off; static kinds never look late.  Then mutual exclusion with late looks in force: exact counts with
 * OS threads and with lightweight threads on 2 VPs. */
#include <pthread.h>
#include <stdio.h>
#include "mpd/alock.h"
#include "mpd/threads.h"
#include "sync/adaptive_impl.h"
#include "check.h"

/* One run of the default policy on a quiet, spinning lock (only the late-look rule moves). */
static void policy_run(mpd_alock_t *l)
{
    mpd_alock_monitor_t m = {0};
    mpd_alock_get_waiting(l, &m.spin_ns, &m.sleep_ns);
    mpd_alock_default_policy(l, &m, NULL);
}
static int late(mpd_alock_t *l)
{
    return atomic_load(&l->late_looks);
}
/* Spin wins measured while looking late: n waits, passes acquisitions by others in all. */
static void measured(mpd_alock_t *l, unsigned long n, unsigned long passes)
{
    l->late_n = n;
    l->late_passes = passes;
}

static void policy_rules(void)
{
    mpd_alock_t *l = mpd_alock_create(NULL);
    CHECK(!late(l));
    policy_run(l); /* the first policy run probes */
    CHECK(late(l));
    measured(l, 31, 31 * 10); /* too few waits to judge: nothing changes */
    policy_run(l);
    CHECK(late(l));
    CHECK_EQ_L(l->late_n, 31);
    measured(l, 32, 32 * 3); /* taken in front of the waiter 3 times per wait: keep */
    policy_run(l);
    CHECK(late(l));
    CHECK_EQ_L(l->late_n, 0); /* judged: counts start again */
    CHECK_EQ_L(l->late_passes, 0);
    measured(l, 40, 40 * 3 - 1); /* just under 3 per wait: back to early looks */
    policy_run(l);
    CHECK(!late(l));
    CHECK_EQ_L(l->probe_wait, 8);
    for (int i = 0; i < 7; i++) /* probes again after 8 policy runs */
        policy_run(l);
    CHECK(!late(l));
    policy_run(l);
    CHECK(late(l));
    CHECK_EQ_L(l->late_n, 0); /* a probe starts counting afresh */
    /* every probe that does not pay doubles the gap, up to 1024 */
    int want = 16;
    for (int k = 0; k < 10; k++) {
        measured(l, 32, 32);
        policy_run(l);
        CHECK(!late(l));
        CHECK_EQ_L(l->probe_wait, want);
        for (int i = 1; i < want; i++)
            policy_run(l);
        CHECK(!late(l));
        policy_run(l);
        CHECK(late(l));
        want = want < 1024 ? 2 * want : 1024;
    }
    /* a probe that pays resets the gap */
    measured(l, 32, 32 * 17);
    policy_run(l);
    CHECK(late(l));
    measured(l, 32, 0);
    policy_run(l);
    CHECK(!late(l));
    CHECK_EQ_L(l->probe_wait, 8);
    mpd_alock_destroy(l);

    /* the parameter: a threshold of one's own, or never */
    mpd_alock_default_params_t prm = {.low = 0.25,
                                      .high = 1.0,
                                      .spin_max_ns = 20000,
                                      .sleep_max_ns = 50000,
                                      .block_cost_ns = 20000,
                                      .late_passes = 5};
    l = mpd_alock_create(NULL);
    mpd_alock_monitor_t m = {0};
    mpd_alock_get_waiting(l, &m.spin_ns, &m.sleep_ns);
    mpd_alock_default_policy(l, &m, &prm);
    CHECK(late(l));
    measured(l, 32, 32 * 4); /* 4 per wait: enough for the default 3, not for 5 */
    mpd_alock_get_waiting(l, &m.spin_ns, &m.sleep_ns);
    mpd_alock_default_policy(l, &m, &prm);
    CHECK(!late(l));
    atomic_store(&l->late_looks, 1);
    prm.late_passes = -1; /* never: even a lock looking late stops at once */
    mpd_alock_default_policy(l, &m, &prm);
    CHECK(!late(l));
    for (int i = 0; i < 2000; i++)
        mpd_alock_default_policy(l, &m, &prm);
    CHECK(!late(l));
    mpd_alock_destroy(l);

    /* late looks are the default policy's: another policy, or none, ends them */
    l = mpd_alock_create(NULL);
    policy_run(l);
    CHECK(late(l));
    CHECK(mpd_alock_set_policy(l, NULL, NULL, NULL) == 0);
    CHECK(!late(l));
    mpd_alock_destroy(l);

    /* static kinds have no policy: they never look late, however contended */
    mpd_alock_attr_t a;
    mpd_alock_attr_init(&a, MPD_ALOCK_SPIN);
    mpd_alock_t *s = mpd_alock_create(&a);
    CHECK(!late(s) && atomic_load(&s->policy) == NULL);
    mpd_alock_destroy(s);
}

/* ---- mutual exclusion with late looks in force ---- */
enum { ITERS = 200000, NT = 3 };
static mpd_alock_t *L;
static long counter;

static void *os_worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITERS; i++) {
        mpd_alock_lock(L);
        counter++;
        atomic_store(&L->late_looks, 1); /* keep it late whatever the policy decides */
        mpd_alock_unlock(L);
    }
    return NULL;
}

static void *lwp_worker(void *arg)
{
    return os_worker(arg);
}
static void lwp_main(void *arg)
{
    (void)arg;
    mpd_thread_t *t[NT];
    for (int i = 0; i < NT; i++) {
        mpd_thread_attr_t a;
        mpd_thread_attr_init(&a);
        a.vp = i % 2;
        mpd_thread_fork(&t[i], &a, lwp_worker, NULL);
    }
    for (int i = 0; i < NT; i++)
        mpd_thread_join(t[i], NULL);
}

int main(void)
{
    policy_rules();

    L = mpd_alock_create(NULL);
    atomic_store(&L->late_looks, 1);
    pthread_t th[NT];
    for (int i = 0; i < NT; i++)
        pthread_create(&th[i], NULL, os_worker, NULL);
    for (int i = 0; i < NT; i++)
        pthread_join(th[i], NULL);
    CHECK_EQ_L(counter, (long)NT * ITERS);
    mpd_alock_stats_t st;
    mpd_alock_stats(L, &st);
    CHECK(st.contended <= st.acquisitions);
    mpd_alock_destroy(L);

    counter = 0;
    L = mpd_alock_create(NULL);
    atomic_store(&L->late_looks, 1);
    mpd_threads_main(2, lwp_main, NULL);
    CHECK_EQ_L(counter, (long)NT * ITERS);
    mpd_alock_destroy(L);
    CHECK_DONE();
}
