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

// One sample's four corners, (lo, lo), (lo, hi), (hi, lo), (hi, hi): torchvision's weights
// w1..w4 and the element offsets in a plane of row stride sh and column stride sw.
struct Corners {
  float w[4];
  int64_t o[4];
};
inline Corners corners(const AxisSample &sy, const AxisSample &sx, int64_t sh, int64_t sw) {
  Corners c;
  c.w[0] = sy.h * sx.h, c.w[1] = sy.h * sx.l, c.w[2] = sy.l * sx.h, c.w[3] = sy.l * sx.l;
  c.o[0] = sy.lo * sh + sx.lo * sw, c.o[1] = sy.lo * sh + sx.hi * sw;
  c.o[2] = sy.hi * sh + sx.lo * sw, c.o[3] = sy.hi * sh + sx.hi * sw;
  return c;
}

// Calls fn(sy, sx) for each sample of bin (i, jw) of box a that lies on the map, in torchvision's
// order (iy, then ix): the one walk over a bin's samples. Stops, returning false, when fn does.
template <class Fn>
inline bool for_each_sample(const RoiAlignParams &p, const AlignBox &a, int64_t i, int64_t jw,
                            Fn &&fn) {
  int64_t iy0, iy1, ix0, ix1;
  sample_run(a.start_h, i, a.bin_h, a.gh, p.h, &iy0, &iy1);
  sample_run(a.start_w, jw, a.bin_w, a.gw, p.w, &ix0, &ix1);
  for (int64_t iy = iy0; iy < iy1; ++iy) {
    AxisSample sy;
    if (!axis_sample(sample_at(a.start_h, i, a.bin_h, iy, a.gh), p.h, &sy)) continue;
    for (int64_t ix = ix0; ix < ix1; ++ix) {
      AxisSample sx;
      if (!axis_sample(sample_at(a.start_w, jw, a.bin_w, ix, a.gw), p.w, &sx)) continue;
      if (!fn(sy, sx)) return false;
    }
  }
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
