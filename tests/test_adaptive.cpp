// SPDX-License-Identifier: Apache-2.0
// aclnnAdaptiveMaxPool2d / aclnnAdaptiveMaxPool2dBackward: random cases against an independent
// naive reference (overlapping bins, ties, NaN, 3-D, NHWC, strided views, float16/bfloat16, several
// thread counts), CANN's sample, the validation rules and the product rules.
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_adaptive_max_pool2d_backward.h"
#include "adaptive_tester.h"
#include "poolgrad/poolgrad.h"
#include "test_util.h"

using namespace pgtest;

namespace {

const char *kFwd = "aclnnAdaptiveMaxPool2d";
const char *kBwd = "aclnnAdaptiveMaxPool2dBackward";

TEST(AdaptiveMaxPool, RandomAgainstNaiveReference) {
  AdaptiveTester().test();                                                  // CANN's sample shape
  AdaptiveTester().batch(2).channels(3).input(37, 37).output(7, 7).test();  // overlapping bins
  AdaptiveTester().batch(2).channels(4).input(40, 40).output(1, 1).test();  // global (CBAM)
  AdaptiveTester().channels(2).input(5, 7).output(9, 11).test();  // more outputs than inputs
  AdaptiveTester().batch(2).channels(20).input(13, 9).output(4, 3).nhwc(true).test();
  AdaptiveTester().channels(3).input(11, 6).output(5, 4).dtype(ACL_FLOAT16).rank3(true).test();
  AdaptiveTester()
      .batch(2)
      .channels(2)
      .input(9, 10)
      .output(4, 3)
      .dtype(ACL_BF16)
      .strided(true)
      .threads(3)
      .test();
  if (HasFatalFailure()) return;
  std::mt19937 rng(16);
  for (int i = 0; i < 80; ++i) {
    AdaptiveTester(random_adaptive_case(rng)).seed(rng()).test();
    if (HasFailure()) return;
  }
}

TEST(AdaptiveMaxPool, CannSample) {
  HostTensor x({1, 1, 4, 4}, ACL_FLOAT), out({1, 1, 2, 2}, ACL_FLOAT), idx({1, 1, 2, 2}, ACL_INT64);
  for (int64_t i = 0; i < 16; ++i) x.set(i, static_cast<float>(i));
  IntArray os({2, 2});
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t(), os, out.t(), idx.t(), &ws, &ex),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclnnAdaptiveMaxPool2d(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
  const int64_t want[] = {5, 7, 13, 15};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(out.get(i), static_cast<float>(want[i]));
    EXPECT_EQ(idx.get_int(i), want[i]);
  }
}

TEST(AdaptiveMaxPool, ValidationAndProducts) {
  HostTensor x({2, 3, 8, 8}, ACL_FLOAT), out({2, 3, 2, 2}, ACL_FLOAT), idx({2, 3, 2, 2}, ACL_INT64),
      i32({2, 3, 2, 2}, ACL_INT32), xd({2, 3, 8, 8}, ACL_DOUBLE), bad({2, 3, 3, 2}, ACL_FLOAT),
      gy({2, 3, 2, 2}, ACL_FLOAT), gx({2, 3, 8, 8}, ACL_FLOAT);
  IntArray os({2, 2}), os3({2, 2, 2}), os0({0, 2});
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_STATUS_MSG(
      aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t(), nullptr, out.t(), idx.t(), &ws, &ex),
      ACLNN_ERR_PARAM_NULLPTR, kFwd, "outputSize");
  // DOUBLE is accepted (D4); its output must be DOUBLE too.
  EXPECT_STATUS_MSG(aclnnAdaptiveMaxPool2dGetWorkspaceSize(xd.t(), os, out.t(), idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "outputOut dtype must equal self dtype DOUBLE");
  EXPECT_STATUS_MSG(aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t(), os, out.t(), i32.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "indicesOut dtype must be INT64");
  EXPECT_STATUS_MSG(aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t(), os3, out.t(), idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "outputSize must have length 2");
  EXPECT_STATUS_MSG(aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t(), os0, out.t(), idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "outputSize must be > 0");
  // CANN's order: outputOut = indicesOut first, then the outputs against self.
  EXPECT_STATUS_MSG(aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t(), os, bad.t(), idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "indicesOut shape must be [2,3,3,2]");
  {
    HostTensor idx_bad({2, 3, 3, 2}, ACL_INT64);
    EXPECT_STATUS_MSG(
        aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t(), os, bad.t(), idx_bad.t(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, kFwd, "outputOut shape must be [2,3,2,2]");
  }
  // The backward: on every product (CANN's op_api has no product check; its doc lists Ascend 950);
  // indices INT32 or INT64, checked in phase 2 like every index; the four formats equal.
  ASSERT_EQ(
      aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), gx.t(), &ws, &ex),
      ACLNN_SUCCESS)
      << last_msg();
  ASSERT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
  {
    HostTensor idx_nd(idx.dims(), ACL_INT64, ACL_FORMAT_ND);
    EXPECT_STATUS_MSG(
        aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(gy.t(), x.t(), idx_nd.t(), gx.t(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, kBwd, "indices format ND must equal self format NCHW");
  }
  Profile a2("Ascend910_93");
  for (int64_t i = 0; i < i32.numel(); ++i) i32.set_int(i, i % 64);
  i32.set_int(5, 64);
  ASSERT_EQ(
      aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(gy.t(), x.t(), i32.t(), gx.t(), &ws, &ex),
      ACLNN_SUCCESS)
      << last_msg();
  EXPECT_STATUS_MSG(aclnnAdaptiveMaxPool2dBackward(workspace(ws), ws, ex, nullptr),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "indices[0,1,0,1]=64");
  EXPECT_TRUE(gx.guards_intact());
  HostTensor gbad({2, 3, 8, 8}, ACL_FLOAT16);
  EXPECT_STATUS_MSG(
      aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), gbad.t(), &ws, &ex),
      ACLNN_ERR_PARAM_INVALID, kBwd, "gradInput dtype must equal self dtype");
}

// D4: DOUBLE, compared in double (values that are equal in float32 but not in double), against
// the naive reference; NaN and ties; NHWC and strided views.
TEST(AdaptiveMaxPool, DoubleAgainstNaiveReference) {
  std::mt19937 rng(4);
  for (int i = 0; i < 30; ++i) {
    AdaptiveCase k = random_adaptive_case(rng);
    k.dt = ACL_DOUBLE;
    AdaptiveTester(k).seed(rng()).test();
    if (HasFailure()) return;
  }
}

// D5: an empty batch succeeds before the outputs are compared with self (only outputOut =
// indicesOut is checked); D6: the outputs' formats need not equal self's.
TEST(AdaptiveMaxPool, EmptyBatchAndOutputFormats) {
  IntArray os({2, 2});
  uint64_t ws;
  aclOpExecutor *ex;
  {
    HostTensor x({0, 3, 8, 8}, ACL_FLOAT), out({0, 3, 5, 5}, ACL_FLOAT),
        idx({0, 3, 5, 5}, ACL_INT64), idx_bad({0, 3, 5, 4}, ACL_INT64);
    ASSERT_EQ(aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t(), os, out.t(), idx.t(), &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    EXPECT_EQ(ws, 0u);
    ASSERT_EQ(aclnnAdaptiveMaxPool2d(nullptr, 0, ex, nullptr), ACLNN_SUCCESS);
    EXPECT_STATUS_MSG(
        aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t(), os, out.t(), idx_bad.t(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, kFwd, "indicesOut shape must be [0,3,5,5]");
  }
  {
    HostTensor x({1, 2, 4, 4}, ACL_FLOAT), out({1, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND),
        idx({1, 2, 2, 2}, ACL_INT64, ACL_FORMAT_NHWC),
        pout({1, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_NC1HWC0);
    for (int64_t i = 0; i < 32; ++i) x.set(i, static_cast<float>(i % 16));
    ASSERT_EQ(aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t(), os, out.t(), idx.t(), &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    ASSERT_EQ(aclnnAdaptiveMaxPool2d(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
    // self's layout (NCHW) decides: plane 1's bin (1, 1) holds 15 at 15.
    EXPECT_EQ(out.get(7), 15.0f);
    EXPECT_EQ(idx.get_int(7), 15);
    // D7: private formats stay refused (the docs list NCHW, NCL, NHWC).
    EXPECT_STATUS_MSG(
        aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t(), os, pout.t(), idx.t(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, kFwd, "outputOut format must be a public format");
    HostTensor px({1, 2, 4, 4}, ACL_FLOAT, ACL_FORMAT_NC1HWC0);
    EXPECT_STATUS_MSG(
        aclnnAdaptiveMaxPool2dGetWorkspaceSize(px.t(), os, out.t(), idx.t(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, kFwd, "self format must be a public format");
  }
}

}  // namespace
