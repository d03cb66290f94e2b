/* priority_test.c: the default (FIFO) scheduler orders ready processes by
 * priority, FIFO among equals; lowering one's own priority yields to the
 * ready processes whose priority is now >= its own, raising it does not;
 * a process woken by V takes its place by priority (one VP), and on
 * several VPs mixed priorities still let every process finish. */
#include "harness.h"

static char order[64];
static int olen;
static void note(char c)
{
    order[olen++] = c;
    order[olen] = 0;
}
static void noter(void *a)
{
    note((char)(intptr_t)a);
}

static void spawn(char c, int prio)
{
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    at.priority = prio;
    mpd_proc_create(noter, (void *)(intptr_t)c, &at);
}

static mpd_sem gate;
static void waiter(void *a)
{
    mpd_sem_P(&gate);
    note((char)(intptr_t)a);
}

static void main_one(void *arg)
{
    (void)arg;
    mpd_proc_set_priority(mpd_self(), 10);
    spawn('a', 1);
    spawn('b', 5);
    spawn('c', 3);
    spawn('d', 5);
    spawn('e', 10);
    mpd_proc_set_priority(mpd_self(), 20); /* raising: no yield */
    CHECK(!strcmp(order, ""));
    mpd_proc_set_priority(mpd_self(), 4); /* e (10), b, d (5) go first */
    CHECK(!strcmp(order, "ebd"));
    note('M');
    mpd_proc_set_priority(mpd_self(), 3); /* c, equal now, goes first */
    CHECK(!strcmp(order, "ebdMc"));
    mpd_proc_set_priority(mpd_self(), 3); /* unchanged: no yield */
    mpd_yield();                          /* only a (1) is ready: a yield goes on, as MPD's did */
    CHECK(!strcmp(order, "ebdMc"));
    mpd_proc_set_priority(mpd_self(), 1); /* a, equal now, goes first */
    CHECK(!strcmp(order, "ebdMca"));

    /* woken by V: ready in priority order, run when main blocks */
    olen = 0;
    order[0] = 0;
    mpd_sem_init(&gate, 0);
    static const int prios[] = {2, 7, 2, 9};
    for (int i = 0; i < 4; i++) {
        mpd_proc_attr at = MPD_PROC_ATTR_INIT;
        at.detached = 1;
        at.priority = prios[i];
        mpd_proc_create(waiter, (void *)(intptr_t)('p' + i), &at);
    }
    mpd_proc_set_priority(mpd_self(), 0); /* let them all block */
    for (int i = 0; i < 4; i++)
        mpd_sem_V(&gate);
    CHECK(!strcmp(order, ""));
    mpd_yield();
    CHECK(!strcmp(order, "sqpr"));
    mpd_rt_set_exit_status(t_failures ? 3 : 0);
}

/* several VPs: workers of mixed priorities that keep changing them */
static mpd_sem mutex, done;
static long total;
static void worker(void *a)
{
    int i = (int)(intptr_t)a;
    for (int k = 1; k <= 300; k++) {
        mpd_proc_set_priority(mpd_self(), (i + k) % 5);
        mpd_sem_P(&mutex);
        total += k;
        mpd_sem_V(&mutex);
        if (k % 7 == 0)
            mpd_proc_set_priority(mpd_self(), mpd_proc_priority(mpd_self()) - 1);
    }
    mpd_sem_V(&done);
}
static void main_mvp(void *arg)
{
    (void)arg;
    mpd_sem_init(&mutex, 1);
    mpd_sem_init(&done, 0);
    for (int i = 0; i < 16; i++) {
        mpd_proc_attr at = MPD_PROC_ATTR_INIT;
        at.detached = 1;
        mpd_proc_create(worker, (void *)(intptr_t)i, &at);
    }
    mpd_proc_set_priority(mpd_self(), -2);
    for (int i = 0; i < 16; i++)
        mpd_sem_P(&done);
    CHECK_EQ(total, 16L * 300 * 301 / 2);
    mpd_rt_set_exit_status(t_failures ? 3 : 0);
}

int main(void)
{
    char *out;
    int rc = run_child(main_one, NULL, 1, &out);
    if (rc)
        fprintf(stderr, "child output:\n%s\n", out);
    CHECK_EQ(rc, 0);
    free(out);
    for (int nvp = 2; nvp <= 4; nvp += 2) {
        rc = run_child(main_mvp, NULL, nvp, &out);
        if (rc)
            fprintf(stderr, "child output (%d VPs):\n%s\n", nvp, out);
        CHECK_EQ(rc, 0);
        free(out);
    }
    return t_done("priority_test");
}
