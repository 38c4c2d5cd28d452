// SPDX-License-Identifier: Apache-2.0
#include "pool_checks.h"

namespace poolgrad {

bool is_pool_dtype(aclDataType t) {
  return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16;
}

bool takes_pool_dtype(aclDataType t) {
  return is_pool_dtype(t) || (t == ACL_DOUBLE && thread_double_dtype());
}

aclnnStatus check_pool_dtype(const char *api, const char *name, const aclTensor *t) {
  if (!takes_pool_dtype(t->view.dtype))
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype must be FLOAT, FLOAT16 or BF16, but got %s",
                api, name, dtype_name(t->view.dtype));
  return ACLNN_SUCCESS;
}

aclnnStatus check_same_dtype(const char *api, const char *name, const aclTensor *t,
                             const char *as_name, const aclTensor *as) {
  if (t->view.dtype != as->view.dtype)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype must equal %s dtype %s, but got %s", api,
                name, as_name, dtype_name(as->view.dtype), dtype_name(t->view.dtype));
  return ACLNN_SUCCESS;
}

aclnnStatus check_dtype_as_self(const char *api, const char *name, const aclTensor *t,
                                const aclTensor *self) {
  return check_same_dtype(api, name, t, "self", self);
}

aclnnStatus check_window_forward_arguments(const char *api, const aclTensor *self,
                                           const aclIntArray *kernel, const aclIntArray *stride,
                                           const aclIntArray *padding, const aclIntArray *dilation,
                                           const aclTensor *out, const aclTensor *indices,
                                           const uint64_t *workspace_size,
                                           aclOpExecutor **executor) {
  return check_arguments(api, workspace_size, executor,
                         {{"self", self},
                          {"kernelSize", kernel},
                          {"stride", stride},
                          {"padding", padding},
                          {"dilation", dilation},
                          {"out", out},
                          {"indices", indices}});
}

aclnnStatus check_window_backward_arguments(const char *api, const aclTensor *grad_output,
                                            const aclTensor *self, const aclTensor *indices,
                                            const aclIntArray *kernel, const aclIntArray *stride,
                                            const aclIntArray *padding, const aclIntArray *dilation,
                                            const aclTensor *grad_input,
                                            const uint64_t *workspace_size,
                                            aclOpExecutor **executor) {
  return check_arguments(api, workspace_size, executor,
                         {{"gradOutput", grad_output},
                          {"self", self},
                          {"indices", indices},
                          {"kernelSize", kernel},
                          {"stride", stride},
                          {"padding", padding},
                          {"dilation", dilation},
                          {"gradInput", grad_input}});
}

aclnnStatus check_public_formats(const char *api, std::initializer_list<Named> all) {
  for (const Named &x : all)
    if (is_private_format(x.t->view.format))
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "%s: %s format must be a public format (ND, NCHW, NHWC, HWCN, NDHWC, NCDHW, NC, "
                  "NCL), but got %s",
                  api, x.name, format_name(x.t->view.format));
  return ACLNN_SUCCESS;
}

aclnnStatus check_formats(const char *api, std::initializer_list<Named> same_format,
                          std::initializer_list<Named> all) {
  if (aclnnStatus st = check_public_formats(api, all)) return st;
  const Named &first = *same_format.begin();
  for (const Named &x : same_format)
    if (x.t->view.format != first.t->view.format)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s format must equal %s format %s, but got %s", api,
                  x.name, first.name, format_name(first.t->view.format),
                  format_name(x.t->view.format));
  for (const Named &x : all)
    if (x.t->view.rank() != 3 && x.t->view.rank() != 4)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s must be 3-D or 4-D, but got %d-D shape %s", api,
                  x.name, x.t->view.rank(), dims_str(x.t->view.dims).c_str());
  return ACLNN_SUCCESS;
}

aclnnStatus check_same_shape(const char *api, const char *name, const aclTensor *t,
                             const SmallInts &want, const char *what) {
  if (t->view.dims != want)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s shape must be %s (%s), but got %s", api, name,
                dims_str(want).c_str(), what, dims_str(t->view.dims).c_str());
  return ACLNN_SUCCESS;
}

}  // namespace poolgrad
