/* semantics.c: every MPF rule and error code, exercised from one thread of an in-process instance. */
#include <string.h>

#include "mpf_check.h"

static mpf_t *m;

static int queued(void)
{
    mpf_stats st;
    MUST(mpf_stats_get(m, &st));
    return st.messages_queued;
}
static int lnvcs(void)
{
    mpf_stats st;
    MUST(mpf_stats_get(m, &st));
    return st.lnvcs;
}

static void send_int(int pid, int id, int v)
{
    CHECK_RC(mpf_message_send(m, pid, id, &v, sizeof v), 0);
}
static int recv_int(int pid, int id)
{
    int v = -1;
    CHECK_RC(mpf_message_receive(m, pid, id, &v, sizeof v), sizeof v);
    return v;
}

static void test_errors(void)
{
    char buf[16];
    char longname[MPF_NAME_MAX + 2];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    CHECK_RC(mpf_open_send(m, -1, "a"), -MPF_EBADPID);
    CHECK_RC(mpf_open_send(m, 8, "a"), -MPF_EBADPID);
    CHECK_RC(mpf_open_send(m, 0, ""), -MPF_ENAME);
    CHECK_RC(mpf_open_send(m, 0, longname), -MPF_ENAME);
    CHECK_RC(mpf_open_send(m, 0, NULL), -MPF_EINVAL);
    CHECK_RC(mpf_open_receive(m, 0, "a", 7), -MPF_EINVAL);
    CHECK_RC(mpf_message_send(m, 0, 12345, "x", 1), -MPF_EBADID);
    CHECK_RC(mpf_message_send(m, 0, -3, "x", 1), -MPF_EBADID);
    CHECK_RC(mpf_message_receive(m, 0, 12345, buf, sizeof buf), -MPF_EBADID);
    CHECK_RC(mpf_close_send(m, 0, 12345), -MPF_EBADID);
    CHECK_RC(mpf_check_receive(m, 0, 3, NULL), -MPF_EBADID);
    CHECK(lnvcs() == 0);

    int s = MUST(mpf_open_send(m, 0, "err"));
    CHECK_RC(mpf_open_send(m, 0, "err"), -MPF_EALREADY);
    CHECK_RC(mpf_message_receive(m, 0, s, buf, sizeof buf), -MPF_ENOTCONN); /* sender only */
    CHECK_RC(mpf_message_send(m, 1, s, "x", 1), -MPF_ENOTCONN); /* pid 1 not connected */
    CHECK_RC(mpf_close_receive(m, 0, s), -MPF_ENOTCONN);
    int r = MUST(mpf_open_receive(m, 1, "err", MPF_FCFS));
    CHECK(r == s); /* one conversation, one id */
    CHECK_RC(mpf_open_receive(m, 1, "err", MPF_FCFS), -MPF_EALREADY);
    CHECK_RC(mpf_open_receive(m, 1, "err", MPF_BROADCAST), -MPF_EPROTOCOL);
    CHECK_RC(mpf_message_send(m, 0, s, NULL, 4), -MPF_EINVAL);
    CHECK_RC(mpf_message_try_receive(m, 1, r, buf, sizeof buf), -MPF_EAGAIN);
    CHECK_RC(mpf_check_receive(m, 1, r, NULL), 0);
    CHECK_RC(mpf_check_receive(m, 0, r, NULL), -MPF_ENOTCONN);

    /* Too long to send: refused whole.  Too long for the buffer: stays queued. */
    static char big[70000];
    CHECK_RC(mpf_message_send(m, 0, s, big, sizeof big), -MPF_ETOOLONG);
    CHECK_RC(mpf_message_send(m, 0, s, "0123456789abcdefXYZ", 19), 0);
    size_t need = 0;
    CHECK_RC(mpf_check_receive(m, 1, r, &need), 1);
    CHECK(need == 19);
    CHECK_RC(mpf_message_receive(m, 1, r, buf, sizeof buf), -MPF_EMSGSIZE);
    CHECK_RC(mpf_check_receive(m, 1, r, NULL), 1);
    char ok[19];
    CHECK_RC(mpf_message_receive(m, 1, r, ok, sizeof ok), 19);
    CHECK(memcmp(ok, "0123456789abcdefXYZ", 19) == 0);
    /* Zero-length messages are messages too. */
    CHECK_RC(mpf_message_send(m, 0, s, NULL, 0), 0);
    CHECK_RC(mpf_message_receive(m, 1, r, NULL, 0), 0);

    CHECK_RC(mpf_close_send(m, 0, s), 0);
    CHECK_RC(mpf_close_send(m, 0, s), -MPF_ENOTCONN);
    CHECK_RC(mpf_message_send(m, 0, s, "x", 1),
             -MPF_ENOTCONN); /* closed sender; the receiver keeps it alive */
    CHECK_RC(mpf_close_receive(m, 1, r), 0);
    CHECK_RC(mpf_close_receive(m, 1, r), -MPF_EBADID); /* the conversation is gone */
    CHECK_RC(mpf_message_send(m, 0, s, "x", 1), -MPF_EBADID);
    CHECK_RC(mpf_message_try_receive(m, 1, r, buf, sizeof buf), -MPF_EBADID);
    CHECK_RC(mpf_check_receive(m, 1, r, NULL), -MPF_EBADID);
    CHECK(lnvcs() == 0);
    CHECK(mpf_strerror(-MPF_EMSGSIZE) != mpf_strerror(-MPF_ETOOLONG));
    CHECK(strcmp(mpf_strerror(999), "unknown MPF error") == 0);
}

static void test_order_and_fcfs(void)
{
    int s = MUST(mpf_open_send(m, 0, "fcfs"));
    int a = MUST(mpf_open_receive(m, 1, "fcfs", MPF_FCFS));
    int b = MUST(mpf_open_receive(m, 2, "fcfs", MPF_FCFS));
    for (int i = 0; i < 10; i++)
        send_int(0, s, i);
    CHECK_RC(mpf_check_receive(m, 1, a, NULL), 10);
    /* One shared head: whoever reads takes the next message in time order. */
    int want = 0;
    for (int i = 0; i < 10; i++)
        CHECK(recv_int(1 + i % 2, i % 2 ? b : a) == want++);
    CHECK_RC(mpf_check_receive(m, 2, b, NULL), 0);
    CHECK(queued() == 0); /* each message was delivered once, then freed */
    MUST(mpf_close_receive(m, 1, a));
    MUST(mpf_close_receive(m, 2, b));
    MUST(mpf_close_send(m, 0, s));
}

static void test_broadcast(void)
{
    int s = MUST(mpf_open_send(m, 0, "bc"));
    int a = MUST(mpf_open_receive(m, 1, "bc", MPF_BROADCAST));
    int b = MUST(mpf_open_receive(m, 2, "bc", MPF_BROADCAST));
    int f = MUST(mpf_open_receive(m, 3, "bc", MPF_FCFS));
    int g = MUST(mpf_open_receive(m, 4, "bc", MPF_FCFS));
    for (int i = 0; i < 5; i++)
        send_int(0, s, i);
    /* A broadcast receiver that joins now sees only later messages. */
    int c = MUST(mpf_open_receive(m, 5, "bc", MPF_BROADCAST));
    send_int(0, s, 5);
    CHECK_RC(mpf_check_receive(m, 5, c, NULL), 1);
    CHECK(recv_int(5, c) == 5);
    for (int i = 0; i < 6; i++)
        CHECK(recv_int(1, a) == i);
    CHECK(queued() == 6); /* b and the FCFS group still need them */
    for (int i = 0; i < 6; i++)
        CHECK(recv_int(2, b) == i);
    CHECK(queued() == 6);
    /* The FCFS group gets each message once, split between its members. */
    for (int i = 0; i < 6; i++)
        CHECK(recv_int(i < 3 ? 3 : 4, i < 3 ? f : g) == i);
    CHECK(queued() == 0);
    MUST(mpf_close_receive(m, 1, a));
    MUST(mpf_close_receive(m, 2, b));
    MUST(mpf_close_receive(m, 3, f));
    MUST(mpf_close_receive(m, 4, g));
    MUST(mpf_close_receive(m, 5, c));
    MUST(mpf_close_send(m, 0, s));
    CHECK(lnvcs() == 0);
}

/* The close-receive problem: leaving frees what every remaining receiver has read. */
static void test_close_receive(void)
{
    int s = MUST(mpf_open_send(m, 0, "cr"));
    int a = MUST(mpf_open_receive(m, 1, "cr", MPF_BROADCAST));
    int b = MUST(mpf_open_receive(m, 2, "cr", MPF_BROADCAST));
    int f = MUST(mpf_open_receive(m, 3, "cr", MPF_FCFS));
    for (int i = 0; i < 8; i++)
        send_int(0, s, i);
    for (int i = 0; i < 6; i++)
        recv_int(1, a); /* a read 0..5 */
    for (int i = 0; i < 3; i++)
        recv_int(3, f);   /* FCFS group read 0..2 */
    CHECK(queued() == 8); /* b read nothing */
    MUST(mpf_close_receive(m, 2, b));
    CHECK(queued() == 5); /* 0..2 were read by a and the FCFS group */
    MUST(mpf_close_receive(m, 3, f));
    CHECK(queued() == 2); /* only a's unread 6,7 remain */
    CHECK(recv_int(1, a) == 6);
    CHECK(queued() == 1);
    /* The last receiver leaves; the sender keeps the conversation alive. */
    MUST(mpf_close_receive(m, 1, a));
    CHECK(queued() == 0);
    CHECK(lnvcs() == 1);
    /* Sent with no receiver: kept for the first receiver to come. */
    send_int(0, s, 100);
    send_int(0, s, 101);
    CHECK(queued() == 2);
    int late = MUST(mpf_open_receive(m, 4, "cr", MPF_BROADCAST));
    int later = MUST(mpf_open_receive(m, 5, "cr", MPF_BROADCAST));
    CHECK_RC(mpf_check_receive(m, 4, late, NULL), 2);
    CHECK_RC(mpf_check_receive(m, 5, later, NULL), 0);
    CHECK(recv_int(4, late) == 100);
    CHECK(recv_int(4, late) == 101);
    CHECK(queued() == 0);
    MUST(mpf_close_receive(m, 5, later));
    MUST(mpf_close_receive(m, 4, late));
    MUST(mpf_close_send(m, 0, s));
}

/* The conversation and its unread messages vanish with the last connection. */
static void test_lifetime(void)
{
    mpf_stats st0, st;
    MUST(mpf_stats_get(m, &st0));
    int s = MUST(mpf_open_send(m, 0, "life"));
    int r = MUST(mpf_open_receive(m, 1, "life", MPF_FCFS));
    static char big[20000];
    for (int i = 0; i < 4; i++)
        CHECK_RC(mpf_message_send(m, 0, s, big, sizeof big), 0);
    MUST(mpf_close_send(m, 0, s));
    CHECK(lnvcs() == 1); /* the receiver still holds it, messages readable */
    CHECK_RC(mpf_check_receive(m, 1, r, NULL), 4);
    MUST(mpf_close_receive(m, 1, r));
    CHECK(lnvcs() == 0);
    MUST(mpf_stats_get(m, &st));
    CHECK(st.free_blocks == st0.free_blocks && st.free_messages == st0.free_messages);
    /* The old id is stale even when the name is reused in the same slot. */
    int s2 = MUST(mpf_open_send(m, 0, "life"));
    CHECK(s2 != s);
    CHECK_RC(mpf_message_send(m, 0, s, "x", 1), -MPF_EBADID);
    int r2 = MUST(mpf_open_receive(m, 1, "life", MPF_FCFS));
    CHECK_RC(mpf_check_receive(m, 1, r2, NULL), 0); /* nothing survived */
    MUST(mpf_close_send(m, 0, s2));
    MUST(mpf_close_receive(m, 1, r2));
}

static void test_large_messages(void)
{
    int s = MUST(mpf_open_send(m, 0, "large"));
    int r = MUST(mpf_open_receive(m, 1, "large", MPF_BROADCAST));
    static unsigned char out[65536], in[65536];
    size_t sizes[] = {1, 235, 236, 237, 4088, 4089, 8176, 8177, 65535, 65536};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        for (size_t i = 0; i < sizes[k]; i++)
            out[i] = (unsigned char)(i * 7 + k);
        CHECK_RC(mpf_message_send(m, 0, s, out, sizes[k]), 0);
    }
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        memset(in, 0, sizeof in);
        CHECK_RC(mpf_message_receive(m, 1, r, in, sizeof in), sizes[k]);
        int same = 1;
        for (size_t i = 0; i < sizes[k]; i++)
            same &= in[i] == (unsigned char)(i * 7 + k);
        CHECK(same);
    }
    MUST(mpf_close_receive(m, 1, r));
    MUST(mpf_close_send(m, 0, s));
}

/* Exhausted limits give errors, and nothing is half-done. */
static void test_limits(void)
{
    mpf_t *small;
    mpf_options o = {.max_lnvcs = 2,
                     .max_processes = 2,
                     .max_messages = 8,
                     .pool_bytes = 2 * 4096,
                     .max_message = 8000};
    MUST(mpf_init_ex(&small, &o));
    int a = MUST(mpf_open_send(small, 0, "a"));
    MUST(mpf_open_send(small, 0, "b"));
    CHECK_RC(mpf_open_send(small, 0, "c"), -MPF_ENOLNVC);
    CHECK_RC(mpf_open_send(small, 2, "a"), -MPF_EBADPID);
    MUST(mpf_open_receive(small, 1, "a", MPF_FCFS));
    static char big[10000];
    CHECK_RC(mpf_message_send(small, 0, a, big, 5000), 0); /* both blocks */
    CHECK_RC(mpf_message_send(small, 0, a, big, 100), 0);
    CHECK_RC(mpf_message_send(small, 0, a, big, 8001), -MPF_ETOOLONG);
    CHECK_RC(mpf_message_send(small, 0, a, big, 5000), -MPF_ENOSPACE);
    int n = 0;
    while (mpf_message_send(small, 0, a, "x", 1) == 0)
        n++;
    CHECK_RC(mpf_message_send(small, 0, a, "x", 1), -MPF_ENOSPACE);
    CHECK(n > 0);
    CHECK_RC(mpf_check_receive(small, 1, a, NULL), 2 + n); /* nothing lost */
    CHECK_RC(mpf_message_receive(small, 1, a, big, sizeof big), 5000);
    CHECK_RC(mpf_message_send(small, 0, a, big, 5000), 0);
    MUST(mpf_finish(small));
    mpf_t *bad;
    mpf_options o2 = {.data_block = 10};
    CHECK_RC(mpf_init_ex(&bad, &o2), -MPF_EINVAL);
    mpf_options o3 = {.max_message = 10000,
                      .pool_bytes = 2 * 4096}; /* the pool cannot hold one longest message */
    CHECK_RC(mpf_init_ex(&bad, &o3), -MPF_EINVAL);
    mpf_options o4 = {.wait = 7};
    CHECK_RC(mpf_init_ex(&bad, &o4), -MPF_EINVAL);
    mpf_options o5 = {.shm_name = "/mpf-test-lwp-shm",
                      .wait = MPF_WAIT_LWP}; /* LWP waiting is in-process only */
    CHECK_RC(mpf_init_ex(&bad, &o5), -MPF_EINVAL);
    CHECK_RC(mpf_init(NULL, 4, 4), -MPF_EINVAL);
    CHECK_RC(mpf_finish(NULL), -MPF_EINVAL);
    CHECK_RC(mpf_attach(&bad, NULL), -MPF_EINVAL);
    CHECK_RC(mpf_init(&bad, 0, 4), -MPF_EINVAL);
    CHECK_RC(mpf_attach(&bad, "/mpf-test-no-such-segment"), -MPF_ENOENT);
}

int main(void)
{
    MUST(mpf_init(&m, 16, 8));
    test_errors();
    test_order_and_fcfs();
    test_broadcast();
    test_close_receive();
    test_lifetime();
    test_large_messages();
    test_limits();
    CHECK(lnvcs() == 0);
    MUST(mpf_finish(m));
    return check_done("mpf semantics");
}
