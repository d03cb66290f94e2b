/* in.c: input statements -- per-op invocation queues, arrival dispatch, and the in/receive selection.
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
 *  - Plain arms look only at queue heads.  st/by arms evaluate callbacks
 *    with the class lock released; the invocation under evaluation is pinned
 *    so that it cannot vanish.  Arms whose st/by read only the invocation
 *    (st_pure) re-examine only arrivals newer than what they already saw.
 */
#include "opint.h"
#include "mpd/abi/trace.h"
#include "opfast.h"

/* ---- queue primitives (class lock held) -------------------------------- */

static void q_push(opq *q, mpd_invb *ib)
{
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

static void q_remove(opq *q, mpd_invb *ib)
{
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

/* The op a statement waits on if it is one plain arm on one op, else NULL:
 * such waiters go in the op's own list, so an arrival finds them at once. */
static mpd_op *single_op(const mpd_in *in)
{
    if (in->narms == 1 && in->arms[0].n == 1 && !in->arms[0].has_st && !in->arms[0].has_by)
        return in->arms[0].ops[0];
    return NULL;
}

/* A process registered in a waiter list says where (its record and the
 * list's class lock), and the one that takes it out says it no longer is:
 * so a destroy can find a process of its resource waiting on another
 * object's op (retire_parked) and take it out under that lock. */
static inline struct mpd__proc_hot *w_hot(const inwait *w)
{
    return (struct mpd__proc_hot *)(void *)w->proc;
}
static inline void w_mark(inwait *w, opcls *c)
{
    __atomic_store_n(&w_hot(w)->waitcls, (void *)c, __ATOMIC_RELAXED);
    __atomic_store_n(&w_hot(w)->wait, (void *)w, __ATOMIC_RELEASE);
}
static inline void w_unmark(inwait *w)
{
    __atomic_store_n(&w_hot(w)->wait, NULL, __ATOMIC_RELAXED);
}

/* Register w at the end of the op list `own` (NULL: the class's list). */
static void w_link(opcls *c, inwait *w, opq *own)
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

/* A waiter record about to be registered: nothing handed over yet (a
 * waiter in an op's own list may be handed a unit by a V that leaves got
 * NULL and arm, k 0: mpd/abi/handoff.h). */
static inline void inwait_start(inwait *w, mpd_in *in)
{
    w->got = NULL;
    w->arm = w->k = 0;
    w->rescan = 0;
    w->proc = mpd_self();
    w->in = in;
}

/* About to wait, with c locked (c NULL: one VP, no lock): a process whose
 * resource was destroyed while it got here ends instead.  Nothing was
 * handed to it, and it is in no list yet: a destroy wakes the waiters it
 * finds (in_wake_retired) under the class lock, so one that comes after
 * it sees the process retired here.  Otherwise it would wait for good. */
static inline void w_retired_exit(opcls *c)
{
    if (__builtin_expect(__atomic_load_n(&opk__any_killed, __ATOMIC_RELAXED), 0) && opk_self_retired()) {
        if (c)
            opk_release(&c->lk);
        opk_exit();
    }
}

static void w_append(opcls *c, inwait *w)
{
    mpd_op *op = single_op(w->in);
    w_link(c, w, op && op_kind(op) == MPD_OPK_INPUT ? op_queue(op) : NULL);
}

/* A P waiting on semaphore op q alone. */
static void w_append_own(opcls *c, inwait *w, opq *q)
{
    w_link(c, w, q);
}

static void w_unlink(opcls *c, inwait *w)
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

/* Waiters to wake once the class lock is released. */
typedef struct wakelist { inwait *first; } wakelist;

static void wake_add(wakelist *wl, inwait *w)
{
    w->next = wl->first;
    wl->first = w;
}

static void wake_all(wakelist *wl)
{
    inwait *w = wl->first;
    while (w) {
        inwait *n = w->next;    /* read before waking: w dies after */
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
        q_remove(op_queue(op), ib);
    ib->state = INV_TAKEN;
    w_unlink(c, w);
    w->got = ib;
    w->arm = arm;
    w->k = k;
    wake_add(wl, w);
    return 1;
}

/* Something became available at op: wake the waiters with st/by on it. */
static void wake_cond(opcls *c, mpd_op *op, wakelist *wl)
{
    uint32_t arm, k;
    c->gen++;
    for (inwait *w = c->wfirst, *n; w; w = n) {
        n = w->next;
        if (w_covers(w, op, 0, &arm, &k)) {
            w_unlink(c, w);
            w->rescan = 1;
            wake_add(wl, w);
        }
    }
}

/* ib is available at op (new, or just unpinned).  If a waiter with a plain
 * arm on op exists, hand ib to it; else make sure it is queued and wake the
 * st/by waiters on op. */
static void dispatch(opcls *c, mpd_op *op, mpd_invb *ib, int queued, wakelist *wl)
{
    if ((c->wfirst || op_queue(op)->wfirst) && handoff(c, op, ib, queued, wl))
        return;
    if (!queued)
        q_push(op_queue(op), ib);
    if (c->wfirst)
        wake_cond(c, op, wl);
    else
        c->gen++;
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
mpd_invb mpd__semblk = { sizeof(mpd_invb), MPD_INV_SEND, INV_TAKEN, 0, MPD_INVF_ANSWERED,
                       0, 0, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0 };

void in_token(mpd_op *op)
{
    opq *q = op_queue(op);
    wakelist wl = { NULL };
    opcls *c = cls_lock(q->cls);
    if (!op_counted(op)) {              /* it became a queue meanwhile */
        opk_release(&c->lk);
        in_arrive(op, token_block());
        return;
    }
    c->seq++;
    inwait *w = q->wfirst;
    if (w && !c->wfirst) {              /* the common case: a P waits */
        mpd_proc *p = w->proc;
        w_unlink(c, w);
        w->got = &mpd__semblk;
        w->arm = w->k = 0;
        opk_release(&c->lk);
        mpd_unpark(p);
        return;
    }
    if (!(c->wfirst || q->wfirst) || !handoff(c, op, &mpd__semblk, 0, &wl)) {
        opq_sem_add1(q);
        c->gen++;
    }
    opk_release(&c->lk);
    wake_all(&wl);
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
    op_clear_flags(op, MPD_OPF_COUNTED | MPD_OPF_SEM1);
    __atomic_store_n(&q->count, 0, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < n; i++) {
        mpd_invb *b = token_block();
        b->op = op;
        b->seq = ++c->seq;
        q_push(q, b);
    }
}

static void uncount(opcls *c, const mpd_in *in)
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

void in_arrive(mpd_op *op, mpd_invb *ib)
{
    wakelist wl = { NULL };
    ib->op = op;
    ib->pins = 0;
    opcls *c = cls_lock(op_queue(op)->cls);
    ib->seq = ++c->seq;
    dispatch(c, op, ib, 0, &wl);
    opk_release(&c->lk);
    wake_all(&wl);
}

/* A call of an input op: deliver the invoker's own block; the invoker then
 * parks until it is answered.  Returns the class, locked (unless one VP):
 * the lock is held from the arrival until the invoker is switched out, so
 * the answer (which takes that lock first, see inv_answer) can never come
 * before the park; on one VP there is no lock and nothing can run in
 * between anyway. */
opcls *in_arrive_call(mpd_op *op, mpd_invb *ib)
{
    wakelist wl = { NULL };
    ib->op = op;
    ib->pins = 0;
    opq *q = op_queue(op);
    opcls *c = cls_lock(q->cls);
    ib->seq = ++c->seq;
    inwait *w = q->wfirst;
    if (w && !c->wfirst) {          /* the common case: a receiver waits */
        ib->state = INV_TAKEN;
        w_unlink(c, w);
        w->got = ib;
        w->arm = w->k = 0;
        opk_wake(w->proc);          /* does not switch: safe here */
    } else {
        dispatch(c, op, ib, 0, &wl);
        wake_all(&wl);
    }
    return c;
}

void in_answer_barrier(mpd_op *op)
{
    opcls *c = cls_lock(op_queue(op)->cls);
    opk_release(&c->lk);
}

/* Drop one pin; if someone skipped ib meanwhile, offer it again. */
static void unpin(opcls *c, mpd_invb *ib, wakelist *wl)
{
    if (--ib->pins == 0 && (ib->flags & MPD_INVF_SKIPPED)) {
        ib->flags &= ~MPD_INVF_SKIPPED;
        dispatch(c, ib->op, ib, 1, wl);
    }
}

/* Take ib out of its queue for good.  If a plain receiver gave up on it
 * because it was pinned (SKIPPED), the next one in line is offered now, or
 * that receiver would wait for an invocation that is already there. */
static void take(opcls *c, mpd_invb *ib, wakelist *wl)
{
    opq *q = op_queue(ib->op);
    int skipped = ib->flags & MPD_INVF_SKIPPED;
    q_remove(q, ib);
    if (skipped && q->head && !q->head->pins)
        dispatch(c, ib->op, q->head, 1, wl);
}

/* ---- the selection ------------------------------------------------------ */

/* An arm's candidate.  `order` is the arrival number of the oldest
 * acceptable invocation of its op: the oldest order wins among arms, and
 * for an arm with `by` the chosen invocation is the one of that op with
 * the least by value (MPD's rule: quantified arms take the op first). */
typedef struct cand {
    mpd_invb *ib;
    uint64_t  order;
    uint32_t  arm, k;
    int       pinned;       /* we hold a pin on ib */
} cand;

/* Merge class b into class a (an input statement spans both): from now on
 * they are one class, so one lock and one waiter list cover its ops. */
static opcls *cls_merge(opcls *a, opcls *b)
{
    for (;;) {
        a = cls_root(a);
        b = cls_root(b);
        if (a == b)
            return a;
        opcls *lo = a < b ? a : b, *hi = a < b ? b : a;
        opk_acquire(&lo->lk);
        opk_acquire(&hi->lk);
        if (atomic_load(&a->fwd) || atomic_load(&b->fwd)) {
            opk_release(&hi->lk);
            opk_release(&lo->lk);
            continue;
        }
        if (b->wfirst) {
            b->wfirst->prev = a->wlast;
            if (a->wlast)
                a->wlast->next = b->wfirst;
            else
                a->wfirst = b->wfirst;
            a->wlast = b->wlast;
            b->wfirst = b->wlast = NULL;
        }
        if (b->seq > a->seq)
            a->seq = b->seq;
        a->gen++;
        b->gen++;
        a->absorbed = 1;            /* b's ops now lock a: keep a's object */
        atomic_store_explicit(&b->fwd, a, memory_order_release);
        opk_release(&hi->lk);
        opk_release(&lo->lk);
        return a;
    }
}

static opcls *in_class(const char *F, int L, const mpd_in *in)
{
    opcls *c = NULL;
    for (uint32_t a = 0; a < in->narms; a++)
        for (uint32_t i = 0; i < in->arms[a].n; i++) {
            mpd_op *op = in->arms[a].ops[i];
            if (op_kind(op) == MPD_OPK_NOOP)
                continue;
            if (op_kind(op) == MPD_OPK_PROC)
                mpd_rts_abort(F, L, "cannot input from a proc operation");
            if (op_kind(op) != MPD_OPK_INPUT)
                opk_dead_op(F, L, op);
            opcls *oc = cls_root(op_queue(op)->cls);
            c = (c && oc != c) ? cls_merge(c, oc) : oc;
        }
    return c;
}

/* Scan arm a (with st/by) of in, under lock c (released around callbacks).
 * Updates *best (pinned).  seen: only invocations with seq > seen are
 * examined (0 = all). */
static void scan_arm(opcls **cp, mpd_in *in, uint32_t a, uint64_t seen, cand *best, wakelist *wl)
{
    opcls *c = *cp;
    const mpd_arm *ar = &in->arms[a];
    for (uint32_t k = 0; k < ar->n; k++) {
        mpd_op *op = ar->ops[k];
        if (op_kind(op) != MPD_OPK_INPUT)
            continue;
        uint64_t first = 0;         /* oldest acceptable of this op */
        mpd_invb *pick = NULL;      /* pinned */
        double pickkey = 0;
        mpd_invb *ib = op_queue(op)->head;
        while (ib) {
            if (!first && best->ib && best->order < ib->seq)
                break;              /* this op cannot beat the candidate */
            if (ib->seq <= seen) {
                ib = ib->next;
                continue;
            }
            ib->pins++;
            opk_release(&c->lk);
            int ok = ar->has_st ? in->st(in->env, a, k, ib) : 1;
            double key = (ok && ar->has_by) ? in->by(in->env, a, k, ib) : 0;
            c = *cp = cls_lock(c);
            int take = ok && (!pick || key < pickkey);
            if (ok && !first)
                first = ib->seq;
            if (take) {
                if (pick)
                    unpin(c, pick, wl);
                pick = ib;
                pickkey = key;
            }
            mpd_invb *next = ib->next;      /* ib still queued: pinned */
            if (!take)
                unpin(c, ib, wl);
            if (ok && !ar->has_by)
                break;
            ib = next;
        }
        if (!pick)
            continue;
        if (!best->ib || first < best->order) {
            if (best->ib)
                unpin(c, best->ib, wl);
            best->ib = pick;
            best->order = first;
            best->arm = a;
            best->k = k;
            best->pinned = 1;
        } else {
            unpin(c, pick, wl);
        }
    }
}

/* The oldest head over the plain arms of in (lock held), or NULL.  A head
 * pinned by a scanner (being judged by another statement's st) is not
 * passed over: as in MPD, invocations are taken in order, so if it is the
 * oldest the statement waits; it is marked SKIPPED and offered again when
 * unpinned (or its successor is, when the scanner takes it). */
static mpd_invb *plain_heads(const mpd_in *in, uint32_t *barm, uint32_t *bk)
{
    mpd_invb *best = NULL, *pinned = NULL;
    for (uint32_t a = 0; a < in->narms; a++) {
        const mpd_arm *ar = &in->arms[a];
        if (ar->has_st || ar->has_by)
            continue;
        for (uint32_t k = 0; k < ar->n; k++) {
            mpd_op *op = ar->ops[k];
            if (op_kind(op) != MPD_OPK_INPUT)
                continue;
            mpd_invb *ib = op_queue(op)->head;
            if (!ib)
                continue;
            if (ib->pins) {
                ib->flags |= MPD_INVF_SKIPPED;
                if (!pinned || ib->seq < pinned->seq)
                    pinned = ib;
            } else if (!best || ib->seq < best->seq) {
                best = ib;
                *barm = a;
                *bk = k;
            }
        }
    }
    return best && (!pinned || best->seq < pinned->seq) ? best : NULL;
}

/* An input statement whose arms are all plain: take the oldest head, or
 * wait to be handed an arrival (plain waiters are only woken that way). */
static mpd_invb *in_wait_plain(const char *F, int L, mpd_in *in, opcls *c)
{
    uint32_t arm = 0, k = 0;
    c = cls_lock(c);
    mpd_op *op0 = in->arms[0].ops[0];
    if (in->narms == 1 && in->arms[0].n == 1 && op_counted(op0)) {
        opq *q = op_queue(op0);
        if (opq_sem_count(q)) {         /* P: take a token */
            __atomic_store_n(&q->count, q->count - 1, __ATOMIC_RELAXED);
            opk_release(&c->lk);
            in->arm = in->k = 0;
            return &mpd__semblk;
        }
    }
    mpd_invb *ib = plain_heads(in, &arm, &k);
    if (ib) {
        wakelist wl = { NULL };
        take(c, ib, &wl);
        opk_release(&c->lk);
        wake_all(&wl);
        in->arm = arm;
        in->k = k;
        return ib;
    }
    if (in->has_else) {
        opk_release(&c->lk);
        return NULL;
    }
    w_retired_exit(c);
    inwait w;
    inwait_start(&w, in);
    w_append(c, &w);
    opk_park_waiter_nokill(&c->lk, F, L);
    in_killed_check(op0, w.got);
    in->arm = w.arm;
    in->k = w.k;
    return w.got ? w.got : &mpd__semblk;    /* NULL: a unit (own list) */
}

/* Did an invocation newer than seq0 arrive at an op of an st/by arm?
 * (Arrivals at other ops of the class do not concern this statement.) */
static int arrived_since(const mpd_in *in, uint64_t seq0)
{
    for (uint32_t a = 0; a < in->narms; a++) {
        const mpd_arm *ar = &in->arms[a];
        if (!ar->has_st && !ar->has_by)
            continue;
        for (uint32_t k = 0; k < ar->n; k++) {
            mpd_op *op = ar->ops[k];
            if (op_kind(op) == MPD_OPK_INPUT && op_queue(op)->tail && op_queue(op)->tail->seq > seq0)
                return 1;
        }
    }
    return 0;
}

static int in_has_cond(const mpd_in *in)
{
    for (uint32_t a = 0; a < in->narms; a++)
        if (in->arms[a].has_st || in->arms[a].has_by)
            return 1;
    return 0;
}

/* The common statement: one plain arm on one input op (receive, `in op()
 * -> ... ni`, with or without else).  The same as in_wait_plain with the
 * scans of several arms left out. */
__attribute__((always_inline))
static inline mpd_invb *in_wait_one(const char *F, int L, mpd_in *in, mpd_op *op, long *sw)
{
    opq *q = op_queue(op);
    opcls *c = cls_lock(q->cls);
    in->arm = in->k = 0;
    if (op_counted(op) && opq_sem_count(q)) {   /* P: take a token */
        __atomic_store_n(&q->count, q->count - 1, __ATOMIC_RELAXED);
        opk_release(&c->lk);
        return &mpd__semblk;
    }
    mpd_invb *ib = q->head;
    if (ib && !ib->pins) {
        wakelist wl = { NULL };
        take(c, ib, &wl);
        opk_release(&c->lk);
        wake_all(&wl);
        return ib;
    }
    if (ib)                             /* pinned by a scanner: wait for it */
        ib->flags |= MPD_INVF_SKIPPED;
    if (in->has_else) {
        opk_release(&c->lk);
        return NULL;
    }
    w_retired_exit(c);
    inwait w;
    inwait_start(&w, in);
    w_link(c, &w, q);
    if (mpd_rt_single()) {
        mpd_vp *vp;
        mpd_proc *self = opk_self_on(&vp);
        *sw = opk_park_self_nokill(vp, self, F, L);
    } else {
        opk_park_waiter_nokill(&c->lk, F, L);
    }
    in_killed_check(op, w.got);
    in->arm = w.arm;
    in->k = w.k;
    return w.got ? w.got : &mpd__semblk;    /* NULL: a unit (own list) */
}

static mpd_invb *in_wait_general(const char *F, int L, mpd_in *in);
static mpd_invb *in_wait_cond(const char *F, int L, mpd_in *in, opcls *c);
static void in_cond_count(const mpd_in *in, int d);
static void in_general_killed(mpd_invb *got, cand *cv, cand *cands);

/* The input statement (see OPK_SWITCH_RETURN for the body/entry split). */
static inline int in_is_one(const mpd_in *in)
{
    return in->narms == 1 && in->arms[0].n == 1 && !in->arms[0].has_st && !in->arms[0].has_by &&
           op_kind(in->arms[0].ops[0]) == MPD_OPK_INPUT;
}

/* The input statement while the timeline records: what it waits for, and
 * the invocation it takes.  (The one-VP inline switches are off then, so
 * it may wait in the functions it calls.) */
static __attribute__((noinline, cold)) mpd_invb *in_wait_tl(const char *F, int L, mpd_in *in)
{
    if (!mpd__tl_why)
        mpd__tl_wait_for(TL_WHY_IN, 0);
    long sw = 0;
    mpd_invb *ib = in_is_one(in) ? in_wait_one(F, L, in, in->arms[0].ops[0], &sw) : in_wait_general(F, L, in);
    mpd__tl_take(F, L, ib);
    return ib;
}

OPK_BODY opk_sret mpd__in_wait_body(const char *F, int L, mpd_in *in)
{
    if (__builtin_expect(mpd__tl_on, 0))
        return OPK_SRET(in_wait_tl(F, L, in), 0);
    if (in_is_one(in)) {
        long sw = 0;
        mpd_invb *ib = in_wait_one(F, L, in, in->arms[0].ops[0], &sw);
        return OPK_SRET(ib, sw);
    }
    return OPK_SRET(in_wait_general(F, L, in), 0);
}

#if OPK_HAVE_SWITCH_RETURN
__attribute__((naked)) mpd_invb *mpd_in_wait(const char *F OPK_UNUSED, int L OPK_UNUSED,
                                             mpd_in *in OPK_UNUSED)
{
    OPK_SWITCH_RETURN(mpd__in_wait_body);
}
#else
mpd_invb *mpd_in_wait(const char *F, int L, mpd_in *in)
{
    return mpd__in_wait_body(F, L, in).v;
}
#endif

static mpd_invb *in_wait_general(const char *F, int L, mpd_in *in)
{

    opcls *c = in_class(F, L, in);
    if (!c) {                           /* only noop arms */
        if (in->has_else)
            return NULL;
        opk_event ev;
        opk_event_init(&ev);
        opk_event_wait(&ev, F, L);      /* forever */
        return NULL;
    }
    int one = in->narms == 1 && in->arms[0].n == 1 && !in_has_cond(in);
    if (!one) {
        int counted = 0;
        for (uint32_t a = 0; a < in->narms; a++)
            for (uint32_t k = 0; k < in->arms[a].n; k++)
                counted |= op_kind(in->arms[a].ops[k]) == MPD_OPK_INPUT && op_counted(in->arms[a].ops[k]);
        if (counted) {
            c = cls_lock(c);
            uncount(c, in);
            opk_release(&c->lk);
        }
    }
    if (!in_has_cond(in))
        return in_wait_plain(F, L, in, c);
    in_cond_count(in, 1);
    mpd_invb *r = in_wait_cond(F, L, in, c);
    in_cond_count(in, -1);
    return r;
}

/* A statement with st/by keeps its arms' ops across switches (it rescans
 * them when woken, and pins invocations while it evaluates st): the
 * objects holding them count it, and are not freed meanwhile (op.c). */
static void in_cond_count(const mpd_in *in, int d)
{
    for (uint32_t a = 0; a < in->narms; a++)
        for (uint32_t k = 0; k < in->arms[a].n; k++) {
            mpd_res *o = in->arms[a].ops[k]->owner;
            if (!o)
                continue;
            if (mpd_rt_single())
                res_rt(o)->in_cond += d;
            else
                __atomic_fetch_add(&res_rt(o)->in_cond, d, __ATOMIC_RELAXED);
        }
}

static mpd_invb *in_wait_cond(const char *F, int L, mpd_in *in, opcls *c)
{
    int all_pure = 1;
    for (uint32_t a = 0; a < in->narms; a++)
        if (in->arms[a].has_st || in->arms[a].has_by)
            all_pure &= in->arms[a].st_pure;
    inwait w;
    w.next = w.prev = NULL;
    w.got = NULL;
    w.arm = w.k = 0;
    w.rescan = 0;
    w.proc = mpd_self();
    w.in = in;
    uint64_t seen = 0;
    int retries = 0;
    wakelist wl = { NULL };
    cand cands[8], *cv = in->narms <= 8 ? cands : malloc(in->narms * sizeof *cv);
    if (!cv)
        mpd_rts_fatal("out of memory");
    mpd_invb *result = NULL;
    c = cls_lock(c);
    for (;;) {
        uint64_t seq0 = c->seq;
        for (uint32_t a = 0; a < in->narms; a++) {
            cv[a].ib = NULL;
            cv[a].pinned = 0;
        }
        /* st/by arms first: they release the lock */
        for (uint32_t a = 0; a < in->narms; a++)
            if (in->arms[a].has_st || in->arms[a].has_by)
                scan_arm(&c, in, a, all_pure ? seen : 0, &cv[a], &wl);
        /* plain arms: queue heads */
        uint32_t parm = 0, pk = 0;
        mpd_invb *ph = plain_heads(in, &parm, &pk);
        if (ph) {
            cv[parm].ib = ph;
            cv[parm].order = ph->seq;
            cv[parm].arm = parm;
            cv[parm].k = pk;
        }
        /* the oldest candidate wins */
        cand *win = NULL;
        for (uint32_t a = 0; a < in->narms; a++)
            if (cv[a].ib && (!win || cv[a].order < win->order))
                win = &cv[a];
        /* st/by that read shared state judged a changing queue: look again
         * (a bounded number of times) so the choice is made on one state */
        if (win && win->pinned && !all_pure && arrived_since(in, seq0) && retries < 3) {
            retries++;
            for (uint32_t a = 0; a < in->narms; a++)
                if (cv[a].pinned)
                    unpin(c, cv[a].ib, &wl);
            continue;
        }
        /* drop the losers' pins first: another arm of this statement may
         * have pinned the winning invocation too (two arms on one op), and
         * that pin must not count as someone else judging it */
        for (uint32_t a = 0; a < in->narms; a++) {
            if (!cv[a].pinned || &cv[a] == win)
                continue;
            if (win && cv[a].ib == win->ib)
                cv[a].ib->pins--;       /* still pinned or about to be taken */
            else
                unpin(c, cv[a].ib, &wl);
        }
        int blocked_by_pin = win && win->ib->pins > (win->pinned ? 1 : 0);
        if (blocked_by_pin && win->pinned)
            unpin(c, win->ib, &wl);
        if (win && !blocked_by_pin) {
            result = win->ib;
            if (win->pinned)
                result->pins--;
            take(c, result, &wl);
            in->arm = win->arm;
            in->k = win->k;
            break;
        }
        if (blocked_by_pin) {
            win->ib->flags |= MPD_INVF_SKIPPED;
            seen = 0;                   /* look at it again when offered */
        } else {
            seen = seq0;
        }
        if (in->has_else && !blocked_by_pin)
            break;                      /* result NULL: the else arm */
        if (arrived_since(in, seq0))
            continue;                   /* something came while unlocked */
        if (wl.first) {                 /* wake others first, then look again */
            opk_release(&c->lk);
            wake_all(&wl);
            c = cls_lock(c);
            continue;
        }
        if (__builtin_expect(__atomic_load_n(&opk__any_killed, __ATOMIC_RELAXED), 0) &&
            opk_self_retired() && cv != cands)
            free(cv);
        w_retired_exit(c);
        w.got = NULL;
        w.rescan = 0;
        w_append(c, &w);                /* registered and parked atomically */
        opk_park_waiter_nokill(&c->lk, F, L);
        in_general_killed(w.got, cv, cands);
        c = cls_lock(c);
        if (w.got) {
            result = w.got;
            in->arm = w.arm;
            in->k = w.k;
            break;
        }
    }
    opk_release(&c->lk);
    wake_all(&wl);
    if (cv != cands)
        free(cv);
    return result;
}

static mpd_invb *receive_tl(const char *F, int L, mpd_op *op);

mpd_invb *mpd_receive_op(const char *F, int L, mpd_op *op)
{
    if (__builtin_expect(mpd__tl_on, 0))
        return receive_tl(F, L, op);
    if (op_kind(op) == MPD_OPK_INPUT) {    /* fast path: the head is free */
        opq *q = op_queue(op);
        opcls *c = cls_lock(q->cls);
        if (op_counted(op) && opq_sem_count(q)) {
            __atomic_store_n(&q->count, q->count - 1, __ATOMIC_RELAXED);
            opk_release(&c->lk);
            return &mpd__semblk;
        }
        mpd_invb *ib = q->head;
        if (ib && !ib->pins) {
            q_remove(q, ib);
            opk_release(&c->lk);
            return ib;
        }
        opk_release(&c->lk);
    }
    mpd_op *ops[1] = { op };
    mpd_arm arm = { ops, 1, 0, 0, 0, 0 };
    mpd_in in = { &arm, 1, 0, NULL, NULL, NULL, 0, 0 };
    return mpd_in_wait(F, L, &in);
}

/* receive while the timeline records: a receive is an input statement
 * (in_wait_tl), told what it waits for. */
static __attribute__((noinline, cold)) mpd_invb *receive_tl(const char *F, int L, mpd_op *op)
{
    mpd__tl_wait_for(TL_WHY_RECEIVE, (uintptr_t)op);
    mpd_op *ops[1] = { op };
    mpd_arm arm = { ops, 1, 0, 0, 0, 0 };
    mpd_in in = { &arm, 1, 0, NULL, NULL, NULL, 0, 0 };
    return in_wait_tl(F, L, &in);
}

mpd_op *mpd_in_cap(const char *F, int L, mpd_cap c)
{
    mpd_op *op = inv_resolve(F, L, c, 1);
    if (op_kind(op) == MPD_OPK_PROC)
        mpd_rts_abort(F, L, "cannot input from a proc operation");
    return op;
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
            continue;           /* a scanner holds it: leave it queued */
        q_remove(q, ib);
        *tail = ib;
        tail = &ib->next;
    }
    *tail = NULL;
    if (op_counted(op))
        __atomic_store_n(&q->count, 0, __ATOMIC_RELAXED);
    opk_release(&c->lk);
    while (list) {
        mpd_invb *n = list->next;
        inv_complete(list);     /* answers its invoker; frees a send */
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
 * woken (wake_all) and ends, giving nothing back. */
static void w_end_retired(opcls *c, inwait *w, wakelist *wl)
{
    w_unlink(c, w);
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
        wakelist wl = { NULL };
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
        wake_all(&wl);
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
    if (!c0) {                      /* the inline P of mpd/handoff.h: one VP */
        if (!mpd_rt_single() || !w->own)
            return;
        c0 = w->own->cls;
    }
    wakelist wl = { NULL };
    opcls *c = cls_lock(c0);
    /* still registered there (whoever takes it out clears `wait` under
     * this lock), and still r's (the region may serve a new process) */
    o = __atomic_load_n(&h->udata, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&h->wait, __ATOMIC_ACQUIRE) == w &&
        (__atomic_load_n(&h->waitcls, __ATOMIC_RELAXED) == c0 || mpd_rt_single()) &&
        o && __atomic_load_n(&o->home, __ATOMIC_RELAXED) == (mpd_res *)arg &&
        w->proc == p)
        w_end_retired(c, w, &wl);
    opk_release(&c->lk);
    wake_all(&wl);
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
static void give_back_invocation(mpd_invb *got)
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
    if (got == &opk__killed_blk) {          /* taken out by the destroy */
    } else if (!got || got == &mpd__semblk) {   /* a unit (NULL: own list) */
        if (op_kind(op) == MPD_OPK_INPUT)
            mpd__op_V_slow(NULL, 0, op);
    } else {
        give_back_invocation(got);
    }
    opk_exit();
}

/* The same for a statement with st/by arms, woken while its resource was
 * destroyed: its ops are never counted, so got is an invocation handed to a
 * plain arm, or NULL (woken to look again: nothing to give back). */
static void in_general_killed(mpd_invb *got, cand *cv, cand *cands)
{
    if (!__builtin_expect(__atomic_load_n(&opk__any_killed, __ATOMIC_RELAXED), 0) || !opk_self_retired())
        return;
    if (cv != cands)
        free(cv);
    if (got && got != &opk__killed_blk)
        give_back_invocation(got);
    opk_exit();
}

/* ---- semaphore-style P and V on any op ---------------------------------- */

/* One VP and a live counted op (MPD_OPF_SEM1) whose class was never
 * merged: no lock, no class-wide waiter can cover it (statements with
 * several ops or st/by uncount their ops first), so P and V meet in the
 * op's own waiter list.  These are the blocking P and the waking V of a
 * semaphore handoff, kept short; anything else takes the general paths
 * below. */
static inline int sem1(mpd_op *op, opq **qp)
{
    if (!(op_flags(op) & MPD_OPF_SEM1))
        return 0;
    opq *q = op_queue(op);
    *qp = q;
    return !atomic_load_explicit(&q->cls->fwd, memory_order_relaxed);
}

static void op_P_general(const char *F, int L, mpd_op *op);
void mpd_trc_P(const char *F, int L, mpd_op *op);     /* trace.c */
void mpd_trc_V(const char *F, int L, mpd_op *op);

/* P while MPD_TRACE or the timeline watches: the trace's events, or the
 * timeline's wait and who passed it. */
static __attribute__((noinline, cold)) void watch_P(const char *F, int L, mpd_op *op)
{
    if (mpd_trc_on) {
        mpd_trc_P(F, L, op);
        return;
    }
    int sem = op_counted(op);
    mpd__tl_wait_for(sem ? TL_WHY_SEM : TL_WHY_RECEIVE, (uintptr_t)op);
    op_P_general(F, L, op);
    if (sem)
        mpd__tl_rec(TL_P, mpd__tl_self(), (uintptr_t)op, F, L);
}

/* P of op when the inline P found no token. */
OPK_BODY opk_sret mpd__op_P_body(const char *F, int L, mpd_op *op)
{
    opq *q;
    if (__builtin_expect(mpd__watch_on, 0)) {
        /* traced or recorded: never SEM1 (op.c), so never the inline park below */
        watch_P(F, L, op);
        return OPK_SRET(NULL, 0);
    }
    if (__builtin_expect(sem1(op, &q), 1) && !opq_sem_count(q)) {
        mpd_vp *vp;
        w_retired_exit(NULL);
        inwait w;                   /* in, rescan: never read for own-list waiters */
        w.got = NULL;
        w.proc = opk_self_on(&vp);
        w_link(q->cls, &w, q);
        int sw = opk_park_self_nokill(vp, w.proc, F, L);
        in_killed_check(op, w.got);
        if (__builtin_expect(w.got != NULL, 0) && w.got != &mpd__semblk)
            mpd_in_done(w.got);     /* the op became a queue meanwhile */
        return OPK_SRET(NULL, sw);
    }
    op_P_general(F, L, op);
    return OPK_SRET(NULL, 0);
}

/* P of a semaphore that is not SEM1, or of any other op. */
static void op_P_general(const char *F, int L, mpd_op *op)
{
    opq *q;
    if (op_kind(op) == MPD_OPK_INPUT && op_counted(op)) {     /* a semaphore */
        q = op_queue(op);
        opcls *c = cls_lock(q->cls);
        if (op_counted(op)) {
            if (opq_sem_count(q)) {
                __atomic_store_n(&q->count, q->count - 1, __ATOMIC_RELAXED);
                opk_release(&c->lk);
                return;
            }
            /* wait in the op's own list; a V hands over its token (in_token) */
            w_retired_exit(c);
            inwait w;
            inwait_start(&w, NULL);  /* own-list waiters are never examined */
            w_append_own(c, &w, q);
            opk_park_waiter_nokill(&c->lk, F, L);
            in_killed_check(op, w.got);
            /* a token (NULL or mpd__semblk); or, if the op became a
             * queue meanwhile, a block */
            if (w.got && w.got != &mpd__semblk)
                mpd_in_done(w.got);
            return;
        }
        opk_release(&c->lk);
    }
    mpd_in_done(mpd_receive_op(F, L, op));
}

#if OPK_HAVE_SWITCH_RETURN
__attribute__((naked)) void mpd__op_P_slow(const char *F OPK_UNUSED, int L OPK_UNUSED,
                                           mpd_op *op OPK_UNUSED)
{
    OPK_SWITCH_RETURN(mpd__op_P_body);
}
#else
void mpd__op_P_slow(const char *F, int L, mpd_op *op)
{
    (void)mpd__op_P_body(F, L, op);
}
#endif

void mpd__op_P_untraced(const char *F, int L, mpd_op *op);
void mpd__op_V_untraced(const char *F, int L, mpd_op *op);

/* P without its trace (trace.c writes receive's IN/ARM/NI instead). */
void mpd__op_P_untraced(const char *F, int L, mpd_op *op)
{
    op_P_general(F, L, op);
}

static __attribute__((noinline, cold)) void watch_V(const char *F, int L, mpd_op *op)
{
    if (mpd_trc_on)
        mpd_trc_V(F, L, op);
    else if (op_counted(op))
        mpd__tl_rec(TL_V, mpd__tl_self(), (uintptr_t)op, F, L);
}

void mpd__op_V_slow(const char *F, int L, mpd_op *op)
{
    if (__builtin_expect(mpd__watch_on, 0))
        watch_V(F, L, op);
    mpd__op_V_untraced(F, L, op);
}

void mpd__op_V_untraced(const char *F, int L, mpd_op *op)
{
    opq *q;
    inwait *w;
    if (__builtin_expect(sem1(op, &q), 1) && (w = q->wfirst) && !q->cls->wfirst) {
        inwait *n = w->next;
        q->wfirst = n;
        if (n) {
            n->prev = NULL;
        } else {
            q->wlast = NULL;
            opq_unmark_if_empty(q);
        }
        w_unmark(w);
        w->got = &mpd__semblk;
        w->arm = w->k = 0;
        q->cls->seq++;
        opk_wake(w->proc);
        return;
    }
    if (op_kind(op) == MPD_OPK_INPUT && op_counted(op)) {
        in_token(op);
        return;
    }
    inv_send_none(F, L, op);
}
