/* opcore.h: the few runtime-core services the operations layer uses.
 *
 * Everything in lang/op*.c, inv*.c, in*.c, co*.c and res*.c reaches the
 * process core only through these, so that the language layer does not
 * depend on the core's internals (opcore.c maps them onto mpd/rt.h).
 *
 *   opk_lock     a short spin lock (never held across a block)
 *   opk_event    a counting wakeup signal owned by one waiting process:
 *                post() may come before or after wait(); each wait()
 *                consumes one post.
 *   processes    spawn a process running fn(arg), with a name for the
 *                blocked-process report and the resource it belongs to;
 *                record where the running process is about to block.
 */
#ifndef MPD_OPCORE_H
#define MPD_OPCORE_H

#include <stdint.h>
#include "mpd/abi/ops.h"
#include "mpd/rt.h"

typedef mpd_spinlock opk_lock;
#define OPK_LOCK_INIT MPD_SPINLOCK_INIT
static inline void opk_lock_init(opk_lock *l)
{
    mpd_spin_init(l);
}
/* With one VP, processes switch only when they block or yield, and this
 * layer never blocks inside a critical section: no lock is needed (and an
 * atomic exchange costs more than the rest of a send). */
static inline void opk_acquire(opk_lock *l)
{
    if (!mpd_rt_single())
        mpd_spin_lock(l);
}
static inline void opk_release(opk_lock *l)
{
    if (!mpd_rt_single())
        mpd_spin_unlock(l);
}

typedef mpd_sem opk_event;
static inline void opk_event_init(opk_event *e)
{
    mpd_sem_init(e, 0);
}
/* Block until posted.  F/L: where the MPD program is blocked. */
void opk_event_wait(opk_event *e, const char *F, int L);
/* The same, returning even when the caller was retired meanwhile (it then
 * ends with opk_check_killed, after its own cleanup). */
void opk_event_wait_nokill(opk_event *e, const char *F, int L);
static inline void opk_event_post(opk_event *e)
{
    mpd_sem_V(e);
}

/* Start a process running fn(arg).  name: "res.proc" (copied); res: the
 * instance it belongs to (its processes die with it), or NULL; is_body: it
 * runs the instance's initial code. */
void opk_spawn(void (*fn)(void *), void *arg, const char *name, mpd_res *res, int is_body);
/* The same in two steps: makes the process (not started) with `extra`
 * bytes of its own memory for the caller, returned (16-byte aligned, valid
 * until the process ends); fn then gets that memory instead of arg when
 * extra > 0.  name_static: name is a literal, kept by reference.  Start it
 * with mpd_proc_launch(*pp). */
void *opk_spawn_prep(void (*fn)(void *), void *arg, const char *name, int name_static, mpd_res *res,
                     int is_body, size_t extra, mpd_proc **pp);

/* The layer's record of a process (opcore.c; here for the inline spawn
 * below).  It sits in the process's own memory (mpd_proc_spawn's extra
 * bytes), followed by the spawner's own bytes. */
typedef struct opk_proc {
    mpd_res *res;  /* the instance it belongs to */
    mpd_res *home; /* the instance whose destroy retires it
                                   (res, unless opk_swap_res moved res) */
    int is_body;   /* runs res's initial code */
    int own_mem;   /* calloc'd by opk_swap_res, not in a region */
    void (*fn)(void *);
    void *arg;
    struct opk_held *held; /* the direct calls it is in that hold their
                                   instance (reclaim.c), innermost first */
} __attribute__((aligned(16))) opk_proc;
/* A direct call holding its instance, on the caller's stack: a process
 * that ends inside it (retired) lets go of the instance as it ends. */
typedef struct opk_held {
    mpd_res *r;
    struct opk_held *prev;
} opk_held;
/* The running process's record (NULL: a process this layer did not start). */
opk_proc *opk_self_proc(void);
void opk__spawn_entry(void *arg);

/* Live processes of an instance (res->nproc, lang/reclaim.c): one add per
 * spawn and one subtract per exit, plain with one VP.  After its destroy
 * (MPD__RES_KILLED) the slow path counts retired processes and frees the
 * instance after its last one. */
void opk__home_killed(mpd_res *r, uint32_t old, int d);
static inline void opk__home_add(mpd_res *r)
{
    uint32_t n;
    if (mpd_rt_single()) {
        n = r->nproc;
        r->nproc = n + 1;
    } else {
        n = __atomic_fetch_add(&r->nproc, 1, __ATOMIC_ACQ_REL);
    }
    if (__builtin_expect(n & MPD__RES_KILLED, 0))
        opk__home_killed(r, n, 1);
}
static inline void opk__home_drop(mpd_res *r)
{
    uint32_t n;
    if (mpd_rt_single()) {
        n = r->nproc;
        r->nproc = n - 1;
    } else {
        n = __atomic_fetch_sub(&r->nproc, 1, __ATOMIC_ACQ_REL);
    }
    if (__builtin_expect(n & MPD__RES_KILLED, 0))
        opk__home_killed(r, n, -1);
}

static inline void opk__proc_init(mpd_proc *p, opk_proc *o, void (*fn)(void *), void *arg,
                                  mpd_res *res)
{
    mpd_proc_set_udata(p, o);
    o->fn = fn;
    o->arg = arg;
    o->res = res;
    __atomic_store_n(&o->home, res, __ATOMIC_RELAXED); /* read by retire_one */
    o->is_body = 0;
    o->own_mem = 0;
    o->held = NULL;
    if (res)
        opk__home_add(res);
}
/* The process of opk_spawn_proc is done with its instance: the last thing
 * it does before it ends (the instance may be freed at once). */
static inline void opk_proc_end(opk_proc *o)
{
    opk__home_drop(o->home);
}

/* opk_spawn_prep's fast case, for procs: a process of res named by a
 * literal, with `extra` bytes of its own memory (returned, for the caller
 * to fill).  ready: with one VP it is made ready at once (*pp = NULL), the
 * caller filling the memory before it blocks; else the caller starts it
 * with mpd_proc_launch(*pp).  It runs run(o) (o + 1 is that memory), which
 * must begin with opk_proc_alive(o) (and do nothing if it is 0). */
__attribute__((always_inline)) static inline void *opk_spawn_proc(void (*run)(void *),
                                                                  const char *name, mpd_res *res,
                                                                  size_t extra, mpd_proc **pp,
                                                                  int ready)
{
    opk_proc *o = mpd_proc_spawn_here(run, name, sizeof(opk_proc) + extra, pp, ready);
    o->res = res; /* fn and arg: unused (run is not opk__spawn_entry) */
    __atomic_store_n(&o->home, res, __ATOMIC_RELAXED); /* read by retire_one */
    o->is_body = 0;
    o->own_mem = 0;
    o->held = NULL;
    opk__home_add(res);
    return o + 1;
}
extern int opk__any_killed;
/* Retired: the instance it belongs to was destroyed. */
static inline int opk__retired(const opk_proc *o)
{
    return o->home && (__atomic_load_n(&o->home->nproc, __ATOMIC_RELAXED) & MPD__RES_KILLED);
}
/* 0 if the process of opk_spawn_proc was retired before it started. */
static inline int opk_proc_alive(const opk_proc *o)
{
    return __builtin_expect(!__atomic_load_n(&opk__any_killed, __ATOMIC_RELAXED), 1) ||
           !opk__retired(o);
}

/* The resource instance of the running process (set at spawn). */
mpd_res *opk_cur_res(void);
/* Make r the running process's instance (for final code run by the
 * program-end process); returns the previous one. */
mpd_res *opk_swap_res(mpd_res *r);

/* End the calling process. */
_Noreturn void opk_exit(void);
/* End the calling process (one of opk_spawn_proc's: nothing to clean up)
 * and make p, parked, ready: p runs next when nothing else is ready. */
static inline _Noreturn void opk_exit_to(mpd_proc *p)
{
    mpd_proc_exit_to(p);
}

/* Retire the processes of destroyed instance r, those spawned later by its
 * still-running ones included: they end the next time they would block or
 * wake in this layer, and the blocked-process report leaves them out (a
 * caller that is one of them must end before it waits again).  Returns 1
 * if r's body process had not ended. */
int opk_kill_procs(mpd_res *r);
/* Ends the calling process if its resource was destroyed meanwhile (for
 * waits that do not go through opk_event_wait, like nap). */
void opk_check_killed(void);
/* The same, inline: one load while no resource was ever destroyed. */
static inline void opk_check_killed_fast(void)
{
    if (__builtin_expect(__atomic_load_n(&opk__any_killed, __ATOMIC_RELAXED), 0))
        opk_check_killed();
}

/* The caller met a dead op (op, or NULL when only its object is gone).  A
 * process of a destroyed resource ends quietly here: on several VPs it may
 * still be running when its resource's ops die.  Anyone else gets MPD's
 * "no longer exists" abort. */
_Noreturn void opk_dead_op(const char *F, int L, const mpd_op *op);

#endif
