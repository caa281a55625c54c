/* threads.c - one mesh skinned by several threads, with the bits of one call.

   build/example_threads [--threads N] [--vertices N] [--out DIR]

   --threads N    threads to split each call over (default 4)
   --vertices N   vertices in the mesh (default 1000000)
   --out DIR      accepted like the other examples' option; nothing is written

   fk_skin_lbs() and fk_skin_dqs() keep no state, and a vertex's result depends on
   its own data and the bones alone, so a call can be cut anywhere: each thread
   gets a copy of the descriptor with its pointers advanced to its range of
   vertices (skin_desc_range(), which works for any layout), and together the
   threads write the very bits that one call writes. The program checks that with
   memcmp, for LBS and for DQS, positions and normals, on a procedural tentacle:
   a chain of 64 bones posed by fk_forward() into a coil, rings of vertices around
   it, 4 influences each.

   It prints, per method, "same bits as one call" (or where the bits first differ,
   and exits with 1), and the fastest of a few runs of one call over the whole
   mesh against the split call, next to a memcpy of as many bytes as skinning
   reads and writes, split over as many threads: how far the memory lets a
   split go. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BONES 64
#define INFLUENCES 4
#define SIDES 32 /* vertices around each ring of the tube */
#define BONE_LENGTH 0.25f
#define RADIUS 0.3f
#define MAX_THREADS 256
#define MAX_VERTICES 100000000
#define RUNS 5 /* each time is the fastest of this many runs: the least disturbed */

/* ---- The mesh --------------------------------------------------------------------- */

typedef struct mesh {
    float *positions, *normals; /* x y z per vertex */
    uint16_t *joints;           /* INFLUENCES per vertex */
    float *weights;             /* INFLUENCES per vertex */
} mesh;

/* malloc that gives up on failure, and fills the bytes: the pages are then mapped
   before anything is timed. */
static void *allocate(size_t bytes, int fill)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "example_threads: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    memset(p, fill, bytes);
    return p;
}

/* A tube around the chain of bones on the x axis, SIDES vertices a ring. Each
   vertex follows the INFLUENCES bones whose middles are nearest its ring, weighted
   by closeness, so that neighbouring bones blend smoothly. */
static void make_tentacle(mesh *m, int vertex_count)
{
    int rings = (vertex_count + SIDES - 1) / SIDES, v, e;
    m->positions = (float *)allocate((size_t)vertex_count * 3 * sizeof(float), 0);
    m->normals = (float *)allocate((size_t)vertex_count * 3 * sizeof(float), 0);
    m->joints = (uint16_t *)allocate((size_t)vertex_count * INFLUENCES * sizeof(uint16_t), 0);
    m->weights = (float *)allocate((size_t)vertex_count * INFLUENCES * sizeof(float), 0);
    for (v = 0; v < vertex_count; ++v) {
        float along = ((float)(v / SIDES) + 0.5f) / (float)rings * (float)BONES; /* in bone lengths */
        float angle = 6.2831853f * (float)(v % SIDES) / (float)SIDES, sum = 0.0f;
        int first = (int)floorf(along - 0.5f) - INFLUENCES / 2 + 1;
        size_t at = (size_t)v * INFLUENCES;
        if (first < 0) first = 0;
        if (first > BONES - INFLUENCES) first = BONES - INFLUENCES;
        m->positions[3 * (size_t)v] = along * BONE_LENGTH;
        m->positions[3 * (size_t)v + 1] = RADIUS * cosf(angle);
        m->positions[3 * (size_t)v + 2] = RADIUS * sinf(angle);
        m->normals[3 * (size_t)v] = 0.0f;
        m->normals[3 * (size_t)v + 1] = cosf(angle);
        m->normals[3 * (size_t)v + 2] = sinf(angle);
        for (e = 0; e < INFLUENCES; ++e) {
            float distance = along - ((float)(first + e) + 0.5f);
            m->joints[at + (size_t)e] = (uint16_t)(first + e);
            sum += m->weights[at + (size_t)e] = 1.0f / (1.0f + 4.0f * distance * distance);
        }
        for (e = 0; e < INFLUENCES; ++e) m->weights[at + (size_t)e] /= sum;
    }
}

/* A coil: every joint turns a little about an axis that swings round the chain,
   so that the bones end up pointing every way. */
static void pose_tentacle(fk_rigid bones[BONES])
{
    int parents[BONES], j;
    fk_vec3 rest[BONES];
    fk_quat rotations[BONES];
    for (j = 0; j < BONES; ++j) {
        float phase = 0.35f * (float)j;
        parents[j] = j - 1;
        rest[j] = fk_vec3_make((float)j * BONE_LENGTH, 0.0f, 0.0f);
        rotations[j] = fk_quat_from_axis_angle(fk_vec3_normalize(fk_vec3_make(0.3f, cosf(phase), sinf(phase))), 0.2f);
    }
    if (fk_forward(BONES, parents, rest, rotations, NULL, bones) != FK_OK) {
        fprintf(stderr, "example_threads: fk_forward failed\n");
        exit(1);
    }
}

/* ---- Splitting a call ------------------------------------------------------------- */

/* Where record `index` starts in an array whose records are `stride` bytes apart
   (0: packed records of `packed` bytes, as the library reads a zero stride). */
static const void *record_at(const void *array, size_t stride, size_t packed, size_t index)
{
    return array ? (const char *)array + index * (stride ? stride : packed) : NULL;
}
static void *output_record_at(void *array, size_t stride, size_t packed, size_t index)
{
    return array ? (char *)array + index * (stride ? stride : packed) : NULL;
}

/* The descriptor for vertices [begin, end) of *whole: a copy with every array
   advanced by begin vertices at its own stride. */
static fk_skin_desc skin_desc_range(const fk_skin_desc *whole, int begin, int end)
{
    fk_skin_desc part = *whole;
    size_t first = (size_t)begin, k = (size_t)whole->influences;
    part.vertex_count = end - begin;
    part.positions = (const float *)record_at(whole->positions, whole->position_stride, 12, first);
    part.normals = (const float *)record_at(whole->normals, whole->normal_stride, 12, first);
    part.tangents = (const float *)record_at(whole->tangents, whole->tangent_stride, 16, first);
    part.joints = (const uint16_t *)record_at(whole->joints, whole->joint_stride, 2 * k, first);
    part.weights = (const float *)record_at(whole->weights, whole->weight_stride, 4 * k, first);
    part.out_positions = (float *)output_record_at(whole->out_positions, whole->out_position_stride, 12, first);
    part.out_normals = (float *)output_record_at(whole->out_normals, whole->out_normal_stride, 12, first);
    part.out_tangents = (float *)output_record_at(whole->out_tangents, whole->out_tangent_stride, 16, first);
    return part;
}

/* One thread's work: a skinning call, or a memcpy for the reference. */
typedef enum job_kind { JOB_LBS, JOB_DQS, JOB_MEMCPY } job_kind;
typedef struct job {
    job_kind kind;
    fk_skin_desc skin;
    const unsigned char *source;
    unsigned char *target;
    size_t bytes;
    fk_result result;
} job;

static void *run_job(void *context)
{
    job *j = (job *)context;
    if (j->kind == JOB_MEMCPY)
        memcpy(j->target, j->source, j->bytes);
    else
        j->result = j->kind == JOB_LBS ? fk_skin_lbs(&j->skin) : fk_skin_dqs(&j->skin);
    return NULL;
}

/* Piece `part` of `parts` of the whole job, as even as vertices (or bytes) allow. */
static job job_piece(const job *whole, int part, int parts)
{
    job piece = *whole;
    int n = whole->skin.vertex_count;
    if (whole->kind == JOB_MEMCPY) {
        size_t begin = whole->bytes * (size_t)part / (size_t)parts;
        size_t end = whole->bytes * (size_t)(part + 1) / (size_t)parts;
        piece.source += begin;
        piece.target += begin;
        piece.bytes = end - begin;
    } else {
        piece.skin = skin_desc_range(&whole->skin, (int)((long long)n * part / parts),
                                     (int)((long long)n * (part + 1) / parts));
    }
    return piece;
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs the whole job split over `threads` threads (this one does the first
   piece), RUNS times; returns the fastest run in seconds. Thread start-up counts:
   it is part of what a split call costs. */
static double time_split(const job *whole, int threads)
{
    job pieces[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    double fastest = 0.0;
    int run, t;
    for (run = 0; run < RUNS; ++run) {
        double start = seconds_now(), took;
        for (t = 0; t < threads; ++t) pieces[t] = job_piece(whole, t, threads);
        for (t = 1; t < threads; ++t)
            if (pthread_create(&ids[t], NULL, run_job, &pieces[t]) != 0) {
                fprintf(stderr, "example_threads: pthread_create failed\n");
                exit(1);
            }
        run_job(&pieces[0]);
        for (t = 1; t < threads; ++t) pthread_join(ids[t], NULL);
        took = seconds_now() - start;
        if (run == 0 || took < fastest) fastest = took;
        for (t = 0; t < threads; ++t)
            if (whole->kind != JOB_MEMCPY && pieces[t].result != FK_OK) {
                fprintf(stderr, "example_threads: skinning failed: %s\n", fk_result_description(pieces[t].result));
                exit(1);
            }
    }
    return fastest;
}

/* The first vertex whose position or normal has other bits in a than in b, or -1. */
static long first_difference(const float *positions_a, const float *normals_a, const float *positions_b,
                             const float *normals_b, int vertex_count)
{
    size_t bytes = (size_t)vertex_count * 3 * sizeof(float);
    long v;
    if (memcmp(positions_a, positions_b, bytes) == 0 && memcmp(normals_a, normals_b, bytes) == 0) return -1;
    for (v = 0; v < vertex_count; ++v)
        if (memcmp(positions_a + 3 * v, positions_b + 3 * v, 3 * sizeof(float)) != 0 ||
            memcmp(normals_a + 3 * v, normals_b + 3 * v, 3 * sizeof(float)) != 0)
            break;
    return v;
}

/* One row of the report, left open for a remark. */
static void print_times(const char *name, double one, double split, int threads)
{
    printf("  %-13s 1 thread %8.3f ms   %3d thread%s %8.3f ms   speed-up %.2f   ", name, 1e3 * one, threads,
           threads == 1 ? " " : "s", 1e3 * split, one / split);
}

/* ---- Command line ----------------------------------------------------------------- */

static int usage(const char *program, FILE *to)
{
    fprintf(to,
            "usage: %s [--threads N] [--vertices N] [--out DIR]\n"
            "Skins one mesh split over threads and checks the bits against one call.\n"
            "  --threads N    threads to split each call over, 1 to %d (default 4)\n"
            "  --vertices N   vertices in the mesh, 1 to %d (default 1000000)\n"
            "  --out DIR      accepted like the other examples' option; nothing is written\n",
            program, MAX_THREADS, MAX_VERTICES);
    return to == stdout ? 0 : 2;
}

/* Reads an option's value as a whole number from 1 to high, or says what is wrong. */
static int read_count(const char *program, const char *option, const char *text, long high, int *out)
{
    char *end;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || value < 1 || value > high) {
        fprintf(stderr, "%s: %s wants a whole number from 1 to %ld, not '%s'\n", program, option, high, text);
        return 0;
    }
    *out = (int)value;
    return 1;
}

int main(int argc, char **argv)
{
    static const char *const names[2] = {"fk_skin_lbs", "fk_skin_dqs"};
    int threads = 4, vertex_count = 1000000, a, method, status = 0;
    mesh m;
    fk_rigid bones[BONES];
    float *one_positions, *one_normals, *split_positions, *split_normals;
    unsigned char *copy_source;
    size_t vector_bytes, moved_bytes;
    job copy;
    double copy_one, copy_split;

    for (a = 1; a < argc; ++a) {
        const char *value = a + 1 < argc ? argv[a + 1] : "";
        if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) return usage(argv[0], stdout);
        if (strcmp(argv[a], "--threads") == 0) {
            if (!read_count(argv[0], argv[a], value, MAX_THREADS, &threads)) return 2;
            ++a;
        } else if (strcmp(argv[a], "--vertices") == 0) {
            if (!read_count(argv[0], argv[a], value, MAX_VERTICES, &vertex_count)) return 2;
            ++a;
        } else if (strcmp(argv[a], "--out") == 0 && a + 1 < argc) {
            ++a;
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", argv[0], argv[a]);
            return usage(argv[0], stderr);
        }
    }

    make_tentacle(&m, vertex_count);
    pose_tentacle(bones);
    /* The two outputs start different, so a vertex no thread wrote cannot match. */
    vector_bytes = (size_t)vertex_count * 3 * sizeof(float);
    one_positions = (float *)allocate(vector_bytes, 0xA5);
    one_normals = (float *)allocate(vector_bytes, 0xA5);
    split_positions = (float *)allocate(vector_bytes, 0x5A);
    split_normals = (float *)allocate(vector_bytes, 0x5A);

    /* Skinning reads a position, a normal, 4 indices and 4 weights and writes a
       position and a normal; a memcpy of half as many bytes moves as many in all. */
    moved_bytes = (size_t)vertex_count * (12 + 12 + 2 * INFLUENCES + 4 * INFLUENCES + 12 + 12);
    memset(&copy, 0, sizeof copy);
    copy.kind = JOB_MEMCPY;
    copy.bytes = moved_bytes / 2;
    copy.source = copy_source = (unsigned char *)allocate(copy.bytes, 0x3C);
    copy.target = (unsigned char *)allocate(copy.bytes, 0xC3);
    copy_one = time_split(&copy, 1);
    copy_split = time_split(&copy, threads);

    printf("%d vertices (%d influences, normals), %d bones, split over %d thread%s; fastest of %d runs:\n",
           vertex_count, INFLUENCES, BONES, threads, threads == 1 ? "" : "s", RUNS);
    print_times("memcpy", copy_one, copy_split, threads);
    printf("(%.1f MB read and written)\n", 1e-6 * (double)moved_bytes);
    for (method = 0; method < 2; ++method) {
        job one, split;
        double time_one, time_threads;
        long differs;
        memset(&one, 0, sizeof one);
        one.kind = method ? JOB_DQS : JOB_LBS;
        one.skin.vertex_count = vertex_count;
        one.skin.influences = INFLUENCES;
        one.skin.positions = m.positions;
        one.skin.normals = m.normals;
        one.skin.joints = m.joints;
        one.skin.weights = m.weights;
        one.skin.transforms = bones;
        one.skin.transform_count = BONES;
        one.skin.out_positions = one_positions;
        one.skin.out_normals = one_normals;
        split = one;
        split.skin.out_positions = split_positions;
        split.skin.out_normals = split_normals;
        time_one = time_split(&one, 1);
        time_threads = time_split(&split, threads);
        differs = first_difference(one_positions, one_normals, split_positions, split_normals, vertex_count);
        print_times(names[method], time_one, time_threads, threads);
        if (differs < 0) {
            printf("same bits as one call\n");
        } else {
            printf("DIFFERENT bits from one call, first at vertex %ld\n", differs);
            status = 1;
        }
    }

    free(m.positions); free(m.normals); free(m.joints); free(m.weights);
    free(one_positions); free(one_normals); free(split_positions); free(split_normals);
    free(copy_source); free(copy.target);
    return status;
}
