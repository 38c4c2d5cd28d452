// SPDX-License-Identifier: Apache-2.0
// aclnnRoiPoolingWithArgMax / aclnnRoiPoolingGradWithArgMax: the spec's worked examples, the
// validation lists (one test per rule), CANN's cases, random cases against a naive reference,
// torchvision golden files, phase-2 data errors with guard bytes.
#include <algorithm>
#include <cmath>
#include <random>

#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "golden_reader.h"
#include "roi_tester.h"
#include "test_util.h"

using namespace pgtest;

namespace {

const char *kFwd = "aclnnRoiPoolingWithArgMax";
const char *kBwd = "aclnnRoiPoolingGradWithArgMax";

// ---- worked examples --------------------------------------------------------------------------
struct Fwd {
  HostTensor x, rois, y, am;
  aclnnStatus run(int64_t ph, int64_t pw, float sh, float sw) {
    uint64_t ws;
    aclOpExecutor *ex;
    aclnnStatus st = aclnnRoiPoolingWithArgMaxGetWorkspaceSize(x.t(), rois.t(), ph, pw, sh, sw,
                                                               y.t(), am.t(), &ws, &ex);
    if (st) return st;
    return aclnnRoiPoolingWithArgMax(pgtest::workspace(ws), ws, ex, nullptr);
  }
};

Fwd make_fwd(std::vector<int64_t> xd, std::vector<std::vector<float>> rois, int64_t ph,
             int64_t pw) {
  Fwd f{HostTensor(xd, ACL_FLOAT, ACL_FORMAT_ND),
        HostTensor({static_cast<int64_t>(rois.size()), 5}, ACL_FLOAT, ACL_FORMAT_ND),
        HostTensor({static_cast<int64_t>(rois.size()), xd[1], ph, pw}, ACL_FLOAT, ACL_FORMAT_ND),
        HostTensor({static_cast<int64_t>(rois.size()), xd[1], ph, pw}, ACL_INT32, ACL_FORMAT_ND)};
  for (size_t r = 0; r < rois.size(); ++r)
    for (int j = 0; j < 5; ++j) f.rois.set(static_cast<int64_t>(r * 5 + j), rois[r][j]);
  return f;
}

TEST(RoiWorkedExamples, F1) {
  Fwd f = make_fwd({2, 2, 6, 8}, {{0, 0, 0, 7, 5}, {1, 0, 0, 7, 5}}, 2, 2);
  for (int64_t i = 0; i < f.x.numel(); ++i) f.x.set(i, 1.0f);
  ASSERT_EQ(f.run(2, 2, 1.0f, 1.0f), ACLNN_SUCCESS) << last_msg();
  const int64_t want[4] = {0, 4, 24, 28};
  for (int64_t i = 0; i < f.y.numel(); ++i) {
    EXPECT_EQ(f.y.get(i), 1.0f);
    EXPECT_EQ(f.am.get_int(i), want[i % 4]) << i;
  }
}

TEST(RoiWorkedExamples, F2AndTorchvisionDifference) {
  Fwd f = make_fwd({1, 1, 8, 8}, {{0, 0, 0, 7, 7}}, 2, 2);
  for (int64_t i = 0; i < 64; ++i) f.x.set(i, static_cast<float>(i));
  ASSERT_EQ(f.run(2, 2, 0.5f, 0.5f), ACLNN_SUCCESS) << last_msg();
  const int64_t want[4] = {9, 11, 25, 27};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(f.am.get_int(i), want[i]);
    EXPECT_EQ(f.y.get(i), static_cast<float>(want[i]));
  }
}

TEST(RoiWorkedExamples, F3MalformedRoi) {
  Fwd f = make_fwd({1, 1, 8, 8}, {{0, 5, 5, 3, 3}}, 2, 2);
  for (int64_t i = 0; i < 64; ++i) f.x.set(i, static_cast<float>(i));
  ASSERT_EQ(f.run(2, 2, 1.0f, 1.0f), ACLNN_SUCCESS);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(f.y.get(i), 0.0f);
    EXPECT_EQ(f.am.get_int(i), -1);
  }
}

TEST(RoiWorkedExamples, F4OnePixelRoi) {
  Fwd f = make_fwd({1, 1, 8, 8}, {{0, 5, 5, 5, 5}}, 2, 2);
  for (int64_t i = 0; i < 64; ++i) f.x.set(i, static_cast<float>(i));
  ASSERT_EQ(f.run(2, 2, 1.0f, 1.0f), ACLNN_SUCCESS);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(f.y.get(i), 45.0f);
    EXPECT_EQ(f.am.get_int(i), 45);
  }
}

TEST(RoiWorkedExamples, AllNaNOrMinusInfBinGivesMinusInfAndMinusOne) {
  Fwd f = make_fwd({1, 1, 2, 2}, {{0, 0, 0, 1, 1}}, 1, 1);
  f.x.set(0, NAN);
  f.x.set(1, -INFINITY);
  f.x.set(2, NAN);
  f.x.set(3, -INFINITY);
  ASSERT_EQ(f.run(1, 1, 1.0f, 1.0f), ACLNN_SUCCESS);
  EXPECT_EQ(f.y.get(0), -INFINITY);
  EXPECT_EQ(f.am.get_int(0), -1);
  // NaN never wins
  f.x.set(3, 2.0f);
  ASSERT_EQ(f.run(1, 1, 1.0f, 1.0f), ACLNN_SUCCESS);
  EXPECT_EQ(f.y.get(0), 2.0f);
  EXPECT_EQ(f.am.get_int(0), 3);
}

TEST(RoiWorkedExamples, B1) {
  HostTensor gy({1, 32, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND),
      am({1, 32, 2, 2}, ACL_INT32, ACL_FORMAT_ND);
  HostTensor rois({1, 5}, ACL_FLOAT, ACL_FORMAT_ND), gx({4, 32, 3, 3}, ACL_FLOAT, ACL_FORMAT_ND);
  for (int64_t i = 0; i < gy.numel(); ++i) {
    gy.set(i, 1.0f);
    am.set_int(i, 3);
  }
  const float r[5] = {0, 0, 1, 0, 1};
  for (int j = 0; j < 5; ++j) rois.set(j, r[j]);
  for (int64_t i = 0; i < gx.numel(); ++i) gx.set(i, 1.0f);
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gx.t(), rois.t(), am.t(), 2, 2,
                                                          1.0, &ws, &ex),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclnnRoiPoolingGradWithArgMax(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
  for (int64_t b = 0; b < 4; ++b)
    for (int64_t c = 0; c < 32; ++c)
      for (int64_t k = 0; k < 9; ++k)
        EXPECT_EQ(gx.get((b * 32 + c) * 9 + k), (b == 0 && k == 3) ? 4.0f : 0.0f);
}

TEST(RoiNumerics, CannByteExactCase) {
  std::mt19937 rng(7);
  std::normal_distribution<float> nd;
  Fwd f = make_fwd({2, 16, 25, 42}, {{0, 0, 0, 10, 10}, {1, 10, 10, 20, 20}}, 3, 3);
  std::vector<float> xd(f.x.numel());
  for (int64_t i = 0; i < f.x.numel(); ++i) {
    xd[i] = nd(rng);
    f.x.set(i, xd[i]);
  }
  ASSERT_EQ(f.run(3, 3, 1.0f, 1.0f), ACLNN_SUCCESS);
  const float rois[2][5] = {{0, 0, 0, 10, 10}, {1, 10, 10, 20, 20}};
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t c = 0; c < 16; ++c)
      for (int64_t k = 0; k < 9; ++k) {
        float want;
        int64_t wam;
        ref_bin(xd, 16, 25, 42, rois[r], c, k / 3, k % 3, 3, 3, 1.0f, 1.0f, &want, &wam);
        const int64_t pos = (r * 16 + c) * 9 + k;
        ASSERT_EQ(f.am.get_int(pos), wam);
        ASSERT_EQ(f.y.get(pos), want);
      }
}

TEST(RoiNumerics, FluentTesterCases) {
  RoiTester()
      .batch(2)
      .channels(37)
      .input(10, 21)
      .rois(30)
      .pooled(3, 5)
      .scale(0.5f)
      .threads(3)
      .test_forward();
  RoiTester()
      .batch(3)
      .channels(9)
      .input(13, 17)
      .rois(40)
      .pooled(7, 7)
      .dtype(ACL_FLOAT16)
      .strided(true)
      .test_backward();
}

TEST(RoiNumerics, RandomForward) {
  std::mt19937 rng(31337);
  const RoiCase cases[] = {
      {2, 3, 9, 11, 20, 2, 3, 1.0f, 1.0f},
      {1, 2, 16, 12, 30, 7, 7, 0.25f, 0.25f},
      {3, 4, 10, 10, 25, 3, 2, 0.5f, 0.75f},
      {2, 2, 6, 7, 15, 4, 4, 1.0f, 1.0f, ACL_FLOAT16},
      {2, 3, 12, 9, 20, 2, 2, 0.0625f, 0.0625f, ACL_FLOAT, true},
      {1, 2, 8, 8, 1024, 2, 2, 1.0f, 1.0f},
      {2, 2, 9, 5, 17, 3, 3, 0.5f, 0.5f, ACL_FLOAT16, true},
      {1, 1, 1, 1, 8, 2, 2, 1.0f, 1.0f},
      // Sixteen-channel blocks of the vector forward: full and partial blocks, dense and strided
      // outputs, both dtypes, rows of 8+ pixels (the 8 x 8 copy and its tail), one batch cut into
      // runs of ROIs for the threads, pooled grids of 49 and 196 bins.
      {2, 16, 9, 11, 20, 7, 7, 0.5f, 0.5f},
      {3, 37, 10, 21, 30, 3, 5, 1.0f, 1.0f},
      {2, 33, 12, 9, 25, 7, 7, 0.5f, 0.5f, ACL_FLOAT, true},
      {1, 20, 8, 8, 40, 2, 2, 1.0f, 1.0f, ACL_FLOAT16},
      {2, 48, 6, 17, 15, 4, 4, 1.0f, 1.0f, ACL_FLOAT16, true},
      {1, 16, 16, 24, 300, 3, 3, 0.5f, 0.5f},
      {2, 32, 20, 20, 12, 14, 14, 0.5f, 0.5f},
  };
  for (const RoiCase &k : cases) {
    run_forward_case(k, rng);
    if (HasFatalFailure()) return;
  }
}

// Runs the forward (scale 1) on x (dense, values xd) and the float16 rois (values rh) into y, and
// checks every bin against the naive reference: the argmax, the value and the sign of a zero.
void check_f16_forward(const HostTensor &x, const std::vector<float> &xd, const HostTensor &rois,
                       const std::vector<float> &rh, int64_t c, int64_t h, int64_t w, int64_t ph,
                       int64_t pw, HostTensor &y) {
  const int64_t R = static_cast<int64_t>(rh.size()) / 5;
  HostTensor am({R, c, ph, pw}, ACL_INT32, ACL_FORMAT_ND);
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnRoiPoolingWithArgMaxGetWorkspaceSize(x.t(), rois.t(), ph, pw, 1.0f, 1.0f, y.t(),
                                                      am.t(), &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  ASSERT_EQ(aclnnRoiPoolingWithArgMax(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < ph; ++i)
        for (int64_t j = 0; j < pw; ++j) {
          float want;
          int64_t wam;
          ref_bin(xd, c, h, w, &rh[r * 5], ch, i, j, ph, pw, 1.0f, 1.0f, &want, &wam);
          const int64_t pos = ((r * c + ch) * ph + i) * pw + j;
          SCOPED_TRACE(testing::Message()
                       << "roi " << r << " c " << ch << " bin " << i << "," << j);
          ASSERT_EQ(am.get_int(pos), wam);
          ASSERT_EQ(y.get(pos), want);
          ASSERT_EQ(std::signbit(y.get(pos)), std::signbit(want));
        }
  EXPECT_TRUE(y.outside_view_untouched());
}

// float16 maps are scanned as int16 keys, 16 channels a vector (roipool_forward_keys.h). Checked
// bit for bit against the reference (the sign of a zero included): special values (infinities,
// the largest finite, subnormals, NaNs of both signs, which never win) with and without signed
// zeros (a block holding -0.0 is scanned as float32, so that a -0.0 that wins comes back as -0.0),
// over maps of 16 and 32 channels and widths with and without a rest of 8; and a map 600 pixels
// wide whose bins are 300 wide, past the key scan's 255 (the float32 scan runs; the argmax stays
// exact). The keyed values leave as float16 bits: through whole runs into a dense y, and row by
// row into a strided one.
TEST(RoiNumerics, Float16KeyScanSpecialValuesBitExact) {
  std::mt19937 rng(8);
  struct Map {
    int64_t c, h, w;
    int mix;  // 0: numbers and NaN, 1: and signed zeros
    int64_t ph, pw;
    bool strided_y = false;
  };
  const Map maps[] = {{16, 9, 21, 0, 3, 3},
                      {32, 7, 16, 1, 2, 3},
                      {16, 5, 13, 1, 7, 7},
                      {16, 3, 600, 0, 1, 2},
                      {32, 9, 21, 0, 7, 7, true}};
  const float big = 65504.0f, tiny = 5.9604645e-08f, inf = INFINITY;
  for (const Map &m : maps) {
    SCOPED_TRACE(testing::Message() << "C=" << m.c << " H=" << m.h << " W=" << m.w
                                    << " mix=" << m.mix << " strided y=" << m.strided_y);
    std::vector<float> pool = {-inf, -big, -1.5f, -tiny, tiny, 1.5f, big, inf, NAN, -NAN};
    if (m.mix == 1) pool.insert(pool.end(), {-0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f});
    std::uniform_int_distribution<size_t> pick(0, pool.size() - 1);
    HostTensor x({1, m.c, m.h, m.w}, ACL_FLOAT16, ACL_FORMAT_ND);
    std::vector<float> xd(m.c * m.h * m.w);
    for (size_t i = 0; i < xd.size(); ++i) {
      // The wide map rises along each row: every bin's winner is its last column.
      xd[i] = m.w == 600 ? float(static_cast<int64_t>(i) % m.w) : pool[pick(rng)];
      x.set(static_cast<int64_t>(i), xd[i]);
    }
    const std::vector<std::vector<float>> rv = {{0, 0, 0, float(m.w - 1), float(m.h - 1)},
                                                {0, 1, 1, float(m.w / 2), float(m.h - 1)},
                                                {0, 2, 0, 4, 2}};
    const int64_t R = static_cast<int64_t>(rv.size());
    HostTensor rois({R, 5}, ACL_FLOAT16, ACL_FORMAT_ND);
    std::vector<float> rh;
    for (const auto &roi : rv)
      for (float v : roi) {
        rois.set(static_cast<int64_t>(rh.size()), v);
        rh.push_back(v);
      }
    HostTensor y = m.strided_y ? make_strided({R, m.c, m.ph, m.pw}, {0, 1, 2, 3}, 1, 3, ACL_FLOAT16,
                                              ACL_FORMAT_ND)
                               : HostTensor({R, m.c, m.ph, m.pw}, ACL_FLOAT16, ACL_FORMAT_ND);
    check_f16_forward(x, xd, rois, rh, m.c, m.h, m.w, m.ph, m.pw, y);
    if (HasFatalFailure()) return;
  }
}

// The key scan hands each result over as one int32, the value's float16 bits beside the winning
// pixel's number in 16 bits, so it runs on maps of fewer than 0xFFFF pixels (roi_keys_apply).
// Checked against the reference with ROIs in the last columns of a 2 x 32767 map (pixel numbers
// up to 0xFFFD, read back as unsigned) and in the last two rows of a 3 x 32768 map (numbers past
// 16 bits: the float32 scan), and on outputs large enough to be streamed (an unaligned head, then
// whole 32-byte stores).
TEST(RoiNumerics, Float16KeyScanPixelNumbersAndStreamedOutputs) {
  std::mt19937 rng(29);
  for (const int64_t h : {2, 3}) {
    const int64_t w = h == 2 ? 32767 : 32768, c = 16, ph = 2, pw = 7, R = 24;
    SCOPED_TRACE(testing::Message() << "H=" << h << " W=" << w);
    HostTensor x({1, c, h, w}, ACL_FLOAT16, ACL_FORMAT_ND);
    std::vector<float> xd(c * h * w);
    std::uniform_int_distribution<int> vals(-200, 200);
    for (size_t i = 0; i < xd.size(); ++i) {
      xd[i] = static_cast<float>(vals(rng)) * 0.125f;
      x.set(static_cast<int64_t>(i), xd[i]);
    }
    HostTensor rois({R, 5}, ACL_FLOAT16, ACL_FORMAT_ND);
    std::vector<float> rh;
    // Coordinates this far out are multiples of 16 in float16.
    std::uniform_int_distribution<int64_t> x1s(w - 240, w - 100), lens(16, 96);
    for (int64_t r = 0; r < R; ++r) {
      const int64_t x1 = x1s(rng), x2 = std::min(w - 1, x1 + lens(rng));
      for (float v : {0.0f, float(x1), float(h - 2), float(x2), float(h - 1)}) {
        rh.push_back(round_to(ACL_FLOAT16, v));
        rois.set(static_cast<int64_t>(rh.size()) - 1, rh.back());
      }
    }
    HostTensor y({R, c, ph, pw}, ACL_FLOAT16, ACL_FORMAT_ND);
    check_f16_forward(x, xd, rois, rh, c, h, w, ph, pw, y);
    if (HasFatalFailure()) return;
  }
  // 1100 ROIs x 32 channels x 49 bins: 10 MB of values and argmax, past kStreamMinBytes.
  run_forward_case({1, 32, 8, 10, 1100, 7, 7, 1.0f, 1.0f, ACL_FLOAT16}, rng);
}

// float32 outputs past kStreamMinBytes (1100 ROIs x 32 channels x 49 bins: 14 MB of values and
// argmax) go out with streaming stores, a ROI's 32 x 49 results a run from a line-aligned y.
TEST(RoiNumerics, Float32StreamedOutputs) {
  std::mt19937 rng(31);
  run_forward_case({1, 32, 8, 10, 1100, 7, 7, 1.0f, 1.0f, ACL_FLOAT}, rng);
}

// Blocks of 16 channels larger than 1 MB (here 130 x 131 pixels) are scanned a group of ROIs at a
// time, the group's bin rows in order of their first map row (roi_group: 334 ROIs of 7 x 7 bins).
// 335 ROIs in one batch: at 1 thread a run of all of them, a group of 334 and a group of one; at
// 2 threads runs of 167 and 168, a group each; values with ties and NaNs.
TEST(RoiNumerics, LargeMapGroupScan) {
  for (const int threads : {1, 2}) {
    SCOPED_TRACE(testing::Message() << threads << " thread(s)");
    RoiTester({1, 64, 130, 131, 335, 7, 7, 1.0f, 1.0f}).threads(threads).seed(77).test_forward();
    if (HasFatalFailure()) return;
  }
}

TEST(RoiNumerics, RandomBackward) {
  std::mt19937 rng(4242);
  const RoiCase cases[] = {
      {2, 3, 9, 11, 20, 2, 3, 1, 1},
      {3, 4, 5, 5, 64, 7, 7, 1, 1},
      {2, 2, 6, 7, 15, 4, 4, 1, 1, ACL_FLOAT16},
      {2, 3, 12, 9, 20, 2, 2, 1, 1, ACL_FLOAT, true},
      {4, 2, 4, 4, 1024, 2, 2, 1, 1},
      {2, 2, 9, 5, 17, 3, 3, 1, 1, ACL_FLOAT16, true},
      // Runs of 49 and 196 bins (the eight-wide scatter and its tail), channel counts that are not
      // multiples of the channel block, uneven batches, many blocks per batch (64 x 64 planes).
      {3, 41, 24, 30, 90, 7, 7, 1, 1},
      {2, 9, 13, 17, 40, 14, 14, 1, 1},
      {2, 13, 64, 64, 30, 7, 7, 1, 1},
      {3, 11, 10, 12, 50, 7, 7, 1, 1, ACL_FLOAT16},
      {2, 6, 9, 11, 30, 7, 7, 1, 1, ACL_FLOAT, true},
  };
  for (const RoiCase &k : cases) {
    run_backward_case(k, rng);
    if (HasFatalFailure()) return;
  }
}

TEST(RoiGolden, BackwardMatchesTorchvision) {
  auto cases = read_golden(POOLGRAD_GOLDEN_DIR "/roi_backward.txt");
  ASSERT_GE(cases.size(), 4u);
  for (const GoldenCase &g : cases) {
    const aclDataType dt = g.s("dtype") == "FLOAT16" ? ACL_FLOAT16 : ACL_FLOAT;
    const int64_t n = g.i("N"), c = g.i("C"), h = g.i("H"), w = g.i("W"), r = g.i("R"),
                  ph = g.i("ph"), pw = g.i("pw");
    SCOPED_TRACE("golden N=" + g.s("N") + " R=" + g.s("R") + " " + g.s("dtype"));
    HostTensor rois({r, 5}, dt, ACL_FORMAT_ND), am({r, c, ph, pw}, ACL_INT32, ACL_FORMAT_ND),
        gy({r, c, ph, pw}, dt, ACL_FORMAT_ND), gx({n, c, h, w}, dt, ACL_FORMAT_ND);
    for (int64_t i = 0; i < rois.numel(); ++i)
      rois.set(i, static_cast<float>(g.arrays.at("rois")[i]));
    for (int64_t i = 0; i < am.numel(); ++i) {
      am.set_int(i, static_cast<int64_t>(g.arrays.at("argmax")[i]));
      gy.set(i, static_cast<float>(g.arrays.at("gradOutput")[i]));
    }
    uint64_t ws;
    aclOpExecutor *ex;
    ASSERT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gx.t(), rois.t(), am.t(), ph,
                                                            pw, 1.0, &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    ASSERT_EQ(aclnnRoiPoolingGradWithArgMax(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS)
        << last_msg();
    for (int64_t i = 0; i < gx.numel(); ++i)
      ASSERT_EQ(gx.get(i), round_to(dt, static_cast<float>(g.arrays.at("gradInput")[i]))) << i;
  }
}

// ---- validation: backward ---------------------------------------------------------------------
struct Bwd {
  HostTensor gy{{4, 32, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND},
      gx{{1, 32, 3, 3}, ACL_FLOAT, ACL_FORMAT_ND}, rois{{4, 5}, ACL_FLOAT, ACL_FORMAT_ND},
      am{{4, 32, 2, 2}, ACL_INT32, ACL_FORMAT_ND};
  int64_t ph = 2, pw = 2;
  aclnnStatus call(const aclTensor *g, const aclTensor *x, const aclTensor *r, const aclTensor *a) {
    uint64_t ws;
    aclOpExecutor *ex;
    aclnnStatus st =
        aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(g, x, r, a, ph, pw, 1.0, &ws, &ex);
    if (st == ACLNN_SUCCESS) aclDestroyAclOpExecutor(ex);
    return st;
  }
  aclnnStatus call() { return call(gy.t(), gx.t(), rois.t(), am.t()); }
};

TEST(RoiBackwardContract, CannCaseSucceeds) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor gy({4, 32, 2, 2}, dt, ACL_FORMAT_ND), gx({1, 32, 3, 3}, dt, ACL_FORMAT_ND),
        rois({4, 5}, dt, ACL_FORMAT_ND), am({4, 32, 2, 2}, ACL_INT32, ACL_FORMAT_ND);
    for (int64_t i = 0; i < am.numel(); ++i) am.set_int(i, i % 9);
    uint64_t ws = 1;
    aclOpExecutor *ex;
    ASSERT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gx.t(), rois.t(), am.t(), 2, 2,
                                                            1.0, &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    EXPECT_GT(ws, 0u);
    EXPECT_EQ(aclnnRoiPoolingGradWithArgMax(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS)
        << last_msg();
  }
}

TEST(RoiBackwardContract, NullPointers) {
  Bwd a;
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_STATUS_MSG(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(
                        a.gy.t(), a.gx.t(), a.rois.t(), a.am.t(), 2, 2, 1.0, nullptr, &ex),
                    ACLNN_ERR_PARAM_NULLPTR, kBwd, "workspaceSize");
  EXPECT_STATUS_MSG(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(
                        a.gy.t(), a.gx.t(), a.rois.t(), a.am.t(), 2, 2, 1.0, &ws, nullptr),
                    ACLNN_ERR_PARAM_NULLPTR, kBwd, "executor");
  EXPECT_STATUS_MSG(a.call(nullptr, a.gx.t(), a.rois.t(), a.am.t()), ACLNN_ERR_PARAM_NULLPTR, kBwd,
                    "gradOutput");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), nullptr, a.rois.t(), a.am.t()), ACLNN_ERR_PARAM_NULLPTR, kBwd,
                    "gradInputRef");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.gx.t(), nullptr, a.am.t()), ACLNN_ERR_PARAM_NULLPTR, kBwd,
                    "rois");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.gx.t(), a.rois.t(), nullptr), ACLNN_ERR_PARAM_NULLPTR, kBwd,
                    "argmax");
}

TEST(RoiBackwardContract, Dtypes) {
  Bwd a;
  HostTensor gy_bf({4, 32, 2, 2}, ACL_BF16, ACL_FORMAT_ND),
      gx16({1, 32, 3, 3}, ACL_FLOAT16, ACL_FORMAT_ND), rois16({4, 5}, ACL_FLOAT16, ACL_FORMAT_ND),
      am64({4, 32, 2, 2}, ACL_INT64, ACL_FORMAT_ND), gy_i({4, 32, 2, 2}, ACL_INT32, ACL_FORMAT_ND);
  EXPECT_STATUS_MSG(a.call(gy_bf.t(), a.gx.t(), a.rois.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID,
                    kBwd, "gradOutput dtype");
  EXPECT_STATUS_MSG(a.call(gy_i.t(), a.gx.t(), a.rois.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradOutput dtype");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), gx16.t(), a.rois.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradInputRef dtype");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.gx.t(), rois16.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "rois dtype");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.gx.t(), a.rois.t(), am64.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "argmax dtype");
}

TEST(RoiBackwardContract, Formats) {
  Bwd a;
  HostTensor gx_nz({1, 32, 3, 3}, ACL_FLOAT, ACL_FORMAT_FRACTAL_NZ),
      am_nchw({4, 32, 2, 2}, ACL_INT32, ACL_FORMAT_NCHW);
  EXPECT_STATUS_MSG(a.call(a.gy.t(), gx_nz.t(), a.rois.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID,
                    kBwd, "public format");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.gx.t(), a.rois.t(), am_nchw.t()), ACLNN_ERR_PARAM_INVALID,
                    kBwd, "argmax format");
  // All four in NCHW is accepted (formats must only agree).
  HostTensor gy({4, 32, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCHW),
      gx({1, 32, 3, 3}, ACL_FLOAT, ACL_FORMAT_NCHW), rois({4, 5}, ACL_FLOAT, ACL_FORMAT_NCHW);
  EXPECT_EQ(a.call(gy.t(), gx.t(), rois.t(), am_nchw.t()), ACLNN_SUCCESS) << last_msg();
}

TEST(RoiBackwardContract, Shapes) {
  Bwd a;
  HostTensor gy3({4, 32, 4}, ACL_FLOAT, ACL_FORMAT_ND), rois3({4, 5, 1}, ACL_FLOAT, ACL_FORMAT_ND),
      rois4({4, 4}, ACL_FLOAT, ACL_FORMAT_ND), rois5({5, 5}, ACL_FLOAT, ACL_FORMAT_ND),
      am_bad({4, 32, 2, 1}, ACL_INT32, ACL_FORMAT_ND),
      gx_c({1, 31, 3, 3}, ACL_FLOAT, ACL_FORMAT_ND),
      gx_big({1025, 32, 1, 1}, ACL_FLOAT, ACL_FORMAT_ND), gx3({32, 3, 3}, ACL_FLOAT, ACL_FORMAT_ND),
      am3({4, 32, 4}, ACL_INT32, ACL_FORMAT_ND);
  EXPECT_STATUS_MSG(a.call(gy3.t(), a.gx.t(), a.rois.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradOutput must be 4-D");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.gx.t(), a.rois.t(), am3.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "argmax must be 4-D");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), gx3.t(), a.rois.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradInputRef must be 4-D");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.gx.t(), rois3.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "rois must be 2-D");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.gx.t(), rois4.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "rois.shape[1] must be 5");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.gx.t(), rois5.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "rois.shape[0] must equal");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), gx_big.t(), a.rois.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID,
                    kBwd, "<= 1024");
  HostTensor gy_r({1025, 1, 1, 1}, ACL_FLOAT, ACL_FORMAT_ND),
      am_r({1025, 1, 1, 1}, ACL_INT32, ACL_FORMAT_ND), rois_r({1025, 5}, ACL_FLOAT, ACL_FORMAT_ND),
      gx_r({1, 1, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND);
  a.ph = 1, a.pw = 1;
  EXPECT_STATUS_MSG(a.call(gy_r.t(), gx_r.t(), rois_r.t(), am_r.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "<= 1024");
  a.ph = 2, a.pw = 2;
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.gx.t(), a.rois.t(), am_bad.t()), ACLNN_ERR_PARAM_INVALID,
                    kBwd, "argmax shape");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), gx_c.t(), a.rois.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradOutput.shape[1]");
  // Deviation: either pooled dim alone mismatching is rejected (CANN's AND check misses it).
  a.ph = 3;
  EXPECT_STATUS_MSG(a.call(), ACLNN_ERR_PARAM_INVALID, kBwd, "(pooledH, pooledW) = (3, 2)");
  a.ph = 2, a.pw = 1;
  EXPECT_STATUS_MSG(a.call(), ACLNN_ERR_PARAM_INVALID, kBwd, "(pooledH, pooledW) = (2, 1)");
  HostTensor gy0({4, 32, 0, 2}, ACL_FLOAT, ACL_FORMAT_ND),
      am0({4, 32, 0, 2}, ACL_INT32, ACL_FORMAT_ND);
  a.ph = 0, a.pw = 2;
  EXPECT_STATUS_MSG(a.call(gy0.t(), a.gx.t(), a.rois.t(), am0.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "pooledH and pooledW must be > 0");
}

TEST(RoiBackwardContract, EmptyGradOutputZeroFills) {
  HostTensor gy({0, 32, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND),
      am({0, 32, 2, 2}, ACL_INT32, ACL_FORMAT_ND), rois({0, 5}, ACL_FLOAT, ACL_FORMAT_ND);
  HostTensor gx = make_strided({2, 32, 3, 3}, {0, 1, 2, 3}, 2, 1, ACL_FLOAT, ACL_FORMAT_ND);
  for (int64_t i = 0; i < gx.numel(); ++i) gx.set(i, 5.0f);
  uint64_t ws = 9;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gx.t(), rois.t(), am.t(), 2, 2,
                                                          1.0, &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  EXPECT_EQ(ws, 0u);
  ASSERT_EQ(aclnnRoiPoolingGradWithArgMax(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
  for (int64_t i = 0; i < gx.numel(); ++i) ASSERT_EQ(gx.get(i), 0.0f);
  EXPECT_TRUE(gx.outside_view_untouched());
}

TEST(RoiBackwardContract, Phase2DataErrors) {
  for (int kind = 0; kind < 4; ++kind) {
    HostTensor gy({3, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND),
        am({3, 2, 2, 2}, ACL_INT32, ACL_FORMAT_ND), rois({3, 5}, ACL_FLOAT, ACL_FORMAT_ND);
    HostTensor gx = make_strided({2, 2, 3, 3}, {0, 1, 2, 3}, 1, 2, ACL_FLOAT, ACL_FORMAT_ND);
    for (int64_t i = 0; i < gy.numel(); ++i) {
      gy.set(i, 1.0f);
      am.set_int(i, i % 9);
    }
    for (int r = 0; r < 3; ++r) rois.set(r * 5, static_cast<float>(r % 2));
    std::string needle;
    if (kind == 0) {
      am.set_int(13, 9);  // (1, 1, 0, 1): H*W is 9
      am.set_int(20, -5);
      needle = "argmax[1,1,0,1]=9";
    } else if (kind == 1) {
      am.set_int(6, -2);  // (0, 1, 1, 0)
      needle = "argmax[0,1,1,0]=-2";
    } else if (kind == 2) {
      rois.set(2 * 5, 2.0f);  // batch 2 of N=2
      needle = "rois[2,0]=2";
    } else {
      rois.set(1 * 5, NAN);
      needle = "rois[1,0]=nan";
    }
    uint64_t ws;
    aclOpExecutor *ex;
    ASSERT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gx.t(), rois.t(), am.t(), 2, 2,
                                                            1.0, &ws, &ex),
              ACLNN_SUCCESS);
    EXPECT_STATUS_MSG(aclnnRoiPoolingGradWithArgMax(pgtest::workspace(ws), ws, ex, nullptr),
                      ACLNN_ERR_PARAM_INVALID, kBwd, needle);
    EXPECT_TRUE(gx.outside_view_untouched()) << kind;
  }
}

// Bad argmax values inside runs of 49 bins: in the first lane of an eight-bin group, in its last
// lane after a -1, and in the one-bin tail. The first bad one in (r, c, ph, pw) order is named.
TEST(RoiBackwardContract, Phase2BadArgmaxInLongRuns) {
  struct Bad {
    int64_t pos, value;
  };
  const struct {
    std::vector<Bad> bad;
    const char *needle;
  } variants[] = {
      {{{1 * 49 + 8, 1000}, {2 * 49 + 3, 25}}, "argmax[0,1,1,1]=1000"},
      {{{4 * 49 + 15, -7}, {5 * 49 + 0, 30}}, "argmax[1,1,2,1]=-7"},
      {{{3 * 49 + 48, 25}, {4 * 49 + 1, -3}}, "argmax[1,0,6,6]=25"},
      {{{2 * 49 + 48, INT32_MIN}}, "argmax[0,2,6,6]=-2147483648"},
  };
  for (const auto &v : variants) {
    HostTensor gy({2, 3, 7, 7}, ACL_FLOAT, ACL_FORMAT_ND),
        am({2, 3, 7, 7}, ACL_INT32, ACL_FORMAT_ND), rois({2, 5}, ACL_FLOAT, ACL_FORMAT_ND);
    HostTensor gx = make_strided({1, 3, 5, 5}, {0, 1, 2, 3}, 1, 2, ACL_FLOAT, ACL_FORMAT_ND);
    for (int64_t i = 0; i < gy.numel(); ++i) {
      gy.set(i, 1.0f);
      am.set_int(i, i % 11 == 5 ? -1 : i % 25);
    }
    am.set_int(4 * 49 + 14, -1);  // a -1 just before the bad value of the second variant
    for (const Bad &b : v.bad) am.set_int(b.pos, b.value);
    uint64_t ws;
    aclOpExecutor *ex;
    ASSERT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gx.t(), rois.t(), am.t(), 7, 7,
                                                            1.0, &ws, &ex),
              ACLNN_SUCCESS);
    EXPECT_STATUS_MSG(aclnnRoiPoolingGradWithArgMax(pgtest::workspace(ws), ws, ex, nullptr),
                      ACLNN_ERR_PARAM_INVALID, kBwd, v.needle);
    EXPECT_TRUE(gx.outside_view_untouched()) << v.needle;
  }
}

TEST(RoiBackwardContract, Phase2Misuse) {
  EXPECT_STATUS_MSG(aclnnRoiPoolingGradWithArgMax(nullptr, 0, nullptr, nullptr),
                    ACLNN_ERR_PARAM_NULLPTR, kBwd, "executor");
  Bwd a;
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(a.gy.t(), a.gx.t(), a.rois.t(), a.am.t(),
                                                          2, 2, 1.0, &ws, &ex),
            ACLNN_SUCCESS);
  EXPECT_STATUS_MSG(aclnnRoiPoolingGradWithArgMax(nullptr, 8, ex, nullptr), ACLNN_ERR_PARAM_NULLPTR,
                    kBwd, "workspace");
}

// ---- validation: forward ----------------------------------------------------------------------
struct FwdArgs {
  HostTensor x{{2, 3, 8, 8}, ACL_FLOAT, ACL_FORMAT_ND}, rois{{4, 5}, ACL_FLOAT, ACL_FORMAT_ND},
      y{{4, 3, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND}, am{{4, 3, 2, 2}, ACL_INT32, ACL_FORMAT_ND};
  aclnnStatus call(const aclTensor *xt, const aclTensor *rt, aclTensor *yt, aclTensor *at,
                   int64_t ph = 2, int64_t pw = 2, float sh = 1.0f, float sw = 1.0f) {
    uint64_t ws;
    aclOpExecutor *ex;
    aclnnStatus st =
        aclnnRoiPoolingWithArgMaxGetWorkspaceSize(xt, rt, ph, pw, sh, sw, yt, at, &ws, &ex);
    if (st == ACLNN_SUCCESS) aclDestroyAclOpExecutor(ex);
    return st;
  }
};

TEST(RoiForwardContract, Rules) {
  FwdArgs a;
  EXPECT_EQ(a.call(a.x.t(), a.rois.t(), a.y.t(), a.am.t()), ACLNN_SUCCESS) << last_msg();
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_STATUS_MSG(aclnnRoiPoolingWithArgMaxGetWorkspaceSize(a.x.t(), a.rois.t(), 2, 2, 1, 1,
                                                              a.y.t(), a.am.t(), nullptr, &ex),
                    ACLNN_ERR_PARAM_NULLPTR, kFwd, "workspaceSize");
  EXPECT_STATUS_MSG(aclnnRoiPoolingWithArgMaxGetWorkspaceSize(a.x.t(), a.rois.t(), 2, 2, 1, 1,
                                                              a.y.t(), a.am.t(), &ws, nullptr),
                    ACLNN_ERR_PARAM_NULLPTR, kFwd, "executor");
  EXPECT_STATUS_MSG(a.call(nullptr, a.rois.t(), a.y.t(), a.am.t()), ACLNN_ERR_PARAM_NULLPTR, kFwd,
                    "x must not");
  EXPECT_STATUS_MSG(a.call(a.x.t(), nullptr, a.y.t(), a.am.t()), ACLNN_ERR_PARAM_NULLPTR, kFwd,
                    "rois");
  EXPECT_STATUS_MSG(a.call(a.x.t(), a.rois.t(), nullptr, a.am.t()), ACLNN_ERR_PARAM_NULLPTR, kFwd,
                    "y must not");
  EXPECT_STATUS_MSG(a.call(a.x.t(), a.rois.t(), a.y.t(), nullptr), ACLNN_ERR_PARAM_NULLPTR, kFwd,
                    "argmax");
  HostTensor xi({2, 3, 8, 8}, ACL_INT32, ACL_FORMAT_ND), xbf({2, 3, 8, 8}, ACL_BF16, ACL_FORMAT_ND),
      y16({4, 3, 2, 2}, ACL_FLOAT16, ACL_FORMAT_ND), r16({4, 5}, ACL_FLOAT16, ACL_FORMAT_ND),
      am64({4, 3, 2, 2}, ACL_INT64, ACL_FORMAT_ND);
  EXPECT_STATUS_MSG(a.call(xi.t(), a.rois.t(), a.y.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "x dtype");
  EXPECT_STATUS_MSG(a.call(xbf.t(), a.rois.t(), a.y.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "x dtype");
  EXPECT_STATUS_MSG(a.call(a.x.t(), a.rois.t(), y16.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "y dtype");
  EXPECT_STATUS_MSG(a.call(a.x.t(), r16.t(), a.y.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "rois dtype");
  EXPECT_STATUS_MSG(a.call(a.x.t(), a.rois.t(), a.y.t(), am64.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "argmax dtype");
  HostTensor xn({2, 3, 8, 8}, ACL_FLOAT, ACL_FORMAT_NCHW), rn({4, 5}, ACL_FLOAT, ACL_FORMAT_NCHW),
      yn({4, 3, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCHW), an({4, 3, 2, 2}, ACL_INT32, ACL_FORMAT_NHWC);
  EXPECT_STATUS_MSG(a.call(xn.t(), a.rois.t(), a.y.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "x format must be ND");
  EXPECT_STATUS_MSG(a.call(a.x.t(), rn.t(), a.y.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "rois format must be ND");
  EXPECT_STATUS_MSG(a.call(a.x.t(), a.rois.t(), yn.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "y format must be ND");
  EXPECT_STATUS_MSG(a.call(a.x.t(), a.rois.t(), a.y.t(), an.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "argmax format must be ND");
  HostTensor x3({3, 8, 8}, ACL_FLOAT, ACL_FORMAT_ND), r4({4, 4}, ACL_FLOAT, ACL_FORMAT_ND),
      r1({20}, ACL_FLOAT, ACL_FORMAT_ND);
  EXPECT_STATUS_MSG(a.call(x3.t(), a.rois.t(), a.y.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "x must be 4-D");
  EXPECT_STATUS_MSG(a.call(a.x.t(), r4.t(), a.y.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "rois must have shape (R, 5)");
  EXPECT_STATUS_MSG(a.call(a.x.t(), r1.t(), a.y.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "rois must have shape");
  for (std::vector<int64_t> bad :
       {std::vector<int64_t>{3, 3, 2, 2}, {4, 2, 2, 2}, {4, 3, 3, 2}, {4, 3, 2, 3}}) {
    HostTensor yb(bad, ACL_FLOAT, ACL_FORMAT_ND), ab(bad, ACL_INT32, ACL_FORMAT_ND);
    EXPECT_STATUS_MSG(a.call(a.x.t(), a.rois.t(), yb.t(), a.am.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                      "y shape");
    EXPECT_STATUS_MSG(a.call(a.x.t(), a.rois.t(), a.y.t(), ab.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                      "argmax shape");
  }
  HostTensor y0({4, 3, 0, 2}, ACL_FLOAT, ACL_FORMAT_ND), a0({4, 3, 0, 2}, ACL_INT32, ACL_FORMAT_ND);
  EXPECT_STATUS_MSG(a.call(a.x.t(), a.rois.t(), y0.t(), a0.t(), 0, 2), ACLNN_ERR_PARAM_INVALID,
                    kFwd, "pooled_h and pooled_w");
  HostTensor yw0({4, 3, 2, 0}, ACL_FLOAT, ACL_FORMAT_ND),
      aw0({4, 3, 2, 0}, ACL_INT32, ACL_FORMAT_ND);
  EXPECT_STATUS_MSG(a.call(a.x.t(), a.rois.t(), yw0.t(), aw0.t(), 2, 0), ACLNN_ERR_PARAM_INVALID,
                    kFwd, "pooled_h and pooled_w");
  EXPECT_STATUS_MSG(a.call(a.x.t(), a.rois.t(), a.y.t(), a.am.t(), 2, 2, 0.0f, 1.0f),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "spatial_scale");
  EXPECT_STATUS_MSG(a.call(a.x.t(), a.rois.t(), a.y.t(), a.am.t(), 2, 2, 1.0f, -1.0f),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "spatial_scale");
  EXPECT_STATUS_MSG(a.call(a.x.t(), a.rois.t(), a.y.t(), a.am.t(), 2, 2, NAN, 1.0f),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "nan");
  // CANN's successes: FLOAT16, one ROI at scale 0.5, 7x7 pooling.
  HostTensor x16({1, 2, 14, 14}, ACL_FLOAT16, ACL_FORMAT_ND),
      rr16({1, 5}, ACL_FLOAT16, ACL_FORMAT_ND), yy16({1, 2, 7, 7}, ACL_FLOAT16, ACL_FORMAT_ND),
      aa({1, 2, 7, 7}, ACL_INT32, ACL_FORMAT_ND);
  EXPECT_EQ(a.call(x16.t(), rr16.t(), yy16.t(), aa.t(), 7, 7, 0.5f, 0.5f), ACLNN_SUCCESS)
      << last_msg();
}

TEST(RoiForwardContract, EmptyInputsAndBadBatch) {
  FwdArgs a;
  HostTensor r0({0, 5}, ACL_FLOAT, ACL_FORMAT_ND), y0({0, 3, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND),
      a0({0, 3, 2, 2}, ACL_INT32, ACL_FORMAT_ND);
  uint64_t ws = 5;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnRoiPoolingWithArgMaxGetWorkspaceSize(a.x.t(), r0.t(), 2, 2, 1, 1, y0.t(), a0.t(),
                                                      &ws, &ex),
            ACLNN_SUCCESS);
  EXPECT_EQ(ws, 0u);
  EXPECT_EQ(aclnnRoiPoolingWithArgMax(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
  // batch index outside [0, N) in phase 2
  for (int64_t i = 0; i < 4; ++i) a.rois.set(i * 5, 0.0f);
  a.rois.set(3 * 5, -1.0f);
  ASSERT_EQ(aclnnRoiPoolingWithArgMaxGetWorkspaceSize(a.x.t(), a.rois.t(), 2, 2, 1, 1, a.y.t(),
                                                      a.am.t(), &ws, &ex),
            ACLNN_SUCCESS);
  EXPECT_STATUS_MSG(aclnnRoiPoolingWithArgMax(pgtest::workspace(ws), ws, ex, nullptr),
                    ACLNN_ERR_PARAM_INVALID, kFwd, "rois[3,0]=-1");
  EXPECT_TRUE(a.y.guards_intact());
}

}  // namespace
