#!/bin/sh
# sr-instr.sh: instructions per operation of SR's timing rows, our sr vs our
# mpd (callgrind: a run of 20000 minus a run of 10000 iterations, over the
# operations between them, so start-up cancels out).  Unlike time, the count
# does not depend on the machine's load.  Uses the programs sr-run.sh
# compiled (build/bench/sr-timings/{sr,mpd}-ROW/).
#
#   sh bench/timings/sr-instr.sh [rows...]     (after sr-run.sh)
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-${BUILD:-$ROOT/build}/bench/sr-timings}
ROWS=${*:-loop locall ircall irnew pcreate semP semV sems semcsw asynch msgcsw rend}
count() {   # count DIR ITERATIONS SCALE: instructions of a whole run
    (cd "$1" && valgrind --tool=callgrind --callgrind-out-file=/dev/null ./a.out "$2" "$3" 1 2>&1 |
        sed -n 's/.*refs: *\([0-9,]*\).*/\1/p' | tr -d ,)
}
printf "%-8s %10s %10s %8s\n" test "sr instr" "mpd instr" sr/mpd
for row in $ROWS; do
    read -r b s d < "$OUT/$row.args"
    sn=$(( $(count "$OUT/sr-$row" 20000 "$s") - $(count "$OUT/sr-$row" 10000 "$s") ))
    mn=$(( $(count "$OUT/mpd-$row" 20000 "$s") - $(count "$OUT/mpd-$row" 10000 "$s") ))
    awk -v r="$row" -v a="$sn" -v m="$mn" -v k=$((10000 * s)) 'BEGIN {
        printf "%-8s %10.1f %10.1f %8s\n", r, a / k, m / k, (m > 0 ? sprintf("%.2f", a / m) : "-") }'
done
