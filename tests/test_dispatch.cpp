// The dispatch: every kernel path, forced by its views and attributes, is named by the plan
// (poolgradGetKernelName, the name POOLGRAD_LOG prints) and gives the same bits on the portable
// path (poolgradSetCpuCapability("default")) as on the AVX2 path.
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "poolgrad/poolgrad.h"
#include "test_util.h"

using namespace pgtest;

namespace {

// Phase 1 of one call; phase 2 runs the executor.
using Phase1 = std::function<aclnnStatus(uint64_t *, aclOpExecutor **)>;
using Phase2 = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

// Runs the call under capability `cap`; returns the kernel name and the outputs' values.
std::string run_as(const char *cap, const Phase1 &p1, Phase2 p2, std::vector<HostTensor *> outs,
                   std::vector<std::vector<uint32_t>> *bits) {
  EXPECT_EQ(poolgradSetCpuCapability(cap), 0);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_EQ(p1(&ws, &ex), ACLNN_SUCCESS) << last_msg();
  const char *name = poolgradGetKernelName(ex);
  std::string kernel = name ? name : "(null)";
  EXPECT_EQ(p2(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS) << last_msg();
  bits->clear();
  for (HostTensor *t : outs) {
    std::vector<uint32_t> b;
    for (int64_t i = 0; i < t->numel(); ++i) {
      const float v = t->get(i);
      uint32_t u;
      std::memcpy(&u, &v, 4);
      b.push_back(t->dtype() == ACL_INT32 || t->dtype() == ACL_INT64
                      ? static_cast<uint32_t>(t->get_int(i))
                      : u);
    }
    bits->push_back(b);
  }
  return kernel;
}

// The call's kernel names under AVX2 and portable, and the same bits under both.
void check_paths(const Phase1 &p1, Phase2 p2, std::vector<HostTensor *> outs, const char *avx2_name,
                 const char *portable_name) {
  std::vector<std::vector<uint32_t>> a, b;
  EXPECT_EQ(run_as("avx2", p1, p2, outs, &a), avx2_name);
  EXPECT_EQ(run_as("default", p1, p2, outs, &b), portable_name);
  EXPECT_EQ(poolgradSetCpuCapability("avx2"), 0);
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k], b[k]) << "output " << k << " differs";
}

void fill(HostTensor &t, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-20, 20);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, static_cast<float>(d(rng)) / 4);  // ties
}

TEST(Dispatch, MaxPoolForwardPaths) {
  IntArray k({3}), s({2}), p({1}), d({1});
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    {  // NCHW planes
      HostTensor x({2, 3, 33, 35}, dt), out({2, 3, 17, 18}, dt), idx({2, 3, 17, 18}, ACL_INT64);
      fill(x, 1);
      check_paths(
          [&](uint64_t *ws, aclOpExecutor **ex) {
            return aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(),
                                                             idx.t(), ws, ex);
          },
          aclnnMaxPool2dWithIndices, {&out, &idx}, "forward-planes/avx2", "forward-planes");
    }
    {  // NHWC: channels-last
      HostTensor x({2, 33, 35, 20}, dt, ACL_FORMAT_NHWC), out({2, 17, 18, 20}, dt, ACL_FORMAT_NHWC),
          idx({2, 17, 18, 20}, ACL_INT32, ACL_FORMAT_NHWC);
      fill(x, 2);
      check_paths(
          [&](uint64_t *ws, aclOpExecutor **ex) {
            return aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(),
                                                             idx.t(), ws, ex);
          },
          aclnnMaxPool2dWithIndices, {&out, &idx}, "forward-channels-last/avx2",
          "forward-channels-last");
    }
  }
}

TEST(Dispatch, MaxPoolBackwardPaths) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    // 2x2 stride 2, INT32 indices, 20 output columns: the gather (AVX2 only).
    IntArray k({2}), s({2}), p({0}), d({1});
    HostTensor x({2, 3, 16, 40}, dt), out({2, 3, 8, 20}, dt), idx({2, 3, 8, 20}, ACL_INT32),
        gy({2, 3, 8, 20}, dt), gx({2, 3, 16, 40}, dt);
    fill(x, 3);
    fill(gy, 4);
    uint64_t ws;
    aclOpExecutor *ex;
    ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                        &ws, &ex),
              ACLNN_SUCCESS);
    ASSERT_EQ(aclnnMaxPool2dWithIndices(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
    check_paths(
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), k, s, p,
                                                                   d, false, gx.t(), w, e);
        },
        aclnnMaxPool2dWithIndicesBackward, {&gx}, "backward-planes-gather/avx2", "backward-planes");
    // Overlapping 3x3 windows: the scatter.
    IntArray k3({3}), p1({1});
    HostTensor out3({2, 3, 8, 20}, dt), idx3({2, 3, 8, 20}, ACL_INT64);
    ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k3, s, p1, d, false, out3.t(),
                                                        idx3.t(), &ws, &ex),
              ACLNN_SUCCESS);
    ASSERT_EQ(aclnnMaxPool2dWithIndices(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
    check_paths(
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), x.t(), idx3.t(), k3, s,
                                                                   p1, d, false, gx.t(), w, e);
        },
        aclnnMaxPool2dWithIndicesBackward, {&gx}, "backward-planes/avx2", "backward-planes");
    // Channels-last.
    HostTensor xl({2, 16, 40, 24}, dt, ACL_FORMAT_NHWC), ol({2, 8, 20, 24}, dt, ACL_FORMAT_NHWC),
        il({2, 8, 20, 24}, ACL_INT64, ACL_FORMAT_NHWC), gyl({2, 8, 20, 24}, dt, ACL_FORMAT_NHWC),
        gxl({2, 16, 40, 24}, dt, ACL_FORMAT_NHWC);
    fill(xl, 5);
    fill(gyl, 6);
    ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(xl.t(), k3, s, p1, d, false, ol.t(), il.t(),
                                                        &ws, &ex),
              ACLNN_SUCCESS);
    ASSERT_EQ(aclnnMaxPool2dWithIndices(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
    check_paths(
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gyl.t(), xl.t(), il.t(), k3, s,
                                                                   p1, d, false, gxl.t(), w, e);
        },
        aclnnMaxPool2dWithIndicesBackward, {&gxl}, "backward-channels-last-gather/avx2",
        "backward-channels-last");
    // Channels-last 3x3 windows at stride 1 (three owners a position): the scatter.
    IntArray s1({1});
    HostTensor ol1({2, 16, 40, 24}, dt, ACL_FORMAT_NHWC),
        il1({2, 16, 40, 24}, ACL_INT32, ACL_FORMAT_NHWC),
        gyl1({2, 16, 40, 24}, dt, ACL_FORMAT_NHWC);
    fill(gyl1, 7);
    ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(xl.t(), k3, s1, p1, d, false, ol1.t(),
                                                        il1.t(), &ws, &ex),
              ACLNN_SUCCESS);
    ASSERT_EQ(aclnnMaxPool2dWithIndices(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
    check_paths(
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gyl1.t(), xl.t(), il1.t(), k3,
                                                                   s1, p1, d, false, gxl.t(), w, e);
        },
        aclnnMaxPool2dWithIndicesBackward, {&gxl}, "backward-channels-last/avx2",
        "backward-channels-last");
  }
}

void fill_rois(HostTensor &rois, int64_t n, int64_t h, int64_t w, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t R = rois.dims()[0];
  for (int64_t r = 0; r < R; ++r) {
    const float x1 = static_cast<float>(rng() % w), y1 = static_cast<float>(rng() % h);
    const float v[5] = {static_cast<float>(rng() % n), x1, y1, x1 + static_cast<float>(rng() % 9),
                        y1 + static_cast<float>(rng() % 9)};
    for (int j = 0; j < 5; ++j) rois.set(r * 5 + j, v[j]);
  }
}

TEST(Dispatch, RoiForwardPaths) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor x({2, 20, 24, 30}, dt, ACL_FORMAT_ND), rois({9, 5}, dt, ACL_FORMAT_ND),
        y({9, 20, 3, 3}, dt, ACL_FORMAT_ND), am({9, 20, 3, 3}, ACL_INT32, ACL_FORMAT_ND);
    fill(x, 7);
    fill_rois(rois, 2, 24, 30, 8);
    check_paths(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnRoiPoolingWithArgMaxGetWorkspaceSize(x.t(), rois.t(), 3, 3, 1.0f, 1.0f, y.t(),
                                                           am.t(), ws, ex);
        },
        aclnnRoiPoolingWithArgMax, {&y, &am}, "roi-forward-channel-blocks/avx2",
        "roi-forward-channel-major");
  }
  // A map of more than 2^20 pixels keeps the channel-major order at any ISA.
  HostTensor x({1, 1, 1025, 1024}, ACL_FLOAT, ACL_FORMAT_ND),
      rois({3, 5}, ACL_FLOAT, ACL_FORMAT_ND), y({3, 1, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND),
      am({3, 1, 2, 2}, ACL_INT32, ACL_FORMAT_ND);
  fill(x, 9);
  fill_rois(rois, 1, 1000, 1000, 10);
  check_paths(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnRoiPoolingWithArgMaxGetWorkspaceSize(x.t(), rois.t(), 2, 2, 1.0f, 1.0f, y.t(),
                                                         am.t(), ws, ex);
      },
      aclnnRoiPoolingWithArgMax, {&y, &am}, "roi-forward-channel-major/avx2",
      "roi-forward-channel-major");
}

TEST(Dispatch, RoiBackwardPaths) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor rois({9, 5}, dt, ACL_FORMAT_ND), am({9, 20, 3, 3}, ACL_INT32, ACL_FORMAT_ND),
        gy({9, 20, 3, 3}, dt, ACL_FORMAT_ND), gx({2, 20, 24, 30}, dt, ACL_FORMAT_ND);
    fill_rois(rois, 2, 24, 30, 11);
    fill(gy, 12);
    std::mt19937 rng(13);
    for (int64_t i = 0; i < am.numel(); ++i)
      am.set_int(i, rng() % 9 == 0 ? -1 : static_cast<int64_t>(rng() % 720));
    check_paths(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gx.t(), rois.t(), am.t(), 3,
                                                               3, 1.0, ws, ex);
        },
        aclnnRoiPoolingGradWithArgMax, {&gx}, "roi-backward-batch-channel-blocks/avx2",
        "roi-backward-batch-channel-blocks");
    // A transposed gradOutput grid: the strided loop, at any ISA.
    HostTensor gys = make_strided({9, 20, 3, 3}, {0, 1, 3, 2}, 0, 0, dt, ACL_FORMAT_ND);
    fill(gys, 14);
    check_paths(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gys.t(), gx.t(), rois.t(), am.t(), 3,
                                                               3, 1.0, ws, ex);
        },
        aclnnRoiPoolingGradWithArgMax, {&gx}, "roi-backward-strided", "roi-backward-strided");
  }
}

TEST(Dispatch, KernelNameOfADeadHandleIsNull) {
  HostTensor x({1, 1, 4, 4}, ACL_FLOAT), out({1, 1, 2, 2}, ACL_FLOAT), idx({1, 1, 2, 2}, ACL_INT64);
  IntArray k({2}), s({2}), p({0}), d({1});
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                      &ws, &ex),
            ACLNN_SUCCESS);
  EXPECT_NE(poolgradGetKernelName(ex), nullptr);
  ASSERT_EQ(aclnnMaxPool2dWithIndices(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(poolgradGetKernelName(ex), nullptr);
  EXPECT_EQ(poolgradSetCpuCapability("sse9"), -1);
}

}  // namespace
