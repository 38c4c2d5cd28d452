// SPDX-License-Identifier: Apache-2.0
// What the RoI forward and backward kernels share: addressing, the private copy of the ROIs, bin
// geometry, batch buckets and the cost split.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>

#include "../core/scatter.h"
#include "roipool_kernels.h"

namespace poolgrad {
namespace roi_detail {

inline char *elem(const Strided4 &t, int64_t esz, int64_t n, int64_t c, int64_t h, int64_t w) {
  return t.base + (n * t.sn + c * t.sc + h * t.sh + w * t.sw) * esz;
}

inline float roi_value(const RoiParams &p, const Strided2 &r, int64_t i, int64_t j) {
  const char *q = r.base + (i * r.s0 + j * r.s1) * dtype_size(p.dtype);
  // Read once (scatter.h): read_rois copies each value into the workspace, and only the copy is
  // checked and used.
  if (p.dtype == ACL_FLOAT16)
    return half_to_float(load_once(reinterpret_cast<const uint16_t *>(q)));
  if (p.dtype == ACL_DOUBLE)  // the geometry is float32's, as for FLOAT (roipool_double.cpp)
    return static_cast<float>(load_once(reinterpret_cast<const double *>(q)));
  return load_once(reinterpret_cast<const float *>(q));
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

// The bin rule, its one copy for the scalar paths: bin (i, j)'s maximum over plane (row stride sh,
// column stride sw, in elements) and its flat index; an empty bin gives 0 and -1, and NaN never
// wins (a bin of NaNs gives -inf and -1).
template <class T>
inline void bin_max(const T *plane, int64_t sh, int64_t sw, int64_t w, const RoiGeom &g, int64_t i,
                    int64_t j, T *best, int64_t *at) {
  *best = 0;
  *at = -1;
  if (g.empty || g.he[i] <= g.hs[i] || g.we[j] <= g.ws[j]) return;
  *best = -std::numeric_limits<T>::infinity();
  for (int64_t hh = g.hs[i]; hh < g.he[i]; ++hh) {
    const T *row = plane + hh * sh;
    for (int64_t ww = g.ws[j]; ww < g.we[j]; ++ww) {
      const T v = row[ww * sw];
      // The running maximum rarely changes inside a bin: a branch is cheaper than a dependent
      // select chain.
      if (v > *best) {
        *best = v;
        *at = hh * w + ww;
      }
    }
  }
}

// The ROIs as phase 2 sees them: a private float copy of rois (R x 5), read from the caller's
// tensor exactly once, and each ROI's batch index decoded once from that copy. Every later use
// reads only these, so a caller that changes rois during phase 2 (a data race on its side) can
// change the numbers but never send poolgrad outside its own memory.
struct RoiTable {
  float *v = nullptr;        // v[r * 5 + j] = rois[r, j]
  int64_t *batch = nullptr;  // trunc(v[r * 5]), checked to lie in [0, n)
};

void roi_table_layout(Arena &a, const RoiParams &p, RoiTable *t);
// Copies rois and decodes the batch indices; the first ROI whose batch index is outside [0, n)
// (NaN included) is reported and nothing else is decoded.
FirstError read_rois(const RoiParams &p, const Strided2 &rois, RoiTable *t);

void geometry_layout(Arena &a, const RoiParams &p, RoiGeom **geo, int64_t **edges);
// ROI r's batch and bin edges, into edges[0 .. 2 * (ph + pw)).
void geometry(const RoiParams &p, const RoiTable &t, int64_t r, int64_t *edges, RoiGeom *out);

// The ROIs bucketed by batch index: bucket b is order[start[b] .. start[b + 1]), ascending r.
struct Buckets {
  int64_t *start = nullptr, *order = nullptr, *fill = nullptr;
};

void buckets_layout(Arena &a, const RoiParams &p, Buckets *bk);
void bucket_by_batch(const RoiParams &p, const RoiTable &t, Buckets *bk);

// Splits items [0, items) into `parts` contiguous runs of about equal cost (cost_end: the
// running total of the items' costs); run t is [bound[t], bound[t + 1]).
void split_by_cost(const int64_t *cost_end, int64_t items, int parts, int64_t *bound);

}  // namespace roi_detail
}  // namespace poolgrad
