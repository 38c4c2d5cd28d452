// SPDX-License-Identifier: Apache-2.0
// RoIAlign's tiled sweep (roialign_taps.h) with Google Highway: float32 where the AVX2 gather row
// does not run (NEON and SVE on AArch64, the portable rows). Vectors hold up to 8 lanes (the
// tile's pixels are 8 channels): one vector on AVX2 or 256-bit SVE, two on NEON.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/roialign/roialign_tiled.cpp"  // from the source root
#include <algorithm>

#include "roialign_taps.h"

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

using namespace roialign_detail;

// std::max(u, v) lane-wise: u < v ? v : u (NaN included, as the scalar sweep).
template <class V>
HWY_INLINE V MaxLike(V u, V v) {
  return hn::IfThenElse(hn::Lt(u, v), v, u);
}

template <bool kMax>
int64_t SweepTiled(const RoiAlignParams &p, const Strided4 &x, const Strided4 &y, const AlignBox &a,
                   int64_t k, int64_t c0, int64_t c1, const TapTable &t) {
  const hn::CappedTag<float, 8> df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  const auto count = hn::Set(df, static_cast<float>(std::max<int64_t>(a.gh * a.gw, 1)));
  const auto zero = hn::Zero(df);
  const int64_t rw = t.x1 - t.x0 + 1;
  int64_t c = c0;
  for (; c + 8 <= c1; c += 8) {
    const float *q = reinterpret_cast<const float *>(x.base) + a.batch * x.sn + c * x.sc;
    float *o = reinterpret_cast<float *>(y.base) + k * y.sn + c * y.sc;
    for (int j = 0; j < 8; ++j)
      for (int64_t yy = t.y0; yy <= t.y1; ++yy) {
        const float *row = q + j * x.sc + yy * x.sh;
        float *dst = t.tile + 8 * ((yy - t.y0) * rw) + j;
        for (int64_t xx = t.x0; xx <= t.x1; ++xx) dst[8 * (xx - t.x0)] = row[xx * x.sw];
      }
    int64_t bin = 0;
    for (int64_t i = 0; i < p.ph; ++i)
      for (int64_t jw = 0; jw < p.pw; ++jw, ++bin) {
        const int64_t s0 = t.bin_start[bin], s1 = t.bin_start[bin + 1];
        float lanes[8];
        for (int64_t sub = 0; sub < 8; sub += N) {
          auto acc = zero;
          for (int64_t s = s0; s < s1; ++s) {
            const Tap &tp = t.taps[s];
            const float *const tile = t.tile + sub;
            const auto t1 = hn::Mul(hn::Set(df, tp.w[0]), hn::LoadU(df, tile + 8 * tp.t[0]));
            const auto t2 = hn::Mul(hn::Set(df, tp.w[1]), hn::LoadU(df, tile + 8 * tp.t[1]));
            const auto t3 = hn::Mul(hn::Set(df, tp.w[2]), hn::LoadU(df, tile + 8 * tp.t[2]));
            const auto t4 = hn::Mul(hn::Set(df, tp.w[3]), hn::LoadU(df, tile + 8 * tp.t[3]));
            if (kMax) {
              const auto val = MaxLike(MaxLike(MaxLike(t1, t2), t3), t4);
              acc = s == s0 ? val : MaxLike(acc, val);
            } else {
              acc = hn::Add(acc, hn::Add(hn::Add(hn::Add(t1, t2), t3), t4));
            }
          }
          if (kMax)
            acc = s1 == s0 ? zero : t.outside[bin] ? MaxLike(acc, zero) : acc;
          else
            acc = hn::Div(acc, count);
          hn::StoreU(acc, df, lanes + sub);
        }
        float *dst = o + i * y.sh + jw * y.sw;
        for (int j = 0; j < 8; ++j) dst[j * y.sc] = lanes[j];
      }
  }
  return c;
}

int64_t SweepTiledMax(const RoiAlignParams &p, const Strided4 &x, const Strided4 &y,
                      const AlignBox &a, int64_t k, int64_t c0, int64_t c1, const TapTable &t) {
  return SweepTiled<true>(p, x, y, a, k, c0, c1, t);
}
int64_t SweepTiledAvg(const RoiAlignParams &p, const Strided4 &x, const Strided4 &y,
                      const AlignBox &a, int64_t k, int64_t c0, int64_t c1, const TapTable &t) {
  return SweepTiled<false>(p, x, y, a, k, c0, c1, t);
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "../core/hwy_pick.h"

namespace poolgrad {
namespace roialign_detail {

TiledSweep tiled_sweep_for(Isa isa, bool max_mode) {
#define POOLGRAD_SWEEP(ns) (max_mode ? ns::SweepTiledMax : ns::SweepTiledAvg)
  POOLGRAD_HWY_PICK(isa, POOLGRAD_SWEEP);
#undef POOLGRAD_SWEEP
}

}  // namespace roialign_detail
}  // namespace poolgrad
#endif  // HWY_ONCE
