# MPD I/O library tests (runtime/tests/io) beyond the native run: under
# ThreadSanitizer and AddressSanitizer+UBSan, and cross-built for aarch64
# and riscv64 under qemu-user (skipped when the cross tools are missing).
R=$(pwd)/runtime
B=${BUILD:-$(pwd)/build}/io-checks
io_bins() { for t in "$R"/tests/io/*.c; do n=${t##*/}; echo "$1/tests/runtime/io/${n%.c}"; done; }
p=0; f=0
run() {   # run LABEL CMD...: one test program, PASS/FAIL line
  label=$1; shift
  if timeout 300 "$@" >"$B/$(echo "$label" | tr / _).log" 2>&1 </dev/null; then
    p=$((p+1)); echo "PASS $label"
  else
    f=$((f+1)); echo "FAIL $label"; tail -n 20 "$B/$(echo "$label" | tr / _).log" | sed 's/^/    /'
  fi
}
mkdir -p "$B"
. scripts/lib/need.sh
cd "$R" || exit 2          # like `make -C runtime test`: the suite is at ../../shared
if ! need "io-checks/tsan" clang clang; then :
elif make -s -C "$R" BUILD="$B/tsan" SAN=thread CC=clang OPT=-O1 SRCDIRS="csw core sync lang" \
     $(io_bins "$B/tsan") >"$B/tsan-build.log" 2>&1; then
  for t in $(io_bins "$B/tsan"); do
    TSAN_OPTIONS=halt_on_error=1 run "tsan/${t##*/}" "$t"
  done
else f=$((f+1)); echo "FAIL tsan build"; tail -n 20 "$B/tsan-build.log"; fi
if make -s -C "$R" BUILD="$B/asan" SAN=address,undefined CC=gcc OPT=-O1 SRCDIRS="csw core sync lang" \
     $(io_bins "$B/asan") >"$B/asan-build.log" 2>&1; then
  for t in $(io_bins "$B/asan"); do
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 run "asan+ubsan/${t##*/}" "$t"
  done
else f=$((f+1)); echo "FAIL asan build"; tail -n 20 "$B/asan-build.log"; fi
for arch in aarch64 riscv64; do
  cc=$arch-linux-gnu-gcc
  need "io-checks/$arch" "gcc-$arch-linux-gnu, qemu-user" $cc qemu-$arch || continue
  if ! make -s -C "$R" BUILD="$B/$arch" CC=$cc FCONTEXT=0 SRCDIRS="csw core sync lang" \
       $(io_bins "$B/$arch") >"$B/$arch-build.log" 2>&1; then
    f=$((f+1)); echo "FAIL build $arch"; tail -n 20 "$B/$arch-build.log"; continue
  fi
  for t in $(io_bins "$B/$arch"); do
    run "$arch/${t##*/}" qemu-$arch -L /usr/$arch-linux-gnu "$t"
  done
done
need_tally io-checks $p $f
