#!/usr/bin/env bash
# Drives Debian's Chromium, headless, over the page that `make web` builds,
# opened from its files with ?test=1: the page then checks itself and writes
# what it found into the DOM, which --dump-dom prints. Twice: with software
# WebGL2 (SwiftShader), and with WebGL disabled, where the page says so and
# draws the CPU-skinned mesh on a 2D canvas. Checks: the page's own (the time
# slider spans the model shown, at start and after switching models both ways;
# the canvas shows the character where its skinned vertices project; scrubbing
# time changes the picture; with WebGL2, CPU and GPU skinning draw alike and
# WebGL reports no error; no console error), that the page drew the way it
# should and showed its note only without WebGL2, that Chromium logged no
# console message at all (the page logs none when it works), that the 2D
# canvas shows the picture WebGL2 shows, and that the vertices the page's
# WebAssembly module skinned equal those of build/web_dump, the same C compiled
# natively, on the same poses. Last, the page as a visitor opens it, whose
# centres of rotation come from a worker (tests/web_worker.mjs, in real time).
# Without Chromium (make test installs it) nothing is checked, and that counts
# as a failure. Prints "N passed, N failed".
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
passed=0; failed=0; skipped=0
pass() { passed=$((passed + 1)); echo "ok   web: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL web: $1"; }
skip() { skipped=$((skipped + 1)); echo "   skipped web: $1"; }
finish() {
    if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
    else echo "$passed passed, $failed failed"; fi
    [ "$failed" -eq 0 ]; exit
}

chromium=$(command -v chromium || true)
[ -n "$chromium" ] || { fail "chromium is not installed (apt-get install chromium)"; finish; }
# Run as a user would, outside any make that runs this script.
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s -C "$root" BUILD="$build" web \
        "$build/web_dump" >"$work/make.log" 2>&1; then
    cat "$work/make.log"; fail "'make web' failed"; finish
fi

# open_page NAME MODE FLAGS...: opens the page in a fresh profile with Chromium's
# FLAGS; counts the checks the page wrote, named "NAME: ...", and checks that it
# drew with MODE (webgl2 or canvas2d), showed its note only without WebGL2, and
# logged nothing to the console (the page logs nothing when it works). The DOM
# is left in $work/MODE.html. --virtual-time-budget lets the page finish (the
# module compiles asynchronously) before the DOM is printed;
# --enable-logging=stderr shows its console.
open_page() {
    local name=$1 mode=$2 notice hidden console; shift 2
    timeout 120 "$chromium" --headless --no-sandbox --no-first-run --disable-quic --disable-background-networking \
        --disable-component-update --disable-sync --user-data-dir="$work/profile-$mode" "$@" \
        --enable-logging=stderr --v=0 --virtual-time-budget=20000 --dump-dom \
        "file://$build/web/index.html?test=1" >"$work/$mode.html" 2>"$work/$mode.log"
    sed -n '/<pre id="results">/,/<\/pre>/p' "$work/$mode.html" | sed 's/<pre id="results">//; s/<\/pre>.*//' \
        | sed 's/&gt;/>/g; s/&lt;/</g; s/&amp;/\&/g' >"$work/$mode.results"
    if ! grep -q . "$work/$mode.results"; then
        fail "$name: the page wrote no results (Chromium's log follows)"; tail -n 20 "$work/$mode.log"
    fi
    while IFS= read -r line; do
        case $line in PASS*) pass "$name: ${line#PASS }" ;; FAIL*) fail "$name: ${line#FAIL }" ;; esac
    done <"$work/$mode.results"
    if grep -qx "MODE $mode" "$work/$mode.results"; then pass "$name: the page drew with $mode"
    else fail "$name: the page did not say it drew with $mode"; fi
    # The note as the DOM holds it: hidden with WebGL2, saying what is missing without.
    notice=$(grep -o '<p id="notice"[^>]*>[^<]*' "$work/$mode.html")
    case ${notice%%>*} in *hidden*) hidden=1 ;; *) hidden=0 ;; esac
    case $mode:$hidden:${notice#*>} in
        webgl2:1:*) pass "$name: the note is hidden" ;;
        canvas2d:0:*"no WebGL2"*) pass "$name: the page shows its note: ${notice#*>}" ;;
        *) fail "$name: the note is $([ "$hidden" = 1 ] && echo hidden || echo shown): \"${notice#*>}\"" ;;
    esac
    console=$(grep ':CONSOLE' "$work/$mode.log")
    if [ -z "$console" ]; then pass "$name: Chromium logged no console message"
    else fail "$name: Chromium logged console messages:"; printf '%s\n' "$console"; fi
}

# Software WebGL2 (SwiftShader); then no WebGL at all, where the page falls
# back to skinning on the CPU and drawing on a 2D canvas.
open_page WebGL2 webgl2 --use-angle=swiftshader --enable-unsafe-swiftshader
open_page "no WebGL" canvas2d --disable-webgl

# The 2D canvas against WebGL2: the same pose, drawn by the page's rasterizer
# (lit at the vertices) and by the shaders (lit at each pixel, edges
# antialiased), in blocks of 10 by 10 pixels, each its mean colour. Where the
# two differ is at edges and in the light, a few levels of 255; a block drawn
# wrong (a surface behind another shown, a missing part) differs by tens.
for mode in webgl2 canvas2d; do
    sed -n '/<pre id="picture">/,/<\/pre>/p' "$work/$mode.html" | sed 's/<pre id="picture">//; s/<\/pre>.*//' >"$work/$mode.picture"
done
line=$(paste -d ' ' "$work/webgl2.picture" "$work/canvas2d.picture" | awk '
    function abs(x) { return x < 0 ? -x : x }
    NF != 6 { bad = 1 }
    { for (i = 1; i <= 3; ++i) if (abs($i - $(i + 3)) > worst) worst = abs($i - $(i + 3)); ++blocks }
    END { printf "%s the 2D canvas draws the picture WebGL2 draws: %d blocks of 10 by 10 pixels, mean colours %.1f apart at most (tolerance 16 of 255)\n",
                 (!bad && blocks > 0 && worst <= 16 ? "ok" : "FAIL"), blocks, worst }')
case $line in ok*) pass "${line#ok }" ;; *) fail "${line#FAIL }" ;; esac

# The vertices. Both builds run the library's vector loops (SIMD128 here, SSE2
# or AVX2 with FMA natively, each a few ulps from the plain C loops) and their
# own libm's sinf and cosf for the poses, so the same position may differ by a
# few ulps of the model's size: a vertex passes within 16 float epsilons of it
# (the bound tests/test_gl.c holds the GPU to), computed per pose.
sed -n '/<pre id="vertices">/,/<\/pre>/p' "$work/webgl2.html" | sed 's/<pre id="vertices">//; s/<\/pre>.*//' >"$work/page.txt"
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

# The worker, which the self-test above leaves out (it computes the centres on
# the page's own thread, where virtual time waits for them).
flag=--experimental-websocket
node $flag -e 0 2>/dev/null || flag=
line=$(node $flag "$root/tests/web_worker.mjs" "$chromium" "file://$build/web/index.html" "$work/profile-worker" 2>/dev/null)
case $line in
    PASS*) pass "${line#PASS }" ;;
    SKIP*) skip "${line#SKIP }" ;;
    *) fail "${line#FAIL }" ;;
esac
finish
