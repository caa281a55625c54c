/* bvh_pose - poses a BVH motion capture skeleton with fk_lbs.h.

   build/bvh_pose [FILE] [--frames LIST] [--dump-joints]

   --frames 0,100,250   frames to pose (0-based); default: six spread over the clip
   --dump-joints        print "<frame> <joint> <x> <y> <z>" for every requested frame
                        and every ROOT and JOINT in file order: the joint's world
                        position in the file's units

   Without FILE it reads /usr/share/assimp/models/BVH/01_01.bvh (Debian package
   assimp-testmodels). The whole conversion is bvh_rest_pose() and
   bvh_frame_pose() in bvh.h, then fk_forward(): a BVH rest pose has no rotation,
   so the channels are fk_forward()'s inputs as they stand. */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"
#include "bvh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_FILE "/usr/share/assimp/models/BVH/01_01.bvh"
#define MAX_FRAMES 64

static int usage(void)
{
    fprintf(stderr, "usage: bvh_pose [FILE.bvh] [--frames 0,10,20] [--dump-joints]\n");
    return 2;
}

/* "3,10,200" -> {3, 10, 200}; 0 on a malformed list. */
static int parse_frame_list(const char *text, int *frames, int *count)
{
    *count = 0;
    while (*text) {
        char *end;
        long value = strtol(text, &end, 10);
        if (end == text || value < 0 || value > 1000000000L || *count == MAX_FRAMES) return 0;
        frames[(*count)++] = (int)value;
        if (*end == ',') end++;
        else if (*end != '\0') return 0;
        text = end;
    }
    return *count > 0;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    int frames[MAX_FRAMES], frame_count = 0, dump_joints = 0, a, f, j;
    bvh_file file;
    char error[512];
    int *parents;
    fk_vec3 *rest_joints, *translations, *posed;
    fk_quat *rotations;
    fk_rigid *transforms;

    for (a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--frames") == 0 && a + 1 < argc) {
            if (!parse_frame_list(argv[++a], frames, &frame_count)) {
                fprintf(stderr, "bvh_pose: --frames wants up to %d comma-separated frame numbers, like 0,50,100\n", MAX_FRAMES);
                return 2;
            }
        } else if (strcmp(argv[a], "--dump-joints") == 0) {
            dump_joints = 1;
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
    if (frame_count == 0) { /* six frames spread over the clip */
        for (f = 0; f < 6 && f < file.frame_count; ++f)
            frames[frame_count++] = file.frame_count < 6 ? f : (int)((long)f * (file.frame_count - 1) / 5);
    }
    for (f = 0; f < frame_count; ++f)
        if (frames[f] >= file.frame_count) {
            fprintf(stderr, "bvh_pose: frame %d requested, but %s has frames 0 to %d\n", frames[f], path,
                    file.frame_count - 1);
            bvh_free(&file);
            return 1;
        }

    parents = (int *)malloc((size_t)file.joint_count * sizeof *parents);
    rest_joints = (fk_vec3 *)malloc((size_t)file.joint_count * sizeof *rest_joints);
    translations = (fk_vec3 *)malloc((size_t)file.joint_count * sizeof *translations);
    posed = (fk_vec3 *)malloc((size_t)file.joint_count * sizeof *posed);
    rotations = (fk_quat *)malloc((size_t)file.joint_count * sizeof *rotations);
    transforms = (fk_rigid *)malloc((size_t)file.joint_count * sizeof *transforms);
    if (!parents || !rest_joints || !translations || !posed || !rotations || !transforms) {
        fprintf(stderr, "bvh_pose: out of memory\n");
        return 1;
    }
    bvh_rest_pose(&file, parents, rest_joints);
    if (!dump_joints)
        printf("%s: %d joints, %d channels, %d frames at %.4g s\n", path, file.joint_count, file.channel_count,
               file.frame_count, file.frame_time);
    for (f = 0; f < frame_count; ++f) {
        fk_result result;
        bvh_frame_pose(&file, frames[f], rotations, translations);
        result = fk_forward(file.joint_count, parents, rest_joints, rotations, translations, transforms);
        if (result == FK_OK) result = fk_posed_joints(file.joint_count, rest_joints, transforms, posed);
        if (result != FK_OK) {
            fprintf(stderr, "bvh_pose: frame %d: %s\n", frames[f], fk_result_description(result));
            return 1;
        }
        if (dump_joints)
            for (j = 0; j < file.joint_count; ++j)
                if (!file.joints[j].is_end_site)
                    printf("%d %s %.9g %.9g %.9g\n", frames[f], file.joints[j].name, (double)posed[j].x,
                           (double)posed[j].y, (double)posed[j].z);
    }
    free(parents); free(rest_joints); free(translations); free(posed); free(rotations); free(transforms);
    bvh_free(&file);
    return 0;
}
