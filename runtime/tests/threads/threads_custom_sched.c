/* threads_custom_sched.c: a scheduler object of one's own installed per VP (install_scheduler):
 * here a LIFO written for the test on VP 0; threads still fork, join and know themselves;
 * swapped for the configurable object and back at run time. */
#include <errno.h>
#include <stdio.h>
#include "mpd/threads.h"
#include "check.h"

/* A LIFO ready stack: the last thread made ready runs first. */
static mpd_proc *stack_top;
static long puts_seen;
static void *lifo_init(int vp, int nvp)
{
    (void)vp;
    (void)nvp;
    return &stack_top;
}
static void lifo_put(void *st, mpd_proc *p)
{
    (void)st;
    *mpd_proc_link(p) = stack_top;
    stack_top = p;
    puts_seen++;
}
static mpd_proc *lifo_get(void *st)
{
    (void)st;
    mpd_proc *p = stack_top;
    if (p)
        stack_top = *mpd_proc_link(p);
    return p;
}
static int lifo_empty(void *st)
{
    (void)st;
    return stack_top == NULL;
}
static const mpd_sched_ops lifo = {"lifo", lifo_init, lifo_put, lifo_get, lifo_empty, NULL};

static int order[8], norder;
static void *record(void *arg)
{
    CHECK(mpd_thread_self() != NULL);
    order[norder++] = (int)(long)arg;
    return arg;
}

static void main_fn(void *arg)
{
    (void)arg;
    mpd_thread_t *t[4];
    for (long i = 0; i < 4; i++)
        CHECK_EQ_L(mpd_thread_fork(&t[i], NULL, record, (void *)i), 0);
    for (int i = 0; i < 4; i++) {
        void *r;
        CHECK_EQ_L(mpd_thread_join(t[i], &r), 0);
        CHECK_EQ_L((long)r, i);
    }
    /* LIFO: forked 0,1,2,3 while main kept the VP -> they ran 3,2,1,0 */
    CHECK(order[0] == 3 && order[1] == 2 && order[2] == 1 && order[3] == 0);
    mpd_sched_attr_t a;
    mpd_sched_attr_init(&a);
    CHECK_EQ_L(mpd_sched_set_attr(0, &a), EINVAL); /* not a configurable scheduler */
    /* at run time: back to the configurable object (FIFO), then LIFO again */
    CHECK_EQ_L(mpd_sched_install_ops(0, &mpd_sched_configurable), 0);
    mpd_thread_yield(); /* VP 0 swaps at this decision */
    CHECK_EQ_L(mpd_sched_object_swaps(0), 1);
    CHECK_EQ_L(mpd_sched_set_attr(0, &a), 0); /* configurable again */
    norder = 0;
    for (long i = 0; i < 4; i++)
        CHECK_EQ_L(mpd_thread_fork(&t[i], NULL, record, (void *)i), 0);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_L(mpd_thread_join(t[i], NULL), 0);
    CHECK(order[0] == 0 && order[1] == 1 && order[2] == 2 && order[3] == 3);
    CHECK_EQ_L(mpd_sched_install_ops(0, &lifo), 0);
    mpd_thread_yield();
    CHECK_EQ_L(mpd_sched_object_swaps(0), 2);
    CHECK_EQ_L(mpd_sched_set_attr(0, &a), EINVAL);
    CHECK_EQ_L(mpd_sched_install_ops(5, &lifo), EINVAL); /* no such VP */
}

int main(void)
{
    CHECK_EQ_L(mpd_sched_install_ops(0, NULL), EINVAL);
    CHECK_EQ_L(mpd_sched_install_ops(0, &lifo), 0);
    CHECK_EQ_L(mpd_threads_main(1, main_fn, NULL), 0);
    CHECK(puts_seen >= 4);
    CHECK_DONE();
}
