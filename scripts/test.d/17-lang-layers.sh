# The files of runtime/lang/ call each other in layers (issue 18): an
# invocation goes down them, and the only cycle left is the one
# docs/architecture.md explains.  From the object files' symbols (nm).
. scripts/lib/need.sh
BUILD=${BUILD:-$PWD/build}
p=0; f=0
out=$(mktemp)
if ! ls "$BUILD"/obj/runtime/lang/*.o >/dev/null 2>&1; then
  f=1; echo "FAIL lang-layers: no object files in $BUILD/obj/runtime/lang (build first)"
elif python3 tools/lang-callgraph.py "$BUILD/obj/runtime/lang" --allow "inqueue opcore reclaim" >"$out" 2>&1; then
  p=1; echo "PASS lang-layers: no new call cycle between the files of runtime/lang/"
else
  f=1; echo "FAIL lang-layers:"; grep -E 'NEW CYCLE|Error' "$out" | sed 's/^/    /'
fi
rm -f "$out"
need_tally lang-layers $p $f
