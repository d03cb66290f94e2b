# SR's formatters srtex, srlatex and srgrind (compiler/src/srfmt): their
# outputs on the programs of tests/srfmt against the expected files there
# (srtex's and srlatex's checked equal to SR 2.3.3's), then each srgrind
# output through groff, which must format it without a warning.
. scripts/lib/need.sh
BUILD=${BUILD:-$PWD/build}
out=$(sh tests/srfmt/run.sh "$BUILD/bin" 2>&1)
echo "$out"
line=$(echo "$out" | tail -n 1)
p=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p'); p=${p:-0}
f=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p'); f=${f:-1}
if need "srfmt: srgrind output through groff" groff-base groff; then
  for tr in tests/srfmt/*.tr; do
    # srgrind's own output needs no macro package; the filter-mode document
    # (filter.ms) uses -ms's displays.  -Tutf8: the non-ASCII characters of
    # oddities.sr have glyphs there.
    case $tr in */filter.tr) ms=-ms ;; *) ms= ;; esac
    err=$(groff $ms -ww -Tutf8 "$tr" 2>&1 >/dev/null)
    if [ -z "$err" ]; then
      p=$((p+1))
    else
      f=$((f+1)); echo "FAIL groff $tr:"; echo "$err" | head -5 | sed 's/^/    /'
    fi
  done
fi
need_tally srfmt $p $f
