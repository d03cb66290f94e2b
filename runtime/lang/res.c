/* res.c: resource and global instances -- create, initial code, destroy, final code, program end. */
#include <stdio.h>
#include "opint.h"

static opk_lock reslk = OPK_LOCK_INIT;     /* globals list, main resource */
static resrt *globals;                      /* newest first */
static mpd_res *main_res;

/* "res.what" in buf (the core copies process names). */
static const char *proc_name(char *buf, size_t n, const mpd_respat *pat, const char *what)
{
    snprintf(buf, n, "%s.%s", pat->name, what);
    return buf;
}
#define PNAME(pat, what) proc_name((char[128]){ 0 }, 128, (pat), (what))

/* The initial-code process: runs init, then answers the creator (unless a
 * reply already did). */
static void body_entry(void *arg)
{
    mpd_res *r = arg;
    resrt *rt = res_rt(r);
    mpd_invb *blk = rt->createblk;
    if (r->pat->init)
        r->pat->init(r, blk);
    if (rt->state == RES_INIT)
        rt->state = RES_ALIVE;
    inv_complete(blk);          /* wakes the creator if not replied */
}

static mpd_res *instantiate(const char *F, int L, const mpd_respat *pat, mpd_invb *args, int global)
{
    (void)F; (void)L;
    mpd_res *r = obj_new(pat->size, pat->nops, pat, NULL);
    resrt *rt = res_rt(r);
    rt->state = RES_INIT;
    rt->is_global = global;
    mpd_invb *blk;
    if (args) {
        blk = inv_copy(args);
    } else {
        blk = inv_alloc(sizeof(mpd_invb));
        memset(blk, 0, sizeof *blk);
        blk->size = sizeof *blk;
        blk->flags = MPD_INVF_HEAP;
    }
    blk->kind = MPD_INV_CALL;
    blk->done = &rt->initdone;
    rt->createblk = blk;
    return r;
}

static void start_body(mpd_res *r, const char *F, int L)
{
    opk_spawn(body_entry, r, PNAME(r->pat, "body"), r, 1);
    opk_event_wait(&res_rt(r)->initdone, F, L);
}

mpd_cap mpd_create(const char *F, int L, const mpd_respat *pat, mpd_invb *args)
{
    mpd_res *r = instantiate(F, L, pat, args, 0);
    start_body(r, F, L);
    return mpd_rescap_of(r);
}

void mpd_main_resource(const mpd_respat *pat, mpd_invb *args)
{
    mpd_res *r = instantiate(NULL, 0, pat, args, 0);
    opk_acquire(&reslk);
    main_res = r;
    opk_release(&reslk);
    opk_install_end();
    res_rt(r)->createblk->done = NULL;      /* nobody waits for it */
    opk_spawn(body_entry, r, PNAME(pat, "body"), r, 1);
}

/* ---- globals ------------------------------------------------------------ */

typedef struct gwait { opk_event ev; struct gwait *next; } gwait;
typedef struct gent {
    const mpd_respat *pat;
    mpd_res *res;
    int ready;
    gwait *waiters;
    struct gent *next;
} gent;
static gent *gtab;

mpd_res *mpd_global(const char *F, int L, const mpd_respat *pat)
{
    opk_acquire(&reslk);
    gent *g;
    for (g = gtab; g; g = g->next)
        if (g->pat == pat)
            break;
    if (g && g->ready) {
        opk_release(&reslk);
        return g->res;
    }
    if (g) {                        /* being created by someone else */
        gwait w;
        opk_event_init(&w.ev);
        w.next = g->waiters;
        g->waiters = &w;
        opk_release(&reslk);
        opk_event_wait(&w.ev, F, L);
        return g->res;
    }
    g = calloc(1, sizeof *g);
    if (!g)
        mpd_rts_fatal("out of memory");
    g->pat = pat;
    g->next = gtab;
    gtab = g;
    opk_release(&reslk);

    mpd_res *r = instantiate(F, L, pat, NULL, 1);
    opk_acquire(&reslk);
    g->res = r;
    opk_release(&reslk);
    start_body(r, F, L);
    opk_acquire(&reslk);
    /* listed when its initial code is done: a global that imports another
     * gets ready after it, so newest-first finalises importers first */
    res_rt(r)->gnext = globals;
    globals = res_rt(r);
    g->ready = 1;
    gwait *w = g->waiters;
    g->waiters = NULL;
    opk_release(&reslk);
    while (w) {
        gwait *n = w->next;
        opk_event_post(&w->ev);
        w = n;
    }
    return r;
}

/* ---- myresource, destroy, final ---------------------------------------- */

mpd_res *mpd_self_res(void) { return opk_cur_res(); }

mpd_cap mpd_myresource(void)
{
    mpd_res *r = opk_cur_res();
    return r ? mpd_rescap_of(r) : mpd_cap_null;
}

typedef struct finarg { mpd_res *r; opk_event done; } finarg;

static void final_entry(void *arg)
{
    finarg *fa = arg;
    fa->r->pat->final(fa->r);
    opk_event_post(&fa->done);
}

/* Run r's final code in its own process and wait for it. */
static void run_final(mpd_res *r, const char *F, int L)
{
    if (!r->pat->final)
        return;
    finarg fa = { r, {0} };
    opk_event_init(&fa.done);
    opk_spawn(final_entry, &fa, PNAME(r->pat, "final"), r, 0);
    opk_event_wait(&fa.done, F, L);
}

/* Take r out of service: returns 0 if someone else already did. */
static int res_retire(mpd_res *r)
{
    resrt *rt = res_rt(r);
    opk_acquire(&reslk);
    int ok = rt->state == RES_INIT || rt->state == RES_ALIVE;
    if (ok)
        rt->state = RES_FINAL;
    opk_release(&reslk);
    return ok;
}

static void res_bury(mpd_res *r, const char *F, int L)
{
    resrt *rt = res_rt(r);
    run_final(r, F, L);
    int self_inside = opk_cur_res() == r;
    obj_kill(r);
    res_kill_ops(r);
    rt->state = RES_DEAD;
    int killed_body = opk_kill_procs(r);
    if (!(rt->createblk->flags & MPD_INVF_ANSWERED)) {
        /* its creator is still waiting for the initial code */
        if (killed_body || self_inside)
            mpd_rts_warning("body process destroyed");
        inv_answer(rt->createblk);
    }
    if (self_inside)
        opk_exit();
}

void mpd_destroy(const char *F, int L, mpd_cap rc)
{
    if (rc.vm == 0) {
        if (rc.obj == MPD_CAP_OBJ_NULL || rc.obj == MPD_CAP_OBJ_NOOP)
            return;
        mpd_rts_abort(F, L, "invalid resource capability");
    }
    mpd_res *r = obj_lookup(rc.obj);
    if (!r || !res_retire(r))
        mpd_rts_fatal("attempting to destroy resource (%s) that no longer exists",
                      obj_lastname(rc.obj));
    if (res_rt(r)->is_global)
        mpd_rts_abort(F, L, "cannot destroy a global");
    res_bury(r, F, L);
}

/* Program end (every process finished or blocked): the main resource's
 * final code, then the globals', newest first. */
void res_program_end(void)
{
    opk_acquire(&reslk);
    mpd_res *m = main_res;
    main_res = NULL;
    opk_release(&reslk);
    if (m && res_retire(m) && m->pat->final) {
        mpd_proc_set_name(mpd_self(), PNAME(m->pat, "final"));
        mpd_res *old = opk_swap_res(m);     /* for mpd_myresource() */
        m->pat->final(m);       /* this is the runtime's "final" process */
        opk_swap_res(old);
    }
    for (;;) {
        opk_acquire(&reslk);
        resrt *g = globals;
        if (g)
            globals = g->gnext;
        opk_release(&reslk);
        if (!g)
            break;
        if (res_retire(g->res) && g->res->pat->final) {
            mpd_proc_set_name(mpd_self(), PNAME(g->res->pat, "final"));
            mpd_res *old = opk_swap_res(g->res);
            g->res->pat->final(g->res);
            opk_swap_res(old);
        }
    }
}

_Noreturn void mpd_stop(const char *F, int L, int status)
{
    (void)F; (void)L;
    if (status == 0)
        res_program_end();
    mpd_exit(status);
}
