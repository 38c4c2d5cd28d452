// SPDX-License-Identifier: Apache-2.0
// aclnnMaxPool2dWithIndices and aclnnMaxPool2dWithIndicesBackward: the validation cascade of the
// spec (null pointers, dtypes, formats, shapes and attributes, empty batch) and the executors.
#include <cinttypes>
#include <climits>
#include <cstdio>

#include "../core/core.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "maxpool_cascade.h"
#include "maxpool_rules.h"
#include "poolgrad/poolgrad.h"

using namespace poolgrad;

namespace {

const char *const kFwd = "aclnnMaxPool2dWithIndices";
const char *const kBwd = "aclnnMaxPool2dWithIndicesBackward";

}  // namespace

extern "C" {

aclnnStatus aclnnMaxPool2dWithIndicesGetWorkspaceSize(
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
  const MaxPoolRules &rules = maxpool_rules(false);
  const aclDataType dt = self->view.dtype;
  if ((st = check_pool_dtype(api, "self", self))) return st;
  if ((st = check_profile_dtypes(api, "self", dt, rules))) return st;
  if ((st = check_dtype_as_self(api, "out", out, self))) return st;
  if (indices->view.dtype != ACL_INT32 && indices->view.dtype != ACL_INT64)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: indices dtype must be INT32 or INT64, but got %s",
                api, dtype_name(indices->view.dtype));
  if ((st = check_profile_index(api, indices->view.dtype, rules))) return st;
  // 4: formats and ranks.
  // CANN's format check ignores indices (an output of integers): only its shape is checked.
  st = check_formats(api, {{"self", self}, {"out", out}}, {{"self", self}, {"out", out}});
  if (st) return st;
  if ((st = check_profile_format(api, self->view.format, rules))) return st;
  // 5: shapes and attributes.
  Geometry g;
  if ((st = geometry(api, self, kernelSize, stride, padding, dilation, ceilMode, &g))) return st;
  if ((st = check_profile_dilation(api, g.a, rules))) return st;
  if ((st = check_same_shape(api, "out", out, g.out_dims, "the pooled shape of self"))) return st;
  if ((st = check_same_shape(api, "indices", indices, out->view.dims, "the shape of out")))
    return st;
  if (indices->view.dtype == ACL_INT32 && g.h * g.w > INT32_MAX)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: indices dtype INT32 requires H*W <= %d, but got H*W=%" PRId64 "; use INT64",
                api, INT32_MAX, g.h * g.w);
  // 6: an empty batch is a no-op (the plan has nothing to run).
  ForwardArgs f;
  f.api = api, f.g = &g, f.self = self, f.out = out, f.indices = indices;
  f.ix = to_nchw(indices->view, g.nhwc), f.idt = indices->view.dtype;
  f.choose = maxpool_forward_kernel;
  return finish_forward(
      f, [&] { return attrs_trace(g.a); }, workspaceSize, executor);
}

aclnnStatus aclnnMaxPool2dWithIndices(void *workspace, uint64_t workspaceSize,
                                      aclOpExecutor *executor, aclrtStream stream) {
  return run_executor(kFwd, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(
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
  const MaxPoolRules &rules = maxpool_rules(true);
  const aclDataType dt = self->view.dtype;
  if ((st = check_pool_dtype(api, "self", self))) return st;
  if ((st = check_profile_dtypes(api, "self", dt, rules))) return st;
  if ((st = check_dtype_as_self(api, "gradOutput", gradOutput, self))) return st;
  if ((st = check_dtype_as_self(api, "gradInput", gradInput, self))) return st;
  if (indices->view.dtype != ACL_INT32 && indices->view.dtype != ACL_INT64)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: indices dtype must be INT32 or INT64, but got %s",
                api, dtype_name(indices->view.dtype));
  if ((st = check_profile_index(api, indices->view.dtype, rules))) return st;
  // 4: formats and ranks.
  st = check_formats(
      api, {{"self", self}, {"gradOutput", gradOutput}, {"gradInput", gradInput}},
      {{"gradOutput", gradOutput}, {"self", self}, {"indices", indices}, {"gradInput", gradInput}});
  if (st) return st;
  if ((st = check_profile_format(api, self->view.format, rules))) return st;
  // 5: shapes and attributes.
  Geometry g;
  if ((st = geometry(api, self, kernelSize, stride, padding, dilation, ceilMode, &g))) return st;
  if ((st = check_profile_dilation(api, g.a, rules))) return st;
  if ((st = check_same_shape(api, "gradInput", gradInput, self->view.dims, "the shape of self")))
    return st;
  if ((st =
           check_same_shape(api, "gradOutput", gradOutput, g.out_dims, "the pooled shape of self")))
    return st;
  if ((st = check_same_shape(api, "indices", indices, gradOutput->view.dims,
                             "the shape of gradOutput")))
    return st;
  BackwardArgs b;
  b.api = api, b.g = &g, b.grad_out = gradOutput, b.self = self, b.indices = indices;
  b.grad_in = gradInput, b.ix = to_nchw(indices->view, g.nhwc), b.idt = indices->view.dtype;
  return finish_backward(
      b, [&] { return attrs_trace(g.a); }, workspaceSize, executor);
}

aclnnStatus aclnnMaxPool2dWithIndicesBackward(void *workspace, uint64_t workspaceSize,
                                              aclOpExecutor *executor, aclrtStream stream) {
  return run_executor(kBwd, workspace, workspaceSize, executor, stream);
}

int64_t poolgradPoolOutputSize(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                               bool ceilMode) {
  if (in < 0 || in > kMaxAttr || k < 1 || k > kMaxAttr || s < 1 || s > kMaxAttr || p < 0 ||
      p > kMaxAttr || d < 1 || d > kMaxAttr)
    return -1;
  return pool_out_size(in, k, s, p, d, ceilMode);
}

}  // extern "C"
