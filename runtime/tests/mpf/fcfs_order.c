/* fcfs_order.c: blocked FCFS receivers are served in the order they started waiting.
 *
 * 1. Threads: round after round, NR receivers (ids 0..NR-1) block on one FCFS
 *    conversation one after the other (each waits until the previous one is in
 *    line), then NR messages "0".."NR-1" are sent at once: receiver k must get
 *    message k.  (Without the line, woken receivers race for the lock: some
 *    rounds go out of order.)
 * 2. A receiver that times out in the middle of the line leaves without
 *    holding up the ones behind it; a try_receive takes a message only when
 *    more wait than receivers stand in line.
 * 3. Processes on a shared segment: a receiver killed (SIGKILL) while queued
 *    in line is removed by the reaper (run by the waiters' periodic reap, no
 *    explicit call): the live ones behind it are served in order, every
 *    waiter slot is free at the end and nobody is left counted asleep.
 * 4. A newcomer does not jump the line: with the head of the line stopped
 *    (SIGSTOP, asleep on its own word, so holding no lock) and one message
 *    waiting, try_receive says EAGAIN; the head gets the message once it
 *    runs again.  (Done with a process: a thread cannot be held still.)
 * 5. More waiters than the waiter table holds (2 * max_processes + 16): the
 *    overflow waits unordered, and every receiver still gets exactly one
 *    message, none twice, nobody left waiting.
 * 6. MPD processes on an ordinary (threads-mode) instance, 1 and 2 VPs: they
 *    wait in the same line (yielding, then asleep through a blocking call);
 *    20 rounds of NR processes lining up, then NR messages from a thread:
 *    process k gets message k.  Each run is a child under an alarm. */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mpf/mpf_internal.h" /* line_len: to start the receivers in a known order */
#include "mpf_check.h"

#define NR 4
#define ROUNDS 100
static mpf_t *m;
static int rid[NR], sid;
static char got[NR][8];
static ssize_t rc[NR];
static long long timeout_of[NR];

static uint32_t in_line(void)
{
    mpf_lnvc *l = mpf_lnvc_at(m, mpf_id_slot(m->r, sid));
    mpf_lock_acquire(m, &l->rlock);
    uint32_t n = l->line_len;
    mpf_unlock(m, &l->rlock);
    return n;
}

/* Waiters counted asleep in the line: a send makes the slow check while it is not 0. */
static uint32_t asleep_count(void)
{
    return atomic_load(&mpf_lnvc_at(m, mpf_id_slot(m->r, sid))->line_asleep);
}

static uint32_t waiter_slots_used(void)
{
    uint32_t n = 0;
    for (uint32_t i = 1; i <= m->r->n_waiters; i++)
        n += atomic_load(&mpf_waiter_at(m, i)->os_pid) != 0;
    return n;
}

static void *receiver(void *arg)
{
    int k = (int)(long)arg;
    memset(got[k], 0, sizeof got[k]);
    rc[k] = timeout_of[k]
                ? mpf_message_timed_receive(m, k, rid[k], got[k], sizeof got[k] - 1, timeout_of[k])
                : mpf_message_receive(m, k, rid[k], got[k], sizeof got[k] - 1);
    return NULL;
}

/* Joins so far (the line's ticket counter: it only grows, so a receiver
 * that timed out meanwhile does not make us wait for ever). */
static uint32_t joined(void)
{
    mpf_lnvc *l = mpf_lnvc_at(m, mpf_id_slot(m->r, sid));
    mpf_lock_acquire(m, &l->rlock);
    uint32_t n = l->line_ticket;
    mpf_unlock(m, &l->rlock);
    return n;
}

/* Start receivers 0..NR-1 in order; returns once each has joined the line. */
static void start_line(pthread_t *th)
{
    uint32_t base = joined();
    for (int k = 0; k < NR; k++) {
        pthread_create(&th[k], NULL, receiver, (void *)(long)k);
        while (joined() - base != (uint32_t)k + 1)
            usleep(100);
    }
}

static void send_digit(int k)
{
    char msg[2] = {(char)('0' + k), 0};
    MUST(mpf_message_send(m, 7, sid, msg, 1));
}

static void threads_in_order(void)
{
    MUST(mpf_init(&m, 4, 8));
    for (int k = 0; k < NR; k++)
        rid[k] = MUST(mpf_open_receive(m, k, "line", MPF_FCFS));
    sid = MUST(mpf_open_send(m, 7, "line"));
    int misordered = 0;
    for (int round = 0; round < ROUNDS; round++) {
        pthread_t th[NR];
        start_line(th);
        for (int k = 0; k < NR; k++)
            send_digit(k);
        for (int k = 0; k < NR; k++) {
            pthread_join(th[k], NULL);
            CHECK_RC(rc[k], 1);
            if (got[k][0] != '0' + k)
                misordered++;
        }
    }
    printf("threads: %d rounds of %d: %d receivers served out of arrival order\n", ROUNDS, NR,
           misordered);
    CHECK(misordered == 0);

    /* receiver 1 gives up (timeout) while in line: 0, 2, 3 get messages 0, 1, 2 */
    pthread_t th[NR];
    timeout_of[1] = 100000000; /* 100 ms */
    start_line(th);
    pthread_join(th[1], NULL);
    CHECK_RC(rc[1], -MPF_ETIMEDOUT);
    CHECK(in_line() == NR - 1);
    send_digit(0);
    pthread_join(th[0], NULL);
    CHECK(got[0][0] == '0');
    char b[8];
    /* 2 and 3 get 1 and 2 in their order; the message left over is anyone's */
    send_digit(1);
    send_digit(2);
    send_digit(9);
    pthread_join(th[2], NULL);
    pthread_join(th[3], NULL);
    CHECK(got[2][0] == '1' && got[3][0] == '2');
    CHECK_RC(mpf_message_try_receive(m, 1, rid[1], b, sizeof b), 1);
    CHECK(b[0] == '9');
    CHECK(in_line() == 0);
    CHECK(waiter_slots_used() == 0);
    CHECK(asleep_count() == 0);
    MUST(mpf_finish(m));
}

/* ---- processes: a receiver killed while queued ---- */

static int child_receive(int k, const char *shm)
{
    mpf_t *cm;
    if (mpf_attach(&cm, shm) < 0)
        return 100;
    int id = (int)mpf_open_receive(cm, k, "line", MPF_FCFS);
    if (id < 0)
        return 101;
    char b[8] = {0};
    ssize_t n = mpf_message_receive(cm, k, id, b, sizeof b - 1);
    return n == 1 ? 10 + b[0] - '0' : 102;
}

static void processes_with_a_death(void)
{
    char shm[64];
    snprintf(shm, sizeof shm, "/mpf-fcfs-order-%d", (int)getpid());
    mpf_options o = {
        .max_lnvcs = 4, .max_processes = 8, .shm_name = shm, .replace = 1, .spin = 200};
    MUST(mpf_init_ex(&m, &o));
    sid = MUST(mpf_open_send(m, 7, "line"));
    int served_wrong = 0;
    for (int round = 0; round < 6; round++) {
        pid_t ch[3];
        for (int k = 0; k < 3; k++) {
            fflush(stdout);
            if ((ch[k] = fork()) == 0)
                _exit(child_receive(k, shm));
            while (in_line() != (uint32_t)k + 1)
                usleep(200);
        }
        int victim = round % 3; /* killed while queued: first, middle or last in line */
        kill(ch[victim], SIGKILL);
        waitpid(ch[victim], NULL, 0);
        send_digit(0);
        send_digit(1);
        int want = 0;
        for (int k = 0; k < 3; k++) {
            if (k == victim)
                continue;
            int st = 0;
            waitpid(ch[k], &st, 0);
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 10 + want)
                served_wrong++;
            want++;
        }
        mpf_reap(m); /* a victim last in line had nobody behind it to reap it */
        CHECK(in_line() == 0);
        CHECK(waiter_slots_used() == 0);
        CHECK(asleep_count() == 0); /* the victim died counted asleep: the reaper uncounted it */
    }
    printf(
        "processes: 6 rounds, a receiver killed in line each: %d live receivers served wrongly\n",
        served_wrong);
    CHECK(served_wrong == 0);

    /* 4: the head stopped, a message waiting: a newcomer's try_receive must not take it */
    int mine = MUST(mpf_open_receive(m, 6, "line", MPF_FCFS));
    pid_t head;
    fflush(stdout);
    if ((head = fork()) == 0)
        _exit(child_receive(0, shm));
    while (in_line() != 1)
        usleep(200);
    mpf_lnvc *l = mpf_lnvc_at(m, mpf_id_slot(m->r, sid));
    mpf_lock_acquire(m, &l->rlock);
    uint32_t w = atomic_load(&l->line_head);
    mpf_unlock(m, &l->rlock);
    while (atomic_load(&mpf_waiter_at(m, w)->word) != MPF_W_ASLEEP)
        usleep(200);
    kill(head, SIGSTOP);
    send_digit(0);
    char b[8];
    CHECK_RC(mpf_message_try_receive(m, 6, mine, b, sizeof b), -MPF_EAGAIN);
    kill(head, SIGCONT);
    int st = 0;
    waitpid(head, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 10);
    CHECK(in_line() == 0);
    CHECK(waiter_slots_used() == 0);
    CHECK(asleep_count() == 0);
    MUST(mpf_finish(m));
    mpf_unlink(shm);
}

/* ---- more waiters than slots ---- */

#define NOVER 26 /* the table below has 2 * 2 + 16 = 20 slots */
static int over_got[NOVER];

static void *over_receiver(void *arg)
{
    int k = (int)(long)arg;
    char b[8];
    over_got[k] = mpf_message_receive(m, 0, rid[0], b, sizeof b) == 1 ? b[0] : -1;
    return NULL;
}

static void table_full(void)
{
    mpf_options o = {.max_lnvcs = 2, .max_processes = 2};
    MUST(mpf_init_ex(&m, &o));
    CHECK(m->r->n_waiters < NOVER);
    rid[0] = MUST(mpf_open_receive(m, 0, "full", MPF_FCFS));
    sid = MUST(mpf_open_send(m, 1, "full"));
    pthread_t th[NOVER];
    for (int k = 0; k < NOVER; k++)
        pthread_create(&th[k], NULL, over_receiver, (void *)(long)k);
    for (int i = 0; i < 2000 && in_line() < m->r->n_waiters; i++)
        usleep(1000); /* the table fills up */
    for (int k = 0; k < NOVER; k++) {
        char c = (char)('A' + k);
        MUST(mpf_message_send(m, 1, sid, &c, 1));
    }
    int seen[NOVER] = {0}, bad = 0;
    for (int k = 0; k < NOVER; k++) {
        pthread_join(th[k], NULL);
        int v = over_got[k] - 'A';
        if (v < 0 || v >= NOVER || seen[v]++)
            bad++;
    }
    printf("table full: %d receivers for %u slots, %d served wrongly\n", NOVER, m->r->n_waiters,
           bad);
    CHECK(bad == 0);
    CHECK(in_line() == 0);
    CHECK(waiter_slots_used() == 0);
    MUST(mpf_finish(m));
}

/* ---- MPD processes in line ---- */

static mpd_sem proc_done;
static int proc_nvp;

static void proc_receiver(void *arg)
{
    int k = (int)(intptr_t)arg;
    memset(got[k], 0, sizeof got[k]);
    rc[k] = mpf_message_receive(m, k, rid[k], got[k], sizeof got[k] - 1);
    mpd_sem_V(&proc_done);
}

static void *thread_sends(void *arg)
{
    (void)arg;
    for (int k = 0; k < NR; k++)
        send_digit(k);
    return NULL;
}

static void procs_body(void *arg)
{
    (void)arg;
    alarm(60); /* a lost wakeup ends the child with SIGALRM */
    mpd_rt_set_exit_status(1);
    mpd_sem_init(&proc_done, 0);
    MUST(mpf_init(&m, 4, 8));
    for (int k = 0; k < NR; k++)
        rid[k] = MUST(mpf_open_receive(m, k, "line", MPF_FCFS));
    sid = MUST(mpf_open_send(m, 7, "line"));
    int misordered = 0;
    for (int round = 0; round < 20; round++) {
        uint32_t base = joined();
        for (int k = 0; k < NR; k++) {
            mpd_proc_create(proc_receiver, (void *)(intptr_t)k, NULL);
            while (joined() - base != (uint32_t)k + 1)
                mpd_yield();
        }
        pthread_t t;
        pthread_create(&t, NULL, thread_sends, NULL);
        for (int k = 0; k < NR; k++)
            mpd_sem_P(&proc_done);
        pthread_join(t, NULL);
        for (int k = 0; k < NR; k++) {
            CHECK_RC(rc[k], 1);
            if (got[k][0] != '0' + k)
                misordered++;
        }
    }
    CHECK(misordered == 0);
    CHECK(in_line() == 0 && waiter_slots_used() == 0 && asleep_count() == 0);
    MUST(mpf_finish(m));
    printf("MPD processes on %d VP(s): 20 rounds of %d: %d served out of arrival order\n", proc_nvp,
           NR, misordered);
    mpd_rt_set_exit_status(mpf_check_failures ? 1 : 0);
}

static void mpd_processes_in_order(void)
{
    for (proc_nvp = 1; proc_nvp <= 2; proc_nvp++) {
        fflush(NULL);
        pid_t p = fork();
        if (p == 0) {
            mpd_rt_set_nvp(proc_nvp);
            char *argv[] = {(char *)"fcfs_order", NULL};
            _exit(mpd_rt_main(1, argv, procs_body, NULL));
        }
        int st = 0;
        waitpid(p, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr, "MPD processes on %d VP(s) failed (%s %d)\n", proc_nvp,
                    WIFSIGNALED(st) ? "signal" : "status",
                    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            mpf_check_failures++;
        }
    }
}

/* ---- MPD processes parked on an MPF_WAIT_LWP instance ---- */

/* 7. MPD processes on an MPF_WAIT_LWP instance, 1 and 2 VPs: 50 rounds of NR
 *    receives parking one after the other, then NR messages from a process,
 *    alternately long (queued: every parked receive used to be woken and, with
 *    2 VPs, all 200 were served out of order) and short (handed over to a
 *    parked receive): process k gets message k. */
enum { LWP_LONG = 300 }; /* longer than a header's inline area: queued, never handed over */
static char lwp_got[NR][LWP_LONG];

static uint32_t parked_count(void)
{
    return atomic_load(&mpf_lnvc_at(m, mpf_id_slot(m->r, sid))->parked);
}

static void lwp_receiver(void *arg)
{
    int k = (int)(intptr_t)arg;
    rc[k] = mpf_message_receive(m, k, rid[k], lwp_got[k], sizeof lwp_got[k]);
    mpd_sem_V(&proc_done);
}

static void lwp_body(void *arg)
{
    (void)arg;
    alarm(60);
    mpd_rt_set_exit_status(1);
    mpd_sem_init(&proc_done, 0);
    mpf_options o = {.wait = MPF_WAIT_LWP, .max_lnvcs = 4, .max_processes = 8};
    MUST(mpf_init_ex(&m, &o));
    for (int k = 0; k < NR; k++)
        rid[k] = MUST(mpf_open_receive(m, k, "lwpline", MPF_FCFS));
    sid = MUST(mpf_open_send(m, 7, "lwpline"));
    int misordered = 0;
    char msg[LWP_LONG];
    for (int round = 0; round < 50; round++) {
        for (int k = 0; k < NR; k++) { /* receiver k parks k-th */
            mpd_proc_create(lwp_receiver, (void *)(intptr_t)k, NULL);
            while (parked_count() != (uint32_t)k + 1)
                mpd_yield();
        }
        size_t len = round % 2 ? 8 : sizeof msg; /* short: handed to a parked receive */
        for (int k = 0; k < NR; k++) {
            memset(msg, '0' + k, len);
            MUST(mpf_message_send(m, 7, sid, msg, len));
        }
        for (int k = 0; k < NR; k++)
            mpd_sem_P(&proc_done);
        for (int k = 0; k < NR; k++) {
            CHECK_RC(rc[k], round % 2 ? 8 : LWP_LONG);
            if (lwp_got[k][0] != '0' + k && misordered++ == 0)
                printf("round %d: receiver %d got message %c\n", round, k, lwp_got[k][0]);
        }
    }
    CHECK(misordered == 0);
    CHECK(parked_count() == 0);
    MUST(mpf_finish(m));
    printf("MPF_WAIT_LWP on %d VP(s): 50 rounds of %d: %d served out of arrival order\n", proc_nvp,
           NR, misordered);
    mpd_rt_set_exit_status(mpf_check_failures ? 1 : 0);
}

static void lwp_processes_in_order(void)
{
    for (proc_nvp = 1; proc_nvp <= 2; proc_nvp++) {
        fflush(NULL);
        pid_t p = fork();
        if (p == 0) {
            mpd_rt_set_nvp(proc_nvp);
            char *argv[] = {(char *)"fcfs_order", NULL};
            _exit(mpd_rt_main(1, argv, lwp_body, NULL));
        }
        int st = 0;
        waitpid(p, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr, "MPF_WAIT_LWP on %d VP(s) failed (%s %d)\n", proc_nvp,
                    WIFSIGNALED(st) ? "signal" : "status",
                    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            mpf_check_failures++;
        }
    }
}

int main(void)
{
    threads_in_order();
    processes_with_a_death();
    table_full();
    mpd_processes_in_order();
    lwp_processes_in_order();
    if (mpf_check_failures) {
        fprintf(stderr, "%d check(s) failed\n", mpf_check_failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
