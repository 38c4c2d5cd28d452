// SPDX-License-Identifier: Apache-2.0
// Max-pool 2-D CPU kernels. They take plain parameters, never handles, and validate nothing the
// user can get wrong except the index data they must read anyway.
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

struct MaxPoolParams {
  int64_t n = 0, c = 0, h = 0, w = 0, ho = 0, wo = 0;
  PoolAttrs a;
  aclDataType dtype = ACL_FLOAT;
  aclDataType index_dtype = ACL_INT64;
  int threads = 1;  // fixed in phase 1: the workspace holds one scratch slice per thread
  bool serial = false;
  Isa isa = Isa::kPortable;  // chosen in phase 1 by the dispatch table
  bool unit_window = false;  // backward: 1x1 windows whose indices are not stored (the Mask API) //
                             // an output may alias itself: one thread, in plane order
};

// The kernels, one per path; each has its workspace function (bytes for these parameters and
// views, -1 when the size overflows int64). The dispatch table (maxpool_dispatch.cpp) pairs them
// with their keys and names; p.isa is the row's ISA.
int64_t maxpool_forward_planes_workspace(const MaxPoolParams &p, const Strided4 &x,
                                         const Strided4 &out, const Strided4 &idx);
FirstError maxpool_forward_planes(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                  const Strided4 &idx, void *workspace);
int64_t maxpool_forward_cl_workspace(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                     const Strided4 &idx);
FirstError maxpool_forward_cl(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                              const Strided4 &idx, void *workspace);

// The backwards return the first bad index, flat in (n, c, oh, ow) order (every other gradient
// is still summed and written).
int64_t maxpool_backward_planes_workspace(const MaxPoolParams &p, const Strided4 &gy,
                                          const Strided4 &idx, const Strided4 &gx);
FirstError maxpool_backward_planes(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                                   const Strided4 &gx, void *workspace);
// The write-only gather for 2x2 windows at stride 2 (same workspace as the planes path).
FirstError maxpool_backward_gather(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                                   const Strided4 &gx, void *workspace);
// The write-only gather for 3x3 windows at stride 2 (AVX-512; planes it cannot gather exactly
// are scattered as above).
int64_t maxpool_backward_gather3_workspace(const MaxPoolParams &p, const Strided4 &gy,
                                           const Strided4 &idx, const Strided4 &gx);
FirstError maxpool_backward_gather3(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                                    const Strided4 &gx, void *workspace);
int64_t maxpool_backward_cl_workspace(const MaxPoolParams &p, const Strided4 &gy,
                                      const Strided4 &idx, const Strided4 &gx);
FirstError maxpool_backward_cl(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                               const Strided4 &gx, void *workspace);
// The channels-last gather (AVX2; items it cannot gather exactly are scattered as above).
int64_t maxpool_backward_cl_gather_workspace(const MaxPoolParams &p, const Strided4 &gy,
                                             const Strided4 &idx, const Strided4 &gx);
FirstError maxpool_backward_cl_gather(const MaxPoolParams &p, const Strided4 &gy,
                                      const Strided4 &idx, const Strided4 &gx, void *workspace);

// Layout tests the dispatch uses: all three views channels-last (channel stride 1), and the
// gather's conditions (2x2 windows, stride 2, no padding or dilation, INT32 indices, planes of
// 16+ output columns with dense gradOutput and indices).
// The Mask API's own steps (maxpool_mask_kernels.cpp), over the int32 view `idx` of the mask's
// storage: 1x1 windows (the output is its window's one element; the mask one set bit per output
// in each plane's first row, the rest 0), and the tail after the forward's int32 indices (zero).
int64_t maxpool_mask_workspace(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                               const Strided4 &idx);
FirstError maxpool_mask_unit(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                             const Strided4 &idx, void *workspace);
FirstError maxpool_mask_tail(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                             const Strided4 &idx, void *workspace);
// The mask's bytes in one plane's row (CANN's layout).
inline int64_t mask_row_bytes(int64_t ho, int64_t wo) {
  return ((ho * wo + 15) / 16 + 1) * 32;
}

bool maxpool_channels_last(const Strided4 &a, const Strided4 &b, const Strided4 &c);
bool maxpool_gather_applies(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx);
// The 3x3 gather's: 3x3 windows, stride 2, padding 1, no dilation, floor-sized planes of exactly
// twice the output's height and width (even ones), dense gradOutput, indices and gradInput planes,
// a gradInput that does not overlap itself.
bool maxpool_gather3_applies(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                             const Strided4 &gx);
// The channels-last gather's: at most two owner windows a position along each axis (2x2 and 3x3
// windows at stride 2, 2-wide ones at stride 1), channels a multiple of 8, a gradInput that does
// not overlap itself.
bool maxpool_cl_gather_applies(const MaxPoolParams &p);

}  // namespace poolgrad
