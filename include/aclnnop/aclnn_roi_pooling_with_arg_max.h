/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnRoiPoolingWithArgMax, CANN's signature (float H and W scales). */
#ifndef POOLGRAD_ACLNNOP_ROI_POOLING_WITH_ARG_MAX_H_
#define POOLGRAD_ACLNNOP_ROI_POOLING_WITH_ARG_MAX_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates the call; y and argmax are (R, C, pooled_h, pooled_w). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRoiPoolingWithArgMaxGetWorkspaceSize(
    const aclTensor *x, const aclTensor *rois, int64_t pooled_h, int64_t pooled_w,
    float spatial_scale_h, float spatial_scale_w, aclTensor *y, aclTensor *argmax,
    uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: returns 161002 for a ROI whose batch index lies outside [0, N). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRoiPoolingWithArgMax(void *workspace, uint64_t workspaceSize,
                                                          aclOpExecutor *executor,
                                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
