/* mpf_line.c: the FCFS line -- blocked FCFS receivers of an LNVC are served in arrival order.
 *
 * A receive of an FCFS group that must wait takes a waiter slot from the
 * segment's waiter table and joins its LNVC's line (a FIFO linked through the
 * slots, under the receive lock).  Only the head of the line may take the next
 * message; a receive that is not in line takes one only when more messages
 * are waiting than receivers stand in line (try_receive says EAGAIN
 * otherwise).  Each waiter sleeps on its own futex word, so a send wakes
 * exactly one thread -- the head -- and the head, once served, wakes the next
 * one only if another message is already there.  (A ticket scheme that woke
 * every waiter on every message was tried and reverted: 8x slower.)
 *
 * Robustness.  A slot is owned by CAS of the owner's OS pid into it, so a
 * process that dies holding one is found by the reaper, which unlinks and
 * frees it (waking the next in line if a message waits).  Every slot keeps its
 * arrival ticket, so a repair after a lock owner died mid-update relinks the
 * line in ticket order.  A slot records the LNVC incarnation (gen) it waits
 * in: leaving after the LNVC was deleted or recreated only frees the slot. */
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mpf_internal.h"

static inline uint32_t slot_of(mpf_t *m, mpf_lnvc *l) { return (uint32_t)(l - mpf_lnvc_at(m, 0)); }

/* Wake one waiter (index + 1): mark it woken; a futex call only if it sleeps. */
static void wake_one(mpf_t *m, uint32_t w)
{
    mpf_waiter *x = mpf_waiter_at(m, w);
    if (atomic_exchange_explicit(&x->word, MPF_W_WOKEN, memory_order_seq_cst) == MPF_W_ASLEEP)
        syscall(SYS_futex, (uint32_t *)&x->word, m->shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* A send published a message: wake the head unless it already watches the
 * sentinel (spinning as head) or was woken.  Reads only, in the usual case. */
void mpf_line_wake_head(mpf_t *m, uint32_t h)
{
    mpf_waiter *x = mpf_waiter_at(m, h);
    uint32_t st = atomic_load_explicit(&x->word, memory_order_seq_cst);
    if (st == MPF_W_WOKEN || (st == MPF_W_SPIN && atomic_load_explicit(&x->watching, memory_order_seq_cst))) return;
    wake_one(m, h);
}

/* Receive lock held: a message is waiting for the head of the line. */
static int message_waiting(mpf_lnvc *l)
{
    return atomic_load_explicit(&l->next_seq, memory_order_seq_cst) != l->fcfs_seq;
}

uint32_t mpf_line_join(mpf_t *m, mpf_lnvc *l)
{
    mpf_region *r = m->r;
    int32_t me = m->shared ? (int32_t)mpf_self() : 1;
    for (uint32_t i = 0; i < r->n_waiters; i++) {
        mpf_waiter *x = mpf_waiter_at(m, i + 1);
        int32_t free_ = 0;
        if (atomic_load_explicit(&x->os_pid, memory_order_relaxed) != 0 ||
            !atomic_compare_exchange_strong_explicit(&x->os_pid, &free_, me, memory_order_acquire, memory_order_relaxed))
            continue;
        /* Fields first, then the link: a repair relinks by (lnvc, gen, ticket). */
        x->next = 0;
        x->gen = l->gen;
        x->ticket = l->line_ticket++;
        atomic_store_explicit(&x->word, MPF_W_SPIN, memory_order_relaxed);
        atomic_store_explicit(&x->watching, 0, memory_order_relaxed);
        x->lnvc = slot_of(m, l) + 1;
        if (l->line_tail) mpf_waiter_at(m, l->line_tail)->next = i + 1;
        else atomic_store_explicit(&l->line_head, i + 1, memory_order_seq_cst);
        l->line_tail = i + 1;
        l->line_len++;
        return i + 1;
    }
    return 0; /* table full: the caller waits unordered */
}

/* Receive lock held.  Unlink w if it is in this incarnation's line, free it;
 * if it was the head and a message waits, the new head is woken. */
void mpf_line_leave(mpf_t *m, mpf_lnvc *l, uint32_t w)
{
    mpf_waiter *x = mpf_waiter_at(m, w);
    if (x->lnvc == slot_of(m, l) + 1 && x->gen == l->gen) {
        uint32_t prev = 0, n = atomic_load_explicit(&l->line_head, memory_order_relaxed);
        for (uint32_t limit = m->r->n_waiters; n && n != w && limit--; n = mpf_waiter_at(m, n)->next) prev = n;
        if (n == w) {
            if (prev) mpf_waiter_at(m, prev)->next = x->next;
            else atomic_store_explicit(&l->line_head, x->next, memory_order_seq_cst);
            if (l->line_tail == w) l->line_tail = prev;
            if (l->line_len) l->line_len--;
            uint32_t h = atomic_load_explicit(&l->line_head, memory_order_relaxed);
            if (!prev && h && l->state == LNVC_LIVE && message_waiting(l)) wake_one(m, h);
        }
    }
    x->lnvc = 0;
    atomic_store_explicit(&x->os_pid, 0, memory_order_release);
}

/* May this receive (w: its place in line, 0 if none) take the message waiting at the FCFS head? */
int mpf_line_may_take(mpf_t *m, mpf_lnvc *l, uint32_t w)
{
    (void)m;
    uint32_t h = atomic_load_explicit(&l->line_head, memory_order_relaxed);
    if (w) return h == w;
    return atomic_load_explicit(&l->next_seq, memory_order_relaxed) - l->fcfs_seq > l->line_len;
}

/* Both locks held (a close, a repair): every waiter in line looks again. */
void mpf_line_wake_all(mpf_t *m, mpf_lnvc *l)
{
    uint32_t limit = m->r->n_waiters;
    for (uint32_t n = atomic_load_explicit(&l->line_head, memory_order_relaxed); n && limit--; n = mpf_waiter_at(m, n)->next)
        wake_one(m, n);
}

/* A new incarnation (or a deleted one) starts with nobody in line. */
void mpf_line_reset(mpf_lnvc *l)
{
    atomic_store_explicit(&l->line_head, 0, memory_order_relaxed);
    l->line_tail = l->line_len = 0;
}

/* Both locks held, a lock owner died: relink the line from the slots that say
 * they wait here, in ticket order (insertion sort: lines are short). */
void mpf_line_repair(mpf_t *m, mpf_lnvc *l)
{
    uint32_t me = slot_of(m, l) + 1, head = 0, len = 0;
    for (uint32_t i = 1; i <= m->r->n_waiters; i++) {
        mpf_waiter *x = mpf_waiter_at(m, i);
        if (!atomic_load_explicit(&x->os_pid, memory_order_relaxed) || x->lnvc != me || x->gen != l->gen) continue;
        uint32_t prev = 0, n = head;
        while (n && (int32_t)(mpf_waiter_at(m, n)->ticket - x->ticket) < 0) prev = n, n = mpf_waiter_at(m, n)->next;
        x->next = n;
        if (prev) mpf_waiter_at(m, prev)->next = i;
        else head = i;
        len++;
    }
    uint32_t tail = head;
    while (tail && mpf_waiter_at(m, tail)->next) tail = mpf_waiter_at(m, tail)->next;
    atomic_store_explicit(&l->line_head, head, memory_order_seq_cst);
    l->line_tail = tail;
    l->line_len = len;
}

/* Table lock held: slots of dead processes leave their lines. */
void mpf_line_reap(mpf_t *m)
{
    int32_t me = (int32_t)getpid();
    for (uint32_t i = 1; i <= m->r->n_waiters; i++) {
        mpf_waiter *x = mpf_waiter_at(m, i);
        int32_t os = atomic_load_explicit(&x->os_pid, memory_order_acquire);
        if (os == 0 || os == me || mpf_os_pid_alive(os)) continue;
        uint32_t lv = x->lnvc;
        if (lv && lv <= m->r->max_lnvcs) {
            mpf_lnvc *l = mpf_lnvc_at(m, lv - 1);
            mpf_lock_lnvc(m, l);
            mpf_line_leave(m, l, i);
            mpf_unlock_lnvc(m, l);
        } else {
            x->lnvc = 0;
            atomic_store_explicit(&x->os_pid, 0, memory_order_release);
        }
    }
}

/* Receive lock held by the caller, w in line, nothing it may take.  Returns
 * with the lock released once something may have changed.  First a spin
 * (yields for an MPD process) watching its own word, the LNVC's word (closes)
 * and -- at the head -- the sentinel; then, on the next call, a sleep on its
 * own word, announced under the lock so that no wake is lost. */
typedef struct line_sleep {
    mpf_t *m;
    mpf_waiter *x;
    long long ns;
} line_sleep;

static intptr_t sleep_on_own_word(void *arg)
{
    line_sleep *a = arg;
    mpf_futex_wait_ns(a->m, &a->x->word, MPF_W_ASLEEP, a->ns);
    return 0;
}

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

void mpf_line_wait(mpf_t *m, mpf_lnvc *l, uint32_t w, int *spun, long long max_ns)
{
    mpf_waiter *x = mpf_waiter_at(m, w);
    int head = atomic_load_explicit(&l->line_head, memory_order_relaxed) == w;
    uint32_t observed = atomic_load_explicit(&l->word, memory_order_relaxed);
    int lwp = mpd_self() != NULL;
    if (!*spun) {
        uint32_t sentinel = l->fcfs_head, seq = l->fcfs_seq;
        atomic_store_explicit(&x->watching, (uint32_t)head, memory_order_seq_cst);
        mpf_unlock(m, &l->rlock);
        *spun = 1;
        for (int i = lwp ? m->spin / 8 + 1 : m->spin; i > 0; i--) {
            if (atomic_load_explicit(&x->word, memory_order_acquire) != MPF_W_SPIN ||
                atomic_load_explicit(&l->word, memory_order_acquire) != observed ||
                (head && atomic_load_explicit(&MPF_MSG(m, sentinel)->seq, memory_order_acquire) == seq))
                return;
            if (lwp) {
                mpd_yield();
                continue;
            }
            relax();
            if ((i & 255) == 0) sched_yield();
        }
        return;
    }
    *spun = 0;
    atomic_store_explicit(&x->watching, 0, memory_order_seq_cst);
    uint32_t spin_ = MPF_W_SPIN;
    int asleep = atomic_compare_exchange_strong_explicit(&x->word, &spin_, MPF_W_ASLEEP, memory_order_seq_cst,
                                                         memory_order_seq_cst);
    /* Announced: a send that comes later sees ASLEEP and wakes us; one that came
     * before is seen here (next_seq against our word, both sequentially consistent). */
    int avail = head && message_waiting(l);
    mpf_unlock(m, &l->rlock);
    if (!asleep || avail || atomic_load_explicit(&l->word, memory_order_seq_cst) != observed) return;
    line_sleep a = {m, x, max_ns};
    if (lwp) mpd_blocking_call(sleep_on_own_word, &a, NULL);
    else sleep_on_own_word(&a);
}
