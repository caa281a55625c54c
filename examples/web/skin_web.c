/* skin_web.c - the web page's module: the procedural character of character.h and
   a BVH clip, posed and skinned by fk_lbs.h, built for WebAssembly with SIMD128.

   The page (page.js) calls the functions marked WEB_EXPORT, by name. The module
   keeps its state here and hands the page pointers into its memory, which the
   page reads and writes through typed arrays:
     web_buffer(n)              n bytes for the page to copy a BVH file into
     web_load_bvh(text, n)      parses it: the clip becomes model 1, and a CMU
                                clip played on the character (retarget.h) model 2
     web_select(model)          0 the character, 1 the clip, 2 the clip on the
                                character; the rest mesh of the
                                model chosen is then web_positions(), web_normals(),
                                web_joints(), web_weights(), web_triangles()
     web_pose(time, method, ik, x, y, z)
                                poses it at a time in seconds, the right arm
                                reaching for (x, y, z) when ik is 1, and writes
                                the palette the method's shader reads
     web_skin(method)           skins on the CPU into web_skinned_positions() and
                                web_skinned_normals()
     web_cor_centers()          computes the current model's centres of rotation
                                (fk_cor_centers()) into web_centers(), once: the
                                page's worker times this call in its own instance
     web_centers_storage()      room for the current model's centres, which the
                                page fills with the worker's
   Methods: WEB_LBS, WEB_DQS, WEB_DQS_SCALED (DQS of bones with scale: the head
   squashes and stretches and the left upper arm swells; fk_forward_scaled()),
   WEB_COR (skinning with centres of rotation, fk_skin_cor(); its shader reads
   DQS's palette).

   Nothing here reads a file or a clock. The module's only imports are the WASI
   calls that render.c's out-of-memory exit and a failed assert make (a message
   on stderr, then the end of the process); page.js gives them stubs that throw.
   tests/web_dump.c compiles this file natively, to compare its vertices with
   the page's. */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"
#include "bvh.h"
#include "character.h"
#include "retarget.h"

#include <string.h>

#ifdef __wasm__
#define WEB_EXPORT(name) __attribute__((export_name(#name)))
#else
#define WEB_EXPORT(name)
#endif

#define WEB_LBS 0
#define WEB_DQS 1
#define WEB_DQS_SCALED 2
#define WEB_COR 3

/* Bones the shaders' palettes hold (page.js defines FK_MAX_BONES to it): DQS
   with scale takes 5 vec4 a bone, and WebGL2 promises 256 to a vertex shader. */
#define WEB_MAX_JOINTS 48
#define WEB_INFLUENCES 4 /* as the shaders read them */
#define WALK_SECONDS 1.2f

/* A skinned model: its skeleton, its rest mesh, and the chain the IK turns. */
typedef struct web_model {
    int joint_count;
    int parents[WEB_MAX_JOINTS];
    fk_vec3 rest[WEB_MAX_JOINTS];
    render_mesh mesh;
    uint16_t *joints;                  /* WEB_INFLUENCES per vertex */
    float *weights;
    float *skinned_positions, *skinned_normals;
    float *centers;                    /* centres of rotation, NULL until web_cor_centers();
                                          model 2 borrows model 0's */
    int arm[3];                        /* shoulder, elbow, wrist for the IK; -1 without */
    int scaled[2];                     /* the joints that scale in WEB_DQS_SCALED; -1 for none */
    float duration;                    /* seconds */
} web_model;

static web_model models[3];
static web_model *current = &models[0];
static bvh_file clip;
static char *bvh_text;

/* The clip on the character: the character's skeleton, the clip prepared for
   it and the retarget, built when the clip is loaded. */
static character skeleton_only;
static retarget_clip on_character_clip;
static fk_retarget on_character;
static int on_character_ints[FK_RETARGET_INT_STORAGE(MAX_SOURCE, JOINT_COUNT)];
static fk_quat on_character_quats[FK_RETARGET_QUAT_STORAGE(JOINT_COUNT)];
static retarget_result retargeted;

/* The current pose and what the shaders read. */
static fk_quat rotations[WEB_MAX_JOINTS];
static fk_vec3 translations[WEB_MAX_JOINTS], joints_posed[WEB_MAX_JOINTS], scales_now[WEB_MAX_JOINTS];
static fk_rigid transforms[WEB_MAX_JOINTS], bind_poses[WEB_MAX_JOINTS];
static float matrices[12 * WEB_MAX_JOINTS];   /* fk_forward_scaled()'s, WEB_DQS_SCALED */
static float palette_matrices[12 * WEB_MAX_JOINTS], palette_dual_quats[8 * WEB_MAX_JOINTS],
             palette_scale_parts[12 * WEB_MAX_JOINTS];

static int allocate_vertex_arrays(web_model *m)
{
    size_t n = (size_t)m->mesh.vertex_count;
    m->skinned_positions = (float *)malloc(n * 3 * sizeof(float));
    m->skinned_normals = (float *)malloc(n * 3 * sizeof(float));
    return m->skinned_positions && m->skinned_normals;
}

static void make_character_model(web_model *m)
{
    character c = make_character();
    m->joint_count = JOINT_COUNT;
    memcpy(m->parents, c.parents, sizeof c.parents);
    memcpy(m->rest, c.rest, sizeof c.rest);
    m->mesh = c.mesh;
    m->joints = c.joints; /* character.h's layout is the shaders': INFLUENCES == 4 */
    m->weights = c.weights;
    m->arm[0] = R_SHOULDER; m->arm[1] = R_ELBOW; m->arm[2] = R_WRIST;
    m->scaled[0] = HEAD; m->scaled[1] = L_SHOULDER;
    m->duration = 2.0f * WALK_SECONDS;
    if (!allocate_vertex_arrays(m)) abort();
}

static int find_joint(const bvh_file *file, const char *name)
{
    int j;
    for (j = 0; j < file->joint_count; ++j)
        if (!file->joints[j].is_end_site && strcmp(file->joints[j].name, name) == 0) return j;
    return -1;
}

/* A BVH clip's body: a tube along each bone, from a joint's parent to the joint.
   The bone moves with the parent; the quarter of it nearest the parent blends
   into the bone above (half and half at the joint), so that joints bend
   smoothly and LBS and DQS differ where they should. */
static int make_bvh_model(web_model *m, const bvh_file *file)
{
    int first[WEB_MAX_JOINTS + 1]; /* each bone's first vertex; first[j + 1] ends it */
    fk_vec3 lo, hi;
    float size;
    int j, v, k;
    if (file->joint_count < 1 || file->joint_count > WEB_MAX_JOINTS) return 0;
    render_mesh_free(&m->mesh);
    free(m->joints); free(m->weights); free(m->skinned_positions); free(m->skinned_normals); free(m->centers);
    m->centers = NULL;
    m->joint_count = file->joint_count;
    bvh_rest_pose(file, m->parents, m->rest);
    lo = hi = m->rest[0];
    render_bounds_add(&lo, &hi, &m->rest[0].x, m->joint_count);
    size = fk_vec3_length(fk_vec3_sub(hi, lo));
    for (j = 0; j < m->joint_count; ++j) {
        int p = m->parents[j];
        fk_vec3 path[2];
        float radii[2], length;
        first[j] = m->mesh.vertex_count;
        if (p < 0) continue;
        path[0] = m->rest[p];
        path[1] = m->rest[j];
        length = fk_vec3_length(fk_vec3_sub(path[1], path[0]));
        if (length < 1e-3f * size) continue;
        radii[0] = fminf(fmaxf(0.18f * length, 0.012f * size), 0.03f * size);
        radii[1] = 0.8f * radii[0];
        render_mesh_add_tube(&m->mesh, path, radii, 2, 16, 8);
    }
    first[m->joint_count] = m->mesh.vertex_count;
    m->joints = (uint16_t *)calloc((size_t)m->mesh.vertex_count * WEB_INFLUENCES, sizeof *m->joints);
    m->weights = (float *)calloc((size_t)m->mesh.vertex_count * WEB_INFLUENCES, sizeof *m->weights);
    if (!m->joints || !m->weights || !allocate_vertex_arrays(m)) return 0;
    for (j = 0; j < m->joint_count; ++j) {
        int p = m->parents[j], grandparent;
        fk_vec3 axis;
        if (first[j] == first[j + 1]) continue; /* a root, or a bone too short for a tube */
        grandparent = m->parents[p];
        axis = fk_vec3_sub(m->rest[j], m->rest[p]);
        for (v = first[j]; v < first[j + 1]; ++v) {
            fk_vec3 x = fk_vec3_make(m->mesh.positions[3 * v], m->mesh.positions[3 * v + 1], m->mesh.positions[3 * v + 2]);
            float t = fk_vec3_dot(fk_vec3_sub(x, m->rest[p]), axis) / fk_vec3_dot(axis, axis);
            float own = grandparent < 0 ? 1.0f : 0.5f + 0.5f * fminf(fmaxf(t / 0.25f, 0.0f), 1.0f);
            k = WEB_INFLUENCES * v;
            m->joints[k] = (uint16_t)p;
            m->weights[k] = own;
            m->joints[k + 1] = (uint16_t)(grandparent < 0 ? p : grandparent);
            m->weights[k + 1] = 1.0f - own;
        }
    }
    m->arm[0] = find_joint(file, "RightArm");
    m->arm[1] = find_joint(file, "RightForeArm");
    m->arm[2] = find_joint(file, "RightHand");
    m->scaled[0] = find_joint(file, "Head");
    m->scaled[1] = find_joint(file, "LeftArm");
    m->duration = (float)(file->frame_time * (file->frame_count - 1));
    return 1;
}

WEB_EXPORT(web_buffer) char *web_buffer(int size)
{
    free(bvh_text);
    bvh_text = (char *)malloc((size_t)size);
    return bvh_text;
}

/* Model 2: the character's mesh (shared with model 0), the clip's length, and a
   retarget from the clip; 0 when the clip is not a CMU skeleton. */
static int make_retarget_model(web_model *m)
{
    int i;
    if (models[0].joint_count == 0) make_character_model(&models[0]);
    free(m->skinned_positions);
    free(m->skinned_normals);
    memset(m, 0, sizeof *m);
    for (i = 0; i < JOINT_COUNT; ++i) {
        skeleton_only.parents[i] = skeleton[i].parent;
        skeleton_only.rest[i] = skeleton[i].rest;
    }
    on_character_clip.file = clip; /* shares the clip's arrays: freed with it */
    if (!retarget_clip_prepare(&on_character_clip, &skeleton_only) ||
        !retarget_make(&on_character_clip, &skeleton_only, 1, &on_character, on_character_ints, on_character_quats))
        return 0;
    *m = models[0];
    m->centers = NULL; /* the character's, once they are computed (web_cor_centers()) */
    m->duration = (float)(clip.frame_time * (clip.frame_count - 1));
    return allocate_vertex_arrays(m);
}

/* Returns the clip's joint count, or 0 when it cannot be read or has too many. */
WEB_EXPORT(web_load_bvh) int web_load_bvh(const char *text, int length)
{
    bvh_free(&clip);
    if (!bvh_parse(text, (size_t)length, &clip, NULL, 0) || clip.frame_count < 1) return 0;
    if (!make_bvh_model(&models[1], &clip)) return 0;
    make_retarget_model(&models[2]);
    return clip.joint_count;
}

/* Returns the model's vertex count (0 for a clip not loaded, or not CMU's). */
WEB_EXPORT(web_select) int web_select(int model)
{
    if (models[0].joint_count == 0) make_character_model(&models[0]);
    current = &models[model == 1 || model == 2 ? model : 0];
    return current->mesh.vertex_count;
}

/* The current model's pose at time seconds: the walk cycle, the clip's frame,
   or that frame retargeted onto the character with its feet planted. */
static void sample(float time, float *strength)
{
    int j;
    if (current == &models[2]) {
        fk_vec3 posed[MAX_SOURCE];
        int frame = (int)(time / (float)clip.frame_time);
        frame = frame < 0 ? 0 : frame >= clip.frame_count ? clip.frame_count - 1 : frame;
        retarget_frame(&on_character, &on_character_clip, &skeleton_only, frame, 1, &retargeted, posed);
        memcpy(rotations, retargeted.rotations, sizeof retargeted.rotations);
        for (j = 0; j < JOINT_COUNT; ++j) translations[j] = fk_vec3_make(0, 0, 0);
        translations[PELVIS] = retargeted.root;
        *strength = sinf(2.0f * PI * time);
    } else if (current == &models[0]) {
        float phase = fmodf(time / WALK_SECONDS, 1.0f);
        walk_pose(rotations, phase);
        for (j = 0; j < current->joint_count; ++j) translations[j] = fk_vec3_make(0, 0, 0);
        *strength = sinf(4.0f * PI * phase);
    } else {
        int frame = (int)(time / (float)clip.frame_time);
        frame = frame < 0 ? 0 : frame >= clip.frame_count ? clip.frame_count - 1 : frame;
        bvh_frame_pose(&clip, frame, rotations, translations);
        *strength = sinf(2.0f * PI * time);
    }
}

/* Returns an fk_result: FK_OK, or what went wrong. */
WEB_EXPORT(web_pose) int web_pose(float time, int method, int ik, float x, float y, float z)
{
    web_model *m = current;
    float strength;
    fk_result result;
    int j, k;
    sample(time, &strength);
    result = fk_forward(m->joint_count, m->parents, m->rest, rotations, translations, transforms);
    if (result == FK_OK && ik && m->arm[0] >= 0 && m->arm[1] >= 0 && m->arm[2] >= 0) {
        fk_ik_two_bone_desc d;
        memset(&d, 0, sizeof d);
        d.joint_count = m->joint_count; d.parents = m->parents; d.rest_joints = m->rest;
        d.transforms = transforms; d.start = m->arm[0]; d.mid = m->arm[1]; d.end = m->arm[2];
        d.target = fk_vec3_make(x, y, z);
        d.soften = 0.05f; /* eases the arm to full reach instead of snapping straight */
        result = fk_ik_two_bone(&d, 1.0f, rotations, NULL);
        if (result == FK_OK) result = fk_forward(m->joint_count, m->parents, m->rest, rotations, translations, transforms);
    }
    if (result == FK_OK) result = fk_posed_joints(m->joint_count, m->rest, transforms, joints_posed);
    if (result != FK_OK) return (int)result;
    if (method == WEB_LBS) return (int)fk_palette_matrices(m->joint_count, transforms, palette_matrices);
    if (method == WEB_DQS || method == WEB_COR)
        return (int)fk_palette_dual_quats(m->joint_count, m->parents, transforms, palette_dual_quats);

    /* the head stretches as it squashes sideways (its volume kept), the arm swells */
    for (j = 0; j < m->joint_count; ++j) {
        scales_now[j] = fk_vec3_make(1, 1, 1);
        bind_poses[j] = fk_rigid_make(fk_quat_identity(), m->rest[j]); /* a BVH's or a T-pose's rest frames */
    }
    for (k = 0; k < 2; ++k) {
        float s = 1.0f + 0.25f * strength;
        if (m->scaled[k] < 0) continue;
        scales_now[m->scaled[k]] = k == 0 ? fk_vec3_make(1.0f / sqrtf(s), s, 1.0f / sqrtf(s))
                                          : fk_vec3_make(1.0f, 1.0f + 0.3f * fabsf(strength), 1.0f + 0.3f * fabsf(strength));
    }
    result = fk_forward_scaled(m->joint_count, m->parents, m->rest, rotations, translations, scales_now, matrices);
    if (result != FK_OK) return (int)result;
    return (int)fk_palette_dual_quats_scaled(m->joint_count, m->parents, matrices, bind_poses, palette_dual_quats,
                                             palette_scale_parts);
}

/* Skins the current model in the current pose; returns an fk_result. */
WEB_EXPORT(web_skin) int web_skin(int method)
{
    web_model *m = current;
    fk_skin_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.vertex_count = m->mesh.vertex_count;
    desc.influences = WEB_INFLUENCES;
    desc.positions = m->mesh.positions;
    desc.normals = m->mesh.normals;
    desc.joints = m->joints;
    desc.weights = m->weights;
    desc.transform_count = m->joint_count;
    desc.out_positions = m->skinned_positions;
    desc.out_normals = m->skinned_normals;
    if (method == WEB_DQS_SCALED) {
        desc.matrices = matrices;
        desc.bind_poses = bind_poses;
    } else {
        desc.transforms = transforms;
    }
    if (method == WEB_COR) return m->centers ? (int)fk_skin_cor(&desc, m->centers, 0) : (int)FK_ERROR_NULL_ARGUMENT;
    return (int)(method == WEB_LBS ? fk_skin_lbs(&desc) : fk_skin_dqs(&desc));
}

/* The centres of rotation of a model's rest mesh; returns an fk_result. */
static int compute_centers(web_model *m)
{
    fk_cor_desc desc;
    fk_result result;
    size_t bytes = 0;
    void *workspace;
    memset(&desc, 0, sizeof desc);
    desc.vertex_count = m->mesh.vertex_count;
    desc.positions = m->mesh.positions;
    desc.influences = WEB_INFLUENCES;
    desc.joints = m->joints;
    desc.weights = m->weights;
    desc.triangle_count = m->mesh.triangle_count;
    desc.indices = (const uint32_t *)(const void *)m->mesh.triangles; /* render.c's indices are never negative */
    if ((result = fk_cor_workspace_size(&desc, &bytes)) != FK_OK) return (int)result;
    m->centers = (float *)malloc((size_t)m->mesh.vertex_count * 3 * sizeof(float));
    workspace = malloc(bytes);
    if (!m->centers || !workspace) abort();
    result = fk_cor_centers(&desc, 0, m->mesh.vertex_count, workspace, bytes, m->centers, 0);
    free(workspace);
    if (result != FK_OK) {
        free(m->centers);
        m->centers = NULL;
    }
    return (int)result;
}

/* The current model's centres, computed the first time they are asked for;
   the clip on the character has the character's mesh and weights, and so
   its centres. Returns an fk_result. */
WEB_EXPORT(web_cor_centers) int web_cor_centers(void)
{
    web_model *m = current == &models[2] ? &models[0] : current;
    int result = m->centers ? (int)FK_OK : compute_centers(m);
    current->centers = m->centers;
    return result;
}

/* Room for the current model's centres (the character's, for the clip on it),
   for the page to copy in the centres another instance computed. */
WEB_EXPORT(web_centers_storage) float *web_centers_storage(void)
{
    web_model *m = current == &models[2] ? &models[0] : current;
    if (!m->centers && !(m->centers = (float *)malloc((size_t)m->mesh.vertex_count * 3 * sizeof(float)))) abort();
    current->centers = m->centers;
    return m->centers;
}

/* What the page reads: the current model's arrays and the current pose's. */
WEB_EXPORT(web_vertex_count) int web_vertex_count(void) { return current->mesh.vertex_count; }
WEB_EXPORT(web_triangle_count) int web_triangle_count(void) { return current->mesh.triangle_count; }
WEB_EXPORT(web_joint_count) int web_joint_count(void) { return current->joint_count; }
WEB_EXPORT(web_duration) float web_duration(void) { return current->duration; }
WEB_EXPORT(web_positions) float *web_positions(void) { return current->mesh.positions; }
WEB_EXPORT(web_normals) float *web_normals(void) { return current->mesh.normals; }
WEB_EXPORT(web_triangles) int *web_triangles(void) { return current->mesh.triangles; }
WEB_EXPORT(web_joints) uint16_t *web_joints(void) { return current->joints; }
WEB_EXPORT(web_weights) float *web_weights(void) { return current->weights; }
WEB_EXPORT(web_skinned_positions) float *web_skinned_positions(void) { return current->skinned_positions; }
WEB_EXPORT(web_skinned_normals) float *web_skinned_normals(void) { return current->skinned_normals; }
WEB_EXPORT(web_centers) float *web_centers(void) { return current->centers; }
WEB_EXPORT(web_joint_positions) fk_vec3 *web_joint_positions(void) { return joints_posed; }
WEB_EXPORT(web_arm) int web_arm(int k) { return current->arm[k]; }
WEB_EXPORT(web_palette_matrices) float *web_palette_matrices(void) { return palette_matrices; }
WEB_EXPORT(web_palette_dual_quats) float *web_palette_dual_quats(void) { return palette_dual_quats; }
WEB_EXPORT(web_palette_scale_parts) float *web_palette_scale_parts(void) { return palette_scale_parts; }
WEB_EXPORT(web_max_joints) int web_max_joints(void) { return WEB_MAX_JOINTS; }
