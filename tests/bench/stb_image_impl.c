/* stb_image_impl.c - stb_image.h's implementation (Debian's libstb-dev), the reference
   tests/bench/compile_cost.sh times fk_lbs.h's build against. */
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>
