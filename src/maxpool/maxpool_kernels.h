// Max-pool 2-D CPU kernels. They take plain parameters, never handles, and validate nothing the
// user can get wrong except the index data they must read anyway.
#pragma once

#include <cstdint>

#include "../core/core.h"
#include "maxpool_shape.h"

namespace poolgrad {

struct MaxPoolParams {
  int64_t n = 0, c = 0, h = 0, w = 0, ho = 0, wo = 0;
  PoolAttrs a;
  aclDataType dtype = ACL_FLOAT;
  aclDataType index_dtype = ACL_INT64;
  int threads = 1;      // fixed in phase 1: the workspace holds one scratch slice per thread
  bool serial = false;  // an output may alias itself: one thread, in plane order
};

// First bad index found, in (n, c, oh, ow) order; plane < 0 when every index was valid.
struct BadIndex {
  int64_t plane = -1, oh = 0, ow = 0, value = 0;
};

// Workspace bytes of the forward / backward for these parameters and views (-1: the size
// overflows int64). Phase 2 must pass at least that many bytes.
int64_t maxpool_forward_workspace(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                                  const Strided4 &indices);
int64_t maxpool_backward_workspace(const MaxPoolParams &p, const Strided4 &grad_out,
                                   const Strided4 &indices, const Strided4 &grad_in);

// Returns the name of the kernel path taken (for the trace).
const char *maxpool_forward(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                            const Strided4 &indices, void *workspace);

// Returns the first bad index (every other gradient is still summed and written).
BadIndex maxpool_backward(const MaxPoolParams &p, const Strided4 &grad_out,
                          const Strided4 &indices, const Strided4 &grad_in, void *workspace,
                          const char **kernel);

}  // namespace poolgrad
