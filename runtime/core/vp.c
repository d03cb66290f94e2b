/* vp.c: virtual processors -- the scheduler loop, switching, park/unpark,
 * idle sleep on a futex, and detection of the program's end (quiescence). */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "core/rt_internal.h"
#include "mpd/err.h"
#include "core/switch.h"

_Thread_local struct mpd__vp_hot *mpd__tls_vp;
_Thread_local long mpd__tls_slice;
long mpd__mode = MPD_MODE_ONE; /* mpd/rt.h */
mpd_vp **mpd__vps;
int mpd__nvp = 1;
long mpd__slice;
long mpd__slice_fresh = LONG_MAX;
/* Rounds of the idle spin (each one look for work and ~10 pauses, roughly
 * 0.1-0.5 us): set by mpd_rt_main from MPD_IDLE_SPIN, see mpd__idle_spin_default. */
int mpd__idle_spin = 100;

/* Wake-up protocol between VPs.  A VP about to sleep increments nsleep,
 * reads idle_seq, looks for work once more and sleeps on idle_seq.  Whoever
 * makes work available then checks nsleep and, if some VP sleeps, bumps
 * idle_seq and wakes one: either the sleeper sees the work or it sees
 * idle_seq change (seq_cst on both sides).
 *
 * The low bit of idle_seq says "a wake is on its way" so that a burst of
 * wakers makes one futex call: a waker that finds it set relies on the one
 * that set it.  It lives in idle_seq itself, not in a flag beside it, because
 * a waker may act on a stale nsleep (the VP it saw has already left) and set
 * it when nobody is left to clear it; a separate flag then stayed set while
 * the next sleeper slept on the already bumped sequence, and every later
 * wake was skipped (a lost wakeup: ~1 run in 40 of a blocking-call stress
 * test hung).  Here a sleeper that finds the bit set clears it itself and
 * looks for work again before sleeping on the even value. */
static atomic_int nsleep;
static atomic_int nspin;     /* VPs looking for work before they sleep */
static atomic_uint idle_seq; /* bit 0: a futex wake is on its way to some VP */
static atomic_int stopping;
/* Held while a VP decides to sleep: a VP counted in nsleep takes no work
 * except under this lock or after it stopped counting, so "all VPs asleep,
 * nothing queued" is stable when read in that order (all_idle_and_nothing_pending). */
static mpd_spinlock idle_mu = MPD_SPINLOCK_INIT;

static mpd_quiesce_fn quiesce_hook;
static void *quiesce_arg;
static int quiesce_hook_ran;
static void (*report_fn)(void) = mpd_rt_report_blocked;

__attribute__((noinline)) struct mpd__vp_hot *mpd__vp_get(void)
{
    return mpd__tls_vp;
}
__attribute__((noinline)) long *mpd__slice_ptr(void)
{
    return &mpd__tls_slice;
}

/* The idle wait: woken by any plain wake, or by mpd__wake_vp for this VP's
 * bit.  FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time. */
static void idle_futex_wait(unsigned val, const struct timespec *rel, unsigned bit)
{
    struct timespec abs, *ap = NULL;
    if (rel) {
        clock_gettime(CLOCK_MONOTONIC, &abs);
        abs.tv_sec += rel->tv_sec;
        abs.tv_nsec += rel->tv_nsec;
        if (abs.tv_nsec >= 1000000000) {
            abs.tv_sec++;
            abs.tv_nsec -= 1000000000;
        }
        ap = &abs;
    }
    syscall(SYS_futex, (unsigned *)&idle_seq, FUTEX_WAIT_BITSET_PRIVATE, val, ap, NULL, bit);
}
static void futex_wake(atomic_uint *w, int n)
{
    syscall(SYS_futex, (unsigned *)w, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* The waker's half of the Dekker protocol without its fence: the caller
 * published the work with a seq_cst read-modify-write (the runnext
 * exchange), which orders it before the loads below as a fence would.  On
 * x86-64 that saves an mfence per wakeup. */
void mpd__wake_idle_vp_sc(void)
{
    /* A spinning VP will find the work (it looks again after it stops
     * spinning), so the futex is only for when nobody is looking. */
    if (atomic_load(&nspin) == 0 && atomic_load(&nsleep) > 0) {
        unsigned v = atomic_load(&idle_seq);
        /* the bit is cleared by the next VP to leave or enter its idle wait */
        while (!(v & 1))
            if (atomic_compare_exchange_weak(&idle_seq, &v, v + 1)) {
                futex_wake(&idle_seq, 1);
                break;
            }
    } else if (mpd__nvp > 2 && atomic_load_explicit(&mpd__ndormant, memory_order_relaxed) > 0 &&
               atomic_load(&nspin) == 0 && !atomic_load(&mpd__compact_req)) {
        mpd__compact_wake_dormant(); /* nobody idle to take it, some VPs dormant */
    }
}

int mpd__vp_stopping(void)
{
    return atomic_load(&stopping);
}

/* A VP leaving (or about to sleep in) its idle wait takes the pending wake:
 * later wakers must make their own futex call.  Returns the even value. */
static unsigned take_pending_wake(void)
{
    unsigned v = atomic_load(&idle_seq);
    while ((v & 1) && !atomic_compare_exchange_weak(&idle_seq, &v, v + 1))
        ;
    return (v & 1) ? v + 1 : v;
}

void mpd__wake_idle_vp(void)
{
    atomic_thread_fence(memory_order_seq_cst);
    mpd__wake_idle_vp_sc();
}

/* Wakes every sleeping VP, spinners or not: for work queued for one
 * particular VP (a scheduler that pins processes), which a spinning VP
 * cannot take. */
void mpd__wake_all_idle_vps(void)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load(&nsleep) > 0) {
        atomic_fetch_add(&idle_seq, 2); /* keeps the pending bit as it is */
        futex_wake(&idle_seq, INT_MAX);
    }
}

/* A sleeping VP waits with its own bit (idle_wait): one VP can be woken
 * without the others.  More than 32 VPs share bits: a few extra wakeups. */
static unsigned vp_bit(int index)
{
    return 1u << (index & 31);
}

/* Wakes VP i if it sleeps: for work queued for it alone (a thread pinned
 * there).  Waking every sleeper for it cost, with 4 VPs on 2 CPUs, two
 * futile wakeups per handoff, each taking a CPU from a VP with work.  The
 * sequence still moves, so a VP on its way to sleep looks again.  The waker
 * clears the VP's asleep flag: a woken VP may wait milliseconds for a CPU,
 * and every idle VP's nudge (threads/sched_cfg.c) used to wake it again
 * meanwhile -- tens of thousands of futile futex calls in a TSP run. */
void mpd__wake_vp(int i)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load(&nsleep) > 0) {
        atomic_fetch_add(&idle_seq, 2); /* keeps the pending bit as it is */
        if (atomic_exchange(&mpd__vps[i]->asleep, 0))
            syscall(SYS_futex, (unsigned *)&idle_seq, FUTEX_WAKE_BITSET_PRIVATE, INT_MAX, NULL,
                    NULL, vp_bit(i));
    }
}

void mpd__ready(mpd_proc *p)
{
    vp_ready(vp_self(), p);
}

void mpd__ready_remote(mpd_proc *p)
{
    mpd_proc *h = atomic_load_explicit(&mpd__inbox, memory_order_relaxed);
    do
        p->io_next = h;
    while (!atomic_compare_exchange_weak_explicit(&mpd__inbox, &h, p, memory_order_release,
                                                  memory_order_relaxed));
}

void mpd__drain_inbox(void)
{
    mpd_proc *l = mpd__inbox_take();
    while (l) {
        mpd_proc *n = l->io_next;
        MPD_TL(mpd__tl_woken(l, TL_BY_IO));
        mpd__ready(l);
        l = n;
    }
}

void mpd__post_switch_slow(mpd_vp *vp, int k)
{
    switch (k) {
    case PS_READY:
        mpd__ready(vp->post_proc);
        break;
    case PS_EXIT:
        mpd__proc_exited(vp->post_proc);
        break;
    case PS_IO:
        mpd__io_submit(vp->post_proc);
        break;
    case PS_TIMED: /* a timed wait: start its timer, then free its lock */
        mpd_spin_lock(&mpd__timer_lock);
        mpd__timer_add_locked(vp->post_proc);
        mpd_spin_unlock(&mpd__timer_lock);
        if (vp->post_lock)
            mpd_spin_unlock(vp->post_lock);
        break;
    }
}

void mpd__post_switch(mpd_vp *vp)
{
    post_switch(vp);
}
/* mpd/abi/handoff.h: a process resumed in generated code found a post action. */
void mpd__post_switch_h1(void)
{
    post_switch(vp_self());
}

mpd_proc *mpd__pick_next_slow(mpd_vp *vp)
{
    if (atomic_load_explicit(&mpd__inbox, memory_order_relaxed) != NULL)
        mpd__drain_inbox();
    if (atomic_load_explicit(&mpd__ntimers, memory_order_relaxed) > 0)
        mpd__timers_fire();
    if (vp->sched == &mpd_sched_fifo)
        return mpd__mode_one_vp() ? rq_get(&mpd__fifo_q) : pick_fifo_multi(vp);
    mpd_proc *p = vp->sched->get(vp->sched_st);
    if (!p && vp->sched->idle)
        p = vp->sched->idle(vp->sched_st);
    return p;
}

void mpd__switch_out(int kind, mpd_proc *pp, mpd_spinlock *lk)
{
    mpd_vp *vp = vp_self();
    mpd_proc *self = (mpd_proc *)(void *)vp->hot.cur;
    switch_away(vp, self, pick_next(vp), kind, pp, lk);
}

/* Flat: the blocking path of every wait (P, receive, call) runs here. */
void mpd_park(mpd_spinlock *lock)
{
    mpd_vp *vp = vp_self();
    mpd_proc *self = (mpd_proc *)(void *)vp->hot.cur;
    PSTATE_SET(self, P_BLOCKED);
    if (!lock && block_fast1(vp, self))
        return;
    switch_away(vp, self, pick_next(vp), lock ? PS_UNLOCK : PS_NONE, NULL, lock);
}

void mpd_unpark(mpd_proc *p)
{
    if (__builtin_expect(mpd__mode_fast(), 1)) {
        PSTATE_SET(p, P_READY);
        rq1_put(p);
        return;
    }
    MPD_TL(mpd__tl_woken(p, TL_BY_PROC));
    vp_wake(vp_self(), p);
}

void mpd_unpark_handoff(mpd_proc *p)
{
    mpd_vp *vp = vp_self();
    mpd_proc *self = (mpd_proc *)(void *)vp->hot.cur;
    switch_away(vp, self, p, PS_READY, self, NULL);
}

void mpd_yield(void)
{
    mpd_vp *vp = vp_self();
    mpd_proc *self = (mpd_proc *)(void *)vp->hot.cur;
    /* MPD reschedules a yielding process in priority order: with only
     * lower priorities ready it goes on (nap(0), an expired slice) */
    if (atomic_load_explicit(&mpd__prio_mixed, memory_order_relaxed) &&
        vp->sched == &mpd_sched_fifo && self && !mpd__ready_at_least(self->hot.priority)) {
        slice_reset(vp);
        return;
    }
    mpd_proc *next = pick_next(vp);
    if (!next) {
        slice_reset(vp);
        return;
    }
    switch_away(vp, self, next, PS_READY, self, NULL);
}

void mpd__slice_expired(void)
{
    mpd_vp *vp = vp_self();
    if (mpd__slice <= 0 || !vp->hot.cur) {
        slice_reset(vp);
        return;
    }
    if (mpd__compact) {
        if (mpd__mode_one_vp())
            mpd__compact_slice_end((mpd_proc *)(void *)vp->hot.cur);
        else {
            int req = atomic_load_explicit(&mpd__compact_req, memory_order_relaxed);
            if (req == 1) {
                mpd__compact_now(vp); /* a loop top of the program: as safe as the VP loop */
            } else if (req == 2) {    /* to the VP loop, which makes this VP dormant */
                mpd__switch_out(PS_READY, (mpd_proc *)(void *)vp->hot.cur, NULL);
                return;
            } else {
                mpd__compact_slice_end_multi();
            }
        }
    }
    mpd_yield();
}

/* First code run by every process. */
void mpd__proc_start(void *arg)
{
    mpd_proc *p = arg;
#ifdef MPD_ASAN
    __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
    mpd__post_switch(vp_self());
    p->fn(p->arg);
    mpd_proc_exit(NULL);
}

/* The general exit: switch to the next process (or the VP loop). */
static __attribute__((noinline, noreturn)) void exit_switch(mpd_vp *vp, mpd_proc *self)
{
    if (mpd__proc_exit_early(vp, self)) /* its region is cached already */
        switch_away(vp, self, pick_next(vp), PS_NONE, NULL, NULL);
    else
        mpd__switch_out(PS_EXIT, self, NULL);
    mpd_rts_fatal("internal error: an exited process was resumed");
}

/* An exit can jump to the next process without a switch when the exiting
 * one saves nothing (its region goes back to the cache before: one VP, so
 * nothing can take it before the jump) and the sanitizers need not see the
 * fiber die.  exit_fast: p (just ended) may do so, with next to run. */
#if defined(MPD_CSW_HAVE_JUMP) && !defined(MPD_ASAN) && !defined(MPD_TSAN)
#define EXIT_JUMP 1
__attribute__((always_inline)) static inline int exit_fast(mpd_vp *vp, mpd_proc *p, mpd_proc *next)
{
    return __builtin_expect(
        mpd__mode_fast() && next && p->to_cache && vp->stack_cached < MPD_REGION_CACHE_MAX &&
            !((int)(atomic_load_explicit(&mpd__inbox, memory_order_relaxed) != NULL) |
              (int)(atomic_load_explicit(&mpd__ntimers, memory_order_relaxed) > 0)),
        1);
}

/* Cache p's region (one VP: a plain count) and resume next. */
__attribute__((always_inline, noreturn)) static inline void exit_jump(mpd_vp *vp, mpd_proc *p,
                                                                      mpd_proc *next)
{
    p->link = vp->stack_cache;
    vp->stack_cache = p;
    vp->stack_cached++;
    atomic_store_explicit(&mpd__nprocs,
                          atomic_load_explicit(&mpd__nprocs, memory_order_relaxed) - 1,
                          memory_order_relaxed);
    PSTATE_SET(p, P_DONE);
    p->done = 1;
    PSTATE_SET(next, P_RUNNING);
    vp_qs_note(vp, 0);
    vp->hot.cur = &next->hot;
    slice_reset(vp);
    mpd_ctx_jump_fast(&next->f.ctx);
}
#endif

void mpd_proc_exit(void *result)
{
    mpd_vp *vp = vp_self();
    mpd_proc *self = (mpd_proc *)(void *)vp->hot.cur;
    self->result = result;
#ifdef EXIT_JUMP
    runq *q = &mpd__fifo_q;
    mpd_proc *next = q->l.head;
    if (exit_fast(vp, self, next)) {
        pl_pop_head(&q->l, next, PL_RUN);
        exit_jump(vp, self, next);
    }
#endif
    exit_switch(vp, self);
}

void mpd_proc_exit_to(mpd_proc *p)
{
#ifdef EXIT_JUMP
    mpd_vp *vp = vp_self();
    mpd_proc *self = (mpd_proc *)(void *)vp->hot.cur;
    /* p is what this VP would run next: go there without the queue */
    if (mpd__fifo_q.l.head == NULL && exit_fast(vp, self, p)) {
        self->result = NULL;
        exit_jump(vp, self, p);
    }
#endif
    mpd_unpark(p);
    mpd_proc_exit(NULL);
}

/* ---- quiescence ---- */

void mpd_rt_set_quiesce_hook(mpd_quiesce_fn fn, void *arg)
{
    quiesce_hook = fn;
    quiesce_arg = arg;
}

void mpd_rt_set_report(void (*report)(void))
{
    report_fn = report ? report : mpd_rt_report_blocked;
}

static int hook_all_done;
static void hook_proc(void *arg)
{
    (void)arg;
    quiesce_hook(hook_all_done, quiesce_arg);
}

static void stop_all(void)
{
    atomic_store(&stopping, 1);
    atomic_fetch_add(&idle_seq, 2);
    futex_wake(&idle_seq, INT_MAX);
    if (mpd__compact)
        mpd__compact_stop();
}

/* Every VP is in its loop with nothing to do, no timer and no blocking
 * call pending: the program is finished or deadlocked. */
static void quiesce(void)
{
    /* processes waiting for outside events (mpd_ext_wait) are not the
     * program's: they neither keep it alive nor count as blocked */
    long n = atomic_load(&mpd__nprocs) - atomic_load(&mpd__ext_hidden);
    if (quiesce_hook && !quiesce_hook_ran) {
        quiesce_hook_ran = 1;
        hook_all_done = (n == 0);
        mpd_proc_attr a = MPD_PROC_ATTR_INIT;
        a.name = "final";
        a.detached = 1;
        mpd_proc_create(hook_proc, NULL, &a);
        return;
    }
    if (n > 0) {
        MPD_TL(mpd__tl_rec(TL_DEADLOCK, 0, (uint64_t)n, NULL, 0));
        report_fn();
    }
    stop_all();
}

static int all_idle_and_nothing_pending(void)
{
    /* A scheduler that pins processes to VPs may hold work this VP cannot
     * take while its own VP is just being woken: that is not quiescence.
     * The queues are read before nsleep: a woken VP stops counting as
     * asleep before it takes work of its own (idle_wait), so if it has
     * taken it by the time its queue is read, the count read after shows
     * it gone.  Read the other way round, a VP counted asleep could leave
     * and take its work in between, and that work readied others while
     * this VP declared a deadlock (threads pinned to 3-4 VPs on 2 CPUs, a
     * mutex/condition barrier: about one run in two once a livelock that
     * hid it was fixed, sched_cfg.c nudge_pinned). */
    for (int i = 0; i < mpd__nvp; i++) {
        if (mpd__vps[i]->sched->empty && !mpd__vps[i]->sched->empty(mpd__vps[i]->sched_st))
            return 0;
        if (!mpd__mode_one_vp() && !rq_empty(mpd__vps[i]->lq))
            return 0;
    }
    atomic_thread_fence(memory_order_seq_cst);
    if (!(atomic_load(&mpd__ntimers) == 0 && atomic_load(&mpd__io_pending) == 0 &&
          atomic_load(&mpd__inbox) == NULL))
        return 0;
    /* nsleep last, for the same reason: it only falls while this VP holds
     * idle_mu (a VP counts itself asleep under it), so if every VP still
     * counts as asleep here, none left its sleep to take work during the
     * reads above.  Read first, it let a VP woken by a finished blocking
     * call take that process from the inbox between the two reads, and
     * the program was declared deadlocked while the process ran (TSan in
     * mpf mixed: collect_blocked racing mpd_blocking_call). */
    atomic_thread_fence(memory_order_seq_cst);
    /* dormant VPs (compaction) after nsleep: one woken by an expansion
     * leaves their count before it joins nsleep, so read in this order a
     * VP is never counted twice */
    int asleep = atomic_load(&nsleep);
    return asleep + atomic_load(&mpd__ndormant) == mpd__nvp;
}

/* From any thread (the distributed layer's termination detection): is
 * this process idle right now -- every VP asleep, nothing ready, no timer
 * or blocking call pending?  Waits in mpd_ext_wait with visible = 0 do not
 * count as pending. */
int mpd_rt_idle_now(void)
{
    mpd_spin_lock(&idle_mu);
    int idle;
    /* the one-VP mode: one VP in all, or one left running by compaction
     * with the others dormant (they count in mpd__ndormant, not nsleep) */
    if (mpd__mode_one_vp() && !vp_self()) {
        /* Another thread (the distributed layer's communication thread)
         * must not read the one VP's queue: only the VP touches it, with
         * no lock (TSan: a race with pick_next).  Nor need it: the VP
         * counts itself asleep (under idle_mu, held here) only after it
         * found nothing to run, other threads ready processes through the
         * inbox, and a woken VP stops counting before it takes work.  So
         * the pending work is read first, the count last, as below. */
        idle = atomic_load(&mpd__ntimers) == 0 && atomic_load(&mpd__io_pending) == 0 &&
               atomic_load(&mpd__inbox) == NULL;
        atomic_thread_fence(memory_order_seq_cst);
        /* the mode leaves ONE only on the running VP, in a process (an
         * expansion), which is then not asleep: no false idle across it */
        idle = idle && atomic_load(&nsleep) + atomic_load(&mpd__ndormant) == mpd__nvp;
    } else {
        idle = all_idle_and_nothing_pending();
    }
    mpd_spin_unlock(&idle_mu);
    return idle;
}

/* Take another VP's runnext process.  patient: only one seen there on
 * the previous look too (so its VP had a few microseconds to run it). */
static mpd_proc *steal_runnext(mpd_vp *vp, mpd_proc **seen, int patient)
{
    for (int i = 0; i < mpd__nvp; i++) {
        mpd_vp *v = mpd__vps[i];
        if (v == vp)
            continue;
        mpd_proc *r = atomic_load_explicit(&v->runnext, memory_order_acquire);
        if (!r)
            continue;
        if (patient && seen[i] != r) {
            seen[i] = r;
            continue;
        }
        if (atomic_compare_exchange_strong(&v->runnext, &r, NULL))
            return r;
    }
    return NULL;
}

/* Take the oldest process of another VP's queue.  patient: only from a
 * queue whose owner has taken nothing from it since the previous look
 * (gets unchanged, a few microseconds ago) -- it is busy with something
 * else, a long computation or a handoff between two processes through
 * runnext.  A queue its owner keeps serving is left alone: its processes
 * talk to each other, and moving one would turn each of its handoffs into
 * a wakeup across VPs. */
static mpd_proc *steal_local(mpd_vp *vp, unsigned long *seen, int patient)
{
    for (int k = 1; k < mpd__nvp; k++) {
        int i = (vp->index + k) % mpd__nvp;
        runq *q = mpd__vps[i]->lq;
        if (atomic_load_explicit(&q->n, memory_order_relaxed) == 0)
            continue;
        unsigned long g = atomic_load_explicit(&q->gets, memory_order_relaxed);
        if (patient && (i >= 64 || seen[i] != g + 1)) {
            if (i < 64)
                seen[i] = g + 1; /* + 1: 0 means never looked */
            continue;
        }
        mpd_proc *p = rq_get(q);
        if (p)
            return p;
    }
    return NULL;
}

/* Whether this VP has more ready work of its own (after taking some). */
static int vp_has_more(mpd_vp *vp)
{
    if (vp->sched != &mpd_sched_fifo)
        return !vp->sched->empty(vp->sched_st);
    return !rq_empty(&mpd__fifo_q) || (!mpd__mode_one_vp() && !rq_empty(vp->lq));
}

/* The poll hook (ext.c): while it says so, receive work from outside on
 * this thread, looking for a process to run after each call.  With
 * several VPs this one still counts as spinning (idle_wait counted it),
 * not asleep: a wake it causes finds it looking, with no futex call. */
static mpd_proc *poll_outside(mpd_vp *vp)
{
    mpd_proc *p = NULL;
    for (;;) {
        int r = __atomic_load_n(&mpd__poll_hook, __ATOMIC_ACQUIRE)();
        p = pick_next(vp);
        if (p || r < 0 || atomic_load_explicit(&stopping, memory_order_relaxed))
            break;
    }
    if (!mpd__mode_one_vp() && (p || atomic_load(&stopping))) {
        atomic_fetch_sub(&nspin, 1); /* as the spin above does when it returns */
        if (p && vp_has_more(vp))
            mpd__wake_idle_vp();
    }
    return p;
}

/* Nothing to run: spin a little (several VPs), then sleep until woken, the
 * next timer is due, or the program ends.  Returns a process to run or NULL. */
static mpd_proc *idle_wait(mpd_vp *vp)
{
    mpd_proc *p;
    mpd_proc *seen[64] = {0};
    unsigned long seen_gets[64] = {0};
    if (atomic_load_explicit(&mpd__compact_req, memory_order_relaxed))
        return NULL; /* this VP is the last awake: it compacts at its loop's top */
    if (!mpd__mode_one_vp()) {
        atomic_fetch_add(&nspin, 1);
        /* by default ~10-50 us: long enough to catch a quick handoff from
         * another VP, short enough not to burn a shared core */
        for (int i = 0; i < mpd__idle_spin; i++) {
            p = pick_next(vp);
            if (!p && (i & 7) == 7 && vp->sched == &mpd_sched_fifo) { /* ~every 3 us */
                p = steal_runnext(vp, seen, mpd__nvp <= 64);
                if (!p)
                    p = steal_local(vp, seen_gets, 1);
            }
            if (p || atomic_load_explicit(&stopping, memory_order_relaxed) ||
                atomic_load_explicit(&mpd__compact_req, memory_order_relaxed)) {
                atomic_fetch_sub(&nspin, 1);
                /* more work queued: make sure another VP comes to look */
                if (p && vp_has_more(vp))
                    mpd__wake_idle_vp();
                return p;
            }
            if (mpd__compact && (i & 31) == 31)
                mpd__compact_trial_check();
            for (int k = 0; k < 10; k++) {
#if defined(__x86_64__)
                __builtin_ia32_pause();
#elif defined(__aarch64__)
                __asm__ volatile("yield");
#endif
            }
        }
    }
    if (__atomic_load_n(&mpd__poll_hook, __ATOMIC_ACQUIRE)) {
        p = poll_outside(vp);
        if (p || atomic_load(&stopping))
            return p;
    }
    mpd_spin_lock(&idle_mu);
    atomic_fetch_add(&nsleep, 1);
    if (!mpd__mode_one_vp())
        atomic_fetch_sub(&nspin, 1); /* after counting as asleep: see wake_idle_vp */
    /* the sleeper's half: both counts are ordered before the looks for
     * work below (a waker that saw either count still spinning or awake
     * published its work before it looked, with a fence or a seq_cst RMW) */
    atomic_thread_fence(memory_order_seq_cst);
    unsigned seq = take_pending_wake();
    atomic_thread_fence(memory_order_seq_cst); /* a waker that saw the bit set published first */
    p = pick_next(vp);
    if (!p && !mpd__mode_one_vp() && vp->sched == &mpd_sched_fifo) {
        p = steal_runnext(vp, seen, 0); /* never sleep while one waits */
        if (!p)
            p = steal_local(vp, seen_gets, 0);
    }
    if (p || atomic_load(&stopping) || atomic_load(&mpd__compact_req)) {
        atomic_fetch_sub(&nsleep, 1);
        take_pending_wake();
        mpd_spin_unlock(&idle_mu);
        return p;
    }
    /* the idle hook (ext.c) may say that work can still come from outside */
    if (all_idle_and_nothing_pending() && !(__atomic_load_n(&mpd__idle_hook, __ATOMIC_ACQUIRE) &&
                                            __atomic_load_n(&mpd__idle_hook, __ATOMIC_ACQUIRE)())) {
        quiesce();
        p = pick_next(vp);
        atomic_fetch_sub(&nsleep, 1);
        take_pending_wake();
        mpd_spin_unlock(&idle_mu);
        return p;
    }
    mpd_spin_unlock(&idle_mu);
    struct timespec ts, *tp = NULL;
    if (atomic_load(&mpd__ntimers) > 0) {
        int64_t d = mpd__timers_next() - mpd_now_ns();
        if (d < 0)
            d = 0;
        ts.tv_sec = d / 1000000000;
        ts.tv_nsec = d % 1000000000;
        tp = &ts;
    }
    if (mpd__compact && !mpd__mode_one_vp() &&
        (!tp || ts.tv_sec > 0 || ts.tv_nsec > mpd__compact_idle_ns)) {
        /* wake up in time to go dormant (the VP loop) */
        ts.tv_sec = mpd__compact_idle_ns / 1000000000;
        ts.tv_nsec = mpd__compact_idle_ns % 1000000000;
        tp = &ts;
    }
    atomic_store_explicit(&vp->asleep, 1, memory_order_relaxed);
    idle_futex_wait(seq, tp, vp_bit(vp->index));
    atomic_store_explicit(&vp->asleep, 0, memory_order_relaxed);
    atomic_fetch_sub(&nsleep, 1);
    /* before it takes work of its own: see all_idle_and_nothing_pending */
    atomic_thread_fence(memory_order_seq_cst);
    take_pending_wake();
    return NULL;
}

int mpd__vp_asleep(int i)
{
    return i >= 0 && i < mpd__nvp &&
           atomic_load_explicit(&mpd__vps[i]->asleep, memory_order_relaxed);
}

/* The loop each VP runs on its thread's own stack. */
void mpd__vp_loop_run(mpd_vp *vp)
{
    int64_t idle_since = 0; /* compaction: when this VP last had work */
    for (;;) {
        mpd__post_switch(vp);
        if (atomic_load_explicit(&stopping, memory_order_relaxed))
            return;
        if (mpd__compact && !mpd__mode_one_vp()) {
            int req = atomic_load_explicit(&mpd__compact_req, memory_order_relaxed);
            if (req == 1)
                mpd__compact_now(vp);
            else if (req == 2)
                mpd__compact_idle(vp); /* dormant, unless the last VP awake */
            else
                mpd__compact_trial_check();
        }
        mpd_proc *p = pick_next(vp);
        if (!p) {
            MPD_TL(mpd__tl_loop_idle());
            p = idle_wait(vp);
            if (!p && mpd__compact && !mpd__mode_one_vp()) {
                int64_t now = mpd_now_ns();
                if (!idle_since)
                    idle_since = now;
                else if (now - idle_since >= mpd__compact_idle_ns) {
                    idle_since = 0;
                    mpd__compact_idle(vp);
                }
            }
        }
        if (!p)
            continue;
        idle_since = 0;
        MPD_TL(mpd__tl_loop_run(p));
        PSTATE_SET(p, P_RUNNING);
        vp_qs_note(vp, 0);
        vp->hot.cur = &p->hot;
        slice_reset(vp);
        fiber_switch(&vp->loop, &p->f, 0);
        vp->hot.cur = NULL;
        vp_qs_note(vp, 1);
    }
}
