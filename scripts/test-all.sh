#!/bin/sh
# test-all.sh: runs every step in scripts/test.d/ (in name order).  Each step
# prints a closing "LABEL: N passed, M failed" line; this sums them and ends
# with the overall tally.  Exit status is non-zero if any step failed.
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-$PWD/build}; export BUILD
tp=0; tf=0; bad=""
for step in scripts/test.d/*.sh; do
  name=${step##*/}; name=${name%.sh}
  echo "=== $name"
  out=$(mktemp)
  sh "$step" 2>&1 | tee "$out"
  rc=$(tail -n 1 "$out" | sed -n 's/^STEP-EXIT \([0-9]*\)$/\1/p')
  line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
  p=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\1/p')
  f=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\2/p')
  [ -n "$p" ] || { p=0; f=1; echo "$name: no tally printed"; }
  tp=$((tp+p)); tf=$((tf+f))
  [ "$f" = 0 ] || bad="$bad $name"
  rm -f "$out"
done
[ -z "$bad" ] || echo "failing steps:$bad"
echo "$tp passed, $tf failed"
[ "$tf" = 0 ]
