// SPDX-License-Identifier: Apache-2.0
// RoIAlign's kernels (docs/roi-align.md): plain parameters and views, no handles. Every number is
// computed as torchvision's CPU kernel computes it (the same float expressions, the same sample
// order), so float32 forwards are bitwise equal to torchvision's, and the backward adds into each
// gradInput element in torchvision's order: box, bin, sample, corner. The backward splits the
// work by channel, so each element is summed by one thread in that order for any thread count.
#pragma once

#include <cstdint>

#include "../core/plan.h"

namespace poolgrad {

struct RoiAlignParams {
  int64_t b = 0, c = 0, h = 0,
          w = 0;                  // the feature map: the forward's self, the backward's gradInput
  int64_t k = 0, ph = 0, pw = 0;  // boxes, pooled grid
  float scale = 1.0f;             // spatialScale
  int64_t sampling = 0;           // samples per bin side; <= 0: ceil(box side / pooled side)
  bool aligned = false;           // V2's half-pixel shift (no minimum box size of 1 then)
  bool max_mode = false;          // ONNX "max": the largest weighted corner, not the mean
  aclDataType dtype = ACL_FLOAT;  // the feature map's, the output's and the boxes' (FLOAT/FLOAT16;
                                  // DOUBLE by poolgrad's extension)
  aclDataType index_dtype = ACL_INT32;  // ONNX batchIndices' (the dispatch key's index column)
  int threads = 1;
  bool serial = false;  // an output that overlaps itself: one thread, in a fixed order
  Isa isa = Isa::kPortable;
};

// The boxes: (K, 5) rows of (batch index, x1, y1, x2, y2) of p.dtype (V2), or (K, 4) rows of
// (x1, y1, x2, y2) with the batch indices in their own (K,) INT32 tensor (ONNX: batch != null).
struct BoxView {
  char *base = nullptr;
  int64_t s0 = 0, s1 = 0;  // element strides
  char *batch = nullptr;   // ONNX batchIndices, INT32
  int64_t sb = 0;
};

// The data errors (FirstError::datum): a batch index outside [0, B) (V2: pos = box * 5, value =
// the double's bits; ONNX: pos = the box, value = the INT32); a box that is not finite after
// spatialScale (pos = box * columns + column of the first offending coordinate; value = the
// double's bits).
constexpr int kAlignBatchDatum = 0;
constexpr int kAlignBoxDatum = 1;

// Forward: x (B, C, H, W), y (K, C, ph, pw). Backward: grad_out (K, C, ph, pw) scattered into
// grad_in (B, C, H, W), which is overwritten. Both read every box value once, into the workspace,
// and check all boxes before writing anything.
using RoiAlignKernel = Kernel<RoiAlignParams, Strided4, BoxView, Strided4>;

// The workspaces: the private box table (and the forward's per-part tables of samples).
int64_t roi_align_forward_workspace(const RoiAlignParams &p, const Strided4 &a,
                                    const BoxView &boxes, const Strided4 &b);
int64_t roi_align_backward_workspace(const RoiAlignParams &p, const Strided4 &a,
                                     const BoxView &boxes, const Strided4 &b);
FirstError roi_align_forward(const RoiAlignParams &p, const Strided4 &x, const BoxView &boxes,
                             const Strided4 &y, void *workspace);
FirstError roi_align_backward(const RoiAlignParams &p, const Strided4 &grad_out,
                              const BoxView &boxes, const Strided4 &grad_in, void *workspace);

// DOUBLE (poolgrad's extension, core/dtype.h): torchvision's float64 kernel's numbers; the
// forward in one thread, the backward split by channel.
int64_t roi_align_forward_double_workspace(const RoiAlignParams &p, const Strided4 &a,
                                           const BoxView &boxes, const Strided4 &b);
FirstError roi_align_forward_double(const RoiAlignParams &p, const Strided4 &x,
                                    const BoxView &boxes, const Strided4 &y, void *workspace);
int64_t roi_align_backward_double_workspace(const RoiAlignParams &p, const Strided4 &a,
                                            const BoxView &boxes, const Strided4 &b);
FirstError roi_align_backward_double(const RoiAlignParams &p, const Strided4 &grad_out,
                                     const BoxView &boxes, const Strided4 &grad_in,
                                     void *workspace);

// The forward of an empty feature map (ONNX allows one): out zero-filled, as CANN's op_api does,
// with no box read.
FirstError roi_align_zero_fill(const RoiAlignParams &p, const Strided4 &x, const BoxView &boxes,
                               const Strided4 &y, void *workspace);
// Whether the forward's AVX2 row applies: float32, plane offsets of eight channels within int32.
bool roi_align_gather_vector(const RoiAlignParams &p, const Strided4 &x, const BoxView &boxes,
                             const Strided4 &y);
bool roi_align_map_empty(const RoiAlignParams &p, const Strided4 &x, const BoxView &boxes,
                         const Strided4 &y);

}  // namespace poolgrad
