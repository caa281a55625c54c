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
TEST_PROGRAMS =
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

$(BUILD)/test_%: tests/test_%.c tests/check.h $(HEADER) | $(BUILD)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) $(WARNINGS) $< -o $@ $(LDLIBS)

clean:
	rm -rf $(BUILD) out

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

# ---- Aggregate targets (last, so every area's programs are listed) ------------

all: $(TEST_PROGRAMS)

test: $(TEST_PROGRAMS)
	tests/run_tests.sh $(TEST_PROGRAMS) $(TEST_SCRIPTS)
