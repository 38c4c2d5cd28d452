// SPDX-License-Identifier: Apache-2.0
// Max-pool 2-D forward kernels: the target-independent part (scratch layouts, the conditions that
// choose each path's variants, the workspace and the entry points). The range bodies, which hold
// the vector code, are maxpool_forward_hwy.cpp, compiled once per Highway target.
//
// Per (n, c) plane, the plane is converted to float32 and split by column phase (column j goes
// to phase j % sW) in one pass, so that for every tap the window starts of consecutive outputs are
// consecutive floats: the interior of each output row is computed a vector of outputs at a time
// with vector compares and blends, the borders by scalar code, both from the split plane.
// Channels-last views (channel stride 1) vectorise across channels instead (the scan in
// maxpool_scan.cpp).
#include <algorithm>

#include "../core/prefetch.h"
#include "../core/simd.h"
#include "maxpool_common.h"
#include "maxpool_forward_keys.h"
#include "maxpool_forward_parts.h"

namespace poolgrad {

namespace maxpool_detail {

void interior_columns(const MaxPoolParams &p, int64_t *lo, int64_t *hi) {
  const PoolAttrs &a = p.a;
  int64_t ow_lo = 0;
  while (ow_lo < p.wo && ow_lo * a.sw - a.pw < 0) ++ow_lo;
  int64_t ow_hi = ow_lo;
  while (ow_hi < p.wo && ow_hi * a.sw - a.pw + (a.kw - 1) * a.dw < p.w) ++ow_hi;
  *lo = ow_lo;
  *hi = ow_hi;
}

bool fwd_plane_in_place(const MaxPoolParams &p, const Strided4 &x) {
  return p.dtype == ACL_FLOAT && x.plane_dense();
}

// Float32 planes read in place from an input past the caches fetch the row 8 rows below the one
// being split into L1. The plane's lines fetched into L2 over the previous plane's scan
// (SpreadPrefetch) have not all arrived when the split starts, and the split waited on them for
// a third of the kernel's time (vgg-pool1, against the same library without it: 1 thread 25.1 ->
// 21.5 ms, 2 threads 14.2 -> 12.9; docs/profiles.md). Inputs in cache gain nothing and pay the
// loop (14x14 planes: 10% slower); a row shorter than a line is not worth a fetch of its own.
int64_t fwd_plane_fetch_ahead(const MaxPoolParams &p, const Strided4 &x) {
  const bool past_caches = p.n * p.c * p.h * p.w * 4 >= kPrefetchMinBytes;
  return fwd_plane_in_place(p, x) && past_caches && p.w * 4 >= 64 ? 8 : 0;
}

bool fwd_plane_keys(const MaxPoolParams &p, const Strided4 &x) {
  const PoolAttrs &a = p.a;
  return has_avx2(p.isa) && p.h * p.w <= INT32_MAX &&
         keys_apply(p.dtype, x.sw, a.sw, (a.kh - 1) * a.dh * p.w + (a.kw - 1) * a.dw);
}

// Outputs larger than the caches are written with streaming stores (no read-for-ownership of lines
// that are only written: a third of the traffic otherwise), a whole output plane at a time, where
// every plane is whole cache lines: a streaming store to part of a line costs more than it saves
// (measured: 2.5x slower on 7x7 output planes), and rows rarely end on a line.
// True when runs of `run` elements starting at multiples of `inner` and `outer` (element strides)
// from a 64-byte aligned base are whole cache lines.
static bool whole_lines(const Strided4 &t, int64_t esz, int64_t run, int64_t inner, int64_t outer) {
  return reinterpret_cast<uintptr_t>(t.base) % 64 == 0 && (run * esz) % 64 == 0 &&
         (inner * esz) % 64 == 0 && (outer * esz) % 64 == 0;
}

bool fwd_plane_streams(const MaxPoolParams &p, const Strided4 &out, const Strided4 &idx) {
  const int64_t esz = dtype_size(p.dtype), isz = dtype_size(p.index_dtype), plane = p.ho * p.wo;
  return p.n * p.c * plane * (esz + isz) >= kStreamMinBytes && out.plane_dense() &&
         idx.plane_dense() && whole_lines(out, esz, plane, out.sc, out.sn) &&
         whole_lines(idx, isz, plane, idx.sc, idx.sn);
}

// The split plane's row pitch: a phase's columns padded to whole 8-float vectors. The split's last
// block of a row is whole vectors that stay in their row, and the scan's loads at a row's start
// each read what one of the split's stores wrote (loads spanning two rows' stores, still in the
// store buffer, cannot be forwarded: 14x14 planes were 15% slower without the padding).
// Key planes (int16, blocks of 16) pad to 16.
int64_t split_pitch(const MaxPoolParams &p, bool keys) {
  const int64_t v = keys ? 16 : 8;
  return ((p.w + p.a.sw - 1) / p.a.sw + v - 1) / v * v;
}

void fwd_plane_layout(Arena &a, const MaxPoolParams &p, bool in_place, bool keys, bool whole_planes,
                      FwdPlaneScratch *s) {
  // Strides 1 and 2 split in blocks that store every phase (even a plane one column wide).
  const int64_t phases = p.a.sw <= 2 ? p.a.sw : std::min(p.a.sw, p.w);
  int64_t lo, hi;
  interior_columns(p, &lo, &hi);
  const int64_t taps = hi > lo ? p.a.kw : 0;
  // slack: the scan's last vector may overhang
  s->split = a.take<float>(phases * p.h * split_pitch(p, keys) + 8);
  const int64_t block = keys ? 16 : 8;  // slack: blocks are stored whole
  s->orow = a.take<float>((whole_planes ? p.ho * p.wo : p.wo) + block);
  s->irow = a.take<int64_t>((whole_planes ? p.ho * p.wo : p.wo) + block);
  s->rowf = a.take<float>(in_place ? 0 : p.w + 16);  // slack: split_row's last block reads 16
  s->col_at = a.take<int64_t>(p.w);
  s->qphase = a.take<int64_t>(taps);
  s->qoff = a.take<int64_t>(taps);
  const int64_t rows = std::min(p.a.kh, p.h);
  s->tap_at = a.take<int64_t>(rows * taps);
  s->tap_index = a.take<uint32_t>(rows * taps);
  s->full_at = a.take<int64_t>(rows * taps);
  s->full_index = a.take<uint32_t>(rows * taps);
}

bool fwd_cl_direct(const MaxPoolParams &p, const Strided4 &x) {
  return p.dtype == ACL_FLOAT && x.sw == p.c;
}

bool fwd_cl_dense_rows(const MaxPoolParams &p, const Strided4 &out, const Strided4 &idx) {
  return out.sw == p.c && idx.sw == p.c;
}

void fwd_cl_layout(Arena &a, const MaxPoolParams &p, bool direct, FwdClScratch *s) {
  const int64_t rows = std::min(p.a.kh, p.h), cols = std::min(p.a.kw, p.w);
  s->rows = a.take<float>(direct ? 0 : rows * p.w * p.c);
  s->best = a.take<float>(p.wo * p.c + 8);
  s->bidx = a.take<int64_t>(p.wo * p.c + 8);
  s->rowp = a.take<const float *>(rows);
  s->tap_src = a.take<const float *>(rows * cols);
  s->tap_index = a.take<uint32_t>(rows * cols);
  s->nan_tag = a.take<int64_t>(p.h);
  s->nan_row = a.take<bool>(p.h);
}

// Outputs larger than the caches are written with streaming stores where each item's row is
// whole cache lines (as the plane forward does with planes).
bool fwd_cl_streams(const MaxPoolParams &p, const Strided4 &out, const Strided4 &idx) {
  const int64_t esz = dtype_size(p.dtype), isz = dtype_size(p.index_dtype), row = p.wo * p.c;
  return p.n * p.ho * row * (esz + isz) >= kStreamMinBytes && fwd_cl_dense_rows(p, out, idx) &&
         whole_lines(out, esz, row, out.sh, out.sn) && whole_lines(idx, isz, row, idx.sh, idx.sn);
}

}  // namespace maxpool_detail

namespace {

using namespace maxpool_detail;

// Each path below counts (workspace null: returns the bytes, runs nothing) or runs.
int64_t fwd_planes(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                   const Strided4 &idx, void *workspace) {
  return run_parts(
      p.threads, p.n * p.c, workspace,
      [&](Arena &a) {
        FwdPlaneScratch s;
        fwd_plane_layout(a, p, fwd_plane_in_place(p, x), fwd_plane_keys(p, x),
                         fwd_plane_streams(p, out, idx), &s);
      },
      [&](int64_t b, int64_t e, Arena a, FirstError *) {
        forward_plane_range(p, x, out, idx, b, e, a);
      },
      nullptr);
}

int64_t fwd_cl(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out, const Strided4 &idx,
               void *workspace) {
  const bool direct = fwd_cl_direct(p, x);
  return run_parts(
      p.threads, p.n * p.ho, workspace,
      [&](Arena &a) {
        FwdClScratch s;
        fwd_cl_layout(a, p, direct, &s);
      },
      [&](int64_t b, int64_t e, Arena a, FirstError *) {
        forward_cl_range(p, x, out, idx, b, e, a);
      },
      nullptr);
}

}  // namespace

int64_t maxpool_forward_planes_workspace(const MaxPoolParams &p, const Strided4 &x,
                                         const Strided4 &out, const Strided4 &idx) {
  return fwd_planes(p, x, out, idx, nullptr);
}
FirstError maxpool_forward_planes(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                  const Strided4 &idx, void *workspace) {
  fwd_planes(p, x, out, idx, workspace);
  return {};
}
int64_t maxpool_forward_cl_workspace(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                     const Strided4 &idx) {
  return fwd_cl(p, x, out, idx, nullptr);
}
FirstError maxpool_forward_cl(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                              const Strided4 &idx, void *workspace) {
  fwd_cl(p, x, out, idx, workspace);
  return {};
}

bool maxpool_channels_last(const Strided4 &a, const Strided4 &b, const Strided4 &c) {
  return channels_last(a) && channels_last(b) && channels_last(c);
}

}  // namespace poolgrad
