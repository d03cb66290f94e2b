/* sched.c: the built-in schedulers -- FIFO, priority and work stealing. */
#include <stdlib.h>
#include "core/rt_internal.h"
#include "mpd/err.h"
#include "core/runq.h"

static inline void lock_if(mpd_spinlock *l)
{
    if (!mpd__mode_one_vp())
        mpd_spin_lock(l);
}
static inline void unlock_if(mpd_spinlock *l)
{
    if (!mpd__mode_one_vp())
        mpd_spin_unlock(l);
}

/* ---- FIFO: one queue shared by every VP, so order is global ---- */
runq mpd__fifo_q;
#if MPD_RT_HAND1
/* The same queue as mpd/abi/handoff.h sees it (the layout is checked in runq.h). */
extern struct mpd__runq_h1 mpd__rq_h1 __attribute__((alias("mpd__fifo_q")));
#endif
static void *fifo_init(int vp, int nvp)
{
    (void)vp;
    (void)nvp;
    return &mpd__fifo_q;
}
static void fifo_put(void *st, mpd_proc *p)
{
    rq_put(st, p);
}
static mpd_proc *fifo_get(void *st)
{
    return rq_get(st);
}
static int fifo_empty(void *st)
{
    return rq_empty(st);
}
const mpd_sched_ops mpd_sched_fifo = {"fifo", fifo_init, fifo_put, fifo_get, fifo_empty, NULL};

/* ---- priority: shared list sorted by priority, FIFO among equals ---- */
static runq prio_q;
static void *prio_init(int vp, int nvp)
{
    (void)vp;
    (void)nvp;
    return &prio_q;
}
static void prio_put(void *st, mpd_proc *p)
{
    runq *q = st;
    lock_if(&q->lk);
    int pr = p->hot.priority;
    if (!q->l.tail || q->l.tail->hot.priority >= pr) { /* common case: append */
        rq_link_tail(q, p);
    } else {
        mpd_proc **pp = &q->l.head;
        while ((*pp)->hot.priority >= pr)
            pp = &(*pp)->link;
        p->link = *pp;
        *pp = p;
    }
    if (!mpd__mode_one_vp()) /* see runq.h */
        atomic_store_explicit(&q->n, atomic_load_explicit(&q->n, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    unlock_if(&q->lk);
}
const mpd_sched_ops mpd_sched_prio = {"prio", prio_init, prio_put, fifo_get, fifo_empty, NULL};

/* ---- work stealing: a queue per VP; an idle VP takes from the others ---- */
static runq *steal_qs;
static int steal_n;
static void *steal_init(int vp, int nvp)
{
    if (!steal_qs) {
        steal_qs = aligned_alloc(64, sizeof(runq) * (size_t)nvp);
        if (!steal_qs)
            mpd_rts_fatal("out of memory for the scheduler");
        for (int i = 0; i < nvp; i++) {
            mpd_spin_init(&steal_qs[i].lk);
            steal_qs[i].l.head = steal_qs[i].l.tail = NULL;
            atomic_init(&steal_qs[i].n, 0);
            atomic_init(&steal_qs[i].gets, 0);
        }
        steal_n = nvp;
    }
    return &steal_qs[vp];
}
static mpd_proc *steal_idle(void *st)
{
    int me = (int)((runq *)st - steal_qs);
    for (int k = 1; k < steal_n; k++) {
        mpd_proc *p = rq_get(&steal_qs[(me + k) % steal_n]);
        if (p)
            return p;
    }
    return NULL;
}
const mpd_sched_ops mpd_sched_steal = {"steal",  steal_init, fifo_put,
                                       fifo_get, fifo_empty, steal_idle};
