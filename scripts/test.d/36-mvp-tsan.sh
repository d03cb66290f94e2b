# Multi-VP stress programs (tests/corpus/conc/mp_*.mpd: send/receive, in with
# st/by, co, semaphores, call/reply/forward, create/destroy, compaction's
# flips between one VP and several), compiled by our
# mpd against a ThreadSanitizer build of the runtime and run with
# MPD_PARALLEL=2 and 4: each must print its .std and TSan must stay silent.
R=$(pwd)/runtime
B=${BUILD:-$(pwd)/build}/ops-san
T=$B/tsan                   # shared with 15-ops-sanitizers.sh
W=$B/mvp
MPD=${BUILD:-$(pwd)/build}/bin/mpd
p=0; f=0
mkdir -p "$W"
. scripts/lib/need.sh
need mvp-tsan clang clang || { need_tally mvp-tsan 0 0; exit; }
if ! make -s -C "$R" BUILD="$T" SAN=thread CC=clang OPT=-O1 SRCDIRS="csw core sync lang" all \
     >"$W/build.log" 2>&1; then
  echo "FAIL tsan runtime build"; tail -n 20 "$W/build.log"; echo "mvp-tsan: 0 passed, 1 failed"; exit 1
fi
. scripts/san-runs.sh
san_runs tsan "$T" "clang -fsanitize=thread -g" "2 4" "tests/corpus/conc/mp_*.mpd" \
  TSAN_OPTIONS="halt_on_error=1 exitcode=66"
# compaction's flips (runtime/core/compact.c): tiny thresholds make the mode
# go between one VP and several dozens of times in one run (mp_flow: with
# the send flow control's yields, lang/inv.c; mp_groups: the groups'
# trigger, a look every 64 messages, and its placement; mp_fastq: one VP's
# unlocked send and receive fast paths, lang/inqueue.c and inselect.c)
san_runs tsan-flips "$T" "clang -fsanitize=thread -g" "2 4" "tests/corpus/conc/mp_compact.mpd tests/corpus/conc/mp_flow.mpd tests/corpus/conc/mp_groups.mpd tests/corpus/conc/mp_fastq.mpd" \
  TSAN_OPTIONS="halt_on_error=1 exitcode=66" MPD_SLICE=20 MPD_COMPACT_IDLE_US=0 MPD_COMPACT_TRIAL_US=2 MPD_COMPACT_SAMPLE=64
need_tally mvp-tsan $p $f
