/* timer.c: nap() and age(): a heap of napping processes ordered by deadline. */
#include <limits.h>
#include <stdlib.h>
#include <time.h>
#include "core/rt_internal.h"
#include "mpd/err.h"

atomic_long mpd__ntimers;
int64_t mpd__start_ns;
static mpd_spinlock tlock = MPD_SPINLOCK_INIT;
static mpd_proc **heap;
static long hcap;
static atomic_llong next_due = INT64_MAX;

int64_t mpd_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

long mpd_rt_age_ms(void) { return (long)((mpd_now_ns() - mpd__start_ns) / 1000000); }

static void heap_push(mpd_proc *p)
{
    long n = atomic_load_explicit(&mpd__ntimers, memory_order_relaxed);
    if (n == hcap) {
        hcap = hcap ? hcap * 2 : 64;
        heap = realloc(heap, sizeof *heap * (size_t)hcap);
        if (!heap)
            mpd_rts_fatal("out of memory for timers");
    }
    long i = n;
    while (i > 0 && heap[(i - 1) / 2]->wake_ns > p->wake_ns) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = p;
    atomic_store(&mpd__ntimers, n + 1);
    atomic_store(&next_due, heap[0]->wake_ns);
}

static mpd_proc *heap_pop(void)
{
    long n = atomic_load_explicit(&mpd__ntimers, memory_order_relaxed) - 1;
    mpd_proc *top = heap[0], *last = heap[n];
    long i = 0;
    for (;;) {
        long c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && heap[c + 1]->wake_ns < heap[c]->wake_ns)
            c++;
        if (heap[c]->wake_ns >= last->wake_ns)
            break;
        heap[i] = heap[c];
        i = c;
    }
    if (n > 0)
        heap[i] = last;
    atomic_store(&next_due, n > 0 ? heap[0]->wake_ns : INT64_MAX);
    atomic_store(&mpd__ntimers, n);
    return top;
}

int64_t mpd__timers_next(void) { return atomic_load(&next_due); }

int mpd__timers_fire(void)
{
    int64_t now = mpd_now_ns();
    if (atomic_load(&next_due) > now)
        return 0;
    mpd_proc *list = NULL, **tail = &list;
    int k = 0;
    if (!mpd__single)
        mpd_spin_lock(&tlock);
    while (atomic_load_explicit(&mpd__ntimers, memory_order_relaxed) > 0 && heap[0]->wake_ns <= now) {
        mpd_proc *p = heap_pop();
        *tail = p;
        tail = &p->link;
        p->link = NULL;
        k++;
    }
    if (!mpd__single)
        mpd_spin_unlock(&tlock);
    while (list) {
        mpd_proc *n = list->link;
        mpd__ready(list);
        list = n;
    }
    return k;
}

void mpd_nap(long ms)
{
    if (ms <= 0) {
        mpd_yield();
        return;
    }
    mpd_proc *self = proc_self();
    self->wake_ns = mpd_now_ns() + (int64_t)ms * 1000000;
    if (!mpd__single)
        mpd_spin_lock(&tlock);
    self->state = P_NAPPING;
    heap_push(self);
    mpd__switch_out(mpd__single ? PS_NONE : PS_UNLOCK, NULL, mpd__single ? NULL : &tlock);
}
