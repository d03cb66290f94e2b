/* priority.c: process priorities as MPD 1.0.1 schedules them.
 *
 * The ready queue is kept in MPD's order: higher priority first, FIFO among
 * equal priorities (rq_link_tail in runq.h inserts out of order only when
 * the tail has a lower priority than the newcomer, so with every priority
 * equal -- the usual case -- it stays an append).  A process never preempts
 * the running one; but a process that lowers its own priority yields at
 * once to every ready process whose priority is now at least its own, as
 * MPD's setpriority rescheduled itself. */
#include "core/rt_internal.h"
#include "core/runq.h"
#include "core/switch.h"

atomic_int mpd__prio_mixed;

void mpd__prio_mixed_on(void)
{
    if (atomic_load_explicit(&mpd__prio_mixed, memory_order_relaxed))
        return;
    atomic_store_explicit(&mpd__prio_mixed, 1, memory_order_relaxed);
    if (mpd__mode == MPD_MODE_HANDOFF) /* see mpd/rt.h, the modes */
        mpd__mode = MPD_MODE_FAST;
}

/* p goes after every process of priority >= its own; the caller holds the
 * queue's lock and has seen that the tail's priority is lower. */
void mpd__rq_insert_by_priority(runq *q, mpd_proc *p)
{
    mpd_proc **pp = &q->l.head;
    while ((*pp)->hot.priority >= p->hot.priority)
        pp = &(*pp)->link;
    p->link = *pp;
    *pp = p;
}

/* Whether a process waits in the shared ready queue with priority >= pr. */
int mpd__ready_at_least(int pr)
{
    runq *q = &mpd__fifo_q;
    if (!mpd__mode_one_vp())
        mpd_spin_lock(&q->lk);
    int yes = q->l.head && q->l.head->hot.priority >= pr;
    if (!mpd__mode_one_vp())
        mpd_spin_unlock(&q->lk);
    return yes;
}

void mpd_proc_set_priority(mpd_proc *p, int priority)
{
    int old = p->hot.priority;
    p->hot.priority = priority;
    if (priority != 0)
        mpd__prio_mixed_on();
    mpd_vp *vp = vp_self();
    if (priority >= old || !vp || (mpd_proc *)(void *)vp->hot.cur != p)
        return;
    /* lowered its own: the yield puts it back after every ready process
     * of priority >= its new one, and runs the first of them */
    if (vp->sched != &mpd_sched_fifo || mpd__ready_at_least(priority))
        mpd_yield();
}
