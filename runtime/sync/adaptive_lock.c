/* adaptive_lock.c: the adaptive lock -- spin/back-off/block waiting, wake order, monitor hook. */
#include "mpd/alock.h"
#include "sync/adaptive_impl.h"
#include "core/rt_internal.h" /* mpd__nvp: the runtime's VPs (1 without it) */

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

_Thread_local char mpd_alock__vp_tag;

long mpd_alock__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* ---- default backend: OS threads on futexes ---- */
static void *os_cur(void)
{
    return NULL;
}

/* OS threads wait on their waiter's flag with a futex. */
static void futex_park(int *flag, long timeout_ns)
{
    struct timespec ts, *tp = NULL;
    if (timeout_ns >= 0) {
        ts.tv_sec = timeout_ns / 1000000000L;
        ts.tv_nsec = timeout_ns % 1000000000L;
        tp = &ts;
    }
    if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
        return;
    syscall(SYS_futex, flag, FUTEX_WAIT_PRIVATE, 0, tp, NULL, 0);
}

static void futex_unpark(int *flag)
{
    syscall(SYS_futex, flag, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void os_park(void *self, mpd_spinlock *held)
{
    (void)self;
    mpd_spin_unlock(held);
}
static void os_unpark(void *t)
{
    (void)t;
}
static void os_relax(void) {}

static const mpd_alock_backend_t os_backend = {os_cur, os_park, os_unpark, os_relax};
static const mpd_alock_backend_t *_Atomic backend = &os_backend;

void mpd_alock_set_backend(const mpd_alock_backend_t *b)
{
    atomic_store(&backend, b ? b : &os_backend);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* ---- internal queue spin lock (held for a few instructions only) ---- */
static void q_lock(mpd_alock_t *l)
{
    mpd_spin_lock(&l->qlock);
}
static void q_unlock(mpd_alock_t *l)
{
    mpd_spin_unlock(&l->qlock);
}

/* ---- creation ---- */
void mpd_alock_attr_init(mpd_alock_attr_t *a, enum mpd_alock_kind kind)
{
    memset(a, 0, sizeof *a);
    a->sched = MPD_ALOCK_WAKE_FIFO;
    a->sample_every = 2;
    a->profile_cap = 4096;
    switch (kind) {
    case MPD_ALOCK_SPIN:
        a->spin_ns = MPD_ALOCK_FOREVER;
        a->sleep_ns = 0;
        break;
    case MPD_ALOCK_BLOCK:
        a->spin_ns = 0;
        a->sleep_ns = MPD_ALOCK_FOREVER;
        break;
    default: /* the default policy's low-contention state */
        a->spin_ns = MPD_ALOCK_DEFAULT_SPIN_MAX_NS;
        a->sleep_ns = MPD_ALOCK_FOREVER;
        a->policy = mpd_alock_default_policy;
        break;
    }
}

mpd_alock_t *mpd_alock_create(const mpd_alock_attr_t *a)
{
    mpd_alock_attr_t def;
    if (!a) {
        mpd_alock_attr_init(&def, MPD_ALOCK_ADAPTIVE);
        a = &def;
    }
    /* cache-line aligned (struct mpd_alock's groups are) */
    mpd_alock_t *l = aligned_alloc(64, (sizeof *l + 63) / 64 * 64);
    if (!l)
        return NULL;
    memset(l, 0, sizeof *l);
    mpd_spin_init(&l->qlock);
    mpd_spin_init(&l->prof_lk);
    snprintf(l->name, sizeof l->name, "%s", a->name ? a->name : "lock");
    atomic_init(&l->spin_ns, a->spin_ns);
    atomic_init(&l->sleep_ns, a->sleep_ns);
    atomic_init(&l->sched, a->sched);
    atomic_init(&l->sample_every, a->sample_every > 0 ? a->sample_every : 2);
    l->sample_left = atomic_load(&l->sample_every);
    atomic_init(&l->policy, a->policy);
    atomic_init(&l->policy_arg, a->policy_arg);
    atomic_init(&l->loud, mpd_alock__policy_is_own(a->policy) ? MPD_ALOCK__LOUD_POLICY : 0);
    l->created_ns = mpd_alock__now_ns();
    if (a->profile_cap > 0) {
        l->prof = calloc(a->profile_cap, sizeof *l->prof);
        l->prof_cap = l->prof ? a->profile_cap : 0;
    }
    l->prof_stride = 1;
    l->prof_next = l->prof_cap ? 1 : ULONG_MAX;
    return l;
}

void mpd_alock_destroy(mpd_alock_t *l)
{
    if (!l)
        return;
    free(l->prof);
    free(l);
}

/* ---- waiting ---- */
/* The lock word of a holder on the calling thread's CPU: 3 + the CPU.  The
 * rseq ABI leaves only -1 (not registered yet) or -2 (registration failed,
 * e.g. under valgrind or GLIBC_TUNABLES=glibc.pthread.rseq=0) in cpu_id
 * otherwise, so the word is 2 or 1 then: never 0 (free), and one add on the
 * fast path. */
#define HELD_CPU0 3
static inline int held_here(void)
{
    return mpd_alock__my_cpu() + HELD_CPU0;
}

static inline int try_take(mpd_alock_t *l)
{
    int z = 0;
    return atomic_load_explicit(&l->state, memory_order_relaxed) == 0 &&
           atomic_compare_exchange_strong_explicit(&l->state, &z, held_here(), memory_order_acquire,
                                                   memory_order_relaxed);
}

/* Is the holder on the caller's VP?  Then spinning only delays it. */
static inline int holder_here(mpd_alock_t *l)
{
    return atomic_load_explicit(&l->holder_vp, memory_order_relaxed) == mpd_alock__my_vp();
}

/* Is the holder off-CPU?  It last ran on the CPU we run on now, so it is not
 * running: preempted (with more VPs than CPUs, often by this very VP) or
 * blocked in the kernel.  Spinning cannot end before it runs again. */
static inline int holder_off_cpu(mpd_alock_t *l)
{
    int s = atomic_load_explicit(&l->state, memory_order_relaxed);
    return s >= HELD_CPU0 && s == held_here();
}

/* How many pause instructions make about BACKOFF_CAP_NS (measured once:
 * a pause takes ~10 ns on this machine's Xeon and ~40 ns on other x86
 * parts, so a count fixed in instructions would not be a fixed time). */
#define BACKOFF_CAP_NS 1000
static unsigned backoff_cap(void)
{
    static atomic_uint cap;
    unsigned c = atomic_load_explicit(&cap, memory_order_relaxed);
    if (c == 0) {
        enum { N = 512 };
        long t0 = mpd_alock__now_ns();
        for (int i = 0; i < N; i++)
            cpu_relax();
        long dt = mpd_alock__now_ns() - t0;
        double per = dt > 0 ? (double)dt / N : 1.0;
        double k = BACKOFF_CAP_NS / per;
        c = k < 8 ? 8 : k > 1024 ? 1024 : (unsigned)k;
        atomic_store_explicit(&cap, c, memory_order_relaxed);
    }
    return c;
}

/* Spin for up to spin_ns (re-read each round so a change applies at once).
 * While the holder shares our VP, spinning only delays it: the waiter gives
 * the VP up instead (a pure spin lock for as long as it waits; any other
 * waiting policy twice, then it goes on to block, as the holder may be
 * blocked itself).  A bounded spin also stops as soon as it sees the holder
 * off-CPU (*off is set).  start: the clock when the spin began.  Returns 1
 * with the lock held.
 *
 * A bounded spin backs off exponentially between looks (1, 2, 4 ... pauses,
 * up to about 1 us): a waiter that takes the lock the moment it is released
 * moves the lock's line (and the data it guards) to its CPU at every
 * release, and when holds are short and frequent -- TSP's work queue: an
 * acquisition every ~100-300 ns -- that handoff costs more than the work
 * between acquisitions, so a tight spin made 2 VPs slower than blocking
 * (which lets the holder's CPU keep the lock for a while) by 15-30%.  With
 * the back-off the releasing thread usually takes the lock again itself.
 * Measured (TSP and PHOLD, 2-4 VPs, docs/threads.md): TSP at 2 VPs went
 * from 0.83-0.98 s to 0.60-0.64 s, faster than blocking, and PHOLD (waits
 * under 1 us, ~10% of acquisitions contended) did not slow down.  A pure
 * spin lock (spin_ns FOREVER) keeps the tight test-and-test-and-set.
 *
 * With more VPs than CPUs some VP is always waiting for a CPU, and it may be
 * the holder's or one with work: a backed-off waiter then also gives its CPU
 * back to the OS (sched_yield) at each of its periodic looks, every ~64
 * pauses.  Measured at 3 VPs on 2 CPUs (10 interleaved rounds): TSP 0.455 s
 * against blocking's 0.514 (before: 0.538, losing to blocking), PHOLD 0.207
 * against spinning's 0.213; at 4 VPs TSP 0.732 (block 0.772), PHOLD 0.315
 * (spin 0.334). */
static int spin_phase(mpd_alock_t *l, const mpd_alock_backend_t *b, long start, int late, int *off)
{
    int yields_to_holder = 0, oversubscribed = -1;
    unsigned delay = 1, paused = 0, cap = 0;
    if (late) { /* looks every ~1 us from the start */
        cap = backoff_cap();
        delay = cap;
    }
    for (unsigned i = 1;; i++) {
        if (try_take(l))
            return 1;
        long s = atomic_load_explicit(&l->spin_ns, memory_order_relaxed);
        if (s == 0)
            return 0;
        if (holder_here(l)) {
            if (s != MPD_ALOCK_FOREVER && ++yields_to_holder > 2)
                return 0;
            b->relax();
            continue;
        }
        if (s != MPD_ALOCK_FOREVER && (delay > 8 || (i & 15) == 1) &&
            holder_off_cpu(l)) { /* backed off: every look */
            *off = 1;
            return 0;
        }
        if (s == MPD_ALOCK_FOREVER) {
            cpu_relax();
            if ((i & 63) == 0)
                b->relax();
            continue;
        }
        if (cap == 0)
            cap = backoff_cap();
        for (unsigned k = 0; k < delay; k++)
            cpu_relax();
        paused += delay;
        if (delay < cap)
            delay = delay * 2 < cap ? delay * 2 : cap;
        if (paused >= 64) { /* about as often as before the back-off: every 64 pauses */
            paused = 0;
            b->relax();
            if (oversubscribed < 0)
                oversubscribed = mpd__nvp > mpd_alock__usable_cpus();
            if (oversubscribed) {
                sched_yield();
                atomic_fetch_add_explicit(&l->st_os_yields, 1, memory_order_relaxed);
            }
            if (mpd_alock__now_ns() - start >= s)
                return 0;
        }
    }
}

static void enqueue(mpd_alock_t *l, alock_waiter *w)
{
    int sched = atomic_load_explicit(&l->sched, memory_order_relaxed);
    w->next = NULL;
    if (!l->qhead) {
        l->qhead = l->qtail = w;
        return;
    }
    if (sched == MPD_ALOCK_WAKE_LIFO) {
        w->next = l->qhead;
        l->qhead = w;
        return;
    }
    if (sched == MPD_ALOCK_WAKE_PRIORITY) {
        alock_waiter **pp = &l->qhead; /* higher prio first, FIFO among equals */
        while (*pp && (*pp)->prio >= w->prio)
            pp = &(*pp)->next;
        w->next = *pp;
        *pp = w;
        if (!w->next)
            l->qtail = w;
        return;
    }
    l->qtail->next = w;
    l->qtail = w;
}

static int unlink_waiter(mpd_alock_t *l, alock_waiter *w)
{
    alock_waiter *prev = NULL;
    for (alock_waiter *p = l->qhead; p; prev = p, p = p->next) {
        if (p != w)
            continue;
        if (prev)
            prev->next = p->next;
        else
            l->qhead = p->next;
        if (l->qtail == p)
            l->qtail = prev;
        return 1;
    }
    return 0;
}

/* A popped waiter's frame must outlive the unlocker's use of it (woken == 2). */
static void wait_unlocker_done(alock_waiter *w)
{
    for (unsigned i = 1; atomic_load_explicit(&w->woken, memory_order_acquire) != 2; i++) {
        cpu_relax();
        if ((i & 255) == 0)
            atomic_load_explicit(&backend, memory_order_acquire)
                ->relax(); /* unlocker may share our VP */
    }
}

/* Block until woken by an unlock or until sleep_ns passes. Returns 1 if the
 * lock was taken on the way.  A lightweight thread always stays parked until
 * an unlock wakes it: parked, it costs neither its VP nor the CPU, and an
 * earlier wake-up could only poll (and polling with sched_yield, as this
 * did before, can give the CPU away for a whole time slice on a loaded
 * machine). */
static int block_phase(mpd_alock_t *l, const mpd_alock_backend_t *b, int prio)
{
    void *self = b->cur();
    long sleep = atomic_load_explicit(&l->sleep_ns, memory_order_relaxed);
    alock_waiter w;
    w.prio = prio;
    w.thread = self;
    atomic_init(&w.woken, 0);
    q_lock(l);
    enqueue(l, &w);
    atomic_fetch_add(&l->nblocked, 1);
    /* Dekker with unlock: it clears state then reads nblocked; we raised
     * nblocked and now read state.  One of us sees the other.  We still hold
     * the queue lock, so no unlock can have popped us. */
    if (try_take(l)) {
        unlink_waiter(l, &w);
        atomic_fetch_sub(&l->nblocked, 1);
        q_unlock(l);
        return 1;
    }
    atomic_fetch_add_explicit(&l->st_blocks, 1, memory_order_relaxed);
    if (self) {
        b->park(self, &l->qlock); /* releases qlock once switched out */
        return 0;                 /* an unlock popped and unparked us */
    }
    q_unlock(l);
    long deadline = sleep == MPD_ALOCK_FOREVER ? 0 : mpd_alock__now_ns() + sleep;
    while (!atomic_load_explicit(&w.woken, memory_order_acquire)) {
        long left = -1;
        if (sleep != MPD_ALOCK_FOREVER) {
            left = deadline - mpd_alock__now_ns();
            if (left <= 0)
                break;
        }
        futex_park((int *)&w.woken, left);
    }
    if (!atomic_load_explicit(&w.woken, memory_order_acquire)) {
        q_lock(l);
        int mine = unlink_waiter(l, &w);
        if (mine)
            atomic_fetch_sub(&l->nblocked, 1);
        q_unlock(l);
        if (mine) {
            atomic_fetch_add_explicit(&l->st_timeouts, 1, memory_order_relaxed);
            return 0;
        }
    }
    wait_unlocker_done(&w);
    return 0;
}

void mpd_alock__lock_slow(mpd_alock_t *l, int prio)
{
    const mpd_alock_backend_t *b = atomic_load_explicit(&backend, memory_order_acquire);
    long t0 = mpd_alock__now_ns();
    long spin0 = atomic_load_explicit(&l->spin_ns, memory_order_relaxed);
    int spun = 0, off = 0, by_spin = 0, spin_failed = 0;
    int late = atomic_load_explicit(&l->late_looks, memory_order_relaxed);
    /* acquisitions so far, to count those made in front of us (late looks
     * only: a read of the holder's line) */
    unsigned long acq0 = late ? atomic_load_explicit(&l->acquisitions, memory_order_relaxed) : 0;
    atomic_fetch_add(&l->waiting, 1);
    for (int round = 0;; round++) {
        if (spin_phase(l, b, round == 0 ? t0 : mpd_alock__now_ns(), late, &off)) {
            by_spin = 1;
            spun = round == 0;
            break;
        }
        if (round == 0 && spin0 != 0)
            spin_failed = 1;
        if (block_phase(l, b, prio))
            break;
        if (try_take(l))
            break;
    }
    atomic_fetch_sub(&l->waiting, 1);
    /* The statistics of this wait are counted now that we hold the lock:
     * single-writer stores in the holder's own lines.  Counted by the waiter
     * with interlocked adds as it came in, they pulled the line that the
     * monitor reads at every sample away from the holder: a cache miss inside
     * the critical section after nearly every contended acquisition (TSP at 2
     * VPs ran ~2% faster without, docs/threads.md). */
    INC(l->st_contended);
    if (by_spin)
        INC(l->st_spin_acq);
    if (spin_failed) {
        INC(l->st_spin_failed);
        if (off)
            INC(l->st_holder_off);
    }
    /* We hold the lock now: the monitor's averages are ours to update.  A
     * wait a spin would not have won -- longer than the spin bound (the
     * default bound when the lock does not spin), or the holder seen off-CPU
     * -- counts as a spin failure; a first-round spin win measures how long
     * a running holder keeps the lock. */
    double w = (double)(mpd_alock__now_ns() - t0);
    long ref = spin0 > 0 ? spin0 : MPD_ALOCK_DEFAULT_SPIN_MAX_NS;
    int failed = off || (spin0 != MPD_ALOCK_FOREVER && w > (double)ref);
    l->avg_wait_ns += (w - l->avg_wait_ns) * 0.125;
    l->spin_fail += ((double)failed - l->spin_fail) * 0.125;
    if (failed)
        l->busy_samples = POLICY_BATCH_NOW; /* news the policy must see at the next sample */
    if (spun) {
        l->avg_spin_ns += (w - l->avg_spin_ns) * 0.125;
        if (late) { /* how often the lock was taken in front of us */
            l->late_n++;
            l->late_passes += atomic_load_explicit(&l->acquisitions, memory_order_relaxed) - acq0;
        }
    }
    /* the monitor's next sample is not quiet (it may already have seen st_contended) */
    mpd_alock__set_loud(l, MPD_ALOCK__LOUD_WARM, 1);
}

/* The new holder records its VP (for waiters' spin decisions; its CPU is in
 * the lock word). */
static inline void took(mpd_alock_t *l)
{
    atomic_store_explicit(&l->holder_vp, mpd_alock__my_vp(), memory_order_relaxed);
    INC(l->acquisitions);
}

/* Out of line, so that an uncontended lock needs no stack frame. */
static __attribute__((noinline)) void lock_contended(mpd_alock_t *l)
{
    mpd_alock__lock_slow(l, mpd_alock__cur_prio());
    took(l);
}

void mpd_alock_lock(mpd_alock_t *l)
{
    if (try_take(l))
        took(l);
    else
        lock_contended(l);
}

int mpd_alock_trylock(mpd_alock_t *l)
{
    if (!try_take(l))
        return EBUSY;
    took(l);
    return 0;
}

/* Out of line, so that an unlock without waiters saves no registers. */
static __attribute__((noinline)) void wake_one(mpd_alock_t *l)
{
    const mpd_alock_backend_t *b = atomic_load_explicit(&backend, memory_order_acquire);
    q_lock(l);
    alock_waiter *w = l->qhead;
    if (w) {
        l->qhead = w->next;
        if (!l->qhead)
            l->qtail = NULL;
        atomic_fetch_sub(&l->nblocked, 1);
    }
    q_unlock(l);
    if (!w)
        return;
    void *t = w->thread;
    if (t) { /* a parked lightweight thread: nothing else touches w */
        b->unpark(t);
        return;
    }
    atomic_store_explicit(&w->woken, 1, memory_order_release);
    futex_unpark((int *)&w->woken);
    atomic_store_explicit(&w->woken, 2, memory_order_release); /* done with w */
}

static inline void release(mpd_alock_t *l)
{
    atomic_store_explicit(&l->holder_vp, NULL, memory_order_relaxed);
    atomic_store_explicit(&l->state, 0, memory_order_seq_cst);
    if (atomic_load_explicit(&l->nblocked, memory_order_seq_cst) > 0)
        wake_one(l);
}

/* Every sample_every-th unlock samples the monitor first (a countdown: no
 * division on the hot path).  Apart, so that the other unlocks need no
 * stack frame. */
static __attribute__((noinline)) void sample_and_release(mpd_alock_t *l)
{
    l->sample_left = atomic_load_explicit(&l->sample_every, memory_order_relaxed);
    mpd_alock__sample(l);
    release(l);
}

void mpd_alock_unlock(mpd_alock_t *l)
{
    if (--l->sample_left <= 0)
        sample_and_release(l);
    else
        release(l);
}
