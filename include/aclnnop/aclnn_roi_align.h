/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: aclnnRoiAlign, the ONNX (opset 10) RoiAlign: rois and their batch indices as two
 * tensors, "avg" or "max" mode, no half-pixel shift. */
#ifndef POOLGRAD_ACLNNOP_ROI_ALIGN_H_
#define POOLGRAD_ACLNNOP_ROI_ALIGN_H_

#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates the call; self is (N, C, H, W), rois (numRois, 4) rows of (x1, y1, x2, y2),
 * batchIndices (numRois,) INT32, out (numRois, C, outputHeight, outputWidth). */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRoiAlignGetWorkspaceSize(
    const aclTensor *self, const aclTensor *rois, const aclTensor *batchIndices, const char *mode,
    int outputHeight, int outputWidth, int samplingRatio, float spatialScale, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);

/** Phase 2: returns 161002, writing nothing, for a batch index outside [0, N) or a RoI whose
 * coordinates are not finite after spatialScale. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnRoiAlign(void *workspace, uint64_t workspaceSize,
                                              aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
