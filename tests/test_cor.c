/* test_cor.c - centres of rotation (fk_cor_centers) against a plain
   double-precision sum over every sample, term by term as the paper writes it,
   then the properties the precompute promises and its answers to bad input.
   Random meshes are seeded (COR_SEED=... replays one); each failure prints the
   seed it came from. */
#include "fk_lbs.h"
#include "check.h"
#include "test_random.h"

#include <float.h>
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

/* A tube over three bones weighted as automatic skinning does, by inverse
   distance: every vertex weights every bone (K = 3), so each pair's bucket holds
   the whole mesh and sums of every length meet the samples-at-a-time loop. A
   narrow sigma sends most terms below DBL_MIN, some into subnormals. */
static void test_smooth_weights_match_brute_force(void)
{
    static mesh m;
    fk_cor_desc d;
    const float sigmas[4] = {0.0f, 0.5f, 0.03f, 0.01f};
    int v, s, i;
    make_limb(&m, 6, 8, 0.0f);
    for (v = 0; v < m.vertex_count; ++v) {
        float sum = 0.0f;
        for (s = 0; s < K; ++s) {
            const float gap = m.positions[v][0] - (2.0f * (float)s + 1.0f) / 3.0f;
            m.joints[v][s] = (uint16_t)s;
            m.weights[v][s] = 1.0f / (0.01f + gap * gap * gap * gap);
            sum += m.weights[v][s];
        }
        for (s = 0; s < K; ++s) m.weights[v][s] /= sum;
    }
    for (i = 0; i < 4; ++i)
        for (s = 0; s < 2; ++s) {
            d = desc_of(&m);
            d.sigma = sigmas[i];
            d.sampling = s ? FK_COR_TRIANGLES_AS_GIVEN : FK_COR_SUBDIVIDE;
            CHECK(error_against_reference(&m, &d, !s) < 1e-6, "sigma %g, %s: off the brute force", sigmas[i],
                  s ? "as given" : "subdivided");
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

/* ---- Skinning with the centres (fk_skin_cor) ----------------------------------- */

/* A posed mesh: the mesh's vertices with normals and tangents, bones, centres. */
typedef struct skinned {
    float normals[MAX_V][3], tangents[MAX_V][4], centres[MAX_V][3];
    float out_positions[MAX_V][3], out_normals[MAX_V][3], out_tangents[MAX_V][4];
    fk_rigid bones[BONES];
} skinned;

static fk_skin_desc skin_desc_of(const mesh *m, skinned *s)
{
    fk_skin_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = m->vertex_count;
    d.influences = K;
    d.positions = &m->positions[0][0];
    d.normals = &s->normals[0][0];
    d.tangents = &s->tangents[0][0];
    d.joints = &m->joints[0][0];
    d.weights = &m->weights[0][0];
    d.transforms = s->bones;
    d.transform_count = BONES;
    d.out_positions = &s->out_positions[0][0];
    d.out_normals = &s->out_normals[0][0];
    d.out_tangents = &s->out_tangents[0][0];
    return d;
}

/* Random unit normals and tangents (w +-1), the mesh's centres, random bones. */
static void make_skinned(const mesh *m, skinned *s)
{
    fk_cor_desc d = desc_of(m);
    int v, j;
    memset(s, 0, sizeof *s);
    for (v = 0; v < m->vertex_count; ++v) {
        const fk_vec3 n = fk_vec3_normalize(random_vec3(1.0f)), t = fk_vec3_normalize(random_vec3(1.0f));
        s->normals[v][0] = n.x; s->normals[v][1] = n.y; s->normals[v][2] = n.z;
        s->tangents[v][0] = t.x; s->tangents[v][1] = t.y; s->tangents[v][2] = t.z;
        s->tangents[v][3] = rng_below(2) ? 1.0f : -1.0f;
    }
    CHECK(centres(&d, 0, m->vertex_count, &s->centres[0][0]) == FK_OK, "centres fail");
    for (j = 0; j < BONES; ++j) s->bones[j] = fk_rigid_make(random_quat(), random_vec3(1.0f));
}

static void rotate_double(const double q[4], const double v[3], double out[3])
{
    const double tx = 2.0 * (q[1] * v[2] - q[2] * v[1]), ty = 2.0 * (q[2] * v[0] - q[0] * v[2]),
                 tz = 2.0 * (q[0] * v[1] - q[1] * v[0]);
    out[0] = v[0] + q[3] * tx + (q[1] * tz - q[2] * ty);
    out[1] = v[1] + q[3] * ty + (q[2] * tx - q[0] * tz);
    out[2] = v[2] + q[3] * tz + (q[0] * ty - q[1] * tx);
}

static void unit_double(double *v, int n)
{
    double length = 0.0;
    int e;
    for (e = 0; e < n; ++e) length += v[e] * v[e];
    length = sqrt(length);
    for (e = 0; e < n; ++e) v[e] = length > 0.0 ? v[e] / length : 0.0;
}

/* The formula in double: q = sum_k +-w_k q_k in the heaviest influence's (the
   first of equals) hemisphere, v' = R (v - c) + sum_k w_k (R_k c + t_k); normals
   and tangents turned by R. Returns 0 where a rotation is within 1e-3 of the
   hemisphere's edge (a discontinuity, where rounding may choose either side). */
static int skin_reference(const mesh *m, const skinned *s, int v, double p[3], double n[3], double t[3])
{
    double bone_q[K][4], q[4] = {0.0, 0.0, 0.0, 0.0}, c[3], x[3], moved[3];
    int k, e, heaviest = 0;
    for (k = 0; k < K; ++k) {
        const fk_quat b = s->bones[m->joints[v][k]].q;
        bone_q[k][0] = b.x; bone_q[k][1] = b.y; bone_q[k][2] = b.z; bone_q[k][3] = b.w;
        unit_double(bone_q[k], 4);
        if (m->weights[v][k] > m->weights[v][heaviest]) heaviest = k;
    }
    for (e = 0; e < 3; ++e) { c[e] = s->centres[v][e]; p[e] = 0.0; }
    for (k = 0; k < K; ++k) {
        const double w = m->weights[v][k], *b = bone_q[k];
        const double dot = b[0] * bone_q[heaviest][0] + b[1] * bone_q[heaviest][1] + b[2] * bone_q[heaviest][2] +
                           b[3] * bone_q[heaviest][3];
        const fk_vec3 bt = s->bones[m->joints[v][k]].t;
        if (w != 0.0 && fabs(dot) < 1e-3) return 0;
        for (e = 0; e < 4; ++e) q[e] += (dot < 0.0 ? -w : w) * b[e];
        rotate_double(b, c, moved);
        p[0] += w * (moved[0] + bt.x); p[1] += w * (moved[1] + bt.y); p[2] += w * (moved[2] + bt.z);
    }
    if (q[0] == 0.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 0.0) { /* all weights zero: the rest vertex */
        for (e = 0; e < 3; ++e) { p[e] = m->positions[v][e]; n[e] = s->normals[v][e]; t[e] = s->tangents[v][e]; }
        return 1;
    }
    unit_double(q, 4);
    for (e = 0; e < 3; ++e) { x[e] = m->positions[v][e] - c[e]; moved[e] = s->normals[v][e]; }
    rotate_double(q, x, x);
    for (e = 0; e < 3; ++e) p[e] += x[e];
    rotate_double(q, moved, n);
    for (e = 0; e < 3; ++e) moved[e] = s->tangents[v][e];
    rotate_double(q, moved, t);
    return 1;
}

/* Largest distance of positions over the diagonal, and of normals and tangents, from the double formula. */
static double skin_worst_seen;
static void compare_with_reference(const mesh *m, const skinned *s, double *position, double *direction, int *skipped)
{
    int v, e;
    *position = *direction = 0.0;
    for (v = 0; v < m->vertex_count; ++v) {
        double p[3], n[3], t[3];
        if (!skin_reference(m, s, v, p, n, t)) { ++*skipped; continue; }
        for (e = 0; e < 3; ++e) {
            *position = fmax(*position, fabs(s->out_positions[v][e] - p[e]) / diagonal(m));
            *direction = fmax(*direction, fabs(s->out_normals[v][e] - n[e]));
            *direction = fmax(*direction, fabs(s->out_tangents[v][e] - t[e]));
        }
        CHECK(!memcmp(&s->out_tangents[v][3], &s->tangents[v][3], sizeof(float)), "vertex %d: tangent w changed", v);
    }
}

/* Worked example: a vertex weighted 0.6 to the identity and 0.4 to a turn of 200
   degrees about z, the lighter listed first. The heaviest influence's
   hemisphere takes the second as a turn of -160 degrees: q = 0.6 (0,0,0,1) +
   0.4 (0,0,-sin 100, -cos 100), a turn of about -61 degrees (the signs as given
   would turn it about +73). The centre is the origin, which the bones keep, so
   v' = R v; negating the second bone's quaternion gives the same bits, and
   weights a 1e-25th as large (whose squares underflow) the same turn. With two
   bones any rule that signs one against the other agrees; with three, the
   pivot matters, which the comparison with the formula in double checks. */
static void test_skin_hemisphere_of_the_heaviest(void)
{
    const float position[3] = {1.0f, 0.0f, 0.0f}, centre[3] = {0.0f, 0.0f, 0.0f}, weights[2] = {0.4f, 0.6f};
    const float tiny[2] = {0.4e-25f, 0.6e-25f};
    const uint16_t joints[2] = {1, 0};
    const double half = 100.0 * 3.14159265358979323846 / 180.0;
    double qz = 0.4 * -sin(half), qw = 0.6 + 0.4 * -cos(half), angle;
    fk_rigid bones[2];
    float out[3], again[3];
    fk_skin_desc d;
    memset(&d, 0, sizeof d);
    bones[0] = fk_rigid_identity();
    bones[1] = fk_rigid_make(fk_quat_make(0.0f, 0.0f, (float)sin(half), (float)cos(half)), fk_vec3_make(0.0f, 0.0f, 0.0f));
    d.vertex_count = 1; d.influences = 2;
    d.positions = position; d.joints = joints; d.weights = weights;
    d.transforms = bones; d.transform_count = 2; d.out_positions = out;
    CHECK(fk_skin_cor(&d, centre, 0) == FK_OK, "call fails");
    angle = 2.0 * atan2(qz, qw);
    CHECK(fabs(out[0] - cos(angle)) < 1e-6 && fabs(out[1] - sin(angle)) < 1e-6 && fabs(out[2]) < 1e-6,
          "(%.7f %.7f %.7f), expected (%.7f %.7f 0): turned %.2f degrees", out[0], out[1], out[2], cos(angle), sin(angle),
          atan2(out[1], out[0]) * 180.0 / 3.14159265358979323846);
    CHECK(angle < -1.0, "the worked example lost its point: %.3f radians", angle);
    bones[1].q = fk_quat_make(-bones[1].q.x, -bones[1].q.y, -bones[1].q.z, -bones[1].q.w);
    d.out_positions = again;
    CHECK(fk_skin_cor(&d, centre, 0) == FK_OK && !memcmp(out, again, sizeof out), "the bone's sign changed the result");
    d.weights = tiny;
    CHECK(fk_skin_cor(&d, centre, 0) == FK_OK, "call fails");
    CHECK(fabs(again[0] - out[0]) < 1e-6 && fabs(again[1] - out[1]) < 1e-6, "tiny weights: (%.7f %.7f), expected (%.7f %.7f)",
          again[0], again[1], out[0], out[1]);
}

/* Random meshes and poses (bones often more than 120 degrees apart) against the
   formula in double. */
static void test_skin_matches_double_reference(void)
{
    static mesh m;
    static skinned s;
    fk_skin_desc d;
    int trial, skipped = 0;
    for (trial = 0; trial < 20; ++trial) {
        double position, direction;
        rng_state = base_seed * 11 + (uint64_t)trial;
        if (trial % 2) make_random(&m, 12 + rng_below(50), 10 + rng_below(80));
        else make_limb(&m, 6, 8, 0.5f);
        make_skinned(&m, &s);
        d = skin_desc_of(&m, &s);
        CHECK(fk_skin_cor(&d, &s.centres[0][0], 0) == FK_OK, "call fails");
        compare_with_reference(&m, &s, &position, &direction, &skipped);
        skin_worst_seen = fmax(skin_worst_seen, position);
        CHECK(position < 1e-6, "seed 0x%llx trial %d: a position is %.3g of the diagonal away",
              (unsigned long long)base_seed, trial, position);
        CHECK(direction < 1e-6, "seed 0x%llx trial %d: a normal or tangent is %.3g away", (unsigned long long)base_seed,
              trial, direction);
    }
    CHECK(skipped < 20, "%d vertices skipped at a hemisphere's edge", skipped);
}

/* The identity pose gives the rest mesh (to rounding: v - c + c). */
static void test_skin_identity_pose_keeps_the_mesh(void)
{
    static mesh m;
    static skinned s;
    fk_skin_desc d;
    int v, e, j;
    rng_state = base_seed * 13;
    make_random(&m, 40, 60);
    make_skinned(&m, &s);
    for (j = 0; j < BONES; ++j) s.bones[j] = fk_rigid_identity();
    d = skin_desc_of(&m, &s);
    CHECK(fk_skin_cor(&d, &s.centres[0][0], 0) == FK_OK, "call fails");
    for (v = 0; v < m.vertex_count; ++v)
        for (e = 0; e < 3; ++e) {
            CHECK(fabs(s.out_positions[v][e] - m.positions[v][e]) < 1e-6, "vertex %d moved", v);
            CHECK(fabs(s.out_normals[v][e] - s.normals[v][e]) < 1e-6, "vertex %d: normal turned", v);
        }
}

#if defined(__FAST_MATH__)
/* The size of the terms a skinned coordinate of vertex v sums: its rest
   position's and its bones' translations' (rounding is relative to them). */
static float terms_size(const mesh *m, const skinned *s, int v)
{
    const float *p = m->positions[v];
    float size = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    int e;
    for (e = 0; e < K; ++e) size += fk_vec3_length(s->bones[m->joints[v][e]].t);
    return size;
}
#endif

/* A vertex weighted to one bone has its own position as centre and moves as
   LBS's plain C loop moves it, bit for bit (a rig larger than the palette
   keeps fk_skin_lbs() off the fast paths, which agree with it to a few ulps;
   built with -ffast-math, which reassociates each function on its own, to
   two ulps of the terms' size, as the header says); with any other centre,
   to rounding. */
static void test_skin_one_bone_vertex_is_lbs(void)
{
    static mesh m;
    static skinned s;
    static float lbs[MAX_V][3], centres_elsewhere[MAX_V][3];
    static fk_rigid large_rig[1024]; /* more than FK_LBS_PALETTE_CAPACITY's default */
    fk_skin_desc d;
    int trial, v, e, j, checked = 0;
    for (trial = 0; trial < 5; ++trial) {
        rng_state = base_seed * 17 + (uint64_t)trial;
        make_limb(&m, 6, 8, 0.3f);
        make_skinned(&m, &s);
        d = skin_desc_of(&m, &s);
        CHECK(fk_skin_cor(&d, &s.centres[0][0], 0) == FK_OK, "call fails");
        for (j = 0; j < 1024; ++j) large_rig[j] = j < BONES ? s.bones[j] : fk_rigid_identity();
        d.transforms = large_rig; d.transform_count = 1024;
        d.out_positions = &lbs[0][0]; d.normals = NULL; d.tangents = NULL;
        CHECK(fk_skin_lbs(&d) == FK_OK, "LBS fails");
        for (v = 0; v < m.vertex_count; ++v) {
            if (m.weights[v][0] != 0.0f && m.weights[v][1] != 0.0f) continue;
            ++checked;
            for (e = 0; e < 3; ++e)
#if defined(__FAST_MATH__)
                CHECK(fabsf(s.out_positions[v][e] - lbs[v][e]) <= 2.0f * FLT_EPSILON * terms_size(&m, &s, v),
                      "vertex %d: %.9g, LBS %.9g", v, s.out_positions[v][e], lbs[v][e]);
#else
                CHECK(s.out_positions[v][e] == lbs[v][e], "vertex %d: %.9g, LBS %.9g", v, s.out_positions[v][e], lbs[v][e]);
#endif
            for (e = 0; e < 3; ++e) centres_elsewhere[v][e] = rng_uniform(-2.0f, 2.0f);
        }
        d = skin_desc_of(&m, &s);
        CHECK(fk_skin_cor(&d, &centres_elsewhere[0][0], 0) == FK_OK, "call fails");
        for (v = 0; v < m.vertex_count; ++v)
            for (e = 0; m.weights[v][0] * m.weights[v][1] == 0.0f && e < 3; ++e)
                CHECK(fabs(s.out_positions[v][e] - lbs[v][e]) < 4e-6, "vertex %d, centre elsewhere: %.9g, LBS %.9g", v,
                      s.out_positions[v][e], lbs[v][e]);
    }
    CHECK(checked > 0, "no one-bone vertex");
}

/* Bones that all turn alike: R is their rotation, and v' = R (v - c) + R c + sum w t = LBS. */
static void test_skin_same_rotation_is_lbs(void)
{
    static mesh m;
    static skinned s;
    static float lbs[MAX_V][3];
    fk_skin_desc d;
    int trial, v, e, j;
    for (trial = 0; trial < 10; ++trial) {
        fk_quat q;
        rng_state = base_seed * 19 + (uint64_t)trial;
        make_random(&m, 12 + rng_below(50), 10 + rng_below(80));
        make_skinned(&m, &s);
        q = random_quat();
        for (j = 0; j < BONES; ++j) s.bones[j].q = rng_below(2) ? q : fk_quat_make(-q.x, -q.y, -q.z, -q.w);
        d = skin_desc_of(&m, &s);
        CHECK(fk_skin_cor(&d, &s.centres[0][0], 0) == FK_OK, "call fails");
        d.out_positions = &lbs[0][0]; d.normals = NULL; d.tangents = NULL;
        CHECK(fk_skin_lbs(&d) == FK_OK, "LBS fails");
        for (v = 0; v < m.vertex_count; ++v)
            for (e = 0; m.weights[v][0] + m.weights[v][1] + m.weights[v][2] != 0.0f && e < 3; ++e)
                CHECK(fabs(s.out_positions[v][e] - lbs[v][e]) < 1e-5, "seed 0x%llx vertex %d: %.9g, LBS %.9g",
                      (unsigned long long)base_seed, v, s.out_positions[v][e], lbs[v][e]);
    }
}

/* Moving the whole posed rig rigidly moves the skinned mesh alike (weights sum to one). */
static void test_skin_rigid_motion_of_the_rig(void)
{
    static mesh m;
    static skinned s, moved;
    fk_skin_desc d;
    int trial, v, e, j;
    for (trial = 0; trial < 10; ++trial) {
        fk_rigid g;
        rng_state = base_seed * 23 + (uint64_t)trial;
        make_random(&m, 12 + rng_below(50), 10 + rng_below(80));
        make_skinned(&m, &s);
        g = fk_rigid_make(random_quat(), random_vec3(3.0f));
        moved = s;
        for (j = 0; j < BONES; ++j) moved.bones[j] = fk_rigid_mul(g, s.bones[j]);
        d = skin_desc_of(&m, &s);
        CHECK(fk_skin_cor(&d, &s.centres[0][0], 0) == FK_OK, "call fails");
        d = skin_desc_of(&m, &moved);
        CHECK(fk_skin_cor(&d, &moved.centres[0][0], 0) == FK_OK, "call fails");
        for (v = 0; v < m.vertex_count; ++v) {
            const fk_vec3 p = fk_rigid_apply(g, fk_vec3_make(s.out_positions[v][0], s.out_positions[v][1], s.out_positions[v][2]));
            const fk_vec3 n = fk_quat_rotate(g.q, fk_vec3_make(s.out_normals[v][0], s.out_normals[v][1], s.out_normals[v][2]));
            const float pe[3] = {p.x, p.y, p.z}, ne[3] = {n.x, n.y, n.z};
            if (m.weights[v][0] + m.weights[v][1] + m.weights[v][2] == 0.0f) continue; /* rests where it is */
            for (e = 0; e < 3; ++e) {
                CHECK(fabs(moved.out_positions[v][e] - pe[e]) < 2e-5, "seed 0x%llx vertex %d: %.9g, expected %.9g",
                      (unsigned long long)base_seed, v, moved.out_positions[v][e], pe[e]);
                CHECK(fabs(moved.out_normals[v][e] - ne[e]) < 1e-5, "seed 0x%llx vertex %d: normal", (unsigned long long)base_seed, v);
            }
        }
    }
}

/* Pieces skinned by separate calls, interleaved records and in place: the bits of one call. */
static void test_skin_ranges_and_layouts_give_the_same_bits(void)
{
    static mesh m;
    static skinned s;
    static float whole[MAX_V][3], whole_n[MAX_V][3], whole_t[MAX_V][4], records[MAX_V][13];
    fk_skin_desc d, piece;
    int trial, v, cut;
    for (trial = 0; trial < 10; ++trial) {
        rng_state = base_seed * 29 + (uint64_t)trial;
        make_random(&m, 12 + rng_below(50), 10 + rng_below(80));
        make_skinned(&m, &s);
        d = skin_desc_of(&m, &s);
        CHECK(fk_skin_cor(&d, &s.centres[0][0], 0) == FK_OK, "call fails");
        memcpy(whole, s.out_positions, sizeof whole);
        memcpy(whole_n, s.out_normals, sizeof whole_n);
        memcpy(whole_t, s.out_tangents, sizeof whole_t);
        memset(s.out_positions, 0, sizeof s.out_positions);
        cut = rng_below(m.vertex_count + 1);
        piece = d;
        piece.vertex_count = cut;
        CHECK(fk_skin_cor(&piece, &s.centres[0][0], 0) == FK_OK, "call fails");
        piece.vertex_count = m.vertex_count - cut;
        piece.positions += 3 * cut; piece.normals += 3 * cut; piece.tangents += 4 * cut;
        piece.joints = m.joints[cut]; piece.weights = m.weights[cut];
        piece.out_positions += 3 * cut; piece.out_normals += 3 * cut; piece.out_tangents += 4 * cut;
        CHECK(fk_skin_cor(&piece, s.centres[cut], 0) == FK_OK, "call fails");
        CHECK(!memcmp(whole, s.out_positions, sizeof whole[0] * (size_t)m.vertex_count), "split at %d: other bits", cut);
        /* in place, position, normal, tangent and centre in one record */
        for (v = 0; v < m.vertex_count; ++v) {
            memcpy(records[v], m.positions[v], 12);
            memcpy(records[v] + 3, s.normals[v], 12);
            memcpy(records[v] + 6, s.tangents[v], 16);
            memcpy(records[v] + 10, s.centres[v], 12);
        }
        d.positions = d.out_positions = records[0];
        d.normals = d.out_normals = records[0] + 3;
        d.tangents = d.out_tangents = records[0] + 6;
        d.position_stride = d.out_position_stride = d.normal_stride = d.out_normal_stride = sizeof records[0];
        d.tangent_stride = d.out_tangent_stride = sizeof records[0];
        CHECK(fk_skin_cor(&d, records[0] + 10, sizeof records[0]) == FK_OK, "call fails");
        for (v = 0; v < m.vertex_count; ++v)
            CHECK(!memcmp(records[v], whole[v], 12) && !memcmp(records[v] + 3, whole_n[v], 12) &&
                      !memcmp(records[v] + 6, whole_t[v], 16),
                  "seed 0x%llx vertex %d: in place, interleaved: other bits", (unsigned long long)base_seed, v);
    }
}

/* 3x4 row-major products, for bones with scale. */
static void mat34_mul(const float a[12], const float b[12], float out[12])
{
    int r, c;
    for (r = 0; r < 3; ++r)
        for (c = 0; c < 4; ++c)
            out[4 * r + c] = a[4 * r] * b[c] + a[4 * r + 1] * b[4 + c] + a[4 * r + 2] * b[8 + c] + (c == 3 ? a[4 * r + 3] : 0.0f);
}

/* Bones with scale: matrices that do not scale give the rigid result; a
   uniform scale s of the whole rig about a point scales the skinned mesh by s
   about it; a vertex weighted to one bone stretched along its own axes moves by
   that bone's matrix; without bind poses, an error and nothing written. */
static void test_skin_bones_with_scale(void)
{
    static mesh m, doubled;
    static skinned s;
    static float rigid_out[MAX_V][3], sentinel[MAX_V][3], lbs_out[MAX_V][3], lbs_normals[MAX_V][3], elsewhere[MAX_V][3];
    fk_skin_desc lbs;
    float matrices[BONES][12], scaled[BONES][12], about[12], stretch[12], b[12], b_inverse[12], product[12];
    fk_rigid binds[BONES];
    fk_skin_desc d;
    int trial, v, e, j;
    for (trial = 0; trial < 10; ++trial) {
        const float factor = rng_uniform(0.3f, 3.0f);
        const fk_vec3 point = random_vec3(2.0f);
        rng_state = base_seed * 31 + (uint64_t)trial;
        make_limb(&m, 6, 8, 0.5f);
        make_skinned(&m, &s);
        d = skin_desc_of(&m, &s);
        CHECK(fk_skin_cor(&d, &s.centres[0][0], 0) == FK_OK, "call fails");
        memcpy(rigid_out, s.out_positions, sizeof rigid_out);
        for (j = 0; j < BONES; ++j) {
            fk_rigid_to_mat34(s.bones[j], matrices[j]);
            binds[j] = fk_rigid_make(random_quat(), random_vec3(1.0f));
        }
        d.transforms = NULL; d.matrices = &matrices[0][0]; d.bind_poses = binds;
        CHECK(fk_skin_cor(&d, &s.centres[0][0], 0) == FK_OK, "call fails");
        for (v = 0; v < m.vertex_count; ++v)
            for (e = 0; e < 3; ++e)
                CHECK(fabs(s.out_positions[v][e] - rigid_out[v][e]) < 1e-5, "trial %d vertex %d: rigid matrices differ", trial, v);
        /* s about the point: x -> point + s (x - point) */
        memset(about, 0, sizeof about);
        about[0] = about[5] = about[10] = factor;
        about[3] = (1.0f - factor) * point.x; about[7] = (1.0f - factor) * point.y; about[11] = (1.0f - factor) * point.z;
        for (j = 0; j < BONES; ++j) mat34_mul(about, matrices[j], scaled[j]);
        d.matrices = &scaled[0][0];
        CHECK(fk_skin_cor(&d, &s.centres[0][0], 0) == FK_OK, "call fails");
        for (v = 0; v < m.vertex_count; ++v) {
            const float expected[3] = {point.x + factor * (rigid_out[v][0] - point.x), point.y + factor * (rigid_out[v][1] - point.y),
                                       point.z + factor * (rigid_out[v][2] - point.z)};
            for (e = 0; e < 3; ++e)
                CHECK(fabs(s.out_positions[v][e] - expected[e]) < 3e-5, "trial %d vertex %d: %.7f, scaled %.7f", trial, v,
                      s.out_positions[v][e], expected[e]);
        }
        /* bone j stretched along its rest axes: M_j = rigid_j B_j diag B_j^-1 */
        for (j = 0; j < BONES; ++j) {
            memset(stretch, 0, sizeof stretch);
            stretch[0] = rng_uniform(0.5f, 2.0f); stretch[5] = rng_uniform(0.5f, 2.0f); stretch[10] = rng_uniform(0.5f, 2.0f);
            fk_rigid_to_mat34(binds[j], b);
            fk_rigid_to_mat34(fk_rigid_inverse(binds[j]), b_inverse);
            mat34_mul(b, stretch, product);
            mat34_mul(product, b_inverse, stretch);
            mat34_mul(matrices[j], stretch, scaled[j]);
        }
        CHECK(fk_skin_cor(&d, &s.centres[0][0], 0) == FK_OK, "call fails");
        lbs = d; /* its normals: the cofactors of the bone's matrix */
        lbs.out_positions = &lbs_out[0][0]; lbs.out_normals = &lbs_normals[0][0]; lbs.tangents = NULL;
        CHECK(fk_skin_lbs(&lbs) == FK_OK, "LBS fails");
        for (v = 0; v < m.vertex_count; ++v) {
            const float *mj = scaled[m.joints[v][m.weights[v][0] != 0.0f ? 0 : 1]], *p = m.positions[v];
            if (m.weights[v][0] * m.weights[v][1] != 0.0f) continue;
            for (e = 0; e < 3; ++e) {
                const float expected = mj[4 * e] * p[0] + mj[4 * e + 1] * p[1] + mj[4 * e + 2] * p[2] + mj[4 * e + 3];
                CHECK(fabs(s.out_positions[v][e] - expected) < 2e-5, "trial %d vertex %d: %.7f, its bone %.7f", trial, v,
                      s.out_positions[v][e], expected);
                CHECK(fabs(s.out_normals[v][e] - lbs_normals[v][e]) < 1e-5, "trial %d vertex %d: normal %.7f, its bone's %.7f",
                      trial, v, s.out_normals[v][e], lbs_normals[v][e]);
            }
        }
        /* one bone, a centre elsewhere: R S (v - c) + M c is still M v */
        for (v = 0; v < m.vertex_count; ++v)
            for (e = 0; e < 3; ++e) elsewhere[v][e] = rng_uniform(-2.0f, 2.0f);
        CHECK(fk_skin_cor(&d, &elsewhere[0][0], 0) == FK_OK, "call fails");
        for (v = 0; v < m.vertex_count; ++v) {
            const float *mj = scaled[m.joints[v][m.weights[v][0] != 0.0f ? 0 : 1]], *p = m.positions[v];
            if (m.weights[v][0] * m.weights[v][1] != 0.0f) continue;
            for (e = 0; e < 3; ++e) {
                const float expected = mj[4 * e] * p[0] + mj[4 * e + 1] * p[1] + mj[4 * e + 2] * p[2] + mj[4 * e + 3];
                CHECK(fabs(s.out_positions[v][e] - expected) < 5e-5, "trial %d vertex %d, centre elsewhere: %.7f, its bone %.7f",
                      trial, v, s.out_positions[v][e], expected);
            }
        }
        CHECK(fk_skin_cor(&d, &s.centres[0][0], 0) == FK_OK, "call fails");
        /* weights doubled: R and S are the same, and the centre moves twice as
           far, v'' = v' + sum_k w_k M_k p* (LBS of the centres) */
        memcpy(rigid_out, s.out_positions, sizeof rigid_out);
        lbs.positions = &s.centres[0][0]; lbs.normals = NULL; lbs.out_normals = NULL;
        CHECK(fk_skin_lbs(&lbs) == FK_OK, "LBS fails");
        doubled = m;
        for (v = 0; v < m.vertex_count; ++v)
            for (e = 0; e < K; ++e) doubled.weights[v][e] *= 2.0f;
        d.weights = &doubled.weights[0][0];
        CHECK(fk_skin_cor(&d, &s.centres[0][0], 0) == FK_OK, "call fails");
        d.weights = &m.weights[0][0];
        for (v = 0; v < m.vertex_count; ++v)
            for (e = 0; e < 3; ++e)
                CHECK(fabs(s.out_positions[v][e] - (rigid_out[v][e] + lbs_out[v][e])) < 3e-5,
                      "trial %d vertex %d: weights doubled: %.7f, expected %.7f", trial, v, s.out_positions[v][e],
                      rigid_out[v][e] + lbs_out[v][e]);
        d.bind_poses = NULL;
        memset(sentinel, 0x5A, sizeof sentinel);
        memcpy(s.out_positions, sentinel, sizeof sentinel);
        CHECK(fk_skin_cor(&d, &s.centres[0][0], 0) == FK_ERROR_MISSING_BIND_POSES, "no bind poses accepted");
        CHECK(fk_skin_validate(&d, FK_SKIN_COR) == FK_ERROR_MISSING_BIND_POSES, "validate: no bind poses accepted");
        CHECK(!memcmp(s.out_positions, sentinel, sizeof sentinel), "wrote on error");
    }
}

/* Bad input: an error, and nothing written (a bad joint index: found by fk_skin_validate() first). */
static void test_skin_bad_input_writes_nothing(void)
{
    static mesh m;
    static skinned s;
    static float sentinel[MAX_V][3];
    fk_skin_desc d, bad;
    fk_result r;
    rng_state = base_seed * 37;
    make_limb(&m, 6, 8, 0.5f);
    make_skinned(&m, &s);
    d = skin_desc_of(&m, &s);
    d.tangents = NULL; d.out_tangents = NULL;
    memset(sentinel, 0x5A, sizeof sentinel);
#define EXPECT(code, desc_, centres_, stride)                                                                      \
    do {                                                                                                          \
        memcpy(s.out_positions, sentinel, sizeof sentinel);                                                       \
        memcpy(s.out_normals, sentinel, sizeof sentinel);                                                         \
        r = fk_skin_cor(desc_, centres_, stride);                                                                 \
        CHECK(r == (code), "line %d: %s, expected %s", __LINE__, fk_result_description(r), fk_result_description(code)); \
        CHECK(!memcmp(s.out_positions, sentinel, sizeof sentinel) && !memcmp(s.out_normals, sentinel, sizeof sentinel), \
              "line %d: wrote on error", __LINE__);                                                                \
    } while (0)
    EXPECT(FK_ERROR_NULL_ARGUMENT, NULL, &s.centres[0][0], 0);
    EXPECT(FK_ERROR_NULL_ARGUMENT, &d, NULL, 0);
    EXPECT(FK_ERROR_INVALID_STRIDE, &d, &s.centres[0][0], 8);
    EXPECT(FK_ERROR_INVALID_STRIDE, &d, &s.centres[0][0], 14);
    EXPECT(FK_ERROR_INVALID_STRIDE, &d, (const float *)(const void *)((const char *)&s.centres[0][0] + 1), 0);
    bad = d; bad.influences = 0;
    EXPECT(FK_ERROR_INVALID_COUNT, &bad, &s.centres[0][0], 0);
    bad = d; bad.out_normals = NULL;
    EXPECT(FK_ERROR_NULL_ARGUMENT, &bad, &s.centres[0][0], 0);
    s.bones[2].q = fk_quat_make(0.0f, 0.0f, 0.0f, 0.0f);
    EXPECT(FK_ERROR_INVALID_ROTATION, &d, &s.centres[0][0], 0);
    s.bones[2] = fk_rigid_identity();
    m.joints[30][1] = BONES;
    CHECK(fk_skin_validate(&d, FK_SKIN_COR) == FK_ERROR_JOINT_OUT_OF_RANGE, "validate misses the bad index");
    CHECK(fk_skin_validate(&d, (fk_skin_method)3) == FK_ERROR_INVALID_OPTION, "validate takes an unknown method");
    m.joints[30][1] = 1;
    CHECK(fk_skin_validate(&d, FK_SKIN_COR) == FK_OK, "validate refuses good input");
    CHECK(fk_skin_scratch_size(&d, FK_SKIN_COR) == 64 + 512, "scratch for 6 rigid bones: %zu bytes",
          fk_skin_scratch_size(&d, FK_SKIN_COR));
#undef EXPECT
}

int main(void)
{
    const char *seed = getenv("COR_SEED");
    if (seed) base_seed = strtoull(seed, NULL, 0);
    printf("test_cor: seed 0x%llx\n", (unsigned long long)base_seed);
    RUN_TEST(test_equal_weights_give_area_mean);
    RUN_TEST(test_limb_matches_brute_force);
    RUN_TEST(test_limb_centres_lie_on_the_axis);
    RUN_TEST(test_smooth_weights_match_brute_force);
    RUN_TEST(test_random_meshes_match_brute_force);
    RUN_TEST(test_one_bone_vertex_keeps_its_position);
    RUN_TEST(test_rigid_motion_moves_the_centres);
    RUN_TEST(test_triangle_order_does_not_matter);
    RUN_TEST(test_ranges_and_layouts_give_the_same_bits);
    RUN_TEST(test_disjoint_weights_terminate);
    RUN_TEST(test_degenerate_triangles_add_nothing);
    RUN_TEST(test_bad_input_writes_nothing);
    RUN_TEST(test_skin_hemisphere_of_the_heaviest);
    RUN_TEST(test_skin_matches_double_reference);
    RUN_TEST(test_skin_identity_pose_keeps_the_mesh);
    RUN_TEST(test_skin_one_bone_vertex_is_lbs);
    RUN_TEST(test_skin_same_rotation_is_lbs);
    RUN_TEST(test_skin_rigid_motion_of_the_rig);
    RUN_TEST(test_skin_ranges_and_layouts_give_the_same_bits);
    RUN_TEST(test_skin_bones_with_scale);
    RUN_TEST(test_skin_bad_input_writes_nothing);
    printf("largest distance from the brute force: %.3g of the mesh's diagonal\n", worst_seen);
    printf("skinning: largest distance from the double formula: %.3g of the mesh's diagonal\n", skin_worst_seen);
    return check_finish();
}
