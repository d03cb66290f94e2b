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
long mpd__compact_left = LONG_MAX;         /* rt.h; mpd__compact_start */
static unsigned long sample_at = LONG_MAX; /* the message count when mpd__compact_left is 0 */
/* Messages so far in the one-VP mode (sends, calls of input ops, receives). */
static inline unsigned long talk_now(void)
{
    return sample_at - (unsigned long)mpd__compact_left;
}
/* The next look at a message, n messages from now (0: none). */
static void sample_in(unsigned long n)
{
    if (!n || n > LONG_MAX)
        n = LONG_MAX;
    sample_at = talk_now() + n;
    mpd__compact_left = (long)n;
}
uint32_t mpd__send_flow;
static unsigned long talk_seen; /* talk_now() at the previous slice end */
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

/* The second trigger: groups that talk only among themselves.  Processes
 * that block on every message never end a slice, so the first trigger never
 * sees them, yet two sets of them that never wake each other (independent
 * ping-pong pairs) are work for two VPs.  In the one-VP mode every
 * SAMPLE_EVERY messages (sends, calls of input ops, receives: the language
 * layer's talk_note) a window of WIN_MSGS messages is looked at: at steps
 * of WIN_STEP on average, an edge between the running process and what the
 * message goes through (the lock class of the op's instance: ops of one
 * instance contend for that lock on several VPs, so they stay together).
 * The connected components of that graph are the groups.  With two or more
 * groups of at least MIN_SHARE of the looks each, the next loop top expands
 * (a slice end forced by a fresh slice of 1) and places each group's ready
 * processes on one VP's own queue, the running process's group on its own
 * VP; the runnext rule keeps each group where it is put.  Whether it pays
 * is measured as for the first trigger, in messages per ns instead of slice
 * ends: the window's rate against the rate of all VPs over the trial. */
unsigned long mpd__compact_sample_every = 65536; /* MPD_COMPACT_SAMPLE */
#define SAMPLE_EVERY mpd__compact_sample_every
/* a sixteenth of that, from 16 to 4096 */
#define WIN_MSGS                                                                                   \
    (SAMPLE_EVERY / 16 < 16 ? 16UL : SAMPLE_EVERY / 16 > 4096 ? 4096UL : SAMPLE_EVERY / 16)
#define WIN_STEP 8UL
#define MIN_SHARE 0.1
#define NNODE 128 /* processes and keys a window can tell apart */
#define NHASH 256
static long n_expand_groups;
int mpd__compact_count_multi;
static struct gnode {
    const void *id;
    int up;     /* union-find parent */
    long looks; /* messages seen at this node (its root: the group's) */
    int vp;     /* at a decided expansion, processes: the VP index for it */
    char proc;  /* a process, not a key */
} gnodes[NNODE];
static short ghash[NHASH]; /* node index + 1, 0 empty */
static int gn;             /* nodes in use; -1: the window overflowed */
static int swin_on;        /* a window is open */
static unsigned long swin_end;
static int64_t swin_t0;
static unsigned swin_rand = 1;
static int group_expand; /* a window found groups: expand at the next slice end */
static long group_ngroups;
static int trial_talk;   /* the trial on counts messages (the groups' trigger) */
static double rate_talk; /* messages per ns in the one-VP mode, before it */
typedef struct {
    _Alignas(64) unsigned long n; /* __atomic: its VP adds, a trial's end reads */
} talk_ctr;
static talk_ctr *talk_multi;                /* several VPs, a talk trial: messages per VP */
_Thread_local unsigned long *mpd__tls_talk; /* rt.h: &talk_multi[this VP].n */

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
    sample_in(SAMPLE_EVERY);
    talk_multi = aligned_alloc(64, sizeof(talk_ctr) * (size_t)nvp);
    if (!talk_multi)
        abort();
    for (int i = 0; i < nvp; i++)
        talk_multi[i].n = 0;
    mpd__tls_talk = &talk_multi[0].n; /* the calling thread is VP 0 */
}

/* ---- the groups' trigger (the one-VP mode, on the one VP awake) -------- */

static int gnode_of(const void *id, int proc)
{
    unsigned h = (unsigned)(((uintptr_t)id >> 4) * 0x9E3779B1u) % NHASH;
    for (;; h = (h + 1) % NHASH) {
        int i = ghash[h] - 1;
        if (i < 0)
            break;
        if (gnodes[i].id == id)
            return i;
    }
    if (gn >= NNODE - 1) /* a full table would never stop probing: keep one free */
        return -1;
    int i = gn++;
    gnodes[i] = (struct gnode){.id = id, .up = i, .looks = 0, .vp = -1, .proc = (char)proc};
    ghash[h] = (short)(i + 1);
    return i;
}

static int groot(int i)
{
    while (gnodes[i].up != i) {
        gnodes[i].up = gnodes[gnodes[i].up].up;
        i = gnodes[i].up;
    }
    return i;
}

/* The VP index a process goes to at a group expansion, or -1. */
static int group_vp_of(mpd_proc *p)
{
    unsigned h = (unsigned)(((uintptr_t)p >> 4) * 0x9E3779B1u) % NHASH;
    for (;; h = (h + 1) % NHASH) {
        int i = ghash[h] - 1;
        if (i < 0)
            return -1;
        if (gnodes[i].id == p)
            return gnodes[i].proc ? gnodes[groot(i)].vp : -1;
    }
}

/* The window is over: are there groups, and where would each go?  Groups
 * go to VPs heaviest first, each to the VP with the fewest looks so far,
 * the running process's group to its own VP. */
static int groups_decide(mpd_proc *self, int self_vp)
{
    if (gn <= 0)
        return 0;
    long total = 0;
    int roots[NNODE], nr = 0;
    for (int i = 0; i < gn; i++)
        total += gnodes[i].looks;
    for (int i = 0; i < gn; i++) { /* each group's looks to its root */
        int r = groot(i);
        if (r != i) {
            gnodes[r].looks += gnodes[i].looks;
            gnodes[i].looks = 0;
        }
    }
    for (int i = 0; i < gn; i++)
        if (groot(i) == i && gnodes[i].looks >= MIN_SHARE * (double)total)
            roots[nr++] = i;
    if (nr < 2)
        return 0;
    long load[64] = {0};
    int nvp = mpd__nvp < 64 ? mpd__nvp : 64;
    int me = gnode_of(self, 1);
    int rme = me >= 0 ? groot(me) : -1;
    for (int i = 0; i < nr; i++)
        if (roots[i] == rme) {
            gnodes[rme].vp = self_vp;
            load[self_vp] += gnodes[rme].looks;
        }
    for (int k = 0; k < nr; k++) { /* heaviest unplaced group next */
        int best = -1;
        for (int i = 0; i < nr; i++)
            if (gnodes[roots[i]].vp < 0 &&
                (best < 0 || gnodes[roots[i]].looks > gnodes[roots[best]].looks))
                best = i;
        if (best < 0)
            break;
        int v = 0;
        for (int j = 1; j < nvp; j++)
            if (load[j] < load[v])
                v = j;
        gnodes[roots[best]].vp = v;
        load[v] += gnodes[roots[best]].looks;
    }
    group_ngroups = nr;
    return 1;
}

/* The language layer, one VP: mpd__compact_left reached 0.  Opens a
 * window, looks at a message, or closes the window (and asks for an
 * expansion when it found groups). */
void mpd__compact_sample(const void *key)
{
    unsigned long talk = talk_now();
    mpd_vp *vp = vp_self();
    mpd_proc *self = (mpd_proc *)(void *)vp->hot.cur;
    if (!swin_on) {
        int64_t now = mpd_now_ns();
        if (!SAMPLE_EVERY || group_expand || now < backoff_until || !self) {
            sample_in(SAMPLE_EVERY);
            return;
        }
        swin_on = 1;
        swin_end = talk + WIN_MSGS;
        swin_t0 = now;
        gn = 0;
        for (int i = 0; i < NHASH; i++)
            ghash[i] = 0;
    }
    if (self && gn >= 0) {
        int a = gnode_of(self, 1), b = gnode_of(key, 0);
        if (a < 0 || b < 0) {
            gn = -1; /* too many to tell apart: no decision from this window */
        } else {
            gnodes[a].looks++;
            int ra = groot(a), rb = groot(b);
            if (ra != rb)
                gnodes[ra].up = rb;
        }
    }
    if (talk < swin_end) {
        /* a step of 1 to 2*WIN_STEP-1, so that no period of the program's
         * messages hides some of them (4 pairs: a period of 16) */
        swin_rand = swin_rand * 1103515245u + 12345u;
        sample_in(1 + (swin_rand >> 16) % (2 * WIN_STEP - 1));
        return;
    }
    swin_on = 0;
    sample_in(SAMPLE_EVERY);
    int64_t now = mpd_now_ns();
    if (mpd__compact_debug > 1)
        fprintf(stderr, "window at %.3f ms: %d nodes\n", (now - mpd__start_ns) / 1e6, gn);
    if (self && groups_decide(self, vp->index) && now > swin_t0) {
        rate_talk = (double)WIN_MSGS / (double)(now - swin_t0);
        group_expand = 1;
        /* the next loop top of any process ends its slice, where
         * mpd__compact_slice_end expands */
        mpd__slice_fresh = 1;
        mpd__tls_slice = 1;
    }
}

/* A VP other than 0 at its start, with compaction on. */
void mpd__compact_first_sleep(void)
{
    mpd__tls_talk = &talk_multi[vp_self()->index].n;
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
        swin_on = 0;
        sample_in(SAMPLE_EVERY);
        win_start = mpd_now_ns();
        win_ends = 0;
        atomic_store(&mpd__compact_trial_on, 0);
        __atomic_store_n(&mpd__compact_count_multi, 0, __ATOMIC_RELAXED);
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

/* A group expansion: each ready process of a group goes to the own queue
 * of its group's VP (in the order of the shared queue), the others stay in
 * the shared queue.  The one-VP mode still: plain links; the counts are set
 * here, as expand does for the shared queue. */
static void place_groups(void)
{
    mpd_proc *p = mpd__fifo_q.l.head;
    mpd__fifo_q.l.head = mpd__fifo_q.l.tail = NULL;
    while (p) {
        mpd_proc *next = p->link;
        p->link = NULL;
        int v = group_vp_of(p);
        runq *q = v >= 0 && v < mpd__nvp ? mpd__vps[v]->lq : &mpd__fifo_q;
        if (q->l.tail)
            q->l.tail->link = p;
        else
            q->l.head = p;
        q->l.tail = p;
        if (q != &mpd__fifo_q)
            atomic_store_explicit(&q->n, atomic_load_explicit(&q->n, memory_order_relaxed) + 1,
                                  memory_order_relaxed);
        p = next;
    }
}

/* Expand to several VPs: called on the one VP awake, in the one-VP mode;
 * groups: the groups' trigger (place them, measure messages). */
static void expand(int64_t now, int groups)
{
    mpd_spin_lock(&dorm_mu);
    rate_one = (double)win_ends / (double)(now - win_start);
    trial_talk = groups;
    if (groups) {
        for (int i = 0; i < mpd__nvp; i++)
            __atomic_store_n(&talk_multi[i].n, 0, __ATOMIC_RELAXED);
        /* with priorities mixed everything goes to the shared queue,
         * which alone keeps MPD's priority order (vp_wake) */
        if (!atomic_load_explicit(&mpd__prio_mixed, memory_order_relaxed))
            place_groups();
        __atomic_store_n(&mpd__compact_count_multi, 1, __ATOMIC_RELAXED);
    }
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
    n_expand_groups += groups;
    if (mpd__compact_debug)
        fprintf(stderr, "expand %ld at %.3f ms (talk %lu%s%ld%s)\n", n_expand,
                (mpd_now_ns() - mpd__start_ns) / 1e6, talk_now(), groups ? ", " : "",
                groups ? group_ngroups : 0L, groups ? " groups" : "");
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
    if (group_expand) { /* the groups' trigger forced this slice end */
        group_expand = 0;
        mpd__slice_fresh = mpd__slice;
        if (q->l.head && now >= backoff_until) {
            expiry_yielder = NULL;
            expand(now, 1);
            return;
        }
    }
    unsigned long talk = talk_now() - talk_seen;
    talk_seen = talk_now();
    if (!q->l.head) {
        expiry_yielder = NULL;
        return;
    }
    if (expiry_yielder && expiry_yielder != self && q->l.tail == expiry_yielder &&
        talk <= TALK_MAX && now >= backoff_until &&
        now - win_start >= (WINDOW_MIN_NS < TRIAL_NS ? WINDOW_MIN_NS : TRIAL_NS)) {
        expiry_yielder = NULL;
        expand(now, 0);
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
    double dt = (double)(now - atomic_load(&trial_start));
    double rate = (double)atomic_load(&trial_ends) / dt, before = rate_one;
    if (trial_talk) { /* the groups' trigger: messages per ns */
        __atomic_store_n(&mpd__compact_count_multi, 0, __ATOMIC_RELAXED);
        unsigned long m = 0;
        for (int i = 0; i < mpd__nvp; i++)
            m += __atomic_load_n(&talk_multi[i].n, __ATOMIC_RELAXED);
        rate = (double)m / dt;
        before = rate_talk;
    }
    if (rate < GAIN * before) {
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
        fprintf(stderr, "trial at %.3f: %g vs %g %s per ms: %s\n", (now - mpd__start_ns) / 1e6,
                rate * 1e6, before * 1e6, trial_talk ? "messages" : "slice ends",
                shrink ? "compact" : "keep");
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
/* Expansions so far, and how many of them the groups' trigger made (tests). */
long mpd__compact_expansions(long *groups)
{
    if (groups)
        *groups = n_expand_groups;
    return n_expand;
}

void mpd__compact_stop(void)
{
    if (mpd__compact_debug)
        fprintf(stderr,
                "compact: %ld expansions (%ld by groups), %ld compactions, end at %.3f ms\n",
                n_expand, n_expand_groups, n_compact, (mpd_now_ns() - mpd__start_ns) / 1e6);
    atomic_fetch_add(&dorm_gen, 1);
    futex_wake_gen();
}
