#!/bin/sh
# c-snapshot.sh BIN OUT: the C that the compiler in BIN generates for every
# program of the project's corpora and of the suites in ../shared (when
# present), written under OUT, one folder per source folder.  Compare two
# snapshots with `diff -r OLD NEW` to see what a compiler change does to the
# generated C (issue: the back end must leave it byte-identical or changed
# only in names).
#
# A suite folder's sources are compiled together (`mpd -C *.mpd`, the
# compiler orders them by their imports); a folder that does not compile
# that way is compiled file by file.  What fails is recorded in
# OUT/failed.txt, so the failures are part of the comparison too.
set -u
bin=${1:?usage: c-snapshot.sh BIN OUT}
out=${2:?usage: c-snapshot.sh BIN OUT}
bin=$(cd "$bin" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
: >"$out/failed.txt"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# snap DIR EXT COMPILER TAG
snap() {
    dir=$1 ext=$2 cc=$3 tag=$4
    rm -rf "$work/d" && mkdir "$work/d"
    cp "$dir"/*."$ext" "$work/d/" 2>/dev/null || return 0
    dest="$out/$tag"
    mkdir -p "$dest"
    if ! (cd "$work/d" && "$bin/$cc" -C -q -w ./*."$ext" >/dev/null 2>&1); then
        for f in "$work/d"/*."$ext"; do
            (cd "$work/d" && "$bin/$cc" -C -q -w "$(basename "$f")" >/dev/null 2>&1) ||
                echo "$tag/$(basename "$f")" >>"$out/failed.txt"
        done
    fi
    find "$work/d" -name '*.c' -exec cp {} "$dest/" \;
    for i in "$work/d"/*Inter "$work/d"/MPDinter "$work/d"/SRinter; do
        [ -d "$i" ] && find "$i" -type f -name '*.c' -exec cp {} "$dest/" \;
    done
    rmdir "$dest" 2>/dev/null
    return 0
}

walk() {
    base=$1 ext=$2 cc=$3 prefix=$4
    [ -d "$base" ] || return 0
    find "$base" -name "*.$ext" -exec dirname {} \; | sort -u | while read -r d; do
        rel=${d#"$base"}
        snap "$d" "$ext" "$cc" "$prefix$rel"
    done
}

# each program of the project's corpora is a file of its own, compiled alone
# (as tests/run-corpus.sh does), so that adding a program to a folder does
# not change what the others compile to
single() {
    base=$1 ext=$2 cc=$3 prefix=$4
    [ -d "$base" ] || return 0
    find "$base" -name "*.$ext" | sort | while read -r f; do
        rel=${f#"$base"}; rel=${rel%."$ext"}
        rm -rf "$work/d" && mkdir "$work/d" && cp "$f" "$work/d/"
        dest="$out/$prefix$(dirname "$rel")"
        mkdir -p "$dest"
        (cd "$work/d" && "$bin/$cc" -C -q -w ./*."$ext" >/dev/null 2>&1) ||
            echo "$prefix$rel.$ext" >>"$out/failed.txt"
        for c in $(cd "$work/d" && find . -name '*.c'); do
            cp "$work/d/$c" "$dest/$(basename "$rel")--$(basename "$c")"
        done
    done
}

single "$root/tests/corpus" mpd mpd corpus
single "$root/tests/corpus-sr" sr sr corpus-sr
walk "$root/../shared/mpd-vsuite" mpd mpd mpd-vsuite
walk "$root/../shared/sr-vsuite" sr sr sr-vsuite
echo "c-snapshot: $(find "$out" -name '*.c' | wc -l) C files, $(wc -l <"$out/failed.txt") sources that do not compile"
