// SPDX-License-Identifier: Apache-2.0
// The max-pool family in DOUBLE: compared and summed in double, never narrowed (the float32 rows
// convert every value to float32 first). Where CANN lists DOUBLE (aclnnAdaptiveMaxPool2d) and, by
// poolgrad's extension (poolgradSetThreadDoubleDtype), for the rest of the family: PyTorch's
// gradcheck and gradgradcheck need float64. One thread, plain loops: golden-data speed, and the
// same bits for any thread count trivially.
#include "volume_double.h"

#include <cmath>

namespace poolgrad {

namespace {

double *at(const Strided5 &t, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w) {
  return reinterpret_cast<double *>(volume_at(t, 8, n, c, d, h, w));
}

}  // namespace

VolumeParams volume_params(const MaxPoolParams &p, bool adaptive) {
  VolumeParams v;
  v.n = p.n, v.c = p.c;
  v.ax[0].adaptive = adaptive;  // depth 1 -> 1 either way (k = 1, s = 1, p = 0)
  v.ax[1] = {p.h, p.ho, p.a.kh, p.a.sh, p.a.ph, p.a.dh, adaptive};
  v.ax[2] = {p.w, p.wo, p.a.kw, p.a.sw, p.a.pw, p.a.dw, adaptive};
  v.dtype = p.dtype, v.index_dtype = p.index_dtype;
  v.threads = p.threads, v.serial = p.serial, v.isa = p.isa;
  return v;
}

int64_t volume_double_workspace(const VolumeParams &, const Strided5 &, const Strided5 &,
                                const Strided5 &) {
  return 0;
}

// Each window scanned in (d, h, w) order with the float rows' rule (volume_kernels.h): the first
// maximum, a NaN beats any number and the last NaN wins; an empty window gives -inf and -1.
FirstError volume_forward_double(const VolumeParams &p, const Strided5 &x, const Strided5 &out,
                                 const Strided5 &idx, void *) {
  const int64_t H = p.ax[1].in, W = p.ax[2].in;
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t c = 0; c < p.c; ++c)
      for (int64_t od = 0; od < p.ax[0].out; ++od)
        for (int64_t oh = 0; oh < p.ax[1].out; ++oh)
          for (int64_t ow = 0; ow < p.ax[2].out; ++ow) {
            int64_t f[3], k[3], s[3];
            const int64_t o[3] = {od, oh, ow};
            for (int a = 0; a < 3; ++a) axis_window(p.ax[a], o[a], &f[a], &k[a], &s[a]);
            double best = -INFINITY;
            int64_t best_at = -1;
            for (int64_t i = 0; i < k[0]; ++i)
              for (int64_t j = 0; j < k[1]; ++j)
                for (int64_t l = 0; l < k[2]; ++l) {
                  const int64_t d = f[0] + i * s[0], h = f[1] + j * s[1], w = f[2] + l * s[2];
                  const double v = *at(x, n, c, d, h, w);
                  if (best_at < 0 || v > best || std::isnan(v))
                    best = v, best_at = (d * H + h) * W + w;
                }
            *at(out, n, c, od, oh, ow) = best;
            store_index(volume_at(idx, index_size(p.index_dtype), n, c, od, oh, ow), p.index_dtype,
                        best_at);
          }
  return {};
}

// Per (n, c) volume: zeroed, then gradOutput added at each stored index in (od, oh, ow) order,
// in double; -1 skipped, any other index outside the volume noted (the first, flat in
// (n, c, od, oh, ow) order) and skipped. Each index is loaded once (scatter.h).
FirstError volume_backward_double(const VolumeParams &p, const Strided5 &gy, const Strided5 &idx,
                                  const Strided5 &gx, void *) {
  const int64_t D = p.ax[0].in, H = p.ax[1].in, W = p.ax[2].in, dhw = p.volume();
  const int64_t dout = p.ax[0].out, hout = p.ax[1].out, wout = p.ax[2].out;
  FirstError err;
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t c = 0; c < p.c; ++c) {
      for (int64_t d = 0; d < D; ++d)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t w = 0; w < W; ++w) *at(gx, n, c, d, h, w) = 0.0;
      for (int64_t od = 0; od < dout; ++od)
        for (int64_t oh = 0; oh < hout; ++oh)
          for (int64_t ow = 0; ow < wout; ++ow) {
            const int64_t k = load_index(
                volume_at(idx, index_size(p.index_dtype), n, c, od, oh, ow), p.index_dtype);
            if (in_plane(k, dhw))
              *at(gx, n, c, k / (H * W), k / W % H, k % W) += *at(gy, n, c, od, oh, ow);
            else if (k != -1)
              err.note((((n * p.c + c) * dout + od) * hout + oh) * wout + ow, k);
          }
    }
  return err;
}

int64_t pool2d_double_workspace(const MaxPoolParams &, const Strided4 &, const Strided4 &,
                                const Strided4 &) {
  return 0;
}

FirstError maxpool2d_forward_double(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                    const Strided4 &idx, void *) {
  return volume_forward_double(volume_params(p, false), as_volume(x), as_volume(out),
                               as_volume(idx), nullptr);
}

FirstError adaptive2d_forward_double(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                     const Strided4 &idx, void *) {
  return volume_forward_double(volume_params(p, true), as_volume(x), as_volume(out), as_volume(idx),
                               nullptr);
}

FirstError pool2d_backward_double(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                                  const Strided4 &gx, void *) {
  return volume_backward_double(volume_params(p, false), as_volume(gy), as_volume(idx),
                                as_volume(gx), nullptr);
}

}  // namespace poolgrad
