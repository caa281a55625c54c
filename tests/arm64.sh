#!/usr/bin/env bash
# arm64.sh - the header on 64-bit Arm, where fk_skin_lbs() and fk_skin_dqs() run
# their NEON loops and everything else its plain C: cross-compiled with
# aarch64-linux-gnu-gcc and run under qemu-aarch64 (Debian's gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross and qemu-user; `make test` installs them). The header is
# compiled alone under the project's warning flags (tests/fk_lbs_impl.c, the
# library the tests link), as C++11 by aarch64-linux-gnu-g++ and clang++, and as
# C99 by clang (Debian's g++-aarch64-linux-gnu and clang). Then the core,
# bad-input and SIMD-versus-reference tests run, and the property tests at 100
# cases each (emulation is about ten times slower; the x86-64 build runs 1000). Each counts as its own closing line
# says; a compile error counts as one failure. Prints "N passed, N failed".
# `tests/arm64.sh --sanitize` (make sanitize) runs test_simd and the skinning
# fuzzer's saved inputs instead, built with AddressSanitizer and
# UndefinedBehaviorSanitizer, so that the NEON loops are checked by them too.
# On a 64-bit Arm host `make test`'s and `make sanitize`'s own programs already
# run the NEON loops, and this script says so and passes nothing.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-}
if [ "$(uname -m)" = aarch64 ]; then
    echo "   skipped: this host is 64-bit Arm, so the Makefile's own programs ran the NEON loops"
    echo "0 passed, 0 failed"; exit 0
fi
cc=aarch64-linux-gnu-gcc
run="qemu-aarch64 -L /usr/aarch64-linux-gnu"
warnings="-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wdouble-promotion -Werror"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
passed=0; failed=0
for tool in $cc aarch64-linux-gnu-g++ clang qemu-aarch64; do
    command -v $tool >/dev/null || { echo "FAIL $tool is not installed (make test installs it)"; echo "0 passed, 1 failed"; exit 1; }
done

if [ "$mode" = --sanitize ]; then
    # At -O1, which compiles and runs as fast as -O2 here. LeakSanitizer cannot
    # run under qemu (it needs ptrace); the x86-64 sanitizer build checks leaks.
    flags="-std=c99 -O1 -g1 -fsanitize=address,undefined -fno-sanitize-recover=all -I$root"
    $cc $flags "$root/tests/test_simd.c" -o "$work/test_simd" -lm >"$work/test_simd.log" 2>&1 &
    $cc $flags -DFUZZ_CORPUS="\"$root/tests/fuzz/corpus/skin\"" "$root/tests/fuzz/fuzz_skin.c" "$root/tests/fuzz/replay.c" \
        "$root/tests/fk_lbs_impl.c" -o "$work/fuzz_skin_replay" -lm >"$work/fuzz_skin_replay.log" 2>&1 &
    wait
    programs="test_simd fuzz_skin_replay"; built_as="aarch64, qemu, ASan+UBSan"
    export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1
else
    # The library (tests/fk_lbs_impl.c: the header's implementation alone) and
    # the four test programs, as the Makefile builds them: test_simd holds the
    # implementation itself, the other three link the library, and test
    # programs print floats, so they are built without -Wdouble-promotion.
    test_flags="-std=c99 -O2 $warnings -Wno-double-promotion -I$root"
    $cc -std=c99 -O2 $warnings -I"$root" -c "$root/tests/fk_lbs_impl.c" -o "$work/fk_lbs.o" >"$work/fk_lbs.log" 2>&1 &
    $cc $test_flags "$root/tests/test_simd.c" -o "$work/test_simd" -lm >"$work/test_simd.log" 2>&1 &
    wait
    programs="test_core test_bad_input test_simd test_properties"; built_as="aarch64, qemu"
    # The header as C++11 (g++ and clang++) and as C99 by clang, for aarch64:
    # the NEON loops compile only here, so the x86-64 compile matrix never sees
    # them. Each is one check, and fails if the NEON loops were not in it.
    printf '%s\n' '#include "compile_only.c"' '#if !defined(FK__SIMD_NEON)' \
        '#error the NEON loops were not compiled' '#endif' >"$work/neon_compile.c"
    cp "$work/neon_compile.c" "$work/neon_compile.cpp"
    # clang warns from its front end alone, so its C++11 build is unoptimized.
    compilers=("aarch64-linux-gnu-g++ -std=c++11 -O2" "clang++ --target=aarch64-linux-gnu -std=c++11 -O0"
               "clang --target=aarch64-linux-gnu -std=c99 -O2")
    for n in 0 1 2; do
        source=$work/neon_compile.$([ $n = 2 ] && echo c || echo cpp)
        ( ${compilers[n]} $warnings -I"$root" -I"$root/tests" -c "$source" -o "$work/neon$n.o" >"$work/neon$n.log" 2>&1 ) &
    done
    for program in test_core test_bad_input test_properties; do
        [ -f "$work/fk_lbs.o" ] || { echo "not built: the library does not compile" >"$work/$program.log"; continue; }
        while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
        $cc $test_flags "$root/tests/$program.c" "$work/fk_lbs.o" -o "$work/$program" -lm >"$work/$program.log" 2>&1 &
    done
    wait
    if [ -f "$work/fk_lbs.o" ]; then
        echo "   the header compiles for aarch64 with $warnings"; passed=$((passed + 1))
    else
        echo "FAIL the header does not compile for aarch64:"; cat "$work/fk_lbs.log"; failed=$((failed + 1))
    fi
    for n in 0 1 2; do
        if [ -f "$work/neon$n.o" ]; then
            echo "   the header compiles for aarch64 with ${compilers[n]}"; passed=$((passed + 1))
        else
            echo "FAIL the header does not compile for aarch64 with ${compilers[n]}:"; head -20 "$work/neon$n.log"
            failed=$((failed + 1))
        fi
    done
fi

for program in $programs; do
    echo "   -- $program ($built_as)"
    if [ ! -x "$work/$program" ]; then
        echo "FAIL $program does not compile for aarch64:"; cat "$work/$program.log"; failed=$((failed + 1)); continue
    fi
    output=$(cd "$work" && PROPS_N=100 $run "./$program" 2>&1); status=$?
    summary=$(printf '%s\n' "$output" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
    printf '%s\n' "$output" | grep -v -E '^[0-9]+ passed, [0-9]+ failed' | sed 's/^/   /'
    if [ -z "$summary" ]; then
        echo "FAIL $program exited $status without a closing line"; failed=$((failed + 1)); continue
    fi
    echo "   $summary"
    passed=$((passed + ${summary%% *})); f=${summary#* passed, }; f=${f%% *}; failed=$((failed + f))
    if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then echo "FAIL $program exited $status"; failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
