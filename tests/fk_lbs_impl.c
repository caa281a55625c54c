/* The library itself, for the test programs: this is the one file that defines
   FK_LBS_IMPLEMENTATION, as in a user's project, and every test program but
   test_simd includes fk_lbs.h for its declarations only and links this. The
   header's implementation takes about 15 s to compile at -O2 (its SIMD loops,
   specialized by influence count); compiled once instead of once per program,
   `make test` takes about a minute less. test_simd calls the loops' internals,
   so it holds the implementation itself, as the examples do. */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"
