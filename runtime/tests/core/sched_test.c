/* sched_test.c: the priority and work-stealing schedulers, installing a
 * scheduler at run time, and time slicing with mpd_maybe_yield. */
#include "harness.h"

static char order[32];
static int olen;
static mpd_sem done;
static void mark(void *a)
{
    order[olen++] = (char)(intptr_t)a;
    mpd_sem_V(&done);
}

static void body_prio(void *arg)
{
    (void)arg;
    mpd_sem_init(&done, 0);
    CHECK_EQ(mpd_vp_set_sched(0, &mpd_sched_prio), 0);
    struct {
        char c;
        int pr;
    } ps[] = {{'a', 1}, {'b', 5}, {'c', 1}, {'d', 9}, {'e', 5}};
    for (int i = 0; i < 5; i++) {
        mpd_proc_attr at = MPD_PROC_ATTR_INIT;
        at.detached = 1;
        at.priority = ps[i].pr;
        mpd_proc_create(mark, (void *)(intptr_t)ps[i].c, &at);
    }
    for (int i = 0; i < 5; i++)
        mpd_sem_P(&done);
    CHECK(!strcmp(order, "dbeac"));
    mpd_rt_set_exit_status(t_failures ? 3 : 0);
}

/* Work stealing: CPU-bound processes all created on VP 0 end up on all VPs. */
static atomic_int seen_vp[8];
static void spin(void *a)
{
    (void)a;
    volatile long x = 0;
    for (long i = 0; i < 3000000; i++) {
        x += i;
        if ((i & 1023) == 0) {
            atomic_store(&seen_vp[mpd_vp_index()], 1);
            mpd_yield();
        }
    }
    CHECK(x != 0);
    mpd_sem_V(&done);
}
static void body_steal(void *arg)
{
    (void)arg;
    mpd_sem_init(&done, 0);
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    for (int i = 0; i < 8; i++)
        mpd_proc_create(spin, NULL, &at);
    for (int i = 0; i < 8; i++)
        mpd_sem_P(&done);
    CHECK(atomic_load(&seen_vp[0]) && atomic_load(&seen_vp[1]));
    mpd_rt_set_exit_status(t_failures ? 3 : 0);
}

/* Slicing: two loops with mpd_maybe_yield alternate every n iterations. */
static char trace[64];
static int tlen;
static void looper(void *a)
{
    for (int i = 0; i < 6; i++) {
        trace[tlen++] = (char)(intptr_t)a;
        mpd_maybe_yield();
    }
    mpd_sem_V(&done);
}
static void body_slice(void *arg)
{
    mpd_rt_set_slice((long)(intptr_t)arg);
    mpd_sem_init(&done, 0);
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    mpd_proc_create(looper, (void *)(intptr_t)'x', &at);
    mpd_proc_create(looper, (void *)(intptr_t)'y', &at);
    mpd_sem_P(&done);
    mpd_sem_P(&done);
    printf("%s", trace);
}

int main(void)
{
    char *out;
    int rc = run_child(body_prio, NULL, 1, &out);
    if (rc)
        fprintf(stderr, "prio: %s\n", out);
    CHECK_EQ(rc, 0);
    free(out);

    setenv("MPD_SCHED", "steal", 1);
    rc = run_child(body_steal, NULL, 2, &out);
    if (rc)
        fprintf(stderr, "steal: %s\n", out);
    CHECK_EQ(rc, 0);
    free(out);
    unsetenv("MPD_SCHED");

    rc = run_child(body_slice, (void *)(intptr_t)2, 1, &out);
    CHECK_EQ(rc, 0);
    CHECK(!strcmp(out, "xxyyxxyyxxyy"));
    if (t_failures)
        fprintf(stderr, "slice 2: %s\n", out);
    free(out);
    rc = run_child(body_slice, (void *)(intptr_t)0, 1, &out);
    CHECK(!strcmp(out, "xxxxxxyyyyyy"));
    free(out);
    return t_done("sched_test");
}
