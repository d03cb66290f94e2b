# MPF conversations under ThreadSanitizer (the plain build runs in 10-runtime.sh).
# Builds libmpdrt with clang -fsanitize=thread in its own tree and runs only runtime/tests/mpf/*.
T="$BUILD/tsan"
. scripts/lib/need.sh
need mpf-tsan clang clang || { need_tally mpf-tsan 0 0; exit; }
bins=$(for f in runtime/tests/mpf/*.c; do n=${f#runtime/tests/}; echo "$T/tests/runtime/${n%.c}"; done)
make -s -C runtime BUILD="$T" SAN=thread CC=clang $bins >/dev/null || { echo "mpf-tsan: 0 passed, 1 failed (build)"; exit 1; }
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}" sh scripts/run-tests.sh mpf-tsan $bins
