// SPDX-License-Identifier: Apache-2.0
// The Mask tester: the Mask pair on Ascend910B and the Indices pair on the default profile on the
// same data; out, the mask's layout and gradInput compared bit for bit.
#include "mask_tester.h"

#include <cstring>
#include <vector>

#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_ops_cv.h"
#include "aclnnop/aclnn_ops_nn.h"
#include "test_util.h"

namespace pgtest {

namespace {

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil) {
  int64_t o = (in + 2 * p - k + (ceil ? s - 1 : 0)) / s + 1;
  if (ceil && (o - 1) * s >= in + p) --o;
  return o;
}

std::vector<int64_t> dims(const MaskCase &k, int64_t a, int64_t b) {
  return k.rank3 ? std::vector<int64_t>{k.c, a, b} : std::vector<int64_t>{k.n, k.c, a, b};
}

std::vector<int64_t> mask_dims(const MaskCase &k, int64_t ho, int64_t wo) {
  return dims(k, k.k * k.k, ((ho * wo + 15) / 16 + 1) * 32);
}

// Forward and backward through the Mask pair (Ascend910B) and through the Indices pair (the
// default profile, which takes every dtype in the backward) on the same data:
// the same out and gradInput bits, and the mask holds the Indices pair's int32 indices.
}  // namespace

void run_mask_case(const MaskCase &k, std::mt19937 &rng) {
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
  ASSERT_EQ(two_phase(
                [&](uint64_t *w, aclOpExecutor **e) {
                  return aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), ks, ss, ps, ds, k.ceil,
                                                                   out1.t(), idx.t(), w, e);
                },
                aclnnMaxPool2dWithIndices),
            ACLNN_SUCCESS)
      << last_msg();
  {
    Profile a2("Ascend910B");
    ASSERT_EQ(two_phase(
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
  ASSERT_EQ(two_phase(
                [&](uint64_t *w, aclOpExecutor **e) {
                  return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(
                      gy.t(), x.t(), idx.t(), ks, ss, ps, ds, k.ceil, gx1.t(), w, e);
                },
                aclnnMaxPool2dWithIndicesBackward),
            ACLNN_SUCCESS)
      << last_msg();
  {
    Profile a2("Ascend910B");
    ASSERT_EQ(two_phase(
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

MaskCase random_mask_case(std::mt19937 &rng) {
  const aclDataType dts[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  MaskCase k;
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
  return k;
}

void MaskTester::test() const {
  std::mt19937 rng(seed_);
  run_mask_case(k_, rng);
}

}  // namespace pgtest
