// SPDX-License-Identifier: Apache-2.0
// The dispatch: every kernel path, forced by its views and attributes, is named by the plan
// (poolgradGetKernelName, the name POOLGRAD_LOG prints) and gives the same bits on the portable
// path (poolgradSetCpuCapability("default")) as on the AVX2 path.
#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_roi_align.h"
#include "aclnnop/aclnn_roi_align_v2.h"
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

// Whether this CPU runs poolgrad's AVX2 level (every x86-64 host these tests run on; none
// elsewhere) and its AVX-512 level (F, BW, DQ, VL and BF16).
bool host_avx2() {
#if defined(__x86_64__) || defined(__i386__)
  return true;
#else
  return false;
#endif
}
bool host_avx512() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bf16");
#else
  return false;
#endif
}

// Whether this CPU runs poolgrad's NEON level (every AArch64 host, qemu-aarch64 included).
bool host_neon() {
#if defined(__aarch64__)
  return true;
#else
  return false;
#endif
}

// Whether this CPU runs poolgrad's SVE level (qemu-aarch64's default CPU has SVE).
bool host_sve() {
#if defined(__aarch64__) && defined(__linux__)
  return (getauxval(AT_HWCAP) & HWCAP_SVE) != 0;
#else
  return false;
#endif
}
// The paths with an SVE row (their Highway code), above their NEON row.
const char *const kSvePaths[] = {"forward-planes", "forward-channels-last",
                                 "volume-forward", "adaptive-forward-bins",
                                 "roi-align-bins", "roi-forward-channel-blocks"};

// The paths with a NEON row; on AArch64 the others run their portable row at every level.
const char *const kNeonPaths[] = {
    "forward-planes",         "forward-channels-last",     "backward-planes",
    "backward-channels-last", "roi-forward-channel-major", "roi-backward-batch-channel-blocks",
    "volume-forward",         "volume-backward",           "adaptive-forward-bins",
    "roi-align-bins",         "roi-forward-channel-blocks"};

// The path of a row name ("roi-forward-channel-blocks/avx2" -> "roi-forward-channel-blocks").
std::string path_of(const char *name) {
  const std::string n = name;
  return n.substr(0, n.find('/'));
}

// The first of the AVX2 row's path and the portable row's that `paths` lists, with the suffix.
std::string listed(const char *avx2_name, const char *portable_name,
                   const std::vector<std::string> &paths, const char *suffix, bool host) {
  if (!host) return "";
  for (const std::string &path : {path_of(avx2_name), path_of(portable_name)})
    if (std::find(paths.begin(), paths.end(), path) != paths.end()) return path + suffix;
  return "";
}

// The name of the path's first vector level on this host: AVX2's on x86, NEON's on AArch64 (the
// AVX2 row's path where it has a NEON row, else the portable row's).
std::string vector_name(const char *avx2_name, const char *portable_name) {
  if (host_avx2()) return avx2_name;
  const std::string neon =
      listed(avx2_name, portable_name, {std::begin(kNeonPaths), std::end(kNeonPaths)}, "/neon",
             host_neon());
  return neon.empty() ? portable_name : neon;
}

// The name of the path's second vector level on this host: AVX-512's (avx512_name, where the path
// has one), SVE's on AArch64 (where the path has one), else its first level's.
std::string top_name(const char *avx2_name, const char *portable_name, const char *avx512_name) {
  if (host_avx512() && avx512_name) return avx512_name;
  const std::string sve = listed(avx2_name, portable_name,
                                 {std::begin(kSvePaths), std::end(kSvePaths)}, "/sve", host_sve());
  return sve.empty() ? vector_name(avx2_name, portable_name) : sve;
}

// The call's kernel names under the second vector level ("avx512": AVX-512 on x86, SVE on
// AArch64, where the host has it), the first ("avx2": AVX2 on x86, NEON on AArch64) and portable,
// and the same bits under all.
void check_paths(const Phase1 &p1, Phase2 p2, std::vector<HostTensor *> outs, const char *avx2_name,
                 const char *portable_name, const char *avx512_name = nullptr) {
  std::vector<std::vector<uint32_t>> a, b, c;
  const std::string vector = vector_name(avx2_name, portable_name);
  EXPECT_EQ(run_as("avx512", p1, p2, outs, &c), top_name(avx2_name, portable_name, avx512_name));
  EXPECT_EQ(run_as("avx2", p1, p2, outs, &a), vector);
  EXPECT_EQ(run_as("default", p1, p2, outs, &b), portable_name);
  EXPECT_EQ(poolgradSetCpuCapability("avx512"), 0);  // no cap: the default
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.size(), c.size());
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k], b[k]) << "output " << k << " differs (avx2, portable)";
    EXPECT_EQ(a[k], c[k]) << "output " << k << " differs (avx2, avx512)";
  }
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

// The row conversions of each level (F16C on x86, FCVTL / FCVTN on AArch64, the bit-level scalar
// code of the portable rows): a 1x1 max pool copies every float16 and bfloat16 bit pattern in and
// out (a signalling NaN made quiet, its payload kept), and a 3x3 stride-1 backward rounds sums of
// halves of every magnitude once: the same bits at every level.
TEST(Dispatch, HalfConversionsAgreeAtEveryLevel) {
  for (aclDataType dt : {ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dt == ACL_FLOAT16 ? "FLOAT16" : "BF16");
    {
      IntArray k({1}), s({1}), p({0}), d({1});
      HostTensor x({1, 1, 256, 256}, dt), out({1, 1, 256, 256}, dt),
          idx({1, 1, 256, 256}, ACL_INT32);
      for (int64_t i = 0; i < x.numel(); ++i) x.set_bits16(i, static_cast<uint16_t>(i));
      const uint16_t exp = dt == ACL_FLOAT16 ? 0x7c00 : 0x7f80,
                     quiet = dt == ACL_FLOAT16 ? 0x200 : 0x40;
      std::vector<uint16_t> first;
      for (const char *cap : {"avx512", "avx2", "default"}) {
        std::vector<std::vector<uint32_t>> bits;
        run_as(
            cap,
            [&](uint64_t *ws, aclOpExecutor **ex) {
              return aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(),
                                                               idx.t(), ws, ex);
            },
            aclnnMaxPool2dWithIndices, {&out}, &bits);
        std::vector<uint16_t> got(out.numel());
        for (int64_t i = 0; i < out.numel(); ++i) {
          got[i] = out.get_bits16(i);
          const uint16_t in = static_cast<uint16_t>(i);
          const bool nan = (in & exp) == exp && (in & ~(0x8000 | exp)) != 0;
          ASSERT_EQ(got[i], nan ? static_cast<uint16_t>(in | quiet) : in) << cap << " bits " << i;
        }
        if (first.empty()) first = got;
        EXPECT_EQ(got, first) << cap;
      }
      poolgradSetCpuCapability("avx512");
    }
    {
      IntArray k({3}), s({1}), p({1}), d({1});
      HostTensor x({2, 3, 20, 24}, dt), out({2, 3, 20, 24}, dt), idx({2, 3, 20, 24}, ACL_INT64),
          gy({2, 3, 20, 24}, dt), gx({2, 3, 20, 24}, dt);
      fill(x, 7);
      std::mt19937 rng(8);
      for (int64_t i = 0; i < gy.numel(); ++i)  // mantissas and exponents of every kind
        gy.set(i, std::ldexp(static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 999.0f,
                             static_cast<int>(rng() % 40) - 20));
      uint64_t ws;
      aclOpExecutor *ex;
      ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(),
                                                          idx.t(), &ws, &ex),
                ACLNN_SUCCESS);
      ASSERT_EQ(aclnnMaxPool2dWithIndices(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
      check_paths(
          [&](uint64_t *w, aclOpExecutor **e) {
            return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), k, s,
                                                                     p, d, false, gx.t(), w, e);
          },
          aclnnMaxPool2dWithIndicesBackward, {&gx}, "backward-planes/avx2", "backward-planes");
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
    // Overlapping 3x3 windows at stride 2 on planes of twice the output's size: the AVX-512 gather,
    // else the scatter.
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
        aclnnMaxPool2dWithIndicesBackward, {&gx}, "backward-planes/avx2", "backward-planes",
        "backward-planes-gather3/avx512");
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

// RoIAlign's float32 forward: AVX2 gathers on x86, the tiled sweep (Highway) on AArch64 and on the
// portable rows, the same bits. Boxes of at most 9x9 pixels with 5x5 bins of 2x2 samples read
// each pixel of their region at least once on average: the sweep tiles them. 19 channels: two
// blocks of eight and a scalar tail. Max mode with NaN in the map: the lane-wise max's order.
TEST(Dispatch, RoiAlignForwardPaths) {
  HostTensor x({2, 19, 24, 30}, ACL_FLOAT, ACL_FORMAT_NCHW),
      boxes({9, 5}, ACL_FLOAT, ACL_FORMAT_ND), y({9, 19, 5, 5}, ACL_FLOAT, ACL_FORMAT_NCHW);
  fill(x, 21);
  for (int64_t i = 0; i < x.numel(); i += 97) x.set(i, NAN);
  fill_rois(boxes, 2, 24, 30, 22);
  for (bool aligned : {false, true})
    check_paths(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnRoiAlignV2GetWorkspaceSize(x.t(), boxes.t(), 5, 5, 1.0f, 2, aligned, y.t(),
                                                 ws, ex);
        },
        aclnnRoiAlignV2, {&y}, "roi-align-bins/avx2", "roi-align-bins");
  HostTensor rois({9, 4}, ACL_FLOAT, ACL_FORMAT_ND), batch({9}, ACL_INT32, ACL_FORMAT_ND);
  for (int64_t r = 0; r < 9; ++r) {
    batch.set_int(r, static_cast<int64_t>(boxes.get(r * 5)));
    for (int j = 0; j < 4; ++j) rois.set(r * 4 + j, boxes.get(r * 5 + 1 + j));
  }
  for (const char *mode : {"max", "avg"})
    check_paths(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnRoiAlignGetWorkspaceSize(x.t(), rois.t(), batch.t(), mode, 5, 5, 2, 1.0f,
                                               y.t(), ws, ex);
        },
        aclnnRoiAlign, {&y}, "roi-align-bins/avx2", "roi-align-bins");
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

// The raw bits of every element (16-bit ones as stored: get() would quiet a NaN).
std::vector<uint32_t> raw_bits(const HostTensor &t) {
  std::vector<uint32_t> b(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (t.dtype() == ACL_FLOAT) {
      const float v = t.get(i);
      std::memcpy(&b[i], &v, 4);
    } else {
      b[i] = t.get_bits16(i);
    }
  }
  return b;
}

struct BackwardRun {
  std::string kernel, msg;
  aclnnStatus status;
  std::vector<uint32_t> bits;
};

BackwardRun backward_as(const char *cap, const HostTensor &gy, const HostTensor &x,
                        const HostTensor &idx, HostTensor &gx) {
  EXPECT_EQ(poolgradSetCpuCapability(cap), 0);
  IntArray k({3}), s({2}), p({1}), d({1});
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), k, s, p, d,
                                                              false, gx.t(), &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  BackwardRun r;
  r.kernel = poolgradGetKernelName(ex);
  r.status = aclnnMaxPool2dWithIndicesBackward(workspace(ws), ws, ex, nullptr);
  r.msg = r.status == ACLNN_SUCCESS ? "" : last_msg();
  r.bits = raw_bits(gx);
  return r;
}

// The 3x3 gather against the AVX2 and portable scatters, bit for bit, on the values and indices
// where a vector gather could differ: NaN, infinities, sums that overflow or give NaN, -0.0,
// subnormal gradients (the bfloat16 rounding instruction flushes those), pixels shared by two or
// four windows, -1 in the top row and the last lane, an index on the pixel just left of window 0's
// first tap column (in the row above: a pixel of the plane, not a tap), and bad indices, among
// them an INT64 one whose low 32 bits name a tap of its window (reported with the same message).
TEST(Dispatch, MaxPoolGather3AgainstScatter) {
  const int64_t C = 3, H = 6, W = 36, ho = 3, wo = 18;  // 18 windows a row: a step and a tail
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (aclDataType idt : {ACL_INT32, ACL_INT64}) {
      SCOPED_TRACE(testing::Message() << "dt=" << dt << " idt=" << idt);
      HostTensor x({1, C, H, W}, dt), idx({1, C, ho, wo}, idt), gy({1, C, ho, wo}, dt),
          gx({1, C, H, W}, dt);
      std::mt19937 rng(17);
      for (int64_t c = 0; c < C; ++c)
        for (int64_t oh = 0; oh < ho; ++oh)
          for (int64_t ow = 0; ow < wo; ++ow) {
            // A tap inside the image, often one shared with the next window (tap row or column 2).
            int64_t h = 2 * oh - 1 + static_cast<int64_t>(rng() % 3);
            int64_t w = 2 * ow - 1 + static_cast<int64_t>(rng() % 3);
            if (rng() % 2) h = 2 * oh + 1, w = 2 * ow + 1;
            h = std::max<int64_t>(h, 0);
            w = std::max<int64_t>(w, 0);
            int64_t v = h * W + w;
            if (c == 1 && (oh * wo + ow) % 5 == 0) v = -1;
            if (c == 1 && ow == wo - 1) v = -1;
            idx.set_int((c * ho + oh) * wo + ow, v);
          }
      idx.set_int((2 * ho + 1) * wo + 0, 1 * W - 1);  // plane 2, window (1, 0): not a tap
      const float big = dt == ACL_FLOAT16 ? 60000.0f : 3.0e38f;
      for (int64_t i = 0; i < gy.numel(); ++i) {
        const float special[] = {std::nanf(""), INFINITY, -INFINITY, -0.0f, big, big, -big};
        const int64_t r = static_cast<int64_t>(rng() % 12);
        gy.set(i, r < 7 ? special[r] : static_cast<float>(static_cast<int>(rng() % 17) - 8) / 8);
        if (r == 11) {  // a subnormal of the dtype
          if (dt == ACL_FLOAT)
            gy.set(i, (rng() % 2 ? -1 : 1) * 1.0e-40f);
          else
            gy.set_bits16(i, static_cast<uint16_t>((rng() % 2 ? 0x8000 : 0) | (1 + rng() % 60)));
        }
      }
      const BackwardRun v512 = backward_as("avx512", gy, x, idx, gx);
      const BackwardRun v2 = backward_as("avx2", gy, x, idx, gx);
      const BackwardRun v0 = backward_as("default", gy, x, idx, gx);
      const std::string vector = vector_name("backward-planes/avx2", "backward-planes");
      EXPECT_EQ(v512.kernel, host_avx512() ? "backward-planes-gather3/avx512" : vector);
      EXPECT_EQ(v2.kernel, vector);
      ASSERT_EQ(v512.status, ACLNN_SUCCESS) << v512.msg;
      ASSERT_EQ(v2.status, ACLNN_SUCCESS) << v2.msg;
      ASSERT_EQ(v0.status, ACLNN_SUCCESS) << v0.msg;
      EXPECT_EQ(v512.bits, v2.bits);
      EXPECT_EQ(v0.bits, v2.bits);
      // A bad index in plane 1, window (1, 3): the same error from every path.
      const int64_t tap = 2 * W + 6;  // (row 2, column 6): a tap of that window
      idx.set_int((1 * ho + 1) * wo + 3, idt == ACL_INT64 ? (int64_t(1) << 32) + tap : H * W);
      const BackwardRun b512 = backward_as("avx512", gy, x, idx, gx);
      const BackwardRun b2 = backward_as("avx2", gy, x, idx, gx);
      EXPECT_EQ(b2.status, ACLNN_ERR_PARAM_INVALID);
      EXPECT_EQ(b512.status, b2.status);
      EXPECT_EQ(b512.msg, b2.msg);
      EXPECT_NE(b2.msg.find("indices[0,1,1,3]="), std::string::npos) << b2.msg;
      EXPECT_EQ(b512.bits, b2.bits);  // every valid gradient is still summed and written
      EXPECT_EQ(poolgradSetCpuCapability("avx512"), 0);
    }
}

// A level name caps at its rung on either ladder: "neon" is "avx2", "sve" is "avx512" (no cap),
// whichever architecture runs them.
TEST(Dispatch, LevelNamesMeanTheSameOnBothLadders) {
  HostTensor x({1, 9, 9, 16}, ACL_FLOAT, ACL_FORMAT_NHWC),
      out({1, 4, 4, 16}, ACL_FLOAT, ACL_FORMAT_NHWC),
      idx({1, 4, 4, 16}, ACL_INT32, ACL_FORMAT_NHWC);
  IntArray k({3}), s({2}), p({0}), d({1});
  auto name_as = [&](const char *cap) {
    EXPECT_EQ(poolgradSetCpuCapability(cap), 0) << cap;
    uint64_t ws;
    aclOpExecutor *ex;
    EXPECT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                        &ws, &ex),
              ACLNN_SUCCESS);
    const std::string name = poolgradGetKernelName(ex);
    aclDestroyAclOpExecutor(ex);
    return name;
  };
  EXPECT_EQ(name_as("neon"), name_as("avx2"));
  EXPECT_EQ(name_as("sve"), name_as("avx512"));
  EXPECT_EQ(name_as("sve"),
            top_name("forward-channels-last/avx2", "forward-channels-last", nullptr));
  EXPECT_EQ(poolgradSetCpuCapability("avx512"), 0);
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
