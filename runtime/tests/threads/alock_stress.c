/* alock_stress.c: mutual exclusion of spin/block/adaptive locks with attributes changed mid-run; adaptation direction. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include "mpd/alock.h"
#include "check.h"

#define NTH 6
#define ITERS 20000
static mpd_alock_t *L;
static long counter, shadow;
static atomic_int stop_agent;

static void *worker(void *arg)
{
    int work = (int)(long)arg;
    for (int i = 0; i < ITERS; i++) {
        mpd_alock_lock(L);
        long c = counter;
        for (volatile int d = 0; d < work; d++) {
        }
        counter = c + 1;
        shadow++;
        mpd_alock_unlock(L);
    }
    return NULL;
}

/* An external agent that keeps flipping the waiting policy. */
static void *agent(void *arg)
{
    (void)arg;
    unsigned k = 0;
    while (!atomic_load(&stop_agent)) {
        switch (k++ % 3) {
        case 0:
            mpd_alock_set_waiting(L, NULL, MPD_ALOCK_FOREVER, 0);
            break;
        case 1:
            mpd_alock_set_waiting(L, NULL, 0, MPD_ALOCK_FOREVER);
            break;
        default:
            mpd_alock_set_waiting(L, NULL, 2000, 5000);
            break;
        }
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void run(enum mpd_alock_kind kind, int nth, int work, int with_agent, const char *what)
{
    mpd_alock_attr_t a;
    mpd_alock_attr_init(&a, kind);
    L = mpd_alock_create(&a);
    counter = shadow = 0;
    pthread_t t[NTH], ag;
    atomic_store(&stop_agent, 0);
    if (with_agent)
        pthread_create(&ag, NULL, agent, NULL);
    for (int i = 0; i < nth; i++)
        pthread_create(&t[i], NULL, worker, (void *)(long)work);
    for (int i = 0; i < nth; i++)
        pthread_join(t[i], NULL);
    atomic_store(&stop_agent, 1);
    if (with_agent)
        pthread_join(ag, NULL);
    mpd_alock_stats_t s;
    mpd_alock_stats(L, &s);
    printf("%-22s count %ld/%d contended %lu blocks %lu adapt %lu\n", what, counter, nth * ITERS,
           s.contended, s.blocks, s.adaptations);
    CHECK_EQ_L(counter, (long)nth * ITERS);
    CHECK_EQ_L(shadow, (long)nth * ITERS);
    CHECK_EQ_L(mpd_alock_waiting(L), 0);
}

int main(void)
{
    run(MPD_ALOCK_SPIN, 3, 50, 0, "spin");
    mpd_alock_destroy(L);
    run(MPD_ALOCK_BLOCK, NTH, 50, 0, "block");
    mpd_alock_destroy(L);
    run(MPD_ALOCK_BLOCK, NTH, 50, 1, "mutated by agent");
    mpd_alock_destroy(L);

    /* Heavy contention: many OS threads, long critical sections -> the
     * default policy must have moved the lock to blocking at some point. */
    run(MPD_ALOCK_ADAPTIVE, NTH, 2000, 0, "adaptive, contended");
    mpd_alock_sample_t s[4096];
    size_t n = mpd_alock_profile(L, s, 4096);
    int saw_block = 0, max_wait = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].spin_ns == 0 && s[i].sleep_ns == MPD_ALOCK_FOREVER)
            saw_block = 1; /* pure block */
        if (s[i].waiting > max_wait)
            max_wait = s[i].waiting;
    }
    printf("  profile: %zu samples, max waiting %d, blocked mode seen %d\n", n, max_wait,
           saw_block);
    CHECK(n > 100);
    CHECK(max_wait >= 2);
    CHECK(saw_block);
    mpd_alock_destroy(L);

    /* No contention: a single thread keeps the lock spinning. */
    run(MPD_ALOCK_ADAPTIVE, 1, 10, 0, "adaptive, alone");
    long sp, sl;
    mpd_alock_get_waiting(L, &sp, &sl);
    CHECK(sp == MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl == MPD_ALOCK_FOREVER);
    mpd_alock_destroy(L);
    CHECK_DONE();
}
