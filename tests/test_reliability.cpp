// SPDX-License-Identifier: Apache-2.0
// Reliability: overflow and size safety, concurrency, repeated-run determinism, executor misuse,
// and regression tests for what the fuzzers found.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <thread>

#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "poolgrad/poolgrad.h"
#include "test_util.h"

using namespace pgtest;

namespace {

// ---- overflow and size safety
// ---------------------------------------------------------------------
TEST(Overflow, ElementCountAndByteSize) {
  float d = 0;
  int64_t big[] = {int64_t(1) << 31, int64_t(1) << 31, int64_t(1) << 2};  // 2^64 elements
  int64_t zs[] = {0, 0, 0}, one[] = {1};
  EXPECT_EQ(aclCreateTensor(big, 3, ACL_FLOAT, zs, 0, ACL_FORMAT_ND, one, 1, &d), nullptr);
  EXPECT_NE(last_msg().find("overflows int64"), std::string::npos);
  // storage whose byte size overflows int64 (elements fit, bytes do not)
  int64_t sd[] = {int64_t(1) << 62};
  int64_t v1[] = {1}, s1[] = {1};
  EXPECT_EQ(aclCreateTensor(v1, 1, ACL_FLOAT, s1, 0, ACL_FORMAT_ND, sd, 1, &d), nullptr);
  EXPECT_NE(last_msg().find("byte size overflows"), std::string::npos);
  // a stride whose span overflows
  int64_t v2[] = {3}, s2[] = {int64_t(1) << 62};
  int64_t sd2[] = {int64_t(1) << 40};
  EXPECT_EQ(aclCreateTensor(v2, 1, ACL_FLOAT, s2, 0, ACL_FORMAT_ND, sd2, 1, &d), nullptr);
  EXPECT_NE(last_msg().find("overflow"), std::string::npos);
}

TEST(Overflow, StridesThatLeaveStorage) {
  float d[8];
  int64_t v[] = {2, 2}, s[] = {5, 1}, sd[] = {6};
  EXPECT_EQ(aclCreateTensor(v, 2, ACL_FLOAT, s, 0, ACL_FORMAT_ND, sd, 1, d), nullptr);
  EXPECT_NE(last_msg().find("outside the storage"), std::string::npos);
  int64_t sd7[] = {7};
  aclTensor *t = aclCreateTensor(v, 2, ACL_FLOAT, s, 0, ACL_FORMAT_ND, sd7, 1, d);
  EXPECT_NE(t, nullptr);
  aclDestroyTensor(t);
}

TEST(Overflow, HugeAttributesAndPlanes) {
  // Attributes near int64 limits never wrap: they are refused.
  HostTensor x({1, 1, 4, 4}, ACL_FLOAT), out({1, 1, 2, 2}, ACL_FLOAT), idx({1, 1, 2, 2}, ACL_INT64);
  uint64_t ws;
  aclOpExecutor *ex;
  for (int64_t v : {INT64_MAX, INT64_MAX / 2, int64_t(1) << 31}) {
    IntArray k({2}), s({v}), p({0}), d({1});
    EXPECT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                        &ws, &ex),
              ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(last_msg().find("stride[0]"), std::string::npos);
    IntArray k2({2}), s2({2}), p2({0}), d2({v});
    EXPECT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k2, s2, p2, d2, false, out.t(),
                                                        idx.t(), &ws, &ex),
              ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(last_msg().find("dilation[0]"), std::string::npos);
  }
  EXPECT_EQ(poolgradPoolOutputSize(INT64_MAX, 2, 2, 0, 1, false), -1);
  EXPECT_EQ(poolgradPoolOutputSize(10, 2, 0, 0, 1, false), -1);
  EXPECT_EQ(poolgradPoolOutputSize(10, 3, 2, 1, 1, true), 6);
  // A huge (zero-stride) plane with INT32 indices is refused: H*W > INT32_MAX.
  int64_t dims[] = {1, 1, int64_t(1) << 20, int64_t(1) << 12}, zs[] = {0, 0, 0, 0}, one[] = {1};
  float f = 0;
  aclTensor *big = aclCreateTensor(dims, 4, ACL_FLOAT, zs, 0, ACL_FORMAT_NCHW, one, 1, &f);
  int64_t od[] = {1, 1, int64_t(1) << 19, int64_t(1) << 11};
  aclTensor *bo = aclCreateTensor(od, 4, ACL_FLOAT, zs, 0, ACL_FORMAT_NCHW, one, 1, &f);
  int32_t i32 = 0;
  aclTensor *bi = aclCreateTensor(od, 4, ACL_INT32, zs, 0, ACL_FORMAT_NCHW, one, 1, &i32);
  IntArray k({2}), s({2}), p({0}), d({1});
  EXPECT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(big, k, s, p, d, false, bo, bi, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(last_msg().find("INT32 requires H*W"), std::string::npos);
  aclDestroyTensor(big);
  aclDestroyTensor(bo);
  aclDestroyTensor(bi);
}

TEST(Overflow, AllocationBeyondMemory) {
  void *p = nullptr;
  EXPECT_EQ(aclrtMalloc(&p, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_BAD_ALLOC);
  EXPECT_NE(last_msg().find("aclrtMalloc"), std::string::npos);
  EXPECT_EQ(aclrtMallocHost(&p, SIZE_MAX - 10), ACL_ERROR_BAD_ALLOC);
  last_msg();
  EXPECT_EQ(p, nullptr);
}

TEST(Overflow, ScratchBeyondMemoryIsRefusedInPhase1) {
  // Planes of 2^40 elements as zero-stride views (one element of storage): the kernels' scratch
  // (the workspace) would exceed the host's memory, so phase 1 refuses the call with
  // ACLNN_ERR_INNER and a message naming the bytes, before anything is allocated.
  const int64_t big = int64_t(1) << 20, half = big / 2;
  int64_t xd[] = {1, 1, big, big}, od[] = {1, 1, half, half}, zs[] = {0, 0, 0, 0}, one[] = {1};
  float fx = 0, fo = 0, fg = 0, fgx = 0;
  int64_t ix = 0;
  aclTensor *x = aclCreateTensor(xd, 4, ACL_FLOAT, zs, 0, ACL_FORMAT_NCHW, one, 1, &fx);
  aclTensor *out = aclCreateTensor(od, 4, ACL_FLOAT, zs, 0, ACL_FORMAT_NCHW, one, 1, &fo);
  aclTensor *idx = aclCreateTensor(od, 4, ACL_INT64, zs, 0, ACL_FORMAT_NCHW, one, 1, &ix);
  aclTensor *gy = aclCreateTensor(od, 4, ACL_FLOAT, zs, 0, ACL_FORMAT_NCHW, one, 1, &fg);
  aclTensor *gx = aclCreateTensor(xd, 4, ACL_FLOAT, zs, 0, ACL_FORMAT_NCHW, one, 1, &fgx);
  ASSERT_TRUE(x && out && idx && gy && gx);
  IntArray k({2}), s({2}), p({0}), d({1});
  uint64_t ws = 7;
  aclOpExecutor *ex = nullptr;
  EXPECT_STATUS_MSG(
      aclnnMaxPool2dWithIndicesGetWorkspaceSize(x, k, s, p, d, false, out, idx, &ws, &ex),
      ACLNN_ERR_INNER, "aclnnMaxPool2dWithIndices", "bytes of workspace");
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy, x, idx, k, s, p, d, false,
                                                                      gx, &ws, &ex),
                    ACLNN_ERR_INNER, "aclnnMaxPool2dWithIndicesBackward", "bytes of workspace");
  // RoI forward over 64 such maps of 2^30 pixels: the channel-major path keeps a float copy of
  // one channel's 64 planes, 256 GB.
  int64_t yd[] = {1, 1, 1, 1}, rd[] = {1, 5}, rs[] = {5, 1}, five[] = {5}, ys[] = {1, 1, 1, 1};
  float rois[5] = {0, 0, 0, 1, 1}, y1 = 0;
  int32_t a1 = 0;
  aclTensor *ry = aclCreateTensor(yd, 4, ACL_FLOAT, ys, 0, ACL_FORMAT_ND, one, 1, &y1);
  aclTensor *ra = aclCreateTensor(yd, 4, ACL_INT32, ys, 0, ACL_FORMAT_ND, one, 1, &a1);
  aclTensor *rr = aclCreateTensor(rd, 2, ACL_FLOAT, rs, 0, ACL_FORMAT_ND, five, 1, rois);
  int64_t rxd[] = {64, 1, 1 << 15, 1 << 15};
  aclTensor *rx = aclCreateTensor(rxd, 4, ACL_FLOAT, zs, 0, ACL_FORMAT_ND, one, 1, &fgx);
  EXPECT_STATUS_MSG(
      aclnnRoiPoolingWithArgMaxGetWorkspaceSize(rx, rr, 1, 1, 1.0f, 1.0f, ry, ra, &ws, &ex),
      ACLNN_ERR_INNER, "aclnnRoiPoolingWithArgMax", "bytes of workspace");
  for (aclTensor *t : {x, out, idx, gy, gx, ry, ra, rr, rx}) aclDestroyTensor(t);
}

// ---- the workspace's placement
// -------------------------------------------------------------------
// Phase 1 asks for 63 bytes more than the kernel carves, and phase 2 starts the kernel's scratch
// at the first cache line of the caller's buffer, wherever the allocator put it (a 16-byte-aligned
// malloc block split vector stores across pages; docs/profiles.md, Stop 32). The RoI forward
// copies rois into the start of its scratch first, so where that copy lands shows the start.
TEST(Workspace, ScratchStartsOnTheFirstCacheLineOfTheBuffer) {
  HostTensor x({1, 2, 6, 6}, ACL_FLOAT, ACL_FORMAT_ND), rois({2, 5}, ACL_FLOAT, ACL_FORMAT_ND),
      y({2, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND), am({2, 2, 2, 2}, ACL_INT32, ACL_FORMAT_ND);
  for (int64_t i = 0; i < x.numel(); ++i) x.set(i, static_cast<float>((i * 7) % 11));
  const float boxes[10] = {0, 0, 0, 5, 5, 0, 1.5f, 2, 4, 5.5f};
  for (int64_t i = 0; i < 10; ++i) rois.set(i, boxes[i]);
  std::vector<float> first;
  std::vector<unsigned char> buf(65536 + 64);
  char *const line =
      reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(buf.data()) + 63) & ~uintptr_t(63));
  for (int64_t off : {0, 1, 8, 16, 48, 63}) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    ASSERT_EQ(aclnnRoiPoolingWithArgMaxGetWorkspaceSize(x.t(), rois.t(), 2, 2, 1.0f, 1.0f, y.t(),
                                                        am.t(), &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    ASSERT_GE(ws, 63u + sizeof(boxes));
    ASSERT_LE(ws + 64, 65536u);
    char *const w = line + off;
    std::fill(buf.begin(), buf.end(), 0xA5);
    ASSERT_EQ(aclnnRoiPoolingWithArgMax(w, ws, ex, nullptr), ACLNN_SUCCESS) << last_msg();
    char *const start = off ? line + 64 : line;
    for (char *c = w; c < start; ++c)
      EXPECT_EQ(static_cast<unsigned char>(*c), 0xA5) << "offset " << off << ", byte " << c - w;
    EXPECT_EQ(std::memcmp(start, boxes, sizeof(boxes)), 0) << "offset " << off;
    for (char *c = w + ws; c < reinterpret_cast<char *>(buf.data()) + buf.size(); ++c)
      ASSERT_EQ(static_cast<unsigned char>(*c), 0xA5) << "past the workspace, offset " << off;
    if (first.empty()) first = y.values();
    EXPECT_EQ(y.values(), first) << "offset " << off;
  }
}

// ---- regressions from fuzzing
// --------------------------------------------------------------------
TEST(FuzzRegression, RoiBackwardWithEmptyGradInputPlane) {
  // gradInputRef with W = 0 (no elements): -1 everywhere succeeds, any other argmax is refused.
  HostTensor gy({2, 1, 1, 1}, ACL_FLOAT, ACL_FORMAT_ND), am({2, 1, 1, 1}, ACL_INT32, ACL_FORMAT_ND),
      rois({2, 5}, ACL_FLOAT, ACL_FORMAT_ND), gx({1, 1, 3, 0}, ACL_FLOAT, ACL_FORMAT_ND);
  am.set_int(0, -1);
  am.set_int(1, -1);
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gx.t(), rois.t(), am.t(), 1, 1,
                                                          1.0, &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  EXPECT_EQ(aclnnRoiPoolingGradWithArgMax(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS)
      << last_msg();
  am.set_int(1, 0);
  ASSERT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gx.t(), rois.t(), am.t(), 1, 1,
                                                          1.0, &ws, &ex),
            ACLNN_SUCCESS);
  EXPECT_STATUS_MSG(aclnnRoiPoolingGradWithArgMax(pgtest::workspace(ws), ws, ex, nullptr),
                    ACLNN_ERR_PARAM_INVALID, "aclnnRoiPoolingGradWithArgMax", "argmax[1,0,0,0]=0");
}

TEST(FuzzRegression, RoiBackwardWithNoChannelsOrNoPlane) {
  for (std::vector<int64_t> gxd :
       {std::vector<int64_t>{1, 0, 2, 2}, std::vector<int64_t>{1, 2, 0, 0}}) {
    const int64_t c = gxd[1];
    HostTensor gy({1, c, 1, 1}, ACL_FLOAT, ACL_FORMAT_ND),
        am({1, c, 1, 1}, ACL_INT32, ACL_FORMAT_ND), rois({1, 5}, ACL_FLOAT, ACL_FORMAT_ND),
        gx(gxd, ACL_FLOAT, ACL_FORMAT_ND);
    for (int64_t i = 0; i < am.numel(); ++i) am.set_int(i, -1);
    uint64_t ws;
    aclOpExecutor *ex;
    ASSERT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gx.t(), rois.t(), am.t(), 1, 1,
                                                            1.0, &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    EXPECT_EQ(aclnnRoiPoolingGradWithArgMax(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS)
        << last_msg();
  }
}

TEST(FuzzRegression, RoiBackwardEightBinRunsWithEmptyGradInput) {
  // Found by fuzz_roi_backward (UBSan: offset 4 * (2^32 - 1) applied to the accumulator's null
  // pointer): with H*W == 0 the vector range check of the eight-bin runs accepted every argmax,
  // -1 included. 3x3 bins per channel so that a full run of eight is taken (the portable_kernels
  // test runs this under POOLGRAD_CPU_CAPABILITY=default for the other path).
  {
    HostTensor gy({2, 3, 3, 3}, ACL_FLOAT, ACL_FORMAT_ND),
        am({2, 3, 3, 3}, ACL_INT32, ACL_FORMAT_ND), rois({2, 5}, ACL_FLOAT, ACL_FORMAT_ND),
        gx({1, 3, 4, 0}, ACL_FLOAT, ACL_FORMAT_ND);
    for (int64_t i = 0; i < am.numel(); ++i) {
      am.set_int(i, -1);
      gy.set(i, 1.0f);
    }
    uint64_t ws;
    aclOpExecutor *ex;
    ASSERT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gx.t(), rois.t(), am.t(), 3, 3,
                                                            1.0, &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    EXPECT_EQ(aclnnRoiPoolingGradWithArgMax(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS)
        << last_msg();
    am.set_int(3 * 9 + 4, 0);  // roi 1, channel 0, bin (1, 1): no position 0 in an empty plane
    ASSERT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gx.t(), rois.t(), am.t(), 3, 3,
                                                            1.0, &ws, &ex),
              ACLNN_SUCCESS);
    EXPECT_STATUS_MSG(aclnnRoiPoolingGradWithArgMax(pgtest::workspace(ws), ws, ex, nullptr),
                      ACLNN_ERR_PARAM_INVALID, "aclnnRoiPoolingGradWithArgMax",
                      "argmax[1,0,1,1]=0");
  }
}

// ---- concurrency
// -----------------------------------------------------------------------------------
TEST(Concurrency, ManyThreadsOnIndependentTensors) {
  constexpr int kThreads = 8;
  std::atomic<int> failures{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([t, &failures] {
      std::mt19937 rng(t);
      for (int it = 0; it < 20; ++it) {
        HostTensor x({2, 3, 9, 9}, ACL_FLOAT), out({2, 3, 5, 5}, ACL_FLOAT),
            idx({2, 3, 5, 5}, ACL_INT32), gx({2, 3, 9, 9}, ACL_FLOAT);
        for (int64_t i = 0; i < x.numel(); ++i) x.set(i, static_cast<float>(rng() % 17));
        IntArray k({3}), s({2}), p({1}), d({1});
        uint64_t ws;
        aclOpExecutor *ex;
        if (aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                      &ws, &ex) ||
            aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr)) {
          ++failures;
          continue;
        }
        if (aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(out.t(), x.t(), idx.t(), k, s, p, d,
                                                              false, gx.t(), &ws, &ex) ||
            aclnnMaxPool2dWithIndicesBackward(pgtest::workspace(ws), ws, ex, nullptr)) {
          ++failures;
          continue;
        }
        double sum_out = 0, sum_gx = 0;
        for (int64_t i = 0; i < out.numel(); ++i) sum_out += out.get(i);
        for (int64_t i = 0; i < gx.numel(); ++i) sum_gx += gx.get(i);
        if (sum_out != sum_gx) ++failures;
        // An error on this thread stays on this thread.
        if (aclrtSetDevice(5) == ACL_SUCCESS) ++failures;
        const char *m = aclGetRecentErrMsg();
        if (!m || std::string(m).find("deviceId") == std::string::npos) ++failures;
      }
    });
  for (auto &t : ts) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(Concurrency, RepeatableExecutorFromSeveralThreadsInTurn) {
  HostTensor gy({1, 4, 4, 4}, ACL_FLOAT, ACL_FORMAT_ND), am({1, 4, 4, 4}, ACL_INT32, ACL_FORMAT_ND),
      rois({1, 5}, ACL_FLOAT, ACL_FORMAT_ND), gx({1, 4, 6, 6}, ACL_FLOAT, ACL_FORMAT_ND);
  for (int64_t i = 0; i < gy.numel(); ++i) {
    gy.set(i, 1.0f);
    am.set_int(i, i % 36);
  }
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gx.t(), rois.t(), am.t(), 4, 4,
                                                          1.0, &ws, &ex),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), ACLNN_SUCCESS);
  std::mutex turn;
  std::atomic<int> failures{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&] {
      for (int it = 0; it < 10; ++it) {
        std::lock_guard<std::mutex> lock(turn);  // in turn: one run at a time
        if (aclnnRoiPoolingGradWithArgMax(pgtest::workspace(ws), ws, ex, nullptr) != ACLNN_SUCCESS)
          ++failures;
        double sum = 0;
        for (int64_t i = 0; i < gx.numel(); ++i) sum += gx.get(i);
        if (sum != 64.0) ++failures;
      }
    });
  for (auto &t : ts) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
}

// ---- determinism across repeated runs
// ----------------------------------------------------------------
TEST(Determinism, RepeatedRunsAreBitwiseIdentical) {
  std::mt19937 rng(11);
  std::normal_distribution<float> nd;
  HostTensor gy({2, 16, 20, 20}, ACL_FLOAT), x({2, 16, 20, 20}, ACL_FLOAT),
      idx({2, 16, 20, 20}, ACL_INT64);
  for (int64_t i = 0; i < gy.numel(); ++i) {
    gy.set(i, nd(rng));
    idx.set_int(i, rng() % 7);  // heavy overlap: every output names one of 7 inputs
  }
  IntArray k({3}), s({1}), p({1}), d({1});
  std::vector<float> first;
  for (int rep = 0; rep < 5; ++rep) {
    HostTensor gx({2, 16, 20, 20}, ACL_FLOAT);
    uint64_t ws;
    aclOpExecutor *ex;
    ASSERT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), k, s, p, d,
                                                                false, gx.t(), &ws, &ex),
              ACLNN_SUCCESS);
    ASSERT_EQ(aclnnMaxPool2dWithIndicesBackward(pgtest::workspace(ws), ws, ex, nullptr),
              ACLNN_SUCCESS);
    if (rep == 0)
      first = gx.values();
    else
      EXPECT_EQ(gx.values(), first);
  }
}

}  // namespace
