#!/usr/bin/env python3
"""Differential harness: our MPD against MPD 1.0.1 (the oracle).

Compiles and runs, with both implementations, every program of the project's
corpus (tests/corpus/**/*.mpd that has a .std and no .nondet, with its .args
and .in) and programs generated from a grammar of the language
(tools/mpdtools/gen.py: deterministic by construction).  It compares whether
each compiles, its standard output, and its exit status (and standard error
when both succeed).  A difference in a generated program is minimised (delta
debugging over lines and words, keeping the same difference) and saved in
--out with both outputs.

  MPD101=/work/mpd101/bin python3 tools/difftest.py --minutes 30
  python3 tools/difftest.py --oracle /work/mpd101/bin --count 50 --no-corpus

Without the oracle (MPD101 unset and --oracle not given, or no mpd there) it
says so and exits 0: MPD 1.0.1 needs i386 multilib, which CI may lack.
Prints "difftest: N programs, D differences".
"""
import argparse
import glob
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpdtools import gen, runner, ddmin  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def corpus_programs():
    for p in sorted(glob.glob(os.path.join(ROOT, "tests", "corpus", "*", "*.mpd"))):
        base = p[:-4]
        if not os.path.exists(base + ".std") or os.path.exists(base + ".nondet"):
            continue
        args = open(base + ".args").read().split() if os.path.exists(base + ".args") else []
        stdin = open(base + ".in").read() if os.path.exists(base + ".in") else ""
        yield os.path.relpath(p, ROOT), open(p).read(), args, stdin


def outcome(bindir, src, args, stdin, timeout):
    """What one implementation does with a program: a comparable tuple."""
    r = runner.build_and_run_args(bindir, src, args, stdin, timeout)
    if not r["compiled"]:
        return ("no-compile",), r
    return ("ran", r["rc"], r["out"], r["err"] if r["rc"] == 0 else ""), r


def differ(a, b):
    """The kind of difference between two outcomes, or None."""
    if a[0] != b[0]:
        return "compile"
    if a[0] == "no-compile":
        return None
    if a[1] != b[1]:
        return "status"
    if a[2] != b[2]:
        return "stdout"
    if a[3] != b[3]:
        return "stderr"
    return None


def show(o, r):
    if o[0] == "no-compile":
        return "does not compile:\n" + r["compile"]
    return "exit %s\n--- stdout\n%s--- stderr\n%s" % (r["rc"], r["out"], r["err"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--oracle", default=os.environ.get("MPD101"))
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--minutes", type=float, default=None)
    ap.add_argument("--count", type=int, default=None, help="generated programs (default 50)")
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "difftest"))
    ap.add_argument("--no-minimize", action="store_true")
    o = ap.parse_args()
    if not o.oracle or not os.path.exists(os.path.join(o.oracle, "mpd")):
        print("difftest: skipped (MPD 1.0.1 not found: set MPD101=<its bin dir> or --oracle)")
        return 0
    if o.minutes is None and o.count is None:
        o.count = 50
    seed = o.seed if o.seed is not None else int(time.time())
    os.makedirs(o.out, exist_ok=True)
    t0 = time.time()
    deadline = t0 + o.minutes * 60 if o.minutes else None
    n, diffs, kinds = 0, 0, {}

    def record(name, src, kind, ours, theirs, args, stdin, minimise):
        nonlocal diffs
        diffs += 1
        kinds[kind] = kinds.get(kind, 0) + 1
        safe = name.replace("/", "_").replace(".mpd", "")
        base = os.path.join(o.out, "%s-%s" % (kind, safe))
        with open(base + ".mpd", "w") as f:
            f.write(src)
        # a hang takes the whole timeout per try: not worth shrinking
        hang = any(x[0][0] == "ran" and x[0][1] is None for x in (ours, theirs))
        if minimise and not o.no_minimize and not hang:
            def keeps(s):
                a, _ = outcome(o.bin, s, args, stdin, o.timeout)
                b, _ = outcome(o.oracle, s, args, stdin, o.timeout)
                return differ(a, b) == kind
            small = ddmin.minimize(src, keeps, budget=150)
            with open(base + ".min.mpd", "w") as f:
                f.write(small)
            ours = outcome(o.bin, small, args, stdin, o.timeout)
            theirs = outcome(o.oracle, small, args, stdin, o.timeout)
        with open(base + ".txt", "w") as f:
            f.write("args: %s\n==== ours: %s\n==== MPD 1.0.1: %s" % (args, show(*ours), show(*theirs)))
        print("DIFF %s: %s" % (kind, base + ".mpd"))

    def one(name, src, args, stdin, minimise):
        nonlocal n
        if n and n % 100 == 0:
            print("difftest: %d programs, %d differences so far" % (n, diffs), flush=True)
        ours = outcome(o.bin, src, args, stdin, o.timeout)
        theirs = outcome(o.oracle, src, args, stdin, o.timeout)
        n += 1
        k = differ(ours[0], theirs[0])
        if k:
            record(name, src, k, ours, theirs, args, stdin, minimise)

    if not o.no_corpus:
        for name, src, args, stdin in corpus_programs():
            one(name, src, args, stdin, False)
    i = 0
    while (o.count is None or i < o.count) and (deadline is None or time.time() < deadline):
        name = "gen-%d-%d" % (seed, i)
        one(name, gen.program("%d:%d" % (seed, i)), [], "", True)
        i += 1
    print("difftest: %d programs (%d generated, seed %d) in %.0f s, %d differences (%s)" % (
        n, i, seed, time.time() - t0, diffs, ", ".join("%s %d" % kv for kv in sorted(kinds.items())) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
