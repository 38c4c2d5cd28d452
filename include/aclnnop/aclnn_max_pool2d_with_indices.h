/* poolgrad: aclnnMaxPool2dWithIndices, CANN's signature. */
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

#ifdef __cplusplus
}
#endif

#endif
