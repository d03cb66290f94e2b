#!/bin/sh
# run.sh: what the timeline costs while it records (docs/trace.md, "The
# timeline: cost").  After `make`:
#
#   sh bench/timeline/run.sh [rounds]
#
# 1. tl_bench.c: ns per event of the recording itself (mpd__tl_rec, where
#    every hook ends), fresh chunks and reused ones, best of the rounds.
# 2. Two MPD programs of the timing suite (semcsw: a semaphore handoff
#    between two processes; msgcsw: send and receive between two), run
#    interleaved without and with MPD_TIMELINE: ns per operation of each,
#    best of the rounds, and the events each operation records, so the
#    difference over the events is the cost per event in a real run (the
#    log is written to /dev/null at the end, outside the timed loops).
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SUITE=${SUITE:-$ROOT/../shared/mpd-vsuite/timings}
ROUNDS=${1:-7}
OUT=${OUT:-$BUILD/bench/timeline}
rm -rf "$OUT"; mkdir -p "$OUT"
${CC:-cc} -O2 -I"$ROOT/runtime" -I"$ROOT/runtime/include" "$ROOT/bench/timeline/tl_bench.c" \
    "$BUILD/lib/libmpdrt.a" -lpthread -lm -o "$OUT/tl_bench"
echo "timeline cost; $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$OUT/tl_bench" 2000000 "$ROUNDS"
N=1000000
for prog in semcsw msgcsw; do
    mkdir -p "$OUT/$prog"; cp "$SUITE/$prog"/*.mpd "$OUT/$prog/"
    (cd "$OUT/$prog" && "$BUILD/bin/mpd" -q -O ./*.mpd >build.log 2>&1)
    r=1
    while [ "$r" -le "$ROUNDS" ]; do
        (cd "$OUT/$prog" && MPD_PARALLEL=1 ./a.out $N 1 1 >>off.out 2>&1 &&
         MPD_PARALLEL=1 MPD_TIMELINE=/dev/null ./a.out $N 1 1 >>on.out 2>&1)
        r=$((r + 1))
    done
    # events per operation: all the events of one run over its operations
    ev=$(cd "$OUT/$prog" && MPD_PARALLEL=1 MPD_TIMELINE=count.html ./a.out $N 1 1 >/dev/null 2>&1 &&
         python3 -c "import re, json, sys
d = json.loads(re.search(r'const TL = (.*?);</script>', open(sys.argv[1]).read(), re.S).group(1))
print(len(d['ev']) + 2 * len(d['procs']) + d['dropped'])" count.html)
    best() { awk '/times/ { v = $3 * 1e6 / $1; if (!n++ || v < b) b = v } END { printf "%.1f", b }' "$1"; }
    off=$(best "$OUT/$prog/off.out"); on=$(best "$OUT/$prog/on.out")
    awk -v p="$prog" -v off="$off" -v on="$on" -v n=$N -v ev="$ev" 'BEGIN {
        printf "%-7s off %6.1f ns/op   on %6.1f ns/op   events/op %.2f   (on - off) per event %.1f ns\n",
               p, off, on, ev / n, (on - off) / (ev / n) }'
done
