// SPDX-License-Identifier: Apache-2.0
// The MaxUnpool tables (core/dispatch.h). The kernels move elements by their size, so one
// portable row serves every dtype: the work is the index-driven scatter or gather, which no vector
// unit speeds up beyond the compiler's own code.
#include "unpool_dispatch.h"

namespace poolgrad {

namespace {

enum Layout { kPlanes };

// clang-format off
const KernelRow<UnpoolKernel> kForward[] = {
//  device         dtype      index      layout   isa            name              kernel: workspace, run
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanes, Isa::kPortable, "unpool-planes",  {unpool_workspace, unpool_forward}},
};
const KernelRow<UnpoolKernel> kBackward[] = {
//  device         dtype      index      layout   isa            name              kernel: workspace, run
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanes, Isa::kPortable, "gather-planes",  {unpool_workspace, unpool_backward}},
};
// clang-format on

}  // namespace

const KernelRow<UnpoolKernel> &unpool_forward_kernel(const UnpoolParams &p, Device device,
                                                     const Strided5 &self, const Strided5 &idx,
                                                     const Strided5 &out) {
  return choose_kernel(kForward, device, best_isa(), p, self, idx, out);
}

const KernelRow<UnpoolKernel> &unpool_backward_kernel(const UnpoolParams &p, Device device,
                                                      const Strided5 &grad_out, const Strided5 &idx,
                                                      const Strided5 &out) {
  return choose_kernel(kBackward, device, best_isa(), p, grad_out, idx, out);
}

}  // namespace poolgrad
