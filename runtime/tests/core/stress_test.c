/* stress_test.c: millions of semaphore handoffs between processes spread over
 * several VPs; exact counts prove that no wakeup is lost or doubled. */
#include "harness.h"

#define NPAIRS 8
static mpd_sem a[NPAIRS], b[NPAIRS], done;
static atomic_long total;
static long per_pair;

static void left(void *arg)
{
    int i = (int)(intptr_t)arg;
    for (long k = 0; k < per_pair; k++) {
        mpd_sem_V(&a[i]);
        mpd_sem_P(&b[i]);
    }
    mpd_sem_V(&done);
}
static void right(void *arg)
{
    int i = (int)(intptr_t)arg;
    long n = 0;
    for (long k = 0; k < per_pair; k++) {
        mpd_sem_P(&a[i]);
        n++;
        mpd_sem_V(&b[i]);
    }
    atomic_fetch_add(&total, n);
    mpd_sem_V(&done);
}

/* Many producers V one semaphore that many consumers P. */
static mpd_sem shared;
static atomic_long consumed;
static void producer(void *arg)
{
    long n = (long)(intptr_t)arg;
    for (long k = 0; k < n; k++)
        mpd_sem_V(&shared);
    mpd_sem_V(&done);
}
static void consumer(void *arg)
{
    long n = (long)(intptr_t)arg;
    for (long k = 0; k < n; k++) {
        mpd_sem_P(&shared);
        atomic_fetch_add_explicit(&consumed, 1, memory_order_relaxed);
    }
    mpd_sem_V(&done);
}

static void body(void *arg)
{
    (void)arg;
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    per_pair = t_scaled(250000); /* 8 pairs x 2 handoffs x 250000 = 4M P/V pairs */
    mpd_sem_init(&done, 0);
    for (int i = 0; i < NPAIRS; i++) {
        mpd_sem_init(&a[i], 0);
        mpd_sem_init(&b[i], 0);
        mpd_proc_create(left, (void *)(intptr_t)i, &at);
        mpd_proc_create(right, (void *)(intptr_t)i, &at);
    }
    for (int i = 0; i < 2 * NPAIRS; i++)
        mpd_sem_P(&done);
    CHECK_EQ(atomic_load(&total), per_pair * NPAIRS);
    for (int i = 0; i < NPAIRS; i++) {
        CHECK_EQ(mpd_sem_value(&a[i]), 0);
        CHECK_EQ(mpd_sem_value(&b[i]), 0);
    }

    long each = t_scaled(100000);
    mpd_sem_init(&shared, 0);
    for (int i = 0; i < 4; i++) {
        mpd_proc_create(consumer, (void *)(intptr_t)each, &at);
        mpd_proc_create(producer, (void *)(intptr_t)each, &at);
    }
    for (int i = 0; i < 8; i++)
        mpd_sem_P(&done);
    CHECK_EQ(atomic_load(&consumed), 4 * each);
    CHECK_EQ(mpd_sem_value(&shared), 0);
    mpd_rt_set_exit_status(t_failures ? 3 : 0);
}

int main(void)
{
    int vps[] = {2, 4};
    for (unsigned i = 0; i < sizeof vps / sizeof *vps; i++) {
        char *out;
        int rc = run_child(body, NULL, vps[i], &out);
        if (rc)
            fprintf(stderr, "with %d VPs: status %d, output:\n%s\n", vps[i], rc, out);
        CHECK_EQ(rc, 0);
        free(out);
    }
    return t_done("stress_test");
}
