#!/usr/bin/env python3
"""baselines_stats.py RAW [APP...]: the adaptive lock against every static lock kind.

RAW (from run-baselines.sh) has one line per run: "app nvp kind round seconds".
Within a round every kind ran back to back, so for each round the ratio
adaptive / best static (the static kind with the lowest median at that point:
spin, block, backoff, spinblock or pthread) cancels most of the load drift.
The verdict uses a 95% bootstrap interval of the median per-round ratio (fixed
seed, reproducible from the raw figures):
  beats         the whole interval is below 1
  matches       the interval excludes a loss of more than 5% (upper end <= 1.05)
  loses         the whole interval is above 1.05
  inconclusive  none of these: the noise is too wide to say (rerun quieter)"""
import random
import statistics
import sys

STATIC = ("spin", "block", "backoff", "spinblock", "pthread")


def boot_median_ci(xs, n=4000, seed=1):
    rnd = random.Random(seed)
    meds = sorted(statistics.median(rnd.choices(xs, k=len(xs))) for _ in range(n))
    return meds[int(0.025 * n)], meds[int(0.975 * n) - 1]


def main():
    raw = sys.argv[1]
    apps = sys.argv[2:] or ["tsp", "phold"]
    runs = {}                           # (app, nvp, kind) -> {round: seconds}
    for line in open(raw):
        f = line.split()
        if len(f) < 5 or line.startswith("#"):
            continue
        runs.setdefault((f[0], int(f[1]), f[2]), {})[int(f[3])] = float(f[4])
    tally = {"beats": 0, "matches": 0, "loses": 0, "inconclusive": 0}
    for app in apps:
        nvps = sorted({n for a, n, _ in runs if a == app})
        kinds = [k for k in STATIC + ("adaptive", "adaptive-old") if any((app, n, k) in runs for n in nvps)]
        old = "adaptive-old" in kinds  # run-baselines.sh OLD=DIR: another build's adaptive lock
        print("### %s\n" % app)
        print("| VPs | " + " | ".join("%s median" % k for k in kinds) +
              " | best static | adaptive / best: median [95% CI] | verdict |" +
              (" adaptive / adaptive-old [95% CI] |" if old else ""))
        print("|---:|" + "---:|" * len(kinds) + "---|---:|---|" + ("---:|" if old else ""))
        for n in nvps:
            med = {k: statistics.median(runs[(app, n, k)].values()) for k in kinds if (app, n, k) in runs}
            statics = [k for k in STATIC if k in med]
            best = min(statics, key=lambda k: med[k])
            rounds = sorted(set(runs[(app, n, "adaptive")]) & set(runs[(app, n, best)]))
            q = [runs[(app, n, "adaptive")][r] / runs[(app, n, best)][r] for r in rounds]
            r = statistics.median(q)
            lo, hi = boot_median_ci(q)
            verdict = ("beats" if hi < 1 else "matches" if hi <= 1.05 else
                       "loses" if lo > 1.05 else "inconclusive")
            tally[verdict] += 1
            top = min(med, key=lambda k: med[k])
            cells = " | ".join(("**%.3f**" if k == top else "%.3f") % med[k] for k in kinds)
            extra = ""
            if old and (app, n, "adaptive-old") in runs:
                ro = sorted(set(runs[(app, n, "adaptive")]) & set(runs[(app, n, "adaptive-old")]))
                qo = [runs[(app, n, "adaptive")][x] / runs[(app, n, "adaptive-old")][x] for x in ro]
                olo, ohi = boot_median_ci(qo)
                extra = " %.3f [%.3f, %.3f] |" % (statistics.median(qo), olo, ohi)
            print("| %d | %s | %s | %.3f [%.3f, %.3f] | %s |%s" % (n, cells, best, r, lo, hi, verdict, extra))
        print()
    print("Adaptive vs best static: beats at %(beats)d, matches (CI excludes a loss > 5%%) at %(matches)d, "
          "loses at %(loses)d, inconclusive at %(inconclusive)d point(s)." % tally)


if __name__ == "__main__":
    main()
