// SPDX-License-Identifier: Apache-2.0
// The handles of the public tensor C API (aclTensor, aclIntArray, ...): API code only; kernels
// see views (view.h).
#pragma once

#include <cstdint>
#include <vector>

#include "view.h"

struct aclTensor {
  poolgrad::View view;
  poolgrad::SmallInts storage_dims;
};

struct aclIntArray {
  poolgrad::SmallInts values;
};
struct aclFloatArray {
  std::vector<float> values;
};
struct aclBoolArray {
  std::vector<bool> values;
};

// A scalar: its dtype and its value's bytes (up to 16: complex128).
struct aclScalar {
  aclDataType dtype;
  unsigned char bytes[16];
};
// A tensor list and a scalar list own their elements: destroying the list destroys them, as in
// CANN (its samples destroy only the list).
struct aclTensorList {
  std::vector<const aclTensor *> items;
};
struct aclScalarList {
  std::vector<const aclScalar *> items;
};
// The runtime's tensor description and data buffer (acl/acl_base.h).
struct aclTensorDesc {
  aclDataType dtype;
  aclFormat format;
  std::vector<int64_t> dims;
};
struct aclDataBuffer {
  void *data;
  size_t size;
};
