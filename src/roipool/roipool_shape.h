// SPDX-License-Identifier: Apache-2.0
// The RoI pair's phase-1 cascade after the null checks and the element bound, in the spec's order:
// dtypes, formats, ranks and shapes, the attributes, the argmax range (H*W within INT32). Each
// failure is 161002 with a message naming the API and the parameter (docs/roi-pooling.md).
#pragma once

#include <cstdint>

#include "../core/core.h"

namespace poolgrad {

aclnnStatus check_roi_forward(const char *api, const aclTensor *x, const aclTensor *rois,
                              const aclTensor *y, const aclTensor *argmax, int64_t pooled_h,
                              int64_t pooled_w, float spatial_scale_h, float spatial_scale_w);
aclnnStatus check_roi_backward(const char *api, const aclTensor *gradOutput,
                               const aclTensor *gradInputRef, const aclTensor *rois,
                               const aclTensor *argmax, int64_t pooledH, int64_t pooledW);

}  // namespace poolgrad
