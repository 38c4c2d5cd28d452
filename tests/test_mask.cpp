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
#include "test_util.h"

using namespace pgtest;

namespace {

const char *kMaskFwd = "aclnnMaxPool2dWithMask";
const char *kMaskBwd = "aclnnMaxPool2dWithMaskBackward";

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil) {
  int64_t o = (in + 2 * p - k + (ceil ? s - 1 : 0)) / s + 1;
  if (ceil && (o - 1) * s >= in + p) --o;
  return o;
}

struct Case {
  int64_t n, c, h, w, k, s, p;
  bool ceil = false;
  aclDataType dt = ACL_FLOAT;
  bool rank3 = false;
};

std::vector<int64_t> dims(const Case &k, int64_t a, int64_t b) {
  return k.rank3 ? std::vector<int64_t>{k.c, a, b} : std::vector<int64_t>{k.n, k.c, a, b};
}

std::vector<int64_t> mask_dims(const Case &k, int64_t ho, int64_t wo) {
  return dims(k, k.k * k.k, ((ho * wo + 15) / 16 + 1) * 32);
}

template <class P1, class P2>
aclnnStatus run(P1 p1, P2 p2) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  aclnnStatus st = p1(&ws, &ex);
  if (st != ACLNN_SUCCESS) return st;
  return p2(workspace(ws), ws, ex, nullptr);
}

// Forward and backward through the Mask pair (Ascend910B) and through the Indices pair (the
// default profile, which takes every dtype in the backward) on the same data:
// the same out and gradInput bits, and the mask holds the Indices pair's int32 indices.
void check_case(const Case &k, std::mt19937 &rng) {
  SCOPED_TRACE(testing::Message() << "N=" << k.n << " C=" << k.c << " H=" << k.h << " W=" << k.w
                                  << " k=" << k.k << " s=" << k.s << " p=" << k.p
                                  << " ceil=" << k.ceil << " dt=" << k.dt << " rank3=" << k.rank3);
  const int64_t ho = out_size(k.h, k.k, k.s, k.p, k.ceil),
                wo = out_size(k.w, k.k, k.s, k.p, k.ceil);
  IntArray ks({k.k}), ss({k.s}), ps({k.p}), ds({1});
  HostTensor x(dims(k, k.h, k.w), k.dt), out1(dims(k, ho, wo), k.dt), out2(dims(k, ho, wo), k.dt),
      idx(dims(k, ho, wo), ACL_INT32), mask(mask_dims(k, ho, wo), ACL_INT8);
  std::uniform_int_distribution<int> v(-8, 8);
  for (int64_t i = 0; i < x.numel(); ++i) x.set(i, static_cast<float>(v(rng)) / 2);  // ties
  for (int64_t i = 0; i < mask.numel(); ++i) mask.set_int(i, 0x5a);                  // overwritten
  ASSERT_EQ(run(
                [&](uint64_t *w, aclOpExecutor **e) {
                  return aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), ks, ss, ps, ds, k.ceil,
                                                                   out1.t(), idx.t(), w, e);
                },
                aclnnMaxPool2dWithIndices),
            ACLNN_SUCCESS)
      << last_msg();
  {
    Profile a2("Ascend910B");
    ASSERT_EQ(run(
                  [&](uint64_t *w, aclOpExecutor **e) {
                    return aclnnMaxPool2dWithMaskGetWorkspaceSize(x.t(), ks, ss, ps, ds, k.ceil,
                                                                  out2.t(), mask.t(), w, e);
                  },
                  aclnnMaxPool2dWithMask),
              ACLNN_SUCCESS)
        << last_msg();
  }
  for (int64_t i = 0; i < out1.numel(); ++i) ASSERT_EQ(out1.get(i), out2.get(i)) << i;
  // The mask's bytes: little-endian int32 indices in (n, c, oh, ow) order, then zeros.
  std::vector<uint8_t> bytes(mask.numel());
  for (int64_t i = 0; i < mask.numel(); ++i) bytes[i] = static_cast<uint8_t>(mask.get_int(i));
  const int64_t outputs = idx.numel();
  if (k.k != 1) {
    for (int64_t i = 0; i < outputs; ++i) {
      int32_t got;
      std::memcpy(&got, &bytes[i * 4], 4);
      ASSERT_EQ(got, idx.get_int(i)) << "mask index " << i;
    }
    for (size_t i = outputs * 4; i < bytes.size(); ++i) ASSERT_EQ(bytes[i], 0) << "mask byte " << i;
  } else {
    // 1x1: one bit per output of each plane's row, least significant bit first.
    const int64_t row = mask_dims(k, ho, wo).back(), planes = outputs / (ho * wo);
    for (int64_t pl = 0; pl < planes; ++pl)
      for (int64_t b = 0; b < row; ++b) {
        uint8_t want = 0;
        for (int bit = 0; bit < 8; ++bit)
          if (b * 8 + bit < ho * wo) want |= static_cast<uint8_t>(1u << bit);
        ASSERT_EQ(bytes[pl * row + b], want) << "plane " << pl << " byte " << b;
      }
  }
  EXPECT_TRUE(mask.outside_view_untouched());
  // Backward: the same gradInput bits from the mask as from the indices.
  HostTensor gy(dims(k, ho, wo), k.dt), gx1(dims(k, k.h, k.w), k.dt), gx2(dims(k, k.h, k.w), k.dt);
  std::normal_distribution<float> nd;
  for (int64_t i = 0; i < gy.numel(); ++i) gy.set(i, round_to(k.dt, nd(rng)));
  if (k.k == 1)  // 1x1: the mask is not read (the window's element is fixed): any bytes do
    for (int64_t i = 0; i < mask.numel(); ++i) mask.set_int(i, static_cast<int8_t>(rng()));
  ASSERT_EQ(run(
                [&](uint64_t *w, aclOpExecutor **e) {
                  return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(
                      gy.t(), x.t(), idx.t(), ks, ss, ps, ds, k.ceil, gx1.t(), w, e);
                },
                aclnnMaxPool2dWithIndicesBackward),
            ACLNN_SUCCESS)
      << last_msg();
  {
    Profile a2("Ascend910B");
    ASSERT_EQ(run(
                  [&](uint64_t *w, aclOpExecutor **e) {
                    return aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(
                        gy.t(), x.t(), mask.t(), ks, ss, ps, ds, k.ceil, gx2.t(), w, e);
                  },
                  aclnnMaxPool2dWithMaskBackward),
              ACLNN_SUCCESS)
        << last_msg();
  }
  for (int64_t i = 0; i < gx1.numel(); ++i) {
    const float a = gx1.get(i), b = gx2.get(i);
    uint32_t ua, ub;
    std::memcpy(&ua, &a, 4);
    std::memcpy(&ub, &b, 4);
    ASSERT_EQ(ua, ub) << "gradInput " << i;
  }
}

TEST(Mask, SameNumbersAsTheIndicesPair) {
  std::mt19937 rng(910);
  const Case fixed[] = {
      {2, 3, 8, 8, 2, 2, 0},
      {2, 3, 9, 11, 3, 2, 1, true},
      {1, 4, 7, 7, 3, 1, 1},
      {2, 2, 12, 10, 3, 2, 1, false, ACL_FLOAT16},
      {2, 2, 12, 10, 2, 2, 1, true, ACL_BF16},
      {1, 5, 9, 9, 3, 3, 0, true, ACL_FLOAT, true},
      {1, 1, 4, 3, 2, 2, 0},  // CANN's sample shape
      {2, 3, 9, 9, 1, 2, 0},  // 1x1 windows, stride 2 (FPN's extra level)
      {1, 2, 5, 7, 1, 1, 0, false, ACL_FLOAT16, true},
      {1, 1, 33, 40, 2, 2, 0},  // 16+ output columns: the gather path
  };
  for (const Case &k : fixed) {
    check_case(k, rng);
    if (HasFatalFailure()) return;
  }
  const aclDataType dts[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  for (int i = 0; i < 60; ++i) {
    Case k;
    k.k = 1 + static_cast<int64_t>(rng() % 4);
    k.s = 1 + static_cast<int64_t>(rng() % 3);
    k.p = static_cast<int64_t>(rng() % (k.k / 2 + 1));
    k.n = 1 + static_cast<int64_t>(rng() % 2);
    k.c = 1 + static_cast<int64_t>(rng() % 3);
    k.h = k.k + static_cast<int64_t>(rng() % 9);
    k.w = k.k + static_cast<int64_t>(rng() % 9);
    k.ceil = rng() % 2;
    k.dt = dts[rng() % 3];
    k.rank3 = rng() % 4 == 0;
    if (k.rank3) k.n = 1;
    check_case(k, rng);
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
  ASSERT_EQ(run(
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
  EXPECT_STATUS_MSG(run(
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
  EXPECT_EQ(run(
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
