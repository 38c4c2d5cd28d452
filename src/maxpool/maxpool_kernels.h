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
};

// First bad index found, in (n, c, oh, ow) order; plane < 0 when every index was valid.
struct BadIndex {
  int64_t plane = -1, oh = 0, ow = 0, value = 0;
};

// serial: run on one thread (out or indices may alias themselves).
// Returns the name of the kernel path taken (for the trace).
const char *maxpool_forward(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                            const Strided4 &indices, bool serial);

// serial: run on one thread (gradInput may alias itself). Returns the first bad index.
BadIndex maxpool_backward(const MaxPoolParams &p, const Strided4 &grad_out,
                          const Strided4 &indices, const Strided4 &grad_in, bool serial,
                          const char **kernel);

}  // namespace poolgrad
