/* test_cor.c - centres of rotation (fk_cor_centers) against a plain
   double-precision sum over every sample, term by term as the paper writes it,
   then the properties the precompute promises and its answers to bad input.
   Random meshes are seeded (COR_SEED=... replays one); each failure prints the
   seed it came from. */
#include "fk_lbs.h"
#include "check.h"
#include "test_random.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_V = 64, MAX_T = 96, K = 3, BONES = 6 };

/* A small mesh: positions, k weights a vertex, triangles. */
typedef struct mesh {
    int vertex_count, triangle_count;
    float positions[MAX_V][3];
    uint16_t joints[MAX_V][K];
    float weights[MAX_V][K];
    uint32_t indices[MAX_T][3];
} mesh;

static fk_cor_desc desc_of(const mesh *m)
{
    fk_cor_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = m->vertex_count;
    d.positions = &m->positions[0][0];
    d.influences = K;
    d.joints = &m->joints[0][0];
    d.weights = &m->weights[0][0];
    d.triangle_count = m->triangle_count;
    d.indices = &m->indices[0][0];
    return d;
}

/* fk_cor_centers over the range, through a workspace of exactly the size asked for. */
static fk_result centres(const fk_cor_desc *d, int first, int count, float *out)
{
    size_t bytes = 0;
    void *workspace;
    fk_result r = fk_cor_workspace_size(d, &bytes);
    if (r != FK_OK) return r;
    workspace = malloc(bytes);
    r = fk_cor_centers(d, first, count, workspace, bytes, out, 0);
    free(workspace);
    return r;
}

/* ---- The reference: every sample, every pair, in double ---------------------- */

static void dense_weights(const mesh *m, int v, double w[BONES])
{
    int s;
    memset(w, 0, sizeof(double) * BONES);
    for (s = 0; s < K; ++s) w[m->joints[v][s]] += (double)m->weights[v][s];
}

static double similarity(const double *u, const double *v, double sigma)
{
    double s = 0.0, x;
    int j, k;
    for (j = 0; j < BONES; ++j)
        for (k = 0; k < BONES; ++k) {
            if (j == k) continue;
            x = u[j] * v[k] - u[k] * v[j];
            s += u[j] * u[k] * v[j] * v[k] * exp(-x * x / (sigma * sigma));
        }
    return s; /* ordered pairs, as the paper writes it: twice fk_lbs.h's, which the quotient cancels */
}

/* The split of the header's documentation: n = floor(d / epsilon) + 1, at most 32. */
static int reference_split(const double w[3][BONES], double epsilon)
{
    double d = 0.0;
    int e, j;
    for (e = 0; e < 3; ++e)
        for (j = 0; j < BONES; ++j) d = fmax(d, fabs(w[e][j] - w[(e + 1) % 3][j]));
    return d / epsilon >= FK_COR_MAX_SPLIT - 1 ? FK_COR_MAX_SPLIT : (int)floor(d / epsilon) + 1;
}

/* A point of triangle t's barycentric grid: corner 0 + (i/n)(corner 1 - 0) + (j/n)(corner 2 - 0). */
static void grid_point(const double p[3][3], const double w[3][BONES], int n, int i, int j, double out_p[3],
                       double out_w[BONES])
{
    const double l1 = (double)i / n, l2 = (double)j / n, l0 = 1.0 - l1 - l2;
    int a;
    for (a = 0; a < 3; ++a) out_p[a] = l0 * p[0][a] + l1 * p[1][a] + l2 * p[2][a];
    for (a = 0; a < BONES; ++a) out_w[a] = l0 * w[0][a] + l1 * w[1][a] + l2 * w[2][a];
}

/* Brute force: vertex by vertex, sub-triangle by sub-triangle, corners built
   from the grid, areas from cross products, weights as corner means. */
static void reference(const mesh *m, double sigma, double epsilon, int subdivide, double out[][3])
{
    int v, t, c, a, i, j, flip, n;
    for (v = 0; v < m->vertex_count; ++v) {
        double wv[BONES], num[3] = {0.0, 0.0, 0.0}, den = 0.0;
        dense_weights(m, v, wv);
        for (t = 0; t < m->triangle_count; ++t) {
            double p[3][3], w[3][BONES], e1[3], e2[3], cr[3];
            for (c = 0; c < 3; ++c) {
                for (a = 0; a < 3; ++a) p[c][a] = m->positions[m->indices[t][c]][a];
                dense_weights(m, (int)m->indices[t][c], w[c]);
            }
            n = subdivide ? reference_split((const double(*)[BONES])w, epsilon) : 1;
            /* each sub-triangle has 1/n^2 of the area (from its rounded corners, a
               degenerate triangle's would get areas of rounding noise) */
            for (a = 0; a < 3; ++a) { e1[a] = p[1][a] - p[0][a]; e2[a] = p[2][a] - p[0][a]; }
            cr[0] = e1[1] * e2[2] - e1[2] * e2[1];
            cr[1] = e1[2] * e2[0] - e1[0] * e2[2];
            cr[2] = e1[0] * e2[1] - e1[1] * e2[0];
            for (i = 0; i < n; ++i)
                for (j = 0; i + j < n; ++j)
                    for (flip = 0; flip < 2 && i + j + flip < n; ++flip) {
                        double q[3][3], qw[3][BONES], area, sw[BONES], centroid[3], s;
                        const int gi[3] = {i + flip, i + 1, i}, gj[3] = {j + flip, j, j + 1};
                        for (c = 0; c < 3; ++c)
                            grid_point((const double(*)[3])p, (const double(*)[BONES])w, n, gi[c], gj[c], q[c], qw[c]);
                        area = 0.5 * sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]) / (n * n);
                        for (a = 0; a < BONES; ++a) sw[a] = (qw[0][a] + qw[1][a] + qw[2][a]) / 3.0;
                        for (a = 0; a < 3; ++a) centroid[a] = (q[0][a] + q[1][a] + q[2][a]) / 3.0;
                        s = similarity(wv, sw, sigma) * area;
                        den += s;
                        for (a = 0; a < 3; ++a) num[a] += s * centroid[a];
                    }
        }
        for (a = 0; a < 3; ++a) out[v][a] = den > 0.0 ? num[a] / den : (double)m->positions[v][a];
    }
}

static double diagonal(const mesh *m)
{
    double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30}, d = 0.0;
    int v, a;
    for (v = 0; v < m->vertex_count; ++v)
        for (a = 0; a < 3; ++a) { lo[a] = fmin(lo[a], m->positions[v][a]); hi[a] = fmax(hi[a], m->positions[v][a]); }
    for (a = 0; a < 3; ++a) d += (hi[a] - lo[a]) * (hi[a] - lo[a]);
    return sqrt(d);
}

/* Largest distance between fk_cor_centers and the reference, over the mesh's diagonal. */
static double worst_seen;
static double error_against_reference(const mesh *m, const fk_cor_desc *d, int subdivide)
{
    static double expected[MAX_V][3];
    float got[MAX_V][3];
    double worst = 0.0;
    int v, a;
    if (centres(d, 0, m->vertex_count, &got[0][0]) != FK_OK) return 1e30;
    reference(m, d->sigma == 0.0f ? 0.1 : d->sigma, d->epsilon == 0.0f ? 0.1 : d->epsilon, subdivide, expected);
    for (v = 0; v < m->vertex_count; ++v)
        for (a = 0; a < 3; ++a) worst = fmax(worst, fabs(got[v][a] - expected[v][a]));
    worst /= diagonal(m);
    worst_seen = fmax(worst_seen, worst);
    return worst;
}

/* ---- Meshes ------------------------------------------------------------------- */

/* A limb: `rings` rings of `around` vertices along x, bone 0 fading into bone 1
   at the middle over `blend` of the length (blend 0: a hard switch). */
static void make_limb(mesh *m, int rings, int around, float blend)
{
    int r, a, v = 0, t = 0;
    memset(m, 0, sizeof *m);
    for (r = 0; r < rings; ++r)
        for (a = 0; a < around; ++a, ++v) {
            const float x = (float)r / (float)(rings - 1), angle = 6.2831853f * (float)a / (float)around;
            float w1 = blend > 0.0f ? (x - 0.5f) / blend + 0.5f : (x < 0.5f ? 0.0f : 1.0f);
            w1 = w1 < 0.0f ? 0.0f : w1 > 1.0f ? 1.0f : w1;
            m->positions[v][0] = 2.0f * x;
            m->positions[v][1] = 0.3f * cosf(angle);
            m->positions[v][2] = 0.3f * sinf(angle);
            m->joints[v][0] = 0; m->weights[v][0] = 1.0f - w1;
            m->joints[v][1] = 1; m->weights[v][1] = w1;
            m->joints[v][2] = 2; m->weights[v][2] = 0.0f;
        }
    for (r = 0; r + 1 < rings; ++r)
        for (a = 0; a < around; ++a) {
            const uint32_t i0 = (uint32_t)(r * around + a), i1 = (uint32_t)(r * around + (a + 1) % around);
            m->indices[t][0] = i0; m->indices[t][1] = i1; m->indices[t][2] = i1 + (uint32_t)around; ++t;
            m->indices[t][0] = i0; m->indices[t][1] = i1 + (uint32_t)around; m->indices[t][2] = i0 + (uint32_t)around; ++t;
        }
    m->vertex_count = v;
    m->triangle_count = t;
}

/* Random positions, up to K bones of BONES a vertex (some weights zero, some
   joints named twice), random triangles (some degenerate, some repeated). */
static void make_random(mesh *m, int vertices, int triangles)
{
    int v, s, t, c;
    memset(m, 0, sizeof *m);
    m->vertex_count = vertices;
    m->triangle_count = triangles;
    for (v = 0; v < vertices; ++v) {
        float sum = 0.0f;
        for (c = 0; c < 3; ++c) m->positions[v][c] = rng_uniform(-1.0f, 1.0f);
        for (s = 0; s < K; ++s) {
            m->joints[v][s] = (uint16_t)rng_below(BONES);
            m->weights[v][s] = rng_below(4) == 0 ? 0.0f : rng_uniform(0.0f, 1.0f);
            sum += m->weights[v][s];
        }
        for (s = 0; s < K && sum > 0.0f; ++s) m->weights[v][s] /= sum;
    }
    for (t = 0; t < triangles; ++t)
        for (c = 0; c < 3; ++c)
            m->indices[t][c] = rng_below(8) == 0 && c > 0 ? m->indices[t][c - 1] : (uint32_t)rng_below(vertices);
    if (triangles > 1) memcpy(m->indices[triangles - 1], m->indices[0], sizeof m->indices[0]);
}

static uint64_t base_seed = 0xC0FFEE1234ull;

/* ---- Worked examples --------------------------------------------------------- */

/* Two triangles whose weights are all equal: every sample is as similar as any
   other, so the centre is the area-weighted mean of the centroids, by hand. */
static void test_equal_weights_give_area_mean(void)
{
    mesh m;
    float got[MAX_V][3];
    fk_cor_desc d;
    int v, a;
    memset(&m, 0, sizeof m);
    m.vertex_count = 4;
    m.triangle_count = 2;
    /* triangle 0: (0,0,0) (2,0,0) (0,2,0), area 2, centroid (2/3, 2/3, 0);
       triangle 1: (0,0,0) (2,0,0) (0,0,1), area 1, centroid (2/3, 0, 1/3). */
    m.positions[1][0] = 2.0f; m.positions[2][1] = 2.0f; m.positions[3][2] = 1.0f;
    for (v = 0; v < 4; ++v) {
        m.joints[v][0] = 0; m.weights[v][0] = 0.5f;
        m.joints[v][1] = 1; m.weights[v][1] = 0.5f;
        m.joints[v][2] = 2; m.weights[v][2] = 0.0f;
    }
    m.indices[0][1] = 1; m.indices[0][2] = 2;
    m.indices[1][1] = 1; m.indices[1][2] = 3;
    d = desc_of(&m);
    CHECK(centres(&d, 0, 4, &got[0][0]) == FK_OK, "call fails");
    for (v = 0; v < 4; ++v) {
        const double expected[3] = {2.0 / 3.0, 4.0 / 9.0, 1.0 / 9.0}; /* (2 c0 + 1 c1) / 3 */
        for (a = 0; a < 3; ++a)
            CHECK(fabs(got[v][a] - expected[a]) < 1e-6, "vertex %d axis %d: %.9f, expected %.9f", v, a, got[v][a], expected[a]);
    }
}

/* A limb blending two bones: the paper's subdivision and the triangles as given
   against the brute force, with the default sigma and epsilon and others. */
static void test_limb_matches_brute_force(void)
{
    static mesh m;
    fk_cor_desc d;
    const float blends[3] = {0.6f, 0.2f, 0.0f};
    int b, as_given;
    for (b = 0; b < 3; ++b)
        for (as_given = 0; as_given < 2; ++as_given) {
            make_limb(&m, 6, 8, blends[b]);
            d = desc_of(&m);
            d.sampling = as_given ? FK_COR_TRIANGLES_AS_GIVEN : FK_COR_SUBDIVIDE;
            CHECK(error_against_reference(&m, &d, !as_given) < 1e-6, "blend %g, %s: off the brute force", blends[b],
                  as_given ? "as given" : "subdivided");
            d.sigma = 0.25f;
            d.epsilon = 0.05f;
            CHECK(error_against_reference(&m, &d, !as_given) < 1e-6, "blend %g, sigma 0.25, epsilon 0.05: off",
                  blends[b]);
        }
}

/* The limb's centres lie on its axis (it is symmetric about it) and, inside the
   blend, move along it with the weights. */
static void test_limb_centres_lie_on_the_axis(void)
{
    static mesh m;
    float got[MAX_V][3];
    fk_cor_desc d;
    int v;
    make_limb(&m, 6, 8, 0.6f);
    d = desc_of(&m);
    CHECK(centres(&d, 0, m.vertex_count, &got[0][0]) == FK_OK, "call fails");
    for (v = 0; v < m.vertex_count; ++v) {
        if (m.weights[v][0] == 0.0f || m.weights[v][1] == 0.0f) continue;
        CHECK(fabsf(got[v][1]) < 1e-5f && fabsf(got[v][2]) < 1e-5f, "vertex %d: centre (%g %g %g) off the axis", v,
              got[v][0], got[v][1], got[v][2]);
    }
}

static void test_random_meshes_match_brute_force(void)
{
    static mesh m;
    fk_cor_desc d;
    int trial;
    for (trial = 0; trial < 40; ++trial) {
        rng_state = base_seed + (uint64_t)trial;
        make_random(&m, 4 + rng_below(20), 1 + rng_below(30));
        d = desc_of(&m);
        d.sampling = trial % 3 == 0 ? FK_COR_TRIANGLES_AS_GIVEN : FK_COR_SUBDIVIDE;
        if (trial % 4 == 1) d.sigma = rng_uniform(0.02f, 1.0f);
        if (trial % 4 == 2) d.epsilon = rng_uniform(0.03f, 0.5f);
        CHECK(error_against_reference(&m, &d, d.sampling == FK_COR_SUBDIVIDE) < 1e-6,
              "seed 0x%llx: off the brute force (replay: COR_SEED=0x%llx)", (unsigned long long)rng_state,
              (unsigned long long)base_seed);
    }
}

/* ---- Properties --------------------------------------------------------------- */

/* A vertex weighted to one bone (or to none) has no pair to share: its own position, bit for bit. */
static void test_one_bone_vertex_keeps_its_position(void)
{
    static mesh m;
    float got[MAX_V][3];
    fk_cor_desc d;
    int v, checked = 0;
    make_limb(&m, 6, 8, 0.3f);
    d = desc_of(&m);
    CHECK(centres(&d, 0, m.vertex_count, &got[0][0]) == FK_OK, "call fails");
    for (v = 0; v < m.vertex_count; ++v) {
        if (m.weights[v][0] != 0.0f && m.weights[v][1] != 0.0f) continue;
        ++checked;
        CHECK(!memcmp(got[v], m.positions[v], sizeof got[v]), "vertex %d: one bone, centre is not its position", v);
    }
    CHECK(checked > 0, "the limb has no one-bone vertex");
}

/* Rotating and moving the rest mesh moves the centres alike (to the rounding of the moved positions). */
static void test_rigid_motion_moves_the_centres(void)
{
    static mesh m, moved;
    float a[MAX_V][3], b[MAX_V][3];
    fk_cor_desc d;
    int trial, v;
    for (trial = 0; trial < 10; ++trial) {
        const fk_rigid motion = fk_rigid_make(random_quat(), random_vec3(5.0f));
        double worst = 0.0;
        rng_state = base_seed * 3 + (uint64_t)trial;
        make_random(&m, 12 + rng_below(20), 10 + rng_below(30));
        moved = m;
        for (v = 0; v < m.vertex_count; ++v) {
            const fk_vec3 p = fk_rigid_apply(motion, fk_vec3_make(m.positions[v][0], m.positions[v][1], m.positions[v][2]));
            moved.positions[v][0] = p.x; moved.positions[v][1] = p.y; moved.positions[v][2] = p.z;
        }
        d = desc_of(&m);
        CHECK(centres(&d, 0, m.vertex_count, &a[0][0]) == FK_OK, "call fails");
        d = desc_of(&moved);
        CHECK(centres(&d, 0, m.vertex_count, &b[0][0]) == FK_OK, "call fails");
        for (v = 0; v < m.vertex_count; ++v) {
            const fk_vec3 p = fk_vec3_sub(fk_rigid_apply(motion, fk_vec3_make(a[v][0], a[v][1], a[v][2])),
                                          fk_vec3_make(b[v][0], b[v][1], b[v][2]));
            worst = fmax(worst, fk_vec3_length(p));
        }
        CHECK(worst < 2e-5 * diagonal(&m), "seed 0x%llx: a centre moved %g (diagonal %g)", (unsigned long long)base_seed,
              worst, diagonal(&m));
    }
}

/* Listing the triangles in another order, each with its corners rotated, changes nothing but rounding. */
static void test_triangle_order_does_not_matter(void)
{
    static mesh m, shuffled;
    float a[MAX_V][3], b[MAX_V][3];
    fk_cor_desc d;
    int trial, t, v, c;
    for (trial = 0; trial < 10; ++trial) {
        double worst = 0.0;
        rng_state = base_seed * 5 + (uint64_t)trial;
        make_random(&m, 12 + rng_below(20), 10 + rng_below(40));
        shuffled = m;
        for (t = m.triangle_count - 1; t > 0; --t) {
            const int other = rng_below(t + 1), turn = rng_below(3);
            uint32_t swap[3];
            memcpy(swap, shuffled.indices[t], sizeof swap);
            memcpy(shuffled.indices[t], shuffled.indices[other], sizeof swap);
            memcpy(shuffled.indices[other], swap, sizeof swap);
            for (c = 0; c < 3; ++c) swap[c] = shuffled.indices[t][(c + turn) % 3];
            memcpy(shuffled.indices[t], swap, sizeof swap);
        }
        d = desc_of(&m);
        CHECK(centres(&d, 0, m.vertex_count, &a[0][0]) == FK_OK, "call fails");
        d = desc_of(&shuffled);
        CHECK(centres(&d, 0, m.vertex_count, &b[0][0]) == FK_OK, "call fails");
        for (v = 0; v < m.vertex_count; ++v)
            for (c = 0; c < 3; ++c) worst = fmax(worst, fabs(a[v][c] - b[v][c]));
        CHECK(worst < 1e-6 * diagonal(&m), "seed 0x%llx: reordering moved a centre by %g", (unsigned long long)base_seed,
              worst);
    }
}

/* Vertex ranges computed by separate calls (as threads would) give the bits of one call;
   so do equal weights listed in another slot order, and interleaved records. */
static void test_ranges_and_layouts_give_the_same_bits(void)
{
    static mesh m;
    static float whole[MAX_V][3], pieces[MAX_V][3];
    static float records[MAX_V][8];
    static uint16_t joint_records[MAX_V][5];
    fk_cor_desc d;
    int trial, v, s, cut1, cut2;
    for (trial = 0; trial < 10; ++trial) {
        rng_state = base_seed * 7 + (uint64_t)trial;
        make_random(&m, 12 + rng_below(40), 10 + rng_below(60));
        /* vertex 1 repeats vertex 0's weights in reversed slots */
        for (s = 0; s < K; ++s) { m.joints[1][s] = m.joints[0][K - 1 - s]; m.weights[1][s] = m.weights[0][K - 1 - s]; }
        d = desc_of(&m);
        CHECK(centres(&d, 0, m.vertex_count, &whole[0][0]) == FK_OK, "call fails");
        cut1 = rng_below(m.vertex_count);
        cut2 = cut1 + rng_below(m.vertex_count - cut1 + 1);
        memset(pieces, 0xAB, sizeof pieces);
        CHECK(centres(&d, cut2, m.vertex_count - cut2, &pieces[0][0]) == FK_OK, "call fails");
        CHECK(centres(&d, 0, cut1, &pieces[0][0]) == FK_OK, "call fails");
        CHECK(centres(&d, cut1, cut2 - cut1, &pieces[0][0]) == FK_OK, "call fails");
        CHECK(!memcmp(whole, pieces, sizeof whole[0] * (size_t)m.vertex_count), "seed 0x%llx: split at %d and %d differs",
              (unsigned long long)base_seed, cut1, cut2);
        if (memcmp(whole[0], m.positions[0], sizeof whole[0])) /* vertex 0 has a centre of its own */
            CHECK(!memcmp(whole[0], whole[1], sizeof whole[0]), "seed 0x%llx: equal weights in another order: other centres",
                  (unsigned long long)base_seed);
        /* interleaved: position and weights in one 32-byte record, joints in 10-byte records */
        for (v = 0; v < m.vertex_count; ++v) {
            memcpy(records[v], m.positions[v], 12);
            memcpy(records[v] + 3, m.weights[v], 12);
            memcpy(joint_records[v], m.joints[v], 6);
        }
        d.positions = records[0]; d.position_stride = sizeof records[0];
        d.weights = records[0] + 3; d.weight_stride = sizeof records[0];
        d.joints = joint_records[0]; d.joint_stride = sizeof joint_records[0];
        memset(pieces, 0, sizeof pieces);
        CHECK(centres(&d, 0, m.vertex_count, &pieces[0][0]) == FK_OK, "call fails");
        CHECK(!memcmp(whole, pieces, sizeof whole[0] * (size_t)m.vertex_count), "interleaved records: other bits");
    }
}

/* A triangle weighted (1,0), (0,1), (1,0): edge splitting to epsilon never ends
   on it; the uniform split takes n = floor(1 / 0.1) + 1 = 11, and a tiny
   epsilon is capped at FK_COR_MAX_SPLIT (the workspace stops growing). */
static void test_disjoint_weights_terminate(void)
{
    static mesh m;
    fk_cor_desc d;
    size_t at_cap = 0, tiny = 0, eleven = 0, as_given = 0;
    int v;
    memset(&m, 0, sizeof m);
    m.vertex_count = 3;
    m.triangle_count = 1;
    m.positions[1][0] = 1.0f; m.positions[2][1] = 1.0f;
    for (v = 0; v < 3; ++v) { m.joints[v][0] = (uint16_t)(v == 1); m.weights[v][0] = 1.0f; m.joints[v][1] = 2; m.joints[v][2] = 3; }
    m.indices[0][1] = 1; m.indices[0][2] = 2;
    d = desc_of(&m);
    CHECK(error_against_reference(&m, &d, 1) < 1e-6, "default epsilon: off the brute force");
    CHECK(fk_cor_workspace_size(&d, &eleven) == FK_OK, "size fails");
    d.epsilon = 1.0f / 40.0f; /* 1 / epsilon = 40: above the cap */
    CHECK(fk_cor_workspace_size(&d, &at_cap) == FK_OK, "size fails");
    CHECK(error_against_reference(&m, &d, 1) < 1e-6, "epsilon 1/40: off the brute force (capped)");
    d.epsilon = 1e-30f;
    CHECK(fk_cor_workspace_size(&d, &tiny) == FK_OK, "size fails");
    CHECK(error_against_reference(&m, &d, 1) < 1e-6, "epsilon 1e-30: off the brute force (capped)");
    d.sampling = FK_COR_TRIANGLES_AS_GIVEN;
    CHECK(fk_cor_workspace_size(&d, &as_given) == FK_OK, "size fails");
    CHECK(tiny == at_cap && at_cap > eleven && eleven > as_given, "work not bounded: sizes %zu %zu %zu %zu", as_given,
          eleven, at_cap, tiny);
}

/* Zero-area meshes and degenerate triangles add nothing. */
static void test_degenerate_triangles_add_nothing(void)
{
    static mesh m, more;
    float a[MAX_V][3], b[MAX_V][3];
    fk_cor_desc d;
    int v;
    make_limb(&m, 6, 8, 0.6f);
    more = m;
    more.indices[more.triangle_count][0] = 9; more.indices[more.triangle_count][1] = 9; more.indices[more.triangle_count][2] = 20;
    more.triangle_count++;
    d = desc_of(&m);
    CHECK(centres(&d, 0, m.vertex_count, &a[0][0]) == FK_OK, "call fails");
    d = desc_of(&more);
    CHECK(centres(&d, 0, m.vertex_count, &b[0][0]) == FK_OK, "call fails");
    CHECK(!memcmp(a, b, sizeof a[0] * (size_t)m.vertex_count), "a triangle with a repeated corner changed a centre");
    for (v = 0; v < m.vertex_count; ++v) { m.positions[v][1] = 0.0f; m.positions[v][2] = 0.0f; } /* all on a line */
    d = desc_of(&m);
    CHECK(centres(&d, 0, m.vertex_count, &a[0][0]) == FK_OK, "call fails");
    CHECK(!memcmp(a, m.positions, sizeof a[0] * (size_t)m.vertex_count), "zero-area mesh: a centre is not its position");
}

/* ---- Bad input: a clear code, nothing written ---------------------------------- */

static void test_bad_input_writes_nothing(void)
{
    static mesh m;
    fk_cor_desc d, bad;
    float out[MAX_V][3], sentinel[MAX_V][3];
    size_t bytes;
    unsigned char *workspace;
    fk_result c;
    make_limb(&m, 6, 8, 0.6f);
    d = desc_of(&m);
    CHECK(fk_cor_workspace_size(&d, &bytes) == FK_OK, "size fails");
    workspace = (unsigned char *)malloc(bytes + 1);
    memset(sentinel, 0x5A, sizeof sentinel);
#define EXPECT(code, desc_, first, count, ws, size, out_)                                                        \
    do {                                                                                                          \
        memcpy(out, sentinel, sizeof out);                                                                        \
        c = fk_cor_centers(desc_, first, count, ws, size, out_, 0);                                               \
        CHECK(c == (code), "line %d: %s, expected %s", __LINE__, fk_result_description(c),                        \
              fk_result_description(code));                                                                      \
        CHECK(!memcmp(out, sentinel, sizeof out), "line %d: wrote on error", __LINE__);                           \
    } while (0)
    EXPECT(FK_ERROR_NULL_ARGUMENT, NULL, 0, 1, workspace, bytes, &out[0][0]);
    EXPECT(FK_ERROR_NULL_ARGUMENT, &d, 0, 1, NULL, bytes, &out[0][0]);
    EXPECT(FK_ERROR_NULL_ARGUMENT, &d, 0, 1, workspace, bytes, NULL);
    EXPECT(FK_ERROR_INVALID_COUNT, &d, 0, 1, workspace, bytes - 1, &out[0][0]);
    EXPECT(FK_ERROR_INVALID_COUNT, &d, -1, 1, workspace, bytes, &out[0][0]);
    EXPECT(FK_ERROR_INVALID_COUNT, &d, 0, -1, workspace, bytes, &out[0][0]);
    EXPECT(FK_ERROR_INVALID_COUNT, &d, 40, 9, workspace, bytes, &out[0][0]);
    EXPECT(FK_OK, &d, 0, 0, workspace + 1, bytes, &out[0][0]); /* any alignment; an empty range writes nothing */
    bad = d; bad.vertex_count = -1;
    EXPECT(FK_ERROR_INVALID_COUNT, &bad, 0, 0, workspace, bytes, &out[0][0]);
    bad = d; bad.triangle_count = -1;
    EXPECT(FK_ERROR_INVALID_COUNT, &bad, 0, 1, workspace, bytes, &out[0][0]);
    bad = d; bad.influences = 0;
    EXPECT(FK_ERROR_INVALID_COUNT, &bad, 0, 1, workspace, bytes, &out[0][0]);
    bad = d; bad.indices = NULL;
    EXPECT(FK_ERROR_NULL_ARGUMENT, &bad, 0, 1, workspace, bytes, &out[0][0]);
    bad = d; bad.weight_stride = 4;
    EXPECT(FK_ERROR_INVALID_STRIDE, &bad, 0, 1, workspace, bytes, &out[0][0]);
    bad = d; bad.sigma = -0.1f;
    EXPECT(FK_ERROR_INVALID_OPTION, &bad, 0, 1, workspace, bytes, &out[0][0]);
    bad = d; bad.epsilon = NAN;
    EXPECT(FK_ERROR_INVALID_OPTION, &bad, 0, 1, workspace, bytes, &out[0][0]);
    bad = d; bad.sampling = (fk_cor_sampling)2;
    EXPECT(FK_ERROR_INVALID_OPTION, &bad, 0, 1, workspace, bytes, &out[0][0]);
    m.indices[5][1] = (uint32_t)m.vertex_count;
    EXPECT(FK_ERROR_JOINT_OUT_OF_RANGE, &d, 0, 1, workspace, bytes, &out[0][0]);
    m.indices[5][1] = 3;
    m.positions[47][2] = NAN;
    EXPECT(FK_ERROR_NOT_FINITE, &d, 0, 1, workspace, bytes, &out[0][0]);
    m.positions[47][2] = 0.0f;
    m.weights[47][2] = -0.0001f;
    EXPECT(FK_ERROR_INVALID_WEIGHT, &d, 0, 1, workspace, bytes, &out[0][0]);
    m.weights[47][2] = INFINITY;
    EXPECT(FK_ERROR_INVALID_WEIGHT, &d, 0, 1, workspace, bytes, &out[0][0]);
    m.weights[47][2] = 0.0f;
    CHECK(fk_cor_centers(&d, 0, 1, workspace, bytes, &out[0][0], 0) == FK_OK, "mended input fails");
    CHECK(fk_cor_workspace_size(&d, NULL) == FK_ERROR_NULL_ARGUMENT, "size without an output");
    CHECK(fk_cor_workspace_size(NULL, &bytes) == FK_ERROR_NULL_ARGUMENT, "size without a descriptor");
#undef EXPECT
    free(workspace);
}

int main(void)
{
    const char *seed = getenv("COR_SEED");
    if (seed) base_seed = strtoull(seed, NULL, 0);
    printf("test_cor: seed 0x%llx\n", (unsigned long long)base_seed);
    RUN_TEST(test_equal_weights_give_area_mean);
    RUN_TEST(test_limb_matches_brute_force);
    RUN_TEST(test_limb_centres_lie_on_the_axis);
    RUN_TEST(test_random_meshes_match_brute_force);
    RUN_TEST(test_one_bone_vertex_keeps_its_position);
    RUN_TEST(test_rigid_motion_moves_the_centres);
    RUN_TEST(test_triangle_order_does_not_matter);
    RUN_TEST(test_ranges_and_layouts_give_the_same_bits);
    RUN_TEST(test_disjoint_weights_terminate);
    RUN_TEST(test_degenerate_triangles_add_nothing);
    RUN_TEST(test_bad_input_writes_nothing);
    printf("largest distance from the brute force: %.3g of the mesh's diagonal\n", worst_seen);
    return check_finish();
}
