/* mixed.c: plain POSIX threads and MPD lightweight processes on one MPF instance (1 and 2 VPs).
 *
 * A process that must wait for a thread cannot park (no thread may unpark it)
 * and must not stop its VP: it yields while it looks, then sleeps through
 * mpd_blocking_call.  That path depends on the runtime delivering every
 * blocking-call completion; a lost VP wakeup there hung about one run in 20.
 * So the body runs many times, each in a child with an alarm: a hang is a
 * failure.  Checked: threads -> processes (FCFS group exactly once and in
 * order per sender, a BROADCAST process gets all), processes -> a thread,
 * thread <-> process ping-pong where every receive waits, a full pool with a
 * process sender waiting for a thread receiver, and an MPF_WAIT_LWP instance
 * refusing a plain thread (MPF_ENOTSUP). */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mpd/rt.h"
#include "mpf_check.h"

enum { TSEND = 2, PER = 6000, FRECV = 2, TRIPS = 1500, ROUNDS_1VP = 8, ROUNDS_2VP = 4 };

static mpf_t *m;
static mpd_sem done;
static _Atomic unsigned char seen[TSEND][PER];
static _Atomic int fcfs_got;

/* ---- threads send, processes receive ---- */

static void *thread_sender(void *arg)
{
    int k = (int)(intptr_t)arg, pid = 10 + k;
    int s = MUST(mpf_open_send(m, pid, "t2p"));
    for (int i = 0; i < PER; i++) {
        int v[2] = {k, i};
        CHECK_RC(mpf_message_send(m, pid, s, v, sizeof v), 0);
        if (i % 64 == 0)
            sched_yield(); /* let the receivers catch up and wait again */
    }
    MUST(mpf_close_send(m, pid, s));
    return NULL;
}

static void fcfs_proc(void *arg)
{
    int pid = (int)(intptr_t)arg, last[TSEND] = {-1, -1}, n = 0;
    int id = MUST(mpf_open_receive(m, pid, "t2p", MPF_FCFS));
    mpd_sem_V(&done);
    for (;;) {
        int v[2];
        CHECK_RC(mpf_message_receive(m, pid, id, v, sizeof v), sizeof v);
        if (v[0] < 0)
            break;
        CHECK(v[1] > last[v[0]]);
        CHECK(atomic_fetch_add(&seen[v[0]][v[1]], 1) == 0);
        last[v[0]] = v[1];
        n++;
    }
    atomic_fetch_add(&fcfs_got, n);
    MUST(mpf_close_receive(m, pid, id));
    mpd_sem_V(&done);
}

static void bcast_proc(void *arg)
{
    int pid = (int)(intptr_t)arg, next[TSEND] = {0, 0}, n = 0;
    int id = MUST(mpf_open_receive(m, pid, "t2p", MPF_BROADCAST));
    mpd_sem_V(&done);
    while (n < TSEND * PER) {
        int v[2];
        CHECK_RC(mpf_message_receive(m, pid, id, v, sizeof v), sizeof v);
        if (v[0] < 0)
            continue; /* an end mark for the FCFS group */
        CHECK(v[1] == next[v[0]]);
        next[v[0]] = v[1] + 1;
        n++;
    }
    MUST(mpf_close_receive(m, pid, id));
    mpd_sem_V(&done);
}

static intptr_t join_thread(void *t)
{
    return pthread_join(*(pthread_t *)t, NULL);
}

/* Joining a thread would stop the VP, and the thread may need this VP's processes. */
static void join(pthread_t t)
{
    CHECK(mpd_blocking_call(join_thread, &t, NULL) == 0);
}

static void threads_to_procs(void)
{
    memset(seen, 0, sizeof seen);
    atomic_store(&fcfs_got, 0);
    int ctl =
        MUST(mpf_open_send(m, 0, "t2p")); /* keeps the conversation while senders come and go */
    for (int r = 0; r < FRECV; r++)
        mpd_proc_create(fcfs_proc, (void *)(intptr_t)(1 + r), NULL);
    mpd_proc_create(bcast_proc, (void *)(intptr_t)(1 + FRECV), NULL);
    for (int r = 0; r <= FRECV; r++)
        mpd_sem_P(&done);
    pthread_t t[TSEND];
    for (int k = 0; k < TSEND; k++)
        pthread_create(&t[k], NULL, thread_sender, (void *)(intptr_t)k);
    for (int k = 0; k < TSEND; k++)
        join(t[k]);
    int end[2] = {-1, -1};
    for (int r = 0; r < FRECV; r++)
        CHECK_RC(mpf_message_send(m, 0, ctl, end, sizeof end), 0);
    for (int r = 0; r <= FRECV; r++)
        mpd_sem_P(&done);
    CHECK(atomic_load(&fcfs_got) == TSEND * PER);
    MUST(mpf_close_send(m, 0, ctl));
}

/* ---- processes send, a thread receives; the pool is small, so senders wait for it ---- */

static void proc_sender(void *arg)
{
    int k = (int)(intptr_t)arg, pid = 20 + k;
    int s = MUST(mpf_open_send(m, pid, "p2t"));
    for (int i = 0; i < PER; i++) {
        int v[2] = {k, i};
        CHECK_RC(mpf_message_send(m, pid, s, v, sizeof v), 0);
    }
    MUST(mpf_close_send(m, pid, s));
    mpd_sem_V(&done);
}

static _Atomic int thread_recv_ok;
static void *thread_receiver(void *arg)
{
    int id = (int)(intptr_t)arg, next[2] = {0, 0}, ok = 1;
    for (int n = 0; n < 2 * PER; n++) {
        int v[2];
        if (mpf_message_receive(m, 30, id, v, sizeof v) != sizeof v || v[0] < 0 || v[0] > 1 ||
            v[1] != next[v[0]]) {
            ok = 0;
            break;
        }
        next[v[0]]++;
        if (n % 500 == 0)
            usleep(100); /* let the pool fill up */
    }
    atomic_store(&thread_recv_ok, ok);
    return NULL;
}

static void procs_to_thread(void)
{
    int id = MUST(mpf_open_receive(m, 30, "p2t", MPF_FCFS));
    pthread_t t;
    pthread_create(&t, NULL, thread_receiver, (void *)(intptr_t)id);
    for (int k = 0; k < 2; k++)
        mpd_proc_create(proc_sender, (void *)(intptr_t)k, NULL);
    for (int k = 0; k < 2; k++)
        mpd_sem_P(&done);
    join(t);
    CHECK(atomic_load(&thread_recv_ok) == 1);
    MUST(mpf_close_receive(m, 30, id));
}

/* ---- ping-pong: a thread and a process, every receive waits ---- */

static void *thread_pong(void *arg)
{
    (void)arg;
    int in = MUST(mpf_open_receive(m, 41, "ping", MPF_FCFS)),
        out = MUST(mpf_open_send(m, 41, "pong"));
    for (;;) {
        int v;
        CHECK_RC(mpf_message_receive(m, 41, in, &v, sizeof v), sizeof v);
        if (v < 0)
            break;
        v++;
        CHECK_RC(mpf_message_send(m, 41, out, &v, sizeof v), 0);
    }
    MUST(mpf_close_receive(m, 41, in));
    MUST(mpf_close_send(m, 41, out));
    return NULL;
}

static void pingpong(void)
{
    int out = MUST(mpf_open_send(m, 40, "ping")),
        in = MUST(mpf_open_receive(m, 40, "pong", MPF_FCFS));
    pthread_t t;
    pthread_create(&t, NULL, thread_pong, NULL);
    int ok = 1;
    for (int i = 0; i < TRIPS; i++) {
        int v = 2 * i, w = -1;
        CHECK_RC(mpf_message_send(m, 40, out, &v, sizeof v), 0);
        CHECK_RC(mpf_message_receive(m, 40, in, &w, sizeof w), sizeof w);
        ok &= w == v + 1;
    }
    CHECK(ok);
    int end = -1;
    MUST(mpf_message_send(m, 40, out, &end, sizeof end));
    join(t);
    MUST(mpf_close_send(m, 40, out));
    MUST(mpf_close_receive(m, 40, in));
}

/* ---- an MPF_WAIT_LWP instance is for processes only ---- */

static mpf_t *lwp_only;
static void *thread_on_lwp_instance(void *arg)
{
    (void)arg;
    CHECK_RC(mpf_open_send(lwp_only, 1, "x"), -MPF_ENOTSUP);
    CHECK_RC(mpf_message_send(lwp_only, 1, 0, "", 0), -MPF_ENOTSUP);
    return NULL;
}

static void lwp_instance_refuses_threads(void)
{
    mpf_options o = {.wait = MPF_WAIT_LWP, .max_lnvcs = 4, .max_processes = 4};
    MUST(mpf_init_ex(&lwp_only, &o));
    pthread_t t;
    pthread_create(&t, NULL, thread_on_lwp_instance, NULL);
    join(t);
    MUST(mpf_finish(lwp_only));
}

static void body(void *arg)
{
    (void)arg;
    alarm(60);                 /* a lost wakeup ends the child with SIGALRM */
    mpd_rt_set_exit_status(1); /* until every step has run */
    mpd_sem_init(&done, 0);
    mpf_options o = {.max_lnvcs = 8, .max_processes = 64, .max_messages = 200, .send_waits = 1};
    MUST(mpf_init_ex(&m, &o));
    threads_to_procs();
    procs_to_thread();
    pingpong();
    lwp_instance_refuses_threads();
    mpf_stats st;
    MUST(mpf_stats_get(m, &st));
    CHECK(st.lnvcs == 0 && st.messages_queued == 0);
    MUST(mpf_finish(m));
    mpd_rt_set_exit_status(mpf_check_failures ? 1 : 0);
}

int main(void)
{
    for (int r = 0; r < ROUNDS_1VP + ROUNDS_2VP; r++) {
        int nvp = r < ROUNDS_1VP ? 1 : 2;
        fflush(NULL);
        pid_t p = fork();
        if (p == 0) {
            mpd_rt_set_nvp(nvp);
            char *argv[] = {(char *)"mixed", NULL};
            _exit(mpd_rt_main(1, argv, body, NULL));
        }
        int st;
        waitpid(p, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr, "mixed round %d (%d VPs) failed: %s %d\n", r, nvp,
                    WIFSIGNALED(st) ? (WTERMSIG(st) == SIGALRM ? "hung, signal" : "signal")
                                    : "status",
                    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            mpf_check_failures++;
        }
    }
    return check_done("mpf mixed");
}
