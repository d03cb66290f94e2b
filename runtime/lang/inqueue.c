/* inqueue.c: the input ops' invocation queues and their waiters -- where an
 * invocation arrives (in_arrive, in_arrive_call, a V as in_token) and is
 * handed to a waiting process or queued, and where a destroy purges an op
 * and ends the waiters of its resource.  The selection (which arm an input
 * statement takes) is inselect.c; the semaphore P and V, opsem.c.
 *
 * Design (see docs/ops.md):
 *  - Each input op has a FIFO queue; every arrival gets a class-wide
 *    sequence number, so "oldest" is well defined across arms.
 *  - A process that finds nothing acceptable registers an inwait on the
 *    class and sleeps.  An arrival at op X hands the invocation straight to
 *    the first waiter that has a plain arm (no st/by) on X -- it never
 *    enters the queue and the waiter does not scan anything.  Otherwise the
 *    invocation is queued and only waiters with an st/by arm on X are woken
 *    to look at it.
 */
#include "opint.h"
#include "mpd/abi/trace.h"
#include "opfast.h"
#include "inqueue.h"

/* Holds of statements given a class to look at it (HOLD_LOOK, inqueue.h)
 * go idle when its last queued invocation is taken, and wake again at the
 * next arrival. */
static void hold_idle(opcls *c, uintptr_t grp)
{
    for (inwait *h = c->holds; h; h = h->hnext)
        if (h->rescan == HOLD_LOOK && !h->got && h->hgrp == grp)
            h->rescan = HOLD_IDLE;
}

static void hold_wake_idle(opcls *c, uintptr_t grp)
{
    for (inwait *h = c->holds; h; h = h->hnext)
        if (h->rescan == HOLD_IDLE && h->hgrp == grp) {
            h->rescan = HOLD_LOOK;
            h->hseq = c->seq;
        }
}

/* ---- queue primitives (class lock held) -------------------------------- */

static inline void q_push(opq *q, mpd_invb *ib)
{
    if (q->grp)
        (*grp_count(q->grp))++;
    ib->next = NULL;
    ib->prev = q->tail;
    if (q->tail)
        q->tail->next = ib;
    else
        q->head = ib;
    q->tail = ib;
    ib->state = INV_QUEUED;
    __atomic_store_n(&q->count, q->count + 1, __ATOMIC_RELAXED);
}

void inq_remove(opcls *c, opq *q, mpd_invb *ib)
{
    if (q->grp && --*grp_count(q->grp) == 0 && __builtin_expect(c->holds != NULL, 0))
        hold_idle(c, q->grp);
    if (ib->prev)
        ib->prev->next = ib->next;
    else
        q->head = ib->next;
    if (ib->next)
        ib->next->prev = ib->prev;
    else
        q->tail = ib->prev;
    ib->next = ib->prev = NULL;
    ib->state = INV_TAKEN;
    ib->flags &= ~MPD_INVF_SKIPPED;
    __atomic_store_n(&q->count, q->count - 1, __ATOMIC_RELAXED);
}

/* Register w at the end of the op list `own` (NULL: the class's list). */
void inq_w_link(opcls *c, inwait *w, opq *own)
{
    inwait **first = &c->wfirst, **last = &c->wlast;
    w->own = own;
    if (own) {
        first = &own->wfirst;
        last = &own->wlast;
    }
    w->ticket = ++c->ticket;
    w->next = NULL;
    w->prev = *last;
    w_mark(w, c);
    if (*last)
        (*last)->next = w;
    else
        *first = w;
    *last = w;
    if (own)
        opq_mark_waiting(own);
}

void inq_w_append(opcls *c, inwait *w)
{
    mpd_op *op = single_op(w->in);
    inq_w_link(c, w, op && op_kind(op) == MPD_OPK_INPUT ? op_queue(op) : NULL);
}

void inq_w_unlink(opcls *c, inwait *w)
{
    inwait **first = w->own ? &w->own->wfirst : &c->wfirst;
    inwait **last = w->own ? &w->own->wlast : &c->wlast;
    if (w->prev)
        w->prev->next = w->next;
    else
        *first = w->next;
    if (w->next)
        w->next->prev = w->prev;
    else
        *last = w->prev;
    w->next = w->prev = NULL;
    w_unmark(w);
    if (w->own)
        opq_unmark_if_empty(w->own);
}

/* Does waiter w have an arm on op, plain (want_plain) or with st/by? */
static int w_covers(const inwait *w, const mpd_op *op, int want_plain, uint32_t *arm, uint32_t *k)
{
    const mpd_in *in = w->in;
    for (uint32_t a = 0; a < in->narms; a++) {
        const mpd_arm *ar = &in->arms[a];
        int plain = !ar->has_st && !ar->has_by;
        if (plain != want_plain)
            continue;
        for (uint32_t i = 0; i < ar->n; i++)
            if (ar->ops[i] == op) {
                *arm = a;
                *k = i;
                return 1;
            }
    }
    return 0;
}

void inq_wake_all(wakelist *wl)
{
    inwait *w = wl->first;
    while (w) {
        inwait *n = w->next; /* read before waking: w dies after */
        mpd_unpark(w->proc);
        w = n;
    }
    wl->first = NULL;
}

/* Pass 1 of a dispatch: hand ib to the first waiter with a plain arm on op.
 * Returns 1 if it did (ib is then taken, out of the queue). */
static int handoff(opcls *c, mpd_op *op, mpd_invb *ib, int queued, wakelist *wl)
{
    uint32_t arm = 0, k = 0;
    inwait *w = op_queue(op)->wfirst;           /* oldest one-op receiver */
    for (inwait *x = c->wfirst; x; x = x->next) /* statements with several ops */
        if ((!w || x->ticket < w->ticket) && w_covers(x, op, 1, &arm, &k)) {
            w = x;
            break;
        }
    if (!w)
        return 0;
    if (w->own)
        arm = k = 0;
    if (queued)
        inq_remove(c, op_queue(op), ib);
    ib->state = INV_TAKEN;
    inq_w_unlink(c, w);
    w->got = ib;
    w->arm = arm;
    w->k = k;
    if (op_queue(op)->grp) /* not a semaphore: it holds the class (inhold.c) */
        hold_give(c, w, op_queue(op)->grp);
    wake_add(wl, w);
    return 1;
}

/* Something became available at op: wake the waiters with st/by on it
 * (each holding the op's class until it has looked: inhold.c). */
static void wake_cond(opcls *c, mpd_op *op, wakelist *wl)
{
    uint32_t arm, k;
    uintptr_t grp = op_queue(op)->grp;
    c->gen++;
    for (inwait *w = c->wfirst, *n; w; w = n) {
        n = w->next;
        if (w_covers(w, op, 0, &arm, &k)) {
            inq_w_unlink(c, w);
            w->rescan = 1;
            if (grp)
                hold_give(c, w, grp); /* hseq: its first look stops here */
            wake_add(wl, w);
        }
    }
}

/* ib is available at op (new, or just unpinned).  If a waiter with a plain
 * arm on op exists, hand ib to it; else make sure it is queued and wake the
 * st/by waiters on op. */
static void dispatch(opcls *c, mpd_op *op, mpd_invb *ib, int queued, wakelist *wl)
{
    opq *q = op_queue(op);
    if (__builtin_expect(c->holds != NULL, 0) && hold_held(c, q->grp)) {
        /* MPD wakes one process of a class at a time: what arrives while a
         * woken one has not run waits for it (inq_offer_deferred) */
        if (!queued)
            q_push(q, ib);
        hold_defer(c, q);
        hold_wake_idle(c, q->grp);
        return;
    }
    if ((c->wfirst || q->wfirst) && handoff(c, op, ib, queued, wl))
        return;
    if (!queued)
        q_push(op_queue(op), ib);
    if (c->wfirst)
        wake_cond(c, op, wl);
    else
        c->gen++;
}

/* Take the op *pp out of the deferred list. */
static void defer_pop(opq **pp)
{
    opq *q = *pp;
    *pp = q->dnext;
    q->dnext = NULL;
    q->deferred = 0;
}

void inq_defer_unlink(opcls *c, opq *q)
{
    opq **pp = &c->dq;
    while (*pp && *pp != q)
        pp = &(*pp)->dnext;
    if (*pp)
        defer_pop(pp);
}

/* The oldest invocation of q that no scanner holds. */
static mpd_invb *q_first_free(const opq *q)
{
    mpd_invb *ib = q->head;
    while (ib && ib->pins)
        ib = ib->next;
    return ib;
}

/* The arrivals deferred by a hold, now that it has ended (MPD moves its
 * class's new invocations to the old list and wakes the next process):
 * oldest first, each goes to a waiter that takes it, which holds the class
 * in turn (the rest wait for that hold to end); an op none takes leaves
 * the list, its st/by waiters woken to look. */
void inq_offer_deferred(opcls *c, wakelist *wl)
{
    for (;;) {
        opq **best = NULL;
        mpd_invb *bib = NULL;
        for (opq **pp = &c->dq; *pp;) {
            opq *q = *pp;
            mpd_invb *ib = q_first_free(q);
            if (!ib) { /* taken meanwhile */
                defer_pop(pp);
                continue;
            }
            if (!hold_held(c, q->grp) && (!bib || ib->seq < bib->seq)) {
                best = pp;
                bib = ib;
            }
            pp = &q->dnext;
        }
        if (!best)
            return;
        opq *q = *best;
        if ((c->wfirst || q->wfirst) && handoff(c, bib->op, bib, 1, wl))
            continue;
        defer_pop(best);
        if (c->wfirst)
            wake_cond(c, bib->op, wl);
    }
}

/* A parameterless block standing for one token of a semaphore that has
 * become an ordinary queue. */
static mpd_invb *token_block(void)
{
    mpd_invb *b = inv_alloc(sizeof(mpd_invb));
    memset(b, 0, sizeof *b);
    b->size = sizeof *b;
    b->kind = MPD_INV_SEND;
    b->flags = MPD_INVF_HEAP;
    return b;
}

/* What receive/P of a semaphore token returns: nothing to answer or free. */
mpd_invb mpd__semblk = {sizeof(mpd_invb),
                        MPD_INV_SEND,
                        INV_TAKEN,
                        0,
                        MPD_INVF_ANSWERED,
                        0,
                        0,
                        NULL,
                        NULL,
                        NULL,
                        0,
                        NULL,
                        NULL,
                        NULL,
                        NULL,
                        0,
                        0};

static void uncount1(opcls *c, mpd_op *op);

void in_token(mpd_op *op)
{
    opq *q = op_queue(op);
    wakelist wl = {NULL};
    opcls *c = cls_lock(q->cls);
    if (__builtin_expect(c->holds != NULL, 0) && q->grp && hold_held(c, q->grp))
        uncount1(c, op);   /* held: MPD defers what arrives (dispatch) */
    if (!op_counted(op)) { /* it became a queue meanwhile */
        opk_release(&c->lk);
        in_arrive(op, token_block());
        return;
    }
    c->seq++;
    inwait *w = q->wfirst;
    if (w && !c->wfirst) { /* the common case: a P waits */
        mpd_proc *p = w->proc;
        inq_w_unlink(c, w);
        w->got = &mpd__semblk;
        w->arm = w->k = 0;
        if (q->grp)
            hold_give(c, w, q->grp);
        opk_release(&c->lk);
        mpd_unpark(p);
        return;
    }
    if (!(c->wfirst || q->wfirst) || !handoff(c, op, &mpd__semblk, 0, &wl)) {
        opq_sem_add1(q);
        c->gen++;
    }
    opk_release(&c->lk);
    inq_wake_all(&wl);
}

/* Turn a counted op into an ordinary queue of that many empty blocks (lock
 * held).  Needed when a statement with several ops or st/by services it (so
 * tokens can be ordered and pinned) or when it is called (the caller waits
 * for the servicing of its own invocation). */
static void uncount1(opcls *c, mpd_op *op)
{
    if (op_kind(op) != MPD_OPK_INPUT || !op_counted(op))
        return;
    opq *q = op_queue(op);
    uint32_t n = opq_sem_count(q);
    q->hc1 = 0; /* a queue from now on */
    op_clear_flags(op, MPD_OPF_COUNTED | MPD_OPF_SEM1);
    __atomic_store_n(&q->count, 0, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < n; i++) {
        mpd_invb *b = token_block();
        b->op = op;
        b->seq = ++c->seq;
        q_push(q, b);
    }
}

void inq_uncount(opcls *c, const mpd_in *in)
{
    for (uint32_t a = 0; a < in->narms; a++)
        for (uint32_t k = 0; k < in->arms[a].n; k++)
            uncount1(c, in->arms[a].ops[k]);
}

void in_uncount_op(mpd_op *op)
{
    opcls *c = cls_lock(op_queue(op)->cls);
    uncount1(c, op);
    opk_release(&c->lk);
}

static __attribute__((noinline)) void arrive_locked(mpd_op *op, mpd_invb *ib);

void in_arrive(mpd_op *op, mpd_invb *ib)
{
    /* One VP, no hold in the class and nobody waiting on it: dispatch
     * would only queue ib, so queue it here, with no call (a pipeline's
     * stage sends into a backlog here) */
    opq *q = op_queue(op);
    if (mpd_rt_single()) {
        opcls *c = cls_root(q->cls);
        if (!c->holds && !c->wfirst && !q->wfirst) {
            ib->op = op;
            ib->pins = 0;
            ib->seq = ++c->seq;
            q_push(q, ib);
            c->gen++;
            return;
        }
    }
    arrive_locked(op, ib);
}

static void arrive_locked(mpd_op *op, mpd_invb *ib)
{
    wakelist wl = {NULL};
    ib->op = op;
    ib->pins = 0;
    opcls *c = cls_lock(op_queue(op)->cls);
    ib->seq = ++c->seq;
    dispatch(c, op, ib, 0, &wl);
    opk_release(&c->lk);
    inq_wake_all(&wl);
}

/* A call of an input op: deliver the invoker's own block; the invoker then
 * parks until it is answered.  Returns the class, locked (unless one VP):
 * the lock is held from the arrival until the invoker is switched out, so
 * the answer (which takes that lock first, see inv_answer) can never come
 * before the park; on one VP there is no lock and nothing can run in
 * between anyway. */
opcls *in_arrive_call(mpd_op *op, mpd_invb *ib)
{
    wakelist wl = {NULL};
    ib->op = op;
    ib->pins = 0;
    opq *q = op_queue(op);
    opcls *c = cls_lock(q->cls);
    ib->seq = ++c->seq;
    inwait *w = q->wfirst;
    if (w && !c->wfirst && !c->holds) { /* the common case: a receiver waits */
        ib->state = INV_TAKEN;
        inq_w_unlink(c, w);
        w->got = ib;
        w->arm = w->k = 0;
        if (q->grp) /* not a semaphore: it holds the class (inhold.c) */
            hold_give(c, w, q->grp);
        opk_wake(w->proc); /* does not switch: safe here */
    } else {
        dispatch(c, op, ib, 0, &wl);
        inq_wake_all(&wl);
    }
    return c;
}

/* Drop one pin; if someone skipped ib meanwhile, offer it again. */
void inq_unpin(opcls *c, mpd_invb *ib, wakelist *wl)
{
    if (--ib->pins == 0 && (ib->flags & MPD_INVF_SKIPPED)) {
        ib->flags &= ~MPD_INVF_SKIPPED;
        dispatch(c, ib->op, ib, 1, wl);
    }
}

/* Take ib out of its queue for good.  If a plain receiver gave up on it
 * because it was pinned (SKIPPED), the next one in line is offered now, or
 * that receiver would wait for an invocation that is already there. */
void inq_take(opcls *c, mpd_invb *ib, wakelist *wl)
{
    opq *q = op_queue(ib->op);
    int skipped = ib->flags & MPD_INVF_SKIPPED;
    inq_remove(c, q, ib);
    if (skipped && q->head && !q->head->pins)
        dispatch(c, ib->op, q->head, 1, wl);
}

/* Destroying an op: answer every pending invocation (its invoker is
 * released; a send is dropped). */
void in_purge(mpd_op *op)
{
    opq *q = op_queue(op);
    opcls *c = cls_lock(q->cls);
    mpd_invb *list = NULL, **tail = &list;
    for (mpd_invb *ib = q->head, *n; ib; ib = n) {
        n = ib->next;
        if (ib->pins)
            continue; /* a scanner holds it: leave it queued */
        inq_remove(c, q, ib);
        *tail = ib;
        tail = &ib->next;
    }
    *tail = NULL;
    if (op_counted(op))
        __atomic_store_n(&q->count, 0, __ATOMIC_RELAXED);
    if (q->deferred) /* the op dies: nothing of it is offered any more */
        inq_defer_unlink(c, q);
    opk_release(&c->lk);
    while (list) {
        mpd_invb *n = list->next;
        inv_complete(list); /* answers its invoker; frees a send */
        list = n;
    }
}

/* Is w's process retired (its resource destroyed)? */
static int w_retired(const inwait *w)
{
    const opk_proc *o = w->proc ? mpd_proc_udata(w->proc) : NULL;
    return o && opk__retired(o);
}

/* What a destroy hands a process of its resource that it takes out of a
 * waiter list: nothing, so the process ends without giving anything back
 * (mpd__in_killed, in_general_killed). */
mpd_invb opk__killed_blk;

/* Take w, a retired process's waiter (c locked), out of its list; it is
 * woken (inq_wake_all) and ends, giving nothing back. */
static void w_end_retired(opcls *c, inwait *w, wakelist *wl)
{
    inq_w_unlink(c, w);
    w->got = &opk__killed_blk;
    wake_add(wl, w);
}

/* r was destroyed: its ops are dead and its processes retired.  Wake those
 * of its processes that wait on its ops -- a server in `in`, a `receive`,
 * a P -- so they end as MPD ends them and their stacks go back, instead of
 * staying parked for the rest of the program.  Returns how many. */
int in_wake_retired(mpd_res *r)
{
    int n = 0;
    for (uint32_t i = 0; i < r->nops; i++) {
        opq *q = op_queue(&r->ops[i]);
        if (!q || op_kind(&r->ops[i]) == MPD_OPK_ALIAS)
            continue;
        wakelist wl = {NULL};
        opcls *c = cls_lock(q->cls);
        for (inwait *w = q->wfirst, *nx; w; w = nx) {
            nx = w->next;
            if (w_retired(w)) {
                w_end_retired(c, w, &wl);
                n++;
            }
        }
        for (inwait *w = c->wfirst, *nx; w; w = nx) {
            nx = w->next;
            if (w->in && w_retired(w)) {
                w_end_retired(c, w, &wl);
                n++;
            }
        }
        opk_release(&c->lk);
        inq_wake_all(&wl);
    }
    return n;
}

/* The processes of destroyed r waiting on another object's op (a receive
 * on a global's op, a P on an imported semaphore, an input statement on a
 * capability): MPD takes a killed process out of the queue it waits in, so
 * each is taken out of its list under the list's lock and ends.  Found by
 * a look at every process (rare: only when the destroy accounts for fewer
 * of r's processes than it has). */
static void retire_one(mpd_proc *p, void *arg)
{
    struct mpd__proc_hot *h = (struct mpd__proc_hot *)(void *)p;
    opk_proc *o = __atomic_load_n(&h->udata, __ATOMIC_ACQUIRE);
    if (!o || __atomic_load_n(&o->home, __ATOMIC_RELAXED) != (mpd_res *)arg)
        return;
    inwait *w = __atomic_load_n(&h->wait, __ATOMIC_ACQUIRE);
    opcls *c0 = __atomic_load_n(&h->waitcls, __ATOMIC_RELAXED);
    if (!w)
        return;
    if (!c0) { /* the inline P of mpd/handoff.h: one VP */
        if (!mpd_rt_single() || !w->own)
            return;
        c0 = w->own->cls;
    }
    wakelist wl = {NULL};
    opcls *c = cls_lock(c0);
    /* still registered there (whoever takes it out clears `wait` under
     * this lock), and still r's (the region may serve a new process) */
    o = __atomic_load_n(&h->udata, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&h->wait, __ATOMIC_ACQUIRE) == w &&
        (__atomic_load_n(&h->waitcls, __ATOMIC_RELAXED) == c0 || mpd_rt_single()) && o &&
        __atomic_load_n(&o->home, __ATOMIC_RELAXED) == (mpd_res *)arg && w->proc == p)
        w_end_retired(c, w, &wl);
    opk_release(&c->lk);
    inq_wake_all(&wl);
}

void in_retire_parked(mpd_res *r)
{
    mpd_rt_foreach_proc(retire_one, r);
}

/* A process woken in an input statement or P on op, its resource destroyed
 * while it waited (in_killed_check): MPD takes a killed process out of the
 * queue it waits in, so nothing handed to it may be lost.  A unit goes
 * back to op as a V; an invocation arrives again (at the op it was sent
 * to), or is answered if that op died meanwhile. */
void inq_give_back(mpd_invb *got)
{
    if (op_kind(got->op) == MPD_OPK_INPUT)
        in_arrive(got->op, got);
    else
        mpd_in_done(got);
}

void mpd__in_killed(mpd_op *op, mpd_invb *got)
{
    if (!opk_self_retired())
        return;
    if (got == &opk__killed_blk) {            /* taken out by the destroy */
    } else if (!got || got == &mpd__semblk) { /* a unit (NULL: own list) */
        if (op_kind(op) == MPD_OPK_INPUT)
            in_token(op); /* a V's work, untraced: nobody wrote this V */
    } else {
        inq_give_back(got);
    }
    opk_exit();
}
