#!/usr/bin/env python3
"""apps_stats.py RAW APP: statistics of the interleaved application runs of run-apps.sh.

RAW has one line per run: "app nvp kind round seconds".  For each number of VPs
it prints a markdown table row with every lock kind's median and minimum, and
compares the adaptive lock with the best static choice (the static kind with
the lower median) round by round: within a round the kinds ran back to back,
so the per-round ratio adaptive/best cancels most of the machine's load drift.
The verdict uses a 95% bootstrap interval of the median per-round ratio (a
fixed seed, so the report is reproducible from the raw figures):
  beats         the whole interval is below 1
  matches       the interval excludes a loss of more than 5% (upper end <= 1.05;
                issue 22's rule, as in baselines_stats.py)
  loses         the whole interval is above 1.05
  inconclusive  none of these: the noise band (+-w, the interval's half width,
                printed) is too wide to say
Only spin and block are compared here; run-baselines.sh adds the strong static
kinds (backed-off spin, spin-then-block, pthread_mutex).
It also writes APP.dat (nvp, medians, minima) for the plots."""
import random
import statistics
import sys

KINDS = ("spin", "block", "adaptive")


def load(path, app):
    runs = {}                      # (nvp, kind) -> {round: seconds}
    for line in open(path):
        f = line.split()
        if len(f) < 5 or f[0] != app:
            continue
        runs.setdefault((int(f[1]), f[2]), {})[int(f[3])] = float(f[4])
    return runs


def boot_median_ci(xs, n=4000, seed=1):
    rnd = random.Random(seed)
    meds = sorted(statistics.median(rnd.choices(xs, k=len(xs))) for _ in range(n))
    return meds[int(0.025 * n)], meds[int(0.975 * n) - 1]


def main():
    raw, app, dat = sys.argv[1], sys.argv[2], sys.argv[3]
    runs = load(raw, app)
    nvps = sorted({n for n, _ in runs})
    out = open(dat, "w")
    out.write("# nvp median(spin block adaptive) min(spin block adaptive), seconds\n")
    print("| VPs | spin median (min) | block median (min) | adaptive median (min) |"
          " best static | adaptive / best: median [95% CI] | noise band | verdict |")
    print("|---:|---:|---:|---:|---|---:|---:|---|")
    tally = {"beats": 0, "matches": 0, "loses": 0, "inconclusive": 0}
    for n in nvps:
        med = {k: statistics.median(runs[(n, k)].values()) for k in KINDS}
        mn = {k: min(runs[(n, k)].values()) for k in KINDS}
        best = min(("spin", "block"), key=lambda k: med[k])
        rounds = sorted(set(runs[(n, "adaptive")]) & set(runs[(n, best)]))
        q = [runs[(n, "adaptive")][r] / runs[(n, best)][r] for r in rounds]
        r = statistics.median(q)
        lo, hi = boot_median_ci(q)
        w = (hi - lo) / 2
        verdict = ("beats" if hi < 1 else "matches" if hi <= 1.05 else
                   "loses" if lo > 1.05 else "inconclusive")
        tally[verdict] += 1
        cell = lambda k: ("**%.4f**" if k == min(KINDS, key=lambda j: med[j]) else "%.4f") % med[k] + " (%.4f)" % mn[k]
        print("| %d | %s | %s | %s | %s | %.3f [%.3f, %.3f] | ±%.1f%% | %s |" % (
            n, cell("spin"), cell("block"), cell("adaptive"), best, r, lo, hi, 100 * w, verdict))
        out.write("%d %s %s\n" % (n, " ".join("%.4f" % med[k] for k in KINDS), " ".join("%.4f" % mn[k] for k in KINDS)))
    print()
    print("Adaptive vs best of spin and block: beats at %(beats)d, matches (CI excludes a loss > 5%%) at "
          "%(matches)d, loses at %(loses)d, inconclusive at %(inconclusive)d point(s)." % tally)


if __name__ == "__main__":
    main()
