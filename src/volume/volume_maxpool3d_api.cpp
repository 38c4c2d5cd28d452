// SPDX-License-Identifier: Apache-2.0
// aclnnMaxPool3dWithArgmax and aclnnMaxPool3dWithArgmaxBackward: the validation cascades of
// ops-nn's public documentation and op_api checks (docs/max-pool-3d.md) and the plans.
#include <cinttypes>

#include "../pooling/pool_checks.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "volume_cascade.h"
#include "volume_rules.h"

using namespace poolgrad;

namespace {

const char *const kFwd = "aclnnMaxPool3dWithArgmax";
const char *const kBwd = "aclnnMaxPool3dWithArgmaxBackward";

aclnnStatus check_3d_formats(const char *api, std::initializer_list<Named> same,
                             std::initializer_list<Named> all) {
  if (volume_rules().channels_last)
    return check_volume_formats(
        api, same, all, {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW, ACL_FORMAT_NDHWC},
        "ND, NCDHW, NCHW or NDHWC");
  return check_volume_formats(api, same, all, {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW},
                              "ND, NCDHW or NCHW (NDHWC is Ascend950 only)");
}

// self's sizes, the attributes and the product's attribute rules.
aclnnStatus windows(const char *api, const aclTensor *self, const aclIntArray *kernel,
                    const aclIntArray *stride, const aclIntArray *padding,
                    const aclIntArray *dilation, bool ceil, const aclTensor *indices,
                    VolumeGeometry *g) {
  aclnnStatus st = volume_input(api, self, self->view.format == ACL_FORMAT_NDHWC, g, true);
  if (st) return st;
  if ((st = volume_windows(api, self, kernel, stride, padding, dilation, ceil, g))) return st;
  const VolumeRules &r = volume_rules();
  if (!r.any_dilation && (g->ax[0].d != 1 || g->ax[1].d != 1 || g->ax[2].d != 1))
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: dilation must be 1 on every axis on %s, but got [%" PRId64 ",%" PRId64
                ",%" PRId64 "]",
                api, soc_name(current_soc()), g->ax[0].d, g->ax[1].d, g->ax[2].d);
  return check_volume_index_range(api, *g, indices->view.dtype, r.int32_volume);
}

std::string trace_extra(const VolumeGeometry &g, bool ceil) {
  return windows_trace(g) + format(" ceil=%d profile=%s", ceil ? 1 : 0, soc_name(current_soc()));
}

}  // namespace

extern "C" {

aclnnStatus aclnnMaxPool3dWithArgmaxGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *stride,
    const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode, aclTensor *out,
    aclTensor *indices, uint64_t *workspaceSize, aclOpExecutor **executor) {
  const char *api = kFwd;
  aclnnStatus st;
  // 1-2: null pointers, the element bound.
  st = check_window_forward_arguments(api, self, kernelSize, stride, padding, dilation, out,
                                      indices, workspaceSize, executor);
  if (st) return st;
  // 3: dtypes.
  if ((st = check_pool_dtype(api, "self", self))) return st;
  if ((st = check_volume_index_dtype(api, "indices", indices))) return st;
  if ((st = check_dtype_as_self(api, "out", out, self))) return st;
  // 4: formats and ranks.
  if ((st = check_3d_formats(api, {{"self", self}, {"out", out}, {"indices", indices}},
                             {{"self", self}, {"out", out}, {"indices", indices}})))
    return st;
  if ((st = check_volume_ranks(api, {{"self", self}}))) return st;
  // 5: shapes and attributes.
  VolumeGeometry g;
  if ((st = windows(api, self, kernelSize, stride, padding, dilation, ceilMode, indices, &g)))
    return st;
  // An empty self or out returns here, before the shapes are compared (CANN; D9): nothing to write.
  g.empty = self->view.numel() == 0 || out->view.numel() == 0;
  if (!g.empty) {
    if ((st = check_same_shape(api, "out", out, g.out_dims, "self pooled"))) return st;
    st = check_same_shape(api, "indices", indices, g.out_dims, "the shape of out");
    if (st) return st;
  }
  return finish_volume_forward(
      api, g, self, "out", out, "indices", indices, [&] { return trace_extra(g, ceilMode); },
      workspaceSize, executor);
}

aclnnStatus aclnnMaxPool3dWithArgmax(void *workspace, uint64_t workspaceSize,
                                     aclOpExecutor *executor, aclrtStream stream) {
  return run_executor(kFwd, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
    const aclIntArray *kernelSize, const aclIntArray *stride, const aclIntArray *padding,
    const aclIntArray *dilation, bool ceilMode, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  const char *api = kBwd;
  aclnnStatus st;
  // 1-2: null pointers, the element bound.
  st = check_window_backward_arguments(api, gradOutput, self, indices, kernelSize, stride, padding,
                                       dilation, gradInput, workspaceSize, executor);
  if (st) return st;
  // 3: dtypes.
  if ((st = check_pool_dtype(api, "self", self))) return st;
  if ((st = check_volume_index_dtype(api, "indices", indices))) return st;
  if ((st = check_dtype_as_self(api, "gradOutput", gradOutput, self))) return st;
  if ((st = check_dtype_as_self(api, "gradInput", gradInput, self))) return st;
  // 4: formats and ranks.
  st = check_3d_formats(
      api, {{"self", self}, {"gradOutput", gradOutput}, {"gradInput", gradInput}},
      {{"gradOutput", gradOutput}, {"self", self}, {"indices", indices}, {"gradInput", gradInput}});
  if (st) return st;
  st = check_volume_ranks(
      api,
      {{"gradOutput", gradOutput}, {"gradInput", gradInput}, {"indices", indices}, {"self", self}});
  if (st) return st;
  // 5: shapes and attributes.
  VolumeGeometry g;
  if ((st = windows(api, self, kernelSize, stride, padding, dilation, ceilMode, indices, &g)))
    return st;
  // An empty gradOutput, self or indices returns here (CANN; D9): gradInput is not written.
  g.empty = gradOutput->view.numel() == 0 || self->view.numel() == 0 || indices->view.numel() == 0;
  if (!g.empty) {
    if ((st = check_same_shape(api, "indices", indices, gradOutput->view.dims,
                               "the shape of gradOutput")))
      return st;
    st = check_same_shape(api, "gradInput", gradInput, self->view.dims, "the shape of self");
    if (st) return st;
    st = check_same_shape(api, "gradOutput", gradOutput, g.out_dims, "self pooled");
    if (st) return st;
  }
  return finish_volume_backward(
      api, g, gradOutput, self, indices, gradInput, [&] { return trace_extra(g, ceilMode); },
      workspaceSize, executor);
}

aclnnStatus aclnnMaxPool3dWithArgmaxBackward(void *workspace, uint64_t workspaceSize,
                                             aclOpExecutor *executor, aclrtStream stream) {
  return run_executor(kBwd, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
