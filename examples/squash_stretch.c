/* squash_stretch.c - bones with scale: squash and stretch on a limb.

   A striped cylinder hangs on two bones that meet half-way, as in lbs_vs_dqs.c.
   The second bone bends and scales: stretched along its length and squashed
   across it (volume kept, 1/sqrt of the stretch across), or the reverse. Its
   joint's transform comes from fk_forward_scaled() as a 3x4 matrix, and four
   rows skin the same pose:
     - LBS of the affine bones (fk_skin_desc::matrices);
     - DQS with scale (the same matrices and the bones' rest frames as bind
       poses: each bone split into a scale part and a rigid part);
     - skinning with centres of rotation (fk_skin_cor(), the centres from
       fk_cor_centers()), the same matrices and bind poses split as DQS splits
       them;
     - DQS that ignores scale, as an engine does that builds each bone's dual
       quaternion from its rotation and the position of its joint: the limb
       bends but does not stretch.
   The last column scales the root uniformly instead (1.5), which scales the
   whole limb about the root's pivot. For each pose the program prints a line
       tip_reach stretch=2.00 bend=60 root_scale=1.00 lbs=4.0000 dqs=4.0000 cor=4.0000 ignoring_scale=2.0000 expected=4.0000
   the distance from the moving joint to the middle of the tube's end ring; for
   the uniform scale s, a line
       uniform_scale scale=1.50 bend=70 lbs=0.0000 dqs=0.0000 cor=0.0000 cor_rigid=0.0000
   each method's largest distance from the root's pivot plus s times (the same
   method's mesh at scale 1 minus the pivot), and the largest distance of CoR of
   the matrices at scale 1 from CoR of the rigid transforms of that pose. Both
   are what tests/test_examples.c reads. Picture: out/squash_stretch.png. */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define PI 3.14159265358979f
#define BONE_LENGTH 2.0f
#define RADIUS 0.45f
#define SIDES 40
#define STRIPES 8
#define JOINTS 3

typedef struct tube {
    render_mesh mesh;
    float *weights;  /* 2 per vertex: bone 0, bone 1 */
    uint16_t *joints; /* 2 per vertex: always 0, 1 */
    float *centers;  /* centres of rotation (the CoR row's tube), or NULL */
    int end_ring;    /* first vertex of the ring at the far end */
} tube;

/* The root at -BONE_LENGTH, the joint that bends and scales at 0, the tip. */
static const int parents[JOINTS] = {-1, 0, 1};
static const fk_vec3 rest_joints[JOINTS] = {{-BONE_LENGTH, 0, 0}, {0, 0, 0}, {BONE_LENGTH, 0, 0}};

static float smoothstep(float edge0, float edge1, float x)
{
    float t = (x - edge0) / (edge1 - edge0);
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    return t * t * (3.0f - 2.0f * t);
}

/* The cylinder with stripes along it, weighted as lbs_vs_dqs.c weights it. */
static tube make_tube(render_color stripe_a, render_color stripe_b)
{
    const float radii[3] = {RADIUS, RADIUS, RADIUS};
    tube t = {{0}, NULL, NULL, NULL, 0};
    int i;
    render_mesh_add_tube(&t.mesh, rest_joints, radii, 3, SIDES, 24);
    render_mesh_paint(&t.mesh, 0, stripe_a);
    t.weights = (float *)malloc((size_t)t.mesh.vertex_count * 2 * sizeof(float));
    t.joints = (uint16_t *)malloc((size_t)t.mesh.vertex_count * 2 * sizeof(uint16_t));
    if (!t.weights || !t.joints) exit(1);
    t.end_ring = -1;
    for (i = 0; i < t.mesh.vertex_count; ++i) {
        const float *p = t.mesh.positions + 3 * i;
        float angle = atan2f(p[2], p[1]) + PI, w1 = smoothstep(-RADIUS, RADIUS, p[0]);
        if ((int)(angle / (2.0f * PI) * STRIPES) % 2) {
            t.mesh.colors[3 * i] = stripe_b.r;
            t.mesh.colors[3 * i + 1] = stripe_b.g;
            t.mesh.colors[3 * i + 2] = stripe_b.b;
        }
        t.weights[2 * i] = 1.0f - w1;
        t.weights[2 * i + 1] = w1;
        t.joints[2 * i] = 0;
        t.joints[2 * i + 1] = 1;
        if (t.end_ring < 0 && fabsf(p[0] - BONE_LENGTH) < 1e-4f && fabsf(fabsf(p[1]) + fabsf(p[2]) - RADIUS) < 0.5f)
            t.end_ring = i; /* the first vertex of the last ring (the caps' centres come after the rings) */
    }
    return t;
}

/* The rows; COR_OF_RIGID_BONES is CoR of the rigid transforms, drawn in no row. */
enum { LBS, DQS_WITH_SCALE, COR, DQS_IGNORING_SCALE, ROWS, COR_OF_RIGID_BONES = ROWS };

/* Skins the tube with the root scaled by root_scale and the moving joint bent by
   `bend` degrees about z and scaled by `stretch` along the bone, 1/sqrt(stretch)
   across it. */
static void pose_tube(const tube *t, float stretch, float bend, float root_scale, int row, float *positions, float *normals,
                      fk_vec3 joints_out[JOINTS])
{
    fk_result result;
    fk_quat rotations[JOINTS];
    fk_vec3 scales[JOINTS];
    fk_rigid bind_poses[JOINTS], rigid[JOINTS];
    float matrices[JOINTS][12];
    fk_skin_desc skin = {0};
    int j;
    for (j = 0; j < JOINTS; ++j) {
        rotations[j] = fk_quat_identity();
        scales[j] = fk_vec3_make(1, 1, 1);
        bind_poses[j] = fk_rigid_make(fk_quat_identity(), rest_joints[j]); /* the rest frames */
    }
    rotations[1] = fk_quat_from_axis_angle(fk_vec3_make(0, 0, 1), bend * PI / 180.0f);
    scales[0] = fk_vec3_make(root_scale, root_scale, root_scale);
    scales[1] = fk_vec3_make(stretch, 1.0f / sqrtf(stretch), 1.0f / sqrtf(stretch));
    if (fk_forward_scaled(JOINTS, parents, rest_joints, rotations, NULL, scales, &matrices[0][0]) != FK_OK) exit(1);
    for (j = 0; j < JOINTS; ++j) {
        const float *m = matrices[j];
        fk_vec3 x = rest_joints[j];
        joints_out[j] = fk_vec3_make(m[0] * x.x + m[1] * x.y + m[2] * x.z + m[3], m[4] * x.x + m[5] * x.y + m[6] * x.z + m[7],
                                     m[8] * x.x + m[9] * x.y + m[10] * x.z + m[11]);
        /* scale ignored: the joint's rotation, about the joint where the scaled pose puts it */
        rigid[j].q = fk_quat_identity();
        if (j >= 1) rigid[j].q = rotations[1];
        rigid[j].t = fk_vec3_sub(joints_out[j], fk_quat_rotate(rigid[j].q, x));
    }
    skin.vertex_count = t->mesh.vertex_count;
    skin.influences = 2;
    skin.positions = t->mesh.positions;
    skin.normals = t->mesh.normals;
    skin.joints = t->joints;
    skin.weights = t->weights;
    skin.transform_count = JOINTS;
    skin.out_positions = positions;
    skin.out_normals = normals;
    if (row == DQS_IGNORING_SCALE || row == COR_OF_RIGID_BONES) {
        skin.transforms = rigid;
    } else {
        skin.matrices = &matrices[0][0];
        skin.bind_poses = bind_poses;
    }
    result = row == LBS                                 ? fk_skin_lbs(&skin)
             : row == COR || row == COR_OF_RIGID_BONES ? fk_skin_cor(&skin, t->centers, 0)
                                                       : fk_skin_dqs(&skin);
    if (result != FK_OK) exit(1);
}

/* The largest distance between two skinnings of the tube. */
static float largest_distance(int vertex_count, const float *a, const float *b)
{
    float largest = 0.0f;
    int i;
    for (i = 0; i < vertex_count; ++i) {
        float d = fk_vec3_length(fk_vec3_make(a[3 * i] - b[3 * i], a[3 * i + 1] - b[3 * i + 1], a[3 * i + 2] - b[3 * i + 2]));
        largest = d > largest ? d : largest;
    }
    return largest;
}

/* Distance from the moving joint to the middle of the tube's end ring. */
static float tip_reach(const tube *t, const float *positions, fk_vec3 joint)
{
    fk_vec3 sum = fk_vec3_make(0, 0, 0);
    int i;
    for (i = 0; i < SIDES; ++i) {
        const float *p = positions + 3 * (t->end_ring + i);
        sum = fk_vec3_add(sum, fk_vec3_make(p[0], p[1], p[2]));
    }
    return fk_vec3_length(fk_vec3_sub(fk_vec3_scale(sum, 1.0f / SIDES), joint));
}

/* For the uniform scale s at the root: each method's largest distance from
   x_0 + s (v - x_0), v its mesh at scale 1 and x_0 the root's pivot; and CoR of
   the matrices at scale 1 against CoR of the rigid transforms. */
static void print_uniform_scale(const tube tubes[ROWS], float scale, float bend, float *scaled, float *unscaled,
                                float *normals)
{
    static const int methods[3] = {LBS, DQS_WITH_SCALE, COR};
    float error[4];
    fk_vec3 joints[JOINTS];
    int m, i, count = tubes[0].mesh.vertex_count;
    for (m = 0; m < 3; ++m) {
        pose_tube(&tubes[methods[m]], 1.0f, bend, scale, methods[m], scaled, normals, joints);
        pose_tube(&tubes[methods[m]], 1.0f, bend, 1.0f, methods[m], unscaled, normals, joints);
        for (i = 0; i < 3 * count; ++i) {
            float pivot = i % 3 == 0 ? rest_joints[0].x : i % 3 == 1 ? rest_joints[0].y : rest_joints[0].z;
            unscaled[i] = pivot + scale * (unscaled[i] - pivot);
        }
        error[m] = largest_distance(count, scaled, unscaled);
    }
    pose_tube(&tubes[COR], 1.0f, bend, 1.0f, COR, scaled, normals, joints);
    pose_tube(&tubes[COR], 1.0f, bend, 1.0f, COR_OF_RIGID_BONES, unscaled, normals, joints);
    error[3] = largest_distance(count, scaled, unscaled);
    printf("uniform_scale scale=%.2f bend=%.0f lbs=%.7f dqs=%.7f cor=%.7f cor_rigid=%.7f\n", (double)scale, (double)bend,
           (double)error[0], (double)error[1], (double)error[2], (double)error[3]);
}

int main(int argc, char **argv)
{
    static const float stretches[] = {1.0f, 1.8f, 1.8f, 0.55f, 1.0f};
    static const float bends[] = {0.0f, 0.0f, 70.0f, 70.0f, 70.0f};
    static const float root_scales[] = {1.0f, 1.0f, 1.0f, 1.0f, 1.5f};
    static const char *const row_names[ROWS] = {"LBS", "DQS with scale", "CoR (centres of rotation)", "DQS ignoring scale"};
    enum { COLUMNS = 5, WIDTH = 240, HEIGHT = 170 };
    render_options options;
    render_sheet *sheet;
    render_camera camera;
    tube tubes[ROWS];
    float *positions, *normals, *unscaled, reach[ROWS];
    fk_vec3 lo = {1e9f, 1e9f, 1e9f}, hi = {-1e9f, -1e9f, -1e9f}, joints[JOINTS];
    int row, column, result;
    int parsed = render_parse_options(argc, argv,
                                      "Draws squash and stretch on a limb: LBS, DQS with scale, CoR, DQS ignoring scale.",
                                      &options);
    if (parsed) return parsed > 0 ? 0 : 2;
    sheet = render_sheet_create(COLUMNS, ROWS, WIDTH, HEIGHT,
                                "Squash and stretch: LBS, DQS with scale and CoR follow the bone", /* the rows say the rest */
                                options.scale);
    tubes[LBS] = make_tube(RENDER_ROSE, (render_color){0.97f, 0.90f, 0.90f});
    tubes[DQS_WITH_SCALE] = make_tube(RENDER_STEEL, (render_color){0.90f, 0.94f, 0.98f});
    tubes[COR] = make_tube((render_color){0.45f, 0.68f, 0.50f}, (render_color){0.90f, 0.96f, 0.91f});
    tubes[COR].centers = render_cor_centers(tubes[COR].mesh.vertex_count, tubes[COR].mesh.positions, 2, tubes[COR].joints,
                                            tubes[COR].weights, tubes[COR].mesh.triangle_count, tubes[COR].mesh.triangles);
    tubes[DQS_IGNORING_SCALE] = make_tube((render_color){0.62f, 0.62f, 0.66f}, (render_color){0.93f, 0.93f, 0.94f});
    positions = (float *)malloc((size_t)tubes[0].mesh.vertex_count * 3 * sizeof(float));
    normals = (float *)malloc((size_t)tubes[0].mesh.vertex_count * 3 * sizeof(float));
    unscaled = (float *)malloc((size_t)tubes[0].mesh.vertex_count * 3 * sizeof(float));
    if (!sheet || !positions || !normals || !unscaled || !tubes[COR].centers) return 1;
    for (column = 0; column < COLUMNS; ++column) { /* one camera framing every pose */
        pose_tube(&tubes[LBS], stretches[column], bends[column], root_scales[column], LBS, positions, normals, joints);
        render_bounds_add(&lo, &hi, positions, tubes[LBS].mesh.vertex_count);
    }
    camera = render_camera_frame_box(lo, hi, 10.0f, 12.0f, 30.0f, render_sheet_aspect(sheet));
    for (column = 0; column < COLUMNS; ++column) {
        float expected = root_scales[column] * stretches[column] * BONE_LENGTH;
        for (row = 0; row < ROWS; ++row) {
            render_panel *panel = render_panel_begin(sheet, column, row);
            pose_tube(&tubes[row], stretches[column], bends[column], root_scales[column], row, positions, normals, joints);
            reach[row] = tip_reach(&tubes[row], positions, joints[1]);
            render_draw_mesh(panel, &camera, &tubes[row].mesh, positions, normals, RENDER_CLAY);
            render_draw_skeleton(panel, &camera, joints, parents, JOINTS);
            render_draw_label(panel, 8, 8, 1.1f, RENDER_INK, "%s", row_names[row]);
            if (root_scales[column] != 1.0f)
                render_draw_label(panel, 8, 22, 1.0f, RENDER_INK, "root scale %.2f, bend %.0f deg", (double)root_scales[column],
                                  (double)bends[column]);
            else
                render_draw_label(panel, 8, 22, 1.0f, RENDER_INK, "stretch %.2f, bend %.0f deg", (double)stretches[column],
                                  (double)bends[column]);
            render_draw_label(panel, 8, (float)HEIGHT - 18.0f, 1.0f,
                              fabsf(reach[row] - expected) < 0.05f ? RENDER_GOOD : RENDER_ALERT, "tip at %.2f (bone %.2f)",
                              (double)reach[row], (double)expected);
            render_panel_end(panel);
        }
        printf("tip_reach stretch=%.2f bend=%.0f root_scale=%.2f lbs=%.4f dqs=%.4f cor=%.4f ignoring_scale=%.4f "
               "expected=%.4f\n",
               (double)stretches[column], (double)bends[column], (double)root_scales[column], (double)reach[LBS],
               (double)reach[DQS_WITH_SCALE], (double)reach[COR], (double)reach[DQS_IGNORING_SCALE], (double)expected);
        if (root_scales[column] != 1.0f)
            print_uniform_scale(tubes, root_scales[column], bends[column], positions, unscaled, normals);
    }
    result = render_sheet_save(sheet, &options, "squash_stretch.png");
    for (row = 0; row < ROWS; ++row) {
        render_mesh_free(&tubes[row].mesh);
        free(tubes[row].weights);
        free(tubes[row].joints);
        free(tubes[row].centers);
    }
    free(positions);
    free(normals);
    free(unscaled);
    render_sheet_destroy(sheet);
    return result != 0;
}
