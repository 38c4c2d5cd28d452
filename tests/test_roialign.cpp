// SPDX-License-Identifier: Apache-2.0
// aclnnRoiAlignV2 / aclnnRoiAlignV2Backward / aclnnRoiAlign: random cases (aligned on and off,
// sampling ratios 0-4, boxes inside, outside and degenerate, float32 / float16, strided views)
// against a naive reference computed in double, the same bits for 1, 2, 3 and 7 threads, the
// phase-2 refusals (batch indices, non-finite boxes) that write nothing, empty calls, and one test
// per validation rule (docs/roi-align.md). Bitwise equality with torchvision and onnxruntime is
// python/tests/test_roi_align.py's.
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "aclnnop/aclnn_roi_align.h"
#include "aclnnop/aclnn_roi_align_v2.h"
#include "aclnnop/aclnn_roi_align_v2_backward.h"
#include "poolgrad/poolgrad.h"
#include "test_util.h"

using namespace pgtest;

namespace {

const char *kFwd = "aclnnRoiAlignV2";
const char *kBwd = "aclnnRoiAlignV2Backward";
const char *kOnnx = "aclnnRoiAlign";

struct Attrs {
  int64_t ph = 2, pw = 2;
  float scale = 1.0f;
  int64_t sampling = 2;
  bool aligned = false;
};

aclnnStatus forward(HostTensor &x, HostTensor &boxes, const Attrs &a, HostTensor &out) {
  return two_phase(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnRoiAlignV2GetWorkspaceSize(x.t(), boxes.t(), a.ph, a.pw, a.scale, a.sampling,
                                               a.aligned, out.t(), ws, ex);
      },
      aclnnRoiAlignV2);
}

aclnnStatus backward(HostTensor &gy, HostTensor &boxes, const IntArray &shape, const Attrs &a,
                     HostTensor &gx) {
  return two_phase(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnRoiAlignV2BackwardGetWorkspaceSize(
            gy.t(), boxes.t(), shape, a.ph, a.pw, a.scale, a.sampling, a.aligned, gx.t(), ws, ex);
      },
      aclnnRoiAlignV2Backward);
}

aclnnStatus onnx(HostTensor &x, HostTensor &rois, HostTensor &bi, const char *mode, const Attrs &a,
                 HostTensor &out) {
  return two_phase(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnRoiAlignGetWorkspaceSize(x.t(), rois.t(), bi.t(), mode, int(a.ph), int(a.pw),
                                             int(a.sampling), a.scale, out.t(), ws, ex);
      },
      aclnnRoiAlign);
}

// ---- the naive reference: one output (or one gradient sample) at a time, in double ----------
struct Sample {
  int64_t y0, y1, x0, x1;
  double w[4];
};

// The bilinear samples of bin (i, j) of a box (x1, y1, x2, y2 already read), with the count the
// mean divides by; `outside` counts the samples that fall off the map.
std::vector<Sample> samples(const float *v, int64_t H, int64_t W, const Attrs &a, int64_t i,
                            int64_t j, double *count, int64_t *outside) {
  const double off = a.aligned ? 0.5 : 0.0;
  const double sw = double(v[0]) * a.scale - off, sh = double(v[1]) * a.scale - off;
  double rw = double(v[2]) * a.scale - off - sw, rh = double(v[3]) * a.scale - off - sh;
  if (!a.aligned) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
  const double bh = rh / double(a.ph), bw = rw / double(a.pw);
  const int64_t gh = a.sampling > 0 ? a.sampling : int64_t(std::max(0.0, std::ceil(rh / a.ph)));
  const int64_t gw = a.sampling > 0 ? a.sampling : int64_t(std::max(0.0, std::ceil(rw / a.pw)));
  *count = double(std::max<int64_t>(gh * gw, 1));
  *outside = 0;
  std::vector<Sample> out;
  for (int64_t iy = 0; iy < gh; ++iy)
    for (int64_t ix = 0; ix < gw; ++ix) {
      double y = sh + i * bh + (iy + 0.5) * bh / gh, x = sw + j * bw + (ix + 0.5) * bw / gw;
      if (y < -1 || y > H || x < -1 || x > W) {
        ++*outside;
        continue;
      }
      y = std::max(y, 0.0), x = std::max(x, 0.0);
      Sample s;
      s.y0 = std::min<int64_t>(int64_t(y), H - 1), s.x0 = std::min<int64_t>(int64_t(x), W - 1);
      s.y1 = std::min(s.y0 + 1, H - 1), s.x1 = std::min(s.x0 + 1, W - 1);
      const double ly = s.y0 == H - 1 ? 0 : y - s.y0, lx = s.x0 == W - 1 ? 0 : x - s.x0;
      s.w[0] = (1 - ly) * (1 - lx), s.w[1] = (1 - ly) * lx, s.w[2] = ly * (1 - lx),
      s.w[3] = ly * lx;
      out.push_back(s);
    }
  return out;
}

// x (B, C, H, W) read by view position; boxes as K rows of (batch, x1, y1, x2, y2).
std::vector<double> reference_forward(const HostTensor &x, const std::vector<float> &boxes,
                                      const Attrs &a, bool max_mode) {
  const auto &d = x.dims();
  const int64_t C = d[1], H = d[2], W = d[3], K = int64_t(boxes.size() / 5);
  std::vector<double> y(size_t(K * C * a.ph * a.pw));
  for (int64_t k = 0; k < K; ++k) {
    const int64_t b = int64_t(boxes[k * 5]);
    for (int64_t i = 0; i < a.ph; ++i)
      for (int64_t j = 0; j < a.pw; ++j) {
        double count;
        int64_t outside;
        const auto ss = samples(&boxes[k * 5 + 1], H, W, a, i, j, &count, &outside);
        for (int64_t c = 0; c < C; ++c) {
          auto at = [&](int64_t yy, int64_t xx) {
            return x.get_real(((b * C + c) * H + yy) * W + xx);
          };
          double acc = 0, best = -std::numeric_limits<double>::infinity();
          for (const Sample &s : ss) {
            const double t[4] = {s.w[0] * at(s.y0, s.x0), s.w[1] * at(s.y0, s.x1),
                                 s.w[2] * at(s.y1, s.x0), s.w[3] * at(s.y1, s.x1)};
            acc += t[0] + t[1] + t[2] + t[3];
            for (double v : t) best = std::max(best, v);
          }
          if (max_mode && outside) best = std::max(best, 0.0);
          y[size_t(((k * C + c) * a.ph + i) * a.pw + j)] =
              max_mode ? (ss.empty() ? 0.0 : best) : acc / count;
        }
      }
  }
  return y;
}

std::vector<double> reference_backward(const HostTensor &gy, const std::vector<float> &boxes,
                                       const std::vector<int64_t> &shape, const Attrs &a) {
  const int64_t C = shape[1], H = shape[2], W = shape[3], K = int64_t(boxes.size() / 5);
  std::vector<double> gx(size_t(shape[0] * C * H * W), 0.0);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < a.ph; ++i)
        for (int64_t j = 0; j < a.pw; ++j) {
          double count;
          int64_t outside;
          const auto ss = samples(&boxes[k * 5 + 1], H, W, a, i, j, &count, &outside);
          const double g = gy.get_real(((k * C + c) * a.ph + i) * a.pw + j);
          double *plane = &gx[size_t((int64_t(boxes[k * 5]) * C + c) * H * W)];
          for (const Sample &s : ss) {
            plane[s.y0 * W + s.x0] += g * s.w[0] / count;
            plane[s.y0 * W + s.x1] += g * s.w[1] / count;
            plane[s.y1 * W + s.x0] += g * s.w[2] / count;
            plane[s.y1 * W + s.x1] += g * s.w[3] / count;
          }
        }
  return gx;
}

// Random boxes over a (B, ., H, W) map at `scale`: inside, partly outside, degenerate, far away.
std::vector<float> random_boxes(std::mt19937 &rng, int64_t K, int64_t B, int64_t H, int64_t W,
                                float scale) {
  std::uniform_real_distribution<float> u(-0.3f, 1.3f);
  std::vector<float> v(size_t(K * 5));
  for (int64_t k = 0; k < K; ++k) {
    float *r = &v[k * 5];
    r[0] = float(rng() % B);
    float x1 = u(rng) * W / scale, x2 = u(rng) * W / scale, y1 = u(rng) * H / scale,
          y2 = u(rng) * H / scale;
    if (x1 > x2) std::swap(x1, x2);
    if (y1 > y2) std::swap(y1, y2);
    if (k % 5 == 3) x2 = x1;                                   // zero width
    if (k % 7 == 5) y1 += 3 * H / scale, y2 += 3 * H / scale;  // below the map
    r[1] = x1, r[2] = y1, r[3] = x2, r[4] = y2;
  }
  return v;
}

void fill_boxes(HostTensor &t, const std::vector<float> &v) {
  for (size_t i = 0; i < v.size(); ++i) t.set_real(int64_t(i), v[i]);
}

std::vector<uint32_t> bits(const HostTensor &t) {
  std::vector<uint32_t> b(size_t(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) {
    const float f = t.get(i);
    std::memcpy(&b[size_t(i)], &f, 4);
  }
  return b;
}

void expect_near_all(const HostTensor &got, const std::vector<double> &want, double tol) {
  ASSERT_EQ(got.numel(), int64_t(want.size()));
  for (int64_t i = 0; i < got.numel(); ++i)
    ASSERT_NEAR(got.get_real(i), want[size_t(i)], tol * (1 + std::fabs(want[size_t(i)])))
        << "at " << i;
}

struct Threads {
  int before = poolgradGetNumThreads();
  explicit Threads(int n) { poolgradSetNumThreads(n); }
  ~Threads() { poolgradSetNumThreads(before); }
};

TEST(RoiAlignV2, RandomAgainstNaiveReferenceAndThreads) {
  std::mt19937 rng(7);
  int cases = 0;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (bool aligned : {false, true})
      for (int64_t sampling = 0; sampling <= 4; ++sampling) {
        Attrs a;
        a.ph = 1 + rng() % 5, a.pw = 1 + rng() % 5;
        a.scale = (rng() % 2) ? 0.5f : 1.0f;
        a.sampling = sampling, a.aligned = aligned;
        const int64_t B = 2, C = 1 + rng() % 20, H = 3 + rng() % 12, W = 3 + rng() % 12, K = 9;
        SCOPED_TRACE(testing::Message() << "dt=" << dt << " aligned=" << aligned
                                        << " sampling=" << sampling << " C=" << C);
        // A strided (channels-outermost) self.
        HostTensor x = make_strided({B, C, H, W}, {1, 0, 2, 3}, 3, 5, dt, ACL_FORMAT_NCHW);
        std::normal_distribution<float> nd;
        for (int64_t i = 0; i < x.numel(); ++i) x.set(i, nd(rng));
        const std::vector<float> bv = random_boxes(rng, K, B, H, W, a.scale);
        HostTensor boxes({K, 5}, dt, ACL_FORMAT_ND);
        fill_boxes(boxes, bv);
        std::vector<float> read(bv.size());  // the boxes as the dtype holds them
        for (size_t i = 0; i < bv.size(); ++i) read[i] = boxes.get(int64_t(i));
        const auto want = reference_forward(x, read, a, false);
        std::vector<uint32_t> first;
        for (int threads : {1, 2, 3, 7}) {
          Threads t(threads);
          HostTensor out({K, C, a.ph, a.pw}, dt, ACL_FORMAT_NCHW);
          ASSERT_EQ(forward(x, boxes, a, out), ACLNN_SUCCESS) << last_msg();
          expect_near_all(out, want, dt == ACL_FLOAT ? 1e-5 : 2e-3);
          EXPECT_TRUE(out.guards_intact());
          if (first.empty()) first = bits(out);
          EXPECT_EQ(bits(out), first) << threads << " threads";
        }
        ++cases;
      }
  EXPECT_EQ(cases, 20);
}

TEST(RoiAlignV2Backward, RandomAgainstNaiveReferenceSameBitsAnyThreads) {
  std::mt19937 rng(11);
  for (bool aligned : {false, true})
    for (int64_t sampling = 0; sampling <= 4; ++sampling) {
      Attrs a;
      a.ph = 1 + rng() % 4, a.pw = 1 + rng() % 4;
      a.scale = 0.5f, a.sampling = sampling, a.aligned = aligned;
      const int64_t B = 2, C = 1 + rng() % 19, H = 3 + rng() % 10, W = 3 + rng() % 10, K = 12;
      SCOPED_TRACE(testing::Message() << "aligned=" << aligned << " sampling=" << sampling);
      const std::vector<float> bv = random_boxes(rng, K, B, H, W, a.scale);
      HostTensor boxes({K, 5}, ACL_FLOAT, ACL_FORMAT_ND);
      fill_boxes(boxes, bv);
      HostTensor gy =
          make_strided({K, C, a.ph, a.pw}, {0, 2, 3, 1}, 2, 1, ACL_FLOAT, ACL_FORMAT_NCHW);
      std::normal_distribution<float> nd;
      for (int64_t i = 0; i < gy.numel(); ++i) gy.set(i, nd(rng));
      const auto want = reference_backward(gy, bv, {B, C, H, W}, a);
      std::vector<uint32_t> first;
      for (int threads : {1, 2, 3, 7}) {
        Threads t(threads);
        HostTensor gx({B, C, H, W}, ACL_FLOAT, ACL_FORMAT_NCHW);
        for (int64_t i = 0; i < gx.numel(); ++i) gx.set(i, 99.0f);  // overwritten, not added to
        ASSERT_EQ(backward(gy, boxes, IntArray({B, C, H, W}), a, gx), ACLNN_SUCCESS) << last_msg();
        expect_near_all(gx, want, 1e-5);
        EXPECT_TRUE(gx.guards_intact());
        if (first.empty()) first = bits(gx);
        EXPECT_EQ(bits(gx), first) << threads << " threads";
      }
    }
}

TEST(RoiAlign, OnnxAvgAndMaxAgainstNaiveReference) {
  std::mt19937 rng(5);
  for (const char *mode : {"avg", "max"})
    for (int64_t sampling = 0; sampling <= 3; ++sampling) {
      Attrs a;
      a.ph = 1 + rng() % 4, a.pw = 1 + rng() % 4, a.scale = 0.5f, a.sampling = sampling;
      const int64_t B = 3, C = 5, H = 9, W = 7, K = 8;
      SCOPED_TRACE(testing::Message() << "mode=" << mode << " sampling=" << sampling);
      HostTensor x({B, C, H, W}, ACL_FLOAT);
      std::normal_distribution<float> nd;
      for (int64_t i = 0; i < x.numel(); ++i) x.set(i, nd(rng));
      const std::vector<float> bv = random_boxes(rng, K, B, H, W, a.scale);
      HostTensor rois({K, 4}, ACL_FLOAT, ACL_FORMAT_ND), bi({K}, ACL_INT32, ACL_FORMAT_ND);
      for (int64_t k = 0; k < K; ++k) {
        bi.set_int(k, int64_t(bv[k * 5]));
        for (int j = 0; j < 4; ++j) rois.set(k * 4 + j, bv[k * 5 + 1 + j]);
      }
      HostTensor out({K, C, a.ph, a.pw}, ACL_FLOAT);
      ASSERT_EQ(onnx(x, rois, bi, mode, a, out), ACLNN_SUCCESS) << last_msg();
      expect_near_all(out, reference_forward(x, bv, a, std::string(mode) == "max"), 1e-5);
    }
}

// A box far larger than the map with adaptive sampling asks for about 10^12 samples a bin; only
// those inside the map are visited (the test would time out otherwise).
TEST(RoiAlignV2, HugeBoxVisitsOnlyTheSamplesInsideTheMap) {
  Attrs a;
  a.ph = a.pw = 2, a.sampling = 0;
  HostTensor x({1, 2, 4, 4}, ACL_FLOAT), boxes({1, 5}, ACL_FLOAT, ACL_FORMAT_ND),
      out({1, 2, 2, 2}, ACL_FLOAT);
  for (int64_t i = 0; i < x.numel(); ++i) x.set(i, 1.0f);
  fill_boxes(boxes, {0, -1e6f, -1e6f, 1e6f, 1e6f});
  ASSERT_EQ(forward(x, boxes, a, out), ACLNN_SUCCESS) << last_msg();
  for (int64_t i = 0; i < out.numel(); ++i) {
    EXPECT_GE(out.get(i), 0.0f);
    EXPECT_LT(out.get(i), 1e-3f);  // a few samples of 10^12 land on the map
  }
  HostTensor gx({1, 2, 4, 4}, ACL_FLOAT), gy({1, 2, 2, 2}, ACL_FLOAT);
  for (int64_t i = 0; i < gy.numel(); ++i) gy.set(i, 1.0f);
  ASSERT_EQ(backward(gy, boxes, IntArray({1, 2, 4, 4}), a, gx), ACLNN_SUCCESS) << last_msg();
}

// Phase 2 refuses a batch index outside [0, B) and a box that is not finite after spatialScale,
// naming the position and value, and writes nothing.
TEST(RoiAlignV2, BadBoxesAreRefusedInPhase2WritingNothing) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  struct Case {
    int col;
    float v;
    const char *needle;
  } const cases[] = {
      {0, -1.0f, "boxes[1,0]=-1 must be a batch index in [0, B=2)"},
      {0, 2.0f, "boxes[1,0]=2 must be a batch index in [0, B=2)"},
      {0, nan, "boxes[1,0]=nan must be a batch index"},
      {2, inf, "boxes[1,2]=inf must stay finite"},
      {3, nan, "boxes[1,3]=nan must stay finite"},
      {3, 3e38f, "boxes[1,3]=3e+38 must stay finite"},  // finite, but not times 2
  };
  Attrs a;
  a.scale = 2.0f;
  for (const Case &c : cases) {
    SCOPED_TRACE(c.needle);
    HostTensor x({2, 3, 5, 5}, ACL_FLOAT), boxes({2, 5}, ACL_FLOAT, ACL_FORMAT_ND),
        out({2, 3, 2, 2}, ACL_FLOAT), gy({2, 3, 2, 2}, ACL_FLOAT), gx({2, 3, 5, 5}, ACL_FLOAT);
    fill_boxes(boxes, {0, 0, 0, 1, 1, 1, 0, 0, 2, 2});
    boxes.set(5 + c.col, c.v);
    for (int64_t i = 0; i < out.numel(); ++i) out.set(i, 7.0f);
    for (int64_t i = 0; i < gx.numel(); ++i) gx.set(i, 7.0f);
    EXPECT_STATUS_MSG(forward(x, boxes, a, out), ACLNN_ERR_PARAM_INVALID, kFwd, c.needle);
    EXPECT_STATUS_MSG(backward(gy, boxes, IntArray({2, 3, 5, 5}), a, gx), ACLNN_ERR_PARAM_INVALID,
                      kBwd, c.needle);
    for (int64_t i = 0; i < out.numel(); ++i) ASSERT_EQ(out.get(i), 7.0f);
    for (int64_t i = 0; i < gx.numel(); ++i) ASSERT_EQ(gx.get(i), 7.0f);
  }
  // A fractional batch index in range is the image it truncates to (torchvision's int cast).
  HostTensor x({2, 1, 2, 2}, ACL_FLOAT), boxes({1, 5}, ACL_FLOAT, ACL_FORMAT_ND),
      out({1, 1, 1, 1}, ACL_FLOAT);
  for (int64_t i = 0; i < 8; ++i) x.set(i, i < 4 ? 1.0f : 5.0f);
  fill_boxes(boxes, {1.75f, 0, 0, 1, 1});
  Attrs one;
  one.ph = one.pw = 1;
  ASSERT_EQ(forward(x, boxes, one, out), ACLNN_SUCCESS);
  EXPECT_EQ(out.get(0), 5.0f);
  // ONNX: the INT32 batch index is named in batchIndices.
  HostTensor xo({2, 1, 3, 3}, ACL_FLOAT), rois({2, 4}, ACL_FLOAT, ACL_FORMAT_ND),
      bi({2}, ACL_INT32, ACL_FORMAT_ND), oo({2, 1, 1, 1}, ACL_FLOAT);
  bi.set_int(0, 0), bi.set_int(1, 5);
  EXPECT_STATUS_MSG(onnx(xo, rois, bi, "avg", one, oo), ACLNN_ERR_PARAM_INVALID, kOnnx,
                    "batchIndices[1]=5 must be in [0, N=2)");
  bi.set_int(1, 1);
  rois.set(6, -inf);
  EXPECT_STATUS_MSG(onnx(xo, rois, bi, "avg", one, oo), ACLNN_ERR_PARAM_INVALID, kOnnx,
                    "rois[1,2]=-inf must stay finite");
}

TEST(RoiAlignV2, EmptyCalls) {
  Attrs a;
  // No boxes: nothing to do, and the backward zero-fills gradInput without reading boxes.
  HostTensor x({1, 2, 4, 4}, ACL_FLOAT), boxes({0, 5}, ACL_FLOAT, ACL_FORMAT_ND),
      out({0, 2, 2, 2}, ACL_FLOAT), gy({0, 2, 2, 2}, ACL_FLOAT), gx({1, 2, 4, 4}, ACL_FLOAT);
  EXPECT_EQ(forward(x, boxes, a, out), ACLNN_SUCCESS) << last_msg();
  for (int64_t i = 0; i < gx.numel(); ++i) gx.set(i, 3.0f);
  EXPECT_EQ(backward(gy, boxes, IntArray({1, 2, 4, 4}), a, gx), ACLNN_SUCCESS) << last_msg();
  for (int64_t i = 0; i < gx.numel(); ++i) ASSERT_EQ(gx.get(i), 0.0f);
  // pooledHeight 0: an empty gradOutput; gradInput zero-filled, the (bad) boxes not read.
  Attrs z;
  z.ph = 0;
  HostTensor b1({1, 5}, ACL_FLOAT, ACL_FORMAT_ND), gy0({1, 2, 0, 2}, ACL_FLOAT);
  fill_boxes(b1, {9, 0, 0, 1, 1});
  for (int64_t i = 0; i < gx.numel(); ++i) gx.set(i, 3.0f);
  EXPECT_EQ(backward(gy0, b1, IntArray({1, 2, 4, 4}), z, gx), ACLNN_SUCCESS) << last_msg();
  for (int64_t i = 0; i < gx.numel(); ++i) ASSERT_EQ(gx.get(i), 0.0f);
  // ONNX with an empty map (no B, H or W check there): out zero-filled, as CANN's op_api does.
  HostTensor xe({0, 2, 4, 4}, ACL_FLOAT), rois({2, 4}, ACL_FLOAT, ACL_FORMAT_ND),
      bi({2}, ACL_INT32, ACL_FORMAT_ND), oe({2, 2, 2, 2}, ACL_FLOAT);
  bi.set_int(0, 7), bi.set_int(1, 7);
  for (int64_t i = 0; i < oe.numel(); ++i) oe.set(i, 3.0f);
  EXPECT_EQ(onnx(xe, rois, bi, "max", a, oe), ACLNN_SUCCESS) << last_msg();
  for (int64_t i = 0; i < oe.numel(); ++i) ASSERT_EQ(oe.get(i), 0.0f);
}

TEST(RoiAlignV2, ValidationRules) {
  Attrs a;
  auto call = [&](HostTensor *x, HostTensor *b, HostTensor *o, const Attrs &at) {
    return two_phase(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnRoiAlignV2GetWorkspaceSize(x ? x->t() : nullptr, b ? b->t() : nullptr, at.ph,
                                                 at.pw, at.scale, at.sampling, at.aligned,
                                                 o ? o->t() : nullptr, ws, ex);
        },
        aclnnRoiAlignV2);
  };
  HostTensor x({2, 3, 6, 6}, ACL_FLOAT), b({4, 5}, ACL_FLOAT, ACL_FORMAT_ND),
      o({4, 3, 2, 2}, ACL_FLOAT);
  fill_boxes(b, std::vector<float>(20, 0.0f));
  EXPECT_EQ(call(&x, &b, &o, a), ACLNN_SUCCESS) << last_msg();
  // 1. Nulls.
  EXPECT_STATUS_MSG(call(nullptr, &b, &o, a), ACLNN_ERR_PARAM_NULLPTR, kFwd, "self");
  EXPECT_STATUS_MSG(call(&x, nullptr, &o, a), ACLNN_ERR_PARAM_NULLPTR, kFwd, "boxes");
  EXPECT_STATUS_MSG(call(&x, &b, nullptr, a), ACLNN_ERR_PARAM_NULLPTR, kFwd, "out");
  // 2. Dtypes.
  {
    HostTensor xd({2, 3, 6, 6}, ACL_BF16), bd({4, 5}, ACL_BF16, ACL_FORMAT_ND),
        od({4, 3, 2, 2}, ACL_BF16), b16({4, 5}, ACL_FLOAT16, ACL_FORMAT_ND),
        o16({4, 3, 2, 2}, ACL_FLOAT16);
    EXPECT_STATUS_MSG(call(&xd, &bd, &od, a), ACLNN_ERR_PARAM_INVALID, kFwd,
                      "self dtype must be FLOAT or FLOAT16, but got BF16");
    EXPECT_STATUS_MSG(call(&x, &b16, &o, a), ACLNN_ERR_PARAM_INVALID, kFwd, "boxes dtype");
    EXPECT_STATUS_MSG(call(&x, &b, &o16, a), ACLNN_ERR_PARAM_INVALID, kFwd, "out dtype");
  }
  // 3. Formats.
  {
    HostTensor xf({2, 3, 6, 6}, ACL_FLOAT, ACL_FORMAT_ND), bf({4, 5}, ACL_FLOAT, ACL_FORMAT_NCHW),
        of({4, 3, 2, 2}, ACL_FLOAT, ACL_FORMAT_NHWC);
    EXPECT_STATUS_MSG(call(&xf, &b, &o, a), ACLNN_ERR_PARAM_INVALID, kFwd,
                      "self format must be NCHW, but got ND");
    EXPECT_STATUS_MSG(call(&x, &bf, &o, a), ACLNN_ERR_PARAM_INVALID, kFwd,
                      "boxes format must be ND");
    EXPECT_STATUS_MSG(call(&x, &b, &of, a), ACLNN_ERR_PARAM_INVALID, kFwd,
                      "out format must be NCHW");
  }
  // 4. Shapes.
  {
    HostTensor x3({3, 6, 6}, ACL_FLOAT), b3({4, 5, 1}, ACL_FLOAT, ACL_FORMAT_ND),
        xh({2, 3, 0, 6}, ACL_FLOAT), xb({0, 3, 6, 6}, ACL_FLOAT),
        b4({4, 4}, ACL_FLOAT, ACL_FORMAT_ND), ok({5, 3, 2, 2}, ACL_FLOAT),
        oc({4, 2, 2, 2}, ACL_FLOAT), oh({4, 3, 3, 2}, ACL_FLOAT), ow({4, 3, 2, 3}, ACL_FLOAT);
    EXPECT_STATUS_MSG(call(&x3, &b, &o, a), ACLNN_ERR_PARAM_INVALID, kFwd, "self must be 4-D");
    EXPECT_STATUS_MSG(call(&x, &b3, &o, a), ACLNN_ERR_PARAM_INVALID, kFwd, "boxes must be 2-D");
    EXPECT_STATUS_MSG(call(&xh, &b, &o, a), ACLNN_ERR_PARAM_INVALID, kFwd, "B, H and W > 0");
    EXPECT_STATUS_MSG(call(&xb, &b, &o, a), ACLNN_ERR_PARAM_INVALID, kFwd, "B, H and W > 0");
    EXPECT_STATUS_MSG(call(&x, &b4, &o, a), ACLNN_ERR_PARAM_INVALID, kFwd,
                      "boxes dim 1 must equal the box length 5");
    EXPECT_STATUS_MSG(call(&x, &b, &ok, a), ACLNN_ERR_PARAM_INVALID, kFwd,
                      "out dim 0 must equal boxes dim 0 4");
    EXPECT_STATUS_MSG(call(&x, &b, &oc, a), ACLNN_ERR_PARAM_INVALID, kFwd,
                      "out dim 1 must equal self dim 1 3");
    EXPECT_STATUS_MSG(call(&x, &b, &oh, a), ACLNN_ERR_PARAM_INVALID, kFwd,
                      "out dim 2 must equal pooledHeight 2");
    EXPECT_STATUS_MSG(call(&x, &b, &ow, a), ACLNN_ERR_PARAM_INVALID, kFwd,
                      "out dim 3 must equal pooledWidth 2");
  }
  // 5. Attributes: samplingRatio >= 0; spatialScale > FLT_MIN (a denormal too).
  Attrs bad = a;
  bad.sampling = -1;
  EXPECT_STATUS_MSG(call(&x, &b, &o, bad), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "samplingRatio must be >= 0, but got -1");
  bad = a;
  for (float s : {0.0f, -1.0f, 1e-40f}) {
    bad.scale = s;
    EXPECT_STATUS_MSG(call(&x, &b, &o, bad), ACLNN_ERR_PARAM_INVALID, kFwd,
                      "spatialScale must be > 0");
  }
}

TEST(RoiAlignV2Backward, ValidationRules) {
  Attrs a;
  auto call = [&](HostTensor *g, HostTensor *b, aclIntArray *shape, HostTensor *gx,
                  const Attrs &at) {
    return two_phase(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnRoiAlignV2BackwardGetWorkspaceSize(
              g ? g->t() : nullptr, b ? b->t() : nullptr, shape, at.ph, at.pw, at.scale,
              at.sampling, at.aligned, gx ? gx->t() : nullptr, ws, ex);
        },
        aclnnRoiAlignV2Backward);
  };
  HostTensor g({4, 3, 2, 2}, ACL_FLOAT), b({4, 5}, ACL_FLOAT, ACL_FORMAT_ND),
      gx({2, 3, 6, 6}, ACL_FLOAT);
  fill_boxes(b, std::vector<float>(20, 0.0f));
  IntArray shape({2, 3, 6, 6});
  EXPECT_EQ(call(&g, &b, shape, &gx, a), ACLNN_SUCCESS) << last_msg();
  EXPECT_STATUS_MSG(call(nullptr, &b, shape, &gx, a), ACLNN_ERR_PARAM_NULLPTR, kBwd, "gradOutput");
  EXPECT_STATUS_MSG(call(&g, nullptr, shape, &gx, a), ACLNN_ERR_PARAM_NULLPTR, kBwd, "boxes");
  EXPECT_STATUS_MSG(call(&g, &b, nullptr, &gx, a), ACLNN_ERR_PARAM_NULLPTR, kBwd, "inputShape");
  EXPECT_STATUS_MSG(call(&g, &b, shape, nullptr, a), ACLNN_ERR_PARAM_NULLPTR, kBwd, "gradInput");
  HostTensor g16({4, 3, 2, 2}, ACL_FLOAT16), b16({4, 5}, ACL_FLOAT16, ACL_FORMAT_ND),
      gx16({2, 3, 6, 6}, ACL_FLOAT16), gnd({4, 3, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND),
      gx3({3, 6, 6}, ACL_FLOAT), g5({5, 3, 2, 2}, ACL_FLOAT), gc({2, 4, 6, 6}, ACL_FLOAT),
      gh({4, 3, 3, 2}, ACL_FLOAT);
  EXPECT_STATUS_MSG(call(&g16, &b16, shape, &gx16, a), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradOutput dtype must be FLOAT, but got FLOAT16");
  EXPECT_STATUS_MSG(call(&g, &b16, shape, &gx, a), ACLNN_ERR_PARAM_INVALID, kBwd, "boxes dtype");
  EXPECT_STATUS_MSG(call(&g, &b, shape, &gx16, a), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradInput dtype");
  EXPECT_STATUS_MSG(call(&gnd, &b, shape, &gx, a), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradOutput format must be NCHW");
  EXPECT_STATUS_MSG(call(&g, &b, IntArray({2, 3, 6}), &gx, a), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "inputShape must have 4 values, but got 3");
  EXPECT_STATUS_MSG(call(&g5, &b, shape, &gx, a), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradOutput dim 0 must equal boxes dim 0 4");
  EXPECT_STATUS_MSG(call(&gh, &b, shape, &gx, a), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradOutput dim 2 must equal pooledHeight 2");
  EXPECT_STATUS_MSG(call(&g, &b, shape, &gx3, a), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradInput must be 4-D");
  EXPECT_STATUS_MSG(call(&g, &b, IntArray({2, 4, 6, 6}), &gc, a), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradInput dim 1 must equal gradOutput dim 1 3");
  EXPECT_STATUS_MSG(call(&g, &b, IntArray({2, 3, 6, 7}), &gx, a), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradInput shape [2,3,6,6] must equal inputShape [2,3,6,7]");
  Attrs bad = a;
  bad.sampling = -2;
  EXPECT_STATUS_MSG(call(&g, &b, shape, &gx, bad), ACLNN_ERR_PARAM_INVALID, kBwd, "samplingRatio");
  bad = a;
  bad.scale = -0.5f;
  EXPECT_STATUS_MSG(call(&g, &b, shape, &gx, bad), ACLNN_ERR_PARAM_INVALID, kBwd, "spatialScale");
}

TEST(RoiAlign, OnnxValidationRules) {
  Attrs a;
  auto call = [&](HostTensor *x, HostTensor *r, HostTensor *bi, const char *mode, HostTensor *o,
                  const Attrs &at) {
    return two_phase(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnRoiAlignGetWorkspaceSize(
              x ? x->t() : nullptr, r ? r->t() : nullptr, bi ? bi->t() : nullptr, mode, int(at.ph),
              int(at.pw), int(at.sampling), at.scale, o ? o->t() : nullptr, ws, ex);
        },
        aclnnRoiAlign);
  };
  HostTensor x({2, 3, 6, 6}, ACL_FLOAT), r({4, 4}, ACL_FLOAT, ACL_FORMAT_ND),
      bi({4}, ACL_INT32, ACL_FORMAT_ND), o({4, 3, 2, 2}, ACL_FLOAT);
  for (int64_t k = 0; k < 4; ++k) bi.set_int(k, k % 2);
  fill_boxes(r, std::vector<float>(16, 1.0f));
  EXPECT_EQ(call(&x, &r, &bi, "avg", &o, a), ACLNN_SUCCESS) << last_msg();
  EXPECT_STATUS_MSG(call(&x, &r, nullptr, "avg", &o, a), ACLNN_ERR_PARAM_NULLPTR, kOnnx,
                    "batchIndices");
  EXPECT_STATUS_MSG(call(nullptr, &r, &bi, "avg", &o, a), ACLNN_ERR_PARAM_NULLPTR, kOnnx, "self");
  EXPECT_STATUS_MSG(call(&x, nullptr, &bi, "avg", &o, a), ACLNN_ERR_PARAM_NULLPTR, kOnnx, "rois");
  EXPECT_STATUS_MSG(call(&x, &r, &bi, "avg", nullptr, a), ACLNN_ERR_PARAM_NULLPTR, kOnnx, "out");
  {
    HostTensor xb({2, 3, 6, 6}, ACL_BF16), r16({4, 4}, ACL_FLOAT16, ACL_FORMAT_ND),
        o16({4, 3, 2, 2}, ACL_FLOAT16), xnd({2, 3, 6, 6}, ACL_FLOAT, ACL_FORMAT_ND),
        rnc({4, 4}, ACL_FLOAT, ACL_FORMAT_NCHW), ond({4, 3, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND),
        x3({3, 6, 6}, ACL_FLOAT), r3({4, 4, 1}, ACL_FLOAT, ACL_FORMAT_ND), o3({4, 3, 2}, ACL_FLOAT),
        ok({5, 3, 2, 2}, ACL_FLOAT), oc({4, 2, 2, 2}, ACL_FLOAT), oh({4, 3, 3, 2}, ACL_FLOAT),
        ow({4, 3, 2, 3}, ACL_FLOAT);
    EXPECT_STATUS_MSG(call(&xb, &r, &bi, "avg", &o, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                      "self dtype must be FLOAT or FLOAT16, but got BF16");
    EXPECT_STATUS_MSG(call(&x, &r16, &bi, "avg", &o, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                      "rois dtype");
    EXPECT_STATUS_MSG(call(&x, &r, &bi, "avg", &o16, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                      "out dtype");
    EXPECT_STATUS_MSG(call(&xnd, &r, &bi, "avg", &o, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                      "self format must be NCHW");
    EXPECT_STATUS_MSG(call(&x, &rnc, &bi, "avg", &o, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                      "rois format must be ND");
    EXPECT_STATUS_MSG(call(&x, &r, &bi, "avg", &ond, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                      "out format must be NCHW");
    EXPECT_STATUS_MSG(call(&x3, &r, &bi, "avg", &o, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                      "self must be 4-D");
    EXPECT_STATUS_MSG(call(&x, &r3, &bi, "avg", &o, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                      "rois must be 2-D");
    EXPECT_STATUS_MSG(call(&x, &r, &bi, "avg", &o3, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                      "out must be 4-D");
    EXPECT_STATUS_MSG(call(&x, &r, &bi, "avg", &ok, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                      "out dim 0 must equal rois dim 0 4");
    EXPECT_STATUS_MSG(call(&x, &r, &bi, "avg", &oc, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                      "out dim 1 must equal self dim 1 3");
    EXPECT_STATUS_MSG(call(&x, &r, &bi, "avg", &oh, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                      "out dim 2 must equal outputHeight 2");
    EXPECT_STATUS_MSG(call(&x, &r, &bi, "avg", &ow, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                      "out dim 3 must equal outputWidth 2");
    // FLOAT16 throughout is accepted.
    HostTensor xh({2, 3, 6, 6}, ACL_FLOAT16);
    fill_boxes(r16, std::vector<float>(16, 1.0f));
    EXPECT_EQ(call(&xh, &r16, &bi, "avg", &o16, a), ACLNN_SUCCESS) << last_msg();
  }
  HostTensor bi64({4}, ACL_INT64, ACL_FORMAT_ND), bnc({4}, ACL_INT32, ACL_FORMAT_NCHW),
      b2({4, 1}, ACL_INT32, ACL_FORMAT_ND), b5({5}, ACL_INT32, ACL_FORMAT_ND),
      r5({4, 5}, ACL_FLOAT, ACL_FORMAT_ND);
  EXPECT_STATUS_MSG(call(&x, &r, &bi64, "avg", &o, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                    "batchIndices dtype must be INT32, but got INT64");
  EXPECT_STATUS_MSG(call(&x, &r, &bnc, "avg", &o, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                    "batchIndices format must be ND");
  EXPECT_STATUS_MSG(call(&x, &r, &b2, "avg", &o, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                    "batchIndices must be 1-D");
  EXPECT_STATUS_MSG(call(&x, &r, &b5, "avg", &o, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                    "rois dim 0 must equal batchIndices dim 0 5");
  EXPECT_STATUS_MSG(call(&x, &r5, &bi, "avg", &o, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                    "rois dim 1 must equal the RoI length 4");
  EXPECT_STATUS_MSG(call(&x, &r, &bi, nullptr, &o, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                    "but got null");
  EXPECT_STATUS_MSG(call(&x, &r, &bi, "mean", &o, a), ACLNN_ERR_PARAM_INVALID, kOnnx,
                    "mode must be \"avg\" or \"max\", but got \"mean\"");
  Attrs bad = a;
  bad.sampling = -1;
  EXPECT_STATUS_MSG(call(&x, &r, &bi, "max", &o, bad), ACLNN_ERR_PARAM_INVALID, kOnnx,
                    "samplingRatio");
  bad = a;
  bad.scale = 0.0f;
  EXPECT_STATUS_MSG(call(&x, &r, &bi, "max", &o, bad), ACLNN_ERR_PARAM_INVALID, kOnnx,
                    "spatialScale");
  bad.scale = 1e-40f;  // ONNX's test is > 0: a denormal scale runs
  EXPECT_EQ(call(&x, &r, &bi, "max", &o, bad), ACLNN_SUCCESS) << last_msg();
}

// DOUBLE by poolgrad's extension (poolgradSetThreadDoubleDtype): torchvision's float64 kernel, so
// the naive reference (in double) within 1e-12, where float32's 1e-5 would not hold; the rows
// named; refused without the extension. (python/tests/test_float64.py compares with torchvision's
// float64 bit for bit.)
TEST(RoiAlignV2, DoubleByTheExtensionAgainstNaiveReference) {
  std::mt19937 rng(21);
  const DoubleDtypeScope on(true);
  for (bool aligned : {false, true})
    for (int64_t sampling : {0, 2}) {
      Attrs a;
      a.ph = 1 + rng() % 4, a.pw = 1 + rng() % 4;
      a.scale = 0.5f, a.sampling = sampling, a.aligned = aligned;
      const int64_t B = 2, C = 1 + rng() % 5, H = 3 + rng() % 8, W = 3 + rng() % 8, K = 6;
      SCOPED_TRACE(testing::Message() << "aligned=" << aligned << " sampling=" << sampling);
      HostTensor x({B, C, H, W}, ACL_DOUBLE, ACL_FORMAT_NCHW);
      std::normal_distribution<double> nd;
      for (int64_t i = 0; i < x.numel(); ++i) x.set_real(i, nd(rng));
      std::vector<float> bv = random_boxes(rng, K, B, H, W, a.scale);
      HostTensor boxes({K, 5}, ACL_DOUBLE, ACL_FORMAT_ND);
      fill_boxes(boxes, bv);
      HostTensor out({K, C, a.ph, a.pw}, ACL_DOUBLE, ACL_FORMAT_NCHW);
      uint64_t ws;
      aclOpExecutor *ex;
      ASSERT_EQ(aclnnRoiAlignV2GetWorkspaceSize(x.t(), boxes.t(), a.ph, a.pw, a.scale, a.sampling,
                                                a.aligned, out.t(), &ws, &ex),
                ACLNN_SUCCESS)
          << last_msg();
      EXPECT_STREQ(poolgradGetKernelName(ex), "roi-align-bins-double");
      ASSERT_EQ(aclnnRoiAlignV2(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
      expect_near_all(out, reference_forward(x, bv, a, false), 1e-12);
      HostTensor gy({K, C, a.ph, a.pw}, ACL_DOUBLE, ACL_FORMAT_NCHW), gx({B, C, H, W}, ACL_DOUBLE);
      for (int64_t i = 0; i < gy.numel(); ++i) gy.set_real(i, nd(rng));
      const IntArray shape({B, C, H, W});
      ASSERT_EQ(
          aclnnRoiAlignV2BackwardGetWorkspaceSize(gy.t(), boxes.t(), shape, a.ph, a.pw, a.scale,
                                                  a.sampling, a.aligned, gx.t(), &ws, &ex),
          ACLNN_SUCCESS)
          << last_msg();
      EXPECT_STREQ(poolgradGetKernelName(ex), "roi-align-channels-double");
      ASSERT_EQ(aclnnRoiAlignV2Backward(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
      expect_near_all(gx, reference_backward(gy, bv, {B, C, H, W}, a), 1e-12);
    }
  // ONNX's max mode in double too.
  Attrs a;
  a.ph = a.pw = 2, a.scale = 1.0f, a.sampling = 2;
  HostTensor x({1, 2, 5, 5}, ACL_DOUBLE), rois({2, 4}, ACL_DOUBLE, ACL_FORMAT_ND),
      bi({2}, ACL_INT32, ACL_FORMAT_ND), out({2, 2, 2, 2}, ACL_DOUBLE);
  for (int64_t i = 0; i < x.numel(); ++i) x.set_real(i, 1.0 + double(i % 9) * 0x1p-40);
  const double r[8] = {0.5, 0.5, 3.5, 3.5, 1, 0, 4, 2};
  for (int64_t i = 0; i < 8; ++i) rois.set_real(i, r[i]);
  bi.set_int(0, 0), bi.set_int(1, 0);
  ASSERT_EQ(onnx(x, rois, bi, "max", a, out), ACLNN_SUCCESS) << last_msg();
  const std::vector<float> bv = {0, 0.5f, 0.5f, 3.5f, 3.5f, 0, 1, 0, 4, 2};
  expect_near_all(out, reference_forward(x, bv, a, true), 1e-15);
}

TEST(RoiAlignV2, DoubleRefusedWithoutTheExtension) {
  HostTensor x({1, 1, 4, 4}, ACL_DOUBLE), boxes({1, 5}, ACL_DOUBLE, ACL_FORMAT_ND),
      out({1, 1, 2, 2}, ACL_DOUBLE);
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_STATUS_MSG(
      aclnnRoiAlignV2GetWorkspaceSize(x.t(), boxes.t(), 2, 2, 1.0f, 0, false, out.t(), &ws, &ex),
      ACLNN_ERR_PARAM_INVALID, "aclnnRoiAlignV2",
      "self dtype must be FLOAT or FLOAT16, but got DOUBLE");
}

}  // namespace
