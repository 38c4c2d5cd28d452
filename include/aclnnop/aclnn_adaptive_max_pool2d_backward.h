/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnAdaptiveMaxPool2dBackward, CANN's signature. */
#ifndef POOLGRAD_ACLNNOP_ADAPTIVE_MAX_POOL2D_BACKWARD_H_
#define POOLGRAD_ACLNNOP_ADAPTIVE_MAX_POOL2D_BACKWARD_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: gradOutput scattered to indices (INT32 or INT64) into gradInput (shape of self). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
    aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor on stream. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAdaptiveMaxPool2dBackward(void *workspace,
                                                               uint64_t workspaceSize,
                                                               aclOpExecutor *executor,
                                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
