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
#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
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

// RoI pooling: with values and gradients that float32 holds exactly (halves; sums of a few small
// integers), DOUBLE gives the FLOAT path's numbers and argmax (the FLOAT path is checked against
// the naive reference in test_roipool.cpp); values apart by 2^-40 pick the larger one; a bad argmax
// is reported at its position.
struct RoiRun {
  aclDataType dt;
  int64_t n = 2, c = 3, h = 9, w = 8, r = 5, ph = 3, pw = 2;
  HostTensor x{{n, c, h, w}, dt, ACL_FORMAT_ND}, rois{{r, 5}, dt, ACL_FORMAT_ND},
      y{{r, c, ph, pw}, dt, ACL_FORMAT_ND}, am{{r, c, ph, pw}, ACL_INT32, ACL_FORMAT_ND};
  HostTensor gy{{r, c, ph, pw}, dt, ACL_FORMAT_ND}, gx{{n, c, h, w}, dt, ACL_FORMAT_ND};
  explicit RoiRun(aclDataType t) : dt(t) {}
  aclnnStatus forward() {
    uint64_t ws;
    aclOpExecutor *ex;
    aclnnStatus st = aclnnRoiPoolingWithArgMaxGetWorkspaceSize(x.t(), rois.t(), ph, pw, 0.75f,
                                                               0.75f, y.t(), am.t(), &ws, &ex);
    return st ? st : aclnnRoiPoolingWithArgMax(workspace(ws), ws, ex, nullptr);
  }
  aclnnStatus backward() {
    uint64_t ws;
    aclOpExecutor *ex;
    aclnnStatus st = aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gx.t(), rois.t(), am.t(),
                                                                   ph, pw, 0.75, &ws, &ex);
    return st ? st : aclnnRoiPoolingGradWithArgMax(workspace(ws), ws, ex, nullptr);
  }
};

TEST(DoubleExtension, RoiPoolingEqualsFloatWhereFloatIsExact) {
  std::mt19937 rng(14);
  const DoubleDtypeScope on(true);
  RoiRun d(ACL_DOUBLE), f(ACL_FLOAT);
  const float box[5][5] = {
      {0, 0, 0, 7, 8}, {1, 2, 1, 6, 5}, {0, 3, 3, 3, 3}, {1, -2, -3, 20, 20}, {0, 5, 6, 2, 1}};
  for (int64_t i = 0; i < d.r * 5; ++i)
    d.rois.set_real(i, box[i / 5][i % 5]), f.rois.set(i, box[i / 5][i % 5]);
  for (int64_t i = 0; i < d.x.numel(); ++i) {
    const float v = rng() % 30 == 0 ? NAN : static_cast<float>(static_cast<int>(rng() % 9) - 4) / 2;
    d.x.set_real(i, v), f.x.set(i, v);
  }
  ASSERT_EQ(d.forward(), ACLNN_SUCCESS) << last_msg();
  ASSERT_EQ(f.forward(), ACLNN_SUCCESS) << last_msg();
  for (int64_t i = 0; i < d.y.numel(); ++i) {
    ASSERT_EQ(d.y.get_real(i), static_cast<double>(f.y.get(i))) << i;
    ASSERT_EQ(d.am.get_int(i), f.am.get_int(i)) << i;
  }
  for (int64_t i = 0; i < d.gy.numel(); ++i) {
    const float g = static_cast<float>(static_cast<int>(rng() % 7) - 3);
    d.gy.set_real(i, g), f.gy.set(i, g);
    f.am.set_int(i, d.am.get_int(i));
  }
  ASSERT_EQ(d.backward(), ACLNN_SUCCESS) << last_msg();
  ASSERT_EQ(f.backward(), ACLNN_SUCCESS) << last_msg();
  for (int64_t i = 0; i < d.gx.numel(); ++i)
    ASSERT_EQ(d.gx.get_real(i), static_cast<double>(f.gx.get(i))) << i;
  EXPECT_TRUE(d.gx.outside_view_untouched());
  // Below float32's precision: ROI 0's first bin holds 1 + k 2^-40 for k = 0..; the largest wins.
  for (int64_t i = 0; i < d.x.numel(); ++i)
    d.x.set_real(i, 1.0 + static_cast<double>(i % 7) * 0x1p-40);
  ASSERT_EQ(d.forward(), ACLNN_SUCCESS) << last_msg();
  // Bin (0, 0) of ROI 0 (0, 0, 7, 8) at scale 0.75: its end is ((7, 8) + 1) * 0.75 = (6, 6.75), so
  // bins of 6.75 / 3 rows and 6 / 2 columns: rows [0, ceil 2.25), columns [0, 3) of map (0, 0).
  int64_t want = -1;
  double best = 0;
  for (int64_t hh = 0; hh < 3; ++hh)
    for (int64_t ww = 0; ww < 3; ++ww)
      if (want < 0 || d.x.get_real(hh * d.w + ww) > best)
        best = d.x.get_real(hh * d.w + ww), want = hh * d.w + ww;
  EXPECT_EQ(d.am.get_int(0), want);
  EXPECT_EQ(d.y.get_real(0), best);
  d.am.set_int(7, d.h * d.w);  // one past the map
  EXPECT_STATUS_MSG(d.backward(), ACLNN_ERR_PARAM_INVALID, "aclnnRoiPoolingGradWithArgMax",
                    "argmax");
}

}  // namespace
