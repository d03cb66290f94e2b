#!/bin/sh
# report-apps.sh MAXVP ROUNDS: tables, plots and contention-profile figures from the data
# run-apps.sh wrote (results/apps-raw.dat, phold-throttle-raw.dat, profiles/*.dat), into
# results/apps.md.  Needs python3 (statistics); gnuplot draws the PNGs when present.
set -e
MAXVP=${1:-4}; ROUNDS=${2:-15}
R=bench/threads/results
RAW=$R/apps-raw.dat
TSP_ARGS=${TSP_ARGS:-"13 1 7"}
PHOLD_ARGS=${PHOLD_ARGS:-"400 256 0"}
awk '!/^#/ { a[$1] = a[$1] " " $3; t[$1] = t[$1] " " $4 }
     function med(s,   v, n, i, j, x) { n = split(s, v, " ");
       for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
       return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
     END { print "# nvp median(no-throttle) median(window 8)"; for (n in a) print n, med(a[n]), med(t[n]) }' \
  "$R/phold-throttle-raw.dat" | sort -n > "$R/phold-throttle.dat"

# The paper's figures 5-10: contention pattern of each monitored lock (8a: the fourth TSP lock).
FIGS="5:phold:cancel:list of events to be cancelled (Time Warp)
6:phold:free:free list of events (Time Warp)
7:phold:incoming:list of incoming events (Time Warp)
8:tsp:globlock:globlock (TSP)
8a:tsp:glob-low-lock:glob-low-lock (TSP; the paper shows no figure: almost no contention)
9:tsp:glob-act-lock:glob-act-lock (TSP)
10:tsp:qlock:qlock (TSP)"

{
  echo "# Applications with spin, blocking and adaptive locks"
  echo
  echo "Machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), shared with other jobs"
  echo "($(sed -n '1s/.*; load/load average at the start of the run/p' "$RAW"))."
  echo "Command: \`sh bench/threads/run-apps.sh $MAXVP $ROUNDS\`: $ROUNDS rounds per point, each round runs the"
  echo "three lock kinds back to back, in each of their six orders in turn; seconds, median (minimum) per kind, fastest"
  echo "median in bold.  Every run is in [apps-raw.dat](apps-raw.dat).  \"adaptive / best\" is the median"
  echo "of the per-round ratios adaptive / best static kind, with its 95% bootstrap interval; the noise"
  echo "band is the interval's half width.  The verdict is \"matches\" when 1 lies inside the interval,"
  echo "\"beats\"/\"loses\" when the whole interval is below/above 1."
  echo
  echo "## TSP branch and bound ($TSP_ARGS: cities seed split-depth)"
  echo
  python3 bench/threads/apps_stats.py "$RAW" tsp "$R/tsp.dat"
  echo
  echo "![TSP](tsp.png)"
  echo
  echo "## Time Warp PHOLD ($PHOLD_ARGS: end-time LPs throttle)"
  echo
  python3 bench/threads/apps_stats.py "$RAW" phold "$R/phold.dat"
  echo
  echo "![PHOLD](phold.png)"
  echo
  echo "## PHOLD, adaptive locks, without and with the throttling window (median of $ROUNDS, seconds)"
  echo
  echo "| VPs | no throttle | window 8 + feedback |"; echo "|---:|---:|---:|"
  awk '!/^#/ {printf "| %s | %.4f | %.4f |\n", $1, $2, $3}' "$R/phold-throttle.dat"
  echo
  echo "## Contention profiles ($MAXVP VPs), as the paper's figures 5-10"
  echo
  echo "Threads waiting on the lock at each monitor sample (every 2nd unlock; the profile keeps"
  echo "every other sample when full, so it spans the whole run), one panel per lock kind, one more"
  echo "run at $MAXVP VPs.  For the adaptive lock the line gives its spin limit in microseconds"
  echo "(-1: spins until it gets the lock; 0: blocks at once).  Time Warp locks are VP 0's, as in"
  echo "the paper."
  echo
  echo "$FIGS" | while IFS=: read -r fig app lock what; do
    echo "Figure $fig: $what -- ![fig$fig](profiles/fig$fig-$app-$lock.png)"
    echo
  done
} > "$R/apps.md"

command -v gnuplot >/dev/null || { echo "wrote $R/apps.md (no gnuplot: no plots)"; exit 0; }
for app in tsp phold; do
  gnuplot <<GP || echo "(no plot for $app)"
set terminal png size 640,420
set output "$R/$app.png"
set title "$app: execution time (median of $ROUNDS interleaved rounds; dashed: minimum)"
set xlabel "virtual processors"; set ylabel "seconds"; set key top left; set xtics 1
plot "$R/$app.dat" using 1:2 with linespoints lc 1 title "spin", "" using 1:3 with linespoints lc 2 title "block", \
     "" using 1:4 with linespoints lc 3 title "adaptive", \
     "" using 1:5 with lines dt 2 lc 1 notitle, "" using 1:6 with lines dt 2 lc 2 notitle, "" using 1:7 with lines dt 2 lc 3 notitle
GP
done
echo "$FIGS" | while IFS=: read -r fig app lock what; do
  gnuplot <<GP || echo "(no figure $fig)"
set terminal png size 720,640
set output "$R/profiles/fig$fig-$app-$lock.png"
set multiplot layout 3,1 title "Figure $fig: contention on $what, $MAXVP VPs"
set xlabel "seconds"; set ylabel "waiting"; set yrange [0:*]; set key top right
set title "spin lock"
plot "$R/profiles/$app-spin-$MAXVP-$lock.dat" using 1:2 with impulses lc 1 notitle
set title "blocking lock"
plot "$R/profiles/$app-block-$MAXVP-$lock.dat" using 1:2 with impulses lc 2 notitle
set title "adaptive lock"
set y2label "spin limit (us)"; set y2tics; set ytics nomirror; set y2range [-2:*]
plot "$R/profiles/$app-adaptive-$MAXVP-$lock.dat" using 1:2 with impulses lc 3 title "waiting", \
     "" using 1:3 axes x1y2 with steps lc 7 title "spin limit"
unset multiplot
GP
done
echo "wrote $R/apps.md"
