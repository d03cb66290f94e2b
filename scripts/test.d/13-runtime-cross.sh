# Runtime core tests cross-built for aarch64 (asm backend) and riscv64
# (ucontext fallback), run under qemu-user.  Reported as skipped when the
# cross compiler or qemu is missing (a failure under CI=true).
R=$(pwd)/runtime
B=${BUILD:-$(pwd)/build}/cross
core_bins() { for t in "$R"/tests/core/*.c; do n=${t##*/}; echo "$1/tests/runtime/core/${n%.c}"; done; }
. scripts/lib/need.sh
p=0; f=0
for arch in aarch64 riscv64; do
  cc=$arch-linux-gnu-gcc
  need "runtime-cross/$arch" "gcc-$arch-linux-gnu, qemu-user" $cc qemu-$arch || continue
  want=asm; [ $arch = riscv64 ] && want=ucontext
  if ! make -s -C "$R" BUILD="$B/$arch" CC=$cc FCONTEXT=0 SRCDIRS="csw core sync lang" $(core_bins "$B/$arch"); then
    f=$((f+1)); echo "FAIL build $arch"; continue
  fi
  for t in $(core_bins "$B/$arch"); do
    n=${t##*/}
    if MPD_TEST_DIV=5 timeout 300 qemu-$arch -L /usr/$arch-linux-gnu "$t" >"$t.log" 2>&1; then
      p=$((p+1)); echo "PASS $arch/$n"
    else f=$((f+1)); echo "FAIL $arch/$n"; tail -n 30 "$t.log" | sed 's/^/    /'; fi
  done
  # Whole programs: the full runtime cross-built, part of the corpus compiled
  # by our mpd with the cross compiler (the driver links what the target
  # needs, e.g. libatomic on riscv64) and run under qemu-user, on 1 and 2 VPs.
  if ! make -s -C "$R" BUILD="$B/$arch" CC=$cc FCONTEXT=0 MPICC=false all >/dev/null 2>&1; then
    f=$((f+1)); echo "FAIL build $arch runtime library"
  else
    for n in 1 2; do
      out=$(MPD_HOME="$B/$arch" CC=$cc MPD_PARALLEL=$n CORPUS_DETERMINISTIC=1 CORPUS_AREAS="basic conc co in invoke" \
            CORPUS_EXEC="qemu-$arch -L /usr/$arch-linux-gnu" sh tests/run-corpus.sh "${BUILD:-$(pwd)/build}/bin" 2>&1)
      if echo "$out" | tail -n 1 | grep -q ' 0 failed'; then p=$((p+1)); echo "PASS $arch/corpus-$n-vp: $(echo "$out" | tail -n 1)"
      else f=$((f+1)); echo "FAIL $arch/corpus-$n-vp"; echo "$out" | tail -n 30 | sed 's/^/    /'; fi
    done
  fi
  grep -q "runtime uses: $want" "$B/$arch/tests/runtime/core/csw_test.log" || { f=$((f+1)); echo "FAIL $arch: expected the $want backend"; }
done
need_tally runtime-cross $p $f
