/* op.c: declaring operations -- procs, input ops, semaphore ops, local and dynamic ops. */
#include <stdlib.h>
#include <string.h>
#include "opint.h"
#include "disthook.h"
#include "mpd/abi/trace.h"
#include "core/timeline.h"
#include "mpd/abi/lang.h"

static opcls *cls_of(mpd_res *self)
{
    resrt *rt = res_rt(self);
    while (rt->parent)
        rt = rt->parent; /* local ops share their resource's class */
    return &rt->cls;
}

static void check_range(mpd_res *self, uint32_t i, uint32_t n)
{
    if ((uint64_t)i + n > self->nops)
        mpd_rts_fatal("op index %u..%u outside the op table of %s (compiler error)", i, i + n,
                      self->pat->name);
}

void mpd_op_proc(mpd_res *self, uint32_t i, uint32_t n, mpd_procfn fn, const char *name,
                 unsigned flags)
{
    check_range(self, i, n);
    for (uint32_t j = i; j < i + n; j++) {
        mpd_op *op = &self->ops[j];
        op->fn = fn;
        op->name = name;
        op->flags = (uint8_t)flags;
        __atomic_store_n(&op->kind, MPD_OPK_PROC, __ATOMIC_RELEASE);
        /* traced calls go through mpd_call_op, which writes CALL */
        int direct = (flags & (MPD_OP_DIRECT | MPD_OP_SENDONLY)) == MPD_OP_DIRECT && !mpd_trc_on;
        /* 1: a plain C call; 2: it may switch, the call holds the instance */
        if (direct)
            direct = flags & MPD_OP_LEAF ? 1 : 2;
        __atomic_store_n(&op->direct, atomic_load(&op_vms_many) ? 0 : direct, __ATOMIC_SEQ_CST);
        if (direct && atomic_load(&op_vms_many)) /* a vm was created meanwhile */
            __atomic_store_n(&op->direct, 0, __ATOMIC_SEQ_CST);
    }
}

/* The operation class of op i + j of a declaration starting at i, whose
 * queues are qs (inhold.c holds classes): MPD's -- each declaration (a
 * whole op array) is a class, unless the compiler's map joins it to others
 * (ops an input statement services together, all input ops of a global).
 * The key is the class's count of queued invocations (opint.h, grp). */
static uintptr_t op_class_key(mpd_res *self, uint32_t i, uint32_t j, opq *qs)
{
    resrt *rt = res_rt(self);
    const uint32_t *map = rt->clsmap;
    if (map && map[i + j] < MPD_OP_CLASS_HELD)
        return (uintptr_t)&rt->gcount[map[i + j]];
    return (uintptr_t)&qs[0].gown;
}

void mpd_op_classes(mpd_res *self, const uint32_t *map)
{
    resrt *rt = res_rt(self);
    rt->clsmap = map;
    /* the classes' counts of queued invocations, indexed by first op */
    struct opq_chunk *ch = calloc(1, sizeof *ch + (self->nops ? self->nops : 1) * sizeof(uint32_t));
    if (!ch)
        mpd_rts_fatal("out of memory");
    ch->next = rt->qchunks;
    rt->qchunks = ch;
    rt->gcount = (uint32_t *)(void *)ch->q;
}

void mpd_op_input(mpd_res *self, uint32_t i, uint32_t n, unsigned flags)
{
    check_range(self, i, n);
    opcls *c = cls_of(self);
    struct opq_chunk *ch = calloc(1, sizeof *ch + (n ? n : 1) * sizeof(opq));
    if (!ch)
        mpd_rts_fatal("out of memory");
    resrt *rt = res_rt(self);
    ch->next = rt->qchunks; /* ops are declared by the object's own process */
    rt->qchunks = ch;
    opq *qs = ch->q;
    for (uint32_t j = 0; j < n; j++) {
        mpd_op *op = &self->ops[i + j];
        qs[j].cls = c;
        qs[j].op = op;
        qs[j].grp = op_class_key(self, i, j, qs);
        if (n == 1 && (!rt->clsmap || rt->clsmap[i] >= MPD_OP_CLASS_HELD))
            qs[j].grp |= OPQ_GRP_ALONE;
        op->q = &qs[j];
        op->flags = (uint8_t)flags;
        op->name = self->pat->name;
        __atomic_store_n(&op->kind, MPD_OPK_INPUT, __ATOMIC_RELEASE);
    }
}

const struct mpd__opq_hot mpd__opq_none; /* mpd/abi/ops.h: mpd__op_hotq */

/* A semaphore is an input op whose queue holds no blocks, only a count of
 * pending parameterless invocations: V and P touch one counter (under the
 * class lock, which is no lock at all on one VP).  If an input statement
 * with several ops or st/by ever services it, it turns into an ordinary
 * queue (inqueue.c, inq_uncount). */
/* Ops i..i+n-1 as semaphores, each with initial value init, or inits[j]
 * when inits is given; held: no semaphore in MPD's sense (below). */
static void op_sem_decl(const char *F, int L, mpd_res *self, uint32_t i, uint32_t n, long init,
                        const int *inits, int held)
{
    check_range(self, i, n);
    for (uint32_t j = 0; j < (inits ? n : 1); j++) {
        long v = inits ? inits[j] : init;
        if (v < 0)
            mpd_rts_abort(F, L, "illegal semaphore initializer value: %ld", v);
    }
    mpd_op_input(self, i, n, 0);
    const uint32_t *map = res_rt(self)->clsmap;
    for (uint32_t j = 0; j < n; j++) {
        mpd_op *op = &self->ops[i + j];
        op->flags |= MPD_OPF_COUNTED;
        MPD_TL(mpd__tl_semdecl(F, L, op, i + j));
        op_queue(op)->count = (uint32_t)(inits ? inits[j] : init);
        /* in a class the compiler named (a global's, one an input statement
         * shares): MPD makes it an ordinary op, which a woken process
         * holds; a semaphore is never held */
        if (map && map[i + j] < MPD_OP_CLASS_HELD) {
            in_uncount_op(op);
            continue;
        }
        /* no semaphore in MPD's sense: counted, but it keeps its class key,
         * so a process it wakes holds the class (inhold.c).  Alone in its
         * class it may still be SEM1 while not held (opint.h, hc1): the
         * hold's give clears that, its end sets it again. */
        int hc = held || (map && map[i + j] == MPD_OP_CLASS_HELD);
        if (hc) {
            if (!(op_queue(op)->grp & OPQ_GRP_ALONE))
                continue;
            op_queue(op)->hc1 = 1;
        } else {
            op_queue(op)->grp = 0;
        }
        /* the inline P/V may touch it unlocked; traced P/V take the slow
         * paths, which write P, CONTP and V (and the timeline's P and V);
         * with compaction an expansion clears it (opobj.c) */
        if (mpd_rt_single() && !mpd_trc_on && !mpd__tl_on)
            op_set_sem1(op);
    }
}

void mpd_op_sem(const char *F, int L, mpd_res *self, uint32_t i, uint32_t n, long init)
{
    op_sem_decl(F, L, self, i, n, init, NULL, 0);
}

void mpd_op_sem_held(const char *F, int L, mpd_res *self, uint32_t i, uint32_t n, long init)
{
    op_sem_decl(F, L, self, i, n, init, NULL, 1);
}

/* sem s[n][m] = (...): one initial value per element, row by row, into v */
static uint32_t sem_init_rec(int *v, uint32_t i, uint32_t end, const void *a, int depth)
{
    const mpd_arrhdr *h = a;
    int n = h->ub >= h->lb ? h->ub - h->lb + 1 : 0;
    for (int k = 0; k < n && i < end; k++) {
        const char *e = (const char *)a + MPD_ARR_HDR + (size_t)k * h->esize;
        if (depth > 1)
            i = sem_init_rec(v, i, end, e, depth - 1);
        else
            v[i++] = *(const int *)e;
    }
    return i;
}

/* How many initial values the constructor a of depth levels holds. */
static uint64_t sem_init_count(const void *a, int depth)
{
    const mpd_arrhdr *h = a;
    int n = h->ub >= h->lb ? h->ub - h->lb + 1 : 0;
    if (depth <= 1)
        return (uint64_t)n;
    uint64_t total = 0;
    for (int k = 0; k < n; k++)
        total += sem_init_count((const char *)a + MPD_ARR_HDR + (size_t)k * h->esize, depth - 1);
    return total;
}

/* The whole array is declared at once: it is one operation class. */
static void sem_init_arr(const char *f, int l, mpd_res *self, uint32_t idx, uint32_t n,
                         const void *a, int depth, int held)
{
    /* one value per semaphore (MPD 1.0.1 aborts on a size mismatch too) */
    uint64_t have = sem_init_count(a, depth);
    if (have != n)
        mpd_rts_abort(f, l, "size mismatch in semaphore initializer: %llu values for %u semaphores",
                      (unsigned long long)have, n);
    int *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v)
        mpd_rts_fatal("out of memory");
    sem_init_rec(v, 0, n, a, depth);
    op_sem_decl(f, l, self, idx, n, 0, v, held);
    free(v);
}

void mpd_sem_init_arr(const char *f, int l, mpd_res *self, uint32_t idx, uint32_t n, const void *a,
                      int depth)
{
    sem_init_arr(f, l, self, idx, n, a, depth, 0);
}

void mpd_sem_init_arr_held(const char *f, int l, mpd_res *self, uint32_t idx, uint32_t n,
                           const void *a, int depth)
{
    sem_init_arr(f, l, self, idx, n, a, depth, 1);
}

/* ---- local op blocks ---------------------------------------------------- */

mpd_res *mpd_ops_local(mpd_res *self, uint32_t nops)
{
    mpd_res *blk = obj_new(sizeof(mpd_res), nops, &obj_localpat, self ? res_rt(self) : NULL);
    res_child_link(blk); /* dies with its resource (reclaim.c) */
    return blk;
}

/* A local or dynamic op block just killed by its owner (who won obj_kill):
 * it leaves its resource's list and is freed once nothing holds it (now
 * or after a grace period: reclaim.c). */
static void block_retire(mpd_res *local)
{
    res_child_unlink(local);
    obj_retire(local);
}

void mpd_ops_local_end(mpd_res *local)
{
    if (!obj_kill(local))
        return; /* ended already */
    for (uint32_t i = 0; i < local->nops; i++)
        op_kill(&local->ops[i]);
    block_retire(local);
}

/* MPD 1.0.1 warns, as a resource dies, about each process blocked in P on
 * one of its semaphores ("process blocked on killed sem: holder.waiter"):
 * the body's semaphores, newest first, each one's waiters in order.  Not
 * the spec's (MPD made exported semaphores general ops), not receivers of
 * other ops.  The names are copied under the class lock and printed after
 * it, since printing may flush and wait. */
static void warn_blocked_on_sems(mpd_res *r)
{
    uint32_t nspec = r->pat ? MPD_RES_SPEC_NOPS(r->pat->flags) : 0;
    for (uint32_t i = r->nops; i-- > nspec;) {
        mpd_op *op = &r->ops[i];
        if (op_kind(op) != MPD_OPK_INPUT || !op_counted(op))
            continue;
        opq *q = op_queue(op);
        char **names = NULL;
        size_t n = 0, cap = 0;
        opcls *c = cls_lock(q->cls);
        for (inwait *w = q->wfirst; w; w = w->next) {
            if (n == cap) {
                char **more = realloc(names, (cap = cap ? 2 * cap : 4) * sizeof *names);
                if (!more)
                    break;
                names = more;
            }
            const char *nm = mpd_proc_name(w->proc);
            names[n++] = strdup(nm ? nm : "?");
        }
        opk_release(&c->lk);
        for (size_t k = 0; k < n; k++) {
            if (names[k])
                mpd_rts_warning("process blocked on killed sem: %s", names[k]);
            free(names[k]);
        }
        free(names);
    }
}

void res_kill_ops(mpd_res *r)
{
    warn_blocked_on_sems(r);
    for (uint32_t i = 0; i < r->nops; i++)
        op_kill(&r->ops[i]);
}

/* ---- dynamic ops: new(op ...) ------------------------------------------- */

mpd_cap mpd_op_new(const char *F, int L, mpd_res *self, uint32_t n, unsigned flags)
{
    if (!self)
        self = opk_cur_res();
    mpd_res *blk = obj_new(sizeof(mpd_res), n, &obj_localpat, self ? res_rt(self) : NULL);
    res_rt(blk)->state = RES_ALIVE;
    res_child_link(blk); /* dies with its resource (reclaim.c) */
    if (flags & MPD_OP_SEMAPHORE)
        mpd_op_sem(F, L, blk, 0, n, 0);
    else
        mpd_op_input(blk, 0, n, flags & (MPD_OP_CALLONLY | MPD_OP_SENDONLY));
    for (uint32_t i = 0; i < n; i++)
        blk->ops[i].flags |= MPD_OPF_DYNAMIC;
    return mpd_cap_of(blk, 0);
}

void mpd_op_destroy(const char *F, int L, mpd_cap c)
{
    if (c.vm == 0 && (c.obj == MPD_CAP_OBJ_NULL || c.obj == MPD_CAP_OBJ_NOOP))
        return;
    if (c.vm != mpd__cap_vm || c.idx == MPD_CAP_RES)
        mpd_rts_abort(F, L, "invalid operation capability");
    mpd_res *r = obj_lookup(c.obj);
    if (!r || c.idx >= r->nops || r->ops[c.idx].kind == MPD_OPK_DEAD)
        mpd_rts_abort(F, L, "op no longer exists");
    mpd_op *op = &r->ops[c.idx];
    if (!(op_flags(op) & MPD_OPF_DYNAMIC))
        mpd_rts_abort(F, L, "not a dynamic op");
    op_kill(op);
    for (uint32_t i = 0; i < r->nops; i++)
        if (r->ops[i].kind != MPD_OPK_DEAD)
            return;
    if (obj_kill(r)) /* its last op is gone (once: two destroys may race) */
        block_retire(r);
}

/* Visits the capabilities of an ndims-dimensional array blob in order. */
static void cap_arr_walk(char *a, int ndims, void (*fn)(mpd_cap *, void *), void *env)
{
    int n = MPD_ARR_UB(a) - MPD_ARR_LB(a) + 1;
    size_t es = (size_t)MPD_ARR_ES(a);
    for (int i = 0; i < n; i++) {
        char *e = MPD_ARR_DATA(a) + (size_t)i * es;
        if (ndims > 1)
            cap_arr_walk(e, ndims - 1, fn, env);
        else
            fn((mpd_cap *)(void *)e, env);
    }
}

static void cap_count(mpd_cap *c, void *env)
{
    (void)c;
    ++*(uint32_t *)env;
}

struct cap_fill {
    mpd_cap first;
    uint32_t next;
};
static void cap_fill(mpd_cap *c, void *env)
{
    struct cap_fill *f = env;
    *c = mpd_cap_op_of(f->first, f->next++);
}

void mpd_op_new_arr(const char *F, int L, mpd_res *self, void *arr, int ndims, unsigned flags)
{
    uint32_t n = 0;
    cap_arr_walk(arr, ndims, cap_count, &n);
    if (n == 0)
        return;
    struct cap_fill f = {mpd_op_new(F, L, self, n, flags), 0};
    cap_arr_walk(arr, ndims, cap_fill, &f);
}

struct cap_where {
    const char *F;
    int L;
};
static void cap_destroy(mpd_cap *c, void *env)
{
    struct cap_where *w = env;
    mpd_op_destroy(w->F, w->L, *c);
}

void mpd_op_destroy_arr(const char *F, int L, void *arr, int ndims)
{
    struct cap_where w = {F, L};
    cap_arr_walk(arr, ndims, cap_destroy, &w);
}

_Noreturn void mpd_op_index_error(const char *F, int L, long i, long lo, long n)
{
    mpd_rts_abort(F, L, "illegal subscript [%ld] of array with bounds [%ld:%ld]", i, lo,
                  lo + n - 1);
}

/* ---- rc.f = c: resource capabilities with ops of their own ---------------- */

typedef struct aliasobj {
    mpd_res h;
    mpd_cap base;
} aliasobj;
const mpd_respat obj_aliaspat = {"resource capability", sizeof(aliasobj), 0, 0, 0, 0, 0};
static resrt alias_owner; /* not a resource: not counted, never destroyed */

/* What op capability c stands for: an alias op's target, else c itself. */
static mpd_cap unalias(mpd_cap c)
{
    if (c.vm != mpd__cap_vm || c.idx == MPD_CAP_RES)
        return c;
    mpd_res *r = obj_lookup(c.obj);
    if (r && c.idx < r->nops && op_kind(&r->ops[c.idx]) == MPD_OPK_ALIAS)
        return *(const mpd_cap *)r->ops[c.idx].q;
    return c;
}

mpd_cap mpd_rescap_with_op(const char *F, int L, mpd_cap rc, uint32_t i, mpd_cap c)
{
    (void)F;
    (void)L;
    mpd_res *b = rc.vm == mpd__cap_vm ? obj_lookup(rc.obj) : NULL;
    uint32_t n = b && b->nops > i ? b->nops : i + 1;
    mpd_res *a = obj_new(sizeof(aliasobj), n, &obj_aliaspat, &alias_owner);
    res_rt(a)->state = RES_ALIVE;
    ((aliasobj *)a)->base = b && b->pat == &obj_aliaspat ? ((aliasobj *)b)->base : rc;
    mpd_cap *t = calloc(n, sizeof *t);
    if (!t)
        mpd_rts_fatal("out of memory");
    for (uint32_t j = 0; j < n; j++) {
        t[j] = unalias(j == i ? c : mpd_cap_op_of(rc, j));
        a->ops[j].q = &t[j];
        a->ops[j].kind = MPD_OPK_ALIAS;
    }
    return mpd_rescap_of(a);
}

/* The resource a capability made by mpd_rescap_with_op stands for (others: rc). */
mpd_cap op_alias_base(mpd_cap rc)
{
    mpd_res *r = rc.vm == mpd__cap_vm ? obj_lookup(rc.obj) : NULL;
    return r && r->pat == &obj_aliaspat ? ((aliasobj *)r)->base : rc;
}

mpd_cap mpd_rescap_op(mpd_cap rc, uint32_t i)
{
    return unalias(mpd_cap_op_of(rc, i));
}

/* One op's SEM1 flag at a flip of compaction (mpd__lang_sem1_all). */
static void sem1_flip(mpd_op *op, void *arg)
{
    int on = *(int *)arg;
    if (!on) {
        if (op_flags(op) & MPD_OPF_SEM1)
            op_clear_flags(op, MPD_OPF_SEM1);
    } else if (op_counted(op) && (!op_queue(op)->grp || op_queue(op)->hc1) &&
               !(op_flags(op) & MPD_OPF_SEM1) && !op_queue(op)->wfirst &&
               !op_queue(op)->cls->wfirst && !op_queue(op)->cls->holds &&
               !atomic_load_explicit(&op_queue(op)->cls->fwd, memory_order_relaxed)) {
        op_set_sem1(op);
    }
}

/* Compaction (core/compact.c) calls this on the one VP awake, every other
 * VP dormant: on = 0 just before the runtime expands to several VPs, which
 * the generated code's unlocked inline P/V of a SEM1 op would not survive,
 * so every op loses SEM1 (as when it becomes a queue: waiters in its own
 * list stay there for the general paths); on = 1 just after it has
 * compacted, when every live counted op with nobody waiting in its own
 * list gets SEM1 back, as if declared on one VP (above). */
void mpd__lang_sem1_all(int on)
{
    if (on && (mpd_trc_on || mpd__tl_on))
        return;
    obj_each_input_op(sem1_flip, &on);
}
