/* fk_lbs.h - v0.1.0 - forward kinematics and blend skinning (LBS, DQS) in one C header
   MIT or public domain (Unlicense): see the end of the file.

   Do this:
       #define FK_LBS_IMPLEMENTATION
   before you include this file in *one* C or C++ file to create the implementation.
   Every other file includes it without the define.

   ABOUT
     fk_lbs.h poses skeletons and skins meshes:
       - quaternion and rigid-transform math (small structs passed by value);
       - forward kinematics (FK) over a parent array, in any joint order;
       - linear blend skinning (LBS) and dual quaternion skinning (DQS) of positions
         and normals, with byte strides for interleaved vertex buffers;
       - optional tangents x y z w (glTF): xyz moves like a normal, w is kept;
       - engine rigs (inverse bind and world matrices) turned into rest joints and
         relative rotations;
       - weight repair, pose blending and track sampling, subtree updates,
         Jacobians of FK and LBS, and a damped least squares IK step.
     No heap allocation, no global state, no I/O: every function is reentrant and
     may be called from any number of threads at once on separate outputs.

   USAGE
       fk_rigid bones[2];
       fk_forward(2, parents, rest_joints, rotations, NULL, bones);
       fk_skin_desc skin = {0};   ...fill in the vertex arrays...
       skin.transforms = bones; skin.transform_count = 2;
       fk_skin_lbs(&skin);
     README.md has the complete program; docs/ has the derivation with pictures.

   CONVENTIONS (decided once, never changed)
     - Quaternions are stored x, y, z, w (w last) and multiply by the Hamilton rule.
       fk_quat_mul(a, b) applies b first: rotate(a*b, v) == rotate(a, rotate(b, v)).
     - A rigid transform {q, t} maps a point v to q v q* + t.
     - 3x3 and 3x4 matrices are row-major and act on column vectors: the 3x4 matrix
       [R | t] is what a GPU skinning shader uploads.
     - Angles are in radians; strides are in bytes (0 means tightly packed).
     - Forward kinematics: joint i rotates by q_i about its rest position x_i (its
       pivot). By default q_i is expressed in the parent's frame, Q_i = Q_p q_i
       (BVH, glTF, game engines); fk_forward_rest_frame() takes q_i in the rest
       frame, Q_i = q_i Q_p. Both place joint i where its parent sends it:
           t_i = t_p + Q_p (x_i + d_i) - Q_i x_i        roots: t_r = x_r + d_r - Q_r x_r
     - Input quaternions need not be unit length: they are normalized on the way in.

   OPTIONS (#define before including)
     FK_LBS_STATIC            make every function static (private to one file)
     FK_LBS_DEF               linkage of the public functions (default: extern)
     FK_LBS_ASSERT(x)         assertion for programmer errors (default: assert)
     FK_LBS_PALETTE_CAPACITY  bones whose matrices are precomputed on the stack per
                              skinning call (default 256: 16 KB, twice that for
                              AVX-512 LBS on packed arrays); larger rigs still work,
                              converting each bone as it is used
     FK_LBS_RIGID_TOLERANCE   relative tolerance (default 1e-4) within which engine
                              matrices count as rigid in fk_bind_from_matrices() and
                              fk_pose_from_matrices(): above float rounding, below
                              any scale an artist meant
     FK_LBS_STREAM_MIN_BYTES  skinning calls that read and write at least this
                              many bytes write their output positions with
                              streaming stores, past the caches (default 128 MiB:
                              about 2.8 million vertices with four influences, 1.9
                              with normals too; so far the AVX-512 LBS loop on
                              packed arrays). Below it the data can stay in a
                              large last-level cache from call to call;
                              docs/performance.md has the measurements
     FK_LBS_NO_SIMD           skin and pose with the plain C loops only (no
                              intrinsics)
     FK_LBS_NO_AVX512         on x86-64, use at most the AVX2 loops even where
                              AVX-512 is available (to test or compare them)
     FK_LBS_NO_AVX2           on x86-64, use the SSE2 loops (skinning and forward
                              kinematics) even where AVX2 and FMA (or AVX-512)
                              are available

   ERRORS
     Functions that can meet bad data return an fk_result; fk_result_description()
     names it. Bad input never leads to a read or write out of bounds. Skeletons and
     transforms are checked in full (parent arrays; zero, infinite or NaN
     quaternions; non-finite positions; a pose that overflows float). Per-vertex
     data (positions, normals, weights) is not checked, which would cost a pass over
     the mesh: NaN there makes that vertex's outputs NaN. The math helpers check
     nothing: NaN in, NaN out. docs/conventions.md has the whole table.
*/

#ifndef FK_LBS_H
#define FK_LBS_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint16_t */

/** @file fk_lbs.h
    @brief Forward kinematics over a parent array, linear blend skinning and dual
    quaternion skinning, in one header. */

/** @brief Major version number. */
#define FK_LBS_VERSION_MAJOR 0
/** @brief Minor version number. */
#define FK_LBS_VERSION_MINOR 1
/** @brief Patch version number. */
#define FK_LBS_VERSION_PATCH 0
/** @brief The version as a string, "major.minor.patch". */
#define FK_LBS_VERSION "0.1.0"

#ifndef FK_LBS_DEF
#ifdef FK_LBS_STATIC
#if defined(__GNUC__) || defined(__clang__)
#define FK_LBS_DEF static __attribute__((unused))
#else
#define FK_LBS_DEF static
#endif
#else
/** @brief Linkage of every public function: `extern` by default, `static` under
    `FK_LBS_STATIC`, or whatever you define it to (a DLL export, say). */
#define FK_LBS_DEF extern
#endif
#endif

#ifndef FK_LBS_PALETTE_CAPACITY
/** @brief Bones whose matrices a skinning call precomputes on its stack (an
    option: define it before including). Rigs with more bones still skin, each
    bone beyond converted as it is used. Defined with the declarations, so that
    any file can read it (define it alike in each). */
#define FK_LBS_PALETTE_CAPACITY 256
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================
   Types
   ============================================================================ */

/** @brief A 3D vector or point. */
typedef struct fk_vec3 {
    float x; /**< x coordinate */
    float y; /**< y coordinate */
    float z; /**< z coordinate */
} fk_vec3;

/** @brief A quaternion x i + y j + z k + w, stored with w last. Unit quaternions
    are rotations; q and -q are the same rotation. */
typedef struct fk_quat {
    float x; /**< i component */
    float y; /**< j component */
    float z; /**< k component */
    float w; /**< real (scalar) component */
} fk_quat;

/** @brief A rigid transform: rotation @c q, then translation @c t, so a point v goes
    to q v q* + t. */
typedef struct fk_rigid {
    fk_quat q; /**< rotation (unit quaternion) */
    fk_vec3 t; /**< translation, applied after the rotation */
} fk_rigid;

/** @brief A unit dual quaternion real + eps dual, the form in which DQS blends rigid
    transforms. For a rigid {q, t}: real = q, dual = (t, 0) q / 2. */
typedef struct fk_dual_quat {
    fk_quat real; /**< rotation part */
    fk_quat dual; /**< translation part, (t, 0) * real / 2 */
} fk_dual_quat;

/** @brief Result codes. Every function that can meet bad data returns one. */
typedef enum fk_result {
    FK_OK = 0,                   /**< success */
    FK_ERROR_NULL_ARGUMENT,      /**< a required pointer is NULL */
    FK_ERROR_INVALID_COUNT,      /**< a count is negative, influences < 1, or counts disagree */
    FK_ERROR_PARENT_OUT_OF_RANGE, /**< a parent index is >= the joint count */
    FK_ERROR_SELF_PARENT,        /**< a joint is its own parent */
    FK_ERROR_CYCLE,              /**< the parent array has a cycle (no path to a root) */
    FK_ERROR_INVALID_ROTATION,   /**< a quaternion is zero, infinite, NaN, or its squared length is outside float's normal range */
    FK_ERROR_NOT_FINITE,         /**< a position or translation is infinite or NaN, or the pose overflows float */
    FK_ERROR_JOINT_OUT_OF_RANGE, /**< a joint index is not below the number of joints (a vertex's, below transform_count) */
    FK_ERROR_INVALID_STRIDE,     /**< a stride is smaller than its element, misaligned, or overflows */
    FK_ERROR_NOT_RIGID,          /**< engine matrices are singular, or carry scale that varies per joint or over time */
    FK_ERROR_INVALID_WEIGHT,     /**< a weight is infinite or NaN, or blend weights are negative or sum to zero */
    FK_ERROR_KEYS_NOT_ASCENDING  /**< key times are not finite and strictly ascending */
} fk_result;

/** @brief Euler angle orders. @c FK_EULER_ZXY means R = Rz(angles.z) Rx(angles.x)
    Ry(angles.y): the axes multiply left to right in the order named, so the last
    one acts on a vector first. This is the order in which a BVH file lists its
    rotation channels ("Zrotation Xrotation Yrotation" is FK_EULER_ZXY). */
typedef enum fk_euler_order {
    FK_EULER_XYZ, /**< R = Rx Ry Rz */
    FK_EULER_XZY, /**< R = Rx Rz Ry */
    FK_EULER_YXZ, /**< R = Ry Rx Rz */
    FK_EULER_YZX, /**< R = Ry Rz Rx */
    FK_EULER_ZXY, /**< R = Rz Rx Ry */
    FK_EULER_ZYX  /**< R = Rz Ry Rx */
} fk_euler_order;

/** @brief What to skin and where to write it; see fk_skin_lbs().

    Zero-initialize it and fill in what you use. Vertex i has @c influences joint
    indices and as many weights; it is skinned as
    v' = sum_k weights[k] (Q_joints[k] v + t_joints[k]).
    Strides are the bytes from one vertex's record to the next; 0 means tightly packed.
    If @c joints is NULL the weights are dense: vertex i has one weight per transform
    (the libigl layout, row-major), and @c influences must equal @c transform_count. */
typedef struct fk_skin_desc {
    int vertex_count;         /**< number of vertices to skin (>= 0) */
    int influences;           /**< joints per vertex, k >= 1 */
    const float *positions;   /**< rest positions, x y z per vertex (required) */
    size_t position_stride;   /**< bytes between positions; 0 = 12 */
    const float *normals;     /**< rest normals, x y z per vertex (optional, NULL) */
    size_t normal_stride;     /**< bytes between normals; 0 = 12 */
    const uint16_t *joints;   /**< k joint indices per vertex; NULL = dense weights */
    size_t joint_stride;      /**< bytes between vertices' index lists; 0 = 2k */
    const float *weights;     /**< k weights per vertex (required) */
    size_t weight_stride;     /**< bytes between vertices' weight lists; 0 = 4k */
    const fk_rigid *transforms; /**< absolute joint transforms, from fk_forward() */
    int transform_count;      /**< number of transforms; every joint index must be below it */
    float *out_positions;     /**< skinned positions (required; may equal @c positions) */
    size_t out_position_stride; /**< bytes between output positions; 0 = 12 */
    float *out_normals;       /**< skinned normals (required iff @c normals is given) */
    size_t out_normal_stride; /**< bytes between output normals; 0 = 12 */
    const float *tangents;    /**< rest tangents, x y z w per vertex as in glTF, w = +-1 the
                                   handedness (optional, NULL) */
    size_t tangent_stride;    /**< bytes between tangents; 0 = 16 */
    float *out_tangents;      /**< skinned tangents: x y z moved like a normal and renormalized,
                                   w copied bit for bit (required iff @c tangents is given) */
    size_t out_tangent_stride; /**< bytes between output tangents; 0 = 16 */
} fk_skin_desc;

/* ============================================================================
   Results
   ============================================================================ */

/** @brief A short English description of a result code, for messages.
    @param result any value; unknown values get "unknown fk_result".
    @return a static string, never NULL. */
FK_LBS_DEF const char *fk_result_description(fk_result result);

/* ============================================================================
   Vectors
   ============================================================================ */

/** @brief Makes a vector. @param x,y,z coordinates. @return (x, y, z). */
FK_LBS_DEF fk_vec3 fk_vec3_make(float x, float y, float z);
/** @brief Sum. @param a,b vectors. @return a + b. */
FK_LBS_DEF fk_vec3 fk_vec3_add(fk_vec3 a, fk_vec3 b);
/** @brief Difference. @param a,b vectors. @return a - b. */
FK_LBS_DEF fk_vec3 fk_vec3_sub(fk_vec3 a, fk_vec3 b);
/** @brief Scaling. @param v vector. @param s factor. @return s v. */
FK_LBS_DEF fk_vec3 fk_vec3_scale(fk_vec3 v, float s);
/** @brief Dot product. @param a,b vectors. @return a . b. */
FK_LBS_DEF float fk_vec3_dot(fk_vec3 a, fk_vec3 b);
/** @brief Cross product. @param a,b vectors. @return a x b. */
FK_LBS_DEF fk_vec3 fk_vec3_cross(fk_vec3 a, fk_vec3 b);
/** @brief Euclidean length. @param v vector. @return |v|. */
FK_LBS_DEF float fk_vec3_length(fk_vec3 v);
/** @brief Unit vector in the direction of @p v. @param v vector.
    @return v / |v|, or (0, 0, 0) when |v| is zero (NaN stays NaN). */
FK_LBS_DEF fk_vec3 fk_vec3_normalize(fk_vec3 v);

/* ============================================================================
   Quaternions
   ============================================================================ */

/** @brief Makes a quaternion. @param x,y,z,w components (w is the real part).
    @return the quaternion x i + y j + z k + w. */
FK_LBS_DEF fk_quat fk_quat_make(float x, float y, float z, float w);
/** @brief The identity rotation. @return (0, 0, 0, 1). */
FK_LBS_DEF fk_quat fk_quat_identity(void);
/** @brief Hamilton product; the result applies @p b first, then @p a.
    @param a,b quaternions. @return a b. */
FK_LBS_DEF fk_quat fk_quat_mul(fk_quat a, fk_quat b);
/** @brief Conjugate, the inverse of a unit quaternion. @param q quaternion.
    @return (-x, -y, -z, w). */
FK_LBS_DEF fk_quat fk_quat_conjugate(fk_quat q);
/** @brief Inverse of any nonzero quaternion. @param q quaternion.
    @return q* / |q|^2, or the identity when q is zero. */
FK_LBS_DEF fk_quat fk_quat_inverse(fk_quat q);
/** @brief Four-dimensional dot product. @param a,b quaternions. @return a . b. */
FK_LBS_DEF float fk_quat_dot(fk_quat a, fk_quat b);
/** @brief Length. @param q quaternion. @return |q|. */
FK_LBS_DEF float fk_quat_length(fk_quat q);
/** @brief Unit quaternion in the direction of @p q. @param q quaternion.
    @return q / |q|, or the identity when q is zero (NaN stays NaN). */
FK_LBS_DEF fk_quat fk_quat_normalize(fk_quat q);
/** @brief Rotates a vector by a unit quaternion. @param q unit quaternion.
    @param v vector. @return q v q*. */
FK_LBS_DEF fk_vec3 fk_quat_rotate(fk_quat q, fk_vec3 v);
/** @brief Rotation by @p angle radians about @p axis (right-hand rule).
    @param axis any nonzero vector (it is normalized). @param angle radians.
    @return the unit quaternion, or the identity when the axis is zero. */
FK_LBS_DEF fk_quat fk_quat_from_axis_angle(fk_vec3 axis, float angle);
/** @brief Axis and angle of a rotation, the angle in [0, pi].
    @param q unit quaternion. @param axis receives the unit axis ((1, 0, 0) for
    the identity). @param angle receives the angle in radians. */
FK_LBS_DEF void fk_quat_to_axis_angle(fk_quat q, fk_vec3 *axis, float *angle);
/** @brief Rotation matrix of a unit quaternion.
    @param q unit quaternion. @param out receives the 3x3 matrix, row-major. */
FK_LBS_DEF void fk_quat_to_mat3(fk_quat q, float out[9]);
/** @brief Quaternion of a rotation matrix; robust for every rotation, 180 degrees
    included (Shepperd's method: divide by the largest of w, x, y, z).
    @param m 3x3 rotation matrix, row-major. @return a unit quaternion. */
FK_LBS_DEF fk_quat fk_quat_from_mat3(const float m[9]);
/** @brief Spherical linear interpolation along the shorter arc: constant angular
    speed. @param a,b unit quaternions. @param t 0 gives a, 1 gives b (or -b).
    @return a unit quaternion. */
FK_LBS_DEF fk_quat fk_quat_slerp(fk_quat a, fk_quat b, float t);
/** @brief Normalized linear interpolation along the shorter arc: cheaper than
    slerp, same endpoints and path, non-constant speed.
    @param a,b unit quaternions. @param t in [0, 1]. @return a unit quaternion. */
FK_LBS_DEF fk_quat fk_quat_nlerp(fk_quat a, fk_quat b, float t);
/** @brief Rotation from Euler angles. @param angles angle about x, y and z in
    radians (each in its own component, whatever the order). @param order the
    order the axes multiply in (see fk_euler_order). @return a unit quaternion. */
FK_LBS_DEF fk_quat fk_quat_from_euler(fk_vec3 angles, fk_euler_order order);
/** @brief Euler angles of a rotation, the inverse of fk_quat_from_euler(). The
    middle angle is in [-pi/2, pi/2], the others in [-pi, pi]; at gimbal lock the
    last angle is 0. @param q unit quaternion. @param order axis order.
    @return the angles about x, y and z. */
FK_LBS_DEF fk_vec3 fk_quat_to_euler(fk_quat q, fk_euler_order order);

/* ---- Logarithm, exponential and rotation vectors ----------------------------
   A unit quaternion is exp of a pure quaternion: q = exp(v) = (sin|v| v/|v|, cos|v|),
   a rotation by 2|v| about v. The rotation vector r = 2 v (axis times angle) is the
   form optimizers and Jacobians use: small, unconstrained, additive near identity. */

/** @brief Exponential of the pure quaternion (v, 0): (sin|v| v/|v|, cos|v|),
    accurate for tiny |v|. @param v vector part (half the rotation vector).
    @return a unit quaternion, the rotation by 2|v| about v. */
FK_LBS_DEF fk_quat fk_quat_exp(fk_vec3 v);
/** @brief Logarithm of a unit quaternion: the v with exp(v) = q, |v| in [0, pi].
    q and -q have different logarithms (|v| and pi - |v|); no hemisphere is chosen,
    so fk_quat_exp(fk_quat_log(q)) gives back q itself.
    @param q quaternion (normalized first; the zero quaternion gives (0, 0, 0)).
    @return the vector part of log q (its real part, ln|q|, is 0 for unit q); for
    q = -1 it is (pi, 0, 0). */
FK_LBS_DEF fk_vec3 fk_quat_log(fk_quat q);
/** @brief Rotation by |r| radians about r: the inverse of
    fk_quat_to_rotation_vector(). @param r rotation vector (axis times angle).
    @return the unit quaternion exp(r / 2). */
FK_LBS_DEF fk_quat fk_quat_from_rotation_vector(fk_vec3 r);
/** @brief Rotation vector (axis times angle) of a rotation, angle in [0, pi]:
    q and -q give the same vector. @param q quaternion (normalized first).
    @return 2 log(q) taken in the w >= 0 hemisphere; (0, 0, 0) for the identity. */
FK_LBS_DEF fk_vec3 fk_quat_to_rotation_vector(fk_quat q);

/* ============================================================================
   Rigid transforms
   ============================================================================ */

/** @brief The identity transform. @return {identity, (0, 0, 0)}. */
FK_LBS_DEF fk_rigid fk_rigid_identity(void);
/** @brief Makes a rigid transform. @param q rotation. @param t translation.
    @return {q, t}. */
FK_LBS_DEF fk_rigid fk_rigid_make(fk_quat q, fk_vec3 t);
/** @brief Composition; the result applies @p b first, then @p a.
    @param a,b rigid transforms. @return a o b. */
FK_LBS_DEF fk_rigid fk_rigid_mul(fk_rigid a, fk_rigid b);
/** @brief Inverse transform. @param r rigid transform with unit rotation.
    @return r^-1 = {q*, -(q* t q)}. */
FK_LBS_DEF fk_rigid fk_rigid_inverse(fk_rigid r);
/** @brief Applies a transform to a point. @param r rigid transform.
    @param p point. @return q p q* + t. */
FK_LBS_DEF fk_vec3 fk_rigid_apply(fk_rigid r, fk_vec3 p);
/** @brief 3x4 matrix [R | t], row-major: what a GPU skinning shader uploads.
    @param r rigid transform with unit rotation. @param out receives 12 floats. */
FK_LBS_DEF void fk_rigid_to_mat34(fk_rigid r, float out[12]);
/** @brief Rigid transform of a 3x4 matrix [R | t] whose R is a rotation.
    @param m 12 floats, row-major. @return the transform. */
FK_LBS_DEF fk_rigid fk_rigid_from_mat34(const float m[12]);
/** @brief Unit dual quaternion of a rigid transform.
    @param r rigid transform with unit rotation. @return {q, (t, 0) q / 2}. */
FK_LBS_DEF fk_dual_quat fk_rigid_to_dual_quat(fk_rigid r);
/** @brief Rigid transform of a dual quaternion; the real part is normalized and
    the dual part is read as t = 2 dual real* (its component along real, which a
    blend can introduce, is ignored). @param d dual quaternion with nonzero real
    part. @return the transform. */
FK_LBS_DEF fk_rigid fk_dual_quat_to_rigid(fk_dual_quat d);

/* ============================================================================
   Forward kinematics
   ============================================================================ */

/** @brief Checks a parent array without computing anything.
    @param joint_count number of joints (>= 0).
    @param parents parents[i] is the parent of joint i, negative for a root;
    parents may come before or after their children.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_PARENT_OUT_OF_RANGE, FK_ERROR_SELF_PARENT or FK_ERROR_CYCLE.
    @remark O(joint_count) time when parents come before their children, else
    O(joint_count x depth); no memory beyond a few locals. */
FK_LBS_DEF fk_result fk_validate_skeleton(int joint_count, const int *parents);

/** @brief Forward kinematics with rotations in the parent's frame.

    Joint i rotates by rotations[i] about its rest position rest_joints[i] and
    moves by translations[i] in its parent's frame, carrying all its descendants:
        Q_i = Q_p q_i,   t_i = t_p + Q_p (x_i + d_i) - Q_i x_i
    (roots: Q_r = q_r, t_r = x_r + d_r - Q_r x_r). A rest-pose point v on bone i
    then goes to Q_i v + t_i, and joint i's pivot lands where its parent's
    transform sends it. Each product Q_p q_i is scaled by one Newton step for the
    parent's length, (3 - |Q_p|^2) / 2, so that rounding does not build up down
    long chains: every Q_i is unit within a few ulps.

    @param joint_count number of joints (>= 0).
    @param parents parent of each joint, negative for a root; any order.
    @param rest_joints rest (bind) position x_i of each joint, the bone's pivot.
    @param rotations relative rotation q_i of each joint (normalized on the way in).
    @param translations relative translation d_i of each joint, or NULL for none.
    @param out receives joint_count absolute transforms (Q_i, t_i).
    @return FK_OK or the first error found; on error @p out holds identities.
    @remark Parents listed before children take a single pass; any other order is
    resolved in O(joint_count) time using @p out itself as scratch, so nothing is
    allocated. @p out must not overlap the inputs. */
FK_LBS_DEF fk_result fk_forward(int joint_count, const int *parents,
                                const fk_vec3 *rest_joints, const fk_quat *rotations,
                                const fk_vec3 *translations, fk_rigid *out);

/** @brief Forward kinematics with rotations in the rest (world) frame:
    Q_i = q_i Q_p, and the same translation rule as fk_forward(). Parameters,
    result and remarks are those of fk_forward().
    @param joint_count number of joints. @param parents parent array.
    @param rest_joints rest joint positions. @param rotations rest-frame rotations.
    @param translations relative translations or NULL. @param out absolute transforms.
    @return FK_OK or the first error found. */
FK_LBS_DEF fk_result fk_forward_rest_frame(int joint_count, const int *parents,
                                           const fk_vec3 *rest_joints, const fk_quat *rotations,
                                           const fk_vec3 *translations, fk_rigid *out);

/** @brief Posed joint positions: out[i] = Q_i x_i + t_i.
    @param joint_count number of joints (>= 0). @param rest_joints rest positions.
    @param transforms absolute transforms from fk_forward().
    @param out receives joint_count positions.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT or FK_ERROR_INVALID_COUNT. */
FK_LBS_DEF fk_result fk_posed_joints(int joint_count, const fk_vec3 *rest_joints,
                                     const fk_rigid *transforms, fk_vec3 *out);

/* ============================================================================
   Engine data: inverse bind matrices and world matrices to joints and rotations
   ============================================================================ */

/* Engines, glTF and FBX describe a pose by each joint's world matrix W_i (its local
   transforms multiplied down the node tree, non-joint ancestors included) and the
   bind pose by inverse bind matrices IB_i; a vertex v moves by the skinning matrix
   S_i = W_i IB_i. The functions below turn that into this library's terms: a
   constant pre-transform P of the vertices (the linear part every S_i shares, such
   as a mesh scale baked into the inverse bind matrices), rest joint positions x_i,
   and per pose the relative rotations q_i and translations d_i, such that
   fk_forward() gives transforms C_i with C_i P = S_i. docs/real_data.md has the
   derivation. Matrices here are 3x4 row-major, like fk_rigid_to_mat34(); the
   fk_mat34_from_mat44_...() functions convert the 4x4 layouts files use. */

/** @brief 4x4 column-major matrix of a rigid transform (glTF, OpenGL, Vulkan):
    element (row r, column c) is out[4 c + r]; the last row is 0 0 0 1.
    @param r rigid transform with unit rotation. @param out receives 16 floats. */
FK_LBS_DEF void fk_rigid_to_mat44_column_major(fk_rigid r, float out[16]);
/** @brief 4x4 row-major matrix of a rigid transform (assimp's aiMatrix4x4, a C
    array m[row][column]): element (r, c) is out[4 r + c].
    @param r rigid transform with unit rotation. @param out receives 16 floats. */
FK_LBS_DEF void fk_rigid_to_mat44_row_major(fk_rigid r, float out[16]);
/** @brief Rigid transform of a 4x4 column-major matrix whose linear part is a
    rotation. @param m 16 floats. @return the transform. */
FK_LBS_DEF fk_rigid fk_rigid_from_mat44_column_major(const float m[16]);
/** @brief Rigid transform of a 4x4 row-major matrix whose linear part is a rotation.
    @param m 16 floats. @return the transform. */
FK_LBS_DEF fk_rigid fk_rigid_from_mat44_row_major(const float m[16]);
/** @brief The top three rows of a 4x4 column-major affine matrix, as a 3x4
    row-major matrix. @param m 16 floats. @param out receives 12 floats. */
FK_LBS_DEF void fk_mat34_from_mat44_column_major(const float m[16], float out[12]);
/** @brief The top three rows of a 4x4 row-major affine matrix, as a 3x4 row-major
    matrix. @param m 16 floats. @param out receives 12 floats. */
FK_LBS_DEF void fk_mat34_from_mat44_row_major(const float m[16], float out[12]);
/** @brief Product of affine 3x4 matrices; the result applies @p b first.
    @param a,b 12 floats each. @param out receives a b (may alias either input). */
FK_LBS_DEF void fk_mat34_mul(const float a[12], const float b[12], float out[12]);
/** @brief Inverse of an affine 3x4 matrix, [A | b]^-1 = [A^-1 | -A^-1 b]: turns
    bind-pose world matrices into inverse bind matrices, or back.
    @param m 12 floats. @param out receives the inverse (may alias @p m).
    @return FK_OK, FK_ERROR_NOT_FINITE, or FK_ERROR_NOT_RIGID when A is singular
    or so nearly singular that the inverse overflows float (@p out is then left
    alone). */
FK_LBS_DEF fk_result fk_mat34_inverse(const float m[12], float out[12]);
/** @brief The affine matrix T R S of a translation, rotation and scale, the way
    glTF, FBX and assimp compose a node's local transform.
    @param translation translation. @param rotation rotation (normalized on the way
    in). @param scale scale along the local axes. @param out receives 12 floats. */
FK_LBS_DEF void fk_mat34_from_trs(fk_vec3 translation, fk_quat rotation, fk_vec3 scale, float out[12]);

/** @brief Rest joints and vertex pre-transform of an engine rig.

    Factors the linear part that every skinning matrix S_i = W_i IB_i shares: the
    polar decomposition S_i = (rotation) H gives the same symmetric H for every joint
    of a rig that skins rigidly, and P = [H | 0] is returned as the pre-transform
    (the identity for most rigs; a mirrored rig gets -H so that the rotations stay
    proper). The rest joint x_i = P IB_i^-1 (0, 0, 0) is the joint's origin in the
    pre-transformed vertex space: C_i x_i is then the joint's animated position.
    Skin the vertices P v (and normals by the inverse transpose of H).

    @param joint_count number of joints (>= 0).
    @param inverse_bind_matrices 12 floats per joint, 3x4 row-major.
    @param world_matrices the joints' world matrices in any one pose (the bind pose
    or a first frame), 12 floats per joint: P does not depend on the pose.
    @param out_rest_joints receives joint_count rest joint positions x_i.
    @param out_pretransform receives P, 12 floats, 3x4 row-major.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_NOT_FINITE (an input is not finite, or a result overflows float), or
    FK_ERROR_NOT_RIGID when the joints' linear parts differ by more than a rotation
    (scale that varies per joint) or are singular. */
FK_LBS_DEF fk_result fk_bind_from_matrices(int joint_count, const float *inverse_bind_matrices,
                                           const float *world_matrices, fk_vec3 *out_rest_joints,
                                           float out_pretransform[12]);

/** @brief Relative rotations and translations of one pose of an engine rig.

    With C_i = S_i P^-1 = W_i IB_i P^-1, the rigid motion of joint i, it solves the
    forward kinematics of fk_forward() for its inputs:
        q_i = Q_p^-1 Q_i,   d_i = C_p^-1 (C_i x_i) - x_i      (roots: C_p = identity)
    so fk_forward(joint_count, parents, rest_joints, out_rotations, out_translations)
    reproduces every C_i, and C_i P every skinning matrix. Each joint needs only its
    own and its parent's world matrix, so the joints may come in any order and
    non-joint nodes between them may move as they like.

    @param joint_count number of joints (>= 0).
    @param parents each joint's nearest ancestor among the joints, negative for none.
    @param inverse_bind_matrices,world_matrices 12 floats per joint, 3x4 row-major.
    @param pretransform,rest_joints from fk_bind_from_matrices().
    @param out_rotations receives q_i. @param out_translations receives d_i.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_PARENT_OUT_OF_RANGE, FK_ERROR_SELF_PARENT, FK_ERROR_NOT_FINITE (an
    input is not finite, or a translation overflows float), or FK_ERROR_NOT_RIGID
    when some C_i is not a rotation plus a translation (scale that varies over time
    or differs from the bind pose's). */
FK_LBS_DEF fk_result fk_pose_from_matrices(int joint_count, const int *parents,
                                           const float *inverse_bind_matrices, const float *world_matrices,
                                           const float pretransform[12], const fk_vec3 *rest_joints,
                                           fk_quat *out_rotations, fk_vec3 *out_translations);

/* ============================================================================
   Skinning
   ============================================================================ */

/** @brief Checks a skinning descriptor completely, every joint index included,
    without writing anything. fk_skin_lbs() and fk_skin_dqs() make the same checks
    as they go; call this first when a bad index must leave the output untouched.
    @param desc the descriptor. @return FK_OK or the first error found. */
FK_LBS_DEF fk_result fk_skin_validate(const fk_skin_desc *desc);

/** @brief Linear blend skinning: v' = sum_k w_k (Q_k v + t_k).

    Normals go through the blended linear part sum_k w_k Q_k and are renormalized
    (exact for rigidly moving parts, the usual approximation elsewhere). Tangents'
    x y z go the same way as normals; their w (handedness) is copied unchanged.
    Weights are used as given: weights that do not sum to one scale the result.
    The output may be the input buffer itself (same pointer and stride).
    @param desc what to skin; see fk_skin_desc.
    @return FK_OK or the first error found. Descriptor errors are found before
    anything is written; a joint index out of range is found when its vertex is
    reached, and the vertices before it have then been written.
    @remark Reentrant; to skin from several threads, give each thread a copy of the
    descriptor with its pointers advanced to a sub-range of the vertices.
    @remark A vertex's result depends on its own data and the bones alone: the
    same bits come out in any layout, in place or not, and from one call or from
    many calls over pieces of the vertices (on one CPU, from one build). */
FK_LBS_DEF fk_result fk_skin_lbs(const fk_skin_desc *desc);

/** @brief Dual quaternion skinning (Kavan et al. 2008): the influences' unit dual
    quaternions are blended with signs chosen so that every rotation lies in the
    hemisphere of the most heavily weighted influence (so q and -q give the same
    result, and listing the influences in another order or densely changes
    nothing), normalized, and applied. Normals are rotated by the blended rotation;
    so are tangents' x y z, which are then renormalized, and their w is copied
    unchanged.
    The weights' scale does not matter (tiny and huge weights are rescaled before
    normalizing). A vertex whose blend has a zero rotation part (all weights zero)
    keeps its rest position and normal; NaN in its weights or data makes its
    outputs NaN.
    @param desc what to skin; see fk_skin_desc.
    @return as fk_skin_lbs().
    @remark As for fk_skin_lbs(), a vertex's result depends on its own data and
    the bones alone: the same bits come out in any layout, in place or not, and
    from one call or from many calls over pieces of the vertices (on one CPU,
    from one build). That holds for vertices whose blend needs the careful path
    (a zero, subnormal or overflowing norm, NaN or infinite data) and for their
    neighbours too. */
FK_LBS_DEF fk_result fk_skin_dqs(const fk_skin_desc *desc);

/* ============================================================================
   Weights
   ============================================================================ */

/** @brief Per-vertex influences to inspect or repair in place; see
    fk_weights_repair(). The layout is fk_skin_desc's. Zero-initialize it and fill
    in what you use. */
typedef struct fk_weights_desc {
    int vertex_count;     /**< number of vertices (>= 0) */
    int influences;       /**< slots per vertex as stored, k >= 1 */
    uint16_t *joints;     /**< k joint indices per vertex (required) */
    size_t joint_stride;  /**< bytes between vertices' index lists; 0 = 2k */
    float *weights;       /**< k weights per vertex (required) */
    size_t weight_stride; /**< bytes between vertices' weight lists; 0 = 4k */
    int joint_count;      /**< number of joints: valid indices are below it (>= 1) */
    int max_influences;   /**< influences to keep per vertex, 1..k; 0 = k */
} fk_weights_desc;

/** @brief What fk_weights_inspect() found or fk_weights_repair() mended. Every
    field counts vertices; a vertex with several faults counts in each of them. */
typedef struct fk_weights_report {
    int vertices_changed;   /**< vertices rewritten (by inspect: that repair would rewrite) */
    int not_finite;         /**< had a NaN or infinite weight (dropped) */
    int negative;           /**< had a negative weight (dropped) */
    int joint_out_of_range; /**< named a joint >= joint_count (dropped, index set to 0) */
    int duplicate_joints;   /**< gave positive weight to one joint in two slots (merged) */
    int too_many;           /**< had more than max_influences joints (smallest dropped) */
    int misplaced;          /**< had a positive weight beyond slot max_influences (moved) */
    int zero_sum;           /**< had no positive weight left (fell back to one joint) */
    int not_normalized;     /**< weights did not sum to one (renormalized) */
} fk_weights_report;

/** @brief Reports what fk_weights_repair() would change, writing nothing.
    @param desc the influences. @param report receives the counts (required).
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT or
    FK_ERROR_INVALID_STRIDE. */
FK_LBS_DEF fk_result fk_weights_inspect(const fk_weights_desc *desc, fk_weights_report *report);

/** @brief Repairs per-vertex influences in place, so that skinning them is safe
    and means what the artist meant.

    A vertex with nothing wrong is left bit for bit as it is. Any other vertex is
    rewritten: weights that are NaN, infinite or negative and slots naming a joint
    out of range are dropped; positive weights of a joint named twice are merged;
    the max_influences largest weights are kept, sorted largest first in the first
    slots (ties keep their order) and divided by their sum; every other slot gets
    joint 0 and weight 0 (glTF's padding). A vertex left with no positive weight
    is bound wholly to the first of its slots' joints that is in range (joint 0 if
    none is): weight 1, never NaN. Sums within 2 k FLT_EPSILON of one count as one,
    so repairing twice changes nothing the second time.
    When reducing to max_influences < k, the strides stay those of k slots: skin
    with influences = max_influences and the same explicit strides (or keep k; the
    extra slots weigh nothing).
    @param desc the influences, rewritten in place.
    @param report receives the counts, or NULL.
    @return as fk_weights_inspect(); on error nothing is written.
    @remark O(k^2) per vertex; no memory beyond a few locals. */
FK_LBS_DEF fk_result fk_weights_repair(const fk_weights_desc *desc, fk_weights_report *report);

/* ============================================================================
   Poses
   ============================================================================ */

/** @brief How rotations are interpolated. */
typedef enum fk_rotation_interpolation {
    FK_INTERPOLATE_SLERP, /**< spherical, constant angular speed (fk_quat_slerp()) */
    FK_INTERPOLATE_NLERP  /**< normalized linear: same path, cheaper (fk_quat_nlerp()) */
} fk_rotation_interpolation;

/** @brief Interpolates two poses joint by joint: rotations along the shorter arc,
    translations linearly. A pose is the rotations and translations fk_forward()
    takes.
    @param joint_count number of joints (>= 0).
    @param rotations_a,rotations_b the two poses' rotations (normalized on the way in).
    @param translations_a,translations_b their translations, or NULL for zero.
    @param t 0 gives pose a, 1 gives pose b; other finite values extrapolate.
    @param method FK_INTERPOLATE_SLERP or FK_INTERPOLATE_NLERP.
    @param out_rotations receives joint_count rotations; may be either input.
    @param out_translations receives joint_count translations, or NULL to skip them.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_INVALID_ROTATION or FK_ERROR_NOT_FINITE; on error nothing is written. */
FK_LBS_DEF fk_result fk_pose_interpolate(int joint_count,
                                         const fk_quat *rotations_a, const fk_vec3 *translations_a,
                                         const fk_quat *rotations_b, const fk_vec3 *translations_b,
                                         float t, fk_rotation_interpolation method,
                                         fk_quat *out_rotations, fk_vec3 *out_translations);

/** @brief Weighted blend of several poses. Each joint's rotations are brought into
    the hemisphere of the most heavily weighted pose's rotation, averaged and
    normalized (nlerp generalized: for two poses it is fk_quat_nlerp()); translations
    are averaged. Weights are divided by their sum.
    @param joint_count number of joints (>= 0). @param pose_count number of poses (>= 1).
    @param rotations rotations[p] is pose p's array of joint_count rotations.
    @param translations translations[p] is pose p's translations; NULL (the whole
    list or one entry) means zero.
    @param weights pose_count weights, finite and >= 0 with a positive sum.
    @param out_rotations receives joint_count rotations; may be one of the inputs.
    @param out_translations receives joint_count translations, or NULL to skip them.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_INVALID_WEIGHT, FK_ERROR_INVALID_ROTATION or FK_ERROR_NOT_FINITE; on
    error nothing is written. */
FK_LBS_DEF fk_result fk_pose_blend(int joint_count, int pose_count,
                                   const fk_quat *const *rotations, const fk_vec3 *const *translations,
                                   const float *weights, fk_quat *out_rotations, fk_vec3 *out_translations);

/** @brief The additive pose that takes @p reference to @p pose:
    delta_q = reference_q* pose_q (applied in the joint's own frame) and
    delta_d = pose_d - reference_d, so fk_pose_add(reference, delta, 1) gives pose.
    @param joint_count number of joints (>= 0).
    @param reference_rotations,reference_translations the reference pose (NULL translations = zero).
    @param rotations,translations the pose (NULL translations = zero).
    @param out_rotations receives the delta rotations; may be an input.
    @param out_translations receives the delta translations, or NULL to skip them.
    @return as fk_pose_interpolate(). */
FK_LBS_DEF fk_result fk_pose_difference(int joint_count,
                                        const fk_quat *reference_rotations, const fk_vec3 *reference_translations,
                                        const fk_quat *rotations, const fk_vec3 *translations,
                                        fk_quat *out_rotations, fk_vec3 *out_translations);

/** @brief Applies an additive pose with a weight: q = base_q delta_q^weight (the
    power taken along the shorter arc, exp(weight log delta_q)) and
    d = base_d + weight delta_d. Weight 0 gives the base, 1 the full delta.
    @param joint_count number of joints (>= 0).
    @param base_rotations,base_translations the base pose (NULL translations = zero).
    @param delta_rotations,delta_translations the additive pose, e.g. from
    fk_pose_difference() (NULL translations = zero).
    @param weight how much of the delta to apply (finite; need not be in [0, 1]).
    @param out_rotations receives the rotations; may be an input.
    @param out_translations receives the translations, or NULL to skip them.
    @return as fk_pose_interpolate(). */
FK_LBS_DEF fk_result fk_pose_add(int joint_count,
                                 const fk_quat *base_rotations, const fk_vec3 *base_translations,
                                 const fk_quat *delta_rotations, const fk_vec3 *delta_translations,
                                 float weight, fk_quat *out_rotations, fk_vec3 *out_translations);

/** @brief Checks a track's key times: finite and strictly ascending (glTF's rule).
    @param key_count number of keys (>= 1). @param times key_count times.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT or
    FK_ERROR_KEYS_NOT_ASCENDING. */
FK_LBS_DEF fk_result fk_track_validate(int key_count, const float *times);

/** @brief Samples a key-framed vector track (translations, scales) at a time:
    linear between the two keys around it, the first or last value outside the
    keys' range (as glTF's LINEAR interpolation).
    @param key_count number of keys (>= 1). @param times key times, strictly ascending.
    @param values key_count values. @param time when to sample (not NaN).
    @param out receives the value.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_KEYS_NOT_ASCENDING or FK_ERROR_NOT_FINITE; on error nothing is written.
    @remark Validates every key (O(key_count)), then finds the pair by bisection. */
FK_LBS_DEF fk_result fk_track_sample_vec3(int key_count, const float *times, const fk_vec3 *values,
                                          float time, fk_vec3 *out);

/** @brief Samples a key-framed rotation track at a time: slerp (or nlerp) along
    the shorter arc between the two keys around it, the first or last key outside
    the keys' range (as glTF's LINEAR interpolation).
    @param key_count number of keys (>= 1). @param times key times, strictly ascending.
    @param values key_count rotations (normalized on the way in).
    @param time when to sample (not NaN). @param method FK_INTERPOLATE_SLERP or
    FK_INTERPOLATE_NLERP. @param out receives a unit quaternion.
    @return as fk_track_sample_vec3(), or FK_ERROR_INVALID_ROTATION. */
FK_LBS_DEF fk_result fk_track_sample_quat(int key_count, const float *times, const fk_quat *values,
                                          float time, fk_rotation_interpolation method, fk_quat *out);

/* ============================================================================
   Partial updates
   ============================================================================ */

/** @brief Recomputes forward kinematics for one joint's subtree only: the joint
    and every joint whose chain to a root passes through it. Every other transform
    is read (the subtree root's parent) or left alone, so after changing the
    rotations or translations of joints in the subtree, this gives what
    fk_forward() would, for less work.
    @param joint_count number of joints (>= 1). @param parents parent array, any order.
    @param rest_joints rest joint positions. @param rotations relative rotations.
    @param translations relative translations, or NULL.
    @param joint the subtree's root.
    @param transforms in: the transforms fk_forward() computed (at least the
    subtree root's parent's must be current); out: the subtree recomputed.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_JOINT_OUT_OF_RANGE (joint not below joint_count),
    FK_ERROR_PARENT_OUT_OF_RANGE, FK_ERROR_SELF_PARENT, FK_ERROR_CYCLE,
    FK_ERROR_INVALID_ROTATION or FK_ERROR_NOT_FINITE; on error nothing is written.
    @remark Finding the subtree walks up from every joint: O(joint_count x depth)
    comparisons, no memory beyond a few locals; the subtree's transforms are then
    computed once each, parents before children whatever the order of the array. */
FK_LBS_DEF fk_result fk_forward_subtree(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                        const fk_quat *rotations, const fk_vec3 *translations,
                                        int joint, fk_rigid *transforms);

/** @brief fk_forward_subtree() for rotations in the rest frame (fk_forward_rest_frame()).
    @param joint_count number of joints. @param parents parent array.
    @param rest_joints rest joint positions. @param rotations rest-frame rotations.
    @param translations relative translations or NULL. @param joint the subtree's root.
    @param transforms transforms from fk_forward_rest_frame(), updated in place.
    @return as fk_forward_subtree(). */
FK_LBS_DEF fk_result fk_forward_subtree_rest_frame(int joint_count, const int *parents,
                                                   const fk_vec3 *rest_joints, const fk_quat *rotations,
                                                   const fk_vec3 *translations, int joint,
                                                   fk_rigid *transforms);

/* ============================================================================
   Derivatives
   ============================================================================ */

/** @brief The frame a joint's rotation is expressed in, which is also the frame of
    the rotation vectors the Jacobians differentiate by. */
typedef enum fk_rotation_frame {
    FK_FRAME_PARENT, /**< Q_i = Q_p q_i, as fk_forward() */
    FK_FRAME_REST    /**< Q_i = q_i Q_p, as fk_forward_rest_frame() */
} fk_rotation_frame;

/** @brief Jacobian of a point carried by a joint, p = Q_j v + t_j, with respect to
    the rotation of every joint.

    Joint i's rotation is perturbed on the left, q_i -> exp(w/2) q_i = the rotation
    by |w| about w applied after q_i, so w lies in the frame q_i is expressed in (the
    parent's for FK_FRAME_PARENT, the rest frame for FK_FRAME_REST) and the update
    that follows a gradient step is q_i = fk_quat_mul(fk_quat_from_rotation_vector(w), q_i).
    In the parent frame, turning q_i turns everything below joint i rigidly about
    its posed position P_i, so columns 3i..3i+2 are (A e_c) x (p - P_i), with A the
    parent's absolute rotation (identity for a root). In the rest frame each segment
    below i, from pivot P_k to the next pivot (or to p), turns by its own axis
    L_k e_c with L_k = Q_k Q_i*, and the columns are sums over those segments.
    Joints that are not @p joint or one of its ancestors have zero columns.
    @param joint_count number of joints (>= 1). @param parents parent array, any order.
    @param rest_joints rest joint positions.
    @param transforms absolute transforms from fk_forward() or fk_forward_rest_frame().
    @param frame the convention @p transforms were computed with.
    @param joint the joint carrying the point. @param rest_point the point in the rest pose.
    @param out receives the 3 x (3 joint_count) matrix, row-major: out[r * 3 joint_count
    + 3 i + c] = d p_r / d w_i,c.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_JOINT_OUT_OF_RANGE, FK_ERROR_PARENT_OUT_OF_RANGE, FK_ERROR_SELF_PARENT
    or FK_ERROR_CYCLE; on error nothing is written.
    @remark O(joint_count) to check the parents and clear @p out, then O(depth)
    (parent frame) or O(depth^2) (rest frame) to fill it. */
FK_LBS_DEF fk_result fk_jacobian_point(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                       const fk_rigid *transforms, fk_rotation_frame frame,
                                       int joint, fk_vec3 rest_point, float *out);

/** @brief Jacobian of a posed joint position Q_j x_j + t_j: fk_jacobian_point() with
    the joint's rest position. Its own columns are zero (a joint turns about itself).
    @param joint_count number of joints. @param parents parent array.
    @param rest_joints rest joint positions. @param transforms absolute transforms.
    @param frame their convention. @param joint the joint.
    @param out receives the 3 x (3 joint_count) matrix, row-major.
    @return as fk_jacobian_point(). */
FK_LBS_DEF fk_result fk_jacobian_joint(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                       const fk_rigid *transforms, fk_rotation_frame frame,
                                       int joint, float *out);

/** @brief Jacobian of a vertex skinned by LBS, v' = sum_k w_k (Q_k v + t_k): the
    weighted sum of its influences' fk_jacobian_point() (weights used as given, as
    fk_skin_lbs() does).
    @param joint_count number of joints. @param parents parent array.
    @param rest_joints rest joint positions. @param transforms absolute transforms.
    @param frame their convention. @param rest_position the vertex's rest position.
    @param influences number of influences k (>= 1).
    @param joints k joint indices. @param weights k weights (finite).
    @param out receives the 3 x (3 joint_count) matrix, row-major.
    @return as fk_jacobian_point(), or FK_ERROR_INVALID_WEIGHT. */
FK_LBS_DEF fk_result fk_jacobian_lbs_vertex(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                            const fk_rigid *transforms, fk_rotation_frame frame,
                                            fk_vec3 rest_position, int influences,
                                            const uint16_t *joints, const float *weights, float *out);

/** @brief One damped least squares (Levenberg-Marquardt) step of inverse
    kinematics: turns the joints of a chain so that a point they carry moves toward
    a target. With J the point's Jacobian restricted to the chain (see
    fk_jacobian_point()) and e = target - p, the step is
    w = J^T (J J^T + lambda^2 I)^-1 e and each chain joint becomes
    q_i = exp(w_i / 2) q_i. The damping lambda^2 = d^2 + |e| R, with R the chain's
    length (pivot to pivot to the end effector), grows with the error: large steps
    stay steady and a target out of reach leaves the chain stretched straight toward
    it instead of oscillating, while near a reachable target the damping vanishes
    and convergence is fast. J J^T is 3 x 3 and is accumulated column by column, so
    nothing is stored, whatever the chain's length. Call fk_forward() (or
    fk_forward_subtree()) and step again until the distance is small. A target
    exactly behind a straight chain is a saddle where the step is zero; any bend
    in the starting pose avoids it.
    @param joint_count number of joints. @param parents parent array.
    @param rest_joints rest joint positions.
    @param transforms absolute transforms computed from @p rotations.
    @param frame their convention.
    @param joint the joint carrying the end effector. @param rest_point the end
    effector in the rest pose (rest_joints[joint] for the joint itself).
    @param chain_root the topmost joint allowed to turn: @p joint or one of its
    ancestors; negative for all the ancestors up to the root.
    @param target where the end effector should go.
    @param damping d >= 0, added to the automatic damping; 0 suits most chains, a
    larger d makes every step smaller.
    @param rotations the relative rotations, updated in place for the chain's joints.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_JOINT_OUT_OF_RANGE (also for a chain_root that is no ancestor),
    FK_ERROR_PARENT_OUT_OF_RANGE, FK_ERROR_SELF_PARENT, FK_ERROR_CYCLE,
    FK_ERROR_INVALID_ROTATION or FK_ERROR_NOT_FINITE; on error nothing is written. */
FK_LBS_DEF fk_result fk_ik_step(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                const fk_rigid *transforms, fk_rotation_frame frame, int joint,
                                fk_vec3 rest_point, int chain_root, fk_vec3 target, float damping,
                                fk_quat *rotations);

#ifdef __cplusplus
}
#endif

#endif /* FK_LBS_H */

/* ============================================================================
   IMPLEMENTATION
   ============================================================================ */

#ifdef FK_LBS_IMPLEMENTATION
#ifndef FK_LBS_IMPLEMENTATION_DONE
#define FK_LBS_IMPLEMENTATION_DONE

#include <float.h>  /* FLT_MAX, FLT_MIN */
#include <math.h>   /* sqrtf, sinf, cosf, atan2f, sqrt, fabs */
#include <string.h> /* memcpy */

/* Which SIMD loops the skinning functions can use (see "Skinning: SIMD loops").
   The intrinsics headers are included here, outside extern "C". */
#if !defined(FK_LBS_NO_SIMD) && (defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2))
#define FK__SIMD_SSE2 1
#include <emmintrin.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(FK_LBS_NO_AVX2)
#define FK__SIMD_AVX2 1
#include <immintrin.h>
#define FK__AVX2_TARGET __attribute__((target("avx2,fma")))
#if !defined(FK_LBS_NO_AVX512)
#define FK__SIMD_AVX512 1
#define FK__AVX512_TARGET __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")))
#endif
#endif
#elif !defined(FK_LBS_NO_SIMD) && (defined(__aarch64__) || defined(_M_ARM64))
#define FK__SIMD_NEON 1
#include <arm_neon.h>
#endif

/* The influence loops of the specialized SIMD loops run 1, 2, 4 or 8 times and
   should be unrolled; gcc does that at -O2 only when asked (clang unasked, and it
   warns about a request it cannot meet in the general case). */
#if defined(__GNUC__) && __GNUC__ >= 8 && !defined(__clang__)
#define FK__UNROLL _Pragma("GCC unroll 8")
#else
#define FK__UNROLL
#endif

/* Marks the common side of a branch, so that the compiler lays it out straight. */
#if defined(__GNUC__) || defined(__clang__)
#define FK__LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define FK__LIKELY(x) (x)
#endif

#if defined(__GNUC__) || defined(__clang__)
#define FK__ALWAYS_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define FK__ALWAYS_INLINE __forceinline
#else
#define FK__ALWAYS_INLINE
#endif

#ifndef FK_LBS_ASSERT
#include <assert.h>
#define FK_LBS_ASSERT(x) assert(x)
#endif

#ifndef FK_LBS_RIGID_TOLERANCE
#define FK_LBS_RIGID_TOLERANCE 1e-4
#endif

#ifndef FK_LBS_STREAM_MIN_BYTES
#define FK_LBS_STREAM_MIN_BYTES (128u << 20)
#endif

#ifdef __cplusplus
extern "C" {
#endif

FK_LBS_DEF const char *fk_result_description(fk_result result)
{
    switch (result) {
    case FK_OK: return "success";
    case FK_ERROR_NULL_ARGUMENT: return "a required pointer is NULL";
    case FK_ERROR_INVALID_COUNT: return "a count is negative, influences < 1, or counts disagree";
    case FK_ERROR_PARENT_OUT_OF_RANGE: return "a parent index is not below the joint count";
    case FK_ERROR_SELF_PARENT: return "a joint is its own parent";
    case FK_ERROR_CYCLE: return "the parent array has a cycle";
    case FK_ERROR_INVALID_ROTATION: return "a quaternion is zero, infinite, NaN, or too small or large to normalize in float";
    case FK_ERROR_NOT_FINITE: return "a position or translation is infinite or NaN, or the result overflows";
    case FK_ERROR_JOINT_OUT_OF_RANGE: return "a joint index is not below the number of joints (for skinning: transform_count)";
    case FK_ERROR_INVALID_STRIDE: return "a stride is too small, misaligned, or overflows";
    case FK_ERROR_NOT_RIGID: return "matrices are singular, or carry scale that varies per joint or over time";
    case FK_ERROR_INVALID_WEIGHT: return "a weight is not finite, or blend weights are negative or sum to zero";
    case FK_ERROR_KEYS_NOT_ASCENDING: return "key times are not finite and strictly ascending";
    }
    return "unknown fk_result";
}

/* ---- Vectors --------------------------------------------------------------- */

FK_LBS_DEF fk_vec3 fk_vec3_make(float x, float y, float z)
{
    fk_vec3 v;
    v.x = x; v.y = y; v.z = z;
    return v;
}

FK_LBS_DEF fk_vec3 fk_vec3_add(fk_vec3 a, fk_vec3 b) { return fk_vec3_make(a.x + b.x, a.y + b.y, a.z + b.z); }
FK_LBS_DEF fk_vec3 fk_vec3_sub(fk_vec3 a, fk_vec3 b) { return fk_vec3_make(a.x - b.x, a.y - b.y, a.z - b.z); }
FK_LBS_DEF fk_vec3 fk_vec3_scale(fk_vec3 v, float s) { return fk_vec3_make(v.x * s, v.y * s, v.z * s); }
FK_LBS_DEF float fk_vec3_dot(fk_vec3 a, fk_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
FK_LBS_DEF float fk_vec3_length(fk_vec3 v) { return sqrtf(fk_vec3_dot(v, v)); }

FK_LBS_DEF fk_vec3 fk_vec3_cross(fk_vec3 a, fk_vec3 b)
{
    return fk_vec3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

FK_LBS_DEF fk_vec3 fk_vec3_normalize(fk_vec3 v)
{
    float length = fk_vec3_length(v);
    if (!(length >= 1e-18f && length <= FLT_MAX) && length == length) {
        /* |v|^2 overflowed or underflowed float, yet the direction is well defined:
           divide by the largest component first (no reciprocal, which could overflow). */
        float largest = fabsf(v.x) > fabsf(v.y) ? fabsf(v.x) : fabsf(v.y);
        largest = fabsf(v.z) > largest ? fabsf(v.z) : largest;
        if (largest > 0.0f && largest <= FLT_MAX) {
            v = fk_vec3_make(v.x / largest, v.y / largest, v.z / largest);
            length = fk_vec3_length(v);
        }
    }
    /* Tested against zero, not "> 0", so that NaN stays NaN instead of passing for
       a zero vector. */
    return length != 0.0f ? fk_vec3_scale(v, 1.0f / length) : fk_vec3_make(0.0f, 0.0f, 0.0f);
}

/* NaN fails every comparison, so one test rejects NaN and both infinities. */
static int fk__is_finite(float x) { return x >= -FLT_MAX && x <= FLT_MAX; }

static int fk__vec3_is_finite(fk_vec3 v)
{
    return fk__is_finite(v.x) && fk__is_finite(v.y) && fk__is_finite(v.z);
}

/* ---- Quaternions -------------------------------------------------------------
   A unit quaternion q = (sin(a/2) u, cos(a/2)) rotates by angle a about axis u.
   Composition is the Hamilton product, and q and -q are the same rotation. */

FK_LBS_DEF fk_quat fk_quat_make(float x, float y, float z, float w)
{
    fk_quat q;
    q.x = x; q.y = y; q.z = z; q.w = w;
    return q;
}

FK_LBS_DEF fk_quat fk_quat_identity(void) { return fk_quat_make(0.0f, 0.0f, 0.0f, 1.0f); }

FK_LBS_DEF fk_quat fk_quat_mul(fk_quat a, fk_quat b)
{
    /* summed in pairs: two additions deep, not three (forward kinematics waits
       on this product at every joint) */
    return fk_quat_make((a.w * b.x + a.x * b.w) + (a.y * b.z - a.z * b.y),
                        (a.w * b.y - a.x * b.z) + (a.y * b.w + a.z * b.x),
                        (a.w * b.z + a.x * b.y) + (a.z * b.w - a.y * b.x),
                        (a.w * b.w - a.x * b.x) + (-a.y * b.y - a.z * b.z));
}

FK_LBS_DEF fk_quat fk_quat_conjugate(fk_quat q) { return fk_quat_make(-q.x, -q.y, -q.z, q.w); }
FK_LBS_DEF float fk_quat_dot(fk_quat a, fk_quat b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
FK_LBS_DEF float fk_quat_length(fk_quat q) { return sqrtf(fk_quat_dot(q, q)); }

static fk_quat fk__quat_scale(fk_quat q, float s) { return fk_quat_make(q.x * s, q.y * s, q.z * s, q.w * s); }
static fk_quat fk__quat_divide(fk_quat q, float s) { return fk_quat_make(q.x / s, q.y / s, q.z / s, q.w / s); }

static float fk__quat_largest_magnitude(fk_quat q)
{
    float a = fabsf(q.x) > fabsf(q.y) ? fabsf(q.x) : fabsf(q.y);
    float b = fabsf(q.z) > fabsf(q.w) ? fabsf(q.z) : fabsf(q.w);
    return a > b ? a : b;
}

FK_LBS_DEF fk_quat fk_quat_inverse(fk_quat q)
{
    float norm2 = fk_quat_dot(q, q);
    return norm2 != 0.0f ? fk__quat_scale(fk_quat_conjugate(q), 1.0f / norm2) : fk_quat_identity();
}

FK_LBS_DEF fk_quat fk_quat_normalize(fk_quat q)
{
    float norm2 = fk_quat_dot(q, q); /* NaN stays NaN: see fk_vec3_normalize() */
    return norm2 != 0.0f ? fk__quat_scale(q, 1.0f / sqrtf(norm2)) : fk_quat_identity();
}

/* Inputs that cannot be normalized: zero length (or so small that 1/|q| overflows),
   infinite or NaN. Also false for NaN because NaN fails both comparisons. */
static int fk__quat_is_normalizable(fk_quat q)
{
    float norm2 = fk_quat_dot(q, q);
    return norm2 >= FLT_MIN && norm2 <= FLT_MAX;
}

/* q v q* expanded: with u = (x, y, z) and s = 2 u x v, the result is v + w s + u x s.
   Two cross products instead of two quaternion products. */
FK_LBS_DEF fk_vec3 fk_quat_rotate(fk_quat q, fk_vec3 v)
{
    fk_vec3 u = fk_vec3_make(q.x, q.y, q.z);
    fk_vec3 s = fk_vec3_scale(fk_vec3_cross(u, v), 2.0f);
    return fk_vec3_add(fk_vec3_add(v, fk_vec3_scale(s, q.w)), fk_vec3_cross(u, s));
}

FK_LBS_DEF fk_quat fk_quat_from_axis_angle(fk_vec3 axis, float angle)
{
    float length = fk_vec3_length(axis);
    float s;
    if (length == 0.0f) return fk_quat_identity();
    s = sinf(0.5f * angle) / length;
    return fk_quat_make(axis.x * s, axis.y * s, axis.z * s, cosf(0.5f * angle));
}

FK_LBS_DEF void fk_quat_to_axis_angle(fk_quat q, fk_vec3 *axis, float *angle)
{
    /* atan2 of the half-angle's sine and cosine stays accurate near 0 and pi, where
       acos(w) would lose half the digits; taking the w >= 0 representative keeps the
       angle in [0, pi]. */
    float sine;
    FK_LBS_ASSERT(axis != NULL && angle != NULL);
    if (q.w < 0.0f) q = fk__quat_scale(q, -1.0f);
    sine = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
    *angle = 2.0f * atan2f(sine, q.w);
    *axis = sine != 0.0f ? fk_vec3_make(q.x / sine, q.y / sine, q.z / sine) : fk_vec3_make(1.0f, 0.0f, 0.0f);
}

FK_LBS_DEF void fk_quat_to_mat3(fk_quat q, float out[9])
{
    float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    out[0] = 1.0f - 2.0f * (yy + zz); out[1] = 2.0f * (xy - wz);        out[2] = 2.0f * (xz + wy);
    out[3] = 2.0f * (xy + wz);        out[4] = 1.0f - 2.0f * (xx + zz); out[5] = 2.0f * (yz - wx);
    out[6] = 2.0f * (xz - wy);        out[7] = 2.0f * (yz + wx);        out[8] = 1.0f - 2.0f * (xx + yy);
}

FK_LBS_DEF fk_quat fk_quat_from_mat3(const float m[9])
{
    /* Each of 4w^2, 4x^2, 4y^2, 4z^2 is a signed sum of the diagonal. Taking the square
       root of the largest and dividing the off-diagonal sums by it never divides by a
       small number, so 180-degree turns (w = 0) are as accurate as any other. */
    float trace = m[0] + m[4] + m[8];
    fk_quat q;
    if (trace > 0.0f) {
        float s = 2.0f * sqrtf(1.0f + trace);
        q = fk_quat_make((m[7] - m[5]) / s, (m[2] - m[6]) / s, (m[3] - m[1]) / s, 0.25f * s);
    } else if (m[0] > m[4] && m[0] > m[8]) {
        float s = 2.0f * sqrtf(1.0f + m[0] - m[4] - m[8]);
        q = fk_quat_make(0.25f * s, (m[1] + m[3]) / s, (m[2] + m[6]) / s, (m[7] - m[5]) / s);
    } else if (m[4] > m[8]) {
        float s = 2.0f * sqrtf(1.0f + m[4] - m[0] - m[8]);
        q = fk_quat_make((m[1] + m[3]) / s, 0.25f * s, (m[5] + m[7]) / s, (m[2] - m[6]) / s);
    } else {
        float s = 2.0f * sqrtf(1.0f + m[8] - m[0] - m[4]);
        q = fk_quat_make((m[2] + m[6]) / s, (m[5] + m[7]) / s, 0.25f * s, (m[3] - m[1]) / s);
    }
    return fk_quat_normalize(q);
}

FK_LBS_DEF fk_quat fk_quat_nlerp(fk_quat a, fk_quat b, float t)
{
    /* Flipping b into a's hemisphere takes the shorter of the two arcs between the
       rotations; without it half of all blends would spin the long way round. */
    float sign = fk_quat_dot(a, b) < 0.0f ? -1.0f : 1.0f;
    float wa = 1.0f - t, wb = sign * t;
    return fk_quat_normalize(fk_quat_make(wa * a.x + wb * b.x, wa * a.y + wb * b.y,
                                          wa * a.z + wb * b.z, wa * a.w + wb * b.w));
}

FK_LBS_DEF fk_quat fk_quat_slerp(fk_quat a, fk_quat b, float t)
{
    float cosine = fk_quat_dot(a, b);
    float angle, sine, wa, wb;
    if (cosine < 0.0f) { b = fk__quat_scale(b, -1.0f); cosine = -cosine; }
    /* The half-angle between a and b from atan2 of |a - b| and |a + b| is accurate
       for tiny angles, where acos(cosine) is not. */
    {
        fk_quat d = fk_quat_make(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w);
        fk_quat s = fk_quat_make(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
        angle = 2.0f * atan2f(fk_quat_length(d), fk_quat_length(s));
    }
    sine = sinf(angle);
    if (sine < 1e-6f) return fk_quat_nlerp(a, b, t); /* a == b to float precision */
    wa = sinf((1.0f - t) * angle) / sine;
    wb = sinf(t * angle) / sine;
    return fk_quat_normalize(fk_quat_make(wa * a.x + wb * b.x, wa * a.y + wb * b.y,
                                          wa * a.z + wb * b.z, wa * a.w + wb * b.w));
}

/* The three axes of an order, first to last: FK_EULER_ZXY -> 2, 0, 1. */
static void fk__euler_axes(fk_euler_order order, int axes[3])
{
    static const int table[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int index = (int)order;
    FK_LBS_ASSERT(index >= 0 && index < 6);
    if (index < 0 || index > 5) index = 0;
    axes[0] = table[index][0]; axes[1] = table[index][1]; axes[2] = table[index][2];
}

static float fk__vec3_get(fk_vec3 v, int axis) { return axis == 0 ? v.x : axis == 1 ? v.y : v.z; }

static void fk__vec3_set(fk_vec3 *v, int axis, float value)
{
    if (axis == 0) v->x = value; else if (axis == 1) v->y = value; else v->z = value;
}

FK_LBS_DEF fk_quat fk_quat_from_euler(fk_vec3 angles, fk_euler_order order)
{
    int axes[3], k;
    fk_quat q = fk_quat_identity();
    fk__euler_axes(order, axes);
    for (k = 0; k < 3; ++k) {
        float half = 0.5f * fk__vec3_get(angles, axes[k]);
        fk_quat turn = fk_quat_make(0.0f, 0.0f, 0.0f, cosf(half));
        float *component = axes[k] == 0 ? &turn.x : axes[k] == 1 ? &turn.y : &turn.z;
        *component = sinf(half);
        q = fk_quat_mul(q, turn);
    }
    return q;
}

FK_LBS_DEF fk_vec3 fk_quat_to_euler(fk_quat q, fk_euler_order order)
{
    /* For R = R_i(a) R_j(b) R_k(c) with s = +1 when (i, j, k) is a cyclic order of
       (x, y, z) and -1 otherwise:
         R[i][k] = s sin b,  R[j][k] = -s sin a cos b,  R[k][k] = cos a cos b,
         R[i][j] = -s cos b sin c,  R[i][i] = cos b cos c.
       When cos b vanishes only a + s c is defined; we set c = 0 and read a from
       R = R_i(a) R_j(b), whose column j is (cos a) e_j + s (sin a) e_k. */
    int axes[3], i, j, k;
    float m[9], s, cos_b;
    fk_vec3 angles = fk_vec3_make(0.0f, 0.0f, 0.0f);
    fk__euler_axes(order, axes);
    i = axes[0]; j = axes[1]; k = axes[2];
    s = ((j - i + 3) % 3 == 1) ? 1.0f : -1.0f;
    fk_quat_to_mat3(fk_quat_normalize(q), m);
    cos_b = sqrtf(m[3 * i + i] * m[3 * i + i] + m[3 * i + j] * m[3 * i + j]);
    fk__vec3_set(&angles, j, atan2f(s * m[3 * i + k], cos_b));
    if (cos_b > 1e-6f) {
        /* Near gimbal lock a and c are each ill-conditioned, only their sum is not;
           reading c from R_i(a)^T R = R_j(b) R_k(c), whose row j is row j of R_k(c),
           with the a just computed keeps the pair consistent, so R is rebuilt exactly. */
        float a = atan2f(-s * m[3 * j + k], m[3 * k + k]), cos_a = cosf(a), s_sin_a = s * sinf(a);
        fk__vec3_set(&angles, i, a);
        fk__vec3_set(&angles, k, atan2f(s * (cos_a * m[3 * j + i] + s_sin_a * m[3 * k + i]),
                                        cos_a * m[3 * j + j] + s_sin_a * m[3 * k + j]));
    } else {
        fk__vec3_set(&angles, i, atan2f(s * m[3 * k + j], m[3 * j + j]));
    }
    return angles;
}

/* ---- Logarithm, exponential and rotation vectors ---------------------------- */

FK_LBS_DEF fk_quat fk_quat_exp(fk_vec3 v)
{
    /* sin(a)/a by its series below 1e-4, where the error of 1 - a^2/6 is under
       a^4/120 ~ 1e-18, so nothing divides by a tiny or zero angle. */
    float angle = fk_vec3_length(v);
    float sinc = angle > 1e-4f ? sinf(angle) / angle : 1.0f - angle * angle / 6.0f;
    return fk_quat_make(v.x * sinc, v.y * sinc, v.z * sinc, cosf(angle));
}

FK_LBS_DEF fk_vec3 fk_quat_log(fk_quat q)
{
    /* atan2 of |vector part| and w gives the half-angle accurately everywhere, as in
       fk_quat_to_axis_angle(); dividing by |vector part| is safe whenever it is > 0. */
    float sine, half_angle;
    q = fk_quat_normalize(q);
    sine = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
    half_angle = atan2f(sine, q.w);
    if (sine > 0.0f) return fk_vec3_scale(fk_vec3_make(q.x, q.y, q.z), half_angle / sine);
    return fk_vec3_make(q.w < 0.0f ? 3.14159265358979f : 0.0f, 0.0f, 0.0f);
}

FK_LBS_DEF fk_quat fk_quat_from_rotation_vector(fk_vec3 r) { return fk_quat_exp(fk_vec3_scale(r, 0.5f)); }

FK_LBS_DEF fk_vec3 fk_quat_to_rotation_vector(fk_quat q)
{
    if (q.w < 0.0f) q = fk__quat_scale(q, -1.0f);
    return fk_vec3_scale(fk_quat_log(q), 2.0f);
}

/* ---- Rigid transforms ------------------------------------------------------- */

FK_LBS_DEF fk_rigid fk_rigid_make(fk_quat q, fk_vec3 t)
{
    fk_rigid r;
    r.q = q; r.t = t;
    return r;
}

FK_LBS_DEF fk_rigid fk_rigid_identity(void) { return fk_rigid_make(fk_quat_identity(), fk_vec3_make(0.0f, 0.0f, 0.0f)); }

/* a(b(v)) = qa (qb v + tb) + ta = (qa qb) v + (qa tb + ta). */
FK_LBS_DEF fk_rigid fk_rigid_mul(fk_rigid a, fk_rigid b)
{
    return fk_rigid_make(fk_quat_mul(a.q, b.q), fk_vec3_add(fk_quat_rotate(a.q, b.t), a.t));
}

FK_LBS_DEF fk_rigid fk_rigid_inverse(fk_rigid r)
{
    fk_quat inverse = fk_quat_conjugate(r.q);
    return fk_rigid_make(inverse, fk_vec3_scale(fk_quat_rotate(inverse, r.t), -1.0f));
}

FK_LBS_DEF fk_vec3 fk_rigid_apply(fk_rigid r, fk_vec3 p) { return fk_vec3_add(fk_quat_rotate(r.q, p), r.t); }

FK_LBS_DEF void fk_rigid_to_mat34(fk_rigid r, float out[12])
{
    float m[9];
    fk_quat_to_mat3(r.q, m);
    out[0] = m[0]; out[1] = m[1]; out[2] = m[2];  out[3] = r.t.x;
    out[4] = m[3]; out[5] = m[4]; out[6] = m[5];  out[7] = r.t.y;
    out[8] = m[6]; out[9] = m[7]; out[10] = m[8]; out[11] = r.t.z;
}

FK_LBS_DEF fk_rigid fk_rigid_from_mat34(const float m[12])
{
    float rotation[9];
    rotation[0] = m[0]; rotation[1] = m[1]; rotation[2] = m[2];
    rotation[3] = m[4]; rotation[4] = m[5]; rotation[5] = m[6];
    rotation[6] = m[8]; rotation[7] = m[9]; rotation[8] = m[10];
    return fk_rigid_make(fk_quat_from_mat3(rotation), fk_vec3_make(m[3], m[7], m[11]));
}

FK_LBS_DEF fk_dual_quat fk_rigid_to_dual_quat(fk_rigid r)
{
    fk_dual_quat d;
    d.real = r.q;
    d.dual = fk__quat_scale(fk_quat_mul(fk_quat_make(r.t.x, r.t.y, r.t.z, 0.0f), r.q), 0.5f);
    return d;
}

/* With real = (r0, w0) and dual = (re, we), t = 2 vec(dual real*)
   = 2 (w0 re - we r0 + r0 x re); see fk_skin_dqs() for why this form is safe
   after blending. */
static fk_vec3 fk__dual_quat_translation(fk_quat real, fk_quat dual)
{
    fk_vec3 r0 = fk_vec3_make(real.x, real.y, real.z), re = fk_vec3_make(dual.x, dual.y, dual.z);
    fk_vec3 t = fk_vec3_sub(fk_vec3_scale(re, real.w), fk_vec3_scale(r0, dual.w));
    return fk_vec3_scale(fk_vec3_add(t, fk_vec3_cross(r0, re)), 2.0f);
}

FK_LBS_DEF fk_rigid fk_dual_quat_to_rigid(fk_dual_quat d)
{
    float norm = fk_quat_length(d.real);
    float inverse = norm != 0.0f ? 1.0f / norm : 0.0f;
    fk_quat real = fk__quat_scale(d.real, inverse), dual = fk__quat_scale(d.dual, inverse);
    if (norm == 0.0f) return fk_rigid_identity();
    return fk_rigid_make(real, fk__dual_quat_translation(real, dual));
}

/* ---- SIMD building blocks ---------------------------------------------------------
   Forward kinematics and skinning use SSE2 where it is available (any x86-64);
   these functions do lane for lane what the scalar helpers above do, in the same
   order of operations, so that results agree bit for bit where the compiler does
   not fuse multiplies and adds differently in the two. */

#if defined(FK__SIMD_SSE2)

/* The lanes of one register permuted (imm as for _mm_shuffle_ps(v, v, imm)) by
   the integer shuffle. Targeting AVX, compilers turn _mm_shuffle_ps(v, v, imm)
   into vpermilps, which recent Intel cores run on one port (shufps and pshufd on
   two, by the published port tables): forward kinematics built with
   -march=native ran 5% slower than with plain -O2 here, and pshufd (or vshufps)
   won that back. Without AVX, pshufd also spares the copy that shufps, which
   overwrites its operand, needs. */
#define FK__PERMUTE_SSE(v, imm) _mm_castsi128_ps(_mm_shuffle_epi32(_mm_castps_si128(v), (imm)))

/* Four lanes of which x, y, z are used: loaded and stored as 4 + 4 + 4 bytes, never
   touching the fourth float, which may be another vertex's or past the end. */
static FK__ALWAYS_INLINE void fk__store3_sse(void *p, __m128 v)
{
    _mm_storel_pi((__m64 *)p, v);
    _mm_store_ss((float *)p + 2, _mm_movehl_ps(v, v));
}

/* fk_quat_dot() in lane 0, summed in the same order: the DQS hemisphere test then
   agrees with the reference even for nearly orthogonal rotations. */
static FK__ALWAYS_INLINE __m128 fk__dot4_sse(__m128 a, __m128 b)
{
    __m128 m = _mm_mul_ps(a, b);
    __m128 sum = _mm_add_ss(m, FK__PERMUTE_SSE(m, 1));
    sum = _mm_add_ss(sum, _mm_movehl_ps(m, m));
    return _mm_add_ss(sum, FK__PERMUTE_SSE(m, 3));
}

/* a x b in lanes x, y, z: (a b.yzx - a.yzx b) comes out as z x y, rotated back. */
static FK__ALWAYS_INLINE __m128 fk__cross_sse(__m128 a, __m128 b)
{
    __m128 a_yzx = FK__PERMUTE_SSE(a, _MM_SHUFFLE(3, 0, 2, 1)), b_yzx = FK__PERMUTE_SSE(b, _MM_SHUFFLE(3, 0, 2, 1));
    __m128 c = _mm_sub_ps(_mm_mul_ps(a, b_yzx), _mm_mul_ps(a_yzx, b));
    return FK__PERMUTE_SSE(c, _MM_SHUFFLE(3, 0, 2, 1));
}

static FK__ALWAYS_INLINE __m128 fk__load3_sse(const void *p)
{
    const float *v = (const float *)p;
    return _mm_movelh_ps(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)p), _mm_load_ss(v + 2));
}

/* fk_quat_mul() lane by lane: (a.w b + a.x b1) + (a.y b2 + a.z b3), with b1, b2,
   b3 permutations of b and the products' signs flipped where the formula
   subtracts (x - y and x + (-y) are the same IEEE operation). */
static FK__ALWAYS_INLINE __m128 fk__quat_mul_sse(__m128 a, __m128 b)
{
    __m128 sum = _mm_mul_ps(FK__PERMUTE_SSE(a, _MM_SHUFFLE(3, 3, 3, 3)), b);
    __m128 x = _mm_mul_ps(FK__PERMUTE_SSE(a, _MM_SHUFFLE(0, 0, 0, 0)), FK__PERMUTE_SSE(b, _MM_SHUFFLE(0, 1, 2, 3)));
    __m128 y = _mm_mul_ps(FK__PERMUTE_SSE(a, _MM_SHUFFLE(1, 1, 1, 1)), FK__PERMUTE_SSE(b, _MM_SHUFFLE(1, 0, 3, 2)));
    __m128 z = _mm_mul_ps(FK__PERMUTE_SSE(a, _MM_SHUFFLE(2, 2, 2, 2)), FK__PERMUTE_SSE(b, _MM_SHUFFLE(2, 3, 0, 1)));
    sum = _mm_add_ps(sum, _mm_xor_ps(x, _mm_setr_ps(0.0f, -0.0f, 0.0f, -0.0f)));
    return _mm_add_ps(sum, _mm_add_ps(_mm_xor_ps(y, _mm_setr_ps(0.0f, 0.0f, -0.0f, -0.0f)),
                                      _mm_xor_ps(z, _mm_setr_ps(-0.0f, 0.0f, 0.0f, -0.0f))));
}

/* Whether a float's bits are those of a positive normal number, FLT_MIN to
   FLT_MAX: one integer comparison instead of two floating-point ones. */
static FK__ALWAYS_INLINE int fk__is_positive_normal_sse(__m128 x)
{
    unsigned bits = (unsigned)_mm_cvtsi128_si32(_mm_castps_si128(x));
    return bits - 0x00800000u <= 0x7F7FFFFFu - 0x00800000u;
}

/* Half of fk_quat_normalize()'s factor for four quaternions, one per lane:
   0.5 / |q|, with |q|^2 summed as fk_quat_dot() sums it, for the quaternions
   whose x, y, z, w are the lanes of qx, qy, qz, qw. Forward kinematics scales
   each joint's rotation by it, q / (2 |q|): the normalized bits halved (0.5 / s
   is (1 / s) / 2 exactly, and so is each product unless it falls below
   FLT_MIN), and multiplies the half rotation by twice the renormalization
   factor, which takes the factor's halving off the chain from parent to child.
   Lanes whose |q|^2 is not a positive normal float (a rotation that cannot be
   normalized) are set in *not_normal. The one-pass path computes the factors
   of many joints ahead of the chain, four at a time
   (fk__half_unit_factors_sse()); the general path gives this function one
   rotation's x, y, z, w in all four lanes, so both evaluate the same
   expression and round alike even where the compiler fuses the multiplies
   and adds. */
static FK__ALWAYS_INLINE __m128 fk__half_unit_factors_of_lanes_sse(__m128 qx, __m128 qy, __m128 qz, __m128 qw,
                                                                   __m128i *not_normal)
{
    __m128 norm2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(qx, qx), _mm_mul_ps(qy, qy)), _mm_mul_ps(qz, qz)),
                              _mm_mul_ps(qw, qw));
    __m128i bits = _mm_castps_si128(norm2); /* positive normal: 0x00800000 to 0x7F7FFFFF as signed integers */
    *not_normal = _mm_or_si128(_mm_cmplt_epi32(bits, _mm_set1_epi32(0x00800000)),
                               _mm_cmpgt_epi32(bits, _mm_set1_epi32(0x7F7FFFFF)));
    return _mm_div_ps(_mm_set1_ps(0.5f), _mm_sqrt_ps(norm2));
}

/* fk__half_unit_factors_of_lanes_sse() of the quaternions a, b, c, d,
   transposed so that each lane holds one. */
static FK__ALWAYS_INLINE __m128 fk__half_unit_factors_sse(__m128 a, __m128 b, __m128 c, __m128 d,
                                                          __m128i *not_normal)
{
    __m128 ab_low = _mm_unpacklo_ps(a, b), cd_low = _mm_unpacklo_ps(c, d);
    __m128 ab_high = _mm_unpackhi_ps(a, b), cd_high = _mm_unpackhi_ps(c, d);
    return fk__half_unit_factors_of_lanes_sse(_mm_movelh_ps(ab_low, cd_low), _mm_movehl_ps(cd_low, ab_low),
                                              _mm_movelh_ps(ab_high, cd_high), _mm_movehl_ps(cd_high, ab_high),
                                              not_normal);
}

/* Twice fk__renormalization_factor() in every lane, 3 - |q|^2, |q|^2 summed in
   the same pairs. */
static FK__ALWAYS_INLINE __m128 fk__doubled_renormalization_factor_sse(__m128 q)
{
    __m128 norm2 = _mm_mul_ps(q, q);
    norm2 = _mm_add_ps(norm2, FK__PERMUTE_SSE(norm2, _MM_SHUFFLE(1, 0, 3, 2)));
    norm2 = _mm_add_ps(norm2, FK__PERMUTE_SSE(norm2, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_sub_ps(_mm_set1_ps(3.0f), norm2);
}

/* fk_quat_rotate(): s = 2 u x v, then (v + w s) + u x s. */
static FK__ALWAYS_INLINE __m128 fk__quat_rotate_sse(__m128 q, __m128 v)
{
    __m128 s = _mm_mul_ps(fk__cross_sse(q, v), _mm_set1_ps(2.0f));
    return _mm_add_ps(_mm_add_ps(v, _mm_mul_ps(s, FK__PERMUTE_SSE(q, _MM_SHUFFLE(3, 3, 3, 3)))), fk__cross_sse(q, s));
}

#endif /* FK__SIMD_SSE2 */

/* ---- Forward kinematics --------------------------------------------------------
   One joint alone rotates about its pivot x: move x to the origin, rotate, move
   back, so v -> q (v - x) + x, i.e. Q = q and t = x - q x.

   Down the tree a joint also carries its parent's whole motion (Q_p, t_p): its
   pivot x_i, moved by d_i in the parent's frame, must land where the parent's
   transform sends it, Q_p (x_i + d_i) + t_p. Asking Q_i x_i + t_i to be that point
   gives
       t_i = t_p + Q_p (x_i + d_i) - Q_i x_i.
   The formula often copied from derivations, t_i = -Q_i x_i + Q_p x_i - Q_p x_p + x_p,
   replaces t_p by x_p - Q_p x_p, which is the parent's translation only when the
   parent is a root: from the grandchildren on, joints come loose from their parents.
   Nothing here uses it. */

static int fk__parent_index(const int *parents, int joint) { return parents[joint] < 0 ? -1 : parents[joint]; }

/* The product of two unit quaternions is unit up to rounding, and rounding would
   compound down a long chain, so the length error is taken out at every joint.
   Near 1, one Newton step, (3 - |q|^2) / 2, is as good a factor as 1 / |q|: its
   own error is (3/8) (|q|^2 - 1)^2, far below float's resolution.
   The factor is the parent's, not the product's: Q_i = (Q_p q_i) (3 - |Q_p|^2) / 2
   undoes the error Q_i inherits from Q_p, while the product's own rounding (an
   ulp or two) stays in Q_i until Q_i's children take it out in turn, so errors
   never compound. Taking the factor from the parent lets it run beside the
   product instead of after it: forward kinematics is a chain of these from root
   to leaf, each joint waiting for its parent's rotation, and this shortens every
   link by a third. |q|^2 is summed in pairs, as the SIMD lanes do
   (fk__doubled_renormalization_factor_sse(), which takes its place where there
   is SSE2: it leaves out the halving, and the joint's rotation comes in halved,
   exactly, so the product is the same and one multiplication shorter). */
#if !defined(FK__SIMD_SSE2)
static float fk__renormalization_factor(fk_quat q)
{
    float norm2 = (q.x * q.x + q.z * q.z) + (q.y * q.y + q.w * q.w);
    return 0.5f * (3.0f - norm2);
}
#endif

/* Checks each parent index on its own; reports whether parents precede children. */
static fk_result fk__check_parents(int joint_count, const int *parents, int *parents_first)
{
    int i;
    *parents_first = 1;
    for (i = 0; i < joint_count; ++i) {
        int parent = parents[i];
        if (parent >= joint_count) return FK_ERROR_PARENT_OUT_OF_RANGE;
        if (parent == i) return FK_ERROR_SELF_PARENT;
        if (parent > i) *parents_first = 0;
    }
    return FK_OK;
}

#if defined(FK__SIMD_SSE2)
/* Q_i of a joint below a root: the product with the parent's rotation, scaled by
   the parent's renormalization factor (half_q comes in halved, the factor
   doubled). */
static FK__ALWAYS_INLINE __m128 fk__child_rotation_sse(__m128 parent_q, __m128 half_q, int rest_frame)
{
    return _mm_mul_ps(rest_frame ? fk__quat_mul_sse(half_q, parent_q) : fk__quat_mul_sse(parent_q, half_q),
                      fk__doubled_renormalization_factor_sse(parent_q));
}

/* fk__joint_transform() below, four lanes at a time, in half the instructions:
   half_q is the joint's rotation normalized and halved
   (times fk__half_unit_factors_sse()), x its rest position, pivot x plus its
   translation; the parent's rotation and translation come in registers (a
   root has neither). Returns the translation, which the one-pass path checks
   for overflow (finite inputs near FLT_MAX make it infinite; the general path
   then reports it), and sets *q_out to the rotation. */
static FK__ALWAYS_INLINE __m128 fk__joint_transform_sse(int root, __m128 parent_q, __m128 parent_t, __m128 half_q,
                                                        __m128 x, __m128 pivot, int rest_frame, __m128 *q_out)
{
    __m128 q, t;
    if (root) {
        q = _mm_add_ps(half_q, half_q);
        t = _mm_sub_ps(pivot, fk__quat_rotate_sse(q, x));
    } else {
        q = fk__child_rotation_sse(parent_q, half_q, rest_frame);
        t = _mm_sub_ps(_mm_add_ps(parent_t, fk__quat_rotate_sse(parent_q, pivot)), fk__quat_rotate_sse(q, x));
    }
    *q_out = q;
    return t;
}

static FK__ALWAYS_INLINE void fk__store_rigid_sse(fk_rigid *out, __m128 q, __m128 t)
{
    _mm_storeu_ps(&out->q.x, q);
    fk__store3_sse(&out->t, t);
}
#endif

#if defined(FK__SIMD_AVX2)
/* AVX2 without FMA: a fused multiply-add rounds once where the public functions
   round twice, and forward kinematics gives their bits. (A build that allows
   FMA everywhere, -march=native say, lets the compiler fuse here as it may in
   the SSE2 code and the public functions; tests/test_simd.c allows for that.) */
#define FK__AVX2_NO_FMA_TARGET __attribute__((target("avx2")))

/* FK__PERMUTE_SSE() in both halves of a 256-bit register. */
#define FK__PERMUTE_AVX2(v, imm) _mm256_castsi256_ps(_mm256_shuffle_epi32(_mm256_castps_si256(v), (imm)))

static FK__AVX2_NO_FMA_TARGET FK__ALWAYS_INLINE __m256 fk__cross_avx2(__m256 a, __m256 b)
{
    __m256 a_yzx = FK__PERMUTE_AVX2(a, _MM_SHUFFLE(3, 0, 2, 1)), b_yzx = FK__PERMUTE_AVX2(b, _MM_SHUFFLE(3, 0, 2, 1));
    __m256 c = _mm256_sub_ps(_mm256_mul_ps(a, b_yzx), _mm256_mul_ps(a_yzx, b));
    return FK__PERMUTE_AVX2(c, _MM_SHUFFLE(3, 0, 2, 1));
}

/* fk__quat_rotate_sse() of two points by two rotations at once, lane by lane. */
static FK__AVX2_NO_FMA_TARGET FK__ALWAYS_INLINE __m256 fk__quat_rotate_avx2(__m256 q, __m256 v)
{
    __m256 s = _mm256_mul_ps(fk__cross_avx2(q, v), _mm256_set1_ps(2.0f));
    return _mm256_add_ps(_mm256_add_ps(v, _mm256_mul_ps(s, FK__PERMUTE_AVX2(q, _MM_SHUFFLE(3, 3, 3, 3)))),
                         fk__cross_avx2(q, s));
}

/* The translation of a joint below a root, t_p + Q_p pivot - Q_i x, with its
   two rotations in the two halves of one register: half the instructions of
   the arithmetic that dominates a joint, the same bits, and a humanoid's pass
   9% faster (a harness, alternating runs). Not always_inline, so that the SSE2
   one-pass loop can name it on a branch it never takes; the AVX2 loop inlines
   it (flatten). */
static FK__AVX2_NO_FMA_TARGET __m128 fk__child_translation_avx2(__m128 parent_q, __m128 parent_t, __m128 q,
                                                               __m128 pivot, __m128 x)
{
    __m256 rotated = fk__quat_rotate_avx2(_mm256_insertf128_ps(_mm256_castps128_ps256(parent_q), q, 1),
                                          _mm256_insertf128_ps(_mm256_castps128_ps256(pivot), x, 1));
    return _mm_sub_ps(_mm_add_ps(parent_t, _mm256_castps256_ps128(rotated)), _mm256_extractf128_ps(rotated, 1));
}

/* Decided by the compiler when it may assume AVX2, else asked of the CPU (gcc
   and clang keep the answer in their runtime library, not in ours). */
static int fk__has_avx2(void)
{
#if defined(__AVX2__)
    return 1;
#else
    return __builtin_cpu_supports("avx2");
#endif
}
#endif

/* Absolute transform of one joint from its parent's (NULL for a root). */
static fk_rigid fk__joint_transform(const fk_rigid *parent, fk_vec3 rest_joint, fk_quat rotation,
                                    const fk_vec3 *translation, int rest_frame)
{
#if defined(FK__SIMD_SSE2)
    __m128 x = fk__load3_sse(&rest_joint), given = _mm_loadu_ps(&rotation.x), q, t;
    __m128i not_normal; /* the caller has checked */
    __m128 factor = fk__half_unit_factors_of_lanes_sse(FK__PERMUTE_SSE(given, 0x00), FK__PERMUTE_SSE(given, 0x55),
                                                       FK__PERMUTE_SSE(given, 0xAA), FK__PERMUTE_SSE(given, 0xFF),
                                                       &not_normal);
    fk_rigid r;
    t = fk__joint_transform_sse(!parent, parent ? _mm_loadu_ps(&parent->q.x) : x, parent ? fk__load3_sse(&parent->t) : x,
                                _mm_mul_ps(given, factor), x,
                                translation ? _mm_add_ps(x, fk__load3_sse(translation)) : x, rest_frame, &q);
    fk__store_rigid_sse(&r, q, t);
    return r;
#else
    fk_quat q = fk_quat_normalize(rotation);
    fk_vec3 pivot = translation ? fk_vec3_add(rest_joint, *translation) : rest_joint;
    fk_rigid r;
    if (!parent) {
        r.q = q;
        r.t = fk_vec3_sub(pivot, fk_quat_rotate(q, rest_joint));
        return r;
    }
    r.q = fk__quat_scale(rest_frame ? fk_quat_mul(q, parent->q) : fk_quat_mul(parent->q, q),
                        fk__renormalization_factor(parent->q));
    r.t = fk_vec3_sub(fk_vec3_add(parent->t, fk_quat_rotate(parent->q, pivot)), fk_quat_rotate(r.q, rest_joint));
    return r;
#endif
}

/* Joints whose parent comes later are resolved by walking up from each joint to
   the nearest finished ancestor (or a root), then computing back down the path.
   The path is remembered in the output array itself: while a joint waits, its
   fk_rigid holds a mark in q.w (|w| <= 1 for any finished transform, so 4 and 8
   cannot be mistaken for one) and the index of the joint below it in t. Each
   joint is visited a bounded number of times: O(n) time, no extra memory, and a
   joint met again on its own path is a cycle. */
#define FK__UNVISITED 4.0f
#define FK__ON_PATH 8.0f

static void fk__set_link(fk_rigid *scratch, int below)
{
    scratch->q.w = FK__ON_PATH;
    memcpy(&scratch->t, &below, sizeof below);
}

static int fk__get_link(const fk_rigid *scratch)
{
    int below;
    memcpy(&below, &scratch->t, sizeof below);
    return below;
}

/* Computes every joint whose transform is marked FK__UNVISITED, in any order;
   the others must hold finished transforms. */
static fk_result fk__forward_marked(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                    const fk_quat *rotations, const fk_vec3 *translations,
                                    fk_rigid *out, int rest_frame)
{
    int i;
    for (i = 0; i < joint_count; ++i) {
        int joint = i, below = -1;
        if (out[i].q.w != FK__UNVISITED) continue;
        for (;;) { /* climb until the parent is finished or there is none */
            int parent = fk__parent_index(parents, joint);
            fk__set_link(&out[joint], below);
            if (parent < 0 || (out[parent].q.w != FK__UNVISITED && out[parent].q.w != FK__ON_PATH)) break;
            if (out[parent].q.w == FK__ON_PATH) return FK_ERROR_CYCLE;
            below = joint;
            joint = parent;
        }
        while (joint >= 0) { /* descend, finishing each joint of the path */
            int parent = fk__parent_index(parents, joint), next = fk__get_link(&out[joint]);
            out[joint] = fk__joint_transform(parent < 0 ? NULL : &out[parent], rest_joints[joint],
                                             rotations[joint], translations ? &translations[joint] : NULL,
                                             rest_frame);
            joint = next;
        }
    }
    return FK_OK;
}

static fk_result fk__forward_any_order(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                       const fk_quat *rotations, const fk_vec3 *translations,
                                       fk_rigid *out, int rest_frame)
{
    int i;
    for (i = 0; i < joint_count; ++i) out[i].q.w = FK__UNVISITED;
    return fk__forward_marked(joint_count, parents, rest_joints, rotations, translations, out, rest_frame);
}

/* The common case in one pass: parents before children, every input valid,
   checked as it is computed. Returns 0 at the first joint whose parent or
   rotation is not so (with SSE2, at the first batch of joints with a rotation
   that cannot be normalized), or after the pass if any position, translation
   or result was not finite, and the general path below starts over, sorting out the order
   or finding the error, so results and error codes are those of the general
   path whichever way it goes. The checks accept exactly what the general path
   accepts, computed without branches: a finite x has x - x == 0 (with SSE2 the
   t - t of every joint are summed, which stays 0 unless one was not, and tested
   once at the end), and a float between FLT_MIN and FLT_MAX has its bits
   between theirs. With SSE2 only the translations t are tested: a coordinate of
   x or of the pivot x + d that is infinite or NaN makes the same coordinate of
   t so, since t is pivot - (x + r) for a root and (t_p + (pivot + r')) - (x + r)
   below it (fk__quat_rotate_sse() adds its rotated part r to the point itself),
   and inf - inf, inf + NaN and the like are never finite. Every helper is
   inlined (flatten) and the loop is compiled once per convention and with and
   without translations: calls and branches would cost more than the arithmetic,
   which is the same source as the general path's. On x86-64 it is compiled
   once more for AVX2 (wide), where a joint's two rotations share a register
   (fk__child_translation_avx2()), and that loop runs where the CPU has AVX2.
   With SSE2 the first FK__FORWARD_NEAR_JOINTS joints also keep their rotation and
   translation in aligned arrays on the stack, from which their children read
   them: whole, aligned 16-byte loads of what was just stored, where out[], 28
   bytes a joint, has the translation in 8 + 4 bytes and some rotations across
   cache lines (3% faster on both 60-joint skeletons). A joint whose parent
   is the joint just before it (most of a skeleton listed depth first) takes
   the parent's transform from the registers instead, without waiting for the
   store to reach the load. And the square root and division that normalize
   each rotation, which take longer than the rest of a joint's chain, run
   ahead of it: FK__FORWARD_BATCH joints' factors at a time, four per
   instruction (fk__half_unit_factors_of()), the loop then multiplying each
   rotation by its own. On an AMD Zen 4 the two took a depth-first humanoid
   from 89 to 142 million joints per second (docs/performance.md). */
#define FK__FORWARD_NEAR_JOINTS 256
#define FK__FORWARD_BATCH 64

#if defined(FK__SIMD_SSE2)
/* fk__half_unit_factors_sse() of count rotations (1 to FK__FORWARD_BATCH) into
   factors, four at a time (the last four repeat the last rotation where count
   is not a multiple of four, and fill lanes beyond it). Returns 0 if one
   cannot be normalized. */
static FK__ALWAYS_INLINE int fk__half_unit_factors_of(const fk_quat *rotations, int count, float *factors)
{
    __m128i not_normal = _mm_setzero_si128(), lanes_not_normal;
    int i, last = count - 1;
    for (i = 0; i + 4 <= count; i += 4) {
        _mm_storeu_ps(factors + i, fk__half_unit_factors_sse(_mm_loadu_ps(&rotations[i].x),
                                                             _mm_loadu_ps(&rotations[i + 1].x),
                                                             _mm_loadu_ps(&rotations[i + 2].x),
                                                             _mm_loadu_ps(&rotations[i + 3].x), &lanes_not_normal));
        not_normal = _mm_or_si128(not_normal, lanes_not_normal);
    }
    if (i < count) {
        __m128 a = _mm_loadu_ps(&rotations[i].x), b = _mm_loadu_ps(&rotations[i + 1 < last ? i + 1 : last].x);
        __m128 c = _mm_loadu_ps(&rotations[i + 2 < last ? i + 2 : last].x);
        _mm_storeu_ps(factors + i, fk__half_unit_factors_sse(a, b, c, c, &lanes_not_normal));
        not_normal = _mm_or_si128(not_normal, lanes_not_normal);
    }
    return _mm_movemask_epi8(not_normal) == 0;
}
#endif

static FK__ALWAYS_INLINE int fk__forward_pass(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                              const fk_quat *rotations, const fk_vec3 *translations,
                                              fk_rigid *out, const int rest_frame, const int translated,
                                              const int wide)
{
    int i;
    (void)wide; /* used only where there is AVX2 */
#if defined(FK__SIMD_SSE2)
    __m128 not_finite = _mm_setzero_ps(); /* sum of t - t: 0 unless a t was not finite */
    __m128 near_q[FK__FORWARD_NEAR_JOINTS], near_t[FK__FORWARD_NEAR_JOINTS]; /* see above */
    float half_unit_factors[FK__FORWARD_BATCH];                             /* see above */
    __m128 q = _mm_setzero_ps(), t = q;
    int batch, end;
    for (batch = 0; batch < joint_count; batch = end) { /* end, not batch + 64: no overflow near INT_MAX */
        end = joint_count - batch < FK__FORWARD_BATCH ? joint_count : batch + FK__FORWARD_BATCH;
        if (!fk__half_unit_factors_of(rotations + batch, end - batch, half_unit_factors)) return 0;
        for (i = batch; i < end; ++i) {
            int parent = parents[i];
            __m128 rotation = _mm_loadu_ps(&rotations[i].x);
            __m128 x = fk__load3_sse(&rest_joints[i]), d = translated ? fk__load3_sse(&translations[i]) : x;
            __m128 parent_q = x, parent_t = x, half_q, pivot;
            if (parent >= i) return 0;
            if (parent == i - 1) { /* the joint just computed (or, for the first, a root: unused) */
                parent_q = q;
                parent_t = t;
            } else if (parent >= 0 && parent < FK__FORWARD_NEAR_JOINTS) {
                parent_q = near_q[parent];
                parent_t = near_t[parent];
            } else if (parent >= 0) {
                parent_q = _mm_loadu_ps(&out[parent].q.x);
                parent_t = fk__load3_sse(&out[parent].t);
            }
            half_q = _mm_mul_ps(rotation, _mm_set1_ps(half_unit_factors[i - batch]));
            pivot = translated ? _mm_add_ps(x, d) : x;
#if defined(FK__SIMD_AVX2)
            if (wide && parent >= 0) {
                q = fk__child_rotation_sse(parent_q, half_q, rest_frame);
                t = fk__child_translation_avx2(parent_q, parent_t, q, pivot, x);
            } else
#endif
            t = fk__joint_transform_sse(parent < 0, parent_q, parent_t, half_q, x, pivot, rest_frame, &q);
            if (i < FK__FORWARD_NEAR_JOINTS) {
                near_q[i] = q;
                near_t[i] = t;
            }
            fk__store_rigid_sse(&out[i], q, t);
            not_finite = _mm_add_ps(not_finite, _mm_sub_ps(t, t)); /* x and d too: see above */
        }
    }
    if (_mm_movemask_ps(_mm_cmpneq_ps(not_finite, _mm_setzero_ps())) & 7) return 0;
#else
    for (i = 0; i < joint_count; ++i) {
        int parent = parents[i];
        fk_vec3 x = rest_joints[i], d = translated ? translations[i] : x;
        float norm2 = fk_quat_dot(rotations[i], rotations[i]);
        float finite = (x.x - x.x) + (x.y - x.y) + (x.z - x.z) + (d.x - d.x) + (d.y - d.y) + (d.z - d.z);
        uint32_t bits;
        memcpy(&bits, &norm2, sizeof bits);
        if ((parent >= i) | (bits - 0x00800000u > 0x7F7FFFFFu - 0x00800000u) | !(finite == 0.0f)) return 0;
        out[i] = fk__joint_transform(parent < 0 ? NULL : &out[parent], x, rotations[i],
                                     translated ? &translations[i] : NULL, rest_frame);
        if (!fk__vec3_is_finite(out[i].t)) return 0; /* overflowed: the general path reports it */
    }
#endif
    return 1;
}

/* The one-pass loop compiled once per convention, with and without
   translations, and in two widths. */
#if defined(__GNUC__) || defined(__clang__)
#define FK__FLATTEN __attribute__((flatten))
#else
#define FK__FLATTEN
#endif
#define FK__FORWARD_SPECIALIZE(name, target, wide) \
    static FK__FLATTEN target int name(int joint_count, const int *parents, const fk_vec3 *rest_joints, \
                                       const fk_quat *rotations, const fk_vec3 *translations, fk_rigid *out, \
                                       int rest_frame) \
    { \
        const int n = joint_count; \
        if (rest_frame) \
            return translations ? fk__forward_pass(n, parents, rest_joints, rotations, translations, out, 1, 1, wide) \
                                : fk__forward_pass(n, parents, rest_joints, rotations, NULL, out, 1, 0, wide); \
        return translations ? fk__forward_pass(n, parents, rest_joints, rotations, translations, out, 0, 1, wide) \
                            : fk__forward_pass(n, parents, rest_joints, rotations, NULL, out, 0, 0, wide); \
    }

FK__FORWARD_SPECIALIZE(fk__forward_parents_first, , 0)
#if defined(FK__SIMD_AVX2)
FK__FORWARD_SPECIALIZE(fk__forward_parents_first_avx2, FK__AVX2_NO_FMA_TARGET, 1)
#endif

/* The one-pass loop the CPU runs best. */
static int fk__forward_one_pass(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                const fk_quat *rotations, const fk_vec3 *translations, fk_rigid *out, int rest_frame)
{
#if defined(FK__SIMD_AVX2)
    if (fk__has_avx2())
        return fk__forward_parents_first_avx2(joint_count, parents, rest_joints, rotations, translations, out,
                                              rest_frame);
#endif
    return fk__forward_parents_first(joint_count, parents, rest_joints, rotations, translations, out, rest_frame);
}

static fk_result fk__forward(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                             const fk_quat *rotations, const fk_vec3 *translations, fk_rigid *out,
                             int rest_frame)
{
    int i, parents_first;
    fk_result result;
    if (joint_count < 0) return FK_ERROR_INVALID_COUNT;
    if (joint_count == 0) return FK_OK;
    if (!parents || !rest_joints || !rotations || !out) return FK_ERROR_NULL_ARGUMENT;
    if (fk__forward_one_pass(joint_count, parents, rest_joints, rotations, translations, out, rest_frame)) {
        result = FK_OK;
    } else {
        result = fk__check_parents(joint_count, parents, &parents_first);
        for (i = 0; i < joint_count && result == FK_OK; ++i) {
            if (!fk__quat_is_normalizable(rotations[i])) result = FK_ERROR_INVALID_ROTATION;
            else if (!fk__vec3_is_finite(rest_joints[i]) || (translations && !fk__vec3_is_finite(translations[i])))
                result = FK_ERROR_NOT_FINITE;
        }
        /* Valid parents-first input never gets here (fk__forward_parents_first()
           took it), but the general path handles it as well as any other order. */
        (void)parents_first;
        if (result == FK_OK) result = fk__forward_any_order(joint_count, parents, rest_joints, rotations,
                                                            translations, out, rest_frame);
        /* Finite inputs can still overflow float on the way down the tree (positions
           near FLT_MAX); an infinite translation must not pass for a pose. */
        for (i = 0; i < joint_count && result == FK_OK; ++i)
            if (!fk__vec3_is_finite(out[i].t)) result = FK_ERROR_NOT_FINITE;
    }
    if (result != FK_OK)
        for (i = 0; i < joint_count; ++i) out[i] = fk_rigid_identity();
    return result;
}

FK_LBS_DEF fk_result fk_forward(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                const fk_quat *rotations, const fk_vec3 *translations, fk_rigid *out)
{
    return fk__forward(joint_count, parents, rest_joints, rotations, translations, out, 0);
}

FK_LBS_DEF fk_result fk_forward_rest_frame(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                           const fk_quat *rotations, const fk_vec3 *translations, fk_rigid *out)
{
    return fk__forward(joint_count, parents, rest_joints, rotations, translations, out, 1);
}

FK_LBS_DEF fk_result fk_validate_skeleton(int joint_count, const int *parents)
{
    /* Without scratch memory, a cycle shows as a walk up from some joint that takes
       more than joint_count steps. Walks from joints already known to reach a root
       could be cut short, but marking them needs memory we do not have; instead
       Floyd's tortoise-and-hare runs from each joint, which is O(n * depth). */
    int i, parents_first;
    fk_result result;
    if (joint_count < 0) return FK_ERROR_INVALID_COUNT;
    if (joint_count == 0) return FK_OK;
    if (!parents) return FK_ERROR_NULL_ARGUMENT;
    result = fk__check_parents(joint_count, parents, &parents_first);
    if (result != FK_OK || parents_first) return result;
    for (i = 0; i < joint_count; ++i) {
        int slow = i, fast = i;
        for (;;) {
            fast = fk__parent_index(parents, fast);
            if (fast < 0) break;
            fast = fk__parent_index(parents, fast);
            if (fast < 0) break;
            slow = fk__parent_index(parents, slow);
            if (slow == fast) return FK_ERROR_CYCLE;
        }
    }
    return FK_OK;
}

FK_LBS_DEF fk_result fk_posed_joints(int joint_count, const fk_vec3 *rest_joints, const fk_rigid *transforms,
                                     fk_vec3 *out)
{
    int i;
    if (joint_count < 0) return FK_ERROR_INVALID_COUNT;
    if (joint_count == 0) return FK_OK;
    if (!rest_joints || !transforms || !out) return FK_ERROR_NULL_ARGUMENT;
    for (i = 0; i < joint_count; ++i) out[i] = fk_rigid_apply(transforms[i], rest_joints[i]);
    return FK_OK;
}

/* ---- Engine data ------------------------------------------------------------------
   An engine skins a vertex v of joint i by S_i = W_i IB_i, the joint's world matrix
   times its inverse bind matrix. Where S_i is a rigid motion C_i times one constant
   linear map P shared by all joints, S_i = C_i P, the rig is this library's: skin
   P v with the rigid C_i. P is read off the polar decomposition S = U H (U a
   rotation, H symmetric): with S_i = C_i P and P = V H, the factor H is the same for
   every joint and pose, so P = H will do (V joins the C_i).

   The rest joint x_i is the point of P-space that sits on joint i's origin:
   x_i = P IB_i^-1 0, so C_i x_i = W_i IB_i IB_i^-1 0 = W_i 0, the animated joint.

   Solving fk_forward()'s equations for its inputs, in the parent-frame convention:
       Q_i = Q_p q_i                         =>  q_i = Q_p^-1 Q_i
       C_i x_i = C_p (x_i + d_i)             =>  d_i = C_p^-1 (C_i x_i) - x_i
   With the rigid bind B_i = (IB_i P^-1)^-1, Q_i = R(W_i) R(B_i)^-1, so q_i =
   R(B_p) R(W_p^-1 W_i) R(B_i)^-1: the animated local rotation seen through the bind
   rotations on either side. It equals the local rotation only when every bind
   rotation is the identity (BVH); glTF and FBX rigs rarely are. d_i is zero while
   the joint keeps its bind offset from its parent. Everything runs in double: these
   matrices come from long float chains, and we should add no rounding of our own. */

static void fk__mat34_to_double(const float m[12], double out[12])
{
    int e;
    for (e = 0; e < 12; ++e) out[e] = (double)m[e];
}

static int fk__mat34_is_finite(const float m[12])
{
    int e;
    for (e = 0; e < 12; ++e)
        if (!fk__is_finite(m[e])) return 0;
    return 1;
}

/* out = a b for affine 3x4 matrices (out may alias a or b). */
static void fk__mat34_mul_double(const double a[12], const double b[12], double out[12])
{
    double r[12];
    int row, col;
    for (row = 0; row < 3; ++row) {
        for (col = 0; col < 4; ++col)
            r[4 * row + col] = a[4 * row] * b[col] + a[4 * row + 1] * b[4 + col] + a[4 * row + 2] * b[8 + col];
        r[4 * row + 3] += a[4 * row + 3];
    }
    memcpy(out, r, sizeof r);
}

/* The linear part (3x3) of an affine 3x4 matrix. */
static void fk__mat34_linear(const double m[12], double out[9])
{
    int row, col;
    for (row = 0; row < 3; ++row)
        for (col = 0; col < 3; ++col) out[3 * row + col] = m[4 * row + col];
}

static double fk__mat3_determinant(const double m[9])
{
    return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
           m[2] * (m[3] * m[7] - m[4] * m[6]);
}

/* Inverse by cofactors; 0 when the matrix is singular or not finite. */
static int fk__mat3_inverse(const double m[9], double out[9])
{
    double det = fk__mat3_determinant(m), r;
    if (!(det != 0.0) || !(det * 0.0 == 0.0)) return 0;
    r = 1.0 / det;
    out[0] = (m[4] * m[8] - m[5] * m[7]) * r; out[1] = (m[2] * m[7] - m[1] * m[8]) * r; out[2] = (m[1] * m[5] - m[2] * m[4]) * r;
    out[3] = (m[5] * m[6] - m[3] * m[8]) * r; out[4] = (m[0] * m[8] - m[2] * m[6]) * r; out[5] = (m[2] * m[3] - m[0] * m[5]) * r;
    out[6] = (m[3] * m[7] - m[4] * m[6]) * r; out[7] = (m[1] * m[6] - m[0] * m[7]) * r; out[8] = (m[0] * m[4] - m[1] * m[3]) * r;
    return 1;
}

static double fk__max_abs(const double *m, int count)
{
    double largest = 0.0;
    int e;
    for (e = 0; e < count; ++e) largest = fabs(m[e]) > largest ? fabs(m[e]) : largest;
    return largest;
}

/* Polar decomposition m = rotation stretch with det(rotation) = +1 and stretch
   symmetric (negative definite for a mirroring m). Newton's iteration U <- (U + U^-T)/2
   converges to the orthogonal factor quadratically from U = m; scaling each step by
   g = sqrt(|U^-1| / |U|) makes large and small scales converge as fast as unit ones.
   Returns 0 for a singular matrix. */
static int fk__polar_decomposition(const double m[9], double rotation[9], double stretch[9])
{
    double u[9], inverse[9];
    int iteration, row, col, k;
    memcpy(u, m, sizeof u);
    for (iteration = 0; iteration < 40; ++iteration) {
        double change = 0.0, g;
        if (!fk__mat3_inverse(u, inverse)) return 0;
        g = sqrt(fk__max_abs(inverse, 9) / fk__max_abs(u, 9));
        for (row = 0; row < 3; ++row)
            for (col = 0; col < 3; ++col) {
                double next = 0.5 * (g * u[3 * row + col] + inverse[3 * col + row] / g);
                change = fabs(next - u[3 * row + col]) > change ? fabs(next - u[3 * row + col]) : change;
                u[3 * row + col] = next;
            }
        if (change < 1e-15) break;
    }
    if (fk__mat3_determinant(u) < 0.0)
        for (k = 0; k < 9; ++k) u[k] = -u[k];
    for (row = 0; row < 3; ++row)
        for (col = 0; col < 3; ++col)
            stretch[3 * row + col] = u[row] * m[col] + u[3 + row] * m[3 + col] + u[6 + row] * m[6 + col];
    for (row = 0; row < 3; ++row) /* symmetric in exact arithmetic; make it so in ours */
        for (col = row + 1; col < 3; ++col)
            stretch[3 * row + col] = stretch[3 * col + row] = 0.5 * (stretch[3 * row + col] + stretch[3 * col + row]);
    memcpy(rotation, u, sizeof u);
    return 1;
}

/* Quaternion of a rotation matrix in double, by the method of fk_quat_from_mat3(). */
static fk_quat fk__quat_from_mat3_double(const double m[9])
{
    double trace = m[0] + m[4] + m[8], x, y, z, w, s, norm;
    if (trace > 0.0) {
        s = 2.0 * sqrt(1.0 + trace);
        x = (m[7] - m[5]) / s; y = (m[2] - m[6]) / s; z = (m[3] - m[1]) / s; w = 0.25 * s;
    } else if (m[0] > m[4] && m[0] > m[8]) {
        s = 2.0 * sqrt(1.0 + m[0] - m[4] - m[8]);
        x = 0.25 * s; y = (m[1] + m[3]) / s; z = (m[2] + m[6]) / s; w = (m[7] - m[5]) / s;
    } else if (m[4] > m[8]) {
        s = 2.0 * sqrt(1.0 + m[4] - m[0] - m[8]);
        x = (m[1] + m[3]) / s; y = 0.25 * s; z = (m[5] + m[7]) / s; w = (m[2] - m[6]) / s;
    } else {
        s = 2.0 * sqrt(1.0 + m[8] - m[0] - m[4]);
        x = (m[2] + m[6]) / s; y = (m[5] + m[7]) / s; z = 0.25 * s; w = (m[3] - m[1]) / s;
    }
    norm = sqrt(x * x + y * y + z * z + w * w);
    return fk_quat_make((float)(x / norm), (float)(y / norm), (float)(z / norm), (float)(w / norm));
}

/* Rotation matrix of a (float) unit quaternion, evaluated in double. */
static void fk__quat_to_mat3_double(fk_quat q, double out[9])
{
    double x = (double)q.x, y = (double)q.y, z = (double)q.z, w = (double)q.w;
    double n = x * x + y * y + z * z + w * w, s = n > 0.0 ? 2.0 / n : 0.0;
    out[0] = 1.0 - s * (y * y + z * z); out[1] = s * (x * y - w * z);       out[2] = s * (x * z + w * y);
    out[3] = s * (x * y + w * z);       out[4] = 1.0 - s * (x * x + z * z); out[5] = s * (y * z - w * x);
    out[6] = s * (x * z - w * y);       out[7] = s * (y * z + w * x);       out[8] = 1.0 - s * (x * x + y * y);
}

/* S = W IB for one joint, in double; 0 when an input is not finite. */
static int fk__skinning_matrix(const float *inverse_bind_matrices, const float *world_matrices, int joint,
                               double out[12])
{
    double world[12], inverse_bind[12];
    const float *w = world_matrices + 12 * (size_t)joint, *b = inverse_bind_matrices + 12 * (size_t)joint;
    if (!fk__mat34_is_finite(w) || !fk__mat34_is_finite(b)) return 0;
    fk__mat34_to_double(w, world);
    fk__mat34_to_double(b, inverse_bind);
    fk__mat34_mul_double(world, inverse_bind, out);
    return 1;
}

FK_LBS_DEF fk_result fk_bind_from_matrices(int joint_count, const float *inverse_bind_matrices,
                                           const float *world_matrices, fk_vec3 *out_rest_joints,
                                           float out_pretransform[12])
{
    double stretch[9], stretch_0[9], scale = 0.0;
    int i, k;
    if (joint_count < 0) return FK_ERROR_INVALID_COUNT;
    if (!out_pretransform || (joint_count > 0 && (!inverse_bind_matrices || !world_matrices || !out_rest_joints)))
        return FK_ERROR_NULL_ARGUMENT;
    for (k = 0; k < 12; ++k) out_pretransform[k] = (k % 5 == 0) ? 1.0f : 0.0f;
    for (i = 0; i < joint_count; ++i) {
        double skinning[12], linear[9], rotation[9];
        if (!fk__skinning_matrix(inverse_bind_matrices, world_matrices, i, skinning)) return FK_ERROR_NOT_FINITE;
        fk__mat34_linear(skinning, linear);
        if (!fk__polar_decomposition(linear, rotation, stretch)) return FK_ERROR_NOT_RIGID;
        if (i == 0) {
            memcpy(stretch_0, stretch, sizeof stretch);
            scale = fk__max_abs(stretch_0, 9);
        }
        for (k = 0; k < 9; ++k)
            if (!(fabs(stretch[k] - stretch_0[k]) <= (double)FK_LBS_RIGID_TOLERANCE * scale)) return FK_ERROR_NOT_RIGID;
    }
    for (i = 0; i < joint_count; ++i) {
        /* x_i = H IB_i^-1 0 = -H A^-1 b for IB_i = [A | b]. */
        double inverse_bind[12], linear[9], inverse[9], origin[3];
        int row;
        fk__mat34_to_double(inverse_bind_matrices + 12 * (size_t)i, inverse_bind);
        fk__mat34_linear(inverse_bind, linear);
        if (!fk__mat3_inverse(linear, inverse)) return FK_ERROR_NOT_RIGID;
        for (row = 0; row < 3; ++row)
            origin[row] = -(inverse[3 * row] * inverse_bind[3] + inverse[3 * row + 1] * inverse_bind[7] +
                            inverse[3 * row + 2] * inverse_bind[11]);
        out_rest_joints[i] = fk_vec3_make(
            (float)(stretch_0[0] * origin[0] + stretch_0[1] * origin[1] + stretch_0[2] * origin[2]),
            (float)(stretch_0[3] * origin[0] + stretch_0[4] * origin[1] + stretch_0[5] * origin[2]),
            (float)(stretch_0[6] * origin[0] + stretch_0[7] * origin[1] + stretch_0[8] * origin[2]));
        /* Computed in double from finite floats, but it may not fit back in one. */
        if (!fk__vec3_is_finite(out_rest_joints[i])) return FK_ERROR_NOT_FINITE;
    }
    if (joint_count > 0) {
        for (k = 0; k < 9; ++k)
            if (!fk__is_finite((float)stretch_0[k])) return FK_ERROR_NOT_FINITE;
        for (k = 0; k < 9; ++k) out_pretransform[4 * (k / 3) + k % 3] = (float)stretch_0[k];
    }
    return FK_OK;
}

/* The rigid motion C = S P^-1 of one joint as the quaternion fk_forward() will use
   and a translation; 0 when S P^-1 is not rigid or an input is not finite. */
static fk_result fk__joint_motion(const float *inverse_bind_matrices, const float *world_matrices,
                                  const double pretransform_inverse[12], int joint, fk_rigid *out)
{
    double skinning[12], motion[12], linear[9];
    int row, col;
    if (!fk__skinning_matrix(inverse_bind_matrices, world_matrices, joint, skinning)) return FK_ERROR_NOT_FINITE;
    fk__mat34_mul_double(skinning, pretransform_inverse, motion);
    fk__mat34_linear(motion, linear);
    for (row = 0; row < 3; ++row) /* C^T C = I, column by column */
        for (col = row; col < 3; ++col) {
            double dot = linear[row] * linear[col] + linear[3 + row] * linear[3 + col] + linear[6 + row] * linear[6 + col];
            if (!(fabs(dot - (row == col ? 1.0 : 0.0)) <= (double)FK_LBS_RIGID_TOLERANCE)) return FK_ERROR_NOT_RIGID;
        }
    if (!(fk__mat3_determinant(linear) > 0.0)) return FK_ERROR_NOT_RIGID;
    out->q = fk__quat_from_mat3_double(linear);
    out->t = fk_vec3_make((float)motion[3], (float)motion[7], (float)motion[11]);
    return FK_OK;
}

FK_LBS_DEF fk_result fk_pose_from_matrices(int joint_count, const int *parents,
                                           const float *inverse_bind_matrices, const float *world_matrices,
                                           const float pretransform[12], const fk_vec3 *rest_joints,
                                           fk_quat *out_rotations, fk_vec3 *out_translations)
{
    double pretransform_linear[9], inverse_linear[9], pretransform_inverse[12];
    int i, row, parents_first;
    fk_result result;
    if (joint_count < 0) return FK_ERROR_INVALID_COUNT;
    if (joint_count == 0) return FK_OK;
    if (!parents || !inverse_bind_matrices || !world_matrices || !pretransform || !rest_joints ||
        !out_rotations || !out_translations)
        return FK_ERROR_NULL_ARGUMENT;
    if ((result = fk__check_parents(joint_count, parents, &parents_first)) != FK_OK) return result;
    if (!fk__mat34_is_finite(pretransform)) return FK_ERROR_NOT_FINITE;
    for (i = 0; i < 9; ++i) pretransform_linear[i] = (double)pretransform[4 * (i / 3) + i % 3];
    if (!fk__mat3_inverse(pretransform_linear, inverse_linear)) return FK_ERROR_NOT_RIGID;
    for (row = 0; row < 3; ++row) { /* P^-1 = [H^-1 | -H^-1 p] */
        pretransform_inverse[4 * row + 0] = inverse_linear[3 * row + 0];
        pretransform_inverse[4 * row + 1] = inverse_linear[3 * row + 1];
        pretransform_inverse[4 * row + 2] = inverse_linear[3 * row + 2];
        pretransform_inverse[4 * row + 3] = -(inverse_linear[3 * row] * (double)pretransform[3] +
                                              inverse_linear[3 * row + 1] * (double)pretransform[7] +
                                              inverse_linear[3 * row + 2] * (double)pretransform[11]);
    }
    for (i = 0; i < joint_count; ++i) {
        fk_rigid motion, parent_motion = fk_rigid_identity();
        double rotation[9], parent_rotation[9], joint[3], x[3], offset[3], d[3];
        int parent = fk__parent_index(parents, i), k;
        if (!fk__vec3_is_finite(rest_joints[i])) return FK_ERROR_NOT_FINITE;
        if ((result = fk__joint_motion(inverse_bind_matrices, world_matrices, pretransform_inverse, i, &motion)) != FK_OK)
            return result;
        if (parent >= 0 &&
            (result = fk__joint_motion(inverse_bind_matrices, world_matrices, pretransform_inverse, parent,
                                       &parent_motion)) != FK_OK)
            return result;
        out_rotations[i] = fk_quat_normalize(fk_quat_mul(fk_quat_conjugate(parent_motion.q), motion.q));
        /* d_i = Q_p^-1 (Q_i x_i + t_i - t_p) - x_i with the very quaternions that
           fk_forward() will multiply, so that it lands on C_i x_i. */
        fk__quat_to_mat3_double(motion.q, rotation);
        fk__quat_to_mat3_double(parent_motion.q, parent_rotation);
        x[0] = (double)rest_joints[i].x; x[1] = (double)rest_joints[i].y; x[2] = (double)rest_joints[i].z;
        for (k = 0; k < 3; ++k)
            joint[k] = rotation[3 * k] * x[0] + rotation[3 * k + 1] * x[1] + rotation[3 * k + 2] * x[2];
        offset[0] = joint[0] + (double)motion.t.x - (double)parent_motion.t.x;
        offset[1] = joint[1] + (double)motion.t.y - (double)parent_motion.t.y;
        offset[2] = joint[2] + (double)motion.t.z - (double)parent_motion.t.z;
        for (k = 0; k < 3; ++k)
            d[k] = parent_rotation[k] * offset[0] + parent_rotation[3 + k] * offset[1] +
                   parent_rotation[6 + k] * offset[2] - x[k];
        out_translations[i] = fk_vec3_make((float)d[0], (float)d[1], (float)d[2]);
        if (!fk__vec3_is_finite(out_translations[i])) return FK_ERROR_NOT_FINITE; /* overflowed float */
    }
    return FK_OK;
}

/* The 4x4 layouts differ only in where element (row, column) is stored. */
static void fk__rigid_to_mat44(fk_rigid r, float out[16], int column_major)
{
    float m[12];
    int row, col;
    fk_rigid_to_mat34(r, m);
    for (row = 0; row < 4; ++row)
        for (col = 0; col < 4; ++col)
            out[column_major ? 4 * col + row : 4 * row + col] =
                row < 3 ? m[4 * row + col] : (col == 3 ? 1.0f : 0.0f);
}

static void fk__mat34_from_mat44(const float m[16], float out[12], int column_major)
{
    int row, col;
    for (row = 0; row < 3; ++row)
        for (col = 0; col < 4; ++col) out[4 * row + col] = m[column_major ? 4 * col + row : 4 * row + col];
}

FK_LBS_DEF void fk_rigid_to_mat44_column_major(fk_rigid r, float out[16]) { fk__rigid_to_mat44(r, out, 1); }
FK_LBS_DEF void fk_rigid_to_mat44_row_major(fk_rigid r, float out[16]) { fk__rigid_to_mat44(r, out, 0); }
FK_LBS_DEF void fk_mat34_from_mat44_column_major(const float m[16], float out[12]) { fk__mat34_from_mat44(m, out, 1); }
FK_LBS_DEF void fk_mat34_from_mat44_row_major(const float m[16], float out[12]) { fk__mat34_from_mat44(m, out, 0); }

FK_LBS_DEF fk_rigid fk_rigid_from_mat44_column_major(const float m[16])
{
    float m34[12];
    fk__mat34_from_mat44(m, m34, 1);
    return fk_rigid_from_mat34(m34);
}

FK_LBS_DEF fk_rigid fk_rigid_from_mat44_row_major(const float m[16])
{
    float m34[12];
    fk__mat34_from_mat44(m, m34, 0);
    return fk_rigid_from_mat34(m34);
}

FK_LBS_DEF void fk_mat34_mul(const float a[12], const float b[12], float out[12])
{
    double da[12], db[12], product[12];
    int e;
    fk__mat34_to_double(a, da);
    fk__mat34_to_double(b, db);
    fk__mat34_mul_double(da, db, product);
    for (e = 0; e < 12; ++e) out[e] = (float)product[e];
}

FK_LBS_DEF fk_result fk_mat34_inverse(const float m[12], float out[12])
{
    double affine[12], linear[9], inverse[9];
    float result[12];
    int row;
    if (!fk__mat34_is_finite(m)) return FK_ERROR_NOT_FINITE;
    fk__mat34_to_double(m, affine);
    fk__mat34_linear(affine, linear);
    if (!fk__mat3_inverse(linear, inverse)) return FK_ERROR_NOT_RIGID;
    for (row = 0; row < 3; ++row) {
        result[4 * row + 0] = (float)inverse[3 * row + 0];
        result[4 * row + 1] = (float)inverse[3 * row + 1];
        result[4 * row + 2] = (float)inverse[3 * row + 2];
        result[4 * row + 3] = (float)-(inverse[3 * row] * affine[3] + inverse[3 * row + 1] * affine[7] +
                                       inverse[3 * row + 2] * affine[11]);
    }
    /* Nonzero in double but too close to singular for float: the inverse overflows. */
    if (!fk__mat34_is_finite(result)) return FK_ERROR_NOT_RIGID;
    memcpy(out, result, sizeof result);
    return FK_OK;
}

FK_LBS_DEF void fk_mat34_from_trs(fk_vec3 translation, fk_quat rotation, fk_vec3 scale, float out[12])
{
    float m[9];
    int row;
    fk_quat_to_mat3(fk_quat_normalize(rotation), m);
    for (row = 0; row < 3; ++row) { /* R S scales the columns of R */
        out[4 * row + 0] = m[3 * row + 0] * scale.x;
        out[4 * row + 1] = m[3 * row + 1] * scale.y;
        out[4 * row + 2] = m[3 * row + 2] * scale.z;
    }
    out[3] = translation.x; out[7] = translation.y; out[11] = translation.z;
}

/* ---- Skinning --------------------------------------------------------------------
   Linear blend skinning averages the bones' transforms, v' = (sum_k w_k M_k) v,
   with M_k = [Q_k | t_k] as 3x4 matrices: blend twelve numbers per influence, then
   apply one matrix. The blended matrix is not a rotation when the bones disagree,
   which is where LBS loses volume (the candy wrapper under a twist).

   Dual quaternion skinning blends the unit dual quaternions instead and normalizes
   the result, which is always a rigid transform. */

/* The descriptor with its defaults resolved. */
typedef struct fk__skin_layout {
    size_t position_stride, normal_stride, joint_stride, weight_stride;
    size_t out_position_stride, out_normal_stride;
    size_t tangent_stride, out_tangent_stride;
    int dense;
} fk__skin_layout;

static fk_result fk__check_stride(size_t *stride, size_t element, size_t alignment, const void *pointer,
                                  int vertex_count)
{
    if (*stride == 0) *stride = element;
    if (*stride < element || *stride % alignment != 0) return FK_ERROR_INVALID_STRIDE;
    if ((size_t)(const char *)pointer % alignment != 0) return FK_ERROR_INVALID_STRIDE;
    if (vertex_count > 1 && *stride > ((size_t)-1) / (size_t)vertex_count) return FK_ERROR_INVALID_STRIDE;
    return FK_OK;
}

/* Checks everything but the joint indices; they are checked as each vertex is read. */
static fk_result fk__check_skin(const fk_skin_desc *d, fk__skin_layout *layout)
{
    fk_result r;
    size_t k;
    int j;
    if (!d) return FK_ERROR_NULL_ARGUMENT;
    if (d->vertex_count < 0 || d->influences < 1 || d->transform_count < 0) return FK_ERROR_INVALID_COUNT;
    if (!d->positions || !d->weights || !d->out_positions || (d->normals && !d->out_normals) ||
        (d->tangents && !d->out_tangents))
        return FK_ERROR_NULL_ARGUMENT;
    if (d->transform_count > 0 && !d->transforms) return FK_ERROR_NULL_ARGUMENT;
    layout->dense = d->joints == NULL;
    if (layout->dense && d->influences != d->transform_count) return FK_ERROR_INVALID_COUNT;
    k = (size_t)d->influences;
    if (k > ((size_t)-1) / sizeof(float)) return FK_ERROR_INVALID_COUNT;
    layout->position_stride = d->position_stride;
    layout->normal_stride = d->normal_stride;
    layout->joint_stride = d->joint_stride;
    layout->weight_stride = d->weight_stride;
    layout->out_position_stride = d->out_position_stride;
    layout->out_normal_stride = d->out_normal_stride;
    layout->tangent_stride = d->tangent_stride;
    layout->out_tangent_stride = d->out_tangent_stride;
    if ((r = fk__check_stride(&layout->position_stride, 3 * sizeof(float), sizeof(float), d->positions, d->vertex_count)) != FK_OK) return r;
    if ((r = fk__check_stride(&layout->out_position_stride, 3 * sizeof(float), sizeof(float), d->out_positions, d->vertex_count)) != FK_OK) return r;
    if ((r = fk__check_stride(&layout->weight_stride, k * sizeof(float), sizeof(float), d->weights, d->vertex_count)) != FK_OK) return r;
    if (!layout->dense &&
        (r = fk__check_stride(&layout->joint_stride, k * sizeof(uint16_t), sizeof(uint16_t), d->joints, d->vertex_count)) != FK_OK) return r;
    if (d->normals) {
        if ((r = fk__check_stride(&layout->normal_stride, 3 * sizeof(float), sizeof(float), d->normals, d->vertex_count)) != FK_OK) return r;
        if ((r = fk__check_stride(&layout->out_normal_stride, 3 * sizeof(float), sizeof(float), d->out_normals, d->vertex_count)) != FK_OK) return r;
    }
    if (d->tangents) {
        if ((r = fk__check_stride(&layout->tangent_stride, 4 * sizeof(float), sizeof(float), d->tangents, d->vertex_count)) != FK_OK) return r;
        if ((r = fk__check_stride(&layout->out_tangent_stride, 4 * sizeof(float), sizeof(float), d->out_tangents, d->vertex_count)) != FK_OK) return r;
    }
    for (j = 0; j < d->transform_count; ++j) {
        if (!fk__quat_is_normalizable(d->transforms[j].q)) return FK_ERROR_INVALID_ROTATION;
        if (!fk__vec3_is_finite(d->transforms[j].t)) return FK_ERROR_NOT_FINITE;
    }
    return FK_OK;
}

FK_LBS_DEF fk_result fk_skin_validate(const fk_skin_desc *desc)
{
    fk__skin_layout layout;
    fk_result result = fk__check_skin(desc, &layout);
    int i, k;
    if (result != FK_OK || layout.dense) return result;
    for (i = 0; i < desc->vertex_count; ++i) {
        const uint16_t *joints = (const uint16_t *)(const void *)((const char *)desc->joints + (size_t)i * layout.joint_stride);
        for (k = 0; k < desc->influences; ++k)
            if ((int)joints[k] >= desc->transform_count) return FK_ERROR_JOINT_OUT_OF_RANGE;
    }
    return FK_OK;
}

/* One vertex's records, found through the strides. */
static const float *fk__float_at(const float *base, size_t stride, int vertex)
{
    return (const float *)(const void *)((const char *)base + (size_t)vertex * stride);
}

static float *fk__out_at(float *base, size_t stride, int vertex)
{
    return (float *)(void *)((char *)base + (size_t)vertex * stride);
}

/* The joint of influence k of a vertex, or -1 when it is out of range. */
static int fk__influence_joint(const fk_skin_desc *d, const fk__skin_layout *layout, int vertex, int k)
{
    const uint16_t *joints;
    if (layout->dense) return k;
    joints = (const uint16_t *)(const void *)((const char *)d->joints + (size_t)vertex * layout->joint_stride);
    return (int)joints[k] < d->transform_count ? (int)joints[k] : -1;
}

static fk_vec3 fk__load3(const float *p) { return fk_vec3_make(p[0], p[1], p[2]); }
static void fk__store3(float *p, fk_vec3 v) { p[0] = v.x; p[1] = v.y; p[2] = v.z; }

/* A tangent's handedness w is data the skinning does not interpret: copied as
   bytes, so that even a NaN's payload or a -0 arrives as it was sent. */
typedef struct fk__tangent {
    fk_vec3 xyz;
    unsigned char w[sizeof(float)];
} fk__tangent;

static fk__tangent fk__load_tangent(const float *p)
{
    fk__tangent t;
    t.xyz = fk__load3(p);
    memcpy(t.w, p + 3, sizeof t.w);
    return t;
}

static void fk__store_tangent(float *p, fk_vec3 xyz, const fk__tangent *rest)
{
    fk__store3(p, xyz);
    memcpy(p + 3, rest->w, sizeof rest->w);
}

/* ---- Skinning: palettes and the reference loops ---------------------------------
   Both skinning functions first convert every bone once (the palette, on the
   stack), then run over the vertices. The reference loops here handle every
   layout; the SIMD loops of the next section take the common case (joint
   indices, a rig that fits the palette) and must give the same answers to a few
   ulps, which tests/test_simd.c checks. */

/* A bone's 3x4 matrix stored by columns, each padded to four floats: the SIMD
   loops blend and apply whole columns, and the zero padding stays zero. */
#define FK__LBS_BONE_FLOATS 16
/* A bone's dual quaternion: real x y z w, then dual x y z w; in the palette each
   is followed by its negation, the same rotation from the other hemisphere,
   which the SIMD loops pick instead of flipping a weight's sign. */
#define FK__DQS_BONE_FLOATS 8
#define FK__DQS_PALETTE_STRIDE 16

/* A bone's rotation made unit exactly as fk_quat_normalize() does it, read
   through a pointer. Passed by value, a quaternion crosses each call in two
   registers that are stored and reloaded as one, a stall per call: built from
   the public functions, a 64-bone palette took 3.5 us, as long as skinning a
   thousand vertices. */
static FK__ALWAYS_INLINE void fk__unit_rotation(const fk_quat *q, float u[4])
{
    float norm2 = q->x * q->x + q->y * q->y + q->z * q->z + q->w * q->w, inverse;
    if (!(norm2 != 0.0f)) { /* as fk_quat_normalize(): zero gives the identity, NaN stays NaN */
        u[0] = u[1] = u[2] = 0.0f;
        u[3] = 1.0f;
        return;
    }
    inverse = 1.0f / sqrtf(norm2);
    u[0] = q->x * inverse; u[1] = q->y * inverse; u[2] = q->z * inverse; u[3] = q->w * inverse;
}

/* fk_rigid_to_mat34() of the normalized bone (fk_quat_to_mat3()'s arithmetic),
   stored by columns. */
static void fk__lbs_bone(const fk_rigid *bone, float out[FK__LBS_BONE_FLOATS])
{
    float q[4], xx, yy, zz, xy, xz, yz, wx, wy, wz;
    fk__unit_rotation(&bone->q, q);
    xx = q[0] * q[0]; yy = q[1] * q[1]; zz = q[2] * q[2];
    xy = q[0] * q[1]; xz = q[0] * q[2]; yz = q[1] * q[2];
    wx = q[3] * q[0]; wy = q[3] * q[1]; wz = q[3] * q[2];
    out[0] = 1.0f - 2.0f * (yy + zz); out[1] = 2.0f * (xy + wz);        out[2] = 2.0f * (xz - wy);        out[3] = 0.0f;
    out[4] = 2.0f * (xy - wz);        out[5] = 1.0f - 2.0f * (xx + zz); out[6] = 2.0f * (yz + wx);        out[7] = 0.0f;
    out[8] = 2.0f * (xz + wy);        out[9] = 2.0f * (yz - wx);        out[10] = 1.0f - 2.0f * (xx + yy); out[11] = 0.0f;
    out[12] = bone->t.x;              out[13] = bone->t.y;              out[14] = bone->t.z;              out[15] = 0.0f;
}

/* fk_rigid_to_dual_quat() of the normalized bone: real part q, dual part
   (t, 0) q / 2 (fk_quat_mul()'s arithmetic, with the zero w kept). */
static void fk__dqs_bone(const fk_rigid *bone, float out[FK__DQS_BONE_FLOATS])
{
    const float tx = bone->t.x, ty = bone->t.y, tz = bone->t.z, tw = 0.0f;
    float q[4];
    fk__unit_rotation(&bone->q, q);
    out[0] = q[0]; out[1] = q[1]; out[2] = q[2]; out[3] = q[3];
    out[4] = ((tw * q[0] + tx * q[3]) + (ty * q[2] - tz * q[1])) * 0.5f;
    out[5] = ((tw * q[1] - tx * q[2]) + (ty * q[3] + tz * q[0])) * 0.5f;
    out[6] = ((tw * q[2] + tx * q[1]) + (tz * q[3] - ty * q[0])) * 0.5f;
    out[7] = ((tw * q[3] - tx * q[0]) + (-ty * q[1] - tz * q[2])) * 0.5f;
}

static void fk__dqs_palette_bone(const fk_rigid *bone, float out[FK__DQS_PALETTE_STRIDE])
{
    int e;
    fk__dqs_bone(bone, out);
    for (e = 0; e < FK__DQS_BONE_FLOATS; ++e) out[FK__DQS_BONE_FLOATS + e] = -out[e];
}

/* The palette lives in a stack array aligned here to a cache line, so that no
   bone straddles two lines and aligned SIMD loads are allowed. */
static float *fk__align64(float *storage)
{
    size_t misalignment = (size_t)(char *)storage % 64;
    return misalignment ? storage + (64 - misalignment) / sizeof(float) : storage;
}

/* Reference LBS over vertices [begin, end). With a NULL palette each bone is
   converted as it is used (rigs larger than FK_LBS_PALETTE_CAPACITY). */
static fk_result fk__lbs_reference(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette,
                                   int begin, int end)
{
    int i, k, e;
    for (i = begin; i < end; ++i) {
        const float *weights = fk__float_at(d->weights, layout->weight_stride, i);
        float blend[FK__LBS_BONE_FLOATS] = {0.0f}, bone[FK__LBS_BONE_FLOATS];
        fk_vec3 p, n;
        fk__tangent tangent = {{0.0f, 0.0f, 0.0f}, {0}};
        for (k = 0; k < d->influences; ++k) {
            const float *m = bone;
            int joint = fk__influence_joint(d, layout, i, k);
            if (joint < 0) return FK_ERROR_JOINT_OUT_OF_RANGE;
            if (palette) m = palette + (size_t)joint * FK__LBS_BONE_FLOATS;
            else fk__lbs_bone(&d->transforms[joint], bone);
            for (e = 0; e < FK__LBS_BONE_FLOATS; ++e) blend[e] += weights[k] * m[e];
        }
        /* Read the whole vertex before writing: the output may be the input. */
        p = fk__load3(fk__float_at(d->positions, layout->position_stride, i));
        n = d->normals ? fk__load3(fk__float_at(d->normals, layout->normal_stride, i)) : p;
        if (d->tangents) tangent = fk__load_tangent(fk__float_at(d->tangents, layout->tangent_stride, i));
        fk__store3(fk__out_at(d->out_positions, layout->out_position_stride, i),
                   fk_vec3_make(blend[0] * p.x + blend[4] * p.y + blend[8] * p.z + blend[12],
                                blend[1] * p.x + blend[5] * p.y + blend[9] * p.z + blend[13],
                                blend[2] * p.x + blend[6] * p.y + blend[10] * p.z + blend[14]));
        if (d->normals) {
            fk_vec3 moved = fk_vec3_make(blend[0] * n.x + blend[4] * n.y + blend[8] * n.z,
                                         blend[1] * n.x + blend[5] * n.y + blend[9] * n.z,
                                         blend[2] * n.x + blend[6] * n.y + blend[10] * n.z);
            fk__store3(fk__out_at(d->out_normals, layout->out_normal_stride, i), fk_vec3_normalize(moved));
        }
        if (d->tangents) {
            fk_vec3 t = tangent.xyz;
            fk_vec3 moved = fk_vec3_make(blend[0] * t.x + blend[4] * t.y + blend[8] * t.z,
                                         blend[1] * t.x + blend[5] * t.y + blend[9] * t.z,
                                         blend[2] * t.x + blend[6] * t.y + blend[10] * t.z);
            fk__store_tangent(fk__out_at(d->out_tangents, layout->out_tangent_stride, i), fk_vec3_normalize(moved),
                              &tangent);
        }
    }
    return FK_OK;
}

/* The influence whose rotation sets the hemisphere: the heaviest, the first of
   equals, so that the order the influences are listed in changes nothing. */
static int fk__heaviest(const float *weights, int influences)
{
    int k, heaviest = 0;
    for (k = 1; k < influences; ++k)
        if (weights[k] > weights[heaviest]) heaviest = k;
    return heaviest;
}

/* Normalizes a blended dual quaternion and moves a point and a normal by it; a
   zero blend (all weights zero) leaves them where they are. Returns the rotation
   it applied (the identity for a zero blend), for tangents to follow. */
static fk_quat fk__dqs_finish(fk_quat real, fk_quat dual, fk_vec3 *p, fk_vec3 *n)
{
    float norm2 = fk_quat_dot(real, real);
    if (!(norm2 >= FLT_MIN && norm2 <= FLT_MAX) && norm2 == norm2) {
        /* Tiny or huge weights square out of float's range, yet the blend's
           direction is all DQS needs: divide by the largest component first. */
        float largest = fk__quat_largest_magnitude(real);
        if (largest > 0.0f && largest <= FLT_MAX) {
            real = fk__quat_divide(real, largest);
            dual = fk__quat_divide(dual, largest);
            norm2 = fk_quat_dot(real, real);
        }
    }
    if (norm2 != 0.0f) { /* NaN weights or positions give NaN, not the rest pose */
        /* Dividing both parts by |real| makes the real part unit. The blended dual
           part is then no longer orthogonal to it, but the translation formula
           reads only the orthogonal component, so no further projection is needed. */
        float inverse = 1.0f / sqrtf(norm2);
        real = fk__quat_scale(real, inverse);
        dual = fk__quat_scale(dual, inverse);
        *p = fk_vec3_add(fk_quat_rotate(real, *p), fk__dual_quat_translation(real, dual));
        *n = fk_quat_rotate(real, *n);
        return real;
    }
    return fk_quat_identity();
}

/* Reference DQS over vertices [begin, end); palette as in fk__lbs_reference(). */
static fk_result fk__dqs_reference(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette,
                                   int begin, int end)
{
    int i, k, pivot_joint;
    for (i = begin; i < end; ++i) {
        const float *weights = fk__float_at(d->weights, layout->weight_stride, i);
        fk_quat real = fk_quat_make(0.0f, 0.0f, 0.0f, 0.0f), dual = real, pivot;
        float bone[FK__DQS_BONE_FLOATS];
        const float *b = bone;
        fk_vec3 p, n;
        fk__tangent tangent = {{0.0f, 0.0f, 0.0f}, {0}};
        for (k = 0; k < d->influences; ++k)
            if (fk__influence_joint(d, layout, i, k) < 0) return FK_ERROR_JOINT_OUT_OF_RANGE;
        pivot_joint = fk__influence_joint(d, layout, i, fk__heaviest(weights, d->influences));
        if (palette) b = palette + (size_t)pivot_joint * FK__DQS_PALETTE_STRIDE;
        else fk__dqs_bone(&d->transforms[pivot_joint], bone);
        pivot = fk_quat_make(b[0], b[1], b[2], b[3]);
        for (k = 0; k < d->influences; ++k) {
            int joint = fk__influence_joint(d, layout, i, k);
            float w;
            if (palette) b = palette + (size_t)joint * FK__DQS_PALETTE_STRIDE;
            else fk__dqs_bone(&d->transforms[joint], bone);
            /* q and -q are one rotation but blend to different results; bringing
               every rotation into the heaviest influence's hemisphere makes the
               blend take the short way and makes it independent of the signs
               given and of the order the influences are listed in. */
            w = fk_quat_dot(pivot, fk_quat_make(b[0], b[1], b[2], b[3])) < 0.0f ? -weights[k] : weights[k];
            real = fk_quat_make(real.x + w * b[0], real.y + w * b[1], real.z + w * b[2], real.w + w * b[3]);
            dual = fk_quat_make(dual.x + w * b[4], dual.y + w * b[5], dual.z + w * b[6], dual.w + w * b[7]);
        }
        p = fk__load3(fk__float_at(d->positions, layout->position_stride, i));
        n = d->normals ? fk__load3(fk__float_at(d->normals, layout->normal_stride, i)) : p;
        if (d->tangents) tangent = fk__load_tangent(fk__float_at(d->tangents, layout->tangent_stride, i));
        real = fk__dqs_finish(real, dual, &p, &n);
        fk__store3(fk__out_at(d->out_positions, layout->out_position_stride, i), p);
        if (d->normals) fk__store3(fk__out_at(d->out_normals, layout->out_normal_stride, i), n);
        if (d->tangents)
            fk__store_tangent(fk__out_at(d->out_tangents, layout->out_tangent_stride, i),
                              fk_vec3_normalize(fk_quat_rotate(real, tangent.xyz)), &tangent);
    }
    return FK_OK;
}

/* ---- Skinning: SIMD loops --------------------------------------------------------
   LBS goes whole columns at a time: a bone's matrix is four padded columns
   [c0 c1 c2 t], the blend sum_k w_k M_k is four multiply-adds of four lanes per
   influence (two of eight with AVX2, one of sixteen with AVX-512), and applying
   it is c0 x + c1 y + c2 z + t (with AVX-512, and with AVX2 on packed arrays,
   the bones' rows instead, four vertices at a time: fk__lbs_avx512_loop,
   fk__lbs_avx2_rows). DQS blends one vertex at a time and finishes eight at a
   time with AVX2 (fk__dqs8_avx2), sixteen with AVX-512 when the arrays are
   packed (fk__dqs16_avx512); on packed arrays both find each group's pivots
   while they finish the group before. Loads stay inside the
   arrays (a 16-byte load of a 12-byte position only where another vertex's
   record follows it; masked loads and stores otherwise); every vertex is read
   before it is written, and only its own outputs are written. So strides,
   alignment and in-place skinning are as for the reference.

   The loops trust their joint indices, which are checked first: by
   fk__skin_blocks(), a block of vertices at a time (eight indices at a time with
   SSE2), or by the AVX-512 and AVX2 loops themselves as they go: AVX-512 LBS
   four vertices at a time, AVX-512 DQS sixteen (packed arrays; it hands other
   layouts and its tail to the AVX2 loop), AVX2 eight (LBS on packed arrays
   four). A separate pass cost
   AVX-512 DQS 8% at a million vertices. A bad index hands the rest to the
   reference loop, which writes the vertices before the bad one and returns the
   error, as documented.

   x86-64 with gcc or clang: the AVX-512 and the AVX2 + FMA loops are compiled for
   their target alone (a function attribute) and chosen at run time by
   __builtin_cpu_supports, so a plain -O2 build runs the widest the machine has
   and the SSE2 loops elsewhere. 64-bit Arm: NEON loops for LBS and DQS.
   Anything else, or FK_LBS_NO_SIMD: the reference loops. */

#if defined(FK__SIMD_SSE2) || defined(FK__SIMD_NEON)

/* Vertices per block whose joint indices are checked before the loop runs:
   small enough that the block's indices are still in L1 when the loop reads them. */
#define FK__SKIN_BLOCK 256

/* One vertex of the SIMD DQS loops done by the reference (fk__dqs_finish()),
   from the blend's lanes: for the norms and magnitudes the folded arithmetic of
   the loops cannot take. */
static void fk__dqs_vertex_lanes(const float real[4], const float dual[4], const void *position, const void *normal,
                                 void *out, void *out_normal)
{
    fk_vec3 p = fk__load3((const float *)position), n = normal ? fk__load3((const float *)normal) : p;
    fk__dqs_finish(fk_quat_make(real[0], real[1], real[2], real[3]), fk_quat_make(dual[0], dual[1], dual[2], dual[3]),
                   &p, &n);
    fk__store3((float *)out, p);
    if (normal) fk__store3((float *)out_normal, n);
}

/* DQS flips an influence whose rotation lies in the other hemisphere from the
   heaviest one's. For rigs of up to this many bones the test is made once per
   pair of bones instead of once per influence: hemisphere[a * FK__DQS_TABLE_BONES
   + b] is where in the palette to read bone b when bone a is the heaviest, the
   bone itself or its negation. Same test, same order of operations as the
   reference, so the same decisions. The same table is also kept one bit per
   pair, for the vector loop that signs sixteen vertices at once: bit b of
   flipped[a] says whether bone b is read negated when bone a is the heaviest.

   Often one row serves every pivot: when the bones can be given signs s_b so
   that bone b is flipped against pivot a exactly when s_a != s_b, the blend
   with any pivot is the blend with bone 0 as pivot, times s_a, and a dual
   quaternion and its negation move a vertex identically (bit for bit: rounding
   is symmetric in sign). Then the loops need not look for the heaviest
   influence. Returns whether that is so. */
#define FK__DQS_TABLE_BONES 64

/* Whether one row of the table serves: flipped against a == (s_a != s_b), with
   s_b = flipped against bone 0, that is, row a is row 0, complemented when bone
   a is flipped against bone 0. */
static int fk__dqs_one_row_serves(const uint64_t *flipped, int bones)
{
    const uint64_t all = bones == FK__DQS_TABLE_BONES ? ~(uint64_t)0 : ((uint64_t)1 << bones) - 1;
    int a;
    for (a = 0; a < bones; ++a)
        if (flipped[a] != (flipped[0] >> a & 1 ? ~flipped[0] & all : flipped[0])) return 0;
    return 1;
}

#if defined(FK__SIMD_SSE2)
static int fk__dqs_hemispheres(const float *palette, int bones, uint16_t *hemisphere, uint64_t *flipped)
{
    /* The rotations' x, y, z, w across, four bones to a register; the bones
       past the last up to a multiple of four are zero, and zero never flips. */
    float across[4][FK__DQS_TABLE_BONES];
    const int padded = (bones + 3) / 4 * 4;
    int a, b, c;
    for (b = 0; b < padded; ++b)
        for (c = 0; c < 4; ++c) across[c][b] = b < bones ? palette[(size_t)(b * FK__DQS_PALETTE_STRIDE + c)] : 0.0f;
    for (a = 0; a < FK__DQS_TABLE_BONES; ++a) flipped[a] = 0; /* rows past the bones are read, never used */
    for (a = 0; a < bones; ++a) {
        const float *qa = palette + (size_t)a * FK__DQS_PALETTE_STRIDE;
        const __m128 x = _mm_set1_ps(qa[0]), y = _mm_set1_ps(qa[1]), z = _mm_set1_ps(qa[2]), w = _mm_set1_ps(qa[3]);
        uint16_t *row = hemisphere + (size_t)a * FK__DQS_TABLE_BONES;
        uint64_t bits = 0; /* flipped[a], in a register: the stores to row may alias it */
        for (b = 0; b < padded; b += 4) {
            /* fk_quat_dot(), in its order of operations */
            __m128 dot = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(x, _mm_loadu_ps(&across[0][b])),
                                                          _mm_mul_ps(y, _mm_loadu_ps(&across[1][b]))),
                                               _mm_mul_ps(z, _mm_loadu_ps(&across[2][b]))),
                                    _mm_mul_ps(w, _mm_loadu_ps(&across[3][b])));
            __m128 negative = _mm_cmplt_ps(dot, _mm_setzero_ps());
            const __m128i lanes = _mm_setr_epi32(0, FK__DQS_PALETTE_STRIDE, 2 * FK__DQS_PALETTE_STRIDE,
                                                 3 * FK__DQS_PALETTE_STRIDE);
            const __m128i flip = _mm_and_si128(_mm_castps_si128(negative), _mm_set1_epi32(FK__DQS_BONE_FLOATS));
            __m128i entry = _mm_add_epi32(_mm_add_epi32(_mm_set1_epi32(b * FK__DQS_PALETTE_STRIDE), lanes), flip);
            _mm_storel_epi64((__m128i *)(void *)(row + b), _mm_packs_epi32(entry, entry));
            bits |= (uint64_t)_mm_movemask_ps(negative) << b;
        }
        flipped[a] = bits;
    }
    return fk__dqs_one_row_serves(flipped, bones);
}
#else
/* The same table on 64-bit Arm, a pair of bones at a time through fk_quat_dot()
   itself: whether the compiler fuses its multiplies and adds (gcc does in its
   GNU modes, on a target with fused multiply-adds), the table then decides as
   the reference does. 4096 dot products for 64 bones; a call builds the table
   only when it has at least half as many influences to skin. */
static int fk__dqs_hemispheres(const float *palette, int bones, uint16_t *hemisphere, uint64_t *flipped)
{
    int a, b;
    for (a = 0; a < FK__DQS_TABLE_BONES; ++a) flipped[a] = 0; /* rows past the bones are read, never used */
    for (a = 0; a < bones; ++a) {
        const float *qa = palette + (size_t)a * FK__DQS_PALETTE_STRIDE;
        const fk_quat pivot = fk_quat_make(qa[0], qa[1], qa[2], qa[3]);
        uint16_t *row = hemisphere + (size_t)a * FK__DQS_TABLE_BONES;
        uint64_t bits = 0;
        for (b = 0; b < bones; ++b) {
            const float *qb = palette + (size_t)b * FK__DQS_PALETTE_STRIDE;
            const int flip = fk_quat_dot(pivot, fk_quat_make(qb[0], qb[1], qb[2], qb[3])) < 0.0f;
            row[b] = (uint16_t)(b * FK__DQS_PALETTE_STRIDE + (flip ? FK__DQS_BONE_FLOATS : 0));
            bits |= (uint64_t)flip << b;
        }
        flipped[a] = bits;
    }
    return fk__dqs_one_row_serves(flipped, bones);
}
#endif

typedef struct fk__skin_run {
    const char *positions, *normals, *joints, *weights;
    char *out_positions, *out_normals;
    size_t position_stride, normal_stride, joint_stride, weight_stride;
    size_t out_position_stride, out_normal_stride;
    int count, influences;
    unsigned joint_limit; /* the largest valid joint index */
    const float *palette;
    const uint16_t *hemisphere; /* DQS: fk__dqs_hemispheres() table, or NULL */
    const uint64_t *flipped;    /* DQS: the same table, one bit per pair, or NULL */
    const float *signed_bones;  /* DQS, when one row of that table serves every pivot: each
                                   bone as that row signs it, FK__DQS_BONE_FLOATS apart; else NULL */
} fk__skin_run;

/* A loop returns how many of the run's vertices it did: all of them, or, for a
   loop that checks joint indices itself, those before the first group of
   vertices with a bad index (which it leaves unwritten). */
typedef int (*fk__skin_loop)(const fk__skin_run *run);

/* The loops work on a copy of their run, advanced as they go: stores through its
   output pointers could alias *run itself, and the compiler would then reload
   every stride after every vertex. */
static FK__ALWAYS_INLINE void fk__skin_advance(fk__skin_run *r, const int normals, size_t vertices)
{
    r->positions += vertices * r->position_stride;
    r->joints += vertices * r->joint_stride;
    r->weights += vertices * r->weight_stride;
    r->out_positions += vertices * r->out_position_stride;
    if (normals) {
        r->normals += vertices * r->normal_stride;
        r->out_normals += vertices * r->out_normal_stride;
    }
}


/* The largest valid joint index: transform_count - 1 (0 when there are none,
   which the callers check first), at most what 16 bits hold. */
static unsigned fk__joint_limit(const fk_skin_desc *d)
{
    return d->transform_count < 1 ? 0u : d->transform_count > 65536 ? 65535u : (unsigned)d->transform_count - 1u;
}

static fk__skin_run fk__skin_run_at(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette,
                                    const uint16_t *hemisphere, const uint64_t *flipped, const float *signed_bones,
                                    int begin, int end)
{
    fk__skin_run run;
    size_t first = (size_t)begin;
    run.positions = (const char *)d->positions + first * layout->position_stride;
    run.normals = d->normals ? (const char *)d->normals + first * layout->normal_stride : NULL;
    run.joints = (const char *)d->joints + first * layout->joint_stride;
    run.weights = (const char *)d->weights + first * layout->weight_stride;
    run.out_positions = (char *)d->out_positions + first * layout->out_position_stride;
    run.out_normals = d->normals ? (char *)d->out_normals + first * layout->out_normal_stride : NULL;
    run.position_stride = layout->position_stride;
    run.normal_stride = layout->normal_stride;
    run.joint_stride = layout->joint_stride;
    run.weight_stride = layout->weight_stride;
    run.out_position_stride = layout->out_position_stride;
    run.out_normal_stride = layout->out_normal_stride;
    run.count = end - begin;
    run.influences = d->influences;
    run.joint_limit = fk__joint_limit(d);
    run.palette = palette;
    run.hemisphere = hemisphere;
    run.flipped = flipped;
    run.signed_bones = signed_bones;
    return run;
}

/* Whether every joint index of vertices [begin, end) is below transform_count. */
static int fk__joints_in_range(const fk_skin_desc *d, const fk__skin_layout *layout, int begin, int end)
{
    size_t k = (size_t)d->influences, i = 0, count, e;
    const char *first = (const char *)d->joints + (size_t)begin * layout->joint_stride;
    unsigned limit;
    int over = 0;
    if (d->transform_count < 1) return 0;
    limit = fk__joint_limit(d);
    if (layout->joint_stride != k * sizeof(uint16_t)) { /* gaps between the lists */
        for (i = (size_t)begin; i < (size_t)end; ++i, first += layout->joint_stride) {
            const uint16_t *joints = (const uint16_t *)(const void *)first;
            for (e = 0; e < k; ++e) over |= joints[e] > limit;
        }
        return !over;
    }
    count = (size_t)(end - begin) * k;
#if defined(FK__SIMD_SSE2)
    {
        /* Saturating subtraction leaves a nonzero lane exactly where index > limit. */
        __m128i bound = _mm_set1_epi16((short)(unsigned short)limit), excess = _mm_setzero_si128();
        for (; i + 8 <= count; i += 8)
            excess = _mm_or_si128(excess, _mm_subs_epu16(_mm_loadu_si128((const __m128i *)(const void *)(first + 2 * i)), bound));
        over = _mm_movemask_epi8(_mm_cmpeq_epi16(excess, _mm_setzero_si128())) != 0xFFFF;
    }
#endif
    for (; i < count; ++i) over |= ((const uint16_t *)(const void *)first)[i] > limit;
    return !over;
}

/* Runs a SIMD loop block by block over the vertices whose indices check out,
   and the reference loop over a block that has a bad index, which it reports. */
static fk_result fk__skin_blocks(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette,
                                 const uint16_t *hemisphere, const uint64_t *flipped, const float *signed_bones,
                                 fk__skin_loop loop,
                                 int loop_checks_joints,
                                 fk_result (*reference)(const fk_skin_desc *, const fk__skin_layout *,
                                                        const float *, int, int))
{
    int begin;
    if (loop_checks_joints) { /* one pass over the indices, not two */
        int done = 0;
        if (d->vertex_count == 0) return FK_OK;
        if (d->transform_count >= 1) {
            fk__skin_run run = fk__skin_run_at(d, layout, palette, hemisphere, flipped, signed_bones, 0, d->vertex_count);
            done = loop(&run);
        }
        return done == d->vertex_count ? FK_OK : reference(d, layout, palette, done, d->vertex_count);
    }
    for (begin = 0; begin < d->vertex_count; begin += FK__SKIN_BLOCK) {
        int end = d->vertex_count - begin > FK__SKIN_BLOCK ? begin + FK__SKIN_BLOCK : d->vertex_count;
        if (fk__joints_in_range(d, layout, begin, end)) {
            fk__skin_run run = fk__skin_run_at(d, layout, palette, hemisphere, flipped, signed_bones, begin, end);
            loop(&run);
        } else {
            fk_result result = reference(d, layout, palette, begin, end);
            if (result != FK_OK) return result;
        }
    }
    return FK_OK;
}

/* Each loop is compiled once per common influence count and with and without
   normals, so the influence loop unrolls and the normal branch disappears.
   Unoptimized builds (debugging, the sanitizer and mutant builds of the tests)
   get one copy with the counts given at run time: the same source and results,
   and the header compiles in a fraction of the time (at -O0 about a third). */
#if !defined(__OPTIMIZE__)
#define FK__SKIN_SPECIALIZE(name, loop) \
    static FK__SIMD_TARGET int name(const fk__skin_run *run) { return loop(run, run->influences, run->normals != NULL); }
#else
#define FK__SKIN_SPECIALIZE(name, loop) \
    static FK__SIMD_TARGET int name(const fk__skin_run *run) \
    { \
        int normals = run->normals != NULL; \
        switch (run->influences <= 8 ? run->influences * 2 + normals : 0) { \
        case 2: return loop(run, 1, 0);  case 3: return loop(run, 1, 1); \
        case 4: return loop(run, 2, 0);  case 5: return loop(run, 2, 1); \
        case 8: return loop(run, 4, 0);  case 9: return loop(run, 4, 1); \
        case 16: return loop(run, 8, 0); case 17: return loop(run, 8, 1); \
        default: return loop(run, run->influences, normals); \
        } \
    }
#endif

#endif /* FK__SIMD_SSE2 || FK__SIMD_NEON */

#if defined(FK__SIMD_SSE2)

/* |v|^2 in every lane, for v whose fourth lane is zero. */
static FK__ALWAYS_INLINE __m128 fk__length2_sse(__m128 v)
{
    __m128 square = _mm_mul_ps(v, v);
    square = _mm_add_ps(square, _mm_shuffle_ps(square, square, _MM_SHUFFLE(1, 0, 3, 2)));
    return _mm_add_ps(square, _mm_shuffle_ps(square, square, _MM_SHUFFLE(2, 3, 0, 1)));
}

/* 1/sqrt of each lane of a positive normal length2: the hardware estimate (12
   bits) and one Newton step, y (3 - x y^2) / 2, which brings it to within a
   few ulps of the reference. */
static FK__ALWAYS_INLINE __m128 fk__inverse_length_sse(__m128 length2)
{
    __m128 y = _mm_rsqrt_ps(length2);
    return _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), y), _mm_sub_ps(_mm_set1_ps(3.0f), _mm_mul_ps(_mm_mul_ps(y, y), length2)));
}

/* v / |v| over lanes x, y, z (the fourth is zero, the palette's padding), by
   fk__inverse_length_sse(). Lengths the estimate cannot take (zero, subnormal,
   overflowing, NaN) are handed to the reference, fk_vec3_normalize(), so the
   rare cases have one implementation. */
static FK__ALWAYS_INLINE __m128 fk__normalize_sse(__m128 v)
{
    __m128 length2 = fk__length2_sse(v);
    if (FK__LIKELY(fk__is_positive_normal_sse(length2))) return _mm_mul_ps(v, fk__inverse_length_sse(length2));
    { /* the rare lengths: exactly what the reference does */
        float lanes[4];
        fk_vec3 unit;
        _mm_storeu_ps(lanes, v);
        unit = fk_vec3_normalize(fk_vec3_make(lanes[0], lanes[1], lanes[2]));
        return _mm_setr_ps(unit.x, unit.y, unit.z, 0.0f);
    }
}

/* a . b in every lane, summed in whatever order is quickest. */
static FK__ALWAYS_INLINE __m128 fk__dot4_all_sse(__m128 a, __m128 b)
{
    __m128 m = _mm_mul_ps(a, b);
    m = _mm_add_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
    return _mm_add_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
}


/* fk__dqs_vertex_lanes() for SSE registers. */
static void fk__dqs_vertex_reference(__m128 real, __m128 dual, const void *position, const void *normal, void *out,
                                     void *out_normal)
{
    float r[4], d[4];
    _mm_storeu_ps(r, real);
    _mm_storeu_ps(d, dual);
    fk__dqs_vertex_lanes(r, d, position, normal, out, out_normal);
}

/* Moves one vertex by a blended dual quaternion (u, w) + eps (d, d_w) without
   normalizing it first. With N = |real|^2, the unit rotation of v is
       v + (2 w (u x v) + 2 u x (u x v)) / N
   and the translation 2 (w d - d_w u + u x d) / N: the formulas of
   fk_quat_rotate() and fk__dual_quat_translation() with the normalization
   folded into one division at the end, off the critical path and without a
   square root. Results agree with the reference to a few ulps. A norm the
   division cannot take (zero, subnormal, infinite, NaN) is handed to the
   reference's fk__dqs_finish(), so the rare cases have one implementation. */
static FK__ALWAYS_INLINE void fk__dqs_vertex_sse(__m128 real, __m128 dual, const void *position, const void *normal,
                                                 void *out, void *out_normal)
{
    __m128 norm2 = fk__dot4_all_sse(real, real), one = _mm_set1_ps(1.0f), inverse = one, w, dual_w, p, n, s, t, finite;
    if (FK__LIKELY(fk__is_positive_normal_sse(norm2))) {
        inverse = _mm_div_ps(one, norm2);
    } else { /* zero, tiny, huge or NaN: exactly what the reference does */
        fk__dqs_vertex_reference(real, dual, position, normal, out, out_normal);
        return;
    }
    w = _mm_shuffle_ps(real, real, _MM_SHUFFLE(3, 3, 3, 3));
    dual_w = _mm_shuffle_ps(dual, dual, _MM_SHUFFLE(3, 3, 3, 3));
    p = fk__load3_sse(position);
    s = fk__cross_sse(real, p);
    s = _mm_add_ps(s, s);
    t = _mm_sub_ps(_mm_mul_ps(dual, w), _mm_mul_ps(real, dual_w));
    t = _mm_add_ps(t, fk__cross_sse(real, dual));
    s = _mm_add_ps(_mm_add_ps(_mm_mul_ps(s, w), fk__cross_sse(real, s)), _mm_add_ps(t, t));
    p = _mm_add_ps(p, _mm_mul_ps(s, inverse));
    finite = _mm_sub_ps(p, p);
    if (normal) {
        n = fk__load3_sse(normal);
        s = fk__cross_sse(real, n);
        s = _mm_add_ps(s, s);
        s = _mm_add_ps(_mm_mul_ps(s, w), fk__cross_sse(real, s));
        n = _mm_add_ps(n, _mm_mul_ps(s, inverse));
        finite = _mm_add_ps(finite, _mm_sub_ps(n, n));
    }
    /* Intermediates reach N |v| and can overflow where the reference's unit
       rotation would not: then the reference does this vertex. */
    if (FK__LIKELY((_mm_movemask_ps(_mm_cmpneq_ps(finite, _mm_setzero_ps())) & 7) == 0)) {
        fk__store3_sse(out, p);
        if (normal) fk__store3_sse(out_normal, n);
        return;
    }
    fk__dqs_vertex_reference(real, dual, position, normal, out, out_normal);
}

/* The heaviest of four weights without a branch (weights are data, and a
   mispredicted branch costs more than the whole search): the maximum in every
   lane, then the first lane that equals it, as fk__heaviest() picks the first of
   equals. A NaN weight may make it pick another influence, or none, read as 0;
   the blend is NaN either way. */
static FK__ALWAYS_INLINE int fk__heaviest4_sse(const float *w)
{
    __m128 v = _mm_loadu_ps(w), m = _mm_max_ps(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 3, 0, 1)));
    m = _mm_max_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
    return "\0\0\1\0\2\0\1\0\3\0\1\0\2\0\1\0"[_mm_movemask_ps(_mm_cmpeq_ps(v, m))]; /* lowest set bit */
}

/* fk__heaviest() for the unrolled loops. */
static FK__ALWAYS_INLINE int fk__heaviest_of(const float *w, const int influences)
{
    int low, high;
    if (influences == 2) return w[1] > w[0];
    if (influences == 4) return fk__heaviest4_sse(w);
    if (influences != 8) return fk__heaviest(w, influences);
    low = fk__heaviest4_sse(w);
    high = 4 + fk__heaviest4_sse(w + 4);
    return low ^ ((low ^ high) & -(w[high] > w[low])); /* high if heavier, without a branch */
}

/* Where to read influence e's bone: from the table when there is one, else by the
   reference's test, the dot product with the heaviest influence's rotation. */
static FK__ALWAYS_INLINE const float *fk__dqs_bone_at(const float *palette, const uint16_t *hemisphere_row,
                                                      __m128 pivot, int joint)
{
    const float *bone = palette + (size_t)joint * FK__DQS_PALETTE_STRIDE;
    if (hemisphere_row) return palette + hemisphere_row[joint];
    return bone + FK__DQS_BONE_FLOATS * (_mm_cvtss_f32(fk__dot4_sse(pivot, _mm_load_ps(bone))) < 0.0f);
}

static FK__ALWAYS_INLINE int fk__dqs_sse_loop(const fk__skin_run *run, const int influences, const int normals)
{
    fk__skin_run r = *run; /* see fk__skin_advance() */
    int i, e;
    for (i = 0; i < r.count; ++i) {
        const uint16_t *joints = (const uint16_t *)(const void *)r.joints;
        const float *weights = (const float *)(const void *)r.weights;
        /* with two influences, the first (see fk__dqs_pivot_avx2()) */
        int pivot_joint = r.signed_bones ? 0 : joints[influences <= 2 ? 0 : fk__heaviest_of(weights, influences)];
        const uint16_t *hemisphere_row = r.hemisphere ? r.hemisphere + (size_t)pivot_joint * FK__DQS_TABLE_BONES : NULL;
        __m128 pivot = _mm_load_ps(r.palette + (size_t)pivot_joint * FK__DQS_PALETTE_STRIDE);
        __m128 real = _mm_setzero_ps(), dual = real;
        FK__UNROLL
        for (e = 0; e < influences; ++e) {
            const float *b = r.signed_bones ? r.signed_bones + (size_t)joints[e] * FK__DQS_BONE_FLOATS
                                            : fk__dqs_bone_at(r.palette, hemisphere_row, pivot, joints[e]);
            __m128 w = _mm_set1_ps(weights[e]);
            real = _mm_add_ps(real, _mm_mul_ps(w, _mm_load_ps(b)));
            dual = _mm_add_ps(dual, _mm_mul_ps(w, _mm_load_ps(b + 4)));
        }
        fk__dqs_vertex_sse(real, dual, r.positions, normals ? r.normals : NULL, r.out_positions, r.out_normals);
        fk__skin_advance(&r, normals, 1);
    }
    return run->count;
}

static FK__ALWAYS_INLINE int fk__lbs_sse_loop(const fk__skin_run *run, const int influences, const int normals)
{
    fk__skin_run r = *run; /* see fk__skin_advance() */
    int i, e;
    for (i = 0; i < r.count; ++i) {
        const uint16_t *joints = (const uint16_t *)(const void *)r.joints;
        const float *weights = (const float *)(const void *)r.weights;
        const float *m = r.palette + (size_t)joints[0] * FK__LBS_BONE_FLOATS;
        __m128 w = _mm_set1_ps(weights[0]);
        __m128 c0 = _mm_mul_ps(w, _mm_load_ps(m)), c1 = _mm_mul_ps(w, _mm_load_ps(m + 4));
        __m128 c2 = _mm_mul_ps(w, _mm_load_ps(m + 8)), t = _mm_mul_ps(w, _mm_load_ps(m + 12));
        __m128 p, n = c0;
        FK__UNROLL
        for (e = 1; e < influences; ++e) {
            m = r.palette + (size_t)joints[e] * FK__LBS_BONE_FLOATS;
            w = _mm_set1_ps(weights[e]);
            c0 = _mm_add_ps(c0, _mm_mul_ps(w, _mm_load_ps(m)));
            c1 = _mm_add_ps(c1, _mm_mul_ps(w, _mm_load_ps(m + 4)));
            c2 = _mm_add_ps(c2, _mm_mul_ps(w, _mm_load_ps(m + 8)));
            t = _mm_add_ps(t, _mm_mul_ps(w, _mm_load_ps(m + 12)));
        }
        {
            const float *v = (const float *)(const void *)r.positions;
            p = _mm_add_ps(_mm_mul_ps(c0, _mm_set1_ps(v[0])), _mm_mul_ps(c1, _mm_set1_ps(v[1])));
            p = _mm_add_ps(_mm_add_ps(p, _mm_mul_ps(c2, _mm_set1_ps(v[2]))), t);
        }
        if (normals) {
            const float *v = (const float *)(const void *)r.normals;
            n = _mm_add_ps(_mm_mul_ps(c0, _mm_set1_ps(v[0])), _mm_mul_ps(c1, _mm_set1_ps(v[1])));
            n = fk__normalize_sse(_mm_add_ps(n, _mm_mul_ps(c2, _mm_set1_ps(v[2]))));
        }
        fk__store3_sse(r.out_positions, p);
        if (normals) fk__store3_sse(r.out_normals, n);
        fk__skin_advance(&r, normals, 1);
    }
    return run->count;
}

#define FK__SIMD_TARGET
FK__SKIN_SPECIALIZE(fk__lbs_sse2, fk__lbs_sse_loop)
FK__SKIN_SPECIALIZE(fk__dqs_sse2, fk__dqs_sse_loop)
#undef FK__SIMD_TARGET

#if defined(FK__SIMD_AVX2)

#define FK__SIMD_TARGET FK__AVX2_TARGET

/* Every AVX2 and AVX-512 skinning loop returns through this, with the upper
   halves of the vector registers cleared (vzeroupper): left in use, they make
   the SSE code after the call, the library's own and the caller's, wait on
   their old contents. Compilers clear them on return by themselves, but gcc
   does not at -O0 (every call returned with them in use), and at -O2 not
   after a call it counts as clearing them when it emitted no vzeroupper before
   it (every LBS call: its tail ends calling fk__tail_results(), compiled for
   SSE). On an AMD Zen 4 a call on 16 vertices took 1.97 us instead of 0.88.
   (Inlining that helper also cleared them, but made DQS 2% slower at a
   million vertices.) tests/test_simd.c asks the processor after every kind of
   call. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__upper_cleared(int vertices_done)
{
    _mm256_zeroupper();
    return vertices_done;
}

/* The last few vertices of a run go through the loops' own steps of `slots`
   (4 or 8) vertices, so that they come out with the bits they would get
   anywhere else in a call (fk__lbs_tail_avx2(), fk__dqs_tail_avx2(),
   fk__lbs_tail_avx512()). The step reads its points from copies: the `lanes`
   vertices' three floats each, the slots past them repeating the last vertex,
   and one float more, which a 16-byte load of the last slot reads. Nothing
   past the run is read, and everything is read before anything is written. */
static void fk__tail_points(const fk__skin_run *r, int lanes, int slots, int normals, float *positions,
                            float *normal_copies)
{
    int v;
    for (v = 0; v < slots; ++v) {
        const size_t from = (size_t)(v < lanes ? v : lanes - 1);
        memcpy(positions + 3 * v, r->positions + from * r->position_stride, 3 * sizeof(float));
        if (normals) memcpy(normal_copies + 3 * v, r->normals + from * r->normal_stride, 3 * sizeof(float));
    }
    positions[3 * slots] = normal_copies[3 * slots] = 0.0f;
}

/* Writes the step's results for the run's last `lanes` vertices, packed in
   `positions` and `normal_results`, to the run's outputs. */
static void fk__tail_results(const fk__skin_run *r, int lanes, int normals, const float *positions,
                             const float *normal_results)
{
    int v;
    for (v = 0; v < lanes; ++v) {
        memcpy(r->out_positions + (size_t)v * r->out_position_stride, positions + 3 * v, 3 * sizeof(float));
        if (normals) memcpy(r->out_normals + (size_t)v * r->out_normal_stride, normal_results + 3 * v, 3 * sizeof(float));
    }
}

/* Asks for the vertices FK__PREFETCH_VERTICES ahead, input and output: the
   loops are compute-bound and the hardware prefetchers alone let them wait on
   the streams. For the output, a store to a line that is not in the cache
   waits for the line to be read and owned, and the waiting stores fill the
   store buffer, which stalls the loop; a line asked for ahead arrives in time,
   exclusive when no other core holds it, so the store needs no further
   request (prefetchw, the prefetch for writing, measured the same). At a
   million vertices in a harness, alternating runs:
   - AVX-512 LBS: the input, about 10%; then the output, 2.64 to 2.40 ms
     (with normals 4.39 to 4.13).
   - AVX-512 DQS: the output, 2 to 4%; then the input, 3.93 to 3.65 ms with
     bones every way, 4.93 to 4.41 with normals, 3.26 to 2.89 in one
     hemisphere.
   - The AVX2 loops (built with FK_LBS_NO_AVX512), both: LBS 3.29 to 3.04 ms,
     with normals 5.95 to 5.11; DQS with bones every way 6.43 to 5.90.
   Prefetches do not fault, so asking past the end of an array is harmless;
   the addresses are computed as integers, because a pointer past the end of
   an array is undefined in C even if nothing reads through it. */
#define FK__PREFETCH_VERTICES 128

/* The lines of four vertices of one array from vertex `first` on,
   FK__PREFETCH_VERTICES ahead: one line for packed positions, normals, indices
   and up to four weights, two for eight weights, three for 48-byte records. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__prefetch(const char *base, size_t stride, size_t first)
{
    uintptr_t at = (uintptr_t)base + (FK__PREFETCH_VERTICES + first) * stride;
    _mm_prefetch((const char *)at, _MM_HINT_T0);
    if (stride > 16) _mm_prefetch((const char *)(at + 64), _MM_HINT_T0);
    if (stride > 32) _mm_prefetch((const char *)(at + 128), _MM_HINT_T0);
    if (stride > 48) _mm_prefetch((const char *)(at + 192), _MM_HINT_T0);
}

/* Whether an array lies in the records of another (an interleaved vertex
   buffer): its lines are then the other's, and asking for them again only
   takes load slots. */
static FK__ALWAYS_INLINE int fk__inside(const char *array, size_t stride, const char *records, size_t record_stride)
{
    return stride == record_stride && (uintptr_t)array - (uintptr_t)records < record_stride;
}

/* Which arrays besides the positions fk__prefetch_ahead() asks for: those not
   inside another's records, and the output positions unless they are streamed
   (fk__lbs16_avx512()). Decided once per run; packed arrays take
   FK__PREFETCH_ALL, a constant, so that the tests fold away. */
enum { FK__PREFETCH_JOINTS = 1, FK__PREFETCH_WEIGHTS = 2, FK__PREFETCH_NORMALS = 4, FK__PREFETCH_OUT_NORMALS = 8,
       FK__PREFETCH_OUT_POSITIONS = 16, FK__PREFETCH_ALL = 31 };

static FK__ALWAYS_INLINE int fk__prefetch_plan(const fk__skin_run *r)
{
    int plan = FK__PREFETCH_OUT_POSITIONS;
    if (!fk__inside(r->joints, r->joint_stride, r->positions, r->position_stride)) plan |= FK__PREFETCH_JOINTS;
    if (!fk__inside(r->weights, r->weight_stride, r->positions, r->position_stride)) plan |= FK__PREFETCH_WEIGHTS;
    if (r->normals && !fk__inside(r->normals, r->normal_stride, r->positions, r->position_stride))
        plan |= FK__PREFETCH_NORMALS;
    if (r->out_normals && !fk__inside(r->out_normals, r->out_normal_stride, r->out_positions, r->out_position_stride))
        plan |= FK__PREFETCH_OUT_NORMALS;
    return plan;
}

/* What the four vertices from `first` on, FK__PREFETCH_VERTICES ahead, read and
   write, each line once. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__prefetch_ahead(const fk__skin_run *r, const int plan,
                                                                 const int normals, size_t first)
{
    fk__prefetch(r->positions, r->position_stride, first);
    if (plan & FK__PREFETCH_JOINTS) fk__prefetch(r->joints, r->joint_stride, first);
    if (plan & FK__PREFETCH_WEIGHTS) fk__prefetch(r->weights, r->weight_stride, first);
    if (normals && (plan & FK__PREFETCH_NORMALS)) fk__prefetch(r->normals, r->normal_stride, first);
    if (plan & FK__PREFETCH_OUT_POSITIONS) fk__prefetch(r->out_positions, r->out_position_stride, first);
    if (normals && (plan & FK__PREFETCH_OUT_NORMALS)) fk__prefetch(r->out_normals, r->out_normal_stride, first);
}

/* Weight e of a vertex in all eight lanes: with k a multiple of four, one
   16-byte load into both halves serves four influences, each picked out by a
   shuffle within the halves (as fk__weight_avx512() does: on an AMD Zen 4 the
   AVX2 LBS loop took 5% less time with k = 4, 8% with k = 8 and 7% with
   normals, and 1% more on interleaved records); otherwise a broadcast load
   each.
   `four` holds weights 0 to 3 when called for e = 0 and keeps the last four
   between calls, for e going up. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE __m256 fk__weight_avx2(const float *weights, int e, const int influences,
                                                               __m256 *four)
{
    if (influences % 4 != 0) return _mm256_broadcast_ss(&weights[e]);
    if (e % 4 == 0 && e > 0) *four = _mm256_broadcast_ps((const __m128 *)(const void *)(weights + e));
    return e % 4 == 0 ? _mm256_permute_ps(*four, _MM_SHUFFLE(0, 0, 0, 0))
         : e % 4 == 1 ? _mm256_permute_ps(*four, _MM_SHUFFLE(1, 1, 1, 1))
         : e % 4 == 2 ? _mm256_permute_ps(*four, _MM_SHUFFLE(2, 2, 2, 2))
                      : _mm256_permute_ps(*four, _MM_SHUFFLE(3, 3, 3, 3));
}

/* fk__heaviest_of() for eight weights in one register: the maximum in every
   lane, then the first lane that equals it (the lowest set bit; none, for NaN
   weights, reads as 0). The SSE version's compare-and-select between two halves
   was compiled to a branch that mispredicts on real weights: DQS with k = 8
   took twice as long. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__heaviest_avx2(const float *w, const int influences)
{
    __m256 v, m;
    if (influences != 8) return fk__heaviest_of(w, influences);
    v = _mm256_loadu_ps(w);
    m = _mm256_max_ps(v, _mm256_permute2f128_ps(v, v, 1));
    m = _mm256_max_ps(m, _mm256_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
    m = _mm256_max_ps(m, _mm256_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
    return __builtin_ctz((unsigned)_mm256_movemask_ps(_mm256_cmp_ps(v, m, _CMP_EQ_OQ)) | 0x100u) & 7;
}

/* The joint whose rotation picks the hemisphere of a vertex's influences: the
   heaviest influence's, or bone 0's when one row of the table serves every
   pivot (see fk__dqs_hemispheres()). With two influences the first is taken,
   whatever the weights: each influence is its own hemisphere's, and the other
   is flipped against either exactly when their dot product (the same both
   ways) is negative, so the blends with the two pivots are each other's
   negation, bit for bit, which moves a vertex identically. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__dqs_pivot_avx2(int one_row, const char *joint, const char *weight,
                                                               const int influences)
{
    const uint16_t *joints = (const uint16_t *)(const void *)joint;
    if (one_row) return 0;
    return joints[influences <= 2 ? 0 : fk__heaviest_avx2((const float *)(const void *)weight, influences)];
}

/* Where the DQS loops read an influence's bone: the pre-signed bones, the
   palette through the hemisphere table, or the palette with a dot product
   against the pivot (see fk__skin_run). Given as a constant, the test per
   vertex disappears; the AVX-512 loop is compiled that way for the pre-signed
   bones, the common case. */
#define FK__DQS_SIGNED 0
#define FK__DQS_TABLE 1
#define FK__DQS_DOT 2

static int fk__dqs_source(const fk__skin_run *r)
{
    return r->signed_bones ? FK__DQS_SIGNED : r->hemisphere ? FK__DQS_TABLE : FK__DQS_DOT;
}

/* The 16-bit number e of an array of them (joint indices, palette offsets),
   read four at a time when the count is a multiple of four: one 64-bit load
   and a shift instead of a load each. A DQS blend is bound by its loads (the
   index, the weight, the bone, per influence), and this made DQS with four
   influences 5 to 9% faster at 1M vertices, with the pre-signed bones and
   through the table (a harness, alternating runs). `word` keeps the last four
   between calls, for e going up from 0. The LBS loops measured the same
   either way with gcc (the AVX-512 one 1% faster on an AMD Zen 4), and with
   clang the AVX-512 one took 46% longer: they read one index at a time. */
static FK__ALWAYS_INLINE size_t fk__u16_at(const uint16_t *values, int e, const int count, uint64_t *word)
{
    if (count % 4 != 0) return values[e];
    if (e % 4 == 0) memcpy(word, values + e, sizeof *word);
    return (uint16_t)(*word >> (16 * (e % 4)));
}

/* Real and dual part of a bone share one register: one fused multiply-add per
   influence. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE __m256 fk__dqs_blend_avx2(const fk__skin_run *r, const int source,
                                                                  int pivot_joint, const char *joint,
                                                                  const char *weight, const int influences)
{
    const uint16_t *joints = (const uint16_t *)(const void *)joint, *hemisphere = r->hemisphere;
    const float *weights = (const float *)(const void *)weight, *palette = r->palette;
    uint64_t word = 0;
    int e;
    __m256 blend = _mm256_setzero_ps();
    if (source == FK__DQS_SIGNED) {
        FK__UNROLL
        for (e = 0; e < influences; ++e)
            blend = _mm256_fmadd_ps(
                _mm256_broadcast_ss(&weights[e]),
                _mm256_load_ps(r->signed_bones + fk__u16_at(joints, e, influences, &word) * FK__DQS_BONE_FLOATS), blend);
    } else if (source == FK__DQS_TABLE) {
        /* With one or two influences the first is the pivot, which its own row
           never flips: its bone is read without the table, one dependent load
           fewer (k = 2 at 1M vertices, a harness: 6% less time with AVX-512,
           3% with AVX2 alone). */
        /* With four or eight influences the weights are read four to a load
           and picked out by shuffles, as LBS reads them (fk__weight_avx2()):
           with bones every way, k = 4, 4.18 to 3.89 ms at 1M vertices with
           AVX-512 compiled out, k = 8 4% less, with normals 2%, on 48-byte
           records 4% (a harness, three alternating rounds). The pre-signed
           bones' loop measured 2% slower that way, and keeps its broadcasts. */
        const uint16_t *hemisphere_row = hemisphere + (size_t)pivot_joint * FK__DQS_TABLE_BONES;
        __m256 weights4 = influences % 4 == 0 ? _mm256_broadcast_ps((const __m128 *)(const void *)weights)
                                              : _mm256_setzero_ps();
        FK__UNROLL
        for (e = 0; e < influences; ++e) {
            size_t offset = influences <= 2 && e == 0 ? (size_t)joints[0] * FK__DQS_PALETTE_STRIDE
                                                      : hemisphere_row[fk__u16_at(joints, e, influences, &word)];
            blend = _mm256_fmadd_ps(fk__weight_avx2(weights, e, influences, &weights4),
                                    _mm256_load_ps(palette + offset), blend);
        }
    } else {
        __m128 pivot = _mm_load_ps(palette + (size_t)pivot_joint * FK__DQS_PALETTE_STRIDE);
        FK__UNROLL
        for (e = 0; e < influences; ++e)
            blend = _mm256_fmadd_ps(_mm256_broadcast_ss(&weights[e]),
                                    _mm256_load_ps(fk__dqs_bone_at(palette, NULL, pivot, joints[e])), blend);
    }
    return blend;
}

/* Four registers of four lanes a, b, c, d (each half of an eight-lane register
   on its own) become the registers of their first three lanes across:
   a0 b0 c0 d0, a1 b1 c1 d1, a2 b2 c2 d2. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__transpose4x3_avx2(__m256 a, __m256 b, __m256 c, __m256 d, __m256 *x,
                                                                  __m256 *y, __m256 *z)
{
    __m256 ab_low = _mm256_unpacklo_ps(a, b), ab_high = _mm256_unpackhi_ps(a, b);
    __m256 cd_low = _mm256_unpacklo_ps(c, d), cd_high = _mm256_unpackhi_ps(c, d);
    *x = _mm256_shuffle_ps(ab_low, cd_low, _MM_SHUFFLE(1, 0, 1, 0));
    *y = _mm256_shuffle_ps(ab_low, cd_low, _MM_SHUFFLE(3, 2, 3, 2));
    *z = _mm256_shuffle_ps(ab_high, cd_high, _MM_SHUFFLE(1, 0, 1, 0));
}

/* Eight vertices' x, y, z, one register each, lane v for vertex v. The first seven
   are read 16 bytes at a time: the fourth float is the next record's, which exists. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__load8x3_avx2(const char *p, size_t stride, __m256 *x, __m256 *y,
                                                               __m256 *z)
{
    __m256 v04 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps((const float *)(const void *)p)),
                                      _mm_loadu_ps((const float *)(const void *)(p + 4 * stride)), 1);
    __m256 v15 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps((const float *)(const void *)(p + stride))),
                                      _mm_loadu_ps((const float *)(const void *)(p + 5 * stride)), 1);
    __m256 v26 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps((const float *)(const void *)(p + 2 * stride))),
                                      _mm_loadu_ps((const float *)(const void *)(p + 6 * stride)), 1);
    __m256 v37 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps((const float *)(const void *)(p + 3 * stride))),
                                      fk__load3_sse(p + 7 * stride), 1);
    fk__transpose4x3_avx2(v04, v15, v26, v37, x, y, z);
}

static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__store8x3_avx2(char *p, size_t stride, __m256 x, __m256 y, __m256 z)
{
    __m256 v04, v15, v26, v37;
    if (stride == 3 * sizeof(float)) {
        /* Packed: 96 bytes in three stores. Register j holds floats 8j to 8j + 7,
           each taken from vertex `pick` of x, y or z in turn. */
        const __m256i pick0 = _mm256_setr_epi32(0, 0, 0, 1, 1, 1, 2, 2), pick1 = _mm256_setr_epi32(2, 3, 3, 3, 4, 4, 4, 5),
                      pick2 = _mm256_setr_epi32(5, 5, 6, 6, 6, 7, 7, 7);
        /* lanes of y then z in register 0: 1 4 7, 2 5; register 1: 2 5, 0 3 6; register 2: 0 3 6, 1 4 7 */
        _mm256_storeu_ps((float *)(void *)p,
                         _mm256_blend_ps(_mm256_blend_ps(_mm256_permutevar8x32_ps(x, pick0),
                                                         _mm256_permutevar8x32_ps(y, pick0), 0x92),
                                         _mm256_permutevar8x32_ps(z, pick0), 0x24));
        _mm256_storeu_ps((float *)(void *)(p + 32),
                         _mm256_blend_ps(_mm256_blend_ps(_mm256_permutevar8x32_ps(x, pick1),
                                                         _mm256_permutevar8x32_ps(y, pick1), 0x24),
                                         _mm256_permutevar8x32_ps(z, pick1), 0x49));
        _mm256_storeu_ps((float *)(void *)(p + 64),
                         _mm256_blend_ps(_mm256_blend_ps(_mm256_permutevar8x32_ps(x, pick2),
                                                         _mm256_permutevar8x32_ps(y, pick2), 0x49),
                                         _mm256_permutevar8x32_ps(z, pick2), 0x92));
        return;
    }
    fk__transpose4x3_avx2(x, y, z, _mm256_setzero_ps(), &v04, &v15, &v26);
    v37 = _mm256_shuffle_ps(_mm256_unpackhi_ps(x, y), _mm256_unpackhi_ps(z, z), _MM_SHUFFLE(3, 2, 3, 2));
    fk__store3_sse(p, _mm256_castps256_ps128(v04));
    fk__store3_sse(p + stride, _mm256_castps256_ps128(v15));
    fk__store3_sse(p + 2 * stride, _mm256_castps256_ps128(v26));
    fk__store3_sse(p + 3 * stride, _mm256_castps256_ps128(v37));
    fk__store3_sse(p + 4 * stride, _mm256_extractf128_ps(v04, 1));
    fk__store3_sse(p + 5 * stride, _mm256_extractf128_ps(v15, 1));
    fk__store3_sse(p + 6 * stride, _mm256_extractf128_ps(v26, 1));
    fk__store3_sse(p + 7 * stride, _mm256_extractf128_ps(v37, 1));
}


/* All ones in the lanes of v that are finite (v - v is NaN for NaN and infinities). */
static FK__AVX2_TARGET FK__ALWAYS_INLINE __m256 fk__finite_mask_avx2(__m256 v)
{
    return _mm256_cmp_ps(_mm256_sub_ps(v, v), _mm256_setzero_ps(), _CMP_EQ_OQ);
}

/* DQS for eight vertices at once, each lane a vertex: the blends are transposed
   so that the rotation, translation and division of fk__dqs_vertex_sse() are
   plain arithmetic, without shuffles. Returns 0, having written nothing, when a
   blend's norm needs the careful path. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__dqs8_avx2(const __m256 blend[8], const char *position,
                                                          size_t position_stride, const char *normal,
                                                          size_t normal_stride, char *out, size_t out_stride,
                                                          char *out_normal, size_t out_normal_stride)
{
    __m256 rx, ry, rz, rw, dx, dy, dz, dw, norm2, inverse, px, py, pz, sx, sy, sz, tx, ty, tz, two = _mm256_set1_ps(2.0f);
    __m256 nx = _mm256_setzero_ps(), ny = nx, nz = nx, finite;
    __m256 low0 = _mm256_permute2f128_ps(blend[0], blend[4], 0x20), high0 = _mm256_permute2f128_ps(blend[0], blend[4], 0x31);
    __m256 low1 = _mm256_permute2f128_ps(blend[1], blend[5], 0x20), high1 = _mm256_permute2f128_ps(blend[1], blend[5], 0x31);
    __m256 low2 = _mm256_permute2f128_ps(blend[2], blend[6], 0x20), high2 = _mm256_permute2f128_ps(blend[2], blend[6], 0x31);
    __m256 low3 = _mm256_permute2f128_ps(blend[3], blend[7], 0x20), high3 = _mm256_permute2f128_ps(blend[3], blend[7], 0x31);
    fk__transpose4x3_avx2(low0, low1, low2, low3, &rx, &ry, &rz);
    rw = _mm256_shuffle_ps(_mm256_unpackhi_ps(low0, low1), _mm256_unpackhi_ps(low2, low3), _MM_SHUFFLE(3, 2, 3, 2));
    fk__transpose4x3_avx2(high0, high1, high2, high3, &dx, &dy, &dz);
    dw = _mm256_shuffle_ps(_mm256_unpackhi_ps(high0, high1), _mm256_unpackhi_ps(high2, high3), _MM_SHUFFLE(3, 2, 3, 2));
    norm2 = _mm256_fmadd_ps(rw, rw, _mm256_fmadd_ps(rz, rz, _mm256_fmadd_ps(ry, ry, _mm256_mul_ps(rx, rx))));
    if (_mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(norm2, _mm256_set1_ps(FLT_MIN), _CMP_GE_OQ),
                                         _mm256_cmp_ps(norm2, _mm256_set1_ps(FLT_MAX), _CMP_LE_OQ))) != 0xFF)
        return 0;
    inverse = _mm256_div_ps(_mm256_set1_ps(1.0f), norm2);
    /* translation t = w d - d_w u + u x d */
    tx = _mm256_add_ps(_mm256_fmsub_ps(dx, rw, _mm256_mul_ps(rx, dw)), _mm256_fmsub_ps(ry, dz, _mm256_mul_ps(rz, dy)));
    ty = _mm256_add_ps(_mm256_fmsub_ps(dy, rw, _mm256_mul_ps(ry, dw)), _mm256_fmsub_ps(rz, dx, _mm256_mul_ps(rx, dz)));
    tz = _mm256_add_ps(_mm256_fmsub_ps(dz, rw, _mm256_mul_ps(rz, dw)), _mm256_fmsub_ps(rx, dy, _mm256_mul_ps(ry, dx)));
    fk__load8x3_avx2(position, position_stride, &px, &py, &pz);
    /* s = 2 u x p; the point moves by (w s + u x s + 2 t) / N */
    sx = _mm256_mul_ps(two, _mm256_fmsub_ps(ry, pz, _mm256_mul_ps(rz, py)));
    sy = _mm256_mul_ps(two, _mm256_fmsub_ps(rz, px, _mm256_mul_ps(rx, pz)));
    sz = _mm256_mul_ps(two, _mm256_fmsub_ps(rx, py, _mm256_mul_ps(ry, px)));
    tx = _mm256_fmadd_ps(two, tx, _mm256_fmadd_ps(sx, rw, _mm256_fmsub_ps(ry, sz, _mm256_mul_ps(rz, sy))));
    ty = _mm256_fmadd_ps(two, ty, _mm256_fmadd_ps(sy, rw, _mm256_fmsub_ps(rz, sx, _mm256_mul_ps(rx, sz))));
    tz = _mm256_fmadd_ps(two, tz, _mm256_fmadd_ps(sz, rw, _mm256_fmsub_ps(rx, sy, _mm256_mul_ps(ry, sx))));
    px = _mm256_fmadd_ps(tx, inverse, px);
    py = _mm256_fmadd_ps(ty, inverse, py);
    pz = _mm256_fmadd_ps(tz, inverse, pz);
    /* Folding the normalization into one division lets intermediates reach N |v|,
       which can overflow where the reference's unit rotation would not: any
       non-finite result declines the eight vertices, before anything is
       stored, and fk__dqs_declined_avx2() sends that vertex to the reference. */
    finite = _mm256_and_ps(_mm256_and_ps(fk__finite_mask_avx2(px), fk__finite_mask_avx2(py)), fk__finite_mask_avx2(pz));
    if (normal) {
        fk__load8x3_avx2(normal, normal_stride, &nx, &ny, &nz);
        sx = _mm256_mul_ps(two, _mm256_fmsub_ps(ry, nz, _mm256_mul_ps(rz, ny)));
        sy = _mm256_mul_ps(two, _mm256_fmsub_ps(rz, nx, _mm256_mul_ps(rx, nz)));
        sz = _mm256_mul_ps(two, _mm256_fmsub_ps(rx, ny, _mm256_mul_ps(ry, nx)));
        nx = _mm256_fmadd_ps(_mm256_fmadd_ps(sx, rw, _mm256_fmsub_ps(ry, sz, _mm256_mul_ps(rz, sy))), inverse, nx);
        ny = _mm256_fmadd_ps(_mm256_fmadd_ps(sy, rw, _mm256_fmsub_ps(rz, sx, _mm256_mul_ps(rx, sz))), inverse, ny);
        nz = _mm256_fmadd_ps(_mm256_fmadd_ps(sz, rw, _mm256_fmsub_ps(rx, sy, _mm256_mul_ps(ry, sx))), inverse, nz);
        finite = _mm256_and_ps(finite, _mm256_and_ps(_mm256_and_ps(fk__finite_mask_avx2(nx), fk__finite_mask_avx2(ny)),
                                                     fk__finite_mask_avx2(nz)));
    }
    if (_mm256_movemask_ps(finite) != 0xFF) return 0;
    if (normal) fk__store8x3_avx2(out_normal, out_normal_stride, nx, ny, nz);
    fk__store8x3_avx2(out, out_stride, px, py, pz);
    return 1;
}

/* The pivots of the run's eight vertices from `first` on, one by one (see
   fk__dqs_pivot_avx2()). */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__dqs_pivots8_avx2(const fk__skin_run *r, const int source,
                                                                  size_t first, const int influences, int pivot[8])
{
    int v;
    FK__UNROLL
    for (v = 0; v < 8; ++v)
        pivot[v] = fk__dqs_pivot_avx2(source == FK__DQS_SIGNED, r->joints + (first + (size_t)v) * r->joint_stride,
                                      r->weights + (first + (size_t)v) * r->weight_stride, influences);
}

/* The blends of the run's first eight vertices, given their pivots. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__dqs_blends8_avx2(const fk__skin_run *r, const int source,
                                                                  const int pivot[8], const int influences,
                                                                  __m256 blend[8])
{
    int v;
    /* Unrolled, the eight blends stay in registers: with four influences 19%
       less time on packed arrays and 10% on interleaved records, none with
       normals; with two 11% less on packed arrays (2.94 to 2.62 ms at 1M, with
       normals 4.49 to 4.25), with one 6% (a harness, AVX-512 compiled out).
       Unrolled for every count, the header took a quarter longer to compile;
       up to four influences, 4% (gcc -O2, 12.5 to 13.2 s). */
    if (influences <= 4) {
        FK__UNROLL
        for (v = 0; v < 8; ++v)
            blend[v] = fk__dqs_blend_avx2(r, source, pivot[v], r->joints + (size_t)v * r->joint_stride,
                                          r->weights + (size_t)v * r->weight_stride, influences);
    } else {
        for (v = 0; v < 8; ++v)
            blend[v] = fk__dqs_blend_avx2(r, source, pivot[v], r->joints + (size_t)v * r->joint_stride,
                                          r->weights + (size_t)v * r->weight_stride, influences);
    }
}

/* fk__dqs8_avx2() on copies of the points of the run's first `lanes` vertices
   (see fk__tail_points()), given eight blends; writes their results out if it
   takes them, and returns whether it did. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__dqs8_copies_avx2(const fk__skin_run *r, const __m256 blend[8],
                                                                 const int lanes, const int normals)
{
    float points[2][8 * 3 + 1], out[2][8 * 3];
    fk__tail_points(r, lanes, 8, normals, points[0], points[1]);
    if (!fk__dqs8_avx2(blend, (const char *)(const void *)points[0], 3 * sizeof(float),
                       normals ? (const char *)(const void *)points[1] : NULL, 3 * sizeof(float),
                       (char *)(void *)out[0], 3 * sizeof(float), (char *)(void *)out[1], 3 * sizeof(float)))
        return 0;
    fk__tail_results(r, lanes, normals, out[0], out[1]);
    return 1;
}

/* The run's first `count` vertices, with these blends, after fk__dqs8_avx2()
   or fk__dqs16_avx512() declined them as a group: each vertex alone, as a
   group of eight copies of itself. A vertex whose blend the group's
   arithmetic takes gets the bits it gets in any group, and only one that
   needs the careful path goes to the reference. (Until 24 November the group
   went to fk__dqs_vertex_sse(), whose arithmetic rounds otherwise: a vertex's
   bits depended on its neighbours.) Rare, so out of line; every vertex is
   read before it is written, as in the groups. */
static FK__AVX2_TARGET __attribute__((noinline, cold)) void fk__dqs_declined_avx2(const fk__skin_run *r,
                                                                                 const __m256 *blend, int count,
                                                                                 const int normals)
{
    __m256 copies[8];
    int v, c;
    for (v = 0; v < count; ++v) {
        fk__skin_run one = *r;
        fk__skin_advance(&one, normals, (size_t)v);
        for (c = 0; c < 8; ++c) copies[c] = blend[v];
        if (!fk__dqs8_copies_avx2(&one, copies, 1, normals))
            fk__dqs_vertex_reference(_mm256_castps256_ps128(blend[v]), _mm256_extractf128_ps(blend[v], 1),
                                     one.positions, normals ? one.normals : NULL, one.out_positions,
                                     normals ? one.out_normals : NULL);
    }
}

/* The run's first eight vertices moved by their blends: all together, or,
   when fk__dqs8_avx2() declines, one by one. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__dqs_finish8_avx2(const fk__skin_run *r, const __m256 blend[8],
                                                                  const int normals)
{
    if (!fk__dqs8_avx2(blend, r->positions, r->position_stride, normals ? r->normals : NULL, r->normal_stride,
                       r->out_positions, r->out_position_stride, r->out_normals, r->out_normal_stride))
        fk__dqs_declined_avx2(r, blend, 8, normals);
}

/* The last one to seven vertices of a run (`lanes` of them), by
   fk__dqs8_avx2() as the groups of eight (see fk__tail_points()): the
   missing lanes repeat the last vertex's blend. (One vertex at a time, until
   late on 24 November, they came out a few ulps from what the groups give
   them.) */
static FK__AVX2_TARGET void fk__dqs_tail_avx2(const fk__skin_run *r, const int source, const int lanes,
                                              const int influences, const int normals)
{
    __m256 blend[8];
    int v;
    for (v = 0; v < lanes; ++v) {
        const char *joint = r->joints + (size_t)v * r->joint_stride, *weight = r->weights + (size_t)v * r->weight_stride;
        blend[v] = fk__dqs_blend_avx2(r, source, fk__dqs_pivot_avx2(source == FK__DQS_SIGNED, joint, weight, influences),
                                      joint, weight, influences);
    }
    for (; v < 8; ++v) blend[v] = blend[lanes - 1];
    if (!fk__dqs8_copies_avx2(r, blend, lanes, normals)) fk__dqs_declined_avx2(r, blend, lanes, normals);
}

static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__dqs_avx2_loop(const fk__skin_run *run, const int influences,
                                                                 const int normals, const int prefetch_plan)
{
    fk__skin_run r = *run; /* see fk__skin_advance() */
    const int source = fk__dqs_source(run);
    int i = 0;
    for (; i + 8 <= r.count; i += 8) {
        __m256 blend[8];
        int pivot[8];
        fk__prefetch_ahead(&r, prefetch_plan, normals, 0);
        fk__prefetch_ahead(&r, prefetch_plan, normals, 4);
        /* All eight pivots first: each is a chain of dependent loads and
           compares, and the blends wait on it. Side by side the chains overlap;
           one vertex after another, each blend stalls on its own. */
        fk__dqs_pivots8_avx2(&r, source, 0, influences, pivot);
        fk__dqs_blends8_avx2(&r, source, pivot, influences, blend);
        fk__dqs_finish8_avx2(&r, blend, normals);
        fk__skin_advance(&r, normals, 8);
    }
    if (i < r.count) fk__dqs_tail_avx2(&r, source, r.count - i, influences, normals);
    return run->count;
}

/* Whether the `lanes` packed joint indices from `joint` on are at most `limit`:
   sixteen at a time, then eight, then one by one, never reading past them. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__packed_joints_in_range_avx2(const char *joint, size_t lanes,
                                                                              unsigned limit)
{
    const __m256i bound = _mm256_set1_epi16((short)(unsigned short)limit);
    __m256i excess = _mm256_setzero_si256();
    size_t done = 0;
    unsigned over = 0;
    for (; done + 16 <= lanes; done += 16)
        excess = _mm256_or_si256(excess,
                                 _mm256_subs_epu16(_mm256_loadu_si256((const __m256i *)(const void *)(joint + 2 * done)), bound));
    if (done + 8 <= lanes) {
        excess = _mm256_or_si256(excess, _mm256_castsi128_si256(_mm_subs_epu16(
                                             _mm_loadu_si128((const __m128i *)(const void *)(joint + 2 * done)),
                                             _mm256_castsi256_si128(bound))));
        done += 8;
    }
    for (; done < lanes; ++done) over |= ((const uint16_t *)(const void *)joint)[done] > limit;
    return !over && _mm256_testz_si256(excess, excess);
}

/* Whether the joint indices of the run's next `count` vertices are at most its
   limit: packed lists with fk__packed_joints_in_range_avx2(); lists of four or
   eight at other strides (interleaved records) with one 8- or 16-byte load
   each, their largest index kept lane by lane (one by one, the check took a
   sixth of the instructions of LBS on 48-byte records); others one by one. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__run_joints_in_range_avx2(const fk__skin_run *r, int count,
                                                                          const int influences)
{
    unsigned over = 0;
    int v, e;
    if (r->joint_stride == (size_t)influences * sizeof(uint16_t))
        return fk__packed_joints_in_range_avx2(r->joints, (size_t)count * (size_t)influences, r->joint_limit);
    if (influences == 4 || influences == 8) {
        __m128i largest = _mm_setzero_si128();
        for (v = 0; v < count; ++v) {
            const __m128i *list = (const __m128i *)(const void *)(r->joints + (size_t)v * r->joint_stride);
            largest = _mm_max_epu16(largest, influences == 4 ? _mm_loadl_epi64(list) : _mm_loadu_si128(list));
        }
        largest = _mm_subs_epu16(largest, _mm_set1_epi16((short)(unsigned short)r->joint_limit));
        return _mm_testz_si128(largest, largest);
    }
    for (v = 0; v < count; ++v)
        for (e = 0; e < influences; ++e)
            over |= ((const uint16_t *)(const void *)(r->joints + (size_t)v * r->joint_stride))[e] > r->joint_limit;
    return !over;
}

/* ---- AVX2 LBS: rows, four vertices at a time ----
   In every layout fk__lbs_avx2_rows() works as the AVX-512 loop does, on
   each bone's rows r0 r1 r2 (x' = r0 . (x, y, z, 1), and so on): rows 0 and
   1 in a 256-bit register and row 2 in a 128-bit one, so that one weight,
   picked within the 128-bit halves, serves all three. The blended rows times
   the point leave each coordinate as the sum of four lanes; four vertices'
   sums are taken together by in-lane shuffles, which leaves x', y' and z' of
   the four vertices in lanes, where four normals are renormalized at once. On packed
   arrays, on an AMD Zen 4, with the AVX-512 loops compiled out
   (a harness, k = 4, pinned, fastest of 21): 3.2 to 2.4 ns a vertex at 10k
   and 100k vertices, 3.3 to 2.7 at 1M; with normals 6.8 to 4.9
   (performance.md); since then, with each group's normals held back a group,
   4.1 at 1M. */

/* Whether a run's arrays are all tightly packed. */
static int fk__skin_run_packed(const fk__skin_run *r)
{
    const size_t point_bytes = 3 * sizeof(float), k = (size_t)r->influences;
    return r->position_stride == point_bytes && r->out_position_stride == point_bytes &&
           r->joint_stride == k * sizeof(uint16_t) && r->weight_stride == k * sizeof(float) &&
           (!r->normals || (r->normal_stride == point_bytes && r->out_normal_stride == point_bytes));
}

/* Whether a run's input arrays lie at one stride and its outputs at another,
   as in interleaved records. */
static int fk__skin_run_records(const fk__skin_run *r)
{
    const size_t in = r->position_stride, out = r->out_position_stride;
    return r->joint_stride == in && r->weight_stride == in &&
           (!r->normals || (r->normal_stride == in && r->out_normal_stride == out));
}

/* The run's bones as rows: bone j's columns [c0 c1 c2 t] become [r0 r1 r2 p]
   (p, the columns' padding, is never read). */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__lbs_rows_avx2(const float *palette, int bones, float *rows)
{
    int j;
    for (j = 0; j < bones; ++j) {
        const float *c = palette + (size_t)j * FK__LBS_BONE_FLOATS;
        float *row = rows + (size_t)j * FK__LBS_BONE_FLOATS;
        __m128 c0 = _mm_load_ps(c), c1 = _mm_load_ps(c + 4), c2 = _mm_load_ps(c + 8), t = _mm_load_ps(c + 12);
        _MM_TRANSPOSE4_PS(c0, c1, c2, t);
        _mm_store_ps(row, c0);
        _mm_store_ps(row + 4, c1);
        _mm_store_ps(row + 8, c2);
        _mm_store_ps(row + 12, t);
    }
}

/* A point's x y z in lanes 0-2 of both halves. On packed arrays it is one
   16-byte load, which reads 4 bytes past the point, the next vertex's x: the
   loop leaves the run's last vertex to its tail. On interleaved records it is
   read as its three floats (lane 3 then 0): there the 16-byte loads took the
   loop twice as long (12.3 against 5.3 ns a vertex with normals on 48-byte
   records, AVX-512 compiled out; on packed arrays the three floats cost 3 to
   7%). */
static FK__AVX2_TARGET FK__ALWAYS_INLINE __m256 fk__point_twice_avx2(const char *p, const int packed)
{
    __m128 xyz;
    if (packed) return _mm256_broadcast_ps((const __m128 *)(const void *)p);
    xyz = fk__load3_sse(p);
    return _mm256_insertf128_ps(_mm256_castps128_ps256(xyz), xyz, 1);
}

/* Vertex `at` of the run: its blended rows 0-1 and 2 times (x, y, z, 1) and,
   with normals, times (nx, ny, nz, 0) (points read by fk__point_twice_avx2()). */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__lbs_rows_vertex_avx2(const fk__skin_run *r, const float *rows,
                                                                      size_t at, const int influences,
                                                                      const int normals, const int packed,
                                                                      __m256 *moved01, __m128 *moved2,
                                                                      __m256 *turned01, __m128 *turned2)
{
    const uint16_t *joints = (const uint16_t *)(const void *)(r->joints + at * r->joint_stride);
    const float *weights = (const float *)(const void *)(r->weights + at * r->weight_stride);
    __m256 four = influences % 4 == 0 ? _mm256_broadcast_ps((const __m128 *)(const void *)weights) : _mm256_setzero_ps();
    __m256 w = fk__weight_avx2(weights, 0, influences, &four), point;
    const float *m = rows + (size_t)joints[0] * FK__LBS_BONE_FLOATS;
    __m256 rows01 = _mm256_mul_ps(w, _mm256_load_ps(m));
    __m128 row2 = _mm_mul_ps(_mm256_castps256_ps128(w), _mm_load_ps(m + 8));
    int e;
    FK__UNROLL
    for (e = 1; e < influences; ++e) {
        m = rows + (size_t)joints[e] * FK__LBS_BONE_FLOATS;
        w = fk__weight_avx2(weights, e, influences, &four);
        rows01 = _mm256_fmadd_ps(w, _mm256_load_ps(m), rows01);
        row2 = _mm_fmadd_ps(_mm256_castps256_ps128(w), _mm_load_ps(m + 8), row2);
    }
    point = _mm256_blend_ps(fk__point_twice_avx2(r->positions + at * r->position_stride, packed),
                            _mm256_set1_ps(1.0f), 0x88);
    *moved01 = _mm256_mul_ps(rows01, point);
    *moved2 = _mm_mul_ps(row2, _mm256_castps256_ps128(point));
    if (normals) { /* the translation lanes are left out, not multiplied by 0: inf * 0 is NaN */
        const __m256 normal = fk__point_twice_avx2(r->normals + at * r->normal_stride, packed);
        *turned01 = _mm256_blend_ps(_mm256_mul_ps(rows01, normal), _mm256_setzero_ps(), 0x88);
        *turned2 = _mm_blend_ps(_mm_mul_ps(row2, _mm256_castps256_ps128(normal)), _mm_setzero_ps(), 0x8);
    }
}

/* The sums of each block's lanes for two vertices a and b: block sums
   (a0 b0 a1 b1 | a2 b2 a3 b3) halfway, lanes of each pair added. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__sum_lanes2_avx2(__m256 a01, __m256 b01, __m128 a2, __m128 b2,
                                                                 __m256 *pair01, __m128 *pair2)
{
    *pair01 = _mm256_add_ps(_mm256_unpacklo_ps(a01, b01), _mm256_unpackhi_ps(a01, b01));
    *pair2 = _mm_add_ps(_mm_unpacklo_ps(a2, b2), _mm_unpackhi_ps(a2, b2));
}

/* Two pairs' partial sums from fk__sum_lanes2_avx2() (vertices 0 1, then 2 3)
   finished: x' of the four vertices in lanes 0-3 of xy, y' in lanes 4-7, z'
   in z. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__join_pairs_avx2(const __m256 pair01[2], const __m128 pair2[2],
                                                                 __m256 *xy, __m128 *z)
{
    *xy = _mm256_add_ps(_mm256_shuffle_ps(pair01[0], pair01[1], _MM_SHUFFLE(1, 0, 1, 0)),
                        _mm256_shuffle_ps(pair01[0], pair01[1], _MM_SHUFFLE(3, 2, 3, 2)));
    *z = _mm_add_ps(_mm_shuffle_ps(pair2[0], pair2[1], _MM_SHUFFLE(1, 0, 1, 0)),
                    _mm_shuffle_ps(pair2[0], pair2[1], _MM_SHUFFLE(3, 2, 3, 2)));
}

/* The four sums of each block's lanes for four vertices: x' of the four in
   lanes 0-3 of xy, y' in lanes 4-7, z' in z. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__sum_lanes4_avx2(const __m256 p01[4], const __m128 p2[4], __m256 *xy,
                                                                 __m128 *z)
{
    __m256 pair01[2];
    __m128 pair2[2];
    fk__sum_lanes2_avx2(p01[0], p01[1], p2[0], p2[1], &pair01[0], &pair2[0]);
    fk__sum_lanes2_avx2(p01[2], p01[3], p2[2], p2[3], &pair01[1], &pair2[1]);
    fk__join_pairs_avx2(pair01, pair2, xy, z);
}

/* Four vertices' x', y', z' (as fk__sum_lanes4_avx2() leaves them) as four
   (x, y, z, 0), for the rare lengths' path. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__lanes_to_points_avx2(__m256 xy, __m128 z, __m128 point[4])
{
    __m128 x = _mm256_castps256_ps128(xy), y = _mm256_extractf128_ps(xy, 1), zero = _mm_setzero_ps();
    __m128 xy_low = _mm_unpacklo_ps(x, y), xy_high = _mm_unpackhi_ps(x, y);
    __m128 z0_low = _mm_unpacklo_ps(z, zero), z0_high = _mm_unpackhi_ps(z, zero);
    point[0] = _mm_movelh_ps(xy_low, z0_low);
    point[1] = _mm_movehl_ps(z0_low, xy_low);
    point[2] = _mm_movelh_ps(xy_high, z0_high);
    point[3] = _mm_movehl_ps(z0_high, xy_high);
}

/* Renormalizes four normals held as fk__sum_lanes4_avx2() leaves them:
   fk__inverse_length_sse() of |n|^2, summed in fk__normalize_sse()'s order;
   when any length is one the estimate cannot take, each normal goes through
   fk__normalize_sse(), which hands those to the reference. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__normalize4_lanes_avx2(__m256 *xy, __m128 *z)
{
    __m128 x = _mm256_castps256_ps128(*xy), y = _mm256_extractf128_ps(*xy, 1);
    __m128 length2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(*z, *z)), _mm_mul_ps(y, y));
    __m128 in_range = _mm_and_ps(_mm_cmpge_ps(length2, _mm_set1_ps(FLT_MIN)), _mm_cmple_ps(length2, _mm_set1_ps(FLT_MAX)));
    if (FK__LIKELY(_mm_movemask_ps(in_range) == 0xF)) {
        const __m128 inverse = fk__inverse_length_sse(length2);
        *xy = _mm256_mul_ps(*xy, _mm256_insertf128_ps(_mm256_castps128_ps256(inverse), inverse, 1));
        *z = _mm_mul_ps(*z, inverse);
    } else {
        __m128 normal[4];
        float lanes[4][4];
        int v;
        fk__lanes_to_points_avx2(*xy, *z, normal);
        for (v = 0; v < 4; ++v) _mm_storeu_ps(lanes[v], fk__normalize_sse(normal[v]));
        *xy = _mm256_setr_ps(lanes[0][0], lanes[1][0], lanes[2][0], lanes[3][0], lanes[0][1], lanes[1][1], lanes[2][1],
                             lanes[3][1]);
        *z = _mm_setr_ps(lanes[0][2], lanes[1][2], lanes[2][2], lanes[3][2]);
    }
}

/* Writes four vertices' x', y', z' (as fk__sum_lanes4_avx2() leaves them) to
   packed points, as 32 and 16 bytes. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__store4x3_avx2(char *p, __m256 xy, __m128 z)
{
    const __m256 zz = _mm256_castps128_ps256(z);
    /* x0 y0 z0 x1 y1 z1 x2 y2, then z2 x3 y3 z3 */
    __m256 first = _mm256_blend_ps(_mm256_permutevar8x32_ps(xy, _mm256_setr_epi32(0, 4, 0, 1, 5, 0, 2, 6)),
                                   _mm256_permutevar8x32_ps(zz, _mm256_setr_epi32(0, 0, 0, 0, 0, 1, 0, 0)), 0x24);
    __m128 last = _mm_blend_ps(_mm256_castps256_ps128(_mm256_permutevar8x32_ps(xy, _mm256_setr_epi32(0, 3, 7, 0, 0, 0, 0, 0))),
                               _mm_shuffle_ps(z, z, _MM_SHUFFLE(3, 0, 0, 2)), 0x9);
    _mm256_storeu_ps((float *)(void *)p, first);
    _mm_storeu_ps((float *)(void *)(p + 32), last);
}

/* Writes four vertices' x', y', z' (as fk__sum_lanes4_avx2() leaves them) as
   points `stride` bytes apart, 12 bytes each. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__store4x3_strided_avx2(char *p, size_t stride, __m256 xy, __m128 z)
{
    __m128 point[4];
    fk__lanes_to_points_avx2(xy, z, point);
    fk__store3_sse(p, point[0]);
    fk__store3_sse(p + stride, point[1]);
    fk__store3_sse(p + 2 * stride, point[2]);
    fk__store3_sse(p + 3 * stride, point[3]);
}

/* Writes four vertices' points held as fk__sum_lanes4_avx2() leaves them,
   packed or `stride` bytes apart; normals are renormalized first. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__store4_held_avx2(char *p, size_t stride, const int packed, __m256 xy,
                                                                  __m128 z, const int normals)
{
    if (normals) fk__normalize4_lanes_avx2(&xy, &z);
    if (packed) fk__store4x3_avx2(p, xy, z);
    else fk__store4x3_strided_avx2(p, stride, xy, z);
}

/* The last one to four vertices of a run (`lanes` of them), by the four-vertex
   step's own arithmetic (see fk__tail_points()), so that every vertex comes
   out with the same bits wherever it falls in a call: a call split into
   pieces, as from threads, gives what one call gives. (A loop one vertex at
   a time on the bones' columns did these until late on 24 November; a call in
   pieces of 1 to 37 vertices then gave a tenth of its vertices other last
   bits.) The joint indices are checked by the caller. */
static FK__AVX2_TARGET void fk__lbs_tail_avx2(const fk__skin_run *r, const float *rows, const int lanes,
                                              const int influences, const int normals)
{
    float points[2][4 * 3 + 1], out[2][4 * 3 + 4];
    __m256 moved01[4], turned01[4], xy;
    __m128 moved2[4], turned2[4], z;
    fk__skin_run vertex = *r;
    int v;
    fk__tail_points(r, lanes, 4, normals, points[0], points[1]);
    vertex.position_stride = vertex.normal_stride = 3 * sizeof(float);
    for (v = 0; v < 4; ++v) {
        const size_t from = (size_t)(v < lanes ? v : lanes - 1);
        vertex.positions = (const char *)(const void *)(points[0] + 3 * v);
        vertex.normals = (const char *)(const void *)(points[1] + 3 * v);
        vertex.joints = r->joints + from * r->joint_stride;
        vertex.weights = r->weights + from * r->weight_stride;
        fk__lbs_rows_vertex_avx2(&vertex, rows, 0, influences, normals, 1, &moved01[v], &moved2[v], &turned01[v],
                                 &turned2[v]);
    }
    fk__sum_lanes4_avx2(moved01, moved2, &xy, &z);
    fk__store4x3_avx2((char *)(void *)out[0], xy, z);
    if (normals) {
        fk__sum_lanes4_avx2(turned01, turned2, &xy, &z);
        fk__normalize4_lanes_avx2(&xy, &z);
        fk__store4x3_avx2((char *)(void *)out[1], xy, z);
    }
    fk__tail_results(r, lanes, normals, out[0], out[1]);
}

/* The layouts the AVX2 LBS loop and fk__lbs_avx512_loop() are compiled for:
   any strides; every array tightly packed, so that the strides are constants;
   interleaved records, every input array at one stride and both outputs at
   another, so that the strides are two numbers held in registers. */
enum { FK__LAYOUT_STRIDED, FK__LAYOUT_PACKED, FK__LAYOUT_RECORDS };

/* LBS in any layout: packed arrays (the strides constants), interleaved
   records (one stride for the inputs and one for the outputs, held in
   registers) or any strides, checking the joint indices four vertices at a
   time as it goes; returns how many vertices were done (all, or those before
   the first group with a bad index). Every vertex is read before it is
   written, so in-place skinning works. The rows take 16 KB of stack, as in
   the AVX-512 loop. One loop for every layout gives every layout the same
   arithmetic, so the same bits: when records took this loop and other
   strides a loop one vertex at a time on the bones' columns (since removed),
   400 vertices skinned from 48-byte records
   and from arrays with padded index and weight lists came out a few ulps
   apart (test_core); test_simd now holds every layout, and a call split into
   pieces, to the same bits.
   On records, with the points read as three floats and the normals held
   back (below), this loop took 20% less time than that one
   (6.57 to 5.26 ms at 1M vertices with normals on 48-byte records, k = 4,
   AVX-512 compiled out, three alternating rounds); with 16-byte point loads
   it had taken twice as long (performance.md).
   Each group's last output is held in registers and written one iteration
   later, after the next group's blends: its normals, renormalized then, or
   without normals its positions. Renormalizing is a long chain of dependent
   operations (sums of squares, compares, estimate, Newton step, permutes),
   and at the end of its own group it left the core too few independent
   instructions to overlap with it: held back one group, LBS with normals
   took 4.95 to 4.09 ms at 1M vertices with k = 4, 3.88 to 3.13 with k = 1,
   6.77 to 6.20 with k = 8 (AMD Zen 4, AVX-512 compiled out, three
   alternating rounds). The positions' shorter chain (sums, permutes) held
   back saves 2 to 5% without normals (k = 1 1.56 to 1.48 ms, k = 2, 4, 8 2.5,
   2 and 3%, at 1M, five alternating rounds); with normals as well it cost 2
   to 3% more, so then they are written in their own group.
   Summing each pair of vertices as soon as it is done (fk__sum_lanes2_avx2())
   frees registers for the held normals: 2.5% of that (with no normals, 1.5
   to 2% slower, so positions alone are summed as before). */
static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__lbs_avx2_rows(const fk__skin_run *run, const int influences,
                                                                const int normals, const int layout)
{
    fk__skin_run r = *run; /* see fk__skin_advance() */
    float row_storage[FK_LBS_PALETTE_CAPACITY * FK__LBS_BONE_FLOATS + 16];
    float *rows = fk__align64(row_storage);
    const int packed = layout == FK__LAYOUT_PACKED;
    __m256 held_xy = _mm256_setzero_ps();
    __m128 held_z = _mm_setzero_ps();
    char *held_at = NULL; /* where the held points go; none before the first group */
    size_t held_stride;   /* and their stride: the normals', or without normals the positions' */
    int i, v, prefetch_plan = FK__PREFETCH_ALL;
    if (packed) {
        r.position_stride = r.normal_stride = r.out_position_stride = r.out_normal_stride = 3 * sizeof(float);
        r.joint_stride = (size_t)influences * sizeof(uint16_t);
        r.weight_stride = (size_t)influences * sizeof(float);
    } else {
        if (layout == FK__LAYOUT_RECORDS) {
            r.normal_stride = r.joint_stride = r.weight_stride = r.position_stride;
            r.out_normal_stride = r.out_position_stride;
        }
        prefetch_plan = fk__prefetch_plan(&r);
    }
    held_stride = normals ? r.out_normal_stride : r.out_position_stride;
    fk__lbs_rows_avx2(r.palette, (int)r.joint_limit + 1, rows);
    for (i = 0; i + 4 < r.count; i += 4) {
        __m256 moved01[4], turned01[4], xy;
        __m128 moved2[4], turned2[4], z;
        if (!fk__run_joints_in_range_avx2(&r, 4, influences)) {
            if (held_at) fk__store4_held_avx2(held_at, held_stride, packed, held_xy, held_z, normals);
            return i;
        }
        fk__prefetch_ahead(&r, prefetch_plan, normals, 0);
        if (normals) {
            __m256 moved_pairs01[2], turned_pairs01[2];
            __m128 moved_pairs2[2], turned_pairs2[2];
            FK__UNROLL
            for (v = 0; v < 4; v += 2) {
                fk__lbs_rows_vertex_avx2(&r, rows, (size_t)v, influences, 1, packed, &moved01[v], &moved2[v],
                                         &turned01[v], &turned2[v]);
                fk__lbs_rows_vertex_avx2(&r, rows, (size_t)v + 1, influences, 1, packed, &moved01[v + 1],
                                         &moved2[v + 1], &turned01[v + 1], &turned2[v + 1]);
                fk__sum_lanes2_avx2(moved01[v], moved01[v + 1], moved2[v], moved2[v + 1], &moved_pairs01[v / 2],
                                    &moved_pairs2[v / 2]);
                fk__sum_lanes2_avx2(turned01[v], turned01[v + 1], turned2[v], turned2[v + 1], &turned_pairs01[v / 2],
                                    &turned_pairs2[v / 2]);
            }
            fk__join_pairs_avx2(moved_pairs01, moved_pairs2, &xy, &z);
            if (held_at) fk__store4_held_avx2(held_at, held_stride, packed, held_xy, held_z, 1);
            fk__join_pairs_avx2(turned_pairs01, turned_pairs2, &held_xy, &held_z);
            held_at = r.out_normals;
            fk__store4_held_avx2(r.out_positions, r.out_position_stride, packed, xy, z, 0);
        } else {
            FK__UNROLL
            for (v = 0; v < 4; ++v)
                fk__lbs_rows_vertex_avx2(&r, rows, (size_t)v, influences, 0, packed, &moved01[v], &moved2[v],
                                         &turned01[v], &turned2[v]);
            fk__sum_lanes4_avx2(moved01, moved2, &xy, &z);
            if (held_at) fk__store4_held_avx2(held_at, held_stride, packed, held_xy, held_z, 0);
            held_xy = xy;
            held_z = z;
            held_at = r.out_positions;
        }
        fk__skin_advance(&r, normals, 4);
    }
    if (held_at) fk__store4_held_avx2(held_at, held_stride, packed, held_xy, held_z, normals);
    r.count -= i; /* the last one to four vertices */
    if (!fk__run_joints_in_range_avx2(&r, r.count, influences)) return i;
    if (r.count > 0) fk__lbs_tail_avx2(&r, rows, r.count, influences, normals);
    return run->count;
}

static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__lbs_avx2_packed(const fk__skin_run *run, const int influences,
                                                                  const int normals)
{
    return fk__lbs_avx2_rows(run, influences, normals, FK__LAYOUT_PACKED);
}

static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__lbs_avx2_strided(const fk__skin_run *run, const int influences,
                                                                   const int normals)
{
    return fk__lbs_avx2_rows(run, influences, normals, FK__LAYOUT_STRIDED);
}

/* The AVX2 DQS loop checking the joint indices itself, eight vertices at a
   time, as it goes, in every layout (the AVX-512 DQS loop's other layouts and
   tail come here too; on packed arrays DQS has fk__dqs_avx2_packed()).
   Returns how many vertices were done, as the AVX-512 loops do. Copies for
   packed arrays alone, with the strides as constants, once made LBS 13%
   faster than the separate pass of fk__skin_blocks(), for 100 KB of code and
   60% more time to compile the header; this way is about 3% faster for DQS. */
#define FK__CHECKED_VERTICES 8

static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__dqs_avx2_checked(const fk__skin_run *run, const int influences,
                                                                  const int normals)
{
    fk__skin_run r = *run; /* see fk__skin_advance() */
    const int prefetch_plan = fk__prefetch_plan(&r);
    int i = 0;
    while (i < r.count) {
        fk__skin_run chunk = r;
        int n = r.count - i < FK__CHECKED_VERTICES ? r.count - i : FK__CHECKED_VERTICES;
        if (!fk__run_joints_in_range_avx2(&r, n, influences)) return i;
        chunk.count = n;
        fk__dqs_avx2_loop(&chunk, influences, normals, prefetch_plan);
        fk__skin_advance(&r, normals, (size_t)n);
        i += n;
    }
    return run->count;
}

/* Each layout's loop a function of its own: compiled into one function with
   the loop for packed arrays, the loop for other layouts (then the
   vertex-at-a-time one) took 13% more time on 24-byte records of positions
   and normals (its instructions the same, its registers and places not). */
#undef FK__SIMD_TARGET
#define FK__SIMD_TARGET FK__AVX2_TARGET __attribute__((noinline))
FK__SKIN_SPECIALIZE(fk__lbs_avx2_packed_run, fk__lbs_avx2_packed)
/* Records with four influences have a copy of their own, with the strides
   cut to two, as in the AVX-512 loops: against the copy for any strides, 5%
   less time with normals and 13% without (1M vertices, 48-byte records,
   AVX-512 compiled out, three alternating rounds). Other counts on records
   take the copy for any strides: a copy of their own for every count made
   the header take 12% longer to compile (gcc -O2, 13.9 to 15.5 s). */
static FK__SIMD_TARGET int fk__lbs_avx2_records_run(const fk__skin_run *run)
{
#if defined(__OPTIMIZE__)
    return run->normals ? fk__lbs_avx2_rows(run, 4, 1, FK__LAYOUT_RECORDS)
                        : fk__lbs_avx2_rows(run, 4, 0, FK__LAYOUT_RECORDS);
#else /* one copy, as FK__SKIN_SPECIALIZE() makes in unoptimized builds */
    return fk__lbs_avx2_rows(run, 4, run->normals != NULL, FK__LAYOUT_RECORDS);
#endif
}
FK__SKIN_SPECIALIZE(fk__lbs_avx2_strided_run, fk__lbs_avx2_strided)
#undef FK__SIMD_TARGET
#define FK__SIMD_TARGET FK__AVX2_TARGET
FK__SKIN_SPECIALIZE(fk__dqs_avx2c, fk__dqs_avx2_checked)
#undef FK__SIMD_TARGET

static FK__AVX2_TARGET int fk__lbs_avx2(const fk__skin_run *run)
{
    int done;
    if (fk__skin_run_packed(run)) done = fk__lbs_avx2_packed_run(run);
    else done = run->influences == 4 && fk__skin_run_records(run) ? fk__lbs_avx2_records_run(run)
                                                                  : fk__lbs_avx2_strided_run(run);
    return fk__upper_cleared(done);
}

/* ---- AVX2 DQS on packed arrays: the pivots one group ahead ----
   fk__dqs_avx2_loop() goes eight vertices at a time in any layout, after
   fk__dqs_avx2_checked() has checked their indices. On packed arrays
   fk__dqs_avx2_packed() goes the same way with three differences, each
   measured on an AMD Zen 4 with the AVX-512 loops compiled out (a harness,
   1M vertices, k = 4, pinned, fastest of 21, alternating; bones in both
   hemispheres, so the signs come from the table):
   - Its strides and the source of its bones (fk__dqs_source()) are constants:
     5.6 to 5.3 ns a vertex, and 3.8 to 3.2 with the bones in one hemisphere,
     where no pivots are needed.
   - It finds the pivots of each group before it finishes the group before, as
     the AVX-512 loop does: 5.3 to 4.4 ns. A pivot is a chain of dependent
     loads and compares; found after a finish, it started too late for the
     core to overlap it with anything. (Blends found a group ahead took 6.4
     ns: eight more registers than the core has. Offsets into the table found
     a group ahead as well took 4.8 to 5.1.)
   - With four influences, the pivots of eight vertices are found together in
     vector registers (fk__dqs_pivots8x4_avx2()): 4.3 to 4.1 ns.
   fk__store8x3_avx2() writes packed points as three 32-byte stores: 1 to 2%
   at 1M vertices, and with normals 6.4 to 5.8 ns at 100k. With bones every
   way DQS went from 5.6 to 4.1 ns a vertex, and with normals from 8.4 to
   5.5; the header takes 10% longer to compile (11.2 to 12.2 s at -O2). */

/* The pivots of eight vertices with four influences each, the index and weight
   lists packed: the choice of fk__heaviest4_sse(), lane for lane, made for
   two vertices a register. Each lane's key is its lane number above its joint
   index; the smallest key among the lanes equal to the largest weight is the
   first such lane's. A vertex with no lane equal (NaN weights) gets joint 0,
   so that its pivot is in range whatever its weights; its blend is NaN
   either way. Unchecked joint indices give wrong pivots but read nothing. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__dqs_pivots8x4_avx2(const char *joint, const char *weight,
                                                                    int pivot[8])
{
    const float *weights = (const float *)(const void *)weight;
    const __m256i lane = _mm256_setr_epi32(0, 1 << 16, 2 << 16, 3 << 16, 0, 1 << 16, 2 << 16, 3 << 16);
    const __m256i none = _mm256_set1_epi32(4 << 16);
    __m256i key[4], pairs01, pairs23, by_two;
    int m;
    FK__UNROLL
    for (m = 0; m < 4; ++m) { /* vertices 2m and 2m + 1 */
        __m256 w = _mm256_loadu_ps(weights + 8 * m);
        __m256 top = _mm256_max_ps(w, _mm256_shuffle_ps(w, w, _MM_SHUFFLE(2, 3, 0, 1)));
        __m256i k;
        top = _mm256_max_ps(top, _mm256_shuffle_ps(top, top, _MM_SHUFFLE(1, 0, 3, 2)));
        k = _mm256_or_si256(lane, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(joint + 16 * m))));
        k = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(none), _mm256_castsi256_ps(k),
                                                 _mm256_cmp_ps(w, top, _CMP_EQ_OQ)));
        k = _mm256_min_epu32(k, _mm256_shuffle_epi32(k, _MM_SHUFFLE(2, 3, 0, 1)));
        key[m] = _mm256_min_epu32(k, _mm256_shuffle_epi32(k, _MM_SHUFFLE(1, 0, 3, 2)));
    }
    /* each vertex's key fills its four lanes; one lane of each, in order */
    pairs01 = _mm256_blend_epi32(key[0], key[1], 0x22); /* vertices 0 2 . . 1 3 . . */
    pairs23 = _mm256_blend_epi32(key[2], key[3], 0x88); /* vertices . . 4 6 . . 5 7 */
    by_two = _mm256_blend_epi32(pairs01, pairs23, 0xCC);
    _mm256_storeu_si256((__m256i *)(void *)pivot,
                        _mm256_and_si256(_mm256_permutevar8x32_epi32(by_two, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)),
                                         _mm256_set1_epi32(0xFFFF)));
}

/* The pivots of the eight packed vertices from `first` on. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__dqs_packed_pivots8_avx2(const fk__skin_run *r, const int source,
                                                                         size_t first, const int influences,
                                                                         int pivot[8])
{
    if (source == FK__DQS_TABLE && influences == 4)
        fk__dqs_pivots8x4_avx2(r->joints + first * r->joint_stride, r->weights + first * r->weight_stride, pivot);
    else
        fk__dqs_pivots8_avx2(r, source, first, influences, pivot);
}

/* DQS on packed arrays, checking the joint indices eight vertices at a time;
   returns how many vertices were done, as fk__dqs_avx2_checked() does. The pivots
   of the next group are found from its indices before they are checked: a
   pivot reads no memory through them. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__dqs_avx2_packed(const fk__skin_run *run, const int influences,
                                                                   const int normals, const int source)
{
    fk__skin_run r = *run; /* see fk__skin_advance() */
    const size_t group_lanes = 8 * (size_t)influences;
    int i = 0, pivot[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    r.position_stride = r.normal_stride = r.out_position_stride = r.out_normal_stride = 3 * sizeof(float);
    r.joint_stride = (size_t)influences * sizeof(uint16_t);
    r.weight_stride = (size_t)influences * sizeof(float);
    if (source != FK__DQS_SIGNED && r.count >= 8) fk__dqs_packed_pivots8_avx2(&r, source, 0, influences, pivot);
    for (; i + 8 <= r.count; i += 8) {
        __m256 blend[8];
        if (!fk__packed_joints_in_range_avx2(r.joints, group_lanes, r.joint_limit)) return i;
        fk__prefetch_ahead(&r, FK__PREFETCH_ALL, normals, 0);
        fk__prefetch_ahead(&r, FK__PREFETCH_ALL, normals, 4);
        fk__dqs_blends8_avx2(&r, source, pivot, influences, blend);
        if (source != FK__DQS_SIGNED && i + 16 <= r.count) /* the next group's (this group's are read) */
            fk__dqs_packed_pivots8_avx2(&r, source, 8, influences, pivot);
        fk__dqs_finish8_avx2(&r, blend, normals);
        fk__skin_advance(&r, normals, 8);
    }
    r.count -= i; /* the last zero to seven vertices */
    return r.count > 0 ? i + fk__dqs_avx2c(&r) : run->count;
}

/* The bones' source as a constant (the table's dot products, for small
   meshes, stay with the general loop). */
static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__dqs_avx2_packed_any(const fk__skin_run *run, const int influences,
                                                                       const int normals)
{
    if (fk__dqs_source(run) == FK__DQS_SIGNED) return fk__dqs_avx2_packed(run, influences, normals, FK__DQS_SIGNED);
    return fk__dqs_avx2_packed(run, influences, normals, FK__DQS_TABLE);
}

#define FK__SIMD_TARGET FK__AVX2_TARGET __attribute__((noinline))
FK__SKIN_SPECIALIZE(fk__dqs_avx2_packed_run, fk__dqs_avx2_packed_any)
#undef FK__SIMD_TARGET

static FK__AVX2_TARGET int fk__dqs_avx2(const fk__skin_run *run)
{
    const int packed = fk__skin_run_packed(run) && fk__dqs_source(run) != FK__DQS_DOT;
    return fk__upper_cleared(packed ? fk__dqs_avx2_packed_run(run) : fk__dqs_avx2c(run));
}

/* Decided by the compiler when it may assume AVX2 and FMA, else asked of the CPU
   (gcc and clang keep the answer in their runtime library, not in ours). */
static int fk__has_avx2_fma(void)
{
#if defined(__AVX2__) && defined(__FMA__)
    return 1;
#else
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
}

#endif /* FK__SIMD_AVX2 */

#if defined(FK__SIMD_AVX512)

#define FK__SIMD_TARGET FK__AVX512_TARGET

/* gcc 12's own AVX-512 intrinsics (those that leave lanes "undefined") set off
   -Wmaybe-uninitialized, and where inlined into a function not inlined
   further (fk__lbs_tail_avx512()) -Wuninitialized, in C++ at -O2 (gcc bug
   105593, fixed in gcc 13). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

/* LBS with AVX-512, four vertices at a time. A bone's 3x4 matrix, padded to
   4x4, fills one 16-lane register, so the blend is one fused multiply-add per
   influence. The blend is applied to (x, y, z, 1) by rows: the bones are
   transposed once per call (block i = row i), the point is one 16-byte
   broadcast load into every block, and the product's sums within each block,
   for four vertices together, take only in-lane shuffles (unpacks and
   shuffles within 128-bit lanes), leaving x' of vertex v in lane v of block 0,
   y' in block 1, z' in block 2. On AMD Zen 4 a permute across 128-bit lanes
   measured as costly as a multiply-add beside multiply-adds, an in-lane
   shuffle free: applied by columns ([c0 c1 c2 t] times
   [x x x x y y y y z z z z 1 1 1 1], then the sum of the blocks) four vertices
   took 11 such permutes, by rows one. The 16-byte load reads the 4 bytes after
   the point (the next vertex's x, or the rest of a record), so the run's last
   vertex goes to the tail loop. Results are written:
   - packed: one permute for a 32-byte and a 16-byte store (not one masked
     64-byte store: skinning in place, it made each load of the next four
     vertices wait for it, 3.5 ms instead of 2.2 at a million vertices);
   - other layouts: one permute and a masked 12-byte store per vertex; or, when
     each output normal follows its position (x y z nx ny nz), a masked
     24-byte store per vertex; or, when those pairs are also packed (24-byte
     records), the four vertices' 96 bytes in a 64-byte and a 32-byte store.
   With normals, sixteen vertices go at a time where they can, and their
   normals are normalized together (fk__normalize_store16_avx512() for packed
   arrays, fk__normalize16_lanes_avx512() for other layouts).
   Interleaved records with four influences (every input array at one stride
   and both outputs at another, as one vertex buffer in and one out) get a
   copy of the loop of their own, whose strides are then two numbers instead
   of six: on 48-byte records in, 24 out, with normals, it took 2.5 to 5% less
   time than the loop for any strides, which runs out of registers.
   Nothing is read or written outside the arrays, and all four vertices are
   read before any is written, so in-place skinning works as for the
   reference. */

/* Weight e of a vertex in every lane. With four_at_a_time (a count that is a
   multiple of four), one 16-byte load into every block serves
   four influences, each picked out by a shuffle within the blocks: on an AMD
   Zen 4, where the loop is bound by its loads and such a shuffle runs beside
   the multiply-adds, 2% faster at 100,000 vertices and 6% at a million than a
   broadcast load per influence, and 5% faster on interleaved records. `four`
   keeps the last four between calls, for e going up from 0. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE __m512 fk__weight_avx512(const float *weights, int e, const int four_at_a_time,
                                                                  __m512 *four)
{
    if (!four_at_a_time) return _mm512_set1_ps(weights[e]);
    if (e % 4 == 0) *four = _mm512_broadcast_f32x4(_mm_loadu_ps(weights + e));
    return e % 4 == 0 ? _mm512_permute_ps(*four, _MM_SHUFFLE(0, 0, 0, 0))
         : e % 4 == 1 ? _mm512_permute_ps(*four, _MM_SHUFFLE(1, 1, 1, 1))
         : e % 4 == 2 ? _mm512_permute_ps(*four, _MM_SHUFFLE(2, 2, 2, 2))
                      : _mm512_permute_ps(*four, _MM_SHUFFLE(3, 3, 3, 3)); /* a switch compiled worse (AVX2) */
}

static FK__AVX512_TARGET FK__ALWAYS_INLINE __m512 fk__lbs_blend_avx512(const float *palette, const char *joint,
                                                                      const char *weight, const int influences,
                                                                      const int pick_weights)
{
    const uint16_t *joints = (const uint16_t *)(const void *)joint;
    const float *weights = (const float *)(const void *)weight;
    const int four_at_a_time = pick_weights && influences % 4 == 0;
    __m512 four = _mm512_setzero_ps();
    __m512 m = _mm512_mul_ps(fk__weight_avx512(weights, 0, four_at_a_time, &four),
                             _mm512_load_ps(palette + (size_t)joints[0] * FK__LBS_BONE_FLOATS));
    int e;
    FK__UNROLL
    for (e = 1; e < influences; ++e)
        m = _mm512_fmadd_ps(fk__weight_avx512(weights, e, four_at_a_time, &four),
                            _mm512_load_ps(palette + (size_t)joints[e] * FK__LBS_BONE_FLOATS), m);
    return m;
}

/* Every class a float can be in but a positive normal number (FLT_MIN to
   FLT_MAX): NaN, zero, infinity, subnormal, negative. One class test tells
   whether a sum of squares lies in the range the fast normalizations take, with
   no constants to compare against (two compares and their bounds measured
   slower). */
#define FK__NOT_POSITIVE_NORMAL_CLASSES 0xFF

/* 1/sqrt of each lane: AVX-512's 14-bit estimate and the Newton step of
   fk__inverse_length_sse(), for lanes in the range FK__NOT_POSITIVE_NORMAL_CLASSES
   leaves out. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE __m512 fk__inverse_length_avx512(__m512 length2)
{
    __m512 y = _mm512_rsqrt14_ps(length2);
    return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), y),
                         _mm512_fnmadd_ps(_mm512_mul_ps(y, y), length2, _mm512_set1_ps(3.0f)));
}

/* The run's bones as rows: bone j's [c0 c1 c2 t] (block i = column i) becomes
   [r0 r1 r2 0] (block i = row i), one permute each. It is fk__lbs_rows_avx2()
   with one instruction where that one has a 4 x 4 transpose: calling that one
   from here made a call 0.03 us slower (0.81 to 0.84 us, 64 bones). */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__lbs_rows_avx512(const float *palette, int bones, float *rows)
{
    const __m512i transpose = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    int j;
    for (j = 0; j < bones; ++j)
        _mm512_store_ps(rows + (size_t)j * FK__LBS_BONE_FLOATS,
                        _mm512_permutexvar_ps(transpose, _mm512_load_ps(palette + (size_t)j * FK__LBS_BONE_FLOATS)));
}

/* A point (x, y, z, fill) in every block: one 16-byte broadcast load, the
   fill merged in by its mask. The fourth float read is the next vertex's x,
   or lies in the point's record (a stride is at least 12 bytes): the loop
   leaves the run's last vertex to its tail. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE __m512 fk__point_rows_avx512(const char *p, __m512 fill)
{
    return _mm512_mask_broadcast_f32x4(fill, 0x7777, _mm_loadu_ps((const float *)(const void *)p));
}

/* The four products' sums within each block, by in-lane shuffles only: for
   vertex v's rows times its point, x' of the four vertices in block 0, y' in
   block 1, z' in block 2, lane v. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE __m512 fk__sum_lanes4_avx512(__m512 p0, __m512 p1, __m512 p2, __m512 p3)
{
    __m512 a = _mm512_add_ps(_mm512_unpacklo_ps(p0, p1), _mm512_unpackhi_ps(p0, p1));
    __m512 b = _mm512_add_ps(_mm512_unpacklo_ps(p2, p3), _mm512_unpackhi_ps(p2, p3));
    return _mm512_add_ps(_mm512_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 1, 0)), _mm512_shuffle_ps(a, b, _MM_SHUFFLE(3, 2, 3, 2)));
}

/* Masked stores of 12 and 24 bytes from a 128-bit and a 256-bit register.
   gcc fuses a masked store of lanes taken out of a wider register into one
   vextractf32x4 (or vextractf32x8) to memory, and on an AMD Zen 4 and an
   Intel Xeon that instruction faults where its masked-off lanes would reach an
   unwritable page; a masked vmovups does not (test_simd: DQS on 1008 interleaved records
   whose output ends at an unmapped page). The empty asm makes the register's
   value opaque to the compiler, so the two stay apart. (The 24-byte store
   never writes a run's last vertex today: the LBS loops that use it leave
   that vertex to their tail, so its masked-off lanes stay inside the next
   record, and no test can make it fault. It is kept apart all the same, for
   a loop that does.) */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__store3_masked_avx512(char *p, __m128 point)
{
    __asm__("" : "+v"(point));
    _mm_mask_storeu_ps((float *)(void *)p, 7, point);
}

static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__store6_masked_avx512(char *p, __m256 pair)
{
    __asm__("" : "+v"(pair));
    _mm256_mask_storeu_ps((float *)(void *)p, 0x3F, pair);
}

/* Writes x y z of lane v (blocks 0, 1, 2) to packed vertex v: one permute, a
   32-byte and a 16-byte store (not one masked 64-byte store: in place, the next
   four vertices' loads overlap its 64 bytes and wait for it; performance.md). */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__store4x3_lanes_avx512(char *p, __m512 across)
{
    __m512 packed = _mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 0, 0, 0, 0), across);
    _mm256_storeu_ps((float *)(void *)p, _mm512_castps512_ps256(packed));
    _mm_storeu_ps((float *)(void *)(p + 32), _mm512_extractf32x4_ps(packed, 2));
}

/* fk__store4x3_lanes_avx512() at any stride: the lanes of each vertex brought
   together by one permute, then a masked 12-byte store each. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__store4x3_strided_avx512(char *p, size_t stride, __m512 across)
{
    __m512 blocks = _mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), across);
    fk__store3_masked_avx512(p, _mm512_castps512_ps128(blocks));
    fk__store3_masked_avx512(p + stride, _mm512_extractf32x4_ps(blocks, 1));
    fk__store3_masked_avx512(p + 2 * stride, _mm512_extractf32x4_ps(blocks, 2));
    fk__store3_masked_avx512(p + 3 * stride, _mm512_extractf32x4_ps(blocks, 3));
}

/* Where fk__lbs_avx512_loop() writes four vertices' positions and normals at
   strides other than packed: each array apart; or each normal right after its
   position (x y z nx ny nz), both at one stride; or such pairs packed, 24
   bytes a vertex. Decided once per run. */
enum { FK__OUT_APART, FK__OUT_PAIRS, FK__OUT_PACKED_PAIRS };

static int fk__out_shape(const fk__skin_run *r, const int normals)
{
    const size_t point_bytes = 3 * sizeof(float);
    if (!normals || r->out_normals != r->out_positions + point_bytes || r->out_normal_stride != r->out_position_stride)
        return FK__OUT_APART;
    return r->out_position_stride == 2 * point_bytes ? FK__OUT_PACKED_PAIRS : FK__OUT_PAIRS;
}

/* Writes four vertices' positions and normals, as fk__sum_lanes4_avx512()
   leaves them, as pairs: with packed pairs, two permutes pick the 96 bytes
   for a 64-byte and a 32-byte store; otherwise two permutes put vertex v's
   pair in half v % 2 of a register, for a masked 24-byte store each (half the
   stores of the arrays apart, where four of them measured 6% of the loop's
   time on 48-byte records with normals). */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__store4x6_pairs_avx512(char *p, size_t stride, __m512 moved,
                                                                         __m512 turned, const int packed_pairs)
{
    float *out = (float *)(void *)p;
    if (packed_pairs) { /* lanes 16 and up are the normals */
        _mm512_storeu_ps(out, _mm512_permutex2var_ps(
                                  moved, _mm512_setr_epi32(0, 4, 8, 16, 20, 24, 1, 5, 9, 17, 21, 25, 2, 6, 10, 18), turned));
        _mm256_storeu_ps(out + 16, _mm512_castps512_ps256(_mm512_permutex2var_ps(
                                       moved, _mm512_setr_epi32(22, 26, 3, 7, 11, 19, 23, 27, 0, 0, 0, 0, 0, 0, 0, 0),
                                       turned)));
    } else {
        __m512 pairs01 = _mm512_permutex2var_ps(
            moved, _mm512_setr_epi32(0, 4, 8, 16, 20, 24, 0, 0, 1, 5, 9, 17, 21, 25, 0, 0), turned);
        __m512 pairs23 = _mm512_permutex2var_ps(
            moved, _mm512_setr_epi32(2, 6, 10, 18, 22, 26, 0, 0, 3, 7, 11, 19, 23, 27, 0, 0), turned);
        fk__store6_masked_avx512(p, _mm512_castps512_ps256(pairs01));
        fk__store6_masked_avx512(p + stride, _mm512_extractf32x8_ps(pairs01, 1));
        fk__store6_masked_avx512(p + 2 * stride, _mm512_castps512_ps256(pairs23));
        fk__store6_masked_avx512(p + 3 * stride, _mm512_extractf32x8_ps(pairs23, 1));
    }
}

/* The rare vertices of fk__normalize4_lanes_avx512(), out of line: inlined,
   this path cost the common one about 3% at a million vertices with normals. */
static FK__AVX512_TARGET __attribute__((noinline, cold)) __m512 fk__normalize4_lanes_exact_avx512(__m512 n)
{
    float lanes[16], v3[4];
    int v;
    _mm512_storeu_ps(lanes, n);
    for (v = 0; v < 4; ++v) {
        _mm_storeu_ps(v3, fk__normalize_sse(_mm_setr_ps(lanes[v], lanes[4 + v], lanes[8 + v], 0.0f)));
        lanes[v] = v3[0]; lanes[4 + v] = v3[1]; lanes[8 + v] = v3[2];
    }
    return _mm512_loadu_ps(lanes);
}

/* The squared length of normals, as both AVX-512 LBS renormalizations (four
   and sixteen vertices at a time) round it: two fused multiply-adds on x^2,
   written out, so that no compiler's choice to fuse can make the two round
   apart. They did: gcc's GNU modes fuse a product into a following sum across
   intrinsics, and fused (x^2 + y^2) + z^2 in the sixteen-vertex loop but not
   in the four-vertex one (a masked product), so that with gcc's defaults
   packed arrays and interleaved records gave a tenth of their normals other
   last bits (test_simd, layouts_give_the_same_bits). Written out, the
   sixteen-vertex loop is as fast as before (LBS with normals, 1M vertices,
   k = 4: 3.92 against 3.97 ms, five alternating rounds); the four-vertex one
   needs a third block shuffle, 4% slower on interleaved records with one or
   two influences (with four they take the sixteen-vertex loop). Keeping the
   products apart from the sums by an empty asm instead made the sixteen-vertex
   loop 1 to 2% slower. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE __m512 fk__length2_avx512(__m512 x, __m512 y, __m512 z)
{
    return _mm512_fmadd_ps(z, z, _mm512_fmadd_ps(y, y, _mm512_mul_ps(x, x)));
}

/* Normals laid out as fk__sum_lanes4_avx512() leaves them, each divided by its
   length: AVX-512's 14-bit estimate of 1/sqrt and the Newton step of
   fk__normalize_sse(), on fk__length2_avx512() of blocks 0 to 2, each
   broadcast to every block. Block 3 comes out as anything. Vertices whose
   length the estimate cannot take go one by one to fk__normalize_sse(), which
   hands them to the reference. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE __m512 fk__normalize4_lanes_avx512(__m512 n)
{
    const __m512 length2 = fk__length2_avx512(_mm512_shuffle_f32x4(n, n, _MM_SHUFFLE(0, 0, 0, 0)),
                                              _mm512_shuffle_f32x4(n, n, _MM_SHUFFLE(1, 1, 1, 1)),
                                              _mm512_shuffle_f32x4(n, n, _MM_SHUFFLE(2, 2, 2, 2)));
    if (FK__LIKELY(_mm512_fpclass_ps_mask(length2, FK__NOT_POSITIVE_NORMAL_CLASSES) == 0))
        return _mm512_mul_ps(n, fk__inverse_length_avx512(length2));
    return fk__normalize4_lanes_exact_avx512(n);
}

/* fk__joints_in_range_avx512() for four lists of up to eight indices at any
   stride: a masked load each (never past a list's end) and one test; lists of
   four, an 8-byte load each into 256 bits (with the 512-bit form, LBS on
   48-byte records with normals took 4% more time). Not
   inlined by force: in the loop for packed arrays it is never called, and the
   compiler then lays that loop out as before (with it forced inline there,
   packed LBS measured 1 to 3% slower, from registers and places alone). */
static FK__AVX512_TARGET int fk__four_lists_in_range_avx512(const fk__skin_run *r, const char *joint,
                                                          const int influences)
{
    const __mmask8 lanes = (__mmask8)((1u << influences) - 1u);
    const size_t stride = r->joint_stride;
    __m512i all;
    if (influences == 4) {
        __m128i low = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)joint),
                                         _mm_loadl_epi64((const __m128i *)(const void *)(joint + stride)));
        __m128i high = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)(joint + 2 * stride)),
                                          _mm_loadl_epi64((const __m128i *)(const void *)(joint + 3 * stride)));
        __m256i excess = _mm256_subs_epu16(_mm256_inserti128_si256(_mm256_castsi128_si256(low), high, 1),
                                           _mm256_set1_epi16((short)(unsigned short)r->joint_limit));
        return _mm256_testz_si256(excess, excess);
    }
    all = _mm512_castsi128_si512(_mm_maskz_loadu_epi16(lanes, joint));
    all = _mm512_inserti32x4(all, _mm_maskz_loadu_epi16(lanes, joint + stride), 1);
    all = _mm512_inserti32x4(all, _mm_maskz_loadu_epi16(lanes, joint + 2 * stride), 2);
    all = _mm512_inserti32x4(all, _mm_maskz_loadu_epi16(lanes, joint + 3 * stride), 3);
    all = _mm512_subs_epu16(all, _mm512_set1_epi16((short)(unsigned short)r->joint_limit));
    return _mm512_test_epi16_mask(all, all) == 0;
}

/* Whether the joint indices of the `count` (1 to 4) vertices from `joint` on are
   at most the run's limit: with packed lists of up to eight, one masked load of
   16-bit lanes (256 bits for up to four influences, 512 for up to eight) and a
   saturating subtraction that leaves nonzero lanes where an index is over; four lists of up to eight at any stride (interleaved
   records), a masked load each and the same test (the loop over them took a
   fifth of the time of LBS on 48-byte records in L2). */
static FK__AVX512_TARGET FK__ALWAYS_INLINE int fk__joints_in_range_avx512(const fk__skin_run *r, const char *joint,
                                                                         int count, const int influences,
                                                                         const int packed)
{
    if (packed && influences <= 4) { /* 16 indices at most: half the register, half the work on Zen 4 */
        __m256i excess = _mm256_subs_epu16(
            _mm256_maskz_loadu_epi16((__mmask16)((1u << (count * influences)) - 1u), joint),
            _mm256_set1_epi16((short)(unsigned short)r->joint_limit));
        return _mm256_testz_si256(excess, excess);
    } else if (packed && influences <= 8) {
        __m512i excess = _mm512_subs_epu16(
            _mm512_maskz_loadu_epi16((__mmask32)((1ull << (count * influences)) - 1u), joint),
            _mm512_set1_epi16((short)(unsigned short)r->joint_limit));
        return _mm512_test_epi16_mask(excess, excess) == 0;
    } else if (!packed && influences <= 8 && count == 4) {
        return fk__four_lists_in_range_avx512(r, joint, influences);
    } else {
        unsigned over = 0;
        int v, e;
        for (v = 0; v < count; ++v)
            for (e = 0; e < influences; ++e)
                over |= ((const uint16_t *)(const void *)(joint + (size_t)v * r->joint_stride))[e] > r->joint_limit;
        return !over;
    }
}

/* Whether the `lanes` packed joint indices from `joint` on are at most `limit`:
   32 indices per load (the last load masked, so nothing past them is read) and
   the saturating subtraction of fk__joints_in_range_avx512(). */
static FK__AVX512_TARGET FK__ALWAYS_INLINE int fk__packed_joints_in_range_avx512(const char *joint, size_t lanes,
                                                                                unsigned limit)
{
    const __m512i bound = _mm512_set1_epi16((short)(unsigned short)limit);
    __m512i excess = _mm512_setzero_si512();
    size_t done = 0;
    for (; done + 32 <= lanes; done += 32)
        excess = _mm512_or_si512(excess, _mm512_subs_epu16(_mm512_loadu_si512((const void *)(joint + 2 * done)), bound));
    if (done < lanes)
        excess = _mm512_or_si512(
            excess, _mm512_subs_epu16(_mm512_maskz_loadu_epi16((__mmask32)((1ull << (lanes - done)) - 1u), joint + 2 * done),
                                      bound));
    return _mm512_test_epi16_mask(excess, excess) == 0;
}

/* Sixteen packed points x0 y0 z0 x1 ... z15 (192 bytes) as x, y and z across. A
   coordinate's lanes lie in two of the three 64-byte loads: a two-source permute
   takes those in the first two, a masked permute the rest (the same indices
   serve both, as each reads only the low bits it needs). */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__load16x3_avx512(const char *p, __m512 xyz[3])
{
    const float *f = (const float *)(const void *)p;
    __m512 a = _mm512_loadu_ps(f), b = _mm512_loadu_ps(f + 16), c = _mm512_loadu_ps(f + 32);
    const __m512i x = _mm512_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45);
    const __m512i y = _mm512_add_epi32(x, _mm512_set1_epi32(1)), z = _mm512_add_epi32(x, _mm512_set1_epi32(2));
    /* lanes 11-15 of x and y, 10-15 of z, come from c */
    xyz[0] = _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(a, x, b), 0xF800, x, c);
    xyz[1] = _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(a, y, b), 0xF800, y, c);
    xyz[2] = _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(a, z, b), 0xFC00, z, c);
}

/* The inverse of fk__load16x3_avx512(): each 64-byte store takes x and y lanes
   by a two-source permute and z lanes by a masked one. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__store16x3_avx512(char *p, const __m512 xyz[3])
{
    float *f = (float *)(void *)p;
    const __m512i first = _mm512_setr_epi32(0, 16, 0, 1, 17, 1, 2, 18, 2, 3, 19, 3, 4, 20, 4, 5);
    const __m512i second = _mm512_setr_epi32(21, 5, 6, 22, 6, 7, 23, 7, 8, 24, 8, 9, 25, 9, 10, 26);
    const __m512i third = _mm512_setr_epi32(10, 11, 27, 11, 12, 28, 12, 13, 29, 13, 14, 30, 14, 15, 31, 15);
    _mm512_storeu_ps(f, _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(xyz[0], first, xyz[1]), 0x4924, first, xyz[2]));
    _mm512_storeu_ps(f + 16, _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(xyz[0], second, xyz[1]), 0x2492, second,
                                                        xyz[2]));
    _mm512_storeu_ps(f + 32,
                     _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(xyz[0], third, xyz[1]), 0x9249, third, xyz[2]));
}

/* Writes sixteen packed vertices' x y z, as fk__sum_lanes4_avx512() left them
   for four vertices each, in three 64-byte stores: each line is picked from two
   of the four by one permute (three permutes for sixteen vertices, where
   fk__store4x3_lanes_avx512() takes four). Streamed (p then 64-byte aligned),
   the lines go to memory without being read first. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__store16x3_lanes_avx512(char *p, const __m512 across[4],
                                                                         const int stream)
{
    float *out = (float *)(void *)p;
    __m512 line0 = _mm512_permutex2var_ps(across[0], _mm512_setr_epi32(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 16, 20, 24, 17),
                                          across[1]);
    __m512 line1 = _mm512_permutex2var_ps(across[1], _mm512_setr_epi32(5, 9, 2, 6, 10, 3, 7, 11, 16, 20, 24, 17, 21, 25, 18, 22),
                                          across[2]);
    __m512 line2 = _mm512_permutex2var_ps(across[2], _mm512_setr_epi32(10, 3, 7, 11, 16, 20, 24, 17, 21, 25, 18, 22, 26, 19, 23, 27),
                                          across[3]);
    if (stream) {
        _mm512_stream_ps(out, line0);
        _mm512_stream_ps(out + 16, line1);
        _mm512_stream_ps(out + 32, line2);
    } else {
        _mm512_storeu_ps(out, line0);
        _mm512_storeu_ps(out + 16, line1);
        _mm512_storeu_ps(out + 32, line2);
    }
}

/* x, y and z of sixteen normals across, from four registers of four vertices
   as fk__sum_lanes4_avx512() leaves them (seven block shuffles), and the sums
   of their squares (fk__length2_avx512(), as in fk__normalize4_lanes_avx512()). */
static FK__AVX512_TARGET FK__ALWAYS_INLINE __m512 fk__gather16_lanes_avx512(const __m512 turned[4], __m512 xyz[3])
{
    const __m512 xy01 = _mm512_shuffle_f32x4(turned[0], turned[1], _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 xy23 = _mm512_shuffle_f32x4(turned[2], turned[3], _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 z01 = _mm512_shuffle_f32x4(turned[0], turned[1], _MM_SHUFFLE(2, 2, 2, 2));
    const __m512 z23 = _mm512_shuffle_f32x4(turned[2], turned[3], _MM_SHUFFLE(2, 2, 2, 2));
    xyz[0] = _mm512_shuffle_f32x4(xy01, xy23, _MM_SHUFFLE(2, 0, 2, 0));
    xyz[1] = _mm512_shuffle_f32x4(xy01, xy23, _MM_SHUFFLE(3, 1, 3, 1));
    xyz[2] = _mm512_shuffle_f32x4(z01, z23, _MM_SHUFFLE(2, 0, 2, 0));
    return fk__length2_avx512(xyz[0], xyz[1], xyz[2]);
}

/* Sixteen normals, four vertices a register as fk__sum_lanes4_avx512() leaves
   them, divided by their lengths in place: the lengths of all sixteen from
   one class test, estimate and Newton step (fk__gather16_lanes_avx512()), and
   each register's four multiplied back by a block shuffle of them (or, if a
   length is out of range, fk__normalize4_lanes_avx512() for each register).
   For layouts other than packed, whose stores want the lanes as they are:
   four at a time took LBS with normals 4.5% longer at 100k vertices on
   48-byte records, 12% on 32-byte records with the normal apart, on a Zen 4. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__normalize16_lanes_avx512(__m512 turned[4])
{
    __m512 xyz[3];
    const __m512 length2 = fk__gather16_lanes_avx512(turned, xyz);
    int g;
    if (FK__LIKELY(_mm512_fpclass_ps_mask(length2, FK__NOT_POSITIVE_NORMAL_CLASSES) == 0)) {
        const __m512 inverse = fk__inverse_length_avx512(length2);
        turned[0] = _mm512_mul_ps(turned[0], _mm512_shuffle_f32x4(inverse, inverse, _MM_SHUFFLE(0, 0, 0, 0)));
        turned[1] = _mm512_mul_ps(turned[1], _mm512_shuffle_f32x4(inverse, inverse, _MM_SHUFFLE(1, 1, 1, 1)));
        turned[2] = _mm512_mul_ps(turned[2], _mm512_shuffle_f32x4(inverse, inverse, _MM_SHUFFLE(2, 2, 2, 2)));
        turned[3] = _mm512_mul_ps(turned[3], _mm512_shuffle_f32x4(inverse, inverse, _MM_SHUFFLE(3, 3, 3, 3)));
    } else {
        FK__UNROLL
        for (g = 0; g < 4; ++g) turned[g] = fk__normalize4_lanes_avx512(turned[g]);
    }
}

/* Sixteen normals, four vertices a register as fk__sum_lanes4_avx512() leaves
   them, divided by their lengths and written packed: x, y and z across
   (fk__gather16_lanes_avx512()), all sixteen lengths from one estimate and
   Newton step, and fk__store16x3_avx512(). Four at a time in the lanes they
   came in (fk__normalize4_lanes_avx512() as it was then, two block shuffles
   each, and a class test and an estimate for every four) took LBS with normals 12% longer
   at 100k vertices, k = 4, and 21% with k = 1, on an AMD Zen 4;
   fk__normalize16_lanes_avx512() and the lanes' store, 10% longer. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__normalize_store16_avx512(char *p, __m512 turned[4])
{
    __m512 xyz[3];
    const __m512 length2 = fk__gather16_lanes_avx512(turned, xyz);
    int g;
    if (FK__LIKELY(_mm512_fpclass_ps_mask(length2, FK__NOT_POSITIVE_NORMAL_CLASSES) == 0)) {
        const __m512 inverse = fk__inverse_length_avx512(length2);
        FK__UNROLL
        for (g = 0; g < 3; ++g) xyz[g] = _mm512_mul_ps(xyz[g], inverse);
        fk__store16x3_avx512(p, xyz);
    } else {
        FK__UNROLL
        for (g = 0; g < 4; ++g) turned[g] = fk__normalize4_lanes_avx512(turned[g]);
        fk__store16x3_lanes_avx512(p, turned, 0);
    }
}

/* Writes four packed vertices' positions (and normals) as
   fk__lbs_rows4_avx512() leaves them. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__lbs_store4_packed_avx512(const fk__skin_run *r, __m512 moved,
                                                                            __m512 turned, const int normals)
{
    if (normals) fk__store4x3_lanes_avx512(r->out_normals, turned);
    fk__store4x3_lanes_avx512(r->out_positions, moved);
}

/* How many vertices fk__lbs16_avx512() does before its first streamed line
   (the output positions then sit on a 64-byte boundary), or -1 when the run
   reads and writes fewer than FK_LBS_STREAM_MIN_BYTES (its arrays are packed:
   24 bytes of positions in and out, 6 per influence, 24 of normals), or its
   output positions do not start on a 16-byte boundary, or it is too short to
   reach a line: then it stores as usual, and the output stays in the caches
   for whatever reads it next.
   From a 16-byte boundary the head is 0, 4, 8 or 12 vertices (12 * head runs
   through the multiples of 16 mod 64), so that it goes four at a time by the
   same arithmetic as the rest and every vertex comes out with the bits it has
   in other layouts. (Heads of any length, by other loops, gave a few vertices
   at each end other last bits.) */
static int fk__stream_head(const fk__skin_run *r)
{
    const uintptr_t out = (uintptr_t)r->out_positions;
    const unsigned vertex_bytes = 24u + 6u * (unsigned)r->influences + (r->normals ? 24u : 0u);
    const unsigned long long bytes = (unsigned long long)r->count * vertex_bytes;
    int head = 0;
    if (bytes < (unsigned long long)FK_LBS_STREAM_MIN_BYTES || out % 16u != 0) return -1;
    while ((out + 12u * (unsigned)head) % 64u != 0) head += 4;
    return head + 16 < r->count ? head : -1;
}

/* The rows step of LBS for the four vertices from vertex `at` of the run on: each vertex's blended rows, its point in every block, and the
   sums within blocks, which leave x', y', z' of the four in blocks 0, 1, 2
   (fk__sum_lanes4_avx512()). With normals, *turned gets theirs, renormalized
   if `normalize`. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE __m512 fk__lbs_rows4_avx512(const fk__skin_run *r, const float *rows, size_t at,
                                                                      const int influences, const int pick_weights,
                                                                      const int normals,
                                                                      __m512 *turned, const int normalize,
                                                                      const int lanes)
{
    const __m512 one = _mm512_set1_ps(1.0f), zero = _mm512_setzero_ps();
    __m512 m[4], point[4], normal[4], moved;
    int v;
    FK__UNROLL
    for (v = 0; v < 4; ++v) {
        const size_t from = at + (size_t)(v < lanes ? v : lanes - 1); /* lanes: 4, or in the tail 1 to 4 */
        m[v] = fk__lbs_blend_avx512(rows, r->joints + from * r->joint_stride, r->weights + from * r->weight_stride,
                                    influences, pick_weights);
    }
    FK__UNROLL
    for (v = 0; v < 4; ++v) {
        const size_t from = at + (size_t)(v < lanes ? v : lanes - 1);
        point[v] = fk__point_rows_avx512(r->positions + from * r->position_stride, one);
        if (normals) normal[v] = fk__point_rows_avx512(r->normals + from * r->normal_stride, zero);
    }
    moved = fk__sum_lanes4_avx512(_mm512_mul_ps(m[0], point[0]), _mm512_mul_ps(m[1], point[1]),
                                  _mm512_mul_ps(m[2], point[2]), _mm512_mul_ps(m[3], point[3]));
    if (normals) { /* the translation lanes are left out, not multiplied by 0: inf * 0 is NaN */
        *turned = fk__sum_lanes4_avx512(
            _mm512_maskz_mul_ps(0x7777, m[0], normal[0]), _mm512_maskz_mul_ps(0x7777, m[1], normal[1]),
            _mm512_maskz_mul_ps(0x7777, m[2], normal[2]), _mm512_maskz_mul_ps(0x7777, m[3], normal[3]));
        if (normalize) *turned = fk__normalize4_lanes_avx512(*turned);
    }
    return moved;
}

/* The last one to four vertices of a run (`lanes` of them), by
   fk__lbs_rows4_avx512() as every other vertex, as fk__lbs_tail_avx2() does
   them for the AVX2 loop (see fk__tail_points()). */
static FK__AVX512_TARGET void fk__lbs_tail_avx512(const fk__skin_run *r, const float *rows, const int lanes,
                                                  const int influences, const int pick_weights, const int normals)
{
    float points[2][4 * 3 + 1], out[2][4 * 3 + 4];
    fk__skin_run copied = *r;
    __m512 moved, turned = _mm512_setzero_ps();
    fk__tail_points(r, lanes, 4, normals, points[0], points[1]);
    copied.positions = (const char *)(const void *)points[0];
    copied.normals = (const char *)(const void *)points[1];
    copied.position_stride = copied.normal_stride = 3 * sizeof(float);
    moved = fk__lbs_rows4_avx512(&copied, rows, 0, influences, pick_weights, normals, &turned, 1, lanes);
    fk__store4x3_lanes_avx512((char *)(void *)out[0], moved);
    if (normals) fk__store4x3_lanes_avx512((char *)(void *)out[1], turned);
    fk__tail_results(r, lanes, normals, out[0], out[1]);
}

/* LBS on packed arrays, sixteen vertices an iteration: the four-vertex step of
   fk__lbs_avx512_loop() four times, with the sixteen vertices' indices checked
   up front and their results written as whole 64-byte lines. In runs that
   move FK_LBS_STREAM_MIN_BYTES or more the position lines are streamed: a
   store that misses the caches otherwise has the line read from memory first
   (a quarter more traffic without normals), and, on an Intel Xeon with a large
   cache, streaming paid only where the data outgrew it (3 million vertices
   and more; at one million it cost 6 to 8%). Streamed lines are not asked for
   ahead: there the prefetch made LBS take up to 1.9 times as long (on a Zen 4
   it had saved 1 to 2%). Normals are stored as usual: streamed as well, they
   made LBS with normals 13% slower on a Zen 4. Leaves the last vertex and
   fewer than 16 before it to the caller's four-vertex loop; returns how many
   it did, or -1 - done when a group had a bad index. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE int fk__lbs16_avx512(fk__skin_run *run, const float *rows, const int influences,
                                                               const int pick_weights, const int normals)
{
    fk__skin_run r_ = *run, *r = &r_; /* a copy, as in fk__lbs_avx512_loop() */
    const int head = fk__stream_head(r), stream = head >= 0;
    const int prefetch_plan = stream ? FK__PREFETCH_ALL & ~FK__PREFETCH_OUT_POSITIONS : FK__PREFETCH_ALL;
    int i = 0, g;
    if (head > 0 && !fk__packed_joints_in_range_avx512(r->joints, (size_t)head * (size_t)influences, r->joint_limit))
        return -1;
    for (; i < head; i += 4) { /* the four-vertex step of fk__lbs_avx512_loop() */
        __m512 turned = _mm512_setzero_ps(); /* set only with normals */
        const __m512 moved = fk__lbs_rows4_avx512(r, rows, 0, influences, pick_weights, normals, &turned, 1, 4);
        fk__lbs_store4_packed_avx512(r, moved, turned, normals);
        fk__skin_advance(r, normals, 4);
    }
    for (; i + 16 < r->count; i += 16) {
        __m512 moved[4], turned[4];
        if (!fk__packed_joints_in_range_avx512(r->joints, 16 * (size_t)influences, r->joint_limit)) {
            if (stream) _mm_sfence();
            return -1 - i;
        }
        FK__UNROLL
        for (g = 0; g < 4; ++g) {
            fk__prefetch_ahead(r, prefetch_plan, normals, 4 * (size_t)g);
            moved[g] = fk__lbs_rows4_avx512(r, rows, 4 * (size_t)g, influences, pick_weights, normals, &turned[g], 0,
                                            4);
        }
        fk__store16x3_lanes_avx512(r->out_positions, moved, stream);
        if (normals) fk__normalize_store16_avx512(r->out_normals, turned); /* streamed: 13% slower, on a Zen 4 */
        fk__skin_advance(r, normals, 16);
    }
    if (stream) _mm_sfence(); /* streamed lines are ordered as usual from here on */
    *run = r_;
    return i;
}

/* Writes the four vertices from vertex `at` of the run on, as
   fk__lbs_rows4_avx512() leaves them, in layouts other than packed (out_shape:
   see fk__out_shape()). */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__lbs_store4_strided_avx512(const fk__skin_run *r, size_t at,
                                                                             __m512 moved, __m512 turned,
                                                                             const int normals, int out_shape)
{
    char *positions = r->out_positions + at * r->out_position_stride;
    if (out_shape != FK__OUT_APART) {
        fk__store4x6_pairs_avx512(positions, r->out_position_stride, moved, turned, out_shape == FK__OUT_PACKED_PAIRS);
    } else {
        if (normals) fk__store4x3_strided_avx512(r->out_normals + at * r->out_normal_stride, r->out_normal_stride, turned);
        fk__store4x3_strided_avx512(positions, r->out_position_stride, moved);
    }
}

/* LBS with normals in layouts other than packed, sixteen vertices an
   iteration, so that their normals are normalized together
   (fk__normalize16_lanes_avx512()): the four-vertex step of
   fk__lbs_avx512_loop() four times. A group with a bad index stops it before
   any of the sixteen is written, and the caller's four-vertex loop finds the
   index. Leaves the last vertex to the caller; returns how many it did. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE int fk__lbs16_strided_avx512(fk__skin_run *r, const float *rows,
                                                                       const int influences, const int pick_weights,
                                                                       int prefetch_plan, int out_shape)
{
    const size_t group = 4 * r->joint_stride;
    int i, g;
    for (i = 0; i + 16 < r->count; i += 16) {
        __m512 moved[4], turned[4];
        if (!(fk__joints_in_range_avx512(r, r->joints, 4, influences, 0) &&
              fk__joints_in_range_avx512(r, r->joints + group, 4, influences, 0) &&
              fk__joints_in_range_avx512(r, r->joints + 2 * group, 4, influences, 0) &&
              fk__joints_in_range_avx512(r, r->joints + 3 * group, 4, influences, 0)))
            break;
        FK__UNROLL
        for (g = 0; g < 4; ++g) {
            fk__prefetch_ahead(r, prefetch_plan, 1, 4 * (size_t)g);
            moved[g] = fk__lbs_rows4_avx512(r, rows, 4 * (size_t)g, influences, pick_weights, 1, &turned[g], 0, 4);
        }
        fk__normalize16_lanes_avx512(turned);
        FK__UNROLL
        for (g = 0; g < 4; ++g) fk__lbs_store4_strided_avx512(r, 4 * (size_t)g, moved[g], turned[g], 1, out_shape);
        fk__skin_advance(r, 1, 16);
    }
    return i;
}

/* Checks the joint indices as it goes (see fk__skin_loop). */
static FK__AVX512_TARGET FK__ALWAYS_INLINE int fk__lbs_avx512_loop(const fk__skin_run *run, const int influences,
                                                                    const int pick_weights, const int normals,
                                                                    const int layout)
{
    fk__skin_run r = *run; /* see fk__skin_advance() */
    const int packed = layout == FK__LAYOUT_PACKED;
    const size_t point_bytes = 3 * sizeof(float);
    float row_storage[FK_LBS_PALETTE_CAPACITY * FK__LBS_BONE_FLOATS + 16];
    float *rows = fk__align64(row_storage);
    int i = 0, prefetch_plan, out_shape;
    fk__lbs_rows_avx512(r.palette, (int)r.joint_limit + 1, rows);
    if (packed) {
        r.position_stride = r.normal_stride = r.out_position_stride = r.out_normal_stride = point_bytes;
        r.joint_stride = (size_t)influences * sizeof(uint16_t);
        r.weight_stride = (size_t)influences * sizeof(float);
        /* k = 8 without normals: 0 to 4% slower at 1M (with them 10% faster); 3, 5: 20% */
        if (influences == 1 || influences == 2 || influences == 4 || (influences == 8 && normals)) {
            i = fk__lbs16_avx512(&r, rows, influences, pick_weights, normals);
            if (i < 0) return -1 - i;
        }
    } else if (layout == FK__LAYOUT_RECORDS) {
        r.normal_stride = r.joint_stride = r.weight_stride = r.position_stride;
        r.out_normal_stride = r.out_position_stride;
    }
    prefetch_plan = packed ? FK__PREFETCH_ALL : fk__prefetch_plan(&r);
    out_shape = packed ? FK__OUT_APART : fk__out_shape(&r, normals);
    /* four influences only: in every copy of the loop, the pass took the header
       half as long again to compile (9 to 13.5 s at -O2), for 5 to 12% */
    if (!packed && normals && influences == 4)
        i = fk__lbs16_strided_avx512(&r, rows, influences, pick_weights, prefetch_plan, out_shape);
    /* the last vertex of the run is left to the tail, so that every 16-byte
       point load stays inside the arrays */
    for (; i + 4 < r.count; i += 4) {
        __m512 moved, turned = _mm512_setzero_ps(); /* set only with normals */
        if (!fk__joints_in_range_avx512(&r, r.joints, 4, influences, packed)) return i;
        fk__prefetch_ahead(&r, prefetch_plan, normals, 0);
        moved = fk__lbs_rows4_avx512(&r, rows, 0, influences, pick_weights, normals, &turned, 1, 4);
        if (packed) {
            fk__lbs_store4_packed_avx512(&r, moved, turned, normals);
        } else {
            fk__lbs_store4_strided_avx512(&r, 0, moved, turned, normals, out_shape);
        }
        fk__skin_advance(&r, normals, 4);
    }
    r.count -= i; /* the last one to four vertices */
    if (r.count > 0 && !fk__joints_in_range_avx512(&r, r.joints, r.count, influences, packed)) return i;
    if (r.count > 0) fk__lbs_tail_avx512(&r, rows, r.count, influences, pick_weights, normals);
    return run->count;
}

static FK__AVX512_TARGET FK__ALWAYS_INLINE int fk__lbs_avx512_packed(const fk__skin_run *run, const int influences,
                                                                      const int normals)
{
    return fk__lbs_avx512_loop(run, influences, 1, normals, FK__LAYOUT_PACKED);
}

static FK__AVX512_TARGET FK__ALWAYS_INLINE int fk__lbs_avx512_packed_loaded(const fk__skin_run *run, const int influences,
                                                                             const int normals)
{
    return fk__lbs_avx512_loop(run, influences, 0, normals, FK__LAYOUT_PACKED);
}

/* Interleaved records: four influences only (what vertex buffers hold), as a
   copy for every count took the header a fifth longer to compile; a copy with
   normals and one without, as FK__SKIN_SPECIALIZE() makes them. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE int fk__lbs_avx512_records(const fk__skin_run *run, const int pick_weights)
{
#if defined(__OPTIMIZE__)
    return run->normals ? fk__lbs_avx512_loop(run, 4, pick_weights, 1, FK__LAYOUT_RECORDS)
                        : fk__lbs_avx512_loop(run, 4, pick_weights, 0, FK__LAYOUT_RECORDS);
#else /* one copy, as FK__SKIN_SPECIALIZE() makes in unoptimized builds */
    return fk__lbs_avx512_loop(run, 4, pick_weights, run->normals != NULL, FK__LAYOUT_RECORDS);
#endif
}

static FK__AVX512_TARGET FK__ALWAYS_INLINE int fk__lbs_avx512_strided(const fk__skin_run *run, const int influences,
                                                                       const int normals)
{
    return fk__lbs_avx512_loop(run, influences, 1, normals, FK__LAYOUT_STRIDED);
}

/* Packed arrays and other layouts in functions of their own, so that a change
   to one loop does not move the other's code: with both in one function, a
   faster index check for interleaved records made packed LBS with normals 4 to
   6% slower (a harness, alternating runs), with no change to its instructions
   but their registers and places. */
#undef FK__SIMD_TARGET
#define FK__SIMD_TARGET FK__AVX512_TARGET __attribute__((noinline))
FK__SKIN_SPECIALIZE(fk__lbs_avx512_packed_run, fk__lbs_avx512_packed)
/* Packed arrays with four or eight influences, each weight read by a broadcast
   load (see FK__LOAD_WEIGHTS() below); other counts read them so anyway. */
static FK__SIMD_TARGET int fk__lbs_avx512_packed_loaded_run(const fk__skin_run *run)
{
#if defined(__OPTIMIZE__)
    const int normals = run->normals != NULL;
    if (run->influences == 4)
        return normals ? fk__lbs_avx512_packed_loaded(run, 4, 1) : fk__lbs_avx512_packed_loaded(run, 4, 0);
    if (run->influences == 8)
        return normals ? fk__lbs_avx512_packed_loaded(run, 8, 1) : fk__lbs_avx512_packed_loaded(run, 8, 0);
#endif
    return fk__lbs_avx512_packed_loaded(run, run->influences, run->normals != NULL);
}
/* Interleaved records, the weights read either way (see FK__LOAD_WEIGHTS()
   below), each way in a function of its own: the four copies in one function
   took 3.9 to 4.1 ms where each pair apart took 3.5 to 3.6 (1M vertices with
   normals, weights by broadcast loads, on the Intel Xeon). */
static FK__SIMD_TARGET int fk__lbs_avx512_records_run(const fk__skin_run *run)
{
    return fk__lbs_avx512_records(run, 1);
}

static FK__SIMD_TARGET int fk__lbs_avx512_records_loaded_run(const fk__skin_run *run)
{
    return fk__lbs_avx512_records(run, 0);
}
FK__SKIN_SPECIALIZE(fk__lbs_avx512_strided_run, fk__lbs_avx512_strided)
#undef FK__SIMD_TARGET
#define FK__SIMD_TARGET FK__AVX512_TARGET

/* Whether the AVX-512 LBS loop reads a vertex's weights by a broadcast load
   each rather than four by one load and picked out by shuffles. Shuffles of
   512-bit registers run on one port of Intel's cores, the port that also takes
   half the multiply-adds, while a broadcast load takes only a load port; on an
   AMD Zen 4 a broadcast into a 512-bit register takes a load and a shuffle
   unit, and the loads are the loop's limit. Measured at a million vertices,
   packed arrays (a harness, fastest of 15 calls, three alternating rounds):
   on an Intel Xeon with AVX-512, broadcast loads took k = 4 1.96 ms against
   2.17, with normals 2.81 against 3.10, k = 8 3.46 against 3.97, k = 8 with
   normals 4.39 against 4.85, on interleaved records (k = 4, normals) 3.49
   against 3.72; on a Zen 4, shuffles took 6% less time on packed arrays and
   5% on records (see fk__weight_avx512()). The vendor stands for the
   microarchitecture: other cores of either may differ. FK__LOAD_WEIGHTS()
   lets test_simd run both ways on one machine. */
#ifndef FK__LOAD_WEIGHTS
#define FK__LOAD_WEIGHTS() __builtin_cpu_is("intel")
#endif

static FK__AVX512_TARGET int fk__lbs_avx512(const fk__skin_run *run)
{
    int done;
    if (fk__skin_run_packed(run))
        done = run->influences % 4 == 0 && FK__LOAD_WEIGHTS() ? fk__lbs_avx512_packed_loaded_run(run)
                                                              : fk__lbs_avx512_packed_run(run);
    else if (run->influences == 4 && fk__skin_run_records(run))
        done = FK__LOAD_WEIGHTS() ? fk__lbs_avx512_records_loaded_run(run) : fk__lbs_avx512_records_run(run);
    else
        done = fk__lbs_avx512_strided_run(run); /* the rare layouts: shuffles, as on AMD */
    return fk__upper_cleared(done);
}

/* DQS with AVX-512, sixteen vertices at a time: any number of influences on
   tightly packed arrays, four on any other layout (interleaved records: each
   point then a masked load and store, transposed in registers); the AVX2 loop
   takes the rest, and the last up to 15 vertices. The blends are those of the
   AVX2 loop, one eight-lane register per vertex; the finish is
   fk__dqs8_avx2()'s arithmetic, lane for lane, on sixteen lanes, so the two
   loops give the same bits. What the wider registers save is
   shuffling: the sixteen vertices' 192 bytes of positions are three 64-byte
   loads picked apart by two permutes per coordinate, and the blends become
   sixteen lanes of rx ... dw in 32 shuffles, where eight lanes took 28. The
   passes over the sixteen vertices are unrolled by eight, not sixteen: fully
   unrolled, this function alone was 243 KB of code and the header took three
   times as long to compile, for a few percent. */

/* Sixteen blends, vertex v in blend[v], become eight registers of sixteen lanes,
   lane v for vertex v: real x y z w, then dual x y z w. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__transpose_blends16_avx512(const __m256 blend[16], __m512 part[8])
{
    /* block 0 of pair[j] is blend j's real part, block 1 its dual part, blocks 2
       and 3 those of blend j + 8 */
    const __m512i real_blocks = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27);
    const __m512i dual_blocks = _mm512_setr_epi32(4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31);
    __m512 pair[8], across[2][4];
    int j, h;
    FK__UNROLL
    for (j = 0; j < 8; ++j) pair[j] = _mm512_insertf32x8(_mm512_castps256_ps512(blend[j]), blend[j + 8], 1);
    FK__UNROLL
    for (h = 0; h < 2; ++h) { /* h = 0: blends 0-3 and 8-11; h = 1: 4-7 and 12-15 */
        __m512 low01 = _mm512_unpacklo_ps(pair[4 * h], pair[4 * h + 1]);
        __m512 high01 = _mm512_unpackhi_ps(pair[4 * h], pair[4 * h + 1]);
        __m512 low23 = _mm512_unpacklo_ps(pair[4 * h + 2], pair[4 * h + 3]);
        __m512 high23 = _mm512_unpackhi_ps(pair[4 * h + 2], pair[4 * h + 3]);
        /* across[h][c]: coordinate c of four blends in each block */
        across[h][0] = _mm512_shuffle_ps(low01, low23, _MM_SHUFFLE(1, 0, 1, 0));
        across[h][1] = _mm512_shuffle_ps(low01, low23, _MM_SHUFFLE(3, 2, 3, 2));
        across[h][2] = _mm512_shuffle_ps(high01, high23, _MM_SHUFFLE(1, 0, 1, 0));
        across[h][3] = _mm512_shuffle_ps(high01, high23, _MM_SHUFFLE(3, 2, 3, 2));
    }
    FK__UNROLL
    for (j = 0; j < 4; ++j) {
        part[j] = _mm512_permutex2var_ps(across[0][j], real_blocks, across[1][j]);
        part[4 + j] = _mm512_permutex2var_ps(across[0][j], dual_blocks, across[1][j]);
    }
}

/* fk__load16x3_avx512() for points at any stride (interleaved records): each
   point is one masked 12-byte load (nothing past it is read) into a 128-bit
   block, points j, j + 4, j + 8, j + 12 in block[j], and a 4 x 4 transpose
   within each 128-bit lane puts lane v of x, y and z at point v. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__load16x3_strided_avx512(const char *p, size_t stride, __m512 xyz[3])
{
    __m512 block[4], low01, low23, high01, high23;
    int j;
    FK__UNROLL
    for (j = 0; j < 4; ++j) {
        block[j] = _mm512_castps128_ps512(_mm_maskz_loadu_ps(7, p + (size_t)j * stride));
        block[j] = _mm512_insertf32x4(block[j], _mm_maskz_loadu_ps(7, p + (size_t)(j + 4) * stride), 1);
        block[j] = _mm512_insertf32x4(block[j], _mm_maskz_loadu_ps(7, p + (size_t)(j + 8) * stride), 2);
        block[j] = _mm512_insertf32x4(block[j], _mm_maskz_loadu_ps(7, p + (size_t)(j + 12) * stride), 3);
    }
    low01 = _mm512_unpacklo_ps(block[0], block[1]);  /* x_a x_b y_a y_b, a = 4 L, b = 4 L + 1 */
    low23 = _mm512_unpacklo_ps(block[2], block[3]);  /* the same for 4 L + 2 and 4 L + 3 */
    high01 = _mm512_unpackhi_ps(block[0], block[1]); /* z_a z_b, then the unread lanes */
    high23 = _mm512_unpackhi_ps(block[2], block[3]);
    xyz[0] = _mm512_shuffle_ps(low01, low23, _MM_SHUFFLE(1, 0, 1, 0));
    xyz[1] = _mm512_shuffle_ps(low01, low23, _MM_SHUFFLE(3, 2, 3, 2));
    xyz[2] = _mm512_shuffle_ps(high01, high23, _MM_SHUFFLE(1, 0, 1, 0));
}

/* The inverse of fk__load16x3_strided_avx512(): the transpose back, then one
   masked 12-byte store per point (nothing between records is written). */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__store16x3_strided_avx512(char *p, size_t stride, const __m512 xyz[3])
{
    const __m512 xy_low = _mm512_unpacklo_ps(xyz[0], xyz[1]), xy_high = _mm512_unpackhi_ps(xyz[0], xyz[1]);
    const __m512 zz_low = _mm512_unpacklo_ps(xyz[2], xyz[2]), zz_high = _mm512_unpackhi_ps(xyz[2], xyz[2]);
    __m512 block[4]; /* block[j]: x y z z of point 4 L + j in 128-bit lane L */
    int j;
    block[0] = _mm512_shuffle_ps(xy_low, zz_low, _MM_SHUFFLE(1, 0, 1, 0));
    block[1] = _mm512_shuffle_ps(xy_low, zz_low, _MM_SHUFFLE(3, 2, 3, 2));
    block[2] = _mm512_shuffle_ps(xy_high, zz_high, _MM_SHUFFLE(1, 0, 1, 0));
    block[3] = _mm512_shuffle_ps(xy_high, zz_high, _MM_SHUFFLE(3, 2, 3, 2));
    FK__UNROLL
    for (j = 0; j < 4; ++j) {
        fk__store3_masked_avx512(p + (size_t)j * stride, _mm512_castps512_ps128(block[j]));
        fk__store3_masked_avx512(p + (size_t)(j + 4) * stride, _mm512_extractf32x4_ps(block[j], 1));
        fk__store3_masked_avx512(p + (size_t)(j + 8) * stride, _mm512_extractf32x4_ps(block[j], 2));
        fk__store3_masked_avx512(p + (size_t)(j + 12) * stride, _mm512_extractf32x4_ps(block[j], 3));
    }
}

/* NaN or an infinity (v - v would be NaN): one class test per register. */
#define FK__NOT_FINITE_CLASSES 0x99 /* quiet NaN, +inf, -inf, signalling NaN */

/* fk__dqs8_avx2() for the run's first sixteen vertices; packed: its arrays are
   tightly packed. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE int fk__dqs16_avx512(const __m256 blend[16], const fk__skin_run *r,
                                                               const int normals, const int packed)
{
    __m512 part[8], p[3], n[3], rx, ry, rz, rw, dx, dy, dz, dw, norm2, inverse, sx, sy, sz, tx, ty, tz;
    const __m512 two = _mm512_set1_ps(2.0f);
    __mmask16 not_finite;
    fk__transpose_blends16_avx512(blend, part);
    rx = part[0]; ry = part[1]; rz = part[2]; rw = part[3];
    dx = part[4]; dy = part[5]; dz = part[6]; dw = part[7];
    norm2 = _mm512_fmadd_ps(rw, rw, _mm512_fmadd_ps(rz, rz, _mm512_fmadd_ps(ry, ry, _mm512_mul_ps(rx, rx))));
    if (_mm512_fpclass_ps_mask(norm2, FK__NOT_POSITIVE_NORMAL_CLASSES)) return 0;
    inverse = _mm512_div_ps(_mm512_set1_ps(1.0f), norm2);
    /* translation t = w d - d_w u + u x d */
    tx = _mm512_add_ps(_mm512_fmsub_ps(dx, rw, _mm512_mul_ps(rx, dw)), _mm512_fmsub_ps(ry, dz, _mm512_mul_ps(rz, dy)));
    ty = _mm512_add_ps(_mm512_fmsub_ps(dy, rw, _mm512_mul_ps(ry, dw)), _mm512_fmsub_ps(rz, dx, _mm512_mul_ps(rx, dz)));
    tz = _mm512_add_ps(_mm512_fmsub_ps(dz, rw, _mm512_mul_ps(rz, dw)), _mm512_fmsub_ps(rx, dy, _mm512_mul_ps(ry, dx)));
    if (packed) fk__load16x3_avx512(r->positions, p);
    else fk__load16x3_strided_avx512(r->positions, r->position_stride, p);
    /* s = 2 u x p; the point moves by (w s + u x s + 2 t) / N */
    sx = _mm512_mul_ps(two, _mm512_fmsub_ps(ry, p[2], _mm512_mul_ps(rz, p[1])));
    sy = _mm512_mul_ps(two, _mm512_fmsub_ps(rz, p[0], _mm512_mul_ps(rx, p[2])));
    sz = _mm512_mul_ps(two, _mm512_fmsub_ps(rx, p[1], _mm512_mul_ps(ry, p[0])));
    tx = _mm512_fmadd_ps(two, tx, _mm512_fmadd_ps(sx, rw, _mm512_fmsub_ps(ry, sz, _mm512_mul_ps(rz, sy))));
    ty = _mm512_fmadd_ps(two, ty, _mm512_fmadd_ps(sy, rw, _mm512_fmsub_ps(rz, sx, _mm512_mul_ps(rx, sz))));
    tz = _mm512_fmadd_ps(two, tz, _mm512_fmadd_ps(sz, rw, _mm512_fmsub_ps(rx, sy, _mm512_mul_ps(ry, sx))));
    p[0] = _mm512_fmadd_ps(tx, inverse, p[0]);
    p[1] = _mm512_fmadd_ps(ty, inverse, p[1]);
    p[2] = _mm512_fmadd_ps(tz, inverse, p[2]);
    not_finite = (__mmask16)(_mm512_fpclass_ps_mask(p[0], FK__NOT_FINITE_CLASSES) |
                             _mm512_fpclass_ps_mask(p[1], FK__NOT_FINITE_CLASSES) |
                             _mm512_fpclass_ps_mask(p[2], FK__NOT_FINITE_CLASSES));
    if (normals) {
        if (packed) fk__load16x3_avx512(r->normals, n);
        else fk__load16x3_strided_avx512(r->normals, r->normal_stride, n);
        sx = _mm512_mul_ps(two, _mm512_fmsub_ps(ry, n[2], _mm512_mul_ps(rz, n[1])));
        sy = _mm512_mul_ps(two, _mm512_fmsub_ps(rz, n[0], _mm512_mul_ps(rx, n[2])));
        sz = _mm512_mul_ps(two, _mm512_fmsub_ps(rx, n[1], _mm512_mul_ps(ry, n[0])));
        n[0] = _mm512_fmadd_ps(_mm512_fmadd_ps(sx, rw, _mm512_fmsub_ps(ry, sz, _mm512_mul_ps(rz, sy))), inverse, n[0]);
        n[1] = _mm512_fmadd_ps(_mm512_fmadd_ps(sy, rw, _mm512_fmsub_ps(rz, sx, _mm512_mul_ps(rx, sz))), inverse, n[1]);
        n[2] = _mm512_fmadd_ps(_mm512_fmadd_ps(sz, rw, _mm512_fmsub_ps(rx, sy, _mm512_mul_ps(ry, sx))), inverse, n[2]);
        not_finite = (__mmask16)(not_finite | _mm512_fpclass_ps_mask(n[0], FK__NOT_FINITE_CLASSES) |
                                 _mm512_fpclass_ps_mask(n[1], FK__NOT_FINITE_CLASSES) |
                                 _mm512_fpclass_ps_mask(n[2], FK__NOT_FINITE_CLASSES));
    }
    if (not_finite) return 0; /* see fk__dqs8_avx2() */
    if (packed) {
        if (normals) fk__store16x3_avx512(r->out_normals, n);
        fk__store16x3_avx512(r->out_positions, p);
    } else {
        if (normals) fk__store16x3_strided_avx512(r->out_normals, r->out_normal_stride, n);
        fk__store16x3_strided_avx512(r->out_positions, r->out_position_stride, p);
    }
    return 1;
}

/* Rows flipped[pivot] of the hemisphere table (see fk__dqs_hemispheres()) for
   eight pivots: four lookups among sixteen rows each, by the low four bits of
   the pivot, and bits 4 and 5 choose among them. No memory is read by a pivot,
   so one from unchecked joint indices is harmless. (A gather instruction took
   as long.) */
static FK__AVX512_TARGET FK__ALWAYS_INLINE __m512i fk__dqs_rows_avx512(const uint64_t *flipped, __m512i pivot)
{
    __m512i rows[4];
    __mmask8 bit4 = _mm512_test_epi64_mask(pivot, _mm512_set1_epi64(16));
    __mmask8 bit5 = _mm512_test_epi64_mask(pivot, _mm512_set1_epi64(32));
    int quarter;
    FK__UNROLL
    for (quarter = 0; quarter < 4; ++quarter)
        rows[quarter] = _mm512_permutex2var_epi64(_mm512_loadu_si512((const void *)(flipped + 16 * quarter)), pivot,
                                                  _mm512_loadu_si512((const void *)(flipped + 16 * quarter + 8)));
    return _mm512_mask_blend_epi64(bit5, _mm512_mask_blend_epi64(bit4, rows[0], rows[1]),
                                   _mm512_mask_blend_epi64(bit4, rows[2], rows[3]));
}

/* The offsets of fk__dqs_offsets16x4_avx512() for eight vertices, one 16-bit lane
   per influence: joint * FK__DQS_PALETTE_STRIDE, plus FK__DQS_BONE_FLOATS where
   bit `joint` of the vertex's row (one 64-bit lane per vertex) is set. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__dqs_offsets8x4_avx512(__m512i joints, __m512i rows,
                                                                         __m512i *offsets)
{
    const __m512i vertex_word = _mm512_set_epi16(28, 28, 28, 28, 24, 24, 24, 24, 20, 20, 20, 20, 16, 16, 16, 16, 12, 12,
                                                 12, 12, 8, 8, 8, 8, 4, 4, 4, 4, 0, 0, 0, 0);
    /* the 16 bits of the row that hold bit `joint`, and that bit */
    __m512i word = _mm512_permutexvar_epi16(_mm512_add_epi16(vertex_word, _mm512_srli_epi16(joints, 4)), rows);
    __mmask32 flip = _mm512_test_epi16_mask(_mm512_srlv_epi16(word, _mm512_and_si512(joints, _mm512_set1_epi16(15))),
                                            _mm512_set1_epi16(1));
    __m512i offset = _mm512_slli_epi16(joints, 4);
    *offsets = _mm512_mask_add_epi16(offset, flip, offset, _mm512_set1_epi16(FK__DQS_BONE_FLOATS));
}

/* The four joint indices of eight vertices, a vertex's in a 64-bit lane: one
   load of packed lists, else one 8-byte load per vertex. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE __m512i fk__joints8x4_avx512(const char *joint, size_t stride,
                                                                      const int packed)
{
    __m128i pair[4];
    int j;
    if (packed) return _mm512_loadu_si512((const void *)joint);
    FK__UNROLL
    for (j = 0; j < 4; ++j)
        pair[j] = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)(joint + (size_t)(2 * j) * stride)),
                                     _mm_loadl_epi64((const __m128i *)(const void *)(joint + (size_t)(2 * j + 1) * stride)));
    return _mm512_inserti64x4(
        _mm512_castsi256_si512(_mm256_inserti128_si256(_mm256_castsi128_si256(pair[0]), pair[1], 1)),
        _mm256_inserti128_si256(_mm256_castsi128_si256(pair[2]), pair[3], 1), 1);
}

/* The four weights of four vertices, a vertex's in a 128-bit lane. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE __m512 fk__weights4x4_avx512(const char *weight, size_t stride,
                                                                      const int packed)
{
    __m512 w;
    if (packed) return _mm512_loadu_ps(weight);
    w = _mm512_castps128_ps512(_mm_loadu_ps((const float *)(const void *)weight));
    w = _mm512_insertf32x4(w, _mm_loadu_ps((const float *)(const void *)(weight + stride)), 1);
    w = _mm512_insertf32x4(w, _mm_loadu_ps((const float *)(const void *)(weight + 2 * stride)), 2);
    return _mm512_insertf32x4(w, _mm_loadu_ps((const float *)(const void *)(weight + 3 * stride)), 3);
}

/* Where in the palette each influence of sixteen vertices with four influences
   reads its bone: the bone, or its negation when the heaviest influence's row of
   the table says so. The other loops find the heaviest influence and read the
   table vertex by vertex, scalar loads and compares; here the sixteen vertices
   go together in vector registers.

   The heaviest is found as fk__heaviest4_sse() finds it, lane for lane: the
   largest weight in the vertex's four, the first lane equal to it. A vertex with
   a NaN weight may have no lane equal; its pivot is then joint 0, and its blend
   is NaN whatever the signs. Unchecked joint indices give wrong offsets but read
   nothing, so the offsets of the next group can be found before its indices are
   checked. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__dqs_offsets16x4_avx512(const fk__skin_run *r, size_t first,
                                                                       const int packed, __m512i offsets[2])
{
    const char *joint = r->joints + first * r->joint_stride, *weight = r->weights + first * r->weight_stride;
    const __m512i joints_low = fk__joints8x4_avx512(joint, r->joint_stride, packed);
    const __m512i joints_high = fk__joints8x4_avx512(joint + 8 * r->joint_stride, r->joint_stride, packed);
    uint64_t heaviest = 0, below;
    __m512i pivot_low, pivot_high, row_low, row_high;
    int m;
    FK__UNROLL
    for (m = 0; m < 4; ++m) { /* vertices 4m to 4m + 3, one per 128-bit lane */
        __m512 w = fk__weights4x4_avx512(weight + (size_t)(4 * m) * r->weight_stride, r->weight_stride, packed);
        __m512 top = _mm512_max_ps(w, _mm512_permute_ps(w, _MM_SHUFFLE(2, 3, 0, 1)));
        top = _mm512_max_ps(top, _mm512_permute_ps(top, _MM_SHUFFLE(1, 0, 3, 2)));
        heaviest |= (uint64_t)_mm512_cmp_ps_mask(w, top, _CMP_EQ_OQ) << (16 * m);
    }
    /* bit 4v + e: influence e of vertex v; keep the lowest set bit of each four */
    below = (heaviest & 0x7777777777777777u) << 1 | (heaviest & 0x3333333333333333u) << 2 |
            (heaviest & 0x1111111111111111u) << 3;
    heaviest &= ~below;
    /* the heaviest influence's joint, alone in its vertex's 64 bits, summed out by bytes
       (a checked joint is below 64, so its high byte is 0) */
    pivot_low = _mm512_sad_epu8(_mm512_maskz_mov_epi16((__mmask32)heaviest, joints_low), _mm512_setzero_si512());
    pivot_high = _mm512_sad_epu8(_mm512_maskz_mov_epi16((__mmask32)(heaviest >> 32), joints_high), _mm512_setzero_si512());
    row_low = fk__dqs_rows_avx512(r->flipped, pivot_low);
    row_high = fk__dqs_rows_avx512(r->flipped, pivot_high);
    fk__dqs_offsets8x4_avx512(joints_low, row_low, offsets);
    fk__dqs_offsets8x4_avx512(joints_high, row_high, offsets + 1);
}

/* fk__dqs_offsets16x4_avx512() for packed lists of two influences, whose pivot
   is the first (see fk__dqs_pivot_avx2()): the first influence reads its bone
   as it is, the second its negation where bit joint_1 of row flipped[joint_0]
   is set. One load holds the sixteen vertices' indices, vertex v's in 32-bit
   lane v. Each vertex needs one bit, so the table is read as 256 16-bit words
   (word 4 joint_0 + joint_1 / 16), four lookups among 64 words and bits 6 and
   7 of the word's number choosing among them: 2.50 to 2.38 ms at 1M vertices
   (a harness, six alternating rounds) against looking up the 64-bit rows as
   fk__dqs_offsets16x4_avx512() does. Indices are masked into the table, so an
   unchecked one reads nothing it should not. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE void fk__dqs_offsets16x2_avx512(const fk__skin_run *r, size_t first,
                                                                          __m512i *offsets)
{
    const __m512i joints = _mm512_loadu_si512((const void *)(r->joints + first * r->joint_stride));
    const __m512i seconds = _mm512_srli_epi32(joints, 16);
    /* 16-bit word 4 joint_0 + joint_1 / 16 of the table, in the low half of each 32-bit lane */
    const __m512i word_index = _mm512_add_epi32(_mm512_slli_epi32(_mm512_and_si512(joints, _mm512_set1_epi32(63)), 2),
                                                _mm512_and_si512(_mm512_srli_epi32(seconds, 4), _mm512_set1_epi32(3)));
    const __m512i offset = _mm512_slli_epi16(joints, 4);
    const char *table = (const char *)r->flipped;
    __mmask32 bit6 = _mm512_test_epi16_mask(word_index, _mm512_set1_epi16(64));
    __mmask32 bit7 = _mm512_test_epi16_mask(word_index, _mm512_set1_epi16(128));
    __m512i quarter[4], words;
    __mmask16 flip;
    int q;
    FK__UNROLL
    for (q = 0; q < 4; ++q)
        quarter[q] = _mm512_permutex2var_epi16(_mm512_loadu_si512((const void *)(table + 128 * q)), word_index,
                                               _mm512_loadu_si512((const void *)(table + 128 * q + 64)));
    words = _mm512_mask_blend_epi16(bit7, _mm512_mask_blend_epi16(bit6, quarter[0], quarter[1]),
                                    _mm512_mask_blend_epi16(bit6, quarter[2], quarter[3]));
    flip = _mm512_test_epi32_mask(_mm512_srlv_epi32(_mm512_and_si512(words, _mm512_set1_epi32(0xFFFF)),
                                                    _mm512_and_si512(seconds, _mm512_set1_epi32(15))),
                                  _mm512_set1_epi32(1));
    *offsets = _mm512_mask_add_epi32(offset, flip, offset, _mm512_set1_epi32(FK__DQS_BONE_FLOATS << 16));
}

/* Whether the joint indices of the run's sixteen vertices are at most its
   limit: packed lists with fk__packed_joints_in_range_avx512(); in other
   layouts, which take this loop with four influences only, with
   fk__four_lists_in_range_avx512() four times. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE int fk__joints16_in_range_avx512(const fk__skin_run *r, const int influences,
                                                                           const int packed)
{
    if (packed) return fk__packed_joints_in_range_avx512(r->joints, 16 * (size_t)influences, r->joint_limit);
    return fk__four_lists_in_range_avx512(r, r->joints, influences) &
           fk__four_lists_in_range_avx512(r, r->joints + 4 * r->joint_stride, influences) &
           fk__four_lists_in_range_avx512(r, r->joints + 8 * r->joint_stride, influences) &
           fk__four_lists_in_range_avx512(r, r->joints + 12 * r->joint_stride, influences);
}

/* packed: every array tightly packed, so that the strides are constants. */
static FK__AVX512_TARGET FK__ALWAYS_INLINE int fk__dqs_avx512_loop(const fk__skin_run *run, const int influences,
                                                                    const int normals, const int source,
                                                                    const int packed)
{
    fk__skin_run r = *run; /* see fk__skin_advance() */
    const int prefetch_plan = packed ? FK__PREFETCH_ALL : fk__prefetch_plan(&r);
    int i = 0, v, pivot[16] = {0};
    /* four influences and the table, or two in packed lists: the signs by
       fk__dqs_offsets16x4_avx512() or fk__dqs_offsets16x2_avx512() */
    const int vector_signs = source == FK__DQS_TABLE && (influences == 4 || (influences == 2 && packed));
    __m512i offset_vectors[2];
    if (packed) {
        r.position_stride = r.normal_stride = r.out_position_stride = r.out_normal_stride = 3 * sizeof(float);
        r.joint_stride = (size_t)influences * sizeof(uint16_t);
        r.weight_stride = (size_t)influences * sizeof(float);
    }
    /* The pivots (see fk__dqs_avx2_loop()) of each group are found one group
       ahead, before the finish of the group before it: a pivot is a chain of
       dependent loads and compares that the blends wait on, and in program
       order after a finish it started too late for the window of the core to
       overlap it (DQS with bones every way took 8% longer). The pre-signed
       bones need no pivots. The offsets of fk__dqs_offsets16x4_avx512() and
       fk__dqs_offsets16x2_avx512() are found one group ahead too, for the same
       reason (without that it was slower than the pivots). */
    if (vector_signs && r.count >= 16) {
        if (influences == 4) fk__dqs_offsets16x4_avx512(&r, 0, packed, offset_vectors);
        else fk__dqs_offsets16x2_avx512(&r, 0, offset_vectors);
    }
    if (source != FK__DQS_SIGNED && !vector_signs && r.count >= 16)
        for (v = 0; v < 16; ++v)
            pivot[v] = fk__dqs_pivot_avx2(0, r.joints + (size_t)v * r.joint_stride,
                                          r.weights + (size_t)v * r.weight_stride, influences);
    for (; i + 16 <= r.count; i += 16) {
        __m256 blend[16];
        if (!fk__joints16_in_range_avx512(&r, influences, packed)) return i;
        FK__UNROLL
        for (v = 0; v < 16; v += 4) fk__prefetch_ahead(&r, prefetch_plan, normals, (size_t)v);
        if (vector_signs) {
            const uint16_t *offsets = (const uint16_t *)(const void *)offset_vectors;
            FK__UNROLL
            for (v = 0; v < 16; ++v) {
                const float *weights = (const float *)(const void *)(r.weights + (size_t)v * r.weight_stride);
                __m256 sum = _mm256_setzero_ps();
                uint64_t word = 0;
                int e;
                FK__UNROLL
                for (e = 0; e < influences; ++e)
                    sum = _mm256_fmadd_ps(
                        _mm256_broadcast_ss(&weights[e]),
                        _mm256_load_ps(r.palette + fk__u16_at(offsets + influences * v, e, influences, &word)), sum);
                blend[v] = sum;
            }
            if (i + 32 <= r.count) { /* the next group's (this group's are read), in bounds */
                if (influences == 4) fk__dqs_offsets16x4_avx512(&r, 16, packed, offset_vectors);
                else fk__dqs_offsets16x2_avx512(&r, 16, offset_vectors);
            }
        } else {
            FK__UNROLL
            for (v = 0; v < 16; ++v)
                blend[v] = fk__dqs_blend_avx2(&r, source, pivot[v], r.joints + (size_t)v * r.joint_stride,
                                              r.weights + (size_t)v * r.weight_stride, influences);
        }
        /* the next group's pivots (this group's are read), in bounds */
        if (source != FK__DQS_SIGNED && !vector_signs && i + 32 <= r.count) {
            FK__UNROLL
            for (v = 0; v < 16; ++v)
                pivot[v] = fk__dqs_pivot_avx2(0, r.joints + (size_t)(16 + v) * r.joint_stride,
                                              r.weights + (size_t)(16 + v) * r.weight_stride, influences);
        }
        if (!fk__dqs16_avx512(blend, &r, normals, packed)) fk__dqs_declined_avx2(&r, blend, 16, normals);
        fk__skin_advance(&r, normals, 16);
    }
    r.count -= i; /* the last zero to fifteen vertices, checked by the AVX2 loop */
    return r.count > 0 ? i + fk__dqs_avx2c(&r) : run->count;
}

static FK__AVX512_TARGET FK__ALWAYS_INLINE int fk__dqs_avx512_any(const fk__skin_run *run, const int influences,
                                                                   const int normals, const int packed)
{
    int source = fk__dqs_source(run);
#if defined(__OPTIMIZE__) /* see FK__SKIN_SPECIALIZE */
    if (source == FK__DQS_SIGNED) return fk__dqs_avx512_loop(run, influences, normals, FK__DQS_SIGNED, packed);
#endif
    return fk__dqs_avx512_loop(run, influences, normals, source, packed);
}

static FK__AVX512_TARGET FK__ALWAYS_INLINE int fk__dqs_avx512_packed(const fk__skin_run *run, const int influences,
                                                                      const int normals)
{
    return fk__dqs_avx512_any(run, influences, normals, 1);
}

static FK__AVX512_TARGET FK__ALWAYS_INLINE int fk__dqs_avx512_strided(const fk__skin_run *run, const int influences,
                                                                       const int normals)
{
    return fk__dqs_avx512_any(run, influences, normals, 0);
}

/* In functions of their own, as for LBS. Other layouts take this loop with
   four influences, the usual vertex record's, and the AVX2 loop otherwise:
   compiled for every count like packed arrays, the strided loop made the
   header's code 40% larger and its compilation 25% longer. */
#undef FK__SIMD_TARGET
#define FK__SIMD_TARGET FK__AVX512_TARGET __attribute__((noinline))
FK__SKIN_SPECIALIZE(fk__dqs_avx512_packed_run, fk__dqs_avx512_packed)
#undef FK__SIMD_TARGET
#define FK__SIMD_TARGET FK__AVX512_TARGET

static FK__AVX512_TARGET __attribute__((noinline)) int fk__dqs_avx512_strided_run(const fk__skin_run *run)
{
    if (run->influences != 4) return fk__dqs_avx2c(run);
#if defined(__OPTIMIZE__) /* see FK__SKIN_SPECIALIZE */
    return run->normals ? fk__dqs_avx512_strided(run, 4, 1) : fk__dqs_avx512_strided(run, 4, 0);
#else
    return fk__dqs_avx512_strided(run, 4, run->normals != NULL);
#endif
}

static FK__AVX512_TARGET int fk__dqs_avx512(const fk__skin_run *run)
{
    const int packed = fk__skin_run_packed(run);
    return fk__upper_cleared(packed ? fk__dqs_avx512_packed_run(run) : fk__dqs_avx512_strided_run(run));
}
#undef FK__SIMD_TARGET

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

static int fk__has_avx512(void)
{
#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512DQ__) && defined(__AVX512BW__)
    return fk__has_avx2_fma();
#else
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") && fk__has_avx2_fma();
#endif
}

#endif /* FK__SIMD_AVX512 */

/* The fastest LBS loop this CPU runs; *checks_joints is set when that loop
   checks the joint indices itself. */
static fk__skin_loop fk__lbs_simd_loop(int *checks_joints)
{
    *checks_joints = 0;
#if defined(FK__SIMD_AVX512)
    if (fk__has_avx512()) {
        *checks_joints = 1;
        return fk__lbs_avx512;
    }
#endif
#if defined(FK__SIMD_AVX2)
    if (fk__has_avx2_fma()) {
        *checks_joints = 1;
        return fk__lbs_avx2;
    }
#endif
    return fk__lbs_sse2;
}

/* The fastest DQS loop this CPU runs; *checks_joints as for fk__lbs_simd_loop(). */
static fk__skin_loop fk__dqs_simd_loop(int *checks_joints)
{
    *checks_joints = 0;
#if defined(FK__SIMD_AVX512)
    if (fk__has_avx512()) {
        *checks_joints = 1;
        return fk__dqs_avx512;
    }
#endif
#if defined(FK__SIMD_AVX2)
    if (fk__has_avx2_fma()) {
        *checks_joints = 1;
        return fk__dqs_avx2;
    }
#endif
    return fk__dqs_sse2;
}

#endif /* FK__SIMD_SSE2 */

#if defined(FK__SIMD_NEON)

/* The SSE2 LBS loop in NEON: four-lane columns, fused multiply-adds. Normals are
   renormalized as the reference does it; 64-bit Arm divides and takes square
   roots quickly. Tested under qemu (tests/arm64.sh), not measured on Arm hardware. */
static FK__ALWAYS_INLINE float32x4_t fk__load3_neon(const void *p)
{
    const float *v = (const float *)p;
    return vcombine_f32(vld1_f32(v), vld1_lane_f32(v + 2, vdup_n_f32(0.0f), 0));
}

static FK__ALWAYS_INLINE void fk__store3_neon(void *p, float32x4_t v)
{
    vst1_f32((float *)p, vget_low_f32(v));
    vst1q_lane_f32((float *)p + 2, v, 2);
}

static FK__ALWAYS_INLINE int fk__lbs_neon_loop(const fk__skin_run *run, const int influences, const int normals)
{
    fk__skin_run r = *run; /* see fk__skin_advance() */
    int i, e;
    for (i = 0; i < r.count; ++i) {
        const uint16_t *joints = (const uint16_t *)(const void *)r.joints;
        const float *weights = (const float *)(const void *)r.weights;
        const float *m = r.palette + (size_t)joints[0] * FK__LBS_BONE_FLOATS;
        float32x4_t c0 = vmulq_n_f32(vld1q_f32(m), weights[0]), c1 = vmulq_n_f32(vld1q_f32(m + 4), weights[0]);
        float32x4_t c2 = vmulq_n_f32(vld1q_f32(m + 8), weights[0]), t = vmulq_n_f32(vld1q_f32(m + 12), weights[0]);
        float32x4_t p = fk__load3_neon(r.positions), n;
        for (e = 1; e < influences; ++e) {
            m = r.palette + (size_t)joints[e] * FK__LBS_BONE_FLOATS;
            c0 = vfmaq_n_f32(c0, vld1q_f32(m), weights[e]);
            c1 = vfmaq_n_f32(c1, vld1q_f32(m + 4), weights[e]);
            c2 = vfmaq_n_f32(c2, vld1q_f32(m + 8), weights[e]);
            t = vfmaq_n_f32(t, vld1q_f32(m + 12), weights[e]);
        }
        if (normals) {
            fk_vec3 moved;
            n = fk__load3_neon(r.normals);
            n = vfmaq_laneq_f32(vfmaq_laneq_f32(vmulq_laneq_f32(c0, n, 0), c1, n, 1), c2, n, 2);
            moved = fk_vec3_normalize(fk_vec3_make(vgetq_lane_f32(n, 0), vgetq_lane_f32(n, 1), vgetq_lane_f32(n, 2)));
            n = vcombine_f32(vset_lane_f32(moved.y, vdup_n_f32(moved.x), 1), vdup_n_f32(moved.z));
        }
        p = vfmaq_laneq_f32(vfmaq_laneq_f32(vfmaq_laneq_f32(t, c0, p, 0), c1, p, 1), c2, p, 2);
        fk__store3_neon(r.out_positions, p);
        if (normals) fk__store3_neon(r.out_normals, n);
        fk__skin_advance(&r, normals, 1);
    }
    return run->count;
}

/* v's lanes (y, z, x, and x again). */
static FK__ALWAYS_INLINE float32x4_t fk__yzx_neon(float32x4_t v)
{
    return vcopyq_laneq_f32(vextq_f32(v, v, 1), 2, v, 0);
}

/* a x b in lanes 0-2, as fk__cross_sse() forms it: (a b_yzx - a_yzx b)_yzx. */
static FK__ALWAYS_INLINE float32x4_t fk__cross_neon(float32x4_t a, float32x4_t b)
{
    return fk__yzx_neon(vsubq_f32(vmulq_f32(a, fk__yzx_neon(b)), vmulq_f32(fk__yzx_neon(a), b)));
}

/* fk__dqs_vertex_lanes() for NEON registers. */
static void fk__dqs_vertex_reference_neon(float32x4_t real, float32x4_t dual, const void *position, const void *normal,
                                          void *out, void *out_normal)
{
    float r[4], d[4];
    vst1q_f32(r, real);
    vst1q_f32(d, dual);
    fk__dqs_vertex_lanes(r, d, position, normal, out, out_normal);
}

/* fk__dqs_vertex_sse() in NEON: the blend's normalization folded into one
   division, the rare norms and overflows handed to the reference. */
static FK__ALWAYS_INLINE void fk__dqs_vertex_neon(float32x4_t real, float32x4_t dual, const void *position,
                                                  const void *normal, void *out, void *out_normal)
{
    const float norm2 = vaddvq_f32(vmulq_f32(real, real));
    const uint32x4_t xyz = vcombine_u32(vdup_n_u32(~0u), vcreate_u32(0xFFFFFFFFu)); /* lanes 0, 1, 2 */
    float32x4_t p, n, s, t, finite;
    float inverse, w, dual_w;
    if (!FK__LIKELY(norm2 >= FLT_MIN && norm2 <= FLT_MAX)) { /* zero, tiny, huge or NaN */
        fk__dqs_vertex_reference_neon(real, dual, position, normal, out, out_normal);
        return;
    }
    inverse = 1.0f / norm2;
    w = vgetq_lane_f32(real, 3);
    dual_w = vgetq_lane_f32(dual, 3);
    p = fk__load3_neon(position);
    s = fk__cross_neon(real, p);
    s = vaddq_f32(s, s);
    t = vsubq_f32(vmulq_n_f32(dual, w), vmulq_n_f32(real, dual_w));
    t = vaddq_f32(t, fk__cross_neon(real, dual));
    s = vaddq_f32(vaddq_f32(vmulq_n_f32(s, w), fk__cross_neon(real, s)), vaddq_f32(t, t));
    p = vaddq_f32(p, vmulq_n_f32(s, inverse));
    finite = vsubq_f32(p, p);
    if (normal) {
        n = fk__load3_neon(normal);
        s = fk__cross_neon(real, n);
        s = vaddq_f32(s, s);
        s = vaddq_f32(vmulq_n_f32(s, w), fk__cross_neon(real, s));
        n = vaddq_f32(n, vmulq_n_f32(s, inverse));
        finite = vaddq_f32(finite, vsubq_f32(n, n));
    }
    /* zero in lanes 0-2 unless an intermediate overflowed (see fk__dqs_vertex_sse()) */
    if (FK__LIKELY(vmaxvq_u32(vandq_u32(vmvnq_u32(vceqzq_f32(finite)), xyz)) == 0)) {
        fk__store3_neon(out, p);
        if (normal) fk__store3_neon(out_normal, n);
        return;
    }
    fk__dqs_vertex_reference_neon(real, dual, position, normal, out, out_normal);
}

/* fk__heaviest4_sse() in NEON: the maximum across, then the first lane equal
   to it. */
static FK__ALWAYS_INLINE int fk__heaviest4_neon(const float *w)
{
    static const uint32_t bit[4] = {1, 2, 4, 8};
    const float32x4_t v = vld1q_f32(w);
    const uint32_t equal = vaddvq_u32(vandq_u32(vceqq_f32(v, vdupq_n_f32(vmaxvq_f32(v))), vld1q_u32(bit)));
    return "\0\0\1\0\2\0\1\0\3\0\1\0\2\0\1\0"[equal]; /* lowest set bit */
}

/* The heaviest influence as fk__heaviest() finds it (the first of equals). */
static FK__ALWAYS_INLINE int fk__heaviest_neon(const float *w, const int influences)
{
    int low, high;
    if (influences == 4) return fk__heaviest4_neon(w);
    if (influences != 8) return fk__heaviest(w, influences);
    low = fk__heaviest4_neon(w);
    high = 4 + fk__heaviest4_neon(w + 4);
    return w[high] > w[low] ? high : low;
}

/* The SSE2 DQS loop in NEON: a vertex at a time, each influence's bone read
   from the sign table (or pre-signed, or signed by its dot product with the
   pivot's rotation where there is no table), blended by fused multiply-adds. */
static FK__ALWAYS_INLINE int fk__dqs_neon_loop(const fk__skin_run *run, const int influences, const int normals)
{
    fk__skin_run r = *run; /* see fk__skin_advance() */
    int i, e;
    for (i = 0; i < r.count; ++i) {
        const uint16_t *joints = (const uint16_t *)(const void *)r.joints;
        const float *weights = (const float *)(const void *)r.weights;
        /* with two influences, the first (see fk__dqs_pivot_avx2()) */
        const int pivot_joint =
            r.signed_bones ? 0 : joints[influences <= 2 ? 0 : fk__heaviest_neon(weights, influences)];
        const uint16_t *hemisphere_row = r.hemisphere ? r.hemisphere + (size_t)pivot_joint * FK__DQS_TABLE_BONES : NULL;
        const float *q = r.palette + (size_t)pivot_joint * FK__DQS_PALETTE_STRIDE;
        const fk_quat pivot = fk_quat_make(q[0], q[1], q[2], q[3]);
        float32x4_t real = vdupq_n_f32(0.0f), dual = real;
        FK__UNROLL
        for (e = 0; e < influences; ++e) {
            const float *b;
            if (r.signed_bones) b = r.signed_bones + (size_t)joints[e] * FK__DQS_BONE_FLOATS;
            else if (hemisphere_row) b = r.palette + hemisphere_row[joints[e]];
            else {
                b = r.palette + (size_t)joints[e] * FK__DQS_PALETTE_STRIDE;
                b += FK__DQS_BONE_FLOATS * (fk_quat_dot(pivot, fk_quat_make(b[0], b[1], b[2], b[3])) < 0.0f);
            }
            real = vfmaq_n_f32(real, vld1q_f32(b), weights[e]);
            dual = vfmaq_n_f32(dual, vld1q_f32(b + 4), weights[e]);
        }
        fk__dqs_vertex_neon(real, dual, r.positions, normals ? r.normals : NULL, r.out_positions, r.out_normals);
        fk__skin_advance(&r, normals, 1);
    }
    return run->count;
}

#define FK__SIMD_TARGET
FK__SKIN_SPECIALIZE(fk__lbs_neon, fk__lbs_neon_loop)
FK__SKIN_SPECIALIZE(fk__dqs_neon, fk__dqs_neon_loop)
#undef FK__SIMD_TARGET

static fk__skin_loop fk__lbs_simd_loop(int *checks_joints)
{
    *checks_joints = 0;
    return fk__lbs_neon;
}

static fk__skin_loop fk__dqs_simd_loop(int *checks_joints)
{
    *checks_joints = 0;
    return fk__dqs_neon;
}

#endif /* FK__SIMD_NEON */

/* ---- Skinning: the public functions ---------------------------------------- */

FK_LBS_DEF fk_result fk_skin_lbs(const fk_skin_desc *desc)
{
    /* Each bone becomes a 3x4 matrix once per call, not once per influence. */
    float storage[FK_LBS_PALETTE_CAPACITY * FK__LBS_BONE_FLOATS + 16];
    float *palette = NULL;
    fk__skin_layout layout;
    fk_result result = fk__check_skin(desc, &layout);
    int j;
    if (result != FK_OK) return result;
    if (desc->transform_count <= FK_LBS_PALETTE_CAPACITY) {
        palette = fk__align64(storage);
        for (j = 0; j < desc->transform_count; ++j)
            fk__lbs_bone(&desc->transforms[j], palette + (size_t)j * FK__LBS_BONE_FLOATS);
#if defined(FK__SIMD_SSE2) || defined(FK__SIMD_NEON)
        /* Tangents are the rare layout: they take the general path. */
        if (!layout.dense && !desc->tangents)
        {
            int checks_joints = 0;
            fk__skin_loop loop = fk__lbs_simd_loop(&checks_joints);
            return fk__skin_blocks(desc, &layout, palette, NULL, NULL, NULL, loop, checks_joints, fk__lbs_reference);
        }
#endif
    }
    return fk__lbs_reference(desc, &layout, palette, 0, desc->vertex_count);
}

FK_LBS_DEF fk_result fk_skin_dqs(const fk_skin_desc *desc)
{
    float storage[FK_LBS_PALETTE_CAPACITY * FK__DQS_PALETTE_STRIDE + 16];
#if defined(FK__SIMD_SSE2) || defined(FK__SIMD_NEON)
    uint16_t hemisphere[FK__DQS_TABLE_BONES * FK__DQS_TABLE_BONES];
    uint64_t flipped[FK__DQS_TABLE_BONES];
    float signed_storage[FK__DQS_TABLE_BONES * FK__DQS_BONE_FLOATS + 16];
#endif
    float *palette = NULL;
    fk__skin_layout layout;
    fk_result result = fk__check_skin(desc, &layout);
    int j;
    if (result != FK_OK) return result;
    if (desc->transform_count <= FK_LBS_PALETTE_CAPACITY) {
        palette = fk__align64(storage);
        for (j = 0; j < desc->transform_count; ++j)
            fk__dqs_palette_bone(&desc->transforms[j], palette + (size_t)j * FK__DQS_PALETTE_STRIDE);
#if defined(FK__SIMD_SSE2) || defined(FK__SIMD_NEON)
        if (!layout.dense && !desc->tangents) { /* tangents take the general path */
            /* With one influence a vertex's pivot is its own bone, which a dot
               product with itself never flips: the bones are read as they are,
               like pre-signed ones, with no table and no pivot. Otherwise the
               table costs a dot product per pair of bones, the loop without it
               one per influence: build it when it is the cheaper. Timed with
               64 bones (AVX-512), the two took as long at about 500 vertices
               with k = 4 and 950 with k = 2, where bones^2 = 2 vertices k. */
            int one_influence = desc->influences == 1 && desc->transform_count <= FK__DQS_TABLE_BONES;
            int table = !one_influence && desc->transform_count <= FK__DQS_TABLE_BONES &&
                        desc->transform_count * desc->transform_count <=
                            2 * (double)desc->vertex_count * desc->influences;
            float *signed_bones = NULL;
            int checks_joints = 0;
            fk__skin_loop loop = fk__dqs_simd_loop(&checks_joints);
            if (one_influence || (table && fk__dqs_hemispheres(palette, desc->transform_count, hemisphere, flipped))) {
                /* one row serves: the bones signed as it says, read without the table */
                signed_bones = fk__align64(signed_storage);
                for (j = 0; j < desc->transform_count; ++j)
                    memcpy(signed_bones + (size_t)j * FK__DQS_BONE_FLOATS,
                           palette + (one_influence ? (size_t)j * FK__DQS_PALETTE_STRIDE : hemisphere[j]),
                           FK__DQS_BONE_FLOATS * sizeof(float));
            }
            return fk__skin_blocks(desc, &layout, palette, table ? hemisphere : NULL, table ? flipped : NULL,
                                   signed_bones, loop, checks_joints, fk__dqs_reference);
        }
#endif
    }
    return fk__dqs_reference(desc, &layout, palette, 0, desc->vertex_count);
}


/* ---- Weights -----------------------------------------------------------------
   Inspecting a vertex only reads its k slots; only a vertex with a fault is then
   rewritten, in place: drop what is invalid, merge duplicates, sort, keep the
   largest, renormalize. Quadratic in k, but k is small and nothing is allocated. */

#define FK__WEIGHT_NOT_FINITE 1
#define FK__WEIGHT_NEGATIVE 2
#define FK__WEIGHT_JOINT_OUT_OF_RANGE 4
#define FK__WEIGHT_DUPLICATE 8
#define FK__WEIGHT_TOO_MANY 16
#define FK__WEIGHT_MISPLACED 32
#define FK__WEIGHT_ZERO_SUM 64
#define FK__WEIGHT_NOT_NORMALIZED 128

/* The descriptor with its defaults resolved. */
typedef struct fk__weights_layout {
    size_t joint_stride, weight_stride;
    int keep;
} fk__weights_layout;

static fk_result fk__check_weights(const fk_weights_desc *d, fk__weights_layout *layout)
{
    fk_result r;
    size_t k;
    if (!d) return FK_ERROR_NULL_ARGUMENT;
    if (d->vertex_count < 0 || d->influences < 1 || d->joint_count < 1 || d->max_influences < 0 ||
        d->max_influences > d->influences)
        return FK_ERROR_INVALID_COUNT;
    if (!d->joints || !d->weights) return FK_ERROR_NULL_ARGUMENT;
    k = (size_t)d->influences;
    if (k > ((size_t)-1) / sizeof(float)) return FK_ERROR_INVALID_COUNT;
    layout->joint_stride = d->joint_stride;
    layout->weight_stride = d->weight_stride;
    if ((r = fk__check_stride(&layout->joint_stride, k * sizeof(uint16_t), sizeof(uint16_t), d->joints, d->vertex_count)) != FK_OK) return r;
    if ((r = fk__check_stride(&layout->weight_stride, k * sizeof(float), sizeof(float), d->weights, d->vertex_count)) != FK_OK) return r;
    layout->keep = d->max_influences ? d->max_influences : d->influences;
    return FK_OK;
}

/* A slot counts when it names a real joint with a positive, finite weight. */
static int fk__slot_counts(const uint16_t *joints, const float *weights, int slot, int joint_count)
{
    return (int)joints[slot] < joint_count && weights[slot] > 0.0f && weights[slot] <= FLT_MAX;
}

static int fk__inspect_vertex(const uint16_t *joints, const float *weights, int k, int keep, int joint_count)
{
    int faults = 0, distinct = 0, s, t;
    float sum = 0.0f;
    for (s = 0; s < k; ++s) {
        if (!fk__is_finite(weights[s])) faults |= FK__WEIGHT_NOT_FINITE;
        else if (weights[s] < 0.0f) faults |= FK__WEIGHT_NEGATIVE;
        if ((int)joints[s] >= joint_count) faults |= FK__WEIGHT_JOINT_OUT_OF_RANGE;
        if (!fk__slot_counts(joints, weights, s, joint_count)) continue;
        if (s >= keep) faults |= FK__WEIGHT_MISPLACED;
        for (t = 0; t < s; ++t)
            if (joints[t] == joints[s] && fk__slot_counts(joints, weights, t, joint_count)) break;
        if (t < s) faults |= FK__WEIGHT_DUPLICATE;
        else ++distinct;
        sum += weights[s];
    }
    if (distinct > keep) faults |= FK__WEIGHT_TOO_MANY;
    /* A sum of k floats that were normalized exactly is within k rounding errors of one. */
    if (distinct == 0) faults |= FK__WEIGHT_ZERO_SUM;
    else if (!(fabsf(sum - 1.0f) <= 2.0f * (float)k * FLT_EPSILON)) faults |= FK__WEIGHT_NOT_NORMALIZED;
    return faults;
}

static void fk__repair_vertex(uint16_t *joints, float *weights, int k, int keep, int joint_count)
{
    int s, t, fallback = 0;
    float largest = 0.0f, sum = 0.0f;
    for (s = k - 1; s >= 0; --s)
        if ((int)joints[s] < joint_count) fallback = joints[s];
    for (s = 0; s < k; ++s) {
        if (!fk__slot_counts(joints, weights, s, joint_count)) {
            joints[s] = 0;
            weights[s] = 0.0f;
        } else if (weights[s] > largest) {
            largest = weights[s];
        }
    }
    /* Scaling by the largest weight first keeps every merged sum at most k, so
       huge finite weights cannot overflow to infinity. */
    for (s = 0; s < k; ++s)
        if (weights[s] > 0.0f) weights[s] /= largest;
    for (s = 0; s < k; ++s)
        for (t = s + 1; t < k && weights[s] > 0.0f; ++t)
            if (weights[t] > 0.0f && joints[t] == joints[s]) {
                weights[s] += weights[t];
                weights[t] = 0.0f;
                joints[t] = 0;
            }
    for (s = 1; s < k; ++s) { /* insertion sort, largest first; stable, so ties keep their order */
        float weight = weights[s];
        uint16_t joint = joints[s];
        for (t = s; t > 0 && weights[t - 1] < weight; --t) {
            weights[t] = weights[t - 1];
            joints[t] = joints[t - 1];
        }
        weights[t] = weight;
        joints[t] = joint;
    }
    for (s = 0; s < k; ++s) {
        if (s < keep && weights[s] > 0.0f) {
            sum += weights[s];
        } else {
            joints[s] = 0;
            weights[s] = 0.0f;
        }
    }
    if (sum > 0.0f) {
        for (s = 0; s < keep; ++s) weights[s] /= sum;
    } else {
        joints[0] = (uint16_t)fallback;
        weights[0] = 1.0f;
    }
}

static fk_result fk__weights(const fk_weights_desc *desc, fk_weights_report *report, int repair)
{
    fk__weights_layout layout;
    fk_weights_report counts;
    fk_result result = fk__check_weights(desc, &layout);
    int i;
    if (result != FK_OK) return result;
    memset(&counts, 0, sizeof counts);
    for (i = 0; i < desc->vertex_count; ++i) {
        uint16_t *joints = (uint16_t *)(void *)((char *)desc->joints + (size_t)i * layout.joint_stride);
        float *weights = (float *)(void *)((char *)desc->weights + (size_t)i * layout.weight_stride);
        int faults = fk__inspect_vertex(joints, weights, desc->influences, layout.keep, desc->joint_count);
        if (!faults) continue;
        counts.vertices_changed += 1;
        counts.not_finite += (faults & FK__WEIGHT_NOT_FINITE) != 0;
        counts.negative += (faults & FK__WEIGHT_NEGATIVE) != 0;
        counts.joint_out_of_range += (faults & FK__WEIGHT_JOINT_OUT_OF_RANGE) != 0;
        counts.duplicate_joints += (faults & FK__WEIGHT_DUPLICATE) != 0;
        counts.too_many += (faults & FK__WEIGHT_TOO_MANY) != 0;
        counts.misplaced += (faults & FK__WEIGHT_MISPLACED) != 0;
        counts.zero_sum += (faults & FK__WEIGHT_ZERO_SUM) != 0;
        counts.not_normalized += (faults & FK__WEIGHT_NOT_NORMALIZED) != 0;
        if (repair) fk__repair_vertex(joints, weights, desc->influences, layout.keep, desc->joint_count);
    }
    if (report) *report = counts;
    return FK_OK;
}

FK_LBS_DEF fk_result fk_weights_inspect(const fk_weights_desc *desc, fk_weights_report *report)
{
    if (!report) return FK_ERROR_NULL_ARGUMENT;
    return fk__weights(desc, report, 0);
}

FK_LBS_DEF fk_result fk_weights_repair(const fk_weights_desc *desc, fk_weights_report *report)
{
    return fk__weights(desc, report, 1);
}

/* ---- Poses --------------------------------------------------------------------
   Every pose function checks all its inputs before writing, and reads joint i of
   every input before writing joint i, so an output may be one of the inputs. */

static fk_result fk__check_pose(int joint_count, const fk_quat *rotations, const fk_vec3 *translations)
{
    int i;
    if (!rotations) return FK_ERROR_NULL_ARGUMENT;
    for (i = 0; i < joint_count; ++i) {
        if (!fk__quat_is_normalizable(rotations[i])) return FK_ERROR_INVALID_ROTATION;
        if (translations && !fk__vec3_is_finite(translations[i])) return FK_ERROR_NOT_FINITE;
    }
    return FK_OK;
}

static fk_vec3 fk__vec3_at_or_zero(const fk_vec3 *v, int i) { return v ? v[i] : fk_vec3_make(0.0f, 0.0f, 0.0f); }

/* The checks every operation on two poses starts with: counts, the output, both
   poses, and the operation's one number (a blend parameter or weight). */
static fk_result fk__check_two_poses(int joint_count, const fk_quat *rotations_a, const fk_vec3 *translations_a,
                                     const fk_quat *rotations_b, const fk_vec3 *translations_b, float parameter,
                                     const fk_quat *out_rotations)
{
    fk_result result;
    if (joint_count < 0) return FK_ERROR_INVALID_COUNT;
    if (joint_count == 0) return FK_OK;
    if (!out_rotations) return FK_ERROR_NULL_ARGUMENT;
    if ((result = fk__check_pose(joint_count, rotations_a, translations_a)) != FK_OK) return result;
    if ((result = fk__check_pose(joint_count, rotations_b, translations_b)) != FK_OK) return result;
    return fk__is_finite(parameter) ? FK_OK : FK_ERROR_NOT_FINITE;
}

/* (1 - t) a + t b rather than a + t (b - a): exactly a at t = 0 and b at t = 1. */
static fk_vec3 fk__vec3_lerp(fk_vec3 a, fk_vec3 b, float t)
{
    return fk_vec3_add(fk_vec3_scale(a, 1.0f - t), fk_vec3_scale(b, t));
}

static fk_quat fk__quat_interpolate(fk_quat a, fk_quat b, float t, fk_rotation_interpolation method)
{
    a = fk_quat_normalize(a);
    b = fk_quat_normalize(b);
    return method == FK_INTERPOLATE_NLERP ? fk_quat_nlerp(a, b, t) : fk_quat_slerp(a, b, t);
}

FK_LBS_DEF fk_result fk_pose_interpolate(int joint_count, const fk_quat *rotations_a, const fk_vec3 *translations_a,
                                         const fk_quat *rotations_b, const fk_vec3 *translations_b, float t,
                                         fk_rotation_interpolation method, fk_quat *out_rotations,
                                         fk_vec3 *out_translations)
{
    fk_result result = fk__check_two_poses(joint_count, rotations_a, translations_a, rotations_b, translations_b, t,
                                           out_rotations);
    int i;
    if (result != FK_OK) return result;
    for (i = 0; i < joint_count; ++i) {
        fk_vec3 da = fk__vec3_at_or_zero(translations_a, i), db = fk__vec3_at_or_zero(translations_b, i);
        out_rotations[i] = fk__quat_interpolate(rotations_a[i], rotations_b[i], t, method);
        if (out_translations) out_translations[i] = fk__vec3_lerp(da, db, t);
    }
    return FK_OK;
}

FK_LBS_DEF fk_result fk_pose_blend(int joint_count, int pose_count, const fk_quat *const *rotations,
                                   const fk_vec3 *const *translations, const float *weights,
                                   fk_quat *out_rotations, fk_vec3 *out_translations)
{
    fk_result result;
    float sum = 0.0f;
    int i, p, heaviest = 0;
    if (joint_count < 0 || pose_count < 1) return FK_ERROR_INVALID_COUNT;
    if (!rotations || !weights || (joint_count > 0 && !out_rotations)) return FK_ERROR_NULL_ARGUMENT;
    for (p = 0; p < pose_count; ++p) {
        if (!(weights[p] >= 0.0f && weights[p] <= FLT_MAX)) return FK_ERROR_INVALID_WEIGHT;
        if (weights[p] > weights[heaviest]) heaviest = p;
        sum += weights[p];
    }
    if (!(sum > 0.0f && sum <= FLT_MAX)) return FK_ERROR_INVALID_WEIGHT;
    for (p = 0; p < pose_count; ++p)
        if ((result = fk__check_pose(joint_count, rotations[p], translations ? translations[p] : NULL)) != FK_OK)
            return result;
    for (i = 0; i < joint_count; ++i) {
        /* Against the heaviest pose's rotation no other can cancel the sum: each
           term's dot product with it is >= 0 after the flip, and its own is > 0. */
        fk_quat pivot = fk_quat_normalize(rotations[heaviest][i]);
        fk_quat q = fk_quat_make(0.0f, 0.0f, 0.0f, 0.0f);
        fk_vec3 d = fk_vec3_make(0.0f, 0.0f, 0.0f);
        for (p = 0; p < pose_count; ++p) {
            fk_quat r = fk_quat_normalize(rotations[p][i]);
            float w = weights[p] / sum;
            float signed_w = fk_quat_dot(pivot, r) < 0.0f ? -w : w;
            q = fk_quat_make(q.x + signed_w * r.x, q.y + signed_w * r.y, q.z + signed_w * r.z, q.w + signed_w * r.w);
            if (translations) d = fk_vec3_add(d, fk_vec3_scale(fk__vec3_at_or_zero(translations[p], i), w));
        }
        out_rotations[i] = fk_quat_normalize(q);
        if (out_translations) out_translations[i] = d;
    }
    return FK_OK;
}

FK_LBS_DEF fk_result fk_pose_difference(int joint_count, const fk_quat *reference_rotations,
                                        const fk_vec3 *reference_translations, const fk_quat *rotations,
                                        const fk_vec3 *translations, fk_quat *out_rotations,
                                        fk_vec3 *out_translations)
{
    fk_result result = fk__check_two_poses(joint_count, reference_rotations, reference_translations, rotations,
                                           translations, 0.0f, out_rotations);
    int i;
    if (result != FK_OK) return result;
    for (i = 0; i < joint_count; ++i) {
        fk_vec3 reference_d = fk__vec3_at_or_zero(reference_translations, i), d = fk__vec3_at_or_zero(translations, i);
        out_rotations[i] = fk_quat_normalize(fk_quat_mul(fk_quat_conjugate(fk_quat_normalize(reference_rotations[i])),
                                                         fk_quat_normalize(rotations[i])));
        if (out_translations) out_translations[i] = fk_vec3_sub(d, reference_d);
    }
    return FK_OK;
}

FK_LBS_DEF fk_result fk_pose_add(int joint_count, const fk_quat *base_rotations, const fk_vec3 *base_translations,
                                 const fk_quat *delta_rotations, const fk_vec3 *delta_translations, float weight,
                                 fk_quat *out_rotations, fk_vec3 *out_translations)
{
    fk_result result = fk__check_two_poses(joint_count, base_rotations, base_translations, delta_rotations,
                                           delta_translations, weight, out_rotations);
    int i;
    if (result != FK_OK) return result;
    for (i = 0; i < joint_count; ++i) {
        fk_vec3 base_d = fk__vec3_at_or_zero(base_translations, i), delta_d = fk__vec3_at_or_zero(delta_translations, i);
        /* delta^weight along the shorter arc: the rotation vector scaled by weight. */
        fk_quat partial = fk_quat_from_rotation_vector(
            fk_vec3_scale(fk_quat_to_rotation_vector(delta_rotations[i]), weight));
        out_rotations[i] = fk_quat_normalize(fk_quat_mul(fk_quat_normalize(base_rotations[i]), partial));
        if (out_translations) out_translations[i] = fk_vec3_add(base_d, fk_vec3_scale(delta_d, weight));
    }
    return FK_OK;
}

FK_LBS_DEF fk_result fk_track_validate(int key_count, const float *times)
{
    int i;
    if (key_count < 1) return FK_ERROR_INVALID_COUNT;
    if (!times) return FK_ERROR_NULL_ARGUMENT;
    for (i = 0; i < key_count; ++i)
        if (!fk__is_finite(times[i]) || (i > 0 && !(times[i] > times[i - 1]))) return FK_ERROR_KEYS_NOT_ASCENDING;
    return FK_OK;
}

/* The key at or before @p time, and how far @p time is toward the next key, for
   a time strictly inside the keys' range: times[low] <= time < times[low + 1]. */
static int fk__track_find(int key_count, const float *times, float time, float *fraction)
{
    int low = 0, high = key_count - 1;
    while (high - low > 1) {
        int middle = low + (high - low) / 2;
        if (times[middle] <= time) low = middle;
        else high = middle;
    }
    *fraction = (time - times[low]) / (times[high] - times[low]);
    return low;
}

FK_LBS_DEF fk_result fk_track_sample_vec3(int key_count, const float *times, const fk_vec3 *values, float time,
                                          fk_vec3 *out)
{
    fk_result result = fk_track_validate(key_count, times);
    float fraction;
    int i;
    if (result != FK_OK) return result;
    if (!values || !out) return FK_ERROR_NULL_ARGUMENT;
    if (time != time) return FK_ERROR_NOT_FINITE;
    for (i = 0; i < key_count; ++i)
        if (!fk__vec3_is_finite(values[i])) return FK_ERROR_NOT_FINITE;
    if (time <= times[0]) { *out = values[0]; return FK_OK; }
    if (time >= times[key_count - 1]) { *out = values[key_count - 1]; return FK_OK; }
    i = fk__track_find(key_count, times, time, &fraction);
    *out = fk__vec3_lerp(values[i], values[i + 1], fraction);
    return FK_OK;
}

FK_LBS_DEF fk_result fk_track_sample_quat(int key_count, const float *times, const fk_quat *values, float time,
                                          fk_rotation_interpolation method, fk_quat *out)
{
    fk_result result = fk_track_validate(key_count, times);
    float fraction;
    int i;
    if (result != FK_OK) return result;
    if (!values || !out) return FK_ERROR_NULL_ARGUMENT;
    if (time != time) return FK_ERROR_NOT_FINITE;
    for (i = 0; i < key_count; ++i)
        if (!fk__quat_is_normalizable(values[i])) return FK_ERROR_INVALID_ROTATION;
    if (time <= times[0]) { *out = fk_quat_normalize(values[0]); return FK_OK; }
    if (time >= times[key_count - 1]) { *out = fk_quat_normalize(values[key_count - 1]); return FK_OK; }
    i = fk__track_find(key_count, times, time, &fraction);
    *out = fk__quat_interpolate(values[i], values[i + 1], fraction, method);
    return FK_OK;
}

/* ---- Partial updates ------------------------------------------------------------
   The subtree is marked in the transforms array with fk_forward()'s FK__UNVISITED
   and then finished the way fk_forward() finishes joints whose parents come later:
   climb to a finished ancestor, compute back down the path. Every joint outside the
   subtree holds a finished transform, so each climb stops at the subtree's root. */

/* 1 when @p joint is @p root or below it, 0 when not, -1 when the walk up takes
   more than joint_count steps (a cycle). */
static int fk__in_subtree(int joint_count, const int *parents, int root, int joint)
{
    int steps;
    for (steps = 0; joint >= 0; ++steps) {
        if (joint == root) return 1;
        if (steps >= joint_count) return -1;
        joint = fk__parent_index(parents, joint);
    }
    return 0;
}

static fk_result fk__forward_subtree(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                     const fk_quat *rotations, const fk_vec3 *translations, int root,
                                     fk_rigid *transforms, int rest_frame)
{
    int i, parents_first, root_parent;
    fk_result result;
    if (joint_count < 0) return FK_ERROR_INVALID_COUNT;
    if (!parents || !rest_joints || !rotations || !transforms) return FK_ERROR_NULL_ARGUMENT;
    if (root < 0 || root >= joint_count) return FK_ERROR_JOINT_OUT_OF_RANGE;
    if ((result = fk__check_parents(joint_count, parents, &parents_first)) != FK_OK) return result;
    for (i = 0; i < joint_count; ++i) {
        int member = fk__in_subtree(joint_count, parents, root, i);
        if (member < 0) return FK_ERROR_CYCLE;
        if (!member) continue;
        if (!fk__quat_is_normalizable(rotations[i])) return FK_ERROR_INVALID_ROTATION;
        if (!fk__vec3_is_finite(rest_joints[i]) || (translations && !fk__vec3_is_finite(translations[i])))
            return FK_ERROR_NOT_FINITE;
    }
    root_parent = fk__parent_index(parents, root);
    if (root_parent >= 0) {
        if (!fk__quat_is_normalizable(transforms[root_parent].q)) return FK_ERROR_INVALID_ROTATION;
        if (!fk__vec3_is_finite(transforms[root_parent].t)) return FK_ERROR_NOT_FINITE;
    }
    for (i = 0; i < joint_count; ++i)
        if (fk__in_subtree(joint_count, parents, root, i) > 0) transforms[i].q.w = FK__UNVISITED;
    /* The subtree's joints are marked and its root's parent is finished, so the
       any-order walk computes exactly the subtree. */
    return fk__forward_marked(joint_count, parents, rest_joints, rotations, translations, transforms, rest_frame);
}

FK_LBS_DEF fk_result fk_forward_subtree(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                        const fk_quat *rotations, const fk_vec3 *translations, int joint,
                                        fk_rigid *transforms)
{
    return fk__forward_subtree(joint_count, parents, rest_joints, rotations, translations, joint, transforms, 0);
}

FK_LBS_DEF fk_result fk_forward_subtree_rest_frame(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                                   const fk_quat *rotations, const fk_vec3 *translations, int joint,
                                                   fk_rigid *transforms)
{
    return fk__forward_subtree(joint_count, parents, rest_joints, rotations, translations, joint, transforms, 1);
}

/* ---- Derivatives -----------------------------------------------------------------
   A point p carried by bone b is its chain's sum of segments: with P_k the posed
   pivot of joint k, p = P_r + sum over the chain's joints k of Q_k s_k, where
   Q_k s_k is the segment from P_k to the next pivot down the chain (or to p, for
   k = b). Perturbing q_i to exp(w/2) q_i turns each segment below joint i, k = i..b,
   by a world rotation vector R_k w, so dp = sum_k (R_k w) x (Q_k s_k) to first order.
     Parent frame: Q_k = Q_p(i) exp(w/2) q_i ... q_k = exp(Q_p(i) w / 2) Q_k, so every
   R_k is the rotation of i's parent, A: the subtree turns rigidly about P_i and
   column c is (A e_c) x (p - P_i).
     Rest frame: Q_k = q_k ... exp(w/2) q_i Q_p(i) = exp(L_k w / 2) Q_k with
   L_k = Q_k Q_i*: each segment turns about its own axis, column c is
   sum_k (L_k e_c) x (Q_k s_k), and a chain costs O(depth^2). */

static fk_vec3 fk__pivot(const fk_vec3 *rest_joints, const fk_rigid *transforms, int joint)
{
    return fk_rigid_apply(transforms[joint], rest_joints[joint]);
}

/* Adds weight times d p / d w_i, for the point p carried by bone b, to columns[3]. */
static void fk__jacobian_columns(const int *parents, const fk_vec3 *rest_joints, const fk_rigid *transforms,
                                 fk_rotation_frame frame, int i, int b, fk_vec3 point, float weight,
                                 fk_vec3 columns[3])
{
    int parent = fk__parent_index(parents, i), k, c;
    fk_vec3 next = point;
    if (frame == FK_FRAME_PARENT) {
        fk_quat a = parent >= 0 ? fk_quat_normalize(transforms[parent].q) : fk_quat_identity();
        fk_vec3 lever = fk_vec3_scale(fk_vec3_sub(point, fk__pivot(rest_joints, transforms, i)), weight);
        columns[0] = fk_vec3_add(columns[0], fk_vec3_cross(fk_quat_rotate(a, fk_vec3_make(1.0f, 0.0f, 0.0f)), lever));
        columns[1] = fk_vec3_add(columns[1], fk_vec3_cross(fk_quat_rotate(a, fk_vec3_make(0.0f, 1.0f, 0.0f)), lever));
        columns[2] = fk_vec3_add(columns[2], fk_vec3_cross(fk_quat_rotate(a, fk_vec3_make(0.0f, 0.0f, 1.0f)), lever));
        return;
    }
    for (k = b;; k = fk__parent_index(parents, k)) {
        fk_vec3 pivot = fk__pivot(rest_joints, transforms, k);
        fk_vec3 segment = fk_vec3_scale(fk_vec3_sub(next, pivot), weight);
        fk_quat l = fk_quat_normalize(fk_quat_mul(transforms[k].q, fk_quat_conjugate(transforms[i].q)));
        for (c = 0; c < 3; ++c) {
            fk_vec3 axis = fk_vec3_make(c == 0 ? 1.0f : 0.0f, c == 1 ? 1.0f : 0.0f, c == 2 ? 1.0f : 0.0f);
            columns[c] = fk_vec3_add(columns[c], fk_vec3_cross(fk_quat_rotate(l, axis), segment));
        }
        if (k == i) break;
        next = pivot;
    }
}

/* Checks what every derivative needs: the parent array (cycles included, by
   walking up from @p joint at most joint_count steps) and the joint's range. */
static fk_result fk__check_chain(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                 const fk_rigid *transforms, int joint)
{
    int parents_first, steps = 0;
    fk_result result;
    if (joint_count < 0) return FK_ERROR_INVALID_COUNT;
    if (!parents || !rest_joints || !transforms) return FK_ERROR_NULL_ARGUMENT;
    if (joint < 0 || joint >= joint_count) return FK_ERROR_JOINT_OUT_OF_RANGE;
    if ((result = fk__check_parents(joint_count, parents, &parents_first)) != FK_OK) return result;
    for (; joint >= 0; joint = fk__parent_index(parents, joint))
        if (++steps > joint_count) return FK_ERROR_CYCLE;
    return FK_OK;
}

/* Adds weight times the point's Jacobian columns for @p joint and its ancestors. */
static void fk__accumulate_jacobian(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                    const fk_rigid *transforms, fk_rotation_frame frame, int joint,
                                    fk_vec3 rest_point, float weight, float *out)
{
    size_t width = 3 * (size_t)joint_count;
    fk_vec3 point = fk_rigid_apply(transforms[joint], rest_point);
    int i, c;
    for (i = joint; i >= 0; i = fk__parent_index(parents, i)) {
        fk_vec3 columns[3] = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
        fk__jacobian_columns(parents, rest_joints, transforms, frame, i, joint, point, weight, columns);
        for (c = 0; c < 3; ++c) {
            size_t column = 3 * (size_t)i + (size_t)c;
            out[column] += columns[c].x;
            out[width + column] += columns[c].y;
            out[2 * width + column] += columns[c].z;
        }
    }
}

FK_LBS_DEF fk_result fk_jacobian_point(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                       const fk_rigid *transforms, fk_rotation_frame frame, int joint,
                                       fk_vec3 rest_point, float *out)
{
    fk_result result = fk__check_chain(joint_count, parents, rest_joints, transforms, joint);
    size_t e;
    if (result != FK_OK) return result;
    if (!out) return FK_ERROR_NULL_ARGUMENT;
    if (!fk__vec3_is_finite(rest_point)) return FK_ERROR_NOT_FINITE;
    for (e = 0; e < 9 * (size_t)joint_count; ++e) out[e] = 0.0f;
    fk__accumulate_jacobian(joint_count, parents, rest_joints, transforms, frame, joint, rest_point, 1.0f, out);
    return FK_OK;
}

FK_LBS_DEF fk_result fk_jacobian_joint(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                       const fk_rigid *transforms, fk_rotation_frame frame, int joint, float *out)
{
    if (!rest_joints) return FK_ERROR_NULL_ARGUMENT;
    if (joint < 0 || joint >= joint_count) return FK_ERROR_JOINT_OUT_OF_RANGE;
    return fk_jacobian_point(joint_count, parents, rest_joints, transforms, frame, joint, rest_joints[joint], out);
}

FK_LBS_DEF fk_result fk_jacobian_lbs_vertex(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                            const fk_rigid *transforms, fk_rotation_frame frame,
                                            fk_vec3 rest_position, int influences, const uint16_t *joints,
                                            const float *weights, float *out)
{
    fk_result result;
    size_t e;
    int k;
    if (influences < 1) return FK_ERROR_INVALID_COUNT;
    if (!joints || !weights || !out) return FK_ERROR_NULL_ARGUMENT;
    for (k = 0; k < influences; ++k) {
        if ((result = fk__check_chain(joint_count, parents, rest_joints, transforms, joints[k])) != FK_OK) return result;
        if (!fk__is_finite(weights[k])) return FK_ERROR_INVALID_WEIGHT;
    }
    if (!fk__vec3_is_finite(rest_position)) return FK_ERROR_NOT_FINITE;
    for (e = 0; e < 9 * (size_t)joint_count; ++e) out[e] = 0.0f;
    for (k = 0; k < influences; ++k)
        fk__accumulate_jacobian(joint_count, parents, rest_joints, transforms, frame, joints[k], rest_position,
                                weights[k], out);
    return FK_OK;
}

FK_LBS_DEF fk_result fk_ik_step(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                const fk_rigid *transforms, fk_rotation_frame frame, int joint, fk_vec3 rest_point,
                                int chain_root, fk_vec3 target, float damping, fk_quat *rotations)
{
    /* (J J^T + lambda^2 I) is symmetric: xx, xy, xz, yy, yz, zz. */
    float a[6], det, inverse[6], reach = 0.0f;
    fk_vec3 point, error, y, next;
    fk_result result = fk__check_chain(joint_count, parents, rest_joints, transforms, joint);
    int i, found = chain_root < 0;
    if (result != FK_OK) return result;
    if (!rotations) return FK_ERROR_NULL_ARGUMENT;
    if (!fk__vec3_is_finite(rest_point) || !fk__vec3_is_finite(target) || !(damping >= 0.0f && damping <= FLT_MAX))
        return FK_ERROR_NOT_FINITE;
    for (i = joint; i >= 0 && !found; i = fk__parent_index(parents, i)) found = i == chain_root;
    if (!found) return FK_ERROR_JOINT_OUT_OF_RANGE;
    for (i = joint; i >= 0; i = i == chain_root ? -1 : fk__parent_index(parents, i))
        if (!fk__quat_is_normalizable(rotations[i])) return FK_ERROR_INVALID_ROTATION;

    point = fk_rigid_apply(transforms[joint], rest_point);
    error = fk_vec3_sub(target, point);
    next = point;
    for (i = joint; i >= 0; i = i == chain_root ? -1 : fk__parent_index(parents, i)) {
        fk_vec3 pivot = fk__pivot(rest_joints, transforms, i);
        reach += fk_vec3_length(fk_vec3_sub(next, pivot));
        next = pivot;
    }
    /* lambda^2 = d^2 + |e| R, R the chain's length. Near a straight chain reaching
       for a target |e| beyond it, bending costs curvature of at most about |e| R
       that J J^T does not see; damping of that size keeps the step from jumping
       past the straight pose and back (a fixed small d oscillates there, |e|^2
       alone does too for targets just out of reach), and it vanishes as a
       reachable target is approached, leaving Gauss-Newton's fast convergence. */
    a[0] = a[3] = a[5] = damping * damping + fk_vec3_length(error) * reach;
    a[1] = a[2] = a[4] = 0.0f;
    for (i = joint; i >= 0; i = i == chain_root ? -1 : fk__parent_index(parents, i)) {
        fk_vec3 columns[3] = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
        int c;
        fk__jacobian_columns(parents, rest_joints, transforms, frame, i, joint, point, 1.0f, columns);
        for (c = 0; c < 3; ++c) {
            fk_vec3 v = columns[c];
            a[0] += v.x * v.x; a[1] += v.x * v.y; a[2] += v.x * v.z;
            a[3] += v.y * v.y; a[4] += v.y * v.z; a[5] += v.z * v.z;
        }
    }
    /* The adjugate over the determinant; a positive semidefinite matrix whose
       determinant is not positive gives no direction worth taking. */
    inverse[0] = a[3] * a[5] - a[4] * a[4];
    inverse[1] = a[2] * a[4] - a[1] * a[5];
    inverse[2] = a[1] * a[4] - a[2] * a[3];
    inverse[3] = a[0] * a[5] - a[2] * a[2];
    inverse[4] = a[1] * a[2] - a[0] * a[4];
    inverse[5] = a[0] * a[3] - a[1] * a[1];
    det = a[0] * inverse[0] + a[1] * inverse[1] + a[2] * inverse[2];
    if (!(det > 0.0f && det <= FLT_MAX)) return FK_OK;
    y = fk_vec3_scale(fk_vec3_make(inverse[0] * error.x + inverse[1] * error.y + inverse[2] * error.z,
                                   inverse[1] * error.x + inverse[3] * error.y + inverse[4] * error.z,
                                   inverse[2] * error.x + inverse[4] * error.y + inverse[5] * error.z),
                      1.0f / det);
    for (i = joint; i >= 0; i = i == chain_root ? -1 : fk__parent_index(parents, i)) {
        fk_vec3 columns[3] = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}}, step;
        fk__jacobian_columns(parents, rest_joints, transforms, frame, i, joint, point, 1.0f, columns);
        step = fk_vec3_make(fk_vec3_dot(columns[0], y), fk_vec3_dot(columns[1], y), fk_vec3_dot(columns[2], y));
        rotations[i] = fk_quat_normalize(fk_quat_mul(fk_quat_from_rotation_vector(step), rotations[i]));
    }
    return FK_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* FK_LBS_IMPLEMENTATION_DONE */
#endif /* FK_LBS_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
This software is available under 2 licenses -- choose whichever you prefer.
------------------------------------------------------------------------------
ALTERNATIVE A - MIT License
Copyright (c) 2026 the fk_lbs.h authors
Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:
The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
ALTERNATIVE B - Public Domain (www.unlicense.org)
This is free and unencumbered software released into the public domain.
Anyone is free to copy, modify, publish, use, compile, sell, or distribute this
software, either in source code form or as a compiled binary, for any purpose,
commercial or non-commercial, and by any means.
In jurisdictions that recognize copyright laws, the author or authors of this
software dedicate any and all copyright interest in the software to the public
domain. We make this dedication in addition to any and all other rights to this
software under copyright law.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN
ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION
WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------
*/
