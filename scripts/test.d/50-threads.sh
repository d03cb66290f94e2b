# Threads, adaptive locks and RAS under ThreadSanitizer: every multi-threaded
# test in runtime/tests/threads/ (those not marked "tsan: skip", which switch
# contexts inside signal handlers), built with -fsanitize=thread.
B="$BUILD/tsan"
tests=""
for f in runtime/tests/threads/*.c; do
  grep -q 'tsan: skip' "$f" && continue
  n=${f#runtime/tests/}; tests="$tests $B/tests/runtime/${n%.c}"
done
make -s -C runtime BUILD="$B" SAN=thread OPT=-O1 $tests >/dev/null || { echo "threads-tsan: 0 passed, 1 failed"; exit 1; }
# Old TSan runtimes cannot map their shadow under high ASLR entropy: run without randomisation when possible.
R=""; setarch "$(uname -m)" -R true 2>/dev/null && R="setarch $(uname -m) -R"
TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$PWD/runtime/tests/threads/tsan.supp ${TSAN_OPTIONS:-}" $R sh scripts/run-tests.sh threads-tsan $tests
