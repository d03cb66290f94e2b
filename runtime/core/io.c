/* io.c: blocking calls run on helper OS threads while the processes go on. */
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include "core/rt_internal.h"
#include "mpd/err.h"
#include "core/plist.h"

#define MAX_HELPERS 64

atomic_long mpd__io_pending;
_Atomic(mpd_proc *) mpd__inbox;
#if MPD_RT_HAND1
extern void *_Atomic mpd__inbox_h1 __attribute__((alias("mpd__inbox"))); /* mpd/abi/handoff.h */
#endif

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static mpd_plist jobs; /* through io_next (core/plist.h) */
/* njobs: queued calls no helper has taken yet.  A helper woken by a signal
 * still counts in nidle until it runs, so "some helper is idle" does not mean
 * "a helper is free for this call": with one idle helper and two calls
 * queued, the second one waited behind the first, which may be a call that
 * only ends once the second has run (a thread join waiting on processes that
 * sleep through blocking calls: a deadlock). */
static int nhelpers, nidle, njobs;

/* All processes finished remotely, oldest first. */
mpd_proc *mpd__inbox_take(void)
{
    mpd_proc *l = atomic_exchange_explicit(&mpd__inbox, NULL, memory_order_acquire), *r = NULL;
    while (l) {
        mpd_proc *n = l->io_next;
        l->io_next = r;
        r = l;
        l = n;
    }
    return r;
}

static void *helper(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    for (;;) {
        while (!jobs.head) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += 10;
            nidle++;
            int rc = pthread_cond_timedwait(&cv, &mu, &ts);
            nidle--;
            if (rc == ETIMEDOUT && !jobs.head) { /* idle for long: go away */
                nhelpers--;
                pthread_mutex_unlock(&mu);
                return NULL;
            }
        }
        mpd_proc *p = pl_pop(&jobs, PL_IO);
        njobs--;
        pthread_mutex_unlock(&mu);
        errno = 0;
        p->io_result = p->io_fn(p->io_arg);
        p->io_errno = errno;
        /* visible in the inbox before it stops counting as pending */
        mpd__ready_remote(p);
        atomic_fetch_sub(&mpd__io_pending, 1);
        mpd__wake_idle_vp();
        pthread_mutex_lock(&mu);
    }
}

/* Post-switch action: the caller is off its stack, hand it to a helper. */
void mpd__io_submit(mpd_proc *p)
{
    pthread_mutex_lock(&mu);
    pl_push(&jobs, p, PL_IO);
    njobs++;
    if (nidle > 0)
        pthread_cond_signal(&cv);
    if (njobs > nidle && nhelpers < MAX_HELPERS) { /* every queued call gets a helper of its own */
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &a, helper, NULL) == 0)
            nhelpers++;
        else if (nhelpers == 0)
            mpd_rts_fatal("cannot start a thread for blocking calls");
        pthread_attr_destroy(&a);
    }
    pthread_mutex_unlock(&mu);
}

intptr_t mpd_blocking_call(intptr_t (*fn)(void *), void *arg, int *err)
{
    mpd_proc *self = proc_self();
    self->io_fn = fn;
    self->io_arg = arg;
    atomic_fetch_add(&mpd__io_pending, 1);
    PSTATE_SET(self, P_IOWAIT);
    mpd__switch_out(PS_IO, self, NULL);
    if (err)
        *err = self->io_errno;
    return self->io_result;
}
