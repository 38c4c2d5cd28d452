/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnAdaptiveMaxPool2d, CANN's signature. */
#ifndef POOLGRAD_ACLNNOP_ADAPTIVE_MAX_POOL2D_H_
#define POOLGRAD_ACLNNOP_ADAPTIVE_MAX_POOL2D_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: adaptive max pooling of self to outputSize = [Hout, Wout]; writes outputOut and the
 * INT64 flat indices (h*W + w in each plane) indicesOut. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAdaptiveMaxPool2dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, aclTensor *outputOut,
    aclTensor *indicesOut, uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: runs the executor on stream. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnAdaptiveMaxPool2d(void *workspace, uint64_t workspaceSize,
                                                       aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
