// SPDX-License-Identifier: Apache-2.0
// CANN-style sample: aclnnRoiPoolingWithArgMax (the spec's example F2: an 8x8 ramp, one ROI over
// the whole image, 2x2 bins at scale 0.5).
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "sample_utils.h"

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  std::vector<int64_t> xShape = {1, 1, 8, 8}, roisShape = {1, 5}, yShape = {1, 1, 2, 2};
  std::vector<float> xHost(64);
  for (int i = 0; i < 64; i++) xHost[i] = static_cast<float>(i);
  std::vector<float> roisHost = {0, 0, 0, 7, 7};
  std::vector<float> yHost(4, 0);
  std::vector<int32_t> argmaxHost(4, 0);
  void *xAddr = nullptr, *roisAddr = nullptr, *yAddr = nullptr, *argmaxAddr = nullptr;
  aclTensor *x = nullptr, *rois = nullptr, *y = nullptr, *argmax = nullptr;
  ret = CreateAclTensor(xHost, xShape, &xAddr, ACL_FLOAT, &x, ACL_FORMAT_ND);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(roisHost, roisShape, &roisAddr, ACL_FLOAT, &rois, ACL_FORMAT_ND);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(yHost, yShape, &yAddr, ACL_FLOAT, &y, ACL_FORMAT_ND);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(argmaxHost, yShape, &argmaxAddr, ACL_INT32, &argmax, ACL_FORMAT_ND);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  ret = aclnnRoiPoolingWithArgMaxGetWorkspaceSize(x, rois, 2, 2, 0.5f, 0.5f, y, argmax,
                                                  &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnRoiPoolingWithArgMaxGetWorkspaceSize failed. ERROR: %d\n", ret);
            return ret);
  void *workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
  }
  ret = aclnnRoiPoolingWithArgMax(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnRoiPoolingWithArgMax failed. ERROR: %d\n", ret);
            return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = aclrtMemcpy(yHost.data(), 4 * sizeof(float), yAddr, 4 * sizeof(float),
                    ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = aclrtMemcpy(argmaxHost.data(), 4 * sizeof(int32_t), argmaxAddr, 4 * sizeof(int32_t),
                    ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  for (int i = 0; i < 4; i++)
    LOG_PRINT("y[%d] is: %f, argmax[%d] is: %d\n", i, yHost[i], i, argmaxHost[i]);

  aclDestroyTensor(x);
  aclDestroyTensor(rois);
  aclDestroyTensor(y);
  aclDestroyTensor(argmax);
  aclrtFree(xAddr);
  aclrtFree(roisAddr);
  aclrtFree(yAddr);
  aclrtFree(argmaxAddr);
  if (workspaceSize > 0) aclrtFree(workspaceAddr);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
