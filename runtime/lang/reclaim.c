/* reclaim.c: freeing killed objects -- local op blocks, new(op) blocks and
 * destroyed resource instances -- once nothing can point into them.
 *
 * What keeps an object (docs/ops.md, "Resources and globals"):
 *  - a lookup in flight: the object table takes no lock, so on several VPs
 *    a process may have read the object just before it was killed; it is
 *    freed only after a grace period (opk_grace_*), when every other VP has
 *    switched twice or stayed idle;
 *  - a pointer kept across a switch, which obj_block_unreachable looks for:
 *    waiters in its ops' lists or in its class's list naming them, a pinned
 *    invocation, an st/by statement in progress on its ops (in_cond), a
 *    call parked on one of them (calls_parked);
 *  - a retired process (of a destroyed instance) not ended yet: woken, it
 *    gives back what it got from whatever op it waited on, so nothing is
 *    freed while there are any (opk__retired_live); the objects wait in a
 *    deferred list and are looked at again when the count falls to 0;
 *  - for an instance: its live processes (res->nproc, one add per spawn and
 *    one subtract per exit), and its holds (rt->holds): the instance alive,
 *    a creator waiting for its initial code, a direct call of one of its
 *    procs that may switch (mpd__call_held; a LEAF proc cannot switch, so
 *    the grace period covers its calls), and its op blocks killed but not
 *    freed (their queues point at its class lock).  Its op blocks still
 *    listed when it is freed (a local block whose process ended without
 *    leaving the block, a new(op) never destroyed) are freed with it.
 * An object that still fails the test after all that (a process parked for
 * good on one of its dead semaphores, a class another one was merged into)
 * is kept, as every object once was. */
#include "opint.h"

/* ---- grace periods (declared in opcore.h) ------------------------------------------ */

struct opk_grace {
    int n;
    struct {
        unsigned long count;
        int idle;
    } vp[];
};

opk_grace *opk_grace_begin(void)
{
    /* what the caller unlinked is visible before any count is read, so a
     * look that starts after the count it reads finds it unlinked */
    atomic_thread_fence(memory_order_seq_cst);
    int n = mpd_nvp();
    opk_grace *g = malloc(sizeof *g + (size_t)n * sizeof g->vp[0]);
    if (!g)
        mpd_rts_fatal("out of memory");
    g->n = n;
    for (int i = 0; i < n; i++)
        g->vp[i].count = mpd_vp_quiescent(i, &g->vp[i].idle);
    return g;
}

int opk_grace_passed(opk_grace *g)
{
    int self = mpd_vp_index(), ok = 1;
    for (int i = 0; i < g->n; i++) {
        if (i == self)
            continue; /* whatever ran here before us has switched */
        int idle;
        unsigned long c = mpd_vp_quiescent(i, &idle);
        if (c - g->vp[i].count >= 2 || (idle && g->vp[i].idle && c == g->vp[i].count))
            continue;
        ok = 0;
        if (idle) { /* idle now: passed if it still is next time */
            g->vp[i].count = c;
            g->vp[i].idle = 1;
        }
    }
    return ok;
}

long opk__retired_live;

static opk_lock rl_lk = OPK_LOCK_INIT;
static resrt *limbo_head, *limbo_tail; /* waiting for a grace period */
static resrt *deferred;                /* waiting for opk__retired_live == 0 */

static void reclaim_pass(void);

static long rl_load(void)
{
    return __atomic_load_n(&opk__retired_live, __ATOMIC_ACQUIRE);
}

void opk__retired_add(long d)
{
    long n;
    if (mpd_rt_single())
        n = opk__retired_live += d;
    else
        n = __atomic_add_fetch(&opk__retired_live, d, __ATOMIC_ACQ_REL);
    if (n == 0 && __atomic_load_n(&deferred, __ATOMIC_ACQUIRE))
        reclaim_pass();
}

/* ---- the test ------------------------------------------------------------ */

/* Does waiter w have an arm on an op of object blk? */
static int names_block(const inwait *w, const mpd_res *blk)
{
    const mpd_op *lo = blk->ops, *hi = blk->ops + blk->nops;
    if (!w->in)
        return 0;
    for (uint32_t a = 0; a < w->in->narms; a++)
        for (uint32_t k = 0; k < w->in->arms[a].n; k++)
            if (w->in->arms[a].ops[k] >= lo && w->in->arms[a].ops[k] < hi)
                return 1;
    return 0;
}

/* Whether killed object o can be freed once no lookup is in flight: nothing
 * keeps a pointer into it across a switch (top of file).  A woken plain
 * receiver, P or caller touches only its own blocks afterwards. */
int obj_block_unreachable(mpd_res *o)
{
    if (__atomic_load_n(&res_rt(o)->in_cond, __ATOMIC_RELAXED) ||
        __atomic_load_n(&res_rt(o)->calls_parked, __ATOMIC_ACQUIRE))
        return 0;
    for (uint32_t i = 0; i < o->nops; i++) {
        opq *q = op_queue(&o->ops[i]);
        if (!q || op_kind(&o->ops[i]) == MPD_OPK_ALIAS)
            continue;
        opcls *c = cls_lock(q->cls);
        int busy = q->head || q->wfirst;
        for (inwait *w = c->wfirst; w && !busy; w = w->next)
            busy = names_block(w, o);
        opk_release(&c->lk);
        if (busy)
            return 0;
    }
    return 1;
}

/* ---- children: a resource's op blocks --------------------------------------- */

/* The resource a block belongs to (local blocks of local blocks: the
 * outermost), or NULL (a block of no resource, an alias object). */
static resrt *block_owner(mpd_res *blk)
{
    resrt *p = res_rt(blk)->parent;
    while (p && p->parent)
        p = p->parent;
    return p && p->res ? p : NULL;
}

void res_child_link(mpd_res *blk)
{
    resrt *p = block_owner(blk), *rt = res_rt(blk);
    if (!p)
        return;
    opk_acquire(&p->klk);
    rt->kprev = NULL;
    rt->knext = p->kfirst;
    if (p->kfirst)
        p->kfirst->kprev = rt;
    p->kfirst = rt;
    opk_release(&p->klk);
}

/* blk's owner ended it (and won obj_kill): from now on it is freed on its
 * own, holding its resource meanwhile (its queues point at its class). */
int res_child_unlink(mpd_res *blk)
{
    resrt *p = block_owner(blk), *rt = res_rt(blk);
    if (!p)
        return 0;
    opk_acquire(&p->klk);
    if (rt->kprev)
        rt->kprev->knext = rt->knext;
    else
        p->kfirst = rt->knext;
    if (rt->knext)
        rt->knext->kprev = rt->kprev;
    rt->knext = rt->kprev = NULL;
    opk_release(&p->klk);
    return 1;
}

/* r is destroyed: its blocks' ops die, as MPD kills all of a resource's ops
 * (a capability to one then says "no longer exists").  They stay listed and
 * are freed with r; a block whose owner killed it first is that owner's. */
void res_kill_children(mpd_res *r)
{
    resrt *rt = res_rt(r);
    opk_acquire(&rt->klk);
    for (resrt *c = rt->kfirst; c; c = c->knext) {
        if (!obj_kill(c->res))
            continue;
        for (uint32_t i = 0; i < c->res->nops; i++)
            op_kill(&c->res->ops[i]);
    }
    opk_release(&rt->klk);
}

/* ---- freeing ------------------------------------------------------------- */

static void res_try_reclaim(mpd_res *r);
static void enqueue(resrt *rt);

static void block_free(mpd_res *o)
{
    resrt *p = block_owner(o);
    obj_free(o);
    if (p)
        res_hold(p->res, -1);
}

/* An instance whose processes and holds are gone, after its grace period. */
static void instance_finish(resrt *rt)
{
    mpd_res *r = rt->res;
    if (__atomic_load_n(&r->nproc, __ATOMIC_ACQUIRE) != MPD__RES_KILLED ||
        __atomic_load_n(&rt->holds, __ATOMIC_ACQUIRE) != 0) {
        /* a call or spawn that looked it up before the destroy came in:
         * its end tries again */
        __atomic_store_n(&rt->reclaiming, 0, __ATOMIC_RELEASE);
        res_try_reclaim(r);
        return;
    }
    if (__atomic_exchange_n(&rt->revived, 0, __ATOMIC_ACQ_REL)) {
        /* one came and went during the period: its end may still be
         * reading the instance (res_hold after its subtract), so wait for
         * another period */
        enqueue(rt);
        return;
    }
    int ok = !__atomic_load_n(&rt->cls.absorbed, __ATOMIC_ACQUIRE) && obj_block_unreachable(r);
    for (resrt *c = rt->kfirst; c && ok; c = c->knext)
        ok = obj_block_unreachable(c->res);
    if (!ok) {
        rt->kept = 1;
        return;
    }
    for (resrt *c = rt->kfirst, *n; c; c = n) {
        n = c->knext;
        obj_free(c->res);
    }
    obj_free(r);
}

static void finish(resrt *rt)
{
    if (rl_load() != 0) { /* wait for the retired processes */
        opk_acquire(&rl_lk);
        rt->lnext = deferred;
        __atomic_store_n(&deferred, rt, __ATOMIC_RELEASE);
        opk_release(&rl_lk);
        if (rl_load() == 0) /* the last one ended meanwhile */
            reclaim_pass();
        return;
    }
    if (rt->is_local) {
        if (obj_block_unreachable(rt->res))
            block_free(rt->res);
        else
            rt->kept = 1; /* kept, and holds its resource */
    } else {
        instance_finish(rt);
    }
}

/* Frees what has waited long enough: objects whose grace period passed, and
 * the deferred ones once no retired process is left. */
static void reclaim_pass(void)
{
    resrt *done = NULL, **tail = &done;
    opk_acquire(&rl_lk);
    while (limbo_head && opk_grace_passed(limbo_head->grace)) {
        resrt *rt = limbo_head;
        limbo_head = rt->lnext;
        free(rt->grace);
        rt->grace = NULL;
        *tail = rt;
        tail = &rt->lnext;
    }
    if (!limbo_head)
        limbo_tail = NULL;
    if (deferred && rl_load() == 0) {
        *tail = deferred;
        __atomic_store_n(&deferred, NULL, __ATOMIC_RELAXED);
    } else {
        *tail = NULL;
    }
    opk_release(&rl_lk);
    while (done) {
        resrt *rt = done;
        done = rt->lnext;
        finish(rt);
    }
}

/* o is unreachable for new lookups: free it now (one VP: no lookup can be
 * in flight) or after a grace period. */
static void enqueue(resrt *rt)
{
    if (mpd_rt_single()) {
        finish(rt);
        return;
    }
    rt->grace = opk_grace_begin();
    rt->lnext = NULL;
    opk_acquire(&rl_lk);
    if (limbo_tail)
        limbo_tail->lnext = rt;
    else
        limbo_head = rt;
    limbo_tail = rt;
    opk_release(&rl_lk);
    reclaim_pass();
}

void obj_retire(mpd_res *o)
{
    resrt *p = block_owner(o);
    if (p)
        res_hold(p->res, 1); /* until it is freed (block_free) */
    enqueue(res_rt(o));
}

/* ---- instances ----------------------------------------------------------- */

static void res_try_reclaim(mpd_res *r)
{
    resrt *rt = res_rt(r);
    if (__atomic_load_n(&r->nproc, __ATOMIC_ACQUIRE) != MPD__RES_KILLED ||
        __atomic_load_n(&rt->holds, __ATOMIC_ACQUIRE) != 0)
        return;
    int zero = 0;
    if (!__atomic_compare_exchange_n(&rt->reclaiming, &zero, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_RELAXED))
        return;
    res_kill_children(r); /* blocks made after the destroy */
    enqueue(rt);
}

void res_hold(mpd_res *r, int d)
{
    resrt *rt = res_rt(r);
    int n;
    if (mpd_rt_single())
        n = rt->holds += d;
    else
        n = __atomic_add_fetch(&rt->holds, d, __ATOMIC_ACQ_REL);
    if (n == d && d > 0) /* a call that found it before its destroy */
        __atomic_store_n(&rt->revived, 1, __ATOMIC_RELEASE);
    if (n == 0)
        res_try_reclaim(r);
}

/* Destroy: from now on r's processes are retired (opk__retired); count
 * those alive among the retired ones. */
void res_killed(mpd_res *r)
{
    uint32_t old = __atomic_fetch_or(&r->nproc, MPD__RES_KILLED, __ATOMIC_ACQ_REL);
    if (!(old & MPD__RES_KILLED) && (old & ~MPD__RES_KILLED))
        opk__retired_add((long)(old & ~MPD__RES_KILLED));
}

void res_procs_gone(mpd_res *r)
{
    res_try_reclaim(r);
}

/* A process of r spawned or ended after r's destroy (opk__home_add/drop). */
void opk__home_killed(mpd_res *r, uint32_t old, int d)
{
    opk__retired_add(d);
    if (d > 0 && old == MPD__RES_KILLED)
        __atomic_store_n(&res_rt(r)->revived, 1, __ATOMIC_RELEASE);
    if (d < 0 && old == (MPD__RES_KILLED | 1))
        res_procs_gone(r);
}

/* A direct call of a proc that may switch: the call holds the instance.
 * res_hold's work inlined (a call costs ~35 instructions more, not ~70):
 * the count, and the hold recorded on the caller's stack. */
void mpd__call_held(mpd_op *op, mpd_invb *ib)
{
    mpd_res *r = op->owner;
    resrt *rt = res_rt(r);
    mpd_proc *p = mpd_self();
    opk_proc *o = p ? mpd_proc_udata(p) : NULL;
    opk_held h = {r, NULL};
    int single = mpd_rt_single();
    int n = single ? ++rt->holds : __atomic_add_fetch(&rt->holds, 1, __ATOMIC_ACQ_REL);
    if (__builtin_expect(n == 1, 0)) /* found before its destroy (res_hold) */
        __atomic_store_n(&rt->revived, 1, __ATOMIC_RELEASE);
    if (o) {
        h.prev = o->held;
        o->held = &h; /* a retired caller may end inside (opcore.c) */
    }
    ib->kind = MPD_INV_CALL;
    op->fn(r, ib);
    if (o)
        o->held = h.prev;
    n = single ? --rt->holds : __atomic_sub_fetch(&rt->holds, 1, __ATOMIC_ACQ_REL);
    if (__builtin_expect(n == 0, 0))
        res_try_reclaim(r);
}
