// SPDX-License-Identifier: Apache-2.0
// Step A of the volume forward (volume_forward.cpp): the window's rows combined column by column.
// Written once with Google Highway (volume_combine.cpp) and compiled for each target the ISA
// table names: AVX2 (8 lanes) on x86-64, NEON (4 lanes) on AArch64, and Highway's portable
// fallback (built for the baseline) for the portable rows.
#pragma once

#include <cstdint>

#include "../core/isa.h"

namespace poolgrad {

// best[w], tap[w] for w < W: the maximum of rows[m][w] over m < taps (in order) and the m it came
// from: the first maximum, the last NaN (a NaN wins over any number), as a sequential scan.
using CombineRows = void (*)(const float *const *rows, int32_t taps, int64_t W, float *best,
                             int32_t *tap);

// The target's function for the plan's ISA.
CombineRows combine_rows_for(Isa isa);

}  // namespace poolgrad
