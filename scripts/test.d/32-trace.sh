# MPD_TRACE (mpdtrace(5)) and mpdprof (mpdprof(1)), SR_TRACE and srprof: a program traced to a
# file, its counts by line and annotated listing, mpdprof's errors, a trace
# file that cannot be opened, and tracing on several VPs (every line
# well formed).  The trace formats themselves: tests/corpus/trace.
ROOT=$(pwd)
BIN=${BUILD:-$ROOT/build}/bin
d=$(mktemp -d); p=0; f=0
ok() { p=$((p+1)); echo "PASS trace: $1"; }
bad() { f=$((f+1)); echo "FAIL trace: $1"; }
cd "$d" || exit 2
cp "$ROOT/tests/trace/prof.mpd" .
"$BIN/mpd" prof.mpd >compile.out 2>&1 || { bad "compile prof.mpd"; cat compile.out; }
MPD_PARALLEL=1 ./a.out >plain.out 2>&1
MPD_PARALLEL=1 MPD_TRACE=t.trace ./a.out >traced.out 2>&1
if cmp -s plain.out traced.out && [ -s t.trace ]; then ok "tracing to a file leaves the output alone"
else bad "tracing to a file leaves the output alone"; diff plain.out traced.out | head -5; fi
"$BIN/mpdprof" t.trace >sum.out 2>&1
if cmp -s sum.out "$ROOT/tests/trace/prof.summary"; then ok "mpdprof counts by line"
else bad "mpdprof counts by line"; diff "$ROOT/tests/trace/prof.summary" sum.out | head -10; fi
"$BIN/mpdprof" <t.trace >stdin.out 2>&1
if cmp -s stdin.out "$ROOT/tests/trace/prof.summary"; then ok "mpdprof reads standard input"
else bad "mpdprof reads standard input"; fi
"$BIN/mpdprof" -a t.trace >ann.out 2>&1
if cmp -s ann.out "$ROOT/tests/trace/prof.annotated"; then ok "mpdprof -a annotates the listing"
else bad "mpdprof -a annotates the listing"; diff "$ROOT/tests/trace/prof.annotated" ann.out | head -10; fi
# without the source at hand, -a falls back to the counts (with a message)
mkdir elsewhere && (cd elsewhere && "$BIN/mpdprof" -a ../t.trace >ann.out 2>ann.err)
if cmp -s elsewhere/ann.out "$ROOT/tests/trace/prof.summary" && grep -q "prof.mpd" elsewhere/ann.err; then
  ok "mpdprof -a without the source"
else bad "mpdprof -a without the source"; cat elsewhere/ann.err; fi
if ! "$BIN/mpdprof" nosuch.trace >err.out 2>&1 && grep -q "cannot open nosuch.trace" err.out; then
  ok "mpdprof: missing trace file reported"
else bad "mpdprof: missing trace file reported"; cat err.out; fi
if ! "$BIN/mpdprof" -z t.trace >err.out 2>&1 && grep -q "usage: mpdprof" err.out; then
  ok "mpdprof: bad option reported"
else bad "mpdprof: bad option reported"; cat err.out; fi
MPD_PARALLEL=1 MPD_TRACE=/nonexistent/dir/t.trace ./a.out >nofile.out 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "RTS warning: cannot open trace file" nofile.out && grep -q "^sum 55" nofile.out; then
  ok "an unwritable trace file is a warning"
else bad "an unwritable trace file is a warning (exit $rc)"; cat nofile.out; fi
# several VPs: the same events (counts), each line whole
MPD_PARALLEL=4 MPD_TRACE=t4.trace ./a.out >mvp.out 2>&1
"$BIN/mpdprof" t4.trace >sum4.out 2>&1
if grep -q "^sum 55" mvp.out && cmp -s sum4.out "$ROOT/tests/trace/prof.summary" &&
   ! grep -Ev '^prof\.mpd, [0-9]+ +prof\.[a-z]+ +[A-Z]+ +[0-9A-F]+ +[0-9A-F]+ *$' t4.trace | grep -q .; then
  ok "tracing on four VPs"
else bad "tracing on four VPs"; diff "$ROOT/tests/trace/prof.summary" sum4.out | head; fi
# an SR program: SR_TRACE (over MPD_TRACE), counted by srprof
cp "$ROOT/tests/corpus-sr/trace/srtrace.sr" .
"$BIN/sr" srtrace.sr >compile.out 2>&1 || { bad "compile srtrace.sr"; cat compile.out; }
SR_PARALLEL=1 MPD_TRACE=m.trace SR_TRACE=s.trace ./a.out >sr.out 2>&1
"$BIN/srprof" s.trace >srsum.out 2>&1
if [ -s s.trace ] && [ ! -s m.trace ] && grep -q "^done" sr.out && grep -q "^srtrace.sr,  21   P:1  CONTP:1" srsum.out; then
  ok "SR_TRACE, counted by srprof"
else bad "SR_TRACE, counted by srprof"; cat sr.out srsum.out | head; fi
if ! "$BIN/srprof" nosuch.trace >err.out 2>&1 && grep -q "^srprof: cannot open nosuch.trace" err.out; then
  ok "srprof: its messages say srprof"
else bad "srprof: its messages say srprof"; cat err.out; fi
cd / && rm -rf "$d"
echo "trace: $p passed, $f failed"
[ $f = 0 ]
