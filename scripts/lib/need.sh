# need.sh: sourced by the steps of scripts/test.d when a part of a step needs
# a tool that a machine with only Rust and a C compiler lacks (clang, qemu,
# cross compilers, Open MPI, Boost.Context, Xvfb...).
#
#   need WHAT PACKAGE CMD...    true when every CMD is on PATH
#   need_file WHAT PACKAGE GLOB true when GLOB names an existing file
#
# When something is missing, the part WHAT is skipped and said so, with the
# package that enables it; under CI=true a missing tool is a failure instead,
# so CI can never pass by skipping.  The step ends with need_tally, whose line
# test-all.sh sums: "LABEL: P passed, F failed, K skipped".
need_skip=0
need_fail=0

need_missing() {   # need_missing WHAT PACKAGE MISSING
  if [ "${CI:-}" = true ]; then
    need_fail=$((need_fail+1))
    echo "FAIL $1: needs $3 (package $2; CI installs it with scripts/install-deps.sh)"
  else
    need_skip=$((need_skip+1))
    echo "SKIP $1: needs $3 (package $2: sudo sh scripts/install-deps.sh)"
  fi
  return 1
}

need() {
  _need_what=$1; _need_pkg=$2; shift 2
  for _need_c in "$@"; do
    command -v "$_need_c" >/dev/null 2>&1 || { need_missing "$_need_what" "$_need_pkg" "$_need_c"; return 1; }
  done
  return 0
}

need_file() {
  for _need_f in $3; do [ -e "$_need_f" ] && return 0; done
  need_missing "$1" "$2" "$3"
}

# need_tally LABEL PASSED FAILED: the step's closing line; exit status 1 when
# anything failed (a missing tool under CI included).
need_tally() {
  _need_f=$(($3 + need_fail))
  if [ "$need_skip" -gt 0 ]; then
    echo "$1: $2 passed, $_need_f failed, $need_skip skipped"
  else
    echo "$1: $2 passed, $_need_f failed"
  fi
  [ "$_need_f" = 0 ]
}
