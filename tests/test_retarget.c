/* test_retarget.c - one motion on another skeleton (fk_retarget_init(),
   fk_retarget_pose(), fk_retarget_map_names()).

   Worked examples (an A-pose arm taking a T-pose arm's bend, a short spine
   taking a long one's), then seeded properties over random rigs in both forms
   (pivot and engine-local): a rig onto itself gives its own pose, mapped
   joints' world rotations change from the posture as their source joints' do,
   a source in its posture gives the target in its own, A to B to C is A to C,
   the root rule, and an engine rig described in both forms posed alike; then
   bad input and the name matcher. A failing property prints its seed; replay
   one with RETARGET_SEED=n. */
#include "fk_lbs.h"
#include "check.h"
#include "test_random.h"

#include <math.h>
#include <string.h>

enum { MAX_JOINTS = 40 };

/* fk_retarget_pose()'s scratch: the source's world rotations. */
static fk_quat source_world[MAX_JOINTS];

/* A random rig: pivot form (no rest rotations) or engine form, with a random
   posture reference and a root at joint 0 a positive height above the floor. */
typedef struct rig {
    int n, parents[MAX_JOINTS];
    fk_vec3 rest[MAX_JOINTS];
    fk_quat rest_rotations[MAX_JOINTS], reference[MAX_JOINTS];
    fk_retarget_rig desc;
} rig;

static void make_rig(rig *r, int n, int engine)
{
    int i;
    r->n = n;
    random_tree(n, r->parents);
    for (i = 0; i < n; ++i) {
        r->rest[i] = random_vec3(1.0f);
        r->rest_rotations[i] = random_quat();
        r->reference[i] = random_quat();
    }
    /* the root-motion joint: a root, at a positive height */
    for (i = 0; r->parents[i] >= 0; ++i) continue;
    r->rest[i].y = rng_uniform(0.5f, 2.0f);
    memset(&r->desc, 0, sizeof r->desc);
    r->desc.joint_count = n;
    r->desc.parents = r->parents;
    r->desc.rest_positions = r->rest;
    r->desc.rest_rotations = engine ? r->rest_rotations : NULL;
    r->desc.reference = rng_below(4) ? r->reference : NULL;
    r->desc.root = i;
}

/* World rotations by the chain's product: both forms compose alike. */
static void world_rotations(int n, const int *parents, const fk_quat *rotations, fk_quat *out)
{
    static const fk_vec3 zero[MAX_JOINTS];
    fk_rigid transforms[MAX_JOINTS];
    int i;
    fk_forward(n, parents, zero, rotations, NULL, transforms);
    for (i = 0; i < n; ++i) out[i] = transforms[i].q;
}

/* The rotations a rig's posture uses: its reference, else its rest. */
static void posture_rotations(const rig *r, fk_quat *out)
{
    int i;
    for (i = 0; i < r->n; ++i)
        out[i] = r->desc.reference ? r->desc.reference[i]
                 : r->desc.rest_rotations ? r->desc.rest_rotations[i] : fk_quat_identity();
}

/* Rotation angle between two rotations (q and -q alike), from a* b in double:
   2 atan2(|vector part|, |w|) stays accurate near zero, where acos of a dot
   product cannot resolve less than about 1e-3 rad in float. */
static double angle_between(fk_quat a, fk_quat b)
{
    double la = sqrt((double)a.x * a.x + (double)a.y * a.y + (double)a.z * a.z + (double)a.w * a.w);
    double lb = sqrt((double)b.x * b.x + (double)b.y * b.y + (double)b.z * b.z + (double)b.w * b.w);
    double ax = -a.x / la, ay = -a.y / la, az = -a.z / la, aw = a.w / la;
    double bx = b.x / lb, by = b.y / lb, bz = b.z / lb, bw = b.w / lb;
    double x = aw * bx + ax * bw + ay * bz - az * by, y = aw * by - ax * bz + ay * bw + az * bx;
    double z = aw * bz + ax * by - ay * bx + az * bw, w = aw * bw - ax * bx - ay * by - az * bz;
    return 2.0 * atan2(sqrt(x * x + y * y + z * z), fabs(w));
}

static uint64_t property_seed(int trial)
{
    const char *fixed = getenv("RETARGET_SEED");
    return fixed ? (uint64_t)strtoull(fixed, NULL, 10) : 0x7E7A0000u + (uint64_t)trial;
}

/* Rounding bound on angles: a few float ulps (6e-8) per joint along chains of up
   to 40 joints, in the library and in the test's own products. */
#define ANGLE_BOUND 5e-6

static int init(fk_retarget *rt, const rig *s, const rig *t, const int *map, int *ints, fk_quat *quats)
{
    fk_retarget_desc d;
    memset(&d, 0, sizeof d);
    d.source = s->desc;
    d.target = t->desc;
    d.map = map;
    return fk_retarget_init(rt, &d, ints, quats) == FK_OK;
}

/* ---- Worked example ---------------------------------------------------------- */

/* A T-pose arm (shoulder, elbow, wrist along +x) bends its elbow 90 degrees
   about y. The target's arm hangs at rest 45 degrees down (an A-pose), and its
   reference raises it to the T-pose: its wrist must end up along -z from its
   elbow, as the source's does, at its own bone length. */
static void a_pose_arm_takes_t_pose_bend(void)
{
    const int parents[3] = {-1, 0, 1}, map[3] = {0, 1, 2};
    const float h = 0.70710678f;
    const fk_vec3 source_rest[3] = {{0, 1, 0}, {1, 1, 0}, {2, 1, 0}};
    const fk_vec3 target_rest[3] = {{0, 2, 0}, {2 * h, 2 - 2 * h, 0}, {4 * h, 2 - 4 * h, 0}};
    fk_quat target_reference[3], source_pose[3], out[3];
    fk_retarget_desc d;
    fk_retarget rt;
    int ints[FK_RETARGET_INT_STORAGE(3, 3)];
    fk_quat quats[FK_RETARGET_QUAT_STORAGE(3)];
    fk_rigid transforms[3];
    fk_vec3 posed[3], root;
    target_reference[0] = fk_quat_from_axis_angle(fk_vec3_make(0, 0, 1), 0.78539816f);
    target_reference[1] = target_reference[2] = fk_quat_identity();
    source_pose[0] = source_pose[2] = fk_quat_identity();
    source_pose[1] = fk_quat_from_axis_angle(fk_vec3_make(0, 1, 0), 1.57079633f);
    memset(&d, 0, sizeof d);
    d.source.joint_count = d.target.joint_count = 3;
    d.source.parents = d.target.parents = parents;
    d.source.rest_positions = source_rest;
    d.target.rest_positions = target_rest;
    d.target.reference = target_reference;
    d.map = map;
    d.root_axes[1] = FK_RETARGET_AXIS_KEEP;
    CHECK(fk_retarget_init(&rt, &d, ints, quats) == FK_OK, "init");
    CHECK(rt.root_scale == 2.0f, "hip heights 1 and 2 give scale 2, got %g", (double)rt.root_scale);
    CHECK(fk_retarget_pose(&rt, source_pose, fk_vec3_make(0.5f, 0.25f, -1), source_world, out, &root) == FK_OK,
          "pose");
    CHECK(root.x == 1.0f && root.y == 0.0f && root.z == -2.0f, "root (%g %g %g): x and z doubled, y kept",
          (double)root.x, (double)root.y, (double)root.z);
    fk_forward(3, parents, target_rest, out, NULL, transforms);
    fk_posed_joints(3, target_rest, transforms, posed);
    CHECK(fabsf(posed[1].x - 2) < 1e-5f && fabsf(posed[1].y - 2) < 1e-5f && fabsf(posed[1].z) < 1e-5f,
          "elbow at (%g %g %g), expected (2 2 0): the arm raised to the T-pose", (double)posed[1].x,
          (double)posed[1].y, (double)posed[1].z);
    CHECK(fabsf(posed[2].x - 2) < 1e-5f && fabsf(posed[2].y - 2) < 1e-5f && fabsf(posed[2].z + 2) < 1e-5f,
          "wrist at (%g %g %g), expected (2 2 -2): bent as the source's", (double)posed[2].x, (double)posed[2].y,
          (double)posed[2].z);
}

/* Three spine joints against two: the target's upper spine takes the whole bend
   of the source's three, since the change is taken in world space. */
static void shorter_chain_takes_whole_bend(void)
{
    const int source_parents[5] = {-1, 0, 1, 2, 3}, target_parents[4] = {-1, 0, 1, 2};
    const int map[4] = {0, 1, 3, 4};
    const fk_vec3 source_rest[5] = {{0, 1, 0}, {0, 1.2f, 0}, {0, 1.4f, 0}, {0, 1.6f, 0}, {0, 1.8f, 0}};
    const fk_vec3 target_rest[4] = {{0, 1, 0}, {0, 1.3f, 0}, {0, 1.6f, 0}, {0, 1.9f, 0}};
    fk_quat source_pose[5], out[4], expected_world[5], target_world[4];
    fk_retarget_desc d;
    fk_retarget rt;
    int ints[FK_RETARGET_INT_STORAGE(5, 4)], k;
    fk_quat quats[FK_RETARGET_QUAT_STORAGE(4)];
    for (k = 0; k < 5; ++k) source_pose[k] = fk_quat_from_axis_angle(fk_vec3_make(1, 0, 0), 0.2f);
    memset(&d, 0, sizeof d);
    d.source.joint_count = 5;
    d.target.joint_count = 4;
    d.source.parents = source_parents;
    d.target.parents = target_parents;
    d.source.rest_positions = source_rest;
    d.target.rest_positions = target_rest;
    d.map = map;
    CHECK(fk_retarget_init(&rt, &d, ints, quats) == FK_OK, "init");
    CHECK(fk_retarget_pose(&rt, source_pose, fk_vec3_make(0, 0, 0), source_world, out, NULL) == FK_OK, "pose");
    world_rotations(5, source_parents, source_pose, expected_world);
    world_rotations(4, target_parents, out, target_world);
    CHECK(angle_between(out[2], fk_quat_from_axis_angle(fk_vec3_make(1, 0, 0), 0.4f)) < 1e-5,
          "the upper spine bends by the source's two joints, 0.4 rad");
    CHECK(angle_between(target_world[3], expected_world[4]) < 1e-5, "the neck's world rotation is the source's");
}

/* ---- Properties ---------------------------------------------------------------- */

static void self_with_identity_map_gives_source_pose(void)
{
    static rig r;
    int trial, i, map[MAX_JOINTS], ints[FK_RETARGET_INT_STORAGE(MAX_JOINTS, MAX_JOINTS)];
    fk_quat quats[MAX_JOINTS], pose[MAX_JOINTS], out[MAX_JOINTS];
    double worst = 0;
    for (trial = 0; trial < 300; ++trial) {
        uint64_t seed = property_seed(trial);
        fk_retarget rt;
        rng_state = seed;
        make_rig(&r, 1 + rng_below(MAX_JOINTS), rng_below(2));
        for (i = 0; i < r.n; ++i) map[i] = i, pose[i] = random_quat();
        if (!CHECK(init(&rt, &r, &r, map, ints, quats), "seed %llu: init", (unsigned long long)seed)) continue;
        CHECK(fk_retarget_pose(&rt, pose, fk_vec3_make(0, 0, 0), source_world, out, NULL) == FK_OK, "seed %llu: pose",
              (unsigned long long)seed);
        for (i = 0; i < r.n; ++i) {
            double a = angle_between(out[i], pose[i]);
            worst = a > worst ? a : worst;
            CHECK(a < ANGLE_BOUND, "seed %llu (RETARGET_SEED to replay) joint %d: %.3g rad from the source pose",
                  (unsigned long long)seed, i, a);
        }
    }
    printf("  self retarget: worst %.3g rad (bound %.3g)\n", worst, ANGLE_BOUND);
}

/* A random map (some joints unmapped) between two random rigs. */
static void random_map(int n, int source_n, int *map)
{
    int i;
    for (i = 0; i < n; ++i) map[i] = rng_below(5) == 0 ? -1 : rng_below(source_n);
}

static void mapped_joints_change_as_source(void)
{
    static rig s, t;
    int trial, i, map[MAX_JOINTS], ints[FK_RETARGET_INT_STORAGE(MAX_JOINTS, MAX_JOINTS)];
    fk_quat quats[MAX_JOINTS], pose[MAX_JOINTS], out[MAX_JOINTS], sp[MAX_JOINTS], tp[MAX_JOINTS];
    fk_quat sw[MAX_JOINTS], tw[MAX_JOINTS], spw[MAX_JOINTS], tpw[MAX_JOINTS];
    for (trial = 0; trial < 300; ++trial) {
        uint64_t seed = property_seed(trial);
        fk_retarget rt;
        rng_state = seed;
        make_rig(&s, 1 + rng_below(MAX_JOINTS), rng_below(2));
        make_rig(&t, 1 + rng_below(MAX_JOINTS), rng_below(2));
        random_map(t.n, s.n, map);
        for (i = 0; i < s.n; ++i) pose[i] = random_quat();
        if (!CHECK(init(&rt, &s, &t, map, ints, quats), "seed %llu: init", (unsigned long long)seed)) continue;
        CHECK(fk_retarget_pose(&rt, pose, fk_vec3_make(0, 0, 0), source_world, out, NULL) == FK_OK, "pose");
        posture_rotations(&s, sp);
        posture_rotations(&t, tp);
        world_rotations(s.n, s.parents, pose, sw);
        world_rotations(t.n, t.parents, out, tw);
        world_rotations(s.n, s.parents, sp, spw);
        world_rotations(t.n, t.parents, tp, tpw);
        for (i = 0; i < t.n; ++i) {
            double a;
            if (map[i] < 0) {
                CHECK(memcmp(&out[i], &quats[i], sizeof out[i]) == 0 &&
                          angle_between(out[i], tp[i]) < ANGLE_BOUND,
                      "seed %llu joint %d: unmapped, should keep its posture rotation", (unsigned long long)seed, i);
                continue;
            }
            a = angle_between(fk_quat_mul(tw[i], fk_quat_conjugate(tpw[i])),
                              fk_quat_mul(sw[map[i]], fk_quat_conjugate(spw[map[i]])));
            CHECK(a < 2 * ANGLE_BOUND, "seed %llu (RETARGET_SEED to replay) joint %d: change from posture %.3g rad "
                  "off the source joint's", (unsigned long long)seed, i, a);
        }
    }
}

static void source_in_posture_gives_target_posture(void)
{
    static rig s, t;
    int trial, i, map[MAX_JOINTS], ints[FK_RETARGET_INT_STORAGE(MAX_JOINTS, MAX_JOINTS)];
    fk_quat quats[MAX_JOINTS], out[MAX_JOINTS], sp[MAX_JOINTS], tp[MAX_JOINTS], tw[MAX_JOINTS], tpw[MAX_JOINTS];
    for (trial = 0; trial < 300; ++trial) {
        uint64_t seed = property_seed(trial);
        fk_retarget rt;
        rng_state = seed;
        make_rig(&s, 1 + rng_below(MAX_JOINTS), rng_below(2));
        make_rig(&t, 1 + rng_below(MAX_JOINTS), rng_below(2));
        random_map(t.n, s.n, map);
        if (!CHECK(init(&rt, &s, &t, map, ints, quats), "seed %llu: init", (unsigned long long)seed)) continue;
        posture_rotations(&s, sp);
        posture_rotations(&t, tp);
        CHECK(fk_retarget_pose(&rt, sp, fk_vec3_make(0, 0, 0), source_world, out, NULL) == FK_OK, "pose");
        world_rotations(t.n, t.parents, out, tw);
        world_rotations(t.n, t.parents, tp, tpw);
        for (i = 0; i < t.n; ++i)
            CHECK(angle_between(tw[i], tpw[i]) < 2 * ANGLE_BOUND,
                  "seed %llu (RETARGET_SEED to replay) joint %d: %.3g rad from the target's posture",
                  (unsigned long long)seed, i, angle_between(tw[i], tpw[i]));
    }
}

/* With every joint of B mapped, B carries A's changes unchanged: A to B to C is
   A to C by the composed map. */
static void a_to_b_to_c_is_a_to_c(void)
{
    static rig a, b, c;
    int trial, i, ab[MAX_JOINTS], bc[MAX_JOINTS], ac[MAX_JOINTS];
    int ints1[FK_RETARGET_INT_STORAGE(MAX_JOINTS, MAX_JOINTS)], ints2[FK_RETARGET_INT_STORAGE(MAX_JOINTS, MAX_JOINTS)],
        ints3[FK_RETARGET_INT_STORAGE(MAX_JOINTS, MAX_JOINTS)];
    fk_quat q1[MAX_JOINTS], q2[MAX_JOINTS], q3[MAX_JOINTS], pose[MAX_JOINTS], pb[MAX_JOINTS], pc[MAX_JOINTS],
        direct[MAX_JOINTS], wc[MAX_JOINTS], wd[MAX_JOINTS];
    for (trial = 0; trial < 300; ++trial) {
        uint64_t seed = property_seed(trial);
        fk_retarget r1, r2, r3;
        rng_state = seed;
        make_rig(&a, 1 + rng_below(MAX_JOINTS), rng_below(2));
        make_rig(&b, 1 + rng_below(MAX_JOINTS), rng_below(2));
        make_rig(&c, 1 + rng_below(MAX_JOINTS), rng_below(2));
        for (i = 0; i < b.n; ++i) ab[i] = rng_below(a.n);
        random_map(c.n, b.n, bc);
        for (i = 0; i < c.n; ++i) ac[i] = bc[i] < 0 ? -1 : ab[bc[i]];
        for (i = 0; i < a.n; ++i) pose[i] = random_quat();
        if (!CHECK(init(&r1, &a, &b, ab, ints1, q1) && init(&r2, &b, &c, bc, ints2, q2) &&
                       init(&r3, &a, &c, ac, ints3, q3),
                   "seed %llu: init", (unsigned long long)seed))
            continue;
        fk_retarget_pose(&r1, pose, fk_vec3_make(0, 0, 0), source_world, pb, NULL);
        fk_retarget_pose(&r2, pb, fk_vec3_make(0, 0, 0), source_world, pc, NULL);
        fk_retarget_pose(&r3, pose, fk_vec3_make(0, 0, 0), source_world, direct, NULL);
        world_rotations(c.n, c.parents, pc, wc);
        world_rotations(c.n, c.parents, direct, wd);
        for (i = 0; i < c.n; ++i)
            CHECK(angle_between(wc[i], wd[i]) < 4 * ANGLE_BOUND,
                  "seed %llu (RETARGET_SEED to replay) joint %d: through B %.3g rad from direct",
                  (unsigned long long)seed, i, angle_between(wc[i], wd[i]));
    }
}

/* A description of two rigs with a random root rule: the hip heights' ratio or
   a scale of its own, and a random option per axis. */
static fk_retarget_desc random_root_desc(const rig *s, const rig *t, const int *map)
{
    fk_retarget_desc d;
    int k;
    memset(&d, 0, sizeof d);
    d.source = s->desc;
    d.target = t->desc;
    d.map = map;
    d.root_scale = rng_below(2) ? 0.0f : rng_uniform(0.1f, 3.0f);
    for (k = 0; k < 3; ++k) d.root_axes[k] = (fk_retarget_axis)rng_below(3);
    return d;
}

static void root_follows_scale_rule(void)
{
    static rig s, t;
    int trial, i, k, map[MAX_JOINTS], ints[FK_RETARGET_INT_STORAGE(MAX_JOINTS, MAX_JOINTS)];
    fk_quat quats[MAX_JOINTS], pose[MAX_JOINTS], out[MAX_JOINTS];
    for (trial = 0; trial < 300; ++trial) {
        uint64_t seed = property_seed(trial);
        fk_retarget_desc d;
        fk_retarget rt;
        fk_vec3 translation, root, source_rest, target_rest;
        float scale, in[3], got[3], rest[3], expect;
        rng_state = seed;
        make_rig(&s, 1 + rng_below(MAX_JOINTS), rng_below(2));
        make_rig(&t, 1 + rng_below(MAX_JOINTS), rng_below(2));
        random_map(t.n, s.n, map);
        for (i = 0; i < s.n; ++i) pose[i] = random_quat();
        d = random_root_desc(&s, &t, map);
        if (!CHECK(fk_retarget_init(&rt, &d, ints, quats) == FK_OK, "seed %llu: init", (unsigned long long)seed))
            continue;
        scale = d.root_scale != 0.0f ? d.root_scale : t.rest[t.desc.root].y / s.rest[s.desc.root].y;
        CHECK(rt.root_scale == scale, "seed %llu: scale %g, expected %g", (unsigned long long)seed,
              (double)rt.root_scale, (double)scale);
        translation = random_vec3(3.0f);
        CHECK(fk_retarget_pose(&rt, pose, translation, source_world, out, &root) == FK_OK, "pose");
        source_rest = s.desc.rest_rotations ? s.rest[s.desc.root] : fk_vec3_make(0, 0, 0);
        target_rest = t.desc.rest_rotations ? t.rest[t.desc.root] : fk_vec3_make(0, 0, 0);
        translation = fk_vec3_sub(translation, source_rest);
        memcpy(in, &translation, sizeof in);
        memcpy(got, &root, sizeof got);
        memcpy(rest, &target_rest, sizeof rest);
        for (k = 0; k < 3; ++k) {
            expect = d.root_axes[k] == FK_RETARGET_AXIS_KEEP   ? rest[k]
                     : d.root_axes[k] == FK_RETARGET_AXIS_COPY ? rest[k] + in[k]
                                                               : rest[k] + scale * in[k];
            CHECK(got[k] == expect, "seed %llu axis %d (mode %d): %.9g, expected %.9g", (unsigned long long)seed, k,
                  (int)d.root_axes[k], (double)got[k], (double)expect);
        }
    }
}

/* One engine rig described twice, in its own form and in pivot form (rest
   joints at its rest pivots, rotations as changes from its rest frames,
   q_i = Q_p^-1 Q_i with Q_i = G_i B_i^-1): a motion retargeted onto either
   puts every joint in the same place. */
static void engine_and_pivot_forms_agree(void)
{
    static rig s, t;
    int trial, i, map[MAX_JOINTS], ints[FK_RETARGET_INT_STORAGE(MAX_JOINTS, MAX_JOINTS)];
    fk_quat quats[MAX_JOINTS], pose[MAX_JOINTS], engine_out[MAX_JOINTS], pivot_out[MAX_JOINTS];
    fk_quat rest_world[MAX_JOINTS], reference_world[MAX_JOINTS], reference_delta[MAX_JOINTS],
        pivot_reference[MAX_JOINTS];
    fk_vec3 pivots[MAX_JOINTS], t_engine[MAX_JOINTS], d_pivot[MAX_JOINTS], posed[MAX_JOINTS];
    fk_vec3 source_root, engine_root, pivot_root;
    float matrices[12 * MAX_JOINTS];
    fk_rigid transforms[MAX_JOINTS];
    double worst = 0;
    for (trial = 0; trial < 300; ++trial) {
        uint64_t seed = property_seed(trial);
        fk_retarget rt;
        rig pivot_form;
        rng_state = seed;
        make_rig(&s, 1 + rng_below(MAX_JOINTS), rng_below(2));
        make_rig(&t, 1 + rng_below(MAX_JOINTS), 1);
        t.desc.reference = t.reference;
        random_map(t.n, s.n, map);
        for (i = 0; i < s.n; ++i) pose[i] = random_quat();
        source_root = random_vec3(1.0f);
        /* the pivot form of the engine rig t */
        fk_forward_trs(t.n, t.parents, t.rest, t.rest_rotations, NULL, matrices);
        for (i = 0; i < t.n; ++i) pivots[i] = fk_vec3_make(matrices[12 * i + 3], matrices[12 * i + 7], matrices[12 * i + 11]);
        world_rotations(t.n, t.parents, t.rest_rotations, rest_world);
        world_rotations(t.n, t.parents, t.reference, reference_world);
        for (i = 0; i < t.n; ++i) reference_delta[i] = fk_quat_mul(reference_world[i], fk_quat_conjugate(rest_world[i]));
        for (i = 0; i < t.n; ++i)
            pivot_reference[i] = t.parents[i] < 0 ? reference_delta[i]
                                 : fk_quat_mul(fk_quat_conjugate(reference_delta[t.parents[i]]), reference_delta[i]);
        pivot_form = t;
        memcpy(pivot_form.rest, pivots, sizeof pivots);
        memcpy(pivot_form.reference, pivot_reference, sizeof pivot_reference);
        pivot_form.desc.rest_positions = pivot_form.rest;
        pivot_form.desc.rest_rotations = NULL;
        pivot_form.desc.reference = pivot_form.reference;
        if (!CHECK(init(&rt, &s, &t, map, ints, quats), "seed %llu: init", (unsigned long long)seed)) continue;
        fk_retarget_pose(&rt, pose, source_root, source_world, engine_out, &engine_root);
        if (!CHECK(init(&rt, &s, &pivot_form, map, ints, quats), "seed %llu: init", (unsigned long long)seed))
            continue;
        fk_retarget_pose(&rt, pose, source_root, source_world, pivot_out, &pivot_root);
        /* pose both: engine form by T R, pivot form about the pivots */
        memcpy(t_engine, t.rest, sizeof t_engine);
        memset(d_pivot, 0, sizeof d_pivot);
        t_engine[t.desc.root] = engine_root;
        d_pivot[t.desc.root] = pivot_root;
        fk_forward_trs(t.n, t.parents, t_engine, engine_out, NULL, matrices);
        fk_forward(t.n, t.parents, pivots, pivot_out, d_pivot, transforms);
        fk_posed_joints(t.n, pivots, transforms, posed);
        for (i = 0; i < t.n; ++i) {
            double dx = matrices[12 * i + 3] - posed[i].x, dy = matrices[12 * i + 7] - posed[i].y,
                   dz = matrices[12 * i + 11] - posed[i].z, e = sqrt(dx * dx + dy * dy + dz * dz);
            worst = e > worst ? e : worst;
            CHECK(e < 1e-4, "seed %llu (RETARGET_SEED to replay) joint %d: engine and pivot forms %.3g apart",
                  (unsigned long long)seed, i, e);
        }
    }
    printf("  engine and pivot forms: worst %.3g apart (rigs of unit-sized bones)\n", worst);
}

/* ---- Bad input ------------------------------------------------------------------ */

static void bad_descriptions_are_reported(void)
{
    static rig s, t;
    int map[MAX_JOINTS], ints[FK_RETARGET_INT_STORAGE(MAX_JOINTS, MAX_JOINTS)], ints0[FK_RETARGET_INT_STORAGE(MAX_JOINTS, MAX_JOINTS)], i;
    int parents[MAX_JOINTS];
    fk_quat quats[MAX_JOINTS], quats0[MAX_JOINTS], bad_rotations[MAX_JOINTS];
    fk_vec3 bad_rest[MAX_JOINTS];
    fk_retarget rt, rt0;
    fk_retarget_desc d, good;
    rng_state = 42;
    make_rig(&s, 6, 1);
    make_rig(&t, 5, 0);
    for (i = 0; i < t.n; ++i) map[i] = i;
    memset(&good, 0, sizeof good);
    good.source = s.desc;
    good.target = t.desc;
    good.map = map;
    memset(&rt0, 0x5A, sizeof rt0);
    memset(ints0, 0x5A, sizeof ints0);
    memset(quats0, 0x5A, sizeof quats0);
#define EXPECT_INIT(edit, code)                                                                            \
    do {                                                                                                   \
        d = good;                                                                                          \
        edit;                                                                                              \
        rt = rt0;                                                                                          \
        memcpy(ints, ints0, sizeof ints);                                                                  \
        memcpy(quats, quats0, sizeof quats);                                                               \
        CHECK(fk_retarget_init(&rt, &d, ints, quats) == (code), "%s: expected %s", #edit, #code);         \
        CHECK((code) == FK_OK || (!memcmp(&rt, &rt0, sizeof rt) && !memcmp(ints, ints0, sizeof ints) &&   \
                                  !memcmp(quats, quats0, sizeof quats)),                                   \
              "%s: wrote on error", #edit);                                                                \
    } while (0)
    EXPECT_INIT((void)0, FK_OK);
    d = good;
    CHECK(fk_retarget_init(NULL, &d, ints, quats) == FK_ERROR_NULL_ARGUMENT, "no retarget");
    CHECK(fk_retarget_init(&rt, NULL, ints, quats) == FK_ERROR_NULL_ARGUMENT, "no desc");
    CHECK(fk_retarget_init(&rt, &d, NULL, quats) == FK_ERROR_NULL_ARGUMENT, "no int storage");
    CHECK(fk_retarget_init(&rt, &d, ints, NULL) == FK_ERROR_NULL_ARGUMENT, "no quat storage");
    EXPECT_INIT(d.map = NULL, FK_ERROR_NULL_ARGUMENT);
    EXPECT_INIT(d.source.parents = NULL, FK_ERROR_NULL_ARGUMENT);
    EXPECT_INIT(d.target.rest_positions = NULL, FK_ERROR_NULL_ARGUMENT);
    EXPECT_INIT(d.source.joint_count = 0, FK_ERROR_INVALID_COUNT);
    EXPECT_INIT(d.target.joint_count = -3, FK_ERROR_INVALID_COUNT);
    EXPECT_INIT((map[3] = 6), FK_ERROR_JOINT_OUT_OF_RANGE);
    map[3] = 3;
    EXPECT_INIT((map[0] = -2), FK_ERROR_JOINT_OUT_OF_RANGE);
    map[0] = 0;
    EXPECT_INIT(d.source.root = 6, FK_ERROR_JOINT_OUT_OF_RANGE);
    EXPECT_INIT(d.target.root = -1, FK_ERROR_JOINT_OUT_OF_RANGE);
    for (i = 0; i < t.n && t.parents[i] < 0; ++i) continue;
    EXPECT_INIT(d.target.root = i, FK_ERROR_JOINT_OUT_OF_RANGE); /* not a root */
    memcpy(parents, t.parents, sizeof parents);
    parents[i] = i;
    EXPECT_INIT(d.target.parents = parents, FK_ERROR_SELF_PARENT);
    parents[i] = 7;
    EXPECT_INIT(d.target.parents = parents, FK_ERROR_PARENT_OUT_OF_RANGE);
    memcpy(bad_rotations, s.rest_rotations, sizeof bad_rotations);
    bad_rotations[4].x = NAN;
    EXPECT_INIT(d.source.rest_rotations = bad_rotations, FK_ERROR_INVALID_ROTATION);
    EXPECT_INIT(d.target.reference = bad_rotations, FK_ERROR_INVALID_ROTATION);
    bad_rotations[4] = fk_quat_make(0, 0, 0, 0);
    EXPECT_INIT(d.source.reference = bad_rotations, FK_ERROR_INVALID_ROTATION);
    memcpy(bad_rest, s.rest, sizeof bad_rest);
    bad_rest[s.desc.root].z = INFINITY;
    EXPECT_INIT(d.source.rest_positions = bad_rest, FK_ERROR_NOT_FINITE);
    EXPECT_INIT(d.root_axes[2] = (fk_retarget_axis)3, FK_ERROR_INVALID_OPTION);
    EXPECT_INIT(d.root_axes[0] = (fk_retarget_axis)-1, FK_ERROR_INVALID_OPTION);
    EXPECT_INIT(d.root_scale = -1.0f, FK_ERROR_INVALID_OPTION);
    EXPECT_INIT(d.root_scale = NAN, FK_ERROR_INVALID_OPTION);
    EXPECT_INIT(d.root_scale = INFINITY, FK_ERROR_INVALID_OPTION);
    bad_rest[s.desc.root] = fk_vec3_make(0, 0, 0); /* a root on the floor: no hip height */
    EXPECT_INIT(d.source.rest_positions = bad_rest, FK_ERROR_INVALID_OPTION);
    EXPECT_INIT((d.source.rest_positions = bad_rest, d.root_scale = 1.0f), FK_OK);
#undef EXPECT_INIT
}

static void bad_poses_are_reported(void)
{
    static rig s, t;
    int map[MAX_JOINTS], ints[FK_RETARGET_INT_STORAGE(MAX_JOINTS, MAX_JOINTS)], i;
    fk_quat quats[MAX_JOINTS], pose[MAX_JOINTS], out[MAX_JOINTS], out0[MAX_JOINTS];
    fk_vec3 root = fk_vec3_make(7, 7, 7);
    fk_retarget rt;
    fk_retarget_desc d;
    rng_state = 43;
    make_rig(&s, 6, 0);
    make_rig(&t, 5, 1);
    for (i = 0; i < t.n; ++i) map[i] = i;
    for (i = 0; i < s.n; ++i) pose[i] = random_quat();
    memset(&d, 0, sizeof d);
    d.source = s.desc;
    d.target = t.desc;
    d.map = map;
    d.root_scale = 1e30f;
    CHECK(fk_retarget_init(&rt, &d, ints, quats) == FK_OK, "init");
    memset(out0, 0x5A, sizeof out0);
    memcpy(out, out0, sizeof out);
    memcpy(source_world, out0, sizeof source_world);
    CHECK(fk_retarget_pose(NULL, pose, root, source_world, out, &root) == FK_ERROR_NULL_ARGUMENT, "no retarget");
    CHECK(fk_retarget_pose(&rt, NULL, root, source_world, out, &root) == FK_ERROR_NULL_ARGUMENT, "no pose");
    CHECK(fk_retarget_pose(&rt, pose, root, source_world, NULL, &root) == FK_ERROR_NULL_ARGUMENT, "no output");
    CHECK(fk_retarget_pose(&rt, pose, root, NULL, out, &root) == FK_ERROR_NULL_ARGUMENT, "no scratch");
    pose[5].w = NAN;
    CHECK(fk_retarget_pose(&rt, pose, root, source_world, out, &root) == FK_ERROR_INVALID_ROTATION,
          "NaN in the last joint");
    pose[5] = fk_quat_make(0, 0, 0, 0);
    CHECK(fk_retarget_pose(&rt, pose, root, source_world, out, &root) == FK_ERROR_INVALID_ROTATION, "zero rotation");
    pose[5] = fk_quat_identity();
    CHECK(fk_retarget_pose(&rt, pose, fk_vec3_make(0, NAN, 0), source_world, out, &root) == FK_ERROR_NOT_FINITE,
          "NaN root");
    CHECK(fk_retarget_pose(&rt, pose, fk_vec3_make(1e10f, 0, 0), source_world, out, &root) == FK_ERROR_NOT_FINITE,
          "scaled root overflows");
    CHECK(!memcmp(out, out0, sizeof out) && !memcmp(source_world, out0, sizeof source_world) && root.x == 7 &&
              root.y == 7 && root.z == 7,
          "wrote on error");
    CHECK(fk_retarget_pose(&rt, pose, fk_vec3_make(0, NAN, 0), source_world, out, NULL) == FK_OK,
          "the root translation is not read when not wanted");
}

/* ---- Feet ------------------------------------------------------------------------ */

/* Posed joint positions of a rig in either form, its root moved to @p root
   (pivot form: d_r; engine form: t_r); @p matrices receives the engine form's
   world matrices, @p transforms the pivot form's transforms. */
static void posed_positions(const rig *r, const fk_quat *rotations, fk_vec3 root, fk_rigid *transforms,
                            float *matrices, fk_vec3 *out)
{
    fk_vec3 local[MAX_JOINTS];
    int i;
    if (r->desc.rest_rotations) {
        memcpy(local, r->rest, sizeof local);
        local[r->desc.root] = root;
        fk_forward_trs(r->n, r->parents, local, rotations, NULL, matrices);
        for (i = 0; i < r->n; ++i)
            out[i] = fk_vec3_make(matrices[12 * i + 3], matrices[12 * i + 7], matrices[12 * i + 11]);
    } else {
        memset(local, 0, sizeof local);
        local[r->desc.root] = root;
        fk_forward(r->n, r->parents, r->rest, rotations, local, transforms);
        fk_posed_joints(r->n, r->rest, transforms, out);
    }
}

/* The leg description fk_retarget_foot() reads: the pose in the target's form,
   the chain, and nothing else (joint count and parents left zero: not read). */
static fk_ik_two_bone_desc leg_of(const rig *t, const fk_rigid *transforms, const float *matrices, int end)
{
    fk_ik_two_bone_desc leg;
    memset(&leg, 0, sizeof leg);
    if (t->desc.rest_rotations) {
        leg.matrices = matrices;
    } else {
        leg.rest_joints = t->rest;
        leg.transforms = transforms;
    }
    leg.end = end;
    leg.mid = t->parents[end];
    leg.start = t->parents[leg.mid];
    return leg;
}

/* Two legs of a pelvis (the root), thigh and shin, pivot form. The source's
   hip and knee bend and its root drops until its ankle touches the floor; the
   target, hips twice as high but with a shorter thigh and longer shin, takes
   the same bend, which leaves its foot off the floor, until fk_retarget_foot()
   puts the ankle where the source's is, doubled from the hips: on the floor. */
static void planted_foot_lands_on_floor(void)
{
    const int parents[4] = {-1, 0, 1, 2}, map[4] = {0, 1, 2, 3};
    const fk_vec3 source_rest[4] = {{0, 1, 0}, {0.1f, 1, 0}, {0.1f, 0.5f, 0.02f}, {0.1f, 0, 0}};
    const fk_vec3 target_rest[4] = {{0, 2, 0}, {0.2f, 2, 0}, {0.2f, 1.4f, 0.05f}, {0.2f, 0, 0}};
    fk_quat pose[4], out[4];
    fk_rigid transforms[4];
    fk_vec3 source_posed[4], target_posed[4], root, expected, d_source[4] = {{0.3f, 0, 0}}, d_target[4] = {{0}};
    fk_retarget_desc d;
    fk_retarget rt;
    fk_ik_two_bone_desc leg;
    int ints[FK_RETARGET_INT_STORAGE(4, 4)], reached = -1, k;
    fk_quat quats[FK_RETARGET_QUAT_STORAGE(4)];
    pose[0] = pose[3] = fk_quat_identity();
    pose[1] = fk_quat_from_axis_angle(fk_vec3_make(1, 0, 0), -1.0f);
    pose[2] = fk_quat_from_axis_angle(fk_vec3_make(1, 0, 0), 1.6f);
    /* the source's ankle height with the root at rest, then the drop that plants it */
    fk_forward(4, parents, source_rest, pose, NULL, transforms);
    fk_posed_joints(4, source_rest, transforms, source_posed);
    d_source[0].y = -source_posed[3].y;
    fk_forward(4, parents, source_rest, pose, d_source, transforms);
    fk_posed_joints(4, source_rest, transforms, source_posed);
    memset(&d, 0, sizeof d);
    d.source.joint_count = d.target.joint_count = 4;
    d.source.parents = d.target.parents = parents;
    d.source.rest_positions = source_rest;
    d.target.rest_positions = target_rest;
    d.map = map;
    CHECK(fk_retarget_init(&rt, &d, ints, quats) == FK_OK && rt.root_scale == 2.0f, "init, scale 2");
    CHECK(fk_retarget_pose(&rt, pose, d_source[0], source_world, out, &root) == FK_OK, "pose");
    d_target[0] = root;
    fk_forward(4, parents, target_rest, out, d_target, transforms);
    fk_posed_joints(4, target_rest, transforms, target_posed);
    CHECK(fabsf(target_posed[3].y) > 0.05f, "without the pass the target's foot is off the floor (y %g)",
          (double)target_posed[3].y);
    memset(&leg, 0, sizeof leg);
    leg.rest_joints = target_rest;
    leg.transforms = transforms;
    leg.start = 1, leg.mid = 2, leg.end = 3;
    CHECK(fk_retarget_foot(&rt, source_posed, &leg, 1.0f, out, &reached) == FK_OK && reached == 1, "foot reached");
    fk_forward(4, parents, target_rest, out, d_target, transforms);
    fk_posed_joints(4, target_rest, transforms, target_posed);
    expected = fk_vec3_add(fk_vec3_add(target_rest[0], root), fk_vec3_scale(fk_vec3_sub(source_posed[3], source_posed[0]), 2));
    for (k = 0; k < 3; ++k) {
        float got = (&target_posed[3].x)[k], want = (&expected.x)[k];
        CHECK(fabsf(got - want) < 1e-5f, "ankle axis %d at %g, expected %g", k, (double)got, (double)want);
    }
    CHECK(fabsf(target_posed[3].y) < 1e-5f, "the target's ankle on the floor (y %g)", (double)target_posed[3].y);
}

/* Over random rigs of both forms, random maps, root rules, offsets and poses,
   with an end joint two below another: the end lands on
   T = O_t + s (F_s - O_s) + o
   whenever the leg can reach it (|a - b| < |T - S| < a + b, with a margin of
   1e-3 of the leg), is reported reached, and only the start and mid joints'
   rotations change; beyond a + b it is reported not reached and lies on the
   line toward T at the leg's full length. */
static void feet_land_on_targets_where_reachable(void)
{
    static rig s, t;
    static fk_rigid s_transforms[MAX_JOINTS], t_transforms[MAX_JOINTS];
    static float s_matrices[12 * MAX_JOINTS], t_matrices[12 * MAX_JOINTS];
    int trial, i, end, map[MAX_JOINTS], ints[FK_RETARGET_INT_STORAGE(MAX_JOINTS, MAX_JOINTS)];
    int reachable = 0, beyond = 0;
    fk_quat quats[MAX_JOINTS], pose[MAX_JOINTS], out[MAX_JOINTS], before[MAX_JOINTS];
    fk_vec3 s_posed[MAX_JOINTS], t_posed[MAX_JOINTS];
    double worst = 0;
    for (trial = 0; trial < 400; ++trial) {
        uint64_t seed = property_seed(trial);
        fk_retarget_desc d;
        fk_retarget rt;
        fk_ik_two_bone_desc leg;
        fk_vec3 source_root, root, goal, start;
        double a, b, dist, miss, length;
        int reached = -1;
        rng_state = seed;
        make_rig(&s, 1 + rng_below(MAX_JOINTS), rng_below(2));
        make_rig(&t, 3 + rng_below(MAX_JOINTS - 2), rng_below(2));
        for (end = 0; end < t.n && (t.parents[end] < 0 || t.parents[t.parents[end]] < 0); ++end) continue;
        if (end == t.n) continue;
        random_map(t.n, s.n, map);
        map[end] = rng_below(s.n);
        d = random_root_desc(&s, &t, map);
        if (!CHECK(fk_retarget_init(&rt, &d, ints, quats) == FK_OK, "seed %llu: init", (unsigned long long)seed))
            continue;
        for (i = 0; i < s.n; ++i) pose[i] = random_quat();
        source_root = random_vec3(1.0f);
        fk_retarget_pose(&rt, pose, source_root, source_world, out, &root);
        posed_positions(&s, pose, source_root, s_transforms, s_matrices, s_posed);
        posed_positions(&t, out, root, t_transforms, t_matrices, t_posed);
        leg = leg_of(&t, t_transforms, t_matrices, end);
        if (rng_below(2)) leg.target = random_vec3(0.3f);
        goal = fk_vec3_add(fk_vec3_add(t_posed[t.desc.root], leg.target),
                           fk_vec3_scale(fk_vec3_sub(s_posed[map[end]], s_posed[s.desc.root]), rt.root_scale));
        start = t_posed[leg.start];
        a = fk_vec3_length(fk_vec3_sub(t_posed[leg.mid], start));
        b = fk_vec3_length(fk_vec3_sub(t_posed[end], t_posed[leg.mid]));
        length = a + b;
        dist = fk_vec3_length(fk_vec3_sub(goal, start));
        memcpy(before, out, sizeof before);
        if (!CHECK(fk_retarget_foot(&rt, s_posed, &leg, 1.0f, out, &reached) == FK_OK, "seed %llu: foot",
                   (unsigned long long)seed))
            continue;
        for (i = 0; i < t.n; ++i)
            CHECK(i == leg.start || i == leg.mid || !memcmp(&out[i], &before[i], sizeof out[i]),
                  "seed %llu joint %d: not in the leg's chain, yet changed", (unsigned long long)seed, i);
        posed_positions(&t, out, root, t_transforms, t_matrices, t_posed);
        miss = fk_vec3_length(fk_vec3_sub(t_posed[end], goal));
        if (dist > fabs(a - b) + 1e-3 * length && dist < length * (1 - 1e-3)) {
            ++reachable;
            worst = miss / length > worst ? miss / length : worst;
            CHECK(reached == 1 && miss <= 1e-4 * length,
                  "seed %llu (RETARGET_SEED to replay): reachable foot %.3g from its target (leg %.3g), reached %d",
                  (unsigned long long)seed, miss, length, reached);
        } else if (dist > length * (1 + 1e-3)) {
            ++beyond;
            CHECK(reached == 0 && fabs(miss - (dist - length)) <= 1e-4 * length,
                  "seed %llu (RETARGET_SEED to replay): out of reach, %.3g from its target, expected %.3g "
                  "(straight toward it), reached %d", (unsigned long long)seed, miss, dist - length, reached);
        }
    }
    CHECK(reachable > 50 && beyond > 50, "cases: %d reachable, %d beyond reach", reachable, beyond);
    printf("  feet: %d reachable, worst %.3g of the leg from the target; %d beyond reach\n", reachable, worst, beyond);
}

static void bad_feet_are_reported(void)
{
    const int parents[4] = {-1, 0, 1, 2}, map[4] = {0, 1, 2, 3}, unmapped[4] = {0, 1, 2, -1};
    const fk_vec3 rest[4] = {{0, 1, 0}, {0.1f, 1, 0}, {0.1f, 0.5f, 0.02f}, {0.1f, 0, 0}};
    fk_vec3 positions[4];
    fk_quat pose[4], out[4], out0[4], quats[4], quats2[4];
    fk_rigid transforms[4], bad_transforms[4];
    fk_retarget_desc d;
    fk_retarget rt, rt_unmapped;
    fk_ik_two_bone_desc good, leg;
    int ints[FK_RETARGET_INT_STORAGE(4, 4)], ints2[FK_RETARGET_INT_STORAGE(4, 4)], reached, k;
    for (k = 0; k < 4; ++k) pose[k] = fk_quat_from_axis_angle(fk_vec3_make(1, 0, 0), 0.3f);
    fk_forward(4, parents, rest, pose, NULL, transforms);
    fk_posed_joints(4, rest, transforms, positions);
    memset(&d, 0, sizeof d);
    d.source.joint_count = d.target.joint_count = 4;
    d.source.parents = d.target.parents = parents;
    d.source.rest_positions = d.target.rest_positions = rest;
    d.map = map;
    CHECK(fk_retarget_init(&rt, &d, ints, quats) == FK_OK, "init");
    d.map = unmapped;
    CHECK(fk_retarget_init(&rt_unmapped, &d, ints2, quats2) == FK_OK, "init with the end unmapped");
    memset(&good, 0, sizeof good);
    good.rest_joints = rest;
    good.transforms = transforms;
    good.start = 1, good.mid = 2, good.end = 3;
    memcpy(out0, pose, sizeof out0);
#define EXPECT_FOOT(retarget, edit, code)                                                                  \
    do {                                                                                                   \
        leg = good;                                                                                        \
        edit;                                                                                              \
        memcpy(out, out0, sizeof out);                                                                     \
        reached = 7;                                                                                       \
        CHECK(fk_retarget_foot(retarget, positions, &leg, 1.0f, out, &reached) == (code), "%s: expected %s", \
              #edit, #code);                                                                               \
        CHECK((code) == FK_OK || (!memcmp(out, out0, sizeof out) && reached == 7), "%s: wrote on error", #edit); \
    } while (0)
    EXPECT_FOOT(&rt, (void)0, FK_OK);
    EXPECT_FOOT(NULL, (void)0, FK_ERROR_NULL_ARGUMENT);
    EXPECT_FOOT(&rt, leg.transforms = NULL, FK_ERROR_NULL_ARGUMENT);
    EXPECT_FOOT(&rt, leg.rest_joints = NULL, FK_ERROR_NULL_ARGUMENT);
    EXPECT_FOOT(&rt, leg.end = 4, FK_ERROR_JOINT_OUT_OF_RANGE);
    EXPECT_FOOT(&rt, leg.end = -1, FK_ERROR_JOINT_OUT_OF_RANGE);
    EXPECT_FOOT(&rt_unmapped, (void)0, FK_ERROR_JOINT_OUT_OF_RANGE);
    EXPECT_FOOT(&rt, leg.mid = 0, FK_ERROR_JOINT_OUT_OF_RANGE); /* fk_ik_two_bone()'s: start not above mid */
    memcpy(bad_transforms, transforms, sizeof bad_transforms);
    bad_transforms[0].q = fk_quat_make(0, 0, 0, 0); /* the root's, which only the foot pass reads */
    EXPECT_FOOT(&rt, leg.transforms = bad_transforms, FK_ERROR_INVALID_ROTATION);
    positions[0].x = NAN; /* the source root */
    EXPECT_FOOT(&rt, (void)0, FK_ERROR_NOT_FINITE);
    positions[0].x = 0;
    positions[3].y = 3e38f; /* T overflows when scaled */
    d.map = map;
    d.root_scale = 10.0f;
    CHECK(fk_retarget_init(&rt, &d, ints, quats) == FK_OK, "init, scale 10");
    EXPECT_FOOT(&rt, (void)0, FK_ERROR_NOT_FINITE);
    leg = good;
    memcpy(out, out0, sizeof out);
    CHECK(fk_retarget_foot(&rt, NULL, &leg, 1.0f, out, NULL) == FK_ERROR_NULL_ARGUMENT &&
              fk_retarget_foot(&rt, positions, NULL, 1.0f, out, NULL) == FK_ERROR_NULL_ARGUMENT &&
              fk_retarget_foot(&rt, positions, &leg, 1.0f, NULL, NULL) == FK_ERROR_NULL_ARGUMENT &&
              fk_retarget_foot(&rt, positions, &leg, 2.0f, out, NULL) == FK_ERROR_INVALID_WEIGHT,
          "no source positions, no leg, no rotations, a weight of 2");
    CHECK(!memcmp(out, out0, sizeof out), "wrote on error");
#undef EXPECT_FOOT
}

/* ---- Names ---------------------------------------------------------------------- */

static void names_match_exactly_then_stripped(void)
{
    const char *source[] = {"mixamorig:Hips", "mixamorig:Spine", "mixamorig:LeftArm", "Head", "head", NULL};
    const char *target[] = {"Armature|hips", "Bip01 Spine", "LeftArm", "head", "HEAD", "Tail", NULL, "Bip01_LEFTARM",
                            "Bip01"};
    const int expect[] = {0, 1, 2, 4, 3, -1, -1, 2, -1};
    int map[9], unmapped = -1, i, sentinel[9];
    CHECK(fk_retarget_map_names(9, target, 6, source, map, &unmapped) == FK_OK, "map");
    for (i = 0; i < 9; ++i)
        CHECK(map[i] == expect[i], "target %d (%s): %d, expected %d", i, target[i] ? target[i] : "NULL", map[i],
              expect[i]);
    CHECK(unmapped == 3, "%d unmapped, expected 3", unmapped);
    memset(sentinel, 0x5A, sizeof sentinel);
    memcpy(map, sentinel, sizeof map);
    CHECK(fk_retarget_map_names(-1, target, 6, source, map, NULL) == FK_ERROR_INVALID_COUNT, "negative count");
    CHECK(fk_retarget_map_names(9, NULL, 6, source, map, NULL) == FK_ERROR_NULL_ARGUMENT, "no target names");
    CHECK(fk_retarget_map_names(9, target, 6, NULL, map, NULL) == FK_ERROR_NULL_ARGUMENT, "no source names");
    CHECK(fk_retarget_map_names(9, target, 6, source, NULL, NULL) == FK_ERROR_NULL_ARGUMENT, "no map");
    CHECK(!memcmp(map, sentinel, sizeof map), "wrote on error");
    CHECK(fk_retarget_map_names(9, target, 0, NULL, map, &unmapped) == FK_OK && unmapped == 9 && map[0] == -1,
          "no source joints: all unmapped");
}

int main(void)
{
    RUN_TEST(a_pose_arm_takes_t_pose_bend);
    RUN_TEST(shorter_chain_takes_whole_bend);
    RUN_TEST(self_with_identity_map_gives_source_pose);
    RUN_TEST(mapped_joints_change_as_source);
    RUN_TEST(source_in_posture_gives_target_posture);
    RUN_TEST(a_to_b_to_c_is_a_to_c);
    RUN_TEST(root_follows_scale_rule);
    RUN_TEST(engine_and_pivot_forms_agree);
    RUN_TEST(bad_descriptions_are_reported);
    RUN_TEST(bad_poses_are_reported);
    RUN_TEST(planted_foot_lands_on_floor);
    RUN_TEST(feet_land_on_targets_where_reachable);
    RUN_TEST(bad_feet_are_reported);
    RUN_TEST(names_match_exactly_then_stripped);
    return check_finish();
}
