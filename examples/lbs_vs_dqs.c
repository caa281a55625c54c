/* lbs_vs_dqs.c - why dual quaternion skinning and centres of rotation exist, in
   three pictures.

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
   out/lbs_vs_dqs_bend.png.

   The third picture, out/lbs_dqs_cor.png, puts skinning with centres of rotation
   (fk_skin_cor(), its centres computed once by fk_cor_centers()) beside LBS and
   DQS, under a twist of 90 and 180 degrees and a bend of 90, and measures both
   artefacts, each relative to the rest radius:
     - radius: the least distance of a vertex of the joint's ring from the posed
       joint (under a twist, from the bone axis): below 1, the candy wrapper;
     - bulge: the largest distance of any vertex outside the rest limb posed
       rigidly, the union of the two capsules of the rest radius about the two
       bones' segments, each moved by its own bone: above 0, the skin swells
       past the limb's surface (DQS on the outside of a bend).
   Each pose and method prints a line
       compare deform=bend degrees=90 method=dqs radius=1.0000 bulge=0.0000
   which tests/test_examples.c reads. */
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
    float *centers;           /* centres of rotation, x y z per vertex, or NULL: see add_centers() */
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
    tube t = {{0}, NULL, NULL, NULL, 0};
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

/* The centres of rotation that CoR skins with, computed once from the rest tube. */
static void add_centers(tube *t)
{
    t->centers = render_cor_centers(t->mesh.vertex_count, t->mesh.positions, 2, t->joints, t->weights,
                                    t->mesh.triangle_count, t->mesh.triangles);
    if (!t->centers) exit(1);
}

static void free_tube(tube *t)
{
    render_mesh_free(&t->mesh);
    free(t->weights);
    free(t->joints);
    free(t->centers);
}

enum { LBS, DQS, COR, METHODS };
static const char *const method_names[METHODS] = {"LBS", "DQS", "CoR"};

/* Skins the tube with bone 1 rotated by `rotation`, by LBS, DQS or CoR (the tube
   has its centres then); bones receives the bones' transforms. */
static void pose_tube(const tube *t, fk_quat rotation, int method, float *positions, float *normals, fk_vec3 joints_out[3],
                      fk_rigid bones[3])
{
    fk_quat rotations[3];
    fk_skin_desc skin = {0};
    fk_result result;
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
    result = method == COR ? fk_skin_cor(&skin, t->centers, 0) : method == DQS ? fk_skin_dqs(&skin) : fk_skin_lbs(&skin);
    if (result != FK_OK) exit(1);
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

/* The least distance of the joint's ring from the posed joint, relative to the rest radius. */
static float joint_least_radius(const tube *t, const float *positions, fk_vec3 joint)
{
    float least = 1e30f;
    int i;
    for (i = 0; i < SIDES; ++i) {
        const float *p = positions + 3 * (t->joint_ring + i);
        float distance = fk_vec3_length(fk_vec3_sub(fk_vec3_make(p[0], p[1], p[2]), joint));
        least = distance < least ? distance : least;
    }
    return least / RADIUS;
}

/* How far a skinned point lies outside the rest limb posed rigidly: bone k's
   capsule is the points within RADIUS of its rest segment, rest_joints[k] to
   rest_joints[k + 1] (on the x axis), moved by bone k. The distance outside the
   union is the least over the capsules, 0 inside; relative to the rest radius. */
static float outside_rest_limb(const fk_rigid bones[3], fk_vec3 p)
{
    float least = 1e30f;
    int k;
    for (k = 0; k < 2; ++k) {
        fk_vec3 u = fk_rigid_apply(fk_rigid_inverse(bones[k]), p); /* in the rest pose of bone k */
        float a = rest_joints[k].x, b = rest_joints[k + 1].x;
        float along = u.x < a ? a - u.x : u.x > b ? u.x - b : 0.0f;
        float outside = sqrtf(along * along + u.y * u.y + u.z * u.z) - RADIUS;
        least = outside < least ? outside : least;
    }
    return least > 0.0f ? least / RADIUS : 0.0f;
}

/* The bulge: the largest distance outside the rest limb posed rigidly over the
   mesh, relative to the rest radius; *where receives the vertex. */
static float bulge(const tube *t, const float *positions, const fk_rigid bones[3], int *where)
{
    float largest = 0.0f;
    int i;
    *where = 0;
    for (i = 0; i < t->mesh.vertex_count; ++i) {
        float outside = outside_rest_limb(bones, fk_vec3_make(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]));
        if (outside > largest) {
            largest = outside;
            *where = i;
        }
    }
    return largest;
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
    render_sheet *sheet = render_sheet_create(columns, 2, spec->panel_width, spec->panel_height, spec->title, options->scale);
    float *positions, *normals;
    fk_vec3 lo = {1e9f, 1e9f, 1e9f}, hi = {-1e9f, -1e9f, -1e9f}, joints[3];
    fk_rigid bones[3];
    render_camera camera;
    int method, column, result;

    methods[0] = make_tube(RENDER_ROSE, (render_color){0.97f, 0.90f, 0.90f});
    methods[1] = make_tube(RENDER_STEEL, (render_color){0.90f, 0.94f, 0.98f});
    positions = (float *)malloc((size_t)methods[0].mesh.vertex_count * 3 * sizeof(float));
    normals = (float *)malloc((size_t)methods[0].mesh.vertex_count * 3 * sizeof(float));
    if (!sheet || !positions || !normals) return 1;

    /* one camera for every panel, framing every pose, so the panels compare fairly */
    for (column = 0; column < columns; ++column) {
        pose_tube(&methods[DQS], fk_quat_from_axis_angle(spec->axis, degrees[column] * PI / 180.0f), DQS, positions, normals,
                  joints, bones);
        render_bounds_add(&lo, &hi, positions, methods[1].mesh.vertex_count);
    }
    camera = render_camera_frame_box(lo, hi, spec->yaw, spec->pitch, 30.0f, render_sheet_aspect(sheet));

    for (column = 0; column < columns; ++column) {
        float radius[2];
        for (method = 0; method < 2; ++method) {
            const tube *t = &methods[method];
            render_panel *panel = render_panel_begin(sheet, column, method);
            float share;
            pose_tube(t, fk_quat_from_axis_angle(spec->axis, degrees[column] * PI / 180.0f), method, positions, normals, joints,
                      bones);
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
    for (method = 0; method < 2; ++method) free_tube(&methods[method]);
    free(positions);
    free(normals);
    render_sheet_destroy(sheet);
    return result != 0;
}

/* The outside of a bend's rest limb posed rigidly (see outside_rest_limb()), in
   the plane of the bend: bone 0's edge, the arc of the ball about the joint,
   bone 1's edge, dashed, so that skin beyond it shows as a bulge. */
static void draw_rest_outline(render_panel *panel, const render_camera *camera, const fk_rigid bones[3], float degrees)
{
    enum { STEPS = 12 };
    fk_vec3 previous = fk_rigid_apply(bones[0], fk_vec3_make(-0.5f * BONE_LENGTH, -RADIUS, 0.0f)), next;
    int i;
    for (i = 0; i <= 2 * STEPS; ++i) {
        float a = (float)i / STEPS * degrees * PI / 180.0f, along = 0.5f * BONE_LENGTH * (float)(i - STEPS) / STEPS;
        next = i <= STEPS ? fk_rigid_apply(bones[0], fk_vec3_make(RADIUS * sinf(a), -RADIUS * cosf(a), 0.0f))
                          : fk_rigid_apply(bones[1], fk_vec3_make(along, -RADIUS, 0.0f));
        render_draw_line(panel, camera, previous, next, 1.2f, 4.0f, RENDER_JOINT);
        previous = next;
    }
}

/* LBS, DQS and CoR side by side (columns) under a twist of 90 and 180 degrees
   and a bend of 90 (rows), each panel with its measured radius and bulge. */
static int draw_comparison(const render_options *options)
{
    enum { ROWS = 3, WIDTH = 270, HEIGHT = 165 };
    static const struct {
        const char *deform;
        fk_vec3 axis;
        float degrees, yaw, pitch;
    } rows[ROWS] = {{"twist", {1, 0, 0}, 90.0f, 15.0f, 30.0f},
                    {"twist", {1, 0, 0}, 180.0f, 15.0f, 30.0f},
                    {"bend", {0, 0, 1}, 90.0f, 10.0f, 10.0f}};
    const render_color stripes[METHODS][2] = {{RENDER_ROSE, {0.97f, 0.90f, 0.90f}},
                                              {RENDER_STEEL, {0.90f, 0.94f, 0.98f}},
                                              {{0.45f, 0.68f, 0.50f}, {0.90f, 0.96f, 0.91f}}};
    render_sheet *sheet = render_sheet_create(METHODS, ROWS, WIDTH, HEIGHT,
                                              "Twist and bend: LBS collapses, DQS bulges, CoR bulges less", options->scale);
    tube tubes[METHODS];
    float *positions, *normals;
    fk_vec3 joints[3];
    fk_rigid bones[3];
    int method, row, result;

    for (method = 0; method < METHODS; ++method) tubes[method] = make_tube(stripes[method][0], stripes[method][1]);
    add_centers(&tubes[COR]);
    positions = (float *)malloc((size_t)tubes[0].mesh.vertex_count * 3 * sizeof(float));
    normals = (float *)malloc((size_t)tubes[0].mesh.vertex_count * 3 * sizeof(float));
    if (!sheet || !positions || !normals) return 1;
    for (row = 0; row < ROWS; ++row) {
        fk_quat rotation = fk_quat_from_axis_angle(rows[row].axis, rows[row].degrees * PI / 180.0f);
        fk_vec3 lo = {1e9f, 1e9f, 1e9f}, hi = {-1e9f, -1e9f, -1e9f};
        render_camera camera;
        for (method = 0; method < METHODS; ++method) { /* one camera per row, framing its three results */
            pose_tube(&tubes[method], rotation, method, positions, normals, joints, bones);
            render_bounds_add(&lo, &hi, positions, tubes[method].mesh.vertex_count);
        }
        if (rows[row].axis.x != 0.0f) hi.y += 0.4f * (hi.y - lo.y); /* room for the labels: above a twist, */
        else lo.x -= 0.3f * (hi.x - lo.x);                           /* left of a bend */
        camera = render_camera_frame_box(lo, hi, rows[row].yaw, rows[row].pitch, 30.0f, render_sheet_aspect(sheet));
        for (method = 0; method < METHODS; ++method) {
            const tube *t = &tubes[method];
            render_panel *panel = render_panel_begin(sheet, method, row);
            float radius, swell;
            int where, collapsed, bulging;
            pose_tube(t, rotation, method, positions, normals, joints, bones);
            radius = joint_least_radius(t, positions, joints[1]);
            swell = bulge(t, positions, bones, &where);
            /* drawn red: a radius 5% short of the rest radius, or skin 2% of it outside the limb */
            collapsed = radius < 0.95f;
            bulging = swell > 0.02f;
            render_draw_mesh(panel, &camera, &t->mesh, positions, normals, RENDER_CLAY);
            draw_joint_ring(panel, &camera, t, positions, collapsed ? RENDER_ALERT : RENDER_GOOD);
            if (rows[row].axis.z != 0.0f) draw_rest_outline(panel, &camera, bones, rows[row].degrees);
            render_draw_skeleton(panel, &camera, joints, parents, 3);
            if (bulging) /* the vertex furthest out */
                render_draw_joint(panel, &camera, fk_vec3_make(positions[3 * where], positions[3 * where + 1],
                                                               positions[3 * where + 2]), 4.0f, RENDER_ALERT);
            render_draw_label(panel, 8, 8, 1.25f, RENDER_INK, "%s, %s %.0f deg", method_names[method], rows[row].deform,
                              (double)rows[row].degrees);
            render_draw_label(panel, 8, 26, 1.0f, collapsed ? RENDER_ALERT : RENDER_GOOD,
                              "radius %.2f of rest", (double)radius);
            render_draw_label(panel, 8, 40, 1.0f, bulging ? RENDER_ALERT : RENDER_GOOD,
                              "bulge %.3f of rest", (double)swell);
            render_panel_end(panel);
            printf("compare deform=%s degrees=%.0f method=%s radius=%.4f bulge=%.4f\n", rows[row].deform,
                   (double)rows[row].degrees, method == LBS ? "lbs" : method == DQS ? "dqs" : "cor", (double)radius,
                   (double)swell);
        }
    }
    result = render_sheet_save(sheet, options, "lbs_dqs_cor.png");
    for (method = 0; method < METHODS; ++method) free_tube(&tubes[method]);
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
    int parsed = render_parse_options(argc, argv,
                                      "Draws a twisted and a bent cylinder skinned by LBS, by DQS and with centres of rotation.",
                                      &options);
    if (parsed) return parsed > 0 ? 0 : 2;
    return draw_sheet(&options, &twist) || draw_sheet(&options, &bend) || draw_comparison(&options);
}
