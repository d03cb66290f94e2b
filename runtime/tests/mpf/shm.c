/* shm.c: MPF across OS processes through a named segment -- attach, ping-pong, broadcast, and participants killed mid-flight. */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "mpf/mpf_internal.h" /* white-box: to die while holding an internal lock */
#include "mpf_check.h"

static char seg[64];

typedef struct msg {
    int from, seq;
    unsigned check;
    char pad[52];
} msg;

static unsigned sum(const msg *x)
{
    return (unsigned)x->from * 2654435761u ^ (unsigned)x->seq * 40503u;
}

static mpf_t *attach(void)
{
    mpf_t *c;
    int rc = mpf_attach(&c, seg);
    if (rc) {
        fprintf(stderr, "attach: %s\n", mpf_strerror(rc));
        _exit(3);
    }
    return c;
}

/* Run fn(arg) in a child that attaches by name; returns the child's pid. */
static pid_t spawn(int (*fn)(mpf_t *, int), int arg)
{
    pid_t p = fork();
    if (p == 0) {
        mpf_t *c = attach();
        int rc = fn(c, arg);
        mpf_finish(c);
        _exit(rc ? 1 : (mpf_check_failures ? 1 : 0));
    }
    return p;
}

static int exit_ok(pid_t p)
{
    int st;
    if (waitpid(p, &st, 0) != p)
        return 0;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* ---- ping-pong ---- */

static int ponger(mpf_t *c, int rounds)
{
    int in = MUST(mpf_open_receive(c, 1, "ping", MPF_FCFS));
    int out = MUST(mpf_open_send(c, 1, "pong"));
    for (int i = 0; i < rounds; i++) {
        int v;
        CHECK_RC(mpf_message_receive(c, 1, in, &v, sizeof v), sizeof v);
        v++;
        CHECK_RC(mpf_message_send(c, 1, out, &v, sizeof v), 0);
    }
    MUST(mpf_close_receive(c, 1, in));
    MUST(mpf_close_send(c, 1, out));
    return 0;
}

static void test_pingpong(mpf_t *m)
{
    enum { ROUNDS = 20000 };
    int out = MUST(mpf_open_send(m, 0, "ping"));
    int in = MUST(mpf_open_receive(m, 0, "pong", MPF_FCFS));
    pid_t p = spawn(ponger, ROUNDS);
    int ok = 1;
    for (int i = 0; i < ROUNDS; i++) {
        int v = i * 2, w = -1;
        CHECK_RC(mpf_message_send(m, 0, out, &v, sizeof v), 0);
        CHECK_RC(mpf_message_receive(m, 0, in, &w, sizeof w), sizeof w);
        ok &= w == v + 1;
    }
    CHECK(ok);
    CHECK(exit_ok(p));
    MUST(mpf_close_send(m, 0, out));
    MUST(mpf_close_receive(m, 0, in));
}

/* ---- broadcast to processes; each checks every message, in order ---- */

enum { BC_MSGS = 5000 };

static int bc_receiver(mpf_t *c, int pid)
{
    int id = MUST(mpf_open_receive(c, pid, "bc", MPF_BROADCAST));
    int ready = MUST(mpf_open_send(c, pid, "bc-ready"));
    MUST(mpf_message_send(c, pid, ready, "r", 1));
    for (int i = 0; i < BC_MSGS; i++) {
        msg x;
        CHECK_RC(mpf_message_receive(c, pid, id, &x, sizeof x), sizeof x);
        CHECK(x.seq == i && x.check == sum(&x));
    }
    MUST(mpf_close_send(c, pid, ready));
    MUST(mpf_close_receive(c, pid, id));
    return 0;
}

static void test_broadcast(mpf_t *m)
{
    enum { N = 3 };
    int s = MUST(mpf_open_send(m, 0, "bc"));
    int ready = MUST(mpf_open_receive(m, 0, "bc-ready", MPF_FCFS));
    pid_t kids[N];
    for (int i = 0; i < N; i++)
        kids[i] = spawn(bc_receiver, 1 + i);
    char r;
    for (int i = 0; i < N; i++)
        CHECK_RC(mpf_message_receive(m, 0, ready, &r, 1), 1);
    for (int i = 0; i < BC_MSGS; i++) {
        msg x = {.from = 0, .seq = i};
        x.check = sum(&x);
        int rc;
        while ((rc = mpf_message_send(m, 0, s, &x, sizeof x)) == -MPF_ENOSPACE)
            usleep(100);
        CHECK_RC(rc, 0);
    }
    for (int i = 0; i < N; i++)
        CHECK(exit_ok(kids[i]));
    MUST(mpf_close_send(m, 0, s));
    MUST(mpf_close_receive(m, 0, ready));
}

/* ---- death while holding a lock ---- */

/* The child connects, then dies inside the LNVC's critical section in the middle
 * of a send, at one of three points: the sentinel filled and linked to a new one
 * but not published (seq not written); published but the tail not moved; the
 * tail moved but next_seq not advanced.  The message counts as sent once published. */
static int crash_stage;
static int die_in_send(mpf_t *c, int pid)
{
    int s = MUST(mpf_open_send(c, pid, "crash"));
    int r = MUST(mpf_open_receive(c, pid, "crash", MPF_BROADCAST));
    (void)r;
    MUST(mpf_message_send(c, pid, s, "before", 6));
    mpf_lnvc *l = mpf_lnvc_at(c, (uint32_t)s % c->r->max_lnvcs);
    mpf_lock_acquire(c, &l->slock);
    uint32_t fresh = mpf_msg_alloc(c), seq = atomic_load(&l->next_seq);
    MPF_MSG(c, fresh)->seq = seq - 1;
    mpf_msg *t = MPF_MSG(c, l->tail);
    t->len = 4;
    memcpy(t->inl, "half", 4);
    t->refs = 99; /* garbage the repair must recompute */
    atomic_store(&t->next, fresh);
    if (crash_stage >= 1)
        atomic_store(&t->seq, seq);
    if (crash_stage >= 2)
        l->tail = fresh;
    raise(SIGKILL);
    return 1;
}

/* The child joins the FCFS group, then dies inside the receive lock in the
 * middle of a receive: the group's head moved past "one" but its expected seq
 * not.  "one" counts as taken by the dead receiver; the rest flows on. */
static int die_in_receive(mpf_t *c, int pid)
{
    int r = MUST(mpf_open_receive(c, pid, "rcrash", MPF_FCFS));
    mpf_lnvc *l = mpf_lnvc_at(c, (uint32_t)r % c->r->max_lnvcs);
    mpf_lock_acquire(c, &l->rlock);
    l->fcfs_head = atomic_load(&MPF_MSG(c, l->fcfs_head)->next);
    raise(SIGKILL);
    return 1;
}

static void test_death_in_receive(mpf_t *m)
{
    int s = MUST(mpf_open_send(m, 0, "rcrash"));
    int r = MUST(mpf_open_receive(m, 0, "rcrash", MPF_FCFS));
    MUST(mpf_message_send(m, 0, s, "one", 3));
    MUST(mpf_message_send(m, 0, s, "two", 3));
    mpf_stats st0, st1;
    MUST(mpf_stats_get(m, &st0));
    int st;
    pid_t p = spawn(die_in_receive, 5);
    waitpid(p, &st, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    char buf[8];
    CHECK_RC(mpf_message_receive(m, 0, r, buf, sizeof buf), 3);
    CHECK(memcmp(buf, "two", 3) == 0);
    CHECK_RC(mpf_check_receive(m, 0, r, NULL), 0);
    CHECK_RC(mpf_message_send(m, 0, s, "three", 5), 0); /* the sender was never blocked */
    CHECK_RC(mpf_message_receive(m, 0, r, buf, sizeof buf), 5);
    MUST(mpf_stats_get(m, &st1));
    CHECK(st1.recoveries > st0.recoveries);
    CHECK(mpf_reap(m) >= 0);
    MUST(mpf_stats_get(m, &st1));
    CHECK(st1.messages_queued == 0);
    MUST(mpf_close_send(m, 0, s));
    MUST(mpf_close_receive(m, 0, r));
}

static int die_in_table(mpf_t *c, int pid)
{
    MUST(mpf_open_send(c, pid, "table-crash"));
    mpf_lock_acquire(c, &c->r->table_lock);
    raise(SIGKILL);
    return 1;
}

static void test_death_in_lock(mpf_t *m)
{
    int s = MUST(mpf_open_send(m, 0, "crash"));
    int r = MUST(mpf_open_receive(m, 0, "crash", MPF_FCFS));
    char buf[16];
    int st;
    for (crash_stage = 0; crash_stage < 3; crash_stage++) {
        pid_t p = spawn(die_in_send, 5);
        waitpid(p, &st, 0);
        CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
        /* The survivor carries on with the same conversation. */
        CHECK_RC(mpf_message_receive(m, 0, r, buf, sizeof buf), 6);
        CHECK(memcmp(buf, "before", 6) == 0);
        /* The dead sender's message counts as sent once it was published. */
        if (crash_stage >= 1)
            CHECK_RC(mpf_message_receive(m, 0, r, buf, sizeof buf), 4);
        CHECK_RC(mpf_check_receive(m, 0, r, NULL), 0);
        CHECK_RC(mpf_message_send(m, 0, s, "after", 5), 0);
        CHECK_RC(mpf_check_receive(m, 0, r, NULL), 1);
        CHECK_RC(mpf_message_receive(m, 0, r, buf, sizeof buf), 5);
        CHECK(memcmp(buf, "after", 5) == 0);
        mpf_stats st1;
        MUST(mpf_stats_get(m, &st1));
        CHECK(st1.recoveries >= (unsigned long)crash_stage + 1);
        /* Its connections were reaped: its broadcast backlog no longer pins messages. */
        CHECK(mpf_reap(m) >= 0);
        CHECK_RC(mpf_message_send(m, 0, s, "x", 1), 0);
        CHECK_RC(mpf_message_receive(m, 0, r, buf, sizeof buf), 1);
        MUST(mpf_stats_get(m, &st1));
        CHECK(st1.messages_queued == 0);
        /* The id it used is free again. */
        int again = MUST(mpf_open_send(m, 5, "crash"));
        MUST(mpf_close_send(m, 5, again));
    }
    MUST(mpf_close_send(m, 0, s));
    MUST(mpf_close_receive(m, 0, r));
    mpf_stats st1;

    pid_t p = spawn(die_in_table, 6);
    waitpid(p, &st, 0);
    CHECK(WIFSIGNALED(st));
    int t = MUST(mpf_open_send(m, 0, "after-table-crash"));
    MUST(mpf_close_send(m, 0, t));
    MUST(mpf_stats_get(m, &st1));
    CHECK(st1.lnvcs == 0); /* "table-crash" lost its only (dead) member */
}

/* ---- a dead broadcast receiver must not pin memory forever ---- */

static int idle_bc(mpf_t *c, int pid)
{
    MUST(mpf_open_receive(c, pid, "flood", MPF_BROADCAST));
    pause();
    return 0;
}

static void test_dead_receiver(mpf_t *m)
{
    int s = MUST(mpf_open_send(m, 0, "flood"));
    int r = MUST(mpf_open_receive(m, 0, "flood", MPF_BROADCAST));
    pid_t p = spawn(idle_bc, 7);
    while (1) { /* wait until the child is connected */
        mpf_stats st;
        MUST(mpf_message_send(m, 0, s, "?", 1));
        char b[8];
        MUST(mpf_message_receive(m, 0, r, b, sizeof b));
        MUST(mpf_stats_get(m, &st));
        if (st.messages_queued > 0)
            break;
        usleep(1000);
    }
    kill(p, SIGKILL);
    waitpid(p, NULL, 0);
    /* Far more traffic than memory holds: the dead reader's backlog gets reaped. */
    static char big[8000];
    int ok = 1;
    for (int i = 0; i < 5000 && ok; i++) {
        ok &= mpf_message_send(m, 0, s, big, sizeof big) == 0;
        ok &= mpf_message_receive(m, 0, r, big, sizeof big) == (ssize_t)sizeof big;
    }
    CHECK(ok);
    MUST(mpf_close_send(m, 0, s));
    MUST(mpf_close_receive(m, 0, r));
}

/* ---- random kills of busy participants; survivors go on ---- */

static int streamer(mpf_t *c, int pid)
{
    int s = MUST(mpf_open_send(c, pid, "busy"));
    int r = MUST(mpf_open_receive(c, pid, "busy", pid % 2 ? MPF_FCFS : MPF_BROADCAST));
    for (int i = 0;; i++) {
        msg x = {.from = pid, .seq = i};
        x.check = sum(&x);
        mpf_message_send(c, pid, s, &x, sizeof x);
        mpf_message_try_receive(c, pid, r, &x, sizeof x);
        if (i % 64 == 0) { /* churn connections too */
            MUST(mpf_close_receive(c, pid, r));
            r = MUST(mpf_open_receive(c, pid, "busy", pid % 2 ? MPF_FCFS : MPF_BROADCAST));
        }
    }
    return 0;
}

static void test_random_kills(mpf_t *m)
{
    int r = MUST(mpf_open_receive(m, 0, "busy", MPF_BROADCAST));
    unsigned seed = 12345;
    int intact = 1, got = 0;
    for (int round = 0; round < 30; round++) {
        pid_t kids[3];
        for (int k = 0; k < 3; k++)
            kids[k] = spawn(streamer, 10 + k);
        seed = seed * 1103515245u + 12345u;
        long until = 2000 + (long)(seed >> 16) % 8000; /* microseconds */
        for (long t = 0; t < until; t += 200) {
            msg x;
            while (mpf_message_try_receive(m, 0, r, &x, sizeof x) == sizeof x) {
                intact &= x.check == sum(&x);
                got++;
            }
            usleep(200);
        }
        for (int k = 0; k < 3; k++)
            kill(kids[k], SIGKILL);
        for (int k = 0; k < 3; k++)
            waitpid(kids[k], NULL, 0);
        CHECK(mpf_reap(m) >= 0);
    }
    CHECK(intact);
    CHECK(got > 0);
    msg x;
    while (mpf_message_try_receive(m, 0, r, &x, sizeof x) == sizeof x)
        intact &= x.check == sum(&x);
    /* After all that, a clean stream still works exactly. */
    int s = MUST(mpf_open_send(m, 0, "busy"));
    for (int i = 0; i < 100; i++) {
        x = (msg){.from = 0, .seq = i};
        CHECK_RC(mpf_message_send(m, 0, s, &x, sizeof x), 0);
    }
    for (int i = 0; i < 100; i++) {
        CHECK_RC(mpf_message_receive(m, 0, r, &x, sizeof x), sizeof x);
        CHECK(x.seq == i);
    }
    MUST(mpf_close_send(m, 0, s));
    MUST(mpf_close_receive(m, 0, r));
    mpf_stats st;
    MUST(mpf_stats_get(m, &st));
    CHECK(st.lnvcs == 0);
    fprintf(stderr, "random kills: %d messages received, %lu lock recoveries\n", got,
            st.recoveries);
}

static int busy_pid(mpf_t *c, int pid)
{
    MUST(mpf_open_send(c, pid, "owned"));
    pause();
    return 0;
}

static void test_segment_errors(mpf_t *m)
{
    mpf_t *x;
    mpf_options o = {.shm_name = seg};
    CHECK_RC(mpf_init_ex(&x, &o), -MPF_EEXIST);
    /* A shared-memory object that is not an MPF segment. */
    char other[80];
    snprintf(other, sizeof other, "%s-junk", seg);
    int fd = shm_open(other, O_RDWR | O_CREAT, 0600);
    CHECK(fd >= 0 && ftruncate(fd, 65536) == 0);
    close(fd);
    CHECK_RC(mpf_attach(&x, other), -MPF_EFORMAT);
    shm_unlink(other);
    CHECK_RC(mpf_attach(&x, "a/b"), -MPF_EINVAL);
    /* An id held by another live OS process is refused, then released by its death. */
    pid_t p = spawn(busy_pid, 9);
    int id;
    while ((id = mpf_open_send(m, 9, "owned-probe")) >= 0) { /* until the child has claimed 9 */
        MUST(mpf_close_send(m, 9, id));
        usleep(1000);
    }
    CHECK_RC(id, -MPF_EBUSYPID);
    kill(p, SIGKILL);
    waitpid(p, NULL, 0);
    id = MUST(mpf_open_send(m, 9, "owned"));
    MUST(mpf_close_send(m, 9, id));
}

/* A child made by fork() after init may use the parent's handle as it is. */
static void test_fork_inherits(mpf_t *m)
{
    int r = MUST(mpf_open_receive(m, 0, "inherit", MPF_FCFS));
    pid_t p = fork();
    if (p == 0) {
        int s = mpf_open_send(m, 11, "inherit");
        int rc = s < 0 || mpf_message_send(m, 11, s, "from child", 10) || mpf_close_send(m, 11, s);
        _exit(rc);
    }
    char b[16];
    CHECK_RC(mpf_message_receive(m, 0, r, b, sizeof b), 10);
    CHECK(memcmp(b, "from child", 10) == 0);
    CHECK(exit_ok(p));
    MUST(mpf_close_receive(m, 0, r));
}

int main(void)
{
    snprintf(seg, sizeof seg, "/mpf-test-%d", (int)getpid());
    mpf_t *m;
    mpf_options o = {.shm_name = seg,
                     .replace = 1,
                     .max_lnvcs = 16,
                     .max_processes = 16,
                     .max_messages = 2048,
                     .pool_bytes = 4 << 20};
    MUST(mpf_init_ex(&m, &o));
    test_pingpong(m);
    test_fork_inherits(m);
    test_broadcast(m);
    test_death_in_lock(m);
    test_death_in_receive(m);
    test_dead_receiver(m);
    test_segment_errors(m);
    test_random_kills(m);
    mpf_stats st;
    MUST(mpf_stats_get(m, &st));
    CHECK(st.lnvcs == 0);
    MUST(mpf_finish(m));
    MUST(mpf_unlink(seg));
    return check_done("mpf shm");
}
