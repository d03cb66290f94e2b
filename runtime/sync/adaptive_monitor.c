/* adaptive_monitor.c: adaptive-lock monitor, attribute ownership, default policy, profile export. */
#include "sync/adaptive_impl.h"
#include "core/rt_internal.h" /* mpd__nvp: the runtime's VPs (1 without it) */

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

int (*_Atomic mpd_alock__prio_hook)(void);

/* ---- monitor (runs in unlock, by the holder) ---- */
/* Append a profile sample (the clock is read only here, which keeps the
 * monitor cheap on busy uncontended locks). */
static void profile_add(mpd_alock_t *l, mpd_alock_monitor_t *m)
{
    mpd_spin_lock(&l->prof_lk);
    if (l->prof_len == l->prof_cap) { /* full: keep every other, sample half as often */
        for (size_t i = 0; i < l->prof_cap / 2; i++)
            l->prof[i] = l->prof[2 * i + 1];
        l->prof_len = l->prof_cap / 2;
        l->prof_stride *= 2;
    }
    m->t = (double)(mpd_alock__now_ns() - l->created_ns) * 1e-9;
    l->last_t = m->t;
    mpd_alock_sample_t s = {m->t, m->waiting, m->spin_ns, m->sleep_ns};
    l->prof[l->prof_len++] = s;
    mpd_spin_unlock(&l->prof_lk);
}

/* Samples that saw nothing new (nobody waits, nobody waited since the last
 * one) only decay the averages; with the default policy or none, that decay
 * is applied IDLE_BATCH samples at a time (0.875^k at once gives the same
 * averages) and the policy sees the result then.  A lightly contended lock,
 * whose averages are rarely all 0, would otherwise run the policy at every
 * sample: with warm averages 122 instead of 82 instructions per lock+unlock
 * (callgrind), which is what a spin lock saved in PHOLD at 4 VPs. */
#define IDLE_BATCH 8
/* Busy samples (somebody waits or waited) update the averages every time,
 * but the default policy runs at every POLICY_BATCH-th of them only: the
 * monitor runs in the holder's critical section, and on a lock taken every
 * few hundred ns (TSP's work queue) a policy run at every second unlock
 * lengthened the holds enough to double the contended acquisitions under
 * load (185k vs spin's 97k per run) and cost ~30% (docs/threads.md).  Its
 * inputs are averages with a time constant of ~8 samples, so a decision
 * every 4 samples loses nothing; a contended wait that a spin did not win
 * makes the next sample run it (mpd_alock__lock_slow), so a holder seen
 * off-CPU or a long wait still turns the lock to blocking at once.  A
 * policy of one's own still sees every sample. */
#define POLICY_BATCH 4
static inline int is_warm(const mpd_alock_t *l)
{
    return atomic_load_explicit(&l->loud, memory_order_relaxed) & MPD_ALOCK__LOUD_WARM;
}
static void set_warm(mpd_alock_t *l)
{
    mpd_alock__set_loud(l, MPD_ALOCK__LOUD_WARM,
                        l->avg_waiting != 0 || l->avg_wait_ns != 0 || l->spin_fail != 0);
}
static void decay(mpd_alock_t *l, int k)
{
    static const double f[IDLE_BATCH + 1] = {1,
                                             0.875,
                                             0.765625,
                                             0.669921875,
                                             0.586181640625,
                                             0.512908935546875,
                                             0.448795318603515625,
                                             0.39269590377807617,
                                             0.34360891580581665};
    double d = f[k];
    l->avg_waiting *= d;
    if (l->avg_waiting < 1e-3)
        l->avg_waiting = 0; /* settle instead of decaying forever */
    l->avg_wait_ns *= d;
    if (l->avg_wait_ns < 1)
        l->avg_wait_ns = 0;
    l->spin_fail *= d;
    if (l->spin_fail < 1e-3)
        l->spin_fail = 0;
    l->idle_samples = 0;
    set_warm(l);
}

/* The rest of a sample that is not quiet (see below). */
static __attribute__((noinline)) void sample_full(mpd_alock_t *l, unsigned long n)
{
    int prof_due = n == l->prof_next;
    mpd_alock_policy_fn p = atomic_load_explicit(&l->policy, memory_order_acquire);
    int waiting = atomic_load_explicit(&l->waiting, memory_order_relaxed);
    unsigned long contended = atomic_load_explicit(&l->st_contended, memory_order_relaxed);
    int lazy = !p || p == mpd_alock_default_policy;
    if (waiting == 0 && contended == l->contended_seen) {
        if (!is_warm(l)) {
            if (lazy)
                p = NULL; /* quiet: a profile sample alone */
        } else if (lazy && ++l->idle_samples < IDLE_BATCH) {
            if (!prof_due)
                return;
            p = NULL; /* decayed later, in one step */
        } else {
            decay(l, lazy ? l->idle_samples : 1);
        }
    } else {
        if (l->idle_samples)
            decay(l, l->idle_samples); /* the idle samples before this one */
        l->avg_waiting += (waiting - l->avg_waiting) * 0.125;
        if (l->avg_waiting < 1e-3)
            l->avg_waiting = 0;
        if (contended == l->contended_seen) { /* nobody new waited: forget old waits */
            l->avg_wait_ns *= 0.875;
            if (l->avg_wait_ns < 1)
                l->avg_wait_ns = 0;
            l->spin_fail *= 0.875;
            if (l->spin_fail < 1e-3)
                l->spin_fail = 0;
        }
        l->contended_seen = contended;
        set_warm(l);
        /* the default policy sees every POLICY_BATCH-th busy sample (see above) */
        if (lazy && p && ++l->busy_samples < POLICY_BATCH) {
            if (!prof_due)
                return;
            p = NULL;
        }
    }
    if (p)
        l->busy_samples = 0;
    if (!prof_due && !p)
        return;
    mpd_alock_monitor_t m;
    m.waiting = waiting;
    m.avg_waiting = l->avg_waiting;
    m.acquisitions = atomic_load_explicit(&l->acquisitions, memory_order_relaxed);
    m.contended = contended;
    m.blocks = atomic_load_explicit(&l->st_blocks, memory_order_relaxed);
    m.samples = n;
    m.spin_ns = atomic_load_explicit(&l->spin_ns, memory_order_relaxed);
    m.sleep_ns = atomic_load_explicit(&l->sleep_ns, memory_order_relaxed);
    m.t = l->last_t;
    m.avg_wait_ns = l->avg_wait_ns;
    m.avg_spin_ns = l->avg_spin_ns;
    m.spin_fail = l->spin_fail;
    if (prof_due) {
        profile_add(l, &m);
        l->prof_next = n + l->prof_stride;
    }
    if (p) {
        l->policy_runs++;
        p(l, &m, atomic_load_explicit(&l->policy_arg, memory_order_relaxed));
    }
}

/* Quiet: nobody waits, nobody waited since the last sample, the averages
 * are 0 and the policy is the default one or none (nothing loud) and no
 * profile sample is due.  Then the default policy's inputs are unchanged
 * and it would decide as before, so it is not called: an uncontended
 * adaptive lock costs what a static one does -- the same instructions, as
 * the policy's kind is folded into `loud` when it is set. */
void mpd_alock__sample(mpd_alock_t *l)
{
    unsigned long n = atomic_load_explicit(&l->st_samples, memory_order_relaxed) + 1;
    atomic_store_explicit(&l->st_samples, n, memory_order_relaxed);
    if (n != l->prof_next && !atomic_load_explicit(&l->loud, memory_order_relaxed) &&
        atomic_load_explicit(&l->waiting, memory_order_relaxed) == 0 &&
        atomic_load_explicit(&l->st_contended, memory_order_relaxed) == l->contended_seen)
        return;
    sample_full(l, n);
}

/* ---- ownership ---- */
int mpd_alock_attr_acquire(mpd_alock_t *l, const void *owner)
{
    const void *none = NULL;
    if (!owner)
        return EINVAL;
    if (atomic_compare_exchange_strong(&l->owner, &none, owner) || none == owner)
        return 0;
    return EBUSY;
}

int mpd_alock_attr_release(mpd_alock_t *l, const void *owner)
{
    const void *o = owner;
    return owner && atomic_compare_exchange_strong(&l->owner, &o, NULL) ? 0 : EPERM;
}

static int may_change(mpd_alock_t *l, const void *who)
{
    const void *o = atomic_load(&l->owner);
    return o == NULL || o == who;
}

/* ---- attributes ---- */
int mpd_alock_set_waiting(mpd_alock_t *l, const void *owner, long spin_ns, long sleep_ns)
{
    if ((spin_ns < 0 && spin_ns != MPD_ALOCK_FOREVER) ||
        (sleep_ns < 0 && sleep_ns != MPD_ALOCK_FOREVER))
        return EINVAL;
    if (!may_change(l, owner))
        return EPERM;
    atomic_store_explicit(&l->spin_ns, spin_ns, memory_order_relaxed);
    atomic_store_explicit(&l->sleep_ns, sleep_ns, memory_order_relaxed);
    return 0;
}

int mpd_alock_set_sched(mpd_alock_t *l, const void *owner, int sched)
{
    if (sched < MPD_ALOCK_WAKE_FIFO || sched > MPD_ALOCK_WAKE_PRIORITY)
        return EINVAL;
    if (!may_change(l, owner))
        return EPERM;
    /* The queue order may only change while nobody is queued; hold the queue
     * lock so no waiter can enqueue under the old order meanwhile. */
    mpd_spin_lock(&l->qlock);
    int busy = l->qhead != NULL;
    if (!busy)
        atomic_store(&l->sched, sched);
    mpd_spin_unlock(&l->qlock);
    return busy ? EBUSY : 0;
}

int mpd_alock_set_policy(mpd_alock_t *l, const void *owner, mpd_alock_policy_fn p, void *arg)
{
    if (!may_change(l, owner))
        return EPERM;
    /* `loud` must never say "default or none" while a policy of one's own is
     * installed (its samples would be skipped): the bit goes up before such a
     * policy is stored and down only after the default or none is, under the
     * queue lock so that concurrent calls cannot interleave the two steps. */
    int own = mpd_alock__policy_is_own(p);
    mpd_spin_lock(&l->qlock);
    if (own)
        mpd_alock__set_loud(l, MPD_ALOCK__LOUD_POLICY, 1);
    atomic_store(&l->policy_arg, arg);
    atomic_store(&l->policy, p);
    if (!own)
        mpd_alock__set_loud(l, MPD_ALOCK__LOUD_POLICY, 0);
    if (p != mpd_alock_default_policy) /* late looks are the default policy's */
        atomic_store_explicit(&l->late_looks, 0, memory_order_relaxed);
    mpd_spin_unlock(&l->qlock);
    return 0;
}

int mpd_alock_set_sample_every(mpd_alock_t *l, const void *owner, int n)
{
    if (n < 1)
        return EINVAL;
    if (!may_change(l, owner))
        return EPERM;
    atomic_store(&l->sample_every, n);
    return 0;
}

void mpd_alock_get_waiting(const mpd_alock_t *l, long *spin_ns, long *sleep_ns)
{
    if (spin_ns)
        *spin_ns = atomic_load_explicit(&l->spin_ns, memory_order_relaxed);
    if (sleep_ns)
        *sleep_ns = atomic_load_explicit(&l->sleep_ns, memory_order_relaxed);
}
int mpd_alock_get_sched(const mpd_alock_t *l)
{
    return atomic_load(&l->sched);
}
int mpd_alock_waiting(const mpd_alock_t *l)
{
    return atomic_load(&l->waiting);
}
const char *mpd_alock_name(const mpd_alock_t *l)
{
    return l->name;
}

/* ---- the default policy: spin while waits are short and few, block when not ---- */
/* How long a waiter spins when spinning pays: a few times what a spin win
 * usually waited (the hold time of a running holder), T = spin_holds x
 * avg_spin_ns, within [spin_floor_ns, spin_max_ns]; spin_max_ns until a
 * spin win was measured.  Rounded up to floor x 2^k, and a bound already in
 * force is kept while it lies in [T, 4T): rounding alone still rewrote the
 * attributes whenever the average crossed a power of two -- TSP's holds
 * average ~1 us, so T wandered around 8 us and the bound flipped between 8
 * and 16 us ~20k times per run, each time in the lock's busiest line. */
static long spin_bound(const mpd_alock_monitor_t *m, const mpd_alock_default_params_t *p)
{
    double holds = p->spin_holds > 0 ? p->spin_holds : 8;
    long b = p->spin_floor_ns > 0 ? p->spin_floor_ns : 4000;
    if (m->avg_spin_ns <= 0)
        return p->spin_max_ns;
    double t = holds * m->avg_spin_ns;
    long cur = m->spin_ns;
    if (cur > 0 && cur <= p->spin_max_ns && (double)cur < 4 * t &&
        ((double)cur >= t || cur == p->spin_max_ns))
        return cur;
    while ((double)b < t && b < p->spin_max_ns)
        b *= 2;
    return b < p->spin_max_ns ? b : p->spin_max_ns;
}

/* CPUs this process may run on (read once). */
int mpd_alock__usable_cpus(void)
{
    static atomic_int n;
    int c = atomic_load_explicit(&n, memory_order_relaxed);
    if (c == 0) {
        cpu_set_t set;
        c = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
        if (c < 1)
            c = 1;
        atomic_store_explicit(&n, c, memory_order_relaxed);
    }
    return c;
}

/* Late looks (adaptive_lock.c spin_phase): whether a spinning waiter should
 * look at the lock word only every ~1 us.  Each look pulls the lock's line
 * (and the data it guards) away from the holder; when the holder re-takes
 * the lock again and again while a waiter waits -- TSP's work queue, taken
 * every ~100-300 ns by each searcher -- every look costs the holder a cache
 * miss at its next acquisition, and the handoffs the early looks win move the
 * line back and forth.  glibc's mutex gets the late looks for free: its
 * waiter's futex call takes about a microsecond.  When waits end with the
 * holder's release instead (PHOLD: waits under 1 us, the lock taken by one
 * thread at a time), late looks only lengthen every wait.  The two cannot be
 * told apart while looking early (acquisitions by others during a spin win
 * average ~1.4 for both), but can while looking late: TSP's queue lock is
 * re-taken ~17 times during a late wait, PHOLD's locks 1-2.3 times.  So the
 * policy probes: it looks late for LATE_JUDGE spin wins and keeps doing so
 * while the lock was taken in front of the waiter at least late_passes times
 * per wait; otherwise it looks early again and probes after probe_gap policy
 * runs, the gap doubling after each probe that did not pay (8 .. 1024). */
#define LATE_JUDGE 32
#define LATE_PASSES 3 /* default of the parameter late_passes */
#define PROBE_GAP_MIN 8
#define PROBE_GAP_MAX 1024
static void late_looks(mpd_alock_t *l, double passes)
{
    if (passes < 0) { /* never */
        if (atomic_load_explicit(&l->late_looks, memory_order_relaxed))
            atomic_store_explicit(&l->late_looks, 0, memory_order_relaxed);
        return;
    }
    if (passes == 0)
        passes = LATE_PASSES;
    if (atomic_load_explicit(&l->late_looks, memory_order_relaxed)) {
        if (l->late_n < LATE_JUDGE)
            return;
        int keep = (double)l->late_passes >= passes * (double)l->late_n;
        l->late_n = l->late_passes = 0;
        if (keep) {
            l->probe_gap = 0; /* the next probe that does not pay starts the gaps again */
            return;
        }
        atomic_store_explicit(&l->late_looks, 0, memory_order_relaxed);
        l->probe_gap = l->probe_gap == 0              ? PROBE_GAP_MIN
                       : l->probe_gap < PROBE_GAP_MAX ? 2 * l->probe_gap
                                                      : PROBE_GAP_MAX;
        l->probe_wait = l->probe_gap;
    } else if (--l->probe_wait <= 0) {
        l->late_n = l->late_passes = 0;
        atomic_store_explicit(&l->late_looks, 1, memory_order_relaxed);
    }
}

/* How far a back-off moves between spinning (0) and blocking (1), in steps of
 * BACKOFF_STEPS: the continuous value changed at nearly every sample, and
 * every change rewrites the waiting policy in the lock's busiest cache line
 * (TSP at 2 VPs: ~50-90k rewrites per run before). */
#define BACKOFF_STEPS 8

void mpd_alock_default_policy(mpd_alock_t *l, const mpd_alock_monitor_t *m, void *arg)
{
    static const mpd_alock_default_params_t def = {
        0.25, 1.0, MPD_ALOCK_DEFAULT_SPIN_MAX_NS, 0, 50000, 20000, 8, 4000, 0.5, 0.2, 0, 0, 0, 0,
        0,    0};
    const mpd_alock_default_params_t *p = arg ? arg : &def;
    long spin, sleep;
    /* Spin failures (the holder was off-CPU, or the wait outlasted the spin):
     * block at once from fail_high on, and spin again only below fail_low,
     * so a lock whose holders keep being preempted does not flip back and
     * forth (hysteresis; quiet samples still decay the rate to 0). */
    double hi = p->fail_high > 0 ? p->fail_high : 0.5, lo = p->fail_low > 0 ? p->fail_low : 0.2;
    int blocking = m->spin_ns == p->spin_min_ns && m->sleep_ns == MPD_ALOCK_FOREVER;
    /* Waiters that each spin on a CPU of their own while the holder runs on
     * another take nothing that blocking would give back: the waiter term
     * counts only the waiters beyond the spare CPUs (those besides the
     * holder's).  There are none when the runtime has more VPs than CPUs:
     * then a spinning waiter holds a CPU that another VP with work needs.
     * Where waiters take the holder's own CPU, their spins fail (holder
     * off-CPU, or waits past the bound) and the rule above blocks. */
    int cpus = p->cpus > 0 ? p->cpus : mpd_alock__usable_cpus();
    int spare = mpd__nvp <= cpus ? cpus - 1 : 0;
    double waiters = m->avg_waiting - (double)spare;
    /* More VPs than CPUs: a backed-off waiter yields its CPU to the OS at
     * every look (adaptive_lock.c spin_phase), so it takes no CPU that a
     * runnable VP -- the holder's included -- needs, and the waiter count is
     * no reason to block; parking it only adds a VP's sleep and wake-up to
     * every contended acquisition.  TSP at 4 VPs on 2 quiet CPUs: blocking on
     * the count made the adaptive lock as slow as `block`, 1.55x pthread
     * (docs/threads.md, "Results").  Waits that a spin does not win still
     * block: the spin-failure rule above, and waits longer than a block
     * costs below.  oversub_waiters = 1 keeps the count (the old rule). */
    if (mpd__nvp > cpus && !p->oversub_waiters && waiters > 0)
        waiters = 0;
    /* Opt-in (oversub_block): with more VPs than CPUs every spinning waiter
     * holds a CPU that a VP with work needs, so while contention lasts (the
     * averages are not back to 0) the lock blocks.  It was the default
     * before spins backed off; it won every run under load and lost PHOLD at
     * 3-4 VPs on an idle machine, and with the back-off the spin-failure
     * rule covers what it was for (docs/threads.md, "Results"). */
    int oversubscribed = p->oversub_block && mpd__nvp > cpus;
    if (m->spin_fail >= (blocking ? lo : hi) ||
        (oversubscribed && (m->avg_waiting > 0 || m->avg_wait_ns > 0))) {
        spin = p->spin_min_ns;
        sleep = MPD_ALOCK_FOREVER;
    } else if (waiters <= p->low &&
               (p->block_cost_ns <= 0 || m->avg_wait_ns <= (double)p->block_cost_ns)) {
        /* spin (the common, quiet case); a waiter still blocks after the
         * bound, which limits what a descheduled holder costs it */
        spin = spin_bound(m, p);
        sleep = MPD_ALOCK_FOREVER;
    } else {
        double f = (waiters - p->low) / (p->high - p->low);
        if (p->block_cost_ns > 0) {
            double fw = (m->avg_wait_ns - (double)p->block_cost_ns) / (double)p->block_cost_ns;
            if (fw > f)
                f = fw;
        }
        int k = f >= 1 ? BACKOFF_STEPS : f <= 0 ? 0 : (int)(f * BACKOFF_STEPS + 0.5);
        if (k >= BACKOFF_STEPS) {
            spin = p->spin_min_ns;
            sleep = MPD_ALOCK_FOREVER; /* pure block */
        } else if (k == 0) {
            spin = spin_bound(m, p);
            sleep = MPD_ALOCK_FOREVER; /* too close to spinning to tell */
        } else {                       /* back-off in between */
            f = (double)k / BACKOFF_STEPS;
            long top = spin_bound(m, p);
            spin = p->spin_min_ns +
                   (long)((1 - f) * (double)(top > p->spin_min_ns ? top - p->spin_min_ns : 0));
            sleep = 1000 + (long)(f * (double)p->sleep_max_ns);
        }
    }
    /* The trial (adaptive_trial.c), when asked for (trial_acq > 0): whether
     * blocking does better than the rules, measured.  Off by default: in
     * place of the rule above it did no better against the best static
     * lock (docs/threads.md, "Results"). */
    long epoch = p->trial_acq;
    if (epoch > 0 && mpd_alock__trial(&l->trial, m->acquisitions, mpd_alock__now_ns, epoch,
                                      p->trial_every > 0 ? p->trial_every : 8)) {
        spin = p->spin_min_ns;
        sleep = MPD_ALOCK_FOREVER;
    }
    late_looks(l, p->late_passes);
    if (spin != m->spin_ns || sleep != m->sleep_ns) {
        /* The policy acts for the lock itself: refused while an agent owns it. */
        if (mpd_alock_set_waiting(l, l, spin, sleep) == 0)
            BUMP(l->st_adapt);
    }
}

/* ---- statistics and profile ---- */
void mpd_alock_stats(mpd_alock_t *l, mpd_alock_stats_t *s)
{
    s->acquisitions = atomic_load(&l->acquisitions);
    s->contended = atomic_load(&l->st_contended);
    s->spin_acquired = atomic_load(&l->st_spin_acq);
    s->blocks = atomic_load(&l->st_blocks);
    s->sleep_timeouts = atomic_load(&l->st_timeouts);
    s->samples = atomic_load(&l->st_samples);
    s->adaptations = atomic_load(&l->st_adapt);
    s->spin_failed = atomic_load(&l->st_spin_failed);
    s->holder_off_cpu = atomic_load(&l->st_holder_off);
    s->os_yields = atomic_load(&l->st_os_yields);
}

/* Callable from anywhere, a policy included (prof_lk, not the lock). */
size_t mpd_alock_profile(mpd_alock_t *l, mpd_alock_sample_t *out, size_t max)
{
    mpd_spin_lock(&l->prof_lk);
    size_t n = l->prof_len < max ? l->prof_len : max;
    memcpy(out, l->prof, n * sizeof *out);
    mpd_spin_unlock(&l->prof_lk);
    return n;
}

int mpd_alock_profile_write(mpd_alock_t *l, FILE *f)
{
    size_t cap = l->prof_cap; /* fixed at creation: allocate outside the spin lock */
    mpd_alock_sample_t *copy = malloc(cap ? cap * sizeof *copy : 1);
    if (!copy)
        return ENOMEM;
    mpd_spin_lock(&l->prof_lk);
    size_t n = l->prof_len;
    memcpy(copy, l->prof, n * sizeof *copy);
    mpd_spin_unlock(&l->prof_lk);
    fprintf(f, "# lock %s\n# t_seconds waiting spin_us sleep_us\n", l->name);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%.6f %d %.3f %.3f\n", copy[i].t, copy[i].waiting,
                copy[i].spin_ns < 0 ? -1.0 : copy[i].spin_ns / 1e3,
                copy[i].sleep_ns < 0 ? -1.0 : copy[i].sleep_ns / 1e3);
    free(copy);
    return ferror(f) ? EIO : 0;
}
