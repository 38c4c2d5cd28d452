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

using namespace pgtest;

namespace {

const char *kFwd = "aclnnMaxPool3dWithArgmax";
const char *kBwd = "aclnnMaxPool3dWithArgmaxBackward";
const char *kAFwd = "aclnnAdaptiveMaxPool3d";
const char *kABwd = "aclnnAdaptiveMaxPool3dBackward";

// ---- the reference: windows by enumeration, nothing shared with the library ----
// Output size of one max-pool axis, as PyTorch's pooling_output_shape computes it.
int64_t ref_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  const int64_t num = span + (ceil ? s - 1 : 0);
  int64_t o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;  // floor division
  if (ceil && (o - 1) * s >= in + p) --o;
  return o;
}
// Input positions of output o on one axis.
std::vector<int64_t> ref_taps(bool adaptive, int64_t o, int64_t in, int64_t out, int64_t k,
                              int64_t s, int64_t p, int64_t d) {
  std::vector<int64_t> t;
  if (adaptive) {
    int64_t b = 0;
    while ((b + 1) * out <= o * in) ++b;                              // floor(o*in/out)
    for (int64_t i = b; i * out < (o + 1) * in; ++i) t.push_back(i);  // up to ceil
    return t;
  }
  for (int64_t m = 0; m < k; ++m) {
    const int64_t i = o * s - p + m * d;
    if (i >= 0 && i < in) t.push_back(i);
  }
  return t;
}

struct Case {
  int64_t n = 1, c = 1, in[3] = {1, 1, 1};
  int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
  bool ceil = false, adaptive = false;
  int64_t osize[3] = {1, 1, 1};  // adaptive output size
  aclDataType dt = ACL_FLOAT, idt = ACL_INT64;
  bool rank4 = false, cl = false, strided = false;
  int threads = 0;
  int64_t out(int a) const {
    return adaptive ? osize[a] : ref_out(in[a], k[a], s[a], p[a], d[a], ceil);
  }
};

std::vector<int64_t> dims(const Case &k, const int64_t sp[3]) {
  std::vector<int64_t> v = k.cl ? std::vector<int64_t>{sp[0], sp[1], sp[2], k.c}
                                : std::vector<int64_t>{k.c, sp[0], sp[1], sp[2]};
  if (!k.rank4) v.insert(v.begin(), k.n);
  return v;
}
// View position of logical (n, c, z, y, x) in a tensor of spatial sizes sp.
int64_t vpos(const Case &k, const int64_t sp[3], int64_t n, int64_t c, int64_t z, int64_t y,
             int64_t x) {
  const int64_t inner =
      k.cl ? ((z * sp[1] + y) * sp[2] + x) * k.c + c : ((c * sp[0] + z) * sp[1] + y) * sp[2] + x;
  return k.rank4 ? inner : n * k.c * sp[0] * sp[1] * sp[2] + inner;
}

HostTensor make(const Case &k, std::vector<int64_t> d, aclDataType dt, std::mt19937 &rng) {
  const aclFormat f = k.cl ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW;
  if (!k.strided) return HostTensor(d, dt, f);
  std::vector<int> perm(d.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(perm.size() - 1 - i);
  return make_strided(d, perm, static_cast<int64_t>(rng() % 3), 1, dt, f);
}

aclnnStatus forward(const Case &k, HostTensor &x, HostTensor &out, HostTensor &idx) {
  uint64_t ws;
  aclOpExecutor *ex;
  aclnnStatus st;
  if (k.adaptive) {
    IntArray os({k.osize[0], k.osize[1], k.osize[2]});
    st = aclnnAdaptiveMaxPool3dGetWorkspaceSize(x.t(), os, out.t(), idx.t(), &ws, &ex);
    if (st) return st;
    return aclnnAdaptiveMaxPool3d(workspace(ws), ws, ex, nullptr);
  }
  IntArray ks({k.k[0], k.k[1], k.k[2]}), ss({k.s[0], k.s[1], k.s[2]}), ps({k.p[0], k.p[1], k.p[2]}),
      ds({k.d[0], k.d[1], k.d[2]});
  st = aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t(), ks, ss, ps, ds, k.ceil, out.t(), idx.t(),
                                                &ws, &ex);
  if (st) return st;
  return aclnnMaxPool3dWithArgmax(workspace(ws), ws, ex, nullptr);
}

aclnnStatus backward(const Case &k, HostTensor &gy, HostTensor &x, HostTensor &idx,
                     HostTensor &gx) {
  uint64_t ws;
  aclOpExecutor *ex;
  aclnnStatus st;
  if (k.adaptive) {
    st = aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), gx.t(), &ws, &ex);
    if (st) return st;
    return aclnnAdaptiveMaxPool3dBackward(workspace(ws), ws, ex, nullptr);
  }
  IntArray ks({k.k[0], k.k[1], k.k[2]}), ss({k.s[0], k.s[1], k.s[2]}), ps({k.p[0], k.p[1], k.p[2]}),
      ds({k.d[0], k.d[1], k.d[2]});
  st = aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), ks, ss, ps, ds,
                                                        k.ceil, gx.t(), &ws, &ex);
  if (st) return st;
  return aclnnMaxPool3dWithArgmaxBackward(workspace(ws), ws, ex, nullptr);
}

void run_case(const Case &k, std::mt19937 &rng) {
  SCOPED_TRACE(testing::Message() << "N=" << k.n << " C=" << k.c << " in=" << k.in[0] << "x"
                                  << k.in[1] << "x" << k.in[2] << " adaptive=" << k.adaptive
                                  << " k=" << k.k[0] << k.k[1] << k.k[2] << " s=" << k.s[0]
                                  << k.s[1] << k.s[2] << " p=" << k.p[0] << k.p[1] << k.p[2]
                                  << " d=" << k.d[0] << k.d[1] << k.d[2] << " ceil=" << k.ceil
                                  << " out=" << k.out(0) << "x" << k.out(1) << "x" << k.out(2)
                                  << " dt=" << k.dt << " idt=" << k.idt << " rank4=" << k.rank4
                                  << " cl=" << k.cl << " strided=" << k.strided
                                  << " threads=" << k.threads);
  const int before = poolgradGetNumThreads();
  if (k.threads) poolgradSetNumThreads(k.threads);
  const int64_t o[3] = {k.out(0), k.out(1), k.out(2)};
  const int64_t vols = k.n * k.c, vin = k.in[0] * k.in[1] * k.in[2], vout = o[0] * o[1] * o[2];
  HostTensor x = make(k, dims(k, k.in), k.dt, rng), out = make(k, dims(k, o), k.dt, rng),
             idx = make(k, dims(k, o), k.idt, rng);
  std::vector<float> xd(vols * vin);
  std::uniform_int_distribution<int> v(-4, 4);
  for (int64_t vo = 0; vo < vols; ++vo)
    for (int64_t i = 0; i < vin; ++i) {
      const float val = rng() % 50 == 0 ? NAN : round_to(k.dt, static_cast<float>(v(rng)) / 2);
      xd[vo * vin + i] = val;
      x.set(vpos(k, k.in, vo / k.c, vo % k.c, i / (k.in[1] * k.in[2]), i / k.in[2] % k.in[1],
                 i % k.in[2]),
            val);
    }
  ASSERT_EQ(forward(k, x, out, idx), ACLNN_SUCCESS) << last_msg();
  std::vector<int64_t> ridx(vols * vout);
  for (int64_t vo = 0; vo < vols; ++vo)
    for (int64_t i = 0; i < vout; ++i) {
      const int64_t oz = i / (o[1] * o[2]), oy = i / o[2] % o[1], ox = i % o[2];
      std::vector<int64_t> t[3];
      const int64_t oc[3] = {oz, oy, ox};
      for (int a = 0; a < 3; ++a)
        t[a] = ref_taps(k.adaptive, oc[a], k.in[a], o[a], k.k[a], k.s[a], k.p[a], k.d[a]);
      float best = -INFINITY;
      int64_t bi = -1;
      for (int64_t z : t[0])
        for (int64_t y : t[1])
          for (int64_t x0 : t[2]) {
            const int64_t f = (z * k.in[1] + y) * k.in[2] + x0;
            const float val = xd[vo * vin + f];
            // PyTorch's rule: the first tap starts, a larger value or a NaN replaces.
            if (bi < 0 || val > best || std::isnan(val)) best = val, bi = f;
          }
      const int64_t vp = vpos(k, o, vo / k.c, vo % k.c, oz, oy, ox);
      const float got = out.get(vp);
      ASSERT_TRUE((std::isnan(best) && std::isnan(got)) || best == got)
          << "volume " << vo << " out " << i << " want " << best << " got " << got;
      ASSERT_EQ(idx.get_int(vp), bi) << "volume " << vo << " out " << i;
      ridx[vo * vout + i] = bi;
    }
  EXPECT_TRUE(out.outside_view_untouched());
  EXPECT_TRUE(idx.outside_view_untouched());
  // Backward: the scatter-sum at the forward's indices, in (od, oh, ow) order, float32.
  HostTensor gy = make(k, dims(k, o), k.dt, rng), gx = make(k, dims(k, k.in), k.dt, rng);
  std::vector<float> want(vols * vin, 0.0f);
  std::normal_distribution<float> nd;
  for (int64_t vo = 0; vo < vols; ++vo)
    for (int64_t i = 0; i < vout; ++i) {
      const float g = round_to(k.dt, nd(rng));
      gy.set(vpos(k, o, vo / k.c, vo % k.c, i / (o[1] * o[2]), i / o[2] % o[1], i % o[2]), g);
      if (ridx[vo * vout + i] >= 0) want[vo * vin + ridx[vo * vout + i]] += g;
    }
  ASSERT_EQ(backward(k, gy, x, idx, gx), ACLNN_SUCCESS) << last_msg();
  for (int64_t vo = 0; vo < vols; ++vo)
    for (int64_t i = 0; i < vin; ++i) {
      const float got = gx.get(vpos(k, k.in, vo / k.c, vo % k.c, i / (k.in[1] * k.in[2]),
                                    i / k.in[2] % k.in[1], i % k.in[2]));
      const float w = round_to(k.dt, want[vo * vin + i]);
      ASSERT_TRUE((std::isnan(w) && std::isnan(got)) || w == got)
          << "gradInput volume " << vo << " pos " << i << " want " << w << " got " << got;
    }
  EXPECT_TRUE(gx.outside_view_untouched());
  poolgradSetNumThreads(before);
}

int64_t rnd(std::mt19937 &rng, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(rng() % static_cast<uint32_t>(hi - lo + 1));
}

Case random_case(std::mt19937 &rng, bool adaptive) {
  const aclDataType dts[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  Case k;
  k.adaptive = adaptive;
  k.n = rnd(rng, 0, 2) == 0 && rng() % 4 == 0 ? 0 : rnd(rng, 1, 2);
  k.c = rnd(rng, 1, 4);
  for (int a = 0; a < 3; ++a) {
    k.in[a] = rnd(rng, 1, 9);
    if (adaptive) {
      k.osize[a] = rnd(rng, 1, 6);
      continue;
    }
    k.k[a] = rnd(rng, 1, 4);
    k.s[a] = rnd(rng, 1, 3);
    k.p[a] = rnd(rng, 0, k.k[a] / 2);
    k.d[a] = rng() % 4 == 0 ? 2 : 1;
  }
  k.ceil = !adaptive && rng() % 2;
  if (!adaptive)  // grow the input until every axis has an output
    for (int a = 0; a < 3; ++a)
      while (ref_out(k.in[a], k.k[a], k.s[a], k.p[a], k.d[a], k.ceil) <= 0) ++k.in[a];
  k.dt = dts[rng() % 3];
  k.idt = rng() % 2 ? ACL_INT32 : ACL_INT64;
  k.rank4 = rng() % 4 == 0;
  if (k.rank4) k.n = 1;
  k.cl = !adaptive && rng() % 3 == 0;
  k.strided = rng() % 3 == 0;
  k.threads = 1 + static_cast<int>(rng() % 3);
  return k;
}

TEST(MaxPool3d, RandomAgainstNaiveReference) {
  std::mt19937 rng(3);
  Case video;  // the benchmark's shape, smaller: k3 s2 p1
  video.n = 2, video.c = 3, video.in[0] = 6, video.in[1] = 11, video.in[2] = 12;
  for (int a = 0; a < 3; ++a) video.k[a] = 3, video.s[a] = 2, video.p[a] = 1;
  run_case(video, rng);
  Case empty_windows = video;  // dilation 4 with padding 1: windows with no input element
  for (int a = 0; a < 3; ++a)
    empty_windows.k[a] = 2, empty_windows.d[a] = 5, empty_windows.in[a] = 5;
  empty_windows.s[2] = 1;
  run_case(empty_windows, rng);
  Case ceil = video;
  ceil.ceil = true, ceil.in[2] = 10;
  run_case(ceil, rng);
  if (HasFatalFailure()) return;
  for (int i = 0; i < 250; ++i) {
    run_case(random_case(rng, false), rng);
    if (HasFatalFailure()) return;
  }
}

TEST(AdaptiveMaxPool3d, RandomAgainstNaiveReference) {
  std::mt19937 rng(33);
  Case global;  // a global max pool (the 3-D CBAM / SE case) and 37 -> 7 overlapping bins
  global.n = 2, global.c = 3, global.in[0] = 4, global.in[1] = 9, global.in[2] = 10;
  global.adaptive = true;
  run_case(global, rng);
  Case overlap = global;
  overlap.in[0] = 3, overlap.in[1] = 37, overlap.in[2] = 37;
  overlap.osize[0] = 2, overlap.osize[1] = 7, overlap.osize[2] = 7;
  run_case(overlap, rng);
  if (HasFatalFailure()) return;
  for (int i = 0; i < 200; ++i) {
    run_case(random_case(rng, true), rng);
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
