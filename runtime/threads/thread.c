/* thread.c: the cthreads-style thread API on runtime processes: fork/join/detach/yield/self. */
#include "threads/threads_impl.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "mpd/alock.h"
#include "mpd/err.h"
#include "mpd/ras.h"

_Thread_local mpd_thread_t *mpd__threads_forking;
static atomic_ulong fork_seq;

void mpd_thread_attr_init(mpd_thread_attr_t *a)
{
    memset(a, 0, sizeof *a);
    a->vp = -1;
}

static mpd_thread_t *thread_new(void *(*fn)(void *), void *arg, const mpd_thread_attr_t *a)
{
    mpd_thread_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->magic = THREAD_MAGIC;
    t->fn = fn;
    t->arg = arg;
    atomic_init(&t->deadline, a->deadline_ns);
    t->home_vp =
        a->vp >= 0 && a->vp < mpd_nvp() ? a->vp : (mpd_vp_index() < 0 ? 0 : mpd_vp_index());
    t->preemptible = a->preemptible;
    t->nopreempt = 1; /* until the trampoline runs user code */
    atomic_init(&t->flags, a->detached ? TF_DETACHED : 0);
    t->seq = atomic_fetch_add(&fork_seq, 1);
    return t;
}

static void finish(mpd_thread_t *t, void *result)
{
    t->result = result;
    t->nopreempt++;
    if (atomic_fetch_or(&t->flags, TF_DONE) & TF_DETACHED)
        free(t);
}

static void trampoline(void *arg)
{
    mpd_thread_t *t = arg;
    mpd_proc *self = mpd_self();
    if (mpd_proc_udata(self) != t)
        mpd_proc_set_udata(self, t); /* not attached by put() */
    t->nopreempt--;
    finish(t, t->fn(t->arg));
}

int mpd_thread_fork(mpd_thread_t **out, const mpd_thread_attr_t *a, void *(*fn)(void *), void *arg)
{
    mpd_thread_attr_t def;
    if (!a) {
        mpd_thread_attr_init(&def);
        a = &def;
    }
    if (!fn || mpd_self() == NULL)
        return EINVAL;
    if (a->vp >= mpd_nvp())
        return EINVAL;
    mpd_thread_t *t = thread_new(fn, arg, a);
    if (!t)
        return ENOMEM;
    mpd_proc_attr pa = MPD_PROC_ATTR_INIT;
    pa.name = a->name ? a->name : "thread";
    pa.priority = a->priority;
    pa.stack_size = a->stack_size;
    pa.detached = a->detached;
    mpd_thread_t *me = mpd_thread_self();
    if (me)
        me->nopreempt++;
    /* t->p is set before the process can run: a detached thread may end and
     * free t as soon as it is ready */
    mpd_proc *p = mpd_proc_prepare(trampoline, t, &pa, NULL);
    t->p = p;
    mpd__threads_forking = t;
    mpd_proc_launch(p); /* the configurable put() attaches t */
    mpd__threads_forking = NULL;
    if (me)
        me->nopreempt--;
    if (out)
        *out = a->detached ? NULL : t;
    return 0;
}

int mpd_thread_join(mpd_thread_t *t, void **result)
{
    if (!t || t->magic != THREAD_MAGIC)
        return EINVAL;
    if (t == mpd_thread_self())
        return EDEADLK;
    if (atomic_load(&t->flags) & TF_DETACHED)
        return EINVAL;
    mpd_thread_preempt_off();
    int r = mpd_proc_join(t->p, NULL);
    mpd_thread_preempt_on();
    if (r != 0)
        return EINVAL;
    if (result)
        *result = t->result;
    t->magic = 0;
    free(t);
    return 0;
}

int mpd_thread_detach(mpd_thread_t *t)
{
    if (!t || t->magic != THREAD_MAGIC)
        return EINVAL;
    if (atomic_load(&t->flags) & TF_DETACHED)
        return EINVAL;
    mpd_thread_preempt_off();
    mpd_proc_detach(t->p);
    mpd_thread_preempt_on();
    if (atomic_fetch_or(&t->flags, TF_DETACHED) & TF_DONE)
        free(t);
    return 0;
}

void mpd_thread_yield(void)
{
    mpd_thread_preempt_off();
    mpd_yield();
    mpd_thread_preempt_on();
}

_Noreturn void mpd_thread_exit(void *result)
{
    mpd_thread_t *t = mpd_thread_self();
    if (t)
        finish(t, result);
    mpd_proc_exit(result);
}

mpd_thread_t *mpd_thread_self(void)
{
    return thread_of(mpd_self());
}
const char *mpd_thread_name(const mpd_thread_t *t)
{
    return mpd_proc_name(t->p);
}
int mpd_thread_home_vp(const mpd_thread_t *t)
{
    return t->home_vp;
}

int mpd_thread_set_priority(mpd_thread_t *t, int priority)
{
    if (!t || t->magic != THREAD_MAGIC)
        return EINVAL;
    mpd_proc_set_priority(t->p, priority);
    return 0;
}

int mpd_thread_set_deadline(mpd_thread_t *t, int64_t d)
{
    if (!t || t->magic != THREAD_MAGIC || d < 0)
        return EINVAL;
    atomic_store(&t->deadline, d);
    return 0;
}

int64_t mpd_thread_deadline(const mpd_thread_t *t)
{
    return atomic_load(&((mpd_thread_t *)t)->deadline);
}

void mpd_thread_preempt_off(void)
{
    mpd_thread_t *t = mpd_thread_self();
    if (t)
        t->nopreempt++;
}

/* Turning preemption back on is a safe point: a tick deferred meanwhile
 * (this thread was in a no-preemption section, or the VP's tick landed in
 * the runtime's code) is taken now, so time slices stay about as long as
 * preempt_us however much of its time a thread spends in the runtime. */
void mpd_thread_preempt_on(void)
{
    mpd_thread_t *t = mpd_thread_self();
    if (!t || --t->nopreempt > 0 || !t->preemptible)
        return;
    if (!t->preempt_pending && !mpd_preempt_pending())
        return;
    t->preempt_pending = 0;
    mpd_preempt_clear_pending();
    t->preemptions++;
    t->nopreempt++;
    mpd_yield();
    t->nopreempt--;
}
unsigned long mpd_thread_preemptions(void)
{
    mpd_thread_t *t = mpd_thread_self();
    return t ? t->preemptions : 0;
}

/* ---- preemption: called by the VP timer (mpd/ras.h) in signal context ---- */
void mpd__threads_preempt_hook(void *uc)
{
    mpd_thread_t *t = mpd_thread_self();
    if (!t || !t->preemptible)
        return;
    if (t->nopreempt > 0) {
        t->preempt_pending = 1;
        return;
    } /* taken at preempt_on */
    t->preempt_pending = 0;
    mpd_ras_fixup(uc); /* a thread inside a sequence resumes at its start */
    t->preemptions++;
    t->nopreempt++;
    mpd_yield();
    t->nopreempt--;
}

/* ---- adaptive locks block lightweight threads, not the VP ---- */
static void *al_cur(void)
{
    return mpd_self();
}
static void al_park(void *self, mpd_spinlock *held)
{
    (void)self;
    mpd_park(held);
}
static void al_unpark(void *t)
{
    mpd_unpark(t);
}
static void al_relax(void)
{
    mpd_yield();
}
static int al_prio(void)
{
    mpd_proc *p = mpd_self();
    return p ? mpd_proc_priority(p) : 0;
}
static const mpd_alock_backend_t lwp_backend = {al_cur, al_park, al_unpark, al_relax};

/* ---- start ---- */
struct main_args {
    void (*fn)(void *);
    void *arg;
};

/* The RAS mutex's waiters yield the lightweight thread: the holder may be
 * on the waiter's own VP.  OS threads outside the runtime yield the CPU. */
static void ras_waiter_yield(void)
{
    if (mpd_self())
        mpd_thread_yield();
    else
        sched_yield();
}

static void main_trampoline(void *arg)
{
    struct main_args *m = arg;
    /* RAS are atomic among the threads of one OS thread: restartable on one
     * VP, interlocked on several (mpd/ras.h) */
    mpd_ras_set_uniprocessor(mpd_nvp() == 1);
    mpd_thread_attr_t a;
    mpd_thread_attr_init(&a);
    mpd_thread_t *t = thread_new(NULL, NULL, &a);
    if (!t)
        mpd_rts_fatal("out of memory for the main thread");
    t->p = mpd_self();
    t->nopreempt = 0;
    atomic_store(&t->flags, TF_DETACHED);
    mpd_proc_set_udata(t->p, t);
    m->fn(m->arg);
    mpd_proc_set_udata(t->p, NULL);
    free(t);
}

extern int (*_Atomic mpd_alock__prio_hook)(void);

/* The runtime ended with threads blocked for ever (a deadlock, or a thread
 * lost by the library): mpd_threads_main says so instead of "done" -- a test
 * whose checks follow a join would otherwise never run them and pass. */
static int threads_deadlocked;
static void threads_report(void)
{
    threads_deadlocked = 1;
    mpd_rt_report_blocked();
}

int mpd_threads_main(int nvp, void (*main_fn)(void *), void *arg)
{
    if (nvp > 0)
        mpd_rt_set_nvp(nvp);
    mpd_alock_set_backend(&lwp_backend);
    atomic_store(&mpd_alock__prio_hook, al_prio);
    mpd_ras_init();
    mpd_ras_set_yield(ras_waiter_yield);
    mpd__cfg_sched_start();
    static struct main_args m;
    m.fn = main_fn;
    m.arg = arg;
    static char *argv0[] = {"mpd-threads", NULL};
    threads_deadlocked = 0;
    mpd_rt_set_report(threads_report);
    int r = mpd_rt_main(1, argv0, main_trampoline, &m);
    mpd_rt_set_report(NULL);
    if (r == 0 && threads_deadlocked)
        r = EDEADLK;
    mpd_alock_set_backend(NULL);
    mpd_ras_set_yield(NULL);
    mpd_ras_set_uniprocessor(0);
    return r;
}
