/* mpf_check.h: tiny assertion helpers shared by the MPF test programs. */
#ifndef MPF_CHECK_H
#define MPF_CHECK_H
#include <stdio.h>
#include <stdlib.h>

#include "mpd/mpf.h"

static int mpf_check_failures;

/* CHECK(cond): report and count a failure, keep going. */
#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                  \
            mpf_check_failures++;                                                                  \
        }                                                                                          \
    } while (0)

/* CHECK_RC(expr, want): an MPF call returns exactly `want`. */
#define CHECK_RC(e, want)                                                                          \
    do {                                                                                           \
        long long got_ = (long long)(e), want_ = (long long)(want);                                \
        if (got_ != want_) {                                                                       \
            fprintf(stderr, "%s:%d: %s returned %lld (%s), wanted %lld (%s)\n", __FILE__,          \
                    __LINE__, #e, got_, got_ < 0 ? mpf_strerror((int)got_) : "ok", want_,          \
                    want_ < 0 ? mpf_strerror((int)want_) : "ok");                                  \
            mpf_check_failures++;                                                                  \
        }                                                                                          \
    } while (0)

/* MUST(expr): an MPF call that must succeed (>= 0); aborts the test otherwise. */
#define MUST(e)                                                                                    \
    ({                                                                                             \
        long long r_ = (long long)(e);                                                             \
        if (r_ < 0) {                                                                              \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #e,                      \
                    mpf_strerror((int)r_));                                                        \
            exit(2);                                                                               \
        }                                                                                          \
        r_;                                                                                        \
    })

static inline int check_done(const char *name)
{
    if (mpf_check_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, mpf_check_failures);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}
#endif
