/* apps_common.h: shared helpers of the TSP and PHOLD applications (lock choice, timing, profiles). */
#ifndef BENCH_APPS_COMMON_H
#define BENCH_APPS_COMMON_H
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mpd/alock.h"
#include "mpd/threads.h"

/* The lock kinds the applications compare (issue 22: strong static baselines):
 *   spin      tight test-and-test-and-set, never blocks (MPD_ALOCK_SPIN)
 *   block     blocks at once (MPD_ALOCK_BLOCK)
 *   backoff   backed-off spin: the bounded spin's exponential pauses, for up
 *             to 1 s, then block -- in practice never blocks (static)
 *   spinblock fixed spin-then-block: spin 20 us (the block cost measured
 *             here), then block until woken (static, no policy)
 *   adaptive  the adaptive lock with its default policy
 *   pthread   glibc's pthread_mutex_t (one worker per VP, and holders never
 *             yield inside a critical section, so blocking the VP is safe) */
enum app_kind { APP_SPIN, APP_BLOCK, APP_BACKOFF, APP_SPINBLOCK, APP_ADAPTIVE, APP_PTHREAD };

static enum app_kind app_lock_kind(const char *s)
{
    static const char *names[] = {"spin", "block", "backoff", "spinblock", "adaptive", "pthread"};
    for (int i = 0; i < 6; i++)
        if (!strcmp(s, names[i]))
            return (enum app_kind)i;
    fprintf(stderr,
            "lock kind must be spin, block, backoff, spinblock, adaptive or pthread (got '%s')\n",
            s);
    exit(2);
}

typedef struct app_lock_t {
    mpd_alock_t *al; /* NULL for pthread */
    pthread_mutex_t pm;
} app_lock_t;

static app_lock_t *app_lock(const char *name, enum app_kind k)
{
    app_lock_t *l = calloc(1, sizeof *l);
    if (!l) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    if (k == APP_PTHREAD) {
        pthread_mutex_init(&l->pm, NULL);
        return l;
    }
    mpd_alock_attr_t a;
    mpd_alock_attr_init(&a, k == APP_SPIN       ? MPD_ALOCK_SPIN
                            : k == APP_ADAPTIVE ? MPD_ALOCK_ADAPTIVE
                                                : MPD_ALOCK_BLOCK);
    if (k == APP_BACKOFF) {
        a.spin_ns = 1000000000L;
        a.sleep_ns = MPD_ALOCK_FOREVER;
    }
    if (k == APP_SPINBLOCK) {
        a.spin_ns = 20000;
        a.sleep_ns = MPD_ALOCK_FOREVER;
    }
    const char *v = getenv(
        "APP_ADAPTIVE"); /* oversub|trial|nolate|oversubwait: a default-policy variant, to measure it */
    if (k == APP_ADAPTIVE && v && *v) {
        /* the documented defaults (mpd/alock.h), then the variant */
        static mpd_alock_default_params_t p = {.low = 0.25,
                                               .high = 1.0,
                                               .spin_max_ns = MPD_ALOCK_DEFAULT_SPIN_MAX_NS,
                                               .sleep_max_ns = 50000,
                                               .block_cost_ns = 20000};
        if (strcmp(v, "oversub") == 0)
            p.oversub_block = 1;
        else if (strcmp(v, "trial") == 0)
            p.trial_acq = 1024;
        else if (strcmp(v, "nolate") == 0)
            p.late_passes = -1;
        else if (strcmp(v, "oversubwait") == 0)
            p.oversub_waiters = 1;
        a.policy_arg = &p;
    }
    a.name = name;
    l->al = mpd_alock_create(&a);
    if (!l->al) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return l;
}

static inline void app_acquire(app_lock_t *l)
{
    if (__builtin_expect(l->al != NULL, 1))
        mpd_alock_lock(l->al);
    else
        pthread_mutex_lock(&l->pm);
}
static inline void app_release(app_lock_t *l)
{
    if (__builtin_expect(l->al != NULL, 1))
        mpd_alock_unlock(l->al);
    else
        pthread_mutex_unlock(&l->pm);
}

static double app_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Append lock l's contention profile to dir/<prefix>-<lock name>.dat. */
static void app_write_profile(const char *dir, const char *prefix, app_lock_t *al)
{
    mpd_alock_t *l = al->al;
    if (!dir || !l)
        return;
    char path[512];
    snprintf(path, sizeof path, "%s/%s-%s.dat", dir, prefix, mpd_alock_name(l));
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    mpd_alock_profile_write(l, f);
    fclose(f);
}

/* Lock statistics summed over an application's locks, printed after its timing. */
static mpd_alock_stats_t app_stats_sum;
static void app_stats_add(app_lock_t *al)
{
    mpd_alock_t *l = al->al;
    if (!l)
        return;
    mpd_alock_stats_t s;
    mpd_alock_stats(l, &s);
    app_stats_sum.acquisitions += s.acquisitions;
    app_stats_sum.contended += s.contended;
    app_stats_sum.spin_acquired += s.spin_acquired;
    app_stats_sum.blocks += s.blocks;
    app_stats_sum.adaptations += s.adaptations;
    app_stats_sum.spin_failed += s.spin_failed;
    app_stats_sum.holder_off_cpu += s.holder_off_cpu;
    app_stats_sum.os_yields += s.os_yields;
}
static void app_stats_print(void)
{
    printf(" acquisitions=%lu contended=%lu spin_acquired=%lu blocks=%lu adaptations=%lu "
           "spin_failed=%lu"
           " holder_off_cpu=%lu os_yields=%lu\n",
           app_stats_sum.acquisitions, app_stats_sum.contended, app_stats_sum.spin_acquired,
           app_stats_sum.blocks, app_stats_sum.adaptations, app_stats_sum.spin_failed,
           app_stats_sum.holder_off_cpu, app_stats_sum.os_yields);
}

/* Pin one worker per VP: VPs do not migrate threads. */
static inline void app_sched_pinned(void)
{
    mpd_sched_attr_t s;
    mpd_sched_attr_init(&s);
    s.migrate = 0;
    mpd_sched_install(-1, &s);
}
#endif
