/* res.c: resource and global instances -- create, initial code, destroy, final code, program end. */
#include <stdio.h>
#include "opint.h"
#include "disthook.h"
#include "mpd/abi/trace.h"
#include "core/timeline.h"
#include "mpd/abi/lang.h"

static opk_lock reslk = OPK_LOCK_INIT; /* globals list, main resource, vms */
static resrt *globals;                 /* newest first */
static resrt *alive_head, *alive_tail; /* live resources, oldest first */
static mpd_res *main_res;

/* ---- virtual machines ------------------------------------------------------ */

static uint32_t nvms = 1;      /* vm 1 is the program's first */
static unsigned char *vm_dead; /* [vm]: destroyed (grows) */
static int *vm_machine;        /* [vm]: its physical machine */
static uint32_t vm_dead_cap;

/* locate(): machine numbers and the host names they stand for */
typedef struct located {
    int n;
    char *host;
    struct located *next;
} located;
static located *locs;

static int vm_alive(uint32_t vm)
{
    if (vm == obj_home_vm)
        return 1;
    return vm >= 1 && vm <= nvms && !(vm < vm_dead_cap && vm_dead[vm]);
}

static mpd_cap vm_cap(uint32_t vm)
{
    mpd_cap c = {vm, MPD_CAP_VM, 3};
    return c;
}

static int machine_of_vm(uint32_t vm) /* under reslk */
{
    return vm < vm_dead_cap ? vm_machine[vm] : 0;
}

mpd_cap mpd_vm_create(const char *F, int L, int machine, mpd_res *self)
{
    (void)F;
    (void)L;
    MPD_TRC(F, L, MPD_EV_CREATEV, 0);
    if (mpd__dist) /* a process of its own (disthook.h) */
        return mpd__dist->vm_create(F, L, machine, machine > 0 ? res_located_host(machine) : NULL);
    uint32_t mine = res_vm(self ? self : opk_cur_res());
    opk_acquire(&reslk);
    uint32_t vm = ++nvms;
    if (vm >= vm_dead_cap) {
        uint32_t cap = vm_dead_cap ? vm_dead_cap * 2 : 64;
        unsigned char *d = realloc(vm_dead, cap);
        int *m = realloc(vm_machine, cap * sizeof *m);
        if (!d || !m)
            mpd_rts_fatal("out of memory");
        memset(d + vm_dead_cap, 0, cap - vm_dead_cap);
        memset(m + vm_dead_cap, 0, (cap - vm_dead_cap) * sizeof *m);
        vm_dead = d;
        vm_machine = m;
        vm_dead_cap = cap;
    }
    vm_machine[vm] = machine >= 0 ? machine : machine_of_vm(mine);
    opk_release(&reslk);
    if (!atomic_exchange(&op_vms_many, 1))
        obj_undirect_all(); /* calls may now cross vms (opint.h) */
    return vm_cap(vm);
}

mpd_cap mpd_myvm(mpd_res *self)
{
    return vm_cap(res_vm(self ? self : opk_cur_res()));
}

int mpd_mymachine(mpd_res *self)
{
    if (mpd__dist)
        return mpd__dist->machine();
    uint32_t vm = res_vm(self ? self : opk_cur_res());
    opk_acquire(&reslk);
    int m = machine_of_vm(vm);
    opk_release(&reslk);
    return m;
}

void mpd_vm_locate(const char *F, int L, int n, mpd_sv host, mpd_sv path)
{
    if (host.len > 255 || path.len > 4095) /* HOST_NAME_MAX, PATH_MAX - 1 */
        mpd_rts_abort_vm(res_vm(opk_cur_res()), F, L, "strings too long in locate call");
    located *l = malloc(sizeof *l);
    char *h = malloc((size_t)host.len + 1);
    if (!l || !h)
        mpd_rts_fatal("out of memory");
    memcpy(h, host.p, (size_t)host.len);
    h[host.len] = 0;
    l->n = n;
    l->host = h;
    opk_acquire(&reslk);
    l->next = locs; /* newest first: a later locate wins */
    locs = l;
    opk_release(&reslk);
}

int mpd_vm_machine_of(mpd_sv host)
{
    int n = 0, found = 0;
    opk_acquire(&reslk);
    for (located *l = locs; l; l = l->next)
        if ((int)strlen(l->host) == host.len && memcmp(l->host, host.p, (size_t)host.len) == 0) {
            n = l->n;
            found = 1;
            break;
        }
    opk_release(&reslk);
    if (!found && mpd__dist) {
        /* distributed: create vm() on "host" needs the name itself, so a
         * host never located gets a machine number of its own */
        static int next_auto = 100000;
        opk_acquire(&reslk);
        n = next_auto++;
        opk_release(&reslk);
        mpd_vm_locate(NULL, 0, n, host, mpd_sv_lit("", 0));
    }
    return n;
}

const char *res_located_host(int n)
{
    const char *h = NULL;
    opk_acquire(&reslk);
    for (located *l = locs; l; l = l->next)
        if (l->n == n) {
            h = l->host;
            break;
        }
    opk_release(&reslk);
    return h;
}

void res_set_home_vm(uint32_t vm)
{
    opk_acquire(&reslk);
    obj_home_vm = vm;
    opk_release(&reslk);
}

static void alive_link(resrt *rt)
{
    opk_acquire(&reslk);
    rt->aprev = alive_tail;
    rt->anext = NULL;
    if (alive_tail)
        alive_tail->anext = rt;
    else
        alive_head = rt;
    alive_tail = rt;
    opk_release(&reslk);
}

static void alive_unlink(resrt *rt)
{
    opk_acquire(&reslk);
    if (rt->aprev || alive_head == rt) {
        if (rt->aprev)
            rt->aprev->anext = rt->anext;
        else
            alive_head = rt->anext;
        if (rt->anext)
            rt->anext->aprev = rt->aprev;
        else
            alive_tail = rt->aprev;
    }
    rt->anext = rt->aprev = NULL;
    opk_release(&reslk);
}

/* "res.what" in buf (the core copies process names). */
static const char *proc_name(char *buf, size_t n, const mpd_respat *pat, const char *what)
{
    snprintf(buf, n, "%s.%s", pat->name, what);
    return buf;
}
#define PNAME(pat, what) proc_name((char[128]){0}, 128, (pat), (what))

static void res_body_done(resrt *rt);
static void res_program_end(void);

/* The initial-code process: runs init, then answers the creator (unless a
 * reply already did).  The create block is its own: only it touches and
 * frees it (here, or in opk_exit when it is retired midway). */
static void body_entry(void *arg)
{
    mpd_res *r = arg;
    resrt *rt = res_rt(r);
    mpd_invb *blk = rt->createblk;
    if (r->pat->init)
        r->pat->init(r, blk);
    opk_acquire(&reslk);
    if (rt->state == RES_INIT)
        rt->state = RES_ALIVE;
    opk_release(&reslk);
    res_body_done(rt);
}

/* The body process ends: answer the creator if nobody did, free the block. */
static void res_body_done(resrt *rt)
{
    mpd_invb *blk = rt->createblk;
    rt->createblk = NULL;
    if (blk)
        inv_complete(blk);
}

static mpd_res *instantiate(const char *F, int L, const mpd_respat *pat, mpd_invb *args, int global,
                            uint32_t vm)
{
    (void)F;
    (void)L;
    /* the core of the ops layer calls up into this file through these */
    static const opk_res_hooks hooks = {res_body_done, res_program_end};
    opk_set_res_hooks(&hooks);
    mpd_res *r = obj_new(pat->size, pat->nops, pat, NULL);
    resrt *rt = res_rt(r);
    rt->state = RES_INIT;
    rt->is_global = global;
    rt->vm = vm;
    /* alive until its destroy ends (reclaim.c); globals are never freed */
    rt->holds = global ? 2 : 1;
    if (!global)
        alive_link(rt);
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
    blk->flags |= MPD_INVF_CREATE;
    blk->done = rt; /* answered through inv_answer_creator */
    rt->createblk = blk;
    return r;
}

/* Start r's initial code and wait for it to end or reply.  The creator
 * holds r meanwhile (a destroy may come first), even if it is retired
 * while it waits. */
static void start_body(mpd_res *r, const char *F, int L)
{
    res_hold(r, 1);
    opk_spawn(body_entry, r, PNAME(r->pat, "body"), r, 1);
    opk_event_wait_nokill(&res_rt(r)->initdone, F, L);
}

static void start_body_done(mpd_res *r)
{
    res_hold(r, -1);
    opk_check_killed();
}

mpd_cap mpd_create_on(const char *F, int L, const mpd_respat *pat, mpd_invb *args,
                      const mpd_cap *vmc, mpd_res *self)
{
    uint32_t vm;
    MPD_TRC(F, L, MPD_EV_CREATER, 0);
    MPD_TL(mpd__tl_rec(TL_RESCREATE, mpd__tl_self(), (uintptr_t)pat->name, F, L));
    if (vmc && cap_is_remote(*vmc) && vmc->idx == MPD_CAP_VM)
        return mpd__dist->create_on(F, L, pat, args, *vmc);
    if (vmc) {
        if (vmc->idx != MPD_CAP_VM || vmc->vm == 0)
            mpd_rts_abort(F, L, "create %s: invalid virtual machine capability", pat->name);
        vm = vmc->vm;
    } else {
        vm = res_vm(self);
    }
    opk_acquire(&reslk);
    int ok = vm_alive(vm);
    opk_release(&reslk);
    if (!ok)
        mpd_rts_abort(F, L, "create %s: virtual machine %u no longer exists", pat->name, vm);
    mpd_res *r = instantiate(F, L, pat, args, 0, vm);
    start_body(r, F, L);
    mpd_cap c = mpd_rescap_of(r);
    start_body_done(r);
    return c;
}

mpd_cap mpd_create(const char *F, int L, const mpd_respat *pat, mpd_invb *args)
{
    return mpd_create_on(F, L, pat, args, NULL, opk_cur_res());
}

/* This process runs the main vm: always, unless it is one of the
 * distributed deployment's processes serving other vms. */
static int on_main_vm = 1;

void mpd_main_resource(const mpd_respat *pat, mpd_invb *args)
{
    if (mpd__dist && mpd__dist->main_resource(pat, args)) {
        on_main_vm = 0;
        return; /* this process serves other vms */
    }
    mpd_res *r = instantiate(NULL, 0, pat, args, 0, obj_home_vm);
    opk_acquire(&reslk);
    main_res = r;
    opk_release(&reslk);
    opk_install_end();
    res_rt(r)->no_creator = 1; /* nobody waits for it */
    res_rt(r)->holds++;        /* never freed: program end runs its final */
    opk_spawn(body_entry, r, PNAME(pat, "body"), r, 1);
}

/* ---- globals ------------------------------------------------------------ */

typedef struct gwait {
    opk_event ev;
    struct gwait *next;
} gwait;
typedef struct gent {
    const mpd_respat *pat;
    uint32_t vm;
    mpd_res *res;
    int ready;
    gwait *waiters;
    struct gent *next;
} gent;
static gent *gtab;

mpd_res *mpd_global(const char *F, int L, const mpd_respat *pat)
{
    return mpd_global_at(F, L, pat, opk_cur_res());
}

mpd_res *mpd_global_at(const char *F, int L, const mpd_respat *pat, mpd_res *self)
{
    MPD_TRC(F, L, MPD_EV_CREATEG, 0); /* every import, as in MPD */
    uint32_t vm = res_vm(self);
    opk_acquire(&reslk);
    gent *g;
    for (g = gtab; g; g = g->next)
        if (g->pat == pat && g->vm == vm)
            break;
    if (g && g->ready) {
        opk_release(&reslk);
        return g->res;
    }
    if (g) { /* being created by someone else */
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
    g->vm = vm;
    g->next = gtab;
    gtab = g;
    opk_release(&reslk);

    mpd_res *r = instantiate(F, L, pat, NULL, 1, vm);
    opk_acquire(&reslk);
    g->res = r;
    opk_release(&reslk);
    start_body(r, F, L);
    start_body_done(r);
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

mpd_res *mpd_self_res(void)
{
    return opk_cur_res();
}

mpd_cap mpd_myresource(void)
{
    mpd_res *r = opk_cur_res();
    return r ? mpd_rescap_of(r) : mpd_cap_null;
}

typedef struct finarg {
    mpd_res *r;
    opk_event done;
} finarg;

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
    finarg fa = {r, {0}};
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
    alive_unlink(rt);
    int self_inside = opk_cur_res() == r;
    obj_kill(r);
    res_kill_ops(r);
    res_kill_children(r);
    int killed_body = opk_kill_procs(r);
    int woken = in_wake_retired(r) + self_inside;
    if ((__atomic_load_n(&r->nproc, __ATOMIC_ACQUIRE) & ~MPD__RES_KILLED) > (uint32_t)woken)
        in_retire_parked(r); /* some wait on other objects' ops */
    opk_acquire(&reslk);
    rt->state = RES_DEAD;
    opk_release(&reslk);
    /* its creator waits for the initial code */
    if (!__atomic_load_n(&rt->init_answered, __ATOMIC_ACQUIRE)) {
        if (killed_body || self_inside)
            mpd_rts_warning("body process destroyed");
        inv_answer_creator(rt);
    }
    res_hold(r, -1); /* no longer alive: freed after its last holder */
    if (self_inside)
        opk_exit();
}

/* The oldest live resource on vm other than `skip`, taken out of service;
 * NULL when there is none. */
static mpd_res *vm_next_resource(uint32_t vm, mpd_res *skip)
{
    for (;;) {
        mpd_res *r = NULL;
        opk_acquire(&reslk);
        for (resrt *a = alive_head; a; a = a->anext)
            if (a->vm == vm && a->res != skip && (a->state == RES_INIT || a->state == RES_ALIVE)) {
                r = a->res;
                break;
            }
        opk_release(&reslk);
        if (!r || res_retire(r))
            return r;
    }
}

/* The newest global on vm, unlisted; NULL when there is none. */
static resrt *vm_next_global(uint32_t vm)
{
    opk_acquire(&reslk);
    resrt **pp = &globals, *g;
    while ((g = *pp) && g->vm != vm)
        pp = &g->gnext;
    if (g)
        *pp = g->gnext;
    opk_release(&reslk);
    return g;
}

/* Everything on vm, oldest resource first, then the globals, newest
 * first; the destroyer's own resource last. */
static void vm_bury_all(const char *F, int L, uint32_t vm)
{
    mpd_res *me = opk_cur_res();
    mpd_res *r;
    while ((r = vm_next_resource(vm, me)) != NULL)
        res_bury(r, F, L);
    resrt *g;
    while ((g = vm_next_global(vm)) != NULL)
        if (g->res != me && res_retire(g->res))
            res_bury(g->res, F, L);
    /* the destroyer itself lives there: it goes last */
    if (me && res_vm(me) == vm && res_retire(me))
        res_bury(me, F, L);
}

void res_destroy_home_vm(const char *F, int L)
{
    vm_bury_all(F, L, obj_home_vm);
}

static void vm_destroy(const char *F, int L, uint32_t vm)
{
    opk_acquire(&reslk);
    int ok = vm != 1 && vm_alive(vm);
    if (ok)
        vm_dead[vm] = 1;
    opk_release(&reslk);
    if (!ok)
        mpd_rts_abort(F, L,
                      vm == 1 ? "cannot destroy the main virtual machine"
                              : "attempting to destroy a virtual machine that no longer exists");
    vm_bury_all(F, L, vm);
}

void mpd_vm_destroy(const char *F, int L, mpd_cap vm)
{
    if (vm.vm == 0 && vm.obj == MPD_CAP_OBJ_NULL)
        mpd_rts_abort(F, L, "attempting to destroy null vm");
    mpd_destroy(F, L, vm);
}

void mpd_destroy(const char *F, int L, mpd_cap rc)
{
    MPD_TRC(F, L, rc.idx == MPD_CAP_VM && rc.vm != 0 ? MPD_EV_DESTROYV : MPD_EV_DESTROYR, 0);
    MPD_TL(mpd__tl_rec(TL_RESDESTROY, mpd__tl_self(), 0, F, L));
    if (mpd__dist && rc.vm != 0 && (rc.idx == MPD_CAP_VM || rc.vm != mpd__cap_vm)) {
        mpd__dist->destroy(F, L, rc); /* a vm, or a resource of another vm */
        return;
    }
    if (rc.idx == MPD_CAP_VM && rc.vm != 0) {
        vm_destroy(F, L, rc.vm);
        return;
    }
    rc = op_alias_base(rc);
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
static void res_program_end(void)
{
    opk_acquire(&reslk);
    mpd_res *m = main_res;
    main_res = NULL;
    opk_release(&reslk);
    if (m && res_retire(m) && m->pat->final) {
        mpd_proc_set_name(mpd_self(), PNAME(m->pat, "final"));
        mpd_res *old = opk_swap_res(m); /* for mpd_myresource() */
        m->pat->final(m);               /* this is the runtime's "final" process */
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
    (void)F;
    (void)L;
    if (status == 0 && on_main_vm)
        res_program_end(); /* on the main vm (others ask it: stop) */
    if (mpd__dist)
        mpd__dist->stop(status);
    mpd_exit(status);
}
