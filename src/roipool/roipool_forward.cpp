// SPDX-License-Identifier: Apache-2.0
// RoI pooling forward kernels.
//
// Sixteen-channel blocks (AVX2): the ROIs are bucketed by batch index; items are (batch, block of
// 16 channels, run of ROIs). An item copies its block's planes once into a pixel-major scratch,
// so that each bin scans its window 16 channels at a time with vector compares (no
// data-dependent branch); the results are transposed back to (channel, bin) order and written
// once per ROI, streamed when the outputs are large. Channel-major (any ISA, overlapping outputs,
// large maps): the bin edges of every ROI are computed once and the work is split over (channel,
// roi) items, channel-major, so that a thread sweeps all ROIs of one channel while that channel's
// feature planes stay in cache.
//
// (Somewhat over 400 lines: both paths share one description of the workspace, FwdWork; splitting
// them would move it into a header with a single user.)
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "../core/simd.h"
#include "roipool_common.h"
#include "roipool_forward_keys.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define POOLGRAD_X86 1
#endif

namespace poolgrad {

namespace {

using namespace roi_detail;

// A thread's scratch for the channel-major forward: float copies of the planes (b, c) of the
// current channel, made on first use (none for dense FLOAT planes), and one output row.
struct ItemScratch {
  float *planes = nullptr, *yrow = nullptr;
  char *have = nullptr;
};

bool items_direct(const RoiParams &p, const Strided4 &x) {
  return p.dtype == ACL_FLOAT && x.plane_dense();
}

void items_layout(Arena &a, const RoiParams &p, bool direct, ItemScratch *s) {
  int64_t planes;
  s->planes = a.take<float>(direct ? 0 : checked_mul(p.n, p.h * p.w, &planes) ? planes : -1);
  s->have = a.take<char>(p.n);
  s->yrow = a.take<float>(p.pw);
}

void forward_items(const RoiParams &p, const Strided4 &x, const RoiGeom *geo, const Strided4 &y,
                   const Strided4 &am, int64_t b0, int64_t e0, Arena scratch) {
  const int64_t esz = dtype_size(p.dtype);
  const bool direct = items_direct(p, x);
  ItemScratch sc;
  items_layout(scratch, p, direct, &sc);
  float *const planes = sc.planes, *const yrow = sc.yrow;
  char *const have = sc.have;
  int64_t cur_c = -1;
  for (int64_t item = b0; item < e0; ++item) {
    const int64_t c = item / p.r, r = item % p.r;
    const RoiGeom &g = geo[r];
    if (c != cur_c) {
      cur_c = c;
      std::fill(have, have + p.n, 0);
    }
    const float *plane;
    if (direct) {
      plane = reinterpret_cast<const float *>(elem(x, 4, g.batch, c, 0, 0));
    } else {
      float *dst = planes + g.batch * p.h * p.w;
      if (!have[g.batch]) {
        for (int64_t h = 0; h < p.h; ++h)
          row_to_f32(p.isa, p.dtype, elem(x, esz, g.batch, c, h, 0), x.sw, p.w, dst + h * p.w);
        have[g.batch] = 1;
      }
      plane = dst;
    }
    for (int64_t i = 0; i < p.ph; ++i) {
      int32_t *arow = reinterpret_cast<int32_t *>(elem(am, 4, r, c, i, 0));
      for (int64_t j = 0; j < p.pw; ++j) {
        float best;
        int64_t bi;
        bin_max(plane, p.w, 1, p.w, g, i, j, &best, &bi);
        yrow[j] = best;
        arow[j * am.sw] = static_cast<int32_t>(bi);
      }
      row_from_f32(p.isa, p.dtype, yrow, elem(y, esz, r, c, i, 0), y.sw, p.pw, false);
    }
  }
}

// Channels per block of the vector forward (two AVX2 vectors).
constexpr int64_t kFwdLanes = 16;

// ROIs per scan group of the vector forward. Where a block's planes are larger than an L2 (16
// channels of fpn-p2's 200 x 272 map: 3.5 MB, against this machine's 1 MB), a group's bin rows
// are scanned in order of their first map row instead of ROI by ROI, so that overlapping ROIs
// reread rows while they are still in L2; the group's results ([group][bins][16] values and
// argmax, at most kGroupBytes) wait in scratch for the write-out. fpn-p2 at 2 threads: 18.2 ->
// 16.9 ms with groups of all 256 ROIs of an item, 17.4 with groups of 40 (256 KB).
constexpr int64_t kGroupMinBlockBytes = int64_t(1) << 20;
constexpr int64_t kGroupBytes = int64_t(2) << 20;
int64_t roi_group(const RoiParams &p) {
  const int64_t max_bins = kGroupBytes / (kFwdLanes * 8);  // a ROI's results: 128 bytes a bin
  if (p.h * p.w * kFwdLanes * 4 < kGroupMinBlockBytes || p.ph > max_bins / p.pw) return 1;
  return max_bins / (p.ph * p.pw);
}

// A thread's scratch for the sixteen-channel forward: one block's planes pixel-major, 8 rows, a
// group's results ([group][bins][16]) and one ROI's after the transpose, and the group's bin rows
// sorted by first map row (units; starts: counting sort).
struct BlockScratch {
  float *hwc = nullptr, *row = nullptr, *yb = nullptr, *yt = nullptr;
  int32_t *ab = nullptr, *at = nullptr;
  int64_t *units = nullptr, *starts = nullptr;
};

void blocks_layout(Arena &a, const RoiParams &p, BlockScratch *s) {
  int64_t lanes_bins;
  if (!checked_mul(p.ph * p.pw, kFwdLanes, &lanes_bins)) lanes_bins = -1;
  const int64_t group = roi_group(p);
  s->hwc = a.take<float>(p.h * p.w * kFwdLanes);
  s->row = a.take<float>(8 * p.w);  // 8 rows: 16-bit blocks are converted 8 channels at a time
  s->yb = a.take<float>(lanes_bins < 0 ? -1 : group * lanes_bins);
  s->yt = a.take<float>(lanes_bins);
  s->ab = a.take<int32_t>(lanes_bins < 0 ? -1 : group * lanes_bins);
  s->at = a.take<int32_t>(lanes_bins);
  s->units = a.take<int64_t>(group > 1 ? group * p.ph : 0);
  s->starts = a.take<int64_t>(group > 1 ? p.h + 2 : 0);
}

#ifdef POOLGRAD_X86
// ---- forward, sixteen channels at a time (AVX2)
// ---------------------------------------------------- Items are (batch, block of 16 channels, run
// of that batch's ROIs). An item copies its channels' planes once into a pixel-major scratch
// ([h][w][16] floats), so that every bin scans its window with two vector compares per pixel, one
// lane per channel, and no data-dependent branch. Each lane keeps the first strictly larger value
// in (h, w) order, as the scalar scan does: the same values and argmax.

// dst[j * ds + i] = src[i * ss + j] for an 8 x 8 block of 32-bit values.
__attribute__((target("avx2"))) inline void transpose8x8(const float *src, int64_t ss, float *dst,
                                                         int64_t ds) {
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
}

// Channels [c0, c0 + cn) of batch b into hwc ([h * w][16]; lanes from cn on are 0).
__attribute__((target("avx2"))) void gather_block(const RoiParams &p, const Strided4 &x, int64_t b,
                                                  int64_t c0, int64_t cn, float *hwc, float *row) {
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
        for (; w + 8 <= p.w; w += 8) transpose8x8(src + w, ss, d + w * kFwdLanes, kFwdLanes);
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
// of line, with the ROI's edges and sizes in locals: inlined into forward_blocks, GCC spilled the
// bin loop's state to the stack and reloaded the edges after every store (vector stores may alias
// them). (A call a bin row instead of a ROI made mask-14 7% slower.)
__attribute__((target("avx2"), noinline)) void forward_bin_rows_avx2(const RoiParams &p,
                                                                     const float *hwc,
                                                                     const RoiGeom &g, int64_t ib,
                                                                     int64_t ie, float *yb,
                                                                     int32_t *ab) {
  const __m256 ninf = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  const __m256i none = _mm256_set1_epi32(-1), one = _mm256_set1_epi32(1);
  const int64_t pw = p.pw, w = p.w;
  const int64_t *const hs = g.hs, *const he = g.he, *const ws = g.ws, *const we = g.we;
  const bool empty = g.empty;
  for (int64_t i = ib; i < ie; ++i)
    for (int64_t j = 0; j < pw; ++j) {
      const int64_t h0 = hs[i], h1 = he[i];
      __m256 b0 = _mm256_setzero_ps(), b1 = b0;
      __m256 i0 = _mm256_castsi256_ps(none), i1 = i0;
      const int64_t w0 = ws[j], w1 = we[j];
      if (!empty && h1 > h0 && w1 > w0) {
        b0 = b1 = ninf;
        for (int64_t hh = h0; hh < h1; ++hh) {
          const float *px = hwc + (hh * w + w0) * kFwdLanes;
          // h * w <= 2^20 here, so pixel numbers fit the int32 lanes.
          __m256i pix = _mm256_set1_epi32(static_cast<int>(hh * w + w0));
          for (int64_t ww = w0; ww < w1; ++ww, px += kFwdLanes) {
            __m256 v0 = _mm256_loadu_ps(px), v1 = _mm256_loadu_ps(px + 8);
            // Held in registers: GCC otherwise loads each twice (for the compare and the max),
            // four 32-byte loads a pixel where the load ports allow two a cycle.
            __asm__("" : "+x"(v0), "+x"(v1));
            const __m256 m0 = _mm256_cmp_ps(v0, b0, _CMP_GT_OQ),
                         m1 = _mm256_cmp_ps(v1, b1, _CMP_GT_OQ);
            // maxps(v, b) is v > b ? v : b: NaN and ties keep b, as the compare does.
            b0 = _mm256_max_ps(v0, b0);
            b1 = _mm256_max_ps(v1, b1);
            i0 = _mm256_blendv_ps(i0, _mm256_castsi256_ps(pix), m0);
            i1 = _mm256_blendv_ps(i1, _mm256_castsi256_ps(pix), m1);
            pix = _mm256_add_epi32(pix, one);
          }
        }
      }
      const int64_t k = ((i - ib) * pw + j) * kFwdLanes;
      _mm256_storeu_ps(yb + k, b0);
      _mm256_storeu_ps(yb + k + 8, b1);
      _mm256_storeu_ps(reinterpret_cast<float *>(ab + k), i0);
      _mm256_storeu_ps(reinterpret_cast<float *>(ab + k + 8), i1);
    }
}

// The bins of ROIs rois[0 .. nr) (a group) into yb and ab ([nr][bins][16]). A group of more than
// one ROI takes its bin rows in order of their first map row (a counting sort; a row's bin rows in
// group order); every bin's result is the same in any order.
void forward_group_avx2(const RoiParams &p, const float *hwc, const RoiGeom *geo,
                        const int64_t *rois, int64_t nr, const BlockScratch &s, float *yb,
                        int32_t *ab) {
  const int64_t row_lanes = p.pw * kFwdLanes;
  if (nr == 1) {
    forward_bin_rows_avx2(p, hwc, geo[rois[0]], 0, p.ph, yb, ab);
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
    forward_bin_rows_avx2(p, hwc, geo[rois[q]], i, i + 1, yb + (q * p.ph + i) * row_lanes,
                          ab + (q * p.ph + i) * row_lanes);
  }
}

// yt[l * bins + t] = yb[t * 16 + l] for lanes l < cn: the [bins][16] results as 16 runs of bins.
__attribute__((target("avx2"))) void lanes_to_runs(const float *yb, int64_t bins, int64_t cn,
                                                   float *yt) {
  int64_t t = 0;
  if (cn == kFwdLanes)
    for (; t + 8 <= bins; t += 8)
      for (int64_t l0 = 0; l0 < kFwdLanes; l0 += 8)
        transpose8x8(yb + t * kFwdLanes + l0, kFwdLanes, yt + l0 * bins + t, bins);
  for (; t < bins; ++t)
    for (int64_t l = 0; l < cn; ++l) yt[l * bins + t] = yb[t * kFwdLanes + l];
}

// Item `item` of the vector forward: batch b, channels [c0, c0 + 16), ROIs order[k0 .. k1) (run q
// of the pair's `chunks` runs). The cost split and the kernel both decode items here.
struct FwdItem {
  int64_t pair, b, c0, k0, k1;
};

FwdItem forward_item(const RoiParams &p, const Buckets &bk, int64_t chunks, int64_t item) {
  const int64_t nblk = (p.c + kFwdLanes - 1) / kFwdLanes;
  FwdItem it;
  it.pair = item / chunks;
  const int64_t q = item % chunks;
  it.b = it.pair / nblk;
  it.c0 = (it.pair % nblk) * kFwdLanes;
  const int64_t n0 = bk.start[it.b], cnt = bk.start[it.b + 1] - n0;
  it.k0 = n0 + cnt * q / chunks;
  it.k1 = n0 + cnt * (q + 1) / chunks;
  return it;
}

__attribute__((target("avx2"))) void forward_blocks(const RoiParams &p, const Strided4 &x,
                                                    const RoiGeom *geo, const Buckets &bk,
                                                    int64_t chunks, const Strided4 &y,
                                                    const Strided4 &am, bool nt, bool keys,
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
      if (!keyed) gather_block(p, x, it.b, c0, cn, hwc, row);
      have = it.pair;
    }
    for (int64_t k = it.k0; k < it.k1; ++k) {
      const int64_t r = bk.order[k];
      if (keyed) {
        // Values and argmax packed in one int32 a result: one transpose for both.
        roi_forward_keys(p, khwc, geo[r], ab);
        lanes_to_runs(reinterpret_cast<const float *>(ab), bins, cn, reinterpret_cast<float *>(at));
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
      if (q == 0)
        forward_group_avx2(p, hwc, geo, bk.order + k, std::min(group, it.k1 - k), sc, yb, ab);
      lanes_to_runs(yb + o, bins, cn, yt);
      lanes_to_runs(reinterpret_cast<const float *>(ab + o), bins, cn,
                    reinterpret_cast<float *>(at));
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
#endif

// The forward's workspace: the ROI table, the bins' edges, the buckets and the cost split
// (shared), then one scratch slice per part. With a null base only the bytes are counted.
struct FwdWork {
  RoiTable rois;
  RoiGeom *geo = nullptr;
  int64_t *edges = nullptr;
  Buckets bk;
  int64_t chunks = 1, pairs = 0, parts = 0;
  int64_t *roi_cost = nullptr, *cost_end = nullptr, *bound = nullptr;
  Arena::Slices slices;
};

void fwd_layout(Arena &a, const RoiParams &p, const Strided4 &x, bool blocks, FwdWork *w) {
  roi_table_layout(a, p, &w->rois);
  geometry_layout(a, p, &w->geo, &w->edges);
  buckets_layout(a, p, &w->bk);
  if (blocks) {
    const int64_t nblk = (p.c + kFwdLanes - 1) / kFwdLanes;
    w->pairs = p.n * nblk;
    // Enough items for every thread: a pair's ROIs are cut into runs when pairs are few.
    w->chunks =
        std::max<int64_t>(1, (4 * static_cast<int64_t>(p.threads) + w->pairs - 1) / w->pairs);
    w->parts = std::min<int64_t>(p.threads, w->pairs * w->chunks);
    w->roi_cost = a.take<int64_t>(p.r);
    w->cost_end = a.take<int64_t>(w->pairs * w->chunks);
    w->bound = a.take<int64_t>(w->parts + 1);
    w->slices = a.take_slices(static_cast<int>(w->parts), layout_bytes([&](Arena &s) {
                                BlockScratch b;
                                blocks_layout(s, p, &b);
                              }));
  } else {
    w->parts = parts_for(p.c * p.r, p.threads);
    const bool direct = items_direct(p, x);
    w->slices = a.take_slices(static_cast<int>(w->parts), layout_bytes([&](Arena &s) {
                                ItemScratch it;
                                items_layout(s, p, direct, &it);
                              }));
  }
}

int64_t fwd_workspace(const RoiParams &p, const Strided4 &x, bool blocks) {
  Arena a;
  FwdWork w;
  fwd_layout(a, p, x, blocks, &w);
  return a.used();
}

// The forward, with the sixteen-channel blocks (AVX2) or channel-major.
FirstError forward(const RoiParams &p, const Strided4 &x, const Strided2 &rois, const Strided4 &y,
                   const Strided4 &argmax, void *workspace, bool blocks) {
  Arena a(workspace, fwd_workspace(p, x, blocks));
  FwdWork w;
  fwd_layout(a, p, x, blocks, &w);
  const FirstError e = read_rois(p, rois, &w.rois);
  if (e.found()) return e;
  for (int64_t r = 0; r < p.r; ++r)
    geometry(p, w.rois, r, w.edges + r * 2 * (p.ph + p.pw), &w.geo[r]);
  const RoiGeom *const geo = w.geo;
#ifdef POOLGRAD_X86
  if (blocks) {
    Buckets &bk = w.bk;
    bucket_by_batch(p, w.rois, &bk);
    const int64_t chunks = w.chunks, pairs = w.pairs;
    const int64_t hw = p.h * p.w;
    int64_t max_extent = 0;  // the tallest or widest bin
    for (int64_t r = 0; r < p.r; ++r) {
      const RoiGeom &g = geo[r];
      int64_t cost = p.ph * p.pw;
      if (!g.empty)
        for (int64_t i = 0; i < p.ph; ++i)
          for (int64_t j = 0; j < p.pw; ++j) {
            const int64_t bh = g.he[i] - g.hs[i], bw = g.we[j] - g.ws[j];
            cost += std::max<int64_t>(0, bh) * std::max<int64_t>(0, bw);
            max_extent = std::max({max_extent, bh, bw});
          }
      w.roi_cost[r] = cost;
    }
    const bool keys = roi_keys_apply(p, x, max_extent);
    // Cost of an item: its ROIs' window pixels and bins, plus the copy of the planes for the first
    // run of a pair.
    int64_t total = 0;
    for (int64_t item = 0; item < pairs * chunks; ++item) {
      const FwdItem it = forward_item(p, bk, chunks, item);
      total += item % chunks == 0 ? hw : 0;
      for (int64_t k = it.k0; k < it.k1; ++k) total += w.roi_cost[bk.order[k]];
      w.cost_end[item] = total;
    }
    const int parts = static_cast<int>(w.parts);
    split_by_cost(w.cost_end, pairs * chunks, parts, w.bound);
    // Outputs larger than the caches are streamed out (no read-for-ownership).
    const bool nt = p.r * p.c * p.ph * p.pw * (dtype_size(p.dtype) + 4) >= kStreamMinBytes;
    auto body = [&](int part, int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t)
        forward_blocks(p, x, geo, bk, chunks, y, argmax, nt, keys, w.bound[t], w.bound[t + 1],
                       w.slices.slice(part));
    };
    parallel_for(parts, body, parts);
    return e;
  }
#endif
  auto body = [&](int part, int64_t b, int64_t e2) {
    forward_items(p, x, geo, y, argmax, b, e2, w.slices.slice(part));
  };
  parallel_for(p.c * p.r, body, p.threads);
  return e;
}

}  // namespace

int64_t roi_forward_blocks_workspace(const RoiParams &p, const Strided4 &x, const Strided2 &,
                                     const Strided4 &, const Strided4 &) {
  return fwd_workspace(p, x, true);
}
FirstError roi_forward_blocks(const RoiParams &p, const Strided4 &x, const Strided2 &rois,
                              const Strided4 &y, const Strided4 &argmax, void *workspace) {
  return forward(p, x, rois, y, argmax, workspace, true);
}
int64_t roi_forward_channel_major_workspace(const RoiParams &p, const Strided4 &x, const Strided2 &,
                                            const Strided4 &, const Strided4 &) {
  return fwd_workspace(p, x, false);
}
FirstError roi_forward_channel_major(const RoiParams &p, const Strided4 &x, const Strided2 &rois,
                                     const Strided4 &y, const Strided4 &argmax, void *workspace) {
  return forward(p, x, rois, y, argmax, workspace, false);
}

bool roi_forward_blocks_apply(const RoiParams &p) {
  // Overlapping outputs keep the channel-major order of writes (serial path); maps of more than
  // 2^20 pixels keep it too, so that the pixel-major scratch stays within 64 MB a thread.
  if (p.serial || p.h * p.w > (int64_t(1) << 20)) return false;
  // The per-bin scratch holds 16 lanes whatever the channels present (four [bins][16] arrays of 4
  // bytes, 256 bytes a bin, times the group): at least 16 channels it is at most twice one block's
  // outputs for a ROI; with fewer, it is allowed up to 16 MB a thread, past which the channel-major
  // path (scratch of one map, not of the bins) runs instead. A 1-channel call with 2048 x 2048
  // bins asked for 2 GB before.
  const int64_t bins = p.ph * p.pw;
  return p.c >= kFwdLanes || bins <= (int64_t(16) << 20) / (256 * roi_group(p));
}

}  // namespace poolgrad
