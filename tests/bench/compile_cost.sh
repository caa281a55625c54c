#!/usr/bin/env bash
# compile_cost.sh - what fk_lbs.h costs to build, against stb_image.h timed in the same run.
#
#   tests/bench/compile_cost.sh [BUILD_DIR]        (`make bench-compile`; `make bench` runs it first)
#
# Compiles the implementation (tests/fk_lbs_impl.c) and stb_image.h's
# (tests/bench/stb_image_impl.c, Debian's libstb-dev) with gcc and with clang,
# -std=c99 -O2 -c (COMPILE_FLAGS in place of -O2), alternating fk_lbs and
# stb_image, and prints per compiler the median wall time of each compile, the
# ratio fk_lbs / stb_image (budget: at most 2.75) and the compilers' peak memory
# (GNU time's %M, when /usr/bin/time is there); then the .text of the fk_lbs
# object (every .text section `size -A` lists; budget: at most 240 KB) and the
# same for the header at BASELINE_COMMIT (fbf9e24; extracted into
# BUILD_DIR/baseline/fk_lbs.h and compiled once per compiler and flags: those
# objects are kept, as that header cannot change).
#
# Each compiler gets COMPILE_RUNS pairs (default 3), except that one whose ratio
# so far is more than 1.5 times off the budget (either way) stops there: a
# 20-second compile several times over budget needs no median to say so, and
# three runs of it would make `make bench` take minutes. COMPILE_ALL_RUNS=1 runs
# them all.
#
# It reports and never fails on a missed budget (timings are not tests); it fails
# only when nothing can be compiled at all.
set -u
cd "$(dirname "$0")/../.." || exit 1

build=${1:-build}
runs=${COMPILE_RUNS:-3}
all_runs=${COMPILE_ALL_RUNS:-0}
flags=${COMPILE_FLAGS:--O2}
read -ra flag_list <<<"$flags"
commit=${BASELINE_COMMIT:-fbf9e24}
ratio_budget=2.75
text_budget_kb=240
stb_header=/usr/include/stb/stb_image.h
out=$build/compile_cost
baseline=$build/baseline
mkdir -p "$out" "$baseline" || exit 1

if [ ! -e "$stb_header" ]; then
    echo "compile cost: $stb_header is missing (apt-get install libstb-dev); no reference to time against" >&2
    exit 1
fi
# (as `make bench` does: replaced only when it differs, so that the objects below stay)
if git show "$commit:fk_lbs.h" >"$baseline/fk_lbs.h.tmp" 2>/dev/null; then
    cmp -s "$baseline/fk_lbs.h.tmp" "$baseline/fk_lbs.h" || mv "$baseline/fk_lbs.h.tmp" "$baseline/fk_lbs.h"
else
    rm -f "$baseline/fk_lbs.h"
fi
rm -f "$baseline/fk_lbs.h.tmp"
gnu_time=''
if /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then gnu_time=/usr/bin/time; fi

now() { date +%s.%N; }

# timed_compile COMPILER SOURCE OBJECT: sets seconds and kb (peak memory, or -).
timed_compile() {
    start=$(now)
    if [ -n "$gnu_time" ]; then
        "$gnu_time" -f %M -o "$out/rss" "$1" -std=c99 -I. "${flag_list[@]}" -c "$2" -o "$3"
    else
        "$1" -std=c99 -I. "${flag_list[@]}" -c "$2" -o "$3"
    fi
    status=$?
    end=$(now)
    seconds=$(echo "$start $end" | awk '{printf "%.3f", $2 - $1}')
    kb=-
    if [ -n "$gnu_time" ]; then kb=$(tail -n 1 "$out/rss"); fi
    return $status
}

# median N1 N2 ...: the middle value (the mean of the middle two for an even count).
median() {
    printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {
        if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# text_kb OBJECT: every .text section of OBJECT, in KB (1024 bytes).
text_kb() {
    size -A "$1" | awk '$1 ~ /^\.text/ {bytes += $2} END {printf "%.1f", bytes / 1024}'
}

verdict() { # VALUE BUDGET
    awk -v v="$1" -v b="$2" 'BEGIN {print (v <= b) ? "budget met" : "budget NOT met"}'
}

echo "Compile cost: tests/fk_lbs_impl.c against stb_image.h's implementation (-std=c99 $flags -c),"
echo "alternating fk_lbs / stb_image; median wall time of the compiler, peak memory of the compiler"
printf '%-12s %4s %9s %9s %7s %9s %8s %8s  %s\n' compiler runs "fk_lbs s" "stb s" "fk/stb" budget \
    "fk MB" "stb MB" ""

compilers='' stopped_early=
for cc in gcc clang; do
    if ! command -v "$cc" >/dev/null 2>&1; then
        printf '%-12s not found: skipped\n' "$cc"
        continue
    fi
    # untimed: the compiler's own files and both sources' headers into the page cache
    "$cc" -std=c99 -I. -E tests/fk_lbs_impl.c >/dev/null 2>&1
    "$cc" -std=c99 -E tests/bench/stb_image_impl.c >/dev/null 2>&1
    fk_times='' stb_times='' fk_kb=0 stb_kb=0 done_runs=0 failed=
    while [ "$done_runs" -lt "$runs" ]; do
        if ! timed_compile "$cc" tests/fk_lbs_impl.c "$out/fk_lbs_$cc.o"; then failed=fk_lbs; break; fi
        fk_times="$fk_times $seconds"
        [ "$kb" != - ] && [ "$kb" -gt "$fk_kb" ] && fk_kb=$kb
        if ! timed_compile "$cc" tests/bench/stb_image_impl.c "$out/stb_image_$cc.o"; then failed=stb_image; break; fi
        stb_times="$stb_times $seconds"
        [ "$kb" != - ] && [ "$kb" -gt "$stb_kb" ] && stb_kb=$kb
        done_runs=$((done_runs + 1))
        # shellcheck disable=SC2086
        fk=$(median $fk_times) stb=$(median $stb_times)
        ratio=$(echo "$fk $stb" | awk '{printf "%.2f", $1 / $2}')
        if [ "$all_runs" != 1 ] && awk -v r="$ratio" -v b="$ratio_budget" 'BEGIN {exit !(r > 1.5 * b || r < b / 1.5)}'; then
            break
        fi
    done
    name="$cc $("$cc" -dumpversion)"
    if [ -n "$failed" ]; then
        printf '%-12s the %s compile failed: skipped\n' "$name" "$failed"
        continue
    fi
    compilers="$compilers $cc"
    [ "$done_runs" -lt "$runs" ] && stopped_early=1
    if [ -n "$gnu_time" ]; then
        fk_mb=$(echo "$fk_kb" | awk '{printf "%.0f", $1 / 1024}') stb_mb=$(echo "$stb_kb" | awk '{printf "%.0f", $1 / 1024}')
    else
        fk_mb=- stb_mb=-
    fi
    printf '%-12s %4d %9.2f %9.2f %7.2f %9s %8s %8s  %s\n' "$name" "$done_runs" "$fk" "$stb" "$ratio" \
        "<= $ratio_budget" "$fk_mb" "$stb_mb" "$(verdict "$ratio" "$ratio_budget")"
done
[ -n "$compilers" ] || { echo "compile cost: neither gcc nor clang compiled the sources" >&2; exit 1; }
if [ -n "$stopped_early" ]; then
    echo "(fewer than $runs runs: the ratio was more than 1.5 times off the budget; COMPILE_ALL_RUNS=1 runs all $runs)"
fi

# The header at $commit, compiled once per compiler with the same flags (its
# objects are kept: neither the header nor the flags change from run to run),
# gcc and clang side by side now that nothing is being timed.
if [ -s "$baseline/fk_lbs.h" ]; then
    printf '#define FK_LBS_IMPLEMENTATION\n#include "fk_lbs.h"\n' >"$baseline/impl.c.tmp"
    cmp -s "$baseline/impl.c.tmp" "$baseline/impl.c" || mv "$baseline/impl.c.tmp" "$baseline/impl.c"
    rm -f "$baseline/impl.c.tmp"
    flags_tag=$(echo "$flags" | tr -c 'A-Za-z0-9=\n' _)
    pids=
    for cc in $compilers; do
        object=$baseline/size_${cc}$flags_tag.o
        if [ ! -e "$object" ] || [ "$baseline/fk_lbs.h" -nt "$object" ]; then
            "$cc" -std=c99 "${flag_list[@]}" -c "$baseline/impl.c" -o "$object" & pids="$pids $!"
        fi
    done
    for pid in $pids; do wait "$pid"; done
fi

echo
echo ".text of the fk_lbs object ($flags; every .text section \`size -A\` lists; KB = 1024 bytes)"
printf '%-12s %12s %12s %9s %9s  %s\n' compiler "this header" "$commit" "this/old" budget ""
for cc in $compilers; do
    new_kb=$(text_kb "$out/fk_lbs_$cc.o")
    object=$baseline/size_${cc}${flags_tag:-}.o
    if [ -s "$baseline/fk_lbs.h" ] && [ -e "$object" ]; then
        old_kb=$(text_kb "$object")
        change=$(echo "$new_kb $old_kb" | awk '{printf "%.2f", $1 / $2}')
    else
        old_kb=- change=-
    fi
    printf '%-12s %12s %12s %9s %9s  %s\n' "$cc" "$new_kb" "$old_kb" "$change" "<= $text_budget_kb" \
        "$(verdict "$new_kb" "$text_budget_kb")"
done
if [ ! -s "$baseline/fk_lbs.h" ]; then
    echo "(git show $commit:fk_lbs.h failed: no comparison with that header)"
fi
exit 0
