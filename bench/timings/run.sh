#!/bin/sh
# run.sh: the 12 operations of MPD's timing suite measured side by side, in ns
# per operation: our runtime through its ABI (opbench.c), the Pentium 4
# assembler column of paper 000 (Table 3), and Go (go/main.go), same run.
#
#   sh bench/timings/run.sh [scale] [trials]     (from the repository root,
#                                                 after `make runtime`)
# scale multiplies the iteration counts (default 1); the median of `trials`
# runs is reported.  This measures the runtime ABI, not compiled MPD.
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SCALE=${1:-1}
TRIALS=${2:-7}
OUT=$BUILD/bench/timings
mkdir -p "$OUT"
CC=${CC:-cc}
$CC -O2 -std=c11 -D_GNU_SOURCE -I"$BUILD/include" -I"$ROOT/runtime/include" \
    "$ROOT/bench/timings/opbench.c" "$BUILD/lib/libmpdrt.a" -lpthread -lm -o "$OUT/opbench"
"$OUT/opbench" "$SCALE" "$TRIALS" > "$OUT/ours.txt"
if command -v go >/dev/null 2>&1; then
    (cd "$ROOT/bench/timings/go" && go build -o "$OUT/gotimings" .)
    "$OUT/gotimings" -scale "$SCALE" -trials "$TRIALS" -procs 1 > "$OUT/go.txt"
else
    : > "$OUT/go.txt"
fi
awk -v gofile="$OUT/go.txt" '
BEGIN {
    while ((getline line < gofile) > 0) { split(line, f, " "); go[f[1]] = f[2] }
    printf "%-8s %-42s %9s %9s %9s %9s %8s %8s\n", "test", "description", "ours", "plainC", "P4-asm", "Go", "P4/ours", "Go/ours"
}
NR > 1 {
    dir = $1; ours = $(NF-2); plain = $(NF-1); p4 = $NF
    descr = ""; for (i = 2; i <= NF-3; i++) descr = descr (i > 2 ? " " : "") $i
    g = (dir in go) ? go[dir] : "-"
    r1 = ours > 0 ? sprintf("%.1fx", p4 / ours) : "-"
    r2 = (g != "-" && ours > 0) ? sprintf("%.1fx", g / ours) : "-"
    printf "%-8s %-42s %9.2f %9s %9.0f %9s %8s %8s\n", dir, descr, ours, plain, p4, g, r1, r2
}' "$OUT/ours.txt"
