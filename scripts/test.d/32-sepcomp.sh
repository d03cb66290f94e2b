# Separate compilation (mpd -c one file at a time, then mpdl): compiling a
# component reads the specs it imports from MPDinter, the specs those import
# in turn, and only spec parts -- what a body imports is not needed by its
# importers.  Expected outputs are MPD 1.0.1's for the same commands.
BIN=${BUILD:-$(pwd)/build}/bin
p=0; f=0
check() { # NAME WANT GOT
  if [ "$2" = "$3" ]; then p=$((p+1)); echo "PASS sepcomp: $1"
  else f=$((f+1)); echo "FAIL sepcomp: $1"; echo "  want: $2"; echo "  got:  $3"; fi
}

# 1. three specs deep: Top imports Low, whose spec imports Mid, whose spec
#    uses a type of Base; Top names neither Mid nor Base.
d=$(mktemp -d); cd "$d" || exit 2
cat >base.mpd <<'M'
global Base
    type pt = rec (int x, y)
    const int K = 3
end
M
cat >mid.mpd <<'M'
global Mid
    import Base
    op scale(var pt p)
    int calls = 0
body Mid
    int hidden = 100
    proc scale(p) { p.x *= K; p.y *= K; calls++; hidden++ }
end
M
cat >low.mpd <<'M'
resource Low
    import Mid
    op go(int a) returns int
body Low()
    import Base
    proc go(a) returns n { pt p; p.x = a; p.y = a + 1; scale(p); scale(p); n = p.x + p.y + calls }
end
M
cat >top.mpd <<'M'
resource Top()
    import Low
    cap Low l = create Low()
    write(l.go(1))
    write(l.go(2))
end
M
out=$( { for s in base mid low top; do "$BIN/mpd" -c $s.mpd || echo "mpd -c $s.mpd failed"; done
         "$BIN/mpdl" Base Mid Low Top && ./a.out; } 2>&1)
check "specs imported by imported specs" "$(printf '29\n49')" "$out"
cd / && rm -rf "$d"

# 2. only spec parts: G's body imports H, R's separate body imports H; with
#    H.spec out of reach, U (importing R and G) still compiles, and G's body
#    variable after its spec variable does not move the spec variable.
d=$(mktemp -d); cd "$d" || exit 2; mkdir away
cat >h.mpd <<'M'
global H
    const int k = 1000
end
M
cat >g.mpd <<'M'
global G
    int shown = 1
    op value() returns int
body G
    import H
    int hidden = 5
    proc value() returns r { r = shown + hidden + k }
    shown = 2
end
M
cat >rspec.mpd <<'M'
resource R
    import G
    op twice() returns int
body R(int base) separate
M
cat >rbody.mpd <<'M'
body R
    import H
    proc twice() returns r { r = 2 * (value() + base) + k }
end
M
cat >u.mpd <<'M'
resource U()
    import R, G
    write(shown, value())
    shown = 10
    cap R r = create R(7)
    write(shown, value(), r.twice())
end
M
out=$( { for s in h g rspec rbody; do "$BIN/mpd" -c $s.mpd || echo "mpd -c $s.mpd failed"; done
         mv MPDinter/H.spec away/
         "$BIN/mpd" -c u.mpd || echo "mpd -c u.mpd failed"
         mv away/H.spec MPDinter/   # mpdl reads every linked component's spec
         "$BIN/mpdl" H G R U && ./a.out; } 2>&1)
check "importers use spec parts only" "$(printf '2 1007\n10 1015 3044')" "$out"
cd / && rm -rf "$d"

echo "sepcomp: $p passed, $f failed"
[ $f = 0 ]
