/* opcore.c: the operations layer's use of the process core (mpd/rt.h): spawning, waiting, killing, reporting. */
#include <stdio.h>
#include "opint.h"

/* Per-process language data (the core's udata slot); also carries the
 * start function, so a spawn allocates one small block (from a per-VP
 * cache) besides the core's process. */
typedef struct oproc {
    mpd_res *res;               /* the instance it belongs to */
    int killed;                 /* its resource was destroyed */
    int is_body;
    struct oproc *next, *prev;  /* in its instance's process list */
    void (*fn)(void *);
    void *arg;
} oproc;

static opk_lock plk = OPK_LOCK_INIT;        /* process lists */
static int any_killed;      /* set once a process was retired: until then nobody checks */

#define OCACHE_MAX 256
static _Thread_local oproc *ocache;
static _Thread_local unsigned ocachen;

static oproc *oproc_new(void)
{
    oproc *o = ocache;
    if (o) {
        ocache = o->next;
        ocachen--;
    } else if (!(o = malloc(sizeof *o))) {
        mpd_rts_fatal("out of memory");
    }
    return o;
}

static void oproc_free(oproc *o)
{
    if (ocachen < OCACHE_MAX) {
        o->next = ocache;
        ocache = o;
        ocachen++;
    } else {
        free(o);
    }
}

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
    if (!o) {                   /* a process this layer did not start */
        if (!r)
            return NULL;
        o = oproc_new();
        memset(o, 0, sizeof *o);
        mpd_proc_set_udata(p, o);
    }
    mpd_res *old = o->res;
    o->res = r;                 /* not listed in r: it is not r's to kill */
    return old;
}

static void unlist(oproc *o)
{
    if (!o->res)
        return;
    resrt *rt = res_rt(o->res);
    opk_acquire(&plk);
    if (o->prev)
        o->prev->next = o->next;
    else if (rt->procs == o)
        rt->procs = o->next;
    if (o->next)
        o->next->prev = o->prev;
    opk_release(&plk);
}

static void spawn_entry(void *arg)
{
    oproc *o = arg;
    mpd_proc *self = mpd_self();
    mpd_proc_set_udata(self, o);
    if (!__atomic_load_n(&o->killed, __ATOMIC_RELAXED))
        o->fn(o->arg);
    unlist(o);
    mpd_proc_set_udata(mpd_self(), NULL);
    oproc_free(o);
}

void opk_spawn(void (*fn)(void *), void *arg, const char *name, mpd_res *res, int is_body)
{
    oproc *o = oproc_new();
    o->fn = fn;
    o->arg = arg;
    o->res = res;
    o->killed = 0;
    o->is_body = is_body;
    o->next = o->prev = NULL;
    if (res) {
        resrt *rt = res_rt(res);
        opk_acquire(&plk);
        o->next = rt->procs;
        if (rt->procs)
            rt->procs->prev = o;
        rt->procs = o;
        opk_release(&plk);
    }
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.name = name;
    at.detached = 1;
    mpd_proc *self = mpd_self();
    if (self)
        at.priority = mpd_proc_priority(self);
    mpd_proc_create(spawn_entry, o, &at);
}

_Noreturn void opk_exit(void)
{
    oproc *o = me();
    if (o) {
        unlist(o);
        mpd_proc_set_udata(mpd_self(), NULL);
        oproc_free(o);
    }
    mpd_proc_exit(NULL);
}

int opk_kill_procs(mpd_res *r)
{
    resrt *rt = res_rt(r);
    oproc *self = me();
    int body = 0;
    opk_acquire(&plk);
    for (oproc *o = rt->procs; o; o = o->next)
        if (o != self) {
            __atomic_store_n(&any_killed, 1, __ATOMIC_RELAXED);
            __atomic_store_n(&o->killed, 1, __ATOMIC_RELAXED);
            body |= o->is_body;
        }
    opk_release(&plk);
    return body;
}

static inline void die_if_killed(void)
{
    if (__builtin_expect(__atomic_load_n(&any_killed, __ATOMIC_RELAXED), 0)) {
        oproc *o = me();
        if (o && __atomic_load_n(&o->killed, __ATOMIC_RELAXED))
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
        opk_exit();         /* its own resource's op: that resource is gone */
    mpd_rts_abort(F, L, "attempting to invoke operation that no longer exists");
}

void opk_event_wait(opk_event *e, const char *F, int L)
{
    if (F)
        mpd_set_loc(F, L);
    mpd_sem_P(e);
    die_if_killed();
}

void opk_park_waiter(opk_lock *held, const char *F, int L)
{
    if (F)
        mpd_set_loc(F, L);
    mpd_park(mpd_rt_single() ? NULL : held);
    die_if_killed();
}

/* ---- program end ---------------------------------------------------------- */

static void report_one(mpd_proc *p, void *arg)
{
    (void)arg;
    oproc *o = mpd_proc_udata(p);
    if (o && __atomic_load_n(&o->killed, __ATOMIC_RELAXED))
        return;             /* its resource is gone: it is not "blocked" */
    if (o && o->res && res_rt(o->res)->is_global)
        return;             /* as in MPD: servers in globals wait forever */
    const char *f = mpd_proc_file(p);
    if (f)
        fprintf(stderr, "RTS warning: blocked process: %s : file %s, line %d\n",
                mpd_proc_name(p), f, mpd_proc_line(p));
    else
        fprintf(stderr, "RTS warning: blocked process: %s\n", mpd_proc_name(p));
}

static void report_blocked(void)
{
    fflush(stdout);
    mpd_rt_foreach_blocked(report_one, NULL);
    fflush(stderr);
}

static void quiesce(int all_done, void *arg)
{
    (void)all_done; (void)arg;
    res_program_end();
}

void opk_install_end(void)
{
    mpd_rt_set_quiesce_hook(quiesce, NULL);
    mpd_rt_set_report(report_blocked);
}
