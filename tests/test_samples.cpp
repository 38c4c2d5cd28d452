// SPDX-License-Identifier: Apache-2.0
// What CANN's public sample programs for these APIs do, rewritten as tests (no sample code is
// used): device memory from aclrtMalloc sized by the sample's host vectors, copies in and out
// with aclrtMemcpy, phase 1 and 2 on a stream, the results the sample prints.
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_adaptive_max_pool2d_backward.h"
#include "aclnnop/aclnn_adaptive_max_pool3d.h"
#include "test_util.h"

using namespace pgtest;

namespace {

// A contiguous tensor over device memory of `bytes` (which may be less than the shape needs, as
// in the sample), filled from host.
template <class T>
aclTensor *device_tensor(const std::vector<T> &host, const std::vector<int64_t> &shape,
                         aclDataType dt, void **dev) {
  const size_t bytes = host.size() * sizeof(T);
  EXPECT_EQ(aclrtMalloc(dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(*dev, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  const std::vector<int64_t> strides = contiguous_strides(shape);
  return aclCreateTensor(shape.data(), shape.size(), dt, strides.data(), 0, ACL_FORMAT_ND,
                         shape.data(), shape.size(), *dev);
}

// The adaptive 3-D sample: its output buffers hold 4 values for an 8-value output (1x2x1x2x2),
// and it reads 8 floats and 8 int64 back from the 16-byte indices buffer. It works on the NPU
// because aclrtMalloc pads to 32 bytes and adds 32; it failed here with 100000 before poolgrad's
// aclrtMalloc did the same.
TEST(CannSamples, AdaptiveMaxPool3dWithTheSamplesBufferSizes) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream stream;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::vector<float> x(24);
  for (int i = 0; i < 24; ++i) x[i] = static_cast<float>(i);
  x[4] = 4.1f;
  void *dx, *dout, *didx;
  aclTensor *self = device_tensor(x, {1, 2, 1, 3, 4}, ACL_FLOAT, &dx);
  aclTensor *out = device_tensor(std::vector<float>(4), {1, 2, 1, 2, 2}, ACL_FLOAT, &dout);
  aclTensor *idx = device_tensor(std::vector<int32_t>(4), {1, 2, 1, 2, 2}, ACL_INT32, &didx);
  const int64_t sizes[] = {1, 2, 2};
  aclIntArray *os = aclCreateIntArray(sizes, 3);
  uint64_t ws = 0;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnAdaptiveMaxPool3dGetWorkspaceSize(self, os, out, idx, &ws, &ex), ACLNN_SUCCESS)
      << last_msg();
  void *work = nullptr;
  if (ws > 0) {
    ASSERT_EQ(aclrtMalloc(&work, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  ASSERT_EQ(aclnnAdaptiveMaxPool3d(work, ws, ex, stream), ACLNN_SUCCESS) << last_msg();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  std::vector<float> got(8);
  std::vector<int64_t> got_idx(8);
  ASSERT_EQ(aclrtMemcpy(got.data(), 32, dout, 32, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS)
      << last_msg();
  ASSERT_EQ(aclrtMemcpy(got_idx.data(), 64, didx, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS)
      << last_msg();
  // Bins of the 3x4 plane: rows [0,2) and [1,3), columns [0,2) and [2,4): maxima at 5, 7, 9, 11.
  EXPECT_EQ(got, (std::vector<float>{5, 7, 9, 11, 17, 19, 21, 23}));
  int32_t idx32[8];
  std::memcpy(idx32, got_idx.data(), 32);  // the INT32 indices the sample reads as int64
  EXPECT_EQ(std::vector<int32_t>(idx32, idx32 + 8),
            (std::vector<int32_t>{5, 7, 9, 11, 5, 7, 9, 11}));
  aclDestroyTensor(self);
  aclDestroyTensor(out);
  aclDestroyTensor(idx);
  aclDestroyIntArray(os);
  for (void *p : {dx, dout, didx}) EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
  if (work) {
    EXPECT_EQ(aclrtFree(work), ACL_SUCCESS);
  }
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

// The adaptive 2-D backward sample, on the default product (Ascend950): a 3x2 plane pooled to
// 2x1, indices 1 and 4, INT32.
TEST(CannSamples, AdaptiveMaxPool2dBackwardOnAscend950) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_STREQ(aclrtGetSocName(), "Ascend950");
  void *dgy, *dx, *didx, *dgx;
  aclTensor *gy =
      device_tensor(std::vector<float>{0.4757f, 0.8231f}, {1, 1, 2, 1}, ACL_FLOAT, &dgy);
  aclTensor *x =
      device_tensor(std::vector<float>{0.0850f, -0.5147f, -0.0212f, -0.5654f, 0.1234f, -0.6789f},
                    {1, 1, 3, 2}, ACL_FLOAT, &dx);
  aclTensor *idx = device_tensor(std::vector<int32_t>{1, 4}, {1, 1, 2, 1}, ACL_INT32, &didx);
  aclTensor *gx = device_tensor(std::vector<float>(6), {1, 1, 3, 2}, ACL_FLOAT, &dgx);
  uint64_t ws = 0;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(gy, x, idx, gx, &ws, &ex), ACLNN_SUCCESS)
      << last_msg();
  ASSERT_EQ(aclnnAdaptiveMaxPool2dBackward(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS)
      << last_msg();
  std::vector<float> got(6);
  ASSERT_EQ(aclrtMemcpy(got.data(), 24, dgx, 24, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(got, (std::vector<float>{0, 0.4757f, 0, 0, 0.8231f, 0}));
  for (aclTensor *t : {gy, x, idx, gx}) aclDestroyTensor(t);
  for (void *p : {dgy, dx, didx, dgx}) EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

}  // namespace
