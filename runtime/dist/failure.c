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
 * ended unexpectedly" (with the statement of a request of rank 0 still
 * waiting for the dead, if any), then the exit sequence (comm.c) with
 * status 1, which sends nothing to the dead.  Rank 0 also watches every
 * process of another host through a TCP "lifeline" (below): a process
 * alone on its host has no neighbour to watch it. */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/random.h>
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
static int life_listen = -1;   /* rank 0: the lifelines' socket (below) */
static int life_fd = -1;       /* another process: its lifeline to rank 0 */
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
static int same_host(int a, int b)
{
    return !strcmp(dist_real_hosts[a], dist_real_hosts[b]) && !strcmp(dist_hosts[a], dist_hosts[b]);
}

static int local_peer(int r)
{
    return r != dist_rank && same_host(r, dist_rank);
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

/* "file F, line L: " for the statement of this process's request waiting
 * for rank r, if one is (a call in progress to the dead fails there). */
static void failed_at(int r, char *at, size_t n)
{
    int L = 0;
    const char *F = dist_request_waiting_on(r, &L);
    if (F)
        snprintf(at, n, "file %s, line %d: ", F, L);
    else
        at[0] = 0;
}

static void dead_msg(char *buf, size_t n, int r, uint32_t vm)
{
    char at[300];
    failed_at(r, at, sizeof at);
    if (vm)
        snprintf(buf, n,
                 "%sRTS abort: %svirtual machine %u (host %s, process %d) ended unexpectedly\n",
                 mpd_rts_label, at, vm, dist_hosts[r], dist_pids[r]);
    else
        snprintf(buf, n,
                 "%sRTS abort: %sthe process of rank %d (host %s, process %d) ended unexpectedly\n",
                 mpd_rts_label, at, r, dist_hosts[r], dist_pids[r]);
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
    dead_msg(report_msg, sizeof report_msg, r, vm);
    dist_exit_without(r, vm, 1);
}

/* Not rank 0: rank 0 says rank r (serving vm) died and ends the run: a
 * request of this process waiting for it fails at its statement. */
void dist_failure_requests_failed(int r, uint32_t vm)
{
    int L;
    if (r <= 0 || r >= dist_size || !dist_request_waiting_on(r, &L))
        return;
    char msg[400];
    dead_msg(msg, sizeof msg, r, vm);
    fflush(stdout);
    fputs(msg, stderr);
    fflush(stderr);
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
    /* the main vm's death: nobody is left to tell.  mpirun ends the run;
     * a launcher that would not (srun without --kill-on-bad-exit) must
     * not leave this process waiting for ever */
    if (r == 0 && !dist_exit_started())
        _exit(1);
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
        if (life_fd >= 0)
            (void)send(life_fd, "T", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
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

/* ---- the lifeline -------------------------------------------------------
 * Rank 0 cannot look at a pid of another host, and a process alone on its
 * host has no neighbour to do it (measured: such a death went unreported,
 * mpirun's SIGTERM reaching rank 0 ~2 s later, its SIGKILL 0.6 s after).
 * So every process whose host is not rank 0's keeps a TCP connection to
 * rank 0 (its "lifeline"): the kernel closes it when the process dies,
 * however it dies, and rank 0's watch thread reads end of file at once.
 * It carries no traffic and has no timeout that a process starved of CPU
 * could miss; TCP keepalive probes, answered by the kernel, notice a host
 * that vanished without closing it (~11 s).  A process that its launcher
 * ends with SIGTERM first writes 'T' on it: rank 0 then knows that death
 * for mpirun's teardown, not a failure.  (MPD 1.0.1's mpdx noticed a vm's
 * death the same way, by end of file on the vm's socket.) */
typedef struct {
    uint64_t cookie;
    int32_t port; /* 0: no lifelines (every process is on rank 0's host) */
    int32_t naddr;
    uint32_t addr[8]; /* rank 0's IPv4 addresses but loopback, network order */
} life_info;
typedef struct {
    uint64_t cookie;
    int32_t rank;
    int32_t pad;
} life_hello;
static life_info life;
#define LIFE_WAIT_MS 2000 /* rank 0: a hello, and its answer */
/* a process: its connect, and rank 0's answer (its watch thread may be
 * slow to run on a loaded host; nothing waits for this one meanwhile) */
#define LIFE_CONNECT_MS 15000

static void keepalive(int fd)
{
    int on = 1, idle = 5, intvl = 2, cnt = 3;
    (void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
    (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
}

/* Reads or writes exactly n bytes of a non-blocking socket within ms. */
static int io_within(int fd, void *buf, size_t n, int wr, int ms)
{
    size_t done = 0;
    int64_t until = now_ms() + ms;
    while (done < n) {
        ssize_t k = wr ? send(fd, (char *)buf + done, n - done, MSG_NOSIGNAL)
                       : recv(fd, (char *)buf + done, n - done, 0);
        if (k > 0) {
            done += (size_t)k;
            continue;
        }
        if (k == 0 || (errno != EAGAIN && errno != EINTR))
            return -1;
        int left = (int)(until - now_ms());
        struct pollfd p = {fd, wr ? POLLOUT : POLLIN, 0};
        if (left <= 0 || poll(&p, 1, left) < 0)
            return -1;
    }
    return 0;
}

/* At start-up, collectively (comm.c): rank 0 listens, and tells every
 * process where.  Connecting is the watch threads' work. */
void dist_failure_lifeline(void (*bcast)(void *buf, int n))
{
    memset(&life, 0, sizeof life);
    int need = 0;
    for (int r = 1; r < dist_size; r++)
        need |= !same_host(r, 0);
    if (need && dist_rank == 0) {
        life_listen = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
        socklen_t al = sizeof a;
        if (life_listen >= 0 && bind(life_listen, (struct sockaddr *)&a, sizeof a) == 0 &&
            listen(life_listen, SOMAXCONN) == 0 &&
            getsockname(life_listen, (struct sockaddr *)&a, &al) == 0) {
            life.port = ntohs(a.sin_port);
            if (getrandom(&life.cookie, sizeof life.cookie, 0) != sizeof life.cookie)
                life.cookie = (uint64_t)now_ms() * 2654435761u ^ (uint64_t)getpid();
            struct ifaddrs *ifs = NULL;
            if (getifaddrs(&ifs) == 0) {
                for (struct ifaddrs *i = ifs; i && life.naddr < 8; i = i->ifa_next)
                    if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET) {
                        uint32_t v = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
                        if ((ntohl(v) >> 24) != 127)
                            life.addr[life.naddr++] = v;
                    }
                freeifaddrs(ifs);
            }
        } else if (life_listen >= 0) {
            close(life_listen);
            life_listen = -1;
        }
    }
    bcast(&life, (int)sizeof life);
}

/* Another process, in its watch thread: connects to rank 0 at one of its
 * addresses -- the loopback one when on the same machine (hosts simulated
 * by MPD_HOST), else its others -- and says who it is; rank 0 answers
 * with the cookie's complement, so a stranger's port is not taken for
 * rank 0's. */
static void life_connect(void)
{
    uint32_t cand[9];
    int n = 0;
    if (!strcmp(dist_real_hosts[dist_rank], dist_real_hosts[0]))
        cand[n++] = htonl(INADDR_LOOPBACK);
    else
        for (int i = 0; i < life.naddr && i < 8; i++)
            cand[n++] = life.addr[i];
    for (int i = 0; i < n; i++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            break;
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)life.port)};
        a.sin_addr.s_addr = cand[i];
        int ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0 || errno == EINPROGRESS;
        if (ok) {
            struct pollfd p = {fd, POLLOUT, 0};
            int err = 0;
            socklen_t el = sizeof err;
            ok = poll(&p, 1, LIFE_CONNECT_MS) == 1 &&
                 getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0;
        }
        life_hello h = {life.cookie, dist_rank, 0};
        uint64_t ack = 0;
        if (ok && io_within(fd, &h, sizeof h, 1, LIFE_CONNECT_MS) == 0 &&
            io_within(fd, &ack, sizeof ack, 0, LIFE_CONNECT_MS) == 0 && ack == ~life.cookie) {
            keepalive(fd);
            life_fd = fd;
            return;
        }
        close(fd);
    }
    fprintf(stderr,
            "RTS warning: the process of rank %d (host %s) cannot reach the main vm's host (%s) "
            "by TCP: if it dies, that may not be reported\n",
            dist_rank, dist_hosts[dist_rank], dist_hosts[0]);
}

/* Rank 0: a process connects: its hello, checked, and the answer.  The
 * connection's fd, its rank in *rank; -1 if it is not one of the run's. */
static int life_accept(int *rank)
{
    int fd = accept4(life_listen, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return -1;
    life_hello h;
    uint64_t ack = ~life.cookie;
    if (io_within(fd, &h, sizeof h, 0, LIFE_WAIT_MS) == 0 && h.cookie == life.cookie &&
        h.rank > 0 && h.rank < dist_size && !same_host(h.rank, 0) &&
        io_within(fd, &ack, sizeof ack, 1, LIFE_WAIT_MS) == 0) {
        keepalive(fd);
        *rank = h.rank;
        return fd;
    }
    close(fd);
    return -1;
}

/* Rank 0: what rank r's lifeline says: 'T' (it ends by its launcher's
 * SIGTERM), end of file or an error (it died).  1: the lifeline is gone. */
static int life_read(int fd, int r)
{
    char b[16];
    for (;;) {
        ssize_t k = recv(fd, b, sizeof b, MSG_DONTWAIT);
        if (k > 0) {
            if (memchr(b, 'T', (size_t)k))
                dist_failure_terminated(r);
            continue;
        }
        if (k < 0 && (errno == EAGAIN || errno == EINTR))
            return 0;
        peer_dead(r);
        return 1;
    }
}

static void on_term_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    pid_t from = si ? si->si_pid : 0;
    if (write(term_pipe[1], &from, sizeof from) < 0)
        return;
}

enum { W_TERM, W_NOTES, W_PID, W_LISTEN, W_LIFE, W_MYLIFE }; /* what a pollfd is */

static void *watch_main(void *arg)
{
    (void)arg;
    int n = 0;
    size_t cap = 2 * (size_t)dist_size + 4;
    struct pollfd *pf = calloc(cap, sizeof *pf);
    int *rank_of = calloc(cap, sizeof *rank_of);
    int *kind = calloc(cap, sizeof *kind);
    if (!pf || !rank_of || !kind)
        mpd_rts_fatal("out of memory");
    kind[n] = W_TERM;
    pf[n++] = (struct pollfd){term_pipe[0], POLLIN, 0};
    if (term_sock >= 0) {
        kind[n] = W_NOTES;
        pf[n++] = (struct pollfd){term_sock, POLLIN, 0};
    }
    if (life_listen >= 0) {
        kind[n] = W_LISTEN;
        pf[n++] = (struct pollfd){life_listen, POLLIN, 0};
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
        kind[n] = W_PID;
        pf[n++] = (struct pollfd){fd, POLLIN, 0};
    }
    /* after the pidfds: its neighbours' deaths wait in them meanwhile */
    if (dist_rank != 0 && life.port && !same_host(dist_rank, 0)) {
        life_connect();
        if (life_fd >= 0) {
            kind[n] = W_MYLIFE;
            pf[n++] = (struct pollfd){life_fd, POLLIN, 0};
        }
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
        int nn = n;
        for (int i = 1; i < nn; i++) {
            if (pf[i].fd < 0 || !pf[i].revents)
                continue;
            switch (kind[i]) {
            case W_NOTES: { /* notes of this host */
                int v;
                while (recv(pf[i].fd, &v, sizeof v, MSG_DONTWAIT) == (ssize_t)sizeof v)
                    if (v > 0)
                        dist_failure_terminated(v);
                    else if (v < 0 && -v - 1 < dist_size)
                        peer_dead(-v - 1);
                break;
            }
            case W_LISTEN: {
                int r, fd = life_accept(&r);
                if (fd >= 0 && (size_t)n < cap) {
                    rank_of[n] = r;
                    kind[n] = W_LIFE;
                    pf[n++] = (struct pollfd){fd, POLLIN, 0};
                } else if (fd >= 0) {
                    close(fd);
                }
                break;
            }
            case W_LIFE:
                if (!life_read(pf[i].fd, rank_of[i]))
                    break;
                close(pf[i].fd);
                pf[i].fd = -1; /* poll skips it */
                break;
            case W_PID:
                peer_dead(rank_of[i]);
                close(pf[i].fd);
                pf[i].fd = -1;
                break;
            case W_MYLIFE: { /* rank 0's end: it died, or the run ended */
                char b[16];
                ssize_t got = recv(pf[i].fd, b, sizeof b, MSG_DONTWAIT);
                if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
                    peer_dead(0);
                    close(pf[i].fd);
                    pf[i].fd = -1;
                }
                break;
            }
            }
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
