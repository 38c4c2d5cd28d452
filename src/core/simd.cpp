// SPDX-License-Identifier: Apache-2.0
#include "simd.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define POOLGRAD_X86 1
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#define POOLGRAD_NEON 1
#endif

#include <cstdlib>
#include <cstring>

#include "dtype.h"

namespace poolgrad {

namespace {

template <class S, class F>
void scalar_in(const void *src, int64_t stride, int64_t n, float *dst, F cvt) {
  const S *s = static_cast<const S *>(src);
  for (int64_t i = 0; i < n; ++i) dst[i] = cvt(s[i * stride]);
}

#ifdef POOLGRAD_X86
__attribute__((target("avx2,f16c"))) void f16_in_avx2(const uint16_t *s, int64_t n, float *d) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(d + i, load8_f32<ACL_FLOAT16>(s + i));
  for (; i < n; ++i) d[i] = half_to_float(s[i]);
}

__attribute__((target("avx2,f16c"))) void bf16_in_avx2(const uint16_t *s, int64_t n, float *d) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(d + i, load8_f32<ACL_BF16>(s + i));
  for (; i < n; ++i) d[i] = bf16_to_float(s[i]);
}

__attribute__((target("avx2,f16c"))) void f32_out_avx2(const float *s, float *d, int64_t n,
                                                       bool nt) {
  int64_t i = 0;
  if (nt) {
    for (; i < n && (reinterpret_cast<uintptr_t>(d + i) & 31) != 0; ++i) d[i] = s[i];
    for (; i + 8 <= n; i += 8) _mm256_stream_ps(d + i, _mm256_loadu_ps(s + i));
  } else {
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(d + i, _mm256_loadu_ps(s + i));
  }
  for (; i < n; ++i) d[i] = s[i];
}

// bfloat16 bits of 8 floats known to hold no NaN, rounded to nearest even, in the low 16 bits of
// each 32-bit lane.
__attribute__((target("avx2,f16c"))) inline __m256i bf16_round8_finite(__m256 v) {
  const __m256i u = _mm256_castps_si256(v);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  return _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), lsb),
                           16);
}

// The same for any 8 floats: a NaN keeps its sign and payload and is made quiet.
__attribute__((target("avx2,f16c"))) inline __m256i bf16_round8(__m256 v) {
  const __m256i quiet =
      _mm256_or_si256(_mm256_srli_epi32(_mm256_castps_si256(v), 16), _mm256_set1_epi32(0x40));
  const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  return _mm256_blendv_epi8(bf16_round8_finite(v), quiet, nan);
}

__attribute__((target("avx2,f16c"))) inline __m128i bf16_pack8(__m256 v) {
  const __m256i r = bf16_round8(v);
  const __m256i packed = _mm256_packus_epi32(r, r);  // per 128-bit lane
  return _mm256_castsi256_si128(_mm256_permute4x64_epi64(packed, 0x08));
}

// 16 floats as 16 bfloat16 / float16 values in order. The NaN test is one unordered compare of
// the two vectors a step, and the rounding's NaN blend is taken only where it finds one: the
// bfloat16 write-out (39% of the resnet-stem backward's samples) was bound by its vector
// operations, a quarter of them that blend.
template <int kind>  // 1 half, 2 bfloat16
__attribute__((target("avx2,f16c"))) inline __m256i h_pack16(__m256 a, __m256 b) {
  if (kind == 1)
    return _mm256_set_m128i(_mm256_cvtps_ph(b, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
                            _mm256_cvtps_ph(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  const bool nan = _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_UNORD_Q)) != 0;
  const __m256i ra = nan ? bf16_round8(a) : bf16_round8_finite(a);
  const __m256i rb = nan ? bf16_round8(b) : bf16_round8_finite(b);
  return _mm256_permute4x64_epi64(_mm256_packus_epi32(ra, rb), 0xd8);
}

// One value, for a row's unaligned head and its tail: float16 by the F16C instruction (the
// software conversion was 6% of the float16 RoI forward's samples).
template <int kind>  // 1 half, 2 bfloat16
__attribute__((target("avx2,f16c"))) inline uint16_t h_one(float f) {
  return kind == 1 ? static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT))
                   : float_to_bf16(f);
}

template <int kind>  // 1 half, 2 bfloat16
__attribute__((target("avx2,f16c"))) void h_out_avx2(const float *s, uint16_t *d, int64_t n,
                                                     bool nt) {
  int64_t i = 0;
  if (nt)
    for (; i < n && (reinterpret_cast<uintptr_t>(d + i) & 31) != 0; ++i) d[i] = h_one<kind>(s[i]);
  for (; i + 16 <= n; i += 16) {
    const __m256i h = h_pack16<kind>(_mm256_loadu_ps(s + i), _mm256_loadu_ps(s + i + 8));
    if (nt)
      _mm256_stream_si256(reinterpret_cast<__m256i *>(d + i), h);
    else
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(d + i), h);
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(s + i);
    const __m128i h = kind == 1 ? _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
                                : bf16_pack8(v);
    if (nt)
      _mm_stream_si128(reinterpret_cast<__m128i *>(d + i), h);
    else
      _mm_storeu_si128(reinterpret_cast<__m128i *>(d + i), h);
  }
  for (; i < n; ++i) d[i] = h_one<kind>(s[i]);
}

// n elements copied as they are: with nt, in 32-byte streaming stores from the first aligned one.
template <class T>
__attribute__((target("avx2"))) void copy_out_avx2(const T *s, T *d, int64_t n, bool nt) {
  constexpr int64_t kStep = 32 / sizeof(T);
  int64_t i = 0;
  if (nt) {
    for (; i < n && (reinterpret_cast<uintptr_t>(d + i) & 31) != 0; ++i) d[i] = s[i];
    for (; i + kStep <= n; i += kStep)
      _mm256_stream_si256(reinterpret_cast<__m256i *>(d + i),
                          _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i)));
  }
  for (; i < n; ++i) d[i] = s[i];
}

// The low halves of the 8 int64 at s, as 8 int32 in order.
__attribute__((target("avx2"))) inline __m256i low_halves8(const int64_t *s) {
  const __m256i lows = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  const __m256i a =
      _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(s)), lows);
  const __m256i b = _mm256_permutevar8x32_epi32(
      _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + 4)), lows);
  return _mm256_permute2x128_si256(a, b, 0x20);
}

// The low halves of 8 int64 indices (they fit in 32 bits: the caller's INT32 check) as 8 int32.
__attribute__((target("avx2"))) void i32_out_avx2(const int64_t *s, int32_t *d, int64_t n,
                                                  bool nt) {
  int64_t i = 0;
  if (nt)
    for (; i < n && (reinterpret_cast<uintptr_t>(d + i) & 31) != 0; ++i)
      d[i] = static_cast<int32_t>(s[i]);
  for (; i + 8 <= n; i += 8) {
    const __m256i v = low_halves8(s + i);
    if (nt)
      _mm256_stream_si256(reinterpret_cast<__m256i *>(d + i), v);
    else
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(d + i), v);
  }
  for (; i < n; ++i) d[i] = static_cast<int32_t>(s[i]);
}

// One output position's values and indices, a vector of each in turn (stream_values_indices).
__attribute__((target("avx2"))) void stream_values_indices_avx2(aclDataType idt, const float *vals,
                                                                const int64_t *idx, float *out,
                                                                void *iout, int64_t n) {
  for (int64_t i = 0; i < n; i += 8) {
    _mm256_stream_ps(out + i, _mm256_loadu_ps(vals + i));
    if (idt == ACL_INT32) {
      _mm256_stream_si256(reinterpret_cast<__m256i *>(static_cast<int32_t *>(iout) + i),
                          low_halves8(idx + i));
    } else {
      int64_t *const d = static_cast<int64_t *>(iout) + i;
      _mm256_stream_si256(reinterpret_cast<__m256i *>(d),
                          _mm256_loadu_si256(reinterpret_cast<const __m256i *>(idx + i)));
      _mm256_stream_si256(reinterpret_cast<__m256i *>(d + 4),
                          _mm256_loadu_si256(reinterpret_cast<const __m256i *>(idx + i + 4)));
    }
  }
}

#endif  // POOLGRAD_X86

#ifdef POOLGRAD_NEON
// AArch64's Advanced SIMD conversions. FCVTL / FCVTN convert 4 float16 values an instruction with
// the bits of F16C's (round to nearest even under the default FPCR; a NaN made quiet, its payload
// kept or its top kept), so the NEON rows give the x86 rows' bits (the checksum probe's cases).
void f16_in_neon(const uint16_t *s, int64_t n, float *d) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(s + i));
    vst1q_f32(d + i, vcvt_f32_f16(vget_low_f16(h)));
    vst1q_f32(d + i + 4, vcvt_high_f32_f16(h));
  }
  for (; i < n; ++i) d[i] = half_to_float(s[i]);
}

// bfloat16 is the top half of a float32: a widening shift.
void bf16_in_neon(const uint16_t *s, int64_t n, float *d) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint16x8_t h = vld1q_u16(s + i);
    vst1q_u32(reinterpret_cast<uint32_t *>(d + i), vshll_n_u16(vget_low_u16(h), 16));
    vst1q_u32(reinterpret_cast<uint32_t *>(d + i + 4), vshll_high_n_u16(h, 16));
  }
  for (; i < n; ++i) d[i] = bf16_to_float(s[i]);
}

// 4 floats as bfloat16 bits (float_to_bf16's rounding: to nearest even; a NaN quiet, its sign and
// the top of its payload kept).
inline uint16x4_t bf16_round4(float32x4_t v) {
  const uint32x4_t u = vreinterpretq_u32_f32(v);
  const uint32x4_t lsb = vandq_u32(vshrq_n_u32(u, 16), vdupq_n_u32(1));
  const uint32x4_t rounded = vshrq_n_u32(vaddq_u32(vaddq_u32(u, vdupq_n_u32(0x7fff)), lsb), 16);
  const uint32x4_t quiet = vorrq_u32(vshrq_n_u32(u, 16), vdupq_n_u32(0x40));
  const uint32x4_t number = vceqq_f32(v, v);  // all ones where v is not NaN
  return vmovn_u32(vbslq_u32(number, rounded, quiet));
}

template <int kind>  // 1 half, 2 bfloat16
void h_out_neon(const float *s, uint16_t *d, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const float32x4_t a = vld1q_f32(s + i), b = vld1q_f32(s + i + 4);
    if (kind == 1)
      vst1q_u16(d + i, vreinterpretq_u16_f16(vcvt_high_f16_f32(vcvt_f16_f32(a), b)));
    else
      vst1q_u16(d + i, vcombine_u16(bf16_round4(a), bf16_round4(b)));
  }
  for (; i < n; ++i) d[i] = kind == 1 ? float_to_half(s[i]) : float_to_bf16(s[i]);
}
#endif  // POOLGRAD_NEON

}  // namespace

void index_row_out([[maybe_unused]] Isa isa, aclDataType idt, const int64_t *src, void *dst,
                   int64_t stride, int64_t n, [[maybe_unused]] bool nontemporal) {
  if (n <= 0) return;
  if (idt == ACL_INT32) {
    int32_t *d = static_cast<int32_t *>(dst);
#ifdef POOLGRAD_X86
    if (stride == 1 && has_avx2(isa)) return i32_out_avx2(src, d, n, nontemporal);
#endif
    for (int64_t i = 0; i < n; ++i) d[i * stride] = static_cast<int32_t>(src[i]);
    return;
  }
  int64_t *d = static_cast<int64_t *>(dst);
#ifdef POOLGRAD_X86
  if (stride == 1 && has_avx2(isa)) return copy_out_avx2(src, d, n, nontemporal);
#endif
  if (stride == 1)
    std::memcpy(d, src, static_cast<size_t>(n) * 8);
  else
    for (int64_t i = 0; i < n; ++i) d[i * stride] = src[i];
}

void stream_values_indices(aclDataType idt, const float *vals, const int64_t *idx, float *out,
                           void *iout, int64_t n) {
#ifdef POOLGRAD_X86
  stream_values_indices_avx2(idt, vals, idx, out, iout, n);
#else
  std::memcpy(out, vals, static_cast<size_t>(n) * 4);
  index_row_out(Isa::kPortable, idt, idx, iout, 1, n, false);
#endif
}

void row_to_f32([[maybe_unused]] Isa isa, aclDataType dtype, const void *src, int64_t stride,
                int64_t n, float *dst) {
  if (n <= 0) return;
  if (dtype == ACL_FLOAT) {
    if (stride == 1)
      std::memcpy(dst, src, static_cast<size_t>(n) * 4);
    else
      scalar_in<float>(src, stride, n, dst, [](float f) { return f; });
  } else if (dtype == ACL_FLOAT16) {
#ifdef POOLGRAD_X86
    if (stride == 1 && has_avx2(isa))
      return f16_in_avx2(static_cast<const uint16_t *>(src), n, dst);
#endif
#ifdef POOLGRAD_NEON
    if (stride == 1 && has_neon(isa))
      return f16_in_neon(static_cast<const uint16_t *>(src), n, dst);
#endif
    scalar_in<uint16_t>(src, stride, n, dst, half_to_float);
  } else {
#ifdef POOLGRAD_X86
    if (stride == 1 && has_avx2(isa))
      return bf16_in_avx2(static_cast<const uint16_t *>(src), n, dst);
#endif
#ifdef POOLGRAD_NEON
    if (stride == 1 && has_neon(isa))
      return bf16_in_neon(static_cast<const uint16_t *>(src), n, dst);
#endif
    scalar_in<uint16_t>(src, stride, n, dst, bf16_to_float);
  }
}

void row_from_f32([[maybe_unused]] Isa isa, aclDataType dtype, const float *src, void *dst,
                  int64_t stride, int64_t n, [[maybe_unused]] bool nontemporal) {
  if (n <= 0) return;
  if (dtype == ACL_FLOAT) {
    float *d = static_cast<float *>(dst);
#ifdef POOLGRAD_X86
    if (stride == 1 && has_avx2(isa)) return f32_out_avx2(src, d, n, nontemporal);
#endif
    for (int64_t i = 0; i < n; ++i) d[i * stride] = src[i];
    return;
  }
  uint16_t *d = static_cast<uint16_t *>(dst);
#ifdef POOLGRAD_X86
  if (stride == 1 && has_avx2(isa)) {
    if (dtype == ACL_FLOAT16)
      h_out_avx2<1>(src, d, n, nontemporal);
    else
      h_out_avx2<2>(src, d, n, nontemporal);
    return;
  }
#endif
#ifdef POOLGRAD_NEON
  if (stride == 1 && has_neon(isa)) {
    if (dtype == ACL_FLOAT16)
      h_out_neon<1>(src, d, n);
    else
      h_out_neon<2>(src, d, n);
    return;
  }
#endif
  if (dtype == ACL_FLOAT16)
    for (int64_t i = 0; i < n; ++i) d[i * stride] = float_to_half(src[i]);
  else
    for (int64_t i = 0; i < n; ++i) d[i * stride] = float_to_bf16(src[i]);
}

void row_copy16([[maybe_unused]] Isa isa, const uint16_t *src, void *dst, int64_t stride, int64_t n,
                [[maybe_unused]] bool nontemporal) {
  if (n <= 0) return;
  uint16_t *d = static_cast<uint16_t *>(dst);
#ifdef POOLGRAD_X86
  if (stride == 1 && nontemporal && has_avx2(isa)) return copy_out_avx2(src, d, n, true);
#endif
  if (stride == 1)
    std::memcpy(d, src, static_cast<size_t>(n) * 2);
  else
    for (int64_t i = 0; i < n; ++i) d[i * stride] = src[i];
}

void stream_fence() {
#ifdef POOLGRAD_X86
  _mm_sfence();
#endif
}

}  // namespace poolgrad
