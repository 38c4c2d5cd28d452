// Row conversion between the storage dtypes and float32, vectorised (AVX2 + F16C) where the CPU
// has it, with a scalar fallback. The variant is chosen once, at first use.
#pragma once

#include <cstdint>

#include "aclnn/aclnn_base.h"

namespace poolgrad {

// dst[i] = float(src[i * stride]) for i < n. dtype: FLOAT, FLOAT16 or BF16.
void row_to_f32(aclDataType dtype, const void *src, int64_t stride, int64_t n, float *dst);
// dst[i * stride] = dtype(src[i]) (round to nearest even once). With nontemporal, a contiguous
// row is written with streaming stores (no read-for-ownership); call stream_fence() afterwards.
void row_from_f32(aclDataType dtype, const float *src, void *dst, int64_t stride, int64_t n,
                  bool nontemporal);
void stream_fence();
bool cpu_has_avx2();

}  // namespace poolgrad

namespace poolgrad {

// Scatter-add of n values into plane[0, hw) (plane must have one spare slot at plane[hw]):
// plane[idx[k]] += val[k] in k order, exactly as the plain loop, for idx in [0, hw); -1 is
// skipped. Runs of equal targets are summed in a register and the selection is branch-free, so
// neither repeated targets (a chain through memory) nor unpredictable data slow it down.
// Returns the position of the first index outside {-1} U [0, hw), or -1.
template <class I>
inline int64_t scatter_add(float *plane, int64_t hw, const I *idx, int64_t istride,
                           const float *val, int64_t n) {
  int64_t bad = -1;
  int64_t prev = -2;
  float acc = 0.0f;
  static const float kZero = 0.0f;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t a = static_cast<int64_t>(idx[k * istride]);
    const bool ok = static_cast<uint64_t>(a) < static_cast<uint64_t>(hw);
    if (__builtin_expect(!ok && a != -1 && bad < 0, 0)) bad = k;
    const int64_t t = ok ? a : hw;  // invalid entries go to the spare slot
    const bool same = t == prev;
    // Load from the target only when it differs from the previous one, so that a run does
    // not wait for its own store.
    const float loaded = *(same ? &kZero : plane + t);
    uint32_t lb, ab;
    __builtin_memcpy(&lb, &loaded, 4);
    __builtin_memcpy(&ab, &acc, 4);
    const uint32_t m = 0u - static_cast<uint32_t>(same);
    const uint32_t bb = (ab & m) | (lb & ~m);
    float base;
    __builtin_memcpy(&base, &bb, 4);
    acc = base + val[k];
    plane[t] = acc;
    prev = t;
  }
  return bad;
}

}  // namespace poolgrad
