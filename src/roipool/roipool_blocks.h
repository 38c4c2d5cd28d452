// SPDX-License-Identifier: Apache-2.0
// The RoI pooling forward's sixteen-channel blocks: what the per-target code (roipool_blocks.cpp,
// written once with Google Highway) shares with the rest of the forward (roipool_forward.cpp).
// Items are (batch, block of 16 channels, run of that batch's ROIs). An item copies its channels'
// planes once into a pixel-major scratch ([h][w][16] floats), so that every bin scans its window
// with vector compares over the 16 channels, one lane per channel, and no data-dependent branch.
// Each lane keeps the first strictly larger value in (h, w) order, as the scalar scan does: the
// same values and argmax.
#pragma once

#include <cstdint>

#include "../core/parts.h"
#include "roipool_common.h"

namespace poolgrad {
namespace roi_detail {

// Channels per block of the vector forward (two AVX2 vectors, four NEON ones).
constexpr int64_t kFwdLanes = 16;

// ROIs per scan group of the vector forward. Where a block's planes are larger than an L2 (16
// channels of fpn-p2's 200 x 272 map: 3.5 MB, against this machine's 1 MB), a group's bin rows
// are scanned in order of their first map row instead of ROI by ROI, so that overlapping ROIs
// reread rows while they are still in L2; the group's results ([group][bins][16] values and
// argmax, at most kGroupBytes) wait in scratch for the write-out. fpn-p2 at 2 threads: 18.2 ->
// 16.9 ms with groups of all 256 ROIs of an item, 17.4 with groups of 40 (256 KB).
int64_t roi_group(const RoiParams &p);

// A thread's scratch for the sixteen-channel forward: one block's planes pixel-major, 8 rows, a
// group's results ([group][bins][16]) and one ROI's after the transpose, and the group's bin rows
// sorted by first map row (units; starts: counting sort).
struct BlockScratch {
  float *hwc = nullptr, *row = nullptr, *yb = nullptr, *yt = nullptr;
  int32_t *ab = nullptr, *at = nullptr;
  int64_t *units = nullptr, *starts = nullptr;
};

void blocks_layout(Arena &a, const RoiParams &p, BlockScratch *s);

// Item `item` of the vector forward: batch b, channels [c0, c0 + 16), ROIs order[k0 .. k1) (run q
// of the pair's `chunks` runs). The cost split and the kernel both decode items here.
struct FwdItem {
  int64_t pair, b, c0, k0, k1;
};

FwdItem forward_item(const RoiParams &p, const Buckets &bk, int64_t chunks, int64_t item);

// Items [ib, ie) of the vector forward, in the code of the Highway target p.isa names: bins into
// y and argmax (streamed where nt), 16-bit blocks as keys where `keys` (x86, AVX2).
void forward_blocks(const RoiParams &p, const Strided4 &x, const RoiGeom *geo, const Buckets &bk,
                    int64_t chunks, const Strided4 &y, const Strided4 &am, bool nt, bool keys,
                    int64_t ib, int64_t ie, Arena scratch);

}  // namespace roi_detail
}  // namespace poolgrad
