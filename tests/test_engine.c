/* test_engine.c - prepared skeletons and engine-form forward kinematics
   (fk_skeleton_init(), fk_forward_engine(), fk_forward_engine_rigid()).

   A worked glTF-style rig (rest rotations that are not the identity, scale,
   inverse bind matrices) against a double-precision 4x4 reference; then seeded
   properties: random rigs against the same reference within a rounding bound
   that grows with depth, every order of the joints giving the parents-first
   bits, the rigid call against fk_forward_trs(), and bad input. Built with the
   fast paths and without them (build/no_simd/test_engine).
   A failing property prints its seed; replay one with ENGINE_SEED=n. */
#include "fk_lbs.h"
#include "check.h"
#include "test_random.h"

#include <float.h>
#include <math.h>
#include <string.h>

enum { MAX_JOINTS = 64 };

/* ---- The double-precision reference -------------------------------------------- */

/* A 4x4 matrix, row-major, acting on column vectors. */
typedef struct mat4d {
    double m[16];
} mat4d;

/* a b, or with take_abs |a| |b| elementwise: what rounding errors in a b are
   proportional to. */
static mat4d mat4d_mul(const mat4d *a, const mat4d *b, int take_abs)
{
    mat4d r;
    int row, col, k;
    for (row = 0; row < 4; ++row)
        for (col = 0; col < 4; ++col) {
            double sum = 0.0;
            for (k = 0; k < 4; ++k)
                sum += take_abs ? fabs(a->m[4 * row + k]) * fabs(b->m[4 * k + col]) : a->m[4 * row + k] * b->m[4 * k + col];
            r.m[4 * row + col] = sum;
        }
    return r;
}

/* T R S with R from the quaternion normalized in double. */
static mat4d mat4d_trs(fk_vec3 t, fk_quat q, fk_vec3 s)
{
    double x = q.x, y = q.y, z = q.z, w = q.w, n = sqrt(x * x + y * y + z * z + w * w);
    double r[9];
    mat4d m;
    int row;
    x /= n; y /= n; z /= n; w /= n;
    r[0] = 1 - 2 * (y * y + z * z); r[1] = 2 * (x * y - w * z); r[2] = 2 * (x * z + w * y);
    r[3] = 2 * (x * y + w * z); r[4] = 1 - 2 * (x * x + z * z); r[5] = 2 * (y * z - w * x);
    r[6] = 2 * (x * z - w * y); r[7] = 2 * (y * z + w * x); r[8] = 1 - 2 * (x * x + y * y);
    for (row = 0; row < 3; ++row) {
        m.m[4 * row + 0] = r[3 * row + 0] * s.x;
        m.m[4 * row + 1] = r[3 * row + 1] * s.y;
        m.m[4 * row + 2] = r[3 * row + 2] * s.z;
    }
    m.m[3] = t.x; m.m[7] = t.y; m.m[11] = t.z;
    m.m[12] = m.m[13] = m.m[14] = 0.0; m.m[15] = 1.0;
    return m;
}

static mat4d mat4d_of_mat34(const float *m34)
{
    mat4d m;
    int e;
    for (e = 0; e < 12; ++e) m.m[e] = m34[e];
    m.m[12] = m.m[13] = m.m[14] = 0.0; m.m[15] = 1.0;
    return m;
}

/* World matrices and world IB, with |.| chains for the error bound, walking up
   from each joint (any order). */
typedef struct reference {
    mat4d world[MAX_JOINTS], skinning[MAX_JOINTS];
    mat4d world_abs[MAX_JOINTS], skinning_abs[MAX_JOINTS];
    int depth[MAX_JOINTS];
} reference;

static void reference_pose(int n, const int *parents, const fk_vec3 *t, const fk_quat *q, const fk_vec3 *s,
                           const float *inverse_binds, reference *out)
{
    int i;
    for (i = 0; i < n; ++i) {
        int chain[MAX_JOINTS], length = 0, joint, k;
        mat4d world, world_abs;
        for (joint = i; joint >= 0; joint = parents[joint]) chain[length++] = joint;
        world = mat4d_trs(t[chain[length - 1]], q[chain[length - 1]], s ? s[chain[length - 1]] : fk_vec3_make(1, 1, 1));
        world_abs = world;
        for (k = 0; k < 16; ++k) world_abs.m[k] = fabs(world_abs.m[k]);
        for (k = length - 2; k >= 0; --k) {
            mat4d local = mat4d_trs(t[chain[k]], q[chain[k]], s ? s[chain[k]] : fk_vec3_make(1, 1, 1));
            mat4d next = mat4d_mul(&world, &local, 0);
            world_abs = mat4d_mul(&world_abs, &local, 1);
            world = next;
        }
        out->world[i] = world;
        out->world_abs[i] = world_abs;
        out->depth[i] = length;
        if (inverse_binds) {
            mat4d bind = mat4d_of_mat34(inverse_binds + 12 * i);
            out->skinning[i] = mat4d_mul(&world, &bind, 0);
            out->skinning_abs[i] = mat4d_mul(&world_abs, &bind, 1);
        }
    }
}

/* The rounding bound of row r's elements: c * depth * FLT_EPSILON times the
   row's largest element of the |.| chain. A float rotation matrix is exact to
   a few epsilons of its rows' size (not of each element: a zero comes out as
   1e-8), each product adds a few epsilons of the |.| chain, and a row's
   translation carries its rotation's errors times the offsets; c = 8 allows
   four for the local T R S and four for the product at each level. */
static double row_bound(const mat4d *chain, int row, int depth)
{
    double largest = 0.0;
    int c;
    for (c = 0; c < 4; ++c) largest = chain->m[4 * row + c] > largest ? chain->m[4 * row + c] : largest;
    return 8.0 * depth * FLT_EPSILON * largest + 1e-30;
}

/* The largest error of a float 3x4 against the reference, in units of its
   row's bound (1 = at the bound). */
static double error_in_bounds(const float *m34, const mat4d *exact, const mat4d *chain, int depth)
{
    double worst = 0.0;
    int e;
    for (e = 0; e < 12; ++e) {
        double ratio = fabs((double)m34[e] - exact->m[e]) / row_bound(chain, e / 4, depth);
        worst = ratio > worst ? ratio : worst;
    }
    return worst;
}

/* ---- The worked rig ---------------------------------------------------------------- */

/* A glTF-style arm of three joints listed children first (glTF promises no
   order): joint 2 the root, joint 1 its child, joint 0 the hand. Rest
   rotations of 90 degrees about z and 45 about x, a scale of 2 on the root
   and 0.5 along y on the forearm, inverse bind matrices those of the rest
   pose. */
static const int arm_parents[3] = {1, 2, -1};

static void arm_pose(fk_vec3 t[3], fk_quat q[3], fk_vec3 s[3], int posed)
{
    const float h = 0.70710678f;
    t[2] = fk_vec3_make(1.0f, 0.5f, 0.0f); q[2] = fk_quat_make(0.0f, 0.0f, h, h);  s[2] = fk_vec3_make(2, 2, 2);
    t[1] = fk_vec3_make(0.0f, 1.0f, 0.0f); q[1] = fk_quat_make(0.38268343f, 0.0f, 0.0f, 0.92387953f);
    s[1] = fk_vec3_make(1.0f, 0.5f, 1.0f);
    t[0] = fk_vec3_make(0.0f, 1.5f, 0.0f); q[0] = fk_quat_identity(); s[0] = fk_vec3_make(1, 1, 1);
    if (posed) { /* bend the forearm and turn the hand, on top of their rest rotations */
        q[1] = fk_quat_mul(q[1], fk_quat_from_axis_angle(fk_vec3_make(0, 0, 1), 0.6f));
        q[0] = fk_quat_mul(q[0], fk_quat_from_axis_angle(fk_vec3_make(1, 1, 0), -0.4f));
    }
}

static void arm_inverse_binds(float inverse_binds[36])
{
    fk_vec3 t[3], s[3];
    fk_quat q[3];
    float world[36];
    int j;
    arm_pose(t, q, s, 0);
    CHECK(fk_forward_trs(3, arm_parents, t, q, s, world) == FK_OK, "rest pose");
    for (j = 0; j < 3; ++j) CHECK(fk_mat34_inverse(world + 12 * j, inverse_binds + 12 * j) == FK_OK, "inverse bind %d", j);
}

static void worked_rig_matches_double_reference(void)
{
    fk_vec3 t[3], s[3];
    fk_quat q[3];
    float inverse_binds[36], world[36], skinning[36];
    int storage[FK_SKELETON_STORAGE(3)], j;
    fk_skeleton skeleton;
    reference ref;
    arm_inverse_binds(inverse_binds);
    arm_pose(t, q, s, 1);
    CHECK(fk_skeleton_init(&skeleton, 3, arm_parents, storage) == FK_OK, "init");
    CHECK(skeleton.depth == 3, "depth %d", skeleton.depth);
    CHECK(skeleton.order[0] == 2 && skeleton.order[1] == 1 && skeleton.order[2] == 0, "order %d %d %d",
          skeleton.order[0], skeleton.order[1], skeleton.order[2]);
    CHECK(fk_forward_engine(&skeleton, t, q, s, inverse_binds, world, skinning) == FK_OK, "engine");
    reference_pose(3, arm_parents, t, q, s, inverse_binds, &ref);
    for (j = 0; j < 3; ++j) {
        double we = error_in_bounds(world + 12 * j, &ref.world[j], &ref.world_abs[j], ref.depth[j]);
        double se = error_in_bounds(skinning + 12 * j, &ref.skinning[j], &ref.skinning_abs[j], ref.depth[j] + 1);
        CHECK(we <= 1.0 && se <= 1.0, "joint %d: world at %.3g, skinning at %.3g of the bound", j, we, se);
    }
    { /* a vertex on the hand, 0.3 beyond its rest origin: world IB v, against the reference */
        const float v[3] = {0.3f, 0.2f, 0.1f};
        const double *m = ref.skinning[0].m;
        int row;
        for (row = 0; row < 3; ++row) {
            double exact = m[4 * row] * v[0] + m[4 * row + 1] * v[1] + m[4 * row + 2] * v[2] + m[4 * row + 3];
            double got = (double)skinning[4 * row] * v[0] + (double)skinning[4 * row + 1] * v[1] +
                         (double)skinning[4 * row + 2] * v[2] + (double)skinning[4 * row + 3];
            CHECK(fabs(got - exact) <= 1e-5 * (1.0 + fabs(exact)), "vertex row %d: %.9g, exact %.9g", row, got, exact);
        }
    }
}

/* In the rest pose every skinning matrix is the identity (to rounding). */
static void rest_pose_skins_to_identity(void)
{
    fk_vec3 t[3], s[3];
    fk_quat q[3];
    float inverse_binds[36], world[36], skinning[36];
    int storage[FK_SKELETON_STORAGE(3)], j, e;
    fk_skeleton skeleton;
    arm_inverse_binds(inverse_binds);
    arm_pose(t, q, s, 0);
    CHECK(fk_skeleton_init(&skeleton, 3, arm_parents, storage) == FK_OK, "init");
    CHECK(fk_forward_engine(&skeleton, t, q, s, inverse_binds, world, skinning) == FK_OK, "engine");
    for (j = 0; j < 3; ++j)
        for (e = 0; e < 12; ++e)
            CHECK(fabsf(skinning[12 * j + e] - (e % 5 == 0 ? 1.0f : 0.0f)) <= 4e-6f, "joint %d element %d: %.9g", j, e,
                  (double)skinning[12 * j + e]);
}

/* ---- Properties ------------------------------------------------------------------ */

typedef struct rig_case {
    int n;
    int parents[MAX_JOINTS];
    fk_vec3 t[MAX_JOINTS], s[MAX_JOINTS];
    fk_quat q[MAX_JOINTS];
    float inverse_binds[12 * MAX_JOINTS];
    fk_rigid rigid_binds[MAX_JOINTS];
} rig_case;

/* A random forest in random order, local TRS with rotations of lengths in
   [0.5, 2] and scales in [0.5, 2] (some negative), and inverse binds of a
   random rest pose. */
static void make_rig(rig_case *c, int n, int with_scale)
{
    fk_vec3 rest_t[MAX_JOINTS];
    fk_quat rest_q[MAX_JOINTS];
    float rest_world[12 * MAX_JOINTS];
    int i;
    c->n = n;
    random_tree(n, c->parents);
    for (i = 0; i < n; ++i) {
        rest_t[i] = random_vec3(1.0f);
        rest_q[i] = random_quat();
        c->t[i] = fk_vec3_add(rest_t[i], random_vec3(0.1f));
        c->q[i] = fk_quat_mul(rest_q[i], random_quat());
        { /* not unit, and of a different length at each joint */
            const float length = rng_uniform(0.5f, 2.0f);
            c->q[i] = fk_quat_make(c->q[i].x * length, c->q[i].y * length, c->q[i].z * length, c->q[i].w * length);
        }
        c->s[i] = with_scale ? fk_vec3_make(rng_uniform(0.5f, 2.0f), rng_uniform(0.5f, 2.0f),
                                            rng_uniform(0.5f, 2.0f) * (rng_below(8) == 0 ? -1.0f : 1.0f))
                             : fk_vec3_make(1, 1, 1);
    }
    fk_forward_trs(n, c->parents, rest_t, rest_q, NULL, rest_world);
    for (i = 0; i < n; ++i) {
        fk_mat34_inverse(rest_world + 12 * i, c->inverse_binds + 12 * i);
        c->rigid_binds[i] = fk_rigid_from_mat34(c->inverse_binds + 12 * i);
    }
}

static uint64_t property_seed(int trial)
{
    const char *fixed = getenv("ENGINE_SEED");
    return fixed ? (uint64_t)strtoull(fixed, NULL, 10) : 0x5EED0000u + (uint64_t)trial;
}

static void random_rigs_match_double_reference(void)
{
    static rig_case c;
    static reference ref;
    float world[12 * MAX_JOINTS], skinning[12 * MAX_JOINTS];
    int storage[FK_SKELETON_STORAGE(MAX_JOINTS)], trial, j;
    double worst = 0.0;
    for (trial = 0; trial < 200; ++trial) {
        uint64_t seed = property_seed(trial);
        fk_skeleton skeleton;
        rng_state = seed;
        make_rig(&c, 1 + rng_below(MAX_JOINTS), 1);
        CHECK(fk_skeleton_init(&skeleton, c.n, c.parents, storage) == FK_OK, "seed %llu: init", (unsigned long long)seed);
        if (!CHECK(fk_forward_engine(&skeleton, c.t, c.q, c.s, c.inverse_binds, world, skinning) == FK_OK,
                   "seed %llu: engine", (unsigned long long)seed))
            continue;
        reference_pose(c.n, c.parents, c.t, c.q, c.s, c.inverse_binds, &ref);
        for (j = 0; j < c.n; ++j) {
            double we = error_in_bounds(world + 12 * j, &ref.world[j], &ref.world_abs[j], ref.depth[j]);
            double se = error_in_bounds(skinning + 12 * j, &ref.skinning[j], &ref.skinning_abs[j], ref.depth[j] + 1);
            worst = we > worst ? we : worst;
            worst = se > worst ? se : worst;
            CHECK(we <= 1.0 && se <= 1.0, "seed %llu (ENGINE_SEED=%llu to replay) joint %d: world at %.3g, skinning at "
                  "%.3g of the bound", (unsigned long long)seed, (unsigned long long)seed, j, we, se);
        }
    }
    printf("   engine matrices against double: largest error %.3f of the bound\n", worst);
}

/* Joint i of the original is joint map[i] of the permuted rig. */
static void permute_rig(const rig_case *c, const int *map, rig_case *out)
{
    int i;
    *out = *c;
    for (i = 0; i < c->n; ++i) {
        int to = map[i];
        out->parents[to] = c->parents[i] < 0 ? -1 : map[c->parents[i]];
        out->t[to] = c->t[i]; out->q[to] = c->q[i]; out->s[to] = c->s[i];
        memcpy(out->inverse_binds + 12 * to, c->inverse_binds + 12 * i, 12 * sizeof(float));
        out->rigid_binds[to] = c->rigid_binds[i];
    }
}

static int same_bits(const void *a, const void *b, size_t bytes) { return memcmp(a, b, bytes) == 0; }

/* The parents-first listing's results, and the permuted rig's mapped back. */
static int permutation_gives_same_bits(const rig_case *c, const int *map)
{
    static rig_case sorted, permuted;
    float world_a[12 * MAX_JOINTS], skin_a[12 * MAX_JOINTS], world_b[12 * MAX_JOINTS], skin_b[12 * MAX_JOINTS];
    fk_rigid rworld_a[MAX_JOINTS], rskin_a[MAX_JOINTS], rworld_b[MAX_JOINTS], rskin_b[MAX_JOINTS];
    int storage_a[FK_SKELETON_STORAGE(MAX_JOINTS)], storage_b[FK_SKELETON_STORAGE(MAX_JOINTS)], i, ok = 1;
    int to_sorted[MAX_JOINTS];
    fk_skeleton a, b;
    /* the parents-first listing: the order fk_skeleton_init() finds */
    if (fk_skeleton_init(&a, c->n, c->parents, storage_a) != FK_OK) return 0;
    for (i = 0; i < c->n; ++i) to_sorted[a.order[i]] = i;
    permute_rig(c, to_sorted, &sorted);
    permute_rig(&sorted, map, &permuted);
    if (fk_skeleton_init(&a, sorted.n, sorted.parents, storage_a) != FK_OK) return 0;
    for (i = 0; i < sorted.n; ++i) ok &= a.order[i] == i; /* parents first keeps its order */
    if (fk_skeleton_init(&b, permuted.n, permuted.parents, storage_b) != FK_OK) return 0;
    ok &= fk_forward_engine(&a, sorted.t, sorted.q, sorted.s, sorted.inverse_binds, world_a, skin_a) == FK_OK;
    ok &= fk_forward_engine(&b, permuted.t, permuted.q, permuted.s, permuted.inverse_binds, world_b, skin_b) == FK_OK;
    ok &= fk_forward_engine_rigid(&a, sorted.t, sorted.q, sorted.rigid_binds, rworld_a, rskin_a) == FK_OK;
    ok &= fk_forward_engine_rigid(&b, permuted.t, permuted.q, permuted.rigid_binds, rworld_b, rskin_b) == FK_OK;
    for (i = 0; i < c->n; ++i) {
        int j = map[i];
        ok &= same_bits(world_a + 12 * i, world_b + 12 * j, 12 * sizeof(float));
        ok &= same_bits(skin_a + 12 * i, skin_b + 12 * j, 12 * sizeof(float));
        ok &= same_bits(&rworld_a[i], &rworld_b[j], sizeof(fk_rigid));
        ok &= same_bits(&rskin_a[i], &rskin_b[j], sizeof(fk_rigid));
    }
    return ok;
}

static void every_order_gives_parents_first_bits(void)
{
    static rig_case c;
    int map[MAX_JOINTS], trial, i, p;
    /* the worked arm, all six orders of its three joints */
    static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    fk_vec3 t[3], s[3];
    fk_quat q[3];
    arm_pose(t, q, s, 1);
    c.n = 3;
    memcpy(c.parents, arm_parents, sizeof arm_parents);
    for (i = 0; i < 3; ++i) { c.t[i] = t[i]; c.q[i] = q[i]; c.s[i] = s[i]; }
    arm_inverse_binds(c.inverse_binds);
    for (i = 0; i < 3; ++i) c.rigid_binds[i] = fk_rigid_from_mat34(c.inverse_binds + 12 * i);
    for (p = 0; p < 6; ++p) CHECK(permutation_gives_same_bits(&c, orders[p]), "arm order %d", p);
    for (trial = 0; trial < 100; ++trial) {
        uint64_t seed = property_seed(trial);
        rng_state = seed;
        make_rig(&c, 1 + rng_below(MAX_JOINTS), trial % 2);
        for (i = 0; i < c.n; ++i) map[i] = c.n - 1 - i; /* reversed: children first */
        if (trial % 3) /* or a random order */
            for (i = c.n - 1; i > 0; --i) {
                int j = rng_below(i + 1), swap = map[i];
                map[i] = map[j]; map[j] = swap;
            }
        CHECK(permutation_gives_same_bits(&c, map), "seed %llu (ENGINE_SEED to replay): a reordered rig's bits differ",
              (unsigned long long)seed);
    }
}

/* Rigid TRS: the rigid call's world transforms are fk_forward_trs()'s
   matrices within float rounding, and its skinning transforms the matrix
   call's. */
static void rigid_call_matches_forward_trs(void)
{
    static rig_case c;
    static reference ref;
    float trs[12 * MAX_JOINTS], world[12 * MAX_JOINTS], skinning[12 * MAX_JOINTS], m[12];
    fk_rigid rworld[MAX_JOINTS], rskin[MAX_JOINTS];
    int storage[FK_SKELETON_STORAGE(MAX_JOINTS)], trial, j, e;
    double worst = 0.0;
    for (trial = 0; trial < 100; ++trial) {
        uint64_t seed = property_seed(trial);
        fk_skeleton skeleton;
        rng_state = seed;
        make_rig(&c, 1 + rng_below(MAX_JOINTS), 0);
        CHECK(fk_skeleton_init(&skeleton, c.n, c.parents, storage) == FK_OK, "init");
        CHECK(fk_forward_trs(c.n, c.parents, c.t, c.q, NULL, trs) == FK_OK, "trs");
        CHECK(fk_forward_engine_rigid(&skeleton, c.t, c.q, c.rigid_binds, rworld, rskin) == FK_OK, "rigid");
        CHECK(fk_forward_engine(&skeleton, c.t, c.q, NULL, c.inverse_binds, world, skinning) == FK_OK, "matrices");
        reference_pose(c.n, c.parents, c.t, c.q, NULL, c.inverse_binds, &ref);
        for (j = 0; j < c.n; ++j) {
            double we, se;
            fk_rigid_to_mat34(rworld[j], m);
            we = error_in_bounds(m, &ref.world[j], &ref.world_abs[j], ref.depth[j]);
            for (e = 0; e < 12; ++e) /* each within the bound of the exact pose, so within twice of each other */
                CHECK(fabs((double)m[e] - (double)trs[12 * j + e]) <= 2.0 * row_bound(&ref.world_abs[j], e / 4, ref.depth[j]),
                      "seed %llu joint %d element %d: rigid %.9g, fk_forward_trs %.9g", (unsigned long long)seed, j, e,
                      (double)m[e], (double)trs[12 * j + e]);
            fk_rigid_to_mat34(rskin[j], m);
            se = error_in_bounds(m, &ref.skinning[j], &ref.skinning_abs[j], ref.depth[j] + 1);
            worst = we > worst ? we : worst;
            worst = se > worst ? se : worst;
            CHECK(we <= 1.0 && se <= 1.0, "seed %llu joint %d: rigid world at %.3g, skinning at %.3g of the bound",
                  (unsigned long long)seed, j, we, se);
        }
    }
    printf("   engine rigid against double: largest error %.3f of the bound\n", worst);
}

/* The order is parents first, position its inverse, depth the longest path. */
static void skeleton_order_is_parents_first(void)
{
    int parents[MAX_JOINTS], storage[FK_SKELETON_STORAGE(MAX_JOINTS)], trial, i;
    for (trial = 0; trial < 200; ++trial) {
        int n = 1 + rng_below(MAX_JOINTS), placed[MAX_JOINTS], depth = 0;
        fk_skeleton s;
        random_tree(n, parents);
        if (!CHECK(fk_skeleton_init(&s, n, parents, storage) == FK_OK, "init")) return;
        memset(placed, 0, sizeof placed);
        for (i = 0; i < n; ++i) {
            int joint = s.order[i], d = 0, k;
            CHECK(joint >= 0 && joint < n && !placed[joint], "order[%d] = %d", i, joint);
            if (joint < 0 || joint >= n) return;
            CHECK(parents[joint] < 0 || placed[parents[joint]], "joint %d before its parent", joint);
            CHECK(s.position[joint] == i, "position of %d", joint);
            placed[joint] = 1;
            for (k = joint; k >= 0; k = parents[k]) ++d;
            depth = d > depth ? d : depth;
        }
        CHECK(s.depth == depth && s.joint_count == n && s.parents == parents, "depth %d, expected %d", s.depth, depth);
    }
}

static void skeleton_rejects_bad_parents(void)
{
    static const int cycle[4] = {-1, 2, 3, 1}, self[2] = {-1, 1}, out_of_range[2] = {-1, 2}, fine[2] = {-1, 0};
    int storage[FK_SKELETON_STORAGE(4)];
    fk_skeleton s;
    CHECK(fk_skeleton_init(&s, 4, cycle, storage) == FK_ERROR_CYCLE && s.joint_count == 0 && !s.order, "cycle");
    CHECK(fk_skeleton_init(&s, 2, self, storage) == FK_ERROR_SELF_PARENT && s.joint_count == 0, "self parent");
    CHECK(fk_skeleton_init(&s, 2, out_of_range, storage) == FK_ERROR_PARENT_OUT_OF_RANGE, "out of range");
    CHECK(fk_skeleton_init(&s, -1, fine, storage) == FK_ERROR_INVALID_COUNT, "negative count");
    CHECK(fk_skeleton_init(&s, 2, NULL, storage) == FK_ERROR_NULL_ARGUMENT, "no parents");
    CHECK(fk_skeleton_init(&s, 2, fine, NULL) == FK_ERROR_NULL_ARGUMENT, "no storage");
    CHECK(fk_skeleton_init(NULL, 2, fine, storage) == FK_ERROR_NULL_ARGUMENT, "no skeleton");
    CHECK(fk_skeleton_init(&s, 0, NULL, NULL) == FK_OK && s.joint_count == 0, "no joints");
    CHECK(fk_forward_engine(&s, NULL, NULL, NULL, NULL, NULL, NULL) == FK_OK, "no joints to pose");
}

/* Bad input: the error named, every output identities, in both calls. */
static void bad_input_is_reported(void)
{
    static rig_case c;
    float world[12 * MAX_JOINTS], skinning[12 * MAX_JOINTS];
    fk_rigid rworld[MAX_JOINTS], rskin[MAX_JOINTS];
    int storage[FK_SKELETON_STORAGE(MAX_JOINTS)], kind, j, e, root = 0;
    fk_skeleton s;
    rng_state = 7;
    make_rig(&c, 20, 1);
    while (c.parents[root] >= 0) ++root;
    CHECK(fk_skeleton_init(&s, c.n, c.parents, storage) == FK_OK, "init");
    CHECK(fk_forward_engine(NULL, c.t, c.q, c.s, NULL, world, NULL) == FK_ERROR_NULL_ARGUMENT, "no skeleton");
    CHECK(fk_forward_engine(&s, c.t, c.q, c.s, c.inverse_binds, world, NULL) == FK_ERROR_NULL_ARGUMENT, "no skinning out");
    CHECK(fk_forward_engine(&s, NULL, c.q, c.s, NULL, world, NULL) == FK_ERROR_NULL_ARGUMENT, "no translations");
    CHECK(fk_forward_engine_rigid(&s, c.t, NULL, NULL, rworld, NULL) == FK_ERROR_NULL_ARGUMENT, "no rotations");
    CHECK(fk_forward_engine_rigid(&s, c.t, c.q, c.rigid_binds, rworld, NULL) == FK_ERROR_NULL_ARGUMENT, "no skin out");
    for (kind = 0; kind < 9; ++kind) { /* kind 8: a root's, whose last rows alone it spoils */
        static rig_case bad;
        const int joint = kind == 8 ? root : 13;
        fk_result expected = kind < 2 ? FK_ERROR_INVALID_ROTATION : FK_ERROR_NOT_FINITE, got, got_rigid;
        bad = c;
        switch (kind) {
        case 0: bad.q[joint] = fk_quat_make(0, 0, 0, 0); break;
        case 1: bad.q[joint].y = NAN; break;
        case 2: bad.t[joint].x = INFINITY; break;
        case 3: bad.t[joint].z = NAN; break;
        case 4: bad.s[joint].y = NAN; break;
        case 5: bad.inverse_binds[12 * joint + 7] = NAN; bad.rigid_binds[joint].t.y = NAN; break;
        case 6: bad.inverse_binds[12 * joint + 1] = INFINITY; bad.rigid_binds[joint].q.x = INFINITY; break;
        case 7: bad.t[joint] = fk_vec3_make(3e38f, 3e38f, 3e38f); bad.s[joint] = fk_vec3_make(3e38f, 1, 1); break;
        case 8: bad.t[joint].z = NAN; break;
        }
        for (j = 0; j < c.n; ++j) bad.t[j] = kind == 7 && j != joint ? fk_vec3_make(3e38f, -3e38f, 3e38f) : bad.t[j];
        got = fk_forward_engine(&s, bad.t, bad.q, bad.s, bad.inverse_binds, world, skinning);
        got_rigid = fk_forward_engine_rigid(&s, bad.t, bad.q, bad.rigid_binds, rworld, rskin);
        CHECK(got == expected, "kind %d: %s", kind, fk_result_description(got));
        CHECK(got_rigid == expected || (kind == 4 && got_rigid == FK_OK), "kind %d rigid: %s", kind,
              fk_result_description(got_rigid));
        for (j = 0; j < c.n; ++j) {
            for (e = 0; e < 12; ++e)
                CHECK(world[12 * j + e] == (e % 5 == 0 ? 1.0f : 0.0f) && skinning[12 * j + e] == world[12 * j + e],
                      "kind %d: joint %d not identity", kind, j);
            if (got_rigid != FK_OK)
                CHECK(same_bits(&rworld[j], &rskin[j], sizeof(fk_rigid)) && rworld[j].q.w == 1.0f && rworld[j].t.x == 0.0f,
                      "kind %d: rigid joint %d not identity", kind, j);
        }
    }
}

/* A |q|^2 below float's normal range is rejected as fk_forward() rejects it:
   one whose reciprocal overflows (1e-40), and one whose reciprocal does not
   (1e-38), which would otherwise give a finite pose. */
static void tiny_rotation_is_rejected(void)
{
    static const float tiny[2] = {1e-20f, 1e-19f};
    const int parents[2] = {-1, 0};
    const fk_vec3 t[2] = {{0, 0, 0}, {1, 0, 0}};
    float world[24];
    fk_rigid rworld[2];
    int storage[FK_SKELETON_STORAGE(2)], k;
    fk_skeleton s;
    CHECK(fk_skeleton_init(&s, 2, parents, storage) == FK_OK, "init");
    for (k = 0; k < 2; ++k) {
        const fk_quat q[2] = {{0, 0, 0, 1}, {0, 0, 0, tiny[k]}};
        CHECK(fk_forward_engine(&s, t, q, NULL, NULL, world, NULL) == FK_ERROR_INVALID_ROTATION, "matrices, w %g",
              (double)tiny[k]);
        CHECK(fk_forward_engine_rigid(&s, t, q, NULL, rworld, NULL) == FK_ERROR_INVALID_ROTATION, "rigid, w %g",
              (double)tiny[k]);
    }
}

int main(void)
{
    RUN_TEST(worked_rig_matches_double_reference);
    RUN_TEST(rest_pose_skins_to_identity);
    RUN_TEST(random_rigs_match_double_reference);
    RUN_TEST(every_order_gives_parents_first_bits);
    RUN_TEST(rigid_call_matches_forward_trs);
    RUN_TEST(skeleton_order_is_parents_first);
    RUN_TEST(skeleton_rejects_bad_parents);
    RUN_TEST(bad_input_is_reported);
    RUN_TEST(tiny_rotation_is_rejected);
    return check_finish();
}
