/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnMaxUnpool2d, CANN's signature. */
#ifndef POOLGRAD_ACLNNOP_MAX_UNPOOL2D_H_
#define POOLGRAD_ACLNNOP_MAX_UNPOOL2D_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: out (H, W = outputSize) zero-filled, then each element of self written at its index
 *  (INT32 or INT64, within its (n, c) plane of outputSize[0] * outputSize[1]). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxUnpool2dGetWorkspaceSize(
    const aclTensor *self, const aclTensor *indices, const aclIntArray *outputSize, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor on stream. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxUnpool2d(void *workspace, uint64_t workspaceSize,
                                                 aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
