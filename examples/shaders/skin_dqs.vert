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
   (GLSL ES 3.00, WebGL2), then any #defines. docs/gpu.md has the layout. */

#ifndef FK_MAX_BONES
#define FK_MAX_BONES 64
#endif
#if defined(FK_DQS_SCALE_AT_VERTEX) || defined(FK_DQS_SCALE_AT_BONE)
#define FK_DQS_SCALED
#endif

layout(location = 0) in vec3 fk_position;
layout(location = 1) in vec3 fk_normal;
layout(location = 2) in vec4 fk_tangent;  /* x y z, w = +-1 the handedness */
layout(location = 3) in uvec4 fk_joints;  /* four bones (uint16 through glVertexAttribIPointer) */
layout(location = 4) in vec4 fk_weights;  /* their weights; their scale does not matter */

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
    vec3 p = fk_position, n = fk_normal, t = fk_tangent.xyz;
    vec4 real = vec4(0.0), dual = vec4(0.0);
    /* q and -q are one rotation but blend differently: every influence joins
       the hemisphere of the heaviest (the first of equals, as on the CPU), so
       that the result does not depend on the palette's signs or on the order
       in which the influences are listed */
    int heaviest = 0;
    for (int k = 1; k < 4; ++k)
        if (fk_weights[k] > fk_weights[heaviest]) heaviest = k;
    vec4 pivot = fk_dual_quats[2 * int(fk_joints[heaviest])];
#ifdef FK_DQS_SCALED
    vec4 scale[3] = vec4[3](vec4(0.0), vec4(0.0), vec4(0.0));
#endif
    for (int k = 0; k < 4; ++k) {
        int bone = int(fk_joints[k]);
        vec4 q = fk_dual_quats[2 * bone], d = fk_dual_quats[2 * bone + 1];
        float w = dot(pivot, q) < 0.0 ? -fk_weights[k] : fk_weights[k];
#ifdef FK_DQS_SCALED
        for (int r = 0; r < 3; ++r) scale[r] += fk_weights[k] * fk_scale_parts[3 * bone + r];
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
    float total = fk_weights.x + fk_weights.y + fk_weights.z + fk_weights.w;
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
