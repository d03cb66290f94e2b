/* proc_test.c: processes -- create, FIFO order, yield, join/detach, names, priority, udata, loc, spawn_here/exit_to. */
#include "harness.h"

static char order[64];
static int olen;
static void note(char c)
{
    order[olen++] = c;
    order[olen] = 0;
}

static void letter(void *a)
{
    char c = (char)(intptr_t)a;
    note(c);
    mpd_yield();
    note((char)(c - 'a' + 'A'));
}

static void *ret_val(void *a)
{
    return a;
}
static void joined(void *a)
{
    mpd_proc_exit(ret_val(a));
}

static void loc_proc(void *a)
{
    (void)a;
    mpd_set_loc("x.mpd", 42);
    CHECK(!strcmp(mpd_proc_file(mpd_self()), "x.mpd"));
    CHECK_EQ(mpd_proc_line(mpd_self()), 42);
}

static void main_one(void *arg)
{
    (void)arg;
    CHECK(!strcmp(mpd_proc_name(mpd_self()), "main"));
    CHECK_EQ(mpd_vp_index(), 0);
    CHECK_EQ(mpd_nvp(), 1);
    CHECK_EQ(mpd_argc(), 1);
    /* FIFO: a b c run in creation order; each yield goes to the back */
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    for (char c = 'a'; c <= 'c'; c++)
        mpd_proc_create(letter, (void *)(intptr_t)c, &at);
    note('m');
    mpd_yield();
    note('M');
    mpd_yield();
    mpd_yield();
    CHECK(!strcmp(order, "mabcMABC"));

    /* join returns the exit value; joining twice or a detached one fails */
    mpd_proc_attr jt = MPD_PROC_ATTR_INIT;
    jt.name = "a-rather-long-process-name-that-does-not-fit-inline";
    jt.priority = 7;
    mpd_proc *p = mpd_proc_create(joined, (void *)(intptr_t)1234, &jt);
    CHECK(!strcmp(mpd_proc_name(p), jt.name));
    CHECK_EQ(mpd_proc_priority(p), 7);
    mpd_proc_set_udata(p, &order);
    CHECK(mpd_proc_udata(p) == &order);
    void *r = NULL;
    CHECK_EQ(mpd_proc_join(p, &r), 0);
    CHECK_EQ((intptr_t)r, 1234);
    CHECK_EQ(mpd_proc_join(mpd_self(), NULL), -1);

    /* join after the process already ended */
    p = mpd_proc_create(joined, (void *)(intptr_t)5, NULL);
    mpd_yield();
    CHECK_EQ(mpd_proc_join(p, &r), 0);
    CHECK_EQ((intptr_t)r, 5);

    /* detach then let it end; detach of an ended one frees it */
    p = mpd_proc_create(joined, NULL, NULL);
    CHECK_EQ(mpd_proc_detach(p), 0);
    CHECK_EQ(mpd_proc_join(p, NULL), -1);
    p = mpd_proc_create(joined, NULL, NULL);
    mpd_yield();
    CHECK_EQ(mpd_proc_detach(p), 0);

    mpd_proc_create(loc_proc, NULL, &at);
    mpd_yield();

    /* run_now: the new process runs before the creator goes on, and the
     * creator queues behind processes that were already ready */
    olen = 0;
    order[0] = 0;
    mpd_proc_create(letter, (void *)(intptr_t)'a', &at); /* ready, not running */
    mpd_proc_attr rn = at;
    rn.run_now = 1;
    mpd_proc_create(letter, (void *)(intptr_t)'b', &rn); /* b runs now, yields */
    note('m');
    mpd_yield();
    mpd_yield();
    CHECK(!strcmp(order, "bamBA"));

    /* many processes, stack reuse */
    for (int round = 0; round < 3; round++) {
        mpd_proc *ps[1000];
        for (int i = 0; i < 1000; i++)
            ps[i] = mpd_proc_create(joined, (void *)(intptr_t)i, NULL);
        for (int i = 0; i < 1000; i++) {
            CHECK_EQ(mpd_proc_join(ps[i], &r), 0);
            CHECK_EQ((intptr_t)r, i);
        }
    }
    mpd_rt_set_exit_status(t_failures ? 3 : 0);
}

/* Several VPs: joiners and detachers race with processes that are still
 * blocking and waking on other VPs (a pair ping-pongs on two semaphores),
 * so join/detach must read "has it ended" under the process's own lock,
 * never its scheduling state (a data race ThreadSanitizer reports). */
static mpd_sem jp_ping, jp_pong;
static long jp_rounds;
static void jp_pinger(void *a)
{
    for (long i = 0; i < jp_rounds; i++) {
        mpd_sem_V(&jp_ping);
        mpd_sem_P(&jp_pong);
    }
    mpd_proc_exit(a);
}
static void jp_ponger(void *a)
{
    for (long i = 0; i < jp_rounds; i++) {
        mpd_sem_P(&jp_ping);
        mpd_sem_V(&jp_pong);
    }
    mpd_proc_exit(a);
}
static void main_join_mvp(void *arg)
{
    (void)arg;
    jp_rounds = 200;
    mpd_sem_init(&jp_ping, 0);
    mpd_sem_init(&jp_pong, 0);
    long rounds = t_scaled(2000);
    for (long k = 0; k < rounds; k++) {
        mpd_proc *a = mpd_proc_create(jp_pinger, (void *)(intptr_t)(2 * k), NULL);
        mpd_proc *b = mpd_proc_create(jp_ponger, (void *)(intptr_t)(2 * k + 1), NULL);
        void *r = NULL;
        if (k % 3 == 0) {
            /* detach one while it runs, join the other */
            CHECK_EQ(mpd_proc_detach(a), 0);
            CHECK_EQ(mpd_proc_join(b, &r), 0);
            CHECK_EQ((intptr_t)r, 2 * k + 1);
        } else {
            CHECK_EQ(mpd_proc_join(a, &r), 0);
            CHECK_EQ((intptr_t)r, 2 * k);
            CHECK_EQ(mpd_proc_join(b, &r), 0);
            CHECK_EQ((intptr_t)r, 2 * k + 1);
        }
    }
    mpd_rt_set_exit_status(t_failures ? 3 : 0);
}

/* mpd_proc_spawn_here and mpd_proc_exit_to: the child reads what its
 * creator wrote into its memory after spawning it, has the creator's
 * priority and the memory as udata, and hands the VP back to its parked
 * creator as it ends (with another process of its priority ready first:
 * FIFO order among equals). */
typedef struct sh_mem {
    mpd_proc *creator;
    int value;
    char tag;
} sh_mem;
static mpd_spinlock sh_lk = MPD_SPINLOCK_INIT;
static void sh_child(void *arg)
{
    sh_mem *m = arg;
    CHECK(mpd_proc_udata(mpd_self()) == m);
    CHECK_EQ(mpd_proc_priority(mpd_self()), 3);
    CHECK_EQ(m->value, 42);
    if (mpd_nvp() == 1) {
        note(m->tag);
    } else {
        mpd_spin_lock(&sh_lk); /* the creator is parked */
        mpd_spin_unlock(&sh_lk);
    }
    mpd_proc_exit_to(m->creator);
}
static void sh_other(void *a)
{
    (void)a;
    note('x');
}
static void main_spawn_here(void *arg)
{
    (void)arg;
    int one = mpd_nvp() == 1;
    mpd_proc_set_priority(mpd_self(), 3);
    long rounds = t_scaled(3000);
    for (long k = 0; k < rounds; k++) {
        olen = 0;
        order[0] = 0;
        mpd_proc *p;
        if (!one)
            mpd_spin_lock(&sh_lk);
        sh_mem *m = mpd_proc_spawn_here(sh_child, "sh", sizeof *m, &p, (int)(k & 1));
        CHECK(one && (k & 1) ? p == NULL : p != NULL);
        m->creator = mpd_self();
        m->value = 42;
        m->tag = 'c';
        if (p)
            mpd_proc_launch(p);
        if (one && k % 3 == 0) { /* another ready process: exit_to queues us */
            mpd_proc_attr at = MPD_PROC_ATTR_INIT;
            at.detached = 1;
            at.priority = 3; /* FIFO among equals; a lower one would go after us */
            mpd_proc_create(sh_other, NULL, &at);
        }
        mpd_park(one ? NULL : &sh_lk);
        if (one) {
            note('m');
            CHECK(!strcmp(order, k % 3 == 0 ? "cxm" : "cm"));
        }
    }
    mpd_rt_set_exit_status(t_failures ? 3 : 0);
}

static void main_exit(void *a)
{
    (void)a;
    printf("before");
    mpd_exit(7);
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
        rc = run_child(main_join_mvp, NULL, nvp, &out);
        if (rc)
            fprintf(stderr, "child output (%d VPs):\n%s\n", nvp, out);
        CHECK_EQ(rc, 0);
        free(out);
    }
    for (int nvp = 1; nvp <= 2; nvp++) {
        rc = run_child(main_spawn_here, NULL, nvp, &out);
        if (rc)
            fprintf(stderr, "child output (spawn_here, %d VPs):\n%s\n", nvp, out);
        CHECK_EQ(rc, 0);
        free(out);
    }
    rc = run_child(main_exit, NULL, 1, &out);
    CHECK_EQ(rc, 7);
    CHECK(!strcmp(out, "before")); /* stdout flushed by mpd_exit */
    free(out);
    return t_done("proc_test");
}
