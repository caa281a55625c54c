/* lbs_vs_dqs.c - why dual quaternion skinning exists, in two pictures.

   A striped cylinder hangs on two bones that meet half-way. Its vertices near the
   joint are shared between the bones (weights blend over a band as wide as the
   cylinder), and the second bone is twisted (0 to 180 degrees about its own axis)
   or bent (0 to 150 degrees). Linear blend skinning averages the two bones'
   matrices, and the average of two rotations is not a rotation: the joint shrinks,
   to nothing at 180 degrees of twist (the "candy wrapper"). Dual quaternion
   skinning blends rigid transforms and keeps the joint's thickness.

   For each pose the program measures the joint radius (the mean distance of the
   ring of vertices at the joint from the posed joint) and prints it as a line
       joint_radius deform=twist degrees=180 lbs=0.0000 dqs=0.5000 rest=0.5000
   which tests/test_examples.c reads. Pictures: out/lbs_vs_dqs_twist.png and
   out/lbs_vs_dqs_bend.png. */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define PI 3.14159265358979f
#define BONE_LENGTH 2.0f
#define RADIUS 0.5f
#define SIDES 48
#define STRIPES 8

typedef struct tube {
    render_mesh mesh;
    float *weights;           /* 2 per vertex: bone 0, bone 1 */
    uint16_t *joints;         /* 2 per vertex: always 0, 1 */
    int joint_ring;           /* first vertex of the ring at the joint */
} tube;

/* Two joints on the x axis: the root at -BONE_LENGTH and the joint that moves at 0. */
static const int parents[3] = {-1, 0, 1};
static const fk_vec3 rest_joints[3] = {{-BONE_LENGTH, 0, 0}, {0, 0, 0}, {BONE_LENGTH, 0, 0}};

static float smoothstep(float edge0, float edge1, float x)
{
    float t = (x - edge0) / (edge1 - edge0);
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    return t * t * (3.0f - 2.0f * t);
}

/* The cylinder along the bones, with stripes so that a twist shows, and its weights:
   bone 1's weight rises smoothly from 0 to 1 across the joint, over one diameter. */
static tube make_tube(render_color stripe_a, render_color stripe_b)
{
    const fk_vec3 path[3] = {{-BONE_LENGTH, 0, 0}, {0, 0, 0}, {BONE_LENGTH, 0, 0}};
    const float radii[3] = {RADIUS, RADIUS, RADIUS};
    const int rings_per_bone = 24;
    tube t = {{0}, NULL, NULL, 0};
    int i;
    render_mesh_add_tube(&t.mesh, path, radii, 3, SIDES, rings_per_bone);
    render_mesh_paint(&t.mesh, 0, stripe_a);
    t.weights = (float *)malloc((size_t)t.mesh.vertex_count * 2 * sizeof(float));
    t.joints = (uint16_t *)malloc((size_t)t.mesh.vertex_count * 2 * sizeof(uint16_t));
    if (!t.weights || !t.joints) exit(1);
    t.joint_ring = -1;
    for (i = 0; i < t.mesh.vertex_count; ++i) {
        const float *p = t.mesh.positions + 3 * i;
        float angle = atan2f(p[2], p[1]) + PI;
        float w1 = smoothstep(-RADIUS, RADIUS, p[0]);
        if ((int)(angle / (2.0f * PI) * STRIPES) % 2) {
            t.mesh.colors[3 * i] = stripe_b.r;
            t.mesh.colors[3 * i + 1] = stripe_b.g;
            t.mesh.colors[3 * i + 2] = stripe_b.b;
        }
        t.weights[2 * i] = 1.0f - w1;
        t.weights[2 * i + 1] = w1;
        t.joints[2 * i] = 0;
        t.joints[2 * i + 1] = 1;
        if (t.joint_ring < 0 && fabsf(p[0]) < 1e-4f) t.joint_ring = i; /* the ring exactly at the joint */
    }
    return t;
}

/* Skins the tube with bone 1 rotated by `rotation`, by LBS or DQS. */
static void pose_tube(const tube *t, fk_quat rotation, int dual_quaternion, float *positions, float *normals,
                      fk_vec3 joints_out[3])
{
    fk_quat rotations[3];
    fk_rigid bones[3];
    fk_skin_desc skin = {0};
    rotations[0] = fk_quat_identity();
    rotations[1] = rotation;
    rotations[2] = fk_quat_identity();
    fk_forward(3, parents, rest_joints, rotations, NULL, bones);
    fk_posed_joints(3, rest_joints, bones, joints_out);
    skin.vertex_count = t->mesh.vertex_count;
    skin.influences = 2;
    skin.positions = t->mesh.positions;
    skin.normals = t->mesh.normals;
    skin.joints = t->joints;
    skin.weights = t->weights;
    skin.transforms = bones;
    skin.transform_count = 3;
    skin.out_positions = positions;
    skin.out_normals = normals;
    if (dual_quaternion) fk_skin_dqs(&skin);
    else fk_skin_lbs(&skin);
}

/* Mean distance from the posed joint of the ring of vertices that sat at the joint. */
static float joint_radius(const tube *t, const float *positions, fk_vec3 joint)
{
    float sum = 0.0f;
    int i;
    for (i = 0; i < SIDES; ++i)
        sum += fk_vec3_length(fk_vec3_sub(fk_vec3_make(positions[3 * (t->joint_ring + i)], positions[3 * (t->joint_ring + i) + 1],
                                                       positions[3 * (t->joint_ring + i) + 2]),
                                          joint));
    return sum / SIDES;
}

/* Outlines the ring whose radius is measured, in the colour of its label. */
static void draw_joint_ring(render_panel *panel, const render_camera *camera, const tube *t, const float *positions,
                            render_color color)
{
    int i;
    for (i = 0; i < SIDES; ++i) {
        const float *a = positions + 3 * (t->joint_ring + i), *b = positions + 3 * (t->joint_ring + (i + 1) % SIDES);
        render_draw_line(panel, camera, fk_vec3_make(a[0], a[1], a[2]), fk_vec3_make(b[0], b[1], b[2]), 1.5f, 0.0f, color);
    }
}

/* What one sheet shows: a row of LBS and a row of DQS, one column per angle. */
typedef struct sheet_spec {
    const char *deform;        /* "twist" or "bend" */
    fk_vec3 axis;              /* bone 1 turns about it */
    float degrees[6];
    int columns;
    int panel_width, panel_height;
    float yaw, pitch;          /* camera direction, degrees */
    const char *title, *file;
} sheet_spec;

static int draw_sheet(const render_options *options, const sheet_spec *spec)
{
    const char *deform = spec->deform;
    const float *degrees = spec->degrees;
    int columns = spec->columns;
    tube methods[2];
    const char *method_names[2] = {"LBS", "DQS"};
    render_sheet *sheet = render_sheet_create(columns, 2, spec->panel_width, spec->panel_height, spec->title, options->scale);
    float *positions, *normals;
    fk_vec3 lo = {1e9f, 1e9f, 1e9f}, hi = {-1e9f, -1e9f, -1e9f}, joints[3];
    render_camera camera;
    int method, column, result;

    methods[0] = make_tube(RENDER_ROSE, (render_color){0.97f, 0.90f, 0.90f});
    methods[1] = make_tube(RENDER_STEEL, (render_color){0.90f, 0.94f, 0.98f});
    positions = (float *)malloc((size_t)methods[0].mesh.vertex_count * 3 * sizeof(float));
    normals = (float *)malloc((size_t)methods[0].mesh.vertex_count * 3 * sizeof(float));
    if (!sheet || !positions || !normals) return 1;

    /* one camera for every panel, framing every pose, so the panels compare fairly */
    for (column = 0; column < columns; ++column) {
        pose_tube(&methods[1], fk_quat_from_axis_angle(spec->axis, degrees[column] * PI / 180.0f), 1, positions, normals, joints);
        render_bounds_add(&lo, &hi, positions, methods[1].mesh.vertex_count);
    }
    camera = render_camera_frame_box(lo, hi, spec->yaw, spec->pitch, 30.0f, render_sheet_aspect(sheet));

    for (column = 0; column < columns; ++column) {
        float radius[2];
        for (method = 0; method < 2; ++method) {
            const tube *t = &methods[method];
            render_panel *panel = render_panel_begin(sheet, column, method);
            float share;
            pose_tube(t, fk_quat_from_axis_angle(spec->axis, degrees[column] * PI / 180.0f), method, positions, normals, joints);
            radius[method] = joint_radius(t, positions, joints[1]);
            share = radius[method] / RADIUS;
            render_draw_mesh(panel, &camera, &t->mesh, positions, normals, RENDER_CLAY); /* the stripes colour it */
            draw_joint_ring(panel, &camera, t, positions, share < 0.75f ? RENDER_ALERT : RENDER_GOOD);
            render_draw_skeleton(panel, &camera, joints, parents, 3);
            render_draw_label(panel, 8, 8, 1.25f, RENDER_INK, "%s, %s %.0f deg", method_names[method], deform,
                              (double)degrees[column]);
            render_draw_label(panel, 8, (float)spec->panel_height - 18.0f, 1.0f, share < 0.75f ? RENDER_ALERT : RENDER_GOOD,
                              "joint radius %.2f (%.0f%%)", (double)radius[method], (double)(100.0f * share));
            render_panel_end(panel);
        }
        printf("joint_radius deform=%s degrees=%.0f lbs=%.4f dqs=%.4f rest=%.4f\n", deform, (double)degrees[column],
               (double)radius[0], (double)radius[1], (double)RADIUS);
    }
    result = render_sheet_save(sheet, options, spec->file);
    for (method = 0; method < 2; ++method) {
        render_mesh_free(&methods[method].mesh);
        free(methods[method].weights);
        free(methods[method].joints);
    }
    free(positions);
    free(normals);
    render_sheet_destroy(sheet);
    return result != 0;
}

int main(int argc, char **argv)
{
    static const sheet_spec twist = {"twist", {1, 0, 0}, {0, 45, 90, 135, 180}, 5, 230, 136, 15, 30,
                                     "Twisting a joint: LBS collapses (candy wrapper), DQS keeps the volume",
                                     "lbs_vs_dqs_twist.png"};
    static const sheet_spec bend = {"bend", {0, 0, 1}, {0, 30, 60, 90, 120, 150}, 6, 205, 190, 10, 10,
                                    "Bending a joint: LBS thins the elbow, DQS keeps its thickness", "lbs_vs_dqs_bend.png"};
    render_options options;
    int parsed = render_parse_options(argc, argv, "Draws a twisted and a bent cylinder skinned by LBS and by DQS.", &options);
    if (parsed) return parsed > 0 ? 0 : 2;
    return draw_sheet(&options, &twist) || draw_sheet(&options, &bend);
}
