/* fuzz_input.h - turns the fuzzer's bytes into the numbers a skinning library meets.

   Most bytes decode to small, ordinary values so that the fuzzer spends its time on
   valid skeletons and meshes; a few byte values decode to the troublemakers (zero,
   negative zero, denormals, FLT_MAX, infinities, NaN, raw bit patterns, huge or
   negative integers). When the bytes run out every read returns a plain default,
   so any prefix of an input is an input too. */
#ifndef FK_FUZZ_INPUT_H
#define FK_FUZZ_INPUT_H

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fuzz_input {
    const uint8_t *data;
    size_t size, used;
} fuzz_input;

/* An invariant the library must keep; a broken one aborts so that libFuzzer (or the
   replay program) reports the input that broke it. */
#define FUZZ_REQUIRE(cond, ...)                                                       \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: invariant broken: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
            abort();                                                                  \
        }                                                                             \
    } while (0)

static inline int fuzz_exhausted(const fuzz_input *in) { return in->used >= in->size; }

static inline uint8_t fuzz_byte(fuzz_input *in) { return fuzz_exhausted(in) ? 0 : in->data[in->used++]; }

static inline uint32_t fuzz_u32(fuzz_input *in)
{
    uint32_t v = 0;
    int i;
    for (i = 0; i < 4; ++i) v |= (uint32_t)fuzz_byte(in) << (8 * i);
    return v;
}

static inline float fuzz_float_from_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Bytes 0..223 give multiples of 1/8 in [-14, 14); the rest pick a special value. */
static inline float fuzz_float(fuzz_input *in)
{
    uint8_t b;
    if (fuzz_exhausted(in)) return 0.0f;
    b = fuzz_byte(in);
    if (b < 224) return ((float)b - 112.0f) * 0.125f;
    switch (b - 224) {
    case 0: return 0.0f;
    case 1: return -0.0f;
    case 2: return FLT_MIN;                        /* smallest normal */
    case 3: return fuzz_float_from_bits(1u);       /* smallest denormal */
    case 4: return fuzz_float_from_bits(0x007fffffu); /* largest denormal */
    case 5: return FLT_MAX;
    case 6: return -FLT_MAX;
    case 7: return INFINITY;
    case 8: return -INFINITY;
    case 9: return NAN;
    case 10: return 1e-20f;
    case 11: return 1e20f;
    case 12: return -1e19f;
    case 13: return 1e30f;
    case 14: return FLT_EPSILON;
    case 15: return 1.0f + FLT_EPSILON;
    default: return fuzz_float_from_bits(fuzz_u32(in)); /* any bit pattern at all */
    }
}

/* An int for a count or an index: usually small, sometimes anything. */
static inline int fuzz_int(fuzz_input *in, int small_range, int offset)
{
    uint8_t b = fuzz_byte(in);
    if (b < 240 || small_range <= 0) return small_range > 0 ? (int)(b % (unsigned)small_range) + offset : offset;
    switch (b - 240) {
    case 0: return INT_MIN;
    case 1: return INT_MAX;
    case 2: return -1;
    case 3: return -2;
    case 4: return small_range + offset;     /* one past the end */
    case 5: return 65535;
    case 6: return 65536;
    default: return (int)fuzz_u32(in);
    }
}

/* An exactly sized heap block, so AddressSanitizer sees one element past the end.
   It starts as all-ones bytes, NaN as floats and -1 as ints, so that reading what
   nobody wrote shows up as NaN rather than as a plausible number. */
static inline void *fuzz_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    FUZZ_REQUIRE(p != NULL, "out of memory for %zu bytes", bytes);
    memset(p, 0xFF, bytes ? bytes : 1);
    return p;
}

static inline int fuzz_is_finite(float x) { return x >= -FLT_MAX && x <= FLT_MAX; }

/* Whether the library may accept a quaternion (x, y, z, w) as a rotation: 0 when it
   certainly must, 1 when it certainly must not (zero or non-finite), 2 when it is
   too close to the edge of float's range to say (|q|^2 must be a normal float). */
static inline int fuzz_rotation_badness(float x, float y, float z, float w)
{
    double n2;
    if (!fuzz_is_finite(x) || !fuzz_is_finite(y) || !fuzz_is_finite(z) || !fuzz_is_finite(w)) return 1;
    n2 = (double)x * (double)x + (double)y * (double)y + (double)z * (double)z + (double)w * (double)w;
    if (n2 == 0.0) return 1;
    return n2 >= 1e-36 && n2 <= 1e36 ? 0 : 2;
}

#endif
