/* mpd/alock.h: adaptive locks -- a mutex whose waiting policy changes at run time with contention.
 *
 * One lock object covers the whole spectrum the configurable-threads work
 * (Mukherjee & Schwan; Ghosh et al., KSR cthreads) describes, from pure spin
 * to back-off to pure blocking, through two waiting-policy attributes:
 *   spin_ns   how long a waiter spins before it blocks (MPD_ALOCK_FOREVER: never blocks)
 *   sleep_ns  how long a blocked waiter stays blocked before it spins again
 *             (MPD_ALOCK_FOREVER: until an unlock wakes it).  This bounds the
 *             sleep of OS threads; a lightweight thread always stays parked
 *             until an unlock wakes it (parked, it costs neither VP nor CPU)
 * Presets: SPIN = {FOREVER, 0}; BLOCK = {0, FOREVER}; ADAPTIVE starts in the
 * default policy's low-contention state {spin_max (20 us), FOREVER} -- spin,
 * and block only if the wait outlasts the cost of blocking -- and lets the
 * policy move the two values with measured contention.
 *
 * Whatever the waiting policy, a lightweight thread does not spin while the
 * holder is on its own VP (the holder cannot run until the waiter lets the VP
 * go): a pure spin lock yields the VP instead, any other waiting policy
 * yields twice and then blocks.  The same holds one level down: a bounded
 * spin (spin_ns not FOREVER) stops, and the waiter blocks, when the holder's
 * OS thread last ran on the waiter's own CPU -- then the holder is not
 * running (preempted, typically by the waiter's own VP when there are more
 * VPs than CPUs).  The lock word records the holder's CPU, from the rseq area
 * glibc registers (Linux, x86-64); without it the rule is inactive.
 *
 * Monitor: every `sample_every` unlocks the holder samples the number of
 * threads waiting (spinning or blocked), keeps a moving average, appends
 * (time, waiting, spin_ns, sleep_ns) to the lock's contention profile and
 * calls the adaptation policy with what it saw.
 *
 * Attribute mutability and ownership (as in the paper):
 *   - the waiting policy (spin_ns, sleep_ns) is always mutable;
 *   - the scheduling policy (the order in which blocked waiters are woken) is
 *     immutable while any waiter is blocked: changing it then gives EBUSY;
 *   - monitor settings and the policy hook are always mutable;
 *   - an external agent may take exclusive ownership of the attributes with
 *     mpd_alock_attr_acquire(); while it holds them, changes by anyone else
 *     (including the built-in adaptation policy) fail with EPERM.
 *
 * Locks work for OS threads (blocked with futexes) and for lightweight
 * threads of mpd/threads.h, which block their lightweight thread, not the VP.
 * The lock is not recursive.  All functions are thread-safe. */
#ifndef MPD_ALOCK_H
#define MPD_ALOCK_H

#include <stddef.h>
#include <stdio.h>
#include "mpd/rt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MPD_ALOCK_FOREVER (-1L)
#define MPD_ALOCK_DEFAULT_SPIN_MAX_NS 20000L /* the default policy's spin limit */

typedef struct mpd_alock mpd_alock_t;

enum mpd_alock_kind { MPD_ALOCK_SPIN, MPD_ALOCK_BLOCK, MPD_ALOCK_ADAPTIVE };
/* Scheduling policy: which blocked waiter an unlock wakes. */
enum mpd_alock_sched { MPD_ALOCK_WAKE_FIFO, MPD_ALOCK_WAKE_LIFO, MPD_ALOCK_WAKE_PRIORITY };

/* What the monitor hands to the adaptation policy. */
typedef struct {
    double t;           /* seconds since creation, at the latest profile sample */
    int waiting;        /* threads waiting at this sample */
    double avg_waiting; /* exponential moving average of the samples */
    unsigned long acquisitions, contended, blocks, samples;
    long spin_ns, sleep_ns; /* current waiting policy */
    double avg_wait_ns;     /* moving average of how long contended acquisitions waited */
    double avg_spin_ns; /* moving average of the waits won by spinning (a running holder's hold) */
    double spin_fail;   /* moving average 0..1 of contended waits a spin did not win: the
                               * holder was seen off-CPU, or the wait outlasted the spin bound */
} mpd_alock_monitor_t;

typedef void (*mpd_alock_policy_fn)(mpd_alock_t *l, const mpd_alock_monitor_t *m, void *arg);

/* Creation attributes.  Initialise with mpd_alock_attr_init(). */
typedef struct {
    const char *name;           /* for profiles (copied) */
    long spin_ns, sleep_ns;     /* initial waiting policy */
    int sched;                  /* enum mpd_alock_sched */
    int sample_every;           /* monitor period in unlocks (>= 1; default 2) */
    size_t profile_cap;         /* samples kept (0: no profile; default 4096) */
    mpd_alock_policy_fn policy; /* adaptation policy; NULL = static lock */
    void *policy_arg;
} mpd_alock_attr_t;

void mpd_alock_attr_init(mpd_alock_attr_t *a, enum mpd_alock_kind kind);

mpd_alock_t *mpd_alock_create(const mpd_alock_attr_t *a); /* NULL attr: ADAPTIVE */
void mpd_alock_destroy(mpd_alock_t *l);

void mpd_alock_lock(mpd_alock_t *l);
int mpd_alock_trylock(mpd_alock_t *l); /* 0 or EBUSY */
void mpd_alock_unlock(mpd_alock_t *l);

/* ---- attributes ---- */
int mpd_alock_attr_acquire(mpd_alock_t *l, const void *owner); /* 0, EBUSY if owned by another */
int mpd_alock_attr_release(mpd_alock_t *l, const void *owner); /* 0, EPERM if not the owner */
/* owner may be NULL when nobody owns the attributes. Negative values other
 * than MPD_ALOCK_FOREVER give EINVAL. */
int mpd_alock_set_waiting(mpd_alock_t *l, const void *owner, long spin_ns, long sleep_ns);
int mpd_alock_set_sched(mpd_alock_t *l, const void *owner,
                        int sched); /* EBUSY while waiters block */
int mpd_alock_set_policy(mpd_alock_t *l, const void *owner, mpd_alock_policy_fn p, void *arg);
int mpd_alock_set_sample_every(mpd_alock_t *l, const void *owner, int n);
void mpd_alock_get_waiting(const mpd_alock_t *l, long *spin_ns, long *sleep_ns);
int mpd_alock_get_sched(const mpd_alock_t *l);
int mpd_alock_waiting(const mpd_alock_t *l); /* threads waiting right now */
const char *mpd_alock_name(const mpd_alock_t *l);

/* ---- the default adaptation policy ----
 * Spinning pays while a waiter's expected wait is shorter than the cost of
 * blocking and being woken; blocking pays when many threads wait or waits
 * are long (e.g. the holder's VP was descheduled by the OS).  The policy
 * computes f = max((w - low) / (high - low),
 *                  (avg_wait_ns - block_cost_ns) / block_cost_ns)
 * where w = avg_waiting - (cpus - 1): waiters that can each spin on a CPU
 * of their own while the holder runs on another do not count (w =
 * avg_waiting when the runtime runs more VPs than there are CPUs: then a
 * spinning waiter holds a CPU that another VP needs; with oversub_block set
 * the lock then blocks as long as avg_waiting or avg_wait_ns is not 0)
 * and for f <= 0 spins (for at most the spin bound, then blocks until woken:
 * spinning about as long as a block costs is never worse than twice the
 * better choice, which bounds the damage of a descheduled holder), for
 * f >= 1 blocks (after spin_min_ns), and backs off in between (spin
 * shrinking from the spin bound, sleep growing to sleep_max_ns, in eighths
 * of the way so that small changes do not rewrite the waiting policy).  The spin
 * bound is spin_holds x avg_spin_ns -- a few times what a waiter that won by
 * spinning waited, i.e. how long a running holder keeps the lock -- rounded
 * up to spin_floor_ns x 2^k and at most spin_max_ns (spin_max_ns until a
 * spin win was measured; a bound in force stays while it is 1-4 times the
 * target): a wait much longer than that is almost always a holder that is
 * not running.  A bounded spin backs off exponentially between looks (up
 * to ~1 us), so that a lock taken and released at a high rate stays with
 * the CPU that holds it instead of moving at every release; and where the
 * holder re-takes the lock again and again in front of its waiters, they
 * look only every ~1 us from the start (late looks, probed and kept while
 * the lock is taken at least late_passes times per wait).  Spin failures
 * override the rest: while
 * spin_fail (the share of recent contended waits that a spin did not win)
 * is at least fail_high the lock blocks at once, and it spins again only
 * once spin_fail is below fail_low (hysteresis).  The averages forget:
 * samples with nobody waiting pull avg_waiting to 0, and samples with no
 * contended acquisition since the previous one decay avg_wait_ns and
 * spin_fail, so a lock whose contention is over spins again.  When nothing
 * changed (nobody waits or waited, the averages 0) the monitor does not call
 * the default policy at all, so an uncontended adaptive lock costs what a
 * static one does.  Pass a mpd_alock_default_params_t* as policy_arg, or
 * NULL for defaults (low 0.25, high 1, spin_max 20 us, spin_min 0,
 * sleep_max 50 us, block_cost 20 us, spin_holds 8, spin_floor 4 us,
 * fail_high 0.5, fail_low 0.2, cpus = the CPUs the process may run on,
 * no trial, oversub_block off).  With trial_acq > 0, while the lock is contended the policy
 * also measures whether blocking gets it more acquisitions per second than
 * its rules' choice, and blocks when it does (the trial). */
typedef struct {
    double low, high;
    long spin_max_ns, spin_min_ns, sleep_max_ns, block_cost_ns;
    /* added later; 0 = default: spin bound = spin_holds (8) x avg_spin_ns,
     * at least spin_floor_ns (4 us); block at once from spin_fail >= fail_high
     * (0.5) on, until it falls below fail_low (0.2) */
    double spin_holds;
    long spin_floor_ns;
    double fail_high, fail_low;
    /* added later; 0 = the CPUs the process may run on: avg_waiting counts
     * against low/high only beyond cpus - 1 (waiters that can each spin on a
     * CPU of their own while the holder runs; cpus = 1, or more VPs than
     * cpus: every waiter counts) */
    int cpus;
    /* added later: the trial (docs/threads.md), off unless trial_acq > 0:
     * epochs of trial_acq acquisitions (1024 measured), one in trial_every
     * (0 = 8) with the other choice */
    long trial_acq;
    int trial_every;
    /* added later; 0 = off: with more VPs than CPUs, block while any
     * contention is remembered (a spinning waiter holds a CPU that another
     * VP may need).  It helps on a machine loaded by other work and costs
     * when the machine is idle; the spin-failure rule blocks anyway when
     * holders are really preempted */
    int oversub_block;
    /* added later; 0 = 3: late looks (docs/threads.md) -- a bounded spin
     * looks at the lock word only every ~1 us while the lock is taken at
     * least late_passes times in front of a waiter per wait, probed from time
     * to time; negative: never look late */
    double late_passes;
    /* added later; 0 = default: with more VPs than CPUs the waiter average
     * does not make the lock block (a backed-off waiter gives its CPU back
     * to the OS at every look then, so a spinning waiter takes no CPU that a
     * runnable VP needs; only waits a spin does not win -- spin failures, or
     * waits longer than a block costs -- make it block); 1: every waiter
     * counts against low/high then, as before (docs/threads.md) */
    int oversub_waiters;
} mpd_alock_default_params_t;
void mpd_alock_default_policy(mpd_alock_t *l, const mpd_alock_monitor_t *m, void *arg);

/* ---- statistics and contention profile ---- */
typedef struct {
    unsigned long acquisitions, contended, spin_acquired, blocks, sleep_timeouts, samples,
        adaptations;
    /* spins that ended without the lock (then the waiter blocked), and of
     * those, the ones cut short because the holder was seen off-CPU */
    unsigned long spin_failed, holder_off_cpu;
    /* times a backed-off waiter gave its CPU back to the OS (sched_yield):
     * only when the runtime runs more VPs than there are CPUs */
    unsigned long os_yields;
} mpd_alock_stats_t;
void mpd_alock_stats(mpd_alock_t *l, mpd_alock_stats_t *s);

typedef struct {
    double t;
    int waiting;
    long spin_ns, sleep_ns;
} mpd_alock_sample_t;
/* Copy up to max samples (oldest first); returns the number copied.  When
 * the profile fills up it keeps every other sample and samples half as often,
 * so it always spans the whole run. */
size_t mpd_alock_profile(mpd_alock_t *l, mpd_alock_sample_t *out, size_t max);
/* Write the profile as text: a "# lock NAME" header, then lines
 * "t_seconds waiting spin_us sleep_us" (sleep -1 = until woken). */
int mpd_alock_profile_write(mpd_alock_t *l, FILE *f);

/* ---- for thread packages: how waiters spin and block ----
 * mpd/threads.h installs a backend so lightweight threads block in the
 * runtime; without one (or when cur() returns NULL) OS threads block on a
 * futex.  For a lightweight thread, park(self, held) is called with the
 * lock's queue spin lock held and the waiter queued: it must block the
 * thread and release `held` only once the thread is switched out (mpd_park);
 * unpark(t) makes it ready again.  relax() is called while spinning or
 * backing off (e.g. to let other lightweight threads of the VP run).  A
 * lock is used either by lightweight threads or by plain OS threads, not by
 * both at once. */
typedef struct {
    void *(*cur)(void);
    void (*park)(void *self, mpd_spinlock *held);
    void (*unpark)(void *t);
    void (*relax)(void);
} mpd_alock_backend_t;
void mpd_alock_set_backend(const mpd_alock_backend_t *b);

#ifdef __cplusplus
}
#endif
#endif
