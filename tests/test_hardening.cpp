// SPDX-License-Identifier: Apache-2.0
// Regression tests for what an outside attack on the C API found (docs/reliability.md, "Round
// two"): sizes from user-controlled dimensions, executor lifecycle under concurrency, stale
// handles, fork, rois changed during phase 2, bounded scratch, aliasing, thread-count limits.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "poolgrad/poolgrad.h"
#include "test_util.h"

// Counts operator new calls while g_count_news is set (the allocation test below). The library
// allocates through the same operator new, so its allocations are counted too.
static std::atomic<bool> g_count_news{false};
static std::atomic<int64_t> g_news{0};
static void *counted_alloc(std::size_t n) {
  if (g_count_news.load(std::memory_order_relaxed)) g_news.fetch_add(1);
  return std::malloc(n ? n : 1);
}
void *operator new(std::size_t n) {
  if (void *p = counted_alloc(n)) return p;
  throw std::bad_alloc();
}
void *operator new[](std::size_t n) {
  if (void *p = counted_alloc(n)) return p;
  throw std::bad_alloc();
}
void *operator new(std::size_t n, const std::nothrow_t &) noexcept {
  return counted_alloc(n);
}
void *operator new[](std::size_t n, const std::nothrow_t &) noexcept {
  return counted_alloc(n);
}
void operator delete(void *p) noexcept {
  std::free(p);
}
void operator delete[](void *p) noexcept {
  std::free(p);
}
void operator delete(void *p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void *p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void *p, const std::nothrow_t &) noexcept {
  std::free(p);
}
void operator delete[](void *p, const std::nothrow_t &) noexcept {
  std::free(p);
}

using namespace pgtest;

namespace {

// A small valid max-pool forward + backward: 2x3x8x8, k2 s2.
struct MaxPoolCall {
  HostTensor x{{2, 3, 8, 8}, ACL_FLOAT}, out{{2, 3, 4, 4}, ACL_FLOAT}, idx{{2, 3, 4, 4}, ACL_INT64};
  IntArray k{{2}}, s{{2}}, p{{0}}, d{{1}};
  uint64_t ws = 0;
  MaxPoolCall() {
    for (int64_t i = 0; i < x.numel(); ++i) x.set(i, static_cast<float>((i * 37) % 101));
  }
  aclnnStatus phase1(aclOpExecutor **ex) {
    return aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                     &ws, ex);
  }
};

// Zero-stride view of `dims` over one element of `storage`.
aclTensor *broadcast(std::vector<int64_t> dims, aclDataType dt, aclFormat fmt, void *storage) {
  std::vector<int64_t> zs(dims.size(), 0);
  int64_t one = 1;
  return aclCreateTensor(dims.data(), dims.size(), dt, zs.data(), 0, fmt, &one, 1, storage);
}

// ---- 1, 10: sizes from user-controlled dimensions
// --------------------------------------------------
TEST(Hardening, HugePooledGridsOfZeroStrideViewsAreRefusedInPhase1) {
  // pooledH * pooledW near 2^62 over a few bytes of storage: phase 1 used to accept it and the
  // per-ROI row buffer's size wrapped (heap write past a 16-byte buffer).
  const int64_t big = int64_t(1) << 31;
  float g = 1, gx[4] = {0}, rois[5] = {0, 0, 0, 1, 1};
  int32_t a = 0;
  aclTensor *gy = broadcast({1, 1, big, big}, ACL_FLOAT, ACL_FORMAT_ND, &g);
  aclTensor *am = broadcast({1, 1, big, big}, ACL_INT32, ACL_FORMAT_ND, &a);
  HostTensor gin({1, 1, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND), r({1, 5}, ACL_FLOAT, ACL_FORMAT_ND);
  for (int j = 0; j < 5; ++j) r.set(j, rois[j]);
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_STATUS_MSG(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy, gin.t(), r.t(), am, big, big,
                                                                  1.0, &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, "aclnnRoiPoolingGradWithArgMax",
                    "gradOutput shape [1,1,2147483648,2147483648] asks for more than 2^40");
  // The forward's y / argmax the same way.
  aclTensor *y = broadcast({1, 1, big, big}, ACL_FLOAT, ACL_FORMAT_ND, gx);
  HostTensor x({1, 1, 4, 4}, ACL_FLOAT, ACL_FORMAT_ND);
  EXPECT_STATUS_MSG(aclnnRoiPoolingWithArgMaxGetWorkspaceSize(x.t(), r.t(), big, big, 1.0f, 1.0f, y,
                                                              am, &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, "aclnnRoiPoolingWithArgMax", "y shape");
  // 2^60 logical elements of a max-pool input: refused, not run for years.
  const int64_t h = int64_t(1) << 30;
  aclTensor *hx = broadcast({1, 1, h, h}, ACL_FLOAT, ACL_FORMAT_NCHW, gx);
  aclTensor *ho = broadcast({1, 1, h / 2, h / 2}, ACL_FLOAT, ACL_FORMAT_NCHW, gx + 1);
  aclTensor *hi = broadcast({1, 1, h / 2, h / 2}, ACL_INT64, ACL_FORMAT_NCHW, gx + 2);
  IntArray k({2}), s({2}), p({0}), d({1});
  EXPECT_STATUS_MSG(
      aclnnMaxPool2dWithIndicesGetWorkspaceSize(hx, k, s, p, d, false, ho, hi, &ws, &ex),
      ACLNN_ERR_PARAM_INVALID, "aclnnMaxPool2dWithIndices", "self shape");
  for (aclTensor *t : {gy, am, y, hx, ho, hi}) aclDestroyTensor(t);
}

TEST(Hardening, SignedOverflowInSizeArithmeticIsRefused) {
  // N = 0 with huge zero-stride planes: H*W used to wrap and pass the INT32-indices rule.
  float f[4] = {0};
  const int64_t h = int64_t(1) << 33;
  aclTensor *x = broadcast({0, 1, h, h}, ACL_FLOAT, ACL_FORMAT_NCHW, f);
  aclTensor *o = broadcast({0, 1, h / 2, h / 2}, ACL_FLOAT, ACL_FORMAT_NCHW, f + 1);
  aclTensor *i = broadcast({0, 1, h / 2, h / 2}, ACL_INT32, ACL_FORMAT_NCHW, f + 2);
  IntArray k({2}), s({2}), p({0}), d({1});
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x, k, s, p, d, false, o, i, &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, "aclnnMaxPool2dWithIndices",
                    "more than 2^40 elements");
  // H near INT64_MAX: H + 2p used to overflow and print Hout=-9223372036854775808.
  aclTensor *xh = broadcast({1, 1, INT64_MAX / 2, 1}, ACL_FLOAT, ACL_FORMAT_NCHW, f);
  aclnnStatus st = aclnnMaxPool2dWithIndicesGetWorkspaceSize(xh, k, s, p, d, false, o, i, &ws, &ex);
  EXPECT_EQ(st, ACLNN_ERR_PARAM_INVALID);
  const std::string m = last_msg();
  EXPECT_NE(m.find("more than 2^40"), std::string::npos) << m;
  EXPECT_EQ(m.find("-9223372036854775808"), std::string::npos) << m;
  // An offset whose byte offset overflows is named as the offset.
  int64_t v[] = {0}, st1[] = {1}, one = 1;
  EXPECT_EQ(aclCreateTensor(v, 1, ACL_FLOAT, st1, INT64_MAX / 2, ACL_FORMAT_ND, &one, 1, f),
            nullptr);
  EXPECT_NE(last_msg().find("offset 4611686018427387903 times the element size"),
            std::string::npos);
  for (aclTensor *t : {x, o, i, xh}) aclDestroyTensor(t);
}

TEST(Hardening, RoiBackwardRefusesPlanesBeyondInt32Argmax) {
  // The forward refuses x with H*W > INT32_MAX; the backward accepted such a gradInputRef and
  // compared argmax with a 32-bit H*W.
  float g = 1, gx = 0;
  int32_t a = 0;
  HostTensor gy({1, 1, 1, 1}, ACL_FLOAT, ACL_FORMAT_ND), am({1, 1, 1, 1}, ACL_INT32, ACL_FORMAT_ND),
      r({1, 5}, ACL_FLOAT, ACL_FORMAT_ND);
  (void)g, (void)a;
  aclTensor *gin = broadcast({1, 1, 65536, 32769}, ACL_FLOAT, ACL_FORMAT_ND, &gx);
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_STATUS_MSG(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gin, r.t(), am.t(), 1, 1,
                                                                  1.0, &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, "aclnnRoiPoolingGradWithArgMax",
                    "gradInputRef H*W must be <= 2147483647 for INT32 argmax, but got 2147549184");
  aclDestroyTensor(gin);
}

// ---- 6: scratch proportional to the data
// -----------------------------------------------------------
TEST(Hardening, WorkspaceIsProportionalToTheDataNotToAttributes) {
  uint64_t ws;
  aclOpExecutor *ex;
  // A 1x1 input with a kernel of 2^30 (padding 2^29): 2x2 outputs, each window holding the one
  // pixel; the per-tap tables used to take 16 GB.
  {
    HostTensor x({1, 1, 1, 1}, ACL_FLOAT), out({1, 1, 2, 2}, ACL_FLOAT),
        idx({1, 1, 2, 2}, ACL_INT64);
    x.set(0, 3.0f);
    IntArray k({int64_t(1) << 30}), s({1}), p({int64_t(1) << 29}), d({1});
    ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                        &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    EXPECT_LT(ws, 64u * 1024);
    ASSERT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS)
        << last_msg();
    for (int64_t i = 0; i < 4; ++i) {
      EXPECT_EQ(out.get(i), 3.0f);
      EXPECT_EQ(idx.get_int(i), 0);
    }
  }
  // 1x1 pooling with stride 2^30: a valid call that used to be refused for "8 GB of scratch".
  {
    HostTensor x({1, 2, 3, 3}, ACL_FLOAT), out({1, 2, 1, 1}, ACL_FLOAT),
        idx({1, 2, 1, 1}, ACL_INT32);
    for (int64_t i = 0; i < x.numel(); ++i) x.set(i, static_cast<float>(i));
    IntArray k({1}), s({int64_t(1) << 30}), p({0}), d({1});
    ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                        &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    EXPECT_LT(ws, 64u * 1024);
    ASSERT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS)
        << last_msg();
    EXPECT_EQ(out.get(1), 9.0f);
  }
  // Channels-last with a tall kernel: the row tables follow min(kH, H), not kH.
  {
    HostTensor x({1, 2, 2, 16}, ACL_FLOAT16, ACL_FORMAT_NHWC),
        out({1, 3, 1, 16}, ACL_FLOAT16, ACL_FORMAT_NHWC),
        idx({1, 3, 1, 16}, ACL_INT64, ACL_FORMAT_NHWC);
    IntArray k({int64_t(1) << 24, 2}), s({1}), p({int64_t(1) << 23, 0}), d({1});
    ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                        &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    EXPECT_LT(ws, 64u * 1024);
    ASSERT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS)
        << last_msg();
  }
}

// The RoI forward's scratch follows the channels and bins present: one channel, one ROI and a
// 2048 x 2048 grid (32 MB of outputs) asked for 2 GB (16-lane blocks per bin per thread).
TEST(Hardening, RoiForwardScratchFollowsTheChannelsPresent) {
  poolgradSetNumThreads(2);
  const int64_t P = 2048;
  HostTensor x({1, 1, 4, 4}, ACL_FLOAT, ACL_FORMAT_ND), rois({1, 5}, ACL_FLOAT, ACL_FORMAT_ND),
      y({1, 1, P, P}, ACL_FLOAT, ACL_FORMAT_ND), am({1, 1, P, P}, ACL_INT32, ACL_FORMAT_ND);
  for (int64_t i = 0; i < 16; ++i) x.set(i, static_cast<float>(i));
  const float box[5] = {0, 0, 0, 3, 3};
  for (int j = 0; j < 5; ++j) rois.set(j, box[j]);
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnRoiPoolingWithArgMaxGetWorkspaceSize(x.t(), rois.t(), P, P, 1.0f, 1.0f, y.t(),
                                                      am.t(), &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  EXPECT_LT(ws, 128u << 20);
  ASSERT_EQ(aclnnRoiPoolingWithArgMax(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS)
      << last_msg();
  // Bin (i, j) covers pixel (i * 4 / P, j * 4 / P) of the 4x4 map.
  for (int64_t i : {int64_t(0), P / 2 + 1, P - 1})
    for (int64_t j : {int64_t(0), P / 4 + 3, P - 1}) {
      const int64_t pix = (i * 4 / P) * 4 + j * 4 / P;
      EXPECT_EQ(am.get_int(i * P + j), pix) << i << "," << j;
      EXPECT_EQ(y.get(i * P + j), static_cast<float>(pix));
    }
  poolgradSetNumThreads(0);
}

// A backward into a small dense float32 gradInput scatters into gradInput itself: phase 1 reserves
// no accumulator (a 256x256 plane or 64^3 volume would take 256 KB / 1 MB a thread); a bfloat16
// gradInput, or a strided float32 one, still gets one.
TEST(Hardening, InPlaceBackwardReservesNoAccumulator) {
  uint64_t ws;
  aclOpExecutor *ex;
  IntArray k({2}), s({2}), p({0}), d({1}), k3({2, 2, 2}), s3({2, 2, 2}), p3({0, 0, 0}),
      d3({1, 1, 1});
  // Phase 1 of the 2-D backward: the workspace it asks for.
  auto backward_ws = [&](HostTensor &gy, HostTensor &self, HostTensor &idx, const IntArray &kk,
                         const IntArray &ss, aclTensor *gx) {
    EXPECT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), self.t(), idx.t(), kk, ss,
                                                                p, d, false, gx, &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    aclDestroyAclOpExecutor(ex);
    return ws;
  };
  auto plane_ws = [&](aclDataType dt, aclTensor *gx) {
    HostTensor gy({1, 1, 128, 128}, dt), self({1, 1, 256, 256}, dt),
        idx({1, 1, 128, 128}, ACL_INT64);
    return backward_ws(gy, self, idx, k, s, gx);
  };
  HostTensor gx32({1, 1, 256, 256}, ACL_FLOAT), gx16({1, 1, 256, 256}, ACL_BF16);
  EXPECT_LT(plane_ws(ACL_FLOAT, gx32.t()), 256u * 256 * 4);
  EXPECT_GE(plane_ws(ACL_BF16, gx16.t()), 256u * 256 * 4);
  // A float32 gradInput with a column stride of 2: the accumulator is written out to it.
  std::vector<float> wide(256 * 512);
  const int64_t shape[4] = {1, 1, 256, 256}, strides[4] = {256 * 512, 256 * 512, 512, 2},
                storage = 256 * 512;
  aclTensor *strided =
      aclCreateTensor(shape, 4, ACL_FLOAT, strides, 0, ACL_FORMAT_NCHW, &storage, 1, wide.data());
  EXPECT_GE(plane_ws(ACL_FLOAT, strided), 256u * 256 * 4);
  aclDestroyTensor(strided);
  auto volume_ws = [&](aclDataType dt) {
    HostTensor gy({1, 1, 32, 32, 32}, dt, ACL_FORMAT_NCDHW),
        self({1, 1, 64, 64, 64}, dt, ACL_FORMAT_NCDHW),
        idx({1, 1, 32, 32, 32}, ACL_INT32, ACL_FORMAT_NCDHW),
        gx({1, 1, 64, 64, 64}, dt, ACL_FORMAT_NCDHW);
    EXPECT_EQ(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gy.t(), self.t(), idx.t(), k3, s3,
                                                               p3, d3, false, gx.t(), &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    aclDestroyAclOpExecutor(ex);
    return ws;
  };
  EXPECT_LT(volume_ws(ACL_FLOAT), 64u * 64 * 64 * 4);
  EXPECT_GE(volume_ws(ACL_BF16), 64u * 64 * 64 * 4);
  // Past 16 MB in all, a gradInput of at most 8 MB is still its own accumulator (it stays in
  // cache while gradOutput and the indices stream past); one of 8 MB + 8 KB is not. 1x1 windows:
  // gradOutput and int64 indices are 3x gradInput's bytes.
  IntArray k1({1}), s1({1});
  auto big_ws = [&](int64_t w) {
    HostTensor gy({1, 1, 2048, w}, ACL_FLOAT), self({1, 1, 2048, w}, ACL_FLOAT),
        idx({1, 1, 2048, w}, ACL_INT64), gx({1, 1, 2048, w}, ACL_FLOAT);
    return backward_ws(gy, self, idx, k1, s1, gx.t());
  };
  EXPECT_LT(big_ws(1024), 2048u * 1024 * 4);  // 8 MB of gradInput in a 32 MB call
  EXPECT_GE(big_ws(1025), 2048u * 1025 * 4);  // 8 MB + 8 KB
}

// Phase 2 allocates nothing on the heap for any operator: the kernels' scratch is the workspace.
TEST(Hardening, Phase2MakesNoHeapAllocation) {
  MaxPoolCall m;
  HostTensor gy({2, 3, 4, 4}, ACL_FLOAT), gx({2, 3, 8, 8}, ACL_FLOAT);
  HostTensor rx({2, 20, 9, 9}, ACL_FLOAT, ACL_FORMAT_ND), rois({3, 5}, ACL_FLOAT, ACL_FORMAT_ND),
      y({3, 20, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND), am({3, 20, 2, 2}, ACL_INT32, ACL_FORMAT_ND),
      rgy({3, 20, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND), rgx({2, 20, 9, 9}, ACL_FLOAT, ACL_FORMAT_ND);
  const float rv[15] = {0, 0, 0, 5, 5, 1, 1, 2, 8, 8, 0, 3, 3, 4, 4};
  for (int i = 0; i < 15; ++i) rois.set(i, rv[i]);
  for (int64_t i = 0; i < rx.numel(); ++i) rx.set(i, static_cast<float>(i % 13));
  std::vector<unsigned char> buf(1 << 20);
  auto run_all = [&](int64_t *news) {
    *news = 0;
    for (int op = 0; op < 4; ++op) {
      uint64_t ws = 0;
      aclOpExecutor *ex = nullptr;
      aclnnStatus st;
      if (op == 0)
        st = m.phase1(&ex), ws = m.ws;
      else if (op == 1)
        st = aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), m.x.t(), m.idx.t(), m.k, m.s,
                                                               m.p, m.d, false, gx.t(), &ws, &ex);
      else if (op == 2)
        st = aclnnRoiPoolingWithArgMaxGetWorkspaceSize(rx.t(), rois.t(), 2, 2, 1.0f, 1.0f, y.t(),
                                                       am.t(), &ws, &ex);
      else
        st = aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(rgy.t(), rgx.t(), rois.t(), am.t(), 2, 2,
                                                           1.0, &ws, &ex);
      ASSERT_EQ(st, ACLNN_SUCCESS) << last_msg();
      ASSERT_LE(ws, buf.size());
      g_news = 0;
      g_count_news = true;
      if (op == 0)
        st = aclnnMaxPool2dWithIndices(buf.data(), ws, ex, nullptr);
      else if (op == 1)
        st = aclnnMaxPool2dWithIndicesBackward(buf.data(), ws, ex, nullptr);
      else if (op == 2)
        st = aclnnRoiPoolingWithArgMax(buf.data(), ws, ex, nullptr);
      else
        st = aclnnRoiPoolingGradWithArgMax(buf.data(), ws, ex, nullptr);
      g_count_news = false;
      ASSERT_EQ(st, ACLNN_SUCCESS) << last_msg();
      *news += g_news.load();
    }
  };
  int64_t news;
  run_all(&news);  // the first calls start the thread pool
  run_all(&news);
  EXPECT_EQ(news, 0);
  // The Mask pair (Ascend910B) too.
  Profile a2("Ascend910B");
  HostTensor mask({2, 3, 4, 64}, ACL_INT8);
  for (int op = 0; op < 2; ++op) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    aclnnStatus st =
        op == 0 ? aclnnMaxPool2dWithMaskGetWorkspaceSize(m.x.t(), m.k, m.s, m.p, m.d, false,
                                                         m.out.t(), mask.t(), &ws, &ex)
                : aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(
                      gy.t(), m.x.t(), mask.t(), m.k, m.s, m.p, m.d, false, gx.t(), &ws, &ex);
    ASSERT_EQ(st, ACLNN_SUCCESS) << last_msg();
    g_news = 0;
    g_count_news = true;
    st = op == 0 ? aclnnMaxPool2dWithMask(buf.data(), ws, ex, nullptr)
                 : aclnnMaxPool2dWithMaskBackward(buf.data(), ws, ex, nullptr);
    g_count_news = false;
    ASSERT_EQ(st, ACLNN_SUCCESS) << last_msg();
    EXPECT_EQ(g_news.load(), 0) << "op " << op;
  }
}

// ---- 2, 3: executors under concurrency, stale handles -------------------------------------------
TEST(Hardening, TwoThreadsRunningOneSingleUseExecutor) {
  // Exactly one of two racing phase-2 calls runs a single-use executor; the other gets 161002.
  MaxPoolCall m;
  for (int round = 0; round < 200; ++round) {
    aclOpExecutor *ex;
    ASSERT_EQ(m.phase1(&ex), ACLNN_SUCCESS);
    const uint64_t ws = m.ws;
    std::atomic<int> ok{0}, refused{0};
    std::atomic<bool> go{false};
    auto racer = [&] {
      std::vector<unsigned char> w(ws);
      while (!go.load()) {
      }
      const aclnnStatus st = aclnnMaxPool2dWithIndices(w.data(), ws, ex, nullptr);
      (st == ACLNN_SUCCESS ? ok : refused)
          .fetch_add(st == ACLNN_SUCCESS || st == ACLNN_ERR_PARAM_INVALID);
      last_msg();
    };
    std::thread a(racer), b(racer);
    go = true;
    a.join();
    b.join();
    ASSERT_EQ(ok.load(), 1);
    ASSERT_EQ(refused.load(), 1);
  }
}

TEST(Hardening, StaleHandleNeverRunsANewerExecutor) {
  // A consumed executor's handle stays dead even when the next phase 1 reuses its memory.
  MaxPoolCall m;
  for (int round = 0; round < 50; ++round) {
    aclOpExecutor *old_ex, *new_ex;
    ASSERT_EQ(m.phase1(&old_ex), ACLNN_SUCCESS);
    ASSERT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(m.ws), m.ws, old_ex, nullptr),
              ACLNN_SUCCESS);
    ASSERT_EQ(m.phase1(&new_ex), ACLNN_SUCCESS);
    EXPECT_NE(old_ex, new_ex);
    EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndices(pgtest::workspace(m.ws), m.ws, old_ex, nullptr),
                      ACLNN_ERR_PARAM_INVALID, "aclnnMaxPool2dWithIndices", "not a live executor");
    EXPECT_EQ(aclDestroyAclOpExecutor(old_ex), ACLNN_ERR_PARAM_INVALID);
    last_msg();
    ASSERT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(m.ws), m.ws, new_ex, nullptr),
              ACLNN_SUCCESS);
  }
}

TEST(Hardening, ConcurrencyStress) {
  // Many threads: distinct executors, one shared repeatable executor run by all, repeatable
  // executors destroyed while other threads run them, single-use executors raced for.
  MaxPoolCall shared;
  aclOpExecutor *rep;
  ASSERT_EQ(shared.phase1(&rep), ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(rep), ACLNN_SUCCESS);
  const uint64_t rep_ws = shared.ws;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      MaxPoolCall own;
      std::vector<unsigned char> w(1 << 16);
      for (int i = 0; i < 60; ++i) {
        aclOpExecutor *ex;
        if (own.phase1(&ex) != ACLNN_SUCCESS) ++failures;
        if (aclnnMaxPool2dWithIndices(w.data(), own.ws, ex, nullptr) != ACLNN_SUCCESS) ++failures;
        if (aclnnMaxPool2dWithIndices(w.data(), rep_ws, rep, nullptr) != ACLNN_SUCCESS) ++failures;
        // A repeatable executor destroyed by one thread while others may be running it.
        if (i % 10 == t % 10) {
          aclOpExecutor *r2;
          if (own.phase1(&r2) != ACLNN_SUCCESS ||
              aclSetAclOpExecutorRepeatable(r2) != ACLNN_SUCCESS)
            ++failures;
          std::thread runner([&] {
            std::vector<unsigned char> w2(own.ws);
            for (int j = 0; j < 5; ++j) {
              const aclnnStatus st = aclnnMaxPool2dWithIndices(w2.data(), own.ws, r2, nullptr);
              if (st != ACLNN_SUCCESS && st != ACLNN_ERR_PARAM_INVALID) ++failures;
            }
            last_msg();
          });
          if (aclDestroyAclOpExecutor(r2) != ACLNN_SUCCESS) ++failures;
          runner.join();
        }
      }
      last_msg();
    });
  for (auto &th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(aclDestroyAclOpExecutor(rep), ACLNN_SUCCESS);
  // The shared outputs hold the right values.
  EXPECT_EQ(shared.out.get(0),
            std::max({shared.x.get(0), shared.x.get(1), shared.x.get(8), shared.x.get(9)}));
}

// ---- 4: fork after a multi-threaded kernel
// --------------------------------------------------------
TEST(Hardening, ForkedChildRunsKernelsAfterParentUsedThreads) {
  poolgradSetNumThreads(2);
  HostTensor x({8, 16, 64, 64}, ACL_FLOAT), out({8, 16, 32, 32}, ACL_FLOAT),
      idx({8, 16, 32, 32}, ACL_INT64);
  IntArray k({2}), s({2}), p({0}), d({1});
  auto call = [&]() -> aclnnStatus {
    uint64_t ws;
    aclOpExecutor *ex;
    aclnnStatus st = aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(),
                                                               idx.t(), &ws, &ex);
    if (st) return st;
    std::vector<unsigned char> w(ws);
    return aclnnMaxPool2dWithIndices(w.data(), ws, ex, nullptr);
  };
  ASSERT_EQ(call(), ACLNN_SUCCESS);  // the parent's pool is running
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(60);  // a hang ends the child with SIGALRM
    const bool ok = call() == ACLNN_SUCCESS && call() == ACLNN_SUCCESS;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << "child ended by signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
  ASSERT_EQ(call(), ACLNN_SUCCESS);  // and the parent goes on
  poolgradSetNumThreads(0);
}

// ---- 9: aliasing
// ------------------------------------------------------------------------------------
TEST(Hardening, OutputsOverlappingOtherTensorsAreRefused) {
  uint64_t ws;
  aclOpExecutor *ex;
  IntArray k({2}), s({2}), p({0}), d({1});
  // out inside self's storage.
  std::vector<float> buf(80);
  int64_t xd[] = {1, 1, 8, 8}, xs[] = {64, 64, 8, 1}, od[] = {1, 1, 4, 4}, os[] = {16, 16, 4, 1},
          n = 80;
  aclTensor *x = aclCreateTensor(xd, 4, ACL_FLOAT, xs, 0, ACL_FORMAT_NCHW, &n, 1, buf.data());
  aclTensor *o = aclCreateTensor(od, 4, ACL_FLOAT, os, 10, ACL_FORMAT_NCHW, &n, 1, buf.data());
  HostTensor idx({1, 1, 4, 4}, ACL_INT64);
  EXPECT_STATUS_MSG(
      aclnnMaxPool2dWithIndicesGetWorkspaceSize(x, k, s, p, d, false, o, idx.t(), &ws, &ex),
      ACLNN_ERR_PARAM_INVALID, "aclnnMaxPool2dWithIndices", "out and self share storage");
  // gradInput overlapping gradOutput.
  aclTensor *gy = aclCreateTensor(od, 4, ACL_FLOAT, os, 60, ACL_FORMAT_NCHW, &n, 1, buf.data());
  HostTensor self({1, 1, 8, 8}, ACL_FLOAT);
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy, self.t(), idx.t(), k, s,
                                                                      p, d, false, x, &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, "aclnnMaxPool2dWithIndicesBackward",
                    "gradInput and gradOutput share");
  // argmax overlapping y in the RoI forward.
  HostTensor rx({1, 1, 4, 4}, ACL_FLOAT, ACL_FORMAT_ND), rois({1, 5}, ACL_FLOAT, ACL_FORMAT_ND);
  std::vector<int32_t> ya(8);
  int64_t yd[] = {1, 1, 2, 2}, ys[] = {4, 4, 2, 1}, yn = 8;
  aclTensor *y = aclCreateTensor(yd, 4, ACL_FLOAT, ys, 0, ACL_FORMAT_ND, &yn, 1, ya.data());
  aclTensor *am = aclCreateTensor(yd, 4, ACL_INT32, ys, 2, ACL_FORMAT_ND, &yn, 1, ya.data());
  EXPECT_STATUS_MSG(aclnnRoiPoolingWithArgMaxGetWorkspaceSize(rx.t(), rois.t(), 2, 2, 1.0f, 1.0f, y,
                                                              am, &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, "aclnnRoiPoolingWithArgMax",
                    "y and argmax share storage");
  // Disjoint halves of one buffer are fine.
  aclTensor *am2 = aclCreateTensor(yd, 4, ACL_INT32, ys, 4, ACL_FORMAT_ND, &yn, 1, ya.data());
  EXPECT_EQ(aclnnRoiPoolingWithArgMaxGetWorkspaceSize(rx.t(), rois.t(), 2, 2, 1.0f, 1.0f, y, am2,
                                                      &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
  for (aclTensor *t : {x, o, gy, y, am, am2}) aclDestroyTensor(t);
}

// ---- 11: thread counts
// ---------------------------------------------------------------------------------
TEST(Hardening, ThreadCountIsCappedAndAPoolThatCannotStartRunsWithFewer) {
  poolgradSetNumThreads(4096);
  EXPECT_EQ(poolgradGetNumThreads(), 1024);
  poolgradSetNumThreads(0);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  // In a child whose address space cannot hold 1024 thread stacks, a 1024-thread call still
  // succeeds (the pool runs with the threads that started) instead of ending the process.
  // (Not under ASan/TSan: their shadow memory needs more address space than the limit allows.)
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(120);
    rlimit lim{size_t(1) << 30, size_t(1) << 30};  // 1 GiB: room for about a hundred stacks
    setrlimit(RLIMIT_AS, &lim);
    poolgradSetNumThreads(1024);
    MaxPoolCall m;
    HostTensor big({4, 64, 32, 32}, ACL_FLOAT), bo({4, 64, 16, 16}, ACL_FLOAT),
        bi({4, 64, 16, 16}, ACL_INT64);
    uint64_t ws;
    aclOpExecutor *ex;
    if (aclnnMaxPool2dWithIndicesGetWorkspaceSize(big.t(), m.k, m.s, m.p, m.d, false, bo.t(),
                                                  bi.t(), &ws, &ex))
      _exit(2);
    void *w = std::malloc(ws);
    _exit(w && aclnnMaxPool2dWithIndices(w, ws, ex, nullptr) == ACLNN_SUCCESS ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
#endif
}

// A framework's own thread count (PyTorch's) applies to the calls of the thread that set it, and
// to no other thread; planning reads the same count poolgradGetNumThreads reports.
TEST(Hardening, ThreadCountOfOneCallingThreadLeavesOthersAlone) {
  poolgradSetNumThreads(2);
  poolgradSetThreadNumThreads(3);
  EXPECT_EQ(poolgradGetNumThreads(), 3);
  int other = 0;
  std::thread([&] { other = poolgradGetNumThreads(); }).join();
  EXPECT_EQ(other, 2);
  poolgradSetThreadNumThreads(5000);
  EXPECT_EQ(poolgradGetNumThreads(), 1024);
  poolgradSetThreadNumThreads(0);
  EXPECT_EQ(poolgradGetNumThreads(), 2);
  poolgradSetNumThreads(0);
}

// ---- 12: decisions
// -----------------------------------------------------------------------------------
TEST(Hardening, MisalignedAddressesAndDirectoryConfigAreRefused) {
  std::vector<int64_t> storage(20);
  char *base = reinterpret_cast<char *>(storage.data()) + 2;  // not a multiple of 4
  int64_t xd[] = {1, 1, 2, 2}, xs[] = {4, 4, 2, 1}, n = 4;
  aclTensor *x = aclCreateTensor(xd, 4, ACL_FLOAT, xs, 0, ACL_FORMAT_NCHW, &n, 1, base);
  HostTensor out({1, 1, 1, 1}, ACL_FLOAT), idx({1, 1, 1, 1}, ACL_INT64);
  IntArray k({2}), s({2}), p({0}), d({1});
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_STATUS_MSG(
      aclnnMaxPool2dWithIndicesGetWorkspaceSize(x, k, s, p, d, false, out.t(), idx.t(), &ws, &ex),
      ACLNN_ERR_PARAM_INVALID, "aclnnMaxPool2dWithIndices", "is not aligned to its element size 4");
  aclDestroyTensor(x);
  EXPECT_EQ(aclInit("/tmp"), ACL_ERROR_INVALID_FILE);
  EXPECT_NE(last_msg().find("is not a regular file"), std::string::npos);
}

}  // namespace
