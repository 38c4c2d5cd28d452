/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnMaxPool2dWithIndicesBackward, CANN's signature. */
#ifndef POOLGRAD_ACLNNOP_MAX_POOL2D_WITH_INDICES_BACKWARD_H_
#define POOLGRAD_ACLNNOP_MAX_POOL2D_WITH_INDICES_BACKWARD_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates the call and builds an executor. gradInput receives, for every element of
 * self, the sum of the gradOutput values whose index names it (0 elsewhere). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
    const aclIntArray *kernelSize, const aclIntArray *stride, const aclIntArray *padding,
    const aclIntArray *dilation, bool ceilMode, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/** Phase 2: runs the executor on stream. Returns 161002 for an index outside [0, H*W) (other
 * than -1). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxPool2dWithIndicesBackward(void *workspace,
                                                                  uint64_t workspaceSize,
                                                                  aclOpExecutor *executor,
                                                                  aclrtStream stream);

/** Phase 1 of the Mask form's backward: indices is the INT8 buffer aclnnMaxPool2dWithMask wrote. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
    const aclIntArray *kernelSize, const aclIntArray *stride, const aclIntArray *padding,
    const aclIntArray *dilation, bool ceilMode, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/** Phase 2 of the Mask form's backward. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxPool2dWithMaskBackward(void *workspace,
                                                               uint64_t workspaceSize,
                                                               aclOpExecutor *executor,
                                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
