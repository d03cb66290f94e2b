#!/bin/sh
# run.sh: MPD's timing suite (the 12 programs of ../shared/mpd-vsuite/timings,
# named in its List), compiled with our mpd, side by side with the Pentium 4
# assembler column of paper 000 (Table 3) and the same operations in Go
# (go/main.go) measured in the same run; ns per operation.
#
#   sh bench/timings/run.sh [base] [trials]      (after `make`)
#
# base: the programs' first argument (iterations = base * the List's scale;
# default 1000000 so every trial lasts long enough for age()'s milliseconds);
# the median of `trials` runs is reported (default 5).  Two more columns:
# the same operation written directly against the runtime ABI (opbench.c),
# and a plain C loop doing the same work where no context switch is involved.
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SUITE=${SUITE:-$ROOT/../shared/mpd-vsuite/timings}
BASE=${1:-1000000}
TRIALS=${2:-5}
OUT=$BUILD/bench/timings
mkdir -p "$OUT"
: > "$OUT/mpd.txt"

# 1. the MPD programs
if [ -x "$BUILD/bin/mpd" ] && [ -d "$SUITE" ]; then
    grep -v '^#' "$SUITE/List" | while read -r dir scale descr; do
        [ -n "$dir" ] || continue
        w=$OUT/mpd-$dir
        rm -rf "$w"; mkdir -p "$w"
        cp "$SUITE/$dir"/*.mpd "$w/"
        if (cd "$w" && "$BUILD/bin/mpd" -q ./*.mpd >build.log 2>&1 && ./a.out "$BASE" "$scale" "$TRIALS" >run.out 2>&1); then
            # lines "N times   M ms": median of M/N
            awk -v d="$dir" '/times/ { v[++n] = $3 * 1e6 / $1 }
                END { if (!n) { print d, "-"; exit }
                      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
                      printf "%s %.2f\n", d, v[int((n + 1) / 2)] }' "$w/run.out" >> "$OUT/mpd.txt"
        else
            echo "$dir -" >> "$OUT/mpd.txt"
        fi
    done
fi

# 2. the same operations on the runtime ABI, and plain C
CC=${CC:-cc}
$CC -O2 -std=c11 -D_GNU_SOURCE -I"$BUILD/include" -I"$ROOT/runtime/include" \
    "$ROOT/bench/timings/opbench.c" "$BUILD/lib/libmpdrt.a" -lpthread -lm -o "$OUT/opbench"
"$OUT/opbench" 1 "$TRIALS" > "$OUT/abi.txt"

# 3. Go, one OS thread (its fastest setting for these)
: > "$OUT/go.txt"
if command -v go >/dev/null 2>&1; then
    (cd "$ROOT/bench/timings/go" && go build -o "$OUT/gotimings" .)
    "$OUT/gotimings" -trials "$TRIALS" -procs 1 > "$OUT/go.txt"
fi

awk -v mpdfile="$OUT/mpd.txt" -v gofile="$OUT/go.txt" '
BEGIN {
    while ((getline line < mpdfile) > 0) { split(line, f, " "); mpd[f[1]] = f[2] }
    while ((getline line < gofile) > 0) { split(line, f, " "); go[f[1]] = f[2] }
    printf "%-8s %-41s %8s %8s %8s %7s %8s %8s %8s\n", "test", "description (ns per operation)", "MPD", "ABI", "plain C", "P4 asm", "Go", "P4/MPD", "Go/MPD"
}
NR > 1 {
    dir = $1; abi = $(NF-2); plain = $(NF-1); p4 = $NF
    descr = ""; for (i = 2; i <= NF-3; i++) descr = descr (i > 2 ? " " : "") $i
    m = (dir in mpd) ? mpd[dir] : "-"
    g = (dir in go) ? go[dir] : "-"
    r1 = (m != "-" && m > 0) ? sprintf("%.1fx", p4 / m) : "-"
    r2 = (m != "-" && g != "-" && m > 0) ? sprintf("%.1fx", g / m) : "-"
    printf "%-8s %-41s %8s %8.2f %8s %7.0f %8s %8s %8s\n", dir, descr, m, abi, plain, p4, g, r1, r2
}' "$OUT/abi.txt"
