// RoI pooling CPU kernels.
//
// Forward (AVX2): the ROIs are bucketed by batch index; items are (batch, block of 16 channels,
// run of ROIs). An item copies its block's planes once into a pixel-major scratch, so that each
// bin scans its window 16 channels at a time with vector compares (no data-dependent branch); the
// results are transposed back to (channel, bin) order and written once per ROI, streamed when the
// outputs are large. Portable kernels and overlapping outputs: the bin edges of every ROI are
// computed once and the work is split over (channel, roi) items, channel-major, so that a thread
// sweeps all ROIs of one channel while that channel's feature planes stay in cache.
//
// Backward: the ROIs are bucketed by batch index (ascending r in each bucket); each item is a
// (batch, channel block) whose float32 accumulator is the thread's own (no atomics), zeroed, filled
// in (r, ph, pw) order and written out once, rounded to the dtype. The order of every sum is fixed,
// so the result is the same for any thread count.
#include "roipool_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>

#include "../core/scatter.h"
#include "../core/simd.h"
#include "../core/status.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define POOLGRAD_X86 1
#endif

namespace poolgrad {

namespace {

inline char *elem(const Strided4 &t, int64_t esz, int64_t n, int64_t c, int64_t h, int64_t w) {
  return t.base + (n * t.sn + c * t.sc + h * t.sh + w * t.sw) * esz;
}

inline float roi_value(const RoiParams &p, const Strided2 &r, int64_t i, int64_t j) {
  const char *q = r.base + (i * r.s0 + j * r.s1) * dtype_size(p.dtype);
  if (p.dtype == ACL_FLOAT16) return half_to_float(*reinterpret_cast<const uint16_t *>(q));
  return *reinterpret_cast<const float *>(q);
}

// An already floored/ceiled bin edge clamped to [0, lim]; NaN clamps to 0.
inline int64_t clamp_edge(float v, int64_t lim) {
  if (!(v > 0.0f)) return 0;
  if (v >= static_cast<float>(lim)) return lim;
  return static_cast<int64_t>(v);
}

// One ROI's bins: the batch and the clamped bin edges (arrays of ph / pw entries in the
// workspace).
struct RoiGeom {
  int64_t batch = 0;
  bool empty = false;
  int64_t *hs = nullptr, *he = nullptr, *ws = nullptr, *we = nullptr;
};

// The ROIs as phase 2 sees them: a private float copy of rois (R x 5), read from the caller's
// tensor exactly once, and each ROI's batch index decoded once from that copy. Every later use
// reads only these, so a caller that changes rois during phase 2 (a data race on its side) can
// change the numbers but never send poolgrad outside its own memory.
struct RoiTable {
  float *v = nullptr;       // v[r * 5 + j] = rois[r, j]
  int64_t *batch = nullptr;  // trunc(v[r * 5]), checked to lie in [0, n)
};

void roi_table_layout(Arena &a, const RoiParams &p, RoiTable *t) {
  t->v = a.take<float>(p.r * 5);
  t->batch = a.take<int64_t>(p.r);
}

// Copies rois and decodes the batch indices; the first ROI whose batch index is outside [0, n)
// (NaN included) is reported and nothing else is decoded.
RoiDataError read_rois(const RoiParams &p, const Strided2 &rois, RoiTable *t) {
  RoiDataError e;
  for (int64_t r = 0; r < p.r; ++r)
    for (int64_t j = 0; j < 5; ++j) t->v[r * 5 + j] = roi_value(p, rois, r, j);
  for (int64_t r = 0; r < p.r; ++r) {
    const float v = t->v[r * 5];
    const float tr = std::trunc(v);
    if (!(tr >= 0.0f && tr < static_cast<float>(p.n))) {
      e.kind = 1;
      e.roi = r;
      e.value = static_cast<double>(v);
      return e;
    }
    t->batch[r] = static_cast<int64_t>(tr);
  }
  return e;
}

void geometry_layout(Arena &a, const RoiParams &p, RoiGeom **geo, int64_t **edges) {
  *geo = a.take<RoiGeom>(p.r);
  int64_t per_roi;
  *edges = a.take<int64_t>(checked_mul(2, p.ph + p.pw, &per_roi) && checked_mul(per_roi, p.r, &per_roi)
                               ? per_roi
                               : -1);
}

void geometry(const RoiParams &p, const RoiTable &t, int64_t r, int64_t *edges, RoiGeom *out) {
  RoiGeom &g = *new (out) RoiGeom();
  const float *v = t.v + r * 5;
  g.batch = t.batch[r];
  const float x1 = v[1], y1 = v[2], x2 = v[3], y2 = v[4];
  const float xs = x1 * p.scale_w, ys = y1 * p.scale_h;
  const float xe = (x2 + 1.0f) * p.scale_w, ye = (y2 + 1.0f) * p.scale_h;
  g.empty = (x2 - x1 + 1.0f) * p.scale_w <= 0.0f || (y2 - y1 + 1.0f) * p.scale_h <= 0.0f;
  const float bw = (xe - xs) / static_cast<float>(p.pw);
  const float bh = (ye - ys) / static_cast<float>(p.ph);
  g.hs = edges;
  g.he = g.hs + p.ph;
  g.ws = g.he + p.ph;
  g.we = g.ws + p.pw;
  for (int64_t i = 0; i < p.ph; ++i) {
    const float fi = static_cast<float>(i);
    g.hs[i] = clamp_edge(std::floor(fi * bh + ys), p.h);
    g.he[i] = clamp_edge(std::ceil((fi + 1.0f) * bh + ys), p.h);
  }
  for (int64_t j = 0; j < p.pw; ++j) {
    const float fj = static_cast<float>(j);
    g.ws[j] = clamp_edge(std::floor(fj * bw + xs), p.w);
    g.we[j] = clamp_edge(std::ceil((fj + 1.0f) * bw + xs), p.w);
  }
}

// The ROIs bucketed by batch index: bucket b is order[start[b] .. start[b + 1]), ascending r.
struct Buckets {
  int64_t *start = nullptr, *order = nullptr, *fill = nullptr;
};

void buckets_layout(Arena &a, const RoiParams &p, Buckets *bk) {
  bk->start = a.take<int64_t>(p.n + 1);
  bk->order = a.take<int64_t>(p.r);
  bk->fill = a.take<int64_t>(p.n);
}

void bucket_by_batch(const RoiParams &p, const RoiTable &t, Buckets *bk) {
  for (int64_t b = 0; b <= p.n; ++b) bk->start[b] = 0;
  for (int64_t r = 0; r < p.r; ++r) ++bk->start[t.batch[r] + 1];
  for (int64_t b = 0; b < p.n; ++b) bk->start[b + 1] += bk->start[b];
  for (int64_t b = 0; b < p.n; ++b) bk->fill[b] = bk->start[b];
  for (int64_t r = 0; r < p.r; ++r) bk->order[bk->fill[t.batch[r]]++] = r;
}

// Splits items [0, items) into `parts` contiguous runs of about equal cost (cost_end: the
// running total of the items' costs); run t is [bound[t], bound[t + 1]).
void split_by_cost(const int64_t *cost_end, int64_t items, int parts, int64_t *bound) {
  const int64_t total = items ? cost_end[items - 1] : 0;
  for (int t = 0; t <= parts; ++t) bound[t] = items;
  bound[0] = 0;
  for (int t = 1; t < parts; ++t) {
    const int64_t goal = total / parts * t;
    bound[t] = std::lower_bound(cost_end, cost_end + items, goal) - cost_end;
    bound[t] = std::max(bound[t], bound[t - 1]);
  }
}

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
        float best = 0.0f;
        int64_t bi = -1;
        if (!g.empty && g.he[i] > g.hs[i] && g.we[j] > g.ws[j]) {
          best = -std::numeric_limits<float>::infinity();
          for (int64_t hh = g.hs[i]; hh < g.he[i]; ++hh) {
            const float *row = plane + hh * p.w;
            for (int64_t ww = g.ws[j]; ww < g.we[j]; ++ww) {
              const float v = row[ww];
              // The running maximum rarely changes inside a bin: a branch is cheaper than a
              // dependent select chain. NaN never wins.
              if (v > best) {
                best = v;
                bi = hh * p.w + ww;
              }
            }
          }
        }
        yrow[j] = best;
        arow[j * am.sw] = static_cast<int32_t>(bi);
      }
      row_from_f32(p.isa, p.dtype, yrow, elem(y, esz, r, c, i, 0), y.sw, p.pw, false);
    }
  }
}

// Channels per block of the vector forward (two AVX2 vectors).
constexpr int64_t kFwdLanes = 16;

// A thread's scratch for the sixteen-channel forward: one block's planes pixel-major, a row, and
// an ROI's results ([bins][16]) before and after the transpose.
struct BlockScratch {
  float *hwc = nullptr, *row = nullptr, *yb = nullptr, *yt = nullptr;
  int32_t *ab = nullptr, *at = nullptr;
};

void blocks_layout(Arena &a, const RoiParams &p, BlockScratch *s) {
  int64_t lanes_bins;
  if (!checked_mul(p.ph * p.pw, kFwdLanes, &lanes_bins)) lanes_bins = -1;
  s->hwc = a.take<float>(p.h * p.w * kFwdLanes);
  s->row = a.take<float>(p.w);
  s->yb = a.take<float>(lanes_bins);
  s->yt = a.take<float>(lanes_bins);
  s->ab = a.take<int32_t>(lanes_bins);
  s->at = a.take<int32_t>(lanes_bins);
}

#ifdef POOLGRAD_X86
// ---- forward, sixteen channels at a time (AVX2) ----------------------------------------------------
// Items are (batch, block of 16 channels, run of that batch's ROIs). An item copies its channels'
// planes once into a pixel-major scratch ([h][w][16] floats), so that every bin scans its window
// with two vector compares per pixel, one lane per channel, and no data-dependent branch. Each
// lane keeps the first strictly larger value in (h, w) order, as the scalar scan does: the same
// values and argmax.

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
  if (cn == kFwdLanes && p.dtype == ACL_FLOAT && x.sw == 1) {
    // Dense float32 rows: 8 x 8 transposes (8 channels by 8 pixels), the row tails one by one.
    for (int64_t l0 = 0; l0 < kFwdLanes; l0 += 8)
      for (int64_t h = 0; h < p.h; ++h) {
        const float *src = reinterpret_cast<const float *>(elem(x, 4, b, c0 + l0, h, 0));
        float *d = hwc + h * p.w * kFwdLanes + l0;
        int64_t w = 0;
        for (; w + 8 <= p.w; w += 8) transpose8x8(src + w, x.sc, d + w * kFwdLanes, kFwdLanes);
        for (; w < p.w; ++w)
          for (int64_t l = 0; l < 8; ++l) d[w * kFwdLanes + l] = src[l * x.sc + w];
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

// All bins of one ROI for the 16 lanes of hwc: yb and ab are [bins][16].
__attribute__((target("avx2"))) void forward_roi_avx2(const RoiParams &p, const float *hwc,
                                                      const RoiGeom &g, float *yb, int32_t *ab) {
  const __m256 ninf = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  const __m256i none = _mm256_set1_epi32(-1), one = _mm256_set1_epi32(1);
  for (int64_t i = 0; i < p.ph; ++i)
    for (int64_t j = 0; j < p.pw; ++j) {
      __m256 b0 = _mm256_setzero_ps(), b1 = b0;
      __m256 i0 = _mm256_castsi256_ps(none), i1 = i0;
      if (!g.empty && g.he[i] > g.hs[i] && g.we[j] > g.ws[j]) {
        b0 = b1 = ninf;
        for (int64_t hh = g.hs[i]; hh < g.he[i]; ++hh) {
          const float *px = hwc + (hh * p.w + g.ws[j]) * kFwdLanes;
          // h * w <= 2^20 here, so pixel numbers fit the int32 lanes.
          __m256i pix = _mm256_set1_epi32(static_cast<int>(hh * p.w + g.ws[j]));
          for (int64_t ww = g.ws[j]; ww < g.we[j]; ++ww, px += kFwdLanes) {
            const __m256 v0 = _mm256_loadu_ps(px), v1 = _mm256_loadu_ps(px + 8);
            const __m256 m0 = _mm256_cmp_ps(v0, b0, _CMP_GT_OQ), m1 = _mm256_cmp_ps(v1, b1, _CMP_GT_OQ);
            // maxps(v, b) is v > b ? v : b: NaN and ties keep b, as the compare does.
            b0 = _mm256_max_ps(v0, b0);
            b1 = _mm256_max_ps(v1, b1);
            i0 = _mm256_blendv_ps(i0, _mm256_castsi256_ps(pix), m0);
            i1 = _mm256_blendv_ps(i1, _mm256_castsi256_ps(pix), m1);
            pix = _mm256_add_epi32(pix, one);
          }
        }
      }
      const int64_t k = (i * p.pw + j) * kFwdLanes;
      _mm256_storeu_ps(yb + k, b0);
      _mm256_storeu_ps(yb + k + 8, b1);
      _mm256_storeu_ps(reinterpret_cast<float *>(ab + k), i0);
      _mm256_storeu_ps(reinterpret_cast<float *>(ab + k + 8), i1);
    }
}

// yt[l * bins + t] = yb[t * 16 + l] for lanes l < cn: the [bins][16] results as 16 runs of bins.
__attribute__((target("avx2"))) void lanes_to_runs(const float *yb, int64_t bins, int64_t cn, float *yt) {
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
                                                    const Strided4 &am, bool nt, int64_t ib,
                                                    int64_t ie, Arena scratch) {
  const int64_t esz = dtype_size(p.dtype), bins = p.ph * p.pw;
  BlockScratch sc;
  blocks_layout(scratch, p, &sc);
  float *const hwc = sc.hwc, *const row = sc.row, *const yb = sc.yb, *const yt = sc.yt;
  int32_t *const ab = sc.ab, *const at = sc.at;
  // The (ph, pw) grid of y and argmax is one run of ph*pw values, and the channels' runs are
  // adjacent: a block's output is one run of cn*ph*pw values in each.
  const bool flat = y.sw == 1 && y.sh == p.pw && am.sw == 1 && am.sh == p.pw;
  const bool dense = flat && y.sc == bins && am.sc == bins;
  int64_t have = -1;  // the (batch, block) pair now in hwc
  for (int64_t item = ib; item < ie; ++item) {
    const FwdItem it = forward_item(p, bk, chunks, item);
    const int64_t c0 = it.c0, cn = std::min(kFwdLanes, p.c - c0);
    if (it.k0 == it.k1) continue;
    if (it.pair != have) {
      gather_block(p, x, it.b, c0, cn, hwc, row);
      have = it.pair;
    }
    for (int64_t k = it.k0; k < it.k1; ++k) {
      const int64_t r = bk.order[k];
      forward_roi_avx2(p, hwc, geo[r], yb, ab);
      lanes_to_runs(yb, bins, cn, yt);
      lanes_to_runs(reinterpret_cast<const float *>(ab), bins, cn, reinterpret_cast<float *>(at));
      if (dense) {
        row_from_f32(p.isa, p.dtype, yt, elem(y, esz, r, c0, 0, 0), 1, cn * bins, nt);
        // argmax bits pass through float32 loads and stores unchanged (no arithmetic).
        row_from_f32(p.isa, ACL_FLOAT, reinterpret_cast<const float *>(at), elem(am, 4, r, c0, 0, 0), 1,
                     cn * bins, nt);
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

// Prefetches the cache lines of [p, p + bytes): Locality 3 is prefetcht0 (into L1), 2 is
// prefetcht1 (into L2).
template <int Locality>
inline void prefetch_bytes(const char *p, int64_t bytes) {
  for (int64_t off = 0; off < bytes; off += 64) __builtin_prefetch(p + off, 0, Locality);
}

// Four independent scatter runs interleaved bin by bin (the portable path of backward_items).
// Returns false when some argmax is outside {-1} U [0, hw) (those entries are skipped).
__attribute__((noinline)) bool scatter4(float *__restrict p0, float *__restrict p1,
                                        float *__restrict p2, float *__restrict p3, const float *g0,
                                        const float *g1, const float *g2, const float *g3,
                                        const int32_t *a0, const int32_t *a1, const int32_t *a2,
                                        const int32_t *a3, int64_t bins, int64_t hw) {
  const uint32_t lim = static_cast<uint32_t>(hw);  // hw <= INT32_MAX: argmax is int32
  bool bad = false;
  for (int64_t k = 0; k < bins; ++k) {
    const uint32_t i0 = static_cast<uint32_t>(a0[k]), i1 = static_cast<uint32_t>(a1[k]);
    const uint32_t i2 = static_cast<uint32_t>(a2[k]), i3 = static_cast<uint32_t>(a3[k]);
    if (i0 < lim) p0[i0] += g0[k]; else bad |= a0[k] != -1;
    if (i1 < lim) p1[i1] += g1[k]; else bad |= a1[k] != -1;
    if (i2 < lim) p2[i2] += g2[k]; else bad |= a2[k] != -1;
    if (i3 < lim) p3[i3] += g3[k]; else bad |= a3[k] != -1;
  }
  return !bad;
}

#ifdef POOLGRAD_X86
// The same run as scatter_checked, eight bins at a time: one vector compare checks the eight
// argmax values (a group with a -1 or a bad value takes the scalar path), the indices come from
// 64-bit loads of two values and the gradients from one vector load, so that the only per-bin
// memory traffic left is the read-modify-write of the accumulator itself (about 30% fewer cycles
// per bin than the scalar loop on Zen 2). Every add is still a scalar float add in k order.
__attribute__((target("avx2"))) void scatter_run_avx2(float *__restrict plane, const float *g,
                                                      const int32_t *a, int64_t n, int64_t hw,
                                                      int64_t pos0, FirstError *err) {
  // hw == 0 (gradInputRef has no elements): hw - 1 would be UINT32_MAX and let every value,
  // -1 included, through the unsigned range check; the scalar loop accepts nothing.
  if (hw <= 0) return scatter_checked(plane, g, a, 1, n, hw, pos0, err);
  const __m256i last = _mm256_set1_epi32(static_cast<int>(hw - 1));
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    const __m256i va = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(a + k));
    // a in [0, hw) as unsigned  <=>  max_u(a, hw - 1) == hw - 1
    const __m256i in = _mm256_cmpeq_epi32(_mm256_max_epu32(va, last), last);
    if (__builtin_expect(_mm256_movemask_ps(_mm256_castsi256_ps(in)) != 0xFF, 0)) {
      scatter_checked(plane, g + k, a + k, 1, 8, hw, pos0 + k, err);
      continue;
    }
    const __m256 vg = _mm256_loadu_ps(g + k);
    const __m128 lo = _mm256_castps256_ps128(vg), hi = _mm256_extractf128_ps(vg, 1);
    uint64_t i01, i23, i45, i67;
    std::memcpy(&i01, a + k, 8);
    std::memcpy(&i23, a + k + 2, 8);
    std::memcpy(&i45, a + k + 4, 8);
    std::memcpy(&i67, a + k + 6, 8);
    plane[static_cast<uint32_t>(i01)] += _mm_cvtss_f32(lo);
    plane[i01 >> 32] += _mm_cvtss_f32(_mm_movehdup_ps(lo));
    plane[static_cast<uint32_t>(i23)] += _mm_cvtss_f32(_mm_unpackhi_ps(lo, lo));
    plane[i23 >> 32] += _mm_cvtss_f32(_mm_shuffle_ps(lo, lo, 3));
    plane[static_cast<uint32_t>(i45)] += _mm_cvtss_f32(hi);
    plane[i45 >> 32] += _mm_cvtss_f32(_mm_movehdup_ps(hi));
    plane[static_cast<uint32_t>(i67)] += _mm_cvtss_f32(_mm_unpackhi_ps(hi, hi));
    plane[i67 >> 32] += _mm_cvtss_f32(_mm_shuffle_ps(hi, hi, 3));
  }
  if (k < n) scatter_checked(plane, g + k, a + k, 1, n - k, hw, pos0 + k, err);
}
#endif

// A thread's scratch for the backward: the channel block's float accumulator planes and four
// gradOutput runs as float32.
void bwd_layout(Arena &a, const RoiParams &p, int64_t cb, float **acc, float **g) {
  int64_t planes, runs;
  *acc = a.take<float>(checked_mul(cb, p.h * p.w, &planes) ? planes : -1);
  *g = a.take<float>(checked_mul(4, p.ph * p.pw, &runs) ? runs : -1);
}

// The (ph, pw) grid of gradOutput and argmax is one contiguous run of ph*pw values.
bool bwd_flat(const RoiParams &p, const Strided4 &gy, const Strided4 &am) {
  return gy.sw == 1 && gy.sh == p.pw && am.sw == 1 && am.sh == p.pw;
}

void backward_items(const RoiParams &p, const Strided4 &gy, const int64_t *order,
                    const int64_t *start, const Strided4 &am, const Strided4 &gx, int64_t cb,
                    int64_t ib, int64_t ie, bool nt, FirstError *err, Arena scratch) {
  const int64_t esz = dtype_size(p.dtype);
  const int64_t hw = p.h * p.w;
  const int64_t ps = hw;  // plane stride in the accumulator
  const int64_t nblocks = (p.c + cb - 1) / cb;
  const int64_t bins = p.ph * p.pw;
  float *acc, *g;
  bwd_layout(scratch, p, cb, &acc, &g);
  const bool flat = bwd_flat(p, gy, am);
  const bool wide = p.isa == Isa::kAvx2;
  (void)wide;  // only read on x86
  // Runs of 512 bytes or more (a 14x14 grid) are prefetched into L2 (prefetcht1), shorter ones into
  // L1 (prefetcht0). Measured at 2 threads, L2 against L1: mask-14 (784-byte runs) 6% faster,
  // the 7x7 rows (196-byte runs) 3-9% slower. profiles.md: the prefetches wait on miss buffers.
  const bool l2_prefetch = bins * 4 >= 512;
  (void)l2_prefetch;
  // Flat position of bin 0 of the (roi, channel) run: errors are reported in (r, c, i, j) order.
  auto pos0 = [&](int64_t r, int64_t c) { return (r * p.c + c) * bins; };
  // The bins of gradOutput (r, c) of the flat layout as float32: in place for FLOAT, else
  // converted into buf.
  auto grad_run = [&](int64_t r, int64_t c, float *buf) -> const float * {
    if (p.dtype == ACL_FLOAT) return reinterpret_cast<const float *>(elem(gy, 4, r, c, 0, 0));
    row_to_f32(p.isa, p.dtype, elem(gy, esz, r, c, 0, 0), 1, bins, buf);
    return buf;
  };
  for (int64_t item = ib; item < ie; ++item) {
    const int64_t b = item / nblocks, c0 = (item % nblocks) * cb;
    const int64_t cn = std::min(cb, p.c - c0);
    if (cn * ps > 0) std::memset(acc, 0, static_cast<size_t>(cn * ps) * 4);
    for (int64_t k = start[b]; k < start[b + 1]; ++k) {
      const int64_t r = order[k];
      int64_t c = c0;
#ifdef POOLGRAD_X86
      if (flat && wide) {
        // One channel at a time, eight bins per step; the same channel of the next ROI (a separate
        // stream) is fetched one ROI ahead.
        const int64_t rn = k + 1 < start[b + 1] ? order[k + 1] : -1;
        for (; c < c0 + cn; ++c) {
          if (rn >= 0) {
            const char *gn = elem(gy, esz, rn, c, 0, 0), *an = elem(am, 4, rn, c, 0, 0);
            if (l2_prefetch) {
              prefetch_bytes<2>(gn, bins * esz);
              prefetch_bytes<2>(an, bins * 4);
            } else {
              prefetch_bytes<3>(gn, bins * esz);
              prefetch_bytes<3>(an, bins * 4);
            }
          }
          const float *gv = grad_run(r, c, g);
          const int32_t *av = reinterpret_cast<const int32_t *>(elem(am, 4, r, c, 0, 0));
          scatter_run_avx2(acc + (c - c0) * ps, gv, av, bins, hw, pos0(r, c), err);
        }
      }
#endif
      if (flat) {
        // Four channels at a time: four independent chains of adds, so that bins sharing one
        // argmax (small ROIs) do not serialise the loop on store-to-load latency. Each plane still
        // sums in bin order.
        const int64_t rn = k + 1 < start[b + 1] ? order[k + 1] : -1;
        for (; c + 4 <= c0 + cn; c += 4) {
          if (rn >= 0) {
            // The same four channels of the next ROI: a separate stream, fetched one ROI ahead.
            const char *gn = elem(gy, esz, rn, c, 0, 0), *an = elem(am, 4, rn, c, 0, 0);
            prefetch_bytes<3>(gn, 4 * bins * esz);
            prefetch_bytes<3>(an, 4 * bins * 4);
          }
          const float *gv[4];
          const int32_t *av[4];
          float *pl[4];
          for (int u = 0; u < 4; ++u) {
            gv[u] = grad_run(r, c + u, g + u * bins);
            av[u] = reinterpret_cast<const int32_t *>(elem(am, 4, r, c + u, 0, 0));
            pl[u] = acc + (c + u - c0) * ps;
          }
          const bool all_ok = scatter4(pl[0], pl[1], pl[2], pl[3], gv[0], gv[1], gv[2], gv[3], av[0],
                                       av[1], av[2], av[3], bins, hw);
          if (!all_ok)  // rare: find and report the first bad argmax of these channels
            for (int u = 0; u < 4; ++u) note_first_bad(av[u], 1, bins, hw, pos0(r, c + u), err);
        }
      }
      for (; c < c0 + cn; ++c) {
        float *plane = acc + (c - c0) * ps;
        if (flat) {
          scatter_checked(plane, grad_run(r, c, g),
                          reinterpret_cast<const int32_t *>(elem(am, 4, r, c, 0, 0)), 1, bins, hw,
                          pos0(r, c), err);
          continue;
        }
        for (int64_t i = 0; i < p.ph; ++i) {
          row_to_f32(p.isa, p.dtype, elem(gy, esz, r, c, i, 0), gy.sw, p.pw, g);
          const int32_t *arow = reinterpret_cast<const int32_t *>(elem(am, 4, r, c, i, 0));
          scatter_checked(plane, g, arow, am.sw, p.pw, hw, pos0(r, c) + i * p.pw, err);
        }
      }
    }
    for (int64_t c = c0; c < c0 + cn && hw > 0; ++c) {  // hw == 0: gradInputRef has no elements
      const float *plane = acc + (c - c0) * ps;
      if (gx.plane_dense()) {
        row_from_f32(p.isa, p.dtype, plane, elem(gx, esz, b, c, 0, 0), 1, hw, nt);
      } else {
        for (int64_t h = 0; h < p.h; ++h)
          row_from_f32(p.isa, p.dtype, plane + h * p.w, elem(gx, esz, b, c, h, 0), gx.sw, p.w, nt);
      }
    }
  }
  if (nt) stream_fence();
}

}  // namespace

bool roi_forward_blocks_apply(const RoiParams &p) {
  // Overlapping outputs keep the channel-major order of writes (serial path); maps of more than
  // 2^20 pixels keep it too, so that the pixel-major scratch stays within 64 MB a thread.
  return !p.serial && p.h * p.w <= (int64_t(1) << 20);
}

bool roi_backward_flat(const RoiParams &p, const Strided4 &gy, const Strided4 &am) {
  return bwd_flat(p, gy, am);
}

namespace {

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
    w->chunks = std::max<int64_t>(1, (4 * static_cast<int64_t>(p.threads) + w->pairs - 1) / w->pairs);
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
RoiDataError forward(const RoiParams &p, const Strided4 &x, const Strided2 &rois,
                     const Strided4 &y, const Strided4 &argmax, void *workspace, bool blocks) {
  Arena a(workspace, fwd_workspace(p, x, blocks));
  FwdWork w;
  fwd_layout(a, p, x, blocks, &w);
  const RoiDataError e = read_rois(p, rois, &w.rois);
  if (e.kind) return e;
  for (int64_t r = 0; r < p.r; ++r) geometry(p, w.rois, r, w.edges + r * 2 * (p.ph + p.pw), &w.geo[r]);
  const RoiGeom *const geo = w.geo;
#ifdef POOLGRAD_X86
  if (blocks) {
    Buckets &bk = w.bk;
    bucket_by_batch(p, w.rois, &bk);
    const int64_t chunks = w.chunks, pairs = w.pairs;
    const int64_t hw = p.h * p.w;
    for (int64_t r = 0; r < p.r; ++r) {
      const RoiGeom &g = geo[r];
      int64_t cost = p.ph * p.pw;
      if (!g.empty)
        for (int64_t i = 0; i < p.ph; ++i)
          for (int64_t j = 0; j < p.pw; ++j)
            cost += std::max<int64_t>(0, g.he[i] - g.hs[i]) * std::max<int64_t>(0, g.we[j] - g.ws[j]);
      w.roi_cost[r] = cost;
    }
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
    const bool nt = p.r * p.c * p.ph * p.pw * (dtype_size(p.dtype) + 4) >= (int64_t(8) << 20);
    auto body = [&](int part, int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t)
        forward_blocks(p, x, geo, bk, chunks, y, argmax, nt, w.bound[t], w.bound[t + 1],
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

int64_t roi_forward_blocks_workspace(const RoiParams &p, const Strided4 &x) {
  return fwd_workspace(p, x, true);
}
RoiDataError roi_forward_blocks(const RoiParams &p, const Strided4 &x, const Strided2 &rois,
                                const Strided4 &y, const Strided4 &argmax, void *workspace) {
  return forward(p, x, rois, y, argmax, workspace, true);
}
int64_t roi_forward_channel_major_workspace(const RoiParams &p, const Strided4 &x) {
  return fwd_workspace(p, x, false);
}
RoiDataError roi_forward_channel_major(const RoiParams &p, const Strided4 &x, const Strided2 &rois,
                                       const Strided4 &y, const Strided4 &argmax, void *workspace) {
  return forward(p, x, rois, y, argmax, workspace, false);
}

namespace {

// The backward's workspace: the ROI table, the buckets, the cost split and the parts' first
// errors (shared), then one accumulator slice per part.
struct BwdWork {
  RoiTable rois;
  Buckets bk;
  int64_t cb = 1, items = 0, parts = 0;
  int64_t *cost_end = nullptr, *bound = nullptr;
  FirstError *errs = nullptr;
  Arena::Slices slices;
};

void bwd_work_layout(Arena &a, const RoiParams &p, BwdWork *w) {
  const int64_t hw = std::max<int64_t>(1, p.h * p.w);
  // Channel blocks whose accumulators stay near L1 (64 KB: measured better than both 32 KB and
  // L2-sized blocks), and enough items for every thread.
  int64_t cb = std::max<int64_t>(1, (64 * 1024) / (hw * 4));
  cb = std::min(cb, std::max<int64_t>(p.c, 1));
  const int64_t want = 4 * static_cast<int64_t>(p.threads);
  while (cb > 1 && p.n * ((p.c + cb - 1) / cb) < want) cb = (cb + 1) / 2;
  w->cb = cb;
  w->items = p.n * ((p.c + cb - 1) / cb);
  w->parts = std::min<int64_t>(p.threads, w->items);
  roi_table_layout(a, p, &w->rois);
  buckets_layout(a, p, &w->bk);
  w->cost_end = a.take<int64_t>(w->items);
  w->bound = a.take<int64_t>(w->parts + 1);
  w->errs = a.take<FirstError>(w->parts);
  w->slices = a.take_slices(static_cast<int>(w->parts), layout_bytes([&](Arena &s) {
    float *acc, *g;
    bwd_layout(s, p, cb, &acc, &g);
  }));
}

}  // namespace

int64_t roi_backward_workspace(const RoiParams &p, const Strided4 &, const Strided4 &) {
  Arena a;
  BwdWork w;
  bwd_work_layout(a, p, &w);
  return a.used();
}


RoiDataError roipool_backward(const RoiParams &p, const Strided4 &grad_out, const Strided2 &rois,
                              const Strided4 &argmax, const Strided4 &grad_in, void *workspace) {
  Arena a(workspace, roi_backward_workspace(p, grad_out, argmax));
  BwdWork w;
  bwd_work_layout(a, p, &w);
  RoiDataError first = read_rois(p, rois, &w.rois);
  if (first.kind) return first;
  bucket_by_batch(p, w.rois, &w.bk);
  const int64_t *const start = w.bk.start, *const order = w.bk.order;
  const int64_t cb = w.cb, items = w.items, nblocks = (p.c + cb - 1) / cb;
  const int64_t hw = std::max<int64_t>(1, p.h * p.w);
  // Contiguous runs of items, one per thread, balanced by work (the ROIs of the item's batch plus
  // the zeroing and write-out of its planes) rather than by item count: batches rarely hold the
  // same number of ROIs.
  int64_t total = 0;
  for (int64_t i = 0; i < items; ++i) {
    const int64_t b = i / nblocks, cn = std::min(cb, p.c - (i % nblocks) * cb);
    total += cn * ((start[b + 1] - start[b]) * p.ph * p.pw + hw);
    w.cost_end[i] = total;
  }
  const int parts = static_cast<int>(w.parts);
  split_by_cost(w.cost_end, items, parts, w.bound);
  for (int t = 0; t < parts; ++t) new (&w.errs[t]) FirstError();
  auto body = [&](int part, int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t)
      backward_items(p, grad_out, order, start, argmax, grad_in, cb, w.bound[t], w.bound[t + 1],
                     !p.serial, &w.errs[part], w.slices.slice(part));
  };
  parallel_for(parts, body, parts);
  FirstError bad;
  for (int t = 0; t < parts; ++t) bad.merge(w.errs[t]);
  if (bad.pos >= 0) {  // the flat position in gradOutput's (r, c, i, j) order
    const int64_t bins = p.ph * p.pw;
    first.kind = 2;
    first.roi = bad.pos / (p.c * bins);
    first.c = bad.pos / bins % p.c;
    first.ph = bad.pos % bins / p.pw;
    first.pw = bad.pos % p.pw;
    first.value = static_cast<double>(bad.value);
  }
  return first;
}

void zero_fill(const Strided4 &t, aclDataType dtype) {
  const int64_t es = dtype_size(dtype);
  for (int64_t n = 0; n < t.n; ++n)
    for (int64_t c = 0; c < t.c; ++c)
      for (int64_t h = 0; h < t.h; ++h)
        for (int64_t w = 0; w < t.w; ++w) std::memset(elem(t, es, n, c, h, w), 0, static_cast<size_t>(es));
}

}  // namespace poolgrad
