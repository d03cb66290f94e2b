#!/bin/sh
# msg-snapshot.sh BIN OUT: what the compiler in BIN says (stdout, stderr and
# exit status, warnings included) for every program of the project's
# corpora and of the suites in ../shared (when present), one file per
# compilation under OUT.  c-snapshot.sh's companion: a compiler change that
# must not change the generated C must not change a message either; compare
# two snapshots with `diff -r OLD NEW`.  Compiled as c-snapshot.sh does: a
# corpus program alone, a suite folder's sources together and, when that
# fails, each alone too (so the messages of every file are recorded).
set -u
bin=${1:?usage: msg-snapshot.sh BIN OUT}
out=${2:?usage: msg-snapshot.sh BIN OUT}
bin=$(cd "$bin" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# say DEST CC ARGS...: compile in $work/d, record what it says
say() {
    dest=$1 cc=$2
    shift 2
    mkdir -p "$(dirname "$dest")"
    (cd "$work/d" && "$bin/$cc" -C "$@" >"$dest" 2>&1; echo "exit $?" >>"$dest")
}

single() {
    base=$1 ext=$2 cc=$3 prefix=$4
    [ -d "$base" ] || return 0
    find "$base" -name "*.$ext" | sort | while read -r f; do
        rel=${f#"$base"}
        rm -rf "$work/d" && mkdir "$work/d" && cp "$f" "$work/d/"
        say "$out/$prefix$rel.txt" "$cc" "$(basename "$f")"
    done
}

walk() {
    base=$1 ext=$2 cc=$3 prefix=$4
    [ -d "$base" ] || return 0
    find "$base" -name "*.$ext" -exec dirname {} \; | sort -u | while read -r d; do
        rel=${d#"$base"}
        rm -rf "$work/d" && mkdir "$work/d" && cp "$d"/*."$ext" "$work/d/"
        say "$out/$prefix$rel/ALL.txt" "$cc" $(cd "$work/d" && ls ./*."$ext")
        if ! tail -1 "$out/$prefix$rel/ALL.txt" | grep -q '^exit 0$'; then
            for f in "$d"/*."$ext"; do
                rm -rf "$work/d" && mkdir "$work/d" && cp "$d"/*."$ext" "$work/d/"
                say "$out/$prefix$rel/$(basename "$f").txt" "$cc" "$(basename "$f")"
            done
        fi
    done
}

single "$root/tests" mpd mpd tests
single "$root/tests" sr sr tests
walk "$root/../shared/mpd-vsuite" mpd mpd mpd-vsuite
walk "$root/../shared/sr-vsuite" sr sr sr-vsuite
echo "msg-snapshot: $(find "$out" -name '*.txt' | wc -l) compilations, $(grep -l '^exit [1-9]' -r "$out" | wc -l) failed"
