/* opobj.c: the object table -- capabilities name objects by (slot, generation), never by pointer. */
#include <stdio.h>
#include <sys/mman.h>
#include "opint.h"
#include "disthook.h"

static opk_lock tablk = OPK_LOCK_INIT;
static uint32_t nslots = 1; /* slot 0 unused */
static uint32_t freelist;   /* 0 = empty */
static unsigned live_res;   /* live resource/global instances */
unsigned mpd_max_resources;

const mpd_cap mpd_cap_null = MPD_CAP_NULL_INIT;
const mpd_cap mpd_cap_noop = MPD_CAP_NOOP_INIT;

const mpd_respat obj_localpat = {"local ops", sizeof(mpd_res), 0, 0, 0, 0, 0};

_Atomic(slotent *) mpd__obj_tab;

/* The table is reserved whole (address space only: pages are touched as
 * slots are used), so it never moves and lookups need no lock. */
static slotent *slot_ent(uint32_t slot)
{
    return &atomic_load_explicit(&mpd__obj_tab, memory_order_relaxed)[slot];
}

static uint32_t slot_take(void)
{
    uint32_t s;
    if (freelist) {
        s = freelist;
        freelist = slot_ent(s)->nextfree;
        return s;
    }
    if (nslots >= MPD__OBJ_MAX)
        mpd_rts_fatal("too many objects (resources and local op blocks)");
    if (!atomic_load_explicit(&mpd__obj_tab, memory_order_relaxed)) {
        void *t = mmap(NULL, (size_t)MPD__OBJ_MAX * sizeof(slotent), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (t == MAP_FAILED)
            mpd_rts_fatal("out of memory (object table)");
        atomic_store_explicit(&mpd__obj_tab, (slotent *)t, memory_order_release);
    }
    return nslots++;
}

mpd_res *obj_new(size_t size, uint32_t nops, const mpd_respat *pat, resrt *parent)
{
    if (size < sizeof(mpd_res))
        size = sizeof(mpd_res);
    mpd_res *r = calloc(1, size);
    resrt *rt = calloc(1, sizeof *rt);
    mpd_op *ops = calloc(nops + 1, sizeof *ops); /* + a NONE sentinel */
    if (!r || !rt || !ops)
        mpd_rts_fatal("out of memory");
    r->pat = pat;
    r->ops = ops;
    r->rt = rt;
    rt->res = r;
    r->nops = nops;
    rt->parent = parent;
    rt->is_local = parent != NULL;
    opk_lock_init(&rt->cls.lk);
    opk_event_init(&rt->initdone);
    for (uint32_t i = 0; i < nops; i++) {
        ops[i].idx = i;
        ops[i].owner = r;
    }
    opk_acquire(&tablk);
    if (!parent) {
        if (mpd_max_resources && live_res >= mpd_max_resources) {
            opk_release(&tablk);
            mpd_rts_fatal("too many active resources");
        }
        live_res++;
    }
    uint32_t s = slot_take();
    slotent *e = slot_ent(s);
    uint32_t g = (uint32_t)(atomic_load_explicit(&e->id, memory_order_relaxed) >> 32) + 1;
    if (g == 0)
        g = 1;
    r->id = ((uint64_t)g << 32) | s;
    /* release: a look that reads these with a stale id must see r made
     * (and then the id changed, mpd__obj_lookup) */
    atomic_store_explicit(&e->res, r, memory_order_release);
    atomic_store_explicit(&e->ops, ops, memory_order_release);
    atomic_store_explicit(&e->nops, nops, memory_order_relaxed);
    e->lastpat = pat;
    atomic_store_explicit(&e->id, r->id, memory_order_release);
    opk_release(&tablk);
    rt->slot = s;
    rt->gen = g;
    return r;
}

_Atomic int op_vms_many;

/* Calls fn(op, arg) for every op of every live object: every slot not on
 * the free list holds a live object whose op table is valid (the caller
 * holds the table lock, or every other VP is dormant). */
static void each_op(void (*fn)(mpd_op *, void *), void *arg)
{
    unsigned char *free_slot = calloc(nslots, 1);
    if (!free_slot)
        mpd_rts_fatal("out of memory");
    for (uint32_t s = freelist; s; s = slot_ent(s)->nextfree)
        free_slot[s] = 1;
    for (uint32_t s = 1; s < nslots; s++) {
        if (free_slot[s])
            continue;
        slotent *e = slot_ent(s);
        mpd_op *ops = atomic_load_explicit(&e->ops, memory_order_relaxed);
        uint32_t n = atomic_load_explicit(&e->nops, memory_order_relaxed);
        for (uint32_t i = 0; ops && i < n; i++)
            fn(&ops[i], arg);
    }
    free(free_slot);
}

static void undirect(mpd_op *op, void *arg)
{
    (void)arg;
    __atomic_store_n(&op->direct, 0, __ATOMIC_SEQ_CST);
}

/* Clears `direct` on every op of every live object (the first create vm()),
 * under the table lock; a proc declared meanwhile reads op_vms_many after
 * storing its own flag (mpd_op_proc). */
void obj_undirect_all(void)
{
    opk_acquire(&tablk);
    each_op(undirect, NULL);
    opk_release(&tablk);
}

struct input_fn {
    void (*fn)(mpd_op *, void *);
    void *arg;
};

static void if_input(mpd_op *op, void *arg)
{
    struct input_fn *f = arg;
    if (op_kind(op) == MPD_OPK_INPUT && op_queue(op))
        f->fn(op, f->arg);
}

/* Calls fn(op, arg) for every input op with a queue of every live object:
 * compaction's look at every op (op.c mpd__lang_sem1_all), on the one VP
 * awake with every other VP dormant. */
void obj_each_input_op(void (*fn)(mpd_op *, void *), void *arg)
{
    struct input_fn f = {fn, arg};
    each_op(if_input, &f);
}

const char *obj_lastname(uint64_t id)
{
    uint32_t s = (uint32_t)id;
    slotent *e =
        (s && s < MPD__OBJ_MAX && atomic_load_explicit(&mpd__obj_tab, memory_order_acquire))
            ? slot_ent(s)
            : NULL;
    return e && e->lastpat ? e->lastpat->name : "?";
}

/* The slot is reused under a new generation, so stale capabilities fail.
 * The memory is not freed here: a process on another virtual processor may
 * still hold a pointer it looked up just before (op blocks are freed later
 * by obj_free, op.c; resource instances never). */
int obj_kill(mpd_res *r)
{
    resrt *rt = res_rt(r);
    int killed = 0;
    opk_acquire(&tablk);
    slotent *e = slot_ent(rt->slot);
    if (atomic_load_explicit(&e->id, memory_order_relaxed) == r->id) {
        killed = 1;
        /* the next generation: no capability of r matches any more */
        atomic_store_explicit(&e->id, ((uint64_t)(rt->gen + 1) << 32) | rt->slot,
                              memory_order_release);
        e->nextfree = freelist;
        freelist = rt->slot;
        if (!rt->is_local)
            live_res--;
    }
    opk_release(&tablk);
    return killed;
}

/* r was killed (obj_kill) and nothing points into it any more (the caller
 * knows why): its slot already serves the next object, so only its memory
 * is left. */
/* Storage of n bytes (zeroed) for a variable of instance r: a string,
 * array or record blob, linked into the instance so that freeing the
 * instance frees it.  The header keeps the blob 16-byte aligned, as
 * malloc's.  Processes of r and the body process can declare at once on
 * several VPs, hence the atomic push. */
void *mpd_res_blob_new(mpd_res *r, size_t n)
{
    void **b = calloc(1, 16 + n);
    if (!b)
        mpd_rts_fatal("out of memory");
    resrt *rt = res_rt(r);
    void *head = __atomic_load_n(&rt->blobs, __ATOMIC_RELAXED);
    do
        *b = head;
    while (
        !__atomic_compare_exchange_n(&rt->blobs, &head, b, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
    return (char *)b + 16;
}

void obj_free(mpd_res *r)
{
    resrt *rt = res_rt(r);
    for (struct opq_chunk *ch = rt->qchunks, *n; ch; ch = n) {
        n = ch->next;
        free(ch);
    }
    for (void **b = rt->blobs, **n; b; b = n) {
        n = *b;
        free(b);
    }
    free(r->ops);
    free(rt);
    free(r);
}

/* The vm this process serves (disthook.h): 1 unless distributed. */
uint32_t mpd__cap_vm = 1;
/* The vm of this process's own instances: 1, or in the distributed
 * deployment the one this process serves (res_set_home_vm). */
uint32_t obj_home_vm = 1;

uint32_t res_vm_of(mpd_res *r)
{
    return res_vm(r);
}
const mpd_dist_ops *mpd__dist;

mpd_cap mpd_cap_of(mpd_res *self, uint32_t i)
{
    mpd_cap c = {mpd__cap_vm, i, self->id};
    return c;
}

mpd_cap mpd_rescap_of(mpd_res *self)
{
    mpd_cap c = {mpd__cap_vm, MPD_CAP_RES, self->id};
    return c;
}
