/* rig_pose - poses and skins a rigged model from any file assimp reads.

   build/rig_pose MODEL [--time SECONDS] [--method lbs|dqs|cor] [--dqs-center vertex|bone] [--dump-vertices]
                  [--png PATH]

   --time SECONDS     when in the first animation to pose it (default 0; clamped)
   --method lbs|dqs|cor
                      linear blend or dual quaternion skinning (default lbs), or
                      skinning with centres of rotation: the centres computed once
                      from the rest mesh by fk_cor_centers() (the time it took is
                      printed), then fk_skin_cor()
   --dqs-center vertex|bone
                      where DQS centres the scale of a pose that scales
                      (fk_skin_desc::dqs_scale_center): at the vertex (default; as
                      Blender after 3.4 does) or at each bone's rest origin (as
                      Blender 3.4 and earlier do); rigid poses are the same either way
   --dump-vertices    print "x y z" for every vertex of the first skinned mesh, in
                      the file's order, in world space as glTF defines a skinned
                      vertex: sum_j w_j (joint world matrix x inverse bind matrix) v
   --png PATH         draw the bind pose, the pose at SECONDS with LBS and with DQS
                      (with CoR instead of the bind pose for --method cor), and
                      the chosen method at three more times of the animation

   assimp_rig.c reads the file's nodes as an engine does: local translation,
   rotation and scale, inverse bind matrices, the node tree prepared once by
   fk_skeleton_init(). What is left is the library's ordinary loop: each pose's
   skinning transforms from fk_forward_engine_rigid() (rig_skinning_at()) and
   fk_skin_lbs(), fk_skin_dqs() or fk_skin_cor(). A pose whose nodes scale
   (animated scale, squash and stretch, an armature scaled by 100) skins with
   each joint's skinning matrix from fk_forward_engine() instead, DQS and CoR
   with the bones split into scale and rigid parts
   (fk_bind_frames_from_matrices() gives their rest frames). */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"
#include "assimp_rig.h"
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { LBS, DQS, COR }; /* the skinning methods, as --method names them */
static const char *const method_names[3] = {"lbs", "dqs", "cor"};

static int usage(void)
{
    fprintf(stderr, "usage: rig_pose MODEL [--time SECONDS] [--method lbs|dqs|cor] [--dqs-center vertex|bone]\n"
                    "                [--dump-vertices] [--png PATH]\n"
                    "  e.g. rig_pose /usr/share/assimp/models/glTF2/simple_skin/simple_skin.gltf --time 2\n"
                    "  (models from the Debian package assimp-testmodels)\n");
    return 2;
}

/* Everything one pose needs, skinned positions and normals included. */
typedef struct posed_model {
    fk_vec3 *joints;
    fk_rigid *transforms;
    float *matrices;
    float *positions, *normals;
} posed_model;

static int posed_model_create(const rig *model, posed_model *p)
{
    size_t joints = (size_t)model->joint_count, vertices = (size_t)model->vertex_count;
    p->joints = (fk_vec3 *)malloc(joints * sizeof *p->joints);
    p->transforms = (fk_rigid *)malloc(joints * sizeof *p->transforms);
    p->matrices = (float *)malloc(joints * 12 * sizeof *p->matrices);
    p->positions = (float *)malloc(vertices * 3 * sizeof *p->positions + 1);
    p->normals = (float *)malloc(vertices * 3 * sizeof *p->normals + 1);
    return p->joints && p->transforms && p->matrices && p->positions && p->normals;
}

static void posed_model_free(posed_model *p)
{
    free(p->joints); free(p->transforms); free(p->matrices); free(p->positions); free(p->normals);
}

/* A pose with scale (rig_skinning_at() gave matrices): each joint's skinning
   matrix for the stored vertices P v, C_i = W_i IB_i P^-1, which LBS takes as it is.
   DQS with scale needs rigid rest frames: in the space F where the frames
   P IB_i^-1 are (fk_bind_frames_from_matrices(); F is the identity unless the
   whole rig is scaled), it skins F^-1 P v with F^-1 C_i F and takes the result
   back by F. So does CoR, its centres moved by F^-1 too. */
static fk_result skin_with_scale(rig *model, int method, fk_dqs_scale_center center, const float *rest_normals,
                                 const float *centers, posed_model *p)
{
    size_t joints = (size_t)model->joint_count, vertices = (size_t)model->vertex_count, v, e;
    int split = method != LBS; /* DQS and CoR split the bones into scale and rigid parts */
    float *inverse_bind = (float *)malloc(joints * 12 * sizeof(float) + 1);
    float *matrices = p->matrices;
    float *moved = (float *)malloc(vertices * 9 * sizeof(float) + 1);
    fk_rigid *bind_poses = (fk_rigid *)malloc(joints * sizeof(fk_rigid) + 1);
    float space[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, space_inverse[12];
    fk_skin_desc skin;
    fk_result result = FK_OK;
    if (!inverse_bind || !moved || !bind_poses) result = FK_ERROR_NULL_ARGUMENT;
    for (v = 0; v < joints && result == FK_OK; ++v) /* the inverse bind matrices of the stored vertices: IB_i P^-1 */
        memcpy(inverse_bind + 12 * v, model->node_inverse_bind + 12 * model->joint_node[v], 12 * sizeof(float));
    if (result == FK_OK && split)
        result = fk_bind_frames_from_matrices(model->joint_count, inverse_bind, space, bind_poses);
    if (result == FK_OK) result = fk_mat34_inverse(space, space_inverse);
    for (v = 0; v < joints && result == FK_OK && split; ++v) { /* F^-1 C_i F */
        float right[12];
        fk_mat34_mul(matrices + 12 * v, space, right);
        fk_mat34_mul(space_inverse, right, matrices + 12 * v);
    }
    for (v = 0; v < joints && result == FK_OK; ++v) { /* the posed joints, C_i x_i */
        const float *m = matrices + 12 * v;
        fk_vec3 x = model->rest_joints[v];
        float world[3];
        for (e = 0; e < 3; ++e) {
            float in_space[3];
            size_t r;
            for (r = 0; r < 3; ++r)
                in_space[r] = space_inverse[4 * r] * x.x + space_inverse[4 * r + 1] * x.y + space_inverse[4 * r + 2] * x.z;
            world[e] = m[4 * e] * in_space[0] + m[4 * e + 1] * in_space[1] + m[4 * e + 2] * in_space[2] + m[4 * e + 3];
        }
        p->joints[v] = fk_vec3_make(space[0] * world[0] + space[1] * world[1] + space[2] * world[2],
                                    space[4] * world[0] + space[5] * world[1] + space[6] * world[2],
                                    space[8] * world[0] + space[9] * world[1] + space[10] * world[2]);
    }
    for (v = 0; v < vertices && result == FK_OK; ++v) /* F^-1 P v, F^-1 of the centres; normals by F^T */
        for (e = 0; e < 3; ++e) {
            const float *position = model->positions + 3 * v, *normal = rest_normals ? rest_normals + 3 * v : position;
            const float *centre = centers ? centers + 3 * v : position;
            moved[3 * v + e] = space_inverse[4 * e] * position[0] + space_inverse[4 * e + 1] * position[1] +
                               space_inverse[4 * e + 2] * position[2];
            moved[3 * (vertices + v) + e] = space[e] * normal[0] + space[4 + e] * normal[1] + space[8 + e] * normal[2];
            moved[3 * (2 * vertices + v) + e] = space_inverse[4 * e] * centre[0] + space_inverse[4 * e + 1] * centre[1] +
                                                space_inverse[4 * e + 2] * centre[2];
        }
    memset(&skin, 0, sizeof skin);
    skin.vertex_count = model->vertex_count;
    skin.influences = model->influences;
    skin.positions = moved;
    skin.normals = rest_normals ? moved + 3 * vertices : NULL;
    skin.joints = model->joints;
    skin.weights = model->weights;
    skin.matrices = matrices;
    skin.bind_poses = split ? bind_poses : NULL; /* only DQS and CoR computed them */
    skin.dqs_scale_center = center;
    skin.transform_count = model->joint_count;
    skin.out_positions = p->positions;
    skin.out_normals = rest_normals ? p->normals : NULL;
    if (result == FK_OK)
        result = method == COR ? fk_skin_cor(&skin, moved + 6 * vertices, 0) : method == DQS ? fk_skin_dqs(&skin)
                                                                                               : fk_skin_lbs(&skin);
    for (v = 0; v < vertices && result == FK_OK; ++v) { /* back by F; normals by F^-T, renormalized */
        float *position = p->positions + 3 * v, *normal = p->normals + 3 * v;
        fk_vec3 x = fk_vec3_make(position[0], position[1], position[2]);
        for (e = 0; e < 3; ++e) position[e] = space[4 * e] * x.x + space[4 * e + 1] * x.y + space[4 * e + 2] * x.z;
        if (rest_normals) {
            fk_vec3 n = fk_vec3_make(normal[0], normal[1], normal[2]);
            n = fk_vec3_normalize(fk_vec3_make(space_inverse[0] * n.x + space_inverse[4] * n.y + space_inverse[8] * n.z,
                                               space_inverse[1] * n.x + space_inverse[5] * n.y + space_inverse[9] * n.z,
                                               space_inverse[2] * n.x + space_inverse[6] * n.y + space_inverse[10] * n.z));
            normal[0] = n.x; normal[1] = n.y; normal[2] = n.z;
        }
    }
    free(inverse_bind); free(moved); free(bind_poses);
    return result;
}

/* Poses the model at a time and skins it; normals too when rest_normals is given.
   CoR needs the centres. */
static fk_result pose_and_skin(rig *model, double seconds, int method, fk_dqs_scale_center center,
                               const float *rest_normals, const float *centers, posed_model *p)
{
    fk_skin_desc skin;
    fk_result result;
    int rigid = rig_skinning_at(model, seconds, p->transforms, p->matrices);
    if (rigid < 0) return FK_ERROR_NOT_FINITE;
    if (!rigid) return skin_with_scale(model, method, center, rest_normals, centers, p);
    result = fk_posed_joints(model->joint_count, model->rest_joints, p->transforms, p->joints);
    memset(&skin, 0, sizeof skin);
    skin.vertex_count = model->vertex_count;
    skin.influences = model->influences;
    skin.positions = model->positions;
    skin.normals = rest_normals;
    skin.joints = model->joints;
    skin.weights = model->weights;
    skin.transforms = p->transforms;
    skin.transform_count = model->joint_count;
    skin.out_positions = p->positions;
    skin.out_normals = rest_normals ? p->normals : NULL;
    if (result == FK_OK)
        result = method == COR ? fk_skin_cor(&skin, centers, 0) : method == DQS ? fk_skin_dqs(&skin) : fk_skin_lbs(&skin);
    return result;
}

/* Area-weighted vertex normals of the rest mesh, for files that store none. */
static void rest_normals_from_triangles(const rig *model, float *normals)
{
    int t, k, v;
    memset(normals, 0, (size_t)model->vertex_count * 3 * sizeof *normals);
    for (t = 0; t < model->triangle_count; ++t) {
        const int *corner = model->triangles + 3 * t;
        const float *a = model->positions + 3 * corner[0], *b = model->positions + 3 * corner[1],
                    *c = model->positions + 3 * corner[2];
        fk_vec3 face = fk_vec3_cross(fk_vec3_make(b[0] - a[0], b[1] - a[1], b[2] - a[2]),
                                     fk_vec3_make(c[0] - a[0], c[1] - a[1], c[2] - a[2]));
        for (k = 0; k < 3; ++k) {
            normals[3 * corner[k]] += face.x; normals[3 * corner[k] + 1] += face.y; normals[3 * corner[k] + 2] += face.z;
        }
    }
    for (v = 0; v < model->vertex_count; ++v) {
        fk_vec3 n = fk_vec3_normalize(fk_vec3_make(normals[3 * v], normals[3 * v + 1], normals[3 * v + 2]));
        normals[3 * v] = n.x; normals[3 * v + 1] = n.y; normals[3 * v + 2] = n.z;
    }
}

/* Two rows of three panels under one camera, so that the motion shows: the bind
   pose (CoR when that is the chosen method), LBS and DQS at the chosen time; then
   the chosen method at a quarter, half and three quarters of the animation. */
static int draw_sheet(rig *model, const char *model_path, const char *png_path, double seconds, int method,
                      fk_dqs_scale_center center, const float *centers)
{
    render_sheet *sheet;
    render_mesh mesh;
    render_camera camera;
    posed_model poses[6];
    float *rest_normals = model->normals;
    double times[6];
    const char *titles[6];
    char labels[6][64], title[256];
    const char *base = strrchr(model_path, '/');
    fk_vec3 lo, hi;
    int panel_index, ok = 1;
    if (!rest_normals) {
        rest_normals = (float *)malloc((size_t)model->vertex_count * 3 * sizeof *rest_normals + 1);
        if (!rest_normals) return 0;
        rest_normals_from_triangles(model, rest_normals);
    }
    for (panel_index = 0; panel_index < 6; ++panel_index) {
        /* the panel's method (panels 1 and 2: LBS and DQS); -1 for the bind pose */
        int shown = panel_index == 0 ? (method == COR ? COR : -1) : panel_index < 3 ? panel_index - 1 : method;
        posed_model *p = &poses[panel_index];
        if (!posed_model_create(model, p)) { fprintf(stderr, "rig_pose: out of memory\n"); ok = 0; break; }
        times[panel_index] = panel_index < 3 ? seconds : model->duration_seconds * (double)(panel_index - 2) / 4.0;
        titles[panel_index] = shown < 0 ? "bind pose"
                              : shown == LBS ? "LBS"
                              : shown == COR ? "CoR (centres of rotation)"
                              : center == FK_DQS_SCALE_AT_BONE ? "DQS, scale centred at the bone" : "DQS";
        snprintf(labels[panel_index], sizeof labels[panel_index], "%.2f s", times[panel_index]);
        if (shown < 0) { /* the bind pose: every C_i the identity */
            int j;
            memcpy(p->positions, model->positions, (size_t)model->vertex_count * 3 * sizeof(float));
            memcpy(p->normals, rest_normals, (size_t)model->vertex_count * 3 * sizeof(float));
            for (j = 0; j < model->joint_count; ++j) p->joints[j] = model->rest_joints[j];
            labels[0][0] = '\0';
        } else if (pose_and_skin(model, times[panel_index], shown, center, rest_normals, centers, p) != FK_OK) {
            ok = 0;
        }
        if (panel_index == 0) { lo = hi = fk_vec3_make(p->positions[0], p->positions[1], p->positions[2]); }
        render_bounds_add(&lo, &hi, p->positions, model->vertex_count);
    }
    memset(&mesh, 0, sizeof mesh);
    mesh.positions = model->positions;
    mesh.vertex_count = model->vertex_count;
    mesh.triangles = model->triangles;
    mesh.triangle_count = model->triangle_count;
    snprintf(title, sizeof title, "%s: %d vertices, %d joints, up to %d influences", base ? base + 1 : model_path,
             model->vertex_count, model->joint_count, model->influences);
    sheet = ok ? render_sheet_create(3, 2, 300, 300, title, 1.0f) : NULL;
    if (sheet) {
        camera = render_camera_frame_box(lo, hi, 30.0f, 15.0f, 30.0f, render_sheet_aspect(sheet));
        for (panel_index = 0; panel_index < 6; ++panel_index) {
            render_panel *panel = render_panel_begin(sheet, panel_index % 3, panel_index / 3);
            render_draw_mesh(panel, &camera, &mesh, poses[panel_index].positions, poses[panel_index].normals, RENDER_CLAY);
            render_draw_skeleton_lines(panel, &camera, poses[panel_index].joints, model->parents, model->joint_count,
                                       RENDER_JOINT);
            render_draw_label(panel, 8, 8, 1, RENDER_INK, "%s", titles[panel_index]);
            render_draw_label(panel, 8, 22, 1, RENDER_SOFT_INK, "%s", labels[panel_index]);
            render_panel_end(panel);
        }
        ok = render_sheet_save_path(sheet, png_path) == 0;
        render_sheet_destroy(sheet);
    }
    for (panel_index = 0; panel_index < 6; ++panel_index) posed_model_free(&poses[panel_index]);
    if (rest_normals != model->normals) free(rest_normals);
    return ok;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *png_path = NULL;
    fk_dqs_scale_center center = FK_DQS_SCALE_AT_VERTEX;
    double seconds = 0.0;
    int dump_vertices = 0, method = LBS, status = 0, a, v;
    float *centers = NULL;
    char error[512];
    rig model;
    posed_model posed;
    fk_result result;

    for (a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--time") == 0 && a + 1 < argc) {
            char *end;
            seconds = strtod(argv[++a], &end);
            if (*end != '\0') return usage();
        } else if (strcmp(argv[a], "--method") == 0 && a + 1 < argc) {
            ++a;
            for (method = LBS; method <= COR && strcmp(argv[a], method_names[method]) != 0; ++method) continue;
            if (method > COR) return usage();
        } else if (strcmp(argv[a], "--dqs-center") == 0 && a + 1 < argc) {
            ++a;
            if (strcmp(argv[a], "vertex") == 0) center = FK_DQS_SCALE_AT_VERTEX;
            else if (strcmp(argv[a], "bone") == 0) center = FK_DQS_SCALE_AT_BONE;
            else return usage();
        } else if (strcmp(argv[a], "--dump-vertices") == 0) {
            dump_vertices = 1;
        } else if (strcmp(argv[a], "--png") == 0 && a + 1 < argc) {
            png_path = argv[++a];
        } else if (argv[a][0] == '-' || path) {
            return usage();
        } else {
            path = argv[a];
        }
    }
    if (!path) return usage();
    if (!rig_load(path, &model, error, sizeof error)) {
        fprintf(stderr, "rig_pose: %s\n", error);
        return 1;
    }
    if (!dump_vertices) {
        static const float identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
        const float *p = model.pretransform;
        float difference = 0.0f;
        for (a = 0; a < 12; ++a) difference = fabsf(p[a] - identity[a]) > difference ? fabsf(p[a] - identity[a]) : difference;
        printf("%s: mesh '%s', %d vertices, %d joints, up to %d influences per vertex\n", path,
               model.mesh_name, model.vertex_count, model.joint_count, model.influences);
        if (model.renormalized_vertices)
            printf("  %d vertices' weights did not sum to 1 and were normalized\n", model.renormalized_vertices);
        if (model.unweighted_vertices)
            printf("  %d vertices have no weights and were bound to one joint\n", model.unweighted_vertices);
        if (difference > 1e-5f) /* rounding aside */
            printf("  shared linear part factored out of the skinning matrices, P = "
                   "[%.4g %.4g %.4g; %.4g %.4g %.4g; %.4g %.4g %.4g]\n",
                   (double)p[0], (double)p[1], (double)p[2], (double)p[4], (double)p[5], (double)p[6],
                   (double)p[8], (double)p[9], (double)p[10]);
        printf("  animation: %s, %.3g s; posed at %.3g s with %s%s\n",
               !model.animation ? "none" : model.animation_name[0] ? model.animation_name : "(unnamed)",
               model.duration_seconds, seconds, method_names[method],
               method != DQS ? "" : center == FK_DQS_SCALE_AT_BONE ? " (scale centred at the bone)"
                                                                 : " (scale centred at the vertex)");
    }
    if (method == COR) { /* the precompute, once for the rest mesh and its weights */
        clock_t start = clock();
        centers = render_cor_centers(model.vertex_count, model.positions, model.influences, model.joints, model.weights,
                                     model.triangle_count, model.triangles);
        if (!centers) {
            rig_free(&model);
            return 1;
        }
        if (!dump_vertices)
            printf("  centres of rotation: %d vertices, %d triangles, computed in %.1f ms of CPU time\n", model.vertex_count,
                   model.triangle_count, 1000.0 * (double)(clock() - start) / CLOCKS_PER_SEC);
    }

    if (!posed_model_create(&model, &posed)) {
        fprintf(stderr, "rig_pose: out of memory\n");
        return 1;
    }
    result = pose_and_skin(&model, seconds, method, center, NULL, centers, &posed);
    if (result != FK_OK) {
        fprintf(stderr, "rig_pose: %s at %g s: %s\n", path, seconds, fk_result_description(result));
        status = 1;
    } else if (dump_vertices) {
        for (v = 0; v < model.vertex_count; ++v)
            printf("%.9g %.9g %.9g\n", (double)posed.positions[3 * v], (double)posed.positions[3 * v + 1],
                   (double)posed.positions[3 * v + 2]);
    }
    if (status == 0 && png_path && !draw_sheet(&model, path, png_path, seconds, method, center, centers)) status = 1;
    posed_model_free(&posed);
    free(centers);
    rig_free(&model);
    return status;
}
