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
#include "../pooling/pool_checks.h"
#include "maxpool_dispatch.h"
#include "maxpool_kernels.h"
#include "maxpool_rules.h"
#include "maxpool_shape.h"

namespace poolgrad {

// self's (N, C, H, W), the attributes, the output shape in self's layout.
struct Geometry {
  bool nhwc = false;
  int rank = 4;
  int64_t n = 1, c = 0, h = 0, w = 0, ho = 0, wo = 0;
  PoolAttrs a;
  SmallInts out_dims;
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
// addresses, the storage rules, the plan, the trace (the tensors and `trace_extra`) and the
// executor.
struct ForwardArgs {
  const char *api = "";
  const Geometry *g = nullptr;
  const aclTensor *self = nullptr;
  const char *out_name = "out";  // the API's names for its outputs
  const aclTensor *out = nullptr;
  const char *idx_name = "indices";
  const aclTensor *indices = nullptr;
  Strided4 ix;  // the indices view the kernel writes (the Mask API: an int32 view of the mask)
  aclDataType idt = ACL_INT64;
  ForwardChooser choose = nullptr;  // the operator's dispatch table
  bool mask = false;  // the Mask API's layout: its own steps (1x1 windows; the buffer's tail)
};
struct BackwardArgs {
  const char *api = "";
  const Geometry *g = nullptr;
  const aclTensor *grad_out = nullptr, *self = nullptr, *indices = nullptr, *grad_in = nullptr;
  Strided4 ix;  // the indices view the kernel reads
  aclDataType idt = ACL_INT64;
  bool mask = false;  // the Mask API: 1x1 windows' indices are not stored (the geometry fixes them)
};
aclnnStatus finish_forward(const ForwardArgs &f, const TraceText &trace_extra,
                           uint64_t *workspace_size, aclOpExecutor **executor);
aclnnStatus finish_backward(const BackwardArgs &b, const TraceText &trace_extra,
                            uint64_t *workspace_size, aclOpExecutor **executor);

// 1x1 windows.
bool unit_window(const Geometry &g);

}  // namespace poolgrad
