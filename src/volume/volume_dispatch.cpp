// SPDX-License-Identifier: Apache-2.0
// The volume tables, in order of preference (core/dispatch.h). Naming: the path, then "/avx2" or
// "/neon" for rows whose vector code and row conversions run AVX2 or AArch64 NEON; "/sve": step
// A's SVE code (Highway), NEON code elsewhere.
#include "volume_dispatch.h"

#include "volume_double.h"

namespace poolgrad {

namespace {

enum Layout { kVolumes, kDouble };

// clang-format off
// DOUBLE rows come first: the others convert to float32 (kAnyDtype would take DOUBLE too).
const KernelRow<VolumeForwardKernel> kForward[] = {
//  device         dtype      index      layout    isa            name                   kernel
    {Device::kHost, ACL_DOUBLE, kAnyDtype, kDouble,  Isa::kPortable, "volume-forward-double", {volume_double_workspace, volume_forward_double}},
    {Device::kHost, kAnyDtype, kAnyDtype, kVolumes, Isa::kAvx2,     "volume-forward/avx2", {volume_forward_workspace, volume_forward}},
    {Device::kHost, kAnyDtype, kAnyDtype, kVolumes, Isa::kSve,      "volume-forward/sve",  {volume_forward_workspace, volume_forward}},
    {Device::kHost, kAnyDtype, kAnyDtype, kVolumes, Isa::kNeon,     "volume-forward/neon", {volume_forward_workspace, volume_forward}},
    {Device::kHost, kAnyDtype, kAnyDtype, kVolumes, Isa::kPortable, "volume-forward",      {volume_forward_workspace, volume_forward}},
};

const KernelRow<VolumeBackwardKernel> kBackward[] = {
//  device         dtype      index      layout    isa            name                    kernel
    {Device::kHost, ACL_DOUBLE, kAnyDtype, kDouble,  Isa::kPortable, "volume-backward-double", {volume_double_workspace, volume_backward_double}},
    {Device::kHost, kAnyDtype, kAnyDtype, kVolumes, Isa::kAvx2,     "volume-backward/avx2", {volume_backward_workspace, volume_backward}},
    {Device::kHost, kAnyDtype, kAnyDtype, kVolumes, Isa::kNeon,     "volume-backward/neon", {volume_backward_workspace, volume_backward}},
    {Device::kHost, kAnyDtype, kAnyDtype, kVolumes, Isa::kPortable, "volume-backward",      {volume_backward_workspace, volume_backward}},
};
// clang-format on

}  // namespace

const KernelRow<VolumeForwardKernel> &volume_forward_kernel(const VolumeParams &p, Device device,
                                                            const Strided5 &x, const Strided5 &out,
                                                            const Strided5 &idx) {
  return choose_kernel(kForward, device, best_isa(), p, x, out, idx);
}

const KernelRow<VolumeBackwardKernel> &volume_backward_kernel(const VolumeParams &p, Device device,
                                                              const Strided5 &gy,
                                                              const Strided5 &idx,
                                                              const Strided5 &gx) {
  return choose_kernel(kBackward, device, best_isa(), p, gy, idx, gx);
}

}  // namespace poolgrad
