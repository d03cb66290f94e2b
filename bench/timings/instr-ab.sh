#!/bin/sh
# instr-ab.sh: instructions per operation of the timing suite's programs,
# old build vs new (callgrind: a run of 20000 minus a run of 10000
# iterations, over the operations between them, so start-up cancels out).
# Unlike time, the count does not depend on the machine's load: on a shared
# machine it is the figure that shows a few instructions added to a path.
# Uses the programs ab.sh compiled (OUT of ab.sh: old-ROW/, new-ROW/, args-ROW).
#
#   OUT=/path/to/ab/out sh bench/timings/instr-ab.sh
set -e
OUT=${OUT:?OUT=the directory ab.sh wrote}
count() {   # count DIR ITERATIONS SCALE: instructions of a whole run
    (cd "$1" && valgrind --tool=callgrind --callgrind-out-file=/dev/null ./a.out "$2" "$3" 1 2>&1 |
        sed -n 's/.*refs: *\([0-9,]*\).*/\1/p' | tr -d ,)
}
printf "%-8s %12s %12s %8s\n" test "old instr" "new instr" new-old
for a in "$OUT"/args-*; do
    row=${a##*/args-}
    read -r b s < "$a"
    o=$(( $(count "$OUT/old-$row" 20000 "$s") - $(count "$OUT/old-$row" 10000 "$s") ))
    n=$(( $(count "$OUT/new-$row" 20000 "$s") - $(count "$OUT/new-$row" 10000 "$s") ))
    awk -v r="$row" -v o="$o" -v n="$n" -v k=$((10000 * s)) 'BEGIN {
        printf "%-8s %12.1f %12.1f %+8.1f\n", r, o / k, n / k, (n - o) / k }'
done
