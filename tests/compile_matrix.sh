#!/usr/bin/env bash
# Compiles fk_lbs.h as C99, C11 and C++11 with gcc and clang under the project's
# warning flags with -Werror, extern and FK_LBS_STATIC, and links two translation
# units that include it. Each combination is one test; prints "N passed, N failed".
# Some warnings appear only when optimizing (gcc's middle-end warnings), so C99
# and C++11 are also built at -O2, and C++ once with -O3 -march=native. clang
# warns from its front end alone, the same at every level, so its C++11 is not
# built at -O2 too, and its wasm32 builds are unoptimized but for one. Last,
# the same for WebAssembly (wasm32 with SIMD128, clang), where the header's
# SIMD128 layer compiles; `make test` installs its toolchain (wasm-tools).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
warnings="-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wdouble-promotion -Werror"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cp "$root/tests/compile_only.c" "$work/compile_only.cpp"
passed=0; failed=0; count=0
# Two compiles at a time (the machines this runs on have two cores): attempt N
# writes its object as o<N>.o, its log as log<N> and "ok" or its name as result<N>.
attempt() { # name, command... (an argument "$work/o.o" becomes this attempt's own object)
    local name=$1 n=$count args=() a; shift
    count=$((count + 1))
    for a in "$@"; do args+=("${a/#$work\/o.o/$work/o$n.o}"); done
    while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
    ( if "${args[@]}" >"$work/log$n" 2>&1; then echo ok; else echo "$name"; fi >"$work/result$n" ) &
}
for compiler in gcc clang; do
    command -v $compiler >/dev/null || { echo "FAIL $compiler not installed"; failed=$((failed + 1)); continue; }
    # C11 adds nothing the header uses, so C99 alone takes the linkage and
    # optimization variants (each compile of the header costs seconds)
    for linkage in "" "-DFK_LBS_STATIC"; do
        attempt "$compiler -std=c99 $linkage" $compiler -std=c99 $warnings $linkage -I"$root" -c "$root/tests/compile_only.c" -o "$work/o.o"
    done
    attempt "$compiler -std=c99 -O2" $compiler -std=c99 -O2 $warnings -I"$root" -c "$root/tests/compile_only.c" -o "$work/o.o"
    attempt "$compiler -std=c11" $compiler -std=c11 $warnings -I"$root" -c "$root/tests/compile_only.c" -o "$work/o.o"
    cxx=$([ $compiler = gcc ] && echo g++ || echo clang++)
    for linkage in "" "-DFK_LBS_STATIC"; do
        attempt "$cxx -std=c++11 $linkage" $cxx -std=c++11 $warnings $linkage -I"$root" -c "$work/compile_only.cpp" -o "$work/o.o"
    done
    for optimization in "-O2" "-O3 -march=native"; do
        [ "$compiler" = clang ] && [ "$optimization" = -O2 ] && continue
        attempt "$cxx -std=c++11 $optimization" $cxx -std=c++11 $optimization $warnings -I"$root" -c "$work/compile_only.cpp" -o "$work/o.o"
    done
    attempt "$compiler two translation units" sh -c "$compiler -std=c99 $warnings -I'$root' '$root/tests/link_a.c' '$root/tests/link_b.c' -lm -o '$work/link-$compiler' && '$work/link-$compiler'"
done
if command -v clang >/dev/null && [ -e /usr/lib/wasm32-wasi/libc.a ]; then
    wasm="--target=wasm32-wasi -msimd128"
    for standard in "clang -std=c99" "clang -std=c11" "clang++ -std=c++11"; do
        source=$([ "${standard%% *}" = clang ] && echo "$root/tests/compile_only.c" || echo "$work/compile_only.cpp")
        for linkage in "" "-DFK_LBS_STATIC"; do
            level=$([ "$standard" = "clang -std=c99" ] && [ -z "$linkage" ] && echo -O2 || echo -O0)
            attempt "wasm32 $standard $level $linkage" $standard $wasm $level $warnings $linkage -I"$root" -c "$source" \
                -o "$work/o.o"
        done
    done
    # the 4-lane layer must be what compiled (a test that cannot fail otherwise)
    attempt "wasm32 SIMD128 layer compiled" sh -c "printf '%s\n' '#include \"compile_only.c\"' \
        '#if !defined(FK__SIMD_WASM)' '#error the SIMD128 layer was not compiled' '#endif' >'$work/wasm_layer.c' &&
        clang $wasm -std=c99 $warnings -I'$root' -I'$root/tests' -c '$work/wasm_layer.c' -o '$work/wasm_layer.o'"
else
    echo "FAIL the wasm32 toolchain is missing (make wasm-tools installs it)"; failed=$((failed + 1))
fi
wait
for ((n = 0; n < count; ++n)); do
    if [ "$(cat "$work/result$n" 2>/dev/null)" = ok ]; then passed=$((passed + 1))
    else failed=$((failed + 1)); echo "FAIL $(cat "$work/result$n" 2>/dev/null):"; head -20 "$work/log$n"; fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
