// SPDX-License-Identifier: Apache-2.0
// The adaptive 2-D tester: aclnnAdaptiveMaxPool2d, then (but for DOUBLE, which CANN's backward
// does not take) aclnnAdaptiveMaxPool2dBackward on Ascend910B, through the public C API, compared
// with a naive reference written here from the bin rule (nothing shared with the library).
#include "adaptive_tester.h"

#include <cmath>
#include <vector>

#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_adaptive_max_pool2d_backward.h"
#include "poolgrad/poolgrad.h"
#include "test_util.h"

namespace pgtest {

namespace {

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

std::vector<int64_t> dims(const AdaptiveCase &k, int64_t a, int64_t b) {
  std::vector<int64_t> d =
      k.nhwc ? std::vector<int64_t>{a, b, k.c} : std::vector<int64_t>{k.c, a, b};
  if (!k.rank3) d.insert(d.begin(), k.n);
  return d;
}

// View position of logical (n, c, y, x).
int64_t vpos(const AdaptiveCase &k, int64_t hh, int64_t ww, int64_t n, int64_t c, int64_t y,
             int64_t x) {
  const int64_t inner = k.nhwc ? (y * ww + x) * k.c + c : (c * hh + y) * ww + x;
  return k.rank3 ? inner : n * k.c * hh * ww + inner;
}

HostTensor make(const AdaptiveCase &k, std::vector<int64_t> d, aclDataType dt, std::mt19937 &rng) {
  const aclFormat f = k.nhwc ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW;
  if (!k.strided) return HostTensor(d, dt, f);
  std::vector<int> perm(d.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(perm.size() - 1 - i);
  return make_strided(d, perm, static_cast<int64_t>(rng() % 3), 1, dt, f);
}

// Fills x (ties, NaN; for DOUBLE values equal in float32 but not in double), runs the forward
// and compares out and idx with the reference; returns the reference indices (plane-major).
template <class T>
std::vector<int64_t> check_forward(const AdaptiveCase &k, std::mt19937 &rng, HostTensor &x,
                                   HostTensor &out, HostTensor &idx) {
  const int64_t planes = k.n * k.c;
  std::vector<T> xd(planes * k.h * k.w);
  std::uniform_int_distribution<int> v(-4, 4);
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t i = 0; i < k.h * k.w; ++i) {
      T val;
      if (rng() % 50 == 0)
        val = NAN;
      else if (k.dt == ACL_DOUBLE)  // 1 + m * 2^-40
        val = static_cast<T>(1.0 + static_cast<double>(rng() % 6) * 0x1p-40);
      else
        val = round_to(k.dt, static_cast<float>(v(rng)) / 2);
      xd[pl * k.h * k.w + i] = val;
      const int64_t at = vpos(k, k.h, k.w, pl / k.c, pl % k.c, i / k.w, i % k.w);
      if (k.dt == ACL_DOUBLE)
        x.set_double(at, static_cast<double>(val));
      else
        x.set(at, static_cast<float>(val));
    }
  std::vector<int64_t> ridx(planes * k.ho * k.wo);
  IntArray os({k.ho, k.wo});
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_EQ(aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t(), os, out.t(), idx.t(), &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  if (testing::Test::HasFailure()) return ridx;
  EXPECT_EQ(aclnnAdaptiveMaxPool2d(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS) << last_msg();
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t oh = 0; oh < k.ho; ++oh)
      for (int64_t ow = 0; ow < k.wo; ++ow) {
        T best;
        int64_t bi;
        ref_max(xd, pl, k.h, k.w, k.ho, k.wo, oh, ow, &best, &bi);
        const int64_t vp = vpos(k, k.ho, k.wo, pl / k.c, pl % k.c, oh, ow);
        const T got =
            k.dt == ACL_DOUBLE ? static_cast<T>(out.get_double(vp)) : static_cast<T>(out.get(vp));
        EXPECT_TRUE((std::isnan(best) && std::isnan(got)) || best == got)
            << "plane " << pl << " (" << oh << "," << ow << ") want " << best << " got " << got;
        EXPECT_EQ(idx.get_int(vp), bi) << "plane " << pl << " (" << oh << "," << ow << ")";
        if (testing::Test::HasFailure()) return ridx;
        ridx[(pl * k.ho + oh) * k.wo + ow] = bi;
      }
  EXPECT_TRUE(out.outside_view_untouched());
  EXPECT_TRUE(idx.outside_view_untouched());
  return ridx;
}

// The backward (Ascend910B): the scatter-sum at the forward's indices, in (oh, ow) order.
void check_backward(const AdaptiveCase &k, std::mt19937 &rng, HostTensor &x, HostTensor &idx,
                    const std::vector<int64_t> &ridx) {
  const int64_t planes = k.n * k.c;
  Profile a2("Ascend910B");
  // DOUBLE: not in CANN's list for the backward; poolgrad's extension (poolgrad.h) takes it, on
  // every product, summed in double.
  const bool dbl = k.dt == ACL_DOUBLE;
  const DoubleDtypeScope extension(dbl);
  HostTensor gy = make(k, dims(k, k.ho, k.wo), k.dt, rng),
             gx = make(k, dims(k, k.h, k.w), k.dt, rng);
  std::vector<double> want(planes * k.h * k.w, 0.0);
  std::normal_distribution<double> nd;
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t o = 0; o < k.ho * k.wo; ++o) {
      const double g = dbl ? nd(rng) : round_to(k.dt, static_cast<float>(nd(rng)));
      gy.set_real(vpos(k, k.ho, k.wo, pl / k.c, pl % k.c, o / k.wo, o % k.wo), g);
      double &w = want[pl * k.h * k.w + ridx[pl * k.ho * k.wo + o]];
      w = dbl ? w + g : static_cast<float>(w) + static_cast<float>(g);
    }
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(
      aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), gx.t(), &ws, &ex),
      ACLNN_SUCCESS)
      << last_msg();
  ASSERT_EQ(aclnnAdaptiveMaxPool2dBackward(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS)
      << last_msg();
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t i = 0; i < k.h * k.w; ++i)
      ASSERT_EQ(gx.get_real(vpos(k, k.h, k.w, pl / k.c, pl % k.c, i / k.w, i % k.w)),
                dbl ? want[pl * k.h * k.w + i]
                    : round_to(k.dt, static_cast<float>(want[pl * k.h * k.w + i])))
          << "gradInput plane " << pl << " pos " << i;
  EXPECT_TRUE(gx.outside_view_untouched());
}

}  // namespace

void run_adaptive_case(const AdaptiveCase &k, std::mt19937 &rng) {
  SCOPED_TRACE(testing::Message() << "N=" << k.n << " C=" << k.c << " H=" << k.h << " W=" << k.w
                                  << " out=" << k.ho << "x" << k.wo << " dt=" << k.dt
                                  << " rank3=" << k.rank3 << " nhwc=" << k.nhwc
                                  << " strided=" << k.strided << " threads=" << k.threads);
  const int before = poolgradGetNumThreads();
  if (k.threads) poolgradSetNumThreads(k.threads);
  HostTensor x = make(k, dims(k, k.h, k.w), k.dt, rng),
             out = make(k, dims(k, k.ho, k.wo), k.dt, rng),
             idx = make(k, dims(k, k.ho, k.wo), ACL_INT64, rng);
  const std::vector<int64_t> ridx = k.dt == ACL_DOUBLE ? check_forward<double>(k, rng, x, out, idx)
                                                       : check_forward<float>(k, rng, x, out, idx);
  if (!testing::Test::HasFailure()) check_backward(k, rng, x, idx, ridx);
  poolgradSetNumThreads(before);
}

AdaptiveCase random_adaptive_case(std::mt19937 &rng) {
  const aclDataType dts[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  AdaptiveCase k;
  k.n = 1 + static_cast<int64_t>(rng() % 2);
  k.c = 1 + static_cast<int64_t>(rng() % 4);
  k.h = 1 + static_cast<int64_t>(rng() % 15);
  k.w = 1 + static_cast<int64_t>(rng() % 15);
  k.ho = 1 + static_cast<int64_t>(rng() % 8);
  k.wo = 1 + static_cast<int64_t>(rng() % 8);
  k.dt = dts[rng() % 3];
  k.rank3 = rng() % 4 == 0;
  if (k.rank3) k.n = 1;
  k.nhwc = rng() % 3 == 0;
  k.strided = rng() % 3 == 0;
  k.threads = 1 + static_cast<int>(rng() % 3);
  return k;
}

void AdaptiveTester::test() const {
  std::mt19937 rng(seed_);
  run_adaptive_case(k_, rng);
}

}  // namespace pgtest
