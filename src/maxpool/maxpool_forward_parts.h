// SPDX-License-Identifier: Apache-2.0
// What the max-pool 2-D forward's per-target code (maxpool_forward_hwy.cpp, compiled once per
// Highway target) shares with its target-independent part (maxpool_forward.cpp): each path's
// scratch layout, the conditions that choose its variants, and the range bodies' entry points.
#pragma once

#include <cstdint>

#include "../core/parts.h"
#include "maxpool_kernels.h"

namespace poolgrad {
namespace maxpool_detail {

// ---- planes -----------------------------------------------------------------------------------
// A thread's scratch for the plane forward. Every size is proportional to the plane, never to an
// attribute: only phases r < min(sW, W) hold columns, and the per-tap tables exist only when an
// interior column does (then kW <= W).
struct FwdPlaneScratch {
  float *split = nullptr;  // phases of the plane: phase r, row h, column j = x[h][r + j*sw]
  float *orow = nullptr;   // (16 floats of slack: blocks are stored whole)
  int64_t *irow = nullptr;
  float *rowf = nullptr;      // one input row as float32 (dtypes converted before the split)
  int64_t *col_at = nullptr;  // column j's place in a split row: (j % sW) * phase + j / sW
  int64_t *qphase = nullptr, *qoff = nullptr;
  // An output row's taps (m0 <= m < m1, every q): where each reads in `split`, relative to the
  // block's first output, and its index relative to the block's: at most min(kH, H) * kW. The
  // rows whose window lies inside the plane share one table (full_*), built once.
  int64_t *tap_at = nullptr, *full_at = nullptr;
  uint32_t *tap_index = nullptr, *full_index = nullptr;
};

// Output columns whose every tap lies inside [0, W): [ow_lo, ow_hi) (empty when the window is wider
// than the plane).
void interior_columns(const MaxPoolParams &p, int64_t *lo, int64_t *hi);
// float32 planes that are dense row-major are split straight from x (no float row copy).
bool fwd_plane_in_place(const MaxPoolParams &p, const Strided4 &x);
// How many rows below the row being split are fetched into L1 as it is split (0: none).
int64_t fwd_plane_fetch_ahead(const MaxPoolParams &p, const Strided4 &x);
// 16-bit planes scanned as keys (maxpool_forward_keys.h) where the AVX2 plan allows it.
bool fwd_plane_keys(const MaxPoolParams &p, const Strided4 &x);
// Whether the output planes are written whole with streaming stores.
bool fwd_plane_streams(const MaxPoolParams &p, const Strided4 &out, const Strided4 &idx);
// The split plane's row pitch, in elements (a multiple of 8 floats, of 16 keys).
int64_t split_pitch(const MaxPoolParams &p, bool keys);
void fwd_plane_layout(Arena &a, const MaxPoolParams &p, bool in_place, bool keys, bool whole_planes,
                      FwdPlaneScratch *s);

// ---- channels-last (channel stride 1 in x, out and indices) ------------------------------------
// Items are (n, oh) output rows. A window covers at most min(kH, H) input rows: the row tables are
// sized by that, not by kH.
struct FwdClScratch {
  float *rows = nullptr, *best = nullptr;  // best: the item's output row, Wout * C (+ 8 slack)
  int64_t *bidx = nullptr;
  const float **rowp = nullptr;
  // One output position's taps in scan order: where each reads (channel 0) and its index.
  const float **tap_src = nullptr;
  uint32_t *tap_index = nullptr;
  // Per input row ih: the image whose row ih was last checked for NaN (-1: none), and the result.
  int64_t *nan_tag = nullptr;
  bool *nan_row = nullptr;
};

// float32 rows read in place (no converted copy).
bool fwd_cl_direct(const MaxPoolParams &p, const Strided4 &x);
// An item's output row (Wout positions of C channels) is one dense run in out and indices.
bool fwd_cl_dense_rows(const MaxPoolParams &p, const Strided4 &out, const Strided4 &idx);
// Whether the items' output rows are written with streaming stores.
bool fwd_cl_streams(const MaxPoolParams &p, const Strided4 &out, const Strided4 &idx);
void fwd_cl_layout(Arena &a, const MaxPoolParams &p, bool direct, FwdClScratch *s);

// The range bodies (maxpool_forward_hwy.cpp): planes [pb, pe) of n*c, items [ib, ie) of n*Hout,
// in the code of the Highway target p.isa names.
void forward_plane_range(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                         const Strided4 &idx, int64_t pb, int64_t pe, Arena scratch);
void forward_cl_range(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                      const Strided4 &idx, int64_t ib, int64_t ie, Arena scratch);

}  // namespace maxpool_detail
}  // namespace poolgrad
