// SPDX-License-Identifier: Apache-2.0
// The channels-last max-pool forward's scan (maxpool_forward.cpp), written once with Google
// Highway (maxpool_scan.cpp) and compiled for each target the ISA table names, as
// volume_combine.h.
#pragma once

#include <cstdint>

#include "../core/isa.h"

namespace poolgrad {

// Channels [0, c_end) of one output position (c_end a multiple of 8): best[c] = the maximum of
// tap_src[t][c] over the taps t < taps in order and bidx[c] = tap_index[t] of the tap it came
// from (the first maximum, the last NaN). no_nan: the caller knows no tap is NaN, and the NaN
// test is left out.
using ScanChannels = void (*)(const float *const *tap_src, const uint32_t *tap_index, int64_t taps,
                              int64_t c_end, float *best, int64_t *bidx);

ScanChannels scan_channels_for(Isa isa, bool no_nan);

}  // namespace poolgrad
