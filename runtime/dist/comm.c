/* comm.c: MPI for the distributed deployment -- start-up, the
 * communication thread, receiving (by that thread or by an idle VP),
 * sending, requests waiting for their replies, output forwarding to the
 * main vm, and the exit sequence.
 *
 * The communication thread calls MPI_Init_thread itself.  Receiving is
 * done one message at a time under recv_mu, by that thread or by a VP
 * with nothing to run shortly after traffic (vp_poll): probe, check
 * (wire.c), hand it to whoever waits for it -- a process waiting for a
 * reply, the listener process (serve.c), or the control logic (term.c,
 * output, exit).  Processes send directly from their VP's thread
 * (MPI_THREAD_MULTIPLE) under one lock, after forwarding what this
 * process wrote so far, so output reaches the main vm before any message
 * that follows it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "dist/dist.h"
#include "lang/io_internal.h"

#define TAG 7007
#define DIST_TAG_BLOCK 7008 /* a block sent apart (dmsg.blen) */
#define DIST_TAG_REST 7009  /* the rest of a message longer than RECV_INLINE */
/* Every message on TAG is at most this long: it is received into the
 * receive posted ahead (below), a buffer of this size.  A longer one goes
 * as its header alone on TAG (its len says the whole length) and the rest
 * on DIST_TAG_REST right after it, under the same send lock. */
#define RECV_INLINE 32768
#define CONTROL_SEND_MS 50 /* dist_send_control's wait for completion */

int dist_rank, dist_size;
char (*dist_hosts)[64];
_Atomic uint64_t dist_nsent, dist_nrecv;

static MPI_Comm comm;
static pthread_t comm_thread;
static pthread_mutex_t start_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t start_cv = PTHREAD_COND_INITIALIZER;
static int started;
static pthread_mutex_t send_mu = PTHREAD_MUTEX_INITIALIZER;

/* ---- who receives --------------------------------------------------------
 * Receiving (probe, receive, handle) is done under recv_mu, by the
 * communication thread or by a VP with nothing else to do (vp_poll): a
 * message that arrives while a VP polls is handled on that VP's thread,
 * and the process it readies runs there at once -- no futex wake of the
 * VP, no switch between threads.  A VP polls only shortly after traffic
 * (a reply or the next request is then likely); the communication thread
 * takes every message otherwise, and naps between looks. */

static pthread_mutex_t recv_mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_int recv_closed; /* MPI is being finalized: nobody receives */
static atomic_uint wake_word;
static atomic_int comm_sleeping;
static _Atomic int64_t last_traffic; /* ns: a basic message sent or received */

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The communication thread must look now (the exit sequence). */
static void comm_wake(void)
{
    if (atomic_load(&comm_sleeping)) {
        atomic_fetch_add(&wake_word, 1);
        syscall(SYS_futex, (unsigned *)&wake_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
}

static void note_traffic(void)
{
    atomic_store_explicit(&last_traffic, now_ns(), memory_order_relaxed);
}

/* ---- interned file names ------------------------------------------------ */

typedef struct istr {
    struct istr *next;
    char s[];
} istr;
static istr *interned;
static pthread_mutex_t intern_mu = PTHREAD_MUTEX_INITIALIZER;

/* The last name this thread interned: an invocation's file is looked up
 * per message, almost always the same one -- no lock, no list walk (the
 * interned strings are never freed or changed). */
static _Thread_local const char *intern_last;

const char *dist_intern(const char *s)
{
    const char *l = intern_last;
    if (l && !strcmp(l, s))
        return l;
    pthread_mutex_lock(&intern_mu);
    for (istr *i = interned; i; i = i->next)
        if (!strcmp(i->s, s)) {
            pthread_mutex_unlock(&intern_mu);
            return intern_last = i->s;
        }
    size_t n = strlen(s) + 1;
    istr *i = malloc(sizeof *i + n);
    if (!i)
        mpd_rts_fatal("out of memory");
    memcpy(i->s, s, n);
    i->next = interned;
    interned = i;
    pthread_mutex_unlock(&intern_mu);
    return intern_last = i->s;
}

/* ---- output of the other vms -------------------------------------------- */

/* Not the main vm: fds 1 and 2 are pipes read here, forwarded to rank 0. */
static int out_rd[3] = {-1, -1, -1};

/* Whether the pipes may hold output a send must forward first.  C stdio's
 * stdout and stderr (MPD's output statements, the runtime's messages,
 * externals' printf) write through out_write_fd, which sets it: a send
 * after no output looks at no pipe (a poll per send was ~25% of a remote
 * call, bench/dist/results/2026-11-27-dist17d.md).  What an external
 * write(2)s on fd 1 or 2 itself is forwarded by the communication
 * thread's next look, not ordered before a later send. */
static atomic_int out_dirty;

static ssize_t out_write_fd(void *cookie, const char *buf, size_t n)
{
    int fd = (int)(intptr_t)cookie;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    atomic_store_explicit(&out_dirty, 1, memory_order_release); /* after the bytes */
    return done || !n ? (ssize_t)done : -1;
}

/* stdout and stderr become streams writing through out_write_fd (line
 * buffered and unbuffered, as before); without them every send looks. */
static void stdio_through_cookie(void)
{
    cookie_io_functions_t io = {.write = out_write_fd};
    fflush(stdout);
    fflush(stderr);
    FILE *o = fopencookie((void *)(intptr_t)1, "w", io);
    FILE *e = fopencookie((void *)(intptr_t)2, "w", io);
    if (!o || !e || setvbuf(o, NULL, _IOLBF, BUFSIZ) || setvbuf(e, NULL, _IONBF, 0)) {
        if (o)
            fclose(o);
        if (e)
            fclose(e);
        atomic_store(&out_dirty, -1); /* always look */
        setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
        return;
    }
    stdout = o;
    stderr = e;
    mpd_io_std_rebind();
}

static void redirect_output(void)
{
    for (int fd = 1; fd <= 2; fd++) {
        int p[2];
        if (pipe(p) != 0 || dup2(p[1], fd) < 0)
            mpd_rts_fatal("cannot forward output to the main virtual machine: %s", strerror(errno));
        close(p[1]);
        fcntl(p[0], F_SETFL, O_NONBLOCK);
        fcntl(p[0], F_SETFD, FD_CLOEXEC);
        out_rd[fd] = p[0];
    }
    /* every output statement goes out at once: its line must reach the
     * main vm before anything this vm sends after it */
    stdio_through_cookie();
    mpd_stdout->autoflush = 1;
}

/* Whether the launcher's fd is a regular file it writes without O_APPEND:
 * one we open anew through /proc has its own offset, so the launcher's
 * shell would write over our output afterwards (`(a.out; echo) > f`). */
static int launcher_fd_offset_bound(const char *pid, int fd)
{
    char path[64], line[128];
    struct stat st;
    snprintf(path, sizeof path, "/proc/%s/fd/%d", pid, fd);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    snprintf(path, sizeof path, "/proc/%s/fdinfo/%d", pid, fd);
    FILE *f = fopen(path, "re");
    if (!f)
        return 1;
    unsigned long flags = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "flags: %lo", &flags) == 1)
            break;
    fclose(f);
    return !(flags & O_APPEND);
}

/* The main vm: write where the launcher's own output goes (MPD_DIST_OUT
 * names a process whose fds 1 and 2 are the user's: mpirun, started by
 * a.out or mpd run), not through mpirun's forwarding, which keeps stdout
 * and stderr apart and may reorder the one against the other.  Best is the
 * launcher's own open file (pidfd_getfd: same offset); where the kernel
 * refuses that (Yama lets a process take no fd from an ancestor), a pipe,
 * terminal or appended file is opened anew through /proc, and a plain
 * file is left to mpirun's forwarding (a new open would not share the
 * launcher's offset). */
static void direct_output(void)
{
    const char *pid = getenv("MPD_DIST_OUT");
    if (!pid || !*pid)
        return;
    int pfd = -1;
#ifdef SYS_pidfd_getfd
    pfd = (int)syscall(SYS_pidfd_open, (pid_t)strtol(pid, NULL, 10), 0);
#endif
    for (int fd = 1; fd <= 2; fd++) {
        int o = -1;
#ifdef SYS_pidfd_getfd
        if (pfd >= 0)
            o = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
#endif
        if (o < 0) {
            if (launcher_fd_offset_bound(pid, fd))
                continue;
            char path[64];
            snprintf(path, sizeof path, "/proc/%s/fd/%d", pid, fd);
            o = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
        }
        if (o < 0)
            continue; /* another host: mpirun forwards it */
        dup2(o, fd);
        close(o);
    }
    if (pfd >= 0)
        close(pfd);
    mpd_io_std_reset();
}

/* The communicator returns errors (a message too long for the receive
 * posted ahead must be refused, not abort the process); a failed send is
 * what MPI's default handler made it: the job's end. */
static void mpi_send_check(int rc)
{
    if (rc == MPI_SUCCESS)
        return;
    char why[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(rc, why, &n);
    fprintf(stderr, "RTS fatal: MPI send failed: %.*s\n", n, why);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void send_locked(int rank, dmsg *m)
{
    if (m->len <= RECV_INLINE) {
        mpi_send_check(MPI_Send(m, (int)m->len, MPI_BYTE, rank, TAG, comm));
    } else {
        mpi_send_check(MPI_Send(m, (int)sizeof(dmsg), MPI_BYTE, rank, TAG, comm));
        mpi_send_check(
            MPI_Send(DMSG_PAYLOAD(m), (int)dmsg_plen(m), MPI_BYTE, rank, DIST_TAG_REST, comm));
    }
    dmsg_free(m);
}

/* Output sent to rank 0 that rank 0 may not have written yet (under
 * send_mu).  MPI keeps the messages of one sender to one receiver in
 * order, not those of different senders: output this vm forwarded, then
 * a message to a third vm that prints in answer, could reach rank 0
 * after the third vm's output.  So before a message to any vm but rank 0,
 * a synchronous empty OUTPUT: it completes once rank 0's receiver (its
 * communication thread or a polling VP) has received it, hence after it
 * received and wrote everything this vm forwarded before (one message at
 * a time, under recv_mu). */
static int out_unacked;

static void output_barrier_locked(int rank)
{
    if (!out_unacked || rank == 0)
        return;
    dmsg *b = dmsg_new(DM_OUTPUT, 0);
    b->aux = 1;
    mpi_send_check(MPI_Ssend(b, (int)b->len, MPI_BYTE, 0, TAG, comm));
    dmsg_free(b);
    out_unacked = 0;
}

/* Forwards what is in the pipes; under send_mu.  force: look even when
 * no stdio output was written since the last look (raw writes). */
static void drain_output_locked(int force)
{
    if (out_rd[1] < 0)
        return;
    if (!force && !atomic_load_explicit(&out_dirty, memory_order_acquire))
        return;
    if (atomic_load_explicit(&out_dirty, memory_order_relaxed) > 0)
        atomic_store_explicit(&out_dirty, 0, memory_order_relaxed); /* before the look */
    /* one system call when both pipes are empty (every reply looks) */
    struct pollfd pf[2] = {{out_rd[1], POLLIN, 0}, {out_rd[2], POLLIN, 0}};
    if (poll(pf, 2, 0) <= 0)
        return;
    for (int fd = 1; fd <= 2; fd++) {
        char buf[16384];
        ssize_t n;
        while ((n = read(out_rd[fd], buf, sizeof buf)) > 0) {
            dmsg *m = dmsg_new(DM_OUTPUT, (size_t)n);
            m->aux = (uint32_t)fd;
            memcpy(DMSG_PAYLOAD(m), buf, (size_t)n);
            send_locked(0, m);
            out_unacked = 1;
        }
    }
}

/* Rank 0: the lines other vms wrote, written whole: a partial line waits
 * for its end, or for the next message from its vm (its causal successor). */
typedef struct partial {
    char *p;
    size_t n, cap;
} partial;
static partial (*partials)[3];

static void out_write(int stream, const char *p, size_t n)
{
    FILE *f = stream == 1 ? stdout : stderr;
    if (stream == 2)
        fflush(stdout); /* what stdout holds comes first (io_emit) */
    fwrite(p, 1, n, f);
    if (stream == 2)
        fflush(stderr);
}

static void out_flush_partial(int src)
{
    for (int s = 1; s <= 2; s++) {
        partial *pa = &partials[src][s];
        if (pa->n) {
            out_write(s, pa->p, pa->n);
            pa->n = 0;
        }
    }
}

static void out_receive(dmsg *m, int src)
{
    partial *pa = &partials[src][m->aux];
    const char *p = DMSG_PAYLOAD(m);
    size_t n = dmsg_plen(m);
    if (n == 0)
        return; /* the empty OUTPUT of output_barrier_locked (UBSan: no
                   memcpy into a partial line never allocated) */
    const char *nl = memrchr(p, '\n', n);
    if (!nl) { /* keep it for its line's end */
        if (pa->n + n > pa->cap) {
            size_t cap = (pa->n + n) * 2;
            char *q = realloc(pa->p, cap);
            if (!q)
                mpd_rts_fatal("out of memory");
            pa->p = q;
            pa->cap = cap;
        }
        memcpy(pa->p + pa->n, p, n);
        pa->n += n;
        return;
    }
    size_t whole = (size_t)(nl - p) + 1;
    if (pa->n) { /* one write: the line never interleaves */
        char *q = malloc(pa->n + whole);
        if (!q)
            mpd_rts_fatal("out of memory");
        memcpy(q, pa->p, pa->n);
        memcpy(q + pa->n, p, whole);
        out_write((int)m->aux, q, pa->n + whole);
        free(q);
        pa->n = 0;
    } else {
        out_write((int)m->aux, p, whole);
    }
    if (whole < n) {
        dmsg rest = *m;
        (void)rest;
        if (n - whole > pa->cap) {
            char *q = realloc(pa->p, n - whole);
            if (!q)
                mpd_rts_fatal("out of memory");
            pa->p = q;
            pa->cap = n - whole;
        }
        memcpy(pa->p, p + whole, n - whole);
        pa->n = n - whole;
    }
}

/* ---- sending --------------------------------------------------------------- */

static int is_basic(int type)
{
    return type >= DM_CALL && type < DM_NBASIC;
}

void dist_send(int rank, dmsg *m)
{
    dist_send_block(rank, m, NULL);
}

void dist_send_block(int rank, dmsg *m, const void *blk)
{
    if (is_basic(m->type))
        atomic_fetch_add(&dist_nsent, 1); /* counted before it can arrive */
    uint32_t blen = blk ? m->blen : 0;
    pthread_mutex_lock(&send_mu);
    drain_output_locked(0);
    output_barrier_locked(rank);
    send_locked(rank, m);
    if (blen) /* right after its header: nothing of ours comes between */
        mpi_send_check(MPI_Send(blk, (int)blen, MPI_BYTE, rank, DIST_TAG_BLOCK, comm));
    pthread_mutex_unlock(&send_mu);
    note_traffic(); /* the answer is looked for by the VP that goes idle */
}

void dist_send_pieces(int rank, dmsg *m, const void *const *src, const uint32_t *len, int k)
{
    atomic_fetch_add(&dist_nsent, 1); /* counted before it can arrive */
    pthread_mutex_lock(&send_mu);
    drain_output_locked(0);
    output_barrier_locked(rank);
    send_locked(rank, m);
    /* right after their header, in order: nothing of ours comes between */
    for (int i = 0; i < k; i++)
        mpi_send_check(MPI_Send(src[i], (int)len[i], MPI_BYTE, rank, DIST_TAG_BLOCK, comm));
    pthread_mutex_unlock(&send_mu);
    note_traffic();
}

/* The communication thread's own control messages: never waits for the
 * lock (a process may hold it in a send that needs this thread to receive). */
void dist_send_control(int rank, dmsg *m)
{
    MPI_Request r;
    MPI_Isend(m, (int)m->len, MPI_BYTE, rank, TAG, comm, &r);
    int done = 0;
    /* bounded: over TCP a send to a process that died never completes,
     * and this thread must go on receiving (failure.c's notes).  A small
     * message to a live one completes at once; one not done by then is
     * left to MPI (it still goes out), its buffer with it */
    int64_t until = now_ns() + (int64_t)CONTROL_SEND_MS * 1000000;
    while (!done && now_ns() < until)
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    if (!done) {
        MPI_Request_free(&r);
        return; /* m stays MPI's */
    }
    free(m);
}

/* ---- requests ---------------------------------------------------------------- */

typedef struct rpc {
    uint64_t tag;
    int rank;      /* asked of */
    const char *F; /* the statement waiting (F NULL: none) */
    int L;
    mpd_ext ev;
    dmsg *reply; /* NULL: the results went into `into` */
    void *into;  /* where a successful reply's payload of into_n bytes goes */
    uint32_t into_n;
    struct rpc *next;
} rpc;
static rpc *rpcs;
static atomic_int rpcs_waiting;
static uint64_t next_tag = 1;
static pthread_mutex_t rpc_mu = PTHREAD_MUTEX_INITIALIZER;

dmsg *dist_request(int rank, dmsg *m, const char *F, int L)
{
    return dist_request_block(rank, m, NULL, F, L);
}

dmsg *dist_request_block(int rank, dmsg *m, const void *blk, const char *F, int L)
{
    return dist_request_into(rank, m, blk, NULL, 0, F, L);
}

dmsg *dist_request_into(int rank, dmsg *m, const void *blk, void *into, uint32_t into_n,
                        const char *F, int L)
{
    rpc w;
    mpd_ext_init(&w.ev);
    w.reply = NULL;
    w.into = into;
    w.into_n = into_n;
    w.rank = rank;
    w.F = F;
    w.L = L;
    pthread_mutex_lock(&rpc_mu);
    w.tag = next_tag++;
    w.next = rpcs;
    rpcs = &w;
    atomic_fetch_add(&rpcs_waiting, 1);
    pthread_mutex_unlock(&rpc_mu);
    m->tag = w.tag;
    if (F && mpd_self())
        mpd_set_loc(F, L);
    dist_send_block(rank, m, blk);
    /* blocked, as a call is, until the reply.  Exactly one wait for the
     * one wake: w lives on this stack, and the waker must be done with it
     * (its last touch is the ext's lock) before we return */
    mpd_ext_wait(&w.ev, 1);
    return __atomic_load_n(&w.reply, __ATOMIC_ACQUIRE);
}

/* The statement of the oldest request of this process still waiting for
 * rank r (NULL: none): failure.c names it when r dies. */
const char *dist_request_waiting_on(int r, int *L)
{
    const char *F = NULL;
    pthread_mutex_lock(&rpc_mu);
    for (rpc *w = rpcs; w; w = w->next) /* newest first */
        if (w->rank == r && w->F) {
            F = w->F;
            *L = w->L;
        }
    pthread_mutex_unlock(&rpc_mu);
    return F;
}

static void reply_arrived(dmsg *m, int src)
{
    pthread_mutex_lock(&rpc_mu);
    rpc **pp = &rpcs, *w;
    while ((w = *pp) && w->tag != m->tag)
        pp = &w->next;
    if (w) {
        *pp = w->next;
        atomic_fetch_sub(&rpcs_waiting, 1);
    }
    pthread_mutex_unlock(&rpc_mu);
    if (!w) {
        dmsg_reject(src, "a reply to no request");
        dist_msg_release(m);
        return;
    }
    if (w->into && m->status == 0 && dmsg_plen(m) == w->into_n) {
        /* a call's results, straight into the caller's block: no copy of
         * the reply kept, no second copy by the caller */
        memcpy(w->into, DMSG_PAYLOAD(m), w->into_n);
        dist_msg_release(m);
        m = NULL;
    } else {
        m = dist_msg_keep(m);
    }
    __atomic_store_n(&w->reply, m, __ATOMIC_RELEASE);
    mpd_ext_wake(&w->ev);
}

/* ---- the exit sequence -------------------------------------------------------- */

static atomic_int exit_req; /* status + 1 */
static atomic_int exit_report;
static atomic_int exit_got_exit; /* not rank 0: EXIT from rank 0 arrived */
/* done_from and exit_got_exit are set by whoever receives (a VP too) */
static int *done_from;       /* rank 0: DONE arrived from rank i */
static atomic_int *dead;     /* rank 0: rank i died (failure.c): sent nothing */
static atomic_int exit_dead; /* rank 0: the rank whose death ends the run + 1 */
static atomic_uint exit_dead_vm;

int dist_exit_started(void)
{
    return atomic_load(&exit_req) || exit_got_exit;
}

void dist_exit_without(int r, uint32_t vm, int status)
{
    atomic_store(&dead[r], 1);
    atomic_store(&exit_dead_vm, vm);
    int none = 0;
    atomic_compare_exchange_strong(&exit_dead, &none, r + 1);
    __atomic_store_n(&done_from[r], 1, __ATOMIC_RELEASE);
    int zero = 0;
    atomic_store(&exit_report, 0);
    atomic_compare_exchange_strong(&exit_req, &zero, status + 1);
    comm_wake();
}

_Noreturn void dist_exit_all(int status, int report)
{
    int zero = 0;
    atomic_store(&exit_report, report);
    atomic_compare_exchange_strong(&exit_req, &zero, status + 1);
    comm_wake();
    if (started && pthread_equal(pthread_self(), comm_thread))
        for (;;)
            pause(); /* not reached: the thread's loop exits */
    for (;;)
        pause(); /* the communication thread ends the process */
}

static void exit_hook(int status)
{
    if (!started)
        return;
    /* not the main vm: the main vm must hear of it (stop, an RTS abort) */
    if (dist_rank != 0 && !pthread_equal(pthread_self(), comm_thread)) {
        fflush(stdout);
        fflush(stderr);
    }
    dist_exit_all(status, dist_rank == 0 && atomic_load(&dist_ended));
}

static void handle(dmsg *m, int src, mpd_invb *blk);

/* At most this many messages per look: a VP that receives a stream goes
 * back to run what they readied. */
#define RECV_BATCH 64

/* ---- the receive posted ahead ---------------------------------------------
 * One receive (any source, TAG) is always posted, into rbuf, and tested
 * by whoever receives (under recv_mu): a message that arrives is matched
 * to it at once and lands in a buffer used again for the next one -- no
 * probe, no second match, no malloc per message (perf: MPI's probe and
 * receive with their THREAD_MULTIPLE locks were ~70% of a remote call).
 * What is handled is used in place; what must outlive the handling (a
 * reply handed to its waiter, a request queued for the listener) is
 * copied out by dist_msg_keep.  The next receive is posted only after the
 * handling: a sender's MPI_Ssend (output_barrier_locked) still completes
 * only once everything it sent before was handled. */
static union {
    dmsg m;
    char b[RECV_INLINE];
} rbuf_store;
static dmsg *const rbuf = &rbuf_store.m;
static MPI_Request rreq = MPI_REQUEST_NULL;

dmsg *dist_msg_keep(dmsg *m)
{
    if (m != rbuf)
        return m;
    dmsg *c = malloc(m->len);
    if (!c)
        mpd_rts_fatal("out of memory for a message");
    memcpy(c, m, m->len);
    return c;
}

void dist_msg_release(dmsg *m)
{
    if (m != rbuf)
        free(m);
}

/* n bytes from src on tag, sent right after a message already received
 * (under the sender's lock): received straight into buf.  Bounded: what a
 * header promised and never came is dropped, not waited for forever.
 * NULL, or what is wrong. */
static const char *recv_bounded(void *buf, uint32_t n, int src, int tag)
{
    MPI_Request r;
    MPI_Status st;
    int flag = 0;
    if (MPI_Irecv(buf, (int)n, MPI_BYTE, src, tag, comm, &r) != MPI_SUCCESS)
        return "a message part that could not be received";
    int64_t until = now_ns() + (int64_t)10 * 1000000000;
    int rc;
    unsigned looks = 0;
    /* the clock every 64th look: a 64 KiB block takes microseconds, a
     * clock read per look was 9% of the receiving VP's time (perf) */
    do
        rc = MPI_Test(&r, &flag, &st);
    while (rc == MPI_SUCCESS && !flag && ((++looks & 63) || now_ns() < until));
    if (rc != MPI_SUCCESS)
        return "a message part longer than its header says";
    if (!flag) {
        MPI_Cancel(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        return "a message whose second part never came";
    }
    int count;
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (count < 0 || (uint32_t)count != n)
        return "a message part shorter than its header says";
    return NULL;
}

/* The block of invocation m, sent apart right after it by src: received
 * straight into a new invocation block, its size known from the header
 * (no probe).  NULL, or what is wrong. */
static const char *recv_block(const dmsg *m, int src, mpd_invb **out)
{
    uint32_t size = (uint32_t)sizeof(mpd_invb) + m->blen;
    mpd_invb *h = inv_alloc(size);
    memset(h, 0, sizeof *h);
    h->size = size;
    const char *why = recv_bounded(h + 1, m->blen, src, DIST_TAG_BLOCK);
    if (why) {
        inv_free(h);
        return why;
    }
    *out = h;
    return NULL;
}

/* The block of invocation m sent in pieces (dist_send_pieces): the bytes
 * inline in m, and each piece received straight into its place. */
static const char *recv_pieces(const dmsg *m, int src, mpd_invb **out)
{
    uint32_t size = (uint32_t)sizeof(mpd_invb) + m->blen, k = (uint32_t)m->status;
    mpd_invb *h = inv_alloc(size);
    memset(h, 0, sizeof *h);
    h->size = size;
    char *base = (char *)(h + 1);
    const uint32_t *t = (const uint32_t *)(DMSG_PAYLOAD(m) + m->aux);
    const char *in = DMSG_PAYLOAD(m) + m->aux + 12 * k;
    uint32_t at = 0;
    const char *why = NULL;
    for (uint32_t i = 0; i <= k; i++) { /* checked (dist_pieces_check) */
        uint32_t off = i < k ? t[3 * i] : m->blen;
        memcpy(base + at, in, off - at);
        in += off - at;
        if (i == k)
            break;
        uint32_t len = t[3 * i + 1], gap = t[3 * i + 2];
        if (!why) /* after a piece that failed, the rest are not waited for */
            why = recv_bounded(base + off, len, src, DIST_TAG_BLOCK);
        /* its gap (a string's room past its length) is left as the
         * allocator gave it, as the sender's own bytes there were: nobody
         * reads past a string's length, and zeroing it cost 12x (a
         * 3-character string[65536]: 27,000 against 333,000 sends/s, the
         * zeroed pages faulted in) */
        at = off + len + gap;
    }
    if (why) {
        inv_free(h);
        return why;
    }
    *out = h;
    return NULL;
}

/* The message that completed the posted receive (count bytes in rbuf):
 * in rbuf, or -- a header promising more (send_locked) -- whole in a new
 * buffer.  NULL with *why when it cannot be used. */
static dmsg *recv_whole(int count, int src, const char **why)
{
    *why = NULL;
    if (count != (int)sizeof(dmsg) || rbuf->magic != DMSG_MAGIC || rbuf->len <= RECV_INLINE)
        return rbuf; /* dmsg_check judges it */
    if (rbuf->len > sizeof(dmsg) + DMSG_MAX) {
        *why = "a message too large";
        return NULL;
    }
    dmsg *m = malloc(rbuf->len);
    if (!m)
        mpd_rts_fatal("out of memory for a message");
    memcpy(m, rbuf, sizeof(dmsg));
    *why = recv_bounded(DMSG_PAYLOAD(m), dmsg_plen(m), src, DIST_TAG_REST);
    if (*why) {
        free(m);
        return NULL;
    }
    return m;
}

/* Receives and handles what has arrived; returns how many.  Under recv_mu. */
static int poll_locked(void)
{
    int n = 0;
    for (;;) {
        if (rreq == MPI_REQUEST_NULL &&
            MPI_Irecv(rbuf, RECV_INLINE, MPI_BYTE, MPI_ANY_SOURCE, TAG, comm, &rreq) != MPI_SUCCESS)
            mpd_rts_fatal("cannot post a receive");
        int flag = 0;
        MPI_Status st;
        int rc = MPI_Test(&rreq, &flag, &st);
        if (rc != MPI_SUCCESS) {     /* longer than any message we send */
            rreq = MPI_REQUEST_NULL; /* a failed receive's request is freed */
            dmsg_reject(st.MPI_SOURCE, "a message too long");
            if (++n == RECV_BATCH)
                break;
            continue;
        }
        if (!flag)
            break;
        int count, src = st.MPI_SOURCE;
        MPI_Get_count(&st, MPI_BYTE, &count);
        const char *why;
        dmsg *m = recv_whole(count, src, &why);
        if (m) {
            why = dmsg_check(m, m == rbuf ? (size_t)count : m->len);
            mpd_invb *blk = NULL;
            if (!why && m->blen)
                why = m->status ? recv_pieces(m, src, &blk) : recv_block(m, src, &blk);
            if (why)
                dist_msg_release(m);
            else
                handle(m, src, blk);
        }
        if (why)
            dmsg_reject(src, why);
        if (++n == RECV_BATCH)
            break;
    }
    return n;
}

/* The communication thread's look. */
static int poll_once(void)
{
    pthread_mutex_lock(&recv_mu);
    int n = atomic_load(&recv_closed) ? 0 : poll_locked();
    pthread_mutex_unlock(&recv_mu);
    return n;
}

/* ---- a VP with nothing to do receives (the core's poll hook) -------------- */

/* How long after the last basic message a VP keeps polling before it
 * sleeps (MPD_DIST_POLL_US overrides; 0: never, the communication thread
 * receives everything).  A remote call's reply, or a client's next
 * request, comes within this.  Not shorter on a loaded host: measured
 * (bench/dist/results/2026-11-27-dist17.md), a VP that sleeps there waits
 * for a CPU behind every other runnable thread -- milliseconds -- while one
 * that polls keeps its fair share and sees the message at once; the
 * short window a load test (procs_running > CPUs) chose made calls
 * 20-100x slower than polling on.  What must not happen is two threads of
 * one process polling (this communication thread spinning too: docs,
 * "Tried and dropped"): it does not spin. */
#define VP_POLL_NS 200000

static int64_t poll_ns = VP_POLL_NS;
/* When a VP last polled: the communication thread keeps off recv_mu while
 * VPs poll -- preempted inside MPI_Iprobe (Open MPI yields there when the
 * host is oversubscribed) it would hold the lock, and the messages, for
 * a whole time slice. */
static _Atomic int64_t last_vp_poll;
static atomic_int vp_looking; /* a VP is in vp_poll */
#define VP_POLLING_NS 50000

/* The core's poll hook (mpd_rt_set_poll_hook): a VP with nothing to run
 * receives, while traffic is recent.  > 0: it handled messages (their
 * processes are ready); 0: ask again; < 0: sleep. */
static _Thread_local int64_t vp_now;
static _Thread_local unsigned vp_looks;

static int vp_poll(void)
{
    /* the clock every 8th look: reading it each time was 10-15% of a
     * polling VP's time (perf); the window is 200 us, a look well under 1 */
    if ((vp_looks++ & 7) == 0)
        vp_now = now_ns();
    int64_t now = vp_now;
    if (now - atomic_load_explicit(&last_traffic, memory_order_relaxed) > poll_ns ||
        atomic_load_explicit(&recv_closed, memory_order_relaxed) ||
        atomic_load_explicit(&exit_req, memory_order_relaxed))
        return -1;
    /* one VP polls: another that finds it looking sleeps (with several
     * VPs, two spinners per process take the CPUs the peers need); the
     * communication thread holding the lock (its term.c look) is waited
     * out */
    if (atomic_exchange_explicit(&vp_looking, 1, memory_order_acquire))
        return -1;
    atomic_store_explicit(&last_vp_poll, now, memory_order_relaxed);
    int n = 0;
    if (pthread_mutex_trylock(&recv_mu) == 0) {
        if (!atomic_load(&recv_closed))
            n = poll_locked();
        pthread_mutex_unlock(&recv_mu);
    }
    atomic_store_explicit(&vp_looking, 0, memory_order_release);
    return n > 0;
}

static void wait_a_little(int64_t ns)
{
    struct timespec ts = {0, ns};
    unsigned v = atomic_load(&wake_word);
    atomic_store(&comm_sleeping, 1);
    syscall(SYS_futex, (unsigned *)&wake_word, FUTEX_WAIT_PRIVATE, v, &ts, NULL, 0);
    atomic_store(&comm_sleeping, 0);
}

static _Noreturn void finish_process(int status)
{
    /* nobody receives any more: no VP is inside MPI (vp_poll) when MPI is
     * finalized, nor handling output that is flushed here */
    atomic_store(&recv_closed, 1);
    pthread_mutex_lock(&recv_mu);
    if (dist_rank == 0)
        for (int i = 0; i < dist_size; i++)
            out_flush_partial(i);
    fflush(stdout);
    fflush(stderr);
    /* The program's processes still run on the VPs (a stop ends them only
     * with the process) and may send: a send after MPI_Finalize is fatal
     * to MPI ("invalid communicator", exit status 5, and mpirun ends the
     * job as failed).  So the send lock is taken for good first.  A VP
     * stuck in MPI_Send with it (a large message to a process already
     * gone) must not hang the exit: after a bound the process ends
     * without finalizing. */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 2;
    if (pthread_mutex_timedlock(&send_mu, &until) != 0)
        _exit(status);
    if (rreq != MPI_REQUEST_NULL) {
        MPI_Cancel(&rreq);
        MPI_Wait(&rreq, MPI_STATUS_IGNORE);
    }
    /* MPI_Finalize waits for every process of the job (a fence), the
     * dead too: with one dead, a process ends without it */
    if (!atomic_load(&exit_dead)) {
        MPI_Comm_free(&comm);
        MPI_Finalize();
    }
    _exit(status);
}

/* Rank 0: EXIT to rank r, then its output until its DONE (bounded). */
static void exit_one(int r, int report)
{
    if (atomic_load(&dead[r]))
        return;
    dmsg *m = dmsg_new(DM_EXIT, 0);
    m->aux = (uint32_t)report;
    m->status = atomic_load(&exit_dead); /* its callers' requests failed */
    m->tag = atomic_load(&exit_dead_vm);
    dist_send_control(r, m);
    int64_t until = now_ns() + (int64_t)10 * 1000000000;
    while (!__atomic_load_n(&done_from[r], __ATOMIC_ACQUIRE) && now_ns() < until)
        if (!poll_once())
            wait_a_little(200000);
}

static _Noreturn void exit_sequence(int status)
{
    if (dist_rank != 0) {
        pthread_mutex_lock(&send_mu);
        drain_output_locked(1);
        if (!exit_got_exit) { /* this vm ends the program */
            dmsg *m = dmsg_new(DM_ABORT, 0);
            m->status = status;
            send_locked(0, m);
        }
        pthread_mutex_unlock(&send_mu);
        int64_t until = now_ns() + (int64_t)15 * 1000000000;
        while (!exit_got_exit && now_ns() < until)
            if (!poll_once())
                wait_a_little(200000);
        pthread_mutex_lock(&send_mu);
        drain_output_locked(1);
        send_locked(0, dmsg_new(DM_DONE, 0));
        pthread_mutex_unlock(&send_mu);
        finish_process(0);
    }
    mpd_io_flush_all();
    dist_failure_write_report(); /* a vm's process died */
    int report = atomic_load(&exit_report);
    int live[4096];
    int n = dist_vms_live(live, 4096); /* newest first */
    for (int i = 0; i < n; i++)
        if (live[i] != 0)
            exit_one(live[i], report);
    for (int r = 1; r < dist_size; r++)
        if (!__atomic_load_n(&done_from[r], __ATOMIC_ACQUIRE))
            exit_one(r, 0);
    finish_process(status);
}

static void bcast0(void *buf, int n)
{
    MPI_Bcast(buf, n, MPI_BYTE, 0, comm);
}

static void *comm_main(void *arg)
{
    (void)arg;
    int prov = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &prov) != MPI_SUCCESS)
        mpd_rts_fatal("cannot start MPI");
    if (prov < MPI_THREAD_MULTIPLE)
        mpd_rts_fatal(
            "this MPI does not support MPI_THREAD_MULTIPLE (needed by the distributed deployment)");
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &dist_rank);
    MPI_Comm_size(comm, &dist_size);
    dist_hosts = calloc((size_t)dist_size, sizeof *dist_hosts);
    partials = calloc((size_t)dist_size, sizeof *partials);
    done_from = calloc((size_t)dist_size, sizeof *done_from);
    dead = calloc((size_t)dist_size, sizeof *dead);
    if (!dist_hosts || !partials || !done_from || !dead)
        mpd_rts_fatal("out of memory");
    /* the host this process is on: MPD_HOST if set (a cluster whose MPI
     * names hosts otherwise than gethostname, or hosts simulated on one
     * machine by a launcher that sets it: tests/dist-hosts) */
    char me[64] = {0};
    const char *mh = getenv("MPD_HOST");
    if (mh && *mh)
        strncpy(me, mh, sizeof me - 1);
    else
        gethostname(me, sizeof me - 1);
    MPI_Allgather(me, 64, MPI_CHAR, dist_hosts, 64, MPI_CHAR, comm);
    /* where each process really is, for failure.c's look at the dead */
    dist_pids = calloc((size_t)dist_size, sizeof *dist_pids);
    dist_real_hosts = calloc((size_t)dist_size, sizeof *dist_real_hosts);
    if (!dist_pids || !dist_real_hosts)
        mpd_rts_fatal("out of memory");
    int pid = (int)getpid();
    char real[64] = {0};
    gethostname(real, sizeof real - 1);
    MPI_Allgather(&pid, 1, MPI_INT, dist_pids, 1, MPI_INT, comm);
    MPI_Allgather(real, 64, MPI_CHAR, dist_real_hosts, 64, MPI_CHAR, comm);
    dist_failure_lifeline(bcast0);
    /* a receive's errors are ours to handle (poll_locked) */
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (dist_rank != 0)
        redirect_output();
    else
        direct_output();
    pthread_mutex_lock(&start_mu);
    started = 1;
    pthread_cond_broadcast(&start_cv);
    pthread_mutex_unlock(&start_mu);

    int64_t nap = 20000;
    for (;;) {
        int e = atomic_load(&exit_req);
        if (e)
            exit_sequence(e - 1);
        if (out_rd[1] >= 0 && pthread_mutex_trylock(&send_mu) == 0) {
            drain_output_locked(1);
            pthread_mutex_unlock(&send_mu);
        }
        /* term.c's state is the receiver's.  Only tried: blocking on the
         * lock a polling VP holds most of the time made that VP's every
         * unlock a futex wake (perf: ~10% of rank 0's time in calls); due
         * work waits for the next look (a wave only matters once traffic
         * has stopped, and then nobody holds the lock) */
        if (pthread_mutex_trylock(&recv_mu) == 0) {
            dist_term_poll();
            pthread_mutex_unlock(&recv_mu);
        }
        if (now_ns() - atomic_load_explicit(&last_vp_poll, memory_order_relaxed) < VP_POLLING_NS) {
            wait_a_little(VP_POLLING_NS); /* a VP receives */
            continue;
        }
        if (poll_once()) {
            nap = 20000;
            continue;
        }
        /* No spinning here: a VP that goes idle polls while traffic is
         * recent (vp_poll).  This thread takes what arrives while every VP
         * is busy, napping longer and longer (an idle vm costs no CPU),
         * but not long while traffic is recent or a reply is awaited. */
        wait_a_little(nap);
        if (nap < 2000000)
            nap *= 2;
        if (nap > 100000 && (now_ns() - atomic_load(&last_traffic) < 20000000 ||
                             atomic_load_explicit(&rpcs_waiting, memory_order_relaxed)))
            nap = 100000;
    }
    return NULL;
}

void dist_comm_start(void)
{
    mpd_rts_exit_hook = exit_hook;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&comm_thread, &a, comm_main, NULL) != 0)
        mpd_rts_fatal("cannot start the communication thread");
    pthread_attr_destroy(&a);
    pthread_mutex_lock(&start_mu);
    while (!started)
        pthread_cond_wait(&start_cv, &start_mu);
    pthread_mutex_unlock(&start_mu);
    const char *pu = getenv("MPD_DIST_POLL_US");
    if (pu && *pu)
        poll_ns = (int64_t)atol(pu) * 1000;
    mpd_rt_set_poll_hook(vp_poll); /* idle VPs receive too */
}

/* ---- what arrives ---------------------------------------------------------- */

static void handle(dmsg *m, int src, mpd_invb *blk)
{
    if (is_basic(m->type)) {
        atomic_fetch_add(&dist_nrecv, 1);
        note_traffic();
    }
    if (dist_rank == 0 && m->type != DM_OUTPUT)
        out_flush_partial(src); /* its output came before this */
    switch (m->type) {
    case DM_REPLY:
        reply_arrived(m, src);
        return;
    case DM_OUTPUT:
        if (dist_rank == 0)
            out_receive(m, src);
        else
            dmsg_reject(src, "output sent to a vm other than the main one");
        dist_msg_release(m);
        return;
    case DM_PROBE:
        dist_term_on_probe(m, src);
        dist_msg_release(m);
        return;
    case DM_PROBE_ACK:
        dist_term_on_ack(m, src);
        dist_msg_release(m);
        return;
    case DM_IDLE:
        dist_term_on_idle(src);
        dist_msg_release(m);
        return;
    case DM_EXIT:
        if (dist_rank != 0 && src == 0) {
            /* a vm died: requests waiting for it failed, at their
             * statements (said before DONE, with this vm's output) */
            if (m->status > 0 && m->status <= dist_size && !exit_got_exit) {
                dist_failure_requests_failed(m->status - 1, (uint32_t)m->tag);
                atomic_store(&exit_dead, m->status);
            }
            exit_got_exit = 1;
            if (m->aux && !atomic_load(&exit_req)) {
                /* program end: this vm reports its blocked processes, then
                 * its main returns and the exit hook finishes */
                atomic_store(&dist_finish, 1);
                mpd_rt_wake_idle();
            } else if (!atomic_load(&exit_req)) {
                atomic_store(&exit_req, 1);
            }
        }
        dist_msg_release(m);
        return;
    case DM_DONE:
        if (dist_rank == 0)
            __atomic_store_n(&done_from[src], 1, __ATOMIC_RELEASE);
        dist_msg_release(m);
        return;
    case DM_DEAD: /* a process of src's host died (failure.c) */
        if (dist_rank == 0 && m->aux < (uint32_t)dist_size) {
            if (!m->status)
                dist_failure_dead((int)m->aux);
            else if (m->aux == (uint32_t)src) /* it ends by mpirun's SIGTERM */
                dist_failure_terminated((int)m->aux);
        }
        dist_msg_release(m);
        return;
    case DM_ABORT:
        if (dist_rank == 0 && !atomic_load(&exit_req)) {
            __atomic_store_n(&done_from[src], 0, __ATOMIC_RELEASE);
            atomic_store(&exit_report, 0);
            atomic_store(&exit_req, m->status + 1);
        }
        dist_msg_release(m);
        return;
    default:
        /* received by a VP between processes: invocations go straight to
         * their ops; the rest (and all the communication thread gets) to
         * the listener */
        if (mpd__vp() && !mpd_self() && dist_serve_direct(m, src, blk))
            return;
        dist_deliver_inbound(m, src, blk);
        return;
    }
}
