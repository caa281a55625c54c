/* assimp_rig.h - a skinned mesh and its animation from any file assimp reads (glTF,
   FBX, X, Collada, ...), in fk_lbs.h's terms.

   rig_load() imports the file with assimp's C API, takes the first mesh that has
   bones, and converts it once:
     - joints: the mesh's bones, each joined to its nearest ancestor among them;
     - the bind pose: the bones' offset matrices (assimp's inverse bind matrices)
       go through fk_bind_from_matrices(), which returns the rest joints and the
       pre-transform P that every skinning matrix shares (the FBX armature's scale
       of 100, a mesh scale baked into the bind matrices); the stored vertices are
       already P v;
     - weights: every influence is kept (no limit of four) and fk_weights_repair()
       mends what exporters get wrong: sums that are not one are normalized
       (renormalized_vertices counts them), NaN, negative and duplicate entries are
       dropped or merged, and a vertex with no weight is bound to one joint
       instead of collapsing to the origin (unweighted_vertices counts them).
   rig_skinning_at() samples the first animation at a time in seconds as glTF
   specifies (linear translation and scale, slerp rotation, the end keys held
   outside their range) and multiplies the nodes' local T R S down the tree (the
   node tree prepared once by fk_skeleton_init()), each joint's node with its
   inverse bind: fk_forward_engine_rigid() gives the rigid transforms to skin
   with when no node scales, fk_forward_engine() skinning matrices when one does.
   rig_pose_at() gives the same pose in fk_forward()'s terms instead, through
   fk_pose_from_matrices().

   The skinned vertex is what glTF defines: sum_j w_j (world_j x inverse_bind_j) v;
   the mesh node's own transform does not apply. Needs libassimp-dev. */
#ifndef FK_EXAMPLES_ASSIMP_RIG_H
#define FK_EXAMPLES_ASSIMP_RIG_H

#include <stddef.h>
#include <stdint.h>
#include "fk_lbs.h"

struct aiScene;
struct aiMesh;
struct aiNode;
struct aiNodeAnim;
struct aiAnimation;

typedef struct rig {
    const struct aiScene *scene;
    const struct aiMesh *mesh;              /* the first mesh with bones */
    const struct aiAnimation *animation;    /* the first animation, or NULL */
    const char *mesh_name, *animation_name; /* as in the file ("" when unnamed or absent) */
    double duration_seconds;                /* of that animation, 0 without one */

    int node_count;
    const struct aiNode **nodes;            /* every node, parents before children */
    int *node_parent;                       /* index into nodes, -1 for the root */
    const struct aiNodeAnim **node_channel; /* the animation's channel of each node, or NULL */
    float *node_world;                      /* scratch: 12 floats per node */
    float *node_inverse_bind;               /* 12 floats per node: IB_i P^-1 at joint i's node, else the identity */
    fk_rigid *node_rigid_bind;              /* the same as rigid transforms (when rigid_binds) */
    int rigid_binds;                        /* every IB_i P^-1 is rigid */
    float *node_skinning;                   /* scratch: 12 floats per node */
    fk_rigid *node_rigid_world, *node_rigid_skinning; /* scratch: a transform per node */
    fk_skeleton node_skeleton;              /* the node tree, prepared once (in node_storage) */
    int *node_storage;
    fk_vec3 *node_rest_translations, *node_rest_scales; /* each node's own T R S, from the file */
    fk_quat *node_rest_rotations;
    fk_vec3 *node_translations, *node_scales; /* scratch: the T R S of the pose at hand */
    fk_quat *node_rotations;

    int joint_count;
    const char **joint_names;               /* the bones' names (owned by the scene) */
    int *joint_node;                        /* node of each joint */
    int *parents;                           /* nearest ancestor joint, -1 for none */
    float *inverse_bind;                    /* 12 floats per joint: the bone's offset matrix */
    float *joint_world;                     /* scratch: 12 floats per joint */
    float pretransform[12];                 /* P, from fk_bind_from_matrices() */
    fk_vec3 *rest_joints;                   /* x_i, in the pre-transformed space */

    int vertex_count;
    float *positions;                       /* P v, 3 floats per vertex, in the file's order */
    float *normals;                         /* normals through P, or NULL */
    int influences;                         /* the most joints any vertex has (at least 1) */
    uint16_t *joints;                       /* influences per vertex, unused slots 0 */
    float *weights;                         /* influences per vertex, unused slots 0 */
    int renormalized_vertices;              /* vertices whose weights did not sum to one */
    int unweighted_vertices;                /* vertices with no weight at all (bound to one joint) */
    int repaired_vertices;                  /* vertices fk_weights_repair() rewrote, for any reason */
    int triangle_count;
    int *triangles;                         /* 3 vertex indices each (polygons fanned) */
} rig;

/* Loads the first skinned mesh of a file. Returns 1, or 0 with a message. */
int rig_load(const char *path, rig *out, char *error, size_t error_size);

/* fk_forward()'s rotations and translations (joint_count each) at a time in
   seconds (clamped to the animation; the file's static pose without one).
   Returns FK_OK or the bridge's error (FK_ERROR_NOT_RIGID for animated scale). */
fk_result rig_pose_at(rig *r, double seconds, fk_quat *rotations, fk_vec3 *translations);

/* Each joint's skinning at a time in seconds (clamped to the animation), for
   the stored vertices P v: world_i IB_i P^-1, from the nodes' local T R S on
   the node tree. When no node scales and every IB_i P^-1 is rigid, rigid
   transforms from fk_forward_engine_rigid() (into transforms, for
   fk_skin_desc::transforms; returns 1); else 3x4 matrices from
   fk_forward_engine() (into matrices, 12 floats per joint, for
   fk_skin_desc::matrices; returns 0). Returns -1 when the pose is not finite. */
int rig_skinning_at(rig *r, double seconds, fk_rigid *transforms, float *matrices);

/* The node world matrices at a time, 12 floats per node (into r->node_world). */
void rig_node_world_matrices(rig *r, double seconds);

void rig_free(rig *r);

#endif
