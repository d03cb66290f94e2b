/* inv.c: invocations -- call, send, reply, forward, and the routing of an
 * invocation to its op: the one place that dispatches on the op's kind
 * (proc, input op, noop; another vm's op through disthook.h).  It calls
 * down only: into the consumers (inqueue.c, opcore.c's processes) and the
 * blocks (invb.c). */
#include <stdio.h>
#include "opint.h"
#include "disthook.h"
#include "mpd/abi/trace.h"
#include "core/timeline.h"

/* MPD_TRACE: an invocation is traced by its invoker, which the block then
 * carries to the PROC, ARM and NI of whoever services it. */
static void trc_invoke(const char *F, int L, int ev, mpd_invb *ib)
{
    mpd_trc(F, L, ev, 0);
    mpd_trc_mark_invoker(ib);
}

/* An invocation leaves while MPD_TRACE or the timeline watches (one test
 * of mpd__watch_on on the call and send paths).  call: a call of op. */
static __attribute__((noinline, cold)) void watch_invoke(const char *F, int L, int call, mpd_op *op,
                                                         mpd_invb *ib)
{
    if (mpd_trc_on)
        trc_invoke(F, L, call ? MPD_EV_CALL : MPD_EV_SEND, ib);
    if (mpd__tl_on) {
        mpd__tl_invoke(call ? TL_CALL : TL_SEND, F, L, ib);
        if (call)
            mpd__tl_wait_for(TL_WHY_CALL, (uintptr_t)op);
    }
}
#include "opfast.h"

/* ---- resolving capabilities ------------------------------------------- */

static mpd_op noop_op = {MPD_OPK_NOOP, 0, 0, 0, 0, NULL, "noop", NULL, NULL};

mpd_op *inv_resolve(const char *F, int L, mpd_cap c, int for_input)
{
    if (c.vm == 0) {
        if (c.obj == MPD_CAP_OBJ_NOOP)
            return &noop_op;
        if (c.obj == MPD_CAP_OBJ_NULL && for_input)
            mpd_rts_abort(F, L, "null operation capability");
        mpd_rts_abort(F, L, "invalid operation capability");
    }
    if (for_input && cap_is_remote(c) && c.idx != MPD_CAP_RES)
        mpd_rts_abort(F, L, "cannot input from an operation of another virtual machine");
    if (c.vm != mpd__cap_vm || c.idx == MPD_CAP_RES)
        mpd_rts_abort(F, L, "invalid operation capability");
    mpd_res *r = obj_lookup(c.obj);
    if (!r || c.idx >= r->nops) {
        if (!r)
            opk_dead_op(F, L, NULL);
        mpd_rts_abort(F, L, "invalid operation capability");
    }
    mpd_op *op = &r->ops[c.idx];
    if (op_kind(op) == MPD_OPK_ALIAS) /* rc.f = x: x stands here (never an alias) */
        return inv_resolve(F, L, *(const mpd_cap *)op->q, for_input);
    if (op_kind(op) == MPD_OPK_DEAD)
        opk_dead_op(F, L, op);
    if (op_kind(op) == MPD_OPK_NONE)
        mpd_rts_abort(F, L, "invalid operation capability");
    return op;
}

/* ---- procs run as processes -------------------------------------------- */

static void proc_entry(void *arg)
{
    mpd_invb *ib = arg;
    MPD_TL(mpd__tl_take(NULL, 0, ib));
    mpd_op *op = ib->op;
    op->fn(op->owner, ib);
    inv_complete(ib);
}

/* The process of proc_prep: its block is its own memory.  A call whose
 * invoker is parked for it (one VP) is answered on the way out: the
 * process ends handing the VP to the invoker. */
static void proc_run(void *arg)
{
    opk_proc *o = arg;
    if (!opk_proc_alive(o)) {
        opk_proc_end(o);
        return;
    }
    mpd_invb *ib = (mpd_invb *)(o + 1);
    MPD_TL(mpd__tl_take(NULL, 0, ib));
    mpd_op *op = ib->op;
    op->fn(op->owner, ib);
    uint8_t f = ib->flags;
    if (!(f & MPD_INVF_ANSWERED)) {
        mpd_invb *orig = ib->orig;
        if (!ib->co) {
            if (!ib->done && !orig) {
                opk_proc_end(o); /* a send: nobody to tell; the block goes with us */
                return;
            }
            if ((f & MPD_INVF_PARKER) && mpd_rt_single()) {
                if (orig) { /* results: as inv_answer */
                    uint32_t n = ib->size < orig->size ? ib->size : orig->size;
                    if (n > sizeof(mpd_invb))
                        inv_copy_words(orig + 1, ib + 1, n - sizeof(mpd_invb));
                }
                mpd_proc *p = ((opk_parker *)ib->done)->p;
                opk_proc_end(o);
                opk_exit_to(p);
            }
        }
        inv_answer(ib);
    }
    opk_proc_end(o); /* last: the instance may go now */
}

/* Start a process servicing heap block h (its invoker ties already set). */
static void proc_spawn(mpd_op *op, mpd_invb *h)
{
    h->op = op;
    opk_spawn(proc_entry, h, op->name, op->owner, 0);
}

/* Blocks up to this size travel in the new process's own memory. */
#define INPROC_MAX 1024

/* Make a process for proc op servicing a copy of ib that lives in the
 * process's own memory: no block to allocate or free.  The caller ties the
 * copy to its invoker, then launches *pp (NULL: ready already, see
 * opk_spawn_proc).  NULL when ib is too big (then: inv_copy and
 * proc_spawn). */
__attribute__((always_inline)) static inline mpd_invb *proc_prep(mpd_op *op, const mpd_invb *ib,
                                                                 mpd_proc **pp, int ready)
{
    uint32_t size = ib->size < sizeof(mpd_invb) ? (uint32_t)sizeof(mpd_invb) : ib->size;
    if (size > INPROC_MAX)
        return NULL;
    mpd_invb *c = opk_spawn_proc(proc_run, op->name, op->owner, size, pp, ready);
    c->size = size;
    c->kind = ib->kind;
    c->state = INV_NEW;
    c->pins = 0;
    c->flags = MPD_INVF_HEAP | MPD_INVF_INPROC;
    c->co_arm = ib->co_arm;
    c->co_idx = ib->co_idx;
    c->op = op;
    c->next = c->prev = NULL;
    c->seq = 0;
    c->done = NULL;
    c->orig = NULL;
    c->co = NULL;
    c->file = ib->file;
    c->line = ib->line;
    c->_pad = ib->_pad; /* MPD_TRACE: the invoker */
    if (size > sizeof(mpd_invb))
        inv_copy_words(c + 1, ib + 1, size - sizeof(mpd_invb));
    return c;
}

/* send op() of a proc without parameters (V on it). */
void inv_send_none(const char *F, int L, mpd_op *op)
{
    if (op_kind(op) != MPD_OPK_PROC) {
        mpd_invb ib = {.size = sizeof(mpd_invb), .kind = MPD_INV_SEND};
        mpd_send_op(F, L, op, &ib);
        return;
    }
    static const mpd_invb none = {.size = sizeof(mpd_invb), .kind = MPD_INV_SEND};
    mpd_proc *p;
    mpd_invb *c = proc_prep(op, &none, &p, 1);
    c->file = F;
    c->line = L;
    if (p)
        mpd_proc_launch(p);
}

/* send to a proc: a process with its own copy of ib, nobody to answer. */
static void proc_send(mpd_op *op, const mpd_invb *ib)
{
    mpd_proc *p;
    if (proc_prep(op, ib, &p, 1)) {
        if (p)
            mpd_proc_launch(p);
    } else {
        proc_spawn(op, inv_copy(ib));
    }
}

/* What couples the processes that talk through op, for compaction's look
 * at who talks with whom (core/compact.c): an input op's lock class (all
 * input ops of an instance share it, and contend for it on several VPs),
 * any other op itself.  Out of line: only every so many messages. */
void talk_sample(mpd_op *op)
{
    opq *q = op_kind(op) == MPD_OPK_INPUT ? op_queue(op) : NULL;
    mpd__compact_sample(q ? (const void *)q->cls : (const void *)op);
}

__attribute__((always_inline)) static inline void deliver(const char *F, int L, mpd_op *op,
                                                          mpd_invb *h);

/* inv_deliver of a message compaction looks at: off the usual path */
__attribute__((noinline, cold)) static void deliver_sampled(const char *F, int L, mpd_op *op,
                                                            mpd_invb *h)
{
    talk_sample(op);
    deliver(F, L, op, h);
}

/* Route a runtime-owned block h whose answer goes to h->done/orig/co:
 * used by send, forward and co.  Never blocks. */
void inv_deliver(const char *F, int L, mpd_op *op, mpd_invb *h)
{
    if (mpd__compact && talk_note()) { /* compaction's triggers and trials (core/compact.c) */
        deliver_sampled(F, L, op, h);
        return;
    }
    deliver(F, L, op, h);
}

__attribute__((always_inline)) static inline void deliver(const char *F, int L, mpd_op *op,
                                                          mpd_invb *h)
{
    switch (op_kind(op)) {
    case MPD_OPK_PROC:
        proc_spawn(op, h);
        return;
    case MPD_OPK_INPUT:
        if (op_counted(op)) {
            if (h->kind != MPD_INV_CALL) { /* a send: just a token */
                in_token(op);
                inv_complete(h);
                return;
            }
            in_uncount_op(op); /* someone waits: a real queue */
        }
        in_arrive(op, h);
        return;
    case MPD_OPK_NOOP:
        inv_complete(h);
        return;
    default:
        opk_dead_op(F, L, op);
    }
}

static void check_restriction(const char *F, int L, mpd_op *op, int kind)
{
    if (kind == MPD_INV_CALL && (op_flags(op) & MPD_OP_SENDONLY))
        mpd_rts_abort(F, L, "cannot call a send-only operation");
    if (kind == MPD_INV_SEND && (op_flags(op) & MPD_OP_CALLONLY))
        mpd_rts_abort(F, L, "cannot send to a call-only operation");
}

/* ---- call and send ------------------------------------------------------ */

/* call of a proc that gets a process: the caller parks until the process
 * answers (see OPK_SWITCH_RETURN for the body/entry split). */
__attribute__((always_inline)) static inline opk_sret call_proc(const char *F, int L, mpd_op *op,
                                                                mpd_invb *ib)
{
    opk_parker pk;
    pk.p = mpd_self();
    opk_lock_init(&pk.lk);
    mpd_proc *p = NULL;
    int one = mpd_rt_single();
    mpd_invb *h = proc_prep(op, ib, &p, one);
    if (h && one) { /* one VP: p is ready already; park as a receive does */
        h->orig = ib;
        h->done = &pk;
        h->flags |= MPD_INVF_PARKER;
        return OPK_SRET(NULL, opk_park_inline(F, L));
    }
    if (!h)
        h = inv_copy(ib);
    h->orig = ib;
    h->done = &pk;
    h->flags |= MPD_INVF_PARKER;
    opk_acquire(&pk.lk);
    if (p) {
        opk_launch_park_waiter(p, &pk.lk, F, L);
    } else {
        proc_spawn(op, h);
        opk_park_waiter(&pk.lk, F, L);
    }
    return OPK_SRET(NULL, 0);
}

OPK_BODY opk_sret mpd__call_proc_body(const char *F, int L, mpd_op *op, mpd_invb *ib)
{
    ib->kind = MPD_INV_CALL;
    if (__builtin_expect(mpd__watch_on, 0))
        watch_invoke(F, L, 1, op, ib);
    return call_proc(F, L, op, ib);
}

OPK_BODY opk_sret mpd__call_op_body(const char *F, int L, mpd_op *op, mpd_invb *ib)
{
    ib->kind = MPD_INV_CALL;
    if (__builtin_expect(mpd__watch_on, 0))
        watch_invoke(F, L, 1, op, ib);
    switch (op_kind(op)) {
    case MPD_OPK_PROC:
        if ((op_flags(op) & MPD_OP_DIRECT) && /* the fast path, on one vm */
            (__builtin_expect(!atomic_load_explicit(&op_vms_many, memory_order_relaxed), 1) ||
             res_vm_of(op->owner) == res_vm_of(opk_cur_res()))) {
            if (op_flags(op) & MPD_OP_LEAF)
                op->fn(op->owner, ib);
            else
                mpd__call_held(op, ib); /* it may switch: hold the instance */
            return OPK_SRET(NULL, 0);
        }
        return call_proc(F, L, op, ib);  /* the proc gets a process */
    case MPD_OPK_INPUT: {                /* rendezvous: no copy */
        if (mpd__compact && talk_note()) /* compaction's triggers and trials (core/compact.c) */
            talk_sample(op);
        if (op_counted(op))
            in_uncount_op(op); /* the caller waits for its servicing */
        ib->flags = MPD_INVF_PARKED;
        ib->done = mpd_self();
        ib->orig = NULL;
        ib->co = NULL;
        /* its answer looks at op (inv_answer); with compaction the answer
         * may come in the other mode, so the count is kept in both */
        if (!mpd_rt_single())
            __atomic_fetch_add(&res_rt(op->owner)->calls_parked, 1, __ATOMIC_RELAXED);
        else if (mpd__compact) /* one VP awake: no other thread looks */
            res_rt(op->owner)->calls_parked++;
        opcls *c = in_arrive_call(op, ib);
        if (mpd_rt_single())
            return OPK_SRET(NULL, opk_park_inline(F, L));
        opk_park_waiter(&c->lk, F, L);
        return OPK_SRET(NULL, 0);
    }
    case MPD_OPK_NOOP:
        return OPK_SRET(NULL, 0);
    default:
        opk_dead_op(F, L, op);
    }
}

#if OPK_HAVE_SWITCH_RETURN
__attribute__((naked)) void mpd_call_op(const char *F OPK_UNUSED, int L OPK_UNUSED,
                                        mpd_op *op OPK_UNUSED, mpd_invb *ib OPK_UNUSED)
{
    OPK_SWITCH_RETURN(mpd__call_op_body);
}
__attribute__((naked)) void mpd__call_proc(const char *F OPK_UNUSED, int L OPK_UNUSED,
                                           mpd_op *op OPK_UNUSED, mpd_invb *ib OPK_UNUSED)
{
    OPK_SWITCH_RETURN(mpd__call_proc_body);
}
#else
void mpd_call_op(const char *F, int L, mpd_op *op, mpd_invb *ib)
{
    (void)mpd__call_op_body(F, L, op, ib);
}
void mpd__call_proc(const char *F, int L, mpd_op *op, mpd_invb *ib)
{
    (void)mpd__call_proc_body(F, L, op, ib);
}
#endif

/* Flow control, several VPs only (mpd__send_flow): sends never block, so
 * producers that outpace their receiver queued a slice of invocations each
 * (10,000 iterations) before the receiver ran -- 4 producers of a fan-in
 * grew the heap by tens of MB, each block a cold miss for the receiver.  A
 * sender that finds at least mpd__send_flow invocations queued yields
 * before every 64th such send (one switch per 64 when the queue is never drained,
 * which a yield with nothing else ready makes cheap), so that the receiver
 * works on blocks still in the CPU's cache, as a Go channel's buffer
 * bounds its backlog.  Never with one VP: the order stays MPD 1.0.1's.
 * Only for an op alone in its MPD class: when the stages of a pipeline
 * share one (`op ch[0:4]`), draining a queue makes its receiver block, and
 * each later arrival then wakes it holding the class (inhold.c), so the
 * stage before it waits for the class at its next receive: the pipeline
 * fell into a park per message, 3x slower. */
static inline int send_flow_due(mpd_op *op)
{
    opq *q = op_queue(op);
    uint32_t n = __atomic_load_n(&q->count, __ATOMIC_RELAXED);
    return n >= mpd__send_flow && !(n & 63) && (q->grp & OPQ_GRP_ALONE);
}

/* The yield and the send, out of line: the one-VP path keeps its tail
 * call to inv_deliver. */
static __attribute__((noinline)) void send_flow(const char *F, int L, mpd_op *op, mpd_invb *ib)
{
    if (mpd__tls_vp && mpd__tls_vp->cur)
        mpd_yield();
    inv_deliver(F, L, op, inv_copy(ib));
}

/* always inline: send_general must stay one function on the send path */
__attribute__((always_inline)) static inline void send_op(const char *F, int L, mpd_op *op,
                                                          mpd_invb *ib);

static __attribute__((noinline)) void send_general(const char *F, int L, mpd_op *op, mpd_invb *ib)
{
    if (__builtin_expect(mpd__watch_on, 0))
        watch_invoke(F, L, 0, op, ib);
    send_op(F, L, op, ib);
}

/* One VP, an input op that is a queue (not counted, never to be: inv_deliver
 * need not look again) and a block in the cache: the copy is inline and
 * every call a tail call, so that this path keeps no frame.  The rest,
 * send_general. */
void mpd_send_op(const char *F, int L, mpd_op *op, mpd_invb *ib)
{
    if (!__builtin_expect(mpd__watch_on, 0) && mpd_rt_single() && op_kind(op) == MPD_OPK_INPUT &&
        !op_counted(op) && !(__builtin_expect(mpd__send_flow != 0, 0) && send_flow_due(op))) {
        uint32_t size = invb_copy_size(ib);
        mpd_invb *c = invb_cached(size);
        if (c) {
            ib->kind = MPD_INV_SEND;
            invb_fill(c, ib, size);
            if (mpd__compact && talk_note()) { /* compaction (core/compact.c) */
                deliver_sampled(F, L, op, c);
                return;
            }
            in_arrive(op, c);
            return;
        }
    }
    send_general(F, L, op, ib);
}

__attribute__((always_inline)) static inline void send_op(const char *F, int L, mpd_op *op,
                                                          mpd_invb *ib)
{
    ib->kind = MPD_INV_SEND;
    switch (op_kind(op)) {
    case MPD_OPK_NOOP:
        return;
    case MPD_OPK_INPUT:
        if (op_counted(op)) {
            in_token(op);
            return;
        }
        if (__builtin_expect(mpd__send_flow != 0, 0) && send_flow_due(op)) { /* several VPs */
            send_flow(F, L, op, ib);
            return;
        }
        inv_deliver(F, L, op, inv_copy(ib));
        return;
    case MPD_OPK_PROC:
        proc_send(op, ib);
        return;
    default:
        opk_dead_op(F, L, op);
    }
}

void mpd_invoke(const char *F, int L, mpd_cap c, mpd_invb *ib, int kind)
{
    if (cap_is_remote(c)) {
        ib->file = F;
        ib->line = L;
        mpd__dist->invoke(F, L, c, ib, kind);
        return;
    }
    mpd_op *op = inv_resolve(F, L, c, 0);
    check_restriction(F, L, op, kind);
    ib->file = F;
    ib->line = L;
    if (kind == MPD_INV_CALL)
        mpd_call_op(F, L, op, ib);
    else
        mpd_send_op(F, L, op, ib);
}

void mpd_send(const char *F, int L, mpd_cap c, mpd_invb *ib)
{
    mpd_invoke(F, L, c, ib, MPD_INV_SEND);
}

void mpd_send_gather(const char *F, int L, mpd_cap c, mpd_invb *ib, const mpd_gather *g, int n)
{
    if (cap_is_remote(c) && mpd__dist->send_gather) {
        ib->kind = MPD_INV_SEND;
        ib->file = F;
        ib->line = L;
        mpd__dist->send_gather(F, L, c, ib, g, n);
        return;
    }
    for (int i = 0; i < n; i++)
        memcpy(g[i].dst, g[i].src, g[i].n);
    mpd_invoke(F, L, c, ib, MPD_INV_SEND);
}

/* ---- reply and forward -------------------------------------------------- */

/* Does the servicing code own ib (a runtime block not held by a co)? */
static int owned(const mpd_invb *ib)
{
    return (ib->flags & MPD_INVF_HEAP) && !ib->co;
}

static mpd_invb *reply(mpd_invb *ib);

mpd_invb *mpd_reply(const char *F, int L, mpd_invb *ib)
{
    (void)F;
    (void)L;
    if (__builtin_expect(mpd_trc_on, 0)) {
        mpd_trc(F, L, MPD_EV_REPLY, mpd_trc_invoker(ib));
        mpd_invb *r = reply(ib);
        if (r && r->kind == MPD_INV_CALL)
            r->_pad = (uint32_t)mpd_trc_self(); /* ENDPROC: the caller went on */
        return r;
    }
    return reply(ib);
}

static mpd_invb *reply(mpd_invb *ib)
{
    if (!ib || (ib->flags & MPD_INVF_ANSWERED))
        return ib;
    if (owned(ib)) { /* results go to ib->orig; keep ib */
        inv_answer(ib);
        return ib;
    }
    if (ib->flags & MPD_INVF_HEAP) { /* a co's block: the co gets a copy */
        mpd_invb *c = inv_copy(ib);
        c->co = ib->co;
        ib->co = NULL;
        ib->flags |= MPD_INVF_ANSWERED;
        inv_answer(c);
        return ib;
    }
    mpd_invb *mine = inv_copy(ib); /* ib goes back to its invoker/co */
    mine->flags |= MPD_INVF_ANSWERED;
    inv_answer(ib);
    return mine;
}

mpd_invb *mpd_forward(const char *F, int L, mpd_invb *cur, mpd_cap c, mpd_invb *nib)
{
    int remote = cap_is_remote(c); /* to an op of another vm */
    mpd_op *op = remote ? NULL : inv_resolve(F, L, c, 0);
    nib->file = F;
    nib->line = L;
    if (__builtin_expect(mpd_trc_on, 0)) {
        mpd_trc(F, L, MPD_EV_FORWARD, mpd_trc_invoker(cur));
        nib->_pad = cur->_pad; /* the new servicer answers the same invoker */
    }
    MPD_TL(mpd__tl_invoke(TL_SEND, F, L, nib)); /* an arrow to its new servicer */
    if (cur->flags & MPD_INVF_ANSWERED) {       /* nobody waits: a plain send */
        if (remote)
            mpd__dist->invoke(F, L, c, nib, MPD_INV_SEND);
        else
            send_op(F, L, op, nib);
        return cur;
    }
    mpd_invb *h = inv_copy(nib);
    h->kind = cur->kind;
    mpd_invb *keep = cur;
    if (cur->co) { /* the co waits for h instead, as the same arm */
        h->co = cur->co;
        h->co_arm = cur->co_arm;
        h->co_idx = cur->co_idx;
        cur->co = NULL;
        cur->flags |= MPD_INVF_ANSWERED;
    } else if (owned(cur)) { /* proc copy or queued block */
        h->orig = cur->orig;
        h->done = cur->done;
        h->flags |=
            cur->flags & (MPD_INVF_PARKED | MPD_INVF_PARKER | MPD_INVF_CREATE | MPD_INVF_REMOTE);
        cur->orig = NULL;
        cur->done = NULL;
        cur->flags |= MPD_INVF_ANSWERED;
    } else { /* cur is the invoker's block */
        keep = inv_copy(cur);
        keep->flags |= MPD_INVF_ANSWERED;
        h->orig = cur;
        h->done = cur->done;
        h->flags |= cur->flags & MPD_INVF_PARKED;
    }
    if (remote)
        mpd__dist->deliver(F, L, c, h);
    else
        inv_deliver(F, L, op, h);
    return keep;
}

/* ---- ?op ---------------------------------------------------------------- */

int mpd_pending_op(mpd_op *op)
{
    switch (op_kind(op)) {
    case MPD_OPK_INPUT:
        return in_pending(op); /* holds change what counts: under the class lock */
    default:
        return 0;
    }
}

int mpd_pending(const char *F, int L, mpd_cap c)
{
    if (cap_is_remote(c))
        return mpd__dist->pending(F, L, c);
    return mpd_pending_op(inv_resolve(F, L, c, 1));
}
