#!/bin/sh
# run.sh BIN [--oracle DIR | --update]: checks srtex and srlatex (in BIN)
# and srgrind against the expected outputs listed in tests/srfmt/cases.
#   --oracle DIR  compares each expected file with SR 2.3.3's tool in DIR
#                 instead (how the expected files were checked; srgrind
#                 has none)
#   --update      rewrites the expected files with BIN's output (review the
#                 diff, then check them with --oracle)
# Prints "srfmt: N passed, M failed".
bin=$1; mode=${2:-}; oracle=${3:-}
cd "$(dirname "$0")" || exit 2
pass=0; fail=0
tmp=$(mktemp -d)
while read -r want tool args; do
  case "$want" in ''|'#'*) continue ;; esac
  eval "set -- $args"
  case "$mode" in
    --update) "$bin/$tool" "$@" >"$want" 2>"$want.err"; [ -s "$want.err" ] || rm -f "$want.err"; continue ;;
    --oracle) [ "$tool" = srgrind ] && continue; "$oracle/$tool" "$@" >"$tmp/out" 2>/dev/null ;;
    *) "$bin/$tool" "$@" >"$tmp/out" 2>"$tmp/err" ;;
  esac
  rc=$?
  if [ "$rc" != 0 ]; then fail=$((fail+1)); echo "FAIL $tool $args: exit status $rc"; continue; fi
  if ! cmp -s "$want" "$tmp/out"; then
    fail=$((fail+1)); echo "FAIL $tool $args: output differs from $want"
    diff "$want" "$tmp/out" | head -5 | sed 's/^/    /'; continue
  fi
  if [ -z "$mode" ] && [ -e "$want.err" ] && ! cmp -s "$want.err" "$tmp/err"; then
    fail=$((fail+1)); echo "FAIL $tool $args: messages differ from $want.err"; continue
  fi
  pass=$((pass+1))
done <cases
rm -rf "$tmp"
echo "srfmt: $pass passed, $fail failed"
[ "$fail" = 0 ]
