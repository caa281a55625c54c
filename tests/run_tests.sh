#!/usr/bin/env bash
# Runs each test program given, shows its output, and adds up the closing lines
# "N passed, N failed" into one. A program that crashes or prints no closing line
# counts as one failure. Exit status 0 only when nothing failed.
set -u
passed=0; failed=0
for program in "$@"; do
    echo "== $program"
    output=$("$program" 2>&1); status=$?
    printf '%s\n' "$output" | grep -v -E '^[0-9]+ passed, [0-9]+ failed' || true
    summary=$(printf '%s\n' "$output" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ -z "$summary" ]; then
        echo "FAIL $program: exited $status without a closing line"
        failed=$((failed + 1)); continue
    fi
    p=$(echo "$summary" | sed -E 's/^([0-9]+) passed.*/\1/'); f=$(echo "$summary" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    passed=$((passed + p)); failed=$((failed + f))
    if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $program: exited $status"; failed=$((failed + 1))
    fi
    echo "   $summary"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
