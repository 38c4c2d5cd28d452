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

// The first ROI whose batch index trunc(rois[r, 0]) is outside [0, n) (NaN included).
RoiDataError roi_check_batch(const RoiParams &p, const Strided2 &rois);

void roipool_forward(const RoiParams &p, const Strided4 &x, const Strided2 &rois,
                     const Strided4 &y, const Strided4 &argmax, bool serial);

// Overwrites grad_in with the scatter-sum; returns the first bad argmax (batch indices must have
// been checked).
RoiDataError roipool_backward(const RoiParams &p, const Strided4 &grad_out, const Strided2 &rois,
                              const Strided4 &argmax, const Strided4 &grad_in, bool serial);

// Whether the backward scatters with the AVX2 runs (x86 with AVX2, unless
// POOLGRAD_CPU_CAPABILITY=default); otherwise the portable four-channel loop.
bool roi_backward_wide();

// Whether the forward takes the sixteen-channel AVX2 blocks (x86 with AVX2, unless
// POOLGRAD_CPU_CAPABILITY=default; not for overlapping outputs); otherwise channel-major scalar.
bool roi_forward_wide(const RoiParams &p, bool serial);
// Scratch bytes a thread of the forward needs (-1: the count overflows).
int64_t roi_forward_scratch_bytes(const RoiParams &p, bool serial);

// Zero-fills a (possibly strided) tensor seen as (n, c, h, w).
void zero_fill(const Strided4 &t, aclDataType dtype);

}  // namespace poolgrad
