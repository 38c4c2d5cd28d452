// SPDX-License-Identifier: Apache-2.0
// CANN-style sample: aclnnMaxPool2dWithMask, then aclnnMaxPool2dWithMaskBackward on its mask: the
// pair PyTorch's Ascend plugin calls on Atlas A2/A3 (run with POOLGRAD_SOC=Ascend910B or
// Ascend910_93; on Ascend950 both calls are refused in favour of the Indices pair).
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_ops_nn.h"
#include "sample_utils.h"

// Phase 1's workspace, allocated the way CANN's samples do.
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

  // A 4x6 plane, 2x2 windows at stride 2: 2x3 outputs; the mask is [1, 1, 2*2, (ceil(6/16)+1)*32].
  std::vector<int64_t> selfShape = {1, 1, 4, 6}, outShape = {1, 1, 2, 3}, maskShape = {1, 1, 4, 64};
  std::vector<float> selfHost = {1, 9, 2, 3, 0, 4,  //
                                 5, 7, 8, 1, 6, 2,  //
                                 3, 2, 0, 4, 7, 7,  //
                                 1, 6, 5, 9, 3, 8};
  std::vector<float> outHost(6, 0), gradOutHost = {1, 2, 3, 4, 5, 6}, gradInHost(24, 0);
  std::vector<int8_t> maskHost(256, 0);
  void *selfAddr = nullptr, *outAddr = nullptr, *maskAddr = nullptr, *gradOutAddr = nullptr,
       *gradInAddr = nullptr;
  aclTensor *self = nullptr, *out = nullptr, *mask = nullptr, *gradOut = nullptr, *gradIn = nullptr;
  ret = CreateAclTensor(selfHost, selfShape, &selfAddr, ACL_FLOAT, &self);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(outHost, outShape, &outAddr, ACL_FLOAT, &out);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(maskHost, maskShape, &maskAddr, ACL_INT8, &mask);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(gradOutHost, outShape, &gradOutAddr, ACL_FLOAT, &gradOut);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  ret = CreateAclTensor(gradInHost, selfShape, &gradInAddr, ACL_FLOAT, &gradIn);
  CHECK_RET(ret == ACL_SUCCESS, return ret);
  std::vector<int64_t> two = {2, 2}, zero = {0, 0}, one = {1, 1};
  aclIntArray *kernelSize = aclCreateIntArray(two.data(), 2),
              *stride = aclCreateIntArray(two.data(), 2);
  aclIntArray *padding = aclCreateIntArray(zero.data(), 2),
              *dilation = aclCreateIntArray(one.data(), 2);

  void *fwdWorkspace = nullptr, *bwdWorkspace = nullptr;
  // Releases everything on every path (the refused call on Ascend950 included).
  auto release = [&]() {
    for (aclTensor *t : {self, out, mask, gradOut, gradIn}) aclDestroyTensor(t);
    for (aclIntArray *a : {kernelSize, stride, padding, dilation}) aclDestroyIntArray(a);
    for (void *p : {selfAddr, outAddr, maskAddr, gradOutAddr, gradInAddr}) aclrtFree(p);
    if (fwdWorkspace) aclrtFree(fwdWorkspace);
    if (bwdWorkspace) aclrtFree(bwdWorkspace);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
  };

  uint64_t workspaceSize = 0;
  aclOpExecutor *executor = nullptr;
  ret = aclnnMaxPool2dWithMaskGetWorkspaceSize(self, kernelSize, stride, padding, dilation, false,
                                               out, mask, &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnMaxPool2dWithMaskGetWorkspaceSize failed. ERROR: %d %s\n", ret,
                      aclGetRecentErrMsg());
            release(); return ret);
  fwdWorkspace = AllocWorkspace(workspaceSize);
  ret = aclnnMaxPool2dWithMask(fwdWorkspace, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMaxPool2dWithMask failed. ERROR: %d\n", ret);
            return ret);
  aclrtSynchronizeStream(stream);
  aclrtMemcpy(outHost.data(), 6 * sizeof(float), outAddr, 6 * sizeof(float),
              ACL_MEMCPY_DEVICE_TO_HOST);
  aclrtMemcpy(maskHost.data(), 256, maskAddr, 256, ACL_MEMCPY_DEVICE_TO_HOST);
  for (size_t i = 0; i < outHost.size(); i++) {
    int32_t index;  // the mask's first bytes: one little-endian int32 flat index per output
    std::memcpy(&index, maskHost.data() + 4 * i, 4);
    LOG_PRINT("out[%zu] is: %f, mask index[%zu] is: %d\n", i, outHost[i], i, index);
  }

  ret = aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(gradOut, self, mask, kernelSize, stride,
                                                       padding, dilation, false, gradIn,
                                                       &workspaceSize, &executor);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize failed. ERROR: %d\n", ret);
            return ret);
  bwdWorkspace = AllocWorkspace(workspaceSize);
  ret = aclnnMaxPool2dWithMaskBackward(bwdWorkspace, workspaceSize, executor, stream);
  CHECK_RET(ret == ACL_SUCCESS,
            LOG_PRINT("aclnnMaxPool2dWithMaskBackward failed. ERROR: %d\n", ret);
            return ret);
  aclrtSynchronizeStream(stream);
  aclrtMemcpy(gradInHost.data(), 24 * sizeof(float), gradInAddr, 24 * sizeof(float),
              ACL_MEMCPY_DEVICE_TO_HOST);
  for (size_t i = 0; i < gradInHost.size(); i++)
    LOG_PRINT("gradIn[%zu] is: %f\n", i, gradInHost[i]);

  release();
  return 0;
}
