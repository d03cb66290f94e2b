/* inhold.c: operation classes held by one process at a time (MPD 1.0.1's
 * and SR 2.3.3's rule; docs/ops.md, "Held operation classes").
 *
 * An arrival that wakes a process blocked in an input statement gives it
 * the op's class (hold_give in inqueue.h: handoff, wake_cond,
 * in_arrive_call); a process that starts an input statement on a held
 * class -- in, receive, a P of an op that is not a semaphore, with or
 * without else -- waits here until the class is passed to it; the woken
 * process drops the hold as soon as it runs (inq_hold_end), in the
 * critical section in which it takes its invocation or starts its scan,
 * and the class goes to the oldest statement that waited for it, which
 * drops it in turn when it runs.  So with p blocked in `receive a(x)` and
 * q doing `send b(); send a(7); receive b()` (a, b one class), p takes its
 * 7 before q takes its b.
 *
 * Holds live in the class's `holds` list (the holders' own inwait records,
 * on their stacks until they run); the list is empty except between a
 * wake-up and the woken process's next run, so an input statement pays one
 * test of it.  Everything here runs with the class lock held.
 */
#include "opint.h"
#include "mpd/abi/trace.h"
#include "core/timeline.h"
#include "opfast.h"
#include "inqueue.h"

/* Class group g of c is no longer held: pass it on. */
static void hold_pass(opcls *c, uintptr_t g)
{
    /* what arrived during the hold goes first to the statements that
     * waited before it (MPD puts them ahead of those that came during it) */
    if (c->dq) {
        wakelist wl = {NULL};
        inq_offer_deferred(c, &wl);
        for (inwait *x = wl.first, *n; x; x = n) {
            n = x->next;       /* read before waking: x dies after */
            opk_wake(x->proc); /* does not switch: safe under the lock */
        }
        if (hold_held(c, g))
            return; /* passed to a waiter of the old arrivals first */
    }
    /* the statements that started while it was held: with invocations
     * queued, the oldest gets the class to look at them; with none, MPD
     * lets them all wait as any statement, unwoken and holding nothing (so
     * an arrival now is counted and offered in their order) */
    int avail = *grp_count(g) != 0;
    for (inwait *e = c->hwfirst, *n; e; e = n) {
        n = e->next;
        if (e->hgrp != g)
            continue;
        if (e->prev)
            e->prev->next = e->next;
        else
            c->hwfirst = e->next;
        if (e->next)
            e->next->prev = e->prev;
        else
            c->hwlast = e->prev;
        e->next = e->prev = NULL;
        if (avail) {
            hold_give(c, e, g);
            e->rescan = HOLD_LOOK;
        }
        opk_wake(e->proc); /* does not switch: safe under the lock */
        if (avail)
            return;
    }
}

void inq_hold_drop(opcls *c, inwait *w)
{
    inwait **pp = &c->holds;
    while (*pp && *pp != w)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = w->hnext;
    w->holding = 0;
    if (!hold_held(c, w->hgrp)) /* else another woken process still holds it */
        hold_pass(c, w->hgrp);
    hold_ended(c, w->hgrp);
}

void inq_hold_end(opcls *c0, inwait *w)
{
    opcls *c = cls_lock(c0);
    if (c->holds == w && !w->hnext && !c->hwfirst && !c->dq) { /* the common case */
        c->holds = NULL;
        w->holding = 0;
        hold_ended(c, w->hgrp);
    } else {
        inq_hold_drop(c, w);
    }
    opk_release(&c->lk);
}

opcls *inq_hold_wait(opcls *c, uintptr_t grp, const char *F, int L)
{
    while (grp && hold_held(c, grp)) {
        w_retired_exit(c);
        inwait e;
        e.in = NULL;
        e.own = NULL;
        e.got = NULL;
        e.holding = 0;
        e.rescan = 0;
        e.hgrp = grp;
        e.proc = mpd_self();
        e.next = NULL;
        e.prev = c->hwlast;
        if (c->hwlast)
            c->hwlast->next = &e;
        else
            c->hwfirst = &e;
        c->hwlast = &e;
        opk_park_waiter_nokill(&c->lk, F, L);
        c = cls_lock(c);
        /* woken holding the class (inq_hold_drop): the statement goes on
         * in this critical section, so the hold is dropped at once (and
         * passed on: the next one waits until this one releases the lock) */
        if (e.holding) {
            inq_hold_drop(c, &e);
            w_retired_exit(c); /* its resource was destroyed meanwhile */
            break;
        }
    }
    return c;
}

void hold_sem1_back(opcls *c, uintptr_t grp)
{
    opq *q = grp_alone_q(grp);
    mpd_op *op = q->op;
    /* suspended (the flag kept, the word below the marker), and live */
    if (op_kind(op) != MPD_OPK_INPUT || !(op_flags(op) & MPD_OPF_SEM1) ||
        opq_word(q) >= OPQ_WAITING || !mpd_rt_single() || hold_held(c, grp) || q->deferred ||
        (q->wfirst && opq_sem_count(q)) || atomic_load_explicit(&c->fwd, memory_order_relaxed))
        return;
    for (const inwait *e = c->hwfirst; e; e = e->next)
        if (e->hgrp == grp)
            return;
    opq_sem1_resume(q);
}

/* The inline P's end of a hold (mpd/abi/handoff.h). */
void mpd__hold_end_h1(mpd_op *op, struct mpd__inwait_h1 *w)
{
    inq_hold_end(op_queue(op)->cls, (inwait *)(void *)w);
}

/* The arrivals class group grp of c (locked) has counted for ?op: while
 * woken statements hold it, those up to the oldest hold's start (MPD keeps
 * later ones aside until the holder has run); 0: all of them. */
static uint64_t held_bound(const opcls *c, uintptr_t grp)
{
    uint64_t b = 0;
    for (const inwait *h = c->holds; h; h = h->hnext)
        if (h->hgrp == grp && h->rescan != HOLD_IDLE && (!b || h->hseq < b))
            b = h->hseq;
    return b;
}

/* ?op of an input op.  MPD 1.0.1 counts an invocation from its arrival
 * until an input statement takes it -- one handed straight to a woken
 * statement too, until that statement runs -- but not those that arrive
 * while a woken statement holds the class, until it has run; a woken
 * holder's first look (hbound: inselect.c) sees what had arrived when it
 * was woken. */
int in_pending(mpd_op *op)
{
    opq *q = op_queue(op);
    opcls *c = cls_lock(q->cls);
    uint64_t bound = c->hbound ? c->hbound : held_bound(c, q->grp);
    int n;
    if (op_counted(op) || (!bound && !c->holds)) {
        n = (int)opq_sem_count(q);
    } else {
        n = 0;
        for (mpd_invb *ib = q->head; ib && (!bound || ib->seq <= bound); ib = ib->next)
            n++;
        for (const inwait *h = c->holds; h; h = h->hnext)
            if (h->got && h->got != &mpd__semblk && h->got->op == op &&
                (!bound || h->got->seq <= bound))
                n++;
    }
    /* a unit a V handed to a woken P of a held counted op (or of one that
     * became a queue since) counts until that process has run: one in its
     * own list, handed &mpd__semblk (or NULL by the inline V) */
    for (const inwait *h = c->holds; h; h = h->hnext)
        if (h->own == q && (!h->got || h->got == &mpd__semblk))
            n++;
    opk_release(&c->lk);
    return n;
}
