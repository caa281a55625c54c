/* test_realdata.c - fk_lbs.h on data nobody on the team wrote.

   Each result of the library's path (the path the examples bvh_pose and rig_pose
   take) is compared with an independent formulation written here: 4x4 matrix
   chains in double precision, the way the file formats define them.
     - BVH (assimp-testmodels' 01_01, 01_03, Boxing_Toes): world = parent world x
       T(OFFSET + position channels) x (rotation channels in order); the joint is
       the world matrix's translation. Many frames of each file.
     - Rigged models through assimp (glTF 2.0, X, FBX): the skinned vertex
       sum_j w_j (world_j x offset_j) v from assimp's own node tree, keys and bone
       offset matrices, at several animation times.
     - The examples' own output: bvh_pose --dump-joints and rig_pose
       --dump-vertices, run and read back, against the same references;
       rig_pose --dqs-center, which moves a scaled rig's DQS; rig_pose --method
       cor, which moves one-joint vertices as LBS does and the others apart;
       retarget's foot contacts on two CMU clips, planted against the rotations
       alone; and the pictures of `make demo-images` and the CoR pictures of
       `make demo`, whose labels must stay inside their panels.
   Errors are reported relative to the model's size (its bounding-box diagonal).
   Without the Debian package assimp-testmodels the file tests say so and are
   skipped; the BVH reader's and the bridge's own tests always run. */
#define _POSIX_C_SOURCE 200809L /* popen, to read the examples' dumps */
#include "fk_lbs.h" /* declarations: the library is tests/fk_lbs_impl.c */
#include "check.h"
#include "../examples/bvh.h"
#include "../examples/assimp_rig.h"

#include <assimp/cimport.h>
#include <assimp/scene.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MODELS "/usr/share/assimp/models/"

/* Largest error allowed, relative to the model's bounding-box diagonal: what float
   arithmetic along a joint chain leaves, with room for chains of a few dozen joints.
   Any real mistake (a wrong order, a missed pivot, a lost scale) is orders larger. */
#define FLOAT_PRECISION 2e-6

static int have_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

/* ---- Double-precision 4x4 matrices, row-major, column vectors ---------------- */

typedef struct mat4 { double m[16]; } mat4;

static mat4 mat4_identity(void)
{
    mat4 r;
    memset(&r, 0, sizeof r);
    r.m[0] = r.m[5] = r.m[10] = r.m[15] = 1.0;
    return r;
}

static mat4 mat4_mul(mat4 a, mat4 b)
{
    mat4 r;
    int i, j, k;
    for (i = 0; i < 4; ++i)
        for (j = 0; j < 4; ++j) {
            double sum = 0.0;
            for (k = 0; k < 4; ++k) sum += a.m[4 * i + k] * b.m[4 * k + j];
            r.m[4 * i + j] = sum;
        }
    return r;
}

static mat4 mat4_translation(double x, double y, double z)
{
    mat4 r = mat4_identity();
    r.m[3] = x; r.m[7] = y; r.m[11] = z;
    return r;
}

/* Rotation by degrees about axis 0 (x), 1 (y) or 2 (z), right-handed. */
static mat4 mat4_rotation(int axis, double degrees)
{
    mat4 r = mat4_identity();
    double a = degrees * 3.14159265358979323846 / 180.0, c = cos(a), s = sin(a);
    int i = (axis + 1) % 3, j = (axis + 2) % 3;
    r.m[4 * i + i] = c; r.m[4 * i + j] = -s;
    r.m[4 * j + i] = s; r.m[4 * j + j] = c;
    return r;
}

static mat4 mat4_of_assimp(const struct aiMatrix4x4 *m)
{
    const float *f = &m->a1;
    mat4 r;
    int e;
    for (e = 0; e < 16; ++e) r.m[e] = (double)f[e];
    return r;
}

/* T R S from a translation, a unit quaternion (x y z w) and a scale. */
static mat4 mat4_trs(const double t[3], const double q[4], const double s[3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double rot[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                     2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                     2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)};
    mat4 r = mat4_identity();
    int i, j;
    for (i = 0; i < 3; ++i) {
        for (j = 0; j < 3; ++j) r.m[4 * i + j] = rot[3 * i + j] * s[j];
        r.m[4 * i + 3] = t[i];
    }
    return r;
}

static double distance3(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* A bounding box, to measure errors against the model's size. */
typedef struct box { double lo[3], hi[3]; } box;

static box box_empty(void)
{
    box b;
    int k;
    for (k = 0; k < 3; ++k) { b.lo[k] = 1e300; b.hi[k] = -1e300; }
    return b;
}

static void box_add(box *b, const double p[3])
{
    int k;
    for (k = 0; k < 3; ++k) {
        if (p[k] < b->lo[k]) b->lo[k] = p[k];
        if (p[k] > b->hi[k]) b->hi[k] = p[k];
    }
}

static double box_diagonal(const box *b) { return distance3(b->lo, b->hi); }

/* ---- BVH: joint positions against double matrix chains ------------------------ */

/* World position of every joint of one frame, by the file format's definition. */
static void bvh_reference_joints(const bvh_file *file, int frame, mat4 *world, double (*out)[3])
{
    int j, k;
    for (j = 0; j < file->joint_count; ++j) {
        const bvh_joint *joint = &file->joints[j];
        double position[3] = {joint->offset[0], joint->offset[1], joint->offset[2]};
        mat4 rotation = mat4_identity(), local;
        for (k = 0; k < joint->channel_count; ++k) {
            double value = bvh_value(file, frame, joint->first_channel + k);
            int axis = (int)joint->channels[k] % 3;
            if (joint->channels[k] <= BVH_ZPOSITION) position[axis] += value;
            else rotation = mat4_mul(rotation, mat4_rotation(axis, value));
        }
        local = mat4_mul(mat4_translation(position[0], position[1], position[2]), rotation);
        world[j] = joint->parent < 0 ? local : mat4_mul(world[joint->parent], local);
        out[j][0] = world[j].m[3]; out[j][1] = world[j].m[7]; out[j][2] = world[j].m[11];
    }
}

/* Largest distance between the library's joints and the reference over every
   step-th frame, relative to the diagonal of the box the joints sweep. */
static double bvh_relative_error(const char *path, int step, int *frames_compared)
{
    bvh_file file;
    char error[512];
    int n, f, j, *parents;
    fk_vec3 *rest_joints, *translations, *posed;
    fk_quat *rotations;
    fk_rigid *transforms;
    mat4 *world;
    double (*reference)[3], largest = 0.0;
    box bounds = box_empty();
    *frames_compared = 0;
    if (!CHECK(bvh_load(path, &file, error, sizeof error), "%s", error)) return 1.0;
    n = file.joint_count;
    parents = (int *)malloc((size_t)n * sizeof *parents);
    rest_joints = (fk_vec3 *)malloc((size_t)n * sizeof *rest_joints);
    translations = (fk_vec3 *)malloc((size_t)n * sizeof *translations);
    posed = (fk_vec3 *)malloc((size_t)n * sizeof *posed);
    rotations = (fk_quat *)malloc((size_t)n * sizeof *rotations);
    transforms = (fk_rigid *)malloc((size_t)n * sizeof *transforms);
    world = (mat4 *)malloc((size_t)n * sizeof *world);
    reference = (double (*)[3])malloc((size_t)n * sizeof *reference);
    bvh_rest_pose(&file, parents, rest_joints);
    for (f = 0; f < file.frame_count; f += step) {
        bvh_frame_pose(&file, f, rotations, translations);
        CHECK(fk_forward(n, parents, rest_joints, rotations, translations, transforms) == FK_OK, "fk_forward failed");
        fk_posed_joints(n, rest_joints, transforms, posed);
        bvh_reference_joints(&file, f, world, reference);
        for (j = 0; j < n; ++j) {
            double mine[3] = {(double)posed[j].x, (double)posed[j].y, (double)posed[j].z};
            double d = distance3(mine, reference[j]);
            largest = d > largest ? d : largest;
            box_add(&bounds, reference[j]);
        }
        ++*frames_compared;
    }
    free(parents); free(rest_joints); free(translations); free(posed); free(rotations); free(transforms);
    free(world); free(reference);
    bvh_free(&file);
    return largest / box_diagonal(&bounds);
}

static void bvh_file_test(const char *name, int step)
{
    char path[256];
    int frames;
    double error;
    snprintf(path, sizeof path, MODELS "BVH/%s", name);
    error = bvh_relative_error(path, step, &frames);
    printf("   %-16s %4d frames: largest joint error %.2e of the motion's size\n", name, frames, error);
    CHECK(frames >= 50, "%s: only %d frames compared", name, frames);
    CHECK(error <= FLOAT_PRECISION, "%s: joints differ from the matrix chain by %.3g of the motion's size", name, error);
}

static void bvh_joints_match_matrix_chains_01_01(void) { bvh_file_test("01_01.bvh", 23); }
static void bvh_joints_match_matrix_chains_01_03(void) { bvh_file_test("01_03.bvh", 37); }
static void bvh_joints_match_matrix_chains_boxing_toes(void) { bvh_file_test("Boxing_Toes.bvh", 29); }

/* ---- BVH reader: errors name the line, no byte past the buffer is read ---------- */

static const char small_bvh[] =
    "HIERARCHY\n"
    "ROOT Hips\n"
    "{\n"
    "  OFFSET 0 0 0\n"
    "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
    "  JOINT Chest\n"
    "  {\n"
    "    OFFSET 0 10 0\n"
    "    CHANNELS 3 Yrotation Xrotation Zrotation\n"
    "    End Site\n"
    "    {\n"
    "      OFFSET 0 5 0\n"
    "    }\n"
    "  }\n"
    "}\n"
    "MOTION\n"
    "Frames: 2\n"
    "Frame Time: 0.04\n"
    "1 2 3 0 0 90 10 20 30\n"
    "4 5 6 90 0 0 0 0 0\n";

static void bvh_reader_reads_the_hierarchy_and_motion(void)
{
    bvh_file file;
    char error[256];
    if (!CHECK(bvh_parse(small_bvh, sizeof small_bvh - 1, &file, error, sizeof error), "%s", error)) return;
    CHECK(file.joint_count == 3 && file.channel_count == 9 && file.frame_count == 2, "counts %d %d %d",
          file.joint_count, file.channel_count, file.frame_count);
    CHECK(strcmp(file.joints[1].name, "Chest") == 0 && file.joints[1].parent == 0, "Chest");
    CHECK(file.joints[2].is_end_site && file.joints[2].parent == 1 && file.joints[2].offset[1] == 5.0, "End Site");
    CHECK(file.joints[1].first_channel == 6 && file.joints[1].channels[0] == BVH_YROTATION, "Chest channels");
    CHECK(fabs(file.frame_time - 0.04) < 1e-12 && bvh_value(&file, 1, 2) == 6.0, "motion values");
    bvh_free(&file);
}

/* Frames without channels hold no numbers: any count is honest, and reading it
   must cost nothing (a fuzzer would otherwise find a loop of 2^30 empty rows). */
static void bvh_reader_takes_channel_free_frames_at_no_cost(void)
{
    static const char text[] = "HIERARCHY\nROOT A\n{\n OFFSET 1 2 3\n}\nMOTION\nFrames: 1073741824\nFrame Time: 1\n";
    bvh_file file;
    char error[256];
    if (!CHECK(bvh_parse(text, sizeof text - 1, &file, error, sizeof error), "%s", error)) return;
    CHECK(file.frame_count == 1073741824 && file.channel_count == 0 && file.joints[0].offset[2] == 3.0, "counts");
    bvh_free(&file);
}

/* The first error message of a text, and its line. */
static int bvh_error_line(const char *text, char *error, size_t size)
{
    bvh_file file;
    int line = -1;
    if (bvh_parse(text, strlen(text), &file, error, size)) {
        bvh_free(&file);
        return 0;
    }
    sscanf(error, "line %d", &line);
    return line;
}

static void bvh_reader_names_the_line_of_each_error(void)
{
    static const struct { const char *text; int line; const char *words; } cases[] = {
        {"HIERARCHY\nROOT Hips\nOFFSET 0 0 0\n", 3, "expected '{'"},
        {"HIERARCHY\nROOT Hips\n{\n OFFSET 0 zero 0\n}\nMOTION\nFrames: 0\nFrame Time: 1\n", 4, "OFFSET"},
        {"HIERARCHY\nROOT Hips\n{\n OFFSET 0 inf 0\n}\nMOTION\nFrames: 0\nFrame Time: 1\n", 4, "OFFSET"},
        {"HIERARCHY\nROOT Hips\n{\n CHANNELS 2 Xposition Wrotation\n}\n", 4, "channel name"},
        {"HIERARCHY\nROOT Hips\n{\n CHANNELS 7 Xposition\n}\n", 4, "channel count"},
        {"HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n", 5, "missing '}'"},
        {"HIERARCHY\nROOT A\n{\n CHANNELS 1 Xposition\n}\nMOTION\nFrames: 2\nFrame Time: 1\n1\n", 10, "end of file in frame 2"},
        {"HIERARCHY\nROOT A\n{\n CHANNELS 1 Xposition\n}\nMOTION\nFrames: 9\nFrame Time: 1\n1\n", 8, "too short"},
        {"HIERARCHY\nROOT A\n{\n CHANNELS 2 Xposition Yposition\n}\nMOTION\nFrames: 2\nFrame Time: 1\n1 2\n3\n4\n", 10,
         "frame 2 has 1 numbers"},
        {"HIERARCHY\nROOT A\n{\n CHANNELS 1 Xposition\n}\nMOTION\nFrames: 1\nFrame Time: 1\n1 2\n", 9, "more than 1"},
        {"HIERARCHY\nROOT A\n{\n End Site\n {\n CHANNELS 1 Xposition\n }\n}\n", 6, "End Site has no CHANNELS"},
        {"ROOT A\n", 1, "HIERARCHY"},
        {"HIERARCHY\nMOTION\n", 2, "no ROOT"},
    };
    size_t c;
    for (c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        char error[256];
        int line = bvh_error_line(cases[c].text, error, sizeof error);
        CHECK(line == cases[c].line && strstr(error, cases[c].words) != NULL,
              "case %d: expected line %d mentioning \"%s\", got: %s", (int)c, cases[c].line, cases[c].words,
              line == 0 ? "(accepted)" : error);
    }
}

/* Every prefix of a valid file is parsed from a buffer of exactly that size
   (copied to the heap, so a sanitizer or valgrind sees any read past it): the
   reader must fail cleanly on each, and accept the whole file. */
static void bvh_reader_stays_inside_its_buffer(void)
{
    size_t length = sizeof small_bvh - 1, n;
    int accepted = 0;
    for (n = 0; n <= length; ++n) {
        char *copy = (char *)malloc(n ? n : 1), error[8]; /* a tiny message buffer must be cut, not overrun */
        bvh_file file;
        memcpy(copy, small_bvh, n);
        if (bvh_parse(copy, n, &file, error, sizeof error)) {
            accepted++;
            bvh_free(&file);
        } else {
            CHECK(strlen(error) < sizeof error && file.joints == NULL && file.motion == NULL, "prefix %d", (int)n);
        }
        free(copy);
    }
    /* The last frame's final number may be cut to a shorter number, so a few of
       the longest prefixes parse too; the whole file must. */
    CHECK(accepted >= 1 && accepted <= 3, "%d prefixes accepted", accepted);
}

/* ---- The bridge on a synthetic rig that has every difficulty at once ------------ */

static double random_unit(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (double)(*state >> 8) / 16777216.0 * 2.0 - 1.0;
}

static mat4 random_rigid(unsigned *state, double reach)
{
    double q[4], t[3], s[3] = {1, 1, 1}, n = 0.0;
    int k;
    for (k = 0; k < 4; ++k) { q[k] = random_unit(state); n += q[k] * q[k]; }
    for (k = 0; k < 4; ++k) q[k] /= sqrt(n);
    for (k = 0; k < 3; ++k) t[k] = reach * random_unit(state);
    return mat4_trs(t, q, s);
}

static void mat4_to_mat34(mat4 m, float out[12])
{
    int e;
    for (e = 0; e < 12; ++e) out[e] = (float)m.m[e];
}

static mat4 mat4_inverse_affine(mat4 m)
{
    /* [A | b]^-1 = [A^-1 | -A^-1 b] */
    double *a = m.m, det, inv[9];
    mat4 r = mat4_identity();
    int i;
    inv[0] = a[5] * a[10] - a[6] * a[9]; inv[1] = a[2] * a[9] - a[1] * a[10]; inv[2] = a[1] * a[6] - a[2] * a[5];
    inv[3] = a[6] * a[8] - a[4] * a[10]; inv[4] = a[0] * a[10] - a[2] * a[8]; inv[5] = a[2] * a[4] - a[0] * a[6];
    inv[6] = a[4] * a[9] - a[5] * a[8]; inv[7] = a[1] * a[8] - a[0] * a[9]; inv[8] = a[0] * a[5] - a[1] * a[4];
    det = a[0] * inv[0] + a[1] * inv[3] + a[2] * inv[6];
    for (i = 0; i < 3; ++i) {
        r.m[4 * i + 0] = inv[3 * i + 0] / det; r.m[4 * i + 1] = inv[3 * i + 1] / det; r.m[4 * i + 2] = inv[3 * i + 2] / det;
        r.m[4 * i + 3] = -(r.m[4 * i] * a[3] + r.m[4 * i + 1] * a[7] + r.m[4 * i + 2] * a[11]);
    }
    return r;
}

#define SYNTHETIC_JOINTS 8

/* A chain of joints under a moving, uniformly scaled "armature" node, with rotated
   bind poses, a non-joint node between joints 3 and 4, and a mesh matrix G (scale,
   shear-free but non-uniform, optionally mirrored) baked into every inverse bind
   matrix: IB_i = B_i^-1 G. Returns the largest |C_i P - S_i| over the joints. */
static double bridge_error(unsigned seed, int mirrored, fk_result *result)
{
    unsigned state = seed;
    int parents[SYNTHETIC_JOINTS], i, e;
    mat4 bind_local[SYNTHETIC_JOINTS], pose_local[SYNTHETIC_JOINTS], bind[SYNTHETIC_JOINTS], world[SYNTHETIC_JOINTS];
    mat4 armature_bind = mat4_mul(random_rigid(&state, 3.0), mat4_trs((double[3]){0, 0, 0}, (double[4]){0, 0, 0, 1}, (double[3]){100, 100, 100}));
    mat4 armature_pose = mat4_mul(random_rigid(&state, 3.0), mat4_trs((double[3]){0, 0, 0}, (double[4]){0, 0, 0, 1}, (double[3]){100, 100, 100}));
    mat4 extra_bind = random_rigid(&state, 0.1), extra_pose = random_rigid(&state, 0.1);
    mat4 mesh = mat4_mul(random_rigid(&state, 1.0),
                         mat4_trs((double[3]){0, 0, 0}, (double[4]){0, 0, 0, 1}, (double[3]){mirrored ? -0.5 : 0.5, 2.0, 1.25}));
    float inverse_bind[SYNTHETIC_JOINTS][12], world_matrices[SYNTHETIC_JOINTS][12], pretransform[12];
    fk_vec3 rest[SYNTHETIC_JOINTS], d[SYNTHETIC_JOINTS];
    fk_quat q[SYNTHETIC_JOINTS];
    fk_rigid c[SYNTHETIC_JOINTS];
    double largest = 0.0;
    for (i = 0; i < SYNTHETIC_JOINTS; ++i) {
        parents[i] = i - 1;
        bind_local[i] = random_rigid(&state, 0.2);
        pose_local[i] = random_rigid(&state, 0.2);
        bind[i] = i == 0 ? mat4_mul(armature_bind, bind_local[i]) : mat4_mul(bind[i - 1], bind_local[i]);
        world[i] = i == 0 ? mat4_mul(armature_pose, pose_local[i]) : mat4_mul(world[i - 1], pose_local[i]);
        if (i == 4) { bind[i] = mat4_mul(bind[i], extra_bind); world[i] = mat4_mul(world[i], extra_pose); }
        mat4_to_mat34(mat4_mul(mat4_inverse_affine(bind[i]), mesh), inverse_bind[i]);
        mat4_to_mat34(world[i], world_matrices[i]);
    }
    *result = fk_bind_from_matrices(SYNTHETIC_JOINTS, &inverse_bind[0][0], &world_matrices[0][0], rest, pretransform);
    if (*result != FK_OK) return 1e300;
    *result = fk_pose_from_matrices(SYNTHETIC_JOINTS, parents, &inverse_bind[0][0], &world_matrices[0][0],
                                    pretransform, rest, q, d);
    if (*result != FK_OK) return 1e300;
    *result = fk_forward(SYNTHETIC_JOINTS, parents, rest, q, d, c);
    for (i = 0; i < SYNTHETIC_JOINTS; ++i) {
        float cm[12], product[12];
        mat4 s = mat4_mul(world[i], mat4_mul(mat4_inverse_affine(bind[i]), mesh));
        fk_rigid_to_mat34(c[i], cm);
        fk_mat34_mul(cm, pretransform, product);
        for (e = 0; e < 12; ++e) {
            double diff = fabs((double)product[e] - s.m[e]) / (e % 4 == 3 ? 300.0 : 1.0); /* translations span ~300 */
            largest = diff > largest ? diff : largest;
        }
    }
    return largest;
}

static void bridge_reproduces_engine_skinning_matrices(void)
{
    unsigned seed;
    for (seed = 1; seed <= 50; ++seed) {
        fk_result result;
        double error = bridge_error(seed, 0, &result), mirrored = 0.0;
        fk_result mirrored_result;
        CHECK(result == FK_OK && error < 1e-5, "seed %u: %s, largest difference %.3g", seed, fk_result_description(result), error);
        mirrored = bridge_error(seed, 1, &mirrored_result);
        CHECK(mirrored_result == FK_OK && mirrored < 1e-5, "seed %u mirrored: %s, largest difference %.3g", seed,
              fk_result_description(mirrored_result), mirrored);
    }
}

/* A rig with scale through the engine bridge: the chain of bridge_error()
   under an armature scaled by `armature_scale` (and rotated and moved), its
   joints scaled non-uniformly in the pose. fk_skin_matrices_from_matrices()
   in world space gives LBS the engine's skinning matrices; in the space of
   fk_bind_frames_from_matrices() the rest frames are rigid, and DQS with scale,
   skinned there and taken back, does not depend on the armature's scale: the
   same rig at scale 1 gives the same mesh, scaled. Vertices are 50 points
   around the chain on two neighbouring joints. */
enum { SCALED_RIG_VERTICES = 50 };

static int scaled_rig(double armature_scale, float out_lbs[][3], float out_dqs[][3], float reference_lbs[][3])
{
    unsigned state = 7;
    int i, v, e;
    mat4 bind[SYNTHETIC_JOINTS], world[SYNTHETIC_JOINTS];
    mat4 armature = mat4_mul(random_rigid(&state, 3.0),
                             mat4_trs((double[3]){0, 0, 0}, (double[4]){0, 0, 0, 1},
                                      (double[3]){armature_scale, armature_scale, armature_scale}));
    float inverse_bind[SYNTHETIC_JOINTS][12], world_matrices[SYNTHETIC_JOINTS][12], space[12], matrices[SYNTHETIC_JOINTS][12];
    float rest[SCALED_RIG_VERTICES][3], weights[SCALED_RIG_VERTICES][2], in_space[SCALED_RIG_VERTICES][3];
    float skinned[SCALED_RIG_VERTICES][3];
    uint16_t joints[SCALED_RIG_VERTICES][2];
    fk_rigid bind_poses[SYNTHETIC_JOINTS];
    fk_skin_desc d;
    for (i = 0; i < SYNTHETIC_JOINTS; ++i) {
        mat4 local = random_rigid(&state, 0.2), posed = random_rigid(&state, 0.2);
        double s[3] = {0.6 + 0.1 * i, 1.4 - 0.05 * i, 0.9};
        posed = mat4_mul(posed, mat4_trs((double[3]){0, 0, 0}, (double[4]){0, 0, 0, 1}, s));
        bind[i] = i == 0 ? mat4_mul(armature, local) : mat4_mul(bind[i - 1], local);
        world[i] = i == 0 ? mat4_mul(armature, posed) : mat4_mul(world[i - 1], posed);
        mat4_to_mat34(mat4_inverse_affine(bind[i]), inverse_bind[i]);
        mat4_to_mat34(world[i], world_matrices[i]);
    }
    for (v = 0; v < SCALED_RIG_VERTICES; ++v) { /* near joint j's rest origin, in world space */
        int j = v % (SYNTHETIC_JOINTS - 1);
        double local[3] = {0.05 * (v % 3), 0.1, 0.02 * (v % 5)}, p[3];
        for (e = 0; e < 3; ++e)
            p[e] = bind[j].m[4 * e] * local[0] + bind[j].m[4 * e + 1] * local[1] + bind[j].m[4 * e + 2] * local[2] +
                   bind[j].m[4 * e + 3];
        for (e = 0; e < 3; ++e) rest[v][e] = (float)p[e];
        joints[v][0] = (uint16_t)j; joints[v][1] = (uint16_t)(j + 1);
        weights[v][0] = 0.3f + 0.4f * (float)(v % 2); weights[v][1] = 1.0f - weights[v][0];
        for (e = 0; e < 3; ++e) { /* the engine's LBS, in double */
            int k;
            double sum = 0.0;
            for (k = 0; k < 2; ++k) {
                mat4 skin = mat4_mul(world[joints[v][k]], mat4_inverse_affine(bind[joints[v][k]]));
                sum += (double)weights[v][k] * (skin.m[4 * e] * p[0] + skin.m[4 * e + 1] * p[1] + skin.m[4 * e + 2] * p[2] +
                                                skin.m[4 * e + 3]);
            }
            reference_lbs[v][e] = (float)sum;
        }
    }
    memset(&d, 0, sizeof d);
    d.vertex_count = SCALED_RIG_VERTICES; d.influences = 2;
    d.joints = &joints[0][0]; d.weights = &weights[0][0]; d.transform_count = SYNTHETIC_JOINTS;
    d.matrices = &matrices[0][0];
    /* LBS in world space, as glTF skins */
    if (fk_skin_matrices_from_matrices(SYNTHETIC_JOINTS, &inverse_bind[0][0], &world_matrices[0][0], NULL,
                                       &matrices[0][0]) != FK_OK) return 0;
    d.positions = &rest[0][0]; d.out_positions = &out_lbs[0][0];
    if (fk_skin_lbs(&d) != FK_OK) return 0;
    /* DQS with scale in the space where the rest frames are rigid, then back */
    if (fk_bind_frames_from_matrices(SYNTHETIC_JOINTS, &inverse_bind[0][0], space, bind_poses) != FK_OK) return 0;
    if (fk_skin_matrices_from_matrices(SYNTHETIC_JOINTS, &inverse_bind[0][0], &world_matrices[0][0], space,
                                       &matrices[0][0]) != FK_OK) return 0;
    {
        float inverse[12];
        if (fk_mat34_inverse(space, inverse) != FK_OK) return 0;
        for (v = 0; v < SCALED_RIG_VERTICES; ++v)
            for (e = 0; e < 3; ++e)
                in_space[v][e] = inverse[4 * e] * rest[v][0] + inverse[4 * e + 1] * rest[v][1] + inverse[4 * e + 2] * rest[v][2];
    }
    d.positions = &in_space[0][0]; d.out_positions = &skinned[0][0]; d.bind_poses = bind_poses;
    if (fk_skin_dqs(&d) != FK_OK) return 0;
    for (v = 0; v < SCALED_RIG_VERTICES; ++v)
        for (e = 0; e < 3; ++e)
            out_dqs[v][e] = space[4 * e] * skinned[v][0] + space[4 * e + 1] * skinned[v][1] + space[4 * e + 2] * skinned[v][2];
    return 1;
}

static void engine_rig_with_scale_skins_in_the_space_of_its_rest_frames(void)
{
    static float lbs_100[SCALED_RIG_VERTICES][3], dqs_100[SCALED_RIG_VERTICES][3], reference_100[SCALED_RIG_VERTICES][3];
    static float lbs_1[SCALED_RIG_VERTICES][3], dqs_1[SCALED_RIG_VERTICES][3], reference_1[SCALED_RIG_VERTICES][3];
    double worst_lbs = 0.0, worst_dqs = 0.0, moved = 0.0;
    int v, e;
    CHECK(scaled_rig(100.0, lbs_100, dqs_100, reference_100), "the rig scaled by 100 failed");
    CHECK(scaled_rig(1.0, lbs_1, dqs_1, reference_1), "the rig at scale 1 failed");
    for (v = 0; v < SCALED_RIG_VERTICES; ++v)
        for (e = 0; e < 3; ++e) {
            double lbs = fabs((double)lbs_100[v][e] - (double)reference_100[v][e]) / 100.0;
            /* the armature moves the rig too: compare the two rigs' meshes relative to their first vertex */
            double dqs = fabs(((double)dqs_100[v][e] - (double)dqs_100[0][e]) / 100.0 -
                              ((double)dqs_1[v][e] - (double)dqs_1[0][e]));
            double scale = fabs(((double)dqs_1[v][e] - (double)dqs_1[0][e]) -
                                ((double)lbs_1[v][e] - (double)lbs_1[0][e]));
            worst_lbs = lbs > worst_lbs ? lbs : worst_lbs;
            worst_dqs = dqs > worst_dqs ? dqs : worst_dqs;
            moved = scale > moved ? scale : moved;
        }
    CHECK(worst_lbs < 1e-5, "LBS of the engine's skinning matrices is %g from the engine's", worst_lbs);
    CHECK(worst_dqs < 1e-5, "DQS with scale depends on the armature's scale: %g", worst_dqs);
    CHECK(moved > 1e-3, "DQS and LBS agree on this rig (%g): it shows nothing", moved);
}

/* q_i is the local rotation only without bind rotations: with them it is seen
   through the parent's bind rotation, q = R(B_p) R(L) R(B)^-1. */
static void bridge_rotations_account_for_rotated_bind_poses(void)
{
    fk_quat bind_parent = fk_quat_from_axis_angle(fk_vec3_make(0, 0, 1), 1.0f);
    fk_quat bind_child_local = fk_quat_from_axis_angle(fk_vec3_make(1, 0, 0), 0.5f);
    fk_quat animated_local = fk_quat_from_axis_angle(fk_vec3_make(0, 1, 0), 0.7f);
    fk_rigid b0 = fk_rigid_make(bind_parent, fk_vec3_make(1, 2, 3));
    fk_rigid b1 = fk_rigid_mul(b0, fk_rigid_make(bind_child_local, fk_vec3_make(0, 1, 0)));
    fk_rigid w1 = fk_rigid_mul(b0, fk_rigid_make(animated_local, fk_vec3_make(0, 1, 0)));
    float inverse_bind[2][12], world[2][12], pretransform[12];
    fk_vec3 rest[2], d[2];
    fk_quat q[2], expected;
    int parents[2] = {-1, 0};
    fk_rigid_to_mat34(fk_rigid_inverse(b0), inverse_bind[0]);
    fk_rigid_to_mat34(fk_rigid_inverse(b1), inverse_bind[1]);
    fk_rigid_to_mat34(b0, world[0]);
    fk_rigid_to_mat34(w1, world[1]);
    CHECK(fk_bind_from_matrices(2, &inverse_bind[0][0], &world[0][0], rest, pretransform) == FK_OK, "bind");
    CHECK(fk_pose_from_matrices(2, parents, &inverse_bind[0][0], &world[0][0], pretransform, rest, q, d) == FK_OK, "pose");
    expected = fk_quat_mul(fk_quat_mul(bind_parent, fk_quat_mul(animated_local, fk_quat_conjugate(bind_child_local))),
                           fk_quat_conjugate(bind_parent));
    CHECK(fabsf(fk_quat_dot(q[1], expected)) > 1.0f - 1e-6f, "q_1 is not R(B_p) R(L) R(B)^-1");
    CHECK(fabsf(fk_quat_dot(q[1], animated_local)) < 0.99f, "q_1 should differ from the local rotation");
    CHECK(fk_vec3_length(d[1]) < 1e-5f, "a joint that keeps its offset needs no translation");
}

static void bridge_reports_scale_it_cannot_represent(void)
{
    fk_rigid b = fk_rigid_make(fk_quat_from_axis_angle(fk_vec3_make(1, 1, 0), 0.3f), fk_vec3_make(0, 1, 0));
    float inverse_bind[2][12], world[2][12], pretransform[12];
    fk_vec3 rest[2], d[2];
    fk_quat q[2];
    int parents[2] = {-1, 0};
    fk_rigid_to_mat34(fk_rigid_inverse(b), inverse_bind[0]);
    fk_rigid_to_mat34(fk_rigid_inverse(b), inverse_bind[1]);
    fk_rigid_to_mat34(b, world[0]);
    fk_rigid_to_mat34(b, world[1]);
    CHECK(fk_bind_from_matrices(2, &inverse_bind[0][0], &world[0][0], rest, pretransform) == FK_OK, "bind");
    world[1][0] *= 1.5f; world[1][4] *= 1.5f; world[1][8] *= 1.5f; /* joint 1 stretches along its x */
    CHECK(fk_pose_from_matrices(2, parents, &inverse_bind[0][0], &world[0][0], pretransform, rest, q, d) == FK_ERROR_NOT_RIGID,
          "a joint scaled over time must be reported");
    CHECK(fk_bind_from_matrices(2, &inverse_bind[0][0], &world[0][0], rest, pretransform) == FK_ERROR_NOT_RIGID,
          "scale that differs between joints must be reported");
    world[1][0] = world[1][4] = world[1][8] = 0.0f;
    CHECK(fk_bind_from_matrices(2, &inverse_bind[0][0], &world[0][0], rest, pretransform) == FK_ERROR_NOT_RIGID,
          "a singular matrix must be reported");
    world[1][3] = 1.0f / 0.0f;
    CHECK(fk_bind_from_matrices(2, &inverse_bind[0][0], &world[0][0], rest, pretransform) == FK_ERROR_NOT_FINITE, "infinity");
    CHECK(strstr(fk_result_description(FK_ERROR_NOT_RIGID), "scale") != NULL, "description");
}

static void mat44_layouts_are_transposes(void)
{
    fk_rigid r = fk_rigid_make(fk_quat_normalize(fk_quat_make(0.1f, -0.7f, 0.3f, 0.6f)), fk_vec3_make(4, 5, 6));
    float column[16], row[16], m34[12], back34[12];
    fk_rigid from_column, from_row;
    int i, j;
    fk_rigid_to_mat44_column_major(r, column);
    fk_rigid_to_mat44_row_major(r, row);
    fk_rigid_to_mat34(r, m34);
    for (i = 0; i < 4; ++i)
        for (j = 0; j < 4; ++j) CHECK(column[4 * j + i] == row[4 * i + j], "element (%d, %d)", i, j);
    CHECK(column[12] == 4.0f && column[13] == 5.0f && column[14] == 6.0f && column[15] == 1.0f, "glTF keeps translation in elements 12-14");
    fk_mat34_from_mat44_column_major(column, back34);
    CHECK(memcmp(back34, m34, sizeof m34) == 0, "column-major to 3x4");
    fk_mat34_from_mat44_row_major(row, back34);
    CHECK(memcmp(back34, m34, sizeof m34) == 0, "row-major to 3x4");
    from_column = fk_rigid_from_mat44_column_major(column);
    from_row = fk_rigid_from_mat44_row_major(row);
    CHECK(fabsf(fk_quat_dot(from_column.q, r.q)) > 1.0f - 1e-6f && fabsf(fk_quat_dot(from_row.q, r.q)) > 1.0f - 1e-6f &&
          from_column.t.z == 6.0f && from_row.t.y == 5.0f, "round trip");
}

static void mat34_inverse_undoes_an_affine_matrix(void)
{
    float m[12], inverse[12], product[12], singular[12] = {1, 0, 0, 5, 0, 0, 0, 6, 0, 0, 1, 7}, untouched[12];
    int e;
    fk_mat34_from_trs(fk_vec3_make(3, -2, 7), fk_quat_make(0.2f, 0.5f, -0.1f, 0.8f), fk_vec3_make(100, 2, -0.5f), m);
    CHECK(fk_mat34_inverse(m, inverse) == FK_OK, "inverse");
    fk_mat34_mul(inverse, m, product);
    for (e = 0; e < 12; ++e)
        CHECK(fabsf(product[e] - ((e % 5 == 0) ? 1.0f : 0.0f)) < 1e-5f, "inverse x m, element %d = %g", e, (double)product[e]);
    memcpy(untouched, inverse, sizeof untouched);
    CHECK(fk_mat34_inverse(singular, inverse) == FK_ERROR_NOT_RIGID && memcmp(untouched, inverse, sizeof untouched) == 0,
          "a singular matrix is reported and the output left alone");
}

/* ---- Rigged models: skinned vertices against assimp's own definition ----------- */

static void vector_of(const struct aiVector3D *v, double out[3])
{
    out[0] = (double)v->x; out[1] = (double)v->y; out[2] = (double)v->z;
}

static void quaternion_of(const struct aiQuaternion *q, double out[4])
{
    out[0] = (double)q->x; out[1] = (double)q->y; out[2] = (double)q->z; out[3] = (double)q->w;
}

/* The key at or before a time, and the fraction of the way to the next one (0 when
   the time is outside the keys, whose end values are then held). */
static unsigned key_before(const double *times, size_t stride, unsigned count, double ticks, double *fraction)
{
#define KEY_TIME(i) (*(const double *)(const void *)((const char *)times + (size_t)(i) * stride))
    unsigned k = 0;
    *fraction = 0.0;
    if (count == 1 || ticks <= KEY_TIME(0)) return 0;
    if (ticks >= KEY_TIME(count - 1)) return count - 1;
    while (KEY_TIME(k + 1) <= ticks) ++k;
    *fraction = (ticks - KEY_TIME(k)) / (KEY_TIME(k + 1) - KEY_TIME(k));
    return k;
#undef KEY_TIME
}

static void sample_vector(const struct aiVectorKey *keys, unsigned count, double ticks, double out[3])
{
    double f, a[3], b[3];
    unsigned k = key_before(&keys[0].mTime, sizeof keys[0], count, ticks, &f), e;
    vector_of(&keys[k].mValue, a);
    if (f == 0.0) { memcpy(out, a, sizeof a); return; }
    vector_of(&keys[k + 1].mValue, b);
    for (e = 0; e < 3; ++e) out[e] = a[e] + f * (b[e] - a[e]);
}

static void sample_rotation(const struct aiQuatKey *keys, unsigned count, double ticks, double out[4])
{
    double a[4], b[4], f, dot, n = 0.0, wa = 1.0, wb = 0.0;
    unsigned k = key_before(&keys[0].mTime, sizeof keys[0], count, ticks, &f), e;
    quaternion_of(&keys[k].mValue, a);
    memset(b, 0, sizeof b);
    if (f != 0.0) {
        quaternion_of(&keys[k + 1].mValue, b);
        dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
        if (dot < 0.0) { for (e = 0; e < 4; ++e) b[e] = -b[e]; dot = -dot; }
        if (dot > 0.9999999) { wa = 1.0 - f; wb = f; }
        else {
            double angle = acos(dot);
            wa = sin((1.0 - f) * angle) / sin(angle);
            wb = sin(f * angle) / sin(angle);
        }
    }
    for (e = 0; e < 4; ++e) { out[e] = wa * a[e] + wb * b[e]; n += out[e] * out[e]; }
    for (e = 0; e < 4; ++e) out[e] /= sqrt(n);
}

static const struct aiNode *find_node(const struct aiNode *node, const char *name)
{
    unsigned c;
    if (strcmp(node->mName.data, name) == 0) return node;
    for (c = 0; c < node->mNumChildren; ++c) {
        const struct aiNode *found = find_node(node->mChildren[c], name);
        if (found) return found;
    }
    return NULL;
}

/* World matrix of a node at a time in ticks, walking up assimp's tree. */
static mat4 reference_node_world(const struct aiAnimation *animation, const struct aiNode *node, double ticks)
{
    mat4 local = mat4_of_assimp(&node->mTransformation);
    unsigned c;
    if (animation)
        for (c = 0; c < animation->mNumChannels; ++c) {
            const struct aiNodeAnim *channel = animation->mChannels[c];
            if (strcmp(channel->mNodeName.data, node->mName.data) == 0) {
                struct aiVector3D s0, p0;
                struct aiQuaternion r0;
                double t[3], q[4], s[3];
                aiDecomposeMatrix(&node->mTransformation, &s0, &r0, &p0);
                vector_of(&p0, t);
                quaternion_of(&r0, q);
                vector_of(&s0, s);
                if (channel->mNumPositionKeys) sample_vector(channel->mPositionKeys, channel->mNumPositionKeys, ticks, t);
                if (channel->mNumRotationKeys) sample_rotation(channel->mRotationKeys, channel->mNumRotationKeys, ticks, q);
                if (channel->mNumScalingKeys) sample_vector(channel->mScalingKeys, channel->mNumScalingKeys, ticks, s);
                local = mat4_trs(t, q, s);
                break;
            }
        }
    return node->mParent ? mat4_mul(reference_node_world(animation, node->mParent, ticks), local) : local;
}

/* sum_j w_j (world_j x offset_j) v for every vertex at a time, with the weights
   normalized (as rig_load() does, and says). It reads nothing that rig_load() made:
   assimp's bones, nodes and keys only. Returns the bounding-box diagonal. */
static double reference_skinned(const rig *model, double seconds, double *out)
{
    const struct aiMesh *mesh = model->mesh;
    double ticks = seconds * (model->animation && model->animation->mTicksPerSecond > 0 ? model->animation->mTicksPerSecond : 25.0);
    double *sums = (double *)calloc((size_t)model->vertex_count * 4, sizeof *sums); /* x y z and weight */
    box bounds = box_empty();
    int j, k, v;
    for (j = 0; j < (int)mesh->mNumBones; ++j) {
        const struct aiBone *bone = mesh->mBones[j];
        const struct aiNode *node = find_node(model->scene->mRootNode, bone->mName.data);
        mat4 skinning;
        if (!CHECK(node != NULL, "bone %s has no node", bone->mName.data)) continue;
        skinning = mat4_mul(reference_node_world(model->animation, node, ticks), mat4_of_assimp(&bone->mOffsetMatrix));
        for (k = 0; k < (int)bone->mNumWeights; ++k) {
            const struct aiVertexWeight *w = &bone->mWeights[k];
            const struct aiVector3D *p = &mesh->mVertices[w->mVertexId];
            const double *m = skinning.m, x = (double)p->x, y = (double)p->y, z = (double)p->z;
            double *sum = sums + 4 * w->mVertexId, weight = (double)w->mWeight;
            sum[0] += weight * (m[0] * x + m[1] * y + m[2] * z + m[3]);
            sum[1] += weight * (m[4] * x + m[5] * y + m[6] * z + m[7]);
            sum[2] += weight * (m[8] * x + m[9] * y + m[10] * z + m[11]);
            sum[3] += weight;
        }
    }
    for (v = 0; v < model->vertex_count; ++v) {
        for (k = 0; k < 3; ++k) out[3 * v + k] = sums[4 * v + k] / sums[4 * v + 3];
        box_add(&bounds, out + 3 * v);
    }
    free(sums);
    return box_diagonal(&bounds);
}

/* The library's skinned positions against the reference, at five times across the
   animation: the loop of rig_pose, written out (engine-form FK on the node tree,
   rig_skinning_at(), then LBS), and the same through fk_forward()'s convention
   (rig_pose_at(), fk_forward()), whose rigid transforms DQS also takes. */
static void model_test(const char *name, int expect_renormalized)
{
    char path[256], error[512];
    rig model;
    int t, v, rigid_vertices = 0, rigid_poses = 0;
    double largest = 0.0, largest_engine = 0.0, largest_dqs = 0.0, diagonal = 0.0;
    snprintf(path, sizeof path, MODELS "%s", name);
    if (!CHECK(rig_load(path, &model, error, sizeof error), "%s", error)) return;
    {
        fk_quat *q = (fk_quat *)malloc((size_t)model.joint_count * sizeof *q);
        fk_vec3 *d = (fk_vec3 *)malloc((size_t)model.joint_count * sizeof *d);
        fk_rigid *transforms = (fk_rigid *)malloc((size_t)model.joint_count * sizeof *transforms);
        fk_rigid *engine_transforms = (fk_rigid *)malloc((size_t)model.joint_count * sizeof *engine_transforms);
        float *engine_matrices = (float *)malloc((size_t)model.joint_count * 12 * sizeof *engine_matrices);
        float *skinned = (float *)malloc((size_t)model.vertex_count * 3 * sizeof *skinned);
        float *skinned_dqs = (float *)malloc((size_t)model.vertex_count * 3 * sizeof *skinned_dqs);
        double *reference = (double *)malloc((size_t)model.vertex_count * 3 * sizeof *reference);
        for (t = 0; t < 5; ++t) {
            double seconds = model.duration_seconds * t / 4.0;
            fk_skin_desc skin;
            fk_result result = rig_pose_at(&model, seconds, q, d);
            if (result == FK_OK) result = fk_forward(model.joint_count, model.parents, model.rest_joints, q, d, transforms);
            memset(&skin, 0, sizeof skin);
            skin.vertex_count = model.vertex_count; skin.influences = model.influences;
            skin.positions = model.positions; skin.joints = model.joints; skin.weights = model.weights;
            skin.transforms = transforms; skin.transform_count = model.joint_count; skin.out_positions = skinned;
            if (result == FK_OK) result = fk_skin_lbs(&skin);
            if (!CHECK(result == FK_OK, "%s at %g s: %s", name, seconds, fk_result_description(result))) break;
            diagonal = fmax(diagonal, reference_skinned(&model, seconds, reference));
            for (v = 0; v < model.vertex_count; ++v) {
                double mine[3] = {(double)skinned[3 * v], (double)skinned[3 * v + 1], (double)skinned[3 * v + 2]};
                largest = fmax(largest, distance3(mine, reference + 3 * v));
            }
            {
                fk_skin_desc engine = skin;
                const int rigid = rig_skinning_at(&model, seconds, engine_transforms, engine_matrices);
                if (!CHECK(rigid >= 0, "%s at %g s: rig_skinning_at", name, seconds)) break;
                rigid_poses += rigid;
                engine.transforms = rigid ? engine_transforms : NULL;
                engine.matrices = rigid ? NULL : engine_matrices;
                engine.out_positions = skinned_dqs;
                if (!CHECK(fk_skin_lbs(&engine) == FK_OK, "%s: LBS of the engine path", name)) break;
                for (v = 0; v < model.vertex_count; ++v) {
                    double mine[3] = {(double)skinned_dqs[3 * v], (double)skinned_dqs[3 * v + 1],
                                      (double)skinned_dqs[3 * v + 2]};
                    largest_engine = fmax(largest_engine, distance3(mine, reference + 3 * v));
                }
            }
            /* DQS blends differently, but a vertex on one bone moves rigidly with it
               under either method: those vertices check DQS against the same reference. */
            skin.out_positions = skinned_dqs;
            if (!CHECK(fk_skin_dqs(&skin) == FK_OK, "%s: DQS", name)) break;
            for (v = 0; v < model.vertex_count; ++v) {
                double mine[3] = {(double)skinned_dqs[3 * v], (double)skinned_dqs[3 * v + 1], (double)skinned_dqs[3 * v + 2]};
                int k, single = 0;
                for (k = 0; k < model.influences; ++k) single += model.weights[v * model.influences + k] > 0.99999f;
                if (!single) continue;
                largest_dqs = fmax(largest_dqs, distance3(mine, reference + 3 * v));
                rigid_vertices += t == 0;
            }
        }
        free(q); free(d); free(transforms); free(engine_transforms); free(engine_matrices); free(skinned);
        free(skinned_dqs); free(reference);
    }
    printf("   %-40s %5d vertices %3d joints, up to %d influences%s: largest error %.2e of its size\n", name,
           model.vertex_count, model.joint_count, model.influences,
           model.renormalized_vertices ? " (weights renormalized)" : "", largest / diagonal);
    printf("   %-40s engine path (%s): largest error %.2e of its size\n", "",
           rigid_poses == 5 ? "rigid transforms" : rigid_poses ? "rigid and matrices" : "skinning matrices",
           largest_engine / diagonal);
    printf("   %-40s %5d vertices on one bone: DQS largest error %.2e of its size\n", "", rigid_vertices,
           largest_dqs / diagonal);
    CHECK(largest_dqs / diagonal <= FLOAT_PRECISION, "%s: DQS moves single-bone vertices off by %.3g", name,
          largest_dqs / diagonal);
    CHECK((model.renormalized_vertices > 0) == expect_renormalized, "%s: %d vertices renormalized", name,
          model.renormalized_vertices);
    CHECK(largest / diagonal <= FLOAT_PRECISION, "%s: skinned vertices differ from assimp's definition by %.3g of its size",
          name, largest / diagonal);
    CHECK(largest_engine / diagonal <= FLOAT_PRECISION,
          "%s: the engine path's vertices differ from assimp's definition by %.3g of its size", name,
          largest_engine / diagonal);
    rig_free(&model);
}

/* ---- The examples' dumps, read back from the programs themselves --------------- */

static char build_directory[512] = "build";
#ifndef TEST_DATA_DIR /* the Makefile passes the source tree's, whatever the build directory */
#define TEST_DATA_DIR "tests/data"
#endif
static const char data_directory[] = TEST_DATA_DIR;

/* Runs an example and returns its whole standard output (NULL if it failed). */
static char *run_example(const char *arguments)
{
    char command[1024], *text = NULL;
    size_t length = 0, capacity = 0, n;
    FILE *pipe;
    snprintf(command, sizeof command, "%s/%s", build_directory, arguments);
    pipe = popen(command, "r");
    if (!pipe) return NULL;
    for (;;) {
        if (capacity - length < 65536) {
            capacity = capacity ? 2 * capacity : 1 << 20;
            text = (char *)realloc(text, capacity + 1);
        }
        n = fread(text + length, 1, capacity - length, pipe);
        if (n == 0) break;
        length += n;
    }
    text[length] = '\0';
    if (pclose(pipe) != 0) { free(text); return NULL; }
    return text;
}

/* bvh_pose --dump-joints against the matrix chains: every ROOT and JOINT, in file
   order, End Sites left out, for the frames asked for. */
static void bvh_pose_dump_test(const char *name)
{
    char path[256], arguments[512], error[512], *dump, *line;
    int frames[4], f, j, lines = 0;
    double largest = 0.0, diagonal = 0.0;
    bvh_file file;
    mat4 *world;
    double (*reference)[3];
    snprintf(path, sizeof path, MODELS "BVH/%s", name);
    if (!CHECK(bvh_load(path, &file, error, sizeof error), "%s", error)) return;
    frames[0] = 0; frames[1] = 7; frames[2] = file.frame_count / 2; frames[3] = file.frame_count - 1;
    snprintf(arguments, sizeof arguments, "bvh_pose %s --frames %d,%d,%d,%d --dump-joints", path, frames[0], frames[1],
             frames[2], frames[3]);
    dump = run_example(arguments);
    world = (mat4 *)malloc((size_t)file.joint_count * sizeof *world);
    reference = (double (*)[3])malloc((size_t)file.joint_count * sizeof *reference);
    if (CHECK(dump != NULL, "%s/%s failed (make examples builds it)", build_directory, arguments)) {
        line = dump;
        for (f = 0; f < 4; ++f) {
            box bounds = box_empty();
            bvh_reference_joints(&file, frames[f], world, reference);
            for (j = 0; j < file.joint_count; ++j) {
                int frame = -1, used = 0;
                char joint[128] = "";
                double mine[3] = {0, 0, 0};
                box_add(&bounds, reference[j]);
                if (file.joints[j].is_end_site) continue;
                if (sscanf(line, "%d %127s %lf %lf %lf%n", &frame, joint, &mine[0], &mine[1], &mine[2], &used) != 5 ||
                    frame != frames[f] || strcmp(joint, file.joints[j].name) != 0) {
                    CHECK(0, "%s: line %d is '%.60s', expected frame %d joint %s", name, lines + 1, line, frames[f],
                          file.joints[j].name);
                    f = 4;
                    break;
                }
                largest = fmax(largest, distance3(mine, reference[j]));
                line += used;
                while (*line == '\n') line++;
                lines++;
            }
            diagonal = fmax(diagonal, box_diagonal(&bounds));
        }
        CHECK(*line == '\0', "%s: more lines than joints", name);
        printf("   bvh_pose --dump-joints %-16s %3d lines: largest error %.2e of the pose's size\n", name, lines,
               largest / diagonal);
        CHECK(largest / diagonal <= FLOAT_PRECISION, "%s: the dump differs by %.3g", name, largest / diagonal);
    }
    free(dump); free(world); free(reference);
    bvh_free(&file);
}

/* rig_pose --dump-vertices against the reference, at two times, with --method lbs. */
static void rig_pose_dump_test(const char *name)
{
    char path[700], arguments[1024], error[512];
    rig model;
    int t, v;
    if (strncmp(name, data_directory, strlen(data_directory)) == 0) snprintf(path, sizeof path, "%s", name); /* ours */
    else snprintf(path, sizeof path, MODELS "%s", name);
    if (!CHECK(rig_load(path, &model, error, sizeof error), "%s", error)) return;
    for (t = 1; t <= 2; ++t) {
        double seconds = model.duration_seconds * t / 3.0, largest = 0.0, diagonal;
        double *reference = (double *)malloc((size_t)model.vertex_count * 3 * sizeof *reference);
        char *dump, *line;
        snprintf(arguments, sizeof arguments, "rig_pose %s --time %.17g --method lbs --dump-vertices", path, seconds);
        dump = run_example(arguments);
        diagonal = reference_skinned(&model, seconds, reference);
        if (CHECK(dump != NULL, "%s/%s failed (make examples builds it)", build_directory, arguments)) {
            line = dump;
            for (v = 0; v < model.vertex_count; ++v) {
                double mine[3];
                int used = 0;
                if (!CHECK(sscanf(line, "%lf %lf %lf%n", &mine[0], &mine[1], &mine[2], &used) == 3, "%s: vertex %d missing",
                           name, v))
                    break;
                largest = fmax(largest, distance3(mine, reference + 3 * v));
                line += used;
                while (*line == '\n') line++;
            }
            CHECK(*line == '\0', "%s: more lines than vertices", name);
            printf("   rig_pose --dump-vertices %-34s at %.3f s: largest error %.2e of its size\n", name, seconds,
                   largest / diagonal);
            CHECK(largest / diagonal <= FLOAT_PRECISION, "%s: the dump differs by %.3g", name, largest / diagonal);
        }
        free(dump); free(reference);
    }
    rig_free(&model);
}

/* Any number of frames, and ranges: every 25th of 01_01.bvh's 2752 frames is 111
   frames, each dumped with its 31 joints (end sites are not dumped). */
static void bvh_pose_takes_any_number_of_frames(void)
{
    char *dump = run_example("bvh_pose " MODELS "BVH/01_01.bvh --frames 0-2751/25 --dump-joints"), *line;
    int lines = 0, frames = 0, last = -1, frame;
    if (!CHECK(dump != NULL, "bvh_pose with 111 frames failed")) return;
    for (line = dump; *line; ++lines) {
        if (sscanf(line, "%d", &frame) == 1 && frame != last) { ++frames; last = frame; }
        line = strchr(line, '\n');
        if (!line) break;
        ++line;
    }
    CHECK(frames == 111 && last == 2750, "%d frames dumped, the last %d", frames, last);
    CHECK(lines == 111 * 31, "%d lines, not 111 x 31", lines);
    free(dump);
}

/* examples/retarget.c on a CMU clip: the line it prints about the foot
   contacts, with and without the reference pose. */
typedef struct feet_report {
    int contacts, reached;
    double before, worst_before, after, worst_after;
} feet_report;

static int retarget_feet(const char *clip, const char *options, feet_report *r)
{
    char arguments[512], *out, *line;
    int ok;
    snprintf(arguments, sizeof arguments, "retarget " MODELS "BVH/%s %s", clip, options);
    out = run_example(arguments);
    line = out ? strstr(out, "foot contacts: ") : NULL;
    ok = line && sscanf(line,
                        "foot contacts: %d; from the source's foot (scaled): mean %lf cm, worst %lf cm by rotations "
                        "alone; mean %lf cm, worst %lf cm with fk_retarget_foot (%d reached)",
                        &r->contacts, &r->before, &r->worst_before, &r->after, &r->worst_after, &r->reached) == 6;
    free(out);
    return ok;
}

/* fk_retarget_foot() on real motion: the character's contact feet land where
   the clip's are (scaled from the hips) far closer than the rotations alone
   put them, most of them exactly; without the reference pose the legs cross
   and the rotations alone miss by several times more. */
static void retarget_plants_cmu_feet(const char *clip)
{
    feet_report with, without;
    if (!CHECK(retarget_feet(clip, "", &with) && retarget_feet(clip, "--no-reference", &without),
               "retarget %s failed or printed no contact line", clip))
        return;
    printf("   retarget %-10s %d contacts: %.2f cm by rotations alone (%.2f without the reference), %.4f cm "
           "planted, %d reached\n", clip, with.contacts, with.before, without.before, with.after, with.reached);
    CHECK(with.contacts > 1000, "%s: only %d contacts", clip, with.contacts);
    CHECK(with.after < 0.1 * with.before && with.worst_after < with.worst_before,
          "%s: planted feet %.4f cm off (worst %.4f), the rotations alone %.4f (worst %.4f)", clip, with.after,
          with.worst_after, with.before, with.worst_before);
    CHECK(2 * with.reached > with.contacts, "%s: %d of %d contacts reached", clip, with.reached, with.contacts);
    CHECK(without.before > 3 * with.before, "%s: without the reference %.2f cm off, with it %.2f", clip,
          without.before, with.before);
}

static void retarget_plants_cmu_feet_01_01(void) { retarget_plants_cmu_feet("01_01.bvh"); }
static void retarget_plants_cmu_feet_01_03(void) { retarget_plants_cmu_feet("01_03.bvh"); }

static void bvh_pose_dumps_match_01_01(void) { bvh_pose_dump_test("01_01.bvh"); }
static void bvh_pose_dumps_match_01_03(void) { bvh_pose_dump_test("01_03.bvh"); }
static void bvh_pose_dumps_match_boxing_toes(void) { bvh_pose_dump_test("Boxing_Toes.bvh"); }
/* A limb whose bones stretch, squash and scale non-uniformly under an armature
   scaled by 0.5, made with Blender (tests/data/scaled_limb.py): rig_pose skins it
   with the joints' skinning matrices, and its dump is glTF's skinned vertex. */
static void rig_pose_dumps_match_a_rig_with_scale(void)
{
    char path[700];
    snprintf(path, sizeof path, "%s/scaled_limb.gltf", data_directory);
    rig_pose_dump_test(path);
}

/* rig_pose --dqs-center: the same limb under DQS with its scale centred at the
   vertex (the default, later Blender) and at each bone (Blender 3.4) moves the
   vertices apart; LBS and rigid poses take no centre, and a centre it does not
   name is refused. */
static void rig_pose_dqs_center_picks_the_blender_version(void)
{
    static const char *const runs[] = {"--method dqs", "--method dqs --dqs-center vertex", "--method dqs --dqs-center bone",
                                       "--method lbs", "--method lbs --dqs-center bone"};
    char arguments[1024], *dumps[5];
    double largest = 0.0, lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30}, size = 0.0;
    const char *a, *b;
    int r, e, vertices = 0;
    for (r = 0; r < 5; ++r) {
        snprintf(arguments, sizeof arguments, "rig_pose %s/scaled_limb.gltf --time 0.4 %s --dump-vertices", data_directory,
                 runs[r]);
        dumps[r] = run_example(arguments);
        CHECK(dumps[r] != NULL, "%s/%s failed", build_directory, arguments);
    }
    if (dumps[0] && dumps[1] && dumps[2] && dumps[3] && dumps[4]) {
        CHECK(strcmp(dumps[0], dumps[1]) == 0, "the default centre is not the vertex");
        CHECK(strcmp(dumps[3], dumps[4]) == 0, "--dqs-center changed LBS");
        for (a = dumps[1], b = dumps[2]; *a && *b; ++vertices) { /* vertex against bone */
            double p[3], q[3], d = 0.0;
            int used_a = 0, used_b = 0;
            if (!CHECK(sscanf(a, "%lf %lf %lf%n", &p[0], &p[1], &p[2], &used_a) == 3 &&
                           sscanf(b, "%lf %lf %lf%n", &q[0], &q[1], &q[2], &used_b) == 3,
                       "unreadable dump at vertex %d", vertices))
                break;
            for (e = 0; e < 3; ++e) {
                d += (p[e] - q[e]) * (p[e] - q[e]);
                lo[e] = fmin(lo[e], p[e]);
                hi[e] = fmax(hi[e], p[e]);
            }
            largest = fmax(largest, sqrt(d));
            a += used_a;
            b += used_b;
            while (*a == '\n') ++a;
            while (*b == '\n') ++b;
        }
        for (e = 0; e < 3; ++e) size += (hi[e] - lo[e]) * (hi[e] - lo[e]);
        size = sqrt(size);
        printf("   rig_pose --dqs-center bone against vertex, %d vertices: apart by up to %.3g of the limb's size\n",
               vertices, largest / size);
        CHECK(vertices == 296 && *a == '\0' && *b == '\0', "the dumps hold %d vertices, not 296 each", vertices);
        CHECK(largest > 500.0 * FLOAT_PRECISION * size, "the centres give the same limb to %.3g of its size",
              largest / size); /* far above rounding: the option reached the skinning */
    }
    for (r = 0; r < 5; ++r) free(dumps[r]);
    snprintf(arguments, sizeof arguments, "rig_pose %s/scaled_limb.gltf --method dqs --dqs-center joint 2>/dev/null",
             data_directory);
    dumps[0] = run_example(arguments);
    CHECK(dumps[0] == NULL, "rig_pose took --dqs-center joint");
    free(dumps[0]);
}

/* The pictures `make demo-images` draws from real data, and those of CoR that
   `make demo` adds, keep their labels inside their panels: the renderer reports
   on stderr any that runs past an edge. bvh_pose runs once, with its CoR row,
   whose other rows are the picture without it. */
static void real_data_pictures_keep_their_text_inside(void)
{
    static const char *const runs[] = {
        "rig_pose " MODELS "X/Testwuson.X --time 0.5 --png %s/test_realdata_out/testwuson.png",
        "rig_pose " TEST_DATA_DIR "/scaled_limb.gltf --time 0.4 --method dqs --png %s/test_realdata_out/limb.png",
        "bvh_pose " MODELS "BVH/Boxing_Toes.bvh --frames 0,400,800,1200,1600,2000 --cor "
        "--png %s/test_realdata_out/boxing_cor.png",
        "rig_pose " TEST_DATA_DIR "/scaled_limb.gltf --time 0.4 --method cor --png %s/test_realdata_out/limb_cor.png",
        "retarget " MODELS "BVH/01_01.bvh --frames 0,500,1000,1500,2000,2600 --png %s/test_realdata_out/retarget.png"};
    char arguments[1024], *output;
    int r;
    for (r = 0; r < (int)(sizeof runs / sizeof runs[0]); ++r) {
        snprintf(arguments, sizeof arguments, runs[r], build_directory);
        strcat(arguments, " 2>&1");
        output = run_example(arguments);
        if (CHECK(output != NULL, "%s/%s failed", build_directory, arguments)) {
            const char *cut = strstr(output, "text cut off");
            CHECK(cut == NULL, "%.*s", cut ? (int)strcspn(cut, "\n") : 0, cut ? cut : "");
            CHECK(strstr(output, "wrote ") != NULL, "%s wrote no picture", arguments);
        }
        free(output);
    }
}

/* rig_pose --method cor against --method lbs: a vertex weighted to one joint
   has its own position as its centre and moves as LBS moves it (to rounding:
   CoR of a pose with scale goes through the space of the rest frames and
   back); the others move apart, far beyond rounding, so the option reached the
   skinning. On a rig with scale (the scaled limb) and a rigid one (Testwuson). */
static void rig_pose_cor_moves_one_joint_vertices_as_lbs(const char *path, double seconds)
{
    char arguments[1024], error[512], *lbs, *cor;
    const char *a, *b;
    double single = 0.0, blended = 0.0, diagonal, *reference;
    rig model;
    int v, k, singles = 0;
    if (!CHECK(rig_load(path, &model, error, sizeof error), "%s", error)) return;
    reference = (double *)malloc((size_t)model.vertex_count * 3 * sizeof *reference);
    diagonal = reference_skinned(&model, seconds, reference);
    snprintf(arguments, sizeof arguments, "rig_pose %s --time %.17g --method lbs --dump-vertices", path, seconds);
    lbs = run_example(arguments);
    snprintf(arguments, sizeof arguments, "rig_pose %s --time %.17g --method cor --dump-vertices", path, seconds);
    cor = run_example(arguments);
    if (CHECK(lbs && cor, "rig_pose --dump-vertices failed on %s", path)) {
        for (v = 0, a = lbs, b = cor; v < model.vertex_count; ++v) {
            double p[3], q[3], largest_weight = 0.0, d;
            int used_a = 0, used_b = 0;
            if (!CHECK(sscanf(a, "%lf %lf %lf%n", &p[0], &p[1], &p[2], &used_a) == 3 &&
                           sscanf(b, "%lf %lf %lf%n", &q[0], &q[1], &q[2], &used_b) == 3,
                       "%s: vertex %d missing", path, v))
                break;
            for (k = 0; k < model.influences; ++k)
                largest_weight = fmax(largest_weight, (double)model.weights[model.influences * v + k]);
            d = distance3(p, q);
            if (largest_weight == 1.0) {
                single = fmax(single, d);
                ++singles;
            } else {
                blended = fmax(blended, d);
            }
            for (a += used_a; *a == '\n'; ++a) continue;
            for (b += used_b; *b == '\n'; ++b) continue;
        }
        printf("   rig_pose --method cor against lbs, %s: %d one-joint vertices within %.2e of its size, the others "
               "apart by up to %.3g\n", path, singles, single / diagonal, blended / diagonal);
        CHECK(singles > 0, "%s: no vertex is weighted to one joint", path);
        CHECK(single / diagonal <= FLOAT_PRECISION, "%s: CoR moves one-joint vertices %.3g of its size from LBS", path,
              single / diagonal);
        CHECK(blended / diagonal > 500.0 * FLOAT_PRECISION, "%s: CoR is LBS to %.3g of its size", path,
              blended / diagonal);
    }
    free(lbs); free(cor); free(reference);
    rig_free(&model);
}

static void rig_pose_cor_on_a_rig_with_scale(void)
{
    char path[700];
    snprintf(path, sizeof path, "%s/scaled_limb.gltf", data_directory);
    rig_pose_cor_moves_one_joint_vertices_as_lbs(path, 0.4);
}

static void rig_pose_cor_on_testwuson(void) { rig_pose_cor_moves_one_joint_vertices_as_lbs(MODELS "X/Testwuson.X", 0.5); }

static void rig_pose_dumps_match_gltf(void) { rig_pose_dump_test("glTF2/simple_skin/simple_skin.gltf"); }
static void rig_pose_dumps_match_x(void) { rig_pose_dump_test("X/Testwuson.X"); rig_pose_dump_test("X/BCN_Epileptic.X"); }
static void rig_pose_dumps_match_fbx(void) { rig_pose_dump_test("FBX/animation_with_skeleton.fbx"); rig_pose_dump_test("FBX/huesitos.fbx"); }

static void gltf_simple_skin_matches_assimp(void) { model_test("glTF2/simple_skin/simple_skin.gltf", 0); }
/* The X files write weights with six decimals, so a few vertices' sums miss one by
   more than float rounding and fk_weights_repair() renormalizes them (by ~1e-5);
   the FBX files' sums are off by up to 40%. */
static void x_bcn_epileptic_matches_assimp(void) { model_test("X/BCN_Epileptic.X", 1); }
static void x_testwuson_matches_assimp(void) { model_test("X/Testwuson.X", 1); }
static void fbx_animation_with_skeleton_matches_assimp(void) { model_test("FBX/animation_with_skeleton.fbx", 1); }
static void fbx_huesitos_matches_assimp(void) { model_test("FBX/huesitos.fbx", 1); }


/* ---- Skinned bounds on the real models -------------------------------------
   fk_skin_bounds_lbs() and fk_skin_bounds_dqs() must hold every vertex the
   skinning writes (to rounding: 1e-5 of the model's size); how tight they are
   is printed, as the ratio of each box's volume, and of its diagonal, to the
   exact box of the skinned vertices, the worst of five poses over the
   animation (docs/gpu.md's table). */
static void bounds_test(const char *name)
{
    char path[512], error[256];
    rig model;
    fk_bone_bounds *records;
    fk_quat *q;
    fk_vec3 *d;
    fk_rigid *transforms;
    float *skinned;
    double worst_volume[2] = {0.0, 0.0}, worst_extent[2] = {0.0, 0.0};
    int t, v, e, method, overflowed = 0;
    snprintf(path, sizeof path, MODELS "%s", name);
    if (!CHECK(rig_load(path, &model, error, sizeof error), "%s", error)) return;
    records = (fk_bone_bounds *)malloc((size_t)model.joint_count * sizeof *records);
    q = (fk_quat *)malloc((size_t)model.joint_count * sizeof *q);
    d = (fk_vec3 *)malloc((size_t)model.joint_count * sizeof *d);
    transforms = (fk_rigid *)malloc((size_t)model.joint_count * sizeof *transforms);
    skinned = (float *)malloc((size_t)model.vertex_count * 3 * sizeof *skinned);
    for (t = 0; t < 5; ++t) {
        fk_skin_desc skin;
        fk_result result = rig_pose_at(&model, model.duration_seconds * t / 4.0, q, d);
        if (result == FK_OK) result = fk_forward(model.joint_count, model.parents, model.rest_joints, q, d, transforms);
        memset(&skin, 0, sizeof skin);
        skin.vertex_count = model.vertex_count; skin.influences = model.influences;
        skin.positions = model.positions; skin.joints = model.joints; skin.weights = model.weights;
        skin.transforms = transforms; skin.transform_count = model.joint_count; skin.out_positions = skinned;
        if (t == 0 && result == FK_OK) result = fk_skin_bounds_prepare(&skin, records);
        if (!CHECK(result == FK_OK, "%s: %s", name, fk_result_description(result))) break;
        for (method = 0; method < 2; ++method) {
            fk_bounds b;
            double lo[3], hi[3], size = 0.0, volume = 1.0, exact_volume = 1.0, extent = 0.0, exact_extent = 0.0, outside = 0.0;
            result = method ? fk_skin_bounds_dqs(&skin, records, &b) : fk_skin_bounds_lbs(&skin, records, &b);
            if (result == FK_OK) result = method ? fk_skin_dqs(&skin) : fk_skin_lbs(&skin);
            if (!CHECK(result == FK_OK, "%s: %s", name, fk_result_description(result))) break;
            for (e = 0; e < 3; ++e) lo[e] = hi[e] = (double)skinned[e];
            for (v = 0; v < model.vertex_count; ++v)
                for (e = 0; e < 3; ++e) {
                    lo[e] = fmin(lo[e], (double)skinned[3 * v + e]);
                    hi[e] = fmax(hi[e], (double)skinned[3 * v + e]);
                }
            for (e = 0; e < 3; ++e) size = fmax(size, hi[e] - lo[e]);
            {
                const double blo[3] = {(double)b.min.x, (double)b.min.y, (double)b.min.z};
                const double bhi[3] = {(double)b.max.x, (double)b.max.y, (double)b.max.z};
                const double centre[3] = {(double)b.center.x, (double)b.center.y, (double)b.center.z};
                for (v = 0; v < model.vertex_count; ++v) {
                    double distance2 = 0.0;
                    for (e = 0; e < 3; ++e) {
                        const double x = (double)skinned[3 * v + e];
                        outside = fmax(outside, fmax(blo[e] - x, x - bhi[e]));
                        distance2 += (x - centre[e]) * (x - centre[e]);
                    }
                    outside = fmax(outside, sqrt(distance2) - (double)b.radius);
                }
                /* a flat model's zero extents count as 1e-3 of its size in both
                   boxes, so that the ratio stays finite */
                for (e = 0; e < 3; ++e) {
                    volume *= fmax(bhi[e] - blo[e], 1e-3 * size);
                    exact_volume *= fmax(hi[e] - lo[e], 1e-3 * size);
                    extent += (bhi[e] - blo[e]) * (bhi[e] - blo[e]);
                    exact_extent += (hi[e] - lo[e]) * (hi[e] - lo[e]);
                }
                extent = sqrt(extent / exact_extent);
            }
            CHECK(outside <= 1e-5 * size, "%s: a vertex is %.3g outside the %s bounds", name, outside, method ? "DQS" : "LBS");
            worst_volume[method] = fmax(worst_volume[method], volume / exact_volume);
            worst_extent[method] = fmax(worst_extent[method], extent);
        }
    }
    for (v = 0; v < model.joint_count; ++v) overflowed += records[v].partner_count < 0;
    printf("   %-38s %3d joints (%d beyond %d partners): box / exact box, volume LBS %.2f DQS %.2f, "
           "diagonal LBS %.3f DQS %.3f\n", name, model.joint_count, overflowed, FK_BOUNDS_PARTNERS,
           worst_volume[0], worst_volume[1], worst_extent[0], worst_extent[1]);
    free(records); free(q); free(d); free(transforms); free(skinned);
    rig_free(&model);
}

static void skinned_bounds_hold_the_real_models(void)
{
    bounds_test("glTF2/simple_skin/simple_skin.gltf");
    bounds_test("X/BCN_Epileptic.X");
    bounds_test("X/Testwuson.X");
    bounds_test("FBX/animation_with_skeleton.fbx");
    bounds_test("FBX/huesitos.fbx");
}

/* ---- Blender's Armature modifier on a rig with scale -------------------------
   tests/data/blender_scaled_rig.txt holds a four-bone rig posed with rotations
   and scale along, across and against its bones (one mirrored), 130 vertices
   on two bones each, and what Debian's Blender 3.4.1 made of them with
   Preserve Volume (its DQS with scale) and without (LBS); the script that
   wrote it sits beside it. The bones' skinning matrices are M = P R^-1 (pose
   and rest frames, in the armature's space) and their bind poses R. */

static void blender_preserve_volume_matches_fk_skin_dqs(void)
{
    enum { BONES = 4, VERTICES = 130 };
    static float positions[VERTICES][3], weights[VERTICES][2], blender_dqs[VERTICES][3], blender_lbs[VERTICES][3];
    static float out[VERTICES][3];
    static uint16_t joints[VERTICES][2];
    float matrices[BONES][12], rest[BONES][12], pose[BONES][12], inverse[12], unscaled[BONES][12];
    fk_rigid bind_poses[BONES];
    char path[640], word[16];
    double low[3] = {1e30, 1e30, 1e30}, high[3] = {-1e30, -1e30, -1e30}, size, worst_dqs = 0, worst_lbs = 0;
    double ignoring_scale = 0, at_vertex = 0;
    int bones = 0, vertices = 0, b, v, e, method;
    fk_skin_desc d;
    FILE *f;
    snprintf(path, sizeof path, "%s/blender_scaled_rig.txt", data_directory);
    f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    if (!f) return;
    while (fgetc(f) != '\n') {} /* the comment line */
    CHECK(fscanf(f, "%15s %d", word, &bones) == 2 && bones == BONES, "bone count");
    for (b = 0; b < BONES; ++b) {
        CHECK(fscanf(f, "%15s", word) == 1, "rest");
        for (e = 0; e < 12; ++e) CHECK(fscanf(f, "%f", &rest[b][e]) == 1, "rest matrix");
        CHECK(fscanf(f, "%15s", word) == 1, "pose");
        for (e = 0; e < 12; ++e) CHECK(fscanf(f, "%f", &pose[b][e]) == 1, "pose matrix");
    }
    CHECK(fscanf(f, "%15s %d", word, &vertices) == 2 && vertices == VERTICES, "vertex count");
    for (v = 0; v < VERTICES; ++v) {
        int j0, j1;
        CHECK(fscanf(f, "%15s %f %f %f %d %f %d %f %f %f %f %f %f %f", word, &positions[v][0], &positions[v][1],
                     &positions[v][2], &j0, &weights[v][0], &j1, &weights[v][1], &blender_dqs[v][0], &blender_dqs[v][1],
                     &blender_dqs[v][2], &blender_lbs[v][0], &blender_lbs[v][1], &blender_lbs[v][2]) == 14,
              "vertex %d", v);
        joints[v][0] = (uint16_t)j0; joints[v][1] = (uint16_t)j1;
        for (e = 0; e < 3; ++e) {
            double x = (double)blender_dqs[v][e];
            if (x < low[e]) low[e] = x;
            if (x > high[e]) high[e] = x;
        }
    }
    fclose(f);
    size = sqrt((high[0] - low[0]) * (high[0] - low[0]) + (high[1] - low[1]) * (high[1] - low[1]) +
                (high[2] - low[2]) * (high[2] - low[2]));
    for (b = 0; b < BONES; ++b) {
        CHECK(fk_mat34_inverse(rest[b], inverse) == FK_OK, "rest frame %d inverts", b);
        fk_mat34_mul(pose[b], inverse, matrices[b]);
        bind_poses[b] = fk_rigid_from_mat34(rest[b]);
        /* the same bones with their scale taken out: each pose frame's rotation */
        {
            float posed_rigid[12];
            fk_rigid r = fk_rigid_from_mat34(pose[b]);
            fk_rigid_to_mat34(fk_rigid_make(fk_quat_normalize(r.q), r.t), posed_rigid);
            fk_mat34_mul(posed_rigid, inverse, unscaled[b]);
        }
    }
    memset(&d, 0, sizeof d);
    d.vertex_count = VERTICES; d.influences = 2;
    d.positions = &positions[0][0]; d.joints = &joints[0][0]; d.weights = &weights[0][0];
    d.matrices = &matrices[0][0]; d.bind_poses = bind_poses; d.transform_count = BONES;
    d.dqs_scale_center = FK_DQS_SCALE_AT_BONE; /* Blender 3.4's */
    d.out_positions = &out[0][0];
    for (method = 0; method < 4; ++method) {
        double *worst = method == 0 ? &worst_dqs : method == 1 ? &worst_lbs : method == 2 ? &ignoring_scale : &at_vertex;
        float(*expected)[3] = method == 1 ? blender_lbs : blender_dqs;
        if (method == 3) { d.matrices = &matrices[0][0]; d.dqs_scale_center = FK_DQS_SCALE_AT_VERTEX; }
        if (method == 2) d.matrices = &unscaled[0][0];
        CHECK((method == 1 ? fk_skin_lbs(&d) : fk_skin_dqs(&d)) == FK_OK, "method %d failed", method);
        for (v = 0; v < VERTICES; ++v)
            for (e = 0; e < 3; ++e)
                if (fabs((double)out[v][e] - (double)expected[v][e]) > *worst)
                    *worst = fabs((double)out[v][e] - (double)expected[v][e]);
    }
    printf("   Blender 3.4.1 rig with scale (size %.2f): fk_skin_dqs (scale at the bones) %.2g from Preserve Volume, "
           "fk_skin_lbs %.2g from LBS; from Preserve Volume: scale at the vertex %.2g, DQS of the bones without "
           "their scale %.2g\n", size, worst_dqs, worst_lbs, at_vertex, ignoring_scale);
    CHECK(worst_dqs <= FLOAT_PRECISION * size, "fk_skin_dqs is %g from Blender's Preserve Volume", worst_dqs);
    CHECK(worst_lbs <= FLOAT_PRECISION * size, "fk_skin_lbs is %g from Blender's LBS", worst_lbs);
    CHECK(ignoring_scale > 0.05 * size, "leaving the scale out changes little (%g): the rig shows nothing", ignoring_scale);
}

int main(int argc, char **argv)
{
    /* The examples sit next to this program: build/test_realdata -> build/bvh_pose. */
    const char *slash = argc > 0 ? strrchr(argv[0], '/') : NULL;
    if (slash && (size_t)(slash - argv[0]) < sizeof build_directory) {
        memcpy(build_directory, argv[0], (size_t)(slash - argv[0]));
        build_directory[slash - argv[0]] = '\0';
    }
    RUN_TEST(bvh_reader_reads_the_hierarchy_and_motion);
    RUN_TEST(bvh_reader_names_the_line_of_each_error);
    RUN_TEST(bvh_reader_takes_channel_free_frames_at_no_cost);
    RUN_TEST(bvh_reader_stays_inside_its_buffer);
    RUN_TEST(bridge_reproduces_engine_skinning_matrices);
    RUN_TEST(bridge_rotations_account_for_rotated_bind_poses);
    RUN_TEST(bridge_reports_scale_it_cannot_represent);
    RUN_TEST(engine_rig_with_scale_skins_in_the_space_of_its_rest_frames);
    RUN_TEST(mat44_layouts_are_transposes);
    RUN_TEST(mat34_inverse_undoes_an_affine_matrix);
    RUN_TEST(blender_preserve_volume_matches_fk_skin_dqs);
    RUN_TEST(rig_pose_dqs_center_picks_the_blender_version);
    RUN_TEST(rig_pose_cor_on_a_rig_with_scale);
    if (!have_file(MODELS "BVH/01_01.bvh")) {
        printf("SKIP the real-data tests: " MODELS " is missing (Debian package assimp-testmodels)\n");
        return check_finish();
    }
    RUN_TEST(bvh_joints_match_matrix_chains_01_01);
    RUN_TEST(bvh_joints_match_matrix_chains_01_03);
    RUN_TEST(bvh_joints_match_matrix_chains_boxing_toes);
    RUN_TEST(gltf_simple_skin_matches_assimp);
    RUN_TEST(x_bcn_epileptic_matches_assimp);
    RUN_TEST(x_testwuson_matches_assimp);
    RUN_TEST(fbx_animation_with_skeleton_matches_assimp);
    RUN_TEST(fbx_huesitos_matches_assimp);
    RUN_TEST(skinned_bounds_hold_the_real_models);
    RUN_TEST(bvh_pose_dumps_match_01_01);
    RUN_TEST(bvh_pose_takes_any_number_of_frames);
    RUN_TEST(bvh_pose_dumps_match_01_03);
    RUN_TEST(bvh_pose_dumps_match_boxing_toes);
    RUN_TEST(retarget_plants_cmu_feet_01_01);
    RUN_TEST(retarget_plants_cmu_feet_01_03);
    RUN_TEST(rig_pose_dumps_match_gltf);
    RUN_TEST(rig_pose_dumps_match_x);
    RUN_TEST(rig_pose_dumps_match_fbx);
    RUN_TEST(rig_pose_dumps_match_a_rig_with_scale);
    RUN_TEST(rig_pose_cor_on_testwuson);
    RUN_TEST(real_data_pictures_keep_their_text_inside);
    return check_finish();
}
