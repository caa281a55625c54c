/* bvh_pose - poses a BVH motion capture skeleton with fk_lbs.h.

   build/bvh_pose [FILE] [--frames LIST] [--dump-joints] [--png PATH] [--cor]

   --frames 0,100,250   frames to pose (0-based), any number; ranges too: 0-4499/50
                        is every 50th frame of the first 4500; default: six spread
                        over the clip
   --dump-joints        print "<frame> <joint> <x> <y> <z>" for every requested frame
                        and every ROOT and JOINT in file order: the joint's world
                        position in the file's units
   --png PATH           draw a contact sheet, one column per frame: the skeleton,
                        then a procedural body skinned onto it with LBS and with DQS
   --cor                and with centres of rotation (CoR), a fourth row: the
                        centres computed once by fk_cor_centers() (the time it took
                        is printed), then fk_skin_cor(). Optional because the
                        body's weights, never quite zero, share every bone pair
                        widely, which makes the precompute the slowest step

   Without FILE it reads /usr/share/assimp/models/BVH/01_01.bvh (Debian package
   assimp-testmodels). The whole conversion is bvh_rest_pose() and
   bvh_frame_pose() in bvh.h, then fk_forward(): a BVH rest pose has no rotation,
   so the channels are fk_forward()'s inputs as they stand.

   The body is made of one tapered tube per bone, and its weights are computed
   automatically from the distances to the bones (see body_weights()). */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"
#include "bvh.h"
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_FILE "/usr/share/assimp/models/BVH/01_01.bvh"
#define MAX_PICTURE_FRAMES 8
#define BODY_INFLUENCES 4

/* One frame's skeleton, posed. */
typedef struct skeleton {
    int joint_count;
    int *parents;
    fk_vec3 *rest_joints, *translations, *posed;
    fk_quat *rotations;
    fk_rigid *transforms;
} skeleton;

static int skeleton_create(const bvh_file *file, skeleton *s)
{
    size_t n = (size_t)file->joint_count;
    s->joint_count = file->joint_count;
    s->parents = (int *)malloc(n * sizeof *s->parents);
    s->rest_joints = (fk_vec3 *)malloc(n * sizeof *s->rest_joints);
    s->translations = (fk_vec3 *)malloc(n * sizeof *s->translations);
    s->posed = (fk_vec3 *)malloc(n * sizeof *s->posed);
    s->rotations = (fk_quat *)malloc(n * sizeof *s->rotations);
    s->transforms = (fk_rigid *)malloc(n * sizeof *s->transforms);
    if (!s->parents || !s->rest_joints || !s->translations || !s->posed || !s->rotations || !s->transforms) return 0;
    bvh_rest_pose(file, s->parents, s->rest_joints);
    return 1;
}

static void skeleton_free(skeleton *s)
{
    free(s->parents); free(s->rest_joints); free(s->translations); free(s->posed); free(s->rotations);
    free(s->transforms);
}

/* Poses one frame: the bone transforms and the joints' positions. */
static fk_result skeleton_pose(skeleton *s, const bvh_file *file, int frame)
{
    fk_result result;
    bvh_frame_pose(file, frame, s->rotations, s->translations);
    result = fk_forward(s->joint_count, s->parents, s->rest_joints, s->rotations, s->translations, s->transforms);
    return result == FK_OK ? fk_posed_joints(s->joint_count, s->rest_joints, s->transforms, s->posed) : result;
}

/* ---- A procedural body with automatic weights ------------------------------------ */

typedef struct body {
    render_mesh mesh;
    uint16_t *joints;                 /* BODY_INFLUENCES per vertex */
    float *weights;
    float *positions, *normals;       /* skinned */
    float *centers;                   /* centres of rotation, for CoR */
} body;

static float distance_to_segment(fk_vec3 p, fk_vec3 a, fk_vec3 b)
{
    fk_vec3 ab = fk_vec3_sub(b, a);
    float length2 = fk_vec3_dot(ab, ab), t = length2 > 0.0f ? fk_vec3_dot(fk_vec3_sub(p, a), ab) / length2 : 0.0f;
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    return fk_vec3_length(fk_vec3_sub(p, fk_vec3_add(a, fk_vec3_scale(ab, t))));
}

/* A bone runs from a joint's parent to the joint and moves with the parent. Each
   vertex weighs every bone by (d_nearest / d)^8, d its distance to the bone: a vertex
   midway between two bones (around a joint) is shared evenly, one a bone's radius
   further from the second bone keeps almost all its weight on the first. The
   BODY_INFLUENCES heaviest joints are kept and normalized. */
static void body_weights(body *b, const skeleton *s, float min_radius)
{
    int v, j, k;
    for (v = 0; v < b->mesh.vertex_count; ++v) {
        fk_vec3 p = fk_vec3_make(b->mesh.positions[3 * v], b->mesh.positions[3 * v + 1], b->mesh.positions[3 * v + 2]);
        float nearest = 1e30f, best_weight[BODY_INFLUENCES] = {0}, sum = 0.0f;
        int best_joint[BODY_INFLUENCES] = {0};
        float *joint_weight = (float *)calloc((size_t)s->joint_count, sizeof(float));
        for (j = 0; j < s->joint_count; ++j)
            if (s->parents[j] >= 0) {
                float d = distance_to_segment(p, s->rest_joints[s->parents[j]], s->rest_joints[j]);
                nearest = d < nearest ? d : nearest;
            }
        nearest = nearest > min_radius ? nearest : min_radius;
        for (j = 0; j < s->joint_count; ++j)
            if (s->parents[j] >= 0) {
                float d = distance_to_segment(p, s->rest_joints[s->parents[j]], s->rest_joints[j]);
                float ratio = nearest / (d > nearest ? d : nearest);
                float r2 = ratio * ratio, r4 = r2 * r2;
                joint_weight[s->parents[j]] += r4 * r4;
            }
        for (j = 0; j < s->joint_count; ++j) /* keep the heaviest, sorted by insertion */
            for (k = 0; k < BODY_INFLUENCES; ++k)
                if (joint_weight[j] > best_weight[k]) {
                    int m;
                    for (m = BODY_INFLUENCES - 1; m > k; --m) { best_weight[m] = best_weight[m - 1]; best_joint[m] = best_joint[m - 1]; }
                    best_weight[k] = joint_weight[j];
                    best_joint[k] = j;
                    break;
                }
        for (k = 0; k < BODY_INFLUENCES; ++k) sum += best_weight[k];
        for (k = 0; k < BODY_INFLUENCES; ++k) {
            b->joints[BODY_INFLUENCES * v + k] = (uint16_t)best_joint[k];
            b->weights[BODY_INFLUENCES * v + k] = sum > 0.0f ? best_weight[k] / sum : (k == 0 ? 1.0f : 0.0f);
        }
        free(joint_weight);
    }
}

/* One tapered tube per bone of the rest pose, thick in proportion to the bone but
   within limits set by the skeleton's size; bones of zero length are skipped.
   With_centers: its centres of rotation too. */
static int body_create(body *b, const skeleton *s, int with_centers)
{
    fk_vec3 lo = s->rest_joints[0], hi = s->rest_joints[0];
    float size, min_radius;
    clock_t start;
    int j;
    memset(b, 0, sizeof *b);
    render_bounds_add(&lo, &hi, &s->rest_joints[0].x, s->joint_count);
    size = fk_vec3_length(fk_vec3_sub(hi, lo));
    min_radius = 0.012f * size;
    for (j = 0; j < s->joint_count; ++j) {
        fk_vec3 path[2];
        float radii[2], length;
        if (s->parents[j] < 0) continue;
        path[0] = s->rest_joints[s->parents[j]];
        path[1] = s->rest_joints[j];
        length = fk_vec3_length(fk_vec3_sub(path[1], path[0]));
        if (length < 1e-4f * size) continue;
        radii[0] = 0.2f * length;
        radii[0] = radii[0] < min_radius ? min_radius : radii[0] > 0.035f * size ? 0.035f * size : radii[0];
        radii[1] = 0.8f * radii[0];
        render_mesh_add_tube(&b->mesh, path, radii, 2, 16, 6);
    }
    b->joints = (uint16_t *)malloc((size_t)b->mesh.vertex_count * BODY_INFLUENCES * sizeof *b->joints);
    b->weights = (float *)malloc((size_t)b->mesh.vertex_count * BODY_INFLUENCES * sizeof *b->weights);
    b->positions = (float *)malloc((size_t)b->mesh.vertex_count * 3 * sizeof *b->positions);
    b->normals = (float *)malloc((size_t)b->mesh.vertex_count * 3 * sizeof *b->normals);
    if (!b->joints || !b->weights || !b->positions || !b->normals) return 0;
    body_weights(b, s, min_radius);
    if (!with_centers) return 1;
    start = clock();
    b->centers = render_cor_centers(b->mesh.vertex_count, b->mesh.positions, BODY_INFLUENCES, b->joints, b->weights,
                                    b->mesh.triangle_count, b->mesh.triangles);
    if (b->centers)
        printf("centres of rotation: %d vertices, %d triangles, computed in %.1f ms of CPU time\n", b->mesh.vertex_count,
               b->mesh.triangle_count, 1000.0 * (double)(clock() - start) / CLOCKS_PER_SEC);
    return b->centers != NULL;
}

enum { LBS, DQS, COR }; /* the skinning methods */

static fk_result body_skin(body *b, const skeleton *s, int method)
{
    fk_skin_desc skin;
    memset(&skin, 0, sizeof skin);
    skin.vertex_count = b->mesh.vertex_count;
    skin.influences = BODY_INFLUENCES;
    skin.positions = b->mesh.positions;
    skin.normals = b->mesh.normals;
    skin.joints = b->joints;
    skin.weights = b->weights;
    skin.transforms = s->transforms;
    skin.transform_count = s->joint_count;
    skin.out_positions = b->positions;
    skin.out_normals = b->normals;
    return method == COR ? fk_skin_cor(&skin, b->centers, 0) : method == DQS ? fk_skin_dqs(&skin) : fk_skin_lbs(&skin);
}

static void body_free(body *b)
{
    render_mesh_free(&b->mesh);
    free(b->joints); free(b->weights); free(b->positions); free(b->normals); free(b->centers);
}

/* ---- The contact sheet -------------------------------------------------------------- */

/* Every panel shows a box of the same size around its frame's skeleton, so that the
   figures are drawn at one scale however far the root travels. Rows: the skeleton,
   LBS, DQS, and with rows = 4 CoR. */
static int draw_sheet(const char *png_path, const char *bvh_path, const bvh_file *file, skeleton *s, int rows,
                      const int *frames, int frame_count)
{
    static const char *const row_names[4] = {"skeleton", "LBS", "DQS", "CoR (centres of rotation)"};
    render_sheet *sheet;
    fk_vec3 half = fk_vec3_make(0, 0, 0), center[MAX_PICTURE_FRAMES];
    char title[256];
    const char *base = strrchr(bvh_path, '/');
    body b;
    int f, row, ok;
    if (frame_count > MAX_PICTURE_FRAMES) {
        fprintf(stderr, "bvh_pose: a picture holds at most %d frames\n", MAX_PICTURE_FRAMES);
        return 0;
    }
    if (!body_create(&b, s, rows > 3)) { fprintf(stderr, "bvh_pose: out of memory\n"); return 0; }
    for (f = 0; f < frame_count; ++f) {
        fk_vec3 lo, hi;
        skeleton_pose(s, file, frames[f]);
        lo = hi = s->posed[0];
        render_bounds_add(&lo, &hi, &s->posed[0].x, s->joint_count);
        center[f] = fk_vec3_scale(fk_vec3_add(lo, hi), 0.5f);
        half.x = fmaxf(half.x, 0.5f * (hi.x - lo.x)); half.y = fmaxf(half.y, 0.5f * (hi.y - lo.y));
        half.z = fmaxf(half.z, 0.5f * (hi.z - lo.z));
    }
    snprintf(title, sizeof title, "%s: frames of the skeleton, and a body skinned onto it with LBS%s",
             base ? base + 1 : bvh_path, rows > 3 ? ", DQS and CoR" : " and DQS");
    sheet = render_sheet_create(frame_count, rows, 220, 280, title, 1.0f);
    if (!sheet) { body_free(&b); fprintf(stderr, "bvh_pose: out of memory\n"); return 0; }
    for (f = 0; f < frame_count; ++f) {
        render_camera camera = render_camera_frame_box(fk_vec3_sub(center[f], half), fk_vec3_add(center[f], half),
                                                       30.0f, 10.0f, 30.0f, render_sheet_aspect(sheet));
        skeleton_pose(s, file, frames[f]);
        for (row = 0; row < rows; ++row) {
            render_panel *panel = render_panel_begin(sheet, f, row);
            if (row == 0) {
                render_draw_skeleton(panel, &camera, s->posed, s->parents, s->joint_count);
            } else {
                body_skin(&b, s, row - 1); /* cannot fail: the skeleton posed, the weights and centres are ours */
                render_draw_mesh(panel, &camera, &b.mesh, b.positions, b.normals, RENDER_CLAY);
            }
            render_draw_label(panel, 8, 8, 1, RENDER_INK, "frame %d, %.2f s", frames[f], (double)frames[f] * file->frame_time);
            render_draw_label(panel, 8, 22, 1, RENDER_SOFT_INK, "%s", row_names[row]);
            render_panel_end(panel);
        }
    }
    ok = render_sheet_save_path(sheet, png_path) == 0;
    render_sheet_destroy(sheet);
    body_free(&b);
    return ok;
}

static int usage(void)
{
    fprintf(stderr, "usage: bvh_pose [FILE.bvh] [--frames 0,10,20 or 0-4499/50] [--dump-joints] [--png PATH [--cor]]\n");
    return 2;
}

/* "3,10,200" -> {3, 10, 200}; a range "0-4499/50" gives every 50th frame from
   0 to 4499 ("/1" may be left out). Counts the frames when frames is NULL.
   Returns the number of frames, or -1 for a malformed list. */
static long parse_frame_list(const char *text, int *frames)
{
    long count = 0;
    while (*text) {
        char *end;
        long first = strtol(text, &end, 10), last, step = 1, value;
        if (end == text || first < 0 || first > 1000000000L) return -1;
        last = first;
        if (*end == '-') {
            text = end + 1;
            last = strtol(text, &end, 10);
            if (end == text || last < first || last > 1000000000L) return -1;
            if (*end == '/') {
                text = end + 1;
                step = strtol(text, &end, 10);
                if (end == text || step < 1) return -1;
            }
        }
        for (value = first; value <= last; value += step) {
            if (frames) frames[count] = (int)value;
            if (++count > 100000000L) return -1;
        }
        if (*end == ',') end++;
        else if (*end != '\0') return -1;
        text = end;
    }
    return count > 0 ? count : -1;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *png_path = NULL;
    const char *frame_list = NULL;
    int *frames = NULL, frame_count = 0, dump_joints = 0, rows = 3, a, f, j, status = 0;
    bvh_file file;
    skeleton s;
    char error[512];

    for (a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--frames") == 0 && a + 1 < argc) {
            frame_list = argv[++a];
            if (parse_frame_list(frame_list, NULL) < 0) {
                fprintf(stderr, "bvh_pose: --frames wants comma-separated frame numbers or ranges, like "
                                "0,50,100 or 0-4499/50\n");
                return 2;
            }
        } else if (strcmp(argv[a], "--dump-joints") == 0) {
            dump_joints = 1;
        } else if (strcmp(argv[a], "--cor") == 0) {
            rows = 4;
        } else if (strcmp(argv[a], "--png") == 0 && a + 1 < argc) {
            png_path = argv[++a];
        } else if (argv[a][0] == '-' || path) {
            return usage();
        } else {
            path = argv[a];
        }
    }
    if (!path) {
        FILE *probe = fopen(DEFAULT_FILE, "rb");
        if (!probe) {
            fprintf(stderr, "bvh_pose: no FILE given and %s is missing;\n"
                            "install it with 'apt-get install assimp-testmodels' or name a .bvh file\n", DEFAULT_FILE);
            return 1;
        }
        fclose(probe);
        path = DEFAULT_FILE;
    }
    if (!bvh_load(path, &file, error, sizeof error)) {
        fprintf(stderr, "bvh_pose: %s\n", error);
        return 1;
    }
    frames = (int *)malloc(sizeof *frames * (size_t)(frame_list ? parse_frame_list(frame_list, NULL) : 6));
    if (!frames) {
        fprintf(stderr, "bvh_pose: out of memory\n");
        bvh_free(&file);
        return 1;
    }
    if (frame_list)
        frame_count = (int)parse_frame_list(frame_list, frames);
    else /* six frames spread over the clip */
        for (f = 0; f < 6 && f < file.frame_count; ++f)
            frames[frame_count++] = file.frame_count < 6 ? f : (int)((long)f * (file.frame_count - 1) / 5);
    for (f = 0; f < frame_count; ++f)
        if (frames[f] >= file.frame_count) {
            fprintf(stderr, "bvh_pose: frame %d requested, but %s has frames 0 to %d\n", frames[f], path,
                    file.frame_count - 1);
            free(frames);
            bvh_free(&file);
            return 1;
        }
    if (!skeleton_create(&file, &s)) {
        fprintf(stderr, "bvh_pose: out of memory\n");
        free(frames);
        bvh_free(&file);
        return 1;
    }
    if (!dump_joints)
        printf("%s: %d joints, %d channels, %d frames at %.4g s\n", path, file.joint_count, file.channel_count,
               file.frame_count, file.frame_time);
    for (f = 0; f < frame_count && status == 0; ++f) {
        fk_result result = skeleton_pose(&s, &file, frames[f]);
        if (result != FK_OK) {
            fprintf(stderr, "bvh_pose: frame %d: %s\n", frames[f], fk_result_description(result));
            status = 1;
        } else if (dump_joints) {
            for (j = 0; j < file.joint_count; ++j)
                if (!file.joints[j].is_end_site)
                    printf("%d %s %.9g %.9g %.9g\n", frames[f], file.joints[j].name, (double)s.posed[j].x,
                           (double)s.posed[j].y, (double)s.posed[j].z);
        }
    }
    if (status == 0 && png_path && !draw_sheet(png_path, path, &file, &s, rows, frames, frame_count)) status = 1;
    skeleton_free(&s);
    bvh_free(&file);
    free(frames);
    return status;
}
