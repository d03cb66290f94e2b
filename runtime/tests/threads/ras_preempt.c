/* ras_preempt.c: RAS atomicity under forced preemption (exact counts), and purge stops restarts. */
/* tsan: skip (switches ucontext threads inside a signal handler) */
#include <stdint.h>
#include <stdio.h>
#include "mpd/ras.h"
#include "check.h"
#include "uthreads.h"

/* A deliberately slow increment: load, a delay loop, then the single store.
 * Registered as a RAS it is atomic; unregistered, preemption inside the
 * window loses updates. */
__asm__(".text\n"
        ".globl slow_inc\n"
        "slow_inc:\n"
        ".globl slow_inc_begin\n"
        "slow_inc_begin:\n"
#if defined(__x86_64__)
        "  movq (%rdi), %rax\n"
        "  movl $150, %ecx\n"
        "1: decl %ecx\n"
        "  jnz 1b\n"
        "  addq $1, %rax\n"
        "  movq %rax, (%rdi)\n"
        ".globl slow_inc_end\n"
        "slow_inc_end:\n"
        "  ret\n"
#elif defined(__aarch64__)
        "  ldr x1, [x0]\n"
        "  mov w2, #150\n"
        "1: subs w2, w2, #1\n"
        "  b.ne 1b\n"
        "  add x1, x1, #1\n"
        "  str x1, [x0]\n"
        ".globl slow_inc_end\n"
        "slow_inc_end:\n"
        "  ret\n"
#endif
);
extern void slow_inc(volatile long *p);
extern const char slow_inc_begin[], slow_inc_end[];

#define NT 6
#define ITERS 60000
static volatile long counter, fa_counter;
static volatile long pair_a, pair_b;
static mpd_ras_mutex_t mtx = MPD_RAS_MUTEX_INIT;
static long torn;

static void body_slow(int i)
{
    (void)i;
    for (int k = 0; k < ITERS; k++)
        slow_inc(&counter);
}
static void body_fa(int i)
{
    (void)i;
    for (int k = 0; k < ITERS * 4; k++)
        mpd_ras_fetch_add(&fa_counter, 1);
}
static void body_mutex(int i)
{
    (void)i;
    for (int k = 0; k < ITERS / 4; k++) {
        mpd_ras_mutex_lock(&mtx);
        long a = pair_a;
        for (volatile int d = 0; d < 20; d++) {
        }
        pair_a = a + 1;
        if (pair_b + 1 != pair_a)
            torn++;
        pair_b = pair_b + 1;
        mpd_ras_mutex_unlock(&mtx);
    }
}

int main(void)
{
    size_t len = (size_t)(slow_inc_end - slow_inc_begin);
    CHECK_EQ_L(mpd_ras_init(), 0);
    mpd_ras_set_yield(ut_yield);
    /* one OS thread runs every sequence here: the restartable path */
    CHECK_EQ_L(mpd_ras_uniprocessor(), 0);
    mpd_ras_set_uniprocessor(1);
    CHECK_EQ_L(mpd_ras_uniprocessor(), MPD_RAS_NATIVE);

    /* 1. registered: exact count, and restarts actually happened */
    CHECK_EQ_L(mpd_rasctl((void *)slow_inc_begin, len, MPD_RAS_INSTALL), 0);
    ut_run(NT, body_slow, 50);
    unsigned long r1 = mpd_ras_restarts(slow_inc_begin);
    printf("registered: count %ld of %d, preemptions %lu, restarts %lu\n", counter, NT * ITERS,
           ut_preemptions, r1);
    CHECK_EQ_L(counter, (long)NT * ITERS);
    CHECK(ut_preemptions > 20);
    CHECK(r1 > 0);

    /* 2. built-in fetch-and-add and the RAS mutex under the same preemption */
    ut_preemptions = 0;
    ut_run(NT, body_fa, 50);
    CHECK_EQ_L(fa_counter, (long)NT * ITERS * 4);
    ut_run(NT, body_mutex, 30);
    printf("fetch_add %ld, mutex pair %ld/%ld torn %ld, tas restarts %lu fa restarts %lu\n",
           fa_counter, pair_a, pair_b, torn, mpd_ras_restarts(mpd_ras_tas_begin),
           mpd_ras_restarts(mpd_ras_fetch_add_begin));
    CHECK_EQ_L(pair_a, (long)NT * (ITERS / 4));
    CHECK_EQ_L(pair_b, (long)NT * (ITERS / 4));
    CHECK_EQ_L(torn, 0);

    /* 3. purged: no restarts any more, and updates are lost */
    unsigned long total_before = mpd_ras_restarts_total();
    CHECK_EQ_L(mpd_rasctl((void *)slow_inc_begin, len, MPD_RAS_PURGE), 0);
    CHECK(mpd_ras_lookup(slow_inc_begin + 1) == NULL);
    counter = 0;
    ut_preemptions = 0;
    ut_rewinds = 0;
    ut_run(NT, body_slow, 50);
    unsigned long lost = (unsigned long)((long)NT * ITERS - counter);
    printf("purged: count %ld of %d (lost %lu), preemptions %lu, rewinds %lu\n", counter,
           NT * ITERS, lost, ut_preemptions, ut_rewinds);
    CHECK(ut_preemptions > 20);
    CHECK_EQ_L(ut_rewinds, 0);
    CHECK_EQ_L(mpd_ras_restarts_total(), total_before);
    CHECK(counter < (long)NT * ITERS);
    CHECK_DONE();
}
