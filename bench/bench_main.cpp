// SPDX-License-Identifier: Apache-2.0
// Google Benchmark over the C API for every row of the team's workloads: phase 2 alone (the
// kernel) and phase 1 + phase 2 (what a user pays per call), for the four operators.
// Threads: POOLGRAD_NUM_THREADS. Comparison with the peers lives in compare.py.
#include <benchmark/benchmark.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_adaptive_max_pool2d_backward.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "poolgrad/poolgrad.h"

namespace {

struct Buf {
  void *p = nullptr;
  size_t bytes = 0;
  explicit Buf(size_t b) : bytes(b) { aclrtMalloc(&p, b ? b : 1, ACL_MEM_MALLOC_HUGE_FIRST); }
  ~Buf() { aclrtFree(p); }
};

size_t esize(aclDataType t) {
  return aclDataTypeSize(t);
}

struct T {
  std::unique_ptr<Buf> buf;
  aclTensor *t = nullptr;
  std::vector<int64_t> dims;
  aclDataType dt;
  T(std::vector<int64_t> d, aclDataType type, aclFormat fmt, bool channels_last = false)
      : dims(std::move(d)), dt(type) {
    size_t n = 1;
    for (auto v : dims) n *= static_cast<size_t>(v);
    buf = std::make_unique<Buf>(n * esize(dt));
    std::vector<int64_t> st(dims.size(), 1);
    for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * dims[i + 1];
    if (channels_last && dims.size() == 4) {  // NCHW view, NHWC memory (PyTorch channels-last)
      st = {dims[1] * dims[2] * dims[3], 1, dims[3] * dims[1], dims[1]};
    }
    const int64_t sd = static_cast<int64_t>(n);
    t = aclCreateTensor(dims.data(), dims.size(), dt, st.data(), 0, fmt, &sd, 1, buf->p);
  }
  ~T() { aclDestroyTensor(t); }
  void fill_random(std::mt19937 &rng) {
    std::normal_distribution<float> nd;
    size_t n = buf->bytes / esize(dt);
    if (dt == ACL_FLOAT) {
      auto *f = static_cast<float *>(buf->p);
      for (size_t i = 0; i < n; ++i) f[i] = nd(rng);
    } else {
      auto *h = static_cast<uint16_t *>(buf->p);
      for (size_t i = 0; i < n; ++i) {
        float v = nd(rng);
        uint32_t u;
        std::memcpy(&u, &v, 4);
        h[i] = dt == ACL_BF16 ? static_cast<uint16_t>(u >> 16) : aclFloatToFloat16(v);
      }
    }
  }
};

struct IA {
  aclIntArray *a;
  explicit IA(std::vector<int64_t> v) : a(aclCreateIntArray(v.data(), v.size())) {}
  ~IA() { aclDestroyIntArray(a); }
};

// A phase-2 workspace of `bytes`, kept between calls (grown once, as a caller that reuses its
// buffer would).
void *workspace(uint64_t bytes) {
  static std::vector<unsigned char> buf;
  if (buf.size() < bytes) buf.resize(bytes);
  return bytes ? buf.data() : nullptr;
}

// The timed loop: phase 2 on a repeatable executor, or phase 1 + phase 2 per iteration.
template <class P1, class P2>
bool time_phases(benchmark::State &state, P1 phase1, P2 phase2, bool with_phase1) {
  aclOpExecutor *rep = nullptr;
  if (!with_phase1) {
    if (phase1(&rep) != 0) {
      state.SkipWithError(aclGetRecentErrMsg());
      return false;
    }
    aclSetAclOpExecutorRepeatable(rep);
  }
  for (auto _ : state) {
    if (with_phase1) {
      aclOpExecutor *e;
      phase1(&e);
      phase2(e);
    } else {
      phase2(rep);
    }
  }
  if (rep) aclDestroyAclOpExecutor(rep);
  return true;
}

struct MaxRow {
  std::string id;
  int64_t n, c, h, w, k, s, p, d;
  bool ceil;
  aclDataType dt;
  bool nhwc, rank3;
  bool mask;  // the Mask pair (Ascend910B profile), its INT8 mask instead of indices
};
struct RoiRow {
  std::string id;
  int64_t n, c, h, w, r, pooled;
  float scale;
  aclDataType dt;
};

// bench/workloads.txt (the one list; its header gives the format): "mb32ic64ih112iw112_kh3sh2ph1
// [_ceil] [_nhwc] [_f16|_bf16]" for max-pool, "mb2ic512ih38iw50_r256p7s1/16 [_f16]" for RoI.
struct Spec {
  std::map<std::string, double> v;
  std::set<std::string> flags;
};
Spec parse_spec(const std::string &spec) {
  Spec out;
  std::stringstream parts(spec);
  std::string part;
  for (int i = 0; std::getline(parts, part, '_'); ++i) {
    if (i >= 2) {
      out.flags.insert(part);
      continue;
    }
    for (size_t k = 0; k < part.size();) {
      size_t e = k;
      while (e < part.size() && std::isalpha(static_cast<unsigned char>(part[e]))) ++e;
      size_t f = e;
      while (f < part.size() && !std::isalpha(static_cast<unsigned char>(part[f]))) ++f;
      const std::string key = part.substr(k, e - k), val = part.substr(e, f - e);
      const size_t slash = val.find('/');
      out.v[key] = slash == std::string::npos
                       ? std::stod(val)
                       : std::stod(val.substr(0, slash)) / std::stod(val.substr(slash + 1));
      k = f;
    }
  }
  return out;
}

struct AdaptiveRow {
  std::string id;
  int64_t n, c, h, w, oh, ow;
  aclDataType dt;
};

bool load_workloads(const char *path, std::vector<MaxRow> *maxrows, std::vector<RoiRow> *roirows,
                    std::vector<AdaptiveRow> *adaptiverows) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::stringstream ls(line);
    std::string kind, id, spec;
    if (!(ls >> kind >> id >> spec)) continue;
    Spec sp = parse_spec(spec);
    auto get = [&](const char *k, double d) {
      return static_cast<int64_t>(sp.v.count(k) ? sp.v[k] : d);
    };
    const aclDataType dt = sp.flags.count("f16")    ? ACL_FLOAT16
                           : sp.flags.count("bf16") ? ACL_BF16
                                                    : ACL_FLOAT;
    if (kind == "maxpool")
      maxrows->push_back({id, get("mb", 1), get("ic", 0), get("ih", 0), get("iw", 0), get("kh", 1),
                          get("sh", 1), get("ph", 0), get("dh", 1), sp.flags.count("ceil") > 0, dt,
                          sp.flags.count("nhwc") > 0, sp.v.count("mb") == 0,
                          sp.flags.count("mask") > 0});
    else if (kind == "roi")
      roirows->push_back({id, get("mb", 1), get("ic", 0), get("ih", 0), get("iw", 0), get("r", 0),
                          get("p", 1), static_cast<float>(sp.v["s"]), dt});
    else if (kind == "adaptive")
      adaptiverows->push_back({id, get("mb", 1), get("ic", 0), get("ih", 0), get("iw", 0),
                               get("oh", 1), get("ow", 1), dt});
  }
  return true;
}

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  return poolgradPoolOutputSize(in, k, s, p, d, ceil);  // the library's one copy of the rule
}

std::vector<int64_t> shape(const MaxRow &r, int64_t h, int64_t w) {
  if (r.rank3) return {r.c, h, w};
  return {r.n, r.c, h, w};
}

void maxpool(benchmark::State &state, const MaxRow &r, bool backward, aclDataType idt,
             bool with_phase1) {
  std::mt19937 rng(0);
  const int64_t ho = out_size(r.h, r.k, r.s, r.p, r.d, r.ceil),
                wo = out_size(r.w, r.k, r.s, r.p, r.d, r.ceil);
  // The Mask pair: the Ascend910B profile for this benchmark, the mask of CANN's shape.
  struct MaskProfile {
    bool on;
    explicit MaskProfile(bool m) : on(m) {
      if (on) setenv("POOLGRAD_SOC", "Ascend910B", 1), aclInit(nullptr), aclFinalize();
    }
    ~MaskProfile() {
      if (on) unsetenv("POOLGRAD_SOC"), aclInit(nullptr), aclFinalize();
    }
  } profile(r.mask);
  std::vector<int64_t> idx_dims = shape(r, ho, wo);
  if (r.mask) idx_dims = shape(r, r.k * r.k, ((ho * wo + 15) / 16 + 1) * 32);
  T x(shape(r, r.h, r.w), r.dt, ACL_FORMAT_NCHW, r.nhwc),
      out(shape(r, ho, wo), r.dt, ACL_FORMAT_NCHW, r.nhwc),
      idx(idx_dims, r.mask ? ACL_INT8 : idt, ACL_FORMAT_NCHW, r.nhwc && !r.mask),
      gy(shape(r, ho, wo), r.dt, ACL_FORMAT_NCHW, r.nhwc),
      gx(shape(r, r.h, r.w), r.dt, ACL_FORMAT_NCHW, r.nhwc);
  x.fill_random(rng);
  gy.fill_random(rng);
  IA k({r.k}), s({r.s}), p({r.p}), d({r.d});
  uint64_t ws;
  aclOpExecutor *ex;
  auto fwd1 =
      r.mask ? aclnnMaxPool2dWithMaskGetWorkspaceSize : aclnnMaxPool2dWithIndicesGetWorkspaceSize;
  auto fwd2 = r.mask ? aclnnMaxPool2dWithMask : aclnnMaxPool2dWithIndices;
  auto bwd1 = r.mask ? aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize
                     : aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize;
  auto bwd2 = r.mask ? aclnnMaxPool2dWithMaskBackward : aclnnMaxPool2dWithIndicesBackward;
  fwd1(x.t, k.a, s.a, p.a, d.a, r.ceil, out.t, idx.t, &ws, &ex);
  fwd2(workspace(ws), ws, ex, nullptr);
  auto phase1 = [&](aclOpExecutor **e) {
    return backward ? bwd1(gy.t, x.t, idx.t, k.a, s.a, p.a, d.a, r.ceil, gx.t, &ws, e)
                    : fwd1(x.t, k.a, s.a, p.a, d.a, r.ceil, out.t, idx.t, &ws, e);
  };
  auto phase2 = [&](aclOpExecutor *e) {
    return backward ? bwd2(workspace(ws), ws, e, nullptr) : fwd2(workspace(ws), ws, e, nullptr);
  };
  if (!time_phases(state, phase1, phase2, with_phase1)) return;
  const size_t bytes = backward ? gy.buf->bytes + idx.buf->bytes + gx.buf->bytes
                                : x.buf->bytes + out.buf->bytes + idx.buf->bytes;
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
}

// Adaptive max pooling: phase 2 of the forward, or of the backward (Ascend910B, where CANN has it).
void adaptive(benchmark::State &state, const AdaptiveRow &r, bool backward) {
  std::mt19937 rng(0);
  struct Product {
    bool on;
    explicit Product(bool b) : on(b) {
      if (on) setenv("POOLGRAD_SOC", "Ascend910B", 1), aclInit(nullptr), aclFinalize();
    }
    ~Product() {
      if (on) unsetenv("POOLGRAD_SOC"), aclInit(nullptr), aclFinalize();
    }
  } product(backward);
  T x({r.n, r.c, r.h, r.w}, r.dt, ACL_FORMAT_NCHW),
      out({r.n, r.c, r.oh, r.ow}, r.dt, ACL_FORMAT_NCHW),
      idx({r.n, r.c, r.oh, r.ow}, ACL_INT64, ACL_FORMAT_NCHW),
      gy({r.n, r.c, r.oh, r.ow}, r.dt, ACL_FORMAT_NCHW),
      gx({r.n, r.c, r.h, r.w}, r.dt, ACL_FORMAT_NCHW);
  x.fill_random(rng);
  gy.fill_random(rng);
  IA os({r.oh, r.ow});
  uint64_t ws;
  aclOpExecutor *ex;
  aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t, os.a, out.t, idx.t, &ws, &ex);
  aclnnAdaptiveMaxPool2d(workspace(ws), ws, ex, nullptr);
  auto phase1 = [&](aclOpExecutor **e) {
    return backward ? aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(gy.t, x.t, idx.t, gx.t, &ws, e)
                    : aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t, os.a, out.t, idx.t, &ws, e);
  };
  auto phase2 = [&](aclOpExecutor *e) {
    return backward ? aclnnAdaptiveMaxPool2dBackward(workspace(ws), ws, e, nullptr)
                    : aclnnAdaptiveMaxPool2d(workspace(ws), ws, e, nullptr);
  };
  if (!time_phases(state, phase1, phase2, false)) return;
  const size_t bytes = backward ? gy.buf->bytes + idx.buf->bytes + gx.buf->bytes
                                : x.buf->bytes + out.buf->bytes + idx.buf->bytes;
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
}

void roi(benchmark::State &state, const RoiRow &w, bool backward, bool with_phase1) {
  std::mt19937 rng(0);
  T x({w.n, w.c, w.h, w.w}, w.dt, ACL_FORMAT_ND), rois({w.r, 5}, w.dt, ACL_FORMAT_ND),
      y({w.r, w.c, w.pooled, w.pooled}, w.dt, ACL_FORMAT_ND),
      am({w.r, w.c, w.pooled, w.pooled}, ACL_INT32, ACL_FORMAT_ND),
      gy({w.r, w.c, w.pooled, w.pooled}, w.dt, ACL_FORMAT_ND),
      gx({w.n, w.c, w.h, w.w}, w.dt, ACL_FORMAT_ND);
  x.fill_random(rng);
  gy.fill_random(rng);
  const float img_w = w.w / w.scale, img_h = w.h / w.scale;
  std::uniform_real_distribution<float> u01(0, 1);
  for (int64_t r = 0; r < w.r; ++r) {
    float row[5];
    row[0] = static_cast<float>(rng() % w.n);
    row[1] = u01(rng) * img_w;
    row[2] = u01(rng) * img_h;
    row[3] = std::fmin(row[1] + 16 + u01(rng) * 384, img_w - 1);
    row[4] = std::fmin(row[2] + 16 + u01(rng) * 384, img_h - 1);
    for (int j = 0; j < 5; ++j) {
      if (w.dt == ACL_FLOAT)
        static_cast<float *>(rois.buf->p)[r * 5 + j] = row[j];
      else
        static_cast<uint16_t *>(rois.buf->p)[r * 5 + j] = aclFloatToFloat16(row[j]);
    }
  }
  uint64_t ws;
  aclOpExecutor *ex;
  aclnnRoiPoolingWithArgMaxGetWorkspaceSize(x.t, rois.t, w.pooled, w.pooled, w.scale, w.scale, y.t,
                                            am.t, &ws, &ex);
  aclnnRoiPoolingWithArgMax(workspace(ws), ws, ex, nullptr);
  auto phase1 = [&](aclOpExecutor **e) {
    return backward ? aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(
                          gy.t, gx.t, rois.t, am.t, w.pooled, w.pooled, w.scale, &ws, e)
                    : aclnnRoiPoolingWithArgMaxGetWorkspaceSize(
                          x.t, rois.t, w.pooled, w.pooled, w.scale, w.scale, y.t, am.t, &ws, e);
  };
  auto phase2 = [&](aclOpExecutor *e) {
    return backward ? aclnnRoiPoolingGradWithArgMax(workspace(ws), ws, e, nullptr)
                    : aclnnRoiPoolingWithArgMax(workspace(ws), ws, e, nullptr);
  };
  if (!time_phases(state, phase1, phase2, with_phase1)) return;
  const size_t bytes = backward ? gy.buf->bytes + am.buf->bytes + rois.buf->bytes + gx.buf->bytes
                                : x.buf->bytes + rois.buf->bytes + y.buf->bytes + am.buf->bytes;
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
}

}  // namespace

int main(int argc, char **argv) {
  // POOLGRAD_WORKLOADS overrides the list compiled in (the source tree's bench/workloads.txt).
  const char *path = std::getenv("POOLGRAD_WORKLOADS") ? std::getenv("POOLGRAD_WORKLOADS")
                                                       : POOLGRAD_WORKLOADS_FILE;
  std::vector<MaxRow> kMax;
  std::vector<RoiRow> kRoi;
  std::vector<AdaptiveRow> kAdaptive;
  if (!load_workloads(path, &kMax, &kRoi, &kAdaptive)) {
    std::fprintf(stderr, "poolgrad_bench: cannot read the workload list %s\n", path);
    return 1;
  }
  for (const MaxRow &r : kMax) {
    for (aclDataType idt : {ACL_INT32, ACL_INT64}) {
      if (r.mask && idt == ACL_INT64) continue;  // one mask layout
      const std::string it = r.mask ? "mask" : idt == ACL_INT32 ? "int32" : "int64";
      for (bool p1 : {false, true}) {
        const std::string ph = p1 ? "phase1+2" : "phase2";
        benchmark::RegisterBenchmark(
            ("maxpool_backward/" + r.id + "/" + it + "/" + ph).c_str(),
            [r, idt, p1](benchmark::State &s) { maxpool(s, r, true, idt, p1); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
    benchmark::RegisterBenchmark(
        ("maxpool_forward/" + r.id + (r.mask ? "/mask" : "/int64") + "/phase2").c_str(),
        [r](benchmark::State &s) { maxpool(s, r, false, ACL_INT64, false); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const AdaptiveRow &r : kAdaptive)
    for (bool backward : {true, false})
      benchmark::RegisterBenchmark(
          ((backward ? "adaptive_backward/" : "adaptive_forward/") + r.id + "/phase2").c_str(),
          [r, backward](benchmark::State &s) { adaptive(s, r, backward); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
  for (const RoiRow &w : kRoi) {
    for (bool p1 : {false, true}) {
      const std::string ph = p1 ? "phase1+2" : "phase2";
      benchmark::RegisterBenchmark(("roi_backward/" + w.id + "/" + ph).c_str(),
                                   [w, p1](benchmark::State &s) { roi(s, w, true, p1); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
    benchmark::RegisterBenchmark(("roi_forward/" + w.id + "/phase2").c_str(),
                                 [w](benchmark::State &s) { roi(s, w, false, false); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
