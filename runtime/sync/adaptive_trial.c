/* adaptive_trial.c: the default policy's trial -- whether blocking serves a
 * contended lock's holders better than what the policy's rules chose,
 * decided by measuring both.
 *
 * The rules (adaptive_monitor.c) read the lock's own contention, and they
 * cannot see what decides between spinning and blocking on a busy machine:
 * whether a spinning waiter holds a CPU that other work needs, and whether
 * handing the lock from CPU to CPU costs more than letting one thread run
 * on with it.  Measured on this project's 2-CPU machine, the best choice
 * for the same program changed with the load of the rest of the machine
 * and from run to run.  So the policy runs the lock in epochs of a fixed
 * number of acquisitions, one in `every` of them with the other choice
 * (block instead of the rules' choice, or back), and compares the
 * acquisitions per second of each such epoch with the epoch just before
 * it: adjacent epochs see nearly the same machine, so the drift of the
 * load cancels, and every explored epoch gives two comparisons (with the
 * one before and the one after it).  The log ratios go into a moving
 * average; the choice kept changes only when the average clears a margin
 * (hysteresis), after enough comparisons. */
#include "sync/adaptive_impl.h"

#include <math.h>

#define TRIAL_MARGIN 0.03  /* |log ratio| the average must clear (3%) */
#define TRIAL_MIN_PAIRS 4  /* comparisons before a first switch */
#define TRIAL_WEIGHT 0.125 /* of a new comparison in the average */

int mpd_alock__trial(alock_trial *t, unsigned long acq, long (*clock)(void), long epoch_acq,
                     int every)
{
    if (t->start_ns == 0) { /* first call: start an epoch */
        t->start_acq = acq;
        t->start_ns = clock();
        return t->arm;
    }
    if (acq - t->start_acq < (unsigned long)epoch_acq)
        return t->arm;
    long now = clock();
    double dt = (double)(now - t->start_ns);
    if (dt > 0) {
        double rate = (double)(acq - t->start_acq) / dt;
        if (t->last_rate > 0 && t->last_arm != t->arm) {
            double r = log(rate / t->last_rate); /* this arm against the other */
            if (t->arm == 0)
                r = -r; /* as log(block / rules) */
            t->score += (r - t->score) * TRIAL_WEIGHT;
            if (t->pairs < TRIAL_MIN_PAIRS)
                t->pairs++;
            if (t->pairs >= TRIAL_MIN_PAIRS) {
                if (t->score > TRIAL_MARGIN)
                    t->best = 1;
                else if (t->score < -TRIAL_MARGIN)
                    t->best = 0;
            }
        }
        t->last_rate = rate;
        t->last_arm = t->arm;
    }
    t->epoch++;
    t->arm = every > 1 && t->epoch % (unsigned)every == 0 ? !t->best : t->best;
    t->start_acq = acq;
    t->start_ns = now;
    return t->arm;
}
