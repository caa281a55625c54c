/* retarget.h - a CMU motion capture clip on the procedural character of
   character.h: the clip's preparation (joint map, ankles' height on the floor,
   rest pose lifted to the standing hip height, reference pose toward the
   character) and one frame retargeted with the feet planted. Shared by
   examples/retarget.c (which draws it) and the web page's module
   (examples/web/skin_web.c). Include fk_lbs.h, bvh.h and character.h first. */
#ifndef FK_EXAMPLES_RETARGET_H
#define FK_EXAMPLES_RETARGET_H

#include <stdlib.h>
#include <string.h>

#define MAX_SOURCE 64

/* The clip's joint whose rotation turns the same bone as the character's joint;
   tips (no bone of their own) stay unmapped. */
static const char *const cmu_names[JOINT_COUNT] = {
    [PELVIS] = "Hips", [SPINE] = "Spine", [CHEST] = "Spine1", [NECK] = "Neck1", [HEAD] = "Head",
    [L_CLAVICLE] = "LeftShoulder", [L_SHOULDER] = "LeftArm", [L_ELBOW] = "LeftForeArm", [L_WRIST] = "LeftHand",
    [R_CLAVICLE] = "RightShoulder", [R_SHOULDER] = "RightArm", [R_ELBOW] = "RightForeArm", [R_WRIST] = "RightHand",
    [L_HIP] = "LeftUpLeg", [L_KNEE] = "LeftLeg", [L_ANKLE] = "LeftFoot",
    [R_HIP] = "RightUpLeg", [R_KNEE] = "RightLeg", [R_ANKLE] = "RightFoot",
};
static const int legs[2][3] = {{L_HIP, L_KNEE, L_ANKLE}, {R_HIP, R_KNEE, R_ANKLE}};

typedef struct retarget_clip {
    bvh_file file;
    int n, parents[MAX_SOURCE], map[JOINT_COUNT];
    fk_vec3 rest[MAX_SOURCE];       /* lifted to the standing hip height */
    float lift;
    float ankle_floor;              /* an ankle's height on the floor (world) */
    fk_quat reference[MAX_SOURCE];  /* the posture: each mapped bone along the character's */
} retarget_clip;

/* The shortest turn from unit a to unit b (not opposite). */
static inline fk_quat retarget_arc(fk_vec3 a, fk_vec3 b)
{
    fk_vec3 c = fk_vec3_cross(a, b);
    return fk_quat_normalize(fk_quat_make(c.x, c.y, c.z, 1.0f + fk_vec3_dot(a, b)));
}

/* A reference for the clip toward one target: a world turn P_j for each
   source joint mapped to by target joint i, which lays its bone (to the source
   joint mapped to i's first mapped child, or failing that to its own first
   child) along i's rest bone (to that same child of i); other joints inherit
   their parent's. The relative rotations are then P_parent^-1 P_j. */
static inline void retarget_make_reference(const retarget_clip *s, int n, const int *parents, const fk_vec3 *rest,
                                           const int *map, fk_quat *reference)
{
    fk_quat world[MAX_SOURCE];
    int target_of[MAX_SOURCE], i, j, k, e;
    for (j = 0; j < s->n; ++j) target_of[j] = -1;
    for (i = 0; i < n; ++i)
        if (map[i] >= 0) target_of[map[i]] = i;
    /* file order is parents first */
    for (j = 0; j < s->n; ++j) {
        int child = -1;
        world[j] = s->parents[j] < 0 ? fk_quat_identity() : world[s->parents[j]];
        if ((i = target_of[j]) < 0) continue;
        for (e = -1, k = 0; k < n && (e < 0 || map[e] < 0); ++k)
            if (parents[k] == i && (e < 0 || map[k] >= 0)) e = k;
        if (e < 0) continue;
        child = map[e];
        for (k = j + 1; child < 0 && k < s->n; ++k)
            if (s->parents[k] == j) child = k;
        if (child >= 0 && fk_vec3_length(fk_vec3_sub(s->rest[child], s->rest[j])) > 0.0f &&
            fk_vec3_length(fk_vec3_sub(rest[e], rest[i])) > 0.0f)
            world[j] = retarget_arc(fk_vec3_normalize(fk_vec3_sub(s->rest[child], s->rest[j])),
                                    fk_vec3_normalize(fk_vec3_sub(rest[e], rest[i])));
    }
    for (j = 0; j < s->n; ++j)
        reference[j] = s->parents[j] < 0 ? world[j] : fk_quat_mul(fk_quat_conjugate(world[s->parents[j]]), world[j]);
}

/* One frame: the clip's pose (root translation relative to the lifted rest),
   and the posed joints. */
static inline void retarget_source_frame(const retarget_clip *s, int frame, fk_quat *rotations,
                                         fk_vec3 *translations, fk_vec3 *posed)
{
    fk_rigid transforms[MAX_SOURCE];
    bvh_frame_pose(&s->file, frame, rotations, translations);
    translations[0].y -= s->lift;
    fk_forward(s->n, s->parents, s->rest, rotations, translations, transforms);
    fk_posed_joints(s->n, s->rest, transforms, posed);
}

typedef struct retarget_result {
    fk_quat rotations[JOINT_COUNT];
    fk_vec3 root;                   /* d_r of the character's pelvis */
    fk_rigid bones[JOINT_COUNT];
    fk_vec3 joints[JOINT_COUNT];
    float miss_before[2], miss_after[2];
    int reached[2];
} retarget_result;

/* Retargets one frame, then (with feet) plants both feet. */
static inline void retarget_frame(const fk_retarget *rt, const retarget_clip *s, const character *c, int frame,
                                  int feet, retarget_result *r, fk_vec3 *source_posed)
{
    fk_quat rotations[MAX_SOURCE], scratch[MAX_SOURCE];
    fk_vec3 translations[MAX_SOURCE], d[JOINT_COUNT];
    int k, pass;
    retarget_source_frame(s, frame, rotations, translations, source_posed);
    fk_retarget_pose(rt, rotations, translations[0], scratch, r->rotations, &r->root);
    memset(d, 0, sizeof d);
    d[PELVIS] = r->root;
    for (pass = 0; pass < 2; ++pass) {
        fk_forward(JOINT_COUNT, c->parents, c->rest, r->rotations, d, r->bones);
        fk_posed_joints(JOINT_COUNT, c->rest, r->bones, r->joints);
        for (k = 0; k < 2; ++k) {
            /* where the foot belongs: the source's, scaled from the hips, at its own height */
            fk_vec3 goal = fk_vec3_add(fk_vec3_make(r->joints[PELVIS].x,
                                                    r->joints[PELVIS].y + c->rest[legs[k][2]].y -
                                                        rt->root_scale * s->ankle_floor,
                                                    r->joints[PELVIS].z),
                                       fk_vec3_scale(fk_vec3_sub(source_posed[s->map[legs[k][2]]], source_posed[0]),
                                                     rt->root_scale));
            float miss = fk_vec3_length(fk_vec3_sub(r->joints[legs[k][2]], goal));
            if (pass == 0) r->miss_before[k] = miss;
            else r->miss_after[k] = miss;
        }
        if (pass == 1 || !feet) break;
        for (k = 0; k < 2; ++k) {
            fk_ik_two_bone_desc leg;
            memset(&leg, 0, sizeof leg);
            leg.rest_joints = c->rest;
            leg.transforms = r->bones;
            /* the ankle keeps its own height above the floor: the character's
               stands higher on its foot than the clip's, scaled */
            leg.target = fk_vec3_make(0.0f, c->rest[legs[k][2]].y - rt->root_scale * s->ankle_floor, 0.0f);
            leg.start = legs[k][0];
            leg.mid = legs[k][1];
            leg.end = legs[k][2];
            fk_retarget_foot(rt, source_posed, &leg, 1.0f, r->rotations, &r->reached[k]);
        }
    }
    if (!feet) memcpy(r->miss_after, r->miss_before, sizeof r->miss_after);
}

static inline int retarget_compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Prepares a loaded clip for the character: maps the character's joints to
   its own by name, finds the ankles' height on the floor, lifts its rest pose
   to the standing hip height and makes its reference toward the character.
   Returns 0 for a clip that is not a CMU skeleton. */
static inline int retarget_clip_prepare(retarget_clip *s, const character *c)
{
    const char *names[MAX_SOURCE];
    float *heights;
    int j, k;
    if (s->file.joint_count > MAX_SOURCE || s->file.frame_count < 1) return 0;
    s->n = s->file.joint_count;
    bvh_rest_pose(&s->file, s->parents, s->rest);
    for (j = 0; j < s->n; ++j) names[j] = s->file.joints[j].is_end_site ? NULL : s->file.joints[j].name;
    if (fk_retarget_map_names(JOINT_COUNT, cmu_names, s->n, names, s->map, NULL) != FK_OK || s->map[PELVIS] != 0 ||
        s->map[L_HIP] < 0 || s->map[L_KNEE] < 0 || s->map[L_ANKLE] < 0 || s->map[R_ANKLE] < 0)
        return 0;
    /* an ankle's height standing on the floor: the tenth percentile of both
       ankles' heights over the clip (the very lowest are toe-offs) */
    heights = (float *)malloc((size_t)s->file.frame_count * 2 * sizeof(float));
    if (!heights) return 0;
    s->lift = 0.0f;
    for (k = 0; k < s->file.frame_count; ++k) {
        fk_quat rotations[MAX_SOURCE];
        fk_vec3 translations[MAX_SOURCE], posed[MAX_SOURCE];
        retarget_source_frame(s, k, rotations, translations, posed);
        for (j = 0; j < 2; ++j) heights[2 * k + j] = posed[s->map[legs[j][2]]].y;
    }
    qsort(heights, (size_t)s->file.frame_count * 2, sizeof(float), retarget_compare_floats);
    s->ankle_floor = heights[s->file.frame_count / 5];
    free(heights);
    /* CMU's rest hips sit at the origin, its legs splayed: stand the rest pose
       where straight legs put the hips above that ankle height, so that the
       rest hip height measures the rig (and the root scale is the ratio of the
       hip heights, standing) */
    s->lift = s->ankle_floor + s->rest[0].y - s->rest[s->map[L_HIP]].y +
              fk_vec3_length(fk_vec3_sub(s->rest[s->map[L_KNEE]], s->rest[s->map[L_HIP]])) +
              fk_vec3_length(fk_vec3_sub(s->rest[s->map[L_ANKLE]], s->rest[s->map[L_KNEE]])) - s->rest[0].y;
    for (j = 0; j < s->n; ++j) s->rest[j].y += s->lift;
    retarget_make_reference(s, JOINT_COUNT, c->parents, c->rest, s->map, s->reference);
    return 1;
}

/* A retarget from the clip to the character, with the clip's reference or without. */
static inline int retarget_make(const retarget_clip *s, const character *c, int use_reference, fk_retarget *rt,
                                int *ints, fk_quat *quats)
{
    fk_retarget_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.source.joint_count = s->n;
    desc.source.parents = s->parents;
    desc.source.rest_positions = s->rest;
    desc.source.reference = use_reference ? s->reference : NULL;
    desc.target.joint_count = JOINT_COUNT;
    desc.target.parents = c->parents;
    desc.target.rest_positions = c->rest;
    desc.map = s->map;
    return fk_retarget_init(rt, &desc, ints, quats) == FK_OK;
}

#endif /* FK_EXAMPLES_RETARGET_H */
