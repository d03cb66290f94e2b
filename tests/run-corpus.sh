#!/bin/sh
# run-corpus.sh [BIN [LANG]]: the project's own conformance corpus of LANG, mpd
# (the default) or sr.  Each tests/corpus/<area>/<name>.mpd is compiled with
# BIN/mpd and run (for sr: tests/corpus-sr/<area>/<name>.sr with BIN/sr); its
# output (stdout+stderr) must equal <name>.std.  Optional companions:
#   <name>.in    standard input (default /dev/null)
#   <name>.args  command-line arguments
#   <name>.code  expected exit status (default 0)
#   <name>.env   environment assignments for the run (e.g. MPD_PARALLEL=2)
#   <name>.nondet  why the output may depend on how processes interleave on
#                several VPs; with CORPUS_DETERMINISTIC=1 (scripts/test.d/
#                35-corpus-mvp.sh runs the corpus that way with MPD_PARALLEL=2
#                and 4) such programs are skipped
# CORPUS_RETRIES=k reruns a failing program up to k times (see below).
# CORPUS_AREAS="a b" runs only those areas; CORPUS_EXEC="qemu-riscv64 -L ..."
# runs each program through that command (scripts/test.d/13-runtime-cross.sh
# runs part of the corpus cross-compiled, under qemu-user).
# A .std named <name>.cerr instead means compilation must fail and
# the compiler's messages must contain every line of the .cerr file (the exit
# status is the number of errors, as with MPD 1.0.1; a .code file fixes it).
BIN=$(cd "${1:-$(dirname "$0")/../build/bin}" && pwd) || exit 2
case ${2:-mpd} in
  mpd) dir=corpus; ext=mpd; comp=mpd ;;
  sr) dir=corpus-sr; ext=sr; comp=sr ;;
  *) echo "usage: run-corpus.sh [BIN [mpd|sr]]" >&2; exit 2 ;;
esac
mkdir -p "$(dirname "$0")/$dir"
cd "$(dirname "$0")/$dir" || exit 2
pass=0; fail=0; skip=0
work=$(mktemp -d)
areas=""; for a in ${CORPUS_AREAS:-*}; do areas="$areas $a/*.$ext"; done
for src in $areas; do
  [ -e "$src" ] || continue
  base=${src%.$ext}; name=$(echo "$base" | tr / _)
  if [ "${CORPUS_DETERMINISTIC:-0}" = 1 ] && [ -f "$base.nondet" ]; then
    skip=$((skip+1)); continue
  fi
  d="$work/$name"; mkdir -p "$d"; cp "$src" "$d/"
  f=${src##*/}
  if [ -f "$base.cerr" ]; then
    (cd "$d" && "$BIN/$comp" "$f" >cerr.out 2>&1); rc=$?
    ok=1; [ $rc -ge 1 ] && [ $rc -le 125 ] || ok=0   # status: the number of errors
    [ -f "$base.code" ] && { [ "$rc" = "$(cat "$base.code")" ] || ok=0; }
    while IFS= read -r l; do grep -qF -- "$l" "$d/cerr.out" || ok=0; done <"$base.cerr"
    if [ $ok = 1 ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL $dir/$base (compile diagnostics)"; head -5 "$d/cerr.out" | sed 's/^/    /'; fi
    continue
  fi
  if ! (cd "$d" && "$BIN/$comp" -o prog "$f" >compile.out 2>&1); then
    fail=$((fail+1)); echo "FAIL $dir/$base (compile)"; head -5 "$d/compile.out" | sed 's/^/    /'; continue
  fi
  in=/dev/null; [ -f "$base.in" ] && in="$PWD/$base.in"
  args=""; [ -f "$base.args" ] && args=$(cat "$base.args")
  envs=""; [ -f "$base.env" ] && envs=$(cat "$base.env")
  want=0; [ -f "$base.code" ] && want=$(cat "$base.code")
  (cd "$d" && env $envs timeout 60 $CORPUS_EXEC ./prog $args <"$in" >run.out 2>&1); rc=$?
  # CORPUS_RETRIES=k (step 35, several VPs): a mismatch is run again up to k
  # times; a pass on a retry counts, but is reported as FLAKY, since it means
  # the program's output depends on the interleaving (a race in the test
  # program, or in the runtime) and must be looked at
  tries=0
  while [ "${CORPUS_RETRIES:-0}" -gt $tries ] && ! { [ "$rc" = "$want" ] && cmp -s "$base.std" "$d/run.out"; }; do
    tries=$((tries+1)); cp "$d/run.out" "$d/run.first" 2>/dev/null
    (cd "$d" && env $envs timeout 60 $CORPUS_EXEC ./prog $args <"$in" >run.out 2>&1); rc=$?
    if [ "$rc" = "$want" ] && cmp -s "$base.std" "$d/run.out"; then
      echo "FLAKY $dir/$base: passed on retry $tries${MPD_PARALLEL:+ (MPD_PARALLEL=$MPD_PARALLEL)}; the failing run:"
      diff "$base.std" "$d/run.first" | head -10 | sed 's/^/    /'
    fi
  done
  if [ "$rc" = "$want" ] && cmp -s "$base.std" "$d/run.out"; then
    pass=$((pass+1))
  else
    fail=$((fail+1)); echo "FAIL $dir/$base (exit $rc, want $want)"
    diff "$base.std" "$d/run.out" | head -10 | sed 's/^/    /'
  fi
done
rm -rf "$work"
echo "$dir${MPD_PARALLEL:+ (MPD_PARALLEL=$MPD_PARALLEL)}: $pass passed, $fail failed${CORPUS_DETERMINISTIC:+, $skip nondeterministic skipped}"
[ $fail = 0 ]
