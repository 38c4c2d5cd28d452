// SPDX-License-Identifier: Apache-2.0
// RoIAlign's backward kernel: split by channel, so that each gradInput element is summed by one
// thread in torchvision's order (box, bin, sample, corner) whatever the thread count.
#include <algorithm>

#include "../core/threads.h"
#include "roialign_geometry.h"

namespace poolgrad {

using namespace roialign_detail;

namespace {

// Channels [c0, c1) of grad_in: zeroed, then every box's bins scattered in box, bin, sample,
// corner order.
void backward_channels(const RoiAlignParams &p, const Strided4 &go, const Strided4 &gi,
                       const AlignBox *boxes, int64_t c0, int64_t c1) {
  float *const in = reinterpret_cast<float *>(gi.base);
  const float *const out = reinterpret_cast<const float *>(go.base);
  for (int64_t n = 0; n < p.b; ++n)
    for (int64_t c = c0; c < c1; ++c)
      for (int64_t yy = 0; yy < p.h; ++yy)
        for (int64_t xx = 0; xx < p.w; ++xx)
          in[n * gi.sn + c * gi.sc + yy * gi.sh + xx * gi.sw] = 0;
  for (int64_t cb = c0; cb < c1; cb += kBlock) {
    const int nc = static_cast<int>(std::min<int64_t>(kBlock, c1 - cb));
    for (int64_t k = 0; k < p.k; ++k) {
      const AlignBox &a = boxes[k];
      if (a.gh * a.gw == 0) continue;
      const float count = static_cast<float>(a.gh * a.gw);
      float *plane[kBlock];
      for (int j = 0; j < nc; ++j) plane[j] = in + a.batch * gi.sn + (cb + j) * gi.sc;
      for (int64_t i = 0; i < p.ph; ++i)
        for (int64_t jw = 0; jw < p.pw; ++jw) {
          float g[kBlock];
          for (int j = 0; j < nc; ++j)
            g[j] = out[k * go.sn + (cb + j) * go.sc + i * go.sh + jw * go.sw];
          for_each_sample(p, a, i, jw, [&](const AxisSample &sy, const AxisSample &sx) {
            const Corners cn = corners(sy, sx, gi.sh, gi.sw);
            for (int j = 0; j < nc; ++j)
              for (int c4 = 0; c4 < 4; ++c4) plane[j][cn.o[c4]] += g[j] * cn.w[c4] / count;
            return true;
          });
        }
    }
  }
}

}  // namespace

int64_t roi_align_backward_workspace(const RoiAlignParams &p, const Strided4 &, const BoxView &,
                                     const Strided4 &) {
  return layout_bytes([&](Arena &a) {
    AlignBox *b;
    box_layout(a, p, &b);
  });
}

FirstError roi_align_backward(const RoiAlignParams &p, const Strided4 &grad_out,
                              const BoxView &boxes, const Strided4 &grad_in, void *workspace) {
  Arena ws(workspace, roi_align_backward_workspace(p, grad_out, boxes, grad_in));
  AlignBox *table;
  box_layout(ws, p, &table);
  const FirstError e = read_boxes(p, boxes, table);
  if (e.found()) return e;
  auto run = [&](int, int64_t b, int64_t e2) {
    backward_channels(p, grad_out, grad_in, table, b, e2);
  };
  parallel_for(p.c, run, p.threads);
  return FirstError();
}

}  // namespace poolgrad
