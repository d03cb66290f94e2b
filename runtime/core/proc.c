/* proc.c: process creation, exit, join/detach, names, and the list of all processes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/rt_internal.h"
#include "core/switch.h"
#include "mpd/err.h"

#ifdef MPD_TSAN
#include <sanitizer/tsan_interface.h>
#endif

atomic_long mpd__nprocs;
/* Every live process, newest first (for deadlock reports). */
mpd_proc *mpd__all;
mpd_spinlock mpd__all_lock = MPD_SPINLOCK_INIT;
static uint64_t next_seq;

static inline void lock_if(mpd_spinlock *l) { if (!mpd__single) mpd_spin_lock(l); }
static inline void unlock_if(mpd_spinlock *l) { if (!mpd__single) mpd_spin_unlock(l); }

static void set_name(mpd_proc *p, const char *name)
{
    if (!name)
        name = "proc";
    p->name_ref = NULL;
    if (p->long_name) {
        free(p->long_name);
        p->long_name = NULL;
    }
    size_t n = strnlen(name, sizeof p->name);
    if (n < sizeof p->name) {
        memcpy(p->name, name, n + 1);
    } else {
        p->long_name = strdup(name);
        if (!p->long_name)
            mpd_rts_fatal("out of memory for the name of process %.20s...", name);
        p->name[0] = 0;
    }
}

const char *mpd_proc_name(const mpd_proc *p)
{
    return p->name_ref ? p->name_ref : p->long_name ? p->long_name : p->name;
}

void mpd_proc_set_name(mpd_proc *p, const char *name) { set_name(p, name); }
void mpd_proc_set_priority(mpd_proc *p, int priority) { p->hot.priority = priority; }
mpd_proc **mpd_proc_link(mpd_proc *p) { return &p->link; }

static _Noreturn void too_many(const char *name)
{
    mpd_rts_fatal("too many processes: cannot create process %s (limit %ld)", name ? name : "proc",
                  mpd__max_procs);
}

mpd_proc *mpd_proc_prepare(void (*fn)(void *), void *arg, const mpd_proc_attr *attr, void **extra)
{
    static const mpd_proc_attr defaults = MPD_PROC_ATTR_INIT;
    mpd_vp *vp = vp_self();
    if (!vp)
        mpd_rts_fatal("mpd_proc_create called outside the runtime (before mpd_rt_main?)");
    if (!attr)
        attr = &defaults;
    long n = atomic_load_explicit(&mpd__nprocs, memory_order_relaxed);
    if (__builtin_expect(n >= mpd__max_procs, 0))
        too_many(attr->name);
    size_t ss = attr->stack_size ? attr->stack_size : mpd__stack_default;
    mpd_proc *p = mpd__region_alloc(vp, ss, attr->name);
    /* a region may be reused: set every field a process relies on */
    p->link = NULL;
    p->wlink = NULL;
    p->heap_idx = -1;
    atomic_init(&p->claim, CL_NONE);
    mpd_spin_init(&p->lock);
    p->result = NULL;
    p->hot.file = NULL;
    p->hot.line = 0;
    p->hot.priority = attr->priority;
    p->hot.udata = NULL;
    p->fn = fn;
    p->arg = arg;
    p->done = 0;
    p->detached = attr->detached != 0;
    p->joiner = NULL;
    p->run_now = attr->run_now;
    if (attr->name_static && attr->name) {
        p->name_ref = attr->name;
        if (__builtin_expect(p->long_name != NULL, 0)) {
            free(p->long_name);
            p->long_name = NULL;
        }
    } else {
        set_name(p, attr->name);
    }
    /* the creator's bytes sit at the top of the stack, below the record */
    size_t top = p->f.stack_size;
    if (attr->extra && extra) {
        size_t x = (attr->extra + 15) & ~(size_t)15;
        if (x > top / 4)
            mpd_rts_fatal("mpd_proc_prepare: %zu extra bytes do not fit a %zu-byte stack",
                          attr->extra, top);
        top -= x;
        *extra = p->f.stack_lo + top;
    } else if (extra) {
        *extra = NULL;
    }
    mpd_ctx_make(&p->f.ctx, p->f.stack_lo, top, mpd__proc_start, p);
#ifdef MPD_TSAN
    if (!p->f.tsan)
        p->f.tsan = __tsan_create_fiber(0);
#endif
    if (mpd__single) {
        p->seq = next_seq++;
        p->all_prev = NULL;
        p->all_next = mpd__all;
        if (mpd__all)
            mpd__all->all_prev = p;
        mpd__all = p;
        atomic_store_explicit(&mpd__nprocs, n + 1, memory_order_relaxed);
    } else {
        mpd_spin_lock(&mpd__all_lock);
        p->seq = next_seq++;
        p->all_prev = NULL;
        p->all_next = mpd__all;
        if (mpd__all)
            mpd__all->all_prev = p;
        mpd__all = p;
        atomic_fetch_add(&mpd__nprocs, 1);
        mpd_spin_unlock(&mpd__all_lock);
    }
    return p;
}

void mpd_proc_set_arg(mpd_proc *p, void *arg) { p->arg = arg; }

void mpd_proc_launch(mpd_proc *p)
{
    mpd_vp *vp = vp_self();
    if (p->run_now && vp->hot.cur)
        mpd_unpark_handoff(p);
    else
        vp_ready(vp, p);
}

mpd_proc *mpd_proc_create(void (*fn)(void *), void *arg, const mpd_proc_attr *attr)
{
    mpd_proc *p = mpd_proc_prepare(fn, arg, attr, NULL);
    mpd_proc_launch(p);
    return p;
}

/* Runs on the next context after an exiting process switched away. */
void mpd__proc_exited(mpd_proc *p)
{
    lock_if(&mpd__all_lock);
    if (p->all_prev)
        p->all_prev->all_next = p->all_next;
    else
        mpd__all = p->all_next;
    if (p->all_next)
        p->all_next->all_prev = p->all_prev;
    if (mpd__single)
        atomic_store_explicit(&mpd__nprocs, atomic_load_explicit(&mpd__nprocs, memory_order_relaxed) - 1,
                              memory_order_relaxed);
    else
        atomic_fetch_sub(&mpd__nprocs, 1);
    unlock_if(&mpd__all_lock);

    p->state = P_DONE;
    lock_if(&p->lock);
    p->done = 1;
    if (p->detached) {
        unlock_if(&p->lock);
        mpd__region_free(vp_self(), p);
        return;
    }
    mpd_proc *j = p->joiner;
    unlock_if(&p->lock);
    if (j)
        mpd_unpark(j);
}

int mpd_proc_join(mpd_proc *p, void **result)
{
    mpd_proc *self = proc_self();
    if (p == self)
        return -1;
    lock_if(&p->lock);
    if (p->detached || p->joiner) {
        unlock_if(&p->lock);
        return -1;
    }
    if (!p->done) {
        p->joiner = self;
        mpd_park(mpd__single ? NULL : &p->lock);
    } else {
        unlock_if(&p->lock);
    }
    if (result)
        *result = p->result;
    mpd__region_free(vp_self(), p);
    return 0;
}

int mpd_proc_detach(mpd_proc *p)
{
    lock_if(&p->lock);
    if (p->detached || p->joiner) {
        unlock_if(&p->lock);
        return -1;
    }
    if (p->done) {
        unlock_if(&p->lock);
        mpd__region_free(vp_self(), p);
        return 0;
    }
    p->detached = 1;
    unlock_if(&p->lock);
    return 0;
}

void mpd_rt_foreach_blocked(void (*fn)(mpd_proc *p, void *arg), void *arg)
{
    for (mpd_proc *p = mpd__all; p; p = p->all_next)
        if (p->state == P_BLOCKED)
            fn(p, arg);
}

static void report_one(mpd_proc *p, void *arg)
{
    (void)arg;
    if (p->hot.file)
        fprintf(stderr, "RTS warning: blocked process: %s : file %s, line %d\n", mpd_proc_name(p),
                p->hot.file, p->hot.line);
    else
        fprintf(stderr, "RTS warning: blocked process: %s\n", mpd_proc_name(p));
}

void mpd_rt_report_blocked(void)
{
    fflush(stdout);
    mpd_rt_foreach_blocked(report_one, NULL);
    fflush(stderr);
}
