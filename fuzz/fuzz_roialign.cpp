// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: aclnnRoiAlignV2 (FUZZ_BACKWARD=0), aclnnRoiAlignV2Backward (1), or with
// FUZZ_ONNX=1 aclnnRoiAlign. Phase 1 and 2: dtypes, formats, ranks, dims (huge pooled grids as
// zero-stride views), strides, attributes (sampling ratios, scales, modes) and the boxes' data
// (batch indices in and out of range, NaN, inf, huge and degenerate coordinates).
#include <cmath>
#include <cstdlib>

#include "aclnnop/aclnn_roi_align.h"
#include "aclnnop/aclnn_roi_align_v2.h"
#include "aclnnop/aclnn_roi_align_v2_backward.h"
#include "fuzz_common.h"
#include "poolgrad/poolgrad.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz::Reader r{data, size};
  poolgradSetNumThreads(1 + r.pick(3));
  static const aclDataType kDt[] = {ACL_FLOAT, ACL_FLOAT16, ACL_FLOAT, ACL_BF16, ACL_INT32};
  const aclDataType dt = kDt[r.pick(5)];
  static const aclFormat kFmt[] = {ACL_FORMAT_NCHW, ACL_FORMAT_NCHW, ACL_FORMAT_ND,
                                   ACL_FORMAT_NHWC};
  const aclFormat fmt = kFmt[r.pick(4)], bfmt = r.pick(8) ? ACL_FORMAT_ND : ACL_FORMAT_NCHW;
  const int64_t n = r.small(0, 3), c = r.small(0, 3), h = r.small(0, 9), w = r.small(0, 9);
  const bool huge = r.pick(24) == 0;
  const int64_t k = r.small(0, 6), ph = huge ? r.huge() : r.small(-1, 4),
                pw = huge ? r.huge() : r.small(-1, 4);
  const int64_t cols = (FUZZ_ONNX ? 4 : 5) + (r.pick(16) == 0 ? 1 : 0);
  const int xrank = r.pick(12) ? 4 : 3;
  auto dims4 = [&](int64_t a, int64_t b, int64_t cc, int64_t d) {
    std::vector<int64_t> v = {a, b, cc, d};
    if (xrank == 3) v.erase(v.begin());
    return v;
  };
  // The boxes: batch indices mostly in range, coordinates mostly on or near the map.
  auto boxes = fz::make(r, {k, cols}, r.pick(8) ? dt : ACL_FLOAT, bfmt);
  if (boxes->t)
    for (int64_t i = 0; i < boxes->fill_n(); ++i) {
      const bool batch_col = !FUZZ_ONNX && i % cols == 0;
      float v = batch_col
                    ? static_cast<float>(r.pick(10) == 0 ? r.small(-2, 5)
                                                         : r.small(0, std::max<int64_t>(n - 1, 0)))
                    : (r.pick(10) == 0 ? r.f32() : static_cast<float>(r.small(-3, 12)));
      if (r.pick(40) == 0) v = std::nanf("");
      if (r.pick(60) == 0) v = INFINITY;
      boxes->set_float(i, v);
    }
  auto batch = fz::make(r, {r.pick(10) ? k : k + 1}, r.pick(10) ? ACL_INT32 : ACL_INT64, bfmt);
  batch->fill_indices(r, std::max<int64_t>(n, 1));
  static const float kScale[] = {1.0f, 0.5f, 0.0625f, 0.0f, -1.0f, 2.5f, 1e-20f, 1e20f};
  const float scale = r.pick(30) == 0 ? std::nanf("") : kScale[r.pick(8)];
  const int64_t sampling = r.small(-1, 4) * (r.pick(8) == 0 ? 4 : 1);
  const bool aligned = r.pick(2);
  const int64_t ry = r.pick(10) ? k : k + 1;
  const std::vector<int64_t> pooled = dims4(ry, c, ph < 0 ? 0 : ph, pw < 0 ? 0 : pw);
  if (FUZZ_BACKWARD) {
    auto gy = fz::make(r, pooled, dt, fmt);
    auto gx = fz::make(r, dims4(n, c, h, w), r.pick(10) ? dt : ACL_FLOAT, fmt);
    gy->fill_floats(r);
    std::vector<int64_t> shape = {n, c, h, w};
    if (r.pick(16) == 0) shape.pop_back();
    if (r.pick(16) == 0) shape[0] += 1;
    aclIntArray *is = aclCreateIntArray(shape.data(), shape.size());
    const int64_t qh = r.pick(10) ? ph : ph + 1;
    fz::run(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnRoiAlignV2BackwardGetWorkspaceSize(gy->t, boxes->t, is, qh, pw, scale,
                                                         sampling, aligned, gx->t, ws, ex);
        },
        [&](void *wsp, uint64_t ws, aclOpExecutor *ex) {
          return aclnnRoiAlignV2Backward(wsp, ws, ex, nullptr);
        });
    aclDestroyIntArray(is);
  } else {
    auto x = fz::make(r, dims4(n, c, h, w), dt, fmt);
    x->fill_floats(r);
    auto y = fz::make(r, pooled, r.pick(10) ? dt : ACL_FLOAT, fmt);
    static const char *const kModes[] = {"avg", "max", "avg", "max", "sum", nullptr};
    const char *mode = kModes[r.pick(6)];
    fz::run(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return FUZZ_ONNX
                     ? aclnnRoiAlignGetWorkspaceSize(
                           x->t, boxes->t, batch->t, mode, static_cast<int>(ph),
                           static_cast<int>(pw), static_cast<int>(sampling), scale, y->t, ws, ex)
                     : aclnnRoiAlignV2GetWorkspaceSize(x->t, boxes->t, ph, pw, scale, sampling,
                                                       aligned, y->t, ws, ex);
        },
        [&](void *wsp, uint64_t ws, aclOpExecutor *ex) {
          return FUZZ_ONNX ? aclnnRoiAlign(wsp, ws, ex, nullptr)
                           : aclnnRoiAlignV2(wsp, ws, ex, nullptr);
        });
  }
  return 0;
}
