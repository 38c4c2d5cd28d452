/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnMaxUnpool2dBackward, CANN's signature. */
#ifndef POOLGRAD_ACLNNOP_MAX_UNPOOL2D_BACKWARD_H_
#define POOLGRAD_ACLNNOP_MAX_UNPOOL2D_BACKWARD_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: out (the shape of self) gathered from gradOutput (H, W = outputSize) at indices
 *  (INT32 or INT64), cast to out's dtype. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxUnpool2dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
    const aclIntArray *outputSize, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/** Phase 2: runs the executor on stream. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxUnpool2dBackward(void *workspace, uint64_t workspaceSize,
                                                         aclOpExecutor *executor,
                                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
