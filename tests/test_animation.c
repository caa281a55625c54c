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

#include <float.h> /* FLT_EPSILON; here, so that the sections merge without conflicts */

#define ROOT_MAX_KEYS 16
#define ROOT_MAX_JOINTS 6

/* A rigid transform in double, for the closed forms the tests compare with. */
typedef struct root_rigid_double {
    double q[4], t[3];
} root_rigid_double;

static root_rigid_double root_double_of(fk_quat q, fk_vec3 t)
{
    root_rigid_double r;
    double n = sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w);
    r.q[0] = q.x / n; r.q[1] = q.y / n; r.q[2] = q.z / n; r.q[3] = q.w / n;
    r.t[0] = t.x; r.t[1] = t.y; r.t[2] = t.z;
    return r;
}

static void root_rotate_double(const double q[4], const double v[3], double out[3])
{
    /* q v q* through the rotation matrix, a different route from the library's */
    double x = q[0], y = q[1], z = q[2], w = q[3], r[3];
    r[0] = (1 - 2 * (y * y + z * z)) * v[0] + 2 * (x * y - z * w) * v[1] + 2 * (x * z + y * w) * v[2];
    r[1] = 2 * (x * y + z * w) * v[0] + (1 - 2 * (x * x + z * z)) * v[1] + 2 * (y * z - x * w) * v[2];
    r[2] = 2 * (x * z - y * w) * v[0] + 2 * (y * z + x * w) * v[1] + (1 - 2 * (x * x + y * y)) * v[2];
    out[0] = r[0]; out[1] = r[1]; out[2] = r[2];
}

static root_rigid_double root_mul_double(root_rigid_double a, root_rigid_double b)
{
    root_rigid_double r;
    double n;
    int c;
    r.q[0] = a.q[3] * b.q[0] + a.q[0] * b.q[3] + a.q[1] * b.q[2] - a.q[2] * b.q[1];
    r.q[1] = a.q[3] * b.q[1] - a.q[0] * b.q[2] + a.q[1] * b.q[3] + a.q[2] * b.q[0];
    r.q[2] = a.q[3] * b.q[2] + a.q[0] * b.q[1] - a.q[1] * b.q[0] + a.q[2] * b.q[3];
    r.q[3] = a.q[3] * b.q[3] - a.q[0] * b.q[0] - a.q[1] * b.q[1] - a.q[2] * b.q[2];
    n = sqrt(r.q[0] * r.q[0] + r.q[1] * r.q[1] + r.q[2] * r.q[2] + r.q[3] * r.q[3]);
    for (c = 0; c < 4; ++c) r.q[c] /= n;
    root_rotate_double(a.q, b.t, r.t);
    for (c = 0; c < 3; ++c) r.t[c] += a.t[c];
    return r;
}

static root_rigid_double root_inverse_double(root_rigid_double a)
{
    root_rigid_double r;
    int c;
    r.q[0] = -a.q[0]; r.q[1] = -a.q[1]; r.q[2] = -a.q[2]; r.q[3] = a.q[3];
    root_rotate_double(r.q, a.t, r.t);
    for (c = 0; c < 3; ++c) r.t[c] = -r.t[c];
    return r;
}

/* Distances: the largest translation difference, and the angle between the
   rotations (q and -q alike). */
static double root_translation_error(root_rigid_double a, root_rigid_double b)
{
    return fmax(fmax(fabs(a.t[0] - b.t[0]), fabs(a.t[1] - b.t[1])), fabs(a.t[2] - b.t[2]));
}

/* 4 atan2(|a - b|, |a + b|) for unit a, b in one hemisphere: well conditioned
   near 0, where 2 acos(a . b) loses half the digits. */
static double root_angle_between(const double a[4], const double b[4])
{
    double na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
    double nb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
    double sign = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1.0 : 1.0, minus = 0, plus = 0;
    int c;
    for (c = 0; c < 4; ++c) {
        double u = a[c] / na, v = sign * b[c] / nb;
        minus += (u - v) * (u - v);
        plus += (u + v) * (u + v);
    }
    return 4.0 * atan2(sqrt(minus), sqrt(plus));
}

static float root_quat_difference(fk_quat a, fk_quat b)
{
    float same = fmaxf(fmaxf(fabsf(a.x - b.x), fabsf(a.y - b.y)), fmaxf(fabsf(a.z - b.z), fabsf(a.w - b.w)));
    float opposite = fmaxf(fmaxf(fabsf(a.x + b.x), fabsf(a.y + b.y)), fmaxf(fabsf(a.z + b.z), fabsf(a.w + b.w)));
    return fminf(same, opposite);
}

static float root_vec3_difference(fk_vec3 a, fk_vec3 b)
{
    return fmaxf(fmaxf(fabsf(a.x - b.x), fabsf(a.y - b.y)), fabsf(a.z - b.z));
}

/* The twist of q about unit u, by the definition (u (u . v), w) normalized; the
   test's own double computation. Returns the norm before normalizing. */
static double root_twist(fk_quat q, fk_vec3 u, double out[4])
{
    double along = (double)q.x * u.x + (double)q.y * u.y + (double)q.z * u.z, n;
    out[0] = along * u.x; out[1] = along * u.y; out[2] = along * u.z; out[3] = q.w;
    n = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
    if (n > 0) { out[0] /= n; out[1] /= n; out[2] /= n; out[3] /= n; }
    return n;
}

static fk_quat root_yaw(float angle) { return fk_quat_from_axis_angle(fk_vec3_make(0, 1, 0), angle); }

/* A root at rest at x = (0, 1, 0) walks +z at 1 unit/s for 4 s (keys each second)
   while turning about y at 0.3 rad/s, bobbing (y = 0.1 sin k) and pitching
   (+-0.1 rad about x, applied before the yaw). Ground motion (x, z) with yaw:
   by hand, motion k is {yaw(0.3 k), (0, 0, k)} (s_0 = 0) and the in-place key is
   yaw(0.3 k)* q_k = the pitch alone, at d' = yaw* (0, 1 + bob, 0) - x = (0, bob, 0),
   since a yaw leaves vertical vectors alone. Every value is computed in double
   and rounded once, against expectations rounded once in float: 4 ulps of the
   largest value (4) bound the difference.
   Then the deltas: slerp of yaw(0.3 t) keys is yaw(0.3 t) exactly, so from 0.5 s
   to 3.5 s the character turns yaw(0.9) and walks 3 along its heading at 0.5 s
   seen from there, rot(yaw(-0.15), (0, 0, 3)) = (3 sin(-0.15), 0, 3 cos(-0.15));
   from 3.5 s through the loop's end to 0.5 s (one loop, L = M(4) = {yaw(1.2),
   (0, 0, 4)}) it turns yaw(0.3) and walks 0.5 at heading -1.05 (the half second
   before the end, seen from 3.5 s) plus 0.5 at heading 0.15 (the half second
   after the start, after the loop's turn 1.2 - 1.05):
   0.5 (sin(-1.05) + sin(0.15), 0, cos(-1.05) + cos(0.15)). */
static void root_motion_worked_example_walks_and_turns(void)
{
    const float times[5] = {0, 1, 2, 3, 4};
    const float tolerance = 4.0f * 4.0f * FLT_EPSILON;
    fk_quat q[5], motion_q[5], in_place_q[5];
    fk_vec3 d[5], motion_t[5], in_place_d[5], x = fk_vec3_make(0, 1, 0), up = fk_vec3_make(0, 1, 0);
    fk_rigid delta;
    int k;
    for (k = 0; k < 5; ++k) {
        fk_quat pitch = fk_quat_from_axis_angle(fk_vec3_make(1, 0, 0), k % 2 ? -0.1f : 0.1f);
        q[k] = fk_quat_mul(root_yaw(0.3f * (float)k), pitch);
        d[k] = fk_vec3_make(0, 0.1f * sinf((float)k), (float)k);
    }
    CHECK(fk_root_motion_extract(5, x, q, d, FK_ROOT_MOTION_X | FK_ROOT_MOTION_Z, FK_ROOT_ROTATION_YAW, up,
                                 motion_q, motion_t, in_place_q, in_place_d) == FK_OK, "extraction failed");
    for (k = 0; k < 5; ++k) {
        fk_quat pitch = fk_quat_from_axis_angle(fk_vec3_make(1, 0, 0), k % 2 ? -0.1f : 0.1f);
        CHECK(root_quat_difference(motion_q[k], root_yaw(0.3f * (float)k)) <= tolerance, "key %d: motion yaw wrong", k);
        CHECK(root_vec3_difference(motion_t[k], fk_vec3_make(0, 0, (float)k)) <= tolerance, "key %d: walk wrong", k);
        CHECK(root_quat_difference(in_place_q[k], pitch) <= tolerance, "key %d: in-place pitch wrong", k);
        CHECK(root_vec3_difference(in_place_d[k], fk_vec3_make(0, d[k].y, 0)) <= tolerance, "key %d: bob wrong", k);
    }
    CHECK(fk_root_motion_delta(5, times, motion_q, motion_t, 0.5f, 3.5f, 0, &delta) == FK_OK, "delta failed");
    CHECK(root_quat_difference(delta.q, root_yaw(0.9f)) <= tolerance, "turn from 0.5 s to 3.5 s is not yaw(0.9)");
    CHECK(root_vec3_difference(delta.t, fk_vec3_make(3 * sinf(-0.15f), 0, 3 * cosf(-0.15f))) <= tolerance,
          "walk from 0.5 s to 3.5 s is (%g %g %g)", delta.t.x, delta.t.y, delta.t.z);
    CHECK(fk_root_motion_delta(5, times, motion_q, motion_t, 3.5f, 0.5f, 1, &delta) == FK_OK, "loop delta failed");
    CHECK(root_quat_difference(delta.q, root_yaw(0.3f)) <= tolerance, "turn through the loop is not yaw(0.3)");
    CHECK(root_vec3_difference(delta.t, fk_vec3_make(0.5f * (sinf(-1.05f) + sinf(0.15f)), 0,
                                                     0.5f * (cosf(-1.05f) + cosf(0.15f)))) <= tolerance,
          "walk through the loop is (%g %g %g)", delta.t.x, delta.t.y, delta.t.z);
}

/* A random root clip: keys of a root at a random rest position. */
static void root_random_clip(int key_count, fk_vec3 *x, fk_quat *q, fk_vec3 *d)
{
    int k;
    *x = random_vec3(2.0f);
    for (k = 0; k < key_count; ++k) { q[k] = random_quat(); d[k] = random_vec3(3.0f); }
}

/* Recombination, over random clips, options and skeletons in any joint order,
   in both rotation-frame conventions: placing the skeleton posed with the
   in-place clip by the motion, fk_rigid_mul(M_k, T'_i), gives back the
   transforms T_i of the original pose, for every joint. A root's rotation is
   the same in both conventions; in the parent frame the children follow their
   root, in the rest frame their world-aligned rotations are turned into the
   in-place frame, m_k* q_i m_k, as fk_root_motion_extract() documents. Key 0's
   motion is the identity bit for bit. Tolerance: each side is a chain of at
   most ROOT_MAX_JOINTS + 1 rigid products in float, each rounding by a few ulps
   of the largest coordinate involved (below 16 for these sizes): 8 ulps per
   product of 16. */
static void root_motion_recombines_to_the_original(void)
{
    const float tolerance = 8.0f * (float)(ROOT_MAX_JOINTS + 1) * 16.0f * FLT_EPSILON;
    int trial;
    rng_restart();
    for (trial = 0; trial < 200; ++trial) {
        int key_count = 1 + rng_below(ROOT_MAX_KEYS), joint_count = 1 + rng_below(ROOT_MAX_JOINTS), root = 0;
        int axes = rng_below(8), frame, k, i, parents[ROOT_MAX_JOINTS];
        fk_root_motion_rotation mode = (fk_root_motion_rotation)rng_below(3);
        fk_vec3 x, d[ROOT_MAX_KEYS], motion_t[ROOT_MAX_KEYS], in_place_d[ROOT_MAX_KEYS], rest[ROOT_MAX_JOINTS];
        fk_vec3 up = random_vec3(1.0f), joint_d[ROOT_MAX_JOINTS];
        fk_quat q[ROOT_MAX_KEYS], motion_q[ROOT_MAX_KEYS], in_place_q[ROOT_MAX_KEYS], rotations[ROOT_MAX_JOINTS];
        root_random_clip(key_count, &x, q, d);
        CHECK(fk_root_motion_extract(key_count, x, q, d, axes, mode, up, motion_q, motion_t, in_place_q, in_place_d) ==
                  FK_OK, "extraction failed (seed %lu)", seed);
        CHECK(motion_q[0].x == 0 && motion_q[0].y == 0 && motion_q[0].z == 0 && motion_q[0].w == 1 &&
                  motion_t[0].x == 0 && motion_t[0].y == 0 && motion_t[0].z == 0,
              "key 0's motion is not the identity (seed %lu)", seed);
        /* a chain below a root listed anywhere: joint i's parent is the one before
           it in a random order */
        {
            int order[ROOT_MAX_JOINTS];
            for (i = 0; i < joint_count; ++i) order[i] = i;
            for (i = joint_count - 1; i > 0; --i) {
                int j = rng_below(i + 1), swap = order[i];
                order[i] = order[j]; order[j] = swap;
            }
            root = order[0];
            for (i = 0; i < joint_count; ++i) parents[order[i]] = i == 0 ? -1 : order[rng_below(i)];
        }
        for (i = 0; i < joint_count; ++i) { rest[i] = random_vec3(2.0f); rotations[i] = random_quat(); joint_d[i] = random_vec3(0.3f); }
        rest[root] = x;
        for (frame = 0; frame < 2; ++frame)
            for (k = 0; k < key_count; ++k) {
                fk_rigid original[ROOT_MAX_JOINTS], in_place[ROOT_MAX_JOINTS];
                fk_rigid motion = fk_rigid_make(motion_q[k], motion_t[k]);
                fk_result (*forward)(int, const int *, const fk_vec3 *, const fk_quat *, const fk_vec3 *, fk_rigid *) =
                    frame ? fk_forward_rest_frame : fk_forward;
                rotations[root] = q[k]; joint_d[root] = d[k];
                CHECK(forward(joint_count, parents, rest, rotations, joint_d, original) == FK_OK, "FK failed");
                {
                    fk_quat moved[ROOT_MAX_JOINTS];
                    for (i = 0; i < joint_count; ++i)
                        moved[i] = frame ? fk_quat_mul(fk_quat_conjugate(motion_q[k]), fk_quat_mul(rotations[i], motion_q[k]))
                                         : rotations[i];
                    moved[root] = in_place_q[k]; joint_d[root] = in_place_d[k];
                    CHECK(forward(joint_count, parents, rest, moved, joint_d, in_place) == FK_OK, "FK failed");
                }
                for (i = 0; i < joint_count; ++i) {
                    fk_rigid placed = fk_rigid_mul(motion, in_place[i]);
                    CHECK(root_quat_difference(placed.q, original[i].q) <= tolerance &&
                              root_vec3_difference(placed.t, original[i].t) <= tolerance,
                          "%s frame, key %d joint %d: motion x in-place misses the original by %g, %g "
                          "(axes %d, mode %d) (seed %lu)", frame ? "rest" : "parent", k, i,
                          (double)root_quat_difference(placed.q, original[i].q),
                          (double)root_vec3_difference(placed.t, original[i].t), axes, (int)mode, seed);
                }
            }
    }
}

/* The axes: without rotation, the motion holds the joint's travel p_k - p_0 on
   the chosen axes and exactly 0 on the others, and the in-place translation
   holds key 0's value on the chosen axes and d_k on the others (a sum of
   three float values in double, rounded once: 2 ulps of 8). Outputs given the
   input arrays give the same bits. */
static void root_motion_takes_only_the_chosen_axes(void)
{
    const float tolerance = 2.0f * 8.0f * FLT_EPSILON;
    int trial;
    rng_restart();
    for (trial = 0; trial < 200; ++trial) {
        int key_count = 1 + rng_below(ROOT_MAX_KEYS), axes = rng_below(8), k, c;
        fk_vec3 x, d[ROOT_MAX_KEYS], motion_t[ROOT_MAX_KEYS], in_place_d[ROOT_MAX_KEYS], up = fk_vec3_make(0, 0, 1);
        fk_quat q[ROOT_MAX_KEYS], motion_q[ROOT_MAX_KEYS], in_place_q[ROOT_MAX_KEYS];
        fk_root_motion_rotation mode = (fk_root_motion_rotation)rng_below(3);
        root_random_clip(key_count, &x, q, d);
        CHECK(fk_root_motion_extract(key_count, x, q, d, axes, FK_ROOT_ROTATION_NONE, up, motion_q, motion_t,
                                     in_place_q, in_place_d) == FK_OK, "extraction failed (seed %lu)", seed);
        for (k = 0; k < key_count; ++k)
            for (c = 0; c < 3; ++c) {
                float travel = (&d[k].x)[c] - (&d[0].x)[c], motion = (&motion_t[k].x)[c];
                float in_place = (&in_place_d[k].x)[c];
                if ((axes >> c) & 1)
                    CHECK(fabsf(motion - travel) <= tolerance && fabsf(in_place - (&d[0].x)[c]) <= tolerance,
                          "key %d axis %d: chosen, yet motion %g in place %g (seed %lu)", k, c, (double)motion,
                          (double)in_place, seed);
                else
                    CHECK(motion == 0.0f && fabsf(in_place - (&d[k].x)[c]) <= tolerance,
                          "key %d axis %d: not chosen, yet motion %g in place %g (seed %lu)", k, c, (double)motion,
                          (double)in_place, seed);
            }
        {
            fk_quat alias_q[ROOT_MAX_KEYS], alias_motion_q[ROOT_MAX_KEYS];
            fk_vec3 alias_d[ROOT_MAX_KEYS], alias_motion_t[ROOT_MAX_KEYS];
            CHECK(fk_root_motion_extract(key_count, x, q, d, axes, mode, up, motion_q, motion_t, in_place_q,
                                         in_place_d) == FK_OK, "extraction failed");
            memcpy(alias_q, q, sizeof q); memcpy(alias_d, d, sizeof d);
            memcpy(alias_motion_q, q, sizeof q); memcpy(alias_motion_t, d, sizeof d);
            CHECK(fk_root_motion_extract(key_count, x, alias_q, alias_d, axes, mode, up, NULL, NULL, alias_q,
                                         alias_d) == FK_OK &&
                      fk_root_motion_extract(key_count, x, alias_motion_q, alias_motion_t, axes, mode, up,
                                             alias_motion_q, alias_motion_t, NULL, NULL) == FK_OK,
                  "extraction in place failed");
            CHECK(memcmp(alias_q, in_place_q, (size_t)key_count * sizeof *q) == 0 &&
                      memcmp(alias_d, in_place_d, (size_t)key_count * sizeof *d) == 0 &&
                      memcmp(alias_motion_q, motion_q, (size_t)key_count * sizeof *q) == 0 &&
                      memcmp(alias_motion_t, motion_t, (size_t)key_count * sizeof *d) == 0,
                  "outputs over the inputs give other bits (seed %lu)", seed);
        }
    }
}

/* Yaw only, about a random up axis: each motion rotation turns about the up axis
   (its vector part is parallel to it), it is the twist of q_k after the twist of
   q_0 undone, and the in-place rotation's twist is key 0's: the heading stays.
   Twists are recomputed here in double by their definition. Near a key with no
   heading the twist is ill-conditioned, its error about ulp / n for the twist's
   norm n before normalizing: keys with n < 0.05 are skipped, and the tolerance
   is 8 ulps / n. */
static void yaw_motion_turns_about_up_and_leaves_the_heading(void)
{
    int trial;
    rng_restart();
    for (trial = 0; trial < 200; ++trial) {
        int key_count = 1 + rng_below(ROOT_MAX_KEYS), k;
        fk_vec3 x, d[ROOT_MAX_KEYS], up = random_vec3(1.0f), unit_up;
        fk_quat q[ROOT_MAX_KEYS], motion_q[ROOT_MAX_KEYS], in_place_q[ROOT_MAX_KEYS];
        double first_twist[4], n_first;
        if (fk_vec3_length(up) < 0.1f) up = fk_vec3_make(0, 1, 0);
        unit_up = fk_vec3_normalize(up);
        root_random_clip(key_count, &x, q, d);
        CHECK(fk_root_motion_extract(key_count, x, q, d, FK_ROOT_MOTION_X | FK_ROOT_MOTION_Y, FK_ROOT_ROTATION_YAW,
                                     up, motion_q, NULL, in_place_q, NULL) == FK_OK, "extraction failed");
        n_first = root_twist(q[0], unit_up, first_twist);
        if (n_first < 0.05) continue;
        for (k = 0; k < key_count; ++k) {
            double twist[4], in_place_twist[4], expected[4], m[4], n = root_twist(q[k], unit_up, twist);
            double tolerance = 8.0 * FLT_EPSILON / fmin(n, n_first);
            fk_vec3 v = fk_vec3_make(motion_q[k].x, motion_q[k].y, motion_q[k].z);
            if (n < 0.05) continue;
            CHECK(fk_vec3_length(fk_vec3_cross(v, unit_up)) <= tolerance,
                  "key %d: the motion turns off the up axis by %g (seed %lu)", k,
                  (double)fk_vec3_length(fk_vec3_cross(v, unit_up)), seed);
            /* expected = twist_k twist_0*, the rotations about one axis commute */
            expected[0] = twist[0] * first_twist[3] - twist[3] * first_twist[0];
            expected[1] = twist[1] * first_twist[3] - twist[3] * first_twist[1];
            expected[2] = twist[2] * first_twist[3] - twist[3] * first_twist[2];
            expected[3] = twist[3] * first_twist[3] + twist[0] * first_twist[0] + twist[1] * first_twist[1] +
                          twist[2] * first_twist[2];
            m[0] = motion_q[k].x; m[1] = motion_q[k].y; m[2] = motion_q[k].z; m[3] = motion_q[k].w;
            CHECK(root_angle_between(m, expected) <= 2.0 * tolerance,
                  "key %d: the motion turns %g away from the twist (seed %lu)", k, root_angle_between(m, expected),
                  seed);
            root_twist(in_place_q[k], unit_up, in_place_twist);
            CHECK(root_angle_between(in_place_twist, first_twist) <= 2.0 * tolerance,
                  "key %d: the in-place heading moved by %g (seed %lu)", k,
                  root_angle_between(in_place_twist, first_twist), seed);
        }
    }
}

/* The motion track at one time as the library samples it (slerp), in double. */
static root_rigid_double root_sample(int key_count, const float *times, const fk_quat *q, const fk_vec3 *t, float time)
{
    fk_quat sq;
    fk_vec3 st;
    fk_track_sample_quat(key_count, times, q, time, FK_INTERPOLATE_SLERP, &sq);
    fk_track_sample_vec3(key_count, times, t, time, &st);
    return root_double_of(sq, st);
}

/* Playing a looping clip frame by frame, with uneven steps and now and then a
   step of more than a whole loop, and composing the deltas (in double, as a
   game that keeps its placement in double would) ends where the closed form
   M(a)^-1 L^n M(b) says, for n wraps from the first playhead a to the last b.
   The clip is random and its first key is not the identity, so L = M(e) M(s)^-1
   is tested in general. The same playing time is cut into 500 and into 5000
   frames: each delta is rounded once relative to its own size, so the error is
   bounded by a few ulps of the path walked (sum of |delta t|) and of the angle
   turned (sum of delta angles, times the distance reached), sums that do not
   grow with the number of frames: 4 ulps of each. A delta and the delta back
   through as many loops the other way compose to the identity. */
static void root_motion_accumulates_over_loops_without_drift(void)
{
    int trial;
    rng_restart();
    for (trial = 0; trial < 20; ++trial) {
        int key_count = 2 + rng_below(9), k, pass;
        float times[ROOT_MAX_KEYS], period;
        fk_quat q[ROOT_MAX_KEYS];
        fk_vec3 t[ROOT_MAX_KEYS];
        root_rigid_double loop;
        times[0] = rng_uniform(-1.0f, 1.0f);
        for (k = 0; k < key_count; ++k) {
            if (k > 0) times[k] = times[k - 1] + rng_uniform(0.05f, 0.5f);
            q[k] = random_quat();
            t[k] = random_vec3(1.0f);
        }
        period = times[key_count - 1] - times[0];
        loop = root_mul_double(root_double_of(q[key_count - 1], t[key_count - 1]),
                               root_inverse_double(root_double_of(q[0], t[0])));
        for (pass = 0; pass < 2; ++pass) {
            int frames = pass ? 5000 : 500, frame, wraps = 0;
            float playhead = rng_uniform(times[0], times[key_count - 1]), start = playhead;
            double path = 0.0, turned = 0.0, reach = 0.0, rotation_error, translation_error, bound;
            root_rigid_double placed = root_double_of(fk_quat_identity(), fk_vec3_make(0, 0, 0)), closed;
            for (frame = 0; frame < frames; ++frame) {
                float step = rng_below(100) == 0 ? rng_uniform(1.0f, 2.5f) * period
                                                 : 6.5f * period / (float)frames * rng_uniform(0.2f, 1.8f);
                float next = playhead + step;
                int crossed = 0;
                fk_rigid delta;
                root_rigid_double d;
                while (next >= times[key_count - 1]) { next -= period; ++crossed; }
                CHECK(fk_root_motion_delta(key_count, times, q, t, playhead, next, crossed, &delta) == FK_OK,
                      "delta failed (seed %lu)", seed);
                d = root_double_of(delta.q, delta.t);
                placed = root_mul_double(placed, d);
                path += sqrt(d.t[0] * d.t[0] + d.t[1] * d.t[1] + d.t[2] * d.t[2]);
                turned += 2.0 * atan2(sqrt(d.q[0] * d.q[0] + d.q[1] * d.q[1] + d.q[2] * d.q[2]), fabs(d.q[3]));
                reach = fmax(reach, sqrt(placed.t[0] * placed.t[0] + placed.t[1] * placed.t[1] +
                                         placed.t[2] * placed.t[2]));
                wraps += crossed;
                playhead = next;
            }
            closed = root_inverse_double(root_sample(key_count, times, q, t, start));
            for (k = 0; k < wraps; ++k) closed = root_mul_double(closed, loop);
            closed = root_mul_double(closed, root_sample(key_count, times, q, t, playhead));
            rotation_error = root_angle_between(placed.q, closed.q);
            translation_error = root_translation_error(placed, closed);
            bound = 4.0 * FLT_EPSILON * (path + turned * (reach + 1.0));
            CHECK(rotation_error <= 4.0 * FLT_EPSILON * (turned + 1.0) && translation_error <= bound,
                  "%d frames, %d loops: the summed deltas miss the closed form by %g rad, %g (bound %g) (seed %lu)",
                  frames, wraps, rotation_error, translation_error, bound, seed);
        }
        for (k = 0; k < 20; ++k) {
            float a = rng_uniform(times[0], times[key_count - 1]), b = rng_uniform(times[0], times[key_count - 1]);
            int loops = rng_below(7) - 3;
            fk_rigid forth, back;
            root_rigid_double both;
            CHECK(fk_root_motion_delta(key_count, times, q, t, a, b, loops, &forth) == FK_OK &&
                      fk_root_motion_delta(key_count, times, q, t, b, a, -loops, &back) == FK_OK,
                  "delta failed (seed %lu)", seed);
            both = root_mul_double(root_double_of(forth.q, forth.t), root_double_of(back.q, back.t));
            /* each delta reaches at most 3 loops of 8 keys of |t| <= sqrt 3 away */
            CHECK(fabs(both.q[3]) >= 1.0 - 16.0 * FLT_EPSILON &&
                      fmax(fmax(fabs(both.t[0]), fabs(both.t[1])), fabs(both.t[2])) <= 64.0 * 16.0 * FLT_EPSILON,
                  "%d loops forth and back do not cancel (seed %lu)", loops, seed);
        }
    }
}

/* Blending: fk_pose_blend()'s bits for the deltas as one-joint poses, with any
   signs and zero weights; a clip with all the weight gives its translation and
   rotation to an ulp (fk_pose_blend() normalizes it again); equal deltas give that delta (a weighted sum
   of K equal terms, each weight rounded: (K + 2) ulps); turns about y (x = z = 0)
   that move in the ground plane (y = 0) stay so exactly; the output may be an
   input. */
static void root_motion_blends_as_poses_blend(void)
{
    int trial;
    rng_restart();
    for (trial = 0; trial < 300; ++trial) {
        int count = 1 + rng_below(5), c;
        fk_rigid deltas[5], out, expected, same[5];
        fk_quat rotations[5];
        fk_vec3 translations[5];
        const fk_quat *poses[5];
        const fk_vec3 *pose_translations[5];
        float weights[5], alone[5] = {1, 0, 0, 0, 0}, same_tolerance;
        for (c = 0; c < count; ++c) {
            deltas[c] = fk_rigid_make(random_quat(), random_vec3(1.0f));
            if (rng_below(2)) deltas[c].q = fk_quat_make(-deltas[c].q.x, -deltas[c].q.y, -deltas[c].q.z, -deltas[c].q.w);
            weights[c] = rng_below(4) == 0 ? 0.0f : rng_uniform(0.0f, 2.0f);
            rotations[c] = deltas[c].q; translations[c] = deltas[c].t;
            poses[c] = &rotations[c]; pose_translations[c] = &translations[c];
        }
        weights[rng_below(count)] = 1.0f;
        CHECK(fk_root_motion_blend(count, deltas, weights, &out) == FK_OK, "blend failed (seed %lu)", seed);
        CHECK(fk_pose_blend(1, count, poses, pose_translations, weights, &expected.q, &expected.t) == FK_OK,
              "pose blend failed");
        CHECK(memcmp(&out.q, &expected.q, sizeof out.q) == 0 && memcmp(&out.t, &expected.t, sizeof out.t) == 0,
              "%d deltas do not blend as poses do (seed %lu)", count, seed);
        CHECK(fk_root_motion_blend(count, deltas, alone, &out) == FK_OK, "blend failed");
        CHECK(root_quat_difference(out.q, deltas[0].q) <= FLT_EPSILON &&
                  memcmp(&out.t, &deltas[0].t, sizeof out.t) == 0,
              "weights (1, 0, ...) are not the first clip's delta (seed %lu)", seed);
        for (c = 0; c < count; ++c) same[c] = deltas[0];
        same_tolerance = (float)(count + 2) * FLT_EPSILON;
        CHECK(fk_root_motion_blend(count, same, weights, &out) == FK_OK &&
                  root_quat_difference(out.q, deltas[0].q) <= same_tolerance &&
                  root_vec3_difference(out.t, deltas[0].t) <= same_tolerance,
              "equal deltas blend to another (seed %lu)", seed);
        for (c = 0; c < count; ++c) {
            deltas[c].q = root_yaw(rng_uniform(-PI, PI));
            deltas[c].t.y = 0.0f;
        }
        CHECK(fk_root_motion_blend(count, deltas, weights, &out) == FK_OK && out.q.x == 0.0f && out.q.z == 0.0f &&
                  out.t.y == 0.0f, "yaw-only deltas blend to a tilt or a climb (seed %lu)", seed);
        expected = out;
        CHECK(fk_root_motion_blend(count, deltas, weights, &deltas[count - 1]) == FK_OK &&
                  memcmp(&deltas[count - 1], &expected, sizeof expected) == 0,
              "blending into an input gives other bits (seed %lu)", seed);
    }
}

/* Bad input: every code, and nothing written. */
static void root_motion_refuses_bad_input_without_writing(void)
{
    const float times[3] = {0, 1, 2}, unordered[3] = {0, 2, 1};
    fk_quat q[3], motion_q[3], in_place_q[3], bad_q[3];
    fk_vec3 d[3], motion_t[3], in_place_d[3], bad_d[3], x = fk_vec3_make(0, 1, 0), up = fk_vec3_make(0, 1, 0);
    fk_vec3 huge[3];
    fk_rigid delta, deltas[2], bad_deltas[2], sentinel;
    float weights[2] = {1, 1}, negative[2] = {1, -1}, zero[2] = {0, 0}, not_a_number[2] = {1, NAN};
    unsigned char before[4][3 * sizeof(fk_quat)];
    const int xz = FK_ROOT_MOTION_X | FK_ROOT_MOTION_Z;
    int k;
    for (k = 0; k < 3; ++k) {
        q[k] = root_yaw((float)k); d[k] = fk_vec3_make(0, 0, (float)k);
        huge[k] = fk_vec3_make(0, 0, 3e38f);
    }
    memcpy(bad_q, q, sizeof q); memcpy(bad_d, d, sizeof d);
    memset(motion_q, 0x5a, sizeof motion_q); memset(motion_t, 0x5a, sizeof motion_t);
    memset(in_place_q, 0x5a, sizeof in_place_q); memset(in_place_d, 0x5a, sizeof in_place_d);
    memcpy(before[0], motion_q, sizeof motion_q); memcpy(before[1], motion_t, sizeof motion_t);
    memcpy(before[2], in_place_q, sizeof in_place_q); memcpy(before[3], in_place_d, sizeof in_place_d);
#define ROOT_EXTRACT(count, rest, rotations, translations, axes, mode, up_axis)                                      \
    fk_root_motion_extract(count, rest, rotations, translations, axes, mode, up_axis, motion_q, motion_t, in_place_q, \
                           in_place_d)
    CHECK(ROOT_EXTRACT(0, x, q, d, xz, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_INVALID_COUNT, "no keys accepted");
    CHECK(ROOT_EXTRACT(3, x, NULL, d, xz, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_NULL_ARGUMENT, "no rotations accepted");
    CHECK(ROOT_EXTRACT(3, x, q, d, 8, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_INVALID_OPTION, "axes 8 accepted");
    CHECK(ROOT_EXTRACT(3, x, q, d, -1, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_INVALID_OPTION, "axes -1 accepted");
    CHECK(ROOT_EXTRACT(3, x, q, d, xz, (fk_root_motion_rotation)3, up) == FK_ERROR_INVALID_OPTION, "mode 3 accepted");
    CHECK(ROOT_EXTRACT(3, x, q, d, xz, FK_ROOT_ROTATION_YAW, fk_vec3_make(0, 0, 0)) == FK_ERROR_INVALID_OPTION,
          "a zero up axis accepted");
    CHECK(ROOT_EXTRACT(3, x, q, d, xz, FK_ROOT_ROTATION_YAW, fk_vec3_make(0, NAN, 0)) == FK_ERROR_NOT_FINITE,
          "a NaN up axis accepted");
    CHECK(ROOT_EXTRACT(3, fk_vec3_make(INFINITY, 0, 0), q, d, xz, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_NOT_FINITE,
          "an infinite rest position accepted");
    bad_q[2] = fk_quat_make(NAN, 0, 0, 1);
    CHECK(ROOT_EXTRACT(3, x, bad_q, d, xz, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_INVALID_ROTATION, "a NaN rotation accepted");
    bad_q[2] = fk_quat_make(0, 0, 0, 0);
    CHECK(ROOT_EXTRACT(3, x, bad_q, d, xz, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_INVALID_ROTATION, "a zero rotation accepted");
    bad_d[1].y = NAN;
    CHECK(ROOT_EXTRACT(3, x, q, bad_d, xz, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_NOT_FINITE, "a NaN translation accepted");
    CHECK(ROOT_EXTRACT(3, fk_vec3_make(0, 0, 3e38f), q, huge, xz, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_NOT_FINITE,
          "an overflowing root position accepted");
#undef ROOT_EXTRACT
    CHECK(memcmp(before[0], motion_q, sizeof motion_q) == 0 && memcmp(before[1], motion_t, sizeof motion_t) == 0 &&
              memcmp(before[2], in_place_q, sizeof in_place_q) == 0 &&
              memcmp(before[3], in_place_d, sizeof in_place_d) == 0,
          "a refused extraction wrote");
    CHECK(fk_root_motion_extract(3, x, q, NULL, xz, FK_ROOT_ROTATION_NONE, fk_vec3_make(0, 0, 0), NULL, NULL, NULL,
                                 NULL) == FK_OK, "no outputs, no translations and an unread zero up refused");

    memset(&sentinel, 0x5a, sizeof sentinel);
    delta = sentinel;
    CHECK(fk_root_motion_delta(0, times, q, d, 0, 1, 0, &delta) == FK_ERROR_INVALID_COUNT, "no keys accepted");
    CHECK(fk_root_motion_delta(3, NULL, q, d, 0, 1, 0, &delta) == FK_ERROR_NULL_ARGUMENT, "no times accepted");
    CHECK(fk_root_motion_delta(3, times, NULL, d, 0, 1, 0, &delta) == FK_ERROR_NULL_ARGUMENT, "no rotations accepted");
    CHECK(fk_root_motion_delta(3, times, q, d, 0, 1, 0, NULL) == FK_ERROR_NULL_ARGUMENT, "no output accepted");
    CHECK(fk_root_motion_delta(3, unordered, q, d, 0, 1, 0, &delta) == FK_ERROR_KEYS_NOT_ASCENDING,
          "keys out of order accepted");
    CHECK(fk_root_motion_delta(3, times, q, d, NAN, 1, 0, &delta) == FK_ERROR_NOT_FINITE, "a NaN time accepted");
    CHECK(fk_root_motion_delta(3, times, q, d, 0, INFINITY, 0, &delta) == FK_ERROR_NOT_FINITE,
          "an infinite time accepted");
    CHECK(fk_root_motion_delta(3, times, bad_q, d, 0, 1, 0, &delta) == FK_ERROR_INVALID_ROTATION,
          "a zero rotation accepted");
    CHECK(fk_root_motion_delta(3, times, q, bad_d, 0, 1, 0, &delta) == FK_ERROR_NOT_FINITE, "a NaN translation accepted");
    huge[0] = fk_vec3_make(0, 0, 0); /* and no turn: 2^31 loops of 3e38 each */
    {
        fk_quat still[3] = {{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}};
        CHECK(fk_root_motion_delta(3, times, still, huge, 0, 2, 2147483647, &delta) == FK_ERROR_NOT_FINITE,
              "an overflowing delta accepted");
    }
    CHECK(fk_root_motion_delta(3, times, q, d, 0, 2, 0, NULL) == FK_ERROR_NULL_ARGUMENT,
          "an overflowing delta accepted");
    CHECK(memcmp(&delta, &sentinel, sizeof delta) == 0, "a refused delta wrote");

    deltas[0] = fk_rigid_make(q[1], d[1]); deltas[1] = fk_rigid_make(q[2], d[2]);
    bad_deltas[0] = deltas[0]; bad_deltas[1] = fk_rigid_make(fk_quat_make(0, 0, 0, 0), d[2]);
    CHECK(fk_root_motion_blend(0, deltas, weights, &delta) == FK_ERROR_INVALID_COUNT, "no clips accepted");
    CHECK(fk_root_motion_blend(2, NULL, weights, &delta) == FK_ERROR_NULL_ARGUMENT, "no deltas accepted");
    CHECK(fk_root_motion_blend(2, deltas, NULL, &delta) == FK_ERROR_NULL_ARGUMENT, "no weights accepted");
    CHECK(fk_root_motion_blend(2, deltas, weights, NULL) == FK_ERROR_NULL_ARGUMENT, "no output accepted");
    CHECK(fk_root_motion_blend(2, deltas, negative, &delta) == FK_ERROR_INVALID_WEIGHT, "a negative weight accepted");
    CHECK(fk_root_motion_blend(2, deltas, zero, &delta) == FK_ERROR_INVALID_WEIGHT, "zero weights accepted");
    CHECK(fk_root_motion_blend(2, deltas, not_a_number, &delta) == FK_ERROR_INVALID_WEIGHT, "a NaN weight accepted");
    CHECK(fk_root_motion_blend(2, bad_deltas, weights, &delta) == FK_ERROR_INVALID_ROTATION, "a zero rotation accepted");
    bad_deltas[1] = fk_rigid_make(q[2], fk_vec3_make(0, -INFINITY, 0));
    CHECK(fk_root_motion_blend(2, bad_deltas, weights, &delta) == FK_ERROR_NOT_FINITE, "an infinite translation accepted");
    CHECK(memcmp(&delta, &sentinel, sizeof delta) == 0, "a refused blend wrote");
}

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
    RUN_TEST(root_motion_worked_example_walks_and_turns);
    RUN_TEST(root_motion_recombines_to_the_original);
    RUN_TEST(root_motion_takes_only_the_chosen_axes);
    RUN_TEST(yaw_motion_turns_about_up_and_leaves_the_heading);
    RUN_TEST(root_motion_accumulates_over_loops_without_drift);
    RUN_TEST(root_motion_blends_as_poses_blend);
    RUN_TEST(root_motion_refuses_bad_input_without_writing);

    /* interpolation */

    /* morph targets */

    return check_finish();
}
