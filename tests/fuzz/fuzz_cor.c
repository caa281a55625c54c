/* fuzz_cor.c - libFuzzer target for fk_cor_workspace_size and fk_cor_centers.

   The bytes become a small rest mesh: vertex, triangle and influence counts
   (small, zero, negative, huge), packed or padded strides (some too small or
   misaligned), positions and weights with special values (NaN, infinities,
   negative, denormal, FLT_MAX), triangle indices in and out of range (often
   repeated corners), sigma and epsilon of any value, either sampling (or an
   unknown one), a vertex range in or out of the mesh, and a workspace of the
   size asked for or one byte short. Invariants:
     - fk_cor_workspace_size() and fk_cor_centers() agree on the descriptor's errors;
     - on any error nothing is written; a short workspace is FK_ERROR_INVALID_COUNT;
     - on FK_OK, exactly the range's records are written, each centre lies in
       the box of the mesh's positions (a weighted mean of sample centroids),
       and a vertex with fewer than two bones of nonzero weight keeps its position;
     - inputs are never modified. */
#include "fk_lbs.h" /* declarations: the library is tests/fk_lbs_impl.c */
#include "fuzz_input.h"

#define MAX_VERTICES 24
#define MAX_TRIANGLES 32
#define MAX_K 5
#define SENTINEL 0xA5

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size, 0};
    fk_cor_desc d;
    float *positions, *weights, *out;
    uint16_t *joints;
    uint32_t *indices;
    unsigned char *copy, *workspace;
    size_t ps, js, ws, bytes = 0, copy_bytes, out_bytes;
    int v, t, s, c, first, count, nv, nt, k, short_workspace;
    fk_result sized, result;
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};

    memset(&d, 0, sizeof d);
    nv = fuzz_int(&in, MAX_VERTICES + 1, 0);
    nt = fuzz_int(&in, MAX_TRIANGLES + 1, 0);
    k = fuzz_int(&in, MAX_K, 1);
    if (nv < 0 || nv > MAX_VERTICES || nt < 0 || nt > MAX_TRIANGLES || k < 1 || k > MAX_K) {
        d.vertex_count = nv; d.triangle_count = nt; d.influences = k; /* counts only: every pointer NULL */
        FUZZ_REQUIRE(fk_cor_workspace_size(&d, &bytes) != FK_OK || (nv <= 0 && nt <= 0 && k >= 1),
                     "counts %d %d %d accepted", nv, nt, k);
        return 0;
    }
    ps = 12 + 4 * (size_t)(fuzz_byte(&in) % 3);
    js = 2 * (size_t)k + 2 * (size_t)(fuzz_byte(&in) % 2);
    ws = 4 * (size_t)k + 4 * (size_t)(fuzz_byte(&in) % 2);
    if (fuzz_byte(&in) == 255) js = 2 * (size_t)k - 1; /* too small or misaligned */
    positions = (float *)fuzz_alloc(ps * (size_t)nv);
    joints = (uint16_t *)fuzz_alloc(js * (size_t)nv + (js < 2 * (size_t)k ? 2 : 0)); /* a short stride's last record */
    weights = (float *)fuzz_alloc(ws * (size_t)nv);
    indices = (uint32_t *)fuzz_alloc(12 * (size_t)nt);
    for (v = 0; v < nv; ++v) {
        float *p = (float *)(void *)((char *)positions + (size_t)v * ps);
        float *w = (float *)(void *)((char *)weights + (size_t)v * ws);
        for (c = 0; c < 3; ++c) p[c] = fuzz_float(&in);
        for (s = 0; s < k; ++s) {
            const uint8_t b = fuzz_byte(&in);
            const uint16_t joint = (uint16_t)(b < 250 ? b % 5 : b == 255 ? 65535 : fuzz_u32(&in));
            memcpy((char *)joints + (size_t)v * js + 2 * (size_t)s, &joint, sizeof joint); /* js may be odd */
            w[s] = fuzz_float(&in);
            if (w[s] < 0.0f && fuzz_byte(&in) < 200) w[s] = -w[s]; /* mostly valid weights */
        }
    }
    for (t = 0; t < 3 * nt; ++t) {
        const uint8_t b = fuzz_byte(&in);
        indices[t] = b < 240 ? (uint32_t)(nv > 0 ? b % nv : 0) : b < 250 ? (uint32_t)nv : fuzz_u32(&in);
    }
    d.vertex_count = nv; d.triangle_count = nt; d.influences = k;
    d.positions = nv > 0 ? positions : NULL; d.position_stride = ps;
    d.joints = nv > 0 ? joints : NULL; d.joint_stride = js;
    d.weights = nv > 0 ? weights : NULL; d.weight_stride = ws;
    d.indices = nt > 0 ? indices : NULL;
    if (fuzz_byte(&in) >= 128) d.sigma = fuzz_float(&in);
    if (fuzz_byte(&in) >= 128) d.epsilon = fuzz_float(&in);
    d.sampling = (fk_cor_sampling)(fuzz_byte(&in) % 3 == 2 ? (fuzz_byte(&in) == 0 ? 2 : 1) : 0);
    first = fuzz_int(&in, nv + 1, 0);
    count = fuzz_int(&in, nv + 1, 0);
    short_workspace = fuzz_byte(&in) == 77;

    copy_bytes = ps * (size_t)nv + js * (size_t)nv + ws * (size_t)nv + 12 * (size_t)nt;
    copy = (unsigned char *)fuzz_alloc(copy_bytes);
    memcpy(copy, positions, ps * (size_t)nv);
    memcpy(copy + ps * (size_t)nv, joints, js * (size_t)nv);
    memcpy(copy + (ps + js) * (size_t)nv, weights, ws * (size_t)nv);
    memcpy(copy + (ps + js + ws) * (size_t)nv, indices, 12 * (size_t)nt);

    sized = fk_cor_workspace_size(&d, &bytes);
    workspace = (unsigned char *)fuzz_alloc(sized == FK_OK && bytes > 0 ? bytes : 1);
    out_bytes = 12 * (size_t)(nv > 0 ? nv : 1);
    out = (float *)fuzz_alloc(out_bytes);
    memset(out, SENTINEL, out_bytes);
    result = fk_cor_centers(&d, first, count, workspace, sized == FK_OK ? bytes - (size_t)short_workspace : 0, out, 0);
    if (sized != FK_OK) FUZZ_REQUIRE(result == sized, "size said %d, centers %d", (int)sized, (int)result);
    if (sized == FK_OK && short_workspace && first >= 0 && count >= 0 && first <= nv - count)
        FUZZ_REQUIRE(result == FK_ERROR_INVALID_COUNT, "short workspace gave %d", (int)result);
    if (result != FK_OK) {
        for (s = 0; s < (int)out_bytes; ++s) FUZZ_REQUIRE(((unsigned char *)out)[s] == SENTINEL, "wrote on error %d", (int)result);
    } else {
        FUZZ_REQUIRE(first >= 0 && count >= 0 && first + count <= nv, "range %d+%d accepted", first, count);
        for (v = 0; v < nv; ++v) {
            const float *p = (const float *)(const void *)((const char *)positions + (size_t)v * ps);
            for (c = 0; c < 3; ++c) { lo[c] = fmin(lo[c], (double)p[c]); hi[c] = fmax(hi[c], (double)p[c]); }
        }
        for (v = 0; v < nv; ++v) {
            const unsigned char *o = (const unsigned char *)(out + 3 * v);
            const float *p = (const float *)(const void *)((const char *)positions + (size_t)v * ps);
            const uint16_t *j = (const uint16_t *)(const void *)((const char *)joints + (size_t)v * js);
            const float *w = (const float *)(const void *)((const char *)weights + (size_t)v * ws);
            int bones = 0, a, b;
            if (v < first || v >= first + count) {
                for (s = 0; s < 12; ++s) FUZZ_REQUIRE(o[s] == SENTINEL, "vertex %d outside the range written", v);
                continue;
            }
            for (c = 0; c < 3; ++c) {
                const double slack = 1e-6 * (fabs(lo[c]) + fabs(hi[c]));
                FUZZ_REQUIRE((double)out[3 * v + c] >= lo[c] - slack && (double)out[3 * v + c] <= hi[c] + slack,
                             "vertex %d: centre %g outside [%g, %g]", v, (double)out[3 * v + c], lo[c], hi[c]);
            }
            for (a = 0; a < k; ++a) { /* distinct joints of nonzero weight */
                int seen = w[a] == 0.0f;
                for (b = 0; b < a && !seen; ++b) seen = w[b] != 0.0f && j[b] == j[a];
                bones += !seen;
            }
            if (bones < 2) FUZZ_REQUIRE(!memcmp(out + 3 * v, p, 12), "vertex %d with one bone moved", v);
        }
    }
    FUZZ_REQUIRE(!memcmp(copy, positions, ps * (size_t)nv) && !memcmp(copy + ps * (size_t)nv, joints, js * (size_t)nv) &&
                     !memcmp(copy + (ps + js) * (size_t)nv, weights, ws * (size_t)nv) &&
                     !memcmp(copy + (ps + js + ws) * (size_t)nv, indices, 12 * (size_t)nt),
                 "inputs modified");
    free(copy); free(workspace); free(out); free(positions); free(joints); free(weights); free(indices);
    return 0;
}
