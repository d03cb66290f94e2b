/* switch.h: the inline hot path of scheduling -- make a process ready, pick
 * the next one, switch to it.  Shared by vp.c and the semaphore code, so a
 * blocking P is one function deep. */
#ifndef MPD_SWITCH_H
#define MPD_SWITCH_H
#include <limits.h>
#include "core/rt_internal.h"
#include "core/runq.h"

#ifdef MPD_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef MPD_TSAN
#include <sanitizer/tsan_interface.h>
#endif

void mpd__drain_inbox(void);
void mpd__post_switch_slow(mpd_vp *vp, int kind);

/* vp is the caller's own VP: the count is a thread-local of its thread. */
static inline void slice_reset(mpd_vp *vp)
{
    (void)vp;
    mpd__tls_slice = mpd__slice_fresh;
}

/* Switch from one fiber to another, telling the sanitizers. */
static inline void fiber_switch(mpd_fiber *from, mpd_fiber *to, int from_dies)
{
#ifdef MPD_ASAN
    __sanitizer_start_switch_fiber(from_dies ? NULL : &from->asan_fake, to->stack_lo,
                                   to->stack_size);
#else
    (void)from_dies;
#endif
#ifdef MPD_TSAN
    __tsan_switch_to_fiber(to->tsan, 0);
#endif
#if defined(MPD_ASAN) || defined(MPD_TSAN)
    mpd_ctx_switch(&from->ctx, &to->ctx); /* the sanitizers see its saves */
#else
    mpd_ctx_switch_fast(&from->ctx, &to->ctx);
#endif
#ifdef MPD_ASAN
    __sanitizer_finish_switch_fiber(from->asan_fake, NULL, NULL);
#endif
}

static inline void rq1_put(mpd_proc *p)
{
    rq_link_tail(&mpd__fifo_q, p);
}

/* Where the FIFO scheduler queues a process that vp makes ready: with one
 * VP the one queue; with several, vp's own queue (processes that talk to
 * each other stay together; idle VPs steal), except once priorities are
 * mixed: MPD's priority order is kept in the shared queue only. */
static inline runq *fifo_home(mpd_vp *vp)
{
    if (mpd__mode_one_vp() || atomic_load_explicit(&mpd__prio_mixed, memory_order_relaxed))
        return &mpd__fifo_q;
    return vp->lq;
}

/* Put p in this VP's scheduler (the FIFO one without an indirect call). */
static inline void vp_ready(mpd_vp *vp, mpd_proc *p)
{
    PSTATE_SET(p, P_READY);
    if (__builtin_expect(vp->sched == &mpd_sched_fifo, 1))
        rq_put(fifo_home(vp), p);
    else
        vp->sched->put(vp->sched_st, p);
    if (!mpd__mode_one_vp())
        mpd__wake_idle_vp();
}

/* Make p ready because the running process woke it (V, unpark): with
 * several VPs it goes to this VP's runnext slot, displacing the previous one
 * to the tail of this VP's queue. */
static inline void vp_wake(mpd_vp *vp, mpd_proc *p)
{
    if (mpd__mode_one_vp() || vp->sched != &mpd_sched_fifo || !vp->hot.cur ||
        atomic_load_explicit(&mpd__prio_mixed, memory_order_relaxed)) {
        vp_ready(vp, p);
        return;
    }
    PSTATE_SET(p, P_READY);
    mpd_proc *old = atomic_exchange_explicit(&vp->runnext, p, memory_order_seq_cst);
    if (old) {
        rq_put(vp->lq, old);
        mpd__wake_idle_vp();
    } else {
        mpd__wake_idle_vp_sc(); /* the seq_cst exchange published p */
    }
}

mpd_proc *mpd__pick_next_slow(mpd_vp *vp);

/* The FIFO scheduler with several VPs: the process this VP's running one
 * woke last (runnext), then this VP's own queue, then the shared one. */
static inline mpd_proc *pick_fifo_multi(mpd_vp *vp)
{
    /* compaction waits for this VP at its loop's top (vp.c) */
    if (__builtin_expect(atomic_load_explicit(&mpd__compact_req, memory_order_relaxed), 0))
        return NULL;
    /* processes that talk may switch for long without a slice end or a
     * look at the loop: an expansion's trial ends here too */
    if (__builtin_expect(atomic_load_explicit(&mpd__compact_trial_on, memory_order_relaxed), 0))
        mpd__compact_trial_check();
    if (atomic_load_explicit(&vp->runnext, memory_order_relaxed)) {
        mpd_proc *r = atomic_exchange_explicit(&vp->runnext, NULL, memory_order_acq_rel);
        if (r)
            return r;
    }
    mpd_proc *p = rq_get(vp->lq);
    return p ? p : rq_get(&mpd__fifo_q);
}

/* The next process this VP should run, or NULL.  The common case (no
 * remote wakeup or timer pending, the FIFO scheduler) is inline; the rest
 * is mpd__pick_next_slow. */
static inline mpd_proc *pick_next(mpd_vp *vp)
{
    if (__builtin_expect((int)(atomic_load_explicit(&mpd__inbox, memory_order_relaxed) != NULL) |
                             (int)(atomic_load_explicit(&mpd__ntimers, memory_order_relaxed) > 0) |
                             (int)(vp->sched != &mpd_sched_fifo),
                         0))
        return mpd__pick_next_slow(vp);
    if (mpd__mode_one_vp())
        return rq_get(&mpd__fifo_q);
    return pick_fifo_multi(vp);
}

/* Do what the context that switched to us left for us. */
static inline void post_switch(mpd_vp *vp)
{
    int k = vp->post_kind;
    if (k == PS_NONE)
        return;
    vp->post_kind = PS_NONE;
    if (k == PS_UNLOCK)
        mpd_spin_unlock(vp->post_lock);
    else
        mpd__post_switch_slow(vp, k);
}

/* Leave the running process `self` for `next` (NULL: the VP loop); the
 * post action is done by whatever runs next on this VP. */
static inline void switch_away(mpd_vp *vp, mpd_proc *self, mpd_proc *next, int kind, mpd_proc *pp,
                               mpd_spinlock *lk)
{
    vp->post_kind = kind;
    vp->post_proc = pp;
    vp->post_lock = lk;
    slice_reset(vp);
    if (__builtin_expect(next == self, 0)) {
        /* one VP: our own timer readied us before we got off the stack;
         * a switch to ourselves would resume our previous switch-out */
        PSTATE_SET(self, P_RUNNING);
        post_switch(vp);
        return;
    }
    MPD_TL(mpd__tl_switch(self, next, kind));
    mpd_fiber *to;
    vp_qs_note(vp, next == NULL);
    if (next) {
        PSTATE_SET(next, P_RUNNING);
        vp->hot.cur = &next->hot;
        to = &next->f;
    } else {
        vp->hot.cur = NULL;
        to = &vp->loop;
    }
    fiber_switch(&self->f, to, kind == PS_EXIT);
    post_switch(vp_self()); /* resumed, perhaps on another VP */
}

/* The blocking switch with one VP and the FIFO scheduler, when nothing
 * (remote wakeup, timer) is pending and a process is ready: pop the head
 * of the queue and switch to it; nothing is left to do after the switch.
 * Returns 0, having done nothing, when it does not apply. */
__attribute__((always_inline)) static inline int block_fast1(mpd_vp *vp, mpd_proc *self)
{
    runq *q = &mpd__fifo_q;
    mpd_proc *next = q->l.head;
    if (__builtin_expect(
            !mpd__mode_fast() || !next ||
                ((int)(atomic_load_explicit(&mpd__inbox, memory_order_relaxed) != NULL) |
                 (int)(atomic_load_explicit(&mpd__ntimers, memory_order_relaxed) > 0)),
            0))
        return 0;
    pl_pop_head(&q->l, next, PL_RUN);
    PSTATE_SET(next, P_RUNNING);
    vp->hot.cur = &next->hot;
    slice_reset(vp);
    fiber_switch(&self->f, &next->f, 0);
    post_switch(vp_self());
    return 1;
}

/* MPD_SWITCH_RETURN(body): the whole body of a naked function f with the
 * same parameters as `mpd_sret body(...)` (integer ones, in registers).  f
 * jumps to mpd__switch_return (csw_asm_x86_64.S), which calls body from its
 * one call site and returns to f's caller with ret when body did not
 * switch, and with an indirect jmp when it did.  After a handoff the return
 * stack buffer holds the calls of the process that switched to us: a ret
 * into our caller would be mispredicted on every handoff, and so would
 * body's own ret if each entry point called its body from a call site of
 * its own.  The jmp is predicted from branch history.  It leaves one stale
 * entry behind, costing at most one misprediction later, when a return
 * goes deeper than the calls made since.  Bodies must switch at their own
 * level (block_fast1 inlined), not in a function they call.  x86-64 with
 * the inline switch only: elsewhere MPD_HAVE_SWITCH_RETURN is 0 and f
 * calls body. */
typedef struct {
    void *v;
    long switched;
} mpd_sret;
#define MPD_SRET(v, sw) ((mpd_sret){(void *)(v), (sw)})
#if defined(__x86_64__) && defined(MPD_CSW_HAVE_INLINE) && defined(MPD_CSW_asm) &&                 \
    !defined(MPD_ASAN) && !defined(MPD_TSAN)
#define MPD_HAVE_SWITCH_RETURN 1
#define MPD_SWITCH_RETURN(body) __asm__("leaq " #body "(%rip), %r11\n\tjmp mpd__switch_return")
#else
#define MPD_HAVE_SWITCH_RETURN 0
#endif
#define MPD_UNUSED __attribute__((unused))
/* A body's attributes: called from asm by name. */
#define MPD_SWITCH_BODY __attribute__((noinline, used, visibility("hidden")))

static inline mpd_proc *wq_pop(mpd_waitq *q)
{
    mpd_proc *p = pl_pop(q, PL_WAIT);
    if (p)
        p->wlink = NULL;
    return p;
}

/* Block the running process: append it to q (if not NULL), then switch to
 * the next ready process, releasing lk afterwards.  Returns 1 if it took
 * block_fast1's inline switch (see MPD_SWITCH_RETURN). */
__attribute__((always_inline)) static inline int block_self(mpd_vp *vp, mpd_waitq *q,
                                                            mpd_spinlock *lk)
{
    mpd_proc *self = (mpd_proc *)(void *)vp->hot.cur;
    if (q)
        pl_push(q, self, PL_WAIT);
    PSTATE_SET(self, P_BLOCKED);
    if (!lk && block_fast1(vp, self))
        return 1;
    switch_away(vp, self, pick_next(vp), lk ? PS_UNLOCK : PS_NONE, NULL, lk);
    return 0;
}
#endif
