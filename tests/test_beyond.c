/* test_beyond.c - the features beyond posing and skinning: quaternion log/exp,
   weight repair, poses and tracks, subtree updates, Jacobians and the IK step.

   Randomized tests draw from one seed, printed in every failure message with the
   command that replays it: build/test_beyond SEED. Finite differences, and the
   reference forward kinematics they differentiate, are computed in double. */
#include "fk_lbs.h" /* declarations: the library is tests/fk_lbs_impl.c */
#include "check.h"
#include "test_random.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979f
#define MAX_JOINTS 48
#define TRIALS 200

/* ---- Random numbers with a replayable seed -------------------------------------- */

static unsigned long seed = 20261122ul;

static void rng_restart(void) { rng_state = (uint64_t)seed * 0x9E3779B97F4A7C15u + 1u; }

static float quat_distance(fk_quat a, fk_quat b)
{
    return fmaxf(fmaxf(fabsf(a.x - b.x), fabsf(a.y - b.y)), fmaxf(fabsf(a.z - b.z), fabsf(a.w - b.w)));
}

/* Same rotation: q and -q both count. */
static float rotation_distance(fk_quat a, fk_quat b)
{
    return fminf(quat_distance(a, b), quat_distance(a, fk_quat_make(-b.x, -b.y, -b.z, -b.w)));
}

static float vec3_distance(fk_vec3 a, fk_vec3 b) { return fk_vec3_length(fk_vec3_sub(a, b)); }

/* ---- Quaternion log and exp ------------------------------------------------------ */

static void exp_inverts_log(void)
{
    int trial;
    rng_restart();
    for (trial = 0; trial < TRIALS; ++trial) {
        fk_quat q = random_quat(), back = fk_quat_exp(fk_quat_log(q));
        CHECK(quat_distance(q, back) < 1e-6f, "exp(log q) = (%g %g %g %g) for q = (%g %g %g %g) (seed %lu)",
              back.x, back.y, back.z, back.w, q.x, q.y, q.z, q.w, seed);
    }
}

static void log_inverts_exp_below_pi(void)
{
    int trial;
    rng_restart();
    for (trial = 0; trial < TRIALS; ++trial) {
        fk_vec3 v = fk_vec3_scale(fk_vec3_normalize(random_vec3(1.0f)), rng_uniform(0.0f, 3.1f));
        fk_vec3 back = fk_quat_log(fk_quat_exp(v));
        CHECK(vec3_distance(v, back) < 2e-6f, "log(exp v) misses v by %g (seed %lu)", vec3_distance(v, back), seed);
    }
}

static void rotation_vector_is_axis_times_angle(void)
{
    int trial;
    rng_restart();
    for (trial = 0; trial < TRIALS; ++trial) {
        fk_vec3 axis = fk_vec3_normalize(random_vec3(1.0f));
        float angle = rng_uniform(0.0f, 3.1f);
        fk_quat q = fk_quat_from_axis_angle(axis, angle);
        fk_quat minus_q = fk_quat_make(-q.x, -q.y, -q.z, -q.w);
        fk_vec3 r = fk_quat_to_rotation_vector(q);
        CHECK(quat_distance(fk_quat_from_rotation_vector(fk_vec3_scale(axis, angle)), q) < 1e-6f,
              "from_rotation_vector differs from from_axis_angle (seed %lu)", seed);
        CHECK(vec3_distance(r, fk_vec3_scale(axis, angle)) < 4e-6f, "rotation vector off by %g (seed %lu)",
              vec3_distance(r, fk_vec3_scale(axis, angle)), seed);
        CHECK(vec3_distance(fk_quat_to_rotation_vector(minus_q), r) == 0.0f, "q and -q give different vectors");
    }
}

static void tiny_and_half_turn_angles_are_accurate(void)
{
    /* 1e-7 radians about z: the vector part must be 5e-8 to float precision, which
       1 - cos or acos(w) could not resolve. */
    fk_vec3 r = fk_vec3_make(0.0f, 0.0f, 1e-7f);
    fk_quat q = fk_quat_from_rotation_vector(r);
    fk_vec3 back = fk_quat_to_rotation_vector(q);
    fk_quat half_turn = fk_quat_make(0.0f, 0.0f, 0.0f, -1.0f);
    CHECK(fabsf(q.z - 5e-8f) < 1e-14f && q.w == 1.0f, "exp of a tiny vector: z = %g", q.z);
    CHECK(fabsf(back.z - 1e-7f) < 1e-13f, "tiny rotation vector comes back as %g", back.z);
    CHECK(fk_vec3_length(fk_quat_to_rotation_vector(fk_quat_identity())) == 0.0f, "identity is not (0, 0, 0)");
    CHECK(fabsf(fk_quat_log(half_turn).x - PI) < 1e-6f, "log(-1) is not (pi, 0, 0)");
    CHECK(quat_distance(fk_quat_exp(fk_quat_log(half_turn)), half_turn) < 1e-6f, "exp(log(-1)) is not -1");
    CHECK(fabsf(fk_vec3_length(fk_quat_to_rotation_vector(fk_quat_from_axis_angle(fk_vec3_make(1, 1, 0), PI))) - PI) < 1e-6f,
          "a half turn's rotation vector is not of length pi");
}

/* ---- Weights ------------------------------------------------------------------------
   One vertex of four slots per case, repaired for a rig of 10 joints. */

typedef struct one_vertex {
    uint16_t joints[6];
    float weights[6];
} one_vertex;

static fk_weights_report repair_one(one_vertex *v, int influences, int keep)
{
    fk_weights_desc desc;
    fk_weights_report report;
    memset(&desc, 0, sizeof desc);
    desc.vertex_count = 1;
    desc.influences = influences;
    desc.joints = v->joints;
    desc.weights = v->weights;
    desc.joint_count = 10;
    desc.max_influences = keep;
    memset(&report, 0xff, sizeof report);
    CHECK(fk_weights_repair(&desc, &report) == FK_OK, "repair failed");
    return report;
}

static one_vertex vertex4(int j0, float w0, int j1, float w1, int j2, float w2, int j3, float w3)
{
    one_vertex v;
    memset(&v, 0, sizeof v);
    v.joints[0] = (uint16_t)j0; v.joints[1] = (uint16_t)j1; v.joints[2] = (uint16_t)j2; v.joints[3] = (uint16_t)j3;
    v.weights[0] = w0; v.weights[1] = w1; v.weights[2] = w2; v.weights[3] = w3;
    return v;
}

static int slot_is(const one_vertex *v, int slot, int joint, float weight)
{
    return v->joints[slot] == joint && fabsf(v->weights[slot] - weight) <= 1e-6f;
}

static void sound_weights_are_left_bit_for_bit(void)
{
    one_vertex v = vertex4(3, 0.5f, 7, 0.25f, 1, 0.25f, 0, 0.0f), before = v;
    fk_weights_report report = repair_one(&v, 4, 0);
    CHECK(report.vertices_changed == 0, "a sound vertex was changed");
    CHECK(memcmp(&v, &before, sizeof v) == 0, "a sound vertex's bytes changed");
}

static void nan_and_infinite_weights_are_dropped(void)
{
    one_vertex v = vertex4(3, NAN, 7, 0.5f, 1, INFINITY, 2, 0.5f);
    fk_weights_report report = repair_one(&v, 4, 0);
    CHECK(report.vertices_changed == 1 && report.not_finite == 1, "not counted as not finite");
    CHECK(slot_is(&v, 0, 7, 0.5f) && slot_is(&v, 1, 2, 0.5f) && slot_is(&v, 2, 0, 0.0f) && slot_is(&v, 3, 0, 0.0f),
          "got joints %d %d, weights %g %g", v.joints[0], v.joints[1], v.weights[0], v.weights[1]);
}

static void negative_weights_are_dropped(void)
{
    one_vertex v = vertex4(3, -0.5f, 7, 0.75f, 1, 0.75f, 2, 0.0f);
    fk_weights_report report = repair_one(&v, 4, 0);
    CHECK(report.negative == 1 && report.not_normalized == 1 && report.vertices_changed == 1, "miscounted");
    CHECK(slot_is(&v, 0, 7, 0.5f) && slot_is(&v, 1, 1, 0.5f) && slot_is(&v, 2, 0, 0.0f), "negative weight kept");
}

static void joints_out_of_range_are_dropped_even_without_weight(void)
{
    one_vertex v = vertex4(12, 0.5f, 4, 0.5f, 65535, 0.0f, 2, 0.0f);
    fk_weights_report report = repair_one(&v, 4, 0);
    CHECK(report.joint_out_of_range == 1 && report.not_normalized == 1, "miscounted");
    CHECK(slot_is(&v, 0, 4, 1.0f) && slot_is(&v, 2, 0, 0.0f) && slot_is(&v, 3, 0, 0.0f), "out-of-range joint kept");
}

static void duplicate_joints_are_merged(void)
{
    one_vertex v = vertex4(5, 0.25f, 2, 0.375f, 5, 0.375f, 0, 0.0f);
    fk_weights_report report = repair_one(&v, 4, 0);
    CHECK(report.duplicate_joints == 1 && report.not_normalized == 0, "miscounted");
    CHECK(slot_is(&v, 0, 5, 0.625f) && slot_is(&v, 1, 2, 0.375f) && slot_is(&v, 2, 0, 0.0f), "not merged");
}

static void zero_padding_repeating_joint_zero_is_not_a_duplicate(void)
{
    one_vertex v = vertex4(0, 1.0f, 0, 0.0f, 0, 0.0f, 0, 0.0f), before = v;
    fk_weights_report report = repair_one(&v, 4, 0);
    CHECK(report.vertices_changed == 0 && memcmp(&v, &before, sizeof v) == 0, "glTF padding was 'repaired'");
}

static void zero_sum_falls_back_to_the_first_valid_joint(void)
{
    one_vertex v = vertex4(11, 0.5f, 6, 0.0f, 3, -1.0f, 2, NAN);
    one_vertex nothing_valid = vertex4(11, 0.0f, 12, 0.0f, 13, 1.0f, 14, 1.0f);
    fk_weights_report report = repair_one(&v, 4, 0);
    CHECK(report.zero_sum == 1 && report.not_normalized == 0, "miscounted");
    CHECK(slot_is(&v, 0, 6, 1.0f) && slot_is(&v, 1, 0, 0.0f) && slot_is(&v, 3, 0, 0.0f),
          "fell back to joint %d weight %g", v.joints[0], v.weights[0]);
    repair_one(&nothing_valid, 4, 0);
    CHECK(slot_is(&nothing_valid, 0, 0, 1.0f), "no joint in range: fell back to %d", nothing_valid.joints[0]);
}

static void reducing_keeps_the_largest_merged_weights(void)
{
    one_vertex v;
    fk_weights_report report;
    int i;
    uint16_t joints[6] = {1, 2, 3, 4, 2, 5};
    float weights[6] = {0.3f, 0.1f, 0.05f, 0.2f, 0.15f, 0.2f};
    for (i = 0; i < 6; ++i) { v.joints[i] = joints[i]; v.weights[i] = weights[i]; }
    report = repair_one(&v, 6, 3);
    /* Joint 2 has 0.25 once merged: kept are 1 (0.3), 2 (0.25), 4 (0.2, first of the tie with 5). */
    CHECK(report.too_many == 1 && report.duplicate_joints == 1 && report.misplaced == 1, "miscounted");
    CHECK(slot_is(&v, 0, 1, 0.3f / 0.75f) && slot_is(&v, 1, 2, 0.25f / 0.75f) && slot_is(&v, 2, 4, 0.2f / 0.75f),
          "kept joints %d %d %d weights %g %g %g", v.joints[0], v.joints[1], v.joints[2], v.weights[0], v.weights[1],
          v.weights[2]);
    for (i = 3; i < 6; ++i) CHECK(slot_is(&v, i, 0, 0.0f), "slot %d beyond the kept ones is not empty", i);
}

static void weights_beyond_the_kept_slots_move_forward(void)
{
    one_vertex v = vertex4(0, 0.0f, 9, 0.0f, 4, 0.5f, 8, 0.5f);
    fk_weights_report report = repair_one(&v, 4, 2);
    CHECK(report.misplaced == 1 && report.too_many == 0 && report.vertices_changed == 1, "miscounted");
    CHECK(slot_is(&v, 0, 4, 0.5f) && slot_is(&v, 1, 8, 0.5f) && slot_is(&v, 2, 0, 0.0f), "not moved");
}

static void huge_weights_do_not_overflow(void)
{
    one_vertex v = vertex4(1, 3e38f, 1, 3e38f, 2, 3e38f, 3, 0.0f);
    repair_one(&v, 4, 0);
    CHECK(slot_is(&v, 0, 1, 2.0f / 3.0f) && slot_is(&v, 1, 2, 1.0f / 3.0f), "got %g %g", v.weights[0], v.weights[1]);
}

/* Brute force: the merged positive weight of each joint in range. */
static void merged_weights(const uint16_t *joints, const float *weights, int k, float merged[10])
{
    int s;
    for (s = 0; s < 10; ++s) merged[s] = 0.0f;
    for (s = 0; s < k; ++s)
        if (joints[s] < 10 && weights[s] > 0.0f && weights[s] <= 3.4e38f) merged[joints[s]] += weights[s];
}

static float random_bad_weight(void)
{
    switch (rng_below(8)) {
    case 0: return NAN;
    case 1: return rng_below(2) ? INFINITY : -INFINITY;
    case 2: return -rng_uniform(0.0f, 1.0f);
    case 3: return 0.0f;
    default: return rng_uniform(0.0f, 1.0f);
    }
}

static void repaired_weights_are_valid_sorted_and_stable(void)
{
    /* Interleaved layout: each vertex record holds a position, then 6 joints, then
       6 weights, as a vertex buffer would. */
    struct record { float position[3]; uint16_t joints[6]; float weights[6]; } records[64], copy[64];
    fk_weights_desc desc;
    fk_weights_report first, second, inspected;
    fk_skin_desc skin;
    fk_rigid bones[10];
    float out[64 * 3];
    int trial, i, s;
    rng_restart();
    memset(&desc, 0, sizeof desc);
    desc.vertex_count = 64;
    desc.influences = 6;
    desc.joints = records[0].joints;
    desc.joint_stride = sizeof(struct record);
    desc.weights = records[0].weights;
    desc.weight_stride = sizeof(struct record);
    desc.joint_count = 10;
    for (trial = 0; trial < 20; ++trial) {
        desc.max_influences = 1 + rng_below(6);
        for (i = 0; i < 64; ++i) {
            for (s = 0; s < 3; ++s) records[i].position[s] = rng_uniform(-1, 1);
            for (s = 0; s < 6; ++s) {
                records[i].joints[s] = (uint16_t)rng_below(12);
                records[i].weights[s] = random_bad_weight();
            }
        }
        memcpy(copy, records, sizeof records);
        CHECK(fk_weights_inspect(&desc, &inspected) == FK_OK, "inspect failed");
        CHECK(memcmp(copy, records, sizeof records) == 0, "inspect wrote to the weights (seed %lu)", seed);
        CHECK(fk_weights_repair(&desc, &first) == FK_OK, "repair failed");
        CHECK(memcmp(&first, &inspected, sizeof first) == 0, "inspect and repair report differently (seed %lu)", seed);
        memset(&second, 0, sizeof second);
        CHECK(fk_weights_repair(&desc, &second) == FK_OK, "second repair failed");
        CHECK(second.vertices_changed == 0, "a second repair changed %d vertices (seed %lu)", second.vertices_changed, seed);
        for (i = 0; i < 64; ++i) {
            float sum = 0.0f, before[10], largest_dropped = 0.0f, smallest_kept = 2.0f, kept_sum = 0.0f;
            merged_weights(copy[i].joints, copy[i].weights, 6, before);
            for (s = 0; s < 6; ++s) {
                float w = records[i].weights[s];
                CHECK(w >= 0.0f && w <= 1.0f && records[i].joints[s] < 10, "vertex %d slot %d invalid (seed %lu)", i, s, seed);
                CHECK(s < desc.max_influences || w == 0.0f, "vertex %d has weight beyond slot %d (seed %lu)", i,
                      desc.max_influences, seed);
                CHECK(s == 0 || w <= records[i].weights[s - 1], "vertex %d not sorted (seed %lu)", i, seed);
                sum += w;
            }
            CHECK(fabsf(sum - 1.0f) < 1e-6f, "vertex %d sums to %g (seed %lu)", i, sum, seed);
            /* Every kept joint weighed at least as much as every dropped one. */
            for (s = 0; s < 10; ++s) {
                int k, kept = 0;
                for (k = 0; k < desc.max_influences; ++k) kept |= records[i].weights[k] > 0.0f && records[i].joints[k] == s;
                if (kept) { smallest_kept = fminf(smallest_kept, before[s]); kept_sum += before[s]; }
                else largest_dropped = fmaxf(largest_dropped, before[s]);
            }
            CHECK(kept_sum == 0.0f || smallest_kept >= largest_dropped, "vertex %d dropped a larger weight (seed %lu)",
                  i, seed);
            for (s = 0; s < 6 && kept_sum > 0.0f; ++s)
                if (records[i].weights[s] > 0.0f)
                    CHECK(fabsf(records[i].weights[s] - before[records[i].joints[s]] / kept_sum) < 1e-6f,
                          "vertex %d joint %d weight not proportional (seed %lu)", i, records[i].joints[s], seed);
        }
    }
    /* What skinning needs: every index in range, with the kept count of influences. */
    for (i = 0; i < 10; ++i) bones[i] = fk_rigid_identity();
    memset(&skin, 0, sizeof skin);
    skin.vertex_count = 64;
    skin.influences = desc.max_influences;
    skin.positions = records[0].position;
    skin.position_stride = sizeof(struct record);
    skin.joints = records[0].joints;
    skin.joint_stride = sizeof(struct record);
    skin.weights = records[0].weights;
    skin.weight_stride = sizeof(struct record);
    skin.transforms = bones;
    skin.transform_count = 10;
    skin.out_positions = out;
    CHECK(fk_skin_validate(&skin, FK_SKIN_LBS) == FK_OK && fk_skin_lbs(&skin) == FK_OK, "repaired weights do not skin");
    for (i = 0; i < 64; ++i)
        CHECK(fabsf(out[3 * i] - records[i].position[0]) < 1e-6f, "identity bones moved vertex %d", i);
}

static void bad_weight_descriptors_are_refused(void)
{
    uint16_t joints[4] = {0, 0, 0, 0};
    float weights[4] = {1, 0, 0, 0};
    fk_weights_desc desc;
    fk_weights_report report;
    memset(&desc, 0, sizeof desc);
    desc.vertex_count = 1; desc.influences = 4; desc.joints = joints; desc.weights = weights; desc.joint_count = 1;
    CHECK(fk_weights_repair(NULL, &report) == FK_ERROR_NULL_ARGUMENT, "NULL descriptor accepted");
    CHECK(fk_weights_inspect(&desc, NULL) == FK_ERROR_NULL_ARGUMENT, "inspect without a report accepted");
    CHECK(fk_weights_repair(&desc, NULL) == FK_OK, "a NULL report is optional for repair");
    desc.max_influences = 5;
    CHECK(fk_weights_repair(&desc, NULL) == FK_ERROR_INVALID_COUNT, "more kept than stored accepted");
    desc.max_influences = 0; desc.joint_count = 0;
    CHECK(fk_weights_repair(&desc, NULL) == FK_ERROR_INVALID_COUNT, "no joints accepted");
    desc.joint_count = 1; desc.weight_stride = 8;
    CHECK(fk_weights_repair(&desc, NULL) == FK_ERROR_INVALID_STRIDE, "stride below 4k accepted");
    desc.weight_stride = 0; desc.weights = NULL;
    CHECK(fk_weights_repair(&desc, NULL) == FK_ERROR_NULL_ARGUMENT, "NULL weights accepted");
}

/* ---- Poses and tracks --------------------------------------------------------------- */

static void interpolation_hits_both_ends_and_turns_at_constant_speed(void)
{
    fk_quat a[8], b[8], out[8], minus_b[8];
    fk_vec3 da[8], db[8], d[8];
    int trial, i;
    rng_restart();
    for (trial = 0; trial < 50; ++trial) {
        float t = rng_uniform(0.0f, 1.0f);
        for (i = 0; i < 8; ++i) {
            a[i] = random_quat(); b[i] = random_quat();
            minus_b[i] = fk_quat_make(-b[i].x, -b[i].y, -b[i].z, -b[i].w);
            da[i] = random_vec3(2.0f); db[i] = random_vec3(2.0f);
        }
        CHECK(fk_pose_interpolate(8, a, da, b, db, 0.0f, FK_INTERPOLATE_SLERP, out, d) == FK_OK, "failed");
        for (i = 0; i < 8; ++i) CHECK(quat_distance(out[i], a[i]) < 1e-6f && vec3_distance(d[i], da[i]) == 0.0f, "t = 0 is not a");
        CHECK(fk_pose_interpolate(8, a, da, b, db, 1.0f, FK_INTERPOLATE_NLERP, out, d) == FK_OK, "failed");
        for (i = 0; i < 8; ++i) CHECK(rotation_distance(out[i], b[i]) < 1e-6f && vec3_distance(d[i], db[i]) == 0.0f, "t = 1 is not b");
        CHECK(fk_pose_interpolate(8, a, da, b, db, t, FK_INTERPOLATE_SLERP, out, d) == FK_OK, "failed");
        for (i = 0; i < 8; ++i) {
            /* Shortest path at constant speed: the angle from a is t times the whole angle. */
            float whole = 2.0f * acosf(fminf(1.0f, fabsf(fk_quat_dot(a[i], b[i]))));
            float part = 2.0f * acosf(fminf(1.0f, fabsf(fk_quat_dot(a[i], out[i]))));
            float rest = 2.0f * acosf(fminf(1.0f, fabsf(fk_quat_dot(out[i], b[i]))));
            CHECK(fabsf(part - t * whole) < 2e-3f && fabsf(part + rest - whole) < 2e-3f,
                  "slerp at %g turned %g of %g (seed %lu)", t, part, whole, seed);
            CHECK(vec3_distance(d[i], fk_vec3_add(fk_vec3_scale(da[i], 1 - t), fk_vec3_scale(db[i], t))) < 1e-6f,
                  "translation is not linear");
        }
        {
            fk_quat same[8];
            CHECK(fk_pose_interpolate(8, a, NULL, minus_b, NULL, t, FK_INTERPOLATE_SLERP, same, NULL) == FK_OK, "failed");
            for (i = 0; i < 8; ++i) CHECK(quat_distance(same[i], out[i]) < 1e-6f, "-b took a different path (seed %lu)", seed);
        }
    }
}

static void blending_two_poses_is_nlerp_and_ignores_weight_scale(void)
{
    fk_quat a[6], b[6], c[6], out[6], scaled[6];
    fk_vec3 da[6], d[6];
    const fk_quat *poses[3];
    const fk_vec3 *translations[3];
    float weights[3], doubled[3];
    int trial, i;
    rng_restart();
    poses[0] = a; poses[1] = b; poses[2] = c;
    translations[0] = da; translations[1] = NULL; translations[2] = NULL;
    for (trial = 0; trial < 50; ++trial) {
        float t = rng_uniform(0.0f, 1.0f);
        for (i = 0; i < 6; ++i) { a[i] = random_quat(); b[i] = random_quat(); c[i] = random_quat(); da[i] = random_vec3(1); }
        weights[0] = 1 - t; weights[1] = t; weights[2] = 0.0f;
        CHECK(fk_pose_blend(6, 3, poses, translations, weights, out, d) == FK_OK, "failed");
        for (i = 0; i < 6; ++i) {
            CHECK(rotation_distance(out[i], fk_quat_nlerp(a[i], b[i], t)) < 1e-6f, "two-pose blend is not nlerp (seed %lu)", seed);
            CHECK(vec3_distance(d[i], fk_vec3_scale(da[i], 1 - t)) < 1e-6f, "translations not averaged (seed %lu)", seed);
        }
        weights[2] = rng_uniform(0.0f, 1.0f);
        for (i = 0; i < 3; ++i) doubled[i] = 2.5f * weights[i];
        CHECK(fk_pose_blend(6, 3, poses, NULL, weights, out, NULL) == FK_OK, "failed");
        CHECK(fk_pose_blend(6, 3, poses, NULL, doubled, scaled, NULL) == FK_OK, "failed");
        for (i = 0; i < 6; ++i) CHECK(quat_distance(out[i], scaled[i]) < 1e-6f, "scaling the weights changed the blend");
    }
    weights[0] = -1.0f;
    CHECK(fk_pose_blend(6, 3, poses, NULL, weights, out, NULL) == FK_ERROR_INVALID_WEIGHT, "negative weight accepted");
    weights[0] = weights[1] = weights[2] = 0.0f;
    CHECK(fk_pose_blend(6, 3, poses, NULL, weights, out, NULL) == FK_ERROR_INVALID_WEIGHT, "zero weights accepted");
    weights[0] = NAN;
    CHECK(fk_pose_blend(6, 3, poses, NULL, weights, out, NULL) == FK_ERROR_INVALID_WEIGHT, "NaN weight accepted");
}

/* Masked layers: a walk (weight 1, every joint) under an upper-body layer
   (weight 1, mask 1 on joints 3 to 5, 0 on 0 to 2). The lower joints come out
   as the walk alone and the upper ones as the even blend of both, bit for bit;
   masks of all ones are fk_pose_blend() bit for bit; a masked additive layer
   is fk_pose_add() at weight x mask, bit for bit. Bad masks write nothing. */
static void masked_layers_play_on_their_joints_only(void)
{
    fk_quat walk[6], wave[6], out[6], expected[6], lower[6], before[6];
    fk_vec3 walk_d[6], wave_d[6], d[6], expected_d[6];
    const fk_quat *poses[2];
    const fk_vec3 *translations[2];
    const float *masks[2];
    float weights[2] = {1.0f, 1.0f}, ones[6] = {1, 1, 1, 1, 1, 1}, upper[6] = {0, 0, 0, 1, 1, 1}, bad[6];
    int trial, i;
    rng_restart();
    poses[0] = walk; poses[1] = wave; translations[0] = walk_d; translations[1] = wave_d;
    for (trial = 0; trial < 30; ++trial) {
        for (i = 0; i < 6; ++i) { walk[i] = random_quat(); wave[i] = random_quat(); walk_d[i] = random_vec3(1); wave_d[i] = random_vec3(1); }
        weights[0] = rng_uniform(0.1f, 2.0f); weights[1] = rng_uniform(0.1f, 2.0f);
        masks[0] = ones; masks[1] = ones;
        CHECK(fk_pose_blend_masked(6, 2, poses, translations, weights, masks, out, d) == FK_OK, "masked blend failed");
        CHECK(fk_pose_blend(6, 2, poses, translations, weights, expected, expected_d) == FK_OK, "blend failed");
        CHECK(memcmp(out, expected, sizeof out) == 0 && memcmp(d, expected_d, sizeof d) == 0,
              "masks of ones differ from fk_pose_blend (seed %lu)", seed);
        masks[0] = NULL; masks[1] = upper;
        CHECK(fk_pose_blend_masked(6, 2, poses, translations, weights, masks, out, d) == FK_OK, "layered blend failed");
        CHECK(fk_pose_blend(6, 1, poses, translations, weights, lower, NULL) == FK_OK, "walk alone failed");
        for (i = 0; i < 3; ++i)
            CHECK(memcmp(&out[i], &lower[i], sizeof out[i]) == 0, "joint %d under a zero mask is not the walk alone", i);
        for (i = 3; i < 6; ++i)
            CHECK(memcmp(&out[i], &expected[i], sizeof out[i]) == 0, "joint %d under a mask of one is not the blend", i);
        {
            float half[6] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}, w = rng_uniform(-1.0f, 2.0f);
            CHECK(fk_pose_add_masked(6, walk, walk_d, wave, wave_d, w, half, out, d) == FK_OK, "masked add failed");
            CHECK(fk_pose_add(6, walk, walk_d, wave, wave_d, w * 0.5f, expected, expected_d) == FK_OK, "add failed");
            CHECK(memcmp(out, expected, sizeof out) == 0 && memcmp(d, expected_d, sizeof d) == 0,
                  "a mask of one half is not fk_pose_add at half the weight (seed %lu)", seed);
            CHECK(fk_pose_add_masked(6, walk, walk_d, wave, wave_d, w, ones, out, d) == FK_OK &&
                      fk_pose_add(6, walk, walk_d, wave, wave_d, w, expected, expected_d) == FK_OK &&
                      memcmp(out, expected, sizeof out) == 0, "a mask of ones is not fk_pose_add");
        }
    }
    memcpy(before, out, sizeof out);
    memcpy(bad, upper, sizeof bad);
    bad[4] = -0.5f; masks[1] = bad;
    CHECK(fk_pose_blend_masked(6, 2, poses, translations, weights, masks, out, d) == FK_ERROR_INVALID_WEIGHT,
          "a negative mask value accepted");
    bad[4] = NAN;
    CHECK(fk_pose_blend_masked(6, 2, poses, translations, weights, masks, out, d) == FK_ERROR_INVALID_WEIGHT,
          "a NaN mask value accepted");
    masks[0] = upper; masks[1] = upper; /* joints 0 to 2: nobody */
    CHECK(fk_pose_blend_masked(6, 2, poses, translations, weights, masks, out, d) == FK_ERROR_INVALID_WEIGHT,
          "a joint no pose weighs accepted");
    CHECK(fk_pose_add_masked(6, walk, walk_d, wave, wave_d, 1.0f, bad, out, d) == FK_ERROR_INVALID_WEIGHT,
          "a NaN additive mask accepted");
    CHECK(memcmp(before, out, sizeof out) == 0, "written before an error");
}

static void an_additive_difference_adds_back_to_the_pose(void)
{
    fk_quat reference[6], pose[6], base[6], delta[6], out[6], half[6], full[6];
    fk_vec3 reference_d[6], pose_d[6], delta_d[6], d[6];
    int trial, i;
    rng_restart();
    for (trial = 0; trial < 50; ++trial) {
        for (i = 0; i < 6; ++i) {
            reference[i] = random_quat(); pose[i] = random_quat(); base[i] = random_quat();
            reference_d[i] = random_vec3(1); pose_d[i] = random_vec3(1);
        }
        CHECK(fk_pose_difference(6, reference, reference_d, pose, pose_d, delta, delta_d) == FK_OK, "failed");
        CHECK(fk_pose_add(6, reference, reference_d, delta, delta_d, 1.0f, out, d) == FK_OK, "failed");
        for (i = 0; i < 6; ++i)
            CHECK(rotation_distance(out[i], pose[i]) < 2e-6f && vec3_distance(d[i], pose_d[i]) < 1e-6f,
                  "reference + (pose - reference) is not pose (seed %lu)", seed);
        CHECK(fk_pose_add(6, base, NULL, delta, NULL, 0.0f, out, NULL) == FK_OK, "failed");
        for (i = 0; i < 6; ++i) CHECK(rotation_distance(out[i], base[i]) < 1e-6f, "weight 0 changed the base");
        /* Half the delta twice is the whole delta: the power follows one arc. */
        CHECK(fk_pose_add(6, base, NULL, delta, NULL, 0.5f, half, NULL) == FK_OK, "failed");
        CHECK(fk_pose_add(6, half, NULL, delta, NULL, 0.5f, half, NULL) == FK_OK, "failed");
        CHECK(fk_pose_add(6, base, NULL, delta, NULL, 1.0f, full, NULL) == FK_OK, "failed");
        for (i = 0; i < 6; ++i)
            CHECK(rotation_distance(half[i], full[i]) < 4e-6f, "two halves differ from the whole by %g (seed %lu)",
                  rotation_distance(half[i], full[i]), seed);
    }
}

static void tracks_interpolate_between_keys_and_clamp_outside(void)
{
    float times[4] = {0.0f, 0.5f, 1.5f, 2.0f};
    fk_vec3 moves[4];
    fk_quat turns[4];
    fk_vec3 v;
    fk_quat q;
    int k;
    moves[0] = fk_vec3_make(0, 0, 0); moves[1] = fk_vec3_make(1, 0, 0);
    moves[2] = fk_vec3_make(1, 2, 0); moves[3] = fk_vec3_make(1, 2, 4);
    for (k = 0; k < 4; ++k) turns[k] = fk_quat_from_axis_angle(fk_vec3_make(0, 0, 1), 0.5f * (float)k);
    turns[2] = fk_quat_make(-turns[2].x, -turns[2].y, -turns[2].z, -turns[2].w); /* same rotation, other sign */
    for (k = 0; k < 4; ++k) {
        CHECK(fk_track_sample_vec3(4, times, moves, times[k], &v) == FK_OK && vec3_distance(v, moves[k]) == 0.0f,
              "key %d not hit", k);
        CHECK(fk_track_sample_quat(4, times, turns, times[k], FK_INTERPOLATE_SLERP, &q) == FK_OK &&
              rotation_distance(q, turns[k]) < 1e-6f, "rotation key %d not hit", k);
    }
    fk_track_sample_vec3(4, times, moves, 1.0f, &v);
    CHECK(vec3_distance(v, fk_vec3_make(1, 1, 0)) < 1e-6f, "halfway between keys 1 and 2 is (%g %g %g)", v.x, v.y, v.z);
    fk_track_sample_vec3(4, times, moves, -3.0f, &v);
    CHECK(vec3_distance(v, moves[0]) == 0.0f, "before the first key is not the first value");
    fk_track_sample_vec3(4, times, moves, INFINITY, &v);
    CHECK(vec3_distance(v, moves[3]) == 0.0f, "after the last key is not the last value");
    /* Between keys 1 and 2 (0.5 and 1.0 radians about z, the second stored as -q):
       a quarter of the way is 0.625 radians, the short way round. */
    fk_track_sample_quat(4, times, turns, 0.75f, FK_INTERPOLATE_SLERP, &q);
    CHECK(rotation_distance(q, fk_quat_from_axis_angle(fk_vec3_make(0, 0, 1), 0.625f)) < 1e-6f, "slerp between keys is off");
    fk_track_sample_quat(1, times, turns, 7.0f, FK_INTERPOLATE_NLERP, &q);
    CHECK(rotation_distance(q, turns[0]) == 0.0f, "a single key is not constant");
}

static void tracks_find_the_right_pair_of_keys(void)
{
    /* Against a linear scan, on random tracks of 1 to 40 keys with uneven spacing. */
    float times[40];
    fk_vec3 values[40], v, expected;
    int trial, n, k;
    rng_restart();
    for (trial = 0; trial < TRIALS; ++trial) {
        float time;
        n = 1 + rng_below(40);
        times[0] = rng_uniform(-5.0f, 5.0f);
        for (k = 1; k < n; ++k) times[k] = times[k - 1] + rng_uniform(0.01f, 1.0f);
        for (k = 0; k < n; ++k) values[k] = random_vec3(3.0f);
        time = rng_uniform(times[0] - 1.0f, times[n - 1] + 1.0f);
        if (time <= times[0]) expected = values[0];
        else if (time >= times[n - 1]) expected = values[n - 1];
        else {
            float u;
            for (k = 0; times[k + 1] <= time; ++k) {}
            u = (time - times[k]) / (times[k + 1] - times[k]);
            expected = fk_vec3_add(fk_vec3_scale(values[k], 1.0f - u), fk_vec3_scale(values[k + 1], u));
        }
        CHECK(fk_track_sample_vec3(n, times, values, time, &v) == FK_OK, "failed");
        CHECK(vec3_distance(v, expected) < 1e-5f, "sample of %d keys at %g is off by %g (seed %lu)", n, time,
              vec3_distance(v, expected), seed);
    }
}

static void pose_outputs_may_be_their_inputs(void)
{
    fk_quat a[5], b[5], out[5], delta[5];
    fk_vec3 da[5], db[5], d[5];
    int i;
    rng_restart();
    for (i = 0; i < 5; ++i) { a[i] = random_quat(); b[i] = random_quat(); da[i] = random_vec3(1); db[i] = random_vec3(1); }
    fk_pose_interpolate(5, a, da, b, db, 0.3f, FK_INTERPOLATE_SLERP, out, d);
    fk_pose_interpolate(5, a, da, b, db, 0.3f, FK_INTERPOLATE_SLERP, a, da);
    CHECK(memcmp(out, a, sizeof out) == 0 && memcmp(d, da, sizeof d) == 0, "interpolating in place differs");
    fk_pose_difference(5, a, da, b, db, out, d);
    memcpy(delta, b, sizeof delta);
    fk_pose_difference(5, a, da, delta, db, delta, db);
    CHECK(memcmp(out, delta, sizeof out) == 0 && memcmp(d, db, sizeof d) == 0, "difference in place differs");
    fk_pose_add(5, a, da, delta, db, 0.7f, out, d);
    fk_pose_add(5, a, da, delta, db, 0.7f, a, da);
    CHECK(memcmp(out, a, sizeof out) == 0 && memcmp(d, da, sizeof d) == 0, "adding in place differs");
}

static void track_keys_must_ascend(void)
{
    float unsorted[3] = {0.0f, 2.0f, 1.0f}, repeated[3] = {0.0f, 1.0f, 1.0f}, nan_key[3] = {0.0f, NAN, 2.0f};
    fk_vec3 values[3], out = fk_vec3_make(9, 9, 9);
    fk_quat turns[3] = {{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 0}};
    fk_quat q;
    float good[3] = {0.0f, 1.0f, 2.0f};
    memset(values, 0, sizeof values);
    CHECK(fk_track_validate(3, unsorted) == FK_ERROR_KEYS_NOT_ASCENDING, "unsorted keys accepted");
    CHECK(fk_track_validate(3, repeated) == FK_ERROR_KEYS_NOT_ASCENDING, "a repeated key time accepted");
    CHECK(fk_track_validate(3, nan_key) == FK_ERROR_KEYS_NOT_ASCENDING, "a NaN key time accepted");
    CHECK(fk_track_sample_vec3(3, unsorted, values, 0.5f, &out) == FK_ERROR_KEYS_NOT_ASCENDING && out.x == 9.0f,
          "sampling unsorted keys did not fail cleanly");
    CHECK(fk_track_sample_vec3(0, good, values, 0.5f, &out) == FK_ERROR_INVALID_COUNT, "no keys accepted");
    CHECK(fk_track_sample_vec3(3, good, values, NAN, &out) == FK_ERROR_NOT_FINITE, "NaN time accepted");
    CHECK(fk_track_sample_quat(3, good, turns, 0.5f, FK_INTERPOLATE_SLERP, &q) == FK_ERROR_INVALID_ROTATION,
          "a zero quaternion key accepted");
}

/* ---- Partial updates ------------------------------------------------------------------ */

static int in_subtree(const int *parents, int root, int joint)
{
    for (; joint >= 0; joint = parents[joint])
        if (joint == root) return 1;
    return 0;
}

static void subtree_update_leaves_other_joints_alone(void)
{
    int parents[MAX_JOINTS], trial, i;
    fk_vec3 rest[MAX_JOINTS], moves[MAX_JOINTS];
    fk_quat turns[MAX_JOINTS];
    fk_rigid before[MAX_JOINTS], partial[MAX_JOINTS];
    rng_restart();
    for (trial = 0; trial < TRIALS; ++trial) {
        int n = 1 + rng_below(MAX_JOINTS), root = rng_below(n), rest_frame = trial % 2;
        random_tree(n, parents);
        for (i = 0; i < n; ++i) { rest[i] = random_vec3(2); turns[i] = random_quat(); moves[i] = random_vec3(0.3f); }
        if (rest_frame) fk_forward_rest_frame(n, parents, rest, turns, moves, before);
        else fk_forward(n, parents, rest, turns, moves, before);
        /* Change inputs everywhere: only the subtree may follow. */
        for (i = 0; i < n; ++i)
            if (rng_below(2)) { turns[i] = random_quat(); moves[i] = random_vec3(0.3f); }
        memcpy(partial, before, sizeof before);
        CHECK((rest_frame ? fk_forward_subtree_rest_frame : fk_forward_subtree)(n, parents, rest, turns, moves, root,
                                                                                partial) == FK_OK, "failed");
        for (i = 0; i < n; ++i)
            if (!in_subtree(parents, root, i))
                CHECK(memcmp(&partial[i], &before[i], sizeof(fk_rigid)) == 0,
                      "joint %d outside the subtree of %d was touched (seed %lu)", i, root, seed);
    }
}

/* Random trees in random order: change some inputs inside a random subtree, update
   it alone, and compare every joint with a full fk_forward() of the new inputs. */
static void subtree_update_matches_full_update_bit_for_bit(void)
{
    int parents[MAX_JOINTS], trial, i;
    fk_vec3 rest[MAX_JOINTS], moves[MAX_JOINTS];
    fk_quat turns[MAX_JOINTS];
    fk_rigid partial[MAX_JOINTS], full[MAX_JOINTS];
    rng_restart();
    for (trial = 0; trial < TRIALS; ++trial) {
        int n = 1 + rng_below(MAX_JOINTS), root = rng_below(n), rest_frame = trial % 2;
        random_tree(n, parents);
        for (i = 0; i < n; ++i) { rest[i] = random_vec3(2); turns[i] = random_quat(); moves[i] = random_vec3(0.3f); }
        if (rest_frame) fk_forward_rest_frame(n, parents, rest, turns, moves, partial);
        else fk_forward(n, parents, rest, turns, moves, partial);
        for (i = 0; i < n; ++i)
            if (in_subtree(parents, root, i) && rng_below(2)) { turns[i] = random_quat(); moves[i] = random_vec3(0.3f); }
        CHECK((rest_frame ? fk_forward_subtree_rest_frame : fk_forward_subtree)(n, parents, rest, turns, moves, root,
                                                                                partial) == FK_OK, "failed");
        if (rest_frame) fk_forward_rest_frame(n, parents, rest, turns, moves, full);
        else fk_forward(n, parents, rest, turns, moves, full);
        for (i = 0; i < n; ++i)
            CHECK(memcmp(&partial[i], &full[i], sizeof(fk_rigid)) == 0,
                  "joint %d of %d (subtree of %d) differs from the full update (seed %lu)", i, n, root, seed);
    }
}

static void subtree_update_refuses_bad_input_without_writing(void)
{
    int cycle[3] = {-1, 2, 1}, chain[3] = {-1, 0, 1};
    fk_vec3 rest[3] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
    fk_quat turns[3] = {{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}}, zero[3] = {{0, 0, 0, 1}, {0, 0, 0, 0}, {0, 0, 0, 1}};
    fk_rigid transforms[3], copy[3];
    fk_forward(3, chain, rest, turns, NULL, transforms);
    memcpy(copy, transforms, sizeof copy);
    CHECK(fk_forward_subtree(3, cycle, rest, turns, NULL, 0, transforms) == FK_ERROR_CYCLE, "cycle not found");
    CHECK(fk_forward_subtree(3, chain, rest, zero, NULL, 1, transforms) == FK_ERROR_INVALID_ROTATION, "zero rotation accepted");
    CHECK(fk_forward_subtree(3, chain, rest, turns, NULL, 3, transforms) == FK_ERROR_JOINT_OUT_OF_RANGE, "joint 3 of 3 accepted");
    CHECK(fk_forward_subtree(3, chain, rest, turns, NULL, -1, transforms) == FK_ERROR_JOINT_OUT_OF_RANGE, "joint -1 accepted");
    CHECK(memcmp(copy, transforms, sizeof copy) == 0, "a refused update wrote");
    /* Joint 0's subtree with a bad rotation outside it (none here) is fine: */
    CHECK(fk_forward_subtree(3, chain, rest, zero, NULL, 2, transforms) == FK_OK, "a bad rotation outside the subtree was read");
}

/* ---- Derivatives against finite differences in double ------------------------------ */

typedef struct dquat { double x, y, z, w; } dquat;
typedef struct dvec { double x, y, z; } dvec;

static dquat dquat_of(fk_quat q)
{
    double n = sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w);
    dquat r;
    r.x = q.x / n; r.y = q.y / n; r.z = q.z / n; r.w = q.w / n;
    return r;
}

static dvec dvec_of(fk_vec3 v) { dvec r; r.x = v.x; r.y = v.y; r.z = v.z; return r; }

static dquat dquat_mul(dquat a, dquat b)
{
    dquat r;
    r.x = a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y;
    r.y = a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x;
    r.z = a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w;
    r.w = a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z;
    return r;
}

static dvec dquat_rotate(dquat q, dvec v) /* q v q* */
{
    dquat p = {v.x, v.y, v.z, 0.0}, c = {-q.x, -q.y, -q.z, q.w}, r = dquat_mul(dquat_mul(q, p), c);
    dvec out;
    out.x = r.x; out.y = r.y; out.z = r.z;
    return out;
}

static dvec dvec_add(dvec a, dvec b) { dvec r; r.x = a.x + b.x; r.y = a.y + b.y; r.z = a.z + b.z; return r; }
static dvec dvec_sub(dvec a, dvec b) { dvec r; r.x = a.x - b.x; r.y = a.y - b.y; r.z = a.z - b.z; return r; }

/* Absolute rotation and translation of one joint, recursively, in double. */
static void dforward_joint(const int *parents, const fk_vec3 *rest, const dquat *turns, const fk_vec3 *moves,
                           int rest_frame, int joint, dquat *q, dvec *t)
{
    dvec pivot = dvec_add(dvec_of(rest[joint]), dvec_of(moves[joint]));
    if (parents[joint] < 0) {
        *q = turns[joint];
        *t = dvec_sub(pivot, dquat_rotate(*q, dvec_of(rest[joint])));
    } else {
        dquat parent_q;
        dvec parent_t;
        dforward_joint(parents, rest, turns, moves, rest_frame, parents[joint], &parent_q, &parent_t);
        *q = rest_frame ? dquat_mul(turns[joint], parent_q) : dquat_mul(parent_q, turns[joint]);
        *t = dvec_sub(dvec_add(parent_t, dquat_rotate(parent_q, pivot)), dquat_rotate(*q, dvec_of(rest[joint])));
    }
}

static dvec dpoint(const int *parents, const fk_vec3 *rest, const dquat *turns, const fk_vec3 *moves,
                   int rest_frame, int joint, fk_vec3 rest_point)
{
    dquat q;
    dvec t;
    dforward_joint(parents, rest, turns, moves, rest_frame, joint, &q, &t);
    return dvec_add(dquat_rotate(q, dvec_of(rest_point)), t);
}

/* exp(w/2) q for w = h e_c. */
static dquat dperturb(dquat q, int c, double h)
{
    dquat e = {0.0, 0.0, 0.0, cos(h / 2)};
    if (c == 0) e.x = sin(h / 2); else if (c == 1) e.y = sin(h / 2); else e.z = sin(h / 2);
    return dquat_mul(e, q);
}

typedef struct rig {
    int n, parents[MAX_JOINTS];
    fk_vec3 rest[MAX_JOINTS], moves[MAX_JOINTS];
    fk_quat turns[MAX_JOINTS];
    dquat dturns[MAX_JOINTS];
    fk_rigid transforms[MAX_JOINTS];
} rig;

static void random_rig(rig *r, int rest_frame)
{
    int i;
    r->n = 1 + rng_below(24);
    random_tree(r->n, r->parents);
    for (i = 0; i < r->n; ++i) {
        r->rest[i] = random_vec3(1.0f); r->moves[i] = random_vec3(0.2f); r->turns[i] = random_quat();
        r->dturns[i] = dquat_of(r->turns[i]);
    }
    if (rest_frame) fk_forward_rest_frame(r->n, r->parents, r->rest, r->turns, r->moves, r->transforms);
    else fk_forward(r->n, r->parents, r->rest, r->turns, r->moves, r->transforms);
}

/* Largest gap between an analytic Jacobian and central differences of a double
   evaluation f(r, rest_frame, data) of the point; also the largest entry. */
typedef dvec (*point_function)(const rig *r, int rest_frame, const void *data);

static double jacobian_gap(rig *r, int rest_frame, point_function f, const void *data, const float *jacobian,
                           double *largest)
{
    const double h = 1e-6;
    double gap = 0.0;
    int i, c;
    size_t width = 3 * (size_t)r->n;
    *largest = 0.0;
    for (i = 0; i < r->n; ++i)
        for (c = 0; c < 3; ++c) {
            dquat saved = r->dturns[i];
            dvec plus, minus, derivative;
            size_t column = 3 * (size_t)i + (size_t)c;
            r->dturns[i] = dperturb(saved, c, h); plus = f(r, rest_frame, data);
            r->dturns[i] = dperturb(saved, c, -h); minus = f(r, rest_frame, data);
            r->dturns[i] = saved;
            derivative = dvec_sub(plus, minus);
            gap = fmax(gap, fabs(derivative.x / (2 * h) - jacobian[column]));
            gap = fmax(gap, fabs(derivative.y / (2 * h) - jacobian[width + column]));
            gap = fmax(gap, fabs(derivative.z / (2 * h) - jacobian[2 * width + column]));
            *largest = fmax(*largest, fmax(fabs(jacobian[column]), fmax(fabs(jacobian[width + column]), fabs(jacobian[2 * width + column]))));
        }
    return gap;
}

typedef struct point_on_bone { int joint; fk_vec3 rest_point; } point_on_bone;

static dvec point_of(const rig *r, int rest_frame, const void *data)
{
    const point_on_bone *p = (const point_on_bone *)data;
    return dpoint(r->parents, r->rest, r->dturns, r->moves, rest_frame, p->joint, p->rest_point);
}

typedef struct lbs_vertex { fk_vec3 rest_position; uint16_t joints[4]; float weights[4]; } lbs_vertex;

static dvec lbs_vertex_of(const rig *r, int rest_frame, const void *data)
{
    const lbs_vertex *v = (const lbs_vertex *)data;
    dvec sum = {0.0, 0.0, 0.0};
    int k;
    for (k = 0; k < 4; ++k) {
        dvec p = dpoint(r->parents, r->rest, r->dturns, r->moves, rest_frame, v->joints[k], v->rest_position);
        sum.x += v->weights[k] * p.x; sum.y += v->weights[k] * p.y; sum.z += v->weights[k] * p.z;
    }
    return sum;
}

/* The entries are of size 1 to 5 (unit-sized rigs), and float evaluation is good to
   a few units in the last place of the lever arms: the worst gap over 150 seeds was
   2.7e-6. 1e-5 absolute is some twenty float epsilons of the largest entries, far
   below any real mistake (a wrong frame or sign is off by O(1)). */
#define JACOBIAN_TOLERANCE 1e-5

static void joint_and_point_jacobians_match_finite_differences(void)
{
    static rig r;
    static float jacobian[9 * MAX_JOINTS];
    double worst = 0.0;
    int trial;
    rng_restart();
    for (trial = 0; trial < TRIALS; ++trial) {
        int rest_frame = trial % 2;
        fk_rotation_frame frame = rest_frame ? FK_FRAME_REST : FK_FRAME_PARENT;
        point_on_bone p;
        double gap, largest;
        random_rig(&r, rest_frame);
        p.joint = rng_below(r.n);
        p.rest_point = trial % 3 == 0 ? r.rest[p.joint] : random_vec3(1.5f);
        if (trial % 3 == 0)
            CHECK(fk_jacobian_joint(r.n, r.parents, r.rest, r.transforms, frame, p.joint, jacobian) == FK_OK, "failed");
        else
            CHECK(fk_jacobian_point(r.n, r.parents, r.rest, r.transforms, frame, p.joint, p.rest_point, jacobian) == FK_OK,
                  "failed");
        gap = jacobian_gap(&r, rest_frame, point_of, &p, jacobian, &largest);
        worst = fmax(worst, gap);
        CHECK(gap < JACOBIAN_TOLERANCE, "%s Jacobian of joint %d off by %g (largest entry %g, seed %lu)",
              rest_frame ? "rest-frame" : "parent-frame", p.joint, gap, largest, seed);
    }
    printf("   point and joint Jacobians: largest gap to finite differences %.2e\n", worst);
}

static void lbs_vertex_jacobian_matches_finite_differences(void)
{
    static rig r;
    static float jacobian[9 * MAX_JOINTS];
    double worst = 0.0;
    int trial, k;
    rng_restart();
    for (trial = 0; trial < TRIALS; ++trial) {
        int rest_frame = trial % 2;
        lbs_vertex v;
        double gap, largest;
        float sum = 0.0f;
        random_rig(&r, rest_frame);
        v.rest_position = random_vec3(1.5f);
        for (k = 0; k < 4; ++k) { v.joints[k] = (uint16_t)rng_below(r.n); v.weights[k] = rng_uniform(0, 1); sum += v.weights[k]; }
        for (k = 0; k < 4; ++k) v.weights[k] /= sum;
        CHECK(fk_jacobian_lbs_vertex(r.n, r.parents, r.rest, r.transforms, rest_frame ? FK_FRAME_REST : FK_FRAME_PARENT,
                                     v.rest_position, 4, v.joints, v.weights, jacobian) == FK_OK, "failed");
        gap = jacobian_gap(&r, rest_frame, lbs_vertex_of, &v, jacobian, &largest);
        worst = fmax(worst, gap);
        CHECK(gap < JACOBIAN_TOLERANCE, "LBS vertex Jacobian off by %g (largest entry %g, seed %lu)", gap, largest, seed);
    }
    printf("   LBS vertex Jacobians: largest gap to finite differences %.2e\n", worst);
}

static void jacobians_refuse_bad_input(void)
{
    int cycle[3] = {2, 0, 1}, chain[3] = {-1, 0, 1};
    fk_vec3 rest[3] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
    fk_rigid transforms[3] = {{{0, 0, 0, 1}, {0, 0, 0}}, {{0, 0, 0, 1}, {0, 0, 0}}, {{0, 0, 0, 1}, {0, 0, 0}}};
    uint16_t joints[2] = {1, 3};
    float weights[2] = {0.5f, 0.5f}, out[27];
    out[0] = 42.0f;
    CHECK(fk_jacobian_joint(3, cycle, rest, transforms, FK_FRAME_PARENT, 1, out) == FK_ERROR_CYCLE, "cycle accepted");
    CHECK(fk_jacobian_joint(3, chain, rest, transforms, FK_FRAME_PARENT, 3, out) == FK_ERROR_JOINT_OUT_OF_RANGE, "joint 3 accepted");
    CHECK(fk_jacobian_lbs_vertex(3, chain, rest, transforms, FK_FRAME_PARENT, rest[0], 2, joints, weights, out) ==
          FK_ERROR_JOINT_OUT_OF_RANGE, "influence on joint 3 accepted");
    CHECK(out[0] == 42.0f, "a refused Jacobian wrote");
    CHECK(fk_jacobian_joint(3, chain, rest, transforms, FK_FRAME_PARENT, 2, out) == FK_OK, "failed");
    /* Straight chain along x at rest: joint 2 at (2, 0, 0) moves by w x (2, 0, 0) for
       joint 0 and w x (1, 0, 0) for joint 1; its own columns are zero. */
    CHECK(out[18 + 1] == -2.0f && out[9 + 2] == 2.0f && out[18 + 3 + 1] == -1.0f && out[9 + 3 + 2] == 1.0f &&
          out[0] == 0.0f && out[6] == 0.0f && out[9 + 7] == 0.0f && out[18 + 8] == 0.0f, "hand-worked Jacobian differs");
}

/* ---- Inverse kinematics ------------------------------------------------------------------
   An arm of four segments of lengths 1, 0.8, 0.6, 0.4 along x, hanging off a fixed
   body joint; the hand (joint 5) is the end effector and the shoulder (joint 1) the
   chain's root. */

#define ARM_JOINTS 6
static const int arm_parents[ARM_JOINTS] = {-1, 0, 1, 2, 3, 4};
static const float arm_x[ARM_JOINTS] = {0.0f, 0.0f, 1.0f, 1.8f, 2.4f, 2.8f};

static void arm_rest(fk_vec3 rest[ARM_JOINTS], fk_quat turns[ARM_JOINTS])
{
    int i;
    for (i = 0; i < ARM_JOINTS; ++i) { rest[i] = fk_vec3_make(arm_x[i], 0.0f, 0.0f); turns[i] = fk_quat_identity(); }
    turns[0] = fk_quat_from_axis_angle(fk_vec3_make(0, 1, 1), 0.3f); /* the body is turned and does not move */
}

/* Solves from the rest pose with the forward kinematics of either convention. */
static float solve_arm(fk_vec3 target, fk_rotation_frame frame, fk_quat turns[ARM_JOINTS], fk_rigid bones[ARM_JOINTS],
                       int iterations)
{
    fk_vec3 rest[ARM_JOINTS], hand;
    fk_quat body;
    int i;
    arm_rest(rest, turns);
    body = turns[0];
    for (i = 0; i <= iterations; ++i) {
        if (frame == FK_FRAME_REST) fk_forward_rest_frame(ARM_JOINTS, arm_parents, rest, turns, NULL, bones);
        else fk_forward(ARM_JOINTS, arm_parents, rest, turns, NULL, bones);
        if (i == iterations) break;
        CHECK(fk_ik_step(ARM_JOINTS, arm_parents, rest, bones, frame, 5, rest[5], 1, target, 0.1f, turns) == FK_OK,
              "step failed");
    }
    CHECK(memcmp(&body, &turns[0], sizeof body) == 0, "the joint above the chain root moved");
    hand = fk_rigid_apply(bones[5], rest[5]);
    return vec3_distance(hand, target);
}

static void ik_reaches_reachable_targets(void)
{
    fk_quat turns[ARM_JOINTS];
    fk_rigid bones[ARM_JOINTS];
    float worst = 0.0f;
    int trial, i;
    rng_restart();
    for (trial = 0; trial < 50; ++trial) {
        /* A target made by posing the arm is reachable by construction. */
        fk_vec3 rest[ARM_JOINTS], target;
        float error;
        arm_rest(rest, turns);
        for (i = 1; i < ARM_JOINTS; ++i) turns[i] = fk_quat_from_rotation_vector(random_vec3(1.0f));
        fk_forward(ARM_JOINTS, arm_parents, rest, turns, NULL, bones);
        target = fk_rigid_apply(bones[5], rest[5]);
        error = solve_arm(target, trial % 2 ? FK_FRAME_REST : FK_FRAME_PARENT, turns, bones, 100);
        worst = fmaxf(worst, error);
        CHECK(error < 1e-4f, "hand ends %g from a reachable target (%s frame, seed %lu)", error,
              trial % 2 ? "rest" : "parent", seed);
    }
    printf("   IK, reachable targets: largest error after 100 steps %.2e (arm length 2.8)\n", worst);
}

static void ik_stretches_toward_unreachable_targets(void)
{
    fk_quat turns[ARM_JOINTS];
    fk_rigid bones[ARM_JOINTS];
    fk_vec3 rest[ARM_JOINTS];
    float worst = 0.0f;
    int trial, i;
    rng_restart();
    arm_rest(rest, turns);
    for (trial = 0; trial < 20; ++trial) {
        fk_vec3 shoulder = rest[1], direction = fk_vec3_normalize(random_vec3(1.0f)), points[ARM_JOINTS];
        fk_vec3 target = fk_vec3_add(shoulder, fk_vec3_scale(direction, rng_uniform(3.5f, 10.0f)));
        fk_vec3 arm = fk_quat_rotate(turns[0], fk_vec3_make(1, 0, 0));
        float start = atan2f(fk_vec3_length(fk_vec3_cross(arm, direction)), fk_vec3_dot(arm, direction));
        solve_arm(target, trial % 2 ? FK_FRAME_REST : FK_FRAME_PARENT, turns, bones, 200);
        fk_posed_joints(ARM_JOINTS, rest, bones, points);
        /* Straight and pointing at the target: every segment runs along the
           shoulder-to-target direction. */
        for (i = 1; i < ARM_JOINTS - 1; ++i) {
            fk_vec3 segment = fk_vec3_normalize(fk_vec3_sub(points[i + 1], points[i]));
            float angle = atan2f(fk_vec3_length(fk_vec3_cross(segment, direction)), fk_vec3_dot(segment, direction));
            worst = fmaxf(worst, angle);
            CHECK(angle < 1e-4f, "segment %d is %g rad off the direction to (%g %g %g) (%g rad from the start, seed %lu)",
                  i, angle, target.x, target.y, target.z, start, seed);
        }
    }
    printf("   IK, unreachable targets: largest segment angle to the target direction %.2e rad\n", worst);
}

static void ik_step_is_the_damped_least_squares_step(void)
{
    /* Against the formula written out: J from fk_jacobian_joint, (J J^T + l^2 I) y = e
       with l^2 = d^2 + |e| R (R the chain's length, pivot to pivot to the end
       effector) solved in double by Cramer's rule, w = J^T y, q_i <- exp(w_i / 2) q_i. */
    static rig r;
    static float jacobian[9 * MAX_JOINTS];
    fk_quat stepped[MAX_JOINTS];
    int trial, i, row, column;
    rng_restart();
    for (trial = 0; trial < 50; ++trial) {
        double a[3][3], e[3], y[3], det, reach;
        fk_vec3 target = random_vec3(3.0f), p, next;
        int joint, width;
        const float damping = 0.3f;
        random_rig(&r, 0);
        width = 3 * r.n;
        joint = rng_below(r.n);
        fk_jacobian_joint(r.n, r.parents, r.rest, r.transforms, FK_FRAME_PARENT, joint, jacobian);
        p = fk_rigid_apply(r.transforms[joint], r.rest[joint]);
        e[0] = target.x - p.x; e[1] = target.y - p.y; e[2] = target.z - p.z;
        reach = 0.0;
        for (i = joint, next = p; i >= 0; i = r.parents[i]) {
            fk_vec3 pivot = fk_rigid_apply(r.transforms[i], r.rest[i]);
            reach += vec3_distance(next, pivot);
            next = pivot;
        }
        for (row = 0; row < 3; ++row)
            for (column = 0; column < 3; ++column) {
                a[row][column] = row == column ? (double)damping * damping + sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) * reach : 0.0;
                for (i = 0; i < width; ++i) a[row][column] += (double)jacobian[row * width + i] * jacobian[column * width + i];
            }
        det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
              a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
        for (row = 0; row < 3; ++row) {
            double m[3][3];
            memcpy(m, a, sizeof m);
            for (i = 0; i < 3; ++i) m[i][row] = e[i];
            y[row] = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                      m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])) / det;
        }
        memcpy(stepped, r.turns, sizeof(fk_quat) * (size_t)r.n);
        CHECK(fk_ik_step(r.n, r.parents, r.rest, r.transforms, FK_FRAME_PARENT, joint, r.rest[joint], -1, target, damping,
                         stepped) == FK_OK, "failed");
        for (i = 0; i < r.n; ++i) {
            fk_vec3 w;
            fk_quat expected;
            w.x = (float)(jacobian[i * 3 + 0] * y[0] + jacobian[width + i * 3 + 0] * y[1] + jacobian[2 * width + i * 3 + 0] * y[2]);
            w.y = (float)(jacobian[i * 3 + 1] * y[0] + jacobian[width + i * 3 + 1] * y[1] + jacobian[2 * width + i * 3 + 1] * y[2]);
            w.z = (float)(jacobian[i * 3 + 2] * y[0] + jacobian[width + i * 3 + 2] * y[1] + jacobian[2 * width + i * 3 + 2] * y[2]);
            expected = fk_quat_normalize(fk_quat_mul(fk_quat_from_rotation_vector(w), r.turns[i]));
            CHECK(quat_distance(stepped[i], expected) < 2e-5f, "joint %d stepped to a different rotation, off by %g (seed %lu)",
                  i, quat_distance(stepped[i], expected), seed);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) seed = strtoul(argv[1], NULL, 10);
    printf("   seed %lu (replay: build/test_beyond %lu)\n", seed, seed);
    RUN_TEST(exp_inverts_log);
    RUN_TEST(log_inverts_exp_below_pi);
    RUN_TEST(rotation_vector_is_axis_times_angle);
    RUN_TEST(tiny_and_half_turn_angles_are_accurate);
    RUN_TEST(sound_weights_are_left_bit_for_bit);
    RUN_TEST(nan_and_infinite_weights_are_dropped);
    RUN_TEST(negative_weights_are_dropped);
    RUN_TEST(joints_out_of_range_are_dropped_even_without_weight);
    RUN_TEST(duplicate_joints_are_merged);
    RUN_TEST(zero_padding_repeating_joint_zero_is_not_a_duplicate);
    RUN_TEST(zero_sum_falls_back_to_the_first_valid_joint);
    RUN_TEST(reducing_keeps_the_largest_merged_weights);
    RUN_TEST(weights_beyond_the_kept_slots_move_forward);
    RUN_TEST(huge_weights_do_not_overflow);
    RUN_TEST(repaired_weights_are_valid_sorted_and_stable);
    RUN_TEST(bad_weight_descriptors_are_refused);
    RUN_TEST(interpolation_hits_both_ends_and_turns_at_constant_speed);
    RUN_TEST(blending_two_poses_is_nlerp_and_ignores_weight_scale);
    RUN_TEST(masked_layers_play_on_their_joints_only);
    RUN_TEST(an_additive_difference_adds_back_to_the_pose);
    RUN_TEST(tracks_interpolate_between_keys_and_clamp_outside);
    RUN_TEST(tracks_find_the_right_pair_of_keys);
    RUN_TEST(pose_outputs_may_be_their_inputs);
    RUN_TEST(track_keys_must_ascend);
    RUN_TEST(subtree_update_leaves_other_joints_alone);
    RUN_TEST(subtree_update_matches_full_update_bit_for_bit);
    RUN_TEST(subtree_update_refuses_bad_input_without_writing);
    RUN_TEST(joint_and_point_jacobians_match_finite_differences);
    RUN_TEST(lbs_vertex_jacobian_matches_finite_differences);
    RUN_TEST(jacobians_refuse_bad_input);
    RUN_TEST(ik_reaches_reachable_targets);
    RUN_TEST(ik_stretches_toward_unreachable_targets);
    RUN_TEST(ik_step_is_the_damped_least_squares_step);
    return check_finish();
}
