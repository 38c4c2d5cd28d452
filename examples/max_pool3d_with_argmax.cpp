// SPDX-License-Identifier: Apache-2.0
// CANN-style sample: aclnnMaxPool3dWithArgmax on a 4x4x4 volume (2x2x2 windows at stride 2), then
// aclnnMaxPool3dWithArgmaxBackward on its indices. INT32 indices, which every product takes.
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_ops_nn.h"
#include "sample_utils.h"

static void *AllocWorkspace(uint64_t size) {
  void *addr = nullptr;
  if (size > 0 && aclrtMalloc(&addr, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
    return nullptr;
  return addr;
}

int main() {
  int32_t deviceId = 0;
  aclrtStream stream;
  auto ret = Init(deviceId, &stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

  std::vector<int64_t> selfShape = {1, 1, 4, 4, 4}, outShape = {1, 1, 2, 2, 2};
  std::vector<float> selfHost(64), outHost(8, 0), gradOutHost = {1, 2, 3, 4, 5, 6, 7, 8},
                                                  gradInHost(64, 0);
  for (int i = 0; i < 64; ++i) selfHost[i] = static_cast<float>(i * 37 % 64);  // a permutation
  std::vector<int32_t> indicesHost(8, 0);
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
  std::vector<int64_t> two = {2, 2, 2}, zero = {0, 0, 0}, one = {1, 1, 1};
  aclIntArray *kernelSize = aclCreateIntArray(two.data(), 3),
              *stride = aclCreateIntArray(two.data(), 3),
              *padding = aclCreateIntArray(zero.data(), 3),
              *dilation = aclCreateIntArray(one.data(), 3);

  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  ret = aclnnMaxPool3dWithArgmaxGetWorkspaceSize(self, kernelSize, stride, padding, dilation, false,
                                                 out, indices, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnMaxPool3dWithArgmaxGetWorkspaceSize failed. ERROR: %d %s\n", ret,
                      aclGetRecentErrMsg());
            return ret);
  void *fwdWorkspace = AllocWorkspace(workspaceSize);
  ret = aclnnMaxPool3dWithArgmax(fwdWorkspace, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMaxPool3dWithArgmax failed. ERROR: %d\n", ret);
            return ret);
  aclrtSynchronizeStream(stream);
  aclrtMemcpy(outHost.data(), 8 * sizeof(float), outAddr, 8 * sizeof(float),
              ACL_MEMCPY_DEVICE_TO_HOST);
  aclrtMemcpy(indicesHost.data(), 8 * sizeof(int32_t), indicesAddr, 8 * sizeof(int32_t),
              ACL_MEMCPY_DEVICE_TO_HOST);
  for (size_t i = 0; i < outHost.size(); i++)
    LOG_PRINT("out[%zu] is: %f, indices[%zu] is: %d\n", i, outHost[i], i, indicesHost[i]);

  ret = aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gradOut, self, indices, kernelSize, stride,
                                                         padding, dilation, false, gradIn,
                                                         &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize failed. ERROR: %d\n", ret);
            return ret);
  void *bwdWorkspace = AllocWorkspace(workspaceSize);
  ret = aclnnMaxPool3dWithArgmaxBackward(bwdWorkspace, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnMaxPool3dWithArgmaxBackward failed. ERROR: %d\n", ret);
            return ret);
  aclrtSynchronizeStream(stream);
  aclrtMemcpy(gradInHost.data(), 64 * sizeof(float), gradInAddr, 64 * sizeof(float),
              ACL_MEMCPY_DEVICE_TO_HOST);
  for (int i = 0; i < 8; i++)  // each gradient at its window's maximum
    LOG_PRINT("gradIn[%d] is: %f\n", indicesHost[i], gradInHost[indicesHost[i]]);

  for (aclTensor *t : {self, out, indices, gradOut, gradIn}) aclDestroyTensor(t);
  for (aclIntArray *a : {kernelSize, stride, padding, dilation}) aclDestroyIntArray(a);
  for (void *p : {selfAddr, outAddr, indicesAddr, gradOutAddr, gradInAddr}) aclrtFree(p);
  if (fwdWorkspace) aclrtFree(fwdWorkspace);
  if (bwdWorkspace) aclrtFree(bwdWorkspace);
  aclrtDestroyStream(stream);
  aclrtResetDevice(deviceId);
  aclFinalize();
  return 0;
}
