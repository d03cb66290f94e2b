#!/bin/sh
# bench-all.sh: runs every benchmark suite bench/*/run.sh in turn (make bench).
# Each suite prints its table and writes it under $BUILD/bench/.
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-$PWD/build}; export BUILD
rc=0
for s in bench/*/run.sh; do
  [ -f "$s" ] || continue
  echo "=== ${s%/run.sh}"
  sh "$s" "$@" || rc=1
done
exit $rc
