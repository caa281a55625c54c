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
	@echo "make docs    build the guide and the API reference into docs/html (Doxygen)"
	@echo "make clean   remove build/, out/ and docs/html"
	@echo "make sanitize  every test program under ASan+UBSan, then under valgrind"
	@echo "make fuzz      each fuzz target for FUZZ_SECONDS (default 60) seconds"

$(BUILD):
	mkdir -p $@

# ---- Tests ---------------------------------------------------------------------

# Test programs pass floats to printf, which -Wdouble-promotion flags at every
# call; the header itself is held to the full set by tests/compile_matrix.sh.
TEST_WARNINGS = $(WARNINGS) -Wno-double-promotion

$(BUILD)/test_%: tests/test_%.c tests/check.h $(HEADER) | $(BUILD)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) $(TEST_WARNINGS) $< -o $@ $(LDLIBS)

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

# ---- Hardening -----------------------------------------------------------------
# make sanitize: every program in TEST_PROGRAMS, rebuilt in $(BUILD)/sanitize with
#   AddressSanitizer and UndefinedBehaviorSanitizer (any report is fatal), then the
#   normal build once more under valgrind memcheck (make valgrind).
# make fuzz FUZZ_SECONDS=N: each libFuzzer target for N seconds. The saved corpora
#   are also replayed by plain programs in TEST_PROGRAMS, so `make test` and
#   `make sanitize` run them without a fuzzer.

FUZZ_TARGETS    = fk skin
FUZZ_SECONDS   ?= 60
FUZZ_CC        ?= clang
FUZZ_FLAGS     ?= -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
SANITIZE_CC    ?= clang
SANITIZE_FLAGS ?= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
SANITIZE_ENV    = ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1 UBSAN_OPTIONS=print_stacktrace=1
VALGRIND        = valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
VALGRIND_PROGRAMS ?= $(TEST_PROGRAMS)

TEST_PROGRAMS += $(BUILD)/test_bad_input $(FUZZ_TARGETS:%=$(BUILD)/fuzz_%_replay)
TEST_SCRIPTS  += tests/conventions_table.sh

$(BUILD)/fuzz_%_replay: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz_input.h $(HEADER) | $(BUILD)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) $(WARNINGS) -DFUZZ_CORPUS='"$(CURDIR)/tests/fuzz/corpus/$*"' \
	    $< tests/fuzz/replay.c -o $@ $(LDLIBS)

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_input.h $(HEADER)
	$(call need_debian_package,libclang-rt-14-dev,$(shell $(FUZZ_CC) --print-runtime-dir)/libclang_rt.fuzzer-$(shell uname -m).a)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_FLAGS) $< -o $@ $(LDLIBS)

.PHONY: sanitize valgrind fuzz test-programs

# The test programs alone (no scripts): what sanitize runs in its own build dir.
test-programs: $(TEST_PROGRAMS)
	tests/run_tests.sh $(TEST_PROGRAMS)

sanitize:
	$(SANITIZE_ENV) $(MAKE) --no-print-directory BUILD=$(BUILD)/sanitize CC=$(SANITIZE_CC) \
	    CFLAGS='$(SANITIZE_FLAGS)' test-programs
	$(MAKE) --no-print-directory valgrind

valgrind: $(VALGRIND_PROGRAMS)
	$(call need_debian_package,valgrind,/usr/bin/valgrind)
	@mkdir -p $(BUILD)/valgrind
	@for program in $(VALGRIND_PROGRAMS); do \
	    printf '#!/bin/sh\nexec $(VALGRIND) %s "$$@"\n' "$$program" >$(BUILD)/valgrind/$${program##*/}; \
	    chmod +x $(BUILD)/valgrind/$${program##*/}; done
	tests/run_tests.sh $(addprefix $(BUILD)/valgrind/,$(notdir $(VALGRIND_PROGRAMS)))

fuzz: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)
	tests/fuzz/run_fuzzers.sh $(FUZZ_SECONDS) $(BUILD)/fuzz $(FUZZ_TARGETS)

# ---- Aggregate targets (last, so every area's programs are listed) ------------

all: $(TEST_PROGRAMS)

test: $(TEST_PROGRAMS)
	tests/run_tests.sh $(TEST_PROGRAMS) $(TEST_SCRIPTS)
