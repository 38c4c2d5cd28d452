// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: aclnnMaxPool2dWithIndices (FUZZ_BACKWARD=0) or ...Backward (1), phase 1 and 2;
// with FUZZ_MASK=1 the Mask pair (aclnnMaxPool2dWithMask[Backward]) under the Ascend910B profile,
// with an INT8 mask of CANN's shape (sometimes another) holding int32 indices.
#include <cstdlib>

#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "fuzz_common.h"
#include "poolgrad/poolgrad.h"

#ifndef FUZZ_MASK
#define FUZZ_MASK 0
#endif

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  if (FUZZ_MASK) {
    setenv("POOLGRAD_SOC", "Ascend910B", 1);
    aclInit(nullptr);
  }
  return 0;
}

// The mask's shape for the call: [N, C, kH*kW, (ceil(Hout*Wout/16) + 1) * 32].
static std::vector<int64_t> mask_shape(std::vector<int64_t> out_shape, int64_t kk) {
  if (out_shape.size() < 2) return out_shape;
  const int64_t ho = out_shape[out_shape.size() - 2], wo = out_shape.back();
  int64_t hw;
  if (__builtin_mul_overflow(ho, wo, &hw) || hw > (int64_t(1) << 50)) hw = int64_t(1) << 50;
  out_shape[out_shape.size() - 2] = kk;
  out_shape.back() = ((std::max<int64_t>(hw, 0) + 15) / 16 + 1) * 32;
  return out_shape;
}

// Writes int32 index values into the first bytes of a dense INT8 mask.
static void fill_mask(fz::Reader &r, fz::Tensor &m, int64_t outputs, int64_t hw) {
  if (!m.t || m.broadcast || m.dt != ACL_INT8) return;
  for (int64_t i = 0; i < outputs && (i + 1) * 4 + m.offset <= static_cast<int64_t>(m.bytes); ++i) {
    const int32_t v = static_cast<int32_t>(fz::index_value(r, hw));
    std::memcpy(m.buf.get() + m.offset + i * 4, &v, 4);
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz::Reader r{data, size};
  poolgradSetNumThreads(1 + r.pick(3));
  const aclDataType dt = fz::float_dtype(r);
  static const aclDataType kIdx[] = {ACL_INT64, ACL_INT32, ACL_INT64, ACL_FLOAT};
  const aclDataType idt = kIdx[r.pick(4)];
  const aclFormat fmt = fz::format(r);
  static const int kRank[] = {4, 4, 3, 2, 5};
  const int rank = kRank[r.pick(5)];
  // Now and then planes far beyond memory (zero-stride views): phase 1's size arithmetic.
  const bool huge = r.pick(24) == 0;
  const int64_t n = r.small(0, 3), c = r.small(0, 4);
  const int64_t h = huge ? r.huge() : r.small(0, 9),
                w = huge && r.pick(2) ? r.huge() : r.small(0, 9);
  std::vector<int64_t> k = fz::int_array(r), s = fz::int_array(r), p = fz::int_array(r),
                       d = fz::int_array(r);
  if (r.pick(3) == 0) s.clear();
  const bool ceil = r.u8() & 1;
  const bool nhwc = fmt == ACL_FORMAT_NHWC;
  auto shape = [&](int64_t hh, int64_t ww) {
    std::vector<int64_t> v =
        nhwc ? std::vector<int64_t>{hh, ww, c} : std::vector<int64_t>{c, hh, ww};
    if (rank >= 4) v.insert(v.begin(), n);
    if (rank == 5) v.insert(v.begin(), 1);
    if (rank == 2) v.erase(v.begin());
    return v;
  };
  auto pair = [](const std::vector<int64_t> &v, int i, int64_t dflt) {
    return v.empty() ? dflt : v[v.size() == 2 ? i : 0];
  };
  int64_t ho = poolgradPoolOutputSize(h, pair(k, 0, 1), pair(s, 0, pair(k, 0, 1)), pair(p, 0, 0),
                                      pair(d, 0, 1), ceil);
  int64_t wo = poolgradPoolOutputSize(w, pair(k, 1, 1), pair(s, 1, pair(k, 1, 1)), pair(p, 1, 0),
                                      pair(d, 1, 1), ceil);
  ho = std::max<int64_t>(huge ? ho : std::min<int64_t>(ho, 16), 0) + (r.pick(16) == 0 ? 1 : 0);
  wo = std::max<int64_t>(huge ? wo : std::min<int64_t>(wo, 16), 0);
  auto x = fz::make(r, shape(h, w), dt, fmt);
  aclIntArray *ka = aclCreateIntArray(k.data(), k.size()),
              *sa = aclCreateIntArray(s.data(), s.size()),
              *pa = aclCreateIntArray(p.data(), p.size()),
              *da = aclCreateIntArray(d.data(), d.size());
  const int64_t hw = huge ? INT64_MAX : h * w;
  int64_t kk;  // kH*kW for the mask's shape (saturated: attributes may be huge)
  if (__builtin_mul_overflow(pair(k, 0, 1), pair(k, 1, 1), &kk)) kk = INT64_MAX;
  if (FUZZ_MASK && FUZZ_BACKWARD) {
    auto gy = fz::make(r, shape(ho, wo), r.pick(8) ? dt : fz::float_dtype(r), fmt);
    auto mask = fz::make(r, r.pick(8) ? mask_shape(shape(ho, wo), kk) : shape(ho, wo),
                         r.pick(10) ? ACL_INT8 : idt, fmt);
    auto gx = fz::make(r, shape(h, w), dt, fmt);
    gy->fill_floats(r);
    fill_mask(r, *mask, huge ? 0 : ho * wo * std::max<int64_t>(n, 1) * c, hw);
    fz::run(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(gy->t, x->t, mask->t, ka, sa, pa,
                                                                da, ceil, gx->t, ws, ex);
        },
        [&](void *wsp, uint64_t ws, aclOpExecutor *ex) {
          return aclnnMaxPool2dWithMaskBackward(wsp, ws, ex, nullptr);
        });
  } else if (FUZZ_MASK) {
    x->fill_floats(r);
    auto out = fz::make(r, shape(ho, wo), r.pick(8) ? dt : fz::float_dtype(r), fmt);
    auto mask = fz::make(r, r.pick(8) ? mask_shape(shape(ho, wo), kk) : shape(ho, wo),
                         r.pick(10) ? ACL_INT8 : idt, fmt);
    fz::run(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnMaxPool2dWithMaskGetWorkspaceSize(x->t, ka, sa, pa, da, ceil, out->t, mask->t,
                                                        ws, ex);
        },
        [&](void *wsp, uint64_t ws, aclOpExecutor *ex) {
          return aclnnMaxPool2dWithMask(wsp, ws, ex, nullptr);
        });
  } else if (FUZZ_BACKWARD) {
    auto gy = fz::make(r, shape(ho, wo), r.pick(8) ? dt : fz::float_dtype(r), fmt);
    auto idx = fz::make(r, shape(ho, wo), idt, r.pick(8) ? fmt : fz::format(r));
    auto gx = fz::make(r, shape(h, w), dt, fmt);
    gy->fill_floats(r);
    idx->fill_indices(r, hw);
    fz::run(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy->t, x->t, idx->t, ka, sa, pa,
                                                                   da, ceil, gx->t, ws, ex);
        },
        [&](void *wsp, uint64_t ws, aclOpExecutor *ex) {
          return aclnnMaxPool2dWithIndicesBackward(wsp, ws, ex, nullptr);
        });
  } else {
    x->fill_floats(r);
    auto out = fz::make(r, shape(ho, wo), r.pick(8) ? dt : fz::float_dtype(r), fmt);
    auto idx = fz::make(r, shape(ho, wo), idt, fmt);
    fz::run(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnMaxPool2dWithIndicesGetWorkspaceSize(x->t, ka, sa, pa, da, ceil, out->t,
                                                           idx->t, ws, ex);
        },
        [&](void *wsp, uint64_t ws, aclOpExecutor *ex) {
          return aclnnMaxPool2dWithIndices(wsp, ws, ex, nullptr);
        });
  }
  aclDestroyIntArray(ka);
  aclDestroyIntArray(sa);
  aclDestroyIntArray(pa);
  aclDestroyIntArray(da);
  return 0;
}
