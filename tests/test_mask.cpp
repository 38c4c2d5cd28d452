// SPDX-License-Identifier: Apache-2.0
// aclnnMaxPool2dWithMask / aclnnMaxPool2dWithMaskBackward (Ascend910B / Ascend910_93 profiles):
// the same numbers as the Indices pair, the mask layout (int32 flat indices from the start of the
// INT8 buffer, the rest zero; a bit per output for 1x1 windows), the validation rules.
#include <cstring>
#include <random>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_ops_cv.h"
#include "aclnnop/aclnn_ops_nn.h"
#include "mask_tester.h"
#include "test_util.h"

using namespace pgtest;

namespace {

const char *kMaskFwd = "aclnnMaxPool2dWithMask";
const char *kMaskBwd = "aclnnMaxPool2dWithMaskBackward";

TEST(Mask, SameNumbersAsTheIndicesPair) {
  MaskTester().batch(2).channels(3).input(8, 8).kernel(2).stride(2).test();
  MaskTester().batch(2).channels(3).input(9, 11).kernel(3).stride(2).padding(1).ceil(true).test();
  MaskTester().channels(4).input(7, 7).kernel(3).stride(1).padding(1).test();
  MaskTester()
      .batch(2)
      .channels(2)
      .input(12, 10)
      .kernel(3)
      .stride(2)
      .padding(1)
      .dtype(ACL_FLOAT16)
      .test();
  MaskTester()
      .batch(2)
      .channels(2)
      .input(12, 10)
      .kernel(2)
      .stride(2)
      .padding(1)
      .ceil(true)
      .dtype(ACL_BF16)
      .test();
  MaskTester().channels(5).input(9, 9).kernel(3).stride(3).ceil(true).rank3(true).test();
  MaskTester().input(4, 3).kernel(2).stride(2).test();                       // CANN's sample shape
  MaskTester().batch(2).channels(3).input(9, 9).kernel(1).stride(2).test();  // 1x1 (FPN's level)
  MaskTester().channels(2).input(5, 7).kernel(1).stride(1).dtype(ACL_FLOAT16).rank3(true).test();
  MaskTester().input(33, 40).kernel(2).stride(2).test();  // 16+ output columns: the gather path
  if (HasFatalFailure()) return;
  std::mt19937 rng(910);
  for (int i = 0; i < 60; ++i) {
    MaskTester(random_mask_case(rng)).seed(rng()).test();
    if (HasFatalFailure()) return;
  }
}

TEST(Mask, RefusedOnAscend950) {
  HostTensor x({1, 1, 4, 4}, ACL_FLOAT), out({1, 1, 2, 2}, ACL_FLOAT),
      mask({1, 1, 4, 64}, ACL_INT8), gy({1, 1, 2, 2}, ACL_FLOAT), gx({1, 1, 4, 4}, ACL_FLOAT);
  IntArray k({2}), s({2}), p({0}), d({1});
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_STATUS_MSG(
      aclnnMaxPool2dWithMaskGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), mask.t(), &ws, &ex),
      ACLNN_ERR_PARAM_INVALID, kMaskFwd, "deprecated on Ascend950; use aclnnMaxPool2dWithIndices");
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(gy.t(), x.t(), mask.t(), k, s, p,
                                                                   d, false, gx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, kMaskBwd, "use aclnnMaxPool2dWithIndicesBackward");
}

TEST(Mask, ValidationRules) {
  Profile a2("Ascend910_93");
  HostTensor x({2, 3, 8, 8}, ACL_FLOAT), out({2, 3, 4, 4}, ACL_FLOAT),
      mask({2, 3, 4, 64}, ACL_INT8), gy({2, 3, 4, 4}, ACL_FLOAT), gx({2, 3, 8, 8}, ACL_FLOAT);
  IntArray k({2}), s({2}), p({0}), d({1}), d2({2}), k3({1, 2, 3});
  uint64_t ws;
  aclOpExecutor *ex;
  auto fwd = [&](const aclTensor *xx, const aclIntArray *kk, const aclIntArray *dd, aclTensor *oo,
                 aclTensor *mm) {
    return aclnnMaxPool2dWithMaskGetWorkspaceSize(xx, kk, s, p, dd, false, oo, mm, &ws, &ex);
  };
  ASSERT_EQ(fwd(x.t(), k, d, out.t(), mask.t()), ACLNN_SUCCESS) << last_msg();
  EXPECT_GT(ws, 0u);
  aclDestroyAclOpExecutor(ex);
  // CANN's order: kernelSize before self, then the kernelSize length, then the product.
  EXPECT_STATUS_MSG(fwd(nullptr, nullptr, d, out.t(), mask.t()), ACLNN_ERR_PARAM_NULLPTR, kMaskFwd,
                    "kernelSize");
  EXPECT_STATUS_MSG(fwd(x.t(), k3, d, out.t(), mask.t()), ACLNN_ERR_PARAM_INVALID, kMaskFwd,
                    "length 1 or 2");
  // D17: the backward reports the same bad length with 161001, as CANN's backward does.
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(gy.t(), x.t(), mask.t(), k3, s,
                                                                   p, d, false, gx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_NULLPTR, kMaskBwd, "kernelSize must have length 1 or 2");
  EXPECT_STATUS_MSG(fwd(x.t(), k, d, out.t(), nullptr), ACLNN_ERR_PARAM_NULLPTR, kMaskFwd,
                    "indices");
  EXPECT_STATUS_MSG(fwd(x.t(), k, d2, out.t(), mask.t()), ACLNN_ERR_PARAM_INVALID, kMaskFwd,
                    "dilation must be 1");
  HostTensor m32({2, 3, 4, 16}, ACL_INT32), msmall({2, 3, 4, 32}, ACL_INT8),
      xi({2, 3, 8, 8}, ACL_INT32);
  EXPECT_STATUS_MSG(fwd(x.t(), k, d, out.t(), m32.t()), ACLNN_ERR_PARAM_INVALID, kMaskFwd,
                    "must be INT8");
  EXPECT_STATUS_MSG(fwd(x.t(), k, d, out.t(), msmall.t()), ACLNN_ERR_PARAM_INVALID, kMaskFwd,
                    "indices shape must be [2,3,4,64]");
  EXPECT_STATUS_MSG(fwd(xi.t(), k, d, out.t(), mask.t()), ACLNN_ERR_PARAM_INVALID, kMaskFwd,
                    "self dtype");
  HostTensor xn({2, 8, 8, 3}, ACL_FLOAT, ACL_FORMAT_NHWC),
      on({2, 4, 4, 3}, ACL_FLOAT, ACL_FORMAT_NHWC);
  EXPECT_STATUS_MSG(fwd(xn.t(), k, d, on.t(), mask.t()), ACLNN_ERR_PARAM_INVALID, kMaskFwd, "NHWC");
  // A mask that is not contiguous, or not 4-byte aligned.
  HostTensor mt = make_strided({2, 3, 4, 64}, {0, 1, 3, 2}, 0, 0, ACL_INT8, ACL_FORMAT_NCHW);
  EXPECT_STATUS_MSG(fwd(x.t(), k, d, out.t(), mt.t()), ACLNN_ERR_PARAM_INVALID, kMaskFwd,
                    "contiguous");
  HostTensor mo({2, 3, 4, 64}, {768, 256, 64, 1}, 1, 1537, ACL_INT8, ACL_FORMAT_NCHW);
  EXPECT_STATUS_MSG(fwd(x.t(), k, d, out.t(), mo.t()), ACLNN_ERR_PARAM_INVALID, kMaskFwd,
                    "4-byte aligned");
  // Backward: a mask value outside the plane is 161002 naming the output position; nothing is
  // written outside gradInput.
  ASSERT_EQ(two_phase(
                [&](uint64_t *w, aclOpExecutor **e) {
                  return aclnnMaxPool2dWithMaskGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(),
                                                                mask.t(), w, e);
                },
                aclnnMaxPool2dWithMask),
            ACLNN_SUCCESS);
  const int32_t bad = 64;  // H*W = 64
  const uint8_t *b = reinterpret_cast<const uint8_t *>(&bad);
  for (int j = 0; j < 4; ++j)
    mask.set_int(5 * 4 + j, static_cast<int8_t>(b[j]));  // output 5: (0,0,1,1)
  EXPECT_STATUS_MSG(two_phase(
                        [&](uint64_t *w, aclOpExecutor **e) {
                          return aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(
                              gy.t(), x.t(), mask.t(), k, s, p, d, false, gx.t(), w, e);
                        },
                        aclnnMaxPool2dWithMaskBackward),
                    ACLNN_ERR_PARAM_INVALID, kMaskBwd, "indices[0,0,1,1]=64");
  EXPECT_TRUE(gx.outside_view_untouched());
  EXPECT_TRUE(gx.guards_intact());
  // Backward null order: self and indices first (CANN's list), before the product.
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(gy.t(), x.t(), nullptr, k, s, p,
                                                                   d, false, gx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_NULLPTR, kMaskBwd, "indices");
}

TEST(MaskCompat, ForwardIgnoresTheIndicesFormat) {
  // CANN's forward checks the formats of self and out only; indices in a private format is fine.
  HostTensor x({1, 2, 4, 4}, ACL_FLOAT), out({1, 2, 2, 2}, ACL_FLOAT),
      idx({1, 2, 2, 2}, ACL_INT64, ACL_FORMAT_FRACTAL_Z);
  for (int64_t i = 0; i < x.numel(); ++i) x.set(i, static_cast<float>(i % 7));
  IntArray k({2}), s({2}), p({0}), d({1});
  EXPECT_EQ(two_phase(
                [&](uint64_t *w, aclOpExecutor **e) {
                  return aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false,
                                                                   out.t(), idx.t(), w, e);
                },
                aclnnMaxPool2dWithIndices),
            ACLNN_SUCCESS)
      << last_msg();
  EXPECT_EQ(idx.get_int(0), 5);
  // The backward keeps its check (the spec's rule 4 lists indices' format there).
}

}  // namespace
