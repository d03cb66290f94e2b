/* builtin_math.c: MPD's math functions whose meaning differs from plain C
 * (optional bases, round-half-even), random/seed and age(). */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include "mpd/io.h"

double mpd_log(double x) { return log(x); }
double mpd_logb(double x, double b) { return log(x) / log(b); }
double mpd_expb(double x, double b) { return pow(b, x); }
double mpd_atan2(double x, double y) { return atan2(x, y); }

/* Halfway cases go to the even neighbour (the default IEEE rounding mode). */
double mpd_round(double x) { return nearbyint(x); }

/* ---- random numbers: xoshiro256** seeded by splitmix64, one stream shared
 * by all processes (MPD had one generator per program) ---- */
static pthread_mutex_t rng_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t rng[4];
static int rng_seeded;

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void seed_bits(uint64_t s)
{
    for (int i = 0; i < 4; i++)
        rng[i] = splitmix(&s);
    rng_seeded = 1;
}

static uint64_t unpredictable(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
           ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&ts;
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t next_bits(void)
{
    uint64_t r = rotl(rng[1] * 5, 7) * 9, t = rng[1] << 17;
    rng[2] ^= rng[0];
    rng[3] ^= rng[1];
    rng[1] ^= rng[2];
    rng[0] ^= rng[3];
    rng[2] ^= t;
    rng[3] = rotl(rng[3], 45);
    return r;
}

void mpd_seed(double x)
{
    union { double d; uint64_t u; } v = { x };
    pthread_mutex_lock(&rng_lock);
    seed_bits(x == 0 ? unpredictable() : v.u);
    pthread_mutex_unlock(&rng_lock);
}

double mpd_random(void)
{
    pthread_mutex_lock(&rng_lock);
    if (!rng_seeded)
        seed_bits(unpredictable());
    uint64_t b = next_bits();
    pthread_mutex_unlock(&rng_lock);
    return (double)(b >> 11) * 0x1.0p-53;     /* 53 random bits in [0, 1) */
}

double mpd_random_ub(double ub) { return mpd_random() * ub; }
double mpd_random_range(double lb, double ub) { return lb + mpd_random() * (ub - lb); }

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
