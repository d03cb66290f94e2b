#!/bin/sh
# compare-oracle.sh BIN ORACLE_BIN: runs our srtex and srlatex (in BIN) and
# SR 2.3.3's (in ORACLE_BIN, e.g. /work/sr233/bin built by
# ../shared/tools/build-sr233.sh) on every SR program of tests/corpus-sr,
# tests/srfmt and, when present, ../shared/sr-vsuite, under 13 option sets,
# and lists every run whose output or exit status differs.  Not a step of
# `make test` (it needs the oracle); run it after changing srfmt.
# RANDOM_FILES=N adds N files of random SR-ish pieces (keywords, operators,
# quotes, comment and escape marks, odd bytes) from a fixed seed.
ours=$1; ora=$2
cd "$(dirname "$0")/../.." || exit 2
n=0; bad=0
tmp=$(mktemp -d)
files=$(find tests/corpus-sr tests/srfmt ../shared/sr-vsuite \( -name '*.sr' -o -name '*.ccr' -o -name '*.m' -o -name '*.csp' \) 2>/dev/null | sort)
if [ "${RANDOM_FILES:-0}" -gt 0 ]; then
  mkdir "$tmp/random"
  python3 - "$tmp/random" "$RANDOM_FILES" <<'PY'
import random, sys
random.seed(19)
pieces = ["resource", "end", "proc", "begin", "separate", "final", "in", "index", "do", "x", "_y", "P",
          "monitor", "region", "await", "backups", "0", "017q", "0ffX", "12ab", ":=", ":=:", "->", "[]", "//",
          "/*", "*/", "**", "*", "/", "#", "#<", ">#", ">", "<", "'", '"', "\\", "\\n", " ", "   ", "\t",
          "\n", "\n\n", "\n  \n", "\f", "$", "&", "%", "_", "{", "}", "~", "^", "@", "!", "!=", "~=", ">=",
          "`", "\r", "\u00e9", "||"]
for k in range(int(sys.argv[2])):
    text = "".join(random.choice(pieces) for _ in range(random.randint(1, 120)))
    open("%s/r%d.sr" % (sys.argv[1], k), "wb").write(text.encode("utf-8"))
PY
  files="$files $(ls "$tmp"/random/*.sr)"
fi
one() {
  tool=$1; shift
  "$ours/$tool" "$@" >"$tmp/ours" 2>/dev/null; r1=$?
  "$ora/$tool" "$@" >"$tmp/oracle" 2>/dev/null; r2=$?
  n=$((n+1))
  if ! cmp -s "$tmp/ours" "$tmp/oracle" || [ $r1 != $r2 ]; then bad=$((bad+1)); echo "DIFF $tool $* (status $r1, oracle $r2)"; fi
}
nf=0
for f in $files; do
  nf=$((nf+1))
  one srtex "$f"; one srtex -p "$f"; one srtex -l "$f"; one srtex -lp -t 4 -a 2 "$f"
  one srtex -a1 -C sl -K tt -S rm -I it "$f"; one srtex -a 0 -t 3 "$f"
  one srlatex "$f"; one srlatex -p "$f"; one srlatex -e "$f"; one srlatex -l pl "$f"
  one srlatex -lftsr -t 3 -a 5 "$f"; one srlatex -ep -a 1 "$f"; one srlatex -pp -a 0 "$f"
done
rm -rf "$tmp"
echo "compare-oracle: $nf files, $n runs, $bad differ"
[ "$bad" = 0 ]
