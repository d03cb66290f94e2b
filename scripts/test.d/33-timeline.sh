# The timeline (MPD_TIMELINE, mpd run --timeline; docs/trace.md, "The
# timeline"): programs of tests/timeline run with it, their Chrome/Perfetto
# JSON checked (valid, one track per VP, a flow arrow per invocation taken,
# the processes blocked at the end), and their HTML page opened in headless
# Chromium, whose rendered DOM must show the lanes, the arrows, what the
# blocked processes wait for and who holds it, the source, a zoomed view and
# a selected event (tests/timeline/check.py says how).
ROOT=$(pwd)
BIN=${BUILD:-$ROOT/build}/bin
. "$ROOT/scripts/lib/need.sh"
d=$(mktemp -d); p=0; f=0
ok() { p=$((p+1)); echo "PASS timeline: $1"; }
bad() { f=$((f+1)); echo "FAIL timeline: $1"; }
check() { python3 "$ROOT/tests/timeline/check.py" "$@"; }
cd "$d" || exit 2
cp "$ROOT"/tests/timeline/*.mpd .
for prog in messages deadlock many; do
  "$BIN/mpd" -o $prog.out $prog.mpd >compile.log 2>&1 || bad "compile $prog.mpd"
done

# the output is the same with and without the timeline
MPD_PARALLEL=1 ./messages.out >plain.out 2>&1
MPD_PARALLEL=1 MPD_TIMELINE=m1.json ./messages.out >tl.out 2>&1
if cmp -s plain.out tl.out && check json m1.json arrows=10 vps=1 blocked=0; then
  ok "JSON export, one VP: 10 invocations linked to their receives"
else bad "JSON export, one VP"; diff plain.out tl.out | head -5; fi
MPD_PARALLEL=2 MPD_TIMELINE=m2.json ./messages.out >tl2.out 2>&1
if sort plain.out | cmp -s - "$(sort tl2.out >tl2.sorted; echo tl2.sorted)" && check json m2.json arrows=10 vps=2 blocked=0; then
  ok "JSON export, two VPs"
else bad "JSON export, two VPs"; fi
MPD_PARALLEL=1 MPD_TIMELINE=dl.json ./deadlock.out >dl.out 2>&1
if grep -q "blocked process: deadlock.one" dl.out &&
   check json dl.json arrows=2 blocked=2 "text=deadlock.one #3" "text=deadlock.two #4" "text=block: P (semaphore)" "text=VP 0"; then
  ok "JSON export of a deadlock: both processes blocked to the end"
else bad "JSON export of a deadlock"; cat dl.out; fi

# mpd run --timeline, and its errors
if "$BIN/mpd" run --timeline run.html messages.mpd >run.out 2>&1 && cmp -s plain.out run.out &&
   check data run.html src=messages.mpd; then
  ok "mpd run --timeline writes a page with the source in it"
else bad "mpd run --timeline"; cat run.out; fi
if ! "$BIN/mpd" run --timeline >err.out 2>&1 && grep -q "needs a file name" err.out; then
  ok "mpd run --timeline without a file is an error"
else bad "mpd run --timeline without a file"; cat err.out; fi
MPD_PARALLEL=1 MPD_TIMELINE=/nonexistent/dir/t.html ./messages.out >nofile.out 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "RTS warning: cannot write the timeline to /nonexistent/dir/t.html" nofile.out &&
   grep -q "note 7" nofile.out; then
  ok "an unwritable timeline file is a warning"
else bad "an unwritable timeline file is a warning (exit $rc)"; cat nofile.out; fi
# past MPD_TIMELINE_MAX a thread reuses its oldest chunk: the page says so
MPD_PARALLEL=1 MPD_TIMELINE_MAX=40000 MPD_TIMELINE=many.html ./many.out >many.out.txt 2>&1
MPD_PARALLEL=1 MPD_TIMELINE_MAX=40000 MPD_TIMELINE=many.json ./many.out >/dev/null 2>&1
if grep -q "^sum 800020000" many.out.txt && check data many.html dropped && check json many.json blocked=0; then
  ok "a log past MPD_TIMELINE_MAX keeps its end"
else bad "a log past MPD_TIMELINE_MAX keeps its end"; cat many.out.txt; fi

# the pages in a real browser
if need "timeline pages in headless Chromium" chromium chromium; then
  dom() {   # dom PAGE [#hash]: the page as Chromium rendered it
    timeout 120 chromium --headless --no-sandbox --disable-gpu --window-size=1400,900 \
      --dump-dom "file://$d/$1$2" 2>/dev/null
  }
  MPD_PARALLEL=1 MPD_TIMELINE=m1.html ./messages.out >/dev/null 2>&1
  dom m1.html >m1.dom
  if check page m1.dom vps=1 procs=7 arrows=10 atend=0 "text=no process was left blocked" "text=messages.mpd"; then
    ok "page, one VP: a lane per VP and per process, an arrow per invocation"
  else bad "page, one VP"; fi
  MPD_PARALLEL=2 MPD_TIMELINE=m2.html ./messages.out >/dev/null 2>&1
  dom m2.html >m2.dom
  if check page m2.dom vps=2 procs=7 arrows=10; then ok "page, two VPs"; else bad "page, two VPs"; fi
  MPD_PARALLEL=1 MPD_TIMELINE=dl.html ./deadlock.out >/dev/null 2>&1
  dom dl.html >dl.dom
  if check page dl.dom vps=1 atend=2 "text=ended with 2 processes blocked" \
       "text=deadlock.one #3 waits in P(right) at deadlock.mpd:10 — held by deadlock.two #4" \
       "text=deadlock.two #4 waits in P(left) at deadlock.mpd:16 — held by deadlock.one #3"; then
    ok "page of a deadlock: who waits for what, and who holds it"
  else bad "page of a deadlock"; fi
  # a link that zooms and selects: the view's range and the detail with its source line
  dom dl.html "#view=0,1000&select=3" >sel.dom
  if check page sel.dom "text=showing 0 ns – 1.00 µs" "text=deadlock.one #3 is blocked in P(right) at deadlock.mpd:10: P(right)" \
       "text=still blocked when the program ended"; then
    ok "page: zoom and a selected event with its source line"
  else bad "page: zoom and a selected event"; fi
  dom many.html >many.dom
  if check page many.dom vps=1 "text=earlier ones were dropped"; then ok "page of a truncated log"
  else bad "page of a truncated log"; fi
fi
cd / && rm -rf "$d"
need_tally timeline $p $f
