// SPDX-License-Identifier: Apache-2.0
// The 3-D tester (aclnnMaxPool3dWithArgmax and aclnnAdaptiveMaxPool3d with their backwards):
// inputs, the two calls, and the comparison with a naive reference written here from the rules
// (windows by enumeration, nothing shared with the library).
#include "volume_tester.h"

#include <cmath>
#include <vector>

#include "aclnnop/aclnn_adaptive_max_pool3d.h"
#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "poolgrad/poolgrad.h"
#include "test_util.h"

namespace pgtest {

namespace {

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

bool adaptive(const VolumeCase &k) {
  return k.op == VolumeOp::AdaptiveMaxPool3d;
}

std::vector<int64_t> dims(const VolumeCase &k, const int64_t sp[3]) {
  std::vector<int64_t> v = k.cl ? std::vector<int64_t>{sp[0], sp[1], sp[2], k.c}
                                : std::vector<int64_t>{k.c, sp[0], sp[1], sp[2]};
  if (!k.rank4) v.insert(v.begin(), k.n);
  return v;
}
// View position of logical (n, c, z, y, x) in a tensor of spatial sizes sp.
int64_t vpos(const VolumeCase &k, const int64_t sp[3], int64_t n, int64_t c, int64_t z, int64_t y,
             int64_t x) {
  const int64_t inner =
      k.cl ? ((z * sp[1] + y) * sp[2] + x) * k.c + c : ((c * sp[0] + z) * sp[1] + y) * sp[2] + x;
  return k.rank4 ? inner : n * k.c * sp[0] * sp[1] * sp[2] + inner;
}

HostTensor make(const VolumeCase &k, std::vector<int64_t> d, aclDataType dt, std::mt19937 &rng) {
  const aclFormat f = k.cl ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW;
  if (!k.strided) return HostTensor(d, dt, f);
  std::vector<int> perm(d.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(perm.size() - 1 - i);
  return make_strided(d, perm, static_cast<int64_t>(rng() % 3), 1, dt, f);
}

aclnnStatus forward(const VolumeCase &k, HostTensor &x, HostTensor &out, HostTensor &idx) {
  uint64_t ws;
  aclOpExecutor *ex;
  aclnnStatus st;
  if (adaptive(k)) {
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

aclnnStatus backward(const VolumeCase &k, HostTensor &gy, HostTensor &x, HostTensor &idx,
                     HostTensor &gx) {
  uint64_t ws;
  aclOpExecutor *ex;
  aclnnStatus st;
  if (adaptive(k)) {
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

}  // namespace

void run_volume_case(const VolumeCase &k, std::mt19937 &rng) {
  SCOPED_TRACE(testing::Message() << "N=" << k.n << " C=" << k.c << " in=" << k.in[0] << "x"
                                  << k.in[1] << "x" << k.in[2] << " adaptive=" << adaptive(k)
                                  << " k=" << k.k[0] << k.k[1] << k.k[2] << " s=" << k.s[0]
                                  << k.s[1] << k.s[2] << " p=" << k.p[0] << k.p[1] << k.p[2]
                                  << " d=" << k.d[0] << k.d[1] << k.d[2] << " ceil=" << k.ceil
                                  << " out=" << k.out(0) << "x" << k.out(1) << "x" << k.out(2)
                                  << " dt=" << k.dt << " idt=" << k.idt << " rank4=" << k.rank4
                                  << " cl=" << k.cl << " strided=" << k.strided
                                  << " threads=" << k.threads);
  const int before = poolgradGetNumThreads();
  if (k.threads) poolgradSetNumThreads(k.threads);
  const bool dbl = k.dt == ACL_DOUBLE;
  const DoubleDtypeScope extension(dbl);
  const int64_t o[3] = {k.out(0), k.out(1), k.out(2)};
  const int64_t vols = k.n * k.c, vin = k.in[0] * k.in[1] * k.in[2], vout = o[0] * o[1] * o[2];
  HostTensor x = make(k, dims(k, k.in), k.dt, rng), out = make(k, dims(k, o), k.dt, rng),
             idx = make(k, dims(k, o), k.idt, rng);
  std::vector<double> xd(vols * vin);
  std::uniform_int_distribution<int> v(-4, 4);
  for (int64_t vo = 0; vo < vols; ++vo)
    for (int64_t i = 0; i < vin; ++i) {
      // DOUBLE: half the values apart below float32's precision (a narrowing kernel fails).
      const double tiny = dbl && rng() % 2 ? static_cast<double>(rng() % 64) * 0x1p-40 : 0.0;
      const double val =
          rng() % 50 == 0 ? NAN : round_to(k.dt, static_cast<float>(v(rng)) / 2) + tiny;
      xd[vo * vin + i] = val;
      x.set_real(vpos(k, k.in, vo / k.c, vo % k.c, i / (k.in[1] * k.in[2]), i / k.in[2] % k.in[1],
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
        t[a] = ref_taps(adaptive(k), oc[a], k.in[a], o[a], k.k[a], k.s[a], k.p[a], k.d[a]);
      double best = -INFINITY;
      int64_t bi = -1;
      for (int64_t z : t[0])
        for (int64_t y : t[1])
          for (int64_t x0 : t[2]) {
            const int64_t f = (z * k.in[1] + y) * k.in[2] + x0;
            const double val = xd[vo * vin + f];
            // PyTorch's rule: the first tap starts, a larger value or a NaN replaces.
            if (bi < 0 || val > best || std::isnan(val)) best = val, bi = f;
          }
      const int64_t vp = vpos(k, o, vo / k.c, vo % k.c, oz, oy, ox);
      const double got = out.get_real(vp);
      ASSERT_TRUE((std::isnan(best) && std::isnan(got)) || best == got)
          << "volume " << vo << " out " << i << " want " << best << " got " << got;
      ASSERT_EQ(idx.get_int(vp), bi) << "volume " << vo << " out " << i;
      ridx[vo * vout + i] = bi;
    }
  EXPECT_TRUE(out.outside_view_untouched());
  EXPECT_TRUE(idx.outside_view_untouched());
  // Backward: the scatter-sum at the forward's indices, in (od, oh, ow) order, in float32 (in
  // double for DOUBLE).
  HostTensor gy = make(k, dims(k, o), k.dt, rng), gx = make(k, dims(k, k.in), k.dt, rng);
  std::vector<double> want(vols * vin, 0.0);
  std::normal_distribution<double> nd;
  for (int64_t vo = 0; vo < vols; ++vo)
    for (int64_t i = 0; i < vout; ++i) {
      const double g = dbl ? nd(rng) : round_to(k.dt, static_cast<float>(nd(rng)));
      gy.set_real(vpos(k, o, vo / k.c, vo % k.c, i / (o[1] * o[2]), i / o[2] % o[1], i % o[2]), g);
      if (ridx[vo * vout + i] < 0) continue;
      double &w = want[vo * vin + ridx[vo * vout + i]];
      w = dbl ? w + g : static_cast<float>(w) + static_cast<float>(g);
    }
  ASSERT_EQ(backward(k, gy, x, idx, gx), ACLNN_SUCCESS) << last_msg();
  for (int64_t vo = 0; vo < vols; ++vo)
    for (int64_t i = 0; i < vin; ++i) {
      const double got = gx.get_real(vpos(k, k.in, vo / k.c, vo % k.c, i / (k.in[1] * k.in[2]),
                                          i / k.in[2] % k.in[1], i % k.in[2]));
      const double w =
          dbl ? want[vo * vin + i] : round_to(k.dt, static_cast<float>(want[vo * vin + i]));
      ASSERT_TRUE((std::isnan(w) && std::isnan(got)) || w == got)
          << "gradInput volume " << vo << " pos " << i << " want " << w << " got " << got;
    }
  EXPECT_TRUE(gx.outside_view_untouched());
  poolgradSetNumThreads(before);
}

namespace {

int64_t rnd(std::mt19937 &rng, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(rng() % static_cast<uint32_t>(hi - lo + 1));
}

}  // namespace

VolumeCase random_volume_case(std::mt19937 &rng, VolumeOp op) {
  const aclDataType dts[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const bool adapt = op == VolumeOp::AdaptiveMaxPool3d;
  VolumeCase k;
  k.op = op;
  k.n = rnd(rng, 0, 2) == 0 && rng() % 4 == 0 ? 0 : rnd(rng, 1, 2);
  k.c = rnd(rng, 1, 4);
  for (int a = 0; a < 3; ++a) {
    k.in[a] = rnd(rng, 1, 9);
    if (adapt) {
      k.osize[a] = rnd(rng, 1, 6);
      continue;
    }
    k.k[a] = rnd(rng, 1, 4);
    k.s[a] = rnd(rng, 1, 3);
    k.p[a] = rnd(rng, 0, k.k[a] / 2);
    k.d[a] = rng() % 4 == 0 ? 2 : 1;
  }
  k.ceil = !adapt && rng() % 2;
  if (!adapt)  // grow the input until every axis has an output
    for (int a = 0; a < 3; ++a)
      while (ref_out(k.in[a], k.k[a], k.s[a], k.p[a], k.d[a], k.ceil) <= 0) ++k.in[a];
  k.dt = dts[rng() % 3];
  k.idt = rng() % 2 ? ACL_INT32 : ACL_INT64;
  k.rank4 = rng() % 4 == 0;
  if (k.rank4) k.n = 1;
  k.cl = !adapt && rng() % 3 == 0;
  k.strided = rng() % 3 == 0;
  k.threads = 1 + static_cast<int>(rng() % 3);
  return k;
}

int64_t VolumeCase::out(int a) const {
  return op == VolumeOp::AdaptiveMaxPool3d ? osize[a]
                                           : ref_out(in[a], k[a], s[a], p[a], d[a], ceil);
}

void VolumeTester::test() const {
  std::mt19937 rng(seed_);
  run_volume_case(k_, rng);
}

}  // namespace pgtest
