# The skip rules of make test (scripts/lib/need.sh): on a machine without the
# optional tools a step's parts that need them are reported as skipped and the
# run passes; under CI=true the same run fails.  Tried on the steps that need
# clang or the cross tools and end at once without them.
. scripts/lib/need.sh
p=0; f=0
bare=$(mktemp -d)
PATH_BARE=$(sh scripts/bare-path.sh "$bare/bin")
steps="scripts/test.d/13-runtime-cross.sh scripts/test.d/36-mvp-tsan.sh scripts/test.d/40-mpf.sh"
out=$(env -u CI PATH="$PATH_BARE" TEST_STEPS="$steps" sh scripts/test-all.sh 2>&1); rc=$?
last=$(echo "$out" | tail -n 1)
if [ $rc = 0 ] && [ "$last" = "0 passed, 0 failed, 4 skipped" ] &&
   echo "$out" | grep -q '^SKIP mvp-tsan: needs clang (package clang: sudo sh scripts/install-deps.sh)$' &&
   echo "$out" | grep -q '^SKIP runtime-cross/riscv64: needs riscv64-linux-gnu-gcc'; then
  p=$((p+1)); echo "PASS skips: bare machine passes with the skips named"
else
  f=$((f+1)); echo "FAIL skips: bare machine (exit $rc, last line: $last)"; echo "$out" | tail -n 12 | sed 's/^/    /'
fi
out=$(CI=true PATH="$PATH_BARE" TEST_STEPS="$steps" sh scripts/test-all.sh 2>&1); rc=$?
last=$(echo "$out" | tail -n 1)
if [ $rc != 0 ] && [ "$last" = "0 passed, 4 failed, 0 skipped" ] &&
   echo "$out" | grep -q '^FAIL mvp-tsan: needs clang'; then
  p=$((p+1)); echo "PASS skips: under CI=true a missing tool fails"
else
  f=$((f+1)); echo "FAIL skips: CI=true (exit $rc, last line: $last)"; echo "$out" | tail -n 12 | sed 's/^/    /'
fi
rm -rf "$bare"
need_tally skips $p $f
