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

#include <float.h> /* FLT_EPSILON: here, so that the sections merge apart */

/* A random mesh with random targets: the base in interleaved records (position,
   normal, tangent), so that strides are exercised; dense deltas packed, sparse
   ones with a padded stride and their vertices in random order. */
#define MORPH_VERTICES 40
#define MORPH_TARGETS 4
#define MORPH_TRIALS 200

typedef struct morph_vertex {
    float position[3], normal[3], tangent[4];
} morph_vertex;

typedef struct morph_case {
    int vertex_count, target_count;
    morph_vertex base[MORPH_VERTICES];
    float deltas[MORPH_TARGETS][3][MORPH_VERTICES][4]; /* [target][attribute][entry] x y z, padding */
    uint32_t indices[MORPH_TARGETS][MORPH_VERTICES];
    fk_morph_target targets[MORPH_TARGETS];
    float weights[MORPH_TARGETS];
    float out_positions[MORPH_VERTICES][3], out_normals[MORPH_VERTICES][3], out_tangents[MORPH_VERTICES][4];
} morph_case;

static void random_unit3(float *v)
{
    fk_vec3 u;
    do u = random_vec3(1.0f);
    while (fk_vec3_dot(u, u) < 0.01f);
    u = fk_vec3_normalize(u);
    v[0] = u.x; v[1] = u.y; v[2] = u.z;
}

/* Points a target at its deltas: a sparse one at `count` entries of padded
   records (every fourth float), a dense one at packed x y z. */
static void morph_point_target(morph_case *c, int i, int sparse, int count)
{
    fk_morph_target *t = &c->targets[i];
    memset(t, 0, sizeof *t);
    t->position_deltas = &c->deltas[i][0][0][0];
    t->normal_deltas = &c->deltas[i][1][0][0];
    t->tangent_deltas = &c->deltas[i][2][0][0];
    if (!sparse) return;
    t->position_delta_stride = t->normal_delta_stride = t->tangent_delta_stride = 4 * sizeof(float);
    t->indices = c->indices[i];
    t->sparse_count = count;
}

/* Packs target i's padded records x y z for a dense target. */
static void morph_pack(morph_case *c, int i)
{
    int a, e;
    for (a = 0; a < 3; ++a) {
        float packed[MORPH_VERTICES * 3];
        for (e = 0; e < c->vertex_count; ++e) memcpy(packed + 3 * e, c->deltas[i][a][e], 3 * sizeof(float));
        memset(c->deltas[i][a], 0, sizeof c->deltas[i][a]);
        memcpy(c->deltas[i][a], packed, sizeof packed);
    }
}

static void morph_random_case(morph_case *c)
{
    int v, i, a, e;
    memset(c, 0, sizeof *c);
    c->vertex_count = 1 + rng_below(MORPH_VERTICES);
    c->target_count = 1 + rng_below(MORPH_TARGETS);
    for (v = 0; v < c->vertex_count; ++v) {
        morph_vertex *b = &c->base[v];
        fk_vec3 p = random_vec3(2.0f);
        b->position[0] = p.x; b->position[1] = p.y; b->position[2] = p.z;
        random_unit3(b->normal);
        random_unit3(b->tangent);
        b->tangent[3] = rng_below(2) ? 1.0f : -1.0f;
    }
    for (i = 0; i < c->target_count; ++i) {
        int sparse = rng_below(2), count = sparse ? rng_below(c->vertex_count + 1) : c->vertex_count;
        for (v = 0; v < c->vertex_count; ++v) c->indices[i][v] = (uint32_t)v;
        for (v = c->vertex_count - 1; v > 0; --v) {
            int j = rng_below(v + 1);
            uint32_t swap = c->indices[i][v];
            c->indices[i][v] = c->indices[i][j]; c->indices[i][j] = swap;
        }
        for (a = 0; a < 3; ++a)
            for (e = 0; e < count; ++e) {
                fk_vec3 d = random_vec3(a == 0 ? 0.5f : 0.3f);
                c->deltas[i][a][e][0] = d.x; c->deltas[i][a][e][1] = d.y; c->deltas[i][a][e][2] = d.z;
                c->deltas[i][a][e][3] = NAN; /* padding: never read */
            }
        if (!sparse) morph_pack(c, i);
        morph_point_target(c, i, sparse, count);
        c->weights[i] = rng_uniform(-1.0f, 1.5f); /* glTF allows negative weights */
    }
}

static fk_morph_desc morph_desc_of(morph_case *c)
{
    fk_morph_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = c->vertex_count;
    d.positions = c->base[0].position;
    d.normals = c->base[0].normal;
    d.tangents = c->base[0].tangent;
    d.position_stride = d.normal_stride = d.tangent_stride = sizeof(morph_vertex);
    d.target_count = c->target_count;
    d.targets = c->targets;
    d.weights = c->weights;
    d.out_positions = c->out_positions[0];
    d.out_normals = c->out_normals[0];
    d.out_tangents = c->out_tangents[0];
    return d;
}

/* Target i's delta of attribute a for vertex v, zero where a sparse target lists no entry. */
static fk_vec3 morph_delta_of(const morph_case *c, int i, int a, int v)
{
    const fk_morph_target *t = &c->targets[i];
    const float *deltas = a == 0 ? t->position_deltas : a == 1 ? t->normal_deltas : t->tangent_deltas;
    int e;
    if (!t->indices) return fk_vec3_make(deltas[3 * v], deltas[3 * v + 1], deltas[3 * v + 2]);
    for (e = 0; e < t->sparse_count; ++e)
        if ((int)t->indices[e] == v) return fk_vec3_make(deltas[4 * e], deltas[4 * e + 1], deltas[4 * e + 2]);
    return fk_vec3_make(0.0f, 0.0f, 0.0f);
}

/* base + sum_i w_i d_i in double, and the bound on float's error in the same sum:
   every product and every addition rounds once, each by at most FLT_EPSILON/2 of
   a value no larger than |base| + sum |w_i d_i| (per component), so (T + 1)
   FLT_EPSILON times that bounds the whole. */
static void morph_reference(const morph_case *c, int a, int v, double sum[3], double *bound)
{
    const float *base = a == 0 ? c->base[v].position : a == 1 ? c->base[v].normal : c->base[v].tangent;
    double magnitude = 0.0;
    int i, k;
    for (k = 0; k < 3; ++k) sum[k] = base[k];
    for (k = 0; k < 3; ++k) magnitude = fmax(magnitude, fabs(base[k]));
    for (k = 0; k < 3; ++k) {
        double m = fabs(base[k]);
        for (i = 0; i < c->target_count; ++i) {
            fk_vec3 d = morph_delta_of(c, i, a, v);
            double dk = k == 0 ? d.x : k == 1 ? d.y : d.z;
            sum[k] += (double)c->weights[i] * dk;
            m += fabs((double)c->weights[i] * dk);
        }
        magnitude = fmax(magnitude, m);
    }
    *bound = (c->target_count + 1) * (double)FLT_EPSILON * magnitude;
}

static void morph_worked_example_on_a_triangle(void)
{
    /* By hand. Triangle (0,0,0) (1,0,0) (0,1,0), normals +z, tangents (1,0,0,-1).
       Target A, dense, weight 0.5: lifts vertex 0 by (0,0,1) and tilts its normal
       by (1.5,0,0). Target B, sparse on vertex 2 only, weight 0.25: lifts it by
       (0,0,2) and turns its tangent by (0,3,0). So vertex 0 moves to (0,0,0.5),
       its normal to (0.75,0,1) = 0.25 (3,0,4), unit (0.6,0,0.8); vertex 2 to
       (0,1,0.5), its tangent to (1,0.75,0) = 0.25 (4,3,0), unit (0.8,0.6,0), w
       still -1; vertex 1 and everything else stays as it was. */
    float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    float normals[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    float tangents[12] = {1, 0, 0, -1, 1, 0, 0, -1, 1, 0, 0, -1};
    float a_positions[9] = {0, 0, 1, 0, 0, 0, 0, 0, 0}, a_normals[9] = {1.5f, 0, 0, 0, 0, 0, 0, 0, 0};
    float b_positions[3] = {0, 0, 2}, b_tangents[3] = {0, 3, 0};
    uint32_t b_index[1] = {2};
    fk_morph_target targets[2];
    float weights[2] = {0.5f, 0.25f};
    float out_p[9], out_n[9], out_t[12];
    const float want_p[9] = {0, 0, 0.5f, 1, 0, 0, 0, 1, 0.5f};
    const float want_n[9] = {0.6f, 0, 0.8f, 0, 0, 1, 0, 0, 1};
    const float want_t[12] = {1, 0, 0, -1, 1, 0, 0, -1, 0.8f, 0.6f, 0, -1};
    fk_morph_desc d;
    int k;
    memset(targets, 0, sizeof targets);
    targets[0].position_deltas = a_positions;
    targets[0].normal_deltas = a_normals;
    targets[1].position_deltas = b_positions;
    targets[1].tangent_deltas = b_tangents;
    targets[1].indices = b_index;
    targets[1].sparse_count = 1;
    memset(&d, 0, sizeof d);
    d.vertex_count = 3;
    d.positions = positions; d.normals = normals; d.tangents = tangents;
    d.target_count = 2; d.targets = targets; d.weights = weights;
    d.out_positions = out_p; d.out_normals = out_n; d.out_tangents = out_t;
    CHECK(fk_morph_apply(&d) == FK_OK, "the triangle does not morph");
    /* Positions are sums of exact binary fractions; the unit vectors are one
       normalization away, within a few roundings. */
    for (k = 0; k < 9; ++k) CHECK(out_p[k] == want_p[k], "position %d is %g, not %g", k, out_p[k], want_p[k]);
    for (k = 0; k < 9; ++k)
        CHECK(fabsf(out_n[k] - want_n[k]) <= 2 * FLT_EPSILON, "normal %d is %.9g, not %g", k, out_n[k], want_n[k]);
    for (k = 0; k < 12; ++k)
        CHECK(fabsf(out_t[k] - want_t[k]) <= 2 * FLT_EPSILON, "tangent %d is %.9g, not %g", k, out_t[k], want_t[k]);
}

static void morph_zero_weights_give_the_base_bits(void)
{
    int trial, i, v;
    rng_restart();
    for (trial = 0; trial < MORPH_TRIALS; ++trial) {
        morph_case c;
        fk_morph_desc d;
        morph_random_case(&c);
        for (i = 0; i < c.target_count; ++i) c.weights[i] = i % 2 ? -0.0f : 0.0f;
        /* Base normals off unit length, and zeros of negative sign (which adding
           a zero term would turn positive): kept, not mended. */
        c.base[0].normal[0] *= 3.0f;
        c.base[0].position[1] = -0.0f;
        c.base[0].tangent[3] = -0.0f;
        d = morph_desc_of(&c);
        CHECK(fk_morph_apply(&d) == FK_OK, "zero weights refused (seed %lu)", seed);
        for (v = 0; v < c.vertex_count; ++v)
            CHECK(memcmp(c.out_positions[v], c.base[v].position, 12) == 0 &&
                  memcmp(c.out_normals[v], c.base[v].normal, 12) == 0 &&
                  memcmp(c.out_tangents[v], c.base[v].tangent, 16) == 0,
                  "vertex %d changed under zero weights (seed %lu)", v, seed);
    }
}

static void morph_one_target_at_weight_one_adds_its_delta(void)
{
    int trial, v;
    rng_restart();
    for (trial = 0; trial < MORPH_TRIALS; ++trial) {
        morph_case c;
        fk_morph_desc d;
        morph_random_case(&c);
        c.target_count = 1;
        c.weights[0] = 1.0f;
        d = morph_desc_of(&c);
        CHECK(fk_morph_apply(&d) == FK_OK, "one target refused (seed %lu)", seed);
        /* 1 * d is exact, so each component is the one rounding of base + delta;
           directions are that sum normalized (or the base, where it is unchanged). */
        for (v = 0; v < c.vertex_count; ++v) {
            fk_vec3 dp = morph_delta_of(&c, 0, 0, v), dn = morph_delta_of(&c, 0, 1, v);
            const float *p = c.base[v].position, *n = c.base[v].normal;
            fk_vec3 n_sum = fk_vec3_make(n[0] + dn.x, n[1] + dn.y, n[2] + dn.z);
            fk_vec3 n_want = n_sum.x == n[0] && n_sum.y == n[1] && n_sum.z == n[2]
                                 ? fk_vec3_make(n[0], n[1], n[2]) : fk_vec3_normalize(n_sum);
            CHECK(c.out_positions[v][0] == p[0] + dp.x && c.out_positions[v][1] == p[1] + dp.y &&
                  c.out_positions[v][2] == p[2] + dp.z, "vertex %d is not base + delta (seed %lu)", v, seed);
            CHECK(c.out_normals[v][0] == n_want.x && c.out_normals[v][1] == n_want.y && c.out_normals[v][2] == n_want.z,
                  "normal %d is not normalize(base + delta) (seed %lu)", v, seed);
        }
    }
}

static void morph_is_base_plus_weighted_deltas(void)
{
    int trial, v, a, k;
    rng_restart();
    for (trial = 0; trial < MORPH_TRIALS; ++trial) {
        morph_case c;
        fk_morph_desc d;
        morph_random_case(&c);
        d = morph_desc_of(&c);
        CHECK(fk_morph_apply(&d) == FK_OK, "random morph refused (seed %lu)", seed);
        for (v = 0; v < c.vertex_count; ++v)
            for (a = 0; a < 3; ++a) {
                double sum[3], bound, length;
                const float *out = a == 0 ? c.out_positions[v] : a == 1 ? c.out_normals[v] : c.out_tangents[v];
                morph_reference(&c, a, v, sum, &bound);
                length = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
                if (a > 0) {
                    /* The direction of a sum off by at most bound per component turns by
                       at most 2 sqrt(3) bound / |sum|, plus normalizing's few roundings. */
                    if (length < 1e-3) continue;
                    bound = 2.0 * sqrt(3.0) * bound / length + 4.0 * FLT_EPSILON;
                    for (k = 0; k < 3; ++k) sum[k] /= length;
                }
                for (k = 0; k < 3; ++k)
                    CHECK(fabs(out[k] - sum[k]) <= bound, "vertex %d attribute %d component %d off by %g > %g (seed %lu)",
                          v, a, k, fabs(out[k] - sum[k]), bound, seed);
            }
    }
}

static void morph_sparse_equals_dense(void)
{
    int trial, i, v, a, e, k;
    rng_restart();
    for (trial = 0; trial < MORPH_TRIALS; ++trial) {
        morph_case sparse, dense;
        fk_morph_desc ds, dd;
        morph_random_case(&sparse);
        /* The same deltas spelled densely: zero for every vertex a sparse target leaves out. */
        dense = sparse;
        for (i = 0; i < sparse.target_count; ++i) {
            float full[3][MORPH_VERTICES][4];
            if (sparse.targets[i].indices) {
                memset(full, 0, sizeof full);
                for (a = 0; a < 3; ++a)
                    for (e = 0; e < sparse.targets[i].sparse_count; ++e)
                        for (k = 0; k < 3; ++k) full[a][sparse.indices[i][e]][k] = sparse.deltas[i][a][e][k];
                memcpy(dense.deltas[i], full, sizeof full);
                morph_pack(&dense, i);
            }
            morph_point_target(&dense, i, 0, dense.vertex_count);
        }
        ds = morph_desc_of(&sparse);
        dd = morph_desc_of(&dense);
        CHECK(fk_morph_apply(&ds) == FK_OK && fk_morph_apply(&dd) == FK_OK, "morph refused (seed %lu)", seed);
        /* Adding w 0 changes no value (at most a zero's sign), so every value agrees. */
        for (v = 0; v < sparse.vertex_count; ++v)
            for (k = 0; k < 3; ++k)
                CHECK(sparse.out_positions[v][k] == dense.out_positions[v][k] &&
                      sparse.out_normals[v][k] == dense.out_normals[v][k] &&
                      sparse.out_tangents[v][k] == dense.out_tangents[v][k],
                      "vertex %d component %d: sparse and dense differ (seed %lu)", v, k, seed);
    }
}

static void morph_in_place_equals_out_of_place(void)
{
    int trial, v;
    rng_restart();
    for (trial = 0; trial < MORPH_TRIALS; ++trial) {
        morph_case c;
        fk_morph_desc d;
        morph_vertex records[MORPH_VERTICES];
        morph_random_case(&c);
        d = morph_desc_of(&c);
        CHECK(fk_morph_apply(&d) == FK_OK, "morph refused (seed %lu)", seed);
        /* In place: positions over their own interleaved records. */
        memcpy(records, c.base, sizeof records);
        d.positions = d.out_positions = records[0].position;
        d.out_position_stride = sizeof(morph_vertex);
        d.normals = d.tangents = NULL;
        CHECK(fk_morph_apply(&d) == FK_OK, "in-place morph refused (seed %lu)", seed);
        for (v = 0; v < c.vertex_count; ++v)
            CHECK(memcmp(records[v].position, c.out_positions[v], 12) == 0,
                  "vertex %d: in place differs from out of place (seed %lu)", v, seed);
    }
}

static void morph_directions_are_unit_and_tangent_w_is_kept(void)
{
    int trial, v;
    rng_restart();
    for (trial = 0; trial < MORPH_TRIALS; ++trial) {
        morph_case c;
        fk_morph_desc d;
        const uint32_t nan_with_payload = 0x7fc12345u;
        morph_random_case(&c);
        memcpy(&c.base[0].tangent[3], &nan_with_payload, 4);
        c.base[c.vertex_count - 1].tangent[3] = -0.0f;
        d = morph_desc_of(&c);
        CHECK(fk_morph_apply(&d) == FK_OK, "morph refused (seed %lu)", seed);
        for (v = 0; v < c.vertex_count; ++v) {
            /* A unit vector's squared length is one within a few roundings. */
            fk_vec3 n = fk_vec3_make(c.out_normals[v][0], c.out_normals[v][1], c.out_normals[v][2]);
            fk_vec3 t = fk_vec3_make(c.out_tangents[v][0], c.out_tangents[v][1], c.out_tangents[v][2]);
            CHECK(fabsf(fk_vec3_dot(n, n) - 1.0f) <= 4 * FLT_EPSILON, "normal %d has length^2 %.9g (seed %lu)",
                  v, fk_vec3_dot(n, n), seed);
            CHECK(fabsf(fk_vec3_dot(t, t) - 1.0f) <= 4 * FLT_EPSILON, "tangent %d has length^2 %.9g (seed %lu)",
                  v, fk_vec3_dot(t, t), seed);
            CHECK(memcmp(&c.out_tangents[v][3], &c.base[v].tangent[3], 4) == 0, "tangent %d lost its w bits (seed %lu)",
                  v, seed);
        }
    }
}

static void morph_to_zero_length_keeps_the_base_direction(void)
{
    /* A target that takes vertex 1's normal and tangent exactly to zero at weight
       1 (n - n), and leaves vertex 0's alone: vertex 1 keeps its base directions
       bit for bit, not normalized, and no NaN appears. */
    float positions[6] = {0, 0, 0, 1, 0, 0};
    float normals[6] = {0, 0, 1, 0.1f, 0.2f, 0.3f};
    float tangents[8] = {1, 0, 0, 1, 0.3f, -0.2f, 0.7f, -1};
    float n_deltas[6] = {0, 0, 0, -0.1f, -0.2f, -0.3f}, t_deltas[6] = {0, 0, 0, -0.3f, 0.2f, -0.7f};
    float weight = 1.0f, out_p[6], out_n[6], out_t[8];
    fk_morph_target target;
    fk_morph_desc d;
    memset(&target, 0, sizeof target);
    target.normal_deltas = n_deltas;
    target.tangent_deltas = t_deltas;
    memset(&d, 0, sizeof d);
    d.vertex_count = 2;
    d.positions = positions; d.normals = normals; d.tangents = tangents;
    d.target_count = 1; d.targets = &target; d.weights = &weight;
    d.out_positions = out_p; d.out_normals = out_n; d.out_tangents = out_t;
    CHECK(fk_morph_apply(&d) == FK_OK, "morph refused");
    CHECK(memcmp(out_n, normals, sizeof out_n) == 0, "a zero-length normal did not keep its base");
    CHECK(memcmp(out_t, tangents, sizeof out_t) == 0, "a zero-length tangent did not keep its base");
}

static void morph_weight_zero_targets_are_not_read(void)
{
    /* A target at weight 0 with NaN deltas and an index out of range is skipped
       unread: the call succeeds and the base comes through bit for bit. */
    float positions[6] = {0, 1, 2, 3, 4, 5}, deltas[3] = {NAN, INFINITY, 0}, out[6];
    uint32_t index[1] = {7};
    float weight = 0.0f;
    fk_morph_target target;
    fk_morph_desc d;
    memset(&target, 0, sizeof target);
    target.position_deltas = deltas;
    target.indices = index;
    target.sparse_count = 1;
    memset(&d, 0, sizeof d);
    d.vertex_count = 2;
    d.positions = positions; d.out_positions = out;
    d.target_count = 1; d.targets = &target; d.weights = &weight;
    CHECK(fk_morph_apply(&d) == FK_OK && memcmp(out, positions, sizeof out) == 0, "a weight-0 target was read");
}

static void morph_then_identity_skinning_is_the_morph(void)
{
    int trial, v, k;
    rng_restart();
    for (trial = 0; trial < MORPH_TRIALS; ++trial) {
        morph_case c;
        fk_morph_desc d;
        fk_skin_desc skin;
        fk_rigid bones[2];
        float weights[MORPH_VERTICES][2], skinned_p[MORPH_VERTICES][3], skinned_n[MORPH_VERTICES][3];
        uint16_t joints[MORPH_VERTICES][2];
        morph_random_case(&c);
        d = morph_desc_of(&c);
        CHECK(fk_morph_apply(&d) == FK_OK, "morph refused (seed %lu)", seed);
        bones[0] = bones[1] = fk_rigid_identity();
        for (v = 0; v < c.vertex_count; ++v) {
            joints[v][0] = 0; joints[v][1] = 1;
            weights[v][0] = 1.0f; weights[v][1] = 0.0f;
        }
        memset(&skin, 0, sizeof skin);
        skin.vertex_count = c.vertex_count;
        skin.influences = 2;
        skin.positions = c.out_positions[0];
        skin.normals = c.out_normals[0];
        skin.joints = joints[0];
        skin.weights = weights[0];
        skin.transforms = bones;
        skin.transform_count = 2;
        skin.out_positions = skinned_p[0];
        skin.out_normals = skinned_n[0];
        CHECK(fk_skin_lbs(&skin) == FK_OK, "skinning refused (seed %lu)", seed);
        /* The identity times a point, plus zeros, is exact; the skinned normal is the
           morphed unit normal renormalized, which moves it by a rounding or two. */
        for (v = 0; v < c.vertex_count; ++v)
            for (k = 0; k < 3; ++k) {
                CHECK(skinned_p[v][k] == c.out_positions[v][k], "vertex %d moved under identity bones (seed %lu)", v, seed);
                CHECK(fabsf(skinned_n[v][k] - c.out_normals[v][k]) <= 2 * FLT_EPSILON,
                      "normal %d turned under identity bones (seed %lu)", v, seed);
            }
    }
}

static void morph_then_skinning_is_skinning_the_morphed_mesh(void)
{
    int trial, v, k, dqs;
    rng_restart();
    for (trial = 0; trial < MORPH_TRIALS; ++trial)
        for (dqs = 0; dqs < 2; ++dqs) {
            morph_case c;
            fk_morph_desc d;
            fk_skin_desc skin;
            fk_rigid bones[3];
            float weights[MORPH_VERTICES][2], manual_p[MORPH_VERTICES][3], manual_n[MORPH_VERTICES][3];
            float from_morph_p[MORPH_VERTICES][3], from_morph_n[MORPH_VERTICES][3];
            float from_manual_p[MORPH_VERTICES][3], from_manual_n[MORPH_VERTICES][3];
            double bound_p[MORPH_VERTICES], bound_n[MORPH_VERTICES];
            uint16_t joints[MORPH_VERTICES][2];
            morph_random_case(&c);
            d = morph_desc_of(&c);
            CHECK(fk_morph_apply(&d) == FK_OK, "morph refused (seed %lu)", seed);
            /* The mesh morphed by hand, in double, then rounded. */
            for (v = 0; v < c.vertex_count; ++v) {
                double sum[3], bound, length;
                morph_reference(&c, 0, v, sum, &bound);
                for (k = 0; k < 3; ++k) manual_p[v][k] = (float)sum[k];
                bound_p[v] = bound;
                morph_reference(&c, 1, v, sum, &bound);
                length = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
                for (k = 0; k < 3; ++k) manual_n[v][k] = (float)(sum[k] / length);
                bound_n[v] = length < 1e-3 ? 3.0 : 2.0 * sqrt(3.0) * bound / length + 4.0 * FLT_EPSILON;
            }
            for (k = 0; k < 3; ++k) {
                bones[k].q = random_quat();
                bones[k].t = random_vec3(2.0f);
            }
            for (v = 0; v < c.vertex_count; ++v) {
                joints[v][0] = (uint16_t)rng_below(3); joints[v][1] = (uint16_t)rng_below(3);
                weights[v][0] = rng_uniform(0.0f, 1.0f); weights[v][1] = 1.0f - weights[v][0];
            }
            memset(&skin, 0, sizeof skin);
            skin.vertex_count = c.vertex_count;
            skin.influences = 2;
            skin.joints = joints[0];
            skin.weights = weights[0];
            skin.transforms = bones;
            skin.transform_count = 3;
            skin.positions = c.out_positions[0]; skin.normals = c.out_normals[0];
            skin.out_positions = from_morph_p[0]; skin.out_normals = from_morph_n[0];
            CHECK((dqs ? fk_skin_dqs(&skin) : fk_skin_lbs(&skin)) == FK_OK, "skinning refused (seed %lu)", seed);
            skin.positions = manual_p[0]; skin.normals = manual_n[0];
            skin.out_positions = from_manual_p[0]; skin.out_normals = from_manual_n[0];
            CHECK((dqs ? fk_skin_dqs(&skin) : fk_skin_lbs(&skin)) == FK_OK, "skinning refused (seed %lu)", seed);
            /* Two inputs within the morph's bound of each other (plus the manual
               mesh's rounding to float) are moved by blends of rotations, which
               stretch no distance, so they stay that close plus skinning's own
               roundings: a few FLT_EPSILON of the skinned point's size (|p| + |t|
               <= 3.5 + 3.5 here). DQS rotates a normal by a rotation that depends
               on the bones alone; LBS normalizes M n, M = w0 R0 + w1 R1, which
               magnifies a change of n by at most 2 / |M n| (|M| <= 1), so vertices
               whose bones nearly cancel (|M n| < 0.01) are left out. */
            for (v = 0; v < c.vertex_count; ++v) {
                fk_vec3 n = fk_vec3_make(c.out_normals[v][0], c.out_normals[v][1], c.out_normals[v][2]);
                fk_vec3 blended = fk_vec3_add(fk_vec3_scale(fk_quat_rotate(bones[joints[v][0]].q, n), weights[v][0]),
                                              fk_vec3_scale(fk_quat_rotate(bones[joints[v][1]].q, n), weights[v][1]));
                double gain = dqs ? 1.0 : 2.0 / fk_vec3_length(blended);
                double tol_p = sqrt(3.0) * (bound_p[v] + 4.0 * FLT_EPSILON) + 16.0 * 7.0 * FLT_EPSILON;
                double tol_n = gain * sqrt(3.0) * (bound_n[v] + 4.0 * FLT_EPSILON) + 16.0 * FLT_EPSILON;
                if (!dqs && fk_vec3_length(blended) < 0.01f) continue;
                for (k = 0; k < 3; ++k) {
                    CHECK(fabs(from_morph_p[v][k] - from_manual_p[v][k]) <= tol_p,
                          "%s: vertex %d off by %g > %g (seed %lu)", dqs ? "DQS" : "LBS", v,
                          fabs(from_morph_p[v][k] - from_manual_p[v][k]), tol_p, seed);
                    CHECK(fabs(from_morph_n[v][k] - from_manual_n[v][k]) <= tol_n,
                          "%s: normal %d off by %g > %g (seed %lu)", dqs ? "DQS" : "LBS", v,
                          fabs(from_morph_n[v][k] - from_manual_n[v][k]), tol_n, seed);
                }
            }
        }
}

/* Runs a bad descriptor over outputs full of a sentinel: the code must be the
   expected one and every output byte still the sentinel. */
static void morph_expect_refusal(fk_morph_desc d, fk_result expected, const char *what)
{
    float out_p[12], out_n[12], out_t[16];
    unsigned char sentinel[sizeof out_t];
    fk_result got;
    memset(sentinel, 0xa5, sizeof sentinel);
    memset(out_p, 0xa5, sizeof out_p); memset(out_n, 0xa5, sizeof out_n); memset(out_t, 0xa5, sizeof out_t);
    if (d.out_positions) d.out_positions = out_p;
    if (d.out_normals) d.out_normals = out_n;
    if (d.out_tangents) d.out_tangents = out_t;
    got = fk_morph_apply(&d);
    CHECK(got == expected, "%s: got %s, not %s", what, fk_result_description(got), fk_result_description(expected));
    CHECK(memcmp(out_p, sentinel, sizeof out_p) == 0 && memcmp(out_n, sentinel, sizeof out_n) == 0 &&
          memcmp(out_t, sentinel, sizeof out_t) == 0, "%s: an output was written", what);
}

static void morph_refuses_bad_input_and_writes_nothing(void)
{
    float positions[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    float normals[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    float tangents[16] = {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1};
    float dense[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}, sparse[6] = {1, 0, 0, 0, 1, 0}, bad[12];
    uint32_t indices[2] = {3, 1}, bad_indices[2] = {1, 4};
    fk_morph_target targets[2], broken[2];
    float weights[2] = {0.5f, -0.5f}, bad_weights[2], out[16];
    fk_morph_desc good, d;
    memset(targets, 0, sizeof targets);
    targets[0].position_deltas = targets[0].normal_deltas = targets[0].tangent_deltas = dense;
    targets[1].position_deltas = targets[1].normal_deltas = targets[1].tangent_deltas = sparse;
    targets[1].indices = indices;
    targets[1].sparse_count = 2;
    memset(&good, 0, sizeof good);
    good.vertex_count = 4;
    good.positions = positions; good.normals = normals; good.tangents = tangents;
    good.target_count = 2; good.targets = targets; good.weights = weights;
    /* morph_expect_refusal() gives each output its own sentinel buffer. */
    good.out_positions = good.out_normals = good.out_tangents = out;

    CHECK(fk_morph_apply(NULL) == FK_ERROR_NULL_ARGUMENT, "a NULL descriptor was accepted");
    d = good; d.positions = NULL; morph_expect_refusal(d, FK_ERROR_NULL_ARGUMENT, "no positions");
    d = good; d.out_positions = NULL; morph_expect_refusal(d, FK_ERROR_NULL_ARGUMENT, "no output positions");
    d = good; d.out_normals = NULL; morph_expect_refusal(d, FK_ERROR_NULL_ARGUMENT, "normals without an output");
    d = good; d.out_tangents = NULL; morph_expect_refusal(d, FK_ERROR_NULL_ARGUMENT, "tangents without an output");
    d = good; d.targets = NULL; morph_expect_refusal(d, FK_ERROR_NULL_ARGUMENT, "no targets");
    d = good; d.weights = NULL; morph_expect_refusal(d, FK_ERROR_NULL_ARGUMENT, "no weights");
    d = good; d.vertex_count = -1; morph_expect_refusal(d, FK_ERROR_INVALID_COUNT, "negative vertex count");
    d = good; d.target_count = -1; morph_expect_refusal(d, FK_ERROR_INVALID_COUNT, "negative target count");
    memcpy(broken, targets, sizeof broken);
    broken[1].sparse_count = -1;
    d = good; d.targets = broken; morph_expect_refusal(d, FK_ERROR_INVALID_COUNT, "negative sparse count");
    memcpy(broken, targets, sizeof broken);
    broken[0].sparse_count = 2;
    d = good; d.targets = broken; morph_expect_refusal(d, FK_ERROR_INVALID_COUNT, "a dense target with a sparse count");
    d = good; d.position_stride = 8; morph_expect_refusal(d, FK_ERROR_INVALID_STRIDE, "a stride below a position");
    d = good; d.out_tangent_stride = 14; morph_expect_refusal(d, FK_ERROR_INVALID_STRIDE, "a misaligned tangent stride");
    memcpy(broken, targets, sizeof broken);
    broken[1].normal_delta_stride = 4;
    d = good; d.targets = broken; morph_expect_refusal(d, FK_ERROR_INVALID_STRIDE, "a stride below a normal delta");
    /* Normals and tangents in place, and positions overlapping at another stride. */
    d = good; d.out_normals = (float *)normals;
    CHECK(fk_morph_apply(&d) == FK_ERROR_CONFLICTING_ARGUMENTS, "normals in place were accepted");
    d = good; d.out_tangents = tangents + 4;
    CHECK(fk_morph_apply(&d) == FK_ERROR_CONFLICTING_ARGUMENTS, "overlapping tangents were accepted");
    d = good; d.out_positions = positions; d.out_position_stride = 16;
    CHECK(fk_morph_apply(&d) == FK_ERROR_CONFLICTING_ARGUMENTS, "positions overlapping at another stride were accepted");
    CHECK(memcmp(normals, (const float[12]){0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}, sizeof normals) == 0 &&
          memcmp(positions, (const float[12]){0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}, sizeof positions) == 0 &&
          memcmp(tangents, (const float[16]){1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1}, sizeof tangents) == 0,
          "a refused overlapping call wrote");
    /* Weights: infinite or NaN, in the last target, so that the first has been seen. */
    memcpy(bad_weights, weights, sizeof bad_weights);
    bad_weights[1] = NAN;
    d = good; d.weights = bad_weights; morph_expect_refusal(d, FK_ERROR_INVALID_WEIGHT, "a NaN weight");
    bad_weights[1] = -INFINITY;
    d = good; d.weights = bad_weights; morph_expect_refusal(d, FK_ERROR_INVALID_WEIGHT, "an infinite weight");
    memcpy(broken, targets, sizeof broken);
    broken[1].indices = bad_indices;
    d = good; d.targets = broken; morph_expect_refusal(d, FK_ERROR_JOINT_OUT_OF_RANGE, "a sparse index past the vertices");
    /* Deltas: NaN, infinite, or finite with a weight that overflows the term. */
    memcpy(bad, dense, sizeof bad);
    bad[11] = NAN;
    memcpy(broken, targets, sizeof broken);
    broken[0].position_deltas = bad;
    d = good; d.targets = broken; morph_expect_refusal(d, FK_ERROR_NOT_FINITE, "a NaN position delta");
    bad[11] = 1.0f; bad[4] = INFINITY;
    broken[0].position_deltas = dense; broken[0].normal_deltas = bad;
    d = good; d.targets = broken; morph_expect_refusal(d, FK_ERROR_NOT_FINITE, "an infinite normal delta");
    bad[4] = 1e30f;
    broken[0].normal_deltas = dense; broken[0].tangent_deltas = bad;
    memcpy(bad_weights, weights, sizeof bad_weights);
    bad_weights[0] = 1e10f;
    d = good; d.targets = broken; d.weights = bad_weights;
    morph_expect_refusal(d, FK_ERROR_NOT_FINITE, "a tangent delta whose term overflows");
    /* ...but a NaN normal delta is fine where normals are not morphed: it is not read. */
    bad[4] = NAN;
    broken[0].tangent_deltas = dense; broken[0].normal_deltas = bad;
    d = good; d.targets = broken; d.normals = NULL; d.out_normals = NULL; d.tangents = NULL; d.out_tangents = NULL;
    CHECK(fk_morph_apply(&d) == FK_OK, "a normal delta was read where no normals are morphed");
}

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
    RUN_TEST(morph_worked_example_on_a_triangle);
    RUN_TEST(morph_zero_weights_give_the_base_bits);
    RUN_TEST(morph_one_target_at_weight_one_adds_its_delta);
    RUN_TEST(morph_is_base_plus_weighted_deltas);
    RUN_TEST(morph_sparse_equals_dense);
    RUN_TEST(morph_in_place_equals_out_of_place);
    RUN_TEST(morph_directions_are_unit_and_tangent_w_is_kept);
    RUN_TEST(morph_to_zero_length_keeps_the_base_direction);
    RUN_TEST(morph_weight_zero_targets_are_not_read);
    RUN_TEST(morph_then_identity_skinning_is_the_morph);
    RUN_TEST(morph_then_skinning_is_skinning_the_morphed_mesh);
    RUN_TEST(morph_refuses_bad_input_and_writes_nothing);

    return check_finish();
}
