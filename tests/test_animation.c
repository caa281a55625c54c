/* test_animation.c - the animation toolkit: two-bone and aim IK, root motion,
   every glTF interpolation, and morph targets before skinning.

   Randomized tests draw from one seed, printed in every failure message with the
   command that replays it: build/test_animation SEED. */
#include "fk_lbs.h" /* declarations: the library is tests/fk_lbs_impl.c */
#include "check.h"
#include "test_random.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979f

static unsigned long seed = 20261127ul;

static inline void rng_restart(void) { rng_state = (uint64_t)seed * 0x9E3779B97F4A7C15u + 1u; }

/* ---- Two-bone IK ------------------------------------------------------------------ */

#define TB_MAX_JOINTS 24
#define TB_TRIALS 400

static float tb_distance(fk_vec3 a, fk_vec3 b) { return fk_vec3_length(fk_vec3_sub(a, b)); }

/* The angle between two vectors, accurate near 0. */
static float tb_angle(fk_vec3 a, fk_vec3 b) { return atan2f(fk_vec3_length(fk_vec3_cross(a, b)), fk_vec3_dot(a, b)); }

/* A 3x4 matrix's linear part applied to v, plus its translation when @p point. */
static fk_vec3 mat34_apply(const float *m, fk_vec3 v, int point)
{
    return fk_vec3_make(m[0] * v.x + m[1] * v.y + m[2] * v.z + (point ? m[3] : 0.0f),
                        m[4] * v.x + m[5] * v.y + m[6] * v.z + (point ? m[7] : 0.0f),
                        m[8] * v.x + m[9] * v.y + m[10] * v.z + (point ? m[11] : 0.0f));
}

/* A non-uniform scale, each axis in [0.5, 2]. */
static fk_vec3 random_scale(void)
{
    return fk_vec3_make(rng_uniform(0.5f, 2.0f), rng_uniform(0.5f, 2.0f), rng_uniform(0.5f, 2.0f));
}

/* Largest component difference, q and -q counting as one rotation. */
static float tb_quat_distance(fk_quat a, fk_quat b)
{
    float same = fmaxf(fmaxf(fabsf(a.x - b.x), fabsf(a.y - b.y)), fmaxf(fabsf(a.z - b.z), fabsf(a.w - b.w)));
    float opposite = fmaxf(fmaxf(fabsf(a.x + b.x), fabsf(a.y + b.y)), fmaxf(fabsf(a.z + b.z), fabsf(a.w + b.w)));
    return fminf(same, opposite);
}

/* A skeleton holding a chain: 0-2 joints above start, 0-2 between start and mid
   and between mid and end, and up to 6 other joints hanging anywhere, all listed
   in a random order (children may come before parents). */
typedef struct tb_rig {
    int n, parents[TB_MAX_JOINTS], start, mid, end;
    fk_rotation_frame frame;
    fk_vec3 rest[TB_MAX_JOINTS];
    fk_quat turns[TB_MAX_JOINTS];
    fk_rigid transforms[TB_MAX_JOINTS];
} tb_rig;

static void tb_forward(tb_rig *r)
{
    if (r->frame == FK_FRAME_REST) fk_forward_rest_frame(r->n, r->parents, r->rest, r->turns, NULL, r->transforms);
    else fk_forward(r->n, r->parents, r->rest, r->turns, NULL, r->transforms);
}

static fk_vec3 tb_joint(const tb_rig *r, int joint) { return fk_rigid_apply(r->transforms[joint], r->rest[joint]); }

static void tb_random_rig(tb_rig *r, fk_rotation_frame frame)
{
    int topological[TB_MAX_JOINTS], order[TB_MAX_JOINTS], i;
    int above = rng_below(3), upper = rng_below(3), lower = rng_below(3);
    int path = above + upper + lower + 3, start = above, mid = above + upper + 1;
    r->n = path + rng_below(7);
    r->frame = frame;
    for (i = 0; i < r->n; ++i) {
        topological[i] = i < path ? i - 1 : rng_below(i);
        order[i] = i;
    }
    for (i = r->n - 1; i > 0; --i) {
        int j = rng_below(i + 1), swap = order[i];
        order[i] = order[j]; order[j] = swap;
    }
    for (i = 0; i < r->n; ++i) {
        r->parents[order[i]] = topological[i] < 0 ? -1 : order[topological[i]];
        r->rest[order[i]] = random_vec3(1.0f);
        /* In the rest frame only identity rotations carry the joints between the
           chain's three rigidly (see fk_ik_two_bone()'s remark). */
        r->turns[order[i]] = frame == FK_FRAME_REST && i > start && i < path - 1 && i != mid ? fk_quat_identity()
                                                                                            : random_quat();
    }
    r->start = order[start]; r->mid = order[mid]; r->end = order[path - 1];
    tb_forward(r);
}

static fk_ik_two_bone_desc tb_desc(const tb_rig *r, fk_vec3 target)
{
    fk_ik_two_bone_desc d;
    memset(&d, 0, sizeof d);
    d.joint_count = r->n; d.parents = r->parents; d.rest_joints = r->rest; d.transforms = r->transforms;
    d.frame = r->frame; d.start = r->start; d.mid = r->mid; d.end = r->end; d.target = target;
    return d;
}

/* The posed bone lengths, which the solve keeps. */
/* A target strictly inside the chain's reach, so that the chain bends: at
   distance from the start joint s, in the random direction u; a and b are the
   bones' posed lengths. */
static fk_vec3 tb_bending_target(const tb_rig *r, fk_vec3 *s, fk_vec3 *u, float *a, float *b, float *distance)
{
    *s = tb_joint(r, r->start);
    *a = tb_distance(tb_joint(r, r->mid), *s);
    *b = tb_distance(tb_joint(r, r->end), tb_joint(r, r->mid));
    *distance = fabsf(*a - *b) + (*a + *b - fabsf(*a - *b)) * rng_uniform(0.1f, 0.9f);
    *u = fk_vec3_normalize(random_vec3(1.0f));
    return fk_vec3_add(*s, fk_vec3_scale(*u, *distance));
}

static float tb_reach(const tb_rig *r)
{
    return tb_distance(tb_joint(r, r->mid), tb_joint(r, r->start)) +
           tb_distance(tb_joint(r, r->end), tb_joint(r, r->mid));
}

/* Rounding bound for a position after the solve and forward kinematics: a few
   dozen float operations per joint down a chain of at most 12, on coordinates of
   size at most `size`, each within half an ulp; 256 ulps of `size` covers them. */
static float tb_tolerance(float size) { return 256.0f * FLT_EPSILON * size; }

static float tb_size(const tb_rig *r, fk_vec3 target)
{
    return fk_vec3_length(tb_joint(r, r->start)) + fk_vec3_length(target) + tb_reach(r);
}

static fk_result tb_solve(tb_rig *r, const fk_ik_two_bone_desc *d, float weight, int *reached)
{
    fk_result result = fk_ik_two_bone(d, weight, r->turns, reached);
    tb_forward(r);
    return result;
}

static void two_bone_worked_example(void)
{
    /* Bones of length 1 at a right angle in the xy plane, bent about +z: S = 0,
       M = (1, 0, 0), E = (1, 1, 0). A target at sqrt(3) on x asks for an elbow of
       120 degrees; by the law of cosines cos A = (1 + 3 - 1) / (2 sqrt 3), A = 30
       degrees, so the upper bone turns -30 degrees about z (M' = (cos 30, -sin 30,
       0), on the side that keeps the bend about +z) and the lower bone from +y
       (90 degrees) to E' - M' = (cos 30, sin 30, 0) (30 degrees), -60 degrees in
       the world: -30 relative to the upper bone in either frame, the turns sharing
       an axis. Both rotations are (0, 0, -sin 15, cos 15). Out of reach (x = 5),
       the upper bone stays on x and the lower one turns -90 degrees about z. */
    const int parents[3] = {-1, 0, 1};
    const fk_vec3 rest[3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}};
    const fk_quat expected = fk_quat_make(0.0f, 0.0f, -sinf(PI / 12), cosf(PI / 12));
    const fk_quat straight = fk_quat_make(0.0f, 0.0f, -sinf(PI / 4), cosf(PI / 4));
    int f;
    for (f = 0; f < 2; ++f) {
        fk_rigid bones[3];
        fk_quat turns[3];
        fk_ik_two_bone_desc d;
        int reached = -1;
        const float tolerance = 8.0f * FLT_EPSILON; /* a handful of roundings on unit-sized values */
        memset(&d, 0, sizeof d);
        turns[0] = turns[1] = turns[2] = fk_quat_identity();
        fk_forward(3, parents, rest, turns, NULL, bones); /* both frames agree at the identity */
        d.joint_count = 3; d.parents = parents; d.rest_joints = rest; d.transforms = bones;
        d.frame = f ? FK_FRAME_REST : FK_FRAME_PARENT; d.start = 0; d.mid = 1; d.end = 2;
        d.target = fk_vec3_make(sqrtf(3.0f), 0.0f, 0.0f);
        CHECK(fk_ik_two_bone(&d, 1.0f, turns, &reached) == FK_OK && reached == 1, "reachable target not reached");
        CHECK(tb_quat_distance(turns[0], expected) < tolerance && tb_quat_distance(turns[1], expected) < tolerance,
              "rotations (%g %g %g %g) (%g %g %g %g), expected (0 0 %g %g) for both (frame %d)", turns[0].x, turns[0].y,
              turns[0].z, turns[0].w, turns[1].x, turns[1].y, turns[1].z, turns[1].w, expected.z, expected.w, f);
        CHECK(memcmp(&turns[2], &bones[2].q, sizeof turns[2]) == 0, "the end joint's rotation was written");
        turns[0] = turns[1] = fk_quat_identity();
        d.target = fk_vec3_make(5.0f, 0.0f, 0.0f);
        CHECK(fk_ik_two_bone(&d, 1.0f, turns, &reached) == FK_OK && reached == 0, "unreachable target reported reached");
        CHECK(tb_quat_distance(turns[0], fk_quat_identity()) < tolerance && tb_quat_distance(turns[1], straight) < tolerance,
              "straightened to (%g %g %g %g) (%g %g %g %g) (frame %d)", turns[0].x, turns[0].y, turns[0].z, turns[0].w,
              turns[1].x, turns[1].y, turns[1].z, turns[1].w, f);
    }
}

static void two_bone_reaches_reachable_targets(void)
{
    static tb_rig r;
    float worst = 0.0f;
    int trial;
    rng_restart();
    for (trial = 0; trial < TB_TRIALS; ++trial) {
        fk_quat saved[TB_MAX_JOINTS];
        fk_vec3 target;
        fk_ik_two_bone_desc d;
        float error, size;
        int reached = -1, i;
        tb_random_rig(&r, trial % 2 ? FK_FRAME_REST : FK_FRAME_PARENT);
        /* Where some other rotations of start and mid put the end: reachable. */
        memcpy(saved, r.turns, sizeof saved);
        r.turns[r.start] = random_quat(); r.turns[r.mid] = random_quat();
        tb_forward(&r);
        target = tb_joint(&r, r.end);
        memcpy(r.turns, saved, sizeof saved);
        tb_forward(&r);
        d = tb_desc(&r, target);
        size = tb_size(&r, target);
        CHECK(tb_solve(&r, &d, 1.0f, &reached) == FK_OK, "failed");
        error = tb_distance(tb_joint(&r, r.end), target);
        worst = fmaxf(worst, error / size);
        CHECK(error <= tb_tolerance(size) && reached == 1, "end %g from a reachable target, reached %d (size %g, %s frame, seed %lu)",
              error, reached, size, trial % 2 ? "rest" : "parent", seed);
        for (i = 0; i < r.n; ++i)
            if (i != r.start && i != r.mid)
                CHECK(memcmp(&r.turns[i], &saved[i], sizeof saved[i]) == 0, "joint %d's rotation changed (seed %lu)", i, seed);
    }
    printf("   two-bone IK, reachable targets: largest end error %.2e of the chain's size\n", worst);
}

static void two_bone_points_straight_at_unreachable_targets(void)
{
    static tb_rig r;
    int trial;
    rng_restart();
    for (trial = 0; trial < TB_TRIALS; ++trial) {
        fk_vec3 s, direction, target, expected;
        fk_ik_two_bone_desc d;
        float reach, size, off_line;
        int reached = -1;
        tb_random_rig(&r, trial % 2 ? FK_FRAME_REST : FK_FRAME_PARENT);
        s = tb_joint(&r, r.start);
        reach = tb_reach(&r);
        direction = fk_vec3_normalize(random_vec3(1.0f));
        target = fk_vec3_add(s, fk_vec3_scale(direction, reach * rng_uniform(1.01f, 3.0f)));
        d = tb_desc(&r, target);
        size = tb_size(&r, target);
        CHECK(tb_solve(&r, &d, 1.0f, &reached) == FK_OK && reached == 0, "failed, or an unreachable target reached (seed %lu)", seed);
        expected = fk_vec3_add(s, fk_vec3_scale(direction, reach));
        off_line = fk_vec3_length(fk_vec3_cross(fk_vec3_sub(tb_joint(&r, r.mid), s), direction));
        CHECK(tb_distance(tb_joint(&r, r.end), expected) <= tb_tolerance(size) && off_line <= tb_tolerance(size),
              "end %g from full reach toward the target, mid %g off the line (size %g, %s frame, seed %lu)",
              tb_distance(tb_joint(&r, r.end), expected), off_line, size, trial % 2 ? "rest" : "parent", seed);
    }
}

static void two_bone_bends_toward_the_pole(void)
{
    static tb_rig r;
    int trial;
    rng_restart();
    for (trial = 0; trial < TB_TRIALS; ++trial) {
        fk_vec3 s, u, target, pole, side, normal, mid;
        fk_ik_two_bone_desc d;
        float a, b, distance, size, sine;
        tb_random_rig(&r, trial % 2 ? FK_FRAME_REST : FK_FRAME_PARENT);
        target = tb_bending_target(&r, &s, &u, &a, &b, &distance);
        pole = fk_vec3_add(s, random_vec3(2.0f));
        d = tb_desc(&r, target);
        d.pole = &pole;
        size = tb_size(&r, target) + fk_vec3_length(pole);
        CHECK(tb_solve(&r, &d, 1.0f, NULL) == FK_OK, "failed");
        mid = fk_vec3_sub(tb_joint(&r, r.mid), s);
        side = fk_vec3_normalize(fk_vec3_sub(fk_vec3_sub(pole, s), fk_vec3_scale(u, fk_vec3_dot(fk_vec3_sub(pole, s), u))));
        normal = fk_vec3_cross(u, side);
        /* The mid joint's distance from the line is a sin A, in double by the law of cosines. */
        sine = (float)sqrt(1.0 - pow(((double)a * a + (double)distance * distance - (double)b * b) / (2.0 * a * distance), 2.0));
        CHECK(fabsf(fk_vec3_dot(mid, normal)) <= tb_tolerance(size) &&
              fabsf(fk_vec3_dot(mid, side) - a * sine) <= tb_tolerance(size),
              "mid %g off the pole's plane, %g from the pole's side at %g (size %g, seed %lu)", fk_vec3_dot(mid, normal),
              fk_vec3_dot(mid, side), a * sine, size, seed);
    }
}

static void two_bone_default_hinge_is_the_rest_bend_carried_by_mid(void)
{
    /* Without pole or axis, the hinge is the rest bend normal n carried by the
       mid joint, Q_mid n, made perpendicular to the upper bone: h. The mid joint
       must land in the plane through S perpendicular to h' (h made perpendicular
       to the target direction u), a sin A on the side u x h'. Trials where either
       projection is short are skipped, to stay clear of the fallbacks. */
    static tb_rig r;
    int trial, tested = 0;
    rng_restart();
    for (trial = 0; trial < TB_TRIALS; ++trial) {
        fk_vec3 s, u, u1, h, normal, bend, mid, target;
        fk_ik_two_bone_desc d;
        float a, b, distance, size, sine;
        tb_random_rig(&r, trial % 2 ? FK_FRAME_REST : FK_FRAME_PARENT);
        target = tb_bending_target(&r, &s, &u, &a, &b, &distance);
        u1 = fk_vec3_normalize(fk_vec3_sub(tb_joint(&r, r.mid), s));
        h = fk_quat_rotate(fk_quat_normalize(r.transforms[r.mid].q),
                           fk_vec3_normalize(fk_vec3_cross(fk_vec3_sub(r.rest[r.mid], r.rest[r.start]),
                                                           fk_vec3_sub(r.rest[r.end], r.rest[r.mid]))));
        h = fk_vec3_sub(h, fk_vec3_scale(u1, fk_vec3_dot(h, u1)));
        if (fk_vec3_length(h) < 0.1f) continue;
        h = fk_vec3_normalize(h);
        normal = fk_vec3_sub(h, fk_vec3_scale(u, fk_vec3_dot(h, u)));
        if (fk_vec3_length(normal) < 0.1f) continue;
        normal = fk_vec3_normalize(normal);
        bend = fk_vec3_cross(u, normal);
        d = tb_desc(&r, target);
        size = tb_size(&r, target);
        CHECK(tb_solve(&r, &d, 1.0f, NULL) == FK_OK, "failed");
        mid = fk_vec3_sub(tb_joint(&r, r.mid), s);
        sine = (float)sqrt(1.0 - pow(((double)a * a + (double)distance * distance - (double)b * b) / (2.0 * a * distance), 2.0));
        CHECK(fabsf(fk_vec3_dot(mid, normal)) <= tb_tolerance(size) && fabsf(fk_vec3_dot(mid, bend) - a * sine) <= tb_tolerance(size),
              "mid %g off the hinge's plane, %g toward the bend, expected %g (size %g, %s frame, seed %lu)",
              fk_vec3_dot(mid, normal), fk_vec3_dot(mid, bend), a * sine, size, trial % 2 ? "rest" : "parent", seed);
        ++tested;
    }
    CHECK(tested > TB_TRIALS / 2, "only %d trials clear of the fallbacks (seed %lu)", tested, seed);
}

/* The worked example's chain: bones of length 1 along x then y, bent about +z. */
static const int tb_arm_parents[3] = {-1, 0, 1};
static const fk_vec3 tb_arm_rest[3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}};

static fk_ik_two_bone_desc tb_arm_desc(const fk_vec3 *rest, const fk_rigid *bones, fk_rotation_frame frame,
                                       fk_vec3 target)
{
    fk_ik_two_bone_desc d;
    memset(&d, 0, sizeof d);
    d.joint_count = 3; d.parents = tb_arm_parents; d.rest_joints = rest; d.transforms = bones;
    d.frame = frame; d.start = 0; d.mid = 1; d.end = 2; d.target = target;
    return d;
}

static void tb_arm_forward(const fk_vec3 *rest, const fk_quat *turns, fk_rotation_frame frame, fk_rigid *bones)
{
    if (frame == FK_FRAME_REST) fk_forward_rest_frame(3, tb_arm_parents, rest, turns, NULL, bones);
    else fk_forward(3, tb_arm_parents, rest, turns, NULL, bones);
}

static void two_bone_moves_continuously_without_flipping(void)
{
    /* The target moves in steps of h and each solve starts from the pose the last
       one left, as in an animation: path 0 crosses the chain's plane (z from -1.2
       to 1.2), path 1 goes out through full extension and back (x from 1.2 to 2.4
       and back). Away from full extension the mid joint moves a few times h; at
       full extension cos A = d / 2 has a square-root corner, A ~ sqrt(2 - d), so
       one step can move it by about sqrt(2 h): the bound is 4 sqrt(L h) = 0.18
       for L = 2, while a flip moves it across the line, by 2 a sin A. And the
       bend never turns over: its normal never reverses from one bent pose to the
       next. */
    const float h = 1e-3f, bound = 4.0f * sqrtf(2.0f * h);
    int f, path, step;
    for (f = 0; f < 2; ++f)
        for (path = 0; path < 2; ++path) {
            const fk_rotation_frame frame = f ? FK_FRAME_REST : FK_FRAME_PARENT;
            fk_quat turns[3];
            fk_rigid bones[3];
            fk_vec3 previous = {0, 0, 0}, bend = {0, 0, 1};
            float worst = 0.0f;
            turns[0] = turns[1] = turns[2] = fk_quat_identity();
            for (step = 0; step <= 2400; ++step) {
                const float t = (float)step * h;
                fk_vec3 target = path == 0 ? fk_vec3_make(1.2f, 0.3f, -1.2f + t)
                                           : fk_vec3_make(step <= 1200 ? 1.2f + t : 3.6f - t, -0.05f, 0.02f);
                fk_vec3 points[3], normal;
                fk_ik_two_bone_desc d;
                tb_arm_forward(tb_arm_rest, turns, frame, bones);
                d = tb_arm_desc(tb_arm_rest, bones, frame, target);
                CHECK(fk_ik_two_bone(&d, 1.0f, turns, NULL) == FK_OK, "failed");
                tb_arm_forward(tb_arm_rest, turns, frame, bones);
                fk_posed_joints(3, tb_arm_rest, bones, points);
                if (step > 0) worst = fmaxf(worst, tb_distance(points[1], previous));
                if (step > 0)
                    CHECK(tb_distance(points[1], previous) <= bound, "mid jumped %g at step %d (path %d, frame %d)",
                          tb_distance(points[1], previous), step, path, f);
                normal = fk_vec3_cross(fk_vec3_sub(points[1], points[0]), fk_vec3_sub(points[2], points[1]));
                if (fk_vec3_length(normal) > 1e-2f) {
                    CHECK(fk_vec3_dot(normal, bend) > 0.0f, "the bend turned over at step %d (path %d, frame %d)", step,
                          path, f);
                    bend = fk_vec3_normalize(normal);
                }
                previous = points[1];
            }
            if (f == 0) printf("   two-bone IK, path %d: largest mid step %.3f for target steps of %g\n", path, worst, h);
        }
}

static void two_bone_softening_eases_reach_continuously(void)
{
    /* The worked example's chain (L = 2) with soften = 0.1 (s = 0.2), a target
       on a line from the start at distances d from 1 to 3, solved from the rest
       pose each time: the end's distance must be d up to L - s = 1.8 and
       L - s + s (1 - exp(-(d - 1.8) / s)) above (in double), so it rises
       continuously and stays short of L, and the chain never lies straight. The
       tolerance is the reachable test's for a chain of size 3 + 2. */
    const float s = 0.2f, tolerance = tb_tolerance(5.0f);
    fk_vec3 direction = fk_vec3_normalize(fk_vec3_make(0.6f, 0.5f, 0.3f));
    int f, step;
    for (f = 0; f < 2; ++f)
        for (step = 0; step <= 200; ++step) {
            const fk_rotation_frame frame = f ? FK_FRAME_REST : FK_FRAME_PARENT;
            const float distance = 1.0f + 0.01f * (float)step;
            double eased = distance <= 1.8f ? distance : 1.8 + s * (1.0 - exp(-(distance - 1.8) / s));
            fk_quat turns[3];
            fk_rigid bones[3];
            fk_vec3 points[3];
            fk_ik_two_bone_desc d;
            float reach, sine;
            int reached = -1;
            turns[0] = turns[1] = turns[2] = fk_quat_identity();
            tb_arm_forward(tb_arm_rest, turns, frame, bones);
            d = tb_arm_desc(tb_arm_rest, bones, frame, fk_vec3_scale(direction, distance));
            d.soften = 0.1f;
            CHECK(fk_ik_two_bone(&d, 1.0f, turns, &reached) == FK_OK, "failed");
            tb_arm_forward(tb_arm_rest, turns, frame, bones);
            fk_posed_joints(3, tb_arm_rest, bones, points);
            reach = fk_vec3_length(points[2]);
            sine = fk_vec3_length(fk_vec3_cross(fk_vec3_normalize(points[1]), fk_vec3_normalize(fk_vec3_sub(points[2], points[1]))));
            CHECK(fabs(reach - eased) <= tolerance && sine > 0.0f,
                  "target at %g: end at %g, softened reach %g, bones' sine %g (frame %d)", distance, reach, eased, sine, f);
            CHECK(reached == (distance - eased <= 1e-4 * 2.0),
                  "target at %g, end at %g: reached %d", distance, reach, reached);
        }
}

static void two_bone_weight_blends_from_the_current_pose(void)
{
    static tb_rig r;
    int trial;
    rng_restart();
    for (trial = 0; trial < TB_TRIALS; ++trial) {
        fk_quat none[TB_MAX_JOINTS], full[TB_MAX_JOINTS], part[TB_MAX_JOINTS];
        fk_ik_two_bone_desc d;
        float weight = rng_uniform(0.05f, 0.95f);
        int reached = -1, j;
        tb_random_rig(&r, trial % 2 ? FK_FRAME_REST : FK_FRAME_PARENT);
        d = tb_desc(&r, fk_vec3_add(tb_joint(&r, r.end), fk_vec3_scale(fk_vec3_normalize(random_vec3(1.0f)),
                                                                        tb_reach(&r) * rng_uniform(0.1f, 1.0f))));
        memcpy(none, r.turns, sizeof none);
        memcpy(full, r.turns, sizeof full);
        memcpy(part, r.turns, sizeof part);
        /* The target is at least a tenth of the chain away from the end: weight 0
           leaves it there, not reached. */
        CHECK(fk_ik_two_bone(&d, 0.0f, none, &reached) == FK_OK && reached == 0, "weight 0 failed or reached (seed %lu)", seed);
        CHECK(memcmp(none, r.turns, sizeof none) == 0, "weight 0 changed the rotations (seed %lu)", seed);
        CHECK(fk_ik_two_bone(&d, 1.0f, full, NULL) == FK_OK && fk_ik_two_bone(&d, weight, part, NULL) == FK_OK, "failed");
        for (j = 0; j < 2; ++j) {
            const int joint = j ? r.mid : r.start;
            /* Slerp's own rounding, a few ulps of unit components, on both sides. */
            fk_quat expected = fk_quat_slerp(fk_quat_normalize(r.turns[joint]), full[joint], weight);
            CHECK(tb_quat_distance(part[joint], expected) <= 16.0f * FLT_EPSILON,
                  "joint %d at weight %g is %g from the slerp (seed %lu)", joint, weight,
                  tb_quat_distance(part[joint], expected), seed);
        }
        for (j = 0; j < r.n; ++j)
            if (j != r.start && j != r.mid)
                CHECK(memcmp(&part[j], &r.turns[j], sizeof part[j]) == 0, "joint %d changed (seed %lu)", j, seed);
    }
}

static void two_bone_mid_axis_is_the_hinge(void)
{
    /* A chain straight at rest along x has no bend to take a hinge from; with the
       mid axis +z or -z it must bend about that axis as the mid joint carries it:
       after the solve the bend normal (M - S) x (E - M), normalized, is Q_mid h,
       and the two axes bend it to opposite sides. The target keeps sin A near 0.6,
       so unit-sized roundings stay a few ulps. */
    const fk_vec3 rest[3] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
    int f, sign;
    for (f = 0; f < 2; ++f)
        for (sign = -1; sign <= 1; sign += 2) {
            const fk_rotation_frame frame = f ? FK_FRAME_REST : FK_FRAME_PARENT;
            fk_vec3 axis = fk_vec3_make(0.0f, 0.0f, (float)sign), points[3], normal, carried;
            fk_quat turns[3];
            fk_rigid bones[3];
            fk_ik_two_bone_desc d;
            int reached = -1;
            turns[0] = turns[1] = turns[2] = fk_quat_identity();
            tb_arm_forward(rest, turns, frame, bones);
            d = tb_arm_desc(rest, bones, frame, fk_vec3_make(1.2f, 0.6f, 0.4f));
            d.mid_axis = &axis;
            CHECK(fk_ik_two_bone(&d, 1.0f, turns, &reached) == FK_OK && reached == 1, "failed or not reached");
            tb_arm_forward(rest, turns, frame, bones);
            fk_posed_joints(3, rest, bones, points);
            normal = fk_vec3_normalize(fk_vec3_cross(points[1], fk_vec3_sub(points[2], points[1])));
            carried = fk_quat_rotate(bones[1].q, axis);
            CHECK(tb_distance(normal, carried) <= 16.0f * FLT_EPSILON, "bend normal (%g %g %g), axis carried to (%g %g %g) (frame %d)",
                  normal.x, normal.y, normal.z, carried.x, carried.y, carried.z, f);
        }
}

static void two_bone_bend_plane_takes_the_hinge_across_the_upper_bone_first(void)
{
    /* Rest S = 0, M = (0, 1, 0), E = (1, 1, 0): the rest bend normal is -z. With
       the mid joint turned 45 degrees about x its hinge Q_mid h = (0, s, -s),
       s = sqrt(1/2), is no longer perpendicular to the upper bone (+y). The bend
       plane's normal is that hinge made perpendicular to the upper bone first,
       -z, and then to the target direction u; made perpendicular to u directly it
       would be 0.174 rad away. */
    const int parents[3] = {-1, 0, 1};
    const fk_vec3 rest[3] = {{0, 0, 0}, {0, 1, 0}, {1, 1, 0}}, target = {0.3f, 1.2f, 0.9f};
    fk_quat turns[3];
    fk_rigid bones[3];
    fk_vec3 points[3], u = fk_vec3_normalize(target), hinge, two_step, direct, normal;
    fk_ik_two_bone_desc d;
    int reached = -1;
    turns[0] = turns[2] = fk_quat_identity();
    turns[1] = fk_quat_from_axis_angle(fk_vec3_make(1, 0, 0), PI / 4);
    fk_forward(3, parents, rest, turns, NULL, bones);
    hinge = fk_quat_rotate(bones[1].q, fk_vec3_make(0, 0, -1));
    two_step = fk_vec3_make(0, 0, -1); /* the hinge across the upper bone +y */
    two_step = fk_vec3_normalize(fk_vec3_sub(two_step, fk_vec3_scale(u, fk_vec3_dot(two_step, u))));
    direct = fk_vec3_normalize(fk_vec3_sub(hinge, fk_vec3_scale(u, fk_vec3_dot(hinge, u))));
    memset(&d, 0, sizeof d);
    d.joint_count = 3; d.parents = parents; d.rest_joints = rest; d.transforms = bones;
    d.start = 0; d.mid = 1; d.end = 2; d.target = target;
    CHECK(fk_ik_two_bone(&d, 1.0f, turns, &reached) == FK_OK && reached == 1, "failed or not reached");
    fk_forward(3, parents, rest, turns, NULL, bones);
    fk_posed_joints(3, rest, bones, points);
    normal = fk_vec3_normalize(fk_vec3_cross(fk_vec3_sub(points[1], points[0]), fk_vec3_sub(points[2], points[1])));
    CHECK(tb_angle(normal, two_step) <= 1e-5f && tb_angle(normal, direct) > 0.17f,
          "bend normal %g rad from the two-step hinge, %g from the direct one (expected 0 and 0.174)",
          tb_angle(normal, two_step), tb_angle(normal, direct));
    printf("   two-bone IK, tilted hinge: bend normal %.1e rad from the two-step reading, %.3f from the direct one\n",
           tb_angle(normal, two_step), tb_angle(normal, direct));
}

/* ---- Two-bone IK on rigs with scale: a tb_rig with a scale on every joint,
   posed by fk_forward_scaled() (pivots about rest joints) or fk_forward_trs()
   (local translations: the rest joints read as the offsets from the parent). */
typedef struct tb_scaled_rig {
    tb_rig r;
    int trs;
    fk_vec3 scales[TB_MAX_JOINTS];
    float matrices[12 * TB_MAX_JOINTS];
} tb_scaled_rig;

static void tb_scaled_forward(tb_scaled_rig *s)
{
    fk_result result = s->trs ? fk_forward_trs(s->r.n, s->r.parents, s->r.rest, s->r.turns, s->scales, s->matrices)
                              : fk_forward_scaled(s->r.n, s->r.parents, s->r.rest, s->r.turns, NULL, s->scales,
                                                  s->matrices);
    CHECK(result == FK_OK, "forward kinematics failed (seed %lu)", seed);
}

static fk_vec3 tb_scaled_pivot(const tb_scaled_rig *s, int joint)
{
    return mat34_apply(&s->matrices[12 * joint], s->trs ? fk_vec3_make(0, 0, 0) : s->r.rest[joint], 1);
}

/* The linear part of a joint's matrix applied to v (identity above a root), or
   of its inverse. */
static fk_vec3 tb_linear(const tb_scaled_rig *s, int joint, fk_vec3 v, int inverse)
{
    float m[12];
    if (joint < 0) return v;
    memcpy(m, &s->matrices[12 * joint], sizeof m);
    if (inverse) CHECK(fk_mat34_inverse(m, m) == FK_OK, "singular matrix (seed %lu)", seed);
    return mat34_apply(m, v, 0);
}

static void tb_scaled_random_rig(tb_scaled_rig *s, int trs)
{
    int i;
    tb_random_rig(&s->r, FK_FRAME_PARENT);
    s->trs = trs;
    for (i = 0; i < s->r.n; ++i) s->scales[i] = random_scale();
    tb_scaled_forward(s);
}

static fk_ik_two_bone_desc tb_scaled_desc(const tb_scaled_rig *s, fk_vec3 target)
{
    fk_ik_two_bone_desc d = tb_desc(&s->r, target);
    d.transforms = NULL;
    d.matrices = s->matrices;
    if (s->trs) d.rest_joints = NULL;
    return d;
}

/* The chain in the start joint's parent's space, where the start turns rigidly:
   the upper bone's length a, and r0, the lower bone's length there once the mid
   joint turns it (rigidly, in its own parent's space) onto the upper bone. The
   end reaches every distance between |a - r0| and a + r0 from S there. */
static void tb_scaled_chain(const tb_scaled_rig *s, float *a, float *r0)
{
    const int above = s->r.parents[s->r.start], mid_parent = s->r.parents[s->r.mid];
    fk_vec3 start = tb_scaled_pivot(s, s->r.start), mid = tb_scaled_pivot(s, s->r.mid), end = tb_scaled_pivot(s, s->r.end);
    *a = fk_vec3_length(tb_linear(s, above, fk_vec3_sub(mid, start), 1));
    *r0 = fk_vec3_length(tb_linear(s, mid_parent, fk_vec3_sub(end, mid), 1)) * *a /
          fk_vec3_length(tb_linear(s, mid_parent, fk_vec3_sub(mid, start), 1));
}

static float tb_scaled_size(const tb_scaled_rig *s, fk_vec3 target)
{
    fk_vec3 start = tb_scaled_pivot(s, s->r.start);
    return fk_vec3_length(start) + fk_vec3_length(target) + tb_distance(tb_scaled_pivot(s, s->r.mid), start) +
           tb_distance(tb_scaled_pivot(s, s->r.end), tb_scaled_pivot(s, s->r.mid));
}

static void two_bone_with_scale_reaches_reachable_targets(void)
{
    /* Random rigs with scales in [0.5, 2] per axis on every joint, above the
       chain, on it and between its joints; targets in random directions at a
       random distance the chain reaches (in the start's parent's space); with a
       pole, a mid axis or the default hinge. Posed again by the same forward
       kinematics, the end lies on the target, and no other joint turned. */
    static tb_scaled_rig s;
    float worst = 0.0f;
    int trial;
    rng_restart();
    for (trial = 0; trial < TB_TRIALS; ++trial) {
        fk_quat saved[TB_MAX_JOINTS];
        fk_vec3 start, target, pole, axis;
        fk_ik_two_bone_desc d;
        float a, r0, distance, error, size;
        int reached = -1, i;
        tb_scaled_random_rig(&s, trial % 2);
        tb_scaled_chain(&s, &a, &r0);
        distance = fabsf(a - r0) + (a + r0 - fabsf(a - r0)) * rng_uniform(0.02f, 0.98f);
        start = tb_scaled_pivot(&s, s.r.start);
        target = fk_vec3_add(start, tb_linear(&s, s.r.parents[s.r.start],
                                              fk_vec3_scale(fk_vec3_normalize(random_vec3(1.0f)), distance), 0));
        d = tb_scaled_desc(&s, target);
        pole = fk_vec3_add(start, random_vec3(2.0f));
        axis = random_vec3(1.0f);
        if (trial % 3 == 1) d.pole = &pole;
        if (trial % 3 == 2) d.mid_axis = &axis;
        memcpy(saved, s.r.turns, sizeof saved);
        size = tb_scaled_size(&s, target);
        CHECK(fk_ik_two_bone(&d, 0.0f, s.r.turns, NULL) == FK_OK && memcmp(saved, s.r.turns, sizeof saved) == 0,
              "weight 0 failed or changed the rotations (seed %lu)", seed);
        CHECK(fk_ik_two_bone(&d, 1.0f, s.r.turns, &reached) == FK_OK, "failed (seed %lu)", seed);
        tb_scaled_forward(&s);
        error = tb_distance(tb_scaled_pivot(&s, s.r.end), target);
        worst = fmaxf(worst, error / size);
        CHECK(error <= tb_tolerance(size) && reached == 1,
              "end %g from a reachable target, reached %d (size %g, %s, trial %d, seed %lu)", error, reached, size,
              s.trs ? "fk_forward_trs" : "fk_forward_scaled", trial, seed);
        for (i = 0; i < s.r.n; ++i)
            if (i != s.r.start && i != s.r.mid)
                CHECK(memcmp(&s.r.turns[i], &saved[i], sizeof saved[i]) == 0, "joint %d's rotation changed (seed %lu)", i, seed);
    }
    printf("   two-bone IK with scale, reachable targets: largest end error %.2e of the chain's size\n", worst);
}

static void two_bone_with_scale_worked_example(void)
{
    /* The worked example's chain with the start joint scaled by 2 along y about
       its pivot (fk_forward_scaled()): the forearm, along y at rest, is 2 long,
       and would be 1 along x. In the start's space the end is at
       rho^2 = (1 + r cos t)^2 + (r sin t)^2, r = 1 / sqrt(cos^2 t + sin^2 t / 4),
       from the start for an elbow bend t: 4 straight, largest (5.33) near
       t = 7 pi / 16, and 5 at the right angle. So a target at sqrt 5 on x keeps
       the elbow where it is, at a right angle, and turns the shoulder by
       -atan 2 about z, putting (1, 2, 0) on (sqrt 5, 0, 0). */
    const int parents[3] = {-1, 0, 1};
    const fk_vec3 rest[3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}}, scales[3] = {{1, 2, 1}, {1, 1, 1}, {1, 1, 1}};
    const fk_quat expected = fk_quat_make(0.0f, 0.0f, -sinf(0.5f * atanf(2.0f)), cosf(0.5f * atanf(2.0f)));
    fk_quat turns[3] = {{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}};
    float matrices[36];
    fk_vec3 end;
    fk_ik_two_bone_desc d;
    int reached = -1;
    fk_forward_scaled(3, parents, rest, turns, NULL, scales, matrices);
    memset(&d, 0, sizeof d);
    d.joint_count = 3; d.parents = parents; d.rest_joints = rest; d.matrices = matrices;
    d.start = 0; d.mid = 1; d.end = 2; d.target = fk_vec3_make(sqrtf(5.0f), 0.0f, 0.0f);
    CHECK(fk_ik_two_bone(&d, 1.0f, turns, &reached) == FK_OK && reached == 1, "failed or not reached");
    /* The bend is bisected to float's resolution of an angle near pi / 2. */
    CHECK(tb_quat_distance(turns[0], expected) <= 1e-6f && tb_quat_distance(turns[1], fk_quat_identity()) <= 1e-6f,
          "rotations (%g %g %g %g) (%g %g %g %g), expected (0 0 %g %g) and the identity", turns[0].x, turns[0].y,
          turns[0].z, turns[0].w, turns[1].x, turns[1].y, turns[1].z, turns[1].w, expected.z, expected.w);
    fk_forward_scaled(3, parents, rest, turns, NULL, scales, matrices);
    end = fk_vec3_make(matrices[24] + matrices[25] + matrices[27], matrices[28] + matrices[29] + matrices[31],
                       matrices[32] + matrices[33] + matrices[35]);
    CHECK(tb_distance(end, d.target) <= 8.0f * FLT_EPSILON, "end (%g %g %g)", end.x, end.y, end.z);
}

/* An upper bound on the lower bone's length in the start's parent's space, in
   any direction the mid joint turns it: |k| times the Frobenius norm of the map
   from the mid's parent's space. */
static float tb_scaled_longest_lower(const tb_scaled_rig *s)
{
    const int above = s->r.parents[s->r.start], mid_parent = s->r.parents[s->r.mid];
    fk_vec3 lower = fk_vec3_sub(tb_scaled_pivot(s, s->r.end), tb_scaled_pivot(s, s->r.mid));
    float norm = 0.0f;
    int c;
    for (c = 0; c < 3; ++c) {
        fk_vec3 column = tb_linear(s, above, tb_linear(s, mid_parent, fk_vec3_make(c == 0, c == 1, c == 2), 0), 1);
        norm += fk_vec3_dot(column, column);
    }
    return fk_vec3_length(tb_linear(s, mid_parent, lower, 1)) * sqrtf(norm);
}

static void two_bone_with_scale_points_at_unreachable_targets(void)
{
    /* Targets beyond any reach of the lower bone in the start's parent's space:
       not reached; the end lies on the line from the start toward the target
       (affine maps keep rays), at least as far as the straight chain, a + r0. */
    static tb_scaled_rig s;
    int trial;
    rng_restart();
    for (trial = 0; trial < TB_TRIALS; ++trial) {
        fk_vec3 start, target, direction, end;
        fk_ik_two_bone_desc d;
        float a, r0, size, along;
        int reached = -1;
        tb_scaled_random_rig(&s, trial % 2);
        tb_scaled_chain(&s, &a, &r0);
        start = tb_scaled_pivot(&s, s.r.start);
        target = fk_vec3_add(start, tb_linear(&s, s.r.parents[s.r.start],
                                              fk_vec3_scale(fk_vec3_normalize(random_vec3(1.0f)),
                                                            (a + tb_scaled_longest_lower(&s)) * rng_uniform(1.01f, 3.0f)), 0));
        d = tb_scaled_desc(&s, target);
        size = tb_scaled_size(&s, target);
        CHECK(fk_ik_two_bone(&d, 1.0f, s.r.turns, &reached) == FK_OK && reached == 0,
              "failed, or an unreachable target reached (seed %lu)", seed);
        tb_scaled_forward(&s);
        direction = fk_vec3_normalize(fk_vec3_sub(target, start));
        end = fk_vec3_sub(tb_scaled_pivot(&s, s.r.end), start);
        along = fk_vec3_length(tb_linear(&s, s.r.parents[s.r.start], end, 1));
        CHECK(fk_vec3_length(fk_vec3_cross(end, direction)) <= tb_tolerance(size) && fk_vec3_dot(end, direction) > 0.0f &&
              along >= (a + r0) * (1.0f - 1e-5f),
              "end %g off the line toward the target, %g along it in the start's parent's space, straight reach %g "
              "(%s, seed %lu)", fk_vec3_length(fk_vec3_cross(end, direction)), along, a + r0,
              s.trs ? "fk_forward_trs" : "fk_forward_scaled", seed);
    }
}

static void two_bone_with_scale_bends_toward_the_pole(void)
{
    /* Affine maps keep planes and sides: the mid joint lands in the plane
       through the start, the target and the pole, on the pole's side of the line
       from the start to the target. */
    static tb_scaled_rig s;
    int trial;
    rng_restart();
    for (trial = 0; trial < TB_TRIALS; ++trial) {
        fk_vec3 start, target, pole, to_target, to_pole, mid;
        fk_ik_two_bone_desc d;
        float a, r0, distance, volume, scale;
        tb_scaled_random_rig(&s, trial % 2);
        tb_scaled_chain(&s, &a, &r0);
        distance = fabsf(a - r0) + (a + r0 - fabsf(a - r0)) * rng_uniform(0.1f, 0.9f);
        start = tb_scaled_pivot(&s, s.r.start);
        target = fk_vec3_add(start, tb_linear(&s, s.r.parents[s.r.start],
                                              fk_vec3_scale(fk_vec3_normalize(random_vec3(1.0f)), distance), 0));
        pole = fk_vec3_add(start, random_vec3(2.0f));
        d = tb_scaled_desc(&s, target);
        d.pole = &pole;
        CHECK(fk_ik_two_bone(&d, 1.0f, s.r.turns, NULL) == FK_OK, "failed");
        tb_scaled_forward(&s);
        to_target = fk_vec3_sub(target, start);
        to_pole = fk_vec3_sub(pole, start);
        mid = fk_vec3_sub(tb_scaled_pivot(&s, s.r.mid), start);
        volume = fk_vec3_dot(fk_vec3_cross(to_target, to_pole), mid);
        scale = fk_vec3_length(to_target) * fk_vec3_length(to_pole) * fk_vec3_length(mid);
        /* The pole far enough from the line for its side to be defined. */
        if (fk_vec3_length(fk_vec3_cross(to_target, to_pole)) < 0.05f * fk_vec3_length(to_target) * fk_vec3_length(to_pole))
            continue;
        CHECK(fabsf(volume) <= 1e-5f * scale &&
              fk_vec3_dot(fk_vec3_cross(to_target, mid), fk_vec3_cross(to_target, to_pole)) > 0.0f,
              "mid %g off the pole's plane (relative), or on the far side (%s, seed %lu)", volume / scale,
              s.trs ? "fk_forward_trs" : "fk_forward_scaled", seed);
    }
}

static void two_bone_with_unit_scales_matches_the_rigid_solve(void)
{
    /* Posed by fk_forward_scaled() without scales, the rig is fk_forward()'s, and
       the solve on its matrices writes the rigid solve's rotations, up to the
       float rounding of the two routes (the bend bisected, not from the law of
       cosines), a few dozen roundings of unit quaternions: 256 ulps. */
    static tb_scaled_rig s;
    float worst = 0.0f;
    int trial;
    rng_restart();
    for (trial = 0; trial < TB_TRIALS; ++trial) {
        fk_quat rigid[TB_MAX_JOINTS], saved[TB_MAX_JOINTS], mid_turn;
        fk_vec3 s0, u, target, pole;
        fk_ik_two_bone_desc d;
        float a, b, distance;
        int i, with_pole = trial % 2;
        tb_random_rig(&s.r, FK_FRAME_PARENT);
        s.trs = 0;
        for (i = 0; i < s.r.n; ++i) s.scales[i] = fk_vec3_make(1, 1, 1);
        tb_scaled_forward(&s);
        target = tb_bending_target(&s.r, &s0, &u, &a, &b, &distance);
        pole = fk_vec3_add(s0, random_vec3(2.0f));
        memcpy(rigid, s.r.turns, sizeof rigid);
        memcpy(saved, s.r.turns, sizeof saved);
        d = tb_desc(&s.r, target);
        if (with_pole) d.pole = &pole;
        CHECK(fk_ik_two_bone(&d, 1.0f, rigid, NULL) == FK_OK, "rigid solve failed");
        d = tb_scaled_desc(&s, target);
        if (with_pole) d.pole = &pole;
        CHECK(fk_ik_two_bone(&d, 1.0f, s.r.turns, NULL) == FK_OK, "solve on matrices failed");
        worst = fmaxf(worst, tb_quat_distance(rigid[s.r.start], s.r.turns[s.r.start]));
        /* The mid joint's shortest arc loses its axis as its turn nears half a turn:
           a rounding of the bone's direction then moves the axis by itself over
           cos(angle / 2). */
        mid_turn = fk_quat_mul(rigid[s.r.mid], fk_quat_conjugate(fk_quat_normalize(saved[s.r.mid])));
        worst = fmaxf(worst, tb_quat_distance(rigid[s.r.mid], s.r.turns[s.r.mid]) * fabsf(mid_turn.w));
        CHECK(tb_quat_distance(rigid[s.r.start], s.r.turns[s.r.start]) <= 256.0f * FLT_EPSILON &&
              tb_quat_distance(rigid[s.r.mid], s.r.turns[s.r.mid]) * fabsf(mid_turn.w) <= 256.0f * FLT_EPSILON,
              "start %g, mid %g (turned by cos %g) from the rigid solve's rotations (seed %lu)",
              tb_quat_distance(rigid[s.r.start], s.r.turns[s.r.start]), tb_quat_distance(rigid[s.r.mid], s.r.turns[s.r.mid]),
              mid_turn.w, seed);
    }
    printf("   two-bone IK, unit scales: rotations within %.1f ulps of the rigid solve's\n", worst / FLT_EPSILON);
}

/* Calls with bad input and checks the code, and that nothing was written. */
static void tb_refused(const fk_ik_two_bone_desc *d, float weight, fk_result expected, const char *what)
{
    fk_quat turns[4], before[4];
    int i, reached = -7;
    for (i = 0; i < 4; ++i) turns[i] = before[i] = fk_quat_make(0.1f * (float)i, 0.2f, 0.3f, 0.9f);
    CHECK(fk_ik_two_bone(d, weight, turns, &reached) == expected, "%s: %s instead of %s", what,
          fk_result_description(fk_ik_two_bone(d, weight, turns, &reached)), fk_result_description(expected));
    if (expected != FK_OK) CHECK(memcmp(turns, before, sizeof turns) == 0 && reached == -7, "%s: wrote on error", what);
}

static void two_bone_refuses_bad_input(void)
{
    const int parents[4] = {-1, 0, 1, 0}, cycle[4] = {-1, 2, 1, 0}, far_parent[4] = {-1, 0, 9, 0}, self[4] = {-1, 0, 2, 0};
    const float nan = (float)NAN, inf = (float)INFINITY;
    fk_vec3 rest[4] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}, point = {1, 1, 1}, bad_point = {0, nan, 0};
    fk_rigid bones[4];
    fk_quat turns[4] = {{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}};
    fk_ik_two_bone_desc good, d;
    fk_forward(4, parents, rest, turns, NULL, bones);
    memset(&good, 0, sizeof good);
    good.joint_count = 4; good.parents = parents; good.rest_joints = rest; good.transforms = bones;
    good.start = 0; good.mid = 1; good.end = 2; good.target = fk_vec3_make(1.5f, 0.2f, 0.0f);
    tb_refused(&good, 1.0f, FK_OK, "sound input"); /* the harness itself: this one writes */
    tb_refused(NULL, 1.0f, FK_ERROR_NULL_ARGUMENT, "no descriptor");
    CHECK(fk_ik_two_bone(&good, 1.0f, NULL, NULL) == FK_ERROR_NULL_ARGUMENT, "no rotations accepted");
    d = good; d.parents = NULL; tb_refused(&d, 1.0f, FK_ERROR_NULL_ARGUMENT, "no parents");
    d = good; d.rest_joints = NULL; tb_refused(&d, 1.0f, FK_ERROR_NULL_ARGUMENT, "no rest joints");
    d = good; d.transforms = NULL; tb_refused(&d, 1.0f, FK_ERROR_NULL_ARGUMENT, "no transforms");
    d = good; d.joint_count = -1; tb_refused(&d, 1.0f, FK_ERROR_INVALID_COUNT, "negative joint count");
    d = good; d.end = 4; tb_refused(&d, 1.0f, FK_ERROR_JOINT_OUT_OF_RANGE, "end out of range");
    d = good; d.start = -1; tb_refused(&d, 1.0f, FK_ERROR_JOINT_OUT_OF_RANGE, "negative start");
    d = good; d.mid = 4; tb_refused(&d, 1.0f, FK_ERROR_JOINT_OUT_OF_RANGE, "mid out of range");
    d = good; d.start = 1; d.mid = 0; tb_refused(&d, 1.0f, FK_ERROR_JOINT_OUT_OF_RANGE, "start below mid");
    d = good; d.mid = 0; tb_refused(&d, 1.0f, FK_ERROR_JOINT_OUT_OF_RANGE, "start equal to mid");
    d = good; d.end = 1; tb_refused(&d, 1.0f, FK_ERROR_JOINT_OUT_OF_RANGE, "end equal to mid");
    d = good; d.end = 3; tb_refused(&d, 1.0f, FK_ERROR_JOINT_OUT_OF_RANGE, "end on another branch");
    d = good; d.parents = cycle; tb_refused(&d, 1.0f, FK_ERROR_CYCLE, "cycle");
    d = good; d.parents = far_parent; tb_refused(&d, 1.0f, FK_ERROR_PARENT_OUT_OF_RANGE, "parent out of range");
    d = good; d.parents = self; tb_refused(&d, 1.0f, FK_ERROR_SELF_PARENT, "own parent");
    d = good; d.frame = (fk_rotation_frame)2; tb_refused(&d, 1.0f, FK_ERROR_INVALID_OPTION, "unnamed frame");
    d = good; d.soften = -0.1f; tb_refused(&d, 1.0f, FK_ERROR_INVALID_OPTION, "negative softening");
    d = good; d.soften = 1.5f; tb_refused(&d, 1.0f, FK_ERROR_INVALID_OPTION, "softening above 1");
    d = good; d.soften = nan; tb_refused(&d, 1.0f, FK_ERROR_INVALID_OPTION, "NaN softening");
    tb_refused(&good, -0.01f, FK_ERROR_INVALID_WEIGHT, "negative weight");
    tb_refused(&good, 1.01f, FK_ERROR_INVALID_WEIGHT, "weight above 1");
    tb_refused(&good, nan, FK_ERROR_INVALID_WEIGHT, "NaN weight");
    d = good; d.pole = &point; d.mid_axis = &point; tb_refused(&d, 1.0f, FK_ERROR_CONFLICTING_ARGUMENTS, "pole and axis");
    d = good; d.target.x = nan; tb_refused(&d, 1.0f, FK_ERROR_NOT_FINITE, "NaN target");
    d = good; d.target.z = inf; tb_refused(&d, 1.0f, FK_ERROR_NOT_FINITE, "infinite target");
    d = good; d.pole = &bad_point; tb_refused(&d, 1.0f, FK_ERROR_NOT_FINITE, "NaN pole");
    d = good; d.mid_axis = &bad_point; tb_refused(&d, 1.0f, FK_ERROR_NOT_FINITE, "NaN axis");
    d = good; bones[1].q.w = nan; tb_refused(&d, 1.0f, FK_ERROR_INVALID_ROTATION, "NaN transform rotation");
    bones[1].q.w = 1.0f; bones[2].t.y = inf; tb_refused(&d, 1.0f, FK_ERROR_NOT_FINITE, "infinite transform translation");
    bones[2].t.y = 0.0f; rest[0].x = nan; tb_refused(&d, 1.0f, FK_ERROR_NOT_FINITE, "NaN rest joint");
    rest[0].x = 0.0f;
    {
        fk_quat zero[4] = {{0, 0, 0, 0}, {0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}}, copy[4];
        int reached = -7;
        memcpy(copy, zero, sizeof copy);
        CHECK(fk_ik_two_bone(&good, 1.0f, zero, &reached) == FK_ERROR_INVALID_ROTATION, "zero start rotation accepted");
        CHECK(memcmp(zero, copy, sizeof copy) == 0 && reached == -7, "a zero rotation: wrote on error");
    }
    tb_refused(&good, 1.0f, FK_OK, "sound input after the edits");
    {
        /* A rig with scale: its matrices instead of the transforms. */
        const fk_vec3 scales[4] = {{1, 2, 1}, {1, 1, 3}, {1, 1, 1}, {1, 1, 1}}, flat[4] = {{1, 0, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}};
        float matrices[48];
        fk_ik_two_bone_desc scaled = good;
        fk_forward_scaled(4, parents, rest, turns, NULL, scales, matrices);
        scaled.transforms = NULL; scaled.matrices = matrices;
        tb_refused(&scaled, 1.0f, FK_OK, "sound input with scale");
        d = scaled; d.rest_joints = NULL; tb_refused(&d, 1.0f, FK_OK, "matrices without rest joints (fk_forward_trs())");
        d = scaled; d.transforms = bones; tb_refused(&d, 1.0f, FK_ERROR_CONFLICTING_ARGUMENTS, "matrices and transforms");
        d = scaled; d.frame = FK_FRAME_REST; tb_refused(&d, 1.0f, FK_ERROR_CONFLICTING_ARGUMENTS, "matrices in the rest frame");
        d = scaled; d.parents = NULL; tb_refused(&d, 1.0f, FK_ERROR_NULL_ARGUMENT, "matrices without parents");
        d = scaled; d.end = 3; tb_refused(&d, 1.0f, FK_ERROR_JOINT_OUT_OF_RANGE, "matrices, end on another branch");
        matrices[12 + 5] = nan;
        tb_refused(&scaled, 1.0f, FK_ERROR_NOT_FINITE, "a NaN in the mid joint's matrix");
        fk_forward_scaled(4, parents, rest, turns, NULL, scales, matrices);
        matrices[24 + 11] = inf; tb_refused(&scaled, 1.0f, FK_ERROR_NOT_FINITE, "an infinity in the end joint's matrix");
        fk_forward_scaled(4, parents, rest, turns, NULL, flat, matrices);
        tb_refused(&scaled, 1.0f, FK_ERROR_NOT_RIGID, "the mid joint's parent scaled flat");
        fk_forward_scaled(4, parents, rest, turns, NULL, scales, matrices);
        d = scaled; rest[2].y = nan; tb_refused(&d, 1.0f, FK_ERROR_NOT_FINITE, "matrices, NaN rest joint");
        rest[2].y = 1.0f;
        tb_refused(&scaled, 1.0f, FK_OK, "sound input with scale after the edits");
    }
}

/* ---- Aim IK ----------------------------------------------------------------------- */


#define AIM_MAX_JOINTS 24
#define AIM_TRIALS 400

/* Rounding budget for a posed point: each joint of fk_forward()'s chain, the
   solve and the re-posing each cost a few float roundings of the largest length
   involved, so the error is a small multiple of (depth + a constant) ulps of the
   sum of lengths along the path; 8 roundings a joint and 32 for the solve are
   generous counts of the operations, not a fit to observed errors. */
static float aim_tolerance(int depth, float size) { return (8.0f * (float)depth + 32.0f) * FLT_EPSILON * size; }

typedef struct aim_rig {
    int n, parents[AIM_MAX_JOINTS];
    fk_rotation_frame frame;
    fk_vec3 rest[AIM_MAX_JOINTS], moves[AIM_MAX_JOINTS];
    fk_quat turns[AIM_MAX_JOINTS];
    fk_rigid transforms[AIM_MAX_JOINTS];
} aim_rig;

static void aim_pose(aim_rig *r, const fk_quat *turns, fk_rigid *out)
{
    if (r->frame == FK_FRAME_REST) fk_forward_rest_frame(r->n, r->parents, r->rest, turns, r->moves, out);
    else fk_forward(r->n, r->parents, r->rest, turns, r->moves, out);
}

static void aim_random_rig(aim_rig *r, fk_rotation_frame frame)
{
    int i;
    r->n = 1 + rng_below(AIM_MAX_JOINTS);
    r->frame = frame;
    random_tree(r->n, r->parents);
    for (i = 0; i < r->n; ++i) { r->rest[i] = random_vec3(1.0f); r->moves[i] = random_vec3(0.2f); r->turns[i] = random_quat(); }
    aim_pose(r, r->turns, r->transforms);
}

static fk_vec3 aim_pivot(const aim_rig *r, const fk_rigid *transforms, int joint)
{
    return fk_rigid_apply(transforms[joint], r->rest[joint]);
}

/* Depth of a joint and the lengths along its path to the root (|root pivot| and
   each segment between pivots): the sizes the rounding budget scales with. */
static float aim_path_size(const aim_rig *r, int joint, int *depth)
{
    float size = fk_vec3_length(aim_pivot(r, r->transforms, joint));
    *depth = 1;
    for (; r->parents[joint] >= 0; joint = r->parents[joint], ++*depth)
        size += fk_vec3_length(fk_vec3_sub(aim_pivot(r, r->transforms, joint), aim_pivot(r, r->transforms, r->parents[joint])));
    return size;
}

/* The posed ray: its origin Q (x + offset) + t and unit direction Q forward. */
static void aim_ray(const aim_rig *r, const fk_rigid *transforms, int joint, const fk_ik_aim_desc *aim, fk_vec3 *origin,
                    fk_vec3 *direction)
{
    *origin = fk_rigid_apply(transforms[joint], fk_vec3_add(r->rest[joint], aim->offset));
    *direction = fk_vec3_normalize(fk_quat_rotate(transforms[joint].q, aim->forward));
}

/* Distance from a point to the half-line from origin along the unit direction. */
static float aim_ray_distance(fk_vec3 origin, fk_vec3 direction, fk_vec3 point)
{
    float along = fmaxf(0.0f, fk_vec3_dot(fk_vec3_sub(point, origin), direction));
    return fk_vec3_length(fk_vec3_sub(point, fk_vec3_add(origin, fk_vec3_scale(direction, along))));
}

/* Angle of the rotation taking a to b (q and -q alike). */
static float aim_angle_between(fk_quat a, fk_quat b)
{
    fk_quat d = fk_quat_mul(fk_quat_conjugate(fk_quat_normalize(a)), fk_quat_normalize(b));
    return 2.0f * atan2f(sqrtf(d.x * d.x + d.y * d.y + d.z * d.z), fabsf(d.w));
}

static fk_vec3 aim_across(fk_vec3 v, fk_vec3 line) { return fk_vec3_sub(v, fk_vec3_scale(line, fk_vec3_dot(v, line))); }

/* The ray's nearest point to the pivot, relative to it: |c| bounds which
   targets can be hit (see fk_ik_aim()). */
static float aim_nearest_distance(fk_vec3 pivot, fk_vec3 origin, fk_vec3 direction)
{
    fk_vec3 o = fk_vec3_sub(origin, pivot);
    float along = fk_vec3_dot(o, direction);
    return along < 0.0f ? fk_vec3_length(aim_across(o, direction)) : fk_vec3_length(o);
}

static fk_ik_aim_desc aim_random_desc(int with_offset, int with_up)
{
    fk_ik_aim_desc aim;
    memset(&aim, 0, sizeof aim);
    do aim.forward = random_vec3(2.0f); while (fk_vec3_length(aim.forward) < 0.1f);
    if (with_offset) aim.offset = random_vec3(0.4f);
    if (with_up) {
        do aim.up = random_vec3(1.0f); while (fk_vec3_length(aim.up) < 0.1f);
        do aim.pole = random_vec3(1.0f); while (fk_vec3_length(aim.pole) < 0.1f);
    }
    return aim;
}

static fk_quat aim_quat_axis_angle(float x, float y, float z, float angle)
{
    return fk_quat_from_axis_angle(fk_vec3_make(x, y, z), angle);
}

static float aim_quat_gap(fk_quat a, fk_quat b)
{
    float sign = fk_quat_dot(a, b) < 0.0f ? -1.0f : 1.0f;
    return fmaxf(fmaxf(fabsf(a.x - sign * b.x), fabsf(a.y - sign * b.y)), fmaxf(fabsf(a.z - sign * b.z), fabsf(a.w - sign * b.w)));
}

static void aim_turns_forward_onto_the_target_by_hand(void)
{
    /* A root at the origin looking along +z at a target on +x turns a quarter turn
       about +y, which takes z to x: (0, sin 45, 0, cos 45). Same in both frames. */
    const int root[1] = {-1};
    const fk_vec3 origin[1] = {{0, 0, 0}};
    fk_rigid bone[1];
    fk_quat turn[1];
    fk_ik_aim_desc aim;
    const float s = sqrtf(0.5f), tolerance = 4.0f * FLT_EPSILON;
    int frame, reached = -1;
    memset(&aim, 0, sizeof aim);
    aim.forward = fk_vec3_make(0, 0, 1);
    for (frame = 0; frame < 2; ++frame) {
        turn[0] = fk_quat_identity();
        fk_forward(1, root, origin, turn, NULL, bone);
        CHECK(fk_ik_aim(1, root, origin, bone, (fk_rotation_frame)frame, 0, &aim, fk_vec3_make(3, 0, 0), 1.0f, turn,
                        &reached) == FK_OK && reached == 1, "failed");
        CHECK(aim_quat_gap(turn[0], fk_quat_make(0, s, 0, s)) < tolerance, "a quarter turn about y expected, got (%g %g %g %g)",
              turn[0].x, turn[0].y, turn[0].z, turn[0].w);
    }
    {
        /* The same aim for a child at (1, 0, 0) whose parent at the origin is turned
           90 degrees about z: the child's pivot is posed at (0, 1, 0), its forward
           still +z, and the target (3, 1, 0) lies along +x from it, so the world turn
           is again Ry(90). In the rest frame q' = R q = Ry(90). In the parent's frame
           q' = Q* R Q with Q = Rz(90): the quarter turn about Q* y = x, Rx(90). */
        const int parents[2] = {-1, 0};
        const fk_vec3 rest[2] = {{0, 0, 0}, {1, 0, 0}};
        fk_rigid bones[2];
        fk_quat turns[2];
        for (frame = 0; frame < 2; ++frame) {
            turns[0] = aim_quat_axis_angle(0, 0, 1, 0.5f * PI);
            turns[1] = fk_quat_identity();
            if (frame) fk_forward_rest_frame(2, parents, rest, turns, NULL, bones);
            else fk_forward(2, parents, rest, turns, NULL, bones);
            CHECK(fk_ik_aim(2, parents, rest, bones, (fk_rotation_frame)frame, 1, &aim, fk_vec3_make(3, 1, 0), 1.0f, turns,
                            NULL) == FK_OK, "failed");
            CHECK(aim_quat_gap(turns[1], frame ? fk_quat_make(0, s, 0, s) : fk_quat_make(s, 0, 0, s)) < tolerance,
                  "%s frame: expected a quarter turn about %s, got (%g %g %g %g)", frame ? "rest" : "parent",
                  frame ? "y" : "x", turns[1].x, turns[1].y, turns[1].z, turns[1].w);
        }
    }
    {
        /* Eyes one unit to the side, (1, 0, 0), looking along +z at (0, 0, 5): the ray
           meets the sphere of radius 5 at (1, 0, sqrt 24), which a turn of
           -asin(1/5) about y takes to (0, 0, 5). Check: the eyes go to
           (sqrt 24 / 5, 0, 1 / 5), the sight line to (-1 / 5, 0, sqrt 24 / 5), and
           sqrt 24 further along lies (0, 0, 5). */
        float angle = -asinf(0.2f);
        aim.offset = fk_vec3_make(1, 0, 0);
        turn[0] = fk_quat_identity();
        fk_forward(1, root, origin, turn, NULL, bone);
        CHECK(fk_ik_aim(1, root, origin, bone, FK_FRAME_PARENT, 0, &aim, fk_vec3_make(0, 0, 5), 1.0f, turn, &reached) ==
              FK_OK && reached == 1, "failed");
        CHECK(aim_quat_gap(turn[0], fk_quat_make(0, sinf(0.5f * angle), 0, cosf(0.5f * angle))) < tolerance,
              "eyes to the side: expected %g rad about y, got (%g %g %g %g)", angle, turn[0].x, turn[0].y, turn[0].z,
              turn[0].w);
    }
    {
        /* Up +y with the pole +z: after the quarter turn about y the up axis is
           still y, and turning it onto the pole about the target line x is a
           further quarter turn about x: forward ends along x, up along z (the turn
           is Rx(90) Ry(90) = (1/2, 1/2, 1/2, 1/2)). A twist of 90 degrees about x
           then takes the up axis from z to -y. */
        fk_vec3 forward, up;
        aim.offset = fk_vec3_make(0, 0, 0);
        aim.up = fk_vec3_make(0, 1, 0);
        aim.pole = fk_vec3_make(0, 0, 1);
        turn[0] = fk_quat_identity();
        CHECK(fk_ik_aim(1, root, origin, bone, FK_FRAME_PARENT, 0, &aim, fk_vec3_make(3, 0, 0), 1.0f, turn, NULL) == FK_OK,
              "failed");
        CHECK(aim_quat_gap(turn[0], fk_quat_make(0.5f, 0.5f, 0.5f, 0.5f)) < tolerance, "up to the pole: got (%g %g %g %g)",
              turn[0].x, turn[0].y, turn[0].z, turn[0].w);
        aim.twist = 0.5f * PI;
        turn[0] = fk_quat_identity();
        CHECK(fk_ik_aim(1, root, origin, bone, FK_FRAME_PARENT, 0, &aim, fk_vec3_make(3, 0, 0), 1.0f, turn, NULL) == FK_OK,
              "failed");
        forward = fk_quat_rotate(turn[0], aim.forward);
        up = fk_quat_rotate(turn[0], aim.up);
        CHECK(fk_vec3_length(fk_vec3_sub(forward, fk_vec3_make(1, 0, 0))) < tolerance &&
                  fk_vec3_length(fk_vec3_sub(up, fk_vec3_make(0, -1, 0))) < tolerance,
              "twisted: forward (%g %g %g) up (%g %g %g), expected x and -y", forward.x, forward.y, forward.z, up.x, up.y,
              up.z);
    }
}

/* A random target around the joint's pivot: mostly far enough to be hit, now and
   then inside the ray's sphere. */
static fk_vec3 aim_random_target(fk_vec3 pivot)
{
    fk_vec3 direction;
    do direction = random_vec3(1.0f); while (fk_vec3_length(direction) < 0.1f);
    return fk_vec3_add(pivot, fk_vec3_scale(fk_vec3_normalize(direction), rng_uniform(0.05f, 4.0f)));
}

static void aim_ray_passes_through_the_target(void)
{
    static aim_rig r;
    fk_rigid after[AIM_MAX_JOINTS];
    fk_quat turns[AIM_MAX_JOINTS];
    int trial, i, missed = 0;
    float worst = 0.0f;
    rng_restart();
    for (trial = 0; trial < AIM_TRIALS; ++trial) {
        fk_rotation_frame frame = trial % 2 ? FK_FRAME_REST : FK_FRAME_PARENT;
        fk_ik_aim_desc aim;
        fk_vec3 pivot, target, origin, direction;
        float size, tolerance, nearest, distance, gap;
        int joint, depth, reached = -1;
        aim_random_rig(&r, frame);
        joint = rng_below(r.n);
        aim = aim_random_desc(trial % 3 != 0, trial % 4 != 0);
        pivot = aim_pivot(&r, r.transforms, joint);
        target = aim_random_target(pivot);
        aim_ray(&r, r.transforms, joint, &aim, &origin, &direction);
        nearest = aim_nearest_distance(pivot, origin, direction);
        distance = fk_vec3_length(fk_vec3_sub(target, pivot));
        size = aim_path_size(&r, joint, &depth) + fk_vec3_length(aim.offset) + distance;
        tolerance = aim_tolerance(depth, size);
        memcpy(turns, r.turns, sizeof(fk_quat) * (size_t)r.n);
        CHECK(fk_ik_aim(r.n, r.parents, r.rest, r.transforms, frame, joint, &aim, target, 1.0f, turns, &reached) == FK_OK,
              "failed (seed %lu)", seed);
        for (i = 0; i < r.n; ++i)
            CHECK(i == joint || memcmp(&turns[i], &r.turns[i], sizeof(fk_quat)) == 0,
                  "joint %d is not the aiming joint %d but turned (seed %lu)", i, joint, seed);
        aim_pose(&r, turns, after);
        aim_ray(&r, after, joint, &aim, &origin, &direction);
        /* Reachable: through the target. Not: as close as any turn gets, |c| - |t|. */
        gap = aim_ray_distance(origin, direction, target) - fmaxf(0.0f, nearest - distance);
        worst = fmaxf(worst, fabsf(gap) / (FLT_EPSILON * size));
        CHECK(fabsf(gap) <= tolerance, "%s frame: the ray misses the target by %g more than it must (%g allowed; %s, seed %lu)",
              frame ? "rest" : "parent", gap, tolerance, distance >= nearest ? "reachable" : "inside the sphere", seed);
        if (fabsf(distance - nearest) > tolerance)
            CHECK(reached == (distance >= nearest), "reached says %d for a target %g from the pivot, nearest ray point %g (seed %lu)",
                  reached, distance, nearest, seed);
        missed += distance < nearest;
    }
    printf("   aim: largest miss %.1f ulps of the lengths involved; %d of %d targets inside the ray's sphere\n", worst,
           missed, AIM_TRIALS);
}

static void aim_keeps_the_up_axis_toward_the_pole(void)
{
    static aim_rig r;
    fk_rigid after[AIM_MAX_JOINTS];
    fk_quat turns[AIM_MAX_JOINTS];
    int trial, checked = 0;
    rng_restart();
    for (trial = 0; trial < AIM_TRIALS; ++trial) {
        fk_rotation_frame frame = trial % 2 ? FK_FRAME_REST : FK_FRAME_PARENT;
        fk_ik_aim_desc aim = aim_random_desc(trial % 3 != 0, 1);
        fk_vec3 pivot, target, line, up, up_across, pole, pole_across, origin, direction;
        float size, tolerance, distance, twisted, delta = 0.05f, base, shorter;
        int joint, depth, reached, sign;
        aim_random_rig(&r, frame);
        joint = rng_below(r.n);
        if (trial % 5 == 0) aim.twist = rng_uniform(-PI, PI);
        pivot = aim_pivot(&r, r.transforms, joint);
        target = aim_random_target(pivot);
        distance = fk_vec3_length(fk_vec3_sub(target, pivot));
        memcpy(turns, r.turns, sizeof(fk_quat) * (size_t)r.n);
        CHECK(fk_ik_aim(r.n, r.parents, r.rest, r.transforms, frame, joint, &aim, target, 1.0f, turns, &reached) == FK_OK,
              "failed (seed %lu)", seed);
        aim_pose(&r, turns, after);
        line = fk_vec3_normalize(fk_vec3_sub(target, pivot));
        up = fk_quat_rotate(after[joint].q, fk_vec3_normalize(aim.up));
        pole = fk_vec3_normalize(aim.pole);
        up_across = aim_across(up, line);
        pole_across = aim_across(pole, line);
        /* Only the angle about the target line is free; where either part across
           it is short that angle is ill-conditioned, and not checked. */
        if (fk_vec3_length(up_across) < 0.1f || fk_vec3_length(pole_across) < 0.1f || distance < 0.2f) continue;
        ++checked;
        size = aim_path_size(&r, joint, &depth) + fk_vec3_length(aim.offset) + distance;
        /* A position error e tilts the target line by up to e / |t|; the up axis's
           direction carries the rotations' own rounding, and dividing by the shorter
           part across the line turns direction errors into angle errors. */
        tolerance = (aim_tolerance(depth, size) / distance + aim_tolerance(depth, 1.0f)) /
                    fminf(fk_vec3_length(up_across), fk_vec3_length(pole_across));
        twisted = atan2f(fk_vec3_dot(fk_vec3_cross(pole_across, up_across), line), fk_vec3_dot(pole_across, up_across));
        CHECK(fabsf(remainderf(twisted - aim.twist, 2.0f * PI)) < tolerance,
              "%s frame: the up axis is %g rad about the target line from the pole, %g expected (tolerance %g, seed %lu)",
              frame ? "rest" : "parent", twisted, aim.twist, tolerance, seed);
        /* Turning a little either way about the line, which keeps the ray on the
           target, brings the up axis no nearer the pole: the largest of
           |u_across| |p_across| cos(angle) falls by about delta^2 / 2 of it. */
        if (aim.twist != 0.0f || !reached) continue;
        base = fk_vec3_dot(up, pole);
        for (sign = -1; sign <= 1; sign += 2) {
            fk_quat nudge = fk_quat_from_axis_angle(line, (float)sign * delta);
            aim_ray(&r, after, joint, &aim, &origin, &direction);
            origin = fk_vec3_add(pivot, fk_quat_rotate(nudge, fk_vec3_sub(origin, pivot)));
            direction = fk_quat_rotate(nudge, direction);
            CHECK(aim_ray_distance(origin, direction, target) <= aim_tolerance(depth, size),
                  "a turn about the target line moved the ray off it (seed %lu)", seed);
            shorter = fk_vec3_dot(fk_quat_rotate(nudge, up), pole);
            CHECK(shorter < base, "turning %+g rad about the target line brings up nearer the pole: %g > %g (seed %lu)",
                  (double)sign * delta, shorter, base, seed);
        }
    }
    CHECK(checked > AIM_TRIALS / 4, "only %d of %d trials had an up axis to check", checked, AIM_TRIALS);
}

static void aim_weight_zero_leaves_rotations_bit_for_bit(void)
{
    static aim_rig r;
    fk_quat turns[AIM_MAX_JOINTS];
    int trial;
    rng_restart();
    for (trial = 0; trial < 100; ++trial) {
        fk_rotation_frame frame = trial % 2 ? FK_FRAME_REST : FK_FRAME_PARENT;
        fk_ik_aim_desc aim = aim_random_desc(1, 1);
        int joint, reached = -1;
        aim_random_rig(&r, frame);
        joint = rng_below(r.n);
        memcpy(turns, r.turns, sizeof(fk_quat) * (size_t)r.n);
        CHECK(fk_ik_aim(r.n, r.parents, r.rest, r.transforms, frame, joint, &aim,
                        aim_random_target(aim_pivot(&r, r.transforms, joint)), 0.0f, turns, &reached) == FK_OK &&
                  (reached == 0 || reached == 1), "failed (seed %lu)", seed);
        CHECK(memcmp(turns, r.turns, sizeof(fk_quat) * (size_t)r.n) == 0, "weight 0 changed a rotation (seed %lu)", seed);
    }
}

static void aim_weight_scales_the_turn(void)
{
    /* A weight w turns by w times the full turn's angle about the same axis, so
       the angle grows with the weight; 1 is the full turn, bit for bit. */
    static aim_rig r;
    static const float weights[5] = {0.1f, 0.25f, 0.5f, 0.75f, 0.9f};
    fk_quat full[AIM_MAX_JOINTS], part[AIM_MAX_JOINTS];
    int trial, k;
    rng_restart();
    for (trial = 0; trial < 200; ++trial) {
        fk_rotation_frame frame = trial % 2 ? FK_FRAME_REST : FK_FRAME_PARENT;
        fk_ik_aim_desc aim = aim_random_desc(trial % 3 != 0, trial % 2 == 0);
        fk_vec3 target;
        float whole, previous = 0.0f;
        int joint;
        aim_random_rig(&r, frame);
        joint = rng_below(r.n);
        target = aim_random_target(aim_pivot(&r, r.transforms, joint));
        memcpy(full, r.turns, sizeof(fk_quat) * (size_t)r.n);
        fk_ik_aim(r.n, r.parents, r.rest, r.transforms, frame, joint, &aim, target, 1.0f, full, NULL);
        whole = aim_angle_between(r.turns[joint], full[joint]);
        for (k = 0; k < 5; ++k) {
            float angle, tolerance;
            memcpy(part, r.turns, sizeof(fk_quat) * (size_t)r.n);
            CHECK(fk_ik_aim(r.n, r.parents, r.rest, r.transforms, frame, joint, &aim, target, weights[k], part, NULL) ==
                      FK_OK, "failed (seed %lu)", seed);
            angle = aim_angle_between(r.turns[joint], part[joint]);
            /* The rest of the way from the partial to the full turn is the same axis
               by (1 - w) of the angle, so the two angles add up. Angles from
               quaternions carry a few ulps of pi each: 16 eps pi in all. */
            tolerance = 16.0f * FLT_EPSILON * PI;
            CHECK(fabsf(angle - weights[k] * whole) < tolerance &&
                      fabsf(aim_angle_between(part[joint], full[joint]) - (1.0f - weights[k]) * whole) < tolerance,
                  "weight %g turned %g rad of %g (seed %lu)", weights[k], angle, whole, seed);
            CHECK(angle >= previous, "weight %g turned less than weight %g (seed %lu)", weights[k], weights[k > 0 ? k - 1 : 0],
                  seed);
            previous = angle;
        }
        memcpy(part, r.turns, sizeof(fk_quat) * (size_t)r.n);
        fk_ik_aim(r.n, r.parents, r.rest, r.transforms, frame, joint, &aim, target, 1.0f, part, NULL);
        CHECK(memcmp(part, full, sizeof(fk_quat) * (size_t)r.n) == 0, "weight 1 is not repeatable bit for bit (seed %lu)",
              seed);
    }
}

/* One joint of a chain turned alone, from a pose computed by fk_forward(): the
   chain of that joint and the last, the last with weight 0. */
static void aim_turn_one_joint(aim_rig *r, const fk_rigid *posed, int joint, int last, const fk_ik_aim_desc *aim,
                               fk_vec3 target, float weight, fk_quat *rotations, int *reached)
{
    int pair[2];
    float weights[2];
    pair[0] = joint; pair[1] = last;
    weights[0] = weight; weights[1] = 0.0f;
    CHECK(fk_ik_aim_chain(r->n, r->parents, r->rest, posed, r->frame, joint == last ? 1 : 2, pair, weights, aim, target,
                          rotations, reached) == FK_OK, "one joint of a chain failed to turn (seed %lu)", seed);
}

static void aim_chain_shares_the_turn_and_ends_on_target(void)
{
    static aim_rig r;
    fk_quat chained[AIM_MAX_JOINTS], stepped[AIM_MAX_JOINTS], full[AIM_MAX_JOINTS];
    fk_rigid posed[AIM_MAX_JOINTS];
    int trial, i, m, compared = 0;
    rng_restart();
    for (trial = 0; trial < AIM_TRIALS; ++trial) {
        fk_rotation_frame frame = trial % 2 ? FK_FRAME_REST : FK_FRAME_PARENT;
        fk_ik_aim_desc aim = aim_random_desc(trial % 3 != 0, trial % 2 == 0);
        int path[AIM_MAX_JOINTS], chain[4], depth = 0, count, last, reached = -1;
        float weights[4], whole[4], size, tolerance, margin = FLT_MAX;
        fk_vec3 target, origin, direction;
        aim_random_rig(&r, frame);
        last = rng_below(r.n);
        for (i = last; i >= 0; i = r.parents[i]) path[depth++] = i;
        /* Up to 4 joints of the path, ancestors first, ending at the last joint. */
        count = 1 + rng_below(depth < 4 ? depth : 4);
        chain[count - 1] = last;
        for (m = count - 2, i = 1; m >= 0; --m) {
            i += rng_below(depth - i - m);
            chain[m] = path[i++];
        }
        for (m = 0; m < count; ++m) weights[m] = m == count - 1 && trial % 4 != 0 ? 1.0f : rng_uniform(0.0f, 1.0f);
        if (trial % 7 == 0) weights[0] = 0.0f;
        target = aim_random_target(aim_pivot(&r, r.transforms, last));
        size = aim_path_size(&r, last, &depth) + fk_vec3_length(aim.offset) + 2.0f * fk_vec3_length(fk_vec3_sub(target, aim_pivot(&r, r.transforms, last)));
        tolerance = aim_tolerance(depth, size);
        memcpy(chained, r.turns, sizeof(fk_quat) * (size_t)r.n);
        CHECK(fk_ik_aim_chain(r.n, r.parents, r.rest, r.transforms, frame, count, chain, weights, &aim, target, chained,
                              &reached) == FK_OK, "failed (seed %lu)", seed);
        /* The reference: fk_ik_aim() joint by joint, posing in between. */
        memcpy(stepped, r.turns, sizeof(fk_quat) * (size_t)r.n);
        memcpy(posed, r.transforms, sizeof(fk_rigid) * (size_t)r.n);
        for (m = 0; m < count; ++m) {
            fk_vec3 pivot = aim_pivot(&r, posed, chain[m]);
            aim_ray(&r, posed, last, &aim, &origin, &direction);
            margin = fminf(margin, fk_vec3_length(fk_vec3_sub(target, pivot)) - aim_nearest_distance(pivot, origin, direction));
            memcpy(full, stepped, sizeof(fk_quat) * (size_t)r.n);
            aim_turn_one_joint(&r, posed, chain[m], last, &aim, target, 1.0f, full, NULL);
            whole[m] = aim_angle_between(stepped[chain[m]], full[chain[m]]);
            aim_turn_one_joint(&r, posed, chain[m], last, &aim, target, weights[m], stepped, NULL);
            aim_pose(&r, stepped, posed);
        }
        for (i = 0; i < r.n; ++i) {
            int in_chain = 0;
            for (m = 0; m < count; ++m) in_chain |= chain[m] == i;
            CHECK(in_chain || memcmp(&chained[i], &r.turns[i], sizeof(fk_quat)) == 0, "joint %d outside the chain turned (seed %lu)",
                  i, seed);
        }
        CHECK(weights[0] != 0.0f || memcmp(&chained[chain[0]], &r.turns[chain[0]], sizeof(fk_quat)) == 0,
              "a chain joint of weight 0 changed (seed %lu)", seed);
        /* Near the edge of the ray's sphere the aim is ill-conditioned (lambda's
           derivative is unbounded there), so rounding may legitimately decide it
           either way: those trials are not compared. */
        if (margin < 0.2f) continue;
        ++compared;
        /* margin > 0: every joint's target lay outside its ray's sphere */
        CHECK(reached == 1, "chain says reached %d though every joint could hit (seed %lu)", reached, seed);
        aim_pose(&r, chained, posed);
        aim_ray(&r, posed, last, &aim, &origin, &direction);
        if (weights[count - 1] == 1.0f)
            CHECK(aim_ray_distance(origin, direction, target) <= tolerance,
                  "%s frame: chain of %d with last weight 1 misses by %g (%g allowed, seed %lu)", frame ? "rest" : "parent",
                  count, aim_ray_distance(origin, direction, target), tolerance, seed);
        for (m = 0; m < count; ++m) {
            /* The chain recomputes its poses along the path; the reference poses the
               whole skeleton: their rounding differs by the budget's position error,
               which tilts a turn by at most about that over the margin. */
            float angle_tolerance = 16.0f * FLT_EPSILON * PI + 4.0f * tolerance / margin;
            float share = aim_angle_between(r.turns[chain[m]], chained[chain[m]]);
            CHECK(aim_angle_between(chained[chain[m]], stepped[chain[m]]) <= angle_tolerance,
                  "%s frame: chain joint %d of %d differs from aiming joint by joint by %g rad (seed %lu)",
                  frame ? "rest" : "parent", m, count, aim_angle_between(chained[chain[m]], stepped[chain[m]]), seed);
            CHECK(share <= weights[m] * whole[m] + angle_tolerance,
                  "chain joint %d of %d turned %g rad, more than its share %g of %g (seed %lu)", m, count, share, weights[m],
                  whole[m], seed);
        }
    }
    CHECK(compared > AIM_TRIALS / 2, "only %d of %d chains were compared", compared, AIM_TRIALS);
}

/* ---- Aim IK on rigs with scale: an aim_rig with a scale on every joint, posed
   by fk_forward_scaled() (with the moves) or fk_forward_trs() (the rest joints
   read as local translations). */
typedef struct aim_scaled_rig {
    aim_rig r;
    int trs;
    fk_vec3 scales[AIM_MAX_JOINTS];
    float matrices[12 * AIM_MAX_JOINTS];
} aim_scaled_rig;

static void aim_scaled_pose(aim_scaled_rig *s, const fk_quat *turns, float *out)
{
    fk_result result = s->trs ? fk_forward_trs(s->r.n, s->r.parents, s->r.rest, turns, s->scales, out)
                              : fk_forward_scaled(s->r.n, s->r.parents, s->r.rest, turns, s->r.moves, s->scales, out);
    CHECK(result == FK_OK, "forward kinematics failed (seed %lu)", seed);
}

static void aim_scaled_random_rig(aim_scaled_rig *s, int trs)
{
    int i;
    aim_random_rig(&s->r, FK_FRAME_PARENT);
    s->trs = trs;
    for (i = 0; i < s->r.n; ++i) s->scales[i] = random_scale();
    aim_scaled_pose(s, s->r.turns, s->matrices);
}

static fk_vec3 aim_scaled_pivot(const aim_scaled_rig *s, const float *matrices, int joint)
{
    return mat34_apply(&matrices[12 * joint], s->trs ? fk_vec3_make(0, 0, 0) : s->r.rest[joint], 1);
}

/* The posed ray: from the pivot plus the offset as the joint's matrix carries it,
   along the forward axis carried alike. */
static void aim_scaled_ray(const aim_scaled_rig *s, const float *matrices, int joint, const fk_ik_aim_desc *aim,
                           fk_vec3 *origin, fk_vec3 *direction)
{
    *origin = fk_vec3_add(aim_scaled_pivot(s, matrices, joint), mat34_apply(&matrices[12 * joint], aim->offset, 0));
    *direction = fk_vec3_normalize(mat34_apply(&matrices[12 * joint], aim->forward, 0));
}

static void aim_with_scale_chain_ends_on_target(void)
{
    /* Random rigs with scales in [0.5, 2] per axis on every joint; chains of up to
       4 joints with the last weight 1. Posed again by the same forward
       kinematics, the ray runs through the target whenever the chain says it
       reached, and the turns are those of aiming joint by joint, posing in
       between (fk_ik_aim() on the new matrices each time). */
    static aim_scaled_rig s;
    static float posed[12 * AIM_MAX_JOINTS];
    fk_quat chained[AIM_MAX_JOINTS], stepped[AIM_MAX_JOINTS];
    float worst = 0.0f, worst_angle = 0.0f;
    int trial, i, m, hits = 0;
    rng_restart();
    for (trial = 0; trial < AIM_TRIALS; ++trial) {
        fk_ik_aim_desc aim = aim_random_desc(trial % 3 != 0, trial % 2 == 0);
        int path[AIM_MAX_JOINTS], chain[4], depth = 0, count, last, reached = -1, stepped_reached = 1;
        float weights[4], size;
        fk_vec3 target, origin, direction;
        aim_scaled_random_rig(&s, trial % 2);
        aim.matrices = s.matrices;
        last = rng_below(s.r.n);
        for (i = last; i >= 0; i = s.r.parents[i]) path[depth++] = i;
        count = 1 + rng_below(depth < 4 ? depth : 4);
        chain[count - 1] = last;
        for (m = count - 2, i = 1; m >= 0; --m) {
            i += rng_below(depth - i - m);
            chain[m] = path[i++];
        }
        for (m = 0; m < count; ++m) weights[m] = m == count - 1 ? 1.0f : rng_uniform(0.0f, 1.0f);
        target = aim_random_target(aim_scaled_pivot(&s, s.matrices, last));
        memcpy(chained, s.r.turns, sizeof(fk_quat) * (size_t)s.r.n);
        CHECK(fk_ik_aim_chain(s.r.n, s.r.parents, s.trs ? NULL : s.r.rest, NULL, FK_FRAME_PARENT, count, chain, weights,
                              &aim, target, chained, &reached) == FK_OK, "failed (seed %lu)", seed);
        memcpy(stepped, s.r.turns, sizeof(fk_quat) * (size_t)s.r.n);
        memcpy(posed, s.matrices, sizeof(float) * 12 * (size_t)s.r.n);
        for (m = 0; m < count; ++m) { /* chain[m] alone turns, for the last joint's ray */
            const int pair[2] = {chain[m], last};
            const float alone[2] = {weights[m], 0.0f};
            int hit = -1;
            aim.matrices = posed;
            CHECK(fk_ik_aim_chain(s.r.n, s.r.parents, s.trs ? NULL : s.r.rest, NULL, FK_FRAME_PARENT,
                                  chain[m] == last ? 1 : 2, pair, alone, &aim, target, stepped, &hit) == FK_OK,
                  "one joint failed (seed %lu)", seed);
            aim_scaled_pose(&s, stepped, posed);
            stepped_reached &= hit;
        }
        aim.matrices = s.matrices;
        for (i = 0; i < s.r.n; ++i) {
            int in_chain = 0;
            for (m = 0; m < count; ++m) in_chain |= chain[m] == i;
            CHECK(in_chain || memcmp(&chained[i], &s.r.turns[i], sizeof(fk_quat)) == 0,
                  "joint %d outside the chain turned (seed %lu)", i, seed);
        }
        aim_scaled_pose(&s, chained, posed);
        aim_scaled_ray(&s, posed, last, &aim, &origin, &direction);
        size = 0.0f;
        for (i = last; i >= 0; i = s.r.parents[i]) size += fk_vec3_length(aim_scaled_pivot(&s, posed, i));
        size += fk_vec3_length(fk_vec3_sub(origin, aim_scaled_pivot(&s, posed, last))) + 2.0f * fk_vec3_length(target);
        if (reached != 1) continue;
        ++hits;
        worst = fmaxf(worst, aim_ray_distance(origin, direction, target) / size);
        CHECK(aim_ray_distance(origin, direction, target) <= aim_tolerance(depth, size),
              "%s: chain of %d misses by %g (%g allowed, trial %d, seed %lu)", s.trs ? "fk_forward_trs" : "fk_forward_scaled",
              count, aim_ray_distance(origin, direction, target), aim_tolerance(depth, size), trial, seed);
        if (stepped_reached != 1) continue;
        for (m = 0; m < count; ++m) {
            worst_angle = fmaxf(worst_angle, aim_angle_between(chained[chain[m]], stepped[chain[m]]));
            /* The routes round differently (the chain carries its turns as one
               affine map, the reference poses again), and the turn's conditioning
               varies: 1e-3 rad is some 50 times the largest gap seen. */
            CHECK(aim_angle_between(chained[chain[m]], stepped[chain[m]]) <= 1e-3f,
                  "chain joint %d of %d differs from aiming joint by joint by %g rad (seed %lu)", m, count,
                  aim_angle_between(chained[chain[m]], stepped[chain[m]]), seed);
        }
    }
    CHECK(hits > AIM_TRIALS / 2, "only %d of %d chains reached their targets", hits, AIM_TRIALS);
    printf("   aim with scale: largest miss %.2e of the lengths involved, %.1e rad from aiming joint by joint; "
           "%d of %d chains reached\n", worst, worst_angle, hits, AIM_TRIALS);
}

static void aim_with_scale_keeps_the_up_axis_toward_the_pole(void)
{
    /* Any other turn that hits the target differs by a turn about the line from
       the pivot to the target in the parent's space (where the joint turns
       rigidly): none of them gives the posed up axis a larger dot product with
       the pole. */
    static aim_scaled_rig s;
    static float posed[12 * AIM_MAX_JOINTS];
    const float deltas[4] = {-0.3f, -0.02f, 0.02f, 0.3f};
    fk_quat turns[AIM_MAX_JOINTS], other[AIM_MAX_JOINTS];
    int trial, k, tested = 0;
    rng_restart();
    for (trial = 0; trial < AIM_TRIALS; ++trial) {
        fk_ik_aim_desc aim = aim_random_desc(trial % 3 != 0, 1);
        const int joint = 0;
        int reached = -1, parent;
        float best, inverse[12], size;
        fk_vec3 pivot, target, line, origin, direction;
        aim_scaled_random_rig(&s, trial % 2);
        parent = s.r.parents[joint];
        aim.matrices = s.matrices;
        target = aim_random_target(aim_scaled_pivot(&s, s.matrices, joint));
        memcpy(turns, s.r.turns, sizeof(fk_quat) * (size_t)s.r.n);
        CHECK(fk_ik_aim(s.r.n, s.r.parents, s.trs ? NULL : s.r.rest, NULL, FK_FRAME_PARENT, joint, &aim, target, 1.0f,
                        turns, &reached) == FK_OK, "failed (seed %lu)", seed);
        if (reached != 1) continue;
        aim_scaled_pose(&s, turns, posed);
        best = fk_vec3_dot(mat34_apply(&posed[12 * joint], aim.up, 0), aim.pole);
        pivot = aim_scaled_pivot(&s, posed, joint);
        line = fk_vec3_sub(target, pivot);
        if (parent >= 0) {
            CHECK(fk_mat34_inverse(&s.matrices[12 * parent], inverse) == FK_OK, "singular parent (seed %lu)", seed);
            line = mat34_apply(inverse, line, 0);
        }
        line = fk_vec3_normalize(line);
        size = fk_vec3_length(mat34_apply(&posed[12 * joint], aim.up, 0)) * fk_vec3_length(aim.pole);
        for (k = 0; k < 4; ++k) {
            memcpy(other, turns, sizeof(fk_quat) * (size_t)s.r.n);
            other[joint] = fk_quat_mul(fk_quat_from_axis_angle(line, deltas[k]), turns[joint]);
            aim_scaled_pose(&s, other, posed);
            aim_scaled_ray(&s, posed, joint, &aim, &origin, &direction);
            CHECK(aim_ray_distance(origin, direction, target) <= 1e-4f * (fk_vec3_length(target) + fk_vec3_length(origin)),
                  "the turn about the target line missed the target by %g (seed %lu)",
                  aim_ray_distance(origin, direction, target), seed);
            CHECK(fk_vec3_dot(mat34_apply(&posed[12 * joint], aim.up, 0), aim.pole) <= best + 1e-5f * size,
                  "a turn of %g about the target line brings the up axis nearer the pole: %g > %g (seed %lu)", deltas[k],
                  fk_vec3_dot(mat34_apply(&posed[12 * joint], aim.up, 0), aim.pole), best, seed);
        }
        ++tested;
    }
    CHECK(tested > AIM_TRIALS / 2, "only %d trials reached", tested);
}

static int aim_quat_is_unit(fk_quat q)
{
    return q.x == q.x && q.y == q.y && q.z == q.z && q.w == q.w && fabsf(fk_quat_length(q) - 1.0f) < 4.0f * FLT_EPSILON;
}

static void aim_degenerate_inputs_stay_finite(void)
{
    const int root[1] = {-1};
    const fk_vec3 origin[1] = {{0, 0, 0}};
    fk_rigid bone[1];
    fk_quat turn[1];
    fk_ik_aim_desc aim;
    const float tolerance = 8.0f * FLT_EPSILON;
    int reached = -1;
    fk_vec3 forward, up;
    memset(&aim, 0, sizeof aim);
    aim.forward = fk_vec3_make(0, 0, 1);
    turn[0] = fk_quat_identity();
    fk_forward(1, root, origin, turn, NULL, bone);

    /* The target at the pivot: no direction to aim in. With no offset the ray
       passes through it already; with one it cannot. The joint stays. */
    CHECK(fk_ik_aim(1, root, origin, bone, FK_FRAME_PARENT, 0, &aim, origin[0], 1.0f, turn, &reached) == FK_OK &&
              reached == 1 && aim_quat_gap(turn[0], fk_quat_identity()) == 0.0f, "target at the pivot, no offset");
    aim.offset = fk_vec3_make(0, 1, 0);
    CHECK(fk_ik_aim(1, root, origin, bone, FK_FRAME_PARENT, 0, &aim, origin[0], 1.0f, turn, &reached) == FK_OK &&
              reached == 0 && aim_quat_gap(turn[0], fk_quat_identity()) == 0.0f, "target at the pivot, offset");

    /* The target at the eyes: the ray starts on it, so nothing needs to turn. */
    CHECK(fk_ik_aim(1, root, origin, bone, FK_FRAME_PARENT, 0, &aim, aim.offset, 1.0f, turn, &reached) == FK_OK &&
              reached == 1 && aim_quat_gap(turn[0], fk_quat_identity()) < tolerance, "target at the offset point");

    /* Inside the sphere: eyes at (0, 1, 0) looking along +z, target at (0.5, 0, 0),
       closer to the pivot than the eyes. The nearest point of the ray, the eyes,
       turns onto the target's direction, +x: a quarter turn about -z. */
    CHECK(fk_ik_aim(1, root, origin, bone, FK_FRAME_PARENT, 0, &aim, fk_vec3_make(0.5f, 0, 0), 1.0f, turn, &reached) ==
              FK_OK && reached == 0, "target inside the sphere");
    CHECK(aim_quat_gap(turn[0], aim_quat_axis_angle(0, 0, -1, 0.5f * PI)) < tolerance,
          "inside the sphere: expected a quarter turn about -z, got (%g %g %g %g)", turn[0].x, turn[0].y, turn[0].z, turn[0].w);

    /* Straight behind: half a turn. With up +y kept toward the pole +y it must be
       about y, so forward ends at -z and up stays +y. */
    aim.offset = fk_vec3_make(0, 0, 0);
    aim.up = fk_vec3_make(0, 1, 0);
    aim.pole = fk_vec3_make(0, 1, 0);
    turn[0] = fk_quat_identity();
    CHECK(fk_ik_aim(1, root, origin, bone, FK_FRAME_PARENT, 0, &aim, fk_vec3_make(0, 0, -2), 1.0f, turn, &reached) ==
              FK_OK && reached == 1 && aim_quat_is_unit(turn[0]), "target behind");
    forward = fk_quat_rotate(turn[0], aim.forward);
    up = fk_quat_rotate(turn[0], aim.up);
    CHECK(fk_vec3_length(fk_vec3_sub(forward, fk_vec3_make(0, 0, -1))) < tolerance &&
              fk_vec3_length(fk_vec3_sub(up, fk_vec3_make(0, 1, 0))) < tolerance,
          "behind: forward (%g %g %g) up (%g %g %g), expected -z and y", forward.x, forward.y, forward.z, up.x, up.y, up.z);

    /* Forward parallel to the pole, and up parallel to forward: the up axis has no
       part across the target line, so only the aim counts. */
    aim.up = fk_vec3_make(0, 0, 2);
    aim.pole = fk_vec3_make(1, 0, 0);
    turn[0] = fk_quat_identity();
    CHECK(fk_ik_aim(1, root, origin, bone, FK_FRAME_PARENT, 0, &aim, fk_vec3_make(3, 0, 0), 1.0f, turn, NULL) == FK_OK &&
              aim_quat_is_unit(turn[0]), "up along forward, pole along the target");
    forward = fk_quat_rotate(turn[0], aim.forward);
    CHECK(fk_vec3_length(fk_vec3_sub(forward, fk_vec3_make(1, 0, 0))) < tolerance, "degenerate up: forward (%g %g %g)",
          forward.x, forward.y, forward.z);

    {
        /* Tiny and huge scales: the solve divides out the scale, so a skeleton
           1e-30 or 1e30 across turns as the same skeleton of size 1 does. */
        static const float scales[3] = {1.0f, 1e-30f, 1e30f};
        fk_quat expected = fk_quat_identity();
        int k;
        aim.up = aim.pole = fk_vec3_make(0, 0, 0);
        for (k = 0; k < 3; ++k) {
            fk_vec3 scaled[1];
            scaled[0] = fk_vec3_make(scales[k], -scales[k], 2.0f * scales[k]);
            aim.offset = fk_vec3_make(0, 0.5f * scales[k], 0);
            turn[0] = fk_quat_identity();
            fk_forward(1, root, scaled, turn, NULL, bone);
            CHECK(fk_ik_aim(1, root, scaled, bone, FK_FRAME_REST, 0, &aim,
                            fk_vec3_add(scaled[0], fk_vec3_make(scales[k], 0.5f * scales[k], 0)), 1.0f, turn, &reached) ==
                      FK_OK && reached == 1, "scale %g failed", scales[k]);
            if (k == 0) expected = turn[0];
            CHECK(aim_quat_gap(turn[0], expected) < tolerance, "scale %g turns by (%g %g %g %g), scale 1 by (%g %g %g %g)",
                  scales[k], turn[0].x, turn[0].y, turn[0].z, turn[0].w, expected.x, expected.y, expected.z, expected.w);
        }
    }
}

static void aim_refuses_bad_input_without_writing(void)
{
    int chain3[3] = {-1, 0, 1}, cycle[3] = {2, 0, 1}, self[3] = {-1, 1, 1}, outside[3] = {-1, 0, 3};
    int up_the_chain[2] = {2, 0}, repeated[2] = {1, 1}, siblings_parents[3] = {-1, 0, 0}, siblings[2] = {1, 2};
    int good_chain[2] = {0, 2};
    float good_weights[2] = {0.5f, 1.0f};
    const fk_vec3 rest[3] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
    fk_quat turns[3] = {{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}}, copy[3], zero[3] = {{0, 0, 0, 1}, {0, 0, 0, 0}, {0, 0, 0, 1}};
    fk_rigid bones[3], broken[3];
    fk_ik_aim_desc aim, bad;
    fk_vec3 target = fk_vec3_make(2, 3, 0);
    int reached = 42;
    memset(&aim, 0, sizeof aim);
    aim.forward = fk_vec3_make(1, 0, 0);
    fk_forward(3, chain3, rest, turns, NULL, bones);
    memcpy(copy, turns, sizeof copy);
#define AIM_REFUSES(call, code, what)                                                                       \
    CHECK((call) == (code) && memcmp(copy, turns, sizeof copy) == 0 && reached == 42, "%s: not refused cleanly", what)
    AIM_REFUSES(fk_ik_aim(3, NULL, rest, bones, FK_FRAME_PARENT, 2, &aim, target, 1.0f, turns, &reached), FK_ERROR_NULL_ARGUMENT, "no parents");
    AIM_REFUSES(fk_ik_aim(3, chain3, NULL, bones, FK_FRAME_PARENT, 2, &aim, target, 1.0f, turns, &reached), FK_ERROR_NULL_ARGUMENT, "no rest");
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, NULL, FK_FRAME_PARENT, 2, &aim, target, 1.0f, turns, &reached), FK_ERROR_NULL_ARGUMENT, "no transforms");
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, bones, FK_FRAME_PARENT, 2, NULL, target, 1.0f, turns, &reached), FK_ERROR_NULL_ARGUMENT, "no aim");
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, bones, FK_FRAME_PARENT, 2, &aim, target, 1.0f, NULL, &reached), FK_ERROR_NULL_ARGUMENT, "no rotations");
    AIM_REFUSES(fk_ik_aim_chain(3, chain3, rest, bones, FK_FRAME_PARENT, 2, NULL, good_weights, &aim, target, turns, &reached), FK_ERROR_NULL_ARGUMENT, "no chain");
    AIM_REFUSES(fk_ik_aim_chain(3, chain3, rest, bones, FK_FRAME_PARENT, 2, good_chain, NULL, &aim, target, turns, &reached), FK_ERROR_NULL_ARGUMENT, "no weights");
    AIM_REFUSES(fk_ik_aim(-1, chain3, rest, bones, FK_FRAME_PARENT, 0, &aim, target, 1.0f, turns, &reached), FK_ERROR_INVALID_COUNT, "joint count -1");
    AIM_REFUSES(fk_ik_aim_chain(3, chain3, rest, bones, FK_FRAME_PARENT, 0, good_chain, good_weights, &aim, target, turns, &reached), FK_ERROR_INVALID_COUNT, "empty chain");
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, bones, FK_FRAME_PARENT, 3, &aim, target, 1.0f, turns, &reached), FK_ERROR_JOINT_OUT_OF_RANGE, "joint 3 of 3");
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, bones, FK_FRAME_PARENT, -1, &aim, target, 1.0f, turns, &reached), FK_ERROR_JOINT_OUT_OF_RANGE, "joint -1");
    AIM_REFUSES(fk_ik_aim_chain(3, chain3, rest, bones, FK_FRAME_PARENT, 2, up_the_chain, good_weights, &aim, target, turns, &reached), FK_ERROR_JOINT_OUT_OF_RANGE, "chain listed leaf first");
    AIM_REFUSES(fk_ik_aim_chain(3, chain3, rest, bones, FK_FRAME_PARENT, 2, repeated, good_weights, &aim, target, turns, &reached), FK_ERROR_JOINT_OUT_OF_RANGE, "a joint twice");
    AIM_REFUSES(fk_ik_aim_chain(3, siblings_parents, rest, bones, FK_FRAME_PARENT, 2, siblings, good_weights, &aim, target, turns, &reached), FK_ERROR_JOINT_OUT_OF_RANGE, "siblings as a chain");
    AIM_REFUSES(fk_ik_aim(3, outside, rest, bones, FK_FRAME_PARENT, 1, &aim, target, 1.0f, turns, &reached), FK_ERROR_PARENT_OUT_OF_RANGE, "parent 3 of 3");
    AIM_REFUSES(fk_ik_aim(3, self, rest, bones, FK_FRAME_PARENT, 0, &aim, target, 1.0f, turns, &reached), FK_ERROR_SELF_PARENT, "own parent");
    AIM_REFUSES(fk_ik_aim(3, cycle, rest, bones, FK_FRAME_PARENT, 1, &aim, target, 1.0f, turns, &reached), FK_ERROR_CYCLE, "cycle");
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, bones, (fk_rotation_frame)7, 2, &aim, target, 1.0f, turns, &reached), FK_ERROR_INVALID_OPTION, "frame 7");
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, bones, FK_FRAME_PARENT, 2, &aim, target, -0.1f, turns, &reached), FK_ERROR_INVALID_WEIGHT, "weight -0.1");
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, bones, FK_FRAME_PARENT, 2, &aim, target, 1.5f, turns, &reached), FK_ERROR_INVALID_WEIGHT, "weight 1.5");
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, bones, FK_FRAME_PARENT, 2, &aim, target, NAN, turns, &reached), FK_ERROR_INVALID_WEIGHT, "weight NaN");
    bad = aim; bad.forward = fk_vec3_make(0, 0, 0);
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, bones, FK_FRAME_PARENT, 2, &bad, target, 1.0f, turns, &reached), FK_ERROR_INVALID_ROTATION, "zero forward");
    memcpy(copy, zero, sizeof copy);
    memcpy(turns, zero, sizeof turns);
    AIM_REFUSES(fk_ik_aim_chain(3, chain3, rest, bones, FK_FRAME_PARENT, 2, good_chain, good_weights, &aim, target, turns, &reached), FK_ERROR_INVALID_ROTATION, "zero rotation on the path");
    turns[1] = fk_quat_identity();
    memcpy(copy, turns, sizeof copy);
    memcpy(broken, bones, sizeof broken);
    broken[1].q = fk_quat_make(0, 0, 0, 0); /* the parent's, checked with the path */
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, broken, FK_FRAME_PARENT, 2, &aim, target, 1.0f, turns, &reached), FK_ERROR_INVALID_ROTATION, "zero transform rotation");
    memcpy(broken, bones, sizeof broken);
    broken[2].t.y = INFINITY;
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, broken, FK_FRAME_PARENT, 2, &aim, target, 1.0f, turns, &reached), FK_ERROR_NOT_FINITE, "infinite transform");
    bad = aim; bad.offset.z = INFINITY;
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, bones, FK_FRAME_PARENT, 2, &bad, target, 1.0f, turns, &reached), FK_ERROR_NOT_FINITE, "infinite offset");
    bad = aim; bad.pole.x = NAN;
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, bones, FK_FRAME_PARENT, 2, &bad, target, 1.0f, turns, &reached), FK_ERROR_NOT_FINITE, "NaN pole");
    bad = aim; bad.twist = NAN;
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, bones, FK_FRAME_PARENT, 2, &bad, target, 1.0f, turns, &reached), FK_ERROR_NOT_FINITE, "NaN twist");
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, bones, FK_FRAME_PARENT, 2, &aim, fk_vec3_make(NAN, 0, 0), 1.0f, turns, &reached), FK_ERROR_NOT_FINITE, "NaN target");
    /* Finite, but the pivot-to-target distance overflows float. */
    AIM_REFUSES(fk_ik_aim(3, chain3, rest, bones, FK_FRAME_PARENT, 2, &aim, fk_vec3_make(3e38f, -3e38f, 3e38f), 1.0f, turns, &reached), FK_ERROR_NOT_FINITE, "target near FLT_MAX");
    {
        /* A rig with scale: matrices in the descriptor, no transforms. */
        const fk_vec3 scales[3] = {{1, 2, 1}, {1, 1, 3}, {1, 1, 1}}, flat[3] = {{1, 2, 1}, {0, 1, 3}, {1, 1, 1}};
        float matrices[36];
        fk_forward_scaled(3, chain3, rest, turns, NULL, scales, matrices);
        bad = aim; bad.matrices = matrices;
        AIM_REFUSES(fk_ik_aim(3, chain3, rest, bones, FK_FRAME_PARENT, 2, &bad, target, 1.0f, turns, &reached), FK_ERROR_CONFLICTING_ARGUMENTS, "matrices and transforms");
        AIM_REFUSES(fk_ik_aim(3, chain3, rest, NULL, FK_FRAME_REST, 2, &bad, target, 1.0f, turns, &reached), FK_ERROR_CONFLICTING_ARGUMENTS, "matrices in the rest frame");
        AIM_REFUSES(fk_ik_aim(3, NULL, rest, NULL, FK_FRAME_PARENT, 2, &bad, target, 1.0f, turns, &reached), FK_ERROR_NULL_ARGUMENT, "matrices without parents");
        matrices[12 + 6] = NAN;
        AIM_REFUSES(fk_ik_aim(3, chain3, rest, NULL, FK_FRAME_PARENT, 2, &bad, target, 1.0f, turns, &reached), FK_ERROR_NOT_FINITE, "NaN in the matrix above");
        fk_forward_scaled(3, chain3, rest, turns, NULL, flat, matrices);
        AIM_REFUSES(fk_ik_aim(3, chain3, rest, NULL, FK_FRAME_PARENT, 2, &bad, target, 1.0f, turns, &reached), FK_ERROR_NOT_RIGID, "the parent scaled flat");
        CHECK(fk_ik_aim(3, chain3, rest, NULL, FK_FRAME_PARENT, 1, &bad, target, 1.0f, turns, &reached) == FK_OK,
              "a joint whose parent is not flat refused");
        memcpy(turns, copy, sizeof copy);
        reached = 42;
        fk_forward_scaled(3, chain3, rest, turns, NULL, scales, matrices);
        CHECK(fk_ik_aim(3, chain3, NULL, NULL, FK_FRAME_PARENT, 2, &bad, target, 1.0f, turns, &reached) == FK_OK,
              "matrices without rest joints (fk_forward_trs()) refused");
        memcpy(turns, copy, sizeof copy);
        reached = 42;
    }
#undef AIM_REFUSES
    /* And the good calls these were variations of succeed. */
    CHECK(fk_ik_aim_chain(3, chain3, rest, bones, FK_FRAME_PARENT, 2, good_chain, good_weights, &aim, target, turns, &reached) == FK_OK &&
              reached == 1, "the good chain failed");
}

/* ---- Root motion ------------------------------------------------------------------ */


#define ROOT_MAX_KEYS 16
#define ROOT_MAX_JOINTS 6

/* A rigid transform in double, for the closed forms the tests compare with. */
typedef struct root_rigid_double {
    double q[4], t[3];
} root_rigid_double;

static root_rigid_double root_double_of(fk_quat q, fk_vec3 t)
{
    root_rigid_double r;
    double n = sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w);
    r.q[0] = q.x / n; r.q[1] = q.y / n; r.q[2] = q.z / n; r.q[3] = q.w / n;
    r.t[0] = t.x; r.t[1] = t.y; r.t[2] = t.z;
    return r;
}

static void root_rotate_double(const double q[4], const double v[3], double out[3])
{
    /* q v q* through the rotation matrix, a different route from the library's */
    double x = q[0], y = q[1], z = q[2], w = q[3], r[3];
    r[0] = (1 - 2 * (y * y + z * z)) * v[0] + 2 * (x * y - z * w) * v[1] + 2 * (x * z + y * w) * v[2];
    r[1] = 2 * (x * y + z * w) * v[0] + (1 - 2 * (x * x + z * z)) * v[1] + 2 * (y * z - x * w) * v[2];
    r[2] = 2 * (x * z - y * w) * v[0] + 2 * (y * z + x * w) * v[1] + (1 - 2 * (x * x + y * y)) * v[2];
    out[0] = r[0]; out[1] = r[1]; out[2] = r[2];
}

static root_rigid_double root_mul_double(root_rigid_double a, root_rigid_double b)
{
    root_rigid_double r;
    double n;
    int c;
    r.q[0] = a.q[3] * b.q[0] + a.q[0] * b.q[3] + a.q[1] * b.q[2] - a.q[2] * b.q[1];
    r.q[1] = a.q[3] * b.q[1] - a.q[0] * b.q[2] + a.q[1] * b.q[3] + a.q[2] * b.q[0];
    r.q[2] = a.q[3] * b.q[2] + a.q[0] * b.q[1] - a.q[1] * b.q[0] + a.q[2] * b.q[3];
    r.q[3] = a.q[3] * b.q[3] - a.q[0] * b.q[0] - a.q[1] * b.q[1] - a.q[2] * b.q[2];
    n = sqrt(r.q[0] * r.q[0] + r.q[1] * r.q[1] + r.q[2] * r.q[2] + r.q[3] * r.q[3]);
    for (c = 0; c < 4; ++c) r.q[c] /= n;
    root_rotate_double(a.q, b.t, r.t);
    for (c = 0; c < 3; ++c) r.t[c] += a.t[c];
    return r;
}

static root_rigid_double root_inverse_double(root_rigid_double a)
{
    root_rigid_double r;
    int c;
    r.q[0] = -a.q[0]; r.q[1] = -a.q[1]; r.q[2] = -a.q[2]; r.q[3] = a.q[3];
    root_rotate_double(r.q, a.t, r.t);
    for (c = 0; c < 3; ++c) r.t[c] = -r.t[c];
    return r;
}

/* Distances: the largest translation difference, and the angle between the
   rotations (q and -q alike). */
static double root_translation_error(root_rigid_double a, root_rigid_double b)
{
    return fmax(fmax(fabs(a.t[0] - b.t[0]), fabs(a.t[1] - b.t[1])), fabs(a.t[2] - b.t[2]));
}

/* 4 atan2(|a - b|, |a + b|) for unit a, b in one hemisphere: well conditioned
   near 0, where 2 acos(a . b) loses half the digits. */
static double root_angle_between(const double a[4], const double b[4])
{
    double na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
    double nb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
    double sign = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1.0 : 1.0, minus = 0, plus = 0;
    int c;
    for (c = 0; c < 4; ++c) {
        double u = a[c] / na, v = sign * b[c] / nb;
        minus += (u - v) * (u - v);
        plus += (u + v) * (u + v);
    }
    return 4.0 * atan2(sqrt(minus), sqrt(plus));
}

static float root_quat_difference(fk_quat a, fk_quat b)
{
    float same = fmaxf(fmaxf(fabsf(a.x - b.x), fabsf(a.y - b.y)), fmaxf(fabsf(a.z - b.z), fabsf(a.w - b.w)));
    float opposite = fmaxf(fmaxf(fabsf(a.x + b.x), fabsf(a.y + b.y)), fmaxf(fabsf(a.z + b.z), fabsf(a.w + b.w)));
    return fminf(same, opposite);
}

static float root_vec3_difference(fk_vec3 a, fk_vec3 b)
{
    return fmaxf(fmaxf(fabsf(a.x - b.x), fabsf(a.y - b.y)), fabsf(a.z - b.z));
}

/* The twist of q about unit u, by the definition (u (u . v), w) normalized; the
   test's own double computation. Returns the norm before normalizing. */
static double root_twist(fk_quat q, fk_vec3 u, double out[4])
{
    double along = (double)q.x * u.x + (double)q.y * u.y + (double)q.z * u.z, n;
    out[0] = along * u.x; out[1] = along * u.y; out[2] = along * u.z; out[3] = q.w;
    n = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
    if (n > 0) { out[0] /= n; out[1] /= n; out[2] /= n; out[3] /= n; }
    return n;
}

static fk_quat root_yaw(float angle) { return fk_quat_from_axis_angle(fk_vec3_make(0, 1, 0), angle); }

/* A root at rest at x = (0, 1, 0) walks +z at 1 unit/s for 4 s (keys each second)
   while turning about y at 0.3 rad/s, bobbing (y = 0.1 sin k) and pitching
   (+-0.1 rad about x, applied before the yaw). Ground motion (x, z) with yaw:
   by hand, motion k is {yaw(0.3 k), (0, 0, k)} (s_0 = 0) and the in-place key is
   yaw(0.3 k)* q_k = the pitch alone, at d' = yaw* (0, 1 + bob, 0) - x = (0, bob, 0),
   since a yaw leaves vertical vectors alone. Every value is computed in double
   and rounded once, against expectations rounded once in float: 4 ulps of the
   largest value (4) bound the difference.
   Then the deltas: slerp of yaw(0.3 t) keys is yaw(0.3 t) exactly, so from 0.5 s
   to 3.5 s the character turns yaw(0.9) and walks 3 along its heading at 0.5 s
   seen from there, rot(yaw(-0.15), (0, 0, 3)) = (3 sin(-0.15), 0, 3 cos(-0.15));
   from 3.5 s through the loop's end to 0.5 s (one loop, L = M(4) = {yaw(1.2),
   (0, 0, 4)}) it turns yaw(0.3) and walks 0.5 at heading -1.05 (the half second
   before the end, seen from 3.5 s) plus 0.5 at heading 0.15 (the half second
   after the start, after the loop's turn 1.2 - 1.05):
   0.5 (sin(-1.05) + sin(0.15), 0, cos(-1.05) + cos(0.15)). */
static void root_motion_worked_example_walks_and_turns(void)
{
    const float times[5] = {0, 1, 2, 3, 4};
    const float tolerance = 4.0f * 4.0f * FLT_EPSILON;
    fk_quat q[5], motion_q[5], in_place_q[5];
    fk_vec3 d[5], motion_t[5], in_place_d[5], x = fk_vec3_make(0, 1, 0), up = fk_vec3_make(0, 1, 0);
    fk_rigid delta;
    int k;
    for (k = 0; k < 5; ++k) {
        fk_quat pitch = fk_quat_from_axis_angle(fk_vec3_make(1, 0, 0), k % 2 ? -0.1f : 0.1f);
        q[k] = fk_quat_mul(root_yaw(0.3f * (float)k), pitch);
        d[k] = fk_vec3_make(0, 0.1f * sinf((float)k), (float)k);
    }
    CHECK(fk_root_motion_extract(5, x, q, d, FK_ROOT_MOTION_X | FK_ROOT_MOTION_Z, FK_ROOT_ROTATION_YAW, up,
                                 motion_q, motion_t, in_place_q, in_place_d) == FK_OK, "extraction failed");
    for (k = 0; k < 5; ++k) {
        fk_quat pitch = fk_quat_from_axis_angle(fk_vec3_make(1, 0, 0), k % 2 ? -0.1f : 0.1f);
        CHECK(root_quat_difference(motion_q[k], root_yaw(0.3f * (float)k)) <= tolerance, "key %d: motion yaw wrong", k);
        CHECK(root_vec3_difference(motion_t[k], fk_vec3_make(0, 0, (float)k)) <= tolerance, "key %d: walk wrong", k);
        CHECK(root_quat_difference(in_place_q[k], pitch) <= tolerance, "key %d: in-place pitch wrong", k);
        CHECK(root_vec3_difference(in_place_d[k], fk_vec3_make(0, d[k].y, 0)) <= tolerance, "key %d: bob wrong", k);
    }
    CHECK(fk_root_motion_delta(5, times, motion_q, motion_t, 0.5f, 3.5f, 0, &delta) == FK_OK, "delta failed");
    CHECK(root_quat_difference(delta.q, root_yaw(0.9f)) <= tolerance, "turn from 0.5 s to 3.5 s is not yaw(0.9)");
    CHECK(root_vec3_difference(delta.t, fk_vec3_make(3 * sinf(-0.15f), 0, 3 * cosf(-0.15f))) <= tolerance,
          "walk from 0.5 s to 3.5 s is (%g %g %g)", delta.t.x, delta.t.y, delta.t.z);
    CHECK(fk_root_motion_delta(5, times, motion_q, motion_t, 3.5f, 0.5f, 1, &delta) == FK_OK, "loop delta failed");
    CHECK(root_quat_difference(delta.q, root_yaw(0.3f)) <= tolerance, "turn through the loop is not yaw(0.3)");
    CHECK(root_vec3_difference(delta.t, fk_vec3_make(0.5f * (sinf(-1.05f) + sinf(0.15f)), 0,
                                                     0.5f * (cosf(-1.05f) + cosf(0.15f)))) <= tolerance,
          "walk through the loop is (%g %g %g)", delta.t.x, delta.t.y, delta.t.z);
}

/* A random root clip: keys of a root at a random rest position. */
static void root_random_clip(int key_count, fk_vec3 *x, fk_quat *q, fk_vec3 *d)
{
    int k;
    *x = random_vec3(2.0f);
    for (k = 0; k < key_count; ++k) { q[k] = random_quat(); d[k] = random_vec3(3.0f); }
}

/* Recombination, over random clips, options and skeletons in any joint order,
   in both rotation-frame conventions: placing the skeleton posed with the
   in-place clip by the motion, fk_rigid_mul(M_k, T'_i), gives back the
   transforms T_i of the original pose, for every joint. A root's rotation is
   the same in both conventions; in the parent frame the children follow their
   root, in the rest frame their world-aligned rotations are turned into the
   in-place frame, m_k* q_i m_k, as fk_root_motion_extract() documents. Key 0's
   motion is the identity bit for bit. Tolerance: each side is a chain of at
   most ROOT_MAX_JOINTS + 1 rigid products in float, each rounding by a few ulps
   of the largest coordinate involved (below 16 for these sizes): 8 ulps per
   product of 16. */
static void root_motion_recombines_to_the_original(void)
{
    const float tolerance = 8.0f * (float)(ROOT_MAX_JOINTS + 1) * 16.0f * FLT_EPSILON;
    int trial;
    rng_restart();
    for (trial = 0; trial < 200; ++trial) {
        int key_count = 1 + rng_below(ROOT_MAX_KEYS), joint_count = 1 + rng_below(ROOT_MAX_JOINTS), root = 0;
        int axes = rng_below(8), frame, k, i, parents[ROOT_MAX_JOINTS];
        fk_root_motion_rotation mode = (fk_root_motion_rotation)rng_below(3);
        fk_vec3 x, d[ROOT_MAX_KEYS], motion_t[ROOT_MAX_KEYS], in_place_d[ROOT_MAX_KEYS], rest[ROOT_MAX_JOINTS];
        fk_vec3 up = random_vec3(1.0f), joint_d[ROOT_MAX_JOINTS];
        fk_quat q[ROOT_MAX_KEYS], motion_q[ROOT_MAX_KEYS], in_place_q[ROOT_MAX_KEYS], rotations[ROOT_MAX_JOINTS];
        root_random_clip(key_count, &x, q, d);
        CHECK(fk_root_motion_extract(key_count, x, q, d, axes, mode, up, motion_q, motion_t, in_place_q, in_place_d) ==
                  FK_OK, "extraction failed (seed %lu)", seed);
        CHECK(motion_q[0].x == 0 && motion_q[0].y == 0 && motion_q[0].z == 0 && motion_q[0].w == 1 &&
                  motion_t[0].x == 0 && motion_t[0].y == 0 && motion_t[0].z == 0,
              "key 0's motion is not the identity (seed %lu)", seed);
        /* a chain below a root listed anywhere: joint i's parent is the one before
           it in a random order */
        {
            int order[ROOT_MAX_JOINTS];
            for (i = 0; i < joint_count; ++i) order[i] = i;
            for (i = joint_count - 1; i > 0; --i) {
                int j = rng_below(i + 1), swap = order[i];
                order[i] = order[j]; order[j] = swap;
            }
            root = order[0];
            for (i = 0; i < joint_count; ++i) parents[order[i]] = i == 0 ? -1 : order[rng_below(i)];
        }
        for (i = 0; i < joint_count; ++i) { rest[i] = random_vec3(2.0f); rotations[i] = random_quat(); joint_d[i] = random_vec3(0.3f); }
        rest[root] = x;
        for (frame = 0; frame < 2; ++frame)
            for (k = 0; k < key_count; ++k) {
                fk_rigid original[ROOT_MAX_JOINTS], in_place[ROOT_MAX_JOINTS];
                fk_rigid motion = fk_rigid_make(motion_q[k], motion_t[k]);
                fk_result (*forward)(int, const int *, const fk_vec3 *, const fk_quat *, const fk_vec3 *, fk_rigid *) =
                    frame ? fk_forward_rest_frame : fk_forward;
                rotations[root] = q[k]; joint_d[root] = d[k];
                CHECK(forward(joint_count, parents, rest, rotations, joint_d, original) == FK_OK, "FK failed");
                {
                    fk_quat moved[ROOT_MAX_JOINTS];
                    for (i = 0; i < joint_count; ++i)
                        moved[i] = frame ? fk_quat_mul(fk_quat_conjugate(motion_q[k]), fk_quat_mul(rotations[i], motion_q[k]))
                                         : rotations[i];
                    moved[root] = in_place_q[k]; joint_d[root] = in_place_d[k];
                    CHECK(forward(joint_count, parents, rest, moved, joint_d, in_place) == FK_OK, "FK failed");
                }
                for (i = 0; i < joint_count; ++i) {
                    fk_rigid placed = fk_rigid_mul(motion, in_place[i]);
                    CHECK(root_quat_difference(placed.q, original[i].q) <= tolerance &&
                              root_vec3_difference(placed.t, original[i].t) <= tolerance,
                          "%s frame, key %d joint %d: motion x in-place misses the original by %g, %g "
                          "(axes %d, mode %d) (seed %lu)", frame ? "rest" : "parent", k, i,
                          (double)root_quat_difference(placed.q, original[i].q),
                          (double)root_vec3_difference(placed.t, original[i].t), axes, (int)mode, seed);
                }
            }
    }
}

/* The axes: without rotation, the motion holds the joint's travel p_k - p_0 on
   the chosen axes and exactly 0 on the others, and the in-place translation
   holds key 0's value on the chosen axes and d_k on the others (a sum of
   three float values in double, rounded once: 2 ulps of 8). Outputs given the
   input arrays give the same bits. */
static void root_motion_takes_only_the_chosen_axes(void)
{
    const float tolerance = 2.0f * 8.0f * FLT_EPSILON;
    int trial;
    rng_restart();
    for (trial = 0; trial < 200; ++trial) {
        int key_count = 1 + rng_below(ROOT_MAX_KEYS), axes = rng_below(8), k, c;
        fk_vec3 x, d[ROOT_MAX_KEYS], motion_t[ROOT_MAX_KEYS], in_place_d[ROOT_MAX_KEYS], up = fk_vec3_make(0, 0, 1);
        fk_quat q[ROOT_MAX_KEYS], motion_q[ROOT_MAX_KEYS], in_place_q[ROOT_MAX_KEYS];
        fk_root_motion_rotation mode = (fk_root_motion_rotation)rng_below(3);
        root_random_clip(key_count, &x, q, d);
        CHECK(fk_root_motion_extract(key_count, x, q, d, axes, FK_ROOT_ROTATION_NONE, up, motion_q, motion_t,
                                     in_place_q, in_place_d) == FK_OK, "extraction failed (seed %lu)", seed);
        for (k = 0; k < key_count; ++k)
            for (c = 0; c < 3; ++c) {
                float travel = (&d[k].x)[c] - (&d[0].x)[c], motion = (&motion_t[k].x)[c];
                float in_place = (&in_place_d[k].x)[c];
                if ((axes >> c) & 1)
                    CHECK(fabsf(motion - travel) <= tolerance && fabsf(in_place - (&d[0].x)[c]) <= tolerance,
                          "key %d axis %d: chosen, yet motion %g in place %g (seed %lu)", k, c, (double)motion,
                          (double)in_place, seed);
                else
                    CHECK(motion == 0.0f && fabsf(in_place - (&d[k].x)[c]) <= tolerance,
                          "key %d axis %d: not chosen, yet motion %g in place %g (seed %lu)", k, c, (double)motion,
                          (double)in_place, seed);
            }
        {
            fk_quat alias_q[ROOT_MAX_KEYS], alias_motion_q[ROOT_MAX_KEYS];
            fk_vec3 alias_d[ROOT_MAX_KEYS], alias_motion_t[ROOT_MAX_KEYS];
            CHECK(fk_root_motion_extract(key_count, x, q, d, axes, mode, up, motion_q, motion_t, in_place_q,
                                         in_place_d) == FK_OK, "extraction failed");
            memcpy(alias_q, q, sizeof q); memcpy(alias_d, d, sizeof d);
            memcpy(alias_motion_q, q, sizeof q); memcpy(alias_motion_t, d, sizeof d);
            CHECK(fk_root_motion_extract(key_count, x, alias_q, alias_d, axes, mode, up, NULL, NULL, alias_q,
                                         alias_d) == FK_OK &&
                      fk_root_motion_extract(key_count, x, alias_motion_q, alias_motion_t, axes, mode, up,
                                             alias_motion_q, alias_motion_t, NULL, NULL) == FK_OK,
                  "extraction in place failed");
            CHECK(memcmp(alias_q, in_place_q, (size_t)key_count * sizeof *q) == 0 &&
                      memcmp(alias_d, in_place_d, (size_t)key_count * sizeof *d) == 0 &&
                      memcmp(alias_motion_q, motion_q, (size_t)key_count * sizeof *q) == 0 &&
                      memcmp(alias_motion_t, motion_t, (size_t)key_count * sizeof *d) == 0,
                  "outputs over the inputs give other bits (seed %lu)", seed);
        }
    }
}

/* Yaw only, about a random up axis: each motion rotation turns about the up axis
   (its vector part is parallel to it), it is the twist of q_k after the twist of
   q_0 undone, and the in-place rotation's twist is key 0's: the heading stays.
   Twists are recomputed here in double by their definition. Near a key with no
   heading the twist is ill-conditioned, its error about ulp / n for the twist's
   norm n before normalizing: keys with n < 0.05 are skipped, and the tolerance
   is 8 ulps / n. */
static void yaw_motion_turns_about_up_and_leaves_the_heading(void)
{
    int trial;
    rng_restart();
    for (trial = 0; trial < 200; ++trial) {
        int key_count = 1 + rng_below(ROOT_MAX_KEYS), k;
        fk_vec3 x, d[ROOT_MAX_KEYS], up = random_vec3(1.0f), unit_up;
        fk_quat q[ROOT_MAX_KEYS], motion_q[ROOT_MAX_KEYS], in_place_q[ROOT_MAX_KEYS];
        double first_twist[4], n_first;
        if (fk_vec3_length(up) < 0.1f) up = fk_vec3_make(0, 1, 0);
        unit_up = fk_vec3_normalize(up);
        root_random_clip(key_count, &x, q, d);
        CHECK(fk_root_motion_extract(key_count, x, q, d, FK_ROOT_MOTION_X | FK_ROOT_MOTION_Y, FK_ROOT_ROTATION_YAW,
                                     up, motion_q, NULL, in_place_q, NULL) == FK_OK, "extraction failed");
        n_first = root_twist(q[0], unit_up, first_twist);
        if (n_first < 0.05) continue;
        for (k = 0; k < key_count; ++k) {
            double twist[4], in_place_twist[4], expected[4], m[4], n = root_twist(q[k], unit_up, twist);
            double tolerance = 8.0 * FLT_EPSILON / fmin(n, n_first);
            fk_vec3 v = fk_vec3_make(motion_q[k].x, motion_q[k].y, motion_q[k].z);
            if (n < 0.05) continue;
            CHECK(fk_vec3_length(fk_vec3_cross(v, unit_up)) <= tolerance,
                  "key %d: the motion turns off the up axis by %g (seed %lu)", k,
                  (double)fk_vec3_length(fk_vec3_cross(v, unit_up)), seed);
            /* expected = twist_k twist_0*, the rotations about one axis commute */
            expected[0] = twist[0] * first_twist[3] - twist[3] * first_twist[0];
            expected[1] = twist[1] * first_twist[3] - twist[3] * first_twist[1];
            expected[2] = twist[2] * first_twist[3] - twist[3] * first_twist[2];
            expected[3] = twist[3] * first_twist[3] + twist[0] * first_twist[0] + twist[1] * first_twist[1] +
                          twist[2] * first_twist[2];
            m[0] = motion_q[k].x; m[1] = motion_q[k].y; m[2] = motion_q[k].z; m[3] = motion_q[k].w;
            CHECK(root_angle_between(m, expected) <= 2.0 * tolerance,
                  "key %d: the motion turns %g away from the twist (seed %lu)", k, root_angle_between(m, expected),
                  seed);
            root_twist(in_place_q[k], unit_up, in_place_twist);
            CHECK(root_angle_between(in_place_twist, first_twist) <= 2.0 * tolerance,
                  "key %d: the in-place heading moved by %g (seed %lu)", k,
                  root_angle_between(in_place_twist, first_twist), seed);
        }
    }
}

/* The motion track at one time as the library samples it (slerp), in double. */
static root_rigid_double root_sample(int key_count, const float *times, const fk_quat *q, const fk_vec3 *t, float time)
{
    fk_quat sq;
    fk_vec3 st;
    fk_track_sample_quat(key_count, times, q, time, FK_INTERPOLATE_SLERP, &sq);
    fk_track_sample_vec3(key_count, times, t, time, &st);
    return root_double_of(sq, st);
}

/* Playing a looping clip frame by frame, with uneven steps and now and then a
   step of more than a whole loop, and composing the deltas (in double, as a
   game that keeps its placement in double would) ends where the closed form
   M(a)^-1 L^n M(b) says, for n wraps from the first playhead a to the last b.
   The clip is random and its first key is not the identity, so L = M(e) M(s)^-1
   is tested in general. The same playing time is cut into 500 and into 5000
   frames: each delta is rounded once relative to its own size, so the error is
   bounded by a few ulps of the path walked (sum of |delta t|) and of the angle
   turned (sum of delta angles, times the distance reached), sums that do not
   grow with the number of frames: 4 ulps of each. A delta and the delta back
   through as many loops the other way compose to the identity. */
static void root_motion_accumulates_over_loops_without_drift(void)
{
    int trial;
    rng_restart();
    for (trial = 0; trial < 20; ++trial) {
        int key_count = 2 + rng_below(9), k, pass;
        float times[ROOT_MAX_KEYS], period;
        fk_quat q[ROOT_MAX_KEYS];
        fk_vec3 t[ROOT_MAX_KEYS];
        root_rigid_double loop;
        times[0] = rng_uniform(-1.0f, 1.0f);
        for (k = 0; k < key_count; ++k) {
            if (k > 0) times[k] = times[k - 1] + rng_uniform(0.05f, 0.5f);
            q[k] = random_quat();
            t[k] = random_vec3(1.0f);
        }
        period = times[key_count - 1] - times[0];
        loop = root_mul_double(root_double_of(q[key_count - 1], t[key_count - 1]),
                               root_inverse_double(root_double_of(q[0], t[0])));
        for (pass = 0; pass < 2; ++pass) {
            int frames = pass ? 5000 : 500, frame, wraps = 0;
            float playhead = rng_uniform(times[0], times[key_count - 1]), start = playhead;
            double path = 0.0, turned = 0.0, reach = 0.0, rotation_error, translation_error, bound;
            root_rigid_double placed = root_double_of(fk_quat_identity(), fk_vec3_make(0, 0, 0)), closed;
            for (frame = 0; frame < frames; ++frame) {
                float step = rng_below(100) == 0 ? rng_uniform(1.0f, 2.5f) * period
                                                 : 6.5f * period / (float)frames * rng_uniform(0.2f, 1.8f);
                float next = playhead + step;
                int crossed = 0;
                fk_rigid delta;
                root_rigid_double d;
                while (next >= times[key_count - 1]) { next -= period; ++crossed; }
                CHECK(fk_root_motion_delta(key_count, times, q, t, playhead, next, crossed, &delta) == FK_OK,
                      "delta failed (seed %lu)", seed);
                d = root_double_of(delta.q, delta.t);
                placed = root_mul_double(placed, d);
                path += sqrt(d.t[0] * d.t[0] + d.t[1] * d.t[1] + d.t[2] * d.t[2]);
                turned += 2.0 * atan2(sqrt(d.q[0] * d.q[0] + d.q[1] * d.q[1] + d.q[2] * d.q[2]), fabs(d.q[3]));
                reach = fmax(reach, sqrt(placed.t[0] * placed.t[0] + placed.t[1] * placed.t[1] +
                                         placed.t[2] * placed.t[2]));
                wraps += crossed;
                playhead = next;
            }
            closed = root_inverse_double(root_sample(key_count, times, q, t, start));
            for (k = 0; k < wraps; ++k) closed = root_mul_double(closed, loop);
            closed = root_mul_double(closed, root_sample(key_count, times, q, t, playhead));
            rotation_error = root_angle_between(placed.q, closed.q);
            translation_error = root_translation_error(placed, closed);
            bound = 4.0 * FLT_EPSILON * (path + turned * (reach + 1.0));
            CHECK(rotation_error <= 4.0 * FLT_EPSILON * (turned + 1.0) && translation_error <= bound,
                  "%d frames, %d loops: the summed deltas miss the closed form by %g rad, %g (bound %g) (seed %lu)",
                  frames, wraps, rotation_error, translation_error, bound, seed);
        }
        for (k = 0; k < 20; ++k) {
            float a = rng_uniform(times[0], times[key_count - 1]), b = rng_uniform(times[0], times[key_count - 1]);
            int loops = rng_below(7) - 3;
            fk_rigid forth, back;
            root_rigid_double both;
            CHECK(fk_root_motion_delta(key_count, times, q, t, a, b, loops, &forth) == FK_OK &&
                      fk_root_motion_delta(key_count, times, q, t, b, a, -loops, &back) == FK_OK,
                  "delta failed (seed %lu)", seed);
            both = root_mul_double(root_double_of(forth.q, forth.t), root_double_of(back.q, back.t));
            /* each delta reaches at most 3 loops of 8 keys of |t| <= sqrt 3 away */
            CHECK(fabs(both.q[3]) >= 1.0 - 16.0 * FLT_EPSILON &&
                      fmax(fmax(fabs(both.t[0]), fabs(both.t[1])), fabs(both.t[2])) <= 64.0 * 16.0 * FLT_EPSILON,
                  "%d loops forth and back do not cancel (seed %lu)", loops, seed);
        }
    }
}

/* Blending: fk_pose_blend()'s bits for the deltas as one-joint poses, with any
   signs and zero weights; a clip with all the weight gives its translation and
   rotation to an ulp (fk_pose_blend() normalizes it again); equal deltas give that delta (a weighted sum
   of K equal terms, each weight rounded: (K + 2) ulps); turns about y (x = z = 0)
   that move in the ground plane (y = 0) stay so exactly; the output may be an
   input. */
static void root_motion_blends_as_poses_blend(void)
{
    int trial;
    rng_restart();
    for (trial = 0; trial < 300; ++trial) {
        int count = 1 + rng_below(5), c;
        fk_rigid deltas[5], out, expected, same[5];
        fk_quat rotations[5];
        fk_vec3 translations[5];
        const fk_quat *poses[5];
        const fk_vec3 *pose_translations[5];
        float weights[5], alone[5] = {1, 0, 0, 0, 0}, same_tolerance;
        for (c = 0; c < count; ++c) {
            deltas[c] = fk_rigid_make(random_quat(), random_vec3(1.0f));
            if (rng_below(2)) deltas[c].q = fk_quat_make(-deltas[c].q.x, -deltas[c].q.y, -deltas[c].q.z, -deltas[c].q.w);
            weights[c] = rng_below(4) == 0 ? 0.0f : rng_uniform(0.0f, 2.0f);
            rotations[c] = deltas[c].q; translations[c] = deltas[c].t;
            poses[c] = &rotations[c]; pose_translations[c] = &translations[c];
        }
        weights[rng_below(count)] = 1.0f;
        CHECK(fk_root_motion_blend(count, deltas, weights, &out) == FK_OK, "blend failed (seed %lu)", seed);
        CHECK(fk_pose_blend(1, count, poses, pose_translations, weights, &expected.q, &expected.t) == FK_OK,
              "pose blend failed");
        CHECK(memcmp(&out.q, &expected.q, sizeof out.q) == 0 && memcmp(&out.t, &expected.t, sizeof out.t) == 0,
              "%d deltas do not blend as poses do (seed %lu)", count, seed);
        CHECK(fk_root_motion_blend(count, deltas, alone, &out) == FK_OK, "blend failed");
        CHECK(root_quat_difference(out.q, deltas[0].q) <= FLT_EPSILON &&
                  memcmp(&out.t, &deltas[0].t, sizeof out.t) == 0,
              "weights (1, 0, ...) are not the first clip's delta (seed %lu)", seed);
        for (c = 0; c < count; ++c) same[c] = deltas[0];
        same_tolerance = (float)(count + 2) * FLT_EPSILON;
        CHECK(fk_root_motion_blend(count, same, weights, &out) == FK_OK &&
                  root_quat_difference(out.q, deltas[0].q) <= same_tolerance &&
                  root_vec3_difference(out.t, deltas[0].t) <= same_tolerance,
              "equal deltas blend to another (seed %lu)", seed);
        for (c = 0; c < count; ++c) {
            deltas[c].q = root_yaw(rng_uniform(-PI, PI));
            deltas[c].t.y = 0.0f;
        }
        CHECK(fk_root_motion_blend(count, deltas, weights, &out) == FK_OK && out.q.x == 0.0f && out.q.z == 0.0f &&
                  out.t.y == 0.0f, "yaw-only deltas blend to a tilt or a climb (seed %lu)", seed);
        expected = out;
        CHECK(fk_root_motion_blend(count, deltas, weights, &deltas[count - 1]) == FK_OK &&
                  memcmp(&deltas[count - 1], &expected, sizeof expected) == 0,
              "blending into an input gives other bits (seed %lu)", seed);
    }
}

/* Bad input: every code, and nothing written. */
static void root_motion_refuses_bad_input_without_writing(void)
{
    const float times[3] = {0, 1, 2}, unordered[3] = {0, 2, 1};
    fk_quat q[3], motion_q[3], in_place_q[3], bad_q[3];
    fk_vec3 d[3], motion_t[3], in_place_d[3], bad_d[3], x = fk_vec3_make(0, 1, 0), up = fk_vec3_make(0, 1, 0);
    fk_vec3 huge[3];
    fk_rigid delta, deltas[2], bad_deltas[2], sentinel;
    float weights[2] = {1, 1}, negative[2] = {1, -1}, zero[2] = {0, 0}, not_a_number[2] = {1, NAN};
    unsigned char before[4][3 * sizeof(fk_quat)];
    const int xz = FK_ROOT_MOTION_X | FK_ROOT_MOTION_Z;
    int k;
    for (k = 0; k < 3; ++k) {
        q[k] = root_yaw((float)k); d[k] = fk_vec3_make(0, 0, (float)k);
        huge[k] = fk_vec3_make(0, 0, 3e38f);
    }
    memcpy(bad_q, q, sizeof q); memcpy(bad_d, d, sizeof d);
    memset(motion_q, 0x5a, sizeof motion_q); memset(motion_t, 0x5a, sizeof motion_t);
    memset(in_place_q, 0x5a, sizeof in_place_q); memset(in_place_d, 0x5a, sizeof in_place_d);
    memcpy(before[0], motion_q, sizeof motion_q); memcpy(before[1], motion_t, sizeof motion_t);
    memcpy(before[2], in_place_q, sizeof in_place_q); memcpy(before[3], in_place_d, sizeof in_place_d);
#define ROOT_EXTRACT(count, rest, rotations, translations, axes, mode, up_axis)                                      \
    fk_root_motion_extract(count, rest, rotations, translations, axes, mode, up_axis, motion_q, motion_t, in_place_q, \
                           in_place_d)
    CHECK(ROOT_EXTRACT(0, x, q, d, xz, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_INVALID_COUNT, "no keys accepted");
    CHECK(ROOT_EXTRACT(3, x, NULL, d, xz, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_NULL_ARGUMENT, "no rotations accepted");
    CHECK(ROOT_EXTRACT(3, x, q, d, 8, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_INVALID_OPTION, "axes 8 accepted");
    CHECK(ROOT_EXTRACT(3, x, q, d, -1, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_INVALID_OPTION, "axes -1 accepted");
    CHECK(ROOT_EXTRACT(3, x, q, d, xz, (fk_root_motion_rotation)3, up) == FK_ERROR_INVALID_OPTION, "mode 3 accepted");
    CHECK(ROOT_EXTRACT(3, x, q, d, xz, FK_ROOT_ROTATION_YAW, fk_vec3_make(0, 0, 0)) == FK_ERROR_INVALID_OPTION,
          "a zero up axis accepted");
    CHECK(ROOT_EXTRACT(3, x, q, d, xz, FK_ROOT_ROTATION_YAW, fk_vec3_make(0, NAN, 0)) == FK_ERROR_NOT_FINITE,
          "a NaN up axis accepted");
    CHECK(ROOT_EXTRACT(3, fk_vec3_make(INFINITY, 0, 0), q, d, xz, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_NOT_FINITE,
          "an infinite rest position accepted");
    bad_q[2] = fk_quat_make(NAN, 0, 0, 1);
    CHECK(ROOT_EXTRACT(3, x, bad_q, d, xz, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_INVALID_ROTATION, "a NaN rotation accepted");
    bad_q[2] = fk_quat_make(0, 0, 0, 0);
    CHECK(ROOT_EXTRACT(3, x, bad_q, d, xz, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_INVALID_ROTATION, "a zero rotation accepted");
    bad_d[1].y = NAN;
    CHECK(ROOT_EXTRACT(3, x, q, bad_d, xz, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_NOT_FINITE, "a NaN translation accepted");
    CHECK(ROOT_EXTRACT(3, fk_vec3_make(0, 0, 3e38f), q, huge, xz, FK_ROOT_ROTATION_YAW, up) == FK_ERROR_NOT_FINITE,
          "an overflowing root position accepted");
#undef ROOT_EXTRACT
    CHECK(memcmp(before[0], motion_q, sizeof motion_q) == 0 && memcmp(before[1], motion_t, sizeof motion_t) == 0 &&
              memcmp(before[2], in_place_q, sizeof in_place_q) == 0 &&
              memcmp(before[3], in_place_d, sizeof in_place_d) == 0,
          "a refused extraction wrote");
    CHECK(fk_root_motion_extract(3, x, q, NULL, xz, FK_ROOT_ROTATION_NONE, fk_vec3_make(0, 0, 0), NULL, NULL, NULL,
                                 NULL) == FK_OK, "no outputs, no translations and an unread zero up refused");

    memset(&sentinel, 0x5a, sizeof sentinel);
    delta = sentinel;
    CHECK(fk_root_motion_delta(0, times, q, d, 0, 1, 0, &delta) == FK_ERROR_INVALID_COUNT, "no keys accepted");
    CHECK(fk_root_motion_delta(3, NULL, q, d, 0, 1, 0, &delta) == FK_ERROR_NULL_ARGUMENT, "no times accepted");
    CHECK(fk_root_motion_delta(3, times, NULL, d, 0, 1, 0, &delta) == FK_ERROR_NULL_ARGUMENT, "no rotations accepted");
    CHECK(fk_root_motion_delta(3, times, q, d, 0, 1, 0, NULL) == FK_ERROR_NULL_ARGUMENT, "no output accepted");
    CHECK(fk_root_motion_delta(3, unordered, q, d, 0, 1, 0, &delta) == FK_ERROR_KEYS_NOT_ASCENDING,
          "keys out of order accepted");
    CHECK(fk_root_motion_delta(3, times, q, d, NAN, 1, 0, &delta) == FK_ERROR_NOT_FINITE, "a NaN time accepted");
    CHECK(fk_root_motion_delta(3, times, q, d, 0, INFINITY, 0, &delta) == FK_ERROR_NOT_FINITE,
          "an infinite time accepted");
    CHECK(fk_root_motion_delta(3, times, bad_q, d, 0, 1, 0, &delta) == FK_ERROR_INVALID_ROTATION,
          "a zero rotation accepted");
    CHECK(fk_root_motion_delta(3, times, q, bad_d, 0, 1, 0, &delta) == FK_ERROR_NOT_FINITE, "a NaN translation accepted");
    huge[0] = fk_vec3_make(0, 0, 0); /* and no turn: 2^31 loops of 3e38 each */
    {
        fk_quat still[3] = {{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}};
        CHECK(fk_root_motion_delta(3, times, still, huge, 0, 2, 2147483647, &delta) == FK_ERROR_NOT_FINITE,
              "an overflowing delta accepted");
    }
    CHECK(fk_root_motion_delta(3, times, q, d, 0, 2, 0, NULL) == FK_ERROR_NULL_ARGUMENT,
          "an overflowing delta accepted");
    CHECK(memcmp(&delta, &sentinel, sizeof delta) == 0, "a refused delta wrote");

    deltas[0] = fk_rigid_make(q[1], d[1]); deltas[1] = fk_rigid_make(q[2], d[2]);
    bad_deltas[0] = deltas[0]; bad_deltas[1] = fk_rigid_make(fk_quat_make(0, 0, 0, 0), d[2]);
    CHECK(fk_root_motion_blend(0, deltas, weights, &delta) == FK_ERROR_INVALID_COUNT, "no clips accepted");
    CHECK(fk_root_motion_blend(2, NULL, weights, &delta) == FK_ERROR_NULL_ARGUMENT, "no deltas accepted");
    CHECK(fk_root_motion_blend(2, deltas, NULL, &delta) == FK_ERROR_NULL_ARGUMENT, "no weights accepted");
    CHECK(fk_root_motion_blend(2, deltas, weights, NULL) == FK_ERROR_NULL_ARGUMENT, "no output accepted");
    CHECK(fk_root_motion_blend(2, deltas, negative, &delta) == FK_ERROR_INVALID_WEIGHT, "a negative weight accepted");
    CHECK(fk_root_motion_blend(2, deltas, zero, &delta) == FK_ERROR_INVALID_WEIGHT, "zero weights accepted");
    CHECK(fk_root_motion_blend(2, deltas, not_a_number, &delta) == FK_ERROR_INVALID_WEIGHT, "a NaN weight accepted");
    CHECK(fk_root_motion_blend(2, bad_deltas, weights, &delta) == FK_ERROR_INVALID_ROTATION, "a zero rotation accepted");
    bad_deltas[1] = fk_rigid_make(q[2], fk_vec3_make(0, -INFINITY, 0));
    CHECK(fk_root_motion_blend(2, bad_deltas, weights, &delta) == FK_ERROR_NOT_FINITE, "an infinite translation accepted");
    CHECK(memcmp(&delta, &sentinel, sizeof delta) == 0, "a refused blend wrote");
}

/* ---- Interpolation ---------------------------------------------------------------- */


#define INTERP_MAX_KEYS 32
#define INTERP_MAX_COMPONENTS 6
#define INTERP_TRIALS 300

/* Strictly ascending key times with uneven spacing; returns the key count. */
static int interp_random_times(float *times, int max_keys)
{
    int n = 1 + rng_below(max_keys), k;
    times[0] = rng_uniform(-5.0f, 5.0f);
    for (k = 1; k < n; ++k) times[k] = times[k - 1] + rng_uniform(0.01f, 1.0f);
    return n;
}

static float interp_quat_component(fk_quat q, int c) { return c == 0 ? q.x : c == 1 ? q.y : c == 2 ? q.z : q.w; }

/* A time anywhere on the track, sometimes outside it, sometimes exactly a key. */
static float interp_random_time(const float *times, int n)
{
    int pick = rng_below(8);
    if (pick == 0) return times[rng_below(n)];
    if (pick == 1) return rng_below(2) ? -INFINITY : INFINITY;
    return rng_uniform(times[0] - 1.0f, times[n - 1] + 1.0f);
}

/* The key at or before a time by a linear scan: the segment a sample uses. */
static int interp_key_before(const float *times, int n, float time)
{
    int k = 0;
    while (k + 1 < n && times[k + 1] <= time) ++k;
    return k;
}

/* glTF's CUBICSPLINE polynomial as the specification writes it, in double, on the
   float inputs. *tolerance receives the bound the float evaluation is held to:
   each basis weight is <= 1 and reached in <= 4 roundings, the four products and
   three sums add <= 4 more, each of relative size eps/2, so together less than
   4 eps times the sum of the terms' magnitudes (counted with weight 1); s itself
   carries <= 3 roundings (two subtractions and the division), which move the
   result by |dp/ds| times that. */
static double interp_cubic_reference(double t0, double t1, double time, double v0, double b0, double a1, double v1,
                                     double *tolerance)
{
    double td = t1 - t0, s = (time - t0) / td, s2 = s * s, s3 = s2 * s;
    double slope = (6 * s2 - 6 * s) * v0 + td * (3 * s2 - 4 * s + 1) * b0 + (-6 * s2 + 6 * s) * v1 +
                   td * (3 * s2 - 2 * s) * a1;
    *tolerance = 4.0 * FLT_EPSILON * (fabs(v0) + fabs(v1) + td * (fabs(b0) + fabs(a1)) + fabs(slope));
    return (2 * s3 - 3 * s2 + 1) * v0 + td * (s3 - 2 * s2 + s) * b0 + (-2 * s3 + 3 * s2) * v1 + td * (s3 - s2) * a1;
}

static void step_holds_each_key_until_the_next(void)
{
    /* Keys 2, 5, -1 at times 0, 1, 3: each value holds from its key to the next. */
    const float times[3] = {0.0f, 1.0f, 3.0f}, values[3] = {2.0f, 5.0f, -1.0f};
    const float at[8] = {-5.0f, 0.0f, 0.5f, 0.999f, 1.0f, 2.9f, 3.0f, 10.0f};
    const float expected[8] = {2.0f, 2.0f, 2.0f, 2.0f, 5.0f, 5.0f, -1.0f, -1.0f};
    int i;
    for (i = 0; i < 8; ++i) {
        float v = 99.0f;
        CHECK(fk_track_evaluate(3, times, values, 1, FK_INTERPOLATION_STEP, at[i], NULL, &v) == FK_OK &&
                  v == expected[i], "STEP at %g gave %g, not %g", at[i], v, expected[i]);
    }
}

static void linear_midpoints_are_averages(void)
{
    /* (0 0 0) at time 0 and (2 4 -6) at time 2: at time 1 exactly (1 2 -3), since
       halving is exact. Rotations 0 and 1 radian about z: halfway is 0.5 radian. */
    const float times[2] = {0.0f, 2.0f};
    const fk_vec3 moves[2] = {{0, 0, 0}, {2, 4, -6}};
    fk_quat turns[2], q;
    fk_vec3 v;
    float w[2] = {0, 0};
    const float weights[4] = {0.0f, 1.0f, 1.0f, 0.5f}; /* two morph weights per key */
    turns[0] = fk_quat_identity();
    turns[1] = fk_quat_from_axis_angle(fk_vec3_make(0, 0, 1), 1.0f);
    CHECK(fk_track_evaluate_vec3(2, times, moves, FK_INTERPOLATION_LINEAR, 1.0f, NULL, &v) == FK_OK &&
              v.x == 1.0f && v.y == 2.0f && v.z == -3.0f, "vector midpoint is (%g %g %g)", v.x, v.y, v.z);
    CHECK(fk_track_evaluate_quat(2, times, turns, FK_INTERPOLATION_LINEAR, FK_INTERPOLATE_SLERP, 1.0f, NULL, &q) ==
              FK_OK && fabsf(q.z - sinf(0.25f)) < 2 * FLT_EPSILON && fabsf(q.w - cosf(0.25f)) < 2 * FLT_EPSILON,
          "rotation midpoint is not half a radian");
    CHECK(fk_track_evaluate(2, times, weights, 2, FK_INTERPOLATION_LINEAR, 1.0f, NULL, w) == FK_OK &&
              w[0] == 0.5f && w[1] == 0.75f, "weight midpoints are %g %g", w[0], w[1]);
}

static void cubic_with_zero_tangents_is_smoothstep(void)
{
    /* Values 1 at time 2 and 5 at time 4, zero tangents: p = 1 + 4 (3s^2 - 2s^3).
       At s = 1/4, 1/2, 3/4 that is 1.625, 3, 4.375, all exact in float. */
    const float times[2] = {2.0f, 4.0f};
    const float keys[6] = {0.0f, 1.0f, 0.0f, 0.0f, 5.0f, 0.0f}; /* a v b per key */
    const float at[3] = {2.5f, 3.0f, 3.5f}, expected[3] = {1.625f, 3.0f, 4.375f};
    int i;
    for (i = 0; i < 3; ++i) {
        float v = 0.0f;
        CHECK(fk_track_evaluate(2, times, keys, 1, FK_INTERPOLATION_CUBICSPLINE, at[i], NULL, &v) == FK_OK &&
                  v == expected[i], "smoothstep at %g gave %g, not %g", at[i], v, expected[i]);
    }
}

static void cubic_with_line_slopes_reproduces_the_line(void)
{
    /* Keys on a line c + m t with both tangents m (glTF's tangents are per unit of
       time): the Hermite curve is the line itself. The keys' values are rounded to
       float, which adds eps/2 of their size to the reference's tolerance. */
    float times[INTERP_MAX_KEYS], keys[3 * INTERP_MAX_KEYS];
    int trial, k;
    rng_restart();
    for (trial = 0; trial < INTERP_TRIALS; ++trial) {
        int n = interp_random_times(times, INTERP_MAX_KEYS);
        double c = rng_uniform(-3.0f, 3.0f), m = rng_uniform(-3.0f, 3.0f), tolerance, expected;
        float time = interp_random_time(times, n), v = 0.0f;
        for (k = 0; k < n; ++k) {
            keys[3 * k] = keys[3 * k + 2] = (float)m;
            keys[3 * k + 1] = (float)(c + m * times[k]);
        }
        CHECK(fk_track_evaluate(n, times, keys, 1, FK_INTERPOLATION_CUBICSPLINE, time, NULL, &v) == FK_OK, "failed");
        k = interp_key_before(times, n, time);
        if (time <= times[0] || time >= times[n - 1]) {
            CHECK(v == keys[3 * k + 1], "outside the keys the value is not the end key's (seed %lu)", seed);
            continue;
        }
        interp_cubic_reference(times[k], times[k + 1], time, keys[3 * k + 1], m, m, keys[3 * k + 4], &tolerance);
        expected = c + m * time;
        tolerance += FLT_EPSILON * (fabs(keys[3 * k + 1]) + fabs(keys[3 * k + 4]));
        CHECK(fabs(v - expected) <= tolerance, "line %g + %g t at %g: %.9g, not %.9g (seed %lu)", c, m, time, v,
              expected, seed);
    }
}

static void cubic_hits_its_values_at_keys_and_matches_gltf(void)
{
    /* Random tracks of up to 6 components with random tangents, against the
       specification's polynomial in double; at a key, exactly the key's value. */
    float times[INTERP_MAX_KEYS], keys[3 * INTERP_MAX_KEYS * INTERP_MAX_COMPONENTS], out[INTERP_MAX_COMPONENTS];
    int trial, k, c;
    rng_restart();
    for (trial = 0; trial < INTERP_TRIALS; ++trial) {
        int n = interp_random_times(times, INTERP_MAX_KEYS), components = 1 + rng_below(INTERP_MAX_COMPONENTS);
        int key = rng_below(n);
        float time = interp_random_time(times, n);
        for (k = 0; k < 3 * n * components; ++k) keys[k] = rng_uniform(-4.0f, 4.0f);
        CHECK(fk_track_evaluate(n, times, keys, components, FK_INTERPOLATION_CUBICSPLINE, times[key], NULL, out) ==
                  FK_OK, "failed");
        for (c = 0; c < components; ++c)
            CHECK(out[c] == keys[(3 * key + 1) * components + c], "key %d of %d not hit (seed %lu)", key, n, seed);
        CHECK(fk_track_evaluate(n, times, keys, components, FK_INTERPOLATION_CUBICSPLINE, time, NULL, out) == FK_OK,
              "failed");
        k = interp_key_before(times, n, time);
        for (c = 0; c < components; ++c) {
            const float *now = keys + 3 * k * components, *next = now + 3 * components;
            double tolerance, expected;
            if (time <= times[0] || time >= times[n - 1]) {
                CHECK(out[c] == now[components + c], "outside the keys the value is not the end key's (seed %lu)",
                      seed);
                continue;
            }
            expected = interp_cubic_reference(times[k], times[k + 1], time, now[components + c],
                                              now[2 * components + c], next[c], next[components + c], &tolerance);
            CHECK(fabs(out[c] - expected) <= tolerance, "component %d at %g: %.9g, glTF says %.9g (seed %lu)", c,
                  time, out[c], expected, seed);
        }
    }
}

static void cubic_rotations_are_unit_and_follow_the_curve(void)
{
    /* The curve on the four components, normalized after: unit to a few roundings
       (the normalization's square root and division), and the direction of the
       double curve within its tolerance divided by its length. */
    float times[INTERP_MAX_KEYS];
    fk_quat keys[3 * INTERP_MAX_KEYS], q;
    int trial, k;
    rng_restart();
    for (trial = 0; trial < INTERP_TRIALS; ++trial) {
        int n = interp_random_times(times, INTERP_MAX_KEYS), c;
        float time = interp_random_time(times, n), length;
        double p[4], tolerance[4], norm = 0.0, worst = 0.0;
        for (k = 0; k < n; ++k) {
            keys[3 * k + 1] = random_quat();
            keys[3 * k] = fk_quat_make(rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1));
            keys[3 * k + 2] = fk_quat_make(rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1));
        }
        if (fk_track_evaluate_quat(n, times, keys, FK_INTERPOLATION_CUBICSPLINE, FK_INTERPOLATE_SLERP, time, NULL, &q) !=
            FK_OK)
            continue; /* the curve may pass near zero: FK_ERROR_INVALID_ROTATION is right there */
        length = fk_quat_length(q);
        CHECK(fabsf(length - 1.0f) <= 4 * FLT_EPSILON, "cubic rotation has length %.9g (seed %lu)", length, seed);
        k = interp_key_before(times, n, time);
        if (time <= times[0] || time >= times[n - 1]) continue;
        for (c = 0; c < 4; ++c) {
            p[c] = interp_cubic_reference(times[k], times[k + 1], time, interp_quat_component(keys[3 * k + 1], c),
                                          interp_quat_component(keys[3 * k + 2], c),
                                          interp_quat_component(keys[3 * k + 3], c),
                                          interp_quat_component(keys[3 * k + 4], c), &tolerance[c]);
            norm += p[c] * p[c];
            if (tolerance[c] > worst) worst = tolerance[c];
        }
        norm = sqrt(norm);
        if (norm < 0.1) continue; /* near zero the direction is ill-conditioned */
        CHECK(fabs(q.x - p[0] / norm) + fabs(q.y - p[1] / norm) + fabs(q.z - p[2] / norm) + fabs(q.w - p[3] / norm) <=
                  8.0 * worst / norm + 8.0 * FLT_EPSILON,
              "cubic rotation is off the normalized curve (seed %lu)", seed);
    }
}

static void cursor_gives_the_same_bits_as_no_cursor(void)
{
    /* Random walks (small steps forward, back, jumps, keys, infinities) from
       garbage cursors: every sample equals the cursor-less one bit for bit, and
       the cursor ends at the key at or before the time. */
    static const int garbage[6] = {INT_MIN, -1, 0, INT_MAX, 1000, 3};
    float times[INTERP_MAX_KEYS], floats[3 * INTERP_MAX_KEYS * 2];
    fk_vec3 vectors[3 * INTERP_MAX_KEYS];
    fk_quat turns[3 * INTERP_MAX_KEYS];
    int trial, k;
    rng_restart();
    for (trial = 0; trial < INTERP_TRIALS; ++trial) {
        int n = interp_random_times(times, INTERP_MAX_KEYS), step;
        const fk_interpolation mode = (fk_interpolation)rng_below(3);
        int cursor = garbage[rng_below(6)];
        float time = interp_random_time(times, n);
        for (k = 0; k < 3 * n; ++k) {
            vectors[k] = random_vec3(2.0f);
            turns[k] = random_quat();
            floats[2 * k] = rng_uniform(-1, 1); floats[2 * k + 1] = rng_uniform(-1, 1);
        }
        for (step = 0; step < 40; ++step) {
            int pick = rng_below(10), before, expected_key;
            fk_vec3 v, v_reference;
            fk_quat q, q_reference;
            float f[2], f_reference[2];
            fk_result r1, r2;
            if (pick < 6) time += rng_uniform(0.0f, 0.3f);
            else if (pick < 8) time -= rng_uniform(0.0f, 0.3f);
            else time = interp_random_time(times, n);
            expected_key = interp_key_before(times, n, time);
            before = cursor;
            r1 = fk_track_evaluate_vec3(n, times, vectors, mode, time, &cursor, &v);
            r2 = fk_track_evaluate_vec3(n, times, vectors, mode, time, NULL, &v_reference);
            CHECK(r1 == FK_OK && r2 == FK_OK && memcmp(&v, &v_reference, sizeof v) == 0,
                  "vector with cursor %d differs at %g (seed %lu)", before, time, seed);
            CHECK(cursor == expected_key, "cursor %d, not %d, at %g (seed %lu)", cursor, expected_key, time, seed);
            cursor = step % 7 == 6 ? garbage[rng_below(6)] : cursor;
            before = cursor;
            r1 = fk_track_evaluate_quat(n, times, turns, mode, FK_INTERPOLATE_NLERP, time, &cursor, &q);
            r2 = fk_track_evaluate_quat(n, times, turns, mode, FK_INTERPOLATE_NLERP, time, NULL, &q_reference);
            CHECK(r1 == r2 && (r1 != FK_OK || memcmp(&q, &q_reference, sizeof q) == 0),
                  "rotation with cursor %d differs at %g (seed %lu)", before, time, seed);
            before = cursor;
            r1 = fk_track_evaluate(n, times, floats, 2, mode, time, &cursor, f);
            r2 = fk_track_evaluate(n, times, floats, 2, mode, time, NULL, f_reference);
            CHECK(r1 == FK_OK && r2 == FK_OK && memcmp(f, f_reference, sizeof f) == 0,
                  "weights with cursor %d differ at %g (seed %lu)", before, time, seed);
        }
    }
}

static void forward_playback_reads_only_the_keys_at_the_cursor(void)
{
    /* Every key time and value other than the first and last times and keys g,
       g + 1, g + 2 is NaN: a sample in [t_g, t_{g+2}) from cursor g must not look
       at them (a bisection would), so it succeeds, with the clean track's bits,
       and keeps the cursor or moves it by one. That is O(1) per forward sample. */
    float times[INTERP_MAX_KEYS], poisoned_times[INTERP_MAX_KEYS];
    float keys[3 * INTERP_MAX_KEYS * 2], poisoned_keys[3 * INTERP_MAX_KEYS * 2];
    int trial, k;
    rng_restart();
    for (trial = 0; trial < INTERP_TRIALS; ++trial) {
        int n = 8 + rng_below(INTERP_MAX_KEYS - 8), g = 1 + rng_below(n - 5), next, cursor;
        const fk_interpolation mode = (fk_interpolation)rng_below(3);
        const int per_key = mode == FK_INTERPOLATION_CUBICSPLINE ? 6 : 2; /* floats per key: a v b, or v */
        float time, clean[2], played[2] = {0, 0};
        times[0] = 0.0f;
        for (k = 1; k < n; ++k) times[k] = times[k - 1] + rng_uniform(0.01f, 1.0f);
        for (k = 0; k < 6 * n; ++k) keys[k] = rng_uniform(-2, 2);
        for (k = 0; k < n; ++k) poisoned_times[k] = k == 0 || k == n - 1 || (k >= g && k <= g + 2) ? times[k] : NAN;
        for (k = 0; k < 6 * n; ++k) poisoned_keys[k] = (k / per_key >= g && k / per_key <= g + 2) ? keys[k] : NAN;
        for (next = 0; next < 2; ++next) {
            time = rng_uniform(times[g + next], times[g + next + 1]);
            if (time >= times[g + next + 1]) time = times[g + next];
            cursor = g;
            CHECK(fk_track_evaluate(n, times, keys, 2, mode, time, NULL, clean) == FK_OK, "failed");
            CHECK(fk_track_evaluate(n, poisoned_times, poisoned_keys, 2, mode, time, &cursor, played) == FK_OK &&
                      memcmp(clean, played, sizeof clean) == 0 && cursor == g + next,
                  "playing from key %d to %g read other keys (cursor now %d, seed %lu)", g, time, cursor, seed);
        }
    }
}

static void morph_weights_sample_like_separate_tracks(void)
{
    /* N weights per key sample as N one-component tracks would, bit for bit, in
       every mode: the layout a_k (N), v_k (N), b_k (N) is read per component. */
    float times[INTERP_MAX_KEYS], weights[3 * INTERP_MAX_KEYS * INTERP_MAX_COMPONENTS], single[3 * INTERP_MAX_KEYS];
    int trial, k, c;
    rng_restart();
    for (trial = 0; trial < INTERP_TRIALS; ++trial) {
        int n = interp_random_times(times, INTERP_MAX_KEYS), targets = 1 + rng_below(INTERP_MAX_COMPONENTS);
        const fk_interpolation mode = (fk_interpolation)rng_below(3);
        const int elements = mode == FK_INTERPOLATION_CUBICSPLINE ? 3 * n : n;
        float time = interp_random_time(times, n), all[INTERP_MAX_COMPONENTS], one = 0.0f;
        for (k = 0; k < elements * targets; ++k) weights[k] = rng_uniform(0.0f, 1.0f);
        CHECK(fk_track_evaluate(n, times, weights, targets, mode, time, NULL, all) == FK_OK, "failed");
        for (c = 0; c < targets; ++c) {
            for (k = 0; k < elements; ++k) single[k] = weights[k * targets + c];
            CHECK(fk_track_evaluate(n, times, single, 1, mode, time, NULL, &one) == FK_OK && one == all[c],
                  "target %d of %d: %g alone, %g together (seed %lu)", c, targets, one, all[c], seed);
        }
    }
}

static void linear_keeps_the_old_samplers_bits(void)
{
    /* fk_track_sample_vec3()/_quat() as they were written before the cursor
       (scan for the pair, (1 - u) a + u b, slerp of the normalized keys), and the
       new LINEAR samplers, give the same bits; so do fk_track_evaluate() with
       three components and fk_track_evaluate_vec3(). Bits are compared across
       the library and this file, so the build must not fuse a multiply and an
       add of two statements (ISO C modes do not; -ffp-contract=fast may). */
    float times[INTERP_MAX_KEYS];
    fk_vec3 vectors[INTERP_MAX_KEYS], v, v_new, v_old;
    fk_quat turns[INTERP_MAX_KEYS], q, q_new, q_old;
    float flat[3 * INTERP_MAX_KEYS], floats[3];
    int trial, k;
    rng_restart();
    for (trial = 0; trial < INTERP_TRIALS; ++trial) {
        int n = interp_random_times(times, INTERP_MAX_KEYS);
        const fk_rotation_interpolation method = rng_below(2) ? FK_INTERPOLATE_SLERP : FK_INTERPOLATE_NLERP;
        float time = interp_random_time(times, n);
        for (k = 0; k < n; ++k) {
            vectors[k] = random_vec3(3.0f);
            flat[3 * k] = vectors[k].x; flat[3 * k + 1] = vectors[k].y; flat[3 * k + 2] = vectors[k].z;
            turns[k] = fk_quat_make(rng_uniform(-1, 1), rng_uniform(-1, 1), rng_uniform(-1, 1), 1.0f); /* not unit */
        }
        k = interp_key_before(times, n, time);
        if (time <= times[0] || time >= times[n - 1]) {
            v_old = vectors[k];
            q_old = fk_quat_normalize(turns[k]);
        } else {
            float u = (time - times[k]) / (times[k + 1] - times[k]);
            fk_quat a = fk_quat_normalize(turns[k]), b = fk_quat_normalize(turns[k + 1]);
            v_old = fk_vec3_add(fk_vec3_scale(vectors[k], 1.0f - u), fk_vec3_scale(vectors[k + 1], u));
            q_old = method == FK_INTERPOLATE_NLERP ? fk_quat_nlerp(a, b, u) : fk_quat_slerp(a, b, u);
        }
        CHECK(fk_track_sample_vec3(n, times, vectors, time, &v) == FK_OK && memcmp(&v, &v_old, sizeof v) == 0,
              "fk_track_sample_vec3 changed its bits at %g (seed %lu)", time, seed);
        CHECK(fk_track_evaluate_vec3(n, times, vectors, FK_INTERPOLATION_LINEAR, time, NULL, &v_new) == FK_OK &&
                  memcmp(&v_new, &v_old, sizeof v) == 0, "LINEAR vectors differ from the old sampler (seed %lu)", seed);
        CHECK(fk_track_evaluate(n, times, flat, 3, FK_INTERPOLATION_LINEAR, time, NULL, floats) == FK_OK &&
                  floats[0] == v_new.x && floats[1] == v_new.y && floats[2] == v_new.z,
              "three floats differ from a vector (seed %lu)", seed);
        CHECK(fk_track_sample_quat(n, times, turns, time, method, &q) == FK_OK && memcmp(&q, &q_old, sizeof q) == 0,
              "fk_track_sample_quat changed its bits at %g (seed %lu)", time, seed);
        CHECK(fk_track_evaluate_quat(n, times, turns, FK_INTERPOLATION_LINEAR, method, time, NULL, &q_new) == FK_OK &&
                  memcmp(&q_new, &q_old, sizeof q) == 0, "LINEAR rotations differ from the old sampler (seed %lu)",
              seed);
    }
}

static void track_evaluation_refuses_bad_input(void)
{
    const float times[3] = {0.0f, 1.0f, 2.0f}, unsorted[2] = {2.0f, 1.0f}, nan_first[2] = {NAN, 1.0f};
    const float infinite_inside[3] = {0.0f, INFINITY, 2.0f};
    const float values[3] = {1.0f, 2.0f, 3.0f}, nan_unread[3] = {1.0f, 2.0f, NAN};
    const float late_nan[6] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, NAN}; /* 3 components, 2 keys; the last one NaN */
    const float huge_tangent[6] = {0.0f, 0.0f, FLT_MAX, 0.0f, 0.0f, 0.0f}; /* b_0 = FLT_MAX, t_d = 1000 */
    const float long_keys[2] = {0.0f, 1000.0f};
    const fk_vec3 moves[3] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}};
    const fk_quat turns[3] = {{0, 0, 0, 1}, {0, 0, 0, 0}, {0, 0, 0, 1}};
    const fk_quat opposite[6] = {{0, 0, 0, 0}, {0, 0, 0, 1}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, -1}, {0, 0, 0, 0}};
    float out[3] = {7.0f, 7.0f, 7.0f};
    fk_vec3 v = {7, 7, 7};
    fk_quat q = {7, 7, 7, 7};
    int cursor = 1;
#define UNTOUCHED (out[0] == 7.0f && out[1] == 7.0f && out[2] == 7.0f && cursor == 1)
    CHECK(fk_track_evaluate(3, NULL, values, 1, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) ==
              FK_ERROR_NULL_ARGUMENT && UNTOUCHED, "NULL times accepted");
    CHECK(fk_track_evaluate(3, times, NULL, 1, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) ==
              FK_ERROR_NULL_ARGUMENT && UNTOUCHED, "NULL values accepted");
    CHECK(fk_track_evaluate(3, times, values, 1, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, NULL) ==
              FK_ERROR_NULL_ARGUMENT && UNTOUCHED, "NULL out accepted");
    CHECK(fk_track_evaluate(0, times, values, 1, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) ==
              FK_ERROR_INVALID_COUNT && UNTOUCHED, "no keys accepted");
    CHECK(fk_track_evaluate(3, times, values, 0, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) ==
              FK_ERROR_INVALID_COUNT && UNTOUCHED, "no components accepted");
    CHECK(fk_track_evaluate(3, times, values, 1, (fk_interpolation)3, 0.5f, &cursor, out) ==
              FK_ERROR_INVALID_OPTION && UNTOUCHED, "an unnamed interpolation accepted");
    CHECK(fk_track_evaluate(3, times, values, 1, FK_INTERPOLATION_LINEAR, NAN, &cursor, out) == FK_ERROR_NOT_FINITE &&
              UNTOUCHED, "NaN time accepted");
    CHECK(fk_track_evaluate(2, unsorted, values, 1, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) ==
              FK_ERROR_KEYS_NOT_ASCENDING && UNTOUCHED, "a last key before the first accepted");
    CHECK(fk_track_evaluate(2, nan_first, values, 1, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) ==
              FK_ERROR_KEYS_NOT_ASCENDING && UNTOUCHED, "a NaN first key accepted");
    CHECK(fk_track_evaluate(3, infinite_inside, values, 1, FK_INTERPOLATION_LINEAR, 1.0f, &cursor, out) ==
              FK_ERROR_KEYS_NOT_ASCENDING && UNTOUCHED, "an infinite key met between keys accepted");
    CHECK(fk_track_evaluate(3, times, nan_unread, 1, FK_INTERPOLATION_LINEAR, 1.5f, &cursor, out) ==
              FK_ERROR_NOT_FINITE && UNTOUCHED, "a NaN value met accepted");
    CHECK(fk_track_evaluate(3, times, nan_unread, 1, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) == FK_OK &&
              out[0] == 1.5f && cursor == 0, "a NaN value that is not read refused");
    out[0] = 7.0f; cursor = 1;
    CHECK(fk_track_evaluate(2, times, late_nan, 3, FK_INTERPOLATION_LINEAR, 0.5f, &cursor, out) ==
              FK_ERROR_NOT_FINITE && UNTOUCHED, "components written before the last one was checked");
    CHECK(fk_track_evaluate(2, long_keys, huge_tangent, 1, FK_INTERPOLATION_CUBICSPLINE, 500.0f, &cursor, out) ==
              FK_ERROR_NOT_FINITE && UNTOUCHED, "a cubic that overflows accepted");
    CHECK(fk_track_evaluate_vec3(3, times, moves, (fk_interpolation)-1, 0.5f, &cursor, &v) ==
              FK_ERROR_INVALID_OPTION && v.x == 7.0f && cursor == 1, "an unnamed interpolation accepted for vectors");
    CHECK(fk_track_evaluate_vec3(3, times, NULL, FK_INTERPOLATION_STEP, 0.5f, &cursor, &v) == FK_ERROR_NULL_ARGUMENT &&
              v.x == 7.0f && cursor == 1, "NULL vectors accepted");
    CHECK(fk_track_evaluate_quat(3, times, turns, FK_INTERPOLATION_LINEAR, (fk_rotation_interpolation)5, 0.5f, &cursor,
                                 &q) == FK_ERROR_INVALID_OPTION && q.w == 7.0f && cursor == 1,
          "an unnamed rotation method accepted");
    CHECK(fk_track_evaluate_quat(3, times, turns, FK_INTERPOLATION_STEP, FK_INTERPOLATE_SLERP, 1.5f, &cursor, &q) ==
              FK_ERROR_INVALID_ROTATION && q.w == 7.0f && cursor == 1, "a zero rotation key met accepted");
    CHECK(fk_track_evaluate_quat(2, times, opposite, FK_INTERPOLATION_CUBICSPLINE, FK_INTERPOLATE_SLERP, 0.5f, &cursor,
                                 &q) == FK_ERROR_INVALID_ROTATION && q.w == 7.0f && cursor == 1,
          "a cubic rotation through zero accepted");
#undef UNTOUCHED
}

/* ---- Morph targets ---------------------------------------------------------------- */


/* A random mesh with random targets: the base in interleaved records (position,
   normal, tangent), so that strides are exercised; dense deltas packed, sparse
   ones with a padded stride and their vertices in random order. */
#define MORPH_VERTICES 40
#define MORPH_TARGETS 4
#define MORPH_TRIALS 200

typedef struct morph_vertex {
    float position[3], normal[3], tangent[4];
} morph_vertex;

typedef struct morph_case {
    int vertex_count, target_count;
    morph_vertex base[MORPH_VERTICES];
    float deltas[MORPH_TARGETS][3][MORPH_VERTICES][4]; /* [target][attribute][entry] x y z, padding */
    uint32_t indices[MORPH_TARGETS][MORPH_VERTICES];
    fk_morph_target targets[MORPH_TARGETS];
    float weights[MORPH_TARGETS];
    float out_positions[MORPH_VERTICES][3], out_normals[MORPH_VERTICES][3], out_tangents[MORPH_VERTICES][4];
} morph_case;

static void random_unit3(float *v)
{
    fk_vec3 u;
    do u = random_vec3(1.0f);
    while (fk_vec3_dot(u, u) < 0.01f);
    u = fk_vec3_normalize(u);
    v[0] = u.x; v[1] = u.y; v[2] = u.z;
}

/* Points a target at its deltas: a sparse one at `count` entries of padded
   records (every fourth float), a dense one at packed x y z. */
static void morph_point_target(morph_case *c, int i, int sparse, int count)
{
    fk_morph_target *t = &c->targets[i];
    memset(t, 0, sizeof *t);
    t->position_deltas = &c->deltas[i][0][0][0];
    t->normal_deltas = &c->deltas[i][1][0][0];
    t->tangent_deltas = &c->deltas[i][2][0][0];
    if (!sparse) return;
    t->position_delta_stride = t->normal_delta_stride = t->tangent_delta_stride = 4 * sizeof(float);
    t->indices = c->indices[i];
    t->sparse_count = count;
}

/* Packs target i's padded records x y z for a dense target. */
static void morph_pack(morph_case *c, int i)
{
    int a, e;
    for (a = 0; a < 3; ++a) {
        float packed[MORPH_VERTICES * 3];
        for (e = 0; e < c->vertex_count; ++e) memcpy(packed + 3 * e, c->deltas[i][a][e], 3 * sizeof(float));
        memset(c->deltas[i][a], 0, sizeof c->deltas[i][a]);
        memcpy(c->deltas[i][a], packed, sizeof packed);
    }
}

static void morph_random_case(morph_case *c)
{
    int v, i, a, e;
    memset(c, 0, sizeof *c);
    c->vertex_count = 1 + rng_below(MORPH_VERTICES);
    c->target_count = 1 + rng_below(MORPH_TARGETS);
    for (v = 0; v < c->vertex_count; ++v) {
        morph_vertex *b = &c->base[v];
        fk_vec3 p = random_vec3(2.0f);
        b->position[0] = p.x; b->position[1] = p.y; b->position[2] = p.z;
        random_unit3(b->normal);
        random_unit3(b->tangent);
        b->tangent[3] = rng_below(2) ? 1.0f : -1.0f;
    }
    for (i = 0; i < c->target_count; ++i) {
        int sparse = rng_below(2), count = sparse ? rng_below(c->vertex_count + 1) : c->vertex_count;
        for (v = 0; v < c->vertex_count; ++v) c->indices[i][v] = (uint32_t)v;
        for (v = c->vertex_count - 1; v > 0; --v) {
            int j = rng_below(v + 1);
            uint32_t swap = c->indices[i][v];
            c->indices[i][v] = c->indices[i][j]; c->indices[i][j] = swap;
        }
        for (a = 0; a < 3; ++a)
            for (e = 0; e < count; ++e) {
                fk_vec3 d = random_vec3(a == 0 ? 0.5f : 0.3f);
                c->deltas[i][a][e][0] = d.x; c->deltas[i][a][e][1] = d.y; c->deltas[i][a][e][2] = d.z;
                c->deltas[i][a][e][3] = NAN; /* padding: never read */
            }
        if (!sparse) morph_pack(c, i);
        morph_point_target(c, i, sparse, count);
        c->weights[i] = rng_uniform(-1.0f, 1.5f); /* glTF allows negative weights */
    }
}

static fk_morph_desc morph_desc_of(morph_case *c)
{
    fk_morph_desc d;
    memset(&d, 0, sizeof d);
    d.vertex_count = c->vertex_count;
    d.positions = c->base[0].position;
    d.normals = c->base[0].normal;
    d.tangents = c->base[0].tangent;
    d.position_stride = d.normal_stride = d.tangent_stride = sizeof(morph_vertex);
    d.target_count = c->target_count;
    d.targets = c->targets;
    d.weights = c->weights;
    d.out_positions = c->out_positions[0];
    d.out_normals = c->out_normals[0];
    d.out_tangents = c->out_tangents[0];
    return d;
}

/* Target i's delta of attribute a for vertex v, zero where a sparse target lists no entry. */
static fk_vec3 morph_delta_of(const morph_case *c, int i, int a, int v)
{
    const fk_morph_target *t = &c->targets[i];
    const float *deltas = a == 0 ? t->position_deltas : a == 1 ? t->normal_deltas : t->tangent_deltas;
    int e;
    if (!t->indices) return fk_vec3_make(deltas[3 * v], deltas[3 * v + 1], deltas[3 * v + 2]);
    for (e = 0; e < t->sparse_count; ++e)
        if ((int)t->indices[e] == v) return fk_vec3_make(deltas[4 * e], deltas[4 * e + 1], deltas[4 * e + 2]);
    return fk_vec3_make(0.0f, 0.0f, 0.0f);
}

/* base + sum_i w_i d_i in double, and the bound on float's error in the same sum:
   every product and every addition rounds once, each by at most FLT_EPSILON/2 of
   a value no larger than |base| + sum |w_i d_i| (per component), so (T + 1)
   FLT_EPSILON times that bounds the whole. */
static void morph_reference(const morph_case *c, int a, int v, double sum[3], double *bound)
{
    const float *base = a == 0 ? c->base[v].position : a == 1 ? c->base[v].normal : c->base[v].tangent;
    double magnitude = 0.0;
    int i, k;
    for (k = 0; k < 3; ++k) sum[k] = base[k];
    for (k = 0; k < 3; ++k) magnitude = fmax(magnitude, fabs(base[k]));
    for (k = 0; k < 3; ++k) {
        double m = fabs(base[k]);
        for (i = 0; i < c->target_count; ++i) {
            fk_vec3 d = morph_delta_of(c, i, a, v);
            double dk = k == 0 ? d.x : k == 1 ? d.y : d.z;
            sum[k] += (double)c->weights[i] * dk;
            m += fabs((double)c->weights[i] * dk);
        }
        magnitude = fmax(magnitude, m);
    }
    *bound = (c->target_count + 1) * (double)FLT_EPSILON * magnitude;
}

static void morph_worked_example_on_a_triangle(void)
{
    /* By hand. Triangle (0,0,0) (1,0,0) (0,1,0), normals +z, tangents (1,0,0,-1).
       Target A, dense, weight 0.5: lifts vertex 0 by (0,0,1) and tilts its normal
       by (1.5,0,0). Target B, sparse on vertex 2 only, weight 0.25: lifts it by
       (0,0,2) and turns its tangent by (0,3,0). So vertex 0 moves to (0,0,0.5),
       its normal to (0.75,0,1) = 0.25 (3,0,4), unit (0.6,0,0.8); vertex 2 to
       (0,1,0.5), its tangent to (1,0.75,0) = 0.25 (4,3,0), unit (0.8,0.6,0), w
       still -1; vertex 1 and everything else stays as it was. */
    float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    float normals[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    float tangents[12] = {1, 0, 0, -1, 1, 0, 0, -1, 1, 0, 0, -1};
    float a_positions[9] = {0, 0, 1, 0, 0, 0, 0, 0, 0}, a_normals[9] = {1.5f, 0, 0, 0, 0, 0, 0, 0, 0};
    float b_positions[3] = {0, 0, 2}, b_tangents[3] = {0, 3, 0};
    uint32_t b_index[1] = {2};
    fk_morph_target targets[2];
    float weights[2] = {0.5f, 0.25f};
    float out_p[9], out_n[9], out_t[12];
    const float want_p[9] = {0, 0, 0.5f, 1, 0, 0, 0, 1, 0.5f};
    const float want_n[9] = {0.6f, 0, 0.8f, 0, 0, 1, 0, 0, 1};
    const float want_t[12] = {1, 0, 0, -1, 1, 0, 0, -1, 0.8f, 0.6f, 0, -1};
    fk_morph_desc d;
    int k;
    memset(targets, 0, sizeof targets);
    targets[0].position_deltas = a_positions;
    targets[0].normal_deltas = a_normals;
    targets[1].position_deltas = b_positions;
    targets[1].tangent_deltas = b_tangents;
    targets[1].indices = b_index;
    targets[1].sparse_count = 1;
    memset(&d, 0, sizeof d);
    d.vertex_count = 3;
    d.positions = positions; d.normals = normals; d.tangents = tangents;
    d.target_count = 2; d.targets = targets; d.weights = weights;
    d.out_positions = out_p; d.out_normals = out_n; d.out_tangents = out_t;
    CHECK(fk_morph_apply(&d) == FK_OK, "the triangle does not morph");
    /* Positions are sums of exact binary fractions; the unit vectors are one
       normalization away, within a few roundings. */
    for (k = 0; k < 9; ++k) CHECK(out_p[k] == want_p[k], "position %d is %g, not %g", k, out_p[k], want_p[k]);
    for (k = 0; k < 9; ++k)
        CHECK(fabsf(out_n[k] - want_n[k]) <= 2 * FLT_EPSILON, "normal %d is %.9g, not %g", k, out_n[k], want_n[k]);
    for (k = 0; k < 12; ++k)
        CHECK(fabsf(out_t[k] - want_t[k]) <= 2 * FLT_EPSILON, "tangent %d is %.9g, not %g", k, out_t[k], want_t[k]);
}

static void morph_zero_weights_give_the_base_bits(void)
{
    int trial, i, v;
    rng_restart();
    for (trial = 0; trial < MORPH_TRIALS; ++trial) {
        morph_case c;
        fk_morph_desc d;
        morph_random_case(&c);
        for (i = 0; i < c.target_count; ++i) c.weights[i] = i % 2 ? -0.0f : 0.0f;
        /* Base normals off unit length, and zeros of negative sign (which adding
           a zero term would turn positive): kept, not mended. */
        c.base[0].normal[0] *= 3.0f;
        c.base[0].position[1] = -0.0f;
        c.base[0].tangent[3] = -0.0f;
        d = morph_desc_of(&c);
        CHECK(fk_morph_apply(&d) == FK_OK, "zero weights refused (seed %lu)", seed);
        for (v = 0; v < c.vertex_count; ++v)
            CHECK(memcmp(c.out_positions[v], c.base[v].position, 12) == 0 &&
                  memcmp(c.out_normals[v], c.base[v].normal, 12) == 0 &&
                  memcmp(c.out_tangents[v], c.base[v].tangent, 16) == 0,
                  "vertex %d changed under zero weights (seed %lu)", v, seed);
    }
}

static void morph_one_target_at_weight_one_adds_its_delta(void)
{
    int trial, v;
    rng_restart();
    for (trial = 0; trial < MORPH_TRIALS; ++trial) {
        morph_case c;
        fk_morph_desc d;
        morph_random_case(&c);
        c.target_count = 1;
        c.weights[0] = 1.0f;
        d = morph_desc_of(&c);
        CHECK(fk_morph_apply(&d) == FK_OK, "one target refused (seed %lu)", seed);
        /* 1 * d is exact, so each component is the one rounding of base + delta;
           directions are that sum normalized (or the base, where it is unchanged). */
        for (v = 0; v < c.vertex_count; ++v) {
            fk_vec3 dp = morph_delta_of(&c, 0, 0, v), dn = morph_delta_of(&c, 0, 1, v);
            const float *p = c.base[v].position, *n = c.base[v].normal;
            fk_vec3 n_sum = fk_vec3_make(n[0] + dn.x, n[1] + dn.y, n[2] + dn.z);
            fk_vec3 n_want = n_sum.x == n[0] && n_sum.y == n[1] && n_sum.z == n[2]
                                 ? fk_vec3_make(n[0], n[1], n[2]) : fk_vec3_normalize(n_sum);
            CHECK(c.out_positions[v][0] == p[0] + dp.x && c.out_positions[v][1] == p[1] + dp.y &&
                  c.out_positions[v][2] == p[2] + dp.z, "vertex %d is not base + delta (seed %lu)", v, seed);
            CHECK(c.out_normals[v][0] == n_want.x && c.out_normals[v][1] == n_want.y && c.out_normals[v][2] == n_want.z,
                  "normal %d is not normalize(base + delta) (seed %lu)", v, seed);
        }
    }
}

static void morph_is_base_plus_weighted_deltas(void)
{
    int trial, v, a, k;
    rng_restart();
    for (trial = 0; trial < MORPH_TRIALS; ++trial) {
        morph_case c;
        fk_morph_desc d;
        morph_random_case(&c);
        d = morph_desc_of(&c);
        CHECK(fk_morph_apply(&d) == FK_OK, "random morph refused (seed %lu)", seed);
        for (v = 0; v < c.vertex_count; ++v)
            for (a = 0; a < 3; ++a) {
                double sum[3], bound, length;
                const float *out = a == 0 ? c.out_positions[v] : a == 1 ? c.out_normals[v] : c.out_tangents[v];
                morph_reference(&c, a, v, sum, &bound);
                length = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
                if (a > 0) {
                    /* The direction of a sum off by at most bound per component turns by
                       at most 2 sqrt(3) bound / |sum|, plus normalizing's few roundings. */
                    if (length < 1e-3) continue;
                    bound = 2.0 * sqrt(3.0) * bound / length + 4.0 * FLT_EPSILON;
                    for (k = 0; k < 3; ++k) sum[k] /= length;
                }
                for (k = 0; k < 3; ++k)
                    CHECK(fabs(out[k] - sum[k]) <= bound, "vertex %d attribute %d component %d off by %g > %g (seed %lu)",
                          v, a, k, fabs(out[k] - sum[k]), bound, seed);
            }
    }
}

static void morph_sparse_equals_dense(void)
{
    int trial, i, v, a, e, k;
    rng_restart();
    for (trial = 0; trial < MORPH_TRIALS; ++trial) {
        morph_case sparse, dense;
        fk_morph_desc ds, dd;
        morph_random_case(&sparse);
        /* The same deltas spelled densely: zero for every vertex a sparse target leaves out. */
        dense = sparse;
        for (i = 0; i < sparse.target_count; ++i) {
            float full[3][MORPH_VERTICES][4];
            if (sparse.targets[i].indices) {
                memset(full, 0, sizeof full);
                for (a = 0; a < 3; ++a)
                    for (e = 0; e < sparse.targets[i].sparse_count; ++e)
                        for (k = 0; k < 3; ++k) full[a][sparse.indices[i][e]][k] = sparse.deltas[i][a][e][k];
                memcpy(dense.deltas[i], full, sizeof full);
                morph_pack(&dense, i);
            }
            morph_point_target(&dense, i, 0, dense.vertex_count);
        }
        ds = morph_desc_of(&sparse);
        dd = morph_desc_of(&dense);
        CHECK(fk_morph_apply(&ds) == FK_OK && fk_morph_apply(&dd) == FK_OK, "morph refused (seed %lu)", seed);
        /* Adding w 0 changes no value (at most a zero's sign), so every value agrees. */
        for (v = 0; v < sparse.vertex_count; ++v)
            for (k = 0; k < 3; ++k)
                CHECK(sparse.out_positions[v][k] == dense.out_positions[v][k] &&
                      sparse.out_normals[v][k] == dense.out_normals[v][k] &&
                      sparse.out_tangents[v][k] == dense.out_tangents[v][k],
                      "vertex %d component %d: sparse and dense differ (seed %lu)", v, k, seed);
    }
}

static void morph_in_place_equals_out_of_place(void)
{
    int trial, v;
    rng_restart();
    for (trial = 0; trial < MORPH_TRIALS; ++trial) {
        morph_case c;
        fk_morph_desc d;
        morph_vertex records[MORPH_VERTICES];
        morph_random_case(&c);
        d = morph_desc_of(&c);
        CHECK(fk_morph_apply(&d) == FK_OK, "morph refused (seed %lu)", seed);
        /* In place: positions over their own interleaved records. */
        memcpy(records, c.base, sizeof records);
        d.positions = d.out_positions = records[0].position;
        d.out_position_stride = sizeof(morph_vertex);
        d.normals = d.tangents = NULL;
        CHECK(fk_morph_apply(&d) == FK_OK, "in-place morph refused (seed %lu)", seed);
        for (v = 0; v < c.vertex_count; ++v)
            CHECK(memcmp(records[v].position, c.out_positions[v], 12) == 0,
                  "vertex %d: in place differs from out of place (seed %lu)", v, seed);
    }
}

static void morph_directions_are_unit_and_tangent_w_is_kept(void)
{
    int trial, v;
    rng_restart();
    for (trial = 0; trial < MORPH_TRIALS; ++trial) {
        morph_case c;
        fk_morph_desc d;
        const uint32_t nan_with_payload = 0x7fc12345u;
        morph_random_case(&c);
        memcpy(&c.base[0].tangent[3], &nan_with_payload, 4);
        c.base[c.vertex_count - 1].tangent[3] = -0.0f;
        d = morph_desc_of(&c);
        CHECK(fk_morph_apply(&d) == FK_OK, "morph refused (seed %lu)", seed);
        for (v = 0; v < c.vertex_count; ++v) {
            /* A unit vector's squared length is one within a few roundings. */
            fk_vec3 n = fk_vec3_make(c.out_normals[v][0], c.out_normals[v][1], c.out_normals[v][2]);
            fk_vec3 t = fk_vec3_make(c.out_tangents[v][0], c.out_tangents[v][1], c.out_tangents[v][2]);
            CHECK(fabsf(fk_vec3_dot(n, n) - 1.0f) <= 4 * FLT_EPSILON, "normal %d has length^2 %.9g (seed %lu)",
                  v, fk_vec3_dot(n, n), seed);
            CHECK(fabsf(fk_vec3_dot(t, t) - 1.0f) <= 4 * FLT_EPSILON, "tangent %d has length^2 %.9g (seed %lu)",
                  v, fk_vec3_dot(t, t), seed);
            CHECK(memcmp(&c.out_tangents[v][3], &c.base[v].tangent[3], 4) == 0, "tangent %d lost its w bits (seed %lu)",
                  v, seed);
        }
    }
}

static void morph_to_zero_length_keeps_the_base_direction(void)
{
    /* A target that takes vertex 1's normal and tangent exactly to zero at weight
       1 (n - n), and leaves vertex 0's alone: vertex 1 keeps its base directions
       bit for bit, not normalized, and no NaN appears. */
    float positions[6] = {0, 0, 0, 1, 0, 0};
    float normals[6] = {0, 0, 1, 0.1f, 0.2f, 0.3f};
    float tangents[8] = {1, 0, 0, 1, 0.3f, -0.2f, 0.7f, -1};
    float n_deltas[6] = {0, 0, 0, -0.1f, -0.2f, -0.3f}, t_deltas[6] = {0, 0, 0, -0.3f, 0.2f, -0.7f};
    float weight = 1.0f, out_p[6], out_n[6], out_t[8];
    fk_morph_target target;
    fk_morph_desc d;
    memset(&target, 0, sizeof target);
    target.normal_deltas = n_deltas;
    target.tangent_deltas = t_deltas;
    memset(&d, 0, sizeof d);
    d.vertex_count = 2;
    d.positions = positions; d.normals = normals; d.tangents = tangents;
    d.target_count = 1; d.targets = &target; d.weights = &weight;
    d.out_positions = out_p; d.out_normals = out_n; d.out_tangents = out_t;
    CHECK(fk_morph_apply(&d) == FK_OK, "morph refused");
    CHECK(memcmp(out_n, normals, sizeof out_n) == 0, "a zero-length normal did not keep its base");
    CHECK(memcmp(out_t, tangents, sizeof out_t) == 0, "a zero-length tangent did not keep its base");
}

static void morph_weight_zero_targets_are_not_read(void)
{
    /* A target at weight 0 with NaN deltas and an index out of range is skipped
       unread: the call succeeds and the base comes through bit for bit. */
    float positions[6] = {0, 1, 2, 3, 4, 5}, deltas[3] = {NAN, INFINITY, 0}, out[6];
    uint32_t index[1] = {7};
    float weight = 0.0f;
    fk_morph_target target;
    fk_morph_desc d;
    memset(&target, 0, sizeof target);
    target.position_deltas = deltas;
    target.indices = index;
    target.sparse_count = 1;
    memset(&d, 0, sizeof d);
    d.vertex_count = 2;
    d.positions = positions; d.out_positions = out;
    d.target_count = 1; d.targets = &target; d.weights = &weight;
    CHECK(fk_morph_apply(&d) == FK_OK && memcmp(out, positions, sizeof out) == 0, "a weight-0 target was read");
}

static void morph_then_identity_skinning_is_the_morph(void)
{
    int trial, v, k;
    rng_restart();
    for (trial = 0; trial < MORPH_TRIALS; ++trial) {
        morph_case c;
        fk_morph_desc d;
        fk_skin_desc skin;
        fk_rigid bones[2];
        float weights[MORPH_VERTICES][2], skinned_p[MORPH_VERTICES][3], skinned_n[MORPH_VERTICES][3];
        uint16_t joints[MORPH_VERTICES][2];
        morph_random_case(&c);
        d = morph_desc_of(&c);
        CHECK(fk_morph_apply(&d) == FK_OK, "morph refused (seed %lu)", seed);
        bones[0] = bones[1] = fk_rigid_identity();
        for (v = 0; v < c.vertex_count; ++v) {
            joints[v][0] = 0; joints[v][1] = 1;
            weights[v][0] = 1.0f; weights[v][1] = 0.0f;
        }
        memset(&skin, 0, sizeof skin);
        skin.vertex_count = c.vertex_count;
        skin.influences = 2;
        skin.positions = c.out_positions[0];
        skin.normals = c.out_normals[0];
        skin.joints = joints[0];
        skin.weights = weights[0];
        skin.transforms = bones;
        skin.transform_count = 2;
        skin.out_positions = skinned_p[0];
        skin.out_normals = skinned_n[0];
        CHECK(fk_skin_lbs(&skin) == FK_OK, "skinning refused (seed %lu)", seed);
        /* The identity times a point, plus zeros, is exact; the skinned normal is the
           morphed unit normal renormalized, which moves it by a rounding or two. */
        for (v = 0; v < c.vertex_count; ++v)
            for (k = 0; k < 3; ++k) {
                CHECK(skinned_p[v][k] == c.out_positions[v][k], "vertex %d moved under identity bones (seed %lu)", v, seed);
                CHECK(fabsf(skinned_n[v][k] - c.out_normals[v][k]) <= 2 * FLT_EPSILON,
                      "normal %d turned under identity bones (seed %lu)", v, seed);
            }
    }
}

static void morph_then_skinning_is_skinning_the_morphed_mesh(void)
{
    int trial, v, k, dqs;
    rng_restart();
    for (trial = 0; trial < MORPH_TRIALS; ++trial)
        for (dqs = 0; dqs < 2; ++dqs) {
            morph_case c;
            fk_morph_desc d;
            fk_skin_desc skin;
            fk_rigid bones[3];
            float weights[MORPH_VERTICES][2], manual_p[MORPH_VERTICES][3], manual_n[MORPH_VERTICES][3];
            float from_morph_p[MORPH_VERTICES][3], from_morph_n[MORPH_VERTICES][3];
            float from_manual_p[MORPH_VERTICES][3], from_manual_n[MORPH_VERTICES][3];
            double bound_p[MORPH_VERTICES], bound_n[MORPH_VERTICES];
            uint16_t joints[MORPH_VERTICES][2];
            morph_random_case(&c);
            d = morph_desc_of(&c);
            CHECK(fk_morph_apply(&d) == FK_OK, "morph refused (seed %lu)", seed);
            /* The mesh morphed by hand, in double, then rounded. */
            for (v = 0; v < c.vertex_count; ++v) {
                double sum[3], bound, length;
                morph_reference(&c, 0, v, sum, &bound);
                for (k = 0; k < 3; ++k) manual_p[v][k] = (float)sum[k];
                bound_p[v] = bound;
                morph_reference(&c, 1, v, sum, &bound);
                length = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
                for (k = 0; k < 3; ++k) manual_n[v][k] = (float)(sum[k] / length);
                bound_n[v] = length < 1e-3 ? 3.0 : 2.0 * sqrt(3.0) * bound / length + 4.0 * FLT_EPSILON;
            }
            for (k = 0; k < 3; ++k) {
                bones[k].q = random_quat();
                bones[k].t = random_vec3(2.0f);
            }
            for (v = 0; v < c.vertex_count; ++v) {
                joints[v][0] = (uint16_t)rng_below(3); joints[v][1] = (uint16_t)rng_below(3);
                weights[v][0] = rng_uniform(0.0f, 1.0f); weights[v][1] = 1.0f - weights[v][0];
            }
            memset(&skin, 0, sizeof skin);
            skin.vertex_count = c.vertex_count;
            skin.influences = 2;
            skin.joints = joints[0];
            skin.weights = weights[0];
            skin.transforms = bones;
            skin.transform_count = 3;
            skin.positions = c.out_positions[0]; skin.normals = c.out_normals[0];
            skin.out_positions = from_morph_p[0]; skin.out_normals = from_morph_n[0];
            CHECK((dqs ? fk_skin_dqs(&skin) : fk_skin_lbs(&skin)) == FK_OK, "skinning refused (seed %lu)", seed);
            skin.positions = manual_p[0]; skin.normals = manual_n[0];
            skin.out_positions = from_manual_p[0]; skin.out_normals = from_manual_n[0];
            CHECK((dqs ? fk_skin_dqs(&skin) : fk_skin_lbs(&skin)) == FK_OK, "skinning refused (seed %lu)", seed);
            /* Two inputs within the morph's bound of each other (plus the manual
               mesh's rounding to float) are moved by blends of rotations, which
               stretch no distance, so they stay that close plus skinning's own
               roundings: a few FLT_EPSILON of the skinned point's size (|p| + |t|
               <= 3.5 + 3.5 here). DQS rotates a normal by a rotation that depends
               on the bones alone; LBS normalizes M n, M = w0 R0 + w1 R1, which
               magnifies a change of n by at most 2 / |M n| (|M| <= 1), so vertices
               whose bones nearly cancel (|M n| < 0.01) are left out. */
            for (v = 0; v < c.vertex_count; ++v) {
                fk_vec3 n = fk_vec3_make(c.out_normals[v][0], c.out_normals[v][1], c.out_normals[v][2]);
                fk_vec3 blended = fk_vec3_add(fk_vec3_scale(fk_quat_rotate(bones[joints[v][0]].q, n), weights[v][0]),
                                              fk_vec3_scale(fk_quat_rotate(bones[joints[v][1]].q, n), weights[v][1]));
                double gain = dqs ? 1.0 : 2.0 / fk_vec3_length(blended);
                double tol_p = sqrt(3.0) * (bound_p[v] + 4.0 * FLT_EPSILON) + 16.0 * 7.0 * FLT_EPSILON;
                double tol_n = gain * sqrt(3.0) * (bound_n[v] + 4.0 * FLT_EPSILON) + 16.0 * FLT_EPSILON;
                if (!dqs && fk_vec3_length(blended) < 0.01f) continue;
                for (k = 0; k < 3; ++k) {
                    CHECK(fabs(from_morph_p[v][k] - from_manual_p[v][k]) <= tol_p,
                          "%s: vertex %d off by %g > %g (seed %lu)", dqs ? "DQS" : "LBS", v,
                          fabs(from_morph_p[v][k] - from_manual_p[v][k]), tol_p, seed);
                    CHECK(fabs(from_morph_n[v][k] - from_manual_n[v][k]) <= tol_n,
                          "%s: normal %d off by %g > %g (seed %lu)", dqs ? "DQS" : "LBS", v,
                          fabs(from_morph_n[v][k] - from_manual_n[v][k]), tol_n, seed);
                }
            }
        }
}

/* Runs a bad descriptor over outputs full of a sentinel: the code must be the
   expected one and every output byte still the sentinel. */
static void morph_expect_refusal(fk_morph_desc d, fk_result expected, const char *what)
{
    float out_p[12], out_n[12], out_t[16];
    unsigned char sentinel[sizeof out_t];
    fk_result got;
    memset(sentinel, 0xa5, sizeof sentinel);
    memset(out_p, 0xa5, sizeof out_p); memset(out_n, 0xa5, sizeof out_n); memset(out_t, 0xa5, sizeof out_t);
    if (d.out_positions) d.out_positions = out_p;
    if (d.out_normals) d.out_normals = out_n;
    if (d.out_tangents) d.out_tangents = out_t;
    got = fk_morph_apply(&d);
    CHECK(got == expected, "%s: got %s, not %s", what, fk_result_description(got), fk_result_description(expected));
    CHECK(memcmp(out_p, sentinel, sizeof out_p) == 0 && memcmp(out_n, sentinel, sizeof out_n) == 0 &&
          memcmp(out_t, sentinel, sizeof out_t) == 0, "%s: an output was written", what);
}

static void morph_refuses_bad_input_and_writes_nothing(void)
{
    float positions[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    float normals[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    float tangents[16] = {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1};
    float dense[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}, sparse[6] = {1, 0, 0, 0, 1, 0}, bad[12];
    uint32_t indices[2] = {3, 1}, bad_indices[2] = {1, 4};
    fk_morph_target targets[2], broken[2];
    float weights[2] = {0.5f, -0.5f}, bad_weights[2], out[16];
    fk_morph_desc good, d;
    memset(targets, 0, sizeof targets);
    targets[0].position_deltas = targets[0].normal_deltas = targets[0].tangent_deltas = dense;
    targets[1].position_deltas = targets[1].normal_deltas = targets[1].tangent_deltas = sparse;
    targets[1].indices = indices;
    targets[1].sparse_count = 2;
    memset(&good, 0, sizeof good);
    good.vertex_count = 4;
    good.positions = positions; good.normals = normals; good.tangents = tangents;
    good.target_count = 2; good.targets = targets; good.weights = weights;
    /* morph_expect_refusal() gives each output its own sentinel buffer. */
    good.out_positions = good.out_normals = good.out_tangents = out;

    CHECK(fk_morph_apply(NULL) == FK_ERROR_NULL_ARGUMENT, "a NULL descriptor was accepted");
    d = good; d.positions = NULL; morph_expect_refusal(d, FK_ERROR_NULL_ARGUMENT, "no positions");
    d = good; d.out_positions = NULL; morph_expect_refusal(d, FK_ERROR_NULL_ARGUMENT, "no output positions");
    d = good; d.out_normals = NULL; morph_expect_refusal(d, FK_ERROR_NULL_ARGUMENT, "normals without an output");
    d = good; d.out_tangents = NULL; morph_expect_refusal(d, FK_ERROR_NULL_ARGUMENT, "tangents without an output");
    d = good; d.targets = NULL; morph_expect_refusal(d, FK_ERROR_NULL_ARGUMENT, "no targets");
    d = good; d.weights = NULL; morph_expect_refusal(d, FK_ERROR_NULL_ARGUMENT, "no weights");
    d = good; d.vertex_count = -1; morph_expect_refusal(d, FK_ERROR_INVALID_COUNT, "negative vertex count");
    d = good; d.target_count = -1; morph_expect_refusal(d, FK_ERROR_INVALID_COUNT, "negative target count");
    memcpy(broken, targets, sizeof broken);
    broken[1].sparse_count = -1;
    d = good; d.targets = broken; morph_expect_refusal(d, FK_ERROR_INVALID_COUNT, "negative sparse count");
    memcpy(broken, targets, sizeof broken);
    broken[0].sparse_count = 2;
    d = good; d.targets = broken; morph_expect_refusal(d, FK_ERROR_INVALID_COUNT, "a dense target with a sparse count");
    d = good; d.position_stride = 8; morph_expect_refusal(d, FK_ERROR_INVALID_STRIDE, "a stride below a position");
    d = good; d.out_tangent_stride = 14; morph_expect_refusal(d, FK_ERROR_INVALID_STRIDE, "a misaligned tangent stride");
    memcpy(broken, targets, sizeof broken);
    broken[1].normal_delta_stride = 4;
    d = good; d.targets = broken; morph_expect_refusal(d, FK_ERROR_INVALID_STRIDE, "a stride below a normal delta");
    /* Normals and tangents in place, and positions overlapping at another stride. */
    d = good; d.out_normals = (float *)normals;
    CHECK(fk_morph_apply(&d) == FK_ERROR_CONFLICTING_ARGUMENTS, "normals in place were accepted");
    d = good; d.out_tangents = tangents + 4;
    CHECK(fk_morph_apply(&d) == FK_ERROR_CONFLICTING_ARGUMENTS, "overlapping tangents were accepted");
    d = good; d.out_positions = positions; d.out_position_stride = 16;
    CHECK(fk_morph_apply(&d) == FK_ERROR_CONFLICTING_ARGUMENTS, "positions overlapping at another stride were accepted");
    CHECK(memcmp(normals, (const float[12]){0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}, sizeof normals) == 0 &&
          memcmp(positions, (const float[12]){0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}, sizeof positions) == 0 &&
          memcmp(tangents, (const float[16]){1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1}, sizeof tangents) == 0,
          "a refused overlapping call wrote");
    /* Weights: infinite or NaN, in the last target, so that the first has been seen. */
    memcpy(bad_weights, weights, sizeof bad_weights);
    bad_weights[1] = NAN;
    d = good; d.weights = bad_weights; morph_expect_refusal(d, FK_ERROR_INVALID_WEIGHT, "a NaN weight");
    bad_weights[1] = -INFINITY;
    d = good; d.weights = bad_weights; morph_expect_refusal(d, FK_ERROR_INVALID_WEIGHT, "an infinite weight");
    memcpy(broken, targets, sizeof broken);
    broken[1].indices = bad_indices;
    d = good; d.targets = broken; morph_expect_refusal(d, FK_ERROR_JOINT_OUT_OF_RANGE, "a sparse index past the vertices");
    /* Deltas: NaN, infinite, or finite with a weight that overflows the term. */
    memcpy(bad, dense, sizeof bad);
    bad[11] = NAN;
    memcpy(broken, targets, sizeof broken);
    broken[0].position_deltas = bad;
    d = good; d.targets = broken; morph_expect_refusal(d, FK_ERROR_NOT_FINITE, "a NaN position delta");
    bad[11] = 1.0f; bad[4] = INFINITY;
    broken[0].position_deltas = dense; broken[0].normal_deltas = bad;
    d = good; d.targets = broken; morph_expect_refusal(d, FK_ERROR_NOT_FINITE, "an infinite normal delta");
    bad[4] = 1e30f;
    broken[0].normal_deltas = dense; broken[0].tangent_deltas = bad;
    memcpy(bad_weights, weights, sizeof bad_weights);
    bad_weights[0] = 1e10f;
    d = good; d.targets = broken; d.weights = bad_weights;
    morph_expect_refusal(d, FK_ERROR_NOT_FINITE, "a tangent delta whose term overflows");
    /* ...but a NaN normal delta is fine where normals are not morphed: it is not read. */
    bad[4] = NAN;
    broken[0].tangent_deltas = dense; broken[0].normal_deltas = bad;
    d = good; d.targets = broken; d.normals = NULL; d.out_normals = NULL; d.tangents = NULL; d.out_tangents = NULL;
    CHECK(fk_morph_apply(&d) == FK_OK, "a normal delta was read where no normals are morphed");
}

int main(int argc, char **argv)
{
    if (argc > 1) seed = strtoul(argv[1], NULL, 10);
    printf("   seed %lu (replay: build/test_animation %lu)\n", seed, seed);
    rng_restart();
    /* two-bone IK */
    RUN_TEST(two_bone_worked_example);
    RUN_TEST(two_bone_reaches_reachable_targets);
    RUN_TEST(two_bone_points_straight_at_unreachable_targets);
    RUN_TEST(two_bone_bends_toward_the_pole);
    RUN_TEST(two_bone_default_hinge_is_the_rest_bend_carried_by_mid);
    RUN_TEST(two_bone_moves_continuously_without_flipping);
    RUN_TEST(two_bone_softening_eases_reach_continuously);
    RUN_TEST(two_bone_weight_blends_from_the_current_pose);
    RUN_TEST(two_bone_mid_axis_is_the_hinge);
    RUN_TEST(two_bone_bend_plane_takes_the_hinge_across_the_upper_bone_first);
    RUN_TEST(two_bone_with_scale_worked_example);
    RUN_TEST(two_bone_with_scale_reaches_reachable_targets);
    RUN_TEST(two_bone_with_scale_points_at_unreachable_targets);
    RUN_TEST(two_bone_with_scale_bends_toward_the_pole);
    RUN_TEST(two_bone_with_unit_scales_matches_the_rigid_solve);
    RUN_TEST(two_bone_refuses_bad_input);

    /* aim IK */
    RUN_TEST(aim_turns_forward_onto_the_target_by_hand);
    RUN_TEST(aim_ray_passes_through_the_target);
    RUN_TEST(aim_keeps_the_up_axis_toward_the_pole);
    RUN_TEST(aim_weight_zero_leaves_rotations_bit_for_bit);
    RUN_TEST(aim_weight_scales_the_turn);
    RUN_TEST(aim_chain_shares_the_turn_and_ends_on_target);
    RUN_TEST(aim_with_scale_chain_ends_on_target);
    RUN_TEST(aim_with_scale_keeps_the_up_axis_toward_the_pole);
    RUN_TEST(aim_degenerate_inputs_stay_finite);
    RUN_TEST(aim_refuses_bad_input_without_writing);

    /* root motion */
    RUN_TEST(root_motion_worked_example_walks_and_turns);
    RUN_TEST(root_motion_recombines_to_the_original);
    RUN_TEST(root_motion_takes_only_the_chosen_axes);
    RUN_TEST(yaw_motion_turns_about_up_and_leaves_the_heading);
    RUN_TEST(root_motion_accumulates_over_loops_without_drift);
    RUN_TEST(root_motion_blends_as_poses_blend);
    RUN_TEST(root_motion_refuses_bad_input_without_writing);

    /* interpolation */
    RUN_TEST(step_holds_each_key_until_the_next);
    RUN_TEST(linear_midpoints_are_averages);
    RUN_TEST(cubic_with_zero_tangents_is_smoothstep);
    RUN_TEST(cubic_with_line_slopes_reproduces_the_line);
    RUN_TEST(cubic_hits_its_values_at_keys_and_matches_gltf);
    RUN_TEST(cubic_rotations_are_unit_and_follow_the_curve);
    RUN_TEST(cursor_gives_the_same_bits_as_no_cursor);
    RUN_TEST(forward_playback_reads_only_the_keys_at_the_cursor);
    RUN_TEST(morph_weights_sample_like_separate_tracks);
    RUN_TEST(linear_keeps_the_old_samplers_bits);
    RUN_TEST(track_evaluation_refuses_bad_input);

    /* morph targets */
    RUN_TEST(morph_worked_example_on_a_triangle);
    RUN_TEST(morph_zero_weights_give_the_base_bits);
    RUN_TEST(morph_one_target_at_weight_one_adds_its_delta);
    RUN_TEST(morph_is_base_plus_weighted_deltas);
    RUN_TEST(morph_sparse_equals_dense);
    RUN_TEST(morph_in_place_equals_out_of_place);
    RUN_TEST(morph_directions_are_unit_and_tangent_w_is_kept);
    RUN_TEST(morph_to_zero_length_keeps_the_base_direction);
    RUN_TEST(morph_weight_zero_targets_are_not_read);
    RUN_TEST(morph_then_identity_skinning_is_the_morph);
    RUN_TEST(morph_then_skinning_is_skinning_the_morphed_mesh);
    RUN_TEST(morph_refuses_bad_input_and_writes_nothing);

    return check_finish();
}
