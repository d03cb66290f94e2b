/* opcore.c: the operations layer's use of the process core (mpd/rt.h): spawning, waiting, killing, reporting. */
#include <stdio.h>
#include "opint.h"

/* Per-process language data (the core's udata slot). */
typedef struct oproc {
    mpd_res *res;               /* the instance it belongs to */
    mpd_proc *p;
    int killed;                 /* its resource was destroyed */
    int is_body;
    struct oproc *next, *prev;  /* in its instance's process list */
} oproc;

typedef struct spawnarg {
    void (*fn)(void *);
    void *arg;
    oproc *op;
} spawnarg;

static opk_lock plk = OPK_LOCK_INIT;        /* process lists */

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
    spawnarg sa = *(spawnarg *)arg;
    free(arg);
    mpd_proc_set_udata(mpd_self(), sa.op);
    sa.op->p = mpd_self();
    if (!sa.op->killed)
        sa.fn(sa.arg);
    unlist(sa.op);
    mpd_proc_set_udata(mpd_self(), NULL);
    free(sa.op);
}

void opk_spawn(void (*fn)(void *), void *arg, const char *name, mpd_res *res)
{
    spawnarg *sa = malloc(sizeof *sa);
    oproc *o = calloc(1, sizeof *o);
    if (!sa || !o)
        mpd_rts_fatal("out of memory");
    sa->fn = fn;
    sa->arg = arg;
    sa->op = o;
    o->res = res;
    if (res) {
        resrt *rt = res_rt(res);
        const char *dot = name ? strrchr(name, '.') : NULL;
        o->is_body = dot && strcmp(dot, ".body") == 0;
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
    mpd_proc_create(spawn_entry, sa, &at);
}

_Noreturn void opk_exit(void)
{
    oproc *o = me();
    if (o) {
        unlist(o);
        mpd_proc_set_udata(mpd_self(), NULL);
        free(o);
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
            o->killed = 1;
            body |= o->is_body;
        }
    opk_release(&plk);
    return body;
}

static void die_if_killed(void)
{
    oproc *o = me();
    if (o && o->killed)
        opk_exit();
}

void opk_event_wait(opk_event *e, const char *F, int L)
{
    die_if_killed();
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
    if (o && o->killed)
        return;             /* its resource is gone: it is not "blocked" */
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
