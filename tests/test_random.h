/* test_random.h - the unit tests' random numbers: xorshift64*, small and good
   enough for test data. A test file includes it after fk_lbs.h and seeds
   rng_state as it likes (its start value is fixed, so runs repeat). Static
   inline, so that a test that uses only some of them builds without warnings. */
#ifndef FK_TESTS_RANDOM_H
#define FK_TESTS_RANDOM_H

#include <stdint.h>

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static inline uint32_t rng_next(void)
{
    rng_state ^= rng_state >> 12; rng_state ^= rng_state << 25; rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717u) >> 32);
}

static inline float rng_uniform(float lo, float hi) { return lo + (hi - lo) * (float)(rng_next() >> 8) / 16777216.0f; }
static inline int rng_below(int n) { return (int)(rng_next() % (uint32_t)n); }

static inline fk_vec3 random_vec3(float scale)
{
    return fk_vec3_make(rng_uniform(-scale, scale), rng_uniform(-scale, scale), rng_uniform(-scale, scale));
}

/* Uniform on the sphere of unit quaternions: rejection from the 4-ball. */
static inline fk_quat random_quat(void)
{
    fk_quat q;
    do q = fk_quat_make(rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1));
    while (fk_quat_dot(q, q) < 0.01f || fk_quat_dot(q, q) > 1.0f);
    return fk_quat_normalize(q);
}

/* A random forest of n <= 64 joints listed in random order: parents may come
   before or after their children. */
static inline void random_tree(int n, int *parents)
{
    int topological[64], order[64], i;
    for (i = 0; i < n; ++i) {
        topological[i] = i == 0 || rng_below(10) == 0 ? -1 : rng_below(i);
        order[i] = i;
    }
    for (i = n - 1; i > 0; --i) {
        int j = rng_below(i + 1), swap = order[i];
        order[i] = order[j]; order[j] = swap;
    }
    for (i = 0; i < n; ++i) parents[order[i]] = topological[i] < 0 ? -1 : order[topological[i]];
}

#endif
