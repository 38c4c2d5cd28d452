/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnMaxUnpool3d, CANN's signature. */
#ifndef POOLGRAD_ACLNNOP_MAX_UNPOOL3D_H_
#define POOLGRAD_ACLNNOP_MAX_UNPOOL3D_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: outRef (D, H, W = outputSize, contiguous) zero-filled, then each element of self
 *  written at its index (INT32 or INT64, within its plane of outputSize's product). stride
 *  (values > 0) and padding, three values each, take no part in the result. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxUnpool3dGetWorkspaceSize(
    const aclTensor *self, const aclTensor *indices, const aclIntArray *outputSize,
    const aclIntArray *stride, const aclIntArray *padding, aclTensor *outRef,
    uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor on stream. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxUnpool3d(void *workspace, uint64_t workspaceSize,
                                                 aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
