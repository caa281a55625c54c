# fk_lbs.h - build, test and demo.   `make help` lists the targets.
# Flags are variables: `make test CC=clang CFLAGS='-O3 -march=native'`.

CC       ?= cc
CFLAGS   ?= -O2 -g
WARNINGS  = -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wdouble-promotion -Werror
CPPFLAGS += -I.
LDLIBS   += -lm
BUILD    ?= build

HEADER = fk_lbs.h

# Each area appends here: compiled test programs (built by `make all`) and test
# scripts; `make test` runs them all and adds up their "N passed, N failed" lines.
TEST_PROGRAMS = $(BUILD)/test_core
TEST_SCRIPTS  = tests/compile_matrix.sh tests/snippets.sh

# $(call need_debian_package,PACKAGE,FILE): when FILE is missing, install the Debian
# PACKAGE that provides it (as root, or through sudo), or stop and say how.
define need_debian_package
@test -e $(2) || { \
  if [ "$$(id -u)" = 0 ]; then sudo=; elif command -v sudo >/dev/null; then sudo=sudo; \
  else echo "$(2) is missing: run 'apt-get install $(1)' as root" >&2; exit 1; fi; \
  echo "installing Debian package $(1) (for $(2))"; \
  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $(1) >/dev/null; \
  test -e $(2) || { echo "could not install $(1); run 'sudo apt-get install $(1)'" >&2; exit 1; }; }
endef

.PHONY: all test clean help

# The first rule is the default; its prerequisites are listed at the end, once
# every area has added its programs.
default: all

help:
	@echo "make test    build and run every test (ends with 'N passed, N failed')"
	@echo "make clean   remove build/ and out/"

$(BUILD):
	mkdir -p $@

# ---- Tests ---------------------------------------------------------------------

# Test programs pass floats to printf, which -Wdouble-promotion flags at every
# call; the header itself is held to the full set by tests/compile_matrix.sh.
TEST_WARNINGS = $(WARNINGS) -Wno-double-promotion

$(BUILD)/test_%: tests/test_%.c tests/check.h $(HEADER) | $(BUILD)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) $(TEST_WARNINGS) $< -o $@ $(LDLIBS)

clean:
	rm -rf $(BUILD) out

# ---- Performance -----------------------------------------------------------------

# The SIMD skinning loops against the reference loops.
TEST_PROGRAMS += $(BUILD)/test_simd

# The core tests once more with the SIMD loops compiled out (FK_LBS_NO_SIMD), so
# that the reference loops and the SIMD loops are both held to them.
NO_SIMD_TESTS  = $(notdir $(basename $(wildcard tests/test_core.c tests/test_properties.c tests/test_simd.c)))
TEST_PROGRAMS += $(NO_SIMD_TESTS:%=$(BUILD)/no_simd/%)

$(BUILD)/no_simd/test_%: tests/test_%.c tests/check.h $(HEADER)
	@mkdir -p $(@D)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) -DFK_LBS_NO_SIMD $(TEST_WARNINGS) $< -o $@ $(LDLIBS)

# On x86-64 the AVX2 loops are chosen wherever the CPU has them; this build tests
# the SSE2 loops that other machines run.
TEST_PROGRAMS += $(BUILD)/sse2/test_simd

$(BUILD)/sse2/test_%: tests/test_%.c tests/check.h $(HEADER)
	@mkdir -p $(@D)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) -DFK_LBS_NO_AVX2 $(TEST_WARNINGS) $< -o $@ $(LDLIBS)

# ---- Benchmarks ------------------------------------------------------------------

# `make bench` builds with the same CFLAGS as everything else (default -O2 -g);
# compare with `make bench CFLAGS='-O3 -march=native'`. Rebuilt every time, so
# that the flags asked for are the flags measured. About a minute.
.PHONY: bench
bench: | $(BUILD)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) -DBENCH_FLAGS="$(CC) $(CFLAGS)" $(WARNINGS) -Wno-double-promotion \
	    tests/bench/bench.c -o $(BUILD)/bench $(LDLIBS) -lpthread
	$(BUILD)/bench

# ---- Aggregate targets (last, so every area's programs are listed) ------------

all: $(TEST_PROGRAMS)

test: $(TEST_PROGRAMS)
	tests/run_tests.sh $(TEST_PROGRAMS) $(TEST_SCRIPTS)
