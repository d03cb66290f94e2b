# The project's own SR conformance corpus (tests/corpus-sr), by the SR front end,
# then the preprocessors' programs there (<name>.ccr: ccr2sr, sr, run; the
# output, sorted, must equal <name>.std sorted: processes interleave).
out=$(mktemp)
sh tests/run-corpus.sh "$BUILD/bin" sr >"$out" 2>&1; rc=$?
cat "$out"
line=$(tail -n 1 "$out"); rm -f "$out"
pass=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p'); pass=${pass:-0}
fail=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p'); fail=${fail:-1}
work=$(mktemp -d)
for src in tests/corpus-sr/*/*.ccr; do
  [ -e "$src" ] || continue
  base=${src%.ccr}; d="$work/$(echo "$base" | tr / _)"; mkdir -p "$d"; cp "$src" "$d/"
  f=${src##*/}
  if (cd "$d" && "$BUILD/bin/ccr2sr" "$f" && "$BUILD/bin/sr" -o prog "${f%.ccr}.sr" && timeout 60 ./prog </dev/null >run.out 2>&1); then
    sort "$base.std" >"$d/want"; sort "$d/run.out" >"$d/got"
    if cmp -s "$d/want" "$d/got"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL $base (ccr2sr: output differs)"; fi
  else
    fail=$((fail+1)); echo "FAIL $base (ccr2sr)"
  fi
done
rm -rf "$work"
echo "corpus-sr and preprocessors: $pass passed, $fail failed"
[ "$rc" = 0 ] && [ "$fail" = 0 ]
