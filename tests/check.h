/* check.h - the tests' tiny harness: named checks, a count, and the closing line.

   A test program calls check() (or the CHECK macro) as often as it likes inside
   test functions run by RUN_TEST; a test passes when none of its checks failed.
   check_finish() prints "N passed, N failed" and returns the exit status. A test
   that cannot run in this build or on this machine calls check_skip(), and is
   counted as skipped, never as passed: the closing line then ends ", N skipped"
   (tests/run_tests.sh and .ci/run read it as well). With
   CHECK_FAIL_FAST set in the environment (tests/mutants.sh, which only needs to
   know that something fails), the tests after a failed one are not run. */
#ifndef FK_TESTS_CHECK_H
#define FK_TESTS_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct check_state {
    int passed, failed, skipped; /* tests, not checks */
    int current_failures;    /* failed checks in the running test */
    int current_skipped;     /* the running test called check_skip() */
    const char *current;     /* name of the running test */
} check_state;

static check_state check__state;

/* Records one check; on failure prints the test, the place and a formatted reason. */
static inline int check_at(int ok, const char *file, int line, const char *format, ...)
{
    va_list args;
    if (ok) return 1;
    if (check__state.current_failures++ < 5) { /* a broken test should not flood the log */
        fprintf(stderr, "FAIL %s (%s:%d): ", check__state.current ? check__state.current : "?", file, line);
        va_start(args, format);
        vfprintf(stderr, format, args);
        va_end(args);
        fputc('\n', stderr);
    }
    return 0;
}

#define CHECK(cond, ...) check_at((cond) != 0, __FILE__, __LINE__, __VA_ARGS__)

/* The running test cannot run here (the reason, formatted, is printed): it
   counts as skipped unless one of its checks failed. */
static inline void check_skip(const char *format, ...)
{
    va_list args;
    check__state.current_skipped = 1;
    printf("   skipped %s: ", check__state.current ? check__state.current : "?");
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    putchar('\n');
}

static inline void check_run(const char *name, void (*test)(void))
{
    if (check__state.failed > 0 && getenv("CHECK_FAIL_FAST")) return;
    check__state.current = name;
    check__state.current_failures = 0;
    check__state.current_skipped = 0;
    test();
    if (check__state.current_failures == 0 && check__state.current_skipped) {
        check__state.skipped++;
    } else if (check__state.current_failures == 0) {
        check__state.passed++;
    } else {
        check__state.failed++;
        fprintf(stderr, "FAIL %s: %d failed checks\n", name, check__state.current_failures);
    }
    check__state.current = NULL;
}

#define RUN_TEST(fn) check_run(#fn, fn)

static int check_finish(void)
{
    if (check__state.skipped)
        printf("%d passed, %d failed, %d skipped\n", check__state.passed, check__state.failed, check__state.skipped);
    else
        printf("%d passed, %d failed\n", check__state.passed, check__state.failed);
    return check__state.failed ? 1 : 0;
}

#endif
