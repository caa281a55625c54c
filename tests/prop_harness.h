/* prop_harness.h - runs a property over many random cases, shrinks a failure to
   the smallest case that still fails, and prints what a newcomer needs to act on
   it: the property, what broke, the shrunk case, the seed and the replay command.

   One seed per run (printed first) determines every case: case i of property P
   is generated from mix(seed, P, i), so `--seed S` replays a run exactly and
   `--only P` replays one property of it. Regression cases run before random ones. */
#ifndef FK_TESTS_PROP_HARNESS_H
#define FK_TESTS_PROP_HARNESS_H

#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "prop_cases.h"

#define DEFAULT_CASES 1000

/* Why a case failed, filled in by the property. */
typedef struct prop_failure {
    char message[512];
} prop_failure;

typedef int (*prop_function)(const prop_case *c, prop_failure *failure);

typedef struct property {
    const char *name;
    prop_function holds; /* 1 when the property holds for the case */
    int uses;            /* which parts of a case to print: USES_... */
    double worst;        /* largest error / tolerance seen (see note_error) */
} property;

/* A case that once failed, kept so that it is tried first on every run. */
typedef struct regression {
    const char *property;
    uint64_t seed;
    prop_size size;
} regression;

static struct {
    uint64_t seed;
    int cases;
    int cases_given; /* to repeat PROPS_N in the replay command */
    const char *only;
    const char *program;
    int verbose;
    int no_shrink, fail_fast; /* for tests/mutants.sh, which only needs to know that something fails */
    property *current;
} settings;

/* Records a property failure; returns 0 so that a property can `return fail(...)`. */
static int fail(prop_failure *failure, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(failure->message, sizeof failure->message, format, args);
    va_end(args);
    return 0;
}

/* Tracks how close to its tolerance an error came, for --verbose. */
static int within(double error, double tolerance)
{
    double ratio = tolerance > 0.0 ? error / tolerance : (error > 0.0 ? 2.0 : 0.0);
    if (settings.current && ratio > settings.current->worst && error == error) settings.current->worst = ratio;
    return error <= tolerance; /* false for NaN */
}

static int fails(const property *p, uint64_t seed, prop_size size, prop_case *c, prop_failure *failure)
{
    generate_case(c, seed, size, p->uses);
    failure->message[0] = '\0';
    return !p->holds(c, failure);
}

/* Greedy shrinking: try the reductions that remove the most first (one joint
   instead of many, then half, then one fewer; then the same for vertices and
   influences; then no rotation, smaller rotations, unit-sized coordinates) and
   keep any that still fails, until none does. */
static prop_size shrink(const property *p, uint64_t seed, prop_size size, prop_case *c, prop_failure *failure)
{
    int attempts = 0, improved = !settings.no_shrink;
    while (improved && attempts < 2000) {
        prop_size candidates[16];
        int count = 0, i;
        improved = 0;
        if (size.joints > 1) {
            candidates[count] = size; candidates[count++].joints = 1;
            candidates[count] = size; candidates[count++].joints = size.joints / 2;
            candidates[count] = size; candidates[count++].joints = size.joints - 1;
        }
        if (size.vertices > 1) {
            candidates[count] = size; candidates[count++].vertices = 1;
            candidates[count] = size; candidates[count++].vertices = size.vertices / 2;
            candidates[count] = size; candidates[count++].vertices = size.vertices - 1;
        }
        if (size.influences > 1) {
            candidates[count] = size; candidates[count++].influences = 1;
            candidates[count] = size; candidates[count++].influences = size.influences - 1;
        }
        if (size.angle > 0.0) {
            candidates[count] = size; candidates[count++].angle = 0.0;
            if (size.angle > 1e-3) { candidates[count] = size; candidates[count++].angle = size.angle / 2; }
        }
        if (size.magnitude != 0) {
            candidates[count] = size; candidates[count++].magnitude = 0;
            candidates[count] = size; candidates[count++].magnitude = size.magnitude + (size.magnitude < 0 ? 1 : -1);
        }
        for (i = 0; i < count && !improved; ++i, ++attempts)
            if (fails(p, seed, candidates[i], c, failure)) { size = candidates[i]; improved = 1; }
    }
    fails(p, seed, size, c, failure); /* leave the shrunk case and its message behind */
    return size;
}

static uint64_t case_seed(uint64_t run_seed, const char *property_name, int index)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a of the name: each property its own cases */
    while (*property_name) h = (h ^ (uint64_t)(unsigned char)*property_name++) * 1099511628211u;
    return mix64(run_seed ^ mix64(h + (uint64_t)index));
}

static void report_failure(const property *p, uint64_t seed, prop_size original, prop_case *c, prop_failure *failure,
                           const char *origin)
{
    prop_size small = shrink(p, seed, original, c, failure);
    check_at(0, __FILE__, __LINE__, "property %s failed", p->name);
    fprintf(stderr, "\n  property   %s\n  broke      %s\n", p->name, failure->message);
    fprintf(stderr, "  case       %s, case seed 0x%016llx\n", origin, (unsigned long long)seed);
    fprintf(stderr, "  shrunk     from %d joints, %d vertices, %d influences, angle %.3g, magnitude 1e%d\n",
            original.joints, original.vertices, original.influences, original.angle, original.magnitude);
    fprintf(stderr, "             to   %d joints, %d vertices, %d influences, angle %.3g, magnitude 1e%d:\n",
            small.joints, small.vertices, small.influences, small.angle, small.magnitude);
    print_case(c, p->uses);
    fprintf(stderr, "  replay     make test SEED=0x%016llx", (unsigned long long)settings.seed);
    if (settings.cases_given) fprintf(stderr, " PROPS_N=%d", settings.cases);
    fprintf(stderr, "\n             %s --seed 0x%016llx --cases %d --only %s\n", settings.program,
            (unsigned long long)settings.seed, settings.cases, p->name);
    fprintf(stderr, "  regression {\"%s\", 0x%016llxu, {%d, %d, %d, %.17g, %d}},   (for tests/test_properties.c)\n\n",
            p->name, (unsigned long long)seed, small.joints, small.vertices, small.influences, small.angle, small.magnitude);
}

/* Runs one property: its regression cases, then settings.cases random ones,
   stopping at the first failure (one shrunk counterexample says enough). */
static void run_property(property *p, const regression *regressions, int regression_count)
{
    static prop_case c;
    prop_failure failure;
    int i;
    if (settings.only && strcmp(settings.only, p->name) != 0) return;
    if (settings.fail_fast && check__state.failed > 0) return;
    settings.current = p;
    check__state.current = p->name;
    check__state.current_failures = 0;
    for (i = 0; i < regression_count; ++i) {
        if (strcmp(regressions[i].property, p->name) != 0) continue;
        if (fails(p, regressions[i].seed, regressions[i].size, &c, &failure)) {
            report_failure(p, regressions[i].seed, regressions[i].size, &c, &failure, "regression case");
            break;
        }
    }
    for (i = 0; i < settings.cases && check__state.current_failures == 0; ++i) {
        uint64_t seed = case_seed(settings.seed, p->name, i);
        prop_size size = random_size(seed);
        if (fails(p, seed, size, &c, &failure)) {
            char origin[64];
            snprintf(origin, sizeof origin, "random case %d of %d", i + 1, settings.cases);
            report_failure(p, seed, size, &c, &failure, origin);
        }
    }
    if (check__state.current_failures == 0) check__state.passed++;
    else check__state.failed++;
    if (settings.verbose) printf("  %-44s worst error %5.1f%% of its tolerance\n", p->name, 100.0 * p->worst);
    check__state.current = NULL;
    settings.current = NULL;
}

static uint64_t parse_number(const char *text) { return (uint64_t)strtoull(text, NULL, 0); }

/* Settings from the environment (what `make test SEED=... PROPS_N=...` passes)
   and then from the arguments, which win. */
#define DEFAULT_SEED 0x5eedf00d2026ull

static void configure(int argc, char **argv)
{
    const char *seed = getenv("PROPS_SEED"), *cases = getenv("PROPS_N");
    int i;
    settings.program = argv[0];
    settings.cases = DEFAULT_CASES;
    /* A fixed default keeps `make test` (and CI) reproducible; SEED=random explores. */
    settings.seed = DEFAULT_SEED;
    if (seed && !strcmp(seed, "random")) settings.seed = mix64((uint64_t)time(NULL) ^ ((uint64_t)clock() << 32));
    else if (seed && *seed) settings.seed = parse_number(seed);
    if (cases && *cases) { settings.cases = (int)parse_number(cases); settings.cases_given = 1; }
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) settings.seed = parse_number(argv[++i]);
        else if (!strcmp(argv[i], "--cases") && i + 1 < argc) { settings.cases = (int)parse_number(argv[++i]); settings.cases_given = 1; }
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) settings.only = argv[++i];
        else if (!strcmp(argv[i], "--verbose")) settings.verbose = 1;
        else if (!strcmp(argv[i], "--no-shrink")) settings.no_shrink = 1;
        else if (!strcmp(argv[i], "--fail-fast")) settings.fail_fast = 1;
        else {
            fprintf(stderr, "usage: %s [--seed N] [--cases N] [--only PROPERTY] [--verbose] [--no-shrink] [--fail-fast]\n"
                            "       (or the environment variables PROPS_SEED and PROPS_N)\n", argv[0]);
            exit(2);
        }
    }
    printf("property tests: seed 0x%016llx, %d cases per property (replay: make test SEED=0x%016llx)\n",
           (unsigned long long)settings.seed, settings.cases, (unsigned long long)settings.seed);
    fflush(stdout); /* before any failure report on stderr */
}

#endif
