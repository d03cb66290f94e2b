/* mpf_wait.c: how a receiver with nothing to read waits for its conversation to change, and how it is woken. */
#include <sched.h>
#include <string.h>
#include <stdlib.h>

#include "mpd/rt.h"
#include "mpf_internal.h"

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Has anything happened since the receiver looked (under the lock)?  A send
 * fills `sentinel` and gives it seq `seq` (the header keeps that seq until it
 * is filled again); a close bumps `word`.  Spinning watches only these, which
 * live in lines the sender writes anyway.  Should the sentinel be filled, read
 * by another receiver and refilled in between two looks, the spin misses it:
 * the check before sleeping also reads the LNVC's next_seq, so a sleep never
 * misses a message.  A stale look (the LNVC died) is only a spurious wakeup. */
static inline int spin_changed(mpf_t *m, mpf_lnvc *l, uint32_t observed, uint32_t sentinel,
                               uint32_t seq)
{
    return atomic_load_explicit(&MPF_MSG(m, sentinel)->seq, memory_order_acquire) == seq ||
           atomic_load_explicit(&l->word, memory_order_acquire) != observed;
}

typedef struct sleep_args {
    mpf_t *m;
    mpf_lnvc *l;
    mpf_conn *c;
    uint32_t observed, seq;
    long long max_ns;
} sleep_args;

/* Sleep on the LNVC's futex word unless a send or close came first.  Register
 * first, then look again: a sender advances next_seq first, then reads
 * `sleepers`; with both sequentially consistent one of us sees the other. */
static intptr_t sleep_on_word(void *arg)
{
    sleep_args *a = arg;
    atomic_fetch_add_explicit(&a->l->sleepers, 1, memory_order_seq_cst);
    /* Counted, and flagged in our connection: if we die asleep the reaper
     * uncounts us; if the conversation is recreated meanwhile the flag is
     * cleared with the count, and we must not uncount then. */
    atomic_store_explicit(&a->c->asleep, 1, memory_order_relaxed);
    if (atomic_load_explicit(&a->l->next_seq, memory_order_seq_cst) == a->seq &&
        atomic_load_explicit(&a->l->word, memory_order_seq_cst) == a->observed)
        mpf_futex_wait_ns(a->m, &a->l->word, a->observed, a->max_ns);
    if (atomic_exchange_explicit(&a->c->asleep, 0, memory_order_relaxed))
        atomic_fetch_sub_explicit(&a->l->sleepers, 1, memory_order_relaxed);
    return 0;
}

/* Threads and OS processes: spin a little (a sender on another core usually
 * answers within a microsecond; yielding now and then lets it run when cores
 * are oversubscribed), then sleep on the LNVC's futex word.
 *
 * An MPD process (on an instance that is not MPF_WAIT_LWP, so its partners may
 * be plain threads or other OS processes) must not stop its VP: it yields
 * while it looks, then sleeps through mpd_blocking_call, on a helper thread,
 * while the VP runs the other processes.  The runtime counts the call as
 * pending, so a receiver waiting for a thread is not taken for a deadlock. */
void mpf_wait_change(mpf_t *m, mpf_lnvc *l, mpf_conn *c, uint32_t observed, uint32_t sentinel,
                     uint32_t seq, long long max_ns)
{
    int lwp = mpd_self() != NULL;
    for (int i = lwp ? m->spin / 8 + 1 : m->spin; i > 0; i--) {
        if (spin_changed(m, l, observed, sentinel, seq)) {
            /* Start fetching the rest of a short payload while we go for the lock. */
            __builtin_prefetch((char *)MPF_MSG(m, sentinel) + MPF_CACHE);
            return;
        }
        if (lwp) {
            mpd_yield();
            continue;
        }
        cpu_relax();
        if ((i & 255) == 0)
            sched_yield();
    }
    sleep_args a = {m, l, c, observed, seq, max_ns};
    if (lwp)
        mpd_blocking_call(sleep_on_word, &a, NULL);
    else
        sleep_on_word(&a);
}

static inline mpf_lwpq *lwpq_of(mpf_t *m, mpf_lnvc *l)
{
    return &m->lwpq[l - mpf_lnvc_at(m, 0)];
}

static void lwp_append(mpf_lwpq *q, mpf_lwp_waiter *w)
{
    w->next = NULL;
    if (q->tail)
        q->tail->next = w;
    else
        q->head = w;
    q->tail = w;
}

static void lwp_unlink(mpf_lwpq *q, mpf_lwp_waiter *w)
{
    mpf_lwp_waiter *prev = NULL, *x = q->head;
    for (; x && x != w; prev = x, x = x->next)
        ;
    if (!x)
        return;
    if (prev)
        prev->next = w->next;
    else
        q->head = w->next;
    if (q->tail == w)
        q->tail = prev;
    w->next = NULL;
}

static mpf_lwp_waiter *lwp_first_in_line(mpf_lwpq *q)
{
    mpf_lwp_waiter *w = q->head;
    while (w && !w->line)
        w = w->next;
    return w;
}

/* MPD processes: park only the calling process.  It registers under the LNVC
 * lock, so a sender that links afterwards finds it (directly, or through
 * `parked` once it has released the LNVC lock).  Returns 0 if the caller is
 * not to park here, 1 when woken to look again, 2 when a send delivered a
 * message into buf (its length in *got).
 *
 * FCFS order with several VPs: woken receives race for the receive lock, and
 * the one that ran first took the message (with 2 VPs 4 receives lined up
 * were served out of order in every round).  So an FCFS receive joins the
 * LNVC's line at its first park and stays a member, asleep or awake, until
 * it is served; only the first member may take a message (`turn`: one was
 * there but it was not ours), a send wakes only the first, and a member
 * served wakes the next if another message waits.  With one VP processes run
 * in wake order, and the old list (every waiter woken, taken off) is kept. */
int mpf_wait_lwp(mpf_t *m, mpf_lnvc *l, mpf_conn *c, uint32_t head, uint32_t seq, void *buf,
                 size_t cap, ssize_t *got, mpf_lwp_waiter *w, int turn)
{
    mpd_proc *self;
    if (!m->lwpq || !(self = mpd_self()))
        return 0;
    mpf_lwpq *q = lwpq_of(m, l);
    w->proc = self;
    w->buf = buf;
    w->cap = cap;
    w->got = -1;
    w->conn = c;
    int solo = MPF_SOLO(m);
    if (solo) {
        atomic_store_explicit(&l->parked,
                              atomic_load_explicit(&l->parked, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        lwp_append(q, w);
    } else {
        /* A send holds only the send lock when it publishes, then advances
         * next_seq and reads `parked`: count ourselves first (a member stays
         * counted), then look at next_seq (all sequentially consistent); the
         * list lock keeps its wakeup from passing us by.  (head is the
         * sentinel: seq is next_seq.)  Waiting for our turn, the member
         * before us wakes us when it is served, if we sleep by then. */
        (void)head;
        mpd_spin_lock(&q->lock);
        if (!w->listed) {
            atomic_fetch_add_explicit(&l->parked, 1, memory_order_seq_cst);
            w->line = c->recv == MPF_FCFS;
            w->listed = 1;
            w->asleep = 0; /* a member that looks and finds a message stays awake */
            lwp_append(q, w);
        }
        /* Waiting for our turn: the member before us may have been served
         * between our look and this lock, when we were not asleep yet, so
         * it woke nobody; now first, we look again instead of sleeping. */
        if (turn ? lwp_first_in_line(q) == w
                 : atomic_load_explicit(&l->next_seq, memory_order_seq_cst) != seq) {
            if (!w->line) {
                lwp_unlink(q, w);
                w->listed = 0;
                atomic_fetch_sub_explicit(&l->parked, 1, memory_order_relaxed);
            }
            mpd_spin_unlock(&q->lock);
            mpf_unlock(m, &l->rlock);
            return 1;
        }
        w->asleep = 1;
    }
    mpf_unlock(m, &l->rlock);
    mpd_park(solo ? NULL : &q->lock); /* whoever wakes w clears `asleep` or takes w off the list */
    if (w->got < 0)
        return 1;
    *got = w->got;
    return 2;
}

int mpf_lwp_may_take(mpf_t *m, mpf_lnvc *l, mpf_lwp_waiter *w)
{
    /* Line membership changes only under the receive lock, which we hold. */
    if (!m->lwpq || MPF_SOLO(m) || atomic_load_explicit(&l->parked, memory_order_relaxed) == 0)
        return 1;
    mpf_lwpq *q = lwpq_of(m, l);
    mpd_spin_lock(&q->lock);
    mpf_lwp_waiter *f = lwp_first_in_line(q);
    mpd_spin_unlock(&q->lock);
    return !f || f == w;
}

/* Served (or leaving unserved: pass), receive lock held.  The look at the
 * next message and the wakeup are made under the list lock: a send publishes
 * before it takes that lock to wake the first member, so either it sees the
 * next member first (and wakes it) or we see its message. */
void mpf_lwp_leave(mpf_t *m, mpf_lnvc *l, mpf_lwp_waiter *w, int pass)
{
    if (!w->listed)
        return;
    mpf_lwpq *q = lwpq_of(m, l);
    mpd_spin_lock(&q->lock);
    lwp_unlink(q, w);
    w->listed = 0;
    atomic_fetch_sub_explicit(&l->parked, 1, memory_order_relaxed);
    mpf_lwp_waiter *f = w->line ? lwp_first_in_line(q) : NULL;
    if (f && f->asleep && (pass || mpf_published(m, l->fcfs_head, l->fcfs_seq))) {
        f->asleep = 0;
        mpd_unpark(f->proc);
    }
    mpd_spin_unlock(&q->lock);
}

/* Send, LNVC lock held, with something parked: if this message has exactly
 * one reader due (so it would be queued with one reference), that reader has
 * nothing else queued, and one of its receives is parked with room for it,
 * hand it over.  Returns 1 if delivered (the caller then only advances
 * next_seq), 0 to queue the message as usual.  FCFS with several VPs: only
 * to the first member of the line, and only while it sleeps (awake, it is
 * about to look and will find the message queued). */
int mpf_lwp_deliver(mpf_t *m, mpf_lnvc *l, const void *data, size_t len)
{
    if (l->n_bcast + (l->n_fcfs > 0) != 1)
        return 0;
    int proto = l->n_fcfs ? MPF_FCFS : MPF_BROADCAST;
    if (proto == MPF_FCFS && l->fcfs_head != l->tail)
        return 0;
    mpf_lwpq *q = lwpq_of(m, l);
    int solo = MPF_SOLO(m);
    if (!solo)
        mpd_spin_lock(&q->lock);
    mpf_lwp_waiter *w = q->head;
    if (!solo && proto == MPF_FCFS) {
        w = lwp_first_in_line(q);
        if (w && !w->asleep)
            w = NULL;
    } else {
        for (; w; w = w->next) /* the first parked receive of the reader due (FIFO among FCFS) */
            if (w->conn->recv == proto && !w->line)
                break;
    }
    int ok = w && len <= w->cap && (proto == MPF_FCFS || w->conn->head == l->tail);
    if (ok) {
        lwp_unlink(q, w);
        w->listed = 0;
        w->asleep = 0;
        if (len)
            memcpy(w->buf, data, len);
        w->got = (ssize_t)len;
        if (solo)
            atomic_store_explicit(&l->parked,
                                  atomic_load_explicit(&l->parked, memory_order_relaxed) - 1,
                                  memory_order_relaxed);
        else
            atomic_fetch_sub_explicit(&l->parked, 1, memory_order_relaxed);
        mpd_unpark(w->proc);
    }
    if (!solo)
        mpd_spin_unlock(&q->lock);
    return ok;
}

typedef struct space_args {
    mpf_t *m;
    int pid;
    uint32_t observed;
} space_args;

static intptr_t space_sleep(void *arg)
{
    space_args *a = arg;
    mpf_space_wait(a->m, a->pid, a->observed);
    return 0;
}

/* A send from an MPD process found memory full: let the other processes run
 * (the receivers that free it may be on this VP); if there are none or they
 * cannot help (MPF_WAIT_LWP: they are the only receivers), wait for freed
 * memory on a helper thread rather than stopping the VP. */
int mpf_wait_lwp_yield(mpf_t *m, int pid, uint32_t observed)
{
    if (!mpd_self())
        return 0;
    mpd_yield();
    if (!m->lwpq && atomic_load(&m->r->space_word) == observed) {
        space_args a = {m, pid, observed};
        mpd_blocking_call(space_sleep, &a, NULL);
    }
    return 1;
}

/* Wake parked receives: every one taken off the list, except members of the
 * FCFS line (several VPs), of which only the first is woken -- or all, for a
 * close (`all`); they stay in line. */
static void wake_parked(mpf_t *m, mpf_lnvc *l, int all)
{
    mpf_lwpq *q = lwpq_of(m, l);
    int solo = MPF_SOLO(m);
    if (!solo)
        mpd_spin_lock(&q->lock);
    uint32_t n = 0;
    int first = 1;
    mpf_lwp_waiter *keep = NULL, *keep_tail = NULL;
    for (mpf_lwp_waiter *w = q->head, *nx; w; w = nx) {
        nx = w->next;  /* w lives on a stack that may run again once unparked */
        if (w->line) { /* several VPs only */
            w->next = NULL;
            if (keep_tail)
                keep_tail->next = w;
            else
                keep = w;
            keep_tail = w;
            if ((all || first) && w->asleep) {
                w->asleep = 0;
                mpd_unpark(w->proc);
            }
            first = 0;
            continue;
        }
        w->listed = 0;
        w->asleep = 0;
        n++;
        mpd_unpark(w->proc);
    }
    q->head = keep;
    q->tail = keep_tail;
    if (solo)
        atomic_store_explicit(&l->parked,
                              atomic_load_explicit(&l->parked, memory_order_relaxed) - n,
                              memory_order_relaxed);
    else
        atomic_fetch_sub_explicit(&l->parked, n, memory_order_relaxed);
    if (!solo)
        mpd_spin_unlock(&q->lock);
}

void mpf_lwp_wake_all(mpf_t *m, mpf_lnvc *l)
{
    if (m->lwpq && atomic_load_explicit(&l->parked, memory_order_seq_cst))
        wake_parked(m, l, 1);
}

/* mpf_wake_waiters found someone parked or asleep. */
void mpf_wake_sleepers(mpf_t *m, mpf_lnvc *l)
{
    if (m->lwpq && atomic_load_explicit(&l->parked, memory_order_seq_cst))
        wake_parked(m, l, 0);
    if (atomic_load_explicit(&l->sleepers, memory_order_seq_cst)) {
        atomic_fetch_add_explicit(&l->word, 1, memory_order_seq_cst);
        if (mpf_futex_wake_all(m, &l->word) == 0)
            mpf_futile_wake(m);
    }
}

int mpf_lwp_setup(mpf_t *m)
{
    m->lwpq = calloc(m->r->max_lnvcs, sizeof *m->lwpq);
    if (!m->lwpq)
        return -MPF_ESYS;
    for (uint32_t i = 0; i < m->r->max_lnvcs; i++) {
        mpd_spin_init(&m->lwpq[i].lock);
        m->lwpq[i].head = m->lwpq[i].tail = NULL;
    }
    return 0;
}

void mpf_lwp_free(mpf_t *m)
{
    free(m->lwpq);
    m->lwpq = NULL;
}
