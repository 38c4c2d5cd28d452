// SPDX-License-Identifier: Apache-2.0
// The max-pool 2-D forward's range bodies (maxpool_forward_parts.h), written once with Google
// Highway and compiled for each target of core/hwy_targets.h; the ISA table's row picks the target
// (forward_plane_range, forward_cl_range below). maxpool_forward.cpp has the layouts and the
// conditions these bodies read.
//
// Vectors hold up to 8 float lanes (CappedTag): AVX2's 8, NEON's 4, the SVE CPU's count capped at
// 8, one or four on the fallback. The split plane's padding and the scratch's slack are counted
// in 8-float vectors, so every target's blocks fit them.
//
// Why one file of about 630 lines: the two bodies are each one pass over the input whose steps
// (split, scan, write-out) only make sense next to each other, and they share the NaN test.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/maxpool/maxpool_forward_hwy.cpp"  // from the source root
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "../core/prefetch.h"
#include "../core/simd.h"
#include "maxpool_common.h"
#include "maxpool_forward_keys.h"
#include "maxpool_forward_parts.h"
#include "maxpool_scan.h"

// The target set first, then Highway's headers (core/hwy_targets.h).
// clang-format off
#include "../core/hwy_targets.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace poolgrad {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using namespace maxpool_detail;

using DF = hn::CappedTag<float, 8>;
using DU = hn::RebindToUnsigned<DF>;
using VF = hn::Vec<DF>;
using VU = hn::Vec<DU>;

// Whether this target converts 16-bit rows as it splits them (the fallback converts them through
// row_to_f32, the portable rows' conversion).
constexpr bool kVectorTarget = HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128;

// All lanes set where a or b is NaN.
HWY_INLINE VF NanLanes(VF a, VF b) {
  const DF df;
  return hn::VecFromMask(df, hn::Or(hn::IsNaN(a), hn::IsNaN(b)));
}
HWY_INLINE bool AnyLane(VF v) {
  const DF df;
  return !hn::AllFalse(df, hn::MaskFromVec(v));
}

// Whether any of the n floats is NaN.
HWY_INLINE bool AnyNan(const float *v, int64_t n) {
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  VF acc = hn::Zero(df);
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N)
    acc = hn::Or(acc, NanLanes(hn::LoadU(df, v + i), hn::LoadU(df, v + i + N)));
  bool any = AnyLane(acc);
  for (; i < n; ++i) any |= v[i] != v[i];
  return any;
}

// N int32 lanes (wrapping uint32 sums) stored as N int64 (sign-extended).
HWY_INLINE void StoreWidened(int64_t *dst, VU v) {
#if HWY_TARGET == HWY_SCALAR
  dst[0] = static_cast<int32_t>(hn::GetLane(v));
#else
  const hn::RebindToSigned<DU> di;
  const hn::Half<decltype(di)> dh;
  const hn::Repartition<int64_t, decltype(di)> d64;
  const auto s = hn::BitCast(di, v);
  hn::StoreU(hn::PromoteTo(d64, hn::LowerHalf(dh, s)), d64, dst);
  hn::StoreU(hn::PromoteTo(d64, hn::UpperHalf(dh, s)), d64, dst + hn::Lanes(dh));
#endif
}

// One tap of the window scan: the running maximum takes v where v is larger, or NaN (the first
// maximum wins, the last NaN wins), and the index the tap's relative index ti. kNoNan: the caller
// knows no tap is NaN, and the NaN test (two of the step's five operations) is left out. The
// indices ride in float lanes (their bits; no arithmetic until StoreBlock), as in
// roipool_blocks.cpp, where an integer blend of the float compare's mask (vpblendvb on AVX2)
// measured 7-10% slower.
template <bool kNoNan>
HWY_INLINE void ScanStep(VF &best, VF &bidx, VF v, VF ti) {
#if HWY_TARGET == HWY_AVX2
  // GCC 12 compiles Highway's IfThenElse (blendvps of a compare's mask) with a vpcmpgtd before each
  // blend, redoing the blend's sign test: one more operation on the chain from one tap to the
  // next, which rows of one block (14x14 planes) wait on. As GCC vector operations the compare
  // feeds the blends directly (small-planes, 1 thread: 6.75 -> 6.43 ms; docs/profiles.md).
  const __m256 x = v.raw, b = best.raw;
  const auto take = kNoNan ? (x > b) : ((x > b) | (x != x));
  best.raw = take ? x : b;
  bidx.raw = take ? ti.raw : bidx.raw;
#else
  const auto take = kNoNan ? hn::Gt(v, best) : hn::Or(hn::Gt(v, best), hn::IsNaN(v));
  best = hn::IfThenElse(take, v, best);
  bidx = hn::IfThenElse(take, ti, bidx);
#endif
}

// The relative index i as float lanes' bits.
HWY_INLINE VF IndexLanes(uint32_t i) {
  const DF df;
  const DU du;
  return hn::BitCast(df, hn::Set(du, i));
}

// A block of outputs: values, and indices = the winning taps' relative indices + the block's first
// index + each lane's offset. Lanes past the row's last output may lie past H*W: wrapping 32-bit
// sums, discarded.
HWY_INLINE void StoreBlock(float *orow, int64_t *irow, VF best, VF bidx, uint32_t first,
                           VU lane_off) {
  const DF df;
  const DU du;
  hn::StoreU(best, df, orow);
  StoreWidened(irow, hn::Add(hn::Add(hn::BitCast(du, bidx), hn::Set(du, first)), lane_off));
}

// The interior outputs [ow, ow_hi) of one output row, a vector at a time; at = the split plane at
// the row's first tap row. The last block may be partial: its extra lanes read the split buffer's
// slack or the next row, and are stored into what later outputs overwrite (or the slack). The
// scan keeps the winning tap's relative index; the block's first index (row_base + ow*sW) is added
// once. Two blocks go through the taps together where there are two: each tap's compare and
// blends wait on the previous tap's, and a second independent chain fills those cycles.
template <bool kNoNan>
HWY_INLINE void ScanInterior(const float *at, const int64_t *tap_at, const uint32_t *tap_index,
                             int64_t taps, int64_t ow, int64_t ow_hi, int64_t sw, uint32_t row_base,
                             VU lane_off, float *orow, int64_t *irow) {
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  for (; ow + N < ow_hi; ow += 2 * N) {
    const float *const block = at + ow;  // (named: the compiler otherwise adds ow at every tap)
    VF best0 = hn::LoadU(df, block + tap_at[0]), best1 = hn::LoadU(df, block + N + tap_at[0]);
    VF bidx0 = IndexLanes(tap_index[0]), bidx1 = bidx0;
    for (int64_t t = 1; t < taps; ++t) {
      const VF ti = IndexLanes(tap_index[t]);
      ScanStep<kNoNan>(best0, bidx0, hn::LoadU(df, block + tap_at[t]), ti);
      ScanStep<kNoNan>(best1, bidx1, hn::LoadU(df, block + N + tap_at[t]), ti);
    }
    StoreBlock(orow + ow, irow + ow, best0, bidx0, row_base + static_cast<uint32_t>(ow * sw),
               lane_off);
    StoreBlock(orow + ow + N, irow + ow + N, best1, bidx1,
               row_base + static_cast<uint32_t>((ow + N) * sw), lane_off);
  }
  if (ow < ow_hi) {
    VF best = hn::LoadU(df, at + ow + tap_at[0]);
    VF bidx = IndexLanes(tap_index[0]);
    for (int64_t t = 1; t < taps; ++t)
      ScanStep<kNoNan>(best, bidx, hn::LoadU(df, at + ow + tap_at[t]), IndexLanes(tap_index[t]));
    StoreBlock(orow + ow, irow + ow, best, bidx, row_base + static_cast<uint32_t>(ow * sw),
               lane_off);
  }
}

// Columns j .. j + 2N of a row (a: the first N, b: the next N) stored split by column phase, for
// column stride kSw = 1 or 2 (j a multiple of 2N), as whole vectors (a row's last block stays in
// its row: split_pitch).
template <int kSw>
HWY_INLINE void StoreSplit(VF a, VF b, float *dst, int64_t phase_stride, int64_t j) {
  const DF df;
  if (kSw == 1) {
    hn::StoreU(a, df, dst + j);
    hn::StoreU(b, df, dst + j + hn::Lanes(df));
    return;
  }
#if HWY_TARGET == HWY_SCALAR
  hn::StoreU(a, df, dst + j / 2);
  hn::StoreU(b, df, dst + phase_stride + j / 2);
#else
  hn::StoreU(hn::ConcatEven(df, b, a), df, dst + j / 2);
  hn::StoreU(hn::ConcatOdd(df, b, a), df, dst + phase_stride + j / 2);
#endif
}

// The last W - j (< 2N) columns of a row at column stride 1 or 2, split as one block whose missing
// columns are 0 (a, b: the block, loaded whole and masked). (At stride 1, b holds only columns
// past the row where rest <= N, and is not stored: the pitch is a multiple of 8, not 16.)
// Returns the block's NaN lanes.
HWY_INLINE VF StoreSplitTail(VF a, VF b, float *dst, int64_t phase_stride, int64_t j, int64_t rest,
                             int64_t sw) {
  const DF df;
  if (sw == 1 && rest <= static_cast<int64_t>(hn::Lanes(df)))
    hn::StoreU(a, df, dst + j);
  else if (sw == 1)
    StoreSplit<1>(a, b, dst, phase_stride, j);
  else
    StoreSplit<2>(a, b, dst, phase_stride, j);
  return NanLanes(a, b);
}

// Row `row` of W floats split by column phase: phase r's columns r, r + sW, ... go to
// dst + r*phase_stride. Strides 2 (the common case) and 1 go 2N columns at a time (a branch on
// the stride inside one loop made 14-column rows 20% slower), and their last < 2N columns as one
// masked block where `readable` (the floats from `row` that may be read) allows a whole block
// (masked loads, vmaskmovps on AVX2, made 14x14 planes 30% slower on this machine's AMD EPYC than
// the phase-by-phase loop this replaced: the block is loaded whole and masked in registers);
// otherwise (a plane's last row or two) they go phase by phase. Lanes of `nan` are set where a
// column was NaN (the scan leaves its NaN test out of planes without one), except in a
// phase-by-phase rest without `test`. (One test a plane, not a row: a test a row made 14x14 planes
// 10% slower.)
HWY_INLINE void SplitRow(const float *row, int64_t W, int64_t readable, int64_t sw, float *dst,
                         int64_t phase_stride, bool test, VF &nan) {
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  int64_t j = 0;
  if (sw == 2) {
    for (; j + 2 * N <= W; j += 2 * N) {
      const VF a = hn::LoadU(df, row + j), b = hn::LoadU(df, row + j + N);
      nan = hn::Or(nan, NanLanes(a, b));
      StoreSplit<2>(a, b, dst, phase_stride, j);
    }
  } else if (sw == 1) {
    for (; j + 2 * N <= W; j += 2 * N) {
      const VF a = hn::LoadU(df, row + j), b = hn::LoadU(df, row + j + N);
      nan = hn::Or(nan, NanLanes(a, b));
      StoreSplit<1>(a, b, dst, phase_stride, j);
    }
  }
  if (j == W) return;
  if (sw <= 2 && j + 2 * N <= readable) {
    const int64_t rest = W - j;
    const VF a =
        hn::IfThenElseZero(hn::FirstN(df, static_cast<size_t>(rest)), hn::LoadU(df, row + j));
    const VF b = hn::IfThenElseZero(hn::FirstN(df, static_cast<size_t>(rest > N ? rest - N : 0)),
                                    hn::LoadU(df, row + j + N));
    nan = hn::Or(nan, StoreSplitTail(a, b, dst, phase_stride, j, rest, sw));
    return;
  }
  // The rest phase by phase, from column j = t0 * sW (j is 0 for strides past 2: no division).
  const int64_t t0 = sw == 2 ? j / 2 : j;
  for (int64_t r = 0; r < sw && j + r < W; ++r) {
    float *const d = dst + r * phase_stride;
    for (int64_t jj = j + r, t = t0; jj < W; jj += sw, ++t) d[t] = row[jj];
  }
  if (!test) return;
  // The rest's NaN test: vectors ending at W (they may overlap columns tested above).
  if (W >= N) {
    for (int64_t k = j; k < W; k += N) {
      const VF t = hn::LoadU(df, row + std::min(k, W - N));
      nan = hn::Or(nan, NanLanes(t, t));
    }
    return;
  }
  for (int64_t k = 0; k < W; ++k)
    if (row[k] != row[k]) nan = hn::VecFromMask(df, hn::FirstN(df, hn::Lanes(df)));
}

// N 16-bit values from p as float32 (bfloat16: a shift; float16: the target's conversion, F16C's
// or FCVTL's, as row_to_f32 converts on those rows).
template <aclDataType D>
HWY_INLINE VF Load16(const uint16_t *p) {
  const DF df;
  if constexpr (D == ACL_BF16) {
    const hn::Rebind<uint16_t, DF> d16;
    const DU du;
    return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du, hn::LoadU(d16, p))));
  } else {
    const hn::Rebind<hwy::float16_t, DF> dh;
    return hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t *>(p)));
  }
}

// SplitRow for a dense 16-bit row at column stride kSw = 1 or 2, converting as it loads (without
// the float row between the two passes); the last < 2N columns are converted from a zeroed block
// and split whole. Lanes of `nan` are set where a column was NaN.
template <aclDataType D, int kSw>
HWY_INLINE void SplitRow16(const uint16_t *row, int64_t W, float *dst, int64_t phase_stride,
                           VF &nan) {
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  int64_t j = 0;
  for (; j + 2 * N <= W; j += 2 * N) {
    const VF a = Load16<D>(row + j), b = Load16<D>(row + j + N);
    nan = hn::Or(nan, NanLanes(a, b));
    StoreSplit<kSw>(a, b, dst, phase_stride, j);
  }
  if (j < W) {
    uint16_t tail[16] = {};  // +0.0 in both formats
    std::memcpy(tail, row + j, static_cast<size_t>(W - j) * 2);
    nan = hn::Or(nan, StoreSplitTail(Load16<D>(tail), Load16<D>(tail + N), dst, phase_stride, j,
                                     W - j, kSw));
  }
}

// Returns the row's NaN lanes by value: a vector whose address a call takes lives in memory for
// the whole plane loop, which put the in-place split's accumulator on the stack (a load and a
// store a row).
VF SplitRowHalf(aclDataType dtype, const char *row, int64_t W, int64_t sw, float *dst,
                int64_t phase_stride) {
  VF nan = hn::Zero(DF());
  const uint16_t *const r = reinterpret_cast<const uint16_t *>(row);
  if (dtype == ACL_BF16 && sw == 1)
    SplitRow16<ACL_BF16, 1>(r, W, dst, phase_stride, nan);
  else if (dtype == ACL_BF16)
    SplitRow16<ACL_BF16, 2>(r, W, dst, phase_stride, nan);
  else if (sw == 1)
    SplitRow16<ACL_FLOAT16, 1>(r, W, dst, phase_stride, nan);
  else
    SplitRow16<ACL_FLOAT16, 2>(r, W, dst, phase_stride, nan);
  return nan;
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

// ---- planes ------------------------------------------------------------------------------------
void ForwardPlaneRange(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                       const Strided4 &idx, int64_t pb, int64_t pe, Arena scratch) {
  const PoolAttrs &a = p.a;
  const int64_t esz = dtype_size(p.dtype), isz = dtype_size(p.index_dtype);
  const bool nt = fwd_plane_streams(p, out, idx);
  const bool keys = fwd_plane_keys(p, x);
  const int64_t pw_len = split_pitch(p, keys);  // elements per split row
  const int64_t hstride = p.h * pw_len;         // floats per phase
  const bool in_place = fwd_plane_in_place(p, x);
  const int64_t ahead = fwd_plane_fetch_ahead(p, x);
  FwdPlaneScratch s;
  fwd_plane_layout(scratch, p, in_place, keys, nt, &s);
  for (int64_t j = 0; j < p.w; ++j) s.col_at[j] = (j % a.sw) * hstride + j / a.sw;
  // Rows split by vectors only (column stride 1 or 2) are NaN-tested for free. Other planes
  // narrower than 16 columns keep the NaN-aware scan: a scalar test of their columns cost more
  // than the scan it saves (14x14 planes: 15% slower with it).
  const bool tested = a.sw <= 2 || p.w >= 16;
  // Dense 16-bit rows at column stride 1 or 2 are converted as they are split.
  const bool split16 = kVectorTarget && !in_place && p.dtype != ACL_FLOAT && x.sw == 1 && a.sw <= 2;
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
  // Lane k of an output block reads column k*sW further: the index offsets of the lanes.
  const DF df;
  const DU du;
  const VU lane_off = hn::Mul(hn::Iota(du, 0), hn::Set(du, static_cast<uint32_t>(a.sw)));
  for (int64_t pl = pb; pl < pe; ++pl) {
    const int64_t n = pl / p.c, c = pl % p.c;
    VF nan = hn::Zero(df);
    const char *const plane = elem(x, esz, n, c, 0, 0);
    int16_t *const kplane = reinterpret_cast<int16_t *>(s.split);
    const bool kp = keys && key_split_plane(p.dtype, reinterpret_cast<const uint16_t *>(plane), p.h,
                                            p.w, x.sh, a.sw, pw_len, hstride, kplane);
    // A plane the key split refused (or a call without keys) is split as float32.
    for (int64_t h = 0; !kp && h < p.h; ++h) {
      const char *const row = plane + h * x.sh * esz;
      float *const dst = s.split + h * pw_len;
      if (in_place) {
        if (ahead > 0 && h + ahead < p.h) prefetch_bytes<3>(row + ahead * x.sh * esz, p.w * esz);
        // The plane is dense: the rows below this one may be read too.
        SplitRow(reinterpret_cast<const float *>(row), p.w, (p.h - h) * p.w, a.sw, dst, hstride,
                 tested, nan);
      } else if (split16) {
        nan = hn::Or(nan, SplitRowHalf(p.dtype, row, p.w, a.sw, dst, hstride));
      } else {
        row_to_f32(p.isa, p.dtype, row, x.sw, p.w, s.rowf);
        SplitRow(s.rowf, p.w, p.w + 16, a.sw, dst, hstride, tested, nan);
      }
    }
    const bool no_nan = tested && !AnyLane(nan);
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
          ScanInterior<true>(s.split + row_at, tap_at, tap_index, taps, ow, ow_hi, a.sw, row_base,
                             lane_off, orow, irow);
        else
          ScanInterior<false>(s.split + row_at, tap_at, tap_index, taps, ow, ow_hi, a.sw, row_base,
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

// ---- channels-last ----------------------------------------------------------------------------
void ForwardClRange(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                    const Strided4 &idx, int64_t ib, int64_t ie, Arena scratch) {
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
        s.nan_row[ih] = AnyNan(rowp[m - m0], p.w * C);
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

}  // namespace HWY_NAMESPACE
}  // namespace poolgrad
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "../core/hwy_pick.h"

namespace poolgrad {
namespace maxpool_detail {

#define POOLGRAD_PLANE(ns) ns::ForwardPlaneRange
#define POOLGRAD_CL(ns) ns::ForwardClRange
void forward_plane_range(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                         const Strided4 &idx, int64_t pb, int64_t pe, Arena scratch) {
  POOLGRAD_HWY_FN(p.isa, POOLGRAD_PLANE)(p, x, out, idx, pb, pe, scratch);
}
void forward_cl_range(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                      const Strided4 &idx, int64_t ib, int64_t ie, Arena scratch) {
  POOLGRAD_HWY_FN(p.isa, POOLGRAD_CL)(p, x, out, idx, ib, ie, scratch);
}
#undef POOLGRAD_PLANE
#undef POOLGRAD_CL

}  // namespace maxpool_detail
}  // namespace poolgrad
#endif  // HWY_ONCE
