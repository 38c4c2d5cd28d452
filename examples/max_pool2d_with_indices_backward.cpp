// SPDX-License-Identifier: Apache-2.0
// CANN-style sample: aclnnMaxPool2dWithIndices, then aclnnMaxPool2dWithIndicesBackward on its
// indices (the worked example of CANN's sample program).
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "sample_utils.h"

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  std::vector<int64_t> selfShape = {1, 1, 4, 3};
  std::vector<int64_t> outShape = {1, 1, 2, 1};
  std::vector<float> selfHost = {0.0850, -0.5147, -0.0212, -0.5654, -0.3222, 0.5847,
                                 1.7510, 0.9954,  0.1842,  0.8392,  0.4835,  0.9213};
  std::vector<float> outHost(2, 0), gradOutHost = {0.4757, 0.1726}, gradInHost(12, 0);
  std::vector<int32_t> indicesHost(2, 0);
  void *selfAddr = nullptr, *outAddr = nullptr, *indicesAddr = nullptr, *gradOutAddr = nullptr,
       *gradInAddr = nullptr;
  aclTensor *self = nullptr, *out = nullptr, *indices = nullptr, *gradOut = nullptr,
            *gradIn = nullptr;
  ret = CreateAclTensor(selfHost, selfShape, &selfAddr, ACL_FLOAT, &self);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(outHost, outShape, &outAddr, ACL_FLOAT, &out);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(indicesHost, outShape, &indicesAddr, ACL_INT32, &indices);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(gradOutHost, outShape, &gradOutAddr, ACL_FLOAT, &gradOut);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(gradInHost, selfShape, &gradInAddr, ACL_FLOAT, &gradIn);
  CHECK_RET(ret == ACL_SUCCESS, return ret);

  std::vector<int64_t> kernelDims = {2, 2}, strideDims = {2, 2}, paddingDims = {0, 0},
                       dilationDims = {1, 1};
  aclIntArray *kernelSize = aclCreateIntArray(kernelDims.data(), 2);
  aclIntArray *stride = aclCreateIntArray(strideDims.data(), 2);
  aclIntArray *padding = aclCreateIntArray(paddingDims.data(), 2);
  aclIntArray *dilation = aclCreateIntArray(dilationDims.data(), 2);

  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  ret = aclnnMaxPool2dWithIndicesGetWorkspaceSize(self, kernelSize, stride, padding, dilation,
                                                  false, out, indices, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnMaxPool2dWithIndicesGetWorkspaceSize failed. ERROR: %d\n", ret);
            return ret);
  void *workspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  ret = aclnnMaxPool2dWithIndices(workspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMaxPool2dWithIndices failed. ERROR: %d\n", ret);
            return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret);
            return ret);
  ret = aclrtMemcpy(indicesHost.data(), indicesHost.size() * sizeof(int32_t), indicesAddr,
                    indicesHost.size() * sizeof(int32_t), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  for (size_t i = 0; i < indicesHost.size(); i++)
    LOG_PRINT("indices[%zu] is: %d\n", i, indicesHost[i]);

  ret = aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gradOut, self, indices, kernelSize,
                                                          stride, padding, dilation, false, gradIn,
                                                          &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize failed. ERROR: %d\n", ret);
            return ret);
  // The backward asks for its own workspace.
  void *bwdWorkspaceAddr = nullptr;
  if (workspaceSize > 0) {
    ret = aclrtMalloc(&bwdWorkspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret);
              return ret);
  }
  ret = aclnnMaxPool2dWithIndicesBackward(bwdWorkspaceAddr, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnMaxPool2dWithIndicesBackward failed. ERROR: %d\n", ret);
            return ret);
  ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = aclrtMemcpy(gradInHost.data(), gradInHost.size() * sizeof(float), gradInAddr,
                    gradInHost.size() * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  for (size_t i = 0; i < gradInHost.size(); i++)
    LOG_PRINT("result[%zu] is: %f\n", i, gradInHost[i]);

  aclDestroyTensor(self);
  aclDestroyTensor(out);
  aclDestroyTensor(indices);
  aclDestroyTensor(gradOut);
  aclDestroyTensor(gradIn);
  aclDestroyIntArray(kernelSize);
  aclDestroyIntArray(stride);
  aclDestroyIntArray(padding);
  aclDestroyIntArray(dilation);
  aclrtFree(selfAddr);
  aclrtFree(outAddr);
  aclrtFree(indicesAddr);
  aclrtFree(gradOutAddr);
  aclrtFree(gradInAddr);
  if (workspaceAddr) aclrtFree(workspaceAddr);
  if (bwdWorkspaceAddr) aclrtFree(bwdWorkspaceAddr);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
