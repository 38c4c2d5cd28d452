// SPDX-License-Identifier: Apache-2.0
// CANN-style sample: aclnnRoiPoolingGradWithArgMax (the spec's example B1).
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "sample_utils.h"

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  std::vector<int64_t> gradOutputShape = {1, 32, 2, 2};
  std::vector<int64_t> roisShape = {1, 5};
  std::vector<int64_t> argmaxShape = {1, 32, 2, 2};
  std::vector<int64_t> gradInputShape = {4, 32, 3, 3};
  std::vector<float> gradOutputHost(GetShapeSize(gradOutputShape), 1.0f);
  std::vector<float> roisHost = {0, 0, 1, 0, 1};
  std::vector<int32_t> argmaxHost(GetShapeSize(argmaxShape), 3);
  std::vector<float> gradInputHost(GetShapeSize(gradInputShape), 1.0f);
  void *gradOutputAddr = nullptr, *roisAddr = nullptr, *argmaxAddr = nullptr,
       *gradInputAddr = nullptr;
  aclTensor *gradOutput = nullptr, *rois = nullptr, *argmax = nullptr, *gradInput = nullptr;
  ret = CreateAclTensor(gradOutputHost, gradOutputShape, &gradOutputAddr, ACL_FLOAT, &gradOutput,
                        ACL_FORMAT_ND);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(roisHost, roisShape, &roisAddr, ACL_FLOAT, &rois, ACL_FORMAT_ND);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(argmaxHost, argmaxShape, &argmaxAddr, ACL_INT32, &argmax, ACL_FORMAT_ND);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(gradInputHost, gradInputShape, &gradInputAddr, ACL_FLOAT, &gradInput,
                        ACL_FORMAT_ND);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  int64_t pooledH = 2, pooledW = 2;
  double spatialScale = 1.0;
  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  ret = aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gradOutput, gradInput, rois, argmax, pooledH,
                                                      pooledW, spatialScale, &workspaceSize,
                                                      &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize failed. ERROR: %d\n", ret);
            return ret);
  void *workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  ret = aclnnRoiPoolingGradWithArgMax(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnRoiPoolingGradWithArgMax failed. ERROR: %d\n", ret);
            return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);

  auto size = GetShapeSize(gradInputShape);
  std::vector<float> resultData(size, 0);
  ret = aclrtMemcpy(resultData.data(), resultData.size() * sizeof(resultData[0]), gradInputAddr,
                    size * sizeof(resultData[0]), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret);
            return ret);
  // Batch 0, channels 0 and 31: flat 3 of each 3x3 plane is (h=1, w=0).
  for (int64_t c : {0, 31})
    for (int64_t i = 0; i < 9; i++)
      LOG_PRINT("gradInput[0,%ld,%ld,%ld] is: %f\n", static_cast<long>(c), static_cast<long>(i / 3),
                static_cast<long>(i % 3), resultData[c * 9 + i]);
  double total = 0;
  for (float v : resultData) total += v;
  LOG_PRINT("sum of gradInput is: %f\n", total);

  aclDestroyTensor(gradOutput);
  aclDestroyTensor(rois);
  aclDestroyTensor(argmax);
  aclDestroyTensor(gradInput);
  aclrtFree(gradOutputAddr);
  aclrtFree(roisAddr);
  aclrtFree(argmaxAddr);
  aclrtFree(gradInputAddr);
  if (workspaceSize > 0) aclrtFree(workspaceAddr);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
