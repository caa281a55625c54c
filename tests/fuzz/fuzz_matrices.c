/* fuzz_matrices.c - libFuzzer target for the engine-data functions: fk_mat34_inverse,
   fk_bind_from_matrices and fk_pose_from_matrices, which take matrices straight
   from model files.

   The bytes become a joint count, a parent array and, per joint, an inverse bind
   matrix and a world matrix: mostly rigid ones (a rotation and a translation),
   sometimes scaled, sometimes twelve arbitrary floats (singular, huge, tiny,
   infinite, NaN). Every array is an exactly sized heap block. Invariants:
     - FK_OK means every output is finite and every rotation unit;
     - an error comes with a reason the input really has (a NULL, a bad count or
       parent, a non-finite number, or a matrix that is not rigid), and a
       non-finite input is always reported;
     - fk_mat34_inverse leaves its output alone on an error, may work in place, and
       its result times the matrix is the identity when the matrix is well
       conditioned;
     - the poses it derives go through fk_forward();
     - the inputs are never modified. */
#include "fk_lbs.h" /* declarations: the library is tests/fk_lbs_impl.c */
#include "fuzz_input.h"

#define MAX_JOINTS 16

static int mat34_finite(const float *m)
{
    int e;
    for (e = 0; e < 12; ++e)
        if (!fuzz_is_finite(m[e])) return 0;
    return 1;
}

/* A rigid matrix most of the time, so that the success paths are reached. */
static void decode_matrix(fuzz_input *in, float out[12])
{
    uint8_t mode = fuzz_byte(in);
    int e;
    if (mode < 192) {
        fk_quat q;
        fk_vec3 t;
        float s;
        /* one read per statement: argument order is unspecified in C */
        q.x = fuzz_float(in); q.y = fuzz_float(in); q.z = fuzz_float(in); q.w = fuzz_float(in);
        t.x = fuzz_float(in); t.y = fuzz_float(in); t.z = fuzz_float(in);
        s = mode < 128 ? 1.0f : fuzz_float(in);
        if (!(fk_quat_dot(q, q) > 0.0f)) q = fk_quat_identity();
        fk_mat34_from_trs(t, q, fk_vec3_make(s, s, s), out);
    } else {
        for (e = 0; e < 12; ++e) out[e] = fuzz_float(in);
    }
}

static void check_inverse(const float *m)
{
    float out[12], in_place[12], poison[12];
    fk_result r;
    int e;
    for (e = 0; e < 12; ++e) poison[e] = (float)e + 0.5f;
    memcpy(out, poison, sizeof out);
    r = fk_mat34_inverse(m, out);
    memcpy(in_place, m, sizeof in_place);
    FUZZ_REQUIRE(fk_mat34_inverse(in_place, in_place) == r, "in place gave another result");
    if (!mat34_finite(m)) FUZZ_REQUIRE(r == FK_ERROR_NOT_FINITE, "a non-finite matrix was inverted: %d", (int)r);
    FUZZ_REQUIRE(r == FK_OK || r == FK_ERROR_NOT_FINITE || r == FK_ERROR_NOT_RIGID, "result %d", (int)r);
    if (r != FK_OK) {
        FUZZ_REQUIRE(memcmp(out, poison, sizeof out) == 0, "output written on error %d", (int)r);
        return;
    }
    FUZZ_REQUIRE(mat34_finite(out), "FK_OK with a non-finite inverse");
    FUZZ_REQUIRE(memcmp(out, in_place, sizeof out) == 0, "in place differs");
    { /* m out = I when m is well conditioned: |m| |m^-1| small */
        double largest_m = 0.0, largest_inverse = 0.0, worst = 0.0;
        int row, col, k;
        for (row = 0; row < 3; ++row)
            for (col = 0; col < 3; ++col) {
                largest_m = fmax(largest_m, fabs((double)m[4 * row + col]));
                largest_inverse = fmax(largest_inverse, fabs((double)out[4 * row + col]));
            }
        if (largest_m * largest_inverse < 1e3 && largest_m > 1e-30 && largest_m < 1e30) {
            for (row = 0; row < 3; ++row)
                for (col = 0; col < 3; ++col) {
                    double sum = 0.0;
                    for (k = 0; k < 3; ++k) sum += (double)m[4 * row + k] * (double)out[4 * k + col];
                    worst = fmax(worst, fabs(sum - (row == col ? 1.0 : 0.0)));
                }
            /* float rounding of the inverse, amplified by the condition number */
            FUZZ_REQUIRE(worst <= 64.0 * (double)FLT_EPSILON * largest_m * largest_inverse, "m m^-1 off by %g", worst);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in;
    int n, i, any_bad_number = 0;
    uint8_t flags;
    int *parents;
    float *inverse_binds, *worlds, pretransform[12], given_pretransform[12];
    fk_vec3 *rest, *translations;
    fk_quat *rotations;
    void *copies[3];
    fk_result bind, pose;
    in.data = data; in.size = size; in.used = 0;
    flags = fuzz_byte(&in);
    n = fuzz_int(&in, MAX_JOINTS + 1, 0);
    if (n > MAX_JOINTS) return 0;
    if (n < 0) {
        float m[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
        int parent = -1;
        fk_vec3 x = {0.0f, 0.0f, 0.0f};
        fk_quat q;
        FUZZ_REQUIRE(fk_bind_from_matrices(n, m, m, &x, pretransform) == FK_ERROR_INVALID_COUNT, "negative count");
        FUZZ_REQUIRE(fk_pose_from_matrices(n, &parent, m, m, m, &x, &q, &x) == FK_ERROR_INVALID_COUNT, "negative count");
        return 0;
    }
    parents = (int *)fuzz_alloc((size_t)n * sizeof *parents);
    inverse_binds = (float *)fuzz_alloc((size_t)n * 12 * sizeof(float));
    worlds = (float *)fuzz_alloc((size_t)n * 12 * sizeof(float));
    rest = (fk_vec3 *)fuzz_alloc((size_t)n * sizeof *rest);
    rotations = (fk_quat *)fuzz_alloc((size_t)n * sizeof *rotations);
    translations = (fk_vec3 *)fuzz_alloc((size_t)n * sizeof *translations);
    for (i = 0; i < n; ++i) {
        uint8_t b = fuzz_byte(&in);
        parents[i] = b < 224 ? (int)(b % (unsigned)(n + 1)) - 1 : b < 240 ? i : fuzz_int(&in, n + 2, -1);
    }
    for (i = 0; i < n; ++i) {
        decode_matrix(&in, inverse_binds + 12 * i);
        decode_matrix(&in, worlds + 12 * i);
        if (!mat34_finite(inverse_binds + 12 * i) || !mat34_finite(worlds + 12 * i)) any_bad_number = 1;
        check_inverse(inverse_binds + 12 * i);
        check_inverse(worlds + 12 * i);
    }
    copies[0] = fuzz_alloc((size_t)n * sizeof *parents); memcpy(copies[0], parents, (size_t)n * sizeof *parents);
    copies[1] = fuzz_alloc((size_t)n * 12 * sizeof(float)); memcpy(copies[1], inverse_binds, (size_t)n * 12 * sizeof(float));
    copies[2] = fuzz_alloc((size_t)n * 12 * sizeof(float)); memcpy(copies[2], worlds, (size_t)n * 12 * sizeof(float));

    bind = fk_bind_from_matrices(n, inverse_binds, worlds, rest, pretransform);
    if (any_bad_number) FUZZ_REQUIRE(bind != FK_OK, "bind accepted a non-finite matrix"); /* or an earlier error */
    FUZZ_REQUIRE(bind == FK_OK || bind == FK_ERROR_NOT_FINITE || bind == FK_ERROR_NOT_RIGID, "bind: %d", (int)bind);
    if (bind == FK_OK) {
        FUZZ_REQUIRE(mat34_finite(pretransform), "bind: FK_OK with a non-finite pre-transform");
        for (i = 0; i < n; ++i)
            FUZZ_REQUIRE(fuzz_is_finite(rest[i].x) && fuzz_is_finite(rest[i].y) && fuzz_is_finite(rest[i].z),
                         "bind: FK_OK with rest joint %d not finite", i);
    }
    if (bind != FK_OK || (flags & 1)) { /* a pre-transform and rest joints from the bytes instead */
        decode_matrix(&in, given_pretransform);
        memcpy(pretransform, given_pretransform, sizeof pretransform);
        for (i = 0; i < n; ++i) { rest[i].x = fuzz_float(&in); rest[i].y = fuzz_float(&in); rest[i].z = fuzz_float(&in); }
    }
    pose = fk_pose_from_matrices(n, parents, inverse_binds, worlds, pretransform, rest, rotations, translations);
    {
        int parent_error = 0, value_error = !mat34_finite(pretransform);
        for (i = 0; i < n; ++i) {
            if (parents[i] >= n || parents[i] == i) parent_error = 1;
            if (!fuzz_is_finite(rest[i].x) || !fuzz_is_finite(rest[i].y) || !fuzz_is_finite(rest[i].z)) value_error = 1;
        }
        if (n > 0 && (any_bad_number || value_error || parent_error)) /* no joints: nothing is read */
            FUZZ_REQUIRE(pose != FK_OK, "pose accepted bad input");
        FUZZ_REQUIRE(pose == FK_OK || pose == FK_ERROR_NOT_RIGID ||
                         pose == FK_ERROR_NOT_FINITE || /* a bad number, or a translation overflowing float */
                         ((pose == FK_ERROR_PARENT_OUT_OF_RANGE || pose == FK_ERROR_SELF_PARENT) && parent_error),
                     "pose: %d", (int)pose);
    }
    if (pose == FK_OK) {
        fk_rigid *out = (fk_rigid *)fuzz_alloc((size_t)n * sizeof *out);
        fk_result r;
        for (i = 0; i < n; ++i) {
            FUZZ_REQUIRE(fuzz_is_finite(translations[i].x) && fuzz_is_finite(translations[i].y) &&
                             fuzz_is_finite(translations[i].z),
                         "pose: FK_OK with translation %d not finite", i);
            FUZZ_REQUIRE(fabsf(fk_quat_length(rotations[i]) - 1.0f) <= 1e-6f, "pose: rotation %d not unit", i);
        }
        r = fk_forward(n, parents, rest, rotations, translations, out);
        FUZZ_REQUIRE(r == FK_OK || r == FK_ERROR_CYCLE || r == FK_ERROR_NOT_FINITE, "forward of a derived pose: %d",
                     (int)r);
        free(out);
    }
    FUZZ_REQUIRE(memcmp(copies[0], parents, (size_t)n * sizeof *parents) == 0, "parents modified");
    FUZZ_REQUIRE(memcmp(copies[1], inverse_binds, (size_t)n * 12 * sizeof(float)) == 0, "inverse binds modified");
    FUZZ_REQUIRE(memcmp(copies[2], worlds, (size_t)n * 12 * sizeof(float)) == 0, "world matrices modified");
    for (i = 0; i < 3; ++i) free(copies[i]);
    free(parents); free(inverse_binds); free(worlds); free(rest); free(rotations); free(translations);
    return 0;
}
