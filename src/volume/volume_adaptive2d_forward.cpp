// SPDX-License-Identifier: Apache-2.0
// Adaptive max pooling 2-D forward: the volume forward (src/volume) on volumes of depth 1, so the
// 2-D and 3-D adaptive operators share one kernel, one bin rule and one NaN rule.
#include <cmath>

#include "volume_adaptive2d_kernels.h"
#include "volume_kernels.h"

namespace poolgrad {

namespace {

VolumeParams volume_params(const MaxPoolParams &p) {
  VolumeParams v;
  v.n = p.n;
  v.c = p.c;
  v.ax[0].adaptive = v.ax[1].adaptive = v.ax[2].adaptive = true;  // depth 1 -> 1
  v.ax[1].in = p.h, v.ax[1].out = p.ho;
  v.ax[2].in = p.w, v.ax[2].out = p.wo;
  v.dtype = p.dtype;
  v.index_dtype = p.index_dtype;
  v.threads = p.threads;
  v.serial = p.serial;
  v.isa = p.isa;
  return v;
}

}  // namespace

int64_t adaptive_forward_workspace(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                   const Strided4 &idx) {
  return volume_forward_workspace(volume_params(p), as_volume(x), as_volume(out), as_volume(idx));
}

FirstError adaptive_forward(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                            const Strided4 &idx, void *workspace) {
  return volume_forward(volume_params(p), as_volume(x), as_volume(out), as_volume(idx), workspace);
}

int64_t adaptive_forward_double_workspace(const MaxPoolParams &, const Strided4 &, const Strided4 &,
                                          const Strided4 &) {
  return 0;
}

// DOUBLE (CANN lists it for this API on every product): compared in double, never narrowed, so the
// float32 row conversion of the volume kernel is not an option. A plain scan in (h, w) order with
// PyTorch's rule: the first maximum, a NaN beats any number, the last NaN wins. Golden-data speed.
FirstError adaptive_forward_double(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                   const Strided4 &idx, void *) {
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t c = 0; c < p.c; ++c) {
      const double *plane = reinterpret_cast<const double *>(x.base) + n * x.sn + c * x.sc;
      double *o = reinterpret_cast<double *>(out.base) + n * out.sn + c * out.sc;
      int64_t *ix = reinterpret_cast<int64_t *>(idx.base) + n * idx.sn + c * idx.sc;
      for (int64_t oh = 0; oh < p.ho; ++oh)
        for (int64_t ow = 0; ow < p.wo; ++ow) {
          const int64_t h1 = bin_end(oh, p.h, p.ho), w1 = bin_end(ow, p.w, p.wo);
          int64_t best_at = -1;
          double best = 0;
          for (int64_t h = bin_start(oh, p.h, p.ho); h < h1; ++h)
            for (int64_t w = bin_start(ow, p.w, p.wo); w < w1; ++w) {
              const double v = plane[h * x.sh + w * x.sw];
              if (best_at < 0 || v > best || std::isnan(v)) best = v, best_at = h * p.w + w;
            }
          o[oh * out.sh + ow * out.sw] = best;
          ix[oh * idx.sh + ow * idx.sw] = best_at;
        }
    }
  return {};
}

}  // namespace poolgrad
