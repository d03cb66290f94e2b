#!/bin/sh
# run-all.sh: every threads/RAS/adaptive-lock benchmark; results in bench/threads/results/.
set -e
BUILD=${BUILD:-$PWD/build}; export BUILD
make -s -C bench/threads BUILD="$BUILD"
R=bench/threads/results
mkdir -p "$R"
"$BUILD/bench/threads/table1" > "$R/table1.md"
"$BUILD/bench/threads/ras_bench" 1000000 "$R/ras-switch.dat" > "$R/ras.md"
if command -v gnuplot >/dev/null; then
  gnuplot <<GP
set terminal png size 640,420
set output "$R/ras-switch.png"
set title "Preemptive context switch vs registered restartable atomic sequences"
set xlabel "registered sequences"; set ylabel "nanoseconds"; set key top left
plot "$R/ras-switch.dat" using 1:2 with linespoints title "switch (signal + RAS check + switch)", "" using 1:3 with linespoints title "RAS lookup alone"
GP
  echo "" >> "$R/ras.md"; echo "![switch cost](ras-switch.png)" >> "$R/ras.md"
fi
sh bench/threads/run-apps.sh "${MAXVP:-4}" "${ROUNDS:-15}"
cat "$R/table1.md" "$R/ras.md" "$R/apps.md"
