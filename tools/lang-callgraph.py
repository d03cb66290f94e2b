#!/usr/bin/env python3
"""The call graph between the object files of runtime/lang/: which file calls which
(undefined symbols of each .o resolved to the .o defining them, from nm), the
pairs that call each other, and the strongly connected components (cycles).

    python3 tools/lang-callgraph.py build/obj/runtime/lang
    python3 tools/lang-callgraph.py build/obj/runtime/lang --allow "inqueue opcore reclaim"

With --allow (repeatable), exit 1 if a cycle other than the ones named
appears (scripts/test.d/17-lang-layers.sh).
"""
import subprocess, sys, glob, os, collections
d = sys.argv[1]
allowed = [sorted(sys.argv[i + 1].split()) for i, a in enumerate(sys.argv) if a == '--allow']
defs = {}; undefs = collections.defaultdict(set)
for o in sorted(glob.glob(os.path.join(d, '*.o'))):
    name = os.path.basename(o).split('.')[0]
    for line in subprocess.run(['nm', o], capture_output=True, text=True).stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'TDBRWV' : defs[p[2]] = name
        elif len(p) == 2 and p[0] == 'U': undefs[name].add(p[1])
edges = collections.defaultdict(set)
for f, us in undefs.items():
    for u in us:
        if u in defs and defs[u] != f: edges[f].add((defs[u], u))
for f in sorted(edges):
    tgt = collections.defaultdict(list)
    for t, s in edges[f]: tgt[t].append(s)
    for t in sorted(tgt): print(f"{f} -> {t}: {' '.join(sorted(tgt[t]))}")
# cycles of length 2
print("# two-way pairs:")
adj = {f: {t for t, _ in edges[f]} for f in edges}
for a in sorted(adj):
    for b in sorted(adj[a]):
        if a < b and a in adj.get(b, ()): print(f"  {a} <-> {b}")
# SCCs
idx = {}; low = {}; st = []; on = set(); out = []; c = [0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in adj.get(v, ()):
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: out.append(sorted(comp))
for v in sorted(set(adj) | {t for s in adj.values() for t in s}):
    if v not in idx: sc(v)
print("# strongly connected components (cycles):")
for comp in out: print("  " + " ".join(comp))
# layers: each file (a cycle counts as one node) one above the highest it calls
comp_of = {v: i for i, comp in enumerate(out) for v in comp}
nodes = set(adj) | {t for s in adj.values() for t in s}
key = lambda v: ('C', comp_of[v]) if v in comp_of else v
members = collections.defaultdict(list)
for v in nodes: members[key(v)].append(v)
down = collections.defaultdict(set)
for a in adj:
    for b in adj[a]:
        if key(a) != key(b): down[key(a)].add(key(b))
level = {}
def lv(k):
    if k not in level:
        level[k] = 1 + max((lv(x) for x in down[k]), default=-1)
    return level[k]
for k in members: lv(k)
print("# layers (0: calls no other lang/ file):")
for L in range(max(level.values()) + 1):
    names = sorted("{" + " ".join(sorted(members[k])) + "}" if len(members[k]) > 1 else members[k][0]
                   for k in members if level[k] == L)
    print(f"  {L}: {' '.join(names)}")
if len(sys.argv) > 2:
    bad = [comp for comp in out if comp not in allowed]
    for comp in bad:
        print("NEW CYCLE: " + " ".join(comp) + " (docs/architecture.md explains the allowed ones)")
    sys.exit(1 if bad else 0)
