#!/usr/bin/env bash
# Checks that every row of the bad-input table in docs/conventions.md names a test
# that tests/test_bad_input.c runs, so the table cannot claim what nothing tests.
# Each row is one test; prints "N passed, N failed".
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
doc=$root/docs/conventions.md tests=$root/tests/test_bad_input.c
passed=0; failed=0
# Rows of the table under "## Bad input" (up to the next heading), header and rule skipped.
rows=$(awk '/^## /{inside = ($0 == "## Bad input")} inside && /^\| / && !/^\| (---|Input)/' "$doc")
while IFS= read -r row; do
    [ -n "$row" ] || continue
    test=$(printf '%s\n' "$row" | sed -E 's/.*\| *`([a-z_0-9]+)` *\| *$/\1/')
    if [ "$test" != "$row" ] && grep -q "RUN_TEST($test);" "$tests"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL no test runs for row: $row"
    fi
done <<<"$rows"
[ "$passed" -gt 0 ] || { failed=$((failed + 1)); echo "FAIL no table rows found in $doc"; }
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
