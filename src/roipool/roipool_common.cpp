// SPDX-License-Identifier: Apache-2.0
// The RoI kernels' shared pieces: the ROI table read once, bin geometry, buckets, the cost split.
#include "roipool_common.h"

#include <cstring>

namespace poolgrad {
namespace roi_detail {

void roi_table_layout(Arena &a, const RoiParams &p, RoiTable *t) {
  t->v = a.take<float>(p.r * 5);
  t->batch = a.take<int64_t>(p.r);
}

FirstError read_rois(const RoiParams &p, const Strided2 &rois, RoiTable *t) {
  FirstError e;
  for (int64_t r = 0; r < p.r; ++r)
    for (int64_t j = 0; j < 5; ++j) t->v[r * 5 + j] = roi_value(p, rois, r, j);
  for (int64_t r = 0; r < p.r; ++r) {
    const float v = t->v[r * 5];
    const float tr = std::trunc(v);
    if (!(tr >= 0.0f && tr < static_cast<float>(p.n))) {
      const double dv = static_cast<double>(v);
      e.datum = kRoiBatchDatum;
      e.pos = r;
      std::memcpy(&e.value, &dv, sizeof dv);
      return e;
    }
    t->batch[r] = static_cast<int64_t>(tr);
  }
  return e;
}

void geometry_layout(Arena &a, const RoiParams &p, RoiGeom **geo, int64_t **edges) {
  *geo = a.take<RoiGeom>(p.r);
  int64_t per_roi;
  *edges = a.take<int64_t>(
      checked_mul(2, p.ph + p.pw, &per_roi) && checked_mul(per_roi, p.r, &per_roi) ? per_roi : -1);
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

}  // namespace roi_detail
}  // namespace poolgrad
