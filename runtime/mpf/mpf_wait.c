/* mpf_wait.c: how a receiver with nothing to read waits for its conversation to change, and how it is woken. */
#include <sched.h>
#include <stdlib.h>

#include "mpd/rt.h"
#include "mpf_internal.h"

/* Parked MPD processes waiting on one LNVC (in-process, MPF_WAIT_LWP). */
typedef struct mpf_lwpq {
    mpd_spinlock lock;
    mpd_waitq q;
} mpf_lwpq;

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
static inline int spin_changed(mpf_t *m, mpf_lnvc *l, uint32_t observed, uint32_t sentinel, uint32_t seq)
{
    return atomic_load_explicit(&MPF_MSG(m, sentinel)->seq, memory_order_acquire) == seq ||
           atomic_load_explicit(&l->word, memory_order_acquire) != observed;
}

typedef struct sleep_args {
    mpf_t *m;
    mpf_lnvc *l;
    uint32_t observed, seq;
} sleep_args;

/* Sleep on the LNVC's futex word unless a send or close came first.  Register
 * first, then look again: a sender advances next_seq first, then reads
 * `sleepers`; with both sequentially consistent one of us sees the other. */
static intptr_t sleep_on_word(void *arg)
{
    sleep_args *a = arg;
    atomic_fetch_add_explicit(&a->l->sleepers, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&a->l->next_seq, memory_order_seq_cst) == a->seq &&
        atomic_load_explicit(&a->l->word, memory_order_seq_cst) == a->observed)
        mpf_futex_wait(a->m, &a->l->word, a->observed);
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
void mpf_wait_change(mpf_t *m, mpf_lnvc *l, uint32_t observed, uint32_t sentinel, uint32_t seq)
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
        if ((i & 255) == 0) sched_yield();
    }
    sleep_args a = {m, l, observed, seq};
    if (lwp) mpd_blocking_call(sleep_on_word, &a, NULL);
    else sleep_on_word(&a);
}

/* MPD processes: park only the calling process.  It registers under the LNVC
 * lock, so a sender that links afterwards (and then reads `sleepers`) finds it. */
int mpf_wait_lwp(mpf_t *m, mpf_lnvc *l)
{
    if (!m->lwpq || !mpd_self()) return 0;
    mpf_lwpq *w = &m->lwpq[l - mpf_lnvc_at(m, 0)];
    if (MPF_SOLO(m)) {
        atomic_store_explicit(&l->parked, atomic_load_explicit(&l->parked, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        mpf_unlock(m, &l->lock);
        mpd_waitq_wait(&w->q, NULL);
        atomic_store_explicit(&l->parked, atomic_load_explicit(&l->parked, memory_order_relaxed) - 1,
                              memory_order_relaxed);
        return 1;
    }
    atomic_fetch_add_explicit(&l->parked, 1, memory_order_seq_cst);
    mpd_spin_lock(&w->lock);
    mpf_unlock(m, &l->lock);
    mpd_waitq_wait(&w->q, &w->lock);
    atomic_fetch_sub_explicit(&l->parked, 1, memory_order_relaxed);
    return 1;
}

typedef struct space_args {
    mpf_t *m;
    uint32_t observed;
} space_args;

static intptr_t space_sleep(void *arg)
{
    space_args *a = arg;
    mpf_space_wait(a->m, a->observed);
    return 0;
}

/* A send from an MPD process found memory full: let the other processes run
 * (the receivers that free it may be on this VP); if there are none or they
 * cannot help (MPF_WAIT_LWP: they are the only receivers), wait for freed
 * memory on a helper thread rather than stopping the VP. */
int mpf_wait_lwp_yield(mpf_t *m, uint32_t observed)
{
    if (!mpd_self()) return 0;
    mpd_yield();
    if (!m->lwpq && atomic_load(&m->r->space_word) == observed) {
        space_args a = {m, observed};
        mpd_blocking_call(space_sleep, &a, NULL);
    }
    return 1;
}

/* mpf_wake_waiters found someone parked or asleep. */
void mpf_wake_sleepers(mpf_t *m, mpf_lnvc *l)
{
    if (m->lwpq && atomic_load_explicit(&l->parked, memory_order_seq_cst)) {
        mpf_lwpq *w = &m->lwpq[l - mpf_lnvc_at(m, 0)];
        if (MPF_SOLO(m)) {
            mpd_waitq_wake_all(&w->q);
        } else {
            mpd_spin_lock(&w->lock);
            mpd_waitq_wake_all(&w->q);
            mpd_spin_unlock(&w->lock);
        }
    }
    if (atomic_load_explicit(&l->sleepers, memory_order_seq_cst)) {
        atomic_fetch_add_explicit(&l->word, 1, memory_order_seq_cst);
        mpf_futex_wake_all(m, &l->word);
    }
}

int mpf_lwp_setup(mpf_t *m)
{
    m->lwpq = calloc(m->r->max_lnvcs, sizeof *m->lwpq);
    if (!m->lwpq) return -MPF_ESYS;
    for (uint32_t i = 0; i < m->r->max_lnvcs; i++) {
        mpd_spin_init(&m->lwpq[i].lock);
        mpd_waitq_init(&m->lwpq[i].q);
    }
    return 0;
}

void mpf_lwp_free(mpf_t *m)
{
    free(m->lwpq);
    m->lwpq = NULL;
}
