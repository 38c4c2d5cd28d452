// SPDX-License-Identifier: Apache-2.0
// The 16-bit max-pool forward's window scan in the key domain (AVX2 only): a bfloat16 or float16
// plane split as int16 keys (core/keys16.h), one int16 compare ordering 16 values against 8 for
// the float32 scan, from a split plane half the size. Planes holding a NaN (which the scan's strict
// compare would not let win: PyTorch's NaN wins) or a -0.0 (whose key comes back as +0.0) are
// refused by the split and scanned as float32 instead.
#pragma once

#include <cstdint>

#include "aclnn/aclnn_base.h"

namespace poolgrad {

// Whether a call's planes may be scanned as keys: dense 16-bit rows, column stride 1 or 2, and
// every tap's index relative to its window's first (at most (kH-1)*dH*W + (kW-1)*dW) in 16 bits;
// and an x86 build (the functions below run AVX2: the caller's plan must have AVX2).
bool keys_apply(aclDataType dtype, int64_t col_stride, int64_t sw, int64_t rel_max);

// Splits an H x W plane of 16-bit values (rows `row_stride` elements apart, columns dense) by
// column phase for column stride sw (1 or 2) into keys: phase r, row h, column t at
// keys[r * phase_stride + h * pitch + t] (pitch a multiple of 16, at least ceil(W / sw)). Returns
// false, with the keys unusable, where the plane holds a NaN or a -0.0.
bool key_split_plane(aclDataType dtype, const uint16_t *plane, int64_t H, int64_t W,
                     int64_t row_stride, int64_t sw, int64_t pitch, int64_t phase_stride,
                     int16_t *keys);
// Outputs [ow, ow_hi) of one row whose taps all lie inside the plane, 16 at a time (as the float
// scan's scan_interior: at = the keys at the row's first tap row, tap t reads at + ow + tap_at[t],
// relative index tap_index[t]; the first maximum wins). Values go to orow as the dtype's bits (the
// winning element itself), indices (row_base + ow*sw + the winning tap's relative index) to irow;
// a last partial block writes up to 15 entries past ow_hi.
void key_scan_interior(const int16_t *at, const int64_t *tap_at, const uint32_t *tap_index,
                       int64_t taps, int64_t ow, int64_t ow_hi, int64_t sw, uint32_t row_base,
                       uint16_t *orow, int64_t *irow);
// One output's window by scalar code (borders): rows hs + m*dH for m in [m0, m1), columns
// ws + q*dW for q in [q0, q1); row ih, column iw is keys[ih * pitch + col_at[iw]]. The value as
// the dtype's bits (-inf and index -1 for a window with no element).
void key_scan_scalar(aclDataType dtype, const int16_t *keys, const int64_t *col_at, int64_t pitch,
                     int64_t w, int64_t hs, int64_t m0, int64_t m1, int64_t dh, int64_t ws,
                     int64_t q0, int64_t q1, int64_t dw, uint16_t *best_out, int64_t *idx_out);

}  // namespace poolgrad
