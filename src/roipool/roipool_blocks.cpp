// SPDX-License-Identifier: Apache-2.0
// The RoI pooling forward's sixteen-channel blocks (roipool_blocks.h), written once with Google
// Highway and compiled for each target of core/hwy_targets.h; the ISA table's row picks the
// target (forward_blocks below). Vectors hold up to 8 lanes (CappedTag): a block's 16 channels
// are two AVX2 vectors, four NEON ones. The 8 x 8 transposes between the channel-major map and
// the pixel-major block are AVX2 shuffles on x86 and element copies elsewhere (NEON has no 8-lane
// register; the copies are once per block and per ROI, against the bins' scans).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/roipool/roipool_blocks.cpp"  // from the source root
#include "roipool_blocks.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "../core/simd.h"
#include "roipool_forward_keys.h"

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

using namespace roi_detail;

// dst[j * ds + i] = src[i * ss + j] for an 8 x 8 block of 32-bit values.
HWY_INLINE void Transpose8x8(const float *src, int64_t ss, float *dst, int64_t ds) {
#if HWY_TARGET == HWY_AVX2
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * ss);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(dst + i * ds, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
    _mm256_storeu_ps(dst + (i + 4) * ds, _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
  }
#else
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) dst[j * ds + i] = src[i * ss + j];
#endif
}

// Channels [c0, c0 + cn) of batch b into hwc ([h * w][16]; lanes from cn on are 0).
void GatherBlock(const RoiParams &p, const Strided4 &x, int64_t b, int64_t c0, int64_t cn,
                 float *hwc, float *row) {
  const int64_t esz = dtype_size(p.dtype), hw = p.h * p.w;
  if (cn == kFwdLanes && x.sw == 1) {
    // Full blocks of dense rows: 8 x 8 transposes (8 channels by 8 pixels), the row tails one by
    // one; float32 rows in place, 16-bit ones converted first, 8 rows at a time, into `row`.
    for (int64_t l0 = 0; l0 < kFwdLanes; l0 += 8)
      for (int64_t h = 0; h < p.h; ++h) {
        const float *src;
        int64_t ss;
        if (p.dtype == ACL_FLOAT) {
          src = reinterpret_cast<const float *>(elem(x, 4, b, c0 + l0, h, 0));
          ss = x.sc;
        } else {
          for (int64_t l = 0; l < 8; ++l)
            row_to_f32(p.isa, p.dtype, elem(x, esz, b, c0 + l0 + l, h, 0), 1, p.w, row + l * p.w);
          src = row;
          ss = p.w;
        }
        float *d = hwc + h * p.w * kFwdLanes + l0;
        int64_t w = 0;
        for (; w + 8 <= p.w; w += 8) Transpose8x8(src + w, ss, d + w * kFwdLanes, kFwdLanes);
        for (; w < p.w; ++w)
          for (int64_t l = 0; l < 8; ++l) d[w * kFwdLanes + l] = src[l * ss + w];
      }
    return;
  }
  if (cn < kFwdLanes) std::memset(hwc, 0, static_cast<size_t>(hw * kFwdLanes) * 4);
  for (int64_t l = 0; l < cn; ++l)
    for (int64_t h = 0; h < p.h; ++h) {
      row_to_f32(p.isa, p.dtype, elem(x, esz, b, c0 + l, h, 0), x.sw, p.w, row);
      float *d = hwc + h * p.w * kFwdLanes + l;
      for (int64_t w = 0; w < p.w; ++w) d[w * kFwdLanes] = row[w];
    }
}

// Bin rows [ib, ie) of one ROI for the 16 lanes of hwc: yb and ab are [ie - ib][pw][16]. Kept out
// of line, with the ROI's edges and sizes in locals: inlined into ForwardBlocks, GCC spilled the
// bin loop's state to the stack and reloaded the edges after every store (vector stores may alias
// them). (A call a bin row instead of a ROI made mask-14 7% slower.) The 16 lanes go two vectors
// at a time through the window (two independent chains): once on AVX2, twice on NEON.
HWY_NOINLINE void ForwardBinRows(const RoiParams &p, const float *hwc, const RoiGeom &g, int64_t ib,
                                 int64_t ie, float *yb, int32_t *ab) {
  const hn::CappedTag<float, 8> df;
  const hn::RebindToSigned<decltype(df)> di;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  const auto ninf = hn::Set(df, -std::numeric_limits<float>::infinity());
  // The argmax lanes are blended as floats (their bits, never arithmetic): an integer blend of a
  // float compare's mask (vpblendvb) made fpn-p2 7-10% slower on this AMD host than vblendvps.
  const auto none = hn::BitCast(df, hn::Set(di, -1));
  const auto one = hn::Set(di, 1);
  const int64_t pw = p.pw, w = p.w;
  const int64_t *const hs = g.hs, *const he = g.he, *const ws = g.ws, *const we = g.we;
  const bool empty = g.empty;
  for (int64_t i = ib; i < ie; ++i)
    for (int64_t j = 0; j < pw; ++j) {
      const int64_t h0 = hs[i], h1 = he[i], w0 = ws[j], w1 = we[j];
      const int64_t k = ((i - ib) * pw + j) * kFwdLanes;
      for (int64_t l = 0; l < kFwdLanes; l += 2 * N) {
        auto b0 = hn::Zero(df), b1 = b0;
        auto i0 = none, i1 = none;
        if (!empty && h1 > h0 && w1 > w0) {
          b0 = b1 = ninf;
          for (int64_t hh = h0; hh < h1; ++hh) {
            const float *px = hwc + (hh * w + w0) * kFwdLanes + l;
            // h * w <= 2^20 here, so pixel numbers fit the int32 lanes.
            auto pix = hn::Set(di, static_cast<int32_t>(hh * w + w0));
            for (int64_t ww = w0; ww < w1; ++ww, px += kFwdLanes) {
              auto v0 = hn::LoadU(df, px), v1 = hn::LoadU(df, px + N);
#if HWY_TARGET == HWY_AVX2
              // Held in registers: GCC otherwise loads each twice (for the compare and the max),
              // four 32-byte loads a pixel where the load ports allow two a cycle.
              __asm__("" : "+x"(v0.raw), "+x"(v1.raw));
#endif
              const auto m0 = hn::Gt(v0, b0), m1 = hn::Gt(v1, b1);
              // v > b ? v : b: NaN and ties keep b, as the compare does (AVX2's maxps(v, b) is
              // exactly that; NEON's fmax would return the NaN).
#if HWY_TARGET == HWY_AVX2
              b0 = hn::Max(v0, b0);
              b1 = hn::Max(v1, b1);
#else
              b0 = hn::IfThenElse(m0, v0, b0);
              b1 = hn::IfThenElse(m1, v1, b1);
#endif
              i0 = hn::IfThenElse(m0, hn::BitCast(df, pix), i0);
              i1 = hn::IfThenElse(m1, hn::BitCast(df, pix), i1);
              pix = hn::Add(pix, one);
            }
          }
        }
        hn::StoreU(b0, df, yb + k + l);
        hn::StoreU(b1, df, yb + k + l + N);
        hn::StoreU(hn::BitCast(di, i0), di, ab + k + l);
        hn::StoreU(hn::BitCast(di, i1), di, ab + k + l + N);
      }
    }
}

// The bins of ROIs rois[0 .. nr) (a group) into yb and ab ([nr][bins][16]). A group of more than
// one ROI takes its bin rows in order of their first map row (a counting sort; a row's bin rows in
// group order); every bin's result is the same in any order.
void ForwardGroup(const RoiParams &p, const float *hwc, const RoiGeom *geo, const int64_t *rois,
                  int64_t nr, const BlockScratch &s, float *yb, int32_t *ab) {
  const int64_t row_lanes = p.pw * kFwdLanes;
  if (nr == 1) {
    ForwardBinRows(p, hwc, geo[rois[0]], 0, p.ph, yb, ab);
    return;
  }
  int64_t *const starts = s.starts, *const units = s.units;
  std::fill(starts, starts + p.h + 2, 0);
  for (int64_t q = 0; q < nr; ++q)
    for (int64_t i = 0; i < p.ph; ++i) ++starts[geo[rois[q]].hs[i] + 1];
  for (int64_t h = 0; h <= p.h; ++h) starts[h + 1] += starts[h];
  for (int64_t q = 0; q < nr; ++q)
    for (int64_t i = 0; i < p.ph; ++i) units[starts[geo[rois[q]].hs[i]]++] = q * p.ph + i;
  for (int64_t u = 0; u < nr * p.ph; ++u) {
    const int64_t q = units[u] / p.ph, i = units[u] % p.ph;
    ForwardBinRows(p, hwc, geo[rois[q]], i, i + 1, yb + (q * p.ph + i) * row_lanes,
                   ab + (q * p.ph + i) * row_lanes);
  }
}

// yt[l * bins + t] = yb[t * 16 + l] for lanes l < cn: the [bins][16] results as 16 runs of bins.
void LanesToRuns(const float *yb, int64_t bins, int64_t cn, float *yt) {
  int64_t t = 0;
  if (cn == kFwdLanes)
    for (; t + 8 <= bins; t += 8)
      for (int64_t l0 = 0; l0 < kFwdLanes; l0 += 8)
        Transpose8x8(yb + t * kFwdLanes + l0, kFwdLanes, yt + l0 * bins + t, bins);
  for (; t < bins; ++t)
    for (int64_t l = 0; l < cn; ++l) yt[l * bins + t] = yb[t * kFwdLanes + l];
}

void ForwardBlocks(const RoiParams &p, const Strided4 &x, const RoiGeom *geo, const Buckets &bk,
                   int64_t chunks, const Strided4 &y, const Strided4 &am, bool nt, bool keys,
                   int64_t ib, int64_t ie, Arena scratch) {
  const int64_t esz = dtype_size(p.dtype), bins = p.ph * p.pw, group = roi_group(p);
  BlockScratch sc;
  blocks_layout(scratch, p, &sc);
  float *const hwc = sc.hwc, *const row = sc.row, *const yb = sc.yb, *const yt = sc.yt;
  int32_t *const ab = sc.ab, *const at = sc.at;
  // The (ph, pw) grid of y and argmax is one run of ph*pw values, and the channels' runs are
  // adjacent: a block's output is one run of cn*ph*pw values in each.
  const bool flat = y.sw == 1 && y.sh == p.pw && am.sw == 1 && am.sh == p.pw;
  const bool dense = flat && y.sc == bins && am.sc == bins;
  int64_t have = -1;   // the (batch, block) pair now in hwc
  bool keyed = false;  // hwc holds that pair as keys (roipool_forward_keys.h)
  int16_t *const khwc = reinterpret_cast<int16_t *>(hwc);
  for (int64_t item = ib; item < ie; ++item) {
    const FwdItem it = forward_item(p, bk, chunks, item);
    const int64_t c0 = it.c0, cn = std::min(kFwdLanes, p.c - c0);
    if (it.k0 == it.k1) continue;
    if (it.pair != have) {
      keyed = keys && cn == kFwdLanes && roi_gather_keys(p, x, it.b, c0, khwc);
      if (!keyed) GatherBlock(p, x, it.b, c0, cn, hwc, row);
      have = it.pair;
    }
    for (int64_t k = it.k0; k < it.k1; ++k) {
      const int64_t r = bk.order[k];
      if (keyed) {
        // Values and argmax packed in one int32 a result: one transpose for both.
        roi_forward_keys(p, khwc, geo[r], ab);
        LanesToRuns(reinterpret_cast<const float *>(ab), bins, cn, reinterpret_cast<float *>(at));
        if (dense) {
          roi_keys_write_run(at, cn * bins, reinterpret_cast<uint16_t *>(elem(y, 2, r, c0, 0, 0)),
                             reinterpret_cast<int32_t *>(elem(am, 4, r, c0, 0, 0)), nt);
          continue;
        }
        for (int64_t l = 0; l < cn; ++l)
          for (int64_t i = 0; i < p.ph; ++i)
            for (int64_t j = 0; j < p.pw; ++j) {
              const int64_t o = l * bins + i * p.pw + j;
              roi_keys_write_run(at + o, 1,
                                 reinterpret_cast<uint16_t *>(elem(y, 2, r, c0 + l, i, j)),
                                 reinterpret_cast<int32_t *>(elem(am, 4, r, c0 + l, i, j)), false);
            }
        continue;
      }
      // A group's bins are scanned at its first ROI, and written out ROI by ROI.
      const int64_t q = (k - it.k0) % group, o = q * bins * kFwdLanes;
      if (q == 0) ForwardGroup(p, hwc, geo, bk.order + k, std::min(group, it.k1 - k), sc, yb, ab);
      LanesToRuns(yb + o, bins, cn, yt);
      LanesToRuns(reinterpret_cast<const float *>(ab + o), bins, cn, reinterpret_cast<float *>(at));
      if (dense) {
        row_from_f32(p.isa, p.dtype, yt, elem(y, esz, r, c0, 0, 0), 1, cn * bins, nt);
        // argmax bits pass through float32 loads and stores unchanged (no arithmetic).
        row_from_f32(p.isa, ACL_FLOAT, reinterpret_cast<const float *>(at),
                     elem(am, 4, r, c0, 0, 0), 1, cn * bins, nt);
        continue;
      }
      for (int64_t l = 0; l < cn; ++l)
        for (int64_t i = 0; i < p.ph; ++i) {
          const int64_t o = l * bins + i * p.pw;
          row_from_f32(p.isa, p.dtype, yt + o, elem(y, esz, r, c0 + l, i, 0), y.sw, p.pw, false);
          int32_t *arow = reinterpret_cast<int32_t *>(elem(am, 4, r, c0 + l, i, 0));
          for (int64_t j = 0; j < p.pw; ++j) arow[j * am.sw] = at[o + j];
        }
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
namespace roi_detail {

void forward_blocks(const RoiParams &p, const Strided4 &x, const RoiGeom *geo, const Buckets &bk,
                    int64_t chunks, const Strided4 &y, const Strided4 &am, bool nt, bool keys,
                    int64_t ib, int64_t ie, Arena scratch) {
#define POOLGRAD_BLOCKS(ns) ns::ForwardBlocks
  POOLGRAD_HWY_FN(p.isa, POOLGRAD_BLOCKS)(p, x, geo, bk, chunks, y, am, nt, keys, ib, ie, scratch);
#undef POOLGRAD_BLOCKS
}

}  // namespace roi_detail
}  // namespace poolgrad
#endif  // HWY_ONCE
