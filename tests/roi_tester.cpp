// SPDX-License-Identifier: Apache-2.0
// The RoI pooling tester: inputs, the calls, the naive reference of the spec's formulas.
#include "roi_tester.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "poolgrad/poolgrad.h"
#include "test_util.h"

namespace pgtest {

// ---- naive reference of the spec's forward formula ----------------------------------------------
void ref_bin(const std::vector<float> &x, int64_t C, int64_t H, int64_t W, const float *roi,
             int64_t c, int64_t ph, int64_t pw, int64_t PH, int64_t PW, float sh, float sw,
             float *y, int64_t *am) {
  const int64_t b = static_cast<int64_t>(std::trunc(roi[0]));
  const float xs = roi[1] * sw, ys = roi[2] * sh, xe = (roi[3] + 1.0f) * sw,
              ye = (roi[4] + 1.0f) * sh;
  *y = 0.0f;
  *am = -1;
  if ((roi[3] - roi[1] + 1.0f) * sw <= 0.0f || (roi[4] - roi[2] + 1.0f) * sh <= 0.0f) return;
  const float bw = (xe - xs) / static_cast<float>(PW), bh = (ye - ys) / static_cast<float>(PH);
  auto clampi = [](float v, int64_t hi) {
    double d = std::min<double>(std::max<double>(v, 0.0), static_cast<double>(hi));
    return static_cast<int64_t>(d);
  };
  const int64_t hs = clampi(std::floor(static_cast<float>(ph) * bh + ys), H);
  const int64_t he = clampi(std::ceil(static_cast<float>(ph + 1) * bh + ys), H);
  const int64_t ws = clampi(std::floor(static_cast<float>(pw) * bw + xs), W);
  const int64_t we = clampi(std::ceil(static_cast<float>(pw + 1) * bw + xs), W);
  if (he <= hs || we <= ws) return;
  float best = -INFINITY;
  for (int64_t h = hs; h < he; ++h)
    for (int64_t w = ws; w < we; ++w) {
      const float v = x[((b * C + c) * H + h) * W + w];
      if (v > best) {
        best = v;
        *am = h * W + w;
      }
    }
  *y = best;
}

namespace {

void fill_rois(HostTensor &rois, std::vector<float> &host, const RoiCase &k, std::mt19937 &rng) {
  std::uniform_real_distribution<float> coord(
      -8.0f, static_cast<float>(std::max(k.h, k.w)) / std::min(k.sh, k.sw) + 8.0f);
  host.assign(k.r * 5, 0.0f);
  for (int64_t r = 0; r < k.r; ++r) {
    float *row = &host[r * 5];
    row[0] = static_cast<float>(rng() % k.n);
    const unsigned kind = rng() % 8;
    float x1 = std::round(coord(rng) * 2) / 2, y1 = std::round(coord(rng) * 2) / 2;
    float x2 = x1 + static_cast<float>(rng() % 12), y2 = y1 + static_cast<float>(rng() % 12);
    if (kind == 0) std::swap(x1, x2);                       // malformed (x2 < x1)
    if (kind == 1) x2 = x1, y2 = y1;                        // one pixel
    if (kind == 2) x1 = -50, y1 = -50, x2 = -20, y2 = -30;  // wholly outside
    if (kind == 3) x1 = 0, y1 = 0, x2 = 2, y2 = 2;          // the same pixels again and again
    row[1] = x1, row[2] = y1, row[3] = x2, row[4] = y2;
    for (int j = 0; j < 5; ++j) {
      row[j] = round_to(k.dt, row[j]);
      rois.set(r * 5 + j, row[j]);
    }
  }
}

HostTensor make4(const std::vector<int64_t> &dims, aclDataType dt, bool strided,
                 std::mt19937 &rng) {
  if (!strided) return HostTensor(dims, dt, ACL_FORMAT_ND);
  std::vector<int> perm = {0, 1, 2, 3};
  std::shuffle(perm.begin(), perm.end(), rng);
  return make_strided(dims, perm, static_cast<int64_t>(rng() % 3), static_cast<int64_t>(rng() % 4),
                      dt, ACL_FORMAT_ND);
}

}  // namespace

void run_forward_case(const RoiCase &k, std::mt19937 &rng) {
  SCOPED_TRACE(testing::Message() << "N=" << k.n << " C=" << k.c << " H=" << k.h << " W=" << k.w
                                  << " R=" << k.r << " pooled=" << k.ph << "x" << k.pw
                                  << " scale=" << k.sh << "," << k.sw << " dt=" << k.dt
                                  << " strided=" << k.strided);
  HostTensor x = make4({k.n, k.c, k.h, k.w}, k.dt, k.strided, rng);
  std::vector<float> xd(k.n * k.c * k.h * k.w);
  std::uniform_int_distribution<int> vals(-20, 20);
  for (size_t i = 0; i < xd.size(); ++i) {
    xd[i] = round_to(k.dt, static_cast<float>(vals(rng)) * 0.25f);
    if (rng() % 50 == 0) xd[i] = NAN;
    x.set(static_cast<int64_t>(i), xd[i]);
  }
  HostTensor rois({k.r, 5}, k.dt, ACL_FORMAT_ND);
  std::vector<float> rh;
  fill_rois(rois, rh, k, rng);
  HostTensor y = make4({k.r, k.c, k.ph, k.pw}, k.dt, k.strided, rng);
  HostTensor am = make4({k.r, k.c, k.ph, k.pw}, ACL_INT32, k.strided, rng);
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnRoiPoolingWithArgMaxGetWorkspaceSize(x.t(), rois.t(), k.ph, k.pw, k.sh, k.sw,
                                                      y.t(), am.t(), &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  ASSERT_EQ(aclnnRoiPoolingWithArgMax(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS)
      << last_msg();
  for (int64_t r = 0; r < k.r; ++r)
    for (int64_t c = 0; c < k.c; ++c)
      for (int64_t i = 0; i < k.ph; ++i)
        for (int64_t j = 0; j < k.pw; ++j) {
          float want;
          int64_t wam;
          ref_bin(xd, k.c, k.h, k.w, &rh[r * 5], c, i, j, k.ph, k.pw, k.sh, k.sw, &want, &wam);
          const int64_t pos = ((r * k.c + c) * k.ph + i) * k.pw + j;
          ASSERT_EQ(am.get_int(pos), wam) << "roi " << r << " c " << c << " bin " << i << "," << j;
          ASSERT_EQ(y.get(pos), round_to(k.dt, want))
              << "roi " << r << " c " << c << " bin " << i << "," << j;
        }
  EXPECT_TRUE(y.outside_view_untouched());
  EXPECT_TRUE(am.outside_view_untouched());
}

// Backward reference: the scatter-sum, in float32, in (r, c, ph, pw) order.
std::vector<float> ref_backward(const std::vector<float> &gy, const std::vector<int64_t> &am,
                                const std::vector<float> &rois, int64_t N, int64_t C, int64_t H,
                                int64_t W, int64_t R, int64_t PH, int64_t PW) {
  std::vector<float> gx(N * C * H * W, 0.0f);
  for (int64_t r = 0; r < R; ++r) {
    const int64_t b = static_cast<int64_t>(std::trunc(rois[r * 5]));
    for (int64_t c = 0; c < C; ++c)
      for (int64_t k = 0; k < PH * PW; ++k) {
        const int64_t a = am[(r * C + c) * PH * PW + k];
        if (a >= 0) gx[(b * C + c) * H * W + a] += gy[(r * C + c) * PH * PW + k];
      }
  }
  return gx;
}

void run_backward_case(const RoiCase &k, std::mt19937 &rng) {
  SCOPED_TRACE(testing::Message() << "backward N=" << k.n << " C=" << k.c << " H=" << k.h
                                  << " W=" << k.w << " R=" << k.r << " pooled=" << k.ph << "x"
                                  << k.pw << " dt=" << k.dt << " strided=" << k.strided);
  HostTensor rois({k.r, 5}, k.dt, ACL_FORMAT_ND);
  std::vector<float> rh;
  fill_rois(rois, rh, k, rng);
  HostTensor gy = make4({k.r, k.c, k.ph, k.pw}, k.dt, k.strided, rng);
  HostTensor am = make4({k.r, k.c, k.ph, k.pw}, ACL_INT32, k.strided, rng);
  HostTensor gx = make4({k.n, k.c, k.h, k.w}, k.dt, k.strided, rng);
  std::vector<float> gyd(gy.numel());
  std::vector<int64_t> amd(am.numel());
  std::normal_distribution<float> nd;
  // Few distinct positions: many ROIs hit the same pixels.
  std::uniform_int_distribution<int64_t> pos(-1, std::min<int64_t>(k.h * k.w - 1, 5));
  for (int64_t i = 0; i < gy.numel(); ++i) {
    gyd[i] = round_to(k.dt, nd(rng));
    gy.set(i, gyd[i]);
    amd[i] = rng() % 2 ? pos(rng) : static_cast<int64_t>(rng() % (k.h * k.w));
    am.set_int(i, amd[i]);
  }
  for (int64_t i = 0; i < gx.numel(); ++i) gx.set(i, 3.0f);  // overwritten
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gx.t(), rois.t(), am.t(), k.ph,
                                                          k.pw, 1.0, &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  ASSERT_EQ(aclnnRoiPoolingGradWithArgMax(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS)
      << last_msg();
  const std::vector<float> want = ref_backward(gyd, amd, rh, k.n, k.c, k.h, k.w, k.r, k.ph, k.pw);
  for (int64_t i = 0; i < gx.numel(); ++i) ASSERT_EQ(gx.get(i), round_to(k.dt, want[i])) << i;
  EXPECT_TRUE(gx.outside_view_untouched());
}

void RoiTester::test_forward() const {
  const int before = poolgradGetNumThreads();
  if (threads_ > 0) poolgradSetNumThreads(threads_);
  std::mt19937 rng(seed_);
  run_forward_case(k_, rng);
  poolgradSetNumThreads(before);
}

void RoiTester::test_backward() const {
  const int before = poolgradGetNumThreads();
  if (threads_ > 0) poolgradSetNumThreads(threads_);
  std::mt19937 rng(seed_);
  run_backward_case(k_, rng);
  poolgradSetNumThreads(before);
}

}  // namespace pgtest
