// SPDX-License-Identifier: Apache-2.0
// The RoI pooling dispatch: the kernel (and its name) for a call, chosen once in phase 1.
#pragma once

#include "../core/plan.h"
#include "roipool_kernels.h"

namespace poolgrad {

using RoiForwardKernel = Kernel<RoiParams, Strided4, Strided2, Strided4, Strided4>;
using RoiBackwardKernel = Kernel<RoiParams, Strided4, Strided2, Strided4, Strided4>;

const KernelRow<RoiForwardKernel> &roi_forward_kernel(const RoiParams &p, Device device,
                                                      const Strided4 &x, const Strided2 &rois,
                                                      const Strided4 &y, const Strided4 &argmax);
const KernelRow<RoiBackwardKernel> &roi_backward_kernel(const RoiParams &p, Device device,
                                                        const Strided4 &grad_out,
                                                        const Strided2 &rois,
                                                        const Strided4 &argmax,
                                                        const Strided4 &grad_in);

}  // namespace poolgrad
