// SPDX-License-Identifier: Apache-2.0
// The validation steps and plan builders the max-pool APIs share (the Indices pair and the Mask
// pair): dtype and format checks, the geometry of a call (attributes, sizes, output shape), the
// product profile's rules, and the plans of the forward and backward kernels for an indices view.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "../core/core.h"
#include "maxpool_dispatch.h"
#include "maxpool_kernels.h"
#include "maxpool_rules.h"
#include "maxpool_shape.h"

namespace poolgrad {

bool is_pool_dtype(aclDataType t);
// 161002 unless t's dtype is FLOAT, FLOAT16 or BF16 (the adaptive and 3-D operators' data rule;
// CANN's DOUBLE, where it takes it, is refused saying so).
aclnnStatus check_pool_dtype(const char *api, const char *name, const aclTensor *t);
// 161002 unless t's dtype equals self's.
aclnnStatus check_dtype_as_self(const char *api, const char *name, const aclTensor *t,
                                const aclTensor *self);

// Public formats only; `same_format` must share the first one's format; ranks 3 or 4.
aclnnStatus check_formats(const char *api, std::initializer_list<Named> same_format,
                          std::initializer_list<Named> all);
aclnnStatus check_same_shape(const char *api, const char *name, const aclTensor *t,
                             const std::vector<int64_t> &want, const char *what);

// self's (N, C, H, W), the attributes, the output shape in self's layout.
struct Geometry {
  bool nhwc = false;
  int rank = 4;
  int64_t n = 1, c = 0, h = 0, w = 0, ho = 0, wo = 0;
  PoolAttrs a;
  std::vector<int64_t> out_dims;
  MaxPoolParams params(aclDataType dt, aclDataType idt) const;
};
aclnnStatus geometry(const char *api, const aclTensor *self, const aclIntArray *kernel,
                     const aclIntArray *stride, const aclIntArray *padding,
                     const aclIntArray *dilation, bool ceil, Geometry *g);

// The product profile's rules (spec/products.md), each 161002 naming the profile.
aclnnStatus check_profile_dtypes(const char *api, const char *name, aclDataType dt,
                                 const MaxPoolRules &rules);
aclnnStatus check_profile_index(const char *api, aclDataType dt, const MaxPoolRules &rules);
aclnnStatus check_profile_format(const char *api, aclFormat f, const MaxPoolRules &rules);
aclnnStatus check_profile_dilation(const char *api, const PoolAttrs &a, const MaxPoolRules &rules);

std::string attrs_trace(const PoolAttrs &a);

// The forward's kernel choice for finish_forward: the operator's dispatch table.
using ForwardChooser = const KernelRow<MaxPoolForwardKernel> &(*)(const MaxPoolParams &, Device,
                                                                  const Strided4 &,
                                                                  const Strided4 &,
                                                                  const Strided4 &);

// The end of every max-pool-family phase 1 (the Indices, Mask and adaptive APIs): the data
// addresses, the storage rules, the plan over the indices view `ix`, the trace (the tensors and
// `trace_extra`) and the executor. out_name / idx_name: the API's names for its outputs. ix: the
// indices view the kernel writes or reads (the Mask API passes its int32 view of the mask).
// ix_in_workspace: the forward's indices go to a dense scratch at the start of the workspace (the
// Mask API's 1x1 windows, whose buffer has no room for them); after: run after the forward's
// kernel (the Mask API writes the rest of its buffer). unit_window: 1x1 windows whose single
// input element is fixed by the geometry (ix unread). A bad index is 161002 from `api`.
aclnnStatus finish_forward(const char *api, const Geometry &g, const aclTensor *self,
                           const char *out_name, const aclTensor *out, const char *idx_name,
                           const aclTensor *indices, const Strided4 &ix, aclDataType idt,
                           std::function<void()> after, bool ix_in_workspace, ForwardChooser choose,
                           const TraceText &trace_extra, uint64_t *workspace_size,
                           aclOpExecutor **executor);
aclnnStatus finish_backward(const char *api, const Geometry &g, const aclTensor *grad_out,
                            const aclTensor *self, const aclTensor *indices, const Strided4 &ix,
                            aclDataType idt, const aclTensor *grad_in, bool unit_window,
                            const TraceText &trace_extra, uint64_t *workspace_size,
                            aclOpExecutor **executor);

}  // namespace poolgrad
