// SPDX-License-Identifier: Apache-2.0
// Determinism across ISAs and architectures (issue 39): a fixed case set of every operator family
// (inputs from a fixed generator, with ties), each output hashed (FNV-1a over its bytes), at 1 and
// 3 threads (which must agree), compared with tests/checksums.txt, the figures computed on x86-64.
// ctest runs it under every x86 capability level; scripts/test-aarch64.sh runs it under
// qemu-aarch64. With --print it prints the figures instead (to regenerate the file).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_adaptive_max_pool2d_backward.h"
#include "aclnnop/aclnn_adaptive_max_pool3d.h"
#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "aclnnop/aclnn_roi_align.h"
#include "aclnnop/aclnn_roi_align_v2.h"
#include "aclnnop/aclnn_roi_align_v2_backward.h"
#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "poolgrad/poolgrad.h"

namespace {

uint32_t g_state = 12345;
uint32_t next() {
  return g_state = g_state * 1664525u + 1013904223u;
}

// A dense tensor over its own bytes; float data written as small halves (ties on purpose).
struct T {
  std::vector<int64_t> dims;
  aclDataType dt;
  std::vector<unsigned char> bytes;
  aclTensor *t = nullptr;
  T(std::vector<int64_t> d, aclDataType type, aclFormat f = ACL_FORMAT_NCHW) : dims(d), dt(type) {
    int64_t n = 1;
    for (int64_t x : dims) n *= x;
    bytes.assign(static_cast<size_t>(n) * aclDataTypeSize(dt), 0);
    std::vector<int64_t> st(dims.size(), 1);
    for (size_t i = dims.size() - 1; i > 0; --i) st[i - 1] = st[i] * dims[i];
    t = aclCreateTensor(dims.data(), dims.size(), dt, st.data(), 0, f, &n, 1, bytes.data());
  }
  ~T() { aclDestroyTensor(t); }
  int64_t numel() const { return static_cast<int64_t>(bytes.size() / aclDataTypeSize(dt)); }
  void set(int64_t i, float v) {
    if (dt == ACL_FLOAT) {
      std::memcpy(&bytes[i * 4], &v, 4);
    } else if (dt == ACL_FLOAT16) {
      const uint16_t h = aclFloatToFloat16(v);
      std::memcpy(&bytes[i * 2], &h, 2);
    } else {  // BF16: the values used are exact in bfloat16
      uint32_t u;
      std::memcpy(&u, &v, 4);
      const uint16_t h = static_cast<uint16_t>(u >> 16);
      std::memcpy(&bytes[i * 2], &h, 2);
    }
  }
  void fill() {
    for (int64_t i = 0; i < numel(); ++i)
      set(i, static_cast<float>(static_cast<int>(next() % 17) - 8) / 2);
  }
  uint64_t hash() const {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char b : bytes) h = (h ^ b) * 1099511628211ull;
    return h;
  }
};

std::vector<char> g_ws(64 << 20);

template <class P1, class P2>
void call(const char *name, P1 phase1, P2 phase2) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  if (phase1(&ws, &ex) != ACLNN_SUCCESS || phase2(g_ws.data(), ws, ex, nullptr) != ACLNN_SUCCESS) {
    std::printf("%s: call failed: %s\n", name, aclGetRecentErrMsg());
    std::exit(2);
  }
}

using Results = std::map<std::string, uint64_t>;

void record(Results &r, const std::string &name, std::initializer_list<const T *> outs) {
  uint64_t h = 1469598103934665603ull;
  for (const T *t : outs) h = (h ^ t->hash()) * 1099511628211ull;
  r[name] = h;
}

// Every case, at the current thread count.
Results run_cases() {
  Results r;
  g_state = 12345;
  int64_t k3 = 3, s2 = 2, p1 = 1, one = 1, k2 = 2, z = 0;
  aclIntArray *K3 = aclCreateIntArray(&k3, 1), *S2 = aclCreateIntArray(&s2, 1),
              *P1 = aclCreateIntArray(&p1, 1), *D1 = aclCreateIntArray(&one, 1),
              *K2 = aclCreateIntArray(&k2, 1), *P0 = aclCreateIntArray(&z, 1);
  // Max pool 2-D: NCHW float32 k3 s2 p1, NHWC float32, NCHW float16 and bfloat16 k2 s2.
  // The rows they reach (with AVX2 / AVX-512): the 3x3 plane gather (18 x 18), channels-last,
  // the 2x2 plane gather (INT32 indices, 16+ output columns), the plane scatter.
  struct Mp {
    const char *name;
    aclDataType dt, idt;
    aclFormat f;
    aclIntArray *k, *p;
    std::vector<int64_t> in, out;
  };
  const Mp mps[] = {
      {"maxpool2d-nchw-f32",
       ACL_FLOAT,
       ACL_INT64,
       ACL_FORMAT_NCHW,
       K3,
       P1,
       {2, 3, 18, 18},
       {2, 3, 9, 9}},
      {"maxpool2d-nchw-f32-odd",
       ACL_FLOAT,
       ACL_INT64,
       ACL_FORMAT_NCHW,
       K3,
       P1,
       {2, 3, 17, 17},
       {2, 3, 9, 9}},
      {"maxpool2d-nhwc-f32",
       ACL_FLOAT,
       ACL_INT64,
       ACL_FORMAT_NHWC,
       K3,
       P1,
       {2, 17, 17, 16},
       {2, 9, 9, 16}},
      {"maxpool2d-nchw-f16",
       ACL_FLOAT16,
       ACL_INT32,
       ACL_FORMAT_NCHW,
       K2,
       P0,
       {2, 3, 32, 40},
       {2, 3, 16, 20}},
      {"maxpool2d-nchw-bf16",
       ACL_BF16,
       ACL_INT64,
       ACL_FORMAT_NCHW,
       K2,
       P0,
       {1, 4, 24, 24},
       {1, 4, 12, 12}},
  };
  for (const Mp &m : mps) {
    T x(m.in, m.dt, m.f), y(m.out, m.dt, m.f), i(m.out, m.idt, m.f), gy(m.out, m.dt, m.f),
        gx(m.in, m.dt, m.f);
    x.fill();
    gy.fill();
    call(
        m.name,
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t, m.k, S2, m.p, D1, false, y.t, i.t,
                                                           w, e);
        },
        aclnnMaxPool2dWithIndices);
    call(
        m.name,
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t, x.t, i.t, m.k, S2, m.p, D1,
                                                                   false, gx.t, w, e);
        },
        aclnnMaxPool2dWithIndicesBackward);
    record(r, m.name, {&y, &i, &gx});
  }
  // 3-D max pool, float32 and bfloat16, and the adaptive 2-D and 3-D pairs.
  for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
    const std::string name = dt == ACL_FLOAT ? "maxpool3d-f32" : "maxpool3d-bf16";
    T x({1, 3, 7, 8, 9}, dt, ACL_FORMAT_NCDHW), y({1, 3, 4, 4, 5}, dt, ACL_FORMAT_NCDHW),
        i({1, 3, 4, 4, 5}, ACL_INT32, ACL_FORMAT_NCDHW), gy({1, 3, 4, 4, 5}, dt, ACL_FORMAT_NCDHW),
        gx({1, 3, 7, 8, 9}, dt, ACL_FORMAT_NCDHW);
    x.fill();
    gy.fill();
    call(
        name.c_str(),
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x.t, K3, S2, P1, D1, false, y.t, i.t, w,
                                                          e);
        },
        aclnnMaxPool3dWithArgmax);
    call(
        name.c_str(),
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(gy.t, x.t, i.t, K3, S2, P1, D1,
                                                                  false, gx.t, w, e);
        },
        aclnnMaxPool3dWithArgmaxBackward);
    record(r, name, {&y, &i, &gx});
  }
  {
    int64_t os[] = {4, 5};
    aclIntArray *O = aclCreateIntArray(os, 2);
    T x({2, 3, 11, 13}, ACL_FLOAT), y({2, 3, 4, 5}, ACL_FLOAT), i({2, 3, 4, 5}, ACL_INT64),
        gy({2, 3, 4, 5}, ACL_FLOAT), gx({2, 3, 11, 13}, ACL_FLOAT);
    x.fill();
    gy.fill();
    call(
        "adaptive2d",
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnAdaptiveMaxPool2dGetWorkspaceSize(x.t, O, y.t, i.t, w, e);
        },
        aclnnAdaptiveMaxPool2d);
    call(
        "adaptive2d",
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(gy.t, x.t, i.t, gx.t, w, e);
        },
        aclnnAdaptiveMaxPool2dBackward);
    record(r, "adaptive2d-f32", {&y, &i, &gx});
    aclDestroyIntArray(O);
  }
  {
    int64_t os[] = {3, 4, 5};
    aclIntArray *O = aclCreateIntArray(os, 3);
    T x({1, 2, 7, 9, 11}, ACL_FLOAT, ACL_FORMAT_NCDHW),
        y({1, 2, 3, 4, 5}, ACL_FLOAT, ACL_FORMAT_NCDHW),
        i({1, 2, 3, 4, 5}, ACL_INT64, ACL_FORMAT_NCDHW),
        gy({1, 2, 3, 4, 5}, ACL_FLOAT, ACL_FORMAT_NCDHW),
        gx({1, 2, 7, 9, 11}, ACL_FLOAT, ACL_FORMAT_NCDHW);
    x.fill();
    gy.fill();
    call(
        "adaptive3d",
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnAdaptiveMaxPool3dGetWorkspaceSize(x.t, O, y.t, i.t, w, e);
        },
        aclnnAdaptiveMaxPool3d);
    call(
        "adaptive3d",
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gy.t, x.t, i.t, gx.t, w, e);
        },
        aclnnAdaptiveMaxPool3dBackward);
    record(r, "adaptive3d-f32", {&y, &i, &gx});
    aclDestroyIntArray(O);
  }
  // RoI pooling, float32 and float16: boxes inside a 2 x 16 x 20 x 24 map, some overlapping.
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    const std::string name = dt == ACL_FLOAT ? "roi-f32" : "roi-f16";
    const int64_t R = 7;
    T x({2, 16, 20, 24}, dt, ACL_FORMAT_ND), rois({R, 5}, dt, ACL_FORMAT_ND),
        y({R, 16, 3, 3}, dt, ACL_FORMAT_ND), a({R, 16, 3, 3}, ACL_INT32, ACL_FORMAT_ND),
        gy({R, 16, 3, 3}, dt, ACL_FORMAT_ND), gx({2, 16, 20, 24}, dt, ACL_FORMAT_ND);
    x.fill();
    gy.fill();
    for (int64_t r = 0; r < R; ++r) {
      const float x1 = static_cast<float>(next() % 12), y1 = static_cast<float>(next() % 10);
      const float v[5] = {static_cast<float>(r % 2), x1, y1,
                          x1 + 3 + static_cast<float>(next() % 10),
                          y1 + 2 + static_cast<float>(next() % 8)};
      for (int j = 0; j < 5; ++j) rois.set(r * 5 + j, v[j]);
    }
    call(
        name.c_str(),
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnRoiPoolingWithArgMaxGetWorkspaceSize(x.t, rois.t, 3, 3, 1.0f, 1.0f, y.t, a.t,
                                                           w, e);
        },
        aclnnRoiPoolingWithArgMax);
    call(
        name.c_str(),
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t, gx.t, rois.t, a.t, 3, 3, 1.0,
                                                               w, e);
        },
        aclnnRoiPoolingGradWithArgMax);
    record(r, name, {&y, &a, &gx});
  }
  // RoIAlign: V2 forward (float32 adaptive and sampling 2, float16) and backward, ONNX max;
  // fractional boxes, some past the map's edge.
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    const std::string name = dt == ACL_FLOAT ? "roialign-f32" : "roialign-f16";
    const int64_t K = 9;
    T x({2, 19, 20, 24}, dt), boxes({K, 5}, dt, ACL_FORMAT_ND), y({K, 19, 4, 3}, dt),
        y0({K, 19, 4, 3}, dt), gy({K, 19, 4, 3}, ACL_FLOAT), gx({2, 19, 20, 24}, ACL_FLOAT),
        rois({K, 4}, dt, ACL_FORMAT_ND), bi({K}, ACL_INT32, ACL_FORMAT_ND), ym({K, 19, 4, 3}, dt);
    x.fill();
    gy.fill();
    for (int64_t k = 0; k < K; ++k) {
      const float x1 = static_cast<float>(next() % 40) * 0.375f - 3.0f,
                  y1 = static_cast<float>(next() % 32) * 0.5f - 2.0f;
      const float v[5] = {static_cast<float>(k % 2), x1, y1,
                          x1 + static_cast<float>(next() % 24) * 0.625f,
                          y1 + static_cast<float>(next() % 20) * 0.75f};
      for (int j = 0; j < 5; ++j) boxes.set(k * 5 + j, v[j]);
      for (int j = 0; j < 4; ++j) rois.set(k * 4 + j, v[j + 1]);
      const int32_t b = static_cast<int32_t>(k % 2);
      std::memcpy(&bi.bytes[k * 4], &b, 4);
    }
    call(
        name.c_str(),
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnRoiAlignV2GetWorkspaceSize(x.t, boxes.t, 4, 3, 0.5f, 2, true, y.t, w, e);
        },
        aclnnRoiAlignV2);
    call(
        name.c_str(),
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnRoiAlignV2GetWorkspaceSize(x.t, boxes.t, 4, 3, 0.5f, 0, false, y0.t, w, e);
        },
        aclnnRoiAlignV2);
    call(
        name.c_str(),
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnRoiAlignGetWorkspaceSize(x.t, rois.t, bi.t, "max", 4, 3, 2, 0.5f, ym.t, w, e);
        },
        aclnnRoiAlign);
    if (dt == ACL_FLOAT) {
      aclIntArray *shape = aclCreateIntArray(std::vector<int64_t>{2, 19, 20, 24}.data(), 4);
      call(
          name.c_str(),
          [&](uint64_t *w, aclOpExecutor **e) {
            return aclnnRoiAlignV2BackwardGetWorkspaceSize(gy.t, boxes.t, shape, 4, 3, 0.5f, 2,
                                                           true, gx.t, w, e);
          },
          aclnnRoiAlignV2Backward);
      aclDestroyIntArray(shape);
      record(r, name, {&y, &y0, &ym, &gx});
    } else {
      record(r, name, {&y, &y0, &ym});
    }
  }
  aclDestroyIntArray(K3);
  aclDestroyIntArray(S2);
  aclDestroyIntArray(P1);
  aclDestroyIntArray(D1);
  aclDestroyIntArray(K2);
  aclDestroyIntArray(P0);
  return r;
}

}  // namespace

int main(int argc, char **argv) {
  const bool print = argc > 1 && std::strcmp(argv[1], "--print") == 0;
  poolgradSetNumThreads(1);
  const Results one = run_cases();
  poolgradSetNumThreads(3);
  const Results three = run_cases();
  int bad = 0;
  for (const auto &kv : one)
    if (three.at(kv.first) != kv.second) {
      std::printf("%s: 1 and 3 threads differ\n", kv.first.c_str());
      ++bad;
    }
  if (print) {
    for (const auto &kv : one)
      std::printf("%s %016llx\n", kv.first.c_str(), static_cast<unsigned long long>(kv.second));
    return bad;
  }
  if (argc < 2) {
    std::printf("usage: checksum_probe EXPECTED_FILE | --print\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::string name, hex;
  int compared = 0;
  while (in >> name >> hex) {
    const auto it = one.find(name);
    const unsigned long long want = std::strtoull(hex.c_str(), nullptr, 16);
    if (it == one.end()) {
      std::printf("%s: no such case\n", name.c_str());
      ++bad;
    } else if (it->second != want) {
      std::printf("%s: %016llx, expected %016llx\n", name.c_str(),
                  static_cast<unsigned long long>(it->second), want);
      ++bad;
    }
    ++compared;
  }
  if (compared != static_cast<int>(one.size())) {
    std::printf("%d cases in the file, %zu computed\n", compared, one.size());
    ++bad;
  }
  std::printf(
      "%d cases compared with %s (capability %s): %s\n", compared, argv[1],
      std::getenv("POOLGRAD_CPU_CAPABILITY") ? std::getenv("POOLGRAD_CPU_CAPABILITY") : "best",
      bad ? "DIFFERENT" : "identical");
  return bad ? 1 : 0;
}
