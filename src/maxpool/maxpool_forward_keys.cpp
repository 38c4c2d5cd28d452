// SPDX-License-Identifier: Apache-2.0
// The 16-bit max-pool forward's key-domain scan (forward_keys.h).
#include "maxpool_forward_keys.h"

#include <cstdlib>
#include <cstring>

#include "../core/keys16.h"

namespace poolgrad {

#if defined(__x86_64__) || defined(__i386__)
bool keys_apply(aclDataType dtype, int64_t col_stride, int64_t sw, int64_t rel_max) {
  return (dtype == ACL_BF16 || dtype == ACL_FLOAT16) && col_stride == 1 && (sw == 1 || sw == 2) &&
         rel_max < 65536;
}

#define POOLGRAD_AVX2 __attribute__((target("avx2,f16c")))

namespace {

using namespace keys16;

// Lanes holding a NaN (which the scan's strict compare would not let win) or a -0.0 (whose key
// would come back as +0.0).
POOLGRAD_AVX2 inline __m256i refused(__m256i x, __m256i nan_above) {
  return _mm256_or_si256(nans(x, nan_above), negative_zeros(x));
}

POOLGRAD_AVX2 inline uint16_t key_to_bits(int16_t key) {
  return static_cast<uint16_t>(key < 0 ? (-key) | 0x8000 : key);
}

// 16 columns' keys as [the 8 even columns | the 8 odd columns].
POOLGRAD_AVX2 inline __m256i even_odd(__m256i k) {
  const __m256i within = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15, 0,
                                          1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
  return _mm256_permute4x64_epi64(_mm256_shuffle_epi8(k, within), 0xD8);
}

// Columns j .. j+31 of a row at stride 2, loaded as a and b, stored as keys: 16 of each phase.
// Returns the refused lanes.
POOLGRAD_AVX2 inline __m256i split32(__m256i a, __m256i b, __m256i nan_above, int16_t *dst,
                                     int64_t phase_stride, int64_t j) {
  const __m256i ka = even_odd(to_keys(a)), kb = even_odd(to_keys(b));
  _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + j / 2),
                      _mm256_permute2x128_si256(ka, kb, 0x20));
  _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + phase_stride + j / 2),
                      _mm256_permute2x128_si256(ka, kb, 0x31));
  return _mm256_or_si256(refused(a, nan_above), refused(b, nan_above));
}

// Columns j .. j+15 of a row at column stride kSw, loaded as a, stored as keys (stride 2: 8 of each
// phase). Returns the refused lanes.
template <int kSw>
POOLGRAD_AVX2 inline __m256i split16(__m256i a, __m256i nan_above, int16_t *dst,
                                     int64_t phase_stride, int64_t j) {
  if (kSw == 1) {
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + j), to_keys(a));
  } else {
    const __m256i k = even_odd(to_keys(a));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + j / 2), _mm256_castsi256_si128(k));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + phase_stride + j / 2),
                     _mm256_extracti128_si256(k, 1));
  }
  return refused(a, nan_above);
}

// Each row: 32 columns at a time (stride 2), then 16, then the last < 16 as a zero-padded block of
// 16 (its stores stay in the row's pitch, a multiple of 16). (The rest is copied to the stack
// block and reloaded: a failed store forwarding, once a row; rows whose width is a multiple of 16
// never take it.)
template <int kSw>
POOLGRAD_AVX2 bool split_plane(const uint16_t *plane, int64_t H, int64_t W, int64_t row_stride,
                               int64_t pitch, int64_t phase_stride, __m256i nan_above,
                               int16_t *keys) {
  __m256i bad = _mm256_setzero_si256();
  for (int64_t h = 0; h < H; ++h) {
    const uint16_t *const row = plane + h * row_stride;
    int16_t *const dst = keys + h * pitch;
    int64_t j = 0;
    if (kSw == 2)
      for (; j + 32 <= W; j += 32) {
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(row + j));
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(row + j + 16));
        bad = _mm256_or_si256(bad, split32(a, b, nan_above, dst, phase_stride, j));
      }
    for (; j + 16 <= W; j += 16) {
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(row + j));
      bad = _mm256_or_si256(bad, split16<kSw>(a, nan_above, dst, phase_stride, j));
    }
    if (j < W) {
      alignas(32) uint16_t rest[16] = {};
      std::memcpy(rest, row + j, static_cast<size_t>(W - j) * 2);
      const __m256i a = _mm256_load_si256(reinterpret_cast<const __m256i *>(rest));
      bad = _mm256_or_si256(bad, split16<kSw>(a, nan_above, dst, phase_stride, j));
    }
  }
  return _mm256_testz_si256(bad, bad);
}

}  // namespace

POOLGRAD_AVX2 bool key_split_plane(aclDataType dtype, const uint16_t *plane, int64_t H, int64_t W,
                                   int64_t row_stride, int64_t sw, int64_t pitch,
                                   int64_t phase_stride, int16_t *keys) {
  const __m256i nan = _mm256_set1_epi16(nan_above(dtype));
  return sw == 1 ? split_plane<1>(plane, H, W, row_stride, pitch, phase_stride, nan, keys)
                 : split_plane<2>(plane, H, W, row_stride, pitch, phase_stride, nan, keys);
}

POOLGRAD_AVX2 void key_scan_interior(const int16_t *at, const int64_t *tap_at,
                                     const uint32_t *tap_index, int64_t taps, int64_t ow,
                                     int64_t ow_hi, int64_t sw, uint32_t row_base, uint16_t *orow,
                                     int64_t *irow) {
  const __m256i step = _mm256_set1_epi32(static_cast<int32_t>(sw));
  const __m256i lane_lo = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), step);
  const __m256i lane_hi = _mm256_mullo_epi32(_mm256_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15), step);
  for (; ow < ow_hi; ow += 16) {
    __m256i best = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(at + ow + tap_at[0]));
    __m256i bidx = _mm256_set1_epi16(static_cast<int16_t>(tap_index[0]));
    for (int64_t t = 1; t < taps; ++t) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(at + ow + tap_at[t]));
      const __m256i take = _mm256_cmpgt_epi16(v, best);
      best = _mm256_max_epi16(best, v);
      bidx = _mm256_blendv_epi8(bidx, _mm256_set1_epi16(static_cast<int16_t>(tap_index[t])), take);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(orow + ow), to_bits(best));
    // Indices: the relative index (16 bits) widened, plus the block's first index and each lane's
    // column offset, in wrapping 32-bit sums (lanes past the row are discarded), then to int64.
    const __m256i first = _mm256_set1_epi32(static_cast<int32_t>(row_base + uint32_t(ow * sw)));
    const __m256i lo = _mm256_add_epi32(
        _mm256_add_epi32(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(bidx)), first), lane_lo);
    const __m256i hi = _mm256_add_epi32(
        _mm256_add_epi32(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(bidx, 1)), first), lane_hi);
    __m256i *const out = reinterpret_cast<__m256i *>(irow + ow);
    _mm256_storeu_si256(out, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(lo)));
    _mm256_storeu_si256(out + 1, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(lo, 1)));
    _mm256_storeu_si256(out + 2, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(hi)));
    _mm256_storeu_si256(out + 3, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(hi, 1)));
  }
}

POOLGRAD_AVX2 void key_scan_scalar(aclDataType dtype, const int16_t *keys, const int64_t *col_at,
                                   int64_t pitch, int64_t w, int64_t hs, int64_t m0, int64_t m1,
                                   int64_t dh, int64_t ws, int64_t q0, int64_t q1, int64_t dw,
                                   uint16_t *best_out, int64_t *idx_out) {
  if (m1 <= m0 || q1 <= q0) {
    *best_out = key_to_bits(static_cast<int16_t>(-nan_above(dtype)));  // -inf
    *idx_out = -1;
    return;
  }
  int16_t best = keys[(hs + m0 * dh) * pitch + col_at[ws + q0 * dw]];
  int64_t bi = (hs + m0 * dh) * w + ws + q0 * dw;
  for (int64_t m = m0; m < m1; ++m) {
    const int64_t ih = hs + m * dh;
    const int16_t *const row = keys + ih * pitch;
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t iw = ws + q * dw;
      const int16_t v = row[col_at[iw]];
      const bool take = v > best;
      bi = take ? ih * w + iw : bi;
      best = take ? v : best;
    }
  }
  *best_out = key_to_bits(best);
  *idx_out = bi;
}
#else
// Other machines have no key scan: keys_apply is false, and nothing below is reached.
bool keys_apply(aclDataType, int64_t, int64_t, int64_t) {
  return false;
}
bool key_split_plane(aclDataType, const uint16_t *, int64_t, int64_t, int64_t, int64_t, int64_t,
                     int64_t, int16_t *) {
  std::abort();
}
void key_scan_interior(const int16_t *, const int64_t *, const uint32_t *, int64_t, int64_t,
                       int64_t, int64_t, uint32_t, uint16_t *, int64_t *) {
  std::abort();
}
void key_scan_scalar(aclDataType, const int16_t *, const int64_t *, int64_t, int64_t, int64_t,
                     int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, uint16_t *,
                     int64_t *) {
  std::abort();
}
#endif

}  // namespace poolgrad
