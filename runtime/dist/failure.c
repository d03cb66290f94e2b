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
 *    tells rank 0 so (DM_DEAD, itself, status 1; on rank 0's host also by
 *    a datagram on rank 0's abstract socket, which no busy MPI receiver
 *    delays) before it ends.  Before any such note (or rank 0's own
 *    SIGTERM) a death is the failure and is reported at once; after it, a
 *    death waits TERMED_WAIT_MS for its note, and the earliest one without
 *    is reported (on a loaded host mpirun's SIGTERM can end rank 0's
 *    neighbours before the note from another host arrives);
 *  - SIGTERM on rank 0: it ends once a death is reported, or when none
 *    can be expected any more (DEAD_NOTE_WAIT_MS, short of the SIGKILL);
 *    with none, SIGTERM was from outside and ends it as any program.
 *
 * The report: "[vm 1] RTS abort: virtual machine 2 (host H, process P)
 * ended unexpectedly", then the exit sequence (comm.c) with status 1,
 * which sends nothing to the dead.  A host where the run has only one
 * process has nobody to watch it (docs/distributed.md, "Failures"). */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
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
/* rank 0: a sign that mpirun is ending the run was seen (a note "ended by
 * SIGTERM", or its own SIGTERM): deaths from then on wait for their note */
static atomic_int teardown;

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

/* Rank 0: rank r is dead: report it, end the run without it. */
static void report_dead(int r)
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

static int term_sock = -1;
static socklen_t term_sock_addr(struct sockaddr_un *a);

/* Rank 0: a note from another host says rank r died.  It waits, as a
 * death seen here does, for a note that mpirun ended r (a watcher there
 * also sees its neighbours ended after the death): the watch thread
 * decides, woken through its socket. */
void dist_failure_dead(int r)
{
    if (r <= 0 || r >= dist_size)
        return;
    int v = -(r + 1);
    struct sockaddr_un a;
    socklen_t len = term_sock_addr(&a);
    if (term_sock < 0 ||
        sendto(term_sock, &v, sizeof v, MSG_DONTWAIT, (struct sockaddr *)&a, len) != sizeof v)
        report_dead(r); /* no socket: at once */
}

/* A process told rank 0 it ends by its launcher's SIGTERM: the run is
 * being ended (mpirun's answer to a death elsewhere), it is not the dead. */
void dist_failure_terminated(int r)
{
    if (r > 0 && r < dist_size) {
        atomic_store(&termed[r], 1);
        atomic_store(&teardown, 1);
    }
}

/* Rank 0's datagram socket for its own host's notes "ended by SIGTERM"
 * (an abstract name: nothing left in the file system): they must beat the
 * 0.2 s rank 0 gives a dead neighbour, and MPI may not deliver them in
 * time (rank 0's receiver can be busy with a send to the dead).  Rank 0's
 * receiver also passes the notes of deaths on other hosts through it. */
static socklen_t term_sock_addr(struct sockaddr_un *a)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "mpd-dist-%d-term", dist_pids[0]);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
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
        /* before any sign that mpirun is ending the run, a death is the
         * failure itself: reported at once (as if seen long ago) */
        if (!dead_at[r])
            dead_at[r] = atomic_load(&teardown) ? now_ms() : 1;
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
    if (dist_rank == 0) {
        atomic_store(&teardown, 1);
        look_at_peers();
        return;
    }
    /* no last look here: the neighbours that ended by now were ended by
     * the same SIGTERM, most likely (a death before it was seen, by its
     * pidfd, and told already) */
    if (sender == getppid() && !dist_exit_started()) {
        if (local_peer(0)) {
            struct sockaddr_un a;
            socklen_t len = term_sock_addr(&a);
            int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
            if (fd >= 0) {
                (void)sendto(fd, &dist_rank, sizeof dist_rank, MSG_DONTWAIT, (struct sockaddr *)&a,
                             len);
                close(fd);
            }
        }
        tell_rank0(dist_rank, 1);
    }
    die_by_sigterm();
}

/* Rank 0, after each look: report a peer dead long enough without a
 * note; on SIGTERM, end once reported, or once no note can be expected. */
static int rank0_due(int64_t term_at)
{
    int64_t now = now_ms();
    int pending = 0, first = -1;
    for (int r = 1; r < dist_size; r++) {
        if (!dead_at[r] || atomic_load(&termed[r]) || atomic_load(&told[r]))
            continue;
        if (now - dead_at[r] < TERMED_WAIT_MS)
            pending = 1;
        else if (first < 0 || dead_at[r] < dead_at[first])
            first = r; /* the first to die is the one to report */
    }
    if (first > 0)
        report_dead(first);
    if (!term_at)
        return pending;
    if (atomic_load(&reported)) {
        dist_failure_write_report();
        _exit(1); /* the exit sequence may be waiting for the killed */
    }
    int remote = 0;
    for (int r = 1; r < dist_size; r++)
        remote |= !local_peer(r);
    if (pending || (remote && now - term_at < DEAD_NOTE_WAIT_MS))
        return 1;
    die_by_sigterm(); /* ended from outside, as any program */
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
    if (term_sock >= 0) {
        rank_of[n] = -1;
        pf[n++] = (struct pollfd){term_sock, POLLIN, 0};
    }
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
            if (rank_of[i] < 0 && pf[i].revents) { /* notes of this host */
                int v;
                while (recv(pf[i].fd, &v, sizeof v, MSG_DONTWAIT) == (ssize_t)sizeof v)
                    if (v > 0)
                        dist_failure_terminated(v);
                    else if (v < 0 && -v - 1 < dist_size)
                        peer_dead(-v - 1);
            } else if (pf[i].fd >= 0 && pf[i].revents) {
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
    if (dist_rank == 0) {
        struct sockaddr_un a;
        socklen_t len = term_sock_addr(&a);
        term_sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (term_sock >= 0 && bind(term_sock, (struct sockaddr *)&a, len) != 0) {
            close(term_sock); /* notes come by MPI only */
            term_sock = -1;
        }
    }
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
