/* fuzz_bvh.c - libFuzzer target for the BVH reader in examples/bvh.c and its bridge
   to fk_forward().

   The bytes are BVH text, handed over with their exact length and no terminating
   NUL (libFuzzer's buffer, or the replay program's, is an exactly sized heap
   block, so one byte of over-read is caught). Invariants:
     - a failed parse leaves the file empty and says why, in a NUL-terminated
       message that fits the buffer (also with a tiny buffer, and with none);
     - a successful parse is self-consistent: parents come before children, End
       Sites have no channels, channel columns add up, every value is a number;
     - the same text parses the same way every time;
     - its rest pose and frames go through fk_forward() to FK_OK or to a value
       error, and FK_OK means finite, unit-rotation transforms. */
#include "fk_lbs.h" /* declarations: the library is tests/fk_lbs_impl.c */
#include "bvh.h"
#include "fuzz_input.h"

#define FRAMES_TO_POSE 4

static void check_failure(const bvh_file *file, const char *error, size_t error_size)
{
    FUZZ_REQUIRE(file->joint_count == 0 && file->joints == NULL && file->motion == NULL && file->frame_count == 0,
                 "a failed parse left something in the file");
    FUZZ_REQUIRE(memchr(error, '\0', error_size) != NULL, "the message is not terminated within its buffer");
    FUZZ_REQUIRE(error_size < 2 || error[0] != '\0', "a failed parse says nothing");
}

static void check_parsed(const bvh_file *file)
{
    int j, k, column = 0;
    unsigned char *owner; /* which columns some joint's channels claim */
    FUZZ_REQUIRE(file->joint_count > 0 && file->joints != NULL, "a parse succeeded without joints");
    FUZZ_REQUIRE(file->frame_count >= 0 && file->channel_count >= 0, "negative counts");
    FUZZ_REQUIRE(file->frame_time == file->frame_time && file->frame_time >= 0.0, "frame time %g", file->frame_time);
    for (j = 0; j < file->joint_count; ++j) {
        const bvh_joint *joint = &file->joints[j];
        FUZZ_REQUIRE(joint->parent >= -1 && joint->parent < j, "joint %d has parent %d", j, joint->parent);
        FUZZ_REQUIRE(joint->parent < 0 || !file->joints[joint->parent].is_end_site, "an End Site has a child");
        FUZZ_REQUIRE(joint->name != NULL, "joint %d has no name", j);
        FUZZ_REQUIRE(joint->channel_count >= 0 && joint->channel_count <= BVH_MAX_CHANNELS, "joint %d: %d channels", j,
                     joint->channel_count);
        FUZZ_REQUIRE(!joint->is_end_site || joint->channel_count == 0, "an End Site with channels");
        for (k = 0; k < joint->channel_count; ++k)
            FUZZ_REQUIRE((int)joint->channels[k] >= 0 && (int)joint->channels[k] <= BVH_ZROTATION, "bad channel");
        for (k = 0; k < 3; ++k) FUZZ_REQUIRE(joint->offset[k] == joint->offset[k], "NaN offset");
        column += joint->channel_count;
    }
    FUZZ_REQUIRE(column == file->channel_count, "channels add up to %d, not %d", column, file->channel_count);
    /* Columns go in the order the CHANNELS lines come, which need not be the joints'
       order (a CHANNELS line may follow a child); every column belongs to one joint. */
    owner = (unsigned char *)fuzz_alloc((size_t)file->channel_count + 1);
    memset(owner, 0, (size_t)file->channel_count + 1);
    for (j = 0; j < file->joint_count; ++j) {
        const bvh_joint *joint = &file->joints[j];
        if (joint->channel_count == 0) continue;
        FUZZ_REQUIRE(joint->first_channel >= 0 && joint->first_channel + joint->channel_count <= file->channel_count,
                     "joint %d's columns %d..%d are outside 0..%d", j, joint->first_channel,
                     joint->first_channel + joint->channel_count - 1, file->channel_count - 1);
        for (k = 0; k < joint->channel_count; ++k) {
            FUZZ_REQUIRE(!owner[joint->first_channel + k], "column %d claimed twice", joint->first_channel + k);
            owner[joint->first_channel + k] = 1;
        }
    }
    free(owner);
    if ((size_t)file->frame_count * (size_t)file->channel_count > 0) {
        size_t v, values = (size_t)file->frame_count * (size_t)file->channel_count;
        FUZZ_REQUIRE(file->motion != NULL, "no motion");
        for (v = 0; v < values; ++v) FUZZ_REQUIRE(file->motion[v] == file->motion[v], "NaN in the motion");
    }
}

/* Poses a frame (or the rest pose, frame -1) with exactly sized arrays. */
static void check_pose(const bvh_file *file, int frame)
{
    size_t n = (size_t)file->joint_count;
    int *parents = (int *)fuzz_alloc(n * sizeof *parents);
    fk_vec3 *rest = (fk_vec3 *)fuzz_alloc(n * sizeof *rest);
    fk_quat *rotations = (fk_quat *)fuzz_alloc(n * sizeof *rotations);
    fk_vec3 *translations = (fk_vec3 *)fuzz_alloc(n * sizeof *translations);
    fk_rigid *out = (fk_rigid *)fuzz_alloc(n * sizeof *out);
    fk_result r;
    size_t j;
    bvh_rest_pose(file, parents, rest);
    if (frame >= 0) {
        bvh_frame_pose(file, frame, rotations, translations);
    } else {
        for (j = 0; j < n; ++j) { rotations[j] = fk_quat_identity(); translations[j] = fk_vec3_make(0.0f, 0.0f, 0.0f); }
    }
    FUZZ_REQUIRE(fk_validate_skeleton(file->joint_count, parents) == FK_OK, "a parsed hierarchy is not a tree");
    r = fk_forward(file->joint_count, parents, rest, rotations, translations, out);
    /* Numbers that float cannot hold (offsets of 1e300, "inf") become value errors. */
    FUZZ_REQUIRE(r == FK_OK || r == FK_ERROR_NOT_FINITE || r == FK_ERROR_INVALID_ROTATION, "fk_forward: %s",
                 fk_result_description(r));
    if (r == FK_OK)
        for (j = 0; j < n; ++j) {
            FUZZ_REQUIRE(fuzz_is_finite(out[j].t.x) && fuzz_is_finite(out[j].t.y) && fuzz_is_finite(out[j].t.z),
                         "joint %zu translation not finite", j);
            FUZZ_REQUIRE(fabsf(fk_quat_length(out[j].q) - 1.0f) <= 1e-6f, "joint %zu rotation not unit", j);
        }
    free(parents); free(rest); free(rotations); free(translations); free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bvh_file file, again;
    char error[256], tiny[8];
    const char *text = (const char *)data;
    int ok, frame;
    memset(error, 'x', sizeof error);
    ok = bvh_parse(text, size, &file, error, sizeof error);
    if (!ok) {
        check_failure(&file, error, sizeof error);
        memset(tiny, 'x', sizeof tiny);
        FUZZ_REQUIRE(!bvh_parse(text, size, &again, tiny, sizeof tiny), "the second parse succeeded");
        check_failure(&again, tiny, sizeof tiny);
        FUZZ_REQUIRE(!bvh_parse(text, size, &again, NULL, 0), "the parse without a message succeeded");
        return 0;
    }
    check_parsed(&file);
    FUZZ_REQUIRE(bvh_parse(text, size, &again, NULL, 0), "the same text failed the second time");
    FUZZ_REQUIRE(again.joint_count == file.joint_count && again.frame_count == file.frame_count &&
                     again.channel_count == file.channel_count,
                 "the same text parsed differently");
    bvh_free(&again);
    check_pose(&file, -1);
    for (frame = 0; frame < file.frame_count && frame < FRAMES_TO_POSE; ++frame) check_pose(&file, frame);
    if (file.frame_count > FRAMES_TO_POSE) check_pose(&file, file.frame_count - 1);
    bvh_free(&file);
    FUZZ_REQUIRE(file.joint_count == 0 && file.joints == NULL && file.motion == NULL, "bvh_free left something");
    bvh_free(&file); /* safe on an empty file */
    return 0;
}
