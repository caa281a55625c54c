# fk_lbs.h - build, test and demo.   `make help` lists the targets.
# Flags are variables: `make test CC=clang CFLAGS='-O3 -march=native'`.

CC       ?= cc
# -g1 (line tables and functions, no variables): enough for backtraces, and
# cheaper to build than full -g.
CFLAGS   ?= -O2 -g1
WARNINGS  = -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wdouble-promotion -Werror
CPPFLAGS += -I.
LDLIBS   += -lm
BUILD    ?= build

HEADER = fk_lbs.h

# Each area appends here: compiled test programs (built by `make all`) and test
# scripts; `make test` runs them all and adds up their "N passed, N failed" lines.
TEST_PROGRAMS = $(BUILD)/test_core $(BUILD)/test_cor
TEST_SCRIPTS  = tests/compile_matrix.sh tests/snippets.sh

# $(call need_debian_package,PACKAGE,FILE): when FILE is missing, install the Debian
# PACKAGE that provides it (as root, or through sudo), or stop and say how. apt's
# own output is shown only when the install fails: its notes on stderr (debconf's,
# on a machine without apt-utils) would otherwise read as the build's warnings.
define need_debian_package
@test -e $(2) || { \
  if [ "$$(id -u)" = 0 ]; then sudo=; elif command -v sudo >/dev/null; then sudo=sudo; \
  else echo "$(2) is missing: run 'apt-get install $(1)' as root" >&2; exit 1; fi; \
  echo "installing Debian package $(1) (for $(2))"; apt_log=$$(mktemp); \
  { $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $(1); } >"$$apt_log" 2>&1; \
  test -e $(2) || { cat "$$apt_log" >&2; rm -f "$$apt_log"; \
                    echo "could not install $(1); run 'sudo apt-get install $(1)'" >&2; exit 1; }; \
  rm -f "$$apt_log"; }
endef

.PHONY: all test clean help

# The first rule is the default; its prerequisites are listed at the end, once
# every area has added its programs.
default: all

help:
	@echo "make demo         build and run the examples; pictures in out/"
	@echo "make test         build and run every test (ends with 'N passed, N failed')"
	@echo "make mutants      check that the tests catch 365 deliberate bugs (about 30 minutes)"
	@echo "make bench        build cost against stb_image.h, then LBS/DQS k=1..8 and fk_forward against"
	@echo "                  memcpy, a plain loop and the fbf9e24 header"
	@echo "make test-wasm    the core, bad-input, SIMD and property tests built for wasm32, under node"
	@echo "make install      fk_lbs.h and fk_lbs.pc under PREFIX (/usr/local), DESTDIR honoured; make uninstall"
	@echo "make sanitize     every test program under ASan+UBSan (clang), then valgrind; NEON under qemu"
	@echo "make fuzz         libFuzzer targets (FUZZ_SECONDS=60 each)"
	@echo "make demo-images  redraw docs/images from the examples"
	@echo "make web          the page that skins in the browser (WebAssembly, WebGL2); make serve serves it"
	@echo "make docs         build the guide and the API reference into docs/html (Doxygen)"
	@echo "make clean        remove build/, out/ and docs/html"

$(BUILD):
	mkdir -p $@

# ---- Tests ---------------------------------------------------------------------

# Test programs pass floats to printf, which -Wdouble-promotion flags at every
# call; the header itself is held to the full set by tests/compile_matrix.sh.
TEST_WARNINGS = $(WARNINGS) -Wno-double-promotion

# The library, compiled once for the test programs (tests/fk_lbs_impl.c is the
# one file that defines FK_LBS_IMPLEMENTATION, as in a user's project); each
# program includes fk_lbs.h for its declarations and links this. test_simd
# calls the SIMD loops' internals, so it holds the implementation itself and is
# built by the rules further down.
$(BUILD)/fk_lbs.o: tests/fk_lbs_impl.c $(HEADER) | $(BUILD)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) $(WARNINGS) -c $< -o $@

$(BUILD)/test_%: tests/test_%.c tests/check.h tests/test_random.h $(HEADER) $(BUILD)/fk_lbs.o | $(BUILD)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) $(TEST_WARNINGS) $< $(BUILD)/fk_lbs.o -o $@ $(LDLIBS)

# SIMD_TEST_FLAGS: flags for the test_simd builds alone (make sanitize sets -O1).
$(BUILD)/test_simd: tests/test_simd.c tests/check.h tests/test_random.h $(HEADER) | $(BUILD)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) $(SIMD_TEST_FLAGS) $(TEST_WARNINGS) $< -o $@ $(LDLIBS)

clean:
	rm -rf $(BUILD) out docs/html

# ---- Docs ----------------------------------------------------------------------
# `make docs` builds the guide and the API reference into docs/html with Doxygen.
# What docs/Doxyfile cannot know is appended to it here: the version, read from the
# header so that it cannot drift; which guide pages exist, so that docs/index.md
# lists each page present (its entries are guarded by "@if page_NAME") whatever
# order the pages land in; and docs/images only once it exists, since a missing
# IMAGE_PATH is a warning. Formulas are typeset by Debian's MathJax, linked in, so
# the pages need no network.

DOCS_VERSION := $(shell sed -n 's/^.define FK_LBS_VERSION "\(.*\)"/\1/p' $(HEADER))
DOCS_PAGES    = $(basename $(notdir $(wildcard docs/*.md)))
MATHJAX       = /usr/share/javascript/mathjax

TEST_SCRIPTS += tests/docs.sh

.PHONY: docs
docs:
	$(call need_debian_package,doxygen,/usr/bin/doxygen)
	$(call need_debian_package,libjs-mathjax,$(MATHJAX)/MathJax.js)
	rm -rf docs/html
	( cat docs/Doxyfile; \
	  echo "PROJECT_NUMBER = $(DOCS_VERSION)"; \
	  echo "ENABLED_SECTIONS = $(addprefix page_,$(DOCS_PAGES))"; \
	  echo "IMAGE_PATH = $(wildcard docs/images)" ) | doxygen -
	ln -s $(MATHJAX) docs/html/mathjax
	@echo "open docs/html/index.html"

# ---- Examples ------------------------------------------------------------------
# Each example is one C file linked with the shared renderer examples/render.c,
# which writes PNG through stb_image_write and draws text with stb_easy_font from
# Debian's libstb-dev (installed, never copied in). `make demo` draws every picture
# into out/; `make demo-images` refreshes the committed copies in docs/images/.
# Another example joins with `EXAMPLES += $(BUILD)/example_NAME` (from examples/NAME.c).

STB_IMAGE_WRITE = /usr/include/stb/stb_image_write.h
$(BUILD)/example_character $(BUILD)/example_toolkit: examples/character.h
EXAMPLES += $(BUILD)/example_derivation $(BUILD)/example_lbs_vs_dqs $(BUILD)/example_character \
            $(BUILD)/example_squash_stretch $(BUILD)/example_toolkit

.PHONY: examples demo demo-images
.SECONDEXPANSION: # so that examples listed further down the Makefile count too

$(STB_IMAGE_WRITE):
	$(call need_debian_package,libstb-dev,$@)

$(BUILD)/render.o: examples/render.c examples/render.h $(HEADER) | $(BUILD) $(STB_IMAGE_WRITE)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) $(WARNINGS) -c $< -o $@

$(BUILD)/example_%: examples/%.c $(BUILD)/render.o examples/render.h $(HEADER) | $(BUILD)
	$(CC) -std=c99 $(CPPFLAGS) -Iexamples $(CFLAGS) $(WARNINGS) $< $(BUILD)/render.o -o $@ $(LDLIBS)

examples: $$(EXAMPLES)

demo: $$(EXAMPLES)
	@for program in $(EXAMPLES); do ./$$program --out out || exit 1; done

demo-images: $$(EXAMPLES)
	@for program in $(EXAMPLES); do ./$$program --out docs/images || exit 1; done

# The test runs every example and reads its pictures back (with stb_image).
TEST_PROGRAMS += $(BUILD)/test_examples
$(BUILD)/test_examples: CPPFLAGS += -DEXAMPLES_BUILD_DIR='"$(BUILD)"'
$(BUILD)/test_examples: $$(EXAMPLES) | $(STB_IMAGE_WRITE)

# ---- Threads example -------------------------------------------------------------
# examples/threads.c splits skinning calls over threads and checks the bits against
# one call. It draws nothing, so it links no renderer and is not in EXAMPLES (whose
# programs must draw pictures); `make demo` runs it on a smaller mesh than its
# default of a million vertices, to stay quick, and test_examples runs it too.

$(BUILD)/example_threads: examples/threads.c $(HEADER) | $(BUILD)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) $(WARNINGS) $< -o $@ $(LDLIBS) -lpthread

.PHONY: demo-threads
examples: $(BUILD)/example_threads
demo: demo-threads
demo-threads: $(BUILD)/example_threads
	$(BUILD)/example_threads --vertices 100000
$(BUILD)/test_examples: $(BUILD)/example_threads

# ---- Real data -----------------------------------------------------------------
# BVH motion capture (examples/bvh.c, no dependency) and rigged models read through
# assimp (Debian libassimp-dev); the files come from Debian's assimp-testmodels.

ASSIMP_HEADER = /usr/include/assimp/cimport.h
ASSIMP_MODELS = /usr/share/assimp/models/BVH/01_01.bvh
REALDATA_FLAGS = -std=c99 $(CPPFLAGS) -Iexamples $(CFLAGS) $(WARNINGS)

# Both draw with the examples' renderer (render.o, from the Examples section).
$(BUILD)/bvh_pose: examples/bvh_pose.c examples/bvh.c examples/bvh.h $(BUILD)/render.o examples/render.h \
                   $(HEADER) | $(BUILD)
	$(CC) $(REALDATA_FLAGS) examples/bvh_pose.c examples/bvh.c $(BUILD)/render.o -o $@ $(LDLIBS)

# A CMU clip retargeted onto the procedural character (examples/character.h) and
# onto a rigged model read through assimp.
$(BUILD)/retarget: examples/retarget.c examples/retarget.h examples/bvh.c examples/bvh.h examples/character.h \
                   examples/assimp_rig.c examples/assimp_rig.h $(BUILD)/render.o examples/render.h $(HEADER) | $(BUILD)
	$(call need_debian_package,libassimp-dev,$(ASSIMP_HEADER))
	$(CC) $(REALDATA_FLAGS) examples/retarget.c examples/bvh.c examples/assimp_rig.c $(BUILD)/render.o -o $@ \
	    -lassimp $(LDLIBS)

$(BUILD)/rig_pose: examples/rig_pose.c examples/assimp_rig.c examples/assimp_rig.h $(BUILD)/render.o \
                   examples/render.h $(HEADER) | $(BUILD)
	$(call need_debian_package,libassimp-dev,$(ASSIMP_HEADER))
	$(CC) $(REALDATA_FLAGS) examples/rig_pose.c examples/assimp_rig.c $(BUILD)/render.o -o $@ -lassimp $(LDLIBS)

# The test skips the file comparisons (and says so) only when the models are
# missing and cannot be installed; the reader's and the bridge's tests always run.
# It also reads the examples' dumps, so it needs them built.
$(BUILD)/test_realdata: tests/test_realdata.c tests/check.h examples/bvh.c examples/bvh.h \
                        examples/assimp_rig.c examples/assimp_rig.h $(HEADER) $(BUILD)/fk_lbs.o \
                        tests/data/blender_scaled_rig.txt tests/data/scaled_limb.gltf \
                        | $(BUILD) $(BUILD)/bvh_pose $(BUILD)/rig_pose $(BUILD)/retarget
	$(call need_debian_package,libassimp-dev,$(ASSIMP_HEADER))
	-$(call need_debian_package,assimp-testmodels,$(ASSIMP_MODELS))
	$(CC) $(REALDATA_FLAGS) -DTEST_DATA_DIR='"$(CURDIR)/tests/data"' tests/test_realdata.c examples/bvh.c \
	    examples/assimp_rig.c $(BUILD)/fk_lbs.o -o $@ -lassimp $(LDLIBS)

TEST_PROGRAMS += $(BUILD)/test_realdata

.PHONY: examples demo demo-realdata
examples: $(BUILD)/bvh_pose $(BUILD)/rig_pose $(BUILD)/retarget
demo: demo-realdata

# Two motion capture clips and one model of each format, drawn into out/;
# `make demo-images` refreshes the three that docs/real_data.md shows.
MODELS_DIR = /usr/share/assimp/models
.PHONY: demo-images-realdata
demo-images: demo-images-realdata
demo-images-realdata: $(BUILD)/bvh_pose $(BUILD)/rig_pose $(BUILD)/retarget
	$(call need_debian_package,assimp-testmodels,$(ASSIMP_MODELS))
	$(BUILD)/retarget $(MODELS_DIR)/BVH/01_01.bvh --frames 0,500,1000,1500,2000,2600 --png docs/images/retarget_cmu.png
	$(BUILD)/bvh_pose $(MODELS_DIR)/BVH/Boxing_Toes.bvh --frames 0,400,800,1200,1600,2000 --png docs/images/bvh_pose_boxing.png
	$(BUILD)/rig_pose $(MODELS_DIR)/X/Testwuson.X --time 0.5 --png docs/images/rig_pose_testwuson.png
	$(BUILD)/rig_pose tests/data/scaled_limb.gltf --time 0.4 --method dqs --png docs/images/rig_pose_scaled_limb.png

demo-realdata: $(BUILD)/bvh_pose $(BUILD)/rig_pose $(BUILD)/retarget
	$(call need_debian_package,assimp-testmodels,$(ASSIMP_MODELS))
	$(BUILD)/retarget $(MODELS_DIR)/BVH/01_01.bvh --frames 0,500,1000,1500,2000,2600 --png out/retarget_cmu.png
	$(BUILD)/bvh_pose --png out/bvh_pose_01_01.png
	$(BUILD)/bvh_pose $(MODELS_DIR)/BVH/Boxing_Toes.bvh --frames 0,400,800,1200,1600,2000 --cor --png out/bvh_pose_boxing.png
	$(BUILD)/rig_pose $(MODELS_DIR)/glTF2/simple_skin/simple_skin.gltf --time 0.5 --png out/rig_pose_simple_skin.png
	$(BUILD)/rig_pose $(MODELS_DIR)/X/Testwuson.X --time 0.5 --png out/rig_pose_testwuson.png
	$(BUILD)/rig_pose $(MODELS_DIR)/FBX/huesitos.fbx --time 0.5 --png out/rig_pose_huesitos.png
	$(BUILD)/rig_pose tests/data/scaled_limb.gltf --time 0.4 --method dqs --png out/rig_pose_scaled_limb.png
	$(BUILD)/rig_pose tests/data/scaled_limb.gltf --time 0.4 --method cor --png out/rig_pose_scaled_limb_cor.png

# ---- Property tests ------------------------------------------------------------
# `make test SEED=0x... PROPS_N=5000` replays a run / runs more cases per property;
# `make mutants` checks that the suite catches a list of deliberate bugs.

TEST_PROGRAMS += $(BUILD)/test_properties
$(BUILD)/test_properties: tests/prop_harness.h tests/prop_cases.h

ifdef SEED
export PROPS_SEED := $(SEED)
endif
ifdef PROPS_N
export PROPS_N
endif

.PHONY: mutants
mutants:
	tests/mutants.sh

# ---- Beyond --------------------------------------------------------------------
# Weight repair, poses and tracks, subtree updates, Jacobians and IK; the IK
# example draws out/ik.png.

TEST_PROGRAMS += $(BUILD)/test_beyond
EXAMPLES += $(BUILD)/example_ik

# ---- Animation toolkit -----------------------------------------------------------
# Two-bone and aim IK, root motion, glTF's interpolations and morph targets.

TEST_PROGRAMS += $(BUILD)/test_animation

# ---- Engine rigs -------------------------------------------------------------------
# Prepared skeletons and engine-form forward kinematics (local T R S, inverse binds).

TEST_PROGRAMS += $(BUILD)/test_engine

# ---- Retargeting -------------------------------------------------------------------
# One motion on another skeleton: retarget descriptions, poses, joint maps from names.

TEST_PROGRAMS += $(BUILD)/test_retarget

# ---- GPU skinning ------------------------------------------------------------------
# Shader palettes and the split of a mesh into draws whose bones fit one.

TEST_PROGRAMS += $(BUILD)/test_gpu

# The shaders of examples/shaders/ on a real OpenGL: tests/test_gl.c runs them on
# Mesa's software renderer (llvmpipe), headless through EGL's surfaceless
# platform, in a desktop GL 3.3 core and a GLES 3.0 context, and compares every
# vertex with the CPU's. It links glvnd's libEGL alone and fetches the GL entry
# points from it, so that one program serves both APIs; Debian's packages give
# the EGL and GLES 3 headers (libegl1-mesa-dev, libgles2-mesa-dev, which bring
# libEGL and Mesa's EGL driver) and llvmpipe itself (libgl1-mesa-dri's swrast).
GL_DRIVER = /usr/lib/$(shell $(CC) -print-multiarch)/dri/swrast_dri.so
TEST_PROGRAMS += $(BUILD)/test_gl

.PHONY: gl-packages
gl-packages:
	$(call need_debian_package,libegl1-mesa-dev,/usr/include/EGL/eglext.h)
	$(call need_debian_package,libgles2-mesa-dev,/usr/include/GLES3/gl3.h)
	$(call need_debian_package,libgl1-mesa-dri,$(GL_DRIVER))

$(BUILD)/test_gl: tests/test_gl.c tests/check.h tests/test_random.h examples/shaders/skin_lbs.vert \
                  examples/shaders/skin_dqs.vert examples/shaders/skin_cor.vert $(HEADER) $(BUILD)/fk_lbs.o | $(BUILD) gl-packages
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) $(TEST_WARNINGS) -DSHADER_DIR='"$(CURDIR)/examples/shaders"' $< \
	    $(BUILD)/fk_lbs.o -o $@ -lEGL $(LDLIBS)

# tests/shaders.sh builds every variant of the shaders (each option, four and
# eight influences) as GLSL 3.30 and GLSL ES 3.00 with Khronos' reference
# compiler, glslangValidator (Debian's glslang-tools), and counts its uniforms
# against the 256 vec4 that GL 3.3 and GLES 3.0 promise, which llvmpipe exceeds.
.PHONY: glslang-package
glslang-package:
	$(call need_debian_package,glslang-tools,/usr/bin/glslangValidator)

TEST_SCRIPTS += tests/shaders.sh
test: glslang-package

# ---- Hardening -----------------------------------------------------------------
# make sanitize: every program in TEST_PROGRAMS, rebuilt in $(BUILD)/sanitize with
#   AddressSanitizer and UndefinedBehaviorSanitizer (any report is fatal), then the
#   normal build once more under valgrind memcheck (make valgrind) beside the NEON
#   loops of 64-bit Arm under both sanitizers (tests/arm64.sh --sanitize, qemu,
#   which runs its programs one after another: started first, it shares the two
#   cores with valgrind's programs instead of taking one alone at the end).
#   test_gl is left out of both: its checks pass under ASan and UBSan, but Mesa's
#   driver leaves allocations behind when EGL unloads it, which LeakSanitizer
#   (and valgrind) report as leaks from a module that is gone.
# make fuzz FUZZ_SECONDS=N: each libFuzzer target for N seconds. The saved corpora
#   are also replayed by plain programs in TEST_PROGRAMS, so `make test` and
#   `make sanitize` run them without a fuzzer.

FUZZ_TARGETS    = fk skin bvh matrices animation cor retarget
FUZZ_SOURCES_bvh = examples/bvh.c
FUZZ_SECONDS   ?= 60
FUZZ_CC        ?= clang
FUZZ_FLAGS     ?= -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
SANITIZE_CC    ?= clang
# -O0: the checks are the same as optimized, and the sanitized programs
# compile faster.
SANITIZE_FLAGS ?= -O0 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
# test_simd holds the fast paths to the reference loops over many layouts:
# unoptimized under the sanitizers it ran for most of a minute, at -O1 (the
# same checks) for seconds, which pays for its slower compile twice over.
SANITIZE_SIMD_FLAGS ?= -O1
SANITIZE_ENV    = ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1 UBSAN_OPTIONS=print_stacktrace=1
VALGRIND        = valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
VALGRIND_PROGRAMS ?= $(filter-out $(BUILD)/contract/% $(BUILD)/test_gl,$(TEST_PROGRAMS))

TEST_PROGRAMS += $(BUILD)/test_bad_input $(FUZZ_TARGETS:%=$(BUILD)/fuzz_%_replay)
TEST_SCRIPTS  += tests/conventions_table.sh

# test_bad_input, test_engine and test_cor once more, they and the library built
# with -ffast-math: the checks read a float's bits, not comparisons that such a
# build may fold away, so bad input is still reported (the header's ERRORS). The
# two tests of NaN carried through (per-vertex data, the math helpers), which
# -ffast-math gives up, are skipped there, and CoR's bit-for-bit agreement with
# LBS is held to rounding (__FAST_MATH__).
FAST_MATH = -ffast-math
TEST_PROGRAMS += $(BUILD)/fast_math/test_bad_input $(BUILD)/fast_math/test_engine $(BUILD)/fast_math/test_cor

$(BUILD)/fast_math/fk_lbs.o: tests/fk_lbs_impl.c $(HEADER)
	@mkdir -p $(@D)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) $(FAST_MATH) $(WARNINGS) -c $< -o $@

$(BUILD)/fast_math/test_%: tests/test_%.c tests/check.h tests/test_random.h $(HEADER) $(BUILD)/fast_math/fk_lbs.o
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) $(FAST_MATH) $(TEST_WARNINGS) $< $(BUILD)/fast_math/fk_lbs.o -o $@ $(LDLIBS)

# A target that fuzzes an example (the BVH reader) names its sources in FUZZ_SOURCES_<target>.
.SECONDEXPANSION: # for $$(FUZZ_SOURCES_$$*) below
$(BUILD)/fuzz_%_replay: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz_input.h $(HEADER) \
                        $$(FUZZ_SOURCES_$$*) $(BUILD)/fk_lbs.o | $(BUILD)
	$(CC) -std=c99 $(CPPFLAGS) -Iexamples $(CFLAGS) $(WARNINGS) -DFUZZ_CORPUS='"$(CURDIR)/tests/fuzz/corpus/$*"' \
	    $< $(FUZZ_SOURCES_$*) tests/fuzz/replay.c $(BUILD)/fk_lbs.o -o $@ $(LDLIBS)

# The library for the fuzzers, instrumented as they are.
$(BUILD)/fuzz/fk_lbs.o: tests/fk_lbs_impl.c $(HEADER)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_FLAGS) -c $< -o $@

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_input.h $(HEADER) $$(FUZZ_SOURCES_$$*) $(BUILD)/fuzz/fk_lbs.o
	$(call need_debian_package,libclang-rt-14-dev,$(shell $(FUZZ_CC) --print-runtime-dir)/libclang_rt.fuzzer-$(shell uname -m).a)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) -Iexamples $(FUZZ_FLAGS) $< $(FUZZ_SOURCES_$*) $(BUILD)/fuzz/fk_lbs.o -o $@ $(LDLIBS)

.PHONY: sanitize valgrind fuzz test-programs

# The test programs alone (no scripts): what sanitize runs in its own build dir,
# less SKIP_PROGRAMS (names under $(BUILD)). Expanded when needed, because areas
# further down the Makefile add programs too.
SKIP_PROGRAMS ?=
CHECKED_PROGRAMS = $(filter-out $(SKIP_PROGRAMS:%=$(BUILD)/%),$(TEST_PROGRAMS))
test-programs: $$(CHECKED_PROGRAMS)
	tests/run_tests.sh $(CHECKED_PROGRAMS)

# `make sanitize SANITIZE_SKIP='test_examples'` leaves programs out (a quicker run).
SANITIZE_SKIP ?=
sanitize:
	$(SANITIZE_ENV) $(MAKE) --no-print-directory BUILD=$(BUILD)/sanitize CC=$(SANITIZE_CC) \
	    CFLAGS='$(SANITIZE_FLAGS)' SIMD_TEST_FLAGS='$(SANITIZE_SIMD_FLAGS)' \
	    SKIP_PROGRAMS='$(SANITIZE_SKIP) contract/test_simd wasm/% test_gl' test-programs
	@mkdir -p $(BUILD)/valgrind
	@printf '#!/bin/sh\nexec %s --sanitize\n' '$(CURDIR)/tests/arm64.sh' >$(BUILD)/valgrind/arm64_sanitize
	@chmod +x $(BUILD)/valgrind/arm64_sanitize
	$(MAKE) --no-print-directory valgrind VALGRIND_BESIDE=$(BUILD)/valgrind/arm64_sanitize

# VALGRIND_BESIDE: programs to run first, beside valgrind's (make sanitize's NEON run).
valgrind: all
	$(call need_debian_package,valgrind,/usr/bin/valgrind)
	@mkdir -p $(BUILD)/valgrind
	@for program in $(VALGRIND_PROGRAMS); do \
	    wrapper=$(BUILD)/valgrind/$$(echo "$${program#$(BUILD)/}" | tr / _); \
	    printf '#!/bin/sh\nexec $(VALGRIND) %s "$$@"\n' "$$program" >$$wrapper; chmod +x $$wrapper; done
	tests/run_tests.sh $(VALGRIND_BESIDE) \
	    $(addprefix $(BUILD)/valgrind/,$(subst /,_,$(patsubst $(BUILD)/%,%,$(VALGRIND_PROGRAMS))))

fuzz: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)
	tests/fuzz/run_fuzzers.sh $(FUZZ_SECONDS) $(BUILD)/fuzz $(FUZZ_TARGETS)

# ---- Performance -----------------------------------------------------------------

# The SIMD skinning loops against the reference loops.
TEST_PROGRAMS += $(BUILD)/test_simd

# The core tests once more with the SIMD loops compiled out (FK_LBS_NO_SIMD), so
# that the reference loops and the SIMD loops are both held to them.
NO_SIMD_TESTS  = $(notdir $(basename $(wildcard tests/test_core.c tests/test_properties.c tests/test_simd.c \
                                                 tests/test_engine.c tests/test_cor.c)))
TEST_PROGRAMS += $(NO_SIMD_TESTS:%=$(BUILD)/no_simd/%)

$(BUILD)/no_simd/fk_lbs.o: tests/fk_lbs_impl.c $(HEADER)
	@mkdir -p $(@D)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) -DFK_LBS_NO_SIMD $(WARNINGS) -c $< -o $@

$(BUILD)/no_simd/test_%: tests/test_%.c tests/check.h tests/test_random.h $(HEADER) $(BUILD)/no_simd/fk_lbs.o
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) -DFK_LBS_NO_SIMD $(TEST_WARNINGS) $< $(BUILD)/no_simd/fk_lbs.o -o $@ $(LDLIBS)

$(BUILD)/no_simd/test_simd: tests/test_simd.c tests/check.h tests/test_random.h $(HEADER)
	@mkdir -p $(@D)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) $(SIMD_TEST_FLAGS) -DFK_LBS_NO_SIMD $(TEST_WARNINGS) $< -o $@ $(LDLIBS)
$(BUILD)/no_simd/test_properties: tests/prop_harness.h tests/prop_cases.h

# On x86-64 the fast paths run the AVX2 tier where the CPU has AVX2 and FMA,
# else the SSE2 tier; these builds hold the SSE2 tier to test_simd and to the
# core and property tests too, whatever this machine has.
TEST_PROGRAMS += $(BUILD)/sse2/test_simd $(BUILD)/sse2/test_core $(BUILD)/sse2/test_properties \
                 $(BUILD)/sse2/test_engine
LOOPS_sse2 = -DFK_LBS_NO_AVX2

$(BUILD)/sse2/test_simd: tests/test_simd.c tests/check.h tests/test_random.h $(HEADER)
	@mkdir -p $(@D)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) $(SIMD_TEST_FLAGS) $(LOOPS_sse2) $(TEST_WARNINGS) $< -o $@ $(LDLIBS)

$(BUILD)/sse2/fk_lbs.o: tests/fk_lbs_impl.c $(HEADER)
	@mkdir -p $(@D)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) $(LOOPS_sse2) $(WARNINGS) -c $< -o $@

$(BUILD)/sse2/test_%: tests/test_%.c tests/check.h tests/test_random.h $(HEADER) $(BUILD)/sse2/fk_lbs.o
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) $(LOOPS_sse2) $(TEST_WARNINGS) $< $(BUILD)/sse2/fk_lbs.o -o $@ $(LDLIBS)
$(BUILD)/sse2/test_properties: tests/prop_harness.h tests/prop_cases.h

# 64-bit Arm, where fk_skin_lbs() and fk_skin_dqs() run their NEON loops: the
# header and the core, bad-input, SIMD and property tests cross-compiled and run
# under qemu (tests/arm64.sh), with the cross compilers and qemu installed when
# missing. The script also compiles the header as C++ for aarch64 (g++ and
# clang++) and with clang, which clang-tools installs.
TEST_SCRIPTS += tests/arm64.sh
ifeq ($(shell uname -m),x86_64)
test mutants sanitize: arm64-tools
endif

.PHONY: arm64-tools
arm64-tools: clang-tools
	$(call need_debian_package,gcc-aarch64-linux-gnu,/usr/bin/aarch64-linux-gnu-gcc)
	$(call need_debian_package,g++-aarch64-linux-gnu,/usr/bin/aarch64-linux-gnu-g++)
	$(call need_debian_package,libc6-dev-arm64-cross,/usr/aarch64-linux-gnu/include/stdio.h)
	$(call need_debian_package,qemu-user,/usr/bin/qemu-aarch64)

# test_simd once more as clang builds it with -O3 -march=native
# -ffp-contract=fast: a multiply and an add in two statements are then fused
# where the compiler chooses (gcc's GNU modes do this too), so the SIMD loops
# are held to the reference with the rounding a user's fast build gets. Built
# for this machine, so neither valgrind (which lacks some of its instructions)
# nor the sanitizers' rebuild take it.
CONTRACT_CC    ?= clang
CONTRACT_FLAGS ?= -O3 -march=native -ffp-contract=fast -g1
TEST_PROGRAMS += $(BUILD)/contract/test_simd

$(BUILD)/contract/test_%: tests/test_%.c tests/check.h tests/test_random.h $(HEADER) | clang-tools
	@mkdir -p $(@D)
	$(CONTRACT_CC) -std=c99 $(CPPFLAGS) $(CONTRACT_FLAGS) $(TEST_WARNINGS) $< -o $@ $(LDLIBS)

# clang: the compile matrix and the build above use it.
.PHONY: clang-tools
clang-tools:
	$(call need_debian_package,clang,/usr/bin/clang)
test: clang-tools

# ---- Benchmarks ------------------------------------------------------------------

# `make bench` first times the header's build against stb_image.h's, gcc and
# clang at -O2, and gives both headers' .text (bench-compile:
# tests/bench/compile_cost.sh). It then builds the benchmark with the same CFLAGS
# as everything else (default -O2 -g1); compare with `make bench CFLAGS='-O3
# -march=native'`. Rebuilt every time, so that the flags asked for are the flags
# measured. The benchmark ends by timing this header against the one at
# BASELINE_COMMIT, which git extracts into $(BUILD)/baseline/fk_lbs.h and which
# is compiled with the same flags into tests/bench/baseline.c's object (beside
# bench.c, on a second core; kept while the command that built it is the same);
# without git or that commit, make says so and the benchmark leaves that part
# out. About a minute; longer the first time, when fbf9e24's slow-to-compile
# header is built into $(BUILD)/baseline.
BASELINE_COMMIT ?= fbf9e24
BENCH_BASELINE   = $(BUILD)/baseline
BENCH_COMPILE    = $(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) -DBENCH_FLAGS="$(CC) $(CFLAGS)" $(WARNINGS) -Wno-double-promotion
BENCH_COMPILE_BASELINE = $(CC) -std=c99 -I$(BENCH_BASELINE) $(CPPFLAGS) $(CFLAGS) $(WARNINGS) \
                         -c tests/bench/baseline.c -o $(BENCH_BASELINE)/baseline.o

.PHONY: bench bench-compile bench-baseline
bench: bench-compile bench-baseline
	@set -e; run() { for a; do case $$a in *" "*) printf "'%s' " "$$a";; *) printf '%s ' "$$a";; esac; done; \
	                 echo; "$$@"; }; \
	if [ -s $(BENCH_BASELINE)/fk_lbs.h ]; then \
	    recipe='$(BENCH_COMPILE_BASELINE)' baseline=; \
	    if [ "$$(cat $(BENCH_BASELINE)/baseline.recipe 2>/dev/null)" != "$$recipe" ] \
	       || [ ! $(BENCH_BASELINE)/baseline.o -nt $(BENCH_BASELINE)/fk_lbs.h ] \
	       || [ ! $(BENCH_BASELINE)/baseline.o -nt tests/bench/baseline.c ]; then \
	        rm -f $(BENCH_BASELINE)/baseline.recipe; \
	        { run $(BENCH_COMPILE_BASELINE) && echo "$$recipe" >$(BENCH_BASELINE)/baseline.recipe; } & baseline=$$!; \
	    fi; \
	    run $(BENCH_COMPILE) -DBENCH_BASELINE=$(BASELINE_COMMIT) -c tests/bench/bench.c -o $(BUILD)/bench.o \
	        || { wait; exit 1; }; \
	    [ -z "$$baseline" ] || wait $$baseline; \
	    run $(CC) $(CFLAGS) $(BUILD)/bench.o $(BENCH_BASELINE)/baseline.o -o $(BUILD)/bench $(LDLIBS) -lpthread; \
	else \
	    run $(BENCH_COMPILE) tests/bench/bench.c -o $(BUILD)/bench $(LDLIBS) -lpthread; \
	fi
	$(BUILD)/bench

# The compiles' times, against stb_image.h's implementation compiled alike.
bench-compile: bench-baseline clang-tools
	$(call need_debian_package,libstb-dev,/usr/include/stb/stb_image.h)
	$(call need_debian_package,time,/usr/bin/time)
	BASELINE_COMMIT=$(BASELINE_COMMIT) tests/bench/compile_cost.sh $(BUILD)

# Replaced only when it differs, so that compile_cost.sh keeps its objects.
bench-baseline: | $(BUILD)
	@mkdir -p $(BENCH_BASELINE)
	@if git show $(BASELINE_COMMIT):fk_lbs.h >$(BENCH_BASELINE)/fk_lbs.h.tmp 2>/dev/null; then \
	    cmp -s $(BENCH_BASELINE)/fk_lbs.h.tmp $(BENCH_BASELINE)/fk_lbs.h \
	        || mv $(BENCH_BASELINE)/fk_lbs.h.tmp $(BENCH_BASELINE)/fk_lbs.h; \
	else \
	    rm -f $(BENCH_BASELINE)/fk_lbs.h; \
	    echo "git show $(BASELINE_COMMIT):fk_lbs.h failed (no git, or no such commit): no comparison with that header"; \
	fi; \
	rm -f $(BENCH_BASELINE)/fk_lbs.h.tmp

# ---- Install ---------------------------------------------------------------------
# `make install` copies the header into $(DESTDIR)$(INCLUDEDIR) and writes a
# pkg-config file, fk_lbs.pc, into $(DESTDIR)$(PKGCONFIGDIR); `make uninstall`
# removes both. There is no library file: the implementation is compiled into the
# user's program (FK_LBS_IMPLEMENTATION), so the .pc file links only libm, which
# the implementation calls. Its paths are written relative to ${prefix} when they
# lie under PREFIX, so that `pkg-config --define-variable=prefix=...` can move them.
# tests/install.sh installs into a scratch DESTDIR and builds a program against it.

PREFIX       ?= /usr/local
DESTDIR      ?=
INCLUDEDIR   ?= $(PREFIX)/include
LIBDIR       ?= $(PREFIX)/lib
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INSTALL      ?= install

TEST_SCRIPTS += tests/install.sh
test: pkg-config-tool

.PHONY: install uninstall pkg-config-tool
install:
	$(INSTALL) -d '$(DESTDIR)$(INCLUDEDIR)' '$(DESTDIR)$(PKGCONFIGDIR)'
	$(INSTALL) -m 644 $(HEADER) '$(DESTDIR)$(INCLUDEDIR)/'
	printf '%s\n' 'prefix=$(PREFIX)' 'includedir=$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))' '' \
	    'Name: fk_lbs' \
	    'Description: Forward kinematics and blend skinning (LBS, DQS) in one C header' \
	    'Version: $(DOCS_VERSION)' 'Cflags: -I$${includedir}' 'Libs: -lm' >'$(DESTDIR)$(PKGCONFIGDIR)/fk_lbs.pc'
	chmod 644 '$(DESTDIR)$(PKGCONFIGDIR)/fk_lbs.pc'

uninstall:
	rm -f '$(DESTDIR)$(INCLUDEDIR)/$(notdir $(HEADER))' '$(DESTDIR)$(PKGCONFIGDIR)/fk_lbs.pc'

pkg-config-tool:
	$(call need_debian_package,pkg-config,/usr/bin/pkg-config)

# ---- WebAssembly -----------------------------------------------------------------
# The core, bad-input, SIMD and property tests built for wasm32 (WASI) with
# SIMD128 and run under node's WASI by tests/wasm/run.mjs: each program
# $(BUILD)/wasm/test_NAME.wasm has a wrapper script $(BUILD)/wasm/test_NAME that
# tests/run_tests.sh runs like any test program, arguments and environment
# (PROPS_N, PROPS_SEED) passed on. `make test-wasm` runs these alone. wasm-tools
# installs what is missing: Debian's clang finds wasi-libc (/usr/include/wasm32-wasi,
# /usr/lib/wasm32-wasi) without --sysroot and links with wasm-ld-14 (lld-14) and
# compiler-rt's wasm32 builtins; node 18.17 and later run WASI without a flag.
# WASI has no process clocks: clock() (the property tests' PROPS_SEED=random)
# is wasi-libc's emulation on the wall clock. wasm-ld gives a program 64 KiB of
# stack below its heap by default, where an overflow silently overwrites the
# globals (malloc's among them): test_simd's main() takes 53 KB and fk_skin_dqs()
# 15-27 KB, so the tests get 1 MiB, placed first in memory so that an overflow
# traps instead.

WASM_CC     ?= clang
WASM_FLAGS  ?= --target=wasm32-wasi -msimd128 -O2
WASM_NODE   ?= node
WASM_CLOCK   = -D_WASI_EMULATED_PROCESS_CLOCKS
WASM_LDFLAGS = -Wl,--stack-first,-z,stack-size=1048576
WASM_LDLIBS  = -lwasi-emulated-process-clocks -lm
WASM_TESTS   = core bad_input simd properties
WASM_PROGRAMS = $(WASM_TESTS:%=$(BUILD)/wasm/test_%)

TEST_PROGRAMS += $(WASM_PROGRAMS)

.PHONY: wasm-tools test-wasm
wasm-tools: clang-tools
	$(call need_debian_package,lld-14,/usr/bin/wasm-ld-14)
	$(call need_debian_package,wasi-libc,/usr/lib/wasm32-wasi/libc.a)
	$(call need_debian_package,libclang-rt-14-dev-wasm32,$(shell $(WASM_CC) --target=wasm32-wasi -print-libgcc-file-name))
	$(call need_debian_package,nodejs,/usr/bin/node)

$(BUILD)/wasm/fk_lbs.o: tests/fk_lbs_impl.c $(HEADER) | wasm-tools
	@mkdir -p $(@D)
	$(WASM_CC) $(WASM_FLAGS) -std=c99 $(CPPFLAGS) $(WARNINGS) -c $< -o $@

$(filter-out %/test_simd.wasm,$(WASM_PROGRAMS:%=%.wasm)): $(BUILD)/wasm/test_%.wasm: tests/test_%.c tests/check.h \
                                                           tests/test_random.h $(HEADER) $(BUILD)/wasm/fk_lbs.o
	$(WASM_CC) $(WASM_FLAGS) -std=c99 $(CPPFLAGS) $(WASM_CLOCK) $(TEST_WARNINGS) $< $(BUILD)/wasm/fk_lbs.o -o $@ \
	    $(WASM_LDFLAGS) $(WASM_LDLIBS)
$(BUILD)/wasm/test_properties.wasm: tests/prop_harness.h tests/prop_cases.h

$(BUILD)/wasm/test_simd.wasm: tests/test_simd.c tests/check.h tests/test_random.h $(HEADER) | wasm-tools
	@mkdir -p $(@D)
	$(WASM_CC) $(WASM_FLAGS) -std=c99 $(CPPFLAGS) $(WASM_CLOCK) $(TEST_WARNINGS) $< -o $@ \
	    $(WASM_LDFLAGS) $(WASM_LDLIBS)

$(WASM_PROGRAMS): %: %.wasm tests/wasm/run.mjs
	printf '#!/bin/sh\nexec %s "%s" --argv0 "$$0" "%s" "$$@"\n' '$(WASM_NODE)' '$(CURDIR)/tests/wasm/run.mjs' \
	    '$(abspath $<)' >$@
	chmod +x $@

test-wasm: $(WASM_PROGRAMS)
	tests/run_tests.sh $(WASM_PROGRAMS)

# ---- Web page --------------------------------------------------------------------
# `make web` builds a page into $(BUILD)/web that poses and skins the character of
# examples/character.h and a CMU motion capture clip (assimp-testmodels' 01_01),
# also retargeted onto the character (examples/retarget.h), in the browser: examples/web/skin_web.c compiled with the wasm toolchain above
# into a module with no entry point, whose functions the page calls by the names
# they export; examples/web/embed.mjs puts the module, the shaders and the clip
# into one script, so that the page runs opened from its files as well as
# served (`make serve`). The module links render.c for its mesh builder: -idirafter
# lets it find the stb headers it includes, after wasi-libc's own; what reads or
# writes files is never called, and the linker drops it.
# tests/web_test.sh drives Debian's Chromium, headless, over the page, with
# software WebGL2 and with WebGL disabled (where the page draws on a 2D canvas),
# and holds its vertices to $(BUILD)/web_dump, the same module built natively.

WEB_DIR   = $(BUILD)/web
WEB_CLIP  = $(ASSIMP_MODELS)
WEB_PORT ?= 8000
WEB_FILES = $(WEB_DIR)/index.html $(WEB_DIR)/page.js $(WEB_DIR)/fk_web_data.js
WEB_MODULE_SOURCES = examples/web/skin_web.c examples/character.h examples/retarget.h examples/bvh.c examples/bvh.h \
                     examples/render.c examples/render.h $(HEADER)
CHROMIUM  = /usr/bin/chromium

.PHONY: web serve web-image chromium-package
web: $(WEB_FILES)
	@echo "open $(WEB_DIR)/index.html, or run 'make serve'"

serve: web
	@echo "serving $(WEB_DIR) at http://localhost:$(WEB_PORT)/ (Ctrl-C stops)"
	cd $(WEB_DIR) && python3 -m http.server $(WEB_PORT) --bind 127.0.0.1

$(WEB_DIR)/skin_web.wasm: $(WEB_MODULE_SOURCES) | wasm-tools $(STB_IMAGE_WRITE)
	@mkdir -p $(@D)
	$(WASM_CC) $(WASM_FLAGS) -std=c99 $(CPPFLAGS) -Iexamples -idirafter /usr/include $(WARNINGS) -nostartfiles \
	    -Wl,--no-entry $(WASM_LDFLAGS) examples/web/skin_web.c examples/bvh.c examples/render.c -o $@ -lm

$(WEB_DIR)/fk_web_data.js: $(WEB_DIR)/skin_web.wasm examples/web/embed.mjs examples/shaders/skin_lbs.vert \
                           examples/shaders/skin_dqs.vert examples/shaders/skin_cor.vert
	$(call need_debian_package,assimp-testmodels,$(WEB_CLIP))
	$(WASM_NODE) examples/web/embed.mjs $@ $< examples/shaders/skin_lbs.vert examples/shaders/skin_dqs.vert \
	    examples/shaders/skin_cor.vert $(WEB_CLIP)

$(WEB_DIR)/%: examples/web/%
	@mkdir -p $(@D)
	cp $< $@

$(BUILD)/web_dump: tests/web_dump.c $(WEB_MODULE_SOURCES) $(BUILD)/render.o
	$(CC) -std=c99 $(CPPFLAGS) -Iexamples $(CFLAGS) $(TEST_WARNINGS) $< examples/bvh.c $(BUILD)/render.o -o $@ $(LDLIBS)

chromium-package:
	$(call need_debian_package,chromium,$(CHROMIUM))

TEST_SCRIPTS += tests/web_test.sh
test: chromium-package

# docs/images/web.png, the README's picture of the page.
web-image: web chromium-package
	$(CHROMIUM) --headless --no-sandbox --use-angle=swiftshader --enable-unsafe-swiftshader --hide-scrollbars \
	    --window-size=980,564 --virtual-time-budget=3000 --screenshot=docs/images/web.png \
	    "file://$(abspath $(WEB_DIR))/index.html"

# ---- Aggregate targets (last, so every area's programs are listed) ------------

all: $(TEST_PROGRAMS)

# The two longest scripts start first, so that the short programs fill the other
# core around them rather than one of them running alone at the end.
LONG_TEST_SCRIPTS = tests/arm64.sh tests/compile_matrix.sh
test: $(TEST_PROGRAMS)
	tests/run_tests.sh $(filter $(LONG_TEST_SCRIPTS),$(TEST_SCRIPTS)) \
	    $(filter-out $(LONG_TEST_SCRIPTS),$(TEST_SCRIPTS)) $(TEST_PROGRAMS)
