/* timedwait_test.c: mpd_waitq_wait_timeout -- timeouts, wakeups before the
 * deadline, and a race of both over several VPs with exact accounting. */
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
    CHECK_EQ(atomic_load(&n_woken), atomic_load(&n_wakes));   /* no wakeup lost or doubled */
    CHECK(mpd_waitq_empty(&q));
    mpd_rt_set_exit_status(t_failures ? 3 : 0);
}

int main(void)
{
    int vps[] = { 1, 3 };
    for (unsigned i = 0; i < 2; i++) {
        char *out;
        long t0 = time(NULL);
        int rc = run_child(body, NULL, vps[i], &out);
        if (rc) fprintf(stderr, "with %d VPs: status %d, output:\n%s\n", vps[i], rc, out);
        CHECK_EQ(rc, 0);
        CHECK(time(NULL) - t0 < 60);   /* the cancelled 10 s timer did not hold the end */
        free(out);
    }
    return t_done("timedwait_test");
}
