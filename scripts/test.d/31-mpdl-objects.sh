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
cd / && rm -rf "$d"
echo "mpdl-objects: $p passed, $f failed"
[ $f = 0 ]
