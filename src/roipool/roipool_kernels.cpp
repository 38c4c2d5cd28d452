// RoI pooling CPU kernels.
//
// Forward: the bin edges of every ROI are computed once; the work is then split over
// (channel, roi) items, channel-major, so that a thread sweeps all ROIs of one channel while that
// channel's feature planes stay in cache.
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
#include <mutex>
#include <vector>

#include "../core/simd.h"

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

struct RoiGeom {
  int64_t batch = 0;
  bool empty = false;
  std::vector<int64_t> hs, he, ws, we;
};

RoiGeom geometry(const RoiParams &p, const Strided2 &rois, int64_t r) {
  RoiGeom g;
  g.batch = static_cast<int64_t>(std::trunc(roi_value(p, rois, r, 0)));
  const float x1 = roi_value(p, rois, r, 1), y1 = roi_value(p, rois, r, 2);
  const float x2 = roi_value(p, rois, r, 3), y2 = roi_value(p, rois, r, 4);
  const float xs = x1 * p.scale_w, ys = y1 * p.scale_h;
  const float xe = (x2 + 1.0f) * p.scale_w, ye = (y2 + 1.0f) * p.scale_h;
  g.empty = (x2 - x1 + 1.0f) * p.scale_w <= 0.0f || (y2 - y1 + 1.0f) * p.scale_h <= 0.0f;
  const float bw = (xe - xs) / static_cast<float>(p.pw);
  const float bh = (ye - ys) / static_cast<float>(p.ph);
  g.hs.resize(p.ph);
  g.he.resize(p.ph);
  g.ws.resize(p.pw);
  g.we.resize(p.pw);
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
  return g;
}

void forward_items(const RoiParams &p, const Strided4 &x, const std::vector<RoiGeom> &geo,
                   const Strided4 &y, const Strided4 &am, int64_t b0, int64_t e0) {
  const int64_t esz = dtype_size(p.dtype);
  const bool direct = p.dtype == ACL_FLOAT && x.plane_dense();
  // Float copies of the planes (b, c) of the current channel, made on first use.
  std::vector<float> planes(direct ? 0 : static_cast<size_t>(p.n * p.h * p.w));
  std::vector<char> have(static_cast<size_t>(p.n), 0);
  std::vector<float> yrow(static_cast<size_t>(p.pw));
  int64_t cur_c = -1;
  for (int64_t item = b0; item < e0; ++item) {
    const int64_t c = item / p.r, r = item % p.r;
    const RoiGeom &g = geo[r];
    if (c != cur_c) {
      cur_c = c;
      std::fill(have.begin(), have.end(), 0);
    }
    const float *plane;
    if (direct) {
      plane = reinterpret_cast<const float *>(elem(x, 4, g.batch, c, 0, 0));
    } else {
      float *dst = planes.data() + g.batch * p.h * p.w;
      if (!have[g.batch]) {
        for (int64_t h = 0; h < p.h; ++h)
          row_to_f32(p.dtype, elem(x, esz, g.batch, c, h, 0), x.sw, p.w, dst + h * p.w);
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
      row_from_f32(p.dtype, yrow.data(), elem(y, esz, r, c, i, 0), y.sw, p.pw, false);
    }
  }
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

// plane[a[k]] += g[k] in k order, skipping -1; false when some a[k] is outside {-1} U [0, hw).
inline bool scatter_checked(float *plane, const float *g, const int32_t *a, int64_t n, int64_t hw) {
  const uint32_t lim = static_cast<uint32_t>(hw);
  bool bad = false;
  for (int64_t k = 0; k < n; ++k) {
    const uint32_t i = static_cast<uint32_t>(a[k]);
    if (i < lim) plane[i] += g[k]; else bad |= a[k] != -1;
  }
  return !bad;
}

#ifdef POOLGRAD_X86
// The same run as scatter_checked, eight bins at a time: one vector compare checks the eight
// argmax values (a group with a -1 or a bad value takes the scalar path), the indices come from
// 64-bit loads of two values and the gradients from one vector load, so that the only per-bin
// memory traffic left is the read-modify-write of the accumulator itself (about 30% fewer cycles
// per bin than the scalar loop on Zen 2). Every add is still a scalar float add in k order.
__attribute__((target("avx2"))) bool scatter_run_avx2(float *__restrict plane, const float *g,
                                                      const int32_t *a, int64_t n, int64_t hw) {
  // hw == 0 (gradInputRef has no elements): hw - 1 would be UINT32_MAX and let every value,
  // -1 included, through the unsigned range check; the scalar loop accepts nothing.
  if (hw <= 0) return scatter_checked(plane, g, a, n, hw);
  const __m256i last = _mm256_set1_epi32(static_cast<int>(hw - 1));
  bool ok = true;
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    const __m256i va = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(a + k));
    // a in [0, hw) as unsigned  <=>  max_u(a, hw - 1) == hw - 1
    const __m256i in = _mm256_cmpeq_epi32(_mm256_max_epu32(va, last), last);
    if (__builtin_expect(_mm256_movemask_ps(_mm256_castsi256_ps(in)) != 0xFF, 0)) {
      ok &= scatter_checked(plane, g + k, a + k, 8, hw);
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
  if (k < n) ok &= scatter_checked(plane, g + k, a + k, n - k, hw);
  return ok;
}
#endif

void backward_items(const RoiParams &p, const Strided4 &gy, const std::vector<int64_t> &order,
                    const std::vector<int64_t> &start, const Strided4 &am, const Strided4 &gx,
                    int64_t cb, int64_t ib, int64_t ie, bool nt, RoiDataError *err) {
  const int64_t esz = dtype_size(p.dtype);
  const int64_t hw = p.h * p.w;
  const int64_t ps = hw;  // plane stride in the accumulator
  const int64_t nblocks = (p.c + cb - 1) / cb;
  const int64_t bins = p.ph * p.pw;
  std::vector<float> acc(static_cast<size_t>(cb * ps)), g(static_cast<size_t>(4 * bins));
  // The (ph, pw) grid of gradOutput and argmax is one contiguous run of ph*pw values.
  const bool flat = gy.sw == 1 && gy.sh == p.pw && am.sw == 1 && am.sh == p.pw;
  const bool wide = roi_backward_wide();
  (void)wide;  // only read on x86
  int64_t err_flat = -1;
  auto note = [&](int64_t r, int64_t c, int64_t i, int64_t j, int64_t a) {
    const int64_t f = ((r * p.c + c) * p.ph + i) * p.pw + j;
    if (err_flat < 0 || f < err_flat) {
      err_flat = f;
      err->kind = 2;
      err->roi = r;
      err->c = c;
      err->ph = i;
      err->pw = j;
      err->value = static_cast<double>(a);
    }
  };
  // Reports the first argmax of a (roi, channel) run that is outside {-1} U [0, hw).
  auto first_bad = [&](int64_t r, int64_t c, const int32_t *av) {
    for (int64_t k = 0; k < bins; ++k)
      if (av[k] != -1 && (av[k] < 0 || av[k] >= hw)) {
        note(r, c, k / p.pw, k % p.pw, av[k]);
        return;
      }
  };
  // One (roi, channel) run of the flat layout: plane[argmax] += grad, in bin order.
  auto scatter_run = [&](float *plane, const float *gv, const int32_t *av, int64_t r, int64_t c) {
    for (int64_t k = 0; k < bins; ++k) {
      const int64_t a = av[k];
      if (static_cast<uint64_t>(a) < static_cast<uint64_t>(hw))
        plane[a] += gv[k];
      else if (a != -1)
        note(r, c, k / p.pw, k % p.pw, a);
    }
  };
  for (int64_t item = ib; item < ie; ++item) {
    const int64_t b = item / nblocks, c0 = (item % nblocks) * cb;
    const int64_t cn = std::min(cb, p.c - c0);
    if (cn * ps > 0) std::memset(acc.data(), 0, static_cast<size_t>(cn * ps) * 4);
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
            for (int64_t off = 0; off < bins * esz; off += 64) __builtin_prefetch(gn + off);
            for (int64_t off = 0; off < bins * 4; off += 64) __builtin_prefetch(an + off);
          }
          const float *gv;
          if (p.dtype == ACL_FLOAT) {
            gv = reinterpret_cast<const float *>(elem(gy, 4, r, c, 0, 0));
          } else {
            row_to_f32(p.dtype, elem(gy, esz, r, c, 0, 0), 1, bins, g.data());
            gv = g.data();
          }
          const int32_t *av = reinterpret_cast<const int32_t *>(elem(am, 4, r, c, 0, 0));
          if (!scatter_run_avx2(acc.data() + (c - c0) * ps, gv, av, bins, hw)) first_bad(r, c, av);
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
            for (int64_t off = 0; off < 4 * bins * esz; off += 64) __builtin_prefetch(gn + off);
            for (int64_t off = 0; off < 4 * bins * 4; off += 64) __builtin_prefetch(an + off);
          }
          const float *gv[4];
          const int32_t *av[4];
          float *pl[4];
          for (int u = 0; u < 4; ++u) {
            if (p.dtype == ACL_FLOAT) {
              gv[u] = reinterpret_cast<const float *>(elem(gy, 4, r, c + u, 0, 0));
            } else {
              row_to_f32(p.dtype, elem(gy, esz, r, c + u, 0, 0), 1, bins, g.data() + u * bins);
              gv[u] = g.data() + u * bins;
            }
            av[u] = reinterpret_cast<const int32_t *>(elem(am, 4, r, c + u, 0, 0));
            pl[u] = acc.data() + (c + u - c0) * ps;
          }
          const bool all_ok = scatter4(pl[0], pl[1], pl[2], pl[3], gv[0], gv[1], gv[2], gv[3], av[0],
                                       av[1], av[2], av[3], bins, hw);
          if (!all_ok)  // rare: find and report the first bad argmax of these channels
            for (int u = 0; u < 4; ++u) first_bad(r, c + u, av[u]);
        }
      }
      for (; c < c0 + cn; ++c) {
        float *plane = acc.data() + (c - c0) * ps;
        if (flat) {
          const float *gv;
          if (p.dtype == ACL_FLOAT) {
            gv = reinterpret_cast<const float *>(elem(gy, 4, r, c, 0, 0));
          } else {
            row_to_f32(p.dtype, elem(gy, esz, r, c, 0, 0), 1, bins, g.data());
            gv = g.data();
          }
          scatter_run(plane, gv, reinterpret_cast<const int32_t *>(elem(am, 4, r, c, 0, 0)), r, c);
          continue;
        }
        for (int64_t i = 0; i < p.ph; ++i) {
          row_to_f32(p.dtype, elem(gy, esz, r, c, i, 0), gy.sw, p.pw, g.data());
          const int32_t *arow = reinterpret_cast<const int32_t *>(elem(am, 4, r, c, i, 0));
          for (int64_t j = 0; j < p.pw; ++j) {
            const int64_t a = arow[j * am.sw];
            if (static_cast<uint64_t>(a) < static_cast<uint64_t>(hw))
              plane[a] += g[j];
            else if (a != -1)
              note(r, c, i, j, a);
          }
        }
      }
    }
    for (int64_t c = c0; c < c0 + cn && hw > 0; ++c) {  // hw == 0: gradInputRef has no elements
      const float *plane = acc.data() + (c - c0) * ps;
      if (gx.plane_dense()) {
        row_from_f32(p.dtype, plane, elem(gx, esz, b, c, 0, 0), 1, hw, nt);
      } else {
        for (int64_t h = 0; h < p.h; ++h)
          row_from_f32(p.dtype, plane + h * p.w, elem(gx, esz, b, c, h, 0), gx.sw, p.w, nt);
      }
    }
  }
  if (nt) stream_fence();
}

}  // namespace

bool roi_backward_wide() {
#ifdef POOLGRAD_X86
  return cpu_has_avx2();
#else
  return false;
#endif
}

RoiDataError roi_check_batch(const RoiParams &p, const Strided2 &rois) {
  RoiDataError e;
  for (int64_t r = 0; r < p.r; ++r) {
    const float v = roi_value(p, rois, r, 0);
    const float t = std::trunc(v);
    if (!(t >= 0.0f && t < static_cast<float>(p.n))) {
      e.kind = 1;
      e.roi = r;
      e.value = static_cast<double>(v);
      break;
    }
  }
  return e;
}

void roipool_forward(const RoiParams &p, const Strided4 &x, const Strided2 &rois,
                     const Strided4 &y, const Strided4 &argmax, bool serial) {
  std::vector<RoiGeom> geo(static_cast<size_t>(p.r));
  for (int64_t r = 0; r < p.r; ++r) geo[r] = geometry(p, rois, r);
  parallel_for(
      p.c * p.r, [&](int64_t b, int64_t e) { forward_items(p, x, geo, y, argmax, b, e); },
      serial ? 1 : 0);
}

RoiDataError roipool_backward(const RoiParams &p, const Strided4 &grad_out, const Strided2 &rois,
                              const Strided4 &argmax, const Strided4 &grad_in, bool serial) {
  // Bucket the ROIs by batch index, ascending r inside each bucket.
  std::vector<int64_t> start(static_cast<size_t>(p.n) + 1, 0), order(static_cast<size_t>(p.r));
  std::vector<int64_t> batch(static_cast<size_t>(p.r));
  for (int64_t r = 0; r < p.r; ++r) batch[r] = static_cast<int64_t>(std::trunc(roi_value(p, rois, r, 0)));
  for (int64_t r = 0; r < p.r; ++r) ++start[batch[r] + 1];
  for (int64_t b = 0; b < p.n; ++b) start[b + 1] += start[b];
  {
    std::vector<int64_t> fill(start.begin(), start.end() - 1);
    for (int64_t r = 0; r < p.r; ++r) order[fill[batch[r]]++] = r;
  }
  const int threads = serial ? 1 : num_threads();
  const int64_t hw = std::max<int64_t>(1, p.h * p.w);
  // Channel blocks whose accumulators stay near L1 (64 KB: measured better than both 32 KB and
  // L2-sized blocks), and enough items for every thread.
  int64_t cb = std::max<int64_t>(1, (64 * 1024) / (hw * 4));
  cb = std::min(cb, std::max<int64_t>(p.c, 1));
  const int64_t want = 4 * static_cast<int64_t>(threads);
  while (cb > 1 && p.n * ((p.c + cb - 1) / cb) < want) cb = (cb + 1) / 2;
  const int64_t nblocks = (p.c + cb - 1) / cb, items = p.n * nblocks;
  // Contiguous runs of items, one per thread, balanced by work (the ROIs of the item's batch plus
  // the zeroing and write-out of its planes) rather than by item count: batches rarely hold the
  // same number of ROIs.
  std::vector<int64_t> cost_end(static_cast<size_t>(items));
  int64_t total = 0;
  for (int64_t i = 0; i < items; ++i) {
    const int64_t b = i / nblocks, cn = std::min(cb, p.c - (i % nblocks) * cb);
    total += cn * ((start[b + 1] - start[b]) * p.ph * p.pw + hw);
    cost_end[i] = total;
  }
  const int parts = static_cast<int>(std::min<int64_t>(threads, items));
  std::vector<int64_t> bound(static_cast<size_t>(parts) + 1, items);
  bound[0] = 0;
  for (int t = 1; t < parts; ++t) {
    const int64_t goal = total / parts * t;
    bound[t] = std::lower_bound(cost_end.begin(), cost_end.end(), goal) - cost_end.begin();
    bound[t] = std::max(bound[t], bound[t - 1]);
  }
  std::vector<RoiDataError> errs;
  std::mutex m;
  parallel_for(
      parts,
      [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          RoiDataError err;
          backward_items(p, grad_out, order, start, argmax, grad_in, cb, bound[t], bound[t + 1],
                         !serial, &err);
          if (err.kind) {
            std::lock_guard<std::mutex> lock(m);
            errs.push_back(err);
          }
        }
      },
      parts);
  RoiDataError first;
  auto key = [&](const RoiDataError &e) { return ((e.roi * p.c + e.c) * p.ph + e.ph) * p.pw + e.pw; };
  for (const RoiDataError &e : errs)
    if (!first.kind || key(e) < key(first)) first = e;
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
