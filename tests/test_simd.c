/* test_simd.c - the fast paths give the reference loops' answers.

   fk_skin_lbs(), fk_skin_dqs() and fk_skin_cor() run the fast paths' kernels for rigs whose
   bones fit the palette and the reference loops for larger ones. With the
   palette capacity set to 400 here, the same vertices skinned by the same
   bones go through the kernels (40 bones; 68 and 140 for bones with scale,
   44 floats each) and through the reference loops (the same bones followed by
   others, 420 in all, that no vertex uses and that no palette holds), and the
   two results must agree to a few ulps of the numbers involved: LBS, DQS,
   affine LBS, DQS with scale centred at the vertex and at the bone, and CoR
   (centres of rotation) of rigid bones and of bones with scale, with a
   worked example of its sign, for k = 1..8 influences, with and without
   normals, packed, interleaved and padded layouts, in place, at block
   boundaries, with a bad joint index, with every array ending at an
   unreadable page, at the edges where the fast normalizations hand over,
   and with NaN weights; the DQS sign table and sign
   bits against their definitions. Bit for bit: every layout, and a call split
   into pieces, give the same bits, and fk_forward()'s one-pass kernel gives
   the general path's. Each call held to the reference is checked to have run
   the kernels of the tier the library chose (the header's FK__TEST_KERNEL_RAN
   hook, defined below), and that tier to be the one this build and processor
   should run; the tiers that cannot run here are reported as skipped. On
   x86-64, every call returns with the upper halves of the vector registers
   clear. Built with -DFK_LBS_NO_SIMD both sides run the reference loops and
   agree trivially: the test then checks the plumbing, and skips the rest. */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS under -std=c99 */
#define FK_LBS_PALETTE_CAPACITY 400
/* The header calls this hook (nothing in other builds) with each kernel or
   forward pass it runs: kernel_ran() below notes which. */
typedef void (*any_function)(void);
static void kernel_ran(any_function kernel);
#define FK__TEST_KERNEL_RAN(kernel) kernel_ran((any_function)(kernel))
static int rows_folded; /* calls whose DQS sign bits folded, since the last reset */
#define FK__TEST_ROWS_FOLDED() (void)++rows_folded
static int bones_named; /* calls that named their bones before converting them, likewise */
#define FK__TEST_BONES_NAMED() (void)++bones_named
/* Low, so that the 1000-bone rig's small meshes take both routes there:
   naming the bones, and converting every one (fk__naming_pays()). */
#define FK__NAMING_INDICES_PER_BONE 2
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"
#include "check.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#define HAVE_GUARD_PAGES 1
#endif

enum { BONES = 40, ALL_BONES = 420, MAX_K = 8, MAX_VERTICES = 3000 };

/* ---- Which fast path ran ------------------------------------------------------

   A comparison with the reference proves nothing if the "fast" call ran the
   reference loop too. So every call the tests hold to the reference goes
   through fast_skin(), which checks that the call ran the kernels of the
   tier fk__fast_paths() chose, and no others; the tier itself is held to the
   one this build and this processor should run (the tier tests at the end,
   which report the tiers that cannot run here as skipped). */
enum { RAN_LBS = 1, RAN_DQS = 2, RAN_DQS_SCALED = 4, RAN_FORWARD = 8, RAN_COR = 16, RAN_OTHER = 32 };
static unsigned kernels_run;  /* RAN_ bits since the last reset */
static int fast_calls_checked; /* calls fast_skin() found to have run the fast path */

static void kernel_ran(any_function kernel)
{
#if defined(FK__SIMD)
    const fk__fast_path_table *tier = fk__fast_paths();
    kernels_run |= kernel == (any_function)tier->lbs            ? RAN_LBS
                   : kernel == (any_function)tier->dqs          ? RAN_DQS
                   : kernel == (any_function)tier->dqs_scaled   ? RAN_DQS_SCALED
                   : kernel == (any_function)tier->forward      ? RAN_FORWARD
                   : kernel == (any_function)tier->cor          ? RAN_COR
                                                                : RAN_OTHER;
#else
    (void)kernel;
    kernels_run |= RAN_OTHER; /* the reference forward pass: there are no kernels */
#endif
}

static const char *tier_expected(void);

static const char *tier_chosen(void)
{
#if defined(FK__SIMD)
    return fk__fast_paths()->name;
#else
    return "no";
#endif
}

static uint64_t rng_state = 0x2545F4914F6CDD1Du;

static uint32_t rng_next(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12; rng_state ^= rng_state << 25; rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717u) >> 32);
}

static float rng_uniform(float lo, float hi) { return lo + (hi - lo) * (float)(rng_next() >> 8) / 16777216.0f; }

/* ---- A mesh in one interleaved buffer and in separate arrays -------------------- */

typedef struct mesh {
    int count, k;
    float positions[MAX_VERTICES][3], normals[MAX_VERTICES][3];
    uint16_t joints[MAX_VERTICES][MAX_K];
    float weights[MAX_VERTICES][MAX_K];
} mesh;

static mesh test_mesh;
/* fk_skin_cor()'s centres, a vertex's from its position (make_mesh()), and the
   vertex of the call's first (skin_cor()): a piece of a call reads from there. */
static float cor_centers[MAX_VERTICES][3];
static int cor_first = 0;
static const float *cor_source = &cor_centers[0][0]; /* or a copy at a guard page */
static fk_rigid bones[ALL_BONES];
static int used_bones = BONES; /* bones the vertices use and the SIMD calls are given */
static int tied_weights = 0;   /* weights drawn from three values, so that the heaviest often ties */
static float weight_sum = 1.0f; /* what each vertex's weights sum to (DQS with scale divides by it) */
static int zero_sums = 0;      /* one vertex in 29 with all weights zero: DQS with scale sends it to the
                                  reference loop (weights that cancel would be ill-posed: a multiply-add
                                  leaves a blend of one rounding error where plain sums leave zero) */
static float matrices[ALL_BONES][12]; /* the bones with scale and shear (make_affine_bones()) */
static fk_rigid bind_poses[ALL_BONES]; /* their rest frames, for DQS with scale */
static float scale_parts[ALL_BONES][12]; /* and the scale parts DQS splits off (row-major) */
static int affine_bones = 0;   /* describe() gives the matrices (and rest frames) instead of the bones */
static fk_dqs_scale_center scale_center = FK_DQS_SCALE_AT_VERTEX; /* and where DQS centres their scale */
/* DQS with scale keeps 44 floats a bone: 145 bones fit the palette of
   FK_LBS_PALETTE_CAPACITY x 16 floats. Its fast path is given 68, past the
   64 of one word of its sign bits, and then 140, past the 128 its two words
   take, where it hands the call to the reference loop. ALL_BONES overflows
   every palette, so that the reference side converts bones as it goes. */
enum { SCALED_BONES = 68, SCALED_BONES_PAST_SIGN_BITS = 140, SIGN_TABLE_BONES = 64 };

static void make_bones(float translation_scale)
{
    int b;
    for (b = 0; b < ALL_BONES; ++b) {
        fk_quat q = fk_quat_make(rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1));
        /* not normalized: the library normalizes on the way in */
        bones[b] = fk_rigid_make(q, fk_vec3_make(rng_uniform(-translation_scale, translation_scale),
                                                 rng_uniform(-translation_scale, translation_scale),
                                                 rng_uniform(-translation_scale, translation_scale)));
    }
}

/* Affine bones: each rigid bone after a linear map K, K's diagonal from 0.3
   to 2 and the rest shear up to 0.4; every fifth bone mirrored (a row of K
   negated), and with `singular` every third bone's K flattened along y. */
static void make_affine_bones(int singular)
{
    int b, row, col, e;
    make_bones(3.0f);
    for (b = 0; b < ALL_BONES; ++b) {
        float rigid[12], k[9];
        for (row = 0; row < 3; ++row)
            for (col = 0; col < 3; ++col) k[3 * row + col] = row == col ? rng_uniform(0.3f, 2.0f) : rng_uniform(-0.4f, 0.4f);
        if (b % 5 == 0)
            for (col = 0; col < 3; ++col) k[col] = -k[col];
        if (singular && b % 3 == 0)
            for (col = 0; col < 3; ++col) k[3 + col] = 0.0f;
        fk_rigid_to_mat34(fk_rigid_make(fk_quat_normalize(bones[b].q), bones[b].t), rigid);
        for (row = 0; row < 3; ++row) {
            for (col = 0; col < 3; ++col) {
                float sum = 0.0f;
                for (e = 0; e < 3; ++e) sum += rigid[4 * row + e] * k[3 * e + col];
                matrices[b][4 * row + col] = sum;
            }
            matrices[b][4 * row + 3] = rigid[4 * row + 3];
        }
        bind_poses[b] = fk_rigid_make(fk_quat_make(rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1), 1.0f),
                                      fk_vec3_make(rng_uniform(-2, 2), rng_uniform(-2, 2), rng_uniform(-2, 2)));
    }
    {
        static float dual_quats[ALL_BONES][8];
        if (fk_palette_dual_quats_scaled(ALL_BONES, NULL, &matrices[0][0], bind_poses, &dual_quats[0][0],
                                         &scale_parts[0][0]) != FK_OK) {
            fprintf(stderr, "splitting the bones with scale failed\n");
            exit(1);
        }
    }
}

/* Rotations within 60 degrees of one another, each stored with a random sign:
   one row of the DQS hemisphere table then serves every pivot. */
static void make_bones_in_one_hemisphere(void)
{
    int b;
    make_bones(3.0f);
    for (b = 0; b < ALL_BONES; ++b) {
        fk_quat q = fk_quat_normalize(fk_quat_make(rng_uniform(-0.25f, 0.25f), rng_uniform(-0.25f, 0.25f),
                                                   rng_uniform(-0.25f, 0.25f), 1.0f));
        bones[b].q = rng_next() % 2 ? q : fk_quat_make(-q.x, -q.y, -q.z, -q.w);
    }
}

static void make_mesh(int count, int k)
{
    int i, e;
    test_mesh.count = count; test_mesh.k = k;
    for (i = 0; i < count; ++i) {
        fk_vec3 n = fk_vec3_normalize(fk_vec3_make(rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1) + 0.1f));
        float sum = 0.0f;
        test_mesh.positions[i][0] = rng_uniform(-2, 2); test_mesh.positions[i][1] = rng_uniform(-2, 2);
        test_mesh.positions[i][2] = rng_uniform(-2, 2);
        test_mesh.normals[i][0] = n.x; test_mesh.normals[i][1] = n.y; test_mesh.normals[i][2] = n.z;
        for (e = 0; e < k; ++e) {
            test_mesh.joints[i][e] = (uint16_t)(rng_next() % (uint32_t)used_bones);
            sum += test_mesh.weights[i][e] = tied_weights ? (float)(1 + rng_next() % 3) : rng_uniform(0.05f, 1.0f);
        }
        for (e = 0; e < k; ++e) test_mesh.weights[i][e] = test_mesh.weights[i][e] / sum * weight_sum;
        cor_centers[i][0] = 0.5f * test_mesh.positions[i][1];
        cor_centers[i][1] = 0.5f * test_mesh.positions[i][2] - 0.25f;
        cor_centers[i][2] = 0.5f * test_mesh.positions[i][0];
        if (zero_sums && i % 29 == 5)
            for (e = 0; e < k; ++e) test_mesh.weights[i][e] = 0.0f;
    }
}

/* Bytes per vertex record in the interleaved layouts; every field 4-byte aligned.
   The index and weight lists are arrays of their own (joint_bytes and
   weight_bytes apart), or, with lists_offset nonzero, lie in the vertex records
   from there on (indices, then weights at lists_offset + 2 * MAX_K). */
typedef struct layout {
    const char *name;
    size_t vertex_bytes, position_offset, normal_offset, joint_bytes, weight_bytes, lists_offset;
} layout;

/* Everything the skinning reads and writes, laid out as `l` says. */
typedef struct buffers {
    char *vertices;          /* positions and normals, interleaved or not */
    char *out;               /* skinned positions and normals, same layout */
    char *joints, *weights;
    size_t bytes;            /* of vertices and of out */
} buffers;

static void fill(const layout *l, buffers *b)
{
    int i;
    size_t n = (size_t)test_mesh.count, k = (size_t)test_mesh.k;
    /* the packed layout keeps the normals in a second array after the positions */
    size_t bytes = n * l->vertex_bytes + (l->normal_offset >= l->vertex_bytes ? l->normal_offset : 0);
    b->bytes = bytes;
    b->vertices = (char *)calloc(bytes, 1);
    b->out = (char *)calloc(bytes, 1);
    b->joints = (char *)calloc(n, l->joint_bytes);
    b->weights = (char *)calloc(n, l->weight_bytes);
    if (!b->vertices || !b->out || !b->joints || !b->weights) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (i = 0; i < test_mesh.count; ++i) {
        char *record = b->vertices + (size_t)i * l->vertex_bytes;
        memcpy(record + l->position_offset, test_mesh.positions[i], 12);
        memcpy(record + l->normal_offset, test_mesh.normals[i], 12);
        if (l->lists_offset) {
            memcpy(record + l->lists_offset, test_mesh.joints[i], 2 * k);
            memcpy(record + l->lists_offset + 2 * MAX_K, test_mesh.weights[i], 4 * k);
        } else {
            memcpy(b->joints + (size_t)i * l->joint_bytes, test_mesh.joints[i], 2 * k);
            memcpy(b->weights + (size_t)i * l->weight_bytes, test_mesh.weights[i], 4 * k);
        }
    }
}

static void release(buffers *b) { free(b->vertices); free(b->out); free(b->joints); free(b->weights); }

static fk_skin_desc describe(const layout *l, const buffers *b, int with_normals, int in_place, int bone_count)
{
    fk_skin_desc d;
    char *out = in_place ? b->vertices : b->out;
    memset(&d, 0, sizeof d);
    d.vertex_count = test_mesh.count;
    d.influences = test_mesh.k;
    d.positions = (const float *)(const void *)(b->vertices + l->position_offset);
    d.position_stride = l->vertex_bytes;
    d.joints = (const uint16_t *)(const void *)b->joints;
    d.joint_stride = l->joint_bytes;
    d.weights = (const float *)(const void *)b->weights;
    d.weight_stride = l->weight_bytes;
    if (l->lists_offset) { /* one record per vertex (see fill()) */
        d.joints = (const uint16_t *)(const void *)(b->vertices + l->lists_offset);
        d.weights = (const float *)(const void *)(b->vertices + l->lists_offset + 2 * MAX_K);
        d.joint_stride = d.weight_stride = l->vertex_bytes;
    }
    d.transforms = affine_bones ? NULL : bones;
    d.matrices = affine_bones ? &matrices[0][0] : NULL;
    d.bind_poses = affine_bones ? bind_poses : NULL;
    d.dqs_scale_center = scale_center;
    d.transform_count = bone_count;
    d.out_positions = (float *)(void *)(out + l->position_offset);
    d.out_position_stride = l->vertex_bytes;
    if (with_normals) {
        d.normals = (const float *)(const void *)(b->vertices + l->normal_offset);
        d.normal_stride = l->vertex_bytes;
        d.out_normals = (float *)(void *)(out + l->normal_offset);
        d.out_normal_stride = l->vertex_bytes;
    }
    return d;
}

typedef fk_result (*skin_function)(const fk_skin_desc *);

/* fk_skin_cor() as a skinning function: the centres from cor_first on. */
static fk_result skin_cor(const fk_skin_desc *d) { return fk_skin_cor(d, cor_source + 3 * (size_t)cor_first, 0); }

static fk_skin_method method_of(skin_function skin)
{
    return skin == fk_skin_lbs ? FK_SKIN_LBS : skin == fk_skin_dqs ? FK_SKIN_DQS : FK_SKIN_COR;
}

/* The kernels a call of `skin` on the rig as set up (affine_bones,
   scale_center, used_bones) must run: DQS of bones with scale centred at the
   vertex past the bones its sign bits cover goes to the reference loop, as
   documented. */
static unsigned expected_kernels(skin_function skin)
{
#if defined(FK__SIMD)
    if (skin == fk_skin_lbs) return RAN_LBS;
    /* CoR of bones with scale: affine LBS of p - c, then rigid CoR, while
       the copies of their parts fit the stack */
    if (skin == skin_cor) return !affine_bones ? RAN_COR : used_bones <= FK__AT_BONE_BONES ? RAN_LBS | RAN_COR : 0;
    if (!affine_bones) return RAN_DQS;
    if (scale_center == FK_DQS_SCALE_AT_BONE) return RAN_LBS | RAN_DQS;
    return used_bones <= FK__DQS_SIGN_BONES ? RAN_DQS_SCALED : 0;
#else
    (void)skin;
    return 0;
#endif
}

/* skin(d), checked to have run the fast path it is meant to (see above). */
static fk_result fast_skin(skin_function skin, const fk_skin_desc *d, const char *what)
{
    fk_result result;
    kernels_run = 0;
    result = skin(d);
    CHECK(kernels_run == expected_kernels(skin), "%s: the call ran kernels 0x%x of the %s tier, not 0x%x", what,
          kernels_run, tier_chosen(), expected_kernels(skin));
    fast_calls_checked += kernels_run != 0 && kernels_run == expected_kernels(skin);
    return result;
}

/* The Frobenius norm of a 3x4 matrix's linear part (row-major, as matrices[] and scale_parts[]). */
static float linear_norm(const float m[12])
{
    float sum = 0.0f;
    int c;
    for (c = 0; c < 12; ++c) sum += c % 4 == 3 ? 0.0f : m[c] * m[c];
    return sqrtf(sum);
}

/* Size of the numbers that go into vertex i's result: the tolerance is a few ulps
   of it (float rounding of the blend is relative to the terms, not the sum).
   CoR blends the bones at the centre c, and turns p - c by a unit rotation
   whatever the weights' size: |p| + |c| + sum |w| (|c| + |t|); with scale,
   p - c first goes through the blended scale part S / W, and c through the
   matrices' linear parts. */
static float magnitude(skin_function skin, int i)
{
    float size = 0.0f;
    int e;
    if (skin == skin_cor) {
        const fk_vec3 c = fk_vec3_make(cor_centers[i][0], cor_centers[i][1], cor_centers[i][2]);
        const float apart = fk_vec3_length(c) + fk_vec3_length(fk_vec3_make(test_mesh.positions[i][0],
                                                                            test_mesh.positions[i][1],
                                                                            test_mesh.positions[i][2]));
        float total = 0.0f, scaled = 0.0f;
        for (e = 0; e < test_mesh.k; ++e) {
            const int j = test_mesh.joints[i][e];
            const float w = fabsf(test_mesh.weights[i][e]);
            total += w;
            if (!affine_bones) {
                size += w * (fk_vec3_length(c) + fk_vec3_length(bones[j].t));
                continue;
            }
            /* with scale R S (p - c) / W + sum w M c: S's and M's linear parts by their Frobenius norms */
            scaled += w * linear_norm(scale_parts[j]);
            size += w * (linear_norm(matrices[j]) * fk_vec3_length(c) +
                         fk_vec3_length(fk_vec3_make(matrices[j][3], matrices[j][7], matrices[j][11])));
        }
        return size + (!affine_bones ? apart : total > 0.0f ? scaled / total * apart : 0.0f);
    }
    for (e = 0; e < test_mesh.k; ++e) {
        const float *m = matrices[test_mesh.joints[i][e]];
        fk_vec3 t = bones[test_mesh.joints[i][e]].t, p = fk_vec3_make(test_mesh.positions[i][0],
                                                                      test_mesh.positions[i][1], test_mesh.positions[i][2]);
        float linear = 1.0f;
        if (affine_bones) { /* the linear part's Frobenius norm bounds its size */
            linear = linear_norm(m);
            t = fk_vec3_make(m[3], m[7], m[11]);
        }
        size += fabsf(test_mesh.weights[i][e]) * (linear * fk_vec3_length(p) + fk_vec3_length(t));
    }
    return size;
}

#define ULPS 16.0f

/* The ulp a skinned normal of vertex i is compared in. LBS renormalizes the
   blend of the bones' rotated normals, whose rounding is relative to the
   size of its terms, the weights' total W, so dividing by the blend's length
   L magnifies it by W / L: where the rotated normals nearly cancel, both
   loops are off by many ulps of 1 (W / L = 87 for a vertex of a random mesh,
   the two 24 ulps apart). The ulp is of W / L then, computed in double; of 1
   where the blend is zero (a zero normal), whose result is exact. DQS rotates
   the normal by a unit quaternion, and signing the influences into one
   hemisphere keeps the blend of their quaternions at least W / sqrt(k) long:
   its ulp is of 1; with bones with scale, first the scale parts' cofactors
   move it, as affine LBS's matrices' do. */
static float affine_normal_ulp(int i, float (*linear)[12]);

static float normal_ulp(skin_function skin, int i)
{
    double blend[3] = {0.0, 0.0, 0.0}, total = 0.0, length;
    int e, row;
    if (affine_bones) return affine_normal_ulp(i, skin == fk_skin_lbs ? matrices : scale_parts);
    if (skin != fk_skin_lbs) return FLT_EPSILON;
    for (e = 0; e < test_mesh.k; ++e) {
        fk_quat q = bones[test_mesh.joints[i][e]].q;
        double n2 = (double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w;
        double x = q.x, y = q.y, z = q.z, w = q.w, s = 2.0 / n2, weight = test_mesh.weights[i][e];
        double rotation[3][3] = {{1 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)},
                                 {s * (x * y + z * w), 1 - s * (x * x + z * z), s * (y * z - x * w)},
                                 {s * (x * z - y * w), s * (y * z + x * w), 1 - s * (x * x + y * y)}};
        total += fabs(weight);
        for (row = 0; row < 3; ++row)
            blend[row] += weight * (rotation[row][0] * test_mesh.normals[i][0] +
                                    rotation[row][1] * test_mesh.normals[i][1] + rotation[row][2] * test_mesh.normals[i][2]);
    }
    length = sqrt(blend[0] * blend[0] + blend[1] * blend[1] + blend[2] * blend[2]);
    return length > 0.0 && total > length ? (float)(FLT_EPSILON * total / length) : FLT_EPSILON;
}

/* With affine bones LBS moves a normal by the cofactors of the blended linear
   part (columns a, b, c): n_x (b x c) + n_y (c x a) + n_z (a x b). Each
   column's rounding is relative to the sum of its terms' sizes, |a|' =
   sum |w| |a_k|, and a cross product's to |b|' |c|'; renormalizing by the
   result's length L magnifies that by T / L, with T = |n_x| |b|' |c|' +
   |n_y| |c|' |a|' + |n_z| |a|' |b|': the ulp is of T / L, in double. The
   linear parts are the bones' matrices' (LBS) or their scale parts' (DQS). */
static float affine_normal_ulp(int i, float (*linear)[12])
{
    double column[3][3] = {{0.0}}, size[3] = {0.0, 0.0, 0.0}, cofactor[3][3], m[3] = {0.0, 0.0, 0.0}, total, length;
    int e, c, r;
    for (e = 0; e < test_mesh.k; ++e) {
        const float *matrix = linear[test_mesh.joints[i][e]];
        double w = test_mesh.weights[i][e];
        for (c = 0; c < 3; ++c) {
            double norm = 0.0;
            for (r = 0; r < 3; ++r) {
                column[c][r] += w * matrix[4 * r + c];
                norm += (double)matrix[4 * r + c] * matrix[4 * r + c];
            }
            size[c] += fabs(w) * sqrt(norm);
        }
    }
    for (c = 0; c < 3; ++c) {
        const double *a = column[(c + 1) % 3], *b = column[(c + 2) % 3];
        cofactor[c][0] = a[1] * b[2] - a[2] * b[1];
        cofactor[c][1] = a[2] * b[0] - a[0] * b[2];
        cofactor[c][2] = a[0] * b[1] - a[1] * b[0];
        for (r = 0; r < 3; ++r) m[r] += test_mesh.normals[i][c] * cofactor[c][r];
    }
    total = fabs(test_mesh.normals[i][0]) * size[1] * size[2] + fabs(test_mesh.normals[i][1]) * size[2] * size[0] +
            fabs(test_mesh.normals[i][2]) * size[0] * size[1];
    length = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
    return length > 0.0 && total > length ? (float)(FLT_EPSILON * total / length) : FLT_EPSILON;
}

/* Compares two results vertex by vertex; returns the worst error in ulps of the
   vertex's magnitude (of normal_ulp() for normals). */
static float compare(skin_function skin, const layout *l, const char *a, const char *b, int with_normals,
                     const char *what)
{
    float worst = 0.0f;
    int i, c, reported = 0;
    for (i = 0; i < test_mesh.count; ++i) {
        const float *pa = (const float *)(const void *)(a + (size_t)i * l->vertex_bytes + l->position_offset);
        const float *pb = (const float *)(const void *)(b + (size_t)i * l->vertex_bytes + l->position_offset);
        const float *na = (const float *)(const void *)(a + (size_t)i * l->vertex_bytes + l->normal_offset);
        const float *nb = (const float *)(const void *)(b + (size_t)i * l->vertex_bytes + l->normal_offset);
        float unit = FLT_EPSILON * (magnitude(skin, i) > 1.0f ? magnitude(skin, i) : 1.0f);
        float normal_unit = with_normals ? normal_ulp(skin, i) : FLT_EPSILON;
        for (c = 0; c < 3; ++c) {
            float e = fabsf(pa[c] - pb[c]) / unit;
            float f = with_normals ? fabsf(na[c] - nb[c]) / normal_unit : 0.0f;
            if (!(e <= ULPS && f <= ULPS) && reported++ < 3)
                CHECK(0, "%s: vertex %d component %d: position %.9g vs %.9g, normal %.9g vs %.9g", what, i, c,
                      pa[c], pb[c], with_normals ? na[c] : 0.0f, with_normals ? nb[c] : 0.0f);
            if (e > worst) worst = e;
            if (f > worst) worst = f;
        }
    }
    return worst;
}

static const layout layouts[] = {
    /* name, vertex bytes, position offset, normal offset, joint bytes, weight bytes (for k = 8), lists offset */
    {"separate", 0, 0, 0, 0, 0, 0}, /* filled in: positions and normals in one 24-byte record, packed k */
    {"interleaved 36-byte records, padded index and weight lists", 36, 4, 20, 2 * MAX_K + 2, 4 * MAX_K + 4, 0},
    {"packed", 0, 0, 0, 0, 0, 0}, /* filled in: positions and normals in arrays of their own, every list packed */
    {"packed points, padded lists", 0, 0, 0, 0, 0, 0}, /* filled in: as packed, index and weight lists padded */
    /* one vertex buffer in and one out: the position, the normal right after
       it, then the index and weight lists, every array at one stride */
    {"one 72-byte record per vertex", 72, 0, 12, 0, 0, 24},
};
enum { LAYOUTS = sizeof layouts / sizeof layouts[0], PACKED = 2, PACKED_POINTS = 3 };

static layout layout_for(int which, int k)
{
    layout l = layouts[which];
    if (which == 0) { /* positions then normals, tightly packed lists */
        l.vertex_bytes = 24; l.position_offset = 0; l.normal_offset = 12;
        l.joint_bytes = 2 * (size_t)k; l.weight_bytes = 4 * (size_t)k;
    } else if (which == PACKED || which == PACKED_POINTS) { /* the layout the fastest loops are written for */
        l.vertex_bytes = 12; l.position_offset = 0; l.normal_offset = 12 * (size_t)test_mesh.count;
        l.joint_bytes = 2 * (size_t)k + (which == PACKED_POINTS ? 2 : 0);
        l.weight_bytes = 4 * (size_t)k + (which == PACKED_POINTS ? 4 : 0);
    }
    return l;
}

/* Whether the bytes of `after` that hold no output position (nor normal, with
   normals) are those of `before`: the loops' wide and masked stores write the
   outputs and nothing beside them. */
static int only_outputs_written(const layout *l, const char *before, const char *after, size_t bytes, int with_normals)
{
    char *output = (char *)calloc(bytes, 1);
    size_t at;
    int i, same = 1;
    if (!output) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (i = 0; i < test_mesh.count; ++i) {
        memset(output + (size_t)i * l->vertex_bytes + l->position_offset, 1, 12);
        if (with_normals) memset(output + (size_t)i * l->vertex_bytes + l->normal_offset, 1, 12);
    }
    for (at = 0; at < bytes; ++at) same &= output[at] || before[at] == after[at];
    free(output);
    return same;
}

/* Vertex i's output position (normal, if `normal`) in a layout's output buffer. */
static const float *output_of(const layout *l, const char *out, int i, int normal)
{
    return (const float *)(const void *)(out + (size_t)i * l->vertex_bytes + (normal ? l->normal_offset : l->position_offset));
}

/* Skins the mesh through the SIMD loops in every layout, also in place, and
   compares each with the reference loops' result, computed once for each k
   and with and without normals in the first layout: the header promises a
   vertex the same bits in every layout (the build without SIMD, whose two
   sides are both the reference, holds every layout to the first here), and
   the reference is the costly side, converting each bone as it reads it. */
static void agree(skin_function skin, const char *method, int count)
{
    static float expected[2][MAX_VERTICES][3]; /* the reference's positions, then normals */
    int k, which, with_normals, in_place, i;
    char what[160];
    for (k = 1; k <= MAX_K; ++k) {
        make_mesh(count, k);
        for (with_normals = 0; with_normals < 2; ++with_normals) {
            const layout first = layout_for(0, k);
            buffers reference;
            fk_skin_desc d;
            fill(&first, &reference);
            d = describe(&first, &reference, with_normals, 0, ALL_BONES);
            snprintf(what, sizeof what, "%s k=%d%s, %d vertices", method, k, with_normals ? ", normals" : "", count);
            CHECK(skin(&d) == FK_OK, "%s: reference call failed", what);
            for (i = 0; i < count; ++i) {
                memcpy(expected[0][i], output_of(&first, reference.out, i, 0), 12);
                memcpy(expected[1][i], output_of(&first, reference.out, i, 1), 12);
            }
            release(&reference);
            for (which = 0; which < LAYOUTS; ++which) {
                layout l = layout_for(which, k);
                for (in_place = 0; in_place < 2; ++in_place) {
                    buffers fast, held;
                    char *written, *before, *expected_out;
                    fill(&l, &fast); fill(&l, &held);
                    snprintf(what, sizeof what, "%s k=%d %s%s%s, %d vertices", method, k, l.name,
                             with_normals ? ", normals" : "", in_place ? ", in place" : "", count);
                    d = describe(&l, &fast, with_normals, in_place, used_bones);
                    written = in_place ? fast.vertices : fast.out;
                    before = (char *)malloc(fast.bytes);
                    if (!before) { fprintf(stderr, "out of memory\n"); exit(1); }
                    memcpy(before, written, fast.bytes);
                    CHECK(fast_skin(skin, &d, what) == FK_OK, "%s: SIMD call failed", what);
                    CHECK(only_outputs_written(&l, before, written, fast.bytes, with_normals),
                          "%s: SIMD call wrote beside its outputs", what);
                    free(before);
                    /* the reference's result where this layout's call writes */
                    expected_out = in_place ? held.vertices : held.out;
                    for (i = 0; i < count; ++i) {
                        memcpy(expected_out + (size_t)i * l.vertex_bytes + l.position_offset, expected[0][i], 12);
                        if (with_normals)
                            memcpy(expected_out + (size_t)i * l.vertex_bytes + l.normal_offset, expected[1][i], 12);
                    }
                    compare(skin, &l, written, expected_out, with_normals, what);
                    release(&fast); release(&held);
                }
            }
        }
    }
}


/* Whether skinned positions and normals, `step` floats from one vertex's to
   the next, are bit for bit those in `expected` (positions, then normals). */
static int same_bits_as(const float *positions, const float *normals, size_t step, const float *expected,
                        int with_normals)
{
    size_t n = (size_t)test_mesh.count, i;
    int same = 1;
    for (i = 0; i < n; ++i)
        same &= memcmp(positions + step * i, expected + 3 * i, 12) == 0 &&
                (!with_normals || memcmp(normals + step * i, expected + 3 * (n + i), 12) == 0);
    return same;
}

/* The same vertices skinned by the same bones give the same bits in every
   layout (packed, interleaved, padded lists, records), whatever the output's
   place relative to a cache line, and in place: a vertex's arithmetic does
   not depend on which loop or which part of a loop reaches it. 1500
   vertices; k = 1, 2, 3, 4 and 8 (4 has a kernel of its own), in place where
   a line's first vertex falls on each 16 bytes. */
enum { METHODS = 7, COR = 5, COR_SCALED = 6 };
static const char *const method_name[METHODS] = {"LBS", "DQS", "affine LBS", "DQS with scale",
                                                 "DQS with scale at the bone", "CoR", "CoR with scale"};

/* Sets the rig up for a method of method_name[] and returns its function. */
static skin_function use_method(int method)
{
    affine_bones = method >= 2 && method != COR;
    scale_center = method == 4 ? FK_DQS_SCALE_AT_BONE : FK_DQS_SCALE_AT_VERTEX;
    used_bones = affine_bones && method >= 3 ? SCALED_BONES : BONES;
    return method >= COR ? skin_cor : method == 1 || method >= 3 ? fk_skin_dqs : fk_skin_lbs;
}

static void layouts_give_the_same_bits(void)
{
    enum { COUNT = 1500 };
    static float expected[2 * 3 * COUNT];
    const size_t n = COUNT;
    char *line = (char *)malloc(24 * n + 128), *aligned;
    int method, k, which, with_normals, shift, in_place;
    char what[160];
    if (!line) { fprintf(stderr, "out of memory\n"); exit(1); }
    aligned = line + (64 - (uintptr_t)line % 64);
    make_affine_bones(0);
    for (method = 0; method < METHODS; ++method) {
        const skin_function skin = use_method(method);
        for (k = 1; k <= MAX_K; k = k == 4 ? 8 : k + 1) {
            make_mesh(COUNT, k);
            for (with_normals = 0; with_normals < 2; ++with_normals) {
                for (which = 0; which < LAYOUTS; ++which) {
                    layout l = layout_for(which, k);
                    buffers b;
                    fk_skin_desc d;
                    size_t i;
                    fill(&l, &b);
                    d = describe(&l, &b, with_normals, 0, used_bones);
                    snprintf(what, sizeof what, "%s k=%d%s: %s", method_name[method], k,
                             with_normals ? ", normals" : "", l.name);
                    CHECK(fast_skin(skin, &d, what) == FK_OK, "%s: call failed", what);
                    if (which == 0)
                        for (i = 0; i < n; ++i) {
                            memcpy(expected + 3 * i, output_of(&l, b.out, (int)i, 0), 12);
                            memcpy(expected + 3 * (n + i), output_of(&l, b.out, (int)i, 1), 12);
                        }
                    else
                        CHECK(same_bits_as(output_of(&l, b.out, 0, 0), output_of(&l, b.out, 0, 1),
                                           l.vertex_bytes / 4, expected, with_normals),
                              "%s: other bits than %s", what, layouts[0].name);
                    release(&b);
                }
                /* packed outputs at every 4-byte place in a cache line, apart and in place */
                for (shift = 0; shift < 64; shift += 4)
                    for (in_place = 0; in_place < (shift % 16 == 0 ? 2 : 1); ++in_place) {
                        layout l = layout_for(PACKED, k);
                        buffers b;
                        fk_skin_desc d;
                        float *positions = (float *)(void *)(aligned + shift), *normals = positions + 3 * n;
                        fill(&l, &b);
                        d = describe(&l, &b, with_normals, 0, used_bones);
                        if (in_place) {
                            memcpy(positions, b.vertices, 24 * n);
                            d.positions = positions;
                            if (with_normals) d.normals = normals;
                        }
                        d.out_positions = positions;
                        if (with_normals) d.out_normals = normals;
                        snprintf(what, sizeof what, "%s k=%d%s: packed output %d bytes past a line%s",
                                 method_name[method], k, with_normals ? ", normals" : "", shift,
                                 in_place ? ", in place" : "");
                        CHECK(fast_skin(skin, &d, what) == FK_OK, "%s: call failed", what);
                        CHECK(same_bits_as(positions, normals, 3, expected, with_normals), "%s: other bits than %s",
                              what, layouts[0].name);
                        release(&b);
                    }
            }
        }
    }
    free(line);
    (void)use_method(0);
}

/* A descriptor for `count` vertices from vertex `first` of d's. */
static fk_skin_desc piece_of(const fk_skin_desc *d, int first, int count)
{
    fk_skin_desc piece = *d;
    size_t at = (size_t)first;
    piece.vertex_count = count;
    piece.positions = (const float *)(const void *)((const char *)d->positions + at * d->position_stride);
    piece.joints = (const uint16_t *)(const void *)((const char *)d->joints + at * d->joint_stride);
    piece.weights = (const float *)(const void *)((const char *)d->weights + at * d->weight_stride);
    piece.out_positions = (float *)(void *)((char *)d->out_positions + at * d->out_position_stride);
    if (d->normals) {
        piece.normals = (const float *)(const void *)((const char *)d->normals + at * d->normal_stride);
        piece.out_normals = (float *)(void *)((char *)d->out_normals + at * d->out_normal_stride);
    }
    return piece;
}

/* A call split into pieces (as threads would split it, see the docs'
   performance page) gives the bits of one call over all the vertices: pieces
   of 1 to 37 vertices, so that every vertex sooner or later falls in a loop's
   last, short group. Packed arrays and 72-byte records, in place too; k as in
   layouts_give_the_same_bits(). For DQS, one vertex in 61 has all weights
   zero and one in 89 a position near FLT_MAX, blends that take the careful
   path, and their neighbours must not round otherwise for it. */
static void pieces_give_the_bits_of_one_call(void)
{
    enum { COUNT = 1500 };
    static float expected[2 * 3 * COUNT];
    const int ways[2] = {PACKED, LAYOUTS - 1};
    int method, k, way, with_normals, in_place, first, i;
    char what[160];
    make_affine_bones(0);
    for (method = 0; method < METHODS; ++method) {
        const skin_function skin = use_method(method);
        for (k = 1; k <= MAX_K; k = k == 4 ? 8 : k + 1) {
            make_mesh(COUNT, k);
            for (i = 0; skin != fk_skin_lbs && i < COUNT; ++i) {
                int e;
                if (i % 61 == 7)
                    for (e = 0; e < k; ++e) test_mesh.weights[i][e] = 0.0f;
                if (i % 89 == 3) test_mesh.positions[i][0] = test_mesh.positions[i][2] = 3e38f;
            }
            for (way = 0; way < 2; ++way)
                for (with_normals = 0; with_normals < 2; ++with_normals)
                    for (in_place = 0; in_place < 2; ++in_place) {
                        layout l = layout_for(ways[way], k);
                        buffers whole, pieces;
                        fk_skin_desc d;
                        const float *out_p, *out_n;
                        int same = 1;
                        snprintf(what, sizeof what, "%s k=%d%s%s: %s", method_name[method], k,
                                 with_normals ? ", normals" : "", in_place ? ", in place" : "", l.name);
                        fill(&l, &whole);
                        d = describe(&l, &whole, with_normals, in_place, used_bones);
                        CHECK(fast_skin(skin, &d, what) == FK_OK, "%s: one call failed", what);
                        out_p = d.out_positions;
                        out_n = d.out_normals;
                        for (i = 0; i < COUNT; ++i) {
                            memcpy(expected + 3 * i, (const char *)out_p + (size_t)i * d.out_position_stride, 12);
                            if (with_normals)
                                memcpy(expected + 3 * (COUNT + i), (const char *)out_n + (size_t)i * d.out_normal_stride, 12);
                        }
                        fill(&l, &pieces);
                        d = describe(&l, &pieces, with_normals, in_place, used_bones);
                        for (first = 0; first < COUNT;) {
                            int count = 1 + (int)(rng_next() % 37);
                            fk_skin_desc piece;
                            if (count > COUNT - first) count = COUNT - first;
                            piece = piece_of(&d, first, count);
                            cor_first = first;
                            CHECK(fast_skin(skin, &piece, what) == FK_OK, "%s: piece from %d failed", what, first);
                            cor_first = 0;
                            first += count;
                        }
                        for (i = 0; i < COUNT; ++i)
                            same &= memcmp((const char *)d.out_positions + (size_t)i * d.out_position_stride,
                                           expected + 3 * i, 12) == 0 &&
                                    (!with_normals ||
                                     memcmp((const char *)d.out_normals + (size_t)i * d.out_normal_stride,
                                            expected + 3 * (COUNT + i), 12) == 0);
                        CHECK(same, "%s: pieces give other bits than one call", what);
                        release(&whole);
                        release(&pieces);
                    }
        }
    }
    (void)use_method(0);
}

static void lbs_simd_matches_reference(void) { make_bones(3.0f); agree(fk_skin_lbs, "LBS", 1000); }

/* DQS of bones with scale (the affine bones above, split in their rest
   frames), centred at the vertex and at the bone, weights summing to 1.75;
   also with every third bone flattened to a plane, and with vertices whose
   weights sum to zero, which the fast paths hand to the reference loop. */
static void scaled_dqs_simd_matches_reference(void)
{
    int singular, at_bone;
    char what[80];
    for (at_bone = 0; at_bone < 2; ++at_bone)
        for (singular = 0; singular < 2; ++singular) {
            make_affine_bones(singular);
            (void)use_method(at_bone ? 4 : 3);
            zero_sums = singular;
            weight_sum = singular ? 1.0f : 1.75f;
            snprintf(what, sizeof what, "DQS with scale at the %s%s", at_bone ? "bone" : "vertex",
                     singular ? ", flattened bones, zero sums" : ", weights summing to 1.75");
            agree(fk_skin_dqs, what, 500); /* the reference converts each bone as it reads it */
            weight_sum = 1.0f;
            zero_sums = 0;
            (void)use_method(0);
        }
}

/* A rig of bones with scale past the 128 bones the fast path's sign bits
   cover: centred at the vertex, the call is the reference loop's, with the
   palette; centred at the bone, its fast path's. */
static void scaled_dqs_past_the_sign_bits_matches_reference(void)
{
    make_affine_bones(0);
    affine_bones = 1;
    used_bones = SCALED_BONES_PAST_SIGN_BITS;
    agree(fk_skin_dqs, "DQS with scale, 140 bones", 200);
    scale_center = FK_DQS_SCALE_AT_BONE; /* its own path, rigid DQS's signs by dot products past 64 bones */
    agree(fk_skin_dqs, "DQS with scale at the bone, 140 bones", 200);
    scale_center = FK_DQS_SCALE_AT_VERTEX;
    used_bones = BONES;
    affine_bones = 0;
}

/* Bones with scale, shear and mirroring: positions as rigid LBS, normals by
   the blend's cofactors; then with every third bone flattened to a plane,
   where a vertex of such bones alone has a singular blend. */
static void affine_lbs_simd_matches_reference(void)
{
    int singular;
    for (singular = 0; singular < 2; ++singular) {
        make_affine_bones(singular);
        affine_bones = 1;
        agree(fk_skin_lbs, singular ? "affine LBS, flattened bones" : "affine LBS", 1000);
        affine_bones = 0;
    }
}

/* The DQS sign table is built when bones^2 <= 2 vertices k: with 40 bones,
   1000 vertices use it for k = 2 to 8; with 64 bones, 250 vertices use the
   dot products for k = 2 to 8. (With one influence neither is needed: the
   bones are read unsigned.) */
static void dqs_simd_with_sign_table_matches_reference(void) { make_bones(3.0f); agree(fk_skin_dqs, "DQS", 1000); }
static void dqs_simd_with_dot_products_matches_reference(void)
{
    make_bones(3.0f);
    used_bones = SIGN_TABLE_BONES;
    agree(fk_skin_dqs, "DQS", 250);
    used_bones = BONES;
}
static void dqs_simd_with_one_hemisphere_matches_reference(void)
{
    make_bones_in_one_hemisphere();
    agree(fk_skin_dqs, "DQS, one hemisphere", 1000);
}

/* 64 bones, the most the DQS sign table takes (2100 vertices, so that it is
   built), and weights that often tie for the heaviest: every loop takes the
   first of equal weights as the pivot, as the reference does. */
static void dqs_simd_with_64_bones_and_tied_weights_matches_reference(void)
{
    make_bones(3.0f);
    used_bones = SIGN_TABLE_BONES;
    tied_weights = 1;
    agree(fk_skin_dqs, "DQS, 64 bones, tied weights", 2100);
    used_bones = BONES;
    tied_weights = 0;
}

/* CoR (centres of rotation) of rigid bones: every k, layout, with and
   without normals, in place; its blend of rotations signed as DQS signs
   them, also with 64 bones and weights that tie for the heaviest. */
static void cor_simd_matches_reference(void)
{
    make_bones(3.0f);
    agree(skin_cor, "CoR", 1000);
    used_bones = SIGN_TABLE_BONES;
    tied_weights = 1;
    agree(skin_cor, "CoR, 64 bones, tied weights", 300);
    used_bones = BONES;
    tied_weights = 0;
}

/* CoR of bones with scale, shear and mirroring: affine LBS of p - c by the
   blended scale parts, divided by the weights' sum, then rigid CoR (68
   bones, past one word of sign bits), weights summing to 1.75; with every
   third bone flattened, where a vertex of such bones alone has a singular
   scale part, and vertices whose weights sum to zero, which the fast path
   hands to the plain loop; and with 140 bones, past the 128 that sign bits
   cover, where the weights are signed by dot products. 400 vertices cross a
   block of 256 and many stretches of 32: the reference side converts a bone
   with scale (a polar decomposition) at nearly every influence, which costs
   much under qemu. */
static void cor_with_scale_simd_matches_reference(void)
{
    int singular;
    for (singular = 0; singular < 2; ++singular) {
        make_affine_bones(singular);
        affine_bones = 1;
        used_bones = SCALED_BONES;
        zero_sums = singular;
        weight_sum = singular ? 1.0f : 1.75f;
        agree(skin_cor, singular ? "CoR with scale, flattened bones, zero sums" : "CoR with scale, weights summing to 1.75",
              singular ? 200 : 400);
        weight_sum = 1.0f;
        zero_sums = 0;
    }
    used_bones = SCALED_BONES_PAST_SIGN_BITS;
    agree(skin_cor, "CoR with scale, 140 bones", 200);
    used_bones = BONES;
    affine_bones = 0;
}

/* A worked example of the hemisphere: bone 0 the identity, bone 1 a turn of
   240 degrees about z, stored with w = cos 120 < 0, so that its quaternion
   lies in the other hemisphere from bone 0's. With weights w0 and w1 the
   signed blend is (0, 0, -w1 sin 120, w0 - w1 cos 120) up to its sign,
   whichever bone is the heaviest: a turn of -27.8 degrees for 3/4 and 1/4,
   -92.2 for 1/4 and 3/4 (unsigned, +38.2 and -158). Both bones leave the
   origin in place, so the centre (0, 0, 0) stays, and the vertex (1, 0, 0)
   and its normal (0, 1, 0) go where that turn takes them. k = 2 and 4 (two
   zero weights), through the fast path and the plain loop. */
static void cor_hemisphere_flips_past_180_degrees_of_quaternion(void)
{
    static fk_rigid pair[ALL_BONES];
    static float positions[2][3] = {{1.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f}};
    static float normals[2][3] = {{0.0f, 1.0f, 0.0f}, {0.0f, 1.0f, 0.0f}};
    static float centers[2][3] = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}}, out[2][6];
    static uint16_t joints[2][4] = {{0, 1, 2, 3}, {0, 1, 2, 3}};
    static float weights[2][4] = {{0.75f, 0.25f, 0.0f, 0.0f}, {0.25f, 0.75f, 0.0f, 0.0f}};
    const double half = 120.0 * 3.14159265358979323846 / 180.0;
    int j, k, bone_count, v;
    char what[80];
    for (j = 0; j < ALL_BONES; ++j) pair[j] = fk_rigid_make(fk_quat_make(0.0f, 0.0f, 0.0f, 1.0f), fk_vec3_make(0.0f, 0.0f, 0.0f));
    pair[1].q = fk_quat_make(0.0f, 0.0f, (float)sin(half), (float)cos(half));
    for (k = 2; k <= 4; k += 2)
        for (bone_count = BONES; bone_count <= ALL_BONES; bone_count += ALL_BONES - BONES) {
            fk_skin_desc d;
            memset(&d, 0, sizeof d);
            d.vertex_count = 2; d.influences = k;
            d.positions = &positions[0][0]; d.normals = &normals[0][0];
            d.joints = &joints[0][0]; d.joint_stride = sizeof joints[0];
            d.weights = &weights[0][0]; d.weight_stride = sizeof weights[0];
            d.transforms = pair; d.transform_count = bone_count;
            d.out_positions = &out[0][0]; d.out_normals = &out[0][3];
            d.out_position_stride = d.out_normal_stride = sizeof out[0];
            kernels_run = 0;
            CHECK(fk_skin_cor(&d, &centers[0][0], 0) == FK_OK, "CoR: the call failed");
            snprintf(what, sizeof what, "CoR k=%d, %s", k, bone_count == BONES ? "fast path" : "plain loop");
            if (bone_count == BONES) CHECK(kernels_run == expected_kernels(skin_cor), "%s: ran 0x%x", what, kernels_run);
            for (v = 0; v < 2; ++v) {
                const double turn = 2.0 * atan2(-weights[v][1] * sin(half), weights[v][0] - weights[v][1] * cos(half));
                const double expected[6] = {cos(turn), sin(turn), 0.0, -sin(turn), cos(turn), 0.0};
                int c;
                for (c = 0; c < 6; ++c)
                    CHECK(fabs(out[v][c] - expected[c]) <= 8.0 * FLT_EPSILON, "%s, vertex %d: %s %d is %.9g, not %.9g", what,
                          v, c < 3 ? "position" : "normal", c % 3, (double)out[v][c], expected[c]);
            }
        }
}

/* The DQS sign table against its definition, pair by pair, for every count of
   bones it takes (a compare covers four bones, so most counts end inside one):
   random rotations; rotations in one hemisphere with random signs, so that one
   row often serves every pivot; some rotations zero, with a negative zero; and
   some with a NaN. fk_quat_dot() < 0 says whether bone b is read negated when
   bone a is the heaviest, and one row serves when that is flipped(0, a) !=
   flipped(0, b) for every pair. The table is built where the SIMD loops are
   (x86-64 and 64-bit Arm); elsewhere the test is not run (rather than counted
   as passed). */
#if defined(FK__SIMD)
static int table_flips(const float *palette, int a, int b)
{
    const float *qa = palette + (size_t)a * FK__DQS_PALETTE_STRIDE, *qb = palette + (size_t)b * FK__DQS_PALETTE_STRIDE;
    return fk_quat_dot(fk_quat_make(qa[0], qa[1], qa[2], qa[3]), fk_quat_make(qb[0], qb[1], qb[2], qb[3])) < 0.0f;
}

static void dqs_sign_table_matches_its_definition(void)
{
    static float palette[FK__DQS_TABLE_BONES * FK__DQS_PALETTE_STRIDE];
    static uint16_t hemisphere[FK__DQS_TABLE_BONES * FK__DQS_TABLE_BONES];
    static uint64_t flipped[FK__DQS_TABLE_BONES];
    int kind, count, a, b, c, rows_serving = 0, wrong_entries = 0, wrong_bits = 0, wrong_answers = 0;
    for (kind = 0; kind < 4; ++kind)
        for (count = 1; count <= FK__DQS_TABLE_BONES; ++count) {
            int one_row = 1;
            for (b = 0; b < count; ++b) {
                float *q = palette + (size_t)b * FK__DQS_PALETTE_STRIDE, sign = rng_next() % 2 ? 1.0f : -1.0f;
                for (c = 0; c < FK__DQS_PALETTE_STRIDE; ++c) q[c] = rng_uniform(-1, 1);
                if (kind == 1)
                    for (c = 0; c < 4; ++c) q[c] = sign * (c == 3 ? 1.0f : rng_uniform(-0.25f, 0.25f));
                if (kind == 2 && rng_next() % 4 == 0) {
                    for (c = 0; c < 4; ++c) q[c] = 0.0f;
                    q[rng_next() % 4] = -0.0f;
                }
                if (kind == 3 && rng_next() % 8 == 0) q[rng_next() % 4] = NAN;
            }
            for (a = 0; a < FK__DQS_TABLE_BONES; ++a) flipped[a] = ~(uint64_t)0; /* must be overwritten */
            for (a = 0; a < count; ++a)
                for (b = 0; b < count; ++b)
                    one_row &= table_flips(palette, a, b) == (table_flips(palette, 0, a) != table_flips(palette, 0, b));
            if (fk__dqs_hemispheres(palette, FK__DQS_PALETTE_STRIDE, count, hemisphere, flipped) != one_row) ++wrong_answers;
            rows_serving += one_row;
            for (a = 0; a < FK__DQS_TABLE_BONES; ++a)
                for (b = 0; b < FK__DQS_TABLE_BONES; ++b) {
                    int flip = a < count && b < count && table_flips(palette, a, b);
                    /* bits past the count are zero; entries past them are never read */
                    wrong_bits += (int)(flipped[a] >> b & 1) != flip;
                    if (a < count && b < count)
                        wrong_entries += hemisphere[a * FK__DQS_TABLE_BONES + b] !=
                                         b * FK__DQS_PALETTE_STRIDE + (flip ? FK__DQS_BONE_FLOATS : 0);
                }
        }
    CHECK(wrong_entries == 0, "%d table entries differ from fk_quat_dot() < 0", wrong_entries);
    CHECK(wrong_bits == 0, "%d bits of the one-bit table differ from fk_quat_dot() < 0", wrong_bits);
    CHECK(wrong_answers == 0, "%d of 256 tables answer wrongly whether one row serves", wrong_answers);
    CHECK(rows_serving >= 32, "one row served in only %d of 256 tables: the test misses that case", rows_serving);
}

enum { FOLDED_SPREAD = 13, FOLDED_RIG = FOLDED_SPREAD * FK__DQS_SIGN_BONES + 3 };

/* Bones 0 to count - 1 of palette, floats apart, copied to 13 b + 3 of
   spread, and named there (named[0] the count), as fk__skin() names them. */
static void spread_bones(const float *palette, size_t floats, int count, float *spread, int *named)
{
    int b;
    for (named[0] = count, b = 0; b < count; ++b) {
        named[1 + b] = FOLDED_SPREAD * b + 3;
        memcpy(spread + (size_t)named[1 + b] * floats, palette + (size_t)b * floats, floats * sizeof(float));
    }
}

/* fk__dqs_rows_fold() against its definition, no two named bones alike
   modulo 128, for lists of every length to 129, half of them given a
   collision. */
static void dqs_rows_fold_exactly_when_no_two_bones_collide(void)
{
    int named[1 + 129], count, b, c, wrong = 0;
    for (count = 0; count <= 129; ++count) {
        int collide = 0;
        for (named[0] = count, b = 0; b < count; ++b) named[1 + b] = (int)(rng_next() % FOLDED_RIG);
        if (count % 2) named[count] = named[1] + 128 * (int)(1 + rng_next() % 4);
        for (b = 0; b < count; ++b)
            for (c = 0; c < b; ++c) collide |= named[1 + b] % 128 == named[1 + c] % 128;
        wrong += fk__dqs_rows_fold(named) == collide;
    }
    CHECK(!fk__dqs_rows_fold(NULL), "a rig that names no bones folds");
    CHECK(wrong == 0, "%d lists of named bones fold wrongly", wrong);
}

/* DQS with scale signs its weights by bits, two words a row, each pair tested
   once: against fk_quat_dot() < 0 for both orders of every pair, for every
   count of bones up to FK__DQS_SIGN_BONES (past one word), with zero and NaN
   rotations mixed in; and the rows past the count stay unwritten. The same
   bones spread over a larger rig (13 b + 3), their rows folded to 128
   columns (a bone's bit at its index & 127), likewise. */
static void dqs_sign_bits_match_their_definition(void)
{
    static float palette[FK__DQS_SIGN_BONES * FK__DQS_SCALED_STRIDE], spread[FOLDED_RIG * FK__DQS_SCALED_STRIDE];
    static uint64_t flipped[(FK__DQS_SIGN_BONES + 1) * FK__DQS_SIGN_WORDS], folded[FOLDED_RIG * FK__DQS_SIGN_WORDS];
    int named[1 + FK__DQS_SIGN_BONES];
    int kind, count, a, b, c, wrong_bits = 0, wrong_folds = 0, flips = 0, untouched = 1;
    for (kind = 0; kind < 3; ++kind)
        for (count = 1; count <= FK__DQS_SIGN_BONES; ++count) {
            for (b = 0; b < count; ++b) {
                float *q = palette + (size_t)b * FK__DQS_SCALED_STRIDE;
                for (c = 0; c < FK__DQS_SCALED_STRIDE; ++c) q[c] = rng_uniform(-1, 1);
                if (kind == 1 && rng_next() % 4 == 0) {
                    for (c = 0; c < 4; ++c) q[c] = 0.0f;
                    q[rng_next() % 4] = -0.0f;
                }
                if (kind == 2 && rng_next() % 8 == 0) q[rng_next() % 4] = NAN;
            }
            for (a = 0; a < (FK__DQS_SIGN_BONES + 1) * FK__DQS_SIGN_WORDS; ++a) flipped[a] = ~(uint64_t)0;
            fk__dqs_sign_bits(palette, FK__DQS_SCALED_STRIDE, count, FK__DQS_SIGN_WORDS, 0xFFFFu, NULL, flipped);
            spread_bones(palette, FK__DQS_SCALED_STRIDE, count, spread, named);
            fk__dqs_sign_bits(spread, FK__DQS_SCALED_STRIDE, FOLDED_RIG, FK__DQS_SIGN_WORDS, 127u, named, folded);
            for (a = 0; a < count; ++a)
                for (b = 0; b < count; ++b) {
                    const float *qa = palette + (size_t)a * FK__DQS_SCALED_STRIDE;
                    const float *qb = palette + (size_t)b * FK__DQS_SCALED_STRIDE;
                    int flip = fk_quat_dot(fk_quat_make(qa[0], qa[1], qa[2], qa[3]),
                                           fk_quat_make(qb[0], qb[1], qb[2], qb[3])) < 0.0f;
                    const int column = named[1 + b] & 127;
                    wrong_bits += (int)(flipped[a * FK__DQS_SIGN_WORDS + b / 64] >> (b % 64) & 1) != flip;
                    wrong_folds +=
                        (int)(folded[named[1 + a] * FK__DQS_SIGN_WORDS + column / 64] >> (column % 64) & 1) != flip;
                    flips += flip;
                }
            untouched &= flipped[count * FK__DQS_SIGN_WORDS] == ~(uint64_t)0;
        }
    CHECK(wrong_bits == 0, "%d sign bits differ from fk_quat_dot() < 0", wrong_bits);
    CHECK(wrong_folds == 0, "%d folded sign bits differ from fk_quat_dot() < 0", wrong_folds);
    CHECK(flips > 0, "no pair flipped: the test misses that case");
    CHECK(untouched, "the sign bits wrote past the rows of their bones");
}
#else
static void dqs_sign_table_matches_its_definition(void) { check_skip("no fast paths in this build"); }
static void dqs_sign_bits_match_their_definition(void) { check_skip("no fast paths in this build"); }
static void dqs_rows_fold_exactly_when_no_two_bones_collide(void) { check_skip("no fast paths in this build"); }
#endif

/* Vertex counts that end mid-line and on a whole number of 64-byte lines,
   and one vertex alone. */
static void odd_counts_match_reference(void)
{
    make_bones(1.0f);
    agree(fk_skin_lbs, "LBS", 257);
    agree(fk_skin_lbs, "LBS", 1024);
    agree(fk_skin_dqs, "DQS", 1);
}

/* A bad index in the third block: the vertices before it are written as the
   reference writes them, the ones after it not at all, and both report it. */
static void bad_index_stops_where_the_reference_stops(void)
{
    /* vertices in the middle of a block of 256 (checked eight indices at a
       time before a kernel runs over it) and of a group of four or eight,
       the last of a group, the last vertex (1001 vertices: a short last
       group) and the first; each in its third influence, and some in their
       last, the last index such a group holds. With four influences, with
       three (the last slot then 2), and with eight (slot 6 or 7). LBS, DQS,
       DQS of bones with scale centred at the vertex and at the bone (a
       path of its own, in stretches of 32 vertices), and CoR, rigid and with
       scale (the same path as at the bone). */
    static const char *const names[6] = {"LBS", "DQS", "DQS with scale at the vertex", "DQS with scale at the bone",
                                         "CoR", "CoR with scale"};
    static const int bad_vertices[] = {600, 603, 607, 1000, 603, 999, 0}, bad_slots[] = {2, 2, 2, 2, 3, 3, 2};
    static const int ks[] = {4, 3, 8};
    enum { COUNT = 1001, BAD = sizeof bad_vertices / sizeof bad_vertices[0] };
    int method, which;
    char what[80];
    make_affine_bones(0);
    for (which = 0; which < 3 * BAD * LAYOUTS; ++which) { /* each bad vertex in each layout, k = 4, 3, 8 */
        int k = ks[which / (BAD * LAYOUTS)], bad = bad_vertices[which % BAD];
        int slot = k == 8 ? bad_slots[which % BAD] + 4 : bad_slots[which % BAD] < k ? bad_slots[which % BAD] : k - 1;
        if (which % (BAD * LAYOUTS) == 0) make_mesh(COUNT, k);
        uint16_t kept = test_mesh.joints[bad][slot];
        test_mesh.joints[bad][slot] = BONES; /* one past the last bone of the SIMD rig */
        for (method = 0; method < 6; ++method) {
            skin_function skin = method >= 4 ? skin_cor : method ? fk_skin_dqs : fk_skin_lbs;
            layout l = layout_for(which / BAD % LAYOUTS, k);
            buffers fast, reference;
            fk_skin_desc d;
            int i, c, untouched = 1;
            affine_bones = method == 2 || method == 3 || method == 5;
            scale_center = method == 3 ? FK_DQS_SCALE_AT_BONE : FK_DQS_SCALE_AT_VERTEX;
            fill(&l, &fast); fill(&l, &reference);
            for (i = 0; i < COUNT; ++i) /* every output float a NaN pattern the skinning never writes */
                for (c = 0; c < 3; ++c) {
                    memset(fast.out + (size_t)i * l.vertex_bytes + l.position_offset + 4 * (size_t)c, 0x7F, 4);
                    memset(fast.out + (size_t)i * l.vertex_bytes + l.normal_offset + 4 * (size_t)c, 0x7F, 4);
                }
            d = describe(&l, &fast, 1, 0, BONES);
            CHECK(skin(&d) == FK_ERROR_JOINT_OUT_OF_RANGE, "%s k=%d, %s: SIMD path reports the index of vertex %d",
                  names[method], k, l.name, bad);
            /* The reference rig has that bone, so give it the mesh's vertices up to the bad one. */
            test_mesh.count = bad;
            d = describe(&l, &reference, 1, 0, ALL_BONES);
            CHECK(skin(&d) == FK_OK, "reference");
            snprintf(what, sizeof what, "%s before the bad index", names[method]);
            compare(skin, &l, fast.out, reference.out, 1, what);
            for (i = bad; i < COUNT; ++i)
                for (c = 0; c < 12; ++c)
                    untouched &= (unsigned char)fast.out[(size_t)i * l.vertex_bytes + l.position_offset + (size_t)c] ==
                                     0x7F &&
                                 (unsigned char)fast.out[(size_t)i * l.vertex_bytes + l.normal_offset + (size_t)c] == 0x7F;
            CHECK(untouched, "%s k=%d, %s: nothing written from the bad vertex %d on", names[method], k, l.name, bad);
            test_mesh.count = COUNT;
            release(&fast); release(&reference);
        }
        test_mesh.joints[bad][slot] = kept;
    }
    affine_bones = 0;
    scale_center = FK_DQS_SCALE_AT_VERTEX;
}

#if defined(HAVE_GUARD_PAGES)
/* `bytes` of memory that end where an unreadable page begins. */
static char *guarded(size_t bytes, char **mapping, size_t *mapped)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), span = (bytes + page - 1) / page * page + page;
    char *base = (char *)mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == (char *)MAP_FAILED || mprotect(base + span - page, page, PROT_NONE) != 0) {
        fprintf(stderr, "mmap failed\n");
        exit(1);
    }
    *mapping = base;
    *mapped = span;
    return base + span - page - bytes;
}

/* Whether skinned positions and normals (`step` floats from one vertex's to the
   next) are those the reference loops give the mesh; normals only if
   with_normals. */
static int same_as_reference(skin_function skin, const float *positions, const float *normals, size_t step,
                             int with_normals)
{
    layout l = layout_for(0, test_mesh.k);
    buffers reference;
    fk_skin_desc d;
    int i, c, same = 1;
    fill(&l, &reference);
    d = describe(&l, &reference, with_normals, 0, ALL_BONES);
    CHECK(skin(&d) == FK_OK, "reference call failed");
    for (i = 0; i < test_mesh.count; ++i) {
        const float *q = (const float *)(const void *)(reference.out + (size_t)i * l.vertex_bytes + l.position_offset);
        const float *o = (const float *)(const void *)(reference.out + (size_t)i * l.vertex_bytes + l.normal_offset);
        float unit = FLT_EPSILON * (magnitude(skin, i) > 1.0f ? magnitude(skin, i) : 1.0f);
        float normal_unit = with_normals ? normal_ulp(skin, i) : FLT_EPSILON;
        for (c = 0; c < 3; ++c)
            same &= fabsf(positions[step * (size_t)i + (size_t)c] - q[c]) <= ULPS * unit &&
                    (!with_normals || fabsf(normals[step * (size_t)i + (size_t)c] - o[c]) <= ULPS * normal_unit);
    }
    release(&reference);
    return same;
}

/* One guard-page case: `count` vertices of the test mesh, skinned by LBS
   (method 0), DQS (1) or CoR (2), with or without normals. */
typedef void (*guarded_case)(int count, int method, int with_normals);
static skin_function guarded_skin(int method) { return method == 2 ? skin_cor : method ? fk_skin_dqs : fk_skin_lbs; }
static const char *guarded_name(int method) { return method == 2 ? "CoR" : method ? "DQS" : "LBS"; }

/* Runs a guard-page case for 1 to 13 vertices (every length of a short last
   group of 4 or 8), and for 1000 to 1015, where DQS builds its sign table and
   the groups end anywhere; each method, with and without normals. */
static void for_each_guarded_case(guarded_case run_case)
{
    int count, method, with_normals;
    make_bones(1.0f);
    for (count = 1; count <= 1015; count = count == 13 ? 1000 : count + 1) {
        make_mesh(count, 4);
        /* the last vertex's normal zero: the careful path in a short last
           group, whose padding lanes repeat it and must not be stored */
        memset(test_mesh.normals[count - 1], 0, sizeof test_mesh.normals[count - 1]);
        for (method = 0; method < 3; ++method)
            for (with_normals = 0; with_normals < 2; ++with_normals) run_case(count, method, with_normals);
    }
}

/* Packed arrays, each ending where readable memory ends. */
static void packed_case(int count, int method, int with_normals)
{
    size_t point_bytes = 12 * (size_t)count, sizes[7], mapped[7];
    char *mapping[7], *array[7];
    fk_skin_desc d;
    int a, i;
    sizes[0] = sizes[1] = sizes[2] = sizes[3] = sizes[6] = point_bytes; /* positions, normals, out, CoR's centres */
    sizes[4] = 8 * (size_t)count;                                      /* joints */
    sizes[5] = 16 * (size_t)count;                                     /* weights */
    for (a = 0; a < 7; ++a) array[a] = guarded(sizes[a], &mapping[a], &mapped[a]);
    memcpy(array[6], cor_centers, point_bytes);
    cor_source = (const float *)(const void *)array[6];
    for (i = 0; i < count; ++i) {
        memcpy(array[0] + 12 * (size_t)i, test_mesh.positions[i], 12);
        memcpy(array[1] + 12 * (size_t)i, test_mesh.normals[i], 12);
        memcpy(array[4] + 8 * (size_t)i, test_mesh.joints[i], 8);
        memcpy(array[5] + 16 * (size_t)i, test_mesh.weights[i], 16);
    }
    memset(&d, 0, sizeof d);
    d.vertex_count = count;
    d.influences = 4;
    d.positions = (const float *)(const void *)array[0];
    d.normals = with_normals ? (const float *)(const void *)array[1] : NULL;
    d.out_positions = (float *)(void *)array[2];
    d.out_normals = with_normals ? (float *)(void *)array[3] : NULL;
    d.joints = (const uint16_t *)(const void *)array[4];
    d.weights = (const float *)(const void *)array[5];
    d.transforms = bones;
    d.transform_count = BONES;
    CHECK(fast_skin(guarded_skin(method), &d, "packed arrays at a guard page") == FK_OK,
          "%s, %d vertices: call failed", guarded_name(method), count);
    cor_source = &cor_centers[0][0]; /* the reference's centres: the same numbers */
    CHECK(same_as_reference(guarded_skin(method), (const float *)(const void *)array[2],
                            (const float *)(const void *)array[3], 3, with_normals),
          "%s, %d vertices%s: differs from the reference", guarded_name(method), count,
          with_normals ? ", normals" : "");
    for (a = 0; a < 7; ++a) munmap(mapping[a], mapped[a]);
}

/* Interleaved records whose point is their last field, 48 bytes in (indices,
   weights, normal, position), skinned into output records of `stride` bytes
   with the position and the normal at the given offsets; each buffer ends where
   readable (writable) memory ends, and every output byte that is not the
   library's must stay as it was. */
static void guarded_records(int count, int method, int with_normals, size_t stride, size_t position_at,
                            size_t normal_at)
{
    size_t mapped[2], i, c;
    char *mapping[2], *in = guarded(48 * (size_t)count, &mapping[0], &mapped[0]);
    char *out = guarded(stride * (size_t)count, &mapping[1], &mapped[1]);
    fk_skin_desc d;
    int kept = 1;
    for (i = 0; i < (size_t)count; ++i) {
        memcpy(in + 48 * i, test_mesh.joints[i], 8);
        memcpy(in + 48 * i + 8, test_mesh.weights[i], 16);
        memcpy(in + 48 * i + 24, test_mesh.normals[i], 12);
        memcpy(in + 48 * i + 36, test_mesh.positions[i], 12);
    }
    memset(out, 0x7F, stride * (size_t)count);
    memset(&d, 0, sizeof d);
    d.vertex_count = count;
    d.influences = 4;
    d.joints = (const uint16_t *)(const void *)in;
    d.weights = (const float *)(const void *)(in + 8);
    d.normals = with_normals ? (const float *)(const void *)(in + 24) : NULL;
    d.positions = (const float *)(const void *)(in + 36);
    d.out_positions = (float *)(void *)(out + position_at);
    d.out_normals = with_normals ? (float *)(void *)(out + normal_at) : NULL;
    d.joint_stride = d.weight_stride = d.normal_stride = d.position_stride = 48;
    d.out_normal_stride = d.out_position_stride = stride;
    d.transforms = bones;
    d.transform_count = BONES;
    CHECK(fast_skin(guarded_skin(method), &d, "records at a guard page") == FK_OK,
          "%s, %d vertices: call failed", guarded_name(method), count);
    CHECK(same_as_reference(guarded_skin(method), (const float *)(const void *)(out + position_at),
                            (const float *)(const void *)(out + normal_at), stride / sizeof(float), with_normals),
          "%s, %d %d-byte records%s: differs from the reference", guarded_name(method), count, (int)stride,
          with_normals ? ", normals" : "");
    for (i = 0; i < stride * (size_t)count; ++i) { /* c - offset < 12: within that field (unsigned) */
        c = i % stride;
        if (!(c - position_at < 12 || (with_normals && c - normal_at < 12))) kept &= (unsigned char)out[i] == 0x7F;
    }
    CHECK(kept, "%s, %d %d-byte records%s: a byte not the library's was written", guarded_name(method), count,
          (int)stride, with_normals ? ", normals" : "");
    munmap(mapping[0], mapped[0]);
    munmap(mapping[1], mapped[1]);
}

/* 24 bytes out: the normal, then the position, which ends the record. */
static void records_case(int count, int method, int with_normals)
{
    guarded_records(count, method, with_normals, 24, 12, 0);
}

/* 28 bytes out: the position, its normal right after it (the loops' other
   shape of pairs, written by masked 24-byte stores; 24-byte records go as
   packed pairs), and four bytes of the caller's. */
static void pair_records_case(int count, int method, int with_normals)
{
    guarded_records(count, method, with_normals, 28, 0, 12);
}
#endif

/* Every packed array ends where readable memory ends: the loops that read 16
   bytes for a 12-byte point must leave the last vertex to a loop that does
   not. A read past an array's end crashes the test. */
static void packed_arrays_end_where_memory_ends(void)
{
#if defined(HAVE_GUARD_PAGES)
    for_each_guarded_case(packed_case);
#else
    check_skip("no guard pages on this system");
#endif
}

/* The same for interleaved records whose point is their last field. */
static void records_end_where_memory_ends(void)
{
#if defined(HAVE_GUARD_PAGES)
    for_each_guarded_case(records_case);
#else
    check_skip("no guard pages on this system");
#endif
}

/* The same for output records whose position and normal are followed by bytes
   of the caller's, which the loops must neither write nor reach past the end. */
static void pair_records_end_where_memory_ends(void)
{
#if defined(HAVE_GUARD_PAGES)
    for_each_guarded_case(pair_records_case);
#else
    check_skip("no guard pages on this system");
#endif
}

/* Weights that make the fast normalizations hand over to the exact ones: a zero
   normal, a subnormal and an overflowing blend, all-zero weights; and large
   weights on large positions, where DQS's folded normalization overflows (its
   intermediates reach |blend|^2 |p|) though the reference's unit rotation does
   not. With three influences and with four (each has kernels of its own).
   LBS of affine bones too, whose normals come from products of two weights,
   and CoR, which turns p - c by a unit rotation whatever the weights' size,
   with rigid bones and with scale (whose scale part is divided by the
   weights' sum). */
static void edge_cases_match_reference(void)
{
    static const float scales[] = {0.0f, 1e-21f, 1e-30f, 1e20f, 1.0f, 1e10f};
    int s, method, packed, k;
    make_affine_bones(0);
    make_bones(1.0f);
    for (k = 3; k <= 4; ++k)
    for (s = 0; s < 6; ++s)
        for (method = 0; method < 10; ++method) { /* 6 and 7: CoR; 8 and 9 with scale */
            skin_function skin = method >= 6 ? skin_cor : method % 2 ? fk_skin_dqs : fk_skin_lbs;
            layout l;
            buffers fast, reference;
            fk_skin_desc d;
            char what[100];
            int i, e;
            make_mesh(300, k);
            for (i = 0; i < test_mesh.count; ++i) {
                for (e = 0; e < k; ++e) test_mesh.weights[i][e] *= scales[s];
                if (s == 4 && i % 2) test_mesh.normals[i][0] = test_mesh.normals[i][1] = test_mesh.normals[i][2] = 0.0f;
                if (s == 5)
                    for (e = 0; e < 3; ++e) test_mesh.positions[i][e] *= 1e19f;
            }
            packed = method >= 6 ? method % 2 : method % 4 >= 2;
            if (method == 5) continue; /* DQS takes no affine bones */
            affine_bones = method == 4 || method >= 8;
            l = layout_for(packed ? PACKED : 0, k);
            fill(&l, &fast); fill(&l, &reference);
            d = describe(&l, &fast, 1, 0, BONES);
            CHECK(fast_skin(skin, &d, "edge cases") == FK_OK, "SIMD");
            d = describe(&l, &reference, 1, 0, ALL_BONES);
            CHECK(skin(&d) == FK_OK, "reference");
            snprintf(what, sizeof what, "%s k=%d, weights scaled by %g%s%s", method_name[method >= 8 ? COR_SCALED : method >= 6 ? COR : method >= 4 ? 2 : method % 2], k,
                     (double)scales[s],
                     s == 4 ? ", zero normals" : s == 5 ? ", positions scaled by 1e19" : "", packed ? ", packed" : "");
            compare(skin, &l, fast.out, reference.out, 1, what);
            release(&fast); release(&reference);
        }
    affine_bones = 0;
}

/* NaN weights: in one influence of a vertex, and in all of them, where no
   weight equals the largest and the loops that find the heaviest influence in
   vector registers must still pick a joint in range. The vertex's outputs are
   NaN and every other vertex's are the reference's, in every layout, with
   three, four and eight influences; 1000 vertices, so that DQS builds its sign
   table. Vertex 13 is in a group whose pivots the packed loops find while
   finishing the group before. */
static void nan_weights_stay_in_their_vertex(void)
{
    static const int nan_vertices[] = {5, 13, 999};
    enum { NANS = sizeof nan_vertices / sizeof nan_vertices[0] };
    static const int ks[] = {3, 4, 8};
    int which, method, n, v, e, c;
    make_bones(3.0f);
    for (n = 0; n < 3; ++n) {
        int k = ks[n];
        make_mesh(1000, k);
        test_mesh.weights[5][1] = NAN;
        for (e = 0; e < k; ++e) test_mesh.weights[13][e] = NAN;
        test_mesh.weights[999][k - 1] = NAN;
        for (which = 0; which < LAYOUTS; ++which)
            for (method = 0; method < 3; ++method) {
                skin_function skin = method == 2 ? skin_cor : method ? fk_skin_dqs : fk_skin_lbs;
                layout l = layout_for(which, k);
                buffers fast, reference;
                fk_skin_desc d;
                char what[160];
                fill(&l, &fast); fill(&l, &reference);
                snprintf(what, sizeof what, "%s k=%d %s, NaN weights", method_name[method == 2 ? COR : method], k, l.name);
                d = describe(&l, &fast, 1, 0, BONES);
                CHECK(fast_skin(skin, &d, what) == FK_OK, "%s: SIMD call failed", what);
                d = describe(&l, &reference, 1, 0, ALL_BONES);
                CHECK(skin(&d) == FK_OK, "%s: reference call failed", what);
                for (v = 0; v < NANS; ++v) {
                    size_t record = (size_t)nan_vertices[v] * l.vertex_bytes;
                    float *position = (float *)(void *)(fast.out + record + l.position_offset);
                    float *normal = (float *)(void *)(fast.out + record + l.normal_offset);
                    CHECK(isnan(position[0]) || isnan(position[1]) || isnan(position[2]),
                          "%s: vertex %d's position is not NaN", what, nan_vertices[v]);
                    CHECK(isnan(normal[0]) || isnan(normal[1]) || isnan(normal[2]),
                          "%s: vertex %d's normal is not NaN", what, nan_vertices[v]);
                    for (c = 0; c < 12; ++c) /* left out of the comparison */
                        fast.out[record + l.position_offset + (size_t)c] = fast.out[record + l.normal_offset + (size_t)c] =
                            reference.out[record + l.position_offset + (size_t)c] =
                                reference.out[record + l.normal_offset + (size_t)c] = 0;
                }
                compare(skin, &l, fast.out, reference.out, 1, what);
                release(&fast); release(&reference);
            }
    }
}

/* ---- Forward kinematics ------------------------------------------------------------ */

/* The factor fk_forward() scales each product Q_p q_i by, as fk_forward()'s
   documentation states it: one Newton step for the parent's length,
   (3 - |Q_p|^2) / 2, with |Q_p|^2 summed in pairs. */
static float renormalization_factor(fk_quat parent)
{
    float norm2 = (parent.x * parent.x + parent.z * parent.z) + (parent.y * parent.y + parent.w * parent.w);
    return 0.5f * (3.0f - norm2);
}

/* What fk_forward() (fk_forward_rest_frame() if rest_frame) computes, spelled
   with the public scalar functions; d NULL for no translations. */
static fk_rigid compose(const fk_rigid *parent, fk_vec3 x, fk_quat rotation, const fk_vec3 *d, int rest_frame)
{
    fk_quat q = fk_quat_normalize(rotation);
    fk_vec3 pivot = d ? fk_vec3_add(x, *d) : x;
    float s;
    if (!parent) return fk_rigid_make(q, fk_vec3_sub(pivot, fk_quat_rotate(q, x)));
    q = rest_frame ? fk_quat_mul(q, parent->q) : fk_quat_mul(parent->q, q);
    s = renormalization_factor(parent->q);
    q = fk_quat_make(q.x * s, q.y * s, q.z * s, q.w * s);
    return fk_rigid_make(q, fk_vec3_sub(fk_vec3_add(parent->t, fk_quat_rotate(parent->q, pivot)), fk_quat_rotate(q, x)));
}

static int same_bits(const fk_rigid *a, const fk_rigid *b)
{
    return memcmp(&a->q, &b->q, sizeof a->q) == 0 && memcmp(&a->t, &b->t, sizeof a->t) == 0;
}

/* Within `ulps` units in the last place of `size`, the size of the numbers summed. */
static int within_ulps(const fk_rigid *a, const fk_rigid *b, float ulps, float size)
{
    float u[7] = {a->q.x, a->q.y, a->q.z, a->q.w, a->t.x, a->t.y, a->t.z};
    float v[7] = {b->q.x, b->q.y, b->q.z, b->q.w, b->t.x, b->t.y, b->t.z};
    int c;
    for (c = 0; c < 7; ++c)
        if (!(fabsf(u[c] - v[c]) <= ulps * FLT_EPSILON * (fabsf(v[c]) > size ? fabsf(v[c]) : size))) return 0;
    return 1;
}

/* Whether this build fuses a multiply and an add written as two statements,
   as clang does with -ffp-contract=fast where the target has FMA (gcc in its
   GNU modes too): the header's two forward kinematics paths then round where
   the compiler chooses, differently in each (the header promises their bits
   agree only where the compiler does not fuse differently in the two). With
   the product 1 + 2^-11 + 2^-24 rounded first, the sum is 0; fused, it is
   2^-24. */
static int fuses_across_statements(void)
{
    volatile float in_a = 1.0f + 1.0f / 4096.0f, in_c = -(1.0f + 1.0f / 2048.0f);
    float a = in_a, c = in_c;
    float product = a * a;
    float sum = product + c;
    return sum != 0.0f;
}

/* Whether it fuses them within one expression (clang's default where the
   target has FMA, as on any 64-bit Arm): then the scalar functions may round
   differently from the SIMD lanes. */
static int fuses_within_expressions(void)
{
    volatile float in_a = 1.0f + 1.0f / 4096.0f, in_c = -(1.0f + 1.0f / 2048.0f);
    float a = in_a, c = in_c;
    return a * a + c != 0.0f;
}

/* The one-pass path for parents-first skeletons, the general path (the same
   skeleton listed children first) and the public functions give the same
   bits, in both conventions, with and without translations (on x86-64 with
   AVX2 the one-pass path is the AVX2 loop and the general path SSE2). Where the
   compiler may fuse multiplies and adds (FMA in the target, or a build found
   at run time to fuse them), the
   scalar functions and the SIMD lanes may round differently at each joint, and
   the differences add up down the chain: at depth D (a root is 1) a
   translation sums D offsets of length up to 2, and the public functions are
   then held to 4 D ulps of 2 D.
   Where it fuses across statements (fuses_across_statements()), the two paths
   are held to the same bound instead of the same bits.
   The skeletons have 60 joints, or as many as it takes to reach the one-pass
   path's tails and limits: each count of the last batch of four rotations
   normalized together, more than one batch of 64, and joints past the 256
   kept near. */
static void forward_paths_agree_bit_for_bit(void)
{
    enum { JOINTS = 300 };
    static const int joint_counts[] = {60, 1, 2, 3, 5, 6, 7, 63, 64, 65, 130, 257, 300};
    int parents[JOINTS], reversed_parents[JOINTS], depth[JOINTS], i, trial, same_fast_general = 1, same_public = 1;
    int rest_frame, translated;
    const int fused = fuses_across_statements();
#if defined(__FMA__) /* gcc -std=c99 -march=native differs from the public functions though neither probe fuses */
    const int fma_in_target = 1;
#else
    const int fma_in_target = 0;
#endif
    const int public_within_ulps = fma_in_target || fused || fuses_within_expressions();
    fk_vec3 rest[JOINTS], reversed_rest[JOINTS], moves[JOINTS], reversed_moves[JOINTS];
    fk_quat rotations[JOINTS], reversed_rotations[JOINTS];
    fk_rigid fast[JOINTS], general[JOINTS], public_[JOINTS];
    for (trial = 0; trial < 50; ++trial) {
        int n = joint_counts[trial % (int)(sizeof joint_counts / sizeof joint_counts[0])];
        for (i = 0; i < n; ++i) {
            parents[i] = i == 0 || rng_next() % 8 == 0 ? -1 : (int)(rng_next() % (uint32_t)i);
            depth[i] = parents[i] < 0 ? 1 : depth[parents[i]] + 1;
            rest[i] = fk_vec3_make(rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1));
            moves[i] = fk_vec3_make(rng_uniform(-0.1f, 0.1f), rng_uniform(-0.1f, 0.1f), rng_uniform(-0.1f, 0.1f));
            rotations[i] = fk_quat_make(rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(0.2f, 1));
        }
        for (i = 0; i < n; ++i) { /* joint i becomes joint n-1-i: children before parents */
            int j = n - 1 - i;
            reversed_parents[j] = parents[i] < 0 ? -1 : n - 1 - parents[i];
            reversed_rest[j] = rest[i]; reversed_moves[j] = moves[i]; reversed_rotations[j] = rotations[i];
        }
        for (rest_frame = 0; rest_frame < 2; ++rest_frame)
            for (translated = 0; translated < 2; ++translated) {
                fk_result (*forward)(int, const int *, const fk_vec3 *, const fk_quat *, const fk_vec3 *, fk_rigid *) =
                    rest_frame ? fk_forward_rest_frame : fk_forward;
                kernels_run = 0;
                CHECK(forward(n, parents, rest, rotations, translated ? moves : NULL, fast) == FK_OK,
                      "parents first");
                CHECK(kernels_run == (tier_expected() ? (unsigned)RAN_FORWARD : (unsigned)RAN_OTHER),
                      "parents first: ran passes 0x%x, not the %s tier's", kernels_run, tier_chosen());
                CHECK(forward(n, reversed_parents, reversed_rest, reversed_rotations,
                              translated ? reversed_moves : NULL, general) == FK_OK,
                      "children first");
                for (i = 0; i < n; ++i) {
                    public_[i] = compose(parents[i] < 0 ? NULL : &public_[parents[i]], rest[i], rotations[i],
                                         translated ? &moves[i] : NULL, rest_frame);
                    same_fast_general &=
                        fused ? within_ulps(&fast[i], &general[n - 1 - i], 4.0f * (float)depth[i], 2.0f * (float)depth[i])
                              : same_bits(&fast[i], &general[n - 1 - i]);
                    same_public &= public_within_ulps ? within_ulps(&fast[i], &public_[i], 4.0f * (float)depth[i],
                                                                    2.0f * (float)depth[i])
                                                      : same_bits(&fast[i], &public_[i]);
                }
            }
    }
    if (fused) printf("note: this build fuses multiplies and adds across statements: the one-pass and the general path "
                      "are compared within 4 D ulps, not bit for bit\n");
    CHECK(same_fast_general, "the one-pass and the general path differ");
    CHECK(same_public, "fk_forward differs from the public functions composed");
}

/* ---- The vector registers' upper halves after a call ---------------------------

   A function that leaves the upper halves of ymm0-15 or zmm0-15 in use makes
   the SSE code after it slower until something clears them (a small call
   took twice as long once, when a compiler left out the vzeroupper before a
   call from AVX code to SSE code). The processor says which state is in use
   (XGETBV with ECX = 1, "XINUSE"): bit 2 the upper halves of the ymm
   registers, bit 6 those of zmm0-15. Every call that runs an AVX2 kernel
   must return with both clear, checked for LBS and DQS in every layout, k = 1, 2, 3, 4, 8, with and
   without normals, on 1 to 20, 37 and 1500 vertices, with a DQS vertex that
   declines its group, and for fk_forward(). Only where this program itself
   is built without AVX (it would use those registers itself) and the
   processor can tell. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX__) && !defined(FK_LBS_NO_SIMD) && \
    !defined(FK_LBS_NO_AVX2)
#include <cpuid.h>
#define HAVE_XINUSE 1
enum { UPPER_HALVES_IN_USE = 0x44 };

static int xinuse_readable(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27)) || !(c & (1u << 28))) return 0; /* OSXSAVE, AVX */
    if (__get_cpuid_max(0, NULL) < 0xD) return 0;
    __cpuid_count(0xD, 1, a, b, c, d);
    return (a & 4u) != 0;
}

static unsigned long long xinuse(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
    return (unsigned long long)hi << 32 | lo;
}
#endif

static void calls_leave_the_upper_halves_clear(void)
{
#if defined(HAVE_XINUSE)
    static const int counts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 37, 1500};
    int method, k, which, with_normals, c, careful, cases = 0, in_use_cases = 0;
    unsigned long long in_use = 0;
    char what[160] = "";
    if (!xinuse_readable()) {
        check_skip("this processor does not report which register state is in use");
        return;
    }
    make_bones(3.0f);
    for (method = 0; method < 2; ++method)
        for (k = 1; k <= MAX_K; k = k == 4 ? 8 : k + 1)
            for (c = 0; c < (int)(sizeof counts / sizeof counts[0]); ++c)
                for (careful = 0; careful < (method ? 2 : 1); ++careful) {
                    make_mesh(counts[c], k);
                    if (careful) memset(test_mesh.weights[0], 0, sizeof test_mesh.weights[0]); /* declines its group */
                    for (with_normals = 0; with_normals < 2; ++with_normals)
                        for (which = 0; which < LAYOUTS; ++which) {
                            layout l = layout_for(which, k);
                            buffers b;
                            fk_skin_desc d;
                            fk_result result;
                            unsigned long long after;
                            fill(&l, &b);
                            d = describe(&l, &b, with_normals, 0, used_bones);
                            __asm__ volatile("vzeroupper");
                            result = method ? fk_skin_dqs(&d) : fk_skin_lbs(&d);
                            after = xinuse();
                            CHECK(result == FK_OK, "call failed");
                            ++cases;
                            if ((after & UPPER_HALVES_IN_USE) && in_use_cases++ == 0) {
                                in_use = after;
                                snprintf(what, sizeof what, "%s k=%d, %d vertices%s%s: %s", method ? "DQS" : "LBS", k,
                                         counts[c], with_normals ? ", normals" : "", careful ? ", one declines" : "",
                                         l.name);
                            }
                            release(&b);
                        }
                }
    CHECK(in_use_cases == 0, "%d of %d calls returned with the upper halves in use; the first: %s (XINUSE 0x%llx)",
          in_use_cases, cases, what, in_use);
    {
        enum { JOINTS = 60 };
        int parents[JOINTS], i;
        fk_vec3 rest[JOINTS];
        fk_quat rotations[JOINTS];
        fk_rigid out[JOINTS];
        unsigned long long after;
        for (i = 0; i < JOINTS; ++i) {
            parents[i] = i - 1;
            rest[i] = fk_vec3_make(0.0f, (float)i, 0.0f);
            rotations[i] = fk_quat_normalize(fk_quat_make(rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1), 1));
        }
        __asm__ volatile("vzeroupper");
        CHECK(fk_forward(JOINTS, parents, rest, rotations, NULL, out) == FK_OK, "fk_forward failed");
        after = xinuse();
        CHECK(!(after & UPPER_HALVES_IN_USE), "fk_forward returned with the upper halves in use (XINUSE 0x%llx)", after);
    }
    printf("   %d skinning calls and one fk_forward(): %d returned with the upper halves in use\n", cases, in_use_cases);
#else
    check_skip("not an x86-64 build with AVX2 loops and without AVX itself");
#endif
}

/* ---- The tiers -------------------------------------------------------------------

   Each tier of the fast paths is a test of its own: where this build and this
   processor run it, the library must have chosen it, and the comparisons above
   must have run its kernels (fast_skin()); where they cannot, it is skipped,
   with the reason. The tier expected here is worked out from the build's
   settings and by asking the processor, not from the library's choice. */
static const char *tier_expected(void)
{
#if !defined(FK__SIMD)
    return NULL;
#elif defined(FK__SIMD_SSE2) && defined(FK__SIMD_AVX2) && defined(__AVX2__) && defined(__FMA__)
    return "AVX2+FMA";
#elif defined(FK__SIMD_SSE2) && defined(FK__SIMD_AVX2)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? "AVX2+FMA" : "SSE2";
#elif defined(FK__SIMD_SSE2)
    return "SSE2";
#elif defined(FK__SIMD_NEON)
    return "NEON";
#else
    return "SIMD128";
#endif
}

static void tier_was_compared(const char *tier, const char *elsewhere)
{
    const char *expected = tier_expected();
    if (!expected) {
        check_skip("%s: no fast paths in this build (FK_LBS_NO_SIMD, or no vector instruction set): the reference "
                   "loops were compared with themselves", tier);
        return;
    }
    if (strcmp(expected, tier) != 0) {
        check_skip("%s: this build on this processor runs %s; %s", tier, expected, elsewhere);
        return;
    }
    CHECK(strcmp(tier_chosen(), tier) == 0, "the library chose the %s tier, not %s", tier_chosen(), tier);
    CHECK(fast_calls_checked > 0, "no comparison ran the %s tier's kernels", tier);
    printf("   %s: %d calls compared with the reference ran its kernels\n", tier, fast_calls_checked);
}

static void the_sse2_tier_was_compared(void)
{
    tier_was_compared("SSE2", "build/sse2/test_simd (FK_LBS_NO_AVX2) compares it on any x86-64");
}
static void the_avx2_tier_was_compared(void)
{
#if defined(__x86_64__) && defined(FK__SIMD_AVX2)
    tier_was_compared("AVX2+FMA", "it needs a processor with AVX2 and FMA");
#else
    tier_was_compared("AVX2+FMA", "it is built on x86-64 with gcc or clang, without FK_LBS_NO_AVX2");
#endif
}
static void the_neon_tier_was_compared(void)
{
    tier_was_compared("NEON", "it runs on 64-bit Arm (tests/arm64.sh, under qemu)");
}
static void the_simd128_tier_was_compared(void)
{
    tier_was_compared("SIMD128", "it runs in WebAssembly with SIMD128 (make test-wasm)");
}

/* ---- Rigs of any size, in the caller's scratch memory ---------------------------- */

/* The mesh packed, k influences a vertex, its joints as given, into out (a
   position and a normal a vertex). */
enum { BIG_RIG = 1000 };
static int spread = 14;
static fk_rigid big_bones[BIG_RIG], big_bind_poses[BIG_RIG];
static float big_matrices[BIG_RIG][12];
static uint16_t spread_joints[MAX_VERTICES][MAX_K];
static float out_a[MAX_VERTICES][6], out_b[MAX_VERTICES][6];

static fk_skin_desc packed_desc(const uint16_t (*joints)[MAX_K], int with_normals, float (*out)[6])
{
    fk_skin_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = test_mesh.count;
    d.influences = test_mesh.k;
    d.positions = &test_mesh.positions[0][0];
    d.normals = with_normals ? &test_mesh.normals[0][0] : NULL;
    d.joints = &joints[0][0];
    d.joint_stride = sizeof joints[0];
    d.weights = &test_mesh.weights[0][0];
    d.weight_stride = sizeof test_mesh.weights[0];
    d.transforms = affine_bones ? NULL : bones;
    d.matrices = affine_bones ? &matrices[0][0] : NULL;
    d.bind_poses = affine_bones ? bind_poses : NULL;
    d.dqs_scale_center = scale_center;
    d.transform_count = used_bones;
    d.out_positions = &out[0][0];
    d.out_position_stride = sizeof out[0];
    d.out_normals = with_normals ? &out[0][3] : NULL;
    d.out_normal_stride = sizeof out[0];
    return d;
}

/* The rig's used bones spread over 1000, bone j at j spread + 3, the others
   bones of the rig no vertex uses; the mesh's joints spread alike. */
static void spread_the_rig(void)
{
    int j, i, e;
    for (j = 0; j < BIG_RIG; ++j) {
        const int from = j % spread == 3 && j / spread < used_bones ? j / spread : used_bones + j % (ALL_BONES - used_bones);
        big_bones[j] = bones[from];
        memcpy(big_matrices[j], matrices[from], sizeof big_matrices[j]);
        big_bind_poses[j] = bind_poses[from];
    }
    for (i = 0; i < test_mesh.count; ++i)
        for (e = 0; e < test_mesh.k; ++e) spread_joints[i][e] = (uint16_t)(test_mesh.joints[i][e] * spread + 3);
}

/* The rig's last used bone named by the last vertex's last influence alone,
   so that a pass naming the bones that stops short of any index misses it. */
static void name_the_last_bone_once(void)
{
    const int k = test_mesh.k, last = used_bones - 1;
    int i, e;
    for (i = 0; i < test_mesh.count; ++i)
        for (e = 0; e < k; ++e)
            if (test_mesh.joints[i][e] == last) test_mesh.joints[i][e] = (uint16_t)(k > 4 && e >= 4 ? last - 1 : 0);
    test_mesh.joints[test_mesh.count - 1][k - 1] = (uint16_t)last;
}

/* A rig of 1000 bones whose vertices use 64 (68 with scale) of them, given
   scratch memory, takes the fast paths and gives, bit for bit, what the rig of
   those bones alone gives on the stack; the scratch at any alignment and
   holding anything; for k = 4 the big rig's lists also packed, 4 to a
   vertex (glTF's usual layout; those of k = 8 always are), and for k = 8 as
   two streams, each naming bones the other does not (rigs past
   FK__NAMING_PAST bones name the bones they convert, and one of them is
   named by one index only). DQS with scale also on rigs whose 68 used bones
   lie 13 apart, no two alike modulo 128: centred at the vertex their sign
   bits fold (fk__dqs_rows_fold()), which is checked to happen exactly there.
   Which calls name their bones is checked too: DQS with scale centred at the
   vertex always, at the bone and CoR with scale only with fewer joint
   indices than FK__NAMING_INDICES_PER_BONE (lowered above) times the rig. */
static void rigs_of_1000_bones_give_the_bits_of_64(void)
{
    enum { VERTICES = 333 };
    static const int ks[] = {1, 2, 4, 8};
    static uint16_t packed_joints[MAX_VERTICES * MAX_K];
    char *scratch;
    size_t size;
    int method, ki, variant, with_normals, streams, misalign = 0;
    for (method = 0; method < METHODS; ++method) {
        skin_function skin = use_method(method);
        const int folds = method == 3 || method == 4 ? 2 : 1; /* DQS with scale: also bones 13 apart */
        if (!affine_bones) make_bones(3.0f); else make_affine_bones(0);
        used_bones = affine_bones && method >= 3 ? SCALED_BONES : SIGN_TABLE_BONES;
        for (ki = 0; ki < 4 * folds; ++ki) {
            const int k = ks[ki % 4], fold = ki / 4, expect_fold = fold && method == 3 && tier_expected();
            const int expect_named = method == 3 || ((method == 4 || method == COR_SCALED) &&
                                                     VERTICES * k < FK__NAMING_INDICES_PER_BONE * BIG_RIG);
            spread = fold ? 13 : 14; /* 13: no two of the 68 used bones alike modulo 128; 14: some alike */
            make_mesh(VERTICES, k);
            name_the_last_bone_once();
            spread_the_rig();
            for (variant = 0; variant < 6; ++variant) { /* normals or not; lists, two streams, packed lists */
                fk_skin_desc small, big;
                with_normals = variant & 1;
                streams = variant >> 1 == 1;
                small = packed_desc((const uint16_t (*)[MAX_K])test_mesh.joints, with_normals, out_a);
                big = packed_desc((const uint16_t (*)[MAX_K])spread_joints, with_normals, out_b);
                if ((streams && k < 8) || (variant >= 4 && k != 4)) continue; /* k = 8 is packed */
                if (variant == 2) { /* the streams' bones apart: each stream names bones the other does not */
                    int i, e;
                    for (i = 0; i < test_mesh.count; ++i)
                        for (e = 0; e < k; ++e)
                            test_mesh.joints[i][e] = (uint16_t)(test_mesh.joints[i][e] % (used_bones / 2) +
                                                                (e < 4 ? 0 : used_bones / 2));
                    name_the_last_bone_once();
                    spread_the_rig();
                }
                if (variant >= 4) {
                    int i;
                    for (i = 0; i < test_mesh.count; ++i)
                        memcpy(packed_joints + (size_t)i * (size_t)k, spread_joints[i], sizeof(uint16_t) * (size_t)k);
                    big.joints = packed_joints;
                    big.joint_stride = sizeof(uint16_t) * (size_t)k;
                }
                if (streams) {
                    big.joints2 = &spread_joints[0][4]; big.joint2_stride = big.joint_stride;
                    big.weights2 = &test_mesh.weights[0][4]; big.weight2_stride = big.weight_stride;
                }
                big.transforms = affine_bones ? NULL : big_bones;
                big.matrices = affine_bones ? &big_matrices[0][0] : NULL;
                big.bind_poses = affine_bones ? big_bind_poses : NULL;
                big.transform_count = BIG_RIG;
                size = fk_skin_scratch_size(&big, method_of(skin));
                scratch = (char *)malloc(size + 64);
                if (!scratch) { fprintf(stderr, "out of memory\n"); exit(1); }
                memset(scratch, 0xA5, size + 64);
                big.scratch = scratch + misalign;
                big.scratch_size = size;
                misalign = (misalign + 13) % 64;
                memset(out_a, 0x5a, sizeof out_a); memset(out_b, 0x5a, sizeof out_b);
                { fk_result rs = skin(&small), rb;
                rows_folded = bones_named = 0;
                rb = skin(&big);
                CHECK(rs == FK_OK && rb == FK_OK, "%s k=%d: a call failed: %s, %s", method_name[method], k,
                      fk_result_description(rs), fk_result_description(rb));
                CHECK(bones_named == expect_named, "%s k=%d, %d vertices: bones %snamed", method_name[method], k,
                      test_mesh.count, bones_named ? "" : "not ");
                CHECK((rows_folded > 0) == expect_fold, "%s k=%d, %d bones spread %d apart: signs %sfolded",
                      method_name[method], k, used_bones, spread, rows_folded ? "" : "not "); }
                CHECK(memcmp(out_a, out_b, sizeof out_a) == 0, "%s k=%d%s%s: 1000 bones give other bits than %d",
                      method_name[method], k, with_normals ? " +normals" : "",
                      streams ? ", two streams" : variant >= 4 ? ", packed lists" : "", used_bones);
                free(scratch);
            }
        }
        (void)use_method(0);
    }
}

/* The scratch is used when it holds fk_skin_scratch_size() bytes, and not
   touched when it is a byte short (the rig then fits the stack's palette). */
static void scratch_is_used_when_large_enough(void)
{
    static unsigned char scratch[200000];
    int method, short_of, touched, e;
    for (method = 0; method < METHODS; ++method) {
        skin_function skin = use_method(method);
        fk_skin_desc d;
        size_t size;
        if (!affine_bones) make_bones(3.0f); else make_affine_bones(0);
        make_mesh(100, 4);
        d = packed_desc((const uint16_t (*)[MAX_K])test_mesh.joints, 1, out_a);
        size = fk_skin_scratch_size(&d, method_of(skin));
        CHECK(size > 64 && size <= sizeof scratch, "%s: %u bytes of scratch", method_name[method], (unsigned)size);
        for (short_of = 1; short_of >= 0; --short_of) {
            memset(scratch, 0xA5, sizeof scratch);
            d.scratch = scratch;
            d.scratch_size = size - (size_t)short_of;
            CHECK(skin(&d) == FK_OK, "%s: the call failed", method_name[method]);
            for (touched = 0, e = 0; e < (int)sizeof scratch; ++e) touched |= scratch[e] != 0xA5;
            CHECK(touched == !short_of, "%s: scratch %s", method_name[method], short_of ? "used though too small" : "unused");
            for (touched = 0, e = (int)size; e < (int)sizeof scratch; ++e) touched |= scratch[e] != 0xA5;
            CHECK(!touched, "%s: written past its size", method_name[method]);
        }
        (void)use_method(0);
    }
}

/* ---- glTF's vertex formats ----------------------------------------------------- */

static uint8_t joints_u8[MAX_VERTICES][MAX_K], codes_u8[MAX_VERTICES][MAX_K];
static uint16_t codes_u16[MAX_VERTICES][MAX_K];
static uint8_t first_u8[MAX_VERTICES][4], second_u8[MAX_VERTICES][4], first_c8[MAX_VERTICES][4], second_c8[MAX_VERTICES][4];
static float weights_apart[MAX_VERTICES][MAX_K], second_weights[MAX_VERTICES][MAX_K];

/* Joints as uint8_t and weights as normalized uint8_t or uint16_t (wide), or
   in two streams of 4 and k - 4 (JOINTS_0/1, WEIGHTS_0/1 with uint8_t), give
   the bits of the same influences as uint16_t and float, the floats converted
   by glTF's formula, c / 255.0 (or 65535.0) rounded to float; so do two
   streams of uint16_t and float side by side in one record (read as one), and
   such joints with the weights' second stream apart; every method, with and
   without normals, k = 1 to 8. */
static void gltf_formats_give_the_converted_floats_bits(void)
{
    int method, k, i, e, kind, with_normals;
    for (method = 0; method < METHODS; ++method) {
        skin_function skin = use_method(method);
        if (!affine_bones) make_bones(3.0f); else make_affine_bones(0);
        for (k = 1; k <= MAX_K; ++k)
            for (kind = 0; kind < 5; ++kind) {
                if (kind >= 2 && k < 5) continue;
                make_mesh(301, k);
                for (i = 0; i < test_mesh.count; ++i)
                    for (e = 0; e < k; ++e) {
                        joints_u8[i][e] = (uint8_t)test_mesh.joints[i][e];
                        codes_u8[i][e] = (uint8_t)(rng_next() % 256);
                        codes_u16[i][e] = (uint16_t)(rng_next() % 65536);
                        test_mesh.weights[i][e] = kind == 1 ? (float)(codes_u16[i][e] / 65535.0) : (float)(codes_u8[i][e] / 255.0);
                        if (e < 4) { first_u8[i][e] = joints_u8[i][e]; first_c8[i][e] = codes_u8[i][e]; }
                        else { second_u8[i][e - 4] = joints_u8[i][e]; second_c8[i][e - 4] = codes_u8[i][e]; }
                        /* a first stream whose places 5 to 8 hold other weights, a second apart */
                        weights_apart[i][e] = e < 4 ? test_mesh.weights[i][e] : -1.0f;
                        if (e >= 4) second_weights[i][e - 4] = test_mesh.weights[i][e];
                    }
                for (with_normals = 0; with_normals < 2; ++with_normals) {
                    fk_skin_desc floats = packed_desc((const uint16_t (*)[MAX_K])test_mesh.joints, with_normals, out_a);
                    fk_skin_desc coded = packed_desc((const uint16_t (*)[MAX_K])test_mesh.joints, with_normals, out_b);
                    coded.joint_format = kind == 1 ? FK_JOINTS_U16 : FK_JOINTS_U8;
                    coded.joints = kind == 1 ? (const void *)test_mesh.joints : (const void *)joints_u8;
                    coded.joint_stride = kind == 1 ? sizeof test_mesh.joints[0] : sizeof joints_u8[0];
                    coded.weight_format = kind == 1 ? FK_WEIGHTS_UNORM16 : FK_WEIGHTS_UNORM8;
                    coded.weights = kind == 1 ? (const void *)codes_u16 : (const void *)codes_u8;
                    coded.weight_stride = kind == 1 ? sizeof codes_u16[0] : sizeof codes_u8[0];
                    if (kind == 2) { /* packed streams: strides of 0 */
                        coded.joints = first_u8; coded.weights = first_c8; coded.joint_stride = coded.weight_stride = 0;
                        coded.joints2 = second_u8; coded.weights2 = second_c8;
                        coded.joint2_stride = coded.weight2_stride = sizeof second_u8[0];
                        if (k == 8) coded.joint2_stride = coded.weight2_stride = 0;
                        coded.joint_stride = sizeof first_u8[0]; /* = 4, the packed stride, given */
                    }
                    if (kind >= 3) { /* JOINTS_1 right after JOINTS_0 in each record, WEIGHTS_1 too or apart */
                        coded.joint_format = FK_JOINTS_U16; coded.weight_format = FK_WEIGHTS_FLOAT;
                        coded.joints = test_mesh.joints;
                        coded.weights = kind == 3 ? (const void *)test_mesh.weights : (const void *)weights_apart;
                        coded.joint_stride = coded.joint2_stride = sizeof test_mesh.joints[0];
                        coded.weight_stride = coded.weight2_stride = sizeof test_mesh.weights[0];
                        coded.joints2 = &test_mesh.joints[0][4];
                        coded.weights2 = kind == 3 ? (const void *)&test_mesh.weights[0][4] : (const void *)second_weights;
                    }
                    memset(out_a, 0x5a, sizeof out_a); memset(out_b, 0x5a, sizeof out_b);
                    CHECK(skin(&floats) == FK_OK && skin(&coded) == FK_OK, "%s k=%d: a call failed", method_name[method], k);
                    CHECK(memcmp(out_a, out_b, sizeof out_a) == 0, "%s k=%d%s: %s give other bits than their floats",
                          method_name[method], k, with_normals ? " +normals" : "",
                          kind == 0 ? "uint8_t joints, unorm8 weights" : kind == 1 ? "unorm16 weights"
                          : kind == 2 ? "two streams" : kind == 3 ? "two streams side by side"
                                                                  : "joints side by side, weights apart");
                }
            }
        (void)use_method(0);
    }
}

/* A second stream in arrays of its own (glTF's JOINTS_1 and WEIGHTS_1 as
   accessors apart), read where it is, gives the bits of the same influences
   in one stream of k: both streams packed (strides of 0), in records with
   gaps, in place, its uint16_t joints where they are beside unorm16 weights
   that are converted, and with a bad index in the second stream (in a
   later block of the call), where both stop at the same vertex and report
   it; every method, k = 5 to 8, with and without normals. */
static void second_streams_apart_give_the_bits_of_one_stream(void)
{
    enum { COUNT = 701, BAD = 600 };
    enum { APART_PACKED, APART_IN_RECORDS, APART_IN_PLACE, APART_UNORM16, APART_BAD_INDEX, VARIANTS };
    static const char *const variant_name[] = {"packed", "in records with gaps", "in place", "beside unorm16 weights",
                                               "with a bad index"};
    static uint16_t joints1[MAX_VERTICES * 4], joints2[MAX_VERTICES * 4], joint_records[MAX_VERTICES][MAX_K];
    static uint16_t codes1[MAX_VERTICES * 4], codes2[MAX_VERTICES * 4];
    static float weights1[MAX_VERTICES * 4], weights2[MAX_VERTICES * 4], weight_records[MAX_VERTICES][MAX_K];
    int method, k, variant, with_normals, i, e;
    for (method = 0; method < METHODS; ++method) {
        skin_function skin = use_method(method);
        if (method < 2) make_bones(3.0f); else make_affine_bones(0);
        for (k = 5; k <= MAX_K; ++k)
            for (variant = APART_PACKED; variant < VARIANTS; ++variant) {
                make_mesh(COUNT, k);
                if (variant == APART_BAD_INDEX) test_mesh.joints[BAD][k - 1] = (uint16_t)used_bones;
                for (i = 0; i < COUNT; ++i)
                    for (e = 0; e < k; ++e) {
                        const size_t at = e < 4 ? 4 * (size_t)i + (size_t)e : (size_t)(k - 4) * (size_t)i + (size_t)e - 4;
                        const uint16_t code = (uint16_t)(rng_next() % 65536);
                        if (variant == APART_UNORM16) test_mesh.weights[i][e] = (float)(code / 65535.0);
                        (e < 4 ? joints1 : joints2)[at] = test_mesh.joints[i][e];
                        (e < 4 ? weights1 : weights2)[at] = test_mesh.weights[i][e];
                        (e < 4 ? codes1 : codes2)[at] = code;
                        if (e >= 4) { joint_records[i][e - 3] = test_mesh.joints[i][e]; weight_records[i][e - 2] = test_mesh.weights[i][e]; }
                    }
                for (with_normals = 0; with_normals < 2; ++with_normals) {
                    fk_skin_desc one = packed_desc((const uint16_t (*)[MAX_K])test_mesh.joints, with_normals, out_a);
                    fk_skin_desc two = packed_desc((const uint16_t (*)[MAX_K])test_mesh.joints, with_normals, out_b);
                    fk_result r1, r2;
                    two.joints = joints1; two.weights = weights1; two.joint_stride = two.weight_stride = 0;
                    two.joints2 = joints2; two.weights2 = weights2;
                    if (variant == APART_IN_RECORDS) {
                        two.joints2 = &joint_records[0][1]; two.joint2_stride = sizeof joint_records[0];
                        two.weights2 = &weight_records[0][2]; two.weight2_stride = sizeof weight_records[0];
                    }
                    if (variant == APART_UNORM16) {
                        two.weight_format = FK_WEIGHTS_UNORM16;
                        two.weights = codes1; two.weights2 = codes2;
                    }
                    memset(out_a, 0x5a, sizeof out_a); memset(out_b, 0x5a, sizeof out_b);
                    if (variant == APART_IN_PLACE) { /* the points and normals skinned where they are */
                        for (i = 0; i < COUNT; ++i) {
                            memcpy(out_b[i], test_mesh.positions[i], sizeof test_mesh.positions[i]);
                            memcpy(out_b[i] + 3, test_mesh.normals[i], sizeof test_mesh.normals[i]);
                        }
                        two.positions = &out_b[0][0]; two.position_stride = sizeof out_b[0];
                        two.normals = with_normals ? &out_b[0][3] : NULL; two.normal_stride = sizeof out_b[0];
                    }
                    r1 = fast_skin(skin, &one, "one stream");
                    r2 = fast_skin(skin, &two, "two streams apart");
                    CHECK(r1 == r2 && r1 == (variant == APART_BAD_INDEX ? FK_ERROR_JOINT_OUT_OF_RANGE : FK_OK),
                          "%s k=%d, second stream %s: the calls return %s and %s", method_name[method], k,
                          variant_name[variant], fk_result_description(r1), fk_result_description(r2));
                    if (!with_normals && variant == APART_IN_PLACE) /* the normals stayed in out_b, as they were */
                        for (i = 0; i < COUNT; ++i) memset(out_b[i] + 3, 0x5a, 3 * sizeof(float));
                    CHECK(memcmp(out_a, out_b, sizeof out_a) == 0, "%s k=%d%s, second stream %s: other bits than one stream",
                          method_name[method], k, with_normals ? " +normals" : "", variant_name[variant]);
                }
            }
        (void)use_method(0);
    }
}

/* The fast paths' normalized weights are glTF's quotients, c / 255.0 and
   c / 65535.0 rounded to float, bit for bit, for every code: in lists of 4,
   of 8 and of 3 (where the last of each list is converted alone), by the
   tier's loop for packed lists (AVX2's) and by the 4-lane layer's. */
static void unorm_weights_are_the_quotients_for_every_code(void)
{
#if defined(FK__SIMD)
    static uint16_t codes16[65536];
    static uint8_t codes8[65536];
    static float converted[65536];
    static const int elements[] = {4, 8, 3};
    int format, l, c, tier;
    for (c = 0; c < 65536; ++c) { codes16[c] = (uint16_t)c; codes8[c] = (uint8_t)c; }
    for (format = 0; format < 2; ++format) {
        const int codes = format ? 65536 : 256;
        for (l = 0; l < 6; ++l) {
            fk_skin_desc d;
            int bad = 0, first_bad = -1;
            tier = l >= 3; /* the tier's loop for packed lists, if it has one; then the 4-lane layer's */
            l %= 3;
            memset(&d, 0, sizeof d);
            d.influences = elements[l];
            d.weight_format = format ? FK_WEIGHTS_UNORM16 : FK_WEIGHTS_UNORM8;
            memset(converted, 0xff, sizeof converted);
            fk__convert_stream(&d, NULL, 0, format ? (const char *)codes16 : (const char *)codes8,
                               (size_t)elements[l] * (format ? 2 : 1), codes / elements[l], elements[l], NULL, converted,
                               tier ? NULL : fk__fast_paths()->convert_packed);
            for (c = 0; c < codes / elements[l] * elements[l]; ++c) {
                const float quotient = (float)(c / (format ? 65535.0 : 255.0));
                if (memcmp(&quotient, &converted[c], sizeof quotient) != 0 && !bad++) first_bad = c;
            }
            CHECK(!bad, "unorm%d in lists of %d%s: %d codes are not their quotients (the first %d)", format ? 16 : 8,
                  elements[l], tier ? ", 4 lanes" : "", bad, first_bad);
            l += 3 * tier;
        }
    }
#else
    check_skip("no fast paths in this build");
#endif
}

int main(void)
{
    RUN_TEST(lbs_simd_matches_reference);
    RUN_TEST(scaled_dqs_simd_matches_reference);
    RUN_TEST(scaled_dqs_past_the_sign_bits_matches_reference);
    RUN_TEST(affine_lbs_simd_matches_reference);
    RUN_TEST(dqs_simd_with_sign_table_matches_reference);
    RUN_TEST(dqs_simd_with_dot_products_matches_reference);
    RUN_TEST(dqs_simd_with_one_hemisphere_matches_reference);
    RUN_TEST(dqs_simd_with_64_bones_and_tied_weights_matches_reference);
    RUN_TEST(cor_simd_matches_reference);
    RUN_TEST(cor_with_scale_simd_matches_reference);
    RUN_TEST(cor_hemisphere_flips_past_180_degrees_of_quaternion);
    RUN_TEST(dqs_sign_table_matches_its_definition);
    RUN_TEST(dqs_sign_bits_match_their_definition);
    RUN_TEST(dqs_rows_fold_exactly_when_no_two_bones_collide);
    RUN_TEST(odd_counts_match_reference);
    RUN_TEST(packed_arrays_end_where_memory_ends);
    RUN_TEST(records_end_where_memory_ends);
    RUN_TEST(pair_records_end_where_memory_ends);
    RUN_TEST(bad_index_stops_where_the_reference_stops);
    RUN_TEST(edge_cases_match_reference);
    RUN_TEST(nan_weights_stay_in_their_vertex);
    RUN_TEST(forward_paths_agree_bit_for_bit);
    RUN_TEST(layouts_give_the_same_bits);
    RUN_TEST(pieces_give_the_bits_of_one_call);
    RUN_TEST(calls_leave_the_upper_halves_clear);
    RUN_TEST(the_sse2_tier_was_compared);
    RUN_TEST(the_avx2_tier_was_compared);
    RUN_TEST(the_neon_tier_was_compared);
    RUN_TEST(the_simd128_tier_was_compared);
    RUN_TEST(rigs_of_1000_bones_give_the_bits_of_64);
    RUN_TEST(scratch_is_used_when_large_enough);
    RUN_TEST(gltf_formats_give_the_converted_floats_bits);
    RUN_TEST(second_streams_apart_give_the_bits_of_one_stream);
    RUN_TEST(unorm_weights_are_the_quotients_for_every_code);
    return check_finish();
}
