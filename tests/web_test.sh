#!/usr/bin/env bash
# Drives Debian's Chromium, headless with software WebGL (SwiftShader), over the
# page that `make web` builds, opened from its files with ?test=1: the page then
# checks itself and writes what it found into the DOM, which --dump-dom prints.
# Checks: the page's own (the time slider spans the model shown, at start and
# after switching models both ways; the canvas shows the character; scrubbing
# time changes the picture; CPU and GPU skinning draw alike; no WebGL or console
# error), that
# Chromium logged no console message at all (the page logs none when it works),
# and that the vertices the page's WebAssembly module skinned equal those of
# build/web_dump, the same C compiled natively, on the same poses.
# Without Chromium (make test installs it) nothing is checked, and that counts
# as a failure. Prints "N passed, N failed".
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
passed=0; failed=0
pass() { passed=$((passed + 1)); echo "ok   web: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL web: $1"; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

chromium=$(command -v chromium || true)
[ -n "$chromium" ] || { fail "chromium is not installed (apt-get install chromium)"; finish; }
# Run as a user would, outside any make that runs this script.
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s -C "$root" BUILD="$build" web \
        "$build/web_dump" >"$work/make.log" 2>&1; then
    cat "$work/make.log"; fail "'make web' failed"; finish
fi

# --virtual-time-budget lets the page finish (the module compiles asynchronously)
# before the DOM is printed; --enable-logging=stderr shows its console.
timeout 120 "$chromium" --headless --no-sandbox --use-angle=swiftshader --enable-unsafe-swiftshader \
    --enable-logging=stderr --v=0 --virtual-time-budget=20000 --dump-dom \
    "file://$build/web/index.html?test=1" >"$work/dom.html" 2>"$work/chromium.log"
sed -n '/<pre id="results">/,/<\/pre>/p' "$work/dom.html" | sed 's/<pre id="results">//; s/<\/pre>.*//' \
    | sed 's/&gt;/>/g; s/&lt;/</g; s/&amp;/\&/g' >"$work/results"
if ! grep -q . "$work/results"; then
    fail "the page wrote no results (Chromium's log follows)"; tail -n 20 "$work/chromium.log"
fi
while IFS= read -r line; do
    case $line in PASS*) pass "${line#PASS }" ;; FAIL*) fail "${line#FAIL }" ;; esac
done <"$work/results"

console=$(grep ':CONSOLE' "$work/chromium.log")
if [ -z "$console" ]; then pass "Chromium logged no console message"
else fail "Chromium logged console messages:"; printf '%s\n' "$console"; fi

# The vertices. Both builds run the library's vector loops (SIMD128 here, SSE2
# or AVX2 with FMA natively, each a few ulps from the plain C loops) and their
# own libm's sinf and cosf for the poses, so the same position may differ by a
# few ulps of the model's size: a vertex passes within 16 float epsilons of it
# (the bound tests/test_gl.c holds the GPU to), computed per pose.
sed -n '/<pre id="vertices">/,/<\/pre>/p' "$work/dom.html" | sed 's/<pre id="vertices">//; s/<\/pre>.*//' >"$work/page.txt"
if ! "$build/web_dump" "$(sed -n 's/^ASSIMP_MODELS *= *//p' "$root/Makefile")" >"$work/native.txt"; then
    fail "build/web_dump failed"; finish
fi
poses=0
while IFS= read -r line; do
    poses=$((poses + 1))
    case $line in ok*) pass "${line#ok }" ;; *) fail "${line#FAIL }" ;; esac
done < <(awk 'function abs(x) { return x < 0 ? -x : x }
    function report(c) {
        if (c == "") return
        tolerance = 16 * 2^-23 * size[c]
        printf "%s the page skinned %d vertices of pose %s as the native build does: %.3g apart at most (%.2g ulps of the model size %.3g; tolerance %.3g)\n",
               (worst[c] <= tolerance && count[c] > 0 ? "ok" : "FAIL"), count[c], c, worst[c], worst[c] / (2^-23 * size[c]), size[c], tolerance
    }
    NR == FNR { native[FNR] = $0; lines = FNR; next }
    FNR > lines { print "FAIL the page printed more lines than the native build"; exit }
    {
        split(native[FNR], n, " ")
        if ($1 == "case" || n[1] == "case") {
            report(current)
            if ($0 != native[FNR]) { printf "FAIL line %d: page \"%s\", native \"%s\"\n", FNR, $0, native[FNR]; exit }
            current = $2; next
        }
        for (i = 1; i <= 3; ++i) {
            d = abs($i - n[i]); worst[current] = d > worst[current] ? d : worst[current]
            size[current] = abs(n[i]) > size[current] ? abs(n[i]) : size[current]
        }
        ++count[current]
    }
    END { if (FNR != lines) print "FAIL the page printed " FNR " lines, the native build " lines; else report(current) }' \
    "$work/native.txt" "$work/page.txt")
[ "$poses" -eq "$(grep -c '^case' "$work/native.txt")" ] || fail "not every pose's vertices were compared"
finish
