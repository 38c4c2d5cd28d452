// SPDX-License-Identifier: Apache-2.0
// An independent naive reference for max pooling with indices (shares no code with the library).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace pgtest {

struct PoolRef {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  bool ceil;
};

// Output size by counting the windows i (start i*s in padded coordinates) that are kept: in
// floor mode those that fit in the padded input; in ceil mode also one that overhangs its end,
// unless it would start in the bottom/right padding.
inline int64_t ref_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  const int64_t room = in + 2 * p - (d * (k - 1) + 1);  // last start that fits
  int64_t count = 0;
  for (int64_t start = 0;; start += s) {
    const bool keep = ceil ? (start <= room + s - 1 && start < in + p) : (start <= room);
    if (!keep) break;
    ++count;
  }
  return count;
}

// x is dense NCHW (n*c planes of h*w). Returns out and idx, dense NCHW (ho x wo planes). T: float
// (the float dtypes, compared after conversion) or double.
template <class T>
void ref_forward(const std::vector<T> &x, int64_t planes, int64_t h, int64_t w, const PoolRef &a,
                 int64_t ho, int64_t wo, std::vector<T> *out, std::vector<int64_t> *idx) {
  out->assign(planes * ho * wo, T(0));
  idx->assign(planes * ho * wo, 0);
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t oh = 0; oh < ho; ++oh)
      for (int64_t ow = 0; ow < wo; ++ow) {
        T best = -std::numeric_limits<T>::infinity();
        int64_t bi = -1;
        for (int64_t m = 0; m < a.kh; ++m)
          for (int64_t q = 0; q < a.kw; ++q) {
            const int64_t ih = oh * a.sh - a.ph + m * a.dh, iw = ow * a.sw - a.pw + q * a.dw;
            if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
            const T v = x[pl * h * w + ih * w + iw];
            if (bi == -1 || v > best || std::isnan(v)) {
              best = v;
              bi = ih * w + iw;
            }
          }
        (*out)[(pl * ho + oh) * wo + ow] = best;
        (*idx)[(pl * ho + oh) * wo + ow] = bi;
      }
}

// gy and idx dense NCHW; returns the sums in T (float32 ones are not yet rounded to the dtype).
template <class T>
std::vector<T> ref_backward(const std::vector<T> &gy, const std::vector<int64_t> &idx,
                            int64_t planes, int64_t h, int64_t w, int64_t ho, int64_t wo) {
  std::vector<T> gx(planes * h * w, T(0));
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t o = 0; o < ho * wo; ++o) {
      const int64_t k = idx[pl * ho * wo + o];
      if (k >= 0 && k < h * w) gx[pl * h * w + k] += gy[pl * ho * wo + o];
    }
  return gx;
}

}  // namespace pgtest
