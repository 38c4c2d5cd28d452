// SPDX-License-Identifier: Apache-2.0
// Row conversion between the storage dtypes and float32: vectorised when the plan's ISA has AVX2
// (AVX2 + F16C: has_avx2, kAvx2 or above) or NEON (FCVTL / FCVTN: has_neon), scalar otherwise.
#pragma once

#include <cstdint>

#include "aclnn/aclnn_base.h"
#include "isa.h"

namespace poolgrad {

// dst[i] = float(src[i * stride]) for i < n. dtype: FLOAT, FLOAT16 or BF16.
void row_to_f32(Isa isa, aclDataType dtype, const void *src, int64_t stride, int64_t n, float *dst);
// dst[i * stride] = dtype(src[i]) (round to nearest even once). With nontemporal, a contiguous
// row is written with streaming stores (no read-for-ownership); call stream_fence() afterwards.
void row_from_f32(Isa isa, aclDataType dtype, const float *src, void *dst, int64_t stride,
                  int64_t n, bool nontemporal);
// dst[i * stride] = src[i] as INT32 or INT64 indices, with streaming stores as row_from_f32.
void index_row_out(Isa isa, aclDataType idt, const int64_t *src, void *dst, int64_t stride,
                   int64_t n, bool nontemporal);
// dst[i * stride] = src[i] for 16-bit values already in the destination's dtype (bits copied),
// with streaming stores as row_from_f32.
void row_copy16(Isa isa, const uint16_t *src, void *dst, int64_t stride, int64_t n,
                bool nontemporal);
// n float32 values and their n indices (INT32 or INT64) written with streaming stores, a vector of
// values and its indices in turn: one output position's channels as the kernel leaves them. On x86
// (AVX2) n a multiple of 8, out and iout 32-byte aligned; plain stores elsewhere.
void stream_values_indices(aclDataType idt, const float *vals, const int64_t *idx, float *out,
                           void *iout, int64_t n);
void stream_fence();
// Outputs at least this large are written with streaming stores (they would not stay in cache).
constexpr int64_t kStreamMinBytes = int64_t(8) << 20;
// A backward's gradInput planes (volumes) of at least this many bytes are written out with
// streaming stores; smaller ones are cheaper through the cache. Measured on the 2-D backward:
// 14x14 float32 planes (784 bytes) 25% faster with plain stores; 40x40 ones (6400 bytes, the
// cbam-global adaptive backward, 52 MB) 2-2.8x faster streamed (1 thread 2.75 -> 1.38 ms, 2
// threads 1.97 -> 0.71 ms); 128x128 ones 25% faster streamed.
constexpr int64_t kPlaneStreamMinBytes = 4096;

}  // namespace poolgrad

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

namespace poolgrad {

// 8 consecutive values of dtype D (FLOAT, FLOAT16 or BF16) as float32: row_to_f32's vector step,
// for kernels that convert as they load.
template <aclDataType D>
__attribute__((target("avx2,f16c"))) inline __m256 load8_f32(const void *src) {
  const __m128i *const h = static_cast<const __m128i *>(src);
  if (D == ACL_FLOAT16) return _mm256_cvtph_ps(_mm_loadu_si128(h));
  if (D == ACL_BF16)  // bfloat16 is the top half of a float32
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(h)), 16));
  return _mm256_loadu_ps(static_cast<const float *>(src));
}

}  // namespace poolgrad
#endif
