/* mpf_lock.c: the segment's locks -- one 32-bit word holding the owner's OS pid, so a waiter can tell when the owner died.
 *
 * A free lock is 0; a held one holds the owner's process id, with the top bit set
 * when somebody may be asleep on it.  Waiters spin briefly, then sleep on the
 * word (futex).  In a shared segment they sleep with a timeout and, each time it
 * runs out, check whether the owner process still exists; if it does not, they
 * take the lock over and the caller repairs what the owner left half done.
 * (A pthread robust mutex would do the same through the kernel's robust list, but
 * costs 40 bytes and extra bookkeeping on every lock; this one is a single
 * compare-and-swap and lets the whole hot part of an LNVC share one cache line.) */
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mpf_internal.h"

#define LOCK_WAITERS MPF_LOCK_WAITERS

_Atomic uint32_t mpf__self_pid;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void forget_pid(void)
{
    atomic_store_explicit(&mpf__self_pid, 0, memory_order_relaxed);
}
static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, forget_pid);
}

/* getpid() without a system call on every lock; a forked child learns its own. */
uint32_t mpf_self_slow(void)
{
    pthread_once(&atfork_once, register_atfork);
    uint32_t p = (uint32_t)getpid();
    atomic_store_explicit(&mpf__self_pid, p, memory_order_relaxed);
    return p;
}

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Contended: returns 0 when acquired normally, 1 when taken over from a dead owner. */
int mpf_lock_slow(mpf_t *m, mpf_lock_t *l, uint32_t self)
{
    for (int i = 0; i < 100; i++) {
        relax();
        uint32_t cur = atomic_load_explicit(l, memory_order_relaxed);
        if (cur == 0 && atomic_compare_exchange_weak_explicit(l, &cur, self, memory_order_acquire,
                                                              memory_order_relaxed))
            return 0;
    }
    int op = m->shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE;
    for (;;) {
        uint32_t cur = atomic_load_explicit(l, memory_order_relaxed);
        if (cur == 0) {
            /* We may not be the only sleeper, so keep the waiters bit. */
            if (atomic_compare_exchange_weak_explicit(l, &cur, self | LOCK_WAITERS,
                                                      memory_order_acquire, memory_order_relaxed))
                return 0;
            continue;
        }
        if (!(cur & LOCK_WAITERS)) {
            if (!atomic_compare_exchange_weak_explicit(l, &cur, cur | LOCK_WAITERS,
                                                       memory_order_relaxed, memory_order_relaxed))
                continue;
            cur |= LOCK_WAITERS;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        long r = syscall(SYS_futex, (uint32_t *)l, op, cur, m->shared ? &ts : NULL, NULL, 0);
        if (r == 0 || !m->shared)
            continue;
        if (atomic_load_explicit(l, memory_order_relaxed) == cur &&
            !mpf_os_pid_alive((int32_t)(cur & ~LOCK_WAITERS)) &&
            atomic_compare_exchange_strong_explicit(l, &cur, self | LOCK_WAITERS,
                                                    memory_order_acquire, memory_order_relaxed))
            return 1;
    }
}

void mpf_lock_wake(mpf_t *m, mpf_lock_t *l)
{
    syscall(SYS_futex, (uint32_t *)l, m->shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, 1, NULL, NULL,
            0);
}

static void count_recovery(mpf_t *m)
{
    atomic_fetch_add(&m->r->recoveries, 1);
    atomic_store(&m->r->reap_pending, 1);
}

/* Both LNVC locks, send lock first; if either was taken over from a dead owner
 * (or a receive-lock takeover left the LNVC marked broken), repair first. */
void mpf_lock_lnvc(mpf_t *m, mpf_lnvc *l)
{
    int dead = mpf_lock_acquire(m, &l->slock);
    dead |= mpf_lock_acquire(m, &l->rlock);
    if (dead || atomic_load_explicit(&l->broken, memory_order_relaxed)) {
        mpf_lnvc_repair(m, l);
        atomic_store(&l->broken, 0);
        count_recovery(m);
    }
}

/* A sender died holding the send lock: take the receive lock too (it comes
 * second in the order, so we may wait for it) and repair. */
void mpf_lnvc_recover_send(mpf_t *m, mpf_lnvc *l)
{
    mpf_lock_acquire(m, &l->rlock);
    mpf_lnvc_repair(m, l);
    atomic_store(&l->broken, 0);
    count_recovery(m);
    mpf_unlock(m, &l->rlock);
}

/* A receiver died holding the receive lock (or one that did left it broken):
 * the repair needs the send lock, which comes first in the order, so mark the
 * LNVC broken, let the receive lock go, take both and repair. */
void mpf_lnvc_recover_recv(mpf_t *m, mpf_lnvc *l)
{
    atomic_store(&l->broken, 1);
    mpf_unlock(m, &l->rlock);
    mpf_lock_lnvc(m, l);
    mpf_unlock(m, &l->slock);
}

int mpf_lock_table(mpf_t *m)
{
    if (mpf_lock_acquire(m, &m->r->table_lock)) {
        mpf_table_repair(m);
        atomic_fetch_add(&m->r->recoveries, 1);
        atomic_store(&m->r->reap_pending, 1);
    }
    return 0;
}
