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
#include <mutex>
#include <vector>

#include "../core/simd.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace poolgrad {

namespace {

typedef float f8 __attribute__((vector_size(32)));
typedef int32_t i8 __attribute__((vector_size(32)));

#define LOADF8(dst, ptr) std::memcpy(&(dst), (ptr), sizeof(f8))
// The vector code is compiled twice, for AVX2 and for the baseline, and picked at load time.
#if defined(__x86_64__) && !defined(__clang__) && !defined(POOLGRAD_NO_CLONES)
#define POOLGRAD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define POOLGRAD_CLONES
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
struct FwdScratch {
  std::vector<float> split;  // phases of the plane: phase r, row h, column j = x[h][r + j*sw]
  std::vector<float> orow;
  std::vector<int32_t> irow32;
  std::vector<int64_t> irow64;
};

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

POOLGRAD_CLONES void forward_plane_range(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                         const Strided4 &idx, int64_t pb, int64_t pe) {
  const PoolAttrs &a = p.a;
  const int64_t esz = dtype_size(p.dtype);
  const int64_t pw_len = (p.w + a.sw - 1) / a.sw;  // columns per phase
  const int64_t hstride = p.h * pw_len;             // floats per phase
  FwdScratch s;
  s.split.resize(static_cast<size_t>(a.sw * hstride + 8));  // slack: the last vector may overhang
  s.orow.resize(static_cast<size_t>(p.wo));
  s.irow32.resize(static_cast<size_t>(p.wo));
  s.irow64.resize(static_cast<size_t>(p.wo));
  std::vector<float> planef(static_cast<size_t>(p.h * p.w));
  const bool vec_ok = p.h * p.w <= INT32_MAX;
  // Tap q of output ow reads phase qphase[q], column ow + qoff[q] (interior outputs only).
  std::vector<int64_t> qphase(static_cast<size_t>(a.kw)), qoff(static_cast<size_t>(a.kw));
  for (int64_t q = 0; q < a.kw; ++q) {
    const int64_t rel = q * a.dw - a.pw;
    const int64_t fl = rel >= 0 ? rel / a.sw : -((-rel + a.sw - 1) / a.sw);
    qoff[q] = fl;
    qphase[q] = rel - fl * a.sw;
  }
  // Interior output columns: every tap inside [0, W).
  int64_t ow_lo = 0;
  while (ow_lo < p.wo && ow_lo * a.sw - a.pw < 0) ++ow_lo;
  int64_t ow_hi = ow_lo;
  while (ow_hi < p.wo && ow_hi * a.sw - a.pw + (a.kw - 1) * a.dw < p.w) ++ow_hi;
  for (int64_t pl = pb; pl < pe; ++pl) {
    const int64_t n = pl / p.c, c = pl % p.c;
    for (int64_t h = 0; h < p.h; ++h) {
      const float *rowbuf = planef.data() + h * p.w;
      row_to_f32(p.dtype, elem(x, esz, n, c, h, 0), x.sw, p.w, planef.data() + h * p.w);
      for (int64_t r = 0; r < a.sw && r < p.w; ++r) {
        float *dst = s.split.data() + r * hstride + h * pw_len;
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
        scan_scalar(planef.data(), p.w, hs, m0, m1, a.dh, ws, q0, q1, a.dw, &s.orow[ow], &bi);
        s.irow64[ow] = bi;
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
              const float *src = s.split.data() + qphase[q] * hstride + ih * pw_len + ow + qoff[q];
              f8 v;
              LOADF8(v, src);
              const int32_t base = static_cast<int32_t>(ih * p.w + iw0);
              const int32_t st = static_cast<int32_t>(a.sw);
              const i8 ti = {base, base + st, base + 2 * st, base + 3 * st,
                             base + 4 * st, base + 5 * st, base + 6 * st, base + 7 * st};
              max_step(best, bidx, v, ti, first);
            }
          }
          for (int k = 0; k < lanes; ++k) {
            s.orow[ow + k] = best[k];
            s.irow64[ow + k] = bidx[k];
          }
        }
        ow = ow_hi;
      }
      for (; ow < p.wo; ++ow) scalar_at(ow);
      row_from_f32(p.dtype, s.orow.data(), elem(out, esz, n, c, oh, 0), out.sw, p.wo, false);
      for (int64_t o = 0; o < p.wo; ++o) store_index(idx, p.index_dtype, n, c, oh, o, s.irow64[o]);
    }
  }
}

// ---- forward, channels-last (channel stride 1 in x, out and indices) -------------------------------
// Items are (n, oh) output rows. The window rows are read as float rows of W*C values (converted
// once per item for 16-bit dtypes); each output position runs over the taps 8 channels at a time.
POOLGRAD_CLONES void forward_cl_range(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                      const Strided4 &idx, int64_t ib, int64_t ie) {
  const PoolAttrs &a = p.a;
  const int64_t esz = dtype_size(p.dtype);
  const int64_t C = p.c;
  const bool f32 = p.dtype == ACL_FLOAT && x.sw == C;
  std::vector<float> rows(f32 ? 0 : static_cast<size_t>(a.kh * p.w * C));
  std::vector<float> best(static_cast<size_t>(C));
  std::vector<int32_t> bidx32(static_cast<size_t>(C));
  std::vector<int64_t> bidx(static_cast<size_t>(C));
  std::vector<const float *> rowp(static_cast<size_t>(a.kh));
  const bool small = p.h * p.w <= INT32_MAX;
  for (int64_t item = ib; item < ie; ++item) {
    const int64_t n = item / p.ho, oh = item % p.ho;
    const int64_t hs = oh * a.sh - a.ph;
    int64_t m0, m1;
    tap_range(hs, a.kh, a.dh, p.h, &m0, &m1);
    for (int64_t m = m0; m < m1; ++m) {
      const int64_t ih = hs + m * a.dh;
      if (f32) {
        rowp[m] = reinterpret_cast<const float *>(elem(x, 4, n, 0, ih, 0));
      } else {
        float *dst = rows.data() + m * p.w * C;
        for (int64_t iw = 0; iw < p.w; ++iw) row_to_f32(p.dtype, elem(x, esz, n, 0, ih, iw), 1, C, dst + iw * C);
        rowp[m] = dst;
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
              const float v = rowp[m][iw * C + c];
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
              LOADF8(v, rowp[m] + iw * C + c);
              const int32_t t = static_cast<int32_t>(ih * p.w + iw);
              const i8 tv = {t, t, t, t, t, t, t, t};
              max_step(bb, bi, v, tv, first);
            }
          }
          std::memcpy(best.data() + c, &bb, sizeof bb);
          std::memcpy(bidx32.data() + c, &bi, sizeof bi);
          for (int k = 0; k < 8; ++k) bidx[c + k] = bidx32[c + k];
        }
        scalar_channels(c);
      } else {
        scalar_channels(0);
      }
      row_from_f32(p.dtype, best.data(), elem(out, esz, n, 0, oh, ow), 1, C, false);
      if (p.index_dtype == ACL_INT64 && idx.sc == 1) {
        std::memcpy(elem(idx, 8, n, 0, oh, ow), bidx.data(), static_cast<size_t>(C) * 8);
      } else {
        for (int64_t c = 0; c < C; ++c) store_index(idx, p.index_dtype, n, c, oh, ow, bidx[c]);
      }
    }
  }
}

// ---- backward ---------------------------------------------------------------------------------------
// gradOutput and indices planes that are dense row-major: one run of ho*wo values a plane.
bool whole_planes(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx) {
  return gy.plane_dense() && idx.plane_dense() && gy.sh == p.wo && idx.sh == p.wo;
}

struct BadTracker {
  BadIndex bad;
  // Keeps the first bad index in (plane, oh, ow) order.
  void note(int64_t plane, int64_t oh, int64_t ow, int64_t v) {
    if (bad.plane < 0 || plane < bad.plane ||
        (plane == bad.plane && (oh < bad.oh || (oh == bad.oh && ow < bad.ow)))) {
      bad.plane = plane;
      bad.oh = oh;
      bad.ow = ow;
      bad.value = v;
    }
  }
};

template <class I>
void scatter_row(float *acc, const float *g, const char *ix, int64_t istride, int64_t wo,
                 int64_t hw, int64_t plane, int64_t oh, BadTracker *bt) {
  const I *ip = reinterpret_cast<const I *>(ix);
  for (int64_t ow = 0; ow < wo; ++ow) {
    const int64_t k = static_cast<int64_t>(ip[ow * istride]);
    if (static_cast<uint64_t>(k) < static_cast<uint64_t>(hw))
      acc[k] += g[ow];
    else if (k != -1)
      bt->note(plane, oh, ow, k);
  }
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
bool gather_k2s2_applies(const MaxPoolParams &p) {
  const PoolAttrs &a = p.a;
  return a.kh == 2 && a.kw == 2 && a.sh == 2 && a.sw == 2 && a.ph == 0 && a.pw == 0 && a.dh == 1 &&
         a.dw == 1 && p.index_dtype == ACL_INT32 && p.h > 0 && p.wo >= 16 &&
         cpu_has_avx2();  // false off x86 and under POOLGRAD_CPU_CAPABILITY=default
}

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

void backward_plane_range(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                          const Strided4 &gx, int64_t pb, int64_t pe, bool nt, BadTracker *bt) {
  const int64_t esz = dtype_size(p.dtype), isz = dtype_size(p.index_dtype);
  const int64_t hw = p.h * p.w;
  // gradOutput and indices planes that are dense row-major are scattered as one run of ho*wo
  // values (one call a plane instead of one a row: small planes are dominated by per-row work).
  const bool whole = whole_planes(p, gy, idx);
  const int64_t run = whole ? p.ho * p.wo : p.wo;
  // Streaming stores pay off for planes of some size; small ones are cheaper through the cache
  // (measured: 14x14 planes 25% faster with plain stores, 128x128 planes 25% slower).
  const bool plane_nt = nt && hw * esz >= 8192;
  std::vector<float> acc(static_cast<size_t>(hw)), grow(static_cast<size_t>(run));
  const bool gather = whole && gather_k2s2_applies(p);
  for (int64_t pl = pb; pl < pe; ++pl) {
    const int64_t n = pl / p.c, c = pl % p.c;
    if (whole) {
      const float *g = grow.data();
      if (p.dtype == ACL_FLOAT)
        g = reinterpret_cast<const float *>(elem(gy, 4, n, c, 0, 0));
      else
        row_to_f32(p.dtype, elem(gy, esz, n, c, 0, 0), 1, run, grow.data());
      const char *ix = elem(idx, isz, n, c, 0, 0);
      const bool gathered = gather && gather_k2s2(p, acc.data(), g, reinterpret_cast<const int32_t *>(ix));
      if (!gathered) {
        std::memset(acc.data(), 0, static_cast<size_t>(hw) * 4);
        BadTracker local;
        if (p.index_dtype == ACL_INT32)
          scatter_row<int32_t>(acc.data(), g, ix, 1, run, hw, pl, 0, &local);
        else
          scatter_row<int64_t>(acc.data(), g, ix, 1, run, hw, pl, 0, &local);
        if (local.bad.plane >= 0)  // position k of the run is (k / wo, k % wo)
          bt->note(pl, local.bad.ow / p.wo, local.bad.ow % p.wo, local.bad.value);
      }
    } else {
      std::memset(acc.data(), 0, static_cast<size_t>(hw) * 4);
      for (int64_t oh = 0; oh < p.ho; ++oh) {
        row_to_f32(p.dtype, elem(gy, esz, n, c, oh, 0), gy.sw, p.wo, grow.data());
        const char *ix = elem(idx, isz, n, c, oh, 0);
        if (p.index_dtype == ACL_INT32)
          scatter_row<int32_t>(acc.data(), grow.data(), ix, idx.sw, p.wo, hw, pl, oh, bt);
        else
          scatter_row<int64_t>(acc.data(), grow.data(), ix, idx.sw, p.wo, hw, pl, oh, bt);
      }
    }
    if (gx.plane_dense()) {
      row_from_f32(p.dtype, acc.data(), elem(gx, esz, n, c, 0, 0), 1, hw, plane_nt);
    } else {
      for (int64_t h = 0; h < p.h; ++h)
        row_from_f32(p.dtype, acc.data() + h * p.w, elem(gx, esz, n, c, h, 0), gx.sw, p.w, plane_nt);
    }
  }
  if (plane_nt) stream_fence();
}

// Channels-last: items are (n, channel block); acc holds the block's planes interleaved
// (position-major, channel-minor) so that the write-out is contiguous per position.
void backward_cl_range(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                       const Strided4 &gx, int64_t cb, int64_t ib, int64_t ie, bool nt,
                       BadTracker *bt) {
  const int64_t esz = dtype_size(p.dtype), isz = dtype_size(p.index_dtype);
  const int64_t hw = p.h * p.w;
  const int64_t nblocks = (p.c + cb - 1) / cb;
  std::vector<float> acc(static_cast<size_t>(hw * cb)), g(static_cast<size_t>(cb));
  for (int64_t item = ib; item < ie; ++item) {
    const int64_t n = item / nblocks, c0 = (item % nblocks) * cb;
    const int64_t cn = std::min(cb, p.c - c0);
    std::memset(acc.data(), 0, static_cast<size_t>(hw * cn) * 4);
    for (int64_t oh = 0; oh < p.ho; ++oh)
      for (int64_t ow = 0; ow < p.wo; ++ow) {
        row_to_f32(p.dtype, elem(gy, esz, n, c0, oh, ow), 1, cn, g.data());
        const char *ix = elem(idx, isz, n, c0, oh, ow);
        for (int64_t c = 0; c < cn; ++c) {
          const int64_t k = load_index(ix + c * isz, p.index_dtype);
          if (static_cast<uint64_t>(k) < static_cast<uint64_t>(hw))
            acc[k * cn + c] += g[c];
          else if (k != -1)
            bt->note(n * p.c + c0 + c, oh, ow, k);
        }
      }
    for (int64_t h = 0; h < p.h; ++h)
      for (int64_t w = 0; w < p.w; ++w)
        row_from_f32(p.dtype, acc.data() + (h * p.w + w) * cn, elem(gx, esz, n, c0, h, w), 1, cn,
                     nt && cn == p.c);
  }
  if (nt) stream_fence();
}

bool channels_last(const Strided4 &t) { return t.c > 1 && t.sc == 1; }

}  // namespace

const char *maxpool_forward(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                            const Strided4 &indices, bool serial) {
  const int threads = serial ? 1 : 0;
  if (channels_last(x) && channels_last(out) && channels_last(indices)) {
    parallel_for(p.n * p.ho, [&](int64_t b, int64_t e) { forward_cl_range(p, x, out, indices, b, e); },
                 threads);
    return serial ? "forward-channels-last(serial)" : "forward-channels-last";
  }
  parallel_for(p.n * p.c, [&](int64_t b, int64_t e) { forward_plane_range(p, x, out, indices, b, e); },
               threads);
  return serial ? "forward-planes(serial)" : "forward-planes";
}

BadIndex maxpool_backward(const MaxPoolParams &p, const Strided4 &grad_out,
                          const Strided4 &indices, const Strided4 &grad_in, bool serial,
                          const char **kernel) {
  const int threads = serial ? 1 : num_threads();
  // Streaming stores only where gradInput has no aliasing (serial means it may).
  const bool nt = !serial;
  std::vector<BadIndex> found;
  std::mutex m;
  auto collect = [&](const BadTracker &bt) {
    if (bt.bad.plane >= 0) {
      std::lock_guard<std::mutex> lock(m);
      found.push_back(bt.bad);
    }
  };
  if (channels_last(grad_out) && channels_last(indices) && channels_last(grad_in)) {
    // Enough (n, block) items for every thread; blocks of at least 16 channels.
    int64_t cb = p.c;
    const int64_t want_items = 2 * static_cast<int64_t>(threads);
    if (p.n < want_items) {
      const int64_t split = (want_items + p.n - 1) / p.n;
      cb = std::max<int64_t>(16, ((p.c + split - 1) / split + 15) / 16 * 16);
      cb = std::min(cb, p.c);
    }
    const int64_t items = p.n * ((p.c + cb - 1) / cb);
    *kernel = serial ? "backward-channels-last(serial)" : "backward-channels-last";
    parallel_for(items, [&](int64_t b, int64_t e) {
      BadTracker bt;
      backward_cl_range(p, grad_out, indices, grad_in, cb, b, e, nt, &bt);
      collect(bt);
    }, threads);
  } else {
    if (gather_k2s2_applies(p) && whole_planes(p, grad_out, indices))
      *kernel = serial ? "backward-planes-gather(serial)" : "backward-planes-gather";
    else
      *kernel = serial ? "backward-planes(serial)" : "backward-planes";
    parallel_for(p.n * p.c, [&](int64_t b, int64_t e) {
      BadTracker bt;
      backward_plane_range(p, grad_out, indices, grad_in, b, e, nt, &bt);
      collect(bt);
    }, threads);
  }
  BadTracker first;
  for (const BadIndex &b : found) first.note(b.plane, b.oh, b.ow, b.value);
  return first.bad;
}

}  // namespace poolgrad
