// SPDX-License-Identifier: Apache-2.0
// The max-pool family's DOUBLE kernels (volume_double.cpp): the volume forward and backward, and
// the 2-D poolings as volumes of depth 1. Plain parameters and views; no workspace.
#pragma once

#include "../maxpool/maxpool_kernels.h"
#include "volume_kernels.h"

namespace poolgrad {

// A 2-D pooling as a volume of depth 1: adaptive bins, or p.a's max-pool windows.
VolumeParams volume_params(const MaxPoolParams &p, bool adaptive);

int64_t volume_double_workspace(const VolumeParams &p, const Strided5 &a, const Strided5 &b,
                                const Strided5 &c);
FirstError volume_forward_double(const VolumeParams &p, const Strided5 &x, const Strided5 &out,
                                 const Strided5 &idx, void *workspace);
FirstError volume_backward_double(const VolumeParams &p, const Strided5 &gy, const Strided5 &idx,
                                  const Strided5 &gx, void *workspace);

int64_t pool2d_double_workspace(const MaxPoolParams &p, const Strided4 &a, const Strided4 &b,
                                const Strided4 &c);
FirstError maxpool2d_forward_double(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                    const Strided4 &idx, void *workspace);
FirstError adaptive2d_forward_double(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                     const Strided4 &idx, void *workspace);
// Both 2-D backwards (max pool and adaptive): the scatter needs only the sizes.
FirstError pool2d_backward_double(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                                  const Strided4 &gx, void *workspace);

}  // namespace poolgrad
