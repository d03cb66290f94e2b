# The distributed deployment's runtime (runtime/dist/: the communication
# thread, VPs that receive, requests and replies between processes) under
# ThreadSanitizer (clang) and AddressSanitizer + UndefinedBehaviorSanitizer
# (gcc): a few distributed programs (tests/corpus/dist, some of tests/dist),
# compiled against a sanitizer build of the runtime and libmpddist, run in
# 3-5 MPI processes on 1 and 2 VPs each.  Each must print its .std and exit
# with its .code, and no process may write a sanitizer report: the reports
# go to files (log_path), since a process other than the main vm's that
# ends on one could not forward it.
# Open MPI itself is not instrumented: its TCP transport (not needed
# between processes of one host) is left out (btl self,vader), as TSan
# reports the lock order inside it; races TSan sees inside Open MPI's
# point-to-point layer (its requests are synchronized by atomics it cannot
# see) are suppressed (tests/dist/tsan-openmpi.supp); and LeakSanitizer is
# off (MPI keeps its allocations to the end).  Under TSan stop_polling runs
# on 1 VP only (its own program races on 2 VPs: it reads a counter another
# process of it writes).
. scripts/lib/need.sh
R=$(pwd)/runtime
BUILD=${BUILD:-$(pwd)/build}
B=$BUILD/ops-san            # the runtime builds of 15-ops-sanitizers, 36-mvp-tsan
W=$BUILD/dist-san
MPD=$BUILD/bin/mpd
p=0; f=0
need dist-sanitizers "openmpi-bin libopenmpi-dev" mpirun mpicc || { need_tally dist-sanitizers 0 0; exit; }
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
mkdir -p "$W"
progs="tests/corpus/dist/*.mpd tests/dist/abort_remote.mpd tests/dist/stop_polling.mpd
       tests/dist/dead_vm.mpd tests/dist/blocked.mpd"

# dist_san LABEL RUNTIME CC ENV...: every program of $progs on 1 and 2 VPs
dist_san() {
  label=$1 rt=$2 cc=$3; shift 3
  for src in $progs; do
    name=$(basename "$src" .mpd); base=${src%.mpd}
    d=$W/$label-$name; rm -rf "$d"; mkdir -p "$d"; cp "$src" "$d/"
    if ! (cd "$d" && MPD_DIST=mpi MPD_HOME="$rt" CC="$cc" "$MPD" -w -o prog "$name.mpd" >compile.out 2>&1); then
      f=$((f+1)); echo "FAIL $label/$name (compile)"; head -5 "$d/compile.out" | sed 's/^/    /'; continue
    fi
    want=0; [ -f "$base.code" ] && want=$(cat "$base.code")
    # stop_polling's own program reads a counter another of its processes
    # writes (a race of the program's, not the runtime's): TSan on 1 VP
    vps="1 2"; [ "$label" = tsan ] && [ "$name" = stop_polling ] && vps=1
    for n in $vps; do
      rm -f "$d"/san.*
      (cd "$d" && env MPD_VMS=5 MPD_PARALLEL=$n OMPI_MCA_btl=self,vader "$@" \
         timeout 120 ./prog >run$n.raw 2>&1 </dev/null); rc=$?
      # the symbolizer's own complaint when TSan symbolizes a frame in
      # Open MPI's shared-memory segment (a suppressed report) is not
      # the program's output
      grep -v '^LLVMSymbolizer: error reading file' "$d/run$n.raw" >"$d/run$n.out"
      if [ "$rc" = "$want" ] && cmp -s "$base.std" "$d/run$n.out" && ! ls "$d"/san.* >/dev/null 2>&1; then
        p=$((p+1))
      else
        f=$((f+1)); echo "FAIL $label/$name MPD_PARALLEL=$n (exit $rc, want $want)"
        diff "$base.std" "$d/run$n.out" | head -10 | sed 's/^/    /'
        cat "$d"/san.* 2>/dev/null | head -40 | sed 's/^/    /'
      fi
    done
  done
}

if ! need "dist-sanitizers/tsan" clang clang; then :
elif make -s -C "$R" BUILD="$B/tsan" SAN=thread CC=clang OPT=-O1 SRCDIRS="csw core sync lang" all \
     >"$W/tsan-build.log" 2>&1; then
  dist_san tsan "$B/tsan" "clang -fsanitize=thread -g" TSAN_OPTIONS="log_path=san exitcode=66 suppressions=$(pwd)/tests/dist/tsan-openmpi.supp"
else f=$((f+1)); echo "FAIL tsan runtime build"; tail -n 20 "$W/tsan-build.log"; fi
if make -s -C "$R" BUILD="$B/asan" SAN=address,undefined CC=gcc OPT=-O1 SRCDIRS="csw core sync lang" all \
     >"$W/asan-build.log" 2>&1; then
  dist_san asan "$B/asan" "gcc -fsanitize=address,undefined -g" \
    ASAN_OPTIONS="log_path=san detect_leaks=0" UBSAN_OPTIONS="log_path=san print_stacktrace=1"
else f=$((f+1)); echo "FAIL asan runtime build"; tail -n 20 "$W/asan-build.log"; fi
need_tally dist-sanitizers $p $f
