/* Two translation units include fk_lbs.h, only this one with the implementation:
   they must link without duplicate or missing symbols. */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"

float link_b_rotate_x(void);

int main(void)
{
    fk_quat turn = fk_quat_from_axis_angle(fk_vec3_make(0.0f, 0.0f, 1.0f), 1.5707963f);
    float here = fk_quat_rotate(turn, fk_vec3_make(1.0f, 0.0f, 0.0f)).y;
    return (here > 0.999f && link_b_rotate_x() > 0.999f) ? 0 : 1;
}
