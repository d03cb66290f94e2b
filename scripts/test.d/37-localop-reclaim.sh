# Op blocks (ops declared in a block, killed at its end; ops made by new(),
# destroyed) are freed when nothing can still point into them: at once on
# one VP, after a grace period on several (runtime/lang/op.c).
# 1. tests/corpus/localop/*.mpd, compiled against an AddressSanitizer build
#    of the runtime (1 and 2 VPs) and a ThreadSanitizer one (2 and 4 VPs):
#    each prints its .std and exits with its .code, ASan sees no use of a
#    freed block and TSan no free racing with a use (held.mpd keeps
#    processes waiting on dead ops in every way that must keep a block).
# 2. grow.mpd and alone.mpd at 50000 and 400000 iterations on 1, 2 and 4
#    VPs: the peak resident size may grow by less than 16 MB (grow makes
#    four blocks per iteration, alone two while the other VPs stay idle;
#    kept, two blocks per iteration took ~90-280 MB more).
R=$(pwd)/runtime
B=${BUILD:-$(pwd)/build}/ops-san
A=$B/asan                   # shared with 15-ops-sanitizers.sh
T=$B/tsan                   # shared with 36-mvp-tsan.sh
W=$B/localop
MPD=${BUILD:-$(pwd)/build}/bin/mpd
C=tests/corpus/localop
p=0; f=0
mkdir -p "$W"
. scripts/san-runs.sh
. scripts/lib/need.sh
if make -s -C "$R" BUILD="$A" SAN=address,undefined CC=gcc OPT=-O1 SRCDIRS="csw core sync lang" all \
     >"$W/asan-build.log" 2>&1; then
  san_runs asan "$A" "gcc -fsanitize=address,undefined -g" "1 2" "$C/*.mpd" ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1
else f=$((f+1)); echo "FAIL asan runtime build"; tail -n 20 "$W/asan-build.log"; fi
if ! need localop-reclaim/tsan clang clang; then :
elif make -s -C "$R" BUILD="$T" SAN=thread CC=clang OPT=-O1 SRCDIRS="csw core sync lang" all \
     >"$W/tsan-build.log" 2>&1; then
  san_runs tsan "$T" "clang -fsanitize=thread -g" "2 4" "$C/*.mpd" TSAN_OPTIONS="halt_on_error=1 exitcode=66"
else f=$((f+1)); echo "FAIL tsan runtime build"; tail -n 20 "$W/tsan-build.log"; fi

# peak resident size (KB) of one run: peak PROG N VPS
peak() {
  python3 -c 'import os, resource, subprocess, sys
env = dict(os.environ, MPD_PARALLEL=sys.argv[2])
subprocess.run([sys.argv[3], sys.argv[1]], env=env, stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$2" "$3" "$W/plain/$1"
}
rm -rf "$W/plain"; mkdir -p "$W/plain"
for prog in grow alone; do
  cp "$C/$prog.mpd" "$W/plain/"
  if ! (cd "$W/plain" && "$MPD" -o $prog $prog.mpd >compile-$prog.out 2>&1); then
    f=$((f+1)); echo "FAIL $prog (compile)"; continue
  fi
  for n in 1 2 4; do
    small=$(peak $prog 50000 $n) && big=$(peak $prog 400000 $n) || { small=0; big=999999999; }
    if [ $((big - small)) -lt 16384 ]; then
      p=$((p+1)); echo "PASS $prog: $n VPs, peak $small KB -> $big KB"
    else
      f=$((f+1)); echo "FAIL $prog: $n VPs, peak $small KB -> $big KB (growth must stay under 16384 KB)"
    fi
  done
done
need_tally localop-reclaim $p $f
