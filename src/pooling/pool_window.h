// SPDX-License-Identifier: Apache-2.0
// The pooling family's window formulas, the one copy every operator and kernel uses (as ATen's
// Pool.h): the attributes, the output size of an axis, the taps of a window inside the input, and
// the adaptive bins. Integers in, integers out; no validation here (maxpool_shape.h checks the
// attributes against these limits).
#pragma once

#include <cstdint>

namespace poolgrad {

struct PoolAttrs {
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  bool ceil = false;
};

// Attribute values above this are refused, so that no size arithmetic can overflow int64.
constexpr int64_t kMaxAttr = 0x7fffffff;

// One axis: out = floor((in + 2p - E) / s) + 1 (E = d*(k-1)+1), ceil mode rounds up and then drops
// a last window that would start in the bottom/right padding. May return <= 0. Arguments must
// be in range (in >= 0, 0 < k, s, d <= kMaxAttr, 0 <= p <= kMaxAttr).
int64_t pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil);

// First and one-past-last tap m of a window starting at `start` (taps start + m*d) inside [0, in).
inline void tap_range(int64_t start, int64_t k, int64_t d, int64_t in, int64_t *m0, int64_t *m1) {
  // (d == 1 without the divisions: they were a tenth of the 2-D forward's own samples, per border
  // output.)
  int64_t lo = start < 0 ? (d == 1 ? -start : (-start + d - 1) / d) : 0;
  int64_t hi = in - start <= 0 ? 0 : d == 1 ? in - start : (in - start + d - 1) / d;
  *m0 = lo;
  *m1 = hi < k ? hi : k;
}

// Adaptive bins: output i of `out` covers inputs [floor(i*in/out), ceil((i+1)*in/out)).
inline int64_t bin_start(int64_t i, int64_t in, int64_t out) {
  return static_cast<int64_t>(static_cast<__int128>(i) * in / out);
}
inline int64_t bin_end(int64_t i, int64_t in, int64_t out) {
  return static_cast<int64_t>((static_cast<__int128>(i + 1) * in + out - 1) / out);
}

}  // namespace poolgrad
