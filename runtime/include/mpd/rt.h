/* mpd/rt.h: the runtime core -- lightweight processes on virtual processors.
 *
 * CONCEPTS
 *   process  a lightweight thread with its own stack (mpd_proc).  Processes are
 *            multiplexed onto virtual processors and never block an OS thread.
 *   VP       a virtual processor: one OS thread running a scheduler loop.
 *            MPD_PARALLEL=n (default 1) VPs are started by mpd_rt_main().
 *   scheduler  a per-VP object (mpd_sched_ops) that holds ready processes.
 *            Built in: FIFO (default), priority, work stealing.
 *
 * RULES
 *   - Every call below that may block (P, park, join, nap, yield, blocking
 *     call) must be made from a process, i.e. from code started by
 *     mpd_rt_main() or mpd_proc_create().
 *   - With one VP the fast paths use no atomic read-modify-write
 *     instructions; with several VPs they use atomics and are still inline.
 *   - FP control state (rounding mode, exception masks: MXCSR/x87 CW on
 *     x86-64, FPCR on aarch64) belongs to the VP's OS thread, not to a
 *     process: the asm context switch does not save it.  A process that
 *     changes it must restore it before it can block or yield.
 *   - Names are stable: later versions add calls, they do not rename them.
 *
 * ERRORS
 *   Exhaustion (too many processes, no memory for a stack), stack overflow
 *   ("stack overflow in process X") and misuse are reported on stderr in
 *   MPD's "RTS abort:" format and end the program with exit status 1.
 */
#ifndef MPD_RT_H
#define MPD_RT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Program start and end                                               */
/* ------------------------------------------------------------------ */

/* Starts the runtime: reads the environment (MPD_PARALLEL = number of VPs,
 * MPD_SLICE = loop-iteration limit, MPD_STACK_SIZE = default stack bytes,
 * MPD_MAX_PROCS, MPD_SCHED = fifo|prio|steal), starts the VPs, runs
 * main_fn(arg) as the first process (named "main") and returns the exit
 * status once every process has finished, or once the program is
 * deadlocked (after the report, see mpd_rt_set_quiesce_hook).  The calling
 * OS thread becomes VP 0.  Call it once. */
int mpd_rt_main(int argc, char **argv, void (*main_fn)(void *), void *arg);

/* Ends the program from anywhere (MPD's stop(n)): runs mpd_rts_before_exit
 * (default: flush all stdio streams) and exits with status. */
_Noreturn void mpd_exit(int status);

/* The status mpd_rt_main() returns when the program ends normally. */
void mpd_rt_set_exit_status(int status);

/* Command line as given to mpd_rt_main(). */
int mpd_argc(void);
char **mpd_argv(void);

/* Number of VPs, and the index (0..n-1) of the VP running the caller
 * (-1 outside any VP). */
int mpd_nvp(void);
int mpd_vp_index(void);
/* VP i's count of switches and whether it is idle in its loop (no process
 * running), for reclaiming memory other VPs may have looked up: a process
 * that read a pointer before a switch of its VP is done with it once that
 * VP switched again (the inline switches of one VP are not counted). */
unsigned long mpd_vp_quiescent(int i, int *idle);

/* Settings that may be changed before mpd_rt_main() (they override the
 * environment).  Stack size 0 = default (256 KiB); max procs 0 = default
 * (1000000). */
void mpd_rt_set_nvp(int n);
void mpd_rt_set_stack_size(size_t bytes);
/* read the run-time settings as PREFIX_X before MPD_X (SR programs: "SR_",
 * so SR_PARALLEL sets the number of VPs); call before mpd_rt_main */
void mpd_rt_set_env_prefix(const char *prefix);
void mpd_rt_set_max_procs(long n);

/* ------------------------------------------------------------------ */
/* Quiescence: the end of the program and deadlock                     */
/* ------------------------------------------------------------------ */

/* The program is QUIESCENT when no process is running or ready and no
 * timer (nap) or blocking call is pending.  Then either every process has
 * finished (all_done = 1) or the remaining ones are blocked forever
 * (all_done = 0, a deadlock).
 *
 * The first time the program becomes quiescent, the hook installed here is
 * run as a new process named "final" (so it may block, create processes,
 * run MPD "final" code...).  The next time it becomes quiescent the
 * runtime ends: if processes are blocked it calls the report function
 * (default: mpd_rt_report_blocked), then mpd_rt_main() returns the exit
 * status.  Without a hook the first quiescence ends the program. */
typedef void (*mpd_quiesce_fn)(int all_done, void *arg);
void mpd_rt_set_quiesce_hook(mpd_quiesce_fn fn, void *arg);
/* Replace the deadlock report (NULL restores the default).  It runs on a
 * VP's own stack, outside any process, while every VP is idle: it may print
 * and inspect processes but must not block or create processes. */
void mpd_rt_set_report(void (*report)(void));

/* Default report: for every blocked process, newest first,
 *   RTS warning: blocked process: <name> : file F, line L
 * on stderr (stdout is flushed first). */
void mpd_rt_report_blocked(void);

/* Calls fn for every process that is blocked (not running, ready, napping
 * or in a blocking call), newest first.  Only meaningful while the program
 * is quiescent (e.g. in a report function). */
typedef struct mpd_proc mpd_proc;
void mpd_rt_foreach_blocked(void (*fn)(mpd_proc *p, void *arg), void *arg);
/* Calls fn for every process that exists now (blocked, ready or running),
 * with the process list locked: fn must not create or end a process (it
 * may make one ready).  For a destroy's look for its processes. */
void mpd_rt_foreach_proc(void (*fn)(mpd_proc *p, void *arg), void *arg);

/* ------------------------------------------------------------------ */
/* Processes                                                           */
/* ------------------------------------------------------------------ */

typedef struct mpd_proc_attr {
    const char *name;  /* copied; NULL = "proc" */
    int priority;      /* larger runs first under the priority scheduler */
    size_t stack_size; /* bytes; 0 = default */
    int detached;      /* 1: resources freed at exit, cannot be joined */
    int run_now;       /* 1: the new process runs at once and the creator
                              becomes ready (behind the ones already ready),
                              as when MPD's send starts a proc */
    int name_static;   /* 1: name outlives the process (a literal): it is
                              kept by reference, not copied */
    size_t extra;      /* mpd_proc_prepare: bytes of the process's own
                              memory reserved for its creator (0 = none) */
} mpd_proc_attr;
#define MPD_PROC_ATTR_INIT                                                                         \
    {                                                                                              \
        0, 0, 0, 0, 0, 0, 0                                                                        \
    }

/* The part of a process the inline fast paths use; the rest is private. */
struct mpd__proc_hot {
    const char *file; /* current MPD source position, for diagnostics */
    int line;
    int priority;
    void *udata;          /* owned by the language layer */
    void *wait, *waitcls; /* the language layer's: the wait record a blocked
                              process is registered with, and the lock of its
                              list (so a destroy can end a process of its
                              resource blocked on another object's op) */
};

/* Creates a ready process running fn(arg).  attr may be NULL (joinable,
 * default name/stack/priority 0).  Returning from fn is mpd_proc_exit(NULL).
 * The result of creating a detached process may be used only until the
 * process can have ended (with run_now: not at all).
 * Aborts with a clear message on too many processes or no memory. */
mpd_proc *mpd_proc_create(void (*fn)(void *), void *arg, const mpd_proc_attr *attr);
/* Creation in two steps, for a creator that hands the process data of its
 * own: mpd_proc_prepare makes the process (not yet ready) and sets *extra to
 * attr->extra bytes (16-byte aligned, at most a quarter of the stack) in the
 * process's own memory -- the top of its stack, cached with it -- valid
 * until the process ends; mpd_proc_launch makes it ready (or runs it at
 * once, with attr->run_now).  Saves a separate allocation and its free. */
mpd_proc *mpd_proc_prepare(void (*fn)(void *), void *arg, const mpd_proc_attr *attr, void **extra);
void mpd_proc_launch(mpd_proc *p);
/* Before mpd_proc_launch: what fn gets (e.g. a pointer into the extra bytes). */
void mpd_proc_set_arg(mpd_proc *p, void *arg);
/* The common case of mpd_proc_prepare, and its fastest path: a detached
 * process with a static name, default stack and `extra` bytes for the
 * creator (*mem); fn gets *mem as its argument.  Start it with
 * mpd_proc_launch. */
mpd_proc *mpd_proc_spawn(void (*fn)(void *), const char *name, int priority, size_t extra,
                         void **mem);
/* mpd_proc_spawn for the running process (or, outside one, priority 0):
 * the new process gets the caller's priority, its udata is the returned
 * memory (the `extra` bytes), and *pp is the process.  ready: make it ready
 * at once when nothing can run it before the caller's next switch (one VP:
 * the caller must fill the memory before it blocks or yields); then *pp is
 * NULL, else the caller launches *pp. */
void *mpd_proc_spawn_here(void (*fn)(void *), const char *name, size_t extra, mpd_proc **pp,
                          int ready);
/* Ends the calling process; result is what mpd_proc_join() returns. */
_Noreturn void mpd_proc_exit(void *result);
/* mpd_unpark(p), then mpd_proc_exit(NULL), in one step: when p is what
 * this VP would run next anyway the caller's end switches straight to it.
 * For a process that answers its parked creator and ends. */
_Noreturn void mpd_proc_exit_to(mpd_proc *p);
/* Lets other ready processes run; returns at once if there are none. */
void mpd_yield(void);
/* Waits for a joinable process to end, stores its result (if result is not
 * NULL) and frees it.  Returns 0, or -1 if p is detached or joins itself. */
int mpd_proc_join(mpd_proc *p, void **result);
/* p's resources are freed when it ends; it can no longer be joined. */
int mpd_proc_detach(mpd_proc *p);

static inline mpd_proc *mpd_self(void);
const char *mpd_proc_name(const mpd_proc *p);
void mpd_proc_set_name(mpd_proc *p, const char *name); /* copied */
static inline int mpd_proc_priority(const mpd_proc *p)
{
    return ((const struct mpd__proc_hot *)(const void *)p)->priority;
}
/* Takes effect the next time p is made ready (ready processes run higher
 * priority first, FIFO among equals).  A process that lowers its own
 * priority yields to every ready process whose priority is now >= its own
 * (MPD's setpriority). */
void mpd_proc_set_priority(mpd_proc *p, int priority);
static inline void *mpd_proc_udata(const mpd_proc *p)
{
    return ((const struct mpd__proc_hot *)(const void *)p)->udata;
}
/* atomic: a destroy's look at every process reads it from any VP */
static inline void mpd_proc_set_udata(mpd_proc *p, void *u)
{
    __atomic_store_n(&((struct mpd__proc_hot *)(void *)p)->udata, u, __ATOMIC_RELEASE);
}
/* The process's current source position (file may be NULL). */
static inline const char *mpd_proc_file(const mpd_proc *p)
{
    return ((const struct mpd__proc_hot *)(const void *)p)->file;
}
static inline int mpd_proc_line(const mpd_proc *p)
{
    return ((const struct mpd__proc_hot *)(const void *)p)->line;
}
/* Records the caller's MPD source position: two stores.  Generated code
 * does this only before an operation that may block. */
static inline void mpd_set_loc(const char *file, int line);

/* ------------------------------------------------------------------ */
/* Spin locks (usable between VPs; never block the process)            */
/* ------------------------------------------------------------------ */

typedef struct mpd_spinlock {
    atomic_int v;
} mpd_spinlock;
#define MPD_SPINLOCK_INIT                                                                          \
    {                                                                                              \
        0                                                                                          \
    }
static inline void mpd_spin_init(mpd_spinlock *l)
{
    atomic_init(&l->v, 0);
}
static inline int mpd_spin_trylock(mpd_spinlock *l)
{
    return atomic_load_explicit(&l->v, memory_order_relaxed) == 0 &&
           atomic_exchange_explicit(&l->v, 1, memory_order_acquire) == 0;
}
void mpd__spin_lock_slow(mpd_spinlock *l);
static inline void mpd_spin_lock(mpd_spinlock *l)
{
    if (__builtin_expect(!mpd_spin_trylock(l), 0))
        mpd__spin_lock_slow(l);
}
static inline void mpd_spin_unlock(mpd_spinlock *l)
{
    atomic_store_explicit(&l->v, 0, memory_order_release);
}

/* ------------------------------------------------------------------ */
/* Park / unpark: the primitive every blocking construct is built on   */
/* ------------------------------------------------------------------ */

/* Blocks the calling process.  If lock is not NULL it must be held; it is
 * released only once the process is completely switched out, so whoever
 * finds the process under that lock may unpark it at once. */
void mpd_park(mpd_spinlock *lock);
/* Makes a parked process ready (it runs when a VP gets to it).  Call it
 * only for a process found (under the lock given to mpd_park) parked. */
void mpd_unpark(mpd_proc *p);
/* Like mpd_unpark, then switches to p at once; the caller becomes ready. */
void mpd_unpark_handoff(mpd_proc *p);
/* mpd_proc_launch(p), then mpd_park(lock), in one step: when p is what
 * this VP would run next anyway (one VP, FIFO, nothing else ready) the
 * caller switches straight to it.  For a creator that waits for its new
 * process (a call answered by a new process). */
void mpd_proc_launch_park(mpd_proc *p, mpd_spinlock *lock);

/* An intrusive FIFO of processes: every process queue of the runtime (the
 * ready queues, the wait queues, the blocking calls' queue) is one, each
 * through a link of its own in the process (core/plist.h). */
typedef struct mpd_plist {
    mpd_proc *head, *tail;
} mpd_plist;

/* Wait queues: FIFO lists of parked processes.  The caller protects each
 * queue with a lock of its own (or none when mpd_rt_single()). */
typedef mpd_plist mpd_waitq;
#define MPD_WAITQ_INIT                                                                             \
    {                                                                                              \
        0, 0                                                                                       \
    }
static inline void mpd_waitq_init(mpd_waitq *q)
{
    q->head = q->tail = 0;
}
static inline int mpd_waitq_empty(const mpd_waitq *q)
{
    return q->head == 0;
}
void mpd_waitq_push(mpd_waitq *q, mpd_proc *p);
mpd_proc *mpd_waitq_pop(mpd_waitq *q);           /* NULL if empty */
int mpd_waitq_remove(mpd_waitq *q, mpd_proc *p); /* 1 if it was there */
/* Appends the caller to q and parks it, releasing lock (may be NULL). */
void mpd_waitq_wait(mpd_waitq *q, mpd_spinlock *lock);
/* Like mpd_waitq_wait, but gives up after ms milliseconds.  Returns 0 when
 * woken by mpd_waitq_wake_one/_all, -1 on timeout (then the caller is no
 * longer in q).  Either way lock is not held on return.  Processes waiting
 * with a timeout must be woken through mpd_waitq_wake_one/_all only. */
int mpd_waitq_wait_timeout(mpd_waitq *q, mpd_spinlock *lock, long ms);
/* Pops the first process and unparks it; returns it (NULL if q empty).
 * A timed waiter whose timer already fired is skipped. */
mpd_proc *mpd_waitq_wake_one(mpd_waitq *q);
/* Unparks every waiting process; returns how many. */
int mpd_waitq_wake_all(mpd_waitq *q);

/* The runtime's mode: one value for how many VPs run and which shortcuts
 * the hot paths may take.  Each mode allows everything the modes after it
 * allow, so every test is one compare of one load:
 *   MPD_MODE_HANDOFF  one VP, FIFO scheduler, and the generated code's inline
 *                     semaphore handoff may switch (mpd/abi/handoff.h: it
 *                     needs the inline asm contexts, no sanitizer, and no
 *                     priority other than 0 ever, as it appends to the ready
 *                     queue without comparing priorities)
 *   MPD_MODE_FAST     one VP, FIFO scheduler: the core's inline fast paths
 *                     (core/switch.h block_fast1, the exit jump, the spawn
 *                     and stack-cache shortcuts of core/proc.c)
 *   MPD_MODE_ONE      one VP: only its thread touches processes, run queues
 *                     and semaphores, so no locks and no atomic
 *                     read-modify-writes; the general paths (another
 *                     scheduler, or the timeline, which needs every switch)
 *   MPD_MODE_MULTI    several VPs: locks, atomics, general paths
 * Transitions (core/rt_internal.h, mpd__mode_set, and core/priority.c):
 *   - ONE before the runtime starts;
 *   - at start (core/main.c): with MPD_PARALLEL > 1, MULTI, or with
 *     compaction (core/compact.c, MPD_COMPACT) FAST or ONE, which then
 *     alternate with MULTI at run time: MULTI while several VPs have work,
 *     FAST/ONE while one VP has it all and the others are dormant; with one
 *     VP HANDOFF, FAST or ONE as above;
 *   - mpd_rt_set_sched on one VP: FIFO gives HANDOFF or FAST, another ONE;
 *   - the first priority other than 0: HANDOFF becomes FAST, for good.
 * HANDOFF is 0 so that the inline P tests "handoff off, or a remote wakeup
 * or a timer pending" with one `or` of the mode and the two counts. */
enum { MPD_MODE_HANDOFF = 0, MPD_MODE_FAST = 1, MPD_MODE_ONE = 2, MPD_MODE_MULTI = 3 };
extern long mpd__mode;
/* 1 when the mode changes at run time between the one-VP modes and MULTI
 * (several VPs, compaction: core/compact.c).  Then what is decided from the
 * mode for longer than a switch is redone at each flip (SEM1 ops,
 * lang/opobj.c) or kept in both modes (calls parked on an object, counted
 * in both). */
extern int mpd__compact;
/* With compaction, in the one-VP mode: messages (sends, calls of input
 * ops, receives) left before the next one is looked at (core/compact.c:
 * its triggers count them, and look for groups of processes that talk only
 * among themselves).  A count down, so that a message costs one decrement
 * and branch. */
extern long mpd__compact_left;
void mpd__compact_sample(const void *key);
/* With compaction, several VPs: 1 while a trial counts messages, in a
 * counter of each VP's thread (mpd__tls_talk: NULL in other threads). */
extern int mpd__compact_count_multi;
extern _Thread_local unsigned long *mpd__tls_talk;
/* Several VPs only: a process whose send leaves at least this many
 * invocations queued on an input op yields, every 64th such send, so its
 * receiver runs (MPD_SEND_FLOW, default 1024; 0: never; lang/inv.c).  0
 * with one VP, where the order stays MPD 1.0.1's. */
extern uint32_t mpd__send_flow;
/* One VP (HANDOFF, FAST, ONE): no other OS thread touches processes, and
 * locks protecting process-level data may be skipped. */
static inline int mpd__mode_one_vp(void)
{
    return mpd__mode != MPD_MODE_MULTI;
}
/* One VP and the FIFO scheduler (HANDOFF, FAST): the core's inline fast
 * paths may be taken, with plain loads and stores on the ready queue. */
static inline int mpd__mode_fast(void)
{
    return mpd__mode <= MPD_MODE_FAST;
}
/* 1 when the runtime has a single VP (public name of mpd__mode_one_vp). */
static inline int mpd_rt_single(void)
{
    return mpd__mode_one_vp();
}

/* ------------------------------------------------------------------ */
/* Semaphores                                                          */
/* ------------------------------------------------------------------ */

/* count > 0: available units; count < 0: -count processes waiting (or about
 * to).  wakeups: V()s that found no queued waiter yet (several VPs only). */
typedef struct mpd_sem {
    atomic_long count;
    mpd_spinlock lock;
    long wakeups;
    mpd_waitq q;
} mpd_sem;
#define MPD_SEM_INIT(n)                                                                            \
    {                                                                                              \
        (n), MPD_SPINLOCK_INIT, 0, MPD_WAITQ_INIT                                                  \
    }
void mpd_sem_init(mpd_sem *s, long n);
void mpd__sem_wait(mpd_sem *s);
void mpd__sem_wake(mpd_sem *s);

/* Decrements the count and returns its old value (no atomics on one VP). */
static inline long mpd__sem_dec(mpd_sem *s)
{
    long c;
    if (mpd__mode_one_vp()) {
        c = atomic_load_explicit(&s->count, memory_order_relaxed);
        atomic_store_explicit(&s->count, c - 1, memory_order_relaxed);
    } else {
        c = atomic_fetch_sub_explicit(&s->count, 1, memory_order_acq_rel);
    }
    return c;
}

/* P: waits until the count is positive, then decrements it. */
static inline void mpd_sem_P(mpd_sem *s)
{
    long c = mpd__sem_dec(s);
    if (__builtin_expect(c <= 0, 0))
        mpd__sem_wait(s);
}
/* V: increments the count, waking the first waiter (FIFO) if any. */
static inline void mpd_sem_V(mpd_sem *s)
{
    long c;
    if (mpd__mode_one_vp()) {
        c = atomic_load_explicit(&s->count, memory_order_relaxed);
        atomic_store_explicit(&s->count, c + 1, memory_order_relaxed);
    } else {
        c = atomic_fetch_add_explicit(&s->count, 1, memory_order_acq_rel);
    }
    if (__builtin_expect(c < 0, 0))
        mpd__sem_wake(s);
}
/* P without waiting: 1 if it decremented, 0 if the count was not positive. */
int mpd_sem_tryP(mpd_sem *s);
/* P that waits at most ms milliseconds: 0 if it decremented, -1 if the time
 * ran out first (ms <= 0: like tryP).  Waiters stay in FIFO order. */
int mpd_sem_P_timeout(mpd_sem *s, long ms);
/* Current count (negative: number of waiters). */
static inline long mpd_sem_value(mpd_sem *s)
{
    return atomic_load_explicit(&s->count, memory_order_relaxed);
}

/* ------------------------------------------------------------------ */
/* Time                                                                */
/* ------------------------------------------------------------------ */

/* Blocks only the calling process for ms milliseconds (<= 0: a yield). */
void mpd_nap(long ms);
/* Milliseconds since mpd_rt_main() started.  (MPD's age() builtin,
 * mpd_age() in mpd/abi/io.h, belongs to the language layer.) */
long mpd_rt_age_ms(void);
/* Nanoseconds on the monotonic clock. */
int64_t mpd_now_ns(void);

/* ------------------------------------------------------------------ */
/* Blocking calls                                                      */
/* ------------------------------------------------------------------ */

/* Runs fn(arg) -- which may block, e.g. read(2) on a terminal -- on a
 * helper OS thread while other processes go on; the caller waits and gets
 * fn's result, and (if err is not NULL) the errno fn left.  While it runs
 * the program is not deadlocked.  Do not read errno itself after a call
 * that may switch: with several VPs the process may resume on another OS
 * thread, and compilers keep errno's (per-thread) address across calls. */
intptr_t mpd_blocking_call(intptr_t (*fn)(void *), void *arg, int *err);

/* ------------------------------------------------------------------ */
/* External events (core/ext.c)                                        */
/* ------------------------------------------------------------------ */

/* For a layer that brings work from outside the process on a thread of
 * its own (the distributed layer, runtime/dist/: messages from other
 * virtual machines).  A process waits in mpd_ext_wait until any OS thread
 * calls mpd_ext_wake on the same mpd_ext; a wake that comes first is kept
 * (one token).  visible = 1: the process counts as blocked (it is in the
 * blocked-process report at its last position); visible = 0: it is not
 * the program's (a listener): it neither keeps the program alive nor is
 * counted or reported.  One waiter per mpd_ext at a time. */
typedef struct mpd_ext {
    mpd_spinlock lk;
    int token, hidden;
    mpd_proc *waiter;
} mpd_ext;
void mpd_ext_init(mpd_ext *e);
void mpd_ext_wait(mpd_ext *e, int visible);
void mpd_ext_wake(mpd_ext *e);
/* Asked when every VP is idle with nothing pending, before the program is
 * declared quiescent: returning 1 says that work may still come from
 * outside, and the VPs sleep until woken (mpd_ext_wake, mpd_rt_wake_idle);
 * 0 lets the program end (or run its quiescence hook) as usual.  Runs on
 * a VP's own stack under the core's idle lock: it must not block. */
void mpd_rt_set_idle_hook(int (*fn)(void));
/* Asked, again and again, by a VP that has nothing to run, before it
 * sleeps: the layer may receive work from outside on the VP's own thread
 * (saving the wake of a sleeping VP by another thread).  Returns > 0 when
 * it may have readied a process (mpd_ext_wake), 0 to be asked again, < 0
 * to let the VP go to sleep.  The VP counts as busy meanwhile (it spins),
 * so the hook must stop soon by itself; runs on the VP's own stack with
 * no process current and no lock of the core held. */
void mpd_rt_set_poll_hook(int (*fn)(void));
/* Makes a sleeping VP look again (e.g. so that the idle hook is asked
 * again after its answer changed).  From any thread. */
void mpd_rt_wake_idle(void);
/* From any thread: is the program idle at this instant (every VP
 * asleep, nothing ready, no timer or blocking call pending)?  Waits in
 * mpd_ext_wait with visible = 0 are not pending. */
int mpd_rt_idle_now(void);

/* ------------------------------------------------------------------ */
/* Time slicing                                                        */
/* ------------------------------------------------------------------ */

/* At most n calls of mpd_maybe_yield() between context switches (MPD's
 * mpdl -L n); 0 = never switch there.  Default from MPD_SLICE, else 0. */
void mpd_rt_set_slice(long n);
static inline void mpd_maybe_yield(void);

/* ------------------------------------------------------------------ */
/* Schedulers                                                          */
/* ------------------------------------------------------------------ */

/* A scheduler holds ready processes for one VP.  init returns its state
 * (it may return state shared by all VPs, like the built-in FIFO); the
 * other calls get that state.  The runtime calls put/get/empty/idle with
 * the VP's own thread, but a shared state sees several VPs at once and
 * must lock (unless mpd_rt_single()).  idle is called when get() found
 * nothing; it may return work taken elsewhere (stealing) or NULL. */
typedef struct mpd_sched_ops {
    const char *name;
    void *(*init)(int vp, int nvp);
    void (*put)(void *st, mpd_proc *p);
    mpd_proc *(*get)(void *st);
    int (*empty)(void *st);
    mpd_proc *(*idle)(void *st);
} mpd_sched_ops;
extern const mpd_sched_ops mpd_sched_fifo;  /* one FIFO shared by the VPs */
extern const mpd_sched_ops mpd_sched_prio;  /* highest priority first, FIFO among equals */
extern const mpd_sched_ops mpd_sched_steal; /* per-VP queues, idle VPs steal */
/* Installs ops on VP vp (-1 = every VP).  Before mpd_rt_main(), or later
 * while only one VP exists (ready processes move over).  0 or -1. */
int mpd_vp_set_sched(int vp, const mpd_sched_ops *ops);
/* Link field schedulers use to chain processes (a process is in at most
 * one run queue at a time; wait queues use a different link). */
mpd_proc **mpd_proc_link(mpd_proc *p);

/* ------------------------------------------------------------------ */
/* Inline fast paths (implementation)                                  */
/* ------------------------------------------------------------------ */

struct mpd__vp_hot {
    struct mpd__proc_hot *cur; /* running process (NULL in the VP loop) */
};
extern _Thread_local struct mpd__vp_hot *mpd__tls_vp;
/* mpd_maybe_yield() calls left before this VP switches (set by every
 * switch).  A thread-local of its own rather than a field of the VP, so the
 * loop top is one read-modify-write at a fixed %fs offset (no pointer to
 * load first): it costs about nothing next to the loop itself. */
extern _Thread_local long mpd__tls_slice;

/* The VP running the caller.  A process may move between VPs while it is
 * switched out, so the thread-local must be re-read after every possible
 * switch: the asm is volatile so the compiler cannot cache it. */
static inline struct mpd__vp_hot *mpd__vp(void)
{
#if defined(__x86_64__) && !defined(MPD_NO_TLS_ASM)
    struct mpd__vp_hot *v;
    __asm__ volatile("movq mpd__tls_vp@gottpoff(%%rip), %0\n\t"
                     "movq %%fs:(%0), %0"
                     : "=r"(v));
    return v;
#elif defined(__aarch64__) && !defined(MPD_NO_TLS_ASM)
    struct mpd__vp_hot *v;
    unsigned long off;
    __asm__ volatile("mrs %0, tpidr_el0\n\t"
                     "adrp %1, :gottprel:mpd__tls_vp\n\t"
                     "ldr %1, [%1, #:gottprel_lo12:mpd__tls_vp]\n\t"
                     "ldr %0, [%0, %1]"
                     : "=&r"(v), "=&r"(off));
    return v;
#else
    extern struct mpd__vp_hot *mpd__vp_get(void);
    return mpd__vp_get();
#endif
}

static inline mpd_proc *mpd_self(void)
{
    struct mpd__vp_hot *v = mpd__vp();
    return v ? (mpd_proc *)(void *)v->cur : 0;
}

static inline void mpd_set_loc(const char *file, int line)
{
    struct mpd__proc_hot *p = mpd__vp()->cur;
    p->file = file;
    p->line = line;
}

void mpd__slice_expired(void);
/* The thread pointer must be read afresh at each loop top (the process may
 * have moved to another VP meanwhile), but the variable's offset from it is
 * a link-time constant: that load is a plain asm the compiler may hoist out
 * of the loop, and only the accesses through it are volatile. */
#if defined(__x86_64__) && !defined(MPD_NO_TLS_ASM)
static inline long mpd__slice_off(void)
{
    long off;
    __asm__("movq mpd__tls_slice@gottpoff(%%rip), %0" : "=r"(off));
    return off;
}
#else
long *mpd__slice_ptr(void); /* the countdown's address (core/vp.c) */
#endif

/* One step of the time slice's countdown, switching when it runs out; 1
 * then (other processes may have run: a loop whose limit only they can
 * change reads it again, and keeps it in a register otherwise).  The loop
 * top of generated code is mpd_maybe_yield(), below. */
static inline int mpd_maybe_yielded(void)
{
#if defined(__x86_64__) && !defined(MPD_NO_TLS_ASM)
    long off = mpd__slice_off();
    __asm__ goto("subq $1, %%fs:(%0)\n\t"
                 "jle %l[expired]"
                 :
                 : "r"(off)
                 : "cc"
                 : expired);
    return 0;
expired:
    mpd__slice_expired();
    return 1;
#elif defined(__aarch64__) && !defined(MPD_NO_TLS_ASM)
    unsigned long off, tp;
    long left;
    __asm__("adrp %0, :gottprel:mpd__tls_slice\n\t"
            "ldr %0, [%0, #:gottprel_lo12:mpd__tls_slice]"
            : "=r"(off));
    __asm__ volatile("mrs %0, tpidr_el0\n\t"
                     "ldr %1, [%0, %2]\n\t"
                     "sub %1, %1, #1\n\t"
                     "str %1, [%0, %2]"
                     : "=&r"(tp), "=&r"(left)
                     : "r"(off));
    if (__builtin_expect(left <= 0, 0)) {
        mpd__slice_expired();
        return 1;
    }
    return 0;
#else
    if (__builtin_expect(--*mpd__slice_ptr() <= 0, 0)) {
        mpd__slice_expired();
        return 1;
    }
    return 0;
#endif
}

static inline void mpd_maybe_yield(void)
{
    (void)mpd_maybe_yielded();
}

/* A counted loop whose body cannot switch takes its slice in chunks: it
 * reads the countdown once (mpd_slice_get), counts in a local, switches
 * where mpd_maybe_yield() would (mpd_slice_renew: switch if another process
 * is ready, then the fresh countdown) and stores what is left after the
 * loop (mpd_slice_put).  The accesses are volatile asm for the same reason
 * as above: the process may resume on another VP after a switch. */
static inline long mpd_slice_get(void)
{
#if defined(__x86_64__) && !defined(MPD_NO_TLS_ASM)
    long v;
    __asm__ volatile("movq %%fs:(%1), %0" : "=r"(v) : "r"(mpd__slice_off()) : "memory");
    return v;
#else
    return *mpd__slice_ptr();
#endif
}

static inline void mpd_slice_put(long v)
{
#if defined(__x86_64__) && !defined(MPD_NO_TLS_ASM)
    __asm__ volatile("movq %0, %%fs:(%1)" : : "r"(v), "r"(mpd__slice_off()) : "memory");
#else
    *mpd__slice_ptr() = v;
#endif
}

static inline long mpd_slice_renew(void)
{
    mpd__slice_expired();
    return mpd_slice_get();
}

#ifdef __cplusplus
}
#endif
#endif
