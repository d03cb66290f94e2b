/* compact.c: compaction -- with several VPs, run in the one-VP mode (no
 * locks, no atomic read-modify-writes, the inline fast paths) while one VP
 * has all the work, the other VPs dormant on a futex of their own; expand to
 * MPD_MODE_MULTI when work waits, and compact back once the other VPs have
 * been idle for a while (docs/runtime.md, "Compaction").
 *
 * The mode changes only
 *   - to ONE at the top of the VP loop of the one VP still awake (nothing of
 *     a process is on that VP: its post-switch action is done), after every
 *     other VP acknowledged under dorm_mu that it is dormant (it touches no
 *     process, queue or semaphore until it sees an expansion);
 *   - to MULTI on the one awake VP, in a process at a slice's end (a loop
 *     top of the program: no runtime lock or critical section open, every
 *     other process parked or ready at a switch point), before it wakes the
 *     dormant VPs.
 * Both under dorm_mu, which orders what the VPs did before against what the
 * others do after. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "core/rt_internal.h"
#include "core/switch.h"

int mpd__compact;                       /* mpd_rt_main: on with several VPs (MPD_COMPACT) */
int64_t mpd__compact_idle_ns = 1000000; /* idle this long, a VP goes dormant */
atomic_int mpd__compact_req;            /* all VPs but one dormant: the last one flips */
atomic_int mpd__ndormant;               /* VPs acknowledged dormant */
static atomic_uint dorm_gen;            /* futex word: bumped by each expansion and the end */
static mpd_spinlock dorm_mu = MPD_SPINLOCK_INIT;
/* ONE mode: the process the last slice end sent to the tail of the queue */
static mpd_proc *expiry_yielder;
unsigned long mpd__compact_talk;
uint32_t mpd__send_flow;
static unsigned long talk_seen; /* mpd__compact_talk at the previous slice end */
#define TALK_MAX 4              /* messages between two slice ends that still count as none */

/* Whether an expansion pays is measured, not guessed: the several-VP mode's
 * locks and atomics cost 2-5x the one-VP mode's per operation, so processes
 * that talk as much as they compute run slower on two VPs than on one.
 * The measure of progress is the time slice: slice ends per millisecond
 * (each is mpd__slice loop iterations run without a switch) in the one-VP
 * mode before an expansion, against the same over TRIAL_NS after it, on all
 * VPs together.  Unless the second is at least GAIN times the first, the
 * runtime compacts again and waits before the next try, twice as long each
 * time a try fails (BACKOFF_MIN to BACKOFF_MAX). */
#define WINDOW_NS 10000000LL    /* the one-VP rate: over at most the last 10 ms */
#define WINDOW_MIN_NS 1000000LL /* ... and at least 1 ms */
#define GAIN 1.25
#define BACKOFF_MAX (128 * BACKOFF_MIN < 128000000LL ? 128 * BACKOFF_MIN : 128000000LL)
int64_t mpd__compact_trial_ns = 1000000; /* MPD_COMPACT_TRIAL_US */
#define TRIAL_NS mpd__compact_trial_ns
#define BACKOFF_MIN (16 * mpd__compact_trial_ns)
static int64_t win_start; /* one-VP mode: slice ends since win_start */
static long win_ends;
static int64_t backoff_until, backoff_ns = -1; /* -1: BACKOFF_MIN */
static double rate_one;                        /* slice ends per ns before the expansion */
static atomic_llong trial_start;               /* several VPs: the trial's start */
atomic_int mpd__compact_trial_on;              /* 1 while an expansion is on trial */
static atomic_long trial_ends;                 /* slice ends since trial_start, every VP */
static long n_expand, n_compact;
int mpd__compact_debug; /* MPD_COMPACT_DEBUG=1: each flip and trial to stderr */

/* lang/opobj.c, where the language layer is linked: SEM1 ops (the
 * generated code's unlocked inline P/V) off before an expansion, on again
 * after a compaction. */
void mpd__lang_sem1_all(int on) __attribute__((weak));

static void futex_wait_gen(unsigned val)
{
    syscall(SYS_futex, (unsigned *)&dorm_gen, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}
static void futex_wake_gen(void)
{
    syscall(SYS_futex, (unsigned *)&dorm_gen, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static inline void mode_store(long m)
{
    __atomic_store_n(&mpd__mode, m, __ATOMIC_RELEASE);
}

/* Sleep until the next expansion (or the end of the program). */
static void dormant_sleep(unsigned g)
{
    while (atomic_load(&dorm_gen) == g && !mpd__vp_stopping())
        futex_wait_gen(g);
}

/* Called by mpd_rt_main before the other VPs start: VP 0 alone is awake. */
void mpd__compact_start(int nvp)
{
    atomic_store(&mpd__ndormant, nvp - 1);
}

/* A VP other than 0 at its start, with compaction on. */
void mpd__compact_first_sleep(void)
{
    dormant_sleep(0);
}

/* Move every process of vp's runnext slot and own queue to the shared one. */
static void merge_vp(mpd_vp *v)
{
    mpd_proc *r = atomic_exchange(&v->runnext, NULL);
    if (r)
        rq_put(&mpd__fifo_q, r);
    mpd_proc *p;
    while ((p = rq_get(v->lq)))
        rq_put(&mpd__fifo_q, p);
}

/* vp has found nothing to do for mpd__compact_idle_ns (several VPs):
 * become dormant unless it is the last VP awake. */
void mpd__compact_idle(mpd_vp *vp)
{
    mpd_spin_lock(&dorm_mu);
    int n = atomic_load(&mpd__ndormant);
    if (__atomic_load_n(&mpd__mode, __ATOMIC_RELAXED) != MPD_MODE_MULTI || n >= mpd__nvp - 1 ||
        mpd__vp_stopping()) {
        mpd_spin_unlock(&dorm_mu);
        return;
    }
    /* what waits on this VP goes where the VPs left awake look */
    int had = atomic_load(&vp->runnext) != NULL || !rq_empty(vp->lq);
    merge_vp(vp);
    atomic_store(&mpd__ndormant, n + 1);
    unsigned g = atomic_load(&dorm_gen);
    int last = (n + 1 == mpd__nvp - 1);
    if (last)
        atomic_store(&mpd__compact_req, 1);
    mpd_spin_unlock(&dorm_mu);
    if (mpd__compact_debug)
        fprintf(stderr, "vp %d dormant at %.3f ms\n", vp->index,
                (mpd_now_ns() - mpd__start_ns) / 1e6);
    if (last) /* the VP left awake may be asleep: it flips at its loop's top */
        mpd__wake_all_idle_vps();
    else if (had)
        mpd__wake_idle_vp();
    dormant_sleep(g);
}

/* The top of vp's loop with mpd__compact_req set: vp is the only VP awake,
 * so it takes every ready process into the one queue and enters the
 * one-VP mode. */
void mpd__compact_now(mpd_vp *vp)
{
    mpd_spin_lock(&dorm_mu);
    if (atomic_load(&mpd__compact_req) && atomic_load(&mpd__ndormant) == mpd__nvp - 1 &&
        __atomic_load_n(&mpd__mode, __ATOMIC_RELAXED) == MPD_MODE_MULTI) {
        merge_vp(vp);
        for (int i = 0; i < mpd__nvp; i++)
            if (mpd__vps[i] != vp)
                merge_vp(mpd__vps[i]);
        /* the counts are not kept in the one-VP mode (runq.h): expansion
         * recounts the shared queue, and the others are empty */
        atomic_store_explicit(&mpd__fifo_q.n, 0, memory_order_relaxed);
        expiry_yielder = NULL;
        win_start = mpd_now_ns();
        win_ends = 0;
        atomic_store(&mpd__compact_trial_on, 0);
        mpd__mode_set(1, 1);
        if (mpd__lang_sem1_all)
            mpd__lang_sem1_all(1);
        n_compact++;
        if (mpd__compact_debug)
            fprintf(stderr, "compact %ld (%ld) at %.3f ms\n", n_compact, n_expand,
                    (mpd_now_ns() - mpd__start_ns) / 1e6);
    }
    atomic_store(&mpd__compact_req, 0);
    mpd_spin_unlock(&dorm_mu);
}

/* Expand to several VPs: called on the one VP awake, in the one-VP mode. */
static void expand(int64_t now)
{
    mpd_spin_lock(&dorm_mu);
    rate_one = (double)win_ends / (double)(now - win_start);
    atomic_store_explicit(&trial_start, now, memory_order_relaxed);
    atomic_store(&trial_ends, 0);
    atomic_store(&mpd__compact_trial_on, 1);
    long n = 0;
    for (mpd_proc *p = mpd__fifo_q.l.head; p; p = p->link)
        n++;
    atomic_store_explicit(&mpd__fifo_q.n, n, memory_order_relaxed);
    if (mpd__lang_sem1_all)
        mpd__lang_sem1_all(0);
    mode_store(MPD_MODE_MULTI);
    n_expand++;
    if (mpd__compact_debug)
        fprintf(stderr, "expand %ld at %.3f ms (talk %lu)\n", n_expand,
                (mpd_now_ns() - mpd__start_ns) / 1e6, mpd__compact_talk);
    atomic_store(&mpd__ndormant, 0);
    atomic_store(&mpd__compact_req, 0);
    atomic_fetch_add(&dorm_gen, 1);
    mpd_spin_unlock(&dorm_mu);
    futex_wake_gen();
}

/* Several VPs, some dormant though no other VP is idle (more than two VPs;
 * with two, a dormant VP means a compaction is on its way): wake them. */
void mpd__compact_wake_dormant(void)
{
    mpd_spin_lock(&dorm_mu);
    int go = __atomic_load_n(&mpd__mode, __ATOMIC_RELAXED) == MPD_MODE_MULTI &&
             !atomic_load(&mpd__compact_req) && atomic_load(&mpd__ndormant) > 0;
    if (go) {
        atomic_store(&mpd__ndormant, 0);
        atomic_fetch_add(&dorm_gen, 1);
    }
    mpd_spin_unlock(&dorm_mu);
    if (go)
        futex_wake_gen();
}

/* A slice ended in the one-VP mode (mpd__slice_expired, before its yield).
 * Work waits when the process that ran the slice readied nobody meanwhile
 * -- the tail of the queue is still the one the previous slice end put
 * there -- and sent, called or received (almost) nothing since the previous
 * slice end,
 * and still others are ready: two processes compute without talking, which
 * another VP can share.  A process that keeps others busy (a producer whose
 * consumers run briefly, a pipeline's stage) sends and stays. */
void mpd__compact_slice_end(mpd_proc *self)
{
    runq *q = &mpd__fifo_q;
    int64_t now = mpd_now_ns();
    if (now - win_start > WINDOW_NS) {
        win_start = now;
        win_ends = 0;
    }
    win_ends++;
    unsigned long talk = mpd__compact_talk - talk_seen;
    talk_seen = mpd__compact_talk;
    if (!q->l.head) {
        expiry_yielder = NULL;
        return;
    }
    if (expiry_yielder && expiry_yielder != self && q->l.tail == expiry_yielder &&
        talk <= TALK_MAX && now >= backoff_until &&
        now - win_start >= (WINDOW_MIN_NS < TRIAL_NS ? WINDOW_MIN_NS : TRIAL_NS)) {
        expiry_yielder = NULL;
        expand(now);
        return;
    }
    expiry_yielder = self;
}

/* Several VPs: the end of an expansion's trial (see GAIN above): keep the
 * VPs, or make all but one dormant (mpd__compact_req 2: each VP at its
 * loop's top, mpd__compact_dormant) and try again later. */
static void trial_end(int64_t now)
{
    int expect = 1;
    if (!atomic_compare_exchange_strong(&mpd__compact_trial_on, &expect, 0))
        return;
    mpd_spin_lock(&dorm_mu);
    double rate = (double)atomic_load(&trial_ends) / (double)(now - atomic_load(&trial_start));
    if (rate < GAIN * rate_one) {
        if (backoff_ns < 0)
            backoff_ns = BACKOFF_MIN;
        backoff_until = now + backoff_ns;
        backoff_ns = backoff_ns * 2 > BACKOFF_MAX ? BACKOFF_MAX : backoff_ns * 2;
        if (__atomic_load_n(&mpd__mode, __ATOMIC_RELAXED) == MPD_MODE_MULTI &&
            !atomic_load(&mpd__compact_req))
            atomic_store(&mpd__compact_req, 2);
    } else {
        backoff_ns = BACKOFF_MIN;
    }
    int shrink = atomic_load(&mpd__compact_req) == 2;
    mpd_spin_unlock(&dorm_mu);
    if (shrink) /* idle VPs too */
        mpd__wake_all_idle_vps();
    if (mpd__compact_debug)
        fprintf(stderr, "trial at %.3f: %g vs %g per ms: %s\n", (now - mpd__start_ns) / 1e6,
                rate * 1e6, rate_one * 1e6, shrink ? "compact" : "keep");
}

/* A slice ended with several VPs. */
void mpd__compact_slice_end_multi(void)
{
    if (!atomic_load_explicit(&mpd__compact_trial_on, memory_order_relaxed))
        return;
    atomic_fetch_add_explicit(&trial_ends, 1, memory_order_relaxed);
    mpd__compact_trial_check();
}

/* Several VPs: is a trial due to end?  From slice ends and from the VP
 * loop, so that a trial ends also when no slice does. */
void mpd__compact_trial_check(void)
{
    if (!atomic_load_explicit(&mpd__compact_trial_on, memory_order_relaxed))
        return;
    int64_t now = mpd_now_ns();
    if (now - atomic_load_explicit(&trial_start, memory_order_relaxed) >= TRIAL_NS)
        trial_end(now);
}

/* The end of the program: dormant VPs return from their loops too. */
void mpd__compact_stop(void)
{
    if (mpd__compact_debug)
        fprintf(stderr, "compact: %ld expansions, %ld compactions, end at %.3f ms\n", n_expand,
                n_compact, (mpd_now_ns() - mpd__start_ns) / 1e6);
    atomic_fetch_add(&dorm_gen, 1);
    futex_wake_gen();
}
