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
// corner order. T: float (FLOAT) or double (DOUBLE, poolgrad's extension), stored and computed.
template <class T>
void backward_channels(const RoiAlignParams &p, const Strided4 &go, const Strided4 &gi,
                       const AlignBoxT<T> *boxes, int64_t c0, int64_t c1) {
  T *const in = reinterpret_cast<T *>(gi.base);
  const T *const out = reinterpret_cast<const T *>(go.base);
  for (int64_t n = 0; n < p.b; ++n)
    for (int64_t c = c0; c < c1; ++c)
      for (int64_t yy = 0; yy < p.h; ++yy)
        for (int64_t xx = 0; xx < p.w; ++xx)
          in[n * gi.sn + c * gi.sc + yy * gi.sh + xx * gi.sw] = 0;
  for (int64_t cb = c0; cb < c1; cb += kBlock) {
    const int nc = static_cast<int>(std::min<int64_t>(kBlock, c1 - cb));
    for (int64_t k = 0; k < p.k; ++k) {
      const AlignBoxT<T> &a = boxes[k];
      if (a.gh * a.gw == 0) continue;
      const T count = static_cast<T>(a.gh * a.gw);
      T *plane[kBlock];
      for (int j = 0; j < nc; ++j) plane[j] = in + a.batch * gi.sn + (cb + j) * gi.sc;
      for (int64_t i = 0; i < p.ph; ++i)
        for (int64_t jw = 0; jw < p.pw; ++jw) {
          T g[kBlock];
          for (int j = 0; j < nc; ++j)
            g[j] = out[k * go.sn + (cb + j) * go.sc + i * go.sh + jw * go.sw];
          for_each_sample(p, a, i, jw, [&](const AxisSampleT<T> &sy, const AxisSampleT<T> &sx) {
            const CornersT<T> cn = corners(sy, sx, gi.sh, gi.sw);
            for (int j = 0; j < nc; ++j)
              for (int c4 = 0; c4 < 4; ++c4) plane[j][cn.o[c4]] += g[j] * cn.w[c4] / count;
            return true;
          });
        }
    }
  }
}

template <class T>
int64_t backward_workspace(const RoiAlignParams &p) {
  return layout_bytes([&](Arena &a) {
    AlignBoxT<T> *b;
    box_layout(a, p, &b);
  });
}

template <class T>
FirstError backward(const RoiAlignParams &p, const Strided4 &grad_out, const BoxView &boxes,
                    const Strided4 &grad_in, void *workspace) {
  Arena ws(workspace, backward_workspace<T>(p));
  AlignBoxT<T> *table;
  box_layout(ws, p, &table);
  const FirstError e = read_boxes(p, boxes, table);
  if (e.found()) return e;
  auto run = [&](int, int64_t b, int64_t e2) {
    backward_channels(p, grad_out, grad_in, table, b, e2);
  };
  parallel_for(p.c, run, p.threads);
  return FirstError();
}

}  // namespace

int64_t roi_align_backward_workspace(const RoiAlignParams &p, const Strided4 &, const BoxView &,
                                     const Strided4 &) {
  return backward_workspace<float>(p);
}
FirstError roi_align_backward(const RoiAlignParams &p, const Strided4 &grad_out,
                              const BoxView &boxes, const Strided4 &grad_in, void *workspace) {
  return backward<float>(p, grad_out, boxes, grad_in, workspace);
}

// DOUBLE (poolgrad's extension): the same scatter in double (split by channel, as the FLOAT one).
int64_t roi_align_backward_double_workspace(const RoiAlignParams &p, const Strided4 &,
                                            const BoxView &, const Strided4 &) {
  return backward_workspace<double>(p);
}
FirstError roi_align_backward_double(const RoiAlignParams &p, const Strided4 &grad_out,
                                     const BoxView &boxes, const Strided4 &grad_in,
                                     void *workspace) {
  return backward<double>(p, grad_out, boxes, grad_in, workspace);
}

}  // namespace poolgrad
