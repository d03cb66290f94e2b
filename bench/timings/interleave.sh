#!/bin/sh
# interleave.sh: the timing rows without a context switch (loop, semP, semV,
# sems by default), measured by interleaved trials: each round runs our
# compiled MPD program once, then opbench's ABI and plain C loops for the
# same row once, so that load on a shared machine hits every column alike.
# Prints per-row medians (and minima) in ns per operation and the ratio
# ours/C of the medians.
#
#   sh bench/timings/interleave.sh [rounds] [rows...]     (after `make`)
#
# rounds: default 21.  BEFORE=dir (a copy of an older runtime/include)
# adds a column "before": the same generated C compiled against those
# headers (same library, same flags), for changes to the inline paths.
# ITERS: iterations per trial (default 60000000, about 20-80 ms).
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SUITE=${SUITE:-$ROOT/../shared/mpd-vsuite/timings}
ROUNDS=${1:-21}
[ $# -gt 0 ] && shift
ROWS=${*:-loop semP semV sems}
ITERS=${ITERS:-60000000}
OUT=$BUILD/bench/interleave
CC=${CC:-cc}
CFLAGS="-std=gnu11 -fno-strict-aliasing -fwrapv -O2 -falign-loops=32 -w"   # what mpd -O uses
mkdir -p "$OUT"
$CC -O2 -falign-loops=32 -std=c11 -D_GNU_SOURCE -I"$BUILD/include" "$ROOT/bench/timings/opbench.c" \
    "$BUILD/lib/libmpdrt.a" -lpthread -lm -o "$OUT/opbench"

# opbench's iteration count per row at scale 1 (its rows[] table)
opiters() { case $1 in loop) echo 20000000;; semP|semV|sems) echo 10000000;; *) echo 0;; esac; }

for row in $ROWS; do
    w=$OUT/$row
    rm -rf "$w"; mkdir -p "$w/gen"
    cp "$SUITE/$row"/*.mpd "$w/"
    scale=$(awk -v d="$row" '$1 == d { print $2 }' "$SUITE/List")
    base=$((ITERS / scale))
    (cd "$w" && "$BUILD/bin/mpd" -q -O -C ./*.mpd && cp MPDinter/*.c gen/ && "$BUILD/bin/mpd" -q -O ./*.mpd)
    if [ -n "$BEFORE" ]; then
        (cd "$w" && $CC $CFLAGS -I"$BEFORE" gen/*.c MPDinter/_ofile.c "$BUILD/lib/libmpdrt.a" \
            -lpthread -lm -o a.before)
    fi
    opscale=$(awk -v n="$ITERS" -v m="$(opiters "$row")" 'BEGIN { printf "%g", n / m }')
    : > "$w/trials"
    i=0
    while [ $i -lt "$ROUNDS" ]; do
        i=$((i + 1))
        ours=$(cd "$w" && ./a.out "$base" "$scale" 1 | awk '/times/ { printf "%.3f", $3 * 1e6 / $1; exit }')
        before=-
        if [ -n "$BEFORE" ]; then
            before=$(cd "$w" && ./a.before "$base" "$scale" 1 | awk '/times/ { printf "%.3f", $3 * 1e6 / $1; exit }')
        fi
        set -- $(OPBENCH_ONLY=$row "$OUT/opbench" "$opscale" 1 | awk -v d="$row" '$1 == d { print $(NF-2), $(NF-1) }')
        echo "$ours $before $1 $2" >> "$w/trials"
    done
    awk -v row="$row" -v n="$ROUNDS" '
        function med(col,   i, j, t, v, k) {
            k = 0
            for (i = 1; i <= NR; i++) if (x[i, col] != "-") v[++k] = x[i, col]
            if (!k) return "-"
            for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
            mn[col] = v[1]
            return (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
        }
        { for (c = 1; c <= 4; c++) x[NR, c] = $c }
        END {
            o = med(1); b = med(2); a = med(3); c = med(4)
            printf "%-5s rounds %d  median (min) ns/op: ours %s (%s)", row, n, o, mn[1]
            if (b != "-") printf "  before %s (%s)", b, mn[2]
            printf "  ABI %s (%s)  plain C %s (%s)  ours/C %.2fx", a, mn[3], c, mn[4], o / c
            if (b != "-") printf "  before/C %.2fx", b / c
            printf "\n"
        }' "$w/trials"
done
