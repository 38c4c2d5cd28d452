// SPDX-License-Identifier: Apache-2.0
// The MaxUnpool tables (core/dispatch.h). The kernels move elements by their size, so one row
// serves every dtype. The backward's gather of 4-byte elements (float32, int32) has an AVX2 path
// (gathers from pinned index registers; the kernel takes it for dense rows); the forward's scatter
// has none (AVX2 has no scatter, and the zero-fill and the scatter are at the copy roof when the
// plane is in cache).
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
//  device         dtype      index      layout   isa            name                 kernel: workspace, run, applies
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanes, Isa::kAvx2,     "gather-planes/avx2", {unpool_workspace, unpool_backward, unpool_gather_vector}},
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanes, Isa::kPortable, "gather-planes",      {unpool_workspace, unpool_backward}},
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
