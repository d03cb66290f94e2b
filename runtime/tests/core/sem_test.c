/* sem_test.c: semaphores with 1 and several VPs: mutual exclusion, FIFO
 * wakeup order, tryP, and a stress of P/V handoffs with exact counts. */
#include "harness.h"

#define NWORK 4
static mpd_sem mutex, done, ping, pong;
static long counter; /* protected by mutex */
static long iters;

static void worker(void *a)
{
    (void)a;
    for (long i = 0; i < iters; i++) {
        mpd_sem_P(&mutex);
        long c = counter; /* a lost update shows up as a wrong total */
        if ((i & 63) == 0)
            mpd_yield();
        counter = c + 1;
        mpd_sem_V(&mutex);
    }
    mpd_sem_V(&done);
}

static long rounds, pings, pongs;
static void pinger(void *a)
{
    (void)a;
    for (long i = 0; i < rounds; i++) {
        mpd_sem_V(&ping);
        mpd_sem_P(&pong);
        pings++;
    }
    mpd_sem_V(&done);
}
static void ponger(void *a)
{
    (void)a;
    for (long i = 0; i < rounds; i++) {
        mpd_sem_P(&ping);
        pongs++;
        mpd_sem_V(&pong);
    }
    mpd_sem_V(&done);
}

static char wake_order[16];
static int wlen;
static mpd_sem gate;
static void waiter(void *a)
{
    mpd_sem_P(&gate);
    wake_order[wlen++] = (char)(intptr_t)a;
    mpd_sem_V(&done);
}

static void body(void *arg)
{
    (void)arg;
    int nvp = mpd_nvp();
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    mpd_sem_init(&mutex, 1);
    mpd_sem_init(&done, 0);
    iters = t_scaled(nvp == 1 ? 200000 : 100000);
    for (int i = 0; i < NWORK; i++)
        mpd_proc_create(worker, NULL, &at);
    for (int i = 0; i < NWORK; i++)
        mpd_sem_P(&done);
    CHECK_EQ(counter, iters * NWORK);
    CHECK_EQ(mpd_sem_value(&mutex), 1);

    /* ping-pong: every V is matched by exactly one P */
    mpd_sem_init(&ping, 0);
    mpd_sem_init(&pong, 0);
    rounds = t_scaled(nvp == 1 ? 1000000 : 300000);
    mpd_proc_create(pinger, NULL, &at);
    mpd_proc_create(ponger, NULL, &at);
    mpd_sem_P(&done);
    mpd_sem_P(&done);
    CHECK_EQ(pings, rounds);
    CHECK_EQ(pongs, rounds);
    CHECK_EQ(mpd_sem_value(&ping), 0);
    CHECK_EQ(mpd_sem_value(&pong), 0);

    /* tryP */
    mpd_sem s;
    mpd_sem_init(&s, 2);
    CHECK(mpd_sem_tryP(&s));
    CHECK(mpd_sem_tryP(&s));
    CHECK(!mpd_sem_tryP(&s));
    CHECK_EQ(mpd_sem_value(&s), 0);

    if (nvp == 1) { /* waiters are released first come, first served */
        mpd_sem_init(&gate, 0);
        for (char c = 'a'; c <= 'e'; c++)
            mpd_proc_create(waiter, (void *)(intptr_t)c, &at);
        mpd_yield();
        CHECK_EQ(mpd_sem_value(&gate), -5);
        for (int i = 0; i < 5; i++)
            mpd_sem_V(&gate);
        for (int i = 0; i < 5; i++)
            mpd_sem_P(&done);
        CHECK(!strcmp(wake_order, "abcde"));
    }
    mpd_rt_set_exit_status(t_failures ? 3 : 0);
}

int main(void)
{
    int vps[] = {1, 2, 4};
    for (unsigned i = 0; i < sizeof vps / sizeof *vps; i++) {
        char *out;
        int rc = run_child(body, NULL, vps[i], &out);
        if (rc)
            fprintf(stderr, "with %d VPs: status %d, output:\n%s\n", vps[i], rc, out);
        CHECK_EQ(rc, 0);
        free(out);
    }
    return t_done("sem_test");
}
