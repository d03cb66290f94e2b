# The code's style is the tools' (issue 18): the compiler's Rust as rustfmt
# writes it (compiler/rustfmt.toml), the runtime's and libraries' C as
# clang-format writes it (.clang-format).  Reformat with
#   (cd compiler && cargo fmt) && git ls-files '*.c' '*.h' | grep -v '^tests/' | xargs clang-format -i
. scripts/lib/need.sh
p=0; f=0
if ! need "style: rustfmt" "rustup component add rustfmt" rustfmt; then :
elif (cd compiler && cargo fmt --check >/dev/null 2>&1); then
  p=$((p+1)); echo "PASS style: rustfmt"
else
  f=$((f+1)); echo "FAIL style: rustfmt (run: cd compiler && cargo fmt)"
  (cd compiler && cargo fmt --check 2>&1 | head -20 | sed 's/^/    /')
fi
if need "style: clang-format" clang-format clang-format; then
  bad=$(git ls-files '*.c' '*.h' | grep -v '^tests/' | xargs clang-format --dry-run 2>&1 | grep -c 'warning:')
  if [ "$bad" = 0 ]; then
    p=$((p+1)); echo "PASS style: clang-format"
  else
    f=$((f+1)); echo "FAIL style: clang-format ($bad places; run clang-format -i on the files below)"
    git ls-files '*.c' '*.h' | grep -v '^tests/' | xargs clang-format --dry-run 2>&1 | grep 'warning:' | cut -d: -f1 | sort -u | head | sed 's/^/    /'
  fi
fi
# Sizes (issue 18): no compiler source file over 800 lines, no function over
# 120 lines, tests excepted (tools/rust-sizes.py).
if out=$(python3 tools/rust-sizes.py compiler/src 800 120); then
  p=$((p+1)); echo "PASS style: compiler sizes"
else
  f=$((f+1)); echo "FAIL style: compiler sizes (split these)"; echo "$out" | sed 's/^/    /'
fi
need_tally style $p $f
