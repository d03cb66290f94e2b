#!/bin/sh
# run-apps.sh [MAXVP] [ROUNDS]: TSP and Time Warp PHOLD with spin, blocking and adaptive locks
# for 1..MAXVP virtual processors, then tables, plots and the contention profiles of every lock
# (at MAXVP VPs) in bench/threads/results/.  Run from the repository root after `make`
# (needs build/); python3 computes the statistics, gnuplot draws the PNGs.
#
# The machine is shared and noisy, so the configurations are interleaved: each round runs
# the three lock kinds back to back (in an order that rotates from round to round), and
# every run is kept in results/apps-raw.dat ("app nvp kind round seconds work").  The
# tables give median and minimum per kind, and compare adaptive with the best static kind
# by the median per-round ratio and its 95% bootstrap interval (apps_stats.py).
set -e
MAXVP=${1:-4}; ROUNDS=${2:-9}
BUILD=${BUILD:-$PWD/build}
make -s -C bench/threads BUILD="$BUILD"
B=$BUILD/bench/threads
R=bench/threads/results
mkdir -p "$R/profiles"
TSP_ARGS=${TSP_ARGS:-"13 1 7"}          # cities seed split-depth
PHOLD_ARGS=${PHOLD_ARGS:-"400 256 0"}   # end-time LPs throttle
RAW=$R/apps-raw.dat

run1() {  # run1 APP ARGS... -> "seconds work" of one run (work: TSP nodes, PHOLD rollbacks)
  app=$1; shift
  "$B/$app" "$@" | sed -n -e 's/.*nodes=\([0-9]*\).*seconds=\([0-9.]*\).*/\2 \1/p' \
                          -e 's/.*rolled_back=\([0-9]*\).*seconds=\([0-9.]*\).*/\2 \1/p'
}
rotate() {  # rotate R WORDS...: the words rotated left by R mod their count
  r=$1; shift; n=$#; i=0; head=""; tail=""
  for w in "$@"; do if [ $i -lt $((r % n)) ]; then tail="$tail $w"; else head="$head $w"; fi; i=$((i + 1)); done
  echo $head $tail
}
echo "# app nvp kind round seconds work(TSP nodes / PHOLD rollbacks); $(date -u +%FT%TZ); load $(cut -d' ' -f1-3 /proc/loadavg)" > "$RAW"
for app in tsp phold; do
  if [ $app = tsp ]; then args=$TSP_ARGS; else args=$PHOLD_ARGS; fi
  for n in $(seq "$MAXVP"); do
    for r in $(seq "$ROUNDS"); do
      for k in $(rotate "$r" spin block adaptive); do
        echo "$app $n $k $r $(run1 $app $k $n $args)" >> "$RAW"
      done
    done
    echo "$app $n: $ROUNDS rounds done"
  done
  # one more run per lock kind at MAXVP, keeping the contention profiles
  for k in spin block adaptive; do "$B/$app" $k "$MAXVP" $args "$R/profiles" > /dev/null; done
done
# PHOLD with the throttling window (feedback policy) against without, adaptive locks
THR=$R/phold-throttle-raw.dat
echo "# nvp round no-throttle-seconds window-8-seconds" > "$THR"
set -- $PHOLD_ARGS
for n in $(seq "$MAXVP"); do
  for r in $(seq "$ROUNDS"); do
    a=$(run1 phold adaptive "$n" "$1" "$2" 0 | cut -d' ' -f1); t=$(run1 phold adaptive "$n" "$1" "$2" 8 | cut -d' ' -f1)
    echo "$n $r $a $t" >> "$THR"
  done
done
awk '!/^#/ { a[$1] = a[$1] " " $3; t[$1] = t[$1] " " $4 }
     function med(s,   v, n, i, j, x) { n = split(s, v, " ");
       for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
       return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
     END { print "# nvp median(no-throttle) median(window 8)"; for (n in a) print n, med(a[n]), med(t[n]) }' "$THR" |
  sort -n > "$R/phold-throttle.dat"

{
  echo "# Applications with spin, blocking and adaptive locks"
  echo
  echo "Machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), shared with other jobs"
  echo "(load average at the end of the run: $(cut -d' ' -f1-3 /proc/loadavg))."
  echo "Command: \`sh bench/threads/run-apps.sh $MAXVP $ROUNDS\`: $ROUNDS rounds per point, each round runs the"
  echo "three lock kinds back to back in a rotating order; seconds, median (minimum) per kind, fastest"
  echo "median in bold.  Every run is in [apps-raw.dat](apps-raw.dat).  \"adaptive / best\" is the median"
  echo "of the per-round ratios adaptive / best static kind, with its 95% bootstrap interval; the noise"
  echo "band is the interval's half width.  The verdict is \"matches\" when 1 lies inside the interval."
  echo
  echo "## TSP branch and bound ($TSP_ARGS: cities seed split-depth)"
  echo
  python3 bench/threads/apps_stats.py "$RAW" tsp "$R/tsp.dat"
  echo
  echo "![TSP](tsp.png)"
  echo
  echo "## Time Warp PHOLD ($PHOLD_ARGS: end-time LPs throttle)"
  echo
  python3 bench/threads/apps_stats.py "$RAW" phold "$R/phold.dat"
  echo
  echo "![PHOLD](phold.png)"
  echo
  echo "## PHOLD, adaptive locks, without and with the throttling window (median of $ROUNDS, seconds)"
  echo
  echo "| VPs | no throttle | window 8 + feedback |"; echo "|---:|---:|---:|"
  awk '!/^#/ {printf "| %s | %.4f | %.4f |\n", $1, $2, $3}' "$R/phold-throttle.dat"
  echo
  echo "## Contention profiles ($MAXVP VPs): threads waiting at each monitor sample"
  echo
  echo "Impulses: threads waiting when the monitor sampled (every 2nd unlock, thinned to fit);"
  echo "line: the adaptive lock's spin limit in microseconds (-1: spins until it gets the lock)."
  echo
  for k in spin block adaptive; do
    for f in "$R"/profiles/*-$k-"$MAXVP"-*.dat; do
      n=$(basename "$f" .dat); echo "![$n](profiles/$n.png)"
    done
  done
} > "$R/apps.md"

if command -v gnuplot >/dev/null; then
  for app in tsp phold; do
    gnuplot <<GP
set terminal png size 640,420
set output "$R/$app.png"
set title "$app: execution time (median of $ROUNDS interleaved rounds; dashed: minimum)"
set xlabel "virtual processors"; set ylabel "seconds"; set key top left; set xtics 1
plot "$R/$app.dat" using 1:2 with linespoints lc 1 title "spin", "" using 1:3 with linespoints lc 2 title "block", \
     "" using 1:4 with linespoints lc 3 title "adaptive", \
     "" using 1:5 with lines dt 2 lc 1 notitle, "" using 1:6 with lines dt 2 lc 2 notitle, "" using 1:7 with lines dt 2 lc 3 notitle
GP
  done
  for f in "$R"/profiles/*.dat; do
    n=$(basename "$f" .dat)
    gnuplot <<GP
set terminal png size 640,300
set output "$R/profiles/$n.png"
set title "$n: lock contention profile"
set xlabel "seconds"; set ylabel "threads waiting"; set yrange [0:*]
set y2label "spin limit (us)"; set y2tics; set ytics nomirror
plot "$f" using 1:2 with impulses title "waiting", "" using 1:3 axes x1y2 with lines title "spin limit"
GP
  done
fi
echo "wrote $R/apps.md"
