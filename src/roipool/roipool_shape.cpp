// SPDX-License-Identifier: Apache-2.0
#include "roipool_shape.h"

#include <cinttypes>
#include <climits>

namespace poolgrad {

namespace {

// CANN's list; DOUBLE too where this thread turned poolgrad's extension on (core/dtype.h).
bool is_roi_dtype(aclDataType t) {
  return t == ACL_FLOAT || t == ACL_FLOAT16 || (t == ACL_DOUBLE && thread_double_dtype());
}

}  // namespace

aclnnStatus check_roi_forward(const char *api, const aclTensor *x, const aclTensor *rois,
                              const aclTensor *y, const aclTensor *argmax, int64_t pooled_h,
                              int64_t pooled_w, float spatial_scale_h, float spatial_scale_w) {
  const Named all[] = {{"x", x}, {"rois", rois}, {"y", y}, {"argmax", argmax}};
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
  const SmallInts want = {R, x->view.dims[1], pooled_h, pooled_w};
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
  return ACLNN_SUCCESS;
}

aclnnStatus check_roi_backward(const char *api, const aclTensor *gradOutput,
                               const aclTensor *gradInputRef, const aclTensor *rois,
                               const aclTensor *argmax, int64_t pooledH, int64_t pooledW) {
  const Named all[] = {{"gradOutput", gradOutput},
                       {"gradInputRef", gradInputRef},
                       {"rois", rois},
                       {"argmax", argmax}};
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
  const Strided4 gx = to_nchw(gradInputRef->view, false);
  // argmax is INT32 and the scatter compares it with H*W in 32 bits: the same rule as the
  // forward's (an argmax can only name a pixel of a map of at most INT32_MAX pixels).
  if (gx.h * gx.w > INT32_MAX)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: gradInputRef H*W must be <= %d for INT32 argmax, but got %" PRId64, api,
                INT32_MAX, gx.h * gx.w);
  return ACLNN_SUCCESS;
}

}  // namespace poolgrad
