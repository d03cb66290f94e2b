/* signals.c: how a program ends on a signal, and on a lost write.
 *
 * A fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL) must never end a program in
 * silence: it ends with an RTS abort, status 1, that names the process and,
 * when the faulting instruction is in generated code (which is compiled
 * with line tables: lineinfo.c), the MPD file and line.  An overflow of a
 * process's stack is a fault on its guard pages; the handler runs on the
 * VP's alternate signal stack (stack.c).
 *
 * SIGINT, SIGTERM and SIGHUP flush what the program has written and then
 * kill it with the same signal, so its parent sees the signal.  A signal
 * ignored when the program started (nohup, a shell's background job)
 * stays ignored. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include "core/rt_internal.h"
#include "mpd/err.h"

static _Thread_local int in_fault; /* this thread is reporting a fault */
static atomic_int reporting;       /* some thread is */

static uintptr_t fault_pc(void *ucv)
{
    ucontext_t *uc = ucv;
    if (!uc)
        return 0;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    return 0;
#endif
}

static const char *fault_what(int sig, int code)
{
    switch (sig) {
    case SIGSEGV:
        return "segmentation fault (invalid memory reference)";
    case SIGBUS:
        return "bus error (invalid memory access)";
    case SIGILL:
        return "illegal instruction";
    default:
        if (code == FPE_INTDIV)
            return "integer division by zero";
        if (code == FPE_INTOVF)
            return "integer overflow";
        return "arithmetic exception";
    }
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static void on_fault(int sig, siginfo_t *si, void *ucv)
{
    if (in_fault) { /* a fault while reporting one: give up */
        signal(sig, SIG_DFL);
        return;
    }
    in_fault = 1;
    if (atomic_exchange(&reporting, 1))
        for (;;) /* another thread reports and exits */
            pause();
    mpd_vp *vp = (mpd_vp *)(void *)mpd__tls_vp;
    mpd_proc *p = vp ? (mpd_proc *)(void *)vp->hot.cur : NULL;
    if (p && p->map_base == NULL) /* the VP's loop, not a process */
        p = NULL;
    char *a = si->si_addr;
    int overflow = sig == SIGSEGV && p && a >= p->map_base && a < p->f.stack_lo;

    char file[256], where[320], what[256], who[96];
    int line = 0;
    where[0] = who[0] = 0;
    if (mpd__line_of_pc(fault_pc(ucv), file, sizeof file, &line) && ends_with(file, ".mpd"))
        snprintf(where, sizeof where, "file %s, line %d:\n   ", file, line);
    if (p)
        snprintf(who, sizeof who, " in process %s", mpd_proc_name(p));
    if (overflow)
        snprintf(what, sizeof what,
                 "stack overflow%s (stack size %zu bytes; set a larger one "
                 "with MPD_STACK_SIZE)",
                 who, p->f.stack_size);
    else
        snprintf(what, sizeof what, "%s%s", fault_what(sig, si->si_code), who);

    if (mpd_rts_before_exit) /* what the program wrote comes first */
        mpd_rts_before_exit();
    char buf[720];
    int n = snprintf(buf, sizeof buf, "RTS abort: %s%s\n", where, what);
    if (n > 0 && write(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1) < 0)
        _exit(1);
    mpd_rts_exit(1); /* _exit, or the distributed layer's exit (forwards this) */
}

static void on_stop_signal(int sig)
{
    if (mpd_rts_before_exit)
        mpd_rts_before_exit();
    /* die of sig: it is blocked while we run, so it arrives as we return */
    signal(sig, SIG_DFL);
    raise(sig);
}

void mpd__signals_install(void)
{
    mpd__lineinfo_init();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        sigaction(faults[i], &sa, NULL);

    static const int stops[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
        struct sigaction old;
        if (sigaction(stops[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        struct sigaction st;
        memset(&st, 0, sizeof st);
        st.sa_handler = on_stop_signal;
        st.sa_flags = SA_ONSTACK;
        sigemptyset(&st.sa_mask);
        sigaction(stops[i], &st, NULL);
    }
}

int mpd__finish_output(int status)
{
    MPD_TL(mpd__tl_finish(status));
    /* flushed here first to learn why a write fails; never waits on a
     * thread that keeps stdout locked (mpd_rts_before_exit tries again) */
    int failed = 0, e = 0;
    if (ftrylockfile(stdout) == 0) {
        errno = 0;
        failed = fflush_unlocked(stdout) != 0;
        e = errno;
        funlockfile(stdout);
    }
    if (mpd_rts_before_exit)
        mpd_rts_before_exit();
    if (!failed && !ferror(stdout))
        return status;
    /* the output is lost: say so, and do not report success */
    if (failed && e)
        fprintf(stderr, "RTS abort: write error on standard output: %s\n", strerror(e));
    else
        fputs("RTS abort: write error on standard output\n", stderr);
    fflush(stderr);
    return status ? status : 1;
}
