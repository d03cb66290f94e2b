#!/bin/sh
# sr-tally.sh: runs SR 2.3.3's verification suite (read from ../shared, never
# copied here) against build/bin's sr/srl/srm, prints the per-area tally, and
# fails if the pass count falls below the ratchet recorded in tests/sr.ratchet.
# Arguments go to vsuite.py (e.g. --only book).
cd "$(dirname "$0")/.." || exit 2
suite=../shared/sr-vsuite
if [ ! -d "$suite" ]; then echo "sr-vsuite: $suite not present; skipped"; exit 0; fi
out=$(mktemp)
python3 ../shared/tools/vsuite.py --lang sr --suite "$suite" --bin build/bin --jobs 2 --timeout 60 \
  "$@" >"$out" 2>&1
cat "$out"
got=$(sed -n 's/^\([0-9][0-9]*\) passed, [0-9]* failed.*/\1/p' "$out" | tail -n 1)
floor=$(cat tests/sr.ratchet 2>/dev/null || echo 0)
echo "sr ratchet: $got passed (floor $floor)"
rm -f "$out"
[ -n "$got" ] && [ "$got" -ge "$floor" ]
