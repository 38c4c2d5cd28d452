// SPDX-License-Identifier: Apache-2.0
// aclnnRoiPoolingWithArgMax and aclnnRoiPoolingGradWithArgMax: validation cascades of the spec,
// phase-2 data checks (batch index, argmax) and the executors.
#include <cinttypes>
#include <cmath>

#include "../core/core.h"
#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "roipool_dispatch.h"
#include "roipool_rules.h"
#include "roipool_shape.h"

using namespace poolgrad;

namespace {

const char *const kFwd = "aclnnRoiPoolingWithArgMax";
const char *const kBwd = "aclnnRoiPoolingGradWithArgMax";

Strided2 to2(const View &v) {
  Strided2 s;
  s.base = view_base(v);
  s.s0 = v.strides[0];
  s.s1 = v.strides[1];
  return s;
}

// The two data phase 2 checks, in the kernels' words (kRoiArgmaxDatum, kRoiBatchDatum).
DatumText argmax_datum(const RoiParams &p) {
  return index_datum("argmax", {p.r, p.c, p.ph, p.pw}, false, true,
                     "must be -1 or in [0, H*W=%lld)", p.h * p.w);
}
DatumText batch_datum(const RoiParams &p) {
  DatumText d =
      index_datum("rois", {p.r, 1}, false, true, "is a batch index outside [0, N=%lld)", p.n);
  d.real = true;
  return d;
}

}  // namespace

extern "C" {

aclnnStatus aclnnRoiPoolingWithArgMaxGetWorkspaceSize(const aclTensor *x, const aclTensor *rois,
                                                      int64_t pooled_h, int64_t pooled_w,
                                                      float spatial_scale_h, float spatial_scale_w,
                                                      aclTensor *y, aclTensor *argmax,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor) {
  const char *api = kFwd;
  // Step 1: the out pointers; 2: the product; 3: null tensors; 4: the element bound.
  if (aclnnStatus st = check_out_pointers(api, workspaceSize, executor)) return st;
  if (!roi_rules().available)
    return fail(ACLNN_ERR_RUNTIME_ERROR,
                "%s: this operator is not available on %s (Ascend950 only)", api,
                soc_name(current_soc()));
  const Named all[] = {{"x", x}, {"rois", rois}, {"y", y}, {"argmax", argmax}};
  if (aclnnStatus st = check_not_null(api, all)) return st;
  if (aclnnStatus st = check_element_bound(api, {all[0], all[1], all[2], all[3]})) return st;
  // Steps 5-8: dtypes, formats, ranks and shapes, attributes, the argmax range.
  if (aclnnStatus st = check_roi_forward(api, x, rois, y, argmax, pooled_h, pooled_w,
                                         spatial_scale_h, spatial_scale_w))
    return st;
  const aclDataType dt = x->view.dtype;
  const int64_t R = rois->view.dims[0];
  const Strided4 xs = to_nchw(x->view, false);
  // Step 9: data addresses, alignment, aliasing; 10: the plan.
  aclnnStatus st = check_data(api, {{"x", x}, {"rois", rois}, {"y", y}, {"argmax", argmax}});
  if (st) return st;
  st = check_storage(api, {{"x", x, Role::kRead},
                           {"rois", rois, Role::kRead},
                           {"y", y, Role::kWrite},
                           {"argmax", argmax, Role::kWrite}});
  if (st) return st;
  Plan plan;
  plan.op = api;
  if (x->view.numel() > 0 && R > 0) {
    RoiParams p;
    p.n = xs.n, p.c = xs.c, p.h = xs.h, p.w = xs.w;
    p.r = R, p.ph = pooled_h, p.pw = pooled_w;
    p.scale_h = spatial_scale_h, p.scale_w = spatial_scale_w;
    p.dtype = dt;
    fix_threads(p, !view_is_non_overlapping(y->view) || !view_is_non_overlapping(argmax->view));
    const Strided2 rs = to2(rois->view);
    const Strided4 ys = to_nchw(y->view, false), as = to_nchw(argmax->view, false);
    plan = make_plan(api, roi_forward_kernel(p, x->view.device, xs, rs, ys, as), p,
                     {argmax_datum(p), batch_datum(p)}, xs, rs, ys, as);
  }
  if (trace_info())
    plan.trace = describe("x", x) + " " + describe("rois", rois) + " " + describe("y", y) + " " +
                 describe("argmax", argmax) +
                 format(" pooled=[%" PRId64 ",%" PRId64 "] spatial_scale=[%g,%g] profile=%s",
                        pooled_h, pooled_w, static_cast<double>(spatial_scale_h),
                        static_cast<double>(spatial_scale_w), soc_name(current_soc()));
  return make_executor(api, std::move(plan), workspaceSize, executor);
}

aclnnStatus aclnnRoiPoolingWithArgMax(void *workspace, uint64_t workspaceSize,
                                      aclOpExecutor *executor, aclrtStream stream) {
  return run_executor(kFwd, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *gradInputRef, const aclTensor *rois,
    const aclTensor *argmax, int64_t pooledH, int64_t pooledW, double /*spatialScale*/,
    uint64_t *workspaceSize, aclOpExecutor **executor) {
  const char *api = kBwd;
  // Step 1: the out pointers; 2: the product; 3: null tensors; 4: the element bound.
  if (aclnnStatus st = check_out_pointers(api, workspaceSize, executor)) return st;
  if (!roi_rules().available)
    return fail(ACLNN_ERR_RUNTIME_ERROR,
                "%s: this operator is not available on %s (Ascend950 only)", api,
                soc_name(current_soc()));
  const Named all[] = {{"gradOutput", gradOutput},
                       {"gradInputRef", gradInputRef},
                       {"rois", rois},
                       {"argmax", argmax}};
  if (aclnnStatus st = check_not_null(api, all)) return st;
  if (aclnnStatus st = check_element_bound(api, {all[0], all[1], all[2], all[3]})) return st;
  // Steps 5-8: dtypes, formats, ranks and shapes, attributes, the argmax range.
  if (aclnnStatus st =
          check_roi_backward(api, gradOutput, gradInputRef, rois, argmax, pooledH, pooledW))
    return st;
  const aclDataType dt = gradOutput->view.dtype;
  const auto &rd = rois->view.dims;
  // Step 9: data addresses, alignment, aliasing; 10: the plan.
  aclnnStatus st = check_data(api, {{"gradOutput", gradOutput},
                                    {"gradInputRef", gradInputRef},
                                    {"rois", rois},
                                    {"argmax", argmax}});
  if (st) return st;
  st = check_storage(api, {{"gradOutput", gradOutput, Role::kRead},
                           {"gradInputRef", gradInputRef, Role::kWrite},
                           {"rois", rois, Role::kRead},
                           {"argmax", argmax, Role::kRead}});
  if (st) return st;
  const Strided4 gx = to_nchw(gradInputRef->view, false);
  Plan plan;
  plan.op = api;
  // An empty gradOutput (no RoI) still writes gradInputRef: zeros (the zero-fill row).
  if (gradOutput->view.numel() > 0 || gradInputRef->view.numel() > 0) {
    RoiParams p;
    p.n = gx.n, p.c = gx.c, p.h = gx.h, p.w = gx.w;
    p.r = rd[0], p.ph = pooledH, p.pw = pooledW;
    p.dtype = dt;
    fix_threads(p, !view_is_non_overlapping(gradInputRef->view));
    const Strided2 rs = to2(rois->view);
    const Strided4 gy = to_nchw(gradOutput->view, false), as = to_nchw(argmax->view, false);
    plan = make_plan(api, roi_backward_kernel(p, gradOutput->view.device, gy, rs, as, gx), p,
                     {argmax_datum(p), batch_datum(p)}, gy, rs, as, gx);
  }
  if (trace_info())
    plan.trace = describe("gradOutput", gradOutput) + " " + describe("gradInputRef", gradInputRef) +
                 " " + describe("rois", rois) + " " + describe("argmax", argmax) +
                 format(" pooled=[%" PRId64 ",%" PRId64 "] profile=%s", pooledH, pooledW,
                        soc_name(current_soc()));
  return make_executor(api, std::move(plan), workspaceSize, executor);
}

aclnnStatus aclnnRoiPoolingGradWithArgMax(void *workspace, uint64_t workspaceSize,
                                          aclOpExecutor *executor, aclrtStream stream) {
  return run_executor(kBwd, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
