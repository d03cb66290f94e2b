/* mpd/threads.h: a cthreads-style C threads API with configurable per-VP schedulers.
 *
 * Threads are the runtime's lightweight processes (mpd/rt.h) running on its
 * virtual processors (VPs, one OS thread each).  Blocking a thread (join,
 * mutex, condition, adaptive lock) parks the lightweight thread; the VP runs
 * another one.  Users of POSIX threads will find the usual shapes:
 *
 *     mpd_thread_fork   ~ pthread_create     mpd_mutex_*  ~ pthread_mutex_*
 *     mpd_thread_join   ~ pthread_join       mpd_cond_*   ~ pthread_cond_*
 *     mpd_thread_detach ~ pthread_detach     mpd_tspin_*  ~ pthread_spin_*
 *     mpd_thread_yield  ~ sched_yield        mpd_thread_self ~ pthread_self
 *
 * Start: mpd_threads_main(nvp, main_fn, arg) runs main_fn as the first
 * thread on nvp VPs and returns when every thread has finished.  Functions
 * returning int give 0 or an errno value.
 *
 * SCHEDULER CONFIGURATION (after Ghosh, Mukherjee & Schwan's configurable
 * cthreads).  Each VP has a scheduler object with these attributes:
 *   policy    FIFO, PRIORITY (thread priority, larger first) or EDF (earliest
 *             deadline first; deadline is a thread attribute, threads without
 *             one run after those with one)
 *   locality  LOCAL: a ready queue per VP; GLOBAL: one queue shared by all
 *             VPs with a GLOBAL scheduler
 *   migrate   1: an idle VP takes ready threads from other VPs' queues;
 *             0: a thread always runs on its home VP (attribute vp, or the VP
 *             it was forked on)
 *   preempt_us  0: threads run until they block or yield; > 0: a timer
 *             signal on the VP preempts preemptible threads every preempt_us
 *             microseconds, rewinding restartable atomic sequences (mpd/ras.h)
 *   throttle  0: off; > 0: initial throttling window (see below)
 * Static configuration: mpd_sched_install(vp, attr) before mpd_threads_main;
 * VPs may get different schedulers.  Dynamic configuration:
 * mpd_sched_set_attr(vp, attr) at run time; the VP applies it at its next
 * scheduling decision, re-ordering its ready queue under the new policy (the
 * swap happens only there, under the queue lock, where it is safe).
 * Locality is fixed once started (changing it gives EBUSY).
 *
 * THROTTLING WINDOW (optimistic simulation): a VP's window bounds how many
 * processed-but-uncommitted events its threads may hold.  The application
 * reports events with mpd_throttle_processed/committed/rolled_back and asks
 * mpd_throttle_ok() before processing another speculative event.  Every
 * throttle_ms milliseconds a feedback policy resets the window: the default
 * one grows it while the commit rate rises and shrinks it when it falls.
 *
 * PREEMPTIVE MODE: only threads with attribute preemptible = 1 are
 * preempted, and only while they execute the program's own code: never
 * inside libc, nor anywhere in the runtime library (this API, adaptive
 * locks, the RAS mutex, MPF, raw mpd/rt.h calls, the scheduler), nor in a
 * scheduler object's or a policy's code the runtime calls.  A tick that
 * lands there is deferred to the next tick or to the next safe point (the
 * end of a no-preemption section).  Every lock kind may be used by
 * preemptible threads, on any number of VPs.  Inline mpd/rt.h spin locks
 * taken in the program's own code are the program's: wrap such sections in
 * mpd_thread_preempt_off/on. */
#ifndef MPD_THREADS_H
#define MPD_THREADS_H

#include <stddef.h>
#include <stdint.h>
#include "mpd/rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mpd_thread mpd_thread_t;

typedef struct {
    const char *name;    /* copied; NULL = "thread" */
    size_t stack_size;   /* 0 = runtime default */
    int priority;        /* PRIORITY policy: larger runs first */
    int64_t deadline_ns; /* EDF: absolute, on mpd_now_ns()'s clock; 0 = none */
    int vp;              /* home VP; -1 = the VP that forks it */
    int detached;        /* 1: cannot be joined, freed at exit */
    int preemptible;     /* 1: may be preempted when the VP has preempt_us > 0 */
} mpd_thread_attr_t;

void mpd_thread_attr_init(mpd_thread_attr_t *a);

/* Runs main_fn(arg) as a thread on nvp VPs (<= 0: runtime default) and
 * returns when every thread has finished (status of the runtime), or
 * EDEADLK when the run ended with threads blocked for ever (each reported on
 * stderr as "RTS warning: blocked process"). */
int mpd_threads_main(int nvp, void (*main_fn)(void *), void *arg);

int mpd_thread_fork(mpd_thread_t **t, const mpd_thread_attr_t *a, void *(*fn)(void *), void *arg);
int mpd_thread_join(mpd_thread_t *t, void **result); /* EINVAL if detached, EDEADLK if self */
int mpd_thread_detach(mpd_thread_t *t);
void mpd_thread_yield(void);
_Noreturn void mpd_thread_exit(void *result);
mpd_thread_t *mpd_thread_self(void); /* NULL outside a thread */
const char *mpd_thread_name(const mpd_thread_t *t);
int mpd_thread_home_vp(const mpd_thread_t *t);
int mpd_thread_set_priority(mpd_thread_t *t, int priority); /* from the next wakeup */
int mpd_thread_set_deadline(mpd_thread_t *t, int64_t deadline_ns);
int64_t mpd_thread_deadline(const mpd_thread_t *t);
/* Preemption guard for the calling thread (nests). */
void mpd_thread_preempt_off(void);
void mpd_thread_preempt_on(void);
/* Times the calling thread was preempted. */
unsigned long mpd_thread_preemptions(void);

/* ---- mutex: blocks the lightweight thread; ownership is handed to the
 * first waiter on unlock (FIFO among waiters).  Uncontended lock and unlock
 * are one compare-and-swap each.  locked: 0 free, 1 held, 2 held + waiters ---- */
typedef struct {
    mpd_spinlock lk;
    atomic_int locked;
    mpd_waitq q;
} mpd_mutex_t;
#define MPD_MUTEX_INIT                                                                             \
    {                                                                                              \
        MPD_SPINLOCK_INIT, 0, MPD_WAITQ_INIT                                                       \
    }
void mpd_mutex_init(mpd_mutex_t *m);
void mpd_mutex_lock(mpd_mutex_t *m);
int mpd_mutex_trylock(mpd_mutex_t *m); /* 0 or EBUSY */
void mpd_mutex_unlock(mpd_mutex_t *m);

/* ---- spin lock: busy-waits, yielding the VP now and then so a holder on
 * the same VP can run ---- */
typedef struct {
    mpd_spinlock s;
} mpd_tspin_t;
#define MPD_TSPIN_INIT                                                                             \
    {                                                                                              \
        MPD_SPINLOCK_INIT                                                                          \
    }
void mpd_tspin_init(mpd_tspin_t *s);
void mpd_tspin_lock(mpd_tspin_t *s);
int mpd_tspin_trylock(mpd_tspin_t *s);
void mpd_tspin_unlock(mpd_tspin_t *s);

/* ---- condition variable (Mesa semantics: re-check after waking) ---- */
typedef struct {
    mpd_spinlock lk;
    mpd_waitq q;
} mpd_cond_t;
#define MPD_COND_INIT                                                                              \
    {                                                                                              \
        MPD_SPINLOCK_INIT, MPD_WAITQ_INIT                                                          \
    }
void mpd_cond_init(mpd_cond_t *c);
void mpd_cond_wait(mpd_cond_t *c, mpd_mutex_t *m);
void mpd_cond_signal(mpd_cond_t *c);
void mpd_cond_broadcast(mpd_cond_t *c);

/* ---- scheduler configuration ---- */
enum mpd_sched_policy { MPD_SCHED_FIFO, MPD_SCHED_PRIORITY, MPD_SCHED_EDF };
enum mpd_sched_locality { MPD_SCHED_LOCAL, MPD_SCHED_GLOBAL };

typedef struct mpd_throttle_info mpd_throttle_info_t;
/* Feedback policy: returns the new window from the last interval's data. */
typedef int (*mpd_throttle_policy_fn)(int vp, const mpd_throttle_info_t *info, void *arg);

typedef struct {
    int policy;                             /* enum mpd_sched_policy */
    int locality;                           /* enum mpd_sched_locality */
    int migrate;                            /* 0/1 */
    long preempt_us;                        /* 0 = non-preemptive */
    int throttle;                           /* 0 = off, else initial window */
    int throttle_ms;                        /* feedback interval (default 10) */
    mpd_throttle_policy_fn throttle_policy; /* NULL = default */
    void *throttle_arg;
} mpd_sched_attr_t;

struct mpd_throttle_info {
    int window;                          /* current */
    long uncommitted;                    /* processed, not yet committed or rolled back */
    long committed_last, committed_prev; /* commits in the last / previous interval */
    long rolled_back_last;
};

void mpd_sched_attr_init(mpd_sched_attr_t *a); /* FIFO, LOCAL, migrate 1, no preemption/throttle */
/* Install a scheduler object of one's own (mpd/rt.h's mpd_sched_ops: init,
 * put, get, empty, idle) on VP vp (-1 = all) in place of the configurable
 * one -- the paper's install_scheduler(processor, scheduler).  Before start,
 * or at run time: then the VP swaps objects at its next scheduling decision
 * and hands its ready threads over to the new object (init(vp, nvp) is called
 * then, on that VP); &mpd_sched_configurable puts the configurable object
 * back.  Such VPs ignore the attributes above (mpd_sched_set_attr gives
 * EINVAL for them), and threads homed there are never queued there by other
 * VPs.  The object's functions run with preemption off.  EINVAL for a NULL
 * ops or a bad vp; EBUSY if the runtime was started without mpd_threads_main. */
extern const mpd_sched_ops mpd_sched_configurable;
int mpd_sched_install_ops(int vp, const mpd_sched_ops *ops);
/* Swaps of VP vp's scheduler object done so far. */
unsigned long mpd_sched_object_swaps(int vp);
int mpd_sched_install(int vp,
                      const mpd_sched_attr_t *a); /* before start; vp -1 = all.  EBUSY after */
int mpd_sched_set_attr(int vp, const mpd_sched_attr_t *a); /* at run time; vp -1 = all */
int mpd_sched_get_attr(int vp, mpd_sched_attr_t *a);
/* Scheduling decisions and migrations made by VP vp so far. */
void mpd_sched_stats(int vp, unsigned long *picks, unsigned long *migrations, unsigned long *swaps);

int mpd_throttle_ok(void); /* 1 if the caller's VP is under its window */
void mpd_throttle_processed(long n);
void mpd_throttle_committed(long n);
void mpd_throttle_rolled_back(long n);
int mpd_throttle_window(int vp);
int mpd_throttle_default_policy(int vp, const mpd_throttle_info_t *info, void *arg);

#ifdef __cplusplus
}
#endif
#endif
