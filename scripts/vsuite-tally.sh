#!/bin/sh
# vsuite-tally.sh: runs MPD 1.0.1's verification suite (read from ../shared,
# never copied here) against build/bin, prints the per-area tally, and fails
# only if the pass count falls below the ratchet recorded in tests/vsuite.ratchet.
cd "$(dirname "$0")/.." || exit 2
suite=../shared/mpd-vsuite
if [ ! -d "$suite" ]; then echo "vsuite: $suite not present; skipped"; exit 0; fi
out=$(mktemp)
python3 ../shared/tools/vsuite.py --suite "$suite" --bin build/bin --jobs 2 --timeout 60 \
  --skip examples/graphics examples/animator "$@" >"$out" 2>&1
cat "$out"
got=$(sed -n 's/^\([0-9][0-9]*\) passed, [0-9]* failed.*/\1/p' "$out" | tail -n 1)
rm -f "$out"
floor=$(cat tests/vsuite.ratchet 2>/dev/null || echo 0)
echo "vsuite ratchet: $got passed (floor $floor)"
[ -n "$got" ] && [ "$got" -ge "$floor" ]
