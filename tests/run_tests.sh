#!/usr/bin/env bash
# Runs each test program given, shows its output, and adds up the closing lines
# "N passed, N failed" (", N skipped" when a program skipped tests that cannot
# run here: tests/check.h) into one. A program that crashes or prints no closing
# line counts as one failure. Exit status 0 only when nothing failed.
# Programs run TEST_JOBS at a time (default: one per CPU; TEST_JOBS=1 runs them
# one after another). Each program's output is shown whole, in the order given,
# as soon as it and every program before it are done, under a line that names it
# and gives the wall time it took.
set -u
jobs_max=${TEST_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
[ "$jobs_max" -ge 1 ] 2>/dev/null || jobs_max=1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
programs=("$@")
count=$#; started=0; reported=0; passed=0; failed=0; skipped=0

# Program i's output and exit status are in $work/i.out and $work/i.status; the
# status file appears (by rename) only once the program has ended.
start() {
    local i=$1
    ( start=$EPOCHREALTIME; "${programs[$i]}" >"$work/$i.out" 2>&1 </dev/null; echo $? >"$work/$i.part"
      echo "$start $EPOCHREALTIME" | awk '{ printf "%.1f", $2 - $1 }' >"$work/$i.seconds"
      mv "$work/$i.part" "$work/$i.status" ) &
}

report() {
    local i=$1 program=${programs[$1]} output status summary p f s
    echo "== $program ($(cat "$work/$i.seconds") s)"
    output=$(cat "$work/$i.out"); status=$(cat "$work/$i.status")
    printf '%s\n' "$output" | grep -v -E '^[0-9]+ passed, [0-9]+ failed' || true
    summary=$(printf '%s\n' "$output" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ -z "$summary" ]; then
        echo "FAIL $program: exited $status without a closing line"
        failed=$((failed + 1)); return
    fi
    p=$(echo "$summary" | sed -E 's/^([0-9]+) passed.*/\1/'); f=$(echo "$summary" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    s=$(echo "$summary" | sed -E -n 's/.* ([0-9]+) skipped$/\1/p')
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + ${s:-0}))
    if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $program: exited $status"; failed=$((failed + 1))
    fi
    echo "   $summary"
}

running() { # how many started programs have not ended
    local i n=0
    for ((i = reported; i < started; ++i)); do [ -e "$work/$i.status" ] || n=$((n + 1)); done
    echo "$n"
}

while [ "$reported" -lt "$count" ]; do
    while [ "$started" -lt "$count" ] && [ "$(running)" -lt "$jobs_max" ]; do
        start "$started"; started=$((started + 1))
    done
    while [ "$reported" -lt "$started" ] && [ -e "$work/$reported.status" ]; do
        report "$reported"; reported=$((reported + 1))
    done
    [ "$reported" -lt "$count" ] && sleep 0.1
done
wait
if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
else echo "$passed passed, $failed failed"; fi
[ "$failed" -eq 0 ]
