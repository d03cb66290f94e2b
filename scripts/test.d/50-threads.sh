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
  # A preemption tick is deferred only inside mpd_rt_text; a helper linked from
  # libgcc.a lands in the program's .text, so the runtime must not call any
  # that may run with a lock held: GCC's out-of-line atomics (-moutline-atomics)
  # did, and preempt_locks hung.  (The long-double helpers of lang/random.c
  # remain: pure arithmetic, though mpd_seed calls one under its spin lock.)
  aarch64-linux-gnu-nm --defined-only "$(aarch64-linux-gnu-gcc -print-libgcc-file-name)" 2>/dev/null |
    awk 'NF==3{print $3}' | sort -u > "$A/libgcc.syms"
  helpers=$(aarch64-linux-gnu-nm -u "$A/lib/libmpdrt.a" 2>/dev/null | awk '{print $2}' | sort -u |
    comm -12 - "$A/libgcc.syms" | grep -v '^__[a-z]*tf[a-z0-9]*$' | tr '\n' ' ')
  if [ -n "$helpers" ]; then echo "FAIL aarch64 libmpdrt.a calls libgcc helpers outside mpd_rt_text: $helpers"; echo "threads: 0 passed, 1 failed"; exit 1; fi
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
p=$(echo "$last" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p'); f=$(echo "$last" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
# preempt_locks under qemu-aarch64, 20 more runs (1-3 VPs each, ~1 s a run):
# the outline-atomics hang took about one run in six
if [ -n "$a64" ]; then
  pq=0; fq=0
  for i in $(seq 20); do
    if timeout 60 "$A/tests/runtime/threads/preempt_locks.qemu" >/dev/null 2>&1; then pq=$((pq+1)); else fq=$((fq+1)); fi
  done
  echo "preempt_locks under qemu-aarch64: $pq of 20 runs passed"
  p=$((p+pq)); f=$((f+fq))
fi
need_tally threads "$p" "$f"
