// SPDX-License-Identifier: Apache-2.0
// The adaptive max-pool dispatch: the forward kernel and its name, chosen once in phase 1 (the
// backward takes the max-pool backward's rows).
#pragma once

#include "../maxpool/maxpool_dispatch.h"

namespace poolgrad {

const KernelRow<MaxPoolForwardKernel> &adaptive_forward_kernel(const MaxPoolParams &p,
                                                               Device device, const Strided4 &x,
                                                               const Strided4 &out,
                                                               const Strided4 &idx);

}  // namespace poolgrad
