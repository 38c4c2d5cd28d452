// SPDX-License-Identifier: Apache-2.0
// The max-pool dispatch: the kernel (and its name) for a call, chosen once in phase 1.
#pragma once

#include "../core/plan.h"
#include "maxpool_kernels.h"

namespace poolgrad {

using MaxPoolForwardKernel = Kernel<MaxPoolParams, Strided4, Strided4, Strided4>;   // x, out, idx
using MaxPoolBackwardKernel = Kernel<MaxPoolParams, Strided4, Strided4, Strided4>;  // gy, idx, gx

const KernelRow<MaxPoolForwardKernel> &maxpool_forward_kernel(const MaxPoolParams &p, Device device,
                                                              const Strided4 &x,
                                                              const Strided4 &out,
                                                              const Strided4 &idx);
const KernelRow<MaxPoolBackwardKernel> &maxpool_backward_kernel(const MaxPoolParams &p,
                                                                Device device, const Strided4 &gy,
                                                                const Strided4 &idx,
                                                                const Strided4 &gx);

// The Mask API's own step: the 1x1-window forward, or the tail after the forward's indices.
const KernelRow<MaxPoolForwardKernel> &maxpool_mask_kernel(const MaxPoolParams &p, Device device,
                                                           const Strided4 &x, const Strided4 &out,
                                                           const Strided4 &idx);

}  // namespace poolgrad
