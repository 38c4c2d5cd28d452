// SPDX-License-Identifier: Apache-2.0
// poolgrad's DOUBLE extension (poolgradSetThreadDoubleDtype): the max-pool family in double on
// request (PyTorch's float64, gradcheck), against the naive references with values that differ
// below float32's precision; off by default, per thread, and the kernels it picks.
#include <random>
#include <thread>

#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_unpool2d_backward.h"
#include "adaptive_tester.h"
#include "maxpool_tester.h"
#include "test_util.h"
#include "volume_tester.h"

using namespace pgtest;

namespace {

const char *const kFwd = "aclnnMaxPool2dWithIndices";

TEST(DoubleExtension, MaxPool2dAgainstNaiveReference) {
  std::mt19937 rng(11);
  for (int i = 0; i < 40; ++i) {
    Cfg c = random_cfg(rng);
    c.dt = ACL_DOUBLE;
    run_case(c, rng, i % 4 == 3 ? Indices::Random : Indices::Forward);
    if (HasFailure()) return;
  }
}

TEST(DoubleExtension, MaxPool3dAndAdaptive3dAgainstNaiveReference) {
  std::mt19937 rng(12);
  for (int i = 0; i < 40; ++i) {
    VolumeCase k =
        random_volume_case(rng, i % 2 ? VolumeOp::AdaptiveMaxPool3d : VolumeOp::MaxPool3d);
    k.dt = ACL_DOUBLE;
    run_volume_case(k, rng);
    if (HasFailure()) return;
  }
}

TEST(DoubleExtension, Adaptive2dBackwardAgainstNaiveReference) {
  std::mt19937 rng(13);
  for (int i = 0; i < 20; ++i) {
    AdaptiveCase k = random_adaptive_case(rng);
    k.dt = ACL_DOUBLE;
    AdaptiveTester(k).seed(rng()).test();
    if (HasFailure()) return;
  }
}

// Off by default (CANN's lists), on only for the thread that asked, and naming its kernels.
TEST(DoubleExtension, OffByDefaultPerThreadAndNamedRows) {
  HostTensor x({1, 2, 4, 4}, ACL_DOUBLE), out({1, 2, 2, 2}, ACL_DOUBLE),
      idx({1, 2, 2, 2}, ACL_INT64);
  IntArray k({2}), s({2}), p({0}), d({1});
  uint64_t ws;
  aclOpExecutor *ex;
  const auto phase1 = [&] {
    return aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                     &ws, &ex);
  };
  EXPECT_STATUS_MSG(phase1(), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "self dtype must be FLOAT, FLOAT16 or BF16, but got DOUBLE");
  {
    const DoubleDtypeScope on(true);
    ASSERT_EQ(phase1(), ACLNN_SUCCESS) << last_msg();
    EXPECT_STREQ(poolgradGetKernelName(ex), "forward-double");
    ASSERT_EQ(aclnnMaxPool2dWithIndices(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
    aclnnStatus other = ACLNN_SUCCESS;
    std::thread([&] { other = phase1(); }).join();  // another thread: still CANN's lists
    EXPECT_EQ(other, ACLNN_ERR_PARAM_INVALID);
    // The product profiles' lists do not apply to the extension: Ascend910B's backward takes FLOAT
    // only, and DOUBLE still runs there.
    Profile a2("Ascend910B");
    HostTensor gy({1, 2, 2, 2}, ACL_DOUBLE), gx({1, 2, 4, 4}, ACL_DOUBLE),
        i32({1, 2, 2, 2}, ACL_INT32);
    ASSERT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), x.t(), i32.t(), k, s, p, d,
                                                                false, gx.t(), &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    EXPECT_STREQ(poolgradGetKernelName(ex), "backward-double");
    aclDestroyAclOpExecutor(ex);
    // MaxUnpool2d's backward (CANN lists DOUBLE only for the 3-D one).
    HostTensor ugy({1, 2, 4, 4}, ACL_DOUBLE), ux({1, 2, 2, 2}, ACL_DOUBLE),
        uout({1, 2, 2, 2}, ACL_DOUBLE);
    IntArray size({4, 4});
    ASSERT_EQ(aclnnMaxUnpool2dBackwardGetWorkspaceSize(ugy.t(), ux.t(), idx.t(), size, uout.t(),
                                                       &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    aclDestroyAclOpExecutor(ex);
  }
  EXPECT_EQ(phase1(), ACLNN_ERR_PARAM_INVALID);  // off again at the scope's end
  // 3-D: its own row.
  HostTensor x3({1, 1, 2, 4, 4}, ACL_DOUBLE, ACL_FORMAT_NCDHW),
      o3({1, 1, 1, 2, 2}, ACL_DOUBLE, ACL_FORMAT_NCDHW),
      i3({1, 1, 1, 2, 2}, ACL_INT32, ACL_FORMAT_NCDHW);
  IntArray k3({2, 2, 2}), s3({2, 2, 2}), p3({0, 0, 0}), d3({1, 1, 1});
  const DoubleDtypeScope on(true);
  ASSERT_EQ(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x3.t(), k3, s3, p3, d3, false, o3.t(), i3.t(),
                                                     &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  EXPECT_STREQ(poolgradGetKernelName(ex), "volume-forward-double");
  aclDestroyAclOpExecutor(ex);
}

}  // namespace
