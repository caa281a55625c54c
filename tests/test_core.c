/* test_core.c - worked examples and reference comparisons for fk_lbs.h.

   Each test states one fact about the library: a hand-worked value, an agreement
   with an independent formulation (4x4 matrices in double precision), or the
   result code of one kind of bad input. The randomized property suite lives in
   test_properties.c. */
#include "fk_lbs.h" /* declarations: the library is tests/fk_lbs_impl.c */
#include "check.h"
#include "test_random.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979f

/* ---- Helpers ------------------------------------------------------------------ */

static fk_quat negated(fk_quat q) { return fk_quat_make(-q.x, -q.y, -q.z, -q.w); }

static float vec3_distance(fk_vec3 a, fk_vec3 b) { return fk_vec3_length(fk_vec3_sub(a, b)); }

static int near3(fk_vec3 a, fk_vec3 b, float tolerance) { return vec3_distance(a, b) <= tolerance; }

/* Same rotation: q and -q both count. */
static int same_rotation(fk_quat a, fk_quat b, float tolerance) { return 1.0f - fabsf(fk_quat_dot(a, b)) <= tolerance; }

static int near_quat(fk_quat a, fk_quat b, float tolerance)
{
    return fabsf(a.x - b.x) <= tolerance && fabsf(a.y - b.y) <= tolerance && fabsf(a.z - b.z) <= tolerance &&
           fabsf(a.w - b.w) <= tolerance;
}

static fk_quat about(float x, float y, float z, float degrees)
{
    return fk_quat_from_axis_angle(fk_vec3_make(x, y, z), degrees * PI / 180.0f);
}

/* ---- An independent formulation: 4x4 matrices in double precision ---------------
   A joint's skinning matrix S_i maps rest-pose points of its bone to posed ones.
   Parent frame:  S_i = S_p T(x_i + d_i) R(q_i) T(-x_i)
   Rest frame:    S_i = T(c) R(q_i) T(-c) S_p T(d_i),  c = S_p (x_i + d_i)
   (roots use S_p = identity). No quaternion composition, no translation formula. */

typedef struct mat4 { double m[4][4]; } mat4;

static mat4 mat4_identity(void)
{
    mat4 r;
    int i, j;
    for (i = 0; i < 4; ++i) for (j = 0; j < 4; ++j) r.m[i][j] = i == j;
    return r;
}

static mat4 mat4_mul(mat4 a, mat4 b)
{
    mat4 r;
    int i, j, k;
    for (i = 0; i < 4; ++i)
        for (j = 0; j < 4; ++j) {
            r.m[i][j] = 0;
            for (k = 0; k < 4; ++k) r.m[i][j] += a.m[i][k] * b.m[k][j];
        }
    return r;
}

static mat4 mat4_translation(double x, double y, double z)
{
    mat4 r = mat4_identity();
    r.m[0][3] = x; r.m[1][3] = y; r.m[2][3] = z;
    return r;
}

static mat4 mat4_rotation(fk_quat q) /* from the unit quaternion, in double */
{
    double n = sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w);
    double x = q.x / n, y = q.y / n, z = q.z / n, w = q.w / n;
    mat4 r = mat4_identity();
    r.m[0][0] = 1 - 2 * (y * y + z * z); r.m[0][1] = 2 * (x * y - w * z); r.m[0][2] = 2 * (x * z + w * y);
    r.m[1][0] = 2 * (x * y + w * z); r.m[1][1] = 1 - 2 * (x * x + z * z); r.m[1][2] = 2 * (y * z - w * x);
    r.m[2][0] = 2 * (x * z - w * y); r.m[2][1] = 2 * (y * z + w * x); r.m[2][2] = 1 - 2 * (x * x + y * y);
    return r;
}

static void mat4_apply(mat4 a, const double v[3], double out[3])
{
    int i;
    for (i = 0; i < 3; ++i) out[i] = a.m[i][0] * v[0] + a.m[i][1] * v[1] + a.m[i][2] * v[2] + a.m[i][3];
}

/* Reference skinning matrices; parents must come first (the test sorts for it). */
static void reference_forward(int n, const int *parents, const fk_vec3 *x, const fk_quat *q, const fk_vec3 *d,
                              int rest_frame, mat4 *out)
{
    int i;
    for (i = 0; i < n; ++i) {
        mat4 parent = parents[i] < 0 ? mat4_identity() : out[parents[i]];
        double dx = d ? d[i].x : 0, dy = d ? d[i].y : 0, dz = d ? d[i].z : 0;
        if (!rest_frame) {
            out[i] = mat4_mul(mat4_mul(mat4_mul(parent, mat4_translation(x[i].x + dx, x[i].y + dy, x[i].z + dz)),
                                       mat4_rotation(q[i])),
                              mat4_translation(-x[i].x, -x[i].y, -x[i].z));
        } else {
            double pivot[3] = {x[i].x + dx, x[i].y + dy, x[i].z + dz}, c[3];
            mat4_apply(parent, pivot, c);
            out[i] = mat4_mul(mat4_mul(mat4_mul(mat4_translation(c[0], c[1], c[2]), mat4_rotation(q[i])),
                                       mat4_translation(-c[0], -c[1], -c[2])),
                              mat4_mul(parent, mat4_translation(dx, dy, dz)));
        }
    }
}

/* Largest difference between a rigid transform and a 4x4 matrix, entry by entry. */
static double rigid_vs_mat4(fk_rigid r, mat4 m)
{
    float a[12];
    double worst = 0;
    int i, j;
    fk_rigid_to_mat34(r, a);
    for (i = 0; i < 3; ++i)
        for (j = 0; j < 4; ++j) {
            double e = fabs((double)a[4 * i + j] - m.m[i][j]);
            if (e > worst) worst = e;
        }
    return worst;
}

/* ---- Results ---------------------------------------------------------------------- */

static void every_result_has_its_own_description(void)
{
    int a, b;
    for (a = FK_OK; a <= FK_ERROR_INVALID_STRIDE; ++a) {
        const char *text = fk_result_description((fk_result)a);
        CHECK(text && strcmp(text, "unknown fk_result") != 0, "code %d has no description", a);
        for (b = FK_OK; b < a; ++b)
            CHECK(strcmp(text, fk_result_description((fk_result)b)) != 0, "codes %d and %d share a description", a, b);
    }
    CHECK(strcmp(fk_result_description((fk_result)999), "unknown fk_result") == 0, "unknown codes are named so");
}

/* ---- Quaternions -------------------------------------------------------------------- */

static void hamilton_product_of_basis_units(void)
{
    fk_quat i = fk_quat_make(1, 0, 0, 0), j = fk_quat_make(0, 1, 0, 0), k = fk_quat_make(0, 0, 1, 0);
    CHECK(near_quat(fk_quat_mul(i, j), k, 0), "i j = k");
    CHECK(near_quat(fk_quat_mul(j, i), fk_quat_make(0, 0, -1, 0), 0), "j i = -k");
    CHECK(near_quat(fk_quat_mul(i, i), fk_quat_make(0, 0, 0, -1), 0), "i i = -1");
    CHECK(near_quat(fk_quat_mul(fk_quat_mul(i, j), k), fk_quat_make(0, 0, 0, -1), 0), "i j k = -1");
}

static void product_applies_right_factor_first(void)
{
    fk_quat about_z = about(0, 0, 1, 90), about_x = about(1, 0, 0, 90);
    fk_vec3 x = fk_vec3_make(1, 0, 0);
    /* x: about_x leaves it, about_z takes it to y. The other order ends at z. */
    CHECK(near3(fk_quat_rotate(fk_quat_mul(about_z, about_x), x), fk_vec3_make(0, 1, 0), 1e-6f), "z after x");
    CHECK(near3(fk_quat_rotate(fk_quat_mul(about_x, about_z), x), fk_vec3_make(0, 0, 1), 1e-6f), "x after z");
}

static void rotate_follows_the_right_hand_rule(void)
{
    CHECK(near3(fk_quat_rotate(about(0, 0, 1, 90), fk_vec3_make(1, 0, 0)), fk_vec3_make(0, 1, 0), 1e-6f), "z: x->y");
    CHECK(near3(fk_quat_rotate(about(1, 0, 0, 90), fk_vec3_make(0, 1, 0)), fk_vec3_make(0, 0, 1), 1e-6f), "x: y->z");
    CHECK(near3(fk_quat_rotate(about(0, 1, 0, 90), fk_vec3_make(0, 0, 1)), fk_vec3_make(1, 0, 0), 1e-6f), "y: z->x");
    /* 120 degrees about the diagonal permutes the axes. */
    CHECK(near3(fk_quat_rotate(about(1, 1, 1, 120), fk_vec3_make(1, 0, 0)), fk_vec3_make(0, 1, 0), 1e-6f), "diag");
}

static void axis_angle_round_trip(void)
{
    fk_vec3 axis;
    float angle;
    fk_quat q = fk_quat_from_axis_angle(fk_vec3_make(0, 0, 5), PI / 2); /* axis need not be unit */
    CHECK(near_quat(q, fk_quat_make(0, 0, sqrtf(0.5f), sqrtf(0.5f)), 1e-6f), "90 about z");
    fk_quat_to_axis_angle(negated(q), &axis, &angle);
    CHECK(fabsf(angle - PI / 2) < 1e-6f && near3(axis, fk_vec3_make(0, 0, 1), 1e-6f), "-q gives the same axis, angle");
    fk_quat_to_axis_angle(fk_quat_identity(), &axis, &angle);
    CHECK(angle == 0.0f && near3(axis, fk_vec3_make(1, 0, 0), 0), "identity: angle 0, axis x");
    CHECK(near_quat(fk_quat_from_axis_angle(fk_vec3_make(0, 0, 0), 1.0f), fk_quat_identity(), 0), "zero axis");
}

static void conjugate_inverse_normalize(void)
{
    fk_quat q = about(1, 2, 3, 70);
    CHECK(near_quat(fk_quat_mul(q, fk_quat_conjugate(q)), fk_quat_identity(), 1e-6f), "q q* = 1");
    CHECK(near_quat(fk_quat_inverse(fk_quat_make(0, 0, 0, 2)), fk_quat_make(0, 0, 0, 0.5f), 0), "1/2 = 0.5");
    CHECK(near_quat(fk_quat_mul(fk_quat_make(1, 2, 3, 4), fk_quat_inverse(fk_quat_make(1, 2, 3, 4))),
                    fk_quat_identity(), 1e-6f), "q q^-1 = 1 for non-unit q");
    CHECK(near_quat(fk_quat_normalize(fk_quat_make(0, 0, 0, 0)), fk_quat_identity(), 0), "zero normalizes to identity");
    CHECK(near_quat(fk_quat_normalize(fk_quat_make(0, 3, 0, 4)), fk_quat_make(0, 0.6f, 0, 0.8f), 1e-7f), "3-4-5");
}

static void normalize_survives_lengths_float_cannot_square(void)
{
    /* |v|^2 overflows (found by fuzz_skin: a blended normal of length 1.6e20). */
    CHECK(near3(fk_vec3_normalize(fk_vec3_make(3e20f, 0, 4e20f)), fk_vec3_make(0.6f, 0, 0.8f), 1e-6f), "huge");
    /* |v|^2 underflows to zero. */
    CHECK(near3(fk_vec3_normalize(fk_vec3_make(0, 3e-25f, -4e-25f)), fk_vec3_make(0, 0.6f, -0.8f), 1e-6f), "tiny");
    CHECK(near3(fk_vec3_normalize(fk_vec3_make(0, 0, 0)), fk_vec3_make(0, 0, 0), 0), "zero stays zero");
}

static void matrix_of_quarter_turn(void)
{
    float m[9];
    const float expected[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};
    int i;
    fk_quat_to_mat3(about(0, 0, 1, 90), m);
    for (i = 0; i < 9; ++i) CHECK(fabsf(m[i] - expected[i]) < 1e-6f, "entry %d: %g, expected %g", i, m[i], expected[i]);
}

static void matrix_to_quaternion_at_half_turns(void)
{
    /* w = 0 here: the trace is -1, the case where a naive 1 / (4w) method divides by zero. */
    const float about_x[9] = {1, 0, 0, 0, -1, 0, 0, 0, -1};
    const float about_xy[9] = {0, 1, 0, 1, 0, 0, 0, 0, -1}; /* 2 u u^T - I, u = (1, 1, 0) / sqrt 2 */
    const float about_z[9] = {-1, 0, 0, 0, -1, 0, 0, 0, 1};
    CHECK(same_rotation(fk_quat_from_mat3(about_x), fk_quat_make(1, 0, 0, 0), 1e-7f), "180 about x");
    CHECK(same_rotation(fk_quat_from_mat3(about_xy), fk_quat_make(sqrtf(0.5f), sqrtf(0.5f), 0, 0), 1e-7f), "180 about x+y");
    CHECK(same_rotation(fk_quat_from_mat3(about_z), fk_quat_make(0, 0, 1, 0), 1e-7f), "180 about z");
}

static void matrix_round_trip_on_random_rotations(void)
{
    int trial;
    for (trial = 0; trial < 2000; ++trial) {
        fk_quat q = random_quat(), back;
        float m[9];
        fk_quat_to_mat3(q, m);
        back = fk_quat_from_mat3(m);
        if (!CHECK(same_rotation(q, back, 1e-6f), "trial %d: (%g %g %g %g) came back as (%g %g %g %g)", trial,
                   q.x, q.y, q.z, q.w, back.x, back.y, back.z, back.w)) break;
    }
}

static void slerp_halfway_and_endpoints(void)
{
    fk_quat a = fk_quat_identity(), b = about(0, 0, 1, 90);
    CHECK(same_rotation(fk_quat_slerp(a, b, 0.5f), about(0, 0, 1, 45), 1e-7f), "halfway is 45 degrees");
    CHECK(same_rotation(fk_quat_slerp(a, b, 0.25f), about(0, 0, 1, 22.5f), 1e-7f), "a quarter is 22.5 degrees");
    CHECK(near_quat(fk_quat_slerp(a, b, 0.0f), a, 1e-7f), "t = 0 gives a");
    CHECK(same_rotation(fk_quat_slerp(a, b, 1.0f), b, 1e-7f), "t = 1 gives b");
    /* -b is b; the shorter arc still passes through 45 degrees, not through 225. */
    CHECK(same_rotation(fk_quat_slerp(a, negated(b), 0.5f), about(0, 0, 1, 45), 1e-7f), "short way");
    CHECK(same_rotation(fk_quat_nlerp(a, negated(b), 0.5f), about(0, 0, 1, 45), 1e-7f), "nlerp short way");
    CHECK(same_rotation(fk_quat_slerp(b, b, 0.3f), b, 1e-7f), "equal inputs");
}

static void euler_orders_multiply_left_to_right(void)
{
    fk_vec3 angles = fk_vec3_make(0.3f, -0.7f, 1.1f);
    fk_quat qx = fk_quat_from_axis_angle(fk_vec3_make(1, 0, 0), angles.x);
    fk_quat qy = fk_quat_from_axis_angle(fk_vec3_make(0, 1, 0), angles.y);
    fk_quat qz = fk_quat_from_axis_angle(fk_vec3_make(0, 0, 1), angles.z);
    CHECK(same_rotation(fk_quat_from_euler(angles, FK_EULER_XYZ), fk_quat_mul(fk_quat_mul(qx, qy), qz), 1e-6f), "XYZ");
    CHECK(same_rotation(fk_quat_from_euler(angles, FK_EULER_XZY), fk_quat_mul(fk_quat_mul(qx, qz), qy), 1e-6f), "XZY");
    CHECK(same_rotation(fk_quat_from_euler(angles, FK_EULER_YXZ), fk_quat_mul(fk_quat_mul(qy, qx), qz), 1e-6f), "YXZ");
    CHECK(same_rotation(fk_quat_from_euler(angles, FK_EULER_YZX), fk_quat_mul(fk_quat_mul(qy, qz), qx), 1e-6f), "YZX");
    CHECK(same_rotation(fk_quat_from_euler(angles, FK_EULER_ZXY), fk_quat_mul(fk_quat_mul(qz, qx), qy), 1e-6f), "ZXY");
    CHECK(same_rotation(fk_quat_from_euler(angles, FK_EULER_ZYX), fk_quat_mul(fk_quat_mul(qz, qy), qx), 1e-6f), "ZYX");
    /* A BVH joint with "Zrotation Xrotation Yrotation" 90 90 0: x goes to y, y goes to z. */
    {
        fk_quat bvh = fk_quat_from_euler(fk_vec3_make(PI / 2, 0, PI / 2), FK_EULER_ZXY);
        CHECK(near3(fk_quat_rotate(bvh, fk_vec3_make(1, 0, 0)), fk_vec3_make(0, 1, 0), 1e-6f), "bvh x");
        CHECK(near3(fk_quat_rotate(bvh, fk_vec3_make(0, 1, 0)), fk_vec3_make(0, 0, 1), 1e-6f), "bvh y");
    }
}

static void euler_round_trip_in_every_order_and_at_gimbal_lock(void)
{
    int order, trial;
    for (order = FK_EULER_XYZ; order <= FK_EULER_ZYX; ++order) {
        for (trial = 0; trial < 500; ++trial) {
            fk_quat q = random_quat();
            fk_vec3 angles = fk_quat_to_euler(q, (fk_euler_order)order);
            if (!CHECK(same_rotation(fk_quat_from_euler(angles, (fk_euler_order)order), q, 1e-6f),
                       "order %d trial %d", order, trial)) break;
        }
        { /* middle angle +-90 degrees: only a combination of the outer two is defined */
            int sign;
            for (sign = -1; sign <= 1; sign += 2) {
                fk_vec3 locked = fk_vec3_make(0.4f, 0.4f, 0.4f), angles;
                fk_quat q;
                int axes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
                float *component = axes[order][1] == 0 ? &locked.x : axes[order][1] == 1 ? &locked.y : &locked.z;
                *component = (float)sign * PI / 2;
                q = fk_quat_from_euler(locked, (fk_euler_order)order);
                angles = fk_quat_to_euler(q, (fk_euler_order)order);
                CHECK(same_rotation(fk_quat_from_euler(angles, (fk_euler_order)order), q, 1e-6f),
                      "order %d gimbal lock %d", order, sign);
            }
        }
    }
}

/* ---- Rigid transforms -------------------------------------------------------------- */

static void rigid_composition_inverse_and_matrices(void)
{
    fk_rigid a = fk_rigid_make(about(0, 0, 1, 90), fk_vec3_make(1, 2, 3));
    fk_rigid b = fk_rigid_make(about(1, 0, 0, 90), fk_vec3_make(0, 0, 1));
    fk_vec3 p = fk_vec3_make(1, 0, 0);
    float m[12];
    const float expected[12] = {0, -1, 0, 1, 1, 0, 0, 2, 0, 0, 1, 3};
    int i;
    CHECK(near3(fk_rigid_apply(a, p), fk_vec3_make(1, 3, 3), 1e-6f), "a: (1,0,0) -> (0,1,0) + (1,2,3)");
    CHECK(near3(fk_rigid_apply(fk_rigid_mul(a, b), p), fk_rigid_apply(a, fk_rigid_apply(b, p)), 1e-6f), "a o b");
    CHECK(near3(fk_rigid_apply(fk_rigid_inverse(a), fk_rigid_apply(a, fk_vec3_make(4, 5, 6))), fk_vec3_make(4, 5, 6), 1e-5f), "inverse");
    fk_rigid_to_mat34(a, m);
    for (i = 0; i < 12; ++i) CHECK(fabsf(m[i] - expected[i]) < 1e-6f, "mat34 entry %d: %g", i, m[i]);
    {
        fk_rigid back = fk_rigid_from_mat34(m);
        CHECK(same_rotation(back.q, a.q, 1e-7f) && near3(back.t, a.t, 0), "mat34 round trip");
    }
}

static void dual_quaternion_round_trip(void)
{
    int trial;
    fk_dual_quat shift = fk_rigid_to_dual_quat(fk_rigid_make(fk_quat_identity(), fk_vec3_make(2, 4, 6)));
    CHECK(near_quat(shift.dual, fk_quat_make(1, 2, 3, 0), 1e-7f), "pure translation: dual = (t/2, 0)");
    for (trial = 0; trial < 200; ++trial) {
        fk_rigid r = fk_rigid_make(random_quat(), random_vec3(10)), back;
        back = fk_dual_quat_to_rigid(fk_rigid_to_dual_quat(r));
        if (!CHECK(same_rotation(back.q, r.q, 1e-6f) && near3(back.t, r.t, 1e-5f), "trial %d", trial)) break;
    }
}

/* ---- Forward kinematics -------------------------------------------------------------- */

/* The design's two-bone arm: a shoulder at the origin, an elbow at (1, 0, 0), a hand
   (a point on the forearm) at (2, 0, 0); each joint turns 90 degrees about z. Worked
   by hand: the upper arm points up, so the elbow lands on (0, 1, 0); the forearm
   turns 180 degrees in all and points along -x, so the hand lands on (-1, 1, 0). */
static void two_bone_arm_worked_by_hand(void)
{
    const int parents[2] = {-1, 0};
    const fk_vec3 rest[2] = {{0, 0, 0}, {1, 0, 0}};
    const fk_quat turns[2] = {{0, 0, 0.70710678f, 0.70710678f}, {0, 0, 0.70710678f, 0.70710678f}};
    fk_rigid bones[2];
    CHECK(fk_forward(2, parents, rest, turns, NULL, bones) == FK_OK, "fk_forward");
    CHECK(same_rotation(bones[0].q, about(0, 0, 1, 90), 1e-7f) && near3(bones[0].t, fk_vec3_make(0, 0, 0), 1e-7f),
          "shoulder: Q = q0, t = x0 - q0 x0 = 0");
    CHECK(same_rotation(bones[1].q, about(0, 0, 1, 180), 1e-7f), "elbow: Q = q0 q1, 180 degrees");
    CHECK(near3(bones[1].t, fk_vec3_make(1, 1, 0), 1e-6f), "elbow: t = t0 + Q0 x1 - Q1 x1 = (0,1,0) - (-1,0,0)");
    CHECK(near3(fk_rigid_apply(bones[1], rest[1]), fk_vec3_make(0, 1, 0), 1e-6f), "elbow lands on (0, 1, 0)");
    CHECK(near3(fk_rigid_apply(bones[1], fk_vec3_make(2, 0, 0)), fk_vec3_make(-1, 1, 0), 1e-6f), "hand on (-1, 1, 0)");
}

/* Three joints in a row, each turning 90 degrees: with the often-copied translation
   t_i = -Q_i x_i + Q_p x_i - Q_p x_p + x_p the grandchild's pivot would land away from
   where its parent carries it. fk_forward keeps it attached. */
static void grandchild_stays_attached_where_the_copied_formula_fails(void)
{
    const int parents[3] = {-1, 0, 1};
    const fk_vec3 rest[3] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
    fk_quat turns[3];
    fk_rigid bones[3];
    fk_vec3 copied_t, attached, copied_pivot;
    turns[0] = turns[1] = turns[2] = about(0, 0, 1, 90);
    CHECK(fk_forward(3, parents, rest, turns, NULL, bones) == FK_OK, "fk_forward");
    attached = fk_rigid_apply(bones[1], rest[2]); /* where the elbow's motion takes the wrist */
    CHECK(near3(attached, fk_vec3_make(-1, 1, 0), 1e-6f), "wrist carried to (-1, 1, 0)");
    CHECK(near3(fk_rigid_apply(bones[2], rest[2]), attached, 1e-6f), "fk_forward keeps the wrist there");
    copied_t = fk_vec3_add(fk_vec3_sub(fk_quat_rotate(bones[1].q, rest[2]), fk_quat_rotate(bones[2].q, rest[2])),
                           fk_vec3_sub(rest[1], fk_quat_rotate(bones[1].q, rest[1])));
    copied_pivot = fk_vec3_add(fk_quat_rotate(bones[2].q, rest[2]), copied_t);
    CHECK(vec3_distance(copied_pivot, attached) > 0.5f, "the copied formula would detach the wrist (%g %g %g)",
          copied_pivot.x, copied_pivot.y, copied_pivot.z);
}

/* A random forest: parents first, several roots, random branching. */
static void random_forest(int n, int *parents, fk_vec3 *rest, fk_quat *rotations, fk_vec3 *translations)
{
    int i;
    for (i = 0; i < n; ++i) {
        parents[i] = (i == 0 || rng_below(20) == 0) ? -1 : (rng_below(3) == 0 ? i - 1 : rng_below(i));
        rest[i] = random_vec3(5);
        rotations[i] = random_quat();
        if (translations) translations[i] = random_vec3(0.5f);
    }
}

/* Relabels joint i as order[i]; parents are re-indexed to follow. */
static void shuffle_joints(int n, const int *order, const int *parents, const fk_vec3 *rest, const fk_quat *rotations,
                           const fk_vec3 *translations, int *parents2, fk_vec3 *rest2, fk_quat *rotations2,
                           fk_vec3 *translations2)
{
    int i;
    for (i = 0; i < n; ++i) {
        int j = order[i];
        parents2[j] = parents[i] < 0 ? -1 : order[parents[i]];
        rest2[j] = rest[i];
        rotations2[j] = rotations[i];
        if (translations) translations2[j] = translations[i];
    }
}

static void random_permutation(int n, int *order)
{
    int i;
    for (i = 0; i < n; ++i) order[i] = i;
    for (i = n - 1; i > 0; --i) {
        int j = rng_below(i + 1), t = order[i];
        order[i] = order[j]; order[j] = t;
    }
}

#define FOREST 600

static void forward_matches_4x4_reference_in_both_conventions_and_any_order(void)
{
    static int parents[FOREST], parents2[FOREST], order[FOREST];
    static fk_vec3 rest[FOREST], rest2[FOREST], shift[FOREST], shift2[FOREST];
    static fk_quat rotations[FOREST], rotations2[FOREST];
    static fk_rigid bones[FOREST], bones2[FOREST];
    static mat4 reference[FOREST];
    int convention, with_translation, i;
    random_forest(FOREST, parents, rest, rotations, shift);
    random_permutation(FOREST, order);
    shuffle_joints(FOREST, order, parents, rest, rotations, shift, parents2, rest2, rotations2, shift2);
    for (convention = 0; convention < 2; ++convention)
        for (with_translation = 0; with_translation < 2; ++with_translation) {
            const fk_vec3 *d = with_translation ? shift : NULL, *d2 = with_translation ? shift2 : NULL;
            double worst = 0, worst_shuffled = 0;
            fk_result r1, r2;
            reference_forward(FOREST, parents, rest, rotations, d, convention, reference);
            r1 = convention ? fk_forward_rest_frame(FOREST, parents, rest, rotations, d, bones)
                            : fk_forward(FOREST, parents, rest, rotations, d, bones);
            r2 = convention ? fk_forward_rest_frame(FOREST, parents2, rest2, rotations2, d2, bones2)
                            : fk_forward(FOREST, parents2, rest2, rotations2, d2, bones2);
            CHECK(r1 == FK_OK && r2 == FK_OK, "results %d %d", r1, r2);
            for (i = 0; i < FOREST; ++i) {
                double e = rigid_vs_mat4(bones[i], reference[i]), e2 = rigid_vs_mat4(bones2[order[i]], reference[i]);
                if (e > worst) worst = e;
                if (e2 > worst_shuffled) worst_shuffled = e2;
            }
            /* Coordinates up to ~50 in chains of tens of joints: a few hundred float ulps. */
            CHECK(worst < 2e-4, "convention %d, translations %d: sorted differs from 4x4 by %g", convention, with_translation, worst);
            CHECK(worst_shuffled < 2e-4, "convention %d, translations %d: shuffled differs by %g", convention, with_translation, worst_shuffled);
        }
}

static mat4 mat4_scale(fk_vec3 s)
{
    mat4 r = mat4_identity();
    r.m[0][0] = s.x; r.m[1][1] = s.y; r.m[2][2] = s.z;
    return r;
}

/* Largest difference between a 3x4 row-major float matrix and a 4x4 one. */
static double mat34_vs_mat4(const float *a, mat4 m)
{
    double worst = 0;
    int i, j;
    for (i = 0; i < 3; ++i)
        for (j = 0; j < 4; ++j) {
            double e = fabs((double)a[4 * i + j] - m.m[i][j]);
            if (e > worst) worst = e;
        }
    return worst;
}

/* Scales from 0.5 to 2 along each axis, with a zero or a mirroring one now and then. */
static fk_vec3 random_scale(void)
{
    float s[3];
    int c;
    for (c = 0; c < 3; ++c) {
        int pick = rng_below(12);
        s[c] = pick == 0 ? 0.0f : pick == 1 ? -rng_uniform(0.5f, 2.0f) : rng_uniform(0.5f, 2.0f);
    }
    return fk_vec3_make(s[0], s[1], s[2]);
}

#define SCALED 300

/* fk_forward_trs() and fk_forward_scaled() against products of 4x4 matrices in
   double, parent first: world_p T(t) R S, and world_p T(x + d) R S T(-x); sorted
   and shuffled. Every eighth joint scales (non-uniformly, by zero, mirrored),
   so that children of scaled joints are sheared when they turn. */
static void scaled_forward_matches_4x4_reference_in_any_order(void)
{
    static int parents[SCALED], parents2[SCALED], order[SCALED];
    static fk_vec3 rest[SCALED], rest2[SCALED], shift[SCALED], shift2[SCALED], scales[SCALED], scales2[SCALED];
    static fk_quat rotations[SCALED], rotations2[SCALED];
    static float world[12 * SCALED], world2[12 * SCALED];
    static mat4 reference[SCALED];
    int form, i;
    random_forest(SCALED, parents, rest, rotations, shift);
    for (i = 0; i < SCALED; ++i) scales[i] = i % 8 == 3 ? random_scale() : fk_vec3_make(1, 1, 1);
    random_permutation(SCALED, order);
    shuffle_joints(SCALED, order, parents, rest, rotations, shift, parents2, rest2, rotations2, shift2);
    for (i = 0; i < SCALED; ++i) scales2[order[i]] = scales[i];
    for (form = 0; form < 2; ++form) { /* 0: glTF's T R S, 1: about the rest pivots */
        double worst = 0, worst_shuffled = 0;
        fk_result r1, r2;
        for (i = 0; i < SCALED; ++i) {
            mat4 parent = parents[i] < 0 ? mat4_identity() : reference[parents[i]];
            fk_vec3 x = rest[i], d = shift[i];
            if (form == 0)
                reference[i] = mat4_mul(mat4_mul(mat4_mul(parent, mat4_translation(d.x, d.y, d.z)),
                                                 mat4_rotation(rotations[i])), mat4_scale(scales[i]));
            else
                reference[i] = mat4_mul(mat4_mul(mat4_mul(mat4_mul(parent, mat4_translation((double)x.x + d.x,
                                                                                               (double)x.y + d.y,
                                                                                               (double)x.z + d.z)),
                                                          mat4_rotation(rotations[i])), mat4_scale(scales[i])),
                                        mat4_translation(-x.x, -x.y, -x.z));
        }
        r1 = form ? fk_forward_scaled(SCALED, parents, rest, rotations, shift, scales, world)
                  : fk_forward_trs(SCALED, parents, shift, rotations, scales, world);
        r2 = form ? fk_forward_scaled(SCALED, parents2, rest2, rotations2, shift2, scales2, world2)
                  : fk_forward_trs(SCALED, parents2, shift2, rotations2, scales2, world2);
        CHECK(r1 == FK_OK && r2 == FK_OK, "form %d: results %d %d", form, r1, r2);
        for (i = 0; i < SCALED; ++i) {
            double e = mat34_vs_mat4(world + 12 * i, reference[i]);
            double e2 = mat34_vs_mat4(world2 + 12 * order[i], reference[i]);
            if (e > worst) worst = e;
            if (e2 > worst_shuffled) worst_shuffled = e2;
        }
        /* As for fk_forward(), coordinates up to ~50, now times scales of up to 2 on a path. */
        CHECK(worst < 2e-4, "form %d: sorted differs from 4x4 by %g", form, worst);
        CHECK(worst_shuffled < 2e-4, "form %d: shuffled differs by %g", form, worst_shuffled);
    }
}

/* Bad input to the functions with scale: every code fk_forward() gives, for
   the same reasons, and a chain whose scales multiply past float's range
   (finite inputs, an overflowing result); identities after every error. A
   cycle is reported as a cycle even where a joint outside it overflows. */
static void scaled_forward_bad_input_gets_its_codes(void)
{
    static const float identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    int parents[4] = {-1, 0, 1, 2}, e, j;
    fk_vec3 rest[4], translations[4], scales[4];
    fk_quat rotations[4];
    float world[48];
    struct { int joint; int what; fk_result expected; } cases[] = {
        {2, 0, FK_ERROR_NOT_FINITE},       /* NaN scale */
        {1, 1, FK_ERROR_NOT_FINITE},       /* infinite translation */
        {3, 2, FK_ERROR_INVALID_ROTATION}, /* zero rotation */
        {0, 3, FK_ERROR_NOT_FINITE},       /* scales of 1e20 twice: 1e40 overflows */
        {2, 4, FK_ERROR_CYCLE},            /* 2 -> 3 -> 2, after joint 1 has overflowed */
        {3, 5, FK_ERROR_PARENT_OUT_OF_RANGE},
        {3, 6, FK_ERROR_SELF_PARENT},
    };
    float zero = 0.0f;
    for (e = 0; e < (int)(sizeof cases / sizeof cases[0]); ++e) {
        int form;
        for (j = 0; j < 4; ++j) {
            parents[j] = j - 1;
            rest[j] = fk_vec3_make((float)j, 0, 0);
            translations[j] = fk_vec3_make(0, 1, 0);
            scales[j] = fk_vec3_make(1, 2, 1);
            rotations[j] = fk_quat_identity();
        }
        switch (cases[e].what) {
        case 0: scales[cases[e].joint].y = zero / zero; break;
        case 1: translations[cases[e].joint].z = 1.0f / zero; break;
        case 2: rotations[cases[e].joint] = fk_quat_make(0, 0, 0, 0); break;
        case 3: scales[0] = scales[1] = fk_vec3_make(1e20f, 1, 1); translations[2] = fk_vec3_make(1, 0, 0); break;
        case 4: parents[2] = 3; scales[0] = fk_vec3_make(3e38f, 1, 1); translations[1] = fk_vec3_make(1e10f, 0, 0); break;
        case 5: parents[3] = 4; break;
        default: parents[3] = 3; break;
        }
        for (form = 0; form < 2; ++form) {
            fk_result r = form ? fk_forward_trs(4, parents, translations, rotations, scales, world)
                               : fk_forward_scaled(4, parents, rest, rotations, translations, scales, world);
            int identities = 1;
            for (j = 0; j < 4; ++j) identities &= memcmp(world + 12 * j, identity, sizeof identity) == 0;
            CHECK(r == cases[e].expected && identities, "case %d, form %d: %s, identities %d", e, form,
                  fk_result_description(r), identities);
        }
    }
    CHECK(fk_forward_trs(-1, parents, translations, rotations, scales, world) == FK_ERROR_INVALID_COUNT, "count -1");
    CHECK(fk_forward_trs(0, NULL, NULL, NULL, NULL, NULL) == FK_OK, "no joints");
    CHECK(fk_forward_trs(4, parents, NULL, rotations, scales, world) == FK_ERROR_NULL_ARGUMENT, "trs without translations");
    CHECK(fk_forward_scaled(4, parents, NULL, rotations, NULL, NULL, world) == FK_ERROR_NULL_ARGUMENT, "no rest joints");
    CHECK(fk_forward_scaled(4, parents, rest, rotations, NULL, NULL, NULL) == FK_ERROR_NULL_ARGUMENT, "no output");
}

/* fk_forward_scaled_subtree() gives the full pass's bits: a random forest with
   scales, one subtree's rotations and scales changed, updated alone and in full,
   in both forms; and bad input is found before anything is written. */
static void scaled_subtree_update_matches_the_full_pass(void)
{
    static int parents[SCALED];
    static fk_vec3 rest[SCALED], shift[SCALED], scales[SCALED];
    static fk_quat rotations[SCALED];
    static float whole[12 * SCALED], part[12 * SCALED];
    int form, i, root = 17, cycle[3] = {2, 0, 1};
    random_forest(SCALED, parents, rest, rotations, shift);
    for (i = 0; i < SCALED; ++i) scales[i] = i % 8 == 3 ? random_scale() : fk_vec3_make(1, 1, 1);
    for (form = 0; form < 2; ++form) {
        const fk_vec3 *pivots = form ? rest : NULL;
        int changed = 0;
        CHECK((form ? fk_forward_scaled(SCALED, parents, rest, rotations, shift, scales, part)
                    : fk_forward_trs(SCALED, parents, shift, rotations, scales, part)) == FK_OK, "first pass");
        for (i = 0; i < SCALED; ++i) {
            int j = i;
            while (j >= 0 && j != root) j = parents[j];
            if (j == root) { rotations[i] = random_quat(); scales[i] = random_scale(); ++changed; }
        }
        CHECK(fk_forward_scaled_subtree(SCALED, parents, pivots, rotations, shift, scales, root, part) == FK_OK,
              "form %d: subtree update", form);
        CHECK((form ? fk_forward_scaled(SCALED, parents, rest, rotations, shift, scales, whole)
                    : fk_forward_trs(SCALED, parents, shift, rotations, scales, whole)) == FK_OK, "full pass");
        CHECK(changed > 1 && memcmp(part, whole, sizeof whole) == 0, "form %d: the update (%d joints) differs from the full "
              "pass", form, changed);
    }
    memcpy(whole, part, sizeof whole);
    CHECK(fk_forward_scaled_subtree(SCALED, parents, rest, rotations, shift, scales, SCALED, part) ==
              FK_ERROR_JOINT_OUT_OF_RANGE, "joint out of range");
    rotations[root] = fk_quat_make(0, 0, 0, 0);
    CHECK(fk_forward_scaled_subtree(SCALED, parents, rest, rotations, shift, scales, root, part) ==
              FK_ERROR_INVALID_ROTATION, "zero rotation in the subtree");
    CHECK(fk_forward_scaled_subtree(3, cycle, rest, rotations + 100, shift, scales, 0, part) == FK_ERROR_CYCLE,
          "a cycle through the subtree's root");
    {
        fk_rigid transforms[3];
        memset(transforms, 0x5a, sizeof transforms);
        CHECK(fk_forward_subtree(3, cycle, rest, rotations + 100, shift, 0, transforms) == FK_ERROR_CYCLE &&
                  ((unsigned char *)transforms)[3] == 0x5a,
              "fk_forward_subtree: a cycle through the root, reported before writing");
    }
    CHECK(memcmp(whole, part, sizeof whole) == 0, "written before an error");
}

/* By hand: a root scaled by 2 along x, its child a unit up and turned an eighth
   about z. The child's world matrix is diag(2, 1, 1) Rz(45), whose columns
   (sqrt 2, sqrt 1/2, 0) and (-sqrt 2, sqrt 1/2, 0) are no longer at right angles:
   the child is sheared, not scaled, and no T R S gives its matrix. */
static void nonuniform_parent_shears_a_turning_child(void)
{
    const int parents[2] = {-1, 0};
    const fk_vec3 translations[2] = {{0, 0, 0}, {0, 1, 0}}, scales[2] = {{2, 1, 1}, {1, 1, 1}};
    fk_quat rotations[2];
    float world[24];
    const double h = sqrt(0.5);
    const double expected[12] = {2 * h, -2 * h, 0, 0, h, h, 0, 1, 0, 0, 1, 0};
    double worst = 0, dot;
    int e;
    rotations[0] = fk_quat_identity();
    rotations[1] = fk_quat_from_axis_angle(fk_vec3_make(0, 0, 1), 0.785398163f);
    CHECK(fk_forward_trs(2, parents, translations, rotations, scales, world) == FK_OK, "fk_forward_trs");
    for (e = 0; e < 12; ++e)
        if (fabs(world[12 + e] - expected[e]) > worst) worst = fabs(world[12 + e] - expected[e]);
    dot = (double)world[12] * world[13] + (double)world[16] * world[17] + (double)world[20] * world[21];
    CHECK(worst < 1e-6, "child's world matrix off by %g", worst);
    CHECK(fabs(dot + 1.5) < 1e-5, "columns' dot product %g, not -1.5: not sheared", dot);
}

#define DEEP 5000

/* A single chain 5000 joints deep, listed leaf first: the any-order path walks it
   without recursion or scratch memory, and every joint stays on its parent. */
static void deep_chain_in_reverse_order_stays_connected(void)
{
    static int parents[DEEP];
    static fk_vec3 rest[DEEP];
    static fk_quat rotations[DEEP];
    static fk_rigid bones[DEEP];
    int i;
    double worst = 0;
    for (i = 0; i < DEEP; ++i) { /* joint i is the (DEEP-1-i)-th of the chain */
        parents[i] = i == DEEP - 1 ? -1 : i + 1;
        rest[i] = fk_vec3_make((float)(DEEP - 1 - i) * 0.01f, 0, 0);
        rotations[i] = fk_quat_from_axis_angle(random_vec3(1), rng_uniform(-0.05f, 0.05f));
    }
    CHECK(fk_validate_skeleton(DEEP, parents) == FK_OK, "valid");
    CHECK(fk_forward(DEEP, parents, rest, rotations, NULL, bones) == FK_OK, "fk_forward");
    for (i = 0; i < DEEP - 1; ++i) {
        double e = vec3_distance(fk_rigid_apply(bones[i], rest[i]), fk_rigid_apply(bones[i + 1], rest[i]));
        if (e > worst) worst = e;
        CHECK(fabsf(fk_quat_length(bones[i].q) - 1.0f) < 1e-6f, "joint %d rotation not unit", i);
    }
    CHECK(worst < 1e-4, "a joint is %g away from where its parent carries it", worst);
}

static void forest_with_roots_in_any_position(void)
{
    /* Two trees, children before parents: 0 <- 3, 1 <- 0, 2 root alone, 4 <- 2. */
    const int parents[5] = {3, 0, -1, -1, 2};
    const fk_vec3 rest[5] = {{1, 0, 0}, {2, 0, 0}, {0, 5, 0}, {0, 0, 0}, {0, 6, 0}};
    fk_quat rotations[5];
    fk_rigid bones[5];
    int i;
    for (i = 0; i < 5; ++i) rotations[i] = about(0, 0, 1, 90);
    CHECK(fk_forward(5, parents, rest, rotations, NULL, bones) == FK_OK, "fk_forward");
    CHECK(near3(fk_rigid_apply(bones[0], rest[0]), fk_vec3_make(0, 1, 0), 1e-6f), "0 carried by root 3");
    CHECK(near3(fk_rigid_apply(bones[1], rest[1]), fk_vec3_make(-1, 1, 0), 1e-6f), "1 carried by 0");
    CHECK(near3(fk_rigid_apply(bones[4], rest[4]), fk_rigid_apply(bones[2], rest[4]), 1e-6f), "4 carried by root 2");
    CHECK(near3(fk_rigid_apply(bones[2], rest[2]), rest[2], 1e-6f), "root 2 turns about its own pivot");
}

static void posed_joints_are_pivots_moved(void)
{
    const int parents[2] = {-1, 0};
    const fk_vec3 rest[2] = {{0, 0, 0}, {1, 0, 0}};
    fk_quat rotations[2];
    fk_rigid bones[2];
    fk_vec3 joints[2];
    rotations[0] = rotations[1] = about(0, 0, 1, 90);
    fk_forward(2, parents, rest, rotations, NULL, bones);
    CHECK(fk_posed_joints(2, rest, bones, joints) == FK_OK, "ok");
    CHECK(near3(joints[1], fk_vec3_make(0, 1, 0), 1e-6f), "elbow");
    CHECK(fk_posed_joints(-1, rest, bones, joints) == FK_ERROR_INVALID_COUNT, "negative");
    CHECK(fk_posed_joints(2, NULL, bones, joints) == FK_ERROR_NULL_ARGUMENT, "null");
}

static void non_unit_rotations_are_normalized_on_the_way_in(void)
{
    const int parents[2] = {-1, 0};
    const fk_vec3 rest[2] = {{0, 0, 0}, {1, 0, 0}};
    fk_quat unit[2], scaled[2];
    fk_rigid a[2], b[2];
    unit[0] = about(0, 0, 1, 30); unit[1] = about(0, 1, 0, 50);
    scaled[0] = fk_quat_make(unit[0].x * 3, unit[0].y * 3, unit[0].z * 3, unit[0].w * 3);
    scaled[1] = fk_quat_make(unit[1].x * 0.1f, unit[1].y * 0.1f, unit[1].z * 0.1f, unit[1].w * 0.1f);
    fk_forward(2, parents, rest, unit, NULL, a);
    fk_forward(2, parents, rest, scaled, NULL, b);
    CHECK(near_quat(a[1].q, b[1].q, 1e-6f) && near3(a[1].t, b[1].t, 1e-6f), "scaled input, same pose");
}

/* ---- Bad skeletons -------------------------------------------------------------------- */

static int all_identity(const fk_rigid *bones, int n)
{
    int i;
    for (i = 0; i < n; ++i)
        if (bones[i].q.x != 0 || bones[i].q.y != 0 || bones[i].q.z != 0 || bones[i].q.w != 1 || bones[i].t.x != 0 ||
            bones[i].t.y != 0 || bones[i].t.z != 0) return 0;
    return 1;
}

static void bad_skeletons_get_their_codes(void)
{
    const fk_vec3 rest[4] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}};
    fk_quat rotations[4];
    fk_rigid bones[4];
    const int good[4] = {-1, 0, 1, 2};
    const int out_of_range[4] = {-1, 0, 4, 2};
    const int self[4] = {-1, 1, 1, 2};
    const int cycle[4] = {-1, 2, 3, 1};      /* 1 -> 2 -> 3 -> 1, none reaches the root */
    const int two_cycle[4] = {1, 0, -1, 2};
    int i;
    for (i = 0; i < 4; ++i) rotations[i] = fk_quat_identity();
    CHECK(fk_forward(-1, good, rest, rotations, NULL, bones) == FK_ERROR_INVALID_COUNT, "negative count");
    CHECK(fk_forward(0, NULL, NULL, NULL, NULL, NULL) == FK_OK, "no joints, nothing to do");
    CHECK(fk_forward(4, NULL, rest, rotations, NULL, bones) == FK_ERROR_NULL_ARGUMENT, "parents NULL");
    CHECK(fk_forward(4, good, NULL, rotations, NULL, bones) == FK_ERROR_NULL_ARGUMENT, "rest NULL");
    CHECK(fk_forward(4, good, rest, NULL, NULL, bones) == FK_ERROR_NULL_ARGUMENT, "rotations NULL");
    CHECK(fk_forward(4, good, rest, rotations, NULL, NULL) == FK_ERROR_NULL_ARGUMENT, "out NULL");
    memset(bones, 0x7f, sizeof bones);
    CHECK(fk_forward(4, out_of_range, rest, rotations, NULL, bones) == FK_ERROR_PARENT_OUT_OF_RANGE, "out of range");
    CHECK(all_identity(bones, 4), "out holds identities after an error");
    CHECK(fk_forward(4, self, rest, rotations, NULL, bones) == FK_ERROR_SELF_PARENT, "self parent");
    memset(bones, 0x7f, sizeof bones);
    CHECK(fk_forward(4, cycle, rest, rotations, NULL, bones) == FK_ERROR_CYCLE, "cycle");
    CHECK(all_identity(bones, 4), "out holds identities after a cycle");
    CHECK(fk_forward_rest_frame(4, two_cycle, rest, rotations, NULL, bones) == FK_ERROR_CYCLE, "two-cycle");
    CHECK(fk_validate_skeleton(4, good) == FK_OK, "validate good");
    CHECK(fk_validate_skeleton(4, out_of_range) == FK_ERROR_PARENT_OUT_OF_RANGE, "validate range");
    CHECK(fk_validate_skeleton(4, self) == FK_ERROR_SELF_PARENT, "validate self");
    CHECK(fk_validate_skeleton(4, cycle) == FK_ERROR_CYCLE, "validate cycle");
    CHECK(fk_validate_skeleton(4, two_cycle) == FK_ERROR_CYCLE, "validate two-cycle");
    CHECK(fk_validate_skeleton(-3, good) == FK_ERROR_INVALID_COUNT, "validate negative");
    CHECK(fk_validate_skeleton(2, NULL) == FK_ERROR_NULL_ARGUMENT, "validate NULL");
}

static void bad_numbers_get_their_codes(void)
{
    const int parents[2] = {-1, 0};
    fk_vec3 rest[2] = {{0, 0, 0}, {1, 0, 0}}, shift[2] = {{0, 0, 0}, {0, 0, 0}};
    fk_quat rotations[2];
    fk_rigid bones[2];
    float zero = 0.0f;
    rotations[0] = rotations[1] = fk_quat_identity();
    rotations[1] = fk_quat_make(0, 0, 0, 0);
    CHECK(fk_forward(2, parents, rest, rotations, NULL, bones) == FK_ERROR_INVALID_ROTATION, "zero quaternion");
    rotations[1] = fk_quat_make(0, 0, 0, zero / zero);
    CHECK(fk_forward(2, parents, rest, rotations, NULL, bones) == FK_ERROR_INVALID_ROTATION, "NaN quaternion");
    rotations[1] = fk_quat_make(0, 1.0f / zero, 0, 1);
    CHECK(fk_forward(2, parents, rest, rotations, NULL, bones) == FK_ERROR_INVALID_ROTATION, "infinite quaternion");
    rotations[1] = fk_quat_identity();
    rest[1].y = zero / zero;
    CHECK(fk_forward(2, parents, rest, rotations, NULL, bones) == FK_ERROR_NOT_FINITE, "NaN rest joint");
    rest[1].y = 0;
    shift[0].z = -1.0f / zero;
    CHECK(fk_forward(2, parents, rest, rotations, shift, bones) == FK_ERROR_NOT_FINITE, "infinite translation");
}

static void inputs_are_never_modified(void)
{
    static int parents[FOREST], parents2[FOREST], order[FOREST], copy_parents[FOREST];
    static fk_vec3 rest[FOREST], rest2[FOREST], copy_rest[FOREST];
    static fk_quat rotations[FOREST], rotations2[FOREST], copy_rotations[FOREST];
    static fk_rigid bones[FOREST];
    random_forest(FOREST, parents, rest, rotations, NULL);
    random_permutation(FOREST, order);
    shuffle_joints(FOREST, order, parents, rest, rotations, NULL, parents2, rest2, rotations2, NULL);
    memcpy(copy_parents, parents2, sizeof parents2);
    memcpy(copy_rest, rest2, sizeof rest2);
    memcpy(copy_rotations, rotations2, sizeof rotations2);
    CHECK(fk_forward(FOREST, parents2, rest2, rotations2, NULL, bones) == FK_OK, "fk_forward");
    CHECK(memcmp(copy_parents, parents2, sizeof parents2) == 0 && memcmp(copy_rest, rest2, sizeof rest2) == 0 &&
          memcmp(copy_rotations, rotations2, sizeof rotations2) == 0, "inputs changed");
}

/* ---- Skinning ------------------------------------------------------------------------ */

#define BONES 12
#define VERTS 400
#define MAX_K 8

typedef struct mesh {
    int k;
    float positions[VERTS][3], normals[VERTS][3];
    uint16_t joints[VERTS][MAX_K];
    float weights[VERTS][MAX_K];
} mesh;

static void random_mesh(mesh *m, int k, int bones)
{
    int v, j;
    m->k = k;
    for (v = 0; v < VERTS; ++v) {
        float sum = 0;
        fk_vec3 p = random_vec3(3), n = fk_vec3_normalize(random_vec3(1));
        m->positions[v][0] = p.x; m->positions[v][1] = p.y; m->positions[v][2] = p.z;
        m->normals[v][0] = n.x; m->normals[v][1] = n.y; m->normals[v][2] = n.z;
        for (j = 0; j < k; ++j) { m->joints[v][j] = (uint16_t)rng_below(bones); sum += m->weights[v][j] = rng_uniform(0.05f, 1); }
        for (j = 0; j < k; ++j) m->weights[v][j] /= sum;
    }
}

static void random_bones(fk_rigid *bones, int n)
{
    int j;
    for (j = 0; j < n; ++j) bones[j] = fk_rigid_make(random_quat(), random_vec3(2));
}

static fk_skin_desc packed_desc(mesh *m, const fk_rigid *bones, int bone_count, float *out_p, float *out_n)
{
    fk_skin_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = VERTS;
    d.influences = m->k;
    d.positions = &m->positions[0][0];
    d.normals = out_n ? &m->normals[0][0] : NULL;
    d.joints = &m->joints[0][0];
    d.joint_stride = sizeof m->joints[0];
    d.weights = &m->weights[0][0];
    d.weight_stride = sizeof m->weights[0];
    d.transforms = bones;
    d.transform_count = bone_count;
    d.out_positions = out_p;
    d.out_normals = out_n;
    return d;
}

static fk_vec3 load(const float *p) { return fk_vec3_make(p[0], p[1], p[2]); }

/* LBS written the obvious way: each influence moves the point, the results average. */
static void reference_lbs(const mesh *m, int v, const fk_rigid *bones, fk_vec3 *p, fk_vec3 *n)
{
    int j;
    *p = *n = fk_vec3_make(0, 0, 0);
    for (j = 0; j < m->k; ++j) {
        fk_rigid b = bones[m->joints[v][j]];
        *p = fk_vec3_add(*p, fk_vec3_scale(fk_rigid_apply(b, load(m->positions[v])), m->weights[v][j]));
        *n = fk_vec3_add(*n, fk_vec3_scale(fk_quat_rotate(b.q, load(m->normals[v])), m->weights[v][j]));
    }
    *n = fk_vec3_normalize(*n);
}

/* DQS in double: blend (q, (t,0) q / 2) with signs toward the heaviest, normalize, apply. */
static void reference_dqs(const mesh *m, int v, const fk_rigid *bones, fk_vec3 *p, fk_vec3 *n)
{
    double real[4] = {0, 0, 0, 0}, dual[4] = {0, 0, 0, 0}, norm, x[3], y[3], t[3];
    int j, c, heaviest = 0;
    fk_quat first;
    for (j = 1; j < m->k; ++j) if (m->weights[v][j] > m->weights[v][heaviest]) heaviest = j;
    first = bones[m->joints[v][heaviest]].q;
    for (j = 0; j < m->k; ++j) {
        fk_rigid b = bones[m->joints[v][j]];
        double q[4] = {b.q.x, b.q.y, b.q.z, b.q.w}, d[4];
        double w = m->weights[v][j] * (fk_quat_dot(first, b.q) < 0 ? -1.0 : 1.0);
        d[0] = 0.5 * (b.t.x * q[3] + b.t.y * q[2] - b.t.z * q[1]);
        d[1] = 0.5 * (-b.t.x * q[2] + b.t.y * q[3] + b.t.z * q[0]);
        d[2] = 0.5 * (b.t.x * q[1] - b.t.y * q[0] + b.t.z * q[3]);
        d[3] = 0.5 * (-b.t.x * q[0] - b.t.y * q[1] - b.t.z * q[2]);
        for (c = 0; c < 4; ++c) { real[c] += w * q[c]; dual[c] += w * d[c]; }
    }
    norm = sqrt(real[0] * real[0] + real[1] * real[1] + real[2] * real[2] + real[3] * real[3]);
    for (c = 0; c < 4; ++c) { real[c] /= norm; dual[c] /= norm; }
    /* t = 2 vec(dual real*) */
    t[0] = 2 * (-dual[3] * real[0] + dual[0] * real[3] - dual[1] * real[2] + dual[2] * real[1]);
    t[1] = 2 * (-dual[3] * real[1] + dual[1] * real[3] - dual[2] * real[0] + dual[0] * real[2]);
    t[2] = 2 * (-dual[3] * real[2] + dual[2] * real[3] - dual[0] * real[1] + dual[1] * real[0]);
    {
        mat4 r = mat4_rotation(fk_quat_make((float)real[0], (float)real[1], (float)real[2], (float)real[3]));
        double pv[3] = {m->positions[v][0], m->positions[v][1], m->positions[v][2]};
        double nv[3] = {m->normals[v][0], m->normals[v][1], m->normals[v][2]};
        mat4_apply(r, pv, x);
        mat4_apply(r, nv, y);
    }
    *p = fk_vec3_make((float)(x[0] + t[0]), (float)(x[1] + t[1]), (float)(x[2] + t[2]));
    *n = fk_vec3_make((float)y[0], (float)y[1], (float)y[2]);
}

static mesh test_mesh, test_mesh_copy;
static float out_p[VERTS][3], out_n[VERTS][3];

static void skinning_matches_reference(int dqs)
{
    fk_rigid bones[BONES];
    int k, v;
    for (k = 1; k <= MAX_K; ++k) {
        fk_skin_desc d;
        float worst_p = 0, worst_n = 0;
        random_bones(bones, BONES);
        random_mesh(&test_mesh, k, BONES);
        d = packed_desc(&test_mesh, bones, BONES, &out_p[0][0], &out_n[0][0]);
        CHECK((dqs ? fk_skin_dqs(&d) : fk_skin_lbs(&d)) == FK_OK, "k = %d: skinning failed", k);
        for (v = 0; v < VERTS; ++v) {
            fk_vec3 p, n;
            if (dqs) reference_dqs(&test_mesh, v, bones, &p, &n);
            else reference_lbs(&test_mesh, v, bones, &p, &n);
            if (vec3_distance(p, load(out_p[v])) > worst_p) worst_p = vec3_distance(p, load(out_p[v]));
            if (vec3_distance(n, load(out_n[v])) > worst_n) worst_n = vec3_distance(n, load(out_n[v]));
        }
        /* Points within ~5 units, sums of up to 8 terms: a few tens of ulps. */
        CHECK(worst_p < 1e-5f && worst_n < 1e-5f, "k = %d: positions off by %g, normals by %g", k, worst_p, worst_n);
    }
}

static void lbs_matches_reference_for_k_1_to_8(void) { skinning_matches_reference(0); }
static void dqs_matches_reference_for_k_1_to_8(void) { skinning_matches_reference(1); }

/* By hand, one bone, one vertex each: the normal of an affine bone is its
   inverse transpose applied to the rest normal, renormalized.
   - Scale (2, 1/2, 1): a surface along the diagonal x = -y has the normal
     (1, 1, 0) / sqrt 2 and the tangent (1, -1, 0) / sqrt 2, which goes to
     (2, -1/2, 0) / sqrt 2. The normal goes to (1/2, 2, 0) / sqrt(17/4), at right
     angles to it; applying the matrix itself, as rigid LBS does, gives
     (2, 1/2, 0), off by 62 degrees.
   - Mirrored along x: the normal (1, 0, 0) of a surface facing +x faces -x
     afterwards, as the mirrored surface does.
   - Flattened along z: a slanted normal (0.6, 0, 0.8) becomes the flattened
     surface's (0, 0, 1); a normal in the plane of flattening (1, 0, 0) belongs
     to a surface collapsed to a line, which has none: (0, 0, 0).
   A weight of 1e20 or 1e-25 instead of 1 changes no normal, though the
   cofactors, products of two weighted columns, would leave float's range. */
static void affine_normals_worked_by_hand(void)
{
    static const struct { fk_vec3 scale, normal, expected; } cases[] = {
        {{2.0f, 0.5f, 1.0f}, {0.70710678f, 0.70710678f, 0.0f}, {0.24253563f, 0.97014250f, 0.0f}},
        {{-1.0f, 1.0f, 1.0f}, {1.0f, 0.0f, 0.0f}, {-1.0f, 0.0f, 0.0f}},
        {{1.0f, 1.0f, 0.0f}, {0.6f, 0.0f, 0.8f}, {0.0f, 0.0f, 1.0f}},
        {{1.0f, 1.0f, 0.0f}, {1.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}},
    };
    static const float weights[3] = {1.0f, 1e20f, 1e-25f};
    int c, method, w;
    for (c = 0; c < 4; ++c)
        for (method = 0; method < 2; ++method) /* the reference loop (no joint lists) and the fast one */
        for (w = 0; w < 3; ++w) {
            float matrix[12], position[3] = {0.5f, -1.0f, 2.0f}, normal[3], out_position[3], out_normal[3];
            float weight = weights[w];
            uint16_t joint = 0;
            fk_skin_desc d;
            fk_mat34_from_trs(fk_vec3_make(1, 2, 3), fk_quat_identity(), cases[c].scale, matrix);
            normal[0] = cases[c].normal.x; normal[1] = cases[c].normal.y; normal[2] = cases[c].normal.z;
            memset(&d, 0, sizeof d);
            d.vertex_count = 1; d.influences = 1; d.positions = position; d.normals = normal;
            d.joints = method ? &joint : NULL; d.weights = &weight;
            d.matrices = matrix; d.transform_count = 1;
            d.out_positions = out_position; d.out_normals = out_normal;
            CHECK(fk_skin_lbs(&d) == FK_OK, "case %d: skinning failed", c);
            CHECK(vec3_distance(load(out_normal), cases[c].expected) < 1e-6f, "case %d, %s, weight %g: normal (%g %g %g)",
                  c, method ? "joint lists" : "dense weights", weight, out_normal[0], out_normal[1], out_normal[2]);
            CHECK(w > 0 || vec3_distance(load(out_position), fk_vec3_make(0.5f * cases[c].scale.x + 1, -cases[c].scale.y + 2,
                                                                          2 * cases[c].scale.z + 3)) < 1e-6f,
                  "case %d: position (%g %g %g)", c, out_position[0], out_position[1], out_position[2]);
        }
}

/* Affine bones (rigid ones after a random linear map with scale, shear and
   mirroring) skinned by LBS against the definition in double: positions
   sum_k w_k M_k p, normals sign(det A) cof(A) n renormalized, A the blended
   linear part. A rigid rig given as matrices gives the rigid path's positions,
   and its normals wherever a vertex's bones agree (k = 1 here). */
static void affine_lbs_matches_reference_for_k_1_to_8(void)
{
    fk_rigid bones[BONES];
    float matrices[BONES][12];
    int k, v, j, r, c;
    for (k = 1; k <= MAX_K; ++k) {
        fk_skin_desc d;
        double worst_p = 0, worst_n = 0, worst_rigid = 0, worst_rigid_normal = 0;
        random_bones(bones, BONES);
        for (j = 0; j < BONES; ++j) {
            float rigid[12];
            double linear[9];
            fk_rigid_to_mat34(fk_rigid_make(fk_quat_normalize(bones[j].q), bones[j].t), rigid);
            for (r = 0; r < 9; ++r) linear[r] = (r % 4 == 0 ? rng_uniform(0.4f, 2.0f) : rng_uniform(-0.3f, 0.3f)) *
                                              (r < 3 && j % 4 == 1 ? -1 : 1);
            for (r = 0; r < 3; ++r) {
                for (c = 0; c < 3; ++c)
                    matrices[j][4 * r + c] = (float)(rigid[4 * r] * linear[c] + rigid[4 * r + 1] * linear[3 + c] +
                                                     rigid[4 * r + 2] * linear[6 + c]);
                matrices[j][4 * r + 3] = rigid[4 * r + 3];
            }
        }
        random_mesh(&test_mesh, k, BONES);
        d = packed_desc(&test_mesh, NULL, BONES, &out_p[0][0], &out_n[0][0]);
        d.matrices = &matrices[0][0];
        CHECK(fk_skin_lbs(&d) == FK_OK, "k = %d: skinning failed", k);
        for (v = 0; v < VERTS; ++v) {
            double blend[12] = {0}, p[3], cof[3][3], n[3] = {0, 0, 0}, det, length;
            for (j = 0; j < k; ++j)
                for (c = 0; c < 12; ++c) blend[c] += (double)test_mesh.weights[v][j] * matrices[test_mesh.joints[v][j]][c];
            for (r = 0; r < 3; ++r)
                p[r] = blend[4 * r] * test_mesh.positions[v][0] + blend[4 * r + 1] * test_mesh.positions[v][1] +
                       blend[4 * r + 2] * test_mesh.positions[v][2] + blend[4 * r + 3];
            for (c = 0; c < 3; ++c) { /* cofactor column c: the cross product of the other two columns */
                int a = (c + 1) % 3, b = (c + 2) % 3;
                cof[c][0] = blend[4 + a] * blend[8 + b] - blend[8 + a] * blend[4 + b];
                cof[c][1] = blend[8 + a] * blend[b] - blend[a] * blend[8 + b];
                cof[c][2] = blend[a] * blend[4 + b] - blend[4 + a] * blend[b];
                for (r = 0; r < 3; ++r) n[r] += cof[c][r] * test_mesh.normals[v][c];
            }
            det = blend[0] * cof[0][0] + blend[4] * cof[0][1] + blend[8] * cof[0][2];
            length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) * (det < 0 ? -1 : 1);
            for (r = 0; r < 3; ++r) {
                double ep = fabs(out_p[v][r] - p[r]), en = fabs(out_n[v][r] - n[r] / length);
                if (ep > worst_p) worst_p = ep;
                if (en > worst_n) worst_n = en;
            }
        }
        /* Points within ~10 units, sums of up to 8 terms; a normal's error grows
           where the blended linear part is nearly singular, which random bones of
           this size seldom come near. */
        CHECK(worst_p < 2e-5 && worst_n < 2e-4, "k = %d: positions off by %g, normals by %g", k, worst_p, worst_n);
        /* the rigid bones as matrices */
        for (j = 0; j < BONES; ++j) fk_rigid_to_mat34(fk_rigid_make(fk_quat_normalize(bones[j].q), bones[j].t), matrices[j]);
        CHECK(fk_skin_lbs(&d) == FK_OK, "k = %d: skinning rigid matrices failed", k);
        {
            static float rigid_p[VERTS][3], rigid_n[VERTS][3];
            fk_skin_desc e = packed_desc(&test_mesh, bones, BONES, &rigid_p[0][0], &rigid_n[0][0]);
            CHECK(fk_skin_lbs(&e) == FK_OK, "k = %d: rigid skinning failed", k);
            for (v = 0; v < VERTS; ++v) {
                double ep = vec3_distance(load(out_p[v]), load(rigid_p[v]));
                double en = vec3_distance(load(out_n[v]), load(rigid_n[v]));
                if (ep > worst_rigid) worst_rigid = ep;
                if (k == 1 && en > worst_rigid_normal) worst_rigid_normal = en;
            }
        }
        CHECK(worst_rigid < 1e-5 && worst_rigid_normal < 1e-6, "k = %d: rigid matrices give positions %g, normals %g "
              "from the rigid path", k, worst_rigid, worst_rigid_normal);
    }
}

/* Bones with scale under DQS: random affine bones (scale, shear, a mirror)
   and random rigid bind poses. One bone alone gives its matrix exactly,
   whichever centre and whatever the weight: the scale part and the rigid part
   recompose it, and the normal is its cofactor normal (that of its linear
   part). */
static void random_affine_bones(float (*matrices)[12], fk_rigid *bind, int n)
{
    int j, r, c;
    for (j = 0; j < n; ++j) {
        float rigid[12];
        double linear[9];
        bind[j] = fk_rigid_make(random_quat(), random_vec3(2));
        fk_rigid_to_mat34(fk_rigid_make(fk_quat_normalize(random_quat()), random_vec3(2)), rigid);
        for (r = 0; r < 9; ++r)
            linear[r] = (r % 4 == 0 ? rng_uniform(0.4f, 2.0f) : rng_uniform(-0.3f, 0.3f)) * (r < 3 && j % 4 == 1 ? -1 : 1);
        for (r = 0; r < 3; ++r) {
            for (c = 0; c < 3; ++c)
                matrices[j][4 * r + c] = (float)(rigid[4 * r] * linear[c] + rigid[4 * r + 1] * linear[3 + c] +
                                                 rigid[4 * r + 2] * linear[6 + c]);
            matrices[j][4 * r + 3] = rigid[4 * r + 3];
        }
    }
}

static void dqs_with_scale_on_one_bone_is_the_matrix(void)
{
    float matrices[BONES][12];
    fk_rigid bind[BONES];
    int centre, v, r;
    random_affine_bones(matrices, bind, BONES);
    random_mesh(&test_mesh, 1, BONES);
    for (centre = 0; centre < 4; ++centre) { /* each centre, with weights 1 and then 3 */
        fk_skin_desc d = packed_desc(&test_mesh, NULL, BONES, &out_p[0][0], &out_n[0][0]);
        double worst_p = 0, worst_n = 0;
        d.matrices = &matrices[0][0];
        d.bind_poses = bind;
        d.dqs_scale_center = centre % 2 ? FK_DQS_SCALE_AT_BONE : FK_DQS_SCALE_AT_VERTEX;
        for (v = 0; v < VERTS; ++v) test_mesh.weights[v][0] = centre < 2 ? 1.0f : 3.0f;
        CHECK(fk_skin_dqs(&d) == FK_OK, "centre %d: skinning failed", centre);
        for (v = 0; v < VERTS; ++v) {
            const float *m = matrices[test_mesh.joints[v][0]];
            const float *p = test_mesh.positions[v], *n = test_mesh.normals[v];
            double a[3], b[3], c[3], normal[3], length, sign;
            for (r = 0; r < 3; ++r) {
                double e = fabs(out_p[v][r] - (m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3]));
                if (e > worst_p) worst_p = e;
                a[r] = m[4 * r]; b[r] = m[4 * r + 1]; c[r] = m[4 * r + 2];
            }
            for (r = 0; r < 3; ++r) { /* n_x (b x c) + n_y (c x a) + n_z (a x b) */
                int s1 = (r + 1) % 3, s2 = (r + 2) % 3;
                normal[r] = n[0] * (b[s1] * c[s2] - b[s2] * c[s1]) + n[1] * (c[s1] * a[s2] - c[s2] * a[s1]) +
                            n[2] * (a[s1] * b[s2] - a[s2] * b[s1]);
            }
            sign = a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
            length = sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]) * (sign < 0 ? -1 : 1);
            for (r = 0; r < 3; ++r)
                if (fabs(out_n[v][r] - normal[r] / length) > worst_n) worst_n = fabs(out_n[v][r] - normal[r] / length);
        }
        /* points within ~10 units through a split in double and a dual quaternion in float */
        CHECK(worst_p < 2e-5 && worst_n < 2e-5, "centre %d: one bone's matrix off by %g, its normal by %g", centre,
              worst_p, worst_n);
    }
}

/* Eight vertices of tests/data/blender_scaled_rig.txt (see test_realdata.c):
   a four-bone rig posed with stretch, squash and a mirror, and what Debian's
   Blender 3.4.1 made of them with Preserve Volume. DQS with scale centred at
   the bones, given the bones' rest frames as bind poses and pose x rest^-1 as
   matrices, lands on Blender's vertices to float rounding; centred at the
   vertex it does not. */
static void dqs_with_scale_matches_blender_by_hand(void)
{
    static const float rest[4][12] = {
        {1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f,
         0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f},
        {0.893915474f, 0.282216251f, 0.348237038f, 0.0f, -0.186671615f, 0.940720856f,
         -0.283192456f, 1.0f, -0.407515347f, 0.188144177f, 0.893606722f, 0.0f},
        {0.771623254f, -0.0851256847f, -0.630357981f, 0.300000012f, -0.154250145f, 0.936382115f,
         -0.315270275f, 2.0f, 0.617093623f, 0.34050265f, 0.709403515f, 0.200000018f},
        {0.104122773f, 0.957826138f, 0.267819405f, 0.0f, -0.347075731f, 0.287347794f,
         -0.892731488f, 1.0f, -0.932039022f, 0.0f, 0.362357706f, 0.0f},
    };
    static const float pose[4][12] = {
        {1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.2419374f,
         -0.295520157f, 0.0f, 0.0f, 0.384176195f, 0.955336511f, 0.0f},
        {0.407057345f, -1.00797129f, 0.570665359f, 0.0f, 0.549574852f, 0.840759993f,
         -0.908035398f, 1.2419374f, 0.162182301f, 1.46301198f, 0.685762405f, 0.384176195f},
        {0.668980062f, -0.525755346f, -0.374720335f, -1.07148826f, -0.861848354f, 0.522388816f,
         -0.54217571f, 2.13567758f, 1.30229747f, 0.659380198f, 0.162381351f, 1.93937922f},
        {-0.0859610587f, 0.934733033f, 0.34479624f, 0.0f, -0.800526619f, 0.278517842f,
         -0.954633653f, 1.2419374f, 0.692701459f, 0.318921626f, -0.691890717f, 0.384176195f},
    };
    /* x y z, joint, weight, joint, weight; Blender's DQS position */
    static const float vertices[8][10] = {
        {-0.6f, 0.75f, -0.15f, 0.0f, 0.625f, 1.0f, 0.375f,
         -0.440364599f, 0.790217161f, -0.111773431f},
        {-0.6f, 2.5f, -0.15f, 2.0f, 0.85f, 1.0f, 0.15f,
         -2.01018691f, 3.01560593f, 1.04826236f},
        {-0.3f, 1.75f, -0.1f, 1.0f, 0.625f, 2.0f, 0.375f,
         -1.16456449f, 2.03968906f, 0.950939119f},
        {-0.3f, 2.75f, -0.1f, 2.0f, 0.85f, 1.0f, 0.15f,
         -1.9159174f, 3.12508464f, 1.47728121f},
        {0.0f, 2.0f, -0.05f, 2.0f, 0.85f, 1.0f, 0.15f,
         -1.27433932f, 2.3946135f, 1.4202193f},
        {0.0f, 3.0f, -0.05f, 2.0f, 0.85f, 1.0f, 0.15f,
         -1.82164764f, 3.23456264f, 1.90629995f},
        {0.3f, 2.25f, 2.77555756e-17f, 2.0f, 0.85f, 1.0f, 0.15f,
         -1.1800698f, 2.50409198f, 1.84923792f},
        {0.6f, 0.75f, 0.05f, 0.0f, 0.625f, 3.0f, 0.375f,
         0.517754674f, 1.10221601f, 0.389121562f},
    };
    float matrices[4][12], inverse[12], positions[8][3], weights[8][2], out[8][3];
    uint16_t joints[8][2];
    fk_rigid bind[4];
    fk_skin_desc d;
    double worst = 0.0, at_vertex = 0.0;
    int b, v, e, centre;
    for (b = 0; b < 4; ++b) {
        CHECK(fk_mat34_inverse(rest[b], inverse) == FK_OK, "rest frame %d inverts", b);
        fk_mat34_mul(pose[b], inverse, matrices[b]);
        bind[b] = fk_rigid_from_mat34(rest[b]);
    }
    for (v = 0; v < 8; ++v) {
        for (e = 0; e < 3; ++e) positions[v][e] = vertices[v][e];
        joints[v][0] = (uint16_t)vertices[v][3]; weights[v][0] = vertices[v][4];
        joints[v][1] = (uint16_t)vertices[v][5]; weights[v][1] = vertices[v][6];
    }
    memset(&d, 0, sizeof d);
    d.vertex_count = 8; d.influences = 2; d.positions = &positions[0][0]; d.joints = &joints[0][0];
    d.weights = &weights[0][0]; d.matrices = &matrices[0][0]; d.bind_poses = bind; d.transform_count = 4;
    d.out_positions = &out[0][0];
    for (centre = 0; centre < 2; ++centre) {
        d.dqs_scale_center = centre ? FK_DQS_SCALE_AT_VERTEX : FK_DQS_SCALE_AT_BONE;
        CHECK(fk_skin_dqs(&d) == FK_OK, "skinning failed");
        for (v = 0; v < 8; ++v)
            for (e = 0; e < 3; ++e) {
                double error = fabs((double)out[v][e] - (double)vertices[v][7 + e]);
                if (centre) at_vertex = error > at_vertex ? error : at_vertex;
                else worst = error > worst ? error : worst;
            }
    }
    /* the rig is 5.5 units across; float rounding there is a few 1e-7 */
    CHECK(worst < 5e-6, "DQS with scale at the bones is %g from Blender 3.4.1's Preserve Volume", worst);
    CHECK(at_vertex > 1e-2, "centred at the vertex it is only %g from Blender 3.4.1: the rig shows nothing", at_vertex);
}

/* DQS of bones with scale without bind poses: they are needed to split the
   bones, and their absence is reported before anything is written; bad bind
   poses and a centre that names nothing get their codes. */
static void dqs_with_scale_needs_bind_poses(void)
{
    float matrices[BONES][12];
    fk_rigid bind[BONES];
    fk_skin_desc d;
    float zero = 0.0f;
    random_affine_bones(matrices, bind, BONES);
    random_mesh(&test_mesh, 2, BONES);
    d = packed_desc(&test_mesh, NULL, BONES, &out_p[0][0], &out_n[0][0]);
    d.matrices = &matrices[0][0];
    memset(out_p, 0x5a, sizeof out_p);
    CHECK(fk_skin_dqs(&d) == FK_ERROR_MISSING_BIND_POSES && fk_skin_validate(&d, FK_SKIN_DQS) == FK_ERROR_MISSING_BIND_POSES,
          "no bind poses");
    CHECK(((unsigned char *)out_p)[0] == 0x5a, "written before the error");
    CHECK(fk_skin_lbs(&d) == FK_OK && fk_skin_validate(&d, FK_SKIN_LBS) == FK_OK, "LBS needs none");
    d.bind_poses = bind;
    CHECK(fk_skin_dqs(&d) == FK_OK, "with bind poses");
    bind[3].q = fk_quat_make(0, 0, 0, 0);
    CHECK(fk_skin_dqs(&d) == FK_ERROR_INVALID_ROTATION && fk_skin_validate(&d, FK_SKIN_DQS) == FK_ERROR_INVALID_ROTATION,
          "zero bind rotation");
    bind[3].q = fk_quat_identity(); bind[3].t.y = zero / zero;
    CHECK(fk_skin_dqs(&d) == FK_ERROR_NOT_FINITE, "NaN bind translation");
    bind[3].t.y = 0;
    d.dqs_scale_center = (fk_dqs_scale_center)7;
    CHECK(fk_skin_dqs(&d) == FK_ERROR_INVALID_OPTION && fk_skin_lbs(&d) == FK_ERROR_INVALID_OPTION, "centre 7");
}

static double larger(double a, double b) { return a > b ? a : b; }

/* The engine bridge for rigs with scale: rest frames F B_i with F = 100 (a
   centimetre armature; mirrored along x for the second rig) and B_i rigid.
   fk_bind_frames_from_matrices() finds a space F' (F' F'^T = F F^T; for the
   mirrored rig -100, an equally good choice) and rigid frames B'_i with
   F' B'_i = F B_i; fk_skin_matrices_from_matrices() gives the matrices that F'
   takes back to the engine's W_i IB_i, here with W_i = F B_i S, the joint
   scaled by S in its own frame. */
static void engine_rest_frames_and_their_space(void)
{
    int mirrored, j, e, r;
    for (mirrored = 0; mirrored < 2; ++mirrored) {
        float f[12], frames[BONES][12], inverse_bind[BONES][12], world[BONES][12], space[12], matrices[BONES][12];
        float scale[12], space_inverse[12], product[12], engine[12];
        fk_rigid bind[BONES], found[BONES];
        double worst_space = 0, worst_frame = 0, worst_matrix = 0;
        fk_mat34_from_trs(fk_vec3_make(0, 0, 0), fk_quat_identity(), fk_vec3_make(mirrored ? -100.0f : 100.0f, 100, 100), f);
        fk_mat34_from_trs(fk_vec3_make(0, 0, 0), fk_quat_identity(), fk_vec3_make(1.5f, 0.5f, 1.0f), scale);
        random_bones(bind, BONES);
        for (j = 0; j < BONES; ++j) {
            float rigid[12];
            fk_rigid_to_mat34(fk_rigid_make(fk_quat_normalize(bind[j].q), bind[j].t), rigid);
            fk_mat34_mul(f, rigid, frames[j]);
            CHECK(fk_mat34_inverse(frames[j], inverse_bind[j]) == FK_OK, "inverse");
            fk_mat34_mul(frames[j], scale, world[j]);
        }
        CHECK(fk_bind_frames_from_matrices(BONES, &inverse_bind[0][0], space, found) == FK_OK, "bind frames");
        CHECK(fk_skin_matrices_from_matrices(BONES, &inverse_bind[0][0], &world[0][0], space, &matrices[0][0]) == FK_OK,
              "skinning matrices");
        CHECK(fk_mat34_inverse(space, space_inverse) == FK_OK, "the space inverts");
        for (r = 0; r < 3; ++r) /* F' F'^T = 10^4 I */
            for (e = 0; e < 3; ++e) {
                double dot = (double)space[4 * r] * space[4 * e] + (double)space[4 * r + 1] * space[4 * e + 1] +
                             (double)space[4 * r + 2] * space[4 * e + 2];
                worst_space = larger(worst_space, fabs(dot - (r == e ? 1e4 : 0.0)) / 1e4);
            }
        for (j = 0; j < BONES; ++j) {
            float mine[12];
            fk_rigid_to_mat34(found[j], mine);
            fk_mat34_mul(space, mine, product);
            for (e = 0; e < 12; ++e)
                worst_frame = larger(worst_frame, fabs((double)product[e] - (double)frames[j][e]) / 100.0);
            fk_mat34_mul(world[j], inverse_bind[j], engine);
            fk_mat34_mul(space, matrices[j], product);
            fk_mat34_mul(product, space_inverse, product);
            for (e = 0; e < 12; ++e) worst_matrix = larger(worst_matrix, fabs((double)product[e] - (double)engine[e]));
        }
        CHECK(worst_space < 1e-6 && worst_frame < 1e-5 && worst_matrix < 1e-5,
              "mirrored %d: space off by %g, rest frames by %g, matrices by %g", mirrored, worst_space, worst_frame,
              worst_matrix);
    }
    {
        float ib[2][12], space[12];
        fk_rigid found[2];
        fk_mat34_from_trs(fk_vec3_make(0, 0, 0), fk_quat_identity(), fk_vec3_make(1, 1, 1), ib[0]);
        fk_mat34_from_trs(fk_vec3_make(0, 0, 0), fk_quat_identity(), fk_vec3_make(2, 1, 1), ib[1]);
        CHECK(fk_bind_frames_from_matrices(2, &ib[0][0], space, found) == FK_ERROR_NOT_RIGID,
              "rest frames with different scales");
    }
}

/* An interleaved vertex: what a game engine's vertex buffer looks like. */
typedef struct interleaved_vertex {
    float normal[3];
    uint16_t joints[4];
    float position[3];
    float weights[4];
    float padding;
} interleaved_vertex;

static interleaved_vertex interleaved[VERTS];
static interleaved_vertex interleaved_out[VERTS];

static void strided_interleaved_and_in_place_give_the_same_answer(void)
{
    fk_rigid bones[BONES];
    int method, v, j;
    random_bones(bones, BONES);
    random_mesh(&test_mesh, 4, BONES);
    for (v = 0; v < VERTS; ++v) {
        memcpy(interleaved[v].position, test_mesh.positions[v], sizeof(float[3]));
        memcpy(interleaved[v].normal, test_mesh.normals[v], sizeof(float[3]));
        for (j = 0; j < 4; ++j) { interleaved[v].joints[j] = test_mesh.joints[v][j]; interleaved[v].weights[j] = test_mesh.weights[v][j]; }
    }
    for (method = 0; method < 2; ++method) {
        fk_skin_desc packed = packed_desc(&test_mesh, bones, BONES, &out_p[0][0], &out_n[0][0]), d = packed;
        fk_result (*skin)(const fk_skin_desc *) = method ? fk_skin_dqs : fk_skin_lbs;
        int same = 1;
        CHECK(skin(&packed) == FK_OK, "packed");
        d.positions = interleaved[0].position;  d.position_stride = sizeof(interleaved_vertex);
        d.normals = interleaved[0].normal;      d.normal_stride = sizeof(interleaved_vertex);
        d.joints = interleaved[0].joints;       d.joint_stride = sizeof(interleaved_vertex);
        d.weights = interleaved[0].weights;     d.weight_stride = sizeof(interleaved_vertex);
        memcpy(interleaved_out, interleaved, sizeof interleaved);
        d.out_positions = interleaved_out[0].position; d.out_position_stride = sizeof(interleaved_vertex);
        d.out_normals = interleaved_out[0].normal;     d.out_normal_stride = sizeof(interleaved_vertex);
        CHECK(skin(&d) == FK_OK, "interleaved");
        for (v = 0; v < VERTS; ++v)
            same = same && memcmp(interleaved_out[v].position, out_p[v], sizeof(float[3])) == 0 &&
                   memcmp(interleaved_out[v].normal, out_n[v], sizeof(float[3])) == 0 &&
                   memcmp(interleaved_out[v].joints, interleaved[v].joints, sizeof(uint16_t[4])) == 0 &&
                   interleaved_out[v].padding == interleaved[v].padding;
        CHECK(same, "method %d: interleaved output differs from packed, or bytes between fields changed", method);
        /* In place: the output is the input buffer itself. */
        d.out_positions = (float *)interleaved_out[0].position;
        d.positions = interleaved_out[0].position;
        d.normals = interleaved_out[0].normal;
        memcpy(interleaved_out, interleaved, sizeof interleaved);
        CHECK(skin(&d) == FK_OK, "in place");
        for (v = 0; v < VERTS; ++v)
            same = same && memcmp(interleaved_out[v].position, out_p[v], sizeof(float[3])) == 0 &&
                   memcmp(interleaved_out[v].normal, out_n[v], sizeof(float[3])) == 0;
        CHECK(same, "method %d: in-place output differs", method);
    }
}

static void dense_weights_equal_sparse_weights(void)
{
    static float dense[VERTS][BONES];
    fk_rigid bones[BONES];
    static float sparse_out[VERTS][3];
    int v, j, method;
    random_bones(bones, BONES);
    random_mesh(&test_mesh, 3, BONES);
    memset(dense, 0, sizeof dense);
    for (v = 0; v < VERTS; ++v)
        for (j = 0; j < 3; ++j) dense[v][test_mesh.joints[v][j]] += test_mesh.weights[v][j];
    for (method = 0; method < 2; ++method) {
        fk_result (*skin)(const fk_skin_desc *) = method ? fk_skin_dqs : fk_skin_lbs;
        fk_skin_desc d = packed_desc(&test_mesh, bones, BONES, &sparse_out[0][0], NULL);
        float worst = 0;
        CHECK(skin(&d) == FK_OK, "sparse");
        d.joints = NULL; d.joint_stride = 0;
        d.weights = &dense[0][0]; d.weight_stride = 0;
        d.influences = BONES;
        d.out_positions = &out_p[0][0];
        CHECK(skin(&d) == FK_OK, "dense");
        for (v = 0; v < VERTS; ++v)
            if (vec3_distance(load(out_p[v]), load(sparse_out[v])) > worst) worst = vec3_distance(load(out_p[v]), load(sparse_out[v]));
        CHECK(worst < 1e-5f, "method %d: dense differs from sparse by %g", method, worst);
        d.influences = BONES - 1;
        CHECK(skin(&d) == FK_ERROR_INVALID_COUNT, "dense weights need one weight per transform");
    }
}

static void rigs_larger_than_the_palette_skin_correctly(void)
{
    enum { MANY = FK_LBS_PALETTE_CAPACITY + 44 };
    static fk_rigid bones[MANY];
    int v, method;
    random_bones(bones, MANY);
    random_mesh(&test_mesh, 4, MANY);
    for (method = 0; method < 2; ++method) {
        fk_skin_desc d = packed_desc(&test_mesh, bones, MANY, &out_p[0][0], &out_n[0][0]);
        float worst = 0;
        CHECK((method ? fk_skin_dqs(&d) : fk_skin_lbs(&d)) == FK_OK, "skin");
        for (v = 0; v < VERTS; ++v) {
            fk_vec3 p, n;
            if (method) reference_dqs(&test_mesh, v, bones, &p, &n); else reference_lbs(&test_mesh, v, bones, &p, &n);
            if (vec3_distance(p, load(out_p[v])) > worst) worst = vec3_distance(p, load(out_p[v]));
        }
        CHECK(worst < 1e-5f, "method %d: off by %g", method, worst);
    }
}

static void dqs_ignores_the_sign_of_each_rotation(void)
{
    fk_rigid bones[BONES], flipped[BONES];
    static float flipped_out[VERTS][3];
    int j, v;
    float worst = 0;
    random_bones(bones, BONES);
    random_mesh(&test_mesh, 4, BONES);
    for (j = 0; j < BONES; ++j) flipped[j] = fk_rigid_make(j % 2 ? negated(bones[j].q) : bones[j].q, bones[j].t);
    {
        fk_skin_desc a = packed_desc(&test_mesh, bones, BONES, &out_p[0][0], NULL);
        fk_skin_desc b = packed_desc(&test_mesh, flipped, BONES, &flipped_out[0][0], NULL);
        CHECK(fk_skin_dqs(&a) == FK_OK && fk_skin_dqs(&b) == FK_OK, "skin");
    }
    for (v = 0; v < VERTS; ++v)
        if (vec3_distance(load(out_p[v]), load(flipped_out[v])) > worst) worst = vec3_distance(load(out_p[v]), load(flipped_out[v]));
    CHECK(worst < 1e-5f, "negating rotations moved a vertex by %g", worst);
}

static void dqs_with_zero_weights_keeps_the_rest_position(void)
{
    fk_rigid bones[BONES];
    random_bones(bones, BONES);
    random_mesh(&test_mesh, 2, BONES);
    test_mesh.weights[7][0] = test_mesh.weights[7][1] = 0;
    {
        fk_skin_desc d = packed_desc(&test_mesh, bones, BONES, &out_p[0][0], &out_n[0][0]);
        CHECK(fk_skin_dqs(&d) == FK_OK, "skin");
    }
    CHECK(near3(load(out_p[7]), load(test_mesh.positions[7]), 0) && near3(load(out_n[7]), load(test_mesh.normals[7]), 0),
          "vertex 7 moved");
}

static void a_bad_joint_index_stops_at_its_vertex(void)
{
    fk_rigid bones[BONES];
    int method, v;
    random_bones(bones, BONES);
    for (method = 0; method < 2; ++method) {
        fk_result (*skin)(const fk_skin_desc *) = method ? fk_skin_dqs : fk_skin_lbs;
        fk_skin_desc d;
        int before_written = 1, after_untouched = 1;
        random_mesh(&test_mesh, 4, BONES);
        test_mesh.joints[100][2] = BONES; /* one past the end */
        d = packed_desc(&test_mesh, bones, BONES, &out_p[0][0], &out_n[0][0]);
        memset(out_p, 0xff, sizeof out_p); /* NaN pattern: any vertex written changes it */
        CHECK(fk_skin_validate(&d, FK_SKIN_LBS) == FK_ERROR_JOINT_OUT_OF_RANGE &&
                  fk_skin_validate(&d, FK_SKIN_DQS) == FK_ERROR_JOINT_OUT_OF_RANGE, "validate finds it");
        CHECK(skin(&d) == FK_ERROR_JOINT_OUT_OF_RANGE, "skinning reports it");
        for (v = 0; v < VERTS; ++v) {
            const unsigned char pattern[sizeof out_p[0]] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
            int untouched = memcmp(out_p[v], pattern, sizeof pattern) == 0;
            if (v < 100 && untouched) before_written = 0;
            if (v >= 100 && !untouched) after_untouched = 0;
        }
        CHECK(before_written && after_untouched, "method %d: vertices before 100 written, from 100 on untouched", method);
    }
}

static void bad_descriptors_get_their_codes(void)
{
    fk_rigid bones[BONES];
    fk_skin_desc good, d;
    float zero = 0;
    random_bones(bones, BONES);
    random_mesh(&test_mesh, 4, BONES);
    memcpy(&test_mesh_copy, &test_mesh, sizeof test_mesh);
    good = packed_desc(&test_mesh, bones, BONES, &out_p[0][0], &out_n[0][0]);
#define EXPECT(code, what) \
    CHECK(fk_skin_validate(&d, FK_SKIN_LBS) == (code) && fk_skin_validate(&d, FK_SKIN_DQS) == (code) && \
          fk_skin_lbs(&d) == (code) && fk_skin_dqs(&d) == (code), what)
    d = good; EXPECT(FK_OK, "good descriptor");
    CHECK(fk_skin_lbs(NULL) == FK_ERROR_NULL_ARGUMENT && fk_skin_dqs(NULL) == FK_ERROR_NULL_ARGUMENT &&
          fk_skin_validate(NULL, FK_SKIN_DQS) == FK_ERROR_NULL_ARGUMENT, "NULL descriptor");
    d = good; d.vertex_count = -1; EXPECT(FK_ERROR_INVALID_COUNT, "negative vertex count");
    d = good; d.influences = 0; EXPECT(FK_ERROR_INVALID_COUNT, "no influences");
    d = good; d.transform_count = -2; EXPECT(FK_ERROR_INVALID_COUNT, "negative transform count");
    d = good; d.positions = NULL; EXPECT(FK_ERROR_NULL_ARGUMENT, "positions NULL");
    d = good; d.weights = NULL; EXPECT(FK_ERROR_NULL_ARGUMENT, "weights NULL");
    d = good; d.out_positions = NULL; EXPECT(FK_ERROR_NULL_ARGUMENT, "out_positions NULL");
    d = good; d.out_normals = NULL; EXPECT(FK_ERROR_NULL_ARGUMENT, "normals without out_normals");
    d = good; d.transforms = NULL; EXPECT(FK_ERROR_NULL_ARGUMENT, "transforms NULL");
    d = good; d.position_stride = 8; EXPECT(FK_ERROR_INVALID_STRIDE, "position stride below 12");
    d = good; d.out_position_stride = 14; EXPECT(FK_ERROR_INVALID_STRIDE, "misaligned output stride");
    d = good; d.joint_stride = 6; EXPECT(FK_ERROR_INVALID_STRIDE, "joint stride below 2k");
    d = good; d.weight_stride = 12; EXPECT(FK_ERROR_INVALID_STRIDE, "weight stride below 4k");
    d = good; d.normal_stride = 4; EXPECT(FK_ERROR_INVALID_STRIDE, "normal stride below 12");
    d = good; d.positions = (const float *)(const void *)((const char *)d.positions + 1); EXPECT(FK_ERROR_INVALID_STRIDE, "misaligned positions");
    d = good; d.position_stride = ((size_t)-1) / 2; EXPECT(FK_ERROR_INVALID_STRIDE, "stride times count overflows");
    bones[3].q = fk_quat_make(0, 0, 0, 0);
    d = good; EXPECT(FK_ERROR_INVALID_ROTATION, "zero rotation in a transform");
    bones[3].q = fk_quat_identity(); bones[3].t.x = zero / zero;
    d = good; EXPECT(FK_ERROR_NOT_FINITE, "NaN translation in a transform");
    bones[3].t.x = 0;
    d = good; d.vertex_count = 0; EXPECT(FK_OK, "no vertices, nothing to do");
    {
        float matrices[BONES][12];
        int j;
        for (j = 0; j < BONES; ++j) fk_rigid_to_mat34(fk_rigid_make(fk_quat_normalize(bones[j].q), bones[j].t), matrices[j]);
        d = good; d.matrices = &matrices[0][0]; EXPECT(FK_ERROR_CONFLICTING_ARGUMENTS, "transforms and matrices both");
        d.transforms = NULL; EXPECT(FK_OK, "rigid matrices");
        matrices[5][6] = zero / zero; EXPECT(FK_ERROR_NOT_FINITE, "NaN in a matrix");
        matrices[5][6] = 1.0f / zero; EXPECT(FK_ERROR_NOT_FINITE, "infinity in a matrix");
        fk_mat34_from_trs(fk_vec3_make(0, 0, 0), fk_quat_identity(), fk_vec3_make(1, 2, 1), matrices[5]);
        CHECK(fk_skin_validate(&d, FK_SKIN_LBS) == FK_OK && fk_skin_lbs(&d) == FK_OK, "LBS takes scale");
        CHECK(fk_skin_validate(&d, FK_SKIN_DQS) == FK_ERROR_MISSING_BIND_POSES &&
                  fk_skin_dqs(&d) == FK_ERROR_MISSING_BIND_POSES, "DQS of scale without bind poses");
        CHECK(fk_skin_validate(&d, (fk_skin_method)3) == FK_ERROR_INVALID_OPTION, "a method it does not name");
    }
    CHECK(memcmp(&test_mesh_copy, &test_mesh, sizeof test_mesh) == 0, "the mesh was modified");
#undef EXPECT
}

/* ---- Tangents (x y z w, glTF's layout) ---------------------------------------- */

static uint32_t float_bits(float x) { uint32_t b; memcpy(&b, &x, sizeof b); return b; }

/* Worked by hand: a quarter turn about z sends the x axis to the y axis; half the
   vertex on a still bone and half on the turned one sends it to the diagonal
   (LBS blends the matrices to (1/2, 1/2, 0) and renormalizes; DQS blends to the
   eighth turn). The handedness w comes through bit for bit, -1 and -0 alike. */
static void tangents_turn_with_their_bones_and_keep_their_handedness(void)
{
    const float h = 0.70710678f;
    fk_rigid bones[2];
    float positions[3][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    uint16_t joints[3][2] = {{1, 1}, {0, 1}, {1, 1}};
    float weights[3][2] = {{1, 0}, {0.5f, 0.5f}, {0.25f, 0.75f}};
    /* The third tangent is not unit length: it comes out renormalized. */
    float tangents[3][4] = {{1, 0, 0, -1}, {1, 0, 0, -1}, {0, 2, 0, -0.0f}};
    float skinned_p[3][3], skinned_t[3][4];
    const float expected[3][3] = {{0, 1, 0}, {h, h, 0}, {-1, 0, 0}};
    int method, v;
    bones[0] = fk_rigid_identity();
    bones[1] = fk_rigid_make(about(0, 0, 1, 90), fk_vec3_make(1, 2, 3));
    for (method = 0; method < 2; ++method) {
        fk_skin_desc d;
        memset(&d, 0, sizeof d);
        d.vertex_count = 3; d.influences = 2;
        d.positions = &positions[0][0]; d.joints = &joints[0][0]; d.weights = &weights[0][0];
        d.transforms = bones; d.transform_count = 2;
        d.out_positions = &skinned_p[0][0];
        d.tangents = &tangents[0][0]; d.out_tangents = &skinned_t[0][0];
        CHECK((method ? fk_skin_dqs(&d) : fk_skin_lbs(&d)) == FK_OK, "skin");
        for (v = 0; v < 3; ++v) {
            CHECK(near3(load(skinned_t[v]), load(expected[v]), 1e-6f), "method %d: tangent %d went to (%g, %g, %g)", method, v,
                  (double)skinned_t[v][0], (double)skinned_t[v][1], (double)skinned_t[v][2]);
            CHECK(float_bits(skinned_t[v][3]) == float_bits(tangents[v][3]), "method %d: tangent %d's w changed to %g", method, v,
                  (double)skinned_t[v][3]);
        }
    }
}

/* A vertex buffer with glTF's tangents in it. */
typedef struct tangent_vertex {
    float position[3];
    float tangent[4];
    float normal[3];
    uint16_t joints[4];
    float weights[4];
} tangent_vertex;

static tangent_vertex tangent_buffer[VERTS], tangent_buffer_out[VERTS];
static float packed_tangents[VERTS][4], out_t[VERTS][4];
static float plain_p[VERTS][3], plain_n[VERTS][3];

static void tangents_strided_interleaved_and_in_place_equal_packed(void)
{
    fk_rigid bones[BONES];
    int method, v, j;
    random_bones(bones, BONES);
    random_mesh(&test_mesh, 4, BONES);
    for (v = 0; v < VERTS; ++v) {
        fk_vec3 t = fk_vec3_normalize(random_vec3(1));
        packed_tangents[v][0] = t.x; packed_tangents[v][1] = t.y; packed_tangents[v][2] = t.z;
        packed_tangents[v][3] = rng_below(2) ? 1.0f : -1.0f;
        memcpy(tangent_buffer[v].position, test_mesh.positions[v], sizeof(float[3]));
        memcpy(tangent_buffer[v].normal, test_mesh.normals[v], sizeof(float[3]));
        memcpy(tangent_buffer[v].tangent, packed_tangents[v], sizeof(float[4]));
        for (j = 0; j < 4; ++j) { tangent_buffer[v].joints[j] = test_mesh.joints[v][j]; tangent_buffer[v].weights[j] = test_mesh.weights[v][j]; }
    }
    for (method = 0; method < 2; ++method) {
        fk_result (*skin)(const fk_skin_desc *) = method ? fk_skin_dqs : fk_skin_lbs;
        fk_skin_desc plain = packed_desc(&test_mesh, bones, BONES, &plain_p[0][0], &plain_n[0][0]);
        fk_skin_desc packed = packed_desc(&test_mesh, bones, BONES, &out_p[0][0], &out_n[0][0]), d;
        int same = 1;
        float worst = 0;
        packed.tangents = &packed_tangents[0][0]; packed.out_tangents = &out_t[0][0];
        CHECK(skin(&plain) == FK_OK && skin(&packed) == FK_OK, "packed");
        /* Tangents take the general path; positions and normals must not notice. */
        for (v = 0; v < VERTS; ++v) {
            float e = vec3_distance(load(out_p[v]), load(plain_p[v])) + vec3_distance(load(out_n[v]), load(plain_n[v]));
            if (e > worst) worst = e;
        }
        CHECK(worst < 1e-5f, "method %d: giving tangents moved positions or normals by %g", method, worst);
        memset(&d, 0, sizeof d);
        d.vertex_count = VERTS; d.influences = 4;
        d.transforms = bones; d.transform_count = BONES;
        d.positions = tangent_buffer[0].position; d.position_stride = sizeof(tangent_vertex);
        d.normals = tangent_buffer[0].normal;     d.normal_stride = sizeof(tangent_vertex);
        d.tangents = tangent_buffer[0].tangent;   d.tangent_stride = sizeof(tangent_vertex);
        d.joints = tangent_buffer[0].joints;      d.joint_stride = sizeof(tangent_vertex);
        d.weights = tangent_buffer[0].weights;    d.weight_stride = sizeof(tangent_vertex);
        memcpy(tangent_buffer_out, tangent_buffer, sizeof tangent_buffer);
        d.out_positions = tangent_buffer_out[0].position; d.out_position_stride = sizeof(tangent_vertex);
        d.out_normals = tangent_buffer_out[0].normal;     d.out_normal_stride = sizeof(tangent_vertex);
        d.out_tangents = tangent_buffer_out[0].tangent;   d.out_tangent_stride = sizeof(tangent_vertex);
        CHECK(skin(&d) == FK_OK, "interleaved");
        for (v = 0; v < VERTS; ++v)
            same = same && memcmp(tangent_buffer_out[v].position, out_p[v], sizeof(float[3])) == 0 &&
                   memcmp(tangent_buffer_out[v].normal, out_n[v], sizeof(float[3])) == 0 &&
                   memcmp(tangent_buffer_out[v].tangent, out_t[v], sizeof(float[4])) == 0 &&
                   memcmp(tangent_buffer_out[v].weights, tangent_buffer[v].weights, sizeof(float[4])) == 0;
        CHECK(same, "method %d: interleaved tangents differ from packed ones, or bytes between fields changed", method);
        /* In place: the output is the input buffer itself. */
        memcpy(tangent_buffer_out, tangent_buffer, sizeof tangent_buffer);
        d.positions = tangent_buffer_out[0].position;
        d.normals = tangent_buffer_out[0].normal;
        d.tangents = tangent_buffer_out[0].tangent;
        CHECK(skin(&d) == FK_OK, "in place");
        for (v = 0; v < VERTS; ++v)
            same = same && memcmp(tangent_buffer_out[v].position, out_p[v], sizeof(float[3])) == 0 &&
                   memcmp(tangent_buffer_out[v].normal, out_n[v], sizeof(float[3])) == 0 &&
                   memcmp(tangent_buffer_out[v].tangent, out_t[v], sizeof(float[4])) == 0;
        CHECK(same, "method %d: in-place tangents differ from packed ones", method);
    }
}

static void bad_tangent_descriptors_get_their_codes(void)
{
    fk_rigid bones[BONES];
    fk_skin_desc good, d;
    random_bones(bones, BONES);
    random_mesh(&test_mesh, 4, BONES);
    good = packed_desc(&test_mesh, bones, BONES, &out_p[0][0], &out_n[0][0]);
    good.tangents = &packed_tangents[0][0]; good.out_tangents = &out_t[0][0];
#define EXPECT(code, what) \
    CHECK(fk_skin_validate(&d, FK_SKIN_LBS) == (code) && fk_skin_validate(&d, FK_SKIN_DQS) == (code) && \
          fk_skin_lbs(&d) == (code) && fk_skin_dqs(&d) == (code), what)
    d = good; EXPECT(FK_OK, "good descriptor, strides 0 = 16");
    d = good; d.tangent_stride = d.out_tangent_stride = 16; EXPECT(FK_OK, "strides of 16");
    d = good; d.out_tangents = NULL; EXPECT(FK_ERROR_NULL_ARGUMENT, "tangents without out_tangents");
    d = good; d.tangents = NULL; EXPECT(FK_OK, "out_tangents without tangents is ignored");
    d = good; d.tangent_stride = 12; EXPECT(FK_ERROR_INVALID_STRIDE, "tangent stride below 16");
    d = good; d.out_tangent_stride = 12; EXPECT(FK_ERROR_INVALID_STRIDE, "output tangent stride below 16");
    d = good; d.tangent_stride = 18; EXPECT(FK_ERROR_INVALID_STRIDE, "tangent stride not a multiple of 4");
    d = good; d.tangents = (const float *)(const void *)((const char *)d.tangents + 2); EXPECT(FK_ERROR_INVALID_STRIDE, "misaligned tangents");
    d = good; d.out_tangents = (float *)(void *)((char *)d.out_tangents + 1); EXPECT(FK_ERROR_INVALID_STRIDE, "misaligned output tangents");
    d = good; d.tangent_stride = ((size_t)-1) / 2 / 4 * 4; EXPECT(FK_ERROR_INVALID_STRIDE, "tangent stride times count overflows");
#undef EXPECT
}

static void identity_pose_leaves_the_mesh_unchanged(void)
{
    fk_rigid bones[BONES];
    int j, v, method;
    for (j = 0; j < BONES; ++j) bones[j] = fk_rigid_identity();
    random_mesh(&test_mesh, 4, BONES);
    for (method = 0; method < 2; ++method) {
        fk_skin_desc d = packed_desc(&test_mesh, bones, BONES, &out_p[0][0], &out_n[0][0]);
        float worst = 0;
        CHECK((method ? fk_skin_dqs(&d) : fk_skin_lbs(&d)) == FK_OK, "skin");
        for (v = 0; v < VERTS; ++v) {
            float e = vec3_distance(load(out_p[v]), load(test_mesh.positions[v])) + vec3_distance(load(out_n[v]), load(test_mesh.normals[v]));
            if (e > worst) worst = e;
        }
        CHECK(worst < 4e-6f, "method %d: identity pose moved a vertex by %g", method, worst);
    }
}

/* ---- glTF's vertex formats, through the reference loops too --------------------- */

/* uint8_t joints, unorm8 and unorm16 weights, and a second stream of
   influences 5 to k, give the bits of uint16_t and float, with c / 255 as glTF
   writes it: 0.5 is not a unorm8 weight, 128 / 255 is. */
static void gltf_formats_skin_as_their_floats(void)
{
    static mesh m;
    static uint8_t joints8[VERTS][MAX_K], codes8[VERTS][MAX_K], second[VERTS][MAX_K], second_codes[VERTS][MAX_K];
    static uint16_t codes16[VERTS][MAX_K];
    static float a_p[VERTS][3], a_n[VERTS][3], b_p[VERTS][3], b_n[VERTS][3];
    fk_rigid bones[BONES];
    fk_skin_desc floats, coded;
    int k, kind, v, e, dqs;
    random_bones(bones, BONES);
    for (k = 1; k <= MAX_K; ++k)
        for (kind = 0; kind < 3; ++kind) {
            if (kind == 2 && k < 5) continue;
            random_mesh(&m, k, BONES);
            for (v = 0; v < VERTS; ++v)
                for (e = 0; e < k; ++e) {
                    joints8[v][e] = (uint8_t)m.joints[v][e];
                    second[v][e] = e >= 4 ? (uint8_t)m.joints[v][e] : 0;
                    codes8[v][e] = (uint8_t)rng_below(256);
                    codes16[v][e] = (uint16_t)rng_below(65536);
                    m.weights[v][e] = kind == 1 ? (float)(codes16[v][e] / 65535.0) : (float)(codes8[v][e] / 255.0);
                    if (kind == 2 && e >= 4) { /* the first stream's own lists hold other numbers past 4 */
                        second_codes[v][e] = codes8[v][e];
                        codes8[v][e] = (uint8_t)(255 - codes8[v][e]);
                        joints8[v][e] = (uint8_t)((m.joints[v][e] + 1) % BONES);
                    }
                }
            floats = packed_desc(&m, bones, BONES, &a_p[0][0], &a_n[0][0]);
            coded = packed_desc(&m, bones, BONES, &b_p[0][0], &b_n[0][0]);
            coded.joint_format = kind == 1 ? FK_JOINTS_U16 : FK_JOINTS_U8;
            coded.joints = kind == 1 ? (const void *)m.joints : (const void *)joints8;
            coded.joint_stride = kind == 1 ? sizeof m.joints[0] : sizeof joints8[0];
            coded.weight_format = kind == 1 ? FK_WEIGHTS_UNORM16 : FK_WEIGHTS_UNORM8;
            coded.weights = kind == 1 ? (const void *)codes16 : (const void *)codes8;
            coded.weight_stride = kind == 1 ? sizeof codes16[0] : sizeof codes8[0];
            if (kind == 2) { /* influences 4 on from a second stream */
                coded.joints2 = &second[0][4]; coded.joint2_stride = sizeof second[0];
                coded.weights2 = &second_codes[0][4]; coded.weight2_stride = sizeof second_codes[0];
            }
            for (dqs = 0; dqs < 2; ++dqs) {
                memset(a_p, 0, sizeof a_p); memset(b_p, 0, sizeof b_p); memset(a_n, 0, sizeof a_n); memset(b_n, 0, sizeof b_n);
                CHECK((dqs ? fk_skin_dqs(&floats) : fk_skin_lbs(&floats)) == FK_OK &&
                          (dqs ? fk_skin_dqs(&coded) : fk_skin_lbs(&coded)) == FK_OK &&
                          fk_skin_validate(&coded, dqs ? FK_SKIN_DQS : FK_SKIN_LBS) == FK_OK, "k=%d kind %d: failed", k, kind);
                CHECK(memcmp(a_p, b_p, sizeof a_p) == 0 && memcmp(a_n, b_n, sizeof a_n) == 0,
                      "%s k=%d: %s give other bits than their floats", dqs ? "DQS" : "LBS", k,
                      kind == 0 ? "uint8_t joints, unorm8 weights" : kind == 1 ? "unorm16 weights" : "two streams");
            }
        }
    /* a single influence of weight 128 / 255 scales a point at (1, 0, 0) by it */
    {
        float p[3] = {1.0f, 0.0f, 0.0f}, out[3];
        uint8_t joint = 0, code = 128;
        fk_rigid identity = fk_rigid_identity();
        fk_skin_desc d;
        memset(&d, 0, sizeof d);
        d.vertex_count = 1; d.influences = 1; d.positions = p; d.out_positions = out;
        d.joints = &joint; d.joint_format = FK_JOINTS_U8; d.weights = &code; d.weight_format = FK_WEIGHTS_UNORM8;
        d.transforms = &identity; d.transform_count = 1;
        CHECK(fk_skin_lbs(&d) == FK_OK && out[0] == 128.0f / 255.0f && out[0] != 0.5f, "128 / 255: %.9g", (double)out[0]);
    }
}

/* Bad formats and streams get their codes, from validation and both methods. */
static void bad_gltf_formats_get_their_codes(void)
{
    static mesh m;
    static uint8_t bytes[VERTS][MAX_K];
    fk_rigid bones[BONES];
    fk_skin_desc good, d;
    random_bones(bones, BONES);
    random_mesh(&m, 6, BONES);
    good = packed_desc(&m, bones, BONES, &out_p[0][0], &out_n[0][0]);
    good.joints2 = &m.joints[0][4]; good.joint2_stride = sizeof m.joints[0];
    good.weights2 = &m.weights[0][4]; good.weight2_stride = sizeof m.weights[0];
#define EXPECT(code, what) \
    CHECK(fk_skin_validate(&d, FK_SKIN_LBS) == (code) && fk_skin_validate(&d, FK_SKIN_DQS) == (code) && \
          fk_skin_lbs(&d) == (code) && fk_skin_dqs(&d) == (code), what)
    d = good; EXPECT(FK_OK, "two streams");
    d = good; d.joint_format = (fk_joint_format)2; EXPECT(FK_ERROR_INVALID_OPTION, "unnamed joint format");
    d = good; d.weight_format = (fk_weight_format)3; EXPECT(FK_ERROR_INVALID_OPTION, "unnamed weight format");
    d = good; d.weights2 = NULL; EXPECT(FK_ERROR_NULL_ARGUMENT, "joints2 without weights2");
    d = good; d.joints2 = NULL; EXPECT(FK_ERROR_NULL_ARGUMENT, "weights2 without joints2");
    d = good; d.influences = 4; EXPECT(FK_ERROR_INVALID_COUNT, "a second stream for 4 influences");
    d = good; d.influences = 9; EXPECT(FK_ERROR_INVALID_COUNT, "a second stream for 9 influences");
    d = good; d.joint2_stride = 2; EXPECT(FK_ERROR_INVALID_STRIDE, "second joint stride below 2 (k - 4)");
    d = good; d.joint_stride = 6; EXPECT(FK_ERROR_INVALID_STRIDE, "first joint stride below 2 x 4");
    d = good; d.weight_format = FK_WEIGHTS_UNORM16; d.weights = (const char *)m.weights + 1; d.weights2 = NULL; d.joints2 = NULL;
    EXPECT(FK_ERROR_INVALID_STRIDE, "unorm16 weights misaligned");
    d = good; d.joint_format = FK_JOINTS_U8; d.joints = bytes; d.joint_stride = 5; d.joints2 = bytes; d.joint2_stride = 3;
    memset(bytes, 0, sizeof bytes); EXPECT(FK_OK, "uint8_t joints at odd strides");
    bytes[7][2] = BONES; EXPECT(FK_ERROR_JOINT_OUT_OF_RANGE, "a uint8_t joint past the bones");
#undef EXPECT
}

/* fk_skin_scratch_size() by its formula: 64 n bytes (rigid, or LBS of any
   bones), 176 n for DQS of bones with scale and besides a bit per pair of
   bones (at the vertex) or 128 n (at the bone), each part rounded up to 64
   bytes, plus 64. */
static void scratch_size_follows_its_formula(void)
{
    static fk_rigid rigid[1000];
    static float matrices[1000][12];
    fk_skin_desc d;
    int j;
    for (j = 0; j < 1000; ++j) {
        rigid[j] = fk_rigid_identity();
        fk_mat34_from_trs(fk_vec3_make(0, 0, 0), fk_quat_identity(), fk_vec3_make(1, 2, 1), matrices[j]);
    }
    memset(&d, 0, sizeof d);
    d.transforms = rigid; d.transform_count = 1000;
    CHECK(fk_skin_scratch_size(&d, FK_SKIN_LBS) == 64 + 64000 && fk_skin_scratch_size(&d, FK_SKIN_DQS) == 64 + 64000,
          "rigid: %u", (unsigned)fk_skin_scratch_size(&d, FK_SKIN_DQS));
    d.transforms = NULL; d.matrices = &matrices[0][0];
    CHECK(fk_skin_scratch_size(&d, FK_SKIN_LBS) == 64 + 64000, "affine LBS");
    CHECK(fk_skin_scratch_size(&d, FK_SKIN_DQS) == 64 + 176000 + 1000 * 16 * 8, "DQS with scale at the vertex: %u",
          (unsigned)fk_skin_scratch_size(&d, FK_SKIN_DQS));
    d.dqs_scale_center = FK_DQS_SCALE_AT_BONE;
    CHECK(fk_skin_scratch_size(&d, FK_SKIN_DQS) == 64 + 176000 + 128000, "at the bone");
    d.transform_count = 3; /* 3 x 176 = 528 rounds to 576; 3 x 8 to 64 */
    d.dqs_scale_center = FK_DQS_SCALE_AT_VERTEX;
    CHECK(fk_skin_scratch_size(&d, FK_SKIN_DQS) == 64 + 576 + 64, "3 bones: %u", (unsigned)fk_skin_scratch_size(&d, FK_SKIN_DQS));
    CHECK(fk_skin_scratch_size(NULL, FK_SKIN_LBS) == 0 && fk_skin_scratch_size(&d, (fk_skin_method)5) == 0, "nothing to size");
    d.transform_count = 0;
    CHECK(fk_skin_scratch_size(&d, FK_SKIN_DQS) == 0, "no bones");
}

int main(void)
{
    RUN_TEST(every_result_has_its_own_description);
    RUN_TEST(hamilton_product_of_basis_units);
    RUN_TEST(product_applies_right_factor_first);
    RUN_TEST(rotate_follows_the_right_hand_rule);
    RUN_TEST(axis_angle_round_trip);
    RUN_TEST(conjugate_inverse_normalize);
    RUN_TEST(normalize_survives_lengths_float_cannot_square);
    RUN_TEST(matrix_of_quarter_turn);
    RUN_TEST(matrix_to_quaternion_at_half_turns);
    RUN_TEST(matrix_round_trip_on_random_rotations);
    RUN_TEST(slerp_halfway_and_endpoints);
    RUN_TEST(euler_orders_multiply_left_to_right);
    RUN_TEST(euler_round_trip_in_every_order_and_at_gimbal_lock);
    RUN_TEST(rigid_composition_inverse_and_matrices);
    RUN_TEST(dual_quaternion_round_trip);
    RUN_TEST(two_bone_arm_worked_by_hand);
    RUN_TEST(grandchild_stays_attached_where_the_copied_formula_fails);
    RUN_TEST(forward_matches_4x4_reference_in_both_conventions_and_any_order);
    RUN_TEST(deep_chain_in_reverse_order_stays_connected);
    RUN_TEST(scaled_forward_matches_4x4_reference_in_any_order);
    RUN_TEST(nonuniform_parent_shears_a_turning_child);
    RUN_TEST(scaled_forward_bad_input_gets_its_codes);
    RUN_TEST(scaled_subtree_update_matches_the_full_pass);
    RUN_TEST(forest_with_roots_in_any_position);
    RUN_TEST(posed_joints_are_pivots_moved);
    RUN_TEST(non_unit_rotations_are_normalized_on_the_way_in);
    RUN_TEST(bad_skeletons_get_their_codes);
    RUN_TEST(bad_numbers_get_their_codes);
    RUN_TEST(inputs_are_never_modified);
    RUN_TEST(lbs_matches_reference_for_k_1_to_8);
    RUN_TEST(dqs_matches_reference_for_k_1_to_8);
    RUN_TEST(affine_normals_worked_by_hand);
    RUN_TEST(affine_lbs_matches_reference_for_k_1_to_8);
    RUN_TEST(dqs_with_scale_on_one_bone_is_the_matrix);
    RUN_TEST(dqs_with_scale_matches_blender_by_hand);
    RUN_TEST(dqs_with_scale_needs_bind_poses);
    RUN_TEST(engine_rest_frames_and_their_space);
    RUN_TEST(strided_interleaved_and_in_place_give_the_same_answer);
    RUN_TEST(dense_weights_equal_sparse_weights);
    RUN_TEST(rigs_larger_than_the_palette_skin_correctly);
    RUN_TEST(dqs_ignores_the_sign_of_each_rotation);
    RUN_TEST(dqs_with_zero_weights_keeps_the_rest_position);
    RUN_TEST(a_bad_joint_index_stops_at_its_vertex);
    RUN_TEST(bad_descriptors_get_their_codes);
    RUN_TEST(identity_pose_leaves_the_mesh_unchanged);
    RUN_TEST(tangents_turn_with_their_bones_and_keep_their_handedness);
    RUN_TEST(tangents_strided_interleaved_and_in_place_equal_packed);
    RUN_TEST(bad_tangent_descriptors_get_their_codes);
    RUN_TEST(gltf_formats_skin_as_their_floats);
    RUN_TEST(bad_gltf_formats_get_their_codes);
    RUN_TEST(scratch_size_follows_its_formula);
    return check_finish();
}
