# Unit tests of the Rust compiler crate.
cd compiler || exit 2
out=$(cargo test --release --quiet 2>&1); rc=$?
echo "$out" | tail -n 30
p=$(echo "$out" | sed -n 's/^test result: [a-zA-Z]*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\1/p' | awk '{s+=$1} END {print s+0}')
f=$(echo "$out" | sed -n 's/^test result: [a-zA-Z]*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\2/p' | awk '{s+=$1} END {print s+0}')
[ $rc = 0 ] || [ "$f" != 0 ] || f=1
echo "compiler: $p passed, $f failed"
