// SPDX-License-Identifier: Apache-2.0
// The channels-last max-pool forward's scan with Google Highway (maxpool_scan.h). The targets and
// their choice by the ISA table (scan_channels_for) are core/hwy_targets.h's.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/maxpool/maxpool_scan.cpp"  // from the source root
#include "maxpool_scan.h"

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

template <bool kNoNan>
void ScanChannels(const float *const *tap_src, const uint32_t *tap_index, int64_t taps,
                  int64_t c_end, float *best, int64_t *bidx) {
  // At most 8 lanes: c_end is a multiple of 8, and best/bidx have 8 entries of slack, whatever
  // the SVE CPU's vector length (up to 64 lanes).
  const hn::CappedTag<float, 8> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const int64_t n = static_cast<int64_t>(hn::Lanes(df));
  for (int64_t c = 0; c < c_end; c += n) {
    auto b = hn::LoadU(df, tap_src[0] + c);
    auto bi = hn::Set(du, tap_index[0]);
    for (int64_t t = 1; t < taps; ++t) {
      const auto v = hn::LoadU(df, tap_src[t] + c);
      // Larger, or NaN, replaces: the first maximum wins, the last NaN wins.
      const auto take = kNoNan ? hn::Gt(v, b) : hn::Or(hn::Gt(v, b), hn::IsNaN(v));
      b = hn::IfThenElse(take, v, b);
      bi = hn::IfThenElse(hn::RebindMask(du, take), hn::Set(du, tap_index[t]), bi);
    }
    hn::StoreU(b, df, best + c);
    // The indices widened to 64 bits (below 2^31: the caller's check).
#if HWY_TARGET == HWY_SCALAR
    bidx[c] = static_cast<int64_t>(hn::GetLane(bi));
#else
    const hn::Half<decltype(du)> dh;
    const hn::Repartition<uint64_t, decltype(du)> d64;
    uint64_t *const out = reinterpret_cast<uint64_t *>(bidx + c);
    hn::StoreU(hn::PromoteTo(d64, hn::LowerHalf(dh, bi)), d64, out);
    hn::StoreU(hn::PromoteTo(d64, hn::UpperHalf(dh, bi)), d64, out + n / 2);
#endif
  }
}

void ScanChannelsNoNan(const float *const *tap_src, const uint32_t *tap_index, int64_t taps,
                       int64_t c_end, float *best, int64_t *bidx) {
  ScanChannels<true>(tap_src, tap_index, taps, c_end, best, bidx);
}
void ScanChannelsAny(const float *const *tap_src, const uint32_t *tap_index, int64_t taps,
                     int64_t c_end, float *best, int64_t *bidx) {
  ScanChannels<false>(tap_src, tap_index, taps, c_end, best, bidx);
}

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "../core/hwy_pick.h"

namespace poolgrad {

ScanChannels scan_channels_for(Isa isa, bool no_nan) {
#define POOLGRAD_SCAN(ns) (no_nan ? ns::ScanChannelsNoNan : ns::ScanChannelsAny)
  POOLGRAD_HWY_PICK(isa, POOLGRAD_SCAN);
#undef POOLGRAD_SCAN
}

}  // namespace poolgrad
#endif  // HWY_ONCE
