// SPDX-License-Identifier: Apache-2.0
// The sixteen-channel RoI forward for float16 maps, in the key domain (core/keys16.h, AVX2 only):
// a block's planes are copied pixel-major as int16 keys, 16 channels in one vector, so that each
// window pixel takes one compare, one max and one blend for all 16 channels (the float32 scan
// takes two of each). A NaN's key is below every number's (NaN never wins, as in the float scan).
// Blocks holding a -0.0 are refused (its key would come back as +0.0), and calls with a bin wider
// or taller than 255 pixels use the float scan (a bin's winning pixel is kept as row << 8 | column
// in 16 bits). Each result leaves the scan as one int32, the value's bits beside the pixel's
// number, so that one transpose puts both in output order and the values are never widened to
// float32.
#pragma once

#include <cstdint>

#include "roipool_common.h"

namespace poolgrad {

// Whether a call's blocks may be scanned as keys: float16 data, dense rows, every bin at most 255
// pixels tall and wide (max_extent), and maps of fewer than 0xFFFF pixels (a pixel's number and a
// value's bits share 32 bits).
bool roi_keys_apply(const RoiParams &p, const Strided4 &x, int64_t max_extent);

// Channels [c0, c0 + 16) of batch b as keys, pixel-major: khwc[(h * W + w) * 16 + l]. Returns false
// (khwc unusable) where they hold a -0.0.
bool roi_gather_keys(const RoiParams &p, const Strided4 &x, int64_t b, int64_t c0, int16_t *khwc);

// All bins of one ROI for the 16 channels of khwc, as the float scan's forward_roi_avx2, packed:
// packed is [bins][16] int32, each the value's float16 bits in the low half and the winning
// pixel's number in the high half (0xFFFF: none). An empty bin gives +0.0 and none, a bin with no
// number above -inf gives -inf and none.
void roi_forward_keys(const RoiParams &p, const int16_t *khwc, const roi_detail::RoiGeom &g,
                      int32_t *packed);

// n packed results (as roi_forward_keys gives them, put in output order) to their float16 values
// y and int32 argmax am (none as -1), with streaming stores where nt.
void roi_keys_write_run(const int32_t *packed, int64_t n, uint16_t *y, int32_t *am, bool nt);

}  // namespace poolgrad
