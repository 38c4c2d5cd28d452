/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnMaxUnpool3dBackward, CANN's signature. */
#ifndef POOLGRAD_ACLNNOP_MAX_UNPOOL3D_BACKWARD_H_
#define POOLGRAD_ACLNNOP_MAX_UNPOOL3D_BACKWARD_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: out (the shape of self, contiguous, gradOutput's dtype) gathered from gradOutput
 *  (D, H, W = outputSize) at indices (INT64). stride and padding as in aclnnMaxUnpool3d. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxUnpool3dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
    const aclIntArray *outputSize, const aclIntArray *stride, const aclIntArray *padding,
    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor on stream. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxUnpool3dBackward(void *workspace, uint64_t workspaceSize,
                                                         aclOpExecutor *executor,
                                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
