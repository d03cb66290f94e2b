/* lwp.c: MPF between MPD lightweight processes -- a blocking receive parks only its process (1 and 2 VPs). */
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mpd/rt.h"
#include "mpf_check.h"

enum { MSGS = 20000, RECV = 3 };

static mpf_t *m;
static mpd_sem done;
static _Atomic unsigned char seen[MSGS];
static _Atomic int got_total;
static int proto;

static void receiver(void *arg)
{
    int pid = (int)(intptr_t)arg, last = -1, n = 0;
    int id = MUST(mpf_open_receive(m, pid, "lwp", proto));
    mpd_sem_V(&done); /* connected */
    for (;;) {
        int v;
        CHECK_RC(mpf_message_receive(m, pid, id, &v, sizeof v), sizeof v);
        if (v < 0)
            break;
        CHECK(v > last);
        if (proto == MPF_BROADCAST)
            CHECK(v == last + 1);
        else
            CHECK(atomic_fetch_add(&seen[v], 1) == 0);
        last = v;
        n++;
    }
    atomic_fetch_add(&got_total, n);
    MUST(mpf_close_receive(m, pid, id));
    mpd_sem_V(&done);
}

static void run_stream(int p)
{
    proto = p;
    memset(seen, 0, sizeof seen);
    atomic_store(&got_total, 0);
    int s = MUST(mpf_open_send(m, 0, "lwp"));
    for (int r = 0; r < RECV; r++)
        mpd_proc_create(receiver, (void *)(intptr_t)(1 + r), NULL);
    for (int r = 0; r < RECV; r++)
        mpd_sem_P(&done);
    for (int i = 0; i < MSGS; i++) {
        CHECK_RC(mpf_message_send(m, 0, s, &i, sizeof i), 0);
        if (i % 100 == 0)
            mpd_yield(); /* let receivers drain and park again */
    }
    int end = -1;
    for (int r = 0; r < (p == MPF_FCFS ? RECV : 1); r++)
        CHECK_RC(mpf_message_send(m, 0, s, &end, sizeof end), 0);
    for (int r = 0; r < RECV; r++)
        mpd_sem_P(&done);
    CHECK(atomic_load(&got_total) == (p == MPF_FCFS ? MSGS : RECV * MSGS));
    MUST(mpf_close_send(m, 0, s));
}

/* ---- ping-pong: each side parks in every receive ---- */

static void ponger(void *arg)
{
    (void)arg;
    int in = MUST(mpf_open_receive(m, 5, "ping", MPF_FCFS)),
        out = MUST(mpf_open_send(m, 5, "pong"));
    mpd_sem_V(&done);
    for (;;) {
        int v;
        CHECK_RC(mpf_message_receive(m, 5, in, &v, sizeof v), sizeof v);
        if (v < 0)
            break;
        v++;
        CHECK_RC(mpf_message_send(m, 5, out, &v, sizeof v), 0);
    }
    MUST(mpf_close_receive(m, 5, in));
    MUST(mpf_close_send(m, 5, out));
    mpd_sem_V(&done);
}

static void pingpong(void)
{
    int out = MUST(mpf_open_send(m, 4, "ping")),
        in = MUST(mpf_open_receive(m, 4, "pong", MPF_FCFS));
    mpd_proc_create(ponger, NULL, NULL);
    mpd_sem_P(&done);
    int ok = 1;
    for (int i = 0; i < MSGS; i++) {
        int v = 2 * i, w = -1;
        CHECK_RC(mpf_message_send(m, 4, out, &v, sizeof v), 0);
        CHECK_RC(mpf_message_receive(m, 4, in, &w, sizeof w), sizeof w);
        ok &= w == v + 1;
    }
    CHECK(ok);
    int end = -1;
    MUST(mpf_message_send(m, 4, out, &end, sizeof end));
    mpd_sem_P(&done);
    MUST(mpf_close_send(m, 4, out));
    MUST(mpf_close_receive(m, 4, in));
}

/* ---- a parked receiver whose connection is closed by another process returns ECLOSED ---- */

static _Atomic long closed_rc = 1;
static int closed_id;
static void blocked(void *arg)
{
    (void)arg;
    char b[4];
    atomic_store(&closed_rc, (long)mpf_message_receive(m, 6, closed_id, b, sizeof b));
    mpd_sem_V(&done);
}

static void close_wakes(void)
{
    int keep = MUST(mpf_open_send(m, 7, "closing"));
    closed_id = MUST(mpf_open_receive(m, 6, "closing", MPF_BROADCAST));
    mpd_proc_create(blocked, NULL, NULL);
    mpd_nap(20);
    CHECK(atomic_load(&closed_rc) == 1); /* still parked, and we ran meanwhile */
    MUST(mpf_close_receive(m, 6, closed_id));
    mpd_sem_P(&done);
    CHECK(atomic_load(&closed_rc) == -MPF_ECLOSED);
    MUST(mpf_close_send(m, 7, keep));
}

/* ---- a send hands a short message straight to a parked receive; the edges fall back to the queue ---- */

static _Atomic long small_rc = 1;
static int direct_id;
static void small_buffer(void *arg)
{
    (void)arg;
    char b[4];
    atomic_store(&small_rc, (long)mpf_message_receive(m, 6, direct_id, b,
                                                      sizeof b)); /* parks; 8 B do not fit */
    char big[16];
    CHECK_RC(mpf_message_receive(m, 6, direct_id, big, sizeof big), 8); /* still first in line */
    CHECK(memcmp(big, "12345678", 8) == 0);
    mpd_sem_V(&done);
}

static _Atomic int fcfs_got[2];
static int fcfs_id;
static void fcfs_parker(void *arg)
{
    int k = (int)(intptr_t)arg, v = -1;
    CHECK_RC(mpf_message_receive(m, 1 + k, fcfs_id, &v, sizeof v), sizeof v);
    atomic_store(&fcfs_got[k], v);
    mpd_sem_V(&done);
}

static void direct_delivery(void)
{
    /* Too long for the parked receive's buffer: queued, EMSGSIZE, then read with a bigger one. */
    int s = MUST(mpf_open_send(m, 7, "direct"));
    direct_id = MUST(mpf_open_receive(m, 6, "direct", MPF_BROADCAST));
    mpd_proc_create(small_buffer, NULL, NULL);
    mpd_yield(); /* it parks */
    CHECK_RC(mpf_message_send(m, 7, s, "12345678", 8), 0);
    mpd_sem_P(&done);
    CHECK(atomic_load(&small_rc) == -MPF_EMSGSIZE);
    CHECK_RC(mpf_check_receive(m, 6, direct_id, NULL), 0);
    MUST(mpf_close_receive(m, 6, direct_id));
    MUST(mpf_close_send(m, 7, s));
    /* Two parked FCFS receives: one message each, in the order they parked; nothing left queued. */
    s = MUST(mpf_open_send(m, 7, "direct2"));
    fcfs_id = MUST(mpf_open_receive(m, 1, "direct2", MPF_FCFS));
    CHECK(MUST(mpf_open_receive(m, 2, "direct2", MPF_FCFS)) == fcfs_id);
    for (int k = 0; k < 2; k++)
        mpd_proc_create(fcfs_parker, (void *)(intptr_t)k, NULL);
    mpd_yield();
    mpd_yield();
    for (int v = 10; v < 12; v++)
        CHECK_RC(mpf_message_send(m, 7, s, &v, sizeof v), 0);
    for (int k = 0; k < 2; k++)
        mpd_sem_P(&done);
    CHECK(atomic_load(&fcfs_got[0]) + atomic_load(&fcfs_got[1]) == 21 &&
          atomic_load(&fcfs_got[0]) != atomic_load(&fcfs_got[1]));
    if (mpd_nvp() == 1)
        CHECK(atomic_load(&fcfs_got[0]) == 10); /* FIFO among parked receives */
    mpf_stats st;
    MUST(mpf_stats_get(m, &st));
    CHECK(st.messages_queued == 0);
    CHECK_RC(mpf_check_receive(m, 1, fcfs_id, NULL), 0);
    MUST(mpf_close_receive(m, 1, fcfs_id));
    MUST(mpf_close_receive(m, 2, fcfs_id));
    MUST(mpf_close_send(m, 7, s));
}

static void body(void *arg)
{
    (void)arg;
    mpd_rt_set_exit_status(1); /* until every step has run */
    mpd_sem_init(&done, 0);
    mpf_options o = {.wait = MPF_WAIT_LWP,
                     .max_lnvcs = 8,
                     .max_processes = 8,
                     .max_messages = 1000,
                     .send_waits = 1};
    MUST(mpf_init_ex(&m, &o));
    run_stream(MPF_FCFS);
    run_stream(MPF_BROADCAST);
    pingpong();
    close_wakes();
    direct_delivery();
    mpf_stats st;
    MUST(mpf_stats_get(m, &st));
    CHECK(st.lnvcs == 0);
    MUST(mpf_finish(m));
    mpd_rt_set_exit_status(mpf_check_failures ? 1 : 0);
}

int main(void)
{
    mpf_t *bad;
    mpf_options o = {.wait = MPF_WAIT_LWP, .shm_name = "/mpf-lwp-never"};
    CHECK_RC(mpf_init_ex(&bad, &o), -MPF_EINVAL); /* parked processes cannot span OS processes */
    for (int nvp = 1; nvp <= 2; nvp++) {
        fflush(NULL);
        pid_t p = fork();
        if (p == 0) {
            mpd_rt_set_nvp(nvp);
            char *argv[] = {(char *)"lwp", NULL};
            _exit(mpd_rt_main(1, argv, body, NULL));
        }
        int st;
        waitpid(p, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr, "lwp test with %d VP(s) failed (status %d)\n", nvp, st);
            mpf_check_failures++;
        }
    }
    return check_done("mpf lwp");
}
