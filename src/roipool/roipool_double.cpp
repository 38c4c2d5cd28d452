// SPDX-License-Identifier: Apache-2.0
// RoI max pooling in DOUBLE, by poolgrad's extension (poolgradSetThreadDoubleDtype; CANN lists
// FLOAT and FLOAT16): the values compared and summed in double, never narrowed; the geometry is
// CANN's float32 one (the ROIs read as float32, as the FLOAT path reads them), so the bins are
// those of the other dtypes. One thread, plain loops: golden-data speed (PyTorch's gradcheck).
#include "roipool_common.h"

namespace poolgrad {

using namespace roi_detail;

namespace {

struct DoubleWork {
  RoiTable rois;
  RoiGeom *geo = nullptr;
  int64_t *edges = nullptr;
};

void double_layout(Arena &a, const RoiParams &p, DoubleWork *w) {
  roi_table_layout(a, p, &w->rois);
  geometry_layout(a, p, &w->geo, &w->edges);
}

double *at(const Strided4 &t, int64_t n, int64_t c, int64_t h, int64_t w) {
  return reinterpret_cast<double *>(elem(t, 8, n, c, h, w));
}

}  // namespace

int64_t roi_double_workspace(const RoiParams &p, const Strided4 &, const Strided2 &,
                             const Strided4 &, const Strided4 &) {
  Arena a;
  DoubleWork w;
  double_layout(a, p, &w);
  return a.used();
}

FirstError roi_forward_double(const RoiParams &p, const Strided4 &x, const Strided2 &rois,
                              const Strided4 &y, const Strided4 &argmax, void *workspace) {
  Arena a(workspace, roi_double_workspace(p, x, rois, y, argmax));
  DoubleWork w;
  double_layout(a, p, &w);
  const FirstError e = read_rois(p, rois, &w.rois);
  if (e.found()) return e;
  for (int64_t r = 0; r < p.r; ++r) {
    RoiGeom &g = w.geo[r];
    geometry(p, w.rois, r, w.edges + r * 2 * (p.ph + p.pw), &g);
    for (int64_t c = 0; c < p.c; ++c)
      for (int64_t i = 0; i < p.ph; ++i)
        for (int64_t j = 0; j < p.pw; ++j) {
          double best;
          int64_t bi;
          bin_max(at(x, g.batch, c, 0, 0), x.sh, x.sw, p.w, g, i, j, &best, &bi);
          *at(y, r, c, i, j) = best;
          *reinterpret_cast<int32_t *>(elem(argmax, 4, r, c, i, j)) = static_cast<int32_t>(bi);
        }
  }
  return e;
}

// gradInputRef zeroed, then each bin's gradient added at its argmax in the ROI's map, in (r, c, i,
// j) order; -1 skipped, any other argmax outside the map noted (the first, flat in that order) and
// skipped. Each argmax is loaded once (scatter.h).
FirstError roi_backward_double(const RoiParams &p, const Strided4 &grad_out, const Strided2 &rois,
                               const Strided4 &argmax, const Strided4 &grad_in, void *workspace) {
  Arena a(workspace, roi_double_workspace(p, grad_out, rois, argmax, grad_in));
  DoubleWork w;
  double_layout(a, p, &w);
  FirstError e = read_rois(p, rois, &w.rois);
  if (e.found()) return e;
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t c = 0; c < p.c; ++c)
      for (int64_t h = 0; h < p.h; ++h)
        for (int64_t x = 0; x < p.w; ++x) *at(grad_in, n, c, h, x) = 0.0;
  e.datum = kRoiArgmaxDatum;
  for (int64_t r = 0; r < p.r; ++r)
    for (int64_t c = 0; c < p.c; ++c)
      for (int64_t i = 0; i < p.ph; ++i)
        for (int64_t j = 0; j < p.pw; ++j) {
          const int64_t k =
              load_once(reinterpret_cast<const int32_t *>(elem(argmax, 4, r, c, i, j)));
          if (in_plane(k, p.h * p.w))
            *at(grad_in, w.rois.batch[r], c, k / p.w, k % p.w) += *at(grad_out, r, c, i, j);
          else if (k != -1)
            e.note(((r * p.c + c) * p.ph + i) * p.pw + j, k);
        }
  return e;
}

}  // namespace poolgrad
