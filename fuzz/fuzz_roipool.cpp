// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: aclnnRoiPoolingWithArgMax (FUZZ_BACKWARD=0) or ...GradWithArgMax (1).
#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "fuzz_common.h"
#include "poolgrad/poolgrad.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz::Reader r{data, size};
  poolgradSetNumThreads(1 + r.pick(3));
  static const aclDataType kDt[] = {ACL_FLOAT, ACL_FLOAT16, ACL_FLOAT, ACL_BF16, ACL_INT32};
  const aclDataType dt = kDt[r.pick(5)];
  static const aclFormat kFmt[] = {ACL_FORMAT_ND, ACL_FORMAT_ND, ACL_FORMAT_NCHW,
                                   ACL_FORMAT_FRACTAL_NZ};
  const aclFormat fmt = kFmt[r.pick(4)];
  const int64_t n = r.small(0, 3), c = r.small(0, 3), h = r.small(0, 9), w = r.small(0, 9);
  // Now and then a pooled grid far beyond memory (zero-stride gradOutput / argmax / y views).
  const bool huge = r.pick(24) == 0;
  const int64_t nr = r.small(0, 6), ph = huge ? r.huge() : r.small(-1, 4),
                pw = huge ? r.huge() : r.small(-1, 4);
  const int64_t rcols = r.pick(8) ? 5 : 4;
  const int xrank = r.pick(8) ? 4 : 3;
  auto dims4 = [&](int64_t a, int64_t b, int64_t cc, int64_t d) {
    std::vector<int64_t> v = {a, b, cc, d};
    if (xrank == 3) v.erase(v.begin());
    return v;
  };
  auto rois = fz::make(r, {nr, rcols}, r.pick(8) ? dt : ACL_FLOAT, fmt);
  if (rois->t)
    for (int64_t i = 0; i < rois->fill_n(); ++i) {
      const bool batch_col = i % rcols == 0;
      float v = batch_col
                    ? static_cast<float>(r.pick(10) == 0 ? r.small(-2, 5)
                                                         : r.small(0, std::max<int64_t>(n - 1, 0)))
                    : (r.pick(10) == 0 ? r.f32() : static_cast<float>(r.small(-3, 12)));
      if (batch_col && r.pick(20) == 0) v = std::nanf("");
      rois->set_float(i, v);
    }
  const int64_t ry = r.pick(10) ? nr : nr + 1;
  if (FUZZ_BACKWARD) {
    auto gy = fz::make(r, dims4(ry, c, ph < 0 ? 0 : ph, pw < 0 ? 0 : pw), dt, fmt);
    auto am = fz::make(r, dims4(ry, c, ph < 0 ? 0 : ph, pw < 0 ? 0 : pw),
                       r.pick(10) ? ACL_INT32 : ACL_INT64, fmt);
    auto gx = fz::make(r, dims4(n, c, h, w), r.pick(10) ? dt : ACL_FLOAT, fmt);
    gy->fill_floats(r);
    am->fill_indices(r, h * w);
    const int64_t qh = r.pick(10) ? ph : ph + 1;
    fz::run(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy->t, gx->t, rois->t, am->t, qh, pw,
                                                               1.0, ws, ex);
        },
        [&](void *wsp, uint64_t ws, aclOpExecutor *ex) {
          return aclnnRoiPoolingGradWithArgMax(wsp, ws, ex, nullptr);
        });
  } else {
    auto x = fz::make(r, dims4(n, c, h, w), dt, fmt);
    x->fill_floats(r);
    auto y = fz::make(r, dims4(ry, c, ph < 0 ? 0 : ph, pw < 0 ? 0 : pw),
                      r.pick(10) ? dt : ACL_FLOAT, fmt);
    auto am = fz::make(r, dims4(ry, c, ph < 0 ? 0 : ph, pw < 0 ? 0 : pw), ACL_INT32, fmt);
    static const float kScale[] = {1.0f, 0.5f, 0.0625f, 0.0f, -1.0f, 2.5f, 1e-20f, 1e20f};
    const float sh = r.pick(30) == 0 ? std::nanf("") : kScale[r.pick(8)], sw = kScale[r.pick(8)];
    fz::run(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnRoiPoolingWithArgMaxGetWorkspaceSize(x->t, rois->t, ph, pw, sh, sw, y->t,
                                                           am->t, ws, ex);
        },
        [&](void *wsp, uint64_t ws, aclOpExecutor *ex) {
          return aclnnRoiPoolingWithArgMax(wsp, ws, ex, nullptr);
        });
  }
  return 0;
}
