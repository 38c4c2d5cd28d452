// SPDX-License-Identifier: Apache-2.0
// What RoIAlign's forward and backward share: the boxes read once and decoded (torchvision's box
// geometry), each bin's sample coordinates and the bilinear weights along one axis, all in
// torchvision's float expressions (docs/roi-align.md).
#pragma once

#include <cstdint>

#include "../core/dtype.h"
#include "../core/scratch.h"
#include "roialign_kernels.h"

namespace poolgrad {
namespace roialign_detail {

// The most samples per bin side: torchvision's grid is an int.
constexpr int64_t kMaxGrid = 2147483647;

// One box as the kernels use it, decoded once from the private copy of its values.
struct AlignBox {
  int64_t batch = 0;
  float start_h = 0, start_w = 0, bin_h = 0, bin_w = 0;
  int64_t gh = 0, gw = 0;  // samples per bin side
};

// The private box table in the workspace.
void box_layout(Arena &a, const RoiAlignParams &p, AlignBox **boxes);
// Reads every box value once (load_once) and decodes the boxes; the first bad box (in box order)
// is reported and nothing is written.
FirstError read_boxes(const RoiAlignParams &p, const BoxView &bx, AlignBox *out);

// Sample i of g of bin `bin_index` along one axis.
inline float sample_at(float start, int64_t bin_index, float bin, int64_t i, int64_t g) {
  return start + static_cast<float>(bin_index) * bin +
         (static_cast<float>(i) + .5f) * bin / static_cast<float>(g);
}

// The run [first, end) of samples of a bin that can lie in [-1, size]: the coordinate is monotone
// in i, so the samples before the map (or after it) are a prefix (a suffix). Every sample of the
// run is still tested by axis_sample.
void sample_run(float start, int64_t bin_index, float bin, int64_t g, int64_t size, int64_t *first,
                int64_t *end);

// torchvision's bilinear_interpolate along one axis: the two rows (or columns) and their weights,
// or false for a sample outside [-1, size].
struct AxisSample {
  int64_t lo, hi;
  float l, h;  // the weights of hi and lo
};
inline bool axis_sample(float v, int64_t size, AxisSample *s) {
  if (v < -1.0 || v > static_cast<float>(size)) return false;
  if (v <= 0) v = 0;
  int64_t lo = static_cast<int64_t>(v), hi;
  if (lo >= size - 1) {
    hi = lo = size - 1;
    v = static_cast<float>(lo);
  } else {
    hi = lo + 1;
  }
  s->lo = lo;
  s->hi = hi;
  s->l = v - static_cast<float>(lo);
  s->h = static_cast<float>(1. - s->l);
  return true;
}

inline float load_value(const float *q) {
  return *q;
}
inline float load_value(const uint16_t *q) {
  return half_to_float(*q);
}
inline void store_value(float *q, float v) {
  *q = v;
}
inline void store_value(uint16_t *q, float v) {
  *q = float_to_half(v);
}

constexpr int kBlock = 16;  // channels a pass over one bin's samples serves

}  // namespace roialign_detail
}  // namespace poolgrad
