/* time_io_test.c: nap blocks only its caller and wakes in deadline order;
 * age() advances; a blocking call (read on a pipe) lets others run; idle
 * VPs sleep in the kernel instead of spinning. */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include "harness.h"

static char order[16];
static atomic_int olen;
static mpd_sem done;
static int64_t due[8]; /* each napper's deadline, by ms / 10 */

static void napper(void *a)
{
    long ms = (long)(intptr_t)a;
    due[ms / 10] = mpd_now_ns() + ms * 1000000;
    mpd_nap(ms);
    order[atomic_fetch_add(&olen, 1)] = (char)('0' + ms / 10);
    mpd_sem_V(&done);
}

/* The wake order is the deadline order.  Usually "12345"; on a loaded
 * machine the nappers may start more than 10 ms apart and the deadlines
 * then differ from the naps' order. */
static int in_deadline_order(void)
{
    for (int i = 1; i < 5; i++)
        if (due[order[i - 1] - '0'] > due[order[i] - '0'])
            return 0;
    return 1;
}

static int pfd[2];
static intptr_t do_read(void *buf)
{
    return read(pfd[0], buf, 5);
}
static intptr_t do_fail(void *a)
{
    (void)a;
    errno = EBADF;
    return -1;
}
static volatile int others_ran;
static void other(void *a)
{
    (void)a;
    for (int i = 0; i < 5; i++) {
        mpd_nap(5);
        others_ran++;
    }
    if (write(pfd[1], "hello", 5) != 5)
        abort();
}

static void body(void *arg)
{
    (void)arg;
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    mpd_sem_init(&done, 0);
    long t0 = mpd_rt_age_ms();
    int ms[] = {50, 10, 30, 20, 40};
    for (int i = 0; i < 5; i++)
        mpd_proc_create(napper, (void *)(intptr_t)ms[i], &at);
    for (int i = 0; i < 5; i++)
        mpd_sem_P(&done);
    long dt = mpd_rt_age_ms() - t0;
    CHECK_EQ(atomic_load(&olen), 5);
    if (mpd_nvp() == 1) /* several VPs may run two due nappers at once */
        CHECK(in_deadline_order());
    CHECK(dt >= 50);
    CHECK(dt < 5000);

    /* the reader waits on a helper thread while `other` keeps running */
    CHECK(pipe(pfd) == 0);
    mpd_proc_create(other, NULL, &at);
    char buf[8] = {0};
    intptr_t n = mpd_blocking_call(do_read, buf, NULL);
    CHECK_EQ(n, 5);
    CHECK(!memcmp(buf, "hello", 5));
    CHECK_EQ(others_ran, 5);
    int err = 0;
    CHECK_EQ(mpd_blocking_call(do_fail, NULL, &err), -1);
    CHECK_EQ(err, EBADF);
    mpd_rt_set_exit_status(t_failures ? 3 : 0);
}

/* Several VPs: a process naps while another's timer is overdue (both VPs
 * were busy, nobody fired it).  nap used to hold the timer lock across the
 * switch, and picking the next process fires due timers under that lock:
 * the VP deadlocked on itself. */
static atomic_int b_running;
static void overdue_napper(void *a)
{
    (void)a;
    mpd_nap(1);
}
static void busy_ms(void *a)
{
    atomic_store(&b_running, 1);
    int64_t end = mpd_now_ns() + (long)(intptr_t)a * 1000000;
    while (mpd_now_ns() < end)
        ;
}
static void body_overdue(void *arg)
{
    (void)arg;
    alarm(20); /* a hang fails the test */
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    for (int round = 0; round < 3; round++) {
        atomic_store(&b_running, 0);
        mpd_proc_create(busy_ms, (void *)(intptr_t)40, &at); /* the other VP: busy */
        while (!atomic_load(&b_running))
            ;
        mpd_proc_create(overdue_napper, NULL, &at);
        mpd_yield();                   /* it runs here and naps 1 ms */
        busy_ms((void *)(intptr_t)20); /* ... which passes unnoticed */
        mpd_nap(1);
    }
    mpd_rt_set_exit_status(t_failures ? 3 : 0);
}

static int64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* While the only process naps 500 ms, all 4 VPs are idle.  Spinning VPs
 * would burn 2 s of CPU (at least ~250 ms even on a machine loaded 8x);
 * VPs asleep on the futex use a few ms in all (each spins ~10-50 us first). */
static void body_idle(void *arg)
{
    (void)arg;
    mpd_nap(20); /* let the VPs settle */
    int64_t c0 = cpu_ns(), w0 = mpd_now_ns();
    mpd_nap(500);
    int64_t cpu = cpu_ns() - c0, wall = mpd_now_ns() - w0;
    CHECK(wall >= 500000000);
    CHECK(cpu < 60000000);
    if (cpu >= 60000000)
        fprintf(stderr, "idle VPs used %lld ms of CPU in %lld ms\n", (long long)(cpu / 1000000),
                (long long)(wall / 1000000));
    mpd_rt_set_exit_status(t_failures ? 3 : 0);
}

int main(void)
{
    {
        char *out;
        int rc = run_child(body_idle, NULL, 4, &out);
        if (rc)
            fprintf(stderr, "idle VPs: status %d, output:\n%s\n", rc, out);
        CHECK_EQ(rc, 0);
        free(out);
        rc = run_child(body_overdue, NULL, 2, &out);
        if (rc)
            fprintf(stderr,
                    "nap with an overdue timer: status %d (%d: killed by SIGALRM, a hang), "
                    "output:\n%s\n",
                    rc, 256 + SIGALRM, out);
        CHECK_EQ(rc, 0);
        free(out);
    }
    for (int nvp = 1; nvp <= 2; nvp++) {
        char *out;
        int rc = run_child(body, NULL, nvp, &out);
        if (rc)
            fprintf(stderr, "with %d VPs: status %d, output:\n%s\n", nvp, rc, out);
        CHECK_EQ(rc, 0);
        free(out);
    }
    return t_done("time_io_test");
}
