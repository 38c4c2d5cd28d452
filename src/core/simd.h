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

