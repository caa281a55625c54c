#!/usr/bin/env bash
# Builds the documentation with `make docs` exactly as a user does and checks what
# Doxygen itself does not: that the build printed nothing (no warnings), that every
# guide page was generated and is listed on the main page, that every picture a page
# shows exists, and that formulas are typeset by the local MathJax, not a CDN.
# When Doxygen is missing and cannot be installed the docs are not checked, and
# that counts as a failure: a skipped check must not look like a passing one.
# Prints "N passed, N failed".
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
html=$root/docs/html
log=$(mktemp); trap 'rm -f "$log"' EXIT
passed=0; failed=0
check() { # check DESCRIPTION COMMAND...: runs the command, counts and reports it
    local description=$1; shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL docs: $description"; fi
}
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

# Run as a user would, outside any make that runs this script (its jobserver and
# flags would print warnings of their own).
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s -C "$root" docs >"$log" 2>&1; then
    cat "$log"
    if ! command -v doxygen >/dev/null; then
        echo "FAIL docs: doxygen is not installed and could not be installed (apt-get install doxygen)"
    else
        echo "FAIL docs: 'make docs' failed (Doxygen warnings are errors: see above)"
    fi
    failed=$((failed + 1)); finish
fi
passed=$((passed + 1))
# Anything but make's own news (a package installed, where to look) is a warning.
chatter=$(grep -v -E '^(installing Debian package|open docs/html)' "$log")
check "'make docs' printed warnings or errors: $chatter" test -z "$chatter"

check "docs/html/index.html was not generated" test -s "$html/index.html"
check "the reference page of fk_lbs.h was not generated" test -s "$html/fk__lbs_8h.html"
for page in "$root"/docs/*.md; do
    name=$(basename "$page" .md)
    [ "$name" = index ] && continue
    # A page's id is its file name ({#name}), so its HTML is name.html.
    check "docs/$name.md did not become docs/html/$name.html (is its id {#$name}?)" test -s "$html/$name.html"
    check "the main page does not link to docs/$name.md" grep -q "href=\"$name.html\"" "$html/index.html"
    # Doxygen does not warn about a missing picture: look for each one ourselves.
    for picture in $(grep -o '!\[[^]]*\](images/[^)]*)' "$page" | sed 's/.*(images\/\(.*\))/\1/'); do
        check "docs/$name.md shows images/$picture, which does not exist" test -s "$root/docs/images/$picture"
        check "images/$picture of docs/$name.md was not copied into docs/html" test -s "$html/$picture"
    done
done

check "MathJax is not reachable at docs/html/mathjax/MathJax.js" test -s "$html/mathjax/MathJax.js"
check "a page loads MathJax from somewhere other than docs/html/mathjax" \
    test -z "$(grep -l -E 'src="[^"]*MathJax.js' "$html"/*.html | xargs grep -L 'src="mathjax/MathJax.js')"
finish
