/* rig_pose - poses and skins a rigged model from any file assimp reads.

   build/rig_pose MODEL [--time SECONDS] [--method lbs|dqs] [--dump-vertices]

   --time SECONDS     when in the first animation to pose it (default 0; clamped)
   --method lbs|dqs   linear blend or dual quaternion skinning (default lbs)
   --dump-vertices    print "x y z" for every vertex of the first skinned mesh, in
                      the file's order, in world space as glTF defines a skinned
                      vertex: sum_j w_j (joint world matrix x inverse bind matrix) v

   assimp_rig.c turns the file into fk_lbs.h's terms (fk_bind_from_matrices() and
   fk_pose_from_matrices()); what is left is the library's ordinary loop:
   fk_forward() and fk_skin_lbs() or fk_skin_dqs(). */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"
#include "assimp_rig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: rig_pose MODEL [--time SECONDS] [--method lbs|dqs] [--dump-vertices]\n"
                    "  e.g. rig_pose /usr/share/assimp/models/glTF2/simple_skin/simple_skin.gltf --time 2\n"
                    "  (models from the Debian package assimp-testmodels)\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *method = "lbs";
    double seconds = 0.0;
    int dump_vertices = 0, a, v;
    char error[512];
    rig model;
    fk_quat *rotations;
    fk_vec3 *translations;
    fk_rigid *transforms;
    float *skinned;
    fk_skin_desc skin;
    fk_result result;

    for (a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--time") == 0 && a + 1 < argc) {
            char *end;
            seconds = strtod(argv[++a], &end);
            if (*end != '\0') return usage();
        } else if (strcmp(argv[a], "--method") == 0 && a + 1 < argc) {
            method = argv[++a];
            if (strcmp(method, "lbs") != 0 && strcmp(method, "dqs") != 0) return usage();
        } else if (strcmp(argv[a], "--dump-vertices") == 0) {
            dump_vertices = 1;
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
            printf("  %d vertices have no weights and collapse to the origin, as glTF defines\n", model.unweighted_vertices);
        if (difference > 1e-5f) /* rounding aside */
            printf("  shared linear part factored out of the skinning matrices, P = "
                   "[%.4g %.4g %.4g; %.4g %.4g %.4g; %.4g %.4g %.4g]\n",
                   (double)p[0], (double)p[1], (double)p[2], (double)p[4], (double)p[5], (double)p[6],
                   (double)p[8], (double)p[9], (double)p[10]);
        printf("  animation: %s, %.3g s; posed at %.3g s with %s\n",
               !model.animation ? "none" : model.animation_name[0] ? model.animation_name : "(unnamed)",
               model.duration_seconds, seconds, method);
    }

    rotations = (fk_quat *)malloc((size_t)model.joint_count * sizeof *rotations);
    translations = (fk_vec3 *)malloc((size_t)model.joint_count * sizeof *translations);
    transforms = (fk_rigid *)malloc((size_t)model.joint_count * sizeof *transforms);
    skinned = (float *)malloc((size_t)model.vertex_count * 3 * sizeof *skinned + 1);
    if (!rotations || !translations || !transforms || !skinned) {
        fprintf(stderr, "rig_pose: out of memory\n");
        return 1;
    }
    result = rig_pose_at(&model, seconds, rotations, translations);
    if (result == FK_OK)
        result = fk_forward(model.joint_count, model.parents, model.rest_joints, rotations, translations, transforms);
    memset(&skin, 0, sizeof skin);
    skin.vertex_count = model.vertex_count;
    skin.influences = model.influences;
    skin.positions = model.positions;
    skin.joints = model.joints;
    skin.weights = model.weights;
    skin.transforms = transforms;
    skin.transform_count = model.joint_count;
    skin.out_positions = skinned;
    if (result == FK_OK) result = strcmp(method, "dqs") == 0 ? fk_skin_dqs(&skin) : fk_skin_lbs(&skin);
    if (result != FK_OK) {
        fprintf(stderr, "rig_pose: %s at %g s: %s\n", path, seconds, fk_result_description(result));
        return 1;
    }
    if (dump_vertices)
        for (v = 0; v < model.vertex_count; ++v)
            printf("%.9g %.9g %.9g\n", (double)skinned[3 * v], (double)skinned[3 * v + 1], (double)skinned[3 * v + 2]);
    free(rotations); free(translations); free(transforms); free(skinned);
    rig_free(&model);
    return 0;
}
