# Compiler warnings cannot come back: the whole runtime library (core, sync,
# lang, MPF, threads), every runtime test program and every C benchmark,
# built with -Wall -Wextra -Werror by clang (skipped when not installed; .ci/run
# installs it) and by gcc.  Each in its own build dir; one PASS/FAIL line per part.
R=$(pwd)/runtime
B=${BUILD:-$(pwd)/build}/warn
W="-O2 -std=c11 -Wall -Wextra -Werror"
p=0; f=0
mkdir -p "$B"
. scripts/lib/need.sh
mpi=0; need "warnings/mpi_bench" libopenmpi-dev mpicc && mpi=1
for cc in clang gcc; do
  need "warnings/$cc" $cc $cc || continue
  tests=$(for t in "$R"/tests/*/*.c; do n=${t#"$R"/tests/}; printf '%s ' "$B/$cc/tests/runtime/${n%.c}"; done)
  if make -s -j2 -C "$R" BUILD="$B/$cc" CC=$cc CFLAGS="$W" all $tests >"$B/$cc-runtime.log" 2>&1; then
    p=$((p+1)); echo "PASS $cc/runtime+tests"
  else
    f=$((f+1)); echo "FAIL $cc/runtime+tests"; grep -E 'error|warning' "$B/$cc-runtime.log" | head -n 20 | sed 's/^/    /'
    continue
  fi
  : >"$B/$cc-bench.log"
  ok=1
  for c in bench/*/*.c bench/*/*/*.c; do
    [ -f "$c" ] || continue
    extra=""
    case $c in
      *mpi_bench.c) [ $mpi = 1 ] || continue; extra=$(mpicc --showme:compile 2>/dev/null) ;;
    esac
    $cc $W -D_GNU_SOURCE $extra -I"$R/include" -I"$R" -c "$c" -o "$B/$cc-bench.o" >>"$B/$cc-bench.log" 2>&1 || ok=0
  done
  if [ $ok = 1 ]; then p=$((p+1)); echo "PASS $cc/bench"
  else f=$((f+1)); echo "FAIL $cc/bench"; head -n 20 "$B/$cc-bench.log" | sed 's/^/    /'; fi
done
need_tally warnings $p $f
