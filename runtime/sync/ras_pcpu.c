/* ras_pcpu.c: per-CPU counters on Linux rseq (glibc's registration), interlocked fallback. */
#include "mpd/ras.h"

#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__linux__) && __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#define HAVE_RSEQ 1
#else
#define HAVE_RSEQ 0
#endif

/* One cache line per CPU so CPUs never share a line. */
struct mpd_pcpu_counter {
    struct {
        long v;
        char pad[64 - sizeof(long)];
    } slot[MPD_PCPU_MAX];
};

static atomic_int force_fallback;
static _Thread_local unsigned long aborts;

mpd_pcpu_counter_t *mpd_pcpu_counter_new(void)
{
    mpd_pcpu_counter_t *c = aligned_alloc(64, sizeof *c);
    if (c)
        memset(c, 0, sizeof *c);
    return c;
}

void mpd_pcpu_counter_free(mpd_pcpu_counter_t *c)
{
    free(c);
}

void mpd_pcpu_force_fallback(int on)
{
    atomic_store(&force_fallback, on);
}
unsigned long mpd_pcpu_aborts(void)
{
    return aborts;
}

#if HAVE_RSEQ
static struct rseq *rseq_area(void)
{
    return (struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
}

static int rseq_ready(void)
{
    return __rseq_size > 0 && rseq_area()->cpu_id < MPD_PCPU_MAX;
}

/* Add v to this CPU's slot.  The critical section is [1, 2): read cpu_id,
 * index the slot, and commit with one (non-interlocked) add.  Preemption,
 * migration or a signal inside it makes the kernel jump to 4, which is
 * preceded by the RSEQ_SIG signature the kernel checks.  Returns 0 on commit,
 * 1 on abort. */
static int rseq_add(struct rseq *rs, mpd_pcpu_counter_t *c, long v)
{
    __asm__ goto(
        ".pushsection __rseq_cs, \"aw\"\n\t"
        ".balign 32\n\t"
        "3:\n\t"
        ".long 0x0, 0x0\n\t"
        ".quad 1f, (2f - 1f), 4f\n\t"
        ".popsection\n\t"
        "leaq 3b(%%rip), %%rax\n\t"
        "movq %%rax, %c[cs_off](%[rs])\n\t"
        "1:\n\t"
        "movl %c[cpu_off](%[rs]), %%eax\n\t"
        "cmpl %[max], %%eax\n\t"
        "jae 4f\n\t"
        "shlq $6, %%rax\n\t"
        "addq %[v], (%[c], %%rax)\n\t"
        "2:\n\t"
        ".pushsection __rseq_failure, \"ax\"\n\t"
        ".byte 0x0f, 0xb9, 0x3d\n\t"
        ".long 0x53053053\n\t"
        "4:\n\t"
        "jmp %l[abort]\n\t"
        ".popsection\n\t"
        :
        : [rs] "r"(rs), [c] "r"(c), [v] "r"(v), [cs_off] "i"(offsetof(struct rseq, rseq_cs)),
          [cpu_off] "i"(offsetof(struct rseq, cpu_id)), [max] "i"(MPD_PCPU_MAX)
        : "rax", "memory", "cc"
        : abort);
    return 0;
abort:
    return 1;
}
#endif

int mpd_pcpu_uses_rseq(void)
{
#if HAVE_RSEQ
    return !atomic_load_explicit(&force_fallback, memory_order_relaxed) && rseq_ready();
#else
    return 0;
#endif
}

void mpd_pcpu_add(mpd_pcpu_counter_t *c, long v)
{
#if HAVE_RSEQ
    if (mpd_pcpu_uses_rseq()) {
        struct rseq *rs = rseq_area();
        for (int tries = 0; tries < 100; tries++) {
            if (!rseq_add(rs, c, v))
                return;
            aborts++;
        }
    }
#endif
    int cpu = sched_getcpu();
    if (cpu < 0)
        cpu = 0;
    __atomic_fetch_add(&c->slot[cpu % MPD_PCPU_MAX].v, v, __ATOMIC_RELAXED);
}

long mpd_pcpu_sum(const mpd_pcpu_counter_t *c)
{
    long s = 0;
    for (int i = 0; i < MPD_PCPU_MAX; i++)
        s += __atomic_load_n(&c->slot[i].v, __ATOMIC_RELAXED);
    return s;
}
