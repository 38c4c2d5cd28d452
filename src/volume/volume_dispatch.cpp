// SPDX-License-Identifier: Apache-2.0
// The volume tables. Naming: the path, then "/avx2" for rows whose vector code and row conversions
// run AVX2.
#include "volume_dispatch.h"

namespace poolgrad {

namespace {

enum Layout { kVolumes };

// clang-format off
const KernelRow<VolumeForwardKernel> kForward[] = {
//  device         dtype      index      layout    isa            name                   kernel
    {Device::kHost, kAnyDtype, kAnyDtype, kVolumes, Isa::kPortable, "volume-forward",      {volume_forward_workspace, volume_forward}},
    {Device::kHost, kAnyDtype, kAnyDtype, kVolumes, Isa::kAvx2,     "volume-forward/avx2", {volume_forward_workspace, volume_forward}},
};

const KernelRow<VolumeBackwardKernel> kBackward[] = {
//  device         dtype      index      layout    isa            name                    kernel
    {Device::kHost, kAnyDtype, kAnyDtype, kVolumes, Isa::kPortable, "volume-backward",      {volume_backward_workspace, volume_backward}},
    {Device::kHost, kAnyDtype, kAnyDtype, kVolumes, Isa::kAvx2,     "volume-backward/avx2", {volume_backward_workspace, volume_backward}},
};
// clang-format on

}  // namespace

const KernelRow<VolumeForwardKernel> &volume_forward_kernel(const VolumeParams &p, Device device) {
  return must_find(find_kernel(kForward, device, p.dtype, p.index_dtype, {kVolumes}, best_isa()));
}

const KernelRow<VolumeBackwardKernel> &volume_backward_kernel(const VolumeParams &p,
                                                              Device device) {
  return must_find(find_kernel(kBackward, device, p.dtype, p.index_dtype, {kVolumes}, best_isa()));
}

}  // namespace poolgrad
