#!/usr/bin/env bash
# mutants.sh - do the tests catch real bugs? Each mutant below is one deliberate
# bug: a name, the function or macro of fk_lbs.h it is planted in, a short text
# of that definition (it must occur there exactly once, so that an entry the
# header has outgrown fails loudly instead of testing nothing) and its
# replacement. For each mutant a copy of the header is edited, the programs
# that judge it are rebuilt against the copy and run, and the mutant is killed
# when any of them fails or crashes. The real header is left alone. Prints
# "mutants: K killed of N" (and how many were skipped because this machine does
# not run their code); exits non-zero unless all that ran were killed.
#
# Who judges: a bug in the reference code (mutant), the property tests and
# tests/test_core.c, built with FK_LBS_NO_SIMD; a bug in the fast paths
# (simd_mutant), tests/test_simd.c, which holds them to the reference; a bug in
# forward kinematics' fast pass, or one that only the property tests' layouts
# show (props_mutant), the property and bad-input tests built with the fast
# paths. Fast-path mutants name the tier they are judged in:
#   sse2  the 4-lane tier on x86-64 (built with FK_LBS_NO_AVX2)
#   avx2  the AVX2+FMA tier (needs a CPU with AVX2 and FMA); avx2-gcc the same
#         built with gcc whatever CC is, for a bug that only gcc's code shows
#   neon  64-bit Arm: built with aarch64-linux-gnu-gcc and run under
#         qemu-aarch64 on other hosts, as tests/arm64.sh does (make arm64-tools)
#   wasm  WebAssembly SIMD128: built with clang --target=wasm32-wasi and run by
#         node tests/wasm/run.mjs, as the Makefile's test-wasm does (make wasm-tools)
# A definition is named as it is spelled in the header, a function inside a
# macro with its ## (fk__dqs_loop_##tier); NAME@neon (or @sse2, @wasm) picks the
# definition inside that instruction set's #if branch where each has its own.
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
#   MUTANT_LOCATE_ONLY=1            only check that every entry finds its text
#                                   (seconds; after editing the header)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cc=${CC:-cc}
seed=${MUTANT_SEED:-0x6d7574616e7473}
cases=${MUTANT_CASES:-1000}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/include"

names=(); tiers=(); judges=(); keys=(); finds=(); replacements=()
add_mutant() { names+=("$1"); tiers+=("$2"); judges+=("$3"); keys+=("$4"); finds+=("$5"); replacements+=("$6"); }
# mutant NAME DEFINITION FIND REPLACEMENT: a bug in the reference code.
mutant() { add_mutant "$1" "" "" "$2" "$3" "$4"; }
# beyond_mutant NAME DEFINITION FIND REPLACEMENT: a bug in the functions beyond
# forward kinematics and skinning (poses, weights, IK), which tests/test_beyond.c
# must catch.
beyond_mutant() { add_mutant "$1" "" test_beyond "$2" "$3" "$4"; }
# animation_mutant NAME DEFINITION FIND REPLACEMENT: a bug in the animation
# toolkit (analytic IK, root motion, interpolation, morph targets), which
# tests/test_animation.c must catch.
animation_mutant() { add_mutant "$1" "" test_animation "$2" "$3" "$4"; }
# gpu_mutant NAME DEFINITION FIND REPLACEMENT: a bug in what GPU skinning reads
# (shader palettes, draw splits), which tests/test_gpu.c must catch.
gpu_mutant() { add_mutant "$1" "" test_gpu "$2" "$3" "$4"; }
# cor_mutant NAME DEFINITION FIND REPLACEMENT: a bug in the centres of rotation's
# precompute, which tests/test_cor.c must catch.
cor_mutant() { add_mutant "$1" "" test_cor "$2" "$3" "$4"; }
# cor_lanes_mutant NAME DEFINITION FIND REPLACEMENT: a bug in the precompute's
# samples-at-a-time sum (AVX2 tier), which tests/test_cor.c must catch.
cor_lanes_mutant() { add_mutant "$1" avx2 test_cor "$2" "$3" "$4"; }
# simd_mutant NAME TIER DEFINITION FIND REPLACEMENT: a bug in the fast paths.
simd_mutant() { add_mutant "$1" "$2" test_simd "$3" "$4" "$5"; }
# props_mutant NAME TIER DEFINITION FIND REPLACEMENT: a bug in the fast paths
# that the property and bad-input tests must catch.
props_mutant() { add_mutant "$1" "$2" "test_properties test_bad_input" "$3" "$4" "$5"; }
# bad_input_mutant NAME DEFINITION FIND REPLACEMENT: a bug in what a function
# does with bad input (writes on error, walks past its subtree), which
# tests/test_bad_input.c must catch.
bad_input_mutant() { add_mutant "$1" "" test_bad_input "$2" "$3" "$4"; }
# engine_mutant NAME TIER DEFINITION FIND REPLACEMENT: a bug in prepared
# skeletons or engine-form forward kinematics, which tests/test_engine.c must
# catch: in the checked loops (TIER "", built without the fast paths) or in a
# fast pass (sse2).
engine_mutant() { add_mutant "$1" "$2" test_engine "$3" "$4" "$5"; }
# retarget_mutant NAME DEFINITION FIND REPLACEMENT: a bug in retargeting, which
# tests/test_retarget.c must catch.
retarget_mutant() { add_mutant "$1" "" test_retarget "$2" "$3" "$4"; }

# ---- Forward kinematics: the reference -------------------------------------------

# t_i = -Q_i x_i + Q_p x_i - Q_p x_p + x_p, the formula often copied from
# derivations: right for children of a root only, so grandchildren come loose.
mutant literal_translation_formula fk__forward_parents_first_reference \
'        if (!fk__vec3_is_finite(out[i].t))' \
'        if (parent >= 0)
            out[i].t = fk_vec3_add(fk_vec3_sub(fk_vec3_sub(fk_quat_rotate(out[parent].q, x),
                                                           fk_quat_rotate(out[i].q, x)),
                                               fk_quat_rotate(out[parent].q, rest_joints[parent])),
                                   rest_joints[parent]);
        if (!fk__vec3_is_finite(out[i].t))'

# Q_i = q_i Q_p in the parent-frame convention.
mutant parent_frame_product_reversed fk__joint_transform ': fk_quat_mul(parent->q, q),' ': fk_quat_mul(q, parent->q),'

# Q_i = Q_p q_i in the rest-frame convention.
mutant rest_frame_product_reversed fk__joint_transform 'rest_frame ? fk_quat_mul(q, parent->q)' 'rest_frame ? fk_quat_mul(parent->q, q)'

# Products down a chain not renormalized, so rounding compounds.
mutant chain_not_renormalized fk__joint_transform 'fk__renormalization_factor(parent->q))' '1.0f)'

# Input quaternions used at the length given.
mutant input_rotation_not_normalized fk__joint_transform 'fk_quat q = fk_quat_normalize(rotation);' 'fk_quat q = rotation;'

# The translations d_i dropped.
mutant translations_ignored fk__joint_transform 'translation ? fk_vec3_add(rest_joint, *translation) : rest_joint' 'rest_joint'

# A joint whose parent comes right after it takes the one-pass path, which then
# reads a parent not yet computed (a chain listed children first, say).
mutant fast_path_for_unsorted_input fk__forward_parents_first_reference '(parent >= i)' '(parent > i + 1)'

# fk_validate_skeleton() searches for cycles only in parents-first arrays.
mutant cycles_unchecked_when_unsorted fk_validate_skeleton '|| parents_first) return' '|| !parents_first) return'

# ---- Quaternions and matrices --------------------------------------------------

# q* v q instead of q v q*: every rotation turns the wrong way.
mutant rotation_missing_conjugate fk_quat_rotate 'fk_vec3_make(q.x, q.y, q.z)' 'fk_vec3_make(-q.x, -q.y, -q.z)'

# One sign wrong in the rotation matrix.
mutant matrix_entry_sign fk_quat_to_mat3 'out[1] = 2.0f * (xy - wz);' 'out[1] = 2.0f * (xy + wz);'

# Slerp weighted t instead of sin(t angle) / sin(angle).
mutant slerp_linear_weight fk_quat_slerp 'wb = sinf(t * angle) / sine;' 'wb = t;'

# The third Euler angle read from entries that lose precision next to gimbal lock.
mutant euler_angles_read_separately fk_quat_to_euler \
'atan2f(s * (cos_a * m[3 * j + i] + s_sin_a * m[3 * k + i]),
                                        cos_a * m[3 * j + j] + s_sin_a * m[3 * k + j])' \
'atan2f(-s * m[3 * i + j], m[3 * i + i]) + 0.0f * (cos_a + s_sin_a)'

# The dual part q t / 2 instead of t q / 2.
mutant dual_quat_product_reversed fk_rigid_to_dual_quat \
'fk_quat_mul(fk_quat_make(r.t.x, r.t.y, r.t.z, 0.0f), r.q)' 'fk_quat_mul(r.q, fk_quat_make(r.t.x, r.t.y, r.t.z, 0.0f))'

# ---- Skinning: the reference loops (tests/test_simd.c holds the fast paths to them)

# LBS skips a vertex's last influence.
mutant lbs_drops_last_weight fk__lbs_reference_from \
'for (e = 0; e < FK__LBS_BONE_FLOATS; ++e) blend[e] +=' \
'if (k + 1 < d->influences) for (e = 0; e < FK__LBS_BONE_FLOATS; ++e) blend[e] +='

# LBS normals not renormalized.
mutant lbs_normal_not_renormalized fk__lbs_reference_from 'i), fk_vec3_normalize(moved));' 'i), moved);'

# LBS normals written at the positions' output stride.
mutant lbs_normal_written_with_position_stride fk__lbs_reference_from \
'fk__out_at(d->out_normals, layout->out_normal_stride' 'fk__out_at(d->out_normals, layout->out_position_stride'

# DQS blends q and -q as they come.
mutant dqs_without_antipodal_flip fk__dqs_reference_from '< 0.0f ? -weight : weight;' '< 0.0f ? weight : weight;'

# DQS takes its hemisphere from the first influence listed, even one of weight zero.
mutant dqs_hemisphere_from_first_influence fk__heaviest 'heaviest)) heaviest = k;' 'heaviest)) (void)0;'

# The blended dual part not divided by the blend's length.
mutant dqs_dual_not_normalized fk__dqs_finish 'dual = fk__quat_scale(dual, inverse);' '(void)0;'

# DQS leaves normals as they were.
mutant dqs_normal_not_rotated fk__dqs_finish '*n = fk_quat_rotate(real, *n);' '(void)n;'

# A tangent's handedness lost, as in runtimes that skin only x y z.
mutant tangent_handedness_dropped fk__store_tangent 'memcpy(p + 3, rest->w, sizeof rest->w);' 'p[3] = 1.0f; (void)rest;'

# LBS tangents not renormalized.
mutant lbs_tangent_not_renormalized fk__lbs_reference_from 'i), fk_vec3_normalize(moved),' 'i), moved,'

# DQS leaves tangents' x y z where they were.
mutant dqs_tangent_not_rotated fk__dqs_reference_from 'fk_quat_rotate(real, tangent.xyz)' 'tangent.xyz'

# Input records read one float short of their stride.
mutant input_stride_one_float_short fk__float_at '(size_t)vertex * stride' '(size_t)vertex * (stride - sizeof(float))'

# Stride 0 taken as one float more than packed.
mutant default_stride_one_float_long fk__check_stride '*stride = element;' '*stride = element + sizeof(float);'

# Rigs larger than the palette: a bone kept in the cache is used for another
# joint of its slot.
mutant bone_cache_slot_never_refreshed fk__cached_bone 'if (cache->joint[slot] == joint) return' 'if (cache->joint[slot] >= 0) return'

# ---- Scale: forward kinematics and affine LBS (the reference) ----------------------

# The parent's matrix applied after the joint's own instead of before it.
mutant scaled_forward_product_reversed fk__scaled_joint 'fk_mat34_mul(parent, local, out)' 'fk_mat34_mul(local, parent, out)'

# The pivot form's translation without - R S x: joints turn about the origin.
mutant scaled_forward_about_the_origin fk__scaled_joint 'pivot[row] - (' 'pivot[row] - 0.0 * ('

# An overflow in the walk not reported: infinities pass for a pose.
mutant scaled_forward_overflow_unreported fk__forward_scaled_marked 'overflowed = 1;' 'overflowed = 0;'

# A cycle met after an overflow reported as the overflow.
mutant scaled_forward_overflow_before_cycle fk__forward_scaled_marked 'overflowed = 1;' 'return FK_ERROR_NOT_FINITE;'

# Affine normals moved by the blend itself, as for rigid bones.
mutant affine_normals_by_the_matrix fk__lbs_reference_from 'fk_vec3 moved = d->matrices ? fk__cofactor_normal(blend, n)' \
'fk_vec3 moved = 0 ? fk__cofactor_normal(blend, n)'

# Mirrored blends' normals not turned round: they point inside.
mutant cofactor_normal_not_flipped fk__cofactor_normal '? fk_vec3_make(-m.x, -m.y, -m.z) : m' '? m : m'

# Huge or tiny weights' columns not rescaled: the cofactors overflow to NaN
# or underflow to zero.
mutant cofactor_normal_not_rescaled fk__cofactor_normal 'if ((largest > range' 'if (0 && (largest > range'

# DQS of bones with scale: the centre option ignored (always at the bones); the
# blended scale part not applied at the bones; the displacement at the vertex
# not carried by the rigid parts; the bone's rotation taken with z turned
# round; the scale part about the origin instead of the bone's rest origin;
# normals not through the scale part; the scale parts' blend not divided by
# the weights' sum.
mutant dqs_scale_centre_ignored fk__dqs_reference_from \
'const int at_vertex = scaled && d->dqs_scale_center == FK_DQS_SCALE_AT_VERTEX;' 'const int at_vertex = 0;'
mutant dqs_scale_part_not_applied fk__dqs_reference_from 'if (!at_vertex) /*' 'if (0) /*'
mutant dqs_scale_displacement_dropped fk__dqs_reference_from 'if (at_vertex) { /*' 'if (0) { /*'
mutant dqs_bone_rotation_z_turned fk__bone_rotation 'fk__vec3d_cross(x, out_y, out_z);' 'fk__vec3d_cross(out_y, x, out_z);'
# A scale centred at the vertex: the dual part's change with the point not halved.
mutant dqs_centre_motion_not_halved fk__dqs_centre_at_vertex '(float)(0.5 * product[e]);' '(float)product[e];'
mutant dqs_scale_part_about_the_origin fk__dqs_scaled_bone '(float)(b[4 * row + 3] - (scale' '(float)(0.0 - (scale'
mutant dqs_scaled_normals_not_through_the_scale fk__dqs_reference_from \
'if (d->normals) n = fk_vec3_normalize(fk__cofactor_normal(scale, n));' ''
mutant dqs_scale_blend_not_divided fk__dqs_reference_from 'scale[e] /= total;' 'scale[e] /= 1.0f;'

# The engine bridge for rigs with scale: rest frames of different scales taken
# for one space; the skinning matrices not brought into the space.
mutant bind_frames_scales_not_compared fk_bind_frames_from_matrices \
'<= (double)FK_LBS_RIGID_TOLERANCE * scale)) return FK_ERROR_NOT_RIGID;' '<= 1e300)) return FK_ERROR_NOT_RIGID;'
mutant skin_matrices_not_in_the_space fk_skin_matrices_from_matrices 'fk__mat34_mul_double(left, f, product);' \
'fk__mat34_mul_double(skinning, f, product);'

# Prepared skeletons: a placed parent climbed past (read as a cycle); depths
# counted from 0; the position array left as the depths.
engine_mutant skeleton_climbs_past_placed_parent "" fk_skeleton_init \
'if (parent < 0 || position[parent] >= 0) break;' 'if (parent < 0) break;'
engine_mutant skeleton_depth_from_zero "" fk_skeleton_init 'position[order[i]] = parent < 0 ? 1 :' 'position[order[i]] = parent < 0 ? 0 :'
engine_mutant skeleton_position_not_inverse "" fk_skeleton_init 'for (i = 0; i < joint_count; ++i) position[order[i]] = i;' \
'for (i = 0; i < joint_count; ++i) position[i] = i;'

# Engine-form FK, the checked loops: the parent's matrix applied after the
# joint's own; the inverse bind before the world matrix; an overflow not
# reported; the float product's translation dropped; the rigid call's local
# translation ignored; its inverse bind applied first.
engine_mutant engine_product_reversed "" fk_forward_engine \
'else fk__mat34_mul_float(out_world + 12 * (size_t)parent, local, world);' \
'else fk__mat34_mul_float(local, out_world + 12 * (size_t)parent, world);'
engine_mutant engine_skinning_reversed "" fk_forward_engine \
'fk__mat34_mul_float(world, inverse_bind_matrices + 12 * (size_t)joint, out_skinning + 12 * (size_t)joint);' \
'fk__mat34_mul_float(inverse_bind_matrices + 12 * (size_t)joint, world, out_skinning + 12 * (size_t)joint);'
engine_mutant engine_overflow_unreported "" fk_forward_engine 'result = FK_ERROR_NOT_FINITE;' '(void)0;'
engine_mutant engine_float_product_translation_dropped "" fk__mat34_mul_float '(col == 3 ? a[4 * row + 3] : 0.0f)' '0.0f'
engine_mutant engine_rigid_translation_ignored "" fk_forward_engine_rigid '&translations[joint], 0);' 'NULL, 0);'
engine_mutant engine_rigid_bind_first "" fk_forward_engine_rigid \
'fk_rigid_mul(out_world[joint], inverse_binds[joint])' 'fk_rigid_mul(inverse_binds[joint], out_world[joint])'

# Engine-form FK, the fast passes: a parent other than the joint before taken
# from registers; a root not made the child of the identity (it takes the joint
# before as its parent); a sign of the prepared left factor turned round; lengths
# below float's normal range let through; the inverse bind's translation
# dropped; a second joint's length taken from the first's; the last group's
# padding taking the group's first joint for every lane; the skinning rotation
# and a skinning matrix's last row left out of the finiteness checks; the marks'
# fourth lane (the matrices' translations) not read; an infinity taken as finite.
engine_mutant engine_fast_parent_always_previous sse2 fk__engine_matrices_pass \
'if (parent != previous) {' 'if (parent < 0) {'
engine_mutant engine_fast_root_takes_previous sse2 fk__engine_rigid_pass 'parent_q = identity;' 'parent_q = q;'
engine_mutant engine_fast_left_factor_sign sse2 fk__quat_left_make \
'l.y = fk__f4_xor(FK__F4_PERMUTE(a, 2, 3, 0, 1), fk__f4_make(-0.0f,' \
'l.y = fk__f4_xor(FK__F4_PERMUTE(a, 2, 3, 0, 1), fk__f4_make(0.0f,'
engine_mutant engine_fast_lengths_unchecked sse2 fk__engine_factors4 \
'bad |= !fk__is_positive_normal(lanes[lane]);' 'bad |= 0;'
engine_mutant engine_fast_bind_translation_dropped sse2 fk__engine_rigid_pass \
'const fk__f4 skin_t = fk__f4_add(rotated_bind_t, t);' 'const fk__f4 skin_t = t;'
engine_mutant engine_fast_gathered_length_of_first sse2 fk__engine_factors4 \
'y = fk__f4_load(&rotations[joints[1]].x);' 'y = fk__f4_load(&rotations[joints[0]].x);'
engine_mutant engine_fast_padding_of_first sse2 fk__engine_factors \
'last[lane] = joints[i + lane < count ? i + lane : count - 1];' 'last[lane] = joints[i];'
engine_mutant engine_fast_skin_rotation_unchecked sse2 fk__engine_rigid_pass 'sum = fk__f4_add(skin_q, skin_t);' \
'sum = skin_t;'
engine_mutant engine_fast_skin_row_unchecked sse2 fk__engine_matrices_pass 'sum = fk__f4_add(fk__f4_add(s0, s1), s2);' \
'sum = fk__f4_add(s0, s1);'
engine_mutant engine_fast_marks_lane_3_unread sse2 fk__marks_finite 'for (lane = 0; lane < 4; ++lane)' \
'for (lane = 0; lane < 3; ++lane)'
engine_mutant engine_fast_infinity_marked_finite sse2 fk__marks_finite '>> 16 < 0x7F80u' '>> 16 < 0x7FC0u'

# A subtree update with scale: a cycle through the subtree's root found only
# after the marks are written; the subtree's joints not marked for the walk.
mutant scaled_subtree_cycle_through_root_found_late fk_forward_scaled_subtree \
'if (root_parent >= 0 && fk__in_subtree(joint_count, parents, joint, root_parent)) return FK_ERROR_CYCLE;' ''
mutant scaled_subtree_not_marked fk_forward_scaled_subtree 'matrices[12 * i] = FK__SCALED_UNVISITED;' '(void)i;'

# Subtree walks that believe a mark outside the subtree (the caller's q.w of 4
# or 8, a matrix starting with an infinity), or climb past the subtree's root;
# a subtree whose pose overflows float reported as fine.
bad_input_mutant subtree_marks_believed_outside fk__forward_marked \
'(root >= 0 && fk__in_subtree(joint_count, parents, root, i) <= 0)' '0'
bad_input_mutant subtree_climb_past_root fk__forward_marked 'if (parent < 0 || joint == root ||' 'if (parent < 0 ||'
bad_input_mutant scaled_subtree_marks_believed_outside fk__forward_scaled_marked \
'(root >= 0 && fk__in_subtree(joint_count, parents, root, i) <= 0)' '0'
bad_input_mutant subtree_overflow_unreported fk__forward_subtree 'result = FK_ERROR_NOT_FINITE;' 'result = FK_OK;'

# The engine bridge writing each joint as it checks it, so that an error at a
# later joint leaves the earlier ones written.
bad_input_mutant bind_written_before_checked fk_bind_from_matrices \
'fk__bind_rest_joint(inverse_bind_matrices, stretch_0, i, &rest);' \
'fk__bind_rest_joint(inverse_bind_matrices, stretch_0, i, &out_rest_joints[i]); (void)rest;'
bad_input_mutant pose_written_before_checked fk_pose_from_matrices 'i, &q, &d);' \
'i, &out_rotations[i], &out_translations[i]); (void)q; (void)d;'
# The bounds that let one pass check the motions only (poses) or write at once
# (skinning matrices) taken as always met: an overflow passes, or is found late.
bad_input_mutant pose_overflow_bound_ignored fk_pose_from_matrices '!(16.0 * largest <= (double)FLT_MAX)' '0'
bad_input_mutant skin_matrices_bound_ignored fk_skin_matrices_from_matrices 'pass = 2.0 * largest <= (double)FLT_MAX;' \
'pass = 1;'
bad_input_mutant bind_frames_written_before_checked fk_bind_frames_from_matrices 'if (pass) out_bind_poses[i] = pose;' \
'out_bind_poses[i] = pose;'
bad_input_mutant skin_matrices_written_before_checked fk_skin_matrices_from_matrices 'if (pass) out_matrices[' 'out_matrices['

# Masked layers: the blend's masks ignored; the additive layer's mask ignored.
beyond_mutant pose_blend_mask_ignored fk__masked_weight 'return masks && masks[p] ? weights[p] * masks[p][i] : weights[p];' \
'(void)i; return masks ? weights[p] : weights[p];'
beyond_mutant pose_add_mask_ignored fk_pose_add_masked 'const float w = mask ? weight * mask[i] : weight;' 'const float w = weight;'

# ---- Shader palettes and draw splits

# A bone not signed into its parent's hemisphere.
gpu_mutant palette_parent_sign_ignored fk__palette_sign_bones 'if (dot < 0.0f) sign = -sign;' ''

# Signs read from entries already signed, not from their canonical sign.
gpu_mutant palette_canonical_sign_ignored fk__palette_sign_bones 'fk__canonical_sign(q) * fk__canonical_sign(p) * ' ''

# The LBS palette written by columns, not rows.
gpu_mutant palette_matrix_transposed fk_palette_matrices 'bone[4 * column + row]' 'bone[4 * row + column]'

# The scale parts written by columns, not rows.
gpu_mutant palette_scale_part_transposed fk_palette_dual_quats_scaled 'entry[FK__DQS_SCALE_AT + 4 * column + row]' \
'entry[FK__DQS_SCALE_AT + 4 * row + column]'

# A draw closed one bone early.
gpu_mutant split_closes_early fk__split_pass '> d->max_bones) {' '>= d->max_bones) {'

# Joints of weight 0 given palette entries.
gpu_mutant split_counts_zero_weights fk__split_new_bones 'int seen = d->weights[at] == 0.0f || ' 'int seen = '

# A local joint that points at the wrong palette entry.
gpu_mutant local_joint_off_by_one fk__local_joint 'if (group_bones[b] == joint) return b;' 'if (group_bones[b] == joint) return b + (b > 0);'

# Skinned bounds: the other bones' pull on a vertex taken as half of what its
# weights allow.
gpu_mutant bounds_pull_halved fk__bounds_blend 'rest = 1.0 - (double)record->heaviest_weight' \
'rest = 0.5 - 0.5 * (double)record->heaviest_weight'

# DQS bounds that take every partner's rotation to agree with the pivot's.
gpu_mutant bounds_rotations_agree fk__bounds_region 'if (dot < gamma) gamma = dot;' ''

# LBS bounds scaled by the largest weight sum only.
gpu_mutant bounds_weight_sum_max_only fk__bounds_region \
'lo[e] = s_min * u_lo[e] < s_max * u_lo[e] ? s_min * u_lo[e] : s_max * u_lo[e];' 'lo[e] = s_max * u_lo[e];'

# Partners listed before the heaviest influence forgotten.
gpu_mutant bounds_partners_before_pivot_missed fk_skin_bounds_prepare 'if (slot != heaviest && joint' \
'if (slot > heaviest && joint'

# An overflowed partner list read as empty instead of as every bone.
gpu_mutant bounds_overflow_as_empty fk__bounds_partner_count 'record->partner_count < 0 ? bone_count' \
'record->partner_count < 0 ? 0'

# DQS centred at the bone bounded as if centred at the vertex.
gpu_mutant bounds_scale_centre_ignored fk__bounds_region \
'const int at_bone = scaled && d->dqs_scale_center == FK_DQS_SCALE_AT_BONE;' 'const int at_bone = 0;'

# ---- Animation toolkit: two-bone IK

# The textbook law of cosines, sin A = sqrt(1 - cos^2 A): a chain meant to be
# straight stays bent by sqrt(eps).
animation_mutant two_bone_sine_from_cosine fk__two_bone_solve 'sine = fminf(sqrtf(below * above), 1.0f);' \
'cosine = fmaxf(-1.0f, fminf((a * a + reach * reach - b * b) / denominator, 1.0f));
    sine = sqrtf(1.0f - cosine * cosine);'
# The softening curve's exponent without its scale: reach eased too fast.
animation_mutant two_bone_soft_curve_unscaled fk__two_bone_solve '-(reach - (length - soft)) / soft' '-(reach - (length - soft))'
# The pole's bend direction reversed: the knee points away from the pole.
animation_mutant two_bone_pole_side_reversed fk__two_bone_solve 'normal = fk_vec3_cross(bend, u);' \
'bend = fk_vec3_scale(bend, -1.0f); normal = fk_vec3_cross(bend, u);'
# The hinge taken from the current bend first: a straightened chain loses its side.
animation_mutant two_bone_hinge_from_current_bend fk__two_bone_hinge 'if (d->mid_axis &&' \
'if (fk_vec3_length(current_normal) > 1e-6f && fk__unit_perpendicular(fk_vec3_normalize(current_normal), u1, &hinge)) return hinge;
    if (d->mid_axis &&'
# The mid joint's relative rotation ignores that its parent turned with start.
animation_mutant two_bone_mid_ignores_parent_turn fk_ik_two_bone 'world_mid, q[1], turn_start,' 'world_mid, q[1], none,'
# The weight blends from the identity instead of from the current rotation.
animation_mutant two_bone_weight_from_identity fk__two_bone_blend 'fk_quat_slerp(q, solved, weight)' \
'fk_quat_slerp(fk_quat_identity(), solved, weight)'
# The bend plane's normal from the hinge made perpendicular to the target
# direction alone, not first to the upper bone (the reading the docs warn of).
animation_mutant two_bone_hinge_across_target_only fk__two_bone_solve \
'if (!fk__unit_perpendicular(hinge, u, &normal)) normal = fk__any_perpendicular(u);' \
'if (!fk__unit_perpendicular(fk_quat_rotate(world_mid, fk_vec3_normalize(fk_vec3_cross(fk_vec3_sub(d->rest_joints[d->mid], d->rest_joints[d->start]), fk_vec3_sub(d->rest_joints[d->end], d->rest_joints[d->mid])))), u, &normal)) normal = fk__any_perpendicular(u);'

# ---- Animation toolkit: two-bone IK on rigs with scale
# Solved in world space instead of the start joint's parent's: scale inherited
# from above the chain is ignored.
animation_mutant two_bone_scaled_in_world_space fk__two_bone_affine \
'fk__ik_linear(d->matrices, joints[3], above, above_inverse)' 'fk__ik_linear(d->matrices, -1, above, above_inverse)'
# The lower bone taken as rigid in the start's parent's space: its length the
# same in every direction, as if no scale lay between start and mid.
animation_mutant two_bone_scaled_lower_bone_rigid fk__two_bone_solve_affine \
'e[0] = a; e[1] = k / length0; e[2] = -k * along / (length0 * across); e[3] = k / across;' \
'e[0] = a; e[1] = k; e[2] = 0.0f; e[3] = k;'
# The straight chain taken as the longest: a chain that reaches further bent
# stops short of targets it can reach.
animation_mutant two_bone_scaled_straight_longest fk__two_bone_bend \
'top = fk__two_bone_extreme(e, 0.0f, pi, 1.0f)' 'top = 0.0f'
# The mid joint's turn applied in its own frame instead of its parent's.
animation_mutant two_bone_scaled_mid_turn_in_own_frame fk__two_bone_affine \
'fk_quat_mul(turn_mid, q[1])' 'fk_quat_mul(q[1], turn_mid)'
# The pole read in world space, not the start's parent's.
animation_mutant two_bone_scaled_pole_in_world fk__two_bone_affine \
'fk__mat3_apply(above_inverse, fk_vec3_sub(*d->pole, start))' 'fk_vec3_sub(*d->pole, start)'
# Pivots always read as fk_forward_trs()'s translations, even with rest joints.
animation_mutant two_bone_scaled_pivot_ignores_rest fk__ik_affine_pivot 'if (rest_joints) {' 'if (0) {'

# ---- Animation toolkit: aim IK
# The near root of the ray-sphere quadratic: the ray enters the sphere instead of leaving it.
animation_mutant aim_near_root fk__aim_turn 'if (along < 0.0f) lambda = root - along;' 'if (along < 0.0f) lambda = -root - along;'
# The up axis turned away from the pole: the free angle's sign reversed.
animation_mutant aim_pole_angle_reversed fk__aim_turn 'angle += atan2f(fk_vec3_dot(fk_vec3_cross(up_across, pole_across), line)' 'angle -= atan2f(fk_vec3_dot(fk_vec3_cross(up_across, pole_across), line)'
# The world turn applied to a parent-frame rotation as if it were in the rest frame.
animation_mutant aim_parent_frame_as_rest fk_ik_aim_chain 'fk__relative_after_turn(frame, q_joint' 'fk__relative_after_turn(FK_FRAME_REST, q_joint'
# The weight ignored: every joint takes the whole turn.
animation_mutant aim_weight_ignored fk__aim_weighted 'fk_quat_from_axis_angle(axis, weight * angle)' 'fk_quat_from_axis_angle(axis, angle)'
# Later chain joints solve from the pose before the earlier ones turned.
animation_mutant aim_chain_stale_pose fk_ik_aim_chain '            turned = 1;' '            turned = 0;'
# A target inside the ray's sphere aimed at with the ray's origin instead of its nearest point.
animation_mutant aim_unreachable_origin fk__aim_turn 'hit = fk_vec3_scale(nearest, distance / radius);' 'hit = fk_vec3_scale(origin, distance / fk_vec3_length(origin));'

# ---- Animation toolkit: aim IK on rigs with scale
# The turn solved in world space instead of the joint's parent's.
animation_mutant aim_scaled_in_world_space fk__aim_chain_affine \
'fk__ik_linear(matrices, fk__parent_index(parents, joint), linear, inverse);' 'fk__ik_linear(matrices, -1, linear, inverse);'
# The pole mapped like a point, by A_p^-1, instead of by A_p^T: the up axis no
# longer the nearest the pole in world space.
animation_mutant aim_scaled_pole_by_inverse fk__aim_chain_affine 'map[e] = product[3 * (e % 3) + e / 3];' 'map[e] = inverse[e];'
# Later chain joints aim from the pose before the earlier ones turned.
animation_mutant aim_scaled_chain_stale_pose fk__aim_chain_affine 'fk__mat34_mul_double(map, moved, moved);' '(void)map;'

# ---- Retargeting

# The source posture's rotation not inverted, or the change taken on the wrong
# side of the target's posture; a chain's world rotation composed child first,
# or, per frame, a source joint's taken without its parent's.
retarget_mutant retarget_posture_not_inverted fk_retarget_init \
'fk_quat_conjugate(fk__retarget_world(s->parents, source_posture, j))' 'fk__retarget_world(s->parents, source_posture, j)'
retarget_mutant retarget_posture_order_swapped fk_retarget_init \
'fk_quat_conjugate(fk__retarget_world(s->parents, source_posture, j)),
                                      fk__retarget_world(t->parents, target_posture, i))' \
'fk__retarget_world(t->parents, target_posture, i),
                                      fk_quat_conjugate(fk__retarget_world(s->parents, source_posture, j)))'
retarget_mutant retarget_world_child_first fk__retarget_world \
'w = fk_quat_mul(fk_quat_normalize(rotations[joint]), w);' 'w = fk_quat_mul(w, fk_quat_normalize(rotations[joint]));'
retarget_mutant retarget_source_world_parent_ignored fk_retarget_pose \
'source_world[j] = p < 0 ? q : fk_quat_normalize(fk_quat_mul(source_world[p], q));' 'source_world[j] = q;'
# An unmapped joint's world rotation not carried by its parent's; relative
# rotations taken parents first (from parents already made relative); the
# parent's world rotation not inverted.
retarget_mutant retarget_unmapped_not_carried fk_retarget_pose 'else if (p >= 0) v = fk_quat_mul(out_rotations[p], v);' ''
retarget_mutant retarget_relative_parents_first fk_retarget_pose 'for (k = n - 1; k >= 0; --k) {' 'for (k = 0; k < n; ++k) {'
retarget_mutant retarget_relative_not_inverted fk_retarget_pose \
'fk_quat_mul(fk_quat_conjugate(out_rotations[p]), out_rotations[i])' 'fk_quat_mul(out_rotations[p], out_rotations[i])'
# Checks lost: a map entry equal to the source's joint count; a root-motion
# joint that has a parent; a NaN source rotation.
retarget_mutant retarget_map_off_by_one fk_retarget_init 'desc->map[i] >= s->joint_count' 'desc->map[i] > s->joint_count'
retarget_mutant retarget_root_with_parent fk__retarget_check_rig ' || rig->parents[rig->root] >= 0' ''
retarget_mutant retarget_pose_rotation_unchecked fk_retarget_pose \
'if (!fk__quat_is_normalizable(source_rotations[k])) return FK_ERROR_INVALID_ROTATION;' '(void)0;'
# The root: an infinite scale accepted; hip heights' ratio inverted; a
# pivot-form root's rest translation taken as its position; COPY scaled like
# SCALED.
retarget_mutant retarget_scale_infinite_accepted fk_retarget_init '!fk__is_finite(scale) || ' ''
retarget_mutant retarget_hip_ratio_inverted fk_retarget_init \
't->rest_positions[t->root].y / s->rest_positions[s->root].y' 's->rest_positions[s->root].y / t->rest_positions[t->root].y'
retarget_mutant retarget_pivot_root_rest_as_position fk__retarget_rest_root 'return rig->rest_rotations ?' 'return 1 ?'
retarget_mutant retarget_copy_axis_scaled fk_retarget_pose 'retarget->root_axes[k] == FK_RETARGET_AXIS_COPY ? from[k] :' ''
# Feet: the foot's offset from the hips unscaled; taken from the origin, not
# the source's hips; the caller's offset ignored; a pivot-form target root's position taken as its
# translation; an engine root's from the wrong column; the leg's own parents
# read; the target root's transform unchecked.
retarget_mutant retarget_foot_unscaled fk_retarget_foot 'retarget->root_scale));' '1.0f));'
retarget_mutant retarget_foot_source_hips_ignored fk_retarget_foot \
'fk_vec3_sub(source_positions[j], source_positions[retarget->source_root])' 'source_positions[j]'
retarget_mutant retarget_foot_pivot_root_as_translation fk_retarget_foot \
'root = fk__pivot(d.rest_joints, d.transforms, retarget->target_root);' 'root = d.transforms[retarget->target_root].t;'
retarget_mutant retarget_foot_matrix_root_column fk_retarget_foot 'fk_vec3_make(m[3], m[7], m[11])' 'fk_vec3_make(m[0], m[4], m[8])'
retarget_mutant retarget_foot_leg_parents_read fk_retarget_foot 'd.parents = retarget->target.parents;' ''
retarget_mutant retarget_foot_root_unchecked fk_retarget_foot \
'if ((result = fk__check_rigid(&d.transforms[retarget->target_root])) != FK_OK) return result;' '(void)0;'
retarget_mutant retarget_foot_offset_ignored fk_retarget_foot 'fk_vec3_add(root, leg->target)' 'root'
retarget_mutant retarget_foot_unmapped_accepted fk_retarget_foot '(j = retarget->map[d.end]) < 0)' '(j = retarget->map[d.end]) < -1)'
# Names: no exact pass before the stripped one; case kept; "Armature|" kept;
# "Bip01_" kept; a joint mapped to source 0 counted as unmapped.
retarget_mutant retarget_names_no_exact_pass fk_retarget_map_names 'for (pass = 0;' 'for (pass = 1;'
retarget_mutant retarget_names_case_kept fk__name_fold "c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : " ''
retarget_mutant retarget_names_bar_namespace_kept fk__name_base "if (*c == ':' || *c == '|')" "if (*c == ':')"
retarget_mutant retarget_names_underscore_biped_kept fk__name_base "(base[length] == ' ' || base[length] == '_')" "base[length] == ' '"
retarget_mutant retarget_names_unmapped_miscounted fk_retarget_map_names 'unmapped += found < 0;' 'unmapped += found <= 0;'

# ---- Animation toolkit: root motion

# The in-place rotation turned by the motion instead of back by it.
animation_mutant root_motion_in_place_turned_forward fk__root_motion_key \
'fk__quat_double_mul(m_inverse, key.q, q_in_place);' 'fk__quat_double_mul(m, key.q, q_in_place);'
# The root's position taken as its translation alone, the rest pivot forgotten.
animation_mutant root_motion_pivot_forgotten fk__root_motion_key 'p[c] = rest_root[c] + key.t[c];' 'p[c] = key.t[c];'
# The motion's translation not taken relative to the first key.
animation_mutant root_motion_not_relative_to_first_key fk__root_motion_key \
'fk__quat_double_rotate(m, first_position, turned_first);' 'turned_first[0] = turned_first[1] = turned_first[2] = 0.0;'
# Yaw mode extracts the whole rotation (the twist's projection onto up skipped).
animation_mutant root_motion_yaw_takes_everything fk__root_frame_rotation \
'for (c = 0; c < 3; ++c) out[c] = along * up[c];' 'for (c = 0; c < 3; ++c) out[c] = q[c];'
# A frame that wraps past the clip's end loses the loop's motion.
animation_mutant root_motion_loops_ignored fk_root_motion_delta \
'loop = fk__rigid_double_power(loop, loops);' 'loop = fk__rigid_double_power(loop, 0);'
# Blended deltas averaged without bringing them into one hemisphere.
animation_mutant root_motion_blend_hemisphere_ignored fk_root_motion_blend \
'float signed_w = fk_quat_dot(pivot, r) < 0.0f ? -w : w;' 'float signed_w = w;'

# ---- Animation toolkit: interpolation

# The cursor's next key not tried: forward playback falls back to a bisection.
animation_mutant track_cursor_next_key_not_tried fk__track_locate \
'else if (guess >= 0 && guess < last - 1' 'else if (0 && guess < last - 1'
# Cubic tangents taken per unit of s, not per unit of time (t_d dropped).
animation_mutant cubic_tangents_not_scaled_by_key_spacing fk__track_locate \
'point->out_tangent0 = t_d * (' 'point->out_tangent0 = 1.0f * ('
# Keys more than FLT_MAX apart: their fraction taken as it comes (NaN or 0).
bad_input_mutant track_key_gap_overflow_unchecked fk__track_locate \
'if (!fk__is_finite(t_d)) return FK_ERROR_NOT_FINITE;' ''
# The two tangent weights swapped: h11 on the out-tangent, h10 on the in-tangent.
animation_mutant cubic_tangent_weights_swapped fk__track_locate \
'point->in_tangent1 = t_d * (s * s * (s - 1.0f));' \
'point->in_tangent1 = point->out_tangent0; point->out_tangent0 = t_d * (s * s * (s - 1.0f));'
# glTF's a_k, v_k, b_k order read as b_k, v_k, a_k.
animation_mutant cubic_tangent_roles_swapped fk__track_elements 'cubic_role[FK__TRACK_READS] = {1, 2, 0, 1}' \
'cubic_role[FK__TRACK_READS] = {1, 0, 2, 1}'
# STEP interpolating toward the next key like LINEAR.
animation_mutant step_interpolates fk__track_elements \
'point->inside && interpolation != FK_INTERPOLATION_STEP;' 'point->inside;'
# fk__is_nan() never true: a NaN time or sample is taken as a number.
animation_mutant is_nan_never fk__is_nan '> 0x7F800000u' '> 0x7FFFFFFFu'
# Components written before the later ones are checked.
animation_mutant track_components_written_before_checked fk_track_evaluate \
'if (fk__is_nan(sample)) return FK_ERROR_NOT_FINITE;' '(void)sample;'

# ---- Animation toolkit: morph targets
# Targets of weight zero are not skipped, so their unchecked NaN deltas reach the output.
animation_mutant morph_zero_weight_not_skipped fk_morph_apply 'if (weight == 0.0f) continue;' ';'
# A sparse entry moves the vertex of its position in the list, not the one its index names.
animation_mutant morph_sparse_index_ignored fk_morph_apply 'v = t->indices ? (int)t->indices[e] : e;' 'v = e;'
# The morphed normal is not renormalized.
animation_mutant morph_not_renormalized fk__morph_renormalize 'unit = fk_vec3_normalize(morphed);' 'unit = morphed;'
# A zero-length morphed normal is written as zero instead of keeping its base.
animation_mutant morph_zero_length_written fk__morph_renormalize 'fk_vec3_dot(unit, unit) > 0.0f' '1'
# An index equal to vertex_count passes the check and is written past the end.
animation_mutant morph_index_bound_off_by_one fk__check_morph_entries 't->indices[e] >= (uint32_t)d->vertex_count' 't->indices[e] > (uint32_t)d->vertex_count'
# A tangent delta is read with the tangents' 16-byte default stride.
animation_mutant morph_tangent_delta_stride fk__check_morph_target '(r = fk__check_stride(&layout->tangent_stride, 3 * sizeof(float)' '(r = fk__check_stride(&layout->tangent_stride, 4 * sizeof(float)'

# ---- Centres of rotation: the precompute
# The cross product of the pair's weights taken the wrong way round.
cor_mutant cor_cross_product_swapped fk__cor_pair_sums 'a * beta[e] - b * alpha[e]' 'a * alpha[e] - b * beta[e]'
# The same in the samples-at-a-time sum.
cor_lanes_mutant cor_lanes_cross_product_swapped fk__cor_pair_sums_lanes 'u = a * beta - b * alpha;' 'u = a * alpha - b * beta;'
# The exponent capped where e^-y still counts.
cor_lanes_mutant cor_lanes_cap_too_low fk__cor_pair_sums_lanes '(y > 1400.0) & (fk__cor_bits)(y - 1400.0)' '(y > 14.0) & (fk__cor_bits)(y - 14.0)'
# 2^-k in one step: past k = 1022 its exponent field wraps.
cor_lanes_mutant cor_lanes_scale_in_one_step fk__cor_pair_sums_lanes 'half = n / 2u;' 'half = n;'
# The last, short block read past the bucket's end instead of padded.
cor_lanes_mutant cor_lanes_tail_not_padded fk__cor_pair_sums_lanes 'if (end - e < FK__COR_LANES) {' 'if (0) {'
# Only the first lane added up.
cor_lanes_mutant cor_lanes_one_lane_added fk__cor_pair_sums_lanes 'l < FK__COR_LANES; ++l' 'l < 1; ++l'
# One split more than the least that brings the sub-edges below epsilon.
cor_mutant cor_split_one_too_many fk__cor_triangle '(int)floor(q) + 1' '(int)floor(q) + 2'
# The split is not capped where the paper's rule would not end.
cor_mutant cor_split_not_capped fk__cor_triangle 'q >= FK_COR_MAX_SPLIT - 1 ? FK_COR_MAX_SPLIT' 'q >= 4 * FK_COR_MAX_SPLIT ? 4 * FK_COR_MAX_SPLIT'
# The sub-triangles pointing against their triangle are sampled at the wrong place.
cor_mutant cor_flipped_centroid fk__cor_write_samples '(double)(3 * i + 1 + flip) * third' '(double)(3 * i + 1 + 2 * flip) * third'
# A joint named twice keeps only its first slot's weight.
cor_mutant cor_duplicate_joint_not_merged fk__cor_vertex_list 'if (i < count) { w[i] += (double)weights[s]; continue; }' 'if (i < count) continue;'
# Vertices with the same bones share a centre whatever their weights.
cor_mutant cor_shared_by_bones_alone fk__cor_same_list \
'!memcmp(c->list_weights + (size_t)u * c->k, c->list_weights + (size_t)v * c->k, count * sizeof(double))' '1'
# A vertex whose weights repeat a zero-sum vertex's is left unwritten.
cor_mutant cor_copied_zero_sum_unwritten fk_cor_centers 'if (state == 0 || state == 3) memcpy' 'if (state == 0) memcpy'
# A triangle index equal to vertex_count passes the check.
cor_mutant cor_index_bound_off_by_one fk__cor_check 'd->indices[t] >= (uint32_t)d->vertex_count' 'd->indices[t] > (uint32_t)d->vertex_count'
# Negative weights accepted.
cor_mutant cor_negative_weight_accepted fk__cor_check 'fk__is_within(fk__cor_weights(c, v)[s], 0.0f,' 'fk__is_within(fk__cor_weights(c, v)[s], -1.0f,'
# A workspace one byte short accepted.
cor_mutant cor_short_workspace_accepted fk_cor_centers 'if (workspace_bytes < bytes)' 'if (workspace_bytes + 1 < bytes)'
# A range one past the mesh's end accepted.
cor_mutant cor_range_past_the_end fk_cor_centers 'first_vertex > desc->vertex_count - vertex_count)' 'first_vertex > desc->vertex_count - vertex_count + 1)'

# ---- Centres of rotation: skinning (fk_skin_cor)
# The hemisphere of the first influence listed, not of the heaviest.
cor_mutant cor_skin_hemisphere_of_the_first fk__cor_reference_from 'fk__influence_joint(d, layout, i, fk__heaviest(d, layout, i))' 'fk__influence_joint(d, layout, i, 0)'
# Rotations blended with the signs they were given.
cor_mutant cor_skin_signs_as_given fk__cor_reference_from '< 0.0f ? -weight : weight' '< 0.0f ? weight : weight'
# The vertex turned about the origin instead of its centre.
cor_mutant cor_skin_centre_not_subtracted fk__cor_reference_from 'fk__mat3_columns_apply(rotation, fk_vec3_sub(p, c))' 'fk__mat3_columns_apply(rotation, p)'
# The centre left where it rests instead of moved as LBS moves it.
cor_mutant cor_skin_centre_not_moved fk__cor_reference_from 'blend[0] * c.x + blend[4] * c.y + blend[8] * c.z + blend[12]' 'c.x'
# Normals moved by the blended LBS matrix instead of turned by R.
cor_mutant cor_skin_normal_by_lbs fk__cor_reference_from 'else n = fk__mat3_columns_apply(rotation, n);' 'else n = fk__mat3_columns_apply(blend, n);'
# A vertex with no weight turned by the identity about its centre, not kept.
cor_mutant cor_skin_zero_blend_moved fk__cor_reference_from 'if (norm2 != 0.0f) {' 'if (1) {'
# Tiny weights' blend not rescaled: its square underflows to zero.
cor_mutant cor_skin_tiny_weights_not_rescaled fk__cor_reference_from '!(norm2 >= FLT_MIN && norm2 <= FLT_MAX) &&' '0 &&'
# The blended scale part used without dividing by the weights' sum.
cor_mutant cor_skin_scale_not_divided fk__cor_scale_turn 'scale[e] /= total' 'scale[e] /= 1.0f'
# R S built in place, each column from a rotation already overwritten.
cor_mutant cor_skin_scale_composed_in_place fk__cor_scale_turn 'fk__store3(scale + e, fk__mat3_columns_apply(rotation,' 'fk__store3(rotation + e, fk__mat3_columns_apply(rotation,'
# Normals of bones with scale moved by R S itself, not its cofactors.
cor_mutant cor_skin_scaled_normal_not_cofactor fk__cor_scale_turn 'return fk__cofactor_normal(rotation, n);' 'return fk__mat3_columns_apply(rotation, n);'
# Matrices with scale taken as rigid.
cor_mutant cor_skin_scale_ignored fk_skin_cor 'result = fk__dqs_bones_scaled(desc, &s.scaled);' 'result = fk__dqs_bones_scaled(desc, &s.scaled), s.scaled = 0;'
# Centres read with a stride as short as two floats.
cor_mutant cor_skin_centre_stride_short fk_skin_cor 'fk__check_stride(&center_stride, 3 * sizeof(float)' 'fk__check_stride(&center_stride, 2 * sizeof(float)'
# fk_skin_validate() does not ask for bind poses for CoR.
cor_mutant cor_skin_validate_no_bind_poses fk_skin_validate 'method != FK_SKIN_LBS) result' 'method == FK_SKIN_DQS) result'

# Transforms and matrices both given, and the matrices silently ignored.
mutant skin_both_kinds_accepted fk__check_skin 'if (d->transforms && d->matrices) return FK_ERROR_CONFLICTING_ARGUMENTS;' ''

# A NaN or infinity in a matrix not refused.
mutant skin_matrix_not_checked fk__check_skin_bones 'if (!fk__mat34_is_finite(d->matrices + 12 * (size_t)j)) return FK_ERROR_NOT_FINITE;' ''

# DQS takes matrices with scale as if they were rigid.
mutant dqs_takes_scaled_matrices fk__mat34_is_rigid '<= (double)FK_LBS_RIGID_TOLERANCE)) return 0;' '<= 1e30)) return 0;'

# fk_skin_validate() for DQS and CoR misses the bind poses fk_skin_dqs() needs.
mutant validate_ignores_the_method fk_skin_validate 'if (result == FK_OK && method != FK_SKIN_LBS) result = fk__dqs_bones_scaled(desc, &scaled);' '(void)scaled;'

# glTF's normalized weights divided by 256, or the fifth influence of two
# streams read from the first.
mutant unorm8_weight_by_256 fk__unorm_weight '255.0f : 65535.0f' '256.0f : 65535.0f'
mutant second_stream_from_fifth_influence_on fk__influence_weight 'd->weights2 && k >= 4' 'd->weights2 && k >= 5'

# fk_skin_scratch_size() counts a word of sign bits per 128 bones.
mutant scratch_size_half_the_sign_bits fk__dqs_scaled_table_bytes 'sizeof(uint64_t) * ((n + 63) / 64)' 'sizeof(uint64_t) * ((n + 63) / 128)'

# Joint indices not checked against transform_count.
mutant joint_index_unchecked fk__influence_joint '(int)joint < d->transform_count' '1'

# ---- Fast paths: the 4-lane vector layer -------------------------------------------

# A point's z loaded from its y.
simd_mutant f4_load3_z_from_y sse2 fk__f4_load3 '_mm_load_ss((const float *)p + 2)' '_mm_load_ss((const float *)p + 1)'

# A point's z stored from the fourth lane.
simd_mutant f4_store3_z_from_w sse2 fk__f4_store3 '_mm_movehl_ps(v, v)' '_mm_shuffle_ps(v, v, 0xFF)'

# Rows 1 and 2 swapped on the way in: a group's second and third vertices trade places.
simd_mutant f4_transpose_rows_swapped sse2 fk__f4_transpose@sse2 '_MM_TRANSPOSE4_PS(*a, *b, *c, *d)' '_MM_TRANSPOSE4_PS(*a, *c, *b, *d)'

# The reciprocal square root without its Newton step: the 12-bit estimate alone.
simd_mutant f4_rsqrt_newton_step_skipped sse2 fk__f4_rsqrt '_mm_mul_ps(_mm_mul_ps(y, y), x)' '_mm_set1_ps(1.0f)'

# Lengths above the range not reported: an overflowing normal is renormalized by the estimate.
simd_mutant f4_outside_lanes_high_unchecked sse2 fk__f4_outside_lanes@sse2 '_mm_cmpnle_ps(v, high)' '_mm_setzero_ps()'

# NaN counted as zero: an overflowing DQS result is stored (and a non-finite FK pose passes).
simd_mutant f4_nonzero_lanes_nan_as_zero sse2 fk__f4_nonzero_lanes@sse2 '_mm_cmpneq_ps(v, _mm_setzero_ps())' '_mm_cmpgt_ps(_mm_mul_ps(v, v), _mm_setzero_ps())'

# The multiply-add adds its product to the wrong operand: a c + b.
simd_mutant f4_madd_operands_swapped sse2 fk__f4_madd@sse2 '_mm_add_ps(_mm_mul_ps(a, b), c)' '_mm_add_ps(_mm_mul_ps(a, c), b)'

# The fourth lane's equality never reported: a heaviest fourth influence goes unseen.
simd_mutant f4_equal_lanes_fourth_dropped sse2 fk__f4_equal_lanes@sse2 '_mm_movemask_ps(_mm_cmpeq_ps(a, b))' '(_mm_movemask_ps(_mm_cmpeq_ps(a, b)) & 7)'

# The index check's bound one too high: an index equal to the bone count passes.
simd_mutant indices_at_most_off_by_one sse2 fk__indices_at_most@sse2 '(short)(unsigned short)limit' '(short)(unsigned short)(limit + 1)'

# The indices after the last whole 16 bytes never checked.
simd_mutant indices_at_most_tail_unchecked sse2 fk__indices_at_most@sse2 'for (; i < count; ++i) over |= indices[i] > limit;' ''

# ---- Fast paths: operations built on the layer ----------------------------------

# The cross product turned the wrong way (forward kinematics' rotations).
props_mutant f4_cross_turned sse2 fk__f4_cross 'FK__F4_PERMUTE(b, 1, 2, 0, 3)' 'FK__F4_PERMUTE(b, 2, 0, 1, 3)'

# The in-order dot product that signs DQS and CoR bones without the table leaves out w w'.
simd_mutant f4_dot_in_order_w_dropped sse2 fk__f4_dot_in_lane0 'fk__f4_lane(m, 3)' 'fk__f4_lane(m, 2)'

# CoR: a weight never negated by the dot product with its pivot's rotation.
simd_mutant cor_signed_weight_never_negated avx2 fk__cor_signed_weight 'fk__f4_zero());' 'fk__f4_splat(-2.0f));'

# One sign of the quaternion product wrong.
props_mutant f4_quat_mul_sign sse2 fk__f4_quat_mul 'fk__f4_xor(x, fk__f4_make(0.0f, -0.0f, 0.0f, -0.0f))' 'fk__f4_xor(x, fk__f4_make(-0.0f, 0.0f, 0.0f, -0.0f))'

# The rotation's w read from its x.
props_mutant f4_quat_rotate_w_from_x sse2 fk__f4_quat_rotate 'fk__f4_lane(q, 3)' 'fk__f4_lane(q, 0)'

# ---- Fast paths: blends ---------------------------------------------------------------

# LBS: the third column blended from the first influence only.
simd_mutant lbs_add4_third_column_skipped sse2 fk__lbs_add4 'b->c2 = fk__f4_madd(w, fk__f4_load(bone + 8), b->c2);' ''

# DQS: the dual part summed from the real parts.
simd_mutant dqs_add4_dual_from_real sse2 fk__dqs_add4 'fk__f4_load(bone + 4), b->dual' 'fk__f4_load(bone), b->dual'

# Width 8: (c2|t) summed from (c0|c1).
simd_mutant lbs_add8_second_half_from_first avx2 fk__lbs_add8 '_mm256_loadu_ps(bone + 8), b->c2t' '_mm256_loadu_ps(bone), b->c2t'

# Width 8: the translation weighted by z instead of the point's w (1; 0 for a direction).
simd_mutant lbs_apply8_w_from_z avx2 fk__lbs_apply8 '3, 3, 3, 3)' '2, 2, 2, 2)'
# The AVX2 tier returns without clearing the upper halves of the vector
# registers, which gcc below -O2 does not do for it (clang always does).
simd_mutant upper_halves_not_cleared avx2-gcc fk__leave_avx2 '{ _mm256_zeroupper(); }' '{}'

# Width 8: the dual part read from the low half.
simd_mutant dqs_dual8_from_low_half avx2 fk__dqs_dual8 '_mm256_extractf128_ps(b, 1)' '_mm256_castps256_ps128(b)'

# ---- Fast paths: groups of vertices -------------------------------------------------

# Width 4: the fourth vertex's point loaded from the third's.
simd_mutant v4_load_points_fourth_from_third sse2 fk__v4_load_points 'fk__f4_load3(p + 3 * stride)' 'fk__f4_load3(p + 2 * stride)'

# Width 4: the fourth vertex stored from the third lane.
simd_mutant v4_store_points_fourth_from_third sse2 fk__v4_store_points 'fk__f4_store3(p + 3 * stride, w)' 'fk__f4_store3(p + 3 * stride, z)'

# Width 8: the transpose takes a row from the wrong pair.
simd_mutant v8_transpose_row_from_wrong_pair avx2 fk__v8_transpose \
'*b = _mm256_shuffle_ps(ab_low, cd_low,' '*b = _mm256_shuffle_ps(ab_low, cd_high,'

# Width 8: a group's pairs read back with the halves of the second quad's rows
# swapped (lanes 0-3 given lanes 4-7's); width 4: the fourth vertex's read from the third's.
simd_mutant v8_from_pairs_halves_swapped avx2 fk__v8_pair_rows '*b = _mm256_permute2f128_ps(low, high, 0x31);' \
'*b = _mm256_permute2f128_ps(low, high, 0x13);'
simd_mutant v4_from_pairs_fourth_row_from_third sse2 fk__v4_from_pairs 'bw = fk__f4_load(pairs + 28);' 'bw = fk__f4_load(pairs + 20);'
simd_mutant lbs_group_point_translation_from_y sse2 fk__lbs_group##w 'fk__v##w##_mul(ax, x))), tx);' 'fk__v##w##_mul(ax, x))), ty);'

# Width 8: the low lanes' vertices stored from the high half.
simd_mutant v8_store_points_halves_swapped avx2 fk__v8_store_points \
'(size_t)lane * stride, _mm256_castps256_ps128(lanes[lane])' '(size_t)lane * stride, _mm256_extractf128_ps(lanes[lane], 1)'

# Packed points: the fourth vertex's y loaded from its z (width 4 and 8).
simd_mutant f4_load_packed3_y_from_z sse2 fk__f4_load_packed3@sse2 '_MM_SHUFFLE(3, 2, 2, 1)' '_MM_SHUFFLE(3, 3, 2, 1)'
simd_mutant v8_load_packed_y_from_z avx2 fk__v8_load_points '_MM_SHUFFLE(3, 2, 2, 1)' '_MM_SHUFFLE(3, 3, 2, 1)'

# Packed points: the second vertex's x stored from the first's (width 4 and 8).
simd_mutant f4_store_packed3_x_from_first sse2 fk__f4_store_packed3@sse2 '_MM_SHUFFLE(3, 0, 1, 0)' '_MM_SHUFFLE(1, 0, 1, 0)'
simd_mutant v8_store_packed_halves_swapped avx2 fk__v8_store_points '_mm256_permute2f128_ps(c, a, 0x30)' '_mm256_permute2f128_ps(c, a, 0x20)'

# Affine normals: a mirrored blend's normal not turned round (SSE2, NEON,
# SIMD128), the third column read from the translation (width 8), a cross
# product turned, a determinant within rounding of zero taken for a mirror
# (the flattened bones' normals then flip with their blends' rounding, also
# where the sizes keep their signs), a careful lane's blend with a wrong
# column, and the kernels moving affine normals by the blend itself.
simd_mutant negate_where_less_turned sse2 fk__f4_negate_where_less@sse2 '_mm_cmplt_ps(a, b)' '_mm_cmpgt_ps(a, b)'
simd_mutant neon_negate_where_less_turned neon fk__f4_negate_where_less@neon 'vcltq_f32(a, b)' 'vcgtq_f32(a, b)'
simd_mutant wasm_negate_where_less_turned wasm fk__f4_negate_where_less@wasm 'wasm_f32x4_lt(a, b)' 'wasm_f32x4_gt(a, b)'
simd_mutant lbs_columns8_third_from_t avx2 fk__lbs_pairs8 \
'_mm256_storeu_ps(pair + apart, b.c2t);' '_mm256_storeu_ps(pair + apart, _mm256_permute2f128_ps(b.c2t, b.c2t, 1));'
simd_mutant cofactor_normals_second_cross_turned sse2 FK__LBS_NORMALS \
'fk__cross##w(cx, cy, cz, ax, ay, az, &cax, &cay, &caz);' 'fk__cross##w(ax, ay, az, cx, cy, cz, &cax, &cay, &caz);'
simd_mutant v8_abs_keeps_the_sign avx2 fk__v8_abs '_mm256_andnot_ps(_mm256_set1_ps(-0.0f), v)' 'v'
simd_mutant group_cofactor_careful_from_wrong_column sse2 fk__group_cofactor_normal \
'memcpy(blend + 8, pairs + 8 * (size_t)lanes + at, 16);' 'memcpy(blend + 8, pairs + at + 4, 16);'
simd_mutant flat_determinant_taken_for_a_mirror avx2 fk__mirrors 'return determinant < -FK__FLAT_VOLUME * (size_a * size_b * size_c);' \
'return determinant < 0.0f;'
simd_mutant kernels_move_affine_normals_by_the_blend sse2 fk__lbs_group##w 'if (r->cofactor_normals) {' 'if (0) {'

# Width 8: the reciprocal square root without its Newton step.
simd_mutant v8_rsqrt_newton_step_skipped avx2 fk__v8_rsqrt '_mm256_mul_ps(y, y), x' '_mm256_rcp_ps(x), x'

# Width 8: lengths above the range not reported.
simd_mutant v8_outside_lanes_high_unchecked avx2 fk__v8_outside_lanes '_mm256_cmp_ps(v, _mm256_set1_ps(high), _CMP_NLE_UQ)' '_mm256_setzero_ps()'

# ---- Fast paths: the groups' finishes ----------------------------------------------

# LBS normals (and points): a short group's lanes written to the vertices in reverse.
simd_mutant lbs_normals_short_group_reversed sse2 fk__group_points_out \
'memcpy(p + (size_t)lane * stride, padded + 3 * lane, 12)' 'memcpy(p + (size_t)lane * stride, padded + 3 * (count - 1 - lane), 12)'

# LBS normals: careful lanes past a short group's count (copies of its last
# vertex) also written, past the group's end. No check sees it yet: glibc's heap
# check aborts test_simd in the AVX2 tier (docs/testing.md).
simd_mutant lbs_normals_careful_past_the_group avx2 fk__store_unit_normals##w '& ((1 << count) - 1)' ''

# DQS: the translation's cross product turned, d x u for u x d.
simd_mutant dqs_finish_translation_cross_turned sse2 fk__dqs_finish##w \
'fk__cross##w(ux, uy, uz, dx, dy, dz,' 'fk__cross##w(dx, dy, dz, ux, uy, uz,'

# DQS: normals moved by the translation too.
simd_mutant dqs_finish_normals_translated avx2 fk__dqs_finish##w 'inverse, none, none, none,' 'inverse, tx, ty, tz,'

# DQS: the rotation's cross products turned (s = 2 v x u).
simd_mutant dqs_move_cross_turned sse2 fk__dqs_move##w 'fk__cross##w(ux, uy, uz, *x, *y, *z,' 'fk__cross##w(*x, *y, *z, ux, uy, uz,'

# DQS: careful lanes stored from the fast arithmetic instead of redone by the reference.
simd_mutant dqs_finish_careful_lane_kept avx2 fk__dqs_finish##w 'if (careful >> lane & 1)' 'if (careful >> lane & 0)'

# CoR: the point turned about the origin instead of its centre.
simd_mutant cor_finish_turned_about_the_origin sse2 fk__cor_finish##w 'px = fk__v##w##_sub(px, cx);' '(void)cx;'
simd_mutant neon_cor_finish_turned_about_the_origin neon fk__cor_finish##w 'px = fk__v##w##_sub(px, cx);' '(void)cx;'
simd_mutant wasm_cor_finish_turned_about_the_origin wasm fk__cor_finish##w 'px = fk__v##w##_sub(px, cx);' '(void)cx;'

# CoR: the moved centre left out of the point.
simd_mutant cor_finish_moved_centre_dropped avx2 fk__cor_finish##w 'px = fk__v##w##_add(px, mx);' '(void)mx;'

# CoR: the normal turned from the point instead of the normal.
simd_mutant cor_finish_normal_from_the_point avx2 fk__cor_finish##w \
'fk__v##w##_load_points(full ? r.normals :' 'fk__v##w##_load_points(full ? r.positions :'

# CoR: careful lanes stored from the fast arithmetic instead of redone by the plain loop.
simd_mutant cor_finish_careful_lane_kept avx2 fk__cor_finish##w 'if (careful >> lane & 1) {' 'if (careful >> lane & 0) {'

# CoR: a short group's centres read past the run instead of repeating its last.
simd_mutant cor_finish_short_group_centres_from_points sse2 fk__cor_finish##w \
'fk__group_points_padded(padded_centers, centers,' 'fk__group_points_padded(padded_centers, r.positions,'

# DQS: a short group reads its missing lanes' points past the run instead of
# repeating its last vertex.
simd_mutant group_points_padded_past_the_run sse2 fk__group_points_padded '(lane < count ? lane : count - 1)' 'lane'

# ---- Fast paths: the kernels -------------------------------------------------------

# LBS with normals: a pending group finished with the next group's blends.
simd_mutant lbs_loop_pending_group_misplaced sse2 fk__lbs_loop_##tier \
'fk__lbs_group##w(pairs[!group], &r, first - FK__LANES##w, FK__LANES##w)' \
'fk__lbs_group##w(pairs[group], &r, first - FK__LANES##w, FK__LANES##w)'

# LBS with normals: the last group never finished when it is one vertex.
simd_mutant lbs_loop_last_short_group_skipped sse2 fk__lbs_loop_##tier 'if (count) fk__lbs_group' 'if (count > 1) fk__lbs_group'

# LBS: an influence weighted by the one before it; the influences from the
# fifth on read from the first lists' start, the first four again.
simd_mutant lbs_vertex_weight_of_previous_influence avx2 fk__lbs_vertex_##tier \
'* FK__LBS_BONE_FLOATS, weights[e])' '* FK__LBS_BONE_FLOATS, weights[e - 1])'
simd_mutant lbs_vertex_fifth_on_from_the_first sse2 fk__lbs_vertex_##tier \
'(size_t)joints2[e - 4] * FK__LBS_BONE_FLOATS, weights2[e - 4]' '(size_t)joints[e - 4] * FK__LBS_BONE_FLOATS, weights[e - 4]'

# DQS: a pending group finished from the wrong first vertex (the current group's).
simd_mutant dqs_loop_pending_group_first_wrong avx2 fk__dqs_loop_##tier \
'i + 1 - 2 * FK__LANES##w, FK__LANES##w,' 'i + 1 - FK__LANES##w, FK__LANES##w,'

# DQS: the last short group skipped when it is one vertex.
simd_mutant dqs_loop_last_vertex_alone_skipped sse2 fk__dqs_loop_##tier 'if (lane)' 'if (lane > 1)'

# CoR: an influence's matrix weighted by the first influence's weight.
simd_mutant cor_loop_weight_of_first_influence sse2 fk__cor_##tier \
'fk__lbs_add##w(&blend, bone, weight);' 'fk__lbs_add##w(&blend, bone, weights[0]);'

# CoR: rotations blended unsigned where the sign bits sign them.
simd_mutant cor_loop_bits_ignored sse2 fk__cor_##tier \
': fk__dqs_signed_weight(row, joint, weight)),' ': weight),'

# CoR: the centre moved without the blend's translation.
simd_mutant cor_loop_centre_not_translated avx2 fk__cor_##tier \
'fk__lbs_point##w(blend, fk__f4_load3(centers' 'fk__lbs_direction##w(blend, fk__f4_load3(centers'

# CoR: a pending group finished from the wrong first vertex (the current group's).
simd_mutant cor_loop_pending_group_first_wrong avx2 fk__cor_##tier \
'&r, i + 1 - 2 * FK__LANES##w, FK__LANES##w);' '&r, i + 1 - FK__LANES##w, FK__LANES##w);'

# CoR: the last short group skipped when it is one vertex.
simd_mutant cor_loop_last_vertex_alone_skipped sse2 fk__cor_##tier 'if (lane) fk__cor_finish' 'if (lane > 1) fk__cor_finish'

# CoR: the sign bits taken from the bones' first columns instead of their rotations.
simd_mutant cor_fast_sign_bits_of_columns avx2 fk__cor_signs 'fk__dqs_sign_bits(palette + FK__LBS_BONE_FLOATS,' \
'fk__dqs_sign_bits(palette,'

# DQS with scale: the dual part's change with the point left out.
simd_mutant scaled_dqs_motion_dropped avx2 fk__dqs_loop_##tier \
'fk__lbs_direction##w(motion, fk__f4_load3(r.positions + at * r.position_stride))' \
'fk__f4_zero()'

# DQS with scale: every bone blended with its weight's own sign.
simd_mutant scaled_dqs_weights_unsigned sse2 fk__dqs_signed_weight 'memcpy(&weight, &bits, sizeof bits);' '(void)bits;'

# DQS with scale: the second word of the sign bits (bones 64 on) never read.
simd_mutant scaled_dqs_high_word_ignored avx2 fk__dqs_signed_weight 'row[column / 64]' 'row[0]'

# DQS with scale: each pair's flip written into the first bone's row only.
simd_mutant scaled_dqs_sign_bits_one_sided sse2 fk__dqs_sign_bits 'flipped[(size_t)b * words + column_a / 64] |= (uint64_t)1 << column_a % 64;' '(void)column_a;'

# DQS with scale: a rig past the 128 bones of the sign bits kept in the fast path.
simd_mutant scaled_dqs_past_the_sign_bits avx2 fk__dqs_scaled_fast 'd->transform_count > FK__DQS_SIGN_BONES)' '0)'

# DQS with scale, four weights signed at once: a bone's bit looked for in the
# wrong 32-bit word of the pivot's row, or at the wrong place in it.
simd_mutant scaled_dqs_four_signs_wrong_word avx2 fk__dqs_four_signed_weights8 '_mm_srli_epi32(joint, 5))' \
'_mm_srli_epi32(joint, 6))'
# The same in rows longer than two words (rigs past 128 bones, in scratch
# memory), loaded a word at a time; or such rows read as if they were two
# words long.
simd_mutant scaled_dqs_long_rows_wrong_word avx2 fk__row_words '(joints[e] >> 5)' '(joints[e] >> 6)'
simd_mutant scaled_dqs_long_rows_read_as_two_words avx2 fk__dqs_four_signed_weights8 'words <= 2 ?' 'words <= 16 ?'

# glTF's formats in the fast paths: unorm16 divided by 65536, unorm8 times
# 1 / 255 rounded (one multiplication, which misses the quotient for some
# codes), the second stream's weights one place early, uint8_t joints widened
# into high bytes; a second stream read as one with the first when only its
# joints follow the first's.
simd_mutant gltf_unorm16_by_65536 sse2 fk__unorm_weights4 '(float)(1.0 / 65535.0 - 1.0 / 65536.0)' '0.0f'
simd_mutant gltf_unorm8_by_the_reciprocal avx2 fk__unorm_weights4 \
'return fk__f4_madd(c, fk__f4_splat(hi), fk__f4_mul(c, fk__f4_splat(lo)));' 'return fk__f4_mul(c, fk__f4_splat(hi + lo));'
simd_mutant gltf_packed_by_the_reciprocal avx2 fk__convert_packed_avx2 \
'_mm256_fmadd_ps(c, hi, _mm256_mul_ps(c, lo))' '_mm256_mul_ps(c, _mm256_add_ps(hi, lo))'
simd_mutant gltf_packed_u8_joints_skipped avx2 fk__convert_packed_avx2 'joint_format == FK_JOINTS_U8 && e < done; e += 16)' \
'joint_format == FK_JOINTS_U8 && e < done; e += 32)'
simd_mutant gltf_streams_one_by_joints_alone sse2 fk__check_skin \
'(const char *)d->weights2 == (const char *)d->weights + 4 * fk__weight_size(d)' '1'
simd_mutant gltf_second_stream_one_early avx2 fk__convert_lists 'lists->joints + 4, lists->weights + 4, NULL);' 'lists->joints + 4, lists->weights + 3, NULL);'
simd_mutant gltf_second_joints_unconverted sse2 fk__convert_lists 'joints ? block->joints2 : NULL' 'NULL'
simd_mutant gltf_converted_second_lists_one_late avx2 fk__convert_lists '(lists->weights + second)' '(lists->weights + second + 1)'
# A second stream read where it is: with the first stream's stride, or not
# moved on from block to block; DQS's kernels reading its influences from
# the first lists' start, or their weights so (with scale).
simd_mutant second_stream_stride_of_the_first sse2 fk__second_lists \
'run->joint2_stride = layout->joint2_stride;' 'run->joint2_stride = layout->joint_stride;'
simd_mutant second_weights_stride_of_the_first avx2 fk__second_lists \
'run->weight2_stride = layout->weight2_stride;' 'run->weight2_stride = layout->weight_stride;'
simd_mutant second_lists_not_moved_on avx2 fk__skin_run_advance 'r->weights2 += i * r->weight2_stride;' '(void)0;'
simd_mutant dqs_fifth_on_from_the_first sse2 fk__dqs_loop_##tier 'pivot, joints2[e - 4], source, stride)' \
'pivot, joints[e - 4], source, stride)'
simd_mutant scaled_dqs_fifth_on_weights_from_the_first avx2 fk__dqs_loop_##tier 'weights2[e - 4]), \' 'weights[e - 4]), \'
simd_mutant gltf_u8_joints_in_high_bytes sse2 fk__u8x4_widened@sse2 '_mm_unpacklo_epi8(_mm_cvtsi32_si128((int)bytes), _mm_setzero_si128())' \
'_mm_unpacklo_epi8(_mm_setzero_si128(), _mm_cvtsi32_si128((int)bytes))'

# The scratch memory used though it is short of fk_skin_scratch_size() (the
# tables then run past its end), or rigs past the stack's palette not given
# the fast paths with it.
simd_mutant scratch_used_when_short sse2 fk__skin 'desc->scratch_size < fk__scratch_sum(' 'desc->scratch_size + 64 < fk__scratch_sum('
# Rigs past FK__NAMING_PAST bones with scale convert only the bones their
# vertices name: a list's first influence not named (lists apart or of
# uint8_t), packed uint16_t lists read as n indices instead of n lists, the
# second stream not named, the sign bits' rows of named bones left as the
# scratch held them.
simd_mutant naming_skips_first_influences avx2 fk__name_bones_of 'for (e = 0; e < count; ++e) {' 'for (e = 1; e < count; ++e) {'
simd_mutant naming_packed_lists_short sse2 fk__name_bones_of 'for (v = 0; v < n * count; ++v) {' 'for (v = 0; v < n; ++v) {'
simd_mutant naming_skips_second_stream sse2 fk__name_bones 'if (d->joints2)' 'if (0)'
simd_mutant sign_bits_rows_not_cleared avx2 fk__dqs_sign_bits 'memset(flipped + ' 'memset(flipped + 0 * '
simd_mutant scratch_sign_rows_too_short avx2 fk__dqs_scaled_fast '((size_t)d->transform_count + 63) / 64' '((size_t)d->transform_count + 63) / 128'
simd_mutant scaled_dqs_four_signs_wrong_bit avx2 fk__dqs_four_signed_weights8 '_mm_andnot_si128(joint, ' \
'_mm_and_si128(joint, '

# DQS with scale at the bone: the points not divided by the weights' sum; a
# vertex with a zero sum kept in the fast path, or redone from the buffer
# instead of its own point; the normals left unscaled for the rigid kernel; the
# rigid kernel given the bones' scale parts; a stretch with a bad joint index
# skinned by the reference from its second vertex.
simd_mutant at_bone_points_not_divided avx2 fk__scaled_in_two 'points[3 * i + e] /= sums[i];' '(void)sums;'
simd_mutant at_bone_zero_sums_kept sse2 fk__scaled_in_two 'if (sums[i] >= FLT_MIN && sums[i] <= FLT_MAX) continue;' \
'if (sums[i] >= -FLT_MAX) continue;'
simd_mutant at_bone_weightless_point_from_the_output avx2 fk__scaled_in_two \
'memcpy(kept + 6 * i, scaling.positions' 'memcpy(kept + 6 * i, scaling.out_positions'
simd_mutant at_bone_normals_unscaled avx2 fk__scaled_in_two 'd->normals ? (const char *)moved_normals : NULL' 'd->normals'
simd_mutant at_bone_rigid_parts_from_scale sse2 fk__scaled_in_two 'memcpy(rigid_parts + (size_t)j * rigid_floats, palette + (size_t)j * stride,' \
'memcpy(rigid_parts + (size_t)j * rigid_floats, palette + (size_t)j * stride + scale_at,'
simd_mutant at_bone_bad_stretch_first_unwritten avx2 fk__scaled_in_two 'reference(d, layout, palette, begin, d->vertex_count)' \
'reference(d, layout, palette, begin + 1, d->vertex_count)'

# CoR with scale, in the same two steps: the scale parts given p, not p - c;
# their translations not cleared (a copy of 16 floats where they have 12); the
# finish subtracting the centre again, or a vertex it cannot take given to the
# plain loop with the rigid copies for a palette; the scratch's share for the
# copies too short.
simd_mutant cor_scaled_centre_not_subtracted avx2 fk__scaled_in_two 'points[3 * i + e] = p[e] - c[e];' 'points[3 * i + e] = p[e];'
simd_mutant cor_scaled_translation_not_cleared sse2 fk__scaled_in_two 'scale_floats = cor ? 12 : 16;' 'scale_floats = 16;'
simd_mutant cor_scaled_centre_subtracted_twice avx2 fk__cor_finish##w 'if (!s->scaled_palette) {' 'if (1) {'
simd_mutant cor_scaled_careful_lane_rigid_palette avx2 fk__cor_finish##w 's->scaled_palette ? s->scaled_palette : r.palette' 'r.palette'
simd_mutant cor_scaled_scratch_short avx2 fk__cor_table_bytes 'fk__round64(n, FK__COR_BONE_FLOATS * sizeof(float))' \
'fk__round64(n, FK__LBS_BONE_FLOATS * sizeof(float))'

# DQS with scale: a vertex whose weights sum to zero kept in the fast path.
simd_mutant scaled_dqs_zero_sums_kept avx2 fk__dqs_loop_##tier 'reference_lanes[group] |= 1 << lane;' '(void)lane;'

# DQS with scale: normals not moved by the scale parts first.
simd_mutant scaled_dqs_normals_unscaled sse2 fk__dqs_finish_group_##tier 'scaled && normals ? scaled_normals : NULL' 'NULL'

# DQS: a group's pivots looked up for a whole group even past the run's end.
simd_mutant dqs_loop_pivots_past_the_run avx2 fk__dqs_loop_##tier \
'r.count - i < FK__LANES##w ? r.count - i : FK__LANES##w' 'FK__LANES##w'

# ---- Fast paths: pivots and the sign table --------------------------------------------

# The heaviest of four: the last of equal weights, not the first.
simd_mutant heaviest4_last_of_equals sse2 fk__heaviest4 \
'"\0\0\1\0\2\0\1\0\3\0\1\0\2\0\1\0"' '"\0\0\1\1\2\2\2\2\3\3\3\3\3\3\3\3"'

# With three influences the first taken as the pivot (with two either will do).
simd_mutant dqs_pivot_first_for_three avx2 fk__dqs_pivot 'if (influences <= 2) return 0;' 'if (influences <= 3) return 0;'

# Of eight, the later half's maximum taken when the two are equal.
simd_mutant dqs_pivot_of_eight_later_of_equals sse2 fk__dqs_pivot '-(weights2[high] > weights[heaviest])' '-(weights2[high] >= weights[heaviest])'
# Of five to seven, the fifth never considered; the heaviest compared with
# the last influence seen instead of the heaviest so far.
simd_mutant dqs_pivot_fifth_skipped avx2 fk__dqs_pivot 'for (e = 4; e < influences; ++e)' 'for (e = 5; e < influences; ++e)'
simd_mutant dqs_pivot_against_the_last sse2 fk__heavier '*top = more ? w : *top;' '*top = w;'
# A pivot from the fifth on looked up in the first lists (which the second
# stream need not continue).
simd_mutant dqs_pivot_fifth_from_the_first sse2 fk__dqs_pivot_at 'if (influences <= 4 || e < 4)' 'if (influences <= 4 || e < 5)'

# The pivot looked up in the neighbouring vertex's weights.
simd_mutant dqs_pivot_of_neighbour sse2 fk__dqs_loop_##tier \
'fk__dqs_pivot_at(&r, at + (size_t)v, 4,' 'fk__dqs_pivot_at(&r, at + (size_t)(v ^ 1), 4,'

# Through the table, every bone read from row 0 whatever the pivot.
simd_mutant dqs_bone_for_row_0 avx2 fk__dqs_bone_for 'r->hemisphere[pivot_at + (size_t)joint]' 'r->hemisphere[(size_t)joint]'

# Four influences signed by dot products at once: the products not
# transposed (each lane sums one bone's own products), the w products
# dropped, the weights read unsigned.
simd_mutant dqs_four_dots_not_transposed avx2 fk__dqs_four_dot_signed 'fk__f4_transpose(&x, &y, &z, &w);' ''
simd_mutant dqs_four_dots_w_dropped sse2 fk__dqs_four_dot_signed \
'fk__f4_add(fk__f4_add(fk__f4_add(x, y), z), w)' 'fk__f4_add(fk__f4_add(x, y), z)'
simd_mutant dqs_four_dots_weights_unsigned avx2 fk__dqs_loop_##tier \
'r.palette + (size_t)joints[e] * stride, four[e]' 'r.palette + (size_t)joints[e] * stride, weights[e]'

# The one-bit table keeps only each row's last bit.
simd_mutant dqs_hemispheres_bits_overwritten sse2 fk__dqs_hemispheres 'bits |= (uint64_t)flip << b;' 'bits = (uint64_t)flip << b;'

# Whether one row serves: a row's complement taken one bone past the bones.
simd_mutant dqs_one_row_complement_past_bones sse2 fk__dqs_one_row_serves '((uint64_t)1 << bones) - 1' '((uint64_t)2 << bones) - 1'

# The rule for one influence (bones read unsigned) applied to two.
simd_mutant dqs_one_influence_rule_for_two avx2 fk__dqs_signs_for 'd->influences == 1 &&' 'd->influences <= 2 &&'

# When one row of the table serves, the bones copied without their signs.
simd_mutant dqs_presigned_bones_unsigned sse2 fk__dqs_signs_for \
'palette + (one_influence ? (size_t)j * FK__DQS_PALETTE_STRIDE : hemisphere[j])' 'palette + (size_t)j * FK__DQS_PALETTE_STRIDE'

# Rigs past 128 bones whose named bones fold their sign bits
# (fk__dqs_rows_fold()): two bones alike modulo 128 not noticed; the kernel
# reading a folded row unmasked (beyond its two words); the bits written
# unfolded; rows never folded (which the test notices).
simd_mutant rows_fold_despite_collisions sse2 fk__dqs_rows_fold 'if (taken[column / 64] >> (column % 64) & 1) return 0;' ''
simd_mutant folded_bits_read_unmasked avx2 fk__dqs_loop_##tier \
'fk__dqs_signed_weight(row, joints[e] & r.sign_columns, weights[e])' 'fk__dqs_signed_weight(row, joints[e], weights[e])'
simd_mutant folded_bits_written_unmasked sse2 fk__dqs_sign_bits \
'column_b = (unsigned)b & column_mask' 'column_b = (unsigned)b'
simd_mutant folded_rows_never_at_the_vertex avx2 fk__dqs_scaled_fast 'if (fk__dqs_rows_fold(layout->named_bones))' 'if (0 && fk__dqs_rows_fold(layout->named_bones))'

# Whether a call names its bones (fk__naming_pays()): past the cost, bones
# named anyway; DQS with scale centred at the vertex not always named; the
# joint indices counted one a vertex.
simd_mutant naming_regardless_of_cost sse2 fk__naming_pays \
'(double)d->vertex_count * d->influences < (double)FK__NAMING_INDICES_PER_BONE * d->transform_count' '1'
simd_mutant naming_not_always_at_the_vertex avx2 fk__naming_pays \
'(bone_floats == FK__DQS_SCALED_STRIDE && d->dqs_scale_center == FK_DQS_SCALE_AT_VERTEX) ||' ''
simd_mutant naming_counts_vertices_not_indices sse2 fk__naming_pays \
'(double)d->vertex_count * d->influences' '(double)d->vertex_count'

# ---- Fast paths: the block index check ------------------------------------------------

# The largest valid index one too high: an index equal to transform_count passes.
simd_mutant joint_limit_off_by_one avx2 fk__skin_run_of '(unsigned)d->transform_count - 1u' '(unsigned)d->transform_count'

# Lists with gaps between them: each list's last index never checked.
simd_mutant joints_in_range_last_of_each_list_unchecked sse2 fk__lists_in_range 'for (e = 0; e < k; ++e)' 'for (e = 0; e + 1 < k; ++e)'
# A second stream apart: its indices never checked, or checked as if it
# continued the first lists.
simd_mutant joints_in_range_second_stream_unchecked sse2 fk__joints_in_range \
'fk__lists_in_range(r->joints2, r->joint2_stride, k - 4, r->count, r->joint_limit);' '1;'
simd_mutant joints_in_range_streams_as_one avx2 fk__joints_in_range '(r->joints2 == r->joints + 4 * sizeof(uint16_t) &&' '(1 ||'

# A block with a bad index: the reference starts one vertex in, leaving the block's first unwritten.
simd_mutant skin_fast_bad_block_first_unwritten sse2 fk__skin_blocks 'reference(d, layout, palette, begin,' 'reference(d, layout, palette, begin + 1,'

# Tangents taken by the fast paths, which do not write them.
props_mutant fast_skin_with_tangents avx2 fk__fast_skin_applies '&& !d->tangents' ''
# The fast paths never take a call: every call runs the reference loops, which
# agree with themselves; test_simd sees that its fast calls ran no kernel.
simd_mutant fast_skin_never_applies avx2 fk__fast_skin_applies 'return palette && ' 'return 0 && palette && '
# The fast forward pass never chosen: the reference pass agrees with the general path.
simd_mutant fast_forward_never_chosen avx2 fk__forward_one_pass 'if (!pass) pass =' 'pass ='

# ---- Fast paths: forward kinematics ---------------------------------------------------

# NaN's marks lost: fk__is_finite() tests for infinity alone, so a NaN position
# or translation passes the general path (the one-pass path rejects it first).
props_mutant is_finite_takes_nan sse2 fk__is_finite '& 0x7F800000u) != 0x7F800000u' '& 0x7FFFFFFFu) != 0x7F800000u'
# The forward kernel's marks taken with the sign: -infinity, a negative
# 16-bit number, never raises the maximum.
props_mutant f4_mark_not_finite_signed sse2 fk__f4_mark_not_finite@sse2 '_mm_set1_epi32(0x7FFFFFFF)' '_mm_set1_epi32(-1)'

# Only the x coordinates of the translations tested for finiteness.
props_mutant fk_finite_x_only sse2 fk__forward_pass_##tier 'for (i = 0; i < 3; ++i) /* x, y, z' 'for (i = 0; i < 1; ++i) /* x, y, z'

# A root keeps the halved rotation.
props_mutant fk_root_rotation_halved avx2 fk__forward_pass_##tier 'q = fk__f4_add(half_q, half_q);' 'q = half_q;'

# The renormalization factor halved, though the rotation already is.
props_mutant fk_factor_halved_again sse2 fk__forward_pass_##tier \
'fk__f4_sub(fk__f4_splat(3.0f), fk__f4_dot_pairs(parent_q, parent_q))' \
'fk__f4_mul(fk__f4_splat(0.5f), fk__f4_sub(fk__f4_splat(3.0f), fk__f4_dot_pairs(parent_q, parent_q)))'

# A parent among the first 256 joints: its translation read from the near rotations.
props_mutant fk_near_parent_misread avx2 fk__forward_pass_##tier 'parent_t = near_t[parent];' 'parent_t = near_q[parent];'

# A parent past the first 256 joints: the wrong joint's translation read from out[].
props_mutant fk_far_parent_misread sse2 fk__forward_pass_##tier 'fk__f4_load3(&out[parent].t)' 'fk__f4_load3(&out[parent / 2].t)'

# A joint right after its parent takes the parent's rotation as its translation.
props_mutant fk_previous_joint_misread avx2 fk__forward_pass_##tier 'parent_q = q, parent_t = t,' 'parent_q = q, parent_t = q,'

# A joint scaled by its neighbour's normalization factor.
props_mutant fk_factor_of_neighbour avx2 fk__forward_pass_##tier 'factors[i - batch]' 'factors[(i - batch) ^ 1]'

# A |q|^2 below FLT_MIN (zero, subnormal) let through instead of reported.
props_mutant fk_subnormal_norm_accepted sse2 fk__half_unit_factors4 \
'bits - 0x00800000u <= 0x7F7FFFFFu - 0x00800000u' 'bits <= 0x7F7FFFFFu'

# An infinite |q|^2 let through instead of reported.
props_mutant fk_infinite_norm_accepted avx2 fk__half_unit_factors4 \
'bits - 0x00800000u <= 0x7F7FFFFFu - 0x00800000u' 'bits - 0x00800000u <= 0x7F800000u - 0x00800000u'

# Width 4: the parent's pivot rotated by the joint's rotation.
props_mutant rotate_pair4_rotation_of_other sse2 fk__rotate_pair4 'fk__f4_quat_rotate(qa, va)' 'fk__f4_quat_rotate(qb, va)'

# Width 8: the two rotations paired with the wrong vectors.
props_mutant rotate_pair8_halves_swapped avx2 fk__rotate_pair8 '_mm256_set_m128(qb, qa)' '_mm256_set_m128(qa, qb)'

# Width 8: the cross product turned.
props_mutant f8_cross_turned avx2 fk__f8_cross 'FK__F8_PERMUTE(c, 1, 2, 0, 3)' 'FK__F8_PERMUTE(c, 2, 0, 1, 3)'

# ---- Fast paths: NEON (64-bit Arm) ----------------------------------------------------

# A point's z loaded from its y.
simd_mutant neon_load3_z_from_y neon fk__f4_load3@neon 'vld1_lane_f32(v + 2,' 'vld1_lane_f32(v + 1,'

# A point's z stored from its y.
simd_mutant neon_store3_z_from_y neon fk__f4_store3@neon 'vst1q_lane_f32((float *)p + 2, v, 2);' 'vst1q_lane_f32((float *)p + 2, v, 1);'

# The transpose's second column from the wrong pair.
simd_mutant neon_transpose_column_from_wrong_pair neon fk__f4_transpose@neon \
'*b = vcombine_f32(vget_low_f32(ab.val[1]), vget_low_f32(cd.val[1]));' '*b = vcombine_f32(vget_low_f32(ab.val[1]), vget_low_f32(cd.val[0]));'

# Packed points stored with y from z.
simd_mutant neon_store_packed3_y_from_z neon fk__f4_store_packed3@neon 'points.val[1] = y;' 'points.val[1] = z;'

# The fourth lane's bit read as the third's.
simd_mutant neon_lane_bits_fourth_as_third neon fk__f4_lane_bits '{1, 2, 4, 8}' '{1, 2, 4, 4}'

# The index check's bound one too high.
simd_mutant neon_indices_at_most_off_by_one neon fk__indices_at_most@neon 'vmaxvq_u16(top) <= limit' 'vmaxvq_u16(top) <= limit + 1'

# The indices after the last whole 16 bytes never checked.
simd_mutant neon_indices_at_most_tail_unchecked neon fk__indices_at_most@neon 'for (; i < count; ++i) over |= indices[i] > limit;' ''

# The reciprocal square root by NEON's 8-bit estimate.
simd_mutant neon_rsqrt_estimate neon fk__f4_rsqrt@neon 'vdivq_f32(vdupq_n_f32(1.0f), vsqrtq_f32(x))' 'vrsqrteq_f32(x)'

# ---- Fast paths: WebAssembly SIMD128 -------------------------------------------------

# A point's z loaded into its y's lane.
simd_mutant wasm_load3_z_into_y_lane wasm fk__f4_load3@wasm 'wasm_v128_load64_zero(p), 2)' 'wasm_v128_load64_zero(p), 1)'

# A point's z stored from its y.
simd_mutant wasm_store3_z_from_y wasm fk__f4_store3@wasm 'wasm_v128_store32_lane((float *)p + 2, v, 2);' 'wasm_v128_store32_lane((float *)p + 2, v, 1);'

# The transpose's second column from the wrong pair.
simd_mutant wasm_transpose_column_from_wrong_pair wasm fk__f4_transpose@wasm \
'*b = wasm_i64x2_shuffle(ab_low, cd_low, 1, 3);' '*b = wasm_i64x2_shuffle(ab_low, cd_high, 1, 3);'

# Packed points: the third vertex's x loaded from the fourth's y.
simd_mutant wasm_load_packed3_x_wrong wasm fk__f4_load_packed3@wasm '(a, b, 0, 3, 6, 7), c, 0, 1, 2, 5)' '(a, b, 0, 3, 7, 7), c, 0, 1, 2, 5)'

# The index check's bound one too high.
simd_mutant wasm_indices_at_most_off_by_one wasm fk__indices_at_most@wasm 'wasm_u16x8_splat((uint16_t)limit)' 'wasm_u16x8_splat((uint16_t)(limit + 1))'

# ---- Running them ----------------------------------------------------------------

scalar_programs=(test_properties)
[ -f "$root/tests/test_core.c" ] && scalar_programs+=(test_core)
qemu="qemu-aarch64 -L /usr/aarch64-linux-gnu"
wasm_cc="clang --target=wasm32-wasi -msimd128"
wasm_link="-Wl,--stack-first,-z,stack-size=1048576 -lwasi-emulated-process-clocks"

# Whether this machine runs a tier's code: sse2 and avx2 natively (avx2 needs
# AVX2 and FMA), neon natively or under qemu-aarch64 with the cross compiler,
# wasm where clang links for WASI and node runs it.
wasm_ok=""
can_run() {
    local flag
    case $1 in
        "") return 0 ;;
        neon)
            [ "$(uname -m)" = aarch64 ] && return 0
            command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null
            return ;;
        wasm)
            if [ -z "$wasm_ok" ]; then
                printf 'int main(void) { return 0; }\n' >"$work/probe.c"
                wasm_ok=no
                command -v node >/dev/null &&
                    $wasm_cc -D_WASI_EMULATED_PROCESS_CLOCKS "$work/probe.c" -o "$work/probe.wasm" $wasm_link >/dev/null 2>&1 &&
                    wasm_ok=yes
            fi
            [ "$wasm_ok" = yes ]; return ;;
    esac
    [ "$(uname -m)" = x86_64 ] || return 1
    [ "$1" = sse2 ] && return 0
    [ "$1" = avx2-gcc ] && ! command -v gcc >/dev/null && return 1
    for flag in avx2 fma; do grep -qw "$flag" /proc/cpuinfo || return 1; done
}

# The programs that judge a tier, and how they are built and run: the scalar
# tests with the fast paths compiled out, or the fast paths of the tier.
choose_tier() {
    program_cc=$cc; program_runner=""; program_flags=""; program_libs=""; build_flags=""
    case $1 in
        "") build_flags=-DFK_LBS_NO_SIMD ;;
        sse2) build_flags=-DFK_LBS_NO_AVX2 ;;
        avx2-gcc) program_cc=gcc ;;
        neon)
            if [ "$(uname -m)" != aarch64 ]; then program_cc=aarch64-linux-gnu-gcc; program_runner=$qemu; fi ;;
        wasm)
            program_cc=$wasm_cc; program_runner="node $root/tests/wasm/run.mjs"
            program_flags=-D_WASI_EMULATED_PROCESS_CLOCKS; program_libs=$wasm_link ;;
    esac
}

# The interpreter itself, not a wrapper script that finds it (pyenv's shims
# take a tenth of a second a call).
python=$(python3 -c 'import sys; print(sys.executable)') || { echo "tests/mutants.sh needs python3"; exit 1; }

# Writes the header with mutant $1 applied (or none for -1) to $work/include,
# and sets $planted to where the mutant sits: "implementation" or "declarations".
make_header() {
    planted=implementation
    if [ "$1" -lt 0 ]; then cp "$root/fk_lbs.h" "$work/include/fk_lbs.h"; return; fi
    MUTANT_NAME=${names[$1]} MUTANT_FIND=${finds[$1]} MUTANT_REPLACEMENT=${replacements[$1]} \
        "$python" "$work/locate.py" "$root/fk_lbs.h" "${keys[$1]}" "$work/include/fk_lbs.h" >"$work/planted" ||
        { cat "$work/planted"; return 1; }
    planted=$(cat "$work/planted")
}
cat >"$work/locate.py" <<'EOF'
# Finds the definition of a function or macro in a header and replaces text
# there: the function from its first line to the brace that closes its body,
# the macro to the end of its continued lines; NAME@isa only the definitions
# within an `#if ... defined(FK__SIMD_ISA)` branch. The text must occur exactly
# once in all of them together.
import os, re, sys

header, key, out = sys.argv[1:4]
name, find, replacement = (os.environ[v] for v in ("MUTANT_NAME", "MUTANT_FIND", "MUTANT_REPLACEMENT"))
text = open(header).read()
function, _, isa = key.partition("@")

def closing(at, opening, closer):
    """Just past the bracket that closes the one at `at`, skipping comments and literals."""
    depth, i = 0, at
    while i < len(text):
        if text.startswith("/*", i): i = text.index("*/", i) + 2; continue
        if text.startswith("//", i): i = text.index("\n", i); continue
        c = text[i]
        if c in "\"'":
            i += 1
            while text[i] != c: i += 2 if text[i] == "\\" else 1
        elif c == opening: depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0: return i + 1
        i += 1
    return len(text)

# A definition's first line: `static ... NAME(` (the first parenthesis on the
# line) followed, after the parameters, by a body; or `#define NAME`.
declarator = re.compile(r"\s*(?:static|FK_LBS_DEF)\b[^(]*?\b" + re.escape(function) + r"\s*\(")
define = re.compile(r"\s*#\s*define\s+" + re.escape(function) + r"\b")
regions, branches, offset = [], [], 0
for line in text.splitlines(keepends=True):
    directive = re.match(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)", line)
    if directive:
        kind, condition = directive.groups()
        if kind.startswith("if"): branches.append(condition)
        elif kind == "endif": branches.pop()
        else: branches[-1] = condition if kind == "elif" else "#else"
    wanted = not isa or any("defined(FK__SIMD_%s)" % isa.upper() in b for b in branches)
    if wanted and define.match(line):
        end = offset + len(line)
        while text[:end].rstrip("\n").endswith("\\"): end = text.index("\n", end) + 1
        regions.append((offset, end))
    elif wanted and declarator.match(line):
        parameters_end = closing(offset + declarator.match(line).end() - 1, "(", ")")
        body = parameters_end + re.match(r"(?:[\s\\]|/\*.*?\*/)*", text[parameters_end:], re.S).end()
        if text.startswith("{", body): regions.append((offset, closing(body, "{", "}")))
    offset += len(line)

count = sum(text.count(find, a, b) for a, b in regions)
if count != 1:
    where = "%s (%d definitions)" % (key, len(regions)) if len(regions) != 1 else key
    print("BROKEN   %s: %s" % (name, "no definition of %s in fk_lbs.h" % key if not regions else
                                 "its text occurs %d times in %s, not once" % (count, where)) +
          "; update its entry in tests/mutants.sh")
    sys.exit(1)
at = next(text.find(find, a, b) for a, b in regions if text.find(find, a, b) >= 0)
open(out, "w").write(text[:at] + replacement + text[at + len(find):])
print("implementation" if at > text.find("\n#ifdef FK_LBS_IMPLEMENTATION\n") else "declarations")
EOF

# Builds and runs every program against $work/include/fk_lbs.h. Sets $culprits to
# what failed; returns 0 if everything passed, 1 if something failed, 2 if a
# program did not compile.
run_programs() {
    local program status output opt linked source
    culprits=""
    # The programs build side by side, in a few seconds: the library, the
    # programs that link it, and test_simd (with the implementation in it).
    local pids=() pid compiled=1 library="" level=-O0
    # Every program but test_simd links the library (tests/fk_lbs_impl.c),
    # compiled once for them, as the Makefile does. Unit tests alone run in
    # well under a second even unoptimized, and -O0 compiles the header in a
    # third of -O1's time; the property tests and test_simd need -O1.
    for program in "${programs[@]}"; do
        [ "$program" = test_simd ] || library="$work/fk_lbs.o"
        case $program in test_simd|test_properties) level=-O1 ;; esac
    done
    if [ -n "$library" ]; then
        rm -f "$library"
        $program_cc -std=c99 $level -w $build_flags -I"$work/include" -c "$root/tests/fk_lbs_impl.c" -o "$library" \
            2>"$work/fk_lbs.log" || { head -5 "$work/fk_lbs.log"; return 2; }
    fi
    for program in "${programs[@]}"; do
        linked=$library
        [ "$program" = test_simd ] && linked=""
        source="$root/tests/$program.c"
        # A program that links the library reads only the header's declarations,
        # which a mutant planted in the implementation leaves alone: its object,
        # built from the real header once per set of flags, serves every such mutant.
        if [ -n "$linked" ] && [ "$planted" = implementation ]; then
            source="$work/objects/$(printf '%s' "$program_cc $level $build_flags $program_flags" | tr -c 'A-Za-z0-9' _)/$program.o"
            if [ ! -e "$source" ]; then
                mkdir -p "$(dirname "$source")"
                $program_cc -std=c99 $level -w $build_flags $program_flags -I"$root" -c "$root/tests/$program.c" \
                    -o "$source" 2>"$work/$program.log" || { head -5 "$work/$program.log"; return 2; }
            fi
        fi
        $program_cc -std=c99 $level -w $build_flags $program_flags -I"$work/include" "$source" $linked \
            -o "$work/$program" $program_libs -lm 2>"$work/$program.log" &
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

if [ "${MUTANT_LOCATE_ONLY:-0}" = 1 ]; then
    broken=0
    for index in "${!names[@]}"; do make_header "$index" || broken=$((broken + 1)); done
    echo "mutants: $((${#names[@]} - broken)) of ${#names[@]} entries find their text"
    [ $broken -eq 0 ]; exit
fi

# First, the tests must pass on the unmodified header (else every mutant would
# look caught): the scalar tests, then the judges of each tier this machine runs.
make_header -1
if [ "${MUTANT_SKIP_BASELINE:-0}" != 1 ]; then
    for tier in "" sse2 avx2 neon wasm; do
        can_run "$tier" || continue
        choose_tier "$tier"
        case $tier in
            "") programs=("${scalar_programs[@]}" test_beyond test_animation test_gpu test_engine test_retarget) ;;
            sse2|avx2) programs=(test_simd test_properties test_bad_input test_engine) ;;
            *) programs=(test_simd) ;;
        esac
        run_programs; status=$?
        if [ $status -ne 0 ]; then
            echo "the tests fail on the unmodified fk_lbs.h (${tier:-no SIMD}: $culprits); fix that first"
            exit 1
        fi
    done
fi

shard=${MUTANT_SHARD:-0/1}; shard_index=${shard%/*}; shard_count=${shard#*/}
killed=0; total=0; broken=0; skipped=0
for index in "${!names[@]}"; do
    [ $((index % shard_count)) -eq "$shard_index" ] || continue
    if [ $# -gt 0 ]; then
        wanted=0; for name in "$@"; do [ "$name" = "${names[$index]}" ] && wanted=1; done
        [ $wanted -eq 1 ] || continue
    fi
    if ! can_run "${tiers[$index]}"; then
        printf 'SKIPPED  %-40s this machine does not run the %s code\n' "${names[$index]}" "${tiers[$index]}"
        skipped=$((skipped + 1)); continue
    fi
    total=$((total + 1))
    choose_tier "${tiers[$index]}"
    if [ -z "${tiers[$index]}" ] && [ -z "${judges[$index]}" ]; then programs=("${scalar_programs[@]}")
    else read -r -a programs <<<"${judges[$index]}"; fi
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
