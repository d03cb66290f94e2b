/* ras.c: the restartable-atomic-sequence registry, PC rewind, and the RAS mutex. */
#include "mpd/ras.h"

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <ucontext.h>

/* One registered range.  Readers (signal handlers) never lock: a writer makes
 * ver odd while it changes start/end, and a reader skips a slot whose version
 * is odd or changed under it.  A slot is free when end == 0. */
typedef struct {
    atomic_uint ver;
    atomic_uintptr_t start, end;
    atomic_ulong restarts;
} ras_slot;

static ras_slot slots[MPD_RAS_HARD_LIMIT];
static atomic_int hiwater; /* slots [0, hiwater) may be in use */
static int nras;           /* registered now (under reg_lock) */
static int limit = MPD_RAS_DEFAULT_LIMIT;
static atomic_ulong total_restarts;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- program counter in a signal context ---- */
static uintptr_t uc_pc(const ucontext_t *uc)
{
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

static void uc_set_pc(ucontext_t *uc, uintptr_t pc)
{
#if defined(__x86_64__)
    uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
#elif defined(__aarch64__)
    uc->uc_mcontext.pc = pc;
#else
    (void)uc;
    (void)pc;
#endif
}

/* ---- address validation: the range must lie in one executable segment ---- */
struct range_query {
    uintptr_t lo, hi;
    int ok;
};

static int in_exec_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct range_query *q = arg;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t s = info->dlpi_addr + ph->p_vaddr, e = s + ph->p_memsz;
        if (q->lo >= s && q->hi <= e) {
            q->ok = 1;
            return 1;
        }
    }
    return 0;
}

static int valid_code_range(uintptr_t lo, uintptr_t hi)
{
    struct range_query q = {lo, hi, 0};
    dl_iterate_phdr(in_exec_segment, &q);
    return q.ok;
}

/* ---- registry ---- */
static int find_slot(uintptr_t s, uintptr_t e)
{
    int n = atomic_load(&hiwater);
    for (int i = 0; i < n; i++)
        if (atomic_load(&slots[i].start) == s && atomic_load(&slots[i].end) == e)
            return i;
    return -1;
}

static int overlaps(uintptr_t s, uintptr_t e)
{
    int n = atomic_load(&hiwater);
    for (int i = 0; i < n; i++) {
        uintptr_t ss = atomic_load(&slots[i].start), ee = atomic_load(&slots[i].end);
        if (ee != 0 && s < ee && ss < e)
            return 1;
    }
    return 0;
}

static void slot_write(ras_slot *sl, uintptr_t s, uintptr_t e)
{
    atomic_fetch_add(&sl->ver, 1); /* odd: readers skip */
    atomic_store(&sl->end, 0);
    atomic_store(&sl->start, s);
    atomic_store(&sl->restarts, 0);
    atomic_store(&sl->end, e);
    atomic_fetch_add(&sl->ver, 1); /* even again */
}

static int ras_install(uintptr_t s, size_t len)
{
    uintptr_t e = s + len;
    if (s == 0 || len == 0 || e < s)
        return EINVAL;
    if (!valid_code_range(s, e))
        return EINVAL;
    if (nras >= limit || overlaps(s, e))
        return EINVAL;
    int n = atomic_load(&hiwater), i;
    for (i = 0; i < n; i++)
        if (atomic_load(&slots[i].end) == 0)
            break;
    slot_write(&slots[i], s, e);
    if (i == n)
        atomic_store(&hiwater, n + 1);
    nras++;
    return 0;
}

static int ras_purge(uintptr_t s, size_t len)
{
    int i = find_slot(s, s + len);
    if (len == 0 || i < 0)
        return ESRCH;
    slot_write(&slots[i], 0, 0);
    nras--;
    return 0;
}

static void ras_purge_all(void)
{
    int n = atomic_load(&hiwater);
    for (int i = 0; i < n; i++)
        if (atomic_load(&slots[i].end) != 0)
            slot_write(&slots[i], 0, 0);
    atomic_store(&hiwater, 0);
    nras = 0;
}

int mpd_rasctl(void *addr, size_t len, int op)
{
    int err = 0;
    pthread_mutex_lock(&reg_lock);
    switch (op) {
    case MPD_RAS_INSTALL:
        err = ras_install((uintptr_t)addr, len);
        break;
    case MPD_RAS_PURGE:
        err = ras_purge((uintptr_t)addr, len);
        break;
    case MPD_RAS_PURGE_ALL:
        ras_purge_all();
        break;
    default:
        err = EINVAL;
        break;
    }
    pthread_mutex_unlock(&reg_lock);
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}

int mpd_ras_set_limit(int l)
{
    int err = 0;
    pthread_mutex_lock(&reg_lock);
    if (l < 1 || l > MPD_RAS_HARD_LIMIT || l < nras)
        err = EINVAL;
    else
        limit = l;
    pthread_mutex_unlock(&reg_lock);
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}

int mpd_ras_limit(void)
{
    pthread_mutex_lock(&reg_lock);
    int l = limit;
    pthread_mutex_unlock(&reg_lock);
    return l;
}

int mpd_ras_count(void)
{
    pthread_mutex_lock(&reg_lock);
    int n = nras;
    pthread_mutex_unlock(&reg_lock);
    return n;
}

/* Linear scan, async-signal-safe (no locks, atomics only). */
static ras_slot *lookup_slot(uintptr_t pc)
{
    int n = atomic_load_explicit(&hiwater, memory_order_acquire);
    for (int i = 0; i < n; i++) {
        ras_slot *sl = &slots[i];
        unsigned v = atomic_load_explicit(&sl->ver, memory_order_acquire);
        if (v & 1)
            continue;
        uintptr_t s = atomic_load_explicit(&sl->start, memory_order_relaxed);
        uintptr_t e = atomic_load_explicit(&sl->end, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&sl->ver, memory_order_relaxed) != v)
            continue;
        if (pc >= s && pc < e)
            return sl;
    }
    return NULL;
}

void *mpd_ras_lookup(const void *pc)
{
    ras_slot *sl = lookup_slot((uintptr_t)pc);
    return sl ? (void *)atomic_load_explicit(&sl->start, memory_order_relaxed) : NULL;
}

int mpd_ras_fixup(void *ucontext)
{
    ucontext_t *uc = ucontext;
    uintptr_t pc = uc_pc(uc);
    ras_slot *sl = lookup_slot(pc);
    if (!sl)
        return 0;
    uintptr_t s = atomic_load_explicit(&sl->start, memory_order_relaxed);
    if (pc != s) { /* already at the start: nothing to undo */
        uc_set_pc(uc, s);
        atomic_fetch_add_explicit(&sl->restarts, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&total_restarts, 1, memory_order_relaxed);
    }
    return 1;
}

unsigned long mpd_ras_restarts(const void *addr)
{
    int n = atomic_load(&hiwater);
    for (int i = 0; i < n; i++)
        if (atomic_load(&slots[i].end) != 0 && atomic_load(&slots[i].start) == (uintptr_t)addr)
            return atomic_load(&slots[i].restarts);
    return 0;
}

unsigned long mpd_ras_restarts_total(void)
{
    return atomic_load(&total_restarts);
}

/* ---- built-in sequences ---- */
/* 1: the built-ins take their interlocked path (ras_seq.S tests this first).
 * The safe default: a sequence is atomic only among the threads of ONE OS
 * thread, so the restartable path is used only once the caller declares that
 * one OS thread runs them (mpd_ras_set_uniprocessor; the threads layer does
 * it for one VP). */
__attribute__((visibility("hidden"))) int mpd_ras__interlocked = 1;

int mpd_ras_set_uniprocessor(int on)
{
    int was = !__atomic_load_n(&mpd_ras__interlocked, __ATOMIC_RELAXED);
    __atomic_store_n(&mpd_ras__interlocked, on ? 0 : 1, __ATOMIC_SEQ_CST);
    return was;
}

int mpd_ras_uniprocessor(void)
{
    return MPD_RAS_NATIVE && !__atomic_load_n(&mpd_ras__interlocked, __ATOMIC_RELAXED);
}

#if MPD_RAS_NATIVE
int mpd_ras_init(void)
{
    pthread_mutex_lock(&reg_lock);
    int err = 0;
    if (find_slot((uintptr_t)mpd_ras_tas_begin, (uintptr_t)mpd_ras_tas_end) < 0)
        err = ras_install((uintptr_t)mpd_ras_tas_begin,
                          (size_t)(mpd_ras_tas_end - mpd_ras_tas_begin));
    if (!err && find_slot((uintptr_t)mpd_ras_fetch_add_begin, (uintptr_t)mpd_ras_fetch_add_end) < 0)
        err = ras_install((uintptr_t)mpd_ras_fetch_add_begin,
                          (size_t)(mpd_ras_fetch_add_end - mpd_ras_fetch_add_begin));
    pthread_mutex_unlock(&reg_lock);
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}

int mpd_ras_builtin_purge(void)
{
    pthread_mutex_lock(&reg_lock);
    int a = ras_purge((uintptr_t)mpd_ras_tas_begin, (size_t)(mpd_ras_tas_end - mpd_ras_tas_begin));
    int b = ras_purge((uintptr_t)mpd_ras_fetch_add_begin,
                      (size_t)(mpd_ras_fetch_add_end - mpd_ras_fetch_add_begin));
    pthread_mutex_unlock(&reg_lock);
    if (a && b) {
        errno = ESRCH;
        return -1;
    }
    return 0;
}
#else
/* No native sequences on this CPU: interlocked operations stand in. */
const char mpd_ras_tas_begin[1], mpd_ras_tas_end[1];
const char mpd_ras_fetch_add_begin[1], mpd_ras_fetch_add_end[1];
int mpd_ras_init(void)
{
    return 0;
}
int mpd_ras_builtin_purge(void)
{
    return 0;
}
int mpd_ras_tas(volatile int *p)
{
    return __atomic_exchange_n(p, 1, __ATOMIC_ACQUIRE);
}
long mpd_ras_fetch_add(volatile long *p, long v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
#endif

/* ---- the RAS mutex ---- */
static void default_yield(void)
{
    sched_yield();
}
static void (*_Atomic ras_yield)(void) = default_yield;

void mpd_ras_set_yield(void (*y)(void))
{
    atomic_store(&ras_yield, y ? y : default_yield);
}

/* The fences order the critical section for other CPUs too: free on x86
 * (the interlocked exchange is a full barrier, plain stores are releases),
 * one barrier instruction elsewhere. */
void mpd_ras_mutex_lock(mpd_ras_mutex_t *m)
{
    while (mpd_ras_tas(&m->word)) {
        while (__atomic_load_n(&m->word, __ATOMIC_RELAXED))
            atomic_load (&ras_yield)();
    }
    atomic_thread_fence(memory_order_acquire); /* keep the critical section after */
}

int mpd_ras_mutex_trylock(mpd_ras_mutex_t *m)
{
    if (mpd_ras_tas(&m->word))
        return EBUSY;
    atomic_thread_fence(memory_order_acquire);
    return 0;
}

void mpd_ras_mutex_unlock(mpd_ras_mutex_t *m)
{
    __atomic_store_n(&m->word, 0, __ATOMIC_RELEASE);
}
