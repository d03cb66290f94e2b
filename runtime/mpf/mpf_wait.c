/* mpf_wait.c: how a receiver with nothing to read waits for its conversation to change, and how it is woken. */
#include <sched.h>

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
 * links a new node after `sentinel`; a close bumps `word`.  The sentinel may be
 * freed and reused meanwhile (e.g. the LNVC died): that only causes a spurious
 * look, and the segment stays mapped. */
static inline int changed(mpf_t *m, mpf_lnvc *l, uint32_t observed, uint32_t sentinel)
{
    return atomic_load_explicit(&MPF_MSG(m, sentinel)->next, memory_order_seq_cst) != 0 ||
           atomic_load_explicit(&l->word, memory_order_seq_cst) != observed;
}

/* Spin a little (a sender on another core usually answers within a microsecond;
 * yielding now and then lets it run when cores are oversubscribed), then sleep
 * on the LNVC's futex word. */
void mpf_wait_change(mpf_t *m, mpf_lnvc *l, uint32_t observed, uint32_t sentinel)
{
    for (int i = m->spin; i > 0; i--) {
        if (changed(m, l, observed, sentinel)) return;
        cpu_relax();
        if ((i & 255) == 0) sched_yield();
    }
    /* Register first, then look again: a sender links first, then reads
     * `sleepers`; with both sequentially consistent one of us sees the other. */
    atomic_fetch_add_explicit(&l->sleepers, 1, memory_order_seq_cst);
    if (!changed(m, l, observed, sentinel)) mpf_futex_wait(m, &l->word, observed);
    atomic_fetch_sub_explicit(&l->sleepers, 1, memory_order_relaxed);
}

/* After a send has linked its message: wake sleepers, if any. */
void mpf_wake_waiters(mpf_t *m, mpf_lnvc *l)
{
    if (atomic_load_explicit(&l->sleepers, memory_order_seq_cst)) {
        atomic_fetch_add_explicit(&l->word, 1, memory_order_seq_cst);
        mpf_futex_wake_all(m, &l->word);
    }
}
