/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnAdaptiveMaxPool3d, CANN's signature. */
#ifndef POOLGRAD_ACLNNOP_ADAPTIVE_MAX_POOL3D_H_
#define POOLGRAD_ACLNNOP_ADAPTIVE_MAX_POOL3D_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: adaptive max pooling of self ((C, D, H, W) or (N, C, D, H, W)) to outputSize =
 * [Dout, Hout, Wout]; writes outputOut and the flat indices (d*H*W + h*W + w in each volume)
 * indicesOut. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAdaptiveMaxPool3dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, aclTensor *outputOut,
    aclTensor *indicesOut, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor on stream. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAdaptiveMaxPool3d(void *workspace, uint64_t workspaceSize,
                                                       aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
