/* adaptive_impl.h: internal layout of the adaptive lock, shared by the adaptive_*.c files. */
#ifndef MPD_SYNC_ADAPTIVE_IMPL_H
#define MPD_SYNC_ADAPTIVE_IMPL_H
#include "mpd/alock.h"
#include <stdatomic.h>

/* A blocked waiter, on its own stack.  woken: 0 waiting, 1 popped and being
 * unparked, 2 the unlocker no longer touches it. */
typedef struct alock_waiter {
    struct alock_waiter *next;
    void *thread;
    int prio;
    atomic_int woken;
} alock_waiter;

/* The default policy's trial (adaptive_trial.c), kept by the holder.  arm:
 * the choice of the current epoch, 0 the rules', 1 block; best: the one
 * kept; score: moving average of log(acquisition rate while blocking / rate
 * with the rules' choice) over adjacent epochs. */
typedef struct alock_trial {
    unsigned long start_acq; /* acquisitions when the epoch began */
    long start_ns;           /* and the clock (0: no epoch yet) */
    double last_rate;        /* acquisitions per ns of the last epoch */
    double score;
    unsigned epoch, pairs;
    signed char arm, last_arm, best;
} alock_trial;
/* One step: call at each policy call with the acquisitions so far; reads the
 * clock only when an epoch of epoch_acq acquisitions ends.  Returns the arm
 * to apply. */
int mpd_alock__trial(alock_trial *t, unsigned long acq, long (*clock)(void), long epoch_acq,
                     int every);

struct mpd_alock {
    /* 0 free; held: 3 + the CPU the holder took it on, or 1-2 if that is
     * unknown (adaptive_lock.c, held_here).
     * The holder's CPU is part of the word that says "held" so that a waiter
     * never reads a previous holder's CPU: kept beside it, it was stored just
     * after the acquiring cmpxchg, and a waiter that had itself just released
     * the lock on its own CPU read its own CPU there in that window -- in TSP
     * at 2 VPs this made ~97% of the "holder off-CPU" verdicts (spin failures,
     * then blocks) while the holder was running on the other CPU. */
    atomic_int state;
    atomic_int waiting;  /* threads in the slow path (the monitored value) */
    atomic_int nblocked; /* of which queued */
    /* the holder's OS thread (VP), or NULL: a waiter on the same VP must not
     * spin, the holder cannot run until the waiter gives the VP up */
    const void *_Atomic holder_vp;
    mpd_spinlock qlock;
    alock_waiter *qhead, *qtail; /* under qlock */

    /* waiting and scheduling policy (read by every spinning waiter: beside
     * the lock word) */
    atomic_long spin_ns, sleep_ns;
    /* 1: a bounded spin looks at the lock word only every ~1 us from the
     * start, instead of backing off from 1 pause (set by the default policy
     * when holders keep re-taking the lock in front of waiters: "late looks",
     * adaptive_lock.c spin_phase) */
    atomic_int late_looks;
    /* scheduling policy (read by blocking waiters) */
    atomic_int sched;
    /* ownership: the agent allowed to change attributes (NULL: anyone) */
    const void *_Atomic owner;

    /* From here on, what the holder writes and reads, on lines of their own
     * so that waiters polling the lock word do not take them from it.  First
     * what every unlock or sample touches, on one line: a sample that finds
     * nothing new reads only these (and `waiting`). */
    _Alignas(64) int sample_left; /* unlocks until the next sample (holder only) */
    atomic_int sample_every;
    atomic_ulong acquisitions;
    atomic_ulong st_samples;
    unsigned long prof_next; /* st_samples value of the next profile sample (ULONG_MAX: none) */
    /* Why a sample may not be quiet, in one word so that the quiet check tests
     * it once (MPD_ALOCK__LOUD_*): bits set and cleared with interlocked
     * instructions, and only when they change, by their one writer each. */
    atomic_int loud;
    unsigned long contended_seen; /* st_contended at the last sample (holder only) */
    /* counted by the holder (single writer: a contended acquisition counts
     * its wait once it holds the lock) */
    atomic_ulong st_contended;

    /* the rest of the monitor: written by the lock holder */
    atomic_ulong st_spin_acq, st_adapt, st_spin_failed, st_holder_off;
    double avg_waiting;
    double avg_wait_ns; /* EWMA of contended waits (holder only) */
    double avg_spin_ns; /* EWMA of waits won by spinning: what a running holder takes */
    double spin_fail;   /* EWMA 0..1: contended waits a spin would not have won */
    /* late looks, measured (holder only): waits won by spinning with late
     * looks since the last verdict, and the acquisitions by others during
     * them; policy runs until the next probe of late looks, and the gap */
    unsigned long late_n, late_passes;
    int probe_wait, probe_gap;
    int idle_samples;          /* samples that saw nothing new, their decay not yet applied */
    int busy_samples;          /* busy samples since the default policy last ran (holder only) */
#define POLICY_BATCH_NOW 1000  /* busy_samples value that makes the next busy sample run it */
    unsigned long policy_runs; /* times the monitor called the policy (holder only; for tests) */
    mpd_alock_policy_fn _Atomic policy;
    void *_Atomic policy_arg;
    alock_trial trial; /* the default policy's (holder only) */

    /* counted by waiters (interlocked), apart from what the holder reads */
    _Alignas(64) atomic_ulong st_blocks, st_timeouts, st_os_yields;

    /* contention profile: written by the holder, read by the export, both
     * under prof_lk -- not under the lock itself, which a policy calling the
     * export already holds (the monitor runs in unlock) */
    mpd_spinlock prof_lk;
    mpd_alock_sample_t *prof;
    size_t prof_cap, prof_len;
    unsigned long prof_stride;
    long created_ns;
    double last_t; /* time of the last profile sample */
    char name[48];
};

/* Bits of mpd_alock.loud.  WARM: avg_waiting, avg_wait_ns or spin_fail is not
 * 0 (the holder's).  POLICY: the policy is one's own, which sees every sample
 * (mpd_alock_set_policy's, under qlock). */
enum { MPD_ALOCK__LOUD_WARM = 1, MPD_ALOCK__LOUD_POLICY = 2 };
static inline void mpd_alock__set_loud(mpd_alock_t *l, int bit, int on)
{
    int v = atomic_load_explicit(&l->loud, memory_order_relaxed);
    if (on && !(v & bit))
        atomic_fetch_or_explicit(&l->loud, bit, memory_order_relaxed);
    else if (!on && (v & bit))
        atomic_fetch_and_explicit(&l->loud, ~bit, memory_order_relaxed);
}
static inline int mpd_alock__policy_is_own(mpd_alock_policy_fn p)
{
    return p != NULL && p != mpd_alock_default_policy;
}

/* Relaxed single-writer counter bump (no interlocked instruction); INC when
 * the new value is not needed. */
#define INC(x)                                                                                     \
    atomic_store_explicit(&(x), atomic_load_explicit(&(x), memory_order_relaxed) + 1,              \
                          memory_order_relaxed)
#define BUMP(x)                                                                                    \
    (atomic_store_explicit(&(x), atomic_load_explicit(&(x), memory_order_relaxed) + 1,             \
                           memory_order_relaxed),                                                  \
     atomic_load_explicit(&(x), memory_order_relaxed))

/* Identity of the calling OS thread, i.e. of its VP for lightweight threads. */
extern _Thread_local char mpd_alock__vp_tag;
static inline const void *mpd_alock__my_vp(void)
{
    return &mpd_alock__vp_tag;
}

/* The CPU the calling OS thread runs on, from the kernel-maintained rseq area
 * that glibc registers (one TLS load); negative when unknown (glibc stores a
 * negative cpu_id when registration failed or is turned off, e.g. under
 * valgrind). */
#if defined(__x86_64__) && defined(__linux__) && __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
static inline int mpd_alock__my_cpu(void)
{
    const struct rseq *rs =
        (const struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
    return (int)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);
}
#else
static inline int mpd_alock__my_cpu(void)
{
    return -1;
}
#endif

long mpd_alock__now_ns(void);
int mpd_alock__usable_cpus(void); /* CPUs this process may run on (read once) */
void mpd_alock__sample(mpd_alock_t *l);
void mpd_alock__lock_slow(mpd_alock_t *l, int prio);
/* Priority of the calling thread for MPD_ALOCK_WAKE_PRIORITY (threads layer). */
extern int (*_Atomic mpd_alock__prio_hook)(void);
static inline int mpd_alock__cur_prio(void)
{
    int (*h)(void) = atomic_load_explicit(&mpd_alock__prio_hook, memory_order_relaxed);
    return h ? h() : 0;
}
#endif
