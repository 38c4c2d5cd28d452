// SPDX-License-Identifier: Apache-2.0
// What RoIAlign's forward and backward share: the boxes read once and decoded (torchvision's box
// geometry), each bin's sample coordinates and the bilinear weights along one axis, all in
// torchvision's float expressions (docs/roi-align.md).
#pragma once

#include <cstdint>
#include <type_traits>

#include "../core/dtype.h"
#include "../core/scratch.h"
#include "roialign_kernels.h"

namespace poolgrad {
namespace roialign_detail {

// The most samples per bin side: torchvision's grid is an int.
constexpr int64_t kMaxGrid = 2147483647;

// The geometry is written once for the real type T the kernels compute in: float for FLOAT and
// FLOAT16 (torchvision's float32 kernel), double for DOUBLE (its float64 one; poolgrad's DOUBLE
// extension, roialign_double.cpp).

// One box as the kernels use it, decoded once from the private copy of its values.
template <class T>
struct AlignBoxT {
  int64_t batch = 0;
  T start_h = 0, start_w = 0, bin_h = 0, bin_w = 0;
  int64_t gh = 0, gw = 0;  // samples per bin side
};
using AlignBox = AlignBoxT<float>;

// The private box table in the workspace.
template <class T>
void box_layout(Arena &a, const RoiAlignParams &p, AlignBoxT<T> **boxes) {
  *boxes = a.take<AlignBoxT<T>>(p.k);
}
// Reads every box value once (load_once) and decodes the boxes; the first bad box (in box order)
// is reported and nothing is written. T: float or double.
template <class T>
FirstError read_boxes(const RoiAlignParams &p, const BoxView &bx, AlignBoxT<T> *out);

// Sample i of g of bin `bin_index` along one axis.
template <class T>
inline T sample_at(T start, int64_t bin_index, T bin, int64_t i, int64_t g) {
  return start + static_cast<T>(bin_index) * bin +
         static_cast<T>(static_cast<float>(i) + .5f) * bin / static_cast<T>(g);
}

// The run [first, end) of samples of a bin that can lie in [-1, size]: the coordinate is monotone
// in i, so the samples before the map (or after it) are a prefix (a suffix). Every sample of the
// run is still tested by axis_sample.
template <class T>
void sample_run(T start, int64_t bin_index, T bin, int64_t g, int64_t size, int64_t *first,
                int64_t *end);

// torchvision's bilinear_interpolate along one axis: the two rows (or columns) and their weights,
// or false for a sample outside [-1, size].
template <class T>
struct AxisSampleT {
  int64_t lo, hi;
  T l, h;  // the weights of hi and lo
};
using AxisSample = AxisSampleT<float>;
template <class T>
inline bool axis_sample(T v, int64_t size, AxisSampleT<T> *s) {
  if (v < -1.0 || v > static_cast<T>(size)) return false;
  if (v <= 0) v = 0;
  int64_t lo = static_cast<int64_t>(v), hi;
  if (lo >= size - 1) {
    hi = lo = size - 1;
    v = static_cast<T>(lo);
  } else {
    hi = lo + 1;
  }
  s->lo = lo;
  s->hi = hi;
  s->l = v - static_cast<T>(lo);
  s->h = static_cast<T>(1. - s->l);
  return true;
}

// One sample's four corners, (lo, lo), (lo, hi), (hi, lo), (hi, hi): torchvision's weights
// w1..w4 and the element offsets in a plane of row stride sh and column stride sw.
template <class T>
struct CornersT {
  T w[4];
  int64_t o[4];
};
using Corners = CornersT<float>;
template <class T>
inline CornersT<T> corners(const AxisSampleT<T> &sy, const AxisSampleT<T> &sx, int64_t sh,
                           int64_t sw) {
  CornersT<T> c;
  c.w[0] = sy.h * sx.h, c.w[1] = sy.h * sx.l, c.w[2] = sy.l * sx.h, c.w[3] = sy.l * sx.l;
  c.o[0] = sy.lo * sh + sx.lo * sw, c.o[1] = sy.lo * sh + sx.hi * sw;
  c.o[2] = sy.hi * sh + sx.lo * sw, c.o[3] = sy.hi * sh + sx.hi * sw;
  return c;
}

// Calls fn(sy, sx) for each sample of bin (i, jw) of box a that lies on the map, in torchvision's
// order (iy, then ix): the one walk over a bin's samples. Stops, returning false, when fn does.
template <class T, class Fn>
inline bool for_each_sample(const RoiAlignParams &p, const AlignBoxT<T> &a, int64_t i, int64_t jw,
                            Fn &&fn) {
  int64_t iy0, iy1, ix0, ix1;
  sample_run(a.start_h, i, a.bin_h, a.gh, p.h, &iy0, &iy1);
  sample_run(a.start_w, jw, a.bin_w, a.gw, p.w, &ix0, &ix1);
  for (int64_t iy = iy0; iy < iy1; ++iy) {
    AxisSampleT<T> sy;
    if (!axis_sample(sample_at(a.start_h, i, a.bin_h, iy, a.gh), p.h, &sy)) continue;
    for (int64_t ix = ix0; ix < ix1; ++ix) {
      AxisSampleT<T> sx;
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
inline double load_value(const double *q) {
  return *q;
}
inline void store_value(double *q, double v) {
  *q = v;
}
// The type a storage type computes in: double for double, float for float and float16.
template <class S>
using Real = typename std::conditional<std::is_same<S, double>::value, double, float>::type;

constexpr int kBlock = 16;  // channels a pass over one bin's samples serves

}  // namespace roialign_detail
}  // namespace poolgrad
