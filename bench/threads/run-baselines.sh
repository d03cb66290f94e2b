#!/bin/sh
# run-baselines.sh [VPS] [ROUNDS]: TSP and PHOLD with the adaptive lock against five static
# kinds -- spin, block, backed-off spin (backoff), fixed spin-then-block (spinblock) and
# glibc's pthread_mutex (pthread) -- interleaved: each round runs the six kinds back to
# back, in an order rotated by one every round and reversed every other round, so every
# kind runs early and late equally often.  Raw runs go to results/baselines-raw.dat with
# the date and the machine's load; baselines_stats.py prints adaptive / best static with
# a 95% bootstrap interval ("matches" only when it excludes a loss of more than 5%).
#   VPS: list of VP counts (default "1 2 3 4"); ROUNDS (default 12).
#   OLD=DIR: also run the adaptive lock of another build's tsp/phold in DIR (kind
#   adaptive-old, same rounds): old against new policy, side by side.
#   OLD_ADAPTIVE=VARIANT: kind adaptive-old is this build's adaptive lock with a
#   default-policy variant (APP_ADAPTIVE=VARIANT, apps_common.h), e.g. oversubwait for
#   the rule before issue 22 item 3.  The same binaries: another build's differ in code
#   layout, which alone moved PHOLD's contended acquisitions by ~20% at 2 VPs.
#   TIMEOUT=SECONDS: kill a run after that long (it is left out of the raw file and
#   counted at the end): for runs under `chrt -f`, where more VPs than CPUs can keep a
#   holder off its CPU for good (README).
set -e
VPS=${1:-"1 2 3 4"}; ROUNDS=${2:-12}
BUILD=${BUILD:-$PWD/build}
make -s -C bench/threads BUILD="$BUILD"
B=$BUILD/bench/threads
R=bench/threads/results
RAW=${RAW:-$R/baselines-raw.dat}
TSP_ARGS=${TSP_ARGS:-"13 1 7"}
PHOLD_ARGS=${PHOLD_ARGS:-"400 256 0"}
KINDS="spin block backoff spinblock adaptive pthread"
[ -n "${OLD_ADAPTIVE:-}" ] && OLD=${OLD:-$B}
[ -n "${OLD:-}" ] && KINDS="$KINDS adaptive-old"
run1() {  # run1 APP ARGS... -> seconds of one run (nothing if it was killed)
  v=${APP_ADAPTIVE:-}; if [ "$2" = adaptive-old ]; then bin=$OLD/$1; k=adaptive; v=${OLD_ADAPTIVE:-}; else bin=$B/$1; k=$2; fi
  APP_ADAPTIVE=$v ${TIMEOUT:+timeout -s KILL "$TIMEOUT"} "$bin" "$k" "$3" $4 | sed -n 's/.*seconds=\([0-9.]*\).*/\1/p'
}
order() {  # order R: KINDS rotated by R, reversed when R is odd
  r=$1; set -- $KINDS; n=$#; i=0; out=""
  while [ $i -lt $n ]; do eval "k=\${$(( (i + r % n) % n + 1 ))}"; out="$out $k"; i=$((i+1)); done
  if [ $((r % 2)) = 1 ]; then echo "$out" | tr ' ' '\n' | sed '/^$/d' | tac | tr '\n' ' '; else echo "$out"; fi
}
echo "# app nvp kind round seconds; $(date -u +%FT%TZ); load at start $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs" > "$RAW"
for app in tsp phold; do
  if [ $app = tsp ]; then args=$TSP_ARGS; else args=$PHOLD_ARGS; fi
  for n in $VPS; do
    for r in $(seq "$ROUNDS"); do
      for k in $(order "$r"); do
        t=$(run1 $app $k $n "$args" || true)
        if [ -n "$t" ]; then echo "$app $n $k $r $t" >> "$RAW"; else echo "# $app $n $k $r killed or failed" >> "$RAW"; fi
      done
    done
    echo "$app $n: $ROUNDS rounds done (load $(cut -d' ' -f1 /proc/loadavg))"
  done
done
echo "# load at end $(cut -d' ' -f1-3 /proc/loadavg)" >> "$RAW"
python3 bench/threads/baselines_stats.py "$RAW"
