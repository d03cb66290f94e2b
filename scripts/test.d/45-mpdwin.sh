#!/bin/sh
# 45-mpdwin: MPDWin, the X11 window library (library/MPDWin.mpd and
# runtime/win/mpdwin.c), headless under Xvfb: a drawing compared pixel for
# pixel with tests/mpdwin/draw.png (a screenshot of the same program), events
# driven by xdotool, MPDanimator's last frame compared with anim.png, programs
# with no display, and MPD's examples/graphics and examples/animator (from
# ../shared, when present) built and run for a moment each.
cd "$(dirname "$0")/../.." || exit 2
. scripts/lib/need.sh
BUILD=${BUILD:-$PWD/build}
B=$BUILD/bin
T=$PWD/tests/mpdwin
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL mpdwin: $*"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if need_file "MPDWin (library)" libx11-dev "$BUILD/lib/mpd/MPDWin.spec"; then
  # no display: WinOpen says why and gives null; using null aborts cleanly
  (cd "$work" && "$B/mpd" -q -o nowin "$T/nowin.mpd") || bad "nowin does not compile"
  (cd "$work" && env -u DISPLAY ./nowin >nowin.out 2>&1); rc=$?
  if [ $rc = 1 ] && grep -q 'MPDWin: cannot open display' "$work/nowin.out" &&
     grep -q 'RTS abort: MPDWin: WinDrawLine: the window is null' "$work/nowin.out" &&
     ! grep -q 'not reached' "$work/nowin.out"; then ok; else bad "no display: exit $rc"; sed 's/^/    /' "$work/nowin.out"; fi

  # mpdl naming only MPDanimator (as mpdm's makefiles do) gets MPDWin from
  # MPDanimator.ld; mpd, which links MPDWin itself too, gets it once
  (cd "$work" && "$B/mpd" -q -c "$T/anim.mpd" && "$B/mpdl" -o anim1 MPDanimator anim &&
   "$B/mpd" -q -o anim2 "$T/anim.mpd") >"$work/link.out" 2>&1 && ok || { bad "linking MPDanimator"; sed 's/^/    /' "$work/link.out"; }

  # a program that does not import MPDWin does not link libX11
  printf 'resource plain()\n  write("plain")\nend\n' >"$work/plain.mpd"
  (cd "$work" && "$B/mpd" -q -o plain plain.mpd) && ldd "$work/plain" 2>/dev/null | grep -q libX11 &&
    bad "a program without MPDWin links libX11" || ok

  if need "MPDWin under Xvfb" xvfb xvfb-run Xvfb && need "MPDWin screenshots" x11-apps xwd &&
     need "MPDWin screenshot comparison" imagemagick convert compare &&
     need "MPDWin events" xdotool xdotool; then
    for p in draw events anim; do
      (cd "$work" && "$B/mpd" -q -o $p "$T/$p.mpd") || bad "$p does not compile"
    done
    cat >"$work/x.sh" <<'EOS'
cd "$1" || exit 2
wait_for() { i=0; while ! grep -q "$1" "$2" 2>/dev/null; do i=$((i+1)); [ $i -gt 600 ] && return 1; sleep 0.1; done; }
# the drawing: screenshot while the program waits on stdin
mkfifo in.fifo
./draw <in.fifo >draw.out 2>&1 & pid=$!
exec 3>in.fifo
wait_for drawn draw.out && xwd -root -silent | convert xwd:- -crop 160x120+0+0 +repage draw.png || kill $pid
echo >&3; exec 3>&-; wait $pid; echo "draw exit $?" >>draw.out
# events, in order; the pointer starts off the window
xdotool mousemove 300 300
./events >events.out 2>&1 & pid=$!
( sleep 120; kill $pid 2>/dev/null ) &     # only if an event got lost
wait_for ready events.out && xdotool mousemove 30 40 key a key shift+b click 1 mousemove 150 60 click 1 key q || kill $pid
wait $pid; echo "events exit $?" >>events.out
# MPDanimator: the last frame stays up after A_end until 'q'
./anim >anim.out 2>&1 & pid=$!
wait_for ending anim.out && xwd -root -silent | convert xwd:- -crop 600x600+0+0 +repage anim.png
# (Xvfb gives keys to the window under the pointer only once it has moved)
i=0; while kill -0 $pid 2>/dev/null && [ $i -lt 60 ]; do
  xdotool mousemove $((100 + i)) 100 key q; sleep 0.5; i=$((i+1)); done
kill $pid 2>/dev/null; wait $pid; echo "anim exit $?" >>anim.out
EOS
    xvfb-run -a -s "-screen 0 800x700x24 -nolisten tcp -noreset" sh "$work/x.sh" "$work" >"$work/x.log" 2>&1
    if grep -q '^draw exit 0$' "$work/draw.out" && [ -f "$work/draw.png" ] &&
       [ "$(compare -metric AE "$T/draw.png" "$work/draw.png" null: 2>&1)" = 0 ]; then ok; else
      bad "draw: the screenshot differs from tests/mpdwin/draw.png ($(compare -metric AE "$T/draw.png" "$work/draw.png" null: 2>&1) pixels)"
      cat "$work/draw.out" "$work/x.log" | sed 's/^/    /'; fi
    if [ "$(cat "$work/anim.out")" = "$(printf 'ending\nanim exit 0')" ] && [ -f "$work/anim.png" ] &&
       [ "$(compare -metric AE "$T/anim.png" "$work/anim.png" null: 2>&1)" = 0 ]; then ok; else
      bad "anim: the screenshot differs from tests/mpdwin/anim.png ($(compare -metric AE "$T/anim.png" "$work/anim.png" null: 2>&1) pixels) or it did not end on 'q'"
      sed 's/^/    /' "$work/anim.out"; fi
    printf 'events exit 0\n' | cat "$T/events.std" - >"$work/events.want"
    if cmp -s "$work/events.want" "$work/events.out"; then ok; else bad "events"; diff "$work/events.want" "$work/events.out" | sed 's/^/    /'; fi

    # MPD's examples/graphics and the tutorial's window.hello, built as their
    # README says (mpd prog.mpd mpdwin.o -lX11): each must keep running
    # (they are interactive) or end with status 0
    g=../shared/mpd-vsuite/examples/graphics
    if [ -d "$g" ]; then
      mkdir -p "$work/g" && cp "$g"/* ../shared/mpd-vsuite/examples/tutorial/window.hello/*.mpd "$work/g/"
      cat >"$work/g.sh" <<'EOS'
cd "$1" || exit 2
for f in *.mpd; do
  p=${f%.mpd}
  if ! "$2/mpd" -q -o "$p" "$f" mpdwin.o -lX11 >"$p.cerr" 2>&1; then echo "$p: does not compile"; cat "$p.cerr"; continue; fi
  in=/dev/null; [ "$p" = gauss ] || [ "$p" = mandel ] && in=colors.20
  a=""; [ "$p" = window.hello ] && a=1
  ./"$p" $a <"$in" >"$p.out" 2>&1 & pid=$!
  sleep 2
  if kill -0 $pid 2>/dev/null; then kill $pid; wait $pid 2>/dev/null; echo "$p: ok (running)"
  else wait $pid; rc=$?; [ $rc = 0 ] && echo "$p: ok (exit 0)" || { echo "$p: exit $rc"; cat "$p.out"; }; fi
done
EOS
      xvfb-run -a -s "-screen 0 1280x1024x24 -nolisten tcp -noreset" sh "$work/g.sh" "$work/g" "$B" >"$work/g.log" 2>&1
      a=../shared/mpd-vsuite/examples/animator
      if [ -d "$a" ]; then
        # MPD's examples/animator, on our MPDanimator (no XTANGO): the drivers
        # are linked with their resources as its Makefile does
        mkdir -p "$work/a" && cp "$a"/*.mpd "$work/a/"
        cat >"$work/a.sh" <<'EOS'
cd "$1" || exit 2
for f in *.mpd; do
  p=${f%.mpd}; extra=""
  case $p in bbdriver|rwdriver) continue ;; bb*) extra=bbdriver.mpd ;; rw*) extra=rwdriver.mpd ;; esac
  if ! "$2/mpd" -q -o "$p" "$f" $extra >"$p.cerr" 2>&1; then echo "animator/$p: does not compile"; cat "$p.cerr"; continue; fi
  ./"$p" </dev/null >"$p.out" 2>&1 & pid=$!
  sleep 2
  if kill -0 $pid 2>/dev/null; then kill $pid; wait $pid 2>/dev/null; echo "animator/$p: ok (running)"
  else wait $pid; rc=$?; [ $rc = 0 ] && echo "animator/$p: ok (exit 0)" || { echo "animator/$p: exit $rc"; cat "$p.out"; }; fi
done
EOS
        xvfb-run -a -s "-screen 0 1280x1024x24 -nolisten tcp -noreset" sh "$work/a.sh" "$work/a" "$B" >>"$work/g.log" 2>&1
      fi
      n=$(grep -c ': ok (' "$work/g.log")
      pass=$((pass+n))
      grep -v ': ok (' "$work/g.log" | grep -q . && { fail=$((fail+1)); echo "FAIL mpdwin: examples/graphics or examples/animator"; grep -v ': ok (' "$work/g.log" | head -20 | sed 's/^/    /'; }
    fi
  fi
fi
need_tally mpdwin $pass $fail
