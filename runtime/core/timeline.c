/* timeline.c: the timeline's event log -- per-thread buffers of fixed
 * records, the scheduler's hooks, and the collection at the end.
 *
 * A record is written by the thread it is about (a VP, or an I/O helper)
 * into its own buffer: a time stamp (the CPU's counter, converted to ns
 * only when the log is written out), four stores, no lock and no
 * formatting.  A buffer is a list of 1 MiB chunks; past MPD_TIMELINE_MAX
 * events a thread reuses its oldest chunk, so a long run keeps its end,
 * where a deadlock is.  Process names and creations go to a second list
 * that is never reused, so every process keeps its name.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* mpd__tl_on, which everyone else sees as const */
int mpd__tl_on_rw __asm__("mpd__tl_on");
#define mpd__tl_on mpd__tl_on_rw
int mpd__watch_on_rw __asm__("mpd__watch_on"); /* lang/trace.c sets it too */
#define MPD_TL_WRITER
#include "core/rt_internal.h"
#include "core/tl_write.h"

_Thread_local uint64_t mpd__tl_why;

#define CHUNK_EVS 32768 /* 1 MiB of records */
typedef struct tl_chunk {
    struct tl_chunk *next;
    tl_ev ev[CHUNK_EVS];
} tl_chunk;

/* A list of chunks written by one thread.  pos/end: the free part of the
 * last chunk; the reader (at the end) takes pos once. */
typedef struct tl_list {
    tl_ev *_Atomic pos;
    tl_ev *end;
    tl_chunk *first, *last;
    size_t nchunks;
} tl_list;

typedef struct tl_buf {
    tl_list ev;        /* events (oldest chunk reused past the limit) */
    tl_list keep;      /* creations and names (never reused) */
    int vp;            /* the VP this thread is, or -1 */
    int idle_noted;    /* IDLE recorded since the last RUN */
    uint32_t tid;      /* creation order of the buffer */
    uint32_t inv_next; /* invocation ids */
    uint64_t reused;   /* chunks overwritten */
    struct tl_buf *next;
} tl_buf;

static _Thread_local tl_buf *my;
static tl_buf *_Atomic all_bufs;
static atomic_uint nbufs;
static size_t max_chunks = 64; /* per thread: 2M events (MPD_TIMELINE_MAX) */
static const char *out_path;
static atomic_int finished;
static uint64_t tsc0; /* counter and clock at the start */
static int64_t ns0;

static inline uint64_t tl_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static int64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

__attribute__((constructor)) static void tl_init(void)
{
    const char *f = getenv("MPD_TIMELINE");
    if (!f || !*f)
        return;
    const char *m = getenv("MPD_TIMELINE_MAX");
    if (m && *m) {
        long long n = atoll(m);
        if (n > 0)
            max_chunks = (size_t)((n + CHUNK_EVS - 1) / CHUNK_EVS);
        if (max_chunks < 2)
            max_chunks = 2;
    }
    out_path = f;
    tsc0 = tl_now();
    ns0 = clock_ns();
    mpd__tl_on = 1;
    mpd__watch_on_rw = 1;
}

/* A chunk's pages are mapped with it (MAP_POPULATE): one call per 32768
 * events instead of a page fault every 128 on the recording path. */
static tl_chunk *chunk_new(void)
{
    tl_chunk *c = mmap(NULL, sizeof *c, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (c == MAP_FAILED)
        return NULL;
    c->next = NULL;
    return c;
}

static tl_buf *buf_new(void)
{
    tl_buf *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    mpd_vp *vp = vp_self();
    b->vp = vp ? vp->index : -1;
    b->tid = atomic_fetch_add(&nbufs, 1);
    b->next = atomic_load(&all_bufs);
    while (!atomic_compare_exchange_weak(&all_bufs, &b->next, b))
        ;
    my = b;
    return b;
}

/* l's last chunk is full: a new one, or (events, past the limit) the oldest. */
static int list_more(tl_buf *b, tl_list *l, int reuse)
{
    tl_chunk *c;
    if (reuse && l->nchunks >= max_chunks && l->first != l->last) {
        c = l->first;
        l->first = c->next;
        c->next = NULL;
        b->reused++;
    } else {
        c = chunk_new();
        if (!c)
            return 0;
        l->nchunks++;
        if (!l->first)
            l->first = c;
    }
    if (l->last)
        l->last->next = c;
    l->last = c;
    l->end = c->ev + CHUNK_EVS;
    atomic_store_explicit(&l->pos, c->ev, memory_order_release);
    return 1;
}

static __attribute__((noinline)) tl_buf *rec_slow(tl_list **lp, int keep)
{
    tl_buf *b = my;
    if (!b && !(b = buf_new()))
        return NULL;
    tl_list *l = keep ? &b->keep : &b->ev;
    *lp = l;
    if (atomic_load_explicit(&l->pos, memory_order_relaxed) == l->end && !list_more(b, l, !keep))
        return NULL;
    return b;
}

static inline void put_at(tl_list *l, uint64_t t, int kind, uint32_t pid, uint64_t a,
                          const char *file, int line)
{
    tl_ev *e = atomic_load_explicit(&l->pos, memory_order_relaxed);
    e->t = t;
    e->file = file;
    e->a = a;
    e->pid = pid;
    e->kl = (uint32_t)kind << 24 | ((uint32_t)line & 0xffffff);
    atomic_store_explicit(&l->pos, e + 1, memory_order_release);
}

/* One event at time t (events of one hook share a reading of the counter:
 * it is most of an event's cost). */
static inline void rec_at(uint64_t t, int kind, uint32_t pid, uint64_t a, const char *file,
                          int line)
{
    tl_buf *b = my;
    tl_list *l;
    if (__builtin_expect(!b || atomic_load_explicit(&b->ev.pos, memory_order_relaxed) == b->ev.end,
                         0)) {
        if (!rec_slow(&l, 0))
            return;
    } else {
        l = &b->ev;
    }
    put_at(l, t, kind, pid, a, file, line);
}

void mpd__tl_rec(int kind, uint32_t pid, uint64_t a, const char *file, int line)
{
    rec_at(tl_now(), kind, pid, a, file, line);
}

static void rec_keep(int kind, uint32_t pid, uint64_t a, const char *file, int line)
{
    tl_buf *b = my;
    tl_list *l;
    if (!b || atomic_load_explicit(&b->keep.pos, memory_order_relaxed) == b->keep.end) {
        if (!rec_slow(&l, 1))
            return;
    } else {
        l = &b->keep;
    }
    put_at(l, tl_now(), kind, pid, a, file, line);
}

static inline uint32_t pid_of(const mpd_proc *p)
{
    return p ? (uint32_t)p->seq + 1 : 0;
}

uint32_t mpd__tl_self(void)
{
    mpd_vp *vp = vp_self();
    return vp && vp->hot.cur ? pid_of((mpd_proc *)(void *)vp->hot.cur) : 0;
}

/* ---- names: literals are kept by reference, other names copied once ---- */

static mpd_spinlock names_lk = MPD_SPINLOCK_INIT;
static char **names;
static size_t nnames, names_cap;

static const char *intern(const char *s)
{
    mpd_spin_lock(&names_lk);
    for (size_t i = nnames; i-- > 0;) /* few distinct names: newest first */
        if (strcmp(names[i], s) == 0) {
            mpd_spin_unlock(&names_lk);
            return names[i];
        }
    const char *r = s;
    if (nnames == names_cap) {
        size_t cap = names_cap ? 2 * names_cap : 64;
        char **v = realloc(names, cap * sizeof *v);
        if (v) {
            names = v;
            names_cap = cap;
        }
    }
    char *c = nnames < names_cap ? strdup(s) : NULL;
    if (c) {
        names[nnames++] = c;
        r = c;
    } else {
        r = "?";
    }
    mpd_spin_unlock(&names_lk);
    return r;
}

/* ---- hooks of the core (each behind one test of mpd__tl_on) ---- */

void mpd__tl_created(mpd_proc *p)
{
    mpd_vp *vp = vp_self();
    mpd_proc *by = vp ? (mpd_proc *)(void *)vp->hot.cur : NULL;
    const char *name = p->name_ref ? p->name_ref : intern(mpd_proc_name(p));
    rec_keep(TL_CREATE, pid_of(p), pid_of(by), by ? by->hot.file : NULL, by ? by->hot.line : 0);
    rec_keep(TL_NAME, pid_of(p), (uint64_t)(uintptr_t)name, NULL, 0);
}

static void note_run(uint64_t t, mpd_proc *next)
{
    if (my)
        my->idle_noted = 0;
    rec_at(t, TL_RUN, pid_of(next), 0, NULL, 0);
}

void mpd__tl_switch(mpd_proc *self, mpd_proc *next, int kind)
{
    uint32_t me = pid_of(self);
    uint64_t t = tl_now();
    if (kind == PS_EXIT || self->state == P_DONE) {
        rec_at(t, TL_EXIT, me, 0, NULL, 0);
    } else if (kind == PS_READY) {
        rec_at(t, TL_YIELD, me, 0, self->hot.file, self->hot.line);
    } else {
        uint64_t why = self->state == P_NAPPING  ? (uint64_t)TL_WHY_TIMER << 56
                       : self->state == P_IOWAIT ? (uint64_t)TL_WHY_IO << 56
                       : mpd__tl_why             ? mpd__tl_why
                                                 : (uint64_t)TL_WHY_PARK << 56;
        rec_at(t, TL_BLOCK, me, why, self->hot.file, self->hot.line);
    }
    mpd__tl_why = 0;
    if (next)
        note_run(t, next);
}

void mpd__tl_loop_run(mpd_proc *p)
{
    mpd__tl_why = 0;
    note_run(tl_now(), p);
}

void mpd__tl_loop_idle(void)
{
    if (!my || !my->idle_noted) {
        mpd__tl_rec(TL_IDLE, 0, 0, NULL, 0);
        if (my)
            my->idle_noted = 1;
    }
}

void mpd__tl_woken(mpd_proc *p, int by)
{
    mpd__tl_rec(TL_WAKE, by == TL_BY_PROC ? mpd__tl_self() : 0, (uint64_t)by << 32 | pid_of(p),
                NULL, 0);
}

void mpd__tl_semdecl(const char *F, int L, const void *op, uint32_t index)
{
    rec_keep(TL_SEMDECL, mpd__tl_self(), (uint64_t)(uintptr_t)op | (uint64_t)(index & 0xffff) << 48,
             F, L);
}

/* An id for an invocation: this thread's count and its buffer's number. */
uint32_t mpd__tl_new_id(void)
{
    tl_buf *b = my ? my : buf_new();
    return b ? ++b->inv_next << 8 | (b->tid & 0xff) : 0;
}

/* ---- the end: gather every buffer, sort by time, write ---- */

static size_t list_count(const tl_list *l, tl_ev *pos)
{
    size_t n = 0;
    for (const tl_chunk *c = l->first; c; c = c->next)
        n += c == l->last ? (size_t)(pos - c->ev) : CHUNK_EVS;
    return n;
}

static size_t list_copy(const tl_list *l, tl_ev *pos, tl_rec *out, int vp, uint64_t tmax)
{
    size_t n = 0;
    for (const tl_chunk *c = l->first; c; c = c->next) {
        const tl_ev *e = c->ev, *end = c == l->last ? pos : c->ev + CHUNK_EVS;
        for (; e < end; e++) {
            if ((e->kl >> 24) >= TL_NKINDS || e->t > tmax)
                continue; /* being written as we read (another VP goes on) */
            out[n].e = *e;
            out[n].vp = vp;
            n++;
        }
    }
    return n;
}

static int by_time(const void *x, const void *y)
{
    const tl_rec *a = x, *b = y;
    if (a->e.t != b->e.t)
        return a->e.t < b->e.t ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void mpd__tl_finish(int status)
{
    if (!mpd__tl_on || atomic_exchange(&finished, 1))
        return;
    mpd__tl_rec(TL_END, 0, (uint64_t)(uint32_t)status, NULL, 0);
    uint64_t tsc1 = tl_now();
    int64_t ns1 = clock_ns();
    size_t n = 0;
    uint64_t reused = 0;
    int nvp = mpd__nvp > 0 ? mpd__nvp : 1;
    for (tl_buf *b = atomic_load(&all_bufs); b; b = b->next)
        n += list_count(&b->ev, atomic_load_explicit(&b->ev.pos, memory_order_acquire)) +
             list_count(&b->keep, atomic_load_explicit(&b->keep.pos, memory_order_acquire));
    tl_rec *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) {
        fprintf(stderr, "RTS warning: out of memory writing the timeline to %s\n", out_path);
        return;
    }
    size_t k = 0;
    /* A chunk list reused past the limit starts later than the others: the
     * log is complete only from the latest such start on. */
    uint64_t from = 0;
    for (tl_buf *b = atomic_load(&all_bufs); b; b = b->next) {
        int vp = b->vp;
        size_t k0 = k;
        k += list_copy(&b->ev, atomic_load_explicit(&b->ev.pos, memory_order_acquire), v + k, vp,
                       tsc1);
        if (b->reused && k > k0 && v[k0].e.t > from)
            from = v[k0].e.t;
        reused += b->reused;
        k += list_copy(&b->keep, atomic_load_explicit(&b->keep.pos, memory_order_acquire), v + k,
                       vp, tsc1);
    }
    for (size_t i = 0; i < k; i++)
        v[i].seq = i;
    qsort(v, k, sizeof *v, by_time);
    /* counter ticks to ns from the start, by the two readings of both */
    double scale = tsc1 > tsc0 && ns1 > ns0 ? (double)(ns1 - ns0) / (double)(tsc1 - tsc0) : 1.0;
    for (size_t i = 0; i < k; i++)
        v[i].ns = v[i].e.t >= tsc0 ? (int64_t)((double)(v[i].e.t - tsc0) * scale) : 0;
    int64_t from_ns = from > tsc0 ? (int64_t)((double)(from - tsc0) * scale) : 0;
    tl_log log = {v, k, nvp, status, reused * CHUNK_EVS, from_ns, out_path};
    if (mpd__tl_write(&log) != 0)
        fprintf(stderr, "RTS warning: cannot write the timeline to %s\n", out_path);
    free(v);
}
