#!/bin/sh
# run-apps.sh [MAXVP] [REPS]: TSP and Time Warp PHOLD with spin, blocking and adaptive locks
# for 1..MAXVP virtual processors (fastest of REPS runs each), then tables, plots and the
# contention profiles of every lock (adaptive lock at MAXVP VPs) in bench/threads/results/.
# Run from the repository root after `make` (needs build/); gnuplot draws the PNGs.
set -e
MAXVP=${1:-4}; REPS=${2:-3}
BUILD=${BUILD:-$PWD/build}
make -s -C bench/threads BUILD="$BUILD"
B=$BUILD/bench/threads
R=bench/threads/results
mkdir -p "$R/profiles"
TSP_ARGS=${TSP_ARGS:-"13 1 7"}          # cities seed split-depth
PHOLD_ARGS=${PHOLD_ARGS:-"400 256 0"}   # end-time LPs throttle

run1() {  # run1 APP ARGS... -> seconds of one run
  app=$1; shift
  "$B/$app" "$@" | sed -n 's/.*seconds=\([0-9.]*\).*/\1/p'
}
min2() { if [ -z "$1" ]; then echo "$2"; else echo "$1 $2" | awk '{print ($2 < $1) ? $2 : $1}'; fi; }
for app in tsp phold; do
  if [ $app = tsp ]; then args=$TSP_ARGS; else args=$PHOLD_ARGS; fi
  dat=$R/$app.dat
  echo "# nvp spin block adaptive (seconds, fastest of $REPS interleaved runs)" > "$dat"
  for n in $(seq "$MAXVP"); do
    bs=""; bb=""; ba=""
    for r in $(seq "$REPS"); do   # interleave the kinds so load changes hit them alike
      bs=$(min2 "$bs" "$(run1 $app spin $n $args)")
      bb=$(min2 "$bb" "$(run1 $app block $n $args)")
      ba=$(min2 "$ba" "$(run1 $app adaptive $n $args)")
    done
    echo "$n $bs $bb $ba" >> "$dat"
    echo "$app $n $bs $bb $ba"
  done
  # one more run per lock kind at MAXVP, keeping the contention profiles
  for k in spin block adaptive; do "$B/$app" $k "$MAXVP" $args "$R/profiles" > /dev/null; done
done
# PHOLD with the throttling window (feedback policy) against without, adaptive locks
echo "# nvp no-throttle throttle-window-8 (seconds, fastest of $REPS)" > "$R/phold-throttle.dat"
set -- $PHOLD_ARGS
for n in $(seq "$MAXVP"); do
  a=""; t=""
  for r in $(seq "$REPS"); do
    a=$(min2 "$a" "$(run1 phold adaptive "$n" "$1" "$2" 0)"); t=$(min2 "$t" "$(run1 phold adaptive "$n" "$1" "$2" 8)")
  done
  echo "$n $a $t" >> "$R/phold-throttle.dat"; echo "phold-throttle $n $a $t"
done

table() {  # markdown table from a .dat file
  awk 'NR==1 {next} {printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4}' "$1"
}
{
  echo "# Applications with spin, blocking and adaptive locks"
  echo
  echo "Machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), shared with other jobs."
  echo "Command: \`sh bench/threads/run-apps.sh $MAXVP $REPS\` (fastest of $REPS runs, seconds)."
  echo
  echo "## TSP branch and bound ($TSP_ARGS: cities seed split-depth)"
  echo
  echo "| VPs | spin | block | adaptive |"; echo "|---:|---:|---:|---:|"; table "$R/tsp.dat"
  echo
  echo "![TSP](tsp.png)"
  echo
  echo "## Time Warp PHOLD ($PHOLD_ARGS: end-time LPs throttle)"
  echo
  echo "| VPs | spin | block | adaptive |"; echo "|---:|---:|---:|---:|"; table "$R/phold.dat"
  echo
  echo "![PHOLD](phold.png)"
  echo
  echo "## PHOLD, adaptive locks, without and with the throttling window"
  echo
  echo "| VPs | no throttle | window 8 + feedback |"; echo "|---:|---:|---:|"
  awk 'NR==1 {next} {printf "| %s | %s | %s |\n", $1, $2, $3}' "$R/phold-throttle.dat"
  echo
  echo "## Contention profiles ($MAXVP VPs): threads waiting at each monitor sample"
  echo
  for f in "$R"/profiles/*-adaptive-"$MAXVP"-*.dat; do
    n=$(basename "$f" .dat); echo "![$n](profiles/$n.png)"
  done
} > "$R/apps.md"

if command -v gnuplot >/dev/null; then
  for app in tsp phold; do
    gnuplot <<GP
set terminal png size 640,420
set output "$R/$app.png"
set title "$app: execution time"
set xlabel "virtual processors"; set ylabel "seconds"; set key top left
plot "$R/$app.dat" using 1:2 with linespoints title "spin", "" using 1:3 with linespoints title "block", "" using 1:4 with linespoints title "adaptive"
GP
  done
  for f in "$R"/profiles/*.dat; do
    n=$(basename "$f" .dat)
    gnuplot <<GP
set terminal png size 640,300
set output "$R/profiles/$n.png"
set title "$n: threads waiting (lock contention profile)"
set xlabel "seconds"; set ylabel "waiting"; set yrange [0:*]
plot "$f" using 1:2 with impulses notitle
GP
  done
fi
echo "wrote $R/apps.md"
