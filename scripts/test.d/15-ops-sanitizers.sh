# Operations-layer tests (runtime/tests/ops: invocations, in, co, resources,
# multi-VP stress) under ThreadSanitizer (clang) and AddressSanitizer +
# UndefinedBehaviorSanitizer (gcc).  Each test runs its scenarios on 1 and
# several VPs.
R=$(pwd)/runtime
B=${BUILD:-$(pwd)/build}/ops-san
ops_bins() { for t in "$R"/tests/ops/*.c; do n=${t##*/}; echo "$1/tests/runtime/ops/${n%.c}"; done; }
p=0; f=0
run() {   # run LABEL CMD...
  label=$1; shift
  if timeout 300 "$@" >"$B/$(echo "$label" | tr / _).log" 2>&1 </dev/null; then
    p=$((p+1)); echo "PASS $label"
  else
    f=$((f+1)); echo "FAIL $label"; tail -n 30 "$B/$(echo "$label" | tr / _).log" | sed 's/^/    /'
  fi
}
mkdir -p "$B"
. scripts/lib/need.sh
cd "$R" || exit 2
if ! need "ops-sanitizers/tsan" clang clang; then :
elif make -s -C "$R" BUILD="$B/tsan" SAN=thread CC=clang OPT=-O1 SRCDIRS="csw core sync lang" \
     $(ops_bins "$B/tsan") >"$B/tsan-build.log" 2>&1; then
  for t in $(ops_bins "$B/tsan"); do
    TSAN_OPTIONS=halt_on_error=1 run "tsan/${t##*/}" "$t"
  done
else f=$((f+1)); echo "FAIL tsan build"; tail -n 20 "$B/tsan-build.log"; fi
if make -s -C "$R" BUILD="$B/asan" SAN=address,undefined CC=gcc OPT=-O1 SRCDIRS="csw core sync lang" \
     $(ops_bins "$B/asan") >"$B/asan-build.log" 2>&1; then
  for t in $(ops_bins "$B/asan"); do
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 run "asan+ubsan/${t##*/}" "$t"
  done
else f=$((f+1)); echo "FAIL asan build"; tail -n 20 "$B/asan-build.log"; fi
need_tally ops-sanitizers $p $f
