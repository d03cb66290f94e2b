/* threads.c: MPF between POSIX threads -- FCFS exactly-once, broadcast order, wakeups, and open/close churn while messages flow. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mpf_check.h"

enum { SENDERS = 2, PER_SENDER = 20000, FCFS_RECV = 3, BC_RECV = 3, CHURNERS = 3 };

typedef struct msg {
    int sender, seq;
    unsigned check;
    char pad[20];
} msg;

static mpf_t *m;
static _Atomic unsigned char seen[SENDERS][PER_SENDER];
static _Atomic int senders_done, churn_stop;
static pthread_barrier_t start;

static unsigned sum(const msg *x)
{
    return (unsigned)x->sender * 2654435761u ^ (unsigned)x->seq * 40503u;
}

/* ---- one-shot FCFS and BROADCAST delivery ---- */

static void *sender(void *arg)
{
    int pid = (int)(long)arg;
    int id = MUST(mpf_open_send(m, pid, "stream"));
    pthread_barrier_wait(&start);
    for (int i = 0; i < PER_SENDER; i++) {
        msg x = {.sender = pid, .seq = i};
        x.check = sum(&x);
        int rc;
        while ((rc = mpf_message_send(m, pid, id, &x, sizeof x)) == -MPF_ENOSPACE)
            sched_yield();
        CHECK_RC(rc, 0);
    }
    atomic_fetch_add(&senders_done, 1);
    MUST(mpf_close_send(m, pid, id));
    return NULL;
}

typedef struct rarg {
    int pid, proto, got;
} rarg;

/* Reads until it sees one end marker (seq == -1) per sender. */
static void *receiver(void *arg)
{
    rarg *a = arg;
    int id = MUST(mpf_open_receive(m, a->pid, "stream", a->proto));
    int last[SENDERS], ends = 0;
    for (int s = 0; s < SENDERS; s++)
        last[s] = -1;
    pthread_barrier_wait(&start);
    while (ends < (a->proto == MPF_BROADCAST ? SENDERS : 1)) {
        msg x;
        ssize_t n = mpf_message_receive(m, a->pid, id, &x, sizeof x);
        CHECK_RC(n, sizeof x);
        if (x.seq == -1) {
            ends++;
            continue;
        }
        CHECK(x.check == sum(&x) && x.sender >= 0 && x.sender < SENDERS);
        CHECK(x.seq > last[x.sender]); /* time order holds on every substream */
        if (a->proto == MPF_BROADCAST)
            CHECK(x.seq == last[x.sender] + 1);
        last[x.sender] = x.seq;
        if (a->proto == MPF_FCFS)
            CHECK(atomic_fetch_add(&seen[x.sender][x.seq], 1) == 0);
        a->got++;
    }
    MUST(mpf_close_receive(m, a->pid, id));
    return NULL;
}

static void test_delivery(int proto, int nrecv)
{
    memset(seen, 0, sizeof seen);
    pthread_t t[SENDERS + 8];
    rarg ra[8];
    pthread_barrier_init(&start, NULL, SENDERS + nrecv + 1);
    for (int s = 0; s < SENDERS; s++)
        pthread_create(&t[s], NULL, sender, (void *)(long)s);
    for (int r = 0; r < nrecv; r++) {
        ra[r] = (rarg){.pid = 10 + r, .proto = proto};
        pthread_create(&t[SENDERS + r], NULL, receiver, &ra[r]);
    }
    /* Main thread: an extra sender of end markers, after all data. */
    atomic_store(&senders_done, 0);
    int id = MUST(mpf_open_send(m, 20, "stream"));
    pthread_barrier_wait(&start);
    while (atomic_load(&senders_done) < SENDERS)
        usleep(1000);
    int ends = proto == MPF_FCFS ? nrecv : SENDERS;
    for (int i = 0; i < ends; i++) {
        msg x = {.sender = i % SENDERS, .seq = -1};
        while (mpf_message_send(m, 20, id, &x, sizeof x) == -MPF_ENOSPACE)
            sched_yield();
    }
    for (int i = 0; i < SENDERS + nrecv; i++)
        pthread_join(t[i], NULL);
    MUST(mpf_close_send(m, 20, id));
    int total = 0;
    for (int r = 0; r < nrecv; r++)
        total += ra[r].got;
    if (proto == MPF_FCFS) {
        CHECK(total == SENDERS * PER_SENDER);
        int all = 1;
        for (int s = 0; s < SENDERS; s++)
            for (int i = 0; i < PER_SENDER; i++)
                all &= atomic_load(&seen[s][i]) == 1;
        CHECK(all);
    } else {
        CHECK(total == nrecv * SENDERS * PER_SENDER);
    }
    pthread_barrier_destroy(&start);
}

/* ---- a blocked receiver is woken by a send, and by a close of its own connection ---- */

static _Atomic int blocked_rc = 1;
static void *blocked(void *arg)
{
    int id = (int)(long)arg;
    char b[8];
    atomic_store(&blocked_rc, (int)mpf_message_receive(m, 3, id, b, sizeof b));
    return NULL;
}

static void test_wakeups(void)
{
    int s = MUST(mpf_open_send(m, 2, "wake"));
    int r = MUST(mpf_open_receive(m, 3, "wake", MPF_BROADCAST));
    pthread_t t;
    pthread_create(&t, NULL, blocked, (void *)(long)r);
    usleep(50000);
    CHECK(atomic_load(&blocked_rc) == 1);
    CHECK_RC(mpf_message_send(m, 2, s, "hello", 5), 0);
    pthread_join(t, NULL);
    CHECK(atomic_load(&blocked_rc) == 5);
    atomic_store(&blocked_rc, 1);
    pthread_create(&t, NULL, blocked, (void *)(long)r);
    usleep(50000);
    MUST(mpf_close_receive(m, 3, r));
    pthread_join(t, NULL);
    CHECK(atomic_load(&blocked_rc) == -MPF_ECLOSED);
    MUST(mpf_close_send(m, 2, s));
}

/* ---- churn: receivers join and leave while two senders stream ---- */

static _Atomic int churn_fcfs_got;

static void *churn_sender(void *arg)
{
    int pid = (int)(long)arg;
    int f = MUST(mpf_open_send(m, pid, "churn-f"));
    int b = MUST(mpf_open_send(m, pid, "churn-b"));
    pthread_barrier_wait(&start);
    for (int i = 0; i < PER_SENDER; i++) {
        msg x = {.sender = pid, .seq = i};
        x.check = sum(&x);
        while (mpf_message_send(m, pid, f, &x, sizeof x) == -MPF_ENOSPACE)
            sched_yield();
        while (mpf_message_send(m, pid, b, &x, sizeof x) == -MPF_ENOSPACE)
            sched_yield();
    }
    atomic_fetch_add(&senders_done, 1);
    MUST(mpf_close_send(m, pid, f));
    MUST(mpf_close_send(m, pid, b));
    return NULL;
}

/* The anchor FCFS member never leaves, so the group never empties: nothing may be lost. */
static void *churner(void *arg)
{
    int pid = (int)(long)arg;
    unsigned seed = (unsigned)pid * 7919u;
    pthread_barrier_wait(&start);
    while (!atomic_load(&churn_stop)) {
        seed = seed * 1103515245u + 12345u;
        int fcfs = (seed >> 16) & 1;
        int id = MUST(mpf_open_receive(m, pid, fcfs ? "churn-f" : "churn-b",
                                       fcfs ? MPF_FCFS : MPF_BROADCAST));
        int last[SENDERS] = {-1, -1};
        for (int k = (int)((seed >> 8) % 50); k > 0; k--) {
            msg x;
            ssize_t n = mpf_message_try_receive(m, pid, id, &x, sizeof x);
            if (n == -MPF_EAGAIN) {
                sched_yield();
                continue;
            }
            CHECK_RC(n, sizeof x);
            CHECK(x.check == sum(&x));
            CHECK(x.seq > last[x.sender]);
            if (!fcfs && last[x.sender] >= 0)
                CHECK(x.seq == last[x.sender] + 1);
            last[x.sender] = x.seq;
            if (fcfs) {
                CHECK(atomic_fetch_add(&seen[x.sender][x.seq], 1) == 0);
                atomic_fetch_add(&churn_fcfs_got, 1);
            }
        }
        /* Also churn an unrelated conversation's creation and deletion. */
        int o = MUST(mpf_open_send(m, pid, "churn-other"));
        MUST(mpf_close_send(m, pid, o));
        MUST(mpf_close_receive(m, pid, id));
    }
    return NULL;
}

static void test_churn(void)
{
    memset(seen, 0, sizeof seen);
    atomic_store(&senders_done, 0);
    mpf_stats st0, st;
    MUST(mpf_stats_get(m, &st0));
    int anchor_f = MUST(mpf_open_receive(m, 30, "churn-f", MPF_FCFS));
    int anchor_b = MUST(mpf_open_receive(m, 31, "churn-b", MPF_BROADCAST));
    pthread_barrier_init(&start, NULL, SENDERS + CHURNERS + 1);
    pthread_t t[SENDERS + CHURNERS];
    for (int s = 0; s < SENDERS; s++)
        pthread_create(&t[s], NULL, churn_sender, (void *)(long)s);
    for (int c = 0; c < CHURNERS; c++)
        pthread_create(&t[SENDERS + c], NULL, churner, (void *)(long)(40 + c));
    pthread_barrier_wait(&start);
    int got_b = 0, last_b[SENDERS] = {-1, -1};
    /* The anchors drain while the others churn. */
    while (atomic_load(&senders_done) < SENDERS || mpf_check_receive(m, 30, anchor_f, NULL) > 0 ||
           mpf_check_receive(m, 31, anchor_b, NULL) > 0) {
        msg x;
        int idle = 1;
        if (mpf_message_try_receive(m, 30, anchor_f, &x, sizeof x) == sizeof x) {
            CHECK(atomic_fetch_add(&seen[x.sender][x.seq], 1) == 0);
            atomic_fetch_add(&churn_fcfs_got, 1);
            idle = 0;
        }
        if (mpf_message_try_receive(m, 31, anchor_b, &x, sizeof x) == sizeof x) {
            CHECK(x.seq == last_b[x.sender] + 1);
            last_b[x.sender] = x.seq;
            got_b++;
            idle = 0;
        }
        if (idle)
            sched_yield();
    }
    atomic_store(&churn_stop, 1);
    for (int i = 0; i < SENDERS + CHURNERS; i++)
        pthread_join(t[i], NULL);
    msg x;
    while (mpf_message_try_receive(m, 30, anchor_f, &x, sizeof x) == sizeof x) {
        CHECK(atomic_fetch_add(&seen[x.sender][x.seq], 1) == 0);
        atomic_fetch_add(&churn_fcfs_got, 1);
    }
    CHECK(atomic_load(&churn_fcfs_got) == SENDERS * PER_SENDER);
    CHECK(got_b == SENDERS * PER_SENDER);
    MUST(mpf_close_receive(m, 30, anchor_f));
    MUST(mpf_close_receive(m, 31, anchor_b));
    MUST(mpf_stats_get(m, &st));
    CHECK(st.lnvcs == 0);
    CHECK(st.free_messages == st0.free_messages && st.free_blocks == st0.free_blocks); /* no leak */
    pthread_barrier_destroy(&start);
}

/* ---- long messages are copied out without the lock: content and order still exact ---- */

enum { BIG_MSGS = 1500, BIG_MAX = 16384 };

static size_t big_len(int i)
{
    return 2049 + (size_t)(i * 7919) % (BIG_MAX - 2049);
}
static unsigned char big_byte(int i, size_t k)
{
    return (unsigned char)(i * 31 + k * 7);
}

typedef struct bigarg {
    int pid, proto, got, bad;
} bigarg;

static void *big_receiver(void *arg)
{
    bigarg *a = arg;
    static _Thread_local unsigned char buf[BIG_MAX];
    int id = MUST(mpf_open_receive(m, a->pid, "big", a->proto)), last = -1;
    pthread_barrier_wait(&start);
    for (;;) {
        ssize_t n = mpf_message_receive(m, a->pid, id, buf, sizeof buf);
        if (n == 4)
            break; /* end marker */
        int i;
        memcpy(&i, buf, sizeof i);
        if (n != (ssize_t)big_len(i) || i <= last || (a->proto == MPF_BROADCAST && i != last + 1))
            a->bad++;
        for (size_t k = sizeof i; k < (size_t)n; k++)
            if (buf[k] != big_byte(i, k)) {
                a->bad++;
                break;
            }
        if (a->proto == MPF_FCFS)
            CHECK(atomic_fetch_add(&seen[0][i], 1) == 0);
        last = i;
        a->got++;
    }
    MUST(mpf_close_receive(m, a->pid, id));
    return NULL;
}

static void test_big_concurrent(void)
{
    enum { NB = 3, NF = 2 };
    memset(seen, 0, sizeof seen);
    pthread_barrier_init(&start, NULL, NB + NF + 1);
    pthread_t t[NB + NF];
    bigarg a[NB + NF];
    for (int r = 0; r < NB + NF; r++) {
        a[r] = (bigarg){.pid = 50 + r, .proto = r < NB ? MPF_BROADCAST : MPF_FCFS};
        pthread_create(&t[r], NULL, big_receiver, &a[r]);
    }
    int s = MUST(mpf_open_send(m, 49, "big"));
    pthread_barrier_wait(&start);
    static unsigned char out[BIG_MAX];
    for (int i = 0; i < BIG_MSGS; i++) {
        size_t len = big_len(i);
        memcpy(out, &i, sizeof i);
        for (size_t k = sizeof i; k < len; k++)
            out[k] = big_byte(i, k);
        int rc;
        while ((rc = mpf_message_send(m, 49, s, out, len)) == -MPF_ENOSPACE)
            sched_yield();
        CHECK_RC(rc, 0);
    }
    for (int e = 0; e < NF; e++)
        CHECK_RC(mpf_message_send(m, 49, s, "end!", 4), 0); /* FCFS: one each; BROADCAST: all */
    for (int r = 0; r < NB + NF; r++)
        pthread_join(t[r], NULL);
    int fcfs_got = 0;
    for (int r = 0; r < NB + NF; r++) {
        CHECK(a[r].bad == 0);
        if (r < NB)
            CHECK(a[r].got == BIG_MSGS);
        else
            fcfs_got += a[r].got;
    }
    CHECK(fcfs_got == BIG_MSGS);
    MUST(mpf_close_send(m, 49, s));
    pthread_barrier_destroy(&start);
}

/* ---- senders join and leave while a blocked receiver streams; conversations
 * are created and deleted around them (stale ids then fail cleanly) ---- */

enum { SC_SENDERS = 3, SC_ROUNDS = 300, SC_BURST = 20 };

static void *sender_churner(void *arg)
{
    int pid = (int)(long)arg, seq = 0;
    char name[32];
    snprintf(name, sizeof name, "gone-%d", pid);
    pthread_barrier_wait(&start);
    for (int round = 0; round < SC_ROUNDS; round++) {
        int id = MUST(mpf_open_send(m, pid, "sc"));
        for (int k = 0; k < SC_BURST; k++, seq++) {
            msg x = {.sender = pid, .seq = seq};
            x.check = sum(&x);
            int rc;
            while ((rc = mpf_message_send(m, pid, id, &x, sizeof x)) == -MPF_ENOSPACE)
                sched_yield();
            CHECK_RC(rc, 0);
        }
        MUST(mpf_close_send(m, pid, id));
        CHECK_RC(mpf_message_send(m, pid, id, "x", 1),
                 -MPF_ENOTCONN); /* the receiver keeps "sc" alive */
        /* A private conversation: created, used, deleted by its last close. */
        int g = MUST(mpf_open_send(m, pid, name));
        CHECK(MUST(mpf_open_receive(m, pid, name, round & 1 ? MPF_FCFS : MPF_BROADCAST)) == g);
        int rc;
        while ((rc = mpf_message_send(m, pid, g, &round, sizeof round)) == -MPF_ENOSPACE)
            sched_yield(); /* the stream may fill memory */
        CHECK_RC(rc, 0);
        MUST(mpf_close_send(m, pid, g));
        if (round % 3 == 0) {
            int v = -1;
            CHECK_RC(mpf_message_receive(m, pid, g, &v, sizeof v), sizeof v);
            CHECK(v == round);
        }
        MUST(mpf_close_receive(m, pid, g)); /* deletes it, with any unread message */
        char b[8];
        CHECK_RC(mpf_message_send(m, pid, g, "x", 1), -MPF_EBADID);
        CHECK_RC(mpf_message_receive(m, pid, g, b, sizeof b), -MPF_EBADID);
    }
    return NULL;
}

static void test_sender_churn(void)
{
    mpf_stats st0, st;
    MUST(mpf_stats_get(m, &st0));
    int r = MUST(mpf_open_receive(m, 60, "sc", MPF_FCFS));
    pthread_barrier_init(&start, NULL, SC_SENDERS + 1);
    pthread_t t[SC_SENDERS];
    for (int i = 0; i < SC_SENDERS; i++)
        pthread_create(&t[i], NULL, sender_churner, (void *)(long)(61 + i));
    pthread_barrier_wait(&start);
    int next[SC_SENDERS] = {0};
    for (int got = 0; got < SC_SENDERS * SC_ROUNDS * SC_BURST; got++) {
        msg x;
        CHECK_RC(mpf_message_receive(m, 60, r, &x, sizeof x), sizeof x); /* blocks between bursts */
        int i = x.sender - 61;
        CHECK(i >= 0 && i < SC_SENDERS && x.check == sum(&x));
        if (i >= 0 && i < SC_SENDERS) {
            CHECK(x.seq == next[i]); /* each sender's messages, once each, in order */
            next[i] = x.seq + 1;
        }
    }
    for (int i = 0; i < SC_SENDERS; i++)
        pthread_join(t[i], NULL);
    CHECK_RC(mpf_check_receive(m, 60, r, NULL), 0);
    MUST(mpf_close_receive(m, 60, r));
    MUST(mpf_stats_get(m, &st));
    CHECK(st.lnvcs == 0);
    CHECK(st.free_messages == st0.free_messages && st.free_blocks == st0.free_blocks);
    pthread_barrier_destroy(&start);
}

int main(void)
{
    mpf_options o = {.max_lnvcs = 16, .max_processes = 64, .max_messages = 4096};
    MUST(mpf_init_ex(&m, &o));
    test_delivery(MPF_FCFS, FCFS_RECV);
    test_delivery(MPF_BROADCAST, BC_RECV);
    test_wakeups();
    test_big_concurrent();
    test_churn();
    test_sender_churn();
    MUST(mpf_finish(m));
    return check_done("mpf threads");
}
