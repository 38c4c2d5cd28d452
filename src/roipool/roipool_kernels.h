// RoI max pooling (Fast R-CNN, MMCV geometry) CPU kernels: plain parameters, no handles.
#pragma once

#include <cstdint>

#include "../core/core.h"

namespace poolgrad {

struct RoiParams {
  int64_t n = 0, c = 0, h = 0, w = 0;  // feature map / gradInputRef
  int64_t r = 0, ph = 0, pw = 0;       // rois and pooled grid
  float scale_h = 1.0f, scale_w = 1.0f;
  aclDataType dtype = ACL_FLOAT;
  int threads = 1;      // fixed in phase 1: the workspace holds one scratch slice per thread
  bool serial = false;  // an output may alias itself: one thread, in a fixed order
};

struct Strided2 {
  char *base = nullptr;
  int64_t s0 = 0, s1 = 0;
};

// A data error found in phase 2: kind 0 none, 1 batch index (roi), 2 argmax (flat position in
// gradOutput order r, c, ph, pw).
struct RoiDataError {
  int kind = 0;
  int64_t roi = 0, c = 0, ph = 0, pw = 0;
  double value = 0;
};

// Workspace bytes of the forward / backward (-1: the size overflows int64).
int64_t roi_forward_workspace(const RoiParams &p, const Strided4 &x);
int64_t roi_backward_workspace(const RoiParams &p);

// Both read rois once into the workspace and check the batch indices first (an error of kind 1
// writes nothing).
RoiDataError roipool_forward(const RoiParams &p, const Strided4 &x, const Strided2 &rois,
                             const Strided4 &y, const Strided4 &argmax, void *workspace);
// Overwrites grad_in with the scatter-sum; returns the first bad argmax.
RoiDataError roipool_backward(const RoiParams &p, const Strided4 &grad_out, const Strided2 &rois,
                              const Strided4 &argmax, const Strided4 &grad_in, void *workspace);

// Whether the backward scatters with the AVX2 runs (x86 with AVX2, unless
// POOLGRAD_CPU_CAPABILITY=default); otherwise the portable four-channel loop.
bool roi_backward_wide();
// The name of the backward path these views take (the trace).
const char *roi_backward_kernel(const RoiParams &p, const Strided4 &grad_out, const Strided4 &argmax);

// Whether the forward takes the sixteen-channel AVX2 blocks (x86 with AVX2, unless
// POOLGRAD_CPU_CAPABILITY=default; not for overlapping outputs); otherwise channel-major scalar.
bool roi_forward_wide(const RoiParams &p);

// Zero-fills a (possibly strided) tensor seen as (n, c, h, w).
void zero_fill(const Strided4 &t, aclDataType dtype);

}  // namespace poolgrad
