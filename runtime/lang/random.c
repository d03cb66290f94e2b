/* random.c: random() and seed(), giving the same numbers as MPD 1.0.1.
 *
 * Programs and the suite (quick/jumble) print sequences after seed(k), so the
 * generator is MPD's: Knuth's subtractive generator (Seminumerical
 * Algorithms, 2nd ed., 3.6), X[n] = (X[n-55] - X[n-24]) mod 10^9, seeded as
 * MPD seeds it.  Its facts are in docs/lang-runtime.md, "Random numbers".
 * One generator per program, shared by every process on every VP, behind a
 * spin lock (a draw is a few instructions; uncontended it costs one atomic
 * exchange). */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include "mpd/abi/io.h"
#include "mpd/rt.h"

enum {
    RAND_M = 1000000000, /* modulus */
    RAND_K = 55,         /* long lag */
    RAND_L = 24,         /* short lag */
    RAND_SPREAD = 21,    /* seeding stores at index 21*i mod 55 */
    RAND_WARMUP = 5 * RAND_K,
};

static struct {
    mpd_spinlock lock;
    int32_t x[RAND_K];
    int cur, lag; /* lag == (cur - RAND_L) mod RAND_K */
    int seeded;
    int32_t seed_calls; /* for seed(0): MPD mixes in how many seeds so far */
    int32_t pid, t0;    /* and the pid and time of the first one */
} rng;

/* double -> int as MPD's C did it on i386: a value out of int's range (or
 * NaN) becomes INT_MIN, the "integer indefinite" the FPU stores. */
static int32_t to_int32_i386(double d)
{
    if (!(d > -2147483649.0 && d < 2147483648.0))
        return INT32_MIN;
    return (int32_t)d;
}

static int32_t draw_locked(void)
{
    int32_t r = rng.x[rng.cur] - rng.x[rng.lag];
    if (r < 0)
        r += RAND_M;
    rng.x[rng.cur] = r;
    if (++rng.cur == RAND_K)
        rng.cur = 0;
    if (++rng.lag == RAND_K)
        rng.lag = 0;
    return r;
}

static void seed_locked(double x)
{
    int32_t s;
    if (++rng.seed_calls == 1) {
        rng.pid = (int32_t)getpid();
        rng.t0 = (int32_t)time(NULL);
    }
    if (x == 0) /* irreproducible; wraps as MPD's 32-bit int did */
        s = (int32_t)(997u * (uint32_t)rng.pid + (uint32_t)rng.t0 +
                      23347u * (uint32_t)rng.seed_calls);
    else if (x > -1 && x < 1)                        /* i386 divided in extended precision: */
        s = to_int32_i386((double)truncl(1.0L / x)); /* 1/0.001 -> 999 */
    else
        s = to_int32_i386(x);
    if (s < 0) /* INT_MIN stays INT_MIN, and the remainder below negative */
        s = (int32_t)(0u - (uint32_t)s);
    s %= RAND_M;

    int32_t j = s, k = 1;
    rng.x[0] = s;
    for (int i = 1; i < RAND_K; i++) {
        int idx = (RAND_SPREAD * i) % RAND_K;
        rng.x[idx] = k;
        k = j - k;
        if (k < 0)
            k += RAND_M;
        j = rng.x[idx];
    }
    rng.cur = 0;
    rng.lag = RAND_K - RAND_L;
    for (int i = 0; i < RAND_WARMUP; i++) /* early values are poor (Knuth) */
        (void)draw_locked();
    rng.seeded = 1;
}

void mpd_seed(double x)
{
    mpd_spin_lock(&rng.lock);
    seed_locked(x);
    mpd_spin_unlock(&rng.lock);
}

/* lo + (hi - lo) * r * 1e-9, in MPD's order and, like MPD's i386 build,
 * in extended precision (x87) with one rounding to double at the end: the
 * last bits of the value then agree too. */
static double draw(double lo, double hi)
{
    mpd_spin_lock(&rng.lock);
    if (!rng.seeded) /* MPD seeds with seed(0) at startup */
        seed_locked(0);
    int32_t r = draw_locked();
    mpd_spin_unlock(&rng.lock);
    const double scale = 1.0 / RAND_M;
    long double v = ((long double)hi - lo) * r * scale;
    return (double)(lo + v);
}

double mpd_random(void)
{
    return draw(0, 1);
}
double mpd_random_ub(double ub)
{
    return draw(0, ub);
}
double mpd_random_range(double lb, double ub)
{
    return draw(lb, ub);
}
