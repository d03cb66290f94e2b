# san-runs.sh: sourced by the test steps that run MPD programs under a
# sanitizer build of the runtime (scripts/test.d/36-*, 37-*).
#
# san_runs LABEL RUNTIME CC "VPS" "SOURCES" ENV...: compiles each program
# of SOURCES with CC against the runtime built in RUNTIME and runs it on each
# VP count with the ENV assignments; it must print its .std and exit with
# its .code (default 0), given its .args.  Uses the caller's W (work
# directory) and MPD, and counts into its p and f.
san_runs() {
  label=$1 rt=$2 cc=$3 vps=$4 srcs=$5; shift 5
  for src in $srcs; do
    name=$(basename "$src" .mpd); base=${src%.mpd}
    d=$W/$label-$name; rm -rf "$d"; mkdir -p "$d"; cp "$src" "$d/"
    if ! (cd "$d" && MPD_HOME="$rt" CC="$cc" "$MPD" -o prog "$name.mpd" >compile.out 2>&1); then
      f=$((f+1)); echo "FAIL $label/$name (compile)"; head -5 "$d/compile.out" | sed 's/^/    /'; continue
    fi
    args=""; [ -f "$base.args" ] && args=$(cat "$base.args")
    want=0; [ -f "$base.code" ] && want=$(cat "$base.code")
    for n in $vps; do
      (cd "$d" && env MPD_PARALLEL=$n "$@" timeout 300 ./prog $args >run$n.out 2>&1 </dev/null); rc=$?
      # output that differs without a sanitizer report (an interleaving the
      # program's .std did not foresee) is rerun twice and, if it then
      # passes, printed as FLAKY; a sanitizer report always fails
      t=0
      while [ $t -lt 2 ] && ! { [ "$rc" = "$want" ] && cmp -s "$base.std" "$d/run$n.out"; } &&
            ! grep -q 'Sanitizer' "$d/run$n.out"; do
        t=$((t+1)); mv "$d/run$n.out" "$d/run$n.first"
        (cd "$d" && env MPD_PARALLEL=$n "$@" timeout 300 ./prog $args >run$n.out 2>&1 </dev/null); rc=$?
        if [ "$rc" = "$want" ] && cmp -s "$base.std" "$d/run$n.out"; then
          echo "FLAKY $label/$name MPD_PARALLEL=$n: passed on retry $t; the failing run:"
          diff "$base.std" "$d/run$n.first" | head -10 | sed 's/^/    /'
        fi
      done
      if [ "$rc" = "$want" ] && cmp -s "$base.std" "$d/run$n.out"; then
        p=$((p+1)); echo "PASS $label/$name MPD_PARALLEL=$n"
      else
        f=$((f+1)); echo "FAIL $label/$name MPD_PARALLEL=$n (exit $rc, want $want)"
        diff "$base.std" "$d/run$n.out" | head -40 | sed 's/^/    /'
      fi
    done
  done
}
