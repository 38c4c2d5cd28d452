/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnRoiAlignV2, RoIAlign with torchvision's semantics (boxes with the batch index in
 * their first column, the half-pixel "aligned" shift, adaptive sampling for samplingRatio 0). */
#ifndef POOLGRAD_ACLNNOP_ROI_ALIGN_V2_H_
#define POOLGRAD_ACLNNOP_ROI_ALIGN_V2_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates the call; self is (B, C, H, W), boxes (K, 5) rows of
 * (batch index, x1, y1, x2, y2), out (K, C, pooledHeight, pooledWidth), all of one dtype. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRoiAlignV2GetWorkspaceSize(
    const aclTensor *self, const aclTensor *boxes, int64_t pooledHeight, int64_t pooledWidth,
    float spatialScale, int64_t samplingRatio, bool aligned, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: returns 161002, writing nothing, for a box whose batch index is outside [0, B) or
 * whose coordinates are not finite after spatialScale. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRoiAlignV2(void *workspace, uint64_t workspaceSize,
                                                aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
