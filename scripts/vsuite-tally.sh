#!/bin/sh
# vsuite-tally.sh: runs MPD 1.0.1's verification suite (read from ../shared,
# never copied here) against build/bin, prints the per-area tally, and fails
# if the pass count falls below the ratchet recorded in tests/vsuite.ratchet,
# or if a test that passes on one VP fails on 4 (scripts/vsuite-mvp.sh;
# VSUITE_NO_MVP=1 skips that part).
cd "$(dirname "$0")/.." || exit 2
suite=../shared/mpd-vsuite
if [ ! -d "$suite" ]; then echo "vsuite: $suite not present; skipped"; exit 0; fi
out=$(mktemp)
# MPDWin's and MPDanimator's tests need an X server: under Xvfb when it is
# installed
xrun=""
if [ -z "$DISPLAY" ] && command -v xvfb-run >/dev/null 2>&1; then
    xrun="xvfb-run -a -s '-screen 0 1280x1024x24 -nolisten tcp -noreset'"
fi
eval $xrun python3 ../shared/tools/vsuite.py --suite "$suite" --bin build/bin --jobs 2 --timeout 60 \
  --json "$out.json" '"$@"' >"$out" 2>&1
cat "$out"
got=$(sed -n 's/^\([0-9][0-9]*\) passed, [0-9]* failed.*/\1/p' "$out" | tail -n 1)
floor=$(cat tests/vsuite.ratchet 2>/dev/null || echo 0)
echo "vsuite ratchet: $got passed (floor $floor)"
ok=0
[ -n "$got" ] && [ "$got" -ge "$floor" ] || ok=1
# the same suite on 4 VPs: every test that passes on one must pass there too
if [ -z "$VSUITE_NO_MVP" ]; then
    echo "vsuite on 4 VPs (scripts/vsuite-mvp.sh):"
    VSUITE_ONE_JSON="$out.json" sh scripts/vsuite-mvp.sh 4 "$@" || ok=1
fi
rm -f "$out" "$out.json"
exit $ok
