/* threads_pinned.c: threads pinned to every VP (no migration) all get to run, even when the
 * other VPs spin: work queued for a sleeping VP must wake that VP. */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include "mpd/threads.h"
#include "check.h"

#define NVP 3
#define ROUNDS 200
static atomic_int arrived, gen;
static int wrong_vp;

static void spin_barrier(void)
{
    int g = atomic_load(&gen);
    if (atomic_fetch_add(&arrived, 1) == NVP - 1) {
        atomic_store(&arrived, 0);
        atomic_fetch_add(&gen, 1);
        return;
    }
    while (atomic_load(&gen) == g)
        sched_yield(); /* spins: never lets its VP go idle */
}

static void *worker(void *arg)
{
    int vp = (int)(long)arg;
    for (int i = 0; i < ROUNDS; i++) {
        if (mpd_vp_index() != vp)
            wrong_vp++;
        spin_barrier();
    }
    return NULL;
}

static void main_fn(void *arg)
{
    (void)arg;
    for (int rep = 0; rep < 20; rep++) {
        mpd_thread_t *t[NVP];
        for (int i = 0; i < NVP; i++) {
            mpd_thread_attr_t a;
            mpd_thread_attr_init(&a);
            a.vp = i;
            mpd_thread_fork(&t[i], &a, worker, (void *)(long)i);
        }
        for (int i = 0; i < NVP; i++)
            mpd_thread_join(t[i], NULL);
    }
}

int main(void)
{
    mpd_sched_attr_t s;
    mpd_sched_attr_init(&s);
    s.migrate = 0;
    CHECK_EQ_L(mpd_sched_install(-1, &s), 0);
    CHECK_EQ_L(mpd_threads_main(NVP, main_fn, NULL), 0);
    CHECK_EQ_L(wrong_vp, 0);
    CHECK_EQ_L(atomic_load(&gen), 20 * ROUNDS);
    CHECK_DONE();
}
