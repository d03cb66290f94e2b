# The MPF applications (Gauss-Jordan, SOR) at small sizes, as checks: each compares its
# parallel result for 1..3 workers (SOR: 1..4, so its 2 x 2 subgrids run) with its
# sequential solver, workers as processes, then threads.
B="$BUILD/bench/mpf"
mkdir -p "$B"
make -s -C runtime BUILD="$BUILD" >/dev/null || { echo "mpf-apps: 0 passed, 1 failed (build)"; exit 1; }
pass=0; fail=0
for app in gauss_jordan sor; do
  if ! cc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iruntime/include "bench/mpf/apps/$app.c" \
       "$BUILD/lib/libmpdrt.a" -lpthread -lm -o "$B/$app"; then
    fail=$((fail+1)); echo "FAIL mpf-apps/$app (build)"; continue
  fi
  for mode in "" -t; do
    n=100; p=3; [ $app = sor ] && n=40 p=4 # SOR: P = 4 is its 2 x 2 subgrids
    if out=$(timeout 120 "$B/$app" -n $n -p $p $mode 2>&1); then pass=$((pass+1)); echo "PASS mpf-apps/$app $mode"
    else fail=$((fail+1)); echo "FAIL mpf-apps/$app $mode"; echo "$out" | sed 's/^/    /'; fi
  done
done
echo "mpf-apps: $pass passed, $fail failed"
[ "$fail" = 0 ]
