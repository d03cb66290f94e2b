/* plist.h: the one intrusive FIFO of processes (mpd_plist, mpd/rt.h) that
 * every process queue of the core is -- the ready queues (link), the wait
 * queues under semaphores, park and the threads API (wlink), and the
 * helper threads' queue of blocking calls (io_next).
 *
 * A process has one link field per kind of queue it can be in at the same
 * time (a timed-out waiter is ready before it leaves its wait queue), so
 * each operation takes the offset of the link it uses (PL_RUN, PL_WAIT,
 * PL_IO).  Inlined with a constant offset it is the same code as a list
 * written out by hand: the run queue's pop is on the context switch.
 * Locking is the caller's. */
#ifndef MPD_PLIST_H
#define MPD_PLIST_H
#include <stddef.h>
#include "core/rt_internal.h"

#define PL_RUN offsetof(struct mpd_proc, link)
#define PL_WAIT offsetof(struct mpd_proc, wlink)
#define PL_IO offsetof(struct mpd_proc, io_next)

/* p's link of the kind at offset off. */
static inline mpd_proc **pl_next(mpd_proc *p, size_t off)
{
    return (mpd_proc **)(void *)((char *)p + off);
}

/* Append p. */
static inline void pl_push(mpd_plist *l, mpd_proc *p, size_t off)
{
    *pl_next(p, off) = NULL;
    if (l->tail)
        *pl_next(l->tail, off) = p;
    else
        l->head = p;
    l->tail = p;
}

/* Take off p, the first process (the caller has looked at it already). */
static inline void pl_pop_head(mpd_plist *l, mpd_proc *p, size_t off)
{
    l->head = *pl_next(p, off);
    if (!l->head)
        l->tail = NULL;
}

/* Take the first process off (NULL if empty); its link is left as it was. */
static inline mpd_proc *pl_pop(mpd_plist *l, size_t off)
{
    mpd_proc *p = l->head;
    if (p)
        pl_pop_head(l, p, off);
    return p;
}

/* Take p out wherever it is: 1 if it was there (a walk: for the rare
 * removal, a timed wait that ran out). */
static inline int pl_remove(mpd_plist *l, mpd_proc *p, size_t off)
{
    mpd_proc *prev = NULL;
    for (mpd_proc *c = l->head; c; prev = c, c = *pl_next(c, off)) {
        if (c != p)
            continue;
        if (prev)
            *pl_next(prev, off) = *pl_next(c, off);
        else
            l->head = *pl_next(c, off);
        if (l->tail == c)
            l->tail = prev;
        *pl_next(c, off) = NULL;
        return 1;
    }
    return 0;
}

#endif
