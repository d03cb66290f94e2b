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

/* Spin a little (a sender on another core usually answers within a microsecond;
 * yielding now and then lets it run when cores are oversubscribed), then sleep
 * on the LNVC's futex word.  `observed` was read under the LNVC lock;
 * every send and close bumps the word, so a change means "look again". */
void mpf_wait_change(mpf_t *m, mpf_lnvc *l, uint32_t observed)
{
    for (int i = m->spin; i > 0; i--) {
        if (atomic_load_explicit(&l->word, memory_order_acquire) != observed) return;
        cpu_relax();
        if ((i & 255) == 0) sched_yield();
    }
    atomic_fetch_add_explicit(&l->sleepers, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&l->word, memory_order_seq_cst) == observed) mpf_futex_wait(m, &l->word, observed);
    atomic_fetch_sub_explicit(&l->sleepers, 1, memory_order_relaxed);
}

/* Called after the word was bumped (seq_cst), so a sleeper either saw the new
 * value or registered itself before our load of `sleepers`. */
void mpf_wake_waiters(mpf_t *m, mpf_lnvc *l)
{
    if (atomic_load_explicit(&l->sleepers, memory_order_seq_cst)) mpf_futex_wake_all(m, &l->word);
}
