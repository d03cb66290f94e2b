/* timedwait_test.c: mpd_waitq_wait_timeout and mpd_sem_P_timeout --
 * timeouts, wakeups before the deadline, and races of both over several VPs
 * with exact accounting. */
#include "harness.h"

static mpd_spinlock lk = MPD_SPINLOCK_INIT;
static mpd_waitq q = MPD_WAITQ_INIT;
static mpd_sem done;

static void waker(void *a)
{
    mpd_nap((long)(intptr_t)a);
    mpd_spin_lock(&lk);
    CHECK(mpd_waitq_wake_one(&q) != NULL);
    mpd_spin_unlock(&lk);
}

/* race: waiters with short timeouts against wakers */
static atomic_long n_woken, n_timeout, n_wakes;
static atomic_int stop_wakers;
static long rounds;
static void racer_wait(void *a)
{
    long t = (long)(intptr_t)a;
    for (long i = 0; i < rounds; i++) {
        mpd_spin_lock(&lk);
        int r = mpd_waitq_wait_timeout(&q, &lk, (i + t) % 3);
        atomic_fetch_add(r == 0 ? &n_woken : &n_timeout, 1);
    }
    mpd_sem_V(&done);
}
static void racer_wake(void *a)
{
    (void)a;
    while (!atomic_load(&stop_wakers)) {
        mpd_spin_lock(&lk);
        if (mpd_waitq_wake_one(&q))
            atomic_fetch_add(&n_wakes, 1);
        mpd_spin_unlock(&lk);
        mpd_yield();
    }
    mpd_sem_V(&done);
}

static void body(void *arg)
{
    (void)arg;
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    mpd_sem_init(&done, 0);

    long t0 = mpd_rt_age_ms();
    mpd_spin_lock(&lk);
    CHECK_EQ(mpd_waitq_wait_timeout(&q, &lk, 20), -1);
    CHECK(mpd_rt_age_ms() - t0 >= 20);
    CHECK(mpd_waitq_empty(&q));

    t0 = mpd_rt_age_ms();
    mpd_proc_create(waker, (void *)(intptr_t)5, &at);
    mpd_spin_lock(&lk);
    CHECK_EQ(mpd_waitq_wait_timeout(&q, &lk, 10000), 0);
    CHECK(mpd_rt_age_ms() - t0 < 5000);
    CHECK(mpd_waitq_empty(&q));

    rounds = t_scaled(2000);
    for (int i = 0; i < 4; i++)
        mpd_proc_create(racer_wait, (void *)(intptr_t)i, &at);
    mpd_proc_create(racer_wake, NULL, &at);
    for (int i = 0; i < 4; i++)
        mpd_sem_P(&done);
    atomic_store(&stop_wakers, 1);
    mpd_sem_P(&done);
    CHECK_EQ(atomic_load(&n_woken) + atomic_load(&n_timeout), 4 * rounds);
    CHECK_EQ(atomic_load(&n_woken), atomic_load(&n_wakes)); /* no wakeup lost or doubled */
    CHECK(mpd_waitq_empty(&q));
    mpd_rt_set_exit_status(t_failures ? 3 : 0);
}

/* Timed P: takers with 0-2 ms timeouts and untimed takers against givers
 * that V until the untimed takers are served.  Every unit given is taken
 * once or still in the count at the end. */
static mpd_sem tsem, tdone;
static atomic_long t_given, t_got_timed, t_timeouts, t_got_untimed;
static atomic_int t_stop;
static long t_rounds;
static int t_fixed_ms; /* > 0: every timed P waits this long */
static void timed_taker(void *a)
{
    long t = (long)(intptr_t)a;
    for (long i = 0; i < t_rounds; i++) {
        if (mpd_sem_P_timeout(&tsem, t_fixed_ms ? t_fixed_ms : (i + t) % 3) == 0)
            atomic_fetch_add(&t_got_timed, 1);
        else
            atomic_fetch_add(&t_timeouts, 1);
    }
    mpd_sem_V(&tdone);
}
static void untimed_taker(void *a)
{
    (void)a;
    for (long i = 0; i < t_rounds; i++) {
        mpd_sem_P(&tsem);
        atomic_fetch_add(&t_got_untimed, 1);
    }
    mpd_sem_V(&tdone);
}
static void giver(void *a)
{
    long k = 0;
    (void)a;
    while (!atomic_load(&t_stop)) {
        mpd_sem_V(&tsem);
        atomic_fetch_add(&t_given, 1);
        if (t_fixed_ms)
            mpd_nap(t_fixed_ms); /* V()s as the timers fire */
        else if (++k % 7 == 0)
            mpd_nap(k % 2); /* let timers fire now and then */
        else
            mpd_yield();
    }
    mpd_sem_V(&tdone);
}

static void sem_giver_later(void *a)
{
    mpd_nap((long)(intptr_t)a);
    mpd_sem_V(&tsem);
}

static void timed_race(int ntimed, int nuntimed, int fixed_ms, long n)
{
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    t_rounds = n;
    t_fixed_ms = fixed_ms;
    atomic_store(&t_stop, 0);
    atomic_store(&t_given, 0);
    atomic_store(&t_got_timed, 0);
    atomic_store(&t_timeouts, 0);
    atomic_store(&t_got_untimed, 0);
    for (int i = 0; i < ntimed; i++)
        mpd_proc_create(timed_taker, (void *)(intptr_t)i, &at);
    for (int i = 0; i < nuntimed; i++)
        mpd_proc_create(untimed_taker, NULL, &at);
    for (int i = 0; i < 2; i++)
        mpd_proc_create(giver, NULL, &at);
    for (int i = 0; i < ntimed + nuntimed; i++)
        mpd_sem_P(&tdone); /* all takers */
    atomic_store(&t_stop, 1);
    for (int i = 0; i < 2; i++)
        mpd_sem_P(&tdone); /* the givers */
    CHECK_EQ(atomic_load(&t_got_timed) + atomic_load(&t_timeouts), ntimed * n);
    CHECK_EQ(atomic_load(&t_got_untimed), nuntimed * n);
    CHECK(mpd_sem_value(&tsem) >= 0);
    CHECK_EQ(atomic_load(&t_given),
             atomic_load(&t_got_timed) + atomic_load(&t_got_untimed) + mpd_sem_value(&tsem));
    /* nobody left waiting, no stray wakeup token: units come out one by one */
    long left = mpd_sem_value(&tsem);
    for (long i = 0; i < left; i++)
        CHECK_EQ(mpd_sem_P_timeout(&tsem, 1), 0);
    CHECK_EQ(mpd_sem_P_timeout(&tsem, 1), -1);
    CHECK_EQ(mpd_sem_value(&tsem), 0);
    if (t_failures)
        fprintf(stderr, "given %ld, timed %ld (+%ld timeouts), untimed %ld, left %ld\n",
                atomic_load(&t_given), atomic_load(&t_got_timed), atomic_load(&t_timeouts),
                atomic_load(&t_got_untimed), left);
}

static void body_sem(void *arg)
{
    (void)arg;
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    mpd_sem_init(&tsem, 0);
    mpd_sem_init(&tdone, 0);

    /* alone: times out, and leaves the count as it was */
    long t0 = mpd_rt_age_ms();
    CHECK_EQ(mpd_sem_P_timeout(&tsem, 20), -1);
    CHECK(mpd_rt_age_ms() - t0 >= 20);
    CHECK_EQ(mpd_sem_value(&tsem), 0);
    CHECK_EQ(mpd_sem_P_timeout(&tsem, 0), -1);
    mpd_sem_V(&tsem);
    CHECK_EQ(mpd_sem_P_timeout(&tsem, 0), 0);
    CHECK_EQ(mpd_sem_value(&tsem), 0);
    /* a V before the deadline */
    t0 = mpd_rt_age_ms();
    mpd_proc_create(sem_giver_later, (void *)(intptr_t)5, &at);
    CHECK_EQ(mpd_sem_P_timeout(&tsem, 10000), 0);
    CHECK(mpd_rt_age_ms() - t0 < 5000);
    CHECK_EQ(mpd_sem_value(&tsem), 0);

    /* the race, with exact counts: short random timeouts with untimed
     * takers in the queue too; then only timed takers, whose 1 ms timers
     * fire as the giver's V()s come (a V may find a waiter whose timer
     * already won, and leave its unit as a wakeup token) */
    timed_race(3, 2, 0, t_scaled(2000));
    timed_race(4, 0, 1, t_scaled(300));
    mpd_rt_set_exit_status(t_failures ? 3 : 0);
}

int main(void)
{
    int vps[] = {1, 3};
    for (unsigned i = 0; i < 2; i++) {
        char *out;
        long t0 = time(NULL);
        int rc = run_child(body, NULL, vps[i], &out);
        if (rc)
            fprintf(stderr, "with %d VPs: status %d, output:\n%s\n", vps[i], rc, out);
        CHECK_EQ(rc, 0);
        CHECK(time(NULL) - t0 < 60); /* the cancelled 10 s timer did not hold the end */
        free(out);
    }
    int svps[] = {1, 2, 4};
    for (unsigned i = 0; i < 3; i++) {
        char *out;
        int rc = run_child(body_sem, NULL, svps[i], &out);
        if (rc)
            fprintf(stderr, "timed P with %d VPs: status %d, output:\n%s\n", svps[i], rc, out);
        CHECK_EQ(rc, 0);
        free(out);
    }
    return t_done("timedwait_test");
}
