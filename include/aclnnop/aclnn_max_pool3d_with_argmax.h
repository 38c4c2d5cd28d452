/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnMaxPool3dWithArgmax, CANN's signature. */
#ifndef POOLGRAD_ACLNNOP_MAX_POOL3D_WITH_ARGMAX_H_
#define POOLGRAD_ACLNNOP_MAX_POOL3D_WITH_ARGMAX_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: 3-D max pooling of self ((C, D, H, W) or (N, C, D, H, W)) with windows kernelSize,
 * stride (empty: kernelSize), padding and dilation (1 or 3 values each); writes out and the flat
 * indices (d*H*W + h*W + w in each volume, INT32 or INT64) of each window's maximum. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxPool3dWithArgmaxGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *stride,
    const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode, aclTensor *out,
    aclTensor *indices, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor on stream. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnMaxPool3dWithArgmax(void *workspace, uint64_t workspaceSize,
                                                         aclOpExecutor *executor,
                                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
