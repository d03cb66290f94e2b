/* inselect.c: the input statement and receive -- which arm takes which
 * invocation (the oldest acceptable one; st/by arms evaluated by callbacks)
 * and the waiting when none is acceptable.  The queues and the arrivals it
 * waits for are inqueue.c.
 *
 * Design (see docs/ops.md):
 *  - Plain arms look only at queue heads.  st/by arms evaluate callbacks
 *    with the class lock released; the invocation under evaluation is pinned
 *    so that it cannot vanish.  Arms whose st/by read only the invocation
 *    (st_pure) re-examine only arrivals newer than what they already saw.
 *  - The common statement (one plain arm on one op: receive) is inline in
 *    mpd_in_wait and may switch there (opfast.h).
 */
#include "opint.h"
#include "mpd/abi/trace.h"
#include "opfast.h"
#include "inqueue.h"

/* An arm's candidate.  `order` is the arrival number of the oldest
 * acceptable invocation of its op: the oldest order wins among arms, and
 * for an arm with `by` the chosen invocation is the one of that op with
 * the least by value (MPD's rule: quantified arms take the op first). */
typedef struct cand {
    mpd_invb *ib;
    uint64_t order;
    uint32_t arm, k;
    int pinned; /* we hold a pin on ib */
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
        while (b->dq) { /* deferred arrivals too */
            opq *q = b->dq;
            b->dq = q->dnext;
            q->dnext = a->dq;
            a->dq = q;
        }
        while (b->holds) { /* held classes and their waiters move too */
            inwait *h = b->holds;
            b->holds = h->hnext;
            h->hnext = a->holds;
            a->holds = h;
        }
        if (b->hwfirst) {
            b->hwfirst->prev = a->hwlast;
            if (a->hwlast)
                a->hwlast->next = b->hwfirst;
            else
                a->hwfirst = b->hwfirst;
            a->hwlast = b->hwlast;
            b->hwfirst = b->hwlast = NULL;
        }
        if (b->seq > a->seq)
            a->seq = b->seq;
        a->gen++;
        b->gen++;
        a->absorbed = 1; /* b's ops now lock a: keep a's object */
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
static void scan_arm(opcls **cp, mpd_in *in, uint32_t a, uint64_t seen, uint64_t upto, cand *best,
                     wakelist *wl)
{
    opcls *c = *cp;
    const mpd_arm *ar = &in->arms[a];
    for (uint32_t k = 0; k < ar->n; k++) {
        mpd_op *op = ar->ops[k];
        if (op_kind(op) != MPD_OPK_INPUT)
            continue;
        uint64_t first = 0;    /* oldest acceptable of this op */
        mpd_invb *pick = NULL; /* pinned */
        double pickkey = 0;
        mpd_invb *ib = op_queue(op)->head;
        while (ib) {
            if (!first && best->ib && best->order < ib->seq)
                break; /* this op cannot beat the candidate */
            if (upto && ib->seq > upto)
                break; /* arrived after the wake-up (arrivals queue in order) */
            if (ib->seq <= seen) {
                ib = ib->next;
                continue;
            }
            ib->pins++;
            opk_release(&c->lk);
            int ok;
            double key = 0;
            if (pick && ar->has_st && ar->has_by) {
                /* as MPD 1.0.1: once there is a candidate, `by` first, and
                 * `st` only for an invocation that would beat it (so st and
                 * by run as many times, in the same order, as there) */
                key = in->by(in->env, a, k, ib);
                ok = key < pickkey && in->st(in->env, a, k, ib);
            } else {
                ok = ar->has_st ? in->st(in->env, a, k, ib) : 1;
                key = (ok && ar->has_by) ? in->by(in->env, a, k, ib) : 0;
            }
            c = *cp = cls_lock(c);
            int take = ok && (!pick || key < pickkey);
            if (ok && !first)
                first = ib->seq;
            if (take) {
                if (pick)
                    inq_unpin(c, pick, wl);
                pick = ib;
                pickkey = key;
            }
            mpd_invb *next = ib->next; /* ib still queued: pinned */
            if (!take)
                inq_unpin(c, ib, wl);
            if (ok && !ar->has_by)
                break;
            ib = next;
        }
        if (!pick)
            continue;
        if (!best->ib || first < best->order) {
            if (best->ib)
                inq_unpin(c, best->ib, wl);
            best->ib = pick;
            best->order = first;
            best->arm = a;
            best->k = k;
            best->pinned = 1;
        } else {
            inq_unpin(c, pick, wl);
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
    if (c->holds && hold_held(c, in_grp(in)))
        c = inq_hold_wait(c, in_grp(in), F, L);
    mpd_op *op0 = in->arms[0].ops[0];
    if (in->narms == 1 && in->arms[0].n == 1 && op_counted(op0)) {
        opq *q = op_queue(op0);
        if (opq_sem_count(q)) { /* P: take a token */
            __atomic_store_n(&q->count, q->count - 1, __ATOMIC_RELAXED);
            opk_release(&c->lk);
            in->arm = in->k = 0;
            return &mpd__semblk;
        }
    }
    mpd_invb *ib = plain_heads(in, &arm, &k);
    if (ib) {
        wakelist wl = {NULL};
        inq_take(c, ib, &wl);
        opk_release(&c->lk);
        inq_wake_all(&wl);
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
    inq_w_append(c, &w);
    opk_park_waiter_nokill(&c->lk, F, L);
    if (w.holding)
        inq_hold_end(c, &w);
    in_killed_check(op0, w.got);
    in->arm = w.arm;
    in->k = w.k;
    return w.got ? w.got : &mpd__semblk; /* NULL: a unit (own list) */
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
            if (op_kind(op) == MPD_OPK_INPUT && op_queue(op)->tail &&
                op_queue(op)->tail->seq > seq0)
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
__attribute__((always_inline)) static inline mpd_invb *in_wait_one(const char *F, int L, mpd_in *in,
                                                                   mpd_op *op, long *sw)
{
    opq *q = op_queue(op);
    opcls *c = cls_lock(q->cls);
    if (__builtin_expect(c->holds != NULL, 0) && hold_held(c, q->grp)) /* held: wait */
        c = inq_hold_wait(c, q->grp, F, L);
    in->arm = in->k = 0;
    if (op_counted(op) && opq_sem_count(q)) { /* P: take a token */
        __atomic_store_n(&q->count, q->count - 1, __ATOMIC_RELAXED);
        opk_release(&c->lk);
        return &mpd__semblk;
    }
    mpd_invb *ib = q->head;
    if (ib && !ib->pins) {
        wakelist wl = {NULL};
        inq_take(c, ib, &wl);
        opk_release(&c->lk);
        inq_wake_all(&wl);
        return ib;
    }
    if (ib) /* pinned by a scanner: wait for it */
        ib->flags |= MPD_INVF_SKIPPED;
    if (in->has_else) {
        opk_release(&c->lk);
        return NULL;
    }
    w_retired_exit(c);
    inwait w;
    inwait_start(&w, in);
    inq_w_link(c, &w, q);
    if (mpd_rt_single()) {
        mpd_vp *vp;
        mpd_proc *self = opk_self_on(&vp);
        *sw = opk_park_self_nokill(vp, self, F, L);
    } else {
        opk_park_waiter_nokill(&c->lk, F, L);
    }
    /* woken by an arrival holding the class, or its resource destroyed:
     * one test for both on the way out (the rend row) */
    if (__builtin_expect(w.holding | __atomic_load_n(&opk__any_killed, __ATOMIC_RELAXED), 0)) {
        if (w.holding)
            hold_end(op_queue(op)->cls, &w);
        in_killed_check(op, w.got);
    }
    in->arm = w.arm;
    in->k = w.k;
    return w.got ? w.got : &mpd__semblk; /* NULL: a unit (own list) */
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
    mpd_invb *ib =
        in_is_one(in) ? in_wait_one(F, L, in, in->arms[0].ops[0], &sw) : in_wait_general(F, L, in);
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
    if (!c) { /* only noop arms */
        if (in->has_else)
            return NULL;
        opk_event ev;
        opk_event_init(&ev);
        opk_event_wait(&ev, F, L); /* forever */
        return NULL;
    }
    int one = in->narms == 1 && in->arms[0].n == 1 && !in_has_cond(in);
    if (!one) {
        int counted = 0;
        for (uint32_t a = 0; a < in->narms; a++)
            for (uint32_t k = 0; k < in->arms[a].n; k++)
                counted |=
                    op_kind(in->arms[a].ops[k]) == MPD_OPK_INPUT && op_counted(in->arms[a].ops[k]);
        if (counted) {
            c = cls_lock(c);
            inq_uncount(c, in);
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
    w.holding = 0;
    w.proc = mpd_self();
    w.in = in;
    uint64_t seen = 0, upto = 0; /* upto: a `by` chooses among what was there when it was woken */
    int retries = 0;
    wakelist wl = {NULL};
    cand cands[8], *cv = in->narms <= 8 ? cands : malloc(in->narms * sizeof *cv);
    if (!cv)
        mpd_rts_fatal("out of memory");
    mpd_invb *result = NULL;
    c = cls_lock(c);
    if (c->holds && hold_held(c, in_grp(in)))
        c = inq_hold_wait(c, in_grp(in), F, L);
    for (;;) {
        uint64_t seq0 = c->seq, bound = upto;
        for (uint32_t a = 0; a < in->narms; a++) {
            cv[a].ib = NULL;
            cv[a].pinned = 0;
        }
        /* the first look of a process an arrival woke sees what was there
         * when it was woken, ?op included (MPD keeps later arrivals aside
         * until it has looked) */
        __atomic_store_n(&c->hbound, bound, __ATOMIC_RELAXED);
        /* st/by arms first: they release the lock */
        for (uint32_t a = 0; a < in->narms; a++)
            if (in->arms[a].has_st || in->arms[a].has_by)
                scan_arm(&c, in, a, all_pure ? seen : 0, upto, &cv[a], &wl);
        /* plain arms: queue heads */
        uint32_t parm = 0, pk = 0;
        mpd_invb *ph = plain_heads(in, &parm, &pk);
        if (ph && upto && ph->seq > upto)
            ph = NULL; /* came after the wake-up */
        upto = 0;
        __atomic_store_n(&c->hbound, 0, __ATOMIC_RELAXED);
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
                    inq_unpin(c, cv[a].ib, &wl);
            continue;
        }
        /* drop the losers' pins first: another arm of this statement may
         * have pinned the winning invocation too (two arms on one op), and
         * that pin must not count as someone else judging it */
        for (uint32_t a = 0; a < in->narms; a++) {
            if (!cv[a].pinned || &cv[a] == win)
                continue;
            if (win && cv[a].ib == win->ib)
                cv[a].ib->pins--; /* still pinned or about to be taken */
            else
                inq_unpin(c, cv[a].ib, &wl);
        }
        int blocked_by_pin = win && win->ib->pins > (win->pinned ? 1 : 0);
        if (blocked_by_pin && win->pinned)
            inq_unpin(c, win->ib, &wl);
        if (win && !blocked_by_pin) {
            result = win->ib;
            if (win->pinned)
                result->pins--;
            inq_take(c, result, &wl);
            in->arm = win->arm;
            in->k = win->k;
            break;
        }
        if (!win && bound && c->seq > bound) {
            seen = 0; /* nothing in the first look: now the later arrivals */
            continue;
        }
        if (blocked_by_pin) {
            win->ib->flags |= MPD_INVF_SKIPPED;
            seen = 0; /* look at it again when offered */
        } else {
            seen = seq0;
        }
        if (in->has_else && !blocked_by_pin)
            break; /* result NULL: the else arm */
        if (arrived_since(in, seq0))
            continue;   /* something came while unlocked */
        if (wl.first) { /* wake others first, then look again */
            opk_release(&c->lk);
            inq_wake_all(&wl);
            c = cls_lock(c);
            continue;
        }
        if (__builtin_expect(__atomic_load_n(&opk__any_killed, __ATOMIC_RELAXED), 0) &&
            opk_self_retired() && cv != cands)
            free(cv);
        w_retired_exit(c);
        w.got = NULL;
        w.rescan = 0;
        inq_w_append(c, &w); /* registered and parked atomically */
        opk_park_waiter_nokill(&c->lk, F, L);
        if (w.holding) { /* woken by an arrival holding the class */
            upto = w.got ? 0 : w.hseq;
            inq_hold_end(c, &w);
        }
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
    inq_wake_all(&wl);
    if (cv != cands)
        free(cv);
    return result;
}

static mpd_invb *receive_tl(const char *F, int L, mpd_op *op);
static mpd_invb *receive_locked(const char *F, int L, mpd_op *op);

/* receive when compaction looks at this message (core/compact.c) */
static __attribute__((noinline, cold)) mpd_invb *receive_sampled(const char *F, int L, mpd_op *op)
{
    talk_sample(op);
    if (__builtin_expect(mpd__tl_on, 0))
        return receive_tl(F, L, op);
    return receive_locked(F, L, op);
}

mpd_invb *mpd_receive_op(const char *F, int L, mpd_op *op)
{
    if (mpd__compact && talk_note()) /* compaction's triggers and trials (core/compact.c) */
        return receive_sampled(F, L, op);
    if (__builtin_expect(mpd__tl_on, 0))
        return receive_tl(F, L, op);
    /* One VP, a queue whose head is free and no hold in its lock class:
     * take the head with no lock and no call, so that this path keeps no
     * frame (the general one below saved six registers for every
     * receive; a pipeline's stage drains its queue here). */
    if (mpd_rt_single() && op_kind(op) == MPD_OPK_INPUT && !op_counted(op)) {
        opq *q = op_queue(op);
        opcls *c = cls_root(q->cls);
        mpd_invb *ib = q->head;
        if (ib && !ib->pins && !c->holds) {
            inq_remove_head(q, ib);
            return ib;
        }
    }
    return receive_locked(F, L, op);
}

/* The rest of receive: several VPs, a semaphore, a pinned head or a held
 * class, or nothing queued (then it waits as an input statement); also
 * after compaction's look (receive_sampled, which skips the fast path
 * above: this one has it with the lock). */
static __attribute__((noinline)) mpd_invb *receive_locked(const char *F, int L, mpd_op *op)
{
    if (op_kind(op) == MPD_OPK_INPUT) { /* fast path: the head is free */
        opq *q = op_queue(op);
        opcls *c = cls_lock(q->cls);
        if (op_counted(op) && opq_sem_count(q)) {
            __atomic_store_n(&q->count, q->count - 1, __ATOMIC_RELAXED);
            opk_release(&c->lk);
            return &mpd__semblk;
        }
        mpd_invb *ib = q->head;
        if (ib && !ib->pins && !(c->holds && hold_held(c, q->grp))) { /* held: in_wait_one waits */
            inq_remove(c, q, ib);
            opk_release(&c->lk);
            return ib;
        }
        opk_release(&c->lk);
    }
    mpd_op *ops[1] = {op};
    mpd_arm arm = {ops, 1, 0, 0, 0, 0};
    mpd_in in = {&arm, 1, 0, NULL, NULL, NULL, 0, 0};
    return mpd_in_wait(F, L, &in);
}

/* receive while the timeline records: a receive is an input statement
 * (in_wait_tl), told what it waits for. */
static __attribute__((noinline, cold)) mpd_invb *receive_tl(const char *F, int L, mpd_op *op)
{
    mpd__tl_wait_for(TL_WHY_RECEIVE, (uintptr_t)op);
    mpd_op *ops[1] = {op};
    mpd_arm arm = {ops, 1, 0, 0, 0, 0};
    mpd_in in = {&arm, 1, 0, NULL, NULL, NULL, 0, 0};
    return in_wait_tl(F, L, &in);
}

mpd_op *mpd_in_cap(const char *F, int L, mpd_cap c)
{
    mpd_op *op = inv_resolve(F, L, c, 1);
    if (op_kind(op) == MPD_OPK_PROC)
        mpd_rts_abort(F, L, "cannot input from a proc operation");
    return op;
}

/* The same for a statement with st/by arms, woken while its resource was
 * destroyed: its ops are never counted, so got is an invocation handed to a
 * plain arm, or NULL (woken to look again: nothing to give back). */
static void in_general_killed(mpd_invb *got, cand *cv, cand *cands)
{
    if (!__builtin_expect(__atomic_load_n(&opk__any_killed, __ATOMIC_RELAXED), 0) ||
        !opk_self_retired())
        return;
    if (cv != cands)
        free(cv);
    if (got && got != &opk__killed_blk)
        inq_give_back(got);
    opk_exit();
}
