/* proc.c: process creation, exit, join/detach, names, and the blocked-process report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/rt_internal.h"
#include "core/switch.h"
#include "mpd/err.h"

#ifdef MPD_TSAN
#include <sanitizer/tsan_interface.h>
#endif

/* Live processes (created, not yet exited).  With one VP a plain count. */
atomic_long mpd__nprocs;
atomic_int mpd__main_alive;
/* Creation order, for the report (newest first). */
static atomic_ullong next_seq;

static inline void lock_if(mpd_spinlock *l)
{
    if (!mpd__mode_one_vp())
        mpd_spin_lock(l);
}
static inline void unlock_if(mpd_spinlock *l)
{
    if (!mpd__mode_one_vp())
        mpd_spin_unlock(l);
}

static inline uint64_t take_seq(void)
{
    if (mpd__mode_one_vp()) {
        uint64_t s = atomic_load_explicit(&next_seq, memory_order_relaxed);
        atomic_store_explicit(&next_seq, s + 1, memory_order_relaxed);
        return s;
    }
    return atomic_fetch_add_explicit(&next_seq, 1, memory_order_relaxed);
}

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
        p->to_cache = 0;
    }
}

const char *mpd_proc_name(const mpd_proc *p)
{
    return p->name_ref ? p->name_ref : p->long_name ? p->long_name : p->name;
}

void mpd_proc_set_name(mpd_proc *p, const char *name)
{
    set_name(p, name);
}
mpd_proc **mpd_proc_link(mpd_proc *p)
{
    return &p->link;
}

/* Every field a process relies on: a region may be reused.  to_cache: it
 * is detached and its region has the default size (so it can go back to
 * a cache); udata: the language layer's. */
static inline void proc_init(mpd_proc *p, void (*fn)(void *), void *arg, int priority, int detached,
                             int to_cache, void *udata)
{
    p->link = NULL;
    p->wlink = NULL;
    p->heap_idx = -1;
    atomic_init(&p->claim, CL_NONE);
    mpd_spin_init(&p->lock);
    p->result = NULL;
    p->hot.file = NULL;
    p->hot.line = 0;
    p->hot.priority = priority;
    /* read from other VPs by a destroy's look at every process (lang/inqueue.c,
     * retire_one): atomic stores */
    __atomic_store_n(&p->hot.udata, udata, __ATOMIC_RELEASE);
    __atomic_store_n(&p->hot.wait, NULL, __ATOMIC_RELAXED);
    __atomic_store_n(&p->hot.waitcls, NULL, __ATOMIC_RELAXED);
    p->fn = fn;
    p->arg = arg;
    p->done = 0;
    p->detached = detached;
    p->autofree = detached;
    p->to_cache = to_cache;
    p->joiner = NULL;
    p->run_now = 0;
}

/* Carve x bytes (a multiple of 16) off the top of p's stack and make its
 * context start below them; returns them. */
static inline void *proc_start_below(mpd_proc *p, size_t x)
{
    size_t top = p->f.stack_size - x;
    mpd_ctx_make_fast(&p->f.ctx, p->f.stack_lo, top, mpd__proc_start, p);
#ifdef MPD_TSAN
    if (!p->f.tsan)
        p->f.tsan = __tsan_create_fiber(0);
#endif
    return p->f.stack_lo + top;
}

/* A new process counts (its creation order, the number alive). */
static inline void count_new(mpd_proc *p)
{
    p->seq = take_seq();
    mpd__count_procs(1);
    MPD_TL(mpd__tl_created(p));
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
    if (n >= mpd__max_procs &&
        n - atomic_load_explicit(&mpd__main_alive, memory_order_relaxed) >= mpd__max_procs)
        mpd_rts_fatal("too many processes: cannot create process %s (limit %ld)",
                      attr->name ? attr->name : "proc", mpd__max_procs);
    size_t ss = attr->stack_size ? attr->stack_size : mpd__stack_default;
    mpd_proc *p = mpd__region_alloc(vp, ss, attr->name);
    if (attr->priority != 0)
        mpd__prio_mixed_on();
    proc_init(p, fn, arg, attr->priority, attr->detached != 0, attr->detached && p->std_region,
              NULL);
    p->run_now = attr->run_now;
    if (attr->name_static && attr->name) {
        if (p->long_name) {
            free(p->long_name);
            p->long_name = NULL;
        }
        p->name_ref = attr->name;
    } else {
        set_name(p, attr->name);
    }
    size_t x = 0;
    if (attr->extra && extra) {
        x = (attr->extra + 15) & ~(size_t)15;
        if (x > p->f.stack_size / 4)
            mpd_rts_fatal("mpd_proc_prepare: %zu extra bytes do not fit a %zu-byte stack",
                          attr->extra, p->f.stack_size);
    }
    void *mem = proc_start_below(p, x);
    if (extra)
        *extra = x ? mem : NULL;
    count_new(p);
    return p;
}

/* mpd_proc_spawn's general path (no cached region, too much extra, the
 * limit reached, not on a VP) and its errors. */
static __attribute__((noinline)) mpd_proc *spawn_slow(void (*fn)(void *), const char *name,
                                                      int priority, size_t extra, void **mem)
{
    mpd_proc_attr a = MPD_PROC_ATTR_INIT;
    a.name = name;
    a.name_static = 1;
    a.priority = priority;
    a.detached = 1;
    a.extra = extra;
    mpd_proc *p = mpd_proc_prepare(fn, NULL, &a, mem);
    p->arg = *mem;
    return p;
}

/* The spawn of a cached region: default stack, no long name, sanitizer
 * fiber kept; not counted yet (count_new).  NULL when it does not apply
 * (then: spawn_slow). */
__attribute__((always_inline)) static inline mpd_proc *spawn_cached(mpd_vp *vp, void (*fn)(void *),
                                                                    const char *name, int priority,
                                                                    size_t extra, void **mem,
                                                                    int set_udata)
{
    size_t x = (extra + 15) & ~(size_t)15;
    mpd_proc *p;
    if (__builtin_expect(!vp || !(p = vp->stack_cache) || x > p->f.stack_size / 4 ||
                             atomic_load_explicit(&mpd__nprocs, memory_order_relaxed) >=
                                 mpd__max_procs,
                         0))
        return NULL;
    vp->stack_cache = p->link;
    vp->stack_cached--;
#ifdef MPD_ASAN
    mpd__region_reuse(p);
#endif
    void *m = *mem = proc_start_below(p, x);
    proc_init(p, fn, m, priority, 1, 1, set_udata ? m : NULL);
    p->name_ref = name;
    return p;
}

mpd_proc *mpd_proc_spawn(void (*fn)(void *), const char *name, int priority, size_t extra,
                         void **mem)
{
    mpd_proc *p = spawn_cached(vp_self(), fn, name, priority, extra, mem, 0);
    if (__builtin_expect(p == NULL, 0))
        return spawn_slow(fn, name, priority, extra, mem);
    count_new(p);
    return p;
}

/* Make p, just spawned, ready before the caller fills its memory: only
 * with one VP, where nothing runs it before the caller's next switch. */
static inline void ready_early(mpd_vp *vp, mpd_proc *p)
{
    if (__builtin_expect(mpd__mode_fast(), 1)) {
        PSTATE_SET(p, P_READY);
        rq_link_tail(&mpd__fifo_q, p);
    } else {
        vp_ready(vp, p);
    }
}

/* mpd_proc_spawn_here when no cached region serves, or with several VPs. */
static __attribute__((noinline)) void *spawn_here_slow(mpd_vp *vp, void (*fn)(void *),
                                                       const char *name, size_t extra,
                                                       mpd_proc **pp, int ready)
{
    mpd_proc *self = vp ? (mpd_proc *)(void *)vp->hot.cur : NULL;
    int prio = self ? self->hot.priority : 0;
    void *mem;
    mpd_proc *p = spawn_cached(vp, fn, name, prio, extra, &mem, 1);
    if (p) {
        count_new(p);
    } else {
        p = spawn_slow(fn, name, prio, extra, &mem); /* counted */
        __atomic_store_n(&p->hot.udata, mem, __ATOMIC_RELEASE);
    }
    if (ready && mpd__mode_one_vp()) {
        ready_early(vp, p);
        p = NULL;
    }
    *pp = p;
    return mem;
}

/* The fast path (one VP, FIFO, a cached region) makes no call, so it
 * needs no frame. */
void *mpd_proc_spawn_here(void (*fn)(void *), const char *name, size_t extra, mpd_proc **pp,
                          int ready)
{
    mpd_vp *vp = vp_self();
    mpd_proc *p;
    size_t x = (extra + 15) & ~(size_t)15;
    if (__builtin_expect(
            !mpd__mode_fast() || !vp || !(p = vp->stack_cache) || x > p->f.stack_size / 4 ||
                atomic_load_explicit(&mpd__nprocs, memory_order_relaxed) >= mpd__max_procs,
            0))
        return spawn_here_slow(vp, fn, name, extra, pp, ready);
    mpd_proc *self = (mpd_proc *)(void *)vp->hot.cur;
    int prio = self ? self->hot.priority : 0;
    vp->stack_cache = p->link;
    vp->stack_cached--;
#ifdef MPD_ASAN
    mpd__region_reuse(p);
#endif
    void *mem = proc_start_below(p, x);
    proc_init(p, fn, mem, prio, 1, 1, mem);
    p->name_ref = name;
    p->seq = atomic_load_explicit(&next_seq, memory_order_relaxed);
    atomic_store_explicit(&next_seq, p->seq + 1, memory_order_relaxed);
    atomic_store_explicit(&mpd__nprocs,
                          atomic_load_explicit(&mpd__nprocs, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    if (ready) {
        PSTATE_SET(p, P_READY);
        rq_link_tail(&mpd__fifo_q, p);
        p = NULL;
    }
    *pp = p;
    return mem;
}

void mpd_proc_set_arg(mpd_proc *p, void *arg)
{
    p->arg = arg;
}

void mpd_proc_launch(mpd_proc *p)
{
    if (__builtin_expect(mpd__mode_fast() && !p->run_now, 1)) {
        PSTATE_SET(p, P_READY);
        rq_link_tail(&mpd__fifo_q, p);
        return;
    }
    mpd_vp *vp = vp_self();
    if (p->run_now && vp->hot.cur)
        mpd_unpark_handoff(p);
    else
        vp_ready(vp, p);
}

void mpd_proc_launch_park(mpd_proc *p, mpd_spinlock *lock)
{
    mpd_vp *vp = vp_self();
    /* p is what pick_next would find first: go there without the queue */
    if (mpd__mode_fast() && vp->hot.cur && !p->run_now && mpd__fifo_q.l.head == NULL &&
        atomic_load_explicit(&mpd__inbox, memory_order_relaxed) == NULL &&
        atomic_load_explicit(&mpd__ntimers, memory_order_relaxed) == 0) {
        mpd_proc *self = (mpd_proc *)(void *)vp->hot.cur;
        PSTATE_SET(self, P_BLOCKED);
        switch_away(vp, self, p, lock ? PS_UNLOCK : PS_NONE, NULL, lock);
        return;
    }
    mpd_proc_launch(p);
    mpd_park(lock);
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
    mpd__count_procs(-1);
    PSTATE_SET(p, P_DONE);
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
        mpd_park(mpd__mode_one_vp() ? NULL : &p->lock);
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

typedef struct blocked {
    mpd_proc **v;
    size_t n, cap;
} blocked;

static void collect_blocked(mpd_proc *p, void *arg)
{
    blocked *b = arg;
    if (p->state != P_BLOCKED)
        return;
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        mpd_proc **v = realloc(b->v, cap * sizeof *v);
        if (!v)
            mpd_rts_fatal("out of memory for the blocked-process report");
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = p;
}

static int newest_first(const void *a, const void *b)
{
    uint64_t x = (*(mpd_proc *const *)a)->seq, y = (*(mpd_proc *const *)b)->seq;
    return x < y ? 1 : x > y ? -1 : 0;
}

struct each {
    void (*fn)(mpd_proc *p, void *arg);
    void *arg;
};

static void each_live(mpd_proc *p, void *arg)
{
    struct each *e = arg;
    if (__atomic_load_n(&p->state, __ATOMIC_RELAXED) != P_DONE)
        e->fn(p, e->arg);
}

void mpd_rt_foreach_proc(void (*fn)(mpd_proc *p, void *arg), void *arg)
{
    struct each e = {fn, arg};
    mpd__regions_foreach(each_live, &e);
}

void mpd_rt_foreach_blocked(void (*fn)(mpd_proc *p, void *arg), void *arg)
{
    blocked b = {NULL, 0, 0};
    mpd__regions_foreach(collect_blocked, &b);
    if (b.n > 1)
        qsort(b.v, b.n, sizeof *b.v, newest_first);
    for (size_t i = 0; i < b.n; i++)
        fn(b.v[i], arg);
    free(b.v);
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

/* The process's creation number (for MPD_TRACE's process ids). */
uint64_t mpd_proc_seq(const mpd_proc *p)
{
    return p->seq;
}
