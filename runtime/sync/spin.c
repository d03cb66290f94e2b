/* spin.c: the contended path of mpd_spin_lock. */
#include <sched.h>
#include "mpd/rt.h"

void mpd__spin_lock_slow(mpd_spinlock *l)
{
    for (unsigned n = 0;; n++) {
        if (atomic_load_explicit(&l->v, memory_order_relaxed) == 0 &&
            atomic_exchange_explicit(&l->v, 1, memory_order_acquire) == 0)
            return;
        if (n < 64) {
#if defined(__x86_64__)
            __builtin_ia32_pause();
#elif defined(__aarch64__)
            __asm__ volatile("yield");
#endif
        } else {
            sched_yield(); /* the holder may be preempted: 2 cores, many threads */
        }
    }
}
