# A short fixed-seed slice of the mutation fuzzer (tools/fuzz.py): mutants of
# the corpus compiled through cc; any internal error (cc rejected our C),
# panic, crash, hang or unlocated error fails the step.  The long run is
# `python3 tools/fuzz.py --minutes N` (docs/testing-tools.md).
BUILD=${BUILD:-$PWD/build}
out=$(python3 tools/fuzz.py --bin "$BUILD/bin" --seed 2026 --count 300 --timeout 120 \
      --out "$BUILD/fuzz-ci" --no-minimize 2>&1); rc=$?
echo "$out" | tail -n 20
n=$(echo "$out" | sed -n 's/^fuzz: \([0-9]*\) inputs.*/\1/p')
f=$(echo "$out" | sed -n 's/^fuzz: .*, \([0-9]*\) failures.*/\1/p')
[ -n "$n" ] || { n=0; f=1; }
[ $rc = 0 ] || [ "${f:-0}" != 0 ] || f=1
echo "fuzz: $((n - f)) passed, $f failed"
[ "$f" = 0 ]
