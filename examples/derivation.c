/* derivation.c - forward kinematics, one step at a time, as pictures.

   Two bones: joint 0 (the shoulder) at x0 and joint 1 (the elbow) at x1, with an
   arm-shaped mesh around them. A rest-pose point v on bone i goes to Q_i v + t_i.

     bone 0: move x0 to the origin, rotate by q0, move back:
             Q0 (v - x0) + x0  =  Q0 v + t0,       t0 = x0 - Q0 x0
     bone 1: rotate by q1 about x1, then let bone 0 carry the result:
             T0(q1 (v - x1) + x1)  =  Q1 v + t1,   Q1 = Q0 q1,  t1 = t0 + Q0 x1 - Q1 x1

   The last line is what fk_forward() computes for every joint from its parent's
   (Q_p, t_p). The program checks that the picture's step-by-step composition and
   fk_forward() agree and prints the difference.

   A second picture shows why t_i needs the parent's t_p: a formula often copied,
       t_i = -Q_i x_i + Q_p x_i - Q_p x_p + x_p,
   is right only when the parent is a root. On a chain of three joints it leaves
   the grandchild's bone behind, detached from its parent. It is computed below,
   clearly marked, only to be drawn; fk_lbs.h never uses it.

   Pictures: out/derivation.png and out/derivation_wrong_formula.png. */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define PI 3.14159265358979f
#define MAX_JOINTS 4
#define ARM_COLOR RENDER_STEEL

/* A tube around a chain of joints on one line; bone k owns the stretch from joint k
   to joint k+1, with weights blended smoothly over `blend` either side of a joint.
   Weights are dense: one per joint for every vertex (fk_skin_desc with joints NULL). */
typedef struct arm {
    render_mesh mesh;
    float *weights;
    int joint_count;
} arm;

static float smoothstep(float edge0, float edge1, float x)
{
    float t = (x - edge0) / (edge1 - edge0);
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    return t * t * (3.0f - 2.0f * t);
}

static arm make_arm(const fk_vec3 *joints, int joint_count, float radius, float blend)
{
    float radii[MAX_JOINTS];
    fk_vec3 axis = fk_vec3_normalize(fk_vec3_sub(joints[joint_count - 1], joints[0]));
    arm a = {{0}, NULL, joint_count};
    int i, k;
    for (k = 0; k < joint_count; ++k) radii[k] = radius * (1.0f - 0.12f * (float)k); /* tapers like a limb */
    render_mesh_add_tube(&a.mesh, joints, radii, joint_count, 40, 16);
    a.weights = (float *)calloc((size_t)a.mesh.vertex_count * (size_t)joint_count, sizeof(float));
    if (!a.weights) exit(1);
    for (i = 0; i < a.mesh.vertex_count; ++i) {
        float s = fk_vec3_dot(fk_vec3_sub(fk_vec3_make(a.mesh.positions[3 * i], a.mesh.positions[3 * i + 1],
                                                       a.mesh.positions[3 * i + 2]),
                                          joints[0]),
                              axis);
        float previous = 1.0f; /* the share not yet taken by bones further out */
        for (k = 0; k + 1 < joint_count; ++k) {
            float beyond = 1.0f;
            if (k + 2 < joint_count) {
                float at = fk_vec3_dot(fk_vec3_sub(joints[k + 1], joints[0]), axis);
                beyond = smoothstep(at - blend, at + blend, s);
            } else {
                beyond = 0.0f;
            }
            a.weights[i * joint_count + k] = previous - beyond;
            previous = beyond;
        }
    }
    return a;
}

static void free_arm(arm *a)
{
    render_mesh_free(&a->mesh);
    free(a->weights);
}

/* Skins the arm with one rigid transform per joint (linear blend skinning). */
static void skin_arm(const arm *a, const fk_rigid *transforms, float *positions, float *normals)
{
    fk_skin_desc skin = {0};
    skin.vertex_count = a->mesh.vertex_count;
    skin.influences = a->joint_count;
    skin.positions = a->mesh.positions;
    skin.normals = a->mesh.normals;
    skin.weights = a->weights; /* dense: joints stays NULL */
    skin.transforms = transforms;
    skin.transform_count = a->joint_count;
    skin.out_positions = positions;
    skin.out_normals = normals;
    fk_skin_lbs(&skin);
}

/* The rigid transform that rotates by q about the point pivot: v -> q (v - pivot) + pivot. */
static fk_rigid rotation_about(fk_quat q, fk_vec3 pivot)
{
    return fk_rigid_make(q, fk_vec3_sub(pivot, fk_quat_rotate(q, pivot)));
}

static void label_joint(render_panel *panel, const render_camera *camera, fk_vec3 at, const char *name)
{
    float x, y;
    render_project(panel, camera, at, &x, &y);
    render_draw_tag(panel, x - 6, y + 9, 1.0f, RENDER_JOINT, "%s", name);
}

/* ---- The derivation, step by step ------------------------------------------------ */

/* What each panel says, and which earlier panel's skeleton it shows behind. */
typedef struct step {
    const char *lines[3];
    int ghost; /* -1 for none */
} step;

static const step steps[6] = {
    {{"1. Rest pose", "joints x0, x1; v on the arm", NULL}, -1},
    {{"2. Move joint 0 to the origin", "v - x0", NULL}, 0},
    {{"3. Rotate by q0", "Q0 (v - x0),  Q0 = q0", NULL}, 1},
    {{"4. Move back: bone 0 is posed", "Q0 (v - x0) + x0 = Q0 v + t0", "t0 = x0 - Q0 x0"}, 0},
    {{"5. Bone 1 alone: q1 about x1", "q1 (v - x1) + x1", NULL}, 0},
    {{"6. Bone 0 carries bone 1", "Q1 v + t1,  Q1 = Q0 q1", "t1 = t0 + Q0 x1 - Q1 x1"}, 0},
};

static int draw_derivation(const render_options *options)
{
    static const int parents[3] = {-1, 0, 1};
    const fk_vec3 rest[3] = {{1.0f, 0.9f, 0}, {2.7f, 0.9f, 0}, {4.2f, 0.9f, 0}};
    const fk_quat q0 = fk_quat_from_axis_angle(fk_vec3_make(0, 0, 1), 40.0f * PI / 180.0f);
    const fk_quat q1 = fk_quat_from_axis_angle(fk_vec3_make(0, 0, 1), 65.0f * PI / 180.0f);
    fk_quat rotations[3];
    fk_rigid posed[3], bone0, bone1_alone, bone1_composed;
    fk_rigid bones[6][3]; /* per panel: the transform of joint 0, joint 1 and the end joint */
    arm a = make_arm(rest, 3, 0.32f, 0.35f);
    float *positions = (float *)malloc((size_t)a.mesh.vertex_count * 3 * sizeof(float));
    float *normals = (float *)malloc((size_t)a.mesh.vertex_count * 3 * sizeof(float));
    render_sheet *sheet = render_sheet_create(3, 2, 340, 290, "Forward kinematics of two bones, step by step", options->scale);
    fk_vec3 lo = {0, 0, 0}, hi = {0, 0, 0}, joints[6][3];
    render_camera camera;
    float difference;
    int s, k, result;
    if (!positions || !normals || !sheet) return 1;

    /* what the library computes */
    rotations[0] = q0;
    rotations[1] = q1;
    rotations[2] = fk_quat_identity();
    fk_forward(3, parents, rest, rotations, NULL, posed);

    /* the same, composed by hand as the pictures show it */
    bone0 = rotation_about(q0, rest[0]);
    bone1_alone = rotation_about(q1, rest[1]);
    bone1_composed = fk_rigid_mul(bone0, bone1_alone);
    difference = fk_vec3_length(fk_vec3_sub(bone1_composed.t, posed[1].t)) +
                 fk_quat_length(fk_quat_make(bone1_composed.q.x - posed[1].q.x, bone1_composed.q.y - posed[1].q.y,
                                             bone1_composed.q.z - posed[1].q.z, bone1_composed.q.w - posed[1].q.w));
    printf("bone 1 composed by hand vs fk_forward: difference %.2g\n", (double)difference);

    for (k = 0; k < 3; ++k) {
        bones[0][k] = fk_rigid_identity();
        bones[1][k] = fk_rigid_make(fk_quat_identity(), fk_vec3_scale(rest[0], -1.0f));
        bones[2][k] = fk_rigid_make(q0, fk_quat_rotate(q0, fk_vec3_scale(rest[0], -1.0f)));
        bones[3][k] = bone0;
        bones[4][k] = k == 0 ? fk_rigid_identity() : bone1_alone;
        bones[5][k] = posed[k];
    }

    for (s = 0; s < 6; ++s) {
        fk_posed_joints(3, rest, bones[s], joints[s]);
        skin_arm(&a, bones[s], positions, normals);
        render_bounds_add(&lo, &hi, positions, a.mesh.vertex_count);
    }
    hi.y += 0.3f * (hi.y - lo.y); /* room for the labels at the top */
    camera = render_camera_frame_box(lo, hi, 0.0f, 0.0f, 0.0f, render_sheet_aspect(sheet));

    for (s = 0; s < 6; ++s) {
        render_panel *panel = render_panel_begin(sheet, s % 3, s / 3);
        float x, y;
        skin_arm(&a, bones[s], positions, normals);
        render_draw_mesh(panel, &camera, &a.mesh, positions, normals, ARM_COLOR);
        render_draw_axes(panel, &camera, fk_vec3_make(0, 0, 0), 0.8f);
        render_project(panel, &camera, fk_vec3_make(0, 0, 0), &x, &y);
        render_draw_tag(panel, x - 44, y + 2, 1.0f, RENDER_SOFT_INK, "origin");
        if (steps[s].ghost >= 0) render_draw_skeleton_lines(panel, &camera, joints[steps[s].ghost], parents, 3, RENDER_GHOST);
        render_draw_skeleton(panel, &camera, joints[s], parents, 3);
        label_joint(panel, &camera, joints[s][0], "x0");
        label_joint(panel, &camera, joints[s][1], "x1");
        for (y = 8.0f, k = 0; k < 3 && steps[s].lines[k]; ++k)
            y += 4.0f + (float)render_draw_label(panel, 10, y, k == 0 ? 1.25f : 1.0f, k == 0 ? RENDER_INK : RENDER_SOFT_INK,
                                                 "%s", steps[s].lines[k]);
        render_panel_end(panel);
    }
    result = render_sheet_save(sheet, options, "derivation.png");
    render_sheet_destroy(sheet);
    free(positions);
    free(normals);
    free_arm(&a);
    return result != 0 || difference > 1e-5f;
}

/* ---- The wrong formula ---------------------------------------------------------------- */

/* WRONG, kept only to be drawn: t_i = -Q_i x_i + Q_p x_i - Q_p x_p + x_p. It equals
   the right t_i = t_p + Q_p x_i - Q_i x_i only when t_p = x_p - Q_p x_p, which holds
   for a root parent but not for a parent that its own parent has moved. */
static void forward_with_wrong_formula(int joint_count, const int *parents, const fk_vec3 *rest, const fk_quat *rotations,
                                       fk_rigid *out)
{
    int i;
    for (i = 0; i < joint_count; ++i) { /* parents come first in this chain */
        int p = parents[i];
        if (p < 0) {
            out[i] = fk_rigid_make(rotations[i], fk_vec3_sub(rest[i], fk_quat_rotate(rotations[i], rest[i])));
        } else {
            fk_quat q = fk_quat_mul(out[p].q, rotations[i]);
            fk_vec3 t = fk_vec3_add(fk_vec3_sub(fk_quat_rotate(out[p].q, rest[i]), fk_quat_rotate(q, rest[i])),
                                    fk_vec3_sub(rest[p], fk_quat_rotate(out[p].q, rest[p])));
            out[i] = fk_rigid_make(q, t);
        }
    }
}

static int draw_wrong_formula(const render_options *options)
{
    static const int parents[4] = {-1, 0, 1, 2}; /* root, child, grandchild, end of the grandchild's bone */
    const fk_vec3 rest[4] = {{0, 0, 0}, {1.6f, 0, 0}, {3.1f, 0, 0}, {4.4f, 0, 0}};
    const float degrees[4] = {30, 30, 30, 0};
    fk_quat rotations[4];
    fk_rigid right[4], wrong[4], identity[4];
    fk_vec3 right_joints[4], wrong_joints[4], rest_joints[4], lo = {0, 0, 0}, hi = {0, 0, 0};
    arm a = make_arm(rest, 4, 0.30f, 0.30f);
    float *positions = (float *)malloc((size_t)a.mesh.vertex_count * 3 * sizeof(float));
    float *normals = (float *)malloc((size_t)a.mesh.vertex_count * 3 * sizeof(float));
    render_sheet *sheet = render_sheet_create(3, 1, 340, 340, "Why t_i needs the parent's t_p: a three-joint counterexample",
                                              options->scale);
    render_camera camera, rest_camera;
    render_panel *panel;
    float gap, x, y;
    int i, result;
    if (!positions || !normals || !sheet) return 1;

    for (i = 0; i < 4; ++i) {
        rotations[i] = fk_quat_from_axis_angle(fk_vec3_make(0, 0, 1), degrees[i] * PI / 180.0f);
        identity[i] = fk_rigid_identity();
    }
    fk_forward(4, parents, rest, rotations, NULL, right);
    forward_with_wrong_formula(4, parents, rest, rotations, wrong);
    fk_posed_joints(4, rest, identity, rest_joints);
    fk_posed_joints(4, rest, right, right_joints);
    fk_posed_joints(4, rest, wrong, wrong_joints);
    /* where the grandchild's pivot lands, by its own transform vs by its parent's */
    gap = fk_vec3_length(fk_vec3_sub(wrong_joints[2], fk_rigid_apply(wrong[1], rest[2])));
    printf("wrong formula: the grandchild's pivot is %.3f away from the end of its parent's bone (right formula: %.1g)\n",
           (double)gap, (double)fk_vec3_length(fk_vec3_sub(right_joints[2], fk_rigid_apply(right[1], rest[2]))));

    /* the rest pose has a camera of its own; the two posed chains share one */
    render_bounds_add(&lo, &hi, a.mesh.positions, a.mesh.vertex_count);
    hi.y += 1.2f * (hi.y - lo.y); /* room for the labels at the top */
    rest_camera = render_camera_frame_box(lo, hi, 0.0f, 0.0f, 0.0f, render_sheet_aspect(sheet));
    lo = hi = right_joints[0];
    skin_arm(&a, right, positions, normals);
    render_bounds_add(&lo, &hi, positions, a.mesh.vertex_count);
    skin_arm(&a, wrong, positions, normals);
    render_bounds_add(&lo, &hi, positions, a.mesh.vertex_count);
    hi.y += 0.3f * (hi.y - lo.y);
    hi.x += 0.6f * (hi.x - lo.x); /* room on the right for the labels */
    camera = render_camera_frame_box(lo, hi, 0.0f, 0.0f, 0.0f, render_sheet_aspect(sheet));

    panel = render_panel_begin(sheet, 0, 0);
    render_draw_mesh(panel, &rest_camera, &a.mesh, NULL, NULL, ARM_COLOR);
    render_draw_skeleton(panel, &rest_camera, rest_joints, parents, 4);
    label_joint(panel, &rest_camera, rest_joints[0], "root");
    label_joint(panel, &rest_camera, rest_joints[1], "child");
    label_joint(panel, &rest_camera, rest_joints[2], "grandchild");
    y = 8.0f + 4.0f + (float)render_draw_label(panel, 10, 8, 1.25f, RENDER_INK, "Rest pose");
    render_draw_label(panel, 10, y, 1.0f, RENDER_SOFT_INK, "root, child, grandchild rotate %.0f deg", (double)degrees[0]);
    render_panel_end(panel);

    panel = render_panel_begin(sheet, 1, 0);
    skin_arm(&a, right, positions, normals);
    render_draw_mesh(panel, &camera, &a.mesh, positions, normals, ARM_COLOR);
    render_draw_skeleton(panel, &camera, right_joints, parents, 4);
    y = 8.0f + 4.0f + (float)render_draw_label(panel, 10, 8, 1.25f, RENDER_GOOD, "Right (fk_forward)");
    render_draw_label(panel, 10, y, 1.0f, RENDER_SOFT_INK, "t_i = t_p + Q_p x_i - Q_i x_i");
    render_panel_end(panel);

    panel = render_panel_begin(sheet, 2, 0);
    skin_arm(&a, wrong, positions, normals);
    render_draw_mesh(panel, &camera, &a.mesh, positions, normals, ARM_COLOR);
    render_draw_skeleton_lines(panel, &camera, right_joints, parents, 4, RENDER_GOOD);
    /* each bone from its own pivot to where its own transform sends its child's pivot */
    for (i = 1; i < 4; ++i) render_draw_bone(panel, &camera, wrong_joints[i - 1], fk_rigid_apply(wrong[i - 1], rest[i]), RENDER_BONE);
    for (i = 0; i < 3; ++i) render_draw_joint(panel, &camera, wrong_joints[i], 4.0f, RENDER_JOINT);
    render_draw_joint(panel, &camera, fk_rigid_apply(wrong[2], rest[3]), 4.0f, RENDER_JOINT); /* the bone's tip */
    render_draw_line(panel, &camera, fk_rigid_apply(wrong[1], rest[2]), wrong_joints[2], 2.0f, 3.0f, RENDER_ALERT);
    render_project(panel, &camera, wrong_joints[2], &x, &y);
    render_draw_tag(panel, x + 12, y - 4, 1.0f, RENDER_ALERT, "the grandchild");
    render_draw_tag(panel, x + 12, y + 8, 1.0f, RENDER_ALERT, "comes loose:");
    render_draw_tag(panel, x + 12, y + 20, 1.0f, RENDER_ALERT, "gap %.2f", (double)gap);
    y = 8.0f + 4.0f + (float)render_draw_label(panel, 10, 8, 1.25f, RENDER_ALERT, "WRONG formula, often copied");
    y += 4.0f + (float)render_draw_label(panel, 10, y, 1.0f, RENDER_SOFT_INK, "t_i = -Q_i x_i + Q_p x_i - Q_p x_p + x_p");
    render_draw_label(panel, 10, y, 1.0f, RENDER_GOOD, "green: where fk_forward puts the chain");
    render_panel_end(panel);

    result = render_sheet_save(sheet, options, "derivation_wrong_formula.png");
    render_sheet_destroy(sheet);
    free(positions);
    free(normals);
    free_arm(&a);
    return result != 0 || !(gap > 0.1f);
}

int main(int argc, char **argv)
{
    render_options options;
    int parsed = render_parse_options(argc, argv,
                                      "Draws forward kinematics step by step, and what a common wrong formula does.", &options);
    if (parsed) return parsed > 0 ? 0 : 2;
    if (draw_derivation(&options)) return 1;
    if (draw_wrong_formula(&options)) return 1;
    return 0;
}
