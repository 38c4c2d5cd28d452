// SPDX-License-Identifier: Apache-2.0
// RoIAlign's forward kernels: the bin-by-bin path, the channel-major sweep of a box's tabled
// samples (portable; AVX2 eight channels a vector by gathers; or the tiled sweep of
// roialign_tiled.cpp, eight channels from a channels-last tile), and the zero fill of an empty
// map. Every path computes torchvision's float expressions in its order (no
// floating-point contraction: CMakeLists.txt), so every path gives the same bits.
#include <algorithm>
#include <climits>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "../core/parts.h"
#include "../core/threads.h"
#include "roialign_geometry.h"
#include "roialign_taps.h"

namespace poolgrad {

using namespace roialign_detail;

namespace {

// Box k's bins for channels [c0, c1) (at most kBlock), stored as T, computed in Real<T>.
template <class T, bool kMax>
void forward_bins(const RoiAlignParams &p, const Strided4 &x, const Strided4 &y,
                  const AlignBoxT<Real<T>> &a, int64_t k, int64_t c0, int64_t c1) {
  using R = Real<T>;
  const int nc = static_cast<int>(c1 - c0);
  const T *plane[kBlock];
  T *outp[kBlock];
  for (int j = 0; j < nc; ++j) {
    plane[j] = reinterpret_cast<const T *>(x.base) + a.batch * x.sn + (c0 + j) * x.sc;
    outp[j] = reinterpret_cast<T *>(y.base) + k * y.sn + (c0 + j) * y.sc;
  }
  const R count = static_cast<R>(std::max<int64_t>(a.gh * a.gw, 1));
  for (int64_t i = 0; i < p.ph; ++i)
    for (int64_t jw = 0; jw < p.pw; ++jw) {
      R acc[kBlock] = {};
      int64_t inside = 0;
      for_each_sample(p, a, i, jw, [&](const AxisSampleT<R> &sy, const AxisSampleT<R> &sx) {
        const CornersT<R> cn = corners(sy, sx, x.sh, x.sw);
        const R w1 = cn.w[0], w2 = cn.w[1], w3 = cn.w[2], w4 = cn.w[3];
        for (int j = 0; j < nc; ++j) {
          const T *q = plane[j];
          const R v1 = load_value(q + cn.o[0]), v2 = load_value(q + cn.o[1]),
                  v3 = load_value(q + cn.o[2]), v4 = load_value(q + cn.o[3]);
          if (kMax) {
            const R val = std::max(std::max(std::max(w1 * v1, w2 * v2), w3 * v3), w4 * v4);
            acc[j] = inside ? std::max(acc[j], val) : val;
          } else {
            acc[j] += w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;
          }
        }
        ++inside;
        return true;
      });
      // ONNX max: a sample outside the map weighs 0 (onnxruntime's max of zero-weighted corners).
      const bool outside = inside < a.gh * a.gw;
      for (int j = 0; j < nc; ++j) {
        R v;
        if (kMax)
          v = inside == 0 ? R(0) : outside ? std::max(acc[j], R(0)) : acc[j];
        else
          v = acc[j] / count;
        store_value(outp[j] + i * y.sh + jw * y.sw, v);
      }
    }
}

// ---- the channel-major forward: a box's samples tabled once, then each channel plane swept in
// torchvision's order (bin, sample) while it is in cache. A box with more samples on the map
// than a table holds takes forward_bins.
constexpr int64_t kTaps = 2048;      // table entries a part holds
constexpr int64_t kChannelRun = 64;  // channels one item sweeps

void tap_layout(Arena &a, const RoiAlignParams &p, TapTable *t) {
  int64_t bins = 0;
  const bool ok = checked_mul(p.ph, p.pw, &bins);
  t->taps = a.take<Tap>(kTaps);
  t->bin_start = a.take<int64_t>(ok ? bins + 1 : -1);
  t->outside = a.take<uint8_t>(ok ? bins : -1);
  t->tile = a.take<float>(p.dtype == ACL_FLOAT ? kTilePixels * 8 : 0);
}

// Whether to tile, and the taps' tile pixels: a region of at most kTilePixels read at least a
// quarter as many times as it has pixels.
void plan_tile(int64_t n, TapTable *t) {
  t->tiled = t->dense = false;
  if (n == 0) return;  // no samples on the map: no region (its bounds are still the sentinels)
  const int64_t rw = t->x1 - t->x0 + 1, area = (t->y1 - t->y0 + 1) * rw;
  t->tiled = area <= kTilePixels && area <= 4 * n;
  t->dense = t->tiled && area <= n;
  if (!t->tiled) return;
  for (int64_t s = 0; s < n; ++s) {
    Tap &tp = t->taps[s];
    for (int j = 0; j < 4; ++j)
      tp.t[j] = static_cast<int32_t>((tp.y[j >> 1] - t->y0) * rw + (tp.x[j & 1] - t->x0));
  }
}

// Fills t with box a's samples; false when they do not fit.
bool build_taps(const RoiAlignParams &p, const Strided4 &x, const AlignBox &a, TapTable *t) {
  int64_t n = 0, bin = 0;
  t->y0 = t->x0 = INT64_MAX;
  t->y1 = t->x1 = -1;
  for (int64_t i = 0; i < p.ph; ++i)
    for (int64_t jw = 0; jw < p.pw; ++jw, ++bin) {
      t->bin_start[bin] = n;
      const bool fit =
          for_each_sample(p, a, i, jw, [&](const AxisSample &sy, const AxisSample &sx) {
            if (n == kTaps) return false;
            Tap &tp = t->taps[n++];
            const Corners cn = corners(sy, sx, x.sh, x.sw);
            for (int j = 0; j < 4; ++j) tp.w[j] = cn.w[j], tp.o[j] = cn.o[j];
            tp.y[0] = sy.lo, tp.y[1] = sy.hi, tp.x[0] = sx.lo, tp.x[1] = sx.hi;
            t->y0 = std::min(t->y0, sy.lo), t->y1 = std::max(t->y1, sy.hi);
            t->x0 = std::min(t->x0, sx.lo), t->x1 = std::max(t->x1, sx.hi);
            return true;
          });
      if (!fit) return false;
      t->outside[bin] = n - t->bin_start[bin] < a.gh * a.gw;
    }
  t->bin_start[bin] = n;
  if (p.dtype == ACL_FLOAT) plan_tile(n, t);
  return true;
}

template <class T, bool kMax>
void sweep_channels(const RoiAlignParams &p, const Strided4 &x, const Strided4 &y,
                    const AlignBox &a, int64_t k, int64_t c0, int64_t c1, const TapTable &t) {
  const float count = static_cast<float>(std::max<int64_t>(a.gh * a.gw, 1));
  for (int64_t c = c0; c < c1; ++c) {
    const T *q = reinterpret_cast<const T *>(x.base) + a.batch * x.sn + c * x.sc;
    T *o = reinterpret_cast<T *>(y.base) + k * y.sn + c * y.sc;
    int64_t bin = 0;
    for (int64_t i = 0; i < p.ph; ++i)
      for (int64_t jw = 0; jw < p.pw; ++jw, ++bin) {
        const int64_t s0 = t.bin_start[bin], s1 = t.bin_start[bin + 1];
        float acc = 0.0f;
        for (int64_t s = s0; s < s1; ++s) {
          const Tap &tp = t.taps[s];
          const float v1 = load_value(q + tp.o[0]), v2 = load_value(q + tp.o[1]),
                      v3 = load_value(q + tp.o[2]), v4 = load_value(q + tp.o[3]);
          if (kMax) {
            const float val = std::max(std::max(std::max(tp.w[0] * v1, tp.w[1] * v2), tp.w[2] * v3),
                                       tp.w[3] * v4);
            acc = s == s0 ? val : std::max(acc, val);
          } else {
            acc += tp.w[0] * v1 + tp.w[1] * v2 + tp.w[2] * v3 + tp.w[3] * v4;
          }
        }
        float v;
        if (kMax)
          v = s1 == s0 ? 0.0f : t.outside[bin] ? std::max(acc, 0.0f) : acc;
        else
          v = acc / count;
        store_value(o + i * y.sh + jw * y.sw, v);
      }
  }
}

#if defined(__x86_64__) || defined(__i386__)
// sweep_channels for float32 with AVX2, eight channels a vector: each tap's four corners gathered
// from eight planes at once. The lanes compute exactly the scalar expressions (separate multiplies
// and adds, no FMA; std::max(a, b) is _mm256_max_ps(b, a), NaN included), so the bits are the
// same. Returns the first channel not done (the tail is the scalar sweep's).
template <bool kMax>
__attribute__((target("avx2"))) int64_t sweep_channels_avx2(const RoiAlignParams &p,
                                                            const Strided4 &x, const Strided4 &y,
                                                            const AlignBox &a, int64_t k,
                                                            int64_t c0, int64_t c1,
                                                            const TapTable &t) {
  const __m256 count = _mm256_set1_ps(static_cast<float>(std::max<int64_t>(a.gh * a.gw, 1)));
  const __m256 zero = _mm256_setzero_ps();
  const int32_t sc = static_cast<int32_t>(x.sc);
  const __m256i lanes =
      _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(sc));
  int64_t c = c0;
  for (; c + 8 <= c1; c += 8) {
    const float *q = reinterpret_cast<const float *>(x.base) + a.batch * x.sn + c * x.sc;
    float *o = reinterpret_cast<float *>(y.base) + k * y.sn + c * y.sc;
    if (t.tiled)  // the region, channels last: pixel (yy, xx) is eight floats
      for (int64_t yy = t.y0, px = 0; yy <= t.y1; ++yy)
        for (int64_t xx = t.x0; xx <= t.x1; ++xx, ++px)
          _mm256_store_ps(t.tile + 8 * px,
                          _mm256_i32gather_ps(q + yy * x.sh + xx * x.sw, lanes, 4));
    int64_t bin = 0;
    for (int64_t i = 0; i < p.ph; ++i)
      for (int64_t jw = 0; jw < p.pw; ++jw, ++bin) {
        const int64_t s0 = t.bin_start[bin], s1 = t.bin_start[bin + 1];
        __m256 acc = zero;
        for (int64_t s = s0; s < s1; ++s) {
          const Tap &tp = t.taps[s];
          __m256 v[4];
          for (int j = 0; j < 4; ++j)
            v[j] =
                t.tiled
                    ? _mm256_load_ps(t.tile + 8 * tp.t[j])
                    : _mm256_i32gather_ps(
                          q,
                          _mm256_add_epi32(lanes, _mm256_set1_epi32(static_cast<int32_t>(tp.o[j]))),
                          4);
          const __m256 t1 = _mm256_mul_ps(_mm256_set1_ps(tp.w[0]), v[0]),
                       t2 = _mm256_mul_ps(_mm256_set1_ps(tp.w[1]), v[1]),
                       t3 = _mm256_mul_ps(_mm256_set1_ps(tp.w[2]), v[2]),
                       t4 = _mm256_mul_ps(_mm256_set1_ps(tp.w[3]), v[3]);
          if (kMax) {
            const __m256 val = _mm256_max_ps(t4, _mm256_max_ps(t3, _mm256_max_ps(t2, t1)));
            acc = s == s0 ? val : _mm256_max_ps(val, acc);
          } else {
            acc = _mm256_add_ps(acc, _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(t1, t2), t3), t4));
          }
        }
        __m256 r;
        if (kMax)
          r = s1 == s0 ? zero : t.outside[bin] ? _mm256_max_ps(zero, acc) : acc;
        else
          r = _mm256_div_ps(acc, count);
        alignas(32) float lane[8];
        _mm256_store_ps(lane, r);
        float *dst = o + i * y.sh + jw * y.sw;
        for (int j = 0; j < 8; ++j) dst[j * y.sc] = lane[j];
      }
  }
  return c;
}
#endif

template <class T, bool kMax>
void forward_items(const RoiAlignParams &p, const Strided4 &x, const Strided4 &y,
                   const AlignBox *boxes, int64_t b, int64_t e, TapTable &t) {
  const int64_t runs = (p.c + kChannelRun - 1) / kChannelRun;
  int64_t built = -1;  // the box whose taps t holds
  bool fits = false;
  for (int64_t it = b; it < e; ++it) {
    const int64_t k = it / runs, c0 = it % runs * kChannelRun, c1 = std::min(c0 + kChannelRun, p.c);
    if (k != built) fits = build_taps(p, x, boxes[k], &t), built = k;
    if (fits) {
      int64_t c = c0;
#if defined(__x86_64__) || defined(__i386__)
      // The AVX2 row (chosen only where roi_align_gather_vector held: its applies column).
      if (std::is_same<T, float>::value && has_avx2(p.isa))
        c = sweep_channels_avx2<kMax>(p, x, y, boxes[k], k, c0, c1, t);
      else
#endif
          if (std::is_same<T, float>::value && t.dense)
        c = tiled_sweep_for(p.isa, kMax)(p, x, y, boxes[k], k, c0, c1, t);
      sweep_channels<T, kMax>(p, x, y, boxes[k], k, c, c1, t);
      continue;
    }
    for (int64_t cb = c0; cb < c1; cb += kBlock)
      forward_bins<T, kMax>(p, x, y, boxes[k], k, cb, std::min(cb + kBlock, c1));
  }
}
int64_t forward_items_count(const RoiAlignParams &p) {
  return p.k * ((p.c + kChannelRun - 1) / kChannelRun);
}

auto tap_scratch(const RoiAlignParams &p) {
  return [&p](Arena &a) {
    TapTable t;
    tap_layout(a, p, &t);
  };
}

// The forward's parts: an error slot and a tap table each (run_parts' own description).
int64_t forward_parts_bytes(const RoiAlignParams &p) {
  return run_parts(
      p.threads, forward_items_count(p), nullptr, tap_scratch(p),
      [](int64_t, int64_t, Arena, FirstError *) {}, nullptr);
}

}  // namespace

int64_t roi_align_forward_workspace(const RoiAlignParams &p, const Strided4 &, const BoxView &,
                                    const Strided4 &) {
  return layout_bytes([&](Arena &a) {
    AlignBox *b;
    box_layout(a, p, &b);
    a.take<char>(forward_parts_bytes(p));
  });
}

FirstError roi_align_forward(const RoiAlignParams &p, const Strided4 &x, const BoxView &boxes,
                             const Strided4 &y, void *workspace) {
  Arena ws(workspace, roi_align_forward_workspace(p, x, boxes, y));
  AlignBox *table;
  box_layout(ws, p, &table);
  const FirstError e = read_boxes(p, boxes, table);
  if (e.found()) return e;
  const bool half = p.dtype == ACL_FLOAT16;
  auto body = [&](int64_t b, int64_t e2, Arena slice, FirstError *) {
    TapTable t;
    tap_layout(slice, p, &t);
    if (half && p.max_mode)
      forward_items<uint16_t, true>(p, x, y, table, b, e2, t);
    else if (half)
      forward_items<uint16_t, false>(p, x, y, table, b, e2, t);
    else if (p.max_mode)
      forward_items<float, true>(p, x, y, table, b, e2, t);
    else
      forward_items<float, false>(p, x, y, table, b, e2, t);
  };
  const int64_t parts = forward_parts_bytes(p);
  run_parts(p.threads, forward_items_count(p), ws.take<char>(parts), tap_scratch(p), body, nullptr);
  return FirstError();
}

// DOUBLE (poolgrad's extension): torchvision's float64 numbers, box by box in one thread
// (golden-data speed: PyTorch's gradcheck), through the same bin walk in double.
int64_t roi_align_forward_double_workspace(const RoiAlignParams &p, const Strided4 &,
                                           const BoxView &, const Strided4 &) {
  return layout_bytes([&](Arena &a) {
    AlignBoxT<double> *b;
    box_layout(a, p, &b);
  });
}

FirstError roi_align_forward_double(const RoiAlignParams &p, const Strided4 &x,
                                    const BoxView &boxes, const Strided4 &y, void *workspace) {
  Arena ws(workspace, roi_align_forward_double_workspace(p, x, boxes, y));
  AlignBoxT<double> *table;
  box_layout(ws, p, &table);
  const FirstError e = read_boxes(p, boxes, table);
  if (e.found()) return e;
  for (int64_t k = 0; k < p.k; ++k)
    for (int64_t cb = 0; cb < p.c; cb += kBlock) {
      if (p.max_mode)
        forward_bins<double, true>(p, x, y, table[k], k, cb, std::min(cb + kBlock, p.c));
      else
        forward_bins<double, false>(p, x, y, table[k], k, cb, std::min(cb + kBlock, p.c));
    }
  return FirstError();
}

FirstError roi_align_zero_fill(const RoiAlignParams &p, const Strided4 &, const BoxView &,
                               const Strided4 &y, void *) {
  const int64_t es = dtype_size(p.dtype);
  for (int64_t k = 0; k < y.n; ++k)
    for (int64_t c = 0; c < y.c; ++c)
      for (int64_t i = 0; i < y.h; ++i)
        for (int64_t j = 0; j < y.w; ++j)
          std::memset(y.base + (k * y.sn + c * y.sc + i * y.sh + j * y.sw) * es, 0, es);
  return FirstError();
}

bool roi_align_gather_vector(const RoiAlignParams &p, const Strided4 &x, const BoxView &,
                             const Strided4 &) {
  // float32 planes whose offsets (eight channels' span plus a plane's) fit the gather's int32.
  if (p.dtype != ACL_FLOAT || x.sc < 0 || x.sh < 0 || x.sw < 0) return false;
  const int64_t span = 7 * x.sc + (x.h - 1) * x.sh + (x.w - 1) * x.sw;
  return x.sc <= INT32_MAX / 8 && span < INT32_MAX;
}

bool roi_align_map_empty(const RoiAlignParams &p, const Strided4 &, const BoxView &,
                         const Strided4 &) {
  return p.b == 0 || p.c == 0 || p.h == 0 || p.w == 0;
}

}  // namespace poolgrad
