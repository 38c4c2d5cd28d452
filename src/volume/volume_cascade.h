// SPDX-License-Identifier: Apache-2.0
// The validation steps and the end of phase 1 that the 3-D max pool and the 3-D adaptive max pool
// share: ranks, the volume's sizes, the 3-D attributes, the index range rule, and the plan.
#pragma once

#include <string>
#include <vector>

#include "../core/core.h"
#include "volume_kernels.h"

namespace poolgrad {

// self's (N, C) and per axis (D, H, W) its input size and window; the output shape in self's
// layout.
struct VolumeGeometry {
  bool channels_last = false;  // NDHWC: dims read as (N, D, H, W, C)
  int rank = 5;
  int64_t n = 1, c = 0;
  Axis ax[3];
  SmallInts out_dims;
  // Nothing to compute: the 3-D max pool's empty tensors return before the shape checks (CANN;
  // docs/compatibility.md D9). The plan is empty.
  bool empty = false;
  VolumeParams params(aclDataType dt, aclDataType idt) const;
  // Sets the output sizes and out_dims.
  void set_out(int64_t od, int64_t oh, int64_t ow, const SmallInts &self_dims);
};

// 161002 for a private format among `all`, a format of self (the first of `same`) outside
// `accepted` (empty: any public one), or one of `same` whose format differs from self's.
aclnnStatus check_volume_formats(const char *api, std::initializer_list<Named> same,
                                 std::initializer_list<Named> all,
                                 std::initializer_list<aclFormat> accepted,
                                 const char *accepted_text);
// 161002 unless t's dtype is one the product profile takes for indices (volume_rules()).
aclnnStatus check_volume_index_dtype(const char *api, const char *name, const aclTensor *t);
// 161002 unless every tensor is 4-D or 5-D.
aclnnStatus check_volume_ranks(const char *api, std::initializer_list<Named> all);
// self's N, C and input sizes; 161002 unless C, D, H and W are >= 1 (with empty_ok, 0 is taken
// too).
aclnnStatus volume_input(const char *api, const aclTensor *self, bool channels_last,
                         VolumeGeometry *g, bool empty_ok = false);
// kernelSize, stride, padding, dilation of the 3-D max pool (length and value rules) into g->ax,
// then the output sizes (> 0, unless self is empty) and shape.
aclnnStatus volume_windows(const char *api, const aclTensor *self, const aclIntArray *kernel,
                           const aclIntArray *stride, const aclIntArray *padding,
                           const aclIntArray *dilation, bool ceil, VolumeGeometry *g);
// Indices must be able to hold every flat position: D*H*W <= INT32_MAX for INT32 indices, and
// on profiles that say so for any dtype.
aclnnStatus check_volume_index_range(const char *api, const VolumeGeometry &g, aclDataType idt,
                                     bool int32_always);

std::string windows_trace(const VolumeGeometry &g);

aclnnStatus finish_volume_forward(const char *api, const VolumeGeometry &g, const aclTensor *self,
                                  const char *out_name, const aclTensor *out, const char *idx_name,
                                  const aclTensor *indices, const TraceText &trace_extra,
                                  uint64_t *workspace_size, aclOpExecutor **executor);
aclnnStatus finish_volume_backward(const char *api, const VolumeGeometry &g,
                                   const aclTensor *grad_out, const aclTensor *self,
                                   const aclTensor *indices, const aclTensor *grad_in,
                                   const TraceText &trace_extra, uint64_t *workspace_size,
                                   aclOpExecutor **executor);

}  // namespace poolgrad
