/* test_bad_input.c - the catalogue of bad input: what each function does with it.

   Every row of the bad-input table in docs/conventions.md names one test here
   (tests/conventions_table.sh checks that). A test states the rule in its name,
   feeds the bad input, and checks the result code, what was written, and that the
   inputs were left alone. */
#include "fk_lbs.h" /* declarations: the library is tests/fk_lbs_impl.c */
#include "check.h"
#include "test_random.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- A three-joint chain (root, elbow, hand) to spoil one field at a time ---- */

enum { JOINTS = 3 };

typedef struct rig {
    int parents[JOINTS];
    fk_vec3 rest[JOINTS];
    fk_quat rotations[JOINTS];
    fk_vec3 translations[JOINTS];
} rig;

static rig good_rig(void)
{
    rig r;
    int i;
    r.parents[0] = -1; r.parents[1] = 0; r.parents[2] = 1;
    for (i = 0; i < JOINTS; ++i) {
        r.rest[i] = fk_vec3_make(0.0f, (float)i, 0.0f);
        r.rotations[i] = fk_quat_from_axis_angle(fk_vec3_make(0.0f, 0.0f, 1.0f), 0.3f * (float)(i + 1));
        r.translations[i] = fk_vec3_make(0.1f, 0.0f, 0.0f);
    }
    return r;
}

static int is_identity(fk_rigid r)
{
    return r.q.x == 0.0f && r.q.y == 0.0f && r.q.z == 0.0f && r.q.w == 1.0f && r.t.x == 0.0f && r.t.y == 0.0f &&
           r.t.z == 0.0f;
}

/* Runs both FK conventions on the rig; checks they agree on the code, that the
   output is all identities on error, and that the rig was not modified. */
static fk_result forward_both(const rig *r, int use_translations, fk_rigid out[JOINTS])
{
    rig before = *r;
    fk_rigid rest_frame_out[JOINTS];
    const fk_vec3 *d = use_translations ? r->translations : NULL;
    fk_result result = fk_forward(JOINTS, r->parents, r->rest, r->rotations, d, out);
    fk_result rest_frame = fk_forward_rest_frame(JOINTS, r->parents, r->rest, r->rotations, d, rest_frame_out);
    int i;
    CHECK(result == rest_frame, "fk_forward %d, fk_forward_rest_frame %d", (int)result, (int)rest_frame);
    CHECK(memcmp(&before, r, sizeof before) == 0, "the input rig was modified");
    if (result != FK_OK)
        for (i = 0; i < JOINTS; ++i)
            CHECK(is_identity(out[i]) && is_identity(rest_frame_out[i]), "joint %d is not the identity after an error", i);
    return result;
}

static float max_difference(const fk_rigid *a, const fk_rigid *b, int count)
{
    float largest = 0.0f;
    int i, c;
    for (i = 0; i < count; ++i) {
        const float *x = &a[i].q.x, *y = &b[i].q.x;
        /* q and -q are one rotation */
        float same = 0.0f, flipped = 0.0f;
        for (c = 0; c < 4; ++c) {
            same = fmaxf(same, fabsf(x[c] - y[c]));
            flipped = fmaxf(flipped, fabsf(x[c] + y[c]));
        }
        largest = fmaxf(largest, fminf(same, flipped));
        largest = fmaxf(largest, fabsf(a[i].t.x - b[i].t.x));
        largest = fmaxf(largest, fabsf(a[i].t.y - b[i].t.y));
        largest = fmaxf(largest, fabsf(a[i].t.z - b[i].t.z));
    }
    return largest;
}

/* ---- Forward kinematics: counts and pointers ---- */

static void negative_joint_count_is_invalid_count(void)
{
    rig r = good_rig();
    fk_rigid out[JOINTS];
    CHECK(fk_forward(-1, r.parents, r.rest, r.rotations, NULL, out) == FK_ERROR_INVALID_COUNT, "fk_forward(-1)");
    CHECK(fk_forward_rest_frame(INT_MIN, r.parents, r.rest, r.rotations, NULL, out) == FK_ERROR_INVALID_COUNT,
          "fk_forward_rest_frame(INT_MIN)");
    CHECK(fk_validate_skeleton(-1, r.parents) == FK_ERROR_INVALID_COUNT, "fk_validate_skeleton(-1)");
    CHECK(fk_posed_joints(-1, r.rest, out, r.translations) == FK_ERROR_INVALID_COUNT, "fk_posed_joints(-1)");
}

static void zero_joints_is_ok_and_reads_nothing(void)
{
    CHECK(fk_forward(0, NULL, NULL, NULL, NULL, NULL) == FK_OK, "fk_forward(0, NULL...)");
    CHECK(fk_forward_rest_frame(0, NULL, NULL, NULL, NULL, NULL) == FK_OK, "fk_forward_rest_frame(0, NULL...)");
    CHECK(fk_validate_skeleton(0, NULL) == FK_OK, "fk_validate_skeleton(0, NULL)");
    CHECK(fk_posed_joints(0, NULL, NULL, NULL) == FK_OK, "fk_posed_joints(0, NULL...)");
}

static void missing_required_pointer_is_null_argument(void)
{
    rig r = good_rig();
    fk_rigid out[JOINTS];
    fk_vec3 posed[JOINTS];
    CHECK(fk_forward(JOINTS, NULL, r.rest, r.rotations, NULL, out) == FK_ERROR_NULL_ARGUMENT, "NULL parents");
    CHECK(fk_forward(JOINTS, r.parents, NULL, r.rotations, NULL, out) == FK_ERROR_NULL_ARGUMENT, "NULL rest joints");
    CHECK(fk_forward(JOINTS, r.parents, r.rest, NULL, NULL, out) == FK_ERROR_NULL_ARGUMENT, "NULL rotations");
    CHECK(fk_forward(JOINTS, r.parents, r.rest, r.rotations, NULL, NULL) == FK_ERROR_NULL_ARGUMENT, "NULL out");
    CHECK(fk_validate_skeleton(JOINTS, NULL) == FK_ERROR_NULL_ARGUMENT, "validate NULL parents");
    CHECK(fk_posed_joints(JOINTS, NULL, out, posed) == FK_ERROR_NULL_ARGUMENT, "posed NULL rest");
    CHECK(fk_posed_joints(JOINTS, r.rest, NULL, posed) == FK_ERROR_NULL_ARGUMENT, "posed NULL transforms");
    CHECK(fk_posed_joints(JOINTS, r.rest, out, NULL) == FK_ERROR_NULL_ARGUMENT, "posed NULL out");
}

static void null_translations_mean_none(void)
{
    rig r = good_rig();
    fk_rigid without[JOINTS], zero[JOINTS];
    int i;
    for (i = 0; i < JOINTS; ++i) r.translations[i] = fk_vec3_make(0.0f, 0.0f, 0.0f);
    CHECK(forward_both(&r, 0, without) == FK_OK, "NULL translations");
    CHECK(forward_both(&r, 1, zero) == FK_OK, "zero translations");
    CHECK(max_difference(without, zero, JOINTS) == 0.0f, "NULL translations differ from zero translations");
}

/* ---- Forward kinematics: parent arrays ---- */

static void parent_past_the_end_is_out_of_range(void)
{
    rig r = good_rig();
    fk_rigid out[JOINTS];
    int bad[] = {JOINTS, JOINTS + 1, 65535, INT_MAX};
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        r.parents[2] = bad[i];
        CHECK(forward_both(&r, 1, out) == FK_ERROR_PARENT_OUT_OF_RANGE, "parent %d", bad[i]);
        CHECK(fk_validate_skeleton(JOINTS, r.parents) == FK_ERROR_PARENT_OUT_OF_RANGE, "validate parent %d", bad[i]);
    }
}

static void any_negative_parent_is_a_root(void)
{
    rig r = good_rig();
    fk_rigid minus_one[JOINTS], other[JOINTS];
    int negatives[] = {-2, -1000, INT_MIN};
    size_t i;
    r.parents[1] = -1;
    CHECK(forward_both(&r, 1, minus_one) == FK_OK, "-1 as parent");
    for (i = 0; i < sizeof negatives / sizeof negatives[0]; ++i) {
        r.parents[1] = negatives[i];
        CHECK(fk_validate_skeleton(JOINTS, r.parents) == FK_OK, "validate parent %d", negatives[i]);
        CHECK(forward_both(&r, 1, other) == FK_OK, "parent %d", negatives[i]);
        CHECK(max_difference(minus_one, other, JOINTS) == 0.0f, "parent %d is not the same as -1", negatives[i]);
    }
}

static void own_parent_is_self_parent(void)
{
    rig r = good_rig();
    fk_rigid out[JOINTS];
    r.parents[1] = 1;
    CHECK(forward_both(&r, 1, out) == FK_ERROR_SELF_PARENT, "joint 1 its own parent");
    CHECK(fk_validate_skeleton(JOINTS, r.parents) == FK_ERROR_SELF_PARENT, "validate");
    r = good_rig();
    r.parents[0] = 0; /* a root pointing at itself is no root */
    CHECK(forward_both(&r, 1, out) == FK_ERROR_SELF_PARENT, "joint 0 its own parent");
}

static void cycle_is_cycle(void)
{
    enum { N = 6 };
    /* 0 is a root with child 1; 2 -> 3 -> 4 -> 2 is a loop; 5 hangs off the loop. */
    int parents[N] = {-1, 0, 4, 2, 3, 4};
    fk_vec3 rest[N];
    fk_quat rotations[N];
    fk_rigid out[N];
    int two_cycle[2] = {1, 0}, i;
    for (i = 0; i < N; ++i) { rest[i] = fk_vec3_make((float)i, 0.0f, 0.0f); rotations[i] = fk_quat_identity(); }
    CHECK(fk_validate_skeleton(N, parents) == FK_ERROR_CYCLE, "validate a 3-cycle with a tail");
    CHECK(fk_forward(N, parents, rest, rotations, NULL, out) == FK_ERROR_CYCLE, "forward a 3-cycle");
    CHECK(fk_forward_rest_frame(N, parents, rest, rotations, NULL, out) == FK_ERROR_CYCLE, "rest frame 3-cycle");
    for (i = 0; i < N; ++i) CHECK(is_identity(out[i]), "joint %d not the identity after a cycle", i);
    CHECK(fk_validate_skeleton(2, two_cycle) == FK_ERROR_CYCLE, "validate a 2-cycle");
    CHECK(fk_forward(2, two_cycle, rest, rotations, NULL, out) == FK_ERROR_CYCLE, "forward a 2-cycle");
}

static void children_before_parents_is_fine(void)
{
    /* The same chain listed hand, elbow, root. */
    rig r = good_rig(), reversed;
    fk_rigid in_order[JOINTS], out_of_order[JOINTS], remapped[JOINTS];
    int i;
    reversed = r;
    for (i = 0; i < JOINTS; ++i) {
        int j = JOINTS - 1 - i;
        reversed.parents[i] = r.parents[j] < 0 ? -1 : JOINTS - 1 - r.parents[j];
        reversed.rest[i] = r.rest[j];
        reversed.rotations[i] = r.rotations[j];
        reversed.translations[i] = r.translations[j];
    }
    CHECK(fk_validate_skeleton(JOINTS, reversed.parents) == FK_OK, "validate reversed");
    CHECK(forward_both(&r, 1, in_order) == FK_OK, "in order");
    CHECK(forward_both(&reversed, 1, out_of_order) == FK_OK, "reversed");
    for (i = 0; i < JOINTS; ++i) remapped[i] = out_of_order[JOINTS - 1 - i];
    /* The same arithmetic per joint, but along two code paths that a compiler may
       contract into fused multiply-adds differently. */
    CHECK(max_difference(in_order, remapped, JOINTS) <= 1e-6f, "order changed the pose by %g",
          (double)max_difference(in_order, remapped, JOINTS));
}

/* ---- Forward kinematics: values ---- */

static void zero_rotation_is_invalid_rotation(void)
{
    rig r = good_rig();
    fk_rigid out[JOINTS];
    r.rotations[1] = fk_quat_make(0.0f, 0.0f, 0.0f, 0.0f);
    CHECK(forward_both(&r, 1, out) == FK_ERROR_INVALID_ROTATION, "zero quaternion");
    r.rotations[1] = fk_quat_make(-0.0f, 0.0f, -0.0f, 0.0f);
    CHECK(forward_both(&r, 1, out) == FK_ERROR_INVALID_ROTATION, "negative zeros");
}

static void rotation_too_small_to_normalize_is_invalid_rotation(void)
{
    /* |q|^2 below FLT_MIN cannot be normalized in float without losing the
       direction: 1e-20 squared is 1e-40, a denormal; so are all-denormal quaternions. */
    rig r = good_rig();
    fk_rigid out[JOINTS];
    r.rotations[2] = fk_quat_make(0.0f, 0.0f, 1e-20f, 1e-20f);
    CHECK(forward_both(&r, 1, out) == FK_ERROR_INVALID_ROTATION, "|q| = 1.4e-20");
    r.rotations[2] = fk_quat_make(FLT_MIN / 4.0f, 0.0f, 0.0f, FLT_MIN / 2.0f);
    CHECK(forward_both(&r, 1, out) == FK_ERROR_INVALID_ROTATION, "denormal components");
}

static void non_finite_rotation_is_invalid_rotation(void)
{
    rig r = good_rig();
    fk_rigid out[JOINTS];
    float bad[] = {NAN, INFINITY, -INFINITY};
    size_t i;
    for (i = 0; i < 3; ++i) {
        r = good_rig();
        r.rotations[0].y = bad[i];
        CHECK(forward_both(&r, 1, out) == FK_ERROR_INVALID_ROTATION, "rotation component %g", (double)bad[i]);
        r = good_rig();
        r.rotations[2].w = bad[i];
        CHECK(forward_both(&r, 1, out) == FK_ERROR_INVALID_ROTATION, "w %g", (double)bad[i]);
    }
    r = good_rig();
    r.rotations[1] = fk_quat_make(3e19f, 3e19f, 0.0f, 0.0f); /* |q|^2 overflows float */
    CHECK(forward_both(&r, 1, out) == FK_ERROR_INVALID_ROTATION, "|q|^2 overflows");
}

static void non_unit_rotation_is_normalized(void)
{
    rig r = good_rig(), scaled;
    fk_rigid unit[JOINTS], out[JOINTS];
    float scales[] = {2.0f, 0.001f, 1e-15f, 1e15f, -1.0f};
    size_t s;
    int i;
    CHECK(forward_both(&r, 1, unit) == FK_OK, "unit rotations");
    for (s = 0; s < sizeof scales / sizeof scales[0]; ++s) {
        scaled = r;
        for (i = 0; i < JOINTS; ++i) {
            fk_quat q = r.rotations[i];
            scaled.rotations[i] = fk_quat_make(q.x * scales[s], q.y * scales[s], q.z * scales[s], q.w * scales[s]);
        }
        CHECK(forward_both(&scaled, 1, out) == FK_OK, "rotations scaled by %g", (double)scales[s]);
        /* A normalized q differs from the unit one by an ulp or two per component;
           three joints of size ~1 turn that into a few ulps of 3. */
        CHECK(max_difference(unit, out, JOINTS) <= 32.0f * FLT_EPSILON, "scale %g changed the pose by %g",
              (double)scales[s], (double)max_difference(unit, out, JOINTS));
        for (i = 0; i < JOINTS; ++i)
            CHECK(fabsf(fk_quat_length(out[i].q) - 1.0f) <= 2.0f * FLT_EPSILON, "joint %d rotation not unit", i);
    }
}

static void denormal_component_is_accepted(void)
{
    rig r = good_rig();
    fk_rigid out[JOINTS];
    r.rotations[1].x = FLT_MIN / 8.0f; /* a unit quaternion with a denormal part */
    r.rest[2].z = FLT_MIN / 16.0f;
    r.translations[0].y = -FLT_MIN / 2.0f;
    CHECK(forward_both(&r, 1, out) == FK_OK, "denormals");
}

static void set_axis(fk_vec3 *v, int axis, float value)
{
    if (axis == 0) v->x = value;
    else if (axis == 1) v->y = value;
    else v->z = value;
}

/* Every coordinate of every joint's rest position or translation, with the
   rig's rotations and with identities (whose zero vector part meets the bad
   coordinate in products of its own): the parents-first path tests only the
   results for finiteness and must still catch each one. */
static void non_finite_position_is_not_finite(void)
{
    float bad[] = {NAN, INFINITY, -INFINITY};
    fk_rigid out[JOINTS];
    size_t i;
    int joint, axis, identities;
    for (i = 0; i < 3; ++i)
        for (identities = 0; identities < 2; ++identities)
            for (joint = 0; joint < JOINTS; ++joint)
                for (axis = 0; axis < 3; ++axis) {
                    rig r = good_rig();
                    int j;
                    if (identities)
                        for (j = 0; j < JOINTS; ++j) r.rotations[j] = fk_quat_identity();
                    set_axis(&r.rest[joint], axis, bad[i]);
                    CHECK(forward_both(&r, 1, out) == FK_ERROR_NOT_FINITE, "rest joint %d axis %d %g", joint, axis,
                          (double)bad[i]);
                    CHECK(forward_both(&r, 0, out) == FK_ERROR_NOT_FINITE, "rest joint %d axis %d %g, no translations",
                          joint, axis, (double)bad[i]);
                    r = good_rig();
                    if (identities)
                        for (j = 0; j < JOINTS; ++j) r.rotations[j] = fk_quat_identity();
                    set_axis(&r.translations[joint], axis, bad[i]);
                    CHECK(forward_both(&r, 1, out) == FK_ERROR_NOT_FINITE, "translation %d axis %d %g", joint, axis,
                          (double)bad[i]);
                    CHECK(forward_both(&r, 0, out) == FK_OK, "a bad translation is not read when translations are NULL");
                }
}

static void pose_overflowing_float_is_not_finite(void)
{
    /* Every input finite, but x + d and the sums down the chain pass FLT_MAX. */
    rig r = good_rig();
    fk_rigid out[JOINTS];
    r.rest[0] = fk_vec3_make(FLT_MAX, 0.0f, 0.0f);
    r.translations[0] = fk_vec3_make(FLT_MAX, 0.0f, 0.0f);
    CHECK(forward_both(&r, 1, out) == FK_ERROR_NOT_FINITE, "a root at 2 FLT_MAX");
    r = good_rig();
    r.rest[1] = fk_vec3_make(0.0f, 3e38f, 0.0f);
    r.rest[2] = fk_vec3_make(0.0f, -3e38f, 0.0f);
    r.rotations[1] = fk_quat_from_axis_angle(fk_vec3_make(0.0f, 0.0f, 1.0f), 3.14159265f);
    r.parents[0] = 2; r.parents[1] = -1; r.parents[2] = 1; /* children first: the other code path */
    CHECK(forward_both(&r, 1, out) == FK_ERROR_NOT_FINITE, "a turned bone of length 6e38");
}

/* ---- Skinning ---- */

enum { VERTICES = 4, BONES = 3, K = 2 };

typedef struct mesh {
    float positions[VERTICES * 3], normals[VERTICES * 3];
    uint16_t joints[VERTICES * K];
    float weights[VERTICES * K];
    fk_rigid bones[BONES];
    float out_positions[VERTICES * 3], out_normals[VERTICES * 3];
} mesh;

static void good_mesh(mesh *m)
{
    int i;
    memset(m, 0, sizeof *m);
    for (i = 0; i < VERTICES; ++i) {
        m->positions[3 * i] = (float)i; m->positions[3 * i + 1] = 1.0f; m->positions[3 * i + 2] = -0.5f * (float)i;
        m->normals[3 * i + 1] = 1.0f;
        m->joints[K * i] = (uint16_t)(i % BONES); m->joints[K * i + 1] = (uint16_t)((i + 1) % BONES);
        m->weights[K * i] = 0.75f; m->weights[K * i + 1] = 0.25f;
    }
    for (i = 0; i < BONES; ++i)
        m->bones[i] = fk_rigid_make(fk_quat_from_axis_angle(fk_vec3_make(1.0f, 0.0f, 0.0f), 0.5f * (float)i),
                                    fk_vec3_make(0.0f, (float)i, 0.0f));
}

static fk_skin_desc describe(mesh *m)
{
    fk_skin_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = VERTICES;
    d.influences = K;
    d.positions = m->positions;
    d.normals = m->normals;
    d.joints = m->joints;
    d.weights = m->weights;
    d.transforms = m->bones;
    d.transform_count = BONES;
    d.out_positions = m->out_positions;
    d.out_normals = m->out_normals;
    return d;
}

/* The three entry points agree on the code; an error found before the first
   vertex leaves the outputs untouched; the inputs are never modified. */
static fk_result skin_all(const fk_skin_desc *d, mesh *m)
{
    mesh before = *m;
    fk_result validate = fk_skin_validate(d, FK_SKIN_LBS), validate_dqs = fk_skin_validate(d, FK_SKIN_DQS), lbs, dqs;
    fk_result validate_cor = fk_skin_validate(d, FK_SKIN_COR), cor;
    CHECK(memcmp(&before, m, sizeof before) == 0, "fk_skin_validate wrote something");
    lbs = fk_skin_lbs(d);
    dqs = fk_skin_dqs(d);
    cor = fk_skin_cor(d, d ? d->positions : NULL, d ? d->position_stride : 0); /* each vertex its own centre */
    CHECK(lbs == validate && dqs == validate_dqs, "validate %d, LBS %d; validate %d, DQS %d", (int)validate, (int)lbs,
          (int)validate_dqs, (int)dqs);
    CHECK(cor == validate_cor, "validate %d, CoR %d", (int)validate_cor, (int)cor);
    CHECK(memcmp(before.positions, m->positions, sizeof m->positions) == 0 &&
              memcmp(before.normals, m->normals, sizeof m->normals) == 0 &&
              memcmp(before.joints, m->joints, sizeof m->joints) == 0 &&
              memcmp(before.weights, m->weights, sizeof m->weights) == 0 &&
              memcmp(before.bones, m->bones, sizeof m->bones) == 0,
          "an input was modified");
    if (validate != FK_OK && validate != FK_ERROR_JOINT_OUT_OF_RANGE)
        CHECK(memcmp(before.out_positions, m->out_positions, sizeof m->out_positions) == 0 &&
                  memcmp(before.out_normals, m->out_normals, sizeof m->out_normals) == 0,
              "error %d found after writing", (int)validate);
    return validate;
}

static void null_descriptor_is_null_argument(void)
{
    CHECK(fk_skin_validate(NULL, FK_SKIN_LBS) == FK_ERROR_NULL_ARGUMENT, "validate");
    CHECK(fk_skin_lbs(NULL) == FK_ERROR_NULL_ARGUMENT, "LBS");
    CHECK(fk_skin_dqs(NULL) == FK_ERROR_NULL_ARGUMENT, "DQS");
}

static void bad_counts_are_invalid_count(void)
{
    mesh m;
    fk_skin_desc d;
    good_mesh(&m);
    d = describe(&m); d.vertex_count = -1;
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_COUNT, "vertex_count -1");
    d = describe(&m); d.influences = 0;
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_COUNT, "influences 0");
    d = describe(&m); d.influences = INT_MIN;
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_COUNT, "influences INT_MIN");
    d = describe(&m); d.transform_count = -3;
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_COUNT, "transform_count -3");
}

static void dense_weights_need_one_per_transform(void)
{
    mesh m;
    fk_skin_desc d;
    good_mesh(&m);
    d = describe(&m);
    d.joints = NULL; /* dense: influences must equal transform_count (2 != 3) */
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_COUNT, "dense with 2 weights for 3 transforms");
    d.transform_count = K;
    CHECK(skin_all(&d, &m) == FK_OK, "dense with 2 weights for 2 transforms");
}

static void zero_vertices_is_ok_and_writes_nothing(void)
{
    mesh m;
    fk_skin_desc d;
    good_mesh(&m);
    d = describe(&m);
    d.vertex_count = 0;
    CHECK(skin_all(&d, &m) == FK_OK, "no vertices");
    CHECK(m.out_positions[0] == 0.0f && m.out_normals[1] == 0.0f, "something was written");
    d.influences = INT_MAX; /* a count no buffer could hold is fine when nothing is read */
    d.weight_stride = 0;
    CHECK(skin_all(&d, &m) == FK_OK, "no vertices, INT_MAX influences");
}

static void missing_required_pointer_in_descriptor_is_null_argument(void)
{
    mesh m;
    fk_skin_desc d;
    good_mesh(&m);
    d = describe(&m); d.positions = NULL;
    CHECK(skin_all(&d, &m) == FK_ERROR_NULL_ARGUMENT, "positions");
    d = describe(&m); d.weights = NULL;
    CHECK(skin_all(&d, &m) == FK_ERROR_NULL_ARGUMENT, "weights");
    d = describe(&m); d.out_positions = NULL;
    CHECK(skin_all(&d, &m) == FK_ERROR_NULL_ARGUMENT, "out_positions");
    d = describe(&m); d.out_normals = NULL;
    CHECK(skin_all(&d, &m) == FK_ERROR_NULL_ARGUMENT, "normals without out_normals");
    d = describe(&m); d.transforms = NULL;
    CHECK(skin_all(&d, &m) == FK_ERROR_NULL_ARGUMENT, "transforms");
    d = describe(&m); d.normals = NULL; d.out_normals = NULL;
    CHECK(skin_all(&d, &m) == FK_OK, "no normals at all is fine");
}

static void stride_smaller_than_element_is_invalid_stride(void)
{
    mesh m;
    fk_skin_desc d;
    good_mesh(&m);
    d = describe(&m); d.position_stride = 8;
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_STRIDE, "position stride 8");
    d = describe(&m); d.out_normal_stride = 4;
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_STRIDE, "out normal stride 4");
    d = describe(&m); d.weight_stride = 4; /* two weights need 8 bytes */
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_STRIDE, "weight stride 4");
    d = describe(&m); d.joint_stride = 2;
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_STRIDE, "joint stride 2");
}

static void misaligned_stride_or_pointer_is_invalid_stride(void)
{
    mesh m;
    fk_skin_desc d;
    good_mesh(&m);
    d = describe(&m); d.position_stride = 13;
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_STRIDE, "position stride 13");
    d = describe(&m); d.joint_stride = 5;
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_STRIDE, "joint stride 5");
    d = describe(&m); d.weights = (const float *)(const void *)((const char *)m.weights + 2);
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_STRIDE, "weights 2 bytes off alignment");
}

static void stride_overflowing_size_t_is_invalid_stride(void)
{
    mesh m;
    fk_skin_desc d;
    good_mesh(&m);
    d = describe(&m); d.normal_stride = ((size_t)-1) / 2 + 1; /* times 4 vertices wraps around */
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_STRIDE, "normal stride SIZE_MAX / 2 + 1");
    d = describe(&m); d.position_stride = ((size_t)-1) - 3;
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_STRIDE, "position stride SIZE_MAX - 3");
}

static void bad_tangent_layout_is_null_argument_or_invalid_stride(void)
{
    mesh m;
    fk_skin_desc d, good;
    float tangents[VERTICES * 4], out_tangents[VERTICES * 4], untouched[VERTICES * 4];
    int i;
    good_mesh(&m);
    for (i = 0; i < VERTICES; ++i) {
        tangents[4 * i] = 1.0f; tangents[4 * i + 1] = 0.0f; tangents[4 * i + 2] = 0.0f; tangents[4 * i + 3] = -1.0f;
    }
    memset(untouched, 0xff, sizeof untouched);
    good = describe(&m); good.tangents = tangents; good.out_tangents = out_tangents;
#define EXPECT_UNTOUCHED(code, what) \
    memcpy(out_tangents, untouched, sizeof out_tangents); \
    CHECK(skin_all(&d, &m) == (code), what); \
    CHECK(memcmp(out_tangents, untouched, sizeof out_tangents) == 0, "%s: tangents written before the error", what)
    d = good; d.out_tangents = NULL;
    CHECK(skin_all(&d, &m) == FK_ERROR_NULL_ARGUMENT, "tangents without out_tangents");
    d = good; d.tangent_stride = 12; EXPECT_UNTOUCHED(FK_ERROR_INVALID_STRIDE, "tangent stride 12, below x y z w");
    d = good; d.out_tangent_stride = 14; EXPECT_UNTOUCHED(FK_ERROR_INVALID_STRIDE, "out tangent stride 14");
    d = good; d.tangent_stride = 18; EXPECT_UNTOUCHED(FK_ERROR_INVALID_STRIDE, "tangent stride 18, not a multiple of 4");
    d = good; d.tangents = (const float *)(const void *)((const char *)tangents + 2);
    EXPECT_UNTOUCHED(FK_ERROR_INVALID_STRIDE, "tangents 2 bytes off alignment");
    d = good; d.tangent_stride = ((size_t)-1) / 2 + 1; /* times 4 vertices wraps around */
    EXPECT_UNTOUCHED(FK_ERROR_INVALID_STRIDE, "tangent stride SIZE_MAX / 2 + 1");
    d = good; d.tangents = NULL;
    EXPECT_UNTOUCHED(FK_OK, "out_tangents without tangents is ignored");
    d = good;
    CHECK(skin_all(&d, &m) == FK_OK, "a good tangent layout");
    for (i = 0; i < VERTICES; ++i) CHECK(out_tangents[4 * i + 3] == -1.0f, "tangent %d lost its handedness", i);
#undef EXPECT_UNTOUCHED
}

static void joint_index_past_transforms_is_joint_out_of_range(void)
{
    mesh m;
    fk_skin_desc d;
    float untouched;
    good_mesh(&m);
    m.joints[K * 2 + 1] = BONES; /* vertex 2, second influence */
    d = describe(&m);
    memset(m.out_positions, 0, sizeof m.out_positions);
    untouched = m.out_positions[3 * 3];
    CHECK(skin_all(&d, &m) == FK_ERROR_JOINT_OUT_OF_RANGE, "joint index == transform_count");
    CHECK(m.out_positions[3 * 3] == untouched, "the vertex after the bad one was written");
    CHECK(m.out_positions[3 * 0 + 1] != 0.0f, "the vertices before the bad one were not written");
    m.joints[K * 2 + 1] = 65535;
    CHECK(skin_all(&d, &m) == FK_ERROR_JOINT_OUT_OF_RANGE, "joint index 65535");
}

static void bad_transform_is_invalid_rotation_or_not_finite(void)
{
    mesh m;
    fk_skin_desc d;
    good_mesh(&m);
    d = describe(&m);
    m.bones[2].q = fk_quat_make(0.0f, 0.0f, 0.0f, 0.0f);
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_ROTATION, "zero rotation");
    m.bones[2].q = fk_quat_make(NAN, 0.0f, 0.0f, 1.0f);
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_ROTATION, "NaN rotation");
    good_mesh(&m);
    m.bones[1].t.z = -INFINITY;
    CHECK(skin_all(&d, &m) == FK_ERROR_NOT_FINITE, "infinite translation");
}

static void non_unit_transform_rotation_is_normalized(void)
{
    int method, i;
    for (method = 0; method < 2; ++method) {
        mesh m;
        fk_skin_desc d;
        float unit[VERTICES * 3];
        good_mesh(&m);
        d = describe(&m);
        CHECK((method ? fk_skin_dqs(&d) : fk_skin_lbs(&d)) == FK_OK, "unit rotations");
        memcpy(unit, m.out_positions, sizeof unit);
        for (i = 0; i < BONES; ++i) {
            fk_quat q = m.bones[i].q;
            m.bones[i].q = fk_quat_make(3.0f * q.x, 3.0f * q.y, 3.0f * q.z, 3.0f * q.w);
        }
        CHECK(skin_all(&d, &m) == FK_OK, "rotations of length 3 are no error");
        CHECK((method ? fk_skin_dqs(&d) : fk_skin_lbs(&d)) == FK_OK, "rotations of length 3");
        for (i = 0; i < VERTICES * 3; ++i)
            CHECK(fabsf(m.out_positions[i] - unit[i]) <= 4.0f * FLT_EPSILON * (1.0f + fabsf(unit[i])),
                  "%s coordinate %d: %g, with unit rotations %g", method ? "DQS" : "LBS", i,
                  (double)m.out_positions[i], (double)unit[i]);
    }
}

static void lbs_uses_weights_as_given(void)
{
    /* Weights that sum to 2 double every coordinate of a rigidly moved vertex:
       LBS does not normalize them. Negative and zero weights are used too. (Powers
       of two and cancelling pairs keep these comparisons exact.) */
    mesh m;
    fk_skin_desc d;
    float one[3];
    good_mesh(&m);
    d = describe(&m);
    d.vertex_count = 1;
    m.joints[0] = 1; m.joints[1] = 1;
    m.weights[0] = 0.5f; m.weights[1] = 0.5f;
    CHECK(fk_skin_lbs(&d) == FK_OK, "sum 1");
    memcpy(one, m.out_positions, sizeof one);
    m.weights[0] = 1.0f; m.weights[1] = 1.0f;
    CHECK(skin_all(&d, &m) == FK_OK, "sum 2 is no error");
    CHECK(fk_skin_lbs(&d) == FK_OK && m.out_positions[1] == 2.0f * one[1] && m.out_positions[2] == 2.0f * one[2],
          "sum 2 gives (%g %g), not twice (%g %g)", (double)m.out_positions[1], (double)m.out_positions[2],
          (double)one[1], (double)one[2]);
    m.weights[0] = 2.0f; m.weights[1] = -1.0f;
    CHECK(skin_all(&d, &m) == FK_OK, "a negative weight is no error");
    CHECK(fk_skin_lbs(&d) == FK_OK && m.out_positions[1] == one[1] && m.out_positions[2] == one[2],
          "2 and -1 on one bone must be that bone's transform");
    m.weights[0] = 0.0f; m.weights[1] = 0.0f;
    CHECK(skin_all(&d, &m) == FK_OK, "zero weights are no error");
    CHECK(fk_skin_lbs(&d) == FK_OK && m.out_positions[0] == 0.0f && m.out_positions[1] == 0.0f &&
              m.out_positions[2] == 0.0f,
          "LBS with zero weights must land at the origin");
    CHECK(m.out_normals[0] == 0.0f && m.out_normals[1] == 0.0f && m.out_normals[2] == 0.0f,
          "LBS with zero weights must give a zero normal");
}

static void dqs_ignores_the_weights_scale(void)
{
    /* DQS normalizes the blend, so only the weights' ratios matter: 0.75/0.25,
       3/1, 3e-30/1e-30 and 3e-36/1e-36 (whose squares underflow) and 3e25/1e25
       (whose squares overflow) all give one pose. All-zero weights keep the rest pose. */
    mesh m;
    fk_skin_desc d;
    float reference[VERTICES * 3];
    float scales[] = {4.0f, 4e-30f, 4e-36f, 4e25f};
    size_t s;
    int i;
    good_mesh(&m);
    d = describe(&m);
    CHECK(fk_skin_dqs(&d) == FK_OK, "weights summing to one");
    memcpy(reference, m.out_positions, sizeof reference);
    for (s = 0; s < sizeof scales / sizeof scales[0]; ++s) {
        for (i = 0; i < VERTICES; ++i) { m.weights[K * i] = 0.75f * scales[s]; m.weights[K * i + 1] = 0.25f * scales[s]; }
        CHECK(fk_skin_dqs(&d) == FK_OK, "scale %g", (double)scales[s]);
        for (i = 0; i < VERTICES * 3; ++i)
            CHECK(fabsf(m.out_positions[i] - reference[i]) <= 1e-5f * (1.0f + fabsf(reference[i])),
                  "weights scaled by %g: coordinate %d is %g, not %g", (double)scales[s], i,
                  (double)m.out_positions[i], (double)reference[i]);
    }
    for (i = 0; i < VERTICES * K; ++i) m.weights[i] = 0.0f;
    CHECK(skin_all(&d, &m) == FK_OK, "zero weights");
    CHECK(memcmp(m.out_positions, m.positions, sizeof m.positions) == 0 &&
              memcmp(m.out_normals, m.normals, sizeof m.normals) == 0,
          "DQS with zero weights must keep the rest pose");
}

static void nan_in_vertex_data_gives_nan_for_that_vertex(void)
{
    /* Per-vertex data is not checked; NaN shows in that vertex's outputs and no
       other's, for LBS and DQS alike, whether it sits in a position, a normal or a
       weight. */
    int where, method, i;
#if defined(__FAST_MATH__)
    check_skip("built with -ffast-math, which gives up NaN's propagation (fk_lbs.h, ERRORS)");
    return;
#endif
    for (where = 0; where < 3; ++where)
        for (method = 0; method < 2; ++method) {
            mesh m;
            fk_skin_desc d;
            int nan_position = 0, nan_normal = 0;
            good_mesh(&m);
            d = describe(&m);
            if (where == 0) m.positions[3 * 1 + 2] = NAN;
            if (where == 1) m.normals[3 * 1 + 0] = NAN;
            if (where == 2) m.weights[K * 1 + 1] = NAN;
            CHECK(skin_all(&d, &m) == FK_OK, "NaN is not an error");
            CHECK((method ? fk_skin_dqs(&d) : fk_skin_lbs(&d)) == FK_OK, "skinning");
            for (i = 0; i < 3; ++i) {
                if (isnan(m.out_positions[3 * 1 + i])) nan_position = 1;
                if (isnan(m.out_normals[3 * 1 + i])) nan_normal = 1;
            }
            if (where != 1) CHECK(nan_position, "%s: NaN in %s did not reach the position", method ? "DQS" : "LBS",
                                  where == 0 ? "a position" : "a weight");
            if (where != 0) CHECK(nan_normal, "%s: NaN in %s did not reach the normal", method ? "DQS" : "LBS",
                                  where == 1 ? "a normal" : "a weight");
            for (i = 0; i < VERTICES * 3; ++i)
                if (i / 3 != 1)
                    CHECK(!isnan(m.out_positions[i]) && !isnan(m.out_normals[i]), "NaN leaked into vertex %d", i / 3);
        }
}

static void output_over_input_is_supported(void)
{
    int method;
    for (method = 0; method < 2; ++method) {
        mesh m;
        fk_skin_desc d;
        good_mesh(&m);
        d = describe(&m);
        CHECK((method ? fk_skin_dqs(&d) : fk_skin_lbs(&d)) == FK_OK, "separate buffers");
        d.out_positions = m.positions; /* same pointer, same (packed) stride */
        d.out_normals = m.normals;
        CHECK((method ? fk_skin_dqs(&d) : fk_skin_lbs(&d)) == FK_OK, "in place");
        CHECK(memcmp(m.positions, m.out_positions, sizeof m.positions) == 0 &&
                  memcmp(m.normals, m.out_normals, sizeof m.normals) == 0,
              "%s in place differs from separate buffers", method ? "DQS" : "LBS");
    }
}

/* ---- Math helpers ---- */

static void degenerate_helper_input_gives_documented_fallback(void)
{
    fk_vec3 axis;
    float angle;
    fk_dual_quat zero_dq;
    memset(&zero_dq, 0, sizeof zero_dq);
    CHECK(fk_vec3_length(fk_vec3_normalize(fk_vec3_make(0.0f, 0.0f, 0.0f))) == 0.0f, "normalize zero vector");
    CHECK(fk_quat_normalize(fk_quat_make(0.0f, 0.0f, 0.0f, 0.0f)).w == 1.0f, "normalize zero quaternion");
    CHECK(fk_quat_inverse(fk_quat_make(0.0f, 0.0f, 0.0f, 0.0f)).w == 1.0f, "invert zero quaternion");
    CHECK(fk_quat_from_axis_angle(fk_vec3_make(0.0f, 0.0f, 0.0f), 1.0f).w == 1.0f, "zero axis");
    CHECK(is_identity(fk_dual_quat_to_rigid(zero_dq)), "zero dual quaternion");
    fk_quat_to_axis_angle(fk_quat_identity(), &axis, &angle);
    CHECK(angle == 0.0f && axis.x == 1.0f, "identity's axis");
    CHECK(strcmp(fk_result_description((fk_result)12345), "unknown fk_result") == 0, "unknown result code");
    CHECK(strcmp(fk_result_description(FK_ERROR_CYCLE), "the parent array has a cycle") == 0, "cycle description");
}

static void nan_through_a_helper_stays_nan(void)
{
    fk_vec3 axis;
    float angle;
    fk_dual_quat dq;
    fk_quat nan_q = fk_quat_make(NAN, 0.0f, 0.0f, 1.0f);
#if defined(__FAST_MATH__)
    check_skip("built with -ffast-math, which gives up NaN's propagation (fk_lbs.h, ERRORS)");
    return;
#endif
    dq.real = nan_q; dq.dual = fk_quat_make(0.0f, 0.0f, 0.0f, 0.0f);
    CHECK(isnan(fk_vec3_normalize(fk_vec3_make(NAN, 1.0f, 0.0f)).x), "fk_vec3_normalize");
    CHECK(isnan(fk_quat_normalize(nan_q).w), "fk_quat_normalize");
    CHECK(isnan(fk_quat_inverse(nan_q).w), "fk_quat_inverse");
    CHECK(isnan(fk_quat_from_axis_angle(fk_vec3_make(NAN, 0.0f, 1.0f), 1.0f).x), "fk_quat_from_axis_angle axis");
    CHECK(isnan(fk_quat_from_axis_angle(fk_vec3_make(0.0f, 0.0f, 1.0f), NAN).w), "fk_quat_from_axis_angle angle");
    CHECK(isnan(fk_dual_quat_to_rigid(dq).q.w), "fk_dual_quat_to_rigid");
    fk_quat_to_axis_angle(nan_q, &axis, &angle);
    CHECK(isnan(angle) && isnan(axis.x), "fk_quat_to_axis_angle");
    CHECK(isnan(fk_quat_rotate(nan_q, fk_vec3_make(1.0f, 0.0f, 0.0f)).y), "fk_quat_rotate");
}

/* ---- Engine matrices ---- */

static void scaled_matrix(float scale, fk_vec3 translation, float out[12])
{
    fk_mat34_from_trs(translation, fk_quat_from_axis_angle(fk_vec3_make(1.0f, 2.0f, 3.0f), 0.7f),
                      fk_vec3_make(scale, scale, scale), out);
}

static void non_finite_matrix_is_not_finite(void)
{
    float m[12], ib[24], w[24], out[12], pretransform[12], poison = 42.0f;
    fk_vec3 rest[2] = {{0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}}, d[2];
    fk_quat q[2];
    int parents[2] = {-1, 0}, i;
    for (i = 0; i < 12; ++i) out[i] = poison;
    scaled_matrix(1.0f, fk_vec3_make(1.0f, 2.0f, 3.0f), m);
    m[7] = NAN;
    CHECK(fk_mat34_inverse(m, out) == FK_ERROR_NOT_FINITE, "inverse of a NaN matrix");
    m[7] = 0.0f; m[0] = INFINITY;
    CHECK(fk_mat34_inverse(m, out) == FK_ERROR_NOT_FINITE, "inverse of an infinite matrix");
    for (i = 0; i < 12; ++i) CHECK(out[i] == poison, "the output was written on an error");
    scaled_matrix(1.0f, fk_vec3_make(0.0f, 0.0f, 0.0f), ib);
    scaled_matrix(1.0f, fk_vec3_make(0.0f, -1.0f, 0.0f), ib + 12);
    memcpy(w, ib, sizeof w);
    w[12 + 3] = -INFINITY;
    for (i = 0; i < 12; ++i) pretransform[i] = poison;
    CHECK(fk_bind_from_matrices(2, ib, w, rest, pretransform) == FK_ERROR_NOT_FINITE, "bind, infinite world matrix");
    for (i = 0; i < 12; ++i) CHECK(pretransform[i] == poison, "bind wrote the pre-transform on an error");
    for (i = 0; i < 12; ++i) pretransform[i] = i % 5 == 0 ? 1.0f : 0.0f;
    CHECK(fk_pose_from_matrices(2, parents, ib, w, pretransform, rest, q, d) == FK_ERROR_NOT_FINITE,
          "pose, infinite world matrix");
    memcpy(w, ib, sizeof w);
    rest[1].y = NAN;
    CHECK(fk_pose_from_matrices(2, parents, ib, w, pretransform, rest, q, d) == FK_ERROR_NOT_FINITE, "pose, NaN rest joint");
}

static void singular_or_scaled_matrix_is_not_rigid(void)
{
    float m[12], ib[24], w[24], out[12], pretransform[12], poison = 42.0f, identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    fk_vec3 rest[2], d[2];
    fk_quat q[2];
    int parents[2] = {-1, 0}, i;
    for (i = 0; i < 12; ++i) out[i] = poison;
    scaled_matrix(0.0f, fk_vec3_make(1.0f, 0.0f, 0.0f), m);
    CHECK(fk_mat34_inverse(m, out) == FK_ERROR_NOT_RIGID, "inverse of a zero linear part");
    /* Not singular in double, but its inverse (1e41) does not fit in a float. */
    scaled_matrix(1e-41f, fk_vec3_make(0.0f, 0.0f, 0.0f), m);
    CHECK(fk_mat34_inverse(m, out) == FK_ERROR_NOT_RIGID, "inverse overflowing float");
    for (i = 0; i < 12; ++i) CHECK(out[i] == poison, "the output was written on an error");
    /* Scale that differs between joints cannot be one pre-transform. */
    scaled_matrix(1.0f, fk_vec3_make(0.0f, 0.0f, 0.0f), ib);
    scaled_matrix(2.0f, fk_vec3_make(0.0f, -1.0f, 0.0f), ib + 12);
    memcpy(w, identity, sizeof identity); memcpy(w + 12, identity, sizeof identity);
    CHECK(fk_bind_from_matrices(2, ib, w, rest, pretransform) == FK_ERROR_NOT_RIGID, "bind, scale varying per joint");
    /* The same scale everywhere is a pre-transform, not an error; scale that then
       changes in a pose is. */
    scaled_matrix(2.0f, fk_vec3_make(0.0f, 0.0f, 0.0f), ib);
    CHECK(fk_bind_from_matrices(2, ib, w, rest, pretransform) == FK_OK, "bind, one scale for all joints");
    CHECK(fabsf(pretransform[0] - 2.0f) <= 1e-6f && fabsf(pretransform[5] - 2.0f) <= 1e-6f &&
              fabsf(pretransform[10] - 2.0f) <= 1e-6f && fabsf(pretransform[1]) <= 1e-6f,
          "the pre-transform should be 2 I: %g %g %g, off-diagonal %g", (double)pretransform[0],
          (double)pretransform[5], (double)pretransform[10], (double)pretransform[1]);
    w[0] = 3.0f; w[5] = 3.0f; w[10] = 3.0f;
    CHECK(fk_pose_from_matrices(2, parents, ib, w, pretransform, rest, q, d) == FK_ERROR_NOT_RIGID,
          "pose, scale changed since the bind pose");
}

static void engine_result_overflowing_float_is_not_finite(void)
{
    /* Each computed in double from finite floats, each too large for a float. */
    float ib[24], w[24], pretransform[12], identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    fk_vec3 rest[2] = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}}, d[2];
    fk_quat q[2];
    int parents[2] = {-1, 0};
    /* W = 1e30 I, IB = [1e-30 I | (1e10, 0, 0)]: S is rigid, but the joint sits at
       IB^-1 0 = (-1e40, 0, 0). */
    scaled_matrix(1e30f, fk_vec3_make(0.0f, 0.0f, 0.0f), w);
    memcpy(w + 12, w, 12 * sizeof(float));
    scaled_matrix(1e-30f, fk_vec3_make(1e10f, 0.0f, 0.0f), ib);
    memcpy(ib + 12, ib, 12 * sizeof(float));
    CHECK(fk_bind_from_matrices(2, ib, w, rest, pretransform) == FK_ERROR_NOT_FINITE, "bind, rest joint at 1e40");
    /* A pre-transform of scale 1e60. */
    scaled_matrix(1e30f, fk_vec3_make(0.0f, 0.0f, 0.0f), ib);
    memcpy(ib + 12, ib, 12 * sizeof(float));
    CHECK(fk_bind_from_matrices(2, ib, w, rest, pretransform) == FK_ERROR_NOT_FINITE, "bind, pre-transform 1e60");
    /* A child 6e38 from its parent. */
    memcpy(ib, identity, sizeof identity); memcpy(ib + 12, identity, sizeof identity);
    memcpy(w, identity, sizeof identity); memcpy(w + 12, identity, sizeof identity);
    w[3] = -3e38f; w[12 + 3] = 3e38f;
    CHECK(fk_pose_from_matrices(2, parents, ib, w, identity, rest, q, d) == FK_ERROR_NOT_FINITE,
          "pose, translation of 6e38");
}

static void bad_engine_arguments_are_reported(void)
{
    float m[24], pretransform[12], identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    fk_vec3 rest[2] = {{0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}}, d[2];
    fk_quat q[2];
    int parents[2] = {-1, 0};
    memcpy(m, identity, sizeof identity); memcpy(m + 12, identity, sizeof identity);
    CHECK(fk_bind_from_matrices(-1, m, m, rest, pretransform) == FK_ERROR_INVALID_COUNT, "bind, -1 joints");
    CHECK(fk_pose_from_matrices(-1, parents, m, m, identity, rest, q, d) == FK_ERROR_INVALID_COUNT, "pose, -1 joints");
    CHECK(fk_bind_from_matrices(2, NULL, m, rest, pretransform) == FK_ERROR_NULL_ARGUMENT, "bind, NULL matrices");
    CHECK(fk_bind_from_matrices(2, m, m, rest, NULL) == FK_ERROR_NULL_ARGUMENT, "bind, NULL pre-transform");
    CHECK(fk_pose_from_matrices(2, parents, m, m, NULL, rest, q, d) == FK_ERROR_NULL_ARGUMENT, "pose, NULL pre-transform");
    CHECK(fk_pose_from_matrices(2, parents, m, m, identity, rest, q, NULL) == FK_ERROR_NULL_ARGUMENT, "pose, NULL output");
    parents[1] = 2;
    CHECK(fk_pose_from_matrices(2, parents, m, m, identity, rest, q, d) == FK_ERROR_PARENT_OUT_OF_RANGE, "pose, parent 2");
    parents[1] = 1;
    CHECK(fk_pose_from_matrices(2, parents, m, m, identity, rest, q, d) == FK_ERROR_SELF_PARENT, "pose, self-parent");
    parents[1] = 0;
    CHECK(fk_pose_from_matrices(2, parents, m, m, identity, rest, q, d) == FK_OK, "pose, identity matrices");
}

/* ---- Strides at the edge of size_t ---- */

/* One vertex with a stride near SIZE_MAX (the top bit alone, or the largest
   multiple of 4) is a valid layout (stride x count does not overflow), and the
   vector loops once stepped their pointers one stride past the vertex: pointer
   overflow, which the sanitizer build (clang -fsanitize=undefined) reports
   where the sum wraps. Every loop that reads vertices runs on it here, and must
   give the packed layout's bits. */
static void huge_stride_loops(size_t huge);

static void largest_stride_for_one_vertex_forms_no_pointer_past_it(void)
{
    huge_stride_loops((size_t)-1 / 2 + 1);
    huge_stride_loops((size_t)-1 - 3);
}

static void huge_stride_loops(size_t huge)
{
    float positions[3] = {0.5f, 1.0f, -0.25f}, normals[3] = {0.0f, 0.6f, 0.8f}, weights[4] = {0.4f, 0.3f, 0.2f, 0.1f};
    uint16_t joints[4] = {0, 1, 2, 1};
    fk_rigid bones[BONES], bind_poses[BONES];
    float matrices[12 * BONES];
    int b, k, variant, center;
    for (b = 0; b < BONES; ++b) {
        bones[b] = fk_rigid_make(fk_quat_from_axis_angle(fk_vec3_make(1.0f, 0.5f, 0.0f), 0.4f * (float)b),
                                 fk_vec3_make(0.1f * (float)b, 0.0f, 0.3f));
        bind_poses[b] = fk_rigid_identity();
        fk_mat34_from_trs(bones[b].t, bones[b].q, fk_vec3_make(1.0f + 0.25f * (float)b, 1.0f, 0.75f), matrices + 12 * b);
    }
    for (k = 1; k <= 4; ++k)
        for (variant = 0; variant < 4; ++variant)
            for (center = 0; center < (variant == 3 ? 2 : 1); ++center) {
                float packed[6], strided[6];
                fk_skin_desc d;
                fk_result packed_result, strided_result;
                memset(&d, 0, sizeof d);
                d.vertex_count = 1; d.influences = k;
                d.positions = positions; d.normals = normals; d.joints = joints; d.weights = weights;
                d.transform_count = BONES;
                if (variant < 2) d.transforms = bones;
                else d.matrices = matrices, d.bind_poses = bind_poses;
                d.dqs_scale_center = center ? FK_DQS_SCALE_AT_BONE : FK_DQS_SCALE_AT_VERTEX;
                d.out_positions = packed; d.out_normals = packed + 3;
                packed_result = variant % 2 ? fk_skin_dqs(&d) : fk_skin_lbs(&d);
                d.position_stride = d.normal_stride = d.joint_stride = d.weight_stride = huge;
                d.out_position_stride = d.out_normal_stride = huge;
                d.out_positions = strided; d.out_normals = strided + 3;
                CHECK(fk_skin_validate(&d, variant % 2 ? FK_SKIN_DQS : FK_SKIN_LBS) == FK_OK, "the layout is valid");
                strided_result = variant % 2 ? fk_skin_dqs(&d) : fk_skin_lbs(&d);
                CHECK(packed_result == FK_OK && strided_result == FK_OK && memcmp(packed, strided, sizeof packed) == 0,
                      "k %d, variant %d, centre %d: %d, %d", k, variant, center, (int)packed_result, (int)strided_result);
                if (k == 4 && variant == 0) {
                    fk_bone_bounds records[BONES];
                    fk_bounds bounds;
                    CHECK(fk_skin_bounds_prepare(&d, records) == FK_OK && fk_skin_bounds_lbs(&d, records, &bounds) == FK_OK &&
                              bounds.min.x <= strided[0] && strided[0] <= bounds.max.x,
                          "bounds with the largest stride");
                }
            }
    { /* morph targets and weights, through the same strides */
        float deltas[3] = {0.1f, 0.2f, 0.3f}, morph_weight = 0.5f, out[3], out_normal[3];
        fk_morph_target target;
        fk_morph_desc m;
        fk_weights_desc w;
        fk_weights_report report;
        memset(&target, 0, sizeof target); memset(&m, 0, sizeof m); memset(&w, 0, sizeof w);
        target.position_deltas = deltas; target.position_delta_stride = huge;
        target.normal_deltas = deltas; target.normal_delta_stride = huge;
        m.vertex_count = 1; m.positions = positions; m.position_stride = huge;
        m.normals = normals; m.normal_stride = huge; m.out_normals = out_normal; m.out_normal_stride = huge;
        m.target_count = 1; m.targets = &target; m.weights = &morph_weight;
        m.out_positions = out; m.out_position_stride = huge;
        CHECK(fk_morph_apply(&m) == FK_OK && out[2] == -0.25f + 0.5f * 0.3f, "morph with the largest stride");
        w.vertex_count = 1; w.influences = 4; w.joints = joints; w.joint_stride = huge;
        w.weights = weights; w.weight_stride = huge; w.joint_count = BONES;
        CHECK(fk_weights_inspect(&w, &report) == FK_OK && report.duplicate_joints == 1, "weights with the largest stride");
    }
}

/* ---- Tracks and root motion ---- */

/* Finite keys that fk_track_validate() accepts can lie more than FLT_MAX apart;
   the fraction between them does not exist in float, and every sampler says so
   alike (it once came out NaN from the rotation samplers, returned as FK_OK). */
static void keys_further_apart_than_flt_max_are_not_finite(void)
{
    const float times[2] = {-3e38f, 3e38f}, cubic_times[2] = {-3e38f, 3e38f};
    const float samples[2] = {1e38f, -2e38f}; /* the gap to key 0 overflows, or only the keys' gap */
    const fk_quat keys[2] = {{0, 0, 0, 1}, {0, 0, 1, 0}};
    const fk_quat cubic_keys[6] = {{0, 0, 0, 0}, {0, 0, 0, 1}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 0}};
    const fk_vec3 vectors[2] = {{0, 0, 0}, {1, 1, 1}};
    const float floats[2] = {0.0f, 1.0f};
    const fk_quat poison_q = {42.0f, 42.0f, 42.0f, 42.0f};
    const fk_vec3 poison_v = {42.0f, 42.0f, 42.0f};
    const float root_times[2] = {-3e38f, 2e38f};
    int i, method, cursor;
    CHECK(fk_track_validate(2, times) == FK_OK, "the keys are valid");
    for (i = 0; i < 2; ++i) {
        fk_quat q = poison_q;
        fk_vec3 v = poison_v;
        fk_rigid delta = fk_rigid_make(poison_q, poison_v);
        float f = 42.0f;
        for (method = FK_INTERPOLATE_SLERP; method <= FK_INTERPOLATE_NLERP; ++method) {
            cursor = 0;
            CHECK(fk_track_evaluate_quat(2, times, keys, FK_INTERPOLATION_LINEAR, (fk_rotation_interpolation)method,
                                         samples[i], &cursor, &q) == FK_ERROR_NOT_FINITE,
                  "evaluate_quat LINEAR at %g", (double)samples[i]);
            CHECK(fk_track_sample_quat(2, times, keys, samples[i], (fk_rotation_interpolation)method, &q) ==
                      FK_ERROR_NOT_FINITE, "sample_quat at %g", (double)samples[i]);
            CHECK(fk_track_evaluate_quat(2, cubic_times, cubic_keys, FK_INTERPOLATION_CUBICSPLINE,
                                         (fk_rotation_interpolation)method, samples[i], NULL, &q) == FK_ERROR_NOT_FINITE,
                  "evaluate_quat CUBICSPLINE at %g", (double)samples[i]);
            CHECK(fk_track_evaluate_quat(2, times, keys, FK_INTERPOLATION_STEP, (fk_rotation_interpolation)method,
                                         samples[i], NULL, &q) == FK_ERROR_NOT_FINITE,
                  "evaluate_quat STEP at %g", (double)samples[i]);
            CHECK(cursor == 0, "the cursor was written on an error");
        }
        CHECK(memcmp(&q, &poison_q, sizeof q) == 0, "a rotation was written on an error");
        CHECK(fk_track_evaluate_vec3(2, times, vectors, FK_INTERPOLATION_LINEAR, samples[i], NULL, &v) ==
                  FK_ERROR_NOT_FINITE, "evaluate_vec3 at %g", (double)samples[i]);
        CHECK(fk_track_sample_vec3(2, times, vectors, samples[i], &v) == FK_ERROR_NOT_FINITE, "sample_vec3");
        CHECK(memcmp(&v, &poison_v, sizeof v) == 0, "a vector was written on an error");
        CHECK(fk_track_evaluate(2, times, floats, 1, FK_INTERPOLATION_LINEAR, samples[i], NULL, &f) ==
                  FK_ERROR_NOT_FINITE && f == 42.0f, "evaluate at %g", (double)samples[i]);
        CHECK(fk_root_motion_delta(2, root_times, keys, NULL, 0.0f, samples[i], 0, &delta) == FK_ERROR_NOT_FINITE,
              "root motion without translations, to %g", (double)samples[i]);
        CHECK(fk_root_motion_delta(2, root_times, keys, vectors, samples[i], 0.0f, 0, &delta) == FK_ERROR_NOT_FINITE,
              "root motion with translations, from %g", (double)samples[i]);
        CHECK(memcmp(&delta.q, &poison_q, sizeof delta.q) == 0 && memcmp(&delta.t, &poison_v, sizeof delta.t) == 0,
              "a delta was written on an error");
    }
    { /* at the keys themselves and outside them nothing is divided: the values */
        fk_quat q;
        CHECK(fk_track_evaluate_quat(2, times, keys, FK_INTERPOLATION_LINEAR, FK_INTERPOLATE_SLERP, 3e38f, NULL, &q) ==
                  FK_OK && q.z == 1.0f, "at the last key");
        CHECK(fk_track_sample_quat(2, times, keys, -FLT_MAX, FK_INTERPOLATE_SLERP, &q) == FK_OK && q.w == 1.0f,
              "before the first key");
    }
}

/* ---- Partial updates ---- */

/* A four-joint tree: 0 the root, 1 (the subtree's root) and its child 2, and
   3, a child of 0 outside the subtree, with 4 below it. */
enum { TREE = 5 };

static void tree_pose(int parents[TREE], fk_vec3 rest[TREE], fk_quat rotations[TREE], fk_vec3 translations[TREE])
{
    static const int tree_parents[TREE] = {-1, 0, 1, 0, 3};
    int i;
    for (i = 0; i < TREE; ++i) {
        parents[i] = tree_parents[i];
        rest[i] = fk_vec3_make((float)i, 1.0f, 0.5f * (float)i);
        rotations[i] = fk_quat_from_axis_angle(fk_vec3_make(1.0f, (float)i, 2.0f), 0.2f + 0.1f * (float)i);
        translations[i] = fk_vec3_make(0.1f * (float)i, 0.0f, -0.2f);
    }
}

/* The subtree recomputed against the whole pose: bit for bit, as both take the
   same steps; under -ffast-math the compiler may reassociate the two functions'
   arithmetic differently, so there within float rounding. */
static int subtree_matches(const fk_rigid *subtree, const fk_rigid *whole, int count)
{
#if defined(__FAST_MATH__)
    int i, c;
    for (i = 0; i < count; ++i) {
        const float a[7] = {subtree[i].q.x, subtree[i].q.y, subtree[i].q.z, subtree[i].q.w,
                            subtree[i].t.x, subtree[i].t.y, subtree[i].t.z};
        const float b[7] = {whole[i].q.x, whole[i].q.y, whole[i].q.z, whole[i].q.w,
                            whole[i].t.x, whole[i].t.y, whole[i].t.z};
        for (c = 0; c < 7; ++c)
            if (!(fabsf(a[c] - b[c]) <= 1e-5f * (1.0f + fabsf(b[c])))) return 0;
    }
    return 1;
#else
    return memcmp(subtree, whole, (size_t)count * sizeof *subtree) == 0;
#endif
}

/* The subtree functions once marked their walk in the caller's arrays (q.w of 4
   or 8, a matrix starting with an infinity) and believed such values anywhere:
   a joint outside the subtree that held one was recomputed, or the call failed
   with a false FK_ERROR_CYCLE after writing. */
static void subtree_update_leaves_every_other_joint_alone(void)
{
    int parents[TREE], frame, i;
    fk_vec3 rest[TREE], translations[TREE], scales[TREE];
    fk_quat rotations[TREE];
    fk_rigid full[TREE], partial[TREE];
    float full_m[12 * TREE], partial_m[12 * TREE], before[12 * TREE];
    tree_pose(parents, rest, rotations, translations);
    for (i = 0; i < TREE; ++i) scales[i] = fk_vec3_make(1.0f + 0.1f * (float)i, 1.0f, 0.8f);
    for (frame = 0; frame < 2; ++frame) {
        fk_result result = frame ? fk_forward_rest_frame(TREE, parents, rest, rotations, translations, full)
                                 : fk_forward(TREE, parents, rest, rotations, translations, full);
        CHECK(result == FK_OK, "forward");
        memcpy(partial, full, sizeof full);
        partial[3].q.w = 8.0f; /* what the walk used for a joint on its path */
        partial[4].q.w = 4.0f; /* and for a joint it had still to compute */
        partial[2] = fk_rigid_identity(); /* stale: the call recomputes it */
        memcpy(before, partial, sizeof partial);
        result = frame ? fk_forward_subtree_rest_frame(TREE, parents, rest, rotations, translations, 1, partial)
                       : fk_forward_subtree(TREE, parents, rest, rotations, translations, 1, partial);
        CHECK(result == FK_OK, "subtree (frame %d): %s", frame, fk_result_description(result));
        CHECK(memcmp(&partial[0], before, sizeof partial[0]) == 0 &&
                  memcmp(&partial[3], (const fk_rigid *)(const void *)before + 3, 2 * sizeof partial[0]) == 0,
              "a joint outside the subtree was written (frame %d)", frame);
        CHECK(subtree_matches(&partial[1], &full[1], 2), "the subtree differs from fk_forward");
        /* the root's parent holding a mark: read as it is, never recomputed */
        memcpy(partial, full, sizeof full);
        partial[0].q.w = 4.0f;
        memcpy(before, partial, sizeof partial);
        result = frame ? fk_forward_subtree_rest_frame(TREE, parents, rest, rotations, translations, 1, partial)
                       : fk_forward_subtree(TREE, parents, rest, rotations, translations, 1, partial);
        CHECK(result == FK_OK && memcmp(&partial[0], before, sizeof partial[0]) == 0 &&
                  memcmp(&partial[3], (const fk_rigid *)(const void *)before + 3, 2 * sizeof partial[0]) == 0,
              "the root's parent holding a mark was recomputed (frame %d): %d", frame, (int)result);
    }
    CHECK(fk_forward_scaled(TREE, parents, rest, rotations, translations, scales, full_m) == FK_OK, "scaled");
    memcpy(partial_m, full_m, sizeof full_m);
    partial_m[12 * 3] = -INFINITY;
    partial_m[12 * 4] = INFINITY;
    for (i = 0; i < 12; ++i) partial_m[12 * 2 + i] = 0.0f;
    memcpy(before, partial_m, sizeof partial_m);
    CHECK(fk_forward_scaled_subtree(TREE, parents, rest, rotations, translations, scales, 1, partial_m) == FK_OK,
          "scaled subtree beside infinities");
    CHECK(memcmp(partial_m, before, 12 * sizeof(float)) == 0 &&
              memcmp(partial_m + 36, before + 36, 24 * sizeof(float)) == 0,
          "a matrix outside the subtree was written");
    CHECK(memcmp(partial_m + 12, full_m + 12, 24 * sizeof(float)) == 0, "the subtree differs from fk_forward_scaled");
    /* A subtree whose transforms overflow is left as identities, the rest alone. */
    memcpy(partial, full, sizeof full); /* (the rest-frame pose: any finished pose will do) */
    memcpy(before, partial, sizeof partial);
    rest[2] = fk_vec3_make(3e38f, 0.0f, 0.0f);
    translations[2] = fk_vec3_make(3e38f, 0.0f, 0.0f);
    CHECK(fk_forward_subtree(TREE, parents, rest, rotations, translations, 1, partial) == FK_ERROR_NOT_FINITE,
          "a subtree overflowing float");
    CHECK(is_identity(partial[1]) && is_identity(partial[2]), "the subtree is not identities after an overflow");
    CHECK(memcmp(&partial[0], before, sizeof partial[0]) == 0 &&
              memcmp(&partial[3], (const fk_rigid *)(const void *)before + 3, 2 * sizeof partial[0]) == 0,
          "a joint outside the subtree was written on an overflow");
}

/* ---- One test per family: its errors, and nothing written on them ---- */

static const unsigned char poison_byte = 0xA5;

static int all_poison(const void *p, size_t bytes)
{
    const unsigned char *b = (const unsigned char *)p;
    size_t i;
    for (i = 0; i < bytes; ++i)
        if (b[i] != poison_byte) return 0;
    return 1;
}

static void bad_track_is_reported_and_writes_nothing(void)
{
    float times[3] = {0.0f, 1.0f, 2.0f}, floats[3] = {0.0f, 1.0f, 2.0f}, out[2];
    fk_quat keys[3] = {{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}}, q;
    fk_vec3 v, vectors[3] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}};
    int cursor;
    memset(out, poison_byte, sizeof out); memset(&q, poison_byte, sizeof q); memset(&v, poison_byte, sizeof v);
    memset(&cursor, poison_byte, sizeof cursor);
    CHECK(fk_track_validate(0, times) == FK_ERROR_INVALID_COUNT, "no keys");
    CHECK(fk_track_evaluate(3, times, floats, 0, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) == FK_ERROR_INVALID_COUNT,
          "no components");
    CHECK(fk_track_evaluate(3, times, floats, 1, (fk_interpolation)7, 0.5f, &cursor, out) == FK_ERROR_INVALID_OPTION,
          "an interpolation it does not name");
    CHECK(fk_track_evaluate(3, times, floats, 1, FK_INTERPOLATION_LINEAR, NAN, &cursor, out) == FK_ERROR_NOT_FINITE,
          "NaN time");
    CHECK(fk_track_evaluate_quat(3, times, keys, FK_INTERPOLATION_STEP, (fk_rotation_interpolation)5, 0.5f, &cursor,
                                 &q) == FK_ERROR_INVALID_OPTION, "a bad method with STEP");
    CHECK(fk_track_evaluate_quat(3, times, keys, FK_INTERPOLATION_CUBICSPLINE, (fk_rotation_interpolation)5, 0.5f,
                                 &cursor, &q) == FK_ERROR_INVALID_OPTION, "a bad method with CUBICSPLINE");
    times[1] = 3.0f;
    CHECK(fk_track_validate(3, times) == FK_ERROR_KEYS_NOT_ASCENDING, "descending keys");
    CHECK(fk_track_sample_vec3(3, times, vectors, 0.5f, &v) == FK_ERROR_KEYS_NOT_ASCENDING, "sample, descending keys");
    times[1] = 1.0f;
    keys[1].w = 0.0f;
    CHECK(fk_track_sample_quat(3, times, keys, 0.5f, FK_INTERPOLATE_SLERP, &q) == FK_ERROR_INVALID_ROTATION,
          "a zero key");
    vectors[1].y = INFINITY;
    CHECK(fk_track_evaluate_vec3(3, times, vectors, FK_INTERPOLATION_LINEAR, 1.5f, &cursor, &v) == FK_ERROR_NOT_FINITE,
          "an infinite key");
    CHECK(all_poison(out, sizeof out) && all_poison(&q, sizeof q) && all_poison(&v, sizeof v) &&
              all_poison(&cursor, sizeof cursor), "a track output or the cursor was written on an error");
}

static void bad_root_motion_is_reported_and_writes_nothing(void)
{
    fk_quat rotations[2] = {{0, 0, 0, 1}, {0, 0, 0.6f, 0.8f}}, motion[2];
    fk_vec3 translations[2] = {{0, 0, 0}, {1, 0, 0}}, up = {0, 0, 0}, moved[2];
    fk_rigid deltas[2], out;
    float times[2] = {0.0f, 1.0f}, weights[2] = {FLT_MAX, FLT_MAX};
    memset(motion, poison_byte, sizeof motion); memset(moved, poison_byte, sizeof moved);
    memset(&out, poison_byte, sizeof out);
    deltas[0] = deltas[1] = fk_rigid_identity();
    CHECK(fk_root_motion_extract(2, up, rotations, translations, 9, FK_ROOT_ROTATION_NONE, up, motion, moved, NULL,
                                 NULL) == FK_ERROR_INVALID_OPTION, "axes 9");
    CHECK(fk_root_motion_extract(2, up, rotations, translations, 5, (fk_root_motion_rotation)3, up, motion, moved, NULL,
                                 NULL) == FK_ERROR_INVALID_OPTION, "an unknown rotation mode");
    CHECK(fk_root_motion_extract(2, up, rotations, translations, 5, FK_ROOT_ROTATION_YAW, up, motion, moved, NULL,
                                 NULL) == FK_ERROR_INVALID_OPTION, "a zero up axis for yaw");
    CHECK(fk_root_motion_delta(2, times, rotations, translations, 0.0f, INFINITY, 0, &out) == FK_ERROR_NOT_FINITE,
          "an infinite time");
    CHECK(fk_root_motion_blend(2, deltas, weights, &out) == FK_ERROR_INVALID_WEIGHT, "weights summing past FLT_MAX");
    CHECK(all_poison(motion, sizeof motion) && all_poison(moved, sizeof moved) && all_poison(&out, sizeof out),
          "root motion wrote on an error");
}

static void bad_pose_blend_is_reported_and_writes_nothing(void)
{
    fk_quat a[2] = {{0, 0, 0, 1}, {0, 0, 0, 1}}, b[2] = {{0, 0, 0, 1}, {0, 0, 0, 0}}, out[2];
    fk_vec3 d[2] = {{0, 0, 0}, {INFINITY, 0, 0}}, out_d[2];
    const fk_quat *rotations[2] = {a, a};
    const fk_vec3 *translations[2] = {NULL, NULL};
    float weights[2] = {0.0f, 0.0f}, mask[2] = {1.0f, -1.0f};
    const float *masks[2] = {mask, NULL};
    memset(out, poison_byte, sizeof out); memset(out_d, poison_byte, sizeof out_d);
    CHECK(fk_pose_blend(2, 2, rotations, translations, weights, out, out_d) == FK_ERROR_INVALID_WEIGHT, "zero weights");
    weights[0] = 1.0f;
    CHECK(fk_pose_blend_masked(2, 2, rotations, translations, weights, masks, out, out_d) == FK_ERROR_INVALID_WEIGHT,
          "a negative mask value");
    CHECK(fk_pose_interpolate(2, a, NULL, b, NULL, 0.5f, FK_INTERPOLATE_SLERP, out, out_d) == FK_ERROR_INVALID_ROTATION,
          "a zero rotation");
    CHECK(fk_pose_add(2, a, d, a, NULL, 1.0f, out, out_d) == FK_ERROR_NOT_FINITE, "an infinite translation");
    CHECK(fk_pose_difference(-1, a, NULL, a, NULL, out, out_d) == FK_ERROR_INVALID_COUNT, "-1 joints");
    CHECK(all_poison(out, sizeof out) && all_poison(out_d, sizeof out_d), "a pose was written on an error");
}

static void bad_morph_is_reported_and_writes_nothing(void)
{
    float positions[6] = {0, 0, 0, 1, 1, 1}, deltas[3] = {1, 2, 3}, weight = 1.0f, out[6];
    uint32_t index = 2;
    fk_morph_target target;
    fk_morph_desc m;
    memset(&target, 0, sizeof target); memset(&m, 0, sizeof m);
    memset(out, poison_byte, sizeof out);
    target.position_deltas = deltas; target.indices = &index; target.sparse_count = 1;
    m.vertex_count = 2; m.positions = positions; m.target_count = 1; m.targets = &target; m.weights = &weight;
    m.out_positions = out;
    CHECK(fk_morph_apply(&m) == FK_ERROR_JOINT_OUT_OF_RANGE, "a sparse index past the vertices");
    index = 1; weight = NAN;
    CHECK(fk_morph_apply(&m) == FK_ERROR_INVALID_WEIGHT, "a NaN weight");
    weight = 3e38f; deltas[0] = 10.0f;
    CHECK(fk_morph_apply(&m) == FK_ERROR_NOT_FINITE, "a weighted delta past FLT_MAX");
    weight = 1.0f; m.out_positions = positions + 1;
    CHECK(fk_morph_apply(&m) == FK_ERROR_CONFLICTING_ARGUMENTS, "an output overlapping its input");
    m.out_positions = out; target.sparse_count = -1;
    CHECK(fk_morph_apply(&m) == FK_ERROR_INVALID_COUNT, "a negative sparse count");
    CHECK(all_poison(out, sizeof out), "a morph was written on an error");
}

static void bad_palette_or_split_is_reported_and_writes_nothing(void)
{
    fk_rigid bones[2] = {{{0, 0, 0, 1}, {0, 0, 0}}, {{0, 0, 0, 0}, {0, 0, 0}}};
    float matrices[24], dual_quats[16];
    uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    uint16_t joints[4] = {0, 1, 2, 3}, group_bones[4], local[4];
    float weights[4] = {1, 1, 1, 1};
    int triangle_groups[2], bone_counts[2], count;
    fk_palette_split_desc s;
    memset(matrices, poison_byte, sizeof matrices); memset(dual_quats, poison_byte, sizeof dual_quats);
    memset(group_bones, poison_byte, sizeof group_bones); memset(local, poison_byte, sizeof local);
    memset(triangle_groups, poison_byte, sizeof triangle_groups); memset(bone_counts, poison_byte, sizeof bone_counts);
    memset(&count, poison_byte, sizeof count);
    CHECK(fk_palette_matrices(2, bones, matrices) == FK_ERROR_INVALID_ROTATION, "a zero rotation");
    CHECK(fk_palette_dual_quats(2, (const int[2]){1, 0}, (const fk_rigid[2]){{{0, 0, 0, 1}, {0, 0, 0}}, {{0, 0, 0, 1}, {0, 0, 0}}},
                                dual_quats) == FK_ERROR_CYCLE, "a cycle");
    memset(&s, 0, sizeof s);
    s.triangle_count = 2; s.indices = indices; s.vertex_count = 4; s.influences = 1; s.joints = joints;
    s.weights = weights; s.bone_count = 65537; s.max_bones = 3;
    CHECK(fk_palette_split(&s, 2, triangle_groups, group_bones, bone_counts, &count) == FK_ERROR_INVALID_COUNT,
          "bone_count past 65,536");
    s.bone_count = 4;
    CHECK(fk_palette_split(&s, 1, triangle_groups, group_bones, bone_counts, &count) == FK_ERROR_INVALID_COUNT,
          "more groups than room");
    weights[3] = INFINITY;
    CHECK(fk_palette_split(&s, 2, triangle_groups, group_bones, bone_counts, &count) == FK_ERROR_INVALID_WEIGHT,
          "an infinite weight");
    CHECK(fk_palette_local_joints(2, joints, 4, 1, joints, weights, local) == FK_ERROR_JOINT_OUT_OF_RANGE,
          "a joint the group lacks");
    CHECK(all_poison(matrices, sizeof matrices) && all_poison(dual_quats, sizeof dual_quats) &&
              all_poison(group_bones, sizeof group_bones) && all_poison(local, sizeof local) &&
              all_poison(triangle_groups, sizeof triangle_groups) && all_poison(bone_counts, sizeof bone_counts) &&
              all_poison(&count, sizeof count),
          "a palette or split was written on an error");
}

static void bad_bounds_input_is_reported_and_writes_nothing(void)
{
    mesh m;
    fk_skin_desc d;
    fk_bone_bounds records[BONES], good[BONES];
    fk_bounds bounds;
    fk_rigid bind[BONES];
    int i;
    good_mesh(&m);
    d = describe(&m);
    CHECK(fk_skin_bounds_prepare(&d, good) == FK_OK, "good mesh");
    memset(records, poison_byte, sizeof records); memset(&bounds, poison_byte, sizeof bounds);
    m.weights[0] = FLT_MAX; m.weights[1] = FLT_MAX;
    CHECK(fk_skin_bounds_prepare(&d, records) == FK_ERROR_INVALID_WEIGHT, "weights summing past FLT_MAX");
    m.weights[0] = 0.75f; m.weights[1] = 0.25f; m.joints[3] = BONES;
    CHECK(fk_skin_bounds_prepare(&d, records) == FK_ERROR_JOINT_OUT_OF_RANGE, "a joint past the bones");
    d.dqs_scale_center = (fk_dqs_scale_center)5;
    CHECK(fk_skin_bounds_lbs(&d, good, &bounds) == FK_ERROR_INVALID_OPTION, "LBS, an unknown scale centre");
    d.dqs_scale_center = FK_DQS_SCALE_AT_VERTEX;
    for (i = 0; i < BONES; ++i) bind[i] = fk_rigid_identity();
    bind[1].q.w = 0.0f;
    d.bind_poses = bind;
    CHECK(fk_skin_bounds_lbs(&d, good, &bounds) == FK_ERROR_INVALID_ROTATION, "LBS, a bind pose it does not use");
    CHECK(fk_skin_lbs(&d) == FK_ERROR_INVALID_ROTATION, "skinning checks bind poses whenever given");
    CHECK(all_poison(records, sizeof records) && all_poison(&bounds, sizeof bounds), "bounds were written on an error");
}

static void bad_weights_desc_is_reported_and_writes_nothing(void)
{
    uint16_t joints[4] = {0, 1, 5, 0};
    float weights[4] = {0.5f, -0.5f, NAN, 1.0f};
    uint16_t joints_before[4];
    float weights_before[4];
    fk_weights_desc w;
    fk_weights_report report;
    memcpy(joints_before, joints, sizeof joints); memcpy(weights_before, weights, sizeof weights);
    memset(&w, 0, sizeof w); memset(&report, poison_byte, sizeof report);
    w.vertex_count = 2; w.influences = 2; w.joints = joints; w.weights = weights; w.joint_count = 0;
    CHECK(fk_weights_repair(&w, &report) == FK_ERROR_INVALID_COUNT, "no joints");
    w.joint_count = 2; w.max_influences = 3;
    CHECK(fk_weights_repair(&w, &report) == FK_ERROR_INVALID_COUNT, "more kept than stored");
    w.max_influences = 0; w.weight_stride = 6;
    CHECK(fk_weights_repair(&w, &report) == FK_ERROR_INVALID_STRIDE, "a stride below the record");
    w.weight_stride = 0;
    CHECK(fk_weights_inspect(&w, NULL) == FK_ERROR_NULL_ARGUMENT, "inspect without a report");
    CHECK(all_poison(&report, sizeof report) && memcmp(joints, joints_before, sizeof joints) == 0 &&
              memcmp(weights, weights_before, sizeof weights) == 0,
          "weights were written on an error");
}

static void bad_jacobian_or_ik_step_is_reported_and_writes_nothing(void)
{
    rig r = good_rig();
    fk_rigid transforms[JOINTS];
    float out[9 * JOINTS];
    uint16_t joints[2] = {0, 2};
    float weights[2] = {0.5f, NAN};
    fk_quat rotations[JOINTS];
    CHECK(fk_forward(JOINTS, r.parents, r.rest, r.rotations, NULL, transforms) == FK_OK, "forward");
    memcpy(rotations, r.rotations, sizeof rotations);
    memset(out, poison_byte, sizeof out);
    CHECK(fk_jacobian_point(JOINTS, r.parents, r.rest, transforms, FK_FRAME_PARENT, JOINTS, r.rest[0], out) ==
              FK_ERROR_JOINT_OUT_OF_RANGE, "a joint past the end");
    CHECK(fk_jacobian_lbs_vertex(JOINTS, r.parents, r.rest, transforms, FK_FRAME_PARENT, r.rest[0], 2, joints, weights,
                                 out) == FK_ERROR_INVALID_WEIGHT, "a NaN weight");
    CHECK(fk_ik_step(JOINTS, r.parents, r.rest, transforms, FK_FRAME_PARENT, 2, r.rest[2], 1, fk_vec3_make(NAN, 0, 0),
                     0.0f, rotations) == FK_ERROR_NOT_FINITE, "a NaN target");
    r.parents[0] = 2;
    CHECK(fk_jacobian_joint(JOINTS, r.parents, r.rest, transforms, FK_FRAME_REST, 2, out) == FK_ERROR_CYCLE, "a cycle");
    CHECK(all_poison(out, sizeof out) && memcmp(rotations, r.rotations, sizeof rotations) == 0,
          "a Jacobian or IK step wrote on an error");
}

static void bad_ik_is_reported_and_writes_nothing(void)
{
    rig r = good_rig();
    fk_rigid transforms[JOINTS];
    fk_quat rotations[JOINTS];
    fk_vec3 pole = {1, 0, 0}, axis = {0, 0, 1};
    fk_ik_two_bone_desc d;
    fk_ik_aim_desc aim;
    int reached = 7, chain[2] = {0, 2};
    float chain_weights[2] = {0.5f, 2.0f};
    CHECK(fk_forward(JOINTS, r.parents, r.rest, r.rotations, NULL, transforms) == FK_OK, "forward");
    memcpy(rotations, r.rotations, sizeof rotations);
    memset(&d, 0, sizeof d);
    d.joint_count = JOINTS; d.parents = r.parents; d.rest_joints = r.rest; d.transforms = transforms;
    d.start = 0; d.mid = 1; d.end = 2; d.target = fk_vec3_make(0.5f, 1.0f, 0.0f);
    CHECK(fk_ik_two_bone(&d, 2.0f, rotations, &reached) == FK_ERROR_INVALID_WEIGHT, "two-bone, weight 2");
    d.soften = 2.0f;
    CHECK(fk_ik_two_bone(&d, 1.0f, rotations, &reached) == FK_ERROR_INVALID_OPTION, "two-bone, soften 2");
    d.soften = 0.0f; d.pole = &pole; d.mid_axis = &axis;
    CHECK(fk_ik_two_bone(&d, 1.0f, rotations, &reached) == FK_ERROR_CONFLICTING_ARGUMENTS, "two-bone, pole and axis");
    d.pole = NULL; d.mid_axis = NULL; d.mid = 2; d.end = 1;
    CHECK(fk_ik_two_bone(&d, 1.0f, rotations, &reached) == FK_ERROR_JOINT_OUT_OF_RANGE, "two-bone, end above mid");
    memset(&aim, 0, sizeof aim);
    CHECK(fk_ik_aim(JOINTS, r.parents, r.rest, transforms, FK_FRAME_PARENT, 2, &aim, d.target, 1.0f, rotations,
                    &reached) == FK_ERROR_INVALID_ROTATION, "aim, zero forward");
    aim.forward = fk_vec3_make(0, 1, 0);
    CHECK(fk_ik_aim(JOINTS, r.parents, r.rest, transforms, (fk_rotation_frame)7, 2, &aim, d.target, 1.0f, rotations,
                    &reached) == FK_ERROR_INVALID_OPTION, "aim, an unknown frame");
    CHECK(fk_ik_aim_chain(JOINTS, r.parents, r.rest, transforms, FK_FRAME_PARENT, 2, chain, chain_weights, &aim,
                          d.target, rotations, &reached) == FK_ERROR_INVALID_WEIGHT, "aim chain, weight 2");
    CHECK(memcmp(rotations, r.rotations, sizeof rotations) == 0 && reached == 7, "IK wrote on an error");
}

static void bad_retarget_is_reported_and_writes_nothing(void)
{
    rig r = good_rig();
    const int map[JOINTS] = {0, 1, 2}, unmapped_end[JOINTS] = {0, 1, -1};
    const char *names[JOINTS] = {"Hips", "Knee", "Ankle"};
    int ints[FK_RETARGET_INT_STORAGE(JOINTS, JOINTS)], ints2[FK_RETARGET_INT_STORAGE(JOINTS, JOINTS)];
    int bad_map[JOINTS], out_map[JOINTS], reached = 7;
    fk_quat quats[FK_RETARGET_QUAT_STORAGE(JOINTS)], quats2[FK_RETARGET_QUAT_STORAGE(JOINTS)], world[JOINTS],
        out[JOINTS], bad_rotations[JOINTS];
    fk_vec3 root = fk_vec3_make(7, 7, 7), positions[JOINTS];
    fk_rigid transforms[JOINTS];
    fk_retarget rt, rt_unmapped, before;
    fk_retarget_desc d, good;
    fk_ik_two_bone_desc leg;
    memset(&good, 0, sizeof good);
    good.source.joint_count = good.target.joint_count = JOINTS;
    good.source.parents = good.target.parents = r.parents;
    good.source.rest_positions = good.target.rest_positions = r.rest;
    good.map = map;
    good.root_scale = 1.0f; /* the root sits at y = 0: no hip height */
    memset(&rt, poison_byte, sizeof rt);
    memset(ints, poison_byte, sizeof ints);
    memset(quats, poison_byte, sizeof quats);
    memcpy(bad_map, map, sizeof bad_map);
    bad_map[1] = JOINTS;
    d = good; d.map = bad_map;
    CHECK(fk_retarget_init(&rt, &d, ints, quats) == FK_ERROR_JOINT_OUT_OF_RANGE, "init, a map entry past the source");
    d = good; d.target.root = 1;
    CHECK(fk_retarget_init(&rt, &d, ints, quats) == FK_ERROR_JOINT_OUT_OF_RANGE, "init, a root with a parent");
    memcpy(bad_rotations, r.rotations, sizeof bad_rotations);
    bad_rotations[2].y = NAN;
    d = good; d.source.reference = bad_rotations;
    CHECK(fk_retarget_init(&rt, &d, ints, quats) == FK_ERROR_INVALID_ROTATION, "init, a NaN reference");
    d = good; d.root_scale = NAN;
    CHECK(fk_retarget_init(&rt, &d, ints, quats) == FK_ERROR_INVALID_OPTION, "init, a NaN root scale");
    d = good; d.root_scale = 0.0f;
    CHECK(fk_retarget_init(&rt, &d, ints, quats) == FK_ERROR_INVALID_OPTION, "init, no hip height to scale by");
    CHECK(all_poison(&rt, sizeof rt) && all_poison(ints, sizeof ints) && all_poison(quats, sizeof quats),
          "retarget init wrote on an error");

    CHECK(fk_retarget_init(&rt, &good, ints, quats) == FK_OK, "init");
    before = rt;
    memset(world, poison_byte, sizeof world);
    memset(out, poison_byte, sizeof out);
    CHECK(fk_retarget_pose(&rt, bad_rotations, root, world, out, &root) == FK_ERROR_INVALID_ROTATION,
          "pose, a NaN rotation");
    CHECK(fk_retarget_pose(&rt, r.rotations, fk_vec3_make(INFINITY, 0, 0), world, out, &root) == FK_ERROR_NOT_FINITE,
          "pose, an infinite root translation");
    CHECK(all_poison(world, sizeof world) && all_poison(out, sizeof out) && root.x == 7 &&
              !memcmp(&rt, &before, sizeof rt), "retarget pose wrote on an error");

    d = good; d.map = unmapped_end;
    CHECK(fk_retarget_init(&rt_unmapped, &d, ints2, quats2) == FK_OK, "init, the end unmapped");
    CHECK(fk_forward(JOINTS, r.parents, r.rest, r.rotations, NULL, transforms) == FK_OK, "forward");
    fk_posed_joints(JOINTS, r.rest, transforms, positions);
    memcpy(out, r.rotations, sizeof out);
    memset(&leg, 0, sizeof leg);
    leg.rest_joints = r.rest; leg.transforms = transforms;
    leg.start = 0; leg.mid = 1; leg.end = 2;
    CHECK(fk_retarget_foot(&rt_unmapped, positions, &leg, 1.0f, out, &reached) == FK_ERROR_JOINT_OUT_OF_RANGE,
          "foot, an unmapped end");
    positions[0].z = NAN;
    CHECK(fk_retarget_foot(&rt, positions, &leg, 1.0f, out, &reached) == FK_ERROR_NOT_FINITE,
          "foot, a NaN source position");
    CHECK(!memcmp(out, r.rotations, sizeof out) && reached == 7, "retarget foot wrote on an error");

    memset(out_map, poison_byte, sizeof out_map);
    CHECK(fk_retarget_map_names(-1, names, JOINTS, names, out_map, NULL) == FK_ERROR_INVALID_COUNT &&
              fk_retarget_map_names(JOINTS, names, JOINTS, NULL, out_map, NULL) == FK_ERROR_NULL_ARGUMENT &&
              all_poison(out_map, sizeof out_map),
          "map names, a negative count or no source names");
}

static void scaled_fk_writes_identities_except_for_missing_arguments(void)
{
    rig r = good_rig();
    float out[12 * JOINTS];
    int i;
    memset(out, poison_byte, sizeof out);
    CHECK(fk_forward_trs(JOINTS, NULL, r.translations, r.rotations, NULL, out) == FK_ERROR_NULL_ARGUMENT &&
              all_poison(out, sizeof out), "trs: NULL parents wrote");
    CHECK(fk_forward_scaled(JOINTS, r.parents, NULL, r.rotations, NULL, NULL, out) == FK_ERROR_NULL_ARGUMENT &&
              all_poison(out, sizeof out), "scaled: NULL rest joints wrote");
    CHECK(fk_forward_scaled(-1, r.parents, r.rest, r.rotations, NULL, NULL, out) == FK_ERROR_INVALID_COUNT &&
              all_poison(out, sizeof out), "scaled: -1 joints wrote");
    r.parents[1] = 1;
    CHECK(fk_forward_trs(JOINTS, r.parents, r.translations, r.rotations, NULL, out) == FK_ERROR_SELF_PARENT, "self");
    for (i = 0; i < 12 * JOINTS; ++i) CHECK(out[i] == (i % 12 % 5 == 0 ? 1.0f : 0.0f), "not identities at %d", i);
    memset(out, poison_byte, sizeof out);
    CHECK(fk_forward(JOINTS, NULL, r.rest, r.rotations, NULL, (fk_rigid *)(void *)out) == FK_ERROR_NULL_ARGUMENT &&
              all_poison(out, sizeof out), "fk_forward: NULL parents wrote");
}

static void zero_vertices_still_check_the_descriptor(void)
{
    mesh m;
    fk_skin_desc d;
    good_mesh(&m);
    d = describe(&m);
    d.vertex_count = 0;
    d.position_stride = 8;
    CHECK(skin_all(&d, &m) == FK_ERROR_INVALID_STRIDE, "a stride below the record, with no vertices");
    d.position_stride = 0; d.weights = NULL;
    CHECK(skin_all(&d, &m) == FK_ERROR_NULL_ARGUMENT, "no weights, with no vertices");
}

/* ---- Random bad input: an error leaves the outputs alone ---- */

/* A seeded, bounded harness over every function family: small random inputs,
   some of their numbers spoiled (zero, NaN, infinities, values near FLT_MAX),
   parents and indices sometimes out of range, pointers sometimes NULL. Every
   output starts as a sentinel pattern; after an error it must still be one
   (or what the function's comment says it writes then: identities for FK),
   and the inputs must be as they were. Replay a failure with its trial number. */
enum { WILD_JOINTS = 4, WILD_KEYS = 3, WILD_VERTICES = 3, WILD_K = 3, WILD_TRIALS = 3000, ARENA = 8192 };

static unsigned char arena[ARENA];
static size_t arena_used;

static void *arena_take(size_t bytes)
{
    void *p = arena + arena_used;
    arena_used += (bytes + 15) / 16 * 16;
    return arena_used <= ARENA ? p : NULL;
}

static int arena_untouched(void)
{
    size_t i;
    for (i = 0; i < ARENA; ++i)
        if (arena[i] != 0xA5) return 0;
    return 1;
}

static void arena_reset(void)
{
    memset(arena, 0xA5, sizeof arena);
    arena_used = 0;
}

/* A number as data brings it: mostly ordinary, sometimes one that breaks something. */
static float wild(float scale)
{
    static const float special[] = {0.0f, -0.0f, NAN, INFINITY, -INFINITY, FLT_MAX, -3e38f, 3e38f, 1e-30f, 1e30f};
    if (rng_below(12)) return rng_uniform(-scale, scale);
    return special[rng_below((int)(sizeof special / sizeof special[0]))];
}

static void *maybe(const void *p) { return rng_below(24) ? (void *)(size_t)p : NULL; }

typedef struct wild_input {
    int n, parents[WILD_JOINTS], subtree, keys, vertices, k, bones;
    fk_vec3 rest[WILD_JOINTS], translations[WILD_JOINTS], scales[WILD_JOINTS];
    fk_quat rotations[WILD_JOINTS], rotations_b[WILD_JOINTS];
    fk_rigid transforms[WILD_JOINTS];
    float inverse_bind[12 * WILD_JOINTS], world[12 * WILD_JOINTS], matrices[12 * WILD_JOINTS], weights[WILD_JOINTS];
    float times[WILD_KEYS], values[3 * 4 * WILD_KEYS];
    float positions[3 * WILD_VERTICES], normals[3 * WILD_VERTICES], vertex_weights[WILD_K * WILD_VERTICES];
    uint16_t joints[WILD_K * WILD_VERTICES];
    uint32_t indices[3];
} wild_input;

static void wild_make(wild_input *in)
{
    int i, e;
    memset(in, 0, sizeof *in);
    in->n = rng_below(8) ? 1 + rng_below(WILD_JOINTS) : rng_below(3) - 1;
    random_tree(WILD_JOINTS, in->parents);
    if (!rng_below(6)) in->parents[rng_below(WILD_JOINTS)] = rng_below(WILD_JOINTS + 2) - 1;
    in->subtree = rng_below(WILD_JOINTS + 1) - (rng_below(8) ? 0 : 1);
    for (i = 0; i < WILD_JOINTS; ++i) {
        in->rest[i] = fk_vec3_make(wild(2.0f), wild(2.0f), wild(2.0f));
        in->translations[i] = fk_vec3_make(wild(1.0f), wild(1.0f), wild(1.0f));
        in->scales[i] = fk_vec3_make(wild(2.0f), wild(2.0f), wild(2.0f));
        in->rotations[i] = random_quat();
        in->rotations_b[i] = random_quat();
        if (!rng_below(10)) in->rotations[i].x = wild(1.0f);
        if (!rng_below(10)) in->rotations_b[i].w = wild(1.0f);
        in->transforms[i] = fk_rigid_make(in->rotations[i], in->translations[i]);
        fk_mat34_from_trs(in->translations[i], in->rotations_b[i], fk_vec3_make(1.0f, 1.0f, 1.0f), in->world + 12 * i);
        fk_mat34_from_trs(in->rest[i], in->rotations[i], fk_vec3_make(1.0f, 1.0f, 1.0f), in->inverse_bind + 12 * i);
        fk_mat34_from_trs(in->translations[i], in->rotations[i], in->scales[i], in->matrices + 12 * i);
        for (e = 0; e < 12; ++e) if (!rng_below(40)) in->inverse_bind[12 * i + e] = wild(3.0f);
        for (e = 0; e < 12; ++e) if (!rng_below(40)) in->world[12 * i + e] = wild(3.0f);
        in->weights[i] = rng_below(4) ? rng_uniform(0.0f, 1.0f) : wild(1.0f);
    }
    in->keys = rng_below(8) ? 1 + rng_below(WILD_KEYS) : rng_below(2) - 1;
    for (i = 0; i < WILD_KEYS; ++i) in->times[i] = rng_below(8) ? (float)i + rng_uniform(0.0f, 0.5f) : wild(3e38f);
    for (i = 0; i < 12 * WILD_KEYS; ++i) in->values[i] = rng_below(16) ? rng_uniform(-1.0f, 1.0f) : wild(1.0f);
    in->vertices = rng_below(8) ? 1 + rng_below(WILD_VERTICES) : rng_below(2) - 1;
    in->k = 1 + rng_below(WILD_K);
    in->bones = in->n;
    for (i = 0; i < 3 * WILD_VERTICES; ++i) { in->positions[i] = wild(2.0f); in->normals[i] = wild(1.0f); }
    for (i = 0; i < WILD_K * WILD_VERTICES; ++i) {
        in->joints[i] = (uint16_t)rng_below(WILD_JOINTS + (rng_below(8) ? 0 : 2));
        in->vertex_weights[i] = rng_below(8) ? rng_uniform(0.0f, 1.0f) : wild(1.0f);
    }
    for (i = 0; i < 3; ++i) in->indices[i] = (uint32_t)rng_below(WILD_VERTICES + (rng_below(10) ? 0 : 1));
}

/* Checks the rule after one call: nothing written on error (or what @p allowed
   accepts), the inputs unchanged. */
#define WILD_CHECK(call, name)                                                                         \
    do {                                                                                               \
        fk_result wild_result_ = (call);                                                               \
        CHECK(memcmp(&before, in, sizeof before) == 0, "trial %d: %s modified an input", trial, name); \
        if (wild_result_ != FK_OK)                                                                     \
            CHECK(arena_untouched(), "trial %d: %s wrote on error %s", trial, name,                    \
                  fk_result_description(wild_result_));                                                \
        *in = before;                                                                                  \
        arena_reset();                                                                                 \
    } while (0)

static fk_skin_desc wild_skin(wild_input *in, float *out_positions, float *out_normals, int use_matrices)
{
    fk_skin_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = in->vertices; d.influences = in->k;
    d.positions = (const float *)maybe(in->positions);
    d.normals = rng_below(2) ? in->normals : NULL;
    d.joints = in->joints; d.weights = (const float *)maybe(in->vertex_weights);
    d.transform_count = in->n;
    if (use_matrices) d.matrices = in->matrices, d.bind_poses = (const fk_rigid *)maybe(in->transforms);
    else d.transforms = (const fk_rigid *)maybe(in->transforms);
    d.out_positions = out_positions; d.out_normals = d.normals ? out_normals : NULL;
    if (!rng_below(16)) d.position_stride = (size_t)rng_below(16);
    if (!rng_below(32)) d.dqs_scale_center = (fk_dqs_scale_center)rng_below(3);
    return d;
}

/* The FK functions' rule: on an error found in the data, identities. */
static int identities_or_untouched(const void *out, size_t bytes, int joints, int matrices)
{
    const unsigned char *b = (const unsigned char *)out;
    int i, untouched = 1;
    size_t at;
    for (at = 0; at < bytes; ++at) untouched &= b[at] == 0xA5;
    if (untouched) return 1;
    for (i = 0; i < joints; ++i) {
        if (matrices) {
            if (memcmp((const float *)out + 12 * i, (const float[12]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, 48) != 0) return 0;
        } else if (!is_identity(((const fk_rigid *)out)[i])) {
            return 0;
        }
    }
    return 1;
}

static void wild_forward(wild_input *in, int trial)
{
    const wild_input before = *in;
    const size_t n = in->n > 0 ? (size_t)in->n : 0;
    int frame, j;
    for (frame = 0; frame < 2; ++frame) {
        fk_rigid *out = (fk_rigid *)arena_take(n * sizeof *out);
        fk_result r = frame ? fk_forward_rest_frame(in->n, (const int *)maybe(in->parents), in->rest, in->rotations,
                                                    (const fk_vec3 *)maybe(in->translations), out)
                            : fk_forward(in->n, in->parents, (const fk_vec3 *)maybe(in->rest), in->rotations,
                                         in->translations, out);
        CHECK(r == FK_OK || identities_or_untouched(out, n * sizeof *out, in->n, 0),
              "trial %d: fk_forward error %d: neither identities nor untouched", trial, (int)r);
        arena_reset();
    }
    for (frame = 0; frame < 2; ++frame) {
        float *out = (float *)arena_take(n * 48);
        fk_result r = frame ? fk_forward_scaled(in->n, in->parents, (const fk_vec3 *)maybe(in->rest), in->rotations,
                                                in->translations, (const fk_vec3 *)maybe(in->scales), out)
                            : fk_forward_trs(in->n, (const int *)maybe(in->parents), in->translations,
                                             (const fk_quat *)maybe(in->rotations), in->scales, out);
        CHECK(r == FK_OK || identities_or_untouched(out, n * 48, in->n, 1),
              "trial %d: fk_forward_trs/scaled error %d: neither identities nor untouched", trial, (int)r);
        arena_reset();
    }
    WILD_CHECK(fk_posed_joints(in->n, (const fk_vec3 *)maybe(in->rest), in->transforms,
                               (fk_vec3 *)arena_take(n * sizeof(fk_vec3))), "fk_posed_joints");
    { /* subtree updates: in place, so their arrays start as a finished pose */
        fk_rigid pose[WILD_JOINTS], start[WILD_JOINTS];
        float scaled[12 * WILD_JOINTS], scaled_start[12 * WILD_JOINTS];
        fk_result r;
        for (j = 0; j < WILD_JOINTS; ++j) {
            pose[j] = in->transforms[j];
            fk_rigid_to_mat34(in->transforms[j], scaled + 12 * j);
            if (!rng_below(8)) pose[j].q.w = rng_below(2) ? 4.0f : 8.0f;
            if (!rng_below(8)) scaled[12 * j] = rng_below(2) ? INFINITY : -INFINITY;
        }
        memcpy(start, pose, sizeof pose);
        memcpy(scaled_start, scaled, sizeof scaled);
        r = rng_below(2) ? fk_forward_subtree(in->n, in->parents, in->rest, in->rotations, in->translations, in->subtree, pose)
                         : fk_forward_subtree_rest_frame(in->n, in->parents, in->rest, in->rotations, NULL, in->subtree, pose);
        for (j = 0; j < WILD_JOINTS; ++j) {
            int inside = r == FK_OK || r == FK_ERROR_NOT_FINITE;
            inside = inside && j < in->n && in->subtree >= 0 && in->subtree < in->n &&
                     fk_validate_skeleton(in->n, in->parents) == FK_OK;
            if (inside) { /* the subtree's joints: j or an ancestor is the subtree's root */
                int a = j, steps = 0;
                while (a >= 0 && a != in->subtree && steps++ < WILD_JOINTS) a = in->parents[a] < 0 ? -1 : in->parents[a];
                inside = a == in->subtree;
            }
            CHECK(inside ? r == FK_OK || is_identity(pose[j]) || memcmp(&pose[j], &start[j], sizeof pose[j]) == 0
                         : memcmp(&pose[j], &start[j], sizeof pose[j]) == 0,
                  "trial %d: subtree %d (error %d) wrote joint %d", trial, in->subtree, (int)r, j);
        }
        r = fk_forward_scaled_subtree(in->n, in->parents, rng_below(2) ? in->rest : NULL, in->rotations,
                                      in->translations, (const fk_vec3 *)maybe(in->scales), in->subtree, scaled);
        if (r != FK_OK && r != FK_ERROR_NOT_FINITE)
            CHECK(memcmp(scaled, scaled_start, sizeof scaled) == 0, "trial %d: scaled subtree wrote on error %d", trial, (int)r);
        CHECK(memcmp(&before, in, sizeof before) == 0, "trial %d: a subtree update modified an input", trial);
    }
}

static void wild_engine(wild_input *in, int trial)
{
    const wild_input before = *in;
    const size_t n = in->n > 0 ? (size_t)in->n : 0;
    float pretransform[12], space[12];
    fk_vec3 rest[WILD_JOINTS];
    WILD_CHECK(fk_mat34_inverse(in->world, (float *)arena_take(48)), "fk_mat34_inverse");
    WILD_CHECK(fk_bind_from_matrices(in->n, in->inverse_bind, (const float *)maybe(in->world),
                                     (fk_vec3 *)arena_take(n * sizeof(fk_vec3)), (float *)arena_take(48)),
               "fk_bind_from_matrices");
    if (fk_bind_from_matrices(in->n, in->inverse_bind, in->world, rest, pretransform) != FK_OK) {
        memcpy(pretransform, (const float[12]){1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, sizeof pretransform);
        memcpy(rest, in->rest, sizeof rest);
    }
    WILD_CHECK(fk_pose_from_matrices(in->n, in->parents, in->inverse_bind, in->world, pretransform, rest,
                                     (fk_quat *)arena_take(n * sizeof(fk_quat)), (fk_vec3 *)arena_take(n * sizeof(fk_vec3))),
               "fk_pose_from_matrices");
    WILD_CHECK(fk_bind_frames_from_matrices(in->n, in->inverse_bind, (float *)arena_take(48),
                                            (fk_rigid *)arena_take(n * sizeof(fk_rigid))),
               "fk_bind_frames_from_matrices");
    memcpy(space, in->world, sizeof space);
    WILD_CHECK(fk_skin_matrices_from_matrices(in->n, in->inverse_bind, in->world, rng_below(2) ? space : NULL,
                                              (float *)arena_take(n * 48)),
               "fk_skin_matrices_from_matrices");
}

static void wild_skinning(wild_input *in, int trial)
{
    const wild_input before = *in;
    const size_t n = in->n > 0 ? (size_t)in->n : 0, v = in->vertices > 0 ? (size_t)in->vertices : 0;
    int variant;
    for (variant = 0; variant < 4; ++variant) {
        float *out_positions = (float *)arena_take(12 * v), *out_normals = (float *)arena_take(12 * v);
        fk_skin_desc d = wild_skin(in, out_positions, out_normals, variant >= 2);
        fk_result valid = fk_skin_validate(&d, variant % 2 ? FK_SKIN_DQS : FK_SKIN_LBS), r;
        CHECK(arena_untouched(), "trial %d: fk_skin_validate wrote", trial);
        r = variant % 2 ? fk_skin_dqs(&d) : fk_skin_lbs(&d);
        CHECK(memcmp(&before, in, sizeof before) == 0, "trial %d: skinning modified an input", trial);
        CHECK(r == valid, "trial %d: skinning %d, validate %d", trial, (int)r, (int)valid);
        if (r != FK_OK && r != FK_ERROR_JOINT_OUT_OF_RANGE)
            CHECK(arena_untouched(), "trial %d: skinning wrote on error %s", trial, fk_result_description(r));
        arena_reset();
        { /* the bounds of the same descriptor */
            fk_bone_bounds records[WILD_JOINTS];
            fk_bounds *bounds;
            WILD_CHECK(fk_skin_bounds_prepare(&d, (fk_bone_bounds *)arena_take(n * sizeof(fk_bone_bounds))),
                       "fk_skin_bounds_prepare");
            if (fk_skin_bounds_prepare(&d, records) == FK_OK) {
                bounds = (fk_bounds *)arena_take(sizeof *bounds);
                WILD_CHECK(variant % 2 ? fk_skin_bounds_dqs(&d, records, bounds) : fk_skin_bounds_lbs(&d, records, bounds),
                           "fk_skin_bounds_lbs/dqs");
            }
        }
    }
    WILD_CHECK(fk_palette_matrices(in->n, (const fk_rigid *)maybe(in->transforms), (float *)arena_take(n * 48)),
               "fk_palette_matrices");
    WILD_CHECK(fk_palette_dual_quats(in->n, (const int *)maybe(in->parents), in->transforms, (float *)arena_take(n * 32)),
               "fk_palette_dual_quats");
    WILD_CHECK(fk_palette_dual_quats_scaled(in->n, (const int *)maybe(in->parents), in->matrices,
                                            (const fk_rigid *)maybe(in->transforms), (float *)arena_take(n * 32),
                                            (float *)arena_take(n * 48)),
               "fk_palette_dual_quats_scaled");
    {
        fk_palette_split_desc s;
        memset(&s, 0, sizeof s);
        s.triangle_count = rng_below(2); s.indices = in->indices; s.vertex_count = in->vertices;
        s.influences = in->k; s.joints = (const uint16_t *)maybe(in->joints); s.weights = in->vertex_weights;
        s.bone_count = rng_below(16) ? in->n : 65537; s.max_bones = rng_below(4);
        WILD_CHECK(fk_palette_split(&s, 1, (int *)arena_take(sizeof(int)), (uint16_t *)arena_take(2 * 4),
                                    (int *)arena_take(sizeof(int)), (int *)arena_take(sizeof(int))),
                   "fk_palette_split");
        WILD_CHECK(fk_palette_local_joints(in->n, in->joints, in->vertices, in->k, in->joints, in->vertex_weights,
                                           (uint16_t *)arena_take(2 * WILD_K * v)),
                   "fk_palette_local_joints");
    }
    {
        fk_morph_target target;
        fk_morph_desc m;
        memset(&target, 0, sizeof target); memset(&m, 0, sizeof m);
        target.position_deltas = in->normals; target.normal_deltas = rng_below(2) ? in->positions : NULL;
        if (rng_below(2)) target.indices = in->indices, target.sparse_count = rng_below(4);
        m.vertex_count = in->vertices; m.positions = in->positions; m.normals = rng_below(2) ? in->normals : NULL;
        m.target_count = 1; m.targets = &target; m.weights = in->weights;
        m.out_positions = (float *)arena_take(12 * v); m.out_normals = m.normals ? (float *)arena_take(12 * v) : NULL;
        WILD_CHECK(fk_morph_apply(&m), "fk_morph_apply");
    }
    {
        fk_weights_desc w;
        fk_weights_report scratch;
        memset(&w, 0, sizeof w);
        w.vertex_count = in->vertices; w.influences = in->k; w.joints = in->joints; w.weights = in->vertex_weights;
        w.joint_count = in->n; w.max_influences = rng_below(WILD_K + 2) - 1;
        WILD_CHECK(fk_weights_inspect(&w, (fk_weights_report *)arena_take(sizeof(fk_weights_report))),
                   "fk_weights_inspect");
        if (fk_weights_inspect(&w, &scratch) != FK_OK) /* repair works in place: only its failures are checked */
            WILD_CHECK(fk_weights_repair(&w, (fk_weights_report *)arena_take(sizeof(fk_weights_report))),
                       "fk_weights_repair");
    }
}

static void wild_animation(wild_input *in, int trial)
{
    const wild_input before = *in;
    const size_t n = in->n > 0 ? (size_t)in->n : 0;
    const fk_quat *rotations[2] = {in->rotations, in->rotations_b};
    const fk_vec3 *translations[2] = {in->translations, NULL};
    const float *masks[2] = {in->weights, NULL};
    const fk_rotation_interpolation method = (fk_rotation_interpolation)rng_below(3);
    const fk_interpolation interpolation = (fk_interpolation)(rng_below(16) ? rng_below(3) : 3);
    const float time = wild(3.0f);
    int *cursor = (int *)arena_take(sizeof(int));
    fk_rigid deltas[2];
    WILD_CHECK(fk_pose_interpolate(in->n, in->rotations, (const fk_vec3 *)maybe(in->translations), in->rotations_b,
                                   NULL, wild(1.0f), method, (fk_quat *)arena_take(n * 16), (fk_vec3 *)arena_take(n * 12)),
               "fk_pose_interpolate");
    WILD_CHECK(fk_pose_blend(in->n, 1 + rng_below(2), rotations, translations, in->weights, (fk_quat *)arena_take(n * 16),
                             (fk_vec3 *)arena_take(n * 12)),
               "fk_pose_blend");
    WILD_CHECK(fk_pose_blend_masked(in->n, 2, rotations, translations, in->weights, masks,
                                    (fk_quat *)arena_take(n * 16), (fk_vec3 *)arena_take(n * 12)),
               "fk_pose_blend_masked");
    WILD_CHECK(fk_pose_difference(in->n, in->rotations, NULL, (const fk_quat *)maybe(in->rotations_b), in->translations,
                                  (fk_quat *)arena_take(n * 16), (fk_vec3 *)arena_take(n * 12)),
               "fk_pose_difference");
    WILD_CHECK(fk_pose_add_masked(in->n, in->rotations, in->translations, in->rotations_b, NULL, wild(1.0f),
                                  rng_below(2) ? in->weights : NULL, (fk_quat *)arena_take(n * 16),
                                  (fk_vec3 *)arena_take(n * 12)),
               "fk_pose_add_masked");
    WILD_CHECK(fk_track_sample_vec3(in->keys, in->times, (const fk_vec3 *)(const void *)in->values, time,
                                    (fk_vec3 *)arena_take(12)), "fk_track_sample_vec3");
    WILD_CHECK(fk_track_sample_quat(in->keys, in->times, (const fk_quat *)(const void *)in->values, time, method,
                                    (fk_quat *)arena_take(16)), "fk_track_sample_quat");
    memset(cursor, 0xA5, sizeof *cursor);
    WILD_CHECK(fk_track_evaluate(in->keys, in->times, in->values, 1 + rng_below(2), interpolation, time, cursor,
                                 (float *)arena_take(8)), "fk_track_evaluate");
    WILD_CHECK(fk_track_evaluate_vec3(in->keys, in->times, (const fk_vec3 *)(const void *)in->values, interpolation,
                                      time, (int *)arena_take(sizeof(int)), (fk_vec3 *)arena_take(12)),
               "fk_track_evaluate_vec3");
    WILD_CHECK(fk_track_evaluate_quat(in->keys, in->times, (const fk_quat *)(const void *)in->values, interpolation,
                                      method, time, (int *)arena_take(sizeof(int)), (fk_quat *)arena_take(16)),
               "fk_track_evaluate_quat");
    WILD_CHECK(fk_root_motion_extract(in->n, in->rest[0], (const fk_quat *)maybe(in->rotations), in->translations,
                                      rng_below(9), (fk_root_motion_rotation)rng_below(4), in->scales[0],
                                      (fk_quat *)arena_take(n * 16), (fk_vec3 *)arena_take(n * 12),
                                      (fk_quat *)arena_take(n * 16), (fk_vec3 *)arena_take(n * 12)),
               "fk_root_motion_extract");
    WILD_CHECK(fk_root_motion_delta(in->keys, in->times, in->rotations, (const fk_vec3 *)maybe(in->translations),
                                    wild(3.0f), time, rng_below(5) - 2, (fk_rigid *)arena_take(sizeof(fk_rigid))),
               "fk_root_motion_delta");
    deltas[0] = in->transforms[0]; deltas[1] = in->transforms[1];
    WILD_CHECK(fk_root_motion_blend(1 + rng_below(2), deltas, in->weights, (fk_rigid *)arena_take(sizeof(fk_rigid))),
               "fk_root_motion_blend");
}

static void wild_derivatives(wild_input *in, int trial)
{
    const wild_input before = *in;
    const size_t n = in->n > 0 ? (size_t)in->n : 0;
    const fk_rotation_frame frame = (fk_rotation_frame)rng_below(2);
    WILD_CHECK(fk_jacobian_point(in->n, in->parents, in->rest, in->transforms, frame, in->subtree, in->rest[1],
                                 (float *)arena_take(36 * n)), "fk_jacobian_point");
    WILD_CHECK(fk_jacobian_lbs_vertex(in->n, in->parents, in->rest, in->transforms, frame, in->rest[2], in->k,
                                      in->joints, in->vertex_weights, (float *)arena_take(36 * n)),
               "fk_jacobian_lbs_vertex");
    { /* in place: the rotations start as the caller's */
        fk_quat rotations[WILD_JOINTS], start[WILD_JOINTS];
        fk_ik_aim_desc aim;
        int reached = 7;
        fk_result r;
        memcpy(rotations, in->rotations, sizeof rotations);
        memcpy(start, rotations, sizeof start);
        r = fk_ik_step(in->n, in->parents, in->rest, in->transforms, frame, in->subtree, in->rest[1], rng_below(3) - 1,
                       in->translations[0], wild(1.0f), rotations);
        CHECK(r == FK_OK || memcmp(rotations, start, sizeof start) == 0, "trial %d: fk_ik_step wrote on error", trial);
        memcpy(rotations, start, sizeof start);
        memset(&aim, 0, sizeof aim);
        aim.forward = in->scales[1]; aim.up = rng_below(2) ? in->scales[2] : aim.up;
        r = fk_ik_aim(in->n, in->parents, in->rest, in->transforms, frame, in->subtree, &aim, in->translations[1],
                      wild(1.0f), rotations, &reached);
        CHECK(r == FK_OK || (memcmp(rotations, start, sizeof start) == 0 && reached == 7),
              "trial %d: fk_ik_aim wrote on error", trial);
        CHECK(memcmp(&before, in, sizeof before) == 0, "trial %d: IK modified an input", trial);
    }
}

static void random_bad_input_leaves_outputs_alone(void)
{
    wild_input in;
    int trial;
    rng_state = 0x5EEDBAD1u;
    arena_reset();
    for (trial = 0; trial < WILD_TRIALS; ++trial) {
        wild_make(&in);
        wild_forward(&in, trial);
        wild_engine(&in, trial);
        wild_skinning(&in, trial);
        wild_animation(&in, trial);
        wild_derivatives(&in, trial);
    }
}

static void dqs_of_scale_without_bind_poses_is_missing_bind_poses(void)
{
    /* A scale of 1.001 is past FK_LBS_RIGID_TOLERANCE: DQS splits the bones,
       which needs their rest frames; LBS does not. Validation says which. */
    mesh m, before;
    float matrices[BONES][12];
    fk_skin_desc d;
    int j;
    good_mesh(&m);
    for (j = 0; j < BONES; ++j) fk_rigid_to_mat34(m.bones[j], matrices[j]);
    for (j = 0; j < 3; ++j) matrices[1][4 * j] *= 1.001f;
    d = describe(&m);
    d.transforms = NULL;
    d.matrices = &matrices[0][0];
    before = m;
    CHECK(fk_skin_validate(&d, FK_SKIN_DQS) == FK_ERROR_MISSING_BIND_POSES, "validate for DQS");
    CHECK(fk_skin_dqs(&d) == FK_ERROR_MISSING_BIND_POSES, "DQS");
    CHECK(memcmp(&before, &m, sizeof m) == 0, "written before the error");
    CHECK(fk_skin_validate(&d, FK_SKIN_LBS) == FK_OK && fk_skin_lbs(&d) == FK_OK, "LBS needs no bind poses");
    m.joints[K] = BONES; /* a bad index too: the missing bind poses are found first */
    CHECK(fk_skin_validate(&d, FK_SKIN_DQS) == FK_ERROR_MISSING_BIND_POSES && fk_skin_dqs(&d) == FK_ERROR_MISSING_BIND_POSES,
          "before a joint index");
    CHECK(fk_skin_validate(&d, FK_SKIN_LBS) == FK_ERROR_JOINT_OUT_OF_RANGE, "LBS meets the index");
    CHECK(strcmp(fk_result_description(FK_ERROR_MISSING_BIND_POSES), fk_result_description(FK_ERROR_NULL_ARGUMENT)) != 0,
          "a description of its own");
}

int main(void)
{
    RUN_TEST(negative_joint_count_is_invalid_count);
    RUN_TEST(zero_joints_is_ok_and_reads_nothing);
    RUN_TEST(missing_required_pointer_is_null_argument);
    RUN_TEST(null_translations_mean_none);
    RUN_TEST(parent_past_the_end_is_out_of_range);
    RUN_TEST(any_negative_parent_is_a_root);
    RUN_TEST(own_parent_is_self_parent);
    RUN_TEST(cycle_is_cycle);
    RUN_TEST(children_before_parents_is_fine);
    RUN_TEST(zero_rotation_is_invalid_rotation);
    RUN_TEST(rotation_too_small_to_normalize_is_invalid_rotation);
    RUN_TEST(non_finite_rotation_is_invalid_rotation);
    RUN_TEST(non_unit_rotation_is_normalized);
    RUN_TEST(denormal_component_is_accepted);
    RUN_TEST(non_finite_position_is_not_finite);
    RUN_TEST(pose_overflowing_float_is_not_finite);
    RUN_TEST(null_descriptor_is_null_argument);
    RUN_TEST(bad_counts_are_invalid_count);
    RUN_TEST(dense_weights_need_one_per_transform);
    RUN_TEST(zero_vertices_is_ok_and_writes_nothing);
    RUN_TEST(missing_required_pointer_in_descriptor_is_null_argument);
    RUN_TEST(stride_smaller_than_element_is_invalid_stride);
    RUN_TEST(misaligned_stride_or_pointer_is_invalid_stride);
    RUN_TEST(stride_overflowing_size_t_is_invalid_stride);
    RUN_TEST(bad_tangent_layout_is_null_argument_or_invalid_stride);
    RUN_TEST(joint_index_past_transforms_is_joint_out_of_range);
    RUN_TEST(bad_transform_is_invalid_rotation_or_not_finite);
    RUN_TEST(non_unit_transform_rotation_is_normalized);
    RUN_TEST(lbs_uses_weights_as_given);
    RUN_TEST(dqs_ignores_the_weights_scale);
    RUN_TEST(nan_in_vertex_data_gives_nan_for_that_vertex);
    RUN_TEST(output_over_input_is_supported);
    RUN_TEST(degenerate_helper_input_gives_documented_fallback);
    RUN_TEST(nan_through_a_helper_stays_nan);
    RUN_TEST(non_finite_matrix_is_not_finite);
    RUN_TEST(singular_or_scaled_matrix_is_not_rigid);
    RUN_TEST(engine_result_overflowing_float_is_not_finite);
    RUN_TEST(bad_engine_arguments_are_reported);
    RUN_TEST(largest_stride_for_one_vertex_forms_no_pointer_past_it);
    RUN_TEST(keys_further_apart_than_flt_max_are_not_finite);
    RUN_TEST(subtree_update_leaves_every_other_joint_alone);
    RUN_TEST(bad_track_is_reported_and_writes_nothing);
    RUN_TEST(bad_root_motion_is_reported_and_writes_nothing);
    RUN_TEST(bad_pose_blend_is_reported_and_writes_nothing);
    RUN_TEST(bad_morph_is_reported_and_writes_nothing);
    RUN_TEST(bad_palette_or_split_is_reported_and_writes_nothing);
    RUN_TEST(bad_bounds_input_is_reported_and_writes_nothing);
    RUN_TEST(bad_weights_desc_is_reported_and_writes_nothing);
    RUN_TEST(bad_jacobian_or_ik_step_is_reported_and_writes_nothing);
    RUN_TEST(bad_ik_is_reported_and_writes_nothing);
    RUN_TEST(bad_retarget_is_reported_and_writes_nothing);
    RUN_TEST(scaled_fk_writes_identities_except_for_missing_arguments);
    RUN_TEST(zero_vertices_still_check_the_descriptor);
    RUN_TEST(random_bad_input_leaves_outputs_alone);
    RUN_TEST(dqs_of_scale_without_bind_poses_is_missing_bind_poses);
    return check_finish();
}
