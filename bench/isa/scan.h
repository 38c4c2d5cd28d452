// SPDX-License-Identifier: Apache-2.0
// The window scan of the max-pool forward, two ways (bench/isa/README.md): best[j] and bidx[j] =
// the maximum over rows[0..taps) of column j and its row (the first maximum, the last NaN).
#pragma once

#include <cstdint>

namespace isa_probe {
// poolgrad's way: GCC vector types of 8 floats (the former src/core/vec.h), one source compiled for
// AVX2 and for the baseline.
void scan_vec_avx2(const float *const *rows, int taps, int64_t n, float *best, int32_t *bidx);
void scan_vec_portable(const float *const *rows, int taps, int64_t n, float *best, int32_t *bidx);
// Highway's: its widest target on this host.
void scan_hwy(const float *const *rows, int taps, int64_t n, float *best, int32_t *bidx);
const char *hwy_target();
}  // namespace isa_probe
