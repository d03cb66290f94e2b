/* opint.h: internal structures shared by the operations layer (op*.c,
 * inv.c, inqueue.c, inselect.c, opsem.c, co.c, res*.c).  Not part of the ABI.
 *
 * Invariants
 *  - Every object (resource instance, global, local-op block, dynamic op)
 *    has a class: one spin lock protecting the queues of all its input
 *    ops, the arrival counter and the list of processes blocked in input
 *    statements on them.  Local and dynamic ops share the class of the
 *    resource that declares them, so one input statement normally locks
 *    one class.
 *  - An invocation is in at most one op queue; `pins` counts in-statement
 *    scanners that hold a pointer to it with the class lock released (while
 *    they run st/by callbacks).  Nobody else removes a pinned invocation; it
 *    is marked MPD_INVF_SKIPPED instead, and the last unpin re-dispatches it.
 *  - cls->gen changes whenever an invocation becomes available (arrival,
 *    re-dispatch): a scanner about to block rechecks it under the lock, so
 *    no arrival is lost between its scan and its sleep.
 */
#ifndef MPD_OPINT_H
#define MPD_OPINT_H

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "mpd/abi/ops.h"
#include "mpd/err.h"
#include "opcore.h"

/* invb flags */
enum {
    MPD_INVF_HEAP = 1,     /* runtime-allocated: free on completion      */
    MPD_INVF_SKIPPED = 2,  /* someone wanted it while it was pinned       */
    MPD_INVF_ANSWERED = 4, /* replied/forwarded: completion tells nobody  */
    MPD_INVF_PARKED = 8,   /* `done` is the invoker's process, parked with
                               the class lock of the invoked op (orig->op
                               when forwarded): unpark it after that lock */
    MPD_INVF_PARKER = 16,  /* `done` is an opk_parker: unpark its process
                               after taking its lock */
    MPD_INVF_INPROC = 32,  /* with HEAP: lives in its servicing process's
                               own memory, which goes with the process */
    MPD_INVF_CREATE = 64,  /* a create block: `done` is the instance's
                               resrt, answered by inv_answer_creator */
    MPD_INVF_REMOTE = 128, /* a call from another vm: `done` is the
                               distributed layer's (disthook.h) */
};
/* A process waiting for one answer: it parks holding `lk` (released by the
 * core once it is switched out); the answerer takes `lk` first, so it never
 * unparks a process that is not parked yet. */
typedef struct opk_parker {
    mpd_proc *p;
    opk_lock lk;
} opk_parker;

/* internal op flag */
enum {
    MPD_OPF_DYNAMIC = 0x80,             /* new(op): may be destroyed              */
    MPD_OPF_COUNTED = MPD__OPF_COUNTED, /* semaphore: the queue is just a count */
    MPD_OPF_SEM1 = MPD__OPF_SEM1,       /* ... and one VP: the inline P/V of
                                           mpd/abi/ops.h may use the count */
};
/* An op's kind and flags change while other VPs may be using it (op_kill
 * makes it DEAD, in_uncount_op clears COUNTED): read them with relaxed
 * atomic loads, which are plain loads on x86-64 and arm64. */
static inline uint8_t op_kind(const mpd_op *op)
{
    return __atomic_load_n(&op->kind, __ATOMIC_RELAXED);
}
static inline uint8_t op_flags(const mpd_op *op)
{
    return __atomic_load_n(&op->flags, __ATOMIC_RELAXED);
}
static inline int op_counted(const mpd_op *op)
{
    return __atomic_load_n(&op->flags, __ATOMIC_ACQUIRE) & MPD_OPF_COUNTED;
}

/* invb state */
enum { INV_NEW = 0, INV_QUEUED, INV_TAKEN, INV_DONE };

typedef struct opcls opcls;
typedef struct inwait inwait;

/* The queue of an input op. */
typedef struct opq {
    union {
        struct {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            uint32_t fast, count;
#else
            uint32_t count; /* ?op (a semaphore's value)           */
            uint32_t fast;  /* 1 while the op is MPD_OPF_SEM1 (set and
                                   cleared with the flag: op_set_sem1),
                                   0 at the marker OPQ_WAITING */
#endif
        };
        uint64_t word; /* (fast << 32) | count: mpd/abi/ops.h */
    };
    inwait *wfirst, *wlast; /* receivers waiting on this op alone */
    /* Its operation class as MPD computes it, which an input statement
     * woken by an arrival holds until it runs (inhold.c); 0: a semaphore,
     * never held.  The key is the address of the class's count of queued
     * invocations (a uint32_t: grp_count), one per class: gown of the
     * first op of its declaration, or its instance's gcount entry when
     * the compiler's map joins declarations. */
    uintptr_t grp;
    opcls *cls;
    mpd_invb *head, *tail;
    /* Invocations that arrived while a woken statement held the class
     * (MPD's "new" list): linked in the class's `dq` until offered to the
     * waiters when the hold ends (inhold.c). */
    struct opq *dnext;
    int deferred;
    uint32_t gown; /* the count of its declaration's class (grp) */
    /* A counted op MPD holds (mpd_op_sem_held), alone in its class, on one
     * VP: SEM1 while no hold is on it -- a V that wakes a P gives the hold
     * and clears SEM1, the hold's end sets it again (hold_sem1_back). */
    uint8_t hc1;
    mpd_op *op; /* the op this is the queue of */
} opq;
/* Bit 0 of grp (the key is a count's address otherwise): the op is alone
 * in its class (a declaration of one op that the compiler's map leaves
 * alone), so a sender may yield to let its receiver drain the queue (send
 * flow control, inv.c). */
#define OPQ_GRP_ALONE ((uintptr_t)1)
/* How many invocations are queued at the ops of class grp (a hold passed
 * on to look at an empty class is idle: inhold.c). */
static inline uint32_t *grp_count(uintptr_t grp)
{
    return (uint32_t *)(grp & ~OPQ_GRP_ALONE);
}
/* The queue of the one op of class grp, which is OPQ_GRP_ALONE. */
static inline opq *grp_alone_q(uintptr_t grp)
{
    return (opq *)(void *)((char *)grp_count(grp) - offsetof(opq, gown));
}
/* count, fast, word and wfirst are read by the inline P/V of mpd/abi/ops.h */
_Static_assert(offsetof(opq, count) == offsetof(struct mpd__opq_hot, count), "opq layout");
_Static_assert(offsetof(opq, fast) == offsetof(struct mpd__opq_hot, fast), "opq layout");
_Static_assert(offsetof(opq, word) == offsetof(struct mpd__opq_hot, word), "opq layout");
_Static_assert(offsetof(opq, wfirst) == offsetof(struct mpd__opq_hot, wfirst), "opq layout");

/* The word of a SEM1 op while processes wait in its own list (its count is
 * then 0): below MPD__OPQ_FAST1, so the inline V's one test sends it to the
 * slow path (the handoff), and the inline P's too.  Only SEM1 ops carry
 * it: an op's word below FAST1 otherwise is a plain count (several VPs, or
 * an op that is a queue), which never reaches 2^32 - 1 in practice (blocks:
 * memory; several VPs: in_token's count wraps there anyway).  Every
 * registration in an own list lowers the word to it (opq_mark_waiting),
 * every removal puts count 0 back once the list is empty
 * (opq_unmark_if_empty): so a SEM1 op has waiters exactly when its word is
 * the marker, and the inline V needs no look at the waiter list. */
#define OPQ_WAITING MPD__OPQ_WAITING
static inline uint64_t opq_word(const opq *q)
{
    return __atomic_load_n(&q->word, __ATOMIC_RELAXED);
}
/* A waiter was just added to q's own list (the count is 0). */
static inline void opq_mark_waiting(opq *q)
{
    if (opq_word(q) >= MPD__OPQ_FAST1) /* SEM1 (else: no fast path) */
        __atomic_store_n(&q->word, OPQ_WAITING, __ATOMIC_RELAXED);
}
/* A waiter left q's own list. */
static inline void opq_unmark_if_empty(opq *q)
{
    if (!q->wfirst && opq_word(q) == OPQ_WAITING)
        __atomic_store_n(&q->word, MPD__OPQ_FAST1, __ATOMIC_RELAXED);
}
/* A SEM1 op (flag kept) whose inline P and V must go out of line for a
 * while (a held counted op while held: inhold.c): `fast` 0, count 0 at
 * the marker.  opq_sem1_resume undoes it. */
static inline void opq_sem1_suspend(opq *q)
{
    uint64_t w = opq_word(q);
    if (w == OPQ_WAITING)
        __atomic_store_n(&q->word, 0, __ATOMIC_RELAXED);
    else if (w > OPQ_WAITING)
        __atomic_store_n(&q->fast, 0, __ATOMIC_RELAXED);
}
static inline void opq_sem1_resume(opq *q)
{
    if (q->wfirst)
        __atomic_store_n(&q->word, OPQ_WAITING, __ATOMIC_RELAXED); /* count 0 */
    else
        __atomic_store_n(&q->fast, 1, __ATOMIC_RELAXED);
}
/* The value of a counted op: the count, 0 at the marker. */
static inline uint32_t opq_sem_count(const opq *q)
{
    uint64_t w = opq_word(q);
    return w == OPQ_WAITING ? 0 : (uint32_t)w;
}
/* One unit more for a counted op nobody waits on in its own list (the
 * marker without waiters, which a removal that did not unmark would leave,
 * counts as 0). */
static inline void opq_sem_add1(opq *q)
{
    uint64_t w = opq_word(q);
    if (w == OPQ_WAITING)
        __atomic_store_n(&q->word, MPD__OPQ_FAST1 + 1, __ATOMIC_RELAXED);
    else
        __atomic_store_n(&q->count, (uint32_t)w + 1, __ATOMIC_RELAXED);
}

struct opcls {
    opk_lock lk;
    _Atomic(opcls *) fwd;     /* merged into another class (inselect.c) */
    uint64_t seq;             /* arrival counter */
    uint64_t gen;             /* availability changes (see top) */
    inwait *wfirst, *wlast;   /* blocked statements with several ops or
                                   st/by, FIFO (one-op plain ones wait in
                                   their op's own list) */
    uint64_t ticket;          /* registration order of waiters */
    inwait *holds;            /* woken statements holding an op class
                               (inhold.c): usually NULL */
    inwait *hwfirst, *hwlast; /* statements waiting for a held class */
    opq *dq;                  /* ops with arrivals deferred by a hold */
    uint64_t hbound;          /* nonzero while a woken holder takes its first
                                 look: ?op counts arrivals up to it (inhold.c) */
    int absorbed;             /* another class was merged into this one (its
                               fwd points here): the object holding it is
                               never freed (reclaim.c) */
};

/* The class that now stands for c (classes merge when one input statement
 * spans several), and the same, locked. */
static inline opcls *cls_root(opcls *c)
{
    opcls *f;
    while ((f = atomic_load_explicit(&c->fwd, memory_order_acquire)))
        c = f;
    return c;
}
static inline opcls *cls_lock(opcls *c)
{
    for (;;) {
        c = cls_root(c);
        opk_acquire(&c->lk);
        if (!atomic_load_explicit(&c->fwd, memory_order_acquire))
            return c;
        opk_release(&c->lk);
    }
}

/* A process blocked in an input statement. */
struct inwait {
    inwait *next, *prev;
    mpd_in *in;
    mpd_proc *proc; /* parked until handed an invocation or woken */
    mpd_invb *got;  /* handed over directly by an arrival */
    uint32_t arm, k;
    int rescan; /* woken to re-examine (st/by arms)   */
    /* woken holding op class hgrp (inhold.c): linked in its class's
     * `holds` by hnext until it runs; hseq: the arrival that woke it (a
     * statement with `by` chooses among the invocations up to it).  Next
     * to rescan, which is cleared with it. */
    int holding;
    uint64_t ticket; /* FIFO among waiters of both kinds   */
    opq *own;        /* the op list it waits in, or NULL   */
    inwait *hnext;
    uintptr_t hgrp;
    uint64_t hseq;
};

#ifdef MPD__HANDOFF_INLINE
/* mpd/abi/handoff.h mirrors these two for the inline semaphore handoff. */
#define OPINT_SAME(a, f, b) (offsetof(a, f) == offsetof(b, f))
_Static_assert(sizeof(inwait) == sizeof(struct mpd__inwait_h1) &&
                   OPINT_SAME(inwait, next, struct mpd__inwait_h1) &&
                   OPINT_SAME(inwait, prev, struct mpd__inwait_h1) &&
                   OPINT_SAME(inwait, proc, struct mpd__inwait_h1) &&
                   OPINT_SAME(inwait, got, struct mpd__inwait_h1) &&
                   OPINT_SAME(inwait, arm, struct mpd__inwait_h1) &&
                   OPINT_SAME(inwait, k, struct mpd__inwait_h1) &&
                   OPINT_SAME(inwait, ticket, struct mpd__inwait_h1) &&
                   OPINT_SAME(inwait, own, struct mpd__inwait_h1) &&
                   OPINT_SAME(inwait, holding, struct mpd__inwait_h1) &&
                   OPINT_SAME(inwait, hnext, struct mpd__inwait_h1) &&
                   OPINT_SAME(inwait, hgrp, struct mpd__inwait_h1) &&
                   OPINT_SAME(inwait, hseq, struct mpd__inwait_h1),
               "handoff.h: inwait");
_Static_assert(OPINT_SAME(opq, word, struct mpd__opq_h1) &&
                   OPINT_SAME(opq, wfirst, struct mpd__opq_h1) &&
                   OPINT_SAME(opq, wlast, struct mpd__opq_h1) &&
                   OPINT_SAME(opq, grp, struct mpd__opq_h1) &&
                   OPINT_SAME(opq, cls, struct mpd__opq_h1),
               "handoff.h: opq");
_Static_assert(OPINT_SAME(opcls, fwd, struct mpd__cls_h1) &&
                   OPINT_SAME(opcls, seq, struct mpd__cls_h1) &&
                   OPINT_SAME(opcls, holds, struct mpd__cls_h1) &&
                   OPINT_SAME(opcls, hwfirst, struct mpd__cls_h1) &&
                   OPINT_SAME(opcls, dq, struct mpd__cls_h1),
               "handoff.h: opcls");
#undef OPINT_SAME
#endif

/* A grace period for memory other VPs may have looked up without a lock
 * (the object table); reclaim.c: begun once the memory is unreachable for new
 * lookups, it has passed when every other VP switched twice since, or
 * stayed idle in its loop across two looks (mpd_vp_quiescent).  Twice: a
 * process may read before its VP's count of the switch that started it is
 * visible.  Several VPs only. */
typedef struct opk_grace opk_grace;
opk_grace *opk_grace_begin(void);
int opk_grace_passed(opk_grace *g); /* frees nothing */

/* Runtime state of an object (res->rt). */
typedef struct resrt {
    uint32_t slot, gen;
    int state; /* RES_* */
    opcls cls;
    mpd_res *res;
    struct resrt *parent; /* local/dynamic op blocks: their resource */
    opk_event initdone;   /* creator waits here */
    int init_answered;    /* its creator was answered (res.c) */
    int no_creator;       /* the main resource: nobody to answer */
    int is_global;
    int is_local;
    mpd_invb *createblk;         /* the body process's until it ends */
    struct resrt *gnext;         /* globals, newest first */
    uint32_t vm;                 /* virtual machine it lives on (1 = the first) */
    struct resrt *anext, *aprev; /* live resources, oldest first (res.c) */
    int body_live;               /* its initial-code process has not ended */
    int in_cond;                 /* input statements with st/by in progress that
                               name one of its ops (inselect.c): they hold the op
                               across switches, rescanning when woken */
    int calls_parked;            /* several VPs: callers parked on its ops not
                               answered yet (the answer locks the op's class
                               through the op: invb.c, answer_barrier) */
    struct opq_chunk *qchunks;   /* its ops' queues (op.c), freed with it */
    uint32_t *gcount;            /* the map's classes' counts (opq.grp),
                                    in a chunk of qchunks */
    void *blobs;                 /* its variables' strings, arrays and records
                                   (mpd_res_blob_new), freed with it */
    const uint32_t *clsmap;      /* op index -> first op of its class, from
                                    the compiler (mpd_op_classes), or NULL */
    struct resrt *lnext;         /* killed objects waiting to be freed (reclaim.c) */
    opk_grace *grace;
    /* Reclamation (reclaim.c).  A destroyed instance is freed once its
     * processes (res->nproc) and its holds are gone: */
    int holds;            /* the instance alive (1 until the destroy ends),
                               a creator waiting for it, direct calls of its
                               procs that may switch (mpd__call_held), and
                               its op blocks killed but not freed yet */
    int reclaiming;       /* queued for freeing (once) */
    int revived;          /* a hold or process came after it was queued */
    int kept;             /* something still points into it: never freed */
    opk_lock klk;         /* kfirst and the children's knext/kprev */
    struct resrt *kfirst; /* its live op blocks (local ops, new(op)): they
                               die with it (MPD kills all of a resource's
                               ops) and are freed with it */
    struct resrt *knext, *kprev;
} resrt;

/* The queues of one mpd_op_input call, chained in their object's resrt so
 * that freeing the object finds them. */
struct opq_chunk {
    struct opq_chunk *next;
    opq q[];
};

enum { RES_INIT = 1, RES_ALIVE, RES_FINAL, RES_DEAD };

static inline resrt *res_rt(mpd_res *r)
{
    return (resrt *)r->rt;
}
/* The vm of this process's own instances (opobj.c; res.c sets it). */
extern uint32_t obj_home_vm;
/* The virtual machine of instance r (local op blocks: their resource's;
 * NULL: the running process's own). */
static inline uint32_t res_vm(mpd_res *r)
{
    if (!r)
        return obj_home_vm;
    resrt *rt = res_rt(r);
    while (rt->parent)
        rt = rt->parent;
    return rt->vm ? rt->vm : obj_home_vm;
}
static inline opq *op_queue(mpd_op *op)
{
    return (opq *)op->q;
}
/* A send, a call of an input op or a receive, with compaction
 * (mpd__compact): its triggers and trials count it (core/compact.c).  1
 * when it is one to look at: then the caller calls talk_sample (lang/inv.c)
 * on a path of its own, so that the usual one makes no call (a call there
 * made inv_deliver save a register more on every send, with one VP too). */
void talk_sample(mpd_op *op);
static inline int talk_note(void)
{
    if (mpd__mode != MPD_MODE_MULTI)
        return __builtin_expect(--mpd__compact_left == 0, 0);
    if (__builtin_expect(__atomic_load_n(&mpd__compact_count_multi, __ATOMIC_RELAXED), 0)) {
        unsigned long *c = mpd__tls_talk;
        if (c) /* read by the trial's end on another VP */
            __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    }
    return 0;
}
/* The inline P/V of mpd/abi/ops.h read an input op's SEM1 state from its
 * queue: every change of the flag goes through these two (and `fast` only
 * changes otherwise with the marker: opq_mark_waiting above). */
static inline void op_set_sem1(mpd_op *op)
{
    op->flags |= MPD_OPF_SEM1;
    op_queue(op)->fast = 1;
}
static inline void op_clear_flags(mpd_op *op, uint8_t flags)
{
    uint8_t old = __atomic_fetch_and(&op->flags, (uint8_t)~flags, __ATOMIC_RELEASE);
    if ((flags & MPD_OPF_SEM1) && op_kind(op) == MPD_OPK_INPUT) {
        opq *q = op_queue(op);
        if ((old & MPD_OPF_SEM1) && opq_word(q) == OPQ_WAITING)
            __atomic_store_n(&q->word, 0, __ATOMIC_RELAXED); /* count 0 */
        else
            __atomic_store_n(&q->fast, 0, __ATOMIC_RELAXED);
    }
}

/* opobj.c: the object table (its layout and lookup are in mpd/abi/ops.h, for
 * the inline call fast path). */
typedef mpd__slotent slotent;

/* The live object with this id, or NULL. */
static inline mpd_res *obj_lookup(uint64_t id)
{
    return mpd__obj_lookup(id);
}

mpd_res *obj_new(size_t size, uint32_t nops, const mpd_respat *pat, resrt *parent);

int obj_kill(mpd_res *r);              /* invalidate its id; 0: already */
void obj_free(mpd_res *r);             /* killed, unreachable: free it */
const char *obj_lastname(uint64_t id); /* pattern name of a slot */
/* More than one virtual machine exists (set once, by the first create vm()).
 * A call to a proc on another vm is a remote call in MPD 1.0.1: the caller
 * waits while the proc runs in a process of its own, and other processes
 * run meanwhile.  So from then on no op is `direct` (obj_undirect_all), the
 * inline mpd__call_fast leaves every proc call to mpd_call_op, and that
 * runs a direct proc on the caller's stack only when both are on one vm.
 * A program with one vm keeps the inline fast path untouched. */
extern _Atomic int op_vms_many;
void obj_undirect_all(void);
void obj_each_input_op(void (*fn)(mpd_op *, void *), void *arg);
uint32_t res_vm_of(mpd_res *r); /* res_vm, out of line */
extern const mpd_respat obj_localpat;
mpd_cap op_alias_base(mpd_cap rc); /* op.c: see mpd_rescap_with_op */

/* invb.c: invocation blocks and answering the invoker (the bottom of the
 * invocation path: it calls nothing above it) */
mpd_invb *inv_alloc(uint32_t size);
void inv_free(mpd_invb *ib);
mpd_invb *inv_copy(const mpd_invb *ib);
void inv_complete(mpd_invb *ib);   /* answer the invoker, free */
void inv_answer(mpd_invb *ib);     /* answer the invoker only  */
int inv_answer_creator(resrt *rt); /* MPD_INVF_CREATE blocks; 1: first */
/* Copy n bytes of parameters, word by word: blocks are small and a
 * library memcpy's start-up costs more than the copy (the asm keeps the
 * compiler from turning the loop back into a memcpy call). */
static inline void inv_copy_words(void *dst, const void *src, size_t n)
{
    uint64_t *d = dst;
    const uint64_t *s = src;
    for (size_t i = 0; i < n / 8; i++) {
        uint64_t w = s[i];
        __asm__("" : "+r"(w));
        d[i] = w;
    }
    if (n % 8)
        memcpy((char *)dst + (n & ~(size_t)7), (const char *)src + (n & ~(size_t)7), n % 8);
}
/* invb.c's per-thread block cache (16-byte size classes up to 256 bytes,
 * and the 16-byte units it may still take): here so that one VP's send
 * (mpd_send_op) copies into a cached block inline, with no frame. */
#define INVB_NCLASS 16
extern _Thread_local mpd_invb *mpd__invb_cache[INVB_NCLASS];
extern _Thread_local size_t mpd__invb_room;
static inline unsigned invb_class(uint32_t size)
{
    return (size + 15) / 16 - 1;
}
/* The size of a runtime copy of ib (at least a header). */
static inline uint32_t invb_copy_size(const mpd_invb *ib)
{
    return ib->size < sizeof(mpd_invb) ? (uint32_t)sizeof(mpd_invb) : ib->size;
}
/* A block of that size from the cache, or NULL (then inv_alloc). */
__attribute__((always_inline)) static inline mpd_invb *invb_cached(uint32_t size)
{
    unsigned k = invb_class(size);
    mpd_invb *c;
    if (k >= INVB_NCLASS || !(c = mpd__invb_cache[k]))
        return NULL;
    mpd__invb_cache[k] = c->next;
    mpd__invb_room += k + 1;
    return c;
}
/* Make c (size bytes) a runtime-owned copy of ib, with no ties to any
 * invoker. */
__attribute__((always_inline)) static inline void invb_fill(mpd_invb *c, const mpd_invb *ib,
                                                            uint32_t size)
{
    *c = *ib;
    if (size > sizeof(mpd_invb))
        inv_copy_words(c + 1, ib + 1, size - sizeof(mpd_invb));
    c->size = size;
    c->flags = MPD_INVF_HEAP;
    c->state = INV_NEW;
    c->pins = 0;
    c->done = NULL;
    c->orig = NULL;
    c->co = NULL;
    c->next = c->prev = NULL;
}

/* A co statement (co.c); its completions are posted by invb.c. */
struct mpd_co {
    opk_lock lk;
    opk_event ev;         /* one post per completion */
    mpd_invb *dfirst;     /* completed, not yet returned by wait: newest first */
    uint32_t outstanding; /* started, not yet returned by wait */
    int abandoned;        /* mpd_co_end ran with invocations left */
};

/* inv.c: the dispatch on the op's kind (call, send, forward, co) */
mpd_op *inv_resolve(const char *F, int L, mpd_cap c, int for_input);
void inv_deliver(const char *F, int L, mpd_op *op, mpd_invb *ib);
void inv_send_none(const char *F, int L, mpd_op *op); /* send op() */

void res_kill_ops(mpd_res *r); /* op.c: r is destroyed, its ops die */

/* reclaim.c: freeing killed objects (docs/ops.md, "Resources and globals") */
/* Processes of destroyed instances not ended yet (a woken one may still
 * give back what it got from any op: nothing is freed while there are). */
extern long opk__retired_live;
void opk__retired_add(long d);
void obj_retire(mpd_res *o); /* a killed local/dynamic block */
int obj_block_unreachable(mpd_res *o);
void res_hold(mpd_res *r, int d);   /* holds of instance r */
void res_killed(mpd_res *r);        /* destroy: procs retired, count them */
void res_procs_gone(mpd_res *r);    /* its last process ended */
void res_kill_children(mpd_res *r); /* r destroyed: its blocks die */
void res_child_link(mpd_res *blk);  /* a new op block of a resource */
int res_child_unlink(mpd_res *blk); /* the block's owner ends it */

/* inqueue.c */
void in_arrive(mpd_op *op, mpd_invb *ib);        /* ib: stable memory */
opcls *in_arrive_call(mpd_op *op, mpd_invb *ib); /* a call: the invoker parks next */
void in_token(mpd_op *op);                       /* V on a counted op */
void in_uncount_op(mpd_op *op);                  /* make it a real queue */
int in_pending(mpd_op *op);                      /* ?op of an input op (inhold.c) */
extern mpd_invb mpd__semblk;                     /* what P/receive of a token gives */
void mpd__in_killed(mpd_op *op, mpd_invb *got);
/* After a wait in an input statement or P on op: a process whose resource
 * was destroyed meanwhile ends here, and what it was handed (got: a unit
 * of op, an invocation, or NULL) goes back, as if it had never waited. */
static inline void in_killed_check(mpd_op *op, mpd_invb *got)
{
    if (__builtin_expect(__atomic_load_n(&opk__any_killed, __ATOMIC_RELAXED), 0))
        mpd__in_killed(op, got);
}
void in_purge(mpd_op *op);
/* Kill op: it is dead for every later call, send or input, and its pending
 * invocations are answered (in_purge).
 * Inline: op.c (an op block's end, a destroy) and reclaim.c (the blocks
 * of a destroyed instance) both kill ops without calling each other. */
static inline void op_kill(mpd_op *op)
{
    uint8_t k = op_kind(op);
    __atomic_store_n(&op->direct, 0, __ATOMIC_RELEASE);
    op_clear_flags(op, MPD_OPF_SEM1);
    __atomic_store_n(&op->kind, MPD_OPK_DEAD, __ATOMIC_RELEASE);
    if (k == MPD_OPK_INPUT)
        in_purge(op);
}
int in_wake_retired(mpd_res *r);   /* r destroyed: end its waiters */
void in_retire_parked(mpd_res *r); /* ... and those on others' ops */
extern mpd_invb opk__killed_blk;

/* opcore.c: park the caller (registered as a waiter under c->lk, which is
 * held unless single) until unparked; records F/L. */
void opk_park_waiter(opk_lock *held, const char *F, int L);
/* The same without ending a retired process: the caller does that with
 * in_killed_check, giving back what it was handed. */
void opk_park_waiter_nokill(opk_lock *held, const char *F, int L);
int opk_self_retired(void); /* its resource was destroyed */
/* The same, launching p (mpd_proc_spawn'd) first: it may run at once. */
void opk_launch_park_waiter(mpd_proc *p, opk_lock *held, const char *F, int L);

/* opcore.c: the resource layer (res.c) is above the core of the ops
 * layer, which calls up only through these hooks, set by res.c before it
 * starts the first initial code. */
typedef struct opk_res_hooks {
    void (*body_done)(resrt *rt); /* a body process ends (midway too) */
    void (*program_end)(void);    /* every process finished or blocked */
} opk_res_hooks;
/* Set on every create, before its body process exists (so an atomic
 * pointer: creates on other VPs may set it meanwhile, to the same). */
void opk_set_res_hooks(const opk_res_hooks *h);
void opk_install_end(void);
void opk_install_report(void);

#endif
