# The distributed deployment (docs/distributed.md): programs linked with
# --mpi, every virtual machine an MPI process, run oversubscribed on this
# machine.  Parts:
#   - tests/corpus/dist: programs whose output must be the same as in the
#     embedded default (30-corpus runs them there), checked here against the
#     same .std files;
#   - tests/dist: what only the distributed deployment shows (stop and
#     aborts on another vm, the blocked-process report of every vm, errors
#     of create vm() and of a destroyed vm);
#   - the suites' tests that create vms (../shared/mpd-vsuite and
#     ../shared/sr-vsuite), through vsuite.py with MPD_DIST=mpi;
#   - output into a file the shell goes on writing after the program;
#   - `mpd run --vms N`, the documented one-step command;
#   - two hosts simulated on this machine (tests/dist-hosts);
#   - a vm's process killed with kill -9 on the main vm's host, on the
#     other simulated host, alone on a host, and in the middle of calls
#     to it (tests/dist-kill).
# (runtime/tests/dist/wirefuzz, the message checks fed random and truncated
# messages, needs no MPI: 10-runtime runs it.)
. scripts/lib/need.sh
BUILD=${BUILD:-$PWD/build}
BIN=$BUILD/bin
pass=0; fail=0
need dist "openmpi-bin libopenmpi-dev" mpirun mpicc || { need_tally dist 0 0; exit; }
[ -f "$BUILD/lib/libmpddist.a" ] || make -s -C runtime BUILD="$BUILD" >/dev/null
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export MPD_DIST=mpi MPD_VMS=${MPD_VMS:-5}
work=$(mktemp -d)
for src in tests/corpus/dist/*.mpd tests/dist/*.mpd; do
  base=${src%.mpd}; name=$(echo "$base" | tr / _)
  d="$work/$name"; mkdir -p "$d"; cp "$src" "$d/"
  f=${src##*/}
  if ! (cd "$d" && "$BIN/mpd" -w "$f" >compile.out 2>&1); then
    fail=$((fail+1)); echo "FAIL dist $base (compile)"; head -5 "$d/compile.out" | sed 's/^/    /'; continue
  fi
  want=0; [ -f "$base.code" ] && want=$(cat "$base.code")
  (cd "$d" && timeout 60 ./a.out </dev/null >run.out 2>&1); rc=$?
  if [ "$rc" = "$want" ] && cmp -s "$base.std" "$d/run.out"; then
    pass=$((pass+1))
  else
    fail=$((fail+1)); echo "FAIL dist $base (exit $rc, want $want)"
    diff "$base.std" "$d/run.out" | head -10 | sed 's/^/    /'
  fi
done

# the suite's programs that create virtual machines (`create vm()`);
# diag/more only checks compile-time messages (`create vm()` with
# arguments), which do not depend on the deployment
if [ -d ../shared/mpd-vsuite ] && [ -f ../shared/tools/vsuite.py ]; then
  tests=$(cd ../shared/mpd-vsuite && grep -l "vm()" -r --include=*.mpd . | xargs -n1 dirname | sort -u |
          sed 's|^\./||' | grep -v '^diag/more$')
  out=$(MPD_VMS=8 python3 ../shared/tools/vsuite.py --suite ../shared/mpd-vsuite --bin "$BIN" \
        --timeout 90 --only $tests vm/ 2>&1)
  echo "$out" | grep '^FAIL' | sed 's/^/vsuite /'
  p=$(echo "$out" | tail -n 1 | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\1/p')
  f=$(echo "$out" | tail -n 1 | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\2/p')
  pass=$((pass+${p:-0})); fail=$((fail+${f:-1}))
fi

# the same for the SR suite's programs that create virtual machines
# (linked by srl for MPI through MPD_DIST=mpi, as mpdl)
if [ -d ../shared/sr-vsuite ] && [ -f ../shared/tools/vsuite.py ]; then
  tests=$(cd ../shared/sr-vsuite && grep -l "vm()" -r --include=*.sr . | xargs -n1 dirname | sort -u |
          sed 's|^\./||' | grep -v '^diag')
  out=$(MPD_VMS=8 python3 ../shared/tools/vsuite.py --lang sr --suite ../shared/sr-vsuite --bin "$BIN" \
        --timeout 90 --only $tests vm/ 2>&1)
  echo "$out" | grep '^FAIL' | sed 's/^/sr-vsuite /'
  p=$(echo "$out" | tail -n 1 | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\1/p')
  f=$(echo "$out" | tail -n 1 | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\2/p')
  pass=$((pass+${p:-0})); fail=$((fail+${f:-1}))
fi

# the user's stdout a plain file that the shell goes on writing after the
# program: the main vm writes through the launcher's own open file, so
# nothing written after the program overwrites its output
d="$work/tests_corpus_dist_relay"
if [ -x "$d/a.out" ]; then
  (cd "$d" && { timeout 60 ./a.out </dev/null; echo after; } >shared.out 2>&1)
  if { cat tests/corpus/dist/relay.std; echo after; } | cmp -s - "$d/shared.out"; then
    pass=$((pass+1))
  else
    fail=$((fail+1)); echo "FAIL dist output into a file the shell goes on writing"; head -5 "$d/shared.out" | sed 's/^/    /'
  fi
fi

# the documented one-step command, `mpd run --vms N prog.mpd` (compile,
# link for MPI, run under mpirun): right with enough processes; with one,
# create vm() finds none free -- which only the distributed deployment
# says; a bad N is refused
t=tests/corpus/dist/inputs
out=$(MPD_DIST= timeout 90 "$BIN/mpd" run --vms 4 $t.mpd </dev/null 2>&1); rc=$?
if [ "$rc" = 0 ] && [ "$out" = "$(cat $t.std)" ]; then
  pass=$((pass+1))
else
  fail=$((fail+1)); echo "FAIL dist mpd run --vms 4 (exit $rc)"; echo "$out" | head -5 | sed 's/^/    /'
fi
out=$(MPD_DIST= timeout 90 "$BIN/mpd" run --vms 1 $t.mpd </dev/null 2>&1); rc=$?
if [ "$rc" != 0 ] && echo "$out" | grep -q "every process of this run already serves a virtual machine"; then
  pass=$((pass+1))
else
  fail=$((fail+1)); echo "FAIL dist mpd run --vms 1 (exit $rc)"; echo "$out" | head -5 | sed 's/^/    /'
fi
out=$("$BIN/mpd" run --vms 0 $t.mpd 2>&1); rc=$?
if [ "$rc" = 2 ] && echo "$out" | grep -q -- "--vms needs a number"; then
  pass=$((pass+1))
else
  fail=$((fail+1)); echo "FAIL dist mpd run --vms 0 (exit $rc)"
fi

# several hosts simulated on this machine: a hostfile of two names, and
# Open MPI's rsh agent pointed at a launcher that runs each "host"'s daemon
# here, telling its processes where they are (tests/dist-hosts/fake-rsh);
# TCP between them, as between hosts -- over the loopback interface, which
# every machine has (Open MPI leaves it out by default, and a CI container
# may have no other)
d="$work/hosts"; mkdir -p "$d"; cp tests/dist-hosts/hosts.mpd "$d/"
if (cd "$d" && "$BIN/mpd" -w hosts.mpd >compile.out 2>&1); then
  here=$PWD
  (cd "$d" && sh -c 'exec >run.out 2>&1; MPD_DIST_OUT=$$ exec timeout 90 mpirun -q --mca btl tcp,self \
      --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo --mca plm_rsh_agent "$0/tests/dist-hosts/fake-rsh" --hostfile "$0/tests/dist-hosts/hostfile" -n 6 ./a.out' "$here")
  rc=$?
  if [ "$rc" = "$(cat tests/dist-hosts/hosts.code)" ] && cmp -s tests/dist-hosts/hosts.std "$d/run.out"; then
    pass=$((pass+1))
  else
    fail=$((fail+1)); echo "FAIL dist hosts (exit $rc)"; diff tests/dist-hosts/hosts.std "$d/run.out" | head -10 | sed 's/^/    /'
  fi
else
  fail=$((fail+1)); echo "FAIL dist hosts (compile)"
fi

# kill -9 of a vm's process mid-conversation: reported by vm, host and
# process; the run ends within a bounded time; nothing is left running.
# kill_test LABEL NAME HOST AT CMD...: runs tests/dist-kill/NAME.mpd by
# CMD, kills the worker whose pid it prints, and wants it reported as on
# HOST (a pattern), after AT (a pattern: the failed call's statement) --
# on the main vm's host (rank 0 looks at its pid), on the second simulated
# host beside another process of the run (its neighbours watch it and tell
# rank 0), and alone on its host (rank 0 reads the end of its TCP lifeline)
kill_test() {
  label=$1 name=$2 host=$3 at=$4; shift 4
  d="$work/kill-$label"; mkdir -p "$d"; cp tests/dist-kill/$name.mpd "$d/"
  if ! (cd "$d" && "$BIN/mpd" -w $name.mpd >compile.out 2>&1); then
    fail=$((fail+1)); echo "FAIL dist kill $label (compile)"; return
  fi
  (cd "$d" && sh -c 'exec >run.out 2>&1; MPD_DIST_OUT=$$ exec "$@"' sh "$@"; echo $? >rc) &
  for i in $(seq 450); do grep -q "worker pid" "$d/run.out" 2>/dev/null && break; sleep 0.2; done
  victim=$(sed -n 's/^worker pid *//p' "$d/run.out")
  [ -n "$victim" ] && kill -9 "$victim"
  wait
  rc=$(cat "$d/rc" 2>/dev/null)
  # processes still running this a.out, or mpirun on it: their program or
  # their directory is this test's (read from /proc: procps may be missing)
  left=0
  for p in /proc/[0-9]*; do
    case "$(readlink "$p/exe" 2>/dev/null) $(readlink "$p/cwd" 2>/dev/null)" in
      "$d/a.out "*|*" $d") left=$((left+1));;
    esac
  done
  if [ -n "$victim" ] && [ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$left" = 0 ] &&
     grep -q "RTS abort: $at""virtual machine 2 (host $host, process $victim) ended unexpectedly" "$d/run.out"; then
    pass=$((pass+1))
  else
    fail=$((fail+1)); echo "FAIL dist kill $label (exit $rc, $left processes left)"; sed 's/^/    /' "$d/run.out" | head -5
  fi
}
any='\(file [^,]*, line [0-9]*: \)\{0,1\}'
kill_test kill kill '.*' "$any" env MPD_VMS=3 timeout 90 ./a.out
# calls in progress from the main vm and a third one: the main vm's fails
# at its statement (the third vm's says so too when mpirun's teardown
# leaves it time: not checked)
kill_test midcall midcall '.*' 'file midcall.mpd, line 26: ' env MPD_VMS=4 timeout 90 ./a.out
here=$PWD
set -- --mca btl tcp,self --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo \
  --mca plm_rsh_agent "$here/tests/dist-hosts/fake-rsh"
kill_test remote remote hostB "$any" timeout 90 mpirun -q "$@" --hostfile "$here/tests/dist-hosts/hostfile" -n 6 ./a.out
kill_test alone remote hostB "$any" timeout 90 mpirun -q "$@" --hostfile "$here/tests/dist-kill/hostfile-alone" -n 3 ./a.out
rm -rf "$work"

need_tally dist $pass $fail
