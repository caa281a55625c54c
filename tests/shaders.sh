#!/usr/bin/env bash
# Checks the shaders of examples/shaders/ with Khronos' reference compiler,
# glslangValidator (Debian's glslang-tools), as a user's engine would build them:
# every variant (each option, with four and with eight influences) compiles as
# GLSL 3.30 core and as GLSL ES 3.00 behind the preludes docs/gpu.md gives; its
# live uniforms fit the 256 vec4 that GL 3.3 and GLES 3.0 both promise a vertex
# shader (GL_MAX_VERTEX_UNIFORM_VECTORS), counted from glslang's reflection, a
# mat4 as 4; eight influences read a second pair of attributes; and options past
# that budget stop the compile with the shaders' own message. Drivers may offer
# more than 256 (llvmpipe does), so only a count against the promise shows a
# default that would fail elsewhere. `tests/shaders.sh DIR` checks the shaders
# in DIR instead. Prints "N passed, N failed".
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/examples/shaders}
budget=256
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
passed=0; failed=0
pass() { passed=$((passed + 1)); echo "ok   shaders: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL shaders: $1"; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

command -v glslangValidator >/dev/null ||
    { fail "glslangValidator is not installed (apt-get install glslang-tools)"; finish; }

# build TARGET SHADER DEFINES...: writes $work/s.vert, the prelude, a #define for
# each NAME or NAME=VALUE, and the shader, as tests/test_gl.c hands them to GL.
build() {
    local target=$1 shader=$2 define
    shift 2
    { case $target in
          330) echo "#version 330 core" ;;
          es) echo "#version 300 es"; echo "precision highp float; precision highp int;" ;;
      esac
      for define in "$@"; do echo "#define ${define/=/ }"; done
      cat "$dir/$shader"; } >"$work/s.vert"
}

# vec4 VECTORS of the live uniforms glslang reflects, by GL type: a matrix takes
# one vector a column, anything else one an element.
uniform_vectors() {
    awk '/^Uniform reflection:/ { on = 1; next } on && /^$/ { exit }
         on { type = $0; sub(/.*type /, "", type); sub(/,.*/, "", type)
              size = $0; sub(/.*size /, "", size); sub(/,.*/, "", size)
              columns = 1
              if (type == "8b5a" || type == "8b65" || type == "8b66") columns = 2
              if (type == "8b5b" || type == "8b67" || type == "8b68") columns = 3
              if (type == "8b5c" || type == "8b69" || type == "8b6a") columns = 4
              n += columns * size }
         END { print n + 0 }' "$work/reflection"
}

# Every variant a user can choose, in both targets.
variants=("skin_lbs.vert" "skin_lbs.vert FK_LBS_AFFINE"
          "skin_dqs.vert" "skin_dqs.vert FK_DQS_SCALE_AT_VERTEX" "skin_dqs.vert FK_DQS_SCALE_AT_BONE"
          "skin_cor.vert" "skin_cor.vert FK_COR_SCALED")
for variant in "${variants[@]}"; do
    for influences in 4 8; do
        for target in 330 es; do
            read -r -a words <<<"$variant"
            defines=("${words[@]:1}")
            [ "$influences" = 4 ] || defines+=("FK_INFLUENCES=8")
            name="${words[0]} ${defines[*]:-(defaults)} as $target"
            build "$target" "${words[0]}" "${defines[@]}"
            if ! glslangValidator -l -q "$work/s.vert" >"$work/reflection" 2>&1; then
                cat "$work/reflection"; fail "$name does not compile"; continue
            fi
            vectors=$(uniform_vectors)
            if [ "$vectors" -gt 0 ] && [ "$vectors" -le "$budget" ]; then
                pass "$name: uniforms $vectors vec4 of $budget"
            else
                fail "$name: uniforms $vectors vec4, over the $budget that GL 3.3 and GLES 3.0 promise"
            fi
            if [ "$influences" = 8 ]; then
                if grep -q '^fk_joints_1:' "$work/reflection" && grep -q '^fk_weights_1:' "$work/reflection"; then
                    pass "$name reads fk_joints_1 and fk_weights_1"
                else
                    fail "$name does not read fk_joints_1 and fk_weights_1"
                fi
            fi
        done
    done
done

# refuses MESSAGE SHADER DEFINES...: the variant must not compile, and say why.
refuses() {
    local message=$1
    shift
    build es "$@"
    if glslangValidator "$work/s.vert" >"$work/log" 2>&1; then
        fail "$* compiles, where it should stop with '$message'"
    elif grep -q "$message" "$work/log"; then
        pass "$* stops with '$message'"
    else
        cat "$work/log"; fail "$* fails without saying '$message'"
    fi
}
# One bone past the budget in each shader (LBS 3 vec4 a bone, DQS and CoR 2,
# with scale 5; fk_view_projection 4), and a budget that a user raises for a
# larger GPU.
refuses FK_MAX_UNIFORM_VECTORS skin_lbs.vert FK_MAX_BONES=85
refuses FK_MAX_UNIFORM_VECTORS skin_dqs.vert FK_MAX_BONES=127
refuses FK_MAX_UNIFORM_VECTORS skin_dqs.vert FK_DQS_SCALE_AT_BONE FK_MAX_BONES=51
refuses FK_MAX_UNIFORM_VECTORS skin_cor.vert FK_MAX_BONES=127
refuses FK_MAX_UNIFORM_VECTORS skin_cor.vert FK_COR_SCALED FK_MAX_BONES=51
refuses FK_INFLUENCES skin_lbs.vert FK_INFLUENCES=6
refuses FK_INFLUENCES skin_dqs.vert FK_INFLUENCES=2
refuses FK_INFLUENCES skin_cor.vert FK_INFLUENCES=5
for variant in "skin_lbs.vert FK_MAX_BONES=84" "skin_dqs.vert FK_MAX_BONES=126" \
               "skin_dqs.vert FK_DQS_SCALE_AT_VERTEX FK_MAX_BONES=50" \
               "skin_cor.vert FK_MAX_BONES=126" "skin_cor.vert FK_COR_SCALED FK_MAX_BONES=50" \
               "skin_dqs.vert FK_DQS_SCALE_AT_VERTEX FK_MAX_BONES=204 FK_MAX_UNIFORM_VECTORS=1024"; do
    read -r -a words <<<"$variant"
    build es "${words[@]}"
    if glslangValidator "$work/s.vert" >"$work/log" 2>&1; then pass "$variant compiles (the most that fit)"
    else cat "$work/log"; fail "$variant does not compile"; fi
done
finish
