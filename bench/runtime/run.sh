#!/bin/sh
# run.sh [SCALE]: builds and runs the runtime core benchmarks -- libmpdrt,
# POSIX threads and Go, in the same run -- and prints one table of ns per
# operation with ratios.  The table is also written to $BUILD/bench/runtime.txt.
# Needs libmpdrt built (make) in $BUILD.  SCALE multiplies the loop counts.
cd "$(dirname "$0")/../.." || exit 2
BUILD=${BUILD:-$PWD/build}
OUT=$BUILD/bench
SCALE=${1:-1}
mkdir -p "$OUT"
CC=${CC:-cc}
fc=""; fl=""
if [ -n "$(ls /usr/lib/*/libboost_context.so* 2>/dev/null)" ]; then fc=-DMPD_HAVE_FCONTEXT; fl=-lboost_context; fi
$CC -O2 -std=c11 -Wall -Wextra -D_GNU_SOURCE $fc -Iruntime/include -Iruntime bench/runtime/rt_bench.c \
    "$BUILD/lib/libmpdrt.a" $fl -lpthread -o "$OUT/rt_bench" || exit 1
$CC -O2 -Wall -Wextra bench/runtime/pth_bench.c -lpthread -o "$OUT/pth_bench" || exit 1
have_go=0
if command -v go >/dev/null && (cd bench/runtime/go && GOFLAGS=-mod=mod go build -o "$OUT/go_bench" .); then have_go=1; fi

"$OUT/rt_bench" "$SCALE" >"$OUT/rt.out" || exit 1
"$OUT/pth_bench" "$SCALE" >"$OUT/pth.out" || exit 1
: >"$OUT/go.out"
[ $have_go = 1 ] && "$OUT/go_bench" "$SCALE" >"$OUT/go.out"

{
  echo "Runtime core benchmarks: ns per operation, best of several rounds (lower is better)"
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "command: sh bench/runtime/run.sh $SCALE   (make bench runs it)"
  echo
  awk -v rt="$OUT/rt.out" -v pth="$OUT/pth.out" -v go="$OUT/go.out" '
    BEGIN {
      while ((getline l < rt) > 0) { split(l, a, " "); R[a[1]] = a[2] }
      while ((getline l < pth) > 0) { split(l, a, " "); P[a[1]] = a[2] }
      while ((getline l < go) > 0) { split(l, a, " "); G[a[1]] = a[2] }
      n = split("switch_asm switch_fcontext switch_ucontext create_destroy create_run_wait yield sem_pv sem_handoff pingpong_2vp", K, " ")
      D["switch_asm"] = "raw context switch, asm"
      D["switch_fcontext"] = "raw context switch, fcontext"
      D["switch_ucontext"] = "raw context switch, ucontext"
      D["create_destroy"] = "create+destroy (batches of 100)"
      D["create_run_wait"] = "create, run, wait for it"
      D["yield"] = "yield (2 processes)"
      D["sem_pv"] = "sem P+V, no switch"
      D["sem_handoff"] = "sem handoff with switch"
      D["pingpong_2vp"] = "ping-pong between 2 VPs"
      T["switch_asm"] = "<=10"; T["sem_handoff"] = "<=25"; T["create_destroy"] = "<=100"; T["sem_pv"] = "<=3"
      printf "%-33s %9s %6s %10s %9s %9s %8s\n", "operation", "mpd", "target", "pthreads", "Go", "pthr/mpd", "Go/mpd"
      for (i = 1; i <= n; i++) {
        k = K[i]; if (!(k in R)) continue
        p = (k in P) ? sprintf("%.1f", P[k]) : "-"
        g = (k in G) ? sprintf("%.1f", G[k]) : "-"
        rp = (k in P && R[k] > 0) ? sprintf("%.1fx", P[k] / R[k]) : "-"
        rg = (k in G && R[k] > 0) ? sprintf("%.1fx", G[k] / R[k]) : "-"
        printf "%-33s %9.1f %6s %10s %9s %9s %8s\n", D[k], R[k], (k in T) ? T[k] : "", p, g, rp, rg
      }
    }'
  echo
  echo "pthreads: threads, sched_yield, POSIX semaphores (handoff pinned to one CPU); Go: goroutines,"
  echo "runtime.Gosched, sync.Mutex for P+V, unbuffered channels for handoff (GOMAXPROCS=1, 2 for ping-pong)."
  echo "mpd ping-pong between 2 VPs: MPD_PARALLEL=2, processes not pinned; includes idle VPs sleeping on a futex."
} | tee "$OUT/runtime.txt"
