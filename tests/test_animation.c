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

/* ---- Aim IK ----------------------------------------------------------------------- */

#include <float.h> /* FLT_EPSILON, FLT_MAX */

#define AIM_MAX_JOINTS 24
#define AIM_TRIALS 400

/* Rounding budget for a posed point: each joint of fk_forward()'s chain, the
   solve and the re-posing each cost a few float roundings of the largest length
   involved, so the error is a small multiple of (depth + a constant) ulps of the
   sum of lengths along the path; 8 roundings a joint and 32 for the solve are
   generous counts of the operations, not a fit to observed errors. */
static float aim_tolerance(int depth, float size) { return (8.0f * (float)depth + 32.0f) * FLT_EPSILON * size; }

/* A random forest whose joints are listed in random order. */
static void aim_random_tree(int n, int *parents)
{
    int topological[AIM_MAX_JOINTS], order[AIM_MAX_JOINTS], i;
    for (i = 0; i < n; ++i) {
        topological[i] = i == 0 || rng_below(10) == 0 ? -1 : rng_below(i);
        order[i] = i;
    }
    for (i = n - 1; i > 0; --i) {
        int j = rng_below(i + 1), swap = order[i];
        order[i] = order[j]; order[j] = swap;
    }
    for (i = 0; i < n; ++i) parents[order[i]] = topological[i] < 0 ? -1 : order[topological[i]];
}

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
    aim_random_tree(r->n, r->parents);
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
static void aim_ray(const aim_rig *r, const fk_rigid *transforms, int joint, const fk_aim_desc *aim, fk_vec3 *origin,
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

static fk_aim_desc aim_random_desc(int with_offset, int with_up)
{
    fk_aim_desc aim;
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
    fk_aim_desc aim;
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
        fk_aim_desc aim;
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
        fk_aim_desc aim = aim_random_desc(trial % 3 != 0, 1);
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
        fk_aim_desc aim = aim_random_desc(1, 1);
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
        fk_aim_desc aim = aim_random_desc(trial % 3 != 0, trial % 2 == 0);
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
static void aim_turn_one_joint(aim_rig *r, const fk_rigid *posed, int joint, int last, const fk_aim_desc *aim,
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
        fk_aim_desc aim = aim_random_desc(trial % 3 != 0, trial % 2 == 0);
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
    fk_aim_desc aim;
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
    fk_aim_desc aim, bad;
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
#undef AIM_REFUSES
    /* And the good calls these were variations of succeed. */
    CHECK(fk_ik_aim_chain(3, chain3, rest, bones, FK_FRAME_PARENT, 2, good_chain, good_weights, &aim, target, turns, &reached) == FK_OK &&
              reached == 1, "the good chain failed");
}

/* ---- Root motion ------------------------------------------------------------------ */

/* ---- Interpolation ---------------------------------------------------------------- */

/* ---- Morph targets ---------------------------------------------------------------- */

int main(int argc, char **argv)
{
    if (argc > 1) seed = strtoul(argv[1], NULL, 10);
    printf("   seed %lu (replay: build/test_animation %lu)\n", seed, seed);
    rng_restart();
    /* two-bone IK */

    /* aim IK */
    RUN_TEST(aim_turns_forward_onto_the_target_by_hand);
    RUN_TEST(aim_ray_passes_through_the_target);
    RUN_TEST(aim_keeps_the_up_axis_toward_the_pole);
    RUN_TEST(aim_weight_zero_leaves_rotations_bit_for_bit);
    RUN_TEST(aim_weight_scales_the_turn);
    RUN_TEST(aim_chain_shares_the_turn_and_ends_on_target);
    RUN_TEST(aim_degenerate_inputs_stay_finite);
    RUN_TEST(aim_refuses_bad_input_without_writing);

    /* root motion */

    /* interpolation */

    /* morph targets */

    return check_finish();
}
