// SPDX-License-Identifier: Apache-2.0
// Max-pool 2-D backward: a write-only gather of a plane for 3x3 windows at stride 2 with padding 1
// (the ResNet stem), AVX-512.
//
// With H = 2*ho and W = 2*wo, input row 2*oh has one owner row of windows, oh (tap row 1), and row
// 2*oh+1 two, oh (tap row 2) then oh+1 (tap row 0); likewise for columns. So output row oh's 16
// windows a step give, per tap row, the even columns of 32 input pixels (tap column 1) and the odd
// ones (tap column 2 of window ow, then tap column 0 of window ow+1, read as the row shifted by
// one). Row 2*oh is then final, row 2*oh-1 is final once oh's tap row 0 is added to the partial
// sums that oh-1's tap row 2 left, and row 2*oh+1 is left partial. Each pixel's sum is formed as
// the scatter forms it: from +0.0, its owners' gradients added in (oh, ow) order where the owner's
// index names it (masked adds: the sum starts at +0.0 and so is never -0.0, and skipping an add of
// +0.0 leaves the same bits). That equals the scatter exactly when every index other than -1 is
// one of its window's taps inside the image (the tap test below); otherwise the caller scatters
// the plane instead (an index outside its window, or a bad one, which the scatter reports).
//
// Against the scatter (zero the float accumulator, a read-modify-write per output, a rounding pass
// over the accumulator) this writes each pixel once, already rounded to the dtype, into a ring of
// 4 rows in L1, streamed out two rows at a time. ResNet stem backward at 2 threads: bfloat16 4.7
// -> 3.2 ms, float32 5.3 -> 3.8 ms (docs/profiles.md, stop 32).
#include <cstring>

#include "maxpool_common.h"

#if defined(__x86_64__) || defined(__i386__)
// GCC 12's AVX-512 intrinsics build their "undefined" source vectors as a self-initialised
// variable, which -Wall reports as maybe-uninitialised wherever they are inlined.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#endif

namespace poolgrad {
namespace maxpool_detail {

namespace {

// The gather's scratch, on a cache line (the arena's, as phase 2 aligns the workspace): row
// 2*oh+1's even and odd columns, partial (wo floats each, each from a 64-byte boundary), then a
// ring of 4 input rows in the dtype, written out in pairs (2q, 2q+1). Rows follow each other where
// a row is a multiple of 32 bytes (ResNet stem: 224), so that a pair is whole lines; otherwise each
// starts on a line. Either way no 32-byte half of a vector store crosses a page: on this AMD CPU
// such a split store is very slow, and the ring is stored to every row (bf16 at 1 thread: 7-8 ms,
// but 13-22 ms with the scratch 16 bytes off a 32-byte boundary and the ring across a page end;
// stop 32).
struct Gather3Layout {
  int64_t half, row, bytes;  // partial columns' stride, ring row stride, total (bytes)
  bool contiguous;           // rows follow each other
};
Gather3Layout gather3_layout(int64_t wo, int64_t esz) {
  Gather3Layout l;
  l.half = (wo * 4 + 63) / 64 * 64;
  const int64_t row = 2 * wo * esz;
  l.contiguous = row % 32 == 0;
  l.row = l.contiguous ? row : (row + 63) / 64 * 64;
  l.bytes = 2 * l.half + 4 * l.row;
  return l;
}

}  // namespace

int64_t gather3_scratch_floats(const MaxPoolParams &p) {
  return (gather3_layout(p.wo, dtype_size(p.dtype)).bytes + 3) / 4;
}

#if defined(__x86_64__) || defined(__i386__)
namespace {

#define POOLGRAD_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")))

// a in the low 256 bits, b in the high.
POOLGRAD_AVX512 inline __m512i join8x2(__m256i a, __m256i b) {
  return _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
}

// 16 indices (lanes under m), as int32: INT64 ones saturated, so that a value past int32 cannot
// alias a pixel number (pixel numbers and window bases are far from both limits).
template <class I>
POOLGRAD_AVX512 inline __m512i load_index16(const I *p, __mmask16 m) {
  if (sizeof(I) == 4) return _mm512_maskz_loadu_epi32(m, p);
  const __m512i lo = _mm512_maskz_loadu_epi64(static_cast<__mmask8>(m), p);
  const __m512i hi = _mm512_maskz_loadu_epi64(static_cast<__mmask8>(m >> 8), p + 8);
  return join8x2(_mm512_cvtsepi64_epi32(lo), _mm512_cvtsepi64_epi32(hi));
}

// 16 gradients (lanes under m) of the dtype (kind as put_row's) as float32.
template <int kind>
POOLGRAD_AVX512 inline __m512 load_grad16(const void *p, __mmask16 m) {
  if (kind == 0) return _mm512_maskz_loadu_ps(m, p);
  const __m256i h = _mm256_maskz_loadu_epi16(m, p);
  if (kind == 1) return _mm512_cvtph_ps(h);
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

// Bits of 16 floats rounded to bfloat16 (nearest even; a NaN keeps its sign and payload and is
// made quiet), in the high half of each lane: the same values as row_from_f32's.
POOLGRAD_AVX512 inline __m512i bf16_high16(__m512 v) {
  const __m512i u = _mm512_castps_si512(v);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  const __m512i r = _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), lsb);
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  return _mm512_mask_or_epi32(r, nan, u, _mm512_set1_epi32(0x400000));
}

// Input row columns 2*ow0 .. 2*ow0+31 at d from the even (e) and odd (o) columns' sums of the
// windows ow0 .. ow0+15, stored in the dtype (kind: 0 float, 1 half, 2 bfloat16); cols: the
// columns to store (all 32: full).
template <int kind>
POOLGRAD_AVX512 inline void put_row(void *d, __m512 e, __m512 o, __mmask32 cols, bool full) {
  const __m512i lo_ix = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi_ix =
      _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const __m512 lo = _mm512_permutex2var_ps(e, lo_ix, o), hi = _mm512_permutex2var_ps(e, hi_ix, o);
  if (kind == 0) {
    float *f = static_cast<float *>(d);
    if (full) {
      _mm512_storeu_ps(f, lo);
      _mm512_storeu_ps(f + 16, hi);
    } else {
      _mm512_mask_storeu_ps(f, static_cast<__mmask16>(cols), lo);
      _mm512_mask_storeu_ps(f + 16, static_cast<__mmask16>(cols >> 16), hi);
    }
    return;
  }
  __m512i h;
  if (kind == 1) {
    h = join8x2(_mm512_cvtps_ph(lo, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
                _mm512_cvtps_ph(hi, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  } else if (_kortestz_mask16_u8(_mm512_fpclass_ps_mask(lo, 0x20),
                                 _mm512_fpclass_ps_mask(hi, 0x20))) {
    // No subnormal value (the instruction flushes those to zero; otherwise it rounds as
    // row_from_f32 does, NaNs included).
    h = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo));
  } else {
    // The high halves of the 32 lanes, in order.
    const __m512i pick =
        _mm512_setr_epi32(0x00030001, 0x00070005, 0x000b0009, 0x000f000d, 0x00130011, 0x00170015,
                          0x001b0019, 0x001f001d, 0x00230021, 0x00270025, 0x002b0029, 0x002f002d,
                          0x00330031, 0x00370035, 0x003b0039, 0x003f003d);
    h = _mm512_permutex2var_epi16(bf16_high16(lo), pick, bf16_high16(hi));
  }
  if (full)
    _mm512_storeu_si512(d, h);
  else
    _mm512_mask_storeu_epi16(d, cols, h);
}

// Rows h and h+1 (2*W values of `esz` bytes at src) to dst: 64-byte streaming stores where
// nontemporal and both ends are line-aligned, else plain copies. (simd.h's row copies stream in
// 32-byte halves; through them the ResNet-stem backwards ran 2-7% slower, medians of 10 runs;
// docs/profiles.md, stop 33.)
POOLGRAD_AVX512 inline void flush_rows(const char *src, char *dst, int64_t bytes, bool nt) {
  if (nt && (reinterpret_cast<uintptr_t>(dst) & 63) == 0 && bytes % 64 == 0) {
    for (int64_t b = 0; b < bytes; b += 64)
      _mm512_stream_si512(reinterpret_cast<__m512i *>(dst + b), _mm512_loadu_si512(src + b));
  } else {
    std::memcpy(dst, src, static_cast<size_t>(bytes));
  }
}

// A step of 16 windows along a row: the lanes that exist (m), those whose right neighbour exists
// (m1: tap column 0 of window ow+1 is read in lane ow), and the input columns they cover.
struct Step {
  __mmask16 m, m1;
  __mmask32 cols;
  bool full;
};

template <class I, int kind>
POOLGRAD_AVX512 bool gather_k3s2(int64_t ho, int64_t wo, const char *gy, const I *ix, char *dst,
                                 bool nt, float *scratch, const PlanePrefetch &next) {
  constexpr int64_t esz = kind == 0 ? 4 : 2;
  const int64_t W = 2 * wo;
  const int32_t w32 = static_cast<int32_t>(W);
  const __m512 zero = _mm512_setzero_ps();
  const __m512i lane2 =
      _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i minus1 = _mm512_set1_epi32(-1);
  const __m512i t0 = _mm512_set1_epi32(0), t1 = _mm512_set1_epi32(1), t2 = _mm512_set1_epi32(2);
  const __m512i tw = _mm512_set1_epi32(w32), tw1 = _mm512_set1_epi32(w32 + 1),
                tw2 = _mm512_set1_epi32(w32 + 2);
  const __m512i t2w = _mm512_set1_epi32(2 * w32), t2w1 = _mm512_set1_epi32(2 * w32 + 1),
                t2w2 = _mm512_set1_epi32(2 * w32 + 2);
  // The tap test: an index relative to its window's first tap, r, is a tap when one of r, r - W,
  // r - 2*W is in [0, 2] (unsigned: a negative one is past it); the top row's windows leave out
  // r itself (tap row 0 is padding), and window 0 needs [1, 2] (tap column 0 is padding).
  const __m512i first_lo = _mm512_setr_epi32(1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  const Gather3Layout lay = gather3_layout(wo, esz);
  char *const base = reinterpret_cast<char *>(scratch);
  float *pe = reinterpret_cast<float *>(base), *po = reinterpret_cast<float *>(base + lay.half);
  char *ring = base + 2 * lay.half;
  auto row_at = [&](int64_t h) { return ring + (h & 3) * lay.row; };
  auto flush = [&](int64_t h) {  // rows h (even) and h+1 are final
    if (lay.contiguous) {
      flush_rows(row_at(h), dst + h * W * esz, 2 * W * esz, nt);
    } else {
      std::memcpy(dst + h * W * esz, row_at(h), static_cast<size_t>(W * esz));
      std::memcpy(dst + (h + 1) * W * esz, row_at(h + 1), static_cast<size_t>(W * esz));
    }
  };
  auto step_at = [&](int64_t ow0) {
    const int64_t left = wo - ow0;
    Step s;
    s.full = left >= 16;
    s.m = s.full ? 0xffff : static_cast<__mmask16>((1u << left) - 1u);
    s.m1 = static_cast<__mmask16>(s.m >> (left <= 16 ? 1 : 0));
    s.cols = s.full ? 0xffffffffu : (1u << (2 * left)) - 1u;
    return s;
  };
  __mmask16 bad = 0;    // lanes whose index (other than -1) is not one of its window's taps
  int64_t fetched = 0;  // next's steps taken: step k at output row k * ho / steps
  for (int64_t oh = 0; oh < ho; ++oh) {
    for (; fetched < next.steps && fetched * ho <= oh * next.steps; ++fetched) next.step(fetched);
    const I *irow = ix + oh * wo;
    const char *grow = gy + oh * wo * esz;
    const bool top = oh == 0;
    // INT64 indices are narrowed once a step: window ow+1's come from this step's and the next's.
    __m512i iv_next = load_index16(irow, step_at(0).m);
    for (int64_t ow0 = 0; ow0 < wo; ow0 += 16) {
      const Step s = step_at(ow0);
      __m512i iv, iv1;
      if (sizeof(I) == 8) {
        iv = iv_next;
        iv_next = ow0 + 16 < wo ? load_index16(irow + ow0 + 16, step_at(ow0 + 16).m)
                                : _mm512_setzero_si512();
        iv1 = _mm512_alignr_epi32(iv_next, iv, 1);
      } else {
        iv = load_index16(irow + ow0, s.m);
        iv1 = load_index16(irow + ow0 + 1, s.m1);
      }
      const __m512 gv = load_grad16<kind>(grow + ow0 * esz, s.m),
                   gv1 = load_grad16<kind>(grow + (ow0 + 1) * esz, s.m1);
      // The index relative to window ow's first tap, (2*oh-1)*W + 2*ow-1 (for iv1: window ow+1's).
      const __m512i base = _mm512_add_epi32(
          _mm512_set1_epi32(static_cast<int32_t>((2 * oh - 1) * W + 2 * ow0 - 1)), lane2);
      const __m512i rel = _mm512_sub_epi32(iv, base);
      const __m512i rel1 = _mm512_sub_epi32(_mm512_sub_epi32(iv1, base), t2);
      {
        const __m512i lo = ow0 == 0 ? first_lo : t0;
        const __m512i r = _mm512_sub_epi32(rel, lo);
        __m512i v = _mm512_min_epu32(_mm512_sub_epi32(r, tw), _mm512_sub_epi32(r, t2w));
        if (!top) v = _mm512_min_epu32(v, r);
        const __mmask16 off = _mm512_mask_cmpgt_epu32_mask(s.m, v, _mm512_sub_epi32(t2, lo));
        bad |= _mm512_mask_cmpneq_epi32_mask(off, iv, minus1);
      }
      // Row 2*oh-1: the partial sums of oh-1's tap row 2, then this row's tap row 0.
      if (!top) {
        __m512 e = _mm512_maskz_loadu_ps(s.m, pe + ow0), o = _mm512_maskz_loadu_ps(s.m, po + ow0);
        e = _mm512_mask_add_ps(e, _mm512_mask_cmpeq_epi32_mask(s.m, rel, t1), e, gv);
        o = _mm512_mask_add_ps(o, _mm512_mask_cmpeq_epi32_mask(s.m, rel, t2), o, gv);
        o = _mm512_mask_add_ps(o, _mm512_mask_cmpeq_epi32_mask(s.m1, rel1, t0), o, gv1);
        put_row<kind>(row_at(2 * oh - 1) + 2 * ow0 * esz, e, o, s.cols, s.full);
      }
      {  // Row 2*oh: tap row 1 alone.
        const __m512 e = _mm512_maskz_add_ps(_mm512_mask_cmpeq_epi32_mask(s.m, rel, tw1), zero, gv);
        __m512 o = _mm512_maskz_add_ps(_mm512_mask_cmpeq_epi32_mask(s.m, rel, tw2), zero, gv);
        o = _mm512_mask_add_ps(o, _mm512_mask_cmpeq_epi32_mask(s.m1, rel1, tw), o, gv1);
        put_row<kind>(row_at(2 * oh) + 2 * ow0 * esz, e, o, s.cols, s.full);
      }
      {  // Row 2*oh+1, partial: tap row 2.
        const __m512 e =
            _mm512_maskz_add_ps(_mm512_mask_cmpeq_epi32_mask(s.m, rel, t2w1), zero, gv);
        __m512 o = _mm512_maskz_add_ps(_mm512_mask_cmpeq_epi32_mask(s.m, rel, t2w2), zero, gv);
        o = _mm512_mask_add_ps(o, _mm512_mask_cmpeq_epi32_mask(s.m1, rel1, t2w), o, gv1);
        _mm512_mask_storeu_ps(pe + ow0, s.m, e);
        _mm512_mask_storeu_ps(po + ow0, s.m, o);
      }
    }
    if (!top) flush(2 * oh - 2);
  }
  for (int64_t ow0 = 0; ow0 < wo; ow0 += 16) {  // the last row has no window below it
    const Step s = step_at(ow0);
    put_row<kind>(row_at(2 * ho - 1) + 2 * ow0 * esz, _mm512_maskz_loadu_ps(s.m, pe + ow0),
                  _mm512_maskz_loadu_ps(s.m, po + ow0), s.cols, s.full);
  }
  flush(2 * ho - 2);
  for (; fetched < next.steps; ++fetched) next.step(fetched);
  return bad == 0;
}

template <class I>
bool gather_k3s2_dtype(aclDataType dtype, int64_t ho, int64_t wo, const char *g, const I *ix,
                       char *dst, bool nt, float *scratch, const PlanePrefetch &next) {
  if (dtype == ACL_FLOAT) return gather_k3s2<I, 0>(ho, wo, g, ix, dst, nt, scratch, next);
  if (dtype == ACL_FLOAT16) return gather_k3s2<I, 1>(ho, wo, g, ix, dst, nt, scratch, next);
  return gather_k3s2<I, 2>(ho, wo, g, ix, dst, nt, scratch, next);
}

}  // namespace
#endif

bool gather_k3s2_plane(const MaxPoolParams &p, const void *gy, const void *ix, void *out, bool nt,
                       float *scratch, const PlanePrefetch &next) {
  char *const dst = static_cast<char *>(out);
  const char *const g = static_cast<const char *>(gy);
#if defined(__x86_64__) || defined(__i386__)
  if (p.index_dtype == ACL_INT32)
    return gather_k3s2_dtype(p.dtype, p.ho, p.wo, g, static_cast<const int32_t *>(ix), dst, nt,
                             scratch, next);
  return gather_k3s2_dtype(p.dtype, p.ho, p.wo, g, static_cast<const int64_t *>(ix), dst, nt,
                           scratch, next);
#else
  (void)p, (void)g, (void)ix, (void)dst, (void)nt, (void)scratch, (void)next;
  return false;
#endif
}

}  // namespace maxpool_detail
}  // namespace poolgrad
