/* test_properties.c - properties fk_lbs.h must have on every input, checked on
   thousands of random skeletons, poses and meshes per run.

   Each property is a function named for what it guarantees; it returns 1 when the
   property holds for one case and otherwise describes what broke. The harness
   (prop_harness.h) runs every property over PROPS_N cases (default 1000) from one
   printed seed and shrinks any failure to a smallest case; docs/testing.md lists
   the properties and explains how to replay a failure.

       build/test_properties [--seed N] [--cases N] [--only PROPERTY] [--verbose]
                             [--no-shrink] [--fail-fast]
   (PROPS_SEED and PROPS_N in the environment do the same as --seed and --cases;
   `make test SEED=... PROPS_N=...` sets them.) */
#include "fk_lbs.h" /* declarations: the library is tests/fk_lbs_impl.c */

#include <float.h>
#include <stdlib.h>

#include "prop_harness.h"

/* ---- Tolerances -------------------------------------------------------------------
   Every comparison allows the rounding that float arithmetic must make on the case
   at hand, and no more. EPS = FLT_EPSILON = 2^-23; one float operation is off by at
   most EPS/2 of its result.

   UNIT_ULPS = 4. A quaternion or vector just normalized has length 1 within about
     2.5 EPS: the sum of squares (about 2 EPS), then a square root, a reciprocal and
     a scaling (EPS/2 each). A rotation down a chain, the product Q_p q_i scaled by
     the Newton factor of the parent's length, keeps the product's own rounding
     (the factor removes only what Q_p brought): q_i's 2.5 EPS plus the product's
     (each of its four components a signed sum of four products, off by about
     1.5 EPS at most). Adding every worst case, the factor's own rounding included,
     gives about 7 EPS; errors of mixed sign do not line up like that: in 4 million
     joints of random chains and trees the largest was 2.5 EPS (the old scheme,
     renormalizing the product itself: 1.2 EPS). The 4 EPS bound stays.
   ROUND_ULPS = 16. One rigid step -- rotating a vector (two cross products and three
     sums, by a quaternion unit within 2.5 EPS), applying a 3x4 matrix, composing two
     rotations -- is off by at most about 8 EPS times the sum of the sizes of the
     terms it combines. We allow twice that.
   Chains: each level of a chain adds at most ROUND_ULPS EPS radians to the absolute
     rotation (a product, then the Newton factor, so the error grows linearly, not
     geometrically), and a rotation error moves everything below it by that angle
     times the lever arm. The case's reach -- the length of the path of bone vectors
     from the origin to the joint -- bounds every lever arm and |t|, so two ways of
     computing a joint at depth d agree within
         (d + 1) * 2 ROUND_ULPS * EPS * (reach + |x|)          (chain_tolerance)
   Skinning: a vertex with k influences sums k weighted terms, then applies the
     result, so it is within (k + 1) ROUND_ULPS * EPS * (|v| + the largest |t|).
     A result normalized after blending (the DQS blend, an LBS normal) has its
     errors divided by the blend's length: see dqs_conditioning() and
     lbs_normal_conditioning(). Where a DQS rotation is exactly a half turn from
     the blend's pivot, DQS is discontinuous and no bound applies.
   Nothing below is widened to make a test pass: a failure means precision was
   lost, and the shrunk case shows where. */
#define EPS ((double)FLT_EPSILON)
#define UNIT_ULPS 4.0
#define ROUND_ULPS 16.0

static double unit_tolerance(void) { return UNIT_ULPS * EPS; }
static double round_tolerance(double magnitude) { return ROUND_ULPS * EPS * magnitude; }
static double chain_tolerance(int depth, double magnitude) { return (depth + 1) * 2.0 * ROUND_ULPS * EPS * magnitude; }
static double skin_tolerance(int influences, double magnitude) { return (influences + 1) * ROUND_ULPS * EPS * magnitude; }

/* ---- Shared buffers and helpers ----------------------------------------------------- */

static fk_rigid transforms_a[MAX_JOINTS], transforms_b[MAX_JOINTS], bones_b[MAX_JOINTS];
static fk_vec3 posed_a[MAX_JOINTS], rest_b[MAX_JOINTS], translations_b[MAX_JOINTS];
static fk_quat quats_b[MAX_JOINTS];
static int parents_b[MAX_JOINTS], permutation[MAX_JOINTS];
static float out_positions_a[MAX_VERTICES * 3], out_normals_a[MAX_VERTICES * 3];
static float out_positions_b[MAX_VERTICES * 3], out_normals_b[MAX_VERTICES * 3];
static float weights_b[MAX_VERTICES * MAX_INFLUENCES];
static uint16_t joints_b[MAX_VERTICES * MAX_INFLUENCES];

static const char *const convention_names[2] = {"fk_forward", "fk_forward_rest_frame"};
static const char *const method_names[2] = {"fk_skin_lbs", "fk_skin_dqs"};

/* Fills an output with NaN first, so that a function that skips an element
   cannot pass by leaving an earlier, correct answer in place. */
static void poison(void *memory, size_t bytes) { memset(memory, 0xff, bytes); }

static const fk_vec3 *case_translations(const prop_case *c) { return c->has_translations ? c->translations : NULL; }

static fk_result forward(int rest_frame, int count, const int *parents, const fk_vec3 *rest, const fk_quat *rotations,
                         const fk_vec3 *translations, fk_rigid *out)
{
    poison(out, sizeof *out * (size_t)count);
    return (rest_frame ? fk_forward_rest_frame : fk_forward)(count, parents, rest, rotations, translations, out);
}

static fk_result forward_case(int rest_frame, const prop_case *c, fk_rigid *out)
{
    return forward(rest_frame, c->joint_count, c->parents, c->rest, c->rotations, case_translations(c), out);
}

static fk_skin_desc mesh_desc(const prop_case *c, const fk_rigid *transforms, float *out_positions, float *out_normals)
{
    fk_skin_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = c->vertex_count;
    d.influences = c->influences;
    d.positions = c->positions;
    d.normals = c->normals;
    d.joints = c->joints;
    d.weights = c->weights;
    d.transforms = transforms;
    d.transform_count = c->joint_count;
    d.out_positions = out_positions;
    d.out_normals = out_normals;
    return d;
}

static fk_result skin(int dqs, const fk_skin_desc *d)
{
    poison(d->out_positions, sizeof(float) * 3 * (size_t)d->vertex_count);
    if (d->out_normals && d->out_normals != d->normals) poison(d->out_normals, sizeof(float) * 3 * (size_t)d->vertex_count);
    return dqs ? fk_skin_dqs(d) : fk_skin_lbs(d);
}

/* The rigid transform a vertex's weights blend to when all of them name bone j. */
static dvec apply_bone(const fk_rigid *bones, int j, dvec p) { return dr_apply(dr(bones[j]), p); }

/* DQS normalizes its blend, which divides its rounding errors by the blend's
   length. Where the weighted rotations nearly cancel (bones far apart on either
   side of the pivot's hemisphere) the result is ill-conditioned: its error bound
   is the usual one times this factor, 1 / |sum of signed weighted rotations|.
   Where a weighted rotation is at right angles to the pivot (a half turn apart),
   DQS is discontinuous: rounding picks the sign, and either answer is right. */
static double dqs_conditioning(const fk_rigid *bones, const uint16_t *joints, const float *weights, int influences)
{
    dquat pivot, sum = dq4(0, 0, 0, 0);
    int k, heaviest = 0;
    for (k = 0; k < influences; ++k) if (weights[k] > weights[heaviest]) heaviest = k;
    pivot = dq_unit(dq(bones[joints[heaviest]].q)); /* as documented: the heaviest influence's hemisphere */
    for (k = 0; k < influences; ++k) {
        dquat q = dq_unit(dq(bones[joints[k]].q));
        double w = (double)weights[k];
        if (w != 0.0 && fabs(dq_dot(pivot, q)) <= round_tolerance(1.0)) return HUGE_VAL;
        if (dq_dot(pivot, q) < 0.0) w = -w;
        sum = dq4(sum.x + w * q.x, sum.y + w * q.y, sum.z + w * q.z, sum.w + w * q.w);
    }
    return 1.0 / dq_len(sum);
}

/* LBS renormalizes the blended normal sum_k w_k Q_k n, dividing its rounding
   errors by that blend's length, which is small where the bones' rotations of the
   normal nearly cancel: the bound grows by this factor. */
static double lbs_normal_conditioning(const fk_rigid *bones, const uint16_t *joints, const float *weights, int influences,
                                      const float *normal)
{
    dvec blended = dv3(0, 0, 0);
    int k;
    for (k = 0; k < influences; ++k)
        blended = dv_add(blended, dv_scale(dq_rotate(dr(bones[joints[k]]).q, dv_load(normal)), (double)weights[k]));
    return 1.0 / dv_len(blended);
}

/* Distance between two rotations as quaternions, whatever their signs. */
static double quat_distance(dquat a, dquat b)
{
    double minus = dq_len(dq4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w));
    double plus = dq_len(dq4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w));
    return minus < plus ? minus : plus;
}

/* ==== 1. Rigidity =================================================================== */

static int rotations_are_unit(const prop_case *c, prop_failure *f)
{
    int rest_frame, i;
    for (rest_frame = 0; rest_frame < 2; ++rest_frame) {
        if (forward_case(rest_frame, c, transforms_a) != FK_OK) return fail(f, "%s failed on a valid skeleton", convention_names[rest_frame]);
        for (i = 0; i < c->joint_count; ++i) {
            double length = dq_len(dq(transforms_a[i].q));
            if (!within(fabs(length - 1.0), unit_tolerance()))
                return fail(f, "%s: |Q_%d| = %.9g at depth %d, not 1 within %.2g", convention_names[rest_frame], i, length,
                            c->depth[i], unit_tolerance());
        }
    }
    return 1;
}

static int one_bone_vertices_move_rigidly(const prop_case *c, prop_failure *f)
{
    prop_case *m = (prop_case *)malloc(sizeof *m); /* a copy with every vertex on one bone */
    rng r = c->extra;
    int bone = rng_below(&r, c->joint_count), dqs, a, b, ok = 1;
    fk_skin_desc d;
    *m = *c;
    m->influences = 1;
    for (a = 0; a < m->vertex_count; ++a) { m->joints[a] = (uint16_t)bone; m->weights[a] = 1.0f; }
    d = mesh_desc(m, c->bones, out_positions_a, out_normals_a);
    for (dqs = 0; dqs < 2 && ok; ++dqs) {
        if (skin(dqs, &d) != FK_OK) { ok = fail(f, "%s failed on a valid mesh", method_names[dqs]); break; }
        for (a = 0; a < m->vertex_count && ok; ++a)
            for (b = a + 1; b < m->vertex_count && ok; ++b) {
                double before = dv_dist(dv_load(m->positions + 3 * a), dv_load(m->positions + 3 * b));
                double after = dv_dist(dv_load(out_positions_a + 3 * a), dv_load(out_positions_a + 3 * b));
                double size = dv_len(dv_load(m->positions + 3 * a)) + dv_len(dv_load(m->positions + 3 * b)) + dv_len(dv(c->bones[bone].t));
                if (!within(fabs(after - before), 2.0 * skin_tolerance(1, size)))
                    ok = fail(f, "%s: vertices %d and %d, both on bone %d, were %.9g apart and are %.9g apart", method_names[dqs], a, b,
                              bone, before, after);
            }
    }
    free(m);
    return ok;
}

static int bone_lengths_are_preserved(const prop_case *c, prop_failure *f)
{
    int rest_frame, i;
    for (rest_frame = 0; rest_frame < 2; ++rest_frame) {
        if (forward_case(rest_frame, c, transforms_a) != FK_OK) return fail(f, "%s failed on a valid skeleton", convention_names[rest_frame]);
        if (fk_posed_joints(c->joint_count, c->rest, transforms_a, posed_a) != FK_OK) return fail(f, "fk_posed_joints failed");
        for (i = 0; i < c->joint_count; ++i) {
            int p = c->parents[i];
            dvec pivot = dv_add(dv(c->rest[i]), dv(c->translations[i]));
            double before, after, size;
            if (p < 0) continue;
            before = dv_dist(pivot, dv(c->rest[p]));
            after = dv_dist(dv(posed_a[i]), dv(posed_a[p]));
            size = dv_len(dv(transforms_a[p].t)) + dv_len(dv(transforms_a[i].t)) + dv_len(pivot) + dv_len(dv(c->rest[i])) +
                   dv_len(dv(c->rest[p]));
            if (!within(fabs(after - before), round_tolerance(size)))
                return fail(f, "%s: bone %d -> %d had length %.9g and has %.9g after posing (tolerance %.2g)",
                            convention_names[rest_frame], p, i, before, after, round_tolerance(size));
        }
    }
    return 1;
}

/* ==== 2. Connectivity =============================================================== */

/* Q_i x_i + t_i == Q_p (x_i + d_i) + t_p: every joint lands where its parent's
   transform sends its (translated) rest position, roots where their translation
   sends them; and fk_posed_joints() reports exactly those points. */
static int children_stay_attached(const prop_case *c, prop_failure *f)
{
    int rest_frame, i;
    for (rest_frame = 0; rest_frame < 2; ++rest_frame) {
        if (forward_case(rest_frame, c, transforms_a) != FK_OK) return fail(f, "%s failed on a valid skeleton", convention_names[rest_frame]);
        if (fk_posed_joints(c->joint_count, c->rest, transforms_a, posed_a) != FK_OK) return fail(f, "fk_posed_joints failed");
        for (i = 0; i < c->joint_count; ++i) {
            int p = c->parents[i];
            dvec x = dv(c->rest[i]), pivot = dv_add(x, dv(c->translations[i]));
            dvec here = dr_apply(dr(transforms_a[i]), x);
            dvec expected = p < 0 ? pivot : dr_apply(dr(transforms_a[p]), pivot);
            double size = dv_len(dv(transforms_a[i].t)) + dv_len(x) + dv_len(pivot) + (p < 0 ? 0.0 : dv_len(dv(transforms_a[p].t)));
            double error = dv_dist(here, expected), reported = dv_dist(dv(posed_a[i]), expected);
            if (!within(error, round_tolerance(size)) || !within(reported, round_tolerance(size)))
                return fail(f, "%s: joint %d (depth %d, parent %d) is %.3g from where its parent puts it "
                               "(fk_posed_joints: %.3g; tolerance %.2g)",
                            convention_names[rest_frame], i, c->depth[i], p, error, reported, round_tolerance(size));
        }
    }
    return 1;
}

/* ==== 3. Identity pose ============================================================== */

static int identity_pose_changes_nothing(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    int rest_frame, dqs, i, j;
    const fk_vec3 *translations = NULL;
    for (i = 0; i < c->joint_count; ++i) { /* the identity in all its spellings: (0,0,0,w), any w != 0 */
        float w = (float)rng_log_range(&r, 0.01, 100.0);
        quats_b[i] = fk_quat_make(0.0f, 0.0f, 0.0f, rng_chance(&r, 2) ? -w : w);
        translations_b[i] = fk_vec3_make(0.0f, 0.0f, 0.0f);
    }
    if (rng_chance(&r, 2)) translations = translations_b;
    for (rest_frame = 0; rest_frame < 2; ++rest_frame) {
        fk_skin_desc d;
        if (forward(rest_frame, c->joint_count, c->parents, c->rest, quats_b, translations, transforms_a) != FK_OK)
            return fail(f, "%s failed on a valid skeleton", convention_names[rest_frame]);
        fk_posed_joints(c->joint_count, c->rest, transforms_a, posed_a);
        for (i = 0; i < c->joint_count; ++i) {
            double size = dv_len(dv(c->rest[i])), moved = dv_dist(dv(posed_a[i]), dv(c->rest[i]));
            if (!within(moved, UNIT_ULPS * EPS * size))
                return fail(f, "%s: identity pose moved joint %d by %.3g", convention_names[rest_frame], i, moved);
        }
        d = mesh_desc(c, transforms_a, out_positions_a, out_normals_a);
        for (dqs = 0; dqs < 2; ++dqs) {
            if (skin(dqs, &d) != FK_OK) return fail(f, "%s failed on a valid mesh", method_names[dqs]);
            for (j = 0; j < c->vertex_count; ++j) {
                /* Weights sum to one only within k/2 EPS in float, and LBS scales by their sum. */
                double few_ulps = (c->influences + UNIT_ULPS) * EPS;
                dvec p = dv_load(c->positions + 3 * j), n = dv_load(c->normals + 3 * j);
                double moved = dv_dist(dv_load(out_positions_a + 3 * j), p), turned = dv_dist(dv_load(out_normals_a + 3 * j), n);
                if (!within(moved, few_ulps * dv_len(p)) || !within(turned, few_ulps))
                    return fail(f, "%s after %s: identity pose moved vertex %d by %.3g and its normal by %.3g", method_names[dqs],
                                convention_names[rest_frame], j, moved, turned);
            }
        }
    }
    return 1;
}

/* ==== 4. Equivariance =============================================================== */

static drigid random_motion(rng *r, const prop_case *c)
{
    drigid g;
    g.q = dq_unit(random_rotation(r, c->size.angle));
    g.t = random_vector(r, 10.0 * pow(10.0, c->size.magnitude));
    return g;
}

/* Moving the roots by a rigid motion G moves every joint by G: with rotations in
   the parent's frame only the roots change (q_r -> g q_r, and d_r so that the root
   lands at G(x_r + d_r)); with rotations in the rest frame every rotation is
   conjugated as well (q_i -> g q_i g*). */
static int global_motion_moves_every_joint(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    drigid g = random_motion(&r, c);
    int rest_frame, i;
    for (rest_frame = 0; rest_frame < 2; ++rest_frame) {
        if (forward_case(rest_frame, c, transforms_a) != FK_OK) return fail(f, "%s failed on a valid skeleton", convention_names[rest_frame]);
        for (i = 0; i < c->joint_count; ++i) {
            dquat q = dq_unit(dq(c->rotations[i]));
            translations_b[i] = c->translations[i];
            if (c->parents[i] < 0) {
                dvec x = dv(c->rest[i]);
                quats_b[i] = fq(dq_mul(g.q, q));
                translations_b[i] = fv(dv_sub(dr_apply(g, dv_add(x, dv(c->translations[i]))), x));
            } else {
                quats_b[i] = rest_frame ? fq(dq_mul(dq_mul(g.q, q), dq_conj(g.q))) : c->rotations[i];
            }
        }
        if (forward(rest_frame, c->joint_count, c->parents, c->rest, quats_b, translations_b, transforms_b) != FK_OK)
            return fail(f, "%s failed on a valid skeleton", convention_names[rest_frame]);
        for (i = 0; i < c->joint_count; ++i) {
            drigid expected = dr_mul(g, dr(transforms_a[i])), got = dr(transforms_b[i]);
            dvec x = dv(c->rest[i]);
            double size = c->reach[i] + dv_len(x) + dv_len(g.t);
            double angle = dq_angle(expected.q, got.q), error = dv_dist(dr_apply(expected, x), dr_apply(got, x));
            if (!within(angle, chain_tolerance(c->depth[i], 1.0)) || !within(error, chain_tolerance(c->depth[i], size)))
                return fail(f, "%s: after moving the roots, joint %d (depth %d) is off by %.3g rad and %.3g (tolerances %.2g, %.2g)",
                            convention_names[rest_frame], i, c->depth[i], angle, error, chain_tolerance(c->depth[i], 1.0),
                            chain_tolerance(c->depth[i], size));
        }
    }
    return 1;
}

/* Skinning with every bone moved by G gives the skinned mesh moved by G. */
static int global_motion_moves_the_skinned_mesh(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    drigid g = random_motion(&r, c);
    fk_skin_desc d = mesh_desc(c, c->bones, out_positions_a, out_normals_a), moved = d;
    int dqs, j, i;
    for (i = 0; i < c->joint_count; ++i) bones_b[i] = fr(dr_mul(g, dr(c->bones[i])));
    moved.transforms = bones_b;
    moved.out_positions = out_positions_b;
    moved.out_normals = out_normals_b;
    for (dqs = 0; dqs < 2; ++dqs) {
        if (skin(dqs, &d) != FK_OK || skin(dqs, &moved) != FK_OK) return fail(f, "%s failed on a valid mesh", method_names[dqs]);
        for (j = 0; j < c->vertex_count; ++j) {
            int kk = c->influences;
            dvec expected = dr_apply(g, dv_load(out_positions_a + 3 * j)), got = dv_load(out_positions_b + 3 * j);
            dvec expected_normal = dq_rotate(g.q, dv_load(out_normals_a + 3 * j)), got_normal = dv_load(out_normals_b + 3 * j);
            double size = dv_len(dv_load(c->positions + 3 * j)) + c->bone_reach + dv_len(g.t);
            double error = dv_dist(expected, got), normal_error = dv_dist(expected_normal, got_normal);
            double conditioning = dqs ? dqs_conditioning(c->bones, c->joints + kk * j, c->weights + kk * j, kk) : 1.0;
            double normal_conditioning = dqs ? conditioning
                                             : lbs_normal_conditioning(c->bones, c->joints + kk * j, c->weights + kk * j, kk, c->normals + 3 * j);
            if (!within(error, 2.0 * conditioning * skin_tolerance(kk, size)) ||
                !within(normal_error, 2.0 * normal_conditioning * skin_tolerance(kk, 1.0)))
                return fail(f, "%s: with every bone moved by G, vertex %d is %.3g from G(its old place) and its normal %.3g "
                               "from G(its old normal) (tolerance %.2g)",
                            method_names[dqs], j, error, normal_error, 2.0 * skin_tolerance(c->influences, size));
        }
    }
    return 1;
}

/* ==== 5. Order independence ========================================================= */

static int joint_order_does_not_matter(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    int n = c->joint_count, rest_frame, i;
    for (i = 0; i < n; ++i) permutation[i] = i;
    for (i = n - 1; i > 0; --i) {
        int j = rng_below(&r, i + 1), swap = permutation[i];
        permutation[i] = permutation[j]; permutation[j] = swap;
    }
    for (i = 0; i < n; ++i) { /* joint i moves to permutation[i]; its parent is renamed likewise */
        int at = permutation[i];
        parents_b[at] = c->parents[i] < 0 ? c->parents[i] : permutation[c->parents[i]];
        rest_b[at] = c->rest[i];
        quats_b[at] = c->rotations[i];
        translations_b[at] = c->translations[i];
    }
    for (rest_frame = 0; rest_frame < 2; ++rest_frame) {
        if (forward_case(rest_frame, c, transforms_a) != FK_OK ||
            forward(rest_frame, n, parents_b, rest_b, quats_b, c->has_translations ? translations_b : NULL, transforms_b) != FK_OK)
            return fail(f, "%s failed on a valid skeleton", convention_names[rest_frame]);
        for (i = 0; i < n; ++i) {
            drigid a = dr(transforms_a[i]), b = dr(transforms_b[permutation[i]]);
            double size = c->reach[i] + dv_len(dv(c->rest[i]));
            double angle = dq_angle(a.q, b.q), error = dv_dist(a.t, b.t);
            if (!within(angle, chain_tolerance(c->depth[i], 1.0)) || !within(error, chain_tolerance(c->depth[i], size)))
                return fail(f, "%s: joint %d, listed as joint %d after shuffling, differs by %.3g rad and %.3g in translation",
                            convention_names[rest_frame], i, permutation[i], angle, error);
        }
    }
    return 1;
}

/* ==== 6. Convention equivalence ===================================================== */

/* A rotation q_i in the parent's frame is q_world = Q_p q_i Q_p* in the rest frame,
   and both conventions must then produce the same transforms. */
static int conventions_agree(const prop_case *c, prop_failure *f)
{
    int i;
    if (forward_case(0, c, transforms_a) != FK_OK) return fail(f, "fk_forward failed on a valid skeleton");
    for (i = 0; i < c->joint_count; ++i) {
        int p = c->parents[i];
        dquat q = dq_unit(dq(c->rotations[i]));
        if (p >= 0) {
            dquat parent = dq_unit(dq(transforms_a[p].q));
            q = dq_mul(dq_mul(parent, q), dq_conj(parent));
        }
        quats_b[i] = fq(q);
    }
    if (forward(1, c->joint_count, c->parents, c->rest, quats_b, case_translations(c), transforms_b) != FK_OK)
        return fail(f, "fk_forward_rest_frame failed on a valid skeleton");
    for (i = 0; i < c->joint_count; ++i) {
        drigid a = dr(transforms_a[i]), b = dr(transforms_b[i]);
        double size = c->reach[i] + dv_len(dv(c->rest[i]));
        double angle = dq_angle(a.q, b.q), error = dv_dist(a.t, b.t);
        if (!within(angle, chain_tolerance(c->depth[i], 1.0)) || !within(error, chain_tolerance(c->depth[i], size)))
            return fail(f, "joint %d (depth %d): parent-frame and rest-frame results differ by %.3g rad and %.3g (tolerances %.2g, %.2g)",
                        i, c->depth[i], angle, error, chain_tolerance(c->depth[i], 1.0), chain_tolerance(c->depth[i], size));
    }
    return 1;
}

/* ==== 7. Skinning =================================================================== */

/* A vertex whose weights are all on one bone (the others zero) moves by that bone. */
static int one_hot_weights_apply_the_bone(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    int dqs, j, k, kk = c->influences, hot[MAX_VERTICES];
    fk_skin_desc d = mesh_desc(c, c->bones, out_positions_a, out_normals_a);
    for (j = 0; j < c->vertex_count; ++j) {
        hot[j] = rng_below(&r, kk);
        for (k = 0; k < kk; ++k) weights_b[j * kk + k] = k == hot[j] ? 1.0f : 0.0f;
    }
    d.weights = weights_b;
    for (dqs = 0; dqs < 2; ++dqs) {
        if (skin(dqs, &d) != FK_OK) return fail(f, "%s failed on a valid mesh", method_names[dqs]);
        for (j = 0; j < c->vertex_count; ++j) {
            int bone = c->joints[j * kk + hot[j]];
            dvec p = dv_load(c->positions + 3 * j);
            dvec expected = apply_bone(c->bones, bone, p), normal = dq_rotate(dr(c->bones[bone]).q, dv_load(c->normals + 3 * j));
            double size = dv_len(p) + dv_len(dv(c->bones[bone].t));
            double error = dv_dist(expected, dv_load(out_positions_a + 3 * j)), normal_error = dv_dist(normal, dv_load(out_normals_a + 3 * j));
            if (!within(error, skin_tolerance(kk, size)) || !within(normal_error, skin_tolerance(kk, 1.0)))
                return fail(f, "%s: vertex %d weighted fully to bone %d (influence %d of %d) is %.3g from that bone's image "
                               "and its normal %.3g off (tolerance %.2g)",
                            method_names[dqs], j, bone, hot[j], kk, error, normal_error, skin_tolerance(kk, size));
        }
    }
    return 1;
}

/* With weights summing to one, translating every bone by c translates the result
   by c (LBS is affine in the bones); with weights summing to s, by s c. */
static int lbs_commutes_with_translation(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    dvec shift = random_vector(&r, 10.0 * pow(10.0, c->size.magnitude));
    fk_skin_desc d = mesh_desc(c, c->bones, out_positions_a, NULL), moved = d;
    int i, j, k;
    d.normals = moved.normals = NULL;
    for (i = 0; i < c->joint_count; ++i) bones_b[i] = fk_rigid_make(c->bones[i].q, fv(dv_add(dv(c->bones[i].t), shift)));
    moved.transforms = bones_b;
    moved.out_positions = out_positions_b;
    if (skin(0, &d) != FK_OK || skin(0, &moved) != FK_OK) return fail(f, "fk_skin_lbs failed on a valid mesh");
    for (j = 0; j < c->vertex_count; ++j) {
        double sum = 0.0, size = dv_len(dv_load(c->positions + 3 * j)) + c->bone_reach + 2.0 * dv_len(shift);
        dvec expected, got = dv_load(out_positions_b + 3 * j);
        for (k = 0; k < c->influences; ++k) sum += (double)c->weights[j * c->influences + k];
        expected = dv_add(dv_load(out_positions_a + 3 * j), dv_scale(shift, sum));
        if (!within(dv_dist(expected, got), 2.0 * skin_tolerance(c->influences, size)))
            return fail(f, "vertex %d: translating every bone by (%.3g, %.3g, %.3g) moved it by %.3g too much", j, shift.x, shift.y,
                        shift.z, dv_dist(expected, got));
    }
    return 1;
}

/* Weights are used as given: scaling them all by s scales LBS's result by s. */
static int lbs_scales_with_its_weights(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    float s = (float)rng_log_range(&r, 0.1, 10.0);
    fk_skin_desc d = mesh_desc(c, c->bones, out_positions_a, NULL), scaled;
    int j, kk = c->influences;
    d.normals = NULL;
    scaled = d;
    for (j = 0; j < c->vertex_count * kk; ++j) weights_b[j] = s * c->weights[j];
    scaled.weights = weights_b;
    scaled.out_positions = out_positions_b;
    if (skin(0, &d) != FK_OK || skin(0, &scaled) != FK_OK) return fail(f, "fk_skin_lbs failed on a valid mesh");
    for (j = 0; j < c->vertex_count; ++j) {
        double size = (double)s * (dv_len(dv_load(c->positions + 3 * j)) + c->bone_reach);
        dvec expected = dv_scale(dv_load(out_positions_a + 3 * j), (double)s), got = dv_load(out_positions_b + 3 * j);
        if (!within(dv_dist(expected, got), 2.0 * skin_tolerance(kk, size)))
            return fail(f, "vertex %d: weights scaled by %.9g scaled the result by something else (off by %.3g)", j, (double)s,
                        dv_dist(expected, got));
    }
    return 1;
}

/* LBS and DQS are both exact for rigid motion: they agree (and equal that motion)
   when a vertex has one influence, and when all its bones share one transform,
   whatever the signs and lengths of the quaternions. */
static int lbs_and_dqs_agree_on_rigid_vertices(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    fk_skin_desc d = mesh_desc(c, c->bones, out_positions_a, out_normals_a), other;
    int j, i, dqs;
    /* One influence: the first of each vertex's list, through the strides of the full lists. */
    static float ones[MAX_VERTICES];
    for (j = 0; j < c->vertex_count; ++j) ones[j] = 1.0f;
    d.influences = 1;
    d.joint_stride = sizeof(uint16_t) * (size_t)c->influences;
    d.weights = ones;
    other = d;
    other.out_positions = out_positions_b;
    other.out_normals = out_normals_b;
    if (skin(0, &d) != FK_OK || skin(1, &other) != FK_OK) return fail(f, "skinning failed on a valid mesh");
    for (j = 0; j < c->vertex_count; ++j) {
        double size = dv_len(dv_load(c->positions + 3 * j)) + c->bone_reach;
        double error = dv_dist(dv_load(out_positions_a + 3 * j), dv_load(out_positions_b + 3 * j));
        if (!within(error, 2.0 * skin_tolerance(1, size)))
            return fail(f, "vertex %d with one influence: LBS and DQS differ by %.3g", j, error);
    }
    /* One transform for every bone, spelled with random signs and lengths. */
    for (i = 0; i < c->joint_count; ++i) {
        float scale = (float)rng_log_range(&r, 0.1, 10.0) * (rng_chance(&r, 2) ? -1.0f : 1.0f);
        fk_quat q = c->bones[0].q;
        bones_b[i] = fk_rigid_make(fk_quat_make(scale * q.x, scale * q.y, scale * q.z, scale * q.w), c->bones[0].t);
    }
    d = mesh_desc(c, bones_b, out_positions_a, out_normals_a);
    for (dqs = 0; dqs < 2; ++dqs) {
        if (skin(dqs, &d) != FK_OK) return fail(f, "%s failed on a valid mesh", method_names[dqs]);
        for (j = 0; j < c->vertex_count; ++j) {
            dvec p = dv_load(c->positions + 3 * j);
            double size = dv_len(p) + c->bone_reach;
            double error = dv_dist(apply_bone(c->bones, 0, p), dv_load(out_positions_a + 3 * j));
            if (!within(error, skin_tolerance(c->influences, size)))
                return fail(f, "%s: vertex %d, all of whose bones share one transform, is %.3g from its image", method_names[dqs], j, error);
        }
    }
    return 1;
}

/* q and -q are the same rotation, so negating any bone's quaternion changes nothing. */
static int dqs_ignores_quaternion_signs(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    fk_skin_desc d = mesh_desc(c, c->bones, out_positions_a, out_normals_a), flipped = d;
    int i, j;
    for (i = 0; i < c->joint_count; ++i) {
        fk_quat q = c->bones[i].q;
        bones_b[i] = c->bones[i];
        if (rng_chance(&r, 2)) bones_b[i].q = fk_quat_make(-q.x, -q.y, -q.z, -q.w);
    }
    flipped.transforms = bones_b;
    flipped.out_positions = out_positions_b;
    flipped.out_normals = out_normals_b;
    if (skin(1, &d) != FK_OK || skin(1, &flipped) != FK_OK) return fail(f, "fk_skin_dqs failed on a valid mesh");
    for (j = 0; j < c->vertex_count; ++j) {
        double size = dv_len(dv_load(c->positions + 3 * j)) + c->bone_reach;
        double error = dv_dist(dv_load(out_positions_a + 3 * j), dv_load(out_positions_b + 3 * j));
        double normal_error = dv_dist(dv_load(out_normals_a + 3 * j), dv_load(out_normals_b + 3 * j));
        if (!within(error, 2.0 * skin_tolerance(c->influences, size)) || !within(normal_error, 2.0 * skin_tolerance(c->influences, 1.0)))
            return fail(f, "vertex %d moved by %.3g (normal by %.3g) when some bones' quaternions were negated", j, error, normal_error);
    }
    return 1;
}

/* The candy wrapper, measured. Two bones along one axis, the second twisted by
   theta about it; a vertex at distance r from the axis, weighted w to the twisted
   bone and 1 - w to the other. DQS blends the two rigid motions into a rotation
   about the axis, so the vertex stays at distance r. LBS averages the two images,
   which lie on one circle theta apart, so the vertex moves inside the circle, to
       r |(1 - w) + w e^(i theta)| = r sqrt((1 - w)^2 + w^2 + 2 w (1 - w) cos theta),
   which is zero for w = 1/2 and theta = pi: the wrapper collapses. */
static int dqs_keeps_volume_under_twist(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    double scale = pow(10.0, c->size.magnitude), length = scale * rng_log_range(&r, 0.1, 10.0);
    double theta = rng_range(&r, 0.0, c->size.angle);
    drigid place = random_motion(&r, c); /* where the two bones are, in the rest pose */
    dvec axis = dq_rotate(place.q, dv3(1, 0, 0));
    int parents[2] = {-1, 0}, j, dqs;
    fk_vec3 rest[2];
    fk_quat rotations[2];
    fk_rigid bones[2];
    uint16_t joints[2 * MAX_VERTICES];
    float weights[2 * MAX_VERTICES], positions[3 * MAX_VERTICES], radius[MAX_VERTICES];
    fk_skin_desc d;
    rest[0] = fv(place.t);
    rest[1] = fv(dr_apply(place, dv3(length, 0, 0)));
    rotations[0] = fk_quat_identity();
    rotations[1] = fq(dq_axis_angle(axis, theta));
    if (forward(0, 2, parents, rest, rotations, NULL, bones) != FK_OK) return fail(f, "fk_forward failed on two bones");
    for (j = 0; j < c->vertex_count; ++j) {
        double w = rng_unit(&r), along = length * rng_range(&r, 0.5, 1.5), around = rng_range(&r, 0.0, 2.0 * PI);
        radius[j] = (float)(length * rng_range(&r, 0.1, 1.0));
        joints[2 * j] = 0; joints[2 * j + 1] = 1;
        weights[2 * j] = (float)(1.0 - w); weights[2 * j + 1] = (float)w;
        {
            dvec p = dr_apply(place, dv3(along, (double)radius[j] * cos(around), (double)radius[j] * sin(around)));
            positions[3 * j] = (float)p.x; positions[3 * j + 1] = (float)p.y; positions[3 * j + 2] = (float)p.z;
        }
    }
    memset(&d, 0, sizeof d);
    d.vertex_count = c->vertex_count; d.influences = 2; d.positions = positions; d.joints = joints; d.weights = weights;
    d.transforms = bones; d.transform_count = 2; d.out_positions = out_positions_a;
    for (dqs = 0; dqs < 2; ++dqs) {
        if (skin(dqs, &d) != FK_OK) return fail(f, "%s failed on two bones", method_names[dqs]);
        for (j = 0; j < c->vertex_count; ++j) {
            double w0 = (double)weights[2 * j], w1 = (double)weights[2 * j + 1], rj = (double)radius[j];
            dvec offset = dv_sub(dv_load(out_positions_a + 3 * j), place.t);
            double distance = dv_len(dv_sub(offset, dv_scale(axis, dv_dot(offset, axis))));
            double expected = dqs ? rj : rj * sqrt(w0 * w0 + w1 * w1 + 2.0 * w0 * w1 * cos(theta));
            double size = 2.0 * length + rj + dv_len(place.t);
            double tolerance = 2.0 * skin_tolerance(2, size) + chain_tolerance(1, size);
            if (!within(fabs(distance - expected), tolerance))
                return fail(f, "%s: twist %.9g rad, weight %.9g: vertex %d is %.9g from the axis, expected %.9g", method_names[dqs],
                            theta, w1, j, distance, expected);
        }
    }
    return 1;
}

/* Normals come out unit length: DQS rotates them; LBS renormalizes them (except
   where the blended matrix collapses the normal to rounding noise). */
static int normals_stay_unit(const prop_case *c, prop_failure *f)
{
    fk_skin_desc d = mesh_desc(c, c->bones, out_positions_a, out_normals_a);
    int dqs, j, k, kk = c->influences;
    for (dqs = 0; dqs < 2; ++dqs) {
        if (skin(dqs, &d) != FK_OK) return fail(f, "%s failed on a valid mesh", method_names[dqs]);
        for (j = 0; j < c->vertex_count; ++j) {
            double length = dv_len(dv_load(out_normals_a + 3 * j)), tolerance = dqs ? round_tolerance(1.0) : unit_tolerance();
            dvec blended = dv3(0, 0, 0);
            for (k = 0; k < kk; ++k) {
                int bone = c->joints[j * kk + k];
                blended = dv_add(blended, dv_scale(dq_rotate(dr(c->bones[bone]).q, dv_load(c->normals + 3 * j)),
                                                   (double)c->weights[j * kk + k]));
            }
            if (!dqs && dv_len(blended) <= skin_tolerance(kk, 1.0)) continue; /* collapsed to rounding: no direction is right */
            if (!within(fabs(length - 1.0), tolerance))
                return fail(f, "%s: normal of vertex %d has length %.9g (tolerance %.2g)", method_names[dqs], j, length, tolerance);
        }
    }
    return 1;
}

/* Tangents (x y z w, glTF's layout) move like normals: given each vertex's normal
   as its tangent's x y z, the tangent comes out as the normal path's answer made
   unit length (LBS's normals are already renormalized, DQS's only rotated), and
   its w -- +1, -1, -0 or a NaN with a payload -- arrives bit for bit. Random
   strides, in place or not. */
static int tangents_follow_normals_and_keep_their_handedness(const prop_case *c, prop_failure *f)
{
    enum { MAX_TANGENT_STRIDE = 32 };
    static float tangents[MAX_VERTICES * MAX_TANGENT_STRIDE / 4], out_tangents[MAX_VERTICES * MAX_TANGENT_STRIDE / 4];
    static const uint32_t handedness[4] = {0x3f800000u, 0xbf800000u, 0x80000000u, 0x7fc01234u};
    rng r = c->extra;
    size_t stride = 16 + 4 * (size_t)rng_below(&r, 5), out_stride = 16 + 4 * (size_t)rng_below(&r, 5);
    int in_place = rng_chance(&r, 2), kk = c->influences, dqs, j, k;
    fk_skin_desc d = mesh_desc(c, c->bones, out_positions_a, out_normals_a);
    for (j = 0; j < c->vertex_count; ++j) {
        float *t = (float *)(void *)((char *)tangents + (size_t)j * stride);
        memcpy(t, c->normals + 3 * j, 12);
        memcpy(t + 3, &handedness[rng_below(&r, 4)], 4);
    }
    d.tangents = tangents; d.tangent_stride = stride;
    d.out_tangents = in_place ? tangents : out_tangents;
    d.out_tangent_stride = in_place ? stride : out_stride;
    for (dqs = 0; dqs < 2; ++dqs) {
        static float rest[MAX_VERTICES * MAX_TANGENT_STRIDE / 4];
        memcpy(rest, tangents, sizeof rest);
        if (!in_place) poison(out_tangents, sizeof out_tangents);
        if (skin(dqs, &d) != FK_OK) return fail(f, "%s failed on a valid mesh with tangents", method_names[dqs]);
        for (j = 0; j < c->vertex_count; ++j) {
            const float *before = (const float *)(const void *)((const char *)rest + (size_t)j * stride);
            const float *after = (const float *)(const void *)((const char *)d.out_tangents + (size_t)j * d.out_tangent_stride);
            dvec normal = dv_load(out_normals_a + 3 * j), tangent = dv_load(after), blended = dv3(0, 0, 0);
            double length = dv_len(tangent), error;
            if (memcmp(before + 3, after + 3, 4) != 0)
                return fail(f, "%s (stride %zu, output stride %zu%s): tangent %d's w changed", method_names[dqs], stride,
                            d.out_tangent_stride, in_place ? ", in place" : "", j);
            for (k = 0; k < kk; ++k)
                blended = dv_add(blended, dv_scale(dq_rotate(dr(c->bones[c->joints[j * kk + k]]).q, dv_load(c->normals + 3 * j)),
                                                   (double)c->weights[j * kk + k]));
            if (!dqs && dv_len(blended) <= skin_tolerance(kk, 1.0)) continue; /* collapsed to rounding: no direction is right */
            if (!within(fabs(length - 1.0), unit_tolerance()))
                return fail(f, "%s: tangent %d has length %.9g", method_names[dqs], j, length);
            error = dv_dist(tangent, dv_scale(normal, 1.0 / dv_len(normal)));
            if (!within(error, unit_tolerance()))
                return fail(f, "%s: tangent %d is %.3g from its normal's direction", method_names[dqs], j, error);
        }
        if (in_place) memcpy(tangents, rest, sizeof rest); /* the next method starts from the rest tangents again */
    }
    return 1;
}

/* Influences with zero weight change nothing, wherever they are listed -- first
   included, where DQS must not let them choose the hemisphere to blend in. */
static int zero_weights_change_nothing(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    int kk = c->influences, k2 = kk + 1, j, k, dqs, slot[MAX_VERTICES];
    fk_skin_desc d = mesh_desc(c, c->bones, out_positions_a, out_normals_a), padded;
    if (kk == MAX_INFLUENCES) return 1; /* no room for another influence */
    for (j = 0; j < c->vertex_count; ++j) { /* one extra influence, weight 0, at a random place in the list */
        int from = 0;
        slot[j] = rng_below(&r, k2);
        for (k = 0; k < k2; ++k) {
            if (k == slot[j]) { joints_b[j * k2 + k] = (uint16_t)rng_below(&r, c->joint_count); weights_b[j * k2 + k] = 0.0f; continue; }
            joints_b[j * k2 + k] = c->joints[j * kk + from];
            weights_b[j * k2 + k] = c->weights[j * kk + from];
            ++from;
        }
    }
    padded = d;
    padded.influences = k2; padded.joints = joints_b; padded.weights = weights_b;
    padded.out_positions = out_positions_b; padded.out_normals = out_normals_b;
    for (dqs = 0; dqs < 2; ++dqs) {
        if (skin(dqs, &d) != FK_OK || skin(dqs, &padded) != FK_OK) return fail(f, "%s failed on a valid mesh", method_names[dqs]);
        for (j = 0; j < c->vertex_count; ++j) {
            double size = dv_len(dv_load(c->positions + 3 * j)) + c->bone_reach;
            double conditioning = dqs ? dqs_conditioning(c->bones, c->joints + kk * j, c->weights + kk * j, kk) : 1.0;
            double error = dv_dist(dv_load(out_positions_a + 3 * j), dv_load(out_positions_b + 3 * j));
            if (!within(error, 2.0 * conditioning * skin_tolerance(k2, size)))
                return fail(f, "%s: vertex %d moved by %.3g when joint %d with weight 0 was listed as its influence %d of %d",
                            method_names[dqs], j, error, joints_b[j * k2 + slot[j]], slot[j], k2);
        }
    }
    return 1;
}

static int lists_a_joint_twice(const uint16_t *joints, int influences)
{
    int a, b;
    for (a = 0; a < influences; ++a)
        for (b = a + 1; b < influences; ++b) if (joints[a] == joints[b]) return 1;
    return 0;
}

/* The influences of a vertex can be listed in any order (DQS: unless two share
   the largest weight, when the first listed chooses the hemisphere). */
static int influence_order_does_not_matter(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    int kk = c->influences, j, k, dqs, order[MAX_INFLUENCES];
    fk_skin_desc d = mesh_desc(c, c->bones, out_positions_a, out_normals_a), shuffled;
    for (j = 0; j < c->vertex_count; ++j) {
        for (k = 0; k < kk; ++k) order[k] = k;
        for (k = kk - 1; k > 0; --k) { int i = rng_below(&r, k + 1), swap = order[k]; order[k] = order[i]; order[i] = swap; }
        for (k = 0; k < kk; ++k) {
            joints_b[j * kk + k] = c->joints[j * kk + order[k]];
            weights_b[j * kk + k] = c->weights[j * kk + order[k]];
        }
    }
    shuffled = d;
    shuffled.joints = joints_b; shuffled.weights = weights_b;
    shuffled.out_positions = out_positions_b; shuffled.out_normals = out_normals_b;
    for (dqs = 0; dqs < 2; ++dqs) {
        if (skin(dqs, &d) != FK_OK || skin(dqs, &shuffled) != FK_OK) return fail(f, "%s failed on a valid mesh", method_names[dqs]);
        for (j = 0; j < c->vertex_count; ++j) {
            const float *w = c->weights + kk * j;
            double size = dv_len(dv_load(c->positions + 3 * j)) + c->bone_reach, error, normal_error;
            double conditioning = dqs ? dqs_conditioning(c->bones, c->joints + kk * j, w, kk) : 1.0;
            double normal_conditioning = dqs ? conditioning : lbs_normal_conditioning(c->bones, c->joints + kk * j, w, kk, c->normals + 3 * j);
            int heaviest = 0, ties = 0;
            for (k = 1; k < kk; ++k) if (w[k] > w[heaviest]) heaviest = k;
            for (k = 0; k < kk; ++k) ties += w[k] == w[heaviest];
            if (dqs && ties > 1) continue;
            error = dv_dist(dv_load(out_positions_a + 3 * j), dv_load(out_positions_b + 3 * j));
            normal_error = dv_dist(dv_load(out_normals_a + 3 * j), dv_load(out_normals_b + 3 * j));
            if (!within(error, 2.0 * conditioning * skin_tolerance(kk, size)) ||
                !within(normal_error, 2.0 * normal_conditioning * skin_tolerance(kk, 1.0)))
                return fail(f, "%s: vertex %d moved by %.3g (normal by %.3g) when its influences were listed in another order",
                            method_names[dqs], j, error, normal_error);
        }
    }
    return 1;
}

/* Interleaved vertex records with padding, an output with another stride, the
   output written over the input, and the dense (libigl) weight layout all give the
   results of tightly packed arrays. */
static int strides_and_layouts_do_not_matter(const prop_case *c, prop_failure *f)
{
    enum { MAX_RECORD = 4 * (3 + 3 + MAX_INFLUENCES) + 2 * MAX_INFLUENCES + 64 };
    static unsigned char in[MAX_VERTICES * MAX_RECORD], out[MAX_VERTICES * MAX_RECORD], copy[MAX_VERTICES * MAX_RECORD];
    static float out_normals[MAX_VERTICES * 8]; /* room for the longest stride, 32 bytes */
    static float dense[MAX_VERTICES * 64];
    rng r = c->extra;
    int kk = c->influences, j, k, dqs, layout;
    size_t normal_at = 12 + 4 * (size_t)rng_below(&r, 3), weights_at = normal_at + 12 + 4 * (size_t)rng_below(&r, 2);
    size_t joints_at = weights_at + 4 * (size_t)kk + 2 * (size_t)rng_below(&r, 2);
    size_t stride = (joints_at + 2 * (size_t)kk + 3) / 4 * 4 + 4 * (size_t)rng_below(&r, 4);
    /* Positions out with one stride, normals out to an array of their own with another. */
    size_t out_stride = 12 + 4 * (size_t)rng_below(&r, 4), out_normal_stride = out_stride + 4 + 4 * (size_t)rng_below(&r, 2);
    fk_skin_desc packed = mesh_desc(c, c->bones, out_positions_a, out_normals_a), strided;
    for (j = 0; j < c->vertex_count; ++j) {
        unsigned char *record = in + (size_t)j * stride;
        memcpy(record, c->positions + 3 * j, 12);
        memcpy(record + normal_at, c->normals + 3 * j, 12);
        memcpy(record + weights_at, c->weights + kk * j, 4 * (size_t)kk);
        memcpy(record + joints_at, c->joints + kk * j, 2 * (size_t)kk);
    }
    for (layout = 0; layout < 3; ++layout) {
        memset(&strided, 0, sizeof strided);
        strided.vertex_count = c->vertex_count; strided.influences = kk;
        strided.positions = (const float *)(const void *)in; strided.position_stride = stride;
        strided.normals = (const float *)(const void *)(in + normal_at); strided.normal_stride = stride;
        strided.weights = (const float *)(const void *)(in + weights_at); strided.weight_stride = stride;
        strided.joints = (const uint16_t *)(const void *)(in + joints_at); strided.joint_stride = stride;
        strided.transforms = c->bones; strided.transform_count = c->joint_count;
        strided.out_positions = (float *)(void *)out; strided.out_position_stride = out_stride;
        strided.out_normals = out_normals; strided.out_normal_stride = out_normal_stride;
        if (layout == 1) { /* in place: the output is the input (copied again before each call) */
            strided.positions = strided.out_positions = (float *)(void *)copy;
            strided.normals = strided.out_normals = (float *)(void *)(copy + normal_at);
            strided.out_position_stride = strided.out_normal_stride = stride;
        }
        if (layout == 2) { /* dense: a weight for every bone, joints == NULL (LBS only, see below) */
            if (c->joint_count > 64) continue;
            memset(dense, 0, sizeof dense);
            for (j = 0; j < c->vertex_count; ++j)
                for (k = 0; k < kk; ++k) dense[j * c->joint_count + c->joints[j * kk + k]] += c->weights[j * kk + k];
            strided.joints = NULL; strided.joint_stride = 0; strided.influences = c->joint_count;
            strided.weights = dense; strided.weight_stride = 0;
        }
        for (dqs = 0; dqs < 2; ++dqs) {
            if (skin(dqs, &packed) != FK_OK) return fail(f, "%s failed on packed arrays", method_names[dqs]);
            memcpy(copy, in, sizeof copy);
            if ((dqs ? fk_skin_dqs : fk_skin_lbs)(&strided) != FK_OK)
                return fail(f, "%s failed on %s records", method_names[dqs], layout == 0 ? "interleaved" : layout == 1 ? "in-place" : "dense");
            for (j = 0; j < c->vertex_count; ++j) {
                const unsigned char *base = (const unsigned char *)strided.out_positions;
                /* Dense weights add up a joint listed twice, which can change the heaviest
                   influence and with it the hemisphere DQS blends in. */
                if (layout == 2 && dqs && lists_a_joint_twice(c->joints + kk * j, kk)) continue;
                const unsigned char *normal_base = (const unsigned char *)strided.out_normals;
                float p[3], n[3];
                double size = dv_len(dv_load(c->positions + 3 * j)) + c->bone_reach;
                double error, normal_error;
                size_t at = (size_t)j * strided.out_position_stride, normal_offset = (size_t)j * strided.out_normal_stride;
                memcpy(p, base + at, 12);
                memcpy(n, normal_base + normal_offset, 12);
                error = dv_dist(dv_load(p), dv_load(out_positions_a + 3 * j));
                normal_error = dv_dist(dv_load(n), dv_load(out_normals_a + 3 * j));
                if (!within(error, 2.0 * skin_tolerance(layout == 2 ? c->joint_count : kk, size)) ||
                    !within(normal_error, 2.0 * skin_tolerance(layout == 2 ? c->joint_count : kk, 1.0)))
                    return fail(f, "%s, %s records (stride %zu, output stride %zu): vertex %d differs from packed arrays by %.3g, "
                                   "its normal by %.3g",
                                method_names[dqs], layout == 0 ? "interleaved" : layout == 1 ? "in-place" : "dense", stride,
                                strided.out_position_stride, j, error, normal_error);
            }
        }
    }
    return 1;
}

/* ==== 8. Quaternion algebra ========================================================= */

static int quaternion_product_is_associative(const prop_case *c, prop_failure *f)
{
    fk_quat a = c->quats[0], b = c->quats[1], q = c->quats[2];
    dquat left = dq(fk_quat_mul(fk_quat_mul(a, b), q)), right = dq(fk_quat_mul(a, fk_quat_mul(b, q)));
    dvec v = dv(c->point);
    dvec once = dv(fk_quat_rotate(fk_quat_mul(a, b), c->point)), twice = dv(fk_quat_rotate(a, fk_quat_rotate(b, c->point)));
    if (!within(quat_distance(left, right), round_tolerance(1.0)))
        return fail(f, "(a b) c and a (b c) differ by %.3g", quat_distance(left, right));
    if (!within(dv_dist(once, twice), 2.0 * round_tolerance(dv_len(v))))
        return fail(f, "rotating by a b is not rotating by b, then by a: off by %.3g", dv_dist(once, twice));
    return 1;
}

static int inverses_undo(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    double length = rng_log_range(&r, 1e-3, 1e3);
    fk_quat q = fq(dq_scale(dq(c->quats[0]), length));
    dquat product = dq(fk_quat_mul(q, fk_quat_inverse(q))), unit_product = dq(fk_quat_mul(c->quats[0], fk_quat_conjugate(c->quats[0])));
    fk_rigid motion = fk_rigid_make(c->quats[1], c->point);
    fk_vec3 p = fv(random_vector(&r, pow(10.0, c->size.magnitude)));
    dvec back = dv(fk_rigid_apply(fk_rigid_inverse(motion), fk_rigid_apply(motion, p)));
    double size = 2.0 * (dv_len(dv(p)) + dv_len(dv(c->point)));
    if (!within(quat_distance(product, dq4(0, 0, 0, 1)), round_tolerance(1.0)))
        return fail(f, "q inverse(q) = (%.9g, %.9g, %.9g, %.9g) for |q| = %.3g", product.x, product.y, product.z, product.w, length);
    if (!within(quat_distance(unit_product, dq4(0, 0, 0, 1)), round_tolerance(1.0)))
        return fail(f, "q conjugate(q) is not the identity for a unit q");
    if (!within(dv_dist(back, dv(p)), 2.0 * round_tolerance(size)))
        return fail(f, "inverse(r)(r(p)) is %.3g from p", dv_dist(back, dv(p)));
    return 1;
}

static int matrix_conversions_round_trip(const prop_case *c, prop_failure *f)
{
    float m[9], m34[12];
    int i, j, k;
    fk_quat q = c->quats[0];
    dvec v = dv(c->point), by_matrix;
    fk_rigid motion = fk_rigid_make(c->quats[1], c->point), back;
    fk_quat_to_mat3(q, m);
    for (i = 0; i < 3; ++i) /* orthonormal rows */
        for (j = 0; j < 3; ++j) {
            double dot = 0.0;
            for (k = 0; k < 3; ++k) dot += (double)m[3 * i + k] * (double)m[3 * j + k];
            if (!within(fabs(dot - (i == j ? 1.0 : 0.0)), round_tolerance(1.0)))
                return fail(f, "fk_quat_to_mat3: rows %d and %d have dot product %.9g", i, j, dot);
        }
    by_matrix = dv3((double)m[0] * v.x + (double)m[1] * v.y + (double)m[2] * v.z, (double)m[3] * v.x + (double)m[4] * v.y + (double)m[5] * v.z,
                    (double)m[6] * v.x + (double)m[7] * v.y + (double)m[8] * v.z);
    if (!within(dv_dist(by_matrix, dv(fk_quat_rotate(q, c->point))), 2.0 * round_tolerance(dv_len(v))))
        return fail(f, "the matrix of q and q itself rotate a point %.3g apart", dv_dist(by_matrix, dv(fk_quat_rotate(q, c->point))));
    if (!within(quat_distance(dq(fk_quat_from_mat3(m)), dq(q)), round_tolerance(1.0)))
        return fail(f, "fk_quat_from_mat3(fk_quat_to_mat3(q)) is %.3g from +-q", quat_distance(dq(fk_quat_from_mat3(m)), dq(q)));
    fk_rigid_to_mat34(motion, m34);
    back = fk_rigid_from_mat34(m34);
    if (!within(quat_distance(dq(back.q), dq(motion.q)), round_tolerance(1.0)) || dv_dist(dv(back.t), dv(motion.t)) != 0.0)
        return fail(f, "fk_rigid_from_mat34(fk_rigid_to_mat34(r)) differs from r");
    {
        fk_rigid from_dual = fk_dual_quat_to_rigid(fk_rigid_to_dual_quat(motion));
        double error = dv_dist(dv(from_dual.t), dv(motion.t));
        if (!within(quat_distance(dq(from_dual.q), dq(motion.q)), round_tolerance(1.0)) || !within(error, round_tolerance(dv_len(dv(motion.t)))))
            return fail(f, "fk_dual_quat_to_rigid(fk_rigid_to_dual_quat(r)) is %.3g from r", error);
    }
    {
        fk_vec3 axis;
        float angle;
        fk_quat_to_axis_angle(q, &axis, &angle);
        if (!(angle >= 0.0f && (double)angle <= PI + EPS) ||
            !within(quat_distance(dq(fk_quat_from_axis_angle(axis, angle)), dq(q)), round_tolerance(1.0)))
            return fail(f, "axis-angle round trip: angle %.9g, back to %.3g from +-q", (double)angle,
                        quat_distance(dq(fk_quat_from_axis_angle(axis, angle)), dq(q)));
    }
    return 1;
}

/* slerp(a, b, 0) = a, slerp(a, b, 1) = +-b, and in between it turns at constant
   speed along the shorter arc: the angle from a is t times the whole angle. */
static int slerp_turns_at_constant_speed(const prop_case *c, prop_failure *f)
{
    dquat a = dq(c->quats[0]), b = dq(c->quats[1]);
    double t = (double)c->t, whole = dq_angle(a, b);
    dquat s = dq(fk_quat_slerp(c->quats[0], c->quats[1], c->t));
    double tolerance = 2.0 * round_tolerance(1.0);
    if (!within(quat_distance(dq(fk_quat_slerp(c->quats[0], c->quats[1], 0.0f)), a), unit_tolerance()) ||
        !within(quat_distance(dq(fk_quat_slerp(c->quats[0], c->quats[1], 1.0f)), b), unit_tolerance()))
        return fail(f, "slerp does not start at a and end at +-b");
    if (!within(fabs(dq_len(s) - 1.0), unit_tolerance())) return fail(f, "slerp at t = %.9g has length %.9g", t, dq_len(s));
    if (!within(fabs(dq_angle(a, s) - t * whole), tolerance) || !within(fabs(dq_angle(s, b) - (1.0 - t) * whole), tolerance))
        return fail(f, "slerp at t = %.9g is %.9g rad from a and %.9g from b; the whole angle is %.9g", t, dq_angle(a, s), dq_angle(s, b), whole);
    return 1;
}

/* fk_quat_from_euler(fk_quat_to_euler(q)) = +-q in all six orders, with the
   angles in their documented ranges; also near gimbal lock (middle angle +-pi/2). */
static int euler_angles_round_trip(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    int order;
    for (order = 0; order < 6; ++order) {
        fk_quat q = c->quats[order % 3];
        fk_vec3 angles, near_lock;
        double error;
        if (rng_chance(&r, 2)) { /* a rotation near gimbal lock in this order */
            double middle = (rng_chance(&r, 2) ? 0.5 : -0.5) * PI + (rng_chance(&r, 4) ? 0.0 : rng_log_range(&r, 1e-8, 1e-1) * (rng_chance(&r, 2) ? 1 : -1));
            near_lock = fk_vec3_make((float)rng_range(&r, -PI, PI), (float)rng_range(&r, -PI, PI), (float)rng_range(&r, -PI, PI));
            {
                static const int middle_axis[6] = {1, 2, 0, 2, 0, 1};
                if (middle_axis[order] == 0) near_lock.x = (float)middle;
                else if (middle_axis[order] == 1) near_lock.y = (float)middle;
                else near_lock.z = (float)middle;
            }
            q = fk_quat_from_euler(near_lock, (fk_euler_order)order);
        }
        angles = fk_quat_to_euler(q, (fk_euler_order)order);
        if (!(fabs((double)angles.x) <= PI + EPS && fabs((double)angles.y) <= PI + EPS && fabs((double)angles.z) <= PI + EPS))
            return fail(f, "order %d: angles (%.9g, %.9g, %.9g) out of range", order, (double)angles.x, (double)angles.y, (double)angles.z);
        error = quat_distance(dq(fk_quat_from_euler(angles, (fk_euler_order)order)), dq(q));
        if (!within(error, 2.0 * round_tolerance(1.0)))
            return fail(f, "order %d: q = (%.9g, %.9g, %.9g, %.9g) -> angles (%.9g, %.9g, %.9g) -> a quaternion %.3g from +-q",
                        order, (double)q.x, (double)q.y, (double)q.z, (double)q.w, (double)angles.x, (double)angles.y,
                        (double)angles.z, error);
    }
    return 1;
}

/* ==== 9. Robustness ================================================================= */

static int finite_input_gives_finite_output(const prop_case *c, prop_failure *f)
{
    /* Coordinates from 1e-30 to 1e30 times the case's, quaternions of any length
       whose square stays within float range, weights of any size. */
    rng r = c->extra;
    prop_case *m = (prop_case *)malloc(sizeof *m);
    double coordinates = pow(10.0, rng_range(&r, -30.0, 30.0) - c->size.magnitude - 4.0);
    int i, j, dqs, rest_frame, ok = 1;
    fk_skin_desc d;
    *m = *c;
    for (i = 0; i < m->joint_count; ++i) {
        double q_scale = pow(10.0, rng_range(&r, -15.0, 15.0));
        m->rest[i] = fv(dv_scale(dv(c->rest[i]), coordinates));
        m->translations[i] = fv(dv_scale(dv(c->translations[i]), coordinates));
        m->rotations[i] = fq(dq_scale(dq(c->rotations[i]), q_scale));
        m->bones[i] = fk_rigid_make(fq(dq_scale(dq(c->bones[i].q), q_scale)), fv(dv_scale(dv(c->bones[i].t), coordinates)));
    }
    for (j = 0; j < 3 * m->vertex_count; ++j) m->positions[j] = (float)((double)m->positions[j] * coordinates);
    for (j = 0; j < m->vertex_count * m->influences; ++j) m->weights[j] = (float)((double)m->weights[j] * rng_log_range(&r, 1e-3, 1e3));
    if (rng_chance(&r, 4)) m->normals[0] = m->normals[1] = m->normals[2] = 0.0f;
    for (rest_frame = 0; rest_frame < 2 && ok; ++rest_frame) {
        if (forward_case(rest_frame, m, transforms_a) != FK_OK) { ok = fail(f, "%s rejected finite input", convention_names[rest_frame]); break; }
        fk_posed_joints(m->joint_count, m->rest, transforms_a, posed_a);
        for (i = 0; i < m->joint_count && ok; ++i)
            if (!isfinite((double)transforms_a[i].q.w) || !dv_finite(dv3((double)transforms_a[i].q.x, (double)transforms_a[i].q.y, (double)transforms_a[i].q.z)) ||
                !dv_finite(dv(transforms_a[i].t)) || !dv_finite(dv(posed_a[i])))
                ok = fail(f, "%s: joint %d's transform is not finite (coordinates scaled by %.3g)", convention_names[rest_frame], i, coordinates);
    }
    d = mesh_desc(m, m->bones, out_positions_a, out_normals_a);
    for (dqs = 0; dqs < 2 && ok; ++dqs) {
        if (skin(dqs, &d) != FK_OK) { ok = fail(f, "%s rejected finite input", method_names[dqs]); break; }
        for (j = 0; j < m->vertex_count && ok; ++j)
            if (!dv_finite(dv_load(out_positions_a + 3 * j)) || !dv_finite(dv_load(out_normals_a + 3 * j)))
                ok = fail(f, "%s: vertex %d is not finite (coordinates scaled by %.3g)", method_names[dqs], j, coordinates);
    }
    free(m);
    return ok;
}

static int is_identity(const fk_rigid *r)
{
    return r->q.x == 0.0f && r->q.y == 0.0f && r->q.z == 0.0f && r->q.w == 1.0f && r->t.x == 0.0f && r->t.y == 0.0f && r->t.z == 0.0f;
}

/* Every defect a parent array can have gets its documented code, from both
   conventions and from fk_validate_skeleton(), and fk_forward() leaves identities. */
static int bad_parent_arrays_are_rejected(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    int n = c->joint_count, defect = rng_below(&r, 3), i, rest_frame, expected = FK_ERROR_CYCLE;
    static const char *const defect_names[3] = {"a cycle", "a joint its own parent", "a parent out of range"};
    memcpy(parents_b, c->parents, sizeof(int) * (size_t)n);
    if (defect == 0 && n < 2) defect = 1 + rng_below(&r, 2);
    if (defect == 0) {
        /* Point a joint at one of its own descendants (or pair two roots). */
        int below = -1, tries;
        for (tries = 0; tries < 8 && below < 0; ++tries) { int j = rng_below(&r, n); if (c->depth[j] > 0) below = j; }
        if (below < 0) { int a = rng_below(&r, n), b = (a + 1 + rng_below(&r, n - 1)) % n; parents_b[a] = b; parents_b[b] = a; }
        else {
            int above = parents_b[below], steps = rng_below(&r, c->depth[below]);
            while (steps-- > 0 && parents_b[above] >= 0) above = parents_b[above];
            parents_b[above] = below;
        }
    } else if (defect == 1) {
        i = rng_below(&r, n); parents_b[i] = i; expected = FK_ERROR_SELF_PARENT;
    } else {
        i = rng_below(&r, n); parents_b[i] = rng_chance(&r, 4) ? 0x7fffffff : n + rng_below(&r, 3); expected = FK_ERROR_PARENT_OUT_OF_RANGE;
    }
    for (rest_frame = 0; rest_frame < 2; ++rest_frame) {
        fk_result result = forward(rest_frame, n, parents_b, c->rest, c->rotations, case_translations(c), transforms_a);
        if ((int)result != expected)
            return fail(f, "%s on %s returned \"%s\", not \"%s\"", convention_names[rest_frame], defect_names[defect],
                        fk_result_description(result), fk_result_description((fk_result)expected));
        for (i = 0; i < n; ++i)
            if (!is_identity(&transforms_a[i])) return fail(f, "%s on %s left joint %d's output not the identity", convention_names[rest_frame], defect_names[defect], i);
    }
    if ((int)fk_validate_skeleton(n, parents_b) != expected)
        return fail(f, "fk_validate_skeleton on %s returned \"%s\"", defect_names[defect], fk_result_description(fk_validate_skeleton(n, parents_b)));
    if (fk_validate_skeleton(n, c->parents) != FK_OK) return fail(f, "fk_validate_skeleton rejected a valid skeleton");
    return 1;
}

/* A rotation that cannot be normalized or a coordinate that is not finite gets
   its documented code, in FK and in skinning. */
static int bad_values_are_rejected(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    int n = c->joint_count, at = rng_below(&r, n), kind = rng_below(&r, 3), rest_frame, dqs;
    float bad = rng_chance(&r, 2) ? nanf("") : (rng_chance(&r, 2) ? 1.0f : -1.0f) * HUGE_VALF;
    fk_result expected = kind == 0 ? FK_ERROR_INVALID_ROTATION : FK_ERROR_NOT_FINITE;
    fk_skin_desc d;
    memcpy(quats_b, c->rotations, sizeof(fk_quat) * (size_t)n);
    memcpy(rest_b, c->rest, sizeof(fk_vec3) * (size_t)n);
    memcpy(translations_b, c->translations, sizeof(fk_vec3) * (size_t)n);
    memcpy(bones_b, c->bones, sizeof(fk_rigid) * (size_t)n);
    if (kind == 0) {
        fk_quat q = rng_chance(&r, 2) ? fk_quat_make(0.0f, 0.0f, 0.0f, 0.0f) : fk_quat_make(0.0f, bad, 0.0f, 1.0f);
        quats_b[at] = q; bones_b[at].q = q;
    } else if (kind == 1) {
        rest_b[at].y = bad; bones_b[at].t.z = bad;
    } else {
        translations_b[at].x = bad; bones_b[at].t.x = bad;
    }
    for (rest_frame = 0; rest_frame < 2; ++rest_frame) {
        fk_result result = forward(rest_frame, n, c->parents, rest_b, quats_b, translations_b, transforms_a);
        if (result != expected)
            return fail(f, "%s with a bad value at joint %d returned \"%s\", not \"%s\"", convention_names[rest_frame], at,
                        fk_result_description(result), fk_result_description(expected));
    }
    d = mesh_desc(c, bones_b, out_positions_a, out_normals_a);
    for (dqs = 0; dqs < 2; ++dqs) {
        fk_result result = skin(dqs, &d);
        if (result != expected)
            return fail(f, "%s with a bad transform %d returned \"%s\"", method_names[dqs], at, fk_result_description(result));
    }
    for (dqs = 0; dqs < 2; ++dqs)
        if (fk_skin_validate(&d, dqs ? FK_SKIN_DQS : FK_SKIN_LBS) != expected)
            return fail(f, "fk_skin_validate missed a bad transform");
    return 1;
}

/* Bad skinning descriptors: a joint index out of range is reported by all three
   functions (and fk_skin_validate writes nothing); a bad stride, count or missing
   pointer is reported before anything is written. */
static int bad_skin_descriptors_are_rejected(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    fk_skin_desc d = mesh_desc(c, c->bones, out_positions_a, out_normals_a);
    int kind = rng_below(&r, 6), dqs, j;
    fk_result expected, result;
    memcpy(joints_b, c->joints, sizeof(uint16_t) * (size_t)(c->vertex_count * c->influences));
    d.joints = joints_b;
    switch (kind) {
    case 0: /* a joint index at or beyond transform_count */
        joints_b[rng_below(&r, c->vertex_count * c->influences)] = (uint16_t)(c->joint_count + rng_below(&r, 3));
        expected = FK_ERROR_JOINT_OUT_OF_RANGE; break;
    case 1: /* a stride smaller than its element */
        d.position_stride = 4 + 4 * (size_t)rng_below(&r, 2); expected = FK_ERROR_INVALID_STRIDE; break;
    case 2: /* a stride that is not a multiple of the element's alignment */
        d.out_normal_stride = 13 + 4 * (size_t)rng_below(&r, 2); expected = FK_ERROR_INVALID_STRIDE; break;
    case 3: /* no influences, or a negative count */
        if (rng_chance(&r, 2)) d.influences = 0; else d.vertex_count = -1 - rng_below(&r, 5);
        expected = FK_ERROR_INVALID_COUNT; break;
    case 4: /* normals without an output for them */
        d.out_normals = NULL; expected = FK_ERROR_NULL_ARGUMENT; break;
    default: /* dense weights need one weight per transform */
        d.joints = NULL; d.influences = c->joint_count + 1; expected = FK_ERROR_INVALID_COUNT; break;
    }
    for (dqs = 0; dqs < 2; ++dqs)
        if ((result = fk_skin_validate(&d, dqs ? FK_SKIN_DQS : FK_SKIN_LBS)) != expected)
            return fail(f, "fk_skin_validate returned \"%s\", not \"%s\"", fk_result_description(result),
                        fk_result_description(expected));
    for (dqs = 0; dqs < 2; ++dqs) {
        memset(out_positions_a, 0x7f, sizeof out_positions_a); /* a pattern no result has */
        result = dqs ? fk_skin_dqs(&d) : fk_skin_lbs(&d);
        if (result != expected)
            return fail(f, "%s returned \"%s\", not \"%s\"", method_names[dqs], fk_result_description(result), fk_result_description(expected));
        if (kind != 0)
            for (j = 0; j < 3 * MAX_VERTICES; ++j)
                if (((unsigned char *)out_positions_a)[4 * j] != 0x7f)
                    return fail(f, "%s wrote output before reporting \"%s\"", method_names[dqs], fk_result_description(expected));
    }
    return 1;
}

/* No function writes to its inputs. */
static int inputs_are_never_modified(const prop_case *c, prop_failure *f)
{
    prop_case *before = (prop_case *)malloc(sizeof *before);
    fk_skin_desc d = mesh_desc(c, c->bones, out_positions_a, out_normals_a);
    int ok = 1;
    memcpy(before, c, sizeof *before);
    forward_case(0, c, transforms_a);
    forward_case(1, c, transforms_a);
    fk_validate_skeleton(c->joint_count, c->parents);
    fk_posed_joints(c->joint_count, c->rest, transforms_a, posed_a);
    fk_skin_validate(&d, FK_SKIN_LBS);
    fk_skin_validate(&d, FK_SKIN_DQS);
    skin(0, &d);
    skin(1, &d);
    if (memcmp(before, c, sizeof *before) != 0) ok = fail(f, "a function wrote to one of its inputs");
    free(before);
    return ok;
}

/* ---- The suite ------------------------------------------------------------------ */

#define PROPERTY(name, uses) {#name, name, uses, 0.0}
/* ==== 10. Scale ===================================================================
   Joints that scale give affine transforms, compared here with products of
   3x4 matrices in double. A few joints of each case scale (at most six, so that
   scales of up to 2 cannot compound down a long chain past float's range),
   some non-uniformly, some by zero, some mirrored. */

typedef struct dmat { double m[12]; } dmat; /* [A | t], row-major */

static dmat dm_identity(void)
{
    dmat a;
    memset(&a, 0, sizeof a);
    a.m[0] = a.m[5] = a.m[10] = 1.0;
    return a;
}

static dmat dm_mul(const dmat *a, const dmat *b)
{
    dmat r;
    int row, col;
    for (row = 0; row < 3; ++row)
        for (col = 0; col < 4; ++col)
            r.m[4 * row + col] = a->m[4 * row] * b->m[col] + a->m[4 * row + 1] * b->m[4 + col] +
                                 a->m[4 * row + 2] * b->m[8 + col] + (col == 3 ? a->m[4 * row + 3] : 0.0);
    return r;
}

static dvec dm_point(const dmat *a, dvec p)
{
    return dv3(a->m[0] * p.x + a->m[1] * p.y + a->m[2] * p.z + a->m[3], a->m[4] * p.x + a->m[5] * p.y + a->m[6] * p.z + a->m[7],
               a->m[8] * p.x + a->m[9] * p.y + a->m[10] * p.z + a->m[11]);
}

static dvec dm_direction(const dmat *a, dvec v)
{
    return dv3(a->m[0] * v.x + a->m[1] * v.y + a->m[2] * v.z, a->m[4] * v.x + a->m[5] * v.y + a->m[6] * v.z,
               a->m[8] * v.x + a->m[9] * v.y + a->m[10] * v.z);
}

/* sqrt of the sum of squares, plus 1 for the homogeneous row: bounds how much
   the matrix magnifies (v, 1), and so the errors it carries down a chain. */
static double dm_size(const dmat *a)
{
    double sum = 0.0;
    int e;
    for (e = 0; e < 12; ++e) sum += a->m[e] * a->m[e];
    return sqrt(sum) + 1.0;
}

static dmat dm_of_floats(const float *f)
{
    dmat a;
    int e;
    for (e = 0; e < 12; ++e) a.m[e] = (double)f[e];
    return a;
}

static double dm_distance(const dmat *a, const float *f)
{
    double worst = 0.0;
    int e;
    for (e = 0; e < 12; ++e)
        if (fabs(a->m[e] - (double)f[e]) > worst || a->m[e] != a->m[e]) worst = fabs(a->m[e] - (double)f[e]);
    return worst;
}

/* [R S | t] of a rotation (normalized here), a scale and a translation column. */
static dmat dm_rotation_scale(dquat q, dvec scale, dvec t)
{
    dvec x = dq_rotate(q, dv3(scale.x, 0, 0)), y = dq_rotate(q, dv3(0, scale.y, 0)), z = dq_rotate(q, dv3(0, 0, scale.z));
    dmat a;
    a.m[0] = x.x; a.m[1] = y.x; a.m[2] = z.x; a.m[3] = t.x;
    a.m[4] = x.y; a.m[5] = y.y; a.m[6] = z.y; a.m[7] = t.y;
    a.m[8] = x.z; a.m[9] = y.z; a.m[10] = z.z; a.m[11] = t.z;
    return a;
}

static fk_vec3 scales_b[MAX_JOINTS];
static float world_a[12 * MAX_JOINTS], world_b[12 * MAX_JOINTS];
static dmat reference_world[MAX_JOINTS];
static double reference_bound[MAX_JOINTS];
static unsigned char reference_done[MAX_JOINTS];

static void draw_scales(rng *r, int count, fk_vec3 *scales)
{
    int i, c, scaled = count < 6 ? count : 6;
    for (i = 0; i < count; ++i) scales[i] = fk_vec3_make(1.0f, 1.0f, 1.0f);
    for (i = 0; i < scaled; ++i) {
        float s[3];
        for (c = 0; c < 3; ++c) {
            int pick = rng_below(r, 10);
            s[c] = pick == 0 ? 0.0f : (float)(rng_log_range(r, 0.5, 2.0) * (pick == 1 ? -1.0 : 1.0));
        }
        if (rng_chance(r, 3)) s[1] = s[2] = s[0]; /* uniform */
        scales[rng_below(r, count)] = fk_vec3_make(s[0], s[1], s[2]);
    }
}

/* Joint i's world matrix in double, its parent's first (any order; memoized,
   and without recursion: chains reach thousands of joints), and a bound on the
   float result's error in units of EPS: the parent's error carried through
   the local matrix L, the parent times L's own rounding, and the product's
   rounding, E_i = E_p |L| + |W_p| |L| + |W_i|. trs: glTF's T(d) R S; else
   fk_forward_scaled()'s T(x + d) R S T(-x). */
static int reference_path[MAX_JOINTS];

static void reference_scaled_joint(const prop_case *c, const fk_vec3 *translations, const fk_vec3 *scales, int trs, int i)
{
    int p = c->parents[i];
    dquat q = dq_unit(dq(c->rotations[i]));
    dvec x = trs ? dv3(0, 0, 0) : dv(c->rest[i]), d = translations ? dv(translations[i]) : dv3(0, 0, 0);
    dmat local = dm_rotation_scale(q, dv(scales[i]), dv3(0, 0, 0)), parent = p < 0 ? dm_identity() : reference_world[p];
    dvec moved = dm_direction(&local, x);
    double parent_bound = p < 0 ? 0.0 : reference_bound[p];
    local.m[3] = x.x + d.x - moved.x; local.m[7] = x.y + d.y - moved.y; local.m[11] = x.z + d.z - moved.z;
    reference_world[i] = dm_mul(&parent, &local);
    /* L's translation x + d - R S x rounds relative to its terms, not itself */
    reference_bound[i] = parent_bound * dm_size(&local) +
                         dm_size(&parent) * (dm_size(&local) + dv_len(x) * dm_size(&local) + dv_len(d)) +
                         dm_size(&reference_world[i]);
    reference_done[i] = 1;
}

static void reference_scaled(const prop_case *c, const fk_vec3 *translations, const fk_vec3 *scales, int trs, int i)
{
    int length = 0;
    while (i >= 0 && !reference_done[i]) { /* up to the first finished ancestor */
        reference_path[length++] = i;
        i = c->parents[i];
    }
    while (length > 0) reference_scaled_joint(c, translations, scales, trs, reference_path[--length]);
}

static void reference_scaled_all(const prop_case *c, const fk_vec3 *translations, const fk_vec3 *scales, int trs)
{
    int i;
    memset(reference_done, 0, (size_t)c->joint_count);
    for (i = 0; i < c->joint_count; ++i) reference_scaled(c, translations, scales, trs, i);
}

static fk_result forward_scaled(int trs, const prop_case *c, const fk_vec3 *scales, float *out)
{
    poison(out, sizeof(float) * 12 * (size_t)c->joint_count);
    return trs ? fk_forward_trs(c->joint_count, c->parents, c->translations, c->rotations, scales, out)
               : fk_forward_scaled(c->joint_count, c->parents, c->rest, c->rotations, case_translations(c), scales, out);
}

static const char *const scaled_names[2] = {"fk_forward_scaled", "fk_forward_trs"};

static int scaled_forward_matches_a_double_reference(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    int trs, i;
    draw_scales(&r, c->joint_count, scales_b);
    for (trs = 0; trs < 2; ++trs) {
        if (forward_scaled(trs, c, scales_b, world_a) != FK_OK) return fail(f, "%s failed on a valid skeleton", scaled_names[trs]);
        reference_scaled_all(c, trs ? c->translations : case_translations(c), scales_b, trs);
        for (i = 0; i < c->joint_count; ++i) {
            double error = dm_distance(&reference_world[i], world_a + 12 * i), tolerance = 2.0 * ROUND_ULPS * EPS * reference_bound[i];
            if (!within(error, tolerance))
                return fail(f, "%s: joint %d (depth %d) is %.3g from the double reference (tolerance %.2g)", scaled_names[trs], i,
                            c->depth[i], error, tolerance);
        }
    }
    return 1;
}

/* Whatever the scales, joint i's pivot x_i + d_i lands where its parent's
   matrix sends it (glTF's form: joint i's origin lands at its translation in
   the parent's frame). */
static int scaled_joints_stay_attached(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    int trs, i;
    draw_scales(&r, c->joint_count, scales_b);
    for (trs = 0; trs < 2; ++trs) {
        const fk_vec3 *translations = trs ? c->translations : case_translations(c);
        if (forward_scaled(trs, c, scales_b, world_a) != FK_OK) return fail(f, "%s failed on a valid skeleton", scaled_names[trs]);
        reference_scaled_all(c, translations, scales_b, trs);
        for (i = 0; i < c->joint_count; ++i) {
            int p = c->parents[i];
            dvec x = trs ? dv3(0, 0, 0) : dv(c->rest[i]), pivot = dv_add(x, translations ? dv(translations[i]) : dv3(0, 0, 0));
            dmat here = dm_of_floats(world_a + 12 * i), parent = p < 0 ? dm_identity() : dm_of_floats(world_a + 12 * p);
            double error = dv_dist(dm_point(&here, x), dm_point(&parent, pivot));
            double tolerance = 2.0 * ROUND_ULPS * EPS *
                               (reference_bound[i] * (dv_len(x) + 1.0) + (p < 0 ? 0.0 : reference_bound[p]) * (dv_len(pivot) + 1.0));
            if (!within(error, tolerance))
                return fail(f, "%s: joint %d (depth %d, parent %d) is %.3g from where its parent puts it (tolerance %.2g)",
                            scaled_names[trs], i, c->depth[i], p, error, tolerance);
        }
    }
    return 1;
}

/* With every scale 1 (given, or NULL), fk_forward_scaled() is fk_forward(). */
static int unit_scales_give_fk_forward(const prop_case *c, prop_failure *f)
{
    int i, e;
    for (i = 0; i < c->joint_count; ++i) scales_b[i] = fk_vec3_make(1.0f, 1.0f, 1.0f);
    if (forward_case(0, c, transforms_a) != FK_OK) return fail(f, "fk_forward failed on a valid skeleton");
    if (forward_scaled(0, c, NULL, world_a) != FK_OK || forward_scaled(0, c, scales_b, world_b) != FK_OK)
        return fail(f, "fk_forward_scaled failed on a valid skeleton");
    if (memcmp(world_a, world_b, sizeof(float) * 12 * (size_t)c->joint_count) != 0)
        return fail(f, "NULL scales and scales of 1 give different bits");
    for (i = 0; i < c->joint_count; ++i) {
        float rigid[12];
        double size = c->reach[i] + dv_len(dv(c->rest[i])), worst = 0.0;
        fk_rigid_to_mat34(transforms_a[i], rigid);
        for (e = 0; e < 12; ++e) {
            double error = fabs((double)rigid[e] - (double)world_a[12 * i + e]);
            if (error > worst) worst = error;
        }
        if (!within(worst, chain_tolerance(c->depth[i], size + 1.0)))
            return fail(f, "joint %d (depth %d): fk_forward_scaled differs from fk_forward by %.3g (tolerance %.2g)", i,
                        c->depth[i], worst, chain_tolerance(c->depth[i], size + 1.0));
    }
    return 1;
}

/* The blended linear part A of vertex j's matrices (12 floats per joint), in
   double, and its cofactor normal sign(det A) cof(A) n, not normalized. */
static dvec affine_blend_normal(const float *matrices, const uint16_t *joints, const float *weights, int influences,
                                const float *normal, double *det, double *volume, double *terms)
{
    dvec column[3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, n = dv_load(normal), m;
    double size[3] = {0, 0, 0};
    int k, e;
    for (k = 0; k < influences; ++k) {
        const float *a = matrices + 12 * (size_t)joints[k];
        double w = (double)weights[k];
        for (e = 0; e < 3; ++e) {
            dvec col = dv3((double)a[e], (double)a[4 + e], (double)a[8 + e]);
            column[e] = dv_add(column[e], dv_scale(col, w));
            size[e] += fabs(w) * (fabs(col.x) + fabs(col.y) + fabs(col.z));
        }
    }
    m = dv_add(dv_add(dv_scale(dv_cross(column[1], column[2]), n.x), dv_scale(dv_cross(column[2], column[0]), n.y)),
               dv_scale(dv_cross(column[0], column[1]), n.z));
    *det = dv_dot(column[0], dv_cross(column[1], column[2]));
    *volume = size[0] * size[1] * size[2];
    *terms = fabs(n.x) * size[1] * size[2] + fabs(n.y) * size[2] * size[0] + fabs(n.z) * size[0] * size[1];
    return *det < 0.0 ? dv_scale(m, -1.0) : m;
}

/* The cofactor normal's rounding is relative to the sizes of its terms (T,
   products of two blended columns' sizes); renormalizing by its length L
   magnifies that by T / L. */
static double affine_normal_conditioning(const float *matrices, const prop_case *c, int j)
{
    const int k = c->influences;
    double det, volume, terms, length = dv_len(affine_blend_normal(matrices, c->joints + j * k, c->weights + j * k, k,
                                                                   c->normals + 3 * j, &det, &volume, &terms));
    return length > 0.0 && terms > length ? terms / length : 1.0;
}

/* Each case's bones after a linear map with scales from 1/3 to 3, shear, and
   now and then a mirror or a flattened axis; 12 floats per bone. */
static float affine_bones_b[12 * MAX_JOINTS];

static void draw_affine_bones(rng *r, const prop_case *c, float *out)
{
    int b, row, col, e;
    for (b = 0; b < c->joint_count; ++b) {
        float rigid[12];
        double k[9];
        for (row = 0; row < 3; ++row)
            for (col = 0; col < 3; ++col) k[3 * row + col] = row == col ? rng_log_range(r, 1.0 / 3.0, 3.0) : rng_range(r, -0.5, 0.5);
        if (rng_chance(r, 5)) for (col = 0; col < 3; ++col) k[col] = -k[col];
        if (rng_chance(r, 10)) for (col = 0; col < 3; ++col) k[3 * rng_below(r, 3) + col] = 0.0;
        fk_rigid_to_mat34(fk_rigid_make(fk_quat_normalize(c->bones[b].q), c->bones[b].t), rigid);
        for (row = 0; row < 3; ++row) {
            for (col = 0; col < 3; ++col) {
                double sum = 0.0;
                for (e = 0; e < 3; ++e) sum += (double)rigid[4 * row + e] * k[3 * e + col];
                out[12 * b + 4 * row + col] = (float)sum;
            }
            out[12 * b + 4 * row + 3] = rigid[4 * row + 3];
        }
    }
}

/* LBS of affine bones: positions sum_k w_k M_k p, normals the blend's cofactor
   normal, renormalized; against the definition in double. A normal whose
   blended linear part is singular within rounding (a flattened bone alone, or
   bones that cancel) is left out: its sign is rounding's to choose. */
static int affine_lbs_matches_a_double_reference(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    fk_skin_desc d = mesh_desc(c, NULL, out_positions_a, out_normals_a);
    int j, k;
    draw_affine_bones(&r, c, affine_bones_b);
    d.matrices = affine_bones_b;
    if (skin(0, &d) != FK_OK) return fail(f, "fk_skin_lbs failed on affine bones");
    for (j = 0; j < c->vertex_count; ++j) {
        dvec p = dv_load(c->positions + 3 * j), expected = dv3(0, 0, 0), normal;
        double size = 0.0, det, volume, terms, length, error, normal_error;
        for (k = 0; k < c->influences; ++k) {
            dmat m = dm_of_floats(affine_bones_b + 12 * (size_t)c->joints[j * c->influences + k]);
            double w = (double)c->weights[j * c->influences + k];
            expected = dv_add(expected, dv_scale(dm_point(&m, p), w));
            size += fabs(w) * dm_size(&m) * (dv_len(p) + 1.0);
        }
        normal = affine_blend_normal(affine_bones_b, c->joints + j * c->influences, c->weights + j * c->influences,
                                     c->influences, c->normals + 3 * j, &det, &volume, &terms);
        length = dv_len(normal);
        error = dv_dist(expected, dv_load(out_positions_a + 3 * j));
        if (!within(error, skin_tolerance(c->influences, size)))
            return fail(f, "vertex %d: position %.3g from the double reference (tolerance %.2g)", j, error,
                        skin_tolerance(c->influences, size));
        if (fabs(det) <= 64.0 * EPS * volume || length == 0.0) continue;
        normal_error = dv_dist(dv_scale(normal, 1.0 / length), dv_load(out_normals_a + 3 * j));
        if (!within(normal_error, skin_tolerance(c->influences, 1.0) * (terms > length ? terms / length : 1.0)))
            return fail(f, "vertex %d: normal %.3g from the double reference (tolerance %.2g)", j, normal_error,
                        skin_tolerance(c->influences, 1.0) * (terms > length ? terms / length : 1.0));
    }
    return 1;
}

/* Rigid bones given as matrices: the rigid path's positions; and its normals
   wherever the vertex's bones all agree (one joint named by every influence),
   since rigid LBS applies the blend itself and affine LBS its cofactors, which
   differ only where the blend is no rotation. */
static int affine_lbs_of_rigid_bones_is_rigid_lbs(const prop_case *c, prop_failure *f)
{
    fk_skin_desc rigid = mesh_desc(c, c->bones, out_positions_a, out_normals_a), affine = rigid;
    int j, k, b;
    for (b = 0; b < c->joint_count; ++b)
        fk_rigid_to_mat34(fk_rigid_make(fk_quat_normalize(c->bones[b].q), c->bones[b].t), affine_bones_b + 12 * b);
    affine.transforms = NULL;
    affine.matrices = affine_bones_b;
    affine.out_positions = out_positions_b;
    affine.out_normals = out_normals_b;
    if (skin(0, &rigid) != FK_OK || skin(0, &affine) != FK_OK) return fail(f, "fk_skin_lbs failed");
    for (j = 0; j < c->vertex_count; ++j) {
        dvec p = dv_load(c->positions + 3 * j);
        int one_bone = 1;
        double error = dv_dist(dv_load(out_positions_a + 3 * j), dv_load(out_positions_b + 3 * j)), normal_error;
        double size = dv_len(p) + c->bone_reach;
        for (k = 1; k < c->influences; ++k) one_bone &= c->joints[j * c->influences + k] == c->joints[j * c->influences];
        if (!within(error, 2.0 * skin_tolerance(c->influences, size)))
            return fail(f, "vertex %d: rigid bones as matrices move it %.3g from the rigid path (tolerance %.2g)", j, error,
                        2.0 * skin_tolerance(c->influences, size));
        if (!one_bone) continue;
        normal_error = dv_dist(dv_load(out_normals_a + 3 * j), dv_load(out_normals_b + 3 * j));
        if (!within(normal_error, 2.0 * skin_tolerance(c->influences, 1.0)))
            return fail(f, "vertex %d on one bone: normal %.3g from the rigid path's", j, normal_error);
    }
    return 1;
}

/* One affine bone per vertex: the skinned normal is perpendicular to every
   moved tangent M t of the rest surface (t perpendicular to n), and it stays
   on the outside, n' . (M n) > 0, mirrored bones included. */
static int affine_normals_stay_perpendicular_and_outside(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    fk_skin_desc d = mesh_desc(c, NULL, out_positions_a, out_normals_a);
    int j, t;
    draw_affine_bones(&r, c, affine_bones_b);
    for (j = 0; j < c->vertex_count; ++j) {
        joints_b[j] = c->joints[j * c->influences];
        weights_b[j] = 1.0f;
    }
    d.influences = 1;
    d.joints = joints_b;
    d.weights = weights_b;
    d.matrices = affine_bones_b;
    if (skin(0, &d) != FK_OK) return fail(f, "fk_skin_lbs failed on affine bones");
    for (j = 0; j < c->vertex_count; ++j) {
        dmat m = dm_of_floats(affine_bones_b + 12 * (size_t)joints_b[j]);
        dvec n = dv_load(c->normals + 3 * j), skinned = dv_load(out_normals_a + 3 * j);
        dvec axis = fabs(n.x) < 0.5 ? dv3(1, 0, 0) : dv3(0, 1, 0), tangent[2];
        double det, volume, terms, conditioning, length;
        dvec expected = affine_blend_normal(affine_bones_b, joints_b + j, weights_b + j, 1, c->normals + 3 * j, &det,
                                            &volume, &terms);
        if (dv_len(n) < 0.5) continue; /* the case's zero normals */
        length = dv_len(expected);
        if (fabs(det) <= 64.0 * EPS * volume || length == 0.0) continue;
        conditioning = terms > length ? terms / length : 1.0;
        tangent[0] = dv_cross(n, axis);
        tangent[1] = dv_cross(n, tangent[0]);
        for (t = 0; t < 2; ++t) {
            dvec moved = dm_direction(&m, tangent[t]);
            double cosine = fabs(dv_dot(skinned, moved)) / dv_len(moved);
            if (dv_len(moved) > 0.0 && !within(cosine, skin_tolerance(1, 1.0) * conditioning))
                return fail(f, "vertex %d: the skinned normal is %.3g off perpendicular to moved tangent %d", j, cosine, t);
        }
        if (!(dv_dot(skinned, dm_direction(&m, n)) > 0.0))
            return fail(f, "vertex %d: the skinned normal points inside (det %.3g)", j, det);
    }
    return 1;
}

/* A uniform scale s at a joint above every root, about its pivot c, scales
   every skinned vertex about c by s: c + s (v' - c). The skeleton gets one more
   joint, the new root, at c. */
static fk_rigid bind_poses_b[MAX_JOINTS];

/* dqs_conditioning() for bones given as matrices (their rotations), where the
   rotations carry errors up to `rotation_error` (two runs of forward kinematics
   round differently): a weighted rotation that close to a right angle with the
   pivot may take either sign. */
static double dqs_conditioning_of_matrices(const float *matrices, const prop_case *c, int j, double rotation_error)
{
    int k, kk = c->influences, heaviest = 0;
    dquat pivot;
    for (k = 0; k < kk; ++k) {
        int joint = c->joints[j * kk + k];
        bones_b[joint] = fk_rigid_from_mat34(matrices + 12 * (size_t)joint);
        if (c->weights[j * kk + k] > c->weights[j * kk + heaviest]) heaviest = k;
    }
    pivot = dq_unit(dq(bones_b[c->joints[j * kk + heaviest]].q));
    for (k = 0; k < kk; ++k)
        if (c->weights[j * kk + k] != 0.0f &&
            fabs(dq_dot(pivot, dq_unit(dq(bones_b[c->joints[j * kk + k]].q)))) <= 4.0 * rotation_error)
            return HUGE_VAL;
    return dqs_conditioning(bones_b, c->joints + j * kk, c->weights + j * kk, kk);
}

static int root_scale_scales_the_skinned_mesh(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    int n = c->joint_count, i, j, k, dqs;
    float s = (float)(rng_log_range(&r, 0.25, 4.0) * (rng_chance(&r, 4) ? -1.0 : 1.0));
    dvec center = random_vector(&r, 3.0);
    fk_skin_desc d;
    if (n + 1 > MAX_JOINTS) return 1;
    for (i = 0; i < n; ++i) {
        parents_b[i] = c->parents[i] < 0 ? n : c->parents[i];
        rest_b[i] = c->rest[i];
        quats_b[i] = c->rotations[i];
        translations_b[i] = c->translations[i];
        scales_b[i] = fk_vec3_make(1.0f, 1.0f, 1.0f);
    }
    parents_b[n] = -1; rest_b[n] = fv(center); quats_b[n] = fk_quat_identity();
    translations_b[n] = fk_vec3_make(0.0f, 0.0f, 0.0f);
    for (k = 0; k < 2; ++k) {
        scales_b[n] = k ? fk_vec3_make(s, s, s) : fk_vec3_make(1.0f, 1.0f, 1.0f);
        if (fk_forward_scaled(n + 1, parents_b, rest_b, quats_b, translations_b, scales_b, k ? world_b : world_a) != FK_OK)
            return fail(f, "fk_forward_scaled failed on a valid skeleton");
    }
    for (i = 0; i < n; ++i) bind_poses_b[i] = fk_rigid_make(fk_quat_identity(), c->rest[i]); /* rest frames */
    d = mesh_desc(c, NULL, out_positions_a, out_normals_a);
    d.bind_poses = bind_poses_b;
    for (dqs = 0; dqs < 2; ++dqs) {
    for (k = 0; k < 2; ++k) {
        d.matrices = k ? world_b : world_a;
        d.out_positions = k ? out_positions_b : out_positions_a;
        d.out_normals = k ? out_normals_b : out_normals_a;
        if (skin(dqs, &d) != FK_OK) return fail(f, "%s failed on the scaled rig", method_names[dqs]);
    }
    for (j = 0; j < c->vertex_count; ++j) {
        dvec unscaled = dv_load(out_positions_a + 3 * j), scaled = dv_load(out_positions_b + 3 * j);
        dvec expected = dv_add(center, dv_scale(dv_sub(unscaled, center), (double)s));
        dvec n_unscaled = dv_load(out_normals_a + 3 * j), n_scaled = dv_load(out_normals_b + 3 * j);
        double size = fabs((double)s) * (dv_len(unscaled) + 2.0 * dv_len(center)), chains = 0.0, chains_of_rotations = 0.0;
        double error = dv_dist(scaled, expected), turned = dv_dist(n_scaled, dv_scale(n_unscaled, s < 0.0f ? -1.0 : 1.0));
        /* each run's matrices carry their chain's rounding (one joint deeper
           than the case's), magnified by |s| in the scaled run */
        for (k = 0; k < c->influences; ++k) {
            int joint = c->joints[j * c->influences + k];
            chains += fabs((double)c->weights[j * c->influences + k]) *
                      chain_tolerance(c->depth[joint] + 1, c->reach[joint] + dv_len(dv(c->rest[joint])) + dv_len(center) +
                                                               dv_len(dv_load(c->positions + 3 * j)));
            if (chain_tolerance(c->depth[joint] + 1, 1.0) > chains_of_rotations)
                chains_of_rotations = chain_tolerance(c->depth[joint] + 1, 1.0);
        }
        /* The normal keeps its direction under a positive scale; a negative one
           reflects through c, which turns the surface inside out in place: the
           normal, sign(det) times the cofactors, turns round (s^2 and s^3). */
        double det, volume, terms;
        affine_blend_normal(world_a, c->joints + j * c->influences, c->weights + j * c->influences, c->influences,
                            c->normals + 3 * j, &det, &volume, &terms);
        if (fabs(det) <= 64.0 * EPS * volume || dqs) turned = 0.0; /* flat: no side to turn to (see fk_skin_desc) */
        if (dqs) { /* DQS normalizes its blend: rounding grows as the blend shortens; its normals are rotated */
            double conditioning = dqs_conditioning_of_matrices(world_a, c, j, chains_of_rotations);
            size *= conditioning;
            chains *= conditioning;
            if (conditioning == HUGE_VAL) continue; /* a half turn from the pivot: DQS is discontinuous there */
            turned = dv_dist(n_scaled, dv_scale(n_unscaled, s < 0.0f ? -1.0 : 1.0));
            if (!within(turned, (4.0 * skin_tolerance(c->influences, 1.0) + 2.0 * chains_of_rotations) * conditioning))
                return fail(f, "DQS vertex %d: scaled by %g, its normal is %.3g from the unscaled one's", j, (double)s,
                            turned);
            turned = 0.0;
        }
        if (!within(error, skin_tolerance(c->influences, size) + (1.0 + fabs((double)s)) * chains) ||
            !within(turned, skin_tolerance(c->influences, 1.0) * affine_normal_conditioning(world_a, c, j)))
            return fail(f, "%s vertex %d: scaled by %g about the new root it is %.3g from the scaled image, its normal "
                           "%.3g from the unscaled one's",
                        method_names[dqs], j, (double)s, error, turned);
    }
    }
    return 1;
}

/* With every scale 1, DQS with scale is DQS: the rigid bones as matrices, and
   one more bone that scales (no vertex uses it, but it sends the call through
   the split), give fk_skin_dqs()'s result for the rigid bones, both centres,
   with any bind poses. */
static int dqs_with_unit_scales_is_dqs(const prop_case *c, prop_failure *f)
{
    rng r = c->extra;
    int n = c->joint_count, b, j, centre;
    fk_skin_desc rigid = mesh_desc(c, c->bones, out_positions_a, out_normals_a), scaled;
    if (n + 1 > MAX_JOINTS) return 1;
    for (b = 0; b < n; ++b) {
        fk_rigid_to_mat34(fk_rigid_make(fk_quat_normalize(c->bones[b].q), c->bones[b].t), affine_bones_b + 12 * b);
        bind_poses_b[b] = fk_rigid_make(fq(random_rotation(&r, 3.2)), fv(random_vector(&r, 2.0)));
    }
    fk_mat34_from_trs(fk_vec3_make(0, 0, 0), fk_quat_identity(), fk_vec3_make(2.0f, 1.0f, 0.5f), affine_bones_b + 12 * n);
    bind_poses_b[n] = fk_rigid_identity();
    if (skin(1, &rigid) != FK_OK) return fail(f, "fk_skin_dqs failed on rigid bones");
    for (centre = 0; centre < 2; ++centre) {
        scaled = mesh_desc(c, NULL, out_positions_b, out_normals_b);
        scaled.matrices = affine_bones_b;
        scaled.bind_poses = bind_poses_b;
        scaled.transform_count = n + 1;
        scaled.dqs_scale_center = centre ? FK_DQS_SCALE_AT_BONE : FK_DQS_SCALE_AT_VERTEX;
        if (skin(1, &scaled) != FK_OK) return fail(f, "fk_skin_dqs failed with an unused bone that scales");
        for (j = 0; j < c->vertex_count; ++j) {
            double conditioning = dqs_conditioning(c->bones, c->joints + j * c->influences,
                                                   c->weights + j * c->influences, c->influences);
            dvec p = dv_load(c->positions + 3 * j);
            double size = (dv_len(p) + c->bone_reach) * conditioning;
            double error = dv_dist(dv_load(out_positions_a + 3 * j), dv_load(out_positions_b + 3 * j));
            double turned = dv_dist(dv_load(out_normals_a + 3 * j), dv_load(out_normals_b + 3 * j));
            if (conditioning == HUGE_VAL) continue; /* a half turn from the pivot: either sign is right */
            if (!within(error, 2.0 * skin_tolerance(c->influences, size)) ||
                !within(turned, 2.0 * skin_tolerance(c->influences, 1.0) * conditioning))
                return fail(f, "%s: vertex %d is %.3g from DQS, its normal %.3g", centre ? "at the bones" : "at the vertex",
                            j, error, turned);
        }
    }
    return 1;
}

/* Bad values for the functions with scale: a bad rotation, rest joint,
   translation or scale (NaN or infinite) is reported as fk_forward() reports
   it, and leaves identities; a matrix with one is refused by both skinning
   functions before anything is written, as is a descriptor with both kinds
   of transform; DQS refuses matrices with scale without bind poses. */
static int bad_scaled_inputs_are_rejected(const prop_case *c, prop_failure *f)
{
    static const float identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    rng r = c->extra;
    int n = c->joint_count, at = rng_below(&r, n), kind = rng_below(&r, 4), trs, dqs, j, b;
    float bad = rng_chance(&r, 2) ? nanf("") : (rng_chance(&r, 2) ? 1.0f : -1.0f) * HUGE_VALF;
    fk_skin_desc d;
    memcpy(quats_b, c->rotations, sizeof(fk_quat) * (size_t)n);
    memcpy(rest_b, c->rest, sizeof(fk_vec3) * (size_t)n);
    memcpy(translations_b, c->translations, sizeof(fk_vec3) * (size_t)n);
    draw_scales(&r, n, scales_b);
    if (kind == 0) quats_b[at] = rng_chance(&r, 2) ? fk_quat_make(0.0f, 0.0f, 0.0f, 0.0f) : fk_quat_make(0.0f, bad, 0.0f, 1.0f);
    else if (kind == 1) rest_b[at].y = bad;
    else if (kind == 2) translations_b[at].x = bad;
    else scales_b[at].z = bad;
    for (trs = 0; trs < 2; ++trs) {
        fk_result expected = kind == 0 ? FK_ERROR_INVALID_ROTATION : (trs && kind == 1) ? FK_OK : FK_ERROR_NOT_FINITE, result;
        poison(world_a, sizeof(float) * 12 * (size_t)n);
        result = trs ? fk_forward_trs(n, c->parents, translations_b, quats_b, scales_b, world_a)
                     : fk_forward_scaled(n, c->parents, rest_b, quats_b, translations_b, scales_b, world_a);
        if (result != expected)
            return fail(f, "%s with a bad value at joint %d returned \"%s\", not \"%s\"", scaled_names[trs], at,
                        fk_result_description(result), fk_result_description(expected));
        for (j = 0; expected != FK_OK && j < n; ++j)
            if (memcmp(world_a + 12 * j, identity, sizeof identity) != 0)
                return fail(f, "%s left joint %d other than the identity after an error", scaled_names[trs], j);
    }
    for (b = 0; b < n; ++b)
        fk_rigid_to_mat34(fk_rigid_make(fk_quat_normalize(c->bones[b].q), c->bones[b].t), affine_bones_b + 12 * b);
    d = mesh_desc(c, NULL, out_positions_a, out_normals_a);
    d.matrices = affine_bones_b;
    for (kind = 0; kind < 3; ++kind) {
        fk_result expected = kind == 0 ? FK_ERROR_CONFLICTING_ARGUMENTS : kind == 1 ? FK_ERROR_NOT_FINITE
                                                                                   : FK_ERROR_MISSING_BIND_POSES;
        fk_skin_desc e = d;
        if (kind == 0) e.transforms = c->bones;
        if (kind == 1) affine_bones_b[12 * at + rng_below(&r, 12)] = bad;
        if (kind == 2) /* a bone stretched along its y axis */
            for (j = 1; j < 12; j += 4) affine_bones_b[12 * at + j] *= 1.5f;
        for (dqs = 0; dqs < 2; ++dqs) {
            fk_result result;
            if (kind == 2 && !dqs) continue; /* LBS takes it */
            memset(out_positions_a, 0x7f, sizeof out_positions_a);
            result = dqs ? fk_skin_dqs(&e) : fk_skin_lbs(&e);
            if (result != expected)
                return fail(f, "%s returned \"%s\", not \"%s\"", method_names[dqs], fk_result_description(result),
                            fk_result_description(expected));
            if (fk_skin_validate(&e, dqs ? FK_SKIN_DQS : FK_SKIN_LBS) != expected)
                return fail(f, "fk_skin_validate for %s disagrees with it", method_names[dqs]);
            for (j = 0; j < 3 * MAX_VERTICES; ++j)
                if (((unsigned char *)out_positions_a)[4 * j] != 0x7f)
                    return fail(f, "%s wrote output before reporting \"%s\"", method_names[dqs], fk_result_description(expected));
        }
        for (b = 0; b < n; ++b) /* restore */
            fk_rigid_to_mat34(fk_rigid_make(fk_quat_normalize(c->bones[b].q), c->bones[b].t), affine_bones_b + 12 * b);
    }
    return 1;
}

static property properties[] = {
    PROPERTY(rotations_are_unit, USES_SKELETON),
    PROPERTY(one_bone_vertices_move_rigidly, USES_BONES | USES_MESH),
    PROPERTY(bone_lengths_are_preserved, USES_SKELETON),
    PROPERTY(children_stay_attached, USES_SKELETON),
    PROPERTY(identity_pose_changes_nothing, USES_SKELETON | USES_MESH),
    PROPERTY(global_motion_moves_every_joint, USES_SKELETON),
    PROPERTY(global_motion_moves_the_skinned_mesh, USES_BONES | USES_MESH),
    PROPERTY(joint_order_does_not_matter, USES_SKELETON),
    PROPERTY(conventions_agree, USES_SKELETON),
    PROPERTY(one_hot_weights_apply_the_bone, USES_BONES | USES_MESH),
    PROPERTY(lbs_commutes_with_translation, USES_BONES | USES_MESH),
    PROPERTY(lbs_scales_with_its_weights, USES_BONES | USES_MESH),
    PROPERTY(lbs_and_dqs_agree_on_rigid_vertices, USES_BONES | USES_MESH),
    PROPERTY(dqs_ignores_quaternion_signs, USES_BONES | USES_MESH),
    PROPERTY(dqs_keeps_volume_under_twist, 0),
    PROPERTY(normals_stay_unit, USES_BONES | USES_MESH),
    PROPERTY(tangents_follow_normals_and_keep_their_handedness, USES_BONES | USES_MESH),
    PROPERTY(zero_weights_change_nothing, USES_BONES | USES_MESH),
    PROPERTY(influence_order_does_not_matter, USES_BONES | USES_MESH),
    PROPERTY(strides_and_layouts_do_not_matter, USES_BONES | USES_MESH),
    PROPERTY(quaternion_product_is_associative, USES_QUATS),
    PROPERTY(inverses_undo, USES_QUATS),
    PROPERTY(matrix_conversions_round_trip, USES_QUATS),
    PROPERTY(slerp_turns_at_constant_speed, USES_QUATS),
    PROPERTY(euler_angles_round_trip, USES_QUATS),
    PROPERTY(finite_input_gives_finite_output, USES_SKELETON | USES_BONES | USES_MESH),
    PROPERTY(bad_parent_arrays_are_rejected, USES_SKELETON),
    PROPERTY(bad_values_are_rejected, USES_SKELETON | USES_BONES | USES_MESH),
    PROPERTY(bad_skin_descriptors_are_rejected, USES_BONES | USES_MESH),
    PROPERTY(inputs_are_never_modified, USES_SKELETON | USES_BONES | USES_MESH),
    PROPERTY(scaled_forward_matches_a_double_reference, USES_SKELETON),
    PROPERTY(scaled_joints_stay_attached, USES_SKELETON),
    PROPERTY(unit_scales_give_fk_forward, USES_SKELETON),
    PROPERTY(root_scale_scales_the_skinned_mesh, USES_SKELETON | USES_MESH),
    PROPERTY(affine_lbs_matches_a_double_reference, USES_BONES | USES_MESH),
    PROPERTY(affine_lbs_of_rigid_bones_is_rigid_lbs, USES_BONES | USES_MESH),
    PROPERTY(affine_normals_stay_perpendicular_and_outside, USES_BONES | USES_MESH),
    PROPERTY(dqs_with_unit_scales_is_dqs, USES_BONES | USES_MESH),
    PROPERTY(bad_scaled_inputs_are_rejected, USES_SKELETON | USES_BONES | USES_MESH),
};

/* Cases that once failed, tried before the random ones on every run. */
static const regression regressions[] = {
    /* DQS took its hemisphere from the first listed influence even when its weight
       was zero, so a zero-weight bone could flip the others and collapse the blend
       (now it takes the heaviest influence's). */
    {"zero_weights_change_nothing", 0xbea5f6a210b5982fu, {6, 1, 3, 3.1415926535897931, 0}},
    /* fk_quat_to_euler lost up to 0.02 rad just off gimbal lock (cos b ~ 1e-6). */
    {"euler_angles_round_trip", 0x650d1505cc983ebdu, {1, 1, 1, 0, 0}},
};

int main(int argc, char **argv)
{
    size_t i;
    (void)check_run; /* each property is counted by run_property() instead */
    configure(argc, argv);
    for (i = 0; i < sizeof properties / sizeof properties[0]; ++i)
        run_property(&properties[i], regressions, (int)(sizeof regressions / sizeof regressions[0]));
    return check_finish();
}
