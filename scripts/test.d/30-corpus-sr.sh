# The project's own SR conformance corpus (tests/corpus-sr), by the SR front end,
# then the preprocessors' programs there (<name>.ccr, .m, .csp: ccr2sr, m2sr,
# csp2sr, then sr, run; the output, sorted, must equal <name>.std sorted:
# processes interleave; <name>.perr: the preprocessor must reject it).
out=$(mktemp)
sh tests/run-corpus.sh "$BUILD/bin" sr >"$out" 2>&1; rc=$?
cat "$out"
line=$(tail -n 1 "$out"); rm -f "$out"
pass=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p'); pass=${pass:-0}
fail=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p'); fail=${fail:-1}
work=$(mktemp -d)
# prep_run BASE TOOL OPTION: the tool with OPTION (may be empty) on BASE.EXT,
# then sr and the program; or, with BASE.perr, the tool must fail saying
# each line of BASE.perr.
prep_run() {
  base=$1; tool=$2; opt=$3; src=$base.$ext; f=${src##*/}
  d="$work/$(echo "$base$opt" | tr / _)"; mkdir -p "$d"; cp "$src" "$d/"
  label="$base ($tool${opt:+ $opt})"
  if [ -e "$base.perr" ]; then
    if (cd "$d" && "$BUILD/bin/$tool" $opt "$f") </dev/null >/dev/null 2>"$d/err"; then
      fail=$((fail+1)); echo "FAIL $label: accepted bad input"; return
    fi
    while IFS= read -r l; do
      if ! grep -qF -- "$l" "$d/err"; then fail=$((fail+1)); echo "FAIL $label: no message: $l"; cat "$d/err"; return; fi
    done <"$base.perr"
    pass=$((pass+1)); return
  fi
  want=$base.std; [ -e "$base.${opt#-}.std" ] && want=$base.${opt#-}.std
  if (cd "$d" && "$BUILD/bin/$tool" $opt "$f" && "$BUILD/bin/sr" -o prog "${f%.*}.sr" && timeout 60 ./prog </dev/null >run.out 2>&1) </dev/null; then
    sort "$want" >"$d/want"; sort "$d/run.out" >"$d/got"
    if cmp -s "$d/want" "$d/got"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL $label: output differs"; fi
  else
    fail=$((fail+1)); echo "FAIL $label"
  fi
}
# <name>.ccr, .m, .csp: each line of <name>.opts is one run's option (no
# .opts: one run with none); <name>.<option>.std, if there, is that run's
# expected output.
for ext in ccr m csp; do
  case $ext in ccr) tool=ccr2sr ;; m) tool=m2sr ;; csp) tool=csp2sr ;; esac
  for src in tests/corpus-sr/*/*.$ext; do
    [ -e "$src" ] || continue
    base=${src%.$ext}
    if [ -e "$base.opts" ]; then
      while IFS= read -r opt; do prep_run "$base" $tool "$opt"; done <"$base.opts"
    else
      prep_run "$base" $tool ""
    fi
  done
done
rm -rf "$work"
echo "corpus-sr and preprocessors: $pass passed, $fail failed"
[ "$rc" = 0 ] && [ "$fail" = 0 ]
