// SPDX-License-Identifier: Apache-2.0
// RoIAlign's geometry (roialign_geometry.h): the box table and the runs of a bin's samples.
#include "roialign_geometry.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace poolgrad {
namespace roialign_detail {

namespace {

inline float box_value(const RoiAlignParams &p, const BoxView &bx, int64_t k, int64_t j) {
  const char *q = bx.base + (k * bx.s0 + j * bx.s1) * dtype_size(p.dtype);
  if (p.dtype == ACL_FLOAT16)
    return half_to_float(load_once(reinterpret_cast<const uint16_t *>(q)));
  return load_once(reinterpret_cast<const float *>(q));
}

// Samples per bin side: samplingRatio, or torchvision's ceil(side / pooled).
int64_t grid(const RoiAlignParams &p, float side, int64_t pooled) {
  if (p.sampling > 0) return std::min(p.sampling, kMaxGrid);
  const float g = std::ceil(side / static_cast<float>(pooled));
  if (!(g > 0.0f)) return 0;
  return g >= static_cast<float>(kMaxGrid) ? kMaxGrid : static_cast<int64_t>(g);
}

FirstError bad(int datum, int64_t pos, double value) {
  FirstError e;
  e.datum = datum;
  e.pos = pos;
  std::memcpy(&e.value, &value, sizeof value);
  return e;
}

}  // namespace

FirstError read_boxes(const RoiAlignParams &p, const BoxView &bx, AlignBox *out) {
  const int cols = bx.batch ? 4 : 5, first = bx.batch ? 0 : 1;
  for (int64_t k = 0; k < p.k; ++k) {
    AlignBox &a = out[k];
    if (bx.batch) {
      const int32_t bi = load_once(reinterpret_cast<const int32_t *>(bx.batch) + k * bx.sb);
      if (bi < 0 || bi >= p.b) {
        FirstError e;
        e.datum = kAlignBatchDatum, e.pos = k, e.value = bi;
        return e;
      }
      a.batch = bi;
    } else {
      const float b0 = box_value(p, bx, k, 0);
      if (!(b0 >= 0.0f && static_cast<double>(b0) < static_cast<double>(p.b)))
        return bad(kAlignBatchDatum, k * cols, b0);
      a.batch = static_cast<int64_t>(b0);
    }
    float v[4];
    for (int j = 0; j < 4; ++j) v[j] = box_value(p, bx, k, first + j);
    const float offset = p.aligned ? 0.5f : 0.0f;
    const float s[4] = {v[0] * p.scale - offset, v[1] * p.scale - offset, v[2] * p.scale - offset,
                        v[3] * p.scale - offset};
    for (int j = 0; j < 4; ++j)
      if (!std::isfinite(s[j])) return bad(kAlignBoxDatum, k * cols + first + j, v[j]);
    float roi_w = s[2] - s[0], roi_h = s[3] - s[1];
    if (!p.aligned) {
      roi_w = std::max(roi_w, 1.0f);
      roi_h = std::max(roi_h, 1.0f);
    }
    if (!std::isfinite(roi_w)) return bad(kAlignBoxDatum, k * cols + first + 2, v[2]);
    if (!std::isfinite(roi_h)) return bad(kAlignBoxDatum, k * cols + first + 3, v[3]);
    a.start_w = s[0];
    a.start_h = s[1];
    a.bin_h = roi_h / static_cast<float>(p.ph);
    a.bin_w = roi_w / static_cast<float>(p.pw);
    a.gh = grid(p, roi_h, p.ph);
    a.gw = grid(p, roi_w, p.pw);
  }
  return FirstError();
}

void sample_run(float start, int64_t bin_index, float bin, int64_t g, int64_t size, int64_t *first,
                int64_t *end) {
  *first = 0;
  *end = g;
  if (g <= 8) return;
  const float lim = static_cast<float>(size);
  auto before = [&](int64_t i) {
    const float v = sample_at(start, bin_index, bin, i, g);
    return bin >= 0.0f ? v < -1.0f : v > lim;
  };
  auto after = [&](int64_t i) {
    const float v = sample_at(start, bin_index, bin, i, g);
    return bin >= 0.0f ? v > lim : v < -1.0f;
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

void box_layout(Arena &a, const RoiAlignParams &p, AlignBox **boxes) {
  *boxes = a.take<AlignBox>(p.k);
}

}  // namespace roialign_detail
}  // namespace poolgrad
