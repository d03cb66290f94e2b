/* park_test.c: park/unpark, wait queues under a spin lock and handoff, with
 * 1 and several VPs: a bounded buffer built on them must neither lose nor
 * duplicate items, and no wakeup may be lost. */
#include "harness.h"

#define CAP 8
static mpd_spinlock lk = MPD_SPINLOCK_INIT;
static mpd_waitq not_full = MPD_WAITQ_INIT, not_empty = MPD_WAITQ_INIT;
static long buf[CAP];
static int head, count;
static mpd_sem done;
static long per;
static atomic_long sum_in, sum_out;

static void put(long v)
{
    mpd_spin_lock(&lk);
    while (count == CAP) {
        mpd_waitq_wait(&not_full, &lk); /* releases lk once switched out */
        mpd_spin_lock(&lk);
    }
    buf[(head + count++) % CAP] = v;
    mpd_proc *w = mpd_waitq_pop(&not_empty);
    mpd_spin_unlock(&lk);
    if (w)
        mpd_unpark(w);
}

static long get(void)
{
    mpd_spin_lock(&lk);
    while (count == 0) {
        mpd_waitq_wait(&not_empty, &lk);
        mpd_spin_lock(&lk);
    }
    long v = buf[head];
    head = (head + 1) % CAP;
    count--;
    mpd_proc *w = mpd_waitq_pop(&not_full);
    mpd_spin_unlock(&lk);
    if (w)
        mpd_unpark(w);
    return v;
}

static void producer(void *a)
{
    long base = (long)(intptr_t)a * 1000000;
    for (long i = 1; i <= per; i++) {
        put(base + i);
        atomic_fetch_add(&sum_in, base + i);
    }
    mpd_sem_V(&done);
}
static void consumer(void *a)
{
    (void)a;
    for (long i = 0; i < per; i++)
        atomic_fetch_add(&sum_out, get());
    mpd_sem_V(&done);
}

/* handoff: the woken process runs at once, the caller becomes ready */
static char trace[8];
static int tl;
static mpd_proc *sleeper_p;
static void sleeper(void *a)
{
    (void)a;
    mpd_park(NULL);
    trace[tl++] = 's';
}

static void body(void *arg)
{
    (void)arg;
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    mpd_sem_init(&done, 0);
    per = t_scaled(100000);
    for (int i = 0; i < 3; i++) {
        mpd_proc_create(producer, (void *)(intptr_t)(i + 1), &at);
        mpd_proc_create(consumer, NULL, &at);
    }
    for (int i = 0; i < 6; i++)
        mpd_sem_P(&done);
    CHECK_EQ(atomic_load(&sum_in), atomic_load(&sum_out));
    CHECK(atomic_load(&sum_out) > per * 1000000);
    CHECK_EQ(count, 0);
    CHECK(mpd_waitq_empty(&not_full) && mpd_waitq_empty(&not_empty));

    if (mpd_nvp() == 1) {
        sleeper_p = mpd_proc_create(sleeper, NULL, NULL);
        mpd_yield(); /* let it park */
        trace[tl++] = 'm';
        mpd_unpark_handoff(sleeper_p); /* runs now: 's' before the next 'm' */
        trace[tl++] = 'm';
        CHECK(!strcmp(trace, "msm"));
        CHECK_EQ(mpd_proc_join(sleeper_p, NULL), 0);

        /* waitq_remove and wake_all */
        mpd_waitq q = MPD_WAITQ_INIT;
        mpd_proc *ps[3];
        for (int i = 0; i < 3; i++)
            ps[i] = mpd_proc_create(sleeper, NULL, NULL);
        mpd_yield();
        for (int i = 0; i < 3; i++)
            mpd_waitq_push(&q, ps[i]);
        CHECK_EQ(mpd_waitq_remove(&q, ps[1]), 1);
        CHECK_EQ(mpd_waitq_remove(&q, ps[1]), 0);
        CHECK_EQ(mpd_waitq_wake_all(&q), 2);
        mpd_unpark(ps[1]);
        for (int i = 0; i < 3; i++)
            CHECK_EQ(mpd_proc_join(ps[i], NULL), 0);
        CHECK(!strcmp(trace, "msmsss"));
    }
    mpd_rt_set_exit_status(t_failures ? 3 : 0);
}

int main(void)
{
    int vps[] = {1, 3};
    for (unsigned i = 0; i < 2; i++) {
        char *out;
        int rc = run_child(body, NULL, vps[i], &out);
        if (rc)
            fprintf(stderr, "with %d VPs: status %d, output:\n%s\n", vps[i], rc, out);
        CHECK_EQ(rc, 0);
        free(out);
    }
    return t_done("park_test");
}
