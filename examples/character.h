/* character.h - the procedural humanoid of character.c: skeleton, mesh, weights, poses.

   Shared by examples/character.c (which draws it) and the web page's module
   (examples/web/skin_web.c), so that both pose one character. Its mesh is built
   with render.h's tubes; the program links render.c. Functions are static inline
   so that a file may use some of them only. */
#ifndef FK_EXAMPLES_CHARACTER_H
#define FK_EXAMPLES_CHARACTER_H

#include "fk_lbs.h"
#include "render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979f
#define INFLUENCES 4

enum joint_name {
    PELVIS, SPINE, CHEST, NECK, HEAD, HEAD_TOP,
    L_CLAVICLE, L_SHOULDER, L_ELBOW, L_WRIST, L_HAND_TIP,
    R_CLAVICLE, R_SHOULDER, R_ELBOW, R_WRIST, R_HAND_TIP,
    L_HIP, L_KNEE, L_ANKLE, L_TOE,
    R_HIP, R_KNEE, R_ANKLE, R_TOE,
    JOINT_COUNT
};

/* Each joint: its parent, its rest position, and the joint its bone runs to (the
   segment used for weights); tips end a chain and carry no bone of their own. */
typedef struct joint_def {
    int parent;
    fk_vec3 rest;
    int bone_end; /* -1 for a tip */
} joint_def;

static const joint_def skeleton[JOINT_COUNT] = {
    [PELVIS] = {-1, {0, 0.98f, 0}, SPINE},
    [SPINE] = {PELVIS, {0, 1.12f, 0}, CHEST},
    [CHEST] = {SPINE, {0, 1.30f, 0}, NECK},
    [NECK] = {CHEST, {0, 1.50f, 0}, HEAD},
    [HEAD] = {NECK, {0, 1.60f, 0.01f}, HEAD_TOP},
    [HEAD_TOP] = {HEAD, {0, 1.82f, 0.01f}, -1},
    [L_CLAVICLE] = {CHEST, {0.03f, 1.44f, 0}, L_SHOULDER},
    [L_SHOULDER] = {L_CLAVICLE, {0.18f, 1.44f, 0}, L_ELBOW},
    [L_ELBOW] = {L_SHOULDER, {0.46f, 1.44f, 0}, L_WRIST},
    [L_WRIST] = {L_ELBOW, {0.71f, 1.44f, 0}, L_HAND_TIP},
    [L_HAND_TIP] = {L_WRIST, {0.87f, 1.44f, 0}, -1},
    [R_CLAVICLE] = {CHEST, {-0.03f, 1.44f, 0}, R_SHOULDER},
    [R_SHOULDER] = {R_CLAVICLE, {-0.18f, 1.44f, 0}, R_ELBOW},
    [R_ELBOW] = {R_SHOULDER, {-0.46f, 1.44f, 0}, R_WRIST},
    [R_WRIST] = {R_ELBOW, {-0.71f, 1.44f, 0}, R_HAND_TIP},
    [R_HAND_TIP] = {R_WRIST, {-0.87f, 1.44f, 0}, -1},
    [L_HIP] = {PELVIS, {0.10f, 0.94f, 0}, L_KNEE},
    [L_KNEE] = {L_HIP, {0.10f, 0.52f, 0.01f}, L_ANKLE},
    [L_ANKLE] = {L_KNEE, {0.10f, 0.10f, -0.01f}, L_TOE},
    [L_TOE] = {L_ANKLE, {0.10f, 0.03f, 0.15f}, -1},
    [R_HIP] = {PELVIS, {-0.10f, 0.94f, 0}, R_KNEE},
    [R_KNEE] = {R_HIP, {-0.10f, 0.52f, 0.01f}, R_ANKLE},
    [R_ANKLE] = {R_KNEE, {-0.10f, 0.10f, -0.01f}, R_TOE},
    [R_TOE] = {R_ANKLE, {-0.10f, 0.03f, 0.15f}, -1},
};

#define BIT(j) (1u << (j))

/* A body part: a tube along a few points, and the bones whose segments it may follow. */
typedef struct body_part {
    fk_vec3 path[5];
    float radii[5];
    int count;
    unsigned bones;
    float widen_x, flatten_z; /* an elliptic cross-section for the torso: x and z scales */
} body_part;

static const body_part body[] = {
    /* torso, pelvis to neck, wider than deep */
    {{{0, 0.86f, 0}, {0, 0.98f, 0}, {0, 1.14f, 0}, {0, 1.33f, 0}, {0, 1.46f, 0}}, {0.12f, 0.145f, 0.125f, 0.15f, 0.09f}, 5,
     BIT(PELVIS) | BIT(SPINE) | BIT(CHEST) | BIT(L_CLAVICLE) | BIT(R_CLAVICLE) | BIT(L_HIP) | BIT(R_HIP), 1.3f, 0.72f},
    {{{0, 1.44f, 0}, {0, 1.60f, 0.01f}}, {0.048f, 0.045f}, 2, BIT(CHEST) | BIT(NECK) | BIT(HEAD), 1, 1},
    {{{0, 1.70f, 0.015f}}, {0.105f}, 1, BIT(NECK) | BIT(HEAD), 1, 1},
    {{{0.12f, 1.44f, 0}, {0.18f, 1.44f, 0}, {0.46f, 1.44f, 0}, {0.71f, 1.44f, 0}, {0.84f, 1.44f, 0}},
     {0.06f, 0.058f, 0.043f, 0.034f, 0.03f}, 5, BIT(L_CLAVICLE) | BIT(L_SHOULDER) | BIT(L_ELBOW) | BIT(L_WRIST), 1, 1},
    {{{-0.12f, 1.44f, 0}, {-0.18f, 1.44f, 0}, {-0.46f, 1.44f, 0}, {-0.71f, 1.44f, 0}, {-0.84f, 1.44f, 0}},
     {0.06f, 0.058f, 0.043f, 0.034f, 0.03f}, 5, BIT(R_CLAVICLE) | BIT(R_SHOULDER) | BIT(R_ELBOW) | BIT(R_WRIST), 1, 1},
    {{{0.10f, 0.98f, 0}, {0.10f, 0.52f, 0.01f}, {0.10f, 0.10f, -0.01f}}, {0.085f, 0.058f, 0.042f}, 3,
     BIT(PELVIS) | BIT(L_HIP) | BIT(L_KNEE) | BIT(L_ANKLE), 1, 1},
    {{{-0.10f, 0.98f, 0}, {-0.10f, 0.52f, 0.01f}, {-0.10f, 0.10f, -0.01f}}, {0.085f, 0.058f, 0.042f}, 3,
     BIT(PELVIS) | BIT(R_HIP) | BIT(R_KNEE) | BIT(R_ANKLE), 1, 1},
    {{{0.10f, 0.05f, -0.04f}, {0.10f, 0.035f, 0.15f}}, {0.042f, 0.032f}, 2, BIT(L_KNEE) | BIT(L_ANKLE), 1, 1},
    {{{-0.10f, 0.05f, -0.04f}, {-0.10f, 0.035f, 0.15f}}, {0.042f, 0.032f}, 2, BIT(R_KNEE) | BIT(R_ANKLE), 1, 1},
};
#define PART_COUNT ((int)(sizeof body / sizeof body[0]))

typedef struct character {
    render_mesh mesh;
    uint16_t *joints;   /* INFLUENCES per vertex */
    float *weights;     /* INFLUENCES per vertex, summing to 1 */
    int parents[JOINT_COUNT];
    fk_vec3 rest[JOINT_COUNT];
} character;

static inline float distance_to_segment(fk_vec3 p, fk_vec3 a, fk_vec3 b)
{
    fk_vec3 ab = fk_vec3_sub(b, a);
    float t = fk_vec3_dot(fk_vec3_sub(p, a), ab) / fk_vec3_dot(ab, ab);
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    return fk_vec3_length(fk_vec3_sub(p, fk_vec3_add(a, fk_vec3_scale(ab, t))));
}

/* The weight rule. For a vertex p and each bone j its body part may follow, with d_j
   the distance from p to bone j's segment:
       w_j = 1 / (d_j^2 + s^2)^2          (inverse fourth power, smoothed by s = 1 cm)
   The 4 largest are kept and divided by their sum. The fourth power makes a
   vertex follow its nearest bone closely and blend only near joints, over a band
   about as wide as the limb; s keeps the weight finite on the segment itself. */
static inline void compute_weights(const fk_vec3 p, unsigned allowed, uint16_t *joints, float *weights)
{
    const float smoothing = 0.01f;
    float sum = 0.0f;
    int j, k;
    for (k = 0; k < INFLUENCES; ++k) {
        joints[k] = 0;
        weights[k] = 0.0f;
    }
    for (j = 0; j < JOINT_COUNT; ++j) {
        float d, w;
        if (!(allowed & BIT(j)) || skeleton[j].bone_end < 0) continue;
        d = distance_to_segment(p, skeleton[j].rest, skeleton[skeleton[j].bone_end].rest);
        w = 1.0f / ((d * d + smoothing * smoothing) * (d * d + smoothing * smoothing));
        for (k = INFLUENCES; k > 0 && w > weights[k - 1]; --k) { /* insertion into the sorted top 4 */
            if (k < INFLUENCES) {
                weights[k] = weights[k - 1];
                joints[k] = joints[k - 1];
            }
        }
        if (k < INFLUENCES) {
            weights[k] = w;
            joints[k] = (uint16_t)j;
        }
    }
    for (k = 0; k < INFLUENCES; ++k) sum += weights[k];
    for (k = 0; k < INFLUENCES; ++k) weights[k] /= sum;
}

static inline character make_character(void)
{
    character c;
    int part, i;
    memset(&c, 0, sizeof c);
    for (i = 0; i < JOINT_COUNT; ++i) {
        c.parents[i] = skeleton[i].parent;
        c.rest[i] = skeleton[i].rest;
    }
    for (part = 0; part < PART_COUNT; ++part) {
        const body_part *b = &body[part];
        int first = render_mesh_add_tube(&c.mesh, b->path, b->radii, b->count, 40, b->count == 1 ? 1 : 10);
        for (i = first; i < c.mesh.vertex_count; ++i) { /* squash the cross-section about the part's axis */
            float *p = c.mesh.positions + 3 * i, *n = c.mesh.normals + 3 * i;
            fk_vec3 normal;
            p[0] = b->path[0].x + (p[0] - b->path[0].x) * b->widen_x;
            p[2] = b->path[0].z + (p[2] - b->path[0].z) * b->flatten_z;
            if (b->count == 1) p[1] = b->path[0].y + (p[1] - b->path[0].y) * 1.18f; /* the head is taller than wide */
            normal = fk_vec3_normalize(fk_vec3_make(n[0] / b->widen_x, n[1] / (b->count == 1 ? 1.18f : 1.0f), n[2] / b->flatten_z));
            n[0] = normal.x;
            n[1] = normal.y;
            n[2] = normal.z;
        }
        c.joints = (uint16_t *)realloc(c.joints, (size_t)c.mesh.vertex_count * INFLUENCES * sizeof(uint16_t));
        c.weights = (float *)realloc(c.weights, (size_t)c.mesh.vertex_count * INFLUENCES * sizeof(float));
        if (!c.joints || !c.weights) exit(1);
        for (i = first; i < c.mesh.vertex_count; ++i)
            compute_weights(fk_vec3_make(c.mesh.positions[3 * i], c.mesh.positions[3 * i + 1], c.mesh.positions[3 * i + 2]),
                            b->bones, c.joints + INFLUENCES * i, c.weights + INFLUENCES * i);
    }
    return c;
}

/* Skins the character's mesh, positions and normals, with DQS for the posed bones. */
static inline fk_result skin_character(const character *c, const fk_rigid *bones, float *positions, float *normals)
{
    fk_skin_desc desc = {0};
    desc.vertex_count = c->mesh.vertex_count;
    desc.influences = INFLUENCES;
    desc.positions = c->mesh.positions;
    desc.normals = c->mesh.normals;
    desc.joints = c->joints;
    desc.weights = c->weights;
    desc.transforms = bones;
    desc.transform_count = JOINT_COUNT;
    desc.out_positions = positions;
    desc.out_normals = normals;
    return fk_skin_dqs(&desc);
}

/* ---- Poses: relative rotations in the parent's frame, in degrees ------------------- */

static inline fk_quat rotation_xyz(float x_degrees, float y_degrees, float z_degrees)
{
    fk_vec3 angles = fk_vec3_make(x_degrees * PI / 180.0f, y_degrees * PI / 180.0f, z_degrees * PI / 180.0f);
    return fk_quat_from_euler(angles, FK_EULER_ZYX); /* R = Rz Ry Rx: x acts first */
}

static inline void rest_pose(fk_quat *rotations)
{
    int i;
    for (i = 0; i < JOINT_COUNT; ++i) rotations[i] = fk_quat_identity();
}

/* Right arm up and waving (phase -1..1 tilts the forearm), left arm relaxed. */
static inline void wave_pose(fk_quat *rotations, float phase)
{
    rest_pose(rotations);
    rotations[R_SHOULDER] = rotation_xyz(0, 20, -30);
    rotations[R_ELBOW] = rotation_xyz(0, 0, -75.0f - 18.0f * phase);
    rotations[R_WRIST] = rotation_xyz(0, 0, -12.0f * phase);
    rotations[L_SHOULDER] = rotation_xyz(0, -10, -72);
    rotations[L_ELBOW] = rotation_xyz(0, -15, 0);
    rotations[NECK] = rotation_xyz(5, -8, -6);
    rotations[SPINE] = rotation_xyz(0, -6, 3);
}

/* A walk cycle at phase 0..1: legs swing about x, knees bend during the swing,
   arms swing against the legs and the chest turns against the pelvis. */
static inline void walk_pose(fk_quat *rotations, float phase)
{
    float angle = 2.0f * PI * phase;
    float left = sinf(angle), right = -left;
    float left_swing = cosf(angle) > 0.0f ? cosf(angle) : 0.0f, right_swing = cosf(angle) < 0.0f ? -cosf(angle) : 0.0f;
    rest_pose(rotations);
    rotations[PELVIS] = rotation_xyz(0, 6.0f * left, 0);
    rotations[CHEST] = rotation_xyz(4, -10.0f * left, 0);
    rotations[L_HIP] = rotation_xyz(-28.0f * left - 4.0f, 0, 0);
    rotations[R_HIP] = rotation_xyz(-28.0f * right - 4.0f, 0, 0);
    rotations[L_KNEE] = rotation_xyz(8.0f + 50.0f * left_swing, 0, 0);
    rotations[R_KNEE] = rotation_xyz(8.0f + 50.0f * right_swing, 0, 0);
    rotations[L_ANKLE] = rotation_xyz(8.0f * left - 6.0f, 0, 0);
    rotations[R_ANKLE] = rotation_xyz(8.0f * right - 6.0f, 0, 0);
    rotations[L_SHOULDER] = fk_quat_mul(rotation_xyz(24.0f * left, 0, 0), rotation_xyz(0, 0, -78));
    rotations[R_SHOULDER] = fk_quat_mul(rotation_xyz(24.0f * right, 0, 0), rotation_xyz(0, 0, 78));
    rotations[L_ELBOW] = rotation_xyz(0, -20.0f - 12.0f * (left > 0 ? left : 0), 0);
    rotations[R_ELBOW] = rotation_xyz(0, 20.0f + 12.0f * (right > 0 ? right : 0), 0);
}

#endif
