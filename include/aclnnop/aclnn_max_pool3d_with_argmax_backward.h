/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnMaxPool3dWithArgmaxBackward, CANN's signature. */
#ifndef POOLGRAD_ACLNNOP_MAX_POOL3D_WITH_ARGMAX_BACKWARD_H_
#define POOLGRAD_ACLNNOP_MAX_POOL3D_WITH_ARGMAX_BACKWARD_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: the gradient of aclnnMaxPool3dWithArgmax: gradInput (the shape of self) receives
 * gradOutput at the stored indices, summed where they repeat. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
    const aclIntArray *kernelSize, const aclIntArray *stride, const aclIntArray *padding,
    const aclIntArray *dilation, bool ceilMode, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor);

/** Phase 2: runs the executor on stream. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxPool3dWithArgmaxBackward(void *workspace,
                                                                 uint64_t workspaceSize,
                                                                 aclOpExecutor *executor,
                                                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
