/* apps_common.h: shared helpers of the TSP and PHOLD applications (lock choice, timing, profiles). */
#ifndef BENCH_APPS_COMMON_H
#define BENCH_APPS_COMMON_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mpd/alock.h"
#include "mpd/threads.h"

static enum mpd_alock_kind app_lock_kind(const char *s) {
    if (!strcmp(s, "spin")) return MPD_ALOCK_SPIN;
    if (!strcmp(s, "block")) return MPD_ALOCK_BLOCK;
    if (!strcmp(s, "adaptive")) return MPD_ALOCK_ADAPTIVE;
    fprintf(stderr, "lock kind must be spin, block or adaptive (got '%s')\n", s);
    exit(2);
}

static mpd_alock_t *app_lock(const char *name, enum mpd_alock_kind k) {
    mpd_alock_attr_t a;
    mpd_alock_attr_init(&a, k);
    a.name = name;
    mpd_alock_t *l = mpd_alock_create(&a);
    if (!l) { fprintf(stderr, "out of memory\n"); exit(1); }
    return l;
}

static double app_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Append lock l's contention profile to dir/<prefix>-<lock name>.dat. */
static void app_write_profile(const char *dir, const char *prefix, mpd_alock_t *l) {
    if (!dir) return;
    char path[512];
    snprintf(path, sizeof path, "%s/%s-%s.dat", dir, prefix, mpd_alock_name(l));
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); return; }
    mpd_alock_profile_write(l, f);
    fclose(f);
}

/* Lock statistics summed over an application's locks, printed after its timing. */
static mpd_alock_stats_t app_stats_sum;
static void app_stats_add(mpd_alock_t *l) {
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
static void app_stats_print(void) {
    printf(" acquisitions=%lu contended=%lu spin_acquired=%lu blocks=%lu adaptations=%lu spin_failed=%lu"
           " holder_off_cpu=%lu os_yields=%lu\n",
           app_stats_sum.acquisitions, app_stats_sum.contended, app_stats_sum.spin_acquired,
           app_stats_sum.blocks, app_stats_sum.adaptations, app_stats_sum.spin_failed,
           app_stats_sum.holder_off_cpu, app_stats_sum.os_yields);
}

/* Pin one worker per VP: VPs do not migrate threads. */
static inline void app_sched_pinned(void) {
    mpd_sched_attr_t s;
    mpd_sched_attr_init(&s);
    s.migrate = 0;
    mpd_sched_install(-1, &s);
}
#endif
