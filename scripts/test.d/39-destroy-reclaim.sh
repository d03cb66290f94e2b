# Destroyed resources give back their processes, and short processes reuse
# cached stacks (tests/reclaim/*.mpd, tests/corpus/destroy/*.mpd).
# 1. tests/corpus/destroy/*.mpd against the AddressSanitizer runtime and
#    the ThreadSanitizer one (1, 2 and 4 VPs), as 37-localop-reclaim does:
#    waking a destroyed resource's parked processes (in, receive, P, on its
#    own ops or other objects'), freeing its instance and calling a
#    capability to it after its memory went to new instances (stale_*) use
#    nothing freed and race with nothing.
# 2. Peak resident size at 50000 and 1000000 iterations, 1 and 4 VPs:
#    - short_forks (one short process at a time): flat (< 16 MB more);
#    - pairs (create, call, destroy a resource with no process), var_pairs
#      (the same with string, array and record variables: ~1 KB of blobs),
#      server_pairs (its server waits in `in` and another process in P,
#      which MPD's "process blocked on killed sem" warns about, on stderr)
#      and once_pairs (its server has answered and is ending, another is
#      ready to run): the instance, its op blocks and its processes' stacks
#      all come back, so less than 96 MB more over 950000 instances (< 100
#      bytes each; an instance alone is ~0.4-0.6 KB, its processes ~5 KB).
#      On one VP an instance is freed at once (flat); on several, after a
#      grace period, so what waits for one depends on how loaded the
#      machine is (measured 10-40 MB at 1000000), never on the count.
# 3. short_forks makes at most a few hundred mmap calls for 200000
#    processes: the stacks come from the per-VP cache (needs strace).
R=$(pwd)/runtime
B=${BUILD:-$(pwd)/build}/ops-san
A=$B/asan                   # shared with 15-ops-sanitizers.sh
T=$B/tsan                   # shared with 36-mvp-tsan.sh
W=$B/reclaim
MPD=${BUILD:-$(pwd)/build}/bin/mpd
C=tests/corpus/destroy
# the programs whose output does not depend on how processes interleave
# (the programs that must fail to compile, .cerr, are the corpus step's)
progs=$(for s in $C/*.mpd; do [ -f "${s%.mpd}.nondet" ] || [ -f "${s%.mpd}.cerr" ] || echo "$s"; done)
p=0; f=0
mkdir -p "$W"
. scripts/san-runs.sh
. scripts/lib/need.sh
if make -s -C "$R" BUILD="$A" SAN=address,undefined CC=gcc OPT=-O1 SRCDIRS="csw core sync lang" all \
     >"$W/asan-build.log" 2>&1; then
  san_runs asan "$A" "gcc -fsanitize=address,undefined -g" "1 2 4" "$progs" ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1
else f=$((f+1)); echo "FAIL asan runtime build"; tail -n 20 "$W/asan-build.log"; fi
if ! need destroy-reclaim/tsan clang clang; then :
elif make -s -C "$R" BUILD="$T" SAN=thread CC=clang OPT=-O1 SRCDIRS="csw core sync lang" all \
     >"$W/tsan-build.log" 2>&1; then
  san_runs tsan "$T" "clang -fsanitize=thread -g" "1 2 4" "$progs" TSAN_OPTIONS="halt_on_error=1 exitcode=66"
else f=$((f+1)); echo "FAIL tsan runtime build"; tail -n 20 "$W/tsan-build.log"; fi

# peak PROG N VPS: peak resident size (KB) of one run, and its wall time
peak() {
  python3 -c 'import os, resource, subprocess, sys, time
env = dict(os.environ, MPD_PARALLEL=sys.argv[2])
t = time.monotonic()
subprocess.run([sys.argv[3], sys.argv[1]], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "%.2f" % (time.monotonic() - t))' "$2" "$3" "$W/plain/$1"
}
rm -rf "$W/plain"; mkdir -p "$W/plain"
for prog in short_forks pairs var_pairs server_pairs once_pairs; do
  cp tests/reclaim/$prog.mpd "$W/plain/"
  if ! (cd "$W/plain" && "$MPD" -o $prog $prog.mpd >compile-$prog.out 2>&1); then
    f=$((f+1)); echo "FAIL $prog (compile)"; continue
  fi
  for n in 1 4; do
    set -- $(peak $prog 50000 $n) $(peak $prog 1000000 $n)
    small=${1:-0} big=${3:-999999999}
    what="$prog, $n VPs: peak $small KB at 50000, $big KB at 1000000 (${4:-?} s)"
    grow=$((big - small))
    case $prog in
      short_forks) limit=16384 ;;
      *) limit=98304 ;;               # KB over 950000 instances: < 100 B each
    esac
    if [ $grow -lt $limit ]; then
      p=$((p+1)); echo "PASS $what"
    else
      f=$((f+1)); echo "FAIL $what (growth must stay under $limit KB)"
    fi
  done
done

if need destroy-reclaim/mmap-count strace strace; then
  maps=$(cd "$W/plain" && strace -f -e trace=mmap -o mmap.log ./short_forks 200000 >/dev/null 2>&1;
         grep -c 'mmap(' mmap.log)
  if [ "${maps:-999999}" -lt 2000 ]; then
    p=$((p+1)); echo "PASS short_forks: $maps mmap calls for 200000 processes"
  else
    f=$((f+1)); echo "FAIL short_forks: ${maps:-?} mmap calls for 200000 processes (cached stacks: want < 2000)"
  fi
fi
need_tally destroy-reclaim $p $f
