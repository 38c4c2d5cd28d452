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

using namespace poolgrad;

namespace {

const char *const kFwd = "aclnnRoiPoolingWithArgMax";
const char *const kBwd = "aclnnRoiPoolingGradWithArgMax";

bool is_roi_dtype(aclDataType t) {
  return t == ACL_FLOAT || t == ACL_FLOAT16;
}

Strided2 to2(const View &v) {
  Strided2 s;
  s.base = static_cast<char *>(v.data) + (v.data ? v.offset * dtype_size(v.dtype) : 0);
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
  if (aclnnStatus st = check_out_pointers(api, workspaceSize, executor)) return st;
  if (!roi_rules().available)
    return fail(ACLNN_ERR_RUNTIME_ERROR,
                "%s: this operator is not available on %s (Ascend950 only)", api,
                soc_name(current_soc()));
  const Named all[] = {{"x", x}, {"rois", rois}, {"y", y}, {"argmax", argmax}};
  if (aclnnStatus st = check_not_null(api, all)) return st;
  if (aclnnStatus st = check_element_bound(api, {all[0], all[1], all[2], all[3]})) return st;
  const aclDataType dt = x->view.dtype;
  if (!is_roi_dtype(dt))
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: x dtype must be FLOAT or FLOAT16, but got %s", api,
                dtype_name(dt));
  if (rois->view.dtype != dt)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: rois dtype must equal x dtype %s, but got %s", api,
                dtype_name(dt), dtype_name(rois->view.dtype));
  if (y->view.dtype != dt)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: y dtype must equal x dtype %s, but got %s", api,
                dtype_name(dt), dtype_name(y->view.dtype));
  if (argmax->view.dtype != ACL_INT32)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: argmax dtype must be INT32, but got %s", api,
                dtype_name(argmax->view.dtype));
  for (const Named &t : all)
    if (t.t->view.format != ACL_FORMAT_ND)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s format must be ND, but got %s", api, t.name,
                  format_name(t.t->view.format));
  if (x->view.rank() != 4)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: x must be 4-D (N, C, H, W), but got shape %s", api,
                dims_str(x->view.dims).c_str());
  if (rois->view.rank() != 2 || rois->view.dims[1] != 5)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: rois must have shape (R, 5), but got %s", api,
                dims_str(rois->view.dims).c_str());
  const int64_t R = rois->view.dims[0];
  const std::vector<int64_t> want = {R, x->view.dims[1], pooled_h, pooled_w};
  if (y->view.dims != want)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: y shape must be (R, C, pooled_h, pooled_w) = %s, but got %s", api,
                dims_str(want).c_str(), dims_str(y->view.dims).c_str());
  if (argmax->view.dims != want)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: argmax shape must be (R, C, pooled_h, pooled_w) = %s, but got %s", api,
                dims_str(want).c_str(), dims_str(argmax->view.dims).c_str());
  if (pooled_h <= 0 || pooled_w <= 0)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: pooled_h and pooled_w must be > 0, but got pooled_h=%" PRId64
                ", pooled_w=%" PRId64,
                api, pooled_h, pooled_w);
  if (!(spatial_scale_h > 0.0f) || !(spatial_scale_w > 0.0f))
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: spatial_scale_h and spatial_scale_w must be > 0, but got %g and %g", api,
                static_cast<double>(spatial_scale_h), static_cast<double>(spatial_scale_w));
  const Strided4 xs = to_nchw(x->view, false);
  if (xs.h * xs.w > INT32_MAX)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: x H*W must be <= %d for INT32 argmax, but got %" PRId64, api, INT32_MAX,
                xs.h * xs.w);
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
  const aclDataType dt = gradOutput->view.dtype;
  if (!is_roi_dtype(dt))
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: gradOutput dtype must be FLOAT or FLOAT16, but got %s", api, dtype_name(dt));
  if (gradInputRef->view.dtype != dt)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: gradInputRef dtype must equal gradOutput dtype %s, but got %s", api,
                dtype_name(dt), dtype_name(gradInputRef->view.dtype));
  if (rois->view.dtype != dt)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: rois dtype must equal gradOutput dtype %s, but got %s", api, dtype_name(dt),
                dtype_name(rois->view.dtype));
  if (argmax->view.dtype != ACL_INT32)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: argmax dtype must be INT32, but got %s", api,
                dtype_name(argmax->view.dtype));
  for (const Named &t : all)
    if (is_private_format(t.t->view.format))
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s format must be a public format, but got %s", api,
                  t.name, format_name(t.t->view.format));
  for (const Named &t : all)
    if (t.t->view.format != gradOutput->view.format)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "%s: %s format must equal gradOutput format %s, but got %s", api, t.name,
                  format_name(gradOutput->view.format), format_name(t.t->view.format));
  const Named four[] = {
      {"gradOutput", gradOutput}, {"argmax", argmax}, {"gradInputRef", gradInputRef}};
  for (const Named &t : four)
    if (t.t->view.rank() != 4)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s must be 4-D, but got shape %s", api, t.name,
                  dims_str(t.t->view.dims).c_str());
  if (rois->view.rank() != 2)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: rois must be 2-D, but got shape %s", api,
                dims_str(rois->view.dims).c_str());
  const auto &go = gradOutput->view.dims, &gi = gradInputRef->view.dims, &rd = rois->view.dims;
  if (rd[1] != 5)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: rois.shape[1] must be 5, but got %" PRId64, api,
                rd[1]);
  if (rd[0] != go[0])
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: rois.shape[0] must equal gradOutput.shape[0]=%" PRId64 ", but got %" PRId64,
                api, go[0], rd[0]);
  if (rd[0] > 1024 || gi[0] > 1024)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: rois.shape[0] and gradInputRef.shape[0] must be <= 1024, but got %" PRId64
                " and %" PRId64,
                api, rd[0], gi[0]);
  if (argmax->view.dims != go)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: argmax shape must equal gradOutput shape %s, but got %s", api,
                dims_str(go).c_str(), dims_str(argmax->view.dims).c_str());
  if (go[1] != gi[1])
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: gradOutput.shape[1] must equal gradInputRef.shape[1]=%" PRId64
                ", but got %" PRId64,
                api, gi[1], go[1]);
  if (go[2] != pooledH || go[3] != pooledW)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: gradOutput.shape[2:4] must be (pooledH, pooledW) = (%" PRId64 ", %" PRId64
                "), but got (%" PRId64 ", %" PRId64 ")",
                api, pooledH, pooledW, go[2], go[3]);
  if (pooledH <= 0 || pooledW <= 0)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: pooledH and pooledW must be > 0, but got pooledH=%" PRId64
                ", pooledW=%" PRId64,
                api, pooledH, pooledW);
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
  // argmax is INT32 and the scatter compares it with H*W in 32 bits: the same rule as the
  // forward's (an argmax can only name a pixel of a map of at most INT32_MAX pixels).
  if (gx.h * gx.w > INT32_MAX)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: gradInputRef H*W must be <= %d for INT32 argmax, but got %" PRId64, api,
                INT32_MAX, gx.h * gx.w);
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
