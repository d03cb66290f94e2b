/* mpf_line.c: the FCFS line -- blocked FCFS receivers of an LNVC are served in arrival order.
 *
 * A receive of an FCFS group that must wait takes a waiter slot from the
 * segment's waiter table and joins its LNVC's line (a FIFO linked through the
 * slots, under the receive lock).  Only the head of the line may take the next
 * message; a receive that is not in line takes one only when more messages
 * are waiting than receivers stand in line (try_receive says EAGAIN
 * otherwise).  Each waiter spins, then sleeps on its own futex word, so a send
 * wakes exactly one thread -- the head -- and the head, once served, wakes the
 * next one only if another message is already there.  (A ticket scheme that
 * woke every waiter on every message was tried and reverted: 8x slower.)
 *
 * The fast path costs the send nothing: a head that spins watches the
 * sentinel itself, and the send looks at the line (its head, on the receive
 * side's line, and the head's word) only when `line_asleep`, on the line it
 * already reads for `sleepers`, says a waiter sleeps.  A waiter writes only
 * its own slot and the receive side's line until it goes to sleep.  A waiter
 * that becomes head while spinning is poked (WOKEN) so it spins again as head.
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

static inline uint32_t slot_of(mpf_t *m, mpf_lnvc *l)
{
    return (uint32_t)(l - mpf_lnvc_at(m, 0));
}

/* Wake one waiter (index + 1): mark it woken; a futex call only if it sleeps. */
static void wake_one(mpf_t *m, uint32_t w)
{
    mpf_waiter *x = mpf_waiter_at(m, w);
    if (atomic_exchange_explicit(&x->word, MPF_W_WOKEN, memory_order_seq_cst) == MPF_W_ASLEEP)
        syscall(SYS_futex, (uint32_t *)&x->word, m->shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, 1,
                NULL, NULL, 0);
}

/* A send published a message and a waiter of the line sleeps: wake the head
 * if it is the one asleep (a head that spins watches the sentinel; one about
 * to sleep reads next_seq after announcing it, so sees the message). */
void mpf_line_wake_head(mpf_t *m, mpf_lnvc *l)
{
    uint32_t h = atomic_load_explicit(&l->line_head, memory_order_seq_cst);
    if (h && h <= m->r->n_waiters &&
        atomic_load_explicit(&mpf_waiter_at(m, h)->word, memory_order_seq_cst) == MPF_W_ASLEEP)
        wake_one(m, h);
}

/* Receive lock held: w no longer counts as asleep in this incarnation's line. */
static void uncount(mpf_t *m, mpf_lnvc *l, mpf_waiter *x)
{
    if (atomic_load_explicit(
            &x->counted, memory_order_relaxed) && /* a load first: no locked op when not counted */
        atomic_exchange_explicit(&x->counted, 0, memory_order_relaxed) &&
        l->state == LNVC_LIVE && x->lnvc == slot_of(m, l) + 1 && x->gen == l->gen &&
        atomic_load_explicit(&l->line_asleep, memory_order_relaxed))
        atomic_fetch_sub_explicit(&l->line_asleep, 1, memory_order_relaxed);
}

void mpf_line_rearm(mpf_t *m, mpf_lnvc *l, uint32_t w)
{
    mpf_waiter *x = mpf_waiter_at(m, w);
    uncount(m, l, x);
    /* From here on a wake is not lost: a waker that comes later finds SPIN and
     * swaps in WOKEN (or finds ASLEEP and wakes); what came before is in the
     * LNVC, which the caller looks at next. */
    atomic_store_explicit(&x->word, MPF_W_SPIN, memory_order_relaxed);
    atomic_thread_fence(
        memory_order_seq_cst); /* one full fence orders the store before the looks that follow */
}

/* Receive lock held: a message is waiting for the head of the line. */
static int message_waiting(mpf_lnvc *l)
{
    return atomic_load_explicit(&l->next_seq, memory_order_seq_cst) != l->fcfs_seq;
}

/* The slot this thread used last: tried first, so that a thread's waits keep
 * touching one line of the table (its own) rather than scanning others'. */
static _Thread_local uint32_t last_slot;

uint32_t mpf_line_join(mpf_t *m, mpf_lnvc *l)
{
    mpf_region *r = m->r;
    int32_t me = m->shared ? (int32_t)mpf_self() : 1;
    uint32_t first = last_slot < r->n_waiters ? last_slot : 0;
    for (uint32_t k = 0; k < r->n_waiters; k++) {
        uint32_t i = (first + k) % r->n_waiters;
        mpf_waiter *x = mpf_waiter_at(m, i + 1);
        int32_t free_ = 0;
        if (atomic_load_explicit(&x->os_pid, memory_order_relaxed) != 0 ||
            !atomic_compare_exchange_strong_explicit(&x->os_pid, &free_, me, memory_order_acquire,
                                                     memory_order_relaxed))
            continue;
        last_slot = i;
        /* Fields first, then the link: a repair relinks by (lnvc, gen, ticket). */
        x->next = 0;
        x->gen = l->gen;
        x->ticket = l->line_ticket++;
        atomic_store_explicit(&x->word, MPF_W_SPIN, memory_order_relaxed);
        atomic_store_explicit(&x->counted, 0, memory_order_relaxed);
        x->lnvc = slot_of(m, l) + 1;
        if (l->line_tail)
            mpf_waiter_at(m, l->line_tail)->next = i + 1;
        else
            atomic_store_explicit(&l->line_head, i + 1,
                                  memory_order_relaxed); /* nobody sleeps in an empty line */
        l->line_tail = i + 1;
        l->line_len++;
        return i + 1;
    }
    return 0; /* table full: the caller waits unordered */
}

/* Receive lock held.  Unlink w if it is in this incarnation's line, free it.
 * If it was the head: a new head that spins is poked (it spins again as head,
 * watching the sentinel); one asleep is woken if a message waits (otherwise
 * the next send wakes it: it counts in line_asleep). */
void mpf_line_leave(mpf_t *m, mpf_lnvc *l, uint32_t w)
{
    mpf_waiter *x = mpf_waiter_at(m, w);
    uncount(m, l, x);
    if (x->lnvc == slot_of(m, l) + 1 && x->gen == l->gen) {
        uint32_t prev = 0, n = atomic_load_explicit(&l->line_head, memory_order_relaxed);
        for (uint32_t limit = m->r->n_waiters; n && n != w && limit--;
             n = mpf_waiter_at(m, n)->next)
            prev = n;
        if (n == w) {
            if (prev)
                mpf_waiter_at(m, prev)->next = x->next;
            else
                atomic_store_explicit(&l->line_head, x->next,
                                      memory_order_relaxed); /* fence below if a new head */
            if (l->line_tail == w)
                l->line_tail = prev;
            if (l->line_len)
                l->line_len--;
            uint32_t h = atomic_load_explicit(&l->line_head, memory_order_relaxed);
            if (!prev && h && l->state == LNVC_LIVE) {
                /* the new head published before next_seq is read: a send that
                 * advanced it later reads this head */
                atomic_thread_fence(memory_order_seq_cst);
                uint32_t spin_ = MPF_W_SPIN;
                if (message_waiting(l))
                    wake_one(m, h);
                else
                    atomic_compare_exchange_strong_explicit(&mpf_waiter_at(m, h)->word, &spin_,
                                                            MPF_W_WOKEN, memory_order_seq_cst,
                                                            memory_order_relaxed);
            }
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
    if (w)
        return h == w;
    return atomic_load_explicit(&l->next_seq, memory_order_relaxed) - l->fcfs_seq > l->line_len;
}

/* Both locks held (a close, a repair): every waiter in line looks again. */
void mpf_line_wake_all(mpf_t *m, mpf_lnvc *l)
{
    uint32_t limit = m->r->n_waiters;
    for (uint32_t n = atomic_load_explicit(&l->line_head, memory_order_relaxed); n && limit--;
         n = mpf_waiter_at(m, n)->next)
        wake_one(m, n);
}

/* A new incarnation (or a deleted one) starts with nobody in line. */
void mpf_line_reset(mpf_lnvc *l)
{
    atomic_store_explicit(&l->line_head, 0, memory_order_relaxed);
    atomic_store_explicit(&l->line_asleep, 0, memory_order_relaxed);
    l->line_tail = l->line_len = 0;
}

/* Both locks held, a lock owner died: relink the line from the slots that say
 * they wait here, in ticket order (insertion sort: lines are short). */
void mpf_line_repair(mpf_t *m, mpf_lnvc *l)
{
    uint32_t me = slot_of(m, l) + 1, head = 0, len = 0, asleep = 0;
    for (uint32_t i = 1; i <= m->r->n_waiters; i++) {
        mpf_waiter *x = mpf_waiter_at(m, i);
        if (!atomic_load_explicit(&x->os_pid, memory_order_relaxed) || x->lnvc != me ||
            x->gen != l->gen)
            continue;
        asleep += atomic_load_explicit(&x->counted, memory_order_relaxed) != 0;
        uint32_t prev = 0, n = head;
        while (n && (int32_t)(mpf_waiter_at(m, n)->ticket - x->ticket) < 0)
            prev = n, n = mpf_waiter_at(m, n)->next;
        x->next = n;
        if (prev)
            mpf_waiter_at(m, prev)->next = i;
        else
            head = i;
        len++;
    }
    uint32_t tail = head;
    while (tail && mpf_waiter_at(m, tail)->next)
        tail = mpf_waiter_at(m, tail)->next;
    atomic_store_explicit(&l->line_head, head, memory_order_seq_cst);
    atomic_store_explicit(&l->line_asleep, asleep, memory_order_seq_cst);
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
        if (os == 0 || os == me || mpf_os_pid_alive(os))
            continue;
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
        mpf_unlock(m, &l->rlock);
        *spun = 1;
        for (int i = lwp ? m->spin / 8 + 1 : m->spin; i > 0; i--) {
            if (atomic_load_explicit(&x->word, memory_order_acquire) != MPF_W_SPIN ||
                atomic_load_explicit(&l->word, memory_order_acquire) != observed ||
                (head &&
                 atomic_load_explicit(&MPF_MSG(m, sentinel)->seq, memory_order_acquire) == seq))
                return;
            if (lwp) {
                mpd_yield();
                continue;
            }
            relax();
            if ((i & 255) == 0)
                sched_yield();
        }
        return;
    }
    *spun = 0;
    /* Announce the sleep: counted first (a send that advanced next_seq before
     * this sees the message below; one after it sees the count and wakes the
     * head), then the flag that tells whoever clears it to uncount, then the word. */
    atomic_fetch_add_explicit(&l->line_asleep, 1, memory_order_seq_cst);
    atomic_store_explicit(&x->counted, 1, memory_order_relaxed);
    uint32_t spin_ = MPF_W_SPIN;
    int asleep = atomic_compare_exchange_strong_explicit(
        &x->word, &spin_, MPF_W_ASLEEP, memory_order_seq_cst, memory_order_seq_cst);
    int avail = head && message_waiting(l);
    mpf_unlock(m, &l->rlock);
    if (!asleep || avail || atomic_load_explicit(&l->word, memory_order_seq_cst) != observed)
        return;
    line_sleep a = {m, x, max_ns};
    if (lwp)
        mpd_blocking_call(sleep_on_own_word, &a, NULL);
    else
        sleep_on_own_word(&a);
}
