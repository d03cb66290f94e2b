/* inqueue.h: the waiter lists and queue primitives that the arrival side
 * (inqueue.c), the selection (inselect.c) and the semaphores (opsem.c)
 * share.  Private to those three files; every call here is made with the
 * op's class lock held (opint.h, cls_lock), or on one VP with no lock.
 * Not part of the ABI. */
#ifndef MPD_LANG_INQUEUE_H
#define MPD_LANG_INQUEUE_H
#include "opint.h"

/* Waiters to wake once the class lock is released. */
typedef struct wakelist {
    inwait *first;
} wakelist;

/* inqueue.c */
void inq_remove(opcls *c, opq *q, mpd_invb *ib); /* out of q (class c); TAKEN */
/* inq_remove of q's head ib when its class has no hold (holds NULL: no
 * hold to idle), inline for one VP's receive. */
static inline void inq_remove_head(opq *q, mpd_invb *ib)
{
    if (q->grp)
        --*grp_count(q->grp);
    mpd_invb *n = ib->next;
    q->head = n;
    if (n)
        n->prev = NULL;
    else
        q->tail = NULL;
    ib->next = NULL;
    ib->state = INV_TAKEN;
    ib->flags &= ~MPD_INVF_SKIPPED;
    __atomic_store_n(&q->count, q->count - 1, __ATOMIC_RELAXED);
}
void inq_w_link(opcls *c, inwait *w, opq *own); /* own NULL: the class's list */
void inq_w_unlink(opcls *c, inwait *w);
void inq_w_append(opcls *c, inwait *w);               /* the list its statement belongs in */
void inq_take(opcls *c, mpd_invb *ib, wakelist *wl);  /* out of its queue for good */
void inq_unpin(opcls *c, mpd_invb *ib, wakelist *wl); /* drop a scanner's pin */
void inq_wake_all(wakelist *wl);                      /* after the lock is released */
void inq_uncount(opcls *c, const mpd_in *in);         /* in's counted ops become queues */
void inq_give_back(mpd_invb *got);                    /* a killed waiter's invocation */

/* The op a statement waits on if it is one plain arm on one op, else NULL:
 * such waiters go in the op's own list, so an arrival finds them at once. */
static inline mpd_op *single_op(const mpd_in *in)
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

/* A waiter record about to be registered: nothing handed over yet (a
 * waiter in an op's own list may be handed a unit by a V that leaves got
 * NULL and arm, k 0: mpd/abi/handoff.h). */
static inline void inwait_start(inwait *w, mpd_in *in)
{
    w->got = NULL;
    w->arm = w->k = 0;
    w->rescan = 0;
    w->holding = 0;
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
    if (__builtin_expect(__atomic_load_n(&opk__any_killed, __ATOMIC_RELAXED), 0) &&
        opk_self_retired()) {
        if (c)
            opk_release(&c->lk);
        opk_exit();
    }
}

/* A P waiting on semaphore op q alone. */
static inline void w_append_own(opcls *c, inwait *w, opq *q)
{
    inq_w_link(c, w, q);
}

/* ---- held operation classes (inhold.c) ----------------------------------
 * MPD's rule: a process an arrival wakes in an input statement holds the
 * op's class until it runs; any other process that starts an input
 * statement on that class meanwhile waits behind it.  The waker gives the
 * hold (c locked); the woken process drops it as soon as it runs, in the
 * critical section where it starts its look, and the class passes to the
 * first statement that waited for it. */
static inline void hold_give(opcls *c, inwait *w, uintptr_t grp)
{
    w->holding = 1;
    w->hgrp = grp;
    w->hseq = c->seq; /* ?op counts the arrivals up to here (in_pending) */
    w->hnext = c->holds;
    c->holds = w;
    /* a held counted op's SEM1 is suspended while held: its inline P and
     * V, which do not look at the class, go out of line (hold_sem1_back) */
    if (grp & OPQ_GRP_ALONE) {
        opq *q = grp_alone_q(grp);
        if (__builtin_expect(q->hc1, 0))
            opq_sem1_suspend(q);
    }
}
/* A hold of class grp of c (locked) ended: a held counted op alone in it
 * becomes SEM1 again once nothing holds or waits for the class. */
void hold_sem1_back(opcls *c, uintptr_t grp);
static inline void hold_ended(opcls *c, uintptr_t grp)
{
    if ((grp & OPQ_GRP_ALONE) && __builtin_expect(grp_alone_q(grp)->hc1, 0))
        hold_sem1_back(c, grp);
}
void inq_hold_drop(opcls *c, inwait *w); /* c locked; passes the class on */
/* A statement that waited for a held class and is given it to look at
 * the queue (inq_hold_wait) has rescan HOLD_LOOK; HOLD_IDLE once the last
 * queued invocation was taken meanwhile (inqueue.c, hold_idle).  MPD
 * passes a class on only when its holder has taken its invocation, and
 * wakes nobody for an empty queue: arrivals during an idle hold are
 * counted by ?op (in_pending), though still offered in MPD's order; the
 * first one makes the hold a real one again (hold_wake_idle). */
enum { HOLD_LOOK = 2, HOLD_IDLE = 3 };
/* An arrival at q while its class is held (c locked): it waits in the
 * queue, offered to nobody until the hold ends. */
static inline void hold_defer(opcls *c, opq *q)
{
    if (!q->deferred) {
        q->deferred = 1;
        q->dnext = c->dq;
        c->dq = q;
    }
}
/* Offer the deferred arrivals of the classes no longer held (c locked). */
void inq_offer_deferred(opcls *c, wakelist *wl);
/* q is purged (c locked): out of the deferred list. */
void inq_defer_unlink(opcls *c, opq *q);
/* The woken w (holding) drops its hold: locks w's class c0 for it. */
void inq_hold_end(opcls *c0, inwait *w);
/* The same, inline for the common case: one VP, w the only holder and
 * nobody waiting for the class. */
static inline void hold_end(opcls *c, inwait *w)
{
    if (mpd_rt_single() && c->holds == w && !w->hnext && !c->hwfirst && !c->dq &&
        !atomic_load_explicit(&c->fwd, memory_order_relaxed)) {
        c->holds = NULL;
        w->holding = 0;
        hold_ended(c, w->hgrp);
    } else {
        inq_hold_end(c, w);
    }
}
/* Does a woken process hold class grp of c (locked)?  (Usually `holds` has
 * one entry, or none: callers test it first.) */
static inline int hold_held(const opcls *c, uintptr_t grp)
{
    for (const inwait *h = c->holds; h; h = h->hnext)
        if (h->hgrp == grp)
            return 1;
    return 0;
}
/* At the start of an input statement on class grp (c locked), which
 * hold_held says is held: wait until it is passed to this process.
 * Returns the class, locked. */
__attribute__((cold)) opcls *inq_hold_wait(opcls *c, uintptr_t grp, const char *F, int L);
/* The class of an input statement: that of its first input op. */
static inline uintptr_t in_grp(const mpd_in *in)
{
    for (uint32_t a = 0; a < in->narms; a++)
        for (uint32_t k = 0; k < in->arms[a].n; k++) {
            mpd_op *op = in->arms[a].ops[k];
            if (op_kind(op) == MPD_OPK_INPUT)
                return op_queue(op)->grp;
        }
    return 0;
}

static inline void wake_add(wakelist *wl, inwait *w)
{
    w->next = wl->first;
    wl->first = w;
}

#endif
