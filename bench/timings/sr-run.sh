#!/bin/sh
# sr-run.sh: SR's timing suite.  The same 12 rows as MPD's (the List of
# ../shared/mpd-vsuite/timings: same names, same scales), written in SR
# (bench/timings/sr/ROW.sr, our own programs) and compiled with our `sr -O`,
# measured in one run beside MPD's programs compiled with our `mpd -O`
# and, when it is built, the same SR programs compiled by SR 2.3.3
# (`SR233=dir-of-its-bin`, default /work/sr233/bin; a 32-bit build).
# ns per operation, one row per program; the ratio SR/MPD checks issue 19's
# target (SR's rows at least as fast as MPD's: the two front ends should
# produce the same C for the same construct).
#
#   sh bench/timings/sr-run.sh [base] [trials] [rounds]      (after `make`)
#
# Every column of a row runs the same iteration count (base * scale,
# base raised for rows whose trial would last < 20 ms, as run.sh does).
# Trials are taken in rounds (default 5) that each run every row and
# column in turn, so load on the shared machine hits the columns alike;
# the best trial of each column is reported (default 15 trials).
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
LIST=${LIST:-$ROOT/../shared/mpd-vsuite/timings}
SRC=$ROOT/bench/timings/sr
SR233=${SR233:-/work/sr233/bin}
BASE=${1:-100000}
TRIALS=${2:-15}
ROUNDS=${3:-5}
OUT=$BUILD/bench/sr-timings
rm -rf "$OUT"; mkdir -p "$OUT"
[ -x "$SR233/sr" ] || SR233=

# compile one column's program of one row in its own directory: col row
build_col() {
    w=$OUT/$1-$2; mkdir -p "$w"
    case $1 in
    sr)    cp "$SRC/$2.sr" "$w/" && (cd "$w" && "$BUILD/bin/sr" -O "$2.sr" >build.log 2>&1) ;;
    mpd)   cp "$LIST/$2"/*.mpd "$w/" && (cd "$w" && "$BUILD/bin/mpd" -q -O ./*.mpd >build.log 2>&1) ;;
    sr233) cp "$SRC/$2.sr" "$w/" && (cd "$w" && "$SR233/sr" -O "$2.sr" >build.log 2>&1) ;;
    esac || echo "$1 $2: does not compile (see $w/build.log)" >&2
}
cols="sr mpd"; [ -z "$SR233" ] || cols="$cols sr233"

# 1. compile every column and size each row's trials on the MPD program
rows=""
while read -r row scale descr; do
    [ -n "$row" ] || continue
    for c in $cols; do build_col "$c" "$row"; done
    b=$BASE
    if [ -x "$OUT/mpd-$row/a.out" ]; then
        ms=$(cd "$OUT/mpd-$row" && ./a.out "$b" "$scale" 1 2>/dev/null | awk '/times/ { print $3; exit }')
        ms=${ms:-0}
        if [ "$ms" -lt 20 ]; then
            f=$(( 30 / (ms > 0 ? ms : 1) ))
            cap=$(( 1000000000 / (b * scale) ))
            [ "$f" -le "$cap" ] || f=$cap
            [ "$f" -ge 1 ] || f=1
            b=$((b * f))
        fi
    fi
    echo "$b $scale $descr" > "$OUT/$row.args"
    rows="$rows $row"
done <<EOT
$(grep -v '^#' "$LIST/List")
EOT

# 2. the trials, in rounds, every column of a row one after the other
per=$(( (TRIALS + ROUNDS - 1) / ROUNDS ))
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for row in $rows; do
        read -r b scale descr < "$OUT/$row.args"
        for c in $cols; do
            w=$OUT/$c-$row
            [ -x "$w/a.out" ] || continue
            (cd "$w" && ./a.out "$b" "$scale" "$per" >>run.out 2>&1) || echo failed >> "$w/run.out"
        done
    done
    r=$((r + 1))
done

# 3. the best trial of each column ("N times   M ms" lines): ns per operation
best() {
    f=$OUT/$1-$2/run.out
    [ -f "$f" ] || { echo -; return; }
    awk '/^failed/ { bad = 1 } /times/ { v = $3 * 1e6 / $1; if (!n++ || v < b) b = v }
         END { if (!n || bad) print "-"; else printf "%.2f\n", b }' "$f"
}
echo "SR timing suite, ns per operation; $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: sh bench/timings/sr-run.sh $BASE $TRIALS $ROUNDS"
printf "%-8s %-41s %8s %8s %8s %7s %9s  %s\n" test description "sr" "mpd" "SR 2.3.3" "sr/mpd" "2.3.3/sr" "target (sr <= mpd, 10% noise)"
for row in $rows; do
    read -r b scale descr < "$OUT/$row.args"
    s=$(best sr "$row"); m=$(best mpd "$row"); o=-
    [ -z "$SR233" ] || o=$(best sr233 "$row")
    awk -v row="$row" -v d="$descr" -v s="$s" -v m="$m" -v o="$o" 'BEGIN {
        r1 = (s != "-" && m != "-" && m > 0) ? sprintf("%.2f", s / m) : "-"
        r2 = (s != "-" && o != "-" && s > 0) ? sprintf("%.1fx", o / s) : "-"
        if (s == "-" || m == "-") v = "no figure"
        else if (s + 0 == 0 && m + 0 == 0) v = "met (cc -O2 removes the empty loop)"
        else if (s <= m * 1.10 + 0.05) v = "met"
        else v = "MISSED"
        printf "%-8s %-41s %8s %8s %8s %7s %9s  %s\n", row, d, s, m, o, r1, r2, v }'
done
