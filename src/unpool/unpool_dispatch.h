// SPDX-License-Identifier: Apache-2.0
// The MaxUnpool dispatch: each call's kernel and its name, chosen once in phase 1.
#pragma once

#include "unpool_kernels.h"

namespace poolgrad {

const KernelRow<UnpoolKernel> &unpool_forward_kernel(const UnpoolParams &p, Device device,
                                                     const Strided5 &self, const Strided5 &idx,
                                                     const Strided5 &out);
const KernelRow<UnpoolKernel> &unpool_backward_kernel(const UnpoolParams &p, Device device,
                                                      const Strided5 &grad_out, const Strided5 &idx,
                                                      const Strided5 &out);

}  // namespace poolgrad
