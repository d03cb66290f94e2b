#!/bin/sh
# bench/dist/run.sh [ROUNDS]: remote call latency and asynchronous send
# throughput (1 KiB, 64 KiB) between two virtual machines on this host, in
# the distributed deployment (two MPI processes), side by side in the same
# run with raw MPI (ping-pong, a stream of sends) and MPD 1.0.1 when its
# binaries are found ($MPD101, default /work/mpd101/bin), and the embedded
# default for reference.  Rows are interleaved round by round; each row
# keeps its best round (latency: lowest, throughput: highest).  Prints a
# table with the ratios the targets are about (docs/distributed.md,
# "Performance") and writes it to build/bench/dist.txt.
# OLD=<build dir>: the same program built by another build too (rows
# old_mpd_*), interleaved with ours, to compare two versions in one run.
cd "$(dirname "$0")/../.." || exit 2
ROUNDS=${1:-3}
BUILD=${BUILD:-$PWD/build}
MPD101=${MPD101:-/work/mpd101/bin}
NCALL=${NCALL:-20000}
N1K=${N1K:-20000}
N64K=${N64K:-2000}
command -v mpirun >/dev/null && command -v mpicc >/dev/null || { echo "bench/dist: needs Open MPI (openmpi-bin libopenmpi-dev)"; exit 1; }
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mpicc -O2 bench/dist/mpi_bench.c -o "$w/mpi_bench" || exit 1
cp bench/dist/remote.mpd "$w/"
(cd "$w" && "$BUILD/bin/mpd" -O -o emb remote.mpd && MPD_DIST=mpi "$BUILD/bin/mpd" -O -o dist remote.mpd) || exit 1
prev=""
if [ -n "$OLD" ]; then
  (cd "$w" && MPD_DIST=mpi "$OLD/bin/mpd" -O -o prev remote.mpd) || exit 1
  prev="$w/prev"
fi
old=""
if [ -x "$MPD101/mpd" ]; then
  (cd "$w" && mkdir o101 && cp remote.mpd o101/ && cd o101 && PATH="$MPD101:$PATH" mpd -O -o ../old remote.mpd >/dev/null 2>&1) && old="$w/old"
fi
MPIRUN="mpirun -q --oversubscribe -n 2"
res="$w/res"
: >"$res"
for r in $(seq "$ROUNDS"); do
  $MPIRUN "$w/mpi_bench" pingpong "$NCALL" >>"$res"
  (cd "$w" && MPD_VMS=2 ./dist calls "$NCALL") >>"$res"
  [ -n "$prev" ] && (cd "$w" && MPD_VMS=2 ./prev calls "$NCALL" | sed 's/^mpd_/old_mpd_/') >>"$res"
  [ -n "$old" ] && (cd "$w" && ./old calls "$((NCALL / 4))" | sed 's/^mpd_call/mpd101_call/') >>"$res"
  (cd "$w" && ./emb calls "$((NCALL * 20))" | sed 's/^mpd_call/embedded_call/') >>"$res"
  $MPIRUN "$w/mpi_bench" stream 1024 "$N1K" >>"$res"
  (cd "$w" && MPD_VMS=2 ./dist send1k "$N1K") >>"$res"
  [ -n "$prev" ] && (cd "$w" && MPD_VMS=2 ./prev send1k "$N1K" | sed 's/^mpd_/old_mpd_/') >>"$res"
  [ -n "$old" ] && (cd "$w" && ./old send1k "$((N1K / 4))" | sed 's/^mpd_/mpd101_/') >>"$res"
  $MPIRUN "$w/mpi_bench" stream 65536 "$N64K" >>"$res"
  (cd "$w" && MPD_VMS=2 ./dist send64k "$N64K") >>"$res"
  [ -n "$prev" ] && (cd "$w" && MPD_VMS=2 ./prev send64k "$N64K" | sed 's/^mpd_/old_mpd_/') >>"$res"
  [ -n "$old" ] && (cd "$w" && ./old send64k "$((N64K / 4))" | sed 's/^mpd_/mpd101_/') >>"$res"
done
mkdir -p "$BUILD/bench"
awk -v rounds="$ROUNDS" '
  { v = $2 + 0; n = $1
    if ($3 == "us") { if (!(n in best) || v < best[n]) best[n] = v }
    else            { if (!(n in best) || v > best[n]) best[n] = v }
    unit[n] = $3 }
  END {
    printf "bench/dist: %d rounds, best of each (latency: lowest; throughput: highest)\n", rounds
    split("mpi_roundtrip mpd_call old_mpd_call mpd101_call embedded_call mpi_stream_1024 mpd_send1k old_mpd_send1k mpd101_send1k mpi_stream_65536 mpd_send64k old_mpd_send64k mpd101_send64k", order, " ")
    for (i = 1; i <= 13; i++) { k = order[i]; if (k in best) printf "  %-18s %12.2f %s\n", k, best[k], unit[k] }
    if ("mpd_call" in best && "mpi_roundtrip" in best)
      printf "  call / MPI round trip          %6.2fx  (target <= 2)\n", best["mpd_call"] / best["mpi_roundtrip"]
    if ("mpd_call" in best && "mpd101_call" in best)
      printf "  MPD 1.0.1 call / ours          %6.2fx  (target >= 10)\n", best["mpd101_call"] / best["mpd_call"]
    if ("mpd_send1k" in best && "mpi_stream_1024" in best)
      printf "  1 KiB sends: MPI / ours        %6.2fx  (target <= 2)\n", best["mpi_stream_1024"] / best["mpd_send1k"]
    if ("mpd_send64k" in best && "mpi_stream_65536" in best)
      printf "  64 KiB sends: MPI / ours       %6.2fx  (target <= 2)\n", best["mpi_stream_65536"] / best["mpd_send64k"]
    if ("old_mpd_call" in best)
      printf "  old / new: call %.2fx, 1 KiB sends %.2fx, 64 KiB sends %.2fx  (> 1: new faster)\n", best["old_mpd_call"] / best["mpd_call"], best["mpd_send1k"] / best["old_mpd_send1k"], best["mpd_send64k"] / best["old_mpd_send64k"]
  }' "$res" | tee "$BUILD/bench/dist.txt"
