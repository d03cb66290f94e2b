#!/bin/sh
# run.sh: builds and runs the MPF benchmarks with their anchors side by side, then writes tables and plots.
#
#   sh bench/mpf/run.sh [quick]        (from the repository root, after `make runtime`)
#   sh bench/mpf/run.sh latency [R]    only the latency rounds (R of them, default 6), into
#                                      bench/results/mpf/latency.txt, with a summary; docs untouched
#
# For every pattern (base, fcfs, broadcast, random) and ping-pong latency it runs, in one go:
#   mpf-threads  MPF in one program, POSIX threads            (mpf_bench ... threads)
#   mpf-procs    MPF across forked processes, named shm       (mpf_bench ... procs)
#   mpf-lwp      MPF between MPD lightweight processes, 1 VP  (mpf_bench ... lwp)
#   socket       Unix datagram sockets between processes      (sock_bench)
#   mpi          Open MPI, shared-memory transport            (mpirun -np P mpi_bench), if mpicc exists
#   bare-line    (latency only) two pinned processes ping-ponging one cache line: the floor
# Raw lines go to bench/results/mpf/results.txt; tables to docs/mpf/results.md; plots to docs/mpf/*.svg.
# The machine is shared and noisy: compare columns of one run, not runs of different days.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD=${BUILD:-$ROOT/build}
B=$BUILD/bench/mpf
OUT=$ROOT/bench/results/mpf
DOC=$ROOT/docs/mpf
mkdir -p "$B" "$OUT" "$DOC"
[ -f "$BUILD/lib/libmpdrt.a" ] || make -s -C runtime BUILD="$BUILD"
CFLAGS="-O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra"
cc $CFLAGS -I"$ROOT/runtime/include" bench/mpf/mpf_bench.c "$BUILD/lib/libmpdrt.a" -lpthread -lm -o "$B/mpf_bench"
cc $CFLAGS bench/mpf/sock_bench.c -o "$B/sock_bench"
MPI=""
if command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then
  mpicc -O2 bench/mpf/mpi_bench.c -o "$B/mpi_bench" && MPI="mpirun --allow-run-as-root --oversubscribe"
fi

QUICK=${1:-}
if [ "$QUICK" = quick ]; then
  BASE_SIZES="64 4096"; SIZES="64 4096"; NS="1 4"; RNS="4"; VOLUME=4000000; SCALE=10
else
  BASE_SIZES="16 64 256 1024 4096 16384 65536"; SIZES="64 1024 16384"; NS="1 2 4"; RNS="2 4"; VOLUME=64000000; SCALE=1
fi
# Messages per run: VOLUME bytes, at least 5000 and at most 200000 messages (base: 20000..500000, 1 GB).
count() { c=$((VOLUME / $1)); [ $c -lt 5000 ] && c=5000; [ $c -gt 200000 ] && c=200000; echo $((c / SCALE)); }
bcount() { c=$((1000000000 / $1)); [ $c -lt 20000 ] && c=20000; [ $c -gt 500000 ] && c=500000; echo $((c / SCALE)); }

RES=$OUT/results.txt
[ "$QUICK" = latency ] && RES=$OUT/latency.txt
: > "$RES"
run() { # label cmd...: one benchmark line, or a note if it failed
  if line=$(timeout 120 "$@" 2>/dev/null | tail -n 1) && [ -n "$line" ]; then echo "$line" | tee -a "$RES"
  else echo "# failed: $*" | tee -a "$RES"; fi
}
mpi() { [ -n "$MPI" ] && run $MPI -np "$1" "$B/mpi_bench" "$2" "$3" "$4" || true; }

echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$RES"
# The MPI anchor is only comparable with its version and transport settings written down:
# the Open MPI version, the command line, every OMPI_MCA_* variable set, and the values the
# shared-memory transports would use (ompi_info, level 9).
if [ -n "$MPI" ]; then
  echo "# mpi: $(ompi_info --version 2>/dev/null | head -n 1); command: $MPI -np P mpi_bench" | tee -a "$RES"
  env | grep '^OMPI_MCA_' | sed 's/^/# mpi env: /' | tee -a "$RES" || true
  ompi_info --param btl vader --level 9 --parsable 2>/dev/null |
    grep -E 'btl_vader_(single_copy_mechanism|eager_limit|max_send_size|fbox_max|fbox_threshold|sc_emu_btls)' |
    grep -E ':param:[a-z_]+:value:' | sed 's/^/# mpi mca: /' | tee -a "$RES" || true
  ompi_info --param pml ob1 --level 9 --parsable 2>/dev/null | grep -E ':param:[a-z_]+:value:' | head -n 8 | sed 's/^/# mpi mca: /' | tee -a "$RES" || true
fi
# Latency: three rounds, because where the hypervisor places the two vCPUs changes the cost of a
# cache-line transfer (the bare-line floor, measured first in each round) from minute to minute.
# The pinned cross-process runs (bare line, MPF, Open MPI, which binds its ranks to cores) come
# first in a round, back to back, so that they see the same placement.
c=$((200000 / SCALE))
ROUNDS="1 2 3"
[ "$QUICK" = latency ] && ROUNDS=$(seq 1 "${2:-6}")
for round in $ROUNDS; do
  run env MPF_BENCH_PIN=1 "$B/mpf_bench" bare procs 1 8 $c       # one cache line each way, no MPF
  for s in 16 64; do
    run env MPF_BENCH_PIN=1 "$B/mpf_bench" latency procs 1 $s $c   # prints as mpf-pinned
    mpi 2 latency $s $c
  done
  for s in 16 64; do
    for d in lwp threads procs; do run "$B/mpf_bench" latency $d 1 $s $c; done
    run "$B/sock_bench" latency 1 $s $c
  done
done
if [ "$QUICK" = latency ]; then # one line per implementation and size: fastest batch of each round
  echo "# one way, ns, fastest batch of 20 round trips, per round:"
  awk '$2 == "latency" { k = $1 " " $4; if (!(k in v)) o[++n] = k; v[k] = v[k] " " $9 }
       END { for (j = 1; j <= n; j++) print o[j] ":" v[o[j]] }' "$RES"
  exit 0
fi
for s in $BASE_SIZES; do
  c=$(bcount $s)
  for d in threads procs lwp; do run "$B/mpf_bench" base $d 1 $s $c; done
  run "$B/sock_bench" base 1 $s $c
  mpi 1 base $s $c
done
for mode in fcfs broadcast; do
  for n in $NS; do
    for s in $SIZES; do
      c=$(count $s)
      for d in threads procs lwp; do run "$B/mpf_bench" $mode $d $n $s $c; done
      run "$B/sock_bench" $mode $n $s $c
      mpi $((n + 1)) $mode $s $c
    done
  done
done
for n in $RNS; do
  for s in $SIZES; do
    c=$(( $(count $s) / n ))
    for d in threads procs lwp; do run "$B/mpf_bench" random $d $n $s $c; done
    run "$B/sock_bench" random $n $s $c
    mpi $n random $s $c
  done
done
sh bench/mpf/report.sh "$RES" "$DOC"
if [ "$QUICK" != quick ]; then
  # The applications: speedup for 1..4 workers (processes), each verified against the sequential solver.
  cc $CFLAGS -I"$ROOT/runtime/include" bench/mpf/apps/gauss_jordan.c "$BUILD/lib/libmpdrt.a" -lpthread -lm -o "$B/gauss_jordan"
  cc $CFLAGS -I"$ROOT/runtime/include" bench/mpf/apps/sor.c "$BUILD/lib/libmpdrt.a" -lpthread -lm -o "$B/sor"
  { echo "# $(date -u '+%Y-%m-%d %H:%M UTC') load $(cut -d' ' -f1-3 /proc/loadavg)"
    "$B/gauss_jordan" -n 1000 -p 4; echo; "$B/sor" -n 300 -p 4; } | tee "$DOC/apps.txt"
fi
