// Max-pool 2-D CPU kernels.
//
// Forward: per (n, c) plane, the plane is converted to float32 and split by column phase
// (column j goes to phase j % sW), so that for every tap the window starts of consecutive
// outputs are consecutive floats: the interior of each output row is computed 8 outputs at a
// time with vector compares and blends, the borders by scalar code. Channels-last views
// (channel stride 1) vectorise across channels instead.
//
// Backward: per (n, c) plane, a float32 accumulator (the thread's scratch, in cache) is zeroed,
// the gradients are scattered into it in (oh, ow) order, and it is written out once, rounded to
// the dtype, with streaming stores where the plane is contiguous. 2x2 windows at stride 2 (no
// overlap) are gathered instead: each pixel is written once, in order, without the zeroing
// pass and the read-modify-write (see gather_k2s2). Channels-last views work on
// (n, channel-block) items with the same summation order, so every layout gives the same bits.
#include "maxpool_kernels.h"

#include <cmath>
#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

#include "../core/scatter.h"
#include "../core/simd.h"
#include "../core/status.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace poolgrad {

namespace {

typedef float f8 __attribute__((vector_size(32)));
typedef int32_t i8 __attribute__((vector_size(32)));

#define LOADF8(dst, ptr) std::memcpy(&(dst), (ptr), sizeof(f8))
// The forward's vector code (GCC vector extensions) is one body compiled twice: inlined into an
// AVX2 wrapper and into a portable one (POOLGRAD_FOR_ISA below); the plan's ISA picks the wrapper.
#define POOLGRAD_BODY __attribute__((always_inline)) inline
#if defined(__x86_64__) || defined(__i386__)
#define POOLGRAD_FOR_ISA(name, params, args)                                          \
  __attribute__((target("avx2,f16c"))) void name##_avx2 params { name##_body args; } \
  void name##_portable params { name##_body args; }                                  \
  void name params {                                                                 \
    if (p.isa == Isa::kAvx2)                                                         \
      name##_avx2 args;                                                              \
    else                                                                             \
      name##_portable args;                                                          \
  }
#else
#define POOLGRAD_FOR_ISA(name, params, args) \
  void name params { name##_body args; }
#endif

// One step of the window scan for 8 lanes: the first tap initialises, later taps replace the
// running maximum when larger or NaN (first maximum wins, the last NaN wins).
__attribute__((always_inline)) inline void max_step(f8 &best, i8 &idx, const f8 &v, const i8 &ti,
                                                    bool &first) {
  if (first) {
    best = v;
    idx = ti;
    first = false;
  } else {
    const i8 take = (v > best) | (v != v);
    best = take ? v : best;
    idx = take ? ti : idx;
  }
}

inline char *elem(const Strided4 &t, int64_t esz, int64_t n, int64_t c, int64_t h, int64_t w) {
  return t.base + (n * t.sn + c * t.sc + h * t.sh + w * t.sw) * esz;
}

// First and one-past-last tap m of a window starting at `start` (taps start + m*d) inside [0, in).
inline void tap_range(int64_t start, int64_t k, int64_t d, int64_t in, int64_t *m0, int64_t *m1) {
  int64_t lo = start < 0 ? (-start + d - 1) / d : 0;
  int64_t hi = in - start <= 0 ? 0 : (in - start + d - 1) / d;
  *m0 = lo;
  *m1 = hi < k ? hi : k;
}

inline void store_index(const Strided4 &t, aclDataType idt, int64_t n, int64_t c, int64_t h,
                        int64_t w, int64_t v) {
  if (idt == ACL_INT32)
    *reinterpret_cast<int32_t *>(elem(t, 4, n, c, h, w)) = static_cast<int32_t>(v);
  else
    *reinterpret_cast<int64_t *>(elem(t, 8, n, c, h, w)) = v;
}

inline int64_t load_index(const char *p, aclDataType idt) {
  return idt == ACL_INT32 ? *reinterpret_cast<const int32_t *>(p) : *reinterpret_cast<const int64_t *>(p);
}

// ---- forward, plane layout ----------------------------------------------------------------------
// Output columns whose every tap lies inside [0, W): [ow_lo, ow_hi) (empty when the window is wider
// than the plane).
void interior_columns(const MaxPoolParams &p, int64_t *lo, int64_t *hi) {
  const PoolAttrs &a = p.a;
  int64_t ow_lo = 0;
  while (ow_lo < p.wo && ow_lo * a.sw - a.pw < 0) ++ow_lo;
  int64_t ow_hi = ow_lo;
  while (ow_hi < p.wo && ow_hi * a.sw - a.pw + (a.kw - 1) * a.dw < p.w) ++ow_hi;
  *lo = ow_lo;
  *hi = ow_hi;
}

// A thread's scratch for the plane forward. Every size is proportional to the plane, never to an
// attribute: only phases r < min(sW, W) hold columns, and the per-tap tables exist only when an
// interior column does (then kW <= W).
struct FwdPlaneScratch {
  float *split = nullptr;  // phases of the plane: phase r, row h, column j = x[h][r + j*sw]
  float *orow = nullptr;
  int64_t *irow = nullptr;
  float *planef = nullptr;
  int64_t *qphase = nullptr, *qoff = nullptr;
};

void fwd_plane_layout(Arena &a, const MaxPoolParams &p, FwdPlaneScratch *s) {
  const int64_t phases = std::min(p.a.sw, p.w), pw_len = (p.w + p.a.sw - 1) / p.a.sw;
  int64_t lo, hi;
  interior_columns(p, &lo, &hi);
  const int64_t taps = hi > lo ? p.a.kw : 0;
  s->split = a.take<float>(phases * p.h * pw_len + 8);  // slack: the last vector may overhang
  s->orow = a.take<float>(p.wo);
  s->irow = a.take<int64_t>(p.wo);
  s->planef = a.take<float>(p.h * p.w);
  s->qphase = a.take<int64_t>(taps);
  s->qoff = a.take<int64_t>(taps);
}

// Scalar window scan over the float plane (borders, and planes too large for 32-bit vector
// indices).
inline void scan_scalar(const float *plane, int64_t w, int64_t hs, int64_t m0, int64_t m1,
                        int64_t dh, int64_t ws, int64_t q0, int64_t q1, int64_t dw,
                        float *best_out, int64_t *idx_out) {
  float best = -std::numeric_limits<float>::infinity();
  int64_t bi = -1;
  if (m1 > m0 && q1 > q0) {
    best = plane[(hs + m0 * dh) * w + ws + q0 * dw];
    bi = (hs + m0 * dh) * w + ws + q0 * dw;
  }
  for (int64_t m = m0; m < m1; ++m) {
    const int64_t ih = hs + m * dh;
    const float *row = plane + ih * w;
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t iw = ws + q * dw;
      const float v = row[iw];
      // Branch-free select: the comparison is unpredictable on real data.
      const bool take = (v > best) | (v != v);
      best = take ? v : best;
      bi = take ? ih * w + iw : bi;
    }
  }
  *best_out = best;
  *idx_out = bi;
}

POOLGRAD_BODY void forward_plane_range_body(const MaxPoolParams &p, const Strided4 &x,
                                             const Strided4 &out, const Strided4 &idx, int64_t pb,
                                             int64_t pe, Arena scratch) {
  const PoolAttrs &a = p.a;
  const int64_t esz = dtype_size(p.dtype);
  const int64_t pw_len = (p.w + a.sw - 1) / a.sw;  // columns per phase
  const int64_t hstride = p.h * pw_len;             // floats per phase
  FwdPlaneScratch s;
  fwd_plane_layout(scratch, p, &s);
  float *const planef = s.planef;
  const bool vec_ok = p.h * p.w <= INT32_MAX;
  int64_t ow_lo, ow_hi;
  interior_columns(p, &ow_lo, &ow_hi);
  // Tap q of output ow reads phase qphase[q], column ow + qoff[q] (interior outputs only).
  const int64_t *const qphase = s.qphase, *const qoff = s.qoff;
  if (ow_hi > ow_lo)
    for (int64_t q = 0; q < a.kw; ++q) {
      const int64_t rel = q * a.dw - a.pw;
      const int64_t fl = rel >= 0 ? rel / a.sw : -((-rel + a.sw - 1) / a.sw);
      s.qoff[q] = fl;
      s.qphase[q] = rel - fl * a.sw;
    }
  for (int64_t pl = pb; pl < pe; ++pl) {
    const int64_t n = pl / p.c, c = pl % p.c;
    for (int64_t h = 0; h < p.h; ++h) {
      const float *rowbuf = planef + h * p.w;
      row_to_f32(p.isa, p.dtype, elem(x, esz, n, c, h, 0), x.sw, p.w, planef + h * p.w);
      for (int64_t r = 0; r < a.sw && r < p.w; ++r) {
        float *dst = s.split + r * hstride + h * pw_len;
        for (int64_t j = r, t = 0; j < p.w; j += a.sw, ++t) dst[t] = rowbuf[j];
      }
    }
    for (int64_t oh = 0; oh < p.ho; ++oh) {
      const int64_t hs = oh * a.sh - a.ph;
      int64_t m0, m1;
      tap_range(hs, a.kh, a.dh, p.h, &m0, &m1);
      auto scalar_at = [&](int64_t ow) {
        const int64_t ws = ow * a.sw - a.pw;
        int64_t q0, q1, bi;
        tap_range(ws, a.kw, a.dw, p.w, &q0, &q1);
        scan_scalar(planef, p.w, hs, m0, m1, a.dh, ws, q0, q1, a.dw, &s.orow[ow], &bi);
        s.irow[ow] = bi;
      };
      int64_t ow = 0;
      if (vec_ok && m1 > m0) {
        for (; ow < ow_lo; ++ow) scalar_at(ow);
        // 8 outputs at a time; the last block may be partial (its extra lanes read the split
        // buffer's slack or the next row and are discarded).
        for (; ow < ow_hi; ow += 8) {
          const int64_t lanes = std::min<int64_t>(8, ow_hi - ow);
          f8 best = {};
          i8 bidx = {};
          bool first = true;
          for (int64_t m = m0; m < m1; ++m) {
            const int64_t ih = hs + m * a.dh;
            for (int64_t q = 0; q < a.kw; ++q) {
              const int64_t iw0 = ow * a.sw - a.pw + q * a.dw;  // >= 0 in the interior
              const float *src = s.split + qphase[q] * hstride + ih * pw_len + ow + qoff[q];
              f8 v;
              LOADF8(v, src);
              // Lanes past the row's last output may lie past H*W: computed in 64 bits and
              // truncated (they are discarded), never as an overflowing 32-bit sum.
              const int64_t base = ih * p.w + iw0;
              i8 ti;
              for (int k = 0; k < 8; ++k) ti[k] = static_cast<int32_t>(base + k * a.sw);
              max_step(best, bidx, v, ti, first);
            }
          }
          for (int k = 0; k < lanes; ++k) {
            s.orow[ow + k] = best[k];
            s.irow[ow + k] = bidx[k];
          }
        }
        ow = ow_hi;
      }
      for (; ow < p.wo; ++ow) scalar_at(ow);
      row_from_f32(p.isa, p.dtype, s.orow, elem(out, esz, n, c, oh, 0), out.sw, p.wo, false);
      for (int64_t o = 0; o < p.wo; ++o) store_index(idx, p.index_dtype, n, c, oh, o, s.irow[o]);
    }
  }
}

POOLGRAD_FOR_ISA(forward_plane_range,
                 (const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                  const Strided4 &idx, int64_t pb, int64_t pe, Arena scratch),
                 (p, x, out, idx, pb, pe, scratch))

// ---- forward, channels-last (channel stride 1 in x, out and indices) -------------------------------
// Items are (n, oh) output rows. The window rows are read as float rows of W*C values (converted
// once per item for 16-bit dtypes); each output position runs over the taps 8 channels at a time.
// A window covers at most min(kH, H) input rows: the row tables are sized by that, not by kH.
struct FwdClScratch {
  float *rows = nullptr, *best = nullptr;
  int32_t *bidx32 = nullptr;
  int64_t *bidx = nullptr;
  const float **rowp = nullptr;
};

bool fwd_cl_direct(const MaxPoolParams &p, const Strided4 &x) {
  return p.dtype == ACL_FLOAT && x.sw == p.c;
}

void fwd_cl_layout(Arena &a, const MaxPoolParams &p, bool direct, FwdClScratch *s) {
  const int64_t rows = std::min(p.a.kh, p.h);
  s->rows = a.take<float>(direct ? 0 : rows * p.w * p.c);
  s->best = a.take<float>(p.c);
  s->bidx32 = a.take<int32_t>(p.c);
  s->bidx = a.take<int64_t>(p.c);
  s->rowp = a.take<const float *>(rows);
}

POOLGRAD_BODY void forward_cl_range_body(const MaxPoolParams &p, const Strided4 &x,
                                         const Strided4 &out, const Strided4 &idx, int64_t ib,
                                         int64_t ie, Arena scratch) {
  const PoolAttrs &a = p.a;
  const int64_t esz = dtype_size(p.dtype);
  const int64_t C = p.c;
  const bool f32 = fwd_cl_direct(p, x);
  FwdClScratch s;
  fwd_cl_layout(scratch, p, f32, &s);
  float *const best = s.best;
  int32_t *const bidx32 = s.bidx32;
  int64_t *const bidx = s.bidx;
  const bool small = p.h * p.w <= INT32_MAX;
  for (int64_t item = ib; item < ie; ++item) {
    const int64_t n = item / p.ho, oh = item % p.ho;
    const int64_t hs = oh * a.sh - a.ph;
    int64_t m0, m1;
    tap_range(hs, a.kh, a.dh, p.h, &m0, &m1);
    // rowp[m - m0]: the float row of tap m.
    const float **const rowp = s.rowp;
    for (int64_t m = m0; m < m1; ++m) {
      const int64_t ih = hs + m * a.dh;
      if (f32) {
        rowp[m - m0] = reinterpret_cast<const float *>(elem(x, 4, n, 0, ih, 0));
      } else {
        float *dst = s.rows + (m - m0) * p.w * C;
        for (int64_t iw = 0; iw < p.w; ++iw) row_to_f32(p.isa, p.dtype, elem(x, esz, n, 0, ih, iw), 1, C, dst + iw * C);
        rowp[m - m0] = dst;
      }
    }
    for (int64_t ow = 0; ow < p.wo; ++ow) {
      const int64_t ws = ow * a.sw - a.pw;
      int64_t q0, q1;
      tap_range(ws, a.kw, a.dw, p.w, &q0, &q1);
      // Channels [c0, C) one at a time (the tail after the vectors; planes too large for 32-bit
      // vector indices).
      auto scalar_channels = [&](int64_t c0) {
        for (int64_t c = c0; c < C; ++c) {
          bool first = true;
          for (int64_t m = m0; m < m1; ++m)
            for (int64_t q = q0; q < q1; ++q) {
              const int64_t iw = ws + q * a.dw;
              const float v = rowp[m - m0][iw * C + c];
              if (first || v > best[c] || v != v) {
                best[c] = v;
                bidx[c] = (hs + m * a.dh) * p.w + iw;
                first = false;
              }
            }
        }
      };
      if (m1 <= m0 || q1 <= q0) {  // no input element in the window
        for (int64_t c = 0; c < C; ++c) {
          best[c] = -std::numeric_limits<float>::infinity();
          bidx[c] = -1;
        }
      } else if (small) {
        int64_t c = 0;
        for (; c + 8 <= C; c += 8) {
          f8 bb = {};
          i8 bi = {};
          bool first = true;
          for (int64_t m = m0; m < m1; ++m) {
            const int64_t ih = hs + m * a.dh;
            for (int64_t q = q0; q < q1; ++q) {
              const int64_t iw = ws + q * a.dw;
              f8 v;
              LOADF8(v, rowp[m - m0] + iw * C + c);
              const int32_t t = static_cast<int32_t>(ih * p.w + iw);
              const i8 tv = {t, t, t, t, t, t, t, t};
              max_step(bb, bi, v, tv, first);
            }
          }
          std::memcpy(best + c, &bb, sizeof bb);
          std::memcpy(bidx32 + c, &bi, sizeof bi);
          for (int k = 0; k < 8; ++k) bidx[c + k] = bidx32[c + k];
        }
        scalar_channels(c);
      } else {
        scalar_channels(0);
      }
      row_from_f32(p.isa, p.dtype, best, elem(out, esz, n, 0, oh, ow), 1, C, false);
      if (p.index_dtype == ACL_INT64 && idx.sc == 1) {
        std::memcpy(elem(idx, 8, n, 0, oh, ow), bidx, static_cast<size_t>(C) * 8);
      } else {
        for (int64_t c = 0; c < C; ++c) store_index(idx, p.index_dtype, n, c, oh, ow, bidx[c]);
      }
    }
  }
}

POOLGRAD_FOR_ISA(forward_cl_range,
                 (const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                  const Strided4 &idx, int64_t ib, int64_t ie, Arena scratch),
                 (p, x, out, idx, ib, ie, scratch))

// ---- backward ---------------------------------------------------------------------------------------
// gradOutput and indices planes that are dense row-major: one run of ho*wo values a plane.
bool whole_planes(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx) {
  return gy.plane_dense() && idx.plane_dense() && gy.sh == p.wo && idx.sh == p.wo;
}

// ---- backward, write-only gather for 2x2 windows at stride 2 ----------------------------------
// The common non-overlapping case (VGG, small planes): every input pixel (h, w) lies in the box of
// at most one window, (h / 2, w / 2). The plane is produced pixel by pixel in order, with no
// zeroing pass and no read-modify-write: pixel = 0 + g[o] when its owner o stored that pixel as
// its index, else 0 (0 + g as the scatter computes it, so -0.0 and NaN give the same bits). This
// equals the scatter exactly when every index other than -1 points into its own window's box,
// that is when the number of matches equals the number of indices other than -1; otherwise the
// caller scatters the plane instead (an index elsewhere in the plane, or a bad one).
// Planes narrower than 16 outputs and other disjoint shapes scatter: there the per-pixel scalar
// gather (a per-pixel owner lookup) measured 2-8x slower than the cache-resident scatter.

// Columns [w0, W) of input row h, owned by output row irow / grow (null: no owner).
inline int64_t gather_row_scalar(float *row, int64_t h, int64_t w0, int64_t W, int64_t wo,
                                 const int32_t *irow, const float *grow) {
  int64_t matched = 0;
  if (!irow) {
    std::memset(row + w0, 0, static_cast<size_t>(W - w0) * 4);
    return 0;
  }
  const int64_t wend = std::min(W, 2 * wo);  // columns past the last window have no owner
  for (int64_t w = w0; w < wend; ++w) {  // branch-free: the match is data, not control
    const uint32_t m = 0u - static_cast<uint32_t>(irow[w / 2] == h * W + w);
    uint32_t bits;
    std::memcpy(&bits, grow + w / 2, 4);
    bits &= m;
    float v;
    std::memcpy(&v, &bits, 4);
    row[w] = 0.0f + v;
    matched += m & 1;
  }
  if (wend > w0) w0 = wend;
  std::memset(row + w0, 0, static_cast<size_t>(W - w0) * 4);
  return matched;
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2,popcnt"))) bool gather_k2s2_avx2(const MaxPoolParams &p, float *acc,
                                                              const float *g, const int32_t *ix) {
  const int64_t H = p.h, W = p.w, ho = p.ho, wo = p.wo, n = ho * wo;
  const __m256i minus1 = _mm256_set1_epi32(-1);
  int64_t expected = 0, matched = 0, k = 0;
  for (; k + 8 <= n; k += 8) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(ix + k));
    expected += 8 - __builtin_popcount(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, minus1))));
  }
  for (; k < n; ++k) expected += ix[k] != -1;
  const __m256i lane2 = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
  const __m256i one = _mm256_set1_epi32(1), wv = _mm256_set1_epi32(static_cast<int>(W));
  const __m256 zero = _mm256_setzero_ps();
  const int64_t full = std::min(ho, H / 2);  // output rows whose two input rows both exist
  for (int64_t oh = 0; oh < full; ++oh) {
    float *r0 = acc + 2 * oh * W, *r1 = r0 + W;
    const int32_t *irow = ix + oh * wo;
    const float *grow = g + oh * wo;
    int64_t ow = 0;
    for (; ow + 8 <= wo && 2 * (ow + 8) <= W; ow += 8) {
      const __m256i iv = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(irow + ow));
      const __m256 gv = _mm256_loadu_ps(grow + ow);
      // hw <= INT32_MAX for INT32 indices, so the pixel numbers fit in 32 bits.
      const __m256i p00 = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(2 * oh * W + 2 * ow)), lane2);
      const __m256i p01 = _mm256_add_epi32(p00, one), p10 = _mm256_add_epi32(p00, wv);
      const __m256i p11 = _mm256_add_epi32(p10, one);
      const __m256 m00 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(iv, p00));
      const __m256 m01 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(iv, p01));
      const __m256 m10 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(iv, p10));
      const __m256 m11 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(iv, p11));
      matched += __builtin_popcount(
          _mm256_movemask_ps(_mm256_or_ps(_mm256_or_ps(m00, m01), _mm256_or_ps(m10, m11))));
      const __m256 v00 = _mm256_add_ps(zero, _mm256_and_ps(m00, gv));
      const __m256 v01 = _mm256_add_ps(zero, _mm256_and_ps(m01, gv));
      const __m256 v10 = _mm256_add_ps(zero, _mm256_and_ps(m10, gv));
      const __m256 v11 = _mm256_add_ps(zero, _mm256_and_ps(m11, gv));
      // Interleave the two columns of each window: [a0 b0 a1 b1 ... a7 b7].
      const __m256 lo0 = _mm256_unpacklo_ps(v00, v01), hi0 = _mm256_unpackhi_ps(v00, v01);
      const __m256 lo1 = _mm256_unpacklo_ps(v10, v11), hi1 = _mm256_unpackhi_ps(v10, v11);
      _mm256_storeu_ps(r0 + 2 * ow, _mm256_permute2f128_ps(lo0, hi0, 0x20));
      _mm256_storeu_ps(r0 + 2 * ow + 8, _mm256_permute2f128_ps(lo0, hi0, 0x31));
      _mm256_storeu_ps(r1 + 2 * ow, _mm256_permute2f128_ps(lo1, hi1, 0x20));
      _mm256_storeu_ps(r1 + 2 * ow + 8, _mm256_permute2f128_ps(lo1, hi1, 0x31));
    }
    matched += gather_row_scalar(r0, 2 * oh, 2 * ow, W, wo, irow, grow);
    matched += gather_row_scalar(r1, 2 * oh + 1, 2 * ow, W, wo, irow, grow);
  }
  for (int64_t h = 2 * full; h < H; ++h) {  // an odd last row, owned in ceil mode
    const bool owned = h / 2 < ho;
    matched += gather_row_scalar(acc + h * W, h, 0, W, wo, owned ? ix + (h / 2) * wo : nullptr,
                                 owned ? g + (h / 2) * wo : nullptr);
  }
  return matched == expected;
}
#endif

bool gather_k2s2(const MaxPoolParams &p, float *acc, const float *g, const int32_t *ix) {
#if defined(__x86_64__) || defined(__i386__)
  return gather_k2s2_avx2(p, acc, g, ix);
#else
  (void)p, (void)acc, (void)g, (void)ix;
  return false;
#endif
}

// A thread's scratch for the plane backward: the float accumulator plane and one gradOutput run
// as float32 (a whole plane's ho*wo values where gradOutput and indices planes are dense).
void bwd_plane_layout(Arena &a, const MaxPoolParams &p, bool whole, float **acc, float **grow) {
  *acc = a.take<float>(p.h * p.w);
  *grow = a.take<float>(whole ? p.ho * p.wo : p.wo);
}

void backward_plane_range(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                          const Strided4 &gx, int64_t pb, int64_t pe, bool nt, bool gather,
                          FirstError *bt, Arena scratch) {
  const int64_t esz = dtype_size(p.dtype), isz = dtype_size(p.index_dtype);
  const int64_t hw = p.h * p.w;
  // gradOutput and indices planes that are dense row-major are scattered as one run of ho*wo
  // values (one call a plane instead of one a row: small planes are dominated by per-row work).
  const bool whole = whole_planes(p, gy, idx);
  const int64_t run = whole ? p.ho * p.wo : p.wo;
  // Streaming stores pay off for planes of some size; small ones are cheaper through the cache
  // (measured: 14x14 planes 25% faster with plain stores, 128x128 planes 25% slower).
  const bool plane_nt = nt && hw * esz >= 8192;
  float *acc, *grow;
  bwd_plane_layout(scratch, p, whole, &acc, &grow);
  for (int64_t pl = pb; pl < pe; ++pl) {
    const int64_t n = pl / p.c, c = pl % p.c;
    if (whole) {
      const float *g = grow;
      if (p.dtype == ACL_FLOAT)
        g = reinterpret_cast<const float *>(elem(gy, 4, n, c, 0, 0));
      else
        row_to_f32(p.isa, p.dtype, elem(gy, esz, n, c, 0, 0), 1, run, grow);
      const char *ix = elem(idx, isz, n, c, 0, 0);
      const bool gathered = gather && gather_k2s2(p, acc, g, reinterpret_cast<const int32_t *>(ix));
      if (!gathered) {
        std::memset(acc, 0, static_cast<size_t>(hw) * 4);
        if (p.index_dtype == ACL_INT32)
          scatter_checked(acc, g, reinterpret_cast<const int32_t *>(ix), 1, run, hw, pl * run, bt);
        else
          scatter_checked(acc, g, reinterpret_cast<const int64_t *>(ix), 1, run, hw, pl * run, bt);
      }
    } else {
      std::memset(acc, 0, static_cast<size_t>(hw) * 4);
      for (int64_t oh = 0; oh < p.ho; ++oh) {
        row_to_f32(p.isa, p.dtype, elem(gy, esz, n, c, oh, 0), gy.sw, p.wo, grow);
        const char *ix = elem(idx, isz, n, c, oh, 0);
        const int64_t pos0 = (pl * p.ho + oh) * p.wo;
        if (p.index_dtype == ACL_INT32)
          scatter_checked(acc, grow, reinterpret_cast<const int32_t *>(ix), idx.sw, p.wo, hw, pos0, bt);
        else
          scatter_checked(acc, grow, reinterpret_cast<const int64_t *>(ix), idx.sw, p.wo, hw, pos0, bt);
      }
    }
    if (gx.plane_dense()) {
      row_from_f32(p.isa, p.dtype, acc, elem(gx, esz, n, c, 0, 0), 1, hw, plane_nt);
    } else {
      for (int64_t h = 0; h < p.h; ++h)
        row_from_f32(p.isa, p.dtype, acc + h * p.w, elem(gx, esz, n, c, h, 0), gx.sw, p.w, plane_nt);
    }
  }
  if (plane_nt) stream_fence();
}

// Channels-last: items are (n, channel block); acc holds the block's planes interleaved
// (position-major, channel-minor) so that the write-out is contiguous per position.
void bwd_cl_layout(Arena &a, const MaxPoolParams &p, int64_t cb, float **acc, float **g) {
  *acc = a.take<float>(p.h * p.w * cb);
  *g = a.take<float>(cb);
}

void backward_cl_range(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                       const Strided4 &gx, int64_t cb, int64_t ib, int64_t ie, bool nt,
                       FirstError *bt, Arena scratch) {
  const int64_t esz = dtype_size(p.dtype), isz = dtype_size(p.index_dtype);
  const int64_t hw = p.h * p.w;
  const int64_t nblocks = (p.c + cb - 1) / cb;
  float *acc, *g;
  bwd_cl_layout(scratch, p, cb, &acc, &g);
  for (int64_t item = ib; item < ie; ++item) {
    const int64_t n = item / nblocks, c0 = (item % nblocks) * cb;
    const int64_t cn = std::min(cb, p.c - c0);
    std::memset(acc, 0, static_cast<size_t>(hw * cn) * 4);
    for (int64_t oh = 0; oh < p.ho; ++oh)
      for (int64_t ow = 0; ow < p.wo; ++ow) {
        row_to_f32(p.isa, p.dtype, elem(gy, esz, n, c0, oh, ow), 1, cn, g);
        const char *ix = elem(idx, isz, n, c0, oh, ow);
        for (int64_t c = 0; c < cn; ++c) {
          const int64_t k = load_index(ix + c * isz, p.index_dtype);
          if (in_plane(k, hw))
            acc[k * cn + c] += g[c];
          else if (k != -1)
            bt->note(((n * p.c + c0 + c) * p.ho + oh) * p.wo + ow, k);
        }
      }
    for (int64_t h = 0; h < p.h; ++h)
      for (int64_t w = 0; w < p.w; ++w)
        row_from_f32(p.isa, p.dtype, acc + (h * p.w + w) * cn, elem(gx, esz, n, c0, h, w), 1, cn,
                     nt && cn == p.c);
  }
  if (nt) stream_fence();
}

bool channels_last(const Strided4 &t) { return t.c > 1 && t.sc == 1; }

// Channels-last backward: enough (n, block) items for every thread; blocks of at least 16
// channels.
int64_t bwd_cl_block(const MaxPoolParams &p) {
  int64_t cb = p.c;
  const int64_t want_items = 2 * static_cast<int64_t>(p.threads);
  if (p.n < want_items) {
    const int64_t split = (want_items + p.n - 1) / p.n;
    cb = std::max<int64_t>(16, ((p.c + split - 1) / split + 15) / 16 * 16);
    cb = std::min(cb, p.c);
  }
  return cb;
}

// The one description of a call's workspace: the parts' first-error slots, then one scratch
// slice per part, laid out by layout(Arena&). With a null workspace it only counts the bytes
// (phase 1); otherwise it runs body(part, begin, end, slice, error slot) over the parts.
template <class Layout, class Body>
int64_t run_parts(const MaxPoolParams &p, int64_t items, void *workspace, Layout layout,
                  Body body, BadIndex *first_bad) {
  Arena count;
  count.take<FirstError>(p.threads);
  const int64_t per_part = layout_bytes(layout);
  count.take_slices(parts_for(items, p.threads), per_part);
  if (!workspace) return count.used();
  Arena ws(workspace, count.used());
  FirstError *const found = ws.take<FirstError>(p.threads);
  for (int t = 0; t < p.threads; ++t) new (&found[t]) FirstError();
  const Arena::Slices sl = ws.take_slices(parts_for(items, p.threads), per_part);
  auto run = [&](int part, int64_t b, int64_t e) { body(b, e, sl.slice(part), &found[part]); };
  parallel_for(items, run, p.threads);
  FirstError first;
  for (int t = 0; t < p.threads; ++t) first.merge(found[t]);
  if (first_bad && first.pos >= 0) {  // the flat position in (plane, oh, ow) order
    first_bad->plane = first.pos / (p.ho * p.wo);
    first_bad->oh = first.pos / p.wo % p.ho;
    first_bad->ow = first.pos % p.wo;
    first_bad->value = first.value;
  }
  return count.used();
}

// Each path below counts (workspace null: returns the bytes, runs nothing) or runs.
int64_t fwd_planes(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                   const Strided4 &idx, void *workspace) {
  return run_parts(
      p, p.n * p.c, workspace,
      [&](Arena &a) {
        FwdPlaneScratch s;
        fwd_plane_layout(a, p, &s);
      },
      [&](int64_t b, int64_t e, Arena a, FirstError *) { forward_plane_range(p, x, out, idx, b, e, a); },
      nullptr);
}

int64_t fwd_cl(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
               const Strided4 &idx, void *workspace) {
  const bool direct = fwd_cl_direct(p, x);
  return run_parts(
      p, p.n * p.ho, workspace,
      [&](Arena &a) {
        FwdClScratch s;
        fwd_cl_layout(a, p, direct, &s);
      },
      [&](int64_t b, int64_t e, Arena a, FirstError *) { forward_cl_range(p, x, out, idx, b, e, a); },
      nullptr);
}

int64_t bwd_planes(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                   const Strided4 &gx, void *workspace, bool gather, BadIndex *bad) {
  const bool whole = whole_planes(p, gy, idx);
  const bool nt = !p.serial;  // streaming stores only where gradInput has no aliasing
  return run_parts(
      p, p.n * p.c, workspace,
      [&](Arena &a) {
        float *acc, *grow;
        bwd_plane_layout(a, p, whole, &acc, &grow);
      },
      [&](int64_t b, int64_t e, Arena a, FirstError *bt) {
        backward_plane_range(p, gy, idx, gx, b, e, nt, gather, bt, a);
      },
      bad);
}

int64_t bwd_cl(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
               const Strided4 &gx, void *workspace, BadIndex *bad) {
  const int64_t cb = bwd_cl_block(p), items = p.n * ((p.c + cb - 1) / cb);
  const bool nt = !p.serial;
  return run_parts(
      p, items, workspace,
      [&](Arena &a) {
        float *acc, *g;
        bwd_cl_layout(a, p, cb, &acc, &g);
      },
      [&](int64_t b, int64_t e, Arena a, FirstError *bt) {
        backward_cl_range(p, gy, idx, gx, cb, b, e, nt, bt, a);
      },
      bad);
}

}  // namespace

int64_t maxpool_forward_planes_workspace(const MaxPoolParams &p, const Strided4 &x,
                                         const Strided4 &out, const Strided4 &idx) {
  return fwd_planes(p, x, out, idx, nullptr);
}
void maxpool_forward_planes(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                            const Strided4 &idx, void *workspace) {
  fwd_planes(p, x, out, idx, workspace);
}
int64_t maxpool_forward_cl_workspace(const MaxPoolParams &p, const Strided4 &x,
                                     const Strided4 &out, const Strided4 &idx) {
  return fwd_cl(p, x, out, idx, nullptr);
}
void maxpool_forward_cl(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                        const Strided4 &idx, void *workspace) {
  fwd_cl(p, x, out, idx, workspace);
}

int64_t maxpool_backward_planes_workspace(const MaxPoolParams &p, const Strided4 &gy,
                                          const Strided4 &idx, const Strided4 &gx) {
  return bwd_planes(p, gy, idx, gx, nullptr, false, nullptr);
}
BadIndex maxpool_backward_planes(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                                 const Strided4 &gx, void *workspace) {
  BadIndex bad;
  bwd_planes(p, gy, idx, gx, workspace, false, &bad);
  return bad;
}
BadIndex maxpool_backward_gather(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                                 const Strided4 &gx, void *workspace) {
  BadIndex bad;
  bwd_planes(p, gy, idx, gx, workspace, true, &bad);
  return bad;
}
int64_t maxpool_backward_cl_workspace(const MaxPoolParams &p, const Strided4 &gy,
                                      const Strided4 &idx, const Strided4 &gx) {
  return bwd_cl(p, gy, idx, gx, nullptr, nullptr);
}
BadIndex maxpool_backward_cl(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                             const Strided4 &gx, void *workspace) {
  BadIndex bad;
  bwd_cl(p, gy, idx, gx, workspace, &bad);
  return bad;
}

bool maxpool_channels_last(const Strided4 &a, const Strided4 &b, const Strided4 &c) {
  return channels_last(a) && channels_last(b) && channels_last(c);
}

bool maxpool_gather_applies(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx) {
  const PoolAttrs &a = p.a;
  return a.kh == 2 && a.kw == 2 && a.sh == 2 && a.sw == 2 && a.ph == 0 && a.pw == 0 && a.dh == 1 &&
         a.dw == 1 && p.index_dtype == ACL_INT32 && p.h > 0 && p.wo >= 16 &&
         whole_planes(p, gy, idx);
}

}  // namespace poolgrad
