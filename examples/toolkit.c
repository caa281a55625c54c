/* toolkit.c - the animation toolkit on one character: layers, IK, root motion.

   The procedural character of character.h walks a curve, waves and reaches:
     - a walk clip whose root travels and turns; fk_root_motion_extract() splits
       it into a motion track and an in-place clip, and fk_root_motion_delta(),
       one call per tick of 1/30 s, moves the character's placement along it,
       across the clip's loops (the trail on the floor);
     - an upper-body wave layer over the walk through per-joint masks
       (fk_pose_blend_masked()): the right arm and part of the spine wave, the
       legs and the hips walk;
     - fk_ik_two_bone() puts the left wrist on a target (one per frame, placed
       beside the path), fk_ik_aim() turns the head to look at a fixed target.
   Every frame is posed by fk_forward() from these rotations alone and skinned
   with DQS. It prints a line per frame, measured on the final pose,
       toolkit frame=1 time=0.20 hand_error=6e-08 aim_error_deg=1.9e-06 legs_from_walk_rad=0 arm_from_wave_rad=0
   (hand_error: metres from the wrist to its target; aim_error_deg: the angle
   between the eyes' line of sight and the line from the eyes to the target;
   legs_from_walk_rad, arm_from_wave_rad: how far the layered legs and right arm
   turned from the walk's and the wave's), then
       root_motion ticks=51 loops=1 drift=2.4e-07 travelled=1.870 expected=1.870
   (drift: metres between the placement composed tick by tick and the same
   motion in one fk_root_motion_delta() call; travelled: the trail's length;
   expected: the clip's speed times the time). Picture: out/toolkit.png. */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"
#include "character.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define KEYS 17          /* one walk cycle; the last key is the first a stride on */
#define CYCLE 1.0f       /* seconds */
#define TICKS_PER_SECOND 30
#define SPEED 1.1f       /* metres per second */
#define TURN (-0.3f)     /* radians per second: a right turn, toward -x */
#define FRAMES 4
#define TICKS 51         /* the last frame's tick */

static const int frame_ticks[FRAMES] = {6, 21, 36, 51};
/* Each frame's reach target, in the character's placement at that frame (x to its
   left, z ahead): in reach of the left arm, high and low, ahead and aside. */
static const fk_vec3 reach_local[FRAMES] = {{0.42f, 1.30f, 0.25f}, {0.30f, 1.12f, 0.32f}, {0.50f, 1.55f, 0.12f},
                                            {0.25f, 1.25f, 0.40f}};
static const fk_vec3 look_target = {0.0f, 1.8f, 3.0f};
static const fk_vec3 up = {0, 1, 0};

/* The wave layer's share per joint; the walk takes the rest. */
static void wave_mask(float mask[JOINT_COUNT])
{
    int i;
    for (i = 0; i < JOINT_COUNT; ++i) mask[i] = 0.0f;
    mask[SPINE] = 0.3f;
    mask[CHEST] = 0.6f;
    for (i = R_CLAVICLE; i <= R_HAND_TIP; ++i) mask[i] = 1.0f;
}

/* The walk with its root travelling along an arc, keyed once per 1/16 cycle, split
   into a motion track and an in-place root. */
typedef struct walk_clip {
    float times[KEYS];
    fk_quat motion_rotations[KEYS], root_rotations[KEYS];
    fk_vec3 motion_translations[KEYS], root_translations[KEYS];
} walk_clip;

static int make_walk_clip(const character *c, walk_clip *clip)
{
    fk_quat rotations[JOINT_COUNT], root[KEYS];
    fk_vec3 travel[KEYS];
    int k;
    for (k = 0; k < KEYS; ++k) {
        float t = CYCLE * (float)k / (float)(KEYS - 1), heading = TURN * t;
        clip->times[k] = t;
        walk_pose(rotations, t / CYCLE);
        root[k] = fk_quat_mul(fk_quat_from_axis_angle(up, heading), rotations[PELVIS]);
        travel[k] = fk_vec3_make(SPEED / TURN * (1.0f - cosf(heading)), 0.0f, SPEED / TURN * sinf(heading));
    }
    return fk_root_motion_extract(KEYS, c->rest[PELVIS], root, travel, FK_ROOT_MOTION_X | FK_ROOT_MOTION_Z,
                                  FK_ROOT_ROTATION_YAW, up, clip->motion_rotations, clip->motion_translations,
                                  clip->root_rotations, clip->root_translations) == FK_OK;
}

/* The largest angle between two poses' rotations over joints first..last. */
static float largest_turn(const fk_quat *a, const fk_quat *b, int first, int last)
{
    float worst = 0.0f;
    int i;
    for (i = first; i <= last; ++i) {
        fk_quat d = fk_quat_mul(fk_quat_conjugate(fk_quat_normalize(b[i])), fk_quat_normalize(a[i]));
        worst = fmaxf(worst, fk_vec3_length(fk_quat_to_rotation_vector(d)));
    }
    return worst;
}

typedef struct frame {
    fk_rigid bones[JOINT_COUNT];
    fk_vec3 joints[JOINT_COUNT], reach_target, eye, gaze; /* gaze: the head's line of sight, unit */
    float time, hand_error, aim_error, legs_from_walk, arm_from_wave;
} frame;

static const fk_ik_aim_desc eyes = {{0, 0, 1}, {0, 0.10f, 0.09f}, {0, 1, 0}, {0, 1, 0}, 0.0f, NULL};

/* The pose at a time: walk and wave blended through the masks, placed, then the
   reach and the look solved on it. */
static int pose_frame(const character *c, const walk_clip *clip, float time, fk_rigid placement, fk_vec3 reach_target,
                      frame *f)
{
    fk_quat walk[JOINT_COUNT], wave[JOINT_COUNT], rotations[JOINT_COUNT];
    fk_vec3 walk_translations[JOINT_COUNT] = {{0, 0, 0}}, translations[JOINT_COUNT];
    float walk_weights[JOINT_COUNT], wave_weights[JOINT_COUNT];
    const fk_quat *const poses[2] = {walk, wave};
    const fk_vec3 *const pose_translations[2] = {walk_translations, NULL};
    const float *const masks[2] = {walk_weights, wave_weights};
    const float layer_weights[2] = {1.0f, 1.0f};
    float clip_time = fmodf(time, CYCLE);
    fk_ik_two_bone_desc reach = {0};
    fk_vec3 pole, root = c->rest[PELVIS];
    int i, ok = 1;

    walk_pose(walk, clip_time / CYCLE); /* the body's joints; the root comes from the in-place clip */
    ok &= fk_track_sample_quat(KEYS, clip->times, clip->root_rotations, clip_time, FK_INTERPOLATE_SLERP,
                               &walk[PELVIS]) == FK_OK;
    ok &= fk_track_sample_vec3(KEYS, clip->times, clip->root_translations, clip_time, &walk_translations[PELVIS]) == FK_OK;
    wave_pose(wave, sinf(2.0f * PI * 1.5f * time));
    wave_mask(wave_weights);
    for (i = 0; i < JOINT_COUNT; ++i) walk_weights[i] = 1.0f - wave_weights[i];
    ok &= fk_pose_blend_masked(JOINT_COUNT, 2, poses, pose_translations, layer_weights, masks, rotations,
                               translations) == FK_OK;
    f->legs_from_walk = largest_turn(rotations, walk, L_HIP, R_TOE);
    f->arm_from_wave = largest_turn(rotations, wave, R_CLAVICLE, R_HAND_TIP);

    /* the placement carries the in-place root: its joint goes to placement (x + d) */
    rotations[PELVIS] = fk_quat_mul(placement.q, rotations[PELVIS]);
    translations[PELVIS] = fk_vec3_sub(fk_rigid_apply(placement, fk_vec3_add(root, translations[PELVIS])), root);
    ok &= fk_forward(JOINT_COUNT, c->parents, c->rest, rotations, translations, f->bones) == FK_OK;

    /* the left wrist on its target, the elbow toward a point below and behind it */
    reach.joint_count = JOINT_COUNT;
    reach.parents = c->parents;
    reach.rest_joints = c->rest;
    reach.transforms = f->bones;
    reach.start = L_SHOULDER;
    reach.mid = L_ELBOW;
    reach.end = L_WRIST;
    reach.target = reach_target;
    pole = fk_rigid_apply(placement, fk_vec3_make(0.45f, 0.6f, -0.4f));
    reach.pole = &pole;
    ok &= fk_ik_two_bone(&reach, 1.0f, rotations, NULL) == FK_OK;
    ok &= fk_forward(JOINT_COUNT, c->parents, c->rest, rotations, translations, f->bones) == FK_OK;

    /* the head looks at the target, kept upright */
    ok &= fk_ik_aim(JOINT_COUNT, c->parents, c->rest, f->bones, FK_FRAME_PARENT, HEAD, &eyes, look_target, 1.0f,
                    rotations, NULL) == FK_OK;
    ok &= fk_forward(JOINT_COUNT, c->parents, c->rest, rotations, translations, f->bones) == FK_OK;
    ok &= fk_posed_joints(JOINT_COUNT, c->rest, f->bones, f->joints) == FK_OK;

    /* measured on the final pose */
    f->time = time;
    f->reach_target = reach_target;
    f->hand_error = fk_vec3_length(fk_vec3_sub(f->joints[L_WRIST], reach_target));
    f->eye = fk_rigid_apply(f->bones[HEAD], fk_vec3_add(c->rest[HEAD], eyes.offset));
    f->gaze = fk_vec3_normalize(fk_quat_rotate(f->bones[HEAD].q, eyes.forward));
    {
        fk_vec3 to_target = fk_vec3_normalize(fk_vec3_sub(look_target, f->eye));
        f->aim_error = atan2f(fk_vec3_length(fk_vec3_cross(f->gaze, to_target)), fk_vec3_dot(f->gaze, to_target));
    }
    return ok;
}

static void grow_box(fk_vec3 *lo, fk_vec3 *hi, fk_vec3 p)
{
    const float xyz[3] = {p.x, p.y, p.z};
    render_bounds_add(lo, hi, xyz, 1);
}

int main(int argc, char **argv)
{
    render_options options;
    render_sheet *sheet;
    render_camera camera;
    render_mesh markers = {0};
    character c;
    walk_clip clip;
    static frame frames[FRAMES];
    fk_vec3 trail[TICKS + 1], lo = {1e9f, 1e9f, 1e9f}, hi = {-1e9f, -1e9f, -1e9f};
    fk_rigid placement = fk_rigid_identity(), closed_form;
    float *positions[FRAMES], *normals[FRAMES], travelled = 0.0f, drift;
    int parsed = render_parse_options(argc, argv,
                                      "Draws the character walking with root motion, a masked wave layer, "
                                      "two-bone IK and aim IK.",
                                      &options);
    int tick, f = 0, i, result, ok = 1, loops_played = (int)floorf((float)TICKS / TICKS_PER_SECOND / CYCLE);
    if (parsed) return parsed > 0 ? 0 : 2;

    c = make_character();
    if (!make_walk_clip(&c, &clip)) return 1;

    /* Play: the placement moves tick by tick by the motion between the ticks'
       clip times, through the loops. */
    trail[0] = placement.t;
    for (tick = 0; tick <= TICKS; ++tick) {
        float time = (float)tick / TICKS_PER_SECOND;
        if (tick > 0) {
            float before = (float)(tick - 1) / TICKS_PER_SECOND;
            int loops = (int)floorf(time / CYCLE) - (int)floorf(before / CYCLE);
            fk_rigid delta;
            ok &= fk_root_motion_delta(KEYS, clip.times, clip.motion_rotations, clip.motion_translations,
                                       fmodf(before, CYCLE), fmodf(time, CYCLE), loops, &delta) == FK_OK;
            placement = fk_rigid_mul(placement, delta);
            trail[tick] = placement.t;
            travelled += fk_vec3_length(fk_vec3_sub(trail[tick], trail[tick - 1]));
        }
        if (f < FRAMES && tick == frame_ticks[f]) {
            ok &= pose_frame(&c, &clip, time, placement, fk_rigid_apply(placement, reach_local[f]), &frames[f]);
            ++f;
        }
    }
    /* the same motion in one call: no error that grows with the number of ticks */
    ok &= fk_root_motion_delta(KEYS, clip.times, clip.motion_rotations, clip.motion_translations, 0.0f,
                               fmodf((float)TICKS / TICKS_PER_SECOND, CYCLE), loops_played, &closed_form) == FK_OK;
    drift = fk_vec3_length(fk_vec3_sub(closed_form.t, placement.t));
    if (!ok) {
        fprintf(stderr, "toolkit: a library call failed\n");
        return 1;
    }

    for (f = 0; f < FRAMES; ++f) {
        printf("toolkit frame=%d time=%.2f hand_error=%.2g aim_error_deg=%.2g legs_from_walk_rad=%.2g "
               "arm_from_wave_rad=%.2g\n",
               f + 1, (double)frames[f].time, (double)frames[f].hand_error,
               (double)(frames[f].aim_error * 180.0f / PI), (double)frames[f].legs_from_walk,
               (double)frames[f].arm_from_wave);
        positions[f] = (float *)malloc((size_t)c.mesh.vertex_count * 3 * sizeof(float));
        normals[f] = (float *)malloc((size_t)c.mesh.vertex_count * 3 * sizeof(float));
        if (!positions[f] || !normals[f]) return 1;
        skin_character(&c, frames[f].bones, positions[f], normals[f]);
        render_bounds_add(&lo, &hi, positions[f], c.mesh.vertex_count);
        grow_box(&lo, &hi, frames[f].reach_target);
    }
    printf("root_motion ticks=%d loops=%d drift=%.2g travelled=%.3f expected=%.3f\n", TICKS, loops_played,
           (double)drift, (double)travelled,
           (double)(SPEED * (float)TICKS / TICKS_PER_SECOND));

    /* the targets as small spheres: the look target, and the reach targets of
       the frames (each frame's own is drawn again over the arm) */
    render_mesh_add_sphere(&markers, look_target, 0.06f, 24);
    render_mesh_paint(&markers, 0, RENDER_STEEL);
    for (f = 0; f < FRAMES; ++f) {
        int first = render_mesh_add_sphere(&markers, frames[f].reach_target, 0.03f, 16);
        render_mesh_paint(&markers, first, RENDER_GOOD);
    }
    grow_box(&lo, &hi, look_target);
    for (tick = 0; tick <= TICKS; ++tick) grow_box(&lo, &hi, trail[tick]);
    lo.y = 0.0f;

    sheet = render_sheet_create(2, 2, 420, 330, "Walk with root motion, wave layer by mask, two-bone and aim IK",
                                options.scale);
    if (!sheet) return 1;
    camera = render_camera_frame_box(lo, hi, 50.0f, 14.0f, 30.0f, render_sheet_aspect(sheet));
    for (f = 0; f < FRAMES; ++f) {
        const frame *fr = &frames[f];
        render_panel *panel = render_panel_begin(sheet, f % 2, f / 2);
        fk_vec3 ground = fk_vec3_make(fr->joints[PELVIS].x, 0.0f, fr->joints[PELVIS].z);
        float distance = fk_vec3_length(fk_vec3_sub(look_target, fr->eye));
        render_draw_ground_shadow(panel, &camera, ground, 0.45f);
        for (tick = 0; tick < TICKS; ++tick) /* the trail: thick where it has been, thin ahead */
            render_draw_line(panel, &camera, trail[tick], trail[tick + 1], tick < frame_ticks[f] ? 3.0f : 1.5f, 0.0f,
                             tick < frame_ticks[f] ? RENDER_BONE : RENDER_SOFT_INK);
        render_draw_mesh(panel, &camera, &markers, NULL, NULL, RENDER_GOOD);
        render_draw_mesh(panel, &camera, &c.mesh, positions[f], normals[f], RENDER_PORCELAIN);
        /* the line of sight, from the eyes as far as the target: it ends on it when aimed */
        render_draw_line(panel, &camera, fr->eye, fk_vec3_add(fr->eye, fk_vec3_scale(fr->gaze, distance)), 1.5f, 4.0f,
                         RENDER_STEEL);
        render_draw_joint(panel, &camera, look_target, 5.0f, RENDER_STEEL);
        for (i = L_SHOULDER; i < L_WRIST; ++i) /* the chain the two-bone IK turns */
            render_draw_bone(panel, &camera, fr->joints[i], fr->joints[i + 1], RENDER_BONE);
        render_draw_joint(panel, &camera, fr->reach_target, 6.0f, RENDER_GOOD);
        for (i = L_SHOULDER; i <= L_WRIST; ++i) render_draw_joint(panel, &camera, fr->joints[i], 2.5f, RENDER_JOINT);
        render_draw_label(panel, 10, 8, 1.25f, RENDER_INK, "%.2f s", (double)fr->time);
        render_draw_label(panel, 10, 26, 1.0f, RENDER_GOOD, "left wrist %.0e m from its target", (double)fr->hand_error);
        render_draw_label(panel, 10, 40, 1.0f, RENDER_STEEL, "line of sight %.0e deg off the target",
                          (double)(fr->aim_error * 180.0f / PI));
        render_draw_label(panel, 10, 312, 1.0f, RENDER_SOFT_INK, "%s",
                          f == 0 ? "green: a reach target a frame; blue: the look target"
                                 : f == 1 ? "on the floor: the root motion, walked and ahead" : "");
        render_panel_end(panel);
    }
    result = render_sheet_save(sheet, &options, "toolkit.png");
    render_sheet_destroy(sheet);
    render_mesh_free(&markers);
    render_mesh_free(&c.mesh);
    free(c.joints);
    free(c.weights);
    for (f = 0; f < FRAMES; ++f) {
        free(positions[f]);
        free(normals[f]);
    }
    return result != 0;
}
