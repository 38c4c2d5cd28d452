// SPDX-License-Identifier: Apache-2.0
// aclnnAdaptiveMaxPool2d and aclnnAdaptiveMaxPool2dBackward: the validation cascades of ops-nn's
// public documentation (docs/adaptive-max-pool.md) and the plans. The backward runs the max-pool
// backward's kernels (a scatter through the stored indices, whatever made them).
#include <cinttypes>
#include <climits>

#include "../maxpool/maxpool_cascade.h"
#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_adaptive_max_pool2d_backward.h"
#include "volume_adaptive2d_dispatch.h"

using namespace poolgrad;

namespace {

const char *const kFwd = "aclnnAdaptiveMaxPool2d";
const char *const kBwd = "aclnnAdaptiveMaxPool2dBackward";

// self's geometry for output size (ho, wo); the output shape in self's layout.
Geometry adaptive_geometry(const aclTensor *self, int64_t ho, int64_t wo) {
  Geometry g;
  g.nhwc = self->view.format == ACL_FORMAT_NHWC;
  g.rank = self->view.rank();
  const Strided4 s = to_nchw(self->view, g.nhwc);
  g.n = s.n, g.c = s.c, g.h = s.h, g.w = s.w, g.ho = ho, g.wo = wo;
  g.out_dims = self->view.dims;
  const int off = g.rank == 4 ? 1 : 0;
  g.out_dims[g.nhwc ? off : off + 1] = ho;
  g.out_dims[g.nhwc ? off + 1 : off + 2] = wo;
  return g;
}

aclnnStatus check_sizes(const char *api, const Geometry &g, const aclTensor *self) {
  if (g.c < 1 || g.h < 1 || g.w < 1)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: self must have sizes >= 1 in every dim but the first, but got shape %s", api,
                dims_str(self->view.dims).c_str());
  return ACLNN_SUCCESS;
}

}  // namespace

extern "C" {

aclnnStatus aclnnAdaptiveMaxPool2dGetWorkspaceSize(const aclTensor *self,
                                                   const aclIntArray *outputSize,
                                                   aclTensor *outputOut, aclTensor *indicesOut,
                                                   uint64_t *workspaceSize,
                                                   aclOpExecutor **executor) {
  const char *api = kFwd;
  aclnnStatus st;
  // Step 1: null pointers, the element bound.
  st = check_arguments(api, workspaceSize, executor,
                       {{"self", self},
                        {"outputSize", outputSize},
                        {"outputOut", outputOut},
                        {"indicesOut", indicesOut}});
  if (st) return st;
  // Step 2, dtypes: DOUBLE too (CANN's dtype lists and doc, every product; D4).
  if (!is_pool_dtype(self->view.dtype) && self->view.dtype != ACL_DOUBLE)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: self dtype must be FLOAT, FLOAT16, BF16 or DOUBLE, but got %s", api,
                dtype_name(self->view.dtype));
  if ((st = check_dtype_as_self(api, "outputOut", outputOut, self))) return st;
  if (indicesOut->view.dtype != ACL_INT64)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: indicesOut dtype must be INT64, but got %s", api,
                dtype_name(indicesOut->view.dtype));
  // Step 3, formats: public ones; the outputs' need not equal self's (CANN checks none of the
  // outputs' formats; the layout is self's; D6).
  st = check_formats(api, {{"self", self}},
                     {{"self", self}, {"outputOut", outputOut}, {"indicesOut", indicesOut}});
  if (st) return st;
  st = check_same_shape(api, "indicesOut", indicesOut, outputOut->view.dims,
                        "the shape of outputOut");
  if (st) return st;
  const SmallInts &os = outputSize->values;
  if (os.size() != 2)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: outputSize must have length 2, but got length %zu",
                api, os.size());
  if (os[0] <= 0 || os[1] <= 0)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: outputSize must be > 0, but got %s", api,
                dims_str(os).c_str());
  const Geometry g = adaptive_geometry(self, os[0], os[1]);
  if ((st = check_sizes(api, g, self))) return st;
  // Step 4: an empty batch succeeds before the outputs are compared with self (CANN; D5): there
  // is nothing to write.
  if (g.n != 0) {
    st = check_same_shape(api, "outputOut", outputOut, g.out_dims, "self with H, W = outputSize");
    if (st) return st;
  }
  ForwardArgs f;
  f.api = api, f.g = &g, f.self = self, f.out_name = "outputOut", f.out = outputOut;
  f.idx_name = "indicesOut", f.indices = indicesOut;
  f.ix = to_nchw(indicesOut->view, g.nhwc), f.idt = ACL_INT64, f.choose = adaptive_forward_kernel;
  return finish_forward(
      f,
      [&] {
        return format("outputSize=[%" PRId64 ",%" PRId64 "] profile=%s", os[0], os[1],
                      soc_name(current_soc()));
      },
      workspaceSize, executor);
}

aclnnStatus aclnnAdaptiveMaxPool2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream) {
  return run_executor(kFwd, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
    aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor) {
  const char *api = kBwd;
  aclnnStatus st;
  // Step 1: null pointers, the element bound.
  st = check_arguments(
      api, workspaceSize, executor,
      {{"gradOutput", gradOutput}, {"self", self}, {"indices", indices}, {"gradInput", gradInput}});
  if (st) return st;
  for (const Named &t :
       {Named{"gradOutput", gradOutput}, Named{"self", self}, Named{"gradInput", gradInput}})
    if ((st = check_pool_dtype(api, t.name, t.t))) return st;
  for (const Named &t : {Named{"gradOutput", gradOutput}, Named{"gradInput", gradInput}})
    if ((st = check_dtype_as_self(api, t.name, t.t, self))) return st;
  if (indices->view.dtype != ACL_INT32 && indices->view.dtype != ACL_INT64)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: indices dtype must be INT32 or INT64, but got %s",
                api, dtype_name(indices->view.dtype));
  st = check_formats(
      api, {{"self", self}, {"gradOutput", gradOutput}, {"gradInput", gradInput}},
      {{"gradOutput", gradOutput}, {"self", self}, {"indices", indices}, {"gradInput", gradInput}});
  if (st) return st;
  // CANN (op_api, every product): the four storage formats equal, indices' too.
  if (indices->view.format != self->view.format)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: indices format %s must equal self format %s", api,
                format_name(indices->view.format), format_name(self->view.format));
  const bool nhwc = self->view.format == ACL_FORMAT_NHWC;
  const Strided4 go = to_nchw(gradOutput->view, nhwc);
  if (gradOutput->view.rank() != self->view.rank())
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: gradOutput rank must equal self rank %d, but got %d",
                api, self->view.rank(), gradOutput->view.rank());
  const Geometry g = adaptive_geometry(self, go.h, go.w);
  if ((st = check_sizes(api, g, self))) return st;
  if (go.h < 1 || go.w < 1)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: gradOutput Hout and Wout must be >= 1, but got shape %s", api,
                dims_str(gradOutput->view.dims).c_str());
  if ((st = check_same_shape(api, "gradOutput", gradOutput, g.out_dims,
                             "self with its H, W pooled")))
    return st;
  if ((st = check_same_shape(api, "indices", indices, gradOutput->view.dims,
                             "the shape of gradOutput")))
    return st;
  if ((st = check_same_shape(api, "gradInput", gradInput, self->view.dims, "the shape of self")))
    return st;
  // CANN: H*W must fit the indices' int32 range, whatever their dtype.
  if (g.h * g.w > INT32_MAX)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: H*W must be <= %d, but got %" PRId64, api, INT32_MAX,
                g.h * g.w);
  BackwardArgs b;
  b.api = api, b.g = &g, b.grad_out = gradOutput, b.self = self, b.indices = indices;
  b.grad_in = gradInput, b.ix = to_nchw(indices->view, g.nhwc), b.idt = indices->view.dtype;
  return finish_backward(
      b, [] { return format("profile=%s", soc_name(current_soc())); }, workspaceSize, executor);
}

aclnnStatus aclnnAdaptiveMaxPool2dBackward(void *workspace, uint64_t workspaceSize,
                                           aclOpExecutor *executor, aclrtStream stream) {
  return run_executor(kBwd, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
