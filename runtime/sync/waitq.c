/* waitq.c: FIFO queues of parked processes, the base of every blocking construct. */
#include "core/rt_internal.h"

void mpd_waitq_push(mpd_waitq *q, mpd_proc *p)
{
    p->link = NULL;
    if (q->tail)
        q->tail->link = p;
    else
        q->head = p;
    q->tail = p;
}

mpd_proc *mpd_waitq_pop(mpd_waitq *q)
{
    mpd_proc *p = q->head;
    if (p) {
        q->head = p->link;
        if (!q->head)
            q->tail = NULL;
        p->link = NULL;
    }
    return p;
}

int mpd_waitq_remove(mpd_waitq *q, mpd_proc *p)
{
    mpd_proc *prev = NULL;
    for (mpd_proc *c = q->head; c; prev = c, c = c->link) {
        if (c != p)
            continue;
        if (prev)
            prev->link = c->link;
        else
            q->head = c->link;
        if (q->tail == c)
            q->tail = prev;
        c->link = NULL;
        return 1;
    }
    return 0;
}

void mpd_waitq_wait(mpd_waitq *q, mpd_spinlock *lock)
{
    mpd_waitq_push(q, proc_self());
    mpd_park(lock);
}

mpd_proc *mpd_waitq_wake_one(mpd_waitq *q)
{
    mpd_proc *p = mpd_waitq_pop(q);
    if (p)
        mpd_unpark(p);
    return p;
}

int mpd_waitq_wake_all(mpd_waitq *q)
{
    int n = 0;
    mpd_proc *p;
    while ((p = mpd_waitq_pop(q))) {
        mpd_unpark(p);
        n++;
    }
    return n;
}
