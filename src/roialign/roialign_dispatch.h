// SPDX-License-Identifier: Apache-2.0
// The RoIAlign dispatch: each call's kernel and its name, chosen once in phase 1.
#pragma once

#include "roialign_kernels.h"

namespace poolgrad {

const KernelRow<RoiAlignKernel> &roi_align_forward_kernel(const RoiAlignParams &p, Device device,
                                                          const Strided4 &x, const BoxView &boxes,
                                                          const Strided4 &y);
const KernelRow<RoiAlignKernel> &roi_align_backward_kernel(const RoiAlignParams &p, Device device,
                                                           const Strided4 &grad_out,
                                                           const BoxView &boxes,
                                                           const Strided4 &grad_in);

}  // namespace poolgrad
