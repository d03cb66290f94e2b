/* mpd/ras.h: restartable atomic sequences (RAS), preemption timer, per-CPU counters.
 *
 * A restartable atomic sequence is a short run of instructions that reads and
 * then writes shared data without an interlocked instruction.  It is atomic
 * with respect to every other thread that runs on the SAME virtual processor
 * (OS thread): when a preemption signal interrupts a thread inside a
 * registered range, the handler rewinds the thread's program counter to the
 * start of the range, so the sequence is executed again from the beginning.
 * (After McGarry, "User-level restartable atomic sequences on NetBSD", 2003.)
 *
 * Rules for a sequence (the registry cannot check them): one entry point (the
 * start address), no calls, no system calls, and at most one write to shared
 * memory, which must be its last instruction.
 *
 * Registry: mpd_rasctl(addr, len, op) behaves like NetBSD's rasctl(2):
 *   MPD_RAS_INSTALL    register [addr, addr+len); EINVAL if addr is NULL, len
 *                      is 0, the range wraps, overlaps a registered range, or
 *                      the per-process limit is reached.
 *   MPD_RAS_PURGE      remove exactly that range; ESRCH if it is not registered.
 *   MPD_RAS_PURGE_ALL  remove every range (addr and len are ignored).
 *   any other op       EINVAL.
 * It returns 0, or -1 with errno set.  Changes take effect immediately.
 * Purging a range while another thread may be inside it is undefined, as in
 * NetBSD: the caller must coordinate.
 *
 * Preemption: mpd_preempt_start() arms a per-OS-thread timer whose signal
 * (MPD_PREEMPT_SIGNAL) calls a hook; the threads layer (mpd/threads.h) uses it
 * for its preemptive mode.  The hook receives the interrupted ucontext and is
 * expected to call mpd_ras_fixup() before switching away.
 *
 * Per-CPU counters use Linux rseq through glibc's registration when present
 * and fall back to interlocked adds otherwise. */
#ifndef MPD_RAS_H
#define MPD_RAS_H

#include <stddef.h>
#include <signal.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- registry -------------------------------------------------------- */
enum { MPD_RAS_INSTALL = 0, MPD_RAS_PURGE = 1, MPD_RAS_PURGE_ALL = 2 };

#define MPD_RAS_DEFAULT_LIMIT 16 /* per-process limit, as in NetBSD */
#define MPD_RAS_HARD_LIMIT 256   /* largest limit mpd_ras_set_limit accepts */

int mpd_rasctl(void *addr, size_t len, int op);

/* Change the per-process limit (1..MPD_RAS_HARD_LIMIT, and not below the
 * number currently registered).  Returns 0 or -1 with errno = EINVAL. */
int mpd_ras_set_limit(int limit);
int mpd_ras_limit(void);
int mpd_ras_count(void); /* sequences currently registered */

/* Start of the registered sequence containing pc, or NULL.  Async-signal-safe;
 * a linear scan, like NetBSD's ras_lookup(). */
void *mpd_ras_lookup(const void *pc);

/* If the thread interrupted in ucontext (a ucontext_t *, as given to an
 * SA_SIGINFO handler) is inside a registered sequence, rewind its program
 * counter to the start, count the restart and return 1; else return 0. */
int mpd_ras_fixup(void *ucontext);

/* Restarts actioned for the sequence that starts at addr (0 if none), and in
 * total since the program started (purged sequences included). */
unsigned long mpd_ras_restarts(const void *addr);
unsigned long mpd_ras_restarts_total(void);

/* ---- built-in sequences ---------------------------------------------- */
/* mpd_ras_init() registers the two sequences below (idempotent; returns 0 or
 * -1/errno from mpd_rasctl).  mpd_ras_builtin_purge() removes them again.
 * MPD_RAS_NATIVE is 1 where they are real RAS (x86-64, aarch64); elsewhere
 * they are interlocked operations and nothing is registered.
 *
 * A RAS is atomic only among the threads of ONE OS thread: two OS threads
 * run it at once on two CPUs, and an OS thread that the kernel preempts in
 * the middle (whose rewind nobody does) resumes with a stale value.  So, as
 * NetBSD's libpthread does on a multiprocessor, the built-ins use interlocked
 * instructions unless the program declares that one OS thread runs them:
 * mpd_ras_set_uniprocessor(1) (returns the previous setting).  Declare it
 * before the sequences are used, not while another thread runs them.
 * mpd_threads_main declares it for one VP and clears it for more; the
 * default is interlocked.  mpd_ras_uniprocessor() says which path is used.
 * (Linux rseq would restart a sequence on preemption or migration, but a
 * sequence on shared data run by VPs on different CPUs needs the interlocked
 * instruction anyway: rseq gives per-CPU atomicity only -- mpd_pcpu_* below.) */
#if defined(__x86_64__) || defined(__aarch64__)
#define MPD_RAS_NATIVE 1
#else
#define MPD_RAS_NATIVE 0
#endif
int mpd_ras_init(void);
int mpd_ras_builtin_purge(void);
int mpd_ras_set_uniprocessor(int on);
int mpd_ras_uniprocessor(void);

int mpd_ras_tas(volatile int *p);                 /* old = *p; *p = 1 */
long mpd_ras_fetch_add(volatile long *p, long v); /* old = *p; *p += v */
extern const char mpd_ras_tas_begin[], mpd_ras_tas_end[];
extern const char mpd_ras_fetch_add_begin[], mpd_ras_fetch_add_end[];

/* ---- a mutex on the RAS test-and-set ----------------------------------
 * Valid among any threads (on several OS threads it runs on the interlocked
 * test-and-set, see above).  A waiter calls the yield hook between attempts:
 * mpd_threads_main installs mpd_thread_yield (so a holder on the waiter's own
 * VP gets to run); the default, for OS threads, is sched_yield(). */
typedef struct {
    volatile int word;
} mpd_ras_mutex_t;
#define MPD_RAS_MUTEX_INIT                                                                         \
    {                                                                                              \
        0                                                                                          \
    }
void mpd_ras_mutex_lock(mpd_ras_mutex_t *m);
int mpd_ras_mutex_trylock(mpd_ras_mutex_t *m); /* 0 or EBUSY */
void mpd_ras_mutex_unlock(mpd_ras_mutex_t *m);
void mpd_ras_set_yield(void (*yield)(void));

/* ---- preemption timer -------------------------------------------------- */
#define MPD_PREEMPT_SIGNAL SIGURG /* ignored by default if it ever strays */

/* Called in signal context when the calling OS thread's timer fires and the
 * interrupted code may be preempted (see mpd_preempt_off). */
typedef void (*mpd_preempt_hook)(void *ucontext);

/* Arm a timer for the calling OS thread that fires every period_us of
 * CLOCK_MONOTONIC time and calls hook.  Returns 0 or an errno value. */
int mpd_preempt_start(long period_us, mpd_preempt_hook hook);
void mpd_preempt_stop(void); /* disarm the calling thread's timer */

/* Code that must not be interrupted by the hook runs between
 * mpd_preempt_off() and mpd_preempt_on(); they nest.  The hook is never
 * called while the interrupted PC lies in the runtime library itself (its
 * code is linked into one section, mpd_rt_text, so this holds for every lock,
 * queue and scheduler of the runtime whatever it is doing) or outside the
 * main program's text (libc, other shared objects) -- except inside a
 * registered sequence, which is always rewound.  A tick that is not taken is
 * deferred: mpd_preempt_pending() is then 1 until the next tick is taken or
 * mpd_preempt_clear_pending() is called; a thread package checks it at its
 * safe points (mpd_threads: when preemption is turned back on). */
void mpd_preempt_off(void);
void mpd_preempt_on(void);
int mpd_preempt_is_off(void);
int mpd_preempt_pending(void);
void mpd_preempt_clear_pending(void);
/* 1 if pc lies in the runtime library's code (section mpd_rt_text). */
int mpd_preempt_pc_in_runtime(const void *pc);
/* Ticks seen / ticks passed to the hook / ticks deferred, for this thread. */
void mpd_preempt_stats(unsigned long *ticks, unsigned long *taken, unsigned long *deferred);

/* ---- per-CPU counter (Linux rseq) -------------------------------------- */
#define MPD_PCPU_MAX 256
typedef struct mpd_pcpu_counter mpd_pcpu_counter_t;
mpd_pcpu_counter_t *mpd_pcpu_counter_new(void);
void mpd_pcpu_counter_free(mpd_pcpu_counter_t *c);
void mpd_pcpu_add(mpd_pcpu_counter_t *c, long v); /* no interlocked insn with rseq */
long mpd_pcpu_sum(const mpd_pcpu_counter_t *c);
/* 1 if this thread's adds go through rseq, 0 if through the fallback.
 * mpd_pcpu_force_fallback(1) selects the fallback (for tests/benchmarks). */
int mpd_pcpu_uses_rseq(void);
void mpd_pcpu_force_fallback(int on);
/* Number of rseq aborts this thread has taken in mpd_pcpu_add. */
unsigned long mpd_pcpu_aborts(void);

#ifdef __cplusplus
}
#endif
#endif
