/* Compiled as C99, C11 and C++11 by gcc and clang with every warning as an error,
   once with the implementation extern and once with FK_LBS_STATIC. */
#define FK_LBS_IMPLEMENTATION
#include "fk_lbs.h"

int main(void)
{
    fk_rigid r = fk_rigid_identity();
    return r.q.w == 1.0f ? 0 : 1;
}
