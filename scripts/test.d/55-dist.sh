# The distributed deployment (docs/distributed.md): programs linked with
# --mpi, every virtual machine an MPI process, run oversubscribed on this
# machine.  Three parts:
#   - tests/corpus/dist: programs whose output must be the same as in the
#     embedded default (30-corpus runs them there), checked here against the
#     same .std files;
#   - tests/dist: what only the distributed deployment shows (stop and
#     aborts on another vm, the blocked-process report of every vm, errors
#     of create vm() and of a destroyed vm);
#   - the suite's tests that create vms (../shared/mpd-vsuite), through
#     vsuite.py with MPD_DIST=mpi.
# (runtime/tests/dist/wirefuzz, the message checks fed random and truncated
# messages, needs no MPI: 10-runtime runs it.)
. scripts/lib/need.sh
BUILD=${BUILD:-$PWD/build}
BIN=$BUILD/bin
pass=0; fail=0
need dist "openmpi-bin libopenmpi-dev" mpirun mpicc || { need_tally dist 0 0; exit; }
[ -f "$BUILD/lib/libmpddist.a" ] || make -s -C runtime BUILD="$BUILD" >/dev/null
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export MPD_DIST=mpi MPD_VMS=${MPD_VMS:-5}
work=$(mktemp -d)
for src in tests/corpus/dist/*.mpd tests/dist/*.mpd; do
  base=${src%.mpd}; name=$(echo "$base" | tr / _)
  d="$work/$name"; mkdir -p "$d"; cp "$src" "$d/"
  f=${src##*/}
  if ! (cd "$d" && "$BIN/mpd" -w "$f" >compile.out 2>&1); then
    fail=$((fail+1)); echo "FAIL dist $base (compile)"; head -5 "$d/compile.out" | sed 's/^/    /'; continue
  fi
  want=0; [ -f "$base.code" ] && want=$(cat "$base.code")
  (cd "$d" && timeout 60 ./a.out </dev/null >run.out 2>&1); rc=$?
  if [ "$rc" = "$want" ] && cmp -s "$base.std" "$d/run.out"; then
    pass=$((pass+1))
  else
    fail=$((fail+1)); echo "FAIL dist $base (exit $rc, want $want)"
    diff "$base.std" "$d/run.out" | head -10 | sed 's/^/    /'
  fi
done
rm -rf "$work"

# the suite's programs that create virtual machines (`create vm()`)
if [ -d ../shared/mpd-vsuite ] && [ -f ../shared/tools/vsuite.py ]; then
  tests=$(cd ../shared/mpd-vsuite && grep -l "vm()" -r --include=*.mpd . | xargs -n1 dirname | sort -u |
          sed 's|^\./||' | grep -v '^diag/more$')
  out=$(MPD_VMS=8 python3 ../shared/tools/vsuite.py --suite ../shared/mpd-vsuite --bin "$BIN" \
        --timeout 90 --only $tests vm/ 2>&1)
  echo "$out" | grep '^FAIL' | sed 's/^/vsuite /'
  p=$(echo "$out" | tail -n 1 | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\1/p')
  f=$(echo "$out" | tail -n 1 | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\2/p')
  pass=$((pass+${p:-0})); fail=$((fail+${f:-1}))
fi

need_tally dist $pass $fail
