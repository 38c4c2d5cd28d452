// SPDX-License-Identifier: Apache-2.0
// RoI max pooling (Fast R-CNN, MMCV geometry) CPU kernels: plain parameters, no handles.
#pragma once

#include <cstdint>

#include "../core/dtype.h"
#include "../core/isa.h"
#include "../core/scatter.h"
#include "../core/scratch.h"
#include "../core/threads.h"
#include "../core/view.h"

namespace poolgrad {

struct RoiParams {
  int64_t n = 0, c = 0, h = 0, w = 0;  // feature map / gradInputRef
  int64_t r = 0, ph = 0, pw = 0;       // rois and pooled grid
  float scale_h = 1.0f, scale_w = 1.0f;
  aclDataType dtype = ACL_FLOAT;
  aclDataType index_dtype = ACL_INT32;  // argmax
  int threads = 1;  // fixed in phase 1: the workspace holds one scratch slice per thread
  bool serial = false;
  Isa isa = Isa::kPortable;  // chosen in phase 1 by the dispatch table  // an output may alias
                             // itself: one thread, in a fixed order
};

struct Strided2 {
  char *base = nullptr;
  int64_t s0 = 0, s1 = 0;
};

// The data errors the kernels report (FirstError::datum): an argmax outside its map (pos flat in
// gradOutput's (r, c, ph, pw) order), a RoI batch index outside the batch (pos = the RoI, value =
// the double's bits).
constexpr int kRoiArgmaxDatum = 0;
constexpr int kRoiBatchDatum = 1;

// The kernels, each with its workspace function (-1: the size overflows int64). The dispatch
// table (roipool_dispatch.cpp) pairs them with their keys and names; p.isa is the row's ISA.
// Each reads rois once into the workspace and checks the batch indices first (an error of kind 1
// writes nothing).
//
// Forward, sixteen-channel blocks (AVX2 code; maps of at most 2^20 pixels, outputs that do not
// overlap themselves) and channel-major (any ISA, any views).
int64_t roi_forward_blocks_workspace(const RoiParams &p, const Strided4 &x, const Strided2 &rois,
                                     const Strided4 &y, const Strided4 &argmax);
FirstError roi_forward_blocks(const RoiParams &p, const Strided4 &x, const Strided2 &rois,
                              const Strided4 &y, const Strided4 &argmax, void *workspace);
int64_t roi_forward_channel_major_workspace(const RoiParams &p, const Strided4 &x,
                                            const Strided2 &rois, const Strided4 &y,
                                            const Strided4 &argmax);
FirstError roi_forward_channel_major(const RoiParams &p, const Strided4 &x, const Strided2 &rois,
                                     const Strided4 &y, const Strided4 &argmax, void *workspace);
bool roi_forward_blocks_apply(const RoiParams &p);

// Backward: overwrites grad_in with the scatter-sum; returns the first bad argmax. Flat runs of
// bins (gradOutput and argmax grids contiguous) take the eight-bin AVX2 runs when p.isa has AVX2,
// the four-channel loop otherwise; other views the strided loop.
int64_t roi_backward_workspace(const RoiParams &p, const Strided4 &grad_out, const Strided2 &rois,
                               const Strided4 &argmax, const Strided4 &grad_in);
FirstError roipool_backward(const RoiParams &p, const Strided4 &grad_out, const Strided2 &rois,
                            const Strided4 &argmax, const Strided4 &grad_in, void *workspace);
bool roi_backward_flat(const RoiParams &p, const Strided4 &grad_out, const Strided4 &argmax);

// DOUBLE (poolgrad's extension, core/dtype.h): the forward and the backward in double, one thread
// (roipool_double.cpp); the backward also zero-fills an empty gradOutput's gradInputRef.
int64_t roi_double_workspace(const RoiParams &p, const Strided4 &a, const Strided2 &rois,
                             const Strided4 &b, const Strided4 &c);
FirstError roi_forward_double(const RoiParams &p, const Strided4 &x, const Strided2 &rois,
                              const Strided4 &y, const Strided4 &argmax, void *workspace);
FirstError roi_backward_double(const RoiParams &p, const Strided4 &grad_out, const Strided2 &rois,
                               const Strided4 &argmax, const Strided4 &grad_in, void *workspace);

// The backward of an empty gradOutput: the gradient of an empty sum, gradInputRef zero-filled
// (a possibly strided view of p.dtype; CANN leaves it untouched).
int64_t roi_zero_fill_workspace(const RoiParams &p, const Strided4 &grad_out, const Strided2 &rois,
                                const Strided4 &argmax, const Strided4 &grad_in);
FirstError roi_zero_fill(const RoiParams &p, const Strided4 &grad_out, const Strided2 &rois,
                         const Strided4 &argmax, const Strided4 &grad_in, void *workspace);

}  // namespace poolgrad
