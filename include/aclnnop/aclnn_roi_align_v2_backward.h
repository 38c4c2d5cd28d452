/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnRoiAlignV2Backward, the gradient of aclnnRoiAlignV2 (deterministic: the same
 * bits for any thread count). */
#ifndef POOLGRAD_ACLNNOP_ROI_ALIGN_V2_BACKWARD_H_
#define POOLGRAD_ACLNNOP_ROI_ALIGN_V2_BACKWARD_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates the call; gradOutput is (K, C, pooledHeight, pooledWidth), boxes (K, 5),
 * inputShape the forward's self shape (B, C, H, W) and gradInput of that shape. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRoiAlignV2BackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *boxes, const aclIntArray *inputShape,
    int64_t pooledHeight, int64_t pooledWidth, float spatialScale, int64_t samplingRatio,
    bool aligned, aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: overwrites gradInput; 161002 as the forward's phase 2, writing nothing. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRoiAlignV2Backward(void *workspace, uint64_t workspaceSize,
                                                        aclOpExecutor *executor,
                                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
