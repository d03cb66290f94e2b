/* opcore.c: the operations layer's use of the process core (mpd/rt.h): spawning, waiting, killing, reporting. */
#include <stdio.h>
#include "opint.h"

static const opk_res_hooks *res_hooks; /* set by res.c (opint.h) */

void opk_set_res_hooks(const opk_res_hooks *h)
{
    __atomic_store_n(&res_hooks, h, __ATOMIC_RELEASE);
}

static const opk_res_hooks *hooks(void)
{
    return __atomic_load_n(&res_hooks, __ATOMIC_ACQUIRE);
}
#include "core/timeline.h"

/* Per-process language data (the core's udata slot).  It lives in the
 * process's own memory (mpd_proc_prepare's extra bytes, cached with its
 * stack), followed by whatever the spawner asked room for (a proc's
 * invocation block), so a spawn allocates nothing.
 *
 * A resource does not list its processes, it counts them (res->nproc):
 * destroying it sets MPD__RES_KILLED there, and a process is retired when
 * its own resource has that bit (so one spawned by a still-running process
 * of the resource after the destroy is retired too).  A spawn and an exit
 * touch no shared list and take no lock: one add and one subtract (atomic
 * on several VPs), which let the instance be freed after its last process
 * (reclaim.c). */
typedef opk_proc oproc;

int opk__any_killed; /* set once a resource was destroyed: until then nobody checks */

static oproc *me(void)
{
    mpd_proc *p = mpd_self();
    return p ? (oproc *)mpd_proc_udata(p) : NULL;
}

mpd_res *opk_cur_res(void)
{
    oproc *o = me();
    return o ? o->res : NULL;
}

mpd_res *opk_swap_res(mpd_res *r)
{
    mpd_proc *p = mpd_self();
    oproc *o = p ? (oproc *)mpd_proc_udata(p) : NULL;
    if (!o) { /* a process this layer did not start (the
                                   runtime's final process): its record
                                   stays for the rest of the program */
        if (!r)
            return NULL;
        if (!(o = calloc(1, sizeof *o)))
            mpd_rts_fatal("out of memory");
        o->own_mem = 1;
        mpd_proc_set_udata(p, o);
    }
    mpd_res *old = o->res;
    o->res = r; /* for myresource(); r's destroy does not
                                   retire it: its home stays */
    return old;
}

/* The calling process is about to end.  Its instance may be freed once it
 * is counted out, so that comes last. */
static void leaving(oproc *o)
{
    if (o->is_body) {
        hooks()->body_done(res_rt(o->home)); /* retired midway: its block */
        __atomic_store_n(&res_rt(o->home)->body_live, 0, __ATOMIC_RELAXED);
    }
    mpd_proc_set_udata(mpd_self(), NULL);
    for (opk_held *h = o->held; h; h = h->prev)
        res_hold(h->r, -1); /* ended inside direct calls */
    o->held = NULL;
    if (o->home)
        opk__home_drop(o->home);
}

opk_proc *opk_self_proc(void)
{
    return me();
}

void opk__spawn_entry(void *arg)
{
    oproc *o = arg;
    if (__builtin_expect(!__atomic_load_n(&opk__any_killed, __ATOMIC_RELAXED), 1) ||
        !opk__retired(o))
        o->fn(o->arg);
    leaving(o);
}

void *opk_spawn_prep(void (*fn)(void *), void *arg, const char *name, int name_static, mpd_res *res,
                     int is_body, size_t extra, mpd_proc **pp)
{
    mpd_proc *self = mpd_self();
    int prio = self ? mpd_proc_priority(self) : 0;
    void *mem;
    mpd_proc *p;
    if (name_static) {
        p = mpd_proc_spawn(opk__spawn_entry, name, prio, sizeof(oproc) + extra, &mem);
    } else {
        mpd_proc_attr at = MPD_PROC_ATTR_INIT;
        at.name = name;
        at.priority = prio;
        at.detached = 1;
        at.extra = sizeof(oproc) + extra;
        p = mpd_proc_prepare(opk__spawn_entry, NULL, &at, &mem);
        mpd_proc_set_arg(p, mem);
    }
    oproc *o = mem;
    opk__proc_init(p, o, fn, extra ? (void *)(o + 1) : arg, res);
    o->is_body = is_body;
    if (is_body)
        __atomic_store_n(&res_rt(res)->body_live, 1, __ATOMIC_RELAXED);
    *pp = p;
    return o + 1;
}

void opk_spawn(void (*fn)(void *), void *arg, const char *name, mpd_res *res, int is_body)
{
    mpd_proc *p;
    opk_spawn_prep(fn, arg, name, 0, res, is_body, 0, &p);
    mpd_proc_launch(p);
}

_Noreturn void opk_exit(void)
{
    oproc *o = me();
    if (o) {
        leaving(o);
        if (o->own_mem)
            free(o);
    }
    mpd_proc_exit(NULL);
}

int opk_kill_procs(mpd_res *r)
{
    resrt *rt = res_rt(r);
    __atomic_store_n(&opk__any_killed, 1, __ATOMIC_RELAXED);
    res_killed(r); /* retires them (MPD__RES_KILLED) */
    return __atomic_load_n(&rt->body_live, __ATOMIC_RELAXED);
}

static inline void die_if_killed(void)
{
    if (__builtin_expect(__atomic_load_n(&opk__any_killed, __ATOMIC_RELAXED), 0)) {
        oproc *o = me();
        if (o && opk__retired(o))
            opk_exit();
    }
}

void opk_check_killed(void)
{
    die_if_killed();
}

_Noreturn void opk_dead_op(const char *F, int L, const mpd_op *op)
{
    die_if_killed();
    if (op && op->owner && op->owner == opk_cur_res())
        opk_exit(); /* its own resource's op: that resource is gone */
    mpd_rts_abort(F, L, "attempting to invoke operation that no longer exists");
}

void opk_event_wait(opk_event *e, const char *F, int L)
{
    opk_event_wait_nokill(e, F, L);
    die_if_killed();
}

void opk_event_wait_nokill(opk_event *e, const char *F, int L)
{
    if (F)
        mpd_set_loc(F, L);
    MPD_TL(if (!mpd__tl_why) mpd__tl_wait_for(TL_WHY_WAIT, 0));
    mpd_sem_P(e);
}

void opk_launch_park_waiter(mpd_proc *p, opk_lock *held, const char *F, int L)
{
    if (F)
        mpd_set_loc(F, L);
    mpd_proc_launch_park(p, mpd_rt_single() ? NULL : held);
    die_if_killed();
}

void opk_park_waiter_nokill(opk_lock *held, const char *F, int L)
{
    if (F)
        mpd_set_loc(F, L);
    mpd_park(mpd_rt_single() ? NULL : held);
}

void opk_park_waiter(opk_lock *held, const char *F, int L)
{
    opk_park_waiter_nokill(held, F, L);
    die_if_killed();
}

int opk_self_retired(void)
{
    oproc *o = me();
    return o && opk__retired(o);
}

int mpd__self_retired(void)
{
    return opk_self_retired();
}

/* ---- program end ---------------------------------------------------------- */

static void report_one(mpd_proc *p, void *arg)
{
    (void)arg;
    oproc *o = mpd_proc_udata(p);
    if (o && opk__retired(o))
        return; /* its resource is gone: it is not "blocked" */
    if (o && o->res && res_rt(o->res)->is_global)
        return; /* as in MPD: servers in globals wait forever */
    const char *f = mpd_proc_file(p);
    /* blocked in a proc it called directly: named after that proc */
    const char *in_proc = mpd_procspan_name(f, mpd_proc_line(p));
    if (f)
        fprintf(stderr, "%sRTS warning: blocked process: %s : file %s, line %d\n", mpd_rts_label,
                in_proc ? in_proc : mpd_proc_name(p), f, mpd_proc_line(p));
    else
        fprintf(stderr, "%sRTS warning: blocked process: %s\n", mpd_rts_label, mpd_proc_name(p));
}

static void report_blocked(void)
{
    fflush(stdout);
    mpd_rt_foreach_blocked(report_one, NULL);
    fflush(stderr);
}

static void quiesce(int all_done, void *arg)
{
    (void)all_done;
    (void)arg;
    hooks()->program_end();
}

/* A process serving another vm (the distributed deployment): MPD's
 * blocked-process report, without the program-end hook (the main vm's). */
void opk_install_report(void)
{
    mpd_rt_set_report(report_blocked);
}

void opk_install_end(void)
{
    mpd_rt_set_quiesce_hook(quiesce, NULL);
    mpd_rt_set_report(report_blocked);
}
