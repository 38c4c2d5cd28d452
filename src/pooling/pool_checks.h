// SPDX-License-Identifier: Apache-2.0
// The pooling family's shared phase-1 checks (the max-pool, adaptive and 3-D operators): the
// data dtypes, dtype and format agreement, shapes. Each returns 161002 with a message naming the
// API and the parameter.
#pragma once

#include <initializer_list>
#include <vector>

#include "../core/core.h"

namespace poolgrad {

// FLOAT, FLOAT16 or BF16: the family's data dtypes in CANN's lists.
bool is_pool_dtype(aclDataType t);
// The same, plus DOUBLE where this thread turned poolgrad's extension on (core/dtype.h).
bool takes_pool_dtype(aclDataType t);
// 161002 unless takes_pool_dtype(t's dtype) (the adaptive and 3-D operators' data rule).
aclnnStatus check_pool_dtype(const char *api, const char *name, const aclTensor *t);
// 161002 unless t's dtype equals the dtype of `as` (named as_name in the message).
aclnnStatus check_same_dtype(const char *api, const char *name, const aclTensor *t,
                             const char *as_name, const aclTensor *as);
// 161002 unless t's dtype equals self's.
aclnnStatus check_dtype_as_self(const char *api, const char *name, const aclTensor *t,
                                const aclTensor *self);

// Steps 1-2 (core/checks.h: check_arguments) of the window max-pool APIs, 2-D and 3-D, whose
// headers share one parameter list each way: the forward's (self, kernelSize, stride, padding,
// dilation, ceilMode, out, indices) and the backward's (gradOutput, self, indices, kernelSize,
// stride, padding, dilation, ceilMode, gradInput).
aclnnStatus check_window_forward_arguments(const char *api, const aclTensor *self,
                                           const aclIntArray *kernel, const aclIntArray *stride,
                                           const aclIntArray *padding, const aclIntArray *dilation,
                                           const aclTensor *out, const aclTensor *indices,
                                           const uint64_t *workspace_size,
                                           aclOpExecutor **executor);
aclnnStatus check_window_backward_arguments(const char *api, const aclTensor *grad_output,
                                            const aclTensor *self, const aclTensor *indices,
                                            const aclIntArray *kernel, const aclIntArray *stride,
                                            const aclIntArray *padding, const aclIntArray *dilation,
                                            const aclTensor *grad_input,
                                            const uint64_t *workspace_size,
                                            aclOpExecutor **executor);

// 161002 for a tensor of a private format (NC1HWC0 and the like).
aclnnStatus check_public_formats(const char *api, std::initializer_list<Named> all);
// Public formats only; `same_format` must share the first one's format; ranks 3 or 4.
aclnnStatus check_formats(const char *api, std::initializer_list<Named> same_format,
                          std::initializer_list<Named> all);
aclnnStatus check_same_shape(const char *api, const char *name, const aclTensor *t,
                             const SmallInts &want, const char *what);

}  // namespace poolgrad
