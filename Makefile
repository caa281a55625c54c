# fk_lbs.h - build, test and demo.   `make help` lists the targets.
# Flags are variables: `make test CC=clang CFLAGS='-O3 -march=native'`.

CC       ?= cc
CFLAGS   ?= -O2 -g
WARNINGS  = -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wdouble-promotion -Werror
CPPFLAGS += -I.
LDLIBS   += -lm
BUILD    ?= build

HEADER = fk_lbs.h

# Each area appends its test programs here; `make test` runs them all.
TEST_PROGRAMS =

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

# ---- Aggregate targets (last, so every area's programs are listed) ------------

all: $(TEST_PROGRAMS)

test: $(TEST_PROGRAMS)
	tests/run_tests.sh $(TEST_PROGRAMS) tests/compile_matrix.sh tests/snippets.sh
