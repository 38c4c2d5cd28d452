// SPDX-License-Identifier: Apache-2.0
// RoI pooling forward kernels.
//
// Sixteen-channel blocks (AVX2, NEON, SVE; the per-target code is roipool_blocks.cpp): the ROIs
// are bucketed by batch index; items are (batch, block of 16 channels, run of ROIs). An item
// copies its block's planes once into a pixel-major scratch, so that each bin scans its window 16
// channels at a time with vector compares (no data-dependent branch); the results are transposed
// back to (channel, bin) order and written once per ROI, streamed when the outputs are large.
// Channel-major (any ISA, overlapping outputs, large maps): the bin edges of every ROI are
// computed once and the work is split over (channel, roi) items, channel-major, so that a thread
// sweeps all ROIs of one channel while that channel's feature planes stay in cache.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "../core/simd.h"
#include "roipool_blocks.h"
#include "roipool_common.h"
#include "roipool_forward_keys.h"

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

}  // namespace

namespace roi_detail {

constexpr int64_t kGroupMinBlockBytes = int64_t(1) << 20;
constexpr int64_t kGroupBytes = int64_t(2) << 20;
int64_t roi_group(const RoiParams &p) {
  const int64_t max_bins = kGroupBytes / (kFwdLanes * 8);  // a ROI's results: 128 bytes a bin
  if (p.h * p.w * kFwdLanes * 4 < kGroupMinBlockBytes || p.ph > max_bins / p.pw) return 1;
  return max_bins / (p.ph * p.pw);
}

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

}  // namespace roi_detail

namespace {

using namespace roi_detail;

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
