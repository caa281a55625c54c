/* test_animation.c - the animation toolkit: two-bone and aim IK, root motion,
   every glTF interpolation, and morph targets before skinning.

   Randomized tests draw from one seed, printed in every failure message with the
   command that replays it: build/test_animation SEED. */
#include "fk_lbs.h" /* declarations: the library is tests/fk_lbs_impl.c */
#include "check.h"
#include "test_random.h"

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
#define TB_EPSILON 1.1920929e-7f /* FLT_EPSILON: float's ulp at 1 */

static float tb_distance(fk_vec3 a, fk_vec3 b) { return fk_vec3_length(fk_vec3_sub(a, b)); }

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
           chain's three rigidly (see fk_two_bone_ik()'s remark). */
        r->turns[order[i]] = frame == FK_FRAME_REST && i > start && i < path - 1 && i != mid ? fk_quat_identity()
                                                                                            : random_quat();
    }
    r->start = order[start]; r->mid = order[mid]; r->end = order[path - 1];
    tb_forward(r);
}

static fk_two_bone_ik_desc tb_desc(const tb_rig *r, fk_vec3 target)
{
    fk_two_bone_ik_desc d;
    memset(&d, 0, sizeof d);
    d.joint_count = r->n; d.parents = r->parents; d.rest_joints = r->rest; d.transforms = r->transforms;
    d.frame = r->frame; d.start = r->start; d.mid = r->mid; d.end = r->end; d.target = target;
    return d;
}

/* The posed bone lengths, which the solve keeps. */
static float tb_reach(const tb_rig *r)
{
    return tb_distance(tb_joint(r, r->mid), tb_joint(r, r->start)) +
           tb_distance(tb_joint(r, r->end), tb_joint(r, r->mid));
}

/* Rounding bound for a position after the solve and forward kinematics: a few
   dozen float operations per joint down a chain of at most 12, on coordinates of
   size at most `size`, each within half an ulp; 256 ulps of `size` covers them. */
static float tb_tolerance(float size) { return 256.0f * TB_EPSILON * size; }

static float tb_size(const tb_rig *r, fk_vec3 target)
{
    return fk_vec3_length(tb_joint(r, r->start)) + fk_vec3_length(target) + tb_reach(r);
}

static fk_result tb_solve(tb_rig *r, const fk_two_bone_ik_desc *d, float weight, int *reached)
{
    fk_result result = fk_two_bone_ik(d, weight, r->turns, reached);
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
        fk_two_bone_ik_desc d;
        int reached = -1;
        const float tolerance = 8.0f * TB_EPSILON; /* a handful of roundings on unit-sized values */
        memset(&d, 0, sizeof d);
        turns[0] = turns[1] = turns[2] = fk_quat_identity();
        fk_forward(3, parents, rest, turns, NULL, bones); /* both frames agree at the identity */
        d.joint_count = 3; d.parents = parents; d.rest_joints = rest; d.transforms = bones;
        d.frame = f ? FK_FRAME_REST : FK_FRAME_PARENT; d.start = 0; d.mid = 1; d.end = 2;
        d.target = fk_vec3_make(sqrtf(3.0f), 0.0f, 0.0f);
        CHECK(fk_two_bone_ik(&d, 1.0f, turns, &reached) == FK_OK && reached == 1, "reachable target not reached");
        CHECK(tb_quat_distance(turns[0], expected) < tolerance && tb_quat_distance(turns[1], expected) < tolerance,
              "rotations (%g %g %g %g) (%g %g %g %g), expected (0 0 %g %g) for both (frame %d)", turns[0].x, turns[0].y,
              turns[0].z, turns[0].w, turns[1].x, turns[1].y, turns[1].z, turns[1].w, expected.z, expected.w, f);
        CHECK(memcmp(&turns[2], &bones[2].q, sizeof turns[2]) == 0, "the end joint's rotation was written");
        turns[0] = turns[1] = fk_quat_identity();
        d.target = fk_vec3_make(5.0f, 0.0f, 0.0f);
        CHECK(fk_two_bone_ik(&d, 1.0f, turns, &reached) == FK_OK && reached == 0, "unreachable target reported reached");
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
        fk_two_bone_ik_desc d;
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
        fk_two_bone_ik_desc d;
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
        fk_two_bone_ik_desc d;
        float a, b, distance, size, sine;
        tb_random_rig(&r, trial % 2 ? FK_FRAME_REST : FK_FRAME_PARENT);
        s = tb_joint(&r, r.start);
        a = tb_distance(tb_joint(&r, r.mid), s);
        b = tb_distance(tb_joint(&r, r.end), tb_joint(&r, r.mid));
        /* Strictly inside the reach, so that the chain bends. */
        distance = fabsf(a - b) + (a + b - fabsf(a - b)) * rng_uniform(0.1f, 0.9f);
        u = fk_vec3_normalize(random_vec3(1.0f));
        target = fk_vec3_add(s, fk_vec3_scale(u, distance));
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
        fk_two_bone_ik_desc d;
        float a, b, distance, size, sine;
        tb_random_rig(&r, trial % 2 ? FK_FRAME_REST : FK_FRAME_PARENT);
        s = tb_joint(&r, r.start);
        a = tb_distance(tb_joint(&r, r.mid), s);
        b = tb_distance(tb_joint(&r, r.end), tb_joint(&r, r.mid));
        distance = fabsf(a - b) + (a + b - fabsf(a - b)) * rng_uniform(0.1f, 0.9f);
        u = fk_vec3_normalize(random_vec3(1.0f));
        target = fk_vec3_add(s, fk_vec3_scale(u, distance));
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

static fk_two_bone_ik_desc tb_arm_desc(const fk_vec3 *rest, const fk_rigid *bones, fk_rotation_frame frame,
                                       fk_vec3 target)
{
    fk_two_bone_ik_desc d;
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
                fk_two_bone_ik_desc d;
                tb_arm_forward(tb_arm_rest, turns, frame, bones);
                d = tb_arm_desc(tb_arm_rest, bones, frame, target);
                CHECK(fk_two_bone_ik(&d, 1.0f, turns, NULL) == FK_OK, "failed");
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
            fk_two_bone_ik_desc d;
            float reach, sine;
            int reached = -1;
            turns[0] = turns[1] = turns[2] = fk_quat_identity();
            tb_arm_forward(tb_arm_rest, turns, frame, bones);
            d = tb_arm_desc(tb_arm_rest, bones, frame, fk_vec3_scale(direction, distance));
            d.soften = 0.1f;
            CHECK(fk_two_bone_ik(&d, 1.0f, turns, &reached) == FK_OK, "failed");
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
        fk_two_bone_ik_desc d;
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
        CHECK(fk_two_bone_ik(&d, 0.0f, none, &reached) == FK_OK && reached == 0, "weight 0 failed or reached (seed %lu)", seed);
        CHECK(memcmp(none, r.turns, sizeof none) == 0, "weight 0 changed the rotations (seed %lu)", seed);
        CHECK(fk_two_bone_ik(&d, 1.0f, full, NULL) == FK_OK && fk_two_bone_ik(&d, weight, part, NULL) == FK_OK, "failed");
        for (j = 0; j < 2; ++j) {
            const int joint = j ? r.mid : r.start;
            /* Slerp's own rounding, a few ulps of unit components, on both sides. */
            fk_quat expected = fk_quat_slerp(fk_quat_normalize(r.turns[joint]), full[joint], weight);
            CHECK(tb_quat_distance(part[joint], expected) <= 16.0f * TB_EPSILON,
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
            fk_two_bone_ik_desc d;
            int reached = -1;
            turns[0] = turns[1] = turns[2] = fk_quat_identity();
            tb_arm_forward(rest, turns, frame, bones);
            d = tb_arm_desc(rest, bones, frame, fk_vec3_make(1.2f, 0.6f, 0.4f));
            d.mid_axis = &axis;
            CHECK(fk_two_bone_ik(&d, 1.0f, turns, &reached) == FK_OK && reached == 1, "failed or not reached");
            tb_arm_forward(rest, turns, frame, bones);
            fk_posed_joints(3, rest, bones, points);
            normal = fk_vec3_normalize(fk_vec3_cross(points[1], fk_vec3_sub(points[2], points[1])));
            carried = fk_quat_rotate(bones[1].q, axis);
            CHECK(tb_distance(normal, carried) <= 16.0f * TB_EPSILON, "bend normal (%g %g %g), axis carried to (%g %g %g) (frame %d)",
                  normal.x, normal.y, normal.z, carried.x, carried.y, carried.z, f);
        }
}

/* Calls with bad input and checks the code, and that nothing was written. */
static void tb_refused(const fk_two_bone_ik_desc *d, float weight, fk_result expected, const char *what)
{
    fk_quat turns[4], before[4];
    int i, reached = -7;
    for (i = 0; i < 4; ++i) turns[i] = before[i] = fk_quat_make(0.1f * (float)i, 0.2f, 0.3f, 0.9f);
    CHECK(fk_two_bone_ik(d, weight, turns, &reached) == expected, "%s: %s instead of %s", what,
          fk_result_description(fk_two_bone_ik(d, weight, turns, &reached)), fk_result_description(expected));
    if (expected != FK_OK) CHECK(memcmp(turns, before, sizeof turns) == 0 && reached == -7, "%s: wrote on error", what);
}

static void two_bone_refuses_bad_input(void)
{
    const int parents[4] = {-1, 0, 1, 0}, cycle[4] = {-1, 2, 1, 0}, far_parent[4] = {-1, 0, 9, 0}, self[4] = {-1, 0, 2, 0};
    const float nan = (float)NAN, inf = (float)INFINITY;
    fk_vec3 rest[4] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}, point = {1, 1, 1}, bad_point = {0, nan, 0};
    fk_rigid bones[4];
    fk_quat turns[4] = {{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}};
    fk_two_bone_ik_desc good, d;
    fk_forward(4, parents, rest, turns, NULL, bones);
    memset(&good, 0, sizeof good);
    good.joint_count = 4; good.parents = parents; good.rest_joints = rest; good.transforms = bones;
    good.start = 0; good.mid = 1; good.end = 2; good.target = fk_vec3_make(1.5f, 0.2f, 0.0f);
    tb_refused(&good, 1.0f, FK_OK, "sound input"); /* the harness itself: this one writes */
    tb_refused(NULL, 1.0f, FK_ERROR_NULL_ARGUMENT, "no descriptor");
    CHECK(fk_two_bone_ik(&good, 1.0f, NULL, NULL) == FK_ERROR_NULL_ARGUMENT, "no rotations accepted");
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
        CHECK(fk_two_bone_ik(&good, 1.0f, zero, &reached) == FK_ERROR_INVALID_ROTATION, "zero start rotation accepted");
        CHECK(memcmp(zero, copy, sizeof copy) == 0 && reached == -7, "a zero rotation: wrote on error");
    }
    tb_refused(&good, 1.0f, FK_OK, "sound input after the edits");
}

/* ---- Aim IK ----------------------------------------------------------------------- */

/* ---- Root motion ------------------------------------------------------------------ */

/* ---- Interpolation ---------------------------------------------------------------- */

/* ---- Morph targets ---------------------------------------------------------------- */

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
    RUN_TEST(two_bone_refuses_bad_input);

    /* aim IK */

    /* root motion */

    /* interpolation */

    /* morph targets */

    return check_finish();
}
