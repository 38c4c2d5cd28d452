// SPDX-License-Identifier: Apache-2.0
// aclnnMaxPool3dWithArgmax(Backward) and aclnnAdaptiveMaxPool3d(Backward): random cases against an
// independent naive reference (ceil mode, padding, dilation, empty windows, overlapping bins, ties,
// NaN, 4-D and 5-D, NDHWC, strided views, float16 / bfloat16, INT32 / INT64 indices, empty
// batches, 1-3 threads), CANN's sample, the validation cascades and the product rules.
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "aclnnop/aclnn_adaptive_max_pool3d.h"
#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "poolgrad/poolgrad.h"
#include "test_util.h"
#include "volume_tester.h"

using namespace pgtest;

namespace {

const char *kFwd = "aclnnMaxPool3dWithArgmax";
const char *kBwd = "aclnnMaxPool3dWithArgmaxBackward";
const char *kAFwd = "aclnnAdaptiveMaxPool3d";
const char *kABwd = "aclnnAdaptiveMaxPool3dBackward";

TEST(MaxPool3d, RandomAgainstNaiveReference) {
  // The benchmark's shape, smaller (k3 s2 p1); dilation 5 with padding 1 (each window's second
  // tap past the input); ceil mode with an extra window.
  VolumeTester().batch(2).channels(3).input(6, 11, 12).kernel(3).stride(2).padding(1).test();
  VolumeTester()
      .batch(2)
      .channels(3)
      .input(5, 5, 5)
      .kernel(2)
      .stride(2)
      .padding(1)
      .dilation(5)
      .seed(2)
      .test();
  VolumeTester()
      .batch(2)
      .channels(3)
      .input(6, 11, 10)
      .kernel(3)
      .stride(2)
      .padding(1)
      .ceil(true)
      .seed(3)
      .test();
  if (HasFatalFailure()) return;
  std::mt19937 rng(3);
  for (int i = 0; i < 250; ++i) {
    VolumeTester(random_volume_case(rng, VolumeOp::MaxPool3d)).seed(rng()).test();
    if (HasFatalFailure()) return;
  }
}

TEST(AdaptiveMaxPool3d, RandomAgainstNaiveReference) {
  // A global max pool (the 3-D CBAM / SE case) and 37 -> 7 overlapping bins.
  VolumeTester(VolumeOp::AdaptiveMaxPool3d).batch(2).channels(3).input(4, 9, 10).test();
  VolumeTester(VolumeOp::AdaptiveMaxPool3d)
      .batch(2)
      .channels(3)
      .input(3, 37, 37)
      .output(2, 7, 7)
      .seed(2)
      .test();
  if (HasFatalFailure()) return;
  std::mt19937 rng(33);
  for (int i = 0; i < 200; ++i) {
    VolumeTester(random_volume_case(rng, VolumeOp::AdaptiveMaxPool3d)).seed(rng()).test();
    if (HasFatalFailure()) return;
  }
}

TEST(MaxPool3d, CannSample) {
  // ops-nn's sample call: a 2x2x2 volume, kernel and stride 2: the maximum 8 at flat index 3.
  HostTensor x({1, 1, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND),
      out({1, 1, 1, 1, 1}, ACL_FLOAT, ACL_FORMAT_ND),
      idx({1, 1, 1, 1, 1}, ACL_INT32, ACL_FORMAT_ND);
  const float v[] = {1, 6, 2, 8, 4, 5, 7, 3};
  for (int i = 0; i < 8; ++i) x.set(i, v[i]);
  Profile a2("Ascend910B");
  IntArray k({2, 2, 2}), s({2, 2, 2}), p({0, 0, 0}), d({1, 1, 1});
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                     &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  ASSERT_EQ(aclnnMaxPool3dWithArgmax(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(out.get(0), 8.0f);
  EXPECT_EQ(idx.get_int(0), 3);
}

TEST(MaxPool3d, ValidationAndProducts) {
  HostTensor x({2, 3, 4, 6, 6}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      out({2, 3, 2, 3, 3}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      idx({2, 3, 2, 3, 3}, ACL_INT64, ACL_FORMAT_NCDHW),
      i32({2, 3, 2, 3, 3}, ACL_INT32, ACL_FORMAT_NCDHW),
      xd({2, 3, 4, 6, 6}, ACL_DOUBLE, ACL_FORMAT_NCDHW),
      out16({2, 3, 2, 3, 3}, ACL_FLOAT16, ACL_FORMAT_NCDHW),
      bad({2, 3, 2, 3, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW), x3({3, 6, 6}, ACL_FLOAT, ACL_FORMAT_ND),
      xnhwc({2, 3, 4, 6, 6}, ACL_FLOAT, ACL_FORMAT_NHWC),
      xfz({2, 3, 4, 6, 6}, ACL_FLOAT, ACL_FORMAT_FRACTAL_Z),
      gx({2, 3, 4, 6, 6}, ACL_FLOAT, ACL_FORMAT_NCDHW);
  IntArray k2({2}), s2({2, 2, 2}), s0(std::vector<int64_t>{}), p0({0}), d1({1}), k2x2({2, 2}),
      k0({2, 0, 2}), p2({2}), d2({2}), s0v({0});
  uint64_t ws;
  aclOpExecutor *ex;
  // Every documented bad input, each with its status and a message naming the parameter.
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k2, s2, p0, d1, false, out.t(),
                                                             idx.t(), nullptr, &ex),
                    ACLNN_ERR_PARAM_NULLPTR, kFwd, "workspaceSize");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k2, nullptr, p0, d1, false,
                                                             out.t(), idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_NULLPTR, kFwd, "stride");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(xd.t(), k2, s2, p0, d1, false, out.t(),
                                                             idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "self dtype must be FLOAT, FLOAT16 or BF16");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k2, s2, p0, d1, false,
                                                             out16.t(), idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "out dtype must equal self dtype FLOAT");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(xfz.t(), k2, s2, p0, d1, false,
                                                             out.t(), idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "self format must be a public format");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(xnhwc.t(), k2, s2, p0, d1, false,
                                                             out.t(), idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "self format must be ND, NCDHW, NCHW or NDHWC");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x3.t(), k2, s2, p0, d1, false, out.t(),
                                                             idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "out format must equal self format ND");
  HostTensor o3({2, 3, 3}, ACL_FLOAT, ACL_FORMAT_ND), i3({2, 3, 3}, ACL_INT64, ACL_FORMAT_ND);
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x3.t(), k2, s2, p0, d1, false, o3.t(),
                                                             i3.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "self must be 4-D or 5-D, but got 3-D");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k2x2, s2, p0, d1, false,
                                                             out.t(), idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "kernelSize must have length 1 or 3");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k0, s2, p0, d1, false, out.t(),
                                                             idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "kernelSize values must be in [1, ");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k2, s0v, p0, d1, false, out.t(),
                                                             idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "stride values must be in [1, ");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k2, s2, p2, d1, false, out.t(),
                                                             idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "padding must be <= kernelSize/2");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k2, s2, p0, k2x2, false,
                                                             out.t(), idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "dilation must have length 1 or 3");
  IntArray k9({9});
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k9, s2, p0, d1, false, out.t(),
                                                             idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "output size must be > 0");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k2, s2, p0, d1, false, bad.t(),
                                                             idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "out shape must be [2,3,2,3,3]");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k2, s2, p0, d1, false, out.t(),
                                                             bad.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "indices dtype must be INT32 or INT64");
  // An empty stride takes the kernel size.
  EXPECT_EQ(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k2, s0, p0, d1, false, out.t(), idx.t(),
                                                     &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  EXPECT_EQ(aclnnMaxPool3dWithArgmax(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
  // Atlas A2/A3: INT32 indices only, dilation 1, no NDHWC, D*H*W within INT32.
  {
    Profile a2("Ascend910B");
    EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k2, s2, p0, d1, false,
                                                               out.t(), idx.t(), &ws, &ex),
                      ACLNN_ERR_PARAM_INVALID, kFwd,
                      "indices dtype must be INT32 only on Ascend910B");
    HostTensor o5({2, 3, 1, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW),
        i5({2, 3, 1, 2, 2}, ACL_INT32, ACL_FORMAT_NCDHW);
    EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k2, s2, p0, d2, false, o5.t(),
                                                               i5.t(), &ws, &ex),
                      ACLNN_ERR_PARAM_INVALID, kFwd,
                      "dilation must be 1 on every axis on Ascend910B");
    HostTensor xcl({2, 4, 6, 6, 3}, ACL_FLOAT, ACL_FORMAT_NDHWC),
        ocl({2, 2, 3, 3, 3}, ACL_FLOAT, ACL_FORMAT_NDHWC),
        icl({2, 2, 3, 3, 3}, ACL_INT32, ACL_FORMAT_NDHWC);
    EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(xcl.t(), k2, s2, p0, d1, false,
                                                               ocl.t(), icl.t(), &ws, &ex),
                      ACLNN_ERR_PARAM_INVALID, kFwd, "NDHWC is Ascend950 only");
    // 2048*2048*1024 = 2^32 elements per volume, as zero-stride views of one element.
    alignas(8) static int64_t storage[1];
    auto zero_stride = [&](std::vector<int64_t> d, aclDataType dt) {
      const std::vector<int64_t> zs(d.size(), 0);
      const int64_t one = 1;
      return aclCreateTensor(d.data(), d.size(), dt, zs.data(), 0, ACL_FORMAT_NCDHW, &one, 1,
                             storage);
    };
    aclTensor *big = zero_stride({1, 1, 2048, 2048, 1024}, ACL_FLOAT),
              *bo = zero_stride({1, 1, 1024, 1024, 512}, ACL_FLOAT),
              *bi = zero_stride({1, 1, 1024, 1024, 512}, ACL_INT32);
    EXPECT_STATUS_MSG(
        aclnnMaxPool3dWithArgmaxGetWorkspaceSize(big, k2, s2, p0, d1, false, bo, bi, &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, kFwd, "D*H*W must be <= 2147483647");
    aclDestroyTensor(big);
    aclDestroyTensor(bo);
    aclDestroyTensor(bi);
  }
  // The backward: its own cascade, then every index checked in phase 2.
  HostTensor gy({2, 3, 2, 3, 3}, ACL_FLOAT, ACL_FORMAT_NCDHW);
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
                        gy.t(), x.t(), idx.t(), k2, s2, p0, d1, false, nullptr, &ws, &ex),
                    ACLNN_ERR_PARAM_NULLPTR, kBwd, "gradInput");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
                        gy.t(), x.t(), idx.t(), k2, s2, p0, d1, false, out16.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "gradInput dtype must equal self dtype");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
                        gy.t(), x.t(), i32.t(), k2, s2, p0, d1, false, bad.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "gradInput shape must be [2,3,4,6,6]");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
                        bad.t(), x.t(), bad.t(), k2, s2, p0, d1, false, gx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "indices dtype must be INT32 or INT64");
  HostTensor ibad({2, 3, 2, 3, 2}, ACL_INT64, ACL_FORMAT_NCDHW);
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
                        bad.t(), x.t(), ibad.t(), k2, s2, p0, d1, false, gx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "gradOutput shape must be [2,3,2,3,3]");
  for (int64_t i = 0; i < i32.numel(); ++i) i32.set_int(i, i % 144);
  i32.set_int(20, 144);  // (n=0, c=1, od=0, oh=0, ow=2): one past the volume
  ASSERT_EQ(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gy.t(), x.t(), i32.t(), k2, s2, p0, d1,
                                                             false, gx.t(), &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxBackward(workspace(ws), ws, ex, nullptr),
                    ACLNN_ERR_PARAM_INVALID, kBwd,
                    "indices[0,1,0,0,2]=144 must be -1 or in [0, D*H*W=144)");
  EXPECT_TRUE(gx.guards_intact());
}

TEST(AdaptiveMaxPool3d, ValidationAndProducts) {
  HostTensor x({2, 3, 4, 6, 6}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      out({2, 3, 2, 3, 3}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      idx({2, 3, 2, 3, 3}, ACL_INT64, ACL_FORMAT_NCDHW),
      i32({2, 3, 2, 3, 3}, ACL_INT32, ACL_FORMAT_NCDHW),
      out16({2, 3, 2, 3, 3}, ACL_FLOAT16, ACL_FORMAT_NCDHW),
      bad({2, 3, 2, 3, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      xnd({2, 3, 4, 6, 6}, ACL_FLOAT, ACL_FORMAT_ND),
      ond({2, 3, 2, 3, 3}, ACL_FLOAT, ACL_FORMAT_ND),
      ind({2, 3, 2, 3, 3}, ACL_INT32, ACL_FORMAT_ND),
      xcl({2, 4, 6, 6, 3}, ACL_FLOAT, ACL_FORMAT_NDHWC),
      gx({2, 3, 4, 6, 6}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      gy({2, 3, 2, 3, 3}, ACL_FLOAT, ACL_FORMAT_NCDHW);
  IntArray os({2, 3, 3}), os1({3}), os2({2, 3}), os0({2, 0, 3}), none(std::vector<int64_t>{});
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_STATUS_MSG(
      aclnnAdaptiveMaxPool3dGetWorkspaceSize(x.t(), nullptr, out.t(), idx.t(), &ws, &ex),
      ACLNN_ERR_PARAM_NULLPTR, kAFwd, "outputSize");
  EXPECT_STATUS_MSG(aclnnAdaptiveMaxPool3dGetWorkspaceSize(x.t(), os, out16.t(), idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kAFwd, "outputOut dtype must equal self dtype");
  EXPECT_STATUS_MSG(aclnnAdaptiveMaxPool3dGetWorkspaceSize(xcl.t(), os, out.t(), idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kAFwd, "self format must be NCDHW, NCHW or ND");
  EXPECT_STATUS_MSG(aclnnAdaptiveMaxPool3dGetWorkspaceSize(x.t(), os2, out.t(), idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kAFwd, "outputSize must have length 0, 1 or 3");
  EXPECT_STATUS_MSG(aclnnAdaptiveMaxPool3dGetWorkspaceSize(x.t(), os0, out.t(), idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kAFwd, "outputSize values must be >= 1");
  EXPECT_STATUS_MSG(aclnnAdaptiveMaxPool3dGetWorkspaceSize(x.t(), os, bad.t(), idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kAFwd, "outputOut shape must be [2,3,2,3,3]");
  // Ascend950: a length-1 outputSize is every axis's, an empty one is self's sizes.
  HostTensor o1({2, 3, 3, 3, 3}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      i1({2, 3, 3, 3, 3}, ACL_INT64, ACL_FORMAT_NCDHW);
  EXPECT_EQ(aclnnAdaptiveMaxPool3dGetWorkspaceSize(x.t(), os1, o1.t(), i1.t(), &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  EXPECT_EQ(aclnnAdaptiveMaxPool3d(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
  HostTensor oid({2, 3, 4, 6, 6}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      iid({2, 3, 4, 6, 6}, ACL_INT64, ACL_FORMAT_NCDHW);
  for (int64_t i = 0; i < x.numel(); ++i) x.set(i, static_cast<float>(i % 7));
  ASSERT_EQ(aclnnAdaptiveMaxPool3dGetWorkspaceSize(x.t(), none, oid.t(), iid.t(), &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  ASSERT_EQ(aclnnAdaptiveMaxPool3d(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
  for (int64_t i = 0; i < x.numel(); ++i) EXPECT_EQ(iid.get_int(i), i % 144);  // the identity
  {
    Profile a3("Ascend910_93");
    EXPECT_STATUS_MSG(aclnnAdaptiveMaxPool3dGetWorkspaceSize(x.t(), os, out.t(), idx.t(), &ws, &ex),
                      ACLNN_ERR_PARAM_INVALID, kAFwd,
                      "indicesOut dtype must be INT32 only on Ascend910_93");
    EXPECT_STATUS_MSG(
        aclnnAdaptiveMaxPool3dGetWorkspaceSize(xnd.t(), os, ond.t(), ind.t(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, kAFwd, "self format must be NCDHW or NCHW on Ascend910_93");
    EXPECT_STATUS_MSG(
        aclnnAdaptiveMaxPool3dGetWorkspaceSize(x.t(), os1, out.t(), i32.t(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, kAFwd, "outputSize must have length 3 on Ascend910_93");
    EXPECT_STATUS_MSG(
        aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), gx.t(), &ws, &ex),
        ACLNN_ERR_PARAM_INVALID, kABwd, "indices dtype must be INT32 only on Ascend910_93");
  }
  EXPECT_STATUS_MSG(
      aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), out16.t(), &ws, &ex),
      ACLNN_ERR_PARAM_INVALID, kABwd, "gradInput dtype must equal self dtype");
  EXPECT_STATUS_MSG(
      aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gy.t(), x.t(), out.t(), gx.t(), &ws, &ex),
      ACLNN_ERR_PARAM_INVALID, kABwd, "indices dtype must be INT32 or INT64");
  EXPECT_STATUS_MSG(
      aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), bad.t(), &ws, &ex),
      ACLNN_ERR_PARAM_INVALID, kABwd, "gradInput shape must be [2,3,4,6,6]");
  HostTensor gyn({2, 3, 2, 3, 3}, ACL_FLOAT, ACL_FORMAT_ND);
  EXPECT_STATUS_MSG(
      aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gyn.t(), x.t(), idx.t(), gx.t(), &ws, &ex),
      ACLNN_ERR_PARAM_INVALID, kABwd, "gradOutput format must equal self format NCDHW");
  HostTensor gyc({2, 4, 2, 3, 3}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      ic({2, 4, 2, 3, 3}, ACL_INT64, ACL_FORMAT_NCDHW);
  EXPECT_STATUS_MSG(
      aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gyc.t(), x.t(), ic.t(), gx.t(), &ws, &ex),
      ACLNN_ERR_PARAM_INVALID, kABwd, "gradOutput shape must be [2,3,2,3,3]");
  for (int64_t i = 0; i < idx.numel(); ++i) idx.set_int(i, i % 144);
  idx.set_int(7, -2);
  ASSERT_EQ(
      aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), gx.t(), &ws, &ex),
      ACLNN_SUCCESS)
      << last_msg();
  EXPECT_STATUS_MSG(aclnnAdaptiveMaxPool3dBackward(workspace(ws), ws, ex, nullptr),
                    ACLNN_ERR_PARAM_INVALID, kABwd, "indices[0,0,0,2,1]=-2");
  EXPECT_TRUE(gx.guards_intact());
}

// D9: the 3-D max pool's empty tensors (C, D, H or W = 0, or an empty out) succeed before the
// shapes are compared, as CANN's op_api does; nothing is written. D13: the backward's dilation
// follows the forward of the same product (A2/A3: 1; Ascend950: any). D14: the backward's
// gradOutput must still be the pooled shape (kept stricter).
TEST(MaxPool3d, EmptyTensorsDilationAndBackwardShapes) {
  IntArray k2({2}), s2({2}), p0({0}), d1({1}), d2({2});
  uint64_t ws;
  aclOpExecutor *ex;
  const std::vector<std::vector<int64_t>> empty_selves = {
      {2, 0, 4, 6, 6}, {2, 3, 0, 6, 6}, {2, 3, 4, 0, 6}, {2, 3, 4, 6, 0}, {3, 0, 6, 6}};
  for (const auto &sd : empty_selves) {
    SCOPED_TRACE(testing::Message() << "self " << sd.size() << "-D, first zero at C/D/H/W");
    std::vector<int64_t> od = sd;
    for (size_t i = sd.size() - 3; i < sd.size(); ++i) od[i] = sd[i] == 0 ? 0 : sd[i] / 2;
    HostTensor x(sd, ACL_FLOAT, ACL_FORMAT_NCDHW), out(od, ACL_FLOAT, ACL_FORMAT_NCDHW),
        idx(od, ACL_INT32, ACL_FORMAT_NCDHW);
    ASSERT_EQ(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k2, s2, p0, d1, false, out.t(),
                                                       idx.t(), &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    EXPECT_EQ(ws, 0u);
    ASSERT_EQ(aclnnMaxPool3dWithArgmax(nullptr, 0, ex, nullptr), ACLNN_SUCCESS);
    HostTensor gx(sd, ACL_FLOAT, ACL_FORMAT_NCDHW);
    ASSERT_EQ(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(out.t(), x.t(), idx.t(), k2, s2, p0,
                                                               d1, false, gx.t(), &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    ASSERT_EQ(aclnnMaxPool3dWithArgmaxBackward(nullptr, 0, ex, nullptr), ACLNN_SUCCESS);
  }
  // An empty out with a non-empty self: success, nothing written (CANN returns first).
  HostTensor x({1, 2, 4, 4, 4}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      out0({1, 2, 0, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      idx0({1, 2, 0, 2, 2}, ACL_INT32, ACL_FORMAT_NCDHW);
  ASSERT_EQ(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), k2, s2, p0, d1, false, out0.t(),
                                                     idx0.t(), &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  ASSERT_EQ(aclnnMaxPool3dWithArgmax(nullptr, 0, ex, nullptr), ACLNN_SUCCESS);
  // The attribute rules still come first.
  IntArray k0({0});
  HostTensor xe({1, 0, 4, 4, 4}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      oe({1, 0, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      ie({1, 0, 2, 2, 2}, ACL_INT32, ACL_FORMAT_NCDHW);
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxGetWorkspaceSize(xe.t(), k0, s2, p0, d1, false, oe.t(),
                                                             ie.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "kernelSize values must be in [1, ");
  // D14: a gradOutput of a shape the attributes do not produce is refused (CANN checks only
  // indices = gradOutput and self = gradInput).
  HostTensor gy({1, 2, 3, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      iy({1, 2, 3, 2, 2}, ACL_INT32, ACL_FORMAT_NCDHW),
      gx({1, 2, 4, 4, 4}, ACL_FLOAT, ACL_FORMAT_NCDHW);
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
                        gy.t(), x.t(), iy.t(), k2, s2, p0, d1, false, gx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "gradOutput shape must be [1,2,2,2,2]");
  // D13: dilation 2 in the backward: refused on A2/A3 (as the forward there), taken on 950.
  HostTensor gd({1, 2, 1, 1, 1}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      id({1, 2, 1, 1, 1}, ACL_INT32, ACL_FORMAT_NCDHW);
  ASSERT_EQ(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gd.t(), x.t(), id.t(), k2, s2, p0, d2,
                                                             false, gx.t(), &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  ASSERT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
  Profile a2("Ascend910B");
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
                        gd.t(), x.t(), id.t(), k2, s2, p0, d2, false, gx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kBwd,
                    "dilation must be 1 on every axis on Ascend910B");
  // D12: the backward in NDHWC on A2/A3: refused, as the documentation says (CANN's op_api would
  // take it).
  HostTensor xc({1, 4, 4, 4, 2}, ACL_FLOAT, ACL_FORMAT_NDHWC),
      gc({1, 2, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_NDHWC),
      ic({1, 2, 2, 2, 2}, ACL_INT32, ACL_FORMAT_NDHWC),
      gxc({1, 4, 4, 4, 2}, ACL_FLOAT, ACL_FORMAT_NDHWC);
  EXPECT_STATUS_MSG(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
                        gc.t(), xc.t(), ic.t(), k2, s2, p0, d1, false, gxc.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "NDHWC is Ascend950 only");
}

// D10: the adaptive 3-D forward with an empty batch: CANN compares N and C of out with self's and
// the sizes with outputSize before it returns, and so does poolgrad.
TEST(AdaptiveMaxPool3d, EmptyBatch) {
  HostTensor x({0, 2, 4, 4, 4}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      out({0, 2, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      idx({0, 2, 2, 2, 2}, ACL_INT32, ACL_FORMAT_NCDHW),
      bad({0, 2, 3, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW);
  IntArray os({2, 2, 2});
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnAdaptiveMaxPool3dGetWorkspaceSize(x.t(), os, out.t(), idx.t(), &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  EXPECT_EQ(ws, 0u);
  ASSERT_EQ(aclnnAdaptiveMaxPool3d(nullptr, 0, ex, nullptr), ACLNN_SUCCESS);
  EXPECT_STATUS_MSG(aclnnAdaptiveMaxPool3dGetWorkspaceSize(x.t(), os, bad.t(), idx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kAFwd, "outputOut shape must be [0,2,2,2,2]");
}

}  // namespace
