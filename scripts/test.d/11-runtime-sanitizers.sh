# Runtime core tests under sanitizers: the multi-VP tests under ThreadSanitizer
# (clang), all of them under AddressSanitizer + UndefinedBehaviorSanitizer (gcc).
# Separate build dirs; long loops shortened with MPD_TEST_DIV.
R=$(pwd)/runtime
B=${BUILD:-$(pwd)/build}/san
core_bins() { for t in "$R"/tests/core/*.c; do n=${t##*/}; echo "$1/tests/runtime/core/${n%.c}"; done; }
. scripts/lib/need.sh
tsan_tests="sem_test stress_test park_test timedwait_test quiesce_test time_io_test sched_test proc_test"
rc=0
if need "runtime-sanitizers/tsan" clang clang; then
  make -s -C "$R" BUILD="$B/tsan" SAN=thread CC=clang OPT=-O1 SRCDIRS="csw core sync lang" \
      $(for t in $tsan_tests; do echo "$B/tsan/tests/runtime/core/$t"; done) || rc=1
else tsan_tests=""; fi
make -s -C "$R" BUILD="$B/asan" SAN=address,undefined CC=gcc OPT=-O1 SRCDIRS="csw core sync lang" \
    $(core_bins "$B/asan") || rc=1
[ $rc = 0 ] || { echo "runtime-sanitizers: 0 passed, 1 failed"; exit 1; }
export MPD_TEST_DIV=10
p=0; f=0
for t in $tsan_tests; do
  if TSAN_OPTIONS="halt_on_error=1" timeout 300 "$B/tsan/tests/runtime/core/$t" >"$B/tsan-$t.log" 2>&1; then
    p=$((p+1)); echo "PASS tsan/$t"
  else f=$((f+1)); echo "FAIL tsan/$t"; tail -n 30 "$B/tsan-$t.log" | sed 's/^/    /'; fi
done
for t in $(core_bins "$B/asan"); do
  n=${t##*/}
  if UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 timeout 300 "$t" >"$B/asan-$n.log" 2>&1; then
    p=$((p+1)); echo "PASS asan+ubsan/$n"
  else f=$((f+1)); echo "FAIL asan+ubsan/$n"; tail -n 30 "$B/asan-$n.log" | sed 's/^/    /'; fi
done
need_tally runtime-sanitizers $p $f
