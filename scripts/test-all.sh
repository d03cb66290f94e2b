#!/bin/sh
# test-all.sh: runs every step in scripts/test.d/ (in name order).  Each step
# prints a closing "LABEL: N passed, M failed" line (", K skipped" when parts
# of it need a tool this machine lacks: scripts/lib/need.sh); this sums them
# and ends with the overall "N passed, M failed, K skipped".  Exit status is
# non-zero if any step failed.  Under CI=true a missing tool is a failure.
# TEST_STEPS (a list of step files) runs only those.
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-$PWD/build}; export BUILD
tp=0; tf=0; ts=0; bad=""
skips=$(mktemp)
for step in ${TEST_STEPS:-scripts/test.d/*.sh}; do
  name=${step##*/}; name=${name%.sh}
  echo "=== $name"
  out=$(mktemp)
  sh "$step" 2>&1 | tee "$out"
  line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
  p=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\1/p')
  f=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\2/p')
  s=$(echo "$line" | sed -n 's/.* failed, \([0-9][0-9]*\) skipped.*/\1/p')
  [ -n "$p" ] || { p=0; f=1; echo "$name: no tally printed"; }
  tp=$((tp+p)); tf=$((tf+f)); ts=$((ts+${s:-0}))
  [ "$f" = 0 ] || bad="$bad $name"
  grep '^SKIP ' "$out" >>"$skips"
  rm -f "$out"
done
[ -z "$bad" ] || echo "failing steps:$bad"
cat "$skips"; rm -f "$skips"
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" = 0 ]
