# The adaptive-lock applications (bench/threads) at small sizes, as checks of their
# invariants: the TSP optimum and the committed PHOLD trajectory (its checksum) must not
# depend on the lock kind (spin, block, adaptive), the number of VPs (1..3) or the
# throttling window.  (Their speed is measured by bench/threads/run-apps.sh, not here.)
BUILD=${BUILD:-$PWD/build}
BUILD=${BUILD:-$PWD/build}
B="$BUILD/tests/threads-apps"
mkdir -p "$B"
make -s -C runtime BUILD="$BUILD" >/dev/null || { echo "threads-apps: 0 passed, 1 failed (build)"; exit 1; }
pass=0; fail=0
for app in tsp phold; do
  cc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$BUILD/include" "bench/threads/$app.c" \
     "$BUILD/lib/libmpdrt.a" -lpthread -lm -o "$B/$app" || { fail=$((fail+1)); echo "FAIL threads-apps/$app (build)"; }
done
check() {  # check NAME KEY RUNS...: every run prints the same KEY=value
  name=$1; key=$2; shift 2; vals=""; ok=1
  for r in "$@"; do
    v=$(timeout 120 $r | sed -n "s/.* $key=\([^ ]*\).*/\1/p")
    [ -n "$v" ] || { ok=0; echo "    no $key from: $r"; }
    vals="$vals $v"
  done
  n=$(echo $vals | tr ' ' '\n' | sort -u | wc -l)
  if [ $ok = 1 ] && [ "$n" = 1 ]; then pass=$((pass+1)); echo "PASS threads-apps/$name ($key$vals)"
  else fail=$((fail+1)); echo "FAIL threads-apps/$name ($key:$vals)"; fi
}
runs=""; for k in spin block adaptive; do for n in 1 2 3; do runs="$runs|$B/tsp $k $n 10 3 4"; done; done
IFS='|'; set -- ${runs#|}; unset IFS
check tsp best "$@"
runs=""; for k in spin block adaptive; do for n in 1 2 3; do for w in 0 4; do runs="$runs|$B/phold $k $n 60 48 $w"; done; done; done
IFS='|'; set -- ${runs#|}; unset IFS
check phold checksum "$@"
echo "threads-apps: $pass passed, $fail failed"
[ "$fail" = 0 ]
