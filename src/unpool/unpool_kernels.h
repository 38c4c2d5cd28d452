// SPDX-License-Identifier: Apache-2.0
// MaxUnpool's kernels (docs/max-unpool.md): the forward writes each input element at its index in
// a zero-filled output plane; the backward gathers the gradient at the same indices. Both move
// elements without arithmetic (the backward converts to out's dtype where it differs), so one
// kernel serves every dtype by element size.
#pragma once

#include <cstdint>

#include "../core/plan.h"

namespace poolgrad {

struct UnpoolParams {
  aclDataType dtype = ACL_FLOAT;            // self's (forward) or gradOutput's (backward)
  aclDataType out_dtype = ACL_FLOAT;        // out's: the backward casts to it
  aclDataType index_dtype = ACL_INT64;      // INT32 or INT64
  int64_t out_d = 1, out_h = 0, out_w = 0;  // outputSize: the unpooled plane (depth 1 in 2-D)
  int threads = 1;
  bool serial = false;
  Isa isa = Isa::kPortable;
};

// Views as (N, C, D, H, W), a 2-D call's of depth 1: the forward's self, indices and out; the
// backward's gradOutput, indices and out (the shape of self).
using UnpoolKernel = Kernel<UnpoolParams, Strided5, Strided5, Strided5>;

int64_t unpool_workspace(const UnpoolParams &p, const Strided5 &a, const Strided5 &idx,
                         const Strided5 &b);
// out plane zero-filled, then out[idx[i]] = self[i] for i in order (a later i wins); an index
// outside [0, out_d * out_h * out_w) is reported and skipped.
FirstError unpool_forward(const UnpoolParams &p, const Strided5 &self, const Strided5 &idx,
                          const Strided5 &out, void *workspace);
// out[i] = gradOutput[idx[i]] in out's dtype; an index outside the plane is reported, out[i] left.
FirstError unpool_backward(const UnpoolParams &p, const Strided5 &grad_out, const Strided5 &idx,
                           const Strided5 &out, void *workspace);

// Whether the backward's AVX2 row applies: same-dtype 4-byte elements, gradOutput's planes
// dense, indices and out rows with unit stride.
bool unpool_gather_vector(const UnpoolParams &p, const Strided5 &grad_out, const Strided5 &idx,
                          const Strided5 &out);

// Whether the backward's gradOutput dtype converts to out's: no float to integer, nothing but
// BOOL to BOOL (the promotion rule CANN's cast check and PyTorch's canCast share).
bool unpool_can_cast(aclDataType from, aclDataType to);

}  // namespace poolgrad
