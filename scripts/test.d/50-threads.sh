# Threads, adaptive locks and RAS beyond the default runtime run:
#  1. every multi-threaded test in runtime/tests/threads/ rebuilt with
#     -fsanitize=thread (tests marked "tsan: skip" switch contexts inside signal
#     handlers, which TSan cannot follow);
#  2. where an aarch64 cross compiler and qemu-aarch64 exist, every test of
#     runtime/tests/threads/ built for aarch64 and run under qemu-user (PC
#     rewind through uc_mcontext.pc, the aarch64 sequences, preemption with
#     the aarch64 context switch, the rseq fallback).
B="$BUILD/tsan"
tests=""
for f in runtime/tests/threads/*.c; do
  grep -q 'tsan: skip' "$f" && continue
  n=${f#runtime/tests/}; tests="$tests $B/tests/runtime/${n%.c}"
done
make -s -C runtime BUILD="$B" SAN=thread OPT=-O1 $tests >/dev/null || { echo "threads: 0 passed, 1 failed"; exit 1; }
A="$BUILD/aarch64"
a64=""
. scripts/lib/need.sh
if need threads/aarch64 "gcc-aarch64-linux-gnu, qemu-user" aarch64-linux-gnu-gcc qemu-aarch64; then
  # tests marked "qemu: skip" say why they cannot run under qemu-user
  a64=$(for f in runtime/tests/threads/*.c; do grep -q 'qemu: skip' "$f" && continue
        n=${f#runtime/tests/}; printf '%s ' "$A/tests/runtime/${n%.c}"; done)
  make -s -C runtime BUILD="$A" CC=aarch64-linux-gnu-gcc $a64 >/dev/null || { echo "threads: 0 passed, 1 failed"; exit 1; }
  for t in $a64; do
    printf '#!/bin/sh\nexec qemu-aarch64 -L /usr/aarch64-linux-gnu %s "$@"\n' "$t" > "$t.qemu"; chmod +x "$t.qemu"
  done
  a64=$(for t in $a64; do printf '%s.qemu ' "$t"; done)
fi
# Old TSan runtimes cannot map their shadow under high ASLR entropy: run without randomisation when possible.
R=""; setarch "$(uname -m)" -R true 2>/dev/null && R="setarch $(uname -m) -R"
out=$(TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}" \
  $R sh scripts/run-tests.sh threads $tests $a64)
echo "$out"
last=$(echo "$out" | tail -n 1)
need_tally threads "$(echo "$last" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')" \
  "$(echo "$last" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')"
