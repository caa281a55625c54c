/* assimp_rig.c - see assimp_rig.h. */
#include "assimp_rig.h"

#include <assimp/cimport.h>
#include <assimp/scene.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rig__fail(char *error, size_t error_size, const char *format, ...)
{
    va_list args;
    if (error && error_size) {
        va_start(args, format);
        vsnprintf(error, error_size, format, args);
        va_end(args);
    }
    return 0;
}

/* assimp stores aiMatrix4x4 as a1 a2 a3 a4 b1 ... d4: row-major, column vectors. */
static void rig__mat34_of(const struct aiMatrix4x4 *m, float out[12])
{
    float m44[16];
    memcpy(m44, m, sizeof m44);
    fk_mat34_from_mat44_row_major(m44, out);
}

/* Lists the nodes parents first (a breadth-first walk); counts them when nodes is NULL. */
static int rig__list_nodes(const struct aiNode *root, const struct aiNode **nodes, int *parents)
{
    int count = 1, next;
    if (!nodes) {
        unsigned c;
        for (c = 0; c < root->mNumChildren; ++c) count += rig__list_nodes(root->mChildren[c], NULL, NULL);
        return count;
    }
    nodes[0] = root;
    parents[0] = -1;
    for (next = 0; next < count; ++next) {
        unsigned c;
        for (c = 0; c < nodes[next]->mNumChildren; ++c) {
            nodes[count] = nodes[next]->mChildren[c];
            parents[count++] = next;
        }
    }
    return count;
}

static int rig__find_node(const rig *r, const char *name)
{
    int n;
    for (n = 0; n < r->node_count; ++n)
        if (strcmp(r->nodes[n]->mName.data, name) == 0) return n;
    return -1;
}

/* The keys k, k + 1 around a time and the fraction between them; the end keys
   are held outside the keys' range. */
static int rig__bracket(const double *times, size_t stride, unsigned count, double ticks, float *fraction)
{
    unsigned lo = 0, hi = count - 1;
#define RIG__TIME(i) (*(const double *)(const void *)((const char *)times + (size_t)(i) * stride))
    *fraction = 0.0f;
    if (count == 1 || ticks <= RIG__TIME(0)) return 0;
    if (ticks >= RIG__TIME(hi)) return (int)hi;
    while (hi - lo > 1) { /* RIG__TIME(lo) <= ticks < RIG__TIME(hi) */
        unsigned mid = lo + (hi - lo) / 2;
        if (RIG__TIME(mid) <= ticks) lo = mid; else hi = mid;
    }
    *fraction = (float)((ticks - RIG__TIME(lo)) / (RIG__TIME(hi) - RIG__TIME(lo)));
#undef RIG__TIME
    return (int)lo;
}

static fk_vec3 rig__sample_vector(const struct aiVectorKey *keys, unsigned count, double ticks, fk_vec3 fallback)
{
    float f;
    int k;
    fk_vec3 a, b;
    if (count == 0) return fallback;
    k = rig__bracket(&keys[0].mTime, sizeof keys[0], count, ticks, &f);
    a = fk_vec3_make(keys[k].mValue.x, keys[k].mValue.y, keys[k].mValue.z);
    if (f == 0.0f) return a;
    b = fk_vec3_make(keys[k + 1].mValue.x, keys[k + 1].mValue.y, keys[k + 1].mValue.z);
    return fk_vec3_add(a, fk_vec3_scale(fk_vec3_sub(b, a), f));
}

static fk_quat rig__sample_rotation(const struct aiQuatKey *keys, unsigned count, double ticks, fk_quat fallback)
{
    float f;
    int k;
    fk_quat a;
    if (count == 0) return fallback;
    k = rig__bracket(&keys[0].mTime, sizeof keys[0], count, ticks, &f);
    a = fk_quat_make(keys[k].mValue.x, keys[k].mValue.y, keys[k].mValue.z, keys[k].mValue.w);
    if (f == 0.0f) return a;
    return fk_quat_slerp(a, fk_quat_make(keys[k + 1].mValue.x, keys[k + 1].mValue.y, keys[k + 1].mValue.z,
                                         keys[k + 1].mValue.w), f);
}

/* Each node's local translation, rotation and scale at a time in ticks,
   animated or as the file leaves the nodes (a channel without keys of a kind
   keeps the node's own). */
static void rig__sample_nodes(rig *r, double ticks, int animated)
{
    int n;
    for (n = 0; n < r->node_count; ++n) {
        const struct aiNodeAnim *channel = animated ? r->node_channel[n] : NULL;
        r->node_translations[n] = r->node_rest_translations[n];
        r->node_rotations[n] = r->node_rest_rotations[n];
        r->node_scales[n] = r->node_rest_scales[n];
        if (channel) {
            r->node_translations[n] = rig__sample_vector(channel->mPositionKeys, channel->mNumPositionKeys, ticks,
                                                         r->node_translations[n]);
            r->node_rotations[n] = rig__sample_rotation(channel->mRotationKeys, channel->mNumRotationKeys, ticks,
                                                        r->node_rotations[n]);
            r->node_scales[n] = rig__sample_vector(channel->mScalingKeys, channel->mNumScalingKeys, ticks,
                                                   r->node_scales[n]);
        }
    }
}

/* Node world matrices at a time in ticks: the local T R S multiplied down the
   tree by fk_forward_engine(). */
static void rig__node_world(rig *r, double ticks, int animated)
{
    rig__sample_nodes(r, ticks, animated);
    if (fk_forward_engine(&r->node_skeleton, r->node_translations, r->node_rotations, r->node_scales, NULL,
                          r->node_world, NULL) != FK_OK)
        memset(r->node_world, 0, (size_t)r->node_count * 12 * sizeof(float)); /* NaN in the file: nothing skins */
}

/* A time in seconds as the animation's ticks, clamped to the animation. */
static double rig__ticks(const rig *r, double seconds)
{
    double ticks_per_second = 25.0; /* assimp's default when a file gives none */
    if (r->animation && r->animation->mTicksPerSecond > 0.0) ticks_per_second = r->animation->mTicksPerSecond;
    if (seconds > r->duration_seconds) seconds = r->duration_seconds;
    if (seconds < 0.0) seconds = 0.0;
    return seconds * ticks_per_second;
}

void rig_node_world_matrices(rig *r, double seconds)
{
    rig__node_world(r, rig__ticks(r, seconds), 1);
}

static void rig__gather_joint_world(rig *r)
{
    int j;
    for (j = 0; j < r->joint_count; ++j)
        memcpy(r->joint_world + 12 * j, r->node_world + 12 * r->joint_node[j], 12 * sizeof(float));
}

fk_result rig_pose_at(rig *r, double seconds, fk_quat *rotations, fk_vec3 *translations)
{
    rig_node_world_matrices(r, seconds);
    rig__gather_joint_world(r);
    return fk_pose_from_matrices(r->joint_count, r->parents, r->inverse_bind, r->joint_world, r->pretransform,
                                 r->rest_joints, rotations, translations);
}

int rig_skinning_at(rig *r, double seconds, fk_rigid *transforms, float *matrices)
{
    int n, j, rigid = r->rigid_binds;
    rig__sample_nodes(r, rig__ticks(r, seconds), 1);
    for (n = 0; n < r->node_count && rigid; ++n)
        rigid = r->node_scales[n].x == 1.0f && r->node_scales[n].y == 1.0f && r->node_scales[n].z == 1.0f;
    if (rigid) {
        if (fk_forward_engine_rigid(&r->node_skeleton, r->node_translations, r->node_rotations, r->node_rigid_bind,
                                    r->node_rigid_world, r->node_rigid_skinning) != FK_OK)
            return -1;
        for (j = 0; j < r->joint_count; ++j) transforms[j] = r->node_rigid_skinning[r->joint_node[j]];
        return 1;
    }
    if (fk_forward_engine(&r->node_skeleton, r->node_translations, r->node_rotations, r->node_scales,
                          r->node_inverse_bind, r->node_world, r->node_skinning) != FK_OK)
        return -1;
    for (j = 0; j < r->joint_count; ++j)
        memcpy(matrices + 12 * j, r->node_skinning + 12 * r->joint_node[j], 12 * sizeof(float));
    return 0;
}

/* Each joint's node gets IB_i P^-1, the inverse bind of the stored vertices P v,
   and the other nodes the identity; rigid_binds says whether all of them are
   rigid within RIG_RIGID_TOLERANCE of each matrix's size (float rounding of
   an exporter's products, far below what shows), so that poses in which
   nothing scales take the rigid path. */
#define RIG_RIGID_TOLERANCE 1e-5f
static int rig__node_binds(rig *r)
{
    static const float identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    float pretransform_inverse[12], back[12];
    int n, j, e;
    if (fk_mat34_inverse(r->pretransform, pretransform_inverse) != FK_OK) return 0;
    for (n = 0; n < r->node_count; ++n) memcpy(r->node_inverse_bind + 12 * n, identity, sizeof identity);
    for (j = 0; j < r->joint_count; ++j)
        fk_mat34_mul(r->inverse_bind + 12 * j, pretransform_inverse, r->node_inverse_bind + 12 * r->joint_node[j]);
    r->rigid_binds = 1;
    for (n = 0; n < r->node_count; ++n) {
        const float *m = r->node_inverse_bind + 12 * n;
        float size = 1.0f;
        r->node_rigid_bind[n] = fk_rigid_from_mat34(m);
        fk_rigid_to_mat34(r->node_rigid_bind[n], back);
        for (e = 0; e < 12; ++e) size = fabsf(m[e]) > size ? fabsf(m[e]) : size;
        for (e = 0; e < 12; ++e) r->rigid_binds &= fabsf(back[e] - m[e]) <= RIG_RIGID_TOLERANCE * size;
    }
    return 1;
}

/* Joints, bind pose and the node table. */
static int rig__skeleton(rig *r, char *error, size_t error_size)
{
    const struct aiMesh *mesh = r->mesh;
    int *node_joint, j, n;
    unsigned c;
    r->node_count = rig__list_nodes(r->scene->mRootNode, NULL, NULL);
    r->nodes = (const struct aiNode **)calloc((size_t)r->node_count, sizeof *r->nodes);
    r->node_parent = (int *)calloc((size_t)r->node_count, sizeof *r->node_parent);
    r->node_channel = (const struct aiNodeAnim **)calloc((size_t)r->node_count, sizeof *r->node_channel);
    r->node_world = (float *)calloc((size_t)r->node_count * 36, sizeof(float));
    r->node_rigid_bind = (fk_rigid *)calloc((size_t)r->node_count * 3, sizeof(fk_rigid));
    r->node_storage = (int *)calloc((size_t)FK_SKELETON_STORAGE(r->node_count), sizeof(int));
    r->node_rest_translations = (fk_vec3 *)calloc((size_t)r->node_count * 2, sizeof(fk_vec3));
    r->node_translations = (fk_vec3 *)calloc((size_t)r->node_count * 2, sizeof(fk_vec3));
    r->node_rest_rotations = (fk_quat *)calloc((size_t)r->node_count * 2, sizeof(fk_quat));
    r->joint_count = (int)mesh->mNumBones;
    r->joint_names = (const char **)calloc((size_t)r->joint_count, sizeof *r->joint_names);
    r->joint_node = (int *)calloc((size_t)r->joint_count, sizeof *r->joint_node);
    r->parents = (int *)calloc((size_t)r->joint_count, sizeof *r->parents);
    r->inverse_bind = (float *)calloc((size_t)r->joint_count * 12, sizeof(float));
    r->joint_world = (float *)calloc((size_t)r->joint_count * 12, sizeof(float));
    r->rest_joints = (fk_vec3 *)calloc((size_t)r->joint_count, sizeof *r->rest_joints);
    node_joint = (int *)malloc((size_t)r->node_count * sizeof *node_joint);
    if (!r->nodes || !r->node_parent || !r->node_channel || !r->node_world || !r->node_rigid_bind || !r->node_storage ||
        !r->node_rest_translations || !r->node_translations || !r->node_rest_rotations || !r->joint_names || !r->joint_node ||
        !r->parents || !r->inverse_bind || !r->joint_world || !r->rest_joints || !node_joint) {
        free(node_joint);
        return rig__fail(error, error_size, "out of memory");
    }
    rig__list_nodes(r->scene->mRootNode, r->nodes, r->node_parent);
    /* the node tree, prepared once for fk_forward_engine(), and each node's own T R S */
    r->node_rest_scales = r->node_rest_translations + r->node_count;
    r->node_scales = r->node_translations + r->node_count;
    r->node_rotations = r->node_rest_rotations + r->node_count;
    r->node_inverse_bind = r->node_world + 12 * r->node_count;
    r->node_skinning = r->node_world + 24 * r->node_count;
    r->node_rigid_world = r->node_rigid_bind + r->node_count;
    r->node_rigid_skinning = r->node_rigid_bind + 2 * r->node_count;
    if (fk_skeleton_init(&r->node_skeleton, r->node_count, r->node_parent, r->node_storage) != FK_OK) {
        free(node_joint);
        return rig__fail(error, error_size, "the node tree is not a tree");
    }
    for (n = 0; n < r->node_count; ++n) {
        struct aiVector3D scaling, position;
        struct aiQuaternion rotation;
        aiDecomposeMatrix(&r->nodes[n]->mTransformation, &scaling, &rotation, &position);
        r->node_rest_translations[n] = fk_vec3_make(position.x, position.y, position.z);
        r->node_rest_rotations[n] = fk_quat_make(rotation.x, rotation.y, rotation.z, rotation.w);
        r->node_rest_scales[n] = fk_vec3_make(scaling.x, scaling.y, scaling.z);
    }
    if (r->animation)
        for (c = 0; c < r->animation->mNumChannels; ++c) {
            n = rig__find_node(r, r->animation->mChannels[c]->mNodeName.data);
            if (n >= 0) r->node_channel[n] = r->animation->mChannels[c];
        }
    for (n = 0; n < r->node_count; ++n) node_joint[n] = -1;
    for (j = 0; j < r->joint_count; ++j) {
        const struct aiBone *bone = mesh->mBones[j];
        r->joint_names[j] = bone->mName.data;
        r->joint_node[j] = rig__find_node(r, bone->mName.data);
        if (r->joint_node[j] < 0) {
            free(node_joint);
            return rig__fail(error, error_size, "bone %s has no node", bone->mName.data);
        }
        node_joint[r->joint_node[j]] = j;
        rig__mat34_of(&bone->mOffsetMatrix, r->inverse_bind + 12 * j);
    }
    for (j = 0; j < r->joint_count; ++j) { /* the nearest ancestor that is a joint */
        n = r->node_parent[r->joint_node[j]];
        while (n >= 0 && node_joint[n] < 0) n = r->node_parent[n];
        r->parents[j] = n < 0 ? -1 : node_joint[n];
    }
    free(node_joint);
    return 1;
}

/* Vertices through P, weights gathered per vertex, faces fanned into triangles. */
static int rig__mesh(rig *r, char *error, size_t error_size)
{
    const struct aiMesh *mesh = r->mesh;
    const float *p = r->pretransform;
    int *counts, v, j, t;
    unsigned f, w;
    float normal_matrix[9], det;
    r->vertex_count = (int)mesh->mNumVertices;
    counts = (int *)calloc((size_t)r->vertex_count + 1, sizeof *counts);
    r->positions = (float *)malloc((size_t)r->vertex_count * 3 * sizeof(float) + 1);
    if (!counts || !r->positions) { free(counts); return rig__fail(error, error_size, "out of memory"); }
    for (j = 0; j < r->joint_count; ++j)
        for (w = 0; w < mesh->mBones[j]->mNumWeights; ++w) {
            unsigned id = mesh->mBones[j]->mWeights[w].mVertexId;
            if (id >= mesh->mNumVertices) { free(counts); return rig__fail(error, error_size, "a weight names vertex %u of %u", id, mesh->mNumVertices); }
            counts[id]++;
        }
    r->influences = 1;
    for (v = 0; v < r->vertex_count; ++v) r->influences = counts[v] > r->influences ? counts[v] : r->influences;
    r->joints = (uint16_t *)calloc((size_t)r->vertex_count * (size_t)r->influences + 1, sizeof *r->joints);
    r->weights = (float *)calloc((size_t)r->vertex_count * (size_t)r->influences + 1, sizeof *r->weights);
    if (!r->joints || !r->weights) { free(counts); return rig__fail(error, error_size, "out of memory"); }
    memset(counts, 0, (size_t)r->vertex_count * sizeof *counts);
    for (j = 0; j < r->joint_count; ++j)
        for (w = 0; w < mesh->mBones[j]->mNumWeights; ++w) {
            const struct aiVertexWeight *weight = &mesh->mBones[j]->mWeights[w];
            size_t slot = (size_t)weight->mVertexId * (size_t)r->influences + (size_t)counts[weight->mVertexId]++;
            r->joints[slot] = (uint16_t)j;
            r->weights[slot] = weight->mWeight;
        }
    { /* files' weights are whatever their exporter wrote: repair them once, keeping every influence */
        fk_weights_desc hygiene;
        fk_weights_report report;
        memset(&hygiene, 0, sizeof hygiene);
        hygiene.vertex_count = r->vertex_count;
        hygiene.influences = r->influences;
        hygiene.joints = r->joints;
        hygiene.weights = r->weights;
        hygiene.joint_count = r->joint_count;
        if (fk_weights_repair(&hygiene, &report) != FK_OK) { free(counts); return rig__fail(error, error_size, "weights cannot be repaired"); }
        r->renormalized_vertices = report.not_normalized;
        r->unweighted_vertices = report.zero_sum;
        r->repaired_vertices = report.vertices_changed;
    }
    for (v = 0; v < r->vertex_count; ++v) {
        const struct aiVector3D *q = &mesh->mVertices[v];
        r->positions[3 * v + 0] = p[0] * q->x + p[1] * q->y + p[2] * q->z + p[3];
        r->positions[3 * v + 1] = p[4] * q->x + p[5] * q->y + p[6] * q->z + p[7];
        r->positions[3 * v + 2] = p[8] * q->x + p[9] * q->y + p[10] * q->z + p[11];
    }
    free(counts);
    if (mesh->mNormals) { /* normals go through the inverse transpose of P's linear part */
        normal_matrix[0] = p[5] * p[10] - p[6] * p[9]; normal_matrix[1] = p[6] * p[8] - p[4] * p[10]; normal_matrix[2] = p[4] * p[9] - p[5] * p[8];
        normal_matrix[3] = p[2] * p[9] - p[1] * p[10]; normal_matrix[4] = p[0] * p[10] - p[2] * p[8]; normal_matrix[5] = p[1] * p[8] - p[0] * p[9];
        normal_matrix[6] = p[1] * p[6] - p[2] * p[5]; normal_matrix[7] = p[2] * p[4] - p[0] * p[6]; normal_matrix[8] = p[0] * p[5] - p[1] * p[4];
        det = p[0] * normal_matrix[0] + p[1] * normal_matrix[1] + p[2] * normal_matrix[2];
        r->normals = (float *)malloc((size_t)r->vertex_count * 3 * sizeof(float) + 1);
        if (!r->normals) return rig__fail(error, error_size, "out of memory");
        for (v = 0; v < r->vertex_count; ++v) {
            const struct aiVector3D *q = &mesh->mNormals[v];
            fk_vec3 n = fk_vec3_make(normal_matrix[0] * q->x + normal_matrix[1] * q->y + normal_matrix[2] * q->z,
                                     normal_matrix[3] * q->x + normal_matrix[4] * q->y + normal_matrix[5] * q->z,
                                     normal_matrix[6] * q->x + normal_matrix[7] * q->y + normal_matrix[8] * q->z);
            n = fk_vec3_normalize(det < 0.0f ? fk_vec3_scale(n, -1.0f) : n);
            r->normals[3 * v + 0] = n.x; r->normals[3 * v + 1] = n.y; r->normals[3 * v + 2] = n.z;
        }
    }
    for (f = 0; f < mesh->mNumFaces; ++f)
        if (mesh->mFaces[f].mNumIndices >= 3) r->triangle_count += (int)mesh->mFaces[f].mNumIndices - 2;
    r->triangles = (int *)malloc((size_t)r->triangle_count * 3 * sizeof(int) + 1);
    if (!r->triangles) return rig__fail(error, error_size, "out of memory");
    for (f = 0, t = 0; f < mesh->mNumFaces; ++f) {
        const struct aiFace *face = &mesh->mFaces[f];
        for (w = 2; w < face->mNumIndices; ++w, ++t) {
            r->triangles[3 * t + 0] = (int)face->mIndices[0];
            r->triangles[3 * t + 1] = (int)face->mIndices[w - 1];
            r->triangles[3 * t + 2] = (int)face->mIndices[w];
        }
    }
    return 1;
}

int rig_load(const char *path, rig *out, char *error, size_t error_size)
{
    unsigned m;
    fk_result result;
    memset(out, 0, sizeof *out);
    /* No post-processing: the vertices stay in the file's order and every weight is kept. */
    out->scene = aiImportFile(path, 0);
    if (!out->scene || !out->scene->mRootNode)
        return rig__fail(error, error_size, "%s: assimp cannot read it: %s", path, aiGetErrorString());
    for (m = 0; m < out->scene->mNumMeshes && !out->mesh; ++m)
        if (out->scene->mMeshes[m]->mNumBones > 0) out->mesh = out->scene->mMeshes[m];
    if (!out->mesh) { rig_free(out); return rig__fail(error, error_size, "%s has no mesh with bones", path); }
    if (out->mesh->mNumBones > 65535) { rig_free(out); return rig__fail(error, error_size, "%s: more than 65535 bones", path); }
    out->mesh_name = out->mesh->mName.data;
    out->animation_name = "";
    if (out->scene->mNumAnimations > 0) {
        out->animation = out->scene->mAnimations[0];
        out->animation_name = out->animation->mName.data;
        out->duration_seconds = out->animation->mDuration /
                                (out->animation->mTicksPerSecond > 0.0 ? out->animation->mTicksPerSecond : 25.0);
    }
    if (!rig__skeleton(out, error, error_size)) { rig_free(out); return 0; }
    /* The bind pose is read with the nodes as the file leaves them: P does not
       depend on the pose, and this one needs no animation. */
    rig__node_world(out, 0.0, 0);
    rig__gather_joint_world(out);
    result = fk_bind_from_matrices(out->joint_count, out->inverse_bind, out->joint_world, out->rest_joints,
                                   out->pretransform);
    if (result != FK_OK) {
        rig_free(out);
        return rig__fail(error, error_size, "%s: the bind pose cannot be made rigid: %s", path, fk_result_description(result));
    }
    if (!rig__node_binds(out)) {
        rig_free(out);
        return rig__fail(error, error_size, "%s: the pre-transform is singular", path);
    }
    if (!rig__mesh(out, error, error_size)) { rig_free(out); return 0; }
    return 1;
}

void rig_free(rig *r)
{
    if (r->scene) aiReleaseImport(r->scene);
    free((void *)r->nodes); free(r->node_parent); free((void *)r->node_channel); free(r->node_world);
    free(r->node_rigid_bind);
    free(r->node_storage); free(r->node_rest_translations); free(r->node_translations); free(r->node_rest_rotations);
    free((void *)r->joint_names); free(r->joint_node); free(r->parents); free(r->inverse_bind);
    free(r->joint_world); free(r->rest_joints);
    free(r->positions); free(r->normals); free(r->joints); free(r->weights); free(r->triangles);
    memset(r, 0, sizeof *r);
}
