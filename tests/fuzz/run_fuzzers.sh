#!/usr/bin/env bash
# Runs each libFuzzer target for a while: make fuzz FUZZ_SECONDS=N runs this.
# Usage: tests/fuzz/run_fuzzers.sh SECONDS BUILD_DIR TARGET...
# Target T is BUILD_DIR/fuzz_T; it starts from tests/fuzz/corpus/T (never written
# to) and keeps what it finds in BUILD_DIR/found/T. A crash, a hang (10 s on one
# input) or a broken invariant stops the run; the input is saved under
# BUILD_DIR/artifacts/ and belongs in tests/fuzz/corpus/T/ once the bug is fixed.
# Each target is one test; prints "N passed, N failed".
set -u
seconds=$1 build=$2; shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
passed=0; failed=0
for target in "$@"; do
    found=$build/found/$target
    mkdir -p "$found" "$build/artifacts"
    dict=(); [ -f "$root/tests/fuzz/$target.dict" ] && dict=(-dict="$root/tests/fuzz/$target.dict")
    log=$build/$target.log
    echo "== fuzz_$target for $seconds s (log: $log)"
    if "$build/fuzz_$target" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" "${dict[@]}" \
        "$found" "$root/tests/fuzz/corpus/$target" >"$log" 2>&1; then
        passed=$((passed + 1))
        grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^Done' "$log" | sed 's/^/   /'
    else
        failed=$((failed + 1))
        echo "FAIL fuzz_$target:"; grep -E 'invariant broken|ERROR|SUMMARY|Test unit written' "$log" | head -10
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
