/* skin_dqs.vert - dual quaternion skinning as fk_skin_dqs() computes it.

   Each vertex blends its bones' unit dual quaternions (the palette of
   fk_palette_dual_quats()), each signed into the hemisphere of the vertex's
   heaviest influence, normalizes the blend and applies it: the position
   rotates and moves, the normal and the tangent's x y z rotate (the tangent
   renormalized), and the tangent's w (handedness) passes through untouched.

   Bones with scale (the palette of fk_palette_dual_quats_scaled(): a dual
   quaternion and a scale part S_k per bone): define FK_DQS_SCALE_AT_VERTEX
   or FK_DQS_SCALE_AT_BONE, as fk_skin_desc::dqs_scale_center says. The scale
   parts blend linearly, S = sum_k w_k S_k / sum_k w_k; normals go through
   S's cofactors, renormalized, and tangents through S's linear part, before
   the rotation. At the vertex, p stays where it is and each influence's dual
   part carries the displacement its own scale part gives p, u_k = S_k p - p,
   as q_k (u_k, 0) / 2; at the bone, p moves to S p first.
   docs/skinning.md has the derivation.

   No #version line: prepend "#version 330 core" (desktop GL 3.3), or
   "#version 300 es" and "precision highp float; precision highp int;"
   (GLSL ES 3.00, WebGL2), then any #defines. docs/gpu.md has the layout
   and the options: FK_MAX_BONES (default 64, with scale 48), FK_INFLUENCES
   (4 or 8) and FK_MAX_UNIFORM_VECTORS (default 256, the vec4 GL 3.3 and
   GLES 3.0 promise a vertex shader; a palette that would not fit stops the
   compile). */

#if defined(FK_DQS_SCALE_AT_VERTEX) || defined(FK_DQS_SCALE_AT_BONE)
#define FK_DQS_SCALED
#define FK_PALETTE_VECTORS 5 /* vec4 a bone: dual quaternion 2, scale part 3 */
#else
#define FK_PALETTE_VECTORS 2
#endif
#ifndef FK_MAX_BONES
#ifdef FK_DQS_SCALED
#define FK_MAX_BONES 48
#else
#define FK_MAX_BONES 64
#endif
#endif
#ifndef FK_INFLUENCES
#define FK_INFLUENCES 4
#endif
#ifndef FK_MAX_UNIFORM_VECTORS
#define FK_MAX_UNIFORM_VECTORS 256
#endif
/* Stop here rather than leave it to the driver, which may accept a palette
   that another driver refuses: the palette and fk_view_projection (4 vec4)
   must fit the budget. */
#if FK_PALETTE_VECTORS * FK_MAX_BONES + 4 > FK_MAX_UNIFORM_VECTORS
#error FK_MAX_BONES too large: its palette does not fit FK_MAX_UNIFORM_VECTORS vec4
#endif
#if FK_INFLUENCES != 4 && FK_INFLUENCES != 8
#error FK_INFLUENCES must be 4 or 8
#endif

layout(location = 0) in vec3 fk_position;
layout(location = 1) in vec3 fk_normal;
layout(location = 2) in vec4 fk_tangent;  /* x y z, w = +-1 the handedness */
layout(location = 3) in uvec4 fk_joints;  /* four bones (uint16 through glVertexAttribIPointer) */
layout(location = 4) in vec4 fk_weights;  /* their weights; their scale does not matter */
#if FK_INFLUENCES == 8 /* four more, as glTF's JOINTS_1 and WEIGHTS_1 */
layout(location = 5) in uvec4 fk_joints_1;
layout(location = 6) in vec4 fk_weights_1;
#endif

uniform vec4 fk_dual_quats[2 * FK_MAX_BONES]; /* per bone: real x y z w, dual x y z w */
#ifdef FK_DQS_SCALED
uniform vec4 fk_scale_parts[3 * FK_MAX_BONES]; /* three rows of a 3x4 row-major matrix per bone */
#endif
uniform mat4 fk_view_projection;

out vec3 fk_skinned_position;
out vec3 fk_skinned_normal;
out vec4 fk_skinned_tangent;

/* q v q* for a unit q, as fk_quat_rotate() computes it */
vec3 fk_rotate(vec4 q, vec3 v)
{
    vec3 s = 2.0 * cross(q.xyz, v);
    return v + q.w * s + cross(q.xyz, s);
}

/* v made unit, or zero where v is: a vertex whose weights are all zero, or
   a normal its blend collapses, gets zero as on the CPU (fk_vec3_normalize()),
   where normalize() gives NaN. */
vec3 fk_unit(vec3 v)
{
    return dot(v, v) > 0.0 ? normalize(v) : vec3(0.0);
}

/* A normal moved by the linear part with columns a, b, c: through its
   cofactors, det(A) A^-T, times the sign of det(A), then renormalized, so
   that it stays perpendicular to the moved surface under non-uniform scale
   and outside under a mirror. A determinant within rounding of zero flips
   nothing (the CPU's threshold, 16 float epsilons of the largest volume a,
   b, c span), so that a flattened surface's normal does not flip with the
   rounding of its blend. */
vec3 fk_cofactor_normal(vec3 a, vec3 b, vec3 c, vec3 n)
{
    vec3 bc = cross(b, c), moved = mat3(bc, cross(c, a), cross(a, b)) * n;
    vec3 size = vec3(dot(abs(a), vec3(1.0)), dot(abs(b), vec3(1.0)), dot(abs(c), vec3(1.0)));
    if (dot(a, bc) < -16.0 * 1.1920929e-7 * size.x * size.y * size.z) moved = -moved;
    return fk_unit(moved);
}

void main()
{
    /* the influences as one list: influence k is component k % 4 of set k / 4 */
    uvec4 joints[FK_INFLUENCES / 4];
    vec4 weights[FK_INFLUENCES / 4];
    joints[0] = fk_joints; weights[0] = fk_weights;
#if FK_INFLUENCES == 8
    joints[1] = fk_joints_1; weights[1] = fk_weights_1;
#endif
    vec3 p = fk_position, n = fk_normal, t = fk_tangent.xyz;
    vec4 real = vec4(0.0), dual = vec4(0.0);
    /* q and -q are one rotation but blend differently: every influence joins
       the hemisphere of the heaviest (the first of equals, as on the CPU), so
       that the result does not depend on the palette's signs or on the order
       in which the influences are listed */
    int heaviest = 0;
    for (int k = 1; k < FK_INFLUENCES; ++k)
        if (weights[k / 4][k % 4] > weights[heaviest / 4][heaviest % 4]) heaviest = k;
    vec4 pivot = fk_dual_quats[2 * int(joints[heaviest / 4][heaviest % 4])];
#ifdef FK_DQS_SCALED
    vec4 scale[3] = vec4[3](vec4(0.0), vec4(0.0), vec4(0.0));
    float total = 0.0;
#endif
    for (int k = 0; k < FK_INFLUENCES; ++k) {
        int bone = int(joints[k / 4][k % 4]);
        float weight = weights[k / 4][k % 4];
        vec4 q = fk_dual_quats[2 * bone], d = fk_dual_quats[2 * bone + 1];
        float w = dot(pivot, q) < 0.0 ? -weight : weight;
#ifdef FK_DQS_SCALED
        for (int r = 0; r < 3; ++r) scale[r] += weight * fk_scale_parts[3 * bone + r];
        total += weight;
#endif
#ifdef FK_DQS_SCALE_AT_VERTEX
        vec4 h = vec4(p, 1.0);
        vec3 u = vec3(dot(fk_scale_parts[3 * bone], h), dot(fk_scale_parts[3 * bone + 1], h),
                      dot(fk_scale_parts[3 * bone + 2], h)) - p;
        d += 0.5 * vec4(q.w * u + cross(q.xyz, u), -dot(q.xyz, u)); /* q (u, 0) / 2 */
#endif
        real += w * q;
        dual += w * d;
    }
#ifdef FK_DQS_SCALED
    if (total > 0.0) { /* else every weight is zero, and the vertex stays at rest */
        for (int r = 0; r < 3; ++r) scale[r] /= total;
        vec3 a = vec3(scale[0].x, scale[1].x, scale[2].x);
        vec3 b = vec3(scale[0].y, scale[1].y, scale[2].y);
        vec3 c = vec3(scale[0].z, scale[1].z, scale[2].z);
        n = fk_cofactor_normal(a, b, c, n);
        t = mat3(a, b, c) * t;
#ifdef FK_DQS_SCALE_AT_BONE
        vec4 h = vec4(p, 1.0);
        p = vec3(dot(scale[0], h), dot(scale[1], h), dot(scale[2], h));
#endif
    }
#endif
    /* dividing both parts by |real| makes the rotation unit; the translation
       formula reads only the dual part's component orthogonal to it. Weights
       all zero blend to zero, and leave the vertex at rest, as on the CPU. */
    float norm2 = dot(real, real);
    vec3 translation = vec3(0.0);
    if (norm2 > 0.0) {
        float inverse = inversesqrt(norm2);
        real *= inverse;
        dual *= inverse;
        translation = 2.0 * (real.w * dual.xyz - dual.w * real.xyz + cross(real.xyz, dual.xyz));
    } else {
        real = vec4(0.0, 0.0, 0.0, 1.0);
    }
    fk_skinned_position = fk_rotate(real, p) + translation;
    fk_skinned_normal = fk_rotate(real, n);
    fk_skinned_tangent = vec4(fk_unit(fk_rotate(real, t)), fk_tangent.w);
    gl_Position = fk_view_projection * vec4(fk_skinned_position, 1.0);
}
