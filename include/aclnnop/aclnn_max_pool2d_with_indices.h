/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnMaxPool2dWithIndices and aclnnMaxPool2dWithMask, CANN's signatures. */
#ifndef POOLGRAD_ACLNNOP_MAX_POOL2D_WITH_INDICES_H_
#define POOLGRAD_ACLNNOP_MAX_POOL2D_WITH_INDICES_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates the call and builds an executor that writes out and indices. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxPool2dWithIndicesGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *stride,
    const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode, aclTensor *out,
    aclTensor *indices, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor on stream. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxPool2dWithIndices(void *workspace, uint64_t workspaceSize,
                                                          aclOpExecutor *executor,
                                                          aclrtStream stream);

/** Phase 1 of the Mask form (Ascend910B / Ascend910_93): indices is an INT8 buffer of shape
 * [N, C, kH*kW, (ceil(Hout*Wout/16) + 1) * 32] that receives the int32 flat indices. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxPool2dWithMaskGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *stride,
    const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode, aclTensor *out,
    aclTensor *indices, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2 of the Mask form. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxPool2dWithMask(void *workspace, uint64_t workspaceSize,
                                                       aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
