/* check.h: small helpers shared by the I/O tests — exact string checks and
 * running one case of the test program in a child whose stdout and stderr
 * go (merged, like 2>&1) into a pipe that the parent collects. */
#ifndef IO_TEST_CHECK_H
#define IO_TEST_CHECK_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mpd/abi/io.h"

static int failures;
int main(int argc, char **argv);

/* In a child whose fds 0-2 were just redirected: runs `self name` by exec,
 * or, where exec cannot work (qemu-user without binfmt), by calling main. */
static void run_child(const char *self, const char *name)
{
    execl(self, self, name, (char *)NULL);
    mpd_io_std_reset();
    char *args[] = {(char *)self, (char *)name, NULL};
    exit(main(2, args));
}

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_STR(got, want)                                                                       \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        if (strcmp(g_, w_) != 0) {                                                                 \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: got  [%s]\n%*s  want [%s]\n", __FILE__, __LINE__, g_,          \
                    (int)strlen(__FILE__) + 6, "", w_);                                            \
        }                                                                                          \
    } while (0)

#define CHECK_INT(got, want)                                                                       \
    do {                                                                                           \
        long long g_ = (got), w_ = (want);                                                         \
        if (g_ != w_) {                                                                            \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: got %lld, want %lld (%s)\n", __FILE__, __LINE__, g_, w_,       \
                    #got);                                                                         \
        }                                                                                          \
    } while (0)

/* Runs `self case` with `input` on stdin (through a pipe, or a regular temp
 * file when as_file) and stdout+stderr into one pipe.  Returns the exit
 * status; the output goes to out (NUL-terminated). */
__attribute__((unused)) static int run_case(const char *self, const char *name, const char *input,
                                            int as_file, char *out, size_t outsz)
{
    int op[2], ip[2] = {-1, -1};
    char tmpl[] = "/tmp/mpd-io-test-XXXXXX";
    int infd = -1;
    if (pipe(op) != 0)
        exit(2);
    if (as_file) {
        infd = mkstemp(tmpl);
        if (infd < 0 || write(infd, input, strlen(input)) != (ssize_t)strlen(input))
            exit(2);
        lseek(infd, 0, SEEK_SET);
        unlink(tmpl);
    } else if (pipe(ip) != 0) {
        exit(2);
    }
    fflush(NULL); /* a forked child must not repeat our output */
    pid_t pid = fork();
    if (pid == 0) {
        dup2(as_file ? infd : ip[0], 0);
        dup2(op[1], 1);
        dup2(op[1], 2);
        close(op[0]);
        if (!as_file)
            close(ip[1]);
        run_child(self, name);
    }
    close(op[1]);
    if (as_file) {
        close(infd);
    } else {
        close(ip[0]);
        size_t n = strlen(input);
        if (n && write(ip[1], input, n) != (ssize_t)n)
            exit(2);
        close(ip[1]);
    }
    size_t got = 0;
    ssize_t r;
    while (got + 1 < outsz && (r = read(op[0], out + got, outsz - 1 - got)) > 0)
        got += (size_t)r;
    out[got] = 0;
    close(op[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Like run_case, but stdout and stderr go to one regular file, as in the
 * suite's `a.out >>Errors.out 2>&1`. */
__attribute__((unused)) static int run_case_to_file(const char *self, const char *name, char *out,
                                                    size_t outsz)
{
    char tmpl[] = "/tmp/mpd-io-out-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0)
        exit(2);
    unlink(tmpl);
    fflush(NULL); /* a forked child must not repeat our output */
    pid_t pid = fork();
    if (pid == 0) {
        int nul = open("/dev/null", O_RDONLY);
        dup2(nul, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        run_child(self, name);
    }
    int st;
    waitpid(pid, &st, 0);
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, out, outsz - 1);
    out[n > 0 ? n : 0] = 0;
    close(fd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Checks that case `name` exits with `code` and prints exactly `want`. */
#define CHECK_CASE(self, name, input, as_file, code, want)                                         \
    do {                                                                                           \
        char o_[8192];                                                                             \
        int c_ = run_case((self), (name), (input), (as_file), o_, sizeof o_);                      \
        CHECK_INT(c_, (code));                                                                     \
        CHECK_STR(o_, (want));                                                                     \
    } while (0)

static int report(const char *what)
{
    if (failures)
        fprintf(stderr, "%s: %d check(s) failed\n", what, failures);
    else
        printf("%s: all checks passed\n", what);
    return failures != 0;
}

#endif
