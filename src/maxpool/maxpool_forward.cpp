// SPDX-License-Identifier: Apache-2.0
// Max-pool 2-D forward kernels.
//
// Per (n, c) plane, the plane is converted to float32 and split by column phase (column j goes
// to phase j % sW) in one pass, so that for every tap the window starts of consecutive outputs are
// consecutive floats: the interior of each output row is computed 8 outputs at a time with
// vector compares and blends, the borders by scalar code, both from the split plane. Channels-last
// views (channel stride 1) vectorise across channels instead (the scan in maxpool_scan.cpp,
// Highway code).
//
// Why one file of about 800 lines: the two paths share the plane split, the key rows (16-bit
// keys for half types), the border code and the workspace layout, and each is one pass over the
// input whose steps only make sense next to each other; split by step, a reader would follow one
// output row across four files.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "../core/prefetch.h"
#include "../core/simd.h"
#include "../core/vec.h"
#include "maxpool_common.h"
#include "maxpool_forward_keys.h"
#include "maxpool_scan.h"

namespace poolgrad {

namespace {

using namespace maxpool_detail;

// 8 int32 lanes stored as 8 int64 (sign-extended).
POOLGRAD_BODY void store_widened(int64_t *dst, const u8 &v) {
  typedef int32_t i4 __attribute__((vector_size(16)));
  typedef int64_t l4 __attribute__((vector_size(32)));
  i8 s;
  std::memcpy(&s, &v, sizeof s);
  const i4 lo = __builtin_shufflevector(s, s, 0, 1, 2, 3),
           hi = __builtin_shufflevector(s, s, 4, 5, 6, 7);
  const l4 a = __builtin_convertvector(lo, l4), b = __builtin_convertvector(hi, l4);
  std::memcpy(dst, &a, sizeof a);
  std::memcpy(dst + 4, &b, sizeof b);
}

// One tap of the 8-lane window scan: the running maximum takes v where v is larger, or NaN (the
// first maximum wins, the last NaN wins), and the index the tap's relative index ti. kNoNan: the
// caller knows no tap is NaN, and the NaN test (two of the step's five operations) is left out.
template <bool kNoNan>
POOLGRAD_BODY void scan_step(f8 &best, u8 &bidx, const f8 &v, const u8 &ti) {
  const i8 take = kNoNan ? (v > best) : (v > best) | (v != v);
  best = take ? v : best;
  bidx = take ? ti : bidx;
}

// A block of 8 outputs: values, and indices = the winning taps' relative indices + the block's
// first index + each lane's offset. Lanes past the row's last output may lie past H*W: wrapping
// 32-bit sums, discarded. (Vectors pass by reference: by value, a call between this and code
// built for another ISA, as at -O0, would not agree on where they are.)
POOLGRAD_BODY void store_block(float *orow, int64_t *irow, const f8 &best, const u8 &bidx,
                               uint32_t first, const u8 &lane_off) {
  const u8 idx = bidx + (u8{} + first) + lane_off;
  std::memcpy(orow, &best, sizeof best);
  store_widened(irow, idx);
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
  float *orow = nullptr;   // (16 floats of slack: blocks are stored whole)
  int64_t *irow = nullptr;
  float *rowf = nullptr;      // one input row as float32 (dtypes converted before the split)
  int64_t *col_at = nullptr;  // column j's place in a split row: (j % sW) * phase + j / sW
  int64_t *qphase = nullptr, *qoff = nullptr;
  // An output row's taps (m0 <= m < m1, every q): where each reads in `split`, relative to the
  // block's first output, and its index relative to the block's: at most min(kH, H) * kW. The
  // rows whose window lies inside the plane share one table (full_*), built once.
  int64_t *tap_at = nullptr, *full_at = nullptr;
  uint32_t *tap_index = nullptr, *full_index = nullptr;
};

// float32 planes that are dense row-major are split straight from x (no float row copy).
bool fwd_plane_in_place(const MaxPoolParams &p, const Strided4 &x) {
  return p.dtype == ACL_FLOAT && x.plane_dense();
}

// 16-bit planes scanned as keys (forward_keys.h) where the AVX2 plan allows it.
bool fwd_plane_keys(const MaxPoolParams &p, const Strided4 &x) {
  const PoolAttrs &a = p.a;
  return has_avx2(p.isa) && p.h * p.w <= INT32_MAX &&
         keys_apply(p.dtype, x.sw, a.sw, (a.kh - 1) * a.dh * p.w + (a.kw - 1) * a.dw);
}

// Outputs larger than the caches are written with streaming stores (no read-for-ownership of lines
// that are only written: a third of the traffic otherwise), a whole output plane at a time, where
// every plane is whole cache lines: a streaming store to part of a line costs more than it saves
// (measured: 2.5x slower on 7x7 output planes), and rows rarely end on a line.
// True when runs of `run` elements starting at multiples of `inner` and `outer` (element strides)
// from a 64-byte aligned base are whole cache lines.
bool whole_lines(const Strided4 &t, int64_t esz, int64_t run, int64_t inner, int64_t outer) {
  return reinterpret_cast<uintptr_t>(t.base) % 64 == 0 && (run * esz) % 64 == 0 &&
         (inner * esz) % 64 == 0 && (outer * esz) % 64 == 0;
}

bool fwd_plane_streams(const MaxPoolParams &p, const Strided4 &out, const Strided4 &idx) {
  const int64_t esz = dtype_size(p.dtype), isz = dtype_size(p.index_dtype), plane = p.ho * p.wo;
  return p.n * p.c * plane * (esz + isz) >= kStreamMinBytes && out.plane_dense() &&
         idx.plane_dense() && whole_lines(out, esz, plane, out.sc, out.sn) &&
         whole_lines(idx, isz, plane, idx.sc, idx.sn);
}

// The split plane's row pitch: a phase's columns padded to whole 8-float vectors. The split's last
// block of a row is whole vectors that stay in their row, and the scan's loads at a row's start
// each read what one of the split's stores wrote (loads spanning two rows' stores, still in the
// store buffer, cannot be forwarded: 14x14 planes were 15% slower without the padding).
// Key planes (int16, blocks of 16) pad to 16.
int64_t split_pitch(const MaxPoolParams &p, bool keys) {
  const int64_t v = keys ? 16 : 8;
  return ((p.w + p.a.sw - 1) / p.a.sw + v - 1) / v * v;
}

void fwd_plane_layout(Arena &a, const MaxPoolParams &p, bool in_place, bool keys, bool whole_planes,
                      FwdPlaneScratch *s) {
  // Strides 1 and 2 split in blocks that store every phase (even a plane one column wide).
  const int64_t phases = p.a.sw <= 2 ? p.a.sw : std::min(p.a.sw, p.w);
  int64_t lo, hi;
  interior_columns(p, &lo, &hi);
  const int64_t taps = hi > lo ? p.a.kw : 0;
  // slack: the scan's last vector may overhang
  s->split = a.take<float>(phases * p.h * split_pitch(p, keys) + 8);
  const int64_t block = keys ? 16 : 8;  // slack: blocks are stored whole
  s->orow = a.take<float>((whole_planes ? p.ho * p.wo : p.wo) + block);
  s->irow = a.take<int64_t>((whole_planes ? p.ho * p.wo : p.wo) + block);
  s->rowf = a.take<float>(in_place ? 0 : p.w + 16);  // slack: split_row's last block reads 16
  s->col_at = a.take<int64_t>(p.w);
  s->qphase = a.take<int64_t>(taps);
  s->qoff = a.take<int64_t>(taps);
  const int64_t rows = std::min(p.a.kh, p.h);
  s->tap_at = a.take<int64_t>(rows * taps);
  s->tap_index = a.take<uint32_t>(rows * taps);
  s->full_at = a.take<int64_t>(rows * taps);
  s->full_index = a.take<uint32_t>(rows * taps);
}

// Scalar window scan over the split plane (borders, and planes too large for 32-bit vector
// indices): row ih, column iw is split[ih * pw_len + col_at[iw]]. kNoNan as in scan_step: without
// the NaN test the selects compile to a max and a conditional move; with it, to branches.
template <bool kNoNan>
inline void scan_scalar(const float *split, const int64_t *col_at, int64_t pw_len, int64_t w,
                        int64_t hs, int64_t m0, int64_t m1, int64_t dh, int64_t ws, int64_t q0,
                        int64_t q1, int64_t dw, float *best_out, int64_t *idx_out) {
  float best = -std::numeric_limits<float>::infinity();
  int64_t bi = -1;
  if (m1 > m0 && q1 > q0) {
    best = split[(hs + m0 * dh) * pw_len + col_at[ws + q0 * dw]];
    bi = (hs + m0 * dh) * w + ws + q0 * dw;
  }
  for (int64_t m = m0; m < m1; ++m) {
    const int64_t ih = hs + m * dh;
    const float *row = split + ih * pw_len;
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t iw = ws + q * dw;
      const float v = row[col_at[iw]];
      const bool take = kNoNan ? v > best : (v > best) | (v != v);
      bi = take ? ih * w + iw : bi;
      best = take ? v : best;
    }
  }
  *best_out = best;
  *idx_out = bi;
}

// Whether any lane of v is set.
POOLGRAD_BODY bool any_lane(const i8 &v) {
  int32_t l[8];
  std::memcpy(l, &v, sizeof l);
  return (l[0] | l[1] | l[2] | l[3] | l[4] | l[5] | l[6] | l[7]) != 0;
}

// Whether any of the n floats is NaN.
POOLGRAD_BODY bool any_nan(const float *v, int64_t n) {
  i8 acc{};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    f8 a, b;
    LOADF8(a, v + i);
    LOADF8(b, v + i + 8);
    acc |= (a != a) | (b != b);
  }
  bool any = any_lane(acc);
  for (; i < n; ++i) any |= v[i] != v[i];
  return any;
}

#if defined(__x86_64__) || defined(__i386__)
// Columns j .. j+15 of a row (a: the first 8, b: the next 8) stored split by column phase, for
// column stride kSw = 1 or 2 (j a multiple of 16), as whole vectors (a row's last block stays in
// its row: split_pitch).
template <int kSw>
__attribute__((target("avx2,f16c"))) inline void store_split16(__m256 a, __m256 b, float *dst,
                                                               int64_t phase_stride, int64_t j) {
  if (kSw == 1) {
    _mm256_storeu_ps(dst + j, a);
    _mm256_storeu_ps(dst + j + 8, b);
    return;
  }
  // a0 a2 b0 b2 | a4 a6 b4 b6, then 64-bit lanes 0, 2, 1, 3: a0 a2 a4 a6 b0 b2 b4 b6.
  const __m256d e = _mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88));
  const __m256d o = _mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xdd));
  _mm256_storeu_ps(dst + j / 2, _mm256_castpd_ps(_mm256_permute4x64_pd(e, 0xd8)));
  _mm256_storeu_ps(dst + phase_stride + j / 2, _mm256_castpd_ps(_mm256_permute4x64_pd(o, 0xd8)));
}

// The last W - j (< 16) columns of a row at column stride 1 or 2, split as one 16-column block
// whose missing columns read as 0, so the NaN test comes with it. The block is loaded whole (the
// caller knows 16 floats from column j may be read) and masked: masked loads
// (vmaskmovps) made 14x14 planes 30% slower on this machine (AMD EPYC) than the phase-by-phase
// scalar loop this replaces, which was itself a third of those planes' instructions.
// (At stride 1, b holds only columns past the row where rest <= 8, and is not stored: the
// pitch is a multiple of 8, not 16.)
template <int kSw>
__attribute__((target("avx2,f16c"))) inline __m256 split_tail_block(const __m256 a, const __m256 b,
                                                                    float *dst,
                                                                    int64_t phase_stride, int64_t j,
                                                                    int64_t rest) {
  if (kSw == 1 && rest <= 8)
    _mm256_storeu_ps(dst + j, a);
  else
    store_split16<kSw>(a, b, dst, phase_stride, j);
  return _mm256_cmp_ps(a, b, _CMP_UNORD_Q);
}
__attribute__((target("avx2,f16c"))) inline void split_tail_avx2(const float *row, int64_t j,
                                                                 int64_t W, int64_t sw, float *dst,
                                                                 int64_t phase_stride, i8 &nan) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const int32_t rest = static_cast<int32_t>(W - j);
  const __m256 a =
      _mm256_and_ps(_mm256_loadu_ps(row + j),
                    _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(rest), lane)));
  const __m256 b =
      _mm256_and_ps(_mm256_loadu_ps(row + j + 8),
                    _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(rest - 8), lane)));
  const __m256 un = sw == 1 ? split_tail_block<1>(a, b, dst, phase_stride, j, rest)
                            : split_tail_block<2>(a, b, dst, phase_stride, j, rest);
  nan |= reinterpret_cast<i8>(_mm256_castps_si256(un));
}
#endif

// Row `row` of W floats split by column phase: phase r's columns r, r + sW, ... go to
// dst + r*phase_stride. Strides 2 (the common case) and 1 go 16 columns at a time (a branch on
// the stride inside one loop made 14-column rows 20% slower), and with `avx2` their last < 16
// columns too (split_tail_avx2) where `readable` (the floats from `row` that may be read) allows a
// whole block; otherwise (a plane's last row or two) they go phase by phase. Lanes of `nan` are
// set where a column was NaN (the scan leaves its NaN test out of planes without one), except in
// a scalar rest without `test`.
POOLGRAD_BODY void split_row(const float *row, int64_t W, int64_t readable, int64_t sw, float *dst,
                             int64_t phase_stride, bool avx2, bool test, i8 &nan) {
  int64_t j = 0;
  if (sw == 2) {
    float *even = dst, *odd = dst + phase_stride;
    for (; j + 16 <= W; j += 16) {
      f8 a, b;
      LOADF8(a, row + j);
      LOADF8(b, row + j + 8);
      nan |= (a != a) | (b != b);
      // (__builtin_shufflevector: GCC 12+ and clang both have it.)
      const f8 e = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
      const f8 o = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
      std::memcpy(even + j / 2, &e, sizeof e);
      std::memcpy(odd + j / 2, &o, sizeof o);
    }
  } else if (sw == 1) {
    for (; j + 16 <= W; j += 16) {
      f8 a, b;
      LOADF8(a, row + j);
      LOADF8(b, row + j + 8);
      nan |= (a != a) | (b != b);
      std::memcpy(dst + j, &a, sizeof a);
      std::memcpy(dst + j + 8, &b, sizeof b);
    }
  }
  if (j == W) return;
#if defined(__x86_64__) || defined(__i386__)
  if (avx2 && sw <= 2 && j + 16 <= readable) {
    split_tail_avx2(row, j, W, sw, dst, phase_stride, nan);
    return;
  }
#else
  (void)avx2, (void)readable;
#endif
  // The rest phase by phase, from column j = t0 * sW (j is 0 for strides past 2: no division).
  const int64_t t0 = sw == 2 ? j / 2 : j;
  for (int64_t r = 0; r < sw && j + r < W; ++r) {
    float *const d = dst + r * phase_stride;
    for (int64_t jj = j + r, t = t0; jj < W; jj += sw, ++t) d[t] = row[jj];
  }
  if (!test) return;
  // The rest's NaN test: vectors of 8 columns ending at W (they may overlap columns tested above).
  if (W >= 8)
    for (int64_t k = j; k < W; k += 8) {
      f8 t;
      LOADF8(t, row + std::min(k, W - 8));
      nan |= t != t;
    }
  else
    for (int64_t k = 0; k < W; ++k)
      if (row[k] != row[k]) nan = i8{} - 1;
}

// The interior outputs [ow, ow_hi) of one output row, 8 at a time; at = the split plane at the
// row's first tap row. The last block may be partial: its extra lanes read the split buffer's
// slack or the next row, and are stored into what later outputs overwrite (or the slack). The
// scan keeps the winning tap's relative index; the block's first index (row_base + ow*sW) is added
// once. Two blocks go through the taps together where there are two: each tap's compare and
// blends wait on the previous tap's, and a second independent chain fills those cycles.
template <bool kNoNan>
POOLGRAD_BODY void scan_interior(const float *at, const int64_t *tap_at, const uint32_t *tap_index,
                                 int64_t taps, int64_t ow, int64_t ow_hi, int64_t sw,
                                 uint32_t row_base, const u8 &lane_off, float *orow,
                                 int64_t *irow) {
  for (; ow + 8 < ow_hi; ow += 16) {
    const float *const block = at + ow;  // (named: the compiler otherwise adds ow at every tap)
    f8 best0, best1;
    LOADF8(best0, block + tap_at[0]);
    LOADF8(best1, block + 8 + tap_at[0]);
    u8 bidx0 = u8{} + tap_index[0], bidx1 = bidx0;
    for (int64_t t = 1; t < taps; ++t) {
      f8 v0, v1;
      LOADF8(v0, block + tap_at[t]);
      LOADF8(v1, block + 8 + tap_at[t]);
      const u8 ti = u8{} + tap_index[t];
      scan_step<kNoNan>(best0, bidx0, v0, ti);
      scan_step<kNoNan>(best1, bidx1, v1, ti);
    }
    store_block(orow + ow, irow + ow, best0, bidx0, row_base + static_cast<uint32_t>(ow * sw),
                lane_off);
    store_block(orow + ow + 8, irow + ow + 8, best1, bidx1,
                row_base + static_cast<uint32_t>((ow + 8) * sw), lane_off);
  }
  if (ow < ow_hi) {
    f8 best;
    LOADF8(best, at + ow + tap_at[0]);
    u8 bidx = u8{} + tap_index[0];
    for (int64_t t = 1; t < taps; ++t) {
      f8 v;
      LOADF8(v, at + ow + tap_at[t]);
      scan_step<kNoNan>(best, bidx, v, u8{} + tap_index[t]);
    }
    store_block(orow + ow, irow + ow, best, bidx, row_base + static_cast<uint32_t>(ow * sw),
                lane_off);
  }
}

#if defined(__x86_64__) || defined(__i386__)
// split_row for a dense 16-bit row at column stride kSw = 1 or 2, converting as it loads
// (row_to_f32's conversion, without the float row between the two passes); the last < 16 columns
// are converted into a zeroed block and split whole. Returns whether the row holds a NaN.
template <aclDataType D, int kSw>
__attribute__((target("avx2,f16c"))) bool split_row16_avx2(const uint16_t *row, int64_t W,
                                                           float *dst, int64_t phase_stride) {
  __m256 nan = _mm256_setzero_ps();
  int64_t j = 0;
  for (; j + 16 <= W; j += 16) {
    const __m256 a = load8_f32<D>(row + j), b = load8_f32<D>(row + j + 8);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
    store_split16<kSw>(a, b, dst, phase_stride, j);
  }
  if (j < W) {
    alignas(32) float tail[16] = {};
    row_to_f32(Isa::kAvx2, D, row + j, 1, W - j, tail);
    nan = _mm256_or_ps(nan, split_tail_block<kSw>(_mm256_load_ps(tail), _mm256_load_ps(tail + 8),
                                                  dst, phase_stride, j, W - j));
  }
  return !_mm256_testz_ps(nan, nan);
}

bool split_row16(aclDataType dtype, const char *row, int64_t W, int64_t sw, float *dst,
                 int64_t phase_stride) {
  const uint16_t *const r = reinterpret_cast<const uint16_t *>(row);
  if (dtype == ACL_BF16)
    return sw == 1 ? split_row16_avx2<ACL_BF16, 1>(r, W, dst, phase_stride)
                   : split_row16_avx2<ACL_BF16, 2>(r, W, dst, phase_stride);
  return sw == 1 ? split_row16_avx2<ACL_FLOAT16, 1>(r, W, dst, phase_stride)
                 : split_row16_avx2<ACL_FLOAT16, 2>(r, W, dst, phase_stride);
}
#else
bool split_row16(aclDataType, const char *, int64_t, int64_t, float *, int64_t) {
  return false;  // never called: only the AVX2 plan takes this path
}
#endif

POOLGRAD_BODY void forward_plane_range_body(const MaxPoolParams &p, const Strided4 &x,
                                            const Strided4 &out, const Strided4 &idx, int64_t pb,
                                            int64_t pe, Arena scratch) {
  const PoolAttrs &a = p.a;
  const int64_t esz = dtype_size(p.dtype), isz = dtype_size(p.index_dtype);
  const bool nt = fwd_plane_streams(p, out, idx);
  const bool keys = fwd_plane_keys(p, x);
  const int64_t pw_len = split_pitch(p, keys);  // elements per split row
  const int64_t hstride = p.h * pw_len;         // floats per phase
  const bool in_place = fwd_plane_in_place(p, x);
  FwdPlaneScratch s;
  fwd_plane_layout(scratch, p, in_place, keys, nt, &s);
  for (int64_t j = 0; j < p.w; ++j) s.col_at[j] = (j % a.sw) * hstride + j / a.sw;
  // Rows split by vectors only (AVX2, column stride 1 or 2) are NaN-tested for free. Other planes
  // narrower than 16 columns keep the NaN-aware scan: a scalar test of their columns cost more
  // than the scan it saves (14x14 planes: 15% slower with it).
  const bool avx2 = has_avx2(p.isa);
  const bool tested = (avx2 && a.sw <= 2) || p.w >= 16;
  // Dense 16-bit rows at column stride 1 or 2 are converted as they are split.
  const bool split16 = !in_place && p.dtype != ACL_FLOAT && avx2 && x.sw == 1 && a.sw <= 2;
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
  // The taps of a window inside the plane (rows hs .. hs + (kH-1)*dH), relative to row hs.
  auto fill_taps = [&](int64_t m0, int64_t m1, int64_t hs, int64_t *at, uint32_t *index) {
    int64_t t = 0;
    for (int64_t m = m0; m < m1; ++m)
      for (int64_t q = 0; q < a.kw; ++q, ++t) {
        at[t] = qphase[q] * hstride + (hs + m * a.dh) * pw_len + qoff[q];
        index[t] = static_cast<uint32_t>(m * a.dh * p.w + q * a.dw);
      }
    return t;
  };
  const bool full_rows = ow_hi > ow_lo && (a.kh - 1) * a.dh < p.h;
  const int64_t full_taps = full_rows ? fill_taps(0, a.kh, 0, s.full_at, s.full_index) : 0;
  // Lane k of an output block reads column k*sW further: the index offsets of the 8 lanes.
  uint32_t lane_cols[8];
  for (int k = 0; k < 8; ++k) lane_cols[k] = static_cast<uint32_t>(k * a.sw);
  u8 lane_off;
  std::memcpy(&lane_off, lane_cols, sizeof lane_off);
  for (int64_t pl = pb; pl < pe; ++pl) {
    const int64_t n = pl / p.c, c = pl % p.c;
    i8 nan{};
    const char *const plane = elem(x, esz, n, c, 0, 0);
    int16_t *const kplane = reinterpret_cast<int16_t *>(s.split);
    const bool kp = keys && key_split_plane(p.dtype, reinterpret_cast<const uint16_t *>(plane), p.h,
                                            p.w, x.sh, a.sw, pw_len, hstride, kplane);
    // A plane the key split refused (or a call without keys) is split as float32.
    for (int64_t h = 0; !kp && h < p.h; ++h) {
      const char *const row = plane + h * x.sh * esz;
      float *const dst = s.split + h * pw_len;
      if (in_place) {
        // The plane is dense: the rows below this one may be read too.
        split_row(reinterpret_cast<const float *>(row), p.w, (p.h - h) * p.w, a.sw, dst, hstride,
                  avx2, tested, nan);
      } else if (split16) {
        if (split_row16(p.dtype, row, p.w, a.sw, dst, hstride)) nan = i8{} - 1;
      } else {
        row_to_f32(p.isa, p.dtype, row, x.sw, p.w, s.rowf);
        split_row(s.rowf, p.w, p.w + 16, a.sw, dst, hstride, avx2, tested, nan);
      }
    }
    const bool no_nan = tested && !any_lane(nan);
    // The next plane is fetched while this one is computed, a share per output row (the split
    // above waited on memory for every line: a third of the time).
    SpreadPrefetch next;
    if (pl + 1 < pe && x.plane_dense())
      next =
          SpreadPrefetch(elem(x, esz, (pl + 1) / p.c, (pl + 1) % p.c, 0, 0), p.h * p.w * esz, p.ho);
    for (int64_t oh = 0; oh < p.ho; ++oh) {
      next.step(oh);
      const int64_t hs = oh * a.sh - a.ph;
      int64_t m0, m1;
      tap_range(hs, a.kh, a.dh, p.h, &m0, &m1);
      float *const orow = s.orow + (nt ? oh * p.wo : 0);
      // Key planes leave their values as the dtype's bits, in the same buffer.
      uint16_t *const obits = reinterpret_cast<uint16_t *>(s.orow) + (nt ? oh * p.wo : 0);
      int64_t *const irow = s.irow + (nt ? oh * p.wo : 0);
      auto scalar_at = [&](int64_t ow) {
        const int64_t ws = ow * a.sw - a.pw;
        int64_t q0, q1, bi;
        tap_range(ws, a.kw, a.dw, p.w, &q0, &q1);
        if (kp)
          key_scan_scalar(p.dtype, kplane, s.col_at, pw_len, p.w, hs, m0, m1, a.dh, ws, q0, q1,
                          a.dw, &obits[ow], &bi);
        else if (no_nan)
          scan_scalar<true>(s.split, s.col_at, pw_len, p.w, hs, m0, m1, a.dh, ws, q0, q1, a.dw,
                            &orow[ow], &bi);
        else
          scan_scalar<false>(s.split, s.col_at, pw_len, p.w, hs, m0, m1, a.dh, ws, q0, q1, a.dw,
                             &orow[ow], &bi);
        irow[ow] = bi;
      };
      int64_t ow = 0;
      if (vec_ok && m1 > m0) {
        for (; ow < ow_lo; ++ow) scalar_at(ow);
        // The row's taps in scan order (m, then q): where each reads in the split plane and its
        // index, both relative to the block's first output. Lane k adds k*sW to both.
        const bool full = full_rows && m0 == 0 && m1 == a.kh;
        const int64_t taps =
            full ? full_taps : (ow_hi > ow_lo ? fill_taps(m0, m1, hs, s.tap_at, s.tap_index) : 0);
        const int64_t *const tap_at = full ? s.full_at : s.tap_at;
        const uint32_t *const tap_index = full ? s.full_index : s.tap_index;
        const int64_t row_at = full ? hs * pw_len : 0;  // the full table is relative to row hs
        const uint32_t row_base = static_cast<uint32_t>(hs * p.w - a.pw);
        if (kp)
          key_scan_interior(kplane + row_at, tap_at, tap_index, taps, ow, ow_hi, a.sw, row_base,
                            obits, irow);
        else if (no_nan)
          scan_interior<true>(s.split + row_at, tap_at, tap_index, taps, ow, ow_hi, a.sw, row_base,
                              lane_off, orow, irow);
        else
          scan_interior<false>(s.split + row_at, tap_at, tap_index, taps, ow, ow_hi, a.sw, row_base,
                               lane_off, orow, irow);
        ow = ow_hi;
      }
      for (; ow < p.wo; ++ow) scalar_at(ow);
      if (nt) continue;  // the plane is written whole below
      if (kp)
        row_copy16(p.isa, obits, elem(out, esz, n, c, oh, 0), out.sw, p.wo, false);
      else
        row_from_f32(p.isa, p.dtype, orow, elem(out, esz, n, c, oh, 0), out.sw, p.wo, false);
      store_index_row(idx, p.index_dtype, n, c, oh, irow, p.wo);
    }
    if (nt) {
      if (kp)
        row_copy16(p.isa, reinterpret_cast<const uint16_t *>(s.orow), elem(out, esz, n, c, 0, 0), 1,
                   p.ho * p.wo, true);
      else
        row_from_f32(p.isa, p.dtype, s.orow, elem(out, esz, n, c, 0, 0), 1, p.ho * p.wo, true);
      index_row_out(p.isa, p.index_dtype, s.irow, elem(idx, isz, n, c, 0, 0), 1, p.ho * p.wo, true);
    }
  }
  if (nt) stream_fence();
}

POOLGRAD_FOR_ISA(forward_plane_range,
                 (const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                  const Strided4 &idx, int64_t pb, int64_t pe, Arena scratch),
                 (p, x, out, idx, pb, pe, scratch))

// ---- forward, channels-last (channel stride 1 in x, out and indices) ---------------------------
// Items are (n, oh) output rows. The window rows are read as float rows of W*C values (converted
// once per item for 16-bit dtypes); each output position runs over the taps 8 channels at a time. A
// window covers at most min(kH, H) input rows: the row tables are sized by that, not by kH.
struct FwdClScratch {
  float *rows = nullptr, *best = nullptr;  // best: the item's output row, Wout * C (+ 8 slack)
  int64_t *bidx = nullptr;
  const float **rowp = nullptr;
  // One output position's taps in scan order: where each reads (channel 0) and its index.
  const float **tap_src = nullptr;
  uint32_t *tap_index = nullptr;
  // Per input row ih: the image whose row ih was last checked for NaN (-1: none), and the result.
  int64_t *nan_tag = nullptr;
  bool *nan_row = nullptr;
};

bool fwd_cl_direct(const MaxPoolParams &p, const Strided4 &x) {
  return p.dtype == ACL_FLOAT && x.sw == p.c;
}

// An item's output row (Wout positions of C channels) is one dense run in out and indices.
bool fwd_cl_dense_rows(const MaxPoolParams &p, const Strided4 &out, const Strided4 &idx) {
  return out.sw == p.c && idx.sw == p.c;
}

void fwd_cl_layout(Arena &a, const MaxPoolParams &p, bool direct, FwdClScratch *s) {
  const int64_t rows = std::min(p.a.kh, p.h), cols = std::min(p.a.kw, p.w);
  s->rows = a.take<float>(direct ? 0 : rows * p.w * p.c);
  s->best = a.take<float>(p.wo * p.c + 8);
  s->bidx = a.take<int64_t>(p.wo * p.c + 8);
  s->rowp = a.take<const float *>(rows);
  s->tap_src = a.take<const float *>(rows * cols);
  s->tap_index = a.take<uint32_t>(rows * cols);
  s->nan_tag = a.take<int64_t>(p.h);
  s->nan_row = a.take<bool>(p.h);
}

// Outputs larger than the caches are written with streaming stores where each item's row is
// whole cache lines (as the plane forward does with planes).
bool fwd_cl_streams(const MaxPoolParams &p, const Strided4 &out, const Strided4 &idx) {
  const int64_t esz = dtype_size(p.dtype), isz = dtype_size(p.index_dtype), row = p.wo * p.c;
  return p.n * p.ho * row * (esz + isz) >= kStreamMinBytes && fwd_cl_dense_rows(p, out, idx) &&
         whole_lines(out, esz, row, out.sh, out.sn) && whole_lines(idx, isz, row, idx.sh, idx.sn);
}

POOLGRAD_BODY void forward_cl_range_body(const MaxPoolParams &p, const Strided4 &x,
                                         const Strided4 &out, const Strided4 &idx, int64_t ib,
                                         int64_t ie, Arena scratch) {
  const PoolAttrs &a = p.a;
  const int64_t esz = dtype_size(p.dtype), isz = dtype_size(p.index_dtype);
  const int64_t C = p.c;
  const bool f32 = fwd_cl_direct(p, x);
  const bool dense = fwd_cl_dense_rows(p, out, idx), nt = fwd_cl_streams(p, out, idx);
  // Streamed float32 rows go out a position at a time, from a position's worth of scratch that
  // stays in L1: an output row's scratch (42 KB for the ResNet stem) written out after the row
  // was 17% of the kernel's samples (resnet-stem-nhwc, best of 6 alternating runs: 2 threads
  // 6.15 -> 5.76 ms, 1 thread 12.1 -> 11.1). 16-bit dtypes keep the row write-out (conversion).
  const bool each = nt && has_avx2(p.isa) && p.dtype == ACL_FLOAT && C % 8 == 0;
  // The scan (maxpool_scan.cpp): with and without its NaN test.
  const ScanChannels scan_clean = scan_channels_for(p.isa, true),
                     scan_any = scan_channels_for(p.isa, false);
  FwdClScratch s;
  fwd_cl_layout(scratch, p, f32, &s);
  const bool small = p.h * p.w <= INT32_MAX;
  for (int64_t h = 0; h < p.h; ++h) s.nan_tag[h] = -1;
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
        for (int64_t iw = 0; iw < p.w; ++iw)
          row_to_f32(p.isa, p.dtype, elem(x, esz, n, 0, ih, iw), 1, C, dst + iw * C);
        rowp[m - m0] = dst;
      }
    }
    // The scan leaves its NaN test out where the window rows hold no NaN (each row checked once
    // an image).
    bool no_nan = true;
    for (int64_t m = m0; m < m1; ++m) {
      const int64_t ih = hs + m * a.dh;
      if (s.nan_tag[ih] != n) {
        s.nan_tag[ih] = n;
        s.nan_row[ih] = any_nan(rowp[m - m0], p.w * C);
      }
      no_nan &= !s.nan_row[ih];
    }
    // The rows the next item reads that this one does not are fetched into L2 over this item's
    // positions (the scan otherwise waits on memory for half its loads).
    SpreadPrefetch next[2];
    if (x.sw == C && item + 1 < ie) {
      const int64_t n1 = (item + 1) / p.ho, hs1 = ((item + 1) % p.ho) * a.sh - a.ph;
      int64_t k0, k1, fetch = 0;
      tap_range(hs1, a.kh, a.dh, p.h, &k0, &k1);
      for (int64_t m = k1 - 1; m >= k0 && fetch < 2; --m) {
        const int64_t ih = hs1 + m * a.dh;
        if (n1 == n && m1 > m0 && ih <= hs + (m1 - 1) * a.dh) break;  // read by this item already
        next[fetch++] = SpreadPrefetch(elem(x, esz, n1, 0, ih, 0), p.w * C * esz, p.wo);
      }
    }
    for (int64_t ow = 0; ow < p.wo; ++ow) {
      next[0].step(ow);
      next[1].step(ow);
      const int64_t ws = ow * a.sw - a.pw;
      int64_t q0, q1;
      tap_range(ws, a.kw, a.dw, p.w, &q0, &q1);
      float *const best = s.best + (each ? 0 : ow * C);
      int64_t *const bidx = s.bidx + (each ? 0 : ow * C);
      int64_t taps = 0;
      for (int64_t m = m0; m < m1; ++m)
        for (int64_t q = q0; q < q1; ++q, ++taps) {
          const int64_t iw = ws + q * a.dw;
          s.tap_src[taps] = rowp[m - m0] + iw * C;
          s.tap_index[taps] = static_cast<uint32_t>((hs + m * a.dh) * p.w + iw);
        }
      if (taps == 0) {  // no input element in the window
        for (int64_t c = 0; c < C; ++c) {
          best[c] = -std::numeric_limits<float>::infinity();
          bidx[c] = -1;
        }
      } else {
        // 8 channels at a time over the taps, the first tap initialising (larger, or NaN, replaces:
        // the first maximum wins, the last NaN wins).
        const int64_t c8 = small ? C / 8 * 8 : 0;
        (no_nan ? scan_clean : scan_any)(s.tap_src, s.tap_index, taps, c8, best, bidx);
        int64_t c = c8;
        // The remaining channels one at a time (and planes too large for 32-bit vector indices).
        for (; c < C; ++c) {
          float bv = s.tap_src[0][c];
          int64_t bi = (hs + m0 * a.dh) * p.w + ws + q0 * a.dw;
          int64_t t = 0;
          for (int64_t m = m0; m < m1; ++m)
            for (int64_t q = q0; q < q1; ++q, ++t) {
              const float v = s.tap_src[t][c];
              if (v > bv || v != v) {
                bv = v;
                bi = (hs + m * a.dh) * p.w + ws + q * a.dw;
              }
            }
          best[c] = bv;
          bidx[c] = bi;
        }
      }
      if (each) {
        stream_values_indices(p.index_dtype, best, bidx,
                              reinterpret_cast<float *>(elem(out, esz, n, 0, oh, ow)),
                              elem(idx, isz, n, 0, oh, ow), C);
      } else if (!dense) {
        row_from_f32(p.isa, p.dtype, best, elem(out, esz, n, 0, oh, ow), out.sc, C, false);
        for (int64_t cc = 0; cc < C; ++cc) store_index(idx, p.index_dtype, n, cc, oh, ow, bidx[cc]);
      }
    }
    if (dense && !each) {
      row_from_f32(p.isa, p.dtype, s.best, elem(out, esz, n, 0, oh, 0), 1, p.wo * C, nt);
      index_row_out(p.isa, p.index_dtype, s.bidx, elem(idx, isz, n, 0, oh, 0), 1, p.wo * C, nt);
    }
  }
  if (nt) stream_fence();
}

POOLGRAD_FOR_ISA(forward_cl_range,
                 (const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                  const Strided4 &idx, int64_t ib, int64_t ie, Arena scratch),
                 (p, x, out, idx, ib, ie, scratch))

// Each path below counts (workspace null: returns the bytes, runs nothing) or runs.
int64_t fwd_planes(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                   const Strided4 &idx, void *workspace) {
  return run_parts(
      p.threads, p.n * p.c, workspace,
      [&](Arena &a) {
        FwdPlaneScratch s;
        fwd_plane_layout(a, p, fwd_plane_in_place(p, x), fwd_plane_keys(p, x),
                         fwd_plane_streams(p, out, idx), &s);
      },
      [&](int64_t b, int64_t e, Arena a, FirstError *) {
        forward_plane_range(p, x, out, idx, b, e, a);
      },
      nullptr);
}

int64_t fwd_cl(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out, const Strided4 &idx,
               void *workspace) {
  const bool direct = fwd_cl_direct(p, x);
  return run_parts(
      p.threads, p.n * p.ho, workspace,
      [&](Arena &a) {
        FwdClScratch s;
        fwd_cl_layout(a, p, direct, &s);
      },
      [&](int64_t b, int64_t e, Arena a, FirstError *) {
        forward_cl_range(p, x, out, idx, b, e, a);
      },
      nullptr);
}

}  // namespace

int64_t maxpool_forward_planes_workspace(const MaxPoolParams &p, const Strided4 &x,
                                         const Strided4 &out, const Strided4 &idx) {
  return fwd_planes(p, x, out, idx, nullptr);
}
FirstError maxpool_forward_planes(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                  const Strided4 &idx, void *workspace) {
  fwd_planes(p, x, out, idx, workspace);
  return {};
}
int64_t maxpool_forward_cl_workspace(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                     const Strided4 &idx) {
  return fwd_cl(p, x, out, idx, nullptr);
}
FirstError maxpool_forward_cl(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                              const Strided4 &idx, void *workspace) {
  fwd_cl(p, x, out, idx, workspace);
  return {};
}

bool maxpool_channels_last(const Strided4 &a, const Strided4 &b, const Strided4 &c) {
  return channels_last(a) && channels_last(b) && channels_last(c);
}

}  // namespace poolgrad
