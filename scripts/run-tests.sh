#!/bin/sh
# run-tests.sh LABEL PROG...: runs each test program (exit 0 = pass) with a
# time limit, prints PASS/FAIL lines and the closing "N passed, N failed".
label=$1; shift
pass=0; fail=0
for t in "$@"; do
  if timeout "${TEST_TIMEOUT:-120}" "$t" >"$t.log" 2>&1 </dev/null; then
    pass=$((pass+1)); echo "PASS $label/${t##*/}"
  else
    fail=$((fail+1)); echo "FAIL $label/${t##*/} (log: $t.log)"; tail -n 20 "$t.log" | sed 's/^/    /'
  fi
done
echo "$label: $pass passed, $fail failed"
[ "$fail" = 0 ]
