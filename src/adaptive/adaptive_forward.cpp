// Adaptive max pooling 2-D forward: per (n, c) plane, the plane as float32 (the thread's scratch),
// then each output bin scanned in (h, w) order: the first maximum wins, NaN wins over numbers and
// the last NaN wins (PyTorch's rule); the index is h*W + w. Bins may overlap (H not a multiple of
// Hout). Any layout: rows are read with their element stride.
#include "../core/simd.h"
#include "../maxpool/maxpool_common.h"
#include "adaptive_kernels.h"

namespace poolgrad {

namespace {

using namespace maxpool_detail;

void layout(Arena &a, const MaxPoolParams &p, float **plane, float **orow, int64_t **irow) {
  *plane = a.take<float>(p.h * p.w);
  *orow = a.take<float>(p.wo);
  *irow = a.take<int64_t>(p.wo);
}

int64_t forward(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out, const Strided4 &idx,
                void *workspace) {
  const int64_t esz = dtype_size(p.dtype);
  return run_parts(
      p, p.n * p.c, workspace,
      [&](Arena &a) {
        float *plane, *orow;
        int64_t *irow;
        layout(a, p, &plane, &orow, &irow);
      },
      [&](int64_t b, int64_t e, Arena a, FirstError *) {
        float *plane, *orow;
        int64_t *irow;
        layout(a, p, &plane, &orow, &irow);
        for (int64_t pl = b; pl < e; ++pl) {
          const int64_t n = pl / p.c, c = pl % p.c;
          for (int64_t h = 0; h < p.h; ++h)
            row_to_f32(p.isa, p.dtype, elem(x, esz, n, c, h, 0), x.sw, p.w, plane + h * p.w);
          for (int64_t oh = 0; oh < p.ho; ++oh) {
            const int64_t hs = bin_start(oh, p.h, p.ho), he = bin_end(oh, p.h, p.ho);
            for (int64_t ow = 0; ow < p.wo; ++ow) {
              const int64_t ws = bin_start(ow, p.w, p.wo), we = bin_end(ow, p.w, p.wo);
              float best = plane[hs * p.w + ws];
              int64_t bi = hs * p.w + ws;
              for (int64_t h = hs; h < he; ++h)
                for (int64_t w = ws; w < we; ++w) {
                  const float v = plane[h * p.w + w];
                  const bool take = (v > best) | (v != v);  // branch-free: data decides
                  best = take ? v : best;
                  bi = take ? h * p.w + w : bi;
                }
              orow[ow] = best;
              irow[ow] = bi;
            }
            row_from_f32(p.isa, p.dtype, orow, elem(out, esz, n, c, oh, 0), out.sw, p.wo, false);
            for (int64_t ow = 0; ow < p.wo; ++ow)
              store_index(idx, ACL_INT64, n, c, oh, ow, irow[ow]);
          }
        }
      },
      nullptr);
}

}  // namespace

int64_t adaptive_forward_workspace(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                   const Strided4 &idx) {
  return forward(p, x, out, idx, nullptr);
}

void adaptive_forward(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                      const Strided4 &idx, void *workspace) {
  forward(p, x, out, idx, workspace);
}

}  // namespace poolgrad
