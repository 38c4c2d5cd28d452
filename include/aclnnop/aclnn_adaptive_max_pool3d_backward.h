/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnAdaptiveMaxPool3dBackward, CANN's signature. */
#ifndef POOLGRAD_ACLNNOP_ADAPTIVE_MAX_POOL3D_BACKWARD_H_
#define POOLGRAD_ACLNNOP_ADAPTIVE_MAX_POOL3D_BACKWARD_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: the gradient of aclnnAdaptiveMaxPool3d: gradInput (the shape of self) receives
 * gradOutput at the stored indices, summed where they repeat. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
    aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor on stream. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAdaptiveMaxPool3dBackward(void *workspace,
                                                               uint64_t workspaceSize,
                                                               aclOpExecutor *executor,
                                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
