// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: aclnnAdaptiveMaxPool2d (FUZZ_BACKWARD=0) or ...Backward (1, under the
// Ascend910B profile), phase 1 and 2: dtypes, formats, ranks, dims (huge ones as zero-stride
// views), strides, output sizes, and the indices' data.
#include <cstdlib>

#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_adaptive_max_pool2d_backward.h"
#include "fuzz_common.h"
#include "poolgrad/poolgrad.h"

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  if (FUZZ_BACKWARD) {
    setenv("POOLGRAD_SOC", "Ascend910B", 1);
    aclInit(nullptr);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz::Reader r{data, size};
  poolgradSetNumThreads(1 + r.pick(3));
  const aclDataType dt = fz::float_dtype(r);
  const aclFormat fmt = fz::format(r);
  static const int kRank[] = {4, 4, 3, 2, 5};
  const int rank = kRank[r.pick(5)];
  const bool huge = r.pick(24) == 0;
  const int64_t n = r.small(0, 3), c = r.small(0, 4);
  const int64_t h = huge ? r.huge() : r.small(0, 12),
                w = huge && r.pick(2) ? r.huge() : r.small(0, 12);
  const int64_t ho = r.pick(16) == 0 ? r.small(-1, 0) : r.small(1, 9), wo = r.small(1, 9);
  const bool nhwc = fmt == ACL_FORMAT_NHWC;
  auto shape = [&](int64_t hh, int64_t ww) {
    std::vector<int64_t> v =
        nhwc ? std::vector<int64_t>{hh, ww, c} : std::vector<int64_t>{c, hh, ww};
    if (rank >= 4) v.insert(v.begin(), n);
    if (rank == 5) v.insert(v.begin(), 1);
    if (rank == 2) v.erase(v.begin());
    return v;
  };
  auto x = fz::make(r, shape(h, w), dt, fmt);
  const int64_t hw = huge ? INT64_MAX : h * w;
  static const aclDataType kIdx[] = {ACL_INT64, ACL_INT64, ACL_INT32, ACL_FLOAT};
  const aclDataType idt = kIdx[r.pick(4)];
  std::vector<int64_t> os = {ho, wo};
  if (r.pick(16) == 0) os.push_back(2);
  aclIntArray *osa = aclCreateIntArray(os.data(), os.size());
  if (FUZZ_BACKWARD) {
    auto gy = fz::make(r, shape(ho, wo), r.pick(8) ? dt : fz::float_dtype(r), fmt);
    auto idx = fz::make(r, shape(ho, wo), idt, fmt);
    auto gx = fz::make(r, shape(h, w), dt, fmt);
    gy->fill_floats(r);
    idx->fill_indices(r, hw);
    fz::run(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(gy->t, x->t, idx->t, gx->t, ws, ex);
        },
        [&](void *wsp, uint64_t ws, aclOpExecutor *ex) {
          return aclnnAdaptiveMaxPool2dBackward(wsp, ws, ex, nullptr);
        });
  } else {
    x->fill_floats(r);
    auto out = fz::make(r, shape(ho, wo), r.pick(8) ? dt : fz::float_dtype(r), fmt);
    auto idx = fz::make(r, shape(ho, wo), idt, fmt);
    fz::run(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnAdaptiveMaxPool2dGetWorkspaceSize(x->t, osa, out->t, idx->t, ws, ex);
        },
        [&](void *wsp, uint64_t ws, aclOpExecutor *ex) {
          return aclnnAdaptiveMaxPool2d(wsp, ws, ex, nullptr);
        });
  }
  aclDestroyIntArray(osa);
  return 0;
}
