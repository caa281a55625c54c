/* The second translation unit of the link test: declarations only. */
#include "fk_lbs.h"

float link_b_rotate_x(void);

float link_b_rotate_x(void)
{
    fk_quat turn = fk_quat_from_axis_angle(fk_vec3_make(0.0f, 1.0f, 0.0f), 1.5707963f);
    return fk_quat_rotate(turn, fk_vec3_make(0.0f, 0.0f, 1.0f)).x;
}
