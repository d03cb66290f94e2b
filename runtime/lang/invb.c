/* invb.c: invocation blocks -- their memory, copies, and answering the
 * invoker (however it waits: a co statement, a parked caller, a creator).
 * The bottom of the invocation path: every consumer of an invocation
 * (inqueue.c, inselect.c, opsem.c, co.c, res.c, inv.c) answers through
 * here, and nothing here calls up into them (docs/architecture.md). */
#include "opint.h"
#include "disthook.h"
#include "opfast.h"

/* The answer to a caller parked on op's class (MPD_INVF_PARKED, several
 * VPs) waits until the caller is surely parked: it holds that lock until
 * it is switched out.  Out of line, as answer_co. */
static __attribute__((noinline)) void answer_barrier(mpd_op *op)
{
    opcls *c = cls_lock(op_queue(op)->cls);
    opk_release(&c->lk);
}

/* ---- answering a co statement and a creator ------------------------------ */

/* An invocation of co finished (or was replied to): ib now belongs to co.
 * Completions stack up newest first: when several arms finished before the
 * co statement looks, their blocks run in reverse order of completion, as in
 * MPD 1.0.1 (suite program quick/jumble shows it).  Out of line: inlined,
 * it costs the rendezvous's answer two register saves. */
static __attribute__((noinline)) void answer_co(mpd_invb *ib)
{
    mpd_co *co = ib->co;
    opk_acquire(&co->lk);
    if (co->abandoned) {
        int last = --co->outstanding == 0;
        opk_release(&co->lk);
        inv_free(ib);
        if (last)
            free(co);
        return;
    }
    ib->next = co->dfirst;
    co->dfirst = ib;
    opk_release(&co->lk);
    opk_event_post(&co->ev);
}

/* The creator of instance rt is answered by its initial code's end or
 * reply, or by its destroy: whichever comes first wakes the creator (if
 * any waits).  1 for the first. */
int inv_answer_creator(resrt *rt)
{
    if (__atomic_exchange_n(&rt->init_answered, 1, __ATOMIC_ACQ_REL))
        return 0;
    if (!rt->no_creator)
        opk_event_post(&rt->initdone);
    return 1;
}

/* ---- invocation block memory: per-thread caches by size class ----------- */

/* Sends never block, so a producer queues a whole slice of invocations
 * (10,000 by default) before its receiver runs, and the receiver frees as
 * many: a cache of 64 blocks sent nearly every block through malloc/free,
 * and glibc's trimming of the heap's top turned each slice's blocks into
 * fresh pages to fault in (perf, pipeline at 1 VP: ~25% page faults, ~17%
 * malloc/free).  A VP's thread keeps up to INV_CACHE_VP bytes of blocks,
 * enough for a few slices of queued sends, so that a steady stream reuses
 * blocks; any other thread (it may exit, and its cache with it) keeps
 * INV_CACHE_OTHER bytes.  The cache is LIFO: the block freed last, the one
 * most likely in the CPU's cache, is reused first.  Classes are 16 bytes
 * apart: a queued send's block is read and written once more by its
 * receiver, and a 96-byte block (the header and one int) rounded up to 128
 * cost a quarter more memory traffic. */
#define NCLASS INVB_NCLASS /* 16, 32, ... 256 bytes */
#define INV_CACHE_VP (8u << 20)
#define INV_CACHE_OTHER (8u << 10)
_Thread_local mpd_invb *mpd__invb_cache[NCLASS];
/* 16-byte units the cache may still take (units: the class number plus
 * one, no multiply on the hot path).  A thread starts with the small budget;
 * the first free that finds it spent on a VP's thread grants the large
 * one (out of line: the hot path tests one count, as it did with the
 * fixed 64 blocks). */
_Thread_local size_t mpd__invb_room = INV_CACHE_OTHER / 16;
static _Thread_local int cache_on_vp;

mpd_invb *inv_alloc(uint32_t size)
{
    unsigned c = invb_class(size);
    mpd_invb *ib;
    if (c < NCLASS && mpd__invb_cache[c]) {
        ib = mpd__invb_cache[c];
        mpd__invb_cache[c] = ib->next;
        mpd__invb_room += c + 1;
    } else {
        ib = malloc(c < NCLASS ? (c + 1) * 16 : size);
        if (!ib)
            mpd_rts_fatal("out of memory for invocation blocks");
    }
    return ib;
}

static __attribute__((noinline)) void inv_free_full(mpd_invb *ib, unsigned c)
{
    if (c < NCLASS && !cache_on_vp && mpd__tls_vp) {
        cache_on_vp = 1;
        mpd__invb_room += (INV_CACHE_VP - INV_CACHE_OTHER) / 16;
        inv_free(ib);
        return;
    }
    free(ib);
}

__attribute__((always_inline)) static inline void free_block(mpd_invb *ib)
{
    unsigned c = invb_class(ib->size);
    if (c < NCLASS && c + 1 <= mpd__invb_room) {
        ib->next = mpd__invb_cache[c];
        mpd__invb_cache[c] = ib;
        mpd__invb_room -= c + 1;
        return;
    }
    inv_free_full(ib, c);
}

void inv_free(mpd_invb *ib)
{
    free_block(ib);
}

/* A runtime-owned copy of ib, with no ties to any invoker. */
mpd_invb *inv_copy(const mpd_invb *ib)
{
    uint32_t size = invb_copy_size(ib);
    mpd_invb *c = invb_cached(size);
    if (!c)
        c = inv_alloc(size);
    invb_fill(c, ib, size);
    return c;
}

/* ---- answering the invoker --------------------------------------------- */

/* Tell the invoker that ib is answered: copy results to its block, wake it,
 * or hand the block to its co statement.  Never touches an invoker's block
 * after waking the invoker.  The one dispatch on how the invoker waits: a
 * co statement, parked on the op's class (rendezvous), parked on its own
 * lock (a proc's process), on another vm, a creator, or an event. */
void inv_answer(mpd_invb *ib)
{
    if (ib->flags & MPD_INVF_ANSWERED)
        return;
    ib->flags |= MPD_INVF_ANSWERED;
    if (ib->co) {
        answer_co(ib); /* the co statement owns it now */
        return;
    }
    mpd_op *parked_on = NULL;
    if (ib->flags & MPD_INVF_PARKED)
        parked_on = ib->orig ? ib->orig->op : ib->op;
    if (ib->orig) {
        mpd_invb *o = ib->orig;
        uint32_t n = ib->size < o->size ? ib->size : o->size;
        if (n > sizeof(mpd_invb))
            inv_copy_words(o + 1, ib + 1, n - sizeof(mpd_invb));
        ib->orig = NULL;
    }
    if (parked_on) {
        mpd_proc *p = ib->done;
        ib->done = NULL;
        if (!mpd_rt_single())
            answer_barrier(parked_on); /* the invoker is surely parked */
        /* the last look at the op's object: it may be freed now; with
         * compaction counted in both modes (inv.c) */
        if (!mpd_rt_single())
            __atomic_fetch_sub(&res_rt(parked_on->owner)->calls_parked, 1, __ATOMIC_RELEASE);
        else if (mpd__compact)
            res_rt(parked_on->owner)->calls_parked--;
        opk_wake(p);
        return;
    }
    if (ib->flags & MPD_INVF_PARKER) {
        opk_parker *pk = ib->done;
        ib->done = NULL;
        mpd_proc *p = pk->p;
        opk_acquire(&pk->lk); /* the invoker is surely parked */
        opk_release(&pk->lk);
        mpd_unpark(p);
        return;
    }
    if (ib->flags & MPD_INVF_REMOTE) {
        mpd__dist->answer(ib); /* the invoker is on another vm */
        return;
    }
    void *d = ib->done;
    ib->done = NULL;
    if (ib->flags & MPD_INVF_CREATE)
        inv_answer_creator(d);
    else if (d)
        opk_event_post((opk_event *)d);
}

/* inv_complete of a runtime block whose invoker is to be told: then freed */
static __attribute__((noinline)) void answer_free(mpd_invb *ib)
{
    inv_answer(ib);
    inv_free(ib);
}

/* The servicing code is finished with ib (end of proc or in arm).  Every
 * call in tail position, so no path keeps a frame: a send's block (nobody
 * to tell) is only freed, an invoker's own block only answered. */
void inv_complete(mpd_invb *ib)
{
    uint8_t f = ib->flags;
    int ours = (f & (MPD_INVF_HEAP | MPD_INVF_INPROC)) == MPD_INVF_HEAP;
    if (!(f & MPD_INVF_ANSWERED) && (ib->co || ib->done || ib->orig)) {
        if (ib->co || !ours) {
            inv_answer(ib); /* a co's: ownership passes to it; else the invoker's */
            return;
        }
        answer_free(ib);
        return;
    }
    if (ours)
        free_block(ib);
}

void mpd_in_done(mpd_invb *ib)
{
    if (ib)
        inv_complete(ib);
}
