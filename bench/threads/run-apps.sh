#!/bin/sh
# run-apps.sh [MAXVP] [ROUNDS]: TSP and Time Warp PHOLD with spin, blocking and adaptive locks
# for 1..MAXVP virtual processors, then (report-apps.sh) tables, plots and the contention
# profiles of every lock (at MAXVP VPs) in bench/threads/results/.  Run from the repository
# root after `make` (needs build/); python3 computes the statistics, gnuplot draws the PNGs.
#
# The machine is shared and noisy, so the configurations are interleaved: each round runs
# the three lock kinds back to back, in the next of the six possible orders (a rotation alone
# put adaptive after block in two rounds of three, and later runs in a round are slower on
# average: with all six orders every kind comes before and after every other equally often;
# ROUNDS a multiple of 6 balances exactly), and
# every run is kept in results/apps-raw.dat ("app nvp kind round seconds work").  The
# tables give median and minimum per kind, and compare adaptive with the best static kind
# by the median per-round ratio and its 95% bootstrap interval (apps_stats.py).
#
# BUSY=N: run the same rounds with N busy loops beside them (a machine loaded by other
# work) into results/apps-raw-loaded.dat, print both applications' tables, and stop (no
# profiles, throttling pass or plots).
set -e
MAXVP=${1:-4}; ROUNDS=${2:-15}
BUILD=${BUILD:-$PWD/build}
make -s -C bench/threads BUILD="$BUILD"
B=$BUILD/bench/threads
R=bench/threads/results
mkdir -p "$R/profiles"
TSP_ARGS=${TSP_ARGS:-"13 1 7"}          # cities seed split-depth
PHOLD_ARGS=${PHOLD_ARGS:-"400 256 0"}   # end-time LPs throttle
RAW=$R/apps-raw.dat
BUSY=${BUSY:-0}
if [ "$BUSY" -gt 0 ]; then
  RAW=$R/apps-raw-loaded.dat
  busy=""
  for i in $(seq "$BUSY"); do sh -c 'while :; do :; done' & busy="$busy $!"; done
  trap 'kill $busy 2>/dev/null' EXIT
fi

run1() {  # run1 APP ARGS... -> "seconds work" of one run (work: TSP nodes, PHOLD rollbacks)
  app=$1; shift
  "$B/$app" "$@" | sed -n -e 's/.*nodes=\([0-9]*\).*seconds=\([0-9.]*\).*/\2 \1/p' \
                          -e 's/.*rolled_back=\([0-9]*\).*seconds=\([0-9.]*\).*/\2 \1/p'
}
order() {  # order R: the lock kinds in the (R mod 6)-th of their six orders
  case $(($1 % 6)) in
    0) echo spin block adaptive ;; 1) echo block adaptive spin ;; 2) echo adaptive spin block ;;
    3) echo adaptive block spin ;; 4) echo block spin adaptive ;; *) echo spin adaptive block ;;
  esac
}
echo "# app nvp kind round seconds work(TSP nodes / PHOLD rollbacks); $(date -u +%FT%TZ); load $(cut -d' ' -f1-3 /proc/loadavg); busy loops $BUSY" > "$RAW"
for app in tsp phold; do
  if [ $app = tsp ]; then args=$TSP_ARGS; else args=$PHOLD_ARGS; fi
  for n in $(seq "$MAXVP"); do
    for r in $(seq "$ROUNDS"); do
      for k in $(order "$r"); do
        echo "$app $n $k $r $(run1 $app $k $n $args)" >> "$RAW"
      done
    done
    echo "$app $n: $ROUNDS rounds done"
  done
  if [ "$BUSY" -gt 0 ]; then python3 bench/threads/apps_stats.py "$RAW" $app /dev/null; continue; fi
  # one more run per lock kind at MAXVP, keeping the contention profiles
  for k in spin block adaptive; do "$B/$app" $k "$MAXVP" $args "$R/profiles" > /dev/null; done
done
[ "$BUSY" -gt 0 ] && exit 0
# PHOLD with the throttling window (feedback policy) against without, adaptive locks
THR=$R/phold-throttle-raw.dat
echo "# nvp round no-throttle-seconds window-8-seconds" > "$THR"
set -- $PHOLD_ARGS
for n in $(seq "$MAXVP"); do
  for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 0 ]; then   # alternate which of the pair runs first
      a=$(run1 phold adaptive "$n" "$1" "$2" 0 | cut -d' ' -f1); t=$(run1 phold adaptive "$n" "$1" "$2" 8 | cut -d' ' -f1)
    else
      t=$(run1 phold adaptive "$n" "$1" "$2" 8 | cut -d' ' -f1); a=$(run1 phold adaptive "$n" "$1" "$2" 0 | cut -d' ' -f1)
    fi
    echo "$n $r $a $t" >> "$THR"
  done
done
sh bench/threads/report-apps.sh "$MAXVP" "$ROUNDS"
