# mpdl links C objects and archives named on its command line, finding them
# through MPD_PATH, ., MPDinter (mpdl(1)); a missing one is a clear error.
BIN=${BUILD:-$(pwd)/build}/bin
d=$(mktemp -d); p=0; f=0
cd "$d" || exit 2
mkdir lib
cat >use.mpd <<'M'
resource use()
    external twice(int n) returns int r
    external thrice(int n) returns int r
    write(twice(4), thrice(5))
end
M
echo 'int twice(int n) { return 2 * n; }' >twice.c
echo 'int thrice(int n) { return 3 * n; }' >thrice.c
cc -c twice.c -o lib/twice.o && cc -c thrice.c && ar cr lib/libx.a thrice.o || exit 2
"$BIN/mpd" -c use.mpd >/dev/null 2>&1 || { echo "FAIL compile use.mpd"; f=$((f+1)); }
if MPD_PATH=lib "$BIN/mpdl" use twice.o libx.a >link.out 2>&1 && [ "$(./a.out)" = "8 15" ]; then
  p=$((p+1)); echo "PASS mpdl: objects and archives through MPD_PATH"
else f=$((f+1)); echo "FAIL mpdl: objects and archives through MPD_PATH"; cat link.out; fi
if ! "$BIN/mpdl" use nosuch.o >link.out 2>&1 && grep -q "cannot find nosuch.o" link.out; then
  p=$((p+1)); echo "PASS mpdl: missing object reported"
else f=$((f+1)); echo "FAIL mpdl: missing object reported"; cat link.out; fi
# srl's messages speak SR: its name, SR_PATH, sr
cat >usesr.sr <<'M'
resource usesr()
    external twice(n : int) returns r : int
    write(twice(4))
end
M
"$BIN/sr" -c usesr.sr >/dev/null 2>&1 || { echo "FAIL compile usesr.sr"; f=$((f+1)); }
if SR_PATH=lib "$BIN/srl" usesr twice.o >link.out 2>&1 && [ "$(./a.out)" = "8" ] &&
   ! "$BIN/srl" usesr nosuch.o >link.out 2>&1 && grep -q "^srl: cannot find nosuch.o (looked in SR_PATH," link.out &&
   ! "$BIN/srl" nosuch >link.out 2>&1 && grep -q "^srl: .*compile it with sr first" link.out; then
  p=$((p+1)); echo "PASS srl: SR_PATH, and messages in SR's words"
else f=$((f+1)); echo "FAIL srl: SR_PATH, and messages in SR's words"; cat link.out; fi
# mpd links the components a program imports that were compiled by earlier
# runs (here through MPD_PATH), as MPD 1.0.1 does; a component's X.ld adds
# what linking it needs (library components: MPDWin's mpdwin.a -lX11)
mkdir glob && cat >glob/sq.mpd <<'M'
global sq
    op square(int x) returns int r
body sq
    external thrice(int n) returns int r
    proc square(x) returns r { r = x * x + thrice(0) }
end
M
cat >main.mpd <<'M'
resource main()
    import sq
    write(square(7))
end
M
(cd glob && "$BIN/mpd" -q -c sq.mpd && echo "libx.a" >MPDinter/sq.ld && cp ../lib/libx.a MPDinter/) >/dev/null 2>&1
if MPD_PATH=glob/MPDinter "$BIN/mpd" -q main.mpd >link.out 2>&1 && [ "$(./a.out)" = "49" ]; then
  p=$((p+1)); echo "PASS mpd: imported component compiled earlier is linked, with its X.ld"
else f=$((f+1)); echo "FAIL mpd: imported component compiled earlier is linked, with its X.ld"; cat link.out; fi
# ... and those imported by what it imports: cube's body uses sq, main2 only cube
cat >glob/cube.mpd <<'M'
global cube
    op cubed(int x) returns int r
body cube
    import sq
    proc cubed(x) returns r { r = square(x) * x }
end
M
printf 'resource main2()\n    import cube\n    write(cubed(3))\nend\n' >main2.mpd
(cd glob && MPD_PATH=MPDinter "$BIN/mpd" -q -c cube.mpd) >/dev/null 2>&1
if MPD_PATH=glob/MPDinter "$BIN/mpd" -q -o b.out main2.mpd >link.out 2>&1 && [ "$(./b.out)" = "27" ]; then
  p=$((p+1)); echo "PASS mpd: components imported by imported ones are read and linked"
else f=$((f+1)); echo "FAIL mpd: components imported by imported ones are read and linked"; cat link.out; fi
cd / && rm -rf "$d"
echo "mpdl-objects: $p passed, $f failed"
[ $f = 0 ]
