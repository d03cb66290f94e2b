#!/usr/bin/env python3
"""ab.py: the timing suite's rows, an older runtime against this one,
interleaved run by run (old, new, then new, old, ...), so that load on a
shared machine hits both alike.  Each run's cost is its CPU time (user +
sys from wait4, not wall time: descheduled time on a loaded machine does
not count), per operation; prints medians and minima and new/old.

  python3 bench/timings/ab.py OLD_HOME [rounds] [seconds per run]   (after `make`)

OLD_HOME is an install tree of the older runtime (bin/ lib/ include/, as
build/ or `make install` lays it out): the same MPD programs are compiled
with this tree's mpd -O against it (MPD_HOME) and against build/.
ROWS="semP rend" limits the rows."""
import os, shutil, statistics, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get('BUILD', os.path.join(ROOT, 'build'))
SUITE = os.environ.get('SUITE', os.path.join(ROOT, '..', 'shared', 'mpd-vsuite', 'timings'))
old_home = os.path.abspath(sys.argv[1])
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
target = float(sys.argv[3]) if len(sys.argv) > 3 else 0.2
W = os.path.join(BUILD, 'bench', 'ab')
only = os.environ.get('ROWS', '').split()

def cpu_run(d, b, scale):
    pid = os.fork()
    if pid == 0:
        os.chdir(d)
        fd = os.open('/dev/null', os.O_WRONLY)
        os.dup2(fd, 1); os.dup2(fd, 2)
        os.execv('./a.out', ['./a.out', str(b), str(scale), '1'])
    _, st, ru = os.wait4(pid, 0)
    if st:
        sys.exit(f'{d}: a.out failed ({st})')
    return ru.ru_utime + ru.ru_stime

rows = []
for line in open(os.path.join(SUITE, 'List')):
    f = line.split()
    if not f or f[0].startswith('#') or (only and f[0] not in only):
        continue
    name, scale = f[0], int(f[1])
    for v, home in (('old', old_home), ('new', None)):
        d = os.path.join(W, f'{name}.{v}')
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        srcs = [s for s in os.listdir(os.path.join(SUITE, name)) if s.endswith('.mpd')]
        for s in srcs:
            shutil.copy(os.path.join(SUITE, name, s), d)
        env = dict(os.environ)
        if home:
            env['MPD_HOME'] = home
        subprocess.run([os.path.join(BUILD, 'bin', 'mpd'), '-q', '-O'] + sorted(srcs), cwd=d, env=env, check=True)
    # iterations for about `target` seconds of CPU per run
    b = 100000
    t = cpu_run(os.path.join(W, f'{name}.new'), b, scale)
    b = min(int(b * max(1.0, target / max(t, 1e-3))), 2_000_000_000 // scale)
    rows.append((name, b, scale))

res = {}
for r in range(rounds):
    for name, b, scale in rows:
        for v in (('old', 'new') if r % 2 == 0 else ('new', 'old')):
            t = cpu_run(os.path.join(W, f'{name}.{v}'), b, scale)
            res.setdefault((name, v), []).append(t * 1e9 / (b * scale))
print(f"{'row':8} {'old med':>9} {'new med':>9} {'new/old':>8} {'old min':>9} {'new min':>9} {'new/old':>8}"
      f"   (CPU ns per op, {rounds} rounds)")
for name, b, scale in rows:
    o, n = statistics.median(res[(name, 'old')]), statistics.median(res[(name, 'new')])
    mo, mn = min(res[(name, 'old')]), min(res[(name, 'new')])
    print(f"{name:8} {o:9.3f} {n:9.3f} {n / o:8.3f} {mo:9.3f} {mn:9.3f} {mn / mo:8.3f}")
