// SPDX-License-Identifier: Apache-2.0
// The volume dispatch: the forward and backward kernels (and their names) for a call, chosen once
// in phase 1.
#pragma once

#include "../core/plan.h"
#include "volume_kernels.h"

namespace poolgrad {

using VolumeForwardKernel = Kernel<VolumeParams, Strided5, Strided5, Strided5>;   // x, out, idx
using VolumeBackwardKernel = Kernel<VolumeParams, Strided5, Strided5, Strided5>;  // gy, idx, gx

const KernelRow<VolumeForwardKernel> &volume_forward_kernel(const VolumeParams &p, Device device,
                                                            const Strided5 &x, const Strided5 &out,
                                                            const Strided5 &idx);
const KernelRow<VolumeBackwardKernel> &volume_backward_kernel(const VolumeParams &p, Device device,
                                                              const Strided5 &gy,
                                                              const Strided5 &idx,
                                                              const Strided5 &gx);

}  // namespace poolgrad
