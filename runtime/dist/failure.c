/* failure.c: a vm's process that dies outright (kill -9, the OOM killer),
 * on rank 0's host or on another.
 *
 * mpirun notices the death and ends the job: it sends SIGTERM to every
 * other process (SIGKILL 1 s later: odls_base_sigkill_timeout), and with
 * -q says nothing about it.  Rank 0 must say which vm died, and where.
 * A process can only look at processes of its own host (by pid), so every
 * process watches its *local peers* -- the other processes of the run on
 * its host -- with a watch thread: one pidfd per peer (readable when the
 * peer ends), and a pipe the SIGTERM handler writes the sender's pid to.
 *
 *  - a peer dies: any process but rank 0 tells rank 0 at once (DM_DEAD,
 *    rank), which reports it -- before mpirun's SIGTERM, which needs a
 *    round trip between mpirun and its daemons;
 *  - a process that gets SIGTERM from its launcher (the run being ended)
 *    tells rank 0 so (DM_DEAD, itself, status 1) before it ends: so rank
 *    0, which sees its own host's peers end, tells the one that died
 *    first from those mpirun ended after it (it waits TERMED_WAIT_MS for
 *    that note before it reports a peer of its own host);
 *  - SIGTERM on rank 0: it ends once a death is reported, or when none
 *    can be expected any more (DEAD_NOTE_WAIT_MS, short of the SIGKILL);
 *    with none, SIGTERM was from outside and ends it as any program.
 *
 * The report: "[vm 1] RTS abort: virtual machine 2 (host H, process P)
 * ended unexpectedly", then the exit sequence (comm.c) with status 1,
 * which sends nothing to the dead.  A host where the run has only one
 * process has nobody to watch it (docs/distributed.md, "Failures"). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "dist/dist.h"

int *dist_pids;              /* [rank] its pid (comm.c fills it) */
char (*dist_real_hosts)[64]; /* [rank] gethostname(), for the look */

/* How long rank 0, on SIGTERM, waits for a note from another host: the
 * note was sent when the peer died, before mpirun even began to end the
 * job; the SIGKILL follows the SIGTERM 1 s later. */
#define DEAD_NOTE_WAIT_MS 600

static int term_pipe[2] = {-1, -1};
static atomic_int reported;    /* rank 0: a death was reported */
static atomic_int report_done; /* ... and its message written */
static char report_msg[400];
static atomic_int *told;   /* [rank] its death is known here */
static atomic_int *termed; /* rank 0: [rank] said it ends by mpirun's SIGTERM */
static int64_t *dead_at;   /* rank 0: [rank] seen dead at (ms), watch thread */
/* rank 0: how long a local peer's death waits for its "ended by SIGTERM" */
#define TERMED_WAIT_MS 200

static void say(const char *s)
{
    if (write(2, s, strlen(s)) < 0)
        return;
}

/* A peer whose pid this process can look at: same host by both names
 * (MPD_HOST simulates hosts on one machine: a simulated other host is
 * looked at as a real one would be, through its own processes). */
static int local_peer(int r)
{
    return r != dist_rank && !strcmp(dist_real_hosts[r], dist_real_hosts[dist_rank]) &&
           !strcmp(dist_hosts[r], dist_hosts[dist_rank]);
}

static int is_gone(int r)
{
    return kill(dist_pids[r], 0) != 0 && errno == ESRCH;
}

/* Rank 0: writes the report once (whoever comes first: the exit
 * sequence, the receiver of a note, the watch thread). */
void dist_failure_write_report(void)
{
    if (!atomic_load(&reported) || atomic_exchange(&report_done, 1))
        return;
    fflush(stdout);
    say(report_msg);
}

/* Rank 0: rank r is dead (its own look or a note): report it, end the
 * run without it. */
void dist_failure_dead(int r)
{
    /* once the run ends, processes end: not a failure */
    if (r <= 0 || r >= dist_size || dist_exit_started() || atomic_exchange(&told[r], 1))
        return;
    if (atomic_exchange(&reported, 1))
        return; /* one report: the first death ends the run */
    uint32_t vm = dist_vms_of_rank(r);
    if (vm)
        snprintf(report_msg, sizeof report_msg,
                 "%sRTS abort: virtual machine %u (host %s, process %d) ended unexpectedly\n",
                 mpd_rts_label, vm, dist_hosts[r], dist_pids[r]);
    else
        snprintf(report_msg, sizeof report_msg,
                 "%sRTS abort: the process of rank %d (host %s, process %d) ended unexpectedly\n",
                 mpd_rts_label, r, dist_hosts[r], dist_pids[r]);
    dist_exit_without(r, 1);
}

/* A process told rank 0 it ends by its launcher's SIGTERM: the run is
 * being ended (mpirun's answer to a death elsewhere), it is not the dead. */
void dist_failure_terminated(int r)
{
    if (r > 0 && r < dist_size)
        atomic_store(&termed[r], 1);
}

static void tell_rank0(int r, int status)
{
    dmsg *m = dmsg_new(DM_DEAD, 0);
    m->aux = (uint32_t)r;
    m->status = status;
    dist_send_control(0, m);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A local peer is dead.  Another process tells rank 0 at once.  Rank 0
 * waits TERMED_WAIT_MS for its note "ended by SIGTERM" (mpirun ending the
 * run after a death elsewhere, whose note may come later on a loaded
 * host): a peer that ends without one is the dead. */
static void peer_dead(int r)
{
    if (dist_rank == 0) {
        if (!dead_at[r])
            dead_at[r] = now_ms();
        return;
    }
    /* the main vm's death: mpirun ends the run, nobody is left to tell */
    if (r == 0 || dist_exit_started() || atomic_exchange(&told[r], 1))
        return;
    tell_rank0(r, 0);
}

static void look_at_peers(void)
{
    for (int r = 0; r < dist_size; r++)
        if (local_peer(r) && !atomic_load(&told[r]) && is_gone(r))
            peer_dead(r);
}

static _Noreturn void die_by_sigterm(void)
{
    fflush(stdout);
    signal(SIGTERM, SIG_DFL);
    raise(SIGTERM);
    _exit(143);
}

/* SIGTERM from sender (its pid).  Another process: a last look at its
 * peers; from its launcher (mpirun's daemon: the run is being ended), a
 * note saying so; then the default action.  Rank 0 goes on (watch_main). */
static void on_sigterm(pid_t sender)
{
    look_at_peers();
    if (dist_rank == 0)
        return;
    if (sender == getppid() && !dist_exit_started())
        tell_rank0(dist_rank, 1);
    die_by_sigterm();
}

/* Rank 0, after each look: report a peer dead long enough without a
 * note; on SIGTERM, end once reported, or once no note can be expected. */
static int rank0_due(int64_t term_at)
{
    int64_t now = now_ms();
    int pending = 0;
    for (int r = 1; r < dist_size; r++) {
        if (!dead_at[r] || atomic_load(&termed[r]) || atomic_load(&told[r]))
            continue;
        if (now - dead_at[r] >= TERMED_WAIT_MS)
            dist_failure_dead(r);
        else
            pending = 1;
    }
    if (!term_at)
        return pending;
    if (atomic_load(&reported)) {
        dist_failure_write_report();
        _exit(1); /* the exit sequence may be waiting for the killed */
    }
    int remote = 0;
    for (int r = 1; r < dist_size; r++)
        remote |= !local_peer(r);
    if (!pending && (!remote || now - term_at >= DEAD_NOTE_WAIT_MS))
        die_by_sigterm(); /* ended from outside, as any program */
    return 1;
}

static void on_term_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    pid_t from = si ? si->si_pid : 0;
    if (write(term_pipe[1], &from, sizeof from) < 0)
        return;
}

static void *watch_main(void *arg)
{
    (void)arg;
    int n = 0;
    struct pollfd *pf = calloc((size_t)dist_size + 1, sizeof *pf);
    int *rank_of = calloc((size_t)dist_size + 1, sizeof *rank_of);
    if (!pf || !rank_of)
        mpd_rts_fatal("out of memory");
    pf[n++] = (struct pollfd){term_pipe[0], POLLIN, 0};
    int unwatched = 0; /* peers with no pidfd (an old kernel): looked at */
    for (int r = 0; r < dist_size; r++) {
        if (!local_peer(r))
            continue;
        int fd = -1;
#ifdef SYS_pidfd_open
        fd = (int)syscall(SYS_pidfd_open, (pid_t)dist_pids[r], 0);
#endif
        if (fd < 0) {
            unwatched = 1;
            continue;
        }
        rank_of[n] = r;
        pf[n++] = (struct pollfd){fd, POLLIN, 0};
    }
    int64_t term_at = 0;
    int busy = 0; /* rank 0: a death or a SIGTERM being decided */
    for (;;) {
        int k = poll(pf, (nfds_t)n, busy ? 10 : unwatched ? 100 : -1);
        if (k < 0 && errno != EINTR)
            break;
        if (pf[0].revents & POLLIN) {
            pid_t from = 0;
            if (read(term_pipe[0], &from, sizeof from) > 0) {
                if (!term_at)
                    term_at = now_ms();
                on_sigterm(from);
            }
        }
        for (int i = 1; i < n; i++)
            if (pf[i].fd >= 0 && pf[i].revents) {
                peer_dead(rank_of[i]);
                close(pf[i].fd);
                pf[i].fd = -1; /* poll skips it */
            }
        if (unwatched)
            look_at_peers();
        if (dist_rank == 0)
            busy = rank0_due(term_at);
    }
    return NULL;
}

void dist_failure_install(void)
{
    told = calloc((size_t)dist_size, sizeof *told);
    termed = calloc((size_t)dist_size, sizeof *termed);
    dead_at = calloc((size_t)dist_size, sizeof *dead_at);
    if (!told || !termed || !dead_at || pipe(term_pipe) != 0)
        mpd_rts_fatal("cannot watch the other processes of the run");
    for (int i = 0; i < 2; i++)
        (void)fcntl(term_pipe[i], F_SETFD, FD_CLOEXEC);
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &a, watch_main, NULL) != 0)
        mpd_rts_fatal("cannot start the thread watching the other processes");
    pthread_attr_destroy(&a);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_term_signal;
    sa.sa_flags = SA_RESTART | SA_SIGINFO;
    sigaction(SIGTERM, &sa, NULL);
}
