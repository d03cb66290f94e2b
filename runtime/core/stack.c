/* stack.c: process regions (guard page + stack + process record), per-VP
 * caches of them, and the SIGSEGV handler that names overflowing processes. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "core/rt_internal.h"
#include "mpd/err.h"

#ifdef MPD_ASAN
#include <sanitizer/asan_interface.h>
#endif

#define GUARD_PAGES 4
#define CACHE_MAX 256

size_t mpd__stack_default = 256 * 1024;

size_t mpd__page_size(void)
{
    static size_t ps;
    if (!ps)
        ps = (size_t)sysconf(_SC_PAGESIZE);
    return ps;
}

static size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

/* Layout, low to high: [guard pages][stack ...][struct mpd_proc].  The
 * process record lives above its stack so one mmap serves both. */
mpd_proc *mpd__region_alloc(mpd_vp *vp, size_t stack_size, const char *name)
{
    size_t ps = mpd__page_size();
    size_t rec = round_up(sizeof(mpd_proc), 64);
    size_t total = round_up(stack_size + rec, ps) + GUARD_PAGES * ps;
    mpd_proc *p;
    if (stack_size == mpd__stack_default && vp->stack_cache) {
        p = vp->stack_cache;
        vp->stack_cache = p->link;
        vp->stack_cached--;
#ifdef MPD_ASAN
        __asan_unpoison_memory_region(p->f.stack_lo, p->f.stack_size);
#endif
    } else {
        char *base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                          -1, 0);
        if (base == MAP_FAILED)
            mpd_rts_fatal("out of memory: cannot map a %zu-byte stack for process %s "
                          "(too many processes?)", stack_size, name);
        if (mprotect(base, GUARD_PAGES * ps, PROT_NONE) != 0)
            mpd_rts_fatal("cannot protect the stack guard of process %s (too many processes?)", name);
        p = (mpd_proc *)(base + total - rec);   /* fresh pages are zero */
        p->map_base = base;
        p->map_size = total;
        p->f.stack_lo = base + GUARD_PAGES * ps;
        p->f.stack_size = (size_t)((char *)p - p->f.stack_lo);
        return p;
    }
    /* reuse: the region, its stack bounds and sanitizer fiber stay; the
     * creator sets every other field (cheaper than clearing ~300 bytes) */
    return p;
}

void mpd__region_free(mpd_vp *vp, mpd_proc *p)
{
    if (p->long_name) {
        free(p->long_name);
        p->long_name = NULL;
    }
    size_t ps = mpd__page_size();
    size_t rec = round_up(sizeof(mpd_proc), 64);
    size_t want = round_up(mpd__stack_default + rec, ps) + GUARD_PAGES * ps;
    if (vp && p->map_size == want && vp->stack_cached < CACHE_MAX) {
        p->link = vp->stack_cache;
        vp->stack_cache = p;
        vp->stack_cached++;
        return;
    }
#ifdef MPD_TSAN
    extern void __tsan_destroy_fiber(void *fiber);
    if (p->f.tsan)
        __tsan_destroy_fiber(p->f.tsan);
#endif
    munmap(p->map_base, p->map_size);
}

/* ---- stack overflow ---- */

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    mpd_vp *vp = (mpd_vp *)(void *)mpd__tls_vp;
    mpd_proc *p = vp ? (mpd_proc *)(void *)vp->hot.cur : NULL;
    char *a = si->si_addr;
    if (p && a >= p->map_base && a < p->f.stack_lo) {
        char buf[256];
        fflush(stdout);
        int n = snprintf(buf, sizeof buf,
                         "RTS abort: stack overflow in process %s (stack size %zu bytes; "
                         "set a larger one with MPD_STACK_SIZE)\n",
                         mpd_proc_name(p), p->f.stack_size);
        if (n > 0 && write(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1) < 0)
            _exit(1);
        _exit(1);
    }
    /* not an overflow of ours: let the default action happen */
    signal(sig, SIG_DFL);
}

void mpd__signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}

/* Each VP thread needs an alternate signal stack: the overflowing one is
 * useless.  Keep one that is already there (sanitizers install their own). */
void mpd__vp_signals_init(mpd_vp *vp)
{
    size_t sz = 64 * 1024;
    stack_t ss, old;
    if (sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE) && old.ss_size >= 16384)
        return;
    vp->altstack = malloc(sz);
    if (!vp->altstack)
        mpd_rts_fatal("out of memory for a signal stack");
    ss.ss_sp = vp->altstack;
    ss.ss_size = sz;
    ss.ss_flags = 0;
    sigaltstack(&ss, NULL);
}

/* Before a VP thread ends: remove and free its alternate stack. */
void mpd__vp_signals_fini(mpd_vp *vp)
{
    if (!vp->altstack)
        return;
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, NULL);
    free(vp->altstack);
    vp->altstack = NULL;
}
