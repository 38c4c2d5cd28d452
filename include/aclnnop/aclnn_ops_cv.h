/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: the aggregate header of the cv operator repository's APIs that poolgrad provides. */
#ifndef POOLGRAD_ACLNNOP_OPS_CV_H_
#define POOLGRAD_ACLNNOP_OPS_CV_H_

#include "aclnn_roi_align.h"
#include "aclnn_roi_align_v2.h"
#include "aclnn_roi_align_v2_backward.h"
#include "aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnn_roi_pooling_with_arg_max.h"

#endif
