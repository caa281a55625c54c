/* character.c - a procedural humanoid: skeleton, mesh, weights, poses.

   Everything a skinned character needs, built in a few lines each:
     - a skeleton of 24 joints in a T-pose (y up, facing +z, metres), given as a
       parent array with rest positions, the form fk_forward() takes;
     - a mesh of swept tubes (torso, limbs) and a head, each body part listing the
       bones it may follow, so that one leg never drags the other;
     - weights by a documented rule (see compute_weights): inverse distance to
       each bone segment, smoothed, the 4 strongest kept and renormalized;
     - poses as relative joint rotations in the parent's frame: a wave and four
       frames of a walk cycle, skinned with dual quaternion skinning.
   The character itself is in character.h, which the web page's module
   (examples/web/skin_web.c) poses too; this file draws it.

   Picture: out/character.png. */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"
#include "character.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- Drawing ----------------------------------------------------------------------------- */

/* A colour per joint, spread around the hue circle by the golden angle so that
   neighbours differ. */
static render_color joint_color(int joint)
{
    float hue = fmodf((float)joint * 0.618034f, 1.0f) * 6.0f;
    float f = hue - floorf(hue), s = 0.55f, v = 0.95f;
    float p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    switch ((int)hue) {
    case 0: return (render_color){v, t, p};
    case 1: return (render_color){q, v, p};
    case 2: return (render_color){p, v, t};
    case 3: return (render_color){p, q, v};
    case 4: return (render_color){t, p, v};
    default: return (render_color){v, p, q};
    }
}

typedef struct pose_panel {
    const char *label;
    int kind;    /* 0 rest, 1 weights, 2 wave, 3 walk */
    float phase;
} pose_panel;

static void pose(int kind, float phase, fk_quat *rotations)
{
    if (kind == 2) wave_pose(rotations, phase);
    else if (kind == 3) walk_pose(rotations, phase);
    else rest_pose(rotations);
}

/* One camera for a row of panels, framing every pose in it, so that sizes compare. */
static render_camera frame_row(const character *c, const pose_panel *row, int count, float aspect, float *positions,
                               float *normals)
{
    fk_vec3 lo = {1e9f, 1e9f, 1e9f}, hi = {-1e9f, -1e9f, -1e9f};
    fk_quat rotations[JOINT_COUNT];
    fk_rigid bones[JOINT_COUNT];
    int p;
    for (p = 0; p < count; ++p) {
        pose(row[p].kind, row[p].phase, rotations);
        fk_forward(JOINT_COUNT, c->parents, c->rest, rotations, NULL, bones);
        skin_character(c, bones, positions, normals);
        render_bounds_add(&lo, &hi, positions, c->mesh.vertex_count);
    }
    lo.y = 0.0f; /* the ground, where the shadow falls */
    hi.y += 0.1f * (hi.y - lo.y); /* room for the label */
    return render_camera_frame_box(lo, hi, 28.0f, 10.0f, 28.0f, aspect);
}

int main(int argc, char **argv)
{
    static const pose_panel panels[8] = {
        {"Rest (T-pose)", 0, 0}, {"Weights", 1, 0}, {"Wave", 2, -1}, {"Wave", 2, 1},
        {"Walk 1/4", 3, 0.0f}, {"Walk 2/4", 3, 0.25f}, {"Walk 3/4", 3, 0.5f}, {"Walk 4/4", 3, 0.75f},
    };
    render_options options;
    character c;
    render_sheet *sheet;
    render_camera camera;
    fk_quat rotations[JOINT_COUNT];
    fk_rigid bones[JOINT_COUNT];
    fk_vec3 joints[JOINT_COUNT];
    float *positions, *normals, *weight_colors;
    int parsed = render_parse_options(argc, argv, "Draws a procedural humanoid in several poses.", &options);
    int p, i, k, result;
    if (parsed) return parsed > 0 ? 0 : 2;

    c = make_character();
    positions = (float *)malloc((size_t)c.mesh.vertex_count * 3 * sizeof(float));
    normals = (float *)malloc((size_t)c.mesh.vertex_count * 3 * sizeof(float));
    weight_colors = (float *)calloc((size_t)c.mesh.vertex_count * 3, sizeof(float));
    sheet = render_sheet_create(4, 2, 250, 290, "A procedural character: 24 joints, 4 weights per vertex, DQS", options.scale);
    if (!positions || !normals || !weight_colors || !sheet) return 1;
    printf("character: %d joints, %d vertices, %d triangles\n", JOINT_COUNT, c.mesh.vertex_count, c.mesh.triangle_count);

    /* each vertex's colour mixes its joints' colours by weight */
    for (i = 0; i < c.mesh.vertex_count; ++i)
        for (k = 0; k < INFLUENCES; ++k) {
            render_color jc = joint_color(c.joints[INFLUENCES * i + k]);
            float w = c.weights[INFLUENCES * i + k];
            weight_colors[3 * i] += w * jc.r;
            weight_colors[3 * i + 1] += w * jc.g;
            weight_colors[3 * i + 2] += w * jc.b;
        }

    for (p = 0; p < 8; ++p) {
        render_panel *panel;
        if (p % 4 == 0) camera = frame_row(&c, panels + p, 4, render_sheet_aspect(sheet), positions, normals);
        panel = render_panel_begin(sheet, p % 4, p / 4);
        pose(panels[p].kind, panels[p].phase, rotations);
        fk_forward(JOINT_COUNT, c.parents, c.rest, rotations, NULL, bones);
        fk_posed_joints(JOINT_COUNT, c.rest, bones, joints);
        skin_character(&c, bones, positions, normals);
        render_draw_ground_shadow(panel, &camera, fk_vec3_make(joints[PELVIS].x, 0.0f, joints[PELVIS].z), 0.45f);
        if (panels[p].kind == 1) {
            render_mesh painted = c.mesh;
            painted.colors = weight_colors;
            render_draw_mesh(panel, &camera, &painted, positions, normals, RENDER_PORCELAIN);
        } else {
            render_draw_mesh(panel, &camera, &c.mesh, positions, normals, RENDER_PORCELAIN);
            render_draw_skeleton(panel, &camera, joints, c.parents, JOINT_COUNT);
        }
        render_draw_label(panel, 10, 8, 1.25f, RENDER_INK, "%s", panels[p].label);
        render_panel_end(panel);
    }
    result = render_sheet_save(sheet, &options, "character.png");
    render_sheet_destroy(sheet);
    render_mesh_free(&c.mesh);
    free(c.joints);
    free(c.weights);
    free(positions);
    free(normals);
    free(weight_colors);
    return result != 0;
}
