/* main.c: mpd_rt_main -- settings from the environment, VP start-up and shutdown. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/rt_internal.h"
#include "core/switch.h"
#include "mpd/err.h"

#ifdef MPD_TSAN
#include <sanitizer/tsan_interface.h>
#endif

#define MAX_VPS 1024
#ifndef IDLE_SPIN_OVERSUBSCRIBED
#define IDLE_SPIN_OVERSUBSCRIBED 0
#endif

long mpd__max_procs = 1000000;
static int g_argc;
static char **g_argv;
static int exit_status;
static int want_nvp; /* 0 = from MPD_PARALLEL */
static int started;
static const mpd_sched_ops *want_sched[MAX_VPS];
static const mpd_sched_ops *want_sched_all;

int mpd_argc(void)
{
    return g_argc;
}
char **mpd_argv(void)
{
    return g_argv;
}
int mpd_nvp(void)
{
    return mpd__nvp;
}
int mpd_vp_index(void)
{
    mpd_vp *v = vp_self();
    return v ? v->index : -1;
}
unsigned long mpd_vp_quiescent(int i, int *idle)
{
    mpd_vp *v = mpd__vps[i];
    *idle = atomic_load_explicit(&v->qs_idle, memory_order_acquire);
    return atomic_load_explicit(&v->qs_count, memory_order_acquire);
}
void mpd_rt_set_exit_status(int status)
{
    exit_status = status;
}
void mpd_rt_set_nvp(int n)
{
    want_nvp = n;
}
void mpd_rt_set_stack_size(size_t bytes)
{
    if (bytes)
        mpd__stack_default = bytes;
}
void mpd_rt_set_max_procs(long n)
{
    if (n > 0)
        mpd__max_procs = n;
}
void mpd_rt_set_slice(long n)
{
    mpd__slice = n > 0 ? n : 0;
    mpd__slice_fresh = n > 0 ? n : LONG_MAX;
}

_Noreturn void mpd_exit(int status)
{
    status = mpd__finish_output(status);
    fflush(NULL);
    mpd_rts_exit(status);
}

/* Parses a non-negative number with an optional k/m/g suffix; -1 if bad. */
static long long parse_size(const char *s)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || v < 0)
        return -1;
    switch (*end) {
    case 'k':
    case 'K':
        v <<= 10;
        end++;
        break;
    case 'm':
    case 'M':
        v <<= 20;
        end++;
        break;
    case 'g':
    case 'G':
        v <<= 30;
        end++;
        break;
    }
    return *end ? -1 : v;
}

/* The settings' names: MPD_X, or for an SR program (srl's start file calls
 * mpd_rt_set_env_prefix("SR_")) SR_X first, then MPD_X. */
static const char *env_prefix;

void mpd_rt_set_env_prefix(const char *prefix)
{
    env_prefix = prefix;
}

static const char *rt_getenv(const char *name, const char **used)
{
    *used = name;
    if (env_prefix && !strncmp(name, "MPD_", 4)) {
        static char buf[64];
        snprintf(buf, sizeof buf, "%s%s", env_prefix, name + 4);
        const char *s = getenv(buf);
        if (s && *s) {
            *used = buf;
            return s;
        }
    }
    return getenv(name);
}

static long long env_num(const char *name, long long lo, long long hi, long long dflt)
{
    const char *s = rt_getenv(name, &name);
    if (!s || !*s)
        return dflt;
    long long v = parse_size(s);
    if (v < lo || v > hi)
        mpd_rts_fatal("bad %s=\"%s\": expected a number from %lld to %lld", name, s, lo, hi);
    return v;
}

static const mpd_sched_ops *sched_by_name(const char *s)
{
    if (!strcmp(s, "fifo"))
        return &mpd_sched_fifo;
    if (!strcmp(s, "prio"))
        return &mpd_sched_prio;
    if (!strcmp(s, "steal"))
        return &mpd_sched_steal;
    mpd_rts_fatal("bad MPD_SCHED=\"%s\": expected fifo, prio or steal", s);
}

int mpd_vp_set_sched(int vp, const mpd_sched_ops *ops)
{
    if (!ops || vp < -1 || vp >= MAX_VPS)
        return -1;
    if (!started) {
        if (vp < 0)
            want_sched_all = ops;
        else
            want_sched[vp] = ops;
        return 0;
    }
    if (mpd__nvp != 1 || vp > 0)
        return -1;
    /* one VP: move the ready processes over to the new scheduler */
    mpd_vp *v = mpd__vps[0];
    void *st = ops->init(0, 1);
    mpd_proc *p;
    while ((p = v->sched->get(v->sched_st)))
        ops->put(st, p);
    v->sched = ops;
    v->sched_st = st;
    mpd__mode_set(1, ops == &mpd_sched_fifo);
    return 0;
}

static void loop_fiber_init(mpd_vp *vp)
{
    pthread_attr_t a;
    memset(&vp->loop, 0, sizeof vp->loop);
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        void *lo;
        size_t sz;
        pthread_attr_getstack(&a, &lo, &sz);
        vp->loop.stack_lo = lo;
        vp->loop.stack_size = sz;
        pthread_attr_destroy(&a);
    }
#ifdef MPD_TSAN
    vp->loop.tsan = __tsan_get_current_fiber();
#endif
}

static void *vp_thread(void *arg)
{
    mpd_vp *vp = arg;
    mpd__tls_vp = &vp->hot;
    mpd__vp_signals_init(vp);
    loop_fiber_init(vp);
    if (mpd__compact) /* VP 0 alone starts awake */
        mpd__compact_first_sleep();
    /* after the first sleep: meanwhile VP 0 may change the fresh slice
     * (compaction's groups trigger, compact.c) */
    slice_reset(vp);
    mpd__vp_loop_run(vp);
    mpd__vp_signals_fini(vp);
    return NULL;
}

/* CPUs this process may run on (at least 1). */
static int usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? (int)c : 1;
}

/* How long an idle VP spins before it sleeps.  With no more VPs than CPUs,
 * ~10-50 us catches a quick handoff from another VP.  With more, an idle VP
 * that spins takes the CPU from a VP with work -- often the one holding
 * what the idle one waits for -- so it sleeps almost at once. */
static int idle_spin_default(int nvp)
{
    return nvp > usable_cpus() ? IDLE_SPIN_OVERSUBSCRIBED : 100;
}

static void (*program_main)(void *);
static void main_proc(void *arg)
{
    program_main(arg);
    atomic_store_explicit(&mpd__main_alive, 0, memory_order_relaxed);
}

int mpd_rt_main(int argc, char **argv, void (*main_fn)(void *), void *arg)
{
    if (started)
        mpd_rts_fatal("mpd_rt_main called twice");
    g_argc = argc;
    g_argv = argv;
    mpd__start_ns = mpd_now_ns();
    if (env_prefix && mpd__trc_open) { /* SR_TRACE: MPD_TRACE was read before main */
        char tv[64];
        snprintf(tv, sizeof tv, "%sTRACE", env_prefix);
        mpd__trc_open(getenv(tv));
    }
    /* MPD_PARALLEL unset, empty or 0 all mean the default: one VP */
    int n = want_nvp > 0 ? want_nvp : (int)env_num("MPD_PARALLEL", 0, MAX_VPS, 1);
    if (n == 0)
        n = 1;
    if (n > MAX_VPS)
        mpd_rts_fatal("too many virtual processors: %d (at most %d)", n, MAX_VPS);
    if (!mpd__slice)
        mpd__slice = (long)env_num("MPD_SLICE", 0, 1000000000000LL, 0);
    mpd__slice_fresh = mpd__slice > 0 ? mpd__slice : LONG_MAX;
    mpd__idle_spin = (int)env_num("MPD_IDLE_SPIN", 0, 1000000, -1);
    if (mpd__idle_spin < 0)
        mpd__idle_spin = idle_spin_default(n);
    long long ss = env_num("MPD_STACK_SIZE", 16384, 1LL << 36, 0);
    if (ss)
        mpd__stack_default = (size_t)ss;
    long long mp = env_num("MPD_MAX_PROCS", 1, 1LL << 40, 0);
    if (mp)
        mpd__max_procs = (long)mp;
    const char *sched_var;
    const char *sn = rt_getenv("MPD_SCHED", &sched_var);
    (void)sched_var;
    const mpd_sched_ops *dflt = want_sched_all ? want_sched_all
                                : (sn && *sn)  ? sched_by_name(sn)
                                               : &mpd_sched_fifo;

    mpd__nvp = n;
    mpd__vps = calloc((size_t)n, sizeof *mpd__vps);
    if (!mpd__vps)
        mpd_rts_fatal("out of memory starting the runtime");
    for (int i = 0; i < n; i++) {
        mpd_vp *vp = aligned_alloc(64, (sizeof(mpd_vp) + 63) / 64 * 64);
        if (!vp)
            mpd_rts_fatal("out of memory starting the runtime");
        memset(vp, 0, sizeof *vp);
        vp->index = i;
        if (n > 1) {
            vp->lq = aligned_alloc(64, (sizeof(runq) + 63) / 64 * 64);
            if (!vp->lq)
                mpd_rts_fatal("out of memory starting the runtime");
            memset(vp->lq, 0, sizeof *vp->lq);
            mpd_spin_init(&vp->lq->lk);
            atomic_init(&vp->lq->n, 0);
            atomic_init(&vp->lq->gets, 0);
        }
        atomic_init(&vp->qs_idle, 1); /* no process runs on it yet */
        vp->sched = want_sched[i] ? want_sched[i] : dflt;
        vp->sched_st = vp->sched->init(i, n);
        mpd__vps[i] = vp;
    }
    /* Compaction (compact.c) needs the FIFO scheduler everywhere (the others
     * may pin processes to VPs) and the time slice (its trigger) */
    int all_fifo = 1;
    for (int i = 0; i < n; i++)
        all_fifo &= mpd__vps[i]->sched == &mpd_sched_fifo;
    mpd__compact =
        n > 1 && all_fifo && mpd__slice > 0 && !mpd__tl_on && env_num("MPD_COMPACT", 0, 1, 1);
    mpd__compact_idle_ns = env_num("MPD_COMPACT_IDLE_US", 0, 10000000, 1000) * 1000;
    mpd__compact_trial_ns = env_num("MPD_COMPACT_TRIAL_US", 1, 10000000, 1000) * 1000;
    mpd__compact_sample_every = (unsigned long)env_num("MPD_COMPACT_SAMPLE", 0, 1L << 40, 65536);
    mpd__compact_debug = (int)env_num("MPD_COMPACT_DEBUG", 0, 2, 0);
    mpd__send_flow = n > 1 ? (uint32_t)env_num("MPD_SEND_FLOW", 0, 1u << 30, 1024) : 0;
    if (mpd__compact)
        mpd__compact_start(n);
    mpd__mode_set(n == 1 || mpd__compact, mpd__vps[0]->sched == &mpd_sched_fifo);
    started = 1;
    mpd__signals_install();
    mpd_vp *vp0 = mpd__vps[0];
    mpd__tls_vp = &vp0->hot;
    slice_reset(vp0);
    mpd__vp_signals_init(vp0);
    loop_fiber_init(vp0);

    mpd_proc_attr a = MPD_PROC_ATTR_INIT;
    a.name = "main";
    a.detached = 1;
    program_main = main_fn;
    atomic_store_explicit(&mpd__main_alive, 1, memory_order_relaxed);
    mpd_proc_create(main_proc, arg, &a);

    pthread_t *th = calloc((size_t)n, sizeof *th);
    for (int i = 1; i < n; i++)
        if (pthread_create(&th[i], NULL, vp_thread, mpd__vps[i]) != 0)
            mpd_rts_fatal("cannot start virtual processor %d of %d", i, n);
    mpd__vp_loop_run(vp0);
    for (int i = 1; i < n; i++)
        pthread_join(th[i], NULL);
    free(th);
    mpd__vp_signals_fini(vp0);
    int status = mpd__finish_output(exit_status);
    fflush(NULL);
    mpd__tls_vp = NULL;
    if (mpd_rts_exit_hook) /* the distributed layer ends every vm's process */
        mpd_rts_exit(status);
    return status;
}
