/* fuzz_animation.c - libFuzzer target for the animation functions that index
   arrays with numbers from their inputs: the track samplers (fk_track_evaluate,
   fk_track_evaluate_vec3, fk_track_evaluate_quat), fk_morph_apply, and palette
   splitting (fk_palette_split, fk_palette_local_joints).

   The first byte picks the function family; the rest becomes its arguments.
   Every array is an exactly sized heap block, so AddressSanitizer sees any read
   or write one element past it, and every output starts as a sentinel.

   Tracks: key counts (zero, small, negative, huge), key times ascending or
   anything (repeated, descending, infinite, NaN), values with special numbers,
   any component count and interpolation (any int), a time that is often a key's
   time exactly, and a cursor holding any int. Invariants:
     - nothing is read outside times or values, whatever they hold;
     - on error neither the output nor the cursor is written;
     - on FK_OK the cursor is a key, and where the sample is a key's value (STEP,
       or a time outside the keys) the output is that key's value bit for bit
       (fk_track_evaluate, fk_track_evaluate_vec3);
     - with keys fk_track_validate() accepts, any cursor gives the result and the
       bits that a NULL cursor gives, and the cursor receives the key at or
       before the time;
     - fk_track_evaluate_vec3 is fk_track_evaluate with three components, and
       with LINEAR gives fk_track_sample_vec3()'s bits (the quaternion sampler
       fk_track_sample_quat()'s);
     - the inputs are never modified.

   Morphs: dense and sparse targets (indices any uint32, sparse_count any int),
   optional normals, tangents and each target's deltas, every stride packed,
   padded, too small, misaligned or overflowing, a misaligned base pointer,
   positions morphed in place, a missing pointer, weights of any value.
   Invariants:
     - an error exactly where the descriptor has one it can be blamed for (bad
       count, stride, weight, sparse index, non-finite weighted delta, NULL)
       is reported, and on error no output byte changes;
     - on FK_OK the positions are base + sum w_i d_i rounded term by term as the
       header says, bit for bit; normals and tangents' xyz are their base bits or
       unit; tangents' w is copied; nothing between output records is written;
     - the inputs (base data, targets, deltas, indices, weights) are never
       modified.

   Palette splitting: triangle indices any uint32, joints any uint16, weights
   any float (zero often), bone_count, max_bones, influences and group_capacity
   any int. Invariants:
     - the errors the header names are reported, and on error nothing is written
       (not even the group count);
     - counting (NULL outputs) gives the same result and group count as writing,
       which fails exactly when the groups do not fit group_capacity;
     - on FK_OK triangles go to groups in order (0, then each the same or the
       next), every group holds distinct bones below bone_count, at most
       max_bones of them, exactly the nonzero-weight joints of its triangles'
       vertices, and a group only starts when the next triangle does not fit the
       previous one (greedy);
     - fk_palette_local_joints() on each vertex of each group's triangles
       succeeds, in place too, and maps every nonzero-weight joint back to its
       global index; a fuzzed palette gives JOINT_OUT_OF_RANGE exactly when a
       nonzero-weight joint is missing, and nothing written then;
     - the inputs are never modified. */
#include "fk_lbs.h" /* declarations: the library is tests/fk_lbs_impl.c */
#include "fuzz_input.h"

#define SENTINEL 0xA5
#define MAX_KEYS 40
#define MAX_COMPONENTS 8
#define MAX_VERTICES 16
#define MAX_TARGETS 5
#define MAX_ENTRIES 24
#define MAX_TRIANGLES 16
#define MAX_INFLUENCES 8
#define MAX_EXTENT ((size_t)1 << 20) /* bytes: a layout beyond this cannot be allocated here */

static void *fuzz_sentinel_alloc(size_t bytes)
{
    void *p = fuzz_alloc(bytes);
    memset(p, SENTINEL, bytes ? bytes : 1);
    return p;
}

static int all_sentinel(const void *p, size_t bytes)
{
    const unsigned char *b = (const unsigned char *)p;
    size_t i;
    for (i = 0; i < bytes; ++i)
        if (b[i] != SENTINEL) return 0;
    return 1;
}

static void *fuzz_copy(const void *p, size_t bytes)
{
    void *c = fuzz_alloc(bytes);
    if (bytes) memcpy(c, p, bytes);
    return c;
}

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* ============================================================================
   Tracks
   ============================================================================ */

static float decode_time(fuzz_input *in, const float *times, int key_count)
{
    uint8_t b = fuzz_byte(in);
    if (b < 112 || key_count < 1) return fuzz_float(in);
    if (b < 208) return times[b % key_count]; /* a key's time exactly */
    { /* just beside a key's time */
        float t = times[b % key_count];
        return b & 1 ? nextafterf(t, INFINITY) : nextafterf(t, -INFINITY);
    }
}

/* The key at or before time on validated keys, as the header defines it. */
static int expected_key(int key_count, const float *times, float time)
{
    int k;
    if (time <= times[0]) return 0;
    if (time >= times[key_count - 1]) return key_count - 1;
    for (k = 0; k + 1 < key_count; ++k)
        if (times[k] <= time && time < times[k + 1]) return k;
    FUZZ_REQUIRE(0, "no bracket on validated keys");
    return -1;
}

/* Whether the sample at the key a call reported is that key's value exactly:
   STEP, or a time outside the keys' range. */
static int sample_is_a_key(int interpolation, int key_count, const float *times, float time)
{
    return interpolation == FK_INTERPOLATION_STEP || time <= times[0] || time >= times[key_count - 1];
}

static size_t key_element(int interpolation, int key) /* where v_key is in the values */
{
    return interpolation == FK_INTERPOLATION_CUBICSPLINE ? 3u * (size_t)key + 1u : (size_t)key;
}

static void fuzz_tracks(fuzz_input *in)
{
    uint8_t flags = fuzz_byte(in);
    int key_count = fuzz_int(in, 9, 0);
    int component_count = fuzz_int(in, 5, 0);
    int interpolation = fuzz_int(in, 3, 0);
    int method = (flags & 0x40) ? fuzz_int(in, 2, 0) : (int)(flags >> 7);
    int alloc_keys, valid, i, cursor_value, per_key, value_count, float_count;
    float *times, *values, *times_copy, *values_copy, time;
    fk_vec3 *vectors, *vectors_copy;
    fk_quat *quats, *quats_copy;
    int *cursor;
    if (key_count > MAX_KEYS || component_count > MAX_COMPONENTS) return;
    alloc_keys = key_count > 0 ? key_count : 0;
    per_key = interpolation == FK_INTERPOLATION_CUBICSPLINE ? 3 : 1;
    value_count = alloc_keys * per_key;
    float_count = value_count * (component_count > 0 ? component_count : 0);

    times = (float *)fuzz_alloc((size_t)alloc_keys * sizeof(float));
    if (flags & 1) { /* ascending, mostly */
        float t = fuzz_float(in);
        for (i = 0; i < alloc_keys; ++i) {
            uint8_t b = fuzz_byte(in);
            if (i > 0) t = b < 224 ? t + 0.125f * (float)(1 + b % 16) : t + fuzz_float(in);
            times[i] = t;
        }
    } else {
        for (i = 0; i < alloc_keys; ++i) times[i] = fuzz_float(in);
    }
    values = (float *)fuzz_alloc((size_t)float_count * sizeof(float));
    for (i = 0; i < float_count; ++i) values[i] = fuzz_float(in);
    vectors = (fk_vec3 *)fuzz_alloc((size_t)value_count * sizeof *vectors);
    for (i = 0; i < value_count; ++i) { vectors[i].x = fuzz_float(in); vectors[i].y = fuzz_float(in); vectors[i].z = fuzz_float(in); }
    quats = (fk_quat *)fuzz_alloc((size_t)value_count * sizeof *quats);
    for (i = 0; i < value_count; ++i) {
        quats[i].x = fuzz_float(in); quats[i].y = fuzz_float(in); quats[i].z = fuzz_float(in); quats[i].w = fuzz_float(in);
        if (fuzz_exhausted(in)) quats[i].w = 1.0f;
    }
    time = decode_time(in, times, alloc_keys);
    cursor_value = fuzz_int(in, key_count + 3, -1);
    times_copy = (float *)fuzz_copy(times, (size_t)alloc_keys * sizeof(float));
    values_copy = (float *)fuzz_copy(values, (size_t)float_count * sizeof(float));
    vectors_copy = (fk_vec3 *)fuzz_copy(vectors, (size_t)value_count * sizeof *vectors);
    quats_copy = (fk_quat *)fuzz_copy(quats, (size_t)value_count * sizeof *quats);
    valid = key_count >= 1 && fk_track_validate(key_count, times) == FK_OK;
    cursor = (int *)fuzz_alloc(sizeof *cursor);

    { /* fk_track_evaluate */
        size_t out_bytes = (size_t)(component_count > 0 ? component_count : 0) * sizeof(float);
        float *out = (float *)fuzz_sentinel_alloc(out_bytes), *out_null = (float *)fuzz_sentinel_alloc(out_bytes);
        fk_result r, r_null;
        *cursor = cursor_value;
        r = fk_track_evaluate(key_count, times, values, component_count, (fk_interpolation)interpolation, time, cursor, out);
        r_null = fk_track_evaluate(key_count, times, values, component_count, (fk_interpolation)interpolation, time, NULL,
                                   out_null);
        if (component_count < 1 || key_count < 1) FUZZ_REQUIRE(r == FK_ERROR_INVALID_COUNT, "bad count accepted: %d", (int)r);
        if (interpolation < 0 || interpolation > 2) FUZZ_REQUIRE(r != FK_OK, "interpolation %d accepted", interpolation);
        if (time != time) FUZZ_REQUIRE(r != FK_OK, "NaN time accepted");
        if (r != FK_OK) {
            FUZZ_REQUIRE(all_sentinel(out, out_bytes), "evaluate wrote its output on error %d", (int)r);
            FUZZ_REQUIRE(*cursor == cursor_value, "evaluate wrote the cursor on error %d", (int)r);
        } else {
            FUZZ_REQUIRE(*cursor >= 0 && *cursor < key_count, "evaluate: cursor %d not a key", *cursor);
            if (sample_is_a_key(interpolation, key_count, times, time))
                FUZZ_REQUIRE(memcmp(out, values + (size_t)component_count * key_element(interpolation, *cursor), out_bytes) == 0,
                             "evaluate: not key %d's value", *cursor);
            for (i = 0; i < component_count; ++i) FUZZ_REQUIRE(fuzz_is_finite(out[i]), "evaluate: FK_OK, not finite");
        }
        if (r_null != FK_OK) FUZZ_REQUIRE(all_sentinel(out_null, out_bytes), "evaluate (NULL cursor) wrote on error");
        if (valid) {
            FUZZ_REQUIRE(r == r_null, "evaluate: cursor %d gave %d, NULL %d", cursor_value, (int)r, (int)r_null);
            FUZZ_REQUIRE(memcmp(out, out_null, out_bytes) == 0, "evaluate: cursor %d changed the bits", cursor_value);
            if (r == FK_OK) FUZZ_REQUIRE(*cursor == expected_key(key_count, times, time), "evaluate: cursor %d", *cursor);
        }
        free(out); free(out_null);
    }
    { /* fk_track_evaluate_vec3, against fk_track_evaluate with three components */
        fk_vec3 *out = (fk_vec3 *)fuzz_sentinel_alloc(sizeof *out), *out_null = (fk_vec3 *)fuzz_sentinel_alloc(sizeof *out);
        float *as_floats = (float *)fuzz_sentinel_alloc(3 * sizeof(float));
        float *flat = (float *)fuzz_alloc((size_t)value_count * 3 * sizeof(float));
        fk_result r, r_null, r_flat;
        for (i = 0; i < value_count; ++i) { flat[3 * i] = vectors[i].x; flat[3 * i + 1] = vectors[i].y; flat[3 * i + 2] = vectors[i].z; }
        *cursor = cursor_value;
        r = fk_track_evaluate_vec3(key_count, times, vectors, (fk_interpolation)interpolation, time, cursor, out);
        r_null = fk_track_evaluate_vec3(key_count, times, vectors, (fk_interpolation)interpolation, time, NULL, out_null);
        r_flat = fk_track_evaluate(key_count, times, flat, 3, (fk_interpolation)interpolation, time, NULL, as_floats);
        FUZZ_REQUIRE(r_null == r_flat, "vec3 gave %d, three components %d", (int)r_null, (int)r_flat);
        if (r_null == FK_OK)
            FUZZ_REQUIRE(same_bits(out_null->x, as_floats[0]) && same_bits(out_null->y, as_floats[1]) &&
                             same_bits(out_null->z, as_floats[2]),
                         "vec3 differs from three components");
        if (r != FK_OK) {
            FUZZ_REQUIRE(all_sentinel(out, sizeof *out), "vec3 wrote its output on error %d", (int)r);
            FUZZ_REQUIRE(*cursor == cursor_value, "vec3 wrote the cursor on error %d", (int)r);
        } else {
            FUZZ_REQUIRE(*cursor >= 0 && *cursor < key_count, "vec3: cursor %d not a key", *cursor);
            if (sample_is_a_key(interpolation, key_count, times, time))
                FUZZ_REQUIRE(memcmp(out, vectors + key_element(interpolation, *cursor), sizeof *out) == 0,
                             "vec3: not key %d's value", *cursor);
        }
        if (r_null != FK_OK) FUZZ_REQUIRE(all_sentinel(out_null, sizeof *out), "vec3 (NULL cursor) wrote on error");
        if (valid) {
            FUZZ_REQUIRE(r == r_null, "vec3: cursor %d gave %d, NULL %d", cursor_value, (int)r, (int)r_null);
            FUZZ_REQUIRE(memcmp(out, out_null, sizeof *out) == 0, "vec3: cursor %d changed the bits", cursor_value);
            if (r == FK_OK) FUZZ_REQUIRE(*cursor == expected_key(key_count, times, time), "vec3: cursor %d", *cursor);
            if (interpolation == FK_INTERPOLATION_LINEAR) {
                fk_vec3 *sampled = (fk_vec3 *)fuzz_sentinel_alloc(sizeof *sampled);
                if (fk_track_sample_vec3(key_count, times, vectors, time, sampled) == FK_OK)
                    FUZZ_REQUIRE(r == FK_OK && memcmp(sampled, out, sizeof *out) == 0, "vec3 LINEAR is not the sampler");
                free(sampled);
            }
        }
        free(out); free(out_null); free(as_floats); free(flat);
    }
    { /* fk_track_evaluate_quat */
        fk_quat *out = (fk_quat *)fuzz_sentinel_alloc(sizeof *out), *out_null = (fk_quat *)fuzz_sentinel_alloc(sizeof *out);
        fk_result r, r_null;
        *cursor = cursor_value;
        r = fk_track_evaluate_quat(key_count, times, quats, (fk_interpolation)interpolation, (fk_rotation_interpolation)method,
                                   time, cursor, out);
        r_null = fk_track_evaluate_quat(key_count, times, quats, (fk_interpolation)interpolation,
                                        (fk_rotation_interpolation)method, time, NULL, out_null);
        if (method != FK_INTERPOLATE_SLERP && method != FK_INTERPOLATE_NLERP)
            FUZZ_REQUIRE(r != FK_OK, "quat: method %d accepted", method);
        if (r != FK_OK) {
            FUZZ_REQUIRE(all_sentinel(out, sizeof *out), "quat wrote its output on error %d", (int)r);
            FUZZ_REQUIRE(*cursor == cursor_value, "quat wrote the cursor on error %d", (int)r);
        } else {
            FUZZ_REQUIRE(*cursor >= 0 && *cursor < key_count, "quat: cursor %d not a key", *cursor);
            FUZZ_REQUIRE(fabsf(fk_quat_length(*out) - 1.0f) <= 1e-5f, "quat: FK_OK, not unit");
        }
        if (r_null != FK_OK) FUZZ_REQUIRE(all_sentinel(out_null, sizeof *out), "quat (NULL cursor) wrote on error");
        if (valid) {
            FUZZ_REQUIRE(r == r_null, "quat: cursor %d gave %d, NULL %d", cursor_value, (int)r, (int)r_null);
            FUZZ_REQUIRE(memcmp(out, out_null, sizeof *out) == 0, "quat: cursor %d changed the bits", cursor_value);
            if (r == FK_OK) FUZZ_REQUIRE(*cursor == expected_key(key_count, times, time), "quat: cursor %d", *cursor);
            if (interpolation == FK_INTERPOLATION_LINEAR && (method == FK_INTERPOLATE_SLERP || method == FK_INTERPOLATE_NLERP)) {
                fk_quat *sampled = (fk_quat *)fuzz_sentinel_alloc(sizeof *sampled);
                if (fk_track_sample_quat(key_count, times, quats, time, (fk_rotation_interpolation)method, sampled) == FK_OK)
                    FUZZ_REQUIRE(r == FK_OK && memcmp(sampled, out, sizeof *out) == 0, "quat LINEAR is not the sampler");
                free(sampled);
            }
        }
        free(out); free(out_null);
    }
    FUZZ_REQUIRE(memcmp(times, times_copy, (size_t)alloc_keys * sizeof(float)) == 0, "times modified");
    FUZZ_REQUIRE(memcmp(values, values_copy, (size_t)float_count * sizeof(float)) == 0, "values modified");
    FUZZ_REQUIRE(memcmp(vectors, vectors_copy, (size_t)value_count * sizeof *vectors) == 0, "vectors modified");
    FUZZ_REQUIRE(memcmp(quats, quats_copy, (size_t)value_count * sizeof *quats) == 0, "rotations modified");
    free(times); free(values); free(vectors); free(quats); free(cursor);
    free(times_copy); free(values_copy); free(vectors_copy); free(quats_copy);
}

/* ============================================================================
   Morph targets
   ============================================================================ */

/* One strided array of count records of `element` bytes (of floats). */
typedef struct layout {
    size_t stride;    /* as given */
    size_t element;   /* bytes of one record */
    size_t effective; /* stride with 0 resolved */
    size_t bytes;     /* exact size of the buffer */
    size_t offset;    /* bytes the array starts into its block (misaligned pointer) */
    int count, bad, fits;
    int full; /* whether the block holds all count records */
    unsigned char *block;
} layout;

static size_t decode_stride(fuzz_input *in, size_t element)
{
    uint8_t b = fuzz_byte(in);
    if (b < 128) return 0;
    if (b < 192) return element + 4 * (size_t)((b - 128) % 4);
    if (b < 208) return element - 4;                /* too small */
    if (b < 224) return element + 1 + (b & 1);     /* misaligned */
    if (b < 240) return ((size_t)-1) / 2 + 1;       /* overflows for 2+ records */
    return (size_t)fuzz_u32(in);
}

/* A layout and its block: a layout the header forbids (bad) gets a small block,
   which nothing may read; `fits` is 0 when a lawful layout is too big for here. */
static void layout_init(layout *a, fuzz_input *in, size_t element, int count, int misalign)
{
    a->stride = decode_stride(in, element);
    a->element = element;
    a->effective = a->stride ? a->stride : element;
    a->count = count > 0 ? count : 0;
    a->offset = misalign ? 1 + (size_t)(fuzz_byte(in) % 3) : 0;
    a->bad = a->effective < element || a->effective % 4 != 0 || a->offset != 0 ||
             (a->count > 1 && a->effective > ((size_t)-1) / (size_t)a->count);
    a->fits = 1;
    a->full = 1;
    if (a->count == 0) a->bytes = 0;
    else if (a->effective > (MAX_EXTENT - element) / (size_t)a->count) {
        a->fits = !a->bad ? 0 : 1;
        a->full = 0;
        a->bytes = element;
    } else {
        a->bytes = (size_t)(a->count - 1) * a->effective + element;
    }
    a->block = (unsigned char *)fuzz_sentinel_alloc(a->bytes + a->offset);
}

static float *layout_data(const layout *a) { return (float *)(void *)(a->block + a->offset); }

static float *layout_record(const layout *a, int i) { return (float *)(void *)(a->block + a->offset + (size_t)i * a->effective); }

static float layout_get(const layout *a, int i, int c)
{
    float v;
    memcpy(&v, (const unsigned char *)layout_record(a, i) + 4 * (size_t)c, sizeof v);
    return v;
}

static void layout_fill(layout *a, fuzz_input *in, int components)
{
    int i, c;
    if (!a->full) return;
    for (i = 0; i < a->count; ++i)
        for (c = 0; c < components; ++c) {
            float v = fuzz_float(in);
            memcpy((unsigned char *)layout_record(a, i) + 4 * (size_t)c, &v, sizeof v);
        }
}

static int padding_untouched(const layout *a)
{
    size_t o;
    for (o = 0; o < a->bytes; ++o)
        if (o % a->effective >= a->element && a->block[a->offset + o] != SENTINEL) return 0;
    return 1;
}

typedef struct morph_target_data {
    layout deltas[3]; /* position, normal, tangent */
    int has[3];
    int sparse, sparse_count;
    uint32_t *indices;
    size_t index_count;
} morph_target_data;

static uint32_t decode_index(fuzz_input *in, int vertex_count)
{
    uint8_t b = fuzz_byte(in);
    if (b < 224) return vertex_count > 0 ? (uint32_t)(b % vertex_count) : 0u;
    if (b < 240) return (uint32_t)(vertex_count > 0 ? vertex_count : 0) + (uint32_t)(b % 2);
    if (b < 248) return 0xFFFFFFFFu;
    return fuzz_u32(in);
}

static void fuzz_morph(fuzz_input *in)
{
    uint8_t flags = fuzz_byte(in), nulls = fuzz_byte(in);
    int vertex_count = fuzz_int(in, MAX_VERTICES / 2 + 1, 0);
    int target_count = fuzz_int(in, MAX_TARGETS + 1, 0);
    int has_normals = (flags & 1) != 0, has_tangents = (flags & 2) != 0;
    int in_place = (flags & 12) == 4, in_place_restrided = (flags & 12) == 8, normals_in_place = (flags & 0x30) == 0x30;
    int alloc_targets, i, e, c, v, expect_error = 0, unfit = 0;
    layout positions, normals, tangents, out_positions, out_normals, out_tangents;
    morph_target_data *data;
    fk_morph_target *targets, *targets_copy;
    float *weights, *weights_copy;
    fk_morph_desc desc;
    fk_result r;
    void *copies[3 * MAX_TARGETS + 3];
    void *index_copies[MAX_TARGETS];
    unsigned char *out_copies[3];

    if (vertex_count > MAX_VERTICES || target_count > MAX_TARGETS) return;
    alloc_targets = target_count > 0 ? target_count : 0;
    if (vertex_count < 0 || target_count < 0) expect_error = 1;

    layout_init(&positions, in, 12, vertex_count, (nulls & 0x0F) == 0x0E);
    layout_init(&normals, in, 12, has_normals ? vertex_count : 0, 0);
    layout_init(&tangents, in, 16, has_tangents ? vertex_count : 0, 0);
    layout_fill(&positions, in, 3);
    layout_fill(&normals, in, 3);
    layout_fill(&tangents, in, 4);
    if (in_place) {
        out_positions = positions;
        out_positions.bytes = 0;
        out_positions.block = (unsigned char *)fuzz_alloc(1); /* unused: the output is the input */
    } else {
        layout_init(&out_positions, in, 12, vertex_count, 0);
    }
    layout_init(&out_normals, in, 12, has_normals ? vertex_count : 0, 0);
    layout_init(&out_tangents, in, 16, has_tangents ? vertex_count : 0, 0);
    if (!positions.fits || !normals.fits || !tangents.fits || !out_positions.fits || !out_normals.fits || !out_tangents.fits)
        unfit = 1;
    if (positions.bad || (!in_place && out_positions.bad) || (has_normals && (normals.bad || out_normals.bad)) ||
        (has_tangents && (tangents.bad || out_tangents.bad)))
        expect_error = 1;

    data = (morph_target_data *)fuzz_alloc((size_t)alloc_targets * sizeof *data);
    targets = (fk_morph_target *)fuzz_alloc((size_t)alloc_targets * sizeof *targets);
    weights = (float *)fuzz_alloc((size_t)alloc_targets * sizeof *weights);
    for (i = 0; i < alloc_targets; ++i) {
        morph_target_data *t = &data[i];
        uint8_t shape = fuzz_byte(in);
        int entries, k;
        weights[i] = (shape & 0x80) ? 0.0f : fuzz_float(in);
        t->sparse = (shape & 1) != 0;
        t->sparse_count = t->sparse ? fuzz_int(in, 7, 0) : (shape & 0x40) ? fuzz_int(in, 3, 0) : 0;
        if (t->sparse && t->sparse_count > MAX_ENTRIES && weights[i] != 0.0f) unfit = 1;
        entries = t->sparse ? (t->sparse_count > 0 && t->sparse_count <= MAX_ENTRIES ? t->sparse_count : 0)
                            : (vertex_count > 0 ? vertex_count : 0);
        for (k = 0; k < 3; ++k) {
            t->has[k] = (shape >> (1 + k) & 1) != 0;
            /* the stride is checked against the count the library uses, the block holds what it may read */
            layout_init(&t->deltas[k], in, 12, t->sparse ? t->sparse_count : vertex_count, 0);
            if (t->deltas[k].count > entries) { /* a huge sparse_count of weight 0: nothing may be read */
                t->deltas[k].count = entries;
                t->deltas[k].full = 1;
                t->deltas[k].bytes = entries ? (size_t)(entries - 1) * t->deltas[k].effective + 12 : 0;
                free(t->deltas[k].block);
                t->deltas[k].block = (unsigned char *)fuzz_sentinel_alloc(t->deltas[k].bytes);
            }
            layout_fill(&t->deltas[k], in, 3);
        }
        t->index_count = t->sparse ? (size_t)entries : 0;
        t->indices = (uint32_t *)fuzz_alloc(t->index_count * sizeof(uint32_t));
        for (k = 0; k < (int)t->index_count; ++k) t->indices[k] = decode_index(in, vertex_count);
        targets[i].position_deltas = t->has[0] ? layout_data(&t->deltas[0]) : NULL;
        targets[i].position_delta_stride = t->deltas[0].stride;
        targets[i].normal_deltas = t->has[1] ? layout_data(&t->deltas[1]) : NULL;
        targets[i].normal_delta_stride = t->deltas[1].stride;
        targets[i].tangent_deltas = t->has[2] ? layout_data(&t->deltas[2]) : NULL;
        targets[i].tangent_delta_stride = t->deltas[2].stride;
        targets[i].indices = t->sparse ? t->indices : NULL;
        targets[i].sparse_count = t->sparse_count;
        /* What the header says is wrong with this target. */
        if (t->sparse_count < 0 || (!t->sparse && t->sparse_count != 0)) expect_error = 1;
        for (k = 0; k < 3; ++k)
            if (t->has[k] && (k == 0 || (k == 1 && has_normals) || (k == 2 && has_tangents))) {
                if (t->deltas[k].bad) expect_error = 1;
                else if (!t->deltas[k].fits && weights[i] != 0.0f) unfit = 1;
            }
        if (!fuzz_is_finite(weights[i])) expect_error = 1;
        if (weights[i] != 0.0f && fuzz_is_finite(weights[i]) && t->sparse_count >= 0 && (t->sparse || t->sparse_count == 0)) {
            for (e = 0; e < entries; ++e) {
                if (t->sparse && t->indices[e] >= (uint32_t)(vertex_count > 0 ? vertex_count : 0)) expect_error = 1;
                for (k = 0; k < 3; ++k)
                    if (t->has[k] && (k == 0 || (k == 1 && has_normals) || (k == 2 && has_tangents)) && !t->deltas[k].bad &&
                        t->deltas[k].full)
                        for (c = 0; c < 3; ++c) {
                            float term = layout_get(&t->deltas[k], e, c) * weights[i];
                            if (!fuzz_is_finite(term)) expect_error = 1;
                        }
            }
        }
    }
    if (unfit) goto done; /* a lawful layout too big to allocate: the library would read it all */

    memset(&desc, 0, sizeof desc);
    desc.vertex_count = vertex_count;
    desc.positions = layout_data(&positions);
    desc.position_stride = positions.stride;
    desc.normals = has_normals ? layout_data(&normals) : NULL;
    desc.normal_stride = normals.stride;
    desc.tangents = has_tangents ? layout_data(&tangents) : NULL;
    desc.tangent_stride = tangents.stride;
    desc.target_count = target_count;
    desc.targets = target_count > 0 ? targets : NULL;
    desc.weights = target_count > 0 ? weights : NULL;
    desc.out_positions = in_place ? layout_data(&positions) : layout_data(&out_positions);
    desc.out_position_stride = in_place ? positions.stride : out_positions.stride;
    desc.out_normals = has_normals ? layout_data(&out_normals) : NULL;
    desc.out_normal_stride = out_normals.stride;
    desc.out_tangents = has_tangents ? layout_data(&out_tangents) : NULL;
    desc.out_tangent_stride = out_tangents.stride;
    if (in_place_restrided && vertex_count > 1 && !positions.bad) { /* in place with another stride: they overlap */
        desc.out_positions = layout_data(&positions);
        desc.out_position_stride = positions.effective + 4;
        expect_error = 1;
        free(out_positions.block);
        out_positions = positions;
        out_positions.bytes = 0;
        out_positions.block = (unsigned char *)fuzz_alloc(1);
        in_place = 1;
    }
    if (normals_in_place && has_normals && vertex_count > 0 && !normals.bad) { /* never allowed */
        desc.out_normals = layout_data(&normals);
        desc.out_normal_stride = normals.stride;
        expect_error = 1;
    }
    if ((nulls & 0xF0) == 0xF0) {
        expect_error = 1;
        switch (nulls & 3) {
        case 0: desc.positions = NULL; break;
        case 1: desc.out_positions = NULL; break;
        case 2: if (target_count > 0) desc.targets = NULL; else desc.out_positions = NULL; break;
        default: if (target_count > 0) desc.weights = NULL; else desc.positions = NULL;
        }
    }
    if ((nulls & 0xF0) == 0xE0 && has_normals) { desc.out_normals = NULL; expect_error = 1; }

    copies[0] = fuzz_copy(positions.block, positions.bytes + positions.offset);
    copies[1] = fuzz_copy(normals.block, normals.bytes);
    copies[2] = fuzz_copy(tangents.block, tangents.bytes);
    for (i = 0; i < alloc_targets; ++i) {
        for (c = 0; c < 3; ++c) copies[3 + 3 * i + c] = fuzz_copy(data[i].deltas[c].block, data[i].deltas[c].bytes);
        index_copies[i] = fuzz_copy(data[i].indices, data[i].index_count * sizeof(uint32_t));
    }
    targets_copy = (fk_morph_target *)fuzz_copy(targets, (size_t)alloc_targets * sizeof *targets);
    weights_copy = (float *)fuzz_copy(weights, (size_t)alloc_targets * sizeof *weights);
    out_copies[0] = (unsigned char *)fuzz_copy(out_positions.block, out_positions.bytes);
    out_copies[1] = (unsigned char *)fuzz_copy(out_normals.block, out_normals.bytes);
    out_copies[2] = (unsigned char *)fuzz_copy(out_tangents.block, out_tangents.bytes);

    r = fk_morph_apply(&desc);
    if (expect_error) FUZZ_REQUIRE(r != FK_OK, "a bad morph descriptor was applied");
    if (r != FK_OK) {
        FUZZ_REQUIRE(memcmp(copies[0], positions.block, positions.bytes + positions.offset) == 0,
                     "positions written on error %d", (int)r);
        FUZZ_REQUIRE(memcmp(copies[1], normals.block, normals.bytes) == 0, "normals written on error %d", (int)r);
        if (!in_place)
            FUZZ_REQUIRE(all_sentinel(out_positions.block, out_positions.bytes), "out positions written on error %d", (int)r);
        FUZZ_REQUIRE(all_sentinel(out_normals.block, out_normals.bytes), "out normals written on error %d", (int)r);
        FUZZ_REQUIRE(all_sentinel(out_tangents.block, out_tangents.bytes), "out tangents written on error %d", (int)r);
    } else {
        /* p' = p + sum w_i d_i, one rounding per term, base first, targets in order */
        float *reference = (float *)fuzz_alloc((size_t)vertex_count * 3 * sizeof(float) + 1);
        const unsigned char *base = (const unsigned char *)copies[0] + positions.offset;
        for (v = 0; v < vertex_count; ++v)
            memcpy(reference + 3 * v, base + (size_t)v * positions.effective, 12);
        for (i = 0; i < target_count; ++i) {
            const morph_target_data *t = &data[i];
            int entries = t->sparse ? t->sparse_count : vertex_count;
            if (weights[i] == 0.0f || !t->has[0]) continue;
            for (e = 0; e < entries; ++e) {
                v = t->sparse ? (int)t->indices[e] : e;
                for (c = 0; c < 3; ++c) {
                    float term = layout_get(&t->deltas[0], e, c) * weights[i];
                    float sum = reference[3 * v + c] + term;
                    reference[3 * v + c] = sum;
                }
            }
        }
        for (v = 0; v < vertex_count; ++v)
            for (c = 0; c < 3; ++c) {
                float got = desc.out_positions == layout_data(&positions) ? layout_get(&positions, v, c)
                                                                          : layout_get(&out_positions, v, c);
                float want = reference[3 * v + c];
                FUZZ_REQUIRE(same_bits(got, want) || (got != got && want != want), "position %d.%d: %g, expected %g", v,
                             c, (double)got, (double)want);
            }
        free(reference);
        if (!in_place) FUZZ_REQUIRE(padding_untouched(&out_positions), "wrote between output positions");
        FUZZ_REQUIRE(padding_untouched(&out_normals), "wrote between output normals");
        FUZZ_REQUIRE(padding_untouched(&out_tangents), "wrote between output tangents");
        for (v = 0; v < vertex_count; ++v) {
            int attribute;
            for (attribute = 0; attribute < 2; ++attribute) {
                const layout *in_layout = attribute ? &tangents : &normals, *out_layout = attribute ? &out_tangents : &out_normals;
                const unsigned char *base_record;
                double n2 = 0.0;
                if (!(attribute ? has_tangents : has_normals)) continue;
                base_record = (const unsigned char *)copies[1 + attribute] + (size_t)v * in_layout->effective;
                if (memcmp(layout_record(out_layout, v), base_record, 12) == 0) continue; /* its base */
                for (c = 0; c < 3; ++c) n2 += (double)layout_get(out_layout, v, c) * (double)layout_get(out_layout, v, c);
                FUZZ_REQUIRE(fabs(n2 - 1.0) <= 1e-3, "%s %d neither its base nor unit: |n|^2 %g",
                             attribute ? "tangent" : "normal", v, n2);
            }
            if (has_tangents)
                FUZZ_REQUIRE(memcmp((const unsigned char *)layout_record(&out_tangents, v) + 12,
                                    (const unsigned char *)copies[2] + (size_t)v * tangents.effective + 12, 4) == 0,
                             "tangent %d: w not copied", v);
        }
    }
    if (!in_place) FUZZ_REQUIRE(memcmp(copies[0], positions.block, positions.bytes + positions.offset) == 0, "positions modified");
    if (desc.out_normals != layout_data(&normals))
        FUZZ_REQUIRE(memcmp(copies[1], normals.block, normals.bytes) == 0, "normals modified");
    FUZZ_REQUIRE(memcmp(copies[2], tangents.block, tangents.bytes) == 0, "tangents modified");
    for (i = 0; i < alloc_targets; ++i) {
        for (c = 0; c < 3; ++c)
            FUZZ_REQUIRE(memcmp(copies[3 + 3 * i + c], data[i].deltas[c].block, data[i].deltas[c].bytes) == 0,
                         "target %d's deltas modified", i);
        FUZZ_REQUIRE(memcmp(index_copies[i], data[i].indices, data[i].index_count * sizeof(uint32_t)) == 0,
                     "target %d's indices modified", i);
        free(index_copies[i]);
        for (c = 0; c < 3; ++c) free(copies[3 + 3 * i + c]);
    }
    FUZZ_REQUIRE(memcmp(targets_copy, targets, (size_t)alloc_targets * sizeof *targets) == 0, "targets modified");
    FUZZ_REQUIRE(memcmp(weights_copy, weights, (size_t)alloc_targets * sizeof *weights) == 0, "weights modified");
    for (c = 0; c < 3; ++c) { free(copies[c]); free(out_copies[c]); }
    free(targets_copy); free(weights_copy);
done:
    for (i = 0; i < alloc_targets; ++i) {
        for (c = 0; c < 3; ++c) free(data[i].deltas[c].block);
        free(data[i].indices);
    }
    free(data); free(targets); free(weights);
    free(positions.block); free(normals.block); free(tangents.block);
    free(out_positions.block); free(out_normals.block); free(out_tangents.block);
}

/* ============================================================================
   Palette splitting
   ============================================================================ */

static uint16_t decode_joint(fuzz_input *in, int bone_count)
{
    uint8_t b = fuzz_byte(in);
    if (b < 224) return (uint16_t)(bone_count > 0 && bone_count <= 65536 ? b % bone_count : b % 16);
    if (b < 240) return (uint16_t)(bone_count >= 0 && bone_count < 65535 ? bone_count + b % 2 : 65535);
    if (b < 248) return 65535;
    return (uint16_t)fuzz_u32(in);
}

static int in_list(const uint16_t *list, int count, uint16_t bone)
{
    int i;
    for (i = 0; i < count; ++i)
        if (list[i] == bone) return i;
    return -1;
}

/* fk_palette_local_joints() on vertex v with a group's bones (exact copies). */
static void check_local_joints(const uint16_t *group_bones, int bone_count_in_group, const uint16_t *joints,
                               const float *weights, int k, uint32_t vertex)
{
    uint16_t *bones = (uint16_t *)fuzz_copy(group_bones, (size_t)bone_count_in_group * sizeof(uint16_t));
    uint16_t *vj = (uint16_t *)fuzz_copy(joints + (size_t)vertex * (size_t)k, (size_t)k * sizeof(uint16_t));
    float *vw = (float *)fuzz_copy(weights + (size_t)vertex * (size_t)k, (size_t)k * sizeof(float));
    uint16_t *out = (uint16_t *)fuzz_sentinel_alloc((size_t)k * sizeof(uint16_t));
    uint16_t *in_place = (uint16_t *)fuzz_copy(vj, (size_t)k * sizeof(uint16_t));
    fk_result r = fk_palette_local_joints(bone_count_in_group, bones, 1, k, vj, vw, out);
    int j;
    FUZZ_REQUIRE(r == FK_OK, "local joints of vertex %u in its group: %d", (unsigned)vertex, (int)r);
    for (j = 0; j < k; ++j) {
        int at = in_list(bones, bone_count_in_group, vj[j]);
        if (at >= 0) FUZZ_REQUIRE(out[j] == at, "vertex %u joint %d: local %d, palette has it at %d", (unsigned)vertex, j, out[j], at);
        else FUZZ_REQUIRE(vw[j] == 0.0f && out[j] == 0, "vertex %u joint %d missing from its group", (unsigned)vertex, j);
    }
    FUZZ_REQUIRE(fk_palette_local_joints(bone_count_in_group, bones, 1, k, in_place, vw, in_place) == FK_OK, "in place failed");
    FUZZ_REQUIRE(memcmp(in_place, out, (size_t)k * sizeof(uint16_t)) == 0, "in place differs");
    free(bones); free(vj); free(vw); free(out); free(in_place);
}

static void fuzz_palette(fuzz_input *in)
{
    uint8_t flags = fuzz_byte(in);
    fk_palette_split_desc d;
    int tri = fuzz_int(in, MAX_TRIANGLES / 2 + 1, 0);
    int vertex_count = fuzz_int(in, 9, 0);
    int k = fuzz_int(in, 4, 1);
    int bone_count = (flags & 1) ? fuzz_int(in, 40, 0) : fuzz_int(in, 12, 0);
    int max_bones = fuzz_int(in, 8, 1);
    int capacity = fuzz_int(in, 6, 0);
    int alloc_tri, alloc_vertices, alloc_k, slots, alloc_groups, i, t, e, j, g;
    int count_groups = -7, groups = -7, expect_error = 0, bad_weight = 0, bad_joint = 0, bad_index = 0;
    size_t bones_len;
    uint32_t *indices, *indices_copy;
    uint16_t *joints, *joints_copy, *group_bones;
    float *weights, *weights_copy;
    int *triangle_groups, *group_counts, *count_out, *group_out;
    fk_result r_count, r;

    if (tri > MAX_TRIANGLES || vertex_count > MAX_VERTICES) return;
    if (k > MAX_INFLUENCES && vertex_count > 0) return; /* would need gigabytes of weights */
    alloc_tri = tri > 0 ? tri : 0;
    alloc_vertices = vertex_count > 0 ? vertex_count : 0;
    alloc_k = k > 0 && k <= MAX_INFLUENCES ? k : 0;
    slots = alloc_vertices * alloc_k;
    indices = (uint32_t *)fuzz_alloc((size_t)alloc_tri * 3 * sizeof(uint32_t));
    for (i = 0; i < 3 * alloc_tri; ++i) {
        indices[i] = decode_index(in, vertex_count);
        if (indices[i] >= (uint32_t)alloc_vertices) bad_index = 1;
    }
    joints = (uint16_t *)fuzz_alloc((size_t)slots * sizeof(uint16_t));
    weights = (float *)fuzz_alloc((size_t)slots * sizeof(float));
    for (i = 0; i < slots; ++i) {
        uint8_t b = fuzz_byte(in);
        joints[i] = decode_joint(in, bone_count);
        weights[i] = b < 64 ? 0.0f : b < 72 ? -0.0f : fuzz_float(in);
        if (!fuzz_is_finite(weights[i])) bad_weight = 1;
        if (weights[i] != 0.0f && (int)joints[i] >= bone_count) bad_joint = 1;
    }
    indices_copy = (uint32_t *)fuzz_copy(indices, (size_t)alloc_tri * 3 * sizeof(uint32_t));
    joints_copy = (uint16_t *)fuzz_copy(joints, (size_t)slots * sizeof(uint16_t));
    weights_copy = (float *)fuzz_copy(weights, (size_t)slots * sizeof(float));

    d.triangle_count = tri;
    d.indices = indices;
    d.vertex_count = vertex_count;
    d.influences = k;
    d.joints = joints;
    d.weights = weights;
    d.bone_count = bone_count;
    d.max_bones = max_bones;
    if (tri < 0 || vertex_count < 0 || k < 1 || max_bones < 1 || bone_count < 0 || bone_count > 65536 || capacity < 0)
        expect_error = 1;
    if (tri > 0 && (bad_index || bad_weight || bad_joint)) expect_error = 1;

    /* Outputs: room for the groups there can be (one triangle each at most), or
       group 0 alone when max_bones is so large that every triangle fits it. */
    alloc_groups = capacity < 0 ? 0 : capacity < alloc_tri ? capacity : alloc_tri;
    if (max_bones > 4096 && alloc_groups > 1) alloc_groups = 1;
    bones_len = alloc_groups <= 0 || max_bones < 1 ? 0
                : max_bones > 4096 ? (size_t)(3 * alloc_k * alloc_tri)
                                   : (size_t)alloc_groups * (size_t)max_bones;
    triangle_groups = (int *)fuzz_sentinel_alloc((size_t)alloc_tri * sizeof(int));
    group_bones = (uint16_t *)fuzz_sentinel_alloc(bones_len * sizeof(uint16_t));
    group_counts = (int *)fuzz_sentinel_alloc((size_t)alloc_groups * sizeof(int));
    count_out = (int *)fuzz_alloc(sizeof(int));
    group_out = (int *)fuzz_alloc(sizeof(int));
    *count_out = -7;
    *group_out = -7;

    r_count = fk_palette_split(&d, capacity, NULL, NULL, NULL, count_out);
    count_groups = *count_out;
    r = fk_palette_split(&d, capacity, triangle_groups, group_bones, group_counts, group_out);
    groups = *group_out;
    if (expect_error) FUZZ_REQUIRE(r != FK_OK && r_count != FK_OK, "a bad mesh was split: %d, counting %d", (int)r, (int)r_count);
    FUZZ_REQUIRE(r == FK_OK || r == FK_ERROR_INVALID_COUNT || r == FK_ERROR_JOINT_OUT_OF_RANGE || r == FK_ERROR_INVALID_WEIGHT,
                 "split: %d", (int)r);
    if (r_count != FK_OK) {
        FUZZ_REQUIRE(count_groups == -7, "counting wrote the group count on error %d", (int)r_count);
        FUZZ_REQUIRE(r == r_count, "counting gave %d, writing %d", (int)r_count, (int)r);
    } else {
        FUZZ_REQUIRE(count_groups >= 0 && count_groups <= alloc_tri, "counting: %d groups of %d triangles", count_groups, tri);
        FUZZ_REQUIRE((count_groups <= capacity) == (r == FK_OK), "counted %d groups for capacity %d, writing gave %d",
                     count_groups, capacity, (int)r);
        if (r != FK_OK) FUZZ_REQUIRE(r == FK_ERROR_INVALID_COUNT, "more groups than room, yet %d", (int)r);
    }
    if (r != FK_OK) {
        FUZZ_REQUIRE(groups == -7, "split wrote the group count on error %d", (int)r);
        FUZZ_REQUIRE(all_sentinel(triangle_groups, (size_t)alloc_tri * sizeof(int)), "triangle groups written on error");
        FUZZ_REQUIRE(all_sentinel(group_bones, bones_len * sizeof(uint16_t)), "group bones written on error");
        FUZZ_REQUIRE(all_sentinel(group_counts, (size_t)alloc_groups * sizeof(int)), "group counts written on error");
    } else {
        FUZZ_REQUIRE(groups == count_groups, "writing gave %d groups, counting %d", groups, count_groups);
        FUZZ_REQUIRE((tri == 0) == (groups == 0), "%d groups for %d triangles", groups, tri);
        for (t = 0; t < tri; ++t) {
            int previous = t ? triangle_groups[t - 1] : 0;
            FUZZ_REQUIRE(triangle_groups[t] >= 0 && triangle_groups[t] < groups, "triangle %d in group %d of %d", t,
                         triangle_groups[t], groups);
            FUZZ_REQUIRE(triangle_groups[t] == previous || triangle_groups[t] == previous + 1, "triangle %d: group %d after %d",
                         t, triangle_groups[t], previous);
        }
        for (g = 0; g < groups; ++g) {
            const uint16_t *bones = group_bones + (size_t)g * (size_t)max_bones;
            int n = group_counts[g], used = 0, first = -1, b;
            uint16_t *uses = (uint16_t *)fuzz_alloc((size_t)(3 * alloc_k * alloc_tri) * sizeof(uint16_t));
            FUZZ_REQUIRE(n >= 0 && n <= max_bones, "group %d has %d bones (max %d)", g, n, max_bones);
            for (b = 0; b < n; ++b) {
                FUZZ_REQUIRE((int)bones[b] < bone_count, "group %d bone %d is %d of %d", g, b, bones[b], bone_count);
                FUZZ_REQUIRE(in_list(bones, b, bones[b]) < 0, "group %d lists bone %d twice", g, bones[b]);
            }
            /* the nonzero-weight joints of its triangles: exactly its bones */
            for (t = 0; t < tri; ++t) {
                if (triangle_groups[t] != g) continue;
                if (first < 0) first = t;
                for (e = 0; e < 3; ++e) {
                    uint32_t vertex = indices[3 * t + e];
                    for (j = 0; j < k; ++j) {
                        size_t at = (size_t)vertex * (size_t)k + (size_t)j;
                        if (weights[at] == 0.0f) continue;
                        FUZZ_REQUIRE(in_list(bones, n, joints[at]) >= 0, "triangle %d's joint %d is not in group %d", t,
                                     joints[at], g);
                        if (in_list(uses, used, joints[at]) < 0) uses[used++] = joints[at];
                    }
                    check_local_joints(bones, n, joints, weights, k, vertex);
                }
            }
            FUZZ_REQUIRE(first >= 0, "group %d has no triangle", g);
            FUZZ_REQUIRE(used == n, "group %d has %d bones, its triangles use %d", g, n, used);
            free(uses);
        }
        if (groups > 1) { /* greedy, counted exactly: the first triangle of group g with group g - 1's bones */
            for (g = 1; g < groups; ++g) {
                const uint16_t *before = group_bones + (size_t)(g - 1) * (size_t)max_bones;
                uint16_t extra[3 * MAX_INFLUENCES];
                int first = 0, extras = 0;
                while (triangle_groups[first] != g) ++first;
                for (e = 0; e < 3; ++e)
                    for (j = 0; j < k; ++j) {
                        size_t at = (size_t)indices[3 * first + e] * (size_t)k + (size_t)j;
                        if (weights[at] == 0.0f || in_list(before, group_counts[g - 1], joints[at]) >= 0 ||
                            in_list(extra, extras, joints[at]) >= 0)
                            continue;
                        extra[extras++] = joints[at];
                    }
                FUZZ_REQUIRE(group_counts[g - 1] + extras > max_bones, "group %d started though triangle %d fit group %d",
                             g, first, g - 1);
            }
        }
    }

    { /* fk_palette_local_joints with a palette from the bytes */
        int palette_count = fuzz_int(in, 6, 0), alloc_palette = palette_count > 0 && palette_count <= 64 ? palette_count : 0;
        uint16_t *palette, *out;
        int missing = 0;
        fk_result lr;
        if (palette_count > 64) goto free_all;
        palette = (uint16_t *)fuzz_alloc((size_t)alloc_palette * sizeof(uint16_t));
        for (i = 0; i < alloc_palette; ++i) palette[i] = decode_joint(in, bone_count);
        out = (uint16_t *)fuzz_sentinel_alloc((size_t)slots * sizeof(uint16_t));
        for (i = 0; i < slots; ++i)
            if (weights[i] != 0.0f && in_list(palette, alloc_palette, joints[i]) < 0) missing = 1;
        lr = fk_palette_local_joints(palette_count, palette, vertex_count, k, joints, weights, out);
        if (palette_count < 0 || vertex_count < 0 || k < 1) FUZZ_REQUIRE(lr == FK_ERROR_INVALID_COUNT, "local joints: %d", (int)lr);
        else FUZZ_REQUIRE(lr == (missing ? FK_ERROR_JOINT_OUT_OF_RANGE : FK_OK), "local joints: %d, missing %d", (int)lr, missing);
        if (lr != FK_OK) {
            FUZZ_REQUIRE(all_sentinel(out, (size_t)slots * sizeof(uint16_t)), "local joints wrote on error %d", (int)lr);
        } else {
            for (i = 0; i < slots; ++i) {
                int at = in_list(palette, alloc_palette, joints[i]);
                FUZZ_REQUIRE(at >= 0 ? out[i] == at : out[i] == 0, "local joint %d: %d, palette has it at %d", i, out[i], at);
            }
        }
        free(palette); free(out);
    }
free_all:
    FUZZ_REQUIRE(memcmp(indices, indices_copy, (size_t)alloc_tri * 3 * sizeof(uint32_t)) == 0, "indices modified");
    FUZZ_REQUIRE(memcmp(joints, joints_copy, (size_t)slots * sizeof(uint16_t)) == 0, "joints modified");
    FUZZ_REQUIRE(memcmp(weights, weights_copy, (size_t)slots * sizeof(float)) == 0, "weights modified");
    free(indices); free(joints); free(weights); free(indices_copy); free(joints_copy); free(weights_copy);
    free(triangle_groups); free(group_bones); free(group_counts); free(count_out); free(group_out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in;
    in.data = data; in.size = size; in.used = 0;
    switch (fuzz_byte(&in) % 3) {
    case 0: fuzz_tracks(&in); break;
    case 1: fuzz_morph(&in); break;
    default: fuzz_palette(&in); break;
    }
    return 0;
}
