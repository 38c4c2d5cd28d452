// SPDX-License-Identifier: Apache-2.0
// Callers that change their own inputs while phase 2 runs (a data race on their side, so this file
// is left out of the ThreadSanitizer run, which would report the races the tests make on purpose).
//
// Every API that reads an index, a mask, an argmax or a box in phase 2 is run as a repeatable
// executor in a loop while a second thread flips that caller datum between valid and invalid
// values, under each ISA row. The workspace and every output sit between guard regions larger
// than any address an invalid value could form relative to them, filled with a sentinel a write
// shows (a tiny float: any store, or any add of a nonzero gradient, changes it). Whatever the other
// thread does, every run ends with 0 or 161002 and nothing outside the outputs is written: the
// library reads each such datum once and uses the value it checked (docs/reliability.md).
// Before that rule, the RoI backward's AVX2 eight-bin path checked eight argmax values with one
// load and used a second load of them as the accumulator index; this file caught it.
#include <algorithm>
#include <atomic>
#include <climits>
#include <functional>
#include <set>
#include <thread>

#include "aclnnop/aclnn_adaptive_max_pool2d_backward.h"
#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "aclnnop/aclnn_ops_nn.h"
#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "poolgrad/poolgrad.h"
#include "test_util.h"

using namespace pgtest;

namespace {

// The sentinel: a subnormal float, not a byte pattern, so that a gradient added to it shows.
constexpr uint32_t kSentinelBits = 0x00000A5Au;

// Caller memory of `bytes` with `guard` bytes of sentinel on each side.
class Guarded {
 public:
  Guarded(size_t bytes, size_t guard)
      : bytes_((bytes + 63) / 64 * 64),
        guard_((guard + 63) / 64 * 64),
        words_((2 * guard_ + bytes_) / 4, kSentinelBits) {}
  void *data() { return reinterpret_cast<char *>(words_.data()) + guard_; }
  // Index of the first guard word that changed, or -1.
  int64_t first_changed_guard() const {
    const size_t lead = guard_ / 4, body = bytes_ / 4;
    for (size_t i = 0; i < words_.size(); ++i)
      if ((i < lead || i >= lead + body) && words_[i] != kSentinelBits)
        return static_cast<int64_t>(i);
    return -1;
  }

 private:
  size_t bytes_, guard_;
  std::vector<uint32_t> words_;
};

// A contiguous tensor over guarded memory.
struct GTensor {
  std::vector<int64_t> dims;
  aclDataType dt;
  Guarded mem;
  aclTensor *t = nullptr;
  GTensor(std::vector<int64_t> d, aclDataType type, aclFormat fmt, size_t guard)
      : dims(std::move(d)),
        dt(type),
        mem(static_cast<size_t>(count(dims) * elem_size(type)), guard) {
    const std::vector<int64_t> s = contiguous_strides(dims);
    t = aclCreateTensor(dims.data(), dims.size(), dt, s.data(), 0, fmt, dims.data(), dims.size(),
                        mem.data());
  }
  ~GTensor() { aclDestroyTensor(t); }
  static int64_t count(const std::vector<int64_t> &d) {
    int64_t n = 1;
    for (int64_t v : d) n *= v;
    return n;
  }
  int64_t numel() const { return count(dims); }
  void fill_float(float v) {
    for (int64_t i = 0; i < numel(); ++i) {
      if (dt == ACL_FLOAT)
        static_cast<float *>(mem.data())[i] = v;
      else
        static_cast<uint16_t *>(mem.data())[i] = dt == ACL_FLOAT16 ? f32_to_f16(v) : f32_to_bf16(v);
    }
  }
};

// Words the flipper writes: word i of `base` alternates between valid[i] and one of `invalid`.
struct Flip {
  void *base;
  int64_t words;
  int width;  // 4 or 8 bytes
  std::vector<int64_t> valid;
  std::vector<int64_t> invalid;
  void store(int64_t i, int64_t v) const {
    if (width == 4)
      __atomic_store_n(static_cast<int32_t *>(base) + i, static_cast<int32_t>(v), __ATOMIC_RELAXED);
    else
      __atomic_store_n(static_cast<int64_t *>(base) + i, v, __ATOMIC_RELAXED);
  }
  void restore() const {
    for (int64_t i = 0; i < words; ++i) store(i, valid[i]);
  }
};

// Valid indices for a plane of hw elements: spread over the plane.
std::vector<int64_t> spread(int64_t words, int64_t hw) {
  std::vector<int64_t> v(words);
  for (int64_t i = 0; i < words; ++i) v[i] = (i * 7 + 3) % hw;
  return v;
}

// Invalid values for indices into planes of hw elements, given the workspace size: just past the
// plane, past the workspace's end, negative, and the int32 extremes.
std::vector<int64_t> bad_indices(int64_t hw, uint64_t ws) {
  return {static_cast<int64_t>(ws / 4) + 1024, hw, hw + 5, -2, INT32_MAX, INT32_MIN};
}

// The guard a buffer needs so that plane + any invalid value above lands inside it.
size_t guard_for(uint64_t ws, int64_t out_bytes) {
  return static_cast<size_t>(ws) + static_cast<size_t>(out_bytes) + 8192;
}

using Phase1 = std::function<aclnnStatus(uint64_t *, aclOpExecutor **)>;
using Phase2 = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

const char *const kIsas[] = {"default", "avx2", "avx512"};

// Runs phase 2 `iters` times while `flip` races; returns the kernel name. Outputs are checked by
// the caller (their guards); the workspace here.
std::string race(const Phase1 &phase1, Phase2 phase2, const Flip &flip, int iters,
                 std::vector<Guarded *> outputs) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  flip.restore();
  // One kernel thread, so that the writer has a core of its own on a small machine.
  poolgradSetThreadNumThreads(1);
  EXPECT_EQ(phase1(&ws, &ex), ACLNN_SUCCESS) << last_msg();
  poolgradSetThreadNumThreads(0);
  if (!ex) return "";
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(ex), ACLNN_SUCCESS);
  const std::string kernel = poolgradGetKernelName(ex);
  Guarded work(ws, guard_for(ws, 1 << 16));
  std::atomic<bool> stop{false};
  std::thread flipper([&] {
    for (uint64_t round = 0; !stop.load(std::memory_order_relaxed); ++round) {
      // Every other round the value farthest out, which lands in a guard if it is ever used.
      const int64_t bad =
          round % 2 ? flip.invalid[0] : flip.invalid[round / 2 % flip.invalid.size()];
      for (int64_t i = 0; i < flip.words; ++i) flip.store(i, bad);
      for (int64_t i = 0; i < flip.words; ++i) flip.store(i, flip.valid[i]);
    }
  });
  int ok = 0, refused = 0, other = 0;
  for (int it = 0; it < iters; ++it) {
    const aclnnStatus st = phase2(ws ? work.data() : nullptr, ws, ex, nullptr);
    (st == ACLNN_SUCCESS ? ok : st == ACLNN_ERR_PARAM_INVALID ? refused : other) += 1;
    last_msg();
  }
  stop = true;
  flipper.join();
  flip.restore();
  EXPECT_EQ(other, 0) << kernel;
  EXPECT_EQ(work.first_changed_guard(), -1) << kernel << ": a write outside the workspace";
  for (size_t i = 0; i < outputs.size(); ++i)
    EXPECT_EQ(outputs[i]->first_changed_guard(), -1) << kernel << ": a write outside output " << i;
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
  return kernel;
}

constexpr int kIters = 150;

// ---- the max-pool backwards ---------------------------------------------------------------------

struct Pool2dCase {
  std::vector<int64_t> x;  // NCHW or NHWC dims as the format says
  aclFormat fmt;
  int64_t k, s, p;
};

std::vector<int64_t> pooled(const Pool2dCase &c) {
  const bool cl = c.fmt == ACL_FORMAT_NHWC;
  std::vector<int64_t> o = c.x;
  const int hi = cl ? 1 : 2, wi = cl ? 2 : 3;
  o[hi] = (c.x[hi] + 2 * c.p - c.k) / c.s + 1;
  o[wi] = (c.x[wi] + 2 * c.p - c.k) / c.s + 1;
  return o;
}

TEST(Race, MaxPool2dBackwardIndicesFlipped) {
  // The plane scatter, the 3x3 gather (AVX-512), the 2x2 gather (INT32), channels-last.
  const Pool2dCase cases[] = {{{2, 4, 16, 16}, ACL_FORMAT_NCHW, 3, 2, 1},
                              {{2, 4, 12, 13}, ACL_FORMAT_NCHW, 3, 1, 1},
                              {{2, 2, 32, 32}, ACL_FORMAT_NCHW, 2, 2, 0},
                              {{2, 16, 16, 16}, ACL_FORMAT_NHWC, 3, 2, 1}};
  std::set<std::string> kernels;
  for (const char *isa : kIsas)
    for (const Pool2dCase &c : cases)
      for (aclDataType idt : {ACL_INT32, ACL_INT64}) {
        ASSERT_EQ(poolgradSetCpuCapability(isa), 0);
        const std::vector<int64_t> o = pooled(c);
        const bool cl = c.fmt == ACL_FORMAT_NHWC;
        const int64_t hw = c.x[cl ? 1 : 2] * c.x[cl ? 2 : 3];
        const size_t guard = guard_for(1 << 20, GTensor::count(c.x) * 4);
        GTensor gy(o, ACL_FLOAT, c.fmt, 64), self(c.x, ACL_FLOAT, c.fmt, 64),
            idx(o, idt, c.fmt, 64), gx(c.x, ACL_FLOAT, c.fmt, guard);
        gy.fill_float(1.0f);
        IntArray k({c.k, c.k}), s({c.s, c.s}), p({c.p, c.p}), d({1, 1});
        Flip f{idx.mem.data(),
               idx.numel(),
               static_cast<int>(elem_size(idt)),
               spread(idx.numel(), hw),
               {}};
        f.invalid = bad_indices(hw, 1 << 18);
        if (idt == ACL_INT64) f.invalid.push_back((int64_t(1) << 32) + 3);  // narrows to 3
        kernels.insert(race(
            [&](uint64_t *ws, aclOpExecutor **ex) {
              return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t, self.t, idx.t, k, s, p,
                                                                       d, false, gx.t, ws, ex);
            },
            aclnnMaxPool2dWithIndicesBackward, f, kIters, {&gx.mem}));
      }
  poolgradSetCpuCapability("avx512");
  // Every row the cases are meant to reach ran (where the CPU has it).
  for (const char *want : {"backward-planes", "backward-channels-last"})
    EXPECT_TRUE(std::any_of(kernels.begin(), kernels.end(), [&](const std::string &n) {
      return n.find(want) == 0;
    })) << want;
}

TEST(Race, MaxPool2dWithMaskBackwardMaskFlipped) {
  Profile a2("Ascend910B");  // the Mask pair is A2/A3's
  for (const char *isa : kIsas) {
    ASSERT_EQ(poolgradSetCpuCapability(isa), 0);
    const int64_t N = 2, C = 4, H = 16, W = 16, ho = 8, wo = 8;
    const int64_t row = ((ho * wo + 15) / 16 + 1) * 32;
    GTensor gy({N, C, ho, wo}, ACL_FLOAT, ACL_FORMAT_NCHW, 64),
        self({N, C, H, W}, ACL_FLOAT, ACL_FORMAT_NCHW, 64),
        mask({N, C, 9, row}, ACL_INT8, ACL_FORMAT_NCHW, 64),
        gx({N, C, H, W}, ACL_FLOAT, ACL_FORMAT_NCHW, guard_for(1 << 20, N * C * H * W * 4));
    gy.fill_float(1.0f);
    IntArray k({3, 3}), s({2, 2}), p({1, 1}), d({1, 1});
    const int64_t outputs = N * C * ho * wo;  // the mask's first bytes hold int32 indices
    Flip f{mask.mem.data(), outputs, 4, spread(outputs, H * W), bad_indices(H * W, 1 << 18)};
    race(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(gy.t, self.t, mask.t, k, s, p, d,
                                                                false, gx.t, ws, ex);
        },
        aclnnMaxPool2dWithMaskBackward, f, kIters, {&gx.mem});
  }
  poolgradSetCpuCapability("avx512");
}

TEST(Race, MaxPool3dAndAdaptiveBackwardsIndicesFlipped) {
  for (const char *isa : kIsas)
    for (aclDataType idt : {ACL_INT32, ACL_INT64}) {
      ASSERT_EQ(poolgradSetCpuCapability(isa), 0);
      const std::vector<int64_t> x3 = {1, 4, 8, 8, 8}, o3 = {1, 4, 4, 4, 4};
      const size_t guard = guard_for(1 << 20, 4 * 512 * 4);
      {  // 3-D, kernel 2, stride 2
        GTensor gy(o3, ACL_FLOAT, ACL_FORMAT_NCDHW, 64), self(x3, ACL_FLOAT, ACL_FORMAT_NCDHW, 64),
            idx(o3, idt, ACL_FORMAT_NCDHW, 64), gx(x3, ACL_FLOAT, ACL_FORMAT_NCDHW, guard);
        gy.fill_float(1.0f);
        IntArray k({2, 2, 2}), s({2, 2, 2}), p({0, 0, 0}), d({1, 1, 1});
        Flip f{idx.mem.data(), idx.numel(), static_cast<int>(elem_size(idt)),
               spread(idx.numel(), 512), bad_indices(512, 1 << 18)};
        race(
            [&](uint64_t *ws, aclOpExecutor **ex) {
              return aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gy.t, self.t, idx.t, k, s, p,
                                                                      d, false, gx.t, ws, ex);
            },
            aclnnMaxPool3dWithArgmaxBackward, f, kIters, {&gx.mem});
      }
      {  // adaptive 3-D to 3x3x3
        const std::vector<int64_t> oa = {1, 4, 3, 3, 3};
        GTensor gy(oa, ACL_FLOAT, ACL_FORMAT_NCDHW, 64), self(x3, ACL_FLOAT, ACL_FORMAT_NCDHW, 64),
            idx(oa, idt, ACL_FORMAT_NCDHW, 64), gx(x3, ACL_FLOAT, ACL_FORMAT_NCDHW, guard);
        gy.fill_float(1.0f);
        Flip f{idx.mem.data(), idx.numel(), static_cast<int>(elem_size(idt)),
               spread(idx.numel(), 512), bad_indices(512, 1 << 18)};
        race(
            [&](uint64_t *ws, aclOpExecutor **ex) {
              return aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gy.t, self.t, idx.t, gx.t, ws,
                                                                    ex);
            },
            aclnnAdaptiveMaxPool3dBackward, f, kIters, {&gx.mem});
      }
      if (idt == ACL_INT64) {  // adaptive 2-D to 5x5
        const std::vector<int64_t> x2 = {2, 4, 16, 16}, o2 = {2, 4, 5, 5};
        GTensor gy(o2, ACL_FLOAT, ACL_FORMAT_NCHW, 64), self(x2, ACL_FLOAT, ACL_FORMAT_NCHW, 64),
            idx(o2, idt, ACL_FORMAT_NCHW, 64), gx(x2, ACL_FLOAT, ACL_FORMAT_NCHW, guard);
        gy.fill_float(1.0f);
        Flip f{idx.mem.data(), idx.numel(), 8, spread(idx.numel(), 256), bad_indices(256, 1 << 18)};
        race(
            [&](uint64_t *ws, aclOpExecutor **ex) {
              return aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(gy.t, self.t, idx.t, gx.t, ws,
                                                                    ex);
            },
            aclnnAdaptiveMaxPool2dBackward, f, kIters, {&gx.mem});
      }
    }
  poolgradSetCpuCapability("avx512");
}

// ---- the RoI pair -------------------------------------------------------------------------------

struct RoiSetup {
  static constexpr int64_t N = 2, C = 16, H = 16, W = 16, R = 32, P = 7;
  GTensor x{{N, C, H, W}, ACL_FLOAT, ACL_FORMAT_ND, 64};
  GTensor rois{{R, 5}, ACL_FLOAT, ACL_FORMAT_ND, 64};
  GTensor y{{R, C, P, P}, ACL_FLOAT, ACL_FORMAT_ND, guard_for(1 << 20, R *C *P *P * 4)};
  GTensor am{{R, C, P, P}, ACL_INT32, ACL_FORMAT_ND, guard_for(1 << 20, R *C *P *P * 4)};
  GTensor gy{{R, C, P, P}, ACL_FLOAT, ACL_FORMAT_ND, 64};
  GTensor gx{{N, C, H, W}, ACL_FLOAT, ACL_FORMAT_ND, guard_for(1 << 20, N *C *H *W * 4)};
  RoiSetup() {
    gy.fill_float(1.0f);
    x.fill_float(0.5f);
    float *r = static_cast<float *>(rois.mem.data());
    for (int64_t i = 0; i < R; ++i) {
      const float v[5] = {static_cast<float>(i % 2), 1, 2, 13, 12};
      for (int j = 0; j < 5; ++j) r[i * 5 + j] = v[j];
    }
  }
  // Batch indices flipped between valid and out-of-range values; the corners between values
  // inside and far outside the image.
  Flip rois_flip() {
    Flip f{rois.mem.data(), R * 5, 4, {}, {}};
    const float *r = static_cast<const float *>(rois.mem.data());
    for (int64_t i = 0; i < R * 5; ++i) {
      int32_t bits;
      std::memcpy(&bits, r + i, 4);
      f.valid.push_back(bits);
    }
    for (float bad : {1e9f, -5.0f, 2.0f, -1e9f, 3e38f}) {
      int32_t bits;
      std::memcpy(&bits, &bad, 4);
      f.invalid.push_back(bits);
    }
    return f;
  }
};

TEST(Race, RoiPoolingGradArgmaxFlipped) {
  std::set<std::string> kernels;
  for (const char *isa : kIsas) {
    ASSERT_EQ(poolgradSetCpuCapability(isa), 0);
    RoiSetup s;
    const int64_t hw = s.H * s.W;
    Flip f{s.am.mem.data(), s.am.numel(), 4, spread(s.am.numel(), hw), bad_indices(hw, 1 << 18)};
    kernels.insert(race(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(s.gy.t, s.gx.t, s.rois.t, s.am.t,
                                                               s.P, s.P, 1.0, ws, ex);
        },
        aclnnRoiPoolingGradWithArgMax, f, 4 * kIters, {&s.gx.mem}));
  }
  poolgradSetCpuCapability("avx512");
#if defined(__x86_64__) || defined(__i386__)
  EXPECT_TRUE(std::any_of(kernels.begin(), kernels.end(), [](const std::string &n) {
    return n.find("avx2") != std::string::npos;
  })) << "the AVX2 eight-bin path did not run";
#endif
}

TEST(Race, RoiPoolingGradRoisFlipped) {
  for (const char *isa : kIsas) {
    ASSERT_EQ(poolgradSetCpuCapability(isa), 0);
    RoiSetup s;
    const int64_t hw = s.H * s.W;
    Flip valid_am{s.am.mem.data(), s.am.numel(), 4, spread(s.am.numel(), hw), {}};
    valid_am.restore();
    race(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(s.gy.t, s.gx.t, s.rois.t, s.am.t,
                                                               s.P, s.P, 1.0, ws, ex);
        },
        aclnnRoiPoolingGradWithArgMax, s.rois_flip(), kIters, {&s.gx.mem});
  }
  poolgradSetCpuCapability("avx512");
}

TEST(Race, RoiPoolingForwardRoisFlipped) {
  for (const char *isa : kIsas) {
    ASSERT_EQ(poolgradSetCpuCapability(isa), 0);
    RoiSetup s;
    race(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnRoiPoolingWithArgMaxGetWorkspaceSize(s.x.t, s.rois.t, s.P, s.P, 1.0f, 1.0f,
                                                           s.y.t, s.am.t, ws, ex);
        },
        aclnnRoiPoolingWithArgMax, s.rois_flip(), kIters, {&s.y.mem, &s.am.mem});
  }
  poolgradSetCpuCapability("avx512");
}

}  // namespace
