// SPDX-License-Identifier: Apache-2.0
// The handles of the public tensor C API (aclTensor, aclIntArray, ...): API code only; kernels
// see views (view.h).
#pragma once

#include <cstdint>
#include <vector>

#include "view.h"

struct aclTensor {
  poolgrad::View view;
  std::vector<int64_t> storage_dims;
};

struct aclIntArray {
  std::vector<int64_t> values;
};
struct aclFloatArray {
  std::vector<float> values;
};
struct aclBoolArray {
  std::vector<bool> values;
};
