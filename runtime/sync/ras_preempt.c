/* ras_preempt.c: per-OS-thread preemption timer whose signal calls a hook outside critical code. */
#include "mpd/ras.h"

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/syscall.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* Per OS thread (per virtual processor) state. */
typedef struct {
    int armed;
    int off;     /* mpd_preempt_off nesting */
    int pending; /* a tick was deferred and not yet taken */
    timer_t timer;
    mpd_preempt_hook hook;
    unsigned long ticks, taken, deferred;
} preempt_tls;

static _Thread_local preempt_tls tls;

/* A lightweight thread may leave the hook on one OS thread and come back on
 * another, so after the hook the TLS block must be looked up afresh. */
__attribute__((noinline)) static preempt_tls *me(void)
{
    preempt_tls *p = &tls;
    __asm__ volatile("" : "+r"(p));
    return p;
}

/* Executable segments of the main program: only code there is preempted
 * (libc and other shared objects are not reentrant across our threads). */
#define MAX_TEXT 8
static struct {
    uintptr_t lo, hi;
} text[MAX_TEXT];
static int ntext;
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

static int collect_main_text(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    for (int i = 0; i < info->dlpi_phnum && ntext < MAX_TEXT; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            text[ntext].lo = info->dlpi_addr + ph->p_vaddr;
            text[ntext].hi = text[ntext].lo + ph->p_memsz;
            ntext++;
        }
    }
    return 1; /* the first object reported is the main program */
}

static int in_main_text(uintptr_t pc)
{
    for (int i = 0; i < ntext; i++)
        if (pc >= text[i].lo && pc < text[i].hi)
            return 1;
    return 0;
}

/* The runtime library's code: runtime/Makefile renames the .text sections of
 * its objects to mpd_rt_text, and the linker brackets the section with these
 * symbols.  A tick there may have interrupted a queue spin lock, the
 * scheduler, the allocator's caller or a half-done context switch, whatever
 * entry point the thread came through, so it is never taken there. */
extern const char __start_mpd_rt_text[] __attribute__((weak, visibility("hidden")));
extern const char __stop_mpd_rt_text[] __attribute__((weak, visibility("hidden")));

static int in_runtime_text(uintptr_t pc)
{
    return pc >= (uintptr_t)__start_mpd_rt_text && pc < (uintptr_t)__stop_mpd_rt_text;
}

int mpd_preempt_pc_in_runtime(const void *pc)
{
    return in_runtime_text((uintptr_t)pc);
}

/* A tick may be taken here: a registered sequence (rewound by the hook) or the
 * program's own code outside the runtime. */
static int preemptible_pc(uintptr_t pc)
{
    if (mpd_ras_lookup((const void *)pc))
        return 1;
    return in_main_text(pc) && !in_runtime_text(pc);
}

static uintptr_t pc_of(void *ucontext)
{
    ucontext_t *uc = ucontext;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

static void on_tick(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    int saved = errno;
    preempt_tls *p = me();
    p->ticks++;
    if (!p->armed || p->off > 0 || !p->hook || !preemptible_pc(pc_of(uc))) {
        p->deferred++;
        p->pending = p->armed;
        errno = saved;
        return;
    }
    p->taken++;
    p->pending = 0;
    p->off++;
    /* The hook may switch to a thread that was not interrupted by a signal and
     * so will never sigreturn: unblock the tick now.  A tick arriving from
     * here on sees off > 0 and returns at once (no nesting before this). */
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, MPD_PREEMPT_SIGNAL);
    pthread_sigmask(SIG_UNBLOCK, &s, NULL);
    p->hook(uc);
    me()->off--;
    errno = saved;
}

static void setup(void)
{
    dl_iterate_phdr(collect_main_text, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_tick;
    sa.sa_flags = SA_SIGINFO | SA_RESTART; /* blocked while the handler decides */
    sigemptyset(&sa.sa_mask);
    sigaction(MPD_PREEMPT_SIGNAL, &sa, NULL);
}

int mpd_preempt_start(long period_us, mpd_preempt_hook hook)
{
    if (period_us <= 0 || !hook)
        return EINVAL;
    pthread_once(&setup_once, setup);
    preempt_tls *p = me();
    if (p->armed)
        mpd_preempt_stop();
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = MPD_PREEMPT_SIGNAL;
    ev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_MONOTONIC, &ev, &p->timer) != 0)
        return errno;
    p->hook = hook;
    p->armed = 1;
    struct itimerspec its;
    its.it_interval.tv_sec = period_us / 1000000;
    its.it_interval.tv_nsec = (period_us % 1000000) * 1000;
    its.it_value = its.it_interval;
    if (timer_settime(p->timer, 0, &its, NULL) != 0) {
        int e = errno;
        timer_delete(p->timer);
        p->armed = 0;
        return e;
    }
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, MPD_PREEMPT_SIGNAL);
    pthread_sigmask(SIG_UNBLOCK, &s, NULL);
    return 0;
}

void mpd_preempt_stop(void)
{
    preempt_tls *p = me();
    if (!p->armed)
        return;
    p->armed = 0; /* a tick already queued is now deferred */
    timer_delete(p->timer);
}

void mpd_preempt_off(void)
{
    me()->off++;
}
void mpd_preempt_on(void)
{
    me()->off--;
}
int mpd_preempt_is_off(void)
{
    return me()->off > 0;
}
int mpd_preempt_pending(void)
{
    return me()->pending;
}
void mpd_preempt_clear_pending(void)
{
    me()->pending = 0;
}

void mpd_preempt_stats(unsigned long *ticks, unsigned long *taken, unsigned long *deferred)
{
    preempt_tls *p = me();
    if (ticks)
        *ticks = p->ticks;
    if (taken)
        *taken = p->taken;
    if (deferred)
        *deferred = p->deferred;
}
