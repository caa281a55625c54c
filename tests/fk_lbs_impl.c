/* The library itself, for the test programs: this is the one file that defines
   FK_LBS_IMPLEMENTATION, as in a user's project, and every test program but
   test_simd includes fk_lbs.h for its declarations only and links this:
   compiled once instead of once per program, the implementation's compile
   time (docs/performance.md) is paid once per build. test_simd calls the
   loops' internals, so it holds the implementation itself, as the examples do.
   tests/bench/compile_cost.sh times this file against stb_image.h's. */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"
