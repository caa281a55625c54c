#!/usr/bin/env bash
# Installs the library as a user would (`make install`, here into a scratch
# DESTDIR with PREFIX=/usr), then builds a program of two files against the
# installed copy with nothing but what pkg-config reports: one file defines
# FK_LBS_IMPLEMENTATION, the other only includes the header and poses and skins
# the README's two-bone arm. Then `make uninstall` must leave no file behind.
# Prints "N passed, N failed".
set -u
cc=${CC:-cc}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
stage=$work/stage
passed=0; failed=0
check() { # check DESCRIPTION COMMAND...: runs the command, counts and reports it
    local description=$1; shift
    if "$@"; then passed=$((passed + 1)); echo "ok   install: $description"
    else failed=$((failed + 1)); echo "FAIL install: $description"; fi
}
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }
# Outside any make that runs this script: its jobserver and flags are not ours.
run_make() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s -C "$root" "$@" DESTDIR="$stage" PREFIX=/usr
}

if ! command -v pkg-config >/dev/null; then
    echo "FAIL install: pkg-config is not installed (apt-get install pkg-config)"; failed=$((failed + 1)); finish
fi
check "make install DESTDIR=... PREFIX=/usr succeeds" run_make install
check "the header is installed unchanged in /usr/include" cmp -s "$root/fk_lbs.h" "$stage/usr/include/fk_lbs.h"
pc=$stage/usr/lib/pkgconfig/fk_lbs.pc
check "fk_lbs.pc is installed in /usr/lib/pkgconfig" test -s "$pc"
check "fk_lbs.pc names the prefix, not the staging directory" grep -qx 'prefix=/usr' "$pc"

# PKG_CONFIG_SYSROOT_DIR puts the staging directory in front of the installed
# paths, as a packager's build would; --define-variable moves the prefix instead.
export PKG_CONFIG_PATH=$stage/usr/lib/pkgconfig
header_version=$(sed -n 's/^#define FK_LBS_VERSION "\(.*\)"/\1/p' "$root/fk_lbs.h")
check "pkg-config --modversion fk_lbs is the header's version ($header_version)" \
    test "$(pkg-config --modversion fk_lbs 2>&1)" = "$header_version"
# (pkg-config ends its flags with a space, which echo drops.)
cflags=$(echo $(PKG_CONFIG_SYSROOT_DIR=$stage pkg-config --cflags fk_lbs))
libs=$(echo $(PKG_CONFIG_SYSROOT_DIR=$stage pkg-config --libs fk_lbs))
check "pkg-config --cflags fk_lbs names the staged /usr/include: '$cflags'" test "$cflags" = "-I$stage/usr/include"
check "pkg-config --libs fk_lbs is libm alone: '$libs'" test "$libs" = "-lm"
check "--define-variable=prefix= moves the include path the same way" \
    test "$(echo $(pkg-config --define-variable=prefix="$stage/usr" --cflags fk_lbs))" = "$cflags"

cat >"$work/fk_lbs_impl.c" <<'EOF'
#define FK_LBS_IMPLEMENTATION
#include <fk_lbs.h>
EOF
cat >"$work/arm.c" <<'EOF'
#include <fk_lbs.h>
#include <stdio.h>

int main(void)
{
    int parents[2] = {-1, 0};
    fk_vec3 rest[2] = {{0, 0, 0}, {1, 0, 0}};
    fk_quat bend = fk_quat_from_axis_angle(fk_vec3_make(0, 0, 1), 1.5707963f);
    fk_quat rotations[2];
    fk_rigid bones[2];
    float hand[3] = {2, 0, 0}, posed[3], weight = 1;
    uint16_t forearm = 1;
    fk_skin_desc skin = {0};
    rotations[0] = rotations[1] = bend;
    if (fk_forward(2, parents, rest, rotations, NULL, bones) != FK_OK) return 1;
    skin.vertex_count = 1;  skin.influences = 1;
    skin.positions = hand;  skin.joints = &forearm;  skin.weights = &weight;
    skin.transforms = bones; skin.transform_count = 2;
    skin.out_positions = posed;
    if (fk_skin_lbs(&skin) != FK_OK) return 1;
    printf("fk_lbs %s: hand at (%.1f, %.1f, %.1f)\n", FK_LBS_VERSION, (double)posed[0], (double)posed[1],
           (double)posed[2]);
    return 0;
}
EOF
# No -I of our own: the header can only come from where pkg-config says.
warnings="-std=c99 -Wall -Wextra -Wpedantic -Werror"
build() {
    (cd "$work" && $cc $warnings $cflags -c fk_lbs_impl.c && $cc $warnings $cflags -c arm.c &&
        $cc fk_lbs_impl.o arm.o -o arm $libs) >"$work/build.log" 2>&1 || { cat "$work/build.log"; return 1; }
}
check "a program of two files builds with pkg-config's flags alone" build
expected="fk_lbs $header_version: hand at (-1.0, 1.0, 0.0)"
output=$("$work/arm" 2>&1)
[ "$output" = "$expected" ] || echo "     the program printed: $output"
check "the program prints '$expected'" test "$output" = "$expected"

check "make uninstall succeeds" run_make uninstall
left=$(find "$stage" -type f)
check "make uninstall leaves no file behind${left:+: $left}" test -z "$left"
finish
