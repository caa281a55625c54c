/* fuzz_fk.c - libFuzzer target for fk_forward, fk_forward_rest_frame,
   fk_forward_scaled, fk_forward_trs, fk_validate_skeleton, fk_skeleton_init
   and the engine-form calls over it.

   The bytes become a joint count, a parent array (roots, forward and backward
   references, self-parents, cycles, out-of-range and huge indices), rest positions,
   rotations, translations and scales (ordinary values mostly; zero, denormal,
   huge, infinite and NaN ones sometimes). Every array is an exactly sized heap block.
   Invariants checked on every input:
     - the result agrees with fk_validate_skeleton() about the parent array, and a
       value error is reported exactly when a value is bad (zero, non-finite or
       overflowing);
     - on FK_OK every output is finite, every rotation is unit, and every transform
       matches a double-precision reference within a rounding bound;
     - on an error every output is the identity;
     - the inputs are never modified. */
#include "fk_lbs.h" /* declarations: the library is tests/fk_lbs_impl.c */
#include "fuzz_input.h"

#define MAX_JOINTS 4096     /* larger rigs would be default joints past max_len bytes, and slow */
#define MAX_REFERENCE 1024  /* the reference is O(n * depth) */

/* A parent index: mostly a valid one, sometimes an interesting bad one. */
static int decode_parent(fuzz_input *in, int joint, int joint_count)
{
    uint8_t b = fuzz_byte(in);
    if (b < 192) return (int)(b % (unsigned)(joint_count + 1)) - 1;   /* -1 .. n-1 */
    if (b < 216) return joint - 1 - (b - 192) % 4;                    /* a chain, parents first */
    if (b < 240) return joint + 1 + (b - 216) % 4;                    /* parent listed later */
    switch (b - 240) {
    case 0: return joint;                                             /* self */
    case 1: return joint_count;                                       /* one past the end */
    case 2: return INT_MAX;
    case 3: return INT_MIN;
    case 4: return -2;
    default: return (int)fuzz_u32(in);
    }
}

static fk_vec3 decode_vec3(fuzz_input *in)
{
    fk_vec3 v;
    v.x = fuzz_float(in); v.y = fuzz_float(in); v.z = fuzz_float(in);
    return v;
}

static fk_quat decode_quat(fuzz_input *in)
{
    fk_quat q;
    if (fuzz_exhausted(in)) return fk_quat_identity();
    q.x = fuzz_float(in); q.y = fuzz_float(in); q.z = fuzz_float(in); q.w = fuzz_float(in);
    return q;
}

static int vec3_finite(fk_vec3 v) { return fuzz_is_finite(v.x) && fuzz_is_finite(v.y) && fuzz_is_finite(v.z); }

/* ---- A double-precision reference, written from the formulas in the header's
   manual, not from its implementation. */
typedef struct { double q[4], t[3]; } ref_rigid;

static void ref_quat_mul(const double a[4], const double b[4], double out[4])
{
    out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

static void ref_rotate(const double q[4], const double v[3], double out[3])
{
    double p[4] = {v[0], v[1], v[2], 0.0}, c[4] = {-q[0], -q[1], -q[2], q[3]}, tmp[4], r[4];
    ref_quat_mul(q, p, tmp);
    ref_quat_mul(tmp, c, r);
    out[0] = r[0]; out[1] = r[1]; out[2] = r[2];
}

static double ref_joint_scale(fk_vec3 x, const fk_vec3 *d)
{
    double s = 2.0 * (fabs((double)x.x) + fabs((double)x.y) + fabs((double)x.z));
    if (d) s += fabs((double)d->x) + fabs((double)d->y) + fabs((double)d->z);
    return s;
}

/* Reference transforms plus, per joint, its depth and the sum of the magnitudes
   that went into its translation (for the rounding bound). */
static void reference_forward(int n, const int *parents, const fk_vec3 *x, const fk_quat *q, const fk_vec3 *d,
                              int rest_frame, ref_rigid *out, int *depth, double *scale)
{
    unsigned char *done = (unsigned char *)fuzz_alloc((size_t)n);
    int remaining = n, i;
    memset(done, 0, (size_t)n);
    while (remaining > 0) {
        for (i = 0; i < n; ++i) {
            int p = parents[i] < 0 ? -1 : parents[i];
            double qi[4], len, xi[3], pivot[3], rx[3], rp[3];
            if (done[i] || (p >= 0 && !done[p])) continue;
            qi[0] = (double)q[i].x; qi[1] = (double)q[i].y; qi[2] = (double)q[i].z; qi[3] = (double)q[i].w;
            len = sqrt(qi[0] * qi[0] + qi[1] * qi[1] + qi[2] * qi[2] + qi[3] * qi[3]);
            qi[0] /= len; qi[1] /= len; qi[2] /= len; qi[3] /= len;
            xi[0] = (double)x[i].x; xi[1] = (double)x[i].y; xi[2] = (double)x[i].z;
            pivot[0] = xi[0] + (d ? (double)d[i].x : 0.0);
            pivot[1] = xi[1] + (d ? (double)d[i].y : 0.0);
            pivot[2] = xi[2] + (d ? (double)d[i].z : 0.0);
            if (p < 0) {
                memcpy(out[i].q, qi, sizeof qi);
                ref_rotate(out[i].q, xi, rx);
                out[i].t[0] = pivot[0] - rx[0]; out[i].t[1] = pivot[1] - rx[1]; out[i].t[2] = pivot[2] - rx[2];
                depth[i] = 0;
                scale[i] = ref_joint_scale(x[i], d ? &d[i] : NULL);
            } else {
                if (rest_frame) ref_quat_mul(qi, out[p].q, out[i].q);
                else ref_quat_mul(out[p].q, qi, out[i].q);
                ref_rotate(out[p].q, pivot, rp);
                ref_rotate(out[i].q, xi, rx);
                out[i].t[0] = out[p].t[0] + rp[0] - rx[0];
                out[i].t[1] = out[p].t[1] + rp[1] - rx[1];
                out[i].t[2] = out[p].t[2] + rp[2] - rx[2];
                depth[i] = depth[p] + 1;
                scale[i] = scale[p] + ref_joint_scale(x[i], d ? &d[i] : NULL);
            }
            done[i] = 1;
            --remaining;
        }
    }
    free(done);
}

static int is_identity(fk_rigid r)
{
    return r.q.x == 0.0f && r.q.y == 0.0f && r.q.z == 0.0f && r.q.w == 1.0f && r.t.x == 0.0f && r.t.y == 0.0f &&
           r.t.z == 0.0f;
}

static void check_forward(int n, const int *parents, const fk_vec3 *rest, const fk_quat *rotations,
                          const fk_vec3 *translations, int rest_frame, fk_result skeleton)
{
    size_t out_bytes = (size_t)n * sizeof(fk_rigid);
    fk_rigid *out = (fk_rigid *)fuzz_alloc(out_bytes);
    fk_result r = rest_frame ? fk_forward_rest_frame(n, parents, rest, rotations, translations, out)
                             : fk_forward(n, parents, rest, rotations, translations, out);
    int i, bad_value = 0, edge_value = 0;
    for (i = 0; i < n; ++i) {
        int badness = fuzz_rotation_badness(rotations[i].x, rotations[i].y, rotations[i].z, rotations[i].w);
        if (badness == 1 || !vec3_finite(rest[i]) || (translations && !vec3_finite(translations[i]))) bad_value = 1;
        if (badness == 2) edge_value = 1;
    }
    if (skeleton == FK_ERROR_PARENT_OUT_OF_RANGE || skeleton == FK_ERROR_SELF_PARENT) {
        FUZZ_REQUIRE(r == skeleton, "forward %d, validate %d", (int)r, (int)skeleton);
    } else if (r == FK_ERROR_INVALID_ROTATION || r == FK_ERROR_NOT_FINITE) {
        /* A value error needs a bad value, or finite values whose result overflows
           (checked against the reference below when the skeleton is sound). */
        FUZZ_REQUIRE(bad_value || edge_value || (r == FK_ERROR_NOT_FINITE && skeleton == FK_OK),
                     "value error %d without a bad value", (int)r);
    } else {
        FUZZ_REQUIRE(r == skeleton, "forward %d, validate %d", (int)r, (int)skeleton);
        FUZZ_REQUIRE(!bad_value, "bad value accepted, result %d", (int)r);
    }
    if (r != FK_OK) {
        for (i = 0; i < n; ++i) FUZZ_REQUIRE(is_identity(out[i]), "joint %d is not the identity after error %d", i, (int)r);
    } else {
        for (i = 0; i < n; ++i) {
            fk_quat q = out[i].q;
            FUZZ_REQUIRE(fuzz_is_finite(q.x) && fuzz_is_finite(q.y) && fuzz_is_finite(q.z) && fuzz_is_finite(q.w),
                         "joint %d rotation not finite", i);
            FUZZ_REQUIRE(vec3_finite(out[i].t), "joint %d translation not finite", i);
            FUZZ_REQUIRE(fabsf(fk_quat_length(q) - 1.0f) <= 1e-6f, "joint %d rotation length %g", i,
                         (double)fk_quat_length(q));
        }
    }
    if (skeleton == FK_OK && n <= MAX_REFERENCE && !bad_value && !edge_value) {
        ref_rigid *ref = (ref_rigid *)fuzz_alloc((size_t)n * sizeof *ref);
        int *depth = (int *)fuzz_alloc((size_t)n * sizeof *depth);
        double *scale = (double *)fuzz_alloc((size_t)n * sizeof *scale);
        double largest = 0.0;
        reference_forward(n, parents, rest, rotations, translations, rest_frame, ref, depth, scale);
        for (i = 0; i < n; ++i) if (scale[i] > largest) largest = scale[i];
        if (r == FK_OK) {
            for (i = 0; i < n; ++i) {
                /* Each level adds a few roundings of numbers no larger than the
                   magnitudes summed into scale[i]. */
                double bound = 32.0 * (double)FLT_EPSILON * (depth[i] + 1) * (scale[i] + 1.0);
                double qbound = 16.0 * (double)FLT_EPSILON * (depth[i] + 1);
                double dq_minus = 0.0, dq_plus = 0.0;
                const float *fq = &out[i].q.x;
                int c;
                for (c = 0; c < 4; ++c) {
                    dq_minus += ((double)fq[c] - ref[i].q[c]) * ((double)fq[c] - ref[i].q[c]);
                    dq_plus += ((double)fq[c] + ref[i].q[c]) * ((double)fq[c] + ref[i].q[c]);
                }
                FUZZ_REQUIRE(sqrt(dq_minus < dq_plus ? dq_minus : dq_plus) <= qbound, "joint %d rotation off by %g",
                             i, sqrt(dq_minus < dq_plus ? dq_minus : dq_plus));
                FUZZ_REQUIRE(fabs((double)out[i].t.x - ref[i].t[0]) <= bound && fabs((double)out[i].t.y - ref[i].t[1]) <= bound &&
                                 fabs((double)out[i].t.z - ref[i].t[2]) <= bound,
                             "joint %d translation (%g %g %g), reference (%g %g %g), bound %g", i,
                             (double)out[i].t.x, (double)out[i].t.y, (double)out[i].t.z, ref[i].t[0], ref[i].t[1],
                             ref[i].t[2], bound);
            }
        } else {
            /* Only overflow may turn good values into an error. */
            FUZZ_REQUIRE(r == FK_ERROR_NOT_FINITE && largest > 1e37, "result %d on good values (largest %g)", (int)r,
                         largest);
        }
        free(ref); free(depth); free(scale);
    }
    free(out);
}

/* fk_forward_scaled() and fk_forward_trs() on the same input, with scales
   (decoded, or NULL): the skeleton's own errors as fk_validate_skeleton()
   finds them (a cycle too), a value error only with a bad value (a scale
   among them) or an overflow, identities after any error, finite matrices
   otherwise; with scales NULL, fk_forward_scaled() is fk_forward() to
   rounding wherever fk_forward() succeeds (checked by the property tests;
   here: both succeed or fail together). */
static void check_scaled(int n, const int *parents, const fk_vec3 *rest, const fk_quat *rotations,
                         const fk_vec3 *translations, const fk_vec3 *scales, fk_result skeleton)
{
    static const float identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    float *out = (float *)fuzz_alloc((size_t)n * 12 * sizeof(float) + 1);
    int form, i;
    for (form = 0; form < 2; ++form) {
        fk_result r;
        int bad_value = 0, edge_value = 0;
        if (form == 1 && !translations) continue; /* glTF's form needs its translations */
        r = form ? fk_forward_trs(n, parents, translations, rotations, scales, out)
                 : fk_forward_scaled(n, parents, rest, rotations, translations, scales, out);
        for (i = 0; i < n; ++i) {
            int badness = fuzz_rotation_badness(rotations[i].x, rotations[i].y, rotations[i].z, rotations[i].w);
            if (badness == 1 || (form == 0 && !vec3_finite(rest[i])) || (translations && !vec3_finite(translations[i])) ||
                (scales && !vec3_finite(scales[i])))
                bad_value = 1;
            if (badness == 2) edge_value = 1;
        }
        if (skeleton == FK_ERROR_PARENT_OUT_OF_RANGE || skeleton == FK_ERROR_SELF_PARENT)
            FUZZ_REQUIRE(r == skeleton, "scaled form %d: %d, validate %d", form, (int)r, (int)skeleton);
        else if (r == FK_ERROR_INVALID_ROTATION || r == FK_ERROR_NOT_FINITE) /* or overflow */
            FUZZ_REQUIRE(bad_value || edge_value || (r == FK_ERROR_NOT_FINITE && skeleton == FK_OK),
                         "scaled form %d: value error %d without a bad value", form, (int)r);
        else
            FUZZ_REQUIRE(r == skeleton && !bad_value, "scaled form %d: %d, validate %d, bad value %d", form, (int)r,
                         (int)skeleton, bad_value);
        for (i = 0; i < n; ++i) {
            int e;
            if (r != FK_OK)
                FUZZ_REQUIRE(memcmp(out + 12 * i, identity, sizeof identity) == 0, "scaled form %d: joint %d not the "
                             "identity after error %d", form, i, (int)r);
            else
                for (e = 0; e < 12; ++e)
                    FUZZ_REQUIRE(fuzz_is_finite(out[12 * i + e]), "scaled form %d: joint %d not finite", form, i);
        }
    }
    free(out);
}

/* fk_skeleton_init() agrees with fk_validate_skeleton() and, on success,
   gives a parents-first permutation and its inverse; fk_forward_engine() and
   fk_forward_engine_rigid() over it (the translations given, or the rest
   positions as translations) report a value error only with a bad value or an
   overflow, leave identities after any error, and finite results otherwise. */
static void check_engine(int n, const int *parents, const fk_vec3 *translations, const fk_quat *rotations,
                         const fk_vec3 *scales, fk_result skeleton)
{
    static const float identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    int *storage = (int *)fuzz_alloc((size_t)FK_SKELETON_STORAGE(n) * sizeof(int) + 1);
    float *world = (float *)fuzz_alloc((size_t)n * 12 * sizeof(float) + 1);
    fk_rigid *rigid = (fk_rigid *)fuzz_alloc((size_t)n * sizeof(fk_rigid) + 1);
    fk_skeleton prepared;
    fk_result r = fk_skeleton_init(&prepared, n, parents, storage), rr;
    int i, e, bad_value = 0, edge_value = 0;
    FUZZ_REQUIRE(r == skeleton, "fk_skeleton_init %d, validate %d", (int)r, (int)skeleton);
    if (r == FK_OK) {
        for (i = 0; i < n; ++i) {
            int joint = prepared.order[i];
            FUZZ_REQUIRE(joint >= 0 && joint < n && prepared.position[joint] == i, "order[%d] = %d", i, joint);
            FUZZ_REQUIRE(parents[joint] < 0 || prepared.position[parents[joint]] < i, "joint %d before its parent", joint);
        }
        r = fk_forward_engine(&prepared, translations, rotations, scales, NULL, world, NULL);
        rr = fk_forward_engine_rigid(&prepared, translations, rotations, NULL, rigid, NULL);
        for (i = 0; i < n; ++i) {
            int badness = fuzz_rotation_badness(rotations[i].x, rotations[i].y, rotations[i].z, rotations[i].w);
            if (badness == 1 || !vec3_finite(translations[i])) bad_value = 1;
            if (badness == 2) edge_value = 1;
            if (scales && !vec3_finite(scales[i]) && r == FK_OK) FUZZ_REQUIRE(0, "scale %d not finite, accepted", i);
        }
        FUZZ_REQUIRE(r == FK_OK || r == FK_ERROR_NOT_FINITE || (r == FK_ERROR_INVALID_ROTATION && (bad_value || edge_value)),
                     "engine: %d", (int)r);
        FUZZ_REQUIRE(rr == FK_OK || rr == FK_ERROR_NOT_FINITE || (rr == FK_ERROR_INVALID_ROTATION && (bad_value || edge_value)),
                     "engine rigid: %d", (int)rr);
        FUZZ_REQUIRE(!bad_value || (r != FK_OK && rr != FK_OK), "a bad value accepted: %d %d", (int)r, (int)rr);
        for (i = 0; i < n; ++i) {
            if (r != FK_OK) FUZZ_REQUIRE(memcmp(world + 12 * i, identity, sizeof identity) == 0, "engine: joint %d", i);
            else
                for (e = 0; e < 12; ++e) FUZZ_REQUIRE(fuzz_is_finite(world[12 * i + e]), "engine: joint %d not finite", i);
            if (rr != FK_OK) FUZZ_REQUIRE(rigid[i].q.w == 1.0f && rigid[i].t.x == 0.0f, "engine rigid: joint %d", i);
            else FUZZ_REQUIRE(vec3_finite(rigid[i].t), "engine rigid: joint %d not finite", i);
        }
    }
    free(storage); free(world); free(rigid);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in;
    int n, i;
    uint8_t flags;
    int *parents;
    fk_vec3 *rest, *translations = NULL;
    fk_quat *rotations;
    void *copies[4];
    fk_result skeleton;
    in.data = data; in.size = size; in.used = 0;
    flags = fuzz_byte(&in);
    n = fuzz_int(&in, 65, 0);
    if (n < 0) {
        int dummy_parent = -1;
        fk_vec3 dummy_vec = {0.0f, 0.0f, 0.0f};
        fk_quat dummy_quat = {0.0f, 0.0f, 0.0f, 1.0f};
        fk_rigid dummy_out;
        FUZZ_REQUIRE(fk_validate_skeleton(n, &dummy_parent) == FK_ERROR_INVALID_COUNT, "negative count");
        FUZZ_REQUIRE(fk_forward(n, &dummy_parent, &dummy_vec, &dummy_quat, NULL, &dummy_out) == FK_ERROR_INVALID_COUNT,
                     "negative count");
        return 0;
    }
    if (n > MAX_JOINTS) return 0;
    parents = (int *)fuzz_alloc((size_t)n * sizeof *parents);
    rest = (fk_vec3 *)fuzz_alloc((size_t)n * sizeof *rest);
    rotations = (fk_quat *)fuzz_alloc((size_t)n * sizeof *rotations);
    for (i = 0; i < n; ++i) parents[i] = decode_parent(&in, i, n);
    for (i = 0; i < n; ++i) rest[i] = decode_vec3(&in);
    for (i = 0; i < n; ++i) rotations[i] = decode_quat(&in);
    if (flags & 1) {
        translations = (fk_vec3 *)fuzz_alloc((size_t)n * sizeof *translations);
        for (i = 0; i < n; ++i) translations[i] = decode_vec3(&in);
    }
    copies[0] = fuzz_alloc((size_t)n * sizeof *parents); memcpy(copies[0], parents, (size_t)n * sizeof *parents);
    copies[1] = fuzz_alloc((size_t)n * sizeof *rest); memcpy(copies[1], rest, (size_t)n * sizeof *rest);
    copies[2] = fuzz_alloc((size_t)n * sizeof *rotations); memcpy(copies[2], rotations, (size_t)n * sizeof *rotations);
    copies[3] = translations ? fuzz_alloc((size_t)n * sizeof *translations) : NULL;
    if (translations) memcpy(copies[3], translations, (size_t)n * sizeof *translations);

    skeleton = fk_validate_skeleton(n, parents);
    FUZZ_REQUIRE(skeleton == FK_OK || skeleton == FK_ERROR_PARENT_OUT_OF_RANGE || skeleton == FK_ERROR_SELF_PARENT ||
                     skeleton == FK_ERROR_CYCLE, "validate returned %d", (int)skeleton);
    for (i = 0; i < n; ++i) {
        if (parents[i] >= n) FUZZ_REQUIRE(skeleton != FK_OK, "parent %d of joint %d accepted", parents[i], i);
        if (parents[i] == i) FUZZ_REQUIRE(skeleton != FK_OK, "self-parent of joint %d accepted", i);
    }
    check_forward(n, parents, rest, rotations, translations, 0, skeleton);
    check_forward(n, parents, rest, rotations, translations, 1, skeleton);
    if (flags & 2) {
        fk_vec3 *scales = (fk_vec3 *)fuzz_alloc((size_t)n * sizeof *scales + 1);
        for (i = 0; i < n; ++i) scales[i] = decode_vec3(&in);
        check_scaled(n, parents, rest, rotations, translations, scales, skeleton);
        check_engine(n, parents, translations ? translations : rest, rotations, scales, skeleton);
        free(scales);
    } else {
        check_scaled(n, parents, rest, rotations, translations, NULL, skeleton);
        check_engine(n, parents, translations ? translations : rest, rotations, NULL, skeleton);
    }
    if (n > 0) { /* a missing required pointer is reported, not followed */
        fk_rigid *out = (fk_rigid *)fuzz_alloc((size_t)n * sizeof *out);
        FUZZ_REQUIRE(fk_forward(n, NULL, rest, rotations, translations, out) == FK_ERROR_NULL_ARGUMENT, "NULL parents");
        FUZZ_REQUIRE(fk_forward(n, parents, NULL, rotations, translations, out) == FK_ERROR_NULL_ARGUMENT, "NULL rest");
        FUZZ_REQUIRE(fk_forward(n, parents, rest, NULL, translations, out) == FK_ERROR_NULL_ARGUMENT, "NULL rotations");
        FUZZ_REQUIRE(fk_forward(n, parents, rest, rotations, translations, NULL) == FK_ERROR_NULL_ARGUMENT, "NULL out");
        FUZZ_REQUIRE(fk_validate_skeleton(n, NULL) == FK_ERROR_NULL_ARGUMENT, "NULL parents");
        free(out);
    }

    FUZZ_REQUIRE(memcmp(copies[0], parents, (size_t)n * sizeof *parents) == 0, "parents modified");
    FUZZ_REQUIRE(memcmp(copies[1], rest, (size_t)n * sizeof *rest) == 0, "rest joints modified");
    FUZZ_REQUIRE(memcmp(copies[2], rotations, (size_t)n * sizeof *rotations) == 0, "rotations modified");
    FUZZ_REQUIRE(!translations || memcmp(copies[3], translations, (size_t)n * sizeof *translations) == 0,
                 "translations modified");
    for (i = 0; i < 4; ++i) free(copies[i]);
    free(parents); free(rest); free(rotations); free(translations);
    return 0;
}
