/* bvh.h - a reader for BVH motion capture files (Biovision Hierarchy).

   A BVH file has two parts. HIERARCHY is a tree of ROOT, JOINT and End Site
   entries, each with an OFFSET from its parent and (except End Sites) a list of
   CHANNELS: positions and Euler rotations in degrees, in any order. MOTION gives
   "Frames: n", "Frame Time: seconds" and n lines of numbers, one per channel, in
   the order the channels were declared. Text after the declared frames is ignored
   (some exporters write one frame more than they declare).

   A joint's local transform is T(OFFSET + position channels) R, where R multiplies
   the rotation channels in the order listed ("Zrotation Xrotation Yrotation" is
   Rz Rx Ry, the last acting on a vector first); world = parent world x local.

   Usage:
       bvh_file file;
       char error[256];
       if (!bvh_load("walk.bvh", &file, error, sizeof error)) { puts(error); return 1; }
       ...file.joints[j], bvh_value(&file, frame, file.joints[j].first_channel + k)...
       bvh_free(&file);

   The reader allocates (and bvh_free() releases everything); it never reads
   outside the buffer it is given, which need not end with a NUL. Errors name the
   line: "line 12: expected '{' after JOINT LeftLeg, found 'OFFSET'".

   When fk_lbs.h is included before this header, bvh_rest_pose() and
   bvh_frame_pose() turn a file into fk_forward()'s inputs. */
#ifndef FK_EXAMPLES_BVH_H
#define FK_EXAMPLES_BVH_H

#include <stddef.h>

/* A channel: a position along, or a rotation in degrees about, one axis. */
typedef enum bvh_channel {
    BVH_XPOSITION, BVH_YPOSITION, BVH_ZPOSITION,
    BVH_XROTATION, BVH_YROTATION, BVH_ZROTATION
} bvh_channel;

#define BVH_MAX_CHANNELS 6

/* One ROOT, JOINT or End Site, in file order (parents come before children). */
typedef struct bvh_joint {
    char *name;          /* as in the file; End Sites are named "End Site" */
    int parent;          /* index of the parent joint, -1 for a ROOT */
    int is_end_site;     /* 1 for an End Site: no channels, no name of its own */
    double offset[3];    /* OFFSET, in the file's units */
    int channel_count;   /* 0 to BVH_MAX_CHANNELS */
    bvh_channel channels[BVH_MAX_CHANNELS]; /* in the order listed */
    int first_channel;   /* column of channels[0] in each frame's row */
} bvh_joint;

typedef struct bvh_file {
    int joint_count;
    bvh_joint *joints;
    int channel_count;   /* numbers per frame: the sum of the joints' channel counts */
    int frame_count;
    double frame_time;   /* seconds per frame */
    double *motion;      /* frame_count rows of channel_count numbers */
} bvh_file;

/* Parses length bytes of BVH text. Returns 1 and fills *out (release it with
   bvh_free()), or returns 0, leaves *out empty and writes a message naming the
   line into error (error_size bytes, always NUL-terminated; error may be NULL). */
int bvh_parse(const char *text, size_t length, bvh_file *out, char *error, size_t error_size);

/* Reads a whole file and parses it; the message also names the file. */
int bvh_load(const char *path, bvh_file *out, char *error, size_t error_size);

/* Releases what bvh_parse() allocated and empties *file; safe on an empty file. */
void bvh_free(bvh_file *file);

/* Channel column of a frame (both in range: the caller checks). */
static inline double bvh_value(const bvh_file *file, int frame, int column)
{
    return file->motion[(size_t)frame * (size_t)file->channel_count + (size_t)column];
}

#ifdef FK_LBS_H
/* ---- Bridge to fk_lbs.h ------------------------------------------------------
   A BVH rest pose has every channel at zero, so each bind rotation is the identity:
   the rest joint is the sum of the OFFSETs down the chain, q_i is the joint's
   rotation channels multiplied in order, and d_i its position channels (a root's
   d_r moves it from its OFFSET). */

/* parents[j] and rest_joints[j] for every joint of the file (End Sites too). */
static inline void bvh_rest_pose(const bvh_file *file, int *parents, fk_vec3 *rest_joints)
{
    int j;
    for (j = 0; j < file->joint_count; ++j) {
        const bvh_joint *joint = &file->joints[j];
        fk_vec3 offset = fk_vec3_make((float)joint->offset[0], (float)joint->offset[1], (float)joint->offset[2]);
        parents[j] = joint->parent;
        rest_joints[j] = joint->parent < 0 ? offset : fk_vec3_add(rest_joints[joint->parent], offset);
    }
}

/* fk_forward()'s rotations q_i and translations d_i for one frame. */
static inline void bvh_frame_pose(const bvh_file *file, int frame, fk_quat *rotations, fk_vec3 *translations)
{
    const float degrees = 3.14159265358979f / 180.0f;
    int j, k;
    for (j = 0; j < file->joint_count; ++j) {
        const bvh_joint *joint = &file->joints[j];
        fk_quat q = fk_quat_identity();
        float position[3] = {0.0f, 0.0f, 0.0f};
        for (k = 0; k < joint->channel_count; ++k) {
            float value = (float)bvh_value(file, frame, joint->first_channel + k);
            int axis = (int)joint->channels[k] % 3;
            if (joint->channels[k] <= BVH_ZPOSITION) {
                position[axis] = value;
            } else {
                fk_vec3 direction = fk_vec3_make(axis == 0 ? 1.0f : 0.0f, axis == 1 ? 1.0f : 0.0f, axis == 2 ? 1.0f : 0.0f);
                q = fk_quat_mul(q, fk_quat_from_axis_angle(direction, value * degrees));
            }
        }
        rotations[j] = q;
        translations[j] = fk_vec3_make(position[0], position[1], position[2]);
    }
}
#endif

#endif
