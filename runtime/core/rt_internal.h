/* rt_internal.h: private structures of the runtime core (processes, VPs).
 *
 * Invariants:
 *  - A process runs on at most one VP at a time.  A process that stops
 *    running (blocks, yields, exits) is published -- put in a run queue,
 *    its lock released, its stack freed -- only by the NEXT context on the
 *    same VP, after the switch (vp->post), so no other VP can resume a
 *    process still on its stack.
 *  - A process is in at most one run queue (via link) and one wait queue
 *    (via wlink); only a timed-out waiter is in both, until it runs and
 *    removes itself from the wait queue.
 *  - With one VP (mpd__mode_one_vp) only that VP's thread touches processes,
 *    run queues and semaphores; helper threads (blocking calls) talk to the
 *    VPs through the atomic inbox only.
 */
#ifndef MPD_RT_INTERNAL_H
#define MPD_RT_INTERNAL_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "mpd/rt.h"
#include "mpd/abi/ops.h" /* mpd/abi/handoff.h: the fields it mirrors */
#include "csw/csw.h"
#include "core/timeline.h"

#if defined(__SANITIZE_ADDRESS__)
#define MPD_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define MPD_TSAN 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MPD_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define MPD_TSAN 1
#endif
#endif

/* A fiber: something we can switch to (a process, or a VP's own loop). */
typedef struct mpd_fiber {
    mpd_ctx ctx;
    char *stack_lo; /* usable stack [stack_lo, stack_lo + stack_size) */
    size_t stack_size;
#ifdef MPD_TSAN
    void *tsan;
#endif
#ifdef MPD_ASAN
    void *asan_fake;
#endif
} mpd_fiber;

enum { P_READY, P_RUNNING, P_BLOCKED, P_NAPPING, P_IOWAIT, P_DONE };
/* A timed wait ends either by a wakeup or by its timer; each side claims the
 * process with a CAS from CL_WAITING, and only the winner readies it. */
enum { CL_NONE, CL_WAITING, CL_WOKEN, CL_TIMEDOUT };

struct mpd_vp;

/* A locked FIFO of processes (core/runq.h); n lets readers skip the lock
 * when empty.  With one VP there is no lock to skip: n is neither kept nor
 * read, and emptiness is head == NULL.  gets counts the pops (several VPs
 * only): a VP's own queue whose count stays put while it holds processes
 * is one its owner is not getting to, which another VP may then steal
 * from (vp.c, steal_local). */
typedef struct runq {
    mpd_spinlock lk;
    mpd_plist l; /* through link (core/plist.h) */
    atomic_long n;
    atomic_ulong gets;
    char pad[56]; /* gets took 8 of the 64: the size is unchanged */
} runq;

struct mpd_proc {
    struct mpd__proc_hot hot;      /* must be first: inline accessors use it */
    mpd_proc *link;                /* run queue (schedulers) */
    int state;                     /* P_*: written only by whoever owns p (the
                                   VP running it, or the one that readies
                                   it), with PSTATE_SET; read across VPs
                                   only to skip dead records (each_live) */
    mpd_fiber f;                   /* hot, link, state, f.ctx: mpd/abi/handoff.h */
    mpd_proc *wlink;               /* wait queue: separate, since a timed-out
                                   waiter is ready before it leaves its queue */
    mpd_proc *reg_next, *reg_prev; /* every mapped region (stack.c) */
    void (*fn)(void *);
    void *arg;
    void *result;
    /* join/detach: under lock (when several VPs) */
    int done; /* p exited and is off its stack */
    int detached;
    mpd_proc *joiner;
    mpd_spinlock lock; /* done, detached, joiner */
    char *map_base;    /* the mmap'd region holding stack + this */
    size_t map_size;
    uint64_t seq; /* creation order */
    /* blocking call in flight */
    intptr_t (*io_fn)(void *);
    void *io_arg;
    intptr_t io_result;
    int io_errno;
    mpd_proc *io_next;    /* helper queue / inbox */
    int64_t wake_ns;      /* nap / timed wait deadline */
    long heap_idx;        /* place in the timer heap, -1 if not there */
    atomic_int claim;     /* timed wait: CL_* (who ends the wait) */
    const char *name_ref; /* a static name (attr.name_static), else NULL */
    char *long_name;
    int run_now;    /* mpd_proc_launch: hand the VP over */
    int autofree;   /* created detached: nobody can join it */
    int to_cache;   /* autofree, default-size region, no long
                                   name: its exit may cache the region */
    int std_region; /* default-size region: goes back to a cache */
    char name[40];  /* a copied name that fits */
};
/* A process's state is also read from other VPs by a destroy's look at
 * every process (mpd_rt_foreach_proc: is it alive?), so it is stored
 * atomically -- a plain move on x86-64 and AArch64, no fence. */
#define PSTATE_SET(p, s) __atomic_store_n(&(p)->state, (s), __ATOMIC_RELAXED)

/* What the next context must do for the one that switched away. */
enum { PS_NONE, PS_UNLOCK, PS_READY, PS_EXIT, PS_IO, PS_TIMED };

typedef struct mpd_vp {
    struct mpd__vp_hot hot; /* must be first */
    int post_kind;          /* PS_*: what the next context must do
                                   (hot and post_kind: mpd/abi/handoff.h) */
    int index;
    /* Several VPs, FIFO scheduler: a process just woken by this VP's running
     * process runs next here (like Go's runnext), so a handoff stays on one
     * VP; other VPs take it only once it has waited a few microseconds. */
    _Atomic(mpd_proc *) runnext;
    mpd_fiber loop; /* the VP's scheduler loop on the thread stack */
    const mpd_sched_ops *sched;
    void *sched_st;
    mpd_proc *post_proc;
    mpd_spinlock *post_lock;
    mpd_proc *stack_cache; /* free default-size regions */
    int stack_cached;
    void *altstack;
    atomic_int asleep; /* 1 while its thread waits on the idle futex (vp.c) */
    /* Quiescent states for memory reclamation (mpd_vp_quiescent): counts
     * this VP's switches, and says whether it is in its loop (no process).
     * Only its own thread writes them; the one-VP inline switches skip them. */
    atomic_ulong qs_count;
    atomic_int qs_idle;
    /* Several VPs, FIFO scheduler: this VP's own ready queue.  What this
     * VP's processes make ready goes here, so processes that talk to each
     * other stay on one VP; an idle VP steals only from a queue its owner
     * has not served for a few microseconds (docs/runtime.md, "Placement").
     * Allocated apart, on cache lines of its own (other VPs lock it when
     * they steal), and only with several VPs: with one the heap's layout
     * stays what it was (a 128-byte shift of what follows the VPs made one
     * timing row 10% slower through 4K aliasing). */
    runq *lq;
} mpd_vp;

/* A switch on vp, to a process or (idle) to its loop. */
static inline void vp_qs_note(mpd_vp *vp, int idle)
{
    atomic_store_explicit(&vp->qs_count,
                          atomic_load_explicit(&vp->qs_count, memory_order_relaxed) + 1,
                          memory_order_release);
    atomic_store_explicit(&vp->qs_idle, idle, memory_order_release);
}

/* shared runtime state */
extern mpd_vp **mpd__vps;
extern int mpd__nvp;
extern long mpd__slice;       /* 0 = never */
extern long mpd__slice_fresh; /* what a switch resets the count to */
extern int mpd__idle_spin;    /* rounds an idle VP spins before it sleeps */
/* Whether VP i's thread is asleep in its idle wait now (a hint: it may wake
 * or fall asleep right after). */
int mpd__vp_asleep(int i);
/* mpd__mode (mpd/rt.h) is set by mpd__mode_set below and lowered from
 * HANDOFF to FAST by mpd__prio_mixed_on; MPD_RT_HAND1: the inline handoff
 * is compiled to switch (inline asm contexts, no sanitizer). */
#if defined(MPD__HANDOFF_INLINE) && defined(MPD_CSW_HAVE_INLINE) && defined(MPD_CSW_asm) &&        \
    !defined(MPD_CSW_NO_INLINE) && !defined(MPD_ASAN) && !defined(MPD_TSAN)
#define MPD_RT_HAND1 1
_Static_assert(offsetof(struct mpd_proc, link) == offsetof(struct mpd__proc_h1, link), "handoff.h");
_Static_assert(offsetof(struct mpd_proc, state) == offsetof(struct mpd__proc_h1, state),
               "handoff.h");
_Static_assert(offsetof(struct mpd_proc, f.ctx) == offsetof(struct mpd__proc_h1, ctx) &&
                   sizeof(mpd_ctx) == sizeof(void *[2]),
               "handoff.h");
_Static_assert(offsetof(mpd_vp, post_kind) == offsetof(struct mpd__vp_h1, post_kind), "handoff.h");
_Static_assert((int)P_READY == (int)MPD__PS_READY && (int)P_RUNNING == (int)MPD__PS_RUNNING &&
                   (int)P_BLOCKED == (int)MPD__PS_BLOCKED && PS_NONE == 0,
               "handoff.h");
#else
#define MPD_RT_HAND1 0
#endif
/* 1 once some process has had a priority other than 0 (it stays 1).  Then
 * the shortcuts that would put a woken process ahead of its place in the
 * priority order are off: the generated code's inline V handoff (it
 * appends without comparing) and, with several VPs, the runnext slot. */
extern atomic_int mpd__prio_mixed;
void mpd__prio_mixed_on(void);
/* Whether a process of priority >= pr waits in the FIFO scheduler's shared
 * queue (where every ready process is once priorities are mixed). */
int mpd__ready_at_least(int pr);
/* The mode for one VP or several, and whether the (one) VP runs the FIFO
 * scheduler; the transitions are in mpd/rt.h. */
static inline long mpd__mode_for(int one_vp, int fifo)
{
    if (!one_vp)
        return MPD_MODE_MULTI;
    if (!fifo || mpd__tl_on) /* the timeline needs every switch and wakeup */
        return MPD_MODE_ONE;
    if (MPD_RT_HAND1 && !atomic_load_explicit(&mpd__prio_mixed, memory_order_relaxed))
        return MPD_MODE_HANDOFF;
    return MPD_MODE_FAST;
}
/* A store other VPs may read (compaction: the dormant ones) is atomic. */
static inline void mpd__mode_set(int one_vp, int fifo)
{
    __atomic_store_n(&mpd__mode, mpd__mode_for(one_vp, fifo), __ATOMIC_RELEASE);
}

/* compact.c: the one-VP mode while one VP has all the work (docs/runtime.md,
 * "Compaction") */

extern int64_t mpd__compact_idle_ns;  /* idle this long, a VP goes dormant */
extern int64_t mpd__compact_trial_ns; /* how long an expansion is on trial */
extern int mpd__compact_debug;        /* MPD_COMPACT_DEBUG */
/* 1: the last VP awake is to enter the one-VP mode; 2: every VP but the
 * last is to become dormant (an expansion that did not pay) */
extern atomic_int mpd__compact_req;
extern atomic_int mpd__compact_trial_on; /* an expansion is on trial */
extern atomic_int mpd__ndormant;         /* VPs dormant (not counted in nsleep) */
void mpd__compact_start(int nvp);
void mpd__compact_first_sleep(void);
void mpd__compact_idle(struct mpd_vp *vp);
void mpd__compact_now(struct mpd_vp *vp);
void mpd__compact_wake_dormant(void);
void mpd__compact_slice_end(mpd_proc *self);
void mpd__compact_slice_end_multi(void);
void mpd__compact_trial_check(void);
extern unsigned long mpd__compact_sample_every; /* MPD_COMPACT_SAMPLE: 0 off */
long mpd__compact_expansions(long *groups);
void mpd__compact_stop(void);
int mpd__vp_stopping(void);
extern size_t mpd__stack_default;
extern long mpd__max_procs;
extern int64_t mpd__start_ns;

static inline mpd_vp *vp_self(void)
{
    return (mpd_vp *)(void *)mpd__vp();
}
static inline mpd_proc *proc_self(void)
{
    return (mpd_proc *)(void *)vp_self()->hot.cur;
}

/* timeline.c: the core's hooks, each called behind MPD_TL (one test of
 * mpd__tl_on) */
/* lang/trace.c: start tracing to a file, "stdout" or "stderr".  Weak: the
 * core does not pull the language layer into programs of its own (the
 * core's tests); where trace.c is linked, it is there. */
void mpd__trc_open(const char *spec) __attribute__((weak));
void mpd__tl_created(mpd_proc *p);
void mpd__tl_switch(mpd_proc *self, mpd_proc *next, int kind);
void mpd__tl_loop_run(mpd_proc *p);
void mpd__tl_loop_idle(void);
void mpd__tl_woken(mpd_proc *p, int by);

/* vp.c */
void mpd__switch_out(int post_kind, mpd_proc *pp, mpd_spinlock *lk);
void mpd__ready(mpd_proc *p);        /* from a VP */
void mpd__ready_remote(mpd_proc *p); /* from any thread */
void mpd__wake_idle_vp(void);
void mpd__wake_idle_vp_sc(void);   /* after publishing with a seq_cst RMW */
void mpd__wake_all_idle_vps(void); /* every sleeping VP: for work pinned to one VP */
void mpd__wake_vp(int i);          /* VP i if it sleeps: for work pinned to it */
void mpd__proc_start(void *arg);
void mpd__vp_loop_run(mpd_vp *vp);
void mpd__post_switch(mpd_vp *vp);

/* proc.c */
void mpd__proc_exited(mpd_proc *p); /* post-switch of an exit */
extern atomic_long mpd__nprocs;
/* 1 while the program's main process runs: it does not count against
 * MPD_MAX_PROCS (checked only on the slow path, when the count is at the
 * limit), so a program at the limit runs on one VP, where main has exited
 * before its processes start, and on several, where its exit may not be
 * counted yet.  It still counts as live for the quiescence test. */
extern atomic_int mpd__main_alive;
static inline void mpd__count_procs(long d)
{
    if (mpd__mode_one_vp())
        atomic_store_explicit(&mpd__nprocs,
                              atomic_load_explicit(&mpd__nprocs, memory_order_relaxed) + d,
                              memory_order_relaxed);
    else
        atomic_fetch_add_explicit(&mpd__nprocs, d, memory_order_relaxed);
}

/* stack.c */
mpd_proc *mpd__region_alloc(mpd_vp *vp, size_t stack_size, const char *name);
void mpd__region_free(mpd_vp *vp, mpd_proc *p);
void mpd__region_reuse(mpd_proc *p); /* sanitizers: a cached region is taken */
#define MPD_REGION_CACHE_MAX 256     /* per VP */
/* Keep p (no long name) in vp's cache of default regions if it is one and
 * there is room: 1 if it did. */
static inline int mpd__region_cache_put(mpd_vp *vp, mpd_proc *p)
{
    if (!p->std_region || vp->stack_cached >= MPD_REGION_CACHE_MAX)
        return 0;
    p->link = vp->stack_cache;
    vp->stack_cache = p;
    vp->stack_cached++;
    return 1;
}
/* fn(p) for every process region mapped (live processes, exited ones not
 * yet joined, cached ones: state P_DONE), under the registry's lock. */
void mpd__regions_foreach(void (*fn)(mpd_proc *p, void *arg), void *arg);
void mpd__vp_signals_init(mpd_vp *vp);
void mpd__vp_signals_fini(mpd_vp *vp);
void mpd__signals_install(void); /* signals.c */
/* Flushes the program's output at its end; a write error on stdout is
 * reported and turns status 0 into 1. */
int mpd__finish_output(int status);
/* lineinfo.c: the source file and line of code address pc, from the
 * executable's line tables (generated code carries #line); 0 if unknown.
 * Reads the file with open/read/mmap only: it runs in a signal handler. */
int mpd__line_of_pc(uintptr_t pc, char *file, size_t fsz, int *line);
void mpd__lineinfo_init(void); /* at start-up: the load address */
size_t mpd__page_size(void);

/* An exiting process born detached, whose region can go to this VP's
 * cache: do it before switching away (nobody but this VP uses its cache,
 * and nothing on this VP can take the region before we are off it).  Not
 * with sanitizers, which must see the fiber die first.  1: done. */
static inline int mpd__proc_exit_early(mpd_vp *vp, mpd_proc *p)
{
#if defined(MPD_ASAN) || defined(MPD_TSAN)
    (void)vp;
    (void)p;
    return 0;
#else
    if (!p->to_cache || !mpd__region_cache_put(vp, p))
        return 0;
    mpd__count_procs(-1);
    PSTATE_SET(p, P_DONE);
    p->done = 1;
    return 1;
#endif
}

/* timer.c */
extern atomic_long mpd__ntimers;
int mpd__timers_fire(void);              /* readies expired nappers; count */
int64_t mpd__timers_next(void);          /* earliest deadline or INT64_MAX */
void mpd__timer_add_locked(mpd_proc *p); /* caller holds the timer lock (if any) */
void mpd__timer_cancel(mpd_proc *p);     /* remove p's entry if it is still there */
extern mpd_spinlock mpd__timer_lock;

/* io.c */
extern atomic_long mpd__io_pending;
extern atomic_long mpd__ext_hidden; /* ext.c */
extern int (*mpd__idle_hook)(void); /* ext.c */
extern int (*mpd__poll_hook)(void); /* ext.c */
void mpd__io_submit(mpd_proc *p);
mpd_proc *mpd__inbox_take(void); /* all procs made ready remotely */
extern _Atomic(mpd_proc *) mpd__inbox;

#endif
