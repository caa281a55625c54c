/* fk_lbs.h - v0.3.0 - forward kinematics and blend skinning (LBS, DQS) in one C header
   MIT or public domain (Unlicense): see the end of the file.

   Do this:
       #define FK_LBS_IMPLEMENTATION
   before you include this file in *one* C or C++ file to create the implementation.
   Every other file includes it without the define.

   ABOUT
     fk_lbs.h poses skeletons and skins meshes:
       - quaternion and rigid-transform math (small structs passed by value);
       - forward kinematics (FK) over a parent array, in any joint order, and
         with scale (glTF's T R S, or about each joint's pivot) as affine matrices;
         engine rigs (local T R S and inverse binds) straight to skinning
         matrices, over a skeleton prepared once;
       - linear blend skinning (LBS) and dual quaternion skinning (DQS) of positions
         and normals, with byte strides for interleaved vertex buffers, glTF's
         uint8 joints, normalized weights and second stream as they are; LBS of
         affine bones (scale, shear, mirrors) with exact normals, and DQS of
         bones with scale as Blender's Preserve Volume splits them;
       - optional tangents x y z w (glTF): xyz moves like a normal, w is kept;
       - shader palettes that match the CPU, and meshes split into draws whose
         bones fit a palette;
       - engine rigs (inverse bind and world matrices) turned into rest joints and
         relative rotations;
       - an animation toolkit: pose blending with per-joint masks, glTF's LINEAR,
         STEP and CUBICSPLINE sampling with a playback cursor, root motion, morph
         targets, two-bone and aim IK, retargeting between rigs;
       - weight repair, subtree updates, Jacobians of FK and LBS, and a damped
         least squares IK step;
       - skinning with optimized centres of rotation (Le and Hodgins 2016),
         the centres precomputed from the rest mesh.
     No heap allocation, no global state, no I/O: every function is reentrant and
     may be called from any number of threads at once on separate outputs.

   USAGE
       fk_rigid bones[2];
       fk_forward(2, parents, rest_joints, rotations, NULL, bones);
       fk_skin_desc skin = {0};   ...fill in the vertex arrays...
       skin.transforms = bones; skin.transform_count = 2;
       fk_skin_lbs(&skin);
     README.md has the complete program; docs/ has the derivation with pictures.

   YOUR DATA, THE FUNCTIONS
     BVH, procedural rigs: rest joint positions (pivots), rotations relative to
       the rest pose -> fk_forward() -> fk_skin_desc::transforms.
     glTF, FBX, engine rigs: local translation, rotation (rest orientation
       included) and scale, inverse bind matrices, any joint order ->
       fk_skeleton_init() once, then fk_forward_engine() -> world matrices and
       skinning matrices for fk_skin_desc::matrices; where no joint scales,
       fk_forward_engine_rigid() -> fk_skin_desc::transforms.
     Engine world matrices W_i and inverse binds IB_i ->
       fk_skin_matrices_from_matrices() -> fk_skin_desc::matrices; or, for rigid
       rigs, fk_bind_from_matrices() once and fk_pose_from_matrices() then
       fk_forward() per frame -> fk_skin_desc::transforms.

   CONVENTIONS (decided once, never changed)
     - Quaternions are stored x, y, z, w (w last) and multiply by the Hamilton rule.
       fk_quat_mul(a, b) applies b first: rotate(a*b, v) == rotate(a, rotate(b, v)).
     - A rigid transform {q, t} maps a point v to q v q* + t.
     - 3x3 and 3x4 matrices are row-major and act on column vectors: the 3x4 matrix
       [R | t] is what a GPU skinning shader uploads.
     - Angles are in radians; strides are in bytes (0 means tightly packed).
     - Forward kinematics (fk_forward()): joint i rotates by q_i about its rest
       position x_i (its pivot), q_i relative to the rest pose (BVH, procedural
       rigs). By default q_i is expressed in the parent's frame, Q_i = Q_p q_i;
       fk_forward_rest_frame() takes q_i in the rest frame, Q_i = q_i Q_p. Both
       place joint i where its parent sends it:
           t_i = t_p + Q_p (x_i + d_i) - Q_i x_i        roots: t_r = x_r + d_r - Q_r x_r
       glTF, FBX and engine local rotations include the rest orientation and are
       not these q_i: they go through fk_forward_engine() (see YOUR DATA).
     - Input quaternions need not be unit length: they are normalized on the way in.

   OPTIONS (#define before including)
     FK_LBS_STATIC            make every function static (private to one file)
     FK_LBS_DEF               linkage of the public functions (default: extern)
     FK_LBS_ASSERT(x)         assertion for programmer errors (default: assert)
     FK_LBS_PALETTE_CAPACITY  bones whose matrices are precomputed on the stack per
                              skinning call without scratch memory (default 256:
                              16 KB; DQS of bones with scale keeps 44 floats a bone,
                              so 93 fit); larger rigs still work, in the plain C
                              loop, converting each bone as it is used and keeping
                              the last 16 (3 KB): several to over a hundred times
                              slower, so give them fk_skin_desc::scratch
                              (fk_skin_scratch_size()), which also takes the
                              palette and the large tables off the stack. The fast
                              paths take some stack beside it: rigid DQS 11 KB of
                              sign tables, DQS with scale centred at the bone and
                              CoR with scale 35 KB without scratch (copies of the
                              palette's parts, sign tables, buffers), 21 KB with
                              it (and no palette on the stack); 4.5 KB of those
                              convert glTF's formats
     FK_LBS_RIGID_TOLERANCE   relative tolerance (default 1e-4) within which engine
                              matrices count as rigid in fk_bind_from_matrices(),
                              fk_pose_from_matrices() and fk_skin_dqs(): above float
                              rounding, below any scale an artist meant
     FK_LBS_NO_SIMD           skin and pose with the plain C loops only (no
                              intrinsics)
     FK_LBS_NO_AVX2           on x86-64, use the SSE2 fast paths even where AVX2
                              and FMA are available (to test or compare them)

   FAST PATHS
     Where the compiler targets SSE2 (any x86-64), 64-bit Arm (NEON) or
     WebAssembly with SIMD128 (-msimd128), fk_skin_lbs(), fk_skin_dqs(),
     fk_skin_cor() (rigid bones), fk_forward() and the engine-form calls
     (fk_forward_engine(), fk_forward_engine_rigid()) run vector loops written
     once against a small 4-lane layer; on
     x86-64 with gcc or clang they also run 8-lane loops where the processor has
     AVX2 and FMA, chosen at run time, so a plain -O2 build uses them. The fast
     paths compute what the plain C loops compute to a few ulps, and a vertex's
     bits do not depend on the layout or on how a call is split (see
     fk_skin_lbs()). They are one section at the end of the implementation.

   ERRORS
     Functions that can meet bad data return an fk_result; fk_result_description()
     names it. Bad input never leads to a read or write out of bounds. Skeletons and
     transforms are checked in full (parent arrays; zero, infinite or NaN
     quaternions; non-finite positions; a pose that overflows float). Per-vertex
     data (positions, normals, weights) is not checked, which would cost a pass over
     the mesh: NaN there makes that vertex's outputs NaN. The math helpers check
     nothing: NaN in, NaN out. On error a function writes nothing, unless its
     comment says what it writes instead (FK: identities; skinning: the vertices
     before a bad joint index). docs/conventions.md has the whole table.
     Built with -ffast-math (or -ffinite-math-only), every check above still
     holds, with the same error codes: they read a float's bits, which those
     flags cannot fold away as they may a comparison. What the flags give up is
     NaN carried through: NaN in per-vertex data or in a math helper's
     arguments may then come out as a number; and two functions the manual
     says agree bit for bit (fk_skin_cor() of a vertex at its own centre and
     fk_skin_lbs()'s plain loop) agree to rounding, each compiled with its
     own reassociations.
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
#define FK_LBS_VERSION_MINOR 3
/** @brief Patch version number. */
#define FK_LBS_VERSION_PATCH 0
/** @brief The version as a string, "major.minor.patch". */
#define FK_LBS_VERSION "0.3.0"

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
    option: define it before including). Rigs with more bones still skin, in
    the plain C loop, each bone converted as it is used (the last 16 kept), which
    is several to over a hundred times slower than the fast paths. Defined with the
    declarations, so that any file can read it (define it alike in each). */
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
    FK_ERROR_KEYS_NOT_ASCENDING, /**< key times are not finite and strictly ascending */
    FK_ERROR_CONFLICTING_ARGUMENTS, /**< two inputs that exclude each other are both given */
    FK_ERROR_INVALID_OPTION,     /**< an option has a value it does not name (an enum), or one outside its range */
    FK_ERROR_MISSING_BIND_POSES  /**< DQS of matrices with scale needs each bone's rest frame, and bind_poses is NULL */
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

/** @brief Where DQS centres a bone's scale (fk_skin_dqs() with matrices that scale).
    Both split each bone into a scale part along its rest axes and a rigid part,
    as Blender's Armature modifier does with Preserve Volume; they differ in the
    point the scale parts are blended about. */
typedef enum fk_dqs_scale_center {
    FK_DQS_SCALE_AT_VERTEX = 0, /**< about the vertex itself, its displacement carried by the rigid part
                                     (later Blender versions): a uniform scale of the whole rig scales
                                     the skinned mesh exactly */
    FK_DQS_SCALE_AT_BONE = 1    /**< about each bone's rest origin (Blender 3.4 and earlier) */
} fk_dqs_scale_center;

/** @brief The type of fk_skin_desc::joints (and joints2), as glTF's JOINTS_n accessors give it. */
typedef enum fk_joint_format {
    FK_JOINTS_U16 = 0, /**< uint16_t (the default) */
    FK_JOINTS_U8 = 1   /**< uint8_t */
} fk_joint_format;

/** @brief The type of fk_skin_desc::weights (and weights2), as glTF's WEIGHTS_n
    accessors give it; normalized integers become c / 255 and c / 65535, the
    quotient correctly rounded to float (glTF 2.0's dequantization). */
typedef enum fk_weight_format {
    FK_WEIGHTS_FLOAT = 0,   /**< float (the default) */
    FK_WEIGHTS_UNORM8 = 1,  /**< uint8_t c, the weight c / 255 */
    FK_WEIGHTS_UNORM16 = 2  /**< uint16_t c, the weight c / 65535 */
} fk_weight_format;

/** @brief A skinning method, for what depends on it (fk_skin_validate()). */
typedef enum fk_skin_method {
    FK_SKIN_LBS = 0, /**< linear blend skinning, fk_skin_lbs() */
    FK_SKIN_DQS = 1, /**< dual quaternion skinning, fk_skin_dqs() */
    FK_SKIN_COR = 2  /**< skinning with centres of rotation, fk_skin_cor() */
} fk_skin_method;

/** @brief What to skin and where to write it; see fk_skin_lbs().

    Zero-initialize it and fill in what you use. Vertex i has @c influences joint
    indices and as many weights; it is skinned as
    v' = sum_k weights[k] (Q_joints[k] v + t_joints[k]).
    Strides are the bytes from one vertex's record to the next; 0 means tightly packed.
    If @c joints is NULL the weights are dense: vertex i has one weight per transform
    (the libigl layout, row-major), and @c influences must equal @c transform_count.
    Joints and weights may come as glTF stores them (@c joint_format,
    @c weight_format, in both streams), and influences 5 to 8 from a second
    stream (glTF's JOINTS_1 and WEIGHTS_1, @c joints2 and @c weights2): the result
    is, bit for bit, that of the same influences given as uint16_t and float. */
typedef struct fk_skin_desc {
    int vertex_count;         /**< number of vertices to skin (>= 0) */
    int influences;           /**< joints per vertex, k >= 1 */
    const float *positions;   /**< rest positions, x y z per vertex (required) */
    size_t position_stride;   /**< bytes between positions; 0 = 12 */
    const float *normals;     /**< rest normals, x y z per vertex (optional, NULL) */
    size_t normal_stride;     /**< bytes between normals; 0 = 12 */
    const void *joints;       /**< k joint indices per vertex (4 with a second stream), of
                                   @c joint_format; NULL = dense weights */
    size_t joint_stride;      /**< bytes between vertices' index lists; 0 = packed */
    const void *weights;      /**< k weights per vertex (4 with a second stream), of
                                   @c weight_format (required) */
    size_t weight_stride;     /**< bytes between vertices' weight lists; 0 = packed */
    const fk_rigid *transforms; /**< absolute joint transforms, from fk_forward(); or NULL and @c matrices */
    int transform_count;      /**< number of transforms (or matrices); every joint index must be below it */
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
    const float *matrices;    /**< affine joint transforms instead of @c transforms (exactly one of
                                   the two): 12 floats per joint, 3x4 row-major, as fk_forward_scaled()
                                   writes them or world_i IB_i; scale and shear allowed */
    const fk_rigid *bind_poses; /**< DQS of @c matrices with scale: each bone's rest (bind) frame,
                                   the inverse of its inverse bind matrix, in the space the matrices
                                   map (see fk_skin_dqs()); used nowhere else, but checked whenever given */
    fk_dqs_scale_center dqs_scale_center; /**< DQS with scale: where each bone's scale part is centred
                                   (FK_DQS_SCALE_AT_VERTEX, the default, or FK_DQS_SCALE_AT_BONE) */
    void *scratch;            /**< memory the call may use for its palette and tables, any alignment, not
                                   read before it is written; NULL: the stack (see fk_skin_scratch_size()) */
    size_t scratch_size;      /**< bytes at @c scratch; used when at least fk_skin_scratch_size() */
    fk_joint_format joint_format;   /**< type of @c joints and @c joints2 (FK_JOINTS_U16, the default) */
    fk_weight_format weight_format; /**< type of @c weights and @c weights2 (FK_WEIGHTS_FLOAT, the default) */
    const void *joints2;      /**< a second stream, influences 5 to k (5 <= k <= 8): k - 4 joint indices
                                   per vertex (glTF's JOINTS_1), with @c weights2; or NULL */
    size_t joint2_stride;     /**< bytes between the second stream's index lists; 0 = packed */
    const void *weights2;     /**< the second stream's k - 4 weights per vertex (glTF's WEIGHTS_1) */
    size_t weight2_stride;    /**< bytes between the second stream's weight lists; 0 = packed */
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
    @return FK_OK or the first error found. FK_ERROR_INVALID_COUNT and
    FK_ERROR_NULL_ARGUMENT write nothing; after any other error @p out holds
    identities (an overflow is only seen once the pose is computed).
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
    @return FK_OK or the first error found; on error, as fk_forward(). */
FK_LBS_DEF fk_result fk_forward_rest_frame(int joint_count, const int *parents,
                                           const fk_vec3 *rest_joints, const fk_quat *rotations,
                                           const fk_vec3 *translations, fk_rigid *out);

/** @brief Posed joint positions: out[i] = Q_i x_i + t_i.
    @param joint_count number of joints (>= 0). @param rest_joints rest positions.
    @param transforms absolute transforms from fk_forward().
    @param out receives joint_count positions.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT or FK_ERROR_INVALID_COUNT; nothing is
    written on error. */
FK_LBS_DEF fk_result fk_posed_joints(int joint_count, const fk_vec3 *rest_joints,
                                     const fk_rigid *transforms, fk_vec3 *out);

/* ============================================================================
   Forward kinematics with scale
   ============================================================================ */

/* A joint that scales makes its transform affine: a linear part A_i that is no
   longer a rotation, and a translation t_i, stored as a 3x4 row-major matrix
   [A_i | t_i] (12 floats, as fk_rigid_to_mat34() writes). Scale is inherited:
   a child of a joint scaled non-uniformly is sheared when it rotates, and its
   matrix is then no product of a rotation and a scale at all. Zero scale (a
   part hidden by scaling it away) and negative scale (mirroring) are allowed. */

/** @brief Forward kinematics of local translations, rotations and scales, with
    glTF's semantics: world_i = world_p T(t_i) R(q_i) S(s_i), a root's world
    matrix its own T R S.

    Nodes above the joints (an armature object, a scene root) premultiply every
    world matrix alike: multiply their matrix into each result afterwards
    (fk_mat34_mul()), and into the skinning matrices world_i IB_i.

    @param joint_count number of joints (>= 0).
    @param parents parent of each joint, negative for a root; any order.
    @param translations local translation t_i of each joint.
    @param rotations local rotation q_i of each joint (normalized on the way in).
    @param scales local scale s_i of each joint, or NULL for 1.
    @param out receives 12 floats per joint, world_i as a 3x4 row-major matrix.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_PARENT_OUT_OF_RANGE, FK_ERROR_SELF_PARENT, FK_ERROR_CYCLE,
    FK_ERROR_INVALID_ROTATION, or FK_ERROR_NOT_FINITE (a translation or scale is
    infinite or NaN, or a result overflows float). FK_ERROR_INVALID_COUNT and
    FK_ERROR_NULL_ARGUMENT write nothing; after any other error @p out holds
    identities, as for fk_forward().
    @remark Each product is formed in double and rounded once. Parents may come
    after their children; nothing is allocated (@p out is the scratch), and @p out
    must not overlap the inputs. */
FK_LBS_DEF fk_result fk_forward_trs(int joint_count, const int *parents, const fk_vec3 *translations,
                                    const fk_quat *rotations, const fk_vec3 *scales, float *out);

/** @brief fk_forward() with a scale about each joint's rest pivot.

    Joint i scales by scales[i] along the rest frame's axes about its pivot x_i,
    then rotates by rotations[i] and moves by translations[i], carrying its
    descendants: with the affine transform [A_i | t_i] of each joint,
        A_i = A_p R(q_i) S(s_i),   t_i = t_p + A_p (x_i + d_i) - A_i x_i
    (roots: A_p = I, t_p = 0). With every scale 1 this is fk_forward()'s pose,
    as matrices; joint i's pivot still lands where its parent's transform sends
    it, now whatever the scales.

    @param joint_count number of joints (>= 0).
    @param parents parent of each joint, negative for a root; any order.
    @param rest_joints rest position x_i of each joint, its pivot.
    @param rotations relative rotation q_i (normalized on the way in).
    @param translations relative translation d_i, or NULL for none.
    @param scales scale s_i about the pivot, or NULL for 1.
    @param out receives 12 floats per joint, [A_i | t_i] row-major.
    @return as fk_forward_trs(). */
FK_LBS_DEF fk_result fk_forward_scaled(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                       const fk_quat *rotations, const fk_vec3 *translations,
                                       const fk_vec3 *scales, float *out);

/** @brief Recomputes one joint's subtree of fk_forward_scaled() (or, with
    @p rest_joints NULL, of fk_forward_trs()), as fk_forward_subtree() does for
    fk_forward(): the joint and every joint below it, from the other joints'
    matrices as they stand (the subtree root's parent's must be current).
    @param joint_count number of joints (>= 1). @param parents parent array, any order.
    @param rest_joints rest positions (pivots), or NULL for glTF's T R S.
    @param rotations,translations,scales as fk_forward_scaled() (translations are
    required without rest joints, scales may be NULL).
    @param joint the subtree's root.
    @param matrices in: the matrices of the last full pass; out: the subtree
    recomputed.
    @return as fk_forward_scaled(), or FK_ERROR_JOINT_OUT_OF_RANGE for a joint not
    below joint_count. Bad input is found before anything is written; a subtree
    whose products overflow float is left as identities. Matrices outside the
    subtree are never written, whatever they hold (infinities included).
    @remark O(joint_count x depth), as fk_forward_subtree(). */
FK_LBS_DEF fk_result fk_forward_scaled_subtree(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                               const fk_quat *rotations, const fk_vec3 *translations,
                                               const fk_vec3 *scales, int joint, float *matrices);

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
    (scale that varies per joint) or are singular; nothing is written on error. */
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
    or differs from the bind pose's); nothing is written on error.
    @remark So that an error found at the last joint leaves the outputs alone,
    each joint's motion is checked in a first pass (about half again the time),
    and in full only when something is wrong or values come near FLT_MAX.
    @remark A pose whose joints scale has no rotations and translations to give:
    skin it with fk_skin_matrices_from_matrices() and fk_skin_desc::matrices
    instead (see below). */
FK_LBS_DEF fk_result fk_pose_from_matrices(int joint_count, const int *parents,
                                           const float *inverse_bind_matrices, const float *world_matrices,
                                           const float pretransform[12], const fk_vec3 *rest_joints,
                                           fk_quat *out_rotations, fk_vec3 *out_translations);

/* Rigs with scale. A joint that scales has no rotation and translation to give
   fk_forward(), but its skinning matrix W_i IB_i is all fk_skin_lbs() needs
   (fk_skin_desc::matrices), and fk_skin_dqs() needs each bone's rest frame as
   well, rigid, to split off the scale. An engine's rest frames IB_i^-1 are rigid
   up to what the whole rig shares (an armature scaled by 0.01, FBX's x100): the
   two functions below factor that out once, F, and give the skinning matrices
   and rest frames in the space F^-1 where the rest frames are rigid. Skin the
   vertices F^-1 v there (normals by F^T n), and take the results back by F
   (normals by F^-T, renormalized); for most rigs F is the identity and nothing
   moves. */

/** @brief The space in which an engine rig's rest frames are rigid, and those
    frames: IB_i^-1 = F B_i with B_i rigid and F the linear part (symmetric; with
    a sign for a mirrored rig) that every joint shares.
    @param joint_count number of joints (>= 0).
    @param inverse_bind_matrices 12 floats per joint, 3x4 row-major.
    @param out_space receives F, 12 floats, 3x4 row-major (no translation).
    @param out_bind_poses receives B_i, the rest frames in the space F^-1: what
    fk_skin_desc::bind_poses takes.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT, FK_ERROR_NOT_FINITE,
    or FK_ERROR_NOT_RIGID when an inverse bind matrix is singular or the rest
    frames' scales differ (within FK_LBS_RIGID_TOLERANCE): no one space makes
    them rigid; nothing is written on error (each joint is computed twice). */
FK_LBS_DEF fk_result fk_bind_frames_from_matrices(int joint_count, const float *inverse_bind_matrices,
                                                  float out_space[12], fk_rigid *out_bind_poses);

/** @brief The skinning matrices of one pose of an engine rig, scale and shear
    included, in the space of fk_bind_frames_from_matrices(): F^-1 W_i IB_i F.
    @param joint_count number of joints (>= 0).
    @param inverse_bind_matrices,world_matrices 12 floats per joint, 3x4 row-major.
    @param space F from fk_bind_frames_from_matrices(), or NULL for the identity
    (world space, as glTF skins).
    @param out_matrices receives 12 floats per joint: fk_skin_desc::matrices.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT, FK_ERROR_NOT_FINITE
    (an input is not finite, or a result overflows float), or FK_ERROR_NOT_RIGID
    when F is singular; nothing is written on error (the products are formed
    twice only when an input is not finite or a bound on them nears FLT_MAX). */
FK_LBS_DEF fk_result fk_skin_matrices_from_matrices(int joint_count, const float *inverse_bind_matrices,
                                                    const float *world_matrices, const float *space,
                                                    float *out_matrices);

/* ============================================================================
   Prepared skeletons and engine-form forward kinematics
   ============================================================================ */

/* glTF, FBX and engines give each joint a local translation, rotation and scale
   in its parent's frame, the rotation including the joint's rest orientation,
   and bind the mesh by inverse bind matrices: world_i = world_p T(t_i) R(q_i)
   S(s_i), skinned by world_i IB_i. That is fk_forward_trs()'s pose; the two
   functions below compute it on the fast paths, over a skeleton whose parent
   array is checked and put parents first once, when it is prepared. */

/** @brief Ints of storage that fk_skeleton_init() needs for @p joint_count
    joints: the parents-first order and its inverse. */
#define FK_SKELETON_STORAGE(joint_count) (2 * (joint_count))

/** @brief A parent array checked once and put in a parents-first order, so that
    per-frame calls skip the checks and run any joint order at parents-first
    speed. Made by fk_skeleton_init(); it points into the caller's parent array
    and storage, which must outlive it unchanged. */
typedef struct fk_skeleton {
    int joint_count;     /**< number of joints */
    int depth;           /**< joints on the longest path from a root down (0 without joints) */
    const int *parents;  /**< the parent array it was made from (the caller's) */
    const int *order;    /**< the joints, each after its parent: order[k] is computed k-th */
    const int *position; /**< the inverse of @c order: position[order[k]] == k */
} fk_skeleton;

/** @brief Checks a parent array and prepares it for the engine-form calls.

    The order keeps the joints as they are listed where it can: a parents-first
    array keeps its own order, and otherwise each joint comes right after the
    path down to it from the nearest joint already placed, so that chains stay
    together.

    @param skeleton receives the prepared skeleton.
    @param joint_count number of joints (>= 0).
    @param parents parent of each joint, negative for a root; any order. Kept by
    pointer, not copied.
    @param storage FK_SKELETON_STORAGE(joint_count) ints, kept by pointer.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_PARENT_OUT_OF_RANGE, FK_ERROR_SELF_PARENT or FK_ERROR_CYCLE (as
    fk_validate_skeleton()); on error @p skeleton holds no joints.
    @remark O(joint_count) time; nothing is allocated. */
FK_LBS_DEF fk_result fk_skeleton_init(fk_skeleton *skeleton, int joint_count, const int *parents, int *storage);

/** @brief Engine-form forward kinematics to matrices: the world matrix of each
    joint, world_i = world_p T(t_i) R(q_i) S(s_i) (roots: their own T R S), and,
    with inverse bind matrices, its skinning matrix world_i IB_i, ready for
    fk_skin_desc::matrices and the shader palettes.

    @param skeleton from fk_skeleton_init().
    @param translations local translation t_i of each joint.
    @param rotations local rotation q_i of each joint, rest orientation included
    (normalized on the way in).
    @param scales local scale s_i of each joint, or NULL for 1.
    @param inverse_bind_matrices IB_i, 12 floats per joint (3x4 row-major), or
    NULL when no skinning matrices are wanted.
    @param out_world receives 12 floats per joint, world_i (3x4 row-major).
    @param out_skinning receives 12 floats per joint, world_i IB_i; required with
    @p inverse_bind_matrices, else ignored.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_ROTATION, or
    FK_ERROR_NOT_FINITE (an input is infinite or NaN, or a result overflows
    float); on error every output holds identities.
    @remark Computed in float, each product rounded as it goes (fk_forward_trs()
    rounds once from double): within a few float ulps per joint of the
    double-precision chain, relative to the matrices' size. The same bits come
    out whatever order the joints are listed in. Outputs must not overlap the
    inputs. */
FK_LBS_DEF fk_result fk_forward_engine(const fk_skeleton *skeleton, const fk_vec3 *translations,
                                       const fk_quat *rotations, const fk_vec3 *scales,
                                       const float *inverse_bind_matrices, float *out_world, float *out_skinning);

/** @brief fk_forward_engine() for a rig in which every scale is 1, as rigid
    transforms: world_i = world_p {q_i, t_i}, and with inverse binds the
    skinning transforms world_i IB_i, for fk_skin_desc::transforms (so that
    skinning takes the rigid paths).

    @param skeleton from fk_skeleton_init().
    @param translations,rotations as fk_forward_engine().
    @param inverse_binds IB_i as rigid transforms (fk_rigid_from_mat34() of
    rigid inverse bind matrices, once), or NULL.
    @param out_world receives each joint's world transform.
    @param out_skinning receives world_i IB_i; required with @p inverse_binds,
    else ignored.
    @return as fk_forward_engine() (an inverse bind whose rotation or
    translation is not finite is FK_ERROR_NOT_FINITE).
    @remark World rotations are renormalized as fk_forward() renormalizes them;
    the result is fk_forward_trs()'s pose within float rounding. */
FK_LBS_DEF fk_result fk_forward_engine_rigid(const fk_skeleton *skeleton, const fk_vec3 *translations,
                                             const fk_quat *rotations, const fk_rigid *inverse_binds,
                                             fk_rigid *out_world, fk_rigid *out_skinning);

/* ============================================================================
   Skinning
   ============================================================================ */

/** @brief Checks a skinning descriptor completely, every joint index included,
    without writing anything: it returns what fk_skin_lbs() (@p method
    FK_SKIN_LBS) or fk_skin_dqs() (FK_SKIN_DQS) would return, which make the
    same checks as they go (FK_SKIN_COR: fk_skin_cor()'s, but for its centres).
    Call it first when a bad index must leave the output untouched.
    @param desc the descriptor. @param method the skinning it is for.
    @return FK_OK or the first error found; FK_ERROR_INVALID_OPTION for a method
    it does not name. */
FK_LBS_DEF fk_result fk_skin_validate(const fk_skin_desc *desc, fk_skin_method method);

/** @brief Linear blend skinning: v' = sum_k w_k (Q_k v + t_k).

    Normals go through the blended linear part sum_k w_k Q_k and are renormalized
    (exact for rigidly moving parts, the usual approximation elsewhere). Tangents'
    x y z go the same way as normals; their w (handedness) is copied unchanged.
    With affine bones (fk_skin_desc::matrices, M_k = [A_k | t_k]) positions are
    sum_k w_k M_k v, and a normal goes through the inverse transpose of the
    blended linear part A = sum_k w_k A_k, computed as its cofactor matrix times
    the sign of det A and renormalized: perpendicular to every moved tangent,
    outside where A mirrors, the normal of the plane where A flattens (zero where
    it collapses to a line); tangents go through A itself.
    Weights are used as given: weights that do not sum to one scale the result.
    The output may be the input buffer itself (same pointer and stride).
    @param desc what to skin; see fk_skin_desc.
    @return FK_OK or the first error found. Descriptor errors are found before
    anything is written, with no vertices too (a bad stride or pointer is still
    reported); a joint index out of range is found when its vertex is reached,
    and the vertices before it have then been written.
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
    neighbours too.
    @remark Bones given as matrices (fk_skin_desc::matrices) with scale or shear
    are split into a scale part, applied first, and a rigid part that is blended
    as above, the way Blender's Armature modifier does with Preserve Volume;
    the split needs each bone's rest frame (fk_skin_desc::bind_poses: without
    them FK_ERROR_MISSING_BIND_POSES, before anything is written), and
    fk_skin_desc::dqs_scale_center says where the scale parts are centred.
    Normals go through the blended scale part's cofactors, are renormalized and
    rotated; tangents through its linear part. Matrices are taken in the space
    of the bind poses (an armature's), where those are rigid: a scale carried by
    the whole rig (an armature object scaled by 0.01) belongs outside, applied to
    the skinned mesh. docs/skinning.md has the formulas. Bones with scale take
    the fast paths for rigs of any size given scratch memory
    (fk_skin_scratch_size()); without it, for rigs of up to
    FK_LBS_PALETTE_CAPACITY x 16 / 44 bones (a bone with scale keeps 44 floats),
    centred at the vertex up to 128 of them, and larger rigs take the reference
    loop. */
FK_LBS_DEF fk_result fk_skin_dqs(const fk_skin_desc *desc);

/** @brief The scratch memory (fk_skin_desc::scratch) with which fk_skin_lbs()
    (@p method FK_SKIN_LBS) or fk_skin_dqs() (FK_SKIN_DQS) takes the fast paths
    for any number of bones and keeps its palette and tables off the stack.
    Without it, a skinning call precomputes its bones on the stack when they fit
    FK_LBS_PALETTE_CAPACITY (fewer with scale under DQS) and otherwise runs the
    plain C loop, converting each bone as it is used. With n = transform_count
    it is 64 n bytes for LBS and rigid DQS; 176 n for DQS of bones with scale,
    and besides, centred at the vertex a bit per pair of bones (8 n ceil(n /
    64)), centred at the bone 128 n, and past 128 bones with joint lists
    n + 4 (n + 1) to name the bones the vertices use (only those are
    converted; centred at the bone, only while the call has fewer than 640
    joint indices a bone, past which converting every bone costs less); 80 n
    for fk_skin_cor(), 272 n with scale (and past 128 bones with joint lists
    the same n + 4 (n + 1), named by the same rule as centred at the bone);
    each part rounded up to 64 bytes, plus 64 to align them. It depends on
    the method, transform_count, and for DQS and CoR on whether the matrices
    scale and on whether joints is given, for DQS on dqs_scale_center, not on
    the vertices.
    @param desc the descriptor (only those fields are read).
    @param method the skinning it is for.
    @return bytes, any alignment; 0 for a NULL descriptor, no bones, or a method
    it does not name; (size_t)-1 when the size overflows size_t. */
FK_LBS_DEF size_t fk_skin_scratch_size(const fk_skin_desc *desc, fk_skin_method method);

/* ============================================================================
   Shader palettes
   ============================================================================ */

/* What a vertex shader reads to skin as fk_skin_lbs() and fk_skin_dqs() do: one
   entry per bone, computed from the bones exactly as those two functions
   compute their own, so that a shader blending them gives the CPU's results to
   rounding. */

/** @brief The LBS palette: each bone as the 3x4 row-major matrix that
    fk_skin_lbs() applies (fk_rigid_to_mat34() of the bone, its rotation
    normalized), 12 floats a bone. Affine bones need no conversion:
    fk_skin_desc::matrices is their palette already.
    @param bone_count number of bones (>= 0). @param transforms the bones.
    @param out_matrices receives 12 floats per bone.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_INVALID_ROTATION or FK_ERROR_NOT_FINITE; nothing is written on error. */
FK_LBS_DEF fk_result fk_palette_matrices(int bone_count, const fk_rigid *transforms, float *out_matrices);

/** @brief The DQS palette: each bone as the unit dual quaternion that
    fk_skin_dqs() blends, 8 floats a bone (real x, y, z, w, then dual x, y, z, w).
    A dual quaternion and its negation are one motion, so each bone's sign is
    free: with @p parents every bone is signed into its parent's hemisphere (the
    real parts' dot product is not negative) and every root has w >= 0, so that
    the bones a vertex blends, mostly neighbours, already agree and a shader's
    per-vertex sign test rarely has to flip one; without parents every bone has
    w >= 0. (Where w is 0 the first nonzero of z, y, x decides.)
    @param bone_count number of bones (>= 0).
    @param parents each bone's parent, negative for a root, in any order (as
    fk_validate_skeleton() accepts), or NULL.
    @param transforms the bones.
    @param out_dual_quats receives 8 floats per bone.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_PARENT_OUT_OF_RANGE, FK_ERROR_SELF_PARENT, FK_ERROR_CYCLE,
    FK_ERROR_INVALID_ROTATION or FK_ERROR_NOT_FINITE; nothing is written on error.
    @remark O(bone_count x depth): each bone's sign is the parity of the sign
    changes on its path to the root. */
FK_LBS_DEF fk_result fk_palette_dual_quats(int bone_count, const int *parents, const fk_rigid *transforms,
                                           float *out_dual_quats);

/** @brief The palette of DQS with scale: each bone's skinning matrix split as
    fk_skin_dqs() splits it (docs/skinning.md) into a rigid part, as a unit dual
    quaternion signed as fk_palette_dual_quats() signs it (8 floats), and a scale
    part, the affine map along the bone's rest axes that is applied first (12
    floats, 3x4 row-major; the identity for a rigid bone). A shader blends the
    scale parts with the weights divided by their sum, and the dual quaternions
    as for rigid bones, centring the scale as fk_skin_desc::dqs_scale_center says.
    @param bone_count number of bones (>= 0).
    @param parents as fk_palette_dual_quats(), or NULL.
    @param matrices the skinning matrices, 12 floats per bone (fk_skin_desc::matrices).
    @param bind_poses each bone's rest frame, rigid (fk_skin_desc::bind_poses).
    @param out_dual_quats receives 8 floats per bone.
    @param out_scale_parts receives 12 floats per bone.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_PARENT_OUT_OF_RANGE, FK_ERROR_SELF_PARENT, FK_ERROR_CYCLE,
    FK_ERROR_INVALID_ROTATION or FK_ERROR_NOT_FINITE; nothing is written on error. */
FK_LBS_DEF fk_result fk_palette_dual_quats_scaled(int bone_count, const int *parents, const float *matrices,
                                                  const fk_rigid *bind_poses, float *out_dual_quats,
                                                  float *out_scale_parts);

/** @brief A mesh to split into draws whose bones fit a shader's palette. */
typedef struct fk_palette_split_desc {
    int triangle_count;       /**< number of triangles (>= 0) */
    const uint32_t *indices;  /**< three vertex indices per triangle */
    int vertex_count;         /**< number of vertices; every index must be below it */
    int influences;           /**< joints per vertex, k >= 1 */
    const uint16_t *joints;   /**< k joint indices per vertex, packed */
    const float *weights;     /**< k weights per vertex, packed; a joint of weight 0 needs no palette entry */
    int bone_count;           /**< number of bones; every joint index of nonzero weight must be below it */
    int max_bones;            /**< palette entries a draw may use (a shader's uniform limit), >= 1 */
} fk_palette_split_desc;

/** @brief Splits a mesh's triangles into groups, one draw each, whose vertices
    use at most max_bones bones: triangles in order, each joining the current
    group while its bones fit and starting a new group when they do not (greedy;
    meshes whose triangles are ordered by region, as exporters write them, split
    into few groups). A vertex whose triangles fall in two groups is drawn in
    both, with fk_palette_local_joints() of each group.
    @param desc the mesh.
    @param group_capacity groups the outputs have room for.
    @param out_triangle_groups receives each triangle's group, or NULL to only
    count the groups.
    @param out_group_bones receives group g's bones (global indices) at
    g * max_bones, in the order they joined: the draw's palette is those bones'
    entries in that order. NULL when counting.
    @param out_group_bone_counts receives each group's number of bones. NULL when counting.
    @param out_group_count receives the number of groups (required).
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT (a negative count,
    bone_count above 65,536, max_bones < 1, a triangle whose vertices use more
    than max_bones bones, or more groups than group_capacity),
    FK_ERROR_JOINT_OUT_OF_RANGE (a vertex index, or a joint of nonzero weight, out
    of range) or FK_ERROR_INVALID_WEIGHT (a weight that is not finite); nothing is
    written on error.
    @remark O(triangle_count x k^2) plus a clear of bone_count bits a group; 8 KB
    of stack (one bit for each of 65,536 possible bones). */
FK_LBS_DEF fk_result fk_palette_split(const fk_palette_split_desc *desc, int group_capacity,
                                      int *out_triangle_groups, uint16_t *out_group_bones,
                                      int *out_group_bone_counts, int *out_group_count);

/** @brief A draw's joint indices: each vertex's joints as indices into the
    group's palette (fk_palette_split()'s out_group_bones of the group). A joint
    of weight 0 that the group lacks becomes 0, which its weight cancels.
    @param group_bone_count,group_bones the group's bones.
    @param vertex_count number of vertices to remap (>= 0).
    @param influences joints per vertex, k >= 1.
    @param joints,weights k per vertex, packed.
    @param out_joints receives k local indices per vertex; may be @p joints.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT, or
    FK_ERROR_JOINT_OUT_OF_RANGE when a joint of nonzero weight is not among the
    group's bones (the vertex belongs to another draw); nothing is written on error. */
FK_LBS_DEF fk_result fk_palette_local_joints(int group_bone_count, const uint16_t *group_bones, int vertex_count,
                                             int influences, const uint16_t *joints, const float *weights,
                                             uint16_t *out_joints);

/* ============================================================================
   Skinned bounds
   ============================================================================ */

/* A box and a sphere that hold every vertex fk_skin_lbs() or fk_skin_dqs()
   would write for a pose, from the bones alone: per-bone rest boxes are
   gathered once from the mesh, and each pose moves them (docs/gpu.md has the
   proof). For culling and for the bounds a renderer or a physics step needs,
   without skinning on the CPU. */

/** @brief Bones a bone's record names as sharing its vertices before it gives
    up the list and counts every bone instead (sound, but slower and looser). */
#define FK_BOUNDS_PARTNERS 12

/** @brief What fk_skin_bounds_prepare() gathers about one bone, from the
    vertices whose heaviest influence it is (the bone's "own" vertices).
    Nothing in it depends on the pose: compute it once per mesh. */
typedef struct fk_bone_bounds {
    fk_vec3 min;             /**< rest box of the bone's own vertices; min > max when it has none */
    fk_vec3 max;             /**< (see min) */
    float heaviest_weight;   /**< the smallest share w_heaviest / sum w among them, in (0, 1] (rounded down) */
    float weight_sum_min;    /**< the smallest sum of weights among them (rounded down) */
    float weight_sum_max;    /**< the largest (rounded up) */
    int partner_count;       /**< how many other bones carry weight on them, or -1 when more than
                                  FK_BOUNDS_PARTNERS do (then every bone is taken as a partner) */
    uint16_t partners[FK_BOUNDS_PARTNERS]; /**< those bones, the first partner_count entries */
} fk_bone_bounds;

/** @brief A box and a sphere in the space the skinned vertices are written in. */
typedef struct fk_bounds {
    fk_vec3 min;    /**< smallest coordinates; min > max when there is no vertex */
    fk_vec3 max;    /**< largest coordinates */
    fk_vec3 center; /**< the sphere's centre (the box's, rounded) */
    float radius;   /**< the sphere's radius; negative when there is no vertex */
} fk_bounds;

/** @brief Gathers the rest-space bounds of each bone's own vertices, once per
    mesh: a vertex belongs to its heaviest influence (fk_skin_dqs()'s choice,
    the first of equal weights), whose record takes its rest position, its
    share of the weight, its weight sum and the other bones it is weighted to.
    @param desc the mesh as it is skinned: vertex_count, influences, positions
    and position_stride, joints and joint_stride (or NULL: dense weights),
    weights and weight_stride, and transform_count, the number of bones. Bones
    and outputs are not read.
    @param out_bones receives transform_count records.
    @return FK_OK; FK_ERROR_NULL_ARGUMENT (desc, positions, weights or out_bones
    NULL where needed), FK_ERROR_INVALID_COUNT, FK_ERROR_INVALID_STRIDE,
    FK_ERROR_JOINT_OUT_OF_RANGE (a joint index, of any weight, not below
    transform_count), FK_ERROR_NOT_FINITE (a position that is infinite or NaN) or
    FK_ERROR_INVALID_WEIGHT (a weight that is negative, infinite or NaN, or a vertex
    whose weights sum to zero, which no box of its bones holds: LBS sends it to
    the origin, DQS leaves it at rest, or to more than FLT_MAX), FK_ERROR_INVALID_OPTION
    (joints or weights other than uint16_t and float, or a second stream: convert
    them once, at load); nothing is written on error.
    @remark O(vertex_count x influences x FK_BOUNDS_PARTNERS). */
FK_LBS_DEF fk_result fk_skin_bounds_prepare(const fk_skin_desc *desc, fk_bone_bounds *out_bones);

/** @brief A box and a sphere holding every vertex fk_skin_lbs() writes for
    a pose, its weights as given (sums other than one included).
    @param desc the pose as it is skinned: transforms or matrices, and
    transform_count; the vertex fields are not read.
    @param bones the records fk_skin_bounds_prepare() wrote for the mesh.
    @param out receives the bounds.
    @return FK_OK; FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_CONFLICTING_ARGUMENTS, FK_ERROR_INVALID_OPTION (an unknown
    dqs_scale_center, checked here too), FK_ERROR_INVALID_ROTATION,
    FK_ERROR_NOT_FINITE (bad bones or bind poses, or bounds beyond float's
    range), or for records that
    fk_skin_bounds_prepare() did not write: FK_ERROR_INVALID_COUNT,
    FK_ERROR_JOINT_OUT_OF_RANGE, FK_ERROR_INVALID_WEIGHT, FK_ERROR_NOT_FINITE;
    nothing is written on error.
    @remark Every vertex the records were gathered from, skinned exactly, lies in
    the box and the sphere; fk_skin_lbs()'s float rounding can put it outside by
    a few ulps of the skinned coordinates. O(bones x FK_BOUNDS_PARTNERS x 8);
    bones whose partners overflowed cost O(bones) each. */
FK_LBS_DEF fk_result fk_skin_bounds_lbs(const fk_skin_desc *desc, const fk_bone_bounds *bones, fk_bounds *out);

/** @brief A box and a sphere holding every vertex fk_skin_dqs() writes for
    a pose: rigid bones, or matrices with scale split as fk_skin_dqs() splits
    them and centred as fk_skin_desc::dqs_scale_center says.
    @param desc the pose as it is skinned: transforms or matrices,
    transform_count, and for matrices with scale bind_poses and dqs_scale_center.
    @param bones the records fk_skin_bounds_prepare() wrote for the mesh.
    @param out receives the bounds.
    @return as fk_skin_bounds_lbs(), and FK_ERROR_MISSING_BIND_POSES for matrices
    with scale without bind_poses, or FK_ERROR_INVALID_OPTION for an unknown
    dqs_scale_center; nothing is written on error.
    @remark The guarantee is fk_skin_bounds_lbs()'s, for fk_skin_dqs(). DQS is not
    a convex combination of the bones' images, so the bounds are looser than LBS's
    where a bone's vertices share weight with bones turned far from it. */
FK_LBS_DEF fk_result fk_skin_bounds_dqs(const fk_skin_desc *desc, const fk_bone_bounds *bones, fk_bounds *out);

/* ============================================================================
   Morph targets
   ============================================================================ */

/** @brief One morph target (a glTF mesh primitive's target): displacements of
    positions, normals and tangents, for every vertex (dense) or for listed
    vertices (sparse, as glTF's sparse accessors give them); see fk_morph_apply().
    Zero-initialized it is a dense target that moves nothing. Strides are the
    bytes from one entry to the next; 0 means tightly packed (12). */
typedef struct fk_morph_target {
    const float *position_deltas; /**< x y z per entry, or NULL: moves no position */
    size_t position_delta_stride; /**< bytes between position deltas; 0 = 12 */
    const float *normal_deltas;   /**< x y z per entry, or NULL: moves no normal */
    size_t normal_delta_stride;   /**< bytes between normal deltas; 0 = 12 */
    const float *tangent_deltas;  /**< x y z per entry (glTF morphs no handedness w), or NULL */
    size_t tangent_delta_stride;  /**< bytes between tangent deltas; 0 = 12 */
    const uint32_t *indices;      /**< sparse: the vertex each entry moves, any order (entries
                                       naming one vertex twice both count); NULL = dense, an
                                       entry per vertex */
    int sparse_count;             /**< entries of a sparse target (>= 0); 0 for a dense one */
} fk_morph_target;

/** @brief What to morph and where to write it; see fk_morph_apply().

    Zero-initialize it and fill in what you use. The vertex layout is
    fk_skin_desc's (strides in bytes, 0 = tightly packed), so the outputs can be
    handed to fk_skin_lbs() or fk_skin_dqs() as their positions, normals and
    tangents. */
typedef struct fk_morph_desc {
    int vertex_count;          /**< number of vertices (>= 0) */
    const float *positions;    /**< base positions, x y z per vertex (required) */
    size_t position_stride;    /**< bytes between positions; 0 = 12 */
    const float *normals;      /**< base normals, x y z per vertex (optional, NULL) */
    size_t normal_stride;      /**< bytes between normals; 0 = 12 */
    const float *tangents;     /**< base tangents, x y z w per vertex as in glTF (optional, NULL) */
    size_t tangent_stride;     /**< bytes between tangents; 0 = 16 */
    int target_count;          /**< number of targets (>= 0) */
    const fk_morph_target *targets; /**< target_count targets (required when target_count > 0) */
    const float *weights;      /**< target_count weights, finite, any sign (required when
                                    target_count > 0) */
    float *out_positions;      /**< morphed positions (required; may equal @c positions, with the
                                    same stride, to morph in place) */
    size_t out_position_stride; /**< bytes between output positions; 0 = 12 */
    float *out_normals;        /**< morphed normals (required iff @c normals is given; must not
                                    overlap @c normals) */
    size_t out_normal_stride;  /**< bytes between output normals; 0 = 12 */
    float *out_tangents;       /**< morphed tangents, w copied bit for bit (required iff
                                    @c tangents is given; must not overlap @c tangents) */
    size_t out_tangent_stride; /**< bytes between output tangents; 0 = 16 */
} fk_morph_desc;

/** @brief Applies weighted morph targets to a mesh, glTF's way: the result is
    the mesh to skin (morph first, then fk_skin_lbs() or fk_skin_dqs()).

    Vertex v becomes p' = p + sum_i w_i dp_i, summed base first and then the
    targets in their order, each term rounded as out + w_i d_i (so a sparse
    target and the dense target with the same deltas give the same values).
    Normals and tangents' x y z are summed alike and then renormalized (glTF
    leaves that to the implementation); one whose morphed value equals its base
    value keeps its bits, and one whose morphed value has zero length or
    overflows keeps its base value, the only direction at hand. Tangents' w is
    copied bit for bit. A target's deltas for an attribute the descriptor does
    not morph (normal deltas without @c normals) are ignored, unread.
    Targets of weight zero are skipped unread (their indices and deltas are not
    checked), so all-zero weights give the base mesh's bits.
    @param desc what to morph; see fk_morph_desc. Outputs must not overlap the
    targets, the weights or each other.
    @return FK_OK; FK_ERROR_NULL_ARGUMENT (a required pointer is NULL);
    FK_ERROR_INVALID_COUNT (a negative count, or a dense target with a nonzero
    sparse_count); FK_ERROR_INVALID_STRIDE; FK_ERROR_CONFLICTING_ARGUMENTS (an
    output overlaps its input other than positions exactly in place);
    FK_ERROR_INVALID_WEIGHT (a weight is infinite or NaN);
    FK_ERROR_JOINT_OUT_OF_RANGE (a sparse index is not below vertex_count);
    FK_ERROR_NOT_FINITE (a weighted delta w_i d_i is infinite or NaN). Everything
    is checked before anything is written: nothing is written on error.
    @remark O(vertex_count) plus O(entries) per target of nonzero weight (a dense
    target has vertex_count entries); no memory beyond a few locals. Base data is
    not checked (NaN there makes that vertex's outputs NaN), nor can sums of
    finite terms that overflow float be (they give infinities). */
FK_LBS_DEF fk_result fk_morph_apply(const fk_morph_desc *desc);

/* ============================================================================
   Centres of rotation
   ============================================================================ */

/* Skinning with optimized centres of rotation (Le and Hodgins 2016) moves each
   vertex rigidly about a centre of its own, computed once from the rest mesh
   and the weights: the weighted mean of the surface whose weights resemble the
   vertex's. This section computes the centres and skins with them;
   docs/skinning.md has the formulas. */

/** @brief How fk_cor_centers() samples the rest mesh's surface. */
typedef enum fk_cor_sampling {
    FK_COR_SUBDIVIDE = 0,         /**< split each triangle into n^2 equal sub-triangles, n the least
                                       that brings every sub-edge's weights closer than epsilon
                                       (at most FK_COR_MAX_SPLIT): the default */
    FK_COR_TRIANGLES_AS_GIVEN = 1 /**< one sample per triangle, the formula as it reads without
                                       subdivision (to check against another implementation) */
} fk_cor_sampling;

/** @brief The most sub-edges a triangle's edge is split into by FK_COR_SUBDIVIDE:
    a triangle costs at most FK_COR_MAX_SPLIT^2 samples. */
#define FK_COR_MAX_SPLIT 32

/** @brief A rest mesh and its weights, to compute centres of rotation from; see
    fk_cor_centers(). Zero-initialize it and fill in what you use: sigma,
    epsilon and sampling are then the paper's defaults. The vertex layout is
    fk_skin_desc's (strides in bytes, 0 = tightly packed). */
typedef struct fk_cor_desc {
    int vertex_count;         /**< number of vertices (>= 0) */
    const float *positions;   /**< rest positions, x y z per vertex (required) */
    size_t position_stride;   /**< bytes between positions; 0 = 12 */
    int influences;           /**< joints per vertex, k >= 1 */
    const uint16_t *joints;   /**< k joint indices per vertex (required); a joint named twice has
                                   its weights added */
    size_t joint_stride;      /**< bytes between vertices' index lists; 0 = 2k */
    const float *weights;     /**< k weights per vertex, finite and >= 0, used as given (the paper's
                                   sum to one: fk_weights_repair() makes them so) */
    size_t weight_stride;     /**< bytes between vertices' weight lists; 0 = 4k */
    int triangle_count;       /**< number of triangles (>= 0) */
    const uint32_t *indices;  /**< three vertex indices per triangle, each below vertex_count
                                   (required when triangle_count > 0) */
    float sigma;              /**< width of the similarity's Gaussian, > 0; 0 = 0.1 */
    float epsilon;            /**< FK_COR_SUBDIVIDE: largest weight difference along a sub-edge
                                   (exclusive), > 0; 0 = 0.1 */
    fk_cor_sampling sampling; /**< FK_COR_SUBDIVIDE (0) or FK_COR_TRIANGLES_AS_GIVEN */
} fk_cor_desc;

/** @brief The workspace fk_cor_centers() needs for a mesh, in bytes (for any
    vertex range of it). Checks the descriptor as fk_cor_centers() does.
    @param desc the mesh. @param out_bytes receives the size.
    @return FK_OK or an error of fk_cor_centers()'s descriptor checks;
    FK_ERROR_INVALID_COUNT also when the size does not fit in size_t, or the
    mesh has more than 2^32 - 16 samples.
    @remark The samples are each triangle once per pair of its corners' bones
    (n^2 times when split): 68 to 84 bytes a sample, and 10 k + 12 bytes a
    vertex. */
FK_LBS_DEF fk_result fk_cor_workspace_size(const fk_cor_desc *desc, size_t *out_bytes);

/** @brief Centres of rotation (Le and Hodgins 2016) of vertices first_vertex ..
    first_vertex + vertex_count - 1:

        p*_i = sum_t s(w_i, w_t) A_t c_t / sum_t s(w_i, w_t) A_t,
        s(u, v) = sum_{j<k} u_j u_k v_j v_k exp(-(u_j v_k - u_k v_j)^2 / sigma^2),

    over the rest mesh's samples t: each triangle, or each of its sub-triangles
    (fk_cor_desc::sampling), with A_t its area, c_t its centroid and w_t the
    mean of its corners' weight vectors (a sub-triangle's corners' weights
    interpolate its triangle's linearly). The paper sums over ordered pairs
    j != k, twice this s, which the quotient cancels. A vertex whose sum is zero
    (one bone alone, or no sample shares two of its bones) gets its own rest
    position, so that skinning with its centre is LBS there.

    FK_COR_SUBDIVIDE splits a triangle whose corners' weights differ by d (the
    largest over its edges and bones of |w_a - w_b|) into n^2 equal
    sub-triangles along lines parallel to its edges, n = floor(d / epsilon) + 1
    (in double) capped at FK_COR_MAX_SPLIT: every sub-edge's weights then
    differ by less than epsilon, as the paper asks, and a triangle costs at most
    FK_COR_MAX_SPLIT^2 samples (where the cap binds, sub-edges differ by
    d / FK_COR_MAX_SPLIT).
    @param desc the rest mesh; see fk_cor_desc.
    @param first_vertex,vertex_count the vertices to compute (a range of
    desc->vertex_count). The triangles are always all read.
    @param workspace scratch memory of fk_cor_workspace_size() bytes or more (any
    alignment); its contents are not needed afterwards.
    @param workspace_bytes its size.
    @param out_centers receives x y z for each vertex of the range, at its own
    index (out_centers + v * out_stride bytes); other vertices' records are not
    touched. NULL only when vertex_count is 0.
    @param out_stride bytes between output records; 0 = 12.
    @return FK_OK; FK_ERROR_NULL_ARGUMENT; FK_ERROR_INVALID_COUNT (a negative
    count, influences < 1, a range outside the mesh, a workspace smaller than
    needed); FK_ERROR_INVALID_STRIDE; FK_ERROR_INVALID_OPTION (sigma or epsilon
    negative, infinite or NaN, or an unknown sampling); FK_ERROR_JOINT_OUT_OF_RANGE
    (a triangle's vertex index not below vertex_count); FK_ERROR_NOT_FINITE (a
    position infinite or NaN); FK_ERROR_INVALID_WEIGHT (a weight negative,
    infinite or NaN). Everything is checked before anything is written.
    Degenerate triangles (zero area, repeated corners) add nothing, a triangle
    listed twice counts twice, and a mesh of zero area gives every vertex its
    own position.
    @remark Sums are in double, so a centre is within rounding of the sum done
    term by term. A vertex's centre depends on its own weights and the mesh
    alone: vertices with equal weights get the same bits (computed once per
    call), and so does any split of the vertices over calls or threads (each
    with its own workspace). With AVX2 and FMA (x86-64, chosen at run time) and
    with WebAssembly SIMD128 the terms' exponential is the library's own, and a
    centre may differ from other processors' by a float rounding. Cost: the sum
    over samples, but per bone pair: each sample counts only for the vertices
    that weight two of its bones; the vertex visits the samples listed under
    each pair of its bones. */
FK_LBS_DEF fk_result fk_cor_centers(const fk_cor_desc *desc, int first_vertex, int vertex_count, void *workspace,
                                    size_t workspace_bytes, float *out_centers, size_t out_stride);

/** @brief Skinning with optimized centres of rotation (Le and Hodgins 2016): each
    vertex v turns by the blend of its bones' rotations about its centre p*
    (from fk_cor_centers()), and the centre moves as LBS moves it:

        v' = R (v - p*) + sum_k w_k M_k p*,   R the rotation of q = sum_k +-w_k q_k,

    the rotations q_k signed into the hemisphere of the most heavily weighted
    influence, as fk_skin_dqs() signs them, and q normalized (the weights' scale
    does not matter to R). Normals turn by R; so do tangents' x y z; both are
    renormalized, and a tangent's w is copied unchanged. A vertex whose centre
    is its own position (a vertex of one bone, from fk_cor_centers()) moves as
    fk_skin_lbs()'s plain C loop moves it, the same position bits but for the
    sign of a zero (its fast paths agree to a few ulps); one whose weights are
    all zero keeps its rest position, normal and tangent.

    Bones given as matrices with scale or shear are split as fk_skin_dqs()
    splits them (the same bind poses needed; dqs_scale_center is not read) into
    a rotation R_k and a scale part [S_k | c_k] with M_k = [R_k | t_k] [S_k | c_k]:
    then v' = R S (v - p*) + sum_k w_k M_k p*, with S = sum_k w_k S_k / sum_k w_k.
    Every S_k = I gives the rigid formula; a vertex weighted to one bone moves by
    that bone's matrix; a uniform scale s of the whole rig about a point scales
    the skinned mesh by s about it. Normals go through the cofactors of S, tangents
    through S, then both turn by R.
    @param desc what to skin, as for fk_skin_lbs().
    @param centers the vertices' centres of rotation, x y z per vertex, indexed as
    desc->positions (required, even with no vertices).
    @param center_stride bytes between centres; 0 = 12.
    @return as fk_skin_lbs(); FK_ERROR_NULL_ARGUMENT for NULL centres,
    FK_ERROR_INVALID_STRIDE for their stride, FK_ERROR_MISSING_BIND_POSES for
    matrices with scale without bind poses: all before anything is written.
    @remark The result of a vertex depends on its own data and the bones alone,
    as for fk_skin_lbs(): the same bits in any layout, in place or not, whatever
    the range of a call (advance @p centers with the descriptor's pointers).
    fk_skin_validate() and fk_skin_scratch_size() take FK_SKIN_COR. Rigid bones
    take the fast paths (FAST PATHS); so do bones with scale, in two steps
    (affine LBS of p - c by the scale parts, then rigid CoR), for rigs of any
    size given scratch memory (fk_skin_scratch_size()) and without it for up
    to FK_LBS_PALETTE_CAPACITY x 16 / 44 bones. Calls with tangents, and
    larger rigs without scratch, take the plain C loop. */
FK_LBS_DEF fk_result fk_skin_cor(const fk_skin_desc *desc, const float *centers, size_t center_stride);

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

/** @brief fk_pose_blend() with a weight per pose and joint, for layers that play on
    part of the body (an upper-body layer over a walk): pose p counts at joint i
    with weights[p] * masks[p][i], divided by that joint's sum of them, and the
    hemisphere is that of the pose heaviest at the joint. Masks of all ones give
    fk_pose_blend()'s bits.
    @param joint_count,pose_count,rotations,translations,weights as fk_pose_blend().
    @param masks masks[p] is pose p's joint_count mask values (finite, >= 0), or
    NULL for all ones; the list itself may be NULL.
    @param out_rotations,out_translations as fk_pose_blend().
    @return as fk_pose_blend(); FK_ERROR_INVALID_WEIGHT also for a mask value that
    is negative or not finite, or a joint that no pose weighs. Nothing is written
    on error. */
FK_LBS_DEF fk_result fk_pose_blend_masked(int joint_count, int pose_count, const fk_quat *const *rotations,
                                          const fk_vec3 *const *translations, const float *weights,
                                          const float *const *masks, fk_quat *out_rotations,
                                          fk_vec3 *out_translations);

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

/** @brief fk_pose_add() with a weight per joint: joint i takes weight * mask[i] of
    the delta, so that an additive layer (a breath, a flinch) reaches only part of
    the body. A mask of all ones gives fk_pose_add()'s bits.
    @param joint_count,base_rotations,base_translations,delta_rotations,delta_translations,weight
    as fk_pose_add().
    @param mask joint_count finite values (any sign, as the weight), or NULL for all ones.
    @param out_rotations,out_translations as fk_pose_add().
    @return as fk_pose_add(), or FK_ERROR_INVALID_WEIGHT for a mask value that is not
    finite; nothing is written on error. */
FK_LBS_DEF fk_result fk_pose_add_masked(int joint_count,
                                        const fk_quat *base_rotations, const fk_vec3 *base_translations,
                                        const fk_quat *delta_rotations, const fk_vec3 *delta_translations,
                                        float weight, const float *mask, fk_quat *out_rotations,
                                        fk_vec3 *out_translations);

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
    FK_ERROR_KEYS_NOT_ASCENDING or FK_ERROR_NOT_FINITE (NaN time, a value not
    finite, or, as for fk_track_evaluate(), keys around the time more than FLT_MAX
    apart); on error nothing is written.
    @remark Validates every key (O(key_count)), then finds the pair by bisection. */
FK_LBS_DEF fk_result fk_track_sample_vec3(int key_count, const float *times, const fk_vec3 *values,
                                          float time, fk_vec3 *out);

/** @brief Samples a key-framed rotation track at a time: slerp (or nlerp) along
    the shorter arc between the two keys around it, the first or last key outside
    the keys' range (as glTF's LINEAR interpolation).
    @param key_count number of keys (>= 1). @param times key times, strictly ascending.
    @param values key_count rotations (normalized on the way in).
    @param time when to sample (not NaN). @param method FK_INTERPOLATE_SLERP or
    FK_INTERPOLATE_NLERP (any other value means SLERP).
    @param out receives a unit quaternion.
    @return as fk_track_sample_vec3(), or FK_ERROR_INVALID_ROTATION; nothing is
    written on error. */
FK_LBS_DEF fk_result fk_track_sample_quat(int key_count, const float *times, const fk_quat *values,
                                          float time, fk_rotation_interpolation method, fk_quat *out);

/** @brief How a track's values vary between keys: glTF's three animation sampler
    interpolations. Zero is LINEAR, glTF's default. */
typedef enum fk_interpolation {
    FK_INTERPOLATION_LINEAR = 0,  /**< straight between keys (rotations: slerp or nlerp, shorter arc) */
    FK_INTERPOLATION_STEP = 1,    /**< the value of the key at or before the time, held until the next */
    FK_INTERPOLATION_CUBICSPLINE = 2 /**< cubic Hermite: each key stores in-tangent, value, out-tangent */
} fk_interpolation;

/** @brief Samples a key-framed track of float tuples (morph target weights, or
    any channel) with any glTF interpolation, starting the search for the keys
    around @p time at a caller-owned cursor.

    Before the first key the track holds the first value, after the last key the
    last value. Between keys t_k <= time < t_{k+1}, with s = (time - t_k) / t_d
    and t_d = t_{k+1} - t_k: STEP gives v_k; LINEAR (1 - s) v_k + s v_{k+1} per
    component; CUBICSPLINE
    (2s^3 - 3s^2 + 1) v_k + t_d (s^3 - 2s^2 + s) b_k + (-2s^3 + 3s^2) v_{k+1} + t_d (s^3 - s^2) a_{k+1}.
    LINEAR of a rotation's components is not a slerp: use fk_track_evaluate_quat().
    @param key_count number of keys (>= 1).
    @param times key_count key times, strictly ascending.
    @param values per key, @p component_count floats; for CUBICSPLINE three times
    that, in glTF's order: in-tangent a_k, value v_k, out-tangent b_k, each
    component_count floats (a morph weight track: N in-tangents, N weights, N out-tangents).
    @param component_count floats per value (>= 1): 1 for a scalar, N for N morph targets.
    @param interpolation FK_INTERPOLATION_LINEAR, _STEP or _CUBICSPLINE.
    @param time when to sample (not NaN; infinities clamp to the ends).
    @param cursor NULL, or the caller's int that remembers the key found last time
    (start it at 0). It is only a first guess: the key it names and the next are
    tried before a bisection, so playing forward by less than a key costs O(1),
    and any value, even one out of range, gives the same result as NULL. On
    success it receives the key at or before @p time (0 before the first key,
    key_count - 1 after the last).
    @param out receives component_count floats; must not overlap @p values.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_INVALID_OPTION, FK_ERROR_KEYS_NOT_ASCENDING (the keys it reads are not
    finite and ascending) or FK_ERROR_NOT_FINITE (NaN time, a value it reads is not
    finite, the two keys around the time more than FLT_MAX apart, so that the
    fraction between them has no float value, or the result overflows); nothing is
    written on error (neither @p out nor @p cursor).
    @remark Checks only the keys it reads (the first, the last, and those around
    the time) so that playback is O(1): run fk_track_validate() once when the track
    is loaded for the full check. Never reads outside the arrays, whatever the keys
    hold. */
FK_LBS_DEF fk_result fk_track_evaluate(int key_count, const float *times, const float *values,
                                       int component_count, fk_interpolation interpolation, float time,
                                       int *cursor, float *out);

/** @brief Samples a vector track (translations, scales) with any glTF
    interpolation: fk_track_evaluate() with three components. With
    FK_INTERPOLATION_LINEAR it gives fk_track_sample_vec3()'s bits.
    @param key_count,times as fk_track_evaluate().
    @param values key_count vectors; for CUBICSPLINE 3 key_count, a_k v_k b_k per key.
    @param interpolation,time,cursor as fk_track_evaluate().
    @param out receives the vector.
    @return as fk_track_evaluate(); nothing is written on error. */
FK_LBS_DEF fk_result fk_track_evaluate_vec3(int key_count, const float *times, const fk_vec3 *values,
                                            fk_interpolation interpolation, float time, int *cursor,
                                            fk_vec3 *out);

/** @brief Samples a rotation track with any glTF interpolation: STEP gives the
    key's rotation; LINEAR slerps (or nlerps) along the shorter arc, and gives
    fk_track_sample_quat()'s bits; CUBICSPLINE evaluates fk_track_evaluate()'s
    Hermite curve on the four components as stored and normalizes the result (as
    glTF specifies: no hemisphere correction, so the keys and tangents must agree in sign).
    @param key_count,times as fk_track_evaluate().
    @param values key_count rotations (normalized on the way in); for CUBICSPLINE
    3 key_count quaternions, a_k v_k b_k per key, the tangents any finite quaternions.
    @param interpolation FK_INTERPOLATION_LINEAR, _STEP or _CUBICSPLINE.
    @param method FK_INTERPOLATE_SLERP or FK_INTERPOLATE_NLERP, for LINEAR (any
    other value is FK_ERROR_INVALID_OPTION, with every interpolation).
    @param time,cursor as fk_track_evaluate().
    @param out receives a unit quaternion.
    @return as fk_track_evaluate(), or FK_ERROR_INVALID_ROTATION for a key's
    rotation it reads that cannot be normalized, or a cubic curve that passes
    through zero there; nothing is written on error. */
FK_LBS_DEF fk_result fk_track_evaluate_quat(int key_count, const float *times, const fk_quat *values,
                                            fk_interpolation interpolation, fk_rotation_interpolation method,
                                            float time, int *cursor, fk_quat *out);

/* ============================================================================
   Root motion
   ============================================================================ */

/* A clip's root (the joint with no parent that carries the body) both poses the
   body and travels. Root motion splits its keys in two: a motion track, the
   character's placement relative to the first key, and an in-place clip that
   stays where the first key stood. For a root both rotation-frame conventions
   coincide (Q = q: there is no parent), so these functions serve both. */

/** @brief Which world axes of the root's position go to the motion track: a bit
    mask, e.g. FK_ROOT_MOTION_X | FK_ROOT_MOTION_Z for ground motion with y up. */
typedef enum fk_root_motion_axis {
    FK_ROOT_MOTION_X = 1, /**< x goes to the motion */
    FK_ROOT_MOTION_Y = 2, /**< y goes to the motion */
    FK_ROOT_MOTION_Z = 4  /**< z goes to the motion */
} fk_root_motion_axis;

/** @brief How much of the root's rotation goes to the motion track. */
typedef enum fk_root_motion_rotation {
    FK_ROOT_ROTATION_NONE = 0, /**< none: the motion only translates */
    FK_ROOT_ROTATION_YAW = 1,  /**< the twist about the up axis (swing-twist decomposition);
                                    pitch and roll stay in place */
    FK_ROOT_ROTATION_FULL = 2  /**< all of it: the in-place root keeps key 0's orientation */
} fk_root_motion_rotation;

/** @brief Splits a root's keys into a motion track and an in-place clip.

    The root (rest position x, rotation q_k, translation d_k at key k, the inputs
    of fk_forward()) has the world transform W_k = {q_k, x + d_k - q_k x}: the
    joint sits at p_k = x + d_k. Its reference frame F_k = {r_k, s_k} has r_k the
    identity, the twist of q_k about @p up, or q_k (per @p rotation) and s_k = p_k
    with the axes not in @p axes set to 0. The motion is M_k = F_k F_0^-1 (the
    identity at key 0) and the in-place root is M_k^-1 W_k, in fk_forward()'s
    inputs q'_k = m_k* q_k and d'_k = m_k* (p_k - e_k) - x for M_k = {m_k, e_k}, so
    that fk_rigid_mul(M_k, in-place W'_k) gives back W_k. With
    FK_ROOT_ROTATION_YAW the in-place root keeps key 0's heading: the twist of
    q'_k about @p up is that of q_0. Computed in double, rounded once.
    The other joints' keys stay as they are when their rotations are in the
    parent's frame (fk_forward()): they follow the root. In the rest frame
    (fk_forward_rest_frame()) their rotations are world-aligned and must be turned
    into the in-place frame, q_i -> m_k* q_i m_k, unless the motion has no rotation.
    @param key_count number of keys (>= 1); the rotation and translation keys
    share their times (resample them onto common times first if they do not).
    @param rest_root the root's rest position x (rest_joints[root]).
    @param rotations key_count root rotations (normalized on the way in).
    @param translations key_count root translations, or NULL for zero.
    @param axes FK_ROOT_MOTION_X, _Y, _Z or'ed together (0 to 7).
    @param rotation FK_ROOT_ROTATION_NONE, _YAW or _FULL.
    @param up the up axis the yaw turns about (any nonzero length; read only for
    FK_ROOT_ROTATION_YAW). A key whose rotation has no defined heading (a half
    turn about an axis perpendicular to @p up) gets an identity twist.
    @param out_motion_rotations receives key_count motion rotations m_k, or NULL.
    @param out_motion_translations receives key_count motion translations e_k, or NULL.
    @param out_rotations receives key_count in-place rotations q'_k, or NULL.
    @param out_translations receives key_count in-place translations d'_k, or NULL.
    Each output may be the input array of its type (key k is read before it is
    written); outputs must not overlap each other.
    @return FK_OK, FK_ERROR_INVALID_COUNT, FK_ERROR_NULL_ARGUMENT (no rotations),
    FK_ERROR_INVALID_OPTION (axes outside 0 to 7, an unknown rotation mode, or a
    zero up axis for FK_ROOT_ROTATION_YAW), FK_ERROR_INVALID_ROTATION or
    FK_ERROR_NOT_FINITE (rest_root, a translation or @p up not finite, or a result
    that overflows float); nothing is written on error. */
FK_LBS_DEF fk_result fk_root_motion_extract(int key_count, fk_vec3 rest_root, const fk_quat *rotations,
                                            const fk_vec3 *translations, int axes,
                                            fk_root_motion_rotation rotation, fk_vec3 up,
                                            fk_quat *out_motion_rotations, fk_vec3 *out_motion_translations,
                                            fk_quat *out_rotations, fk_vec3 *out_translations);

/** @brief The rigid delta to apply to a character's placement for one frame of a
    looping clip: C_new = fk_rigid_mul(C_old, delta).

    With M(t) the motion track sampled at t (translations linearly, rotations by
    slerp, as fk_track_sample_vec3() and fk_track_sample_quat() do) and s, e its
    first and last key times, and L = M(e) M(s)^-1 (one whole loop: M(e) when
    M(s) is the identity, as fk_root_motion_extract() makes it),
        delta = M(time_from)^-1 L^loops M(time_to),
    the motion from @p time_from to the end, through @p loops - 1 whole loops, and
    from the start to @p time_to (loops = 0: M(time_from)^-1 M(time_to)). Computed
    in double from the sampled keys and rounded once, so that consecutive frames,
    which share their sampled M, telescope: composing the deltas of any number of
    frames gives the closed form to within each delta's own rounding, relative to
    the delta's size, with no error that grows with the number of frames.
    @param key_count number of keys (>= 1). @param times key times, strictly ascending.
    @param motion_rotations key_count rotations (normalized on the way in).
    @param motion_translations key_count translations, or NULL for zero.
    @param time_from the playhead at the previous frame, in clip time (times
    outside the keys' range are clamped, as the samplers do).
    @param time_to the playhead now, in clip time.
    @param loops how many times the playhead wrapped from the end to the start
    since @p time_from; negative when playing backwards through the start.
    @param out_delta receives the delta, in the frame of the placement at @p time_from.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_KEYS_NOT_ASCENDING, FK_ERROR_INVALID_ROTATION or FK_ERROR_NOT_FINITE
    (a translation or a time not finite, keys around a time more than FLT_MAX
    apart, as for fk_track_sample_quat(), or a delta that overflows float);
    nothing is written on error.
    @remark O(key_count) (each key is validated) plus O(log |loops|). */
FK_LBS_DEF fk_result fk_root_motion_delta(int key_count, const float *times, const fk_quat *motion_rotations,
                                          const fk_vec3 *motion_translations, float time_from, float time_to,
                                          int loops, fk_rigid *out_delta);

/** @brief The delta of blended clips from each clip's delta for the same frame,
    blended as fk_pose_blend() blends poses: translations averaged, rotations
    brought into the hemisphere of the heaviest clip's, averaged and normalized.
    The result is fk_pose_blend()'s, bit for bit, for the deltas taken as one-joint
    poses, so the character travels as the blend of its clips' root poses does:
    a clip with all the weight gives its translation exactly and its rotation
    normalized, equal deltas give that delta, and deltas that turn about one axis
    give a turn about that axis.
    @param clip_count number of clips (>= 1).
    @param deltas clip_count deltas (from fk_root_motion_delta()).
    @param weights clip_count weights, finite and >= 0 with a positive sum that
    does not overflow float.
    @param out_delta receives the blended delta; may be one of @p deltas.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_INVALID_WEIGHT (a weight negative or not finite, or a sum that is
    zero or overflows), FK_ERROR_INVALID_ROTATION or FK_ERROR_NOT_FINITE;
    nothing is written on error. */
FK_LBS_DEF fk_result fk_root_motion_blend(int clip_count, const fk_rigid *deltas, const float *weights,
                                          fk_rigid *out_delta);

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
    FK_ERROR_INVALID_ROTATION or FK_ERROR_NOT_FINITE (an input not finite, or a
    subtree transform that overflows float). Bad input is found before anything
    is written; a subtree that overflows is left as identities. Transforms outside
    the subtree are never written, whatever they hold.
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

/* ============================================================================
   Analytic inverse kinematics: two bones
   ============================================================================ */

/** @brief A two-bone IK problem for fk_ik_two_bone(): the chain, the pose it is
    in, the target, and the options. Zero-initialize it and fill in the chain and
    the target: every option's zero is its default (no pole, the mid joint's rest
    bend as the hinge, no softening, the parent-frame convention). */
typedef struct fk_ik_two_bone_desc {
    int joint_count;             /**< number of joints (>= 1) */
    const int *parents;          /**< parent array, any order */
    const fk_vec3 *rest_joints;  /**< rest joint positions (the pivots); NULL with @c matrices from fk_forward_trs() */
    const fk_rigid *transforms;  /**< absolute transforms of the current pose, from fk_forward() or
                                      fk_forward_rest_frame() with the rotations passed to fk_ik_two_bone();
                                      NULL with @c matrices */
    fk_rotation_frame frame;     /**< the convention of those rotations: FK_FRAME_PARENT (default) or FK_FRAME_REST */
    int start;                   /**< the chain's first joint (shoulder, hip) */
    int mid;                     /**< the joint that bends (elbow, knee): a descendant of @c start */
    int end;                     /**< the joint put on the target (wrist, ankle): a descendant of @c mid */
    fk_vec3 target;              /**< where the end joint should go, in world space */
    const fk_vec3 *pole;         /**< optional world point the mid joint bends toward (NULL: none) */
    const fk_vec3 *mid_axis;     /**< optional hinge axis in the mid joint's own (rest) frame, the one its
                                      world rotation carries; NULL (or zero): the rest pose's bend normal. Not with @c pole */
    float soften;                /**< in [0, 1]: the fraction of the chain's length over which reach is
                                      eased, so the chain never snaps straight (0: off) */
    const float *matrices;       /**< a rig with scale: its world matrices instead of @c transforms (exactly
                                      one of the two), 12 floats per joint as fk_forward_scaled() writes them
                                      from the rotations passed, or with @c rest_joints NULL fk_forward_trs();
                                      the rotations are then those functions' q_i (frame FK_FRAME_PARENT) */
} fk_ik_two_bone_desc;

/** @brief Analytic two-bone inverse kinematics: turns the start and mid joints of
    a chain so that the end joint lands on a target (law of cosines), or, out of
    reach, so that the chain points straight at it.

    With a = |M - S| and b = |E - M| the posed bone lengths (joints between start
    and mid, or mid and end, keep their rotations and count as part of a bone),
    the target's distance d = |T - S| is eased by the softening s = soften (a + b),
    d -> L - s + s (1 - exp(-(d - L + s) / s)) above L - s with L = a + b,
    then clamped into [|a - b|, a + b]; the mid joint goes to
    M' = S + a (cos A u + sin A v), cos A = (a^2 + d^2 - b^2) / (2 a d), with u the
    unit direction to the target and v the bend direction, perpendicular to u in
    the bend plane. The bend plane contains the pole when one is given. Otherwise
    it contains u, and its normal comes from the hinge axis Q_mid h, with h =
    @c mid_axis or the rest pose's bend normal (x_m - x_s) x (x_e - x_m) (for a
    chain straight at rest, the current bend; straight in both, a fixed
    perpendicular), in two steps: made perpendicular to the current upper bone
    (the hinge n the start joint's turn carries), then to u. So the normal is Q_mid h
    itself only when that is perpendicular to both; a mid rotation that tilts it
    off the upper bone is taken out first. A hinge carried by the mid joint's own
    rotation is defined even when the chain is straight, so that a target moving
    across the chain's plane or through full extension moves the joints
    continuously. The start joint's turn takes n onto the new plane's normal; the
    mid joint then turns by the shortest arc that puts the end bone on the target.

    Rigs with scale (@c matrices: fk_forward_scaled() or fk_forward_trs()) are
    solved in the start joint's parent's space, where the start turns rigidly:
    directions, perpendiculars and distances above are measured there, and the
    pole and target are mapped there (an affine map keeps planes, sides and
    rays). Scale between start and mid makes the lower bone's length there depend
    on its direction, so the reach is no longer a + b: the lower bone bends in
    the plane through the upper bone perpendicular to n, on the bend's side, and
    the bend is found numerically (largest reach, then the distance d). A target
    within that bend's reach lands on the target; one beyond it leaves the end on
    the line from S toward it, as near it as that bend allows.

    The result is blended with the current rotations: q = slerp(q_current,
    q_solved, weight) for the start and mid joints, the solved rotation in the
    current one's hemisphere. No other joint changes.
    @param desc the problem (see fk_ik_two_bone_desc).
    @param weight in [0, 1]: 0 leaves @p rotations bit for bit, 1 writes the solve.
    @param rotations the relative rotations @c desc->transforms were computed from;
    entries @c start and @c mid are updated in place.
    @param reached receives 1 if the end joint of the resulting pose lies on the
    target within 1e-4 of the chain's length (plus float rounding at the
    chain's distance from the origin), else 0; may be NULL.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_JOINT_OUT_OF_RANGE (also when mid is not a descendant of start, or end
    of mid), FK_ERROR_PARENT_OUT_OF_RANGE, FK_ERROR_SELF_PARENT, FK_ERROR_CYCLE,
    FK_ERROR_INVALID_OPTION (a frame it does not name, or soften outside [0, 1]),
    FK_ERROR_INVALID_WEIGHT (weight outside [0, 1] or NaN),
    FK_ERROR_CONFLICTING_ARGUMENTS (both a pole and a mid axis; both transforms
    and matrices; matrices with FK_FRAME_REST),
    FK_ERROR_INVALID_ROTATION (the chain's rotations or transforms),
    FK_ERROR_NOT_RIGID (matrices: the start's or the mid's parent's linear part is
    singular, a scale of zero above them) or
    FK_ERROR_NOT_FINITE (target, pole, axis, rest joints, transforms or matrices);
    on error nothing is written.
    @remark O(depth) time, no memory beyond a few locals. In the rest frame
    (FK_FRAME_REST) a rotation is world-aligned, so a joint between start and mid
    or between mid and end turns rigidly with them only when its own rotation is
    the identity; otherwise that bone bends as the start joint turns and the end
    lands off the target (the parent frame has no such limit). */
FK_LBS_DEF fk_result fk_ik_two_bone(const fk_ik_two_bone_desc *desc, float weight, fk_quat *rotations,
                                    int *reached);

/* ============================================================================
   Analytic inverse kinematics: aim
   ============================================================================ */

/** @brief What an aim turns toward its target: a ray carried by a joint (the eyes
    and their line of sight), and optionally an up axis kept toward a pole.

    Every vector is given in the joint's rest-aligned frame, that is, as it points
    in the rest pose: the joint's world transform {Q, t} carries the ray's origin to
    Q (x + offset) + t (x the joint's rest position, so Q x + t is its posed pivot)
    and its direction to Q forward. With @c matrices the joint's matrix [A | t]
    carries them alike, to A (x + offset) + t and A forward (from fk_forward_trs(),
    x = 0: the vectors are in the joint's local frame). Zero-initialize it, then set
    @c forward; every other field's zero means "not used". */
typedef struct fk_ik_aim_desc {
    fk_vec3 forward; /**< the line of sight, as it points in the rest pose (required, nonzero; any length) */
    fk_vec3 offset;  /**< the ray's origin (the eyes) relative to the joint's rest position, in the rest
                          pose; zero: the ray starts at the joint */
    fk_vec3 up;      /**< an axis, as it points in the rest pose, turned toward @c pole; zero: no up axis */
    fk_vec3 pole;    /**< a world direction for @c up; zero: none, the aim takes the shortest turn */
    float twist;     /**< radians about the pivot-to-target line, turned after the up axis is placed
                          (right-handed); 0: none */
    const float *matrices; /**< a rig with scale: its world matrices, passed instead of the transforms
                          (which must then be NULL), 12 floats per joint as fk_forward_scaled() writes
                          them from the rotations passed, or with the rest joints NULL fk_forward_trs();
                          the rotations are then those functions' q_i (frame FK_FRAME_PARENT) */
} fk_ik_aim_desc;

/** @brief Aim (look-at) IK: turns one joint about its pivot so that the ray
    described by @p aim passes through @p target, with the up axis as close to the
    pole as any such turn allows.

    With P the joint's posed pivot, o the ray's posed origin minus P, f its posed
    direction (unit) and t = target - P, the turn R (a world rotation about P) must
    send the point o + lambda f, lambda >= 0, at distance |t| from P onto t:
        lambda = -(o.f) + sqrt(|t|^2 - |o_perp|^2),   o_perp = o - (o.f) f,
    the far intersection of the ray with the sphere of radius |t| (with no offset,
    lambda = |t|). R is the shortest turn from o + lambda f to t, then a turn about
    the pivot-to-target line (the only freedom left) that points the parts of the
    up axis and of the pole perpendicular to that line the same way, which makes
    (R up) . pole the largest any hitting turn allows, then @c twist about the same
    line. With no offset the line is the line of sight itself.
    The target cannot be hit when it lies closer to P than any point of the ray
    (inside the sphere about P through the ray's nearest point c, c = o_perp if
    o.f < 0, else o): the joint then turns so that the ray passes as close as it
    can, at |c| - |t|, by sending the direction of c to the direction of t, and
    @p reached says 0. A target at the pivot leaves the joint as it is.
    The weight turns by that fraction of R's angle about R's axis (the shorter way
    round): 0 writes nothing, 1 turns all the way.
    The joint's new relative rotation is written in @p frame's convention:
    q <- q (Q* R Q) in the parent frame (Q the joint's world rotation), q <- R q in
    the rest frame; either way its world rotation becomes R Q.
    A rig with scale passes its matrices in @c aim->matrices and NULL for
    @p transforms: the ray starts at the pivot plus the offset carried by the
    joint's matrix and runs along the forward axis carried alike, and the turn is
    solved in the parent's space z = A_p^-1 (y - P), where it is a rotation G and
    q <- g q (fk_forward_scaled()'s and fk_forward_trs()'s convention). The
    sphere above, the line and the twist are then those of that space (the
    sphere an ellipsoid in world space); the up axis is placed so that
    (A up) . pole, A the joint's posed matrix, is the largest any hitting turn
    gives.
    @param joint_count number of joints (>= 1). @param parents parent array, any order.
    @param rest_joints rest joint positions (with @c aim->matrices from
    fk_forward_trs(): NULL).
    @param transforms absolute transforms computed from @p rotations (fk_forward() or
    fk_forward_rest_frame(), as @p frame says); NULL with @c aim->matrices.
    @param frame the convention of @p rotations and @p transforms.
    @param joint the joint that turns and carries the ray.
    @param aim the ray, up axis, pole and twist (see fk_ik_aim_desc).
    @param target the point to aim at, in world space.
    @param weight in [0, 1]: the fraction of the turn to take.
    @param rotations the relative rotations; @p joint's is updated in place, no other.
    @param reached if not NULL, receives 1 when the ray can be made to pass through
    the target, 0 when the target lies inside the ray's sphere (written on success only).
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT,
    FK_ERROR_JOINT_OUT_OF_RANGE, FK_ERROR_PARENT_OUT_OF_RANGE, FK_ERROR_SELF_PARENT,
    FK_ERROR_CYCLE, FK_ERROR_INVALID_OPTION (@p frame), FK_ERROR_INVALID_WEIGHT
    (@p weight NaN or outside [0, 1]), FK_ERROR_INVALID_ROTATION (a zero @c forward,
    which aims nowhere, or the joint's rotation, its transform or its parent's
    with a rotation that cannot be normalized), FK_ERROR_CONFLICTING_ARGUMENTS
    (matrices with transforms, or with FK_FRAME_REST), FK_ERROR_NOT_RIGID
    (matrices: the parent's linear part singular) or FK_ERROR_NOT_FINITE (an infinite
    or NaN field of @p aim, target, rest position, transform or matrix, or
    distances that would overflow float); on error nothing is written.
    @remark O(joint_count) to check the parent array, O(depth) to check the joint's
    path; the turn itself is a fixed number of operations. */
FK_LBS_DEF fk_result fk_ik_aim(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                               const fk_rigid *transforms, fk_rotation_frame frame, int joint,
                               const fk_ik_aim_desc *aim, fk_vec3 target, float weight, fk_quat *rotations,
                               int *reached);

/** @brief Aim IK spread over a chain (spine, neck, head): each joint in turn,
    ancestors first, takes its weight's share of the turn that would aim the ray
    from where the joints before it left it.

    The ray is carried by the last joint, chain[chain_count - 1], and described in
    its rest-aligned frame as in fk_ik_aim(). Joint chain[m] solves fk_ik_aim()'s
    turn R_m about its own current pivot for the current ray and takes the fraction
    weights[m] of it; the joints below it then follow (their world transforms are
    recomputed inside, along the path, from @p rotations as updated so far). With
    weights like 0.3, 0.5, 1, the spine takes 30% of the turn, the neck half of
    what is left, and the head the rest, so a last weight of 1 aims exactly
    (wherever the target can be hit from the head). The result is, to rounding,
    that of turning the joints one at a time and posing the skeleton with
    fk_forward() (or, with @c aim->matrices, the forward kinematics that made
    them) between turns.
    @param joint_count number of joints (>= 1). @param parents parent array, any order.
    @param rest_joints rest joint positions.
    @param transforms absolute transforms computed from @p rotations in @p frame's
    convention; they are read, not updated.
    @param frame the convention of @p rotations and @p transforms.
    @param chain_count number of joints in the chain (>= 1).
    @param chain the joints, ancestors first: each a descendant (not necessarily a
    child) of the one before.
    @param weights chain_count weights, each in [0, 1].
    @param aim the ray, up axis, pole and twist, in the last joint's rest-aligned frame.
    @param target the point to aim at, in world space.
    @param rotations the relative rotations; the chain joints' are updated in place
    (a joint with weight 0 keeps its bits), no other.
    @param reached if not NULL, receives 1 when every chain joint could make the ray
    pass through the target, 0 when for some the target lay inside the ray's sphere
    about its pivot (written on success only).
    @return as fk_ik_aim() (the rotations, transforms and rest positions checked
    are those of every joint on the path from chain[0] down to the last joint, and
    chain[0]'s parent's transform), with FK_ERROR_INVALID_COUNT for
    chain_count < 1 and FK_ERROR_JOINT_OUT_OF_RANGE also for a chain joint that is
    not below the one before it; on error nothing is written.
    @remark O(joint_count) to check the parent array, then O(chain_count x depth):
    each turn after the first recomputes the current rotation and pivot of its
    joint and of the last joint by walking the path up to chain[0], composing the
    relative rotations and the rest-space segments between pivots (the segments
    read from @p transforms), so nothing is stored. */
FK_LBS_DEF fk_result fk_ik_aim_chain(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                     const fk_rigid *transforms, fk_rotation_frame frame, int chain_count,
                                     const int *chain, const float *weights, const fk_ik_aim_desc *aim,
                                     fk_vec3 target, fk_quat *rotations, int *reached);

/* ============================================================================
   Retargeting
   ============================================================================ */

/* One motion on another skeleton. Both rigs are first put in a common posture
   (a T-pose, say) by a reference pose each; a mapped target joint then takes,
   in world space, the rotation its source joint made away from that posture:
       D_j = W_j P_j^-1,   V_i = D_map(i) R_i,   r_i = V_parent^-1 V_i
   (W_j the source joint's world rotation in the pose, P_j in its posture, R_i
   the target joint's world rotation in its posture, r_i its relative rotation).
   An unmapped target joint keeps its posture's relative rotation. Because the
   change is taken in world space, chains with different joint counts carry the
   whole bend to the next mapped joint. Both rigs' world frames are taken to
   agree (the same up and forward axes). docs/animation.md has the derivation. */

/** @brief One rig to retarget from or to. Pivot-form rigs (fk_forward()) leave
    @c rest_rotations NULL; engine rigs (fk_forward_trs(), fk_forward_engine())
    give it, and then rotations are engine-local, rest orientation included.
    Both forms compose world rotations alike, W_i = W_p r_i, so the retarget
    works between any two. */
typedef struct fk_retarget_rig {
    int joint_count;               /**< number of joints (>= 1) */
    const int *parents;            /**< parent array, any order; kept by pointer by fk_retarget_init() */
    const fk_vec3 *rest_positions; /**< pivot form: rest joint positions; engine form: local rest
                                        translations (only the root's is read) */
    const fk_quat *rest_rotations; /**< engine form: local rest rotations; NULL: pivot form (rest = identity) */
    const fk_quat *reference;      /**< relative rotations (in the rig's form) that put it in the
                                        common posture; NULL: its rest pose is the posture */
    int root;                      /**< the root-motion joint (the hips): a root of the skeleton;
                                        its rest height (y) measures the rig */
} fk_retarget_rig;

/** @brief What fk_retarget_root() does along one world axis. */
typedef enum fk_retarget_axis {
    FK_RETARGET_AXIS_SCALED = 0, /**< the source's displacement times the scale (default) */
    FK_RETARGET_AXIS_KEEP = 1,   /**< the target keeps its rest coordinate */
    FK_RETARGET_AXIS_COPY = 2    /**< the source's displacement, unscaled */
} fk_retarget_axis;

/** @brief A retarget to build with fk_retarget_init(). Zero-initialize it, then
    fill in the rigs and the map; every option's zero is its default. */
typedef struct fk_retarget_desc {
    fk_retarget_rig source;        /**< the rig the motion comes from */
    fk_retarget_rig target;        /**< the rig it goes to */
    const int *map;                /**< target.joint_count entries: the source joint each target joint
                                        follows, or -1 for none (copied) */
    float root_scale;              /**< scale of the root's displacement; 0: target hip height over
                                        source hip height (rest y of each root) */
    fk_retarget_axis root_axes[3]; /**< per world axis x, y, z (see fk_retarget_axis) */
} fk_retarget_desc;

/** @brief Ints of storage that fk_retarget_init() needs for rigs of
    @p source_joint_count and @p target_joint_count joints: both prepared
    skeletons and the map. */
#define FK_RETARGET_INT_STORAGE(source_joint_count, target_joint_count) \
    (FK_SKELETON_STORAGE(source_joint_count) + FK_SKELETON_STORAGE(target_joint_count) + (target_joint_count))
/** @brief Quaternions of storage that fk_retarget_init() needs for a target of
    @p target_joint_count joints: one rotation a joint. */
#define FK_RETARGET_QUAT_STORAGE(target_joint_count) (target_joint_count)

/** @brief A retarget built once per pair of rigs by fk_retarget_init(). It
    points into the rigs' parent arrays and the caller's storage, which must
    outlive it unchanged. */
typedef struct fk_retarget {
    fk_skeleton source;        /**< the source's parent array, prepared */
    int source_root;           /**< the source's root-motion joint */
    fk_vec3 source_rest_root;  /**< its rest translation (pivot form: zero) */
    fk_skeleton target;        /**< the target's parent array, prepared */
    const int *map;            /**< the map (a copy in storage) */
    const fk_quat *rotations;  /**< per target joint: P_j^-1 R_i if mapped, else its posture's relative rotation */
    int target_root;           /**< the target's root-motion joint */
    fk_vec3 target_rest_root;  /**< its rest translation (pivot form: zero) */
    float root_scale;          /**< scale of the root's displacement */
    fk_retarget_axis root_axes[3]; /**< per world axis */
} fk_retarget;

/** @brief Checks a retarget description once and builds what fk_retarget_pose()
    needs per frame: each mapped target joint's P_j^-1 R_i, from the two
    postures' world rotations.
    @param retarget receives the retarget.
    @param desc the rigs, the map and the root options.
    @param int_storage FK_RETARGET_INT_STORAGE(source joint count, target joint
    count) ints, kept.
    @param quat_storage FK_RETARGET_QUAT_STORAGE(target joint count) quaternions, kept.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_COUNT (a rig with no
    joints), FK_ERROR_PARENT_OUT_OF_RANGE, FK_ERROR_SELF_PARENT, FK_ERROR_CYCLE
    (either rig's parents), FK_ERROR_JOINT_OUT_OF_RANGE (a map entry not below
    the source's joint count nor -1, or a root joint out of range or not a root),
    FK_ERROR_INVALID_ROTATION (a rest or reference rotation), FK_ERROR_NOT_FINITE
    (a root's rest position) or FK_ERROR_INVALID_OPTION (an axis it does not name, a
    root_scale negative or not finite, or, with root_scale 0, hip heights whose
    ratio is not positive and finite); on error nothing is written.
    @remark O(joint count x depth); nothing is allocated. */
FK_LBS_DEF fk_result fk_retarget_init(fk_retarget *retarget, const fk_retarget_desc *desc, int *int_storage,
                                      fk_quat *quat_storage);

/** @brief Retargets one pose: the target's relative rotations, in the target
    rig's form (pivot-form q_i for fk_forward(), or engine-local rotations for
    fk_forward_trs() and fk_forward_engine()), and its root translation.
    @param retarget from fk_retarget_init().
    @param source_rotations the source's relative rotations, in its form
    (normalized on the way in).
    @param source_root_translation the source root's translation as given to
    fk_forward() (d_r) or fk_forward_engine() (t_r).
    @param source_world receives the source's world rotations W_j (as many as
    it has joints): the call's scratch, which the caller owns so that calls on
    one retarget may run at once.
    @param out_rotations receives the target's relative rotations, unit: a
    mapped joint's V_parent^-1 D_map(i) R_i, an unmapped one's posture rotation.
    @param out_root_translation receives the target root's translation in its
    form: its rest translation plus, per axis, the source's displacement from
    its own rest translation as fk_retarget_axis says; may be NULL.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT, FK_ERROR_INVALID_ROTATION (a source
    rotation) or FK_ERROR_NOT_FINITE (the root translation, or the scaled one
    overflows); on error nothing is written.
    @remark O(source joints + target joints): one product a joint. Outputs
    must not overlap each other or @p source_rotations. */
FK_LBS_DEF fk_result fk_retarget_pose(const fk_retarget *retarget, const fk_quat *source_rotations,
                                      fk_vec3 source_root_translation, fk_quat *source_world,
                                      fk_quat *out_rotations, fk_vec3 *out_root_translation);

/** @brief Feet that do not slide: puts the target's end joint @c leg->end (an
    ankle, or any joint with two bones above it) where its source joint
    map[end] is, scaled as the root is, with fk_ik_two_bone():
        T = O_t + s (F_s - O_s) + o
    (F_s the source joint's posed position, O_s and O_t the two roots' posed
    positions, s the retarget's root scale, o = @c leg->target, an offset).
    The foot keeps its offset from the hips, scaled, so with the default root
    rule (every axis scaled, s the hip heights' ratio) and o zero a source foot
    on the floor (y = 0) gives a target foot on the floor, and a foot planted
    in the source stays planted in the target. The joint's height above the
    floor scales too: o = (0, h_t - s h_s, 0), with h_t and h_s the two ankles'
    heights standing on the floor, keeps the target's own.
    Call it once per leg after fk_retarget_pose() and the target's forward
    kinematics; legs whose chains do not overlap may use the same transforms.
    What it cannot do: a T beyond the target leg's reach (farther than the
    straight leg, or nearer the hip than the bent one) leaves the foot as near
    it as the leg allows, on the line from the hip toward it, with @p reached
    0, and the hips are not lowered to help; the end joint's own rotation is
    kept, so the foot turns with the shin; only the start and mid joints move.
    @param retarget from fk_retarget_init().
    @param source_positions the source's posed joint positions (world), as many
    as it has joints: read at map[end] and at the source's root.
    @param leg the leg in the target's posed skeleton, as for fk_ik_two_bone():
    start, mid, end, and the pose (@c transforms with @c rest_joints, or
    @c matrices) of the rotations @p rotations holds, with any pole, axis or
    softening, and @c target the offset o; its joint_count and parents are not
    read (the target rig's are used). The target root's posed position is read
    from the same pose.
    @param weight, rotations, reached as for fk_ik_two_bone().
    @return FK_OK, FK_ERROR_NULL_ARGUMENT (also neither matrices nor transforms
    with rest joints), FK_ERROR_JOINT_OUT_OF_RANGE (an end out of range or
    unmapped), FK_ERROR_INVALID_ROTATION (the target root's transform), or
    fk_ik_two_bone()'s codes (FK_ERROR_NOT_FINITE for a T that is not finite);
    on error nothing is written.
    @remark O(depth), as fk_ik_two_bone(). */
FK_LBS_DEF fk_result fk_retarget_foot(const fk_retarget *retarget, const fk_vec3 *source_positions,
                                      const fk_ik_two_bone_desc *leg, float weight, fk_quat *rotations,
                                      int *reached);

/** @brief A joint map from two lists of names: each target joint takes the
    first source joint with the same name, or failing that the first whose name
    matches once both are stripped of a namespace (anything up to the last ':'
    or '|', as in "mixamorig:" and "Armature|") and a leading "Bip01 " or
    "Bip001 " ('_' too), compared without regard to ASCII case.
    @param target_count,target_names the target's joint names (an entry may be
    NULL: never matched). @param source_count,source_names the source's.
    @param out_map receives target_count entries: a source index or -1.
    @param out_unmapped receives the number of -1 entries, or NULL.
    @return FK_OK, FK_ERROR_NULL_ARGUMENT or FK_ERROR_INVALID_COUNT (a count
    below 0); on error nothing is written.
    @remark O(target_count x source_count x name length). */
FK_LBS_DEF fk_result fk_retarget_map_names(int target_count, const char *const *target_names, int source_count,
                                           const char *const *source_names, int *out_map, int *out_unmapped);

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

/* The instruction sets the fast paths (FAST PATHS, at the end) are written
   for; their headers are included here, outside extern "C". */
#if !defined(FK_LBS_NO_SIMD) && (defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2))
#define FK__SIMD_SSE2 1
#include <emmintrin.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(FK_LBS_NO_AVX2)
#define FK__SIMD_AVX2 1
#include <immintrin.h>
#endif
#elif !defined(FK_LBS_NO_SIMD) && defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#define FK__SIMD_NEON 1
#include <arm_neon.h>
#elif !defined(FK_LBS_NO_SIMD) && defined(__wasm_simd128__)
#define FK__SIMD_WASM 1
#include <wasm_simd128.h>
#endif
#if defined(FK__SIMD_SSE2) || defined(FK__SIMD_NEON) || defined(FK__SIMD_WASM)
#define FK__SIMD 1
#endif

#if defined(FK__SIMD_AVX2)
/* Whether this processor runs the 8-lane code: known when the build targets
   AVX2 and FMA, else asked of the processor. */
static int fk__has_avx2_fma(void)
{
#if defined(__AVX2__) && defined(__FMA__)
    return 1;
#else
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
}
#endif

/* The fast paths' influence loops run 4 times or any number of times; gcc
   unrolls the first at -O2 only when asked (clang unasked). A loop over the
   influences from the fifth on stays rolled: unrolled, each kernel would
   carry copies of it for the few rigs that have them. */
#if defined(__GNUC__) && __GNUC__ >= 8 && !defined(__clang__)
#define FK__UNROLL _Pragma("GCC unroll 4")
#define FK__NO_UNROLL _Pragma("GCC unroll 1")
#elif defined(__clang__)
#define FK__UNROLL
#define FK__NO_UNROLL _Pragma("clang loop unroll(disable)")
#else
#define FK__UNROLL
#define FK__NO_UNROLL
#endif

/* Marks the common side of a branch, and helpers the fast paths inline. */
#if defined(__GNUC__) || defined(__clang__)
#define FK__ALWAYS_INLINE inline __attribute__((always_inline))
#define FK__NOINLINE __attribute__((noinline))
#define FK__FLATTEN __attribute__((flatten))
#define FK__LIKELY(x) __builtin_expect(!!(x), 1)
#elif defined(_MSC_VER)
#define FK__ALWAYS_INLINE __forceinline
#define FK__NOINLINE __declspec(noinline)
#define FK__FLATTEN
#define FK__LIKELY(x) (x)
#else
#define FK__ALWAYS_INLINE
#define FK__NOINLINE
#define FK__FLATTEN
#define FK__LIKELY(x) (x)
#endif

/* Code that runs once per chain, joint, track or call, never per vertex
   (inverse kinematics, Jacobians, tracks and root motion, skinned bounds, draw
   splits, weight repair), and the engine-form checked loops that run only where
   the fast paths do not, is compiled for size: clang otherwise inlines the
   quaternion functions into it many times over, and gcc compiles it faster so.
   gcc has no attribute for size alone; its cold one optimizes for size and
   marks the paths that call the function as rare, which code that runs once a
   call is. FK__CLANG_SMALL is for loops that run per bone or per vertex, which
   clang unrolls into copies that gain nothing and gcc compiles well as it is:
   the conversion of glTF's formats, a bone with scale split for DQS, and the
   plain loop of fk_skin_cor() (fk__cor_reference_from() says why). */
#if defined(__clang__)
#define FK__SMALL __attribute__((minsize))
#define FK__CLANG_SMALL __attribute__((minsize))
#elif defined(__GNUC__)
#define FK__SMALL __attribute__((cold))
#define FK__CLANG_SMALL
#else
#define FK__SMALL
#define FK__CLANG_SMALL
#endif

#ifndef FK_LBS_ASSERT
#include <assert.h>
#define FK_LBS_ASSERT(x) assert(x)
#endif

#ifndef FK_LBS_RIGID_TOLERANCE
#define FK_LBS_RIGID_TOLERANCE 1e-4
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
    case FK_ERROR_CONFLICTING_ARGUMENTS: return "two inputs that exclude each other are both given (transforms and matrices)";
    case FK_ERROR_INVALID_OPTION: return "an option has a value it does not name, or one outside its range";
    case FK_ERROR_MISSING_BIND_POSES: return "DQS of matrices with scale needs bind_poses, the bones' rest frames";
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

/* Tested against zero, not "> 0", so that NaN stays NaN instead of passing for
   a zero vector. */
static fk_vec3 fk__vec3_divide_by_length(fk_vec3 v, float length)
{
    return length != 0.0f ? fk_vec3_scale(v, 1.0f / length) : fk_vec3_make(0.0f, 0.0f, 0.0f);
}

/* |v|^2 overflowed or underflowed float, yet the direction is well defined:
   divide by the largest component first (no reciprocal, which could overflow).
   Out of line: it is rare, and inlined into every caller it doubled the code
   of each normalization. */
static FK__NOINLINE fk_vec3 fk__vec3_normalize_rescaled(fk_vec3 v, float length)
{
    float largest = fabsf(v.x) > fabsf(v.y) ? fabsf(v.x) : fabsf(v.y);
    largest = fabsf(v.z) > largest ? fabsf(v.z) : largest;
    if (largest > 0.0f && largest <= FLT_MAX) {
        v = fk_vec3_make(v.x / largest, v.y / largest, v.z / largest);
        length = fk_vec3_length(v);
    }
    return fk__vec3_divide_by_length(v, length);
}

FK_LBS_DEF fk_vec3 fk_vec3_normalize(fk_vec3 v)
{
    float length = fk_vec3_length(v);
    if (!(length >= 1e-18f && length <= FLT_MAX) && length == length) return fk__vec3_normalize_rescaled(v, length);
    return fk__vec3_divide_by_length(v, length);
}

/* Finiteness is read from the bits, not from comparisons: built with
   -ffast-math (-ffinite-math-only), a compiler may take every float to be
   finite and fold x <= FLT_MAX or x != x to a constant, which would let NaN
   and infinities through every check. A range test on a float, here and
   below, comes after one of these, where it means what it says. */
static uint32_t fk__float_bits(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}
static int fk__is_finite(float x) { return (fk__float_bits(x) & 0x7F800000u) != 0x7F800000u; }
static int fk__is_nan(float x) { return (fk__float_bits(x) & 0x7FFFFFFFu) > 0x7F800000u; }
/* Between FLT_MIN and FLT_MAX: a positive normal float (its bits are between theirs). */
static int fk__is_positive_normal(float x) { return fk__float_bits(x) - 0x00800000u <= 0x7F7FFFFFu - 0x00800000u; }
/* low <= x <= high, false for NaN and infinities (whatever the flags: see above). */
static int fk__is_within(float x, float low, float high) { return fk__is_finite(x) && x >= low && x <= high; }
static int fk__double_is_finite(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return (bits & 0x7FF0000000000000u) != 0x7FF0000000000000u;
}
static int fk__fits_float(double x) { return fk__double_is_finite(x) && fabs(x) <= (double)FLT_MAX; }

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

/* Out of line: called from most of the library's scalar code, where inlined
   copies made up a noticeable part of the object; the fast paths normalize in
   their own registers. */
FK_LBS_DEF FK__NOINLINE fk_quat fk_quat_normalize(fk_quat q)
{
    float norm2 = fk_quat_dot(q, q); /* NaN stays NaN: see fk_vec3_normalize() */
    return norm2 != 0.0f ? fk__quat_scale(q, 1.0f / sqrtf(norm2)) : fk_quat_identity();
}

/* Inputs that cannot be normalized: zero length (or so small that 1/|q| overflows),
   infinite or NaN. */
static int fk__quat_is_normalizable(fk_quat q) { return fk__is_positive_normal(fk_quat_dot(q, q)); }

/* A rigid transform the library can use: a rotation that normalizes and a
   finite translation. */
static fk_result fk__check_rigid(const fk_rigid *r)
{
    if (!fk__quat_is_normalizable(r->q)) return FK_ERROR_INVALID_ROTATION;
    return fk__vec3_is_finite(r->t) ? FK_OK : FK_ERROR_NOT_FINITE;
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
   link by a third. |q|^2 is summed in pairs, as the vector lanes of the fast
   path sum it. */
static float fk__renormalization_factor(fk_quat q)
{
    float norm2 = (q.x * q.x + q.z * q.z) + (q.y * q.y + q.w * q.w);
    return 0.5f * (3.0f - norm2);
}

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


/* Absolute transform of one joint from its parent's (NULL for a root). */
static fk_rigid fk__joint_transform(const fk_rigid *parent, fk_vec3 rest_joint, fk_quat rotation,
                                    const fk_vec3 *translation, int rest_frame)
{
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
}
/* Joints whose parent comes later are resolved by walking up from each joint to
   the nearest finished ancestor (or a root), then computing back down the path.
   The path is remembered in the output array itself: while a joint waits, its
   fk_rigid holds a mark in q.w (|w| <= 1 for any finished transform, so 4 and 8
   cannot be mistaken for one) and the index of the joint below it in t. Each
   joint is visited a bounded number of times: O(n) time, no extra memory, and a
   joint met again on its own path is a cycle.
   A subtree update marks only the subtree (root >= 0): the caller's transforms
   elsewhere may hold anything, so a mark is believed only on a joint of the
   subtree, and a climb stops at its root, whose parent is outside and finished. */
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

static int fk__in_subtree(int joint_count, const int *parents, int root, int joint);

/* Computes every joint whose transform is marked FK__UNVISITED (of the subtree
   of @p root, or of the whole array when root < 0), in any order; the others
   must hold finished transforms. */
static fk_result fk__forward_marked(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                    const fk_quat *rotations, const fk_vec3 *translations,
                                    fk_rigid *out, int rest_frame, int root)
{
    int i;
    for (i = 0; i < joint_count; ++i) {
        int joint = i, below = -1;
        if (out[i].q.w != FK__UNVISITED || (root >= 0 && fk__in_subtree(joint_count, parents, root, i) <= 0))
            continue;
        for (;;) { /* climb until the parent is finished or there is none */
            int parent = fk__parent_index(parents, joint);
            fk__set_link(&out[joint], below);
            if (parent < 0 || joint == root ||
                (out[parent].q.w != FK__UNVISITED && out[parent].q.w != FK__ON_PATH))
                break;
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
    return fk__forward_marked(joint_count, parents, rest_joints, rotations, translations, out, rest_frame, -1);
}

/* The common case in one pass: parents before children, every input valid,
   checked as it is computed. Returns 0 at the first joint whose parent or
   rotation is not so, or after the pass if any position, translation or
   result was not finite, and the general path below starts over, sorting out
   the order or finding the error, so results and error codes are those of
   the general path whichever way it goes. The checks accept exactly what the
   general path accepts, on the bits (see fk__is_finite()) and without
   branches: a coordinate whose exponent bits are all ones is not finite. */
static int fk__forward_parents_first_reference(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                               const fk_quat *rotations, const fk_vec3 *translations,
                                               fk_rigid *out, int rest_frame)
{
    int i;
    for (i = 0; i < joint_count; ++i) {
        int parent = parents[i];
        fk_vec3 x = rest_joints[i], d = translations ? translations[i] : x;
        uint32_t bits[6], not_finite = 0;
        int e;
        memcpy(bits, &x, sizeof x);
        memcpy(bits + 3, &d, sizeof d);
        for (e = 0; e < 6; ++e) not_finite |= (bits[e] & 0x7F800000u) + 0x00800000u; /* bit 31: all ones */
        if ((parent >= i) | !fk__is_positive_normal(fk_quat_dot(rotations[i], rotations[i])) | (int)(not_finite >> 31))
            return 0;
        out[i] = fk__joint_transform(parent < 0 ? NULL : &out[parent], x, rotations[i],
                                     translations ? &translations[i] : NULL, rest_frame);
        if (!fk__vec3_is_finite(out[i].t)) return 0; /* overflowed: the general path reports it */
    }
    return 1;
}

/* The one-pass loop of the fast paths (see FAST PATHS), or NULL where there is none. */
typedef int (*fk__forward_pass)(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                const fk_quat *rotations, const fk_vec3 *translations, fk_rigid *out, int rest_frame);
static fk__forward_pass fk__fast_forward(void);

/* tests/test_simd.c defines these to learn which kernel or pass each call
   runs, and so that the fast paths it holds to the reference were taken, and
   when a large rig's bones are named (fk__naming_pays()) and its sign bits
   fold (fk__dqs_rows_fold()); in every other build they are nothing, and the
   library keeps no record. */
#ifndef FK__TEST_KERNEL_RAN
#define FK__TEST_KERNEL_RAN(kernel) ((void)0)
#endif
#ifndef FK__TEST_ROWS_FOLDED
#define FK__TEST_ROWS_FOLDED() ((void)0)
#endif
#ifndef FK__TEST_BONES_NAMED
#define FK__TEST_BONES_NAMED() ((void)0)
#endif

static int fk__forward_one_pass(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                const fk_quat *rotations, const fk_vec3 *translations, fk_rigid *out, int rest_frame)
{
    fk__forward_pass pass = fk__fast_forward();
    if (!pass) pass = fk__forward_parents_first_reference;
    FK__TEST_KERNEL_RAN(pass);
    return pass(joint_count, parents, rest_joints, rotations, translations, out, rest_frame);
}
static fk_result fk__forward(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                             const fk_quat *rotations, const fk_vec3 *translations, fk_rigid *out,
                             int rest_frame)
{
    int i, parents_first; /* unused here: the one-pass loop has taken every valid parents-first input */
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

/* ---- Forward kinematics with scale -----------------------------------------
   Joint i's own motion about its pivot x_i is v -> (x_i + d_i) + R S (v - x_i):
   scale and turn about the pivot, then move the pivot by d_i. Composed with the
   parent's [A_p | t_p] this gives A_i = A_p R S and
       t_i = t_p + A_p (x_i + d_i - R S x_i) = t_p + A_p (x_i + d_i) - A_i x_i,
   fk_forward()'s rule with A in place of Q. glTF's T R S is the same with every
   pivot at the parent's origin (x_i = 0, d_i = t_i). */
static void fk__scaled_joint(const float *parent, const fk_vec3 *rest_joint, fk_quat rotation,
                             const fk_vec3 *translation, const fk_vec3 *scale, float out[12])
{
    float local[12];
    fk_vec3 x = rest_joint ? *rest_joint : fk_vec3_make(0.0f, 0.0f, 0.0f);
    fk_vec3 d = translation ? *translation : fk_vec3_make(0.0f, 0.0f, 0.0f);
    const double pivot[3] = {(double)x.x + (double)d.x, (double)x.y + (double)d.y, (double)x.z + (double)d.z};
    int row;
    fk_mat34_from_trs(fk_vec3_make(0.0f, 0.0f, 0.0f), rotation, scale ? *scale : fk_vec3_make(1.0f, 1.0f, 1.0f),
                      local);
    for (row = 0; row < 3; ++row) /* x + d - R S x, in double and rounded once */
        local[4 * row + 3] = (float)(pivot[row] - ((double)local[4 * row] * (double)x.x +
                                                   (double)local[4 * row + 1] * (double)x.y +
                                                   (double)local[4 * row + 2] * (double)x.z));
    if (parent) fk_mat34_mul(parent, local, out);
    else memcpy(out, local, sizeof local);
}

static int fk__mat34_is_finite(const float m[12]);

static const float fk__identity_mat34[12] = {1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f};

static fk_result fk__forward_scaled_failed(int joint_count, float *out, fk_result result)
{
    int i;
    for (i = 0; i < joint_count; ++i) memcpy(&out[12 * i], fk__identity_mat34, sizeof fk__identity_mat34);
    return result;
}

/* Any order, as fk__forward_marked() does it, with the marks in the first two
   floats of a waiting joint's matrix: an infinity (finished matrices are
   finite) and the index of the joint below it on the path. Computes every
   joint marked FK__SCALED_UNVISITED; the others must hold finished matrices.
   A product that overflows float is replaced by the identity and reported
   after the walk, which may still find a cycle. @p root as in fk__forward_marked(). */
#define FK__SCALED_UNVISITED HUGE_VALF
#define FK__SCALED_ON_PATH (-HUGE_VALF)

static fk_result fk__forward_scaled_marked(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                           const fk_quat *rotations, const fk_vec3 *translations,
                                           const fk_vec3 *scales, float *out, int root)
{
    int i, overflowed = 0;
    for (i = 0; i < joint_count; ++i) {
        int joint = i, below = -1;
        if (out[12 * i] != FK__SCALED_UNVISITED || (root >= 0 && fk__in_subtree(joint_count, parents, root, i) <= 0))
            continue;
        for (;;) { /* climb until the parent is finished or there is none */
            int parent = fk__parent_index(parents, joint);
            out[12 * joint] = FK__SCALED_ON_PATH;
            memcpy(&out[12 * joint + 1], &below, sizeof below);
            if (parent < 0 || joint == root ||
                (out[12 * parent] != FK__SCALED_UNVISITED && out[12 * parent] != FK__SCALED_ON_PATH))
                break;
            if (out[12 * parent] == FK__SCALED_ON_PATH) return FK_ERROR_CYCLE;
            below = joint;
            joint = parent;
        }
        while (joint >= 0) { /* descend, finishing each joint of the path */
            int parent = fk__parent_index(parents, joint), next;
            memcpy(&next, &out[12 * joint + 1], sizeof next);
            fk__scaled_joint(parent < 0 ? NULL : &out[12 * parent], rest_joints ? &rest_joints[joint] : NULL,
                             rotations[joint], translations ? &translations[joint] : NULL,
                             scales ? &scales[joint] : NULL, &out[12 * joint]);
            if (!fk__mat34_is_finite(&out[12 * joint])) {
                overflowed = 1;
                memcpy(&out[12 * joint], fk__identity_mat34, sizeof fk__identity_mat34);
            }
            joint = next;
        }
    }
    return overflowed ? FK_ERROR_NOT_FINITE : FK_OK;
}

/* A joint's inputs, checked as fk_forward() checks them. */
static fk_result fk__check_scaled_joint(const fk_vec3 *rest_joints, const fk_quat *rotations,
                                        const fk_vec3 *translations, const fk_vec3 *scales, int i)
{
    if (!fk__quat_is_normalizable(rotations[i])) return FK_ERROR_INVALID_ROTATION;
    if ((rest_joints && !fk__vec3_is_finite(rest_joints[i])) || (translations && !fk__vec3_is_finite(translations[i])) ||
        (scales && !fk__vec3_is_finite(scales[i])))
        return FK_ERROR_NOT_FINITE;
    return FK_OK;
}

static fk_result fk__forward_scaled(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                    const fk_quat *rotations, const fk_vec3 *translations,
                                    const fk_vec3 *scales, float *out)
{
    fk_result result;
    int i, parents_first;
    if (joint_count < 0) return FK_ERROR_INVALID_COUNT;
    if (joint_count == 0) return FK_OK;
    if (!parents || !rotations || !out || (!rest_joints && !translations)) return FK_ERROR_NULL_ARGUMENT;
    result = fk__check_parents(joint_count, parents, &parents_first);
    for (i = 0; i < joint_count && result == FK_OK; ++i)
        result = fk__check_scaled_joint(rest_joints, rotations, translations, scales, i);
    for (i = 0; i < joint_count && result == FK_OK; ++i) out[12 * i] = FK__SCALED_UNVISITED;
    if (result == FK_OK) result = fk__forward_scaled_marked(joint_count, parents, rest_joints, rotations, translations,
                                                            scales, out, -1);
    return result == FK_OK ? FK_OK : fk__forward_scaled_failed(joint_count, out, result);
}

FK_LBS_DEF fk_result fk_forward_scaled_subtree(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                               const fk_quat *rotations, const fk_vec3 *translations,
                                               const fk_vec3 *scales, int joint, float *matrices)
{
    int i, parents_first, root_parent;
    fk_result result;
    if (joint_count < 0) return FK_ERROR_INVALID_COUNT;
    if (!parents || !rotations || !matrices || (!rest_joints && !translations)) return FK_ERROR_NULL_ARGUMENT;
    if (joint < 0 || joint >= joint_count) return FK_ERROR_JOINT_OUT_OF_RANGE;
    if ((result = fk__check_parents(joint_count, parents, &parents_first)) != FK_OK) return result;
    for (i = 0; i < joint_count; ++i) {
        int member = fk__in_subtree(joint_count, parents, joint, i);
        if (member < 0) return FK_ERROR_CYCLE;
        if (member && (result = fk__check_scaled_joint(rest_joints, rotations, translations, scales, i)) != FK_OK)
            return result;
    }
    root_parent = fk__parent_index(parents, joint);
    /* a parent inside the subtree: a cycle through its root */
    if (root_parent >= 0 && fk__in_subtree(joint_count, parents, joint, root_parent)) return FK_ERROR_CYCLE;
    if (root_parent >= 0 && !fk__mat34_is_finite(&matrices[12 * root_parent])) return FK_ERROR_NOT_FINITE;
    for (i = 0; i < joint_count; ++i)
        if (fk__in_subtree(joint_count, parents, joint, i) > 0) matrices[12 * i] = FK__SCALED_UNVISITED;
    result = fk__forward_scaled_marked(joint_count, parents, rest_joints, rotations, translations, scales, matrices,
                                       joint);
    if (result != FK_OK) /* an overflow: the subtree is left as identities */
        for (i = 0; i < joint_count; ++i)
            if (fk__in_subtree(joint_count, parents, joint, i) > 0)
                memcpy(&matrices[12 * i], fk__identity_mat34, sizeof fk__identity_mat34);
    return result;
}

FK_LBS_DEF fk_result fk_forward_trs(int joint_count, const int *parents, const fk_vec3 *translations,
                                    const fk_quat *rotations, const fk_vec3 *scales, float *out)
{
    return fk__forward_scaled(joint_count, parents, NULL, rotations, translations, scales, out);
}

FK_LBS_DEF fk_result fk_forward_scaled(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                       const fk_quat *rotations, const fk_vec3 *translations,
                                       const fk_vec3 *scales, float *out)
{
    if (joint_count > 0 && !rest_joints) return FK_ERROR_NULL_ARGUMENT;
    return fk__forward_scaled(joint_count, parents, rest_joints, rotations, translations, scales, out);
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
    if (!fk__double_is_finite(det) || det == 0.0) return 0;
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

/* x_i = H IB_i^-1 0 = -H A^-1 b for IB_i = [A | b]. */
static fk_result fk__bind_rest_joint(const float *inverse_bind_matrices, const double stretch[9], int joint,
                                     fk_vec3 *out)
{
    double inverse_bind[12], linear[9], inverse[9], origin[3];
    int row;
    fk__mat34_to_double(inverse_bind_matrices + 12 * (size_t)joint, inverse_bind);
    fk__mat34_linear(inverse_bind, linear);
    if (!fk__mat3_inverse(linear, inverse)) return FK_ERROR_NOT_RIGID;
    for (row = 0; row < 3; ++row)
        origin[row] = -(inverse[3 * row] * inverse_bind[3] + inverse[3 * row + 1] * inverse_bind[7] +
                        inverse[3 * row + 2] * inverse_bind[11]);
    *out = fk_vec3_make((float)(stretch[0] * origin[0] + stretch[1] * origin[1] + stretch[2] * origin[2]),
                        (float)(stretch[3] * origin[0] + stretch[4] * origin[1] + stretch[5] * origin[2]),
                        (float)(stretch[6] * origin[0] + stretch[7] * origin[1] + stretch[8] * origin[2]));
    /* Computed in double from finite floats, but it may not fit back in one. */
    return fk__vec3_is_finite(*out) ? FK_OK : FK_ERROR_NOT_FINITE;
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
    for (i = 0; i < joint_count; ++i) { /* everything checked before anything is written */
        fk_vec3 rest;
        fk_result result = fk__bind_rest_joint(inverse_bind_matrices, stretch_0, i, &rest);
        if (result != FK_OK) return result;
    }
    for (k = 0; k < 9 && joint_count > 0; ++k)
        if (!fk__is_finite((float)stretch_0[k])) return FK_ERROR_NOT_FINITE;
    for (i = 0; i < joint_count; ++i)
        (void)fk__bind_rest_joint(inverse_bind_matrices, stretch_0, i, &out_rest_joints[i]);
    for (k = 0; k < 12; ++k) out_pretransform[k] = (k % 5 == 0) ? 1.0f : 0.0f;
    for (k = 0; k < 9 && joint_count > 0; ++k) out_pretransform[4 * (k / 3) + k % 3] = (float)stretch_0[k];
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

/* Joint i's relative rotation and translation. */
static fk_result fk__pose_joint(const int *parents, const float *inverse_bind_matrices, const float *world_matrices,
                                const double pretransform_inverse[12], const fk_vec3 *rest_joints, int i,
                                fk_quat *out_rotation, fk_vec3 *out_translation)
{
    fk_rigid motion, parent_motion = fk_rigid_identity();
    double rotation[9], parent_rotation[9], joint[3], x[3], offset[3], d[3];
    int parent = fk__parent_index(parents, i), k;
    fk_result result;
    if (!fk__vec3_is_finite(rest_joints[i])) return FK_ERROR_NOT_FINITE;
    if ((result = fk__joint_motion(inverse_bind_matrices, world_matrices, pretransform_inverse, i, &motion)) != FK_OK)
        return result;
    if (parent >= 0 &&
        (result = fk__joint_motion(inverse_bind_matrices, world_matrices, pretransform_inverse, parent,
                                   &parent_motion)) != FK_OK)
        return result;
    *out_rotation = fk_quat_normalize(fk_quat_mul(fk_quat_conjugate(parent_motion.q), motion.q));
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
    *out_translation = fk_vec3_make((float)d[0], (float)d[1], (float)d[2]);
    return fk__vec3_is_finite(*out_translation) ? FK_OK : FK_ERROR_NOT_FINITE; /* overflowed float */
}

FK_LBS_DEF fk_result fk_pose_from_matrices(int joint_count, const int *parents,
                                           const float *inverse_bind_matrices, const float *world_matrices,
                                           const float pretransform[12], const fk_vec3 *rest_joints,
                                           fk_quat *out_rotations, fk_vec3 *out_translations)
{
    double pretransform_linear[9], inverse_linear[9], pretransform_inverse[12], largest = 0.0;
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
    /* Nothing is written on error, and there is no room to keep results: a first
       pass checks each joint's rest position and motion and bounds the
       translations, |d_i| <= 2 |x_i| + |t_i| + |t_p| <= 4 sqrt(3) L with L the
       largest |x| + |t| (largest components). Only when it finds an error, or L so
       large that a translation might overflow, are the joints checked in full, in
       order, so that the first error is the one reported. */
    for (i = 0; i < joint_count && result == FK_OK; ++i) {
        fk_rigid motion;
        if (!fk__vec3_is_finite(rest_joints[i])) result = FK_ERROR_NOT_FINITE;
        else result = fk__joint_motion(inverse_bind_matrices, world_matrices, pretransform_inverse, i, &motion);
        if (result == FK_OK) {
            const double x[3] = {(double)rest_joints[i].x, (double)rest_joints[i].y, (double)rest_joints[i].z};
            const double t[3] = {(double)motion.t.x, (double)motion.t.y, (double)motion.t.z};
            largest = fmax(largest, fk__max_abs(x, 3) + fk__max_abs(t, 3));
        }
    }
    if (result != FK_OK || !(16.0 * largest <= (double)FLT_MAX))
        for (i = 0; i < joint_count; ++i) {
            fk_quat q;
            fk_vec3 d;
            result = fk__pose_joint(parents, inverse_bind_matrices, world_matrices, pretransform_inverse, rest_joints,
                                    i, &q, &d);
            if (result != FK_OK) return result;
        }
    for (i = 0; i < joint_count; ++i)
        (void)fk__pose_joint(parents, inverse_bind_matrices, world_matrices, pretransform_inverse, rest_joints, i,
                             &out_rotations[i], &out_translations[i]);
    return FK_OK;
}

/* An inverse bind matrix's inverse, the joint's rest frame, in double. */
static int fk__rest_frame(const float inverse_bind[12], double out[12])
{
    double m[12], linear[9], inverse[9];
    int row;
    fk__mat34_to_double(inverse_bind, m);
    fk__mat34_linear(m, linear);
    if (!fk__mat3_inverse(linear, inverse)) return 0;
    for (row = 0; row < 3; ++row) {
        out[4 * row] = inverse[3 * row]; out[4 * row + 1] = inverse[3 * row + 1]; out[4 * row + 2] = inverse[3 * row + 2];
        out[4 * row + 3] = -(inverse[3 * row] * m[3] + inverse[3 * row + 1] * m[7] + inverse[3 * row + 2] * m[11]);
    }
    return 1;
}

/* F from the polar decomposition of each rest frame's linear part L = F U: the
   right decomposition of L^T = U^T F gives F as its stretch. */
FK_LBS_DEF fk_result fk_bind_frames_from_matrices(int joint_count, const float *inverse_bind_matrices,
                                                  float out_space[12], fk_rigid *out_bind_poses)
{
    double space[9], space_inverse[9], scale = 0.0;
    int i, k, row, pass;
    if (joint_count < 0) return FK_ERROR_INVALID_COUNT;
    if (!out_space || (joint_count > 0 && (!inverse_bind_matrices || !out_bind_poses))) return FK_ERROR_NULL_ARGUMENT;
    for (i = 0; i < joint_count; ++i)
        if (!fk__mat34_is_finite(inverse_bind_matrices + 12 * (size_t)i)) return FK_ERROR_NOT_FINITE;
    /* The first pass checks every joint, the second writes: nothing is written on error. */
    for (pass = 0; pass < 2; ++pass) for (i = 0; i < joint_count; ++i) {
        double frame[12], transposed[9], rotation[9], stretch[9];
        if (!fk__rest_frame(inverse_bind_matrices + 12 * (size_t)i, frame)) return FK_ERROR_NOT_RIGID;
        for (row = 0; row < 3; ++row)
            for (k = 0; k < 3; ++k) transposed[3 * row + k] = frame[4 * k + row];
        if (!fk__polar_decomposition(transposed, rotation, stretch)) return FK_ERROR_NOT_RIGID;
        if (i == 0) {
            memcpy(space, stretch, sizeof space);
            scale = fk__max_abs(space, 9);
            if (!fk__mat3_inverse(space, space_inverse)) return FK_ERROR_NOT_RIGID;
        }
        for (k = 0; k < 9; ++k)
            if (!(fabs(stretch[k] - space[k]) <= (double)FK_LBS_RIGID_TOLERANCE * scale)) return FK_ERROR_NOT_RIGID;
        { /* B_i = F^-1 IB_i^-1: the rotation U (transposed back) and F^-1 t */
            double u[9];
            fk_rigid pose;
            for (row = 0; row < 3; ++row)
                for (k = 0; k < 3; ++k) u[3 * row + k] = rotation[3 * k + row];
            pose.q = fk__quat_from_mat3_double(u);
            pose.t = fk_vec3_make(
                (float)(space_inverse[0] * frame[3] + space_inverse[1] * frame[7] + space_inverse[2] * frame[11]),
                (float)(space_inverse[3] * frame[3] + space_inverse[4] * frame[7] + space_inverse[5] * frame[11]),
                (float)(space_inverse[6] * frame[3] + space_inverse[7] * frame[7] + space_inverse[8] * frame[11]));
            if (!fk__vec3_is_finite(pose.t)) return FK_ERROR_NOT_FINITE;
            if (pass) out_bind_poses[i] = pose;
        }
    }
    for (k = 0; k < 12; ++k) out_space[k] = k % 5 == 0 ? 1.0f : 0.0f;
    if (joint_count > 0)
        for (k = 0; k < 9; ++k) out_space[4 * (k / 3) + k % 3] = (float)space[k];
    return FK_OK;
}

FK_LBS_DEF fk_result fk_skin_matrices_from_matrices(int joint_count, const float *inverse_bind_matrices,
                                                    const float *world_matrices, const float *space,
                                                    float *out_matrices)
{
    double f[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, f_inverse[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    double largest = 0.0;
    int i, k, pass;
    if (joint_count < 0) return FK_ERROR_INVALID_COUNT;
    if (joint_count > 0 && (!inverse_bind_matrices || !world_matrices || !out_matrices)) return FK_ERROR_NULL_ARGUMENT;
    if (space) {
        double linear[9], inverse[9];
        if (!fk__mat34_is_finite(space)) return FK_ERROR_NOT_FINITE;
        fk__mat34_to_double(space, f);
        fk__mat34_linear(f, linear);
        if (!fk__mat3_inverse(linear, inverse)) return FK_ERROR_NOT_RIGID;
        for (k = 0; k < 9; ++k) f_inverse[4 * (k / 3) + k % 3] = inverse[k];
        for (k = 0; k < 3; ++k)
            f_inverse[4 * k + 3] = -(inverse[3 * k] * f[3] + inverse[3 * k + 1] * f[7] + inverse[3 * k + 2] * f[11]);
    }
    /* Nothing is written on error. A product of 3x4 affine matrices has entries
       at most 4 |a| (|b| + 1) (largest components), so when every input is finite
       and that bound for F^-1 W IB F fits float with room to spare, nothing can
       overflow and one pass writes; otherwise a first pass checks every joint. */
    for (i = 0; i < joint_count; ++i) {
        const float *w = world_matrices + 12 * (size_t)i, *b = inverse_bind_matrices + 12 * (size_t)i;
        double wd[12], bd[12];
        if (!fk__mat34_is_finite(w) || !fk__mat34_is_finite(b)) { largest = HUGE_VAL; break; }
        fk__mat34_to_double(w, wd);
        fk__mat34_to_double(b, bd);
        largest = fmax(largest, 4.0 * fk__max_abs(wd, 12) * (fk__max_abs(bd, 12) + 1.0));
    }
    largest = 16.0 * fk__max_abs(f_inverse, 12) * (largest + 1.0) * (fk__max_abs(f, 12) + 1.0);
    for (pass = 2.0 * largest <= (double)FLT_MAX; pass < 2; ++pass) for (i = 0; i < joint_count; ++i) {
        double skinning[12], left[12], product[12];
        if (!fk__skinning_matrix(inverse_bind_matrices, world_matrices, i, skinning)) return FK_ERROR_NOT_FINITE;
        fk__mat34_mul_double(f_inverse, skinning, left);
        fk__mat34_mul_double(left, f, product);
        for (k = 0; k < 12; ++k) {
            if (!fk__is_finite((float)product[k])) return FK_ERROR_NOT_FINITE;
            if (pass) out_matrices[12 * (size_t)i + (size_t)k] = (float)product[k];
        }
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

/* ---- Prepared skeletons and engine-form forward kinematics -------------------
   An engine's joint carries its rest orientation in its local rotation, so its
   world transform is the product of the local T R S down the tree, with no
   pivot: fk_forward()'s rule with every rest position at the parent's origin,
   x_i = 0 and d_i = t_i, when nothing scales, and fk_forward_trs()'s product
   when something does. Computing it in float, in a parents-first order found
   once, is what makes it as cheap per joint as fk_forward().

   The order is built as fk__forward_marked() finds its way through a
   children-first array: climb from each joint not yet placed to the nearest
   placed ancestor (or a root), then place the path top down, so that chains
   stay together and a parents-first array keeps its own order. While a joint
   is on the path being climbed, position[] holds -3 - (the joint below it);
   -1 marks a joint not yet reached. */
#define FK__UNPLACED (-1)

FK_LBS_DEF fk_result fk_skeleton_init(fk_skeleton *skeleton, int joint_count, const int *parents, int *storage)
{
    int *order, *position, i, placed = 0, depth = 0, parents_first;
    fk_result result;
    if (!skeleton) return FK_ERROR_NULL_ARGUMENT;
    memset(skeleton, 0, sizeof *skeleton);
    if (joint_count < 0) return FK_ERROR_INVALID_COUNT;
    if (joint_count == 0) return FK_OK;
    if (!parents || !storage) return FK_ERROR_NULL_ARGUMENT;
    if ((result = fk__check_parents(joint_count, parents, &parents_first)) != FK_OK) return result;
    order = storage;
    position = storage + joint_count;
    for (i = 0; i < joint_count; ++i) position[i] = FK__UNPLACED;
    for (i = 0; i < joint_count; ++i) {
        int joint = i, below = -1;
        if (position[i] >= 0) continue;
        for (;;) { /* climb until the parent is placed or there is none */
            int parent = fk__parent_index(parents, joint);
            position[joint] = -3 - below;
            if (parent < 0 || position[parent] >= 0) break;
            if (position[parent] != FK__UNPLACED) return FK_ERROR_CYCLE;
            below = joint;
            joint = parent;
        }
        while (joint >= 0) { /* place the path, top down */
            int next = -3 - position[joint];
            order[placed] = joint;
            position[joint] = placed++;
            joint = next;
        }
    }
    for (i = 0; i < joint_count; ++i) { /* each joint's depth, briefly in position[] */
        int parent = fk__parent_index(parents, order[i]);
        position[order[i]] = parent < 0 ? 1 : position[parent] + 1;
        depth = position[order[i]] > depth ? position[order[i]] : depth;
    }
    for (i = 0; i < joint_count; ++i) position[order[i]] = i;
    skeleton->joint_count = joint_count;
    skeleton->depth = depth;
    skeleton->parents = parents;
    skeleton->order = order;
    skeleton->position = position;
    return FK_OK;
}

/* The fast paths' passes (FAST PATHS): 0 where there are none, or when an input
   is not valid or a result not finite, and the checked loops below start over. */
static int fk__engine_fast_matrices(const fk_skeleton *skeleton, const fk_vec3 *translations, const fk_quat *rotations,
                                    const fk_vec3 *scales, const float *inverse_bind_matrices, float *world,
                                    float *skinning);
static int fk__engine_fast_rigid(const fk_skeleton *skeleton, const fk_vec3 *translations, const fk_quat *rotations,
                                 const fk_rigid *inverse_binds, fk_rigid *world, fk_rigid *skinning);

/* out = a b in float, each element ((a0 b0 + a1 b1) + a2 b2) + a3 e3, the order
   the fast path sums a row in. */
static FK__SMALL void fk__mat34_mul_float(const float a[12], const float b[12], float out[12])
{
    int row, col;
    for (row = 0; row < 3; ++row)
        for (col = 0; col < 4; ++col)
            out[4 * row + col] = ((a[4 * row] * b[col] + a[4 * row + 1] * b[4 + col]) + a[4 * row + 2] * b[8 + col]) +
                                 (col == 3 ? a[4 * row + 3] : 0.0f);
}

static int fk__quat_is_finite(fk_quat q) { return fk__is_finite(q.x) && fk__is_finite(q.y) && fk__is_finite(q.z) && fk__is_finite(q.w); }

/* Every joint's own inputs checked, in joint order, before anything is
   computed; inverse binds that are not finite show in the results. */
static fk_result fk__engine_check(int joint_count, const fk_vec3 *translations, const fk_quat *rotations,
                                  const fk_vec3 *scales)
{
    int i;
    fk_result result;
    for (i = 0; i < joint_count; ++i)
        if ((result = fk__check_scaled_joint(NULL, rotations, translations, scales, i)) != FK_OK) return result;
    return FK_OK;
}

FK_LBS_DEF FK__SMALL fk_result fk_forward_engine(const fk_skeleton *skeleton, const fk_vec3 *translations,
                                       const fk_quat *rotations, const fk_vec3 *scales,
                                       const float *inverse_bind_matrices, float *out_world, float *out_skinning)
{
    const fk_vec3 one = fk_vec3_make(1.0f, 1.0f, 1.0f);
    int n, k, e;
    fk_result result;
    if (!skeleton) return FK_ERROR_NULL_ARGUMENT;
    if ((n = skeleton->joint_count) == 0) return FK_OK;
    if (!skeleton->order || !translations || !rotations || !out_world || (inverse_bind_matrices && !out_skinning))
        return FK_ERROR_NULL_ARGUMENT;
    if (fk__engine_fast_matrices(skeleton, translations, rotations, scales, inverse_bind_matrices, out_world,
                                 out_skinning))
        return FK_OK;
    result = fk__engine_check(n, translations, rotations, scales);
    for (k = 0; k < n && result == FK_OK; ++k) {
        const int joint = skeleton->order[k], parent = fk__parent_index(skeleton->parents, joint);
        float local[12], *world = out_world + 12 * (size_t)joint;
        fk_mat34_from_trs(translations[joint], rotations[joint], scales ? scales[joint] : one, local);
        if (parent < 0) memcpy(world, local, sizeof local);
        else fk__mat34_mul_float(out_world + 12 * (size_t)parent, local, world);
        if (inverse_bind_matrices)
            fk__mat34_mul_float(world, inverse_bind_matrices + 12 * (size_t)joint, out_skinning + 12 * (size_t)joint);
        if (!fk__mat34_is_finite(world) || (inverse_bind_matrices && !fk__mat34_is_finite(out_skinning + 12 * (size_t)joint)))
            result = FK_ERROR_NOT_FINITE;
    }
    if (result != FK_OK)
        for (k = 0; k < n; ++k)
            for (e = 0; e < 12; ++e) {
                out_world[12 * k + e] = fk__identity_mat34[e];
                if (inverse_bind_matrices) out_skinning[12 * k + e] = fk__identity_mat34[e];
            }
    return result;
}

FK_LBS_DEF FK__SMALL fk_result fk_forward_engine_rigid(const fk_skeleton *skeleton, const fk_vec3 *translations,
                                             const fk_quat *rotations, const fk_rigid *inverse_binds,
                                             fk_rigid *out_world, fk_rigid *out_skinning)
{
    const fk_vec3 origin = fk_vec3_make(0.0f, 0.0f, 0.0f);
    int n, k;
    fk_result result;
    if (!skeleton) return FK_ERROR_NULL_ARGUMENT;
    if ((n = skeleton->joint_count) == 0) return FK_OK;
    if (!skeleton->order || !translations || !rotations || !out_world || (inverse_binds && !out_skinning))
        return FK_ERROR_NULL_ARGUMENT;
    if (fk__engine_fast_rigid(skeleton, translations, rotations, inverse_binds, out_world, out_skinning)) return FK_OK;
    result = fk__engine_check(n, translations, rotations, NULL);
    for (k = 0; k < n && result == FK_OK; ++k) { /* fk_forward()'s joint with its pivot at the parent's origin */
        const int joint = skeleton->order[k], parent = fk__parent_index(skeleton->parents, joint);
        out_world[joint] = fk__joint_transform(parent < 0 ? NULL : &out_world[parent], origin, rotations[joint],
                                               &translations[joint], 0);
        if (inverse_binds) out_skinning[joint] = fk_rigid_mul(out_world[joint], inverse_binds[joint]);
        if (!fk__vec3_is_finite(out_world[joint].t) ||
            (inverse_binds && (!fk__vec3_is_finite(out_skinning[joint].t) || !fk__quat_is_finite(out_skinning[joint].q))))
            result = FK_ERROR_NOT_FINITE;
    }
    if (result != FK_OK)
        for (k = 0; k < n; ++k) {
            out_world[k] = fk_rigid_identity();
            if (inverse_binds) out_skinning[k] = fk_rigid_identity();
        }
    return result;
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
    size_t joint2_stride, weight2_stride;
    int dense;
    int two_streams;        /* a second stream, apart from the first */
    int converted;          /* joints or weights not uint16_t and float */
    const int *named_bones; /* the bones the vertices name, their count first, or NULL: all (fk__skin()) */
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

/* A vertex's k weights must fit in size_t (on 32-bit targets INT_MAX of them
   do not); with no vertices, nothing of them is ever read and one stands in. */
static fk_result fk__influence_count(int influences, int vertex_count, size_t *k)
{
    *k = (size_t)influences;
    if (*k > ((size_t)-1) / sizeof(float)) {
        if (vertex_count > 0) return FK_ERROR_INVALID_COUNT;
        *k = 1;
    }
    return FK_OK;
}

/* The bones' values (and bind poses'), once the descriptor says which are given. */
static fk_result fk__check_skin_bones(const fk_skin_desc *d)
{
    int j;
    fk_result r;
    for (j = 0; d->bind_poses && j < d->transform_count; ++j)
        if ((r = fk__check_rigid(&d->bind_poses[j])) != FK_OK) return r;
    for (j = 0; j < d->transform_count; ++j) {
        if (d->matrices) {
            if (!fk__mat34_is_finite(d->matrices + 12 * (size_t)j)) return FK_ERROR_NOT_FINITE;
            continue;
        }
        if ((r = fk__check_rigid(&d->transforms[j])) != FK_OK) return r;
    }
    return FK_OK;
}

/* The bytes of a joint index and of a weight, in the descriptor's formats. */
static size_t fk__joint_size(const fk_skin_desc *d) { return d->joint_format == FK_JOINTS_U8 ? 1 : 2; }
static size_t fk__weight_size(const fk_skin_desc *d)
{
    return d->weight_format == FK_WEIGHTS_FLOAT ? 4 : d->weight_format == FK_WEIGHTS_UNORM8 ? 1 : 2;
}

/* The joint and weight lists' strides: k a vertex, or 4 and k - 4 in two streams. */
static fk_result fk__check_lists(const fk_skin_desc *d, fk__skin_layout *layout, size_t k)
{
    const size_t first = d->joints2 ? 4 : k, joint = fk__joint_size(d), weight = fk__weight_size(d);
    fk_result r;
    if ((r = fk__check_stride(&layout->weight_stride, first * weight, weight, d->weights, d->vertex_count)) != FK_OK) return r;
    if (!layout->dense &&
        (r = fk__check_stride(&layout->joint_stride, first * joint, joint, d->joints, d->vertex_count)) != FK_OK) return r;
    if (!d->joints2) return FK_OK;
    if ((r = fk__check_stride(&layout->joint2_stride, (k - 4) * joint, joint, d->joints2, d->vertex_count)) != FK_OK) return r;
    return fk__check_stride(&layout->weight2_stride, (k - 4) * weight, weight, d->weights2, d->vertex_count);
}

/* Checks everything but the joint indices; they are checked as each vertex is read. */
static fk_result fk__check_skin(const fk_skin_desc *d, fk__skin_layout *layout)
{
    fk_result r;
    size_t k;
    if (!d) return FK_ERROR_NULL_ARGUMENT;
    if (d->vertex_count < 0 || d->influences < 1 || d->transform_count < 0) return FK_ERROR_INVALID_COUNT;
    if (!d->positions || !d->weights || !d->out_positions || (d->normals && !d->out_normals) ||
        (d->tangents && !d->out_tangents))
        return FK_ERROR_NULL_ARGUMENT;
    if (d->transforms && d->matrices) return FK_ERROR_CONFLICTING_ARGUMENTS;
    if (d->dqs_scale_center != FK_DQS_SCALE_AT_VERTEX && d->dqs_scale_center != FK_DQS_SCALE_AT_BONE)
        return FK_ERROR_INVALID_OPTION;
    if (d->transform_count > 0 && !d->transforms && !d->matrices) return FK_ERROR_NULL_ARGUMENT;
    if ((unsigned)d->joint_format > FK_JOINTS_U8 || (unsigned)d->weight_format > FK_WEIGHTS_UNORM16)
        return FK_ERROR_INVALID_OPTION;
    layout->dense = d->joints == NULL;
    layout->named_bones = NULL;
    if (layout->dense && d->influences != d->transform_count) return FK_ERROR_INVALID_COUNT;
    if ((d->joints2 != NULL) != (d->weights2 != NULL)) return FK_ERROR_NULL_ARGUMENT;
    if (d->joints2 && layout->dense) return FK_ERROR_CONFLICTING_ARGUMENTS;
    if (d->joints2 && (d->influences < 5 || d->influences > 8)) return FK_ERROR_INVALID_COUNT;
    if ((r = fk__influence_count(d->influences, d->vertex_count, &k)) != FK_OK) return r;
    layout->joint2_stride = d->joint2_stride;
    layout->weight2_stride = d->weight2_stride;
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
    if ((r = fk__check_lists(d, layout, k)) != FK_OK) return r;
    /* A second stream that continues the first (JOINTS_0 and JOINTS_1 side
       by side in one record) is one stream of k lists, read where it is. */
    layout->two_streams = d->joints2 && !(d->vertex_count > 0 && layout->joint2_stride == layout->joint_stride &&
                                          layout->weight2_stride == layout->weight_stride &&
                                          (const char *)d->joints2 == (const char *)d->joints + 4 * fk__joint_size(d) &&
                                          (const char *)d->weights2 == (const char *)d->weights + 4 * fk__weight_size(d));
    layout->converted = d->joint_format != FK_JOINTS_U16 || d->weight_format != FK_WEIGHTS_FLOAT;
    if (d->normals) {
        if ((r = fk__check_stride(&layout->normal_stride, 3 * sizeof(float), sizeof(float), d->normals, d->vertex_count)) != FK_OK) return r;
        if ((r = fk__check_stride(&layout->out_normal_stride, 3 * sizeof(float), sizeof(float), d->out_normals, d->vertex_count)) != FK_OK) return r;
    }
    if (d->tangents) {
        if ((r = fk__check_stride(&layout->tangent_stride, 4 * sizeof(float), sizeof(float), d->tangents, d->vertex_count)) != FK_OK) return r;
        if ((r = fk__check_stride(&layout->out_tangent_stride, 4 * sizeof(float), sizeof(float), d->out_tangents, d->vertex_count)) != FK_OK) return r;
    }
    return fk__check_skin_bones(d);
}

static int fk__mat34_is_rigid(const float m[12]);
static int fk__influence_joint(const fk_skin_desc *d, const fk__skin_layout *layout, int vertex, int k);

/* Whether DQS splits the bones (matrices with scale), which needs their rest
   frames: FK_OK and *scaled, or FK_ERROR_MISSING_BIND_POSES. */
static fk_result fk__dqs_bones_scaled(const fk_skin_desc *d, int *scaled)
{
    int j;
    *scaled = 0;
    for (j = 0; d->matrices && j < d->transform_count && !*scaled; ++j)
        *scaled = !fk__mat34_is_rigid(d->matrices + 12 * (size_t)j);
    return *scaled && !d->bind_poses ? FK_ERROR_MISSING_BIND_POSES : FK_OK;
}

FK_LBS_DEF fk_result fk_skin_validate(const fk_skin_desc *desc, fk_skin_method method)
{
    fk__skin_layout layout;
    fk_result result = fk__check_skin(desc, &layout);
    int i, k, scaled;
    if (result == FK_OK && (unsigned)method > FK_SKIN_COR) return FK_ERROR_INVALID_OPTION;
    if (result == FK_OK && method != FK_SKIN_LBS) result = fk__dqs_bones_scaled(desc, &scaled);
    if (result != FK_OK || layout.dense) return result;
    for (i = 0; i < desc->vertex_count; ++i)
        for (k = 0; k < desc->influences; ++k)
            if (fk__influence_joint(desc, &layout, i, k) < 0) return FK_ERROR_JOINT_OUT_OF_RANGE;
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
    const int second = d->joints2 && k >= 4;
    const char *list;
    uint16_t joint;
    if (layout->dense) return k; /* no joint lists, and no pointer to offset */
    list = (const char *)(second ? d->joints2 : d->joints) +
           (size_t)vertex * (second ? layout->joint2_stride : layout->joint_stride);
    if (second) k -= 4;
    if (d->joint_format == FK_JOINTS_U8) joint = (unsigned char)list[k];
    else memcpy(&joint, list + 2 * (size_t)k, sizeof joint);
    return (int)joint < d->transform_count ? (int)joint : -1;
}

/* glTF's dequantization of a normalized integer weight: the quotient, correctly
   rounded (as c / 255.0 in double then rounded to float gives it, for every c). */
static float fk__unorm_weight(unsigned c, fk_weight_format format)
{
    return (float)c / (format == FK_WEIGHTS_UNORM8 ? 255.0f : 65535.0f);
}

/* The weight of influence k of a vertex, as a float. */
static float fk__influence_weight(const fk_skin_desc *d, const fk__skin_layout *layout, int vertex, int k)
{
    const int second = d->weights2 && k >= 4;
    const char *list = (const char *)(second ? d->weights2 : d->weights) +
                       (size_t)vertex * (second ? layout->weight2_stride : layout->weight_stride);
    float weight;
    uint16_t c;
    if (second) k -= 4;
    if (d->weight_format == FK_WEIGHTS_UNORM8) return fk__unorm_weight((unsigned char)list[k], d->weight_format);
    if (d->weight_format == FK_WEIGHTS_FLOAT) {
        memcpy(&weight, list + 4 * (size_t)k, sizeof weight);
        return weight;
    }
    memcpy(&c, list + 2 * (size_t)k, sizeof c);
    return fk__unorm_weight(c, d->weight_format);
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
   layout; the fast paths (FAST PATHS, at the end) take the common case (joint
   indices, a rig that fits the palette) and must give the same answers to a few
   ulps, which tests/test_simd.c checks. */

/* A bone's 3x4 matrix stored by columns, each padded to four floats: the fast
   paths blend and apply whole columns, and the zero padding stays zero. */
#define FK__LBS_BONE_FLOATS 16
/* A bone's dual quaternion: real x y z w, then dual x y z w; in the palette each
   is followed by its negation, the same rotation from the other hemisphere,
   which the fast paths pick instead of flipping a weight's sign. */
#define FK__DQS_BONE_FLOATS 8
#define FK__DQS_PALETTE_STRIDE 16

/* A bone's rotation made unit exactly as fk_quat_normalize() does it, read
   through a pointer. Passed by value, a quaternion crosses each call in two
   registers that are stored and reloaded as one, a stall per call: built from
   the public functions, a palette cost as much as skinning many vertices. */
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

/* A palette entry is the dual quaternion followed by its negation. */
static void fk__dqs_append_negation(float out[FK__DQS_PALETTE_STRIDE])
{
    int e;
    for (e = 0; e < FK__DQS_BONE_FLOATS; ++e) out[FK__DQS_BONE_FLOATS + e] = -out[e];
}

static void fk__dqs_palette_bone(const fk_rigid *bone, float out[FK__DQS_PALETTE_STRIDE])
{
    fk__dqs_bone(bone, out);
    fk__dqs_append_negation(out);
}

/* An affine bone [A | t], 3x4 row-major, stored by columns as fk__lbs_bone()
   stores a rigid one: LBS blends and applies it alike. */
static void fk__lbs_bone_of_matrix(const float m[12], float out[FK__LBS_BONE_FLOATS])
{
    int column, row;
    for (column = 0; column < 4; ++column) {
        for (row = 0; row < 3; ++row) out[4 * column + row] = m[4 * row + column];
        out[4 * column + 3] = 0.0f;
    }
}

/* Whether a matrix's linear part is a rotation (columns orthonormal within
   FK_LBS_RIGID_TOLERANCE, determinant positive), as DQS without scale needs. */
static int fk__mat34_is_rigid(const float m[12])
{
    int row, col;
    for (row = 0; row < 3; ++row)
        for (col = row; col < 3; ++col) {
            double dot = (double)m[row] * (double)m[col] + (double)m[4 + row] * (double)m[4 + col] +
                         (double)m[8 + row] * (double)m[8 + col];
            if (!(fabs(dot - (row == col ? 1.0 : 0.0)) <= (double)FK_LBS_RIGID_TOLERANCE)) return 0;
        }
    return (double)m[0] * ((double)m[5] * (double)m[10] - (double)m[6] * (double)m[9]) -
           (double)m[1] * ((double)m[4] * (double)m[10] - (double)m[6] * (double)m[8]) +
           (double)m[2] * ((double)m[4] * (double)m[9] - (double)m[5] * (double)m[8]) > 0.0;
}

/* One bone of the rig as each method's palette holds it, from the rigid
   transforms or the matrices, whichever the descriptor gives. */
static void fk__lbs_bone_of(const fk_skin_desc *d, int joint, float *out)
{
    if (d->matrices) fk__lbs_bone_of_matrix(d->matrices + 12 * (size_t)joint, out);
    else fk__lbs_bone(&d->transforms[joint], out);
}

/* (The rigid transforms are read through a pointer: a copy by value costs a
   store-forwarding stall per bone, which small calls notice.) */
static void fk__dqs_bone_of(const fk_skin_desc *d, int joint, float *out)
{
    fk_rigid bone;
    if (!d->matrices) {
        fk__dqs_bone(&d->transforms[joint], out);
        return;
    }
    bone = fk_rigid_from_mat34(d->matrices + 12 * (size_t)joint);
    fk__dqs_bone(&bone, out);
}

static void fk__dqs_palette_bone_of(const fk_skin_desc *d, int joint, float *out)
{
    fk__dqs_bone_of(d, joint, out);
    fk__dqs_append_negation(out);
}

/* The palette lives in a stack array aligned here to a cache line, so that no
   bone straddles two lines and aligned vector loads are allowed. */
static float *fk__align64(float *storage)
{
    size_t misalignment = (size_t)(char *)storage % 64;
    return misalignment ? storage + (64 - misalignment) / sizeof(float) : storage;
}

/* A normal moved by a blended affine matrix whose linear part A has the
   columns a, b, c. A tangent t moves to A t, and the normal that stays
   perpendicular to every moved tangent is the inverse transpose A^-T n. Up to
   a positive factor that is the cofactor matrix, det(A) A^-T =
   [b x c, c x a, a x b], times the sign of det(A): no division, so a singular
   A (a bone scaled to zero) still gives the normal of the plane the surface
   was flattened into, and a mirroring A (det < 0) keeps the normal on the
   outside. A determinant within rounding of zero (below a few ulps of the
   largest volume a, b, c could span) counts as zero and flips nothing, so
   that a flattened surface's normal does not flip with the rounding of its
   blend. Renormalized afterwards; a surface collapsed to a line or a point
   has no normal, and gets the zero vector. Applying A itself, as rigid LBS
   does, is the same for a rotation but not under non-uniform scale. */
#define FK__FLAT_VOLUME (16.0f * FLT_EPSILON)

static int fk__mirrors(float determinant, float size_a, float size_b, float size_c)
{
    return determinant < -FK__FLAT_VOLUME * (size_a * size_b * size_c);
}

static float fk__vec3_size(fk_vec3 v) { return (fabsf(v.x) + fabsf(v.y)) + fabsf(v.z); }

static fk_vec3 fk__cofactor_normal(const float blend[FK__LBS_BONE_FLOATS], fk_vec3 n)
{
    /* The cofactors are products of two columns and the determinant of three:
       columns beyond 2^40 or below 2^-40 (huge or tiny weights) are divided by
       their largest entry first, which changes no direction or sign. */
    const float range = 1099511627776.0f;
    fk_vec3 a = fk_vec3_make(blend[0], blend[1], blend[2]), b = fk_vec3_make(blend[4], blend[5], blend[6]);
    fk_vec3 c = fk_vec3_make(blend[8], blend[9], blend[10]), bc, ca, ab, m;
    float largest = 0.0f;
    int e;
    for (e = 0; e < 11; ++e)
        if (fabsf(blend[e]) > largest && e % 4 != 3) largest = fabsf(blend[e]);
    if ((largest > range || largest < 1.0f / range) && largest > 0.0f && largest <= FLT_MAX) {
        a = fk_vec3_make(a.x / largest, a.y / largest, a.z / largest); /* no reciprocal: it could overflow */
        b = fk_vec3_make(b.x / largest, b.y / largest, b.z / largest);
        c = fk_vec3_make(c.x / largest, c.y / largest, c.z / largest);
    }
    bc = fk_vec3_cross(b, c); ca = fk_vec3_cross(c, a); ab = fk_vec3_cross(a, b);
    m = fk_vec3_make(bc.x * n.x + ca.x * n.y + ab.x * n.z, bc.y * n.x + ca.y * n.y + ab.y * n.z,
                     bc.z * n.x + ca.z * n.y + ab.z * n.z);
    return fk__mirrors(fk_vec3_dot(a, bc), fk__vec3_size(a), fk__vec3_size(b), fk__vec3_size(c))
               ? fk_vec3_make(-m.x, -m.y, -m.z) : m;
}

/* Rigs larger than the palette convert each bone as it is used. A vertex's
   neighbours in a mesh mostly use the same bones, so the last few converted
   are kept, a slot per joint index modulo their count: a bone with scale costs
   its split into rigid and scale parts in double (fk__dqs_scaled_bone()), far
   more than the blend that uses it. A slot holds
   the largest entry, a bone with scale's (FK__DQS_SCALED_STRIDE floats). */
#define FK__BONE_CACHE_SLOTS 16
#define FK__BONE_CACHE_FLOATS 44

typedef struct fk__bone_cache {
    void (*convert)(const fk_skin_desc *, int, float *);
    int joint[FK__BONE_CACHE_SLOTS];
    float bone[FK__BONE_CACHE_SLOTS][FK__BONE_CACHE_FLOATS];
} fk__bone_cache;

static void fk__bone_cache_start(fk__bone_cache *cache, void (*convert)(const fk_skin_desc *, int, float *))
{
    int slot;
    cache->convert = convert;
    for (slot = 0; slot < FK__BONE_CACHE_SLOTS; ++slot) cache->joint[slot] = -1;
}

static FK__NOINLINE const float *fk__bone_converted(const fk_skin_desc *d, fk__bone_cache *cache, int joint)
{
    const int slot = joint % FK__BONE_CACHE_SLOTS;
    cache->convert(d, joint, cache->bone[slot]);
    cache->joint[slot] = joint;
    return cache->bone[slot];
}

/* Bone `joint` as the palette would hold it, from the cache. */
static const float *fk__cached_bone(const fk_skin_desc *d, fk__bone_cache *cache, int joint)
{
    const int slot = joint % FK__BONE_CACHE_SLOTS;
    if (cache->joint[slot] == joint) return cache->bone[slot];
    return fk__bone_converted(d, cache, joint);
}

/* Reference LBS over vertices [begin, end), its bones from the palette or,
   with a NULL palette (rigs larger than FK_LBS_PALETTE_CAPACITY), from the cache. */
static fk_result fk__lbs_reference_from(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette,
                                        fk__bone_cache *cache, int begin, int end)
{
    int i, k, e;
    for (i = begin; i < end; ++i) {
        float blend[FK__LBS_BONE_FLOATS] = {0.0f};
        fk_vec3 p, n;
        fk__tangent tangent = {{0.0f, 0.0f, 0.0f}, {0}};
        for (k = 0; k < d->influences; ++k) {
            const float *m, weight = fk__influence_weight(d, layout, i, k);
            int joint = fk__influence_joint(d, layout, i, k);
            if (joint < 0) return FK_ERROR_JOINT_OUT_OF_RANGE;
            m = palette ? palette + (size_t)joint * FK__LBS_BONE_FLOATS : fk__cached_bone(d, cache, joint);
            for (e = 0; e < FK__LBS_BONE_FLOATS; ++e) blend[e] += weight * m[e];
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
            fk_vec3 moved = d->matrices ? fk__cofactor_normal(blend, n)
                                        : fk_vec3_make(blend[0] * n.x + blend[4] * n.y + blend[8] * n.z,
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

/* The cache takes stack only in calls without a palette: the fast paths call
   the reference loop for single vertices, on top of their own frames. */
static FK__NOINLINE fk_result fk__lbs_reference_by_use(const fk_skin_desc *d, const fk__skin_layout *layout, int begin,
                                                       int end)
{
    fk__bone_cache cache;
    fk__bone_cache_start(&cache, fk__lbs_bone_of);
    return fk__lbs_reference_from(d, layout, NULL, &cache, begin, end);
}

static fk_result fk__lbs_reference(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette,
                                   int begin, int end)
{
    if (!palette) return fk__lbs_reference_by_use(d, layout, begin, end);
    return fk__lbs_reference_from(d, layout, palette, NULL, begin, end);
}

/* The influence whose rotation sets the hemisphere: the heaviest, the first of
   equals, so that the order the influences are listed in changes nothing. */
static int fk__heaviest(const fk_skin_desc *d, const fk__skin_layout *layout, int vertex)
{
    int k, heaviest = 0;
    for (k = 1; k < d->influences; ++k)
        if (fk__influence_weight(d, layout, vertex, k) > fk__influence_weight(d, layout, vertex, heaviest)) heaviest = k;
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

/* ---- Skinning: DQS of bones with scale ---------------------------------------
   A dual quaternion holds a rotation and a translation, nothing more, so a bone
   with scale or shear is split, as Kavan et al. (2008) do for non-rigid joints
   and as Blender's Armature modifier does with Preserve Volume, into a scale part
   applied to the vertex first and a rigid part that DQS blends. The split is
   made in the bone's own frame: with B the bone's rest frame (rigid) and
   M = P B^-1 its skinning matrix, P = M B is the posed frame, whose columns are
   the bone's axes. Its rotation R_P keeps the bone's y axis (the bone's length
   in Blender's rigs) and makes x and z orthogonal to it, the way Blender's
   orthogonalize_m4(P, 1) does, and the rest of P is S = R_P^-1 P, the scale and
   shear along the bone's own axes. Then
       M = [R_P | t_P] B^-1  *  B S B^-1,
   a rigid motion (dual quaternion q + eps d) after the affine "scale part"
   S_k = B S B^-1 = [A_k | c_k], which scales about the bone's rest origin along
   its rest axes. A vertex blends the scale parts linearly (weights as given,
   divided by their sum, so that bones without scale count as the identity);
   fk_skin_desc::dqs_scale_center then says where the scale is centred:
   - at the bone (FK_DQS_SCALE_AT_BONE, Blender 3.4): the blended scale part
     moves the vertex p first, then the blended dual quaternion moves it.
     tests/test_realdata.c compares with Blender 3.4's own output (Blender signs
     each rotation by the running sum instead of the heaviest influence, which
     differs only where a vertex's bones are more than a half turn apart);
   - at the vertex (FK_DQS_SCALE_AT_VERTEX, the default, as later Blender
     versions do): p is not scaled; each bone's rigid part carries instead the
     displacement its scale part gives p, u_k = S_k p - p, in its dual part:
     d_k + q_k (u_k, 0) / 2. That is affine in p, e_k + G_k p with
         e_k = d_k + L(q_k) c_k / 2,   G_k = L(q_k) (A_k - I) / 2,
     L(q) u = q (u, 0) (a 4x3 matrix), both computed once per bone, so that a
     vertex blends e + G p like any other part of its bones.
   Normals go through the blended scale part's cofactors (as affine LBS's do),
   are renormalized and rotated; tangents through its linear part. */

/* The palette entry of a bone with scale (44 floats): its dual quaternion
   q + eps e and negation (as fk__dqs_palette_bone()), G by columns (the change
   of the dual part with p's x, y and z; zero for a scale centred at the bone),
   then the scale part by columns as fk__lbs_bone() stores a matrix, with a 1 in
   the first column's unused fourth place, so that blending it sums the weights. */
#define FK__DQS_SCALED_STRIDE 44
typedef char fk__bone_cache_holds_bones_with_scale[FK__BONE_CACHE_FLOATS >= FK__DQS_SCALED_STRIDE ? 1 : -1];
#define FK__DQS_MOTION_AT 16
#define FK__DQS_SCALE_AT 28

static void fk__vec3d_normalize(double v[3])
{
    double length = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (length > 0.0) { v[0] /= length; v[1] /= length; v[2] /= length; }
}

static void fk__vec3d_cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* R_P of the posed frame's columns x, y, z (rotation's columns out), by
   Blender's orthogonalize_m4(P, 1) and its three cases: y normalized; then z
   from x and y, or x from y and z when x reaches too far along y, or x from a
   fixed permutation of y. A bone scaled to zero along y keeps its rest y. */
static void fk__bone_rotation(const double x[3], const double y[3], const double z[3], const double rest_y[3],
                              double out_x[3], double out_y[3], double out_z[3])
{
    memcpy(out_y, y, sizeof(double) * 3);
    fk__vec3d_normalize(out_y);
    if (out_y[0] == 0.0 && out_y[1] == 0.0 && out_y[2] == 0.0) memcpy(out_y, rest_y, sizeof(double) * 3);
    if (out_y[0] * x[0] + out_y[1] * x[1] + out_y[2] * x[2] < 1.0) {
        fk__vec3d_cross(x, out_y, out_z);
        fk__vec3d_normalize(out_z);
        fk__vec3d_cross(out_y, out_z, out_x);
    } else if (x[0] * z[0] + x[1] * z[1] + x[2] * z[2] < 1.0) {
        fk__vec3d_cross(out_y, z, out_x);
        fk__vec3d_normalize(out_x);
        fk__vec3d_cross(out_x, out_y, out_z);
    } else {
        const double turned[3] = {out_y[1], out_y[2], out_y[0]};
        fk__vec3d_cross(out_y, turned, out_x);
        fk__vec3d_normalize(out_x);
        fk__vec3d_cross(out_x, out_y, out_z);
    }
}

/* The parts of a scale centred at the vertex, e = d + L(q) c / 2 and
   G = L(q) (A - I) / 2, from the entry's own (rounded) q, d, A and c, in double. */
static void fk__dqs_centre_at_vertex(float out[FK__DQS_SCALED_STRIDE])
{
    const float *q = out, *scale = out + FK__DQS_SCALE_AT;
    int column, e;
    for (column = 0; column < 4; ++column) {
        double u[3], product[4];
        for (e = 0; e < 3; ++e) u[e] = (double)scale[4 * column + e] - (column == e ? 1.0 : 0.0);
        product[0] = (double)q[3] * u[0] + ((double)q[1] * u[2] - (double)q[2] * u[1]);
        product[1] = (double)q[3] * u[1] + ((double)q[2] * u[0] - (double)q[0] * u[2]);
        product[2] = (double)q[3] * u[2] + ((double)q[0] * u[1] - (double)q[1] * u[0]);
        product[3] = -((double)q[0] * u[0] + (double)q[1] * u[1] + (double)q[2] * u[2]);
        for (e = 0; e < 4; ++e)
            if (column < 3) out[FK__DQS_MOTION_AT + 4 * column + e] = (float)(0.5 * product[e]);
            else out[4 + e] = (float)((double)out[4 + e] + 0.5 * product[e]); /* the dual part */
    }
    fk__dqs_append_negation(out);
}

/* A bone's palette entry for DQS with scale (see above); a rigid matrix gives
   its own dual quaternion and the identity scale part. */
static FK__CLANG_SMALL void fk__dqs_scaled_bone(const float matrix[12], const fk_rigid *bind, int centre_at_vertex,
                                          float out[FK__DQS_SCALED_STRIDE])
{
    double m[12], b[12], posed[12], x[3], y[3], z[3], rest_y[3], rx[3], ry[3], rz[3], rotation[9], b_inverse_r[9];
    double stretch[9], scale[9];
    float rigid_b[12], translation[3];
    fk_rigid rigid;
    int row, col, e;
    memset(out, 0, sizeof(float) * FK__DQS_SCALED_STRIDE);
    if (fk__mat34_is_rigid(matrix)) {
        rigid = fk_rigid_from_mat34(matrix);
        fk__dqs_palette_bone(&rigid, out);
        out[FK__DQS_SCALE_AT] = out[FK__DQS_SCALE_AT + 5] = out[FK__DQS_SCALE_AT + 10] = 1.0f; /* the identity */
        out[FK__DQS_SCALE_AT + 3] = 1.0f;
        return;
    }
    fk_rigid_to_mat34(fk_rigid_make(fk_quat_normalize(bind->q), bind->t), rigid_b);
    fk__mat34_to_double(matrix, m);
    fk__mat34_to_double(rigid_b, b);
    fk__mat34_mul_double(m, b, posed);
    for (e = 0; e < 3; ++e) {
        x[e] = posed[4 * e]; y[e] = posed[4 * e + 1]; z[e] = posed[4 * e + 2];
        rest_y[e] = b[4 * e + 1];
    }
    fk__bone_rotation(x, y, z, rest_y, rx, ry, rz);
    for (e = 0; e < 3; ++e) { rotation[3 * e] = rx[e]; rotation[3 * e + 1] = ry[e]; rotation[3 * e + 2] = rz[e]; }
    /* S = R_P^T P (the bone's scale and shear), rigid part R_P B_R^T, scale
       part B_R S B_R^T about the rest origin */
    for (row = 0; row < 3; ++row)
        for (col = 0; col < 3; ++col) {
            stretch[3 * row + col] = rotation[row] * posed[col] + rotation[3 + row] * posed[4 + col] +
                                     rotation[6 + row] * posed[8 + col];
            b_inverse_r[3 * row + col] = rotation[3 * row] * b[4 * col] + rotation[3 * row + 1] * b[4 * col + 1] +
                                         rotation[3 * row + 2] * b[4 * col + 2];
        }
    for (row = 0; row < 3; ++row)
        for (col = 0; col < 3; ++col) {
            double sum = 0.0;
            int i, j;
            for (i = 0; i < 3; ++i)
                for (j = 0; j < 3; ++j) sum += b[4 * row + i] * stretch[3 * i + j] * b[4 * col + j];
            scale[3 * row + col] = sum;
        }
    for (row = 0; row < 3; ++row) {
        translation[row] = (float)(posed[4 * row + 3] - (b_inverse_r[3 * row] * b[3] + b_inverse_r[3 * row + 1] * b[7] +
                                                         b_inverse_r[3 * row + 2] * b[11]));
        for (col = 0; col < 3; ++col) out[FK__DQS_SCALE_AT + 4 * col + row] = (float)scale[3 * row + col];
        out[FK__DQS_SCALE_AT + 12 + row] =
            (float)(b[4 * row + 3] - (scale[3 * row] * b[3] + scale[3 * row + 1] * b[7] + scale[3 * row + 2] * b[11]));
    }
    rigid = fk_rigid_make(fk__quat_from_mat3_double(b_inverse_r),
                          fk_vec3_make(translation[0], translation[1], translation[2]));
    fk__dqs_palette_bone(&rigid, out);
    out[FK__DQS_SCALE_AT + 3] = 1.0f;
    if (centre_at_vertex) fk__dqs_centre_at_vertex(out);
}

static void fk__dqs_scaled_palette_bone_of(const fk_skin_desc *d, int joint, float *out)
{
    fk__dqs_scaled_bone(d->matrices + 12 * (size_t)joint, &d->bind_poses[joint],
                        d->dqs_scale_center == FK_DQS_SCALE_AT_VERTEX, out);
}

/* Reference DQS over vertices [begin, end), of rigid bones (palette as in
   fk__lbs_reference()) or of bones with scale (their palette entries above);
   with a NULL palette, its bones from the cache. */
static fk_result fk__dqs_reference_from(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette,
                                        fk__bone_cache *cache, int begin, int end, int scaled)
{
    const size_t stride = scaled ? FK__DQS_SCALED_STRIDE : FK__DQS_PALETTE_STRIDE;
    const int at_vertex = scaled && d->dqs_scale_center == FK_DQS_SCALE_AT_VERTEX;
    int i, k, e, pivot_joint;
    for (i = begin; i < end; ++i) {
        fk_quat real = fk_quat_make(0.0f, 0.0f, 0.0f, 0.0f), dual = real, pivot;
        float scale[FK__LBS_BONE_FLOATS] = {0.0f}, total = 0.0f;
        const float *b;
        fk_vec3 p = fk__load3(fk__float_at(d->positions, layout->position_stride, i)), n;
        fk__tangent tangent = {{0.0f, 0.0f, 0.0f}, {0}};
        for (k = 0; k < d->influences; ++k)
            if (fk__influence_joint(d, layout, i, k) < 0) return FK_ERROR_JOINT_OUT_OF_RANGE;
        pivot_joint = fk__influence_joint(d, layout, i, fk__heaviest(d, layout, i));
        b = palette ? palette + (size_t)pivot_joint * stride : fk__cached_bone(d, cache, pivot_joint);
        pivot = fk_quat_make(b[0], b[1], b[2], b[3]);
        for (k = 0; k < d->influences; ++k) {
            int joint = fk__influence_joint(d, layout, i, k);
            const float weight = fk__influence_weight(d, layout, i, k);
            float w;
            b = palette ? palette + (size_t)joint * stride : fk__cached_bone(d, cache, joint);
            /* q and -q are one rotation but blend to different results; bringing
               every rotation into the heaviest influence's hemisphere makes the
               blend take the short way and makes it independent of the signs
               given and of the order the influences are listed in. */
            w = fk_quat_dot(pivot, fk_quat_make(b[0], b[1], b[2], b[3])) < 0.0f ? -weight : weight;
            real = fk_quat_make(real.x + w * b[0], real.y + w * b[1], real.z + w * b[2], real.w + w * b[3]);
            if (at_vertex) { /* the dual part e + G p */
                const float *g = b + FK__DQS_MOTION_AT;
                dual = fk_quat_make(dual.x + w * (b[4] + (g[0] * p.x + g[4] * p.y + g[8] * p.z)),
                                    dual.y + w * (b[5] + (g[1] * p.x + g[5] * p.y + g[9] * p.z)),
                                    dual.z + w * (b[6] + (g[2] * p.x + g[6] * p.y + g[10] * p.z)),
                                    dual.w + w * (b[7] + (g[3] * p.x + g[7] * p.y + g[11] * p.z)));
            } else {
                dual = fk_quat_make(dual.x + w * b[4], dual.y + w * b[5], dual.z + w * b[6], dual.w + w * b[7]);
            }
            if (scaled) {
                for (e = 0; e < FK__LBS_BONE_FLOATS; ++e) scale[e] += weight * b[FK__DQS_SCALE_AT + e];
                total += weight;
            }
        }
        n = d->normals ? fk__load3(fk__float_at(d->normals, layout->normal_stride, i)) : p;
        if (d->tangents) tangent = fk__load_tangent(fk__float_at(d->tangents, layout->tangent_stride, i));
        if (total != 0.0f) { /* the blended scale part first; rigid bones or all weights zero: none */
            for (e = 0; e < FK__LBS_BONE_FLOATS; ++e) scale[e] /= total;
            if (d->normals) n = fk_vec3_normalize(fk__cofactor_normal(scale, n));
            if (d->tangents)
                tangent.xyz = fk_vec3_make(scale[0] * tangent.xyz.x + scale[4] * tangent.xyz.y + scale[8] * tangent.xyz.z,
                                           scale[1] * tangent.xyz.x + scale[5] * tangent.xyz.y + scale[9] * tangent.xyz.z,
                                           scale[2] * tangent.xyz.x + scale[6] * tangent.xyz.y + scale[10] * tangent.xyz.z);
            if (!at_vertex) /* at the vertex, the blended scale part leaves p where it is */
                p = fk_vec3_make(scale[0] * p.x + scale[4] * p.y + scale[8] * p.z + scale[12],
                                 scale[1] * p.x + scale[5] * p.y + scale[9] * p.z + scale[13],
                                 scale[2] * p.x + scale[6] * p.y + scale[10] * p.z + scale[14]);
        }
        real = fk__dqs_finish(real, dual, &p, &n);
        fk__store3(fk__out_at(d->out_positions, layout->out_position_stride, i), p);
        if (d->normals) fk__store3(fk__out_at(d->out_normals, layout->out_normal_stride, i), n);
        if (d->tangents)
            fk__store_tangent(fk__out_at(d->out_tangents, layout->out_tangent_stride, i),
                              fk_vec3_normalize(fk_quat_rotate(real, tangent.xyz)), &tangent);
    }
    return FK_OK;
}

static FK__NOINLINE fk_result fk__dqs_reference_by_use(const fk_skin_desc *d, const fk__skin_layout *layout, int begin,
                                                       int end, int scaled)
{
    fk__bone_cache cache;
    fk__bone_cache_start(&cache, scaled ? fk__dqs_scaled_palette_bone_of : fk__dqs_bone_of);
    return fk__dqs_reference_from(d, layout, NULL, &cache, begin, end, scaled);
}

static fk_result fk__dqs_reference_of(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette,
                                      int begin, int end, int scaled)
{
    if (!palette) return fk__dqs_reference_by_use(d, layout, begin, end, scaled);
    return fk__dqs_reference_from(d, layout, palette, NULL, begin, end, scaled);
}

static fk_result fk__dqs_reference(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette,
                                   int begin, int end)
{
    return fk__dqs_reference_of(d, layout, palette, begin, end, 0);
}

static fk_result fk__dqs_scaled_reference(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette,
                                          int begin, int end)
{
    return fk__dqs_reference_of(d, layout, palette, begin, end, 1);
}

/* ---- Skinning: the public functions ---------------------------------------- */

/* The fast paths (see FAST PATHS): return 1 and set *result when they skinned
   the call, 0 when it is the reference loops'. */
static int fk__lbs_fast(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette, void *tables,
                        fk_result *result);
static int fk__dqs_fast(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette, void *tables,
                        fk_result *result);
static int fk__dqs_scaled_fast(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette,
                               void *tables, fk_result *result);

/* Both skinning functions, once they have checked the descriptor
   (fk__check_skin(), whose layout this takes): convert every bone once (in
   the caller's scratch memory when it is large enough, else on the stack when
   the rig fits the palette; otherwise the reference loop converts each bone
   as it is used), then skin by the fast path when it takes
   the call, else by the reference loop. A palette entry is bone_floats floats
   (16: an LBS matrix, or a DQS dual quaternion and its negation; 44 for a bone
   with scale, so that fewer bones fit). */
typedef int (*fk__fast_skin)(const fk_skin_desc *, const fk__skin_layout *, const float *, void *, fk_result *);
typedef fk_result (*fk__reference_skin)(const fk_skin_desc *, const fk__skin_layout *, const float *, int, int);

/* The caller's scratch memory (fk_skin_scratch_size()): the palette at its
   first 64-byte boundary, then the fast paths' tables at the next; each part's
   size is a multiple of 64 bytes, or (size_t)-1 when it overflows. */
static size_t fk__round64(size_t count, size_t bytes)
{
    if (count > (((size_t)-1) - 64) / bytes) return (size_t)-1;
    return (count * bytes + 63) / 64 * 64;
}

static size_t fk__scratch_sum(size_t palette_bytes, size_t table_bytes)
{
    if (palette_bytes == (size_t)-1 || table_bytes == (size_t)-1 || table_bytes > ((size_t)-1) - 64 - palette_bytes)
        return (size_t)-1;
    return 64 + palette_bytes + table_bytes;
}

static void *fk__align64_bytes(void *p)
{
    size_t misalignment = (size_t)(char *)p % 64;
    return misalignment ? (char *)p + (64 - misalignment) : p;
}

/* Converts every bone into the palette, then skins by the fast path when it
   takes the call, else by the reference loop; tables: the fast paths' share of
   the scratch, or NULL (their own on the stack). */
static fk_result fk__skin_with(const fk_skin_desc *desc, const fk__skin_layout *layout, float *palette,
                               size_t bone_floats, void (*convert)(const fk_skin_desc *, int, float *),
                               void *tables, fk__fast_skin fast, fk__reference_skin reference)
{
    const int *named = layout->named_bones;
    fk_result result;
    int j, n = named ? named[0] : desc->transform_count;
    for (j = 0; palette && j < n; ++j) {
        const int bone = named ? named[1 + j] : j;
        convert(desc, bone, palette + (size_t)bone * bone_floats);
    }
    if (fast(desc, layout, palette, tables, &result)) return result;
    return reference(desc, layout, palette, 0, desc->vertex_count);
}

/* Out of line, so that a call with scratch memory has no palette on its stack. */
static FK__NOINLINE fk_result fk__skin_on_stack(const fk_skin_desc *desc, const fk__skin_layout *layout,
                                                size_t bone_floats, void (*convert)(const fk_skin_desc *, int, float *),
                                                fk__fast_skin fast, fk__reference_skin reference)
{
    float storage[FK_LBS_PALETTE_CAPACITY * 16 + 16], *palette = NULL;
    if ((size_t)desc->transform_count * bone_floats <= (size_t)FK_LBS_PALETTE_CAPACITY * 16)
        palette = fk__align64(storage);
    return fk__skin_with(desc, layout, palette, bone_floats, convert, NULL, fast, reference);
}

/* fk_skin_cor()'s palette entries (Centres of rotation: skinning): an LBS
   bone, its unit rotation, and with scale the scale part's linear columns. */
#define FK__COR_BONE_FLOATS 20
#define FK__COR_SCALED_FLOATS 32

/* Rigs of bones with scale past this many bones, in scratch memory, convert
   only the bones their vertices name (DQS and CoR): such a bone costs its
   split into rigid and scale parts and, centred at the vertex, a row of sign
   bits as long as the rig, far more than the pass over the joint lists that
   names them. The
   scratch then holds after the palette a mark a bone and the list of those
   marked (its length first); naming too many is harmless, so the pass names
   every index in range and skips the others, which the skinning reports as
   ever. Centred at the bone, and for CoR, naming saves only conversions: a
   call whose joint lists are long against the rig converts every bone
   instead, a bone with scale costing about as much as naming
   FK__NAMING_INDICES_PER_BONE indices (tests/test_simd.c lowers it, so that
   its small meshes take both routes). */
#define FK__NAMING_PAST 128
#ifndef FK__NAMING_INDICES_PER_BONE
#define FK__NAMING_INDICES_PER_BONE 640
#endif

static int fk__names_bones(const fk_skin_desc *d) { return d->transform_count > FK__NAMING_PAST && d->joints; }

static size_t fk__naming_bytes(const fk_skin_desc *d)
{
    const size_t n = (size_t)d->transform_count;
    return fk__names_bones(d) ? fk__scratch_sum(fk__round64(n, 1), fk__round64(n + 1, sizeof(int))) - 64 : 0;
}

/* Whether a call with room to name its bones (fk__naming_bytes()) does:
   centred at the vertex always, as naming also shortens the rows of sign
   bits; otherwise when its joint indices cost less to name than the bones
   they leave unconverted. */
static int fk__naming_pays(const fk_skin_desc *d, size_t bone_floats)
{
    return (bone_floats == FK__DQS_SCALED_STRIDE && d->dqs_scale_center == FK_DQS_SCALE_AT_VERTEX) ||
           (double)d->vertex_count * d->influences < (double)FK__NAMING_INDICES_PER_BONE * d->transform_count;
}

/* The descriptor's fields in locals: a store through named (bytes) could
   change them, and they would be read again for every index. Packed uint16_t
   lists, the usual case, are read as one run of indices, without the inner
   loop over a list whose length is known only at run time. */
static void fk__name_bones_of(const fk_skin_desc *d, const char *p, size_t stride, int elements, unsigned char *named)
{
    const size_t n = (size_t)d->vertex_count, count = (size_t)elements;
    const int bones = d->transform_count, u8 = d->joint_format == FK_JOINTS_U8;
    size_t v, e;
    uint16_t joint;
    if (!u8 && stride == count * sizeof joint) {
        for (v = 0; v < n * count; ++v) {
            memcpy(&joint, p + v * sizeof joint, sizeof joint);
            if (joint < bones) named[joint] = 1;
        }
        return;
    }
    for (v = 0; v < n; ++v)
        for (e = 0; e < count; ++e) {
            if (u8) joint = (unsigned char)p[v * stride + e];
            else memcpy(&joint, p + v * stride + 2 * e, sizeof joint);
            if (joint < bones) named[joint] = 1;
        }
}

static FK__NOINLINE void fk__name_bones(const fk_skin_desc *d, const fk__skin_layout *layout, unsigned char *named,
                                        int *list)
{
    int j;
    memset(named, 0, (size_t)d->transform_count);
    fk__name_bones_of(d, (const char *)d->joints, layout->joint_stride, d->joints2 ? 4 : d->influences, named);
    if (d->joints2)
        fk__name_bones_of(d, (const char *)d->joints2, layout->joint2_stride, d->influences - 4, named);
    for (list[0] = 0, j = 0; j < d->transform_count; ++j)
        if (named[j]) list[1 + list[0]++] = j;
}

/* table_bytes: what the fast path keeps beside the palette in the scratch,
   after fk__naming_bytes(). */
static fk_result fk__skin(const fk_skin_desc *desc, const fk__skin_layout *layout, size_t bone_floats,
                          size_t table_bytes, void (*convert)(const fk_skin_desc *, int, float *), fk__fast_skin fast,
                          fk__reference_skin reference)
{
    const size_t palette_bytes = fk__round64((size_t)desc->transform_count, bone_floats * sizeof(float));
    const size_t naming =
        bone_floats == FK__DQS_SCALED_STRIDE || bone_floats == FK__COR_SCALED_FLOATS ? fk__naming_bytes(desc) : 0;
    fk__skin_layout named = *layout;
    char *palette;
    if (!desc->scratch || desc->transform_count == 0 ||
        desc->scratch_size < fk__scratch_sum(palette_bytes, fk__scratch_sum(naming, table_bytes) - 64))
        return fk__skin_on_stack(desc, layout, bone_floats, convert, fast, reference);
    palette = (char *)fk__align64_bytes(desc->scratch);
    if (naming && fk__naming_pays(desc, bone_floats)) {
        int *list = (int *)(void *)(palette + palette_bytes + fk__round64((size_t)desc->transform_count, 1));
        FK__TEST_BONES_NAMED();
        fk__name_bones(desc, layout, (unsigned char *)palette + palette_bytes, list);
        named.named_bones = list;
    }
    return fk__skin_with(desc, &named, (float *)(void *)palette, bone_floats, convert, palette + palette_bytes + naming,
                         fast, reference);
}

/* The fast paths' tables: DQS of bones with scale keeps a bit per pair of
   bones centred at the vertex, and copies of the palette's parts centred at
   the bone (see FAST PATHS). */
static size_t fk__dqs_scaled_table_bytes(const fk_skin_desc *d)
{
    const size_t n = (size_t)d->transform_count, parts = fk__round64(n, FK__LBS_BONE_FLOATS * sizeof(float));
    if (d->dqs_scale_center == FK_DQS_SCALE_AT_BONE) return parts == (size_t)-1 ? parts : fk__scratch_sum(parts, parts) - 64;
    return fk__round64(n, sizeof(uint64_t) * ((n + 63) / 64));
}

/* What fk_skin_cor()'s fast path keeps beside the palette: for bones with
   scale, copies of the scale parts and rigid parts (fk__scaled_in_two()). */
static size_t fk__cor_table_bytes(const fk_skin_desc *d, int scaled)
{
    const size_t n = (size_t)d->transform_count;
    return scaled ? fk__scratch_sum(fk__round64(n, FK__LBS_BONE_FLOATS * sizeof(float)),
                                    fk__round64(n, FK__COR_BONE_FLOATS * sizeof(float))) - 64
                  : 0;
}

FK_LBS_DEF size_t fk_skin_scratch_size(const fk_skin_desc *desc, fk_skin_method method)
{
    int scaled = 0;
    size_t n;
    if (!desc || desc->transform_count <= 0 || (unsigned)method > FK_SKIN_COR) return 0;
    n = (size_t)desc->transform_count;
    if (method != FK_SKIN_LBS) (void)fk__dqs_bones_scaled(desc, &scaled);
    if (method == FK_SKIN_COR)
        return fk__scratch_sum(fk__round64(n, (scaled ? FK__COR_SCALED_FLOATS : FK__COR_BONE_FLOATS) * sizeof(float)),
                               fk__scratch_sum(scaled ? fk__naming_bytes(desc) : 0, fk__cor_table_bytes(desc, scaled)) -
                                   64);
    if (!scaled) return fk__scratch_sum(fk__round64(n, FK__LBS_BONE_FLOATS * sizeof(float)), 0);
    return fk__scratch_sum(fk__round64(n, FK__DQS_SCALED_STRIDE * sizeof(float)),
                           fk__scratch_sum(fk__naming_bytes(desc), fk__dqs_scaled_table_bytes(desc)) - 64);
}

FK_LBS_DEF fk_result fk_skin_lbs(const fk_skin_desc *desc)
{
    fk__skin_layout layout;
    fk_result result = fk__check_skin(desc, &layout);
    if (result != FK_OK) return result;
    return fk__skin(desc, &layout, FK__LBS_BONE_FLOATS, 0, fk__lbs_bone_of, fk__lbs_fast, fk__lbs_reference);
}

FK_LBS_DEF fk_result fk_skin_dqs(const fk_skin_desc *desc)
{
    fk__skin_layout layout;
    fk_result result = fk__check_skin(desc, &layout);
    int scaled;
    if (result == FK_OK) result = fk__dqs_bones_scaled(desc, &scaled);
    if (result != FK_OK) return result;
    if (scaled)
        return fk__skin(desc, &layout, FK__DQS_SCALED_STRIDE, fk__dqs_scaled_table_bytes(desc),
                        fk__dqs_scaled_palette_bone_of, fk__dqs_scaled_fast, fk__dqs_scaled_reference);
    return fk__skin(desc, &layout, FK__DQS_PALETTE_STRIDE, 0, fk__dqs_palette_bone_of, fk__dqs_fast,
                    fk__dqs_reference);
}

/* ---- Shader palettes -----------------------------------------------------------
   Each entry is the skinning loops' own palette entry (fk__lbs_bone(),
   fk__dqs_bone(), fk__dqs_scaled_bone()) in the layout shaders take. The DQS
   palettes sign the bones in place, in any order: every entry is first put in a
   canonical sign (w > 0, or the first nonzero of z, y, x when w is 0), which
   negating it does not change, so a bone's path can be read canonically
   whether its bones have been signed yet or not. Bone i is then negated when
   an odd number of the links on its path to the root join canonical rotations
   with a negative dot product. */

/* -1 or 1: the sign that puts a rotation in canonical sign. */
static float fk__canonical_sign(const float q[4])
{
    const float first = q[3] != 0.0f ? q[3] : q[2] != 0.0f ? q[2] : q[1] != 0.0f ? q[1] : q[0];
    return first < 0.0f ? -1.0f : 1.0f;
}

static void fk__palette_sign_bones(int bone_count, const int *parents, float *dual_quats)
{
    int j, i, parent, e;
    for (j = 0; j < bone_count; ++j) {
        float *bone = dual_quats + FK__DQS_BONE_FLOATS * (size_t)j, sign = fk__canonical_sign(bone);
        for (i = j; parents && (parent = fk__parent_index(parents, i)) >= 0; i = parent) {
            const float *q = dual_quats + FK__DQS_BONE_FLOATS * (size_t)i;
            const float *p = dual_quats + FK__DQS_BONE_FLOATS * (size_t)parent;
            const float dot = fk__canonical_sign(q) * fk__canonical_sign(p) * (q[0] * p[0] + q[1] * p[1] + q[2] * p[2] + q[3] * p[3]);
            if (dot < 0.0f) sign = -sign;
        }
        for (e = 0; e < FK__DQS_BONE_FLOATS; ++e) bone[e] *= sign;
    }
}

/* The checks every palette makes; the rigid bones, or the scaled palette's
   rest frames, in `bones`. */
static fk_result fk__check_palette(int bone_count, const int *parents, const fk_rigid *bones, const void *out)
{
    fk_result result;
    int j;
    if (bone_count < 0) return FK_ERROR_INVALID_COUNT;
    if (bone_count > 0 && (!bones || !out)) return FK_ERROR_NULL_ARGUMENT;
    for (j = 0; j < bone_count; ++j)
        if ((result = fk__check_rigid(&bones[j])) != FK_OK) return result;
    return parents ? fk_validate_skeleton(bone_count, parents) : FK_OK;
}

FK_LBS_DEF fk_result fk_palette_matrices(int bone_count, const fk_rigid *transforms, float *out_matrices)
{
    float bone[FK__LBS_BONE_FLOATS];
    const fk_result result = fk__check_palette(bone_count, NULL, transforms, out_matrices);
    int j, row, column;
    if (result != FK_OK) return result;
    for (j = 0; j < bone_count; ++j) {
        fk__lbs_bone(&transforms[j], bone);
        for (row = 0; row < 3; ++row)
            for (column = 0; column < 4; ++column) out_matrices[12 * (size_t)j + (size_t)(4 * row + column)] = bone[4 * column + row];
    }
    return FK_OK;
}

FK_LBS_DEF fk_result fk_palette_dual_quats(int bone_count, const int *parents, const fk_rigid *transforms,
                                           float *out_dual_quats)
{
    const fk_result result = fk__check_palette(bone_count, parents, transforms, out_dual_quats);
    int j;
    if (result != FK_OK) return result;
    for (j = 0; j < bone_count; ++j) fk__dqs_bone(&transforms[j], out_dual_quats + FK__DQS_BONE_FLOATS * (size_t)j);
    fk__palette_sign_bones(bone_count, parents, out_dual_quats);
    return FK_OK;
}

FK_LBS_DEF fk_result fk_palette_dual_quats_scaled(int bone_count, const int *parents, const float *matrices,
                                                  const fk_rigid *bind_poses, float *out_dual_quats,
                                                  float *out_scale_parts)
{
    float entry[FK__DQS_SCALED_STRIDE];
    fk_result result = fk__check_palette(bone_count, parents, bind_poses, out_dual_quats);
    int j, row, column;
    if (result != FK_OK) return result;
    if (bone_count > 0 && (!matrices || !out_scale_parts)) return FK_ERROR_NULL_ARGUMENT;
    for (j = 0; j < bone_count; ++j)
        if (!fk__mat34_is_finite(matrices + 12 * (size_t)j)) return FK_ERROR_NOT_FINITE;
    for (j = 0; j < bone_count; ++j) {
        fk__dqs_scaled_bone(matrices + 12 * (size_t)j, &bind_poses[j], 0, entry);
        memcpy(out_dual_quats + FK__DQS_BONE_FLOATS * (size_t)j, entry, sizeof(float) * FK__DQS_BONE_FLOATS);
        for (row = 0; row < 3; ++row)
            for (column = 0; column < 4; ++column)
                out_scale_parts[12 * (size_t)j + (size_t)(4 * row + column)] = entry[FK__DQS_SCALE_AT + 4 * column + row];
    }
    fk__palette_sign_bones(bone_count, parents, out_dual_quats);
    return FK_OK;
}

/* Palette splitting. Which bones the current group holds is a bit per possible
   bone on the stack; a triangle's new bones are counted without a list (each
   influence against the triangle's earlier ones), so any k fits. */
#define FK__SPLIT_WORDS (65536 / 64)

static FK__SMALL int fk__split_has(const uint64_t *group, unsigned bone) { return (int)(group[bone / 64] >> (bone % 64) & 1u); }

/* How many bones of triangle t the group lacks; with `add`, they are added to
   it, and written to `list` when it is given. */
static FK__SMALL int fk__split_new_bones(const fk_palette_split_desc *d, size_t t, uint64_t *group, int add, uint16_t *list)
{
    const int slots = 3 * d->influences;
    int a, b, count = 0;
    for (a = 0; a < slots; ++a) {
        const size_t at = (size_t)d->indices[3 * t + (size_t)(a / d->influences)] * (size_t)d->influences +
                          (size_t)(a % d->influences);
        const unsigned bone = d->joints[at];
        int seen = d->weights[at] == 0.0f || fk__split_has(group, bone);
        for (b = 0; b < a && !seen; ++b) {
            const size_t earlier = (size_t)d->indices[3 * t + (size_t)(b / d->influences)] * (size_t)d->influences +
                                   (size_t)(b % d->influences);
            seen = d->weights[earlier] != 0.0f && d->joints[earlier] == bone;
        }
        if (seen) continue;
        if (add) {
            group[bone / 64] |= (uint64_t)1 << (bone % 64);
            if (list) list[count] = (uint16_t)bone;
        }
        ++count;
    }
    return count;
}

/* One greedy pass: counts the groups, and writes them when the outputs are given. */
static FK__SMALL fk_result fk__split_pass(const fk_palette_split_desc *d, int *triangle_groups, uint16_t *group_bones,
                                int *group_bone_counts, int *group_count)
{
    uint64_t group[FK__SPLIT_WORDS];
    const size_t words = ((size_t)d->bone_count + 63) / 64;
    int t, groups = 0, size = 0;
    memset(group, 0, sizeof(uint64_t) * words);
    for (t = 0; t < d->triangle_count; ++t) {
        if (groups == 0 || size + fk__split_new_bones(d, (size_t)t, group, 0, NULL) > d->max_bones) {
            memset(group, 0, sizeof(uint64_t) * words);
            if (fk__split_new_bones(d, (size_t)t, group, 0, NULL) > d->max_bones) return FK_ERROR_INVALID_COUNT;
            ++groups;
            size = 0;
        }
        if (triangle_groups) triangle_groups[t] = groups - 1;
        size += fk__split_new_bones(d, (size_t)t, group, 1,
                                    group_bones ? group_bones + (size_t)(groups - 1) * (size_t)d->max_bones + size : NULL);
        if (group_bone_counts) group_bone_counts[groups - 1] = size;
    }
    *group_count = groups;
    return FK_OK;
}

FK_LBS_DEF fk_result fk_palette_split(const fk_palette_split_desc *desc, int group_capacity,
                                      int *out_triangle_groups, uint16_t *out_group_bones,
                                      int *out_group_bone_counts, int *out_group_count)
{
    const fk_palette_split_desc *d = desc;
    int groups, t, e;
    size_t i, slots;
    fk_result result;
    if (!d || !out_group_count) return FK_ERROR_NULL_ARGUMENT;
    if (d->triangle_count < 0 || d->vertex_count < 0 || d->influences < 1 || d->max_bones < 1 || d->bone_count < 0 ||
        d->bone_count > 65536 || group_capacity < 0)
        return FK_ERROR_INVALID_COUNT;
    if (d->triangle_count > 0 && (!d->indices || !d->joints || !d->weights)) return FK_ERROR_NULL_ARGUMENT;
    if (out_triangle_groups && (!out_group_bones || !out_group_bone_counts)) return FK_ERROR_NULL_ARGUMENT;
    for (t = 0; t < d->triangle_count; ++t)
        for (e = 0; e < 3; ++e)
            if (d->indices[3 * (size_t)t + (size_t)e] >= (uint32_t)d->vertex_count) return FK_ERROR_JOINT_OUT_OF_RANGE;
    slots = d->triangle_count > 0 ? (size_t)d->vertex_count * (size_t)d->influences : 0;
    for (i = 0; i < slots; ++i) {
        if (!fk__is_finite(d->weights[i])) return FK_ERROR_INVALID_WEIGHT;
        if (d->weights[i] != 0.0f && (int)d->joints[i] >= d->bone_count) return FK_ERROR_JOINT_OUT_OF_RANGE;
    }
    if ((result = fk__split_pass(d, NULL, NULL, NULL, &groups)) != FK_OK) return result;
    if (!out_triangle_groups) { *out_group_count = groups; return FK_OK; }
    if (groups > group_capacity) return FK_ERROR_INVALID_COUNT;
    return fk__split_pass(d, out_triangle_groups, out_group_bones, out_group_bone_counts, out_group_count);
}

/* Where a joint is in the group's palette, or -1. */
static FK__SMALL int fk__local_joint(int group_bone_count, const uint16_t *group_bones, uint16_t joint)
{
    int b;
    for (b = 0; b < group_bone_count; ++b)
        if (group_bones[b] == joint) return b;
    return -1;
}

FK_LBS_DEF fk_result fk_palette_local_joints(int group_bone_count, const uint16_t *group_bones, int vertex_count,
                                             int influences, const uint16_t *joints, const float *weights,
                                             uint16_t *out_joints)
{
    const size_t slots = (size_t)(vertex_count > 0 ? vertex_count : 0) * (size_t)(influences > 0 ? influences : 0);
    size_t i;
    int local;
    if (group_bone_count < 0 || vertex_count < 0 || influences < 1) return FK_ERROR_INVALID_COUNT;
    if ((group_bone_count > 0 && !group_bones) || (slots > 0 && (!joints || !weights || !out_joints)))
        return FK_ERROR_NULL_ARGUMENT;
    for (i = 0; i < slots; ++i)
        if (weights[i] != 0.0f && fk__local_joint(group_bone_count, group_bones, joints[i]) < 0)
            return FK_ERROR_JOINT_OUT_OF_RANGE;
    for (i = 0; i < slots; ++i) {
        local = fk__local_joint(group_bone_count, group_bones, joints[i]);
        out_joints[i] = (uint16_t)(local < 0 ? 0 : local);
    }
    return FK_OK;
}

/* ---- Skinned bounds ------------------------------------------------------------
   Each vertex v belongs to its heaviest influence p (its "pivot"), with share
   w_p >= omega_p of its weights (the record's heaviest_weight), and v lies in
   p's rest box. With weights w normalized to sum 1 (s their sum), and M_k the
   bones' motions:

   LBS. v' = s (M_p v + sum_{k != p} w_k (M_k - M_p) v). M_p v lies in M_p's
   image of the box, the box of its eight moved corners. Each coordinate of
   (M_k - M_p) v is affine in v, so over the box it lies between its values at
   the corners, [lo_k, hi_k]; padded with 0, the sum over the other bones, whose
   weights add to at most 1 - omega_p, lies in (1 - omega_p) [min lo_k, max hi_k].
   Scaling by s in [s_min, s_max] gives the hull of the two scaled boxes.

   DQS. The blend b = sum_k a_k q^_k (a_k = +-w_k, signed into p's hemisphere)
   of bones q_k + eps d_k, normalized and applied to v, gives, for any point o,
       v' - o = vec(sum_k a_k (x_k - o) q_k r*) / |r|^2,   r = sum_k a_k q_k,
   with x_k = q_k v q_k* + t_k = M_k v (expand r v r* + 2 vec(d r*): the
   terms with o add up to o |r|^2). Since |vec(y)| <= |y| and the q_k are unit,
   |v' - o| <= sum_k w_k |x_k - o| / |r|. Take o = M_p v: the pivot's own term
   vanishes, and |r| >= r . q_p = sum_k w_k |q_k . q_p| >= w_p + (1 - w_p) gamma_p,
   gamma_p the smallest |q_k . q_p| over p's partners. With delta_p the largest
   |(M_k - M_p) x| over the partners and the box's corners (a convex function
   of x peaks at a corner),
       |v' - M_p v| <= (1 - w_p) delta_p / (w_p + (1 - w_p) gamma_p)
                    <= (1 - omega_p) delta_p / (omega_p + (1 - omega_p) gamma_p),
   the right side falling as w_p grows. So v' lies in M_p's image of the box,
   grown by that radius; the sum of weights divides out.
   Bones with scale (matrices with bind poses), split as fk_skin_dqs() splits
   them into a rigid part C_k after a scale part K_k: centred at the vertex,
   each bone's rigid part carries K_k v - v, so its motion at v is
   C_k K_k v = M_k v, and the above holds with M_k = C_k K_k. Centred at the
   bone, v' is the DQS of the C_k applied to u = sum_k w_k K_k v, a blend of
   affine maps bounded as LBS bounds its bones; then the above holds for u in
   that box, with C_k for M_k.

   The bones are read back from the skinning palettes (the same normalized
   rotations and splits), all arithmetic is in double, and the results are
   rounded outward to float. */

/* A bone as the bounds read it, in double: its motion m (3x4 row-major), and
   for DQS its rotation q, rigid part c and scale part k (m = c k). */
typedef struct fk__bounds_bone {
    double m[12], c[12], k[12], q[4];
} fk__bounds_bone;

static FK__SMALL void fk__bounds_bone_of(const fk_skin_desc *d, int dqs, int scaled, int joint, fk__bounds_bone *out)
{
    float entry[FK__DQS_SCALED_STRIDE];
    double x, y, z, w, dx, dy, dz, dw;
    int row, column;
    if (!dqs) {
        fk__lbs_bone_of(d, joint, entry);
        for (row = 0; row < 3; ++row)
            for (column = 0; column < 4; ++column) out->m[4 * row + column] = (double)entry[4 * column + row];
        return;
    }
    memset(entry, 0, sizeof entry);
    entry[FK__DQS_SCALE_AT] = entry[FK__DQS_SCALE_AT + 5] = entry[FK__DQS_SCALE_AT + 10] = 1.0f;
    if (scaled) fk__dqs_scaled_bone(d->matrices + 12 * (size_t)joint, &d->bind_poses[joint], 0, entry);
    else fk__dqs_bone_of(d, joint, entry);
    x = (double)entry[0]; y = (double)entry[1]; z = (double)entry[2]; w = (double)entry[3];
    dx = (double)entry[4]; dy = (double)entry[5]; dz = (double)entry[6]; dw = (double)entry[7];
    out->q[0] = x; out->q[1] = y; out->q[2] = z; out->q[3] = w;
    /* rotation of q, and t = 2 vec(d q*) */
    out->c[0] = 1.0 - 2.0 * (y * y + z * z); out->c[1] = 2.0 * (x * y - w * z); out->c[2] = 2.0 * (x * z + w * y);
    out->c[4] = 2.0 * (x * y + w * z); out->c[5] = 1.0 - 2.0 * (x * x + z * z); out->c[6] = 2.0 * (y * z - w * x);
    out->c[8] = 2.0 * (x * z - w * y); out->c[9] = 2.0 * (y * z + w * x); out->c[10] = 1.0 - 2.0 * (x * x + y * y);
    out->c[3] = 2.0 * (w * dx - dw * x - (dy * z - dz * y));
    out->c[7] = 2.0 * (w * dy - dw * y - (dz * x - dx * z));
    out->c[11] = 2.0 * (w * dz - dw * z - (dx * y - dy * x));
    for (row = 0; row < 3; ++row)
        for (column = 0; column < 4; ++column)
            out->k[4 * row + column] = (double)entry[FK__DQS_SCALE_AT + 4 * column + row];
    fk__mat34_mul_double(out->c, out->k, out->m);
}

static FK__SMALL void fk__mat34_apply_double(const double m[12], const double p[3], double out[3])
{
    int row;
    for (row = 0; row < 3; ++row)
        out[row] = m[4 * row] * p[0] + m[4 * row + 1] * p[1] + m[4 * row + 2] * p[2] + m[4 * row + 3];
}

/* Corner c (bits x, y, z) of the box [lo, hi]. */
static FK__SMALL void fk__box_corner(const double lo[3], const double hi[3], int c, double out[3])
{
    int e;
    for (e = 0; e < 3; ++e) out[e] = (c >> e & 1) ? hi[e] : lo[e];
}

/* The box of a matrix's images of a box's corners. */
static FK__SMALL void fk__box_image(const double m[12], const double lo[3], const double hi[3], double out_lo[3],
                          double out_hi[3])
{
    double corner[3], image[3];
    int c, e;
    for (c = 0; c < 8; ++c) {
        fk__box_corner(lo, hi, c, corner);
        fk__mat34_apply_double(m, corner, image);
        for (e = 0; e < 3; ++e) {
            out_lo[e] = c == 0 || image[e] < out_lo[e] ? image[e] : out_lo[e];
            out_hi[e] = c == 0 || image[e] > out_hi[e] ? image[e] : out_hi[e];
        }
    }
}

/* Bone p's partners: its record's list, or every other bone when that overflowed. */
static FK__SMALL int fk__bounds_partner_count(const fk_bone_bounds *record, int bone_count)
{
    return record->partner_count < 0 ? bone_count : record->partner_count;
}

static FK__SMALL int fk__bounds_partner(const fk_bone_bounds *record, int i)
{
    return record->partner_count < 0 ? i : (int)record->partners[i];
}

/* The LBS step: the box of sum_k w_k A_k v over v in [lo, hi] and normalized
   weights with pivot share >= omega, A_k = m (LBS) or k (DQS's scale parts). */
static FK__SMALL void fk__bounds_blend(const fk_skin_desc *d, const fk_bone_bounds *record, const fk__bounds_bone *pivot,
                             int dqs, int scaled, const double lo[3], const double hi[3], double out_lo[3],
                             double out_hi[3])
{
    const double *a_p = dqs ? pivot->k : pivot->m, rest = 1.0 - (double)record->heaviest_weight;
    double spread_lo[3] = {0.0, 0.0, 0.0}, spread_hi[3] = {0.0, 0.0, 0.0}, corner[3], mine[3], theirs[3];
    fk__bounds_bone partner;
    int i, c, e;
    fk__box_image(a_p, lo, hi, out_lo, out_hi);
    for (i = 0; i < fk__bounds_partner_count(record, d->transform_count); ++i) {
        fk__bounds_bone_of(d, dqs, scaled, fk__bounds_partner(record, i), &partner);
        for (c = 0; c < 8; ++c) {
            fk__box_corner(lo, hi, c, corner);
            fk__mat34_apply_double(a_p, corner, mine);
            fk__mat34_apply_double(dqs ? partner.k : partner.m, corner, theirs);
            for (e = 0; e < 3; ++e) {
                if (theirs[e] - mine[e] < spread_lo[e]) spread_lo[e] = theirs[e] - mine[e];
                if (theirs[e] - mine[e] > spread_hi[e]) spread_hi[e] = theirs[e] - mine[e];
            }
        }
    }
    for (e = 0; e < 3; ++e) {
        out_lo[e] += rest * spread_lo[e];
        out_hi[e] += rest * spread_hi[e];
    }
}

/* Where bone p's own vertices go: the box [lo, hi] grown by the radius *grow. */
static FK__SMALL void fk__bounds_region(const fk_skin_desc *d, const fk_bone_bounds *bones, int p, int dqs, int scaled,
                              double lo[3], double hi[3], double *grow)
{
    const fk_bone_bounds *record = &bones[p];
    const double omega = (double)record->heaviest_weight;
    const int at_bone = scaled && d->dqs_scale_center == FK_DQS_SCALE_AT_BONE;
    double rest_lo[3], rest_hi[3], u_lo[3], u_hi[3], corner[3], mine[3], theirs[3], delta = 0.0, gamma = 1.0;
    fk__bounds_bone pivot, partner;
    int i, c, e;
    rest_lo[0] = (double)record->min.x; rest_lo[1] = (double)record->min.y; rest_lo[2] = (double)record->min.z;
    rest_hi[0] = (double)record->max.x; rest_hi[1] = (double)record->max.y; rest_hi[2] = (double)record->max.z;
    fk__bounds_bone_of(d, dqs, scaled, p, &pivot);
    *grow = 0.0;
    if (!dqs) {
        const double s_min = (double)record->weight_sum_min, s_max = (double)record->weight_sum_max;
        fk__bounds_blend(d, record, &pivot, 0, 0, rest_lo, rest_hi, u_lo, u_hi);
        for (e = 0; e < 3; ++e) { /* the hull of the box scaled by s_min and by s_max */
            lo[e] = s_min * u_lo[e] < s_max * u_lo[e] ? s_min * u_lo[e] : s_max * u_lo[e];
            hi[e] = s_min * u_hi[e] > s_max * u_hi[e] ? s_min * u_hi[e] : s_max * u_hi[e];
        }
        return;
    }
    if (at_bone) fk__bounds_blend(d, record, &pivot, 1, 1, rest_lo, rest_hi, u_lo, u_hi);
    else { memcpy(u_lo, rest_lo, sizeof u_lo); memcpy(u_hi, rest_hi, sizeof u_hi); }
    fk__box_image(at_bone ? pivot.c : pivot.m, u_lo, u_hi, lo, hi);
    for (i = 0; i < fk__bounds_partner_count(record, d->transform_count); ++i) {
        double dot;
        fk__bounds_bone_of(d, 1, scaled, fk__bounds_partner(record, i), &partner);
        dot = fabs(partner.q[0] * pivot.q[0] + partner.q[1] * pivot.q[1] + partner.q[2] * pivot.q[2] +
                   partner.q[3] * pivot.q[3]);
        if (dot < gamma) gamma = dot;
        for (c = 0; c < 8; ++c) {
            double distance2 = 0.0;
            fk__box_corner(u_lo, u_hi, c, corner);
            fk__mat34_apply_double(at_bone ? pivot.c : pivot.m, corner, mine);
            fk__mat34_apply_double(at_bone ? partner.c : partner.m, corner, theirs);
            for (e = 0; e < 3; ++e) distance2 += (theirs[e] - mine[e]) * (theirs[e] - mine[e]);
            if (distance2 > delta * delta) delta = sqrt(distance2);
        }
    }
    *grow = (1.0 - omega) * delta / (omega + (1.0 - omega) * gamma);
}

/* Outward rounding to float (beyond float's range: infinity, which the caller refuses). */
static FK__SMALL float fk__round_down(double x)
{
    const float f = (float)x;
    return (double)f > x ? nextafterf(f, -FLT_MAX) : f;
}

static FK__SMALL float fk__round_up(double x)
{
    const float f = (float)x;
    return (double)f < x ? nextafterf(f, FLT_MAX) : f;
}

static FK__SMALL fk_result fk__check_bounds_records(const fk_bone_bounds *bones, int bone_count)
{
    int j, i;
    for (j = 0; j < bone_count; ++j) {
        const fk_bone_bounds *b = &bones[j];
        if (b->partner_count < -1 || b->partner_count > FK_BOUNDS_PARTNERS) return FK_ERROR_INVALID_COUNT;
        for (i = 0; i < b->partner_count; ++i)
            if ((int)b->partners[i] >= bone_count) return FK_ERROR_JOINT_OUT_OF_RANGE;
        if (!fk__is_within(b->heaviest_weight, 0.0f, 1.0f) || !(b->heaviest_weight > 0.0f) ||
            !fk__is_within(b->weight_sum_min, 0.0f, FLT_MAX) ||
            !fk__is_within(b->weight_sum_max, b->weight_sum_min, FLT_MAX))
            return FK_ERROR_INVALID_WEIGHT;
        if (!fk__vec3_is_finite(b->min) || !fk__vec3_is_finite(b->max)) return FK_ERROR_NOT_FINITE;
    }
    return FK_OK;
}

static FK__SMALL int fk__bounds_record_empty(const fk_bone_bounds *b)
{
    return b->min.x > b->max.x || b->min.y > b->max.y || b->min.z > b->max.z;
}

static FK__SMALL fk_result fk__skin_bounds(const fk_skin_desc *d, const fk_bone_bounds *bones, int dqs, fk_bounds *out)
{
    double lo[3], hi[3], box_lo[3] = {0.0, 0.0, 0.0}, box_hi[3] = {0.0, 0.0, 0.0}, centre[3], grow;
    double radius = 0.0, diagonal2 = 0.0;
    fk_bounds result;
    fk_result r;
    int j, e, c, scaled = 0, any = 0;
    if (!d || !out) return FK_ERROR_NULL_ARGUMENT;
    if (d->transform_count < 0) return FK_ERROR_INVALID_COUNT;
    if (d->transform_count > 0 && !bones) return FK_ERROR_NULL_ARGUMENT;
    if (d->transforms && d->matrices) return FK_ERROR_CONFLICTING_ARGUMENTS;
    if (d->dqs_scale_center != FK_DQS_SCALE_AT_VERTEX && d->dqs_scale_center != FK_DQS_SCALE_AT_BONE)
        return FK_ERROR_INVALID_OPTION;
    if (d->transform_count > 0 && !d->transforms && !d->matrices) return FK_ERROR_NULL_ARGUMENT;
    if ((r = fk__check_skin_bones(d)) != FK_OK) return r;
    if ((r = fk__check_bounds_records(bones, d->transform_count)) != FK_OK) return r;
    for (j = 0; dqs && d->matrices && j < d->transform_count && !scaled; ++j)
        scaled = !fk__mat34_is_rigid(d->matrices + 12 * (size_t)j);
    if (scaled && !d->bind_poses) return FK_ERROR_MISSING_BIND_POSES;
    for (j = 0; j < d->transform_count; ++j) {
        if (fk__bounds_record_empty(&bones[j])) continue;
        fk__bounds_region(d, bones, j, dqs, scaled, lo, hi, &grow);
        for (e = 0; e < 3; ++e) {
            box_lo[e] = !any || lo[e] - grow < box_lo[e] ? lo[e] - grow : box_lo[e];
            box_hi[e] = !any || hi[e] + grow > box_hi[e] ? hi[e] + grow : box_hi[e];
        }
        any = 1;
    }
    if (!any) {
        result.min = fk_vec3_make(FLT_MAX, FLT_MAX, FLT_MAX);
        result.max = fk_vec3_make(-FLT_MAX, -FLT_MAX, -FLT_MAX);
        result.center = fk_vec3_make(0.0f, 0.0f, 0.0f);
        result.radius = -1.0f;
        *out = result;
        return FK_OK;
    }
    result.min = fk_vec3_make(fk__round_down(box_lo[0]), fk__round_down(box_lo[1]), fk__round_down(box_lo[2]));
    result.max = fk_vec3_make(fk__round_up(box_hi[0]), fk__round_up(box_hi[1]), fk__round_up(box_hi[2]));
    result.center = fk_vec3_make((float)(0.5 * (box_lo[0] + box_hi[0])), (float)(0.5 * (box_lo[1] + box_hi[1])),
                                 (float)(0.5 * (box_lo[2] + box_hi[2])));
    centre[0] = (double)result.center.x; centre[1] = (double)result.center.y; centre[2] = (double)result.center.z;
    /* The sphere about the (rounded) centre: each region's farthest corner plus
       its growth, and never more than the box's own farthest corner. */
    for (j = 0; j < d->transform_count; ++j) {
        if (fk__bounds_record_empty(&bones[j])) continue;
        fk__bounds_region(d, bones, j, dqs, scaled, lo, hi, &grow);
        for (c = 0; c < 8; ++c) {
            double corner[3], distance2 = 0.0;
            fk__box_corner(lo, hi, c, corner);
            for (e = 0; e < 3; ++e) distance2 += (corner[e] - centre[e]) * (corner[e] - centre[e]);
            if (sqrt(distance2) + grow > radius) radius = sqrt(distance2) + grow;
        }
    }
    for (e = 0; e < 3; ++e) {
        const double reach = fabs(box_lo[e] - centre[e]) > fabs(box_hi[e] - centre[e]) ? box_lo[e] - centre[e] : box_hi[e] - centre[e];
        diagonal2 += reach * reach;
    }
    if (sqrt(diagonal2) < radius) radius = sqrt(diagonal2);
    result.radius = fk__round_up(radius * (1.0 + 4.0 * DBL_EPSILON));
    if (!fk__vec3_is_finite(result.min) || !fk__vec3_is_finite(result.max) || !fk__is_finite(result.radius))
        return FK_ERROR_NOT_FINITE;
    *out = result;
    return FK_OK;
}

FK_LBS_DEF fk_result fk_skin_bounds_lbs(const fk_skin_desc *desc, const fk_bone_bounds *bones, fk_bounds *out)
{
    return fk__skin_bounds(desc, bones, 0, out);
}

FK_LBS_DEF fk_result fk_skin_bounds_dqs(const fk_skin_desc *desc, const fk_bone_bounds *bones, fk_bounds *out)
{
    return fk__skin_bounds(desc, bones, 1, out);
}

/* Adds a partner to a record, or marks the list as overflowed. */
static FK__SMALL void fk__bounds_add_partner(fk_bone_bounds *b, int joint)
{
    int i;
    if (b->partner_count < 0) return;
    for (i = 0; i < b->partner_count; ++i)
        if ((int)b->partners[i] == joint) return;
    if (b->partner_count == FK_BOUNDS_PARTNERS) { b->partner_count = -1; return; }
    b->partners[b->partner_count++] = (uint16_t)joint;
}

FK_LBS_DEF fk_result fk_skin_bounds_prepare(const fk_skin_desc *desc, fk_bone_bounds *out_bones)
{
    const fk_skin_desc *d = desc;
    fk__skin_layout layout;
    size_t k;
    fk_result r;
    int i, j, slot;
    if (!d || (!out_bones && d->transform_count > 0)) return FK_ERROR_NULL_ARGUMENT;
    if (d->vertex_count < 0 || d->influences < 1 || d->transform_count < 0) return FK_ERROR_INVALID_COUNT;
    if (d->vertex_count > 0 && (!d->positions || !d->weights)) return FK_ERROR_NULL_ARGUMENT;
    if (d->joint_format != FK_JOINTS_U16 || d->weight_format != FK_WEIGHTS_FLOAT || d->joints2 || d->weights2)
        return FK_ERROR_INVALID_OPTION;
    memset(&layout, 0, sizeof layout);
    layout.dense = d->joints == NULL;
    if (layout.dense && d->influences != d->transform_count) return FK_ERROR_INVALID_COUNT;
    if ((r = fk__influence_count(d->influences, d->vertex_count, &k)) != FK_OK) return r;
    layout.position_stride = d->position_stride;
    layout.weight_stride = d->weight_stride;
    layout.joint_stride = d->joint_stride;
    if (d->vertex_count > 0) {
        if ((r = fk__check_stride(&layout.position_stride, 3 * sizeof(float), sizeof(float), d->positions, d->vertex_count)) != FK_OK) return r;
        if ((r = fk__check_stride(&layout.weight_stride, k * sizeof(float), sizeof(float), d->weights, d->vertex_count)) != FK_OK) return r;
        if (!layout.dense &&
            (r = fk__check_stride(&layout.joint_stride, k * sizeof(uint16_t), sizeof(uint16_t), d->joints, d->vertex_count)) != FK_OK) return r;
    }
    for (i = 0; i < d->vertex_count; ++i) { /* every check first: nothing is written on error */
        const float *weights = fk__float_at((const float *)d->weights, layout.weight_stride, i);
        double sum = 0.0;
        if (!fk__vec3_is_finite(fk__load3(fk__float_at(d->positions, layout.position_stride, i))))
            return FK_ERROR_NOT_FINITE;
        for (slot = 0; slot < d->influences; ++slot) {
            if (fk__influence_joint(d, &layout, i, slot) < 0) return FK_ERROR_JOINT_OUT_OF_RANGE;
            if (!fk__is_finite(weights[slot]) || weights[slot] < 0.0f) return FK_ERROR_INVALID_WEIGHT;
            sum += (double)weights[slot];
        }
        if (!fk__fits_float(sum) || sum <= 0.0) return FK_ERROR_INVALID_WEIGHT;
    }
    for (j = 0; j < d->transform_count; ++j) {
        fk_bone_bounds *b = &out_bones[j];
        memset(b, 0, sizeof *b);
        b->min = fk_vec3_make(FLT_MAX, FLT_MAX, FLT_MAX);
        b->max = fk_vec3_make(-FLT_MAX, -FLT_MAX, -FLT_MAX);
        b->heaviest_weight = 1.0f;
    }
    for (i = 0; i < d->vertex_count; ++i) {
        const float *weights = fk__float_at((const float *)d->weights, layout.weight_stride, i);
        const fk_vec3 p = fk__load3(fk__float_at(d->positions, layout.position_stride, i));
        const int heaviest = fk__heaviest(d, &layout, i);
        const int pivot = fk__influence_joint(d, &layout, i, heaviest);
        fk_bone_bounds *b = &out_bones[pivot];
        double sum = 0.0;
        float share, low, high;
        for (slot = 0; slot < d->influences; ++slot) {
            const int joint = fk__influence_joint(d, &layout, i, slot);
            sum += (double)weights[slot];
            if (slot != heaviest && joint != pivot && weights[slot] != 0.0f) fk__bounds_add_partner(b, joint);
        }
        share = fk__round_down((double)weights[heaviest] / sum);
        low = fk__round_down(sum);
        high = fk__round_up(sum);
        if (fk__bounds_record_empty(b)) b->weight_sum_min = low;
        if (share < b->heaviest_weight) b->heaviest_weight = share;
        if (low < b->weight_sum_min) b->weight_sum_min = low;
        if (high > b->weight_sum_max) b->weight_sum_max = high;
        if (p.x < b->min.x) b->min.x = p.x;
        if (p.y < b->min.y) b->min.y = p.y;
        if (p.z < b->min.z) b->min.z = p.z;
        if (p.x > b->max.x) b->max.x = p.x;
        if (p.y > b->max.y) b->max.y = p.y;
        if (p.z > b->max.z) b->max.z = p.z;
    }
    return FK_OK;
}

/* ---- Morph targets -------------------------------------------------------------
   glTF's morph targets displace a mesh before it is skinned. Target i holds
   deltas for some vertices (all of them, or a sparse list), and with weights w_i
       p' = p + sum_i w_i dp_i
       n' = normalize(n + sum_i w_i dn_i)          t'.xyz alike, t'.w = t.w
   Each sum runs base first, then the targets in their order, one rounding per
   term (out + w_i d_i), so a vertex's bits depend neither on whether a target
   is dense or sparse nor on the other vertices. Targets of weight zero are
   skipped, which makes them free and all-zero weights give the base's bits.
   Renormalizing is left open by glTF; a sum of unit normals is not unit, and
   skinning and shading expect unit normals, so a changed normal is
   renormalized. One that cannot be (zero length, overflow) keeps its base
   value, so the base must outlive the sums: normals and tangents are never
   morphed in place, positions may be (they need no finishing).
   Everything is checked in a first pass; the second writes. */

/* The descriptor's strides with their defaults resolved. */
typedef struct fk__morph_layout {
    size_t position_stride, normal_stride, tangent_stride;
    size_t out_position_stride, out_normal_stride, out_tangent_stride;
} fk__morph_layout;

/* A target's strides resolved, and its entries (vertex_count when dense). */
typedef struct fk__morph_target_layout {
    size_t position_stride, normal_stride, tangent_stride;
    int count;
} fk__morph_target_layout;

/* Whether two arrays of count records share a byte: compared as addresses,
   since the arrays may belong to different objects. */
static int fk__records_overlap(const void *a, size_t a_stride, size_t a_size, const void *b, size_t b_stride,
                               size_t b_size, int count)
{
    uintptr_t a_first = (uintptr_t)a, b_first = (uintptr_t)b;
    if (count <= 0) return 0;
    return a_first < b_first + (size_t)(count - 1) * b_stride + b_size &&
           b_first < a_first + (size_t)(count - 1) * a_stride + a_size;
}

/* The shape of a target: what the morph will read of it, and its strides. */
static fk_result fk__check_morph_target(const fk_morph_desc *d, const fk_morph_target *t,
                                        fk__morph_target_layout *layout)
{
    fk_result r;
    if (t->sparse_count < 0 || (!t->indices && t->sparse_count != 0)) return FK_ERROR_INVALID_COUNT;
    layout->count = t->indices ? t->sparse_count : d->vertex_count;
    layout->position_stride = t->position_delta_stride;
    layout->normal_stride = t->normal_delta_stride;
    layout->tangent_stride = t->tangent_delta_stride;
    if (t->position_deltas &&
        (r = fk__check_stride(&layout->position_stride, 3 * sizeof(float), sizeof(float), t->position_deltas, layout->count)) != FK_OK) return r;
    if (d->normals && t->normal_deltas &&
        (r = fk__check_stride(&layout->normal_stride, 3 * sizeof(float), sizeof(float), t->normal_deltas, layout->count)) != FK_OK) return r;
    if (d->tangents && t->tangent_deltas &&
        (r = fk__check_stride(&layout->tangent_stride, 3 * sizeof(float), sizeof(float), t->tangent_deltas, layout->count)) != FK_OK) return r;
    return FK_OK;
}

/* The term w d a delta adds, computed exactly as the sum will compute it. */
static fk_vec3 fk__morph_term(const float *deltas, size_t stride, int entry, float weight)
{
    return fk_vec3_scale(fk__load3(fk__float_at(deltas, stride, entry)), weight);
}

/* A target of nonzero weight: its indices must name vertices, its terms be finite. */
static fk_result fk__check_morph_entries(const fk_morph_desc *d, const fk_morph_target *t,
                                         const fk__morph_target_layout *layout, float weight)
{
    int e;
    for (e = 0; e < layout->count; ++e) {
        if (t->indices && t->indices[e] >= (uint32_t)d->vertex_count) return FK_ERROR_JOINT_OUT_OF_RANGE;
        if (t->position_deltas && !fk__vec3_is_finite(fk__morph_term(t->position_deltas, layout->position_stride, e, weight)))
            return FK_ERROR_NOT_FINITE;
        if (d->normals && t->normal_deltas && !fk__vec3_is_finite(fk__morph_term(t->normal_deltas, layout->normal_stride, e, weight)))
            return FK_ERROR_NOT_FINITE;
        if (d->tangents && t->tangent_deltas && !fk__vec3_is_finite(fk__morph_term(t->tangent_deltas, layout->tangent_stride, e, weight)))
            return FK_ERROR_NOT_FINITE;
    }
    return FK_OK;
}

/* One attribute's strides, and its output against its input: they may not
   overlap, except positions written exactly in place (same array and stride). */
static fk_result fk__check_morph_attribute(const float *in, size_t *in_stride, const float *out, size_t *out_stride,
                                           size_t floats, int n, int in_place_allowed)
{
    fk_result r;
    if ((r = fk__check_stride(in_stride, floats * sizeof(float), sizeof(float), in, n)) != FK_OK) return r;
    if ((r = fk__check_stride(out_stride, floats * sizeof(float), sizeof(float), out, n)) != FK_OK) return r;
    if (in_place_allowed && out == in && *out_stride == *in_stride) return FK_OK;
    return fk__records_overlap(in, *in_stride, floats * sizeof(float), out, *out_stride, floats * sizeof(float), n)
               ? FK_ERROR_CONFLICTING_ARGUMENTS : FK_OK;
}

static fk_result fk__check_morph(const fk_morph_desc *d, fk__morph_layout *layout)
{
    fk__morph_target_layout target;
    fk_result r;
    int i, n;
    if (!d) return FK_ERROR_NULL_ARGUMENT;
    if (d->vertex_count < 0 || d->target_count < 0) return FK_ERROR_INVALID_COUNT;
    if (!d->positions || !d->out_positions || (d->normals && !d->out_normals) || (d->tangents && !d->out_tangents) ||
        (d->target_count > 0 && (!d->targets || !d->weights)))
        return FK_ERROR_NULL_ARGUMENT;
    n = d->vertex_count;
    layout->position_stride = d->position_stride;
    layout->normal_stride = d->normal_stride;
    layout->tangent_stride = d->tangent_stride;
    layout->out_position_stride = d->out_position_stride;
    layout->out_normal_stride = d->out_normal_stride;
    layout->out_tangent_stride = d->out_tangent_stride;
    if ((r = fk__check_morph_attribute(d->positions, &layout->position_stride, d->out_positions,
                                       &layout->out_position_stride, 3, n, 1)) != FK_OK)
        return r;
    if (d->normals && (r = fk__check_morph_attribute(d->normals, &layout->normal_stride, d->out_normals,
                                                     &layout->out_normal_stride, 3, n, 0)) != FK_OK)
        return r;
    if (d->tangents && (r = fk__check_morph_attribute(d->tangents, &layout->tangent_stride, d->out_tangents,
                                                      &layout->out_tangent_stride, 4, n, 0)) != FK_OK)
        return r;
    for (i = 0; i < d->target_count; ++i) {
        if ((r = fk__check_morph_target(d, d->targets + i, &target)) != FK_OK) return r;
        if (!fk__is_finite(d->weights[i])) return FK_ERROR_INVALID_WEIGHT;
        if (d->weights[i] != 0.0f && (r = fk__check_morph_entries(d, d->targets + i, &target, d->weights[i])) != FK_OK)
            return r;
    }
    return FK_OK;
}

static void fk__morph_add(float *out, const float *deltas, size_t stride, int entry, float weight)
{
    fk__store3(out, fk_vec3_add(fk__load3(out), fk__morph_term(deltas, stride, entry, weight)));
}

/* The morphed direction at out, finished against its base direction. */
static void fk__morph_renormalize(float *out, const float *base)
{
    fk_vec3 morphed = fk__load3(out), unit;
    if (morphed.x == base[0] && morphed.y == base[1] && morphed.z == base[2]) {
        memcpy(out, base, 3 * sizeof(float));
        return;
    }
    unit = fk_vec3_normalize(morphed);
    if (fk__vec3_is_finite(unit) && fk_vec3_dot(unit, unit) > 0.0f) fk__store3(out, unit);
    else memcpy(out, base, 3 * sizeof(float));
}

FK_LBS_DEF fk_result fk_morph_apply(const fk_morph_desc *desc)
{
    fk__morph_layout layout;
    fk__morph_target_layout target;
    fk_result result = fk__check_morph(desc, &layout);
    int i, e, v;
    if (result != FK_OK) return result;
    for (v = 0; v < desc->vertex_count; ++v) {
        const float *position = fk__float_at(desc->positions, layout.position_stride, v);
        float *out_position = fk__out_at(desc->out_positions, layout.out_position_stride, v);
        if (out_position != position) memcpy(out_position, position, 3 * sizeof(float));
        if (desc->normals)
            memcpy(fk__out_at(desc->out_normals, layout.out_normal_stride, v),
                   fk__float_at(desc->normals, layout.normal_stride, v), 3 * sizeof(float));
        if (desc->tangents) /* w with them, bit for bit */
            memcpy(fk__out_at(desc->out_tangents, layout.out_tangent_stride, v),
                   fk__float_at(desc->tangents, layout.tangent_stride, v), 4 * sizeof(float));
    }
    for (i = 0; i < desc->target_count; ++i) {
        const fk_morph_target *t = desc->targets + i;
        const float weight = desc->weights[i];
        if (weight == 0.0f) continue;
        (void)fk__check_morph_target(desc, t, &target); /* resolves the strides; the first pass checked them */
        for (e = 0; e < target.count; ++e) {
            v = t->indices ? (int)t->indices[e] : e;
            if (t->position_deltas)
                fk__morph_add(fk__out_at(desc->out_positions, layout.out_position_stride, v), t->position_deltas,
                              target.position_stride, e, weight);
            if (desc->normals && t->normal_deltas)
                fk__morph_add(fk__out_at(desc->out_normals, layout.out_normal_stride, v), t->normal_deltas,
                              target.normal_stride, e, weight);
            if (desc->tangents && t->tangent_deltas)
                fk__morph_add(fk__out_at(desc->out_tangents, layout.out_tangent_stride, v), t->tangent_deltas,
                              target.tangent_stride, e, weight);
        }
    }
    for (v = 0; v < desc->vertex_count; ++v) {
        if (desc->normals)
            fk__morph_renormalize(fk__out_at(desc->out_normals, layout.out_normal_stride, v),
                                  fk__float_at(desc->normals, layout.normal_stride, v));
        if (desc->tangents)
            fk__morph_renormalize(fk__out_at(desc->out_tangents, layout.out_tangent_stride, v),
                                  fk__float_at(desc->tangents, layout.tangent_stride, v));
    }
    return FK_OK;
}

/* ---- Centres of rotation: precompute --------------------------------------------
   A term of s(w_i, w_t) is zero unless both vectors weight both bones j and k,
   and it reads only those four weights, so the sums are gathered by bone pair:
   each sample (a triangle, or a sub-triangle) is listed in a bucket under every
   pair of bones its corners weight, with its two weights of the pair, its mass
   w_j w_k A and its moment w_j w_k A c, and a vertex visits only the buckets of
   its own pairs. The buckets are found through a hash table of pairs. The
   workspace holds that table and the buckets, each vertex's weights sorted by
   bone (a joint named twice merged, in double), and a table of the vertices
   already computed, by weights. The size query sees no workspace, so what
   fixes the sizes (a triangle's bones and split) is read from the slots
   alone, by the same functions the build calls. */

#define FK__COR_EMPTY 0xFFFFFFFFu /* no pair key: j < k keeps keys below it */

typedef struct fk__cor {
    const fk_cor_desc *d;
    size_t position_stride, joint_stride, weight_stride, k;
    double inverse_sigma2, epsilon;
    size_t samples, pair_slots, dedupe_slots; /* slots: powers of two */
    int lanes; /* fk__cor_pair_sums_lanes() */
    double *list_weights, *union_weights, *sample; /* sample: 6 arrays of `samples` (alpha, beta, mass, moment x y z) */
    uint32_t *pair_keys, *pair_buckets, *bucket_start;
    int *list_count, *dedupe;
    uint16_t *list_bones, *union_bones;
} fk__cor;

static const uint16_t *fk__cor_joints(const fk__cor *c, int v)
{
    return (const uint16_t *)(const void *)((const char *)c->d->joints + (size_t)v * c->joint_stride);
}

static const float *fk__cor_weights(const fk__cor *c, int v) { return fk__float_at(c->d->weights, c->weight_stride, v); }

static fk_result fk__cor_check(const fk_cor_desc *d, fk__cor *c)
{
    fk_result r;
    size_t t;
    int v, s;
    if (!d) return FK_ERROR_NULL_ARGUMENT;
    if (d->vertex_count < 0 || d->triangle_count < 0 || d->influences < 1) return FK_ERROR_INVALID_COUNT;
    if ((d->vertex_count > 0 && (!d->positions || !d->joints || !d->weights)) || (d->triangle_count > 0 && !d->indices))
        return FK_ERROR_NULL_ARGUMENT;
    if (!fk__is_within(d->sigma, 0.0f, FLT_MAX) || !fk__is_within(d->epsilon, 0.0f, FLT_MAX) ||
        (d->sampling != FK_COR_SUBDIVIDE && d->sampling != FK_COR_TRIANGLES_AS_GIVEN))
        return FK_ERROR_INVALID_OPTION;
    memset(c, 0, sizeof *c);
    c->d = d;
    c->position_stride = d->position_stride;
    c->joint_stride = d->joint_stride;
    c->weight_stride = d->weight_stride;
    if ((r = fk__influence_count(d->influences, d->vertex_count, &c->k)) != FK_OK) return r;
    if ((r = fk__check_stride(&c->position_stride, 3 * sizeof(float), sizeof(float), d->positions, d->vertex_count)) != FK_OK ||
        (r = fk__check_stride(&c->joint_stride, c->k * sizeof(uint16_t), sizeof(uint16_t), d->joints, d->vertex_count)) != FK_OK ||
        (r = fk__check_stride(&c->weight_stride, c->k * sizeof(float), sizeof(float), d->weights, d->vertex_count)) != FK_OK)
        return r;
    for (t = 0; t < 3 * (size_t)d->triangle_count; ++t)
        if (d->indices[t] >= (uint32_t)d->vertex_count) return FK_ERROR_JOINT_OUT_OF_RANGE;
    for (v = 0; v < d->vertex_count; ++v)
        if (!fk__vec3_is_finite(fk__load3(fk__float_at(d->positions, c->position_stride, v)))) return FK_ERROR_NOT_FINITE;
    for (v = 0; v < d->vertex_count; ++v)
        for (s = 0; s < d->influences; ++s)
            if (!fk__is_within(fk__cor_weights(c, v)[s], 0.0f, FLT_MAX)) return FK_ERROR_INVALID_WEIGHT;
    c->inverse_sigma2 = d->sigma == 0.0f ? 100.0 : 1.0 / ((double)d->sigma * (double)d->sigma);
    c->epsilon = d->epsilon == 0.0f ? 0.1 : (double)d->epsilon;
    return FK_OK;
}

/* Corner `corner` of triangle t's weight of `bone`: its slots of that joint, added in slot order. */
static double fk__cor_slot_weight(const fk__cor *c, size_t t, int corner, uint16_t bone)
{
    const int v = (int)c->d->indices[3 * t + (size_t)corner];
    double w = 0.0;
    int s;
    for (s = 0; s < c->d->influences; ++s)
        if (fk__cor_joints(c, v)[s] == bone) w += (double)fk__cor_weights(c, v)[s];
    return w;
}

/* Triangle t's bones of nonzero weight (*bones) and its split n, from the slots. */
static int fk__cor_triangle(const fk__cor *c, size_t t, size_t *bones)
{
    const size_t slots = 3 * c->k;
    size_t a, b;
    double d = 0.0, q;
    int e;
    *bones = 0;
    for (a = 0; a < slots; ++a) {
        const int va = (int)c->d->indices[3 * t + a / c->k];
        const uint16_t bone = fk__cor_joints(c, va)[a % c->k];
        int seen = fk__cor_weights(c, va)[a % c->k] == 0.0f;
        for (b = 0; b < a && !seen; ++b) {
            const int vb = (int)c->d->indices[3 * t + b / c->k];
            seen = fk__cor_weights(c, vb)[b % c->k] != 0.0f && fk__cor_joints(c, vb)[b % c->k] == bone;
        }
        if (seen) continue;
        ++*bones;
        for (e = 0; e < 3 && c->d->sampling == FK_COR_SUBDIVIDE; ++e)
            d = fmax(d, fabs(fk__cor_slot_weight(c, t, e, bone) - fk__cor_slot_weight(c, t, (e + 1) % 3, bone)));
    }
    q = d / c->epsilon;
    return q >= FK_COR_MAX_SPLIT - 1 ? FK_COR_MAX_SPLIT : (int)floor(q) + 1;
}

static size_t fk__cor_slots(size_t count)
{
    size_t slots = 16;
    while (slots < 2 * count && slots <= ((size_t)-1) / 4) slots *= 2;
    return slots;
}

/* Places `count` elements of `size` bytes at the running total, aligned to `size`. */
static size_t fk__cor_place(size_t *total, size_t count, size_t size, int *overflow)
{
    size_t at = (*total + size - 1) / size * size;
    if (at < *total || (count > 0 && size > (((size_t)-1) - at) / count)) { *overflow = 1; return 0; }
    *total = at + count * size;
    return at;
}

/* The workspace's size, and with a base (aligned to 8) its arrays. */
static fk_result fk__cor_layout(fk__cor *c, char *base, size_t *bytes)
{
    const size_t v = (size_t)c->d->vertex_count, vk = v * c->k;
    size_t total = 0, at[10], t, bones;
    int overflow = v > 0 && vk / c->k != v;
    for (t = 0, c->samples = 0; t < (size_t)c->d->triangle_count; ++t) { /* bones <= 65536: no overflow */
        const uint64_t n = (uint64_t)fk__cor_triangle(c, t, &bones), pairs = (uint64_t)bones * (bones - (bones > 0)) / 2;
        if (pairs * n * n > 0xFFFFFFF0u - c->samples) return FK_ERROR_INVALID_COUNT;
        c->samples += (size_t)(pairs * n * n);
    }
    c->pair_slots = fk__cor_slots(c->samples);
    c->dedupe_slots = fk__cor_slots(v);
    at[0] = fk__cor_place(&total, vk, sizeof(double), &overflow);
    at[1] = fk__cor_place(&total, 3 * c->k, 3 * sizeof(double), &overflow);
    at[2] = fk__cor_place(&total, c->samples, 6 * sizeof(double), &overflow);
    at[3] = fk__cor_place(&total, c->pair_slots, sizeof(uint32_t), &overflow);
    at[4] = fk__cor_place(&total, c->pair_slots, sizeof(uint32_t), &overflow);
    at[5] = fk__cor_place(&total, c->samples + 2, sizeof(uint32_t), &overflow);
    at[6] = fk__cor_place(&total, v, sizeof(int), &overflow);
    at[7] = fk__cor_place(&total, c->dedupe_slots, sizeof(int), &overflow);
    at[8] = fk__cor_place(&total, vk, sizeof(uint16_t), &overflow);
    at[9] = fk__cor_place(&total, 3 * c->k, sizeof(uint16_t), &overflow);
    if (overflow || total > ((size_t)-1) - 8) return FK_ERROR_INVALID_COUNT;
    *bytes = total + 8;
    if (!base) return FK_OK;
    c->list_weights = (double *)(void *)(base + at[0]);
    c->union_weights = (double *)(void *)(base + at[1]);
    c->sample = (double *)(void *)(base + at[2]);
    c->pair_keys = (uint32_t *)(void *)(base + at[3]);
    c->pair_buckets = (uint32_t *)(void *)(base + at[4]);
    c->bucket_start = (uint32_t *)(void *)(base + at[5]);
    c->list_count = (int *)(void *)(base + at[6]);
    c->dedupe = (int *)(void *)(base + at[7]);
    c->list_bones = (uint16_t *)(void *)(base + at[8]);
    c->union_bones = (uint16_t *)(void *)(base + at[9]);
    return FK_OK;
}

/* Vertex v's bones of nonzero weight, sorted, a joint named twice merged (in slot order). */
static void fk__cor_vertex_list(fk__cor *c, int v)
{
    const uint16_t *joints = fk__cor_joints(c, v);
    const float *weights = fk__cor_weights(c, v);
    uint16_t *bones = c->list_bones + (size_t)v * c->k;
    double *w = c->list_weights + (size_t)v * c->k;
    int s, i, count = 0;
    for (s = 0; s < c->d->influences; ++s) {
        if (weights[s] == 0.0f) continue;
        for (i = 0; i < count && bones[i] != joints[s]; ++i) {}
        if (i < count) { w[i] += (double)weights[s]; continue; }
        for (i = count++; i > 0 && bones[i - 1] > joints[s]; --i) { bones[i] = bones[i - 1]; w[i] = w[i - 1]; }
        bones[i] = joints[s];
        w[i] = (double)weights[s];
    }
    c->list_count[v] = count;
}

/* Triangle t's bones, sorted, with each corner's weight of them. */
static int fk__cor_union(fk__cor *c, size_t t)
{
    int count = 0, corner, i, u;
    for (corner = 0; corner < 3; ++corner) {
        const int v = (int)c->d->indices[3 * t + (size_t)corner];
        for (i = 0; i < c->list_count[v]; ++i) {
            const uint16_t bone = c->list_bones[(size_t)v * c->k + (size_t)i];
            for (u = 0; u < count && c->union_bones[u] < bone; ++u) {}
            if (u == count || c->union_bones[u] != bone) {
                memmove(c->union_bones + u + 1, c->union_bones + u, (size_t)(count - u) * sizeof(uint16_t));
                memmove(c->union_weights + 3 * u + 3, c->union_weights + 3 * u, (size_t)(count - u) * 3 * sizeof(double));
                c->union_bones[u] = bone;
                c->union_weights[3 * u] = c->union_weights[3 * u + 1] = c->union_weights[3 * u + 2] = 0.0;
                ++count;
            }
            c->union_weights[3 * (size_t)u + (size_t)corner] = c->list_weights[(size_t)v * c->k + (size_t)i];
        }
    }
    return count;
}

static size_t fk__cor_hash(uint32_t key, size_t slots) { return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 32) & (slots - 1); }

/* The bucket of pair `key`, added when `buckets` is given (numbered in order of first sight); FK__COR_EMPTY when absent. */
static uint32_t fk__cor_bucket(fk__cor *c, uint32_t key, uint32_t *buckets)
{
    size_t h = fk__cor_hash(key, c->pair_slots);
    while (c->pair_keys[h] != key) {
        if (c->pair_keys[h] == FK__COR_EMPTY) {
            if (!buckets) return FK__COR_EMPTY;
            c->pair_keys[h] = key;
            c->pair_buckets[h] = (*buckets)++;
            break;
        }
        h = (h + 1) & (c->pair_slots - 1);
    }
    return c->pair_buckets[h];
}

/* Writes triangle t's samples for the pair whose corner weights are w[0..2], w[3..5]:
   n^2 equal sub-triangles, centroids at barycentric ((3i+1+s)/3n, (3j+1+s)/3n),
   s = 0 for those pointing as the triangle does, 1 for the others. */
static void fk__cor_write_samples(fk__cor *c, size_t t, int n, const double *w, uint32_t at)
{
    const double third = 1.0 / (3.0 * (double)n);
    double p[3][3], e1[3], e2[3], normal[3], area;
    int i, j, flip, corner, axis;
    for (corner = 0; corner < 3; ++corner)
        for (axis = 0; axis < 3; ++axis)
            p[corner][axis] = (double)fk__float_at(c->d->positions, c->position_stride,
                                                   (int)c->d->indices[3 * t + (size_t)corner])[axis];
    for (axis = 0; axis < 3; ++axis) { e1[axis] = p[1][axis] - p[0][axis]; e2[axis] = p[2][axis] - p[0][axis]; }
    normal[0] = e1[1] * e2[2] - e1[2] * e2[1];
    normal[1] = e1[2] * e2[0] - e1[0] * e2[2];
    normal[2] = e1[0] * e2[1] - e1[1] * e2[0];
    area = 0.5 * sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]) / ((double)n * (double)n);
    for (i = 0; i < n; ++i)
        for (j = 0; i + j < n; ++j)
            for (flip = 0; flip < 2 && i + j + flip < n; ++flip, ++at) {
                const double l1 = (double)(3 * i + 1 + flip) * third, l2 = (double)(3 * j + 1 + flip) * third;
                const double l0 = 1.0 - l1 - l2;
                const double alpha = l0 * w[0] + l1 * w[1] + l2 * w[2], beta = l0 * w[3] + l1 * w[4] + l2 * w[5];
                const double mass = alpha * beta * area;
                double *s = c->sample + at;
                s[0] = alpha;
                s[c->samples] = beta;
                s[2 * c->samples] = mass;
                for (axis = 0; axis < 3; ++axis)
                    s[(3 + (size_t)axis) * c->samples] = mass * (l0 * p[0][axis] + l1 * p[1][axis] + l2 * p[2][axis]);
            }
}

/* Lists every triangle's samples under each pair of its bones, in two passes: counts, then samples. */
static void fk__cor_build(fk__cor *c)
{
    uint32_t buckets = 0, id, i;
    size_t t, bones_check;
    int pass, p, q, bones, n, corner;
    double w[6];
    for (p = 0; p < c->d->vertex_count; ++p) fk__cor_vertex_list(c, p);
    memset(c->pair_keys, 0xFF, c->pair_slots * sizeof(uint32_t));
    memset(c->bucket_start, 0, (c->samples + 2) * sizeof(uint32_t));
    for (pass = 0; pass < 2; ++pass) {
        for (t = 0; t < (size_t)c->d->triangle_count; ++t) {
            bones = fk__cor_union(c, t);
            n = fk__cor_triangle(c, t, &bones_check);
            FK_LBS_ASSERT(bones_check == (size_t)bones);
            for (p = 0; p < bones; ++p)
                for (q = p + 1; q < bones; ++q) {
                    id = fk__cor_bucket(c, (uint32_t)c->union_bones[p] << 16 | c->union_bones[q], &buckets);
                    if (pass == 0) { c->bucket_start[id + 2] += (uint32_t)(n * n); continue; }
                    for (corner = 0; corner < 3; ++corner) {
                        w[corner] = c->union_weights[3 * p + corner];
                        w[3 + corner] = c->union_weights[3 * q + corner];
                    }
                    fk__cor_write_samples(c, t, n, w, c->bucket_start[id + 1]);
                    c->bucket_start[id + 1] += (uint32_t)(n * n);
                }
        }
        for (i = 2; pass == 0 && i < buckets + 2; ++i) c->bucket_start[i] += c->bucket_start[i - 1];
    }
}

/* sum over one pair's bucket of e^(-x^2/sigma^2) (mass, moment), x = a beta - b alpha. */
static void fk__cor_pair_sums(const fk__cor *c, uint32_t id, double a, double b, double out[4])
{
    const double *alpha = c->sample, *beta = alpha + c->samples, *mass = beta + c->samples;
    const double *mx = mass + c->samples, *my = mx + c->samples, *mz = my + c->samples;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    uint32_t e;
    for (e = c->bucket_start[id]; e < c->bucket_start[id + 1]; ++e) {
        const double x = a * beta[e] - b * alpha[e], f = exp(-x * x * c->inverse_sigma2);
        s0 += f * mass[e];
        s1 += f * mx[e];
        s2 += f * my[e];
        s3 += f * mz[e];
    }
    out[0] = s0;
    out[1] = s1;
    out[2] = s2;
    out[3] = s3;
}

/* Nearly all the precompute's time is in those exponentials, and a call of exp()
   a term leaves the vector units idle. Where GCC's and clang's vector extensions
   map onto wide enough registers (x86-64 with AVX2 and FMA, chosen at run time;
   WebAssembly SIMD128) the same sum runs FK__COR_LANES samples at a time,
   branch-free, with its own e^-y good to a few units in the last place: y = k ln 2
   - u with |u| <= ln 2 / 2 (ln 2 in two parts, the first exact times any k here),
   e^u by its Taylor polynomial of degree 12 (remainder below 3e-16 of it), times
   2^-k in two halves so that a result below DBL_MIN is rounded once; y is capped
   at 1400, past which e^-y is zero in double anyway. The lanes are added last,
   and the last block is padded with samples of no mass. The rounding to k is
   t - 1.5 * 2^52 with t = y / ln 2 + 1.5 * 2^52, which -ffast-math may fold
   into y / ln 2: such builds keep exp(). */
#if defined(FK__SIMD_AVX2) && !defined(__FAST_MATH__)
#define FK__COR_LANES 4
#define FK__COR_TARGET __attribute__((target("avx2,fma")))
#elif defined(FK__SIMD_WASM) && !defined(__FAST_MATH__)
#define FK__COR_LANES 2
#define FK__COR_TARGET
#endif

#if defined(FK__COR_LANES)
typedef double fk__cor_lanes __attribute__((vector_size(8 * FK__COR_LANES)));
typedef uint64_t fk__cor_bits __attribute__((vector_size(8 * FK__COR_LANES)));

static FK__COR_TARGET void fk__cor_pair_sums_lanes(const fk__cor *c, uint32_t id, double a, double b, double out[4])
{
    const double to_integer = 6755399441055744.0; /* 1.5 * 2^52: adding it leaves an integer in the low bits */
    const uint32_t end = c->bucket_start[id + 1];
    fk__cor_lanes s0, s1, s2, s3, alpha, beta, y, t, k, u, u2, u4, p, m;
    fk__cor_bits n, half;
    double pad[6 * FK__COR_LANES];
    uint32_t e;
    int i, l;
    memset(&s0, 0, sizeof s0);
    s1 = s2 = s3 = s0;
    for (e = c->bucket_start[id]; e < end; e += FK__COR_LANES) {
        const double *row = c->sample + e;
        size_t apart = c->samples;
        if (end - e < FK__COR_LANES) {
            memset(pad, 0, sizeof pad);
            for (i = 0; i < 6; ++i) memcpy(pad + i * FK__COR_LANES, row + (size_t)i * apart, (end - e) * sizeof(double));
            row = pad;
            apart = FK__COR_LANES;
        }
        memcpy(&alpha, row, sizeof alpha);
        memcpy(&beta, row + apart, sizeof beta);
        u = a * beta - b * alpha;
        y = u * u * c->inverse_sigma2;
        y -= (fk__cor_lanes)((fk__cor_bits)(y > 1400.0) & (fk__cor_bits)(y - 1400.0));
        t = y * 1.4426950408889634 + to_integer;
        k = t - to_integer;
        u = (k * 6.93147180369123816490e-01 - y) + k * 1.90821492927058770002e-10;
        u2 = u * u;
        u4 = u2 * u2;
        p = ((1.0 + u) + (1.0 / 2 + u * (1.0 / 6)) * u2) +
            ((1.0 / 24 + u * (1.0 / 120)) + (1.0 / 720 + u * (1.0 / 5040)) * u2) * u4 +
            (((1.0 / 40320 + u * (1.0 / 362880)) + (1.0 / 3628800 + u * (1.0 / 39916800)) * u2) +
             u4 * (1.0 / 479001600)) * (u4 * u4);
        n = (fk__cor_bits)t & 0xFFFu;
        half = n / 2u;
        p *= (fk__cor_lanes)((1023u - half) << 52);
        p *= (fk__cor_lanes)((1023u - (n - half)) << 52);
        memcpy(&m, row + 2 * apart, sizeof m);
        s0 += p * m;
        memcpy(&m, row + 3 * apart, sizeof m);
        s1 += p * m;
        memcpy(&m, row + 4 * apart, sizeof m);
        s2 += p * m;
        memcpy(&m, row + 5 * apart, sizeof m);
        s3 += p * m;
    }
    for (out[0] = out[1] = out[2] = out[3] = 0.0, l = 0; l < FK__COR_LANES; ++l) {
        out[0] += s0[l];
        out[1] += s1[l];
        out[2] += s2[l];
        out[3] += s3[l];
    }
#if defined(FK__SIMD_AVX2)
    _mm256_zeroupper(); /* gcc below -O2 leaves the upper halves in use, which slows the SSE code after */
#endif
}

/* Whether this processor runs fk__cor_pair_sums_lanes(). */
static int fk__cor_use_lanes(void)
{
#if defined(FK__SIMD_AVX2)
    return fk__has_avx2_fma();
#else
    return 1;
#endif
}
#endif

/* Vertex v's centre; returns 0 when its sum is zero (the centre is then its position). */
static int fk__cor_vertex(fk__cor *c, int v, float *out)
{
    const uint16_t *bones = c->list_bones + (size_t)v * c->k;
    const double *w = c->list_weights + (size_t)v * c->k;
    double sums[4] = {0.0, 0.0, 0.0, 0.0}, pair[4];
    uint32_t id;
    int p, q, i;
    for (p = 0; p < c->list_count[v]; ++p)
        for (q = p + 1; q < c->list_count[v]; ++q) {
            if ((id = fk__cor_bucket(c, (uint32_t)bones[p] << 16 | bones[q], NULL)) == FK__COR_EMPTY) continue;
#if defined(FK__COR_LANES)
            if (c->lanes) fk__cor_pair_sums_lanes(c, id, w[p], w[q], pair);
            else
#endif
                fk__cor_pair_sums(c, id, w[p], w[q], pair);
            for (i = 0; i < 4; ++i) sums[i] += w[p] * w[q] * pair[i];
        }
    if (!(sums[0] > 0.0)) return 0;
    for (i = 0; i < 3; ++i) out[i] = (float)(sums[1 + i] / sums[0]);
    return 1;
}

/* Vertices with equal weight lists share a centre: a table of those computed, by list. */
static size_t fk__cor_list_hash(const fk__cor *c, int v)
{
    uint64_t h = 0xCBF29CE484222325ull, bits;
    int i;
    for (i = 0; i < c->list_count[v]; ++i) {
        memcpy(&bits, c->list_weights + (size_t)v * c->k + (size_t)i, sizeof bits);
        h = (h ^ c->list_bones[(size_t)v * c->k + (size_t)i] ^ bits) * 0x100000001B3ull;
    }
    return (size_t)(h >> 17) & (c->dedupe_slots - 1);
}

static int fk__cor_same_list(const fk__cor *c, int u, int v)
{
    const size_t count = (size_t)c->list_count[v];
    return c->list_count[u] == c->list_count[v] &&
           !memcmp(c->list_bones + (size_t)u * c->k, c->list_bones + (size_t)v * c->k, count * sizeof(uint16_t)) &&
           !memcmp(c->list_weights + (size_t)u * c->k, c->list_weights + (size_t)v * c->k, count * sizeof(double));
}

FK_LBS_DEF fk_result fk_cor_workspace_size(const fk_cor_desc *desc, size_t *out_bytes)
{
    fk__cor c;
    fk_result r = fk__cor_check(desc, &c);
    if (r == FK_OK && !out_bytes) r = FK_ERROR_NULL_ARGUMENT;
    return r != FK_OK ? r : fk__cor_layout(&c, NULL, out_bytes);
}

FK_LBS_DEF fk_result fk_cor_centers(const fk_cor_desc *desc, int first_vertex, int vertex_count, void *workspace,
                                    size_t workspace_bytes, float *out_centers, size_t out_stride)
{
    fk__cor c;
    size_t bytes, h;
    fk_result r = fk__cor_check(desc, &c);
    int v, u, state; /* state: 0 own position, 1 computed, 2 copied */
    if (r != FK_OK) return r;
    if (first_vertex < 0 || vertex_count < 0 || first_vertex > desc->vertex_count - vertex_count)
        return FK_ERROR_INVALID_COUNT;
    if ((vertex_count > 0 && !out_centers) || !workspace) return FK_ERROR_NULL_ARGUMENT;
    if ((r = fk__check_stride(&out_stride, 3 * sizeof(float), sizeof(float), out_centers, desc->vertex_count)) != FK_OK ||
        (r = fk__cor_layout(&c, NULL, &bytes)) != FK_OK)
        return r;
    if (workspace_bytes < bytes) return FK_ERROR_INVALID_COUNT;
    (void)fk__cor_layout(&c, (char *)workspace + (8 - (size_t)(char *)workspace % 8) % 8, &bytes);
    fk__cor_build(&c);
#if defined(FK__COR_LANES)
    c.lanes = fk__cor_use_lanes();
#endif
    memset(c.dedupe, 0xFF, c.dedupe_slots * sizeof(int));
    for (v = first_vertex; v < first_vertex + vertex_count; ++v) {
        float *out = fk__out_at(out_centers, out_stride, v);
        state = 0;
        if (c.list_count[v] >= 2) { /* the table holds v for a centre, -2 - v for a zero sum */
            for (h = fk__cor_list_hash(&c, v); c.dedupe[h] != -1; h = (h + 1) & (c.dedupe_slots - 1)) {
                u = c.dedupe[h] >= 0 ? c.dedupe[h] : -2 - c.dedupe[h];
                if (!fk__cor_same_list(&c, u, v)) continue;
                if (c.dedupe[h] >= 0) memcpy(out, fk__out_at(out_centers, out_stride, u), 3 * sizeof(float));
                state = c.dedupe[h] >= 0 ? 2 : 3;
                break;
            }
            if (state == 0 && (state = fk__cor_vertex(&c, v, out)) >= 0) c.dedupe[h] = state ? v : -2 - v;
        }
        if (state == 0 || state == 3) memcpy(out, fk__float_at(desc->positions, c.position_stride, v), 3 * sizeof(float));
    }
    return FK_OK;
}

/* ---- Centres of rotation: skinning --------------------------------------------
   fk_skin_cor() runs the skinning functions' driver (fk__skin(): palette in the
   scratch or on the stack, else bones converted as used) with the descriptor
   inside a larger struct that also carries the centres: the loop gets the
   descriptor's address back and finds them beside it. A palette entry is the
   bone's LBS matrix by columns (fk__lbs_bone()), which moves the centre, then
   its unit rotation, which is blended, and with scale the linear part of its
   scale part by columns (fk__dqs_scaled_bone()'s), whose first column's fourth
   place holds a 1 so that blending it sums the weights. */

typedef struct fk__cor_skin {
    fk_skin_desc desc; /* first: its address is the struct's */
    const float *centers;
    size_t center_stride;
    int scaled;
    /* bones with scale in their second step (fk__scaled_in_two()): the rigid
       kernel's points are offsets from the centres, and a vertex it cannot
       take goes to the plain loop with this palette; else NULL */
    const float *scaled_palette;
} fk__cor_skin;

static FK__SMALL void fk__cor_bone_of(const fk_skin_desc *d, int joint, float *out)
{
    fk_rigid bone;
    fk__lbs_bone_of(d, joint, out);
    if (d->matrices) {
        bone = fk_rigid_from_mat34(d->matrices + 12 * (size_t)joint);
        fk__unit_rotation(&bone.q, out + FK__LBS_BONE_FLOATS);
    } else {
        fk__unit_rotation(&d->transforms[joint].q, out + FK__LBS_BONE_FLOATS);
    }
}

static FK__SMALL void fk__cor_scaled_bone_of(const fk_skin_desc *d, int joint, float *out)
{
    float parts[FK__DQS_SCALED_STRIDE];
    fk__lbs_bone_of(d, joint, out);
    fk__dqs_scaled_bone(d->matrices + 12 * (size_t)joint, &d->bind_poses[joint], 0, parts);
    memcpy(out + FK__LBS_BONE_FLOATS, parts, 4 * sizeof(float));
    memcpy(out + FK__LBS_BONE_FLOATS + 4, parts + FK__DQS_SCALE_AT, 12 * sizeof(float));
}

/* A 3x3 matrix stored by columns of four floats, as the palettes store it, times v. */
static fk_vec3 fk__mat3_columns_apply(const float *m, fk_vec3 v)
{
    return fk_vec3_make(m[0] * v.x + m[4] * v.y + m[8] * v.z, m[1] * v.x + m[5] * v.y + m[9] * v.z,
                        m[2] * v.x + m[6] * v.y + m[10] * v.z);
}

/* With scale: R becomes R S, S the blended scale part (scale[3]: the weights'
   sum), and the normal goes through its cofactors. Out of line: only bones
   with scale need it. */
static FK__NOINLINE fk_vec3 fk__cor_scale_turn(float rotation[FK__LBS_BONE_FLOATS], float scale[FK__LBS_BONE_FLOATS],
                                               fk_vec3 n)
{
    const float total = scale[3];
    int e;
    for (e = 0; e < 12; ++e) scale[e] /= total;
    for (e = 0; e < 12; e += 4) fk__store3(scale + e, fk__mat3_columns_apply(rotation, fk__load3(scale + e)));
    memcpy(rotation, scale, 12 * sizeof(float));
    return fk__cofactor_normal(rotation, n);
}

/* The plain loop over vertices [begin, end): its bones from the palette or,
   with a NULL palette, from the cache. Compiled for size though it runs per
   vertex: it measured no slower so, and speed is a fast path's to give. */
static FK__CLANG_SMALL fk_result fk__cor_reference_from(const fk_skin_desc *d, const fk__skin_layout *layout,
                                                  const float *palette, fk__bone_cache *cache, int begin, int end)
{
    const fk__cor_skin *s = (const fk__cor_skin *)(const void *)d;
    const size_t stride = s->scaled ? FK__COR_SCALED_FLOATS : FK__COR_BONE_FLOATS;
    const float *b;
    int i, k, e;
    for (i = begin; i < end; ++i) {
        float blend[FK__LBS_BONE_FLOATS] = {0.0f}, scale[FK__LBS_BONE_FLOATS] = {0.0f}, rotation[FK__LBS_BONE_FLOATS];
        float norm2, largest;
        fk_quat q = fk_quat_make(0.0f, 0.0f, 0.0f, 0.0f), pivot;
        fk_vec3 p, c, n, moved;
        fk__tangent tangent = {{0.0f, 0.0f, 0.0f}, {0}};
        for (k = 0; k < d->influences; ++k)
            if (fk__influence_joint(d, layout, i, k) < 0) return FK_ERROR_JOINT_OUT_OF_RANGE;
        k = fk__influence_joint(d, layout, i, fk__heaviest(d, layout, i));
        b = (palette ? palette + (size_t)k * stride : fk__cached_bone(d, cache, k)) + FK__LBS_BONE_FLOATS;
        pivot = fk_quat_make(b[0], b[1], b[2], b[3]);
        for (k = 0; k < d->influences; ++k) {
            const int joint = fk__influence_joint(d, layout, i, k);
            const float weight = fk__influence_weight(d, layout, i, k);
            float w;
            b = palette ? palette + (size_t)joint * stride : fk__cached_bone(d, cache, joint);
            for (e = 0; e < FK__LBS_BONE_FLOATS; ++e) blend[e] += weight * b[e];
            b += FK__LBS_BONE_FLOATS;
            /* the heaviest influence's hemisphere, as fk__dqs_reference_from() */
            w = fk_quat_dot(pivot, fk_quat_make(b[0], b[1], b[2], b[3])) < 0.0f ? -weight : weight;
            q = fk_quat_make(q.x + w * b[0], q.y + w * b[1], q.z + w * b[2], q.w + w * b[3]);
            for (e = 0; s->scaled && e < 12; ++e) scale[e] += weight * b[4 + e];
        }
        /* Read the whole vertex before writing: the output may be the input. */
        p = fk__load3(fk__float_at(d->positions, layout->position_stride, i));
        c = fk__load3(fk__float_at(s->centers, s->center_stride, i));
        n = d->normals ? fk__load3(fk__float_at(d->normals, layout->normal_stride, i)) : p;
        if (d->tangents) tangent = fk__load_tangent(fk__float_at(d->tangents, layout->tangent_stride, i));
        norm2 = fk_quat_dot(q, q);
        largest = fk__quat_largest_magnitude(q);
        if (!(norm2 >= FLT_MIN && norm2 <= FLT_MAX) && largest > 0.0f && largest <= FLT_MAX) {
            q = fk__quat_divide(q, largest); /* tiny or huge weights: only R's direction counts */
            norm2 = fk_quat_dot(q, q);
        }
        if (norm2 != 0.0f) { /* all weights zero: the rest vertex; NaN stays NaN */
            fk_rigid turn;
            turn.q = q;
            turn.t = fk_vec3_make(0.0f, 0.0f, 0.0f);
            fk__lbs_bone(&turn, rotation); /* R, or R S with scale, by columns */
            if (s->scaled && scale[3] != 0.0f) n = fk__cor_scale_turn(rotation, scale, n);
            else n = fk__mat3_columns_apply(rotation, n);
            /* the centre moved as fk__lbs_reference_from() moves a point, in
               the same expression, so that the same bits come out */
            moved = fk_vec3_make(blend[0] * c.x + blend[4] * c.y + blend[8] * c.z + blend[12],
                                 blend[1] * c.x + blend[5] * c.y + blend[9] * c.z + blend[13],
                                 blend[2] * c.x + blend[6] * c.y + blend[10] * c.z + blend[14]);
            p = fk_vec3_add(fk__mat3_columns_apply(rotation, fk_vec3_sub(p, c)), moved);
            n = fk_vec3_normalize(n);
            tangent.xyz = fk_vec3_normalize(fk__mat3_columns_apply(rotation, tangent.xyz));
        }
        fk__store3(fk__out_at(d->out_positions, layout->out_position_stride, i), p);
        if (d->normals) fk__store3(fk__out_at(d->out_normals, layout->out_normal_stride, i), n);
        if (d->tangents) fk__store_tangent(fk__out_at(d->out_tangents, layout->out_tangent_stride, i), tangent.xyz, &tangent);
    }
    return FK_OK;
}

static FK__NOINLINE fk_result fk__cor_reference(const fk_skin_desc *d, const fk__skin_layout *layout,
                                                const float *palette, int begin, int end)
{
    fk__bone_cache cache;
    if (palette) return fk__cor_reference_from(d, layout, palette, NULL, begin, end);
    fk__bone_cache_start(&cache, ((const fk__cor_skin *)(const void *)d)->scaled ? fk__cor_scaled_bone_of
                                                                                 : fk__cor_bone_of);
    return fk__cor_reference_from(d, layout, NULL, &cache, begin, end);
}

/* The fast path (see FAST PATHS) takes rigid bones and bones with scale;
   what no fast path takes (tangents, dense weights, a rig past the palette or
   past the stack's copies of a palette with scale) runs the plain loop. */
static int fk__cor_fast(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette, void *tables,
                        fk_result *result);

FK_LBS_DEF FK__SMALL fk_result fk_skin_cor(const fk_skin_desc *desc, const float *centers, size_t center_stride)
{
    fk__cor_skin s;
    fk__skin_layout layout;
    fk_result result = fk__check_skin(desc, &layout);
    if (result == FK_OK && !centers) result = FK_ERROR_NULL_ARGUMENT;
    if (result == FK_OK)
        result = fk__check_stride(&center_stride, 3 * sizeof(float), sizeof(float), centers, desc->vertex_count);
    if (result == FK_OK) result = fk__dqs_bones_scaled(desc, &s.scaled);
    if (result != FK_OK) return result;
    s.desc = *desc;
    s.centers = centers;
    s.center_stride = center_stride;
    s.scaled_palette = NULL;
    return fk__skin(&s.desc, &layout, s.scaled ? FK__COR_SCALED_FLOATS : FK__COR_BONE_FLOATS,
                    fk__cor_table_bytes(desc, s.scaled),
                    s.scaled ? fk__cor_scaled_bone_of : fk__cor_bone_of, fk__cor_fast, fk__cor_reference);
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

static FK__SMALL fk_result fk__check_weights(const fk_weights_desc *d, fk__weights_layout *layout)
{
    fk_result r;
    size_t k;
    if (!d) return FK_ERROR_NULL_ARGUMENT;
    if (d->vertex_count < 0 || d->influences < 1 || d->joint_count < 1 || d->max_influences < 0 ||
        d->max_influences > d->influences)
        return FK_ERROR_INVALID_COUNT;
    if (!d->joints || !d->weights) return FK_ERROR_NULL_ARGUMENT;
    if ((r = fk__influence_count(d->influences, d->vertex_count, &k)) != FK_OK) return r;
    layout->joint_stride = d->joint_stride;
    layout->weight_stride = d->weight_stride;
    if ((r = fk__check_stride(&layout->joint_stride, k * sizeof(uint16_t), sizeof(uint16_t), d->joints, d->vertex_count)) != FK_OK) return r;
    if ((r = fk__check_stride(&layout->weight_stride, k * sizeof(float), sizeof(float), d->weights, d->vertex_count)) != FK_OK) return r;
    layout->keep = d->max_influences ? d->max_influences : d->influences;
    return FK_OK;
}

/* A slot counts when it names a real joint with a positive, finite weight. */
static FK__SMALL int fk__slot_counts(const uint16_t *joints, const float *weights, int slot, int joint_count)
{
    return (int)joints[slot] < joint_count && fk__is_finite(weights[slot]) && weights[slot] > 0.0f;
}

static FK__SMALL int fk__inspect_vertex(const uint16_t *joints, const float *weights, int k, int keep, int joint_count)
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

static FK__SMALL void fk__repair_vertex(uint16_t *joints, float *weights, int k, int keep, int joint_count)
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

static FK__SMALL fk_result fk__weights(const fk_weights_desc *desc, fk_weights_report *report, int repair)
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

/* Pose p's weight at joint i: its weight times its mask there (1 without one). */
static float fk__masked_weight(const float *weights, const float *const *masks, int p, int i)
{
    return masks && masks[p] ? weights[p] * masks[p][i] : weights[p];
}

FK_LBS_DEF fk_result fk_pose_blend_masked(int joint_count, int pose_count, const fk_quat *const *rotations,
                                          const fk_vec3 *const *translations, const float *weights,
                                          const float *const *masks, fk_quat *out_rotations,
                                          fk_vec3 *out_translations)
{
    fk_result result;
    float total = 0.0f;
    int i, p;
    if (joint_count < 0 || pose_count < 1) return FK_ERROR_INVALID_COUNT;
    if (!rotations || !weights || (joint_count > 0 && !out_rotations)) return FK_ERROR_NULL_ARGUMENT;
    for (p = 0; p < pose_count; ++p) {
        if (!fk__is_within(weights[p], 0.0f, FLT_MAX)) return FK_ERROR_INVALID_WEIGHT;
        total += weights[p];
    }
    if (!fk__is_finite(total) || !(total > 0.0f)) return FK_ERROR_INVALID_WEIGHT;
    for (p = 0; p < pose_count; ++p)
        if ((result = fk__check_pose(joint_count, rotations[p], translations ? translations[p] : NULL)) != FK_OK)
            return result;
    for (i = 0; masks && i < joint_count; ++i) { /* every joint's masks and sum, before anything is written */
        float sum = 0.0f;
        for (p = 0; p < pose_count; ++p) {
            if (masks[p] && !fk__is_within(masks[p][i], 0.0f, FLT_MAX)) return FK_ERROR_INVALID_WEIGHT;
            sum += fk__masked_weight(weights, masks, p, i);
        }
        if (!fk__is_finite(sum) || !(sum > 0.0f)) return FK_ERROR_INVALID_WEIGHT;
    }
    for (i = 0; i < joint_count; ++i) {
        /* Against the heaviest pose's rotation no other can cancel the sum: each
           term's dot product with it is >= 0 after the flip, and its own is > 0. */
        float sum = 0.0f;
        int heaviest = 0;
        fk_quat pivot, q = fk_quat_make(0.0f, 0.0f, 0.0f, 0.0f);
        fk_vec3 d = fk_vec3_make(0.0f, 0.0f, 0.0f);
        for (p = 0; p < pose_count; ++p) {
            if (fk__masked_weight(weights, masks, p, i) > fk__masked_weight(weights, masks, heaviest, i)) heaviest = p;
            sum += fk__masked_weight(weights, masks, p, i);
        }
        pivot = fk_quat_normalize(rotations[heaviest][i]);
        for (p = 0; p < pose_count; ++p) {
            fk_quat r = fk_quat_normalize(rotations[p][i]);
            float w = fk__masked_weight(weights, masks, p, i) / sum;
            float signed_w = fk_quat_dot(pivot, r) < 0.0f ? -w : w;
            q = fk_quat_make(q.x + signed_w * r.x, q.y + signed_w * r.y, q.z + signed_w * r.z, q.w + signed_w * r.w);
            if (translations) d = fk_vec3_add(d, fk_vec3_scale(fk__vec3_at_or_zero(translations[p], i), w));
        }
        out_rotations[i] = fk_quat_normalize(q);
        if (out_translations) out_translations[i] = d;
    }
    return FK_OK;
}

FK_LBS_DEF fk_result fk_pose_blend(int joint_count, int pose_count, const fk_quat *const *rotations,
                                   const fk_vec3 *const *translations, const float *weights,
                                   fk_quat *out_rotations, fk_vec3 *out_translations)
{
    return fk_pose_blend_masked(joint_count, pose_count, rotations, translations, weights, NULL, out_rotations,
                                out_translations);
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

FK_LBS_DEF fk_result fk_pose_add_masked(int joint_count, const fk_quat *base_rotations,
                                        const fk_vec3 *base_translations, const fk_quat *delta_rotations,
                                        const fk_vec3 *delta_translations, float weight, const float *mask,
                                        fk_quat *out_rotations, fk_vec3 *out_translations)
{
    fk_result result = fk__check_two_poses(joint_count, base_rotations, base_translations, delta_rotations,
                                           delta_translations, weight, out_rotations);
    int i;
    if (result != FK_OK) return result;
    for (i = 0; mask && i < joint_count; ++i)
        if (!fk__is_finite(mask[i]) || !fk__is_finite(weight * mask[i])) return FK_ERROR_INVALID_WEIGHT;
    for (i = 0; i < joint_count; ++i) {
        fk_vec3 base_d = fk__vec3_at_or_zero(base_translations, i), delta_d = fk__vec3_at_or_zero(delta_translations, i);
        const float w = mask ? weight * mask[i] : weight;
        /* delta^w along the shorter arc: the rotation vector scaled by w. */
        fk_quat partial = fk_quat_from_rotation_vector(fk_vec3_scale(fk_quat_to_rotation_vector(delta_rotations[i]), w));
        out_rotations[i] = fk_quat_normalize(fk_quat_mul(fk_quat_normalize(base_rotations[i]), partial));
        if (out_translations) out_translations[i] = fk_vec3_add(base_d, fk_vec3_scale(delta_d, w));
    }
    return FK_OK;
}

FK_LBS_DEF fk_result fk_pose_add(int joint_count, const fk_quat *base_rotations, const fk_vec3 *base_translations,
                                 const fk_quat *delta_rotations, const fk_vec3 *delta_translations, float weight,
                                 fk_quat *out_rotations, fk_vec3 *out_translations)
{
    return fk_pose_add_masked(joint_count, base_rotations, base_translations, delta_rotations, delta_translations,
                              weight, NULL, out_rotations, out_translations);
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
    int i;
    if (result != FK_OK) return result;
    if (!values || !out) return FK_ERROR_NULL_ARGUMENT;
    if (fk__is_nan(time)) return FK_ERROR_NOT_FINITE;
    for (i = 0; i < key_count; ++i)
        if (!fk__vec3_is_finite(values[i])) return FK_ERROR_NOT_FINITE;
    return fk_track_evaluate_vec3(key_count, times, values, FK_INTERPOLATION_LINEAR, time, NULL, out);
}

FK_LBS_DEF fk_result fk_track_sample_quat(int key_count, const float *times, const fk_quat *values, float time,
                                          fk_rotation_interpolation method, fk_quat *out)
{
    fk_result result = fk_track_validate(key_count, times);
    int i;
    if (result != FK_OK) return result;
    if (!values || !out) return FK_ERROR_NULL_ARGUMENT;
    if (fk__is_nan(time)) return FK_ERROR_NOT_FINITE;
    for (i = 0; i < key_count; ++i)
        if (!fk__quat_is_normalizable(values[i])) return FK_ERROR_INVALID_ROTATION;
    /* any method but NLERP has always meant SLERP here */
    return fk_track_evaluate_quat(key_count, times, values, FK_INTERPOLATION_LINEAR,
                                  method == FK_INTERPOLATE_NLERP ? FK_INTERPOLATE_NLERP : FK_INTERPOLATE_SLERP, time,
                                  NULL, out);
}

/* ---- Interpolation ----------------------------------------------------------
   glTF's samplers. Keys t_0 < ... < t_{n-1}; before t_0 the track is v_0, from
   t_{n-1} on it is v_{n-1}. Between, with t_k <= t < t_{k+1}, t_d = t_{k+1} - t_k
   and s = (t - t_k) / t_d in [0, 1):
       STEP          v_k
       LINEAR        (1 - s) v_k + s v_{k+1}           (rotations: slerp or nlerp)
       CUBICSPLINE   h00 v_k + t_d h10 b_k + h01 v_{k+1} + t_d h11 a_{k+1}
   with the cubic Hermite basis written in factored forms,
       h01 = s^2 (3 - 2s)   h00 = 1 - h01   h10 = s (1 - s)^2   h11 = s^2 (s - 1),
   which equal glTF's polynomials and give exactly v_k at s = 0. A CUBICSPLINE key
   is stored as glTF stores it: in-tangent a_k, value v_k, out-tangent b_k. Cubic
   rotations are the same curve on the four components, normalized after; glTF
   asks for no hemisphere correction there, so none is made.

   The key pair is found from the caller's cursor: its key and the next are
   tried first (playing forward by less than a key stays O(1)), then bisection.
   On strictly ascending keys only one pair brackets t, so every cursor gives the
   same pair, hence the same bits. Only the keys read are checked: a bracket
   t_k <= t < t_{k+1} with both ends finite is ascending by itself, whatever the
   other keys hold, and bisection keeps that bracket as its invariant, so
   unchecked keys can make the answer meaningless but never make a read stray. */

/* Where a time falls on a track, and the cubic weights there. */
typedef struct fk__track_point {
    int key;          /* the key at or before the time; 0 before the first key */
    int inside;       /* 1 when t_key <= time < t_{key+1}: the sample lies between two keys */
    float fraction;   /* s */
    float value0, out_tangent0, value1, in_tangent1; /* h00, t_d h10, h01, t_d h11 */
} fk__track_point;

static FK__SMALL int fk__track_brackets(const float *times, int key, float time)
{
    return times[key] <= time && time < times[key + 1];
}

static FK__SMALL fk_result fk__track_locate(int key_count, const float *times, float time, const int *cursor,
                                  fk__track_point *point)
{
    const int last = key_count - 1;
    const int guess = cursor ? *cursor : -1;
    float s, t_d, h01;
    int key;
    if (!fk__is_finite(times[0]) || !fk__is_finite(times[last]) || (last > 0 && !(times[0] < times[last])))
        return FK_ERROR_KEYS_NOT_ASCENDING;
    point->key = 0;
    point->inside = 0;
    point->fraction = point->value0 = point->out_tangent0 = point->value1 = point->in_tangent1 = 0.0f;
    if (time <= times[0]) return FK_OK;
    if (time >= times[last]) { point->key = last; return FK_OK; }
    if (guess >= 0 && guess < last && fk__track_brackets(times, guess, time)) key = guess;
    else if (guess >= 0 && guess < last - 1 && fk__track_brackets(times, guess + 1, time)) key = guess + 1;
    else key = fk__track_find(key_count, times, time, &s);
    if (!fk__is_finite(times[key]) || !fk__is_finite(times[key + 1])) return FK_ERROR_KEYS_NOT_ASCENDING;
    t_d = times[key + 1] - times[key];
    /* finite ascending keys more than FLT_MAX apart: s would be NaN or 0 */
    if (!fk__is_finite(t_d)) return FK_ERROR_NOT_FINITE;
    s = (time - times[key]) / t_d; /* fk__track_find()'s expression: the same bits */
    h01 = s * s * (3.0f - 2.0f * s);
    point->key = key;
    point->inside = 1;
    point->fraction = s;
    point->value0 = 1.0f - h01;
    point->out_tangent0 = t_d * (s * (1.0f - s) * (1.0f - s));
    point->value1 = h01;
    point->in_tangent1 = t_d * (s * s * (s - 1.0f));
    return FK_OK;
}

/* The numbers a sample reads, as pointers to tuples of floats: v_k, b_k, a_{k+1},
   v_{k+1}, NULL for each one it does not read. */
enum { FK__TRACK_VALUE0, FK__TRACK_OUT_TANGENT0, FK__TRACK_IN_TANGENT1, FK__TRACK_VALUE1, FK__TRACK_READS };
typedef struct fk__track_keys {
    const float *tuple[FK__TRACK_READS];
} fk__track_keys;

/* Which elements of a values array the sample at @p point reads (glTF stores a
   CUBICSPLINE key as three elements, in-tangent, value, out-tangent; other keys as
   one): read[r] says whether it reads number r, element[r] where it is. */
static FK__SMALL void fk__track_elements(fk_interpolation interpolation, const fk__track_point *point,
                               int read[FK__TRACK_READS], size_t element[FK__TRACK_READS])
{
    static const int key_offset[FK__TRACK_READS] = {0, 0, 1, 1}, cubic_role[FK__TRACK_READS] = {1, 2, 0, 1};
    const int cubic = interpolation == FK_INTERPOLATION_CUBICSPLINE;
    const int between = point->inside && interpolation != FK_INTERPOLATION_STEP;
    int r;
    read[FK__TRACK_VALUE0] = 1;
    read[FK__TRACK_VALUE1] = between;
    read[FK__TRACK_OUT_TANGENT0] = read[FK__TRACK_IN_TANGENT1] = between && cubic;
    for (r = 0; r < FK__TRACK_READS; ++r) {
        size_t key = (size_t)point->key + (size_t)(read[r] ? key_offset[r] : 0);
        element[r] = cubic ? 3u * key + (size_t)cubic_role[r] : key;
    }
}

static FK__SMALL int fk__track_read_is_finite(const float *tuple, int c) { return !tuple || fk__is_finite(tuple[c]); }

/* Component @p c of the sample, or NaN when a number it reads or the result is
   not finite (the callers turn that into FK_ERROR_NOT_FINITE). */
static FK__SMALL float fk__track_component(const fk__track_point *point, const fk__track_keys *keys, int c)
{
    const float *v0 = keys->tuple[FK__TRACK_VALUE0], *b0 = keys->tuple[FK__TRACK_OUT_TANGENT0];
    const float *a1 = keys->tuple[FK__TRACK_IN_TANGENT1], *v1 = keys->tuple[FK__TRACK_VALUE1];
    float result;
    if (!fk__track_read_is_finite(v0, c) || !fk__track_read_is_finite(b0, c) || !fk__track_read_is_finite(a1, c) ||
        !fk__track_read_is_finite(v1, c))
        return NAN;
    if (b0 && a1 && v1) {
        result = point->value0 * v0[c] + point->out_tangent0 * b0[c] + point->value1 * v1[c] +
                 point->in_tangent1 * a1[c];
    } else if (v1) {
        /* two statements, rounded as fk__vec3_lerp() rounds: fk_track_sample_vec3()'s bits */
        float from = v0[c] * (1.0f - point->fraction);
        float to = v1[c] * point->fraction;
        result = from + to;
    } else {
        result = v0[c];
    }
    return fk__is_finite(result) ? result : NAN;
}

/* The checks every sampler starts with, then the point on the track. */
static FK__SMALL fk_result fk__track_begin(int key_count, const float *times, const void *values, const void *out,
                                 fk_interpolation interpolation, float time, const int *cursor,
                                 fk__track_point *point)
{
    if (key_count < 1) return FK_ERROR_INVALID_COUNT;
    if (!times || !values || !out) return FK_ERROR_NULL_ARGUMENT;
    if (interpolation != FK_INTERPOLATION_LINEAR && interpolation != FK_INTERPOLATION_STEP &&
        interpolation != FK_INTERPOLATION_CUBICSPLINE)
        return FK_ERROR_INVALID_OPTION;
    if (fk__is_nan(time)) return FK_ERROR_NOT_FINITE;
    return fk__track_locate(key_count, times, time, cursor, point);
}

FK_LBS_DEF fk_result fk_track_evaluate(int key_count, const float *times, const float *values, int component_count,
                                       fk_interpolation interpolation, float time, int *cursor, float *out)
{
    fk__track_point point;
    fk__track_keys keys;
    size_t element[FK__TRACK_READS];
    int read[FK__TRACK_READS], r, c;
    fk_result result;
    if (component_count < 1) return FK_ERROR_INVALID_COUNT;
    result = fk__track_begin(key_count, times, values, out, interpolation, time, cursor, &point);
    if (result != FK_OK) return result;
    fk__track_elements(interpolation, &point, read, element);
    for (r = 0; r < FK__TRACK_READS; ++r)
        keys.tuple[r] = read[r] ? values + (size_t)component_count * element[r] : NULL;
    /* Every component is checked before the first is written: there is no room to
       hold them, so they are computed twice. */
    for (c = 0; c < component_count; ++c) {
        const float sample = fk__track_component(&point, &keys, c);
        if (fk__is_nan(sample)) return FK_ERROR_NOT_FINITE;
    }
    for (c = 0; c < component_count; ++c) out[c] = fk__track_component(&point, &keys, c);
    if (cursor) *cursor = point.key;
    return FK_OK;
}

FK_LBS_DEF fk_result fk_track_evaluate_vec3(int key_count, const float *times, const fk_vec3 *values,
                                            fk_interpolation interpolation, float time, int *cursor, fk_vec3 *out)
{
    fk__track_point point;
    fk__track_keys keys;
    size_t element[FK__TRACK_READS];
    float tuples[FK__TRACK_READS][3], sample[3];
    int read[FK__TRACK_READS], r, c;
    fk_result result = fk__track_begin(key_count, times, values, out, interpolation, time, cursor, &point);
    if (result != FK_OK) return result;
    fk__track_elements(interpolation, &point, read, element);
    for (r = 0; r < FK__TRACK_READS; ++r) {
        keys.tuple[r] = NULL;
        if (!read[r]) continue;
        tuples[r][0] = values[element[r]].x; tuples[r][1] = values[element[r]].y; tuples[r][2] = values[element[r]].z;
        keys.tuple[r] = tuples[r];
    }
    for (c = 0; c < 3; ++c) {
        sample[c] = fk__track_component(&point, &keys, c);
        if (fk__is_nan(sample[c])) return FK_ERROR_NOT_FINITE;
    }
    *out = fk_vec3_make(sample[0], sample[1], sample[2]);
    if (cursor) *cursor = point.key;
    return FK_OK;
}

FK_LBS_DEF fk_result fk_track_evaluate_quat(int key_count, const float *times, const fk_quat *values,
                                            fk_interpolation interpolation, fk_rotation_interpolation method,
                                            float time, int *cursor, fk_quat *out)
{
    fk__track_point point;
    fk__track_keys keys;
    size_t element[FK__TRACK_READS];
    float tuples[FK__TRACK_READS][4], sample[4];
    int read[FK__TRACK_READS], r, c;
    fk_quat q;
    fk_result result = fk__track_begin(key_count, times, values, out, interpolation, time, cursor, &point);
    if (result != FK_OK) return result;
    if (method != FK_INTERPOLATE_SLERP && method != FK_INTERPOLATE_NLERP) return FK_ERROR_INVALID_OPTION;
    fk__track_elements(interpolation, &point, read, element);
    for (r = 0; r < FK__TRACK_READS; ++r) {
        fk_quat k;
        keys.tuple[r] = NULL;
        if (!read[r]) continue;
        k = values[element[r]];
        if ((r == FK__TRACK_VALUE0 || r == FK__TRACK_VALUE1) && !fk__quat_is_normalizable(k))
            return FK_ERROR_INVALID_ROTATION;
        tuples[r][0] = k.x; tuples[r][1] = k.y; tuples[r][2] = k.z; tuples[r][3] = k.w;
        keys.tuple[r] = tuples[r];
    }
    if (!read[FK__TRACK_VALUE1]) {
        q = fk_quat_normalize(values[element[FK__TRACK_VALUE0]]);
    } else if (interpolation == FK_INTERPOLATION_LINEAR) {
        q = fk__quat_interpolate(values[element[FK__TRACK_VALUE0]], values[element[FK__TRACK_VALUE1]],
                                 point.fraction, method);
    } else {
        for (c = 0; c < 4; ++c) {
            sample[c] = fk__track_component(&point, &keys, c);
            if (fk__is_nan(sample[c])) return FK_ERROR_NOT_FINITE;
        }
        q = fk_quat_make(sample[0], sample[1], sample[2], sample[3]);
        if (!fk__quat_is_normalizable(q)) return FK_ERROR_INVALID_ROTATION;
        q = fk_quat_normalize(q);
    }
    *out = q;
    if (cursor) *cursor = point.key;
    return FK_OK;
}

/* ---- Root motion ---------------------------------------------------------------
   The root's world transform is W = {q, x + d - q x}: it turns by q about its rest
   position x and its joint sits at p = x + d. Extraction picks a reference frame
   F_k = {r_k, s_k} per key (r_k the identity, the twist of q_k about the unit up
   axis u, or q_k; s_k is p_k on the chosen axes and 0 on the others) and writes
       M_k = F_k F_0^-1 = {m_k, s_k - m_k s_0},  m_k = r_k r_0*,   W'_k = M_k^-1 W_k,
   so M_k W'_k = W_k, and M_0 is the identity exactly (r_0 r_0* has a zero vector
   part). Children in the parent frame follow W'_k; in the rest frame a child's
   Q_i = q_i Q_p is world-aligned, and M_k^-1 turns it to m_k* q_i m_k m_k* Q_p. The twist of q = (v, w) about u is (u (u . v), w) normalized: with
   q = t s the swing s = t* q turns about an axis perpendicular to u, so r_k* q_k
   has no twist and W'_k keeps key 0's heading r_0.
   A character placed at C when the clip starts is at C M(s)^-1 M(t) during the
   first loop and at C (M(s)^-1 M(e))^n M(s)^-1 M(t) during loop n, so a frame
   that plays from a to b through k wraps moves it by M(a)^-1 L^k M(b) with
   L = M(e) M(s)^-1. That product is formed in double from the float samples and
   rounded once: the next frame samples the same M(b) bits, so in a product of
   deltas M(b) M(b)^-1 cancels to double precision, and what remains is each
   delta's own rounding, relative to its (small) size: nothing that grows with
   the number of frames. */

typedef struct fk__rigid_double {
    double q[4]; /* x, y, z, w */
    double t[3];
} fk__rigid_double;

/* Summed in pairs that cancel exactly for a b*, so that r r* has a zero vector
   part and key 0's motion is the identity bit for bit. */
static FK__SMALL void fk__quat_double_mul(const double a[4], const double b[4], double out[4])
{
    double x = (a[3] * b[0] + a[0] * b[3]) + (a[1] * b[2] - a[2] * b[1]);
    double y = (a[3] * b[1] + a[1] * b[3]) + (a[2] * b[0] - a[0] * b[2]);
    double z = (a[3] * b[2] + a[2] * b[3]) + (a[0] * b[1] - a[1] * b[0]);
    double w = (a[3] * b[3] - a[0] * b[0]) - (a[1] * b[1] + a[2] * b[2]);
    out[0] = x; out[1] = y; out[2] = z; out[3] = w;
}

static FK__SMALL void fk__quat_double_normalize(double q[4])
{
    double length = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    int c;
    for (c = 0; c < 4; ++c) q[c] /= length;
}

/* v + w s + u x s with s = 2 u x v, as fk_quat_rotate(). */
static FK__SMALL void fk__quat_double_rotate(const double q[4], const double v[3], double out[3])
{
    double s[3], r[3];
    s[0] = 2.0 * (q[1] * v[2] - q[2] * v[1]);
    s[1] = 2.0 * (q[2] * v[0] - q[0] * v[2]);
    s[2] = 2.0 * (q[0] * v[1] - q[1] * v[0]);
    r[0] = v[0] + q[3] * s[0] + (q[1] * s[2] - q[2] * s[1]);
    r[1] = v[1] + q[3] * s[1] + (q[2] * s[0] - q[0] * s[2]);
    r[2] = v[2] + q[3] * s[2] + (q[0] * s[1] - q[1] * s[0]);
    out[0] = r[0]; out[1] = r[1]; out[2] = r[2];
}

static FK__SMALL void fk__vec3_to_double(fk_vec3 v, double out[3])
{
    out[0] = (double)v.x; out[1] = (double)v.y; out[2] = (double)v.z;
}

static FK__SMALL fk__rigid_double fk__rigid_double_of(fk_quat q, fk_vec3 t)
{
    fk__rigid_double r;
    r.q[0] = (double)q.x; r.q[1] = (double)q.y; r.q[2] = (double)q.z; r.q[3] = (double)q.w;
    fk__quat_double_normalize(r.q);
    fk__vec3_to_double(t, r.t);
    return r;
}

static FK__SMALL fk__rigid_double fk__rigid_double_mul(const fk__rigid_double *a, const fk__rigid_double *b)
{
    fk__rigid_double r;
    int c;
    fk__quat_double_mul(a->q, b->q, r.q);
    fk__quat_double_rotate(a->q, b->t, r.t);
    for (c = 0; c < 3; ++c) r.t[c] += a->t[c];
    return r;
}

static FK__SMALL fk__rigid_double fk__rigid_double_inverse(const fk__rigid_double *a)
{
    fk__rigid_double r;
    int c;
    r.q[0] = -a->q[0]; r.q[1] = -a->q[1]; r.q[2] = -a->q[2]; r.q[3] = a->q[3];
    fk__quat_double_rotate(r.q, a->t, r.t);
    for (c = 0; c < 3; ++c) r.t[c] = -r.t[c];
    return r;
}

/* a^n by squaring: O(log |n|) products, so a long skip costs no more rounding. */
static FK__SMALL fk__rigid_double fk__rigid_double_power(fk__rigid_double a, int n)
{
    fk__rigid_double result = fk__rigid_double_of(fk_quat_identity(), fk_vec3_make(0.0f, 0.0f, 0.0f));
    unsigned long count = n < 0 ? 0ul - (unsigned long)n : (unsigned long)n; /* n = INT_MIN too */
    if (n < 0) a = fk__rigid_double_inverse(&a);
    for (; count; count >>= 1) {
        if (count & 1ul) result = fk__rigid_double_mul(&result, &a);
        a = fk__rigid_double_mul(&a, &a);
    }
    return result;
}

static FK__SMALL int fk__vec3_double_fits_float(const double v[3])
{
    return fk__fits_float(v[0]) && fk__fits_float(v[1]) && fk__fits_float(v[2]);
}

static FK__SMALL fk_quat fk__quat_double_to_float(const double q[4])
{
    return fk_quat_make((float)q[0], (float)q[1], (float)q[2], (float)q[3]);
}

static FK__SMALL fk_vec3 fk__vec3_double_to_float(const double v[3]) { return fk_vec3_make((float)v[0], (float)v[1], (float)v[2]); }

/* The rotation r of a key's reference frame (see the top of this section). */
static FK__SMALL void fk__root_frame_rotation(const double q[4], fk_root_motion_rotation rotation, const double up[3],
                                    double out[4])
{
    double along;
    int c;
    out[0] = out[1] = out[2] = 0.0;
    out[3] = 1.0;
    if (rotation == FK_ROOT_ROTATION_FULL) {
        for (c = 0; c < 4; ++c) out[c] = q[c];
    } else if (rotation == FK_ROOT_ROTATION_YAW) {
        along = q[0] * up[0] + q[1] * up[1] + q[2] * up[2];
        for (c = 0; c < 3; ++c) out[c] = along * up[c];
        out[3] = q[3];
        if (out[0] == 0.0 && out[1] == 0.0 && out[2] == 0.0 && out[3] == 0.0) out[3] = 1.0; /* no heading */
        fk__quat_double_normalize(out);
    }
}

/* Key k's motion {m, e} and in-place pose (q', d'), given key 0's frame {r_0, s_0};
   0 when a result does not fit in float. */
typedef struct fk__root_key {
    fk_quat motion_rotation;
    fk_vec3 motion_translation;
    fk_quat rotation;
    fk_vec3 translation;
} fk__root_key;

static FK__SMALL int fk__root_motion_key(const double rest_root[3], fk_quat rotation, fk_vec3 translation, int axes,
                               fk_root_motion_rotation mode, const double up[3], const double first_rotation[4],
                               const double first_position[3], fk__root_key *out)
{
    fk__rigid_double key = fk__rigid_double_of(rotation, translation);
    double r[4], r_first_inverse[4], m[4], m_inverse[4], turned_first[3], e[3], p[3], relative[3], q_in_place[4];
    double d[3];
    int c;
    for (c = 0; c < 3; ++c) p[c] = rest_root[c] + key.t[c];
    fk__root_frame_rotation(key.q, mode, up, r);
    r_first_inverse[0] = -first_rotation[0]; r_first_inverse[1] = -first_rotation[1];
    r_first_inverse[2] = -first_rotation[2]; r_first_inverse[3] = first_rotation[3];
    fk__quat_double_mul(r, r_first_inverse, m);
    fk__quat_double_normalize(m);
    fk__quat_double_rotate(m, first_position, turned_first);
    for (c = 0; c < 3; ++c) e[c] = ((axes >> c) & 1 ? p[c] : 0.0) - turned_first[c];
    m_inverse[0] = -m[0]; m_inverse[1] = -m[1]; m_inverse[2] = -m[2]; m_inverse[3] = m[3];
    fk__quat_double_mul(m_inverse, key.q, q_in_place);
    fk__quat_double_normalize(q_in_place);
    for (c = 0; c < 3; ++c) relative[c] = p[c] - e[c];
    fk__quat_double_rotate(m_inverse, relative, d);
    for (c = 0; c < 3; ++c) d[c] -= rest_root[c];
    if (!fk__vec3_double_fits_float(e) || !fk__vec3_double_fits_float(d)) return 0;
    out->motion_rotation = fk__quat_double_to_float(m);
    out->motion_translation = fk__vec3_double_to_float(e);
    out->rotation = fk__quat_double_to_float(q_in_place);
    out->translation = fk__vec3_double_to_float(d);
    return 1;
}

FK_LBS_DEF fk_result fk_root_motion_extract(int key_count, fk_vec3 rest_root, const fk_quat *rotations,
                                            const fk_vec3 *translations, int axes,
                                            fk_root_motion_rotation rotation, fk_vec3 up,
                                            fk_quat *out_motion_rotations, fk_vec3 *out_motion_translations,
                                            fk_quat *out_rotations, fk_vec3 *out_translations)
{
    double x[3], unit_up[3] = {0.0, 0.0, 0.0}, first_rotation[4], first_position[3], up_length;
    fk__rigid_double first;
    fk__root_key result;
    fk_result checked;
    int k, c;
    if (key_count < 1) return FK_ERROR_INVALID_COUNT;
    if (axes < 0 || axes > 7 || (rotation != FK_ROOT_ROTATION_NONE && rotation != FK_ROOT_ROTATION_YAW &&
                                 rotation != FK_ROOT_ROTATION_FULL))
        return FK_ERROR_INVALID_OPTION;
    if ((checked = fk__check_pose(key_count, rotations, translations)) != FK_OK) return checked;
    if (!fk__vec3_is_finite(rest_root)) return FK_ERROR_NOT_FINITE;
    if (rotation == FK_ROOT_ROTATION_YAW) {
        if (!fk__vec3_is_finite(up)) return FK_ERROR_NOT_FINITE;
        fk__vec3_to_double(up, unit_up);
        up_length = sqrt(unit_up[0] * unit_up[0] + unit_up[1] * unit_up[1] + unit_up[2] * unit_up[2]);
        if (up_length == 0.0) return FK_ERROR_INVALID_OPTION;
        for (c = 0; c < 3; ++c) unit_up[c] /= up_length;
    }
    fk__vec3_to_double(rest_root, x);
    first = fk__rigid_double_of(rotations[0], fk__vec3_at_or_zero(translations, 0));
    fk__root_frame_rotation(first.q, rotation, unit_up, first_rotation);
    for (c = 0; c < 3; ++c) first_position[c] = (axes >> c) & 1 ? x[c] + first.t[c] : 0.0;
    /* Every key is computed twice, once to find an overflow before anything is
       written and once to write, so that outputs may be the inputs. */
    for (k = 0; k < key_count; ++k)
        if (!fk__root_motion_key(x, rotations[k], fk__vec3_at_or_zero(translations, k), axes, rotation, unit_up,
                                 first_rotation, first_position, &result))
            return FK_ERROR_NOT_FINITE;
    for (k = 0; k < key_count; ++k) {
        fk__root_motion_key(x, rotations[k], fk__vec3_at_or_zero(translations, k), axes, rotation, unit_up,
                            first_rotation, first_position, &result);
        if (out_motion_rotations) out_motion_rotations[k] = result.motion_rotation;
        if (out_motion_translations) out_motion_translations[k] = result.motion_translation;
        if (out_rotations) out_rotations[k] = result.rotation;
        if (out_translations) out_translations[k] = result.translation;
    }
    return FK_OK;
}

/* The motion track sampled at one time, as fk_track_sample_vec3() and
   fk_track_sample_quat() (slerp) sample it. */
static FK__SMALL fk_result fk__root_motion_sample(int key_count, const float *times, const fk_quat *rotations,
                                        const fk_vec3 *translations, float time, fk__rigid_double *out)
{
    fk_quat q;
    fk_vec3 t = fk_vec3_make(0.0f, 0.0f, 0.0f);
    fk_result result = fk_track_sample_quat(key_count, times, rotations, time, FK_INTERPOLATE_SLERP, &q);
    if (result == FK_OK && translations) result = fk_track_sample_vec3(key_count, times, translations, time, &t);
    if (result == FK_OK) *out = fk__rigid_double_of(q, t);
    return result;
}

FK_LBS_DEF fk_result fk_root_motion_delta(int key_count, const float *times, const fk_quat *motion_rotations,
                                          const fk_vec3 *motion_translations, float time_from, float time_to,
                                          int loops, fk_rigid *out_delta)
{
    fk__rigid_double from, to, first, last, loop, delta;
    fk_result result = fk_track_validate(key_count, times);
    if (result != FK_OK) return result;
    if (!motion_rotations || !out_delta) return FK_ERROR_NULL_ARGUMENT;
    if (!fk__is_finite(time_from) || !fk__is_finite(time_to)) return FK_ERROR_NOT_FINITE;
    if ((result = fk__root_motion_sample(key_count, times, motion_rotations, motion_translations, time_from,
                                         &from)) != FK_OK ||
        (result = fk__root_motion_sample(key_count, times, motion_rotations, motion_translations, time_to, &to)) !=
            FK_OK)
        return result;
    first = fk__rigid_double_of(motion_rotations[0], fk__vec3_at_or_zero(motion_translations, 0));
    last = fk__rigid_double_of(motion_rotations[key_count - 1],
                               fk__vec3_at_or_zero(motion_translations, key_count - 1));
    first = fk__rigid_double_inverse(&first);
    loop = fk__rigid_double_mul(&last, &first);
    loop = fk__rigid_double_power(loop, loops);
    from = fk__rigid_double_inverse(&from);
    delta = fk__rigid_double_mul(&from, &loop);
    delta = fk__rigid_double_mul(&delta, &to);
    if (!fk__vec3_double_fits_float(delta.t)) return FK_ERROR_NOT_FINITE;
    fk__quat_double_normalize(delta.q);
    out_delta->q = fk__quat_double_to_float(delta.q);
    out_delta->t = fk__vec3_double_to_float(delta.t);
    return FK_OK;
}

/* fk_pose_blend_masked()'s loop for one joint without masks, operation for
   operation, so that the bits agree. */
FK_LBS_DEF fk_result fk_root_motion_blend(int clip_count, const fk_rigid *deltas, const float *weights,
                                          fk_rigid *out_delta)
{
    float total = 0.0f, sum = 0.0f;
    fk_result result;
    int c, heaviest = 0;
    fk_quat pivot, q = fk_quat_make(0.0f, 0.0f, 0.0f, 0.0f);
    fk_vec3 t = fk_vec3_make(0.0f, 0.0f, 0.0f);
    if (clip_count < 1) return FK_ERROR_INVALID_COUNT;
    if (!deltas || !weights || !out_delta) return FK_ERROR_NULL_ARGUMENT;
    for (c = 0; c < clip_count; ++c) {
        if (!fk__is_within(weights[c], 0.0f, FLT_MAX)) return FK_ERROR_INVALID_WEIGHT;
        total += weights[c];
    }
    if (!fk__is_finite(total) || !(total > 0.0f)) return FK_ERROR_INVALID_WEIGHT;
    for (c = 0; c < clip_count; ++c)
        if ((result = fk__check_rigid(&deltas[c])) != FK_OK) return result;
    for (c = 0; c < clip_count; ++c) {
        if (weights[c] > weights[heaviest]) heaviest = c;
        sum += weights[c];
    }
    pivot = fk_quat_normalize(deltas[heaviest].q);
    for (c = 0; c < clip_count; ++c) {
        fk_quat r = fk_quat_normalize(deltas[c].q);
        float w = weights[c] / sum;
        float signed_w = fk_quat_dot(pivot, r) < 0.0f ? -w : w;
        q = fk_quat_make(q.x + signed_w * r.x, q.y + signed_w * r.y, q.z + signed_w * r.z, q.w + signed_w * r.w);
        t = fk_vec3_add(t, fk_vec3_scale(deltas[c].t, w));
    }
    out_delta->q = fk_quat_normalize(q);
    out_delta->t = t;
    return FK_OK;
}

/* ---- Partial updates ------------------------------------------------------------
   The subtree is marked in the transforms array with fk_forward()'s FK__UNVISITED
   and then finished the way fk_forward() finishes joints whose parents come later:
   climb to a finished ancestor, compute back down the path. Marks go on the
   subtree's joints only, each climb stops at the subtree's root, and a mark met
   outside the subtree (the caller's value) is recognized by an ancestry test and
   skipped: the transforms outside are read as the root's parent's and never
   written, whatever they hold. The cost stays O(joint_count x depth). */

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
    /* a parent inside the subtree: a cycle through its root */
    if (root_parent >= 0 && fk__in_subtree(joint_count, parents, root, root_parent)) return FK_ERROR_CYCLE;
    if (root_parent >= 0 && (result = fk__check_rigid(&transforms[root_parent])) != FK_OK) return result;
    for (i = 0; i < joint_count; ++i)
        if (fk__in_subtree(joint_count, parents, root, i) > 0) transforms[i].q.w = FK__UNVISITED;
    /* The subtree's joints are marked and its root's parent is finished, so the
       any-order walk computes exactly the subtree. */
    fk__forward_marked(joint_count, parents, rest_joints, rotations, translations, transforms, rest_frame, root);
    for (i = 0; i < joint_count && result == FK_OK; ++i) /* finite inputs can overflow, as in fk_forward() */
        if (!fk__vec3_is_finite(transforms[i].t) && fk__in_subtree(joint_count, parents, root, i) > 0)
            result = FK_ERROR_NOT_FINITE;
    for (i = 0; i < joint_count && result != FK_OK; ++i)
        if (fk__in_subtree(joint_count, parents, root, i) > 0) transforms[i] = fk_rigid_identity();
    return result;
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

static FK__SMALL fk_vec3 fk__pivot(const fk_vec3 *rest_joints, const fk_rigid *transforms, int joint)
{
    return fk_rigid_apply(transforms[joint], rest_joints[joint]);
}

/* Adds weight times d p / d w_i, for the point p carried by bone b, to columns[3]. */
static FK__SMALL void fk__jacobian_columns(const int *parents, const fk_vec3 *rest_joints, const fk_rigid *transforms,
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
static FK__SMALL fk_result fk__check_chain(int joint_count, const int *parents, const fk_vec3 *rest_joints,
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
static FK__SMALL void fk__accumulate_jacobian(int joint_count, const int *parents, const fk_vec3 *rest_joints,
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
    if (!fk__vec3_is_finite(rest_point) || !fk__vec3_is_finite(target) || !fk__is_within(damping, 0.0f, FLT_MAX))
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
    if (!fk__is_finite(det) || !(det > 0.0f)) return FK_OK;
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

/* ---- Two-bone IK ------------------------------------------------------------------
   Bones. With S, M, E the posed pivots of start, mid and end, the bones are
   a = |M - S| and b = |E - M|: turning start carries everything below it rigidly
   about S (and turning mid, about M), so a and b do not change. The end can reach
   any distance in [|a - b|, a + b] from S.

   Reach. The target's distance d = |T - S| is first eased, when soften > 0, by
   the "soft IK" curve: with L = a + b and s = soften L, a d above L - s becomes
   L - s + s (1 - exp(-(d - L + s) / s)), continuous with slope 1 at L - s and
   below L for every d, so the chain slows as it nears full extension instead of
   snapping straight. Then d is clamped into [|a - b|, L]: out of reach, the end
   goes to S + L u on the ray toward the target, u = (T - S) / |T - S|.

   Angles. The law of cosines gives the start angle A between u and the upper
   bone, cos A = (a^2 + d^2 - b^2) / (2 a d); then M' = S + a (cos A u + sin A v)
   and E' = S + d u, with v the unit bend direction, perpendicular to u. Near full
   extension sin A = sqrt(1 - cos^2 A) would turn one rounding of cos A into an
   angle of sqrt(2 eps), a bend of 5e-4 in a chain meant to be straight, so both
   come from the factored forms 1 - cos A = (b - a + d) (L - d) / (2 a d) and
   1 + cos A = (a - b + d) (L + d) / (2 a d), each exactly 0 at its end of the
   clamped reach: sin^2 A is their product, cos A the one nearer its end, clamped
   into [-1, 1].

   The bend plane. A hinge n, perpendicular to the upper bone, is taken from the
   mid joint's own frame: Q_mid h, h being the user's mid axis or the rest pose's
   bend normal (x_m - x_s) x (x_e - x_m). Carried by the joint's rotation, it is
   defined however straight the chain is now, and a solve returns the hinge to the
   same side of the new plane, so that solving frame after frame never flips, not
   even through full extension. (Only a chain straight at rest needs the current
   bend, and straight in both, any perpendicular.) The new plane's normal n' is
   n, the hinge already made perpendicular to the upper bone, made perpendicular
   to u in turn, v = u x n': when the mid joint's rotation tilts Q_mid h off the
   upper bone, taking Q_mid h across u directly would give another plane, and
   the frame turn below needs n across the upper bone. With a pole P the plane instead
   contains P: v is the part of P - S perpendicular to u, n' = v x u. Either choice
   is continuous in the target except on one line through S (along the hinge, or
   toward the pole), where no plane is defined.

   Turns. The start joint turns by the rotation taking the frame (upper bone, n,
   bone x n) to (M' - S, n', (M' - S) x n'): the upper bone lands on M' and the
   hinge on the new normal. The mid joint then turns by the shortest arc from the
   turned lower bone to E' - M', a turn about n' when the lower bone is
   perpendicular to the hinge, as a knee's is. World turns D become relative
   rotations by fk_forward()'s rules: in the parent frame Q' = D_p Q_p q' with
   Q_p = Q q*, so q' = q Q* D_p* D Q; in the rest frame Q' = q' D_p Q_p with
   Q_p = q* Q, so q' = D q D_p* (D_p the parent's turn: none for start, start's
   for mid). */

/* The sine below which a bend, or a vector's part across another, is taken as
   degenerate: well above the rounding of float positions (about 1e-7 relative),
   well below any bend an artist means. */
#define FK__TWO_BONE_DEGENERATE 1e-4f

/* A unit vector perpendicular to the unit vector u: u crossed with the axis it
   has least of, so the cross product is never short. */
static FK__SMALL fk_vec3 fk__any_perpendicular(fk_vec3 u)
{
    fk_vec3 axis = fabsf(u.x) <= fabsf(u.y) && fabsf(u.x) <= fabsf(u.z) ? fk_vec3_make(1.0f, 0.0f, 0.0f)
                 : fabsf(u.y) <= fabsf(u.z)                             ? fk_vec3_make(0.0f, 1.0f, 0.0f)
                                                                        : fk_vec3_make(0.0f, 0.0f, 1.0f);
    return fk_vec3_normalize(fk_vec3_cross(u, axis));
}

/* The part of the unit (or zero) vector v perpendicular to the unit vector u,
   normalized into *out; 0 when that part is too short to give a direction. */
static int fk__unit_perpendicular(fk_vec3 v, fk_vec3 u, fk_vec3 *out)
{
    fk_vec3 across = fk_vec3_sub(v, fk_vec3_scale(u, fk_vec3_dot(v, u)));
    float length = fk_vec3_length(across);
    if (!(length > FK__TWO_BONE_DEGENERATE)) return 0;
    *out = fk_vec3_scale(across, 1.0f / length);
    return 1;
}

/* The rotation taking the orthonormal frame (u, n, u x n) to (u2, n2, u2 x n2):
   the matrix sum of new axis times old axis transposed. */
static FK__SMALL fk_quat fk__quat_between_frames(fk_vec3 u, fk_vec3 n, fk_vec3 u2, fk_vec3 n2)
{
    fk_vec3 from[3], to[3];
    float m[9];
    int r, c, k;
    from[0] = u; from[1] = n; from[2] = fk_vec3_cross(u, n);
    to[0] = u2; to[1] = n2; to[2] = fk_vec3_cross(u2, n2);
    for (r = 0; r < 3; ++r)
        for (c = 0; c < 3; ++c)
            for (m[3 * r + c] = 0.0f, k = 0; k < 3; ++k) m[3 * r + c] += fk__vec3_get(to[k], r) * fk__vec3_get(from[k], c);
    return fk_quat_from_mat3(m);
}

/* The shortest arc from the unit vector x to the unit vector y, (x cross y, 1 +
   x . y) normalized; half a turn about @p axis (unit, perpendicular to y) when
   they are so nearly opposite that the cross product has no direction left. */
static fk_quat fk__quat_shortest_arc(fk_vec3 x, fk_vec3 y, fk_vec3 axis)
{
    fk_vec3 c = fk_vec3_cross(x, y);
    float w = 1.0f + fk_vec3_dot(x, y);
    if (!(w > FK__TWO_BONE_DEGENERATE * FK__TWO_BONE_DEGENERATE)) return fk_quat_make(axis.x, axis.y, axis.z, 0.0f);
    return fk_quat_normalize(fk_quat_make(c.x, c.y, c.z, w));
}

/* The relative rotation that makes a joint (world rotation Q, relative q) turn by
   the world rotation D once its parent has turned by D_p (the header's rules);
   aim IK's turns too, with D_p the identity. */
static fk_quat fk__relative_after_turn(fk_rotation_frame frame, fk_quat world, fk_quat q, fk_quat parent_turn,
                                       fk_quat turn)
{
    if (frame == FK_FRAME_PARENT)
        return fk_quat_mul(fk_quat_mul(q, fk_quat_conjugate(world)),
                           fk_quat_mul(fk_quat_mul(fk_quat_conjugate(parent_turn), turn), world));
    return fk_quat_mul(fk_quat_mul(turn, q), fk_quat_conjugate(parent_turn));
}

/* The inverse: the world turn D = Q' Q* of a joint whose relative rotation goes
   from q to q2 while its parent turns by D_p: D_p Q q* q2 Q* in the parent frame,
   q2 D_p q* in the rest frame. */
static fk_quat fk__two_bone_turn(fk_rotation_frame frame, fk_quat world, fk_quat q, fk_quat q2, fk_quat parent_turn)
{
    if (frame == FK_FRAME_PARENT)
        return fk_quat_mul(fk_quat_mul(parent_turn, world),
                           fk_quat_mul(fk_quat_mul(fk_quat_conjugate(q), q2), fk_quat_conjugate(world)));
    return fk_quat_mul(fk_quat_mul(q2, parent_turn), fk_quat_conjugate(q));
}

/* m v, m a 3x3 row-major matrix in double, rounded once per coordinate. */
static FK__SMALL fk_vec3 fk__mat3_apply(const double m[9], fk_vec3 v)
{
    const double x = (double)v.x, y = (double)v.y, z = (double)v.z;
    return fk_vec3_make((float)(m[0] * x + m[1] * y + m[2] * z), (float)(m[3] * x + m[4] * y + m[5] * z),
                        (float)(m[6] * x + m[7] * y + m[8] * z));
}

/* a b for 3x3 row-major matrices in double. */
static FK__SMALL void fk__mat3_mul_double(const double a[9], const double b[9], double out[9])
{
    int r, c;
    for (r = 0; r < 3; ++r)
        for (c = 0; c < 3; ++c) out[3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
}

/* An axis in the mid joint's own frame, as its world rotation carries it, or with
   @p carry as that matrix carries it (the rigs with scale below). */
static fk_vec3 fk__two_bone_carry(fk_quat world_mid, const double *carry, fk_vec3 axis)
{
    return carry ? fk__mat3_apply(carry, axis) : fk_quat_rotate(world_mid, axis);
}

/* The hinge n: unit, perpendicular to the upper bone u1 (see the derivation). */
static FK__SMALL fk_vec3 fk__two_bone_hinge(const fk_ik_two_bone_desc *d, fk_quat world_mid, const double *carry,
                                            fk_vec3 u1, fk_vec3 bone1, fk_vec3 bone2)
{
    const fk_vec3 zero = {0.0f, 0.0f, 0.0f};
    fk_vec3 rest1 = d->rest_joints ? fk_vec3_sub(d->rest_joints[d->mid], d->rest_joints[d->start]) : zero;
    fk_vec3 rest2 = d->rest_joints ? fk_vec3_sub(d->rest_joints[d->end], d->rest_joints[d->mid]) : zero;
    fk_vec3 rest_normal = fk_vec3_cross(rest1, rest2), current_normal = fk_vec3_cross(bone1, bone2), hinge;
    if (d->mid_axis &&
        fk__unit_perpendicular(fk__two_bone_carry(world_mid, carry, fk_vec3_normalize(*d->mid_axis)), u1, &hinge))
        return hinge;
    if (fk_vec3_length(rest_normal) > FK__TWO_BONE_DEGENERATE * fk_vec3_length(rest1) * fk_vec3_length(rest2) &&
        fk__unit_perpendicular(fk__two_bone_carry(world_mid, carry, fk_vec3_normalize(rest_normal)), u1, &hinge))
        return hinge;
    if (fk_vec3_length(current_normal) > FK__TWO_BONE_DEGENERATE * fk_vec3_length(bone1) * fk_vec3_length(bone2) &&
        fk__unit_perpendicular(fk_vec3_normalize(current_normal), u1, &hinge))
        return hinge;
    return fk__any_perpendicular(u1);
}

/* The world turns of start (about S) and of mid (about M, after start's) that put
   the end on the eased and clamped target. */
static FK__SMALL void fk__two_bone_solve(const fk_ik_two_bone_desc *d, fk_quat world_mid, fk_vec3 start,
                                         fk_vec3 bone1, fk_vec3 bone2, fk_quat *turn_start, fk_quat *turn_mid)
{
    const float a = fk_vec3_length(bone1), b = fk_vec3_length(bone2), length = a + b, soft = d->soften * length;
    fk_vec3 to_target = fk_vec3_sub(d->target, start), u, u1, hinge, normal, bend, upper, lower;
    float reach = fk_vec3_length(to_target), denominator, below, above, cosine, sine;
    *turn_start = *turn_mid = fk_quat_identity();
    /* A target on the start joint has no direction: keep the chain's. */
    if (reach > 0.0f) u = fk_vec3_normalize(to_target);
    else if (fk_vec3_length(fk_vec3_add(bone1, bone2)) > 0.0f) u = fk_vec3_normalize(fk_vec3_add(bone1, bone2));
    else if (a > 0.0f) u = fk_vec3_normalize(bone1);
    else return;
    if (soft > 0.0f && reach > length - soft)
        reach = length - soft + soft * (1.0f - expf(-(reach - (length - soft)) / soft));
    reach = fmaxf(fabsf(a - b), fminf(reach, length));
    if (!(a > 0.0f)) { /* the mid joint sits on the start joint: only the lower bone can turn */
        if (b > 0.0f) *turn_mid = fk__quat_shortest_arc(fk_vec3_normalize(bone2), u, fk__any_perpendicular(u));
        return;
    }
    u1 = fk_vec3_normalize(bone1);
    hinge = fk__two_bone_hinge(d, world_mid, NULL, u1, bone1, bone2);
    if (d->pole && fk__unit_perpendicular(fk_vec3_normalize(fk_vec3_sub(*d->pole, start)), u, &bend)) {
        normal = fk_vec3_cross(bend, u);
    } else {
        if (!fk__unit_perpendicular(hinge, u, &normal)) normal = fk__any_perpendicular(u);
        bend = fk_vec3_cross(u, normal);
    }
    /* 1 - cos A and 1 + cos A factored, each exactly 0 at its end of the reach. */
    denominator = 2.0f * a * reach;
    below = denominator > 0.0f ? fmaxf(0.0f, b - a + reach) * fmaxf(0.0f, length - reach) / denominator : 1.0f;
    above = denominator > 0.0f ? fmaxf(0.0f, a - b + reach) * (length + reach) / denominator : 1.0f;
    cosine = fmaxf(-1.0f, fminf(below < above ? 1.0f - below : above - 1.0f, 1.0f));
    sine = fminf(sqrtf(below * above), 1.0f);
    upper = fk_vec3_add(fk_vec3_scale(u, cosine), fk_vec3_scale(bend, sine));
    *turn_start = fk__quat_between_frames(u1, hinge, upper, normal);
    if (!(b > 0.0f)) return;
    lower = fk_vec3_sub(fk_vec3_scale(u, reach), fk_vec3_scale(upper, a));
    *turn_mid = fk__quat_shortest_arc(fk_vec3_normalize(fk_quat_rotate(*turn_start, bone2)), fk_vec3_normalize(lower),
                                      normal);
}

/* ---- Two-bone IK on rigs with scale -------------------------------------------------
   fk_forward_scaled() and fk_forward_trs() both compose A_i = A_p R(q_i) S(s_i), and
   joint i's pivot P_i is placed by its parent alone. Turning q_i into g q_i therefore
   moves joint i's subtree by y -> P_i + A_p G A_p^-1 (y - P_i): a rotation G in the
   parent's space z = A_p^-1 (y - P_i), whatever the scales. So the solve runs in the
   start joint's parent's space (z-space below), where the start turns rigidly; the
   mid joint turns rigidly in its own parent's space, which z-space sees through
   C = A_p^-1 A_pm, C = I only without scale between the two.

   The bend. As in the rigid solve the lower bone ends in the plane through the upper
   bone m (length a) perpendicular to the hinge n, on the side e2 = n x e1 (e1 = m / a).
   The lower bone k, in the mid joint's parent's space, reaches that plane along the
   circle k(tau) = |k| (cos tau f0 + sin tau f1), f0 and f1 the orthonormal directions
   that C maps into the plane, f0 onto e1: in z-space an ellipse
       w(tau) = cos tau r0 e1 + sin tau (p e1 + q e2),   q > 0,
   with r0 = |k| / |C^-1 e1|, and the end at distance rho(tau) = |m + w(tau)| from S.
   Without scale rho^2 = a^2 + 2 a |k| cos tau + |k|^2, the law of cosines; with it,
   rho need not be largest straight (a lower bone stretched across the upper one
   reaches further bent), so the largest reach is searched for: the best of a few
   samples of tau in [0, pi], refined by golden sections. A target beyond it takes
   that bend; a nearer one the first bend past it with rho = d, bracketed by the
   samples and bisected; one nearer than every such bend, the closest fold. The end
   then points at the target: the start turns (m + w, n) onto (u, n'), n' chosen
   as in the rigid solve, and the mid turns k onto k(tau) by the shortest arc. */

/* The linear part of a joint's matrix (the identity above a root, joint < 0) and
   its inverse; 0 when it is singular. */
static FK__SMALL int fk__ik_linear(const float *matrices, int joint, double linear[9], double inverse[9])
{
    int e;
    for (e = 0; e < 9; ++e)
        linear[e] = joint < 0 ? (double)(e % 4 == 0) : (double)matrices[12 * joint + 4 * (e / 3) + e % 3];
    return fk__mat3_inverse(linear, inverse);
}

/* A joint's pivot: its rest position as fk_forward_scaled() moves it, or without
   rest joints fk_forward_trs()'s translation. */
static FK__SMALL fk_vec3 fk__ik_affine_pivot(const fk_vec3 *rest_joints, const float *matrices, int joint)
{
    const float *m = &matrices[12 * joint];
    double x[3] = {0.0, 0.0, 0.0}, out[3];
    int row;
    if (rest_joints) {
        x[0] = (double)rest_joints[joint].x; x[1] = (double)rest_joints[joint].y; x[2] = (double)rest_joints[joint].z;
    }
    for (row = 0; row < 3; ++row)
        out[row] = (double)m[4 * row] * x[0] + (double)m[4 * row + 1] * x[1] + (double)m[4 * row + 2] * x[2] +
                   (double)m[4 * row + 3];
    return fk_vec3_make((float)out[0], (float)out[1], (float)out[2]);
}

/* rho(tau) for the ellipse {a, r0, p, q} above. */
static float fk__two_bone_rho(const float e[4], float tau)
{
    float along = e[0] + e[1] * cosf(tau) + e[2] * sinf(tau), across = e[3] * sinf(tau);
    return sqrtf(along * along + across * across);
}

#define FK__TWO_BONE_SAMPLES 32

/* The bend in [lo, hi] where sign rho is largest: the best sample, refined. */
static FK__SMALL float fk__two_bone_extreme(const float e[4], float lo, float hi, float sign)
{
    const float step = (hi - lo) / FK__TWO_BONE_SAMPLES;
    float best = lo, low, high, tau;
    int j;
    for (j = 1; j <= FK__TWO_BONE_SAMPLES; ++j) {
        const float tau_j = lo + step * (float)j;
        if (sign * fk__two_bone_rho(e, tau_j) > sign * fk__two_bone_rho(e, best)) best = tau_j;
    }
    low = fmaxf(lo, best - step);
    high = fminf(hi, best + step);
    for (j = 0; j < 40; ++j) {
        float left = high - 0.618034f * (high - low), right = low + 0.618034f * (high - low);
        if (sign * fk__two_bone_rho(e, left) >= sign * fk__two_bone_rho(e, right)) high = right;
        else low = left;
    }
    tau = 0.5f * (low + high);
    return sign * fk__two_bone_rho(e, tau) > sign * fk__two_bone_rho(e, best) ? tau : best;
}

/* The bend that puts the end at distance @p reach, eased by @p soften, or as near as the plane allows. */
static FK__SMALL float fk__two_bone_bend(const float e[4], float reach, float soften)
{
    const float pi = 3.14159265f, step = pi / FK__TWO_BONE_SAMPLES;
    float top = fk__two_bone_extreme(e, 0.0f, pi, 1.0f), longest = fk__two_bone_rho(e, top), soft = soften * longest;
    float low = top, high = pi;
    int j;
    if (soft > 0.0f && reach > longest - soft)
        reach = longest - soft + soft * (1.0f - expf(-(reach - (longest - soft)) / soft));
    if (!(reach < longest)) return top;
    for (j = (int)(top / step) + 1; j <= FK__TWO_BONE_SAMPLES; ++j)
        if (fk__two_bone_rho(e, step * (float)j) <= reach) break;
    if (j <= FK__TWO_BONE_SAMPLES) {
        high = step * (float)j;
        low = fmaxf(top, high - step);
    } else {
        high = fk__two_bone_extreme(e, top, pi, -1.0f);
        if (fk__two_bone_rho(e, high) > reach) return high; /* nearer than any bend: the closest fold */
    }
    for (j = 0; j < 40; ++j) {
        float middle = 0.5f * (low + high);
        if (fk__two_bone_rho(e, middle) > reach) low = middle;
        else high = middle;
    }
    return high;
}

/* The turns g1 of start (in z-space) and g2 of mid (in its parent's space) for the
   chain m (upper bone), k (lower bone, in the mid's parent's space), the target
   and pole in z-space, with C^-1 and C R(q_mid), which carries the hinge. */
static FK__SMALL void fk__two_bone_solve_affine(const fk_ik_two_bone_desc *d, const double c_inverse[9],
                                                const double carry[9], fk_vec3 bone1, fk_vec3 bone2, fk_vec3 lower,
                                                fk_vec3 target, fk_vec3 pole, fk_quat *turn_start, fk_quat *turn_mid)
{
    const float a = fk_vec3_length(bone1), k = fk_vec3_length(lower);
    fk_vec3 u, u1, hinge, normal, bend, e2, f0, f1, g, end;
    float reach = fk_vec3_length(target), e[4], length0, along, across, tau;
    *turn_start = *turn_mid = fk_quat_identity();
    if (reach > 0.0f) u = fk_vec3_normalize(target);
    else if (fk_vec3_length(fk_vec3_add(bone1, bone2)) > 0.0f) u = fk_vec3_normalize(fk_vec3_add(bone1, bone2));
    else if (a > 0.0f) u = fk_vec3_normalize(bone1);
    else return;
    if (!(a > 0.0f)) { /* the mid joint sits on the start joint: only the lower bone can turn */
        g = fk_vec3_normalize(fk__mat3_apply(c_inverse, u));
        if (k > 0.0f) *turn_mid = fk__quat_shortest_arc(fk_vec3_normalize(lower), g, fk__any_perpendicular(g));
        return;
    }
    u1 = fk_vec3_normalize(bone1);
    hinge = fk__two_bone_hinge(d, fk_quat_identity(), carry, u1, bone1, bone2);
    if (d->pole && fk__unit_perpendicular(fk_vec3_normalize(pole), u, &bend)) normal = fk_vec3_cross(bend, u);
    else if (!fk__unit_perpendicular(hinge, u, &normal)) normal = fk__any_perpendicular(u);
    e2 = fk_vec3_cross(hinge, u1);
    f0 = fk__mat3_apply(c_inverse, u1);
    length0 = fk_vec3_length(f0);
    f0 = fk_vec3_scale(f0, 1.0f / length0);
    g = fk__mat3_apply(c_inverse, e2);
    along = fk_vec3_dot(g, f0);
    f1 = fk_vec3_sub(g, fk_vec3_scale(f0, along));
    across = fk_vec3_length(f1);
    f1 = fk_vec3_scale(f1, 1.0f / across);
    e[0] = a; e[1] = k / length0; e[2] = -k * along / (length0 * across); e[3] = k / across;
    tau = fk__two_bone_bend(e, reach, d->soften);
    end = fk_vec3_add(fk_vec3_scale(u1, a + e[1] * cosf(tau) + e[2] * sinf(tau)), fk_vec3_scale(e2, e[3] * sinf(tau)));
    if (fk_vec3_length(end) > 0.0f) *turn_start = fk__quat_between_frames(fk_vec3_normalize(end), hinge, u, normal);
    if (k > 0.0f)
        *turn_mid = fk__quat_shortest_arc(fk_vec3_normalize(lower),
                                          fk_vec3_add(fk_vec3_scale(f0, cosf(tau)), fk_vec3_scale(f1, sinf(tau))),
                                          fk_vec3_normalize(fk_vec3_cross(f0, f1)));
}

/* The solved rotation in the current one's hemisphere, so that the slerp takes the
   short way and the output's sign does not jump from one call to the next, blended. */
static FK__SMALL fk_quat fk__two_bone_blend(fk_quat q, fk_quat solved, float weight)
{
    if (fk_quat_dot(solved, q) < 0.0f) solved = fk__quat_scale(solved, -1.0f);
    return fk_quat_normalize(weight < 1.0f ? fk_quat_slerp(q, solved, weight) : solved);
}

/* fk_ik_two_bone() on affine matrices: the spaces, the solve (q[2], q[3] from the
   current q[0], q[1]), the start's pivot, the chain's length, and where the end
   lands with the rotations written, S + A_p G1 A_p^-1 (bone1 + A_pm G2 A_pm^-1 bone2). */
static FK__SMALL fk_result fk__two_bone_affine(const fk_ik_two_bone_desc *d, float weight, fk_quat q[4],
                                               fk_vec3 *start_pivot, float *length, fk_vec3 *landed)
{
    const int joints[5] = {d->start, d->mid, d->end, fk__parent_index(d->parents, d->start),
                           fk__parent_index(d->parents, d->mid)};
    double above[9], above_inverse[9], mid_parent[9], mid_parent_inverse[9], c_inverse[9], carry[9], product[9];
    float rotation[9];
    fk_vec3 start, bone1, bone2, lower;
    fk_quat turn_start, turn_mid;
    int i;
    for (i = 0; i < 5; ++i) {
        if (joints[i] >= 0 && !fk__mat34_is_finite(&d->matrices[12 * joints[i]])) return FK_ERROR_NOT_FINITE;
        if (i < 3 && d->rest_joints && !fk__vec3_is_finite(d->rest_joints[joints[i]])) return FK_ERROR_NOT_FINITE;
    }
    if (!fk__ik_linear(d->matrices, joints[3], above, above_inverse) ||
        !fk__ik_linear(d->matrices, joints[4], mid_parent, mid_parent_inverse))
        return FK_ERROR_NOT_RIGID;
    start = fk__ik_affine_pivot(d->rest_joints, d->matrices, d->start);
    bone1 = fk_vec3_sub(fk__ik_affine_pivot(d->rest_joints, d->matrices, d->mid), start);
    bone2 = fk_vec3_sub(fk__ik_affine_pivot(d->rest_joints, d->matrices, d->end),
                        fk__ik_affine_pivot(d->rest_joints, d->matrices, d->mid));
    fk__mat3_mul_double(above_inverse, mid_parent, product);
    fk_quat_to_mat3(q[1], rotation);
    for (i = 0; i < 9; ++i) c_inverse[i] = (double)rotation[i];
    fk__mat3_mul_double(product, c_inverse, carry);
    fk__mat3_mul_double(mid_parent_inverse, above, c_inverse);
    lower = fk__mat3_apply(mid_parent_inverse, bone2);
    q[2] = q[0];
    q[3] = q[1];
    if (weight > 0.0f) {
        fk__two_bone_solve_affine(d, c_inverse, carry, fk__mat3_apply(above_inverse, bone1),
                                  fk__mat3_apply(above_inverse, bone2), lower,
                                  fk__mat3_apply(above_inverse, fk_vec3_sub(d->target, start)),
                                  d->pole ? fk__mat3_apply(above_inverse, fk_vec3_sub(*d->pole, start)) : bone1,
                                  &turn_start, &turn_mid);
        q[2] = fk__two_bone_blend(q[0], fk_quat_mul(turn_start, q[0]), weight);
        q[3] = fk__two_bone_blend(q[1], fk_quat_mul(turn_mid, q[1]), weight);
    }
    turn_start = fk_quat_mul(q[2], fk_quat_conjugate(q[0]));
    turn_mid = fk_quat_mul(q[3], fk_quat_conjugate(q[1]));
    *landed = fk_vec3_add(bone1, fk__mat3_apply(mid_parent, fk_quat_rotate(turn_mid, lower)));
    *landed = fk__mat3_apply(above, fk_quat_rotate(turn_start, fk__mat3_apply(above_inverse, *landed)));
    *landed = fk_vec3_add(start, *landed);
    *start_pivot = start;
    *length = fk_vec3_length(bone1) + fk_vec3_length(bone2);
    return fk__vec3_is_finite(start) && fk__vec3_is_finite(*landed) ? FK_OK : FK_ERROR_NOT_FINITE;
}

FK_LBS_DEF FK__SMALL fk_result fk_ik_two_bone(const fk_ik_two_bone_desc *desc, float weight, fk_quat *rotations,
                                              int *reached)
{
    const fk_ik_two_bone_desc *d = desc;
    const fk_quat none = fk_quat_identity();
    const fk_rigid stand_in = {{0.0f, 0.0f, 0.0f, 1.0f}, {0.0f, 0.0f, 0.0f}};
    fk_quat world_start, world_mid, q[4], turn_start, turn_mid;
    fk_vec3 start, mid, end, bone1, bone2, landed;
    fk_result result;
    float length, tolerance;
    int chain[3], i;
    if (!desc || !rotations) return FK_ERROR_NULL_ARGUMENT;
    if (d->matrices && d->transforms) return FK_ERROR_CONFLICTING_ARGUMENTS;
    /* With matrices the rest joints are optional (fk_forward_trs() has none): the
       chain check is given stand-ins, and the pose is checked below. */
    if ((result = fk__check_chain(d->joint_count, d->parents, d->matrices ? &d->target : d->rest_joints,
                                  d->matrices ? &stand_in : d->transforms, d->end)) != FK_OK)
        return result;
    if (d->start < 0 || d->start >= d->joint_count || d->mid < 0 || d->mid >= d->joint_count)
        return FK_ERROR_JOINT_OUT_OF_RANGE;
    /* Proper descendants: the end's path up (checked for cycles) passes mid, then start. */
    if (d->parents[d->end] < 0 || fk__in_subtree(d->joint_count, d->parents, d->mid, d->parents[d->end]) != 1 ||
        d->parents[d->mid] < 0 || fk__in_subtree(d->joint_count, d->parents, d->start, d->parents[d->mid]) != 1)
        return FK_ERROR_JOINT_OUT_OF_RANGE;
    if ((d->frame != FK_FRAME_PARENT && d->frame != FK_FRAME_REST) || !fk__is_within(d->soften, 0.0f, 1.0f))
        return FK_ERROR_INVALID_OPTION;
    if (!fk__is_within(weight, 0.0f, 1.0f)) return FK_ERROR_INVALID_WEIGHT;
    if ((d->pole && d->mid_axis) || (d->matrices && d->frame != FK_FRAME_PARENT)) return FK_ERROR_CONFLICTING_ARGUMENTS;
    if (!fk__vec3_is_finite(d->target) || (d->pole && !fk__vec3_is_finite(*d->pole)) ||
        (d->mid_axis && !fk__vec3_is_finite(*d->mid_axis)))
        return FK_ERROR_NOT_FINITE;
    if (!fk__quat_is_normalizable(rotations[d->start]) || !fk__quat_is_normalizable(rotations[d->mid]))
        return FK_ERROR_INVALID_ROTATION;
    q[0] = q[2] = fk_quat_normalize(rotations[d->start]);
    q[1] = q[3] = fk_quat_normalize(rotations[d->mid]);
    if (d->matrices) {
        if ((result = fk__two_bone_affine(d, weight, q, &start, &length, &landed)) != FK_OK) return result;
    } else {
        chain[0] = d->start; chain[1] = d->mid; chain[2] = d->end;
        for (i = 0; i < 3; ++i) {
            if ((result = fk__check_rigid(&d->transforms[chain[i]])) != FK_OK) return result;
            if (!fk__vec3_is_finite(d->rest_joints[chain[i]])) return FK_ERROR_NOT_FINITE;
        }
        start = fk__pivot(d->rest_joints, d->transforms, d->start);
        mid = fk__pivot(d->rest_joints, d->transforms, d->mid);
        end = fk__pivot(d->rest_joints, d->transforms, d->end);
        bone1 = fk_vec3_sub(mid, start);
        bone2 = fk_vec3_sub(end, mid);
        length = fk_vec3_length(bone1) + fk_vec3_length(bone2);
        if (!fk__vec3_is_finite(start) || !fk__vec3_is_finite(end) || !fk__is_finite(length))
            return FK_ERROR_NOT_FINITE;
        world_start = fk_quat_normalize(d->transforms[d->start].q);
        world_mid = fk_quat_normalize(d->transforms[d->mid].q);
        if (weight > 0.0f) {
            fk__two_bone_solve(d, world_mid, start, bone1, bone2, &turn_start, &turn_mid);
            q[2] = fk__two_bone_blend(q[0], fk__relative_after_turn(d->frame, world_start, q[0], none, turn_start),
                                      weight);
            q[3] = fk__two_bone_blend(q[1], fk__relative_after_turn(d->frame, world_mid, q[1], turn_start,
                                                                    fk_quat_mul(turn_mid, turn_start)),
                                      weight);
        }
        /* Where the end lands with the rotations written: each bone turns with its joint. */
        turn_start = fk__two_bone_turn(d->frame, world_start, q[0], q[2], none);
        turn_mid = fk__two_bone_turn(d->frame, world_mid, q[1], q[3], turn_start);
        landed = fk_vec3_add(fk_vec3_add(start, fk_quat_rotate(turn_start, bone1)), fk_quat_rotate(turn_mid, bone2));
    }
    /* 1e-4 of the chain: a tenth of a millimetre on a metre-long leg, far above the
       solve's rounding, which the second term bounds at the chain's distance from
       the origin (a few dozen operations, each within an ulp of the coordinates). */
    tolerance = 1e-4f * length + 32.0f * FLT_EPSILON * (fk_vec3_length(start) + length);
    if (weight > 0.0f) {
        rotations[d->start] = q[2];
        rotations[d->mid] = q[3];
    }
    if (reached) *reached = fk_vec3_length(fk_vec3_sub(landed, d->target)) <= tolerance;
    return FK_OK;
}

/* ---- Aim IK ---------------------------------------------------------------------- */

/* A joint turns by a world rotation R about its posed pivot P. Its ray starts at
   P + o and runs along the unit f (o = Q offset, f = Q forward / |forward|); after
   the turn it starts at P + R o and runs along R f. It passes through the target
   P + t exactly when R* t lies on the ray before the turn: a point o + lambda f,
   lambda >= 0, at distance |t| from P. |o + lambda f|^2 = |t|^2 has the roots
       lambda = -(o.f) +- sqrt(|t|^2 - |o_perp|^2),   o_perp = o - (o.f) f,
   and the larger is taken: where the ray leaves the sphere of radius |t|, the
   root that tends to |t| as the offset shrinks. It is >= 0 exactly when |t| is at
   least |c|, c the ray's point nearest P (o_perp when o.f < 0, else o itself).
   Closer targets cannot be hit: every point of the ray is at least |c| from P,
   so the ray passes closest, at |c| - |t|, when c turns onto the direction of t.
     Every turn that takes the chosen point h (o + lambda f, or c scaled to |t|)
   to t is the shortest one, S, followed by a turn about the line from P to t, so
   the angle about that line is free. The parts of R up and of the pole along the
   line do not depend on it, so (R up) . pole is largest when their parts across
   the line point the same way: that angle is taken, then the twist is added.
   S's angle is atan2(|h x t|, h . t): the usual (1 + h.t, h x t) for unit h, t
   loses the angle to cancellation when they are nearly opposite, which would
   leave the ray off the target by much more than rounding.
     A weight w takes the angle w a about R's axis, with a in [0, pi] (the shorter
   way round). The new relative rotation must make the joint's world rotation
   R Q: q R-conjugated into the joint's own frame, q (Q* R Q), when q is in the
   parent's frame (Q = Q_p q), and R q in the rest frame (Q = q Q_p).
     A chain turns its joints one at a time, each from the pose the ones before
   it left. Below chain[0] the current world rotation of a path joint is the
   product of the relative rotations down the path, and its pivot is chain[0]'s
   plus the segments between pivots, each a rest-space vector
   r_k = Q_p* (P_k - P_p) (read from the transforms: turns do not change it)
   carried by the parent's current rotation. Both are walks up the path: no
   storage, and no need for the translations the transforms were made with. */

/* The shortest turn taking the direction of @p from to that of @p to; identity
   when either is zero. */
static fk_quat fk__aim_shortest_turn(fk_vec3 from, fk_vec3 to)
{
    fk_vec3 a = fk_vec3_normalize(from), b = fk_vec3_normalize(to), axis = fk_vec3_cross(a, b);
    float sine = fk_vec3_length(axis), cosine = fk_vec3_dot(a, b), half;
    if (sine == 0.0f) {
        if (!(cosine < 0.0f)) return fk_quat_identity();
        /* opposite: half a turn about any axis across a; the pole step that
           follows fixes the angle about the target line anyway */
        axis = fk__any_perpendicular(a);
    }
    /* fk_vec3_normalize() rescales an axis too small to square in float */
    axis = fk_vec3_normalize(axis);
    half = 0.5f * atan2f(sine, cosine);
    return fk_quat_make(axis.x * sinf(half), axis.y * sinf(half), axis.z * sinf(half), cosf(half));
}

/* The world turn about the pivot that makes the ray from @p origin along the unit
   @p direction pass through @p target (both relative to the pivot), or as close
   as it can; see the derivation above. @p up and @p pole are unit or zero. */
static FK__SMALL fk_quat fk__aim_turn(fk_vec3 origin, fk_vec3 direction, fk_vec3 up, fk_vec3 pole, float twist,
                                      fk_vec3 target, int *reached)
{
    float along, distance, radius, side, length, angle = twist;
    float scale = fmaxf(fmaxf(fmaxf(fabsf(origin.x), fabsf(origin.y)), fmaxf(fabsf(origin.z), fabsf(target.x))),
                        fmaxf(fabsf(target.y), fabsf(target.z)));
    fk_vec3 across, nearest, hit, line, up_across, pole_across;
    fk_quat turn;
    *reached = 1;
    if (scale == 0.0f) return fk_quat_identity();
    /* The solution does not depend on scale: dividing by the largest coordinate
       keeps the squares below from overflowing or underflowing float. */
    origin = fk_vec3_make(origin.x / scale, origin.y / scale, origin.z / scale);
    target = fk_vec3_make(target.x / scale, target.y / scale, target.z / scale);
    along = fk_vec3_dot(origin, direction);
    across = fk_vec3_sub(origin, fk_vec3_scale(direction, along));
    nearest = along < 0.0f ? across : origin;
    distance = fk_vec3_length(target);
    radius = fk_vec3_length(nearest);
    side = fk_vec3_length(across);
    if (distance == 0.0f) { *reached = radius == 0.0f; return fk_quat_identity(); }
    if (distance >= radius) {
        float root = sqrtf((distance - side) * (distance + side)), lambda;
        length = fk_vec3_length(origin);
        /* -(o.f) + root adds two non-negative terms when o.f < 0; otherwise the
           equal (|t|^2 - |o|^2) / (root + o.f) avoids their cancellation. */
        if (along < 0.0f) lambda = root - along;
        else lambda = root + along > 0.0f ? (distance - length) * (distance + length) / (root + along) : 0.0f;
        hit = fk_vec3_add(origin, fk_vec3_scale(direction, lambda));
    } else {
        *reached = 0;
        hit = fk_vec3_scale(nearest, distance / radius);
    }
    turn = fk__aim_shortest_turn(hit, target);
    line = fk_vec3_normalize(target);
    up = fk_quat_rotate(turn, up);
    up_across = fk_vec3_sub(up, fk_vec3_scale(line, fk_vec3_dot(up, line)));
    pole_across = fk_vec3_sub(pole, fk_vec3_scale(line, fk_vec3_dot(pole, line)));
    if (fk_vec3_dot(up_across, up_across) > 0.0f && fk_vec3_dot(pole_across, pole_across) > 0.0f)
        angle += atan2f(fk_vec3_dot(fk_vec3_cross(up_across, pole_across), line), fk_vec3_dot(up_across, pole_across));
    return angle != 0.0f ? fk_quat_mul(fk_quat_from_axis_angle(line, angle), turn) : turn;
}

/* The current world rotation and pivot of @p joint, @p top or a joint below it:
   the relative rotations composed down the path from @p top, whose pivot and
   parent's rotation, like the rest-space segments, come from @p transforms. */
static FK__SMALL void fk__aim_current(const int *parents, const fk_vec3 *rest_joints, const fk_rigid *transforms,
                                      const fk_quat *rotations, int rest_frame, int top, int joint, fk_quat *rotation,
                                      fk_vec3 *pivot)
{
    int above_top = fk__parent_index(parents, top), k;
    fk_quat path = fk_quat_identity(), start = above_top >= 0 ? fk_quat_normalize(transforms[above_top].q)
                                                              : fk_quat_identity();
    fk_vec3 sum = fk_vec3_make(0.0f, 0.0f, 0.0f);
    for (k = joint;; k = fk__parent_index(parents, k)) {
        fk_quat q = fk_quat_normalize(rotations[k]);
        path = rest_frame ? fk_quat_mul(path, q) : fk_quat_mul(q, path);
        if (k == top) break;
    }
    *rotation = fk_quat_normalize(rest_frame ? fk_quat_mul(path, start) : fk_quat_mul(start, path));
    path = *rotation;
    for (k = joint; k != top; k = fk__parent_index(parents, k)) {
        int parent = fk__parent_index(parents, k);
        fk_quat q = fk_quat_conjugate(fk_quat_normalize(rotations[k]));
        fk_vec3 segment = fk_quat_rotate(fk_quat_conjugate(fk_quat_normalize(transforms[parent].q)),
                                         fk_vec3_sub(fk__pivot(rest_joints, transforms, k),
                                                     fk__pivot(rest_joints, transforms, parent)));
        path = rest_frame ? fk_quat_mul(q, path) : fk_quat_mul(path, q);
        sum = fk_vec3_add(sum, fk_quat_rotate(path, segment));
    }
    *pivot = fk_vec3_add(fk__pivot(rest_joints, transforms, top), sum);
}

/* |x| + |y| + |z|: at least the length, and free of the squares that would
   overflow for lengths float holds. */
static float fk__aim_size(fk_vec3 v) { return fabsf(v.x) + fabsf(v.y) + fabsf(v.z); }

/* The affine map @p m (3x4, double) applied to the point @p v. */
static FK__SMALL fk_vec3 fk__ik_affine_point(const double m[12], fk_vec3 v)
{
    const double x = (double)v.x, y = (double)v.y, z = (double)v.z;
    return fk_vec3_make((float)(m[0] * x + m[1] * y + m[2] * z + m[3]), (float)(m[4] * x + m[5] * y + m[6] * z + m[7]),
                        (float)(m[8] * x + m[9] * y + m[10] * z + m[11]));
}

/* The fraction @p weight of a turn's angle, about its axis (the shorter way round). */
static FK__SMALL fk_quat fk__aim_weighted(fk_quat turn, float weight)
{
    fk_vec3 axis;
    float angle;
    if (!(weight < 1.0f)) return turn;
    fk_quat_to_axis_angle(turn, &axis, &angle);
    return fk_quat_from_axis_angle(axis, weight * angle);
}

/* A joint's pivot, from its rigid transform or its affine matrix. */
static FK__SMALL fk_vec3 fk__aim_pivot(const fk_vec3 *rest_joints, const fk_rigid *transforms, const float *matrices,
                                       int joint)
{
    return matrices ? fk__ik_affine_pivot(rest_joints, matrices, joint) : fk__pivot(rest_joints, transforms, joint);
}

/* A vector carried by a joint's matrix: its linear part applied to @p v. */
static FK__SMALL fk_vec3 fk__ik_vector(const float *matrices, int joint, fk_vec3 v)
{
    double linear[9], inverse[9];
    fk__ik_linear(matrices, joint, linear, inverse);
    return fk__mat3_apply(linear, v);
}

/* Everything the chain reads, before anything is written. The bound on the
   distances (pivot of chain[0], the segments below it, offset and target) keeps
   every point the turns can reach, and their differences, finite. */
static fk_result fk__check_aim(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                               const fk_rigid *transforms, fk_rotation_frame frame, int chain_count,
                               const int *chain, const float *weights, const fk_ik_aim_desc *aim, fk_vec3 target,
                               const fk_quat *rotations)
{
    const fk_rigid stand_in = {{0.0f, 0.0f, 0.0f, 1.0f}, {0.0f, 0.0f, 0.0f}};
    const float *matrices;
    fk_result result;
    int m, k, last, top, above_top;
    float bound;
    if (chain_count < 1) return FK_ERROR_INVALID_COUNT;
    if (!chain || !weights || !aim || !rotations) return FK_ERROR_NULL_ARGUMENT;
    last = chain[chain_count - 1];
    matrices = aim->matrices;
    /* With matrices the rest joints are optional (as for fk_ik_two_bone()). */
    if ((result = fk__check_chain(joint_count, parents, matrices && !rest_joints ? &target : rest_joints,
                                  matrices ? &stand_in : transforms, last)) != FK_OK)
        return result;
    if (frame != FK_FRAME_PARENT && frame != FK_FRAME_REST) return FK_ERROR_INVALID_OPTION;
    if (matrices && (transforms || frame != FK_FRAME_PARENT)) return FK_ERROR_CONFLICTING_ARGUMENTS;
    for (m = 0; m < chain_count; ++m) {
        if (chain[m] < 0 || chain[m] >= joint_count) return FK_ERROR_JOINT_OUT_OF_RANGE;
        if (!fk__is_within(weights[m], 0.0f, 1.0f)) return FK_ERROR_INVALID_WEIGHT;
    }
    /* The path from the last joint up is free of cycles (fk__check_chain), so
       these walks end. */
    for (m = chain_count - 1; m > 0; --m) {
        for (k = fk__parent_index(parents, chain[m]); k >= 0 && k != chain[m - 1]; k = fk__parent_index(parents, k)) {}
        if (k < 0) return FK_ERROR_JOINT_OUT_OF_RANGE;
    }
    if (!fk__vec3_is_finite(aim->forward) || !fk__vec3_is_finite(aim->offset) || !fk__vec3_is_finite(aim->up) ||
        !fk__vec3_is_finite(aim->pole) || !fk__is_finite(aim->twist) || !fk__vec3_is_finite(target))
        return FK_ERROR_NOT_FINITE;
    if (aim->forward.x == 0.0f && aim->forward.y == 0.0f && aim->forward.z == 0.0f) return FK_ERROR_INVALID_ROTATION;
    top = chain[0];
    above_top = fk__parent_index(parents, top);
    if (above_top >= 0 && !matrices && (result = fk__check_rigid(&transforms[above_top])) != FK_OK) return result;
    if (above_top >= 0 && matrices && !fk__mat34_is_finite(&matrices[12 * above_top])) return FK_ERROR_NOT_FINITE;
    for (k = last;; k = fk__parent_index(parents, k)) {
        if (!fk__quat_is_normalizable(rotations[k])) return FK_ERROR_INVALID_ROTATION;
        if (!matrices && (result = fk__check_rigid(&transforms[k])) != FK_OK) return result;
        if (matrices && !fk__mat34_is_finite(&matrices[12 * k])) return FK_ERROR_NOT_FINITE;
        if (rest_joints && !fk__vec3_is_finite(rest_joints[k])) return FK_ERROR_NOT_FINITE;
        if (k == top) break;
    }
    /* With scale, a chain joint turns in its parent's space: that must exist. */
    for (m = 0; matrices && m < chain_count; ++m) {
        double linear[9], inverse[9];
        if (!fk__ik_linear(matrices, fk__parent_index(parents, chain[m]), linear, inverse)) return FK_ERROR_NOT_RIGID;
    }
    bound = fk__aim_size(fk__aim_pivot(rest_joints, transforms, matrices, top)) + fk__aim_size(target) +
            fk__aim_size(matrices ? fk__ik_vector(matrices, last, aim->offset) : aim->offset);
    for (k = last; k != top; k = fk__parent_index(parents, k))
        bound += fk__aim_size(fk_vec3_sub(fk__aim_pivot(rest_joints, transforms, matrices, k),
                                          fk__aim_pivot(rest_joints, transforms, matrices,
                                                        fk__parent_index(parents, k))));
    return bound <= 0.125f * FLT_MAX ? FK_OK : FK_ERROR_NOT_FINITE;
}

/* fk_ik_aim_chain() on affine matrices. Turning chain joint j by G in its parent's
   space moves its subtree by y -> P + A_p G A_p^-1 (y - P) (see the two-bone
   solve with scale), an affine map of world space; every later chain joint, its
   parent and the last joint lie in that subtree, so the turns so far are one
   affine map, @c moved, applied to the matrices read. The aim itself is solved
   in the parent's space z = A_p^-1 (y - P), where the turn is a rotation: the
   ray, the target and the up axis are mapped there, and the pole by A_p^T,
   which makes (posed up) . pole in world space the quantity maximized. */
static FK__SMALL int fk__aim_chain_affine(const int *parents, const fk_vec3 *rest_joints, int chain_count,
                                          const int *chain, const float *weights, const fk_ik_aim_desc *aim,
                                          fk_vec3 target, fk_quat *rotations)
{
    const float *matrices = aim->matrices;
    const int last = chain[chain_count - 1];
    double moved[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, linear[9], inverse[9], turned[9], map[12], product[9];
    int m, e, all_reached = 1;
    for (m = 0; m < chain_count; ++m) {
        const int joint = chain[m];
        fk_vec3 pivot, origin, forward, up, pole;
        float rotation[9];
        fk_quat turn;
        int hit;
        /* The parent's current linear part moved A_p, and what the turns so far did to the joints read. */
        fk__ik_linear(matrices, fk__parent_index(parents, joint), linear, inverse);
        fk__mat34_linear(moved, turned);
        fk__mat3_mul_double(turned, linear, product);
        fk__mat3_inverse(product, inverse);
        pivot = fk__ik_affine_point(moved, fk__ik_affine_pivot(rest_joints, matrices, joint));
        origin = fk__ik_affine_point(moved, fk_vec3_add(fk__ik_affine_pivot(rest_joints, matrices, last),
                                                        fk__ik_vector(matrices, last, aim->offset)));
        forward = fk__mat3_apply(turned, fk__ik_vector(matrices, last, aim->forward));
        up = fk__mat3_apply(turned, fk__ik_vector(matrices, last, aim->up));
        for (e = 0; e < 9; ++e) map[e] = product[3 * (e % 3) + e / 3]; /* A_p^T */
        pole = fk__mat3_apply(map, aim->pole);
        turn = fk__aim_turn(fk__mat3_apply(inverse, fk_vec3_sub(origin, pivot)),
                            fk_vec3_normalize(fk__mat3_apply(inverse, forward)),
                            fk_vec3_normalize(fk__mat3_apply(inverse, up)), fk_vec3_normalize(pole), aim->twist,
                            fk__mat3_apply(inverse, fk_vec3_sub(target, pivot)), &hit);
        all_reached &= hit;
        if (!(weights[m] > 0.0f)) continue;
        turn = fk__aim_weighted(turn, weights[m]);
        rotations[joint] = fk_quat_normalize(fk_quat_mul(turn, fk_quat_normalize(rotations[joint])));
        /* moved <- (y -> P + A_p G A_p^-1 (y - P)) moved */
        fk_quat_to_mat3(turn, rotation);
        for (e = 0; e < 9; ++e) turned[e] = (double)rotation[e];
        fk__mat3_mul_double(product, turned, linear);
        fk__mat3_mul_double(linear, inverse, turned);
        for (e = 0; e < 3; ++e) {
            const double p[3] = {(double)pivot.x, (double)pivot.y, (double)pivot.z};
            map[4 * e] = turned[3 * e]; map[4 * e + 1] = turned[3 * e + 1]; map[4 * e + 2] = turned[3 * e + 2];
            map[4 * e + 3] = p[e] - (turned[3 * e] * p[0] + turned[3 * e + 1] * p[1] + turned[3 * e + 2] * p[2]);
        }
        fk__mat34_mul_double(map, moved, moved);
    }
    return all_reached;
}

FK_LBS_DEF FK__SMALL fk_result fk_ik_aim_chain(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                                               const fk_rigid *transforms, fk_rotation_frame frame, int chain_count,
                                               const int *chain, const float *weights, const fk_ik_aim_desc *aim,
                                               fk_vec3 target, fk_quat *rotations, int *reached)
{
    fk_vec3 forward, up, pole;
    int m, last, turned = 0, all_reached = 1, rest_frame = frame == FK_FRAME_REST;
    fk_result result = fk__check_aim(joint_count, parents, rest_joints, transforms, frame, chain_count, chain,
                                     weights, aim, target, rotations);
    if (result != FK_OK) return result;
    if (aim->matrices) {
        all_reached = fk__aim_chain_affine(parents, rest_joints, chain_count, chain, weights, aim, target, rotations);
        if (reached) *reached = all_reached;
        return FK_OK;
    }
    forward = fk_vec3_normalize(aim->forward);
    up = fk_vec3_normalize(aim->up);
    pole = fk_vec3_normalize(aim->pole);
    last = chain[chain_count - 1];
    for (m = 0; m < chain_count; ++m) {
        int joint = chain[m], hit;
        fk_quat q_joint, q_last, turn;
        fk_vec3 p_joint, p_last, origin;
        if (turned) {
            fk__aim_current(parents, rest_joints, transforms, rotations, rest_frame, chain[0], joint, &q_joint, &p_joint);
            fk__aim_current(parents, rest_joints, transforms, rotations, rest_frame, chain[0], last, &q_last, &p_last);
        } else {
            q_joint = fk_quat_normalize(transforms[joint].q);
            p_joint = fk__pivot(rest_joints, transforms, joint);
            q_last = fk_quat_normalize(transforms[last].q);
            p_last = fk__pivot(rest_joints, transforms, last);
        }
        origin = fk_vec3_sub(fk_vec3_add(p_last, fk_quat_rotate(q_last, aim->offset)), p_joint);
        turn = fk__aim_turn(origin, fk_quat_rotate(q_last, forward), fk_quat_rotate(q_last, up), pole, aim->twist,
                            fk_vec3_sub(target, p_joint), &hit);
        all_reached &= hit;
        if (weights[m] > 0.0f) {
            fk_quat q = fk_quat_normalize(rotations[joint]);
            turn = fk__aim_weighted(turn, weights[m]);
            rotations[joint] = fk_quat_normalize(fk__relative_after_turn(frame, q_joint, q, fk_quat_identity(), turn));
            turned = 1;
        }
    }
    if (reached) *reached = all_reached;
    return FK_OK;
}

FK_LBS_DEF fk_result fk_ik_aim(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                               const fk_rigid *transforms, fk_rotation_frame frame, int joint,
                               const fk_ik_aim_desc *aim, fk_vec3 target, float weight, fk_quat *rotations,
                               int *reached)
{
    return fk_ik_aim_chain(joint_count, parents, rest_joints, transforms, frame, 1, &joint, &weight, aim, target,
                           rotations, reached);
}

/* ---- Retargeting --------------------------------------------------------------
   World rotations compose alike in both forms (W_i = W_p r_i). Building the
   retarget walks each joint's chain up for its posture (once); a pose computes
   the source's world rotations parents first, one product a joint. */

static FK__SMALL fk_quat fk__retarget_world(const int *parents, const fk_quat *rotations, int joint)
{
    fk_quat w = fk_quat_identity();
    for (; joint >= 0 && rotations; joint = parents[joint]) w = fk_quat_mul(fk_quat_normalize(rotations[joint]), w);
    return fk_quat_normalize(w);
}

/* The rotations that put a rig in its posture: the reference, else its rest. */
static const fk_quat *fk__retarget_posture(const fk_retarget_rig *rig)
{
    return rig->reference ? rig->reference : rig->rest_rotations;
}

/* The root's rest translation in its form: a pivot-form root's d_r is zero at rest. */
static fk_vec3 fk__retarget_rest_root(const fk_retarget_rig *rig)
{
    return rig->rest_rotations ? rig->rest_positions[rig->root] : fk_vec3_make(0.0f, 0.0f, 0.0f);
}

static FK__SMALL fk_result fk__retarget_check_rig(const fk_retarget_rig *rig)
{
    const fk_quat *posture = fk__retarget_posture(rig);
    fk_result result;
    int k;
    if (!rig->parents || !rig->rest_positions) return FK_ERROR_NULL_ARGUMENT;
    if (rig->joint_count < 1) return FK_ERROR_INVALID_COUNT;
    if ((result = fk_validate_skeleton(rig->joint_count, rig->parents)) != FK_OK) return result;
    if (rig->root < 0 || rig->root >= rig->joint_count || rig->parents[rig->root] >= 0)
        return FK_ERROR_JOINT_OUT_OF_RANGE;
    for (k = 0; k < rig->joint_count; ++k)
        if ((rig->rest_rotations && !fk__quat_is_normalizable(rig->rest_rotations[k])) ||
            (posture && !fk__quat_is_normalizable(posture[k])))
            return FK_ERROR_INVALID_ROTATION;
    return fk__vec3_is_finite(rig->rest_positions[rig->root]) ? FK_OK : FK_ERROR_NOT_FINITE;
}

FK_LBS_DEF FK__SMALL fk_result fk_retarget_init(fk_retarget *retarget, const fk_retarget_desc *desc,
                                                int *int_storage, fk_quat *quat_storage)
{
    const fk_retarget_rig *s, *t;
    const fk_quat *source_posture, *target_posture;
    fk_retarget r;
    fk_result result;
    float scale;
    int i, n;
    if (!retarget || !desc || !int_storage || !quat_storage || !desc->map) return FK_ERROR_NULL_ARGUMENT;
    s = &desc->source;
    t = &desc->target;
    if ((result = fk__retarget_check_rig(s)) != FK_OK || (result = fk__retarget_check_rig(t)) != FK_OK) return result;
    n = t->joint_count;
    for (i = 0; i < n; ++i)
        if (desc->map[i] < -1 || desc->map[i] >= s->joint_count) return FK_ERROR_JOINT_OUT_OF_RANGE;
    for (i = 0; i < 3; ++i)
        if ((unsigned)desc->root_axes[i] > (unsigned)FK_RETARGET_AXIS_COPY) return FK_ERROR_INVALID_OPTION;
    /* with no scale given, the hip heights' ratio: it must be a scale as well */
    scale = desc->root_scale != 0.0f ? desc->root_scale : t->rest_positions[t->root].y / s->rest_positions[s->root].y;
    if (!fk__is_finite(scale) || !(scale > 0.0f)) return FK_ERROR_INVALID_OPTION;

    fk_skeleton_init(&r.target, n, t->parents, int_storage);
    fk_skeleton_init(&r.source, s->joint_count, s->parents, int_storage + FK_SKELETON_STORAGE(n) + n);
    source_posture = fk__retarget_posture(s);
    target_posture = fk__retarget_posture(t);
    for (i = 0; i < n; ++i) {
        int j = desc->map[i];
        int_storage[FK_SKELETON_STORAGE(n) + i] = j;
        quat_storage[i] = j < 0 ? (target_posture ? fk_quat_normalize(target_posture[i]) : fk_quat_identity())
                                : fk_quat_normalize(fk_quat_mul(
                                      fk_quat_conjugate(fk__retarget_world(s->parents, source_posture, j)),
                                      fk__retarget_world(t->parents, target_posture, i)));
    }
    r.source_root = s->root;
    r.source_rest_root = fk__retarget_rest_root(s);
    r.map = int_storage + FK_SKELETON_STORAGE(n);
    r.rotations = quat_storage;
    r.target_root = t->root;
    r.target_rest_root = fk__retarget_rest_root(t);
    r.root_scale = scale;
    for (i = 0; i < 3; ++i) r.root_axes[i] = desc->root_axes[i];
    *retarget = r;
    return FK_OK;
}

FK_LBS_DEF FK__SMALL fk_result fk_retarget_pose(const fk_retarget *retarget, const fk_quat *source_rotations,
                                                fk_vec3 source_root_translation, fk_quat *source_world,
                                                fk_quat *out_rotations, fk_vec3 *out_root_translation)
{
    const int *order, *parents;
    float root[3], from[3];
    int k, n;
    if (!retarget || !source_rotations || !source_world || !out_rotations) return FK_ERROR_NULL_ARGUMENT;
    for (k = 0; k < retarget->source.joint_count; ++k)
        if (!fk__quat_is_normalizable(source_rotations[k])) return FK_ERROR_INVALID_ROTATION;
    if (out_root_translation) {
        fk_vec3 moved = fk_vec3_sub(source_root_translation, retarget->source_rest_root);
        memcpy(root, &retarget->target_rest_root, sizeof root);
        memcpy(from, &moved, sizeof from);
        for (k = 0; k < 3; ++k)
            if (retarget->root_axes[k] != FK_RETARGET_AXIS_KEEP)
                root[k] += retarget->root_axes[k] == FK_RETARGET_AXIS_COPY ? from[k] : retarget->root_scale * from[k];
        if (!fk__vec3_is_finite(moved) || !fk__vec3_is_finite(fk_vec3_make(root[0], root[1], root[2])))
            return FK_ERROR_NOT_FINITE;
    }
    order = retarget->source.order;
    parents = retarget->source.parents;
    for (k = 0; k < retarget->source.joint_count; ++k) {
        int j = order[k], p = parents[j];
        fk_quat q = fk_quat_normalize(source_rotations[j]);
        source_world[j] = p < 0 ? q : fk_quat_normalize(fk_quat_mul(source_world[p], q));
    }
    n = retarget->target.joint_count;
    order = retarget->target.order;
    parents = retarget->target.parents;
    /* world rotations first, parents before children: V_i = W_j C_i, or V_p L_i */
    for (k = 0; k < n; ++k) {
        int i = order[k], j = retarget->map[i], p = parents[i];
        fk_quat v = retarget->rotations[i];
        if (j >= 0) v = fk_quat_mul(source_world[j], v);
        else if (p >= 0) v = fk_quat_mul(out_rotations[p], v);
        out_rotations[i] = fk_quat_normalize(v);
    }
    /* then relative ones, children first, so that each reads its parent's world */
    for (k = n - 1; k >= 0; --k) {
        int i = order[k], p = parents[i];
        if (retarget->map[i] < 0) out_rotations[i] = retarget->rotations[i];
        else if (p >= 0) out_rotations[i] = fk_quat_normalize(fk_quat_mul(fk_quat_conjugate(out_rotations[p]), out_rotations[i]));
    }
    if (out_root_translation) *out_root_translation = fk_vec3_make(root[0], root[1], root[2]);
    return FK_OK;
}

FK_LBS_DEF FK__SMALL fk_result fk_retarget_foot(const fk_retarget *retarget, const fk_vec3 *source_positions,
                                                const fk_ik_two_bone_desc *leg, float weight, fk_quat *rotations,
                                                int *reached)
{
    fk_ik_two_bone_desc d;
    fk_result result;
    fk_vec3 root;
    const float *m;
    int j;
    if (!retarget || !source_positions || !leg || (!leg->matrices && (!leg->transforms || !leg->rest_joints)))
        return FK_ERROR_NULL_ARGUMENT;
    d = *leg;
    d.joint_count = retarget->target.joint_count;
    d.parents = retarget->target.parents;
    if (d.end < 0 || d.end >= d.joint_count || (j = retarget->map[d.end]) < 0) return FK_ERROR_JOINT_OUT_OF_RANGE;
    if (d.matrices) {
        m = d.matrices + 12 * retarget->target_root;
        root = fk_vec3_make(m[3], m[7], m[11]);
    } else {
        if ((result = fk__check_rigid(&d.transforms[retarget->target_root])) != FK_OK) return result;
        root = fk__pivot(d.rest_joints, d.transforms, retarget->target_root);
    }
    /* the foot's offset from the hips, scaled; a NaN or overflow here is
       fk_ik_two_bone()'s FK_ERROR_NOT_FINITE */
    d.target = fk_vec3_add(fk_vec3_add(root, leg->target),
                           fk_vec3_scale(fk_vec3_sub(source_positions[j], source_positions[retarget->source_root]),
                                         retarget->root_scale));
    return fk_ik_two_bone(&d, weight, rotations, reached);
}

/* ASCII case folding, so that names compare alike in every locale. */
static int fk__name_fold(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : (unsigned char)c; }

/* Whether @p s starts with @p prefix, ignoring case; returns its length or 0. */
static size_t fk__name_starts(const char *s, const char *prefix)
{
    size_t k;
    for (k = 0; prefix[k]; ++k)
        if (fk__name_fold(s[k]) != fk__name_fold(prefix[k])) return 0;
    return k;
}

/* A name without its namespace ("mixamorig:", "Armature|") and 3ds Max's "Bip01 ". */
static FK__SMALL const char *fk__name_base(const char *name)
{
    static const char *const biped[] = {"bip01", "bip001"};
    const char *c, *base = name;
    size_t k, length;
    for (c = name; *c; ++c)
        if (*c == ':' || *c == '|') base = c + 1;
    for (k = 0; k < 2; ++k)
        if ((length = fk__name_starts(base, biped[k])) != 0 && (base[length] == ' ' || base[length] == '_'))
            return base + length + 1;
    return base;
}

static FK__SMALL int fk__name_equal(const char *a, const char *b, int fold)
{
    for (;; ++a, ++b) {
        int x = fold ? fk__name_fold(*a) : *a, y = fold ? fk__name_fold(*b) : *b;
        if (x != y) return 0;
        if (!x) return 1;
    }
}

FK_LBS_DEF FK__SMALL fk_result fk_retarget_map_names(int target_count, const char *const *target_names,
                                                     int source_count, const char *const *source_names,
                                                     int *out_map, int *out_unmapped)
{
    int i, j, pass, unmapped = 0;
    if (target_count < 0 || source_count < 0) return FK_ERROR_INVALID_COUNT;
    if ((target_count && (!target_names || !out_map)) || (source_count && !source_names))
        return FK_ERROR_NULL_ARGUMENT;
    for (i = 0; i < target_count; ++i) {
        int found = -1;
        /* pass 0: the names as they are; pass 1: stripped and folded */
        for (pass = 0; pass < 2 && found < 0 && target_names[i]; ++pass)
            for (j = 0; j < source_count && found < 0; ++j)
                if (source_names[j] &&
                    (pass == 0 ? fk__name_equal(target_names[i], source_names[j], 0)
                               : fk__name_equal(fk__name_base(target_names[i]), fk__name_base(source_names[j]), 1)))
                    found = j;
        out_map[i] = found;
        unmapped += found < 0;
    }
    if (out_unmapped) *out_unmapped = unmapped;
    return FK_OK;
}

/* ============================================================================
   FAST PATHS
   ============================================================================
   Everything above is the whole library in plain C. What follows makes four
   of its loops faster where the processor has vector instructions: the
   vertex loops of fk_skin_lbs(), fk_skin_dqs() and fk_skin_cor() (rigid
   bones, and bones with scale), and fk_forward()'s pass over a
   parents-first skeleton. They compute
   what the reference loops compute, to a few ulps (tests/test_simd.c holds
   them to it), and like them they give a vertex the same bits whatever its
   neighbours, layout or place in the call, because every vertex goes through
   the same instructions alone.

   The code comes in layers:
     1. a 4-lane vector layer, fk__f4: about twenty-five operations (load3,
        madd, permute, transpose, rsqrt...), written once for each instruction
        set: SSE2, NEON, WebAssembly SIMD128;
     2. blends at a width: a bone's LBS matrix (16 floats) or dual quaternion
        (8 floats) summed over a vertex's influences, in 4-lane registers or,
        on x86-64 with AVX2 and FMA, in 8-lane ones; and groups of 4 or 8
        vertices a vertex to a lane (fk__v4, fk__v8), for the work after a
        blend;
     3. kernels written once against them (FK__SKIN_KERNELS, FK__LBS_NORMALS,
        FK__DQS_FINISH, FK__COR_FINISH, FK__FORWARD_KERNEL) and compiled once
        per tier: a tier is an instruction set and a width.
   fk__fast_paths() picks the tier the processor runs best, through a table
   of four functions. FK_LBS_NO_SIMD leaves only the reference loops.
   Specialized copies, each because it measured faster: the skinning kernels
   for four influences and for any count, with and without normals (the
   influence loop unrolls, the normal branch goes), LBS's normals moved by the
   blend (rigid bones) or by its cofactors (affine bones); DQS once per source of
   signs (pre-signed bones, the sign table, dot products: four influences'
   at once, transposed), so that no branch on data picks it per influence,
   and once for bones with scale centred at the vertex (signs from bits; any
   count, and four influences with and without normals; a large rig whose
   used bones fold, fk__dqs_rows_fold(), reads the bits of a small one);
   forward kinematics per convention and with and without translations.
   Bones with scale centred at the bone need no kernel of their own: affine
   LBS by their scale parts, then rigid DQS (fk__scaled_in_two()).
   CoR has one loop for any count, with or without normals: LBS's blend moves
   its centres, DQS's blend of real parts (signed by DQS's sign bits or by dot
   products) and DQS's turn of a point finish them; with scale, affine LBS of
   p - c by the scale parts goes first, as at the bone. */


#if defined(FK__SIMD)

/* ---- Fast paths: the 4-lane vector layer ------------------------------------
   fk__f4 holds four floats: a point or direction x y z (and a fourth lane the
   code never stores), a quaternion x y z w, or one number of four joints. */

#if defined(FK__SIMD_SSE2)

typedef __m128 fk__f4;
#define FK__F4_PERMUTE(v, a, b, c, d) _mm_castsi128_ps(_mm_shuffle_epi32(_mm_castps_si128(v), _MM_SHUFFLE(d, c, b, a)))
static FK__ALWAYS_INLINE fk__f4 fk__f4_zero(void) { return _mm_setzero_ps(); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_splat(float s) { return _mm_set1_ps(s); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_make(float x, float y, float z, float w) { return _mm_setr_ps(x, y, z, w); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_load(const float *p) { return _mm_loadu_ps(p); }
static FK__ALWAYS_INLINE void fk__f4_store(float *p, fk__f4 v) { _mm_storeu_ps(p, v); }
static FK__ALWAYS_INLINE float fk__f4_first(fk__f4 v) { return _mm_cvtss_f32(v); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_add(fk__f4 a, fk__f4 b) { return _mm_add_ps(a, b); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_sub(fk__f4 a, fk__f4 b) { return _mm_sub_ps(a, b); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_mul(fk__f4 a, fk__f4 b) { return _mm_mul_ps(a, b); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_div(fk__f4 a, fk__f4 b) { return _mm_div_ps(a, b); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_sqrt(fk__f4 a) { return _mm_sqrt_ps(a); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_xor(fk__f4 a, fk__f4 b) { return _mm_xor_ps(a, b); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_max(fk__f4 a, fk__f4 b) { return _mm_max_ps(a, b); }
/* Bit i set where lane i of a equals lane i of b. */
static FK__ALWAYS_INLINE int fk__f4_equal_lanes(fk__f4 a, fk__f4 b) { return _mm_movemask_ps(_mm_cmpeq_ps(a, b)); }
/* v with its sign turned round in the lanes where a < b. */
static FK__ALWAYS_INLINE fk__f4 fk__f4_negate_where_less(fk__f4 v, fk__f4 a, fk__f4 b)
{
    return _mm_xor_ps(v, _mm_and_ps(_mm_cmplt_ps(a, b), _mm_set1_ps(-0.0f)));
}
/* a b + c; SSE2 has no fused form (the AVX2 tier fuses its own blends) */
static FK__ALWAYS_INLINE fk__f4 fk__f4_madd(fk__f4 a, fk__f4 b, fk__f4 c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }

/* Never touches the fourth float, which may be another vertex's or past the end. */
static FK__ALWAYS_INLINE fk__f4 fk__f4_load3(const void *p)
{
    return _mm_movelh_ps(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)p), _mm_load_ss((const float *)p + 2));
}
static FK__ALWAYS_INLINE void fk__f4_store3(void *p, fk__f4 v)
{
    _mm_storel_pi((__m64 *)p, v);
    _mm_store_ss((float *)p + 2, _mm_movehl_ps(v, v));
}

/* Bit i set where lane i is not zero (NaN is not zero). */
static FK__ALWAYS_INLINE int fk__f4_nonzero_lanes(fk__f4 v) { return _mm_movemask_ps(_mm_cmpneq_ps(v, _mm_setzero_ps())); }
/* Keeps in each lane's upper 16 bits the largest upper 16 bits of |v| seen,
   compared as integers (see fk__is_finite()): they hold the exponent, and
   reach 0x7F80 only where a v was infinite or NaN. 16-bit lanes because SSE2
   has no 32-bit integer max. */
static FK__ALWAYS_INLINE fk__f4 fk__f4_mark_not_finite(fk__f4 marks, fk__f4 v)
{
    return _mm_castsi128_ps(_mm_max_epi16(_mm_castps_si128(marks),
                                          _mm_and_si128(_mm_castps_si128(v), _mm_set1_epi32(0x7FFFFFFF))));
}
/* Bit i set where lane i is not in [low, high] (NaN is not). */
static FK__ALWAYS_INLINE int fk__f4_outside_lanes(fk__f4 v, fk__f4 low, fk__f4 high)
{
    return _mm_movemask_ps(_mm_or_ps(_mm_cmpnge_ps(v, low), _mm_cmpnle_ps(v, high)));
}

/* 1 / sqrt(x) for positive normal x: the 12-bit estimate and one Newton step,
   y (3 - x y^2) / 2, a few ulps from the quotient. */
static FK__ALWAYS_INLINE fk__f4 fk__f4_rsqrt(fk__f4 x)
{
    __m128 y = _mm_rsqrt_ps(x);
    return _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), y), _mm_sub_ps(_mm_set1_ps(3.0f), _mm_mul_ps(_mm_mul_ps(y, y), x)));
}

/* Four rows to four columns. */
static FK__ALWAYS_INLINE void fk__f4_transpose(fk__f4 *a, fk__f4 *b, fk__f4 *c, fk__f4 *d) { _MM_TRANSPOSE4_PS(*a, *b, *c, *d); }

/* Four packed points, 48 bytes, to and from x, y, z across the lanes. */
static FK__ALWAYS_INLINE void fk__f4_load_packed3(const float *p, fk__f4 *x, fk__f4 *y, fk__f4 *z)
{
    __m128 a = _mm_loadu_ps(p), b = _mm_loadu_ps(p + 4), c = _mm_loadu_ps(p + 8); /* x0y0z0x1 y1z1x2y2 z2x3y3z3 */
    __m128 middle = _mm_shuffle_ps(b, c, _MM_SHUFFLE(1, 0, 3, 2));                  /* x2 y2 z2 x3 */
    __m128 yz_low = _mm_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 2, 1));                  /* y0 z0 y1 z1 */
    __m128 yz_high = _mm_shuffle_ps(middle, c, _MM_SHUFFLE(3, 2, 2, 1));            /* y2 z2 y3 z3 */
    *x = _mm_shuffle_ps(a, middle, _MM_SHUFFLE(3, 0, 3, 0));
    *y = _mm_shuffle_ps(yz_low, yz_high, _MM_SHUFFLE(2, 0, 2, 0));
    *z = _mm_shuffle_ps(yz_low, yz_high, _MM_SHUFFLE(3, 1, 3, 1));
}
static FK__ALWAYS_INLINE void fk__f4_store_packed3(float *p, fk__f4 x, fk__f4 y, fk__f4 z)
{
    __m128 xy_low = _mm_unpacklo_ps(x, y), xy_high = _mm_unpackhi_ps(x, y);
    _mm_storeu_ps(p, _mm_shuffle_ps(xy_low, _mm_unpacklo_ps(z, x), _MM_SHUFFLE(3, 0, 1, 0)));
    _mm_storeu_ps(p + 4, _mm_shuffle_ps(_mm_unpacklo_ps(y, z), xy_high, _MM_SHUFFLE(1, 0, 3, 2)));
    _mm_storeu_ps(p + 8, _mm_shuffle_ps(_mm_unpackhi_ps(z, x), _mm_unpackhi_ps(y, z), _MM_SHUFFLE(3, 2, 3, 0)));
}

/* glTF's integer formats widened: four uint8_t or uint16_t to floats, four
   uint8_t to uint16_t (fk__convert_lists()). */
static FK__ALWAYS_INLINE __m128i fk__u8x4_widened(const void *p)
{
    uint32_t bytes;
    memcpy(&bytes, p, sizeof bytes);
    return _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)bytes), _mm_setzero_si128());
}
static FK__ALWAYS_INLINE fk__f4 fk__f4_from_u8(const void *p)
{
    return _mm_cvtepi32_ps(_mm_unpacklo_epi16(fk__u8x4_widened(p), _mm_setzero_si128()));
}
static FK__ALWAYS_INLINE fk__f4 fk__f4_from_u16(const void *p)
{
    return _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)p), _mm_setzero_si128()));
}
static FK__ALWAYS_INLINE void fk__u16_from_u8(const void *p, uint16_t *out)
{
    _mm_storel_epi64((__m128i *)(void *)out, fk__u8x4_widened(p));
}

/* Whether count joint indices are all at most limit: a saturating
   subtraction leaves a nonzero lane exactly where one is above it. */
static FK__ALWAYS_INLINE int fk__indices_at_most(const uint16_t *indices, size_t count, unsigned limit)
{
    const __m128i bound = _mm_set1_epi16((short)(unsigned short)limit);
    __m128i excess = _mm_setzero_si128();
    size_t i;
    unsigned over = 0;
    for (i = 0; i + 8 <= count; i += 8)
        excess = _mm_or_si128(excess, _mm_subs_epu16(_mm_loadu_si128((const __m128i *)(const void *)(indices + i)), bound));
    for (; i < count; ++i) over |= indices[i] > limit;
    return !over && _mm_movemask_epi8(_mm_cmpeq_epi16(excess, _mm_setzero_si128())) == 0xFFFF;
}

#elif defined(FK__SIMD_NEON)

typedef float32x4_t fk__f4;
#if defined(__clang__) || __GNUC__ >= 12
#define FK__F4_PERMUTE(v, a, b, c, d) __builtin_shufflevector((v), (v), a, b, c, d)
#else
#define FK__F4_PERMUTE(v, a, b, c, d) __builtin_shuffle((v), (uint32x4_t){a, b, c, d})
#endif
static FK__ALWAYS_INLINE fk__f4 fk__f4_zero(void) { return vdupq_n_f32(0.0f); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_splat(float s) { return vdupq_n_f32(s); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_make(float x, float y, float z, float w)
{
    float lanes[4];
    lanes[0] = x; lanes[1] = y; lanes[2] = z; lanes[3] = w;
    return vld1q_f32(lanes);
}
static FK__ALWAYS_INLINE fk__f4 fk__f4_load(const float *p) { return vld1q_f32(p); }
static FK__ALWAYS_INLINE void fk__f4_store(float *p, fk__f4 v) { vst1q_f32(p, v); }
static FK__ALWAYS_INLINE float fk__f4_first(fk__f4 v) { return vgetq_lane_f32(v, 0); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_add(fk__f4 a, fk__f4 b) { return vaddq_f32(a, b); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_sub(fk__f4 a, fk__f4 b) { return vsubq_f32(a, b); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_mul(fk__f4 a, fk__f4 b) { return vmulq_f32(a, b); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_div(fk__f4 a, fk__f4 b) { return vdivq_f32(a, b); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_sqrt(fk__f4 a) { return vsqrtq_f32(a); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_xor(fk__f4 a, fk__f4 b)
{
    return vreinterpretq_f32_u32(veorq_u32(vreinterpretq_u32_f32(a), vreinterpretq_u32_f32(b)));
}
static FK__ALWAYS_INLINE fk__f4 fk__f4_max(fk__f4 a, fk__f4 b) { return vmaxq_f32(a, b); }
static FK__ALWAYS_INLINE int fk__f4_lane_bits(uint32x4_t mask);
static FK__ALWAYS_INLINE int fk__f4_equal_lanes(fk__f4 a, fk__f4 b) { return fk__f4_lane_bits(vceqq_f32(a, b)); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_negate_where_less(fk__f4 v, fk__f4 a, fk__f4 b)
{
    return vreinterpretq_f32_u32(veorq_u32(vreinterpretq_u32_f32(v), vandq_u32(vcltq_f32(a, b), vdupq_n_u32(0x80000000u))));
}
/* a b + c, fused: every 64-bit Arm core has it */
static FK__ALWAYS_INLINE fk__f4 fk__f4_madd(fk__f4 a, fk__f4 b, fk__f4 c) { return vfmaq_f32(c, a, b); }

static FK__ALWAYS_INLINE fk__f4 fk__f4_load3(const void *p)
{
    const float *v = (const float *)p;
    return vcombine_f32(vld1_f32(v), vld1_lane_f32(v + 2, vdup_n_f32(0.0f), 0));
}
static FK__ALWAYS_INLINE void fk__f4_store3(void *p, fk__f4 v)
{
    vst1_f32((float *)p, vget_low_f32(v));
    vst1q_lane_f32((float *)p + 2, v, 2);
}
static FK__ALWAYS_INLINE int fk__f4_lane_bits(uint32x4_t mask)
{
    static const uint32_t bit[4] = {1, 2, 4, 8};
    return (int)vaddvq_u32(vandq_u32(mask, vld1q_u32(bit)));
}
static FK__ALWAYS_INLINE int fk__f4_nonzero_lanes(fk__f4 v) { return fk__f4_lane_bits(vmvnq_u32(vceqq_f32(v, vdupq_n_f32(0.0f)))); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_mark_not_finite(fk__f4 marks, fk__f4 v)
{
    return vreinterpretq_f32_s16(vmaxq_s16(vreinterpretq_s16_f32(marks), vreinterpretq_s16_f32(vabsq_f32(v))));
}
static FK__ALWAYS_INLINE int fk__f4_outside_lanes(fk__f4 v, fk__f4 low, fk__f4 high)
{
    return fk__f4_lane_bits(vmvnq_u32(vandq_u32(vcgeq_f32(v, low), vcleq_f32(v, high))));
}
/* NEON's estimate has 8 bits, and 64-bit Arm divides and takes square roots
   quickly: the quotient itself. */
static FK__ALWAYS_INLINE fk__f4 fk__f4_rsqrt(fk__f4 x) { return vdivq_f32(vdupq_n_f32(1.0f), vsqrtq_f32(x)); }
static FK__ALWAYS_INLINE uint16x8_t fk__u8x4_widened(const void *p)
{
    uint32_t bytes;
    memcpy(&bytes, p, sizeof bytes);
    return vmovl_u8(vreinterpret_u8_u32(vdup_n_u32(bytes)));
}
static FK__ALWAYS_INLINE fk__f4 fk__f4_from_u8(const void *p)
{
    return vcvtq_f32_u32(vmovl_u16(vget_low_u16(fk__u8x4_widened(p))));
}
static FK__ALWAYS_INLINE fk__f4 fk__f4_from_u16(const void *p) { return vcvtq_f32_u32(vmovl_u16(vld1_u16((const uint16_t *)p))); }
static FK__ALWAYS_INLINE void fk__u16_from_u8(const void *p, uint16_t *out) { vst1_u16(out, vget_low_u16(fk__u8x4_widened(p))); }
static FK__ALWAYS_INLINE int fk__indices_at_most(const uint16_t *indices, size_t count, unsigned limit)
{
    uint16x8_t top = vdupq_n_u16(0);
    size_t i;
    unsigned over = 0;
    for (i = 0; i + 8 <= count; i += 8) top = vmaxq_u16(top, vld1q_u16(indices + i));
    for (; i < count; ++i) over |= indices[i] > limit;
    return !over && vmaxvq_u16(top) <= limit;
}
static FK__ALWAYS_INLINE void fk__f4_transpose(fk__f4 *a, fk__f4 *b, fk__f4 *c, fk__f4 *d)
{
    float32x4x2_t ab = vtrnq_f32(*a, *b), cd = vtrnq_f32(*c, *d);
    *a = vcombine_f32(vget_low_f32(ab.val[0]), vget_low_f32(cd.val[0]));
    *b = vcombine_f32(vget_low_f32(ab.val[1]), vget_low_f32(cd.val[1]));
    *c = vcombine_f32(vget_high_f32(ab.val[0]), vget_high_f32(cd.val[0]));
    *d = vcombine_f32(vget_high_f32(ab.val[1]), vget_high_f32(cd.val[1]));
}
static FK__ALWAYS_INLINE void fk__f4_load_packed3(const float *p, fk__f4 *x, fk__f4 *y, fk__f4 *z)
{
    float32x4x3_t points = vld3q_f32(p);
    *x = points.val[0]; *y = points.val[1]; *z = points.val[2];
}
static FK__ALWAYS_INLINE void fk__f4_store_packed3(float *p, fk__f4 x, fk__f4 y, fk__f4 z)
{
    float32x4x3_t points;
    points.val[0] = x; points.val[1] = y; points.val[2] = z;
    vst3q_f32(p, points);
}

#elif defined(FK__SIMD_WASM)

typedef v128_t fk__f4;
#define FK__F4_PERMUTE(v, a, b, c, d) wasm_i32x4_shuffle((v), (v), a, b, c, d)
static FK__ALWAYS_INLINE fk__f4 fk__f4_zero(void) { return wasm_f32x4_splat(0.0f); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_splat(float s) { return wasm_f32x4_splat(s); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_make(float x, float y, float z, float w) { return wasm_f32x4_make(x, y, z, w); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_load(const float *p) { return wasm_v128_load(p); }
static FK__ALWAYS_INLINE void fk__f4_store(float *p, fk__f4 v) { wasm_v128_store(p, v); }
static FK__ALWAYS_INLINE float fk__f4_first(fk__f4 v) { return wasm_f32x4_extract_lane(v, 0); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_add(fk__f4 a, fk__f4 b) { return wasm_f32x4_add(a, b); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_sub(fk__f4 a, fk__f4 b) { return wasm_f32x4_sub(a, b); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_mul(fk__f4 a, fk__f4 b) { return wasm_f32x4_mul(a, b); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_div(fk__f4 a, fk__f4 b) { return wasm_f32x4_div(a, b); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_sqrt(fk__f4 a) { return wasm_f32x4_sqrt(a); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_xor(fk__f4 a, fk__f4 b) { return wasm_v128_xor(a, b); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_max(fk__f4 a, fk__f4 b) { return wasm_f32x4_max(a, b); }
static FK__ALWAYS_INLINE int fk__f4_equal_lanes(fk__f4 a, fk__f4 b) { return (int)wasm_i32x4_bitmask(wasm_f32x4_eq(a, b)); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_negate_where_less(fk__f4 v, fk__f4 a, fk__f4 b)
{
    return wasm_v128_xor(v, wasm_v128_and(wasm_f32x4_lt(a, b), wasm_f32x4_splat(-0.0f)));
}
/* a b + c; SIMD128 has no fused form (relaxed SIMD's may or may not fuse) */
static FK__ALWAYS_INLINE fk__f4 fk__f4_madd(fk__f4 a, fk__f4 b, fk__f4 c) { return wasm_f32x4_add(wasm_f32x4_mul(a, b), c); }

static FK__ALWAYS_INLINE fk__f4 fk__f4_load3(const void *p)
{
    return wasm_v128_load32_lane((const float *)p + 2, wasm_v128_load64_zero(p), 2);
}
static FK__ALWAYS_INLINE void fk__f4_store3(void *p, fk__f4 v)
{
    wasm_v128_store64_lane(p, v, 0);
    wasm_v128_store32_lane((float *)p + 2, v, 2);
}
static FK__ALWAYS_INLINE int fk__f4_nonzero_lanes(fk__f4 v) { return (int)wasm_i32x4_bitmask(wasm_f32x4_ne(v, wasm_f32x4_splat(0.0f))); }
static FK__ALWAYS_INLINE fk__f4 fk__f4_mark_not_finite(fk__f4 marks, fk__f4 v)
{
    return wasm_i16x8_max(marks, wasm_v128_and(v, wasm_i32x4_splat(0x7FFFFFFF)));
}
static FK__ALWAYS_INLINE int fk__f4_outside_lanes(fk__f4 v, fk__f4 low, fk__f4 high)
{
    return (int)wasm_i32x4_bitmask(wasm_v128_not(wasm_v128_and(wasm_f32x4_ge(v, low), wasm_f32x4_le(v, high))));
}
/* SIMD128 has no estimate: the quotient itself. */
static FK__ALWAYS_INLINE fk__f4 fk__f4_rsqrt(fk__f4 x) { return wasm_f32x4_div(wasm_f32x4_splat(1.0f), wasm_f32x4_sqrt(x)); }
static FK__ALWAYS_INLINE v128_t fk__u8x4_widened(const void *p)
{
    return wasm_u16x8_extend_low_u8x16(wasm_v128_load32_zero(p));
}
static FK__ALWAYS_INLINE fk__f4 fk__f4_from_u8(const void *p)
{
    return wasm_f32x4_convert_u32x4(wasm_u32x4_extend_low_u16x8(fk__u8x4_widened(p)));
}
static FK__ALWAYS_INLINE fk__f4 fk__f4_from_u16(const void *p) { return wasm_f32x4_convert_u32x4(wasm_u32x4_load16x4(p)); }
static FK__ALWAYS_INLINE void fk__u16_from_u8(const void *p, uint16_t *out) { wasm_v128_store64_lane(out, fk__u8x4_widened(p), 0); }
static FK__ALWAYS_INLINE int fk__indices_at_most(const uint16_t *indices, size_t count, unsigned limit)
{
    v128_t top = wasm_u16x8_splat(0);
    size_t i;
    unsigned over = 0;
    for (i = 0; i + 8 <= count; i += 8) top = wasm_u16x8_max(top, wasm_v128_load(indices + i));
    for (; i < count; ++i) over |= indices[i] > limit;
    return !over && !wasm_v128_any_true(wasm_u16x8_gt(top, wasm_u16x8_splat((uint16_t)limit)));
}
static FK__ALWAYS_INLINE void fk__f4_transpose(fk__f4 *a, fk__f4 *b, fk__f4 *c, fk__f4 *d)
{
    v128_t ab_low = wasm_i32x4_shuffle(*a, *b, 0, 4, 1, 5), ab_high = wasm_i32x4_shuffle(*a, *b, 2, 6, 3, 7);
    v128_t cd_low = wasm_i32x4_shuffle(*c, *d, 0, 4, 1, 5), cd_high = wasm_i32x4_shuffle(*c, *d, 2, 6, 3, 7);
    *a = wasm_i64x2_shuffle(ab_low, cd_low, 0, 2);
    *b = wasm_i64x2_shuffle(ab_low, cd_low, 1, 3);
    *c = wasm_i64x2_shuffle(ab_high, cd_high, 0, 2);
    *d = wasm_i64x2_shuffle(ab_high, cd_high, 1, 3);
}
static FK__ALWAYS_INLINE void fk__f4_load_packed3(const float *p, fk__f4 *x, fk__f4 *y, fk__f4 *z)
{
    v128_t a = wasm_v128_load(p), b = wasm_v128_load(p + 4), c = wasm_v128_load(p + 8);
    *x = wasm_i32x4_shuffle(wasm_i32x4_shuffle(a, b, 0, 3, 6, 7), c, 0, 1, 2, 5);
    *y = wasm_i32x4_shuffle(wasm_i32x4_shuffle(a, b, 1, 4, 7, 7), c, 0, 1, 2, 6);
    *z = wasm_i32x4_shuffle(wasm_i32x4_shuffle(a, b, 2, 5, 5, 5), c, 0, 1, 4, 7);
}
static FK__ALWAYS_INLINE void fk__f4_store_packed3(float *p, fk__f4 x, fk__f4 y, fk__f4 z)
{
    wasm_v128_store(p, wasm_i32x4_shuffle(wasm_i32x4_shuffle(x, y, 0, 4, 1, 1), z, 0, 1, 4, 2));
    wasm_v128_store(p + 4, wasm_i32x4_shuffle(wasm_i32x4_shuffle(y, z, 1, 5, 2, 2), x, 0, 1, 6, 2));
    wasm_v128_store(p + 8, wasm_i32x4_shuffle(wasm_i32x4_shuffle(z, x, 2, 7, 3, 3), y, 0, 1, 7, 2));
}

#endif

/* ---- Fast paths: operations built on the layer ------------------------------
   Each does lane for lane what the scalar function it names does, in the same
   order of operations, so that the results agree bit for bit wherever the
   compiler does not fuse multiplies and adds differently in the two. */

static FK__ALWAYS_INLINE fk__f4 fk__f4_lane(fk__f4 v, const int lane)
{
    return lane == 0 ? FK__F4_PERMUTE(v, 0, 0, 0, 0) : lane == 1 ? FK__F4_PERMUTE(v, 1, 1, 1, 1)
         : lane == 2 ? FK__F4_PERMUTE(v, 2, 2, 2, 2) : FK__F4_PERMUTE(v, 3, 3, 3, 3);
}

/* fk_vec3_cross(): (a b.yzx - a.yzx b), rotated back from z x y. */
static FK__ALWAYS_INLINE fk__f4 fk__f4_cross(fk__f4 a, fk__f4 b)
{
    fk__f4 c = fk__f4_sub(fk__f4_mul(a, FK__F4_PERMUTE(b, 1, 2, 0, 3)), fk__f4_mul(FK__F4_PERMUTE(a, 1, 2, 0, 3), b));
    return FK__F4_PERMUTE(c, 1, 2, 0, 3);
}

/* The sum of a b's lanes in every lane, in pairs: (0 + 2) + (1 + 3). */
static FK__ALWAYS_INLINE fk__f4 fk__f4_dot_pairs(fk__f4 a, fk__f4 b)
{
    fk__f4 m = fk__f4_mul(a, b);
    m = fk__f4_add(m, FK__F4_PERMUTE(m, 2, 3, 0, 1));
    return fk__f4_add(m, FK__F4_PERMUTE(m, 1, 0, 3, 2));
}

/* fk_quat_dot() in lane 0, in its order: ((0 + 1) + 2) + 3. */
static FK__ALWAYS_INLINE fk__f4 fk__f4_dot_in_lane0(fk__f4 a, fk__f4 b)
{
    fk__f4 m = fk__f4_mul(a, b);
    return fk__f4_add(fk__f4_add(fk__f4_add(m, fk__f4_lane(m, 1)), fk__f4_lane(m, 2)), fk__f4_lane(m, 3));
}
static FK__ALWAYS_INLINE float fk__f4_dot_in_order(fk__f4 a, fk__f4 b) { return fk__f4_first(fk__f4_dot_in_lane0(a, b)); }

/* fk_quat_mul(): (a.w b + a.x b1) + (a.y b2 + a.z b3), with b1, b2, b3
   permutations of b and the products' signs flipped where the formula
   subtracts (x - y and x + (-y) are the same IEEE operation). */
static FK__ALWAYS_INLINE fk__f4 fk__f4_quat_mul(fk__f4 a, fk__f4 b)
{
    fk__f4 sum = fk__f4_mul(fk__f4_lane(a, 3), b);
    fk__f4 x = fk__f4_mul(fk__f4_lane(a, 0), FK__F4_PERMUTE(b, 3, 2, 1, 0));
    fk__f4 y = fk__f4_mul(fk__f4_lane(a, 1), FK__F4_PERMUTE(b, 2, 3, 0, 1));
    fk__f4 z = fk__f4_mul(fk__f4_lane(a, 2), FK__F4_PERMUTE(b, 1, 0, 3, 2));
    sum = fk__f4_add(sum, fk__f4_xor(x, fk__f4_make(0.0f, -0.0f, 0.0f, -0.0f)));
    return fk__f4_add(sum, fk__f4_add(fk__f4_xor(y, fk__f4_make(0.0f, 0.0f, -0.0f, -0.0f)),
                                      fk__f4_xor(z, fk__f4_make(-0.0f, 0.0f, 0.0f, -0.0f))));
}

/* fk_quat_rotate(): s = 2 u x v, then (v + w s) + u x s. */
static FK__ALWAYS_INLINE fk__f4 fk__f4_quat_rotate(fk__f4 q, fk__f4 v)
{
    fk__f4 s = fk__f4_mul(fk__f4_cross(q, v), fk__f4_splat(2.0f));
    return fk__f4_add(fk__f4_add(v, fk__f4_mul(s, fk__f4_lane(q, 3))), fk__f4_cross(q, s));
}


/* DQS flips an influence whose rotation lies in the other hemisphere from the
   heaviest one's. For rigs of up to this many bones the test is made once per
   pair of bones instead of once per influence: hemisphere[a * FK__DQS_TABLE_BONES
   + b] is where in the palette to read bone b when bone a is the heaviest, the
   bone itself or its negation. Same test, same order of operations as the
   reference, so the same decisions. The same table is also kept one bit per
   pair: bit b of flipped[a] says whether bone b is read negated when bone a
   is the heaviest.

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

/* The table, a pair of bones at a time through fk_quat_dot() itself, so that
   it decides as the reference does whether or not the compiler fuses the dot
   product's multiplies and adds. */
static int fk__dqs_hemispheres(const float *palette, size_t stride, int bones, uint16_t *hemisphere,
                               uint64_t *flipped)
{
    int a, b;
    for (a = 0; a < FK__DQS_TABLE_BONES; ++a) flipped[a] = 0; /* rows past the bones are read, never used */
    for (a = 0; a < bones; ++a) {
        const float *qa = palette + (size_t)a * stride;
        const fk_quat pivot = fk_quat_make(qa[0], qa[1], qa[2], qa[3]);
        uint16_t *row = hemisphere + (size_t)a * FK__DQS_TABLE_BONES;
        uint64_t bits = 0;
        for (b = 0; b < bones; ++b) {
            const float *qb = palette + (size_t)b * stride;
            const int flip = fk_quat_dot(pivot, fk_quat_make(qb[0], qb[1], qb[2], qb[3])) < 0.0f;
            row[b] = (uint16_t)((size_t)b * stride + (flip ? FK__DQS_BONE_FLOATS : 0));
            bits |= (uint64_t)flip << b;
        }
        flipped[a] = bits;
    }
    return fk__dqs_one_row_serves(flipped, bones);
}

/* Bones with scale keep the table as bits only, ceil(bones / 64) words a row
   (on the stack for up to FK__DQS_SIGN_BONES bones, two words a row: the
   palette holds 93 with the default capacity; in the caller's scratch memory
   for more): a bone's weight is signed by one bit of its pivot's row instead
   of by a dot product per influence. The test is symmetric (fk_quat_dot(a, b)
   and fk_quat_dot(b, a) round alike), so each pair is tested once. Larger
   rigs whose named bones fold to 128 columns (fk__dqs_rows_fold()) keep rows
   of two words too, bone b's bit at b & 127: the AVX2 tier then finds a
   vertex's four words in one register, as for rigs that fit. */
#define FK__DQS_SIGN_BONES 128
#define FK__DQS_SIGN_WORDS 2

/* Whether no two bones of the list named (fk__skin(); NULL: none) are alike
   modulo 128: then rows of bits folded to 128 columns give each its own. */
static int fk__dqs_rows_fold(const int *named)
{
    uint64_t taken[FK__DQS_SIGN_WORDS] = {0, 0};
    int l;
    if (!named) return 0;
    for (l = 0; l < named[0]; ++l) {
        const unsigned column = (unsigned)named[1 + l] % (64 * FK__DQS_SIGN_WORDS);
        if (taken[column / 64] >> (column % 64) & 1) return 0;
        taken[column / 64] |= (uint64_t)1 << (column % 64);
    }
    return 1;
}

/* named: the bones whose rows and bits are read (fk__skin()), or NULL: all;
   bone b's bit is bit b & column_mask of its row (fk__skin_run::sign_columns). */
static void fk__dqs_sign_bits(const float *palette, size_t stride, int bones, size_t words, unsigned column_mask,
                              const int *named, uint64_t *flipped)
{
    const int n = named ? named[0] : bones;
    int i, l, a, b;
    for (i = 0; i < n; ++i) memset(flipped + (size_t)(named ? named[1 + i] : i) * words, 0, sizeof(uint64_t) * words);
    for (i = 0; i < n; ++i) {
        const float *qa = palette + (size_t)(a = named ? named[1 + i] : i) * stride;
        const fk_quat pivot = fk_quat_make(qa[0], qa[1], qa[2], qa[3]);
        for (l = i + 1; l < n; ++l) {
            const float *qb = palette + (size_t)(b = named ? named[1 + l] : l) * stride;
            if (fk_quat_dot(pivot, fk_quat_make(qb[0], qb[1], qb[2], qb[3])) < 0.0f) {
                const unsigned column_b = (unsigned)b & column_mask, column_a = (unsigned)a & column_mask;
                flipped[(size_t)a * words + column_b / 64] |= (uint64_t)1 << column_b % 64;
                flipped[(size_t)b * words + column_a / 64] |= (uint64_t)1 << column_a % 64;
            }
        }
    }
}


/* ---- Fast paths: blends at a width ------------------------------------------
   A vertex's LBS blend is sum_k w_k M_k over its bones' 16-float palette
   entries (columns c0 c1 c2 t, see fk__lbs_bone()), its DQS blend sum_k w_k D_k
   over their 8-float dual quaternions. At width 4 a blend is four (LBS) or two
   (DQS) registers; at width 8 two or one, and the loads and multiply-adds
   halve. Each width has the same five operations: start a blend with the
   first influence, add one, and read the result out as 4-lane values. */

typedef struct fk__lbs_blend4 { fk__f4 c0, c1, c2, t; } fk__lbs_blend4;
typedef struct fk__dqs_blend4 { fk__f4 real, dual; } fk__dqs_blend4;

static FK__ALWAYS_INLINE fk__lbs_blend4 fk__lbs_start4(const float *bone, float weight)
{
    fk__f4 w = fk__f4_splat(weight);
    fk__lbs_blend4 b;
    b.c0 = fk__f4_mul(w, fk__f4_load(bone));
    b.c1 = fk__f4_mul(w, fk__f4_load(bone + 4));
    b.c2 = fk__f4_mul(w, fk__f4_load(bone + 8));
    b.t = fk__f4_mul(w, fk__f4_load(bone + 12));
    return b;
}

static FK__ALWAYS_INLINE void fk__lbs_add4(fk__lbs_blend4 *b, const float *bone, float weight)
{
    fk__f4 w = fk__f4_splat(weight);
    b->c0 = fk__f4_madd(w, fk__f4_load(bone), b->c0);
    b->c1 = fk__f4_madd(w, fk__f4_load(bone + 4), b->c1);
    b->c2 = fk__f4_madd(w, fk__f4_load(bone + 8), b->c2);
    b->t = fk__f4_madd(w, fk__f4_load(bone + 12), b->t);
}

/* The blended linear part applied to v: c0 x + c1 y + c2 z (lane 3 zero). */
static FK__ALWAYS_INLINE fk__f4 fk__lbs_direction4(fk__lbs_blend4 b, fk__f4 v)
{
    return fk__f4_madd(b.c2, fk__f4_lane(v, 2), fk__f4_madd(b.c1, fk__f4_lane(v, 1), fk__f4_mul(b.c0, fk__f4_lane(v, 0))));
}

static FK__ALWAYS_INLINE fk__f4 fk__lbs_point4(fk__lbs_blend4 b, fk__f4 p)
{
    return fk__f4_add(fk__lbs_direction4(b, p), b.t);
}

/* The blend's columns as two pairs of quads, (c0 c1) and (c2 t), apart floats
   from one to the other, for a group's arrays of pairs (fk__v4_from_pairs()). */
static FK__ALWAYS_INLINE void fk__lbs_pairs4(fk__lbs_blend4 b, float *pair, size_t apart)
{
    fk__f4_store(pair, b.c0); fk__f4_store(pair + 4, b.c1);
    fk__f4_store(pair + apart, b.c2); fk__f4_store(pair + apart + 4, b.t);
}

static FK__ALWAYS_INLINE fk__dqs_blend4 fk__dqs_start4(const float *bone, float weight)
{
    fk__f4 w = fk__f4_splat(weight);
    fk__dqs_blend4 b;
    b.real = fk__f4_mul(w, fk__f4_load(bone));
    b.dual = fk__f4_mul(w, fk__f4_load(bone + 4));
    return b;
}

static FK__ALWAYS_INLINE void fk__dqs_add4(fk__dqs_blend4 *b, const float *bone, float weight)
{
    fk__f4 w = fk__f4_splat(weight);
    b->real = fk__f4_madd(w, fk__f4_load(bone), b->real);
    b->dual = fk__f4_madd(w, fk__f4_load(bone + 4), b->dual);
}

static FK__ALWAYS_INLINE fk__f4 fk__dqs_real4(fk__dqs_blend4 b) { return b.real; }
/* The blend as a pair of quads (real dual), for a group's array of pairs. */
static FK__ALWAYS_INLINE void fk__dqs_pair4(fk__dqs_blend4 b, float *pair)
{
    fk__f4_store(pair, b.real); fk__f4_store(pair + 4, b.dual);
}
static FK__ALWAYS_INLINE fk__f4 fk__dqs_dual4(fk__dqs_blend4 b) { return b.dual; }

#if defined(FK__SIMD_AVX2)
/* Width 8 (AVX2 and FMA): the LBS blend as (c0|c1) and (c2|t), the DQS blend
   as (real|dual), one 32-byte load and one fused multiply-add each. */
#define FK__AVX2_TARGET __attribute__((target("avx2,fma")))

typedef struct fk__lbs_blend8 { __m256 c01, c2t; } fk__lbs_blend8;
typedef __m256 fk__dqs_blend8;

static FK__AVX2_TARGET FK__ALWAYS_INLINE fk__lbs_blend8 fk__lbs_start8(const float *bone, float weight)
{
    __m256 w = _mm256_set1_ps(weight);
    fk__lbs_blend8 b;
    b.c01 = _mm256_mul_ps(w, _mm256_loadu_ps(bone));
    b.c2t = _mm256_mul_ps(w, _mm256_loadu_ps(bone + 8));
    return b;
}

static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__lbs_add8(fk__lbs_blend8 *b, const float *bone, float weight)
{
    __m256 w = _mm256_set1_ps(weight);
    b->c01 = _mm256_fmadd_ps(w, _mm256_loadu_ps(bone), b->c01);
    b->c2t = _mm256_fmadd_ps(w, _mm256_loadu_ps(bone + 8), b->c2t);
}

/* (c0|c1) (x|y) + (c2|t) (z|w), halves added, for v = (x, y, z, w): w is 1
   for a point, 0 for a direction. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE fk__f4 fk__lbs_apply8(fk__lbs_blend8 b, fk__f4 v)
{
    const __m256 wide = _mm256_castps128_ps256(v);
    __m256 xy = _mm256_permutevar8x32_ps(wide, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
    __m256 zw = _mm256_permutevar8x32_ps(wide, _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3));
    __m256 sum = _mm256_fmadd_ps(b.c2t, zw, _mm256_mul_ps(b.c01, xy));
    return _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1));
}

static FK__AVX2_TARGET FK__ALWAYS_INLINE fk__f4 fk__lbs_direction8(fk__lbs_blend8 b, fk__f4 v) { return fk__lbs_apply8(b, v); }
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__lbs_pairs8(fk__lbs_blend8 b, float *pair, size_t apart)
{
    _mm256_storeu_ps(pair, b.c01);
    _mm256_storeu_ps(pair + apart, b.c2t);
}
static FK__AVX2_TARGET FK__ALWAYS_INLINE fk__f4 fk__lbs_point8(fk__lbs_blend8 b, fk__f4 p)
{
    return fk__lbs_apply8(b, _mm_or_ps(p, _mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f))); /* fk__f4_load3() leaves w +0 */
}

static FK__AVX2_TARGET FK__ALWAYS_INLINE fk__dqs_blend8 fk__dqs_start8(const float *bone, float weight)
{
    return _mm256_mul_ps(_mm256_set1_ps(weight), _mm256_loadu_ps(bone));
}

static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__dqs_add8(fk__dqs_blend8 *b, const float *bone, float weight)
{
    *b = _mm256_fmadd_ps(_mm256_set1_ps(weight), _mm256_loadu_ps(bone), *b);
}

static FK__AVX2_TARGET FK__ALWAYS_INLINE fk__f4 fk__dqs_real8(fk__dqs_blend8 b) { return _mm256_castps256_ps128(b); }
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__dqs_pair8(fk__dqs_blend8 b, float *pair) { _mm256_storeu_ps(pair, b); }
static FK__AVX2_TARGET FK__ALWAYS_INLINE fk__f4 fk__dqs_dual8(fk__dqs_blend8 b) { return _mm256_extractf128_ps(b, 1); }

/* Four rows to four columns in each 128-bit half. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__v8_transpose(__m256 *a, __m256 *b, __m256 *c, __m256 *d)
{
    __m256 ab_low = _mm256_unpacklo_ps(*a, *b), ab_high = _mm256_unpackhi_ps(*a, *b);
    __m256 cd_low = _mm256_unpacklo_ps(*c, *d), cd_high = _mm256_unpackhi_ps(*c, *d);
    *a = _mm256_shuffle_ps(ab_low, cd_low, _MM_SHUFFLE(1, 0, 1, 0));
    *b = _mm256_shuffle_ps(ab_low, cd_low, _MM_SHUFFLE(3, 2, 3, 2));
    *c = _mm256_shuffle_ps(ab_high, cd_high, _MM_SHUFFLE(1, 0, 1, 0));
    *d = _mm256_shuffle_ps(ab_high, cd_high, _MM_SHUFFLE(3, 2, 3, 2));
}

/* fk__f4_quat_rotate() of two vectors by two rotations in one pair of
   registers: forward kinematics rotates the parent's pivot and the joint's
   rest position at every joint. Without FMA, to keep the scalar bits. */
#define FK__AVX2_NO_FMA_TARGET __attribute__((target("avx2")))
#define FK__F8_PERMUTE(v, a, b, c, d) _mm256_castsi256_ps(_mm256_shuffle_epi32(_mm256_castps_si256(v), _MM_SHUFFLE(d, c, b, a)))

static FK__AVX2_NO_FMA_TARGET FK__ALWAYS_INLINE __m256 fk__f8_cross(__m256 a, __m256 b)
{
    __m256 c = _mm256_sub_ps(_mm256_mul_ps(a, FK__F8_PERMUTE(b, 1, 2, 0, 3)), _mm256_mul_ps(FK__F8_PERMUTE(a, 1, 2, 0, 3), b));
    return FK__F8_PERMUTE(c, 1, 2, 0, 3);
}

static FK__AVX2_NO_FMA_TARGET FK__ALWAYS_INLINE void fk__rotate_pair8(fk__f4 qa, fk__f4 va, fk__f4 qb, fk__f4 vb,
                                                                      fk__f4 *ra, fk__f4 *rb)
{
    __m256 q = _mm256_set_m128(qb, qa), v = _mm256_set_m128(vb, va);
    __m256 s = _mm256_mul_ps(fk__f8_cross(q, v), _mm256_set1_ps(2.0f));
    __m256 r = _mm256_add_ps(_mm256_add_ps(v, _mm256_mul_ps(s, FK__F8_PERMUTE(q, 3, 3, 3, 3))), fk__f8_cross(q, s));
    *ra = _mm256_castps256_ps128(r);
    *rb = _mm256_extractf128_ps(r, 1);
}
#endif

/* A tier's functions return with the upper halves of the vector registers
   clear, or the caller's SSE code waits on them; gcc clears them by itself
   only when optimizing. */
static FK__ALWAYS_INLINE void fk__leave_simd4(void) {}
#if defined(FK__SIMD_AVX2)
static FK__AVX2_NO_FMA_TARGET FK__ALWAYS_INLINE void fk__leave_avx2(void) { _mm256_zeroupper(); }
#endif

static FK__ALWAYS_INLINE void fk__rotate_pair4(fk__f4 qa, fk__f4 va, fk__f4 qb, fk__f4 vb, fk__f4 *ra, fk__f4 *rb)
{
    *ra = fk__f4_quat_rotate(qa, va);
    *rb = fk__f4_quat_rotate(qb, vb);
}

/* ---- Fast paths: skinning kernels -------------------------------------------
   A run is a stretch of vertices with their layout resolved and their joint
   indices checked (fk__skin_fast()); a kernel skins it front to back. A
   vertex's first four influences are read from joints and weights, the rest
   from joints2 and weights2: glTF's second stream where it is, or the first
   lists continued, so that neither is copied to put them side by side. */

typedef struct fk__skin_run {
    const char *positions, *normals, *joints, *weights;
    const char *joints2, *weights2; /* influences 5 on */
    char *out_positions, *out_normals;
    size_t position_stride, normal_stride, joint_stride, weight_stride;
    size_t joint2_stride, weight2_stride;
    size_t out_position_stride, out_normal_stride;
    int count, influences;
    unsigned joint_limit;           /* the largest valid joint index */
    const float *palette;           /* fk__lbs_bone() or fk__dqs_palette_bone() of every bone */
    const uint16_t *hemisphere;     /* DQS: fk__dqs_hemispheres() table, or NULL */
    const uint64_t *flipped;        /* DQS of bones with scale: fk__dqs_sign_bits(), sign_words a row */
    size_t sign_words;
    unsigned sign_columns;          /* a joint's bit in its row: bit joint & sign_columns */
    const float *signed_bones;      /* DQS, when one row of that table serves every pivot: each
                                       bone as that row signs it, FK__DQS_BONE_FLOATS apart; else NULL */
    int cofactor_normals;           /* LBS of affine bones: normals by fk__cofactor_normal() */
    const fk_skin_desc *desc;       /* the call, and where the run begins in it: a vertex the fast */
    const fk__skin_layout *layout;  /* arithmetic cannot take goes to the reference loop */
    int begin;
} fk__skin_run;

/* Moves a run's arrays on by count vertices. */
static FK__ALWAYS_INLINE void fk__skin_run_advance(fk__skin_run *r, int count)
{
    const size_t i = (size_t)count;
    r->begin += count;
    r->positions += i * r->position_stride;
    r->joints += i * r->joint_stride;
    r->weights += i * r->weight_stride;
    r->joints2 += i * r->joint2_stride;
    r->weights2 += i * r->weight2_stride;
    r->out_positions += i * r->out_position_stride;
    if (r->normals) {
        r->normals += i * r->normal_stride;
        r->out_normals += i * r->out_normal_stride;
    }
}

/* The run from its vertex `first` on. */
static FK__ALWAYS_INLINE fk__skin_run fk__skin_run_from(const fk__skin_run *run, int first)
{
    fk__skin_run r = *run;
    fk__skin_run_advance(&r, first);
    r.count -= first;
    return r;
}

/* A vertex's influences in its first lists (joints, weights): the rest are
   in the second (joints2, weights2). Loops over the two apart, not one loop
   that picks a list per influence, stay as small as one loop over one list;
   CoR's one loop, whose body blends twice and signs a weight, picks instead. */
static FK__ALWAYS_INLINE int fk__in_first(const int influences) { return influences < 4 ? influences : 4; }

/* The heaviest influence, as fk__heaviest() picks it, without branches on the
   weights (data: a mispredicted branch costs more than the search). With two
   influences the first: the pivot of a pair only decides the blend's sign,
   and a dual quaternion and its negation move a vertex to the same bits. */
static FK__ALWAYS_INLINE int fk__heaviest4(const float *weights)
{
    fk__f4 w = fk__f4_load(weights), m = fk__f4_max(w, FK__F4_PERMUTE(w, 1, 0, 3, 2));
    m = fk__f4_max(m, FK__F4_PERMUTE(m, 2, 3, 0, 1));
    return "\0\0\1\0\2\0\1\0\3\0\1\0\2\0\1\0"[fk__f4_equal_lanes(w, m)]; /* the lowest lane set */
}

/* Influence e, of weight w, becomes the heaviest if heavier than the heaviest so far. */
static FK__ALWAYS_INLINE void fk__heavier(int *heaviest, float *top, int e, float w)
{
    const int more = w > *top;
    *heaviest ^= (*heaviest ^ e) & -more;
    *top = more ? w : *top;
}

static FK__ALWAYS_INLINE int fk__dqs_pivot(const float *weights, const float *weights2, const int influences)
{
    int e, heaviest = 0, high;
    float top = weights[0];
    if (influences <= 2) return 0;
    if (influences == 4) return fk__heaviest4(weights);
    if (influences == 8) {
        heaviest = fk__heaviest4(weights);
        high = fk__heaviest4(weights2);
        return heaviest ^ ((heaviest ^ (4 + high)) & -(weights2[high] > weights[heaviest]));
    }
    for (e = 1; e < fk__in_first(influences); ++e) fk__heavier(&heaviest, &top, e, weights[e]);
    for (e = 4; e < influences; ++e) fk__heavier(&heaviest, &top, e, weights2[e - 4]);
    return heaviest;
}

/* Where DQS reads a vertex's bones from: pre-signed (one row of the sign
   table serves every pivot, or one influence), the sign table's row of the
   vertex's pivot, or the palette signed by the reference's own test, the dot
   product with the pivot's rotation; bones with scale sign their weights by
   the bits of the pivot's row. */
enum { FK__DQS_PRESIGNED, FK__DQS_BY_TABLE, FK__DQS_BY_DOT_PRODUCTS, FK__DQS_BY_BITS };

/* Where the vertex's pivot is: its row in the sign table or bits, or its bone
   in the palette for the dot products. */
static FK__ALWAYS_INLINE size_t fk__dqs_pivot_at(const fk__skin_run *r, size_t vertex, const int influences,
                                                 const int source, const size_t stride)
{
    const float *weights = (const float *)(const void *)(r->weights + vertex * r->weight_stride);
    const float *weights2 = (const float *)(const void *)(r->weights2 + vertex * r->weight2_stride);
    size_t pivot;
    int e;
    if (source == FK__DQS_PRESIGNED) return 0;
    e = fk__dqs_pivot(weights, weights2, influences);
    if (influences <= 4 || e < 4) /* influences is known where a kernel for four is compiled */
        pivot = ((const uint16_t *)(const void *)(r->joints + vertex * r->joint_stride))[e];
    else
        pivot = ((const uint16_t *)(const void *)(r->joints2 + vertex * r->joint2_stride))[e - 4];
    if (source == FK__DQS_BY_BITS) return pivot * stride; /* stride: the words of a row */
    return pivot * (source == FK__DQS_BY_TABLE ? FK__DQS_TABLE_BONES : stride);
}

/* The pivots of count vertices from vertex first on, for any influence count:
   out of line, one copy for every tier, called once for a group of vertices. */
static FK__NOINLINE void fk__dqs_pivots(const fk__skin_run *r, size_t first, int count, int source, size_t stride,
                                        size_t *pivots)
{
    int v;
    if (r->influences == 4) /* glTF's count, its heaviest found without a loop */
        for (v = 0; v < count; ++v) pivots[v] = fk__dqs_pivot_at(r, first + (size_t)v, 4, source, stride);
    else
        for (v = 0; v < count; ++v) pivots[v] = fk__dqs_pivot_at(r, first + (size_t)v, r->influences, source, stride);
}

static FK__ALWAYS_INLINE const float *fk__dqs_bone_for(const fk__skin_run *r, size_t pivot_at, fk__f4 pivot,
                                                       int joint, const int source, const size_t stride)
{
    const float *bone = r->palette + (size_t)joint * stride;
    if (source == FK__DQS_PRESIGNED) return r->signed_bones + (size_t)joint * FK__DQS_BONE_FLOATS;
    if (source == FK__DQS_BY_TABLE) return r->palette + r->hemisphere[pivot_at + (size_t)joint];
    return bone + FK__DQS_BONE_FLOATS * (fk__f4_dot_in_order(pivot, fk__f4_load(bone)) < 0.0f);
}

/* A vertex's four weights, each negated where its bone's rotation lies in
   the other hemisphere from the pivot's, by fk_quat_dot() in its order: the
   four products with the pivot, transposed, are summed ((x + y) + z) + w a
   bone to a lane. The bones are then read as they are, not their negated
   copies: -w D and w (-D) are the same bits. */
static FK__ALWAYS_INLINE void fk__dqs_four_dot_signed(const float *palette, size_t stride, fk__f4 pivot,
                                                      const uint16_t *joints, const float *weights, float *out)
{
    fk__f4 x = fk__f4_mul(pivot, fk__f4_load(palette + (size_t)joints[0] * stride));
    fk__f4 y = fk__f4_mul(pivot, fk__f4_load(palette + (size_t)joints[1] * stride));
    fk__f4 z = fk__f4_mul(pivot, fk__f4_load(palette + (size_t)joints[2] * stride));
    fk__f4 w = fk__f4_mul(pivot, fk__f4_load(palette + (size_t)joints[3] * stride));
    fk__f4_transpose(&x, &y, &z, &w);
    fk__f4_store(out, fk__f4_negate_where_less(fk__f4_load(weights), fk__f4_add(fk__f4_add(fk__f4_add(x, y), z), w),
                                               fk__f4_zero()));
}

/* A bone's weight, negated when the pivot's row of bits flips the bone
   (column: its index, & fk__skin_run::sign_columns where rows fold). */
static FK__ALWAYS_INLINE float fk__dqs_signed_weight(const uint64_t *row, unsigned column, float weight)
{
    uint32_t bits;
    memcpy(&bits, &weight, sizeof bits);
    bits ^= (uint32_t)(row[column / 64] >> (column % 64) & 1) << 31;
    memcpy(&weight, &bits, sizeof bits);
    return weight;
}

/* Centres of rotation: a bone's weight in every lane, negated when its
   rotation lies in the other hemisphere from the pivot's, by fk_quat_dot() as
   fk__cor_reference_from() tests it, without a branch on data. */
static FK__ALWAYS_INLINE fk__f4 fk__cor_signed_weight(fk__f4 pivot, fk__f4 rotation, float weight)
{
    return fk__f4_negate_where_less(fk__f4_splat(weight), fk__f4_lane(fk__f4_dot_in_lane0(pivot, rotation), 0),
                                    fk__f4_zero());
}

/* A vertex's four weights signed at once, as fk__dqs_signed_weight() signs
   each, where the tier can; returns whether it did. AVX2 gives each lane its
   bone's 32-bit word of the pivot's row (bit j is bit j % 32 of word j / 32),
   from a register for rows of two 64-bit words or loaded one by one from
   longer ones (fk__row_words()), and shifts that bit to the sign. The
   register's permute reads bits 5 and 6 of the index alone, so it finds bit
   j & 127 as folded rows keep it (fk__dqs_sign_bits()). SSE2 and SIMD128
   have no per-lane shifts, so the 4-lane tier signs a weight at a time. */
static FK__ALWAYS_INLINE int fk__dqs_four_signed_weights4(const uint64_t *row, size_t words, const uint16_t *joints,
                                                          const float *weights, float *out)
{
    (void)row; (void)words; (void)joints; (void)weights; (void)out;
    return 0;
}
#if defined(FK__SIMD_AVX2)
/* The 32-bit words of a row that hold four joints' bits: four loads, which
   some processors run faster than a gather of four. */
static FK__AVX2_TARGET FK__ALWAYS_INLINE __m128 fk__row_words(const uint64_t *row, const uint16_t *joints)
{
    const char *bytes = (const char *)(const void *)row;
    int w[4], e;
    for (e = 0; e < 4; ++e) memcpy(w + e, bytes + 4 * (size_t)(joints[e] >> 5), sizeof w[e]);
    return _mm_castsi128_ps(_mm_setr_epi32(w[0], w[1], w[2], w[3]));
}

static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__dqs_four_signed_weights8(const uint64_t *row, size_t words,
                                                                          const uint16_t *joints, const float *weights,
                                                                          float *out)
{
    const __m128i joint = _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)(const void *)joints));
    const __m128 lane_words = words <= 2 ? _mm_permutevar_ps(_mm_loadu_ps((const float *)(const void *)row),
                                                             _mm_srli_epi32(joint, 5))
                                         : fk__row_words(row, joints);
    const __m128i bits = _mm_sllv_epi32(_mm_castps_si128(lane_words), _mm_andnot_si128(joint, _mm_set1_epi32(31)));
    _mm_storeu_ps(out, _mm_xor_ps(_mm_loadu_ps(weights), _mm_and_ps(_mm_castsi128_ps(bits), _mm_set1_ps(-0.0f))));
    return 1;
}
#endif

/* One vertex of DQS done by the reference's fk__dqs_finish(), from its blend. */
static void fk__dqs_vertex_reference(const float *real, const float *dual, const void *position, const void *normal,
                                     void *out, void *out_normal)
{
    fk_vec3 p = fk__load3((const float *)position), n = normal ? fk__load3((const float *)normal) : p;
    fk__dqs_finish(fk_quat_make(real[0], real[1], real[2], real[3]), fk_quat_make(dual[0], dual[1], dual[2], dual[3]),
                   &p, &n);
    fk__store3((float *)out, p);
    if (normal) fk__store3((float *)out_normal, n);
}

/* ---- Fast paths: groups of vertices, a vertex to a lane ---------------------
   What follows a vertex's blend (renormalizing an LBS normal; moving a point
   and a normal by a DQS blend) is a long chain of dependent operations. Done
   one vertex at a time in 4-lane registers it is mostly shuffles, and the
   chains of a few vertices fill the processor's schedulers; so the kernels
   blend a group of vertices one at a time, then finish the group with a
   vertex to each lane (fk__vN: N = 4 with the layer above, 8 with AVX2). A
   lane's arithmetic does not depend on the others: a short last group is
   padded with copies of its last vertex and stores only its own, and a lane
   whose numbers the fast arithmetic cannot take goes to the reference's own
   code. Blends wait for their group as pairs of quads, 32 bytes a vertex. */

typedef fk__f4 fk__v4;
#define FK__LANES4 4
static FK__ALWAYS_INLINE fk__v4 fk__v4_splat(float s) { return fk__f4_splat(s); }
static FK__ALWAYS_INLINE fk__v4 fk__v4_add(fk__v4 a, fk__v4 b) { return fk__f4_add(a, b); }
static FK__ALWAYS_INLINE fk__v4 fk__v4_sub(fk__v4 a, fk__v4 b) { return fk__f4_sub(a, b); }
static FK__ALWAYS_INLINE fk__v4 fk__v4_mul(fk__v4 a, fk__v4 b) { return fk__f4_mul(a, b); }
static FK__ALWAYS_INLINE fk__v4 fk__v4_madd(fk__v4 a, fk__v4 b, fk__v4 c) { return fk__f4_madd(a, b, c); }
static FK__ALWAYS_INLINE fk__v4 fk__v4_div(fk__v4 a, fk__v4 b) { return fk__f4_div(a, b); }
static FK__ALWAYS_INLINE fk__v4 fk__v4_rsqrt(fk__v4 a) { return fk__f4_rsqrt(a); }
static FK__ALWAYS_INLINE fk__v4 fk__v4_abs(fk__v4 v) { return fk__f4_max(v, fk__f4_sub(fk__f4_zero(), v)); }
static FK__ALWAYS_INLINE fk__v4 fk__v4_negate_where_less(fk__v4 v, fk__v4 a, fk__v4 b)
{
    return fk__f4_negate_where_less(v, a, b);
}
static FK__ALWAYS_INLINE int fk__v4_nonzero_lanes(fk__v4 v) { return fk__f4_nonzero_lanes(v); }
static FK__ALWAYS_INLINE int fk__v4_outside_lanes(fk__v4 v, float low, float high)
{
    return fk__f4_outside_lanes(v, fk__f4_splat(low), fk__f4_splat(high));
}
/* A group's pairs of quads (a b), 8 floats a lane, as the x, y, z, w of a
   and of b across the lanes. */
static FK__ALWAYS_INLINE void fk__v4_from_pairs(const float *pairs, fk__v4 *ax, fk__v4 *ay, fk__v4 *az, fk__v4 *aw,
                                                fk__v4 *bx, fk__v4 *by, fk__v4 *bz, fk__v4 *bw)
{
    *ax = fk__f4_load(pairs); *ay = fk__f4_load(pairs + 8); *az = fk__f4_load(pairs + 16); *aw = fk__f4_load(pairs + 24);
    *bx = fk__f4_load(pairs + 4); *by = fk__f4_load(pairs + 12); *bz = fk__f4_load(pairs + 20);
    *bw = fk__f4_load(pairs + 28);
    fk__f4_transpose(ax, ay, az, aw);
    fk__f4_transpose(bx, by, bz, bw);
}
/* A group's points, stride apart, as x, y, z across the lanes; packed points
   (a 12-byte stride) move as whole registers, without a transpose. */
static FK__ALWAYS_INLINE void fk__v4_load_points(const char *p, size_t stride, fk__v4 *x, fk__v4 *y, fk__v4 *z)
{
    fk__v4 w;
    if (stride == 12) {
        fk__f4_load_packed3((const float *)(const void *)p, x, y, z);
        return;
    }
    *x = fk__f4_load3(p); *y = fk__f4_load3(p + stride); *z = fk__f4_load3(p + 2 * stride);
    w = fk__f4_load3(p + 3 * stride);
    fk__f4_transpose(x, y, z, &w);
}
static FK__ALWAYS_INLINE void fk__v4_store_points(char *p, size_t stride, fk__v4 x, fk__v4 y, fk__v4 z)
{
    fk__v4 w = z;
    if (stride == 12) {
        fk__f4_store_packed3((float *)(void *)p, x, y, z);
        return;
    }
    fk__f4_transpose(&x, &y, &z, &w);
    fk__f4_store3(p, x); fk__f4_store3(p + stride, y); fk__f4_store3(p + 2 * stride, z);
    fk__f4_store3(p + 3 * stride, w);
}

#if defined(FK__SIMD_AVX2)
typedef __m256 fk__v8;
#define FK__LANES8 8
static FK__AVX2_TARGET FK__ALWAYS_INLINE fk__v8 fk__v8_splat(float s) { return _mm256_set1_ps(s); }
static FK__AVX2_TARGET FK__ALWAYS_INLINE fk__v8 fk__v8_add(fk__v8 a, fk__v8 b) { return _mm256_add_ps(a, b); }
static FK__AVX2_TARGET FK__ALWAYS_INLINE fk__v8 fk__v8_sub(fk__v8 a, fk__v8 b) { return _mm256_sub_ps(a, b); }
static FK__AVX2_TARGET FK__ALWAYS_INLINE fk__v8 fk__v8_mul(fk__v8 a, fk__v8 b) { return _mm256_mul_ps(a, b); }
static FK__AVX2_TARGET FK__ALWAYS_INLINE fk__v8 fk__v8_madd(fk__v8 a, fk__v8 b, fk__v8 c) { return _mm256_fmadd_ps(a, b, c); }
static FK__AVX2_TARGET FK__ALWAYS_INLINE fk__v8 fk__v8_div(fk__v8 a, fk__v8 b) { return _mm256_div_ps(a, b); }
static FK__AVX2_TARGET FK__ALWAYS_INLINE fk__v8 fk__v8_rsqrt(fk__v8 x) /* as fk__f4_rsqrt() */
{
    __m256 y = _mm256_rsqrt_ps(x);
    return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), y),
                         _mm256_fnmadd_ps(_mm256_mul_ps(y, y), x, _mm256_set1_ps(3.0f)));
}
static FK__AVX2_TARGET FK__ALWAYS_INLINE fk__v8 fk__v8_abs(fk__v8 v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }
static FK__AVX2_TARGET FK__ALWAYS_INLINE fk__v8 fk__v8_negate_where_less(fk__v8 v, fk__v8 a, fk__v8 b)
{
    return _mm256_xor_ps(v, _mm256_and_ps(_mm256_cmp_ps(a, b, _CMP_LT_OQ), _mm256_set1_ps(-0.0f)));
}
static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__v8_nonzero_lanes(fk__v8 v)
{
    return _mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_NEQ_UQ));
}
static FK__AVX2_TARGET FK__ALWAYS_INLINE int fk__v8_outside_lanes(fk__v8 v, float low, float high)
{
    return _mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(v, _mm256_set1_ps(low), _CMP_NGE_UQ),
                                           _mm256_cmp_ps(v, _mm256_set1_ps(high), _CMP_NLE_UQ)));
}
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__v8_pair_rows(const float *pairs, int j, __m256 *a, __m256 *b)
{
    const __m256 low = _mm256_loadu_ps(pairs + 8 * j), high = _mm256_loadu_ps(pairs + 8 * (j + 4));
    *a = _mm256_permute2f128_ps(low, high, 0x20);
    *b = _mm256_permute2f128_ps(low, high, 0x31);
}
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__v8_from_pairs(const float *pairs, fk__v8 *ax, fk__v8 *ay,
                                                                fk__v8 *az, fk__v8 *aw, fk__v8 *bx, fk__v8 *by,
                                                                fk__v8 *bz, fk__v8 *bw)
{
    fk__v8_pair_rows(pairs, 0, ax, bx); fk__v8_pair_rows(pairs, 1, ay, by); /* rows of lanes j and j + 4 */
    fk__v8_pair_rows(pairs, 2, az, bz); fk__v8_pair_rows(pairs, 3, aw, bw);
    fk__v8_transpose(ax, ay, az, aw);
    fk__v8_transpose(bx, by, bz, bw);
}
static FK__AVX2_TARGET FK__ALWAYS_INLINE __m256 fk__v8_point_pair(const char *p, size_t stride, int lane)
{
    return _mm256_set_m128(fk__f4_load3(p + (size_t)(lane + 4) * stride), fk__f4_load3(p + (size_t)lane * stride));
}
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__v8_load_points(const char *p, size_t stride, fk__v8 *x, fk__v8 *y,
                                                                 fk__v8 *z)
{
    fk__v8 w;
    if (stride == 12) { /* points 0-3 in the low halves, 4-7 in the high, as fk__f4_load_packed3() */
        const float *f = (const float *)(const void *)p;
        __m256 a = _mm256_loadu2_m128(f + 12, f), b = _mm256_loadu2_m128(f + 16, f + 4);
        __m256 c = _mm256_loadu2_m128(f + 20, f + 8);
        __m256 middle = _mm256_shuffle_ps(b, c, _MM_SHUFFLE(1, 0, 3, 2));
        __m256 yz_low = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 2, 1));
        __m256 yz_high = _mm256_shuffle_ps(middle, c, _MM_SHUFFLE(3, 2, 2, 1));
        *x = _mm256_shuffle_ps(a, middle, _MM_SHUFFLE(3, 0, 3, 0));
        *y = _mm256_shuffle_ps(yz_low, yz_high, _MM_SHUFFLE(2, 0, 2, 0));
        *z = _mm256_shuffle_ps(yz_low, yz_high, _MM_SHUFFLE(3, 1, 3, 1));
        return;
    }
    w = fk__v8_point_pair(p, stride, 3);
    *x = fk__v8_point_pair(p, stride, 0); *y = fk__v8_point_pair(p, stride, 1); *z = fk__v8_point_pair(p, stride, 2);
    fk__v8_transpose(x, y, z, &w);
}
static FK__AVX2_TARGET FK__ALWAYS_INLINE void fk__v8_store_points(char *p, size_t stride, fk__v8 x, fk__v8 y, fk__v8 z)
{
    fk__v8 w = z, lanes[4];
    int lane;
    if (stride == 12) {
        float *f = (float *)(void *)p;
        __m256 xy_low = _mm256_unpacklo_ps(x, y), xy_high = _mm256_unpackhi_ps(x, y);
        __m256 a = _mm256_shuffle_ps(xy_low, _mm256_unpacklo_ps(z, x), _MM_SHUFFLE(3, 0, 1, 0));
        __m256 b = _mm256_shuffle_ps(_mm256_unpacklo_ps(y, z), xy_high, _MM_SHUFFLE(1, 0, 3, 2));
        __m256 c = _mm256_shuffle_ps(_mm256_unpackhi_ps(z, x), _mm256_unpackhi_ps(y, z), _MM_SHUFFLE(3, 2, 3, 0));
        _mm256_storeu_ps(f, _mm256_permute2f128_ps(a, b, 0x20));
        _mm256_storeu_ps(f + 8, _mm256_permute2f128_ps(c, a, 0x30));
        _mm256_storeu_ps(f + 16, _mm256_permute2f128_ps(b, c, 0x31));
        return;
    }
    fk__v8_transpose(&x, &y, &z, &w);
    lanes[0] = x; lanes[1] = y; lanes[2] = z; lanes[3] = w;
    for (lane = 0; lane < 4; ++lane) {
        fk__f4_store3(p + (size_t)lane * stride, _mm256_castps256_ps128(lanes[lane]));
        fk__f4_store3(p + (size_t)(lane + 4) * stride, _mm256_extractf128_ps(lanes[lane], 1));
    }
}
#endif

/* A short group's points copied, padded with copies of its last, into a
   12-byte-stride array of a full group's. */
static FK__NOINLINE void fk__group_points_padded(float *padded, const char *p, size_t stride, int count, int lanes)
{
    int lane;
    for (lane = 0; lane < lanes; ++lane) memcpy(padded + 3 * lane, p + (size_t)(lane < count ? lane : count - 1) * stride, 12);
}

/* Pads `arrays` arrays of a group's entries of `floats` floats each, one
   after the other, past count with copies of their last. */
static FK__NOINLINE void fk__group_pad(float *entries, int count, int lanes, int floats, int arrays)
{
    int lane, array;
    for (array = 0; array < arrays; ++array)
        for (lane = count; lane < lanes; ++lane)
            memcpy(entries + floats * (array * lanes + lane), entries + floats * (array * lanes + count - 1),
                   (size_t)floats * sizeof(float));
}

/* A short group's first count points, from a 12-byte-stride array, to their places. */
static FK__NOINLINE void fk__group_points_out(char *p, size_t stride, const float *padded, int count)
{
    int lane;
    for (lane = 0; lane < count; ++lane) memcpy(p + (size_t)lane * stride, padded + 3 * lane, 12);
}

/* A cross product a vertex to a lane, in fk_vec3_cross()'s order. */
#define FK__GROUP_CROSS(w) \
    static FK__TARGET##w FK__ALWAYS_INLINE void fk__cross##w(fk__v##w ax, fk__v##w ay, fk__v##w az, fk__v##w bx, \
                                                             fk__v##w by, fk__v##w bz, fk__v##w *cx, fk__v##w *cy, \
                                                             fk__v##w *cz) \
    { \
        *cx = fk__v##w##_sub(fk__v##w##_mul(ay, bz), fk__v##w##_mul(az, by)); \
        *cy = fk__v##w##_sub(fk__v##w##_mul(az, bx), fk__v##w##_mul(ax, bz)); \
        *cz = fk__v##w##_sub(fk__v##w##_mul(ax, by), fk__v##w##_mul(ay, bx)); \
    }

/* A lane's moved normal as fk__lbs_reference() computes it for affine bones,
   from the group's blended columns (pairs (c0 c1) and (c2 _), see
   fk__lbs_pairs4()) and the lane's rest normal. */
static fk_vec3 fk__group_cofactor_normal(const float *pairs, const float *normal, int lane, int lanes)
{
    float blend[FK__LBS_BONE_FLOATS] = {0.0f};
    const size_t at = 8 * (size_t)lane;
    memcpy(blend, pairs + at, 32);
    memcpy(blend + 8, pairs + 8 * (size_t)lanes + at, 16);
    return fk__cofactor_normal(blend, fk__load3(normal));
}

/* The careful lanes' normals (fk__store_unit_normals##w()), by
   fk_vec3_normalize() of the reference's moved normal: rigid bones' as moved
   (padded), affine bones' from the columns and the rest normals. */
static FK__NOINLINE void fk__group_careful_normals(float *normals, const float *padded, const float *columns,
                                                   const char *rest, size_t rest_stride, int careful, int lanes)
{
    int lane;
    for (lane = 0; careful; ++lane, careful >>= 1)
        if (careful & 1)
            fk__store3(normals + 3 * lane,
                       fk_vec3_normalize(columns ? fk__group_cofactor_normal(columns, (const float *)(const void *)(rest +
                                                                             (size_t)lane * rest_stride), lane, lanes)
                                                 : fk__load3(padded + 3 * lane)));
}

/* A group's normals, a vertex to a lane. Rigid bones move a normal by the
   blend's columns a, b, c; affine bones by their cofactors, signed by the
   determinant (fk__cofactor_normal()). Each moved normal is then divided by
   its length, or, for lengths the estimate cannot take (zero, subnormal,
   overflowing, NaN), done by fk_vec3_normalize() from the reference's own
   moved normal, before anything of the group is written: the output may be
   the input. */
#define FK__LBS_NORMALS(w) \
    static FK__TARGET##w FK__ALWAYS_INLINE void fk__cofactor_normal##w(fk__v##w ax, fk__v##w ay, fk__v##w az, \
                                                                       fk__v##w bx, fk__v##w by, fk__v##w bz, \
                                                                       fk__v##w cx, fk__v##w cy, fk__v##w cz, \
                                                                       fk__v##w *x, fk__v##w *y, fk__v##w *z) \
    { \
        fk__v##w bcx, bcy, bcz, cax, cay, caz, abx, aby, abz, mx, my, mz, determinant, flat; \
        fk__cross##w(bx, by, bz, cx, cy, cz, &bcx, &bcy, &bcz); \
        fk__cross##w(cx, cy, cz, ax, ay, az, &cax, &cay, &caz); \
        fk__cross##w(ax, ay, az, bx, by, bz, &abx, &aby, &abz); \
        mx = fk__v##w##_add(fk__v##w##_add(fk__v##w##_mul(bcx, *x), fk__v##w##_mul(cax, *y)), fk__v##w##_mul(abx, *z)); \
        my = fk__v##w##_add(fk__v##w##_add(fk__v##w##_mul(bcy, *x), fk__v##w##_mul(cay, *y)), fk__v##w##_mul(aby, *z)); \
        mz = fk__v##w##_add(fk__v##w##_add(fk__v##w##_mul(bcz, *x), fk__v##w##_mul(caz, *y)), fk__v##w##_mul(abz, *z)); \
        /* fk__mirrors(): det < -FK__FLAT_VOLUME (|a|_1 |b|_1 |c|_1) */ \
        determinant = fk__v##w##_add(fk__v##w##_add(fk__v##w##_mul(ax, bcx), fk__v##w##_mul(ay, bcy)), \
                                     fk__v##w##_mul(az, bcz)); \
        flat = fk__v##w##_mul(fk__v##w##_mul(fk__v##w##_add(fk__v##w##_add(fk__v##w##_abs(ax), fk__v##w##_abs(ay)), \
                                                            fk__v##w##_abs(az)), \
                                             fk__v##w##_add(fk__v##w##_add(fk__v##w##_abs(bx), fk__v##w##_abs(by)), \
                                                            fk__v##w##_abs(bz))), \
                              fk__v##w##_add(fk__v##w##_add(fk__v##w##_abs(cx), fk__v##w##_abs(cy)), fk__v##w##_abs(cz))); \
        flat = fk__v##w##_mul(fk__v##w##_splat(-FK__FLAT_VOLUME), flat); \
        *x = fk__v##w##_negate_where_less(mx, determinant, flat); \
        *y = fk__v##w##_negate_where_less(my, determinant, flat); \
        *z = fk__v##w##_negate_where_less(mz, determinant, flat); \
    } \
    \
    /* columns: NULL for rigid bones; rest: the rest normals, rest_stride apart */ \
    static FK__TARGET##w FK__ALWAYS_INLINE void fk__store_unit_normals##w(fk__v##w x, fk__v##w y, fk__v##w z, \
                                                                          const float *columns, const char *rest, \
                                                                          size_t rest_stride, char *out, size_t stride, \
                                                                          int count) \
    { \
        float padded[3 * FK__LANES##w], careful_normals[3 * FK__LANES##w]; \
        const int full = count == FK__LANES##w; \
        fk__v##w scale = fk__v##w##_madd(z, z, fk__v##w##_madd(y, y, fk__v##w##_mul(x, x))); \
        int lane, careful = fk__v##w##_outside_lanes(scale, FLT_MIN, FLT_MAX) & ((1 << count) - 1); \
        if (careful) { \
            fk__v##w##_store_points((char *)padded, 12, x, y, z); \
            fk__group_careful_normals(careful_normals, padded, columns, rest, rest_stride, careful, FK__LANES##w); \
        } \
        scale = fk__v##w##_rsqrt(scale); \
        x = fk__v##w##_mul(x, scale); y = fk__v##w##_mul(y, scale); z = fk__v##w##_mul(z, scale); \
        fk__v##w##_store_points(full ? out : (char *)padded, full ? stride : 12, x, y, z); \
        if (!full) fk__group_points_out(out, stride, padded, count); \
        for (lane = 0; careful; ++lane, careful >>= 1) \
            if (careful & 1) memcpy(out + (size_t)lane * stride, careful_normals + 3 * lane, 12); \
    } \
    \
    /* DQS of bones with scale: a group's normals moved by the cofactors of its \
       blended scale parts from its rest normals, as pairs (c0 c1) and (c2 n). */ \
    static FK__TARGET##w FK__NOINLINE void fk__lbs_cofactor_normals##w(float *pairs, char *out, size_t stride, \
                                                                       int count) \
    { \
        const size_t apart = 8 * FK__LANES##w; \
        fk__v##w ax, ay, az, aw, bx, by, bz, bw, cx, cy, cz, cw, nx, ny, nz, nw; \
        if (count < FK__LANES##w) fk__group_pad(pairs, count, FK__LANES##w, 8, 2); \
        fk__v##w##_from_pairs(pairs, &ax, &ay, &az, &aw, &bx, &by, &bz, &bw); \
        fk__v##w##_from_pairs(pairs + apart, &cx, &cy, &cz, &cw, &nx, &ny, &nz, &nw); \
        (void)aw; (void)bw; (void)cw; (void)nw; \
        fk__cofactor_normal##w(ax, ay, az, bx, by, bz, cx, cy, cz, &nx, &ny, &nz); \
        fk__store_unit_normals##w(nx, ny, nz, pairs, (const char *)(pairs + apart + 4), 32, out, stride, count); \
    } \
    \
    /* LBS with normals, a group's points and normals from its blends' columns \
       a, b, c and t (pairs (a b) and (c t), fk__lbs_pairs4()). The points are \
       stored before the normals are read: fewer registers live. */ \
    static FK__TARGET##w FK__NOINLINE void fk__lbs_group##w(float *columns, const fk__skin_run *r, int first, \
                                                            int count) \
    { \
        float padded_points[3 * FK__LANES##w], padded_normals[3 * FK__LANES##w]; \
        const size_t apart = 8 * FK__LANES##w, at = (size_t)first; \
        const int full = count == FK__LANES##w; \
        const char *positions = r->positions + at * r->position_stride, *normals = r->normals + at * r->normal_stride; \
        char *out_positions = r->out_positions + at * r->out_position_stride; \
        const size_t normal_stride = full ? r->normal_stride : 12; \
        fk__v##w ax, ay, az, aw, bx, by, bz, bw, cx, cy, cz, cw, tx, ty, tz, tw, x, y, z; \
        if (!full) { \
            fk__group_pad(columns, count, FK__LANES##w, 8, 2); \
            fk__group_points_padded(padded_points, positions, r->position_stride, count, FK__LANES##w); \
            fk__group_points_padded(padded_normals, normals, r->normal_stride, count, FK__LANES##w); \
            positions = (const char *)padded_points; \
            normals = (const char *)padded_normals; \
        } \
        fk__v##w##_from_pairs(columns, &ax, &ay, &az, &aw, &bx, &by, &bz, &bw); \
        fk__v##w##_from_pairs(columns + apart, &cx, &cy, &cz, &cw, &tx, &ty, &tz, &tw); \
        (void)aw; (void)bw; (void)cw; (void)tw; \
        fk__v##w##_load_points(positions, full ? r->position_stride : 12, &x, &y, &z); \
        /* the point a x + b y + c z + t, as fk__lbs_point4() sums it */ \
        tx = fk__v##w##_add(fk__v##w##_madd(cx, z, fk__v##w##_madd(bx, y, fk__v##w##_mul(ax, x))), tx); \
        ty = fk__v##w##_add(fk__v##w##_madd(cy, z, fk__v##w##_madd(by, y, fk__v##w##_mul(ay, x))), ty); \
        tz = fk__v##w##_add(fk__v##w##_madd(cz, z, fk__v##w##_madd(bz, y, fk__v##w##_mul(az, x))), tz); \
        fk__v##w##_store_points(full ? out_positions : (char *)padded_points, full ? r->out_position_stride : 12, \
                                tx, ty, tz); \
        if (!full) fk__group_points_out(out_positions, r->out_position_stride, padded_points, count); \
        fk__v##w##_load_points(normals, normal_stride, &x, &y, &z); \
        if (r->cofactor_normals) { \
            fk__cofactor_normal##w(ax, ay, az, bx, by, bz, cx, cy, cz, &x, &y, &z); \
        } else { \
            tx = fk__v##w##_madd(cx, z, fk__v##w##_madd(bx, y, fk__v##w##_mul(ax, x))); \
            ty = fk__v##w##_madd(cy, z, fk__v##w##_madd(by, y, fk__v##w##_mul(ay, x))); \
            z = fk__v##w##_madd(cz, z, fk__v##w##_madd(bz, y, fk__v##w##_mul(az, x))); \
            x = tx; y = ty; \
        } \
        fk__store_unit_normals##w(x, y, z, r->cofactor_normals ? columns : NULL, normals, normal_stride, \
                                  r->out_normals + at * r->out_normal_stride, r->out_normal_stride, count); \
    }

/* DQS, a group's points and normals moved by their blends (u, w) + eps (d, d_w)
   without normalizing them first. With N = |real|^2, the unit rotation of v is
       v + (2 w (u x v) + 2 u x (u x v)) / N
   and the translation 2 (w d - d_w u + u x d) / N: fk_quat_rotate() and
   fk__dual_quat_translation() with the normalization folded into one division
   at the end, without a square root. A norm the division cannot take, or a
   result that overflows where the reference's would not, goes to
   fk__dqs_finish(); with the output the input itself, before anything of the
   group is written. */
#define FK__DQS_FINISH(w) \
    /* v + (w s + u x s + t) / N with s = 2 u x v: v rotated, and moved by t / N */ \
    static FK__TARGET##w FK__ALWAYS_INLINE void fk__dqs_move##w(fk__v##w ux, fk__v##w uy, fk__v##w uz, fk__v##w rw, \
                                                                fk__v##w inverse, fk__v##w tx, fk__v##w ty, \
                                                                fk__v##w tz, fk__v##w *x, fk__v##w *y, fk__v##w *z) \
    { \
        fk__v##w sx, sy, sz, cx, cy, cz; \
        fk__cross##w(ux, uy, uz, *x, *y, *z, &sx, &sy, &sz); \
        sx = fk__v##w##_add(sx, sx); sy = fk__v##w##_add(sy, sy); sz = fk__v##w##_add(sz, sz); \
        fk__cross##w(ux, uy, uz, sx, sy, sz, &cx, &cy, &cz); \
        *x = fk__v##w##_madd(fk__v##w##_add(fk__v##w##_madd(sx, rw, cx), tx), inverse, *x); \
        *y = fk__v##w##_madd(fk__v##w##_add(fk__v##w##_madd(sy, rw, cy), ty), inverse, *y); \
        *z = fk__v##w##_madd(fk__v##w##_add(fk__v##w##_madd(sz, rw, cz), tz), inverse, *z); \
    } \
    \
    static FK__TARGET##w FK__NOINLINE void fk__dqs_finish##w(float *blends, const fk__skin_run *run, \
                                                             int first, int count, const int normals, \
                                                             const float *scaled_normals, int reference_lanes) \
    { \
        float padded_points[3 * FK__LANES##w], padded_normals[3 * FK__LANES##w]; \
        const fk__skin_run r = fk__skin_run_from(run, first); \
        const int full = count == FK__LANES##w; \
        const char *position = full ? r.positions : (const char *)padded_points; \
        const char *normal = scaled_normals ? (const char *)scaled_normals \
                             : full ? r.normals : (const char *)padded_normals; \
        const size_t position_stride = full ? r.position_stride : 12; \
        const size_t normal_stride = full && !scaled_normals ? r.normal_stride : 12; \
        fk__v##w ux, uy, uz, rw, dx, dy, dz, dw, inverse, tx, ty, tz, cx, cy, cz, px, py, pz, nx, ny, nz, zero, none; \
        int lane, careful; \
        if (!full) { \
            fk__group_pad(blends, count, FK__LANES##w, 8, 1); \
            fk__group_points_padded(padded_points, r.positions, r.position_stride, count, FK__LANES##w); \
            if (normals && !scaled_normals) \
                fk__group_points_padded(padded_normals, r.normals, r.normal_stride, count, FK__LANES##w); \
        } \
        fk__v##w##_from_pairs(blends, &ux, &uy, &uz, &rw, &dx, &dy, &dz, &dw); \
        inverse = fk__v##w##_madd(rw, rw, fk__v##w##_madd(uz, uz, fk__v##w##_madd(uy, uy, fk__v##w##_mul(ux, ux)))); \
        careful = fk__v##w##_outside_lanes(inverse, FLT_MIN, FLT_MAX); \
        inverse = fk__v##w##_div(fk__v##w##_splat(1.0f), inverse); \
        /* twice the translation's numerator: 2 (w d - d_w u + u x d) */ \
        fk__cross##w(ux, uy, uz, dx, dy, dz, &cx, &cy, &cz); \
        tx = fk__v##w##_add(fk__v##w##_sub(fk__v##w##_mul(dx, rw), fk__v##w##_mul(ux, dw)), cx); \
        ty = fk__v##w##_add(fk__v##w##_sub(fk__v##w##_mul(dy, rw), fk__v##w##_mul(uy, dw)), cy); \
        tz = fk__v##w##_add(fk__v##w##_sub(fk__v##w##_mul(dz, rw), fk__v##w##_mul(uz, dw)), cz); \
        tx = fk__v##w##_add(tx, tx); ty = fk__v##w##_add(ty, ty); tz = fk__v##w##_add(tz, tz); \
        fk__v##w##_load_points(position, position_stride, &px, &py, &pz); \
        fk__dqs_move##w(ux, uy, uz, rw, inverse, tx, ty, tz, &px, &py, &pz); \
        zero = fk__v##w##_add(fk__v##w##_sub(px, px), fk__v##w##_add(fk__v##w##_sub(py, py), fk__v##w##_sub(pz, pz))); \
        nx = ny = nz = zero; \
        if (normals) { \
            none = fk__v##w##_splat(0.0f); \
            fk__v##w##_load_points(normal, normal_stride, &nx, &ny, &nz); \
            fk__dqs_move##w(ux, uy, uz, rw, inverse, none, none, none, &nx, &ny, &nz); \
            zero = fk__v##w##_add(zero, fk__v##w##_sub(nx, nx)); \
            zero = fk__v##w##_add(zero, fk__v##w##_add(fk__v##w##_sub(ny, ny), fk__v##w##_sub(nz, nz))); \
        } \
        careful = (careful | fk__v##w##_nonzero_lanes(zero) | reference_lanes) & ((1 << count) - 1); \
        if (FK__LIKELY(full && !careful)) { \
            fk__v##w##_store_points(r.out_positions, r.out_position_stride, px, py, pz); \
            if (normals) fk__v##w##_store_points(r.out_normals, r.out_normal_stride, nx, ny, nz); \
            return; \
        } \
        fk__v##w##_store_points((char *)padded_points, 12, px, py, pz); \
        fk__v##w##_store_points((char *)padded_normals, 12, nx, ny, nz); \
        for (lane = 0; lane < count; ++lane) { \
            const size_t i = (size_t)lane; \
            if (reference_lanes >> lane & 1) \
                (void)fk__dqs_scaled_reference(r.desc, r.layout, r.palette, r.begin + lane, r.begin + lane + 1); \
            else if (careful >> lane & 1) \
                fk__dqs_vertex_reference(blends + 8 * lane, blends + 8 * lane + 4, r.positions + i * r.position_stride, \
                                         !normals ? NULL : scaled_normals ? (const char *)(scaled_normals + 3 * lane) \
                                                         : r.normals + i * r.normal_stride, \
                                         r.out_positions + i * r.out_position_stride, \
                                         normals ? r.out_normals + i * r.out_normal_stride : NULL); \
            else { \
                memcpy(r.out_positions + i * r.out_position_stride, padded_points + 3 * lane, 12); \
                if (normals) memcpy(r.out_normals + i * r.out_normal_stride, padded_normals + 3 * lane, 12); \
            } \
        } \
    }

/* Centres of rotation, a group's points and normals from its pairs (q m):
   the blended rotation q = (u, w) and the moved centre m. The point turns
   about its centre c as DQS turns a point, without a translation
   (fk__dqs_move##w()), then goes to m: R (p - c) + m; the normal turns alike
   and is renormalized (fk__store_unit_normals##w()). A norm the division
   cannot take, or a point that overflows, goes to the plain loop; then the
   group is written a lane at a time, and such a vertex only by that loop,
   which reads it whole first: the output may be the input. */
#define FK__COR_FINISH(w) \
    static FK__TARGET##w FK__NOINLINE void fk__cor_finish##w(float *blends, const fk__skin_run *run, int first, \
                                                             int count) \
    { \
        float padded_points[3 * FK__LANES##w], padded_centers[3 * FK__LANES##w], padded_normals[3 * FK__LANES##w]; \
        float moved_points[3 * FK__LANES##w], moved_normals[3 * FK__LANES##w]; \
        const fk__skin_run r = fk__skin_run_from(run, first); \
        const fk__cor_skin *s = (const fk__cor_skin *)(const void *)r.desc; \
        const char *centers = (const char *)s->centers + (size_t)r.begin * s->center_stride; \
        const int full = count == FK__LANES##w; \
        fk__v##w ux, uy, uz, rw, mx, my, mz, mw, inverse, px, py, pz, cx, cy, cz, none = fk__v##w##_splat(0.0f); \
        int lane, careful, direct; \
        if (!full) { \
            fk__group_pad(blends, count, FK__LANES##w, 8, 1); \
            fk__group_points_padded(padded_points, r.positions, r.position_stride, count, FK__LANES##w); \
            if (!s->scaled_palette) \
                fk__group_points_padded(padded_centers, centers, s->center_stride, count, FK__LANES##w); \
            if (r.normals) fk__group_points_padded(padded_normals, r.normals, r.normal_stride, count, FK__LANES##w); \
        } \
        fk__v##w##_from_pairs(blends, &ux, &uy, &uz, &rw, &mx, &my, &mz, &mw); \
        (void)mw; \
        inverse = fk__v##w##_madd(rw, rw, fk__v##w##_madd(uz, uz, fk__v##w##_madd(uy, uy, fk__v##w##_mul(ux, ux)))); \
        careful = fk__v##w##_outside_lanes(inverse, FLT_MIN, FLT_MAX); \
        inverse = fk__v##w##_div(fk__v##w##_splat(1.0f), inverse); \
        fk__v##w##_load_points(full ? r.positions : (const char *)padded_points, full ? r.position_stride : 12, \
                               &px, &py, &pz); \
        if (!s->scaled_palette) { /* else the points are offsets from the centres already */ \
            fk__v##w##_load_points(full ? centers : (const char *)padded_centers, full ? s->center_stride : 12, \
                                   &cx, &cy, &cz); \
            px = fk__v##w##_sub(px, cx); py = fk__v##w##_sub(py, cy); pz = fk__v##w##_sub(pz, cz); \
        } \
        fk__dqs_move##w(ux, uy, uz, rw, inverse, none, none, none, &px, &py, &pz); \
        px = fk__v##w##_add(px, mx); py = fk__v##w##_add(py, my); pz = fk__v##w##_add(pz, mz); \
        mx = fk__v##w##_add(fk__v##w##_sub(px, px), fk__v##w##_add(fk__v##w##_sub(py, py), fk__v##w##_sub(pz, pz))); \
        careful = (careful | fk__v##w##_nonzero_lanes(mx)) & ((1 << count) - 1); \
        direct = full && !careful; \
        fk__v##w##_store_points(direct ? r.out_positions : (char *)moved_points, direct ? r.out_position_stride : 12, \
                                px, py, pz); \
        if (r.normals) { \
            fk__v##w##_load_points(full ? r.normals : (const char *)padded_normals, full ? r.normal_stride : 12, \
                                   &px, &py, &pz); \
            fk__dqs_move##w(ux, uy, uz, rw, inverse, none, none, none, &px, &py, &pz); \
            fk__store_unit_normals##w(px, py, pz, NULL, NULL, 0, direct ? r.out_normals : (char *)moved_normals, \
                                      direct ? r.out_normal_stride : 12, FK__LANES##w); \
        } \
        for (lane = 0; !direct && lane < count; ++lane) { \
            const size_t i = (size_t)lane; \
            if (careful >> lane & 1) { \
                (void)fk__cor_reference_from(r.desc, r.layout, s->scaled_palette ? s->scaled_palette : r.palette, \
                                             NULL, r.begin + lane, r.begin + lane + 1); \
                continue; \
            } \
            memcpy(r.out_positions + i * r.out_position_stride, moved_points + 3 * lane, 12); \
            if (r.normals) memcpy(r.out_normals + i * r.out_normal_stride, moved_normals + 3 * lane, 12); \
        } \
    }

#define FK__TARGET4
FK__GROUP_CROSS(4)
FK__LBS_NORMALS(4)
FK__DQS_FINISH(4)
FK__COR_FINISH(4)
#if defined(FK__SIMD_AVX2)
#define FK__TARGET8 FK__AVX2_TARGET
FK__GROUP_CROSS(8)
FK__LBS_NORMALS(8)
FK__DQS_FINISH(8)
FK__COR_FINISH(8)
#endif

/* The two skinning kernels of a tier, at width w, each compiled for the
   influence counts below and with and without normals, so that the influence
   loop unrolls and the normal branch disappears: four influences (glTF's and
   most engines' layout) and any count. */
#define FK__SKIN_KERNELS(tier, target, w) \
    /* Vertex at's LBS blend, its first four influences and then the rest. */ \
    static target FK__ALWAYS_INLINE fk__lbs_blend##w fk__lbs_vertex_##tier(const fk__skin_run *r, size_t at, \
                                                                         const int influences) \
    { \
        const uint16_t *joints = (const uint16_t *)(const void *)(r->joints + at * r->joint_stride); \
        const uint16_t *joints2 = (const uint16_t *)(const void *)(r->joints2 + at * r->joint2_stride); \
        const float *weights = (const float *)(const void *)(r->weights + at * r->weight_stride); \
        const float *weights2 = (const float *)(const void *)(r->weights2 + at * r->weight2_stride); \
        fk__lbs_blend##w blend = fk__lbs_start##w(r->palette + (size_t)joints[0] * FK__LBS_BONE_FLOATS, weights[0]); \
        int e; \
        FK__UNROLL for (e = 1; e < fk__in_first(influences); ++e) \
            fk__lbs_add##w(&blend, r->palette + (size_t)joints[e] * FK__LBS_BONE_FLOATS, weights[e]); \
        FK__NO_UNROLL for (e = 4; e < influences; ++e) \
            fk__lbs_add##w(&blend, r->palette + (size_t)joints2[e - 4] * FK__LBS_BONE_FLOATS, weights2[e - 4]); \
        return blend; \
    } \
    \
    /* Without normals a vertex is moved as soon as it is blended. */ \
    static target FK__ALWAYS_INLINE void fk__lbs_points_loop_##tier(const fk__skin_run *run, const int influences) \
    { \
        const fk__skin_run r = *run; /* in registers: the stores could alias *run */ \
        int i; \
        for (i = 0; i < r.count; ++i) { \
            /* each record addressed from its array's start, never stepped to: a pointer \
               one stride past the last vertex need not exist (a stride near SIZE_MAX) */ \
            const size_t at = (size_t)i; \
            const fk__lbs_blend##w blend = fk__lbs_vertex_##tier(&r, at, influences); \
            fk__f4_store3(r.out_positions + at * r.out_position_stride, \
                          fk__lbs_point##w(blend, fk__f4_load3(r.positions + at * r.position_stride))); \
        } \
    } \
    \
    /* With normals the blends wait for their group in quads (fk__lbs_group##w()), \
       and a group is finished after the next group's blends: see fk__dqs_loop_(). */ \
    static target FK__ALWAYS_INLINE void fk__lbs_loop_##tier(const fk__skin_run *run, const int influences) \
    { \
        const fk__skin_run r = *run; \
        float pairs[2][16 * FK__LANES##w]; /* columns (c0 c1), then (c2 t): fk__lbs_pairs4() */ \
        int first, count = 0, group = 0; \
        for (first = 0; first < r.count; first += FK__LANES##w) { \
            float *pair = pairs[group]; \
            int lane; \
            count = r.count - first < FK__LANES##w ? r.count - first : FK__LANES##w; \
            for (lane = 0; lane < count; ++lane, pair += 8) /* addressed: see fk__lbs_points_loop_() */ \
                fk__lbs_pairs##w(fk__lbs_vertex_##tier(&r, (size_t)(first + lane), influences), pair, \
                                 8 * FK__LANES##w); \
            if (first > 0) fk__lbs_group##w(pairs[!group], &r, first - FK__LANES##w, FK__LANES##w); \
            group = !group; \
        } \
        if (count) fk__lbs_group##w(pairs[!group], &r, first - FK__LANES##w, count); \
    } \
    \
    /* DQS of bones with scale centred at the vertex, with normals: a group's \
       normals go through its blended scale parts' cofactors first (into \
       scaled_normals), then the group is finished as for rigid bones. */ \
    static target FK__ALWAYS_INLINE void fk__dqs_finish_group_##tier(float *blends, float *scales, \
                                                                     float *scaled_normals, const fk__skin_run *run, \
                                                                     int first, int count, const int normals, \
                                                                     const int scaled, int reference_lanes) \
    { \
        int lane; \
        if (scaled && normals) { \
            fk__lbs_cofactor_normals##w(scales, (char *)scaled_normals, 12, count); \
            for (lane = count; lane < FK__LANES##w; ++lane) memcpy(scaled_normals + 3 * lane, scaled_normals + 3 * (count - 1), 12); \
        } \
        fk__dqs_finish##w(blends, run, first, count, normals, scaled && normals ? scaled_normals : NULL, \
                          reference_lanes); \
    } \
    \
    /* One influence of a bone with scale: its dual quaternion and the dual \
       part's change with the point by its signed weight, its scale part (for \
       normals) by its weight. */ \
    static target FK__ALWAYS_INLINE void fk__dqs_scaled_add_##tier(fk__dqs_blend##w *blend, fk__lbs_blend##w *motion, \
                                                                   fk__lbs_blend##w *scale, const float *bone, \
                                                                   float signed_weight, float weight, const int normals) \
    { \
        fk__dqs_add##w(blend, bone, signed_weight); \
        fk__lbs_add##w(motion, bone + FK__DQS_MOTION_AT, signed_weight); \
        if (normals) fk__lbs_add##w(scale, bone + FK__DQS_SCALE_AT, weight); \
    } \
    \
    /* A group is finished after the next group's blends, not before them: its \
       long chain of dependent operations then starts from blends computed long \
       since, instead of waiting on the last of them. Likewise each vertex's \
       pivot is found a vertex ahead. Bones with scale (scaled) also blend the \
       dual part's change with the point, G, which is applied to it at once, \
       and, with normals, their scale parts; a vertex whose weights do not sum \
       to a positive number goes to the reference loop. */ \
    static target FK__ALWAYS_INLINE void fk__dqs_loop_##tier(const fk__skin_run *run, const int influences, \
                                                             const int normals, const int source, const int scaled) \
    { \
        const fk__skin_run r = *run; /* in registers: the stores could alias *run */ \
        const size_t stride = scaled ? FK__DQS_SCALED_STRIDE : FK__DQS_PALETTE_STRIDE; \
        float blends[2][8 * FK__LANES##w]; /* pairs (real dual) */ \
        float scales[2][16 * FK__LANES##w], scaled_normals[3 * FK__LANES##w]; \
        size_t pivots[FK__LANES##w]; \
        int i, e, lane = 0, group = 0, reference_lanes[2] = {0, 0}; \
        for (i = 0; i < r.count; ++i) { \
            const size_t at = (size_t)i; /* addressed, never stepped to: see fk__lbs_loop_() */ \
            const uint16_t *joints = (const uint16_t *)(const void *)(r.joints + at * r.joint_stride); \
            const uint16_t *joints2 = (const uint16_t *)(const void *)(r.joints2 + at * r.joint2_stride); \
            const float *weights = (const float *)(const void *)(r.weights + at * r.weight_stride); \
            const float *weights2 = (const float *)(const void *)(r.weights2 + at * r.weight2_stride); \
            fk__f4 pivot, dual; \
            fk__dqs_blend##w blend; \
            if (lane == 0) { /* the group's pivots, each a chain of dependent loads, first */ \
                const int count = r.count - i < FK__LANES##w ? r.count - i : FK__LANES##w; \
                int v; \
                if (influences == 4) \
                    for (v = 0; v < count; ++v) \
                        pivots[v] = fk__dqs_pivot_at(&r, at + (size_t)v, 4, source, \
                                                     source == FK__DQS_BY_BITS ? r.sign_words : stride); \
                else if (source != FK__DQS_PRESIGNED) \
                    fk__dqs_pivots(&r, at, count, source, source == FK__DQS_BY_BITS ? r.sign_words : stride, pivots); \
                reference_lanes[group] = 0; \
            } \
            pivot = source == FK__DQS_BY_DOT_PRODUCTS ? fk__f4_load(r.palette + pivots[lane]) : fk__f4_zero(); \
            if (!scaled && source == FK__DQS_BY_DOT_PRODUCTS && influences == 4) { /* glTF's count */ \
                float four[4]; \
                fk__dqs_four_dot_signed(r.palette, stride, pivot, joints, weights, four); \
                blend = fk__dqs_start##w(r.palette + (size_t)joints[0] * stride, four[0]); \
                FK__UNROLL for (e = 1; e < 4; ++e) fk__dqs_add##w(&blend, r.palette + (size_t)joints[e] * stride, four[e]); \
            } else if (!scaled) { \
                blend = fk__dqs_start##w(fk__dqs_bone_for(&r, pivots[lane], pivot, joints[0], source, stride), \
                                         weights[0]); \
                FK__UNROLL for (e = 1; e < fk__in_first(influences); ++e) \
                    fk__dqs_add##w(&blend, fk__dqs_bone_for(&r, pivots[lane], pivot, joints[e], source, stride), \
                                   weights[e]); \
                FK__NO_UNROLL for (e = 4; e < influences; ++e) \
                    fk__dqs_add##w(&blend, fk__dqs_bone_for(&r, pivots[lane], pivot, joints2[e - 4], source, stride), \
                                   weights2[e - 4]); \
            } else { /* each bone's whole entry, its weight signed as its dual quaternion is */ \
                const uint64_t *row = r.flipped + pivots[lane]; \
                const float *bone = r.palette + (size_t)joints[0] * stride; \
                float four[4], signed_weight; \
                const int at_once = influences == 4 && \
                                    fk__dqs_four_signed_weights##w(row, r.sign_words, joints, weights, four); \
                signed_weight = at_once ? four[0] \
                                        : fk__dqs_signed_weight(row, joints[0] & r.sign_columns, weights[0]); \
                fk__lbs_blend##w motion = fk__lbs_start##w(bone + FK__DQS_MOTION_AT, signed_weight), scale = motion; \
                blend = fk__dqs_start##w(bone, signed_weight); \
                if (normals) scale = fk__lbs_start##w(bone + FK__DQS_SCALE_AT, weights[0]); \
                FK__UNROLL for (e = 1; e < fk__in_first(influences); ++e) \
                    fk__dqs_scaled_add_##tier(&blend, &motion, &scale, r.palette + (size_t)joints[e] * stride, \
                                              at_once ? four[e] \
                                                      : fk__dqs_signed_weight(row, joints[e] & r.sign_columns, weights[e]), \
                                              weights[e], normals); \
                FK__NO_UNROLL for (e = 4; e < influences; ++e) \
                    fk__dqs_scaled_add_##tier(&blend, &motion, &scale, r.palette + (size_t)joints2[e - 4] * stride, \
                                              fk__dqs_signed_weight(row, joints2[e - 4] & r.sign_columns, \
                                                                    weights2[e - 4]), \
                                              weights2[e - 4], normals); \
                dual = fk__f4_add(fk__dqs_dual##w(blend), \
                                  fk__lbs_direction##w(motion, fk__f4_load3(r.positions + at * r.position_stride))); \
                if (normals) { \
                    float *columns = scales[group] + 8 * lane; \
                    fk__lbs_pairs##w(scale, columns, 8 * FK__LANES##w); /* t, then the rest normal over it */ \
                    fk__f4_store(columns + 8 * FK__LANES##w + 4, fk__f4_load3(r.normals + at * r.normal_stride)); \
                    if (!(columns[3] > 0.0f && columns[3] <= FLT_MAX)) reference_lanes[group] |= 1 << lane; \
                } \
            } \
            fk__dqs_pair##w(blend, blends[group] + 8 * lane); \
            if (scaled) fk__f4_store(blends[group] + 8 * lane + 4, dual); \
            if (++lane == FK__LANES##w) { \
                if (i + 1 > FK__LANES##w) \
                    fk__dqs_finish_group_##tier(blends[!group], scales[!group], scaled_normals, &r, \
                                                i + 1 - 2 * FK__LANES##w, FK__LANES##w, normals, scaled, \
                                                reference_lanes[!group]); \
                group = !group; \
                lane = 0; \
            } \
        } \
        if (i - lane > 0) \
            fk__dqs_finish_group_##tier(blends[!group], scales[!group], scaled_normals, &r, \
                                        i - lane - FK__LANES##w, FK__LANES##w, normals, scaled, reference_lanes[!group]); \
        if (lane) \
            fk__dqs_finish_group_##tier(blends[group], scales[group], scaled_normals, &r, i - lane, lane, \
                                        normals, scaled, reference_lanes[group]); \
    } \
    \
    static target void fk__lbs_##tier(const fk__skin_run *run) \
    { \
        if (run->influences == 4 && run->normals) fk__lbs_loop_##tier(run, 4); \
        else if (run->influences == 4) fk__lbs_points_loop_##tier(run, 4); \
        else if (run->normals) fk__lbs_loop_##tier(run, run->influences); \
        else fk__lbs_points_loop_##tier(run, run->influences); \
        fk__leave_##tier(); \
    } \
    \
    static target FK__ALWAYS_INLINE void fk__dqs_by_##tier(const fk__skin_run *run, const int source, \
                                                           const int scaled) \
    { \
        if (run->influences == 4 && run->normals) fk__dqs_loop_##tier(run, 4, 1, source, scaled); \
        else if (run->influences == 4) fk__dqs_loop_##tier(run, 4, 0, source, scaled); \
        else if (run->normals) fk__dqs_loop_##tier(run, run->influences, 1, source, scaled); \
        else fk__dqs_loop_##tier(run, run->influences, 0, source, scaled); \
    } \
    static target FK__NOINLINE void fk__dqs_presigned_##tier(const fk__skin_run *run) \
    { \
        fk__dqs_by_##tier(run, FK__DQS_PRESIGNED, 0); \
    } \
    static target FK__NOINLINE void fk__dqs_by_table_##tier(const fk__skin_run *run) \
    { \
        fk__dqs_by_##tier(run, FK__DQS_BY_TABLE, 0); \
    } \
    static target FK__NOINLINE void fk__dqs_by_dot_products_##tier(const fk__skin_run *run) \
    { \
        fk__dqs_by_##tier(run, FK__DQS_BY_DOT_PRODUCTS, 0); \
    } \
    static target void fk__dqs_##tier(const fk__skin_run *run) \
    { \
        if (run->signed_bones) fk__dqs_presigned_##tier(run); \
        else if (run->hemisphere) fk__dqs_by_table_##tier(run); \
        else fk__dqs_by_dot_products_##tier(run); \
        fk__leave_##tier(); \
    } \
    \
    /* Bones with scale, centred at the vertex: signs by bits. */ \
    static target void fk__dqs_scaled_##tier(const fk__skin_run *run) \
    { \
        if (run->influences == 4 && !run->normals) fk__dqs_loop_##tier(run, 4, 0, FK__DQS_BY_BITS, 1); \
        else if (run->influences == 4) fk__dqs_loop_##tier(run, 4, 1, FK__DQS_BY_BITS, 1); \
        else if (run->normals) fk__dqs_loop_##tier(run, run->influences, 1, FK__DQS_BY_BITS, 1); \
        else fk__dqs_loop_##tier(run, run->influences, 0, FK__DQS_BY_BITS, 1); \
        fk__leave_##tier(); \
    } \
    \
    /* Centres of rotation, rigid bones: a vertex's LBS blend moves its centre \
       at once, and its rotations are blended as DQS blends real parts, each \
       weight signed by the bits of its pivot's row (run->flipped) or else by \
       the dot product with the pivot's rotation, the reference's own test; \
       the two wait for their group as a pair (fk__cor_finish##w()), which is \
       finished after the next group's blends, and each group's pivots are \
       found first, as in fk__dqs_loop_(). One copy for every count, to keep \
       the code small. */ \
    static target void fk__cor_##tier(const fk__skin_run *run) \
    { \
        const fk__skin_run r = *run; /* in registers: the stores could alias *run */ \
        const int influences = r.influences; \
        const fk__cor_skin *s = (const fk__cor_skin *)(const void *)r.desc; \
        const char *centers = (const char *)s->centers + (size_t)r.begin * s->center_stride; \
        const int source = r.flipped ? FK__DQS_BY_BITS : FK__DQS_BY_DOT_PRODUCTS; \
        float blends[2][8 * FK__LANES##w]; /* pairs (q m) */ \
        size_t pivots[FK__LANES##w]; \
        int i, e, lane = 0, group = 0; \
        for (i = 0; i < r.count; ++i) { \
            const size_t at = (size_t)i; /* addressed, never stepped to: see fk__lbs_points_loop_() */ \
            const uint16_t *joints = (const uint16_t *)(const void *)(r.joints + at * r.joint_stride); \
            const float *weights = (const float *)(const void *)(r.weights + at * r.weight_stride); \
            const uint16_t *joints2 = (const uint16_t *)(const void *)(r.joints2 + at * r.joint2_stride); \
            const float *weights2 = (const float *)(const void *)(r.weights2 + at * r.weight2_stride); \
            const float *bone = r.palette + (size_t)joints[0] * FK__COR_BONE_FLOATS; \
            const uint64_t *row; \
            float four[4]; \
            fk__f4 pivot, q, rotation; \
            fk__lbs_blend##w blend; \
            int at_once; \
            if (lane == 0) \
                fk__dqs_pivots(&r, at, r.count - i < FK__LANES##w ? r.count - i : FK__LANES##w, source, \
                               r.flipped ? r.sign_words : FK__COR_BONE_FLOATS, pivots); \
            row = r.flipped ? r.flipped + pivots[lane] : NULL; \
            pivot = r.flipped ? fk__f4_zero() : fk__f4_load(r.palette + pivots[lane] + FK__LBS_BONE_FLOATS); \
            at_once = row && influences == 4 && fk__dqs_four_signed_weights##w(row, r.sign_words, joints, weights, four); \
            blend = fk__lbs_start##w(bone, weights[0]); \
            rotation = fk__f4_load(bone + FK__LBS_BONE_FLOATS); \
            q = fk__f4_mul(!row ? fk__cor_signed_weight(pivot, rotation, weights[0]) \
                                : fk__f4_splat(at_once ? four[0] : fk__dqs_signed_weight(row, joints[0], weights[0])), \
                           rotation); \
            for (e = 1; e < influences; ++e) { /* from the fifth on, the second lists */ \
                const uint16_t joint = e < 4 ? joints[e] : joints2[e - 4]; \
                const float weight = e < 4 ? weights[e] : weights2[e - 4]; \
                bone = r.palette + (size_t)joint * FK__COR_BONE_FLOATS; \
                rotation = fk__f4_load(bone + FK__LBS_BONE_FLOATS); \
                fk__lbs_add##w(&blend, bone, weight); \
                q = fk__f4_madd(!row ? fk__cor_signed_weight(pivot, rotation, weight) \
                                     : fk__f4_splat(at_once ? four[e] : fk__dqs_signed_weight(row, joint, weight)), \
                                rotation, q); \
            } \
            fk__f4_store(blends[group] + 8 * lane, q); \
            fk__f4_store(blends[group] + 8 * lane + 4, \
                         fk__lbs_point##w(blend, fk__f4_load3(centers + at * s->center_stride))); \
            if (++lane == FK__LANES##w) { \
                if (i + 1 > FK__LANES##w) fk__cor_finish##w(blends[!group], &r, i + 1 - 2 * FK__LANES##w, FK__LANES##w); \
                group = !group; \
                lane = 0; \
            } \
        } \
        if (i - lane > 0) fk__cor_finish##w(blends[!group], &r, i - lane - FK__LANES##w, FK__LANES##w); \
        if (lane) fk__cor_finish##w(blends[group], &r, i - lane, lane); \
        fk__leave_##tier(); \
    }

/* ---- Fast paths: forward kinematics kernel ----------------------------------
   fk__forward_parents_first_reference()'s pass, at the same checks and bits:
   parents before children, every input valid, else 0 and the general path
   starts over. The rotation's normalization (a square root and a division,
   longer than the rest of a joint's chain) runs ahead of the chain, four
   joints to an instruction, and each joint's rotation comes in halved by it,
   q / (2 |q|): a root doubles it back, exactly, and a child multiplies the
   product by twice the parent's renormalization factor, 3 - |Q_p|^2, which
   is one multiplication shorter than halving it. The first
   FK__FORWARD_NEAR_JOINTS joints also keep their transforms in aligned
   registers' memory on the stack for their children to read whole, and a
   joint whose parent is the joint just before it (most of a skeleton listed
   depth first) takes the parent's from registers. Only the translations are
   tested for finiteness: a coordinate of x or of the pivot x + d that is
   infinite or NaN makes the same coordinate of t so (t is pivot - (x + r) for
   a root, (t_p + (pivot + r')) - (x + r) below it), and each is marked, on
   its bits, as it is computed. */
#define FK__FORWARD_NEAR_JOINTS 256
#define FK__FORWARD_BATCH 64

/* 0.5 / |q| for the four quaternions whose x, y, z, w are the lanes of qx,
   qy, qz, qw, |q|^2 summed in fk_quat_dot()'s order; returns 0 if one of them
   has a |q|^2 that is not a positive normal float. */
static FK__ALWAYS_INLINE int fk__half_unit_factors4(const fk_quat *rotations, float factors[4])
{
    fk__f4 x = fk__f4_load(&rotations[0].x), y = fk__f4_load(&rotations[1].x);
    fk__f4 z = fk__f4_load(&rotations[2].x), w = fk__f4_load(&rotations[3].x), norm2;
    float lanes[4];
    int lane, normal = 1;
    fk__f4_transpose(&x, &y, &z, &w);
    norm2 = fk__f4_add(fk__f4_add(fk__f4_add(fk__f4_mul(x, x), fk__f4_mul(y, y)), fk__f4_mul(z, z)), fk__f4_mul(w, w));
    fk__f4_store(lanes, norm2);
    for (lane = 0; lane < 4; ++lane) {
        uint32_t bits;
        memcpy(&bits, &lanes[lane], sizeof bits);
        normal &= bits - 0x00800000u <= 0x7F7FFFFFu - 0x00800000u;
    }
    fk__f4_store(factors, fk__f4_div(fk__f4_splat(0.5f), fk__f4_sqrt(norm2)));
    return normal;
}

/* fk__half_unit_factors4() of count rotations (1 to FK__FORWARD_BATCH), the
   last group of four padded with copies of the last rotation. */
static FK__ALWAYS_INLINE int fk__half_unit_factors(const fk_quat *rotations, int count, float *factors)
{
    int i, normal = 1;
    for (i = 0; i + 4 <= count; i += 4) normal &= fk__half_unit_factors4(rotations + i, factors + i);
    if (i < count) {
        fk_quat last[4];
        float lanes[4];
        int lane;
        for (lane = 0; lane < 4; ++lane) last[lane] = rotations[i + lane < count ? i + lane : count - 1];
        normal &= fk__half_unit_factors4(last, lanes);
        for (lane = 0; i + lane < count; ++lane) factors[i + lane] = lanes[lane];
    }
    return normal;
}

/* The pass of a tier, compiled once per convention and with and without
   translations; every helper inlined (flatten), since calls and branches
   would cost more than the arithmetic. */
#define FK__FORWARD_KERNEL(tier, target, w) \
    static target FK__ALWAYS_INLINE int fk__forward_pass_##tier(int joint_count, const int *parents, \
                                                                const fk_vec3 *rest_joints, const fk_quat *rotations, \
                                                                const fk_vec3 *translations, fk_rigid *out, \
                                                                const int rest_frame, const int translated) \
    { \
        fk__f4 not_finite = fk__f4_zero(); /* fk__f4_mark_not_finite()'s marks */ \
        fk__f4 near_q[FK__FORWARD_NEAR_JOINTS], near_t[FK__FORWARD_NEAR_JOINTS]; \
        float factors[FK__FORWARD_BATCH], marks[4]; \
        fk__f4 q = fk__f4_zero(), t = q; \
        int i, batch, end; \
        for (batch = 0; batch < joint_count; batch = end) { \
            end = joint_count - batch < FK__FORWARD_BATCH ? joint_count : batch + FK__FORWARD_BATCH; \
            if (!fk__half_unit_factors(rotations + batch, end - batch, factors)) return 0; \
            for (i = batch; i < end; ++i) { \
                const int parent = parents[i]; \
                const fk__f4 x = fk__f4_load3(&rest_joints[i]); \
                const fk__f4 pivot = translated ? fk__f4_add(x, fk__f4_load3(&translations[i])) : x; \
                const fk__f4 half_q = fk__f4_mul(fk__f4_load(&rotations[i].x), fk__f4_splat(factors[i - batch])); \
                fk__f4 parent_q = q, parent_t = t, rotated_pivot, rotated_x; \
                if (parent >= i) return 0; \
                if (parent < 0) { \
                    q = fk__f4_add(half_q, half_q); \
                    t = fk__f4_sub(pivot, fk__f4_quat_rotate(q, x)); \
                } else { \
                    if (parent != i - 1 && parent < FK__FORWARD_NEAR_JOINTS) { \
                        parent_q = near_q[parent]; \
                        parent_t = near_t[parent]; \
                    } else if (parent != i - 1) { \
                        parent_q = fk__f4_load(&out[parent].q.x); \
                        parent_t = fk__f4_load3(&out[parent].t); \
                    } \
                    q = fk__f4_mul(rest_frame ? fk__f4_quat_mul(half_q, parent_q) : fk__f4_quat_mul(parent_q, half_q), \
                                   fk__f4_sub(fk__f4_splat(3.0f), fk__f4_dot_pairs(parent_q, parent_q))); \
                    fk__rotate_pair##w(parent_q, pivot, q, x, &rotated_pivot, &rotated_x); \
                    t = fk__f4_sub(fk__f4_add(parent_t, rotated_pivot), rotated_x); \
                } \
                if (i < FK__FORWARD_NEAR_JOINTS) { \
                    near_q[i] = q; \
                    near_t[i] = t; \
                } \
                fk__f4_store(&out[i].q.x, q); \
                fk__f4_store3(&out[i].t, t); \
                not_finite = fk__f4_mark_not_finite(not_finite, t); \
            } \
        } \
        fk__f4_store(marks, not_finite); \
        for (i = 0; i < 3; ++i) /* x, y, z: the fourth lane is never stored */ \
            if (fk__float_bits(marks[i]) >> 16 >= 0x7F80u) return 0; \
        return 1; \
    } \
    \
    static target FK__FLATTEN int fk__forward_##tier(int joint_count, const int *parents, const fk_vec3 *rest_joints, \
                                                     const fk_quat *rotations, const fk_vec3 *translations, \
                                                     fk_rigid *out, int rest_frame) \
    { \
        const int n = joint_count; \
        int done; \
        if (rest_frame) \
            done = translations ? fk__forward_pass_##tier(n, parents, rest_joints, rotations, translations, out, 1, 1) \
                                : fk__forward_pass_##tier(n, parents, rest_joints, rotations, NULL, out, 1, 0); \
        else \
            done = translations ? fk__forward_pass_##tier(n, parents, rest_joints, rotations, translations, out, 0, 1) \
                                : fk__forward_pass_##tier(n, parents, rest_joints, rotations, NULL, out, 0, 0); \
        fk__leave_##tier(); \
        return done; \
    }

/* ---- Fast paths: engine-form forward kinematics ------------------------------
   fk_forward_engine() and fk_forward_engine_rigid() in the skeleton's order,
   at the 4-lane width (the AVX2 tier turns the rigid pass's two offsets as one
   8-lane pair, as fk_forward()'s pass does): a joint's chain is one quaternion
   product (rigid) or one 3x4 product (matrices) behind its parent's, and the rest of
   its work (its rotation's length, its local matrix, the product with its
   inverse bind) runs beside the chain. Lengths are taken four joints to an
   instruction, for up to FK__FORWARD_BATCH joints before their loop, as
   fk_forward()'s pass takes them, and checked on their bits as it checks them;
   everything else by a sum of the results, marked on its bits as that pass
   marks its translations (so that -ffast-math cannot fold the checks away): a
   sum is infinite or NaN if an input or a product was not finite (or if rows
   so large that their sum overflows: then the checked loop starts over and
   finds them fine). A joint whose parent was computed just before takes the
   parent's result from registers, any other reads it back from the output. */

/* For the joints joints[0] to joints[3], a joint to a lane, the factor a pass
   scales each rotation by: 0.5 / |q| (rigid: fk_forward()'s pass's halved unit
   rotation) or 2 / |q|^2 (p = 2 q / |q|^2 of a rotation matrix's rows).
   Returns nonzero if some |q|^2 is not a positive normal float. */
static FK__ALWAYS_INLINE int fk__engine_factors4(const fk_quat *rotations, const int *joints, const int rigid,
                                                 float factors[4])
{
    fk__f4 x = fk__f4_load(&rotations[joints[0]].x), y = fk__f4_load(&rotations[joints[1]].x);
    fk__f4 z = fk__f4_load(&rotations[joints[2]].x), w = fk__f4_load(&rotations[joints[3]].x), norm2;
    float lanes[4];
    int lane, bad = 0;
    fk__f4_transpose(&x, &y, &z, &w);
    norm2 = fk__f4_add(fk__f4_add(fk__f4_mul(x, x), fk__f4_mul(y, y)), fk__f4_add(fk__f4_mul(z, z), fk__f4_mul(w, w)));
    fk__f4_store(lanes, norm2);
    for (lane = 0; lane < 4; ++lane) bad |= !fk__is_positive_normal(lanes[lane]);
    fk__f4_store(factors, rigid ? fk__f4_div(fk__f4_splat(0.5f), fk__f4_sqrt(norm2))
                                : fk__f4_div(fk__f4_splat(2.0f), norm2));
    return bad;
}

/* Whether fk__f4_mark_not_finite()'s marks saw only finite values, in all four
   lanes. */
static FK__ALWAYS_INLINE int fk__marks_finite(fk__f4 marks)
{
    float lanes[4];
    int lane, finite = 1;
    fk__f4_store(lanes, marks);
    for (lane = 0; lane < 4; ++lane) finite &= fk__float_bits(lanes[lane]) >> 16 < 0x7F80u;
    return finite;
}

/* fk__engine_factors4() of count joints (1 to FK__FORWARD_BATCH) into factors
   of FK__FORWARD_BATCH floats, the last group of four padded with the last
   joint, so that a pass's joint loop only reads its factor. */
static FK__ALWAYS_INLINE int fk__engine_factors(const fk_quat *rotations, const int *joints, int count, const int rigid,
                                                float *factors)
{
    int i, lane, last[4], bad = 0;
    for (i = 0; i < count; i += 4) {
        const int *group = joints + i;
        if (i + 4 > count) {
            for (lane = 0; lane < 4; ++lane) last[lane] = joints[i + lane < count ? i + lane : count - 1];
            group = last;
        }
        bad |= fk__engine_factors4(rotations, group, rigid, factors + i);
    }
    return bad;
}

/* Row r of a b for affine 3x4 matrices held as rows: a's row against b's
   rows, ((a_r0 b_0 + a_r1 b_1) + a_r2 b_2) + a_r3 e3. */
static FK__ALWAYS_INLINE fk__f4 fk__mat34_row_mul(fk__f4 a_row, fk__f4 b0, fk__f4 b1, fk__f4 b2, fk__f4 e3)
{
    return fk__f4_add(fk__f4_add(fk__f4_add(fk__f4_mul(fk__f4_lane(a_row, 0), b0), fk__f4_mul(fk__f4_lane(a_row, 1), b1)),
                                 fk__f4_mul(fk__f4_lane(a_row, 2), b2)),
                      fk__f4_mul(a_row, e3));
}

/* Row of a rotation matrix, e + (a b) s1 + (c d) s2, where a, c permute q and
   b, d permute p = 2 q / |q|^2, and s1, s2 are signs: fk_quat_to_mat3()'s
   terms, exact for a q of any length. Lane 3 is not part of it. */
static FK__ALWAYS_INLINE fk__f4 fk__rotation_row(fk__f4 e, fk__f4 a, fk__f4 b, fk__f4 c, fk__f4 d, fk__f4 s1, fk__f4 s2)
{
    return fk__f4_add(fk__f4_add(e, fk__f4_xor(fk__f4_mul(a, b), s1)), fk__f4_xor(fk__f4_mul(c, d), s2));
}

static FK__ALWAYS_INLINE int fk__engine_matrices_pass(const fk_skeleton *s, const fk_vec3 *translations,
                                                      const fk_quat *rotations, const fk_vec3 *scales,
                                                      const float *inverse_bind_matrices, float *world, float *skinning)
{
    const fk__f4 e0 = fk__f4_make(1.0f, 0.0f, 0.0f, 0.0f), e1 = fk__f4_make(0.0f, 1.0f, 0.0f, 0.0f);
    const fk__f4 e2 = fk__f4_make(0.0f, 0.0f, 1.0f, 0.0f), e3 = fk__f4_make(0.0f, 0.0f, 0.0f, 1.0f);
    const fk__f4 unit_scale = fk__f4_make(1.0f, 1.0f, 1.0f, 0.0f), zero = fk__f4_zero();
    const fk__f4 pmm = fk__f4_make(0.0f, -0.0f, -0.0f, 0.0f), mpp = fk__f4_make(-0.0f, 0.0f, 0.0f, 0.0f);
    const fk__f4 mmp = fk__f4_make(-0.0f, -0.0f, 0.0f, 0.0f), pmp = fk__f4_make(0.0f, -0.0f, 0.0f, 0.0f);
    const fk__f4 ppm = fk__f4_make(0.0f, 0.0f, -0.0f, 0.0f), mpm = fk__f4_make(-0.0f, 0.0f, -0.0f, 0.0f);
    const int n = s->joint_count, *order = s->order, *parents = s->parents;
    fk__f4 not_finite = zero, r0 = zero, r1 = zero, r2 = zero;
    float factors[FK__FORWARD_BATCH];
    int bad = 0, k0, k, end, previous = -1;
    for (k0 = 0; k0 < n; k0 = end) {
        end = n - k0 < FK__FORWARD_BATCH ? n : k0 + FK__FORWARD_BATCH;
        bad |= fk__engine_factors(rotations, order + k0, end - k0, 0, factors);
        for (k = k0; k < end; ++k) {
            const int joint = order[k], parent = parents[joint];
            const fk__f4 q = fk__f4_load(&rotations[joint].x), p = fk__f4_mul(q, fk__f4_splat(factors[k - k0]));
            const fk__f4 t = fk__f4_load3(&translations[joint]);
            const fk__f4 scale = scales ? fk__f4_load3(&scales[joint]) : unit_scale;
            /* T R S: the rotation's rows, scaled column by column, t_r in lane 3 of row r */
            const fk__f4 rot0 = fk__rotation_row(e0, FK__F4_PERMUTE(q, 1, 0, 0, 3), FK__F4_PERMUTE(p, 1, 1, 2, 3),
                                                 FK__F4_PERMUTE(q, 2, 3, 3, 3), FK__F4_PERMUTE(p, 2, 2, 1, 3), mpp, mmp);
            const fk__f4 rot1 = fk__rotation_row(e1, FK__F4_PERMUTE(q, 0, 0, 1, 3), FK__F4_PERMUTE(p, 1, 0, 2, 3),
                                                 FK__F4_PERMUTE(q, 3, 2, 3, 3), FK__F4_PERMUTE(p, 2, 2, 0, 3), pmp, pmm);
            const fk__f4 rot2 = fk__rotation_row(e2, FK__F4_PERMUTE(q, 0, 1, 0, 3), FK__F4_PERMUTE(p, 2, 2, 0, 3),
                                                 FK__F4_PERMUTE(q, 3, 3, 1, 3), FK__F4_PERMUTE(p, 1, 0, 1, 3), ppm, mpm);
            const fk__f4 l0 = fk__f4_add(fk__f4_mul(rot0, scale), FK__F4_PERMUTE(t, 3, 3, 3, 0));
            const fk__f4 l1 = fk__f4_add(fk__f4_mul(rot1, scale), FK__F4_PERMUTE(t, 3, 3, 3, 1));
            const fk__f4 l2 = fk__f4_add(fk__f4_mul(rot2, scale), FK__F4_PERMUTE(t, 3, 3, 3, 2));
            float *out = world + 12 * (size_t)joint;
            fk__f4 sum;
            if (parent < 0) {
                r0 = l0; r1 = l1; r2 = l2;
            } else {
                fk__f4 p0 = r0, p1 = r1, p2 = r2;
                if (parent != previous) {
                    const float *m = world + 12 * (size_t)parent;
                    p0 = fk__f4_load(m); p1 = fk__f4_load(m + 4); p2 = fk__f4_load(m + 8);
                }
                r0 = fk__mat34_row_mul(p0, l0, l1, l2, e3);
                r1 = fk__mat34_row_mul(p1, l0, l1, l2, e3);
                r2 = fk__mat34_row_mul(p2, l0, l1, l2, e3);
            }
            fk__f4_store(out, r0); fk__f4_store(out + 4, r1); fk__f4_store(out + 8, r2);
            sum = fk__f4_add(fk__f4_add(r0, r1), r2);
            if (inverse_bind_matrices) { /* a world row not finite makes its skinning row so */
                const float *b = inverse_bind_matrices + 12 * (size_t)joint;
                const fk__f4 b0 = fk__f4_load(b), b1 = fk__f4_load(b + 4), b2 = fk__f4_load(b + 8);
                const fk__f4 s0 = fk__mat34_row_mul(r0, b0, b1, b2, e3), s1 = fk__mat34_row_mul(r1, b0, b1, b2, e3);
                const fk__f4 s2 = fk__mat34_row_mul(r2, b0, b1, b2, e3);
                float *m = skinning + 12 * (size_t)joint;
                fk__f4_store(m, s0); fk__f4_store(m + 4, s1); fk__f4_store(m + 8, s2);
                sum = fk__f4_add(fk__f4_add(s0, s1), s2);
            }
            not_finite = fk__f4_mark_not_finite(not_finite, sum);
            previous = joint;
        }
    }
    return !bad && fk__marks_finite(not_finite);
}

/* A quaternion a made ready to be the left factor of products a b, as the
   four vectors that b's w, x, y and z multiply: fk__f4_quat_mul()'s
   permutations and signs moved from b onto a. Made once per joint, it serves
   the joint's own skinning product and its next child's product, and each b
   is broadcast lane by lane straight from memory. */
typedef struct fk__quat_left {
    fk__f4 w, x, y, z;
} fk__quat_left;

static FK__ALWAYS_INLINE fk__quat_left fk__quat_left_make(fk__f4 a)
{
    fk__quat_left l;
    l.w = a;
    l.x = fk__f4_xor(FK__F4_PERMUTE(a, 3, 2, 1, 0), fk__f4_make(0.0f, 0.0f, -0.0f, -0.0f));
    l.y = fk__f4_xor(FK__F4_PERMUTE(a, 2, 3, 0, 1), fk__f4_make(-0.0f, 0.0f, 0.0f, -0.0f));
    l.z = fk__f4_xor(FK__F4_PERMUTE(a, 1, 0, 3, 2), fk__f4_make(0.0f, -0.0f, 0.0f, -0.0f));
    return l;
}

/* a b, as (a b_w + a_x b_x) + (a_y b_y + a_z b_z) with a_x, a_y, a_z the
   signed permutations. */
static FK__ALWAYS_INLINE fk__f4 fk__quat_left_mul(fk__quat_left a, const fk_quat *b)
{
    return fk__f4_add(fk__f4_add(fk__f4_mul(a.w, fk__f4_splat(b->w)), fk__f4_mul(a.x, fk__f4_splat(b->x))),
                      fk__f4_add(fk__f4_mul(a.y, fk__f4_splat(b->y)), fk__f4_mul(a.z, fk__f4_splat(b->z))));
}

typedef void (*fk__rotate_pair_function)(fk__f4 qa, fk__f4 va, fk__f4 qb, fk__f4 vb, fk__f4 *ra, fk__f4 *rb);

/* A joint's rotation is (Q_p q) (0.5 / |q|) (3 - |Q_p|^2): fk_forward()'s
   pass's halved rotation and renormalization, the half-unit factor applied to
   the product, which waits for the parent's length anyway. A root is the
   child of the identity at the origin, which gives its own q / |q| and t
   (the doubling by 3 - 1 is exact). Without inverse binds the pair's second
   rotation turns zero, which costs the wide tier nothing. */
static FK__ALWAYS_INLINE int fk__engine_rigid_pass(const fk_skeleton *s, const fk_vec3 *translations,
                                                   const fk_quat *rotations, const fk_rigid *inverse_binds,
                                                   fk_rigid *world, fk_rigid *skinning,
                                                   const fk__rotate_pair_function rotate_pair)
{
    const int n = s->joint_count, *order = s->order, *parents = s->parents;
    const fk__f4 three = fk__f4_splat(3.0f), zero = fk__f4_zero();
    const fk__quat_left identity = fk__quat_left_make(fk__f4_make(0.0f, 0.0f, 0.0f, 1.0f));
    fk__f4 not_finite = zero, t = zero;
    fk__quat_left q = identity;
    float factors[FK__FORWARD_BATCH];
    int bad = 0, k0, k, end, previous = -1;
    for (k0 = 0; k0 < n; k0 = end) {
        end = n - k0 < FK__FORWARD_BATCH ? n : k0 + FK__FORWARD_BATCH;
        bad |= fk__engine_factors(rotations, order + k0, end - k0, 1, factors);
        for (k = k0; k < end; ++k) {
            const int joint = order[k], parent = parents[joint];
            const fk__f4 bind_t = inverse_binds ? fk__f4_load3(&inverse_binds[joint].t) : zero;
            fk__quat_left parent_q = q;
            fk__f4 parent_t = t, rotated_bind_t, sum;
            if (parent < 0) {
                parent_q = identity;
                parent_t = zero;
            } else if (parent != previous) {
                parent_q = fk__quat_left_make(fk__f4_load(&world[parent].q.x));
                parent_t = fk__f4_load3(&world[parent].t);
            }
            q = fk__quat_left_make(fk__f4_mul(fk__f4_mul(fk__quat_left_mul(parent_q, &rotations[joint]),
                                                         fk__f4_splat(factors[k - k0])),
                                              fk__f4_sub(three, fk__f4_dot_pairs(parent_q.w, parent_q.w))));
            rotate_pair(parent_q.w, fk__f4_load3(&translations[joint]), q.w, bind_t, &t, &rotated_bind_t);
            t = fk__f4_add(parent_t, t);
            fk__f4_store(&world[joint].q.x, q.w);
            fk__f4_store3(&world[joint].t, t);
            sum = t;
            if (inverse_binds) { /* fk_rigid_mul(world, inverse bind); a t not finite makes skin_t so */
                const fk__f4 skin_q = fk__quat_left_mul(q, &inverse_binds[joint].q);
                const fk__f4 skin_t = fk__f4_add(rotated_bind_t, t);
                fk__f4_store(&skinning[joint].q.x, skin_q);
                fk__f4_store3(&skinning[joint].t, skin_t);
                sum = fk__f4_add(skin_q, skin_t);
            }
            not_finite = fk__f4_mark_not_finite(not_finite, sum);
            previous = joint;
        }
    }
    return !bad && fk__marks_finite(not_finite);
}

/* The passes of a tier: the same code and bits in each (no fused multiply-adds).
   The rigid pass is given its tier's rotate_pair as a pointer to a function
   the compiler may inline, which an optimizing build does, once the pointer
   is known (it is a constant in each tier). */
#define FK__ENGINE_KERNELS(tier, target, w) \
    static target void fk__engine_rotate_pair_##tier(fk__f4 qa, fk__f4 va, fk__f4 qb, fk__f4 vb, fk__f4 *ra, fk__f4 *rb) \
    { \
        fk__rotate_pair##w(qa, va, qb, vb, ra, rb); \
    } \
    static target int fk__engine_matrices_##tier(const fk_skeleton *s, const fk_vec3 *translations, \
                                                 const fk_quat *rotations, const fk_vec3 *scales, \
                                                 const float *inverse_bind_matrices, float *world, float *skinning) \
    { \
        int done = fk__engine_matrices_pass(s, translations, rotations, scales, inverse_bind_matrices, world, skinning); \
        fk__leave_##tier(); \
        return done; \
    } \
    static target int fk__engine_rigid_##tier(const fk_skeleton *s, const fk_vec3 *translations, \
                                              const fk_quat *rotations, const fk_rigid *inverse_binds, fk_rigid *world, \
                                              fk_rigid *skinning) \
    { \
        int done = fk__engine_rigid_pass(s, translations, rotations, inverse_binds, world, skinning, \
                                         fk__engine_rotate_pair_##tier); \
        fk__leave_##tier(); \
        return done; \
    }

#if defined(FK__SIMD_AVX2)
/* glTF's formats 16 elements at a time, from a stream of packed whole lists
   (fk__convert_stream()): AVX2's widening loads take two and four times the
   4-lane layer's. The weights as fk__unorm_weights4() computes them. Returns
   the elements converted, a multiple of 16; joints or weights NULL are not. */
static FK__AVX2_TARGET size_t fk__convert_packed_avx2(const char *joints, fk_joint_format joint_format,
                                                      const char *weights, fk_weight_format weight_format, size_t n,
                                                      uint16_t *out_joints, float *out_weights)
{
    const int unorm8 = weight_format == FK_WEIGHTS_UNORM8;
    const __m256 hi = _mm256_set1_ps(unorm8 ? 257.0f / 65536.0f : 1.0f / 65536.0f);
    const __m256 lo = _mm256_set1_ps(unorm8 ? (float)(1.0 / 255.0 - 257.0 / 65536.0)
                                            : (float)(1.0 / 65535.0 - 1.0 / 65536.0));
    const size_t done = n / 16 * 16;
    size_t e;
    for (e = 0; joints && joint_format == FK_JOINTS_U8 && e < done; e += 16)
        _mm256_storeu_si256((__m256i *)(void *)(out_joints + e),
                            _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(joints + e))));
    for (e = 0; joints && joint_format == FK_JOINTS_U16 && e < done; e += 16)
        _mm256_storeu_si256((__m256i *)(void *)(out_joints + e), _mm256_loadu_si256((const __m256i *)(const void *)(joints + 2 * e)));
    for (e = 0; weights && weight_format == FK_WEIGHTS_FLOAT && e < done; e += 8)
        _mm256_storeu_ps(out_weights + e, _mm256_loadu_ps((const float *)(const void *)(weights + 4 * e)));
    for (e = 0; weights && weight_format != FK_WEIGHTS_FLOAT && e < done; e += 8) {
        const __m256 c = _mm256_cvtepi32_ps(
            unorm8 ? _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(weights + e)))
                   : _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(weights + 2 * e))));
        _mm256_storeu_ps(out_weights + e, _mm256_fmadd_ps(c, hi, _mm256_mul_ps(c, lo)));
    }
    fk__leave_avx2();
    return done;
}
#endif

/* ---- Fast paths: the tiers and the table that picks one --------------------- */

typedef struct fk__fast_path_table {
    const char *name;
    void (*lbs)(const fk__skin_run *run);
    void (*dqs)(const fk__skin_run *run);
    void (*dqs_scaled)(const fk__skin_run *run); /* bones with scale, centred at the vertex */
    void (*cor)(const fk__skin_run *run);        /* centres of rotation, rigid bones */
    fk__forward_pass forward;
    int (*engine_matrices)(const fk_skeleton *, const fk_vec3 *, const fk_quat *, const fk_vec3 *, const float *,
                           float *, float *);
    int (*engine_rigid)(const fk_skeleton *, const fk_vec3 *, const fk_quat *, const fk_rigid *, fk_rigid *,
                        fk_rigid *);
    size_t (*convert_packed)(const char *, fk_joint_format, const char *, fk_weight_format, size_t, uint16_t *,
                             float *); /* or NULL: the 4-lane layer's loops */
} fk__fast_path_table;

#define FK__NO_TARGET
FK__SKIN_KERNELS(simd4, FK__NO_TARGET, 4)
FK__FORWARD_KERNEL(simd4, FK__NO_TARGET, 4)
FK__ENGINE_KERNELS(simd4, FK__NO_TARGET, 4)

#if defined(FK__SIMD_AVX2)
FK__SKIN_KERNELS(avx2, FK__AVX2_TARGET, 8)
FK__FORWARD_KERNEL(avx2, FK__AVX2_NO_FMA_TARGET, 8)
FK__ENGINE_KERNELS(avx2, FK__AVX2_NO_FMA_TARGET, 8)
#endif

/* The tier this processor runs best: on x86-64 AVX2 with FMA where the
   processor has them (asked at run time, so that a plain -O2 build uses
   them), else SSE2; NEON on 64-bit Arm; SIMD128 in WebAssembly. */
static const fk__fast_path_table *fk__fast_paths(void)
{
#if defined(FK__SIMD_SSE2)
    static const fk__fast_path_table simd4 = {"SSE2", fk__lbs_simd4, fk__dqs_simd4, fk__dqs_scaled_simd4, fk__cor_simd4,
                                              fk__forward_simd4, fk__engine_matrices_simd4, fk__engine_rigid_simd4, NULL};
#elif defined(FK__SIMD_NEON)
    static const fk__fast_path_table simd4 = {"NEON", fk__lbs_simd4, fk__dqs_simd4, fk__dqs_scaled_simd4, fk__cor_simd4,
                                              fk__forward_simd4, fk__engine_matrices_simd4, fk__engine_rigid_simd4, NULL};
#else
    static const fk__fast_path_table simd4 = {"SIMD128", fk__lbs_simd4, fk__dqs_simd4, fk__dqs_scaled_simd4, fk__cor_simd4,
                                              fk__forward_simd4, fk__engine_matrices_simd4, fk__engine_rigid_simd4, NULL};
#endif
#if defined(FK__SIMD_AVX2)
    static const fk__fast_path_table avx2 = {"AVX2+FMA", fk__lbs_avx2, fk__dqs_avx2, fk__dqs_scaled_avx2, fk__cor_avx2,
                                            fk__forward_avx2, fk__engine_matrices_avx2, fk__engine_rigid_avx2,
                                            fk__convert_packed_avx2};
    if (fk__has_avx2_fma()) return &avx2;
#endif
    return &simd4;
}

#endif /* FK__SIMD */

static fk__forward_pass fk__fast_forward(void)
{
#if defined(FK__SIMD)
    return fk__fast_paths()->forward;
#else
    return NULL;
#endif
}

static int fk__engine_fast_matrices(const fk_skeleton *skeleton, const fk_vec3 *translations, const fk_quat *rotations,
                                    const fk_vec3 *scales, const float *inverse_bind_matrices, float *world,
                                    float *skinning)
{
#if defined(FK__SIMD)
    return fk__fast_paths()->engine_matrices(skeleton, translations, rotations, scales, inverse_bind_matrices, world,
                                             skinning);
#else
    (void)skeleton; (void)translations; (void)rotations; (void)scales; (void)inverse_bind_matrices; (void)world;
    (void)skinning;
    return 0;
#endif
}

static int fk__engine_fast_rigid(const fk_skeleton *skeleton, const fk_vec3 *translations, const fk_quat *rotations,
                                 const fk_rigid *inverse_binds, fk_rigid *world, fk_rigid *skinning)
{
#if defined(FK__SIMD)
    return fk__fast_paths()->engine_rigid(skeleton, translations, rotations, inverse_binds, world, skinning);
#else
    (void)skeleton; (void)translations; (void)rotations; (void)inverse_binds; (void)world; (void)skinning;
    return 0;
#endif
}



#if defined(FK__SIMD)
/* Vertices and influences of a block converted from glTF's formats
   (fk__convert_lists()): enough vertices to spread what a block costs besides
   them (the calls, the kernel's last group finished without overlap); larger
   blocks measured no faster (docs/performance.md). */
#define FK__CONVERT_BLOCK 96
#define FK__CONVERT_INFLUENCES 8

/* Whether the fast paths take this call: joint indices (not dense weights), no
   tangents (the rare layout), a rig that fits the palette; in glTF's formats,
   up to 8 influences. */
static int fk__fast_skin_applies(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette)
{
    return palette && !layout->dense && !d->tangents && d->transform_count >= 1 &&
           (!layout->converted || d->influences <= FK__CONVERT_INFLUENCES);
}

/* Where a run reads influences 5 on: the second stream where it is, or the
   first lists from their fifth on (with 4 or fewer, never read: the first). */
static void fk__second_lists(const fk_skin_desc *d, const fk__skin_layout *layout, int begin, fk__skin_run *run)
{
    const size_t on = d->influences > 4 && d->vertex_count > 0 ? 4 : 0, i = (size_t)begin;
    if (layout->two_streams) {
        run->joints2 = (const char *)d->joints2 + i * layout->joint2_stride;
        run->weights2 = (const char *)d->weights2 + i * layout->weight2_stride;
        run->joint2_stride = layout->joint2_stride;
        run->weight2_stride = layout->weight2_stride;
        return;
    }
    run->joints2 = run->joints + on * fk__joint_size(d);
    run->weights2 = run->weights + on * fk__weight_size(d);
    run->joint2_stride = run->joint_stride;
    run->weight2_stride = run->weight_stride;
}

/* Out of line: each method's driver would carry a copy. */
static FK__NOINLINE fk__skin_run fk__skin_run_of(const fk_skin_desc *d, const fk__skin_layout *layout,
                                                const float *palette)
{
    fk__skin_run run;
    run.positions = (const char *)d->positions;
    run.normals = (const char *)d->normals;
    run.joints = (const char *)d->joints;
    run.weights = (const char *)d->weights;
    run.out_positions = (char *)d->out_positions;
    run.out_normals = (char *)d->out_normals;
    run.position_stride = layout->position_stride;
    run.normal_stride = layout->normal_stride;
    run.joint_stride = layout->joint_stride;
    run.weight_stride = layout->weight_stride;
    fk__second_lists(d, layout, 0, &run);
    run.out_position_stride = layout->out_position_stride;
    run.out_normal_stride = layout->out_normal_stride;
    run.count = d->vertex_count;
    run.influences = d->influences;
    run.joint_limit = d->transform_count > 65536 ? 65535u : (unsigned)d->transform_count - 1u;
    run.palette = palette;
    run.hemisphere = NULL;
    run.flipped = NULL;
    run.sign_words = 0;
    run.sign_columns = 0xFFFFu;
    run.signed_bones = NULL;
    run.cofactor_normals = d->matrices != NULL;
    run.desc = d;
    run.layout = layout;
    run.begin = 0;
    return run;
}

/* Vertices per block whose joint indices are checked before a kernel runs
   over them: few enough that the block's indices are still in L1 when the
   kernel reads them, which then needs no checks of its own. */
#define FK__SKIN_BLOCK 256

/* glTF's formats (uint8_t joints, normalized integer weights) are not new
   kernels: a block of vertices at a time, joints or weights in them are
   converted into packed uint16_t and float lists on the stack (both streams
   into one list of k <= 8 a vertex), the layout the kernels read; lists
   already in that form, in one stream or two, are read where they are
   (fk__skin_run). The weights are glTF's quotients, as
   fk__unorm_weight() gives them (not c times 1 / 255, which rounds
   differently for some c: see fk__unorm_weights4()). */
typedef struct fk__lists {
    uint16_t joints[FK__CONVERT_BLOCK * FK__CONVERT_INFLUENCES];
    float weights[FK__CONVERT_BLOCK * FK__CONVERT_INFLUENCES];
} fk__lists;

static FK__ALWAYS_INLINE void fk__convert_joints(const char *p, fk_joint_format format, int count, uint16_t *out)
{
    int e = 0;
    if (format == FK_JOINTS_U16) { /* copies of a fixed size, which need no call */
        for (; e + 4 <= count; e += 4) memcpy(out + e, p + 2 * e, 4 * sizeof(uint16_t));
        for (; e < count; ++e) memcpy(out + e, p + 2 * e, sizeof(uint16_t));
        return;
    }
    for (; e + 4 <= count; e += 4) fk__u16_from_u8(p + e, out + e);
    for (; e < count; ++e) out[e] = (unsigned char)p[e];
}

/* glTF's quotients c / 255 and c / 65535 (fk__unorm_weight()) by a
   multiply-add: 1 / 255 is split as hi + lo with hi of so few bits that c hi
   is exact for every code c, so that c hi + c lo rounds once, whether or not
   the multiply-add is fused, and to the quotient (tests/test_simd.c checks
   every code). */
static FK__ALWAYS_INLINE fk__f4 fk__unorm_weights4(fk__f4 c, fk_weight_format format)
{
    const float hi = format == FK_WEIGHTS_UNORM8 ? 257.0f / 65536.0f : 1.0f / 65536.0f;
    const float lo = format == FK_WEIGHTS_UNORM8 ? (float)(1.0 / 255.0 - 257.0 / 65536.0)
                                                 : (float)(1.0 / 65535.0 - 1.0 / 65536.0);
    return fk__f4_madd(c, fk__f4_splat(hi), fk__f4_mul(c, fk__f4_splat(lo)));
}

static FK__ALWAYS_INLINE void fk__convert_weights(const char *p, fk_weight_format format, int count, float *out)
{
    int e = 0;
    uint16_t c;
    if (format == FK_WEIGHTS_FLOAT) {
        for (; e + 4 <= count; e += 4) memcpy(out + e, p + 4 * e, 4 * sizeof(float));
        for (; e < count; ++e) memcpy(out + e, p + 4 * e, sizeof(float));
        return;
    }
    for (; e + 4 <= count; e += 4)
        fk__f4_store(out + e, fk__unorm_weights4(format == FK_WEIGHTS_UNORM8 ? fk__f4_from_u8(p + e)
                                                                             : fk__f4_from_u16(p + 2 * e), format));
    for (; e < count; ++e) {
        if (format == FK_WEIGHTS_UNORM8) c = (unsigned char)p[e];
        else memcpy(&c, p + 2 * e, sizeof c);
        out[e] = fk__unorm_weight(c, format);
    }
}

/* Lists of count vertices, elements a vertex, from a stream into the packed
   lists k apart; joints or weights NULL where they stay as they are. Lists
   of 4 (glTF's) have a loop for each format, with nothing tested inside it;
   other counts one loop, whose tests of the formats are predicted. */
static FK__NOINLINE FK__CLANG_SMALL void fk__convert_stream(const fk_skin_desc *d, const char *joints, size_t joint_stride,
                                                      const char *weights, size_t weight_stride, int count,
                                                      int elements, uint16_t *out_joints, float *out_weights,
                                                      size_t (*packed)(const char *, fk_joint_format, const char *,
                                                                       fk_weight_format, size_t, uint16_t *, float *))
{
    const size_t k = (size_t)d->influences, joint_size = fk__joint_size(d), weight_size = fk__weight_size(d);
    size_t v, n = (size_t)count, done;
    if (packed && elements == d->influences && (!joints || joint_stride == k * joint_size) &&
        (!weights || weight_stride == k * weight_size)) { /* one list of count k; its last few below */
        done = packed(joints, d->joint_format, weights, d->weight_format, n * k, out_joints, out_weights);
        if (joints) {
            joints += done * joint_size;
            out_joints += done;
        }
        if (weights) {
            weights += done * weight_size;
            out_weights += done;
        }
        elements = (int)(n * k - done);
        n = 1;
    }
    if (elements == 4) {
        if (joints && d->joint_format == FK_JOINTS_U8)
            for (v = 0; v < n; ++v) fk__u16_from_u8(joints + v * joint_stride, out_joints + v * k);
        else if (joints)
            for (v = 0; v < n; ++v) memcpy(out_joints + v * k, joints + v * joint_stride, 4 * sizeof(uint16_t));
        if (weights && d->weight_format == FK_WEIGHTS_UNORM8)
            for (v = 0; v < n; ++v)
                fk__f4_store(out_weights + v * k, fk__unorm_weights4(fk__f4_from_u8(weights + v * weight_stride), FK_WEIGHTS_UNORM8));
        else if (weights && d->weight_format == FK_WEIGHTS_UNORM16)
            for (v = 0; v < n; ++v)
                fk__f4_store(out_weights + v * k,
                             fk__unorm_weights4(fk__f4_from_u16(weights + v * weight_stride), FK_WEIGHTS_UNORM16));
        else if (weights)
            for (v = 0; v < n; ++v) memcpy(out_weights + v * k, weights + v * weight_stride, 4 * sizeof(float));
        return;
    }
    for (v = 0; v < n; ++v) {
        if (joints) fk__convert_joints(joints + v * joint_stride, d->joint_format, elements, out_joints + v * k);
        if (weights) fk__convert_weights(weights + v * weight_stride, d->weight_format, elements, out_weights + v * k);
    }
}

/* Points the block's run at its vertices' joints and weights: where they
   are, when they are uint16_t and float (in one stream or two), else
   converted, both streams into one list of k; the block starts at vertex
   begin of the call. */
static void fk__convert_lists(const fk_skin_desc *d, const fk__skin_layout *layout, int begin, fk__skin_run *block,
                              fk__lists *lists)
{
    const int k = d->influences, first = layout->two_streams ? 4 : k;
    const size_t i = (size_t)begin, second = k > 4 ? 4 : 0;
    const int joints = d->joint_format != FK_JOINTS_U16, weights = d->weight_format != FK_WEIGHTS_FLOAT;
    block->joints = (const char *)d->joints + i * layout->joint_stride;
    block->weights = (const char *)d->weights + i * layout->weight_stride;
    block->joint_stride = layout->joint_stride;
    block->weight_stride = layout->weight_stride;
    fk__second_lists(d, layout, begin, block);
    fk__convert_stream(d, joints ? block->joints : NULL, layout->joint_stride, weights ? block->weights : NULL,
                       layout->weight_stride, block->count, first, lists->joints, lists->weights,
                       fk__fast_paths()->convert_packed);
    if (layout->two_streams)
        fk__convert_stream(d, joints ? block->joints2 : NULL, layout->joint2_stride,
                           weights ? block->weights2 : NULL, layout->weight2_stride, block->count, k - 4,
                           lists->joints + 4, lists->weights + 4, NULL);
    if (joints) {
        block->joints = (const char *)lists->joints;
        block->joints2 = (const char *)(lists->joints + second);
        block->joint_stride = block->joint2_stride = sizeof(uint16_t) * (size_t)k;
    }
    if (weights) {
        block->weights = (const char *)lists->weights;
        block->weights2 = (const char *)(lists->weights + second);
        block->weight_stride = block->weight2_stride = sizeof(float) * (size_t)k;
    }
}

/* Whether count lists of k joints, stride apart, name bones up to limit only. */
static int fk__lists_in_range(const char *joints, size_t stride, size_t k, int count, unsigned limit)
{
    size_t i, e;
    unsigned over = 0;
    if (stride != k * sizeof(uint16_t)) { /* gaps between the lists */
        for (i = 0; i < (size_t)count; ++i)
            for (e = 0; e < k; ++e) over |= ((const uint16_t *)(const void *)(joints + i * stride))[e] > limit;
        return !over;
    }
    return fk__indices_at_most((const uint16_t *)(const void *)joints, (size_t)count * k, limit);
}

/* A run's lists: k a vertex, or 4 and k - 4 in two streams. Out of line: its
   two callers would each carry a copy of the vector loop. */
static FK__NOINLINE int fk__joints_in_range(const fk__skin_run *r)
{
    const size_t k = (size_t)r->influences;
    if (k <= 4 || (r->joints2 == r->joints + 4 * sizeof(uint16_t) && r->joint2_stride == r->joint_stride))
        return fk__lists_in_range(r->joints, r->joint_stride, k, r->count, r->joint_limit);
    return fk__lists_in_range(r->joints, r->joint_stride, 4, r->count, r->joint_limit) &&
           fk__lists_in_range(r->joints2, r->joint2_stride, k - 4, r->count, r->joint_limit);
}

/* Runs a kernel block by block; a block with a bad joint index goes to the
   reference loop, which skins the vertices before the bad one and reports it. */
static FK__ALWAYS_INLINE fk_result fk__skin_blocks(const fk_skin_desc *d, const fk__skin_layout *layout,
                                                  const float *palette, const fk__skin_run *run,
                                                  void (*kernel)(const fk__skin_run *), fk__reference_skin reference,
                                                  fk__lists *lists)
{
    fk__skin_run block = *run;
    const int size = lists ? FK__CONVERT_BLOCK : FK__SKIN_BLOCK;
    int begin;
    for (begin = 0; begin < d->vertex_count; begin += size) {
        if (begin > 0) fk__skin_run_advance(&block, size); /* never past the last vertex */
        block.count = d->vertex_count - begin < size ? d->vertex_count - begin : size;
        if (lists) fk__convert_lists(d, layout, begin, &block, lists);
        if (!fk__joints_in_range(&block)) return reference(d, layout, palette, begin, d->vertex_count);
        FK__TEST_KERNEL_RAN(kernel);
        kernel(&block);
    }
    return FK_OK;
}

/* Out of line, so that only calls in glTF's formats carry the lists on their stack. */
static FK__NOINLINE fk_result fk__skin_converted(const fk_skin_desc *d, const fk__skin_layout *layout,
                                                const float *palette, const fk__skin_run *run,
                                                void (*kernel)(const fk__skin_run *), fk__reference_skin reference)
{
    fk__lists lists;
    return fk__skin_blocks(d, layout, palette, run, kernel, reference, &lists);
}

static fk_result fk__skin_fast(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette,
                               const fk__skin_run *run, void (*kernel)(const fk__skin_run *),
                               fk__reference_skin reference)
{
    if (layout->converted) return fk__skin_converted(d, layout, palette, run, kernel, reference);
    return fk__skin_blocks(d, layout, palette, run, kernel, reference, NULL);
}

static int fk__lbs_fast(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette, void *tables,
                        fk_result *result)
{
    fk__skin_run run;
    (void)tables;
    if (!fk__fast_skin_applies(d, layout, palette)) return 0;
    run = fk__skin_run_of(d, layout, palette);
    *result = fk__skin_fast(d, layout, palette, &run, fk__fast_paths()->lbs, fk__lbs_reference);
    return 1;
}

/* Where rigid DQS's kernel reads each influence's sign (the caller's arrays). */
typedef struct fk__dqs_signs {
    uint16_t hemisphere[FK__DQS_TABLE_BONES * FK__DQS_TABLE_BONES];
    uint64_t flipped[FK__DQS_TABLE_BONES];
    float signed_storage[FK__DQS_TABLE_BONES * FK__DQS_BONE_FLOATS + 16];
} fk__dqs_signs;

static void fk__dqs_signs_for(const fk_skin_desc *d, const float *palette, fk__skin_run *run, fk__dqs_signs *signs)
{
    uint16_t *hemisphere = signs->hemisphere;
    int one_influence, table, j;
    /* With one influence a vertex's pivot is its own bone, which a dot product
       with itself never flips: the bones are read as they are. Otherwise the
       table costs a dot product per pair of bones and the loop without it one
       per influence: it is built when it is the cheaper. */
    one_influence = d->influences == 1 && d->transform_count <= FK__DQS_TABLE_BONES;
    table = !one_influence && d->transform_count <= FK__DQS_TABLE_BONES &&
            d->transform_count * d->transform_count <= 2 * (double)d->vertex_count * d->influences;
    if (table) run->hemisphere = hemisphere;
    if (one_influence ||
        (table &&
         fk__dqs_hemispheres(palette, FK__DQS_PALETTE_STRIDE, d->transform_count, hemisphere, signs->flipped))) {
        float *signed_bones = fk__align64(signs->signed_storage);
        for (j = 0; j < d->transform_count; ++j)
            memcpy(signed_bones + (size_t)j * FK__DQS_BONE_FLOATS,
                   palette + (one_influence ? (size_t)j * FK__DQS_PALETTE_STRIDE : hemisphere[j]),
                   FK__DQS_BONE_FLOATS * sizeof(float));
        run->signed_bones = signed_bones;
    }
}

static int fk__dqs_fast(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette, void *tables,
                        fk_result *result)
{
    fk__dqs_signs signs;
    fk__skin_run run;
    (void)tables;
    if (!fk__fast_skin_applies(d, layout, palette)) return 0;
    run = fk__skin_run_of(d, layout, palette);
    fk__dqs_signs_for(d, palette, &run, &signs);
    *result = fk__skin_fast(d, layout, palette, &run, fk__fast_paths()->dqs, fk__dqs_reference);
    return 1;
}

/* CoR's weights are signed by DQS's sign bits of the bones' rotations where
   they fit the stack and cost less than a dot product per influence (as
   fk__dqs_signs_for() decides for its table), else by those dot products. */
static void fk__cor_signs(const fk_skin_desc *d, const float *palette, fk__skin_run *run, uint64_t *flipped)
{
    if (d->transform_count <= FK__DQS_SIGN_BONES &&
        d->transform_count * d->transform_count <= 2 * (double)d->vertex_count * d->influences) {
        run->sign_words = FK__DQS_SIGN_WORDS;
        fk__dqs_sign_bits(palette + FK__LBS_BONE_FLOATS, FK__COR_BONE_FLOATS, d->transform_count, run->sign_words,
                          run->sign_columns, NULL, flipped);
        run->flipped = flipped;
    }
}

/* DQS of bones with scale centred at the bone (Blender 3.4's Preserve Volume)
   is rigid DQS of each point and normal once the blended scale part, S / W
   with W the weights' sum, has moved them: affine LBS by the scale parts,
   then rigid DQS. CoR of bones with scale is likewise rigid CoR of p - c once
   S / W has moved it (the rigid kernel's finish then takes its points as
   those offsets: fk__cor_skin::scaled_palette). So the two kernels run in
   turn over each stretch of vertices, through buffers on the stack, each on
   a copy of its parts of the palette (in the caller's scratch memory, or on
   the stack: 13 KB with the default capacity), the points divided by W in
   between. A vertex whose W is not a positive normal float is then done
   again by the reference loop, from a copy of its point and normal kept
   before anything was written (the call may be in place). */
#define FK__AT_BONE_STRETCH 32
#define FK__AT_BONE_BONES (FK_LBS_PALETTE_CAPACITY * 16 / FK__DQS_SCALED_STRIDE)

/* The reference loop over vertex i alone, from its point and normal as kept:
   with strides of zero, vertex i's point and normal are kept[]'s. */
static void fk__in_two_vertex(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette, int i,
                              const float kept[6], fk__reference_skin reference)
{
    fk__cor_skin one; /* for CoR the whole call, whose centres its plain loop reads */
    fk__skin_layout apart = *layout;
    if (reference == fk__cor_reference) one = *(const fk__cor_skin *)(const void *)d;
    else one.desc = *d;
    one.desc.positions = kept;
    one.desc.normals = d->normals ? kept + 3 : NULL;
    apart.position_stride = apart.normal_stride = 0;
    (void)reference(&one.desc, &apart, palette, i, i + 1);
}

/* scale_parts, rigid_parts: room for the copies, 64-byte aligned; cor: the
   call is fk_skin_cor()'s, else fk_skin_dqs()'s. */
static int fk__scaled_in_two(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette,
                             float *scale_parts, float *rigid_parts, int cor, fk_result *result)
{
    float points[3 * FK__AT_BONE_STRETCH], moved_normals[3 * FK__AT_BONE_STRETCH], sums[FK__AT_BONE_STRETCH];
    float kept[6 * FK__AT_BONE_STRETCH]; /* the points and normals of vertices whose W is not usable */
    fk__lists lists;
    const fk__fast_path_table *fast = fk__fast_paths();
    const fk__reference_skin reference = cor ? fk__cor_reference : fk__dqs_scaled_reference;
    const size_t stride = cor ? FK__COR_SCALED_FLOATS : FK__DQS_SCALED_STRIDE;
    const size_t rigid_floats = cor ? FK__COR_BONE_FLOATS : FK__DQS_PALETTE_STRIDE;
    /* DQS's scale part is a whole LBS bone (centred at the bone); CoR's is its
       linear columns alone, the translation left zero: it moves p - c */
    const size_t scale_at = cor ? FK__COR_BONE_FLOATS : FK__DQS_SCALE_AT, scale_floats = cor ? 12 : 16;
    fk__cor_skin turned; /* CoR: the call as its rigid kernel sees it */
    union {
        fk__dqs_signs dqs;
        uint64_t cor[FK__DQS_SIGN_BONES * FK__DQS_SIGN_WORDS];
    } signs;
    fk__skin_run scaling, rotating; /* the two kernels' runs over the stretch at hand */
    const int *named = layout->named_bones;
    int l, j, begin, i, e;
    for (l = 0; l < (named ? named[0] : d->transform_count); ++l) {
        j = named ? named[1 + l] : l;
        memset(scale_parts + (size_t)j * FK__LBS_BONE_FLOATS, 0, FK__LBS_BONE_FLOATS * sizeof(float));
        memcpy(scale_parts + (size_t)j * FK__LBS_BONE_FLOATS, palette + (size_t)j * stride + scale_at,
               scale_floats * sizeof(float));
        memcpy(rigid_parts + (size_t)j * rigid_floats, palette + (size_t)j * stride, rigid_floats * sizeof(float));
    }
    rotating = fk__skin_run_of(d, layout, rigid_parts);
    if (cor) {
        turned = *(const fk__cor_skin *)(const void *)d;
        turned.scaled_palette = palette;
        rotating.desc = &turned.desc;
        fk__cor_signs(d, rigid_parts, &rotating, signs.cor);
    } else {
        fk__dqs_signs_for(d, rigid_parts, &rotating, &signs.dqs);
    }
    scaling = rotating;
    scaling.palette = scale_parts;
    scaling.out_position_stride = scaling.out_normal_stride = 3 * sizeof(float);
    rotating.position_stride = rotating.normal_stride = 3 * sizeof(float);
    for (begin = 0; begin < d->vertex_count; begin += scaling.count) {
        if (begin > 0) { /* on to this stretch: never past the last vertex */
            fk__skin_run_advance(&scaling, scaling.count);
            fk__skin_run_advance(&rotating, rotating.count);
        }
        scaling.count = rotating.count = d->vertex_count - begin < FK__AT_BONE_STRETCH ? d->vertex_count - begin
                                                                                        : FK__AT_BONE_STRETCH;
        /* the buffers stay put while the runs move on (fk__skin_run_advance() above) */
        scaling.out_positions = (char *)points;
        scaling.out_normals = (char *)moved_normals;
        rotating.positions = (const char *)points;
        rotating.normals = d->normals ? (const char *)moved_normals : NULL;
        if (layout->converted) {
            fk__convert_lists(d, layout, begin, &scaling, &lists);
            rotating.joints = scaling.joints; rotating.joint_stride = scaling.joint_stride;
            rotating.weights = scaling.weights; rotating.weight_stride = scaling.weight_stride;
            rotating.joints2 = scaling.joints2; rotating.joint2_stride = scaling.joint2_stride;
            rotating.weights2 = scaling.weights2; rotating.weight2_stride = scaling.weight2_stride;
        }
        if (!fk__joints_in_range(&scaling)) {
            *result = reference(d, layout, palette, begin, d->vertex_count);
            return 1;
        }
        for (i = 0; i < scaling.count; ++i) {
            const float *weights = (const float *)(const void *)(scaling.weights + (size_t)i * scaling.weight_stride);
            const float *weights2 = (const float *)(const void *)(scaling.weights2 + (size_t)i * scaling.weight2_stride);
            for (sums[i] = weights[0], e = 1; e < d->influences; ++e) sums[i] += e < 4 ? weights[e] : weights2[e - 4];
            if (sums[i] >= FLT_MIN && sums[i] <= FLT_MAX) continue;
            sums[i] = 0.0f; /* a mark: usable sums are not zero */
            memcpy(kept + 6 * i, scaling.positions + (size_t)i * scaling.position_stride, 3 * sizeof(float));
            if (d->normals)
                memcpy(kept + 6 * i + 3, scaling.normals + (size_t)i * scaling.normal_stride, 3 * sizeof(float));
        }
        if (cor) { /* the scale parts move p - c */
            const fk__cor_skin *s = &turned;
            for (i = 0; i < scaling.count; ++i) {
                const float *p = (const float *)(const void *)(scaling.positions + (size_t)i * scaling.position_stride);
                const float *c = fk__float_at(s->centers, s->center_stride, begin + i);
                for (e = 0; e < 3; ++e) points[3 * i + e] = p[e] - c[e];
            }
        }
        FK__TEST_KERNEL_RAN(fast->lbs);
        if (cor) { /* in place: the kernel reads each vertex before writing it */
            fk__skin_run offsets = scaling;
            offsets.positions = (const char *)points;
            offsets.position_stride = 3 * sizeof(float);
            fast->lbs(&offsets);
        } else {
            fast->lbs(&scaling);
        }
        for (i = 0; i < scaling.count; ++i)
            for (e = 0; sums[i] != 0.0f && e < 3; ++e) points[3 * i + e] /= sums[i];
        FK__TEST_KERNEL_RAN(cor ? fast->cor : fast->dqs);
        (cor ? fast->cor : fast->dqs)(&rotating);
        for (i = 0; i < scaling.count; ++i)
            if (sums[i] == 0.0f) fk__in_two_vertex(d, layout, palette, begin + i, kept + 6 * i, reference);
    }
    *result = FK_OK;
    return 1;
}

static FK__NOINLINE int fk__scaled_in_two_on_stack(const fk_skin_desc *d, const fk__skin_layout *layout,
                                                   const float *palette, int cor, fk_result *result)
{
    float scale_storage[FK__AT_BONE_BONES * FK__LBS_BONE_FLOATS + 16];
    float rigid_storage[FK__AT_BONE_BONES * FK__COR_BONE_FLOATS + 16];
    return fk__scaled_in_two(d, layout, palette, fk__align64(scale_storage), fk__align64(rigid_storage), cor,
                             result);
}

/* tables: the caller's scratch for the copies (the scale parts, then the
   rigid parts: fk__dqs_scaled_table_bytes(), fk__cor_table_bytes()), or NULL:
   the stack, which holds the copies of FK__AT_BONE_BONES bones. */
static int fk__scaled_in_two_with(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette,
                                  void *tables, int cor, fk_result *result)
{
    float *parts = (float *)tables;
    if (parts)
        return fk__scaled_in_two(d, layout, palette, parts,
                                 parts + fk__round64((size_t)d->transform_count, FK__LBS_BONE_FLOATS * sizeof(float)) /
                                             sizeof(float),
                                 cor, result);
    return d->transform_count <= FK__AT_BONE_BONES && fk__scaled_in_two_on_stack(d, layout, palette, cor, result);
}

/* tables: fk__dqs_scaled_table_bytes() of the caller's scratch, or NULL. */
static int fk__dqs_scaled_fast(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette,
                               void *tables, fk_result *result)
{
    uint64_t flipped[FK__DQS_SIGN_BONES * FK__DQS_SIGN_WORDS];
    fk__skin_run run;
    uint64_t *bits = tables ? (uint64_t *)tables : flipped;
    if (!fk__fast_skin_applies(d, layout, palette)) return 0;
    if (d->dqs_scale_center == FK_DQS_SCALE_AT_BONE)
        return fk__scaled_in_two_with(d, layout, palette, tables, 0, result);
    if (!tables && d->transform_count > FK__DQS_SIGN_BONES) return 0;
    run = fk__skin_run_of(d, layout, palette);
    run.sign_words = tables ? ((size_t)d->transform_count + 63) / 64 : FK__DQS_SIGN_WORDS;
    if (fk__dqs_rows_fold(layout->named_bones)) { /* named: scratch given */
        FK__TEST_ROWS_FOLDED();
        run.sign_words = FK__DQS_SIGN_WORDS;
        run.sign_columns = 64 * FK__DQS_SIGN_WORDS - 1;
    }
    fk__dqs_sign_bits(palette, FK__DQS_SCALED_STRIDE, d->transform_count, run.sign_words, run.sign_columns,
                      layout->named_bones, bits);
    run.flipped = bits;
    *result = fk__skin_fast(d, layout, palette, &run, fk__fast_paths()->dqs_scaled, fk__dqs_scaled_reference);
    return 1;
}

/* Centres of rotation; bones with scale in two steps (fk__scaled_in_two()),
   their copies of the palette in tables (fk__cor_table_bytes()) or on the
   stack. */
static int fk__cor_fast(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette, void *tables,
                        fk_result *result)
{
    uint64_t flipped[FK__DQS_SIGN_BONES * FK__DQS_SIGN_WORDS];
    fk__skin_run run;
    if (!fk__fast_skin_applies(d, layout, palette)) return 0;
    if (((const fk__cor_skin *)(const void *)d)->scaled)
        return fk__scaled_in_two_with(d, layout, palette, tables, 1, result);
    run = fk__skin_run_of(d, layout, palette);
    fk__cor_signs(d, palette, &run, flipped);
    *result = fk__skin_fast(d, layout, palette, &run, fk__fast_paths()->cor, fk__cor_reference);
    return 1;
}
#else
static int fk__lbs_fast(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette, void *tables,
                        fk_result *result)
{
    (void)d; (void)layout; (void)palette; (void)tables; (void)result;
    return 0;
}
static int fk__cor_fast(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette, void *tables,
                        fk_result *result)
{
    (void)d; (void)layout; (void)palette; (void)tables; (void)result;
    return 0;
}
static int fk__dqs_fast(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette, void *tables,
                        fk_result *result)
{
    (void)d; (void)layout; (void)palette; (void)tables; (void)result;
    return 0;
}
static int fk__dqs_scaled_fast(const fk_skin_desc *d, const fk__skin_layout *layout, const float *palette,
                               void *tables, fk_result *result)
{
    (void)d; (void)layout; (void)palette; (void)tables; (void)result;
    return 0;
}
#endif

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
