/* runq.h: a FIFO of ready processes, locked only when there are several VPs. */
#ifndef MPD_RUNQ_H
#define MPD_RUNQ_H
#include "core/rt_internal.h"
#include "core/plist.h"

/* struct runq is in rt_internal.h (each VP holds one). */

#if MPD_RT_HAND1
_Static_assert(offsetof(runq, l.head) == offsetof(struct mpd__runq_h1, head) &&
                   offsetof(runq, l.tail) == offsetof(struct mpd__runq_h1, tail),
               "handoff.h");
#endif

void mpd__rq_insert_by_priority(runq *q, mpd_proc *p);

/* Appends p to the list, the caller holding whatever lock q needs.  The
 * list is kept in MPD's ready order: higher priority first, FIFO among
 * equals.  While every priority is equal (the usual case) that is an
 * append; the one compare touches only the two lines the append writes. */
static inline void rq_link_tail(runq *q, mpd_proc *p)
{
    if (__builtin_expect(q->l.tail && q->l.tail->hot.priority < p->hot.priority, 0))
        mpd__rq_insert_by_priority(q, p);
    else
        pl_push(&q->l, p, PL_RUN);
}

static inline void rq_put(runq *q, mpd_proc *p)
{
    if (!mpd__mode_one_vp())
        mpd_spin_lock(&q->lk);
    rq_link_tail(q, p);
    if (!mpd__mode_one_vp()) {
        atomic_store_explicit(&q->n, atomic_load_explicit(&q->n, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        mpd_spin_unlock(&q->lk);
    }
}

static inline mpd_proc *rq_get(runq *q)
{
    if (mpd__mode_one_vp())
        return pl_pop(&q->l, PL_RUN);
    if (atomic_load_explicit(&q->n, memory_order_relaxed) == 0)
        return NULL;
    mpd_spin_lock(&q->lk);
    mpd_proc *p = pl_pop(&q->l, PL_RUN);
    if (p) {
        atomic_store_explicit(&q->n, atomic_load_explicit(&q->n, memory_order_relaxed) - 1,
                              memory_order_relaxed);
        atomic_store_explicit(&q->gets, atomic_load_explicit(&q->gets, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    }
    mpd_spin_unlock(&q->lk);
    return p;
}

static inline int rq_empty(runq *q)
{
    return mpd__mode_one_vp() ? q->l.head == NULL
                              : atomic_load_explicit(&q->n, memory_order_relaxed) == 0;
}

/* The FIFO scheduler's queue, shared by all VPs (the fast path uses it directly). */
extern runq mpd__fifo_q;
#endif
