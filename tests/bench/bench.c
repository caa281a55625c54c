/* bench.c - how fast fk_lbs.h skins and poses, next to memcpy and a plain loop.

   One run times, at 10k, 100k and 1M vertices with 64 bones:
     - memcpy of as many bytes as the skinning case moves (read + written),
     - a plain hand-written loop (bones to 3x4 once, blend k matrices, apply),
     - fk_skin_lbs with k = 1, 2, 4, 8 influences, positions and positions + normals,
     - fk_skin_dqs likewise, and fk_skin_cor (centres of rotation),
     - both with k = 4 and normals on interleaved records (48 bytes a vertex in,
       24 out), the layout of many engines' vertex buffers,
   and fk_forward on two 60-joint skeletons (a bushy tree, a humanoid with fingers)
   over many poses and on a 10,000-joint tree, and fk_cor_centers on a
   character-like mesh of 36,000 and of 150,000 vertices, and of 12,000 with
   wide weights (one call each, after one fk_skin_lbs of the same mesh for scale); then fk_forward_engine_rigid and
   fk_forward_engine (with scales), inverse binds included, on those two and on
   200 joints, each per joint against fk_forward on the same rotations, and on
   the skeleton listed children first against parents first.
   Each figure is the median of repeated samples, with the fastest and slowest.
   DQS is timed right after LBS and after its own calls (time_paired).
   Then the same LBS split over two threads, the cost of a call, the core's
   clock right after LBS and DQS, and the peak resident memory.
   Last, when built with BENCH_BASELINE (make bench does, from git), this
   header against an earlier one (tests/bench/baseline.c) on the same data and
   in the same run: LBS, LBS with normals and DQS at 1M vertices with k = 4,
   fk_forward on the two 60-joint skeletons, and calls on 16 vertices, the two
   timed in turn (time_alternating), each row with its time ratio.

   Build and run: make bench (the user's CFLAGS; `make bench CFLAGS='-O3 -march=native'`).
   Once built, `build/bench inputs` runs only the rows of skinning inputs,
   `build/bench engine` only those of engine-form forward kinematics, and
   `build/bench normals` only those of skinning with normals and the comparison
   with the earlier header. */
#define _POSIX_C_SOURCE 200809L
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
#define BENCH_HAVE_TSC 1
#endif

#ifndef BENCH_FLAGS
#define BENCH_FLAGS (unknown)
#endif
#define BENCH_STRING2(x) #x
#define BENCH_STRING(x) BENCH_STRING2(x)

#ifdef BENCH_BASELINE
/* The header at commit BENCH_BASELINE, compiled into tests/bench/baseline.c's
   object with FK_LBS_STATIC: these are its exports. */
fk_result baseline_skin_lbs(const fk_skin_desc *desc);
fk_result baseline_skin_dqs(const fk_skin_desc *desc);
fk_result baseline_forward(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                           const fk_quat *rotations, const fk_vec3 *translations, fk_rigid *out);
size_t baseline_type_sizes(void);
size_t baseline_skin_desc_size(void);
#endif

enum { BONES = 64, MAX_K = 8, SAMPLES = 31, MAX_VERTICES = 1000000 };
/* The rig of 1000 bones in which the 64 sit SPREAD apart (bench_inputs()). */
enum { BIG_RIG = 1000, SPREAD = 15, SCRATCH_BYTES = 512 * 1024 };

/* ---- Timing ------------------------------------------------------------------ */

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct timing { double median, min, max; } timing; /* seconds per call */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static timing summarize(double *samples, int count)
{
    timing t;
    qsort(samples, (size_t)count, sizeof *samples, compare_doubles);
    t.median = samples[count / 2]; t.min = samples[0]; t.max = samples[count - 1];
    return t;
}

/* Calls run(context) `calls` times per sample, SAMPLES samples after one warm-up. */
static timing time_calls(void (*run)(void *), void *context, int calls)
{
    double samples[SAMPLES];
    int s, c;
    run(context);
    for (s = 0; s < SAMPLES; ++s) {
        double start = seconds_now();
        for (c = 0; c < calls; ++c) run(context);
        samples[s] = (seconds_now() - start) / calls;
    }
    return summarize(samples, SAMPLES);
}

/* The same for two cases on the same buffers (DQS against LBS), interleaved so
   that both meet the same load on a shared machine. Each sample times
   `reference`, then `run` right after it, then `run` again after its own
   calls. The returned timing and ratios->own are from the second (what a
   caller who only calls `run` sees), ratios->after_reference from the first:
   on this guest DQS measured up to 8% slower right after LBS than after its
   own calls (see docs/performance.md and bench_clock()). Each ratio is the
   median over the samples of reference time / run time, steadier than a ratio
   of medians. With different buffers each case would evict the other's data,
   and memcpy would look slower than it is. */
typedef struct paired_ratios { double own, after_reference; } paired_ratios;

static timing time_paired(void (*run)(void *), void *context, void (*reference)(void *), void *reference_context,
                          int calls, paired_ratios *ratios)
{
    double samples[SAMPLES], own[SAMPLES], after[SAMPLES];
    int s, c;
    run(context);
    reference(reference_context);
    for (s = 0; s < SAMPLES; ++s) {
        double start = seconds_now(), middle, second, end, reference_time;
        for (c = 0; c < calls; ++c) reference(reference_context);
        middle = seconds_now();
        for (c = 0; c < calls; ++c) run(context);
        second = seconds_now();
        for (c = 0; c < calls; ++c) run(context);
        end = seconds_now();
        reference_time = (middle - start) / calls;
        samples[s] = (end - second) / calls;
        own[s] = reference_time / samples[s];
        after[s] = reference_time / ((second - middle) / calls);
    }
    ratios->own = summarize(own, SAMPLES).median;
    ratios->after_reference = summarize(after, SAMPLES).median;
    return summarize(samples, SAMPLES);
}

#ifdef BENCH_BASELINE
/* Two versions of a case on the same buffers, for the ratio of their times:
   each sample times `calls` calls of a, then as many of b (ABAB...), so that
   both meet the same load and the same drift, and each runs right after the
   other. Returns the median over the samples of a's time / b's time (steadier
   than a ratio of medians), and each one's timing. */
static double time_alternating(void (*run)(void *), void *a, void *b, int calls, timing *a_timing,
                               timing *b_timing)
{
    double a_samples[SAMPLES], b_samples[SAMPLES], ratios[SAMPLES];
    int s, c;
    run(a);
    run(b);
    for (s = 0; s < SAMPLES; ++s) {
        double start = seconds_now(), middle;
        for (c = 0; c < calls; ++c) run(a);
        middle = seconds_now();
        for (c = 0; c < calls; ++c) run(b);
        a_samples[s] = (middle - start) / calls;
        b_samples[s] = (seconds_now() - middle) / calls;
        ratios[s] = a_samples[s] / b_samples[s];
    }
    *a_timing = summarize(a_samples, SAMPLES);
    *b_timing = summarize(b_samples, SAMPLES);
    return summarize(ratios, SAMPLES).median;
}
#endif

static double tsc_ghz; /* 0 when there is no time-stamp counter to read */

static void calibrate_tsc(void)
{
#ifdef BENCH_HAVE_TSC
    double start = seconds_now(), end;
    unsigned long long ticks = __rdtsc();
    do end = seconds_now(); while (end - start < 0.05);
    tsc_ghz = (double)(__rdtsc() - ticks) / (end - start) * 1e-9;
#endif
}

/* ---- Test data ---------------------------------------------------------------- */

static unsigned long long random_state = 0x9E3779B97F4A7C15ull;

static float random_unit(void) /* uniform in [-1, 1) */
{
    random_state = random_state * 6364136223846793005ull + 1442695040888963407ull;
    return (float)(random_state >> 40) / (float)(1 << 23) - 1.0f;
}

typedef struct mesh {
    float *positions, *normals, *weights, *out_positions, *out_normals;
    uint16_t *joints;
    fk_rigid bones[BONES];
    int k;
} mesh;

static float *positions, *normals, *out_positions, *out_normals, *weights[MAX_K + 1];
static float *centers; /* fk_skin_cor()'s, a vertex's halfway from the origin to it */
/* The k = 4 mesh once more as game engines often keep it: one record per vertex
   in (position, normal, 4 joint indices, 4 weights: 48 bytes) and one out
   (position, normal: 24 bytes), so that every array has a stride of its own. */
typedef struct vertex_record { float position[3], normal[3]; uint16_t joints[4]; float weights[4]; } vertex_record;
typedef struct skinned_record { float position[3], normal[3]; } skinned_record;
static vertex_record *records;
static skinned_record *out_records;
static uint16_t *joints[MAX_K + 1];
static fk_rigid bones[BONES];
static fk_rigid near_bones[BONES]; /* rotations within 60 degrees of one another, random signs */
static float scaled_bones[BONES][12]; /* the bones after a scale and shear: affine matrices */
static fk_rigid bind_poses[BONES];     /* their rest frames, for DQS with scale */
static unsigned char *copy_source, *copy_target;
static size_t allocated_bytes;
static fk_rigid big_bones[BIG_RIG], big_bind_poses[BIG_RIG];
static float big_scaled_bones[BIG_RIG][12];
static uint16_t *big_joints;   /* joints[4] spread over the big rig */
static uint8_t *joints_u8, *weights_u8; /* joints[4] as uint8_t, weights[4] as unorm8 codes */
static uint16_t *weights_u16;  /* and as unorm16 codes */
static uint16_t *joints_apart[2]; /* joints[8] as two arrays of 4 a vertex, */
static float *weights_apart[2];   /* and weights[8] */
static void *scratch;          /* SCRATCH_BYTES for the big rig's calls */

static void *allocate(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) { fprintf(stderr, "out of memory\n"); exit(1); }
    /* Touch every page now, not inside a timed call. Not with zeros: compilers
       turn malloc and memset(0) into calloc, which leaves fresh pages unmapped,
       and every read of them then hits one shared page of zeros (a memcpy from
       such a buffer reads at cache speed and takes half the time of a real one). */
    memset(p, 0xA5, bytes);
    allocated_bytes += bytes;
    return p;
}

/* Bytes a skinning call reads and writes per vertex: position, k indices, k weights,
   output position, and a normal in and out. */
static size_t bytes_per_vertex(int k, int with_normals)
{
    return 12 + 2 * (size_t)k + 4 * (size_t)k + 12 + (with_normals ? 24 : 0);
}

static void make_data(void)
{
    size_t n = MAX_VERTICES, i;
    int k, e;
    positions = (float *)allocate(12 * n); normals = (float *)allocate(12 * n);
    out_positions = (float *)allocate(12 * n); out_normals = (float *)allocate(12 * n);
    for (i = 0; i < 3 * n; ++i) positions[i] = random_unit();
    centers = (float *)allocate(12 * n);
    for (i = 0; i < 3 * n; ++i) centers[i] = 0.5f * positions[i];
    for (i = 0; i < n; ++i) {
        fk_vec3 v = fk_vec3_normalize(fk_vec3_make(random_unit(), random_unit(), random_unit() + 0.01f));
        normals[3 * i] = v.x; normals[3 * i + 1] = v.y; normals[3 * i + 2] = v.z;
    }
    for (k = 1; k <= MAX_K; k *= 2) {
        joints[k] = (uint16_t *)allocate(2 * (size_t)k * n);
        weights[k] = (float *)allocate(4 * (size_t)k * n);
        for (i = 0; i < n; ++i) {
            float sum = 0.0f;
            for (e = 0; e < k; ++e) {
                joints[k][i * (size_t)k + (size_t)e] = (uint16_t)((random_unit() + 1.0f) * 0.5f * BONES);
                sum += weights[k][i * (size_t)k + (size_t)e] = random_unit() + 1.5f;
            }
            for (e = 0; e < k; ++e) weights[k][i * (size_t)k + (size_t)e] /= sum;
        }
    }
    for (e = 0; e < BONES; ++e) {
        /* rotations in every direction, so that DQS meets influences from both hemispheres */
        fk_quat q = fk_quat_normalize(fk_quat_make(random_unit(), random_unit(), random_unit(), random_unit() + 0.01f));
        bones[e] = fk_rigid_make(q, fk_vec3_make(random_unit(), random_unit(), random_unit()));
        q = fk_quat_normalize(fk_quat_make(0.25f * random_unit(), 0.25f * random_unit(), 0.25f * random_unit(), 1.0f));
        if (random_unit() < 0.0f) q = fk_quat_make(-q.x, -q.y, -q.z, -q.w);
        near_bones[e] = fk_rigid_make(q, bones[e].t);
        bind_poses[e] = fk_rigid_make(near_bones[e].q, fk_vec3_make(random_unit(), random_unit(), random_unit()));
        fk_mat34_from_trs(fk_vec3_make(0, 0, 0), fk_quat_identity(),
                          fk_vec3_make(1.5f + 0.5f * random_unit(), 1.0f + 0.25f * random_unit(), 0.75f), scaled_bones[e]);
        scaled_bones[e][1] = 0.2f * random_unit(); /* shear */
        {
            float rigid[12];
            fk_rigid_to_mat34(bones[e], rigid);
            fk_mat34_mul(rigid, scaled_bones[e], scaled_bones[e]);
        }
    }
    records = (vertex_record *)allocate(sizeof *records * n);
    out_records = (skinned_record *)allocate(sizeof *out_records * n);
    for (i = 0; i < n; ++i) {
        memcpy(records[i].position, positions + 3 * i, sizeof records[i].position);
        memcpy(records[i].normal, normals + 3 * i, sizeof records[i].normal);
        memcpy(records[i].joints, joints[4] + 4 * i, sizeof records[i].joints);
        memcpy(records[i].weights, weights[4] + 4 * i, sizeof records[i].weights);
    }
    /* the 64 bones at e SPREAD + 3 of 1000, the rest copies of them that no vertex uses */
    for (e = 0; e < BIG_RIG; ++e) {
        const int from = e % SPREAD == 3 && e / SPREAD < BONES ? e / SPREAD : e % BONES;
        big_bones[e] = bones[from];
        big_bind_poses[e] = bind_poses[from];
        memcpy(big_scaled_bones[e], scaled_bones[from], sizeof big_scaled_bones[e]);
    }
    big_joints = (uint16_t *)allocate(2 * 4 * n);
    for (i = 0; i < 4 * n; ++i) big_joints[i] = (uint16_t)(joints[4][i] * SPREAD + 3);
    scratch = allocate(SCRATCH_BYTES);
    joints_u8 = (uint8_t *)allocate(4 * n); weights_u8 = (uint8_t *)allocate(4 * n);
    weights_u16 = (uint16_t *)allocate(2 * 4 * n);
    for (i = 0; i < 4 * n; ++i) {
        joints_u8[i] = (uint8_t)joints[4][i];
        weights_u8[i] = (uint8_t)(weights[4][i] * 255.0f + 0.5f);
        weights_u16[i] = (uint16_t)(weights[4][i] * 65535.0f + 0.5f);
    }
    for (e = 0; e < 2; ++e) {
        joints_apart[e] = (uint16_t *)allocate(2 * 4 * n);
        weights_apart[e] = (float *)allocate(4 * 4 * n);
        for (i = 0; i < 4 * n; ++i) {
            joints_apart[e][i] = joints[8][i / 4 * 8 + 4 * (size_t)e + i % 4];
            weights_apart[e][i] = weights[8][i / 4 * 8 + 4 * (size_t)e + i % 4];
        }
    }
    /* memcpy moves half of a case's bytes each way: at most (12 + 16 + 32 + 12 + 24) / 2 per vertex */
    copy_source = (unsigned char *)allocate(bytes_per_vertex(MAX_K, 1) / 2 * n);
    copy_target = (unsigned char *)allocate(bytes_per_vertex(MAX_K, 1) / 2 * n);
}

/* ---- The cases ------------------------------------------------------------------ */

typedef struct job {
    int begin, end, k, with_normals, dqs, near; /* dqs: 1 DQS, 2 CoR; near: skin with near_bones */
    size_t copy_bytes; /* per vertex, for memcpy */
    int interleaved;   /* k = 4 with normals, from records to out_records */
    int affine;        /* skin with scaled_bones, as matrices */
    int at_bone;       /* and DQS centres their scale parts at the bone */
    int big;           /* k = 4 on the rig of 1000 bones, its palette in scratch memory */
    int format;        /* k = 4: 1 uint8_t joints and unorm8 weights, 2 unorm16 weights; k = 8: 3 two streams
                          side by side in each vertex's lists, 4 two streams in arrays apart */
} job;

static void run_memcpy(void *context)
{
    const job *j = (const job *)context;
    memcpy(copy_target + (size_t)j->begin * j->copy_bytes, copy_source + (size_t)j->begin * j->copy_bytes,
           (size_t)(j->end - j->begin) * j->copy_bytes);
}

/* What a careful programmer writes without SIMD: bones to 3x4 once per call,
   blend k matrices per vertex, apply once. */
static void run_plain(void *context)
{
    const job *j = (const job *)context;
    float palette[BONES][12];
    int b, i, e, c;
    for (b = 0; b < BONES; ++b) fk_rigid_to_mat34(bones[b], palette[b]);
    for (i = j->begin; i < j->end; ++i) {
        const uint16_t *index = joints[j->k] + (size_t)i * (size_t)j->k;
        const float *weight = weights[j->k] + (size_t)i * (size_t)j->k;
        const float *p = positions + 3 * (size_t)i;
        float m[12], *out = out_positions + 3 * (size_t)i;
        for (c = 0; c < 12; ++c) m[c] = weight[0] * palette[index[0]][c];
        for (e = 1; e < j->k; ++e)
            for (c = 0; c < 12; ++c) m[c] += weight[e] * palette[index[e]][c];
        out[0] = m[0] * p[0] + m[1] * p[1] + m[2] * p[2] + m[3];
        out[1] = m[4] * p[0] + m[5] * p[1] + m[6] * p[2] + m[7];
        out[2] = m[8] * p[0] + m[9] * p[1] + m[10] * p[2] + m[11];
        if (j->with_normals) {
            const float *n = normals + 3 * (size_t)i;
            float *o = out_normals + 3 * (size_t)i;
            float x = m[0] * n[0] + m[1] * n[1] + m[2] * n[2];
            float y = m[4] * n[0] + m[5] * n[1] + m[6] * n[2];
            float z = m[8] * n[0] + m[9] * n[1] + m[10] * n[2];
            float inverse = 1.0f / sqrtf(x * x + y * y + z * z);
            o[0] = x * inverse; o[1] = y * inverse; o[2] = z * inverse;
        }
    }
}

static fk_skin_desc job_desc(const job *j)
{
    fk_skin_desc d;
    size_t first = (size_t)j->begin;
    memset(&d, 0, sizeof d);
    d.vertex_count = j->end - j->begin;
    d.influences = j->k;
    d.positions = positions + 3 * first;
    d.normals = j->with_normals ? normals + 3 * first : NULL;
    d.joints = joints[j->k] + (size_t)j->k * first;
    d.weights = weights[j->k] + (size_t)j->k * first;
    d.transforms = j->near ? near_bones : bones;
    if (j->affine) {
        d.transforms = NULL;
        d.matrices = &scaled_bones[0][0];
        d.bind_poses = bind_poses;
        d.dqs_scale_center = j->at_bone ? FK_DQS_SCALE_AT_BONE : FK_DQS_SCALE_AT_VERTEX;
    }
    d.transform_count = BONES;
    if (j->format == 1 || j->format == 2) {
        d.joint_format = j->format == 1 ? FK_JOINTS_U8 : FK_JOINTS_U16;
        d.joints = j->format == 1 ? (const void *)(joints_u8 + 4 * first) : d.joints;
        d.weight_format = j->format == 1 ? FK_WEIGHTS_UNORM8 : FK_WEIGHTS_UNORM16;
        d.weights = j->format == 1 ? (const void *)(weights_u8 + 4 * first) : (const void *)(weights_u16 + 4 * first);
    }
    if (j->format == 3) { /* the k = 8 lists as two streams of 4 */
        d.joint_stride = 8 * sizeof(uint16_t); d.weight_stride = 8 * sizeof(float);
        d.joints2 = joints[8] + 8 * first + 4; d.joint2_stride = d.joint_stride;
        d.weights2 = weights[8] + 8 * first + 4; d.weight2_stride = d.weight_stride;
    }
    if (j->format == 4) { /* the same lists as two arrays of 4 a vertex */
        d.joints = joints_apart[0] + 4 * first; d.joints2 = joints_apart[1] + 4 * first;
        d.weights = weights_apart[0] + 4 * first; d.weights2 = weights_apart[1] + 4 * first;
    }
    if (j->big) {
        d.joints = big_joints + 4 * first;
        d.transforms = d.transforms ? big_bones : NULL;
        d.matrices = d.matrices ? &big_scaled_bones[0][0] : NULL;
        d.bind_poses = d.bind_poses ? big_bind_poses : NULL;
        d.transform_count = BIG_RIG;
        d.scratch = scratch;
        d.scratch_size = SCRATCH_BYTES;
    }
    d.out_positions = out_positions + 3 * first;
    d.out_normals = j->with_normals ? out_normals + 3 * first : NULL;
    if (j->interleaved) {
        d.positions = records[first].position; d.normals = records[first].normal;
        d.joints = records[first].joints;      d.weights = records[first].weights;
        d.position_stride = d.normal_stride = d.joint_stride = d.weight_stride = sizeof *records;
        d.out_positions = out_records[first].position; d.out_normals = out_records[first].normal;
        d.out_position_stride = d.out_normal_stride = sizeof *out_records;
    }
    return d;
}

static void run_skin(void *context)
{
    const job *j = (const job *)context;
    fk_skin_desc d = job_desc(j);
    fk_result r = j->dqs == 2 ? fk_skin_cor(&d, centers + 3 * (size_t)j->begin, 0)
                  : j->dqs ? fk_skin_dqs(&d) : fk_skin_lbs(&d);
    if (r != FK_OK) { fprintf(stderr, "skinning failed: %s\n", fk_result_description(r)); exit(1); }
}

/* Two threads, each running the case on its half of the vertex range: the
   pattern docs/performance.md describes. */
typedef struct halves { job half[2]; void (*run)(void *); } halves;

static void *run_half(void *context)
{
    halves *h = (halves *)context;
    h->run(&h->half[1]);
    return NULL;
}

static void run_two_threads(void *context)
{
    halves *h = (halves *)context;
    pthread_t other;
    if (pthread_create(&other, NULL, run_half, h) != 0) { fprintf(stderr, "pthread_create failed\n"); exit(1); }
    h->run(&h->half[0]);
    pthread_join(other, NULL);
}

/* ---- Report ------------------------------------------------------------------------- */

static int calls_for(int n) { return n >= MAX_VERTICES ? 1 : MAX_VERTICES / n; }

static void print_row(const char *name, int n, size_t bytes, timing t, double memcpy_ratio, double plain_time)
{
    double per_second = n / t.median;
    printf("%-26s %8.3f %8.3f %8.3f %8.1f %6.1f", name, t.median * 1e3, t.min * 1e3, t.max * 1e3,
           per_second * 1e-6, per_second * (double)bytes * 1e-9);
    if (tsc_ghz > 0.0) printf(" %6.2f", t.median / n * tsc_ghz * 1e9);
    else printf(" %6s", "-");
    if (memcpy_ratio > 0.0) printf(" %7.2f", memcpy_ratio); else printf(" %7s", "");
    if (plain_time > 0.0) printf(" %7.2f", plain_time / t.median);
    printf("\n");
}

/* A case's time over its reference's from time_paired(): after its own calls, and right after the reference's. */
static void print_ratios(const char *what, paired_ratios ratios, const char *note)
{
    printf("%-26s %s time %.2f (paired samples%s; %.2f right after it)\n", "", what, 1.0 / ratios.own, note,
           1.0 / ratios.after_reference);
}

static void print_dqs_ratios(paired_ratios ratios, const char *note) { print_ratios("DQS/LBS", ratios, note); }

/* The fast-path tier fk_skin_lbs(), fk_skin_dqs() and fk_forward() run here. */
static const char *simd_in_use(void)
{
#if defined(FK__SIMD)
    return fk__fast_paths()->name;
#else
    return "none (reference loops)";
#endif
}

static void bench_skinning(int n)
{
    static const int ks[] = {1, 2, 4, 8};
    double memcpy_time[2][MAX_K + 1], plain_time[2][MAX_K + 1];
    int calls = calls_for(n), w, i, use_dqs;
    char name[64];
    printf("\n%d vertices, %d bones (%d call%s per sample, %d samples)\n", n, BONES, calls, calls > 1 ? "s" : "", SAMPLES);
    printf("%-26s %8s %8s %8s %8s %6s %6s %7s %7s\n", "case", "median", "min", "max", "Mvert/s", "GB/s",
           tsc_ghz > 0.0 ? "cyc/v" : "", "memcpy", "plain");
    printf("%-26s %8s %8s %8s %8s %6s %6s %7s %7s\n", "", "ms", "ms", "ms", "", "", "", "x", "x");
    for (w = 0; w < 2; ++w)
        for (i = 0; i < 4; ++i) {
            int k = ks[i];
            job j = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
            timing t;
            j.end = n; j.k = k; j.with_normals = w;
            j.copy_bytes = bytes_per_vertex(k, w) / 2;
            t = time_calls(run_memcpy, &j, calls);
            memcpy_time[w][k] = t.median;
            snprintf(name, sizeof name, "memcpy %u+%u B (k=%d%s)", (unsigned)j.copy_bytes, (unsigned)j.copy_bytes, k,
                     w ? " +n" : "");
            print_row(name, n, 2 * j.copy_bytes, t, 0.0, 0.0);
        }
    for (w = 0; w < 2; ++w)
        for (i = 0; i < 4; ++i) {
            int k = ks[i];
            job j = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
            timing t;
            j.end = n; j.k = k; j.with_normals = w;
            t = time_calls(run_plain, &j, calls);
            plain_time[w][k] = t.median;
            snprintf(name, sizeof name, "plain loop k=%d%s", k, w ? " +normals" : "");
            print_row(name, n, bytes_per_vertex(k, w), t, memcpy_time[w][k] / t.median, 0.0);
        }
    for (w = 0; w < 2; ++w)
        for (i = 0; i < 4; ++i) {
            int k = ks[i];
            job j = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
            timing t;
            j.end = n; j.k = k; j.with_normals = w;
            t = time_calls(run_skin, &j, calls);
            snprintf(name, sizeof name, "fk_skin_lbs k=%d%s", k, w ? " +normals" : "");
            print_row(name, n, bytes_per_vertex(k, w), t, memcpy_time[w][k] / t.median, plain_time[w][k]);
        }
    for (w = 0; w < 2; ++w)
        for (i = 0; i < 4; ++i) {
            int k = ks[i];
            job j = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, lbs;
            timing t;
            paired_ratios ratios;
            j.end = n; j.k = k; j.with_normals = w; j.dqs = 1;
            lbs = j; lbs.dqs = 0;
            t = time_paired(run_skin, &j, run_skin, &lbs, calls, &ratios);
            snprintf(name, sizeof name, "fk_skin_dqs k=%d%s", k, w ? " +normals" : "");
            print_row(name, n, bytes_per_vertex(k, w), t, memcpy_time[w][k] / t.median, plain_time[w][k]);
            print_dqs_ratios(ratios, "");
        }
    for (w = 0; w < 2; ++w) /* CoR reads a centre more a vertex */
        for (i = 0; i < 4; ++i) {
            int k = ks[i];
            job j = {0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}, lbs;
            timing t;
            paired_ratios ratios;
            j.end = n; j.k = k; j.with_normals = w;
            lbs = j; lbs.dqs = 0;
            t = time_paired(run_skin, &j, run_skin, &lbs, calls, &ratios);
            snprintf(name, sizeof name, "fk_skin_cor k=%d%s", k, w ? " +normals" : "");
            print_row(name, n, bytes_per_vertex(k, w) + 12, t, memcpy_time[w][k] / t.median, plain_time[w][k]);
            print_ratios("CoR/LBS", ratios, "");
        }
    for (w = 0; w < 2; ++w) { /* rigs whose bones fit one hemisphere take a shorter path */
        job j = {0, 0, 4, 0, 1, 1, 0, 0, 0, 0, 0, 0}, lbs;
        timing t;
        paired_ratios ratios;
        j.end = n; j.with_normals = w;
        lbs = j; lbs.dqs = 0;
        t = time_paired(run_skin, &j, run_skin, &lbs, calls, &ratios);
        snprintf(name, sizeof name, "fk_skin_dqs k=4%s 1 hemi", w ? " +normals" : "");
        print_row(name, n, bytes_per_vertex(4, w), t, memcpy_time[w][4] / t.median, plain_time[w][4]);
        print_dqs_ratios(ratios, "; bones within 60 degrees");
    }
    /* bones with scale and shear, given as matrices: under LBS, under DQS
       (split into scale and rigid parts, centred at the vertex, then at the
       bone) and under CoR (3), each against LBS of rigid bones */
    for (use_dqs = 0; use_dqs < 4; ++use_dqs)
        for (w = 0; w < 2; ++w) {
            job j = {0, 0, 4, 0, 0, 0, 0, 0, 1, 0, 0, 0}, lbs;
            timing t;
            paired_ratios ratios;
            j.end = n; j.with_normals = w; j.dqs = use_dqs == 3 ? 2 : use_dqs > 0; j.at_bone = use_dqs == 2;
            lbs = j; lbs.affine = 0; lbs.dqs = 0; lbs.at_bone = 0;
            t = time_paired(run_skin, &j, run_skin, &lbs, calls, &ratios);
            snprintf(name, sizeof name, "fk_skin_%s k=4%s %s", use_dqs == 3 ? "cor" : use_dqs ? "dqs" : "lbs",
                     w ? " +n" : "", use_dqs == 2 ? "at bone" : use_dqs ? "scaled" : "affine");
            print_row(name, n, bytes_per_vertex(4, w) + (use_dqs == 3 ? 12 : 0), t, memcpy_time[w][4] / t.median,
                      plain_time[w][4]);
            print_ratios(use_dqs == 3 ? "CoR with scale/LBS" : use_dqs ? "DQS with scale/LBS" : "affine/rigid", ratios,
                         "");
        }
    { /* interleaved records (the same 72 bytes per vertex as k = 4 with normals) */
        job lbs = {0, 0, 4, 1, 0, 0, 0, 1, 0, 0, 0, 0}, dqs;
        timing t;
        paired_ratios ratios;
        lbs.end = n;
        dqs = lbs; dqs.dqs = 1;
        t = time_calls(run_skin, &lbs, calls);
        print_row("fk_skin_lbs k=4 +n records", n, bytes_per_vertex(4, 1), t, memcpy_time[1][4] / t.median,
                  plain_time[1][4]);
        t = time_paired(run_skin, &dqs, run_skin, &lbs, calls, &ratios);
        print_row("fk_skin_dqs k=4 +n records", n, bytes_per_vertex(4, 1), t, memcpy_time[1][4] / t.median,
                  plain_time[1][4]);
        print_dqs_ratios(ratios, "; interleaved records");
    }
}

/* Skinning inputs: a rig of 1000 bones (its palette in scratch memory)
   against the rig of the 64 bones its vertices use, the same vertices; LBS
   and DQS, rigid and with scale, k = 4, with normals. */
static void bench_inputs(int n)
{
    static const char *const names[5] = {"LBS", "DQS", "affine LBS", "DQS scaled", "DQS at bone"};
    int calls = calls_for(n), method;
    char name[64];
    printf("\n%d vertices, k=4 +normals: 1000 bones (scratch) against the 64 they use (median ms, min-max)\n", n);
    for (method = 0; method < 5; ++method) {
        job small = {0, 0, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0}, big;
        timing t;
        paired_ratios ratios;
        small.end = n; small.dqs = method == 1 || method >= 3; small.affine = method >= 2; small.at_bone = method == 4;
        big = small; big.big = 1;
        t = time_paired(run_skin, &big, run_skin, &small, calls, &ratios);
        snprintf(name, sizeof name, "%s 1000 bones", names[method]);
        print_row(name, n, bytes_per_vertex(4, 1), t, 0.0, 0.0);
        print_ratios("1000/64 bones", ratios, "");
    }
    printf("%d vertices +normals: glTF's formats against uint16_t joints and float weights (median ms, min-max)\n", n);
    for (method = 0; method < 8; ++method) {
        const int format = 1 + method % 4, dqs = method >= 4;
        job plain = {0, 0, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0}, coded;
        timing t;
        paired_ratios ratios;
        plain.end = n; plain.dqs = dqs; plain.k = format >= 3 ? 8 : 4;
        coded = plain; coded.format = format;
        t = time_paired(run_skin, &coded, run_skin, &plain, calls, &ratios);
        snprintf(name, sizeof name, "%s %s", dqs ? "DQS" : "LBS",
                 format == 1 ? "k=4 u8, unorm8" : format == 2 ? "k=4 unorm16"
                 : format == 3 ? "k=8 two streams" : "k=8 two arrays");
        print_row(name, n, bytes_per_vertex(plain.k, 1), t, 0.0, 0.0);
        print_ratios("format/float", ratios, "");
    }
}

/* The rows of skinning with normals: at n vertices with k = 4, LBS, DQS and
   CoR, with and without normals, each against memcpy of the same bytes, DQS
   and CoR against LBS and affine against rigid LBS (time_paired). */
static void bench_normals(int n)
{
    static const char *const names[8] = {"LBS", "LBS +normals", "DQS", "DQS +normals", "affine LBS",
                                         "affine LBS +normals", "CoR", "CoR +normals"};
    double memcpy_time[2];
    int calls = calls_for(n), w, c;
    char name[64];
    printf("\n%d vertices, k=4, %d bones (median ms, min-max)\n", n, BONES);
    for (w = 0; w < 2; ++w) {
        job j = {0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        j.end = n; j.with_normals = w; j.copy_bytes = bytes_per_vertex(4, w) / 2;
        memcpy_time[w] = time_calls(run_memcpy, &j, calls).median;
    }
    for (c = 0; c < 8; ++c) {
        job j = {0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0}, lbs;
        timing t;
        paired_ratios ratios;
        w = c % 2;
        j.end = n; j.with_normals = w; j.dqs = c / 2 == 1 ? 1 : c / 2 == 3 ? 2 : 0; j.affine = c / 2 == 2;
        lbs = j; lbs.dqs = 0; lbs.affine = 0;
        t = c < 2 ? time_calls(run_skin, &j, calls) : time_paired(run_skin, &j, run_skin, &lbs, calls, &ratios);
        snprintf(name, sizeof name, "%s", names[c]);
        print_row(name, n, bytes_per_vertex(4, w) + (c >= 6 ? 12 : 0), t, memcpy_time[w] / t.median, 0.0);
        if (c >= 2) print_ratios(c < 4 ? "DQS/LBS" : c < 6 ? "affine/rigid" : "CoR/LBS", ratios, "");
    }
}

static void bench_threads(int n)
{
    halves h;
    timing one, two;
    int calls = calls_for(n), c;
    printf("\n%d vertices, k=4, positions, split over 2 threads (median ms, min-max):\n", n);
    for (c = 0; c < 2; ++c) {
        job whole = {0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        whole.end = n; whole.copy_bytes = bytes_per_vertex(4, 0) / 2;
        h.run = c ? run_skin : run_memcpy;
        h.half[0] = whole; h.half[0].end = n / 2;
        h.half[1] = whole; h.half[1].begin = n / 2;
        one = time_calls(h.run, &whole, calls);
        two = time_calls(run_two_threads, &h, calls);
        printf("  %-12s 1 thread %7.3f (%.3f-%.3f)   2 threads %7.3f (%.3f-%.3f)   speed-up %.2f\n",
               c ? "fk_skin_lbs" : "memcpy", one.median * 1e3, one.min * 1e3, one.max * 1e3, two.median * 1e3,
               two.min * 1e3, two.max * 1e3, one.median / two.median);
    }
}

/* What a call costs before its first vertex: checking the descriptor and the
   bones, and converting every bone (64 here) into its palette entry (DQS also
   builds its table of hemispheres). Timed on 16 vertices, whose own share is
   under 0.1 us (LBS 16 x 2.4 ns, DQS 16 x 5 ns at a million vertices). */
static void bench_call_cost(void)
{
    int dqs;
    printf("\nCost of a call with %d bones, 16 vertices, k=4 (median, min-max):\n", BONES);
    for (dqs = 0; dqs < 2; ++dqs) {
        job tiny = {0, 16, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        timing t;
        tiny.dqs = dqs;
        t = time_calls(run_skin, &tiny, 10000);
        printf("  %-12s %7.2f us (%.2f-%.2f)\n", dqs ? "fk_skin_dqs" : "fk_skin_lbs", t.median * 1e6, t.min * 1e6,
               t.max * 1e6);
    }
}

/* The core's clock, read off a chain of dependent 64-bit multiplies (3 cycles
   each on current x86 cores) timed right after a call: after 20 ms of scalar
   work, after LBS and after DQS of a million vertices. Dense vector work can
   lower a core's clock, and the clock takes a while to come back; this shows
   how far, for the skinning loops, on the machine at hand. */
static void bench_clock(void)
{
#ifdef BENCH_HAVE_TSC
    enum { MULTIPLIES = 30000 };
    static const char *const after[3] = {"20 ms of scalar work", "fk_skin_lbs, 1M vertices", "fk_skin_dqs, 1M vertices"};
    job whole = {0, MAX_VERTICES, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    double samples[3][SAMPLES];
    int s, c;
    for (s = 0; s < SAMPLES; ++s)
        for (c = 0; c < 3; ++c) {
            unsigned long long chain = 3;
            double start;
            int m;
            if (c == 0) {
                double until = seconds_now() + 0.02;
                while (seconds_now() < until) continue;
            } else {
                whole.dqs = c == 2;
                run_skin(&whole);
            }
            start = seconds_now();
            for (m = 0; m < MULTIPLIES; ++m) __asm__ volatile("imul %0, %0" : "+r"(chain));
            samples[c][s] = 3.0 * MULTIPLIES / (seconds_now() - start) * 1e-9;
        }
    printf("\nCore clock right after (dependent multiplies, median GHz, min-max):\n");
    for (c = 0; c < 3; ++c) {
        timing t = summarize(samples[c], SAMPLES);
        printf("  %-26s %5.2f (%.2f-%.2f)\n", after[c], t.median, t.min, t.max);
    }
#endif
}

/* ---- Forward kinematics ------------------------------------------------------------ */

typedef struct fk_case {
    int joints, poses;
    int *parents;
    fk_vec3 *rest;
    fk_quat *rotations; /* poses x joints */
    fk_rigid *out;
} fk_case;

static void run_forward(void *context)
{
    const fk_case *f = (const fk_case *)context;
    int p;
    for (p = 0; p < f->poses; ++p) {
        fk_result r = fk_forward(f->joints, f->parents, f->rest, f->rotations + (size_t)p * (size_t)f->joints, NULL, f->out);
        if (r != FK_OK) { fprintf(stderr, "fk_forward failed: %s\n", fk_result_description(r)); exit(1); }
    }
}

/* A 60-joint humanoid, listed depth first as exporters do: a root on the floor,
   hips, a spine of five; neck and head with a jaw and two eyes; per side a
   clavicle, upper arm, forearm and hand with five three-joint fingers; a leg of
   five per side. Mostly chains (a joint right after its parent), so one joint
   after another waits for its parent's transform. */
static int humanoid_parent(int joint)
{
    static int parents[60];
    static int made = 0;
    if (!made) {
        int n = 0, side, finger, i, p, hand, head;
        parents[n++] = -1;                                            /* root 0 */
        parents[n++] = 0;                                             /* hips 1 */
        for (i = 0; i < 5; ++i, ++n) parents[n] = n - 1;              /* spine 2-6 */
        parents[n] = 6; ++n; parents[n] = n - 1; head = n++;          /* neck, head */
        for (i = 0; i < 3; ++i, ++n) parents[n] = head;               /* jaw, eyes */
        for (side = 0; side < 2; ++side) {
            p = 6;                                                    /* clavicle on the chest */
            for (i = 0; i < 4; ++i, ++n) { parents[n] = p; p = n; }   /* clavicle, arm, forearm, hand */
            hand = p;
            for (finger = 0; finger < 5; ++finger)
                for (i = 0, p = hand; i < 3; ++i, ++n) { parents[n] = p; p = n; }
        }
        for (side = 0; side < 2; ++side)
            for (i = 0, p = 1; i < 5; ++i, ++n) { parents[n] = p; p = n; } /* legs */
        made = n == 60;
        if (!made) { fprintf(stderr, "humanoid has %d joints\n", n); exit(1); }
    }
    return parents[joint];
}

/* shape: 0 a bushy tree, each parent one of the four joints before;
   1 the humanoid above (60 joints). */
static fk_case make_forward_case(int joint_count, int poses, int shape)
{
    fk_case f;
    size_t i;
    f.joints = joint_count; f.poses = poses;
    f.parents = (int *)malloc(sizeof(int) * (size_t)joint_count);
    f.rest = (fk_vec3 *)malloc(sizeof(fk_vec3) * (size_t)joint_count);
    f.rotations = (fk_quat *)malloc(sizeof(fk_quat) * (size_t)joint_count * (size_t)poses);
    f.out = (fk_rigid *)malloc(sizeof(fk_rigid) * (size_t)joint_count);
    if (!f.parents || !f.rest || !f.rotations || !f.out) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (i = 0; i < (size_t)joint_count; ++i) { /* parents before children */
        f.parents[i] = i == 0 ? -1 : (int)(((random_unit() + 1.0f) * 0.5f) * (float)(i < 4 ? i : 4)) + (int)i - (i < 4 ? (int)i : 4);
        if (f.parents[i] >= (int)i) f.parents[i] = (int)i - 1;
        if (shape == 1) f.parents[i] = humanoid_parent((int)i);
        f.rest[i] = fk_vec3_make(random_unit(), random_unit(), random_unit());
    }
    for (i = 0; i < (size_t)joint_count * (size_t)poses; ++i)
        f.rotations[i] = fk_quat_make(random_unit(), random_unit(), random_unit(), random_unit() + 2.0f);
    return f;
}

static void free_forward_case(fk_case *f)
{
    free(f->parents); free(f->rest); free(f->rotations); free(f->out);
}

static void bench_forward_case(const char *name, int joint_count, int poses, int calls, int shape)
{
    fk_case f = make_forward_case(joint_count, poses, shape);
    timing t = time_calls(run_forward, &f, calls);
    printf("  %-34s %8.3f ms (%.3f-%.3f)  %7.1f million joints/s\n", name, t.median * 1e3, t.min * 1e3,
           t.max * 1e3, (double)joint_count * poses / t.median * 1e-6);
    free_forward_case(&f);
}

/* ---- Centres of rotation ------------------------------------------------------------ */

/* A character-like mesh for fk_cor_centers(): 20 bones in five tubes (a spine
   and head of six bones; two arms of four and two legs of three, each tube
   starting with the bone it hangs from), each bone `rings` rings of `around`
   vertices. A vertex's weights fall off smoothly over half a bone past each
   joint, shifted along the tube by the angle around it (so that no two
   vertices share weights, unless `style` COR_QUANTIZED rounds them to 1/255, as
   glTF's unsigned-byte weights are), four influences at most, normalized.
   COR_WIDE weights every bone by 1 / (1 + (2d)^4), d bones past it, as weights
   from distances are: they never reach zero, so every vertex keeps four. */
enum { COR_STEP, COR_QUANTIZED, COR_WIDE };
typedef struct cor_mesh {
    int vertices, triangles;
    float *positions, *weights;
    uint16_t *joints;
    uint32_t *indices;
} cor_mesh;

/* Pages touched, as allocate() does, but not counted with the vertex buffers. */
static void *cor_allocate(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) { fprintf(stderr, "out of memory\n"); exit(1); }
    return memset(p, 0xA5, bytes);
}

static cor_mesh make_cor_mesh(int around, int rings, int style)
{
    static const int chains[5][6] = {{0, 1, 2, 3, 4, 5}, {3, 6, 7, 8, 9}, {3, 10, 11, 12, 13}, {0, 14, 15, 16}, {0, 17, 18, 19}};
    static const int lengths[5] = {6, 5, 5, 4, 4};
    static const float directions[5][3] = {{0, 1, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, -1, 0}};
    static const float origins[5][3] = {{0, 0, 0}, {-0.2f, 1.0f, 0}, {0.2f, 1.0f, 0}, {-0.12f, 0, 0}, {0.12f, 0, 0}};
    cor_mesh m;
    int c, r, a, b, s, v = 0, t = 0;
    m.vertices = 24 * rings * around;
    m.triangles = (24 * rings - 5) * around * 2;
    m.positions = (float *)cor_allocate(sizeof(float) * 3 * (size_t)m.vertices);
    m.weights = (float *)cor_allocate(sizeof(float) * 4 * (size_t)m.vertices);
    m.joints = (uint16_t *)cor_allocate(sizeof(uint16_t) * 4 * (size_t)m.vertices);
    m.indices = (uint32_t *)cor_allocate(sizeof(uint32_t) * 3 * (size_t)m.triangles);
    for (c = 0; c < 5; ++c) {
        const int links = lengths[c], first = v, count = links * rings;
        const float radius = c == 0 ? 0.12f : 0.05f;
        for (r = 0; r < count; ++r)
            for (a = 0; a < around; ++a, ++v) {
                const double angle = 6.283185307179586 * a / around, along = (r + 0.5) / rings;
                const double shifted = along + 0.15 * sin(angle) + 0.05 * cos(2.0 * angle);
                double w[6], sum = 0.0;
                int order[6];
                float *p = m.positions + 3 * (size_t)v;
                p[0] = origins[c][0] + directions[c][0] * (float)along * 0.25f + (float)(radius * cos(angle)) * directions[c][1];
                p[1] = origins[c][1] + directions[c][1] * (float)along * 0.25f + (float)(radius * cos(angle)) * directions[c][0];
                p[2] = (float)(radius * sin(angle));
                for (b = 0; b < links; ++b) { /* distance past the bone's ends, in bones; the tube's ends extend its end bones */
                    double d = shifted < b ? b - shifted : shifted > b + 1 ? shifted - b - 1 : 0.0, x;
                    if ((b == 0 && shifted < b) || (b == links - 1 && shifted > b + 1)) d = 0.0;
                    x = d / 0.5 > 1.0 ? 1.0 : d / 0.5;
                    w[b] = style == COR_WIDE ? 1.0 / (1.0 + 16.0 * d * d * d * d) : 1.0 - x * x * (3.0 - 2.0 * x);
                    order[b] = b;
                }
                for (b = 0; b < links; ++b) /* heaviest four first */
                    for (s = b + 1; s < links; ++s)
                        if (w[order[s]] > w[order[b]]) { int swap = order[b]; order[b] = order[s]; order[s] = swap; }
                for (b = 0; b < 4; ++b) sum += w[order[b]];
                for (b = 0; b < 4; ++b) {
                    double weight = w[order[b]] / sum;
                    if (style == COR_QUANTIZED) weight = floor(weight * 255.0 + 0.5) / 255.0;
                    m.joints[4 * (size_t)v + (size_t)b] = (uint16_t)chains[c][order[b]];
                    m.weights[4 * (size_t)v + (size_t)b] = (float)weight;
                }
            }
        for (r = 0; r + 1 < count; ++r)
            for (a = 0; a < around; ++a) {
                const uint32_t i0 = (uint32_t)(first + r * around + a), i1 = (uint32_t)(first + r * around + (a + 1) % around);
                uint32_t *q = m.indices + 3 * (size_t)t;
                q[0] = i0; q[1] = i1; q[2] = i1 + (uint32_t)around;
                q[3] = i0; q[4] = i1 + (uint32_t)around; q[5] = i0 + (uint32_t)around;
                t += 2;
            }
    }
    return m;
}

typedef struct cor_job { fk_cor_desc desc; void *workspace; size_t bytes; float *out; } cor_job;

static void run_cor(void *context)
{
    cor_job *j = (cor_job *)context;
    fk_result r = fk_cor_centers(&j->desc, 0, j->desc.vertex_count, j->workspace, j->bytes, j->out, 0);
    if (r != FK_OK) { fprintf(stderr, "fk_cor_centers failed: %s\n", fk_result_description(r)); exit(1); }
}

static void run_cor_skin(void *context)
{
    if (fk_skin_lbs((const fk_skin_desc *)context) != FK_OK) { fprintf(stderr, "fk_skin_lbs failed\n"); exit(1); }
}

/* One core, the whole mesh in one call, wall and thread CPU time (the machine may
   be shared); for scale, one fk_skin_lbs() of the same mesh (positions only),
   timed right after. */
static void bench_cor(const char *name, int around, int rings, int style, int samples)
{
    cor_mesh m = make_cor_mesh(around, rings, style);
    cor_job j;
    fk_skin_desc skin;
    double times[5], cpu[5];
    struct timespec c0, c1;
    int i;
    memset(&j, 0, sizeof j);
    j.desc.vertex_count = m.vertices; j.desc.positions = m.positions; j.desc.influences = 4;
    j.desc.joints = m.joints; j.desc.weights = m.weights;
    j.desc.triangle_count = m.triangles; j.desc.indices = m.indices;
    if (fk_cor_workspace_size(&j.desc, &j.bytes) != FK_OK) { fprintf(stderr, "fk_cor_workspace_size failed\n"); exit(1); }
    j.workspace = cor_allocate(j.bytes);
    j.out = (float *)cor_allocate(sizeof(float) * 3 * (size_t)m.vertices);
    for (i = 0; i < samples; ++i) {
        double t0 = seconds_now();
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
        run_cor(&j);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
        times[i] = seconds_now() - t0;
        cpu[i] = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
    }
    memset(&skin, 0, sizeof skin);
    skin.vertex_count = m.vertices; skin.influences = 4; skin.positions = m.positions;
    skin.joints = m.joints; skin.weights = m.weights; skin.transforms = bones; skin.transform_count = 20;
    skin.out_positions = j.out;
    printf("  %-30s %7d %7d %8.3f %8.3f %7.1f %8.0f\n", name, m.vertices, m.triangles,
           summarize(times, samples).median, summarize(cpu, samples).median, (double)j.bytes / 1e6,
           times[samples / 2] / time_calls(run_cor_skin, &skin, 20).median);
    free(j.workspace); free(j.out); free(m.positions); free(m.weights); free(m.joints); free(m.indices);
}

/* ---- Engine-form forward kinematics ------------------------------------------------
   fk_forward_engine_rigid() and fk_forward_engine() (both with inverse binds,
   the second with a scale on every joint) against fk_forward() on the same
   skeleton and rotations, and each on the skeleton listed children first
   (reversed) against parents first. */

typedef struct engine_case {
    const fk_case *f;
    fk_skeleton skeleton;
    int *parents, *storage;
    fk_vec3 *translations, *scales;
    fk_quat *rotations; /* poses x joints, in this case's order */
    float *inverse_binds, *world, *skinning;
    fk_rigid *rigid_binds, *rigid_world, *rigid_skinning;
    int scaled, old_route;
} engine_case;

static void run_engine(void *context)
{
    engine_case *e = (engine_case *)context;
    const int n = e->f->joints;
    int p;
    for (p = 0; p < e->f->poses; ++p) {
        const fk_quat *q = e->rotations + (size_t)p * (size_t)n;
        fk_result r;
        if (e->old_route) { /* the route before: fk_forward_trs(), then world x IB in double */
            r = fk_forward_trs(n, e->parents, e->translations, q, e->scales, e->world);
            if (r == FK_OK) r = fk_skin_matrices_from_matrices(n, e->inverse_binds, e->world, NULL, e->skinning);
        } else if (e->scaled) {
            r = fk_forward_engine(&e->skeleton, e->translations, q, e->scales, e->inverse_binds, e->world, e->skinning);
        } else {
            r = fk_forward_engine_rigid(&e->skeleton, e->translations, q, e->rigid_binds, e->rigid_world,
                                        e->rigid_skinning);
        }
        if (r != FK_OK) { fprintf(stderr, "engine case failed: %s\n", fk_result_description(r)); exit(1); }
    }
}

/* The case's joints, listed as given (reversed = 0) or children first. */
static engine_case make_engine_case(const fk_case *f, int reversed)
{
    const size_t n = (size_t)f->joints;
    engine_case e;
    size_t i, p;
    memset(&e, 0, sizeof e);
    e.f = f;
    e.parents = (int *)malloc(n * sizeof(int));
    e.storage = (int *)malloc((size_t)FK_SKELETON_STORAGE(f->joints) * sizeof(int));
    e.translations = (fk_vec3 *)malloc(n * sizeof(fk_vec3));
    e.scales = (fk_vec3 *)malloc(n * sizeof(fk_vec3));
    e.rotations = (fk_quat *)malloc(n * (size_t)f->poses * sizeof(fk_quat));
    e.inverse_binds = (float *)malloc(n * 12 * sizeof(float));
    e.world = (float *)malloc(n * 12 * sizeof(float));
    e.skinning = (float *)malloc(n * 12 * sizeof(float));
    e.rigid_binds = (fk_rigid *)malloc(n * sizeof(fk_rigid));
    e.rigid_world = (fk_rigid *)malloc(n * sizeof(fk_rigid));
    e.rigid_skinning = (fk_rigid *)malloc(n * sizeof(fk_rigid));
    if (!e.parents || !e.storage || !e.translations || !e.scales || !e.rotations || !e.inverse_binds || !e.world ||
        !e.skinning || !e.rigid_binds || !e.rigid_world || !e.rigid_skinning) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (i = 0; i < n; ++i) {
        const size_t to = reversed ? n - 1 - i : i;
        const int parent = f->parents[i];
        fk_rigid bind = fk_rigid_make(fk_quat_normalize(fk_quat_make(random_unit(), random_unit(), random_unit(), 2.0f)),
                                      fk_vec3_make(random_unit(), random_unit(), random_unit()));
        e.parents[to] = parent < 0 ? -1 : reversed ? f->joints - 1 - parent : parent;
        e.translations[to] = f->rest[i];
        e.scales[to] = fk_vec3_make(1.0f + 0.5f * random_unit(), 1.0f + 0.5f * random_unit(), 1.0f + 0.5f * random_unit());
        e.rigid_binds[to] = bind;
        fk_rigid_to_mat34(bind, e.inverse_binds + 12 * to);
        for (p = 0; p < (size_t)f->poses; ++p) e.rotations[p * n + to] = f->rotations[p * n + i];
    }
    if (fk_skeleton_init(&e.skeleton, f->joints, e.parents, e.storage) != FK_OK) {
        fprintf(stderr, "fk_skeleton_init failed\n");
        exit(1);
    }
    return e;
}

static void free_engine_case(engine_case *e)
{
    free(e->parents); free(e->storage); free(e->translations); free(e->scales); free(e->rotations);
    free(e->inverse_binds); free(e->world); free(e->skinning); free(e->rigid_binds); free(e->rigid_world);
    free(e->rigid_skinning);
}

/* Two cases on data of their own (too large for L2 together), each sample
   timing each case right after an untimed call of its own, so that neither
   is timed on data the other has just evicted. Returns the median over the
   samples of a's time / b's time, and a's timing. */
static double time_warm_ratio(void (*run_a)(void *), void *a, void (*run_b)(void *), void *b, timing *a_timing)
{
    double a_samples[SAMPLES], ratios[SAMPLES];
    int s;
    for (s = 0; s < SAMPLES; ++s) {
        double start, a_time;
        run_a(a);
        start = seconds_now();
        run_a(a);
        a_time = seconds_now() - start;
        run_b(b);
        start = seconds_now();
        run_b(b);
        a_samples[s] = a_time;
        ratios[s] = a_time / (seconds_now() - start);
    }
    *a_timing = summarize(a_samples, SAMPLES);
    return summarize(ratios, SAMPLES).median;
}

static void bench_engine_case(const char *name, int joint_count, int poses, int shape)
{
    fk_case f = make_forward_case(joint_count, poses, shape);
    engine_case given = make_engine_case(&f, 0), reversed = make_engine_case(&f, 1);
    const double joint_poses = (double)joint_count * poses;
    double rigid, scaled, rigid_order, scaled_order;
    timing t_forward, t_rigid, t_scaled, t_rigid_reversed, t_scaled_reversed;
    t_forward = time_calls(run_forward, &f, 1);
    rigid = time_warm_ratio(run_engine, &given, run_forward, &f, &t_rigid);
    rigid_order = time_warm_ratio(run_engine, &reversed, run_engine, &given, &t_rigid_reversed);
    given.scaled = reversed.scaled = 1;
    scaled = time_warm_ratio(run_engine, &given, run_forward, &f, &t_scaled);
    scaled_order = time_warm_ratio(run_engine, &reversed, run_engine, &given, &t_scaled_reversed);
    printf("  %s: ns per joint (median), and time / the reference's in the same samples\n", name);
    printf("    fk_forward                                %6.2f\n", t_forward.median / joint_poses * 1e9);
    printf("    fk_forward_engine_rigid, inverse binds    %6.2f   / fk_forward %5.2f  (budget 1.5)\n",
           t_rigid.median / joint_poses * 1e9, rigid);
    printf("    fk_forward_engine, scales, inverse binds  %6.2f   / fk_forward %5.2f  (budget 2)\n",
           t_scaled.median / joint_poses * 1e9, scaled);
    printf("    rigid, children first                     %6.2f   / parents first %5.2f  (budget 1.1)\n",
           t_rigid_reversed.median / joint_poses * 1e9, rigid_order);
    printf("    scales, children first                    %6.2f   / parents first %5.2f  (budget 1.1)\n",
           t_scaled_reversed.median / joint_poses * 1e9, scaled_order);
    if (shape == 1) { /* the route before, once */
        timing t_old;
        double old;
        given.old_route = 1;
        old = time_warm_ratio(run_engine, &given, run_forward, &f, &t_old);
        printf("    fk_forward_trs, fk_skin_matrices_from_matrices %6.2f   / fk_forward %5.2f\n",
               t_old.median / joint_poses * 1e9, old);
    }
    free_engine_case(&given);
    free_engine_case(&reversed);
    free_forward_case(&f);
}

static void bench_engine(void)
{
    printf("\nEngine-form forward kinematics (local T R S and inverse binds), validation included:\n");
    bench_engine_case("60 joints x 1000 poses", 60, 1000, 0);
    bench_engine_case("60-joint humanoid x 1000 poses", 60, 1000, 1);
    bench_engine_case("200 joints x 300 poses", 200, 300, 0);
}

/* ---- Against an earlier header ------------------------------------------------------ */

#ifdef BENCH_BASELINE
typedef fk_result (*skin_function)(const fk_skin_desc *);
typedef fk_result (*forward_function)(int, const int *, const fk_vec3 *, const fk_quat *, const fk_vec3 *,
                                      fk_rigid *);

/* One side of a comparison: a skinning job or a forward kinematics case, run by
   this header's function or the baseline's. Both are called through the same
   pointers, so that neither is inlined into the loop that times it. */
typedef struct side {
    const job *skin_job; /* NULL: run forward_case */
    const fk_case *forward_case;
    skin_function skin;
    forward_function forward;
} side;

static void run_side(void *context)
{
    const side *s = (const side *)context;
    fk_result r = FK_OK;
    int p;
    if (s->skin_job) {
        fk_skin_desc d = job_desc(s->skin_job);
        r = s->skin(&d);
    } else
        for (p = 0; p < s->forward_case->poses && r == FK_OK; ++p)
            r = s->forward(s->forward_case->joints, s->forward_case->parents, s->forward_case->rest,
                           s->forward_case->rotations + (size_t)p * (size_t)s->forward_case->joints, NULL,
                           s->forward_case->out);
    if (r != FK_OK) { fprintf(stderr, "comparison case failed: %s\n", fk_result_description(r)); exit(1); }
}

/* Slower by more than this is what the rewrite of the loops must not be. */
#define BENCH_BASELINE_TOLERANCE 0.15

static void print_versus(const char *name, side *current, side *baseline, int calls)
{
    timing a, b;
    double ratio = time_alternating(run_side, current, baseline, calls, &a, &b);
    if (b.median < 1e-4) /* under 0.1 ms: in microseconds */
        printf("  %-34s %8.3f us %8.3f us %7.2f  ", name, a.median * 1e6, b.median * 1e6, ratio);
    else
        printf("  %-34s %8.3f ms %8.3f ms %7.2f  ", name, a.median * 1e3, b.median * 1e3, ratio);
    if (ratio <= 1.0 + BENCH_BASELINE_TOLERANCE) printf("within %.0f%%\n", BENCH_BASELINE_TOLERANCE * 100.0);
    else printf("SLOWER by %.0f%%\n", (ratio - 1.0) * 100.0);
}

static void bench_against_baseline(void)
{
    static const char *const shapes[2] = {"fk_forward 60 joints x 1000 poses", "fk_forward humanoid x 1000 poses"};
    side current, baseline;
    int i;
    printf("\nThis header against the one at %s, timed in turn on the same data (medians of %d samples;\n"
           "new/old: median over the samples of this header's time / the other's; budget: at most %.2f)\n",
           BENCH_STRING(BENCH_BASELINE), SAMPLES, 1.0 + BENCH_BASELINE_TOLERANCE);
    /* fk_skin_desc has grown at its end since (matrices, bind_poses, dqs_scale_center):
       the old header reads the fields it knows, which come first and are zero here */
    if (baseline_type_sizes() != 1000 * sizeof(fk_rigid) + 100000 * sizeof(fk_quat) + 10000000 * sizeof(fk_vec3) ||
        baseline_skin_desc_size() > sizeof(fk_skin_desc)) {
        printf("  skipped: the two headers' fk_skin_desc, fk_rigid, fk_quat or fk_vec3 do not match\n");
        return;
    }
    printf("  %-34s %11s %11s %7s\n", "case", "new", "old", "new/old");
    for (i = 0; i < 5; ++i) { /* 1M vertices, k = 4, 64 bones: LBS, LBS +normals, DQS; 16 vertices: LBS, DQS */
        static const char *const names[5] = {"fk_skin_lbs 1M k=4", "fk_skin_lbs 1M k=4 +normals", "fk_skin_dqs 1M k=4",
                                             "fk_skin_lbs 16 vertices k=4", "fk_skin_dqs 16 vertices k=4"};
        job j = {0, MAX_VERTICES, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        j.with_normals = i == 1;
        j.dqs = i == 2 || i == 4;
        if (i >= 3) j.end = 16;
        memset(&current, 0, sizeof current);
        current.skin_job = &j;
        baseline = current;
        current.skin = j.dqs ? fk_skin_dqs : fk_skin_lbs;
        baseline.skin = j.dqs ? baseline_skin_dqs : baseline_skin_lbs;
        /* a sample of at least about 5 ms: 2 calls on a million vertices, 5000 on 16 */
        print_versus(names[i], &current, &baseline, i >= 3 ? 5000 : 2);
    }
    for (i = 0; i < 2; ++i) {
        fk_case f = make_forward_case(60, 1000, i);
        memset(&current, 0, sizeof current);
        current.forward_case = &f;
        baseline = current;
        current.forward = fk_forward;
        baseline.forward = baseline_forward;
        print_versus(shapes[i], &current, &baseline, 10);
        free_forward_case(&f);
    }
}
#endif

int main(int argc, char **argv)
{
    static const int sizes[] = {10000, 100000, MAX_VERTICES};
    struct rusage usage;
    double start = seconds_now();
    int s;
    calibrate_tsc();
    printf("fk_lbs.h %s benchmark\ncompiler flags: %s\nskinning SIMD: %s\nforward kinematics SIMD: %s\n",
           FK_LBS_VERSION, BENCH_STRING(BENCH_FLAGS), simd_in_use(), simd_in_use());
    if (tsc_ghz > 0.0) printf("cyc/v: time-stamp-counter cycles per vertex (TSC at %.2f GHz)\n", tsc_ghz);
    printf("memcpy x: memcpy time of the same bytes / this time (1 = as fast as memcpy)\n"
           "plain x: plain loop time / this time (the plain loop does LBS, also for the DQS rows)\n");
    make_data();
    if (argc > 1 && strcmp(argv[1], "inputs") == 0) { /* only the rows of skinning inputs */
        bench_inputs(100000);
        bench_inputs(MAX_VERTICES);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "engine") == 0) { /* only the rows of engine-form forward kinematics */
        bench_engine();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "normals") == 0) { /* only the rows of skinning with normals */
        bench_normals(10000);
        bench_normals(MAX_VERTICES);
#ifdef BENCH_BASELINE
        bench_against_baseline();
#endif
        return 0;
    }
    for (s = 0; s < 3; ++s) bench_skinning(sizes[s]);
    bench_inputs(100000);
    bench_threads(100000);
    bench_threads(MAX_VERTICES);
    bench_call_cost();
    bench_clock();
    printf("\nfk_forward, parents before children, validation included (median, min-max):\n");
    bench_forward_case("60 joints x 1000 poses", 60, 1000, 1, 0);
    bench_forward_case("60-joint humanoid x 1000 poses", 60, 1000, 1, 1);
    bench_forward_case("10,000-joint tree", 10000, 1, 5, 0);
    printf("\nfk_cor_centers, the default subdivision, 20 bones, 4 influences, one call on one core\n"
           "(medians; x LBS: time / one fk_skin_lbs of the same mesh, timed right after):\n");
    printf("  %-30s %7s %7s %8s %8s %7s %8s\n", "mesh", "verts", "tris", "wall s", "CPU s", "work MB", "x LBS");
    bench_cor("character", 30, 50, COR_STEP, 3);
    bench_cor("character, weights in 1/255", 30, 50, COR_QUANTIZED, 3);
    bench_cor("character, 4x the vertices", 60, 104, COR_STEP, 1);
    bench_cor("character, wide weights, 1/3", 20, 25, COR_WIDE, 3);
    bench_engine();
#ifdef BENCH_BASELINE
    bench_against_baseline();
#else
    printf("\nNo comparison with an earlier header (built without BENCH_BASELINE: see make bench)\n");
#endif
    getrusage(RUSAGE_SELF, &usage);
    printf("\npeak resident memory %.1f MB (vertex buffers for 1M vertices: %.1f MB allocated by this program;\n"
           "fk_lbs.h allocates nothing)\ntotal time %.1f s\n", (double)usage.ru_maxrss / 1024.0,
           (double)allocated_bytes / (1024.0 * 1024.0), seconds_now() - start);
    return 0;
}
