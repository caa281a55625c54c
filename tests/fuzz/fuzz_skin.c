/* fuzz_skin.c - libFuzzer target for fk_skin_validate, fk_skin_lbs, fk_skin_dqs
   and fk_skin_cor.

   The bytes become a skinning descriptor: vertex, influence and transform counts
   (zero, small, around FK_LBS_PALETTE_CAPACITY, negative, huge), sparse or dense
   weights, optional normals, each of the six strides packed, padded, too small,
   misaligned or overflowing, joint indices in and out of range, weights of any
   sign and sum, rigid transforms or affine matrices (or both, an error; with
   bind poses for DQS with scale, either centre) and vertex data with special
   values, and sometimes the output written over the input, or scratch memory
   of fk_skin_scratch_size() bytes given, or influences 5 on (k = 5 or 6) given
   again as a second stream in packed arrays of their own (the first stream's
   records keep them, unread). Every buffer is an exactly sized heap block whose
   padding between records holds a sentinel. Invariants:
     - fk_skin_validate() reports an error exactly when the descriptor has one, and
       the error it names is one the descriptor has;
     - fk_skin_lbs(), fk_skin_dqs() and fk_skin_cor() (each vertex its own
       centre) return what fk_skin_validate() returns for their method;
     - nothing is written before a descriptor error, nothing past the vertex with a
       bad joint index, and never a byte between output records;
     - inputs that are not also outputs are never modified;
     - on FK_OK with moderate finite data, every output matches a double-precision
       reference within a rounding bound. */
#include "fk_lbs.h" /* declarations: the library is tests/fk_lbs_impl.c */
#include "fuzz_input.h"

#define MAX_VERTICES 64
#define MAX_INFLUENCES 64
#define MAX_TRANSFORMS 70000
#define SENTINEL 0xA5
#define MODERATE 1e15
#define DENORMAL_STEP 1.4013e-45 /* the smallest positive float */
#define SCRATCH_LIMIT (16u << 20) /* larger scratch (DQS with scale of tens of thousands of bones) is not given */

static size_t decode_stride(fuzz_input *in, size_t element, size_t alignment)
{
    uint8_t b = fuzz_byte(in);
    if (b < 128) return 0;
    if (b < 192) return element + alignment * (size_t)((b - 128) % 4);
    if (b < 208) return element > alignment ? element - alignment : element + 1; /* too small / misaligned */
    if (b < 224) return element + 1;                                            /* misaligned */
    if (b < 240) return ((size_t)-1) / 2 + 1;                                    /* overflows for 2+ vertices */
    return (size_t)fuzz_u32(in);
}

static int decode_transform_count(fuzz_input *in)
{
    uint8_t b = fuzz_byte(in);
    if (b < 200) return b % 7;
    if (b < 220) return FK_LBS_PALETTE_CAPACITY + (b - 200) % 3 - 1; /* either side of the palette */
    switch (b - 220) {
    case 0: return -1;
    case 1: return INT_MIN;
    case 2: return INT_MAX;
    case 3: return 65535;
    case 4: return 65536;
    default: return (int)fuzz_u32(in);
    }
}

static uint16_t decode_joint(fuzz_input *in, int transform_count)
{
    uint8_t b = fuzz_byte(in);
    if (b < 220) return (uint16_t)(transform_count > 0 ? (int)b % transform_count : 0);
    if (b < 240) {
        int j = transform_count + (b - 220) % 3; /* just out of range */
        return (uint16_t)(j > 65535 ? 65535 : j);
    }
    return b == 255 ? (uint16_t)65535 : (uint16_t)fuzz_u32(in);
}

/* One strided array: its layout and its bytes. */
typedef struct strided {
    size_t stride;     /* as given in the descriptor */
    size_t element;    /* bytes of one record */
    size_t effective;  /* stride with 0 resolved */
    size_t bytes;      /* exact size of the buffer, or 0 when it cannot exist */
    int fits;          /* 0 when the layout's extent overflows size_t or is absurd */
    unsigned char *data;
} strided;

static void strided_init(strided *a, size_t stride, size_t element, int count)
{
    a->stride = stride;
    a->element = element;
    a->effective = stride ? stride : element;
    a->fits = 1;
    if (count <= 0) a->bytes = 0;
    else if (a->effective > (((size_t)1 << 24) - element) / (size_t)count) { a->fits = 0; a->bytes = 0; }
    else a->bytes = (size_t)(count - 1) * a->effective + element;
    a->data = (unsigned char *)fuzz_alloc(a->bytes);
    memset(a->data, SENTINEL, a->bytes ? a->bytes : 1);
}

static void *strided_record(const strided *a, int i) { return a->data + (size_t)i * a->effective; }

/* Whether a stride breaks the rules in the header: too small, misaligned, or with
   a total extent that overflows size_t. */
static int stride_is_bad(const strided *a, size_t alignment, int count)
{
    if (a->effective < a->element || a->effective % alignment != 0) return 1;
    return count > 1 && a->effective > ((size_t)-1) / (size_t)count;
}

/* Whether the sentinel bytes outside the written records are intact, and (up to
   first_untouched) whether the records themselves may have been written. */
static int records_untouched_from(const strided *a, int from, int count)
{
    int i;
    size_t b;
    if (!a->fits) return 1;
    for (i = from; i < count; ++i) {
        const unsigned char *r = (const unsigned char *)strided_record(a, i);
        for (b = 0; b < a->element; ++b) if (r[b] != SENTINEL) return 0;
    }
    return 1;
}

static int padding_untouched(const strided *a, int count)
{
    size_t offset;
    if (!a->fits || count <= 0) return 1;
    for (offset = 0; offset < a->bytes; ++offset)
        if (offset % a->effective >= a->element && a->data[offset] != SENTINEL) return 0;
    return 1;
}

static double abs_sum3(const float *v) { return fabs((double)v[0]) + fabs((double)v[1]) + fabs((double)v[2]); }

static void quat_to_double(fk_quat q, double out[4])
{
    double n = sqrt((double)q.x * (double)q.x + (double)q.y * (double)q.y + (double)q.z * (double)q.z + (double)q.w * (double)q.w);
    out[0] = (double)q.x / n; out[1] = (double)q.y / n; out[2] = (double)q.z / n; out[3] = (double)q.w / n;
}

static void rotate_double(const double q[4], const double v[3], double out[3])
{
    /* v + 2 w (u x v) + 2 u x (u x v) */
    double c[3] = {q[1] * v[2] - q[2] * v[1], q[2] * v[0] - q[0] * v[2], q[0] * v[1] - q[1] * v[0]};
    double cc[3] = {q[1] * c[2] - q[2] * c[1], q[2] * c[0] - q[0] * c[2], q[0] * c[1] - q[1] * c[0]};
    int e;
    for (e = 0; e < 3; ++e) out[e] = v[e] + 2.0 * q[3] * c[e] + 2.0 * cc[e];
}

typedef struct skin_case {
    fk_skin_desc desc;
    int sparse, normals, alias, affine;
    int n, k, transform_count;
    fk_rigid *transforms;
    float *matrices; /* affine: the bones as 3x4 matrices, 12 floats each, instead of transforms */
    strided positions, normals_in, joints, weights, out_positions, out_normals;
    strided pristine_positions, pristine_normals; /* what aliased inputs held */
} skin_case;

static float weight_of(const skin_case *c, int i, int k) { return ((const float *)strided_record(&c->weights, i))[k]; }

static int joint_of(const skin_case *c, int i, int k)
{
    return c->sparse ? ((const uint16_t *)strided_record(&c->joints, i))[k] : k;
}

/* LBS of affine bones: the position against sum_k w_k M_k p in double, when
   the data is moderate; each coordinate within a few roundings of its terms,
   |w| |m| |p| and |w| |t|, per influence. The normal is checked finite or a
   vertex whose blend has no normal (the zero vector), no more: its
   conditioning is the blend's. */
static void check_vertex_affine(const skin_case *c, int i)
{
    const float *p = (const float *)strided_record(&c->pristine_positions, i);
    const float *out_p = (const float *)strided_record(&c->out_positions, i);
    double reference[3] = {0, 0, 0}, terms[3] = {0, 0, 0}, eps = (double)FLT_EPSILON;
    int k, row, e;
    for (e = 0; e < 3; ++e)
        if (!(fabs((double)p[e]) <= MODERATE)) return;
    for (k = 0; k < c->k; ++k) {
        const float *m = c->matrices + 12 * (size_t)joint_of(c, i, k);
        double w = (double)weight_of(c, i, k);
        if (!(fabs(w) <= MODERATE)) return;
        for (e = 0; e < 12; ++e)
            if (!(fabs((double)m[e]) <= MODERATE)) return;
        for (row = 0; row < 3; ++row) {
            double x = (double)m[4 * row] * (double)p[0], y = (double)m[4 * row + 1] * (double)p[1];
            double z = (double)m[4 * row + 2] * (double)p[2], t = (double)m[4 * row + 3];
            reference[row] += w * (x + y + z + t);
            terms[row] += fabs(w) * (fabs(x) + fabs(y) + fabs(z) + fabs(t));
        }
    }
    for (row = 0; row < 3; ++row) {
        double bound = 16.0 * eps * (c->k + 2) * terms[row] + 4.0 * (c->k + 2) * DENORMAL_STEP * (abs_sum3(p) + 1.0);
        FUZZ_REQUIRE(fabs((double)out_p[row] - reference[row]) <= bound, "affine LBS vertex %d: %g, reference %g, bound %g",
                     i, (double)out_p[row], reference[row], bound);
    }
}

/* Compares one vertex's outputs with a double-precision reference, when the data
   is moderate and the blend well conditioned enough for a rounding bound. */
static void check_vertex(const skin_case *c, int i, int dqs)
{
    const float *p = (const float *)strided_record(&c->pristine_positions, i);
    const float *n = c->normals ? (const float *)strided_record(&c->pristine_normals, i) : NULL;
    const float *out_p = (const float *)strided_record(&c->out_positions, i);
    const float *out_n = c->normals ? (const float *)strided_record(&c->out_normals, i) : NULL;
    double pd[3], nd[3] = {0, 0, 0};
    double weight_sum = 0.0, largest_t = 0.0, ref_p[3] = {0, 0, 0};
    double eps = (double)FLT_EPSILON, bound;
    int k, e;
    pd[0] = (double)p[0]; pd[1] = (double)p[1]; pd[2] = (double)p[2];
    if (n) { nd[0] = (double)n[0]; nd[1] = (double)n[1]; nd[2] = (double)n[2]; }
    for (e = 0; e < 3; ++e) {
        if (!(fabs(pd[e]) <= MODERATE) || !(fabs(nd[e]) <= MODERATE)) return;
    }
    for (k = 0; k < c->k; ++k) {
        const fk_rigid *bone = &c->transforms[joint_of(c, i, k)];
        float w = weight_of(c, i, k);
        if (!(fabs((double)w) <= MODERATE) || !(fabs((double)bone->t.x) <= MODERATE) || !(fabs((double)bone->t.y) <= MODERATE) ||
            !(fabs((double)bone->t.z) <= MODERATE))
            return;
        weight_sum += fabs((double)w);
        if (abs_sum3(&bone->t.x) > largest_t) largest_t = abs_sum3(&bone->t.x);
    }
    for (e = 0; e < 3; ++e) FUZZ_REQUIRE(fuzz_is_finite(out_p[e]), "vertex %d position not finite", i);
    if (!dqs) {
        double blend_n[3] = {0, 0, 0}, length;
        for (k = 0; k < c->k; ++k) {
            const fk_rigid *bone = &c->transforms[joint_of(c, i, k)];
            double q[4], rp[3], rn[3], w = (double)weight_of(c, i, k);
            quat_to_double(bone->q, q);
            rotate_double(q, pd, rp);
            rotate_double(q, nd, rn);
            ref_p[0] += w * (rp[0] + (double)bone->t.x);
            ref_p[1] += w * (rp[1] + (double)bone->t.y);
            ref_p[2] += w * (rp[2] + (double)bone->t.z);
            for (e = 0; e < 3; ++e) blend_n[e] += w * rn[e];
        }
        /* A blend of k matrices, each with entries rounded from a normalized
           quaternion, applied to p: a few relative roundings per term, plus float's
           absolute floor (half a denormal step per product) once weights are so
           small that w m leaves the normal range. */
        bound = 16.0 * eps * (c->k + 2) * weight_sum * (abs_sum3(p) + largest_t + 1.0) +
                4.0 * (c->k + 2) * DENORMAL_STEP * (abs_sum3(p) + 1.0);
        for (e = 0; e < 3; ++e)
            FUZZ_REQUIRE(fabs((double)out_p[e] - ref_p[e]) <= bound, "LBS vertex %d: %g, reference %g, bound %g", i,
                         (double)out_p[e], ref_p[e], bound);
        length = sqrt(blend_n[0] * blend_n[0] + blend_n[1] * blend_n[1] + blend_n[2] * blend_n[2]);
        if (n && length > 1e-3 * weight_sum * abs_sum3(n) && length > 1e-15) {
            double nbound = 2.0 * 16.0 * eps * (c->k + 2) * weight_sum * abs_sum3(n) / length + 8.0 * eps;
            for (e = 0; e < 3; ++e)
                FUZZ_REQUIRE(fabs((double)out_n[e] - blend_n[e] / length) <= nbound, "LBS normal %d: %g, reference %g", i,
                             (double)out_n[e], blend_n[e] / length);
        }
    } else {
        double real[4] = {0, 0, 0, 0}, dual[4] = {0, 0, 0, 0}, pivot[4], norm, t[3], rn[3];
        const float *same = p;
        if (weight_sum == 0.0) { /* nothing to blend: the vertex stays put */
            for (e = 0; e < 3; ++e) FUZZ_REQUIRE(out_p[e] == same[e] || (same[e] != same[e]), "DQS zero weights moved vertex %d", i);
            return;
        }
        { /* the header's rule: the hemisphere of the most heavily weighted influence */
            int heaviest = 0;
            for (k = 0; k < c->k; ++k) if (weight_of(c, i, k) > weight_of(c, i, heaviest)) heaviest = k;
            quat_to_double(c->transforms[joint_of(c, i, heaviest)].q, pivot);
        }
        for (k = 0; k < c->k; ++k) {
            const fk_rigid *bone = &c->transforms[joint_of(c, i, k)];
            double q[4], d[4], w = (double)weight_of(c, i, k), dot, tx, ty, tz;
            quat_to_double(bone->q, q);
            dot = q[0] * pivot[0] + q[1] * pivot[1] + q[2] * pivot[2] + q[3] * pivot[3];
            if (fabs(dot) < 1e-3) return; /* which hemisphere is a coin toss in float */
            if (dot < 0) w = -w;
            /* dual = (t, 0) q / 2 */
            tx = (double)bone->t.x; ty = (double)bone->t.y; tz = (double)bone->t.z;
            d[0] = 0.5 * (tx * q[3] + ty * q[2] - tz * q[1]);
            d[1] = 0.5 * (-tx * q[2] + ty * q[3] + tz * q[0]);
            d[2] = 0.5 * (tx * q[1] - ty * q[0] + tz * q[3]);
            d[3] = 0.5 * (-tx * q[0] - ty * q[1] - tz * q[2]);
            for (e = 0; e < 4; ++e) { real[e] += w * q[e]; dual[e] += w * d[e]; }
        }
        norm = sqrt(real[0] * real[0] + real[1] * real[1] + real[2] * real[2] + real[3] * real[3]);
        if (norm < 1e-3 * weight_sum) return; /* the blend cancels: ill-conditioned */
        for (e = 0; e < 4; ++e) { real[e] /= norm; dual[e] /= norm; }
        /* t = 2 vec(dual real*) */
        t[0] = 2.0 * (dual[0] * real[3] - dual[3] * real[0] + real[1] * dual[2] - real[2] * dual[1]);
        t[1] = 2.0 * (dual[1] * real[3] - dual[3] * real[1] + real[2] * dual[0] - real[0] * dual[2]);
        t[2] = 2.0 * (dual[2] * real[3] - dual[3] * real[2] + real[0] * dual[1] - real[1] * dual[0]);
        rotate_double(real, pd, ref_p);
        for (e = 0; e < 3; ++e) ref_p[e] += t[e];
        /* Relative rounding, plus float's absolute floor (a denormal step per
           product) for weights so small that the products leave the normal range. */
        bound = (64.0 * eps * (c->k + 2) * (weight_sum / norm) + 8.0 * (c->k + 2) * DENORMAL_STEP / norm) *
                    (abs_sum3(p) + largest_t + 1.0) + 4.0 * DENORMAL_STEP;
        for (e = 0; e < 3; ++e)
            FUZZ_REQUIRE(fabs((double)out_p[e] - ref_p[e]) <= bound, "DQS vertex %d: %g, reference %g, bound %g", i,
                         (double)out_p[e], ref_p[e], bound);
        if (n) {
            rotate_double(real, nd, rn);
            for (e = 0; e < 3; ++e)
                FUZZ_REQUIRE(fabs((double)out_n[e] - rn[e]) <= bound / (abs_sum3(p) + largest_t + 1.0) * (abs_sum3(n) + 1.0),
                             "DQS normal %d: %g, reference %g", i, (double)out_n[e], rn[e]);
        }
    }
}

/* Restores aliased inputs and fills the outputs with the sentinel. */
static void reset_buffers(skin_case *c)
{
    if (c->alias) {
        memcpy(c->positions.data, c->pristine_positions.data, c->positions.bytes);
        if (c->normals) memcpy(c->normals_in.data, c->pristine_normals.data, c->normals_in.bytes);
    } else {
        memset(c->out_positions.data, SENTINEL, c->out_positions.bytes);
        if (c->normals) memset(c->out_normals.data, SENTINEL, c->out_normals.bytes);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in;
    skin_case c;
    fk_skin_desc *d = &c.desc;
    uint8_t flags, nulls;
    int i, k, first_bad_vertex = -1, alloc_k, alloc_transforms;
    int count_error, null_error, both_error, dense_error, stride_error, rotation_error = 0, value_error = 0, edge_rotation = 0;
    int layout_fits;
    fk_result v, r;
    void *joints_copy, *weights_copy, *transforms_copy, *matrices_copy, *positions_copy = NULL, *normals_copy = NULL;
    uint16_t *joints2 = NULL;
    float *weights2 = NULL;

    in.data = data; in.size = size; in.used = 0;
    memset(&c, 0, sizeof c);
    flags = fuzz_byte(&in);
    nulls = fuzz_byte(&in);
    c.sparse = !(flags & 1);
    c.normals = (flags & 2) != 0;
    c.alias = (flags & 4) != 0;
    c.affine = (flags & 16) != 0;
    c.n = fuzz_int(&in, MAX_VERTICES / 4 + 1, 0);
    c.transform_count = decode_transform_count(&in);
    c.k = c.sparse || (flags & 8) ? fuzz_int(&in, 6, 0) : c.transform_count; /* dense: usually matching */
    if (c.transform_count > MAX_TRANSFORMS || c.n > MAX_VERTICES) return 0;
    if (c.k > MAX_INFLUENCES && c.n > 0) return 0; /* would need gigabytes of weights */
    alloc_k = c.k > 0 && c.k <= MAX_INFLUENCES ? c.k : 0;
    alloc_transforms = c.transform_count > 0 ? c.transform_count : 0;

    c.transforms = (fk_rigid *)fuzz_alloc((size_t)alloc_transforms * sizeof(fk_rigid));
    c.matrices = (float *)fuzz_alloc((size_t)alloc_transforms * 12 * sizeof(float));
    for (i = 0; c.affine && i < alloc_transforms; ++i) {
        float *m = c.matrices + 12 * (size_t)i;
        for (k = 0; k < 12; ++k) {
            m[k] = fuzz_exhausted(&in) ? (k % 5 == 0 ? 1.0f : 0.0f) : fuzz_float(&in);
            if (!fuzz_is_finite(m[k])) value_error = 1;
        }
    }
    for (i = 0; (!c.affine || (flags & 32)) && i < alloc_transforms; ++i) { /* rigid bones, or bind poses */
        fk_rigid *t = &c.transforms[i];
        if (fuzz_exhausted(&in)) { *t = fk_rigid_identity(); continue; }
        t->q.x = fuzz_float(&in); t->q.y = fuzz_float(&in); t->q.z = fuzz_float(&in); t->q.w = fuzz_float(&in);
        t->t.x = fuzz_float(&in); t->t.y = fuzz_float(&in); t->t.z = fuzz_float(&in);
        if (fuzz_rotation_badness(t->q.x, t->q.y, t->q.z, t->q.w) == 1) rotation_error = 1;
        if (fuzz_rotation_badness(t->q.x, t->q.y, t->q.z, t->q.w) == 2) edge_rotation = 1;
        if (!fuzz_is_finite(t->t.x) || !fuzz_is_finite(t->t.y) || !fuzz_is_finite(t->t.z)) value_error = 1;
    }

    strided_init(&c.positions, decode_stride(&in, 12, 4), 12, c.n);
    /* k > MAX_INFLUENCES only comes with no vertices, so the records need no bytes. */
    strided_init(&c.weights, decode_stride(&in, 4 * (size_t)(c.k > 0 ? c.k : 0), 4), 4 * (size_t)(c.k > 0 ? c.k : 0), c.n);
    strided_init(&c.joints, decode_stride(&in, 2 * (size_t)(c.k > 0 ? c.k : 0), 2), 2 * (size_t)(c.k > 0 ? c.k : 0),
                 c.sparse ? c.n : 0);
    strided_init(&c.normals_in, decode_stride(&in, 12, 4), 12, c.normals ? c.n : 0);
    if (c.alias) { /* the output is the input: same buffer, same stride */
        c.out_positions = c.positions;
        c.out_normals = c.normals_in;
    } else {
        strided_init(&c.out_positions, decode_stride(&in, 12, 4), 12, c.n);
        strided_init(&c.out_normals, decode_stride(&in, 12, 4), 12, c.normals ? c.n : 0);
    }
    layout_fits = c.positions.fits && c.weights.fits && c.joints.fits && c.normals_in.fits && c.out_positions.fits &&
                  c.out_normals.fits;

    /* memcpy: a misaligned stride is a case to test, not undefined behaviour here. */
    for (i = 0; i < c.n && layout_fits; ++i) {
        unsigned char *p = (unsigned char *)strided_record(&c.positions, i), *w = (unsigned char *)strided_record(&c.weights, i);
        float value;
        for (k = 0; k < 3; ++k) { value = fuzz_float(&in); memcpy(p + 4 * k, &value, 4); }
        if (c.normals) {
            unsigned char *nrm = (unsigned char *)strided_record(&c.normals_in, i);
            for (k = 0; k < 3; ++k) { value = fuzz_float(&in); memcpy(nrm + 4 * k, &value, 4); }
        }
        for (k = 0; k < alloc_k; ++k) {
            value = fuzz_exhausted(&in) ? 1.0f / (float)alloc_k : fuzz_float(&in);
            memcpy(w + 4 * k, &value, 4);
        }
        if (c.sparse) {
            unsigned char *j = (unsigned char *)strided_record(&c.joints, i);
            for (k = 0; k < alloc_k; ++k) {
                uint16_t joint = decode_joint(&in, c.transform_count);
                memcpy(j + 2 * k, &joint, 2);
                if ((int)joint >= c.transform_count && first_bad_vertex < 0) first_bad_vertex = i;
            }
        }
    }
    c.pristine_positions = c.positions;
    c.pristine_positions.data = (unsigned char *)fuzz_alloc(c.positions.bytes);
    memcpy(c.pristine_positions.data, c.positions.data, c.positions.bytes);
    c.pristine_normals = c.normals_in;
    c.pristine_normals.data = (unsigned char *)fuzz_alloc(c.normals_in.bytes);
    memcpy(c.pristine_normals.data, c.normals_in.data, c.normals_in.bytes);

    d->vertex_count = c.n;
    d->influences = c.k;
    d->positions = (const float *)(void *)c.positions.data;
    d->position_stride = c.positions.stride;
    d->normals = c.normals ? (const float *)(void *)c.normals_in.data : NULL;
    d->normal_stride = c.normals_in.stride;
    d->joints = c.sparse ? (const uint16_t *)(void *)c.joints.data : NULL;
    d->joint_stride = c.joints.stride;
    d->weights = (const float *)(void *)c.weights.data;
    d->weight_stride = c.weights.stride;
    d->transforms = c.affine ? NULL : c.transforms;
    d->matrices = c.affine ? c.matrices : NULL;
    if (c.affine && (flags & 32)) { /* the rigid transforms serve as the bones' bind poses, for DQS with scale */
        d->bind_poses = c.transforms;
        d->dqs_scale_center = (flags & 64) ? FK_DQS_SCALE_AT_BONE : FK_DQS_SCALE_AT_VERTEX;
    }
    d->transform_count = c.transform_count;
    d->out_positions = (float *)(void *)c.out_positions.data;
    d->out_position_stride = c.out_positions.stride;
    d->out_normals = c.normals ? (float *)(void *)c.out_normals.data : NULL;
    d->out_normal_stride = c.out_normals.stride;
    if ((nulls & 0xF0) == 0xF0) { /* one required pointer missing */
        switch (nulls & 3) {
        case 0: d->positions = NULL; break;
        case 1: d->weights = NULL; break;
        case 2: d->out_positions = NULL; break;
        default: if (c.normals) d->out_normals = NULL; else d->transforms = NULL, d->matrices = NULL;
        }
    }
    if ((nulls & 0xF0) == 0xE0) d->transforms = c.transforms, d->matrices = c.matrices; /* both kinds */

    /* A second stream apart, in exactly sized blocks, holding what the first
       stream's records hold from their fifth place on; only where the first
       stream's strides are good for k, so that they are good for its 4 too. */
    if ((flags & 128) && c.sparse && c.k >= 5 && c.k <= 8 && c.n > 0 && layout_fits &&
        !stride_is_bad(&c.joints, 2, c.n) && !stride_is_bad(&c.weights, 4, c.n)) {
        const size_t more = (size_t)c.k - 4;
        joints2 = (uint16_t *)fuzz_alloc((size_t)c.n * more * sizeof *joints2);
        weights2 = (float *)fuzz_alloc((size_t)c.n * more * sizeof *weights2);
        for (i = 0; i < c.n; ++i) {
            memcpy(joints2 + (size_t)i * more, (unsigned char *)strided_record(&c.joints, i) + 8, more * sizeof *joints2);
            memcpy(weights2 + (size_t)i * more, (unsigned char *)strided_record(&c.weights, i) + 16, more * sizeof *weights2);
        }
        d->joints2 = joints2;
        d->weights2 = weights2;
        d->joint_stride = c.joints.effective; /* records of k: "packed" now means 4 */
        d->weight_stride = c.weights.effective;
    }

    /* What is wrong with this descriptor, worked out from the header's rules. */
    count_error = c.n < 0 || c.k < 1 || c.transform_count < 0;
    null_error = !d->positions || !d->weights || !d->out_positions || (d->normals && !d->out_normals) ||
                 (c.transform_count > 0 && !d->transforms && !d->matrices);
    both_error = d->transforms && d->matrices;
    dense_error = !c.sparse && c.k != c.transform_count;
    stride_error = stride_is_bad(&c.positions, 4, c.n) || stride_is_bad(&c.out_positions, 4, c.n) ||
                   (c.k > 0 && stride_is_bad(&c.weights, 4, c.n)) || (c.sparse && c.k > 0 && stride_is_bad(&c.joints, 2, c.n)) ||
                   (c.normals && (stride_is_bad(&c.normals_in, 4, c.n) || stride_is_bad(&c.out_normals, 4, c.n)));
    if (!layout_fits && !count_error && !null_error && !both_error && !dense_error && !stride_error) {
        /* A layout no buffer could have: the library would read whatever the caller
           promised is there, which is not a bug we can test. */
        goto done;
    }

    joints_copy = fuzz_alloc(c.joints.bytes); memcpy(joints_copy, c.joints.data, c.joints.bytes);
    weights_copy = fuzz_alloc(c.weights.bytes); memcpy(weights_copy, c.weights.data, c.weights.bytes);
    transforms_copy = fuzz_alloc((size_t)alloc_transforms * sizeof(fk_rigid));
    memcpy(transforms_copy, c.transforms, (size_t)alloc_transforms * sizeof(fk_rigid));
    matrices_copy = fuzz_alloc((size_t)alloc_transforms * 12 * sizeof(float));
    memcpy(matrices_copy, c.matrices, (size_t)alloc_transforms * 12 * sizeof(float));
    if (!c.alias) {
        positions_copy = fuzz_alloc(c.positions.bytes); memcpy(positions_copy, c.positions.data, c.positions.bytes);
        normals_copy = fuzz_alloc(c.normals_in.bytes); memcpy(normals_copy, c.normals_in.data, c.normals_in.bytes);
    }

    v = fk_skin_validate(d, FK_SKIN_LBS);
    if (count_error || null_error || both_error || dense_error || stride_error || rotation_error || value_error ||
        first_bad_vertex >= 0) {
        FUZZ_REQUIRE(v != FK_OK, "a bad descriptor passed validation");
    } else if (!edge_rotation) {
        FUZZ_REQUIRE(v == FK_OK, "a good descriptor failed validation: %d", (int)v);
    }
    FUZZ_REQUIRE(v == FK_OK || (v == FK_ERROR_INVALID_COUNT && (count_error || dense_error)) ||
                     (v == FK_ERROR_NULL_ARGUMENT && null_error) || (v == FK_ERROR_INVALID_STRIDE && stride_error) ||
                     (v == FK_ERROR_CONFLICTING_ARGUMENTS && both_error) ||
                     (v == FK_ERROR_INVALID_ROTATION && (rotation_error || edge_rotation)) ||
                     (v == FK_ERROR_NOT_FINITE && value_error) ||
                     (v == FK_ERROR_JOINT_OUT_OF_RANGE && first_bad_vertex >= 0),
                 "validation named error %d that the descriptor does not have", (int)v);

    for (i = 0; i < 3; ++i) {
        static const char *const names[3] = {"LBS", "DQS", "CoR"};
        int dqs = i == 1, vertex, written_up_to;
        const size_t scratch_size = fk_skin_scratch_size(d, (fk_skin_method)i);
        reset_buffers(&c);
        d->scratch = NULL;
        d->scratch_size = 0;
        if ((nulls & 4) && scratch_size <= SCRATCH_LIMIT) { /* the fast paths for any rig, in an exact block */
            d->scratch = fuzz_alloc(scratch_size);
            d->scratch_size = scratch_size;
        }
        r = i == 0 ? fk_skin_lbs(d) : i == 1 ? fk_skin_dqs(d) : fk_skin_cor(d, d->positions, d->position_stride);
        free(d->scratch);
        d->scratch = NULL;
        /* validation for the method says exactly what the method returns; DQS
           and CoR also refuse affine bones with scale without bind poses, before
           writing anything (so before they meet a bad joint index) */
        FUZZ_REQUIRE(r == fk_skin_validate(d, (fk_skin_method)i), "%s disagrees with its validation", names[i]);
        FUZZ_REQUIRE(r == v || (i > 0 && d->matrices && !d->transforms && !d->bind_poses &&
                                r == FK_ERROR_MISSING_BIND_POSES && (v == FK_OK || v == FK_ERROR_JOINT_OUT_OF_RANGE)),
                     "%s returned %d, validate %d", names[i], (int)r, (int)v);
        if (!layout_fits) continue;
        FUZZ_REQUIRE(padding_untouched(&c.out_positions, c.n), "wrote between output positions");
        if (c.normals) FUZZ_REQUIRE(padding_untouched(&c.out_normals, c.n), "wrote between output normals");
        written_up_to = r == FK_OK ? c.n : r == FK_ERROR_JOINT_OUT_OF_RANGE ? first_bad_vertex : 0;
        if (!c.alias && r != FK_OK) {
            FUZZ_REQUIRE(records_untouched_from(&c.out_positions, written_up_to, c.n), "wrote positions after error %d", (int)r);
            if (c.normals) FUZZ_REQUIRE(records_untouched_from(&c.out_normals, written_up_to, c.n), "wrote normals after error %d", (int)r);
        }
        if (r == FK_OK && !d->matrices && i < 2)
            for (vertex = 0; vertex < c.n; ++vertex) check_vertex(&c, vertex, dqs);
        if (r == FK_OK && d->matrices && i == 0)
            for (vertex = 0; vertex < c.n; ++vertex) check_vertex_affine(&c, vertex);
        FUZZ_REQUIRE(memcmp(joints_copy, c.joints.data, c.joints.bytes) == 0, "joints modified");
        FUZZ_REQUIRE(memcmp(weights_copy, c.weights.data, c.weights.bytes) == 0, "weights modified");
        FUZZ_REQUIRE(memcmp(transforms_copy, c.transforms, (size_t)alloc_transforms * sizeof(fk_rigid)) == 0,
                     "transforms modified");
        FUZZ_REQUIRE(memcmp(matrices_copy, c.matrices, (size_t)alloc_transforms * 12 * sizeof(float)) == 0,
                     "matrices modified");
        if (!c.alias) {
            FUZZ_REQUIRE(memcmp(positions_copy, c.positions.data, c.positions.bytes) == 0, "positions modified");
            FUZZ_REQUIRE(memcmp(normals_copy, c.normals_in.data, c.normals_in.bytes) == 0, "normals modified");
        }
    }
    FUZZ_REQUIRE(fk_skin_validate(NULL, FK_SKIN_DQS) == FK_ERROR_NULL_ARGUMENT, "NULL descriptor");
    free(joints_copy); free(weights_copy); free(transforms_copy); free(matrices_copy); free(positions_copy);
    free(normals_copy);
done:
    free(c.transforms);
    free(c.matrices);
    free(c.positions.data); free(c.weights.data); free(c.joints.data); free(c.normals_in.data);
    if (!c.alias) { free(c.out_positions.data); free(c.out_normals.data); }
    free(c.pristine_positions.data); free(c.pristine_normals.data);
    free(joints2); free(weights2);
    return 0;
}
