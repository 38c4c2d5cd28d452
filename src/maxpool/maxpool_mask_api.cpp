// SPDX-License-Identifier: Apache-2.0
// aclnnMaxPool2dWithMask and aclnnMaxPool2dWithMaskBackward: the max-pool pair the frameworks call
// on Atlas A2/A3 (docs/mask.md). The "mask" is an INT8 buffer of shape
// [N, C, kH*kW, (ceil(Hout*Wout/16) + 1) * 32]; for windows other than 1x1 it holds the int32 flat
// indices (h*W + w within the plane, little-endian), one per output in (n, c, oh, ow) order from
// the start of the buffer, the rest zero, as CANN's A2/A3 forward writes it. So the same kernels
// as the Indices pair run, with an int32 view over the mask's storage.
#include <cinttypes>
#include <cstring>

#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "maxpool_cascade.h"

using namespace poolgrad;

namespace {

const char *const kFwd = "aclnnMaxPool2dWithMask";
const char *const kBwd = "aclnnMaxPool2dWithMaskBackward";

// The mask's shape for the call (rank 3 input: without N).
SmallInts mask_dims(const Geometry &g) {
  SmallInts d = {g.c, g.a.kh * g.a.kw, mask_row_bytes(g.ho, g.wo)};
  if (g.rank == 4) d.insert(d.begin(), g.n);
  return d;
}

// Step 1 of both: CANN checks the product first (after the null kernelSize / self / out checks
// and the kernelSize length): the Mask pair is deprecated on Ascend950.
aclnnStatus check_product(const char *api) {
  if (!maxpool_mask_rules().available)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: this interface is deprecated on %s; use %s instead",
                api, soc_name(current_soc()),
                api == kFwd ? "aclnnMaxPool2dWithIndices" : "aclnnMaxPool2dWithIndicesBackward");
  return ACLNN_SUCCESS;
}

// The mask checks after the shared cascade: INT8, the exact shape, dense row-major storage (its
// bytes are read as int32 values), aligned to 4 bytes for those reads.
aclnnStatus check_mask(const char *api, const aclTensor *mask, const Geometry &g) {
  const View &v = mask->view;
  if (v.dtype != ACL_INT8)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: indices (the mask) dtype must be INT8, but got %s",
                api, dtype_name(v.dtype));
  aclnnStatus st = check_same_shape(
      api, "indices", mask, mask_dims(g),
      "the mask of [N, C, kH*kW, (ceil(Hout*Wout/16) + 1) * 32] bytes for this call");
  if (st) return st;
  int64_t stride = 1;
  for (int i = v.rank() - 1; i >= 0; --i) {
    if (v.dims[i] > 1 && v.strides[i] != stride)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "%s: indices (the mask) must be contiguous (its bytes hold int32 indices), but "
                  "its strides are %s for shape %s",
                  api, dims_str(v.strides).c_str(), dims_str(v.dims).c_str());
    stride *= v.dims[i];
  }
  if (v.data && (reinterpret_cast<uintptr_t>(v.data) + v.offset) % 4 != 0)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: indices (the mask) must start at a 4-byte aligned address (it holds int32 "
                "indices), but starts at %p",
                api, static_cast<void *>(static_cast<char *>(v.data) + v.offset));
  return ACLNN_SUCCESS;
}

// The int32 (n, c, oh, ow) view over the mask's first bytes.
Strided4 mask_as_indices(const aclTensor *mask, const Geometry &g) {
  Strided4 t;
  t.base = mask->view.data ? static_cast<char *>(mask->view.data) + mask->view.offset : nullptr;
  t.n = g.n, t.c = g.c, t.h = g.ho, t.w = g.wo;
  t.sw = 1, t.sh = g.wo, t.sc = g.ho * g.wo, t.sn = g.c * g.ho * g.wo;
  return t;
}

// The shared steps of both phase-1 calls up to the geometry; the dtype and shape checks of the
// data tensors come from the Indices pair's cascade.
aclnnStatus common_cascade(const char *api, const aclTensor *self, const aclIntArray *kernelSize,
                           const aclIntArray *stride, const aclIntArray *padding,
                           const aclIntArray *dilation, bool ceilMode,
                           std::initializer_list<Named> data, std::initializer_list<Named> same_fmt,
                           Geometry *g) {
  aclnnStatus st;
  const MaxPoolRules &rules = maxpool_mask_rules();
  const aclDataType dt = self->view.dtype;
  if (!is_pool_dtype(dt))
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: self dtype must be FLOAT, FLOAT16 or BF16, but got %s", api, dtype_name(dt));
  for (const Named &x : data)
    if (x.t->view.dtype != dt)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype must equal self dtype %s, but got %s", api,
                  x.name, dtype_name(dt), dtype_name(x.t->view.dtype));
  if ((st = check_formats(api, same_fmt, data))) return st;
  if ((st = check_profile_format(api, self->view.format, rules))) return st;
  if ((st = geometry(api, self, kernelSize, stride, padding, dilation, ceilMode, g))) return st;
  return check_profile_dilation(api, g->a, rules);
}

}  // namespace

extern "C" {

aclnnStatus aclnnMaxPool2dWithMaskGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *stride,
    const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode, aclTensor *out,
    aclTensor *indices, uint64_t *workspaceSize, aclOpExecutor **executor) {
  const char *api = kFwd;
  aclnnStatus st;
  // CANN's order: kernelSize, self, out null; kernelSize length; the product.
  if ((st = check_not_null(api, {{"kernelSize", kernelSize}, {"self", self}, {"out", out}})))
    return st;
  if (kernelSize->values.size() != 1 && kernelSize->values.size() != 2)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: kernelSize must have length 1 or 2, but got length %zu", api,
                kernelSize->values.size());
  if ((st = check_product(api))) return st;
  // Then the 2-D forward's steps 1-2 (the arguments checked above pass again).
  st = check_window_forward_arguments(api, self, kernelSize, stride, padding, dilation, out,
                                      indices, workspaceSize, executor);
  if (st) return st;
  Geometry g;
  st = common_cascade(api, self, kernelSize, stride, padding, dilation, ceilMode,
                      {{"self", self}, {"out", out}}, {{"self", self}, {"out", out}}, &g);
  if (st) return st;
  if ((st = check_same_shape(api, "out", out, g.out_dims, "the pooled shape of self"))) return st;
  if ((st = check_mask(api, indices, g))) return st;
  ForwardArgs f;
  f.api = api, f.g = &g, f.self = self, f.out = out, f.indices = indices;
  f.ix = mask_as_indices(indices, g), f.idt = ACL_INT32;
  f.choose = maxpool_forward_kernel, f.mask = true;
  return finish_forward(
      f, [&] { return attrs_trace(g.a) + " mask"; }, workspaceSize, executor);
}

aclnnStatus aclnnMaxPool2dWithMask(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream) {
  return run_executor(kFwd, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
    const aclIntArray *kernelSize, const aclIntArray *stride, const aclIntArray *padding,
    const aclIntArray *dilation, bool ceilMode, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  const char *api = kBwd;
  aclnnStatus st;
  if ((st = check_not_null(api, {{"self", self}, {"indices", indices}}))) return st;
  if ((st = check_product(api))) return st;
  // CANN's backward checks kernelSize, self and gradOutput for null and then the kernelSize
  // length, and reports a bad length with the null-pointer status 161001 (D17).
  if ((st = check_not_null(api, {{"kernelSize", kernelSize}, {"gradOutput", gradOutput}})))
    return st;
  if (kernelSize->values.size() != 1 && kernelSize->values.size() != 2)
    return fail(ACLNN_ERR_PARAM_NULLPTR,
                "%s: kernelSize must have length 1 or 2, but got length %zu (161001, as CANN)", api,
                kernelSize->values.size());
  // Then the 2-D backward's steps 1-2 (the arguments checked above pass again).
  st = check_window_backward_arguments(api, gradOutput, self, indices, kernelSize, stride, padding,
                                       dilation, gradInput, workspaceSize, executor);
  if (st) return st;
  Geometry g;
  st = common_cascade(api, self, kernelSize, stride, padding, dilation, ceilMode,
                      {{"gradOutput", gradOutput}, {"self", self}, {"gradInput", gradInput}},
                      {{"self", self}, {"gradOutput", gradOutput}, {"gradInput", gradInput}}, &g);
  if (st) return st;
  if ((st = check_same_shape(api, "gradInput", gradInput, self->view.dims, "the shape of self")))
    return st;
  st = check_same_shape(api, "gradOutput", gradOutput, g.out_dims, "the pooled shape of self");
  if (st) return st;
  if ((st = check_mask(api, indices, g))) return st;
  BackwardArgs b;
  b.api = api, b.g = &g, b.grad_out = gradOutput, b.self = self, b.indices = indices;
  b.grad_in = gradInput, b.ix = mask_as_indices(indices, g), b.idt = ACL_INT32, b.mask = true;
  return finish_backward(
      b, [&] { return attrs_trace(g.a) + " mask"; }, workspaceSize, executor);
}

aclnnStatus aclnnMaxPool2dWithMaskBackward(void *workspace, uint64_t workspaceSize,
                                           aclOpExecutor *executor, aclrtStream stream) {
  return run_executor(kBwd, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
