// SPDX-License-Identifier: Apache-2.0
// The max-pool dispatch: the kernel (and its name) for a call, chosen once in phase 1.
#pragma once

#include "../core/dispatch.h"
#include "maxpool_kernels.h"

namespace poolgrad {

struct MaxPoolForwardKernel {
  int64_t (*workspace)(const MaxPoolParams &, const Strided4 &, const Strided4 &, const Strided4 &);
  void (*run)(const MaxPoolParams &, const Strided4 &, const Strided4 &, const Strided4 &, void *);
};
struct MaxPoolBackwardKernel {
  int64_t (*workspace)(const MaxPoolParams &, const Strided4 &, const Strided4 &, const Strided4 &);
  BadIndex (*run)(const MaxPoolParams &, const Strided4 &, const Strided4 &, const Strided4 &,
                  void *);
};

// The rows for these parameters and views at the best ISA available (p.isa is left to the
// caller to set from the row).
const KernelRow<MaxPoolForwardKernel> &maxpool_forward_kernel(const MaxPoolParams &p, Device device,
                                                              const Strided4 &x,
                                                              const Strided4 &out,
                                                              const Strided4 &idx);
const KernelRow<MaxPoolBackwardKernel> &maxpool_backward_kernel(const MaxPoolParams &p,
                                                                Device device, const Strided4 &gy,
                                                                const Strided4 &idx,
                                                                const Strided4 &gx);

}  // namespace poolgrad
