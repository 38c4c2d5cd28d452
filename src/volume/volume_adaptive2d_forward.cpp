// SPDX-License-Identifier: Apache-2.0
// Adaptive max pooling 2-D forward: the volume forward (src/volume) on volumes of depth 1, so the
// 2-D and 3-D adaptive operators share one kernel, one bin rule and one NaN rule.
#include "volume_adaptive2d_kernels.h"
#include "volume_double.h"

namespace poolgrad {

int64_t adaptive_forward_workspace(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                   const Strided4 &idx) {
  return volume_forward_workspace(volume_params(p, true), as_volume(x), as_volume(out),
                                  as_volume(idx));
}

FirstError adaptive_forward(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                            const Strided4 &idx, void *workspace) {
  return volume_forward(volume_params(p, true), as_volume(x), as_volume(out), as_volume(idx),
                        workspace);
}

}  // namespace poolgrad
