// SPDX-License-Identifier: Apache-2.0
// 16-bit floats (bfloat16, float16) as order-preserving int16 keys, for window scans that compare
// 16 values with one integer compare (AVX2). A value is a sign and a magnitude; its key is the
// magnitude, negated where the sign is set: numbers keep their order, and +0.0 and -0.0 share the
// key 0 (they compare equal as floats). The key of a NaN is meaningless (callers either refuse the
// NaN or replace its key), and a key of 0 comes back as +0.0 (callers refuse -0.0 where the value
// returned must keep its sign).
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include <cstdint>

#include "aclnn/aclnn_base.h"

namespace poolgrad {
namespace keys16 {

// Magnitudes above this are NaN (exponent all ones, fraction nonzero).
inline int16_t nan_above(aclDataType dtype) {
  return dtype == ACL_BF16 ? 0x7F80 : 0x7C00;
}

__attribute__((target("avx2,f16c"))) inline __m256i to_keys(__m256i x) {
  const __m256i s = _mm256_srai_epi16(x, 15);
  return _mm256_sub_epi16(_mm256_xor_si256(_mm256_and_si256(x, _mm256_set1_epi16(0x7FFF)), s), s);
}

// Lanes holding a NaN.
__attribute__((target("avx2,f16c"))) inline __m256i nans(__m256i x, __m256i nan_above) {
  return _mm256_cmpgt_epi16(_mm256_and_si256(x, _mm256_set1_epi16(0x7FFF)), nan_above);
}

// Lanes holding a -0.0.
__attribute__((target("avx2,f16c"))) inline __m256i negative_zeros(__m256i x) {
  return _mm256_cmpeq_epi16(x, _mm256_set1_epi16(static_cast<int16_t>(0x8000)));
}

// Keys back to the values' bits (the sign is the key's).
__attribute__((target("avx2,f16c"))) inline __m256i to_bits(__m256i k) {
  const __m256i s = _mm256_srai_epi16(k, 15);
  const __m256i mag = _mm256_sub_epi16(_mm256_xor_si256(k, s), s);
  return _mm256_or_si256(mag, _mm256_and_si256(s, _mm256_set1_epi16(static_cast<int16_t>(0x8000))));
}

}  // namespace keys16
}  // namespace poolgrad
#endif
