/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: the aggregate header of the nn operator repository's APIs that poolgrad provides. */
#ifndef POOLGRAD_ACLNNOP_OPS_NN_H_
#define POOLGRAD_ACLNNOP_OPS_NN_H_

#include "aclnn_adaptive_max_pool2d.h"
#include "aclnn_adaptive_max_pool2d_backward.h"
#include "aclnn_adaptive_max_pool3d.h"
#include "aclnn_adaptive_max_pool3d_backward.h"
#include "aclnn_max_pool2d_with_indices.h"
#include "aclnn_max_pool2d_with_indices_backward.h"
#include "aclnn_max_pool3d_with_argmax.h"
#include "aclnn_max_pool3d_with_argmax_backward.h"
#include "aclnn_max_unpool2d.h"
#include "aclnn_max_unpool2d_backward.h"
#include "aclnn_max_unpool3d.h"
#include "aclnn_max_unpool3d_backward.h"

#endif
