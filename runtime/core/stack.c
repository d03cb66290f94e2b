/* stack.c: process regions (guard page + stack + process record), per-VP
 * caches of them, and each VP's alternate signal stack (signals.c reports a
 * fault on it, an overflow of the stack included). */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
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
#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102 /* Linux 6.13 */
#endif

/* 16 MiB: room for a recursion 100000 deep of a small procedure (~60-80
 * bytes a frame).  It is only reserved (MAP_NORESERVE): a process costs the
 * pages it touches, plus one page-table page since its stack top is more
 * than 2 MiB from its neighbours' -- about 8 KB a blocked process instead
 * of 4.5 KB with 256 KiB stacks, and 16 TB of address space for a million
 * processes, well inside x86-64's and aarch64's 128 TB. */
size_t mpd__stack_default = 16 * 1024 * 1024;

size_t mpd__page_size(void)
{
    static size_t ps;
    if (!ps)
        ps = (size_t)sysconf(_SC_PAGESIZE);
    return ps;
}

static size_t round_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

/* Guard pages.  mprotect(PROT_NONE) splits the mapping, so every process
 * costs two kernel VMAs and vm.max_map_count (65530 by default) caps a
 * program at about 32000 processes.  Linux 6.13's guard regions
 * (MADV_GUARD_INSTALL) fault the same way without splitting: adjacent
 * regions then merge into a few VMAs and the cap is gone.  Where the kernel
 * lacks them -- or ignores the advice, as qemu-user does -- we use mprotect.
 * guard_mode: 0 not yet known, 1 guard regions, 2 mprotect. */
static atomic_int guard_mode;

/* Does this kernel really guard [g, g+len)?  A guarded page makes write(2)
 * fail with EFAULT instead of faulting us. */
static int guard_region_works(char *g, size_t len)
{
    if (madvise(g, len, MADV_GUARD_INSTALL) != 0)
        return 0;
    int fd[2], works = 0;
    if (pipe(fd) != 0)
        return 0;
    errno = 0;
    works = write(fd[1], g, 1) < 0 && errno == EFAULT;
    close(fd[0]);
    close(fd[1]);
    return works;
}

static int install_guard(char *g, size_t len)
{
    int m = atomic_load_explicit(&guard_mode, memory_order_relaxed);
    if (m == 1 && madvise(g, len, MADV_GUARD_INSTALL) == 0)
        return 0;
    if (m == 0) {
        m = guard_region_works(g, len) ? 1 : 2;
        atomic_store_explicit(&guard_mode, m, memory_order_relaxed);
        if (m == 1)
            return 0;
    }
    return mprotect(g, len, PROT_NONE);
}

static long max_map_count(void)
{
    long lim = 0;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &lim) != 1)
            lim = 0;
        fclose(f);
    }
    return lim;
}

static _Noreturn void map_failed(const char *what, size_t stack_size, const char *name)
{
    int e = errno;
    long live = atomic_load_explicit(&mpd__nprocs, memory_order_relaxed);
    long lim = e == ENOMEM ? max_map_count() : 0;
    /* ENOMEM with about half the mapping limit in stacks: the kernel's
     * count of mappings ran out, not memory */
    if (lim > 0 && 2 * live + 2000 >= lim)
        mpd_rts_fatal("out of memory: cannot %s a %zu-byte stack for process %s: %ld processes "
                      "live, and a guarded stack takes up to 2 of the kernel's %ld memory "
                      "mappings (vm.max_map_count; raise it with sysctl, or run Linux 6.13 or "
                      "later, whose guard regions take none)",
                      what, stack_size, name, live, lim);
    mpd_rts_fatal(
        "out of memory: cannot %s a %zu-byte stack for process %s (%ld processes live: %s)", what,
        stack_size, name, live, strerror(e));
}

/* Every mapped region, so the blocked-process report can find the
 * processes without a list that each create and exit would update: regions
 * join at mmap and leave at munmap, both rare. */
static mpd_proc *regions;
static mpd_spinlock regions_lock = MPD_SPINLOCK_INIT;

static void regions_add(mpd_proc *p)
{
    mpd_spin_lock(&regions_lock);
    p->reg_prev = NULL;
    p->reg_next = regions;
    if (regions)
        regions->reg_prev = p;
    regions = p;
    mpd_spin_unlock(&regions_lock);
}

static void regions_remove(mpd_proc *p)
{
    mpd_spin_lock(&regions_lock);
    if (p->reg_prev)
        p->reg_prev->reg_next = p->reg_next;
    else
        regions = p->reg_next;
    if (p->reg_next)
        p->reg_next->reg_prev = p->reg_prev;
    mpd_spin_unlock(&regions_lock);
}

void mpd__regions_foreach(void (*fn)(mpd_proc *p, void *arg), void *arg)
{
    mpd_spin_lock(&regions_lock);
    for (mpd_proc *p = regions; p; p = p->reg_next)
        fn(p, arg);
    mpd_spin_unlock(&regions_lock);
}

void mpd__region_reuse(mpd_proc *p)
{
#ifdef MPD_ASAN
    __asan_unpoison_memory_region(p->f.stack_lo, p->f.stack_size);
#else
    (void)p;
#endif
}

/* Layout, low to high: [guard pages][stack ...][struct mpd_proc].  The
 * process record lives above its stack so one mmap serves both. */
mpd_proc *mpd__region_alloc(mpd_vp *vp, size_t stack_size, const char *name)
{
    mpd_proc *p;
    if (stack_size == mpd__stack_default && vp->stack_cache) {
        p = vp->stack_cache;
        vp->stack_cache = p->link;
        vp->stack_cached--;
        mpd__region_reuse(p);
        /* reuse: the region, its stack bounds and sanitizer fiber stay; the
         * creator sets every other field (cheaper than clearing ~300 bytes) */
        return p;
    }
    size_t ps = mpd__page_size();
    size_t rec = round_up(sizeof(mpd_proc), 64);
    if (stack_size > SIZE_MAX / 2)
        mpd_rts_fatal("out of memory: cannot map a %zu-byte stack for process %s", stack_size,
                      name);
    size_t total = round_up(stack_size + rec, ps) + GUARD_PAGES * ps;
    char *base = mmap(NULL, total, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
        map_failed("map", stack_size, name);
    if (install_guard(base, GUARD_PAGES * ps) != 0) {
        int e = errno;
        munmap(base, total);
        errno = e;
        map_failed("guard", stack_size, name);
    }
    p = (mpd_proc *)(base + total - rec); /* fresh pages are zero */
    p->map_base = base;
    p->map_size = total;
    p->f.stack_lo = base + GUARD_PAGES * ps;
    p->f.stack_size = (size_t)((char *)p - p->f.stack_lo);
    p->std_region = stack_size == mpd__stack_default;
    PSTATE_SET(p, P_DONE); /* not a process yet */
    regions_add(p);
    return p;
}

void mpd__region_free(mpd_vp *vp, mpd_proc *p)
{
    if (p->long_name) {
        free(p->long_name);
        p->long_name = NULL;
    }
    if (vp && mpd__region_cache_put(vp, p))
        return;
#ifdef MPD_TSAN
    extern void __tsan_destroy_fiber(void *fiber);
    if (p->f.tsan)
        __tsan_destroy_fiber(p->f.tsan);
#endif
    regions_remove(p);
    munmap(p->map_base, p->map_size);
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
