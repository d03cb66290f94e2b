/* optest.h: helpers for the operations-layer tests -- checks, event logs, running a scenario on 1 and N VPs, expected runtime errors. */
#ifndef OPTEST_H
#define OPTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "mpd/rt.h"
#include "mpd/abi/ops.h"

static int t_fail;
#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                  \
            t_fail++;                                                                              \
        }                                                                                          \
    } while (0)
#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        long _a = (long)(a), _b = (long)(b);                                                       \
        if (_a != _b) {                                                                            \
            fprintf(stderr, "%s:%d: %s == %ld, expected %ld\n", __FILE__, __LINE__, #a, _a, _b);   \
            t_fail++;                                                                              \
        }                                                                                          \
    } while (0)

/* An event log shared by processes (any VP). */
static mpd_spinlock t_loglk = MPD_SPINLOCK_INIT;
static long t_log[4096];
static int t_nlog;
static inline void logv(long v)
{
    mpd_spin_lock(&t_loglk);
    if (t_nlog < 4096)
        t_log[t_nlog++] = v;
    mpd_spin_unlock(&t_loglk);
}
static inline void log_reset(void)
{
    mpd_spin_lock(&t_loglk);
    t_nlog = 0;
    mpd_spin_unlock(&t_loglk);
}
static inline int log_count(void)
{
    mpd_spin_lock(&t_loglk);
    int n = t_nlog;
    mpd_spin_unlock(&t_loglk);
    return n;
}
/* The log equals the n values given. */
static inline int log_is(const long *want, int n)
{
    mpd_spin_lock(&t_loglk);
    int ok = t_nlog == n;
    for (int i = 0; ok && i < n; i++)
        ok = t_log[i] == want[i];
    if (!ok) {
        fprintf(stderr, "log:");
        for (int i = 0; i < t_nlog; i++)
            fprintf(stderr, " %ld", t_log[i]);
        fprintf(stderr, "\nwant:");
        for (int i = 0; i < n; i++)
            fprintf(stderr, " %ld", want[i]);
        fprintf(stderr, "\n");
    }
    mpd_spin_unlock(&t_loglk);
    return ok;
}
#define LOG_IS(...)                                                                                \
    do {                                                                                           \
        long _w[] = {__VA_ARGS__};                                                                 \
        CHECK(log_is(_w, (int)(sizeof _w / sizeof _w[0])));                                        \
    } while (0)
/* Sum / count of the log. */
static inline long log_sum(void)
{
    mpd_spin_lock(&t_loglk);
    long s = 0;
    for (int i = 0; i < t_nlog; i++)
        s += t_log[i];
    mpd_spin_unlock(&t_loglk);
    return s;
}

/* Runs scenario(NULL) as the first process of a fresh runtime with nvp
 * virtual processors, in a child process; returns its exit status. */
static inline int t_run_child(void (*scenario)(void *), int nvp)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        mpd_rt_set_nvp(nvp);
        int st = mpd_rt_main(0, NULL, scenario, NULL);
        fflush(NULL);
        _exit(t_fail ? 1 : st);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Runs scenario on 1 VP and on 3 VPs; both must exit 0. */
static inline int t_run_both(const char *name, void (*scenario)(void *))
{
    int bad = 0;
    for (int nvp = 1; nvp <= 3; nvp += 2) {
        int st = t_run_child(scenario, nvp);
        printf("%s (%d VP): %s\n", name, nvp, st ? "FAIL" : "ok");
        bad += st != 0;
    }
    return bad;
}

/* Runs scenario on 1 VP with stderr captured; checks the exit status and
 * that stderr contains want. */
static inline int t_expect_err(const char *name, void (*scenario)(void *), int want_status,
                               const char *want)
{
    char path[] = "/tmp/optestXXXXXX";
    int fd = mkstemp(path);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd, 2);
        int st = mpd_rt_main(0, NULL, scenario, NULL);
        fflush(NULL);
        _exit(st);
    }
    int status;
    waitpid(pid, &status, 0);
    char buf[4096] = "";
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    close(fd);
    unlink(path);
    int st = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    int ok = st == want_status && strstr(buf, want);
    printf("%s: %s\n", name, ok ? "ok" : "FAIL");
    if (!ok)
        fprintf(stderr, "  status %d (want %d), stderr:\n%s  want: %s\n", st, want_status, buf,
                want);
    return !ok;
}

#endif
