/* timer.c: nap() and age(): a heap of napping processes ordered by deadline. */
#include <limits.h>
#include <stdlib.h>
#include <time.h>
#include "core/rt_internal.h"
#include "mpd/err.h"

atomic_long mpd__ntimers;
int64_t mpd__start_ns;
mpd_spinlock mpd__timer_lock = MPD_SPINLOCK_INIT;
#define tlock mpd__timer_lock
static mpd_proc **heap;
static long hcap;
static atomic_llong next_due = INT64_MAX;

int64_t mpd_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

long mpd_rt_age_ms(void)
{
    return (long)((mpd_now_ns() - mpd__start_ns) / 1000000);
}

static void heap_set(long i, mpd_proc *p)
{
    heap[i] = p;
    p->heap_idx = i;
}

static void sift_up(long i, mpd_proc *p)
{
    while (i > 0 && heap[(i - 1) / 2]->wake_ns > p->wake_ns) {
        heap_set(i, heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(i, p);
}

static void sift_down(long i, mpd_proc *p, long n)
{
    for (;;) {
        long c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && heap[c + 1]->wake_ns < heap[c]->wake_ns)
            c++;
        if (heap[c]->wake_ns >= p->wake_ns)
            break;
        heap_set(i, heap[c]);
        i = c;
    }
    heap_set(i, p);
}

static void heap_push(mpd_proc *p)
{
    long n = atomic_load_explicit(&mpd__ntimers, memory_order_relaxed);
    if (n == hcap) {
        hcap = hcap ? hcap * 2 : 64;
        heap = realloc(heap, sizeof *heap * (size_t)hcap);
        if (!heap)
            mpd_rts_fatal("out of memory for timers");
    }
    sift_up(n, p);
    atomic_store(&mpd__ntimers, n + 1);
    atomic_store(&next_due, heap[0]->wake_ns);
}

/* Removes the entry at i. */
static void heap_delete(long i)
{
    long n = atomic_load_explicit(&mpd__ntimers, memory_order_relaxed) - 1;
    mpd_proc *gone = heap[i], *last = heap[n];
    gone->heap_idx = -1;
    if (i < n) {
        if (i > 0 && heap[(i - 1) / 2]->wake_ns > last->wake_ns)
            sift_up(i, last);
        else
            sift_down(i, last, n);
    }
    atomic_store(&next_due, n > 0 ? heap[0]->wake_ns : INT64_MAX);
    atomic_store(&mpd__ntimers, n);
}

static mpd_proc *heap_pop(void)
{
    mpd_proc *top = heap[0];
    heap_delete(0);
    return top;
}

void mpd__timer_add_locked(mpd_proc *p)
{
    heap_push(p);
}

void mpd__timer_cancel(mpd_proc *p)
{
    if (!mpd__mode_one_vp())
        mpd_spin_lock(&tlock);
    if (p->heap_idx >= 0)
        heap_delete(p->heap_idx);
    if (!mpd__mode_one_vp())
        mpd_spin_unlock(&tlock);
}

int64_t mpd__timers_next(void)
{
    return atomic_load(&next_due);
}

int mpd__timers_fire(void)
{
    int64_t now = mpd_now_ns();
    if (atomic_load(&next_due) > now)
        return 0;
    mpd_proc *list = NULL, **tail = &list;
    int k = 0;
    if (!mpd__mode_one_vp())
        mpd_spin_lock(&tlock);
    while (atomic_load_explicit(&mpd__ntimers, memory_order_relaxed) > 0 &&
           heap[0]->wake_ns <= now) {
        mpd_proc *p = heap_pop();
        int w = CL_WAITING;
        if (atomic_load_explicit(&p->claim, memory_order_relaxed) != CL_NONE &&
            !atomic_compare_exchange_strong(&p->claim, &w, CL_TIMEDOUT))
            continue; /* a timed wait already ended by a wakeup */
        *tail = p;
        tail = &p->io_next;
        p->io_next = NULL;
        k++;
    }
    if (!mpd__mode_one_vp())
        mpd_spin_unlock(&tlock);
    while (list) {
        mpd_proc *n = list->io_next;
        MPD_TL(mpd__tl_woken(list, TL_BY_TIMER));
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
    PSTATE_SET(self, P_NAPPING);
    if (mpd__mode_one_vp()) {
        /* our own timer may fire in pick_next: switch_away handles that */
        heap_push(self);
        mpd__switch_out(PS_NONE, NULL, NULL);
    } else {
        /* The timer starts once we are off our stack (post-switch PS_TIMED).
         * Holding the timer lock across the switch instead deadlocked:
         * pick_next fires due timers, under that same lock. */
        mpd__switch_out(PS_TIMED, self, NULL);
    }
}
