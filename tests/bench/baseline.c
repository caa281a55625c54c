/* baseline.c - the header as of an earlier commit (fbf9e24 by default), for
   bench.c to time beside the header of the day in the same run.

   `make bench` extracts that header into $(BUILD)/baseline/fk_lbs.h and compiles
   this file with -I$(BUILD)/baseline ahead of every other include path, so that
   "fk_lbs.h" below is the old header. FK_LBS_STATIC makes every function of the
   old implementation private to this file; the baseline_ functions are all it
   exports. The public types are the same in both headers, so bench.c declares
   these with the new header's types; baseline_type_sizes() lets it check that
   before any call (fk_skin_desc may have grown at its end since: the old header
   reads the fields it knows, which come first). */
#define FK_LBS_STATIC
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"

fk_result baseline_skin_lbs(const fk_skin_desc *desc);
fk_result baseline_skin_dqs(const fk_skin_desc *desc);
fk_result baseline_forward(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                           const fk_quat *rotations, const fk_vec3 *translations, fk_rigid *out);
size_t baseline_type_sizes(void);
size_t baseline_skin_desc_size(void);

fk_result baseline_skin_lbs(const fk_skin_desc *desc) { return fk_skin_lbs(desc); }

fk_result baseline_skin_dqs(const fk_skin_desc *desc) { return fk_skin_dqs(desc); }

fk_result baseline_forward(int joint_count, const int *parents, const fk_vec3 *rest_joints,
                           const fk_quat *rotations, const fk_vec3 *translations, fk_rigid *out)
{
    return fk_forward(joint_count, parents, rest_joints, rotations, translations, out);
}

/* The sizes of the types the calls above take, in one number that bench.c
   computes the same way from the new header; and the descriptor's own. */
size_t baseline_type_sizes(void)
{
    return 1000 * sizeof(fk_rigid) + 100000 * sizeof(fk_quat) + 10000000 * sizeof(fk_vec3);
}

size_t baseline_skin_desc_size(void) { return sizeof(fk_skin_desc); }
