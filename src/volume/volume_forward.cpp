// SPDX-License-Identifier: Apache-2.0
// The volume forward (3-D max pooling and adaptive max pooling, 2-D and 3-D).
//
// Per (n, c) volume and output row (od, oh), two steps:
//  A. the window's (d, h) input rows are combined column by column, a vector of columns at a time
//     with compares and blends (volume_combine.cpp, Highway), in (d, h) order: each column keeps
//     its maximum and the ordinal m of the row it came from (first maximum, last NaN, as a
//     sequential scan does);
//  B. each output column combines the columns of its W window. Scanning in (d, h, w) order
//     means: among equal maxima the smallest (m, w) wins, among NaNs the largest, NaN beats any
//     number; B applies that rule directly (reduce_window), so A's column-first order gives
//     PyTorch's bits.
// Rows are read in place when they are float32 with unit stride, else the volume is converted to
// float32 once (the thread's scratch).
#include <cstring>
#include <limits>

#include "../core/prefetch.h"
#include "../core/simd.h"
#include "volume_combine.h"
#include "volume_kernels.h"

namespace poolgrad {

void axis_window(const Axis &a, int64_t o, int64_t *first, int64_t *count, int64_t *step) {
  if (a.adaptive) {
    *first = bin_start(o, a.in, a.out);
    *count = bin_end(o, a.in, a.out) - *first;
    *step = 1;
    return;
  }
  const int64_t start = o * a.s - a.p;
  int64_t m0, m1;
  tap_range(start, a.k, a.d, a.in, &m0, &m1);
  *first = start + m0 * a.d;
  *count = m1 > m0 ? m1 - m0 : 0;
  *step = a.d;
}

namespace {

struct Scratch {
  float *vol = nullptr;          // the volume as float32 (null when read in place)
  float *best = nullptr;         // step A: per column, the maximum of the window's rows
  int32_t *tap = nullptr;        // ... and the ordinal of its row
  const float **rows = nullptr;  // step A's rows: at most D*H
  int64_t *flat = nullptr;       // ... and the flat index of each one's first element
  float *orow = nullptr;
  int64_t *irow = nullptr;
  int64_t *first = nullptr, *count = nullptr, *step = nullptr;  // per axis and output: windows
};

void layout(Arena &a, const VolumeParams &p, bool in_place, Scratch *s) {
  const int64_t W = p.ax[2].in, wo = p.ax[2].out;
  s->vol = a.take<float>(in_place ? 0 : p.volume());
  s->best = a.take<float>(W + 8);
  s->tap = a.take<int32_t>(W + 8);
  s->rows = a.take<const float *>(p.ax[0].in * p.ax[1].in);
  s->flat = a.take<int64_t>(p.ax[0].in * p.ax[1].in);
  s->orow = a.take<float>(wo);
  s->irow = a.take<int64_t>(wo);
  const int64_t outs = p.ax[0].out + p.ax[1].out + wo;
  s->first = a.take<int64_t>(outs);
  s->count = a.take<int64_t>(outs);
  s->step = a.take<int64_t>(outs);
}

int64_t part_bytes(const VolumeParams &p, bool in_place) {
  return layout_bytes([&](Arena &a) {
    Scratch s;
    layout(a, p, in_place, &s);
  });
}

// Step B over one window's columns w0 + q*sw, q < cw, in two branch-free passes (which column
// wins is data, not control): the maximum, then the column holding it with the smallest key
// m*2^32 + w (the (d, h, w) order; W < 2^32); when a column is NaN, the NaN column with the
// largest key.
inline void reduce_window(const float *best, const int32_t *tap, int64_t w0, int64_t cw, int64_t sw,
                          float *bv, int64_t *bm, int64_t *bw) {
  float mx = best[w0];
  bool nan = false;
  for (int64_t q = 0; q < cw; ++q) {
    const float v = best[w0 + q * sw];
    nan |= v != v;
    mx = v > mx ? v : mx;
  }
  // The keys are combined with masks, not selected: compilers turned the selects into branches
  // on the float compare (a third of the 3-D forward's time, mispredicted).
  int64_t key;
  if (!nan) {
    uint64_t least = UINT64_MAX;
    for (int64_t q = 0; q < cw; ++q) {
      const int64_t w = w0 + q * sw;
      const uint64_t hit = uint64_t(0) - static_cast<uint64_t>(best[w] == mx);  // all ones on a hit
      const uint64_t k = ((static_cast<uint64_t>(tap[w]) << 32) | static_cast<uint64_t>(w)) | ~hit;
      least = k < least ? k : least;
    }
    key = static_cast<int64_t>(least);
  } else {
    uint64_t most = 0;  // keys + 1: 0 when no NaN column was seen yet
    for (int64_t q = 0; q < cw; ++q) {
      const int64_t w = w0 + q * sw;
      const uint64_t hit = uint64_t(0) - static_cast<uint64_t>(best[w] != best[w]);
      const uint64_t k =
          (((static_cast<uint64_t>(tap[w]) << 32) | static_cast<uint64_t>(w)) + 1) & hit;
      most = k > most ? k : most;
    }
    key = static_cast<int64_t>(most) - 1;
  }
  *bm = key >> 32;
  *bw = key & 0xffffffff;
  *bv = best[*bw];
}

// A window scanned element by element in (d, h, w) order: windows of more than 2^31 rows, rows of
// more than 2^32 columns.
template <class RowFn>
void scan_window(RowFn rows, int64_t taps, int64_t w0, int64_t cw, int64_t sw, float *best,
                 int64_t *m_out, int64_t *w_out) {
  float b = rows(0)[w0];
  int64_t bm = 0, bw = w0;
  for (int64_t m = 0; m < taps; ++m)
    for (int64_t q = 0; q < cw; ++q) {
      const float v = rows(m)[w0 + q * sw];
      const bool take = (v > b) | (v != v);
      b = take ? v : b;
      bm = take ? m : bm;
      bw = take ? w0 + q * sw : bw;
    }
  *best = b;
  *m_out = bm;
  *w_out = bw;
}

void forward_range(const VolumeParams &p, const Strided5 &x, const Strided5 &out,
                   const Strided5 &idx, int64_t b, int64_t e, Arena arena) {
  const bool in_place = rows_in_place(p, x);
  const CombineRows combine = combine_rows_for(p.isa);
  Scratch s;
  layout(arena, p, in_place, &s);
  const int64_t D = p.ax[0].in, H = p.ax[1].in, W = p.ax[2].in;
  const int64_t dout = p.ax[0].out, hout = p.ax[1].out, wout = p.ax[2].out;
  const int64_t esz = dtype_size(p.dtype);
  int64_t *const fst[3] = {s.first, s.first + dout, s.first + dout + hout};
  int64_t *const cnt[3] = {s.count, s.count + dout, s.count + dout + hout};
  int64_t *const stp[3] = {s.step, s.step + dout, s.step + dout + hout};
  for (int a = 0; a < 3; ++a)
    for (int64_t o = 0; o < p.ax[a].out; ++o)
      axis_window(p.ax[a], o, &fst[a][o], &cnt[a][o], &stp[a][o]);
  for (int64_t v = b; v < e; ++v) {
    const int64_t n = v / p.c, c = v % p.c;
    if (!in_place)
      for (int64_t d = 0; d < D; ++d)
        for (int64_t h = 0; h < H; ++h)
          row_to_f32(p.isa, p.dtype, volume_at(x, esz, n, c, d, h, 0), x.sw, W,
                     s.vol + (d * H + h) * W);
    auto row = [&](int64_t d, int64_t h) -> const float * {
      return in_place ? reinterpret_cast<const float *>(volume_at(x, 4, n, c, d, h, 0))
                      : s.vol + (d * H + h) * W;
    };
    // The next volume is fetched while this one is computed, a share per output row.
    SpreadPrefetch next;
    if (v + 1 < e && x.sw == 1 && x.sh == W && x.sd == H * W)
      next = SpreadPrefetch(volume_at(x, esz, (v + 1) / p.c, (v + 1) % p.c, 0, 0, 0),
                            D * H * W * esz, dout * hout);
    for (int64_t od = 0; od < dout; ++od)
      for (int64_t oh = 0; oh < hout; ++oh) {
        next.step(od * hout + oh);
        const int64_t fd = fst[0][od], cd = cnt[0][od], sd = stp[0][od];
        const int64_t fh = fst[1][oh], ch = cnt[1][oh], sh = stp[1][oh];
        const int64_t taps = cd * ch;
        auto rows = [&](int64_t m) { return row(fd + m / ch * sd, fh + m % ch * sh); };
        const bool wide = taps > INT32_MAX || W > UINT32_MAX;  // beyond step A/B's keys
        if (taps > 0 && !wide) {
          int64_t m = 0;
          for (int64_t i = 0; i < cd; ++i)
            for (int64_t j = 0; j < ch; ++j, ++m) {
              s.rows[m] = row(fd + i * sd, fh + j * sh);
              s.flat[m] = ((fd + i * sd) * H + fh + j * sh) * W;
            }
          combine(s.rows, static_cast<int32_t>(taps), W, s.best, s.tap);
        }
        for (int64_t ow = 0; ow < wout; ++ow) {
          const int64_t w0 = fst[2][ow], cw = cnt[2][ow], sw = stp[2][ow];
          if (taps == 0 || cw == 0) {
            s.orow[ow] = -std::numeric_limits<float>::infinity();
            s.irow[ow] = -1;
            continue;
          }
          float bv;
          int64_t bm, bw;
          if (wide) {
            scan_window(rows, taps, w0, cw, sw, &bv, &bm, &bw);
          } else {
            reduce_window(s.best, s.tap, w0, cw, sw, &bv, &bm, &bw);
          }
          s.orow[ow] = bv;
          s.irow[ow] = (wide ? ((fd + bm / ch * sd) * H + fh + bm % ch * sh) * W : s.flat[bm]) + bw;
        }
        if (p.dtype == ACL_FLOAT) {  // short rows: a call per row would cost more than the row
          float *const o = reinterpret_cast<float *>(volume_at(out, 4, n, c, od, oh, 0));
          for (int64_t ow = 0; ow < wout; ++ow) o[ow * out.sw] = s.orow[ow];
        } else {
          row_from_f32(p.isa, p.dtype, s.orow, volume_at(out, esz, n, c, od, oh, 0), out.sw, wout,
                       false);
        }
        if (p.index_dtype == ACL_INT32) {
          int32_t *const ir = reinterpret_cast<int32_t *>(volume_at(idx, 4, n, c, od, oh, 0));
          for (int64_t ow = 0; ow < wout; ++ow) ir[ow * idx.sw] = static_cast<int32_t>(s.irow[ow]);
        } else {
          int64_t *const ir = reinterpret_cast<int64_t *>(volume_at(idx, 8, n, c, od, oh, 0));
          for (int64_t ow = 0; ow < wout; ++ow) ir[ow * idx.sw] = s.irow[ow];
        }
      }
  }
}

}  // namespace

int64_t volume_forward_workspace(const VolumeParams &p, const Strided5 &x, const Strided5 &,
                                 const Strided5 &) {
  Arena count;
  count.take_slices(parts_for(p.n * p.c, p.threads), part_bytes(p, rows_in_place(p, x)));
  return count.used();
}

FirstError volume_forward(const VolumeParams &p, const Strided5 &x, const Strided5 &out,
                          const Strided5 &idx, void *workspace) {
  Arena ws(workspace, volume_forward_workspace(p, x, out, idx));
  const Arena::Slices sl =
      ws.take_slices(parts_for(p.n * p.c, p.threads), part_bytes(p, rows_in_place(p, x)));
  auto run = [&](int part, int64_t b, int64_t e) {
    forward_range(p, x, out, idx, b, e, sl.slice(part));
  };
  parallel_for(p.n * p.c, run, p.threads);
  return {};
}

}  // namespace poolgrad
