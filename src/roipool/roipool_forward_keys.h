// The sixteen-channel RoI forward for float16 maps, in the key domain (core/keys16.h, AVX2 only):
// a block's planes are copied pixel-major as int16 keys, 16 channels in one vector, so that each
// window pixel takes one compare, one max and one blend for all 16 channels (the float32 scan
// takes two of each). A NaN's key is below every number's (NaN never wins, as in the float scan).
// Blocks holding a -0.0 are refused (its key would come back as +0.0), and calls with a bin wider
// or taller than 255 pixels use the float scan (a bin's winning pixel is kept as row << 8 | column
// in 16 bits).
#pragma once

#include <cstdint>

#include "roipool_common.h"

namespace poolgrad {

// Whether a call's blocks may be scanned as keys: float16 data, dense rows, and every bin at most
// 255 pixels tall and wide (max_extent).
bool roi_keys_apply(const RoiParams &p, const Strided4 &x, int64_t max_extent);

// Channels [c0, c0 + 16) of batch b as keys, pixel-major: khwc[(h * W + w) * 16 + l]. Returns false
// (khwc unusable) where they hold a -0.0.
bool roi_gather_keys(const RoiParams &p, const Strided4 &x, int64_t b, int64_t c0, int16_t *khwc);

// All bins of one ROI for the 16 channels of khwc, as the float scan's forward_roi_avx2: yb
// (float32 values) and ab (int32 argmax) are [bins][16]; an empty bin gives 0 and -1, a bin with no
// number above -inf gives -inf and -1.
void roi_forward_keys(const RoiParams &p, const int16_t *khwc, const roi_detail::RoiGeom &g,
                      float *yb, int32_t *ab);

}  // namespace poolgrad
