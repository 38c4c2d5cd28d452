// SPDX-License-Identifier: Apache-2.0
// Max pooling over (D, H, W) volumes, the kernels of the 3-D max pool and of the adaptive max
// pools (2-D ones run as volumes of depth 1). Plain parameters and views, never handles. A
// window is described per axis (Axis), so one forward serves both kinds of window: a max-pool
// window (kernel, stride, padding, dilation) and an adaptive bin.
#pragma once

#include <cstdint>

#include "../core/dtype.h"
#include "../core/isa.h"
#include "../core/scatter.h"
#include "../core/scratch.h"
#include "../core/threads.h"
#include "../core/view.h"
#include "../pooling/pool_window.h"

namespace poolgrad {

// One axis of a pooling: its input and output sizes and how output o picks its inputs.
struct Axis {
  int64_t in = 1, out = 1;
  int64_t k = 1, s = 1, p = 0, d = 1;  // a max-pool window: taps o*s - p + m*d, m < k
  bool adaptive = false;               // an adaptive bin instead (k, s, p, d unused)
};
// The inputs of output o on an axis: `count` (possibly 0) taps first, first + step, ...
void axis_window(const Axis &a, int64_t o, int64_t *first, int64_t *count, int64_t *step);

struct VolumeParams {
  int64_t n = 0, c = 0;
  Axis ax[3];  // D, H, W
  aclDataType dtype = ACL_FLOAT;
  aclDataType index_dtype = ACL_INT64;
  int threads = 1;      // fixed in phase 1: the workspace holds one scratch slice per thread
  bool serial = false;  // an output that overlaps itself: one thread, plain stores
  Isa isa = Isa::kPortable;
  int64_t volume() const { return ax[0].in * ax[1].in * ax[2].in; }
};

// Element (n, c, d, h, w) of a view whose elements are esz bytes.
inline char *volume_at(const Strided5 &t, int64_t esz, int64_t n, int64_t c, int64_t d, int64_t h,
                       int64_t w) {
  return t.base + (n * t.sn + c * t.sc + d * t.sd + h * t.sh + w * t.sw) * esz;
}
// Rows of t that the kernels read where they are: float32 with unit column stride.
inline bool rows_in_place(const VolumeParams &p, const Strided5 &t) {
  return p.dtype == ACL_FLOAT && t.sw == 1;
}

// Forward: per (n, c) volume, each window's maximum (the first in (d, h, w) order wins ties, NaN
// wins over numbers and the last NaN wins: PyTorch's rule) and its flat index d*H*W + h*W + w;
// a window with no input element gives -inf and -1. Workspace functions return the bytes for
// these parameters (-1 on overflow).
int64_t volume_forward_workspace(const VolumeParams &p, const Strided5 &x, const Strided5 &out,
                                 const Strided5 &idx);
FirstError volume_forward(const VolumeParams &p, const Strided5 &x, const Strided5 &out,
                          const Strided5 &idx, void *workspace);
// Backward: per (n, c) volume, gradOutput scattered to the stored indices in (od, oh, ow) order,
// summed in float32 and rounded once; -1 skipped; every other index outside the volume is
// reported (the first one, flat in (n, c, od, oh, ow) order) and skipped.
int64_t volume_backward_workspace(const VolumeParams &p, const Strided5 &gy, const Strided5 &idx,
                                  const Strided5 &gx);
FirstError volume_backward(const VolumeParams &p, const Strided5 &gy, const Strided5 &idx,
                           const Strided5 &gx, void *workspace);

}  // namespace poolgrad
