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
    return check_finish();
}
