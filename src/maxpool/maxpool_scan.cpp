// SPDX-License-Identifier: Apache-2.0
// The channels-last max-pool forward's scan with Google Highway (maxpool_scan.h). The targets and
// their choice by the ISA table as in src/volume/volume_combine.cpp.
#define HWY_COMPILE_ALL_ATTAINABLE
#define HWY_DISABLED_TARGETS \
  (HWY_SSSE3 | HWY_SSE4 | HWY_AVX3 | HWY_AVX3_DL | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/maxpool/maxpool_scan.cpp"  // from the source root
#include "maxpool_scan.h"

#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace poolgrad {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <bool kNoNan>
void ScanChannels(const float *const *tap_src, const uint32_t *tap_index, int64_t taps,
                  int64_t c_end, float *best, int64_t *bidx) {
  const hn::ScalableTag<float> df;
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
namespace poolgrad {

ScanChannels scan_channels_for(Isa isa, bool no_nan) {
#if HWY_TARGETS & HWY_AVX2
  if (has_avx2(isa)) return no_nan ? N_AVX2::ScanChannelsNoNan : N_AVX2::ScanChannelsAny;
#endif
#if HWY_TARGETS & HWY_NEON
  if (has_neon(isa)) return no_nan ? N_NEON::ScanChannelsNoNan : N_NEON::ScanChannelsAny;
#endif
  (void)isa;
#if HWY_TARGETS & HWY_EMU128
  return no_nan ? N_EMU128::ScanChannelsNoNan : N_EMU128::ScanChannelsAny;
#else  // GCC before 12.3: Highway's fallback is its one-lane target
  return no_nan ? N_SCALAR::ScanChannelsNoNan : N_SCALAR::ScanChannelsAny;
#endif
}

}  // namespace poolgrad
#endif  // HWY_ONCE
