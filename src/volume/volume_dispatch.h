// SPDX-License-Identifier: Apache-2.0
// The volume dispatch: the forward and backward kernels (and their names) for a call, chosen once
// in phase 1.
#pragma once

#include "../core/dispatch.h"
#include "volume_kernels.h"

namespace poolgrad {

struct VolumeForwardKernel {
  int64_t (*workspace)(const VolumeParams &, const Strided5 &x);
  void (*run)(const VolumeParams &, const Strided5 &, const Strided5 &, const Strided5 &, void *);
};
struct VolumeBackwardKernel {
  int64_t (*workspace)(const VolumeParams &, const Strided5 &gy, const Strided5 &gx);
  BadVolumeIndex (*run)(const VolumeParams &, const Strided5 &, const Strided5 &, const Strided5 &,
                        void *);
};

const KernelRow<VolumeForwardKernel> &volume_forward_kernel(const VolumeParams &p, Device device);
const KernelRow<VolumeBackwardKernel> &volume_backward_kernel(const VolumeParams &p, Device device);

}  // namespace poolgrad
