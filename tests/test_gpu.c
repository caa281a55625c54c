/* test_gpu.c - what GPU skinning reads: the shader palettes and the split of a
   mesh into draws whose bones fit a palette.

   A shader blends palette entries; the tests blend them here as a shader
   would (in double, so that only the palette's rounding is measured) and hold
   the result to fk_skin_lbs() and fk_skin_dqs() on the same rig. Randomized
   tests draw from one seed, printed in every failure message with the command
   that replays it: build/test_gpu SEED. */
#include "fk_lbs.h" /* declarations: the library is tests/fk_lbs_impl.c */
#include "check.h"
#include "test_random.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BONES 24
#define VERTICES 200
#define K 4
#define TRIALS 50

static unsigned long seed = 20261127ul;

static void rng_restart(void) { rng_state = (uint64_t)seed * 0x9E3779B97F4A7C15u + 1u; }

/* ---- A random rig ------------------------------------------------------------------- */

typedef struct rig {
    int parents[BONES];
    fk_rigid bones[BONES];       /* rigid bones, rotations of random length and sign */
    float matrices[BONES][12];   /* the same bones with scale and shear: P_j B_j^-1 */
    fk_rigid bind_poses[BONES];  /* B_j */
    float positions[VERTICES][3];
    uint16_t joints[VERTICES][K];
    float weights[VERTICES][K];
} rig;

static rig the_rig;

/* Parents in random order; vertices weighted to a bone and its neighbours in the
   tree, as skinned meshes are. */
static void make_rig(rig *r, int scaled_bones)
{
    int j, i, e;
    for (j = 0; j < BONES; ++j) r->parents[j] = j == 0 ? -1 : rng_below(j);
    for (j = 0; j < BONES; ++j) {
        fk_quat q = random_quat();
        float length = rng_uniform(0.5f, 2.0f) * (rng_below(2) ? -1.0f : 1.0f);
        r->bones[j] = fk_rigid_make(fk_quat_make(q.x * length, q.y * length, q.z * length, q.w * length), random_vec3(3.0f));
        r->bind_poses[j] = fk_rigid_make(random_quat(), random_vec3(2.0f));
    }
    for (j = 0; j < BONES; ++j) {
        float posed[12], bind[12], bind_inverse[12];
        fk_vec3 scale = j < scaled_bones ? fk_vec3_make(rng_uniform(0.5f, 2.0f), rng_uniform(0.5f, 2.0f), rng_uniform(0.5f, 2.0f))
                                         : fk_vec3_make(1.0f, 1.0f, 1.0f);
        fk_mat34_from_trs(random_vec3(3.0f), random_quat(), scale, posed);
        fk_rigid_to_mat34(r->bind_poses[j], bind);
        fk_mat34_inverse(bind, bind_inverse);
        fk_mat34_mul(posed, bind_inverse, r->matrices[j]);
    }
    for (i = 0; i < VERTICES; ++i) {
        int bone = rng_below(BONES);
        float total = 0.0f;
        fk_vec3 p = random_vec3(2.0f);
        r->positions[i][0] = p.x; r->positions[i][1] = p.y; r->positions[i][2] = p.z;
        for (e = 0; e < K; ++e) {
            r->joints[i][e] = (uint16_t)bone;
            r->weights[i][e] = rng_uniform(0.05f, 1.0f);
            total += r->weights[i][e];
            if (r->parents[bone] >= 0) bone = r->parents[bone];
        }
        for (e = 0; e < K; ++e) r->weights[i][e] /= total;
    }
}

static fk_skin_desc describe(rig *r, float *out)
{
    fk_skin_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = VERTICES;
    d.influences = K;
    d.positions = &r->positions[0][0];
    d.joints = &r->joints[0][0];
    d.weights = &r->weights[0][0];
    d.transform_count = BONES;
    d.out_positions = out;
    return d;
}

/* Errors are held to 8 float epsilons of the largest coordinates involved
   (about 20: points within 3.5 of the origin, scaled by up to 2 and moved by up
   to 5 twice); the palette's and the skinning's own rounding are a few. */
#define TOLERANCE (8.0 * FLT_EPSILON * 20.0)

static double distance3(const double a[3], const float b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* ---- The LBS palette ----------------------------------------------------------------- */

/* A shader's LBS: v' = (sum_k w_k M_k) v with the 3x4 palette matrices. */
static void palette_matrices_skin_as_fk_skin_lbs(void)
{
    static float palette[BONES][12], out[VERTICES][3];
    int trial, i, e, row, worst_vertex = -1;
    double worst = 0.0;
    rng_restart();
    for (trial = 0; trial < TRIALS; ++trial) {
        fk_skin_desc d = describe(&the_rig, &out[0][0]);
        make_rig(&the_rig, 0);
        d.transforms = the_rig.bones;
        CHECK(fk_palette_matrices(BONES, the_rig.bones, &palette[0][0]) == FK_OK, "palette failed");
        CHECK(fk_skin_lbs(&d) == FK_OK, "skinning failed");
        for (i = 0; i < VERTICES; ++i) {
            double blended[3] = {0.0, 0.0, 0.0};
            const float *p = the_rig.positions[i];
            for (e = 0; e < K; ++e) {
                const float *m = palette[the_rig.joints[i][e]];
                for (row = 0; row < 3; ++row)
                    blended[row] += the_rig.weights[i][e] * ((double)m[4 * row] * p[0] + (double)m[4 * row + 1] * p[1] +
                                                             (double)m[4 * row + 2] * p[2] + m[4 * row + 3]);
            }
            if (distance3(blended, out[i]) > worst) { worst = distance3(blended, out[i]); worst_vertex = i; }
        }
    }
    CHECK(worst <= TOLERANCE, "a shader's blend of the palette is %g from fk_skin_lbs() at vertex %d (seed %lu)", worst,
          worst_vertex, seed);
}

/* ---- The DQS palettes ------------------------------------------------------------------ */

/* A shader's DQS, in double: each bone brought into the hemisphere of the
   vertex's heaviest, the scale parts (NULL: rigid bones) blended with the
   weights divided by their sum, the vertex's displacement by each scale part
   carried by its rigid part (FK_DQS_SCALE_AT_VERTEX), then the blend
   normalized and applied. */
static void shader_dqs(const float *dual_quats, const float *scale_parts, int i, double out[3])
{
    const float *p = the_rig.positions[i];
    double real[4] = {0, 0, 0, 0}, dual[4] = {0, 0, 0, 0}, norm, t[3], r[3], c[3];
    int e, c4, heaviest = 0;
    for (e = 1; e < K; ++e)
        if (the_rig.weights[i][e] > the_rig.weights[i][heaviest]) heaviest = e;
    for (e = 0; e < K; ++e) {
        const float *q = dual_quats + 8 * the_rig.joints[i][e], *pivot = dual_quats + 8 * the_rig.joints[i][heaviest];
        double w = the_rig.weights[i][e];
        if ((double)q[0] * pivot[0] + (double)q[1] * pivot[1] + (double)q[2] * pivot[2] + (double)q[3] * pivot[3] < 0.0) w = -w;
        for (c4 = 0; c4 < 4; ++c4) { real[c4] += w * q[c4]; dual[c4] += w * q[4 + c4]; }
        if (scale_parts) { /* dual += w/2 q (u, 0), u = S p - p */
            const float *s = scale_parts + 12 * the_rig.joints[i][e];
            double u[3];
            for (c4 = 0; c4 < 3; ++c4)
                u[c4] = (double)s[4 * c4] * p[0] + (double)s[4 * c4 + 1] * p[1] + (double)s[4 * c4 + 2] * p[2] + s[4 * c4 + 3] - p[c4];
            dual[0] += 0.5 * w * (q[3] * u[0] + (q[1] * u[2] - q[2] * u[1]));
            dual[1] += 0.5 * w * (q[3] * u[1] + (q[2] * u[0] - q[0] * u[2]));
            dual[2] += 0.5 * w * (q[3] * u[2] + (q[0] * u[1] - q[1] * u[0]));
            dual[3] -= 0.5 * w * (q[0] * u[0] + q[1] * u[1] + q[2] * u[2]);
        }
    }
    norm = sqrt(real[0] * real[0] + real[1] * real[1] + real[2] * real[2] + real[3] * real[3]);
    for (c4 = 0; c4 < 4; ++c4) { real[c4] /= norm; dual[c4] /= norm; }
    /* translation 2 (w d - d_w u + u x d); rotation v + 2 u x (u x v + w v) */
    t[0] = 2.0 * (real[3] * dual[0] - dual[3] * real[0] + (real[1] * dual[2] - real[2] * dual[1]));
    t[1] = 2.0 * (real[3] * dual[1] - dual[3] * real[1] + (real[2] * dual[0] - real[0] * dual[2]));
    t[2] = 2.0 * (real[3] * dual[2] - dual[3] * real[2] + (real[0] * dual[1] - real[1] * dual[0]));
    c[0] = real[1] * p[2] - real[2] * p[1] + real[3] * p[0];
    c[1] = real[2] * p[0] - real[0] * p[2] + real[3] * p[1];
    c[2] = real[0] * p[1] - real[1] * p[0] + real[3] * p[2];
    r[0] = p[0] + 2.0 * (real[1] * c[2] - real[2] * c[1]);
    r[1] = p[1] + 2.0 * (real[2] * c[0] - real[0] * c[2]);
    r[2] = p[2] + 2.0 * (real[0] * c[1] - real[1] * c[0]);
    for (c4 = 0; c4 < 3; ++c4) out[c4] = r[c4] + t[c4];
}

static void palette_dual_quats_skin_as_fk_skin_dqs(void)
{
    static float palette[BONES][8], scale_parts[BONES][12], out[VERTICES][3];
    int trial, i, scaled, worst_vertex = -1;
    double worst[2] = {0.0, 0.0}, shader[3];
    rng_restart();
    for (trial = 0; trial < TRIALS; ++trial)
        for (scaled = 0; scaled < 2; ++scaled) {
            fk_skin_desc d = describe(&the_rig, &out[0][0]);
            make_rig(&the_rig, scaled ? BONES / 2 : 0);
            if (scaled) {
                d.matrices = &the_rig.matrices[0][0];
                d.bind_poses = the_rig.bind_poses;
                CHECK(fk_palette_dual_quats_scaled(BONES, the_rig.parents, &the_rig.matrices[0][0], the_rig.bind_poses,
                                                   &palette[0][0], &scale_parts[0][0]) == FK_OK, "scaled palette failed");
            } else {
                d.transforms = the_rig.bones;
                CHECK(fk_palette_dual_quats(BONES, the_rig.parents, the_rig.bones, &palette[0][0]) == FK_OK, "palette failed");
            }
            CHECK(fk_skin_dqs(&d) == FK_OK, "skinning failed");
            for (i = 0; i < VERTICES; ++i) {
                shader_dqs(&palette[0][0], scaled ? &scale_parts[0][0] : NULL, i, shader);
                if (distance3(shader, out[i]) > worst[scaled]) { worst[scaled] = distance3(shader, out[i]); worst_vertex = i; }
            }
        }
    CHECK(worst[0] <= TOLERANCE, "a shader's DQS of the palette is %g from fk_skin_dqs() (vertex %d, seed %lu)", worst[0],
          worst_vertex, seed);
    CHECK(worst[1] <= TOLERANCE, "a shader's DQS with scale is %g from fk_skin_dqs() (vertex %d, seed %lu)", worst[1],
          worst_vertex, seed);
}

/* Every bone in its parent's hemisphere and every root with w >= 0, whatever
   signs the bones come with: negating the input changes no bit. */
static void palette_signs_follow_the_tree(void)
{
    static float palette[BONES][8], negated_palette[BONES][8], scale_parts[BONES][12];
    static fk_rigid negated[BONES];
    int trial, j, bad = -1, scaled;
    rng_restart();
    for (trial = 0; trial < TRIALS; ++trial)
        for (scaled = 0; scaled < 2; ++scaled) {
            make_rig(&the_rig, scaled ? BONES : 0);
            if (scaled)
                CHECK(fk_palette_dual_quats_scaled(BONES, the_rig.parents, &the_rig.matrices[0][0], the_rig.bind_poses,
                                                   &palette[0][0], &scale_parts[0][0]) == FK_OK, "scaled palette failed");
            else
                CHECK(fk_palette_dual_quats(BONES, the_rig.parents, the_rig.bones, &palette[0][0]) == FK_OK, "palette failed");
            for (j = 0; j < BONES; ++j) {
                const float *q = palette[j], *p = palette[the_rig.parents[j] < 0 ? j : the_rig.parents[j]];
                if (the_rig.parents[j] < 0 ? q[3] < 0.0f : q[0] * p[0] + q[1] * p[1] + q[2] * p[2] + q[3] * p[3] < 0.0f) bad = j;
            }
            CHECK(bad < 0, "bone %d is not in its parent's hemisphere (seed %lu)", bad, seed);
            if (scaled) continue;
            for (j = 0; j < BONES; ++j) {
                const fk_quat q = the_rig.bones[j].q;
                negated[j] = rng_below(2) ? fk_rigid_make(fk_quat_make(-q.x, -q.y, -q.z, -q.w), the_rig.bones[j].t) : the_rig.bones[j];
            }
            CHECK(fk_palette_dual_quats(BONES, the_rig.parents, negated, &negated_palette[0][0]) == FK_OK, "palette failed");
            CHECK(memcmp(palette, negated_palette, sizeof palette) == 0, "negating bones changed the palette (seed %lu)", seed);
            CHECK(fk_palette_dual_quats(BONES, NULL, the_rig.bones, &palette[0][0]) == FK_OK, "palette failed");
            for (j = 0; j < BONES; ++j) CHECK(palette[j][3] >= 0.0f, "without parents, bone %d has w < 0 (seed %lu)", j, seed);
        }
}

/* A rigid bone's scale part is the identity, exactly. */
static void rigid_bones_have_identity_scale_parts(void)
{
    static float palette[BONES][8], scale_parts[BONES][12];
    static const float identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    int j;
    rng_restart();
    make_rig(&the_rig, 0);
    for (j = 0; j < BONES; ++j) fk_rigid_to_mat34(fk_rigid_make(fk_quat_normalize(the_rig.bones[j].q), the_rig.bones[j].t), the_rig.matrices[j]);
    CHECK(fk_palette_dual_quats_scaled(BONES, NULL, &the_rig.matrices[0][0], the_rig.bind_poses, &palette[0][0],
                                       &scale_parts[0][0]) == FK_OK, "scaled palette failed");
    for (j = 0; j < BONES; ++j)
        CHECK(memcmp(scale_parts[j], identity, sizeof identity) == 0, "rigid bone %d has a scale part (seed %lu)", j, seed);
}

static void palettes_refuse_bad_input(void)
{
    static float out[4][12], scale_parts[4][12];
    static unsigned char sentinel[sizeof out];
    fk_rigid bones[4];
    float matrices[4][12];
    int parents[4] = {-1, 0, 1, 2}, j;
    for (j = 0; j < 4; ++j) { bones[j] = fk_rigid_identity(); fk_rigid_to_mat34(bones[j], matrices[j]); }
    memset(out, 0x5A, sizeof out);
    CHECK(fk_palette_matrices(-1, bones, &out[0][0]) == FK_ERROR_INVALID_COUNT, "negative count accepted");
    CHECK(fk_palette_matrices(4, NULL, &out[0][0]) == FK_ERROR_NULL_ARGUMENT, "NULL bones accepted");
    CHECK(fk_palette_dual_quats(4, parents, bones, NULL) == FK_ERROR_NULL_ARGUMENT, "NULL output accepted");
    parents[0] = 3;
    CHECK(fk_palette_dual_quats(4, parents, bones, &out[0][0]) == FK_ERROR_CYCLE, "a cycle accepted");
    parents[0] = 4;
    CHECK(fk_palette_dual_quats(4, parents, bones, &out[0][0]) == FK_ERROR_PARENT_OUT_OF_RANGE, "a bad parent accepted");
    parents[0] = -1;
    bones[2].q = fk_quat_make(0.0f, 0.0f, 0.0f, 0.0f);
    CHECK(fk_palette_dual_quats(4, parents, bones, &out[0][0]) == FK_ERROR_INVALID_ROTATION, "a zero rotation accepted");
    CHECK(fk_palette_dual_quats_scaled(4, parents, &matrices[0][0], bones, &out[0][0], &scale_parts[0][0]) ==
          FK_ERROR_INVALID_ROTATION, "a zero rest rotation accepted");
    bones[2] = fk_rigid_identity();
    bones[3].t.y = NAN;
    CHECK(fk_palette_matrices(4, bones, &out[0][0]) == FK_ERROR_NOT_FINITE, "a NaN translation accepted");
    bones[3] = fk_rigid_identity();
    matrices[1][7] = INFINITY;
    CHECK(fk_palette_dual_quats_scaled(4, parents, &matrices[0][0], bones, &out[0][0], &scale_parts[0][0]) ==
          FK_ERROR_NOT_FINITE, "an infinite matrix accepted");
    CHECK(fk_palette_dual_quats_scaled(4, parents, &matrices[0][0], bones, &out[0][0], NULL) == FK_ERROR_NULL_ARGUMENT,
          "NULL scale parts accepted");
    memset(sentinel, 0x5A, sizeof sentinel);
    CHECK(memcmp(out, sentinel, sizeof out) == 0, "an error wrote output");
    CHECK(fk_palette_matrices(0, NULL, NULL) == FK_OK, "an empty palette refused");
}

/* ---- Splitting a mesh into draws ------------------------------------------------------- */

#define TRIANGLES 300

static uint32_t triangles[TRIANGLES][3];

static fk_palette_split_desc split_desc(int max_bones)
{
    fk_palette_split_desc d;
    memset(&d, 0, sizeof d);
    d.triangle_count = TRIANGLES;
    d.indices = &triangles[0][0];
    d.vertex_count = VERTICES;
    d.influences = K;
    d.joints = &the_rig.joints[0][0];
    d.weights = &the_rig.weights[0][0];
    d.bone_count = BONES;
    d.max_bones = max_bones;
    return d;
}

/* Each group holds at most max_bones distinct bones, every bone of nonzero
   weight of each of its triangles' vertices, and the local joints point back
   at them; skinning each draw with its own palette gives the whole mesh's bits. */
static void split_draws_hold_their_triangles_bones(void)
{
    static int triangle_groups[TRIANGLES], counts[TRIANGLES];
    static uint16_t group_bones[TRIANGLES * BONES], local[VERTICES][K];
    static float whole[VERTICES][3], part[VERTICES][3];
    static fk_rigid group_palette[BONES];
    int trial, t, e, v, g, b, groups, counted;
    rng_restart();
    for (trial = 0; trial < TRIALS; ++trial) {
        const int max_bones = 3 * K + rng_below(BONES);
        fk_palette_split_desc d;
        fk_skin_desc skin;
        make_rig(&the_rig, 0);
        for (t = 0; t < TRIANGLES; ++t)
            for (e = 0; e < 3; ++e) triangles[t][e] = (uint32_t)rng_below(VERTICES);
        if (trial % 2) the_rig.weights[rng_below(VERTICES)][1] = 0.0f; /* a slot a draw may leave out */
        d = split_desc(max_bones);
        CHECK(fk_palette_split(&d, 0, NULL, NULL, NULL, &counted) == FK_OK, "counting failed");
        CHECK(fk_palette_split(&d, TRIANGLES, triangle_groups, group_bones, counts, &groups) == FK_OK, "split failed");
        CHECK(groups == counted, "counted %d groups, split into %d (seed %lu)", counted, groups, seed);
        for (g = 0; g < groups; ++g) {
            CHECK(counts[g] >= 1 && counts[g] <= max_bones, "group %d has %d bones, limit %d (seed %lu)", g, counts[g], max_bones, seed);
            for (b = 0; b < counts[g]; ++b)
                for (e = 0; e < b; ++e)
                    CHECK(group_bones[g * max_bones + b] != group_bones[g * max_bones + e], "group %d lists a bone twice (seed %lu)", g, seed);
        }
        for (t = 1; t < TRIANGLES; ++t)
            CHECK(triangle_groups[t] == triangle_groups[t - 1] || triangle_groups[t] == triangle_groups[t - 1] + 1,
                  "groups are not runs of triangles (seed %lu)", seed);
        skin = describe(&the_rig, &whole[0][0]);
        skin.transforms = the_rig.bones;
        CHECK(fk_skin_lbs(&skin) == FK_OK, "skinning failed");
        for (t = 0; t < TRIANGLES; ++t) {
            g = triangle_groups[t];
            for (b = 0; b < counts[g]; ++b) group_palette[b] = the_rig.bones[group_bones[g * max_bones + b]];
            for (e = 0; e < 3; ++e) {
                v = (int)triangles[t][e];
                CHECK(fk_palette_local_joints(counts[g], group_bones + g * max_bones, 1, K, the_rig.joints[v],
                                              the_rig.weights[v], local[v]) == FK_OK, "a triangle's vertex is not in its draw (seed %lu)", seed);
                for (b = 0; b < K; ++b)
                    if (the_rig.weights[v][b] != 0.0f)
                        CHECK(group_bones[g * max_bones + local[v][b]] == the_rig.joints[v][b], "local joint maps elsewhere (seed %lu)", seed);
                skin = describe(&the_rig, part[v]);
                skin.vertex_count = 1;
                skin.positions = the_rig.positions[v];
                skin.joints = local[v];
                skin.weights = the_rig.weights[v];
                skin.transforms = group_palette;
                skin.transform_count = counts[g];
                CHECK(fk_skin_lbs(&skin) == FK_OK, "skinning a draw failed");
                CHECK(memcmp(part[v], whole[v], sizeof whole[v]) == 0, "a draw skins vertex %d to other bits (seed %lu)", v, seed);
            }
        }
    }
}

/* A worked example: a strip of four triangles over six vertices bound to bones
   0 0 1 1 2 3 (a second influence of weight 0 names bone 3, which costs no
   palette entry), palettes of three bones. Triangles 0 and 1 use bones {0, 1},
   triangle 2 adds bone 2 and still fits; triangle 3 would add bone 3, so it
   starts the second draw, whose bones join in its vertices' order: 1, 2, 3. */
static void split_worked_example(void)
{
    static const uint32_t strip[4][3] = {{0, 1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 5}};
    static const uint16_t joints[6][2] = {{0, 3}, {0, 3}, {1, 3}, {1, 3}, {2, 3}, {3, 0}};
    static const float weights[6][2] = {{1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}};
    int triangle_groups[4], counts[4], groups;
    uint16_t bones[4 * 3];
    fk_palette_split_desc d;
    memset(&d, 0, sizeof d);
    d.triangle_count = 4; d.indices = &strip[0][0]; d.vertex_count = 6; d.influences = 2;
    d.joints = &joints[0][0]; d.weights = &weights[0][0]; d.bone_count = 4; d.max_bones = 3;
    CHECK(fk_palette_split(&d, 4, triangle_groups, bones, counts, &groups) == FK_OK, "split failed");
    CHECK(groups == 2 && counts[0] == 3 && counts[1] == 3, "split into %d groups of %d and %d", groups, counts[0], counts[1]);
    CHECK(triangle_groups[0] == 0 && triangle_groups[1] == 0 && triangle_groups[2] == 0 && triangle_groups[3] == 1,
          "triangles grouped as %d %d %d %d", triangle_groups[0], triangle_groups[1], triangle_groups[2], triangle_groups[3]);
    CHECK(bones[0] == 0 && bones[1] == 1 && bones[2] == 2 && bones[3] == 1 && bones[4] == 2 && bones[5] == 3,
          "the groups' bones are wrong");
}

static void split_refuses_bad_input(void)
{
    static const uint32_t one[1][3] = {{0, 1, 2}};
    static const uint16_t joints[3][2] = {{0, 1}, {2, 3}, {4, 5}};
    float weights[3][2] = {{0.5f, 0.5f}, {0.5f, 0.5f}, {0.5f, 0.5f}};
    int groups = -7, triangle_groups[1] = {-7}, counts[1] = {-7};
    uint16_t bones[8] = {7, 7, 7, 7, 7, 7, 7, 7}, local[2] = {9, 9};
    fk_palette_split_desc d;
    memset(&d, 0, sizeof d);
    d.triangle_count = 1; d.indices = &one[0][0]; d.vertex_count = 3; d.influences = 2;
    d.joints = &joints[0][0]; d.weights = &weights[0][0]; d.bone_count = 6; d.max_bones = 5;
    CHECK(fk_palette_split(&d, 1, triangle_groups, bones, counts, &groups) == FK_ERROR_INVALID_COUNT, "6 bones fit 5");
    d.max_bones = 6; d.bone_count = 5;
    CHECK(fk_palette_split(&d, 1, triangle_groups, bones, counts, &groups) == FK_ERROR_JOINT_OUT_OF_RANGE, "bone 5 of 5 accepted");
    d.bone_count = 6; d.vertex_count = 2;
    CHECK(fk_palette_split(&d, 1, triangle_groups, bones, counts, &groups) == FK_ERROR_JOINT_OUT_OF_RANGE, "vertex 2 of 2 accepted");
    d.vertex_count = 3; weights[1][0] = NAN;
    CHECK(fk_palette_split(&d, 1, triangle_groups, bones, counts, &groups) == FK_ERROR_INVALID_WEIGHT, "a NaN weight accepted");
    weights[1][0] = 0.5f;
    CHECK(fk_palette_split(&d, 0, triangle_groups, bones, counts, &groups) == FK_ERROR_INVALID_COUNT, "no room accepted");
    CHECK(fk_palette_split(&d, 1, triangle_groups, NULL, counts, &groups) == FK_ERROR_NULL_ARGUMENT, "NULL bones accepted");
    CHECK(fk_palette_split(NULL, 1, triangle_groups, bones, counts, &groups) == FK_ERROR_NULL_ARGUMENT, "NULL desc accepted");
    CHECK(groups == -7 && triangle_groups[0] == -7 && counts[0] == -7 && bones[0] == 7, "an error wrote output");
    CHECK(fk_palette_local_joints(2, bones, 1, 2, joints[0], weights[0], local) == FK_ERROR_JOINT_OUT_OF_RANGE &&
          local[0] == 9 && local[1] == 9, "a joint outside the group accepted, or output written");
    d.max_bones = 6;
    CHECK(fk_palette_split(&d, 1, triangle_groups, bones, counts, &groups) == FK_OK && groups == 1 && counts[0] == 6,
          "a triangle of 6 bones did not fit 6");
}

/* ---- Skinned bounds --------------------------------------------------------------- */

/* Rounding: fk_skin_lbs() makes about K + 4 roundings of quantities no larger
   than S = max_k (|A_k v| + |t_k|) (infinity norms) times the weight sum (up to
   2 here); fk_skin_dqs() about 40 through the blend, the normalization and the
   rotation, of quantities up to S / |r|, where |r| >= 1 / K is the blended
   rotation's length. So a skinned coordinate is within 40 K u S = 160 u S of the
   exact one; the bounds are rounded outward and need no allowance of their own.
   Mirrored and collapsing scale parts (DQS centred at the bone) stay within the
   same S, as their blend is an LBS of matrices no larger than the bones'. */
static double skin_scale(const fk_skin_desc *d, int i)
{
    const float *p = d->positions + 3 * i;
    double largest = 0.0;
    int e, row;
    for (e = 0; e < d->influences; ++e) {
        const int j = ((const uint16_t *)d->joints)[i * d->influences + e];
        float m[12];
        double size = 0.0;
        if (d->matrices) memcpy(m, d->matrices + 12 * j, sizeof m);
        else fk_rigid_to_mat34(fk_rigid_make(fk_quat_normalize(d->transforms[j].q), d->transforms[j].t), m);
        for (row = 0; row < 3; ++row) {
            double moved = fabs((double)m[4 * row] * p[0] + (double)m[4 * row + 1] * p[1] + (double)m[4 * row + 2] * p[2]);
            if (moved + fabs((double)m[4 * row + 3]) > size) size = moved + fabs((double)m[4 * row + 3]);
        }
        if (size > largest) largest = size;
    }
    return 2.0 * largest;
}

/* How far outside the bounds a skinned vertex is, in units of its rounding allowance
   (<= 1: inside, to rounding). */
static double outside_bounds(const fk_bounds *b, const float p[3], double allowance)
{
    const double centre[3] = {b->center.x, b->center.y, b->center.z};
    double worst = 0.0, distance2 = 0.0;
    const float lo[3] = {b->min.x, b->min.y, b->min.z}, hi[3] = {b->max.x, b->max.y, b->max.z};
    int e;
    for (e = 0; e < 3; ++e) {
        worst = fmax(worst, ((double)lo[e] - p[e]) / allowance);
        worst = fmax(worst, ((double)p[e] - hi[e]) / allowance);
        distance2 += (p[e] - centre[e]) * (p[e] - centre[e]);
    }
    return fmax(worst, (sqrt(distance2) - b->radius) / (allowance * 1.7320508075688772));
}

/* Skins the descriptor both ways that `method` names and checks every vertex
   against the bounds; returns the worst ratio found. */
static double skinned_vertices_inside(fk_skin_desc *d, const fk_bone_bounds *records, int dqs, const char *what,
                                      int trial)
{
    static float out[VERTICES][3];
    fk_bounds b;
    fk_result r;
    double worst = 0.0;
    int i;
    d->out_positions = &out[0][0];
    r = dqs ? fk_skin_bounds_dqs(d, records, &b) : fk_skin_bounds_lbs(d, records, &b);
    if (!CHECK(r == FK_OK, "%s bounds: %s (trial %d, seed %lu)", what, fk_result_description(r), trial, seed)) return 0.0;
    r = dqs ? fk_skin_dqs(d) : fk_skin_lbs(d);
    if (!CHECK(r == FK_OK, "%s skinning: %s", what, fk_result_description(r))) return 0.0;
    for (i = 0; i < d->vertex_count; ++i) {
        const double ratio = outside_bounds(&b, out[i], 160.0 * FLT_EPSILON * skin_scale(d, i));
        CHECK(ratio <= 1.0, "%s: vertex %d is outside the bounds by %.3g allowances (trial %d, seed %lu)", what, i, ratio,
              trial, seed);
        worst = fmax(worst, ratio);
    }
    return worst;
}

/* Weights as meshes have them and worse: some slots zero, some vertices on a
   single bone, sums off one (LBS scales by them). */
static void roughen_weights(rig *r)
{
    int i, e;
    for (i = 0; i < VERTICES; ++i) {
        const int kind = rng_below(4);
        const float scale = rng_uniform(0.25f, 2.0f);
        for (e = 0; e < K; ++e) {
            if (kind == 0 && e > 0) r->weights[i][e] = 0.0f;
            if (kind == 1 && rng_below(2)) r->weights[i][e] = 0.0f;
            if (kind == 2) r->weights[i][e] *= scale;
        }
        if (kind == 1) r->weights[i][0] += 0.01f;
    }
}

/* Adversarial bones: each one's rotation a half turn from the previous's (about
   a random axis, give or take), scales up to 100 and down to 0.01, mirrors. */
static void make_adversarial_bones(rig *r)
{
    int j;
    for (j = 0; j < BONES; ++j) {
        const float sizes[6] = {100.0f, -1.0f, 0.01f, 1.0f, -30.0f, 3.0f};
        float posed[12], bind[12], bind_inverse[12];
        const fk_quat previous = j ? r->bones[j - 1].q : fk_quat_identity();
        const fk_quat half_turn = fk_quat_from_axis_angle(random_vec3(1.0f), rng_uniform(2.8f, 3.14159265f));
        fk_vec3 scale = fk_vec3_make(sizes[rng_below(6)], sizes[rng_below(6)], sizes[rng_below(6)]);
        r->bones[j] = fk_rigid_make(fk_quat_mul(half_turn, previous), random_vec3(3.0f));
        fk_mat34_from_trs(r->bones[j].t, r->bones[j].q, scale, posed);
        fk_rigid_to_mat34(r->bind_poses[j], bind);
        fk_mat34_inverse(bind, bind_inverse);
        fk_mat34_mul(posed, bind_inverse, r->matrices[j]);
    }
}

static void check_every_method(rig *r, int vertex_count, int trial, const char *kind)
{
    static fk_bone_bounds records[BONES];
    char what[96];
    fk_skin_desc d = describe(r, NULL);
    fk_result result;
    d.vertex_count = vertex_count;
    result = fk_skin_bounds_prepare(&d, records);
    if (!CHECK(result == FK_OK, "%s: prepare: %s (seed %lu)", kind, fk_result_description(result), seed)) return;
    d.transforms = r->bones;
    snprintf(what, sizeof what, "%s, LBS of rigid bones", kind);
    skinned_vertices_inside(&d, records, 0, what, trial);
    snprintf(what, sizeof what, "%s, DQS of rigid bones", kind);
    skinned_vertices_inside(&d, records, 1, what, trial);
    d.transforms = NULL;
    d.matrices = &r->matrices[0][0];
    snprintf(what, sizeof what, "%s, LBS of affine bones", kind);
    skinned_vertices_inside(&d, records, 0, what, trial);
    d.bind_poses = r->bind_poses;
    snprintf(what, sizeof what, "%s, DQS with scale at the vertex", kind);
    skinned_vertices_inside(&d, records, 1, what, trial);
    d.dqs_scale_center = FK_DQS_SCALE_AT_BONE;
    snprintf(what, sizeof what, "%s, DQS with scale at the bone", kind);
    skinned_vertices_inside(&d, records, 1, what, trial);
}

/* The property: no vertex fk_skin_lbs() or fk_skin_dqs() writes is outside the
   box or the sphere, on random rigs, and on adversarial ones. */
static void no_skinned_vertex_leaves_the_bounds(void)
{
    int trial;
    rng_restart();
    for (trial = 0; trial < TRIALS; ++trial) {
        make_rig(&the_rig, rng_below(BONES + 1));
        roughen_weights(&the_rig);
        check_every_method(&the_rig, VERTICES, trial, "random rig");
        make_adversarial_bones(&the_rig);
        check_every_method(&the_rig, VERTICES, trial, "bones half a turn apart, scaled and mirrored");
    }
}

/* A few vertices on one bone, each shared with one other: with one weight and
   one weight sum for them all and one rest point, the LBS bound is reached (by
   the vertex whose partner pulls farthest), and DQS's nearly, so that a bound
   cut short shows. Twenty vertices overflow the bone's list of partners. */
static int make_small_mesh(rig *r)
{
    const int counts[4] = {1, 2, 3, 20}, count = counts[rng_below(4)], pivot = rng_below(BONES);
    const int one_point = rng_below(2), one_weight = rng_below(2);
    const fk_vec3 point = random_vec3(2.0f);
    float share = rng_uniform(0.55f, 1.0f), sum = rng_uniform(0.5f, 1.5f);
    int i, e;
    for (i = 0; i < count; ++i) {
        const int slot = rng_below(2);
        const fk_vec3 p = one_point ? point : random_vec3(2.0f);
        if (!one_weight) { share = rng_uniform(0.55f, 1.0f); sum = rng_uniform(0.5f, 1.5f); }
        r->positions[i][0] = p.x; r->positions[i][1] = p.y; r->positions[i][2] = p.z;
        for (e = 0; e < K; ++e) { r->joints[i][e] = 0; r->weights[i][e] = 0.0f; }
        r->joints[i][slot] = (uint16_t)pivot;
        r->joints[i][1 - slot] = (uint16_t)((pivot + 1 + (count > 3 ? i : rng_below(BONES - 1))) % BONES);
        r->weights[i][slot] = share * sum;
        r->weights[i][1 - slot] = (1.0f - share) * sum;
    }
    return count;
}

static void no_vertex_of_a_small_mesh_leaves_the_bounds(void)
{
    int trial, count;
    rng_restart();
    for (trial = 0; trial < 4 * TRIALS; ++trial) {
        make_rig(&the_rig, rng_below(BONES + 1));
        count = make_small_mesh(&the_rig);
        check_every_method(&the_rig, count, trial, "small mesh");
        make_adversarial_bones(&the_rig);
        check_every_method(&the_rig, count, trial, "small mesh, bones half a turn apart, scaled and mirrored");
    }
}

/* Worked by hand: bone 0 stays, bone 1 moves by (2, 0, 0); a vertex at the
   origin on bone 0, one at (1, 0, 0) three quarters on bone 1. LBS and DQS both
   put the second at 2.5 (pure translations blend exactly); the LBS bound is
   x in [0, 3] exactly, DQS's grows bone 1's point (3, 0, 0) by
   (1 - 3/4) |(0 - 2)| / (3/4 + 1/4 x 1) = 0.5. Then a half turn: bone 1 turned
   by pi about z, the vertex half on each; LBS collapses it to the origin, DQS
   turns it a quarter, to (0, +-1, 0); the DQS bound grows bone 1's point
   (-1, 0, 0) (bone 1 is listed first of the equal weights) by
   (1/2) 2 / (1/2 + 0) = 2, to x in [-3, 1], and the vertex, at sqrt(2) from
   it, is inside. */
static void bounds_worked_by_hand(void)
{
    const float positions[2][3] = {{0.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f}};
    const uint16_t joints[2][2] = {{0, 1}, {1, 0}};
    float weights[2][2] = {{1.0f, 0.0f}, {0.75f, 0.25f}}, out[2][3];
    fk_rigid bones[2];
    fk_bone_bounds records[2];
    fk_bounds b;
    fk_skin_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = 2; d.influences = 2; d.positions = &positions[0][0]; d.joints = &joints[0][0];
    d.weights = &weights[0][0]; d.transform_count = 2; d.transforms = bones; d.out_positions = &out[0][0];
    bones[0] = fk_rigid_identity();
    bones[1] = fk_rigid_make(fk_quat_identity(), fk_vec3_make(2.0f, 0.0f, 0.0f));
    CHECK(fk_skin_bounds_prepare(&d, records) == FK_OK, "prepare failed");
    CHECK(records[1].heaviest_weight == 0.75f && records[1].partner_count == 1 && records[1].partners[0] == 0 &&
          records[0].partner_count == 0 && records[0].max.x == 0.0f && records[1].min.x == 1.0f,
          "the records are not as worked by hand");
    CHECK(fk_skin_bounds_lbs(&d, records, &b) == FK_OK && b.min.x == 0.0f && b.max.x == 3.0f && b.min.y == 0.0f &&
          b.max.z == 0.0f && b.center.x == 1.5f && fabsf(b.radius - 1.5f) < 1e-6f,
          "LBS bounds [%g, %g] x [%g, %g], centre %g radius %g, not [0, 3] x [0, 0], 1.5 and 1.5", (double)b.min.x,
          (double)b.max.x, (double)b.min.y, (double)b.max.y, (double)b.center.x, (double)b.radius);
    CHECK(fk_skin_bounds_dqs(&d, records, &b) == FK_OK && b.min.x == 0.0f && b.max.x == 3.5f && b.min.y == -0.5f &&
          b.max.z == 0.5f && b.center.x == 1.75f && fabsf(b.radius - 1.75f) < 1e-6f,
          "DQS bounds [%g, %g] x [%g, %g], centre %g radius %g, not [0, 3.5] x [-0.5, 0.5], 1.75 and 1.75",
          (double)b.min.x, (double)b.max.x, (double)b.min.y, (double)b.max.y, (double)b.center.x, (double)b.radius);
    bones[1] = fk_rigid_make(fk_quat_from_axis_angle(fk_vec3_make(0.0f, 0.0f, 1.0f), 3.14159265f), fk_vec3_make(0.0f, 0.0f, 0.0f));
    weights[1][0] = weights[1][1] = 0.5f;
    CHECK(fk_skin_bounds_prepare(&d, records) == FK_OK && records[1].heaviest_weight == 0.5f, "prepare failed");
    CHECK(fk_skin_dqs(&d) == FK_OK && fabsf(out[1][0]) < 1e-6f && fabsf(fabsf(out[1][1]) - 1.0f) < 1e-6f,
          "DQS did not turn the vertex a quarter: (%g, %g)", (double)out[1][0], (double)out[1][1]);
    CHECK(fk_skin_bounds_dqs(&d, records, &b) == FK_OK && fabsf(b.min.x + 3.0f) < 1e-6f && fabsf(b.max.x - 1.0f) < 1e-6f &&
          fabsf(b.min.y + 2.0f) < 1e-6f && out[1][1] >= b.min.y && out[1][1] <= b.max.y,
          "DQS bound at the half turn: x in [%g, %g], y from %g", (double)b.min.x, (double)b.max.x, (double)b.min.y);
}

static void bounds_refuse_bad_input(void)
{
    const float positions[2][3] = {{0.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f}};
    uint16_t joints[2][2] = {{0, 1}, {1, 0}};
    float weights[2][2] = {{1.0f, 0.0f}, {0.75f, 0.25f}};
    fk_rigid bones[2] = {{{0.0f, 0.0f, 0.0f, 1.0f}, {0.0f, 0.0f, 0.0f}}, {{0.0f, 0.0f, 0.0f, 1.0f}, {1.0f, 0.0f, 0.0f}}};
    float matrices[2][12] = {{2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}};
    fk_bone_bounds records[2], good[2];
    unsigned char sentinel[sizeof records];
    fk_bounds b, untouched;
    fk_skin_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = 2; d.influences = 2; d.positions = &positions[0][0]; d.joints = &joints[0][0];
    d.weights = &weights[0][0]; d.transform_count = 2; d.transforms = bones;
    memset(records, 0x5A, sizeof records);
    memset(sentinel, 0x5A, sizeof sentinel);
    CHECK(fk_skin_bounds_prepare(NULL, records) == FK_ERROR_NULL_ARGUMENT, "NULL descriptor accepted");
    CHECK(fk_skin_bounds_prepare(&d, NULL) == FK_ERROR_NULL_ARGUMENT, "NULL output accepted");
    weights[1][1] = -0.25f;
    CHECK(fk_skin_bounds_prepare(&d, records) == FK_ERROR_INVALID_WEIGHT, "a negative weight accepted");
    weights[1][1] = NAN;
    CHECK(fk_skin_bounds_prepare(&d, records) == FK_ERROR_INVALID_WEIGHT, "a NaN weight accepted");
    weights[1][0] = weights[1][1] = 0.0f;
    CHECK(fk_skin_bounds_prepare(&d, records) == FK_ERROR_INVALID_WEIGHT, "a vertex of no weight accepted");
    weights[1][0] = 0.75f; weights[1][1] = 0.25f;
    joints[1][1] = 2;
    CHECK(fk_skin_bounds_prepare(&d, records) == FK_ERROR_JOINT_OUT_OF_RANGE, "a joint out of range accepted");
    joints[1][1] = 0;
    d.position_stride = 6;
    CHECK(fk_skin_bounds_prepare(&d, records) == FK_ERROR_INVALID_STRIDE, "a short stride accepted");
    d.position_stride = 0;
    d.vertex_count = -1;
    CHECK(fk_skin_bounds_prepare(&d, records) == FK_ERROR_INVALID_COUNT, "a negative count accepted");
    d.vertex_count = 2;
    CHECK(memcmp(records, sentinel, sizeof records) == 0, "an error wrote records");
    CHECK(fk_skin_bounds_prepare(&d, good) == FK_OK, "good input refused");

    memset(&untouched, 0x5A, sizeof untouched);
    b = untouched;
    CHECK(fk_skin_bounds_lbs(&d, NULL, &b) == FK_ERROR_NULL_ARGUMENT, "NULL records accepted");
    CHECK(fk_skin_bounds_dqs(&d, good, NULL) == FK_ERROR_NULL_ARGUMENT, "NULL output accepted");
    memcpy(records, good, sizeof good);
    records[1].partner_count = FK_BOUNDS_PARTNERS + 1;
    CHECK(fk_skin_bounds_lbs(&d, records, &b) == FK_ERROR_INVALID_COUNT, "a partner count beyond the list accepted");
    records[1].partner_count = 1;
    records[1].partners[0] = 2;
    CHECK(fk_skin_bounds_dqs(&d, records, &b) == FK_ERROR_JOINT_OUT_OF_RANGE, "a partner out of range accepted");
    records[1].partners[0] = 0;
    records[1].heaviest_weight = 0.0f;
    CHECK(fk_skin_bounds_dqs(&d, records, &b) == FK_ERROR_INVALID_WEIGHT, "a pivot share of 0 accepted");
    records[1].heaviest_weight = 0.75f;
    records[0].max.y = INFINITY;
    CHECK(fk_skin_bounds_lbs(&d, records, &b) == FK_ERROR_NOT_FINITE, "an infinite box accepted");
    bones[1].q.w = 0.0f;
    CHECK(fk_skin_bounds_lbs(&d, good, &b) == FK_ERROR_INVALID_ROTATION, "a zero rotation accepted");
    bones[1].q.w = 1.0f;
    d.matrices = &matrices[0][0];
    CHECK(fk_skin_bounds_lbs(&d, good, &b) == FK_ERROR_CONFLICTING_ARGUMENTS, "transforms and matrices accepted");
    d.transforms = NULL;
    CHECK(fk_skin_bounds_dqs(&d, good, &b) == FK_ERROR_MISSING_BIND_POSES, "scale without bind poses accepted");
    d.bind_poses = bones;
    d.dqs_scale_center = (fk_dqs_scale_center)7;
    CHECK(fk_skin_bounds_dqs(&d, good, &b) == FK_ERROR_INVALID_OPTION, "an unknown centre accepted");
    matrices[0][0] = 1e30f;
    d.dqs_scale_center = FK_DQS_SCALE_AT_VERTEX;
    CHECK(fk_skin_bounds_lbs(&d, good, &b) == FK_OK, "good input refused");
    good[0].max.x = good[0].min.x = 1e10f;
    CHECK(fk_skin_bounds_lbs(&d, good, &b) == FK_ERROR_NOT_FINITE, "bounds beyond float's range accepted");
    CHECK(memcmp(&b, &untouched, sizeof b) != 0, "the good call wrote nothing");
    b = untouched;
    CHECK(fk_skin_bounds_lbs(&d, good, &b) == FK_ERROR_NOT_FINITE && memcmp(&b, &untouched, sizeof b) == 0,
          "an error wrote the bounds");
    d.vertex_count = 0;
    d.transform_count = 0;
    CHECK(fk_skin_bounds_prepare(&d, NULL) == FK_OK && fk_skin_bounds_dqs(&d, NULL, &b) == FK_OK && b.radius < 0.0f &&
          b.min.x > b.max.x, "an empty mesh does not give empty bounds");
}

int main(int argc, char **argv)
{
    if (argc > 1) seed = strtoul(argv[1], NULL, 10);
    printf("   seed %lu (replay: build/test_gpu %lu)\n", seed, seed);
    RUN_TEST(palette_matrices_skin_as_fk_skin_lbs);
    RUN_TEST(palette_dual_quats_skin_as_fk_skin_dqs);
    RUN_TEST(palette_signs_follow_the_tree);
    RUN_TEST(rigid_bones_have_identity_scale_parts);
    RUN_TEST(palettes_refuse_bad_input);
    RUN_TEST(split_worked_example);
    RUN_TEST(split_draws_hold_their_triangles_bones);
    RUN_TEST(split_refuses_bad_input);
    RUN_TEST(bounds_worked_by_hand);
    RUN_TEST(no_skinned_vertex_leaves_the_bounds);
    RUN_TEST(no_vertex_of_a_small_mesh_leaves_the_bounds);
    RUN_TEST(bounds_refuse_bad_input);
    return check_finish();
}
