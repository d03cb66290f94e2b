/* random.c: random/seed give MPD 1.0.1's numbers (values printed by the
 * original with %.17g), and the one shared generator loses no draw when
 * several threads use it at once. */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include "mpd/abi/io.h"
#include "check.h"

/* Bit-exact where long double is the x87 format MPD's i386 build computed
 * in; within a few ulps elsewhere (quad long double rounds differently). */
static void check_val(int line, double got, double want)
{
#if LDBL_MANT_DIG == 64
    int ok = got == want;
#else
    int ok = fabs(got - want) <= 4 * DBL_EPSILON * fabs(want);
#endif
    if (!ok) {
        failures++;
        fprintf(stderr, "random.c:%d: got %.17g, want %.17g\n", line, got, want);
    }
}
#define CHECK_VAL(got, want) check_val(__LINE__, (got), (want))

static void known_values(void)
{
    mpd_seed(42); /* the suite's quick/jumble */
    CHECK_VAL(mpd_random_ub(10), 1.4709184700000002);
    CHECK_VAL(mpd_random_ub(22), 8.1707283240000006);
    CHECK_VAL(mpd_random_ub(34), 2.3894792680000001);
    CHECK_VAL(mpd_random_ub(46), 12.353647990000001);
    CHECK_VAL(mpd_random_range(89.7, 90.5), 89.935972571199997);

    /* fractional seeds use 1/x truncated, computed in extended precision
     * (1/0.001 is 999.99..., so 999); negative seeds their magnitude;
     * seeds out of int's range all become INT_MIN */
    static const struct {
        double seed, first;
    } firsts[] = {
        {0.001, 0.31497181200000002}, {999, 0.31497181200000002},  {-0.3, 0.93335379200000002},
        {1e10, 0.40235279700000004},  {-3e9, 0.40235279700000004}, {1e-12, 0.40235279700000004},
        {-7, 0.083480772000000009},   {2.5, 0.64582204700000001},  {0.5, 0.64582204700000001},
    };
    for (size_t k = 0; k < sizeof firsts / sizeof *firsts; k++) {
        mpd_seed(firsts[k].seed);
        CHECK_VAL(mpd_random(), firsts[k].first);
    }
    mpd_seed(-42);
    CHECK_VAL(mpd_random_ub(10), 1.4709184700000002);

    mpd_seed(3);
    for (int k = 0; k < 999; k++)
        (void)mpd_random();
    CHECK_VAL(mpd_random_range(-5, 7.25), -4.9575559550000001);

    /* hi < lo is allowed and just scales the other way */
    mpd_seed(42);
    double a = mpd_random_range(1.1, 0.3);
    CHECK(a > 0.3 && a <= 1.1);

    /* seed(0) is irreproducible: two calls give different streams */
    mpd_seed(0);
    double z = mpd_random();
    mpd_seed(0);
    CHECK(z != mpd_random());
}

/* Several threads draw at once; together they must get exactly the values
 * one thread gets alone after the same seed (none lost, none repeated). */
enum { THREADS = 4, PER_THREAD = 20000 };
static double drawn[THREADS][PER_THREAD];

static void *drawer(void *arg)
{
    double *out = arg;
    for (int k = 0; k < PER_THREAD; k++)
        out[k] = mpd_random();
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void shared_by_threads(void)
{
    static double alone[THREADS * PER_THREAD];
    mpd_seed(7);
    for (int k = 0; k < THREADS * PER_THREAD; k++)
        alone[k] = mpd_random();
    mpd_seed(7);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, drawer, drawn[i]);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    qsort(alone, THREADS * PER_THREAD, sizeof(double), cmp_double);
    qsort(drawn, THREADS * PER_THREAD, sizeof(double), cmp_double);
    CHECK(memcmp(alone, drawn, sizeof alone) == 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    known_values();
    shared_by_threads();
    return report("random");
}
