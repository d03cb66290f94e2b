/* opsem.c: P and V on an op -- MPD's semaphores, and P/V used on any input
 * op.  A semaphore is an input op whose invocations carry nothing, kept as
 * a count while no statement needs them as a queue (opint.h, COUNTED); with
 * one VP a P and a V meet in the op's own waiter list (SEM1).  The inline
 * halves are in the generated code (mpd/abi/ops.h, mpd/abi/handoff.h); these
 * are the out-of-line ones.
 */
#include "opint.h"
#include "mpd/abi/trace.h"
#include "opfast.h"
#include "inqueue.h"

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
    /* a held counted op's SEM1 is suspended while held (word below the
     * marker: opint.h, hc1) */
    return opq_word(q) >= OPQ_WAITING && !atomic_load_explicit(&q->cls->fwd, memory_order_relaxed);
}

static void op_P_general(const char *F, int L, mpd_op *op);
void mpd_trc_P_begin(const char *F, int L, mpd_op *op); /* trace.c */
void mpd_trc_P_end(const char *F, int L, mpd_op *op);
void mpd_trc_V(const char *F, int L, mpd_op *op);

/* P while MPD_TRACE or the timeline watches: the trace's events, or the
 * timeline's wait and who passed it. */
static __attribute__((noinline, cold)) void watch_P(const char *F, int L, mpd_op *op)
{
    if (mpd_trc_on) {
        mpd_trc_P_begin(F, L, op);
        op_P_general(F, L, op);
        mpd_trc_P_end(F, L, op);
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
        inwait w; /* in, rescan: never read for own-list waiters */
        w.got = NULL;
        w.holding = 0;
        w.proc = opk_self_on(&vp);
        inq_w_link(q->cls, &w, q);
        int sw = opk_park_self_nokill(vp, w.proc, F, L);
        if (w.holding) /* a held counted op (opint.h, hc1) */
            inq_hold_end(q->cls, &w);
        in_killed_check(op, w.got);
        if (__builtin_expect(w.got != NULL, 0) && w.got != &mpd__semblk)
            mpd_in_done(w.got); /* the op became a queue meanwhile */
        return OPK_SRET(NULL, sw);
    }
    op_P_general(F, L, op);
    return OPK_SRET(NULL, 0);
}

/* P of a semaphore that is not SEM1, or of any other op. */
static void op_P_general(const char *F, int L, mpd_op *op)
{
    opq *q;
    if (op_kind(op) == MPD_OPK_INPUT && op_counted(op)) { /* a semaphore */
        q = op_queue(op);
        opcls *c = cls_lock(q->cls);
        /* an op MPD does not make a semaphore, its class held by a woken
         * process: wait for the class, as every input statement does */
        if (__builtin_expect(c->holds != NULL, 0) && q->grp && hold_held(c, q->grp))
            c = inq_hold_wait(c, q->grp, F, L);
        if (op_counted(op)) {
            if (opq_sem_count(q)) {
                __atomic_store_n(&q->count, q->count - 1, __ATOMIC_RELAXED);
                opk_release(&c->lk);
                return;
            }
            /* wait in the op's own list; a V hands over its token (in_token) */
            w_retired_exit(c);
            inwait w;
            inwait_start(&w, NULL); /* own-list waiters are never examined */
            w_append_own(c, &w, q);
            opk_park_waiter_nokill(&c->lk, F, L);
            if (w.holding) /* an op that became a queue: in_arrive held it */
                inq_hold_end(c, &w);
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

void mpd__op_V_untraced(const char *F, int L, mpd_op *op);

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
        if (q->grp) /* a held counted op: w holds its class */
            hold_give(q->cls, w, q->grp);
        opk_wake(w->proc);
        return;
    }
    if (op_kind(op) == MPD_OPK_INPUT && op_counted(op)) {
        in_token(op);
        return;
    }
    inv_send_none(F, L, op);
}
