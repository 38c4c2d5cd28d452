// SPDX-License-Identifier: Apache-2.0
// Step A of the volume forward with Google Highway (volume_combine.h). Highway's foreach_target
// includes this file once per target, each time in its own namespace; the targets and their
// choice by the ISA table (combine_rows_for) are core/hwy_targets.h's.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/volume/volume_combine.cpp"  // from the source root
#include "volume_combine.h"

// The target set first, then Highway's headers (core/hwy_targets.h).
// clang-format off
#include "../core/hwy_targets.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace poolgrad {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One tap of the scan: where v is larger than the running maximum, or NaN, it takes v and m.
template <class DF, class DI>
HWY_INLINE void take(DF df, DI di, hn::Vec<DF> v, int32_t m, hn::Vec<DF> &b, hn::Vec<DI> &t) {
  const auto k = hn::Or(hn::Gt(v, b), hn::IsNaN(v));
  b = hn::IfThenElse(k, v, b);
  t = hn::IfThenElse(hn::RebindMask(di, k), hn::Set(di, m), t);
  (void)df;
}

void CombineRows(const float *const *rows, int32_t taps, int64_t W, float *best, int32_t *tap) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const int64_t n = static_cast<int64_t>(hn::Lanes(df));
  int64_t w = 0;
  // Two vectors of columns at a time, their maxima and ordinals held in registers across rows.
  for (; w + 2 * n <= W; w += 2 * n) {
    auto b0 = hn::LoadU(df, rows[0] + w), b1 = hn::LoadU(df, rows[0] + w + n);
    auto t0 = hn::Zero(di), t1 = hn::Zero(di);
    for (int32_t m = 1; m < taps; ++m) {
      take(df, di, hn::LoadU(df, rows[m] + w), m, b0, t0);
      take(df, di, hn::LoadU(df, rows[m] + w + n), m, b1, t1);
    }
    hn::StoreU(b0, df, best + w);
    hn::StoreU(b1, df, best + w + n);
    hn::StoreU(t0, di, tap + w);
    hn::StoreU(t1, di, tap + w + n);
  }
  // Then a vector at a time, the last one overlapping the one before when W is not a multiple of
  // the width (a column's result does not depend on its neighbours).
  for (; w < W && W >= n; w += n) {
    if (w + n > W) w = W - n;
    auto b = hn::LoadU(df, rows[0] + w);
    auto t = hn::Zero(di);
    for (int32_t m = 1; m < taps; ++m) take(df, di, hn::LoadU(df, rows[m] + w), m, b, t);
    hn::StoreU(b, df, best + w);
    hn::StoreU(t, di, tap + w);
  }
  for (; w < W; ++w) {  // rows narrower than a vector
    float b = rows[0][w];
    int32_t t = 0;
    for (int32_t m = 1; m < taps; ++m) {
      const float v = rows[m][w];
      const bool k = (v > b) | (v != v);
      b = k ? v : b;
      t = k ? m : t;
    }
    best[w] = b;
    tap[w] = t;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "../core/hwy_pick.h"

namespace poolgrad {

CombineRows combine_rows_for(Isa isa) {
#define POOLGRAD_COMBINE(ns) ns::CombineRows
  POOLGRAD_HWY_PICK(isa, POOLGRAD_COMBINE);
#undef POOLGRAD_COMBINE
}

}  // namespace poolgrad
#endif  // HWY_ONCE
