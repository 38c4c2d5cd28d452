// SPDX-License-Identifier: Apache-2.0
// The adaptive max-pool forward table, in order of preference (core/dispatch.h). Naming: the path,
// then "/avx2" or "/neon" for rows whose row conversions run AVX2 or NEON code; "/sve": the
// volume forward's step A in SVE code (Highway).
#include "volume_adaptive2d_dispatch.h"

#include "volume_adaptive2d_kernels.h"
#include "volume_double.h"

namespace poolgrad {

namespace {

enum Layout { kBins, kBinsDouble };

// DOUBLE has its own row, first: the float32 rows would narrow it.
// clang-format off
const KernelRow<MaxPoolForwardKernel> kForward[] = {
//  device         dtype       index     layout       isa            name                           kernel
    {Device::kHost, ACL_DOUBLE, ACL_INT64, kBinsDouble, Isa::kPortable, "adaptive-forward-bins-double", {pool2d_double_workspace, adaptive2d_forward_double}},
    {Device::kHost, kAnyDtype,  ACL_INT64, kBins,       Isa::kAvx2,     "adaptive-forward-bins/avx2",   {adaptive_forward_workspace, adaptive_forward}},
    {Device::kHost, kAnyDtype,  ACL_INT64, kBins,       Isa::kSve,      "adaptive-forward-bins/sve",    {adaptive_forward_workspace, adaptive_forward}},
    {Device::kHost, kAnyDtype,  ACL_INT64, kBins,       Isa::kNeon,     "adaptive-forward-bins/neon",   {adaptive_forward_workspace, adaptive_forward}},
    {Device::kHost, kAnyDtype,  ACL_INT64, kBins,       Isa::kPortable, "adaptive-forward-bins",        {adaptive_forward_workspace, adaptive_forward}},
};
// clang-format on

}  // namespace

const KernelRow<MaxPoolForwardKernel> &adaptive_forward_kernel(const MaxPoolParams &p,
                                                               Device device, const Strided4 &x,
                                                               const Strided4 &out,
                                                               const Strided4 &idx) {
  return choose_kernel(kForward, device, best_isa(), p, x, out, idx);
}

}  // namespace poolgrad
