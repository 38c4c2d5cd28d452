/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnRoiPoolingGradWithArgMax, CANN's signature. gradInputRef is declared const as
 * upstream declares it, but it is the output: it is overwritten. */
#ifndef POOLGRAD_ACLNNOP_ROI_POOLING_GRAD_WITH_ARG_MAX_H_
#define POOLGRAD_ACLNNOP_ROI_POOLING_GRAD_WITH_ARG_MAX_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates the call. spatialScale is accepted and unused (only rois[:, 0] is read). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *gradInputRef, const aclTensor *rois,
    const aclTensor *argmax, int64_t pooledH, int64_t pooledW, double spatialScale,
    uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: returns 161002 for an argmax outside {-1} U [0, H*W) or a batch index outside [0, N).
 */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRoiPoolingGradWithArgMax(void *workspace,
                                                              uint64_t workspaceSize,
                                                              aclOpExecutor *executor,
                                                              aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
