#!/bin/sh
# ab.sh: the timing suite's 12 programs compiled by two builds (OLD and
# NEW, each a build/ tree: bin/mpd, lib/, include/) and run interleaved --
# every round runs each row old then new (or new then old, alternately), one
# trial each -- so that a shared machine's load hits both alike.  Prints, per
# row, the best ns per operation of each and the ratio new/old (< 1: new is
# faster), by the programs' own clock (wall time) and by CPU time (user +
# system of the whole run, which a loaded machine's waits do not inflate).
# For changes that touch generated code or the runtime.
#
#   OLD=/path/to/old/build NEW=build sh bench/timings/ab.sh [rounds] [base]
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SUITE=${SUITE:-$ROOT/../shared/mpd-vsuite/timings}
OLD=$(cd "${OLD:?OLD=old build dir}" && pwd)
NEW=$(cd "${NEW:-$ROOT/build}" && pwd)
ROUNDS=${1:-15}
BASE=${2:-100000}
OUT=${OUT:-$NEW/bench/ab}
rm -rf "$OUT"; mkdir -p "$OUT"
${CC:-cc} -O2 -o "$OUT/cputime" "$ROOT/bench/timings/cputime.c"
rows=""
while read -r dir scale descr; do
    [ -n "$dir" ] || continue
    for v in old new; do
        w=$OUT/$v-$dir; mkdir -p "$w"; cp "$SUITE/$dir"/*.mpd "$w/"
        b=$OLD; [ $v = new ] && b=$NEW
        (cd "$w" && "$b/bin/mpd" -q -O ./*.mpd >build.log 2>&1)
    done
    # size the trials as run.sh does: >= ~20 ms each
    ms=$(cd "$OUT/old-$dir" && ./a.out "$BASE" "$scale" 1 2>/dev/null | awk '/times/ { print $3; exit }')
    ms=${ms:-0}; f=1
    [ "$ms" -lt 20 ] && f=$(( 30 / (ms > 0 ? ms : 1) ))
    cap=$(( 1000000000 / (BASE * scale) )); [ "$f" -le "$cap" ] || f=$cap; [ "$f" -ge 1 ] || f=1
    echo "$((BASE * f)) $scale" > "$OUT/args-$dir"
    rows="$rows $dir"
done <<EOT
$(grep -v '^#' "$SUITE/List")
EOT
r=1
while [ "$r" -le "$ROUNDS" ]; do
    order="old new"; [ $((r % 2)) = 0 ] && order="new old"
    for dir in $rows; do
        read -r b scale < "$OUT/args-$dir"
        for v in $order; do
            (cd "$OUT/$v-$dir" && "$OUT/cputime" cpu.out ./a.out "$b" "$scale" 1 >>run.out 2>&1) ||
                echo failed >> "$OUT/$v-$dir/run.out"
        done
    done
    r=$((r + 1))
done
echo "timing suite, old vs new interleaved; $(date -u '+%Y-%m-%d %H:%M UTC'), $ROUNDS rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-8s %10s %10s %8s   %10s %10s %8s\n" test "old ns" "new ns" new/old "old cpu" "new cpu" new/old
best() { awk '/times/ { v = $3 * 1e6 / $1; if (!n++ || v < b) b = v } END { if (n) printf "%.3f", b; else print "-" }' "$1"; }
# CPU ns per operation: the run's user + system time over its operations
bestcpu() { awk 'FNR == 1 { f++ } f == 1 && /times/ { ops = $1 } f == 2 && /^cpu/ { v = ($2 + $3) * 1e9 / ops; if (!n++ || v < b) b = v }
                 END { if (n && ops) printf "%.3f", b; else print "-" }' "$1/run.out" "$1/cpu.out"; }
for dir in $rows; do
    o=$(best "$OUT/old-$dir/run.out"); n=$(best "$OUT/new-$dir/run.out")
    oc=$(bestcpu "$OUT/old-$dir"); nc=$(bestcpu "$OUT/new-$dir")
    awk -v d="$dir" -v o="$o" -v n="$n" -v oc="$oc" -v nc="$nc" 'BEGIN {
        r = (o > 0 && n != "-") ? sprintf("%.3f", n / o) : "-"
        rc = (oc > 0 && nc != "-") ? sprintf("%.3f", nc / oc) : "-"
        printf "%-8s %10s %10s %8s   %10s %10s %8s\n", d, o, n, r, oc, nc, rc }'
done
