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
#include "poolgrad/poolgrad.h"
#include "test_util.h"

using namespace pgtest;

namespace {

const char *kFwd = "aclnnAdaptiveMaxPool2d";
const char *kBwd = "aclnnAdaptiveMaxPool2dBackward";

// Bin i of `out` over `in`: [floor(i*in/out), ceil((i+1)*in/out)), by exact rational comparison.
void ref_bin(int64_t i, int64_t in, int64_t out, int64_t *s, int64_t *e) {
  *s = 0;
  while ((*s + 1) * out <= i * in) ++*s;
  *e = *s;
  while (*e * out < (i + 1) * in) ++*e;
}

// The reference maximum of bin (oh, ow) of plane `pl` of xd (row-major planes of H x W): its
// value and flat index, by PyTorch's rule (the first maximum; NaN beats any number, the last NaN).
template <class T>
void ref_max(const std::vector<T> &xd, int64_t pl, int64_t h, int64_t w, int64_t ho, int64_t wo,
             int64_t oh, int64_t ow, T *best, int64_t *at) {
  int64_t hs, he, ws0, we;
  ref_bin(oh, h, ho, &hs, &he);
  ref_bin(ow, w, wo, &ws0, &we);
  *best = -INFINITY;
  *at = hs * w + ws0;
  for (int64_t y = hs; y < he; ++y)
    for (int64_t x0 = ws0; x0 < we; ++x0) {
      const T val = xd[pl * h * w + y * w + x0];
      if (val > *best || std::isnan(val)) *best = val, *at = y * w + x0;
    }
}

struct Case {
  int64_t n, c, h, w, ho, wo;
  aclDataType dt = ACL_FLOAT;
  bool rank3 = false, nhwc = false, strided = false;
  int threads = 0;
};

std::vector<int64_t> dims(const Case &k, int64_t a, int64_t b) {
  std::vector<int64_t> d =
      k.nhwc ? std::vector<int64_t>{a, b, k.c} : std::vector<int64_t>{k.c, a, b};
  if (!k.rank3) d.insert(d.begin(), k.n);
  return d;
}

// View position of logical (n, c, y, x).
int64_t vpos(const Case &k, int64_t hh, int64_t ww, int64_t n, int64_t c, int64_t y, int64_t x) {
  const int64_t inner = k.nhwc ? (y * ww + x) * k.c + c : (c * hh + y) * ww + x;
  return k.rank3 ? inner : n * k.c * hh * ww + inner;
}

HostTensor make(const Case &k, std::vector<int64_t> d, aclDataType dt, std::mt19937 &rng) {
  const aclFormat f = k.nhwc ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW;
  if (!k.strided) return HostTensor(d, dt, f);
  std::vector<int> perm(d.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(perm.size() - 1 - i);
  return make_strided(d, perm, static_cast<int64_t>(rng() % 3), 1, dt, f);
}

void run_case(const Case &k, std::mt19937 &rng) {
  SCOPED_TRACE(testing::Message() << "N=" << k.n << " C=" << k.c << " H=" << k.h << " W=" << k.w
                                  << " out=" << k.ho << "x" << k.wo << " dt=" << k.dt
                                  << " rank3=" << k.rank3 << " nhwc=" << k.nhwc
                                  << " strided=" << k.strided << " threads=" << k.threads);
  const int before = poolgradGetNumThreads();
  if (k.threads) poolgradSetNumThreads(k.threads);
  const int64_t planes = k.n * k.c;
  HostTensor x = make(k, dims(k, k.h, k.w), k.dt, rng),
             out = make(k, dims(k, k.ho, k.wo), k.dt, rng),
             idx = make(k, dims(k, k.ho, k.wo), ACL_INT64, rng);
  std::vector<float> xd(planes * k.h * k.w);
  std::uniform_int_distribution<int> v(-4, 4);
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t i = 0; i < k.h * k.w; ++i) {
      float val = rng() % 50 == 0 ? NAN : round_to(k.dt, static_cast<float>(v(rng)) / 2);
      xd[pl * k.h * k.w + i] = val;
      x.set(vpos(k, k.h, k.w, pl / k.c, pl % k.c, i / k.w, i % k.w), val);
    }
  IntArray os({k.ho, k.wo});
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t(), os, out.t(), idx.t(), &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  ASSERT_EQ(aclnnAdaptiveMaxPool2d(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS) << last_msg();
  std::vector<int64_t> ridx(planes * k.ho * k.wo);
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t oh = 0; oh < k.ho; ++oh)
      for (int64_t ow = 0; ow < k.wo; ++ow) {
        float best;
        int64_t bi;
        ref_max(xd, pl, k.h, k.w, k.ho, k.wo, oh, ow, &best, &bi);
        const int64_t vp = vpos(k, k.ho, k.wo, pl / k.c, pl % k.c, oh, ow);
        const float got = out.get(vp);
        ASSERT_TRUE((std::isnan(best) && std::isnan(got)) || best == got)
            << "plane " << pl << " (" << oh << "," << ow << ") want " << best << " got " << got;
        ASSERT_EQ(idx.get_int(vp), bi) << "plane " << pl << " (" << oh << "," << ow << ")";
        ridx[(pl * k.ho + oh) * k.wo + ow] = bi;
      }
  EXPECT_TRUE(out.outside_view_untouched());
  EXPECT_TRUE(idx.outside_view_untouched());
  // Backward (Ascend910B): the scatter-sum at the forward's indices, in (oh, ow) order.
  Profile a2("Ascend910B");
  HostTensor gy = make(k, dims(k, k.ho, k.wo), k.dt, rng),
             gx = make(k, dims(k, k.h, k.w), k.dt, rng);
  std::vector<float> want(planes * k.h * k.w, 0.0f);
  std::normal_distribution<float> nd;
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t o = 0; o < k.ho * k.wo; ++o) {
      const float g = round_to(k.dt, nd(rng));
      gy.set(vpos(k, k.ho, k.wo, pl / k.c, pl % k.c, o / k.wo, o % k.wo), g);
      want[pl * k.h * k.w + ridx[pl * k.ho * k.wo + o]] += g;
    }
  ASSERT_EQ(
      aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), gx.t(), &ws, &ex),
      ACLNN_SUCCESS)
      << last_msg();
  ASSERT_EQ(aclnnAdaptiveMaxPool2dBackward(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS)
      << last_msg();
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t i = 0; i < k.h * k.w; ++i)
      ASSERT_EQ(gx.get(vpos(k, k.h, k.w, pl / k.c, pl % k.c, i / k.w, i % k.w)),
                round_to(k.dt, want[pl * k.h * k.w + i]))
          << "gradInput plane " << pl << " pos " << i;
  EXPECT_TRUE(gx.outside_view_untouched());
  poolgradSetNumThreads(before);
}

TEST(AdaptiveMaxPool, RandomAgainstNaiveReference) {
  std::mt19937 rng(16);
  const Case fixed[] = {
      {1, 1, 4, 4, 2, 2},                            // CANN's sample shape
      {2, 3, 37, 37, 7, 7},                          // overlapping bins
      {2, 4, 40, 40, 1, 1},                          // global max pool (CBAM)
      {1, 2, 5, 7, 9, 11},                           // more outputs than inputs
      {2, 20, 13, 9, 4, 3, ACL_FLOAT, false, true},  // NHWC
      {1, 3, 11, 6, 5, 4, ACL_FLOAT16, true},        // rank 3
      {2, 2, 9, 10, 4, 3, ACL_BF16, false, false, true, 3},
  };
  for (const Case &k : fixed) {
    run_case(k, rng);
    if (HasFatalFailure()) return;
  }
  const aclDataType dts[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  for (int i = 0; i < 80; ++i) {
    Case k{1 + static_cast<int64_t>(rng() % 2),  1 + static_cast<int64_t>(rng() % 4),
           1 + static_cast<int64_t>(rng() % 15), 1 + static_cast<int64_t>(rng() % 15),
           1 + static_cast<int64_t>(rng() % 8),  1 + static_cast<int64_t>(rng() % 8)};
    k.dt = dts[rng() % 3];
    k.rank3 = rng() % 4 == 0;
    if (k.rank3) k.n = 1;
    k.nhwc = rng() % 3 == 0;
    k.strided = rng() % 3 == 0;
    k.threads = 1 + static_cast<int>(rng() % 3);
    run_case(k, rng);
    if (HasFatalFailure()) return;
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
    Case k{1 + static_cast<int64_t>(rng() % 2),  1 + static_cast<int64_t>(rng() % 3),
           1 + static_cast<int64_t>(rng() % 12), 1 + static_cast<int64_t>(rng() % 12),
           1 + static_cast<int64_t>(rng() % 6),  1 + static_cast<int64_t>(rng() % 6)};
    k.nhwc = i % 3 == 1;
    k.strided = i % 4 == 2;
    SCOPED_TRACE(testing::Message() << "case " << i);
    HostTensor x = make(k, dims(k, k.h, k.w), ACL_DOUBLE, rng),
               out = make(k, dims(k, k.ho, k.wo), ACL_DOUBLE, rng),
               idx = make(k, dims(k, k.ho, k.wo), ACL_INT64, rng);
    const int64_t planes = k.n * k.c;
    std::vector<double> xd(planes * k.h * k.w);
    for (int64_t pl = 0; pl < planes; ++pl)
      for (int64_t j = 0; j < k.h * k.w; ++j) {
        // 1 + m * 2^-40: distinct doubles that round to the same float32.
        const double v = rng() % 40 == 0 ? NAN : 1.0 + static_cast<double>(rng() % 6) * 0x1p-40;
        xd[pl * k.h * k.w + j] = v;
        x.set_double(vpos(k, k.h, k.w, pl / k.c, pl % k.c, j / k.w, j % k.w), v);
      }
    IntArray os({k.ho, k.wo});
    uint64_t ws;
    aclOpExecutor *ex;
    ASSERT_EQ(aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t(), os, out.t(), idx.t(), &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    ASSERT_EQ(aclnnAdaptiveMaxPool2d(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS) << last_msg();
    for (int64_t pl = 0; pl < planes; ++pl)
      for (int64_t oh = 0; oh < k.ho; ++oh)
        for (int64_t ow = 0; ow < k.wo; ++ow) {
          double best;
          int64_t bi;
          ref_max(xd, pl, k.h, k.w, k.ho, k.wo, oh, ow, &best, &bi);
          const int64_t vp = vpos(k, k.ho, k.wo, pl / k.c, pl % k.c, oh, ow);
          const double got = out.get_double(vp);
          ASSERT_TRUE((std::isnan(best) && std::isnan(got)) || best == got)
              << "plane " << pl << " (" << oh << "," << ow << ")";
          ASSERT_EQ(idx.get_int(vp), bi) << "plane " << pl << " (" << oh << "," << ow << ")";
        }
    EXPECT_TRUE(out.outside_view_untouched());
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
