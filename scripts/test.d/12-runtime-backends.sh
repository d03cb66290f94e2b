# Runtime core tests with the other context-switch backends (ucontext, and
# fcontext when Boost.Context is installed), each in its own build dir.
R=$(pwd)/runtime
B=${BUILD:-$(pwd)/build}/csw
core_bins() { for t in "$R"/tests/core/*.c; do n=${t##*/}; echo "$1/tests/runtime/core/${n%.c}"; done; }
. scripts/lib/need.sh
backends=ucontext
need_file "runtime-backends/fcontext" libboost-context-dev "/usr/lib/*/libboost_context.so*" && backends="$backends fcontext"
p=0; f=0
for csw in $backends; do
  if ! make -s -C "$R" BUILD="$B/$csw" CSW=$csw SRCDIRS="csw core sync lang" $(core_bins "$B/$csw"); then
    f=$((f+1)); echo "FAIL build CSW=$csw"; continue
  fi
  for t in $(core_bins "$B/$csw"); do
    n=${t##*/}
    out=$(MPD_TEST_DIV=4 timeout 300 "$t" 2>&1)
    if [ $? = 0 ] && echo "$out" | grep -q "runtime uses: $csw\|: ok"; then
      p=$((p+1)); echo "PASS $csw/$n"
    else f=$((f+1)); echo "FAIL $csw/$n"; echo "$out" | tail -n 30 | sed 's/^/    /'; fi
  done
  "$B/$csw/tests/runtime/core/csw_test" | grep -q "runtime uses: $csw" || { f=$((f+1)); echo "FAIL $csw: runtime did not pick the backend"; }
done
need_tally runtime-backends $p $f
