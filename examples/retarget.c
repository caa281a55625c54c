/* retarget.c - a CMU motion capture clip on the procedural character, and on
   a rigged model read through assimp.
   The clip's skeleton (31 joints and 7 End Sites, inches, legs splayed at rest)
   and the character of character.h (24 joints, metres, legs straight) differ
   in joint count, proportions and rest pose. The program
     - maps the character's joints to the clip's by name (fk_retarget_map_names),
     - gives the clip a reference pose that turns each mapped bone onto the
       character's rest direction, so that both rigs share a posture,
     - retargets every frame (fk_retarget_pose), the root scaled by the ratio
       of the standing hip heights, and plants the feet (fk_retarget_foot).

   build/retarget [FILE.bvh] [--frames 0,400,800] [--no-reference] [--no-feet]
                  [--png PATH] [--model MODEL] [--dump-json PATH]

   Prints how far the character's feet land, at contacts, from where the
   clip's are (scaled). --png draws each frame three times: the character
   skinned with DQS, the clip's skeleton beside it (scaled), the root's path
   over the clip and the foot contacts; the clip on MODEL (by default
   assimp-testmodels' BCN_Epileptic.X, an upper body, mapped by a table of
   names), skinned with LBS; and the character without the reference pose.
   --dump-json writes both rigs, the clip's frames and the results, for
   tests/threejs/compare.mjs (three.js's SkeletonUtils.retarget on the same
   rigs). */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"
#include "bvh.h"
#include "character.h"
#include "assimp_rig.h"
#include "retarget.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MODEL 64
#define MAX_FRAMES 16
#define CONTACT 0.02f /* metres above the floor that count as a contact */

static int load_clip(const char *path, retarget_clip *s, const character *c)
{
    char error[256];
    if (!bvh_load(path, &s->file, error, sizeof error)) {
        fprintf(stderr, "retarget: %s\n", error);
        return 0;
    }
    if (!retarget_clip_prepare(s, c)) {
        fprintf(stderr, "retarget: %s: not a CMU skeleton (more than %d joints, no frame, no Hips first or no legs)\n",
                path, MAX_SOURCE);
        return 0;
    }
    return 1;
}

/* Whether a source foot touches the floor: its ankle within CONTACT (scaled)
   of its height on the floor. */
static int is_contact(const retarget_clip *s, const fk_vec3 *posed, int ankle, float scale)
{
    return (posed[s->map[ankle]].y - s->ankle_floor) * scale < CONTACT;
}

/* ---- A rigged model through assimp ------------------------------------------------------ */

/* BCN_Epileptic.X's joints and the clip's that turn the same bones: an upper
   body whose arms hang at its sides at rest, where the clip's are raised. */
static const char *const bcn_names[][2] = {
    {"B_Root_Pelvis_T", "Hips"}, {"B_Spine1", "LowerBack"}, {"B_Spine2", "Spine"}, {"B_Spine3", "Spine1"},
    {"B_Spine4", "Spine1"}, {"B_Root_Neck_T", "Neck1"},
    {"B_Clavicle_Left", "LeftShoulder"}, {"B_UpperArm_Left", "LeftArm"}, {"B_ForeArm_Left", "LeftForeArm"},
    {"B_Hand_Left", "LeftHand"}, {"B_Clavicle_Right", "RightShoulder"}, {"B_UpperArm_Right", "RightArm"},
    {"B_ForeArm_Right", "RightForeArm"}, {"B_Hand_Right", "RightHand"},
};

typedef struct model {
    rig r;
    int map[MAX_MODEL], root, ints[FK_RETARGET_INT_STORAGE(MAX_SOURCE, MAX_MODEL)];
    fk_quat reference[MAX_SOURCE], quats[FK_RETARGET_QUAT_STORAGE(MAX_MODEL)];
    fk_retarget rt;
    render_mesh mesh;  /* the rig's triangles, for drawing */
    float *normals;    /* rest normals (the file's, or from the triangles) */
} model;

/* Loads the model, maps it to the clip by the table above, gives the clip a
   reference toward it and builds the retarget. Without legs there is no hip
   height: the root scale is the ratio of the pelvis-to-neck heights. */
static int load_model(const char *path, const retarget_clip *s, model *m)
{
    const char *renamed[MAX_MODEL], *names[MAX_SOURCE];
    char error[256];
    fk_retarget_desc desc;
    int i, j, k, neck = -1, source_neck = -1;
    if (!rig_load(path, &m->r, error, sizeof error)) {
        fprintf(stderr, "retarget: %s\n", error);
        return 0;
    }
    if (m->r.joint_count > MAX_MODEL) return 0;
    m->root = -1;
    for (i = 0; i < m->r.joint_count; ++i) {
        renamed[i] = NULL;
        for (k = 0; k < (int)(sizeof bcn_names / sizeof bcn_names[0]); ++k)
            if (!strcmp(m->r.joint_names[i], bcn_names[k][0])) renamed[i] = bcn_names[k][1];
        if (m->r.parents[i] < 0 && renamed[i]) m->root = i;
        if (renamed[i] && !strcmp(renamed[i], "Neck1")) neck = i;
    }
    for (j = 0; j < s->n; ++j) {
        names[j] = s->file.joints[j].is_end_site ? NULL : s->file.joints[j].name;
        if (names[j] && !strcmp(names[j], "Neck1")) source_neck = j;
    }
    if (m->root < 0 || neck < 0 || source_neck < 0 ||
        fk_retarget_map_names(m->r.joint_count, renamed, s->n, names, m->map, NULL) != FK_OK) {
        fprintf(stderr, "retarget: %s: not BCN_Epileptic's joints\n", path);
        return 0;
    }
    retarget_make_reference(s, m->r.joint_count, m->r.parents, m->r.rest_joints, m->map, m->reference);
    memset(&desc, 0, sizeof desc);
    desc.source.joint_count = s->n;
    desc.source.parents = s->parents;
    desc.source.rest_positions = s->rest;
    desc.source.reference = m->reference;
    desc.target.joint_count = m->r.joint_count;
    desc.target.parents = m->r.parents;
    desc.target.rest_positions = m->r.rest_joints;
    desc.target.root = m->root;
    desc.map = m->map;
    desc.root_scale =
        (m->r.rest_joints[neck].y - m->r.rest_joints[m->root].y) / (s->rest[source_neck].y - s->rest[0].y);
    if (fk_retarget_init(&m->rt, &desc, m->ints, m->quats) != FK_OK) return 0;
    memset(&m->mesh, 0, sizeof m->mesh);
    m->mesh.positions = m->r.positions;
    m->mesh.vertex_count = m->r.vertex_count;
    m->mesh.triangles = m->r.triangles;
    m->mesh.triangle_count = m->r.triangle_count;
    m->normals = (float *)calloc((size_t)m->r.vertex_count * 3, sizeof(float));
    if (!m->normals) return 0;
    if (m->r.normals) {
        memcpy(m->normals, m->r.normals, (size_t)m->r.vertex_count * 3 * sizeof(float));
    } else { /* area-weighted face normals, summed at the vertices */
        for (k = 0; k < m->r.triangle_count; ++k) {
            const int *t = m->r.triangles + 3 * k;
            const float *a = m->r.positions + 3 * t[0], *b = m->r.positions + 3 * t[1], *c = m->r.positions + 3 * t[2];
            fk_vec3 n = fk_vec3_cross(fk_vec3_make(b[0] - a[0], b[1] - a[1], b[2] - a[2]),
                                      fk_vec3_make(c[0] - a[0], c[1] - a[1], c[2] - a[2]));
            for (i = 0; i < 3; ++i) {
                m->normals[3 * t[i]] += n.x;
                m->normals[3 * t[i] + 1] += n.y;
                m->normals[3 * t[i] + 2] += n.z;
            }
        }
        for (i = 0; i < m->r.vertex_count; ++i) {
            float *n3 = m->normals + 3 * i;
            fk_vec3 n = fk_vec3_normalize(fk_vec3_make(n3[0], n3[1], n3[2]));
            n3[0] = n.x, n3[1] = n.y, n3[2] = n.z;
        }
    }
    m->mesh.normals = m->normals;
    return 1;
}

/* One frame on the model: its joints and its mesh skinned with LBS. */
static void model_frame(const model *m, const retarget_clip *s, int frame, fk_vec3 *joints, float *positions,
                        float *normals)
{
    fk_quat rotations[MAX_SOURCE], scratch[MAX_SOURCE], out[MAX_MODEL];
    fk_vec3 translations[MAX_SOURCE], posed[MAX_SOURCE], d[MAX_MODEL];
    fk_rigid bones[MAX_MODEL];
    fk_skin_desc skin;
    retarget_source_frame(s, frame, rotations, translations, posed);
    memset(d, 0, sizeof d);
    fk_retarget_pose(&m->rt, rotations, translations[0], scratch, out, &d[m->root]);
    fk_forward(m->r.joint_count, m->r.parents, m->r.rest_joints, out, d, bones);
    fk_posed_joints(m->r.joint_count, m->r.rest_joints, bones, joints);
    memset(&skin, 0, sizeof skin);
    skin.vertex_count = m->r.vertex_count;
    skin.influences = m->r.influences;
    skin.positions = m->r.positions;
    skin.normals = m->normals;
    skin.joints = m->r.joints;
    skin.weights = m->r.weights;
    skin.transforms = bones;
    skin.transform_count = m->r.joint_count;
    skin.out_positions = positions;
    skin.out_normals = normals;
    fk_skin_lbs(&skin);
}

/* ---- Three.js comparison data -------------------------------------------------------- */

static void json_quat(FILE *f, fk_quat q)
{
    fprintf(f, "[%.9g,%.9g,%.9g,%.9g]", (double)q.x, (double)q.y, (double)q.z, (double)q.w);
}
static void json_vec3(FILE *f, fk_vec3 v) { fprintf(f, "[%.9g,%.9g,%.9g]", (double)v.x, (double)v.y, (double)v.z); }

/* Both rigs as local offsets (three.js's bone positions), the clip's reference,
   and per frame the clip's local rotations and root position with the
   library's results (before the feet pass) and the character's root. */
static int dump_json(const char *path, const fk_retarget *rt, int use_reference, const retarget_clip *s,
                     const character *c, const int *frames, int frame_count)
{
    FILE *f = fopen(path, "w");
    int i, j, k;
    if (!f) return 0;
    fprintf(f, "{\"scale\":%.9g,\"reference_used\":%d,\n\"source\":{\"names\":[", (double)rt->root_scale,
            use_reference);
    for (j = 0; j < s->n; ++j)
        fprintf(f, "%s\"%s\"", j ? "," : "", s->file.joints[j].is_end_site ? "" : s->file.joints[j].name);
    fprintf(f, "],\"parents\":[");
    for (j = 0; j < s->n; ++j) fprintf(f, "%s%d", j ? "," : "", s->parents[j]);
    fprintf(f, "],\"offsets\":[");
    for (j = 0; j < s->n; ++j) {
        fprintf(f, j ? "," : "");
        json_vec3(f, s->parents[j] < 0 ? s->rest[j] : fk_vec3_sub(s->rest[j], s->rest[s->parents[j]]));
    }
    fprintf(f, "],\"reference\":[");
    for (j = 0; j < s->n; ++j) {
        fprintf(f, j ? "," : "");
        json_quat(f, s->reference[j]);
    }
    fprintf(f, "]},\n\"target\":{\"names\":[");
    for (i = 0; i < JOINT_COUNT; ++i) fprintf(f, "%s\"j%d\"", i ? "," : "", i);
    fprintf(f, "],\"map\":[");
    for (i = 0; i < JOINT_COUNT; ++i) fprintf(f, "%s%d", i ? "," : "", s->map[i]);
    fprintf(f, "],\"parents\":[");
    for (i = 0; i < JOINT_COUNT; ++i) fprintf(f, "%s%d", i ? "," : "", c->parents[i]);
    fprintf(f, "],\"offsets\":[");
    for (i = 0; i < JOINT_COUNT; ++i) {
        fprintf(f, i ? "," : "");
        json_vec3(f, c->parents[i] < 0 ? c->rest[i] : fk_vec3_sub(c->rest[i], c->rest[c->parents[i]]));
    }
    fprintf(f, "]},\n\"frames\":[\n");
    for (k = 0; k < frame_count; ++k) {
        fk_quat rotations[MAX_SOURCE];
        fk_vec3 translations[MAX_SOURCE], posed[MAX_SOURCE];
        retarget_result r;
        retarget_source_frame(s, frames[k], rotations, translations, posed);
        retarget_frame(rt, s, c, frames[k], 0, &r, posed);
        fprintf(f, "%s{\"frame\":%d,\"source_root\":", k ? ",\n" : "", frames[k]);
        json_vec3(f, posed[0]);
        fprintf(f, ",\"source\":[");
        for (j = 0; j < s->n; ++j) {
            fprintf(f, j ? "," : "");
            json_quat(f, rotations[j]);
        }
        fprintf(f, "],\"target_root\":");
        json_vec3(f, r.joints[PELVIS]);
        fprintf(f, ",\"target\":[");
        for (i = 0; i < JOINT_COUNT; ++i) {
            fprintf(f, i ? "," : "");
            json_quat(f, r.rotations[i]);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "]}\n");
    return fclose(f) == 0;
}

/* ---- Picture --------------------------------------------------------------------------- */

/* The model's panel: its skinned mesh, with the clip's upper body beside it, scaled. */
static void draw_model(render_sheet *sheet, int column, int row, const model *m, const retarget_clip *s, int frame)
{
    render_panel *panel = render_panel_begin(sheet, column, row);
    float *positions = (float *)malloc((size_t)m->r.vertex_count * 6 * sizeof(float));
    fk_vec3 joints[MAX_MODEL], posed[MAX_SOURCE], scaled[MAX_SOURCE], translations[MAX_SOURCE], centre, lo, hi;
    fk_quat rotations[MAX_SOURCE];
    render_camera camera;
    int j;
    if (!positions) exit(1);
    model_frame(m, s, frame, joints, positions, positions + 3 * m->r.vertex_count);
    retarget_source_frame(s, frame, rotations, translations, posed);
    centre = joints[m->root];
    lo = fk_vec3_make(centre.x - 0.45f, centre.y - 0.35f, centre.z - 0.45f);
    hi = fk_vec3_make(centre.x + 1.0f, centre.y + 0.75f, centre.z + 0.45f);
    camera = render_camera_frame_box(lo, hi, 15.0f, 8.0f, 30.0f, render_sheet_aspect(sheet));
    render_draw_mesh(panel, &camera, &m->mesh, positions, positions + 3 * m->r.vertex_count, RENDER_STEEL);
    for (j = 0; j < s->n; ++j)
        scaled[j] = fk_vec3_add(fk_vec3_add(centre, fk_vec3_make(0.6f, 0.0f, 0.0f)),
                                fk_vec3_scale(fk_vec3_sub(posed[j], posed[0]), m->rt.root_scale));
    for (j = 0; j < s->n; ++j) /* the upper body only, as the model has */
        if (s->parents[j] >= 0 && scaled[j].y > centre.y - 0.1f && scaled[s->parents[j]].y > centre.y - 0.1f)
            render_draw_line(panel, &camera, scaled[s->parents[j]], scaled[j], 2.0f, 0.0f, RENDER_BONE);
    render_draw_label(panel, 8, 6, 1.1f, RENDER_INK, "frame %d", frame);
    render_draw_label(panel, 8, 22, 1.0f, RENDER_SOFT_INK, "BCN_Epileptic.X");
    render_panel_end(panel);
    free(positions);
}

static void draw(const char *png, const fk_retarget *with, const fk_retarget *without, const retarget_clip *s,
                 const character *c, const model *m, const int *frames, int frame_count)
{
    render_sheet *sheet = render_sheet_create(frame_count, m ? 3 : 2, 200, 270,
                                              m ? "A CMU clip on the procedural character and on BCN_Epileptic.X"
                                                : "A CMU clip on the procedural character",
                                              1.0f);
    float *positions = (float *)malloc((size_t)c->mesh.vertex_count * 3 * sizeof(float));
    float *normals = (float *)malloc((size_t)c->mesh.vertex_count * 3 * sizeof(float));
    static fk_vec3 path[4096], contacts[8192];
    fk_vec3 posed[MAX_SOURCE], scaled[MAX_SOURCE];
    int path_count = 0, contact_count = 0, k, row, j, step;
    retarget_result r;
    if (!sheet || !positions || !normals) exit(1);
    /* the root's path and the contacts over the whole clip, every 4th frame */
    step = s->file.frame_count > 4000 ? 8 : 4;
    for (k = 0; k < s->file.frame_count && path_count < 4096; k += step) {
        retarget_frame(with, s, c, k, 1, &r, posed);
        path[path_count++] = fk_vec3_make(r.joints[PELVIS].x, 0.0f, r.joints[PELVIS].z);
        for (j = 0; j < 2; ++j)
            if (is_contact(s, posed, legs[j][2], with->root_scale) && contact_count < 8192)
                contacts[contact_count++] = r.joints[legs[j][2]];
    }
    for (k = 0; k < frame_count && m; ++k)
        draw_model(sheet, k, 1, m, s, frames[k]);
    for (k = 0; k < frame_count; ++k)
        for (row = 0; row < 2; ++row) {
            render_panel *panel = render_panel_begin(sheet, k, row && m ? 2 : row);
            fk_vec3 lo, hi, centre;
            render_camera camera;
            retarget_frame(row ? without : with, s, c, frames[k], row == 0, &r, posed);
            skin_character(c, r.bones, positions, normals);
            centre = r.joints[PELVIS];
            lo = fk_vec3_make(centre.x - 0.5f, 0.0f, centre.z - 0.5f);
            hi = fk_vec3_make(centre.x + 1.4f, 1.9f, centre.z + 0.5f);
            camera = render_camera_frame_box(lo, hi, 15.0f, 8.0f, 30.0f, render_sheet_aspect(sheet));
            render_draw_ground_shadow(panel, &camera, fk_vec3_make(centre.x, 0.0f, centre.z), 0.45f);
            for (j = 1; j < path_count; ++j)
                if (fk_vec3_length(fk_vec3_sub(path[j], centre)) < 1.6f)
                    render_draw_line(panel, &camera, path[j - 1], path[j], 1.5f, 0.0f, RENDER_SOFT_INK);
            for (j = 0; j < contact_count && row == 0; ++j)
                if (fk_vec3_length(fk_vec3_sub(contacts[j], centre)) < 1.6f)
                    render_draw_joint(panel, &camera, fk_vec3_make(contacts[j].x, 0.0f, contacts[j].z), 2.0f,
                                      RENDER_GOOD);
            render_draw_mesh(panel, &camera, &c->mesh, positions, normals, row ? RENDER_ROSE : RENDER_PORCELAIN);
            /* the source's skeleton beside it, scaled */
            for (j = 0; j < s->n; ++j)
                scaled[j] = fk_vec3_add(fk_vec3_add(centre, fk_vec3_make(0.9f, 0.0f, 0.0f)),
                                        fk_vec3_scale(fk_vec3_sub(posed[j], posed[0]), with->root_scale));
            for (j = 0; j < s->n; ++j)
                if (s->parents[j] >= 0)
                    render_draw_line(panel, &camera, scaled[s->parents[j]], scaled[j], 2.0f, 0.0f, RENDER_BONE);
            render_draw_label(panel, 8, 6, 1.1f, RENDER_INK, "frame %d", frames[k]);
            if (row == 0)
                render_draw_label(panel, 8, 22, 1.0f, RENDER_SOFT_INK, "feet off by %.1f, %.1f cm",
                                  100.0 * (double)r.miss_after[0], 100.0 * (double)r.miss_after[1]);
            else
                render_draw_label(panel, 8, 22, 1.0f, RENDER_ALERT, "no reference pose");
            render_panel_end(panel);
        }
    render_sheet_save_path(sheet, png);
    render_sheet_destroy(sheet);
    free(positions);
    free(normals);
}

int main(int argc, char **argv)
{
    static retarget_clip s;
    static int ints_with[FK_RETARGET_INT_STORAGE(MAX_SOURCE, JOINT_COUNT)];
    static int ints_without[FK_RETARGET_INT_STORAGE(MAX_SOURCE, JOINT_COUNT)];
    fk_quat quats_with[FK_RETARGET_QUAT_STORAGE(JOINT_COUNT)], quats_without[FK_RETARGET_QUAT_STORAGE(JOINT_COUNT)];
    const char *path = "/usr/share/assimp/models/BVH/01_01.bvh", *png = NULL, *json = NULL, *list = NULL;
    const char *model_path = "/usr/share/assimp/models/X/BCN_Epileptic.X";
    static model m;
    int have_model;
    int frames[MAX_FRAMES], frame_count = 0, use_reference = 1, feet = 1, a, k, j;
    int contacts = 0, reached = 0;
    double worst_before = 0, worst_after = 0, sum_before = 0, sum_after = 0;
    fk_retarget with, without;
    character c;
    for (a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--frames") && a + 1 < argc) list = argv[++a];
        else if (!strcmp(argv[a], "--png") && a + 1 < argc) png = argv[++a];
        else if (!strcmp(argv[a], "--dump-json") && a + 1 < argc) json = argv[++a];
        else if (!strcmp(argv[a], "--model") && a + 1 < argc) model_path = argv[++a];
        else if (!strcmp(argv[a], "--no-reference")) use_reference = 0;
        else if (!strcmp(argv[a], "--no-feet")) feet = 0;
        else if (argv[a][0] != '-') path = argv[a];
        else {
            fprintf(stderr, "usage: retarget [FILE.bvh] [--frames 0,400,800] [--no-reference] [--no-feet] "
                            "[--png PATH] [--model MODEL] [--dump-json PATH]\n");
            return 2;
        }
    }
    c = make_character();
    if (!load_clip(path, &s, &c) || !retarget_make(&s, &c, use_reference, &with, ints_with, quats_with) ||
        !retarget_make(&s, &c, 0, &without, ints_without, quats_without))
        return 1;
    for (; list && *list && frame_count < MAX_FRAMES; ++frame_count) {
        char *end;
        frames[frame_count] = (int)strtol(list, &end, 10);
        if (end == list || frames[frame_count] < 0 || frames[frame_count] >= s.file.frame_count) {
            fprintf(stderr, "retarget: --frames wants frame numbers below %d, like 0,400,800\n", s.file.frame_count);
            return 2;
        }
        list = *end == ',' ? end + 1 : end;
    }
    if (!frame_count)
        for (; frame_count < 6; ++frame_count) frames[frame_count] = frame_count * (s.file.frame_count - 1) / 5;
    /* over the whole clip: how far each contact foot lands from the source's, scaled */
    for (k = 0; k < s.file.frame_count; ++k) {
        fk_vec3 posed[MAX_SOURCE];
        retarget_result r;
        retarget_frame(&with, &s, &c, k, feet, &r, posed);
        for (j = 0; j < 2; ++j) {
            if (!is_contact(&s, posed, legs[j][2], with.root_scale)) continue;
            ++contacts;
            reached += r.reached[j];
            sum_before += (double)r.miss_before[j];
            sum_after += (double)r.miss_after[j];
            worst_before = (double)r.miss_before[j] > worst_before ? (double)r.miss_before[j] : worst_before;
            worst_after = (double)r.miss_after[j] > worst_after ? (double)r.miss_after[j] : worst_after;
        }
    }
    printf("%s: %d joints, %d frames; character %d joints; root scale %.5f (hip heights %.3f m and %.3f)\n", path,
           s.n, s.file.frame_count, JOINT_COUNT, (double)with.root_scale, (double)c.rest[PELVIS].y,
           (double)s.rest[0].y);
    printf("foot contacts: %d; from the source's foot (scaled): mean %.2f cm, worst %.2f cm by rotations alone; "
           "mean %.4f cm, worst %.4f cm %s (%d reached)\n", contacts, 100.0 * sum_before / (contacts ? contacts : 1),
           100.0 * worst_before, 100.0 * sum_after / (contacts ? contacts : 1), 100.0 * worst_after,
           feet ? "with fk_retarget_foot" : "(no feet pass)", reached);
    if (json && !dump_json(json, &with, use_reference, &s, &c, frames, frame_count)) {
        fprintf(stderr, "retarget: cannot write %s\n", json);
        return 1;
    }
    if (png) {
        have_model = load_model(model_path, &s, &m);
        if (have_model)
            printf("%s: %d joints, %d vertices; root scale %.5f (pelvis to neck)\n", model_path, m.r.joint_count,
                   m.r.vertex_count, (double)m.rt.root_scale);
        draw(png, &with, &without, &s, &c, have_model ? &m : NULL, frames, frame_count);
        if (have_model) {
            rig_free(&m.r);
            free(m.normals);
        }
    }
    bvh_free(&s.file);
    render_mesh_free(&c.mesh);
    free(c.joints);
    free(c.weights);
    return 0;
}
