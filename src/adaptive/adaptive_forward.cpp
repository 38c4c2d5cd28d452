// SPDX-License-Identifier: Apache-2.0
// Adaptive max pooling 2-D forward: the volume forward (src/volume) on volumes of depth 1, so the
// 2-D and 3-D adaptive operators share one kernel, one bin rule and one NaN rule.
#include "../volume/volume_kernels.h"
#include "adaptive_kernels.h"

namespace poolgrad {

namespace {

VolumeParams volume_params(const MaxPoolParams &p) {
  VolumeParams v;
  v.n = p.n;
  v.c = p.c;
  v.ax[0].adaptive = v.ax[1].adaptive = v.ax[2].adaptive = true;  // depth 1 -> 1
  v.ax[1].in = p.h, v.ax[1].out = p.ho;
  v.ax[2].in = p.w, v.ax[2].out = p.wo;
  v.dtype = p.dtype;
  v.index_dtype = p.index_dtype;
  v.threads = p.threads;
  v.serial = p.serial;
  v.isa = p.isa;
  return v;
}

}  // namespace

int64_t adaptive_forward_workspace(const MaxPoolParams &p, const Strided4 &x, const Strided4 &,
                                   const Strided4 &) {
  return volume_forward_workspace(volume_params(p), as_volume(x));
}

void adaptive_forward(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                      const Strided4 &idx, void *workspace) {
  volume_forward(volume_params(p), as_volume(x), as_volume(out), as_volume(idx), workspace);
}

}  // namespace poolgrad
