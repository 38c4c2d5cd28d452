// SPDX-License-Identifier: Apache-2.0
// The max-pool tester: inputs, the two calls, the comparison with tests/maxpool_ref.h.
#include "maxpool_tester.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "maxpool_ref.h"
#include "poolgrad/poolgrad.h"
#include "test_util.h"

namespace pgtest {

namespace {

const char *kFwd = "aclnnMaxPool2dWithIndices";

PoolRef ref_attrs(const Cfg &c) {
  auto two = [](const std::vector<int64_t> &v, int64_t dflt0, int64_t dflt1, int i) {
    if (v.empty()) return i == 0 ? dflt0 : dflt1;
    return v.size() == 2 ? v[i] : v[0];
  };
  PoolRef a;
  a.kh = two(c.k, 0, 0, 0);
  a.kw = two(c.k, 0, 0, 1);
  a.sh = two(c.s, a.kh, a.kw, 0);
  a.sw = two(c.s, a.kh, a.kw, 1);
  a.ph = two(c.p, 0, 0, 0);
  a.pw = two(c.p, 0, 0, 1);
  a.dh = two(c.d, 1, 1, 0);
  a.dw = two(c.d, 1, 1, 1);
  a.ceil = c.ceil;
  return a;
}

std::vector<int64_t> view_dims(const Cfg &c, int64_t h, int64_t w) {
  std::vector<int64_t> d =
      c.nhwc ? std::vector<int64_t>{h, w, c.c} : std::vector<int64_t>{c.c, h, w};
  if (!c.rank3) d.insert(d.begin(), c.n);
  return d;
}

// Linear position in the view (row-major over view dims) of logical (n, c, h, w).
int64_t vpos(const Cfg &c, int64_t h, int64_t w, int64_t n, int64_t ch, int64_t y, int64_t x) {
  const int64_t inner = c.nhwc ? (y * w + x) * c.c + ch : (ch * h + y) * w + x;
  return c.rank3 ? inner : n * c.c * h * w + inner;
}

HostTensor make(const Cfg &c, const std::vector<int64_t> &dims, aclDataType dt, std::mt19937 &rng) {
  const aclFormat fmt = c.nhwc ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW;
  if (c.layout == Layout::Contiguous) return HostTensor(dims, dt, fmt);
  std::vector<int> perm(dims.size());
  std::iota(perm.begin(), perm.end(), 0);
  if (c.layout == Layout::OtherOrder) {
    // NCHW view with NHWC memory (PyTorch channels-last), or NHWC view with NCHW memory.
    const int r = static_cast<int>(dims.size()), o = r == 4 ? 1 : 0;
    if (c.nhwc)
      perm = r == 4 ? std::vector<int>{0, 3, 1, 2} : std::vector<int>{2, 0, 1};
    else
      perm = r == 4 ? std::vector<int>{0, 2, 3, 1} : std::vector<int>{1, 2, 0};
    (void)o;
  } else {
    std::shuffle(perm.begin(), perm.end(), rng);
  }
  const int64_t gap = c.layout == Layout::Random ? static_cast<int64_t>(rng() % 3) : 0;
  const int64_t off = c.layout == Layout::Random ? static_cast<int64_t>(rng() % 5) : 0;
  return make_strided(dims, perm, gap, off, dt, fmt);
}

}  // namespace

void run_case(const Cfg &c, std::mt19937 &rng, Indices indices) {
  const bool random_indices = indices == Indices::Random;
  SCOPED_TRACE(testing::Message() << "N=" << c.n << " C=" << c.c << " H=" << c.h << " W=" << c.w
                                  << " k=" << c.k[0]
                                  << (c.k.size() > 1 ? "," + std::to_string(c.k[1]) : "")
                                  << " s=" << (c.s.empty() ? -1 : c.s[0]) << " p=" << c.p[0]
                                  << " d=" << c.d[0] << " ceil=" << c.ceil << " dt=" << c.dt
                                  << " idt=" << c.idt << " rank3=" << c.rank3 << " nhwc=" << c.nhwc
                                  << " layout=" << static_cast<int>(c.layout));
  const PoolRef a = ref_attrs(c);
  const int64_t ho = ref_out_size(c.h, a.kh, a.sh, a.ph, a.dh, c.ceil);
  const int64_t wo = ref_out_size(c.w, a.kw, a.sw, a.pw, a.dw, c.ceil);
  const int64_t planes = c.n * c.c;
  const bool dbl = c.dt == ACL_DOUBLE;  // poolgrad's extension, on for this case
  const DoubleDtypeScope extension(dbl);
  HostTensor x = make(c, view_dims(c, c.h, c.w), c.dt, rng);
  std::vector<double> xd(planes * c.h * c.w);
  std::uniform_int_distribution<int> small(-3, 3);
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t i = 0; i < c.h * c.w; ++i) {
      float v = static_cast<float>(small(rng)) * 0.5f;
      const unsigned r = rng() % 40;
      if (r == 0) v = std::nanf("");
      if (r == 1) v = -INFINITY;
      // DOUBLE: half the values apart below float32's precision (a narrowing kernel fails).
      const double tiny = dbl && rng() % 2 ? static_cast<double>(rng() % 64) * 0x1p-40 : 0.0;
      xd[pl * c.h * c.w + i] = round_to(c.dt, v) + tiny;
      x.set_real(vpos(c, c.h, c.w, pl / c.c, pl % c.c, i / c.w, i % c.w), xd[pl * c.h * c.w + i]);
    }
  IntArray k(c.k), s(c.s), p(c.p), d(c.d);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  if (ho <= 0 || wo <= 0) {
    HostTensor out = make(c, view_dims(c, 1, 1), c.dt, rng),
               idx = make(c, view_dims(c, 1, 1), c.idt, rng);
    EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, c.ceil, out.t(),
                                                                idx.t(), &ws, &ex),
                      ACLNN_ERR_PARAM_INVALID, kFwd, "output size must be > 0");
    return;
  }
  HostTensor out = make(c, view_dims(c, ho, wo), c.dt, rng),
             idx = make(c, view_dims(c, ho, wo), c.idt, rng);
  ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, c.ceil, out.t(), idx.t(),
                                                      &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  ASSERT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS)
      << last_msg();
  std::vector<double> rout;
  std::vector<int64_t> ridx;
  ref_forward(xd, planes, c.h, c.w, a, ho, wo, &rout, &ridx);
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t o = 0; o < ho * wo; ++o) {
      const int64_t vp = vpos(c, ho, wo, pl / c.c, pl % c.c, o / wo, o % wo);
      const double want = rout[pl * ho * wo + o], got = out.get_real(vp);
      ASSERT_TRUE((std::isnan(want) && std::isnan(got)) || want == got)
          << "out plane " << pl << " pos " << o << " want " << want << " got " << got;
      ASSERT_EQ(idx.get_int(vp), ridx[pl * ho * wo + o]) << "indices plane " << pl << " pos " << o;
    }
  EXPECT_TRUE(out.outside_view_untouched());
  EXPECT_TRUE(idx.outside_view_untouched());

  // Backward with the forward's indices, or random ones (any position of the plane, and -1).
  if (random_indices) {
    std::uniform_int_distribution<int64_t> pos(-1, c.h * c.w - 1);
    for (int64_t pl = 0; pl < planes; ++pl)
      for (int64_t o = 0; o < ho * wo; ++o) {
        ridx[pl * ho * wo + o] = pos(rng);
        idx.set_int(vpos(c, ho, wo, pl / c.c, pl % c.c, o / wo, o % wo), ridx[pl * ho * wo + o]);
      }
  }
  if (indices == Indices::Moved) {
    std::uniform_int_distribution<int64_t> pos(-1, c.h * c.w - 1), out_pos(0, ho * wo - 1);
    for (int64_t pl = 1; pl < planes; pl += 2) {
      const int64_t o = out_pos(rng);
      ridx[pl * ho * wo + o] = pos(rng);
      idx.set_int(vpos(c, ho, wo, pl / c.c, pl % c.c, o / wo, o % wo), ridx[pl * ho * wo + o]);
    }
  }
  HostTensor gy = make(c, view_dims(c, ho, wo), c.dt, rng);
  std::vector<float> gyd(planes * ho * wo);
  std::vector<double> gyd64(planes * ho * wo);  // DOUBLE's gradients, summed in double
  std::normal_distribution<double> nd;
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t o = 0; o < ho * wo; ++o) {
      const double g = nd(rng);
      const double v = indices == Indices::Moved && rng() % 16 == 0 ? -0.0
                       : dbl                                        ? g
                             : round_to(c.dt, static_cast<float>(g));
      gyd[pl * ho * wo + o] = static_cast<float>(v);
      gyd64[pl * ho * wo + o] = v;
      gy.set_real(vpos(c, ho, wo, pl / c.c, pl % c.c, o / wo, o % wo), v);
    }
  HostTensor gx = make(c, view_dims(c, c.h, c.w), c.dt, rng);
  for (int64_t i = 0; i < gx.numel(); ++i) gx.set_real(i, 777.0);  // must be overwritten
  ASSERT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), k, s, p, d,
                                                              c.ceil, gx.t(), &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  ASSERT_EQ(aclnnMaxPool2dWithIndicesBackward(pgtest::workspace(ws), ws, ex, nullptr),
            ACLNN_SUCCESS)
      << last_msg();
  const std::vector<float> rgx = ref_backward(gyd, ridx, planes, c.h, c.w, ho, wo);
  const std::vector<double> rgx64 = ref_backward(gyd64, ridx, planes, c.h, c.w, ho, wo);
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t i = 0; i < c.h * c.w; ++i) {
      const double want = dbl ? rgx64[pl * c.h * c.w + i] : round_to(c.dt, rgx[pl * c.h * c.w + i]);
      const double got = gx.get_real(vpos(c, c.h, c.w, pl / c.c, pl % c.c, i / c.w, i % c.w));
      ASSERT_EQ(want, got) << "gradInput plane " << pl << " pos " << i;
      ASSERT_EQ(std::signbit(want), std::signbit(got)) << "gradInput plane " << pl << " pos " << i;
    }
  EXPECT_TRUE(gx.outside_view_untouched());
}

Cfg random_cfg(std::mt19937 &rng) {
  auto u = [&](int lo, int hi) { return static_cast<int64_t>(lo + rng() % (hi - lo + 1)); };
  Cfg c;
  c.n = u(0, 9) == 0 ? 0 : u(1, 3);
  c.c = u(1, 4);
  c.h = u(1, 12);
  c.w = u(1, 12);
  const int64_t kh = u(1, 4), kw = u(1, 4);
  c.k = u(0, 1) ? std::vector<int64_t>{kh} : std::vector<int64_t>{kh, kw};
  const int64_t kmin_h = c.k[0], kmin_w = c.k.size() == 2 ? c.k[1] : c.k[0];
  switch (u(0, 2)) {
    case 0:
      c.s = {};
      break;
    case 1:
      c.s = {u(1, 3)};
      break;
    default:
      c.s = {u(1, 3), u(1, 3)};
  }
  if (u(0, 1)) {
    c.p = {u(0, std::min(kmin_h, kmin_w) / 2)};
  } else {
    c.p = {u(0, kmin_h / 2), u(0, kmin_w / 2)};
  }
  c.d = u(0, 2) ? std::vector<int64_t>{1} : std::vector<int64_t>{u(1, 3), u(1, 3)};
  c.ceil = u(0, 1);
  const aclDataType dts[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  c.dt = dts[u(0, 2)];
  c.idt = u(0, 1) ? ACL_INT32 : ACL_INT64;
  c.rank3 = u(0, 3) == 0;
  if (c.rank3 && c.n == 0) c.n = 1;
  if (c.rank3) c.n = 1;
  c.nhwc = u(0, 2) == 0;
  c.layout = static_cast<Layout>(u(0, 2));
  return c;
}

void MaxPoolTester::test() const {
  const int before = poolgradGetNumThreads();
  if (threads_ > 0) poolgradSetNumThreads(threads_);
  std::mt19937 rng(seed_);
  run_case(c_, rng, indices_);
  poolgradSetNumThreads(before);
}

}  // namespace pgtest
