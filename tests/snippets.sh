#!/usr/bin/env bash
# Compiles every ```c block of the given Markdown files, so documentation cannot rot.
# A block with a main() is linked and run (it must exit 0); any other block is
# compiled as a translation unit of its own. Fragments that are not meant to
# compile belong in ```text blocks. Prints "N passed, N failed".
set -u
cc=${CC:-cc}
# Snippets print floats with printf, which -Wdouble-promotion flags; the header
# itself is held to the full set of warnings by compile_matrix.sh.
# The header's SIMD loops are compiled out (FK_LBS_NO_SIMD): what is checked
# here is the documented code, and each snippet compiles the whole header, whose
# SIMD loops take most of that time (1.7 s a snippet at -O0 on the slower
# machine CI has run on, against 0.3; 5 s before unoptimized builds kept one
# copy of each loop). The SIMD build of the header is compiled and tested by
# every other test.
flags=${SNIPPET_FLAGS:--std=c99 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror -DFK_LBS_NO_SIMD}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
passed=0; failed=0
[ $# -gt 0 ] || set -- "$root/README.md" "$root"/docs/*.md
for doc in "$@"; do
    [ -f "$doc" ] || continue
    # Split the file into numbered blocks: block_N.c holds the Nth ```c block.
    awk -v dir="$work" -v base="$(basename "$doc" .md)" '
        /^```c[ \t]*$/ { n++; file = sprintf("%s/%s_%d.c", dir, base, n); inside = 1; next }
        /^```/ && inside { inside = 0; close(file); next }
        inside { print > file }' "$doc"
done
# Two blocks at a time (the machines this runs on have two cores); block NAME
# leaves "ok" or nothing in NAME.result, and its messages in NAME.log and NAME.out.
check_block() {
    local block=$1 name
    name=$(basename "$block" .c)
    if grep -q 'main *(' "$block"; then
        $cc $flags -I"$root" "$block" -o "$work/$name" -lm 2>"$work/$name.log" &&
            (cd "$work" && "./$name" >"$work/$name.out" 2>&1) && echo ok >"$work/$name.result"
    else
        $cc $flags -I"$root" -c "$block" -o "$work/$name.o" 2>"$work/$name.log" && echo ok >"$work/$name.result"
    fi
}
for block in "$work"/*.c; do
    [ -e "$block" ] || break
    while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
    check_block "$block" &
done
wait
for block in "$work"/*.c; do
    [ -e "$block" ] || break
    name=$(basename "$block" .c)
    if [ "$(cat "$work/$name.result" 2>/dev/null)" = ok ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL snippet $name:"; cat "$work/$name.log" "$work/$name.out" 2>/dev/null | head -20
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
