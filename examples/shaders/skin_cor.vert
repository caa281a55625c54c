/* skin_cor.vert - skinning with centres of rotation as fk_skin_cor() computes it.

   Each vertex turns by the blend of its bones' rotations about its centre of
   rotation p* (fk_cor_centers(), an attribute), and the centre moves as LBS
   moves it: p' = R (p - p*) + sum_k w_k M_k p*, R the rotation of the
   normalized q = sum_k +-w_k q_k, each q_k signed into the hemisphere of the
   vertex's heaviest influence. The normal and the tangent's x y z turn by R,
   renormalized; the tangent's w (handedness) passes through untouched.

   The palette is DQS's (fk_palette_dual_quats()): a unit dual quaternion
   carries a bone's rotation q_k and its translation, which is all M_k p*
   needs, so the shader takes 2 vec4 a bone where an LBS matrix and a rotation
   would take 4.

   Bones with scale (define FK_COR_SCALED; the palette of
   fk_palette_dual_quats_scaled(): a dual quaternion and a scale part
   [S_k | c_k] per bone, M_k = [R_k | t_k] [S_k | c_k]): M_k p* is the dual
   quaternion applied to S_k p* + c_k, and R becomes R S, S = sum_k w_k S_k /
   sum_k w_k the blended linear parts; normals go through the cofactors of
   R S, tangents through R S, as on the CPU. docs/skinning.md has the
   derivation.

   No #version line: prepend "#version 330 core" (desktop GL 3.3), or
   "#version 300 es" and "precision highp float; precision highp int;"
   (GLSL ES 3.00, WebGL2), then any #defines. docs/gpu.md has the layout
   and the options: FK_MAX_BONES (default 64, with scale 48), FK_INFLUENCES
   (4 or 8) and FK_MAX_UNIFORM_VECTORS (default 256, the vec4 GL 3.3 and
   GLES 3.0 promise a vertex shader; a palette that would not fit stops the
   compile). */

#ifdef FK_COR_SCALED
#define FK_PALETTE_VECTORS 5 /* vec4 a bone: dual quaternion 2, scale part 3 */
#else
#define FK_PALETTE_VECTORS 2
#endif
#ifndef FK_MAX_BONES
#ifdef FK_COR_SCALED
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
layout(location = 4) in vec4 fk_weights;  /* their weights, used as given for the centre's move */
#if FK_INFLUENCES == 8 /* four more, as glTF's JOINTS_1 and WEIGHTS_1 */
layout(location = 5) in uvec4 fk_joints_1;
layout(location = 6) in vec4 fk_weights_1;
#endif
layout(location = 7) in vec3 fk_center;   /* the vertex's centre of rotation, from fk_cor_centers() */

uniform vec4 fk_dual_quats[2 * FK_MAX_BONES]; /* per bone: real x y z w, dual x y z w */
#ifdef FK_COR_SCALED
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

/* v made unit, or zero where v is: a normal its turn collapses gets zero as on
   the CPU (fk_vec3_normalize()), where normalize() gives NaN. */
vec3 fk_unit(vec3 v)
{
    return dot(v, v) > 0.0 ? normalize(v) : vec3(0.0);
}

#ifdef FK_COR_SCALED
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
#endif

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
    vec4 q = vec4(0.0);
    vec3 moved = vec3(0.0); /* sum_k w_k M_k p* */
    /* q and -q are one rotation but blend differently: every influence joins
       the hemisphere of the heaviest (the first of equals, as on the CPU), so
       that the result does not depend on the palette's signs or on the order
       in which the influences are listed */
    int heaviest = 0;
    for (int k = 1; k < FK_INFLUENCES; ++k)
        if (weights[k / 4][k % 4] > weights[heaviest / 4][heaviest % 4]) heaviest = k;
    vec4 pivot = fk_dual_quats[2 * int(joints[heaviest / 4][heaviest % 4])];
#ifdef FK_COR_SCALED
    vec4 scale[3] = vec4[3](vec4(0.0), vec4(0.0), vec4(0.0));
    float total = 0.0;
#endif
    for (int k = 0; k < FK_INFLUENCES; ++k) {
        int bone = int(joints[k / 4][k % 4]);
        float weight = weights[k / 4][k % 4];
        vec4 r = fk_dual_quats[2 * bone], d = fk_dual_quats[2 * bone + 1];
        vec3 c = fk_center;
#ifdef FK_COR_SCALED
        vec4 h = vec4(c, 1.0);
        c = vec3(dot(fk_scale_parts[3 * bone], h), dot(fk_scale_parts[3 * bone + 1], h),
                 dot(fk_scale_parts[3 * bone + 2], h));
        for (int e = 0; e < 3; ++e) scale[e] += weight * fk_scale_parts[3 * bone + e];
        total += weight;
#endif
        /* M_k c: the rotation, then the translation 2 d r* of a unit dual quaternion */
        moved += weight * (fk_rotate(r, c) + 2.0 * (r.w * d.xyz - d.w * r.xyz + cross(r.xyz, d.xyz)));
        q += (dot(pivot, r) < 0.0 ? -weight : weight) * r;
    }
    /* Weights all zero blend to zero, and leave the vertex at rest, as on the CPU. */
    float norm2 = dot(q, q);
    if (norm2 > 0.0) {
        q *= inversesqrt(norm2);
        mat3 turn = mat3(fk_rotate(q, vec3(1.0, 0.0, 0.0)), fk_rotate(q, vec3(0.0, 1.0, 0.0)),
                         fk_rotate(q, vec3(0.0, 0.0, 1.0)));
#ifdef FK_COR_SCALED
        /* R S, S the scale parts' linear parts (rows, hence the transpose)
           blended with the weights divided by their sum, which is positive
           wherever norm2 is */
        turn = turn * (transpose(mat3(scale[0].xyz, scale[1].xyz, scale[2].xyz)) / total);
        n = fk_cofactor_normal(turn[0], turn[1], turn[2], n);
#else
        n = fk_unit(turn * n);
#endif
        p = turn * (p - fk_center) + moved;
        t = fk_unit(turn * t);
    }
    fk_skinned_position = p;
    fk_skinned_normal = n;
    fk_skinned_tangent = vec4(t, fk_tangent.w);
    gl_Position = fk_view_projection * vec4(fk_skinned_position, 1.0);
}
