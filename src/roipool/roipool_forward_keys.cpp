// SPDX-License-Identifier: Apache-2.0
// The float16 RoI forward's key-domain scan (roipool_forward_keys.h).
#include "roipool_forward_keys.h"

#include <cstdlib>

#include "../core/keys16.h"

namespace poolgrad {

using namespace roi_detail;

#if defined(__x86_64__) || defined(__i386__)
#define POOLGRAD_AVX2 __attribute__((target("avx2,f16c")))

bool roi_keys_apply(const RoiParams &p, const Strided4 &x, int64_t max_extent) {
  return has_avx2(p.isa) && p.dtype == ACL_FLOAT16 && x.sw == 1 && max_extent <= 255 &&
         p.h * p.w < 0xFFFF;
}

namespace {

using namespace keys16;

// Keys with every NaN's replaced by the lowest key (below -inf's: it never wins); `zeros` collects
// the -0.0 lanes.
POOLGRAD_AVX2 inline __m256i scan_keys(__m256i x, __m256i nan_above, __m256i &zeros) {
  zeros = _mm256_or_si256(zeros, negative_zeros(x));
  return _mm256_blendv_epi8(to_keys(x), _mm256_set1_epi16(INT16_MIN), nans(x, nan_above));
}

// 8 pixels of 16 channels: in[l] holds channel l's pixels in its low half and channel l + 8's in
// its high half; out[k] is pixel k's 16 channels. Three rounds of interleaving, each within the
// 128-bit halves.
POOLGRAD_AVX2 inline void transpose16(const __m256i in[8], __m256i out[8]) {
  __m256i t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_epi16(in[2 * i], in[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_epi16(in[2 * i], in[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {  // channels 4i .. 4i+3 (and + 8)
    u[4 * i] = _mm256_unpacklo_epi32(t[4 * i], t[4 * i + 2]);
    u[4 * i + 1] = _mm256_unpackhi_epi32(t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = _mm256_unpacklo_epi32(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm256_unpackhi_epi32(t[4 * i + 1], t[4 * i + 3]);
  }
  for (int k = 0; k < 4; ++k) {
    out[2 * k] = _mm256_unpacklo_epi64(u[k], u[k + 4]);
    out[2 * k + 1] = _mm256_unpackhi_epi64(u[k], u[k + 4]);
  }
}

}  // namespace

POOLGRAD_AVX2 bool roi_gather_keys(const RoiParams &p, const Strided4 &x, int64_t b, int64_t c0,
                                   int16_t *khwc) {
  const __m256i nan = _mm256_set1_epi16(nan_above(p.dtype));
  __m256i zeros = _mm256_setzero_si256();
  const int16_t nan_mag = nan_above(p.dtype);  // magnitudes above it are NaN
  bool zero_seen = false;
  for (int64_t h = 0; h < p.h; ++h) {
    const uint16_t *src[16];
    for (int l = 0; l < 16; ++l)
      src[l] = reinterpret_cast<const uint16_t *>(elem(x, 2, b, c0 + l, h, 0));
    int16_t *const d = khwc + h * p.w * 16;
    int64_t w = 0;
    for (; w + 8 <= p.w; w += 8) {
      __m256i in[8], out[8];
      for (int l = 0; l < 8; ++l)
        in[l] = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i *>(src[l] + w))),
            _mm_loadu_si128(reinterpret_cast<const __m128i *>(src[l + 8] + w)), 1);
      transpose16(in, out);
      for (int k = 0; k < 8; ++k)
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(d + (w + k) * 16),
                            scan_keys(out[k], nan, zeros));
    }
    for (; w < p.w; ++w)  // the row's last W % 8 pixels one value at a time
      for (int l = 0; l < 16; ++l) {
        const uint16_t v = src[l][w];
        const int16_t mag = static_cast<int16_t>(v & 0x7FFF);
        zero_seen |= v == 0x8000;
        d[w * 16 + l] = mag > nan_mag ? INT16_MIN : (v & 0x8000) ? static_cast<int16_t>(-mag) : mag;
      }
  }
  return !zero_seen && _mm256_testz_si256(zeros, zeros);
}

POOLGRAD_AVX2 void roi_forward_keys(const RoiParams &p, const int16_t *khwc, const RoiGeom &g,
                                    int32_t *packed) {
  const __m256i minus_inf = _mm256_set1_epi16(static_cast<int16_t>(-nan_above(p.dtype)));
  const __m256i none = _mm256_set1_epi16(-1), one = _mm256_set1_epi16(1);
  const __m256i lo8 = _mm256_set1_epi16(0xFF), w16 = _mm256_set1_epi16(static_cast<int16_t>(p.w));
  // The ROI's edges and sizes in locals, as in the float scan (forward_roi_avx2): the vector
  // stores below may alias anything, so fields read through p and g are reloaded after each.
  const int64_t ph = p.ph, pw = p.pw, w = p.w;
  const int64_t *const hs = g.hs, *const he = g.he, *const ws = g.ws, *const we = g.we;
  const bool empty = g.empty;
  for (int64_t i = 0; i < ph; ++i)
    for (int64_t j = 0; j < pw; ++j) {
      __m256i *const out = reinterpret_cast<__m256i *>(packed + (i * pw + j) * 16);
      const int64_t h0 = hs[i], h1 = he[i], w0 = ws[j], w1 = we[j];
      if (empty || h1 <= h0 || w1 <= w0) {  // +0.0, no pixel
        _mm256_storeu_si256(out, _mm256_set1_epi32(static_cast<int32_t>(0xFFFF0000u)));
        _mm256_storeu_si256(out + 1, _mm256_set1_epi32(static_cast<int32_t>(0xFFFF0000u)));
        continue;
      }
      __m256i best = minus_inf, bidx = none;
      for (int64_t hh = h0; hh < h1; ++hh) {
        const __m256i *px = reinterpret_cast<const __m256i *>(khwc + (hh * w + w0) * 16);
        __m256i at = _mm256_set1_epi16(static_cast<int16_t>((hh - h0) << 8));
        for (int64_t ww = w0; ww < w1; ++ww, ++px) {
          __m256i v = _mm256_loadu_si256(px);
          __asm__("" : "+x"(v));  // one load a pixel (forward_roi_avx2 says why)
          const __m256i take = _mm256_cmpgt_epi16(v, best);
          best = _mm256_max_epi16(best, v);
          bidx = _mm256_blendv_epi8(bidx, at, take);
          at = _mm256_add_epi16(at, one);
        }
      }
      // The winner's row << 8 | column to its pixel number (below 0xFFFF: roi_keys_apply), 0xFFFF
      // where none won; then each channel's value bits and pixel number side by side.
      const __m256i first = _mm256_set1_epi16(static_cast<int16_t>(h0 * w + w0));
      const __m256i pix = _mm256_or_si256(
          _mm256_add_epi16(first,
                           _mm256_add_epi16(_mm256_mullo_epi16(_mm256_srli_epi16(bidx, 8), w16),
                                            _mm256_and_si256(bidx, lo8))),
          _mm256_cmpeq_epi16(bidx, none));
      const __m256i bits = to_bits(best);
      const __m256i lo = _mm256_unpacklo_epi16(bits, pix), hi = _mm256_unpackhi_epi16(bits, pix);
      _mm256_storeu_si256(out, _mm256_permute2x128_si256(lo, hi, 0x20));
      _mm256_storeu_si256(out + 1, _mm256_permute2x128_si256(lo, hi, 0x31));
    }
}

POOLGRAD_AVX2 void roi_keys_write_run(const int32_t *packed, int64_t n, uint16_t *y, int32_t *am,
                                      bool nt) {
  const __m256i lo16 = _mm256_set1_epi32(0xFFFF);
  auto value = [](int32_t v) { return static_cast<uint16_t>(v & 0xFFFF); };
  auto pixel = [](int32_t v) {
    const int32_t q = static_cast<int32_t>(static_cast<uint32_t>(v) >> 16);
    return q == 0xFFFF ? -1 : q;
  };
  int64_t i = 0;
  if (nt)
    for (; i < n && (reinterpret_cast<uintptr_t>(y + i) & 31) != 0; ++i) y[i] = value(packed[i]);
  for (; i + 16 <= n; i += 16) {
    const __m256i a = _mm256_and_si256(
                      _mm256_loadu_si256(reinterpret_cast<const __m256i *>(packed + i)), lo16),
                  b = _mm256_and_si256(
                      _mm256_loadu_si256(reinterpret_cast<const __m256i *>(packed + i + 8)), lo16);
    const __m256i h = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
    if (nt)
      _mm256_stream_si256(reinterpret_cast<__m256i *>(y + i), h);
    else
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(y + i), h);
  }
  for (; i < n; ++i) y[i] = value(packed[i]);
  i = 0;
  if (nt)
    for (; i < n && (reinterpret_cast<uintptr_t>(am + i) & 31) != 0; ++i) am[i] = pixel(packed[i]);
  for (; i + 8 <= n; i += 8) {
    const __m256i q =
        _mm256_srli_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(packed + i)), 16);
    const __m256i a = _mm256_or_si256(q, _mm256_cmpeq_epi32(q, lo16));
    if (nt)
      _mm256_stream_si256(reinterpret_cast<__m256i *>(am + i), a);
    else
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(am + i), a);
  }
  for (; i < n; ++i) am[i] = pixel(packed[i]);
}
#else
// Other machines have no key scan: roi_keys_apply is false, and nothing below is reached.
bool roi_keys_apply(const RoiParams &, const Strided4 &, int64_t) {
  return false;
}
bool roi_gather_keys(const RoiParams &, const Strided4 &, int64_t, int64_t, int16_t *) {
  std::abort();
}
void roi_forward_keys(const RoiParams &, const int16_t *, const RoiGeom &, int32_t *) {
  std::abort();
}
void roi_keys_write_run(const int32_t *, int64_t, uint16_t *, int32_t *, bool) {
  std::abort();
}
#endif

}  // namespace poolgrad
