// SPDX-License-Identifier: Apache-2.0
// RoI pooling backward kernel: the ROIs are bucketed by batch index (ascending r in each bucket);
// each item is a (batch, channel block) whose float32 accumulator is the thread's own (no
// atomics), zeroed, filled in (r, ph, pw) order and written out once, rounded to the dtype. The
// order of every sum is fixed, so the result is the same for any thread count.
#include <algorithm>
#include <cstring>

#include "../core/prefetch.h"
#include "../core/scatter.h"
#include "../core/simd.h"
#include "roipool_common.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define POOLGRAD_X86 1
#endif

namespace poolgrad {

namespace {

using namespace roi_detail;

// Four independent scatter runs interleaved bin by bin (the portable path of backward_items); each
// argmax loaded once and used as checked (scatter.h), bad ones noted at pos + k of their run.
__attribute__((noinline)) void scatter4(float *__restrict p0, float *__restrict p1,
                                        float *__restrict p2, float *__restrict p3, const float *g0,
                                        const float *g1, const float *g2, const float *g3,
                                        const int32_t *a0, const int32_t *a1, const int32_t *a2,
                                        const int32_t *a3, int64_t bins, int64_t hw,
                                        const int64_t *pos, FirstError *err) {
  for (int64_t k = 0; k < bins; ++k) {
    const int32_t i0 = load_once(a0 + k), i1 = load_once(a1 + k);
    const int32_t i2 = load_once(a2 + k), i3 = load_once(a3 + k);
    add_checked(p0, g0[k], i0, hw, pos[0] + k, err);
    add_checked(p1, g1[k], i1, hw, pos[1] + k, err);
    add_checked(p2, g2[k], i2, hw, pos[2] + k, err);
    add_checked(p3, g3[k], i3, hw, pos[3] + k, err);
  }
}

#ifdef POOLGRAD_X86
// The same run as scatter_checked, eight bins at a time: one vector compare checks the eight
// argmax values (a group with a -1 or a bad value takes the scalar path), and the gradients come
// from one vector load, so that the only per-bin memory traffic left is the read-modify-write of
// the accumulator itself (about 30% fewer cycles per bin than the scalar loop on Zen 2). Every add
// is still a scalar float add in k order. The eight argmax values are loaded once, as four 64-bit
// pairs pinned in registers (pin_loaded); the vector checked is built from those registers and the
// addresses come from them, never from a second load of the caller's buffer. (Addresses taken
// out of a checked vector load instead, through the stack or by extracts, ran the RoI backward
// rows 2-20% slower: the address then waits for the vector.)
__attribute__((target("avx2"))) void scatter_run_avx2(float *__restrict plane, const float *g,
                                                      const int32_t *a, int64_t n, int64_t hw,
                                                      int64_t pos0, FirstError *err) {
  // hw == 0 (gradInputRef has no elements): hw - 1 would be UINT32_MAX and let every value,
  // -1 included, through the unsigned range check; the scalar loop accepts nothing.
  if (hw <= 0) return scatter_checked(plane, g, a, 1, n, hw, pos0, err);
  const __m256i last = _mm256_set1_epi32(static_cast<int>(hw - 1));
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    // The eight indices, loaded once as four pairs and pinned (the values the check sees are the
    // values used as addresses); the check is one vector compare built from those registers.
    uint64_t i01, i23, i45, i67;
    std::memcpy(&i01, a + k, 8);
    std::memcpy(&i23, a + k + 2, 8);
    std::memcpy(&i45, a + k + 4, 8);
    std::memcpy(&i67, a + k + 6, 8);
    pin_loaded(i01, i23, i45, i67);
    const __m256i va = _mm256_set_epi64x(static_cast<int64_t>(i67), static_cast<int64_t>(i45),
                                         static_cast<int64_t>(i23), static_cast<int64_t>(i01));
    // a in [0, hw) as unsigned  <=>  max_u(a, hw - 1) == hw - 1
    const __m256i in = _mm256_cmpeq_epi32(_mm256_max_epu32(va, last), last);
    if (__builtin_expect(_mm256_movemask_ps(_mm256_castsi256_ps(in)) != 0xFF, 0)) {
      const uint64_t pairs[4] = {i01, i23, i45, i67};
      for (int j = 0; j < 8; ++j)
        add_checked(plane, g[k + j], static_cast<int32_t>(pairs[j / 2] >> (32 * (j % 2))), hw,
                    pos0 + k + j, err);
      continue;
    }
    const __m256 vg = _mm256_loadu_ps(g + k);
    const __m128 lo = _mm256_castps256_ps128(vg), hi = _mm256_extractf128_ps(vg, 1);
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
  const bool flat = roi_backward_flat(p, gy, am);
  const bool wide = has_avx2(p.isa);
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
          int64_t at[4];
          for (int u = 0; u < 4; ++u) {
            gv[u] = grad_run(r, c + u, g + u * bins);
            av[u] = reinterpret_cast<const int32_t *>(elem(am, 4, r, c + u, 0, 0));
            pl[u] = acc + (c + u - c0) * ps;
            at[u] = pos0(r, c + u);
          }
          scatter4(pl[0], pl[1], pl[2], pl[3], gv[0], gv[1], gv[2], gv[3], av[0], av[1], av[2],
                   av[3], bins, hw, at, err);
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

// The (ph, pw) grid of gradOutput and argmax is one contiguous run of ph*pw values.
bool roi_backward_flat(const RoiParams &p, const Strided4 &gy, const Strided4 &am) {
  return gy.sw == 1 && gy.sh == p.pw && am.sw == 1 && am.sh == p.pw;
}

int64_t roi_backward_workspace(const RoiParams &p, const Strided4 &, const Strided2 &,
                               const Strided4 &, const Strided4 &) {
  Arena a;
  BwdWork w;
  bwd_work_layout(a, p, &w);
  return a.used();
}

FirstError roipool_backward(const RoiParams &p, const Strided4 &grad_out, const Strided2 &rois,
                            const Strided4 &argmax, const Strided4 &grad_in, void *workspace) {
  Arena a(workspace, roi_backward_workspace(p, grad_out, rois, argmax, grad_in));
  BwdWork w;
  bwd_work_layout(a, p, &w);
  const FirstError first = read_rois(p, rois, &w.rois);
  if (first.found()) return first;
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
  FirstError bad;  // the flat position in gradOutput's (r, c, i, j) order
  for (int t = 0; t < parts; ++t) bad.merge(w.errs[t]);
  bad.datum = kRoiArgmaxDatum;
  return bad;
}

int64_t roi_zero_fill_workspace(const RoiParams &, const Strided4 &, const Strided2 &,
                                const Strided4 &, const Strided4 &) {
  return 0;
}

FirstError roi_zero_fill(const RoiParams &p, const Strided4 &, const Strided2 &, const Strided4 &,
                         const Strided4 &t, void *) {
  const int64_t es = dtype_size(p.dtype);
  for (int64_t n = 0; n < t.n; ++n)
    for (int64_t c = 0; c < t.c; ++c)
      for (int64_t h = 0; h < t.h; ++h)
        for (int64_t w = 0; w < t.w; ++w)
          std::memset(elem(t, es, n, c, h, w), 0, static_cast<size_t>(es));
  return {};
}

}  // namespace poolgrad
