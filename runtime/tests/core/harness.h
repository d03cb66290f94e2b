/* harness.h: helpers for runtime tests -- checks, and running a runtime in a child. */
#ifndef MPD_TEST_HARNESS_H
#define MPD_TEST_HARNESS_H
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mpd/rt.h"

static int t_failures;
#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);                  \
            t_failures++;                                                                          \
        }                                                                                          \
    } while (0)
#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        long long _a = (long long)(a), _b = (long long)(b);                                        \
        if (_a != _b) {                                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", __FILE__, __LINE__,  \
                    #a, #b, _a, _b);                                                               \
            t_failures++;                                                                          \
        }                                                                                          \
    } while (0)

/* n divided by $MPD_TEST_DIV (default 1): slow builds (sanitizers, qemu)
 * run the long loops shorter. */
__attribute__((unused)) static long t_scaled(long n)
{
    const char *e = getenv("MPD_TEST_DIV");
    long d = e ? atol(e) : 1;
    return d > 1 ? (n / d > 0 ? n / d : 1) : n;
}

/* Runs body(arg) as the main process of a fresh runtime with nvp VPs in a
 * child process.  Returns the child's exit status (256+sig if killed); its
 * stdout+stderr go to *out (malloc'd, may be NULL). */
__attribute__((unused)) static int run_child(void (*body)(void *), void *arg, int nvp, char **out)
{
    char path[] = "/tmp/mpdrt-test-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        exit(2);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        mpd_rt_set_nvp(nvp);
        char *argv[] = {(char *)"child", NULL};
        int rc = mpd_rt_main(1, argv, body, arg);
        fflush(NULL);
        _exit(rc);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (out) {
        FILE *f = fopen(path, "r");
        size_t cap = 1 << 16, n = 0;
        char *b = malloc(cap);
        size_t k;
        while (f && (k = fread(b + n, 1, cap - n - 1, f)) > 0) {
            n += k;
            if (n + 1 == cap)
                b = realloc(b, cap *= 2);
        }
        b[n] = 0;
        if (f)
            fclose(f);
        *out = b;
    }
    close(fd);
    unlink(path);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 256 + WTERMSIG(st);
}

/* Runs body in a fresh runtime once per round, each in a child (see
 * run_child), with nvp_of(round) VPs; a round that does not exit 0 is a
 * failed check, reported with its output (SIGALRM: the body's alarm went
 * off, i.e. it hung: `hung` says what that means). */
__attribute__((unused)) static void t_run_rounds(void (*body)(void *), int rounds,
                                                 int (*nvp_of)(int), const char *hung)
{
    for (int r = 0; r < rounds; r++) {
        char *out = NULL;
        int nvp = nvp_of(r);
        int rc = run_child(body, NULL, nvp, &out);
        if (rc != 0)
            fprintf(stderr, "round %d (%d VPs): status %d%s%s\n%s", r, nvp, rc,
                    rc == 256 + SIGALRM ? " " : "", rc == 256 + SIGALRM ? hung : "",
                    out ? out : "");
        CHECK_EQ(rc, 0);
        free(out);
    }
}

__attribute__((unused)) static int t_done(const char *name)
{
    if (t_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, t_failures);
    else
        printf("%s: ok\n", name);
    return t_failures != 0;
}
#endif
