/* co.c: the concurrent invocation statement -- start arms, collect completions one at a time
 * (posted by invb.c, which answers invocations). */
#include "opint.h"
#include "disthook.h"
#include "mpd/abi/trace.h"
#include "core/timeline.h"

mpd_co *mpd_co_begin(void)
{
    mpd_co *co = calloc(1, sizeof *co);
    if (!co)
        mpd_rts_fatal("out of memory");
    opk_lock_init(&co->lk);
    opk_event_init(&co->ev);
    return co;
}

void mpd_co_invoke_op(const char *F, int L, mpd_co *co, mpd_op *op, mpd_invb *ib, int kind)
{
    ib->file = F;
    ib->line = L;
    /* MPD_TRACE: the generated code wrote CALL at the arm's line (a send
     * traces itself); PROC shows this process as the invoker */
    mpd_trc_mark_invoker(ib);
    opk_acquire(&co->lk);
    co->outstanding++;
    opk_release(&co->lk);
    if (kind == MPD_INV_SEND) {
        /* the send goes on its own; the arm completes at once */
        if (op_kind(op) != MPD_OPK_NOOP)
            mpd_send_op(F, L, op, ib);
        mpd_invb *h = inv_copy(ib);
        h->co = co;
        inv_answer(h);
        return;
    }
    MPD_TL(mpd__tl_invoke(TL_CALL, F, L, ib));
    mpd_invb *h = inv_copy(ib);
    h->kind = MPD_INV_CALL;
    h->co = co;
    inv_deliver(F, L, op, h); /* procs get their own process */
}

void mpd_co_invoke(const char *F, int L, mpd_co *co, mpd_cap c, mpd_invb *ib, int kind)
{
    if (cap_is_remote(c)) { /* an op of another vm: as above, shipped */
        ib->file = F;
        ib->line = L;
        opk_acquire(&co->lk);
        co->outstanding++;
        opk_release(&co->lk);
        if (kind == MPD_INV_SEND)
            mpd__dist->invoke(F, L, c, ib, MPD_INV_SEND);
        mpd_invb *h = inv_copy(ib);
        h->co = co;
        if (kind == MPD_INV_SEND) {
            inv_answer(h);
            return;
        }
        h->kind = MPD_INV_CALL;
        mpd__dist->deliver(F, L, c, h);
        return;
    }
    mpd_co_invoke_op(F, L, co, inv_resolve(F, L, c, 0), ib, kind);
}

mpd_invb *mpd_co_wait(const char *F, int L, mpd_co *co)
{
    opk_acquire(&co->lk);
    if (co->outstanding == 0) {
        opk_release(&co->lk);
        return NULL;
    }
    opk_release(&co->lk);
    opk_event_wait(&co->ev, F, L);
    opk_acquire(&co->lk);
    mpd_invb *ib = co->dfirst;
    co->dfirst = ib->next;
    co->outstanding--;
    opk_release(&co->lk);
    ib->co = NULL;
    return ib;
}

void mpd_co_release(mpd_invb *ib)
{
    if (ib)
        inv_free(ib);
}

void mpd_co_end(mpd_co *co)
{
    opk_acquire(&co->lk);
    /* completed but never collected */
    mpd_invb *ib = co->dfirst;
    co->dfirst = NULL;
    while (ib) {
        mpd_invb *n = ib->next;
        co->outstanding--;
        inv_free(ib);
        ib = n;
    }
    int done = co->outstanding == 0;
    co->abandoned = 1;
    opk_release(&co->lk);
    if (done)
        free(co);
}
