// SPDX-License-Identifier: Apache-2.0
// Adaptive max pooling 2-D forward kernel: plain parameters (MaxPoolParams: n, c, h, w, ho, wo,
// dtypes, threads, isa; the attributes are unused) and views; it runs the volume forward
// (src/volume/volume_kernels.h). The backward is the max-pool backward's scatter (the indices say
// everything), so it has no kernel of its own.
#pragma once

#include "../maxpool/maxpool_kernels.h"

namespace poolgrad {

int64_t adaptive_forward_workspace(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                   const Strided4 &idx);
FirstError adaptive_forward(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                            const Strided4 &idx, void *workspace);

}  // namespace poolgrad
