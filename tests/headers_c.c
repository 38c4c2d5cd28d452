/* SPDX-License-Identifier: Apache-2.0 */
/* Compiles every public header as C99 (the test is that this file builds and runs). */
#include <stdio.h>

#include "acl/acl.h"
#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "aclnn/acl_meta.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_adaptive_max_pool2d_backward.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_max_unpool2d.h"
#include "aclnnop/aclnn_max_unpool2d_backward.h"
#include "aclnnop/aclnn_max_unpool3d.h"
#include "aclnnop/aclnn_max_unpool3d_backward.h"
#include "aclnnop/aclnn_ops_cv.h"
#include "aclnnop/aclnn_ops_nn.h"
#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "poolgrad/poolgrad.h"

int main(void) {
  int64_t dims[4] = {1, 1, 2, 2}, strides[4] = {4, 4, 2, 1};
  float data[4] = {1, 4, 3, 2};
  aclTensor *t = aclCreateTensor(dims, 4, ACL_FLOAT, strides, 0, ACL_FORMAT_NCHW, dims, 4, data);
  aclnnStatus st = aclnnMaxPool2dWithIndicesGetWorkspaceSize(NULL, NULL, NULL, NULL, NULL, false,
                                                             NULL, NULL, NULL, NULL);
  const char *msg = aclGetRecentErrMsg();
  aclnnStatus unpool = aclnnMaxUnpool2dGetWorkspaceSize(NULL, NULL, NULL, NULL, NULL, NULL);
  aclDestroyTensor(t);
  if (t == NULL || st != ACLNN_ERR_PARAM_NULLPTR || msg == NULL) return 1;
  if (unpool != ACLNN_ERR_PARAM_NULLPTR) return 1;
  printf("C headers OK: %s\n", msg);
  return 0;
}
