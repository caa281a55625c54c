#!/usr/bin/env bash
# mutants.sh - do the tests catch real bugs? Each mutant below is one deliberate
# bug: a name, the exact text of fk_lbs.h to find (it must occur exactly once, so
# an entry the header has outgrown fails loudly instead of testing nothing) and
# its replacement. For each mutant a copy of the header is edited, the property
# tests (and tests/test_core.c, if present) are rebuilt against the copy and run,
# or, for a mutant in a SIMD loop, tests/test_simd.c; the mutant is killed when
# any of them fails or crashes. The real header is left alone. Prints "mutants: K
# killed of N" (and how many were skipped because this CPU does not run their
# loop); exits non-zero unless all that ran were killed. A few mutants in the
# SSE2 forward kinematics are judged by the property and bad-input tests built
# with SIMD.
#
#   tests/mutants.sh [NAME...]      all mutants, or only those named
#   MUTANT_SEED, MUTANT_CASES       the property tests' seed and cases per property
#   MUTANT_VERBOSE=1                also show which case caught each mutant
#   MUTANT_SHARD=I/N                only every N-th mutant from the I-th (0 to N-1),
#                                   so that N runs side by side share the work
#   MUTANT_SKIP_BASELINE=1          do not first check that the tests pass on the
#                                   unmodified header (CI: make test and make
#                                   sanitize have just run them, and failed the run
#                                   if they failed)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cc=${CC:-cc}
seed=${MUTANT_SEED:-0x6d7574616e7473}
cases=${MUTANT_CASES:-1000}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/include"

names=(); finds=(); replacements=(); needs=(); flags=(); judges=()
mutant() { names+=("$1"); finds+=("$2"); replacements+=("$3"); needs+=(""); flags+=(""); judges+=(""); }
# simd_mutant NAME NEEDS FLAGS FIND REPLACEMENT: a bug in a SIMD loop, which
# tests/test_simd.c (built without FK_LBS_NO_SIMD, with FLAGS to pick the loop)
# must catch. NEEDS is what the CPU must have for that loop to run: avx512, avx2
# or x86-64; on a CPU without it the mutant is skipped and said to be. NEEDS
# gcc-avx512 builds test_simd with gcc whatever CC is, for a bug that only gcc's
# code shows. FLAGS come after the optimization level, so an -O there wins.
simd_mutant() { names+=("$1"); needs+=("$2"); flags+=("$3"); finds+=("$4"); replacements+=("$5"); judges+=(test_simd); }
# sse_fk_mutant NAME FIND REPLACEMENT: a bug in the SSE2 forward kinematics (the
# parents-first pass on x86-64), which the property and bad-input tests, built
# with SIMD, must catch.
sse_fk_mutant() {
    # FK_LBS_NO_AVX2: the pass is SSE2 either way, and without the AVX2 and
    # AVX-512 skinning loops the two programs compile in a fraction of the time.
    names+=("$1"); needs+=(x86-64); flags+=(-DFK_LBS_NO_AVX2); finds+=("$2"); replacements+=("$3")
    judges+=("test_properties test_bad_input")
}
# neon_mutant NAME FIND REPLACEMENT: a bug in a NEON loop (64-bit Arm), which
# tests/test_simd.c must catch: built with aarch64-linux-gnu-gcc and run under
# qemu-aarch64 on an x86-64 host (what tests/arm64.sh uses), natively on Arm.
neon_mutant() { names+=("$1"); needs+=(arm64); flags+=(""); finds+=("$2"); replacements+=("$3"); judges+=(test_simd); }
# avx2_skin_mutant NAME FIND REPLACEMENT: a bug in the AVX2 skinning loops
# that test_simd's layouts cannot show and the property tests' can (built with
# FK_LBS_NO_AVX512, so that they run the AVX2 loops).
avx2_skin_mutant() {
    names+=("$1"); needs+=(avx2); flags+=(-DFK_LBS_NO_AVX512); finds+=("$2"); replacements+=("$3")
    judges+=("test_simd test_properties")
}
# avx2_fk_mutant NAME FIND REPLACEMENT: a bug in the AVX2 forward kinematics
# (the parents-first pass where the CPU has AVX2), which the same tests must
# catch (FK_LBS_NO_AVX512 for the compile time, as above).
avx2_fk_mutant() {
    names+=("$1"); needs+=(avx2); flags+=(-DFK_LBS_NO_AVX512); finds+=("$2"); replacements+=("$3")
    judges+=("test_properties test_bad_input")
}

# ---- Forward kinematics -------------------------------------------------------

# The SSE2 pass tests only its results for finiteness (a bad rest position or
# translation reaches the same coordinate of t); testing one lane misses y and z.
sse_fk_mutant sse_fk_finite_x_only \
'if (_mm_movemask_ps(_mm_cmpneq_ps(not_finite, _mm_setzero_ps())) & 7) return 0;' \
'if (_mm_movemask_ps(_mm_cmpneq_ps(not_finite, _mm_setzero_ps())) & 1) return 0;'

# The SSE2 joint transform takes its rotation halved: a root must double it, and
# below a root the factor is 3 - |Q_p|^2, not its half.
sse_fk_mutant sse_fk_root_rotation_halved \
'        q = _mm_add_ps(half_q, half_q);' \
'        q = half_q;'

sse_fk_mutant sse_fk_factor_halved_again \
'    return _mm_sub_ps(_mm_set1_ps(3.0f), norm2);' \
'    return _mm_mul_ps(_mm_set1_ps(0.5f), _mm_sub_ps(_mm_set1_ps(3.0f), norm2));'

# The first 256 joints read their parents from aligned copies, the others from
# out[] (the property tests' skeletons have up to 4096 joints).
sse_fk_mutant sse_fk_near_copy_misread \
'                parent_t = near_t[parent];' \
'                parent_t = near_q[parent];'

sse_fk_mutant sse_fk_far_parent_misread \
'                parent_t = fk__load3_sse(&out[parent].t);' \
'                parent_t = fk__load3_sse(&out[parent / 2].t);'

# A joint right after its parent takes the parent's transform from registers.
sse_fk_mutant sse_fk_previous_joint_misread \
'                parent_t = t;' \
'                parent_t = q;'

# The rotations' normalization factors are computed ahead, four at a time: a
# joint reading another's factor, the last group's lanes shifted, or a rotation
# that cannot be normalized let through (a |q|^2 below FLT_MIN or infinite,
# which the general path reports as FK_ERROR_INVALID_ROTATION).
sse_fk_mutant sse_fk_factor_of_neighbour \
'_mm_set1_ps(half_unit_factors[i - batch])' \
'_mm_set1_ps(half_unit_factors[(i - batch) ^ 1])'

sse_fk_mutant sse_fk_last_factors_shifted \
'fk__half_unit_factors_sse(a, b, c, c, &lanes_not_normal)' \
'fk__half_unit_factors_sse(a, a, b, c, &lanes_not_normal)'

sse_fk_mutant sse_fk_subnormal_norm_accepted \
'_mm_cmplt_epi32(bits, _mm_set1_epi32(0x00800000))' \
'_mm_cmplt_epi32(bits, _mm_set1_epi32(0))'

sse_fk_mutant sse_fk_infinite_norm_accepted \
'_mm_cmpgt_epi32(bits, _mm_set1_epi32(0x7F7FFFFF))' \
'_mm_cmpgt_epi32(bits, _mm_set1_epi32(0x7F800000))'

# The AVX2 pass rotates the parent's pivot and the joint's rest position in the
# two halves of one register: the rotations paired the wrong way round, a half
# read twice, or a cross product turned.
avx2_fk_mutant avx2_fk_rotations_swapped \
'    __m256 rotated = fk__quat_rotate_avx2(_mm256_insertf128_ps(_mm256_castps128_ps256(parent_q), q, 1),' \
'    __m256 rotated = fk__quat_rotate_avx2(_mm256_insertf128_ps(_mm256_castps128_ps256(q), parent_q, 1),'

avx2_fk_mutant avx2_fk_low_half_read_twice \
'_mm256_castps256_ps128(rotated)), _mm256_extractf128_ps(rotated, 1));' \
'_mm256_castps256_ps128(rotated)), _mm256_castps256_ps128(rotated));'

avx2_fk_mutant avx2_fk_cross_turned \
'    __m256 c = _mm256_sub_ps(_mm256_mul_ps(a, b_yzx), _mm256_mul_ps(a_yzx, b));' \
'    __m256 c = _mm256_sub_ps(_mm256_mul_ps(a_yzx, b), _mm256_mul_ps(a, b_yzx));'

# The formula often copied from derivations: right for children of a root only,
# so grandchildren come loose (applied on the parents-first path).
mutant literal_translation_formula \
'        out[i] = fk__joint_transform(parent < 0 ? NULL : &out[parent], x, rotations[i],
                                     translated ? &translations[i] : NULL, rest_frame);' \
'        out[i] = fk__joint_transform(parent < 0 ? NULL : &out[parent], x, rotations[i],
                                     translated ? &translations[i] : NULL, rest_frame);
            if (parent >= 0) /* t_i = -Q_i x_i + Q_p x_i - Q_p x_p + x_p */
                out[i].t = fk_vec3_add(fk_vec3_sub(fk_vec3_sub(fk_quat_rotate(out[parent].q, rest_joints[i]),
                                                               fk_quat_rotate(out[i].q, rest_joints[i])),
                                                   fk_quat_rotate(out[parent].q, rest_joints[parent])),
                                       rest_joints[parent]);'

mutant parent_frame_product_reversed \
': fk_quat_mul(parent->q, q),' \
': fk_quat_mul(q, parent->q),'

mutant rest_frame_product_reversed \
'rest_frame ? fk_quat_mul(q, parent->q)' \
'rest_frame ? fk_quat_mul(parent->q, q)'

mutant chain_not_renormalized \
'                        fk__renormalization_factor(parent->q));' \
'                        1.0f);'

mutant input_rotation_not_normalized \
'fk_quat q = fk_quat_normalize(rotation);' \
'fk_quat q = rotation;'

mutant translations_ignored \
'fk_vec3 pivot = translation ? fk_vec3_add(rest_joint, *translation) : rest_joint;' \
'fk_vec3 pivot = rest_joint;'

# Joints whose parent comes right after them take the parents-first path, which
# then reads a parent not yet computed (a chain listed children first, say).
mutant fast_path_for_unsorted_input \
'if (parent > i) *parents_first = 0;' \
'if (parent > i + 1) *parents_first = 0;'

mutant cycles_unchecked_when_unsorted \
'if (result != FK_OK || parents_first) return result;' \
'if (result != FK_OK || !parents_first) return result;'

# ---- Quaternions and matrices --------------------------------------------------

# q* v q instead of q v q*: every rotation turns the wrong way.
mutant rotation_missing_conjugate \
'fk_vec3 u = fk_vec3_make(q.x, q.y, q.z);' \
'fk_vec3 u = fk_vec3_make(-q.x, -q.y, -q.z);'

mutant matrix_entry_sign \
'out[1] = 2.0f * (xy - wz);' \
'out[1] = 2.0f * (xy + wz);'

mutant slerp_linear_weight \
'wb = sinf(t * angle) / sine;' \
'wb = t;'

mutant euler_angles_read_separately \
'atan2f(s * (cos_a * m[3 * j + i] + s_sin_a * m[3 * k + i]),
                                        cos_a * m[3 * j + j] + s_sin_a * m[3 * k + j])' \
'atan2f(-s * m[3 * i + j], m[3 * i + i]) + 0.0f * (cos_a + s_sin_a)'

mutant dual_quat_product_reversed \
'fk_quat_mul(fk_quat_make(r.t.x, r.t.y, r.t.z, 0.0f), r.q)' \
'fk_quat_mul(r.q, fk_quat_make(r.t.x, r.t.y, r.t.z, 0.0f))'

# ---- Skinning (the reference loops; tests/test_simd.c holds the SIMD loops to them)

mutant lbs_drops_last_weight \
'for (e = 0; e < FK__LBS_BONE_FLOATS; ++e) blend[e] += weights[k] * m[e];' \
'if (k + 1 < d->influences) for (e = 0; e < FK__LBS_BONE_FLOATS; ++e) blend[e] += weights[k] * m[e];'

mutant lbs_normal_not_renormalized \
'layout->out_normal_stride, i), fk_vec3_normalize(moved));' \
'layout->out_normal_stride, i), moved);'

mutant lbs_normal_written_with_position_stride \
'fk__out_at(d->out_normals, layout->out_normal_stride, i), fk_vec3_normalize(moved)' \
'fk__out_at(d->out_normals, layout->out_position_stride, i), fk_vec3_normalize(moved)'

mutant dqs_without_antipodal_flip \
'w = fk_quat_dot(pivot, fk_quat_make(b[0], b[1], b[2], b[3])) < 0.0f ? -weights[k] : weights[k];' \
'w = weights[k];'

# The first listed influence chooses the hemisphere, even with weight zero.
mutant dqs_hemisphere_from_first_influence \
'if (weights[k] > weights[heaviest]) heaviest = k;' \
'(void)0;'

mutant dqs_dual_not_normalized \
'dual = fk__quat_scale(dual, inverse);' \
'(void)0;'

mutant dqs_normal_not_rotated \
'*n = fk_quat_rotate(real, *n);' \
'(void)n;'

# A tangent's handedness lost, as in runtimes that skin only x y z.
mutant tangent_handedness_dropped \
'memcpy(p + 3, rest->w, sizeof rest->w);' \
'p[3] = 1.0f; (void)rest;'

mutant lbs_tangent_not_renormalized \
'layout->out_tangent_stride, i), fk_vec3_normalize(moved),' \
'layout->out_tangent_stride, i), moved,'

mutant dqs_tangent_not_rotated \
'fk_vec3_normalize(fk_quat_rotate(real, tangent.xyz))' \
'fk_vec3_normalize(tangent.xyz)'

mutant input_stride_one_float_short \
'(const char *)base + (size_t)vertex * stride' \
'(const char *)base + (size_t)vertex * (stride - sizeof(float))'

mutant default_stride_one_float_long \
'if (*stride == 0) *stride = element;' \
'if (*stride == 0) *stride = element + sizeof(float);'

mutant joint_index_unchecked \
'return (int)joints[k] < d->transform_count ? (int)joints[k] : -1;' \
'return (int)joints[k];'

# ---- Skinning: the SIMD loops (held to the reference by tests/test_simd.c) ----

# Packed LBS, sixteen vertices an iteration: the indices checked up front (the
# group's, and those of the vertices done first so that streamed lines start on
# a 64-byte boundary), the vertices done first (left unwritten, or done by
# another loop, as they were until late on 24 November: the AVX2 loop, whose
# normals then get other last bits than in other layouts), a line of the
# output picked wrong, and the boundary missed (a streaming store faults off
# one).
simd_mutant lbs_avx512_sixteen_unchecked avx512 "" \
'        if (!fk__packed_joints_in_range_avx512(r->joints, 16 * (size_t)influences, r->joint_limit)) {' \
'        if (0) {'

simd_mutant lbs_avx512_stream_head_unchecked avx512 "" \
'    if (head > 0 && !fk__packed_joints_in_range_avx512(r->joints, (size_t)head * (size_t)influences, r->joint_limit))
        return -1;' \
''

simd_mutant lbs_avx512_stream_head_skipped avx512 "" \
'        fk__lbs_store4_packed_avx512(r, moved, turned, normals);' \
'        (void)moved; (void)turned;'

simd_mutant lbs_avx512_stream_head_by_other_loop avx512 "" \
'    for (; i < head; i += 4) { /* the four-vertex step of fk__lbs_avx512_loop() */' \
'    if (head > 0) {
        fk__skin_run first = *r;
        first.count = head;
        (void)fk__lbs_avx2_packed(&first, influences, normals);
        fk__skin_advance(r, normals, (size_t)head);
        i = head;
    }
    for (; i < head; i += 4) {'

simd_mutant lbs_avx512_sixteen_line_wrong avx512 "" \
'_mm512_setr_epi32(5, 9, 2, 6, 10, 3, 7, 11, 16, 20, 24, 17, 21, 25, 18, 22)' \
'_mm512_setr_epi32(5, 9, 2, 6, 10, 3, 7, 11, 16, 20, 24, 17, 21, 25, 18, 26)'

# Streaming decided by the output positions' bytes alone, as until 24 November
# (late): the loop then streams only far bigger calls than the options say.
simd_mutant lbs_avx512_stream_counts_output_only avx512 "" \
'    const unsigned vertex_bytes = 24u + 6u * (unsigned)r->influences + (r->normals ? 24u : 0u);' \
'    const unsigned vertex_bytes = 12u;'

simd_mutant lbs_avx512_stream_misaligned avx512 "" \
'    while ((out + 12u * (unsigned)head) % 64u != 0) head += 4;' \
'    while ((out + 12u * (unsigned)head) % 32u != 0) head += 4;'

# The AVX-512 LBS loop checks its own joint indices; without the check a bad
# index reads a bone that is not there and no error is returned.
simd_mutant lbs_avx512_joints_unchecked avx512 "" \
'        if (!fk__joints_in_range_avx512(&r, r.joints, 4, influences, packed)) return i;' \
''

# With packed lists of up to four indices the four vertices' sixteen or fewer
# are checked in one half-width load; the mask one index short leaves the last
# vertex's last influence unchecked (test_simd's bad index in vertex 999, in the
# last group of four after the sixteen-vertex loop).
simd_mutant lbs_avx512_packed_last_index_unchecked avx512 "" \
'_mm256_maskz_loadu_epi16((__mmask16)((1u << (count * influences)) - 1u), joint),' \
'_mm256_maskz_loadu_epi16((__mmask16)((1u << (count * influences - 1)) - 1u), joint),'

# Packed weights are read four to a 16-byte load and picked out by shuffles
# (on AMD; on Intel by a broadcast load each: test_simd runs both ways): the
# second weight picked as the third, or the second four of eight never read;
# and, read by broadcast loads, the normals dropped by the function that
# calls that copy of the loop (in the copy for any count, the one this
# script's unoptimized builds have).
simd_mutant lbs_avx512_loaded_normals_dropped avx512 "" \
'    return fk__lbs_avx512_packed_loaded(run, run->influences, run->normals != NULL);' \
'    return fk__lbs_avx512_packed_loaded(run, run->influences, 0);'

simd_mutant lbs_avx512_weight_shuffle_wrong avx512 "" \
'         : e % 4 == 1 ? _mm512_permute_ps(*four, _MM_SHUFFLE(1, 1, 1, 1))' \
'         : e % 4 == 1 ? _mm512_permute_ps(*four, _MM_SHUFFLE(2, 2, 2, 2))'

# The AVX2 LBS loop does the same with any layout when k is a multiple of four.
simd_mutant lbs_avx2_weight_shuffle_wrong avx2 -DFK_LBS_NO_AVX512 \
'         : e % 4 == 2 ? _mm256_permute_ps(*four, _MM_SHUFFLE(2, 2, 2, 2))' \
'         : e % 4 == 2 ? _mm256_permute_ps(*four, _MM_SHUFFLE(1, 1, 1, 1))'

simd_mutant lbs_avx2_second_four_weights_unread avx2 -DFK_LBS_NO_AVX512 \
'    if (e % 4 == 0 && e > 0) *four = _mm256_broadcast_ps((const __m128 *)(const void *)(weights + e));' \
'    if (e % 4 == 0 && e > 4) *four = _mm256_broadcast_ps((const __m128 *)(const void *)(weights + e));'

# The AVX2 LBS loop for packed arrays works on rows, four vertices at a time
# (fk__lbs_avx2_rows()): its index checks, the 1 that carries row 1's
# translation, the 0 that keeps it out of a normal, the last vertex left to
# the tail (its 16-byte point load would read past the array), the order of
# the packed store, and the rare lengths handed to the reference.
simd_mutant lbs_avx2_rows_joints_unchecked avx2 -DFK_LBS_NO_AVX512 \
'        if (!fk__run_joints_in_range_avx2(&r, 4, influences)) {
            if (held_at) fk__store4_held_avx2(held_at, held_stride, packed, held_xy, held_z, normals);
            return i;
        }' \
''

simd_mutant lbs_avx2_rows_tail_unchecked avx2 -DFK_LBS_NO_AVX512 \
'    if (!fk__run_joints_in_range_avx2(&r, r.count, influences)) return i;' \
''

# The last one to four vertices of a run go through the four-vertex step too,
# from copies of their points, so that a call split into pieces gives the
# bits of one call: the tail done by another loop (the SSE2 one for AVX2; for
# AVX-512 the AVX2 tail, whose positions round alike and normals do not),
# its last vertex never written, the missing lanes reading past the run.
simd_mutant lbs_avx2_tail_by_other_loop avx2 -DFK_LBS_NO_AVX512 \
'    if (r.count > 0) fk__lbs_tail_avx2(&r, rows, r.count, influences, normals);' \
'    if (r.count > 0) (void)fk__lbs_sse_loop(&r, influences, normals);'

simd_mutant lbs_avx512_tail_by_other_loop avx512 "" \
'    moved = fk__lbs_rows4_avx512(&copied, rows, 0, influences, pick_weights, normals, &turned, 1, lanes);' \
'    fk__lbs_tail_avx2(r, rows, lanes, influences, normals);
    return;
    moved = fk__lbs_rows4_avx512(&copied, rows, 0, influences, pick_weights, normals, &turned, 1, lanes);'

# (fk__tail_results() writes every tail; the bug is planted in it twice, once
# for the AVX-512 LBS tail and once, with AVX-512 compiled out, for the AVX2 ones.)
simd_mutant lbs_avx512_tail_last_unwritten avx512 "" \
'    for (v = 0; v < lanes; ++v) {
        memcpy(r->out_positions + (size_t)v * r->out_position_stride, positions + 3 * v, 3 * sizeof(float));' \
'    for (v = 0; v < lanes - 1; ++v) {
        memcpy(r->out_positions + (size_t)v * r->out_position_stride, positions + 3 * v, 3 * sizeof(float));'

simd_mutant lbs_avx512_tail_lanes_past_the_run avx512 "" \
'        const size_t from = at + (size_t)(v < lanes ? v : lanes - 1); /* lanes: 4, or in the tail 1 to 4 */' \
'        const size_t from = at + (size_t)v; /* lanes: 4, or in the tail 1 to 4 */'

# A DQS group that declines (one blend needs the careful path) goes vertex by
# vertex, each as a group of copies of itself: the group through the SSE
# arithmetic again, as until 24 November, rounds its neighbours otherwise.
simd_mutant dqs_declined_group_by_sse avx512 "" \
'        if (!fk__dqs8_copies_avx2(&one, copies, 1, normals))' \
'        fk__dqs_vertex_sse(_mm256_castps256_ps128(blend[v]), _mm256_extractf128_ps(blend[v], 1), one.positions,
                           normals ? one.normals : NULL, one.out_positions, normals ? one.out_normals : NULL);
        if (0)'

# The skinning loops return with the upper halves of the vector registers
# cleared: without the explicit vzeroupper, gcc at -O0 (how this script builds
# test_simd) clears them nowhere. Built with gcc whatever CC is: clang clears
# them itself, even at -O0, so with clang the code without it is not wrong.
simd_mutant upper_halves_not_cleared gcc-avx512 "" \
'    _mm256_zeroupper();
    return vertices_done;' \
'    return vertices_done;'

# The masked 12-byte store keeps its register opaque to the compiler: without
# that, gcc fuses the store with the extract of its lanes into one
# vextractf32x4 to memory, which on an AMD Zen 4 and an Intel Xeon faults
# where its masked-off lanes reach an unwritable page (test_simd's DQS writes interleaved records up
# to an unmapped page). gcc fuses it only when it optimizes, so this one builds
# test_simd with gcc at -O1 (9 s; -O2 takes 18) whatever CC is. (The 24-byte
# store has no mutant: no loop writes a run's last vertex with it; see the
# header.)
simd_mutant masked_store3_fused gcc-avx512 -O1 \
'    __asm__("" : "+v"(point));
    _mm_mask_storeu_ps' \
'    _mm_mask_storeu_ps'

# The same for DQS with AVX2 (the AVX-512 loop hands its last zero to fifteen
# vertices to it): the tail one vertex at a time again, as until late on 24
# November, or its last vertex never written.
simd_mutant dqs_avx2_tail_by_other_loop avx2 -DFK_LBS_NO_AVX512 \
'    if (i < r.count) fk__dqs_tail_avx2(&r, source, r.count - i, influences, normals);' \
'    for (; i < r.count; ++i) {
        __m256 blend = fk__dqs_blend_avx2(&r, source,
                                          fk__dqs_pivot_avx2(source == FK__DQS_SIGNED, r.joints, r.weights, influences),
                                          r.joints, r.weights, influences);
        fk__dqs_vertex_sse(_mm256_castps256_ps128(blend), _mm256_extractf128_ps(blend, 1), r.positions,
                           normals ? r.normals : NULL, r.out_positions, r.out_normals);
        fk__skin_advance(&r, normals, 1);
    }'

simd_mutant avx2_tail_last_unwritten avx2 -DFK_LBS_NO_AVX512 \
'    for (v = 0; v < lanes; ++v) {
        memcpy(r->out_positions + (size_t)v * r->out_position_stride, positions + 3 * v, 3 * sizeof(float));' \
'    for (v = 0; v < lanes - 1; ++v) {
        memcpy(r->out_positions + (size_t)v * r->out_position_stride, positions + 3 * v, 3 * sizeof(float));'

simd_mutant lbs_avx2_rows_second_translation_dropped avx2 -DFK_LBS_NO_AVX512 \
'                            _mm256_set1_ps(1.0f), 0x88);' \
'                            _mm256_set1_ps(1.0f), 0x08);'

simd_mutant lbs_avx2_rows_translation_in_normal avx2 -DFK_LBS_NO_AVX512 \
'        *turned01 = _mm256_blend_ps(_mm256_mul_ps(rows01, normal), _mm256_setzero_ps(), 0x88);' \
'        *turned01 = _mm256_blend_ps(_mm256_mul_ps(rows01, normal), _mm256_setzero_ps(), 0x08);'

simd_mutant lbs_avx2_rows_last_point_overread avx2 -DFK_LBS_NO_AVX512 \
'    for (i = 0; i + 4 < r.count; i += 4) {
        __m256 moved01[4], turned01[4], xy;' \
'    for (i = 0; i + 4 <= r.count; i += 4) {
        __m256 moved01[4], turned01[4], xy;'

# Each group's normals (or, without normals, its positions) are held back
# and written one iteration later: the held group left unwritten where a bad
# index stops the loop, or after the last group; held normals or positions
# written over the next group's place; and the second vertex of each pair
# summed as the first.
simd_mutant lbs_avx2_rows_held_lost_at_bad_index avx2 -DFK_LBS_NO_AVX512 \
'            if (held_at) fk__store4_held_avx2(held_at, held_stride, packed, held_xy, held_z, normals);
            return i;' \
'            return i;'

simd_mutant lbs_avx2_rows_held_lost_at_end avx2 -DFK_LBS_NO_AVX512 \
'    if (held_at) fk__store4_held_avx2(held_at, held_stride, packed, held_xy, held_z, normals);
    r.count -= i;' \
'    r.count -= i;'

simd_mutant lbs_avx2_rows_held_normals_one_group_late avx2 -DFK_LBS_NO_AVX512 \
'            if (held_at) fk__store4_held_avx2(held_at, held_stride, packed, held_xy, held_z, 1);' \
'            if (held_at) fk__store4_held_avx2(r.out_normals, r.out_normal_stride, packed, held_xy, held_z, 1);'

simd_mutant lbs_avx2_rows_held_positions_one_group_late avx2 -DFK_LBS_NO_AVX512 \
'            if (held_at) fk__store4_held_avx2(held_at, held_stride, packed, held_xy, held_z, 0);' \
'            if (held_at) fk__store4_held_avx2(r.out_positions, held_stride, packed, held_xy, held_z, 0);'

simd_mutant lbs_avx2_rows_pair_second_vertex_repeated avx2 -DFK_LBS_NO_AVX512 \
'fk__lbs_rows_vertex_avx2(&r, rows, (size_t)v + 1, influences, 1,' \
'fk__lbs_rows_vertex_avx2(&r, rows, (size_t)v, influences, 1,'

# On interleaved records with four influences the same loop reads each point
# as three floats and writes 12 bytes a point: the three floats read from one
# float on, points written packed instead of at the records' stride, and
# every layout and count sent to the records loop.
simd_mutant lbs_avx2_records_point_misread avx2 -DFK_LBS_NO_AVX512 \
'    xyz = fk__load3_sse(p);' \
'    xyz = fk__load3_sse(p + 4);'

simd_mutant lbs_avx2_records_stored_packed avx2 -DFK_LBS_NO_AVX512 \
'    else fk__store4x3_strided_avx2(p, stride, xy, z);' \
'    else fk__store4x3_avx2(p, xy, z);'

simd_mutant lbs_avx2_records_for_every_layout avx2 -DFK_LBS_NO_AVX512 \
'    else done = run->influences == 4 && fk__skin_run_records(run) ? fk__lbs_avx2_records_run(run)
                                                                  : fk__lbs_avx2_strided_run(run);' \
'    else done = fk__lbs_avx2_records_run(run);'

# In other layouts (any strides) it keeps the run's own strides: here it
# takes the records' (every input at the positions' stride), or writes the
# held normals at the positions' output stride (test_simd's layouts give
# both outputs one stride; the property tests' do not).
simd_mutant lbs_avx2_strided_read_as_records avx2 -DFK_LBS_NO_AVX512 \
'        if (layout == FK__LAYOUT_RECORDS) {' \
'        if (layout != FK__LAYOUT_PACKED) {'

avx2_skin_mutant lbs_avx2_strided_normals_at_position_stride \
'    held_stride = normals ? r.out_normal_stride : r.out_position_stride;' \
'    held_stride = r.out_position_stride;'

simd_mutant lbs_avx2_rows_store_order avx2 -DFK_LBS_NO_AVX512 \
'_mm256_setr_epi32(0, 4, 0, 1, 5, 0, 2, 6)' \
'_mm256_setr_epi32(0, 4, 0, 1, 5, 0, 6, 2)'

simd_mutant lbs_avx2_rows_rare_lengths_estimated avx2 -DFK_LBS_NO_AVX512 \
'    if (FK__LIKELY(_mm_movemask_ps(in_range) == 0xF)) {' \
'    if (FK__LIKELY(_mm_movemask_ps(in_range) != 0)) {'

simd_mutant lbs_avx512_second_four_weights_unread avx512 "" \
'    if (e % 4 == 0) *four = _mm512_broadcast_f32x4(_mm_loadu_ps(weights + e));' \
'    if (e == 0) *four = _mm512_broadcast_f32x4(_mm_loadu_ps(weights + e));'

# Interleaved records and other strided layouts: four index lists, an 8-byte
# load each for four influences, a masked load each otherwise; the check left
# out, or the fourth list not read (test_simd puts a bad index in the first and
# in the fourth vertex of a group, with k = 4 and with k = 3).
simd_mutant lbs_avx512_strided_joints_unchecked avx512 "" \
'        return fk__four_lists_in_range_avx512(r, joint, influences);' \
'        return 1;'

simd_mutant lbs_avx512_fourth_list_of_four_unread avx512 "" \
'        __m128i high = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)(joint + 2 * stride)),
                                          _mm_loadl_epi64((const __m128i *)(const void *)(joint + 3 * stride)));' \
'        __m128i high = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)(joint + 2 * stride)),
                                          _mm_loadl_epi64((const __m128i *)(const void *)(joint + 2 * stride)));'

simd_mutant lbs_avx512_fourth_list_unread avx512 "" \
'    all = _mm512_inserti32x4(all, _mm_maskz_loadu_epi16(lanes, joint + 3 * stride), 3);' \
''

# Interleaved records get a loop of their own, for every input array at the
# position's stride: taken for other layouts too, the index and weight lists
# are read at the wrong stride.
simd_mutant lbs_avx512_records_any_strides avx512 "" \
'    return r->joint_stride == in && r->weight_stride == in &&' \
'    return 1 ||'

# Output pairs (each normal right after its position): a lane of the packed
# pairs' second store picked wrong; the other pairs' mask one float too wide
# (a write beside the outputs, into the 72-byte records' index lists); pairs
# assumed where the normal does not follow the position.
simd_mutant lbs_avx512_packed_pairs_lane avx512 "" \
'_mm512_setr_epi32(22, 26, 3, 7, 11, 19, 23, 27, 0, 0, 0, 0, 0, 0, 0, 0)' \
'_mm512_setr_epi32(22, 26, 3, 7, 11, 19, 27, 23, 0, 0, 0, 0, 0, 0, 0, 0)'

simd_mutant lbs_avx512_pairs_mask_too_wide avx512 "" \
'    _mm256_mask_storeu_ps((float *)(void *)p, 0x3F, pair);' \
'    _mm256_mask_storeu_ps((float *)(void *)p, 0x7F, pair);'

simd_mutant lbs_avx512_pairs_not_adjacent avx512 "" \
'    if (!normals || r->out_normals != r->out_positions + point_bytes || r->out_normal_stride != r->out_position_stride)' \
'    if (!normals || r->out_normal_stride != r->out_position_stride)'

simd_mutant lbs_avx512_strided_store_lane avx512 "" \
'    fk__store3_masked_avx512(p + 2 * stride, _mm512_extractf32x4_ps(blocks, 2));' \
'    fk__store3_masked_avx512(p + 2 * stride, _mm512_extractf32x4_ps(blocks, 1));'

# The AVX-512 DQS loop checks the indices itself, sixteen vertices at a time
# (packed lists in one pass, four at any stride four vertices a load),
# and hands its tail to the AVX2 loop, which checks its own (test_simd puts a
# bad index in the first, fourth and last vertex of a group, and in the tail).
simd_mutant dqs_avx512_joints_unchecked avx512 "" \
'    if (packed) return fk__packed_joints_in_range_avx512(r->joints, 16 * (size_t)influences, r->joint_limit);' \
'    if (packed) return 1;'

simd_mutant dqs_avx512_strided_last_four_unchecked avx512 "" \
'           fk__four_lists_in_range_avx512(r, r->joints + 12 * r->joint_stride, influences);' \
'           1;'

simd_mutant dqs_avx512_tail_unchecked avx512 "" \
'        if (!fk__run_joints_in_range_avx2(&r, n, influences)) return i;' \
''

# The AVX2 loops check their indices themselves, eight vertices at a time:
# packed lists sixteen, eight, then one index at a time (test_simd's bad index
# in vertex 1000 of 1001 is in a group of one), other layouts one by one.
simd_mutant avx2_joints_unchecked avx2 -DFK_LBS_NO_AVX512 \
'        if (!fk__run_joints_in_range_avx2(&r, n, influences)) return i;' \
''

simd_mutant avx2_strided_joints_unchecked avx2 -DFK_LBS_NO_AVX512 \
'            over |= ((const uint16_t *)(const void *)(r->joints + (size_t)v * r->joint_stride))[e] > r->joint_limit;' \
''

# Lists of four or eight indices at other strides: one load each, their largest
# index kept lane by lane and checked once.
simd_mutant avx2_strided_lists_unchecked avx2 -DFK_LBS_NO_AVX512 \
'        return _mm_testz_si128(largest, largest);' \
'        return 1;'

simd_mutant avx2_strided_eight_read_as_four avx2 -DFK_LBS_NO_AVX512 \
'influences == 4 ? _mm_loadl_epi64(list) : _mm_loadu_si128(list)' \
'influences <= 8 ? _mm_loadl_epi64(list) : _mm_loadu_si128(list)'

simd_mutant avx2_joint_tail_unchecked avx2 -DFK_LBS_NO_AVX512 \
'    for (; done < lanes; ++done) over |= ((const uint16_t *)(const void *)joint)[done] > limit;' \
''

# On packed arrays the AVX2 DQS loop (fk__dqs_avx2_packed()) checks each group
# of eight itself and finds the next group's pivots while it finishes the group
# before, never past the last group; with four influences it finds eight
# pivots in vector registers: the first of equal weights (a lane number above
# each joint index), joint 0 where no weight equals the largest (NaN weights,
# else the pivot is 65535 and its row of the table far outside it), and the
# pivots put back in vertex order. It stores packed points 96 bytes at a time.
simd_mutant dqs_avx2_packed_joints_unchecked avx2 -DFK_LBS_NO_AVX512 \
'        if (!fk__packed_joints_in_range_avx2(r.joints, group_lanes, r.joint_limit)) return i;' \
''

simd_mutant dqs_avx2_pivots_of_wrong_group avx2 -DFK_LBS_NO_AVX512 \
'            fk__dqs_packed_pivots8_avx2(&r, source, 8, influences, pivot);' \
'            fk__dqs_packed_pivots8_avx2(&r, source, 0, influences, pivot);'

simd_mutant dqs_avx2_pivots_past_the_end avx2 -DFK_LBS_NO_AVX512 \
'&& i + 16 <= r.count) /* the next group' \
'&& i + 8 <= r.count) /* the next group'

simd_mutant dqs_avx2_heaviest_last_of_equals avx2 -DFK_LBS_NO_AVX512 \
'_mm256_setr_epi32(0, 1 << 16, 2 << 16, 3 << 16, 0, 1 << 16, 2 << 16, 3 << 16);' \
'_mm256_setr_epi32(3 << 16, 2 << 16, 1 << 16, 0, 3 << 16, 2 << 16, 1 << 16, 0);'

simd_mutant dqs_avx2_no_heaviest_out_of_range avx2 -DFK_LBS_NO_AVX512 \
'    const __m256i none = _mm256_set1_epi32(4 << 16);' \
'    const __m256i none = _mm256_set1_epi32(-1);'

simd_mutant dqs_avx2_pivots_out_of_order avx2 -DFK_LBS_NO_AVX512 \
'_mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)' \
'_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)'

simd_mutant dqs_avx2_packed_store_lane avx2 -DFK_LBS_NO_AVX512 \
'pick2 = _mm256_setr_epi32(5, 5, 6, 6, 6, 7, 7, 7);' \
'pick2 = _mm256_setr_epi32(5, 5, 6, 6, 6, 7, 7, 6);'

# Through the table the AVX2 DQS blends read four weights to a load and pick
# each out by a shuffle (fk__weight_avx2(), whose shuffles the LBS mutants
# above cover): the first four taken from the next vertex's list.
simd_mutant dqs_avx2_table_weights_of_next_vertex avx2 -DFK_LBS_NO_AVX512 \
'        __m256 weights4 = influences % 4 == 0 ? _mm256_broadcast_ps((const __m128 *)(const void *)weights)' \
'        __m256 weights4 = influences % 4 == 0 ? _mm256_broadcast_ps((const __m128 *)(const void *)(weights + influences))'

# The AVX-512 DQS loop finds each group's pivots one group ahead: read from the
# current group instead, every group after the first blends with another
# vertex's hemisphere.
simd_mutant dqs_avx512_pivots_of_wrong_group avx512 "" \
'                pivot[v] = fk__dqs_pivot_avx2(0, r.joints + (size_t)(16 + v) * r.joint_stride,
                                              r.weights + (size_t)(16 + v) * r.weight_stride, influences);' \
'                pivot[v] = fk__dqs_pivot_avx2(0, r.joints + (size_t)v * r.joint_stride,
                                              r.weights + (size_t)v * r.weight_stride, influences);'

# With four influences and the sign table, the AVX-512 DQS loop signs sixteen
# vertices at once, one group ahead: the heaviest influence (the first of equal
# weights), its row of the table (64 rows, looked up by quarters) and the bit of
# each joint in it.
simd_mutant dqs_avx512_signs_of_wrong_group avx512 "" \
'                if (influences == 4) fk__dqs_offsets16x4_avx512(&r, 16, packed, offset_vectors);' \
'                if (influences == 4) fk__dqs_offsets16x4_avx512(&r, 0, packed, offset_vectors);'

simd_mutant dqs_avx512_heaviest_last_of_equals avx512 "" \
'    below = (heaviest & 0x7777777777777777u) << 1 | (heaviest & 0x3333333333333333u) << 2 |
            (heaviest & 0x1111111111111111u) << 3;' \
'    below = (heaviest & 0xEEEEEEEEEEEEEEEEu) >> 1 | (heaviest & 0xCCCCCCCCCCCCCCCCu) >> 2 |
            (heaviest & 0x8888888888888888u) >> 3;'

simd_mutant dqs_avx512_rows_quarters_swapped avx512 "" \
'                                   _mm512_mask_blend_epi64(bit4, rows[2], rows[3]));' \
'                                   _mm512_mask_blend_epi64(bit4, rows[3], rows[2]));'

simd_mutant dqs_avx512_flip_bit_misread avx512 "" \
'_mm512_srlv_epi16(word, _mm512_and_si512(joints, _mm512_set1_epi16(15)))' \
'_mm512_srlv_epi16(word, _mm512_and_si512(joints, _mm512_set1_epi16(7)))'

# With one influence DQS reads the bones unsigned (a bone is its own pivot);
# with two, that is wrong whenever the two bones lie in opposite hemispheres.
simd_mutant dqs_one_influence_rule_for_two x86-64 "" \
'            int one_influence = desc->influences == 1 && desc->transform_count <= FK__DQS_TABLE_BONES;' \
'            int one_influence = desc->influences <= 2 && desc->transform_count <= FK__DQS_TABLE_BONES;'

# With two influences either may be the pivot (the blends differ only in sign);
# with three, the pivot decides which influences are flipped.
simd_mutant dqs_first_pivot_for_three avx2 "" \
'    return joints[influences <= 2 ? 0 : fk__heaviest_avx2((const float *)(const void *)weight, influences)];' \
'    return joints[influences <= 3 ? 0 : fk__heaviest_avx2((const float *)(const void *)weight, influences)];'

# With one or two influences the AVX2 and AVX-512 blends read the first
# influence's bone without the table (it is the pivot); with three it is not.
simd_mutant dqs_first_influence_unsigned_for_three avx2 "" \
'            size_t offset = influences <= 2 && e == 0 ?' \
'            size_t offset = influences <= 3 && e == 0 ?'

simd_mutant dqs_sse2_first_pivot_for_three x86-64 -DFK_LBS_NO_AVX2 \
'joints[influences <= 2 ? 0 : fk__heaviest_of(weights, influences)]' \
'joints[influences <= 3 ? 0 : fk__heaviest_of(weights, influences)]'

# The sixteen-vertex AVX-512 DQS store puts vertex 14's z where vertex 15's goes.
simd_mutant dqs_avx512_store_lane avx512 "" \
'29, 13, 14, 30, 14, 15, 31, 15)' \
'29, 13, 14, 30, 14, 15, 30, 15)'

# For other layouts (interleaved records) it loads and stores a point at a time
# and transposes, and gathers each vertex's joint indices and weights into the
# lanes the packed loads fill.
simd_mutant dqs_avx512_strided_load_z_from_y avx512 "" \
'    xyz[2] = _mm512_shuffle_ps(high01, high23, _MM_SHUFFLE(1, 0, 1, 0));' \
'    xyz[2] = _mm512_shuffle_ps(low01, low23, _MM_SHUFFLE(3, 2, 3, 2));'

simd_mutant dqs_avx512_strided_store_blocks_swapped avx512 "" \
'    block[2] = _mm512_shuffle_ps(xy_high, zz_high, _MM_SHUFFLE(1, 0, 1, 0));
    block[3] = _mm512_shuffle_ps(xy_high, zz_high, _MM_SHUFFLE(3, 2, 3, 2));' \
'    block[3] = _mm512_shuffle_ps(xy_high, zz_high, _MM_SHUFFLE(1, 0, 1, 0));
    block[2] = _mm512_shuffle_ps(xy_high, zz_high, _MM_SHUFFLE(3, 2, 3, 2));'

simd_mutant dqs_avx512_strided_joints_of_wrong_vertex avx512 "" \
'_mm_loadl_epi64((const __m128i *)(const void *)(joint + (size_t)(2 * j + 1) * stride)));' \
'_mm_loadl_epi64((const __m128i *)(const void *)(joint + (size_t)(2 * j) * stride)));'

simd_mutant dqs_avx512_strided_weights_of_wrong_vertex avx512 "" \
'    return _mm512_insertf32x4(w, _mm_loadu_ps((const float *)(const void *)(weight + 3 * stride)), 3);' \
'    return _mm512_insertf32x4(w, _mm_loadu_ps((const float *)(const void *)(weight + 2 * stride)), 3);'

# The AVX-512 LBS loop sends a normal whose squared length is not a positive
# normal float (zero, subnormal, infinite, NaN) to the exact path: here only NaN
# goes. (The same slip in the DQS loop's check of the blend's norm is not
# listed: with the edge cases' tiny weights the results come out infinite or
# NaN, and the loop's later check of the results sends the group to the
# reference, so the tests see nothing wrong.)
simd_mutant lbs_avx512_rows_normalize_range_unchecked avx512 "" \
'                                              _mm512_shuffle_f32x4(n, n, _MM_SHUFFLE(2, 2, 2, 2)));
    if (FK__LIKELY(_mm512_fpclass_ps_mask(length2, FK__NOT_POSITIVE_NORMAL_CLASSES) == 0))' \
'                                              _mm512_shuffle_f32x4(n, n, _MM_SHUFFLE(2, 2, 2, 2)));
    if (FK__LIKELY(_mm512_fpclass_ps_mask(length2, 0x01) == 0))'

# Going sixteen vertices at a time, the packed AVX-512 LBS loop normalizes
# sixteen normals together, gathered into x, y and z across: a length out of
# the estimate's range taken all the same, or y gathered from the x blocks.
simd_mutant lbs_avx512_sixteen_normalize_range_unchecked avx512 "" \
'    if (FK__LIKELY(_mm512_fpclass_ps_mask(length2, FK__NOT_POSITIVE_NORMAL_CLASSES) == 0)) {
        const __m512 inverse = fk__inverse_length_avx512(length2);
        FK__UNROLL' \
'    if (FK__LIKELY(_mm512_fpclass_ps_mask(length2, 0x01) == 0)) {
        const __m512 inverse = fk__inverse_length_avx512(length2);
        FK__UNROLL'

simd_mutant lbs_avx512_sixteen_normal_y_from_x avx512 "" \
'    xyz[1] = _mm512_shuffle_f32x4(xy01, xy23, _MM_SHUFFLE(3, 1, 3, 1));' \
'    xyz[1] = _mm512_shuffle_f32x4(xy01, xy23, _MM_SHUFFLE(2, 0, 2, 0));'

# In other layouts, with normals, it goes sixteen vertices at a time as well,
# normalizing the sixteen together and scaling each four back by their
# lengths: the last group's indices left unchecked, a length out of the
# estimate's range taken all the same, or the third group scaled by the
# second's lengths.
simd_mutant lbs_avx512_sixteen_strided_last_group_unchecked avx512 "" \
'              fk__joints_in_range_avx512(r, r->joints + 3 * group, 4, influences, 0)))' \
'              1))'

simd_mutant lbs_avx512_sixteen_strided_normalize_range_unchecked avx512 "" \
'    if (FK__LIKELY(_mm512_fpclass_ps_mask(length2, FK__NOT_POSITIVE_NORMAL_CLASSES) == 0)) {
        const __m512 inverse = fk__inverse_length_avx512(length2);
        turned[0]' \
'    if (FK__LIKELY(_mm512_fpclass_ps_mask(length2, 0x01) == 0)) {
        const __m512 inverse = fk__inverse_length_avx512(length2);
        turned[0]'

simd_mutant lbs_avx512_sixteen_strided_lengths_of_wrong_group avx512 "" \
'        turned[2] = _mm512_mul_ps(turned[2], _mm512_shuffle_f32x4(inverse, inverse, _MM_SHUFFLE(2, 2, 2, 2)));' \
'        turned[2] = _mm512_mul_ps(turned[2], _mm512_shuffle_f32x4(inverse, inverse, _MM_SHUFFLE(1, 1, 1, 1)));'

# The AVX-512 LBS loop works on the bones' rows: transposed
# once per call, the point broadcast to every row, the products summed within
# 128-bit lanes, a normal's length from two block swaps, one permute to store.
simd_mutant lbs_avx512_rows_transposed_wrong avx512 "" \
'_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);' \
'_mm512_setr_epi32(0, 8, 4, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);'

simd_mutant lbs_avx512_rows_sum_half_missing avx512 "" \
'    __m512 b = _mm512_add_ps(_mm512_unpacklo_ps(p2, p3), _mm512_unpackhi_ps(p2, p3));' \
'    __m512 b = _mm512_add_ps(_mm512_unpacklo_ps(p2, p3), _mm512_unpacklo_ps(p2, p3));'

simd_mutant lbs_avx512_rows_normal_length_of_two avx512 "" \
'                                              _mm512_shuffle_f32x4(n, n, _MM_SHUFFLE(2, 2, 2, 2)));' \
'                                              _mm512_setzero_ps());'

# The four-vertex renormalization sums the squares as it did until late on
# 24 November, (x^2 + y^2) + z^2 by block swaps, while the sixteen-vertex one
# fuses them (fk__length2_avx512()): within any tolerance, but packed arrays
# and other layouts then give other last bits (test_simd's layouts test).
simd_mutant lbs_avx512_rows_length_rounded_apart avx512 "" \
'    const __m512 length2 = fk__length2_avx512(_mm512_shuffle_f32x4(n, n, _MM_SHUFFLE(0, 0, 0, 0)),
                                              _mm512_shuffle_f32x4(n, n, _MM_SHUFFLE(1, 1, 1, 1)),
                                              _mm512_shuffle_f32x4(n, n, _MM_SHUFFLE(2, 2, 2, 2)));' \
'    __m512 square = _mm512_maskz_mul_ps(0x0FFF, n, n), length2;
    length2 = _mm512_add_ps(square, _mm512_shuffle_f32x4(square, square, _MM_SHUFFLE(2, 3, 0, 1)));
    length2 = _mm512_add_ps(length2, _mm512_shuffle_f32x4(length2, length2, _MM_SHUFFLE(1, 0, 3, 2)));'

simd_mutant lbs_avx512_rows_store_lane avx512 "" \
'_mm512_setr_epi32(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 0, 0, 0, 0)' \
'_mm512_setr_epi32(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 11, 7, 0, 0, 0, 0)'

# It reads a point as 16 bytes, so it leaves the run's last vertex to the tail.
# gcc at -O2 folds the read into a broadcast load whose mask keeps the fourth
# float from faulting; test_simd is built at -O0 here, where the 16 bytes are
# read as such, and the read past the array (packed, or records whose point
# is their last field) crashes a guard-page test.
simd_mutant lbs_avx512_last_point_overread avx512 "" \
'    for (; i + 4 < r.count; i += 4) {
        __m512 moved, turned = _mm512_setzero_ps(); /* set only with normals */' \
'    for (; i + 4 <= r.count; i += 4) {
        __m512 moved, turned = _mm512_setzero_ps(); /* set only with normals */'

# Blends whose folded normalization overflows must go to the reference, on each path.
simd_mutant dqs_avx512_overflow_kept avx512 "" \
'    if (not_finite) return 0; /* see fk__dqs8_avx2() */' \
''

simd_mutant dqs_avx2_overflow_kept avx2 -DFK_LBS_NO_AVX512 \
'    if (_mm256_movemask_ps(finite) != 0xFF) return 0;' \
''

simd_mutant dqs_sse2_overflow_kept x86-64 -DFK_LBS_NO_AVX2 \
'if (FK__LIKELY((_mm_movemask_ps(_mm_cmpneq_ps(finite, _mm_setzero_ps())) & 7) == 0)) {' \
'if (1) {'

# When one row of the hemisphere table serves, the bones must be copied signed.
simd_mutant dqs_signed_bones_unsigned x86-64 "" \
'palette + (one_influence ? (size_t)j * FK__DQS_PALETTE_STRIDE : hemisphere[j]),' \
'palette + (size_t)j * FK__DQS_PALETTE_STRIDE,'

# The AVX-512 DQS loop signs two influences in packed lists sixteen vertices at
# a time, reading the one-bit table as 16-bit words: two quarters of the table
# swapped, the wrong bit choosing the half, the bit of a joint eight away read,
# the word of the wrong sixteen joints read, or the next group's signs not found
# (the current group's kept). (Signing the first influence instead of the
# second, or reading the second's row at the first's bit, would be no bug: the
# blend is negated, or the dot product is the same, and the vertex moves
# identically.)
simd_mutant dqs_avx512_pairs_quarters_swapped avx512 "" \
'_mm512_mask_blend_epi16(bit6, quarter[0], quarter[1])' \
'_mm512_mask_blend_epi16(bit6, quarter[1], quarter[0])'

simd_mutant dqs_avx512_pairs_half_by_wrong_bit avx512 "" \
'__mmask32 bit7 = _mm512_test_epi16_mask(word_index, _mm512_set1_epi16(128));' \
'__mmask32 bit7 = _mm512_test_epi16_mask(word_index, _mm512_set1_epi16(32));'

simd_mutant dqs_avx512_pairs_bit_of_joint_eight_away avx512 "" \
'_mm512_and_si512(seconds, _mm512_set1_epi32(15))),' \
'_mm512_and_si512(seconds, _mm512_set1_epi32(7))),'

simd_mutant dqs_avx512_pairs_word_of_wrong_joints avx512 "" \
'_mm512_and_si512(_mm512_srli_epi32(seconds, 4), _mm512_set1_epi32(3)));' \
'_mm512_and_si512(_mm512_srli_epi32(seconds, 5), _mm512_set1_epi32(3)));'

simd_mutant dqs_avx512_pairs_signs_of_wrong_group avx512 "" \
'                else fk__dqs_offsets16x2_avx512(&r, 16, offset_vectors);' \
'                else fk__dqs_offsets16x2_avx512(&r, 0, offset_vectors);'

# The sign table, built four bones to a compare: the bones past the last not
# zeroed (they flip), the last partial group left out, the entries' lanes out
# of order, the last lane's bit dropped, a row's complement taken past the
# bones, or 64 bones masked as none.
simd_mutant dqs_table_padding_not_zero x86-64 "" \
'across[c][b] = b < bones ? palette[(size_t)(b * FK__DQS_PALETTE_STRIDE + c)] : 0.0f;' \
'across[c][b] = b < bones ? palette[(size_t)(b * FK__DQS_PALETTE_STRIDE + c)] : -1.0f;'

simd_mutant dqs_table_last_group_left_out x86-64 "" \
'const int padded = (bones + 3) / 4 * 4;' \
'const int padded = bones / 4 * 4;'

simd_mutant dqs_table_entry_lanes_swapped x86-64 "" \
'_mm_setr_epi32(0, FK__DQS_PALETTE_STRIDE, 2 * FK__DQS_PALETTE_STRIDE,' \
'_mm_setr_epi32(0, 2 * FK__DQS_PALETTE_STRIDE, FK__DQS_PALETTE_STRIDE,'

simd_mutant dqs_table_last_bit_dropped x86-64 "" \
'bits |= (uint64_t)_mm_movemask_ps(negative) << b;' \
'bits |= (uint64_t)(_mm_movemask_ps(negative) & 7) << b;'

simd_mutant dqs_table_complement_past_bones x86-64 "" \
'((uint64_t)1 << bones) - 1;' \
'((uint64_t)2 << bones) - 1;'

simd_mutant dqs_table_64_bones_masked_as_none x86-64 "" \
'bones == FK__DQS_TABLE_BONES ? ~(uint64_t)0 :' \
'bones == FK__DQS_TABLE_BONES ? (uint64_t)0 :'

# Joint indices and palette offsets read four to a 64-bit load: the wrong
# quarter of the word, or the second word of eight influences never read.
simd_mutant u16_wrong_quarter x86-64 "" \
'return (uint16_t)(*word >> (16 * (e % 4)));' \
'return (uint16_t)(*word >> (16 * (e % 2)));'

simd_mutant u16_second_word_unread x86-64 "" \
'if (e % 4 == 0) memcpy(word, values + e, sizeof *word);' \
'if (e == 0) memcpy(word, values + e, sizeof *word);'

# The NEON LBS loop: a column read from the wrong row of the bone, the
# normal left at the blended matrix's length, the third coordinate stored from
# the wrong lane.
neon_mutant neon_column_from_wrong_row \
'            c1 = vfmaq_n_f32(c1, vld1q_f32(m + 4), weights[e]);' \
'            c1 = vfmaq_n_f32(c1, vld1q_f32(m + 8), weights[e]);'

neon_mutant neon_normal_not_renormalized \
'            moved = fk_vec3_normalize(fk_vec3_make(vgetq_lane_f32(n, 0), vgetq_lane_f32(n, 1), vgetq_lane_f32(n, 2)));' \
'            moved = fk_vec3_make(vgetq_lane_f32(n, 0), vgetq_lane_f32(n, 1), vgetq_lane_f32(n, 2));'

neon_mutant neon_store_wrong_lane \
'    vst1q_lane_f32((float *)p + 2, v, 2);' \
'    vst1q_lane_f32((float *)p + 2, v, 1);'

# The NEON DQS loop: the first influence taken as the pivot with three; the
# heaviest of four read from the wrong lane when it is the last; the later of
# two equal halves' maxima taken with eight (fk__heaviest() takes the first);
# a cross product negated; a normal read from the position; the sign table
# never flipping a bone; without the table, no bone flipped; an overflow kept
# instead of handed to the reference.
neon_mutant neon_dqs_first_pivot_for_three \
'joints[influences <= 2 ? 0 : fk__heaviest_neon(weights, influences)]' \
'joints[influences <= 3 ? 0 : fk__heaviest_neon(weights, influences)]'

neon_mutant neon_heaviest_last_lane_misread \
'    static const uint32_t bit[4] = {1, 2, 4, 8};' \
'    static const uint32_t bit[4] = {1, 2, 4, 4};'

neon_mutant neon_heaviest_of_eight_later_of_equals \
'    return w[high] > w[low] ? high : low;' \
'    return w[high] >= w[low] ? high : low;'

neon_mutant neon_cross_negated \
'    return fk__yzx_neon(vsubq_f32(vmulq_f32(a, fk__yzx_neon(b)), vmulq_f32(fk__yzx_neon(a), b)));' \
'    return fk__yzx_neon(vsubq_f32(vmulq_f32(fk__yzx_neon(a), b), vmulq_f32(a, fk__yzx_neon(b))));'

neon_mutant neon_dqs_normal_from_position \
'        n = fk__load3_neon(normal);' \
'        n = fk__load3_neon(position);'

neon_mutant neon_sign_table_never_flips \
'            row[b] = (uint16_t)(b * FK__DQS_PALETTE_STRIDE + (flip ? FK__DQS_BONE_FLOATS : 0));' \
'            row[b] = (uint16_t)(b * FK__DQS_PALETTE_STRIDE);'

neon_mutant neon_dqs_dot_products_never_flip \
'                b += FK__DQS_BONE_FLOATS * (fk_quat_dot(pivot, fk_quat_make(b[0], b[1], b[2], b[3])) < 0.0f);' \
''

neon_mutant neon_dqs_overflow_kept \
'    if (FK__LIKELY(vmaxvq_u32(vandq_u32(vmvnq_u32(vceqzq_f32(finite)), xyz)) == 0)) {' \
'    if (1) {'

# ---- Running them ----------------------------------------------------------------

scalar_programs=(test_properties)
[ -f "$root/tests/test_core.c" ] && scalar_programs+=(test_core)
programs=("${scalar_programs[@]}")
build_flags=-DFK_LBS_NO_SIMD

# Whether this CPU runs the loops a SIMD mutant needs (arm64: natively, or
# under qemu-aarch64 with the cross compiler, on x86-64).
cpu_has() {
    local flag
    [ -z "$1" ] && return 0
    if [ "$1" = arm64 ]; then
        [ "$(uname -m)" = aarch64 ] && return 0
        command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null
        return
    fi
    [ "$(uname -m)" = x86_64 ] || return 1
    case $1 in
        x86-64) return 0 ;;
        avx2) set -- avx2 fma ;;
        avx512) set -- avx512f avx512vl avx512dq avx512bw avx2 fma ;;
        gcc-avx512) command -v gcc >/dev/null && cpu_has avx512; return ;;
    esac
    for flag in "$@"; do grep -qw "$flag" /proc/cpuinfo || return 1; done
}

# The programs and flags that judge mutant $1: the scalar tests with the SIMD
# loops compiled out, or test_simd with the loop the mutant is in.
choose_programs() {
    program_cc=$cc; program_runner=""
    if [ -z "${needs[$1]}" ]; then
        programs=("${scalar_programs[@]}"); build_flags=-DFK_LBS_NO_SIMD
    else
        read -r -a programs <<<"${judges[$1]}"; build_flags=${flags[$1]}
        if [ "${needs[$1]}" = arm64 ] && [ "$(uname -m)" != aarch64 ]; then
            program_cc=aarch64-linux-gnu-gcc; program_runner="qemu-aarch64 -L /usr/aarch64-linux-gnu"
        fi
        [ "${needs[$1]}" = gcc-avx512 ] && program_cc=gcc
    fi
}

# Writes the header with mutant $1 applied (or none for -1) to $work/include.
make_header() {
    local header find replacement rest count
    header=$(cat "$root/fk_lbs.h"; printf x); header=${header%x}
    if [ "$1" -ge 0 ]; then
        find=${finds[$1]}; replacement=${replacements[$1]}
        rest=${header//"$find"/}
        count=$(( (${#header} - ${#rest}) / ${#find} ))
        if [ "$count" -ne 1 ]; then
            echo "BROKEN   ${names[$1]}: its text occurs $count times in fk_lbs.h, not once; update its entry in tests/mutants.sh"
            return 1
        fi
        header=${header/"$find"/"$replacement"}
    fi
    printf '%s' "$header" >"$work/include/fk_lbs.h"
}

# Builds and runs every program against $work/include/fk_lbs.h. Sets $culprits to
# what failed; returns 0 if everything passed, 1 if something failed, 2 if a
# program did not compile.
run_programs() {
    local program status output
    culprits=""
    # -O1 compiles in half the time of -O2; the programs build side by side.
    # FK_LBS_NO_SIMD for the scalar mutants: they edit the scalar code, the
    # specification that tests/test_simd.c holds the SIMD code to.
    local pids=() pid compiled=1 library=""
    # Every program but test_simd links the library (tests/fk_lbs_impl.c),
    # compiled once for them, as the Makefile does.
    for program in "${programs[@]}"; do [ "$program" = test_simd ] || library="$work/fk_lbs.o"; done
    if [ -n "$library" ]; then
        rm -f "$library"
        $program_cc -std=c99 -O1 -w $build_flags -I"$work/include" -c "$root/tests/fk_lbs_impl.c" -o "$library" \
            2>"$work/fk_lbs.log" || { head -5 "$work/fk_lbs.log"; return 2; }
    fi
    for program in "${programs[@]}"; do
        # test_simd at -O0: it runs in half a second either way, and compiles
        # the header's loops in 2.3 s instead of 3.2.
        # (Under qemu test_simd runs at -O1: 7 s at -O0.)
        opt=-O1; linked=$library; [ "$program" = test_simd ] && linked=""
        [ "$program" = test_simd ] && [ -z "$program_runner" ] && opt=-O0
        $program_cc -std=c99 $opt -w $build_flags -I"$work/include" "$root/tests/$program.c" $linked -o "$work/$program" -lm 2>"$work/$program.log" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || compiled=0; done
    if [ $compiled -eq 0 ]; then head -5 "$work"/*.log; return 2; fi
    for program in "${programs[@]}"; do
        if [ "$program" = test_properties ]; then
            output=$(PROPS_SEED=$seed PROPS_N=$cases timeout 120 $program_runner "$work/$program" --no-shrink --fail-fast 2>&1 </dev/null); status=$?
        else
            # CHECK_FAIL_FAST: the tests after the first that fails are skipped
            output=$(CHECK_FAIL_FAST=1 timeout 120 $program_runner "$work/$program" 2>&1 </dev/null); status=$?
        fi
        if [ "$status" -ne 0 ]; then
            local failed
            failed=$(printf '%s\n' "$output" | sed -n -E 's/^FAIL ([A-Za-z0-9_]+) \(.*/\1/p' | sort -u | tr '\n' ' ')
            [ "$status" -ge 124 ] && failed="$failed(exit $status)"
            culprits="$culprits$program: ${failed:-exit $status}  "
            [ "${MUTANT_VERBOSE:-0}" = 1 ] && printf '%s\n' "$output" | grep -E '^  (broke|case) ' | head -2
        fi
    done
    [ -z "$culprits" ]
}

make_header -1
program_cc=$cc; program_runner=""
# First, the tests must pass on the unmodified header (else every mutant would
# look caught).
if [ "${MUTANT_SKIP_BASELINE:-0}" != 1 ]; then
    run_programs; status=$?
    if [ $status -ne 0 ]; then
        echo "the tests fail on the unmodified fk_lbs.h ($culprits); fix that first"
        exit 1
    fi
    programs=(test_simd test_properties test_bad_input); build_flags=""
    run_programs; status=$?
    if [ $status -ne 0 ]; then
        echo "the tests built with SIMD fail on the unmodified fk_lbs.h ($culprits); fix that first"
        exit 1
    fi
    if [ "$(uname -m)" != aarch64 ] && cpu_has arm64; then
        programs=(test_simd); program_cc=aarch64-linux-gnu-gcc; program_runner="qemu-aarch64 -L /usr/aarch64-linux-gnu"
        run_programs; status=$?
        if [ $status -ne 0 ]; then
            echo "tests/test_simd.c built for aarch64 fails on the unmodified fk_lbs.h ($culprits); fix that first"
            exit 1
        fi
    fi
fi

shard=${MUTANT_SHARD:-0/1}; shard_index=${shard%/*}; shard_count=${shard#*/}
killed=0; total=0; broken=0; skipped=0
for index in "${!names[@]}"; do
    [ $((index % shard_count)) -eq "$shard_index" ] || continue
    if [ $# -gt 0 ]; then
        wanted=0; for name in "$@"; do [ "$name" = "${names[$index]}" ] && wanted=1; done
        [ $wanted -eq 1 ] || continue
    fi
    if ! cpu_has "${needs[$index]}"; then
        printf 'SKIPPED  %-40s this CPU does not run the %s loops\n' "${names[$index]}" "${needs[$index]}"
        skipped=$((skipped + 1)); continue
    fi
    total=$((total + 1))
    choose_programs "$index"
    make_header "$index" || { broken=$((broken + 1)); continue; }
    run_programs; status=$?
    if [ $status -eq 2 ]; then
        echo "BROKEN   ${names[$index]}: the mutated header does not compile"; broken=$((broken + 1))
    elif [ $status -eq 1 ]; then
        killed=$((killed + 1)); printf 'killed   %-40s %s\n' "${names[$index]}" "$culprits"
    else
        printf 'SURVIVED %-40s no test noticed\n' "${names[$index]}"
    fi
done
if [ $skipped -gt 0 ]; then echo "mutants: $killed killed of $total ($skipped skipped)"; else echo "mutants: $killed killed of $total"; fi
[ $killed -eq $total ] && [ $total -gt 0 ]
