/* limits_test.c: stack overflow, too many processes and bad settings end the
 * program with a clear message and exit status 1. */
#include <errno.h>
#include <sys/mman.h>
#include "harness.h"

static volatile int sink;
static int deep(int n)
{
    volatile char pad[512];
    pad[0] = (char)n;
    if (n < 0)
        return 0;
    sink = pad[0];
    return deep(n + 1) + pad[0];
}
static void overflow_proc(void *a)
{
    (void)a;
    sink = deep(0);
}
__attribute__((unused)) static void body_overflow(void *arg)
{
    (void)arg;
    printf("start\n");
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.name = "res.deep";
    at.stack_size = 64 * 1024;
    mpd_proc_create(overflow_proc, NULL, &at);
}

static mpd_sem never;
static void sleeper(void *a)
{
    (void)a;
    mpd_sem_P(&never);
}
static void body_many(void *arg)
{
    (void)arg;
    mpd_sem_init(&never, 0);
    for (int i = 0; i < 100; i++)
        mpd_proc_create(sleeper, NULL, NULL);
}

/* Exactly MPD_MAX_PROCS processes besides main: the main process does not
 * count, on any number of VPs. */
static mpd_sem exact_go;
static void exact_proc(void *a)
{
    (void)a;
    mpd_sem_P(&exact_go);
}
static void body_exact(void *arg)
{
    long n = (long)(intptr_t)arg;
    mpd_sem_init(&exact_go, 0);
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.detached = 1;
    for (long i = 0; i < n; i++)
        mpd_proc_create(exact_proc, NULL, &at);
    printf("made %ld\n", n);
    for (long i = 0; i < n; i++)
        mpd_sem_V(&exact_go);
}

static void body_nvp(void *arg)
{
    (void)arg;
    printf("nvp %d\n", mpd_nvp());
}

/* A stack that cannot be mapped: a clear message, not a crash. */
__attribute__((unused)) static void body_nomem(void *arg)
{
    (void)arg;
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.name = "res.big";
    at.stack_size = (size_t)1 << 60; /* more than any address space */
    mpd_proc_create(overflow_proc, NULL, &at);
    printf("not reached\n");
}

/* More live processes than half of vm.max_map_count: with mprotect'ed
 * guard pages (two kernel mappings per stack) that is past the kernel's
 * limit and must be a clear error; with Linux 6.13 guard regions it works. */
static mpd_sem live_go, live_done;
static void live_proc(void *a)
{
    (void)a;
    mpd_sem_P(&live_go);
    mpd_sem_V(&live_done);
}
__attribute__((unused)) static void body_live(void *arg)
{
    long n = (long)(intptr_t)arg;
    mpd_sem_init(&live_go, 0);
    mpd_sem_init(&live_done, 0);
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.name = "res.many";
    at.stack_size = 16384;
    at.detached = 1;
    for (long i = 0; i < n; i++) /* one VP: all exist before any runs */
        mpd_proc_create(live_proc, NULL, &at);
    for (long i = 0; i < n; i++)
        mpd_sem_V(&live_go);
    for (long i = 0; i < n; i++)
        mpd_sem_P(&live_done);
    printf("live %ld\n", n);
}

__attribute__((unused)) static long read_max_map_count(void)
{
    long lim = 0;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &lim) != 1)
            lim = 0;
        fclose(f);
    }
    return lim;
}

/* Does the kernel install guard regions (and not just accept the advice)? */
__attribute__((unused)) static int have_guard_regions(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    char *g = mmap(NULL, (size_t)ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int fd[2], ok = 0;
    if (g != MAP_FAILED && madvise(g, (size_t)ps, 102 /* MADV_GUARD_INSTALL */) == 0 &&
        pipe(fd) == 0) {
        ok = write(fd[1], g, 1) < 0 && errno == EFAULT;
        close(fd[0]);
        close(fd[1]);
    }
    if (g != MAP_FAILED)
        munmap(g, (size_t)ps);
    return ok;
}

static void check_env_error(const char *var, const char *val, const char *msg)
{
    char *out;
    setenv(var, val, 1);
    int rc = run_child(body_many, NULL, 0, &out); /* 0: VPs from the environment */
    CHECK_EQ(rc, 1);
    CHECK(strstr(out, msg) != NULL);
    if (!strstr(out, msg))
        fprintf(stderr, "%s=%s gave:\n%s\n", var, val, out);
    free(out);
    unsetenv(var);
}

/* With the environment as set: the program starts, reports `want`, exits 0. */
static void check_nvp_runs(const char *want)
{
    char *out;
    int rc = run_child(body_nvp, NULL, 0, &out); /* 0: VPs from the environment */
    CHECK_EQ(rc, 0);
    CHECK(strstr(out, want) != NULL);
    free(out);
}

int main(void)
{
    char *out;
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    int rc = run_child(body_overflow, NULL, 1, &out);
    CHECK_EQ(rc, 1);
    CHECK(strstr(out, "start\n") == out);
    CHECK(strstr(out, "RTS abort: stack overflow in process res.deep") != NULL);
    if (t_failures)
        fprintf(stderr, "got:\n%s", out);
    free(out);
    rc = run_child(body_overflow, NULL, 2, &out);
    CHECK_EQ(rc, 1);
    CHECK(strstr(out, "stack overflow in process res.deep") != NULL);
    free(out);
#endif
    setenv("MPD_MAX_PROCS", "50", 1);
    int rc2 = run_child(body_many, NULL, 1, &out);
    CHECK_EQ(rc2, 1);
    CHECK(strstr(out, "RTS abort: too many processes") != NULL);
    free(out);
    for (int nvp = 1; nvp <= 2; nvp++) {
        rc2 = run_child(body_exact, (void *)(intptr_t)50, nvp, &out);
        CHECK_EQ(rc2, 0);
        CHECK(strstr(out, "made 50\n") != NULL);
        free(out);
        rc2 = run_child(body_exact, (void *)(intptr_t)51, nvp, &out);
        CHECK_EQ(rc2, 1);
        CHECK(strstr(out, "RTS abort: too many processes") != NULL);
        free(out);
    }
    unsetenv("MPD_MAX_PROCS");

    check_env_error("MPD_PARALLEL", "zero",
                    "RTS abort: bad MPD_PARALLEL=\"zero\": expected a number from 0 to");
    check_env_error("MPD_PARALLEL", "-1", "bad MPD_PARALLEL=\"-1\"");
    setenv("MPD_PARALLEL", "0", 1); /* 0 is the default: one VP */
    check_nvp_runs("nvp 1\n");
    unsetenv("MPD_PARALLEL");
    check_env_error("MPD_SCHED", "lottery",
                    "bad MPD_SCHED=\"lottery\": expected fifo, prio or steal");
    check_env_error("MPD_STACK_SIZE", "12", "bad MPD_STACK_SIZE=\"12\"");
    check_env_error("MPD_SLICE", "-3", "bad MPD_SLICE=\"-3\"");
    check_env_error("MPD_IDLE_SPIN", "-1", "bad MPD_IDLE_SPIN=\"-1\": expected a number from 0 to");
    check_env_error("MPD_IDLE_SPIN", "often", "bad MPD_IDLE_SPIN=\"often\"");
    setenv("MPD_PARALLEL", "3", 1); /* idle VPs that never spin still start and stop */
    setenv("MPD_IDLE_SPIN", "0", 1);
    check_nvp_runs("nvp 3\n");
    unsetenv("MPD_IDLE_SPIN");
    unsetenv("MPD_PARALLEL");
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    rc2 = run_child(body_nomem, NULL, 1, &out);
    CHECK_EQ(rc2, 1);
    CHECK(strstr(out, "RTS abort: out of memory: cannot map a 1152921504606846976-byte stack for "
                      "process res.big") != NULL);
    if (rc2 != 1)
        fprintf(stderr, "nomem gave:\n%s\n", out);
    free(out);
#endif
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    long lim = read_max_map_count();
    if (lim > 0 && lim <= 300000) {
        long n = lim / 2 + 1000;
        char want[64];
        snprintf(want, sizeof want, "live %ld\n", n);
        rc2 = run_child(body_live, (void *)(intptr_t)n, 1, &out);
        if (have_guard_regions()) {
            CHECK_EQ(rc2, 0);
            CHECK(strstr(out, want) != NULL);
        } else {
            CHECK_EQ(rc2, 1);
            CHECK(strstr(out, "RTS abort: out of memory: cannot ") != NULL);
            CHECK(strstr(out, "stack for process res.many") != NULL);
            CHECK(strstr(out, "vm.max_map_count") != NULL);
        }
        if (t_failures)
            fprintf(stderr, "%ld live processes (max_map_count %ld) gave %d:\n%.2000s\n", n, lim,
                    rc2, out);
        free(out);
    }
#endif
    return t_done("limits_test");
}
