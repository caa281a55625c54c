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

#include <float.h>  /* FLT_EPSILON, FLT_MAX */
#include <limits.h> /* INT_MIN, INT_MAX */

#define INTERP_MAX_KEYS 32
#define INTERP_MAX_COMPONENTS 6
#define INTERP_TRIALS 300

/* Strictly ascending key times with uneven spacing; returns the key count. */
static int interp_random_times(float *times, int max_keys)
{
    int n = 1 + rng_below(max_keys), k;
    times[0] = rng_uniform(-5.0f, 5.0f);
    for (k = 1; k < n; ++k) times[k] = times[k - 1] + rng_uniform(0.01f, 1.0f);
    return n;
}

static float interp_quat_component(fk_quat q, int c) { return c == 0 ? q.x : c == 1 ? q.y : c == 2 ? q.z : q.w; }

/* A time anywhere on the track, sometimes outside it, sometimes exactly a key. */
static float interp_random_time(const float *times, int n)
{
    int pick = rng_below(8);
    if (pick == 0) return times[rng_below(n)];
    if (pick == 1) return rng_below(2) ? -INFINITY : INFINITY;
    return rng_uniform(times[0] - 1.0f, times[n - 1] + 1.0f);
}

/* The key at or before a time by a linear scan: the segment a sample uses. */
static int interp_key_before(const float *times, int n, float time)
{
    int k = 0;
    while (k + 1 < n && times[k + 1] <= time) ++k;
    return k;
}

/* glTF's CUBICSPLINE polynomial as the specification writes it, in double, on the
   float inputs. *tolerance receives the bound the float evaluation is held to:
   each basis weight is <= 1 and reached in <= 4 roundings, the four products and
   three sums add <= 4 more, each of relative size eps/2, so together less than
   4 eps times the sum of the terms' magnitudes (counted with weight 1); s itself
   carries <= 3 roundings (two subtractions and the division), which move the
   result by |dp/ds| times that. */
static double interp_cubic_reference(double t0, double t1, double time, double v0, double b0, double a1, double v1,
                                     double *tolerance)
{
    double td = t1 - t0, s = (time - t0) / td, s2 = s * s, s3 = s2 * s;
    double slope = (6 * s2 - 6 * s) * v0 + td * (3 * s2 - 4 * s + 1) * b0 + (-6 * s2 + 6 * s) * v1 +
                   td * (3 * s2 - 2 * s) * a1;
    *tolerance = 4.0 * FLT_EPSILON * (fabs(v0) + fabs(v1) + td * (fabs(b0) + fabs(a1)) + fabs(slope));
    return (2 * s3 - 3 * s2 + 1) * v0 + td * (s3 - 2 * s2 + s) * b0 + (-2 * s3 + 3 * s2) * v1 + td * (s3 - s2) * a1;
}

static void step_holds_each_key_until_the_next(void)
{
    /* Keys 2, 5, -1 at times 0, 1, 3: each value holds from its key to the next. */
    const float times[3] = {0.0f, 1.0f, 3.0f}, values[3] = {2.0f, 5.0f, -1.0f};
    const float at[8] = {-5.0f, 0.0f, 0.5f, 0.999f, 1.0f, 2.9f, 3.0f, 10.0f};
    const float expected[8] = {2.0f, 2.0f, 2.0f, 2.0f, 5.0f, 5.0f, -1.0f, -1.0f};
    int i;
    for (i = 0; i < 8; ++i) {
        float v = 99.0f;
        CHECK(fk_track_evaluate(3, times, values, 1, FK_INTERPOLATION_STEP, at[i], NULL, &v) == FK_OK &&
                  v == expected[i], "STEP at %g gave %g, not %g", at[i], v, expected[i]);
    }
}

static void linear_midpoints_are_averages(void)
{
    /* (0 0 0) at time 0 and (2 4 -6) at time 2: at time 1 exactly (1 2 -3), since
       halving is exact. Rotations 0 and 1 radian about z: halfway is 0.5 radian. */
    const float times[2] = {0.0f, 2.0f};
    const fk_vec3 moves[2] = {{0, 0, 0}, {2, 4, -6}};
    fk_quat turns[2], q;
    fk_vec3 v;
    float w[2] = {0, 0};
    const float weights[4] = {0.0f, 1.0f, 1.0f, 0.5f}; /* two morph weights per key */
    turns[0] = fk_quat_identity();
    turns[1] = fk_quat_from_axis_angle(fk_vec3_make(0, 0, 1), 1.0f);
    CHECK(fk_track_evaluate_vec3(2, times, moves, FK_INTERPOLATION_LINEAR, 1.0f, NULL, &v) == FK_OK &&
              v.x == 1.0f && v.y == 2.0f && v.z == -3.0f, "vector midpoint is (%g %g %g)", v.x, v.y, v.z);
    CHECK(fk_track_evaluate_quat(2, times, turns, FK_INTERPOLATION_LINEAR, FK_INTERPOLATE_SLERP, 1.0f, NULL, &q) ==
              FK_OK && fabsf(q.z - sinf(0.25f)) < 2 * FLT_EPSILON && fabsf(q.w - cosf(0.25f)) < 2 * FLT_EPSILON,
          "rotation midpoint is not half a radian");
    CHECK(fk_track_evaluate(2, times, weights, 2, FK_INTERPOLATION_LINEAR, 1.0f, NULL, w) == FK_OK &&
              w[0] == 0.5f && w[1] == 0.75f, "weight midpoints are %g %g", w[0], w[1]);
}

static void cubic_with_zero_tangents_is_smoothstep(void)
{
    /* Values 1 at time 2 and 5 at time 4, zero tangents: p = 1 + 4 (3s^2 - 2s^3).
       At s = 1/4, 1/2, 3/4 that is 1.625, 3, 4.375, all exact in float. */
    const float times[2] = {2.0f, 4.0f};
    const float keys[6] = {0.0f, 1.0f, 0.0f, 0.0f, 5.0f, 0.0f}; /* a v b per key */
    const float at[3] = {2.5f, 3.0f, 3.5f}, expected[3] = {1.625f, 3.0f, 4.375f};
    int i;
    for (i = 0; i < 3; ++i) {
        float v = 0.0f;
        CHECK(fk_track_evaluate(2, times, keys, 1, FK_INTERPOLATION_CUBICSPLINE, at[i], NULL, &v) == FK_OK &&
                  v == expected[i], "smoothstep at %g gave %g, not %g", at[i], v, expected[i]);
    }
}

static void cubic_with_line_slopes_reproduces_the_line(void)
{
    /* Keys on a line c + m t with both tangents m (glTF's tangents are per unit of
       time): the Hermite curve is the line itself. The keys' values are rounded to
       float, which adds eps/2 of their size to the reference's tolerance. */
    float times[INTERP_MAX_KEYS], keys[3 * INTERP_MAX_KEYS];
    int trial, k;
    rng_restart();
    for (trial = 0; trial < INTERP_TRIALS; ++trial) {
        int n = interp_random_times(times, INTERP_MAX_KEYS);
        double c = rng_uniform(-3.0f, 3.0f), m = rng_uniform(-3.0f, 3.0f), tolerance, expected;
        float time = interp_random_time(times, n), v = 0.0f;
        for (k = 0; k < n; ++k) {
            keys[3 * k] = keys[3 * k + 2] = (float)m;
            keys[3 * k + 1] = (float)(c + m * times[k]);
        }
        CHECK(fk_track_evaluate(n, times, keys, 1, FK_INTERPOLATION_CUBICSPLINE, time, NULL, &v) == FK_OK, "failed");
        k = interp_key_before(times, n, time);
        if (time <= times[0] || time >= times[n - 1]) {
            CHECK(v == keys[3 * k + 1], "outside the keys the value is not the end key's (seed %lu)", seed);
            continue;
        }
        interp_cubic_reference(times[k], times[k + 1], time, keys[3 * k + 1], m, m, keys[3 * k + 4], &tolerance);
        expected = c + m * time;
        tolerance += FLT_EPSILON * (fabs(keys[3 * k + 1]) + fabs(keys[3 * k + 4]));
        CHECK(fabs(v - expected) <= tolerance, "line %g + %g t at %g: %.9g, not %.9g (seed %lu)", c, m, time, v,
              expected, seed);
    }
}

static void cubic_hits_its_values_at_keys_and_matches_gltf(void)
{
    /* Random tracks of up to 6 components with random tangents, against the
       specification's polynomial in double; at a key, exactly the key's value. */
    float times[INTERP_MAX_KEYS], keys[3 * INTERP_MAX_KEYS * INTERP_MAX_COMPONENTS], out[INTERP_MAX_COMPONENTS];
    int trial, k, c;
    rng_restart();
    for (trial = 0; trial < INTERP_TRIALS; ++trial) {
        int n = interp_random_times(times, INTERP_MAX_KEYS), components = 1 + rng_below(INTERP_MAX_COMPONENTS);
        int key = rng_below(n);
        float time = interp_random_time(times, n);
        for (k = 0; k < 3 * n * components; ++k) keys[k] = rng_uniform(-4.0f, 4.0f);
        CHECK(fk_track_evaluate(n, times, keys, components, FK_INTERPOLATION_CUBICSPLINE, times[key], NULL, out) ==
                  FK_OK, "failed");
        for (c = 0; c < components; ++c)
            CHECK(out[c] == keys[(3 * key + 1) * components + c], "key %d of %d not hit (seed %lu)", key, n, seed);
        CHECK(fk_track_evaluate(n, times, keys, components, FK_INTERPOLATION_CUBICSPLINE, time, NULL, out) == FK_OK,
              "failed");
        k = interp_key_before(times, n, time);
        for (c = 0; c < components; ++c) {
            const float *now = keys + 3 * k * components, *next = now + 3 * components;
            double tolerance, expected;
            if (time <= times[0] || time >= times[n - 1]) {
                CHECK(out[c] == now[components + c], "outside the keys the value is not the end key's (seed %lu)",
                      seed);
                continue;
            }
            expected = interp_cubic_reference(times[k], times[k + 1], time, now[components + c],
                                              now[2 * components + c], next[c], next[components + c], &tolerance);
            CHECK(fabs(out[c] - expected) <= tolerance, "component %d at %g: %.9g, glTF says %.9g (seed %lu)", c,
                  time, out[c], expected, seed);
        }
    }
}

static void cubic_rotations_are_unit_and_follow_the_curve(void)
{
    /* The curve on the four components, normalized after: unit to a few roundings
       (the normalization's square root and division), and the direction of the
       double curve within its tolerance divided by its length. */
    float times[INTERP_MAX_KEYS];
    fk_quat keys[3 * INTERP_MAX_KEYS], q;
    int trial, k;
    rng_restart();
    for (trial = 0; trial < INTERP_TRIALS; ++trial) {
        int n = interp_random_times(times, INTERP_MAX_KEYS), c;
        float time = interp_random_time(times, n), length;
        double p[4], tolerance[4], norm = 0.0, worst = 0.0;
        for (k = 0; k < n; ++k) {
            keys[3 * k + 1] = random_quat();
            keys[3 * k] = fk_quat_make(rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1));
            keys[3 * k + 2] = fk_quat_make(rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1));
        }
        if (fk_track_evaluate_quat(n, times, keys, FK_INTERPOLATION_CUBICSPLINE, FK_INTERPOLATE_SLERP, time, NULL, &q) !=
            FK_OK)
            continue; /* the curve may pass near zero: FK_ERROR_INVALID_ROTATION is right there */
        length = fk_quat_length(q);
        CHECK(fabsf(length - 1.0f) <= 4 * FLT_EPSILON, "cubic rotation has length %.9g (seed %lu)", length, seed);
        k = interp_key_before(times, n, time);
        if (time <= times[0] || time >= times[n - 1]) continue;
        for (c = 0; c < 4; ++c) {
            p[c] = interp_cubic_reference(times[k], times[k + 1], time, interp_quat_component(keys[3 * k + 1], c),
                                          interp_quat_component(keys[3 * k + 2], c),
                                          interp_quat_component(keys[3 * k + 3], c),
                                          interp_quat_component(keys[3 * k + 4], c), &tolerance[c]);
            norm += p[c] * p[c];
            if (tolerance[c] > worst) worst = tolerance[c];
        }
        norm = sqrt(norm);
        if (norm < 0.1) continue; /* near zero the direction is ill-conditioned */
        CHECK(fabs(q.x - p[0] / norm) + fabs(q.y - p[1] / norm) + fabs(q.z - p[2] / norm) + fabs(q.w - p[3] / norm) <=
                  8.0 * worst / norm + 8.0 * FLT_EPSILON,
              "cubic rotation is off the normalized curve (seed %lu)", seed);
    }
}

static void cursor_gives_the_same_bits_as_no_cursor(void)
{
    /* Random walks (small steps forward, back, jumps, keys, infinities) from
       garbage cursors: every sample equals the cursor-less one bit for bit, and
       the cursor ends at the key at or before the time. */
    static const int garbage[6] = {INT_MIN, -1, 0, INT_MAX, 1000, 3};
    float times[INTERP_MAX_KEYS], floats[3 * INTERP_MAX_KEYS * 2];
    fk_vec3 vectors[3 * INTERP_MAX_KEYS];
    fk_quat turns[3 * INTERP_MAX_KEYS];
    int trial, k;
    rng_restart();
    for (trial = 0; trial < INTERP_TRIALS; ++trial) {
        int n = interp_random_times(times, INTERP_MAX_KEYS), step;
        const fk_interpolation mode = (fk_interpolation)rng_below(3);
        int cursor = garbage[rng_below(6)];
        float time = interp_random_time(times, n);
        for (k = 0; k < 3 * n; ++k) {
            vectors[k] = random_vec3(2.0f);
            turns[k] = random_quat();
            floats[2 * k] = rng_uniform(-1, 1); floats[2 * k + 1] = rng_uniform(-1, 1);
        }
        for (step = 0; step < 40; ++step) {
            int pick = rng_below(10), before, expected_key;
            fk_vec3 v, v_reference;
            fk_quat q, q_reference;
            float f[2], f_reference[2];
            fk_result r1, r2;
            if (pick < 6) time += rng_uniform(0.0f, 0.3f);
            else if (pick < 8) time -= rng_uniform(0.0f, 0.3f);
            else time = interp_random_time(times, n);
            expected_key = interp_key_before(times, n, time);
            before = cursor;
            r1 = fk_track_evaluate_vec3(n, times, vectors, mode, time, &cursor, &v);
            r2 = fk_track_evaluate_vec3(n, times, vectors, mode, time, NULL, &v_reference);
            CHECK(r1 == FK_OK && r2 == FK_OK && memcmp(&v, &v_reference, sizeof v) == 0,
                  "vector with cursor %d differs at %g (seed %lu)", before, time, seed);
            CHECK(cursor == expected_key, "cursor %d, not %d, at %g (seed %lu)", cursor, expected_key, time, seed);
            cursor = step % 7 == 6 ? garbage[rng_below(6)] : cursor;
            before = cursor;
            r1 = fk_track_evaluate_quat(n, times, turns, mode, FK_INTERPOLATE_NLERP, time, &cursor, &q);
            r2 = fk_track_evaluate_quat(n, times, turns, mode, FK_INTERPOLATE_NLERP, time, NULL, &q_reference);
            CHECK(r1 == r2 && (r1 != FK_OK || memcmp(&q, &q_reference, sizeof q) == 0),
                  "rotation with cursor %d differs at %g (seed %lu)", before, time, seed);
            before = cursor;
            r1 = fk_track_evaluate(n, times, floats, 2, mode, time, &cursor, f);
            r2 = fk_track_evaluate(n, times, floats, 2, mode, time, NULL, f_reference);
            CHECK(r1 == FK_OK && r2 == FK_OK && memcmp(f, f_reference, sizeof f) == 0,
                  "weights with cursor %d differ at %g (seed %lu)", before, time, seed);
        }
    }
}

static void forward_playback_reads_only_the_keys_at_the_cursor(void)
{
    /* Every key time and value other than the first and last times and keys g,
       g + 1, g + 2 is NaN: a sample in [t_g, t_{g+2}) from cursor g must not look
       at them (a bisection would), so it succeeds, with the clean track's bits,
       and keeps the cursor or moves it by one. That is O(1) per forward sample. */
    float times[INTERP_MAX_KEYS], poisoned_times[INTERP_MAX_KEYS];
    float keys[3 * INTERP_MAX_KEYS * 2], poisoned_keys[3 * INTERP_MAX_KEYS * 2];
    int trial, k;
    rng_restart();
    for (trial = 0; trial < INTERP_TRIALS; ++trial) {
        int n = 8 + rng_below(INTERP_MAX_KEYS - 8), g = 1 + rng_below(n - 5), next, cursor;
        const fk_interpolation mode = (fk_interpolation)rng_below(3);
        const int per_key = mode == FK_INTERPOLATION_CUBICSPLINE ? 6 : 2; /* floats per key: a v b, or v */
        float time, clean[2], played[2] = {0, 0};
        times[0] = 0.0f;
        for (k = 1; k < n; ++k) times[k] = times[k - 1] + rng_uniform(0.01f, 1.0f);
        for (k = 0; k < 6 * n; ++k) keys[k] = rng_uniform(-2, 2);
        for (k = 0; k < n; ++k) poisoned_times[k] = k == 0 || k == n - 1 || (k >= g && k <= g + 2) ? times[k] : NAN;
        for (k = 0; k < 6 * n; ++k) poisoned_keys[k] = (k / per_key >= g && k / per_key <= g + 2) ? keys[k] : NAN;
        for (next = 0; next < 2; ++next) {
            time = rng_uniform(times[g + next], times[g + next + 1]);
            if (time >= times[g + next + 1]) time = times[g + next];
            cursor = g;
            CHECK(fk_track_evaluate(n, times, keys, 2, mode, time, NULL, clean) == FK_OK, "failed");
            CHECK(fk_track_evaluate(n, poisoned_times, poisoned_keys, 2, mode, time, &cursor, played) == FK_OK &&
                      memcmp(clean, played, sizeof clean) == 0 && cursor == g + next,
                  "playing from key %d to %g read other keys (cursor now %d, seed %lu)", g, time, cursor, seed);
        }
    }
}

static void morph_weights_sample_like_separate_tracks(void)
{
    /* N weights per key sample as N one-component tracks would, bit for bit, in
       every mode: the layout a_k (N), v_k (N), b_k (N) is read per component. */
    float times[INTERP_MAX_KEYS], weights[3 * INTERP_MAX_KEYS * INTERP_MAX_COMPONENTS], single[3 * INTERP_MAX_KEYS];
    int trial, k, c;
    rng_restart();
    for (trial = 0; trial < INTERP_TRIALS; ++trial) {
        int n = interp_random_times(times, INTERP_MAX_KEYS), targets = 1 + rng_below(INTERP_MAX_COMPONENTS);
        const fk_interpolation mode = (fk_interpolation)rng_below(3);
        const int elements = mode == FK_INTERPOLATION_CUBICSPLINE ? 3 * n : n;
        float time = interp_random_time(times, n), all[INTERP_MAX_COMPONENTS], one = 0.0f;
        for (k = 0; k < elements * targets; ++k) weights[k] = rng_uniform(0.0f, 1.0f);
        CHECK(fk_track_evaluate(n, times, weights, targets, mode, time, NULL, all) == FK_OK, "failed");
        for (c = 0; c < targets; ++c) {
            for (k = 0; k < elements; ++k) single[k] = weights[k * targets + c];
            CHECK(fk_track_evaluate(n, times, single, 1, mode, time, NULL, &one) == FK_OK && one == all[c],
                  "target %d of %d: %g alone, %g together (seed %lu)", c, targets, one, all[c], seed);
        }
    }
}

static void linear_keeps_the_old_samplers_bits(void)
{
    /* fk_track_sample_vec3()/_quat() as they were written before the cursor
       (scan for the pair, (1 - u) a + u b, slerp of the normalized keys), and the
       new LINEAR samplers, give the same bits; so do fk_track_evaluate() with
       three components and fk_track_evaluate_vec3(). Bits are compared across
       the library and this file, so the build must not fuse a multiply and an
       add of two statements (ISO C modes do not; -ffp-contract=fast may). */
    float times[INTERP_MAX_KEYS];
    fk_vec3 vectors[INTERP_MAX_KEYS], v, v_new, v_old;
    fk_quat turns[INTERP_MAX_KEYS], q, q_new, q_old;
    float flat[3 * INTERP_MAX_KEYS], floats[3];
    int trial, k;
    rng_restart();
    for (trial = 0; trial < INTERP_TRIALS; ++trial) {
        int n = interp_random_times(times, INTERP_MAX_KEYS);
        const fk_rotation_interpolation method = rng_below(2) ? FK_INTERPOLATE_SLERP : FK_INTERPOLATE_NLERP;
        float time = interp_random_time(times, n);
        for (k = 0; k < n; ++k) {
            vectors[k] = random_vec3(3.0f);
            flat[3 * k] = vectors[k].x; flat[3 * k + 1] = vectors[k].y; flat[3 * k + 2] = vectors[k].z;
            turns[k] = fk_quat_make(rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1), 1.0f); /* not unit */
        }
        k = interp_key_before(times, n, time);
        if (time <= times[0] || time >= times[n - 1]) {
            v_old = vectors[k];
            q_old = fk_quat_normalize(turns[k]);
        } else {
            float u = (time - times[k]) / (times[k + 1] - times[k]);
            fk_quat a = fk_quat_normalize(turns[k]), b = fk_quat_normalize(turns[k + 1]);
            v_old = fk_vec3_add(fk_vec3_scale(vectors[k], 1.0f - u), fk_vec3_scale(vectors[k + 1], u));
            q_old = method == FK_INTERPOLATE_NLERP ? fk_quat_nlerp(a, b, u) : fk_quat_slerp(a, b, u);
        }
        CHECK(fk_track_sample_vec3(n, times, vectors, time, &v) == FK_OK && memcmp(&v, &v_old, sizeof v) == 0,
              "fk_track_sample_vec3 changed its bits at %g (seed %lu)", time, seed);
        CHECK(fk_track_evaluate_vec3(n, times, vectors, FK_INTERPOLATION_LINEAR, time, NULL, &v_new) == FK_OK &&
                  memcmp(&v_new, &v_old, sizeof v) == 0, "LINEAR vectors differ from the old sampler (seed %lu)", seed);
        CHECK(fk_track_evaluate(n, times, flat, 3, FK_INTERPOLATION_LINEAR, time, NULL, floats) == FK_OK &&
                  floats[0] == v_new.x && floats[1] == v_new.y && floats[2] == v_new.z,
              "three floats differ from a vector (seed %lu)", seed);
        CHECK(fk_track_sample_quat(n, times, turns, time, method, &q) == FK_OK && memcmp(&q, &q_old, sizeof q) == 0,
              "fk_track_sample_quat changed its bits at %g (seed %lu)", time, seed);
        CHECK(fk_track_evaluate_quat(n, times, turns, FK_INTERPOLATION_LINEAR, method, time, NULL, &q_new) == FK_OK &&
                  memcmp(&q_new, &q_old, sizeof q) == 0, "LINEAR rotations differ from the old sampler (seed %lu)",
              seed);
    }
}

static void track_evaluation_refuses_bad_input(void)
{
    const float times[3] = {0.0f, 1.0f, 2.0f}, unsorted[2] = {2.0f, 1.0f}, nan_first[2] = {NAN, 1.0f};
    const float infinite_inside[3] = {0.0f, INFINITY, 2.0f};
    const float values[3] = {1.0f, 2.0f, 3.0f}, nan_unread[3] = {1.0f, 2.0f, NAN};
    const float late_nan[6] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, NAN}; /* 3 components, 2 keys; the last one NaN */
    const float huge_tangent[6] = {0.0f, 0.0f, FLT_MAX, 0.0f, 0.0f, 0.0f}; /* b_0 = FLT_MAX, t_d = 1000 */
    const float long_keys[2] = {0.0f, 1000.0f};
    const fk_vec3 moves[3] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}};
    const fk_quat turns[3] = {{0, 0, 0, 1}, {0, 0, 0, 0}, {0, 0, 0, 1}};
    const fk_quat opposite[6] = {{0, 0, 0, 0}, {0, 0, 0, 1}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, -1}, {0, 0, 0, 0}};
    float out[3] = {7.0f, 7.0f, 7.0f};
    fk_vec3 v = {7, 7, 7};
    fk_quat q = {7, 7, 7, 7};
    int cursor = 1;
#define UNTOUCHED (out[0] == 7.0f && out[1] == 7.0f && out[2] == 7.0f && cursor == 1)
    CHECK(fk_track_evaluate(3, NULL, values, 1, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) ==
              FK_ERROR_NULL_ARGUMENT && UNTOUCHED, "NULL times accepted");
    CHECK(fk_track_evaluate(3, times, NULL, 1, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) ==
              FK_ERROR_NULL_ARGUMENT && UNTOUCHED, "NULL values accepted");
    CHECK(fk_track_evaluate(3, times, values, 1, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, NULL) ==
              FK_ERROR_NULL_ARGUMENT && UNTOUCHED, "NULL out accepted");
    CHECK(fk_track_evaluate(0, times, values, 1, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) ==
              FK_ERROR_INVALID_COUNT && UNTOUCHED, "no keys accepted");
    CHECK(fk_track_evaluate(3, times, values, 0, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) ==
              FK_ERROR_INVALID_COUNT && UNTOUCHED, "no components accepted");
    CHECK(fk_track_evaluate(3, times, values, 1, (fk_interpolation)3, 0.5f, &cursor, out) ==
              FK_ERROR_INVALID_OPTION && UNTOUCHED, "an unnamed interpolation accepted");
    CHECK(fk_track_evaluate(3, times, values, 1, FK_INTERPOLATION_LINEAR, NAN, &cursor, out) == FK_ERROR_NOT_FINITE &&
              UNTOUCHED, "NaN time accepted");
    CHECK(fk_track_evaluate(2, unsorted, values, 1, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) ==
              FK_ERROR_KEYS_NOT_ASCENDING && UNTOUCHED, "a last key before the first accepted");
    CHECK(fk_track_evaluate(2, nan_first, values, 1, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) ==
              FK_ERROR_KEYS_NOT_ASCENDING && UNTOUCHED, "a NaN first key accepted");
    CHECK(fk_track_evaluate(3, infinite_inside, values, 1, FK_INTERPOLATION_LINEAR, 1.0f, &cursor, out) ==
              FK_ERROR_KEYS_NOT_ASCENDING && UNTOUCHED, "an infinite key met between keys accepted");
    CHECK(fk_track_evaluate(3, times, nan_unread, 1, FK_INTERPOLATION_LINEAR, 1.5f, &cursor, out) ==
              FK_ERROR_NOT_FINITE && UNTOUCHED, "a NaN value met accepted");
    CHECK(fk_track_evaluate(3, times, nan_unread, 1, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) == FK_OK &&
              out[0] == 1.5f && cursor == 0, "a NaN value that is not read refused");
    out[0] = 7.0f; cursor = 1;
    CHECK(fk_track_evaluate(2, times, late_nan, 3, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) ==
              FK_ERROR_NOT_FINITE && UNTOUCHED, "components written before the last one was checked");
    CHECK(fk_track_evaluate(2, long_keys, huge_tangent, 1, FK_INTERPOLATION_CUBICSPLINE, 500.0f, &cursor, out) ==
              FK_ERROR_NOT_FINITE && UNTOUCHED, "a cubic that overflows accepted");
    CHECK(fk_track_evaluate_vec3(3, times, moves, (fk_interpolation)-1, 0.5f, &cursor, &v) ==
              FK_ERROR_INVALID_OPTION && v.x == 7.0f && cursor == 1, "an unnamed interpolation accepted for vectors");
    CHECK(fk_track_evaluate_vec3(3, times, NULL, FK_INTERPOLATION_STEP, 0.5f, &cursor, &v) == FK_ERROR_NULL_ARGUMENT &&
              v.x == 7.0f && cursor == 1, "NULL vectors accepted");
    CHECK(fk_track_evaluate_quat(3, times, turns, FK_INTERPOLATION_LINEAR, (fk_rotation_interpolation)5, 0.5f, &cursor,
                                 &q) == FK_ERROR_INVALID_OPTION && q.w == 7.0f && cursor == 1,
          "an unnamed rotation method accepted");
    CHECK(fk_track_evaluate_quat(3, times, turns, FK_INTERPOLATION_STEP, FK_INTERPOLATE_SLERP, 1.5f, &cursor, &q) ==
              FK_ERROR_INVALID_ROTATION && q.w == 7.0f && cursor == 1, "a zero rotation key met accepted");
    CHECK(fk_track_evaluate_quat(2, times, opposite, FK_INTERPOLATION_CUBICSPLINE, FK_INTERPOLATE_SLERP, 0.5f, &cursor,
                                 &q) == FK_ERROR_INVALID_ROTATION && q.w == 7.0f && cursor == 1,
          "a cubic rotation through zero accepted");
#undef UNTOUCHED
}

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
    RUN_TEST(step_holds_each_key_until_the_next);
    RUN_TEST(linear_midpoints_are_averages);
    RUN_TEST(cubic_with_zero_tangents_is_smoothstep);
    RUN_TEST(cubic_with_line_slopes_reproduces_the_line);
    RUN_TEST(cubic_hits_its_values_at_keys_and_matches_gltf);
    RUN_TEST(cubic_rotations_are_unit_and_follow_the_curve);
    RUN_TEST(cursor_gives_the_same_bits_as_no_cursor);
    RUN_TEST(forward_playback_reads_only_the_keys_at_the_cursor);
    RUN_TEST(morph_weights_sample_like_separate_tracks);
    RUN_TEST(linear_keeps_the_old_samplers_bits);
    RUN_TEST(track_evaluation_refuses_bad_input);

    /* morph targets */

    return check_finish();
}
