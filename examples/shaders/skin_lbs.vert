/* skin_lbs.vert - linear blend skinning as fk_skin_lbs() computes it.

   Each vertex blends its bones' 3x4 matrices, M = sum_k w_k M_k, and moves
   its position by M, its normal and its tangent's x y z by M's linear part A,
   renormalized; the tangent's w (handedness) passes through untouched.
   Rigid bones (the palette of fk_palette_matrices()): the normal goes
   through A itself, exact where a part moves rigidly. Affine bones (with
   FK_LBS_AFFINE defined; the palette is fk_skin_desc::matrices as it is):
   the normal goes through A's cofactors instead (fk_cofactor_normal()).

   No #version line: prepend "#version 330 core" (desktop GL 3.3), or
   "#version 300 es" and "precision highp float; precision highp int;"
   (GLSL ES 3.00, WebGL2), then any #defines. docs/gpu.md has the layout
   and the options: FK_MAX_BONES (default 64), FK_INFLUENCES (4 or 8) and
   FK_MAX_UNIFORM_VECTORS (default 256, the vec4 GL 3.3 and GLES 3.0 promise
   a vertex shader; a palette that would not fit stops the compile). */

#ifndef FK_MAX_BONES
#define FK_MAX_BONES 64
#endif
#ifndef FK_INFLUENCES
#define FK_INFLUENCES 4
#endif
#ifndef FK_MAX_UNIFORM_VECTORS
#define FK_MAX_UNIFORM_VECTORS 256
#endif
/* Stop here rather than leave it to the driver, which may accept a palette
   that another driver refuses: the palette (3 vec4 a bone) and
   fk_view_projection (4) must fit the budget. */
#if 3 * FK_MAX_BONES + 4 > FK_MAX_UNIFORM_VECTORS
#error FK_MAX_BONES too large: its palette does not fit FK_MAX_UNIFORM_VECTORS vec4
#endif
#if FK_INFLUENCES != 4 && FK_INFLUENCES != 8
#error FK_INFLUENCES must be 4 or 8
#endif

layout(location = 0) in vec3 fk_position;
layout(location = 1) in vec3 fk_normal;
layout(location = 2) in vec4 fk_tangent;  /* x y z, w = +-1 the handedness */
layout(location = 3) in uvec4 fk_joints;  /* four bones (uint16 through glVertexAttribIPointer) */
layout(location = 4) in vec4 fk_weights;  /* their weights, used as given */
#if FK_INFLUENCES == 8 /* four more, as glTF's JOINTS_1 and WEIGHTS_1 */
layout(location = 5) in uvec4 fk_joints_1;
layout(location = 6) in vec4 fk_weights_1;
#endif

uniform vec4 fk_matrices[3 * FK_MAX_BONES]; /* three rows of a 3x4 row-major matrix per bone */
uniform mat4 fk_view_projection;

out vec3 fk_skinned_position;
out vec3 fk_skinned_normal;
out vec4 fk_skinned_tangent;

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
    vec4 rows[3] = vec4[3](vec4(0.0), vec4(0.0), vec4(0.0));
    for (int k = 0; k < FK_INFLUENCES; ++k) {
        int bone = 3 * int(joints[k / 4][k % 4]);
        for (int r = 0; r < 3; ++r) rows[r] += weights[k / 4][k % 4] * fk_matrices[bone + r];
    }
    /* A's columns, and A as a mat3 (GLSL's matrices are built from columns) */
    vec3 a = vec3(rows[0].x, rows[1].x, rows[2].x);
    vec3 b = vec3(rows[0].y, rows[1].y, rows[2].y);
    vec3 c = vec3(rows[0].z, rows[1].z, rows[2].z);
    mat3 linear = mat3(a, b, c);
    vec4 p = vec4(fk_position, 1.0);
    fk_skinned_position = vec3(dot(rows[0], p), dot(rows[1], p), dot(rows[2], p));
#ifdef FK_LBS_AFFINE
    fk_skinned_normal = fk_cofactor_normal(a, b, c, fk_normal);
#else
    fk_skinned_normal = fk_unit(linear * fk_normal);
#endif
    fk_skinned_tangent = vec4(fk_unit(linear * fk_tangent.xyz), fk_tangent.w);
    gl_Position = fk_view_projection * vec4(fk_skinned_position, 1.0);
}
