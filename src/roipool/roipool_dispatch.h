// SPDX-License-Identifier: Apache-2.0
// The RoI pooling dispatch: the kernel (and its name) for a call, chosen once in phase 1.
#pragma once

#include "../core/dispatch.h"
#include "roipool_kernels.h"

namespace poolgrad {

struct RoiForwardKernel {
  int64_t (*workspace)(const RoiParams &, const Strided4 &);
  RoiDataError (*run)(const RoiParams &, const Strided4 &, const Strided2 &, const Strided4 &,
                      const Strided4 &, void *);
};
struct RoiBackwardKernel {
  int64_t (*workspace)(const RoiParams &, const Strided4 &, const Strided4 &);
  RoiDataError (*run)(const RoiParams &, const Strided4 &, const Strided2 &, const Strided4 &,
                      const Strided4 &, void *);
};

const KernelRow<RoiForwardKernel> &roi_forward_kernel(const RoiParams &p, Device device);
const KernelRow<RoiBackwardKernel> &roi_backward_kernel(const RoiParams &p, Device device,
                                                        const Strided4 &grad_out,
                                                        const Strided4 &argmax);

}  // namespace poolgrad
