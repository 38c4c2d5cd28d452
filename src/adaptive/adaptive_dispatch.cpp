// SPDX-License-Identifier: Apache-2.0
// The adaptive max-pool forward table. Naming: the path, then "/avx2" for rows whose row
// conversions run AVX2 code.
#include "adaptive_dispatch.h"

#include <cstdlib>

#include "adaptive_kernels.h"

namespace poolgrad {

namespace {

enum Layout { kBins };

const KernelRow<MaxPoolForwardKernel> kForward[] = {
    {Device::kHost,
     kAnyDtype,
     ACL_INT64,
     kBins,
     Isa::kPortable,
     "adaptive-forward-bins",
     {adaptive_forward_workspace, adaptive_forward}},
    {Device::kHost,
     kAnyDtype,
     ACL_INT64,
     kBins,
     Isa::kAvx2,
     "adaptive-forward-bins/avx2",
     {adaptive_forward_workspace, adaptive_forward}},
};

}  // namespace

const KernelRow<MaxPoolForwardKernel> &adaptive_forward_kernel(const MaxPoolParams &p,
                                                               Device device) {
  const auto *row = find_kernel(kForward, device, p.dtype, ACL_INT64, {kBins}, best_isa());
  if (!row) std::abort();  // every key has a portable row: unreachable
  return *row;
}

}  // namespace poolgrad
