/* uthreads.h: a minimal preemptive ucontext thread harness (one OS thread) for RAS tests.
 * Threads are switched round-robin by the preemption timer hook, which first
 * rewinds any interrupted restartable atomic sequence, and by ut_yield(). */
#ifndef THREADS_TEST_UTHREADS_H
#define THREADS_TEST_UTHREADS_H
#include <stdlib.h>
#include <ucontext.h>
#include "mpd/ras.h"

#define UT_MAX 16
#define UT_STACK (256 * 1024)
static ucontext_t ut_ctx[UT_MAX], ut_main;
static int ut_n, ut_cur, ut_done[UT_MAX], ut_live;
static unsigned long ut_preemptions, ut_rewinds;

static int ut_next(void)
{
    for (int k = 1; k <= ut_n; k++) {
        int i = (ut_cur + k) % ut_n;
        if (!ut_done[i])
            return i;
    }
    return -1;
}

/* Called with preemption off. */
static void ut_switch(void)
{
    int prev = ut_cur, nx = ut_next();
    if (nx < 0 || nx == prev)
        return;
    ut_cur = nx;
    swapcontext(&ut_ctx[prev], &ut_ctx[nx]);
}

static void ut_hook(void *uc)
{
    ut_preemptions++;
    if (mpd_ras_fixup(uc))
        ut_rewinds++;
    ut_switch();
}

static void ut_yield(void)
{
    mpd_preempt_off();
    ut_switch();
    mpd_preempt_on();
}

static void (*ut_body)(int);
static void ut_entry(int i)
{
    mpd_preempt_on(); /* started from ut_run/ut_switch with preemption off */
    ut_body(i);
    mpd_preempt_off();
    ut_done[i] = 1;
    ut_live--;
    int nx = ut_next();
    if (nx < 0)
        setcontext(&ut_main);
    ut_cur = nx;
    setcontext(&ut_ctx[nx]);
}

/* Run n threads of body(i) with a preemption tick every period_us; returns
 * when all have finished. */
static void ut_run(int n, void (*body)(int), long period_us)
{
    ut_n = n;
    ut_cur = 0;
    ut_live = n;
    ut_body = body;
    for (int i = 0; i < n; i++) {
        ut_done[i] = 0;
        getcontext(&ut_ctx[i]);
        ut_ctx[i].uc_stack.ss_sp = malloc(UT_STACK);
        ut_ctx[i].uc_stack.ss_size = UT_STACK;
        ut_ctx[i].uc_link = NULL;
        makecontext(&ut_ctx[i], (void (*)(void))ut_entry, 1, i);
    }
    mpd_preempt_off();
    if (mpd_preempt_start(period_us, ut_hook) != 0)
        abort();
    swapcontext(&ut_main, &ut_ctx[0]);
    mpd_preempt_stop();
    mpd_preempt_on();
    for (int i = 0; i < n; i++)
        free(ut_ctx[i].uc_stack.ss_sp);
}
#endif
