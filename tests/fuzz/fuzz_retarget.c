/* fuzz_retarget.c - libFuzzer target for retargeting: fk_retarget_init() over
   two fuzzed rigs and a fuzzed map, fk_retarget_pose() over a fuzzed pose, and
   fk_retarget_map_names() over fuzzed names.

   The first byte picks the function family; the rest becomes its arguments.
   Every array is an exactly sized heap block, so AddressSanitizer sees any read
   or write one element past it.

   Retarget: joint counts (zero, small, negative, huge), parent arrays of any
   ints (cycles, self parents, out of range), either form (rest rotations or
   none), a reference or none, rotations and positions with special numbers,
   map entries and root joints of any int, any root scale and axis option;
   then fk_retarget_foot() on the pose with fuzzed leg joints and source
   positions.
   Invariants:
     - on error neither the retarget nor its storage is written; on FK_OK both
       rigs' parent arrays are valid, every map entry is -1 or a source joint,
       both roots are roots, the scale is positive and finite, and every stored
       rotation is unit;
     - fk_retarget_pose() on error writes nothing; on FK_OK every output
       rotation and every source world rotation is unit, an unmapped joint's is its stored posture rotation bit
       for bit, and the root translation is finite;
     - fk_retarget_foot() on error writes nothing; on FK_OK it changes only
       the leg's start and mid rotations;
     - the inputs are never modified.

   Names: counts of any int, names from a small alphabet of letters, digits,
   ':', '|', ' ' and '_' (so prefixes and namespaces occur), some NULL.
   Invariants: a negative count is FK_ERROR_INVALID_COUNT and writes nothing;
   every entry is -1 or a source index whose name is not NULL; a target whose
   name occurs among the sources exactly maps to its first occurrence; the
   unmapped count is the number of -1 entries; the names are not modified. */
#include "fk_lbs.h" /* declarations: the library is tests/fk_lbs_impl.c */
#include "fuzz_input.h"

#define MAX_JOINTS 24
#define MAX_NAME 12

typedef struct fuzz_rig {
    int *parents;
    fk_vec3 *rest;
    fk_quat *rest_rotations, *reference;
} fuzz_rig;

static void make_rig(fuzz_input *in, int n, fk_retarget_rig *rig, fuzz_rig *arrays)
{
    uint8_t flags = fuzz_byte(in);
    int i;
    size_t count = n > 0 ? (size_t)n : 0;
    arrays->parents = (int *)fuzz_alloc(count * sizeof(int));
    arrays->rest = (fk_vec3 *)fuzz_alloc(count * sizeof(fk_vec3));
    arrays->rest_rotations = (fk_quat *)fuzz_alloc(count * sizeof(fk_quat));
    arrays->reference = (fk_quat *)fuzz_alloc(count * sizeof(fk_quat));
    for (i = 0; i < n; ++i) {
        arrays->parents[i] = fuzz_int(in, n + 1, -1);
        arrays->rest[i] = fk_vec3_make(fuzz_float(in), fuzz_float(in), fuzz_float(in));
        arrays->rest_rotations[i] = fk_quat_make(fuzz_float(in), fuzz_float(in), fuzz_float(in), fuzz_float(in));
        arrays->reference[i] = fk_quat_make(fuzz_float(in), fuzz_float(in), fuzz_float(in), fuzz_float(in));
    }
    memset(rig, 0, sizeof *rig);
    rig->joint_count = n;
    rig->parents = (flags & 8) ? NULL : arrays->parents;
    rig->rest_positions = arrays->rest;
    rig->rest_rotations = (flags & 1) ? arrays->rest_rotations : NULL;
    rig->reference = (flags & 2) ? arrays->reference : NULL;
    rig->root = fuzz_int(in, n + 1, 0);
}

static void free_rig(fuzz_rig *arrays)
{
    free(arrays->parents);
    free(arrays->rest);
    free(arrays->rest_rotations);
    free(arrays->reference);
}

static int is_unit(fk_quat q)
{
    double n2 = (double)q.x * (double)q.x + (double)q.y * (double)q.y + (double)q.z * (double)q.z + (double)q.w * (double)q.w;
    return fabs(n2 - 1.0) < 1e-5;
}

/* fk_retarget_foot() on the retargeted pose: fuzzed source positions and leg
   joints, the target posed in its form. On error neither the rotations nor
   reached is written; on FK_OK only the start and mid joints' rotations. */
static void fuzz_foot(fuzz_input *in, const fk_retarget *rt, const fk_retarget_desc *desc, int ns, int nt,
                      const fk_quat *pose, fk_vec3 root)
{
    fk_vec3 *positions = (fk_vec3 *)fuzz_alloc((size_t)ns * sizeof(fk_vec3));
    fk_vec3 *local = (fk_vec3 *)fuzz_alloc((size_t)nt * sizeof(fk_vec3));
    fk_rigid *transforms = (fk_rigid *)fuzz_alloc((size_t)nt * sizeof(fk_rigid));
    float *matrices = (float *)fuzz_alloc((size_t)nt * 12 * sizeof(float));
    fk_quat *rotations = (fk_quat *)fuzz_alloc((size_t)nt * sizeof(fk_quat));
    fk_ik_two_bone_desc leg;
    int i, reached = 7;
    fk_result result;
    for (i = 0; i < ns; ++i) positions[i] = fk_vec3_make(fuzz_float(in), fuzz_float(in), fuzz_float(in));
    memcpy(rotations, pose, (size_t)nt * sizeof(fk_quat));
    memset(&leg, 0, sizeof leg);
    leg.start = fuzz_int(in, nt + 2, -1);
    leg.mid = fuzz_int(in, nt + 2, -1);
    leg.end = fuzz_int(in, nt + 2, -1);
    if (desc->target.rest_rotations) {
        memcpy(local, desc->target.rest_positions, (size_t)nt * sizeof(fk_vec3));
        local[desc->target.root] = root;
        fk_forward_trs(nt, desc->target.parents, local, pose, NULL, matrices);
        leg.matrices = matrices;
    } else {
        memset(local, 0, (size_t)nt * sizeof(fk_vec3));
        local[desc->target.root] = root;
        fk_forward(nt, desc->target.parents, desc->target.rest_positions, pose, local, transforms);
        leg.rest_joints = desc->target.rest_positions;
        leg.transforms = transforms;
    }
    result = fk_retarget_foot(rt, positions, &leg, 1.0f, rotations, &reached);
    if (result != FK_OK) {
        FUZZ_REQUIRE(!memcmp(rotations, pose, (size_t)nt * sizeof(fk_quat)) && reached == 7,
                     "foot wrote on error %d", (int)result);
    } else {
        FUZZ_REQUIRE(reached == 0 || reached == 1, "reached %d", reached);
        for (i = 0; i < nt; ++i)
            FUZZ_REQUIRE(i == leg.start || i == leg.mid || !memcmp(&rotations[i], &pose[i], sizeof pose[i]),
                         "foot changed joint %d, not in the leg", i);
    }
    free(positions);
    free(local);
    free(transforms);
    free(matrices);
    free(rotations);
}

static void fuzz_retarget(fuzz_input *in)
{
    int ns = fuzz_int(in, MAX_JOINTS + 1, 0), nt = fuzz_int(in, MAX_JOINTS + 1, 0), i, k;
    fk_retarget_desc desc;
    fuzz_rig s, t;
    fk_retarget rt, rt_before;
    int *map, *ints, *ints_before;
    fk_quat *quats, *quats_before, *pose, *world, *world_before, *out, *out_before;
    fk_vec3 root = fk_vec3_make(fuzz_float(in), fuzz_float(in), fuzz_float(in)), out_root, out_root_before;
    size_t int_count, quat_count, source_count;
    fk_result result;
    if (ns > MAX_JOINTS || nt > MAX_JOINTS) return; /* a huge count: only the checks would run */
    memset(&desc, 0, sizeof desc);
    make_rig(in, ns, &desc.source, &s);
    make_rig(in, nt, &desc.target, &t);
    int_count = nt > 0 && ns > 0 ? (size_t)FK_RETARGET_INT_STORAGE(ns, nt) : 0;
    quat_count = nt > 0 ? (size_t)FK_RETARGET_QUAT_STORAGE(nt) : 0;
    source_count = ns > 0 ? (size_t)ns : 0;
    map = (int *)fuzz_alloc(quat_count * sizeof(int));
    for (i = 0; i < nt; ++i) map[i] = fuzz_int(in, ns + 2, -1);
    desc.map = map;
    desc.root_scale = (fuzz_byte(in) & 1) ? fuzz_float(in) : 0.0f;
    for (k = 0; k < 3; ++k) desc.root_axes[k] = (fk_retarget_axis)fuzz_int(in, 4, 0);
    ints = (int *)fuzz_alloc(int_count * sizeof(int));
    ints_before = (int *)fuzz_alloc(int_count * sizeof(int));
    quats = (fk_quat *)fuzz_alloc(quat_count * sizeof(fk_quat));
    quats_before = (fk_quat *)fuzz_alloc(quat_count * sizeof(fk_quat));
    memset(&rt, 0xA5, sizeof rt);
    rt_before = rt;
    {
        /* copies of the inputs, to show they are not modified */
        fk_retarget_desc copy = desc;
        int *map_copy = (int *)fuzz_alloc(quat_count * sizeof(int));
        memcpy(map_copy, map, quat_count * sizeof(int));
        result = fk_retarget_init(&rt, &desc, ints, quats);
        FUZZ_REQUIRE(!memcmp(&copy, &desc, sizeof desc) && !memcmp(map_copy, map, quat_count * sizeof(int)),
                     "init modified its description");
        free(map_copy);
    }
    if (result != FK_OK) {
        FUZZ_REQUIRE(!memcmp(&rt, &rt_before, sizeof rt) && !memcmp(ints, ints_before, int_count * sizeof(int)) &&
                         !memcmp(quats, quats_before, quat_count * sizeof(fk_quat)),
                     "init wrote on error %d", (int)result);
        goto done;
    }
    FUZZ_REQUIRE(desc.source.parents && desc.target.parents, "accepted a NULL parent array");
    FUZZ_REQUIRE(fk_validate_skeleton(ns, s.parents) == FK_OK && fk_validate_skeleton(nt, t.parents) == FK_OK,
                 "accepted a bad parent array");
    FUZZ_REQUIRE(ns >= 1 && nt >= 1, "accepted an empty rig");
    FUZZ_REQUIRE(desc.source.root >= 0 && desc.source.root < ns && s.parents[desc.source.root] < 0 &&
                     desc.target.root >= 0 && desc.target.root < nt && t.parents[desc.target.root] < 0,
                 "accepted a root-motion joint that is not a root");
    FUZZ_REQUIRE(rt.root_scale > 0.0f && fuzz_is_finite(rt.root_scale), "scale %g", (double)rt.root_scale);
    for (i = 0; i < nt; ++i) {
        FUZZ_REQUIRE(map[i] >= -1 && map[i] < ns && rt.map[i] == map[i], "map entry %d: %d", i, map[i]);
        FUZZ_REQUIRE(is_unit(quats[i]), "stored rotation %d not unit", i);
    }

    pose = (fk_quat *)fuzz_alloc(source_count * sizeof(fk_quat));
    world = (fk_quat *)fuzz_alloc(source_count * sizeof(fk_quat));
    world_before = (fk_quat *)fuzz_alloc(source_count * sizeof(fk_quat));
    out = (fk_quat *)fuzz_alloc(quat_count * sizeof(fk_quat));
    out_before = (fk_quat *)fuzz_alloc(quat_count * sizeof(fk_quat));
    for (i = 0; i < ns; ++i) pose[i] = fk_quat_make(fuzz_float(in), fuzz_float(in), fuzz_float(in), fuzz_float(in));
    memset(&out_root, 0xA5, sizeof out_root);
    out_root_before = out_root;
    result = fk_retarget_pose(&rt, pose, root, world, out, &out_root);
    if (result != FK_OK) {
        FUZZ_REQUIRE(!memcmp(out, out_before, quat_count * sizeof(fk_quat)) &&
                         !memcmp(world, world_before, source_count * sizeof(fk_quat)) &&
                         !memcmp(&out_root, &out_root_before, sizeof out_root),
                     "pose wrote on error %d", (int)result);
    } else {
        for (i = 0; i < ns; ++i)
            FUZZ_REQUIRE(fuzz_rotation_badness(pose[i].x, pose[i].y, pose[i].z, pose[i].w) != 1,
                         "accepted source rotation %d", i);
        FUZZ_REQUIRE(fuzz_is_finite(out_root.x) && fuzz_is_finite(out_root.y) && fuzz_is_finite(out_root.z),
                     "root translation not finite");
        for (i = 0; i < ns; ++i) FUZZ_REQUIRE(is_unit(world[i]), "source world rotation %d not unit", i);
        for (i = 0; i < nt; ++i) {
            FUZZ_REQUIRE(is_unit(out[i]), "output rotation %d not unit", i);
            FUZZ_REQUIRE(map[i] >= 0 || !memcmp(&out[i], &quats[i], sizeof out[i]),
                         "unmapped joint %d lost its posture rotation", i);
        }
        fuzz_foot(in, &rt, &desc, ns, nt, out, out_root);
    }
    free(pose);
    free(world);
    free(world_before);
    free(out);
    free(out_before);
done:
    free(map);
    free(ints);
    free(ints_before);
    free(quats);
    free(quats_before);
    free_rig(&s);
    free_rig(&t);
}

static char **make_names(fuzz_input *in, int n)
{
    static const char alphabet[] = "HipsBpi01 :|_Armxoghead";
    char **names = (char **)fuzz_alloc((size_t)n * sizeof(char *));
    int i, k;
    for (i = 0; i < n; ++i) {
        int length = fuzz_int(in, MAX_NAME + 2, -1);
        if (length < 0 || length > MAX_NAME) {
            names[i] = NULL;
            continue;
        }
        names[i] = (char *)fuzz_alloc((size_t)length + 1);
        for (k = 0; k < length; ++k) names[i][k] = alphabet[fuzz_byte(in) % (sizeof alphabet - 1)];
        names[i][length] = '\0';
    }
    return names;
}

static void free_names(char **names, int n)
{
    int i;
    for (i = 0; i < n; ++i) free(names[i]);
    free(names);
}

static void fuzz_names(fuzz_input *in)
{
    int nt = fuzz_int(in, MAX_JOINTS + 1, 0), ns = fuzz_int(in, MAX_JOINTS + 1, 0), i, j, unmapped = -7, count = 0;
    char **target, **source;
    int *map;
    fk_result result;
    if (nt > MAX_JOINTS || ns > MAX_JOINTS) return;
    target = make_names(in, nt > 0 ? nt : 0);
    source = make_names(in, ns > 0 ? ns : 0);
    map = (int *)fuzz_alloc((size_t)(nt > 0 ? nt : 0) * sizeof(int));
    result = fk_retarget_map_names(nt, (const char *const *)target, ns, (const char *const *)source, map, &unmapped);
    if (nt < 0 || ns < 0) {
        FUZZ_REQUIRE(result == FK_ERROR_INVALID_COUNT && unmapped == -7, "negative count: %d", (int)result);
    } else {
        FUZZ_REQUIRE(result == FK_OK, "names: %d", (int)result);
        for (i = 0; i < nt; ++i) {
            int first = -1;
            FUZZ_REQUIRE(map[i] >= -1 && map[i] < ns, "entry %d: %d", i, map[i]);
            FUZZ_REQUIRE(map[i] < 0 || (target[i] && source[map[i]]), "entry %d maps a NULL name", i);
            for (j = 0; j < ns && first < 0 && target[i]; ++j)
                if (source[j] && !strcmp(source[j], target[i])) first = j;
            FUZZ_REQUIRE(first < 0 || map[i] == first, "entry %d: %d, exact match %d", i, map[i], first);
            count += map[i] < 0;
        }
        FUZZ_REQUIRE(unmapped == count, "unmapped %d, counted %d", unmapped, count);
    }
    free(map);
    free_names(target, nt > 0 ? nt : 0);
    free_names(source, ns > 0 ? ns : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in;
    in.data = data; in.size = size; in.used = 0;
    if (fuzz_byte(&in) & 1) fuzz_names(&in);
    else fuzz_retarget(&in);
    return 0;
}
