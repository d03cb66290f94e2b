/* alock_vp.c: adaptive locks on lightweight threads -- a waiter whose holder shares its VP does
 * not spin (it yields, then blocks), and the default policy returns to spinning once
 * contention is over (old long waits are forgotten).  Runs on one VP. */
#include <stdio.h>
#include "mpd/alock.h"
#include "mpd/threads.h"
#include "check.h"

static mpd_alock_t *L;
static int holder_yields;
static long inside;

/* Takes the lock and keeps it across many yields, so a waiter on the same VP runs meanwhile. */
static void *holder(void *arg)
{
    (void)arg;
    mpd_alock_lock(L);
    inside++;
    for (int i = 0; i < holder_yields; i++)
        mpd_thread_yield();
    inside--;
    mpd_alock_unlock(L);
    return NULL;
}
static void *slow_holder(void *arg)
{
    (void)arg;
    mpd_alock_lock(L);
    int64_t end = mpd_now_ns() + 5000000;
    while (mpd_now_ns() < end)
        mpd_thread_yield(); /* the waiter runs, finds the lock held */
    mpd_alock_unlock(L);
    return NULL;
}
static void *waiter(void *arg)
{
    (void)arg;
    mpd_alock_lock(L);
    CHECK_EQ_L(inside, 0);
    mpd_alock_unlock(L);
    return NULL;
}

static mpd_alock_stats_t run_pair(long spin_ns, long sleep_ns)
{
    mpd_alock_attr_t a;
    mpd_alock_attr_init(&a, MPD_ALOCK_SPIN);
    a.spin_ns = spin_ns;
    a.sleep_ns = sleep_ns; /* static: no policy moves them */
    L = mpd_alock_create(&a);
    holder_yields = 20;
    mpd_thread_t *h, *w;
    mpd_thread_fork(&h, NULL, holder, NULL);
    mpd_thread_fork(&w, NULL, waiter, NULL);
    mpd_thread_join(h, NULL);
    mpd_thread_join(w, NULL);
    mpd_alock_stats_t s;
    mpd_alock_stats(L, &s);
    mpd_alock_destroy(L);
    return s;
}

/* Threads that yield while holding the lock: every sample sees waiters. */
static void *contender(void *arg)
{
    (void)arg;
    for (int i = 0; i < 200; i++) {
        mpd_alock_lock(L);
        mpd_thread_yield();
        mpd_alock_unlock(L);
    }
    return NULL;
}

static void main_fn(void *arg)
{
    (void)arg;
    /* 1. spin for up to a second before blocking: with the holder on our only VP the
     *    waiter must block at once instead (without that rule it would get the lock by
     *    spinning, as the spin phase lets the holder run every 64 rounds). */
    mpd_alock_stats_t s = run_pair(1000000000L, MPD_ALOCK_FOREVER);
    printf("spin-then-block, holder on our VP: contended %lu spin_acquired %lu blocks %lu\n",
           s.contended, s.spin_acquired, s.blocks);
    CHECK_EQ_L(s.contended, 1);
    CHECK_EQ_L(s.blocks, 1);
    CHECK_EQ_L(s.spin_acquired, 0);
    /* 2. a pure spin lock gives the VP to the holder and gets the lock by spinning. */
    s = run_pair(MPD_ALOCK_FOREVER, 0);
    printf("pure spin, holder on our VP: contended %lu spin_acquired %lu blocks %lu\n", s.contended,
           s.spin_acquired, s.blocks);
    CHECK_EQ_L(s.contended, 1);
    CHECK_EQ_L(s.blocks, 0);
    CHECK_EQ_L(s.spin_acquired, 1);

    /* 3. the default policy: contention moves it away from pure spinning (profile)... */
    L = mpd_alock_create(NULL);
    mpd_thread_t *t[4];
    for (int i = 0; i < 4; i++)
        mpd_thread_fork(&t[i], NULL, contender, NULL);
    for (int i = 0; i < 4; i++)
        mpd_thread_join(t[i], NULL);
    static mpd_alock_sample_t prof[4096];
    size_t n = mpd_alock_profile(L, prof, 4096);
    int moved = 0, max_waiting = 0;
    for (size_t i = 0; i < n; i++) {
        if (prof[i].spin_ns != MPD_ALOCK_DEFAULT_SPIN_MAX_NS)
            moved = 1;
        if (prof[i].waiting > max_waiting)
            max_waiting = prof[i].waiting;
    }
    mpd_alock_stats(L, &s);
    printf("adaptive, contended: %zu samples, max waiting %d, left pure spin %d, blocks %lu\n", n,
           max_waiting, moved, s.blocks);
    CHECK(max_waiting >= 1 && moved && s.blocks > 0);
    mpd_alock_destroy(L);

    /* 4. one long wait (the holder keeps the lock for 5 ms) makes it block... */
    L = mpd_alock_create(NULL);
    holder_yields = 0;
    mpd_thread_t *h, *w;
    mpd_thread_fork(&h, NULL, slow_holder, NULL);
    mpd_thread_fork(&w, NULL, waiter, NULL);
    mpd_thread_join(h, NULL);
    mpd_thread_join(w, NULL);
    for (int i = 0; i < 2; i++) {
        mpd_alock_lock(L);
        mpd_alock_unlock(L);
    } /* reach a monitor sample */
    long sp, sl;
    mpd_alock_get_waiting(L, &sp, &sl);
    printf("adaptive after a 5 ms wait: spin %ld sleep %ld\n", sp, sl);
    CHECK(sp == 0 && sl == MPD_ALOCK_FOREVER);
    /* ...and once nobody has waited for a while it forgets that wait and spins again */
    for (int i = 0; i < 2000; i++) {
        mpd_alock_lock(L);
        mpd_alock_unlock(L);
    }
    mpd_alock_get_waiting(L, &sp, &sl);
    printf("adaptive, quiet again: spin %ld sleep %ld\n", sp, sl);
    CHECK(sp == MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl == MPD_ALOCK_FOREVER);
    mpd_alock_destroy(L);
}

int main(void)
{
    CHECK_EQ_L(mpd_threads_main(1, main_fn, NULL), 0);
    CHECK_DONE();
}
