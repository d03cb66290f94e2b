/* builtin_math.c: MPD's math functions whose meaning differs from plain C
 * (optional bases, round-half-even) and age().  random/seed: random.c. */
#include <math.h>
#include <time.h>
#include "mpd/abi/io.h"

double mpd_log(double x)
{
    return log(x);
}
double mpd_logb(double x, double b)
{
    return log(x) / log(b);
}
double mpd_expb(double x, double b)
{
    return pow(b, x);
}
double mpd_atan2(double x, double y)
{
    return atan2(x, y);
}

/* Halfway cases go to the even neighbour (the default IEEE rounding mode).
 * A zero result is +0, as SR 2.3.3's and MPD 1.0.1's floor(x + 0.5) gives
 * (round(-0.2) prints 0.00000, not -0.00000). */
double mpd_round(double x)
{
    return nearbyint(x) + 0.0;
}

/* ---- age(): milliseconds since the program started ---- */
static struct timespec start_time;

__attribute__((constructor)) static void age_init(void)
{
    clock_gettime(CLOCK_MONOTONIC, &start_time);
}

long long mpd_age(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)(now.tv_sec - start_time.tv_sec) * 1000 +
           (now.tv_nsec - start_time.tv_nsec) / 1000000;
}
