// Adaptive max pooling 2-D forward kernel: plain parameters (MaxPoolParams: n, c, h, w, ho, wo,
// dtypes, threads, isa; the attributes are unused) and views. The backward is the max-pool
// backward's scatter (the indices say everything), so it has no kernel of its own.
#pragma once

#include "../maxpool/maxpool_kernels.h"

namespace poolgrad {

// Output row i covers input rows [floor(i*H/Ho), ceil((i+1)*H/Ho)), the same for columns.
inline int64_t bin_start(int64_t i, int64_t in, int64_t out) {
  return static_cast<int64_t>(static_cast<__int128>(i) * in / out);
}
inline int64_t bin_end(int64_t i, int64_t in, int64_t out) {
  return static_cast<int64_t>((static_cast<__int128>(i + 1) * in + out - 1) / out);
}

int64_t adaptive_forward_workspace(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                   const Strided4 &idx);
void adaptive_forward(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                      const Strided4 &idx, void *workspace);

}  // namespace poolgrad
