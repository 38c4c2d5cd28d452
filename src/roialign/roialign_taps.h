// SPDX-License-Identifier: Apache-2.0
// RoIAlign's channel-major forward (roialign_forward.cpp): a box's samples tabled once, and the
// tiled sweep that reads them eight channels at a time (roialign_tiled.cpp, written once with
// Google Highway and compiled for each target the ISA table names).
#pragma once

#include <cstdint>

#include "../core/isa.h"
#include "roialign_geometry.h"

namespace poolgrad {
namespace roialign_detail {

constexpr int64_t kTilePixels = 4096;  // the vector sweep's tile: pixels of eight channels

struct Tap {
  int64_t o[4];  // element offsets in the plane: (lo, lo), (lo, hi), (hi, lo), (hi, hi)
  float w[4];
  int64_t y[2], x[2];  // the rows (lo, hi) and columns (lo, hi)
  int32_t t[4];        // the corners' pixels in the tile, when the table is tiled
};

// A box's samples, and the region of the map they read: when that region is small against the
// reads (tiled), the vector sweep copies it once per eight channels into a channels-last tile and
// reads each tap's corners as contiguous vectors instead of gathering them.
struct TapTable {
  Tap *taps = nullptr;
  int64_t *bin_start = nullptr;              // bin b's taps are [bin_start[b], bin_start[b + 1])
  uint8_t *outside = nullptr;                // whether bin b has samples off the map
  float *tile = nullptr;                     // kTilePixels x 8 floats
  int64_t y0 = 0, y1 = -1, x0 = 0, x1 = -1;  // the region, inclusive
  bool tiled = false;
  bool dense =
      false;  // tiled, and each region pixel read four times on average (the portable sweep's bar)
};

// Box k's bins for channels [c0, c1) of a float32 map from t's tile (t.tiled), eight channels at
// a time: the box's region copied eight channels at a time into the channels-last tile, then each
// tap's corners read as vectors. The lanes compute the scalar sweep's expressions (no contraction;
// std::max(a, b) as a < b ? b : a), so the bits are its bits. Returns the first channel not done
// (the tail of fewer than eight is the scalar sweep's).
using TiledSweep = int64_t (*)(const RoiAlignParams &p, const Strided4 &x, const Strided4 &y,
                               const AlignBox &a, int64_t k, int64_t c0, int64_t c1,
                               const TapTable &t);

// The target's sweep for the plan's ISA; max_mode: ONNX "max" (else the mean).
TiledSweep tiled_sweep_for(Isa isa, bool max_mode);

}  // namespace roialign_detail
}  // namespace poolgrad
