// SPDX-License-Identifier: Apache-2.0
// The max-pool window scan (bench/isa/README.md) written with Google Highway: one source, compiled
// by foreach_target for each of Highway's targets, chosen at run time by HWY_DYNAMIC_DISPATCH.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "scan_hwy.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "scan.h"

HWY_BEFORE_NAMESPACE();
namespace isa_probe {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void ScanHwy(const float *const *rows, int taps, int64_t n, float *best, int32_t *bidx) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  for (int64_t j = 0; j + lanes <= n; j += lanes) {
    auto b = hn::LoadU(df, rows[0] + j);
    auto bi = hn::Zero(di);
    for (int t = 1; t < taps; ++t) {
      const auto v = hn::LoadU(df, rows[t] + j);
      const auto take = hn::Or(hn::Gt(v, b), hn::IsNaN(v));  // the first maximum, the last NaN
      b = hn::IfThenElse(take, v, b);
      bi = hn::IfThenElse(hn::RebindMask(di, take), hn::Set(di, t), bi);
    }
    hn::StoreU(b, df, best + j);
    hn::StoreU(bi, di, bidx + j);
  }
}

const char *TargetHwy() {
  return hwy::TargetName(HWY_TARGET);
}

}  // namespace HWY_NAMESPACE
}  // namespace isa_probe
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace isa_probe {
HWY_EXPORT(ScanHwy);
void scan_hwy(const float *const *rows, int taps, int64_t n, float *best, int32_t *bidx) {
  HWY_DYNAMIC_DISPATCH(ScanHwy)(rows, taps, n, best, bidx);
}
HWY_EXPORT(TargetHwy);
const char *hwy_target() {
  return HWY_DYNAMIC_DISPATCH(TargetHwy)();
}
}  // namespace isa_probe
#endif
