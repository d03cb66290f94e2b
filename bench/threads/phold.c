/* phold.c: a Time Warp optimistic discrete-event simulation kernel on mpd threads, run on the
 * PHOLD workload (after the configurable-threads paper).  One worker thread per VP runs the
 * logical processes (LPs) mapped there.  Per VP, three locks guard what other VPs touch:
 * the incoming event list, the free event list and the cancellation list.  GVT is computed at
 * barriers every GVT_EVERY events; events below GVT are committed (fossil collected).
 * The committed trajectory is deterministic: its checksum must not depend on VPs or locks.
 * Usage: phold LOCK NVP [END_TIME [LPS [THROTTLE [PROFILE_DIR]]]]  (THROTTLE 0 = off, else window)
 * Prints: "phold lock=.. nvp=.. committed=.. rolled_back=.. checksum=.. seconds=.." */
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include "apps_common.h"

#define MAXVP 32
#define EV_PER_LP 4
#define GVT_EVERY 256
#define GRAIN 300 /* busy-loop iterations per event: the model's work */

typedef struct event {
    struct event *next; /* list link (incoming, pending heap unused, free, sent) */
    double ts;
    int dst;                 /* destination LP */
    int state;               /* IN_FLIGHT, PENDING, DONE, CANCELLED */
    int hidx;                /* position in the owner's pending heap while PENDING */
    struct event *sent_next; /* chain of events this event's processing sent */
    struct event *sent;      /* head of that chain */
    uint64_t saved_rng;      /* LP state before processing */
    long saved_count;
} event;
enum { IN_FLIGHT, PENDING, DONE, CANCELLED };

typedef struct lp {
    uint64_t rng;
    long count;       /* events processed (committed part is the checksum) */
    event *processed; /* newest first */
} lp;

typedef struct vpstate {
    app_lock_t *in_lock, *free_lock, *cancel_lock;
    event *incoming, *freelist, *cancels; /* cancels: chain via next of small records */
    event **heap;
    int nheap, capheap; /* pending events, by ts (owner only) */
    long committed, rolled_back, processed;
    double local_min;
    char pad[64];
} vpstate;

typedef struct cancel_rec {
    struct cancel_rec *next;
    event *ev;
} cancel_rec;

static int nvp, nlp;
static double end_time, mean = 1.0;
static lp *lps;
static vpstate vs[MAXVP];
static int throttle;
static double gvt;
static int done_flag;
static cancel_rec *_Atomic cancel_pool; /* unused; records are malloc'd */

static int owner(int lpid)
{
    return lpid % nvp;
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}
static double rng_exp(uint64_t *s)
{
    return -mean * log(((rng_next(s) >> 11) + 1) * (1.0 / 9007199254740993.0));
}

/* Sense-reversing barrier that spins, then gives the CPU back to the OS
 * (more VPs than cores must not spin against a descheduled peer). */
static atomic_int bar_count, bar_gen;
static void barrier(void)
{
    int g = atomic_load(&bar_gen);
    if (atomic_fetch_add(&bar_count, 1) == nvp - 1) {
        atomic_store(&bar_count, 0);
        atomic_fetch_add(&bar_gen, 1);
        return;
    }
    for (unsigned i = 1; atomic_load(&bar_gen) == g; i++)
        if (i % 64 == 0)
            sched_yield();
}

/* ---- pending heap (min ts) ----
 * Each event knows its slot (hidx), so a cancelled pending event is removed
 * in O(log n) instead of rebuilding the heap. */
static void heap_set(vpstate *v, int i, event *e)
{
    v->heap[i] = e;
    e->hidx = i;
}
static void heap_up(vpstate *v, int i, event *e)
{
    while (i > 0 && v->heap[(i - 1) / 2]->ts > e->ts) {
        heap_set(v, i, v->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(v, i, e);
}
static void heap_down(vpstate *v, int i, event *e)
{
    for (;;) {
        int c = 2 * i + 1;
        if (c >= v->nheap)
            break;
        if (c + 1 < v->nheap && v->heap[c + 1]->ts < v->heap[c]->ts)
            c++;
        if (v->heap[c]->ts >= e->ts)
            break;
        heap_set(v, i, v->heap[c]);
        i = c;
    }
    heap_set(v, i, e);
}
static void heap_push(vpstate *v, event *e)
{
    if (v->nheap == v->capheap) {
        v->capheap = v->capheap ? 2 * v->capheap : 256;
        v->heap = realloc(v->heap, sizeof(event *) * (size_t)v->capheap);
    }
    heap_up(v, v->nheap++, e);
    e->state = PENDING;
}
/* Take out the event at slot i: the last event fills the hole and moves up or down. */
static void heap_take(vpstate *v, int i)
{
    event *last = v->heap[--v->nheap];
    if (i == v->nheap)
        return;
    if (i > 0 && v->heap[(i - 1) / 2]->ts > last->ts)
        heap_up(v, i, last);
    else
        heap_down(v, i, last);
}
static event *heap_pop(vpstate *v)
{
    if (!v->nheap)
        return NULL;
    event *top = v->heap[0];
    heap_take(v, 0);
    return top;
}
static void heap_remove(vpstate *v, event *e)
{ /* cancellation of a pending event */
    heap_take(v, e->hidx);
}

/* ---- events between VPs ---- */
static event *ev_alloc(vpstate *v)
{
    app_acquire(v->free_lock);
    event *e = v->freelist;
    if (e)
        v->freelist = e->next;
    app_release(v->free_lock);
    if (!e)
        e = malloc(sizeof *e);
    memset(e, 0, sizeof *e);
    return e;
}
static void ev_free(vpstate *v, event *e)
{
    app_acquire(v->free_lock);
    e->next = v->freelist;
    v->freelist = e;
    app_release(v->free_lock);
}

static event *send(double ts, int dst)
{
    vpstate *d = &vs[owner(dst)];
    event *e = ev_alloc(d);
    e->ts = ts;
    e->dst = dst;
    e->state = IN_FLIGHT;
    app_acquire(d->in_lock);
    e->next = d->incoming;
    d->incoming = e;
    app_release(d->in_lock);
    return e;
}

static void send_cancel(event *e)
{
    vpstate *d = &vs[owner(e->dst)];
    cancel_rec *c = malloc(sizeof *c);
    c->ev = e;
    app_acquire(d->cancel_lock);
    c->next = (cancel_rec *)d->cancels;
    d->cancels = (event *)c;
    app_release(d->cancel_lock);
}

/* Undo LP l's processed events with ts >= t (newest first); the events go back to pending. */
static void rollback(vpstate *v, lp *l, double t, event *except)
{
    while (l->processed && l->processed->ts >= t) {
        event *e = l->processed;
        l->processed = e->next;
        l->rng = e->saved_rng;
        l->count = e->saved_count;
        for (event *s = e->sent; s;) {
            event *n = s->sent_next;
            send_cancel(s);
            s = n;
        }
        e->sent = NULL;
        v->rolled_back++;
        if (throttle)
            mpd_throttle_rolled_back(1);
        if (e != except)
            heap_push(v, e);
        else
            e->state = CANCELLED;
    }
}

static void drain(vpstate *v)
{
    cancel_rec *cl = NULL;
    if (v->cancels) { /* take cancels first: their events are already queued */
        app_acquire(v->cancel_lock);
        cl = (cancel_rec *)v->cancels;
        v->cancels = NULL;
        app_release(v->cancel_lock);
    }
    event *in = NULL;
    app_acquire(v->in_lock);
    in = v->incoming;
    v->incoming = NULL;
    app_release(v->in_lock);
    while (in) {
        event *e = in;
        in = e->next;
        lp *l = &lps[e->dst];
        if (l->processed && l->processed->ts > e->ts)
            rollback(v, l, e->ts, NULL); /* straggler */
        heap_push(v, e);
    }
    while (cl) {
        cancel_rec *c = cl;
        cl = c->next;
        event *e = c->ev;
        free(c);
        if (e->state == PENDING) {
            heap_remove(v, e);
            e->state = CANCELLED;
        } else if (e->state == DONE)
            rollback(v, &lps[e->dst], e->ts, e);
        ev_free(v, e);
    }
}

static void process(vpstate *v, event *e)
{
    lp *l = &lps[e->dst];
    e->saved_rng = l->rng;
    e->saved_count = l->count;
    for (volatile int i = 0; i < GRAIN; i++) {
    }
    l->count++;
    int dst = (int)(rng_next(&l->rng) % (uint64_t)nlp);
    double ts = e->ts + rng_exp(&l->rng);
    event *s = send(ts, dst);
    s->sent_next = e->sent;
    e->sent = s;
    e->state = DONE;
    e->next = l->processed;
    l->processed = e;
    v->processed++;
    if (throttle)
        mpd_throttle_processed(1);
}

/* Commit everything below gvt: free the events, forget what they sent. */
static void fossil(vpstate *v, int me, double gvt)
{
    for (int i = me; i < nlp; i += nvp) {
        lp *l = &lps[i];
        event **pp = &l->processed;
        while (*pp && (*pp)->ts >= gvt)
            pp = &(*pp)->next;
        event *old = *pp;
        *pp = NULL;
        while (old) {
            event *n = old->next;
            v->committed++;
            if (throttle)
                mpd_throttle_committed(1);
            ev_free(v, old);
            old = n;
        }
    }
}

static double gvt_round(int me)
{
    vpstate *v = &vs[me];
    barrier(); /* nobody sends now */
    drain(v);
    barrier(); /* rollbacks' cancellations are queued */
    drain(v);
    v->local_min = v->nheap ? v->heap[0]->ts : INFINITY;
    barrier();
    double g = INFINITY;
    for (int i = 0; i < nvp; i++)
        if (vs[i].local_min < g)
            g = vs[i].local_min;
    barrier(); /* everyone read local_min before it changes */
    return g;
}

static void *worker(void *arg)
{
    int me = (int)(long)arg;
    vpstate *v = &vs[me];
    double last_gvt = 0;
    for (;;) {
        for (int k = 0; k < GVT_EVERY; k++) {
            drain(v);
            if (!v->nheap || v->heap[0]->ts >= end_time)
                break;
            /* window full: only the event at GVT (not speculative) may still run */
            if (throttle && v->heap[0]->ts > last_gvt && !mpd_throttle_ok())
                break;
            process(v, heap_pop(v));
        }
        double g = gvt_round(me); /* every worker computes the same value */
        if (me == 0)
            gvt = g;
        last_gvt = g;
        fossil(v, me, g);
        if (g >= end_time)
            break;
    }
    return NULL;
}

static double elapsed;
static void sim_main(void *arg)
{
    (void)arg;
    for (int i = 0; i < nlp; i++) {
        lps[i].rng = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
        for (int k = 0; k < EV_PER_LP; k++) {
            event *e = calloc(1, sizeof *e);
            e->ts = rng_exp(&lps[i].rng);
            e->dst = i;
            heap_push(&vs[owner(i)], e);
        }
    }
    mpd_thread_t *t[MAXVP];
    double t0 = app_now();
    for (int i = 0; i < nvp; i++) {
        mpd_thread_attr_t a;
        mpd_thread_attr_init(&a);
        a.vp = i;
        a.name = "timewarp";
        mpd_thread_fork(&t[i], &a, worker, (void *)(long)i);
    }
    for (int i = 0; i < nvp; i++)
        mpd_thread_join(t[i], NULL);
    elapsed = app_now() - t0;
    (void)done_flag;
    (void)cancel_pool;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: phold spin|block|backoff|spinblock|adaptive|pthread NVP [END_TIME "
                        "[LPS [THROTTLE [PROFILE_DIR]]]]\n");
        return 2;
    }
    enum app_kind k = app_lock_kind(argv[1]);
    nvp = atoi(argv[2]);
    end_time = argc > 3 ? atof(argv[3]) : 200;
    nlp = argc > 4 ? atoi(argv[4]) : 64;
    throttle = argc > 5 ? atoi(argv[5]) : 0;
    const char *pdir = argc > 6 ? argv[6] : NULL;
    if (nvp < 1 || nvp > MAXVP || nlp < nvp || end_time <= 0 || throttle < 0) {
        fprintf(stderr, "phold: NVP 1..%d, LPS >= NVP, END_TIME > 0, THROTTLE >= 0\n", MAXVP);
        return 2;
    }
    lps = calloc((size_t)nlp, sizeof *lps);
    for (int i = 0; i < nvp; i++) {
        vs[i].in_lock = app_lock("incoming", k);
        vs[i].free_lock = app_lock("free", k);
        vs[i].cancel_lock = app_lock("cancel", k);
    }
    mpd_sched_attr_t s;
    mpd_sched_attr_init(&s);
    s.migrate = 0;
    s.throttle = throttle;
    mpd_sched_install(-1, &s);
    mpd_threads_main(nvp, sim_main, NULL);
    long committed = 0, rolled = 0;
    uint64_t sum = 0;
    for (int i = 0; i < nvp; i++) {
        committed += vs[i].committed;
        rolled += vs[i].rolled_back;
    }
    /* checksum of the committed trajectory: LP states at end_time */
    for (int i = 0; i < nlp; i++) {
        lp *l = &lps[i];
        long c = l->count;
        uint64_t r = l->rng;
        for (event *e = l->processed; e; e = e->next) {
            c = e->saved_count;
            r = e->saved_rng;
        }
        sum = sum * 31 + (uint64_t)c * 1000003u + r;
    }
    printf("phold lock=%s nvp=%d lps=%d end=%g committed=%ld rolled_back=%ld checksum=%016llx "
           "seconds=%.4f",
           argv[1], nvp, nlp, end_time, committed, rolled, (unsigned long long)sum, elapsed);
    for (int i = 0; i < nvp; i++) {
        app_stats_add(vs[i].in_lock);
        app_stats_add(vs[i].free_lock);
        app_stats_add(vs[i].cancel_lock);
    }
    app_stats_print();
    char prefix[64];
    snprintf(prefix, sizeof prefix, "phold-%s-%d", argv[1], nvp);
    app_write_profile(pdir, prefix, vs[0].in_lock);
    app_write_profile(pdir, prefix, vs[0].free_lock);
    app_write_profile(pdir, prefix, vs[0].cancel_lock);
    return 0;
}
