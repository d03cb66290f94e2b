# The type rules against the translation (compiler/src/check/type_audit.rs):
# every program of the project's corpora and of the suites in ../shared (when
# present) is checked with MPD_AUDIT_TYPES=1, which reports each expression
# whose type_of, const_of or is_variable disagrees with what its translation
# gives.  A program passes when no disagreement is reported (its own errors,
# for the programs that must fail, do not count).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0; fail=0
audit() {
    comp=$1 src=$2
    rm -rf "$work/d" && mkdir "$work/d" && cp "$src" "$work/d/"
    if (cd "$work/d" && MPD_AUDIT_TYPES=1 "$BUILD/bin/$comp" -C -q -w ./* 2>&1) | grep "disagree"; then
        echo "FAIL $src"
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
}
for f in $(find tests/corpus ../shared/mpd-vsuite -name '*.mpd' 2>/dev/null | sort); do audit mpd "$f"; done
for f in $(find tests/corpus-sr ../shared/sr-vsuite -name '*.sr' 2>/dev/null | sort); do audit sr "$f"; done
echo "type-audit: $pass passed, $fail failed"
