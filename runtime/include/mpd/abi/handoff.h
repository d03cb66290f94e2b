/* mpd/abi/handoff.h: the one-VP semaphore handoff, inline in generated code.
 *
 * A P that finds no token and a V that finds a waiter are, with one VP and
 * the FIFO scheduler, a few dozen loads and stores and one switch.  Done
 * out of line they cost three times that: a call, a body saving every
 * callee-saved register around the switch, a return trampoline.  Inline,
 * the switch sits in the process's own code, the compiler saves only what
 * is live across it, and no call or return is involved on either side.
 *
 * To stay inline this header mirrors the few runtime fields it touches
 * (the runtime static-asserts every offset: core/rt_internal.h,
 * lang/opint.h): a process's run-queue link, state and saved context, the
 * VP's post-switch action, the ready queue, and the op queue and waiter
 * records of lang/inqueue.h.  Anything unusual -- several VPs, another
 * scheduler, a remote wakeup or timer pending, no ready process, a
 * sanitizer build -- returns 0 and the caller takes the out-of-line path
 * (lang/opsem.c), which handles everything.
 * Internal to the runtime and the compiler's output: not a public API. */
#ifndef MPD_HANDOFF_H
#define MPD_HANDOFF_H

#if defined(__x86_64__) && !defined(MPD_NO_INLINE_HANDOFF) && !defined(MPD_NO_TLS_ASM) &&          \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#if defined(__has_feature)
#if !__has_feature(address_sanitizer) && !__has_feature(thread_sanitizer)
#define MPD__HANDOFF_INLINE 1
#endif
#else
#define MPD__HANDOFF_INLINE 1
#endif
#endif

#ifdef MPD__HANDOFF_INLINE
#include "mpd/abi/ctxjump.h"

/* The start of a process (core: struct mpd_proc). */
struct mpd__proc_h1 {
    struct mpd__proc_hot hot;
    struct mpd__proc_h1 *link; /* ready queue */
    int state;                 /* MPD__PS_* */
    void *ctx[2];              /* saved {sp, pc} */
};
enum { MPD__PS_READY, MPD__PS_RUNNING, MPD__PS_BLOCKED };
/* The start of a VP (core: struct mpd_vp). */
struct mpd__vp_h1 {
    struct mpd__vp_hot hot;
    int post_kind; /* 0: nothing left for the next context */
};
/* The FIFO scheduler's ready queue (core: runq). */
struct mpd__runq_h1 {
    mpd_spinlock lk;
    struct mpd__proc_h1 *head, *tail;
};
/* A blocked input statement (lang: inwait). */
struct mpd__inwait_h1 {
    struct mpd__inwait_h1 *next, *prev;
    void *in;
    struct mpd__proc_h1 *proc;
    mpd_invb *got;
    uint32_t arm, k;
    int rescan;
    int holding; /* never set for a semaphore's waiter (lang/inhold.c) */
    uint64_t ticket;
    struct mpd__opq_h1 *own;
    void *hnext;
    uintptr_t hgrp;
    uint64_t hseq;
};
/* The start of an op class (lang: opcls). */
struct mpd__cls_h1 {
    mpd_spinlock lk;
    void *fwd;
    uint64_t seq; /* arrival counter */
    uint64_t gen;
    void *wfirst, *wlast;
    uint64_t ticket;
    struct mpd__inwait_h1 *holds;            /* woken statements holding a class */
    struct mpd__inwait_h1 *hwfirst, *hwlast; /* waiting for a held class */
    void *dq;                                /* arrivals deferred by a hold */
};
/* An input op's queue (lang: opq). */
struct mpd__opq_h1 {
    uint64_t word; /* mpd/abi/ops.h: (fast << 32) | count */
    struct mpd__inwait_h1 *wfirst, *wlast;
    uintptr_t grp; /* its class (0: a semaphore, never held) */
    struct mpd__cls_h1 *cls;
};

extern struct mpd__runq_h1 mpd__rq_h1; /* the ready queue */
extern void *_Atomic mpd__inbox_h1;    /* remote wakeups pending */
extern atomic_long mpd__ntimers;       /* timers pending */
extern long mpd__slice_fresh;          /* a fresh slice (loop tops) */
extern _Thread_local long mpd__tls_slice;
extern int opk__any_killed;
extern mpd_invb mpd__semblk; /* the token a V hands a P */
void mpd__post_switch_h1(void);
void mpd__in_killed(mpd_op *op, mpd_invb *got);              /* lang/inqueue.c */
void mpd__hold_end_h1(mpd_op *op, struct mpd__inwait_h1 *w); /* lang/inhold.c */
int mpd__self_retired(void);                                 /* lang/opcore.c */

/* A SEM1 op is never in a class-wide waiter's statement (those turn their
 * ops into queues first), and a unit handed straight to a waiter never
 * enters a queue, so it needs no arrival number.  A waiter in the op's own
 * list is handed a unit by leaving its `got` NULL (the out-of-line paths
 * store &mpd__semblk, the same), its arm and k already 0.  Only an op that
 * MPD would not make a semaphore (grp set: lang/op.c, mpd_op_sem_held)
 * touches its class: the waiter a V wakes holds it until it runs, and
 * meanwhile the op's SEM1 is suspended (its word's `fast` half 0, the
 * flag kept), so every P and V of it takes the out-of-line paths, which
 * see the hold (lang/inhold.c). */

/* V of a semaphore op with waiters (its word is MPD__OPQ_WAITING, so
 * q->wfirst is set): hand the unit to the oldest and make it ready; the
 * last one leaves the word at count 0.  0: not done (another scheduler),
 * take the general path. */
__attribute__((always_inline)) static inline int mpd__v_handoff(struct mpd__opq_h1 *q)
{
    if (__builtin_expect(mpd__mode != MPD_MODE_HANDOFF, 0))
        return 0;
    struct mpd__inwait_h1 *w = q->wfirst, *n = w->next;
    q->wfirst = n;
    if (n) {
        n->prev = 0;
    } else {
        q->wlast = 0;
        q->word = MPD__OPQ_FAST1;
    }
    if (__builtin_expect(q->grp != 0, 0)) { /* held: w holds the class */
        struct mpd__cls_h1 *c = q->cls;
        w->holding = 1;
        w->hgrp = q->grp;
        w->hseq = ++c->seq; /* an arrival (?op counts up to it) */
        w->hnext = c->holds;
        c->holds = w;
        q->word = 0; /* SEM1 suspended while held: `fast` 0, count 0 */
    }
    struct mpd__proc_h1 *p = w->proc;
    p->hot.wait = 0; /* in no list now (lang/inqueue.c, inq_w_unlink) */
    p->state = MPD__PS_READY;
    p->link = 0;
    struct mpd__runq_h1 *rq = &mpd__rq_h1;
    if (rq->tail)
        rq->tail->link = p;
    else
        rq->head = p;
    rq->tail = p;
    return 1;
}

/* P of a semaphore op q with no unit (word MPD__OPQ_FAST1, or already
 * MPD__OPQ_WAITING): wait in q's own list, lowering the word to the marker,
 * and switch to the next ready process; a V hands over the unit.  Its
 * ticket is 0: it is older than any class-wide waiter that may come to
 * cover the op (that one turns the op into a queue first).  0: not done
 * (nothing ready, something pending, ...), take the general path. */
__attribute__((always_inline)) static inline int
mpd__p_handoff(const char *F, int L, mpd_op *op, struct mpd__opq_h1 *q, uint64_t word)
{
    struct mpd__runq_h1 *rq = &mpd__rq_h1;
    struct mpd__proc_h1 *next = rq->head;
    /* one test for "mode not HANDOFF (which is 0), a remote wakeup or a
     * timer pending" (the timer count is never negative) */
    if (__builtin_expect(
            !next || ((uintptr_t)mpd__mode |
                      (uintptr_t)atomic_load_explicit(&mpd__inbox_h1, memory_order_relaxed) |
                      (uintptr_t)atomic_load_explicit(&mpd__ntimers, memory_order_relaxed)) != 0,
            0))
        return 0;
    /* a process of a destroyed resource does not wait: the out-of-line P
     * ends it (lang/inqueue.h, w_retired_exit) */
    if (__builtin_expect(__atomic_load_n(&opk__any_killed, __ATOMIC_RELAXED), 0) &&
        mpd__self_retired())
        return 0;
    struct mpd__vp_h1 *vp = (struct mpd__vp_h1 *)(void *)mpd__vp();
    struct mpd__proc_h1 *self = (struct mpd__proc_h1 *)(void *)vp->hot.cur;
    struct mpd__inwait_h1 w;
    w.got = 0;
    w.holding = 0;
    w.proc = self;
    w.own = q;
    w.ticket = 0;
    w.next = 0;
    if (__builtin_expect(word == MPD__OPQ_FAST1, 1)) { /* the first waiter */
        w.prev = 0;
        q->wfirst = &w;
    } else {
        w.prev = q->wlast;
        if (q->wlast)
            q->wlast->next = &w;
        else
            q->wfirst = &w;
    }
    q->wlast = &w;
    q->word = MPD__OPQ_WAITING;
    self->hot.wait = &w;   /* registered (lang/inqueue.c, inq_w_link): */
    self->hot.waitcls = 0; /* in q's own list, one VP */
    if (F) {
        self->hot.file = F;
        self->hot.line = L;
    }
    self->state = MPD__PS_BLOCKED;
    rq->head = next->link;
    if (!rq->head)
        rq->tail = 0;
    next->state = MPD__PS_RUNNING;
    vp->hot.cur = &next->hot;
    mpd__tls_slice = mpd__slice_fresh;
    mpd__ctx_jump_saving(self->ctx, next->ctx);
    /* resumed, with the unit (or, if the op became a queue meanwhile, a
     * block); on the same VP, the only one */
    if (__builtin_expect(vp->post_kind | __atomic_load_n(&opk__any_killed, __ATOMIC_RELAXED), 0)) {
        if (vp->post_kind)
            mpd__post_switch_h1();
        if (__atomic_load_n(&opk__any_killed, __ATOMIC_RELAXED)) {
            if (w.holding) /* the hold first: the process may end below */
                mpd__hold_end_h1(op, &w);
            mpd__in_killed(op, w.got); /* retired: give the unit back, end */
        }
    }
    if (__builtin_expect(w.holding, 0)) {
        /* woken holding a held counted op's class (mpd__v_handoff): with
         * nothing else holding or waiting for it, and nothing sent to the
         * op meanwhile (that makes it a queue), the hold ends here and the
         * op is SEM1 again, count 0 (lang/inhold.c, hold_sem1_back) */
        struct mpd__cls_h1 *c = q->cls;
        if (c->holds == &w && !w.hnext && !c->hwfirst && !c->dq &&
            (__atomic_load_n(&op->flags, __ATOMIC_RELAXED) & MPD__OPF_SEM1)) {
            c->holds = 0; /* (an expansion to several VPs or a queue clears SEM1) */
            q->word = q->wfirst ? MPD__OPQ_WAITING : MPD__OPQ_FAST1;
        } else {
            mpd__hold_end_h1(op, &w);
        }
    }
    if (__builtin_expect(w.got != 0, 0) && w.got != &mpd__semblk)
        mpd_in_done(w.got);
    return 1;
}
#endif
#endif
