/* prop_cases.h - random test cases for the property tests: skeletons, poses,
   meshes and quaternions, each one a pure function of a 64-bit seed and a size.

   A case is regenerated from (seed, size) whenever it is needed, so shrinking a
   failing case means generating it again with a smaller size: the same seed with
   fewer joints keeps the same shape, the same seed with a smaller angle keeps the
   same axes. Each aspect (shape, rest pose, rotations, mesh, ...) draws from its
   own stream, so shrinking one aspect does not reshuffle the others. */
#ifndef FK_TESTS_PROP_CASES_H
#define FK_TESTS_PROP_CASES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fk_lbs.h"

#define MAX_JOINTS 4096
#define MAX_VERTICES 64
#define MAX_INFLUENCES 8
#define PI 3.14159265358979323846

/* ---- Random numbers: SplitMix64, small and good enough for test data ---------- */

typedef struct rng {
    uint64_t state;
} rng;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static rng rng_stream(uint64_t seed, uint64_t stream) { rng r; r.state = mix64(seed ^ mix64(stream + 1)); return r; }
static uint64_t rng_next(rng *r) { r->state += 0x9e3779b97f4a7c15u; return mix64(r->state); }
/* Uniform in [0, 1). */
static double rng_unit(rng *r) { return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }
static double rng_range(rng *r, double lo, double hi) { return lo + (hi - lo) * rng_unit(r); }
/* Uniform in [0, n), n >= 1. */
static int rng_below(rng *r, int n) { return (int)(rng_next(r) % (uint64_t)n); }
static int rng_chance(rng *r, int one_in) { return rng_below(r, one_in) == 0; }
/* Spread evenly over orders of magnitude between lo and hi (both > 0). */
static double rng_log_range(rng *r, double lo, double hi) { return lo * pow(hi / lo, rng_unit(r)); }

/* ---- Double-precision reference math -------------------------------------------
   The properties state what the float library should compute; these evaluate the
   other side in double, so the test adds no rounding of its own worth counting. */

typedef struct dvec { double x, y, z; } dvec;
typedef struct dquat { double x, y, z, w; } dquat;

static dvec dv(fk_vec3 v) { dvec r; r.x = (double)v.x; r.y = (double)v.y; r.z = (double)v.z; return r; }
static dvec dv3(double x, double y, double z) { dvec r; r.x = x; r.y = y; r.z = z; return r; }
static dvec dv_load(const float *p) { return dv3((double)p[0], (double)p[1], (double)p[2]); }
static fk_vec3 fv(dvec v) { return fk_vec3_make((float)v.x, (float)v.y, (float)v.z); }
static dvec dv_add(dvec a, dvec b) { return dv3(a.x + b.x, a.y + b.y, a.z + b.z); }
static dvec dv_sub(dvec a, dvec b) { return dv3(a.x - b.x, a.y - b.y, a.z - b.z); }
static dvec dv_scale(dvec a, double s) { return dv3(a.x * s, a.y * s, a.z * s); }
static double dv_dot(dvec a, dvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static dvec dv_cross(dvec a, dvec b) { return dv3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
static double dv_len(dvec a) { return sqrt(dv_dot(a, a)); }
static double dv_dist(dvec a, dvec b) { return dv_len(dv_sub(a, b)); }
static int dv_finite(dvec a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }

static dquat dq4(double x, double y, double z, double w) { dquat q; q.x = x; q.y = y; q.z = z; q.w = w; return q; }
static dquat dq(fk_quat q) { return dq4((double)q.x, (double)q.y, (double)q.z, (double)q.w); }
static fk_quat fq(dquat q) { return fk_quat_make((float)q.x, (float)q.y, (float)q.z, (float)q.w); }
static double dq_dot(dquat a, dquat b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
static double dq_len(dquat q) { return sqrt(dq_dot(q, q)); }
static dquat dq_scale(dquat q, double s) { return dq4(q.x * s, q.y * s, q.z * s, q.w * s); }
static dquat dq_unit(dquat q) { return dq_scale(q, 1.0 / dq_len(q)); }
static dquat dq_conj(dquat q) { return dq4(-q.x, -q.y, -q.z, q.w); }
static dquat dq_mul(dquat a, dquat b)
{
    return dq4(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
               a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
/* q v q* for a unit q. */
static dvec dq_rotate(dquat q, dvec v)
{
    dvec u = dv3(q.x, q.y, q.z), s = dv_scale(dv_cross(u, v), 2.0);
    return dv_add(dv_add(v, dv_scale(s, q.w)), dv_cross(u, s));
}
/* The rotation angle from a to b in [0, pi], whatever their signs and lengths. */
static double dq_angle(dquat a, dquat b)
{
    dquat d, s;
    a = dq_unit(a); b = dq_unit(b);
    if (dq_dot(a, b) < 0.0) b = dq_scale(b, -1.0);
    d = dq4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w);
    s = dq4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    return 4.0 * atan2(dq_len(d), dq_len(s));
}
static dquat dq_axis_angle(dvec axis, double angle)
{
    double s = sin(0.5 * angle) / dv_len(axis);
    return dq4(axis.x * s, axis.y * s, axis.z * s, cos(0.5 * angle));
}

/* A rigid motion in double: p -> q p q* + t. */
typedef struct drigid { dquat q; dvec t; } drigid;
static drigid dr(fk_rigid r) { drigid d; d.q = dq_unit(dq(r.q)); d.t = dv(r.t); return d; }
static dvec dr_apply(drigid r, dvec p) { return dv_add(dq_rotate(r.q, p), r.t); }
static drigid dr_mul(drigid a, drigid b) { drigid r; r.q = dq_mul(a.q, b.q); r.t = dr_apply(a, b.t); return r; }
static fk_rigid fr(drigid r) { return fk_rigid_make(fq(r.q), fv(r.t)); }

/* ---- Generators ------------------------------------------------------------------ */

static dvec random_direction(rng *r)
{
    for (;;) { /* rejection sampling from the cube: uniform on the sphere */
        dvec v = dv3(rng_range(r, -1, 1), rng_range(r, -1, 1), rng_range(r, -1, 1));
        double length = dv_len(v);
        if (length > 1e-3 && length <= 1.0) return dv_scale(v, 1.0 / length);
    }
}

/* Uniform on the unit 3-sphere (Shoemake), then its angle scaled to at most
   max_angle along the same axis, so shrinking the angle keeps the axis. */
static dquat random_rotation(rng *r, double max_angle)
{
    double u1 = rng_unit(r), u2 = 2.0 * PI * rng_unit(r), u3 = 2.0 * PI * rng_unit(r);
    double a = sqrt(1.0 - u1), b = sqrt(u1);
    dquat q = dq4(a * sin(u2), a * cos(u2), b * sin(u3), b * cos(u3));
    double half = atan2(sqrt(q.x * q.x + q.y * q.y + q.z * q.z), fabs(q.w));
    dvec axis = dv3(q.x, q.y, q.z);
    if (q.w < 0.0) axis = dv_scale(axis, -1.0);
    if (dv_len(axis) < 1e-12) return dq4(0, 0, 0, 1);
    return dq_axis_angle(axis, 2.0 * half * (max_angle / PI));
}

/* A rotation drawn from the edge cases as often as from the bulk: the identity, a
   half turn (w = 0, where naive matrix conversions divide by zero), a tiny turn,
   or a uniform one; then either sign (q and -q are one rotation) and, sometimes,
   a length other than one (inputs are normalized on the way in). */
static fk_quat random_input_rotation(rng *r, double max_angle)
{
    dquat q;
    switch (rng_below(r, 8)) {
    case 0: q = dq4(0, 0, 0, 1); break;
    case 1: q = dq_axis_angle(random_direction(r), max_angle); break;
    case 2: q = dq_axis_angle(random_direction(r), max_angle * rng_log_range(r, 1e-7, 1e-2)); break;
    default: q = random_rotation(r, max_angle); break;
    }
    if (rng_chance(r, 2)) q = dq_scale(q, -1.0);
    if (rng_chance(r, 4)) q = dq_scale(q, rng_log_range(r, 0.01, 100.0));
    return fq(q);
}

static dvec random_vector(rng *r, double length) { return dv_scale(random_direction(r), length * rng_unit(r)); }

/* The size of a case: what shrinking reduces. */
typedef struct prop_size {
    int joints;       /* 1 .. MAX_JOINTS */
    int vertices;     /* 1 .. MAX_VERTICES */
    int influences;   /* weights per vertex, 1 .. MAX_INFLUENCES */
    double angle;     /* largest rotation angle, radians, 0 .. pi */
    int magnitude;    /* coordinates are about 10^magnitude */
} prop_size;

enum { SHAPE_CHAIN, SHAPE_STAR, SHAPE_BALANCED, SHAPE_BUSHY, SHAPE_FOREST, SHAPE_COUNT };
enum { ORDER_PARENTS_FIRST, ORDER_SHUFFLED, ORDER_CHILDREN_FIRST, ORDER_COUNT };
static const char *const shape_names[SHAPE_COUNT] = {"chain", "star", "balanced tree", "bushy tree", "forest"};
static const char *const order_names[ORDER_COUNT] = {"parents first", "shuffled", "children first"};

typedef struct prop_case {
    uint64_t seed;
    prop_size size;
    int shape, order;
    /* Skeleton and pose, in the order given to the library. */
    int joint_count;
    int parents[MAX_JOINTS];
    fk_vec3 rest[MAX_JOINTS];
    fk_quat rotations[MAX_JOINTS];
    int has_translations;
    fk_vec3 translations[MAX_JOINTS];
    /* What the tolerances need: depth (roots 0) and reach, the length of the path
       of bone vectors from the origin to the posed joint, which bounds |posed joint|
       and every lever arm on the way. */
    int depth[MAX_JOINTS];
    double reach[MAX_JOINTS];
    /* Absolute transforms for the skinning properties (not from fk_forward, so
       skinning is tested on its own): any rotation, any sign, any length. */
    fk_rigid bones[MAX_JOINTS];
    double bone_reach; /* largest |t| among bones */
    /* Mesh: vertex_count vertices with k influences each, weights summing to one. */
    int vertex_count, influences;
    float positions[MAX_VERTICES * 3];
    float normals[MAX_VERTICES * 3];
    uint16_t joints[MAX_VERTICES * MAX_INFLUENCES];
    float weights[MAX_VERTICES * MAX_INFLUENCES];
    /* Loose quaternions and numbers for the algebra properties. */
    fk_quat quats[3];
    fk_vec3 point;
    float t;
    rng extra; /* for properties that draw more (a global motion, a defect...) */
} prop_case;

/* A size for a fresh case: joint counts spread evenly over orders of magnitude,
   so most cases are small and fast while every run still meets thousands. */
static prop_size random_size(uint64_t seed)
{
    rng r = rng_stream(seed, 0);
    prop_size s;
    s.joints = (int)rng_log_range(&r, 1.0, 4096.0);
    s.vertices = 1 + rng_below(&r, MAX_VERTICES);
    s.influences = 1 + rng_below(&r, MAX_INFLUENCES);
    s.angle = rng_chance(&r, 4) ? rng_range(&r, 0.0, PI) : PI;
    s.magnitude = rng_below(&r, 7) - 3;
    return s;
}

static void generate_skeleton(prop_case *c)
{
    static int natural_parent[MAX_JOINTS], position[MAX_JOINTS];
    rng shape = rng_stream(c->seed, 1), rest = rng_stream(c->seed, 2), pose = rng_stream(c->seed, 3);
    double scale = pow(10.0, c->size.magnitude);
    int n = c->joint_count = c->size.joints, branching, window, i;
    c->shape = rng_below(&shape, SHAPE_COUNT);
    c->order = rng_below(&shape, ORDER_COUNT);
    branching = 2 + rng_below(&shape, 3);
    window = 1 + rng_below(&shape, 16);
    for (i = 0; i < n; ++i) {
        int p = i - 1;
        switch (c->shape) {
        case SHAPE_STAR: p = i ? 0 : -1; break;
        case SHAPE_BALANCED: p = i ? (i - 1) / branching : -1; break;
        case SHAPE_BUSHY: p = i ? i - 1 - rng_below(&shape, i < window ? i : window) : -1; break;
        case SHAPE_FOREST: p = i && !rng_chance(&shape, 8) ? i - 1 - rng_below(&shape, i < window ? i : window) : -1; break;
        default: break;
        }
        natural_parent[i] = p;
    }
    /* Where each joint goes in the arrays handed to the library. */
    for (i = 0; i < n; ++i) position[i] = c->order == ORDER_CHILDREN_FIRST ? n - 1 - i : i;
    if (c->order == ORDER_SHUFFLED)
        for (i = n - 1; i > 0; --i) {
            int j = rng_below(&shape, i + 1), swap = position[i];
            position[i] = position[j]; position[j] = swap;
        }
    c->has_translations = rng_chance(&pose, 2);
    for (i = 0; i < n; ++i) { /* natural order: parents before children */
        int p = natural_parent[i], at = position[i];
        dvec x, d = dv3(0, 0, 0);
        /* Roots anywhere within 10 units; bones from 1/100 of a unit to one unit,
           sometimes of length zero (a joint on top of its parent). */
        if (p < 0) x = random_vector(&rest, 10.0 * scale);
        else x = dv_add(dv(c->rest[position[p]]),
                        dv_scale(random_direction(&rest), rng_chance(&rest, 32) ? 0.0 : scale * rng_log_range(&rest, 0.01, 1.0)));
        c->rest[at] = fv(x);
        c->rotations[at] = random_input_rotation(&pose, c->size.angle);
        if (c->has_translations && !rng_chance(&pose, 2)) d = random_vector(&pose, 0.5 * scale);
        c->translations[at] = fv(d);
        /* A root's marker is any negative number. */
        c->parents[at] = p < 0 ? (rng_chance(&shape, 4) ? -1 - rng_below(&shape, 1000) : -1) : position[p];
        c->depth[at] = p < 0 ? 0 : c->depth[position[p]] + 1;
        {
            dvec bone = dv_add(dv(c->rest[at]), dv(c->translations[at]));
            if (p >= 0) bone = dv_sub(bone, dv(c->rest[position[p]]));
            c->reach[at] = (p < 0 ? 0.0 : c->reach[position[p]]) + dv_len(bone);
        }
    }
    c->bone_reach = 0.0;
    for (i = 0; i < n; ++i) {
        dvec t = random_vector(&pose, 10.0 * scale);
        c->bones[i] = fk_rigid_make(random_input_rotation(&pose, c->size.angle), fv(t));
        if (dv_len(dv(c->bones[i].t)) > c->bone_reach) c->bone_reach = dv_len(dv(c->bones[i].t));
    }
}

static void generate_mesh(prop_case *c)
{
    rng mesh = rng_stream(c->seed, 4);
    double scale = pow(10.0, c->size.magnitude);
    int v, k, kk = c->influences = c->size.influences;
    c->vertex_count = c->size.vertices;
    for (v = 0; v < c->vertex_count; ++v) {
        double sum = 0.0, w[MAX_INFLUENCES];
        int anchor = rng_below(&mesh, c->joint_count);
        dvec p = dv_add(dv(c->rest[anchor]), random_vector(&mesh, scale));
        dvec n = random_direction(&mesh);
        c->positions[3 * v] = (float)p.x; c->positions[3 * v + 1] = (float)p.y; c->positions[3 * v + 2] = (float)p.z;
        c->normals[3 * v] = (float)n.x; c->normals[3 * v + 1] = (float)n.y; c->normals[3 * v + 2] = (float)n.z;
        for (k = 0; k < kk; ++k) {
            /* Mostly distinct joints near the anchor; sometimes a repeat or a zero weight. */
            c->joints[v * kk + k] = (uint16_t)(k == 0 ? anchor : rng_below(&mesh, c->joint_count));
            w[k] = rng_chance(&mesh, 8) ? 0.0 : rng_log_range(&mesh, 0.01, 1.0);
            sum += w[k];
        }
        if (sum == 0.0) { w[0] = 1.0; sum = 1.0; }
        for (k = 0; k < kk; ++k) c->weights[v * kk + k] = (float)(w[k] / sum);
    }
}

static void generate_quats(prop_case *c)
{
    rng q = rng_stream(c->seed, 5);
    int i;
    for (i = 0; i < 3; ++i) c->quats[i] = fq(dq_unit(dq(random_input_rotation(&q, c->size.angle))));
    if (rng_chance(&q, 4)) /* a nearly equal pair, where slerp divides by a tiny sine */
        c->quats[1] = fq(dq_unit(dq_mul(dq(c->quats[0]), dq_axis_angle(random_direction(&q), rng_log_range(&q, 1e-7, 1e-3)))));
    if (rng_chance(&q, 8)) c->quats[1] = fq(dq_scale(dq(c->quats[0]), -1.0)); /* -q: the same rotation */
    c->point = fv(random_vector(&q, pow(10.0, c->size.magnitude)));
    c->t = (float)(rng_chance(&q, 8) ? (double)rng_below(&q, 2) : rng_unit(&q));
}

/* What a property reads from a case; only that is generated (and printed). */
enum { USES_SKELETON = 1, USES_BONES = 2, USES_MESH = 4, USES_QUATS = 8 };

static void generate_case(prop_case *c, uint64_t seed, prop_size size, int uses)
{
    c->seed = seed;
    c->size = size;
    c->joint_count = size.joints;
    c->vertex_count = size.vertices;
    c->influences = size.influences;
    if (uses & (USES_SKELETON | USES_BONES | USES_MESH)) generate_skeleton(c); /* meshes sit on skeletons */
    if (uses & USES_MESH) generate_mesh(c);
    if (uses & USES_QUATS) generate_quats(c);
    c->extra = rng_stream(seed, 6);
}

/* ---- Printing a case, so that a failure can be pasted into a test ---------------- */

#define PRINT_LIMIT 12 /* array entries shown; a shrunk case is usually smaller */

static void print_vec3s(const char *name, const fk_vec3 *v, int count)
{
    int i;
    fprintf(stderr, "    %-12s = {", name);
    for (i = 0; i < count && i < PRINT_LIMIT; ++i)
        fprintf(stderr, "%s{%.9g, %.9g, %.9g}", i ? ", " : "", (double)v[i].x, (double)v[i].y, (double)v[i].z);
    fprintf(stderr, "%s}\n", count > PRINT_LIMIT ? ", ..." : "");
}

static void print_quats(const char *name, const fk_quat *q, int count)
{
    int i;
    fprintf(stderr, "    %-12s = {", name);
    for (i = 0; i < count && i < PRINT_LIMIT; ++i)
        fprintf(stderr, "%s{%.9g, %.9g, %.9g, %.9g}", i ? ", " : "", (double)q[i].x, (double)q[i].y, (double)q[i].z, (double)q[i].w);
    fprintf(stderr, "%s}\n", count > PRINT_LIMIT ? ", ..." : "");
}

static void print_floats(const char *name, const float *f, int count)
{
    int i;
    fprintf(stderr, "    %-12s = {", name);
    for (i = 0; i < count && i < PRINT_LIMIT; ++i) fprintf(stderr, "%s%.9g", i ? ", " : "", (double)f[i]);
    fprintf(stderr, "%s}\n", count > PRINT_LIMIT ? ", ..." : "");
}

static void print_case(const prop_case *c, int uses)
{
    int i, n = c->joint_count;
    if (uses & (USES_SKELETON | USES_BONES | USES_MESH)) {
        fprintf(stderr, "    %d joint%s, %s, %s\n", n, n == 1 ? "" : "s", shape_names[c->shape], order_names[c->order]);
        fprintf(stderr, "    %-12s = {", "parents");
        for (i = 0; i < n && i < PRINT_LIMIT; ++i) fprintf(stderr, "%s%d", i ? ", " : "", c->parents[i]);
        fprintf(stderr, "%s}\n", n > PRINT_LIMIT ? ", ..." : "");
    }
    if (uses & USES_SKELETON) {
        print_vec3s("rest_joints", c->rest, n);
        print_quats("rotations", c->rotations, n);
        if (c->has_translations) print_vec3s("translations", c->translations, n);
        else fprintf(stderr, "    %-12s = NULL\n", "translations");
    }
    if (uses & USES_BONES) {
        fprintf(stderr, "    %-12s = {", "bones");
        for (i = 0; i < n && i < PRINT_LIMIT; ++i)
            fprintf(stderr, "%s{{%.9g, %.9g, %.9g, %.9g}, {%.9g, %.9g, %.9g}}", i ? ", " : "",
                    (double)c->bones[i].q.x, (double)c->bones[i].q.y, (double)c->bones[i].q.z, (double)c->bones[i].q.w,
                    (double)c->bones[i].t.x, (double)c->bones[i].t.y, (double)c->bones[i].t.z);
        fprintf(stderr, "%s}\n", n > PRINT_LIMIT ? ", ..." : "");
    }
    if (uses & USES_MESH) {
        fprintf(stderr, "    %d vertex(es), %d influence(s) each\n", c->vertex_count, c->influences);
        print_floats("positions", c->positions, 3 * c->vertex_count);
        print_floats("normals", c->normals, 3 * c->vertex_count);
        fprintf(stderr, "    %-12s = {", "joints");
        for (i = 0; i < c->vertex_count * c->influences && i < PRINT_LIMIT; ++i)
            fprintf(stderr, "%s%d", i ? ", " : "", (int)c->joints[i]);
        fprintf(stderr, "%s}\n", c->vertex_count * c->influences > PRINT_LIMIT ? ", ..." : "");
        print_floats("weights", c->weights, c->vertex_count * c->influences);
    }
    if (uses & USES_QUATS) {
        print_quats("quats", c->quats, 3);
        print_vec3s("point", &c->point, 1);
        fprintf(stderr, "    %-12s = %.9g\n", "t", (double)c->t);
    }
}

#endif
