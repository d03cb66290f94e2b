#!/usr/bin/env python3
"""run.py: the multicore benchmark suite (issue 24).

Each pattern of mpd/*.mpd (compiled with our `mpd -O`) and go/main.go runs
with MPD_PARALLEL=1,2,4 and GOMAXPROCS=1,2,4, interleaved: every round runs
every pattern in every configuration once, in an order that alternates, so a
shared machine's load hits all columns alike.  Per cell the best (least
disturbed) wall time of the rounds is kept, as ns per operation (one
operation: see each program's header).  Prints the table with the ratios
the issue's targets are about, and writes it with the machine's load to
results/DATE-HOST.txt.

    python3 bench/multicore/run.py [--build build] [--rounds 5] [--scale 1]
        [--only pipeline,pairs] [--vps 1,2,4] [--no-go] [--out FILE]
        [--old OLD_BUILD]

--old adds columns `old P=n`: the same programs compiled by another build
(a build/ tree of an older commit), interleaved with the rest, for A/B
comparisons of a runtime change.

Targets (2 cores): 2 VPs no slower than 1 by more than 10% (mpd2/mpd1 <=
1.10); pairs and bag50 at least 1.7x / 1.8x faster on 2 VPs; on 2 VPs at
least as fast as Go on 2 (go2/mpd2 >= 1).
"""
import argparse, os, resource, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# name, program, argument(s) at scale 1 (ops first), one-line description
PATTERNS = [
    ("pipeline", "pipeline", [200000], "main -> 4 stages -> sink, ns per message"),
    ("pairs", "pairs", [100000], "4 independent ping-pong pairs, ns per round of 4"),
    ("pairs_inst", "pairs_inst", [100000], "the same, each pair in a resource instance of its own"),
    ("fanin", "fanin", [400000], "4 producers -> 1 consumer, ns per message"),
    ("bag1", "bag", [100000, 700], "bag of tasks served by `in`, 4 workers, ~1 us tasks"),
    ("bag50", "bag", [4000, 35000], "the same, ~50 us tasks"),
    ("barrier", "barrier", [50000], "4 workers + coordinator, semaphores, ns per round"),
    ("cojoin", "cojoin", [100000], "co of 4 proc calls, ns per co"),
    ("rpc_call", "rpc_call", [200000], "4 clients call a proc, ns per call"),
    ("rpc_in", "rpc_in", [200000], "4 clients call an op served by `in`, ns per call"),
]


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run(cmd, env):
    """Wall seconds and CPU seconds (user + system) of one run."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stdout.decode()[-300:]))
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return t1 - t0, cpu, p.stdout.decode().strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--vps", default="1,2,4")
    ap.add_argument("--no-go", action="store_true")
    ap.add_argument("--out", default="")
    ap.add_argument("--old", default="")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    work = os.path.join(build, "bench", "multicore")
    os.makedirs(work, exist_ok=True)
    pats = [p for p in PATTERNS if not a.only or p[0] in a.only.split(",")]
    vps = [int(v) for v in a.vps.split(",")]

    # build: each MPD program in its own directory (mpd writes MPDinter/)
    builds = [("mpd", build)] + ([("old", os.path.abspath(a.old))] if a.old else [])
    for lang, b in builds:
        for prog in sorted({p[1] for p in pats}):
            d = os.path.join(work, lang, prog)
            os.makedirs(d, exist_ok=True)
            subprocess.run([os.path.join(b, "bin", "mpd"), "-q", "-O", "-o", "prog",
                            os.path.join(HERE, "mpd", prog + ".mpd")], cwd=d, check=True)
    gobin = None
    go = os.environ.get("GO", "/usr/local/go/bin/go")
    if not a.no_go and (os.path.exists(go) or subprocess.run(["sh", "-c", "command -v go"],
                                                              stdout=subprocess.DEVNULL).returncode == 0):
        gobin = os.path.join(work, "gomc")
        # rebuilt only when go/ changed: under `chrt -f` the Go linker was
        # seen spinning for 10 minutes on a loaded 2-CPU machine, so build
        # it once without chrt (run.py --only pairs --rounds 1 --scale 0.01)
        src = os.path.join(HERE, "go")
        newest = max(os.path.getmtime(os.path.join(src, f)) for f in os.listdir(src))
        if not os.path.exists(gobin) or os.path.getmtime(gobin) < newest:
            subprocess.run([go if os.path.exists(go) else "go", "build", "-o", gobin, "."],
                           cwd=src, check=True)

    cols = [(lang, v) for lang, _ in builds for v in vps] + ([("go", v) for v in vps] if gobin else [])
    best = {}   # (pattern, col) -> (ns per op wall, ns per op cpu)
    walls = {}  # (pattern, col) -> wall ns per op of each round
    outs = {}
    env0 = dict(os.environ)
    loads = [load()]
    for r in range(a.rounds):
        order = cols if r % 2 == 0 else list(reversed(cols))
        for name, prog, args, _ in pats:
            args = [max(4, int(args[0] * a.scale) // 4 * 4)] + args[1:]
            for lang, v in order:
                env = dict(env0)
                if lang != "go":
                    env["MPD_PARALLEL"] = str(v)
                    cmd = [os.path.join(work, lang, prog, "prog")] + [str(x) for x in args]
                else:
                    env["GOMAXPROCS"] = str(v)
                    cmd = [gobin, prog] + [str(x) for x in args]
                wall, cpu, out = run(cmd, env)
                key = (name, (lang, v))
                w, c = wall * 1e9 / args[0], cpu * 1e9 / args[0]
                outs.setdefault(name, set()).add(out)
                walls.setdefault(key, []).append((w, c))
                if key not in best or w < best[key][0]:
                    best[key] = (w, c)
        loads.append(load())
    for name, o in outs.items():
        if len(o) != 1:
            print("WARNING: %s: the runs disagree: %s" % (name, sorted(o)), file=sys.stderr)

    lines = []
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines.append("multicore suite, %s, %d rounds, scale %g, %d CPUs; load before/after rounds: %s"
                 % (stamp, a.rounds, a.scale, os.cpu_count(), " | ".join(loads)))
    lines.append("best wall ns per op (cpu ns per op, user+sys, in brackets)")
    hdr = "%-9s" % "pattern" + "".join("%16s" % ("%s P=%d" % c) for c in cols)
    # (label, numerator column, denominator column)
    ratios = []
    if 1 in vps and 2 in vps:
        ratios.append(("mpd2/mpd1", ("mpd", 2), ("mpd", 1)))
    if 1 in vps and 4 in vps:
        ratios.append(("mpd4/mpd1", ("mpd", 4), ("mpd", 1)))
    if gobin and 2 in vps:
        ratios.append(("go2/mpd2", ("go", 2), ("mpd", 2)))
    if a.old:
        for v in vps:
            ratios.append(("mpd%d/old%d" % (v, v), ("mpd", v), ("old", v)))
    hdr += "".join("%11s" % r[0] for r in ratios)
    lines.append(hdr)
    for name, _, _, _ in pats:
        row = "%-9s" % name
        for c in cols:
            w, cpu = best[(name, c)]
            row += "%16s" % ("%.0f (%.0f)" % (w, cpu))
        for _, num, den in ratios:
            row += "%11.2f" % (best[(name, num)][0] / best[(name, den)][0])
        lines.append(row)
    if ratios and a.rounds > 1:
        # the ratio of the two columns' walls within each round, median over
        # the rounds: less at the mercy of one lucky run than best/best
        lines.append("")
        lines.append("median over rounds of the ratio within a round, wall/cpu:")
        lines.append("%-9s" % "pattern" + "".join("%13s" % r[0] for r in ratios))
        for name, _, _, _ in pats:
            row = "%-9s" % name
            for _, num, den in ratios:
                pairs = list(zip(walls[(name, num)], walls[(name, den)]))
                rw = sorted(x[0] / y[0] for x, y in pairs)[len(pairs) // 2]
                rc = sorted(x[1] / y[1] for x, y in pairs)[len(pairs) // 2]
                row += "%13s" % ("%.2f/%.2f" % (rw, rc))
            lines.append(row)
    lines.append("")
    for name, _, args, descr in pats:
        args = [max(4, int(args[0] * a.scale) // 4 * 4)] + args[1:]
        lines.append("  %-9s %s (args %s)" % (name, descr, " ".join(str(x) for x in args)))
    text = "\n".join(lines) + "\n"
    print(text, end="")
    out = a.out or os.path.join(HERE, "results", time.strftime("%Y-%m-%d-%H%M", time.gmtime()) + ".txt")
    if a.out != "-":
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
