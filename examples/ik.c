/* ik.c - inverse kinematics by damped least squares: fk_ik_step() in a loop.

   An arm of four bones (2.8 units long) reaches from its shoulder for six targets,
   four within reach and two beyond it. Every solve starts from the same slightly
   bent pose and repeats
       fk_forward(...);  fk_ik_step(...);
   until the hand is within 1e-5 of the target, or stops moving (a target out of
   reach: the arm ends straight, pointing at it), or 200 steps have passed. The
   arm is a tube skinned by LBS, so the picture shows a mesh following the solve.

   It prints each solve's distance to the target step by step, a line per target
       ik target=1 reachable=1 steps=8 distance=3.15e-06 off_line_rad=1.36
   (off_line_rad: the largest angle between a bone and the line from the shoulder
   to the target, 0 when the arm is straight and points at it)
   and draws out/ik.png: per target, the arm where it ended, the starting pose in
   grey, the path of the hand and the target (green if reachable, red if not). */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define JOINTS 5      /* shoulder, elbow, wrist, knuckle, fingertip */
#define HAND 4        /* the end effector: the fingertip joint */
#define MAX_STEPS 200
#define TARGETS 6

static const int parents[JOINTS] = {-1, 0, 1, 2, 3};
static const fk_vec3 rest_joints[JOINTS] = {{0, 0, 0}, {1.0f, 0, 0}, {1.8f, 0, 0}, {2.4f, 0, 0}, {2.8f, 0, 0}};
static const float radii[JOINTS] = {0.22f, 0.18f, 0.14f, 0.11f, 0.08f};

static const fk_vec3 targets[TARGETS] = {
    {1.2f, 1.5f, 0.5f}, {-0.8f, 1.6f, 0.9f}, {0.5f, -1.8f, -1.0f}, {1.9f, 0.3f, -1.2f}, /* within reach */
    {3.0f, 2.0f, 1.0f}, {-2.4f, -2.2f, 1.6f}                                             /* beyond it */
};

typedef struct solve {
    fk_quat rotations[JOINTS];
    fk_rigid bones[JOINTS];
    fk_vec3 hand_path[MAX_STEPS + 1];
    int steps;
} solve;

/* The starting pose: a small bend at every joint, so that no target lies exactly
   behind a straight arm (a saddle where every step is zero). */
static void start_pose(fk_quat rotations[JOINTS])
{
    int i;
    for (i = 0; i < JOINTS; ++i) rotations[i] = fk_quat_from_axis_angle(fk_vec3_make(0, 0, 1), i < HAND ? 0.25f : 0.0f);
}

static fk_vec3 hand_position(const fk_rigid bones[JOINTS]) { return fk_rigid_apply(bones[HAND], rest_joints[HAND]); }

static void solve_for(fk_vec3 target, solve *s)
{
    start_pose(s->rotations);
    fk_forward(JOINTS, parents, rest_joints, s->rotations, NULL, s->bones);
    s->hand_path[0] = hand_position(s->bones);
    for (s->steps = 0; s->steps < MAX_STEPS;) {
        fk_quat before[JOINTS];
        float turned = 0.0f;
        int i;
        for (i = 0; i < JOINTS; ++i) before[i] = s->rotations[i];
        fk_ik_step(JOINTS, parents, rest_joints, s->bones, FK_FRAME_PARENT, HAND, rest_joints[HAND], 0, target, 0.0f,
                   s->rotations);
        fk_forward(JOINTS, parents, rest_joints, s->rotations, NULL, s->bones);
        s->hand_path[++s->steps] = hand_position(s->bones);
        for (i = 0; i < JOINTS; ++i) /* the largest angle any joint turned by in this step */
            turned = fmaxf(turned, fk_vec3_length(fk_quat_to_rotation_vector(
                                       fk_quat_mul(s->rotations[i], fk_quat_conjugate(before[i])))));
        if (fk_vec3_length(fk_vec3_sub(target, s->hand_path[s->steps])) < 1e-5f) break; /* reached */
        if (turned < 1e-6f) break; /* as close as it gets: out of reach */
    }
}

static void grow_box(fk_vec3 *lo, fk_vec3 *hi, fk_vec3 p)
{
    lo->x = fminf(lo->x, p.x); lo->y = fminf(lo->y, p.y); lo->z = fminf(lo->z, p.z);
    hi->x = fmaxf(hi->x, p.x); hi->y = fmaxf(hi->y, p.y); hi->z = fmaxf(hi->z, p.z);
}

/* The largest angle between a bone and the shoulder-to-target direction: 0 for a
   straight arm pointing at the target. */
static float bend_from_target_direction(const fk_rigid bones[JOINTS], fk_vec3 target)
{
    fk_vec3 joints[JOINTS], direction = fk_vec3_normalize(fk_vec3_sub(target, rest_joints[0]));
    float worst = 0.0f;
    int i;
    fk_posed_joints(JOINTS, rest_joints, bones, joints);
    for (i = 0; i + 1 < JOINTS; ++i) {
        fk_vec3 bone = fk_vec3_sub(joints[i + 1], joints[i]);
        worst = fmaxf(worst, atan2f(fk_vec3_length(fk_vec3_cross(bone, direction)), fk_vec3_dot(bone, direction)));
    }
    return worst;
}

/* A tapered tube along the rest arm, each vertex bound to the bone it lies on and,
   within a tube radius of a joint, blended smoothly into the neighbouring bone. */
static void make_arm(render_mesh *mesh, uint16_t **joints, float **weights)
{
    int i;
    render_mesh_add_tube(mesh, rest_joints, radii, JOINTS, 24, 10);
    *joints = (uint16_t *)malloc((size_t)mesh->vertex_count * 2 * sizeof(uint16_t));
    *weights = (float *)malloc((size_t)mesh->vertex_count * 2 * sizeof(float));
    if (!*joints || !*weights) exit(1);
    for (i = 0; i < mesh->vertex_count; ++i) {
        float x = mesh->positions[3 * i], share = 0.0f;
        int bone = 0, neighbour;
        while (bone + 1 < HAND && x >= rest_joints[bone + 1].x) ++bone; /* bone k runs from joint k to k + 1 */
        neighbour = bone;
        if (bone > 0 && x - rest_joints[bone].x < radii[bone]) {
            neighbour = bone - 1;
            share = 0.5f - 0.5f * (x - rest_joints[bone].x) / radii[bone];
        } else if (bone + 1 < HAND && rest_joints[bone + 1].x - x < radii[bone + 1]) {
            neighbour = bone + 1;
            share = 0.5f - 0.5f * (rest_joints[bone + 1].x - x) / radii[bone + 1];
        }
        (*joints)[2 * i] = (uint16_t)bone;
        (*joints)[2 * i + 1] = (uint16_t)neighbour;
        (*weights)[2 * i] = 1.0f - share;
        (*weights)[2 * i + 1] = share;
    }
}

int main(int argc, char **argv)
{
    render_options options;
    render_sheet *sheet;
    render_camera camera;
    render_mesh arm = {0};
    uint16_t *arm_joints;
    float *arm_weights, *positions, *normals;
    fk_vec3 lo = {0, 0, 0}, hi = {0, 0, 0}, start_joints[JOINTS];
    fk_quat start[JOINTS];
    fk_rigid start_bones[JOINTS];
    static solve solves[TARGETS];
    int parsed = render_parse_options(argc, argv, "Solves an arm's inverse kinematics for six targets and draws them.",
                                      &options);
    int t, k;
    if (parsed) return parsed > 0 ? 0 : 2;

    make_arm(&arm, &arm_joints, &arm_weights);
    positions = (float *)malloc((size_t)arm.vertex_count * 3 * sizeof(float));
    normals = (float *)malloc((size_t)arm.vertex_count * 3 * sizeof(float));
    sheet = render_sheet_create(3, 2, 320, 280, "fk_ik_step: damped least squares, 4 targets in reach, 2 beyond",
                                options.scale);
    if (!positions || !normals || !sheet) return 1;
    start_pose(start);
    fk_forward(JOINTS, parents, rest_joints, start, NULL, start_bones);
    fk_posed_joints(JOINTS, rest_joints, start_bones, start_joints);

    /* Solve first, so that one camera can frame every target and every arm. */
    for (t = 0; t < TARGETS; ++t) {
        fk_vec3 joints[JOINTS];
        solve_for(targets[t], &solves[t]);
        fk_posed_joints(JOINTS, rest_joints, solves[t].bones, joints);
        grow_box(&lo, &hi, targets[t]);
        for (k = 0; k < JOINTS; ++k) grow_box(&lo, &hi, joints[k]), grow_box(&lo, &hi, start_joints[k]);
    }
    camera = render_camera_frame_box(lo, hi, 20.0f, 15.0f, 30.0f, render_sheet_aspect(sheet));

    for (t = 0; t < TARGETS; ++t) {
        solve *s = &solves[t];
        fk_skin_desc skin = {0};
        fk_vec3 joints[JOINTS], hand;
        render_panel *panel = render_panel_begin(sheet, t % 3, t / 3);
        float distance, bend;
        int reachable = t < 4;

        hand = hand_position(s->bones);
        distance = fk_vec3_length(fk_vec3_sub(targets[t], hand));
        bend = bend_from_target_direction(s->bones, targets[t]);
        printf("target %d (%.1f, %.1f, %.1f), distance by step:", t + 1, (double)targets[t].x, (double)targets[t].y,
               (double)targets[t].z);
        for (k = 0; k <= s->steps; ++k)
            if (k < 10 || k == s->steps)
                printf("%s %.1e", k == s->steps && k > 10 ? " ..." : "",
                       (double)fk_vec3_length(fk_vec3_sub(targets[t], s->hand_path[k])));
        printf("\nik target=%d reachable=%d steps=%d distance=%.3g off_line_rad=%.3g\n", t + 1, reachable, s->steps,
               (double)distance, (double)bend);

        skin.vertex_count = arm.vertex_count;
        skin.influences = 2;
        skin.positions = arm.positions;
        skin.normals = arm.normals;
        skin.joints = arm_joints;
        skin.weights = arm_weights;
        skin.transforms = s->bones;
        skin.transform_count = JOINTS;
        skin.out_positions = positions;
        skin.out_normals = normals;
        fk_skin_lbs(&skin);
        fk_posed_joints(JOINTS, rest_joints, s->bones, joints);

        render_draw_skeleton_lines(panel, &camera, start_joints, parents, JOINTS, RENDER_GHOST);
        render_draw_mesh(panel, &camera, &arm, positions, normals, RENDER_CLAY);
        for (k = 0; k < s->steps; ++k)
            render_draw_line(panel, &camera, s->hand_path[k], s->hand_path[k + 1], 1.5f, 0.0f, RENDER_SOFT_INK);
        render_draw_skeleton(panel, &camera, joints, parents, JOINTS);
        if (!reachable) render_draw_line(panel, &camera, hand, targets[t], 1.5f, 4.0f, RENDER_ALERT);
        render_draw_joint(panel, &camera, targets[t], 6.0f, reachable ? RENDER_GOOD : RENDER_ALERT);
        render_draw_label(panel, 8, 8, 1.25f, RENDER_INK, "target %d, %s", t + 1, reachable ? "in reach" : "out of reach");
        render_draw_label(panel, 8, 26, 1.0f, RENDER_SOFT_INK, "dashed: start; line: the hand's path");
        if (reachable)
            render_draw_label(panel, 8, 256, 1.0f, RENDER_GOOD, "reached in %d steps, %.0e away", s->steps, (double)distance);
        else
            render_draw_label(panel, 8, 256, 1.0f, RENDER_ALERT, "%.2f short, straight within %.0e rad", (double)distance,
                              (double)bend);
        render_panel_end(panel);
    }
    k = render_sheet_save(sheet, &options, "ik.png");
    render_sheet_destroy(sheet);
    render_mesh_free(&arm);
    free(arm_joints);
    free(arm_weights);
    free(positions);
    free(normals);
    return k != 0;
}
