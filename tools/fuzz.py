#!/usr/bin/env python3
"""Mutation fuzzer of the MPD compiler, through the C compiler.

Seeds are the project's corpus (tests/corpus/**/*.mpd; --extra-seeds adds
another directory, e.g. ../shared/mpd-vsuite when present).  Each mutant
(1-3 token-level mutations) is compiled with `mpd -c`, which runs cc on the
generated C.  Failures: cc rejected our C ("internal error"), a compiler panic,
crash (signal) or hang (timeout), or an error without a source location.  Each
failure is minimised (delta debugging over lines, then words) keeping its kind,
and saved in --out.  With --oracle DIR (MPD 1.0.1's bin directory) a mutant we
accept is also given to MPD 1.0.1, and those it rejects are listed (they
should get a located error from us too).

  python3 tools/fuzz.py --minutes 30 --bin build/bin --oracle /work/mpd101/bin
  python3 tools/fuzz.py --count 60 --seed 1          # the CI slice

Prints one summary line: "fuzz: N inputs, F failures (...)"; the exit status
is 1 when there was a failure.
"""
import argparse
import concurrent.futures as cf
import glob
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpdtools import mutate, runner, ddmin, tokens  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_seeds(dirs):
    seeds = []
    for d in dirs:
        for p in sorted(glob.glob(os.path.join(d, "**", "*.mpd"), recursive=True)):
            try:
                with open(p, encoding="utf-8", errors="replace") as f:
                    src = f.read()
            except OSError:
                continue
            if 0 < len(src) < 20000:
                seeds.append((os.path.relpath(p, ROOT), src))
    return seeds


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--seed", type=int, default=None, help="random seed (default: time)")
    ap.add_argument("--minutes", type=float, default=None, help="run this long")
    ap.add_argument("--count", type=int, default=None, help="run this many mutants")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60, help="seconds per compilation (a hang)")
    ap.add_argument("--oracle", default=os.environ.get("MPD101"), help="MPD 1.0.1's bin directory")
    ap.add_argument("--extra-seeds", action="append", default=[])
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "fuzz"))
    ap.add_argument("--no-minimize", action="store_true")
    o = ap.parse_args()
    if o.minutes is None and o.count is None:
        o.count = 100
    seed = o.seed if o.seed is not None else int(time.time())
    dirs = [os.path.join(ROOT, "tests", "corpus")] + [d for d in o.extra_seeds if os.path.isdir(d)]
    seeds = load_seeds(dirs)
    if not seeds:
        sys.exit("fuzz: no seed programs found")
    vocab = sorted({t.text for _, s in seeds for t in tokens.lex(s) if t.kind == "ident"})
    os.makedirs(o.out, exist_ok=True)
    oracle = o.oracle if o.oracle and os.path.exists(os.path.join(o.oracle, "mpd")) else None

    # seeds MPD 1.0.1 itself rejects (the corpus tests some extensions) say
    # nothing about our checker: their mutants are not compared
    seed_ok = {}

    def oracle_takes_seed(name, src):
        if name not in seed_ok:
            seed_ok[name] = runner.compile_oracle(oracle, src, o.timeout)[0]
        return seed_ok[name]

    def job(i):
        rng = random.Random("%d:%d" % (seed, i))
        name, src = rng.choice(seeds)
        m = mutate.mutate(rng, src, vocab)
        kind, msgs = runner.compile_ours(o.bin, m, o.timeout)
        theirs = None
        if oracle and kind == "ok" and oracle_takes_seed(name, src):
            theirs, msgs = runner.compile_oracle(oracle, m, o.timeout)
        return i, name, m, kind, msgs, theirs

    counts, fails, disagree = {}, [], []
    t0 = time.time()
    deadline = t0 + o.minutes * 60 if o.minutes else None
    n = 0
    with cf.ThreadPoolExecutor(max_workers=o.jobs) as ex:
        pending = set()
        i = 0

        def more():
            return (o.count is None or i < o.count) and (deadline is None or time.time() < deadline)

        while True:
            while more() and len(pending) < o.jobs * 2:
                pending.add(ex.submit(job, i))
                i += 1
            if not pending:
                break
            done, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for d in done:
                k, name, m, kind, msgs, theirs = d.result()
                n += 1
                counts[kind] = counts.get(kind, 0) + 1
                if kind in runner.FAILURES:
                    fails.append((k, name, m, kind, msgs))
                elif kind == "ok" and theirs is False:
                    disagree.append((k, name, m, msgs))
    # save and minimise failures (keeping their kind)
    for k, name, m, kind, msgs in fails:
        base = os.path.join(o.out, "%s-%d-%d" % (kind, seed, k))
        with open(base + ".mpd", "w") as f:
            f.write(m)
        with open(base + ".log", "w") as f:
            f.write("seed program: %s\n%s" % (name, msgs))
        if not o.no_minimize:
            small = ddmin.minimize(m, lambda s: runner.compile_ours(o.bin, s, o.timeout)[0] == kind)
            with open(base + ".min.mpd", "w") as f:
                f.write(small)
        print("FAIL %s: %s (from %s)" % (kind, base + ".mpd", name))
    for k, name, m, msgs in disagree:
        base = os.path.join(o.out, "accepted-%d-%d" % (seed, k))
        with open(base + ".mpd", "w") as f:
            f.write(m)
        with open(base + ".log", "w") as f:
            f.write("seed program: %s\nMPD 1.0.1 says:\n%s" % (name, msgs))
        print("DIFF we accept, MPD 1.0.1 rejects: %s (from %s)" % (base + ".mpd", name))
    summary = ", ".join("%s %d" % (kk, counts.get(kk, 0)) for kk in ("ok", "reject") + runner.FAILURES)
    print("fuzz: %d inputs in %.0f s (seed %d), %d failures (%s)%s" % (
        n, time.time() - t0, seed, len(fails), summary,
        "; MPD 1.0.1 rejects %d that we accept" % len(disagree) if oracle else ""))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
