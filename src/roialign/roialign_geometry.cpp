// SPDX-License-Identifier: Apache-2.0
// RoIAlign's geometry (roialign_geometry.h): the box table and the runs of a bin's samples.
#include "roialign_geometry.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace poolgrad {
namespace roialign_detail {

namespace {

template <class T>
T box_value(const RoiAlignParams &p, const BoxView &bx, int64_t k, int64_t j) {
  const char *q = bx.base + (k * bx.s0 + j * bx.s1) * dtype_size(p.dtype);
  if (p.dtype == ACL_FLOAT16)
    return half_to_float(load_once(reinterpret_cast<const uint16_t *>(q)));
  if (p.dtype == ACL_DOUBLE) return static_cast<T>(load_once(reinterpret_cast<const double *>(q)));
  return load_once(reinterpret_cast<const float *>(q));
}

// Samples per bin side: samplingRatio, or torchvision's ceil(side / pooled).
template <class T>
int64_t grid(const RoiAlignParams &p, T side, int64_t pooled) {
  if (p.sampling > 0) return std::min(p.sampling, kMaxGrid);
  const T g = std::ceil(side / static_cast<T>(pooled));
  if (!(g > 0)) return 0;
  return g >= static_cast<T>(kMaxGrid) ? kMaxGrid : static_cast<int64_t>(g);
}

FirstError bad(int datum, int64_t pos, double value) {
  FirstError e;
  e.datum = datum;
  e.pos = pos;
  std::memcpy(&e.value, &value, sizeof value);
  return e;
}

}  // namespace

template <class T>
FirstError read_boxes(const RoiAlignParams &p, const BoxView &bx, AlignBoxT<T> *out) {
  const int cols = bx.batch ? 4 : 5, first = bx.batch ? 0 : 1;
  for (int64_t k = 0; k < p.k; ++k) {
    AlignBoxT<T> &a = out[k];
    if (bx.batch) {
      const int32_t bi = load_once(reinterpret_cast<const int32_t *>(bx.batch) + k * bx.sb);
      if (bi < 0 || bi >= p.b) {
        FirstError e;
        e.datum = kAlignBatchDatum, e.pos = k, e.value = bi;
        return e;
      }
      a.batch = bi;
    } else {
      const T b0 = box_value<T>(p, bx, k, 0);
      if (!(b0 >= 0 && static_cast<double>(b0) < static_cast<double>(p.b)))
        return bad(kAlignBatchDatum, k * cols, b0);
      a.batch = static_cast<int64_t>(b0);
    }
    T v[4];
    for (int j = 0; j < 4; ++j) v[j] = box_value<T>(p, bx, k, first + j);
    const T offset = p.aligned ? T(0.5) : T(0), scale = static_cast<T>(p.scale);
    const T s[4] = {v[0] * scale - offset, v[1] * scale - offset, v[2] * scale - offset,
                    v[3] * scale - offset};
    for (int j = 0; j < 4; ++j)
      if (!std::isfinite(s[j])) return bad(kAlignBoxDatum, k * cols + first + j, v[j]);
    T roi_w = s[2] - s[0], roi_h = s[3] - s[1];
    if (!p.aligned) {
      roi_w = std::max(roi_w, T(1));
      roi_h = std::max(roi_h, T(1));
    }
    if (!std::isfinite(roi_w)) return bad(kAlignBoxDatum, k * cols + first + 2, v[2]);
    if (!std::isfinite(roi_h)) return bad(kAlignBoxDatum, k * cols + first + 3, v[3]);
    a.start_w = s[0];
    a.start_h = s[1];
    a.bin_h = roi_h / static_cast<T>(p.ph);
    a.bin_w = roi_w / static_cast<T>(p.pw);
    a.gh = grid(p, roi_h, p.ph);
    a.gw = grid(p, roi_w, p.pw);
  }
  return FirstError();
}

template <class T>
void sample_run(T start, int64_t bin_index, T bin, int64_t g, int64_t size, int64_t *first,
                int64_t *end) {
  *first = 0;
  *end = g;
  if (g <= 8) return;
  const T lim = static_cast<T>(size);
  auto before = [&](int64_t i) {
    const T v = sample_at(start, bin_index, bin, i, g);
    return bin >= 0 ? v < -1 : v > lim;
  };
  auto after = [&](int64_t i) {
    const T v = sample_at(start, bin_index, bin, i, g);
    return bin >= 0 ? v > lim : v < -1;
  };
  int64_t lo = 0, hi = g;  // first i with !before(i)
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (before(mid))
      lo = mid + 1;
    else
      hi = mid;
  }
  *first = lo;
  hi = g;  // first i >= lo with after(i)
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (after(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  *end = lo;
}

template FirstError read_boxes(const RoiAlignParams &, const BoxView &, AlignBoxT<float> *);
template FirstError read_boxes(const RoiAlignParams &, const BoxView &, AlignBoxT<double> *);
template void sample_run(float, int64_t, float, int64_t, int64_t, int64_t *, int64_t *);
template void sample_run(double, int64_t, double, int64_t, int64_t, int64_t *, int64_t *);

}  // namespace roialign_detail
}  // namespace poolgrad
