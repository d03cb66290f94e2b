/* threads_impl.h: private layout shared by the threads/ files. */
#ifndef MPD_THREADS_IMPL_H
#define MPD_THREADS_IMPL_H
#include <stdatomic.h>
#include "mpd/threads.h"

#define THREAD_MAGIC 0x7468726Du
enum { TF_DETACHED = 1, TF_DONE = 2 };

struct mpd_thread {
    unsigned magic;
    mpd_proc *p;
    void *(*fn)(void *);
    void *arg;
    void *result;
    _Atomic int64_t deadline;
    int home_vp;
    int preemptible;
    int nopreempt;       /* > 0: the preemption hook leaves this thread alone */
    int preempt_pending; /* a tick found nopreempt > 0: yield when it drops to 0 */
    unsigned long preemptions;
    atomic_int flags;
    uint64_t seq; /* fork order, FIFO tie-break */
};

/* The mpd_thread a runtime process runs, or NULL. */
static inline mpd_thread_t *thread_of(mpd_proc *p)
{
    mpd_thread_t *t = p ? (mpd_thread_t *)mpd_proc_udata(p) : NULL;
    return t && t->magic == THREAD_MAGIC ? t : NULL;
}

/* Set while mpd_proc_create runs so the scheduler's put() can attach the new
 * process to its thread before anyone else sees it. */
extern _Thread_local mpd_thread_t *mpd__threads_forking;
extern const mpd_sched_ops mpd__cfg_sched_ops;
void mpd__cfg_sched_start(void);
void mpd__threads_preempt_hook(void *uc);
#endif
