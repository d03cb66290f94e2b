# Local op blocks (ops declared in a block, killed at its end) are freed at
# once on one VP when nothing can still point into them (runtime/lang/op.c).
# 1. tests/corpus/localop/*.mpd, compiled against an AddressSanitizer build
#    of the runtime, on 1 and 2 VPs: each prints its .std and exits with its
#    .code, and ASan sees no use of a freed block (held.mpd keeps processes
#    waiting on dead ops in every way that must keep a block alive).
# 2. grow.mpd at 50000 and 400000 iterations on one VP: the peak resident
#    size may grow by less than 16 MB (each iteration declares two blocks;
#    kept, they took ~140 MB more).  The growth on 2 VPs, where blocks are
#    still kept, is printed for information.
R=$(pwd)/runtime
B=${BUILD:-$(pwd)/build}/ops-san
A=$B/asan                   # shared with 15-ops-sanitizers.sh
W=$B/localop
MPD=${BUILD:-$(pwd)/build}/bin/mpd
C=tests/corpus/localop
p=0; f=0
mkdir -p "$W"
if make -s -C "$R" BUILD="$A" SAN=address,undefined CC=gcc OPT=-O1 SRCDIRS="csw core sync lang" all \
     >"$W/build.log" 2>&1; then
  for src in "$C"/*.mpd; do
    name=$(basename "$src" .mpd)
    d=$W/$name; rm -rf "$d"; mkdir -p "$d"; cp "$src" "$d/"
    if ! (cd "$d" && MPD_HOME="$A" CC="gcc -fsanitize=address,undefined -g" "$MPD" -o prog "$name.mpd" >compile.out 2>&1); then
      f=$((f+1)); echo "FAIL asan/$name (compile)"; head -5 "$d/compile.out" | sed 's/^/    /'; continue
    fi
    args=""; [ -f "$C/$name.args" ] && args=$(cat "$C/$name.args")
    want=0; [ -f "$C/$name.code" ] && want=$(cat "$C/$name.code")
    for n in 1 2; do
      (cd "$d" && MPD_PARALLEL=$n ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1 \
         timeout 300 ./prog $args >run$n.out 2>&1 </dev/null); rc=$?
      if [ "$rc" = "$want" ] && cmp -s "$C/$name.std" "$d/run$n.out"; then
        p=$((p+1)); echo "PASS asan/$name MPD_PARALLEL=$n"
      else
        f=$((f+1)); echo "FAIL asan/$name MPD_PARALLEL=$n (exit $rc, want $want)"
        diff "$C/$name.std" "$d/run$n.out" | head -40 | sed 's/^/    /'
      fi
    done
  done
else f=$((f+1)); echo "FAIL asan runtime build"; tail -n 20 "$W/build.log"; fi

# peak resident size (KB) of one run: peak N VPS
peak() {
  python3 -c 'import os, resource, subprocess, sys
env = dict(os.environ, MPD_PARALLEL=sys.argv[2])
subprocess.run([sys.argv[3], sys.argv[1]], env=env, stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$1" "$2" "$W/plain/grow"
}
rm -rf "$W/plain"; mkdir -p "$W/plain"; cp "$C/grow.mpd" "$W/plain/"
if (cd "$W/plain" && "$MPD" -o grow grow.mpd >compile.out 2>&1); then
  small=$(peak 50000 1) && big=$(peak 400000 1) || { small=0; big=999999999; }
  grow1=$((big - small))
  if [ "$grow1" -lt 16384 ]; then
    p=$((p+1)); echo "PASS grow: 1 VP, peak $small KB -> $big KB"
  else
    f=$((f+1)); echo "FAIL grow: 1 VP, peak $small KB -> $big KB (growth must stay under 16384 KB)"
  fi
  echo "info grow: 2 VPs (blocks kept), peak $(peak 50000 2) KB -> $(peak 400000 2) KB"
else f=$((f+1)); echo "FAIL grow (compile)"; fi
echo "localop-reclaim: $p passed, $f failed"
[ $f = 0 ]
