// SPDX-License-Identifier: Apache-2.0
// The adaptive max-pool forward table. Naming: the path, then "/avx2" for rows whose row
// conversions run AVX2 code.
#include "adaptive_dispatch.h"

#include <cstdlib>

#include "adaptive_kernels.h"

namespace poolgrad {

namespace {

enum Layout { kBins, kBinsDouble };

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
    {Device::kHost,
     ACL_DOUBLE,
     ACL_INT64,
     kBinsDouble,
     Isa::kPortable,
     "adaptive-forward-bins-double",
     {adaptive_forward_double_workspace, adaptive_forward_double}},
};

}  // namespace

const KernelRow<MaxPoolForwardKernel> &adaptive_forward_kernel(const MaxPoolParams &p,
                                                               Device device) {
  // DOUBLE applies to its own path only: the float32 rows would narrow it.
  const int layout = p.dtype == ACL_DOUBLE ? kBinsDouble : kBins;
  const auto *row = find_kernel(kForward, device, p.dtype, ACL_INT64, {layout}, best_isa());
  if (!row) std::abort();  // every key has a portable row: unreachable
  return *row;
}

}  // namespace poolgrad
