# The corpus (tests/corpus) on several virtual processors: every program not
# marked <name>.nondet must print with MPD_PARALLEL=2 and with MPD_PARALLEL=4
# exactly its .std, i.e. what it prints on one VP.  A program that fails is
# rerun twice: passing on a rerun is printed as FLAKY (to be looked at: the
# program's output depends on the interleaving) but does not fail the step,
# as scripts/vsuite-mvp.sh does for the suite.
p=0; f=0
for n in 2 4; do
  out=$(MPD_PARALLEL=$n CORPUS_DETERMINISTIC=1 CORPUS_RETRIES=2 sh tests/run-corpus.sh "${BUILD:-$(pwd)/build}/bin" 2>&1)
  echo "$out"
  line=$(echo "$out" | tail -n 1)
  p=$((p + $(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')))
  nf=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
  f=$((f + ${nf:-1}))
done
echo "corpus-mvp: $p passed, $f failed"
[ $f = 0 ]
