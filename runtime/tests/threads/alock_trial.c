/* alock_trial: the default policy's trial (sync/adaptive_trial.c) on a
 * simulated clock: it keeps the choice that gets more acquisitions per
 * second, explores the other one epoch in `every`, switches only past its
 * margin, and is not fooled by a load that drifts. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "mpd/alock.h"
#include "sync/adaptive_impl.h"
#include "check.h"

static long now_ns = 1;
static long fake_clock(void)
{
    return now_ns;
}

enum { EPOCH = 1024, EVERY = 8 };

/* Run n epochs; an epoch with arm a lasts EPOCH / rate(a, k) ns, where k is
 * the epoch's number.  Returns how many epochs ran with arm 1. */
typedef double (*rate_fn)(int arm, int k);
static int run(alock_trial *t, unsigned long *acq, int n, rate_fn rate)
{
    int ones = 0;
    int arm = mpd_alock__trial(t, *acq, fake_clock, EPOCH, EVERY);
    for (int k = 0; k < n; k++) {
        ones += arm;
        now_ns += (long)(EPOCH / rate(arm, k));
        *acq += EPOCH;
        arm = mpd_alock__trial(t, *acq, fake_clock, EPOCH, EVERY);
    }
    return ones;
}

static double block_faster(int arm, int k)
{
    (void)k;
    return arm ? 1.2 : 1.0;
}
static double rules_faster(int arm, int k)
{
    (void)k;
    return arm ? 1.0 : 1.3;
}
/* both the same, within +-1% of noise */
static double same_noisy(int arm, int k)
{
    (void)arm;
    return 1.0 + 0.01 * sin(k * 2.3);
}
/* both the same, the machine getting 3x slower over 400 epochs, then faster */
static double drifting(int arm, int k)
{
    (void)arm;
    return k < 400 ? 1.0 - k / 600.0 : 0.34 + (k - 400) / 600.0;
}
/* block 5% faster on a drifting machine */
static double block_faster_drifting(int arm, int k)
{
    return drifting(arm, k) * (arm ? 1.05 : 1.0);
}

int main(void)
{
    alock_trial t;
    unsigned long acq = 0;

    /* starts with the rules' choice, exploring block one epoch in 8 */
    memset(&t, 0, sizeof t);
    int ones = run(&t, &acq, 16, rules_faster);
    CHECK_EQ_L(t.best, 0);
    CHECK_EQ_L(ones, 1); /* epoch 8 of 0..15 */

    /* blocking gets 20% more done: it becomes the choice, the rules' one explored 1 in 8 */
    ones = run(&t, &acq, 200, block_faster);
    CHECK_EQ_L(t.best, 1);
    CHECK(t.score > 0.1);
    ones = run(&t, &acq, 80, block_faster);
    CHECK_EQ_L(ones, 70);

    /* and back when the rules' choice is better again */
    run(&t, &acq, 200, rules_faster);
    CHECK_EQ_L(t.best, 0);
    CHECK(t.score < -0.1);

    /* noise within the margin never switches */
    memset(&t, 0, sizeof t);
    now_ns = 1;
    acq = 0;
    ones = run(&t, &acq, 800, same_noisy);
    CHECK_EQ_L(t.best, 0);
    CHECK_EQ_L(ones, 99); /* epochs 8, 16, ..., 792 */
    CHECK(fabs(t.score) < 0.03);

    /* a machine that gets 3x slower and recovers, the same for both choices:
     * adjacent epochs cancel the drift, no switch */
    memset(&t, 0, sizeof t);
    now_ns = 1;
    acq = 0;
    run(&t, &acq, 800, drifting);
    CHECK_EQ_L(t.best, 0);
    CHECK(fabs(t.score) < 0.03);

    /* but a 5% advantage on that drifting machine is found */
    memset(&t, 0, sizeof t);
    now_ns = 1;
    acq = 0;
    run(&t, &acq, 800, block_faster_drifting);
    CHECK_EQ_L(t.best, 1);

    /* every <= 1: no exploring, the kept choice only */
    memset(&t, 0, sizeof t);
    now_ns = 1;
    acq = 0;
    int arm = mpd_alock__trial(&t, acq, fake_clock, EPOCH, 1);
    for (int k = 0; k < 100; k++) {
        CHECK_EQ_L(arm, 0);
        now_ns += 1000;
        acq += EPOCH;
        arm = mpd_alock__trial(&t, acq, fake_clock, EPOCH, 1);
    }

    /* inside an epoch the clock is not read and the arm holds */
    memset(&t, 0, sizeof t);
    now_ns = 5;
    acq = 0;
    mpd_alock__trial(&t, acq, fake_clock, EPOCH, EVERY);
    long start = t.start_ns;
    now_ns = 99;
    for (int i = 1; i < EPOCH; i++)
        CHECK_EQ_L(mpd_alock__trial(&t, (unsigned long)i, fake_clock, EPOCH, EVERY), 0);
    CHECK_EQ_L(t.start_ns, start);
    CHECK_EQ_L(t.epoch, 0);

    /* through the default policy: with trial_acq > 0 the trial's choice is
     * applied (block); 0 (the default) or < 0: no trial */
    mpd_alock_t *l = mpd_alock_create(NULL);
    CHECK(l != NULL);
    mpd_alock_default_params_t p;
    memset(&p, 0, sizeof p);
    p.low = 0.25;
    p.high = 1.0;
    p.spin_max_ns = MPD_ALOCK_DEFAULT_SPIN_MAX_NS;
    p.sleep_max_ns = 50000;
    p.block_cost_ns = 20000;
    p.cpus = 1;
    p.trial_acq = EPOCH;
    l->trial.start_ns = 1;
    l->trial.best = 1;
    l->trial.arm = 1; /* as if measured */
    mpd_alock_monitor_t m;
    memset(&m, 0, sizeof m);
    m.avg_waiting = 0.1;
    m.avg_wait_ns = 500; /* the rules alone: spin */
    m.spin_ns = MPD_ALOCK_DEFAULT_SPIN_MAX_NS;
    m.sleep_ns = MPD_ALOCK_FOREVER;
    mpd_alock_default_policy(l, &m, &p);
    long sp, sl;
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == 0 && sl == MPD_ALOCK_FOREVER);
    p.trial_acq = -1;
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &p);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl == MPD_ALOCK_FOREVER);
    p.trial_acq = EPOCH; /* block again ... */
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &p);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == 0 && sl == MPD_ALOCK_FOREVER);
    p.trial_acq = 0; /* ... and the default: no trial */
    m.spin_ns = sp;
    m.sleep_ns = sl;
    mpd_alock_default_policy(l, &m, &p);
    mpd_alock_get_waiting(l, &sp, &sl);
    CHECK(sp == MPD_ALOCK_DEFAULT_SPIN_MAX_NS && sl == MPD_ALOCK_FOREVER);
    mpd_alock_destroy(l);

    CHECK_DONE();
}
