// SPDX-License-Identifier: Apache-2.0
// Max-pool 2-D backward kernels.
//
// Per (n, c) plane, a float32 accumulator (the thread's scratch, in cache) is zeroed, the
// gradients are scattered into it in (oh, ow) order, and it is written out once, rounded to the
// dtype, with streaming stores where the plane is contiguous. 2x2 windows at stride 2 (no
// overlap) are gathered instead: each pixel is written once, in order, without the zeroing pass
// and the read-modify-write (see gather_k2s2). Channels-last views work on (n, channel-block)
// items with the same summation order, so every layout gives the same bits.
//
// Why one file of about 650 lines: the scatter, the gathers and the channels-last items share the
// accumulator, the in-place rule and the write-out, and must keep one summation order; the 3x3
// gather, which is separate code, has its own file (maxpool_gather3.cpp).
#include <algorithm>
#include <cstring>

#include "../core/prefetch.h"
#include "../core/simd.h"
#include "maxpool_common.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace poolgrad {

namespace {

using namespace maxpool_detail;

// ---- backward, planes ---------------------------------------------------------------------------
// gradOutput and indices planes that are dense row-major: one run of ho*wo values a plane.
// (Unit windows read no indices: they take the per-row loop.)
bool whole_planes(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx) {
  return !p.unit_window && gy.plane_dense() && idx.plane_dense() && gy.sh == p.wo && idx.sh == p.wo;
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

// Columns [w0, W) of input row h, owned by output row irow / grow (null: no owner).
inline int64_t gather_row_scalar(float *row, int64_t h, int64_t w0, int64_t W, int64_t wo,
                                 const int32_t *irow, const float *grow) {
  int64_t matched = 0;
  if (!irow) {
    std::memset(row + w0, 0, static_cast<size_t>(W - w0) * 4);
    return 0;
  }
  const int64_t wend = std::min(W, 2 * wo);  // columns past the last window have no owner
  for (int64_t w = w0; w < wend; ++w) {      // branch-free: the match is data, not control
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
    expected += 8 - __builtin_popcount(
                        _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, minus1))));
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
      const __m256i p00 =
          _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(2 * oh * W + 2 * ow)), lane2);
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

// A dense float32 gradInput that stays in cache is its own accumulator (scatter_in_place): no
// write-out pass (adaptive-overlap, which runs this kernel: 0.172 -> 0.110 ms at 2 threads).
bool plane_in_place(const MaxPoolParams &p, const Strided4 &gx) {
  return scatter_in_place(p.dtype == ACL_FLOAT && gx.plane_dense(), p.serial, p.n * p.c, p.h * p.w,
                          p.ho * p.wo, dtype_size(p.dtype) + dtype_size(p.index_dtype));
}

// How a plane path forms each plane: the scatter, or a write-only gather where the dispatch found
// its conditions (maxpool_gather_applies, maxpool_gather3_applies).
enum class PlaneGather { kNone, kK2S2, kK3S2 };

// A thread's scratch for the plane backward: the float accumulator plane (none where gradInput is
// the accumulator), one gradOutput run as float32 (a whole plane's ho*wo values where gradOutput
// and indices planes are dense; none where such a plane is float32, read in place), and the 3x3
// gather's rows.
void bwd_plane_layout(Arena &a, const MaxPoolParams &p, bool whole, bool in_place, PlaneGather mode,
                      float **acc, float **grow, float **rows3) {
  *acc = a.take<float>(in_place ? 0 : p.h * p.w);
  *grow = a.take<float>(!whole ? p.wo : p.dtype == ACL_FLOAT ? 0 : p.ho * p.wo);
  *rows3 = a.take<float>(mode == PlaneGather::kK3S2 ? gather3_scratch_floats(p) : 0);
}

void backward_plane_range(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                          const Strided4 &gx, int64_t pb, int64_t pe, bool nt, PlaneGather mode,
                          FirstError *bt, Arena scratch) {
  const int64_t esz = dtype_size(p.dtype), isz = dtype_size(p.index_dtype);
  const int64_t hw = p.h * p.w;
  // gradOutput and indices planes that are dense row-major are scattered as one run of ho*wo
  // values (one call a plane instead of one a row: small planes are dominated by per-row work).
  const bool whole = whole_planes(p, gy, idx);
  const int64_t run = whole ? p.ho * p.wo : p.wo;
  const bool plane_nt = nt && hw * esz >= kPlaneStreamMinBytes;
  const bool prefetch =
      p.n * p.c * run * (esz + isz) >= kPrefetchMinBytes && run * (esz + isz) <= (64 << 10);
  const bool direct = plane_in_place(p, gx);
  float *acc_scratch, *grow, *rows3;
  bwd_plane_layout(scratch, p, whole, direct, mode, &acc_scratch, &grow, &rows3);
  const bool gather = mode == PlaneGather::kK2S2, gather3 = mode == PlaneGather::kK3S2;
  // The 3x3 gather writes a call that stays in cache (where the scatter would work in place) with
  // plain stores.
  const bool nt3 = plane_nt && !direct;
  for (int64_t pl = pb; pl < pe; ++pl) {
    const int64_t n = pl / p.c, c = pl % p.c;
    float *const acc = direct ? reinterpret_cast<float *>(elem(gx, 4, n, c, 0, 0)) : acc_scratch;
    if (whole) {
      const char *gy_plane = elem(gy, esz, n, c, 0, 0), *ix = elem(idx, isz, n, c, 0, 0);
      // The next plane's gradients and indices are fetched into L2 while this one is scattered,
      // a share per eighth of the run (runs of 1024+ outputs: splitting the 49 outputs of a 14x14
      // plane cost 10-20%), where they come from memory: in calls that read more than an L3 (the
      // dilated row's 24 MB stay in this machine's 32 MB L3 between calls, and the prefetches
      // made it 5-15% slower), for planes of up to 64 KB of inputs (vgg-pool1's 150 KB ones,
      // next to their 200 KB accumulator, got 4% slower).
      const int64_t steps = run >= 1024 ? 8 : 1;
      SpreadPrefetch next_g, next_i;
      if (pl + 1 < pe && mode != PlaneGather::kK2S2 && steps > 1 && prefetch) {
        next_g =
            SpreadPrefetch(elem(gy, esz, (pl + 1) / p.c, (pl + 1) % p.c, 0, 0), run * esz, steps);
        next_i =
            SpreadPrefetch(elem(idx, isz, (pl + 1) / p.c, (pl + 1) % p.c, 0, 0), run * isz, steps);
      }
      // (The 3x3 gather reads gradOutput in its dtype; the others a float32 copy of it.)
      if (gather3 && gather_k3s2_plane(p, gy_plane, ix, elem(gx, esz, n, c, 0, 0), nt3, rows3,
                                       {next_g, next_i, steps}))
        continue;
      const float *g = grow;
      if (p.dtype == ACL_FLOAT)
        g = reinterpret_cast<const float *>(gy_plane);
      else
        row_to_f32(p.isa, p.dtype, gy_plane, 1, run, grow);
      const bool gathered = gather && gather_k2s2(p, acc, g, reinterpret_cast<const int32_t *>(ix));
      if (!gathered) {
        std::memset(acc, 0, static_cast<size_t>(hw) * 4);
        auto scatter = [&](int64_t b, int64_t e) {
          if (p.index_dtype == ACL_INT32)
            scatter_checked(acc, g + b, reinterpret_cast<const int32_t *>(ix) + b, 1, e - b, hw,
                            pl * run + b, bt);
          else
            scatter_checked(acc, g + b, reinterpret_cast<const int64_t *>(ix) + b, 1, e - b, hw,
                            pl * run + b, bt);
        };
        if (steps == 1) {
          scatter(0, run);
        } else {
          const int64_t part = (run + steps - 1) / steps;
          for (int64_t k = 0, b = 0; k < steps; ++k, b += part) {
            next_g.step(k);
            next_i.step(k);
            if (b < run) scatter(b, std::min(run, b + part));
          }
        }
      }
    } else {
      std::memset(acc, 0, static_cast<size_t>(hw) * 4);
      for (int64_t oh = 0; oh < p.ho; ++oh) {
        row_to_f32(p.isa, p.dtype, elem(gy, esz, n, c, oh, 0), gy.sw, p.wo, grow);
        if (p.unit_window) {
          // 1x1 windows (padding 0): output (oh, ow) has one input element, (oh*sH, ow*sW).
          float *row = acc + oh * p.a.sh * p.w;
          for (int64_t ow = 0; ow < p.wo; ++ow) row[ow * p.a.sw] += grow[ow];
          continue;
        }
        const char *ix = elem(idx, isz, n, c, oh, 0);
        const int64_t pos0 = (pl * p.ho + oh) * p.wo;
        if (p.index_dtype == ACL_INT32)
          scatter_checked(acc, grow, reinterpret_cast<const int32_t *>(ix), idx.sw, p.wo, hw, pos0,
                          bt);
        else
          scatter_checked(acc, grow, reinterpret_cast<const int64_t *>(ix), idx.sw, p.wo, hw, pos0,
                          bt);
      }
    }
    if (direct) continue;
    if (gx.plane_dense()) {
      row_from_f32(p.isa, p.dtype, acc, elem(gx, esz, n, c, 0, 0), 1, hw, plane_nt);
    } else {
      for (int64_t h = 0; h < p.h; ++h)
        row_from_f32(p.isa, p.dtype, acc + h * p.w, elem(gx, esz, n, c, h, 0), gx.sw, p.w,
                     plane_nt);
    }
  }
  if (plane_nt) stream_fence();
}

// ---- backward, channels-last gather ------------------------------------------------------------
// Where a position has at most two owner windows along each axis (maxpool_cl_gather_applies: 2x2
// and 3x3 windows at stride 2, ...), an item's gradInput is gathered instead of scattered: per
// input pixel and 8 channels at a time, the gradients of its owners, the windows that have the
// pixel as a tap, are added in (oh, ow) order where the owner's index names the pixel, as masked
// values (0 + the matches, in the scatter's order; adding +0.0 for the others leaves the bits alone
// since the sum starts at +0.0 and so is never -0.0). Each pixel is written once, a row at a time,
// with no zeroing pass and no read-modify-write of a 4-byte-per-element accumulator the size of the
// image (3 MB for the ResNet stem: past the L2). Each (window, tap) pair is tested once, so the
// matches equal the indices other than -1 exactly when every index is one of its window's taps;
// otherwise the item is scattered instead (which also reports bad indices).

// The owners of each position x of an axis: the windows o (0 <= o < out) with x = o*s - pad + t*d
// for a tap t < k, ascending, as first[x] .. first[x+1] in list (at most 2 a position).
void axis_owners(int64_t in, int64_t k, int64_t s, int64_t pad, int64_t d, int64_t out,
                 int64_t *first, int64_t *list) {
  int64_t n = 0;
  for (int64_t x = 0; x < in; ++x) {
    first[x] = n;
    for (int64_t t = k - 1; t >= 0; --t) {  // o ascending
      const int64_t v = x + pad - t * d;
      if (v >= 0 && v % s == 0 && v / s < out) list[n++] = v / s;
    }
  }
  first[in] = n;
}

// Owners along an axis: at most min(k, (k-1)*d/s + 1) a position.
int64_t max_owners(int64_t k, int64_t s, int64_t d) {
  return std::min(k, (k - 1) * d / s + 1);
}

struct ClScratch {
  float *acc = nullptr, *g = nullptr;  // the scatter: the block's planes interleaved, one position
  int64_t *hfirst = nullptr, *hlist = nullptr, *wfirst = nullptr, *wlist = nullptr;  // the gather
  float *orow = nullptr;  // the gather: one input row of the item, W x cb
};

// Channels-last: items are (n, channel block); acc holds the block's planes interleaved
// (position-major, channel-minor) so that the write-out is contiguous per position.
void bwd_cl_layout(Arena &a, const MaxPoolParams &p, int64_t cb, bool gather, ClScratch *s) {
  s->acc = a.take<float>(p.h * p.w * cb);
  s->g = a.take<float>(cb);
  if (!gather) return;
  s->hfirst = a.take<int64_t>(p.h + 1);
  s->hlist = a.take<int64_t>(2 * p.h);
  s->wfirst = a.take<int64_t>(p.w + 1);
  s->wlist = a.take<int64_t>(2 * p.w);
  s->orow = a.take<float>(p.w * cb);
}

#if defined(__x86_64__) || defined(__i386__)
// The indices other than -1 in output row oh of an item (cn channels from c0).
template <class I>
int64_t count_row_indices(const Strided4 &idx, int64_t n, int64_t c0, int64_t oh, int64_t wo,
                          int64_t cn) {
  int64_t count = 0;
  for (int64_t ow = 0; ow < wo; ++ow) {
    const I *ip = reinterpret_cast<const I *>(elem(idx, sizeof(I), n, c0, oh, ow));
    for (int64_t c = 0; c < cn; ++c) count += ip[c] != -1;
  }
  return count;
}

// pix in every lane of an index vector of I.
template <class I>
__attribute__((target("avx2"))) inline __m256i index_lanes(int64_t pix) {
  if constexpr (sizeof(I) == 4) return _mm256_set1_epi32(static_cast<int32_t>(pix));
  return _mm256_set1_epi64x(pix);
}

// The 8 indices at ip equal to pix (index_lanes), as 8 lane masks.
__attribute__((target("avx2"))) inline __m256i match8(const int32_t *ip, const __m256i &pix) {
  return _mm256_cmpeq_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(ip)), pix);
}
__attribute__((target("avx2"))) inline __m256i match8(const int64_t *ip, const __m256i &pix) {
  const __m256i lo =
      _mm256_cmpeq_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(ip)), pix);
  const __m256i hi =
      _mm256_cmpeq_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(ip + 4)), pix);
  // The low halves of the 8 64-bit masks, in order.
  const __m256 packed = _mm256_shuffle_ps(_mm256_castsi256_ps(lo), _mm256_castsi256_ps(hi), 0x88);
  return _mm256_castpd_si256(_mm256_permute4x64_pd(_mm256_castps_pd(packed), 0xD8));
}

// One pixel's cn channels (a multiple of 8) from its NO owners (gradients gp[k], indices ip[k], in
// (oh, ow) order), into out as float32; with streaming stores where `stream` (out 32-byte aligned).
template <class I, aclDataType D, int NO>
__attribute__((target("avx2,f16c"))) inline void gather_pixel_cl(const char *const *gp,
                                                                 const I *const *ip, int64_t cn,
                                                                 int64_t pix, float *out,
                                                                 bool stream, __m256i *hits) {
  constexpr int64_t esz = D == ACL_FLOAT ? 4 : 2;
  const __m256i lanes = index_lanes<I>(pix);
  __m256i h = *hits;
  for (int64_t c = 0; c < cn; c += 8) {
    __m256 sum = _mm256_setzero_ps();
    for (int k = 0; k < NO; ++k) {
      const __m256i m = match8(ip[k] + c, lanes);
      sum =
          _mm256_add_ps(sum, _mm256_and_ps(_mm256_castsi256_ps(m), load8_f32<D>(gp[k] + c * esz)));
      h = _mm256_add_epi32(h, m);
    }
    if (stream)
      _mm256_stream_ps(out + c, sum);
    else
      _mm256_storeu_ps(out + c, sum);
  }
  *hits = h;
}

// One item (image n, channels c0 .. c0+cn, cn a multiple of 8) gathered into gx; false when it
// does not equal the scatter (the caller scatters the item instead).
template <class I, aclDataType D>
__attribute__((target("avx2,f16c"))) bool gather_cl_item_avx2(
    const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx, const Strided4 &gx, int64_t n,
    int64_t c0, int64_t cn, bool nt, const ClScratch &s) {
  constexpr int64_t esz = D == ACL_FLOAT ? 4 : 2;
  const char *const gbase = elem(gy, esz, n, c0, 0, 0);
  const I *const ibase = reinterpret_cast<const I *>(elem(idx, sizeof(I), n, c0, 0, 0));
  int64_t expected = 0, entered = 0;      // output rows [0, entered) counted into expected
  int64_t fetched = 0;                    // the last output row prefetched
  __m256i hits = _mm256_setzero_si256();  // per-lane match counts, negated
  const bool dense_rows = cn == p.c && gx.sw == p.c;
  // Dense float32 rows of whole vectors are streamed to gx by the gather itself: a row buffer
  // written out after each input row was a quarter of the kernel's time (resnet-stem-nhwc int32,
  // 2 threads: 4.79 -> 3.79 ms without it).
  const bool direct = D == ACL_FLOAT && nt && dense_rows && p.c % 8 == 0 &&
                      reinterpret_cast<uintptr_t>(elem(gx, 4, n, 0, 0, 0)) % 32 == 0 &&
                      (gx.sh * 4) % 32 == 0;
  for (int64_t h = 0; h < p.h; ++h) {
    const int64_t *const hl = s.hlist + s.hfirst[h];
    const int64_t nh = s.hfirst[h + 1] - s.hfirst[h];
    for (; nh > 0 && entered <= hl[nh - 1]; ++entered)
      expected += count_row_indices<I>(idx, n, c0, entered, p.wo, cn);
    // The next output row to enter is fetched while this input row is computed (it is first
    // read from memory by the count above, which otherwise waits on every line).
    SpreadPrefetch next_g, next_i;
    const int64_t next = nh > 0 ? hl[nh - 1] + 1 : entered;
    if (dense_rows && next < p.ho && next > fetched) {
      next_g = SpreadPrefetch(gbase + next * gy.sh * esz, p.wo * cn * esz, p.w);
      next_i = SpreadPrefetch(reinterpret_cast<const char *>(ibase + next * idx.sh),
                              p.wo * cn * static_cast<int64_t>(sizeof(I)), p.w);
      fetched = next;
    }
    const char *grow[2];
    const I *irow[2];
    for (int64_t a = 0; a < nh; ++a) {
      grow[a] = gbase + hl[a] * gy.sh * esz;
      irow[a] = ibase + hl[a] * idx.sh;
    }
    for (int64_t w = 0; w < p.w; ++w) {
      const int64_t *const wl = s.wlist + s.wfirst[w];
      const int64_t nw = s.wfirst[w + 1] - s.wfirst[w];
      const char *gp[4];
      const I *ip[4];
      int no = 0;
      for (int64_t a = 0; a < nh; ++a)
        for (int64_t b = 0; b < nw; ++b, ++no) {
          gp[no] = grow[a] + wl[b] * gy.sw * esz;
          ip[no] = irow[a] + wl[b] * idx.sw;
        }
      next_g.step(w);
      next_i.step(w);
      const int64_t pix = h * p.w + w;
      float *const o =
          direct ? reinterpret_cast<float *>(elem(gx, 4, n, 0, h, w)) : s.orow + w * cn;
      switch (no) {
        case 0:
          gather_pixel_cl<I, D, 0>(gp, ip, cn, pix, o, direct, &hits);
          break;
        case 1:
          gather_pixel_cl<I, D, 1>(gp, ip, cn, pix, o, direct, &hits);
          break;
        case 2:
          gather_pixel_cl<I, D, 2>(gp, ip, cn, pix, o, direct, &hits);
          break;
        default:
          gather_pixel_cl<I, D, 4>(gp, ip, cn, pix, o, direct, &hits);
          break;
      }
    }
    if (direct) continue;
    if (dense_rows) {
      row_from_f32(p.isa, p.dtype, s.orow, elem(gx, esz, n, 0, h, 0), 1, p.w * cn, nt);
    } else {
      for (int64_t w = 0; w < p.w; ++w)
        row_from_f32(p.isa, p.dtype, s.orow + w * cn, elem(gx, esz, n, c0, h, w), 1, cn,
                     nt && cn == p.c);
    }
  }
  for (; entered < p.ho; ++entered) expected += count_row_indices<I>(idx, n, c0, entered, p.wo, cn);
  alignas(32) int32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i *>(lanes), hits);
  int64_t matched = 0;
  for (int32_t l : lanes) matched -= l;
  return matched == expected;
}

template <class I>
bool gather_cl_item_dtype(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                          const Strided4 &gx, int64_t n, int64_t c0, int64_t cn, bool nt,
                          const ClScratch &s) {
  if (p.dtype == ACL_FLOAT16)
    return gather_cl_item_avx2<I, ACL_FLOAT16>(p, gy, idx, gx, n, c0, cn, nt, s);
  if (p.dtype == ACL_BF16)
    return gather_cl_item_avx2<I, ACL_BF16>(p, gy, idx, gx, n, c0, cn, nt, s);
  return gather_cl_item_avx2<I, ACL_FLOAT>(p, gy, idx, gx, n, c0, cn, nt, s);
}
#endif

bool gather_cl_item(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                    const Strided4 &gx, int64_t n, int64_t c0, int64_t cn, bool nt,
                    const ClScratch &s) {
#if defined(__x86_64__) || defined(__i386__)
  return p.index_dtype == ACL_INT32
             ? gather_cl_item_dtype<int32_t>(p, gy, idx, gx, n, c0, cn, nt, s)
             : gather_cl_item_dtype<int64_t>(p, gy, idx, gx, n, c0, cn, nt, s);
#else
  (void)p, (void)gy, (void)idx, (void)gx, (void)n, (void)c0, (void)cn, (void)nt, (void)s;
  return false;
#endif
}

void backward_cl_range(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                       const Strided4 &gx, int64_t cb, int64_t ib, int64_t ie, bool nt, bool gather,
                       FirstError *bt, Arena scratch) {
  const int64_t esz = dtype_size(p.dtype), isz = dtype_size(p.index_dtype);
  const int64_t hw = p.h * p.w;
  const int64_t nblocks = (p.c + cb - 1) / cb;
  ClScratch s;
  bwd_cl_layout(scratch, p, cb, gather, &s);
  float *const acc = s.acc, *const g = s.g;
  if (gather) {
    axis_owners(p.h, p.a.kh, p.a.sh, p.a.ph, p.a.dh, p.ho, s.hfirst, s.hlist);
    axis_owners(p.w, p.a.kw, p.a.sw, p.a.pw, p.a.dw, p.wo, s.wfirst, s.wlist);
  }
  for (int64_t item = ib; item < ie; ++item) {
    const int64_t n = item / nblocks, c0 = (item % nblocks) * cb;
    const int64_t cn = std::min(cb, p.c - c0);
    if (gather && gather_cl_item(p, gy, idx, gx, n, c0, cn, nt, s)) continue;
    std::memset(acc, 0, static_cast<size_t>(hw * cn) * 4);
    for (int64_t oh = 0; oh < p.ho; ++oh)
      for (int64_t ow = 0; ow < p.wo; ++ow) {
        // float32 gradients are read in place (a call per position costs more than the copy).
        const float *gp = reinterpret_cast<const float *>(elem(gy, esz, n, c0, oh, ow));
        if (p.dtype != ACL_FLOAT) {
          row_to_f32(p.isa, p.dtype, elem(gy, esz, n, c0, oh, ow), 1, cn, g);
          gp = g;
        }
        const char *ix = elem(idx, isz, n, c0, oh, ow);
        for (int64_t c = 0; c < cn; ++c) {
          // (The planes are interleaved, so not add_checked: the value loaded once is checked
          // against the plane and used, scaled, as the address.)
          const int64_t k = load_index(ix + c * isz, p.index_dtype);
          if (in_plane(k, hw))
            acc[k * cn + c] += gp[c];
          else if (k != -1)
            bt->note(((n * p.c + c0 + c) * p.ho + oh) * p.wo + ow, k);
        }
      }
    if (cn == p.c && gx.sw == p.c && gx.sh == p.w * p.c) {
      // All channels of a dense image: acc is gradInput's own layout, written in one run.
      row_from_f32(p.isa, p.dtype, acc, elem(gx, esz, n, 0, 0, 0), 1, hw * cn, nt);
    } else {
      for (int64_t h = 0; h < p.h; ++h)
        for (int64_t w = 0; w < p.w; ++w)
          row_from_f32(p.isa, p.dtype, acc + (h * p.w + w) * cn, elem(gx, esz, n, c0, h, w), 1, cn,
                       nt && cn == p.c);
    }
  }
  if (nt) stream_fence();
}

// Channels-last backward: enough (n, block) items for every thread; blocks of at least 16
// channels.
int64_t bwd_cl_block(const MaxPoolParams &p) {
  int64_t cb = p.c;
  const int64_t want_items = 2 * static_cast<int64_t>(p.threads);
  if (p.n < want_items) {
    const int64_t split = (want_items + p.n - 1) / p.n;
    cb = std::max<int64_t>(16, ((p.c + split - 1) / split + 15) / 16 * 16);
    cb = std::min(cb, p.c);
  }
  return cb;
}

int64_t bwd_planes(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                   const Strided4 &gx, void *workspace, PlaneGather mode, FirstError *bad) {
  const bool whole = whole_planes(p, gy, idx), in_place = plane_in_place(p, gx);
  const bool nt = !p.serial;  // streaming stores only where gradInput has no aliasing
  return run_parts(
      p.threads, p.n * p.c, workspace,
      [&](Arena &a) {
        float *acc, *grow, *rows3;
        bwd_plane_layout(a, p, whole, in_place, mode, &acc, &grow, &rows3);
      },
      [&](int64_t b, int64_t e, Arena a, FirstError *bt) {
        backward_plane_range(p, gy, idx, gx, b, e, nt, mode, bt, a);
      },
      bad);
}

int64_t bwd_cl(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx, const Strided4 &gx,
               void *workspace, bool gather, FirstError *bad) {
  const int64_t cb = bwd_cl_block(p), items = p.n * ((p.c + cb - 1) / cb);
  const bool nt = !p.serial;
  return run_parts(
      p.threads, items, workspace,
      [&](Arena &a) {
        ClScratch s;
        bwd_cl_layout(a, p, cb, gather, &s);
      },
      [&](int64_t b, int64_t e, Arena a, FirstError *bt) {
        backward_cl_range(p, gy, idx, gx, cb, b, e, nt, gather, bt, a);
      },
      bad);
}

// One bad-index report of a plane path run (the table's rows differ in the gather they take).
FirstError run_planes(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                      const Strided4 &gx, void *workspace, PlaneGather mode) {
  FirstError bad;
  bwd_planes(p, gy, idx, gx, workspace, mode, &bad);
  return bad;
}

}  // namespace
int64_t maxpool_backward_planes_workspace(const MaxPoolParams &p, const Strided4 &gy,
                                          const Strided4 &idx, const Strided4 &gx) {
  return bwd_planes(p, gy, idx, gx, nullptr, PlaneGather::kNone, nullptr);
}
FirstError maxpool_backward_planes(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                                   const Strided4 &gx, void *workspace) {
  return run_planes(p, gy, idx, gx, workspace, PlaneGather::kNone);
}
FirstError maxpool_backward_gather(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                                   const Strided4 &gx, void *workspace) {
  return run_planes(p, gy, idx, gx, workspace, PlaneGather::kK2S2);
}
int64_t maxpool_backward_gather3_workspace(const MaxPoolParams &p, const Strided4 &gy,
                                           const Strided4 &idx, const Strided4 &gx) {
  return bwd_planes(p, gy, idx, gx, nullptr, PlaneGather::kK3S2, nullptr);
}
FirstError maxpool_backward_gather3(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                                    const Strided4 &gx, void *workspace) {
  return run_planes(p, gy, idx, gx, workspace, PlaneGather::kK3S2);
}
int64_t maxpool_backward_cl_workspace(const MaxPoolParams &p, const Strided4 &gy,
                                      const Strided4 &idx, const Strided4 &gx) {
  return bwd_cl(p, gy, idx, gx, nullptr, false, nullptr);
}
FirstError maxpool_backward_cl(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                               const Strided4 &gx, void *workspace) {
  FirstError bad;
  bwd_cl(p, gy, idx, gx, workspace, false, &bad);
  return bad;
}
int64_t maxpool_backward_cl_gather_workspace(const MaxPoolParams &p, const Strided4 &gy,
                                             const Strided4 &idx, const Strided4 &gx) {
  return bwd_cl(p, gy, idx, gx, nullptr, true, nullptr);
}
FirstError maxpool_backward_cl_gather(const MaxPoolParams &p, const Strided4 &gy,
                                      const Strided4 &idx, const Strided4 &gx, void *workspace) {
  FirstError bad;
  bwd_cl(p, gy, idx, gx, workspace, true, &bad);
  return bad;
}

bool maxpool_cl_gather_applies(const MaxPoolParams &p) {
  const PoolAttrs &a = p.a;
  return !p.serial && !p.unit_window && p.c % 8 == 0 && max_owners(a.kh, a.sh, a.dh) <= 2 &&
         max_owners(a.kw, a.sw, a.dw) <= 2;
}

bool maxpool_gather3_applies(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                             const Strided4 &gx) {
  const PoolAttrs &a = p.a;
  // (Pixel numbers and window bases in int32 lanes: planes far below 2^31 pixels.)
  return a.kh == 3 && a.kw == 3 && a.sh == 2 && a.sw == 2 && a.ph == 1 && a.pw == 1 && a.dh == 1 &&
         a.dw == 1 && p.ho > 0 && p.wo > 0 && p.h == 2 * p.ho && p.w == 2 * p.wo &&
         p.h * p.w <= (int64_t(1) << 30) && !p.serial && whole_planes(p, gy, idx) &&
         gx.plane_dense();
}

bool maxpool_gather_applies(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx) {
  const PoolAttrs &a = p.a;
  return a.kh == 2 && a.kw == 2 && a.sh == 2 && a.sw == 2 && a.ph == 0 && a.pw == 0 && a.dh == 1 &&
         a.dw == 1 && p.index_dtype == ACL_INT32 && p.h > 0 && p.wo >= 16 &&
         whole_planes(p, gy, idx);
}

}  // namespace poolgrad
