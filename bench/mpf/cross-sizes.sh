#!/bin/sh
# cross-sizes.sh [ROUNDS]: cross-process streaming (pattern base: one sender, one receiver)
# at every size, MPF between forked processes against Unix datagram sockets and Open MPI,
# interleaved: each round runs the three back to back at every size, in an order that
# alternates.  Prints "IMPL base 1 SIZE seconds MB/s msgs/s" lines with a header naming the
# date, the load, the Open MPI version and its shared-memory transport settings.  Run from
# the repository root after `make runtime`; `sh bench/mpf/run.sh` builds the programs.
set -eu
ROUNDS=${1:-3}
BUILD=${BUILD:-$PWD/build}
B=$BUILD/bench/mpf
mkdir -p "$B"
CFLAGS="-O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra"
cc $CFLAGS -Iruntime/include bench/mpf/mpf_bench.c "$BUILD/lib/libmpdrt.a" -lpthread -lm -o "$B/mpf_bench"
cc $CFLAGS bench/mpf/sock_bench.c -o "$B/sock_bench"
MPI=""
if command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then
  mpicc -O2 bench/mpf/mpi_bench.c -o "$B/mpi_bench" && MPI="mpirun --allow-run-as-root --oversubscribe"
fi
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); rounds $ROUNDS"
[ -n "$MPI" ] && echo "# mpi: $(ompi_info --version 2>/dev/null | head -n 1); $MPI -np 2 mpi_bench base SIZE COUNT; OMPI_MCA_* set: $(env | grep -c '^OMPI_MCA_' || true)" &&
  ompi_info --param btl vader --level 9 --parsable 2>/dev/null | grep -E 'btl_vader_(single_copy_mechanism|eager_limit|max_send_size|fbox_max):value:' | sed 's/^/# mpi mca: /'
count() { c=$((400000000 / $1)); [ $c -lt 20000 ] && c=20000; [ $c -gt 300000 ] && c=300000; echo $c; }
for r in $(seq "$ROUNDS"); do
  for s in 16 64 256 1024 4096 16384 65536; do
    c=$(count $s)
    one() { case $1 in
      mpf) timeout 120 "$B/mpf_bench" base procs 1 $s $c | tail -n 1 ;;
      sock) timeout 120 "$B/sock_bench" base 1 $s $c | tail -n 1 ;;
      mpi) [ -n "$MPI" ] && timeout 120 $MPI -np 2 "$B/mpi_bench" base $s $c 2>/dev/null | tail -n 1 || true ;;
    esac; }
    if [ $((r % 2)) = 1 ]; then order="mpf sock mpi"; else order="mpi sock mpf"; fi
    for i in $order; do one $i; done
  done
done
echo "# load at end $(cut -d' ' -f1-3 /proc/loadavg)"
