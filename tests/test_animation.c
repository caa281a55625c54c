/* test_animation.c - the animation toolkit: two-bone and aim IK, root motion,
   every glTF interpolation, and morph targets before skinning.

   Randomized tests draw from one seed, printed in every failure message with the
   command that replays it: build/test_animation SEED. */
#include "fk_lbs.h" /* declarations: the library is tests/fk_lbs_impl.c */
#include "check.h"
#include "test_random.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979f

static unsigned long seed = 20261127ul;

static inline void rng_restart(void) { rng_state = (uint64_t)seed * 0x9E3779B97F4A7C15u + 1u; }

/* ---- Two-bone IK ------------------------------------------------------------------ */

/* ---- Aim IK ----------------------------------------------------------------------- */

/* ---- Root motion ------------------------------------------------------------------ */

/* ---- Interpolation ---------------------------------------------------------------- */

/* ---- Morph targets ---------------------------------------------------------------- */

int main(int argc, char **argv)
{
    if (argc > 1) seed = strtoul(argv[1], NULL, 10);
    printf("   seed %lu (replay: build/test_animation %lu)\n", seed, seed);
    rng_restart();
    /* two-bone IK */

    /* aim IK */

    /* root motion */

    /* interpolation */

    /* morph targets */

    return check_finish();
}
