// SPDX-License-Identifier: Apache-2.0
// Product profiles (spec/products.md): every row of the tables, under each profile.
#include <cstdlib>

#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "test_util.h"

using namespace pgtest;

namespace {

const char *kBwd = "aclnnMaxPool2dWithIndicesBackward";
const char *kFwd = "aclnnMaxPool2dWithIndices";

struct Bwd {
  aclnnStatus call(aclDataType dt, aclDataType idt, aclFormat fmt, std::vector<int64_t> dil) {
    const bool nhwc = fmt == ACL_FORMAT_NHWC;
    const int64_t ho = dil[0] == 1 ? 2 : 1;
    std::vector<int64_t> in =
        nhwc ? std::vector<int64_t>{1, 4, 4, 2} : std::vector<int64_t>{1, 2, 4, 4};
    std::vector<int64_t> out =
        nhwc ? std::vector<int64_t>{1, ho, ho, 2} : std::vector<int64_t>{1, 2, ho, ho};
    HostTensor gy(out, dt, fmt), self(in, dt, fmt), idx(out, idt, fmt), gx(in, dt, fmt);
    for (int64_t i = 0; i < idx.numel(); ++i) {
      idx.set_int(i, (i * 5) % 16);
      gy.set(i, static_cast<float>(i) - 3.5f);
    }
    IntArray k({2}), s({2}), p({0}), d(dil);
    uint64_t ws;
    aclOpExecutor *ex;
    aclnnStatus st = aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(
        gy.t(), self.t(), idx.t(), k, s, p, d, false, gx.t(), &ws, &ex);
    if (st == ACLNN_SUCCESS) {
      st = aclnnMaxPool2dWithIndicesBackward(pgtest::workspace(ws), ws, ex, nullptr);
      values = gx.values();
    }
    return st;
  }
  std::vector<float> values;
};

aclnnStatus fwd(aclDataType dt, aclDataType idt, aclFormat fmt, std::vector<int64_t> dil) {
  const bool nhwc = fmt == ACL_FORMAT_NHWC;
  const int64_t ho = dil[0] == 1 ? 2 : 1;
  HostTensor x(nhwc ? std::vector<int64_t>{1, 4, 4, 2} : std::vector<int64_t>{1, 2, 4, 4}, dt, fmt);
  std::vector<int64_t> od =
      nhwc ? std::vector<int64_t>{1, ho, ho, 2} : std::vector<int64_t>{1, 2, ho, ho};
  HostTensor out(od, dt, fmt), idx(od, idt, fmt);
  IntArray k({2}), s({2}), p({0}), d(dil);
  uint64_t ws;
  aclOpExecutor *ex;
  aclnnStatus st = aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(),
                                                             idx.t(), &ws, &ex);
  if (st == ACLNN_SUCCESS) st = aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr);
  return st;
}

TEST(Profiles, UnknownSocMakesAclInitFail) {
  setenv("POOLGRAD_SOC", "Ascend310P", 1);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_INVALID_PARAM);
  const std::string m = last_msg();
  EXPECT_NE(m.find("Ascend310P"), std::string::npos) << m;
  EXPECT_NE(m.find("Ascend950, Ascend910B, Ascend910_93"), std::string::npos) << m;
  unsetenv("POOLGRAD_SOC");
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(Profiles, Ascend950AcceptsTheWidestLine) {
  Profile prof("Ascend950");
  Bwd b;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (aclDataType idt : {ACL_INT32, ACL_INT64}) {
      EXPECT_EQ(b.call(dt, idt, ACL_FORMAT_NCHW, {1}), ACLNN_SUCCESS) << last_msg();
      EXPECT_EQ(fwd(dt, idt, ACL_FORMAT_NCHW, {1}), ACLNN_SUCCESS) << last_msg();
    }
  EXPECT_EQ(b.call(ACL_FLOAT, ACL_INT64, ACL_FORMAT_NHWC, {1}), ACLNN_SUCCESS) << last_msg();
  EXPECT_EQ(b.call(ACL_FLOAT, ACL_INT64, ACL_FORMAT_NCHW, {2, 1}),
            ACLNN_ERR_PARAM_INVALID);  // shape, not profile
  last_msg();
  EXPECT_EQ(b.call(ACL_FLOAT, ACL_INT64, ACL_FORMAT_NCHW, {3}), ACLNN_SUCCESS) << last_msg();
  EXPECT_EQ(fwd(ACL_FLOAT, ACL_INT64, ACL_FORMAT_NCHW, {3}), ACLNN_SUCCESS) << last_msg();
  EXPECT_EQ(fwd(ACL_FLOAT, ACL_INT64, ACL_FORMAT_NHWC, {1}), ACLNN_SUCCESS) << last_msg();
}

class A2A3 : public ::testing::TestWithParam<const char *> {};

TEST_P(A2A3, MaxPoolBackwardRules) {
  const std::string soc = GetParam();
  Profile prof(GetParam());
  Bwd b;
  EXPECT_EQ(b.call(ACL_FLOAT, ACL_INT32, ACL_FORMAT_NCHW, {1}), ACLNN_SUCCESS) << last_msg();
  for (aclDataType dt : {ACL_FLOAT16, ACL_BF16})
    EXPECT_STATUS_MSG(b.call(dt, ACL_INT32, ACL_FORMAT_NCHW, {1}), ACLNN_ERR_PARAM_INVALID, kBwd,
                      "is not supported on " + soc + " (FLOAT only)");
  EXPECT_STATUS_MSG(b.call(ACL_FLOAT, ACL_INT64, ACL_FORMAT_NCHW, {1}), ACLNN_ERR_PARAM_INVALID,
                    kBwd, "indices dtype INT64 is not supported on " + soc + " (INT32 only)");
  // INT8 (CANN's mask layout) is aclnnMaxPool2dWithMaskBackward's (docs/compatibility.md).
  EXPECT_STATUS_MSG(b.call(ACL_FLOAT, ACL_INT8, ACL_FORMAT_NCHW, {1}), ACLNN_ERR_PARAM_INVALID,
                    kBwd, "indices dtype must be INT32 or INT64, but got INT8");
  EXPECT_STATUS_MSG(b.call(ACL_FLOAT, ACL_INT32, ACL_FORMAT_NCHW, {3}), ACLNN_ERR_PARAM_INVALID,
                    kBwd, "dilation must be 1 on both axes on " + soc);
  EXPECT_STATUS_MSG(b.call(ACL_FLOAT, ACL_INT32, ACL_FORMAT_NHWC, {1}), ACLNN_ERR_PARAM_INVALID,
                    kBwd, "format NHWC is not supported on " + soc);
  for (aclFormat f : {ACL_FORMAT_ND, ACL_FORMAT_NCL, ACL_FORMAT_HWCN})
    EXPECT_EQ(b.call(ACL_FLOAT, ACL_INT32, f, {1}), ACLNN_SUCCESS) << last_msg();
}

TEST_P(A2A3, MaxPoolForwardRules) {
  const std::string soc = GetParam();
  Profile prof(GetParam());
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (aclDataType idt : {ACL_INT32, ACL_INT64})
      EXPECT_EQ(fwd(dt, idt, ACL_FORMAT_NCHW, {1}), ACLNN_SUCCESS) << last_msg();
  EXPECT_STATUS_MSG(fwd(ACL_FLOAT, ACL_INT64, ACL_FORMAT_NCHW, {3}), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "dilation must be 1 on both axes on " + soc);
  EXPECT_STATUS_MSG(fwd(ACL_FLOAT, ACL_INT64, ACL_FORMAT_NHWC, {1}), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "format NHWC is not supported on " + soc);
  // D18: NHWC with k1 s1, whose output shape read as NCHW equals the NHWC one (CANN's A2/A3 shape
  // check then passes): still refused, as CANN's documentation says.
  HostTensor x({1, 4, 4, 2}, ACL_FLOAT, ACL_FORMAT_NHWC),
      out({1, 4, 4, 2}, ACL_FLOAT, ACL_FORMAT_NHWC), idx({1, 4, 4, 2}, ACL_INT64, ACL_FORMAT_NHWC);
  IntArray k1({1}), s1({1}), p0({0}), d1({1});
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k1, s1, p0, d1, false, out.t(),
                                                              idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "format NHWC is not supported on " + soc);
}

TEST_P(A2A3, RoiPoolingIsNotAvailable) {
  const std::string soc = GetParam();
  Profile prof(GetParam());
  HostTensor x({1, 1, 4, 4}, ACL_FLOAT, ACL_FORMAT_ND), rois({1, 5}, ACL_FLOAT, ACL_FORMAT_ND),
      y({1, 1, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND), am({1, 1, 2, 2}, ACL_INT32, ACL_FORMAT_ND);
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_STATUS_MSG(aclnnRoiPoolingWithArgMaxGetWorkspaceSize(x.t(), rois.t(), 2, 2, 1, 1, y.t(),
                                                              am.t(), &ws, &ex),
                    ACLNN_ERR_RUNTIME_ERROR, "aclnnRoiPoolingWithArgMax",
                    "not available on " + soc);
  EXPECT_STATUS_MSG(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(y.t(), x.t(), rois.t(), am.t(), 2,
                                                                  2, 1.0, &ws, &ex),
                    ACLNN_ERR_RUNTIME_ERROR, "aclnnRoiPoolingGradWithArgMax",
                    "not available on " + soc);
  // The workspaceSize/executor null check still comes first.
  EXPECT_EQ(aclnnRoiPoolingWithArgMaxGetWorkspaceSize(x.t(), rois.t(), 2, 2, 1, 1, y.t(), am.t(),
                                                      nullptr, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(y.t(), x.t(), rois.t(), am.t(), 2, 2, 1.0,
                                                          &ws, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  last_msg();
}

INSTANTIATE_TEST_SUITE_P(Products, A2A3, ::testing::Values("Ascend910B", "Ascend910_93"));

TEST(Profiles, SameNumbersUnderEveryProfileThatAccepts) {
  std::vector<float> first;
  for (const char *soc : {"Ascend950", "Ascend910B", "Ascend910_93"}) {
    Profile prof(soc);
    Bwd b;
    ASSERT_EQ(b.call(ACL_FLOAT, ACL_INT32, ACL_FORMAT_NCHW, {1}), ACLNN_SUCCESS) << last_msg();
    if (first.empty())
      first = b.values;
    else
      EXPECT_EQ(b.values, first);
  }
}

}  // namespace
