// SPDX-License-Identifier: Apache-2.0
// Max-pool 2-D: the attribute rules, integers in, status out (the formulas are
// pooling/pool_window.h). The one copy of these rules; both the forward and the backward use it.
#pragma once

#include <cstdint>

#include "../core/small_ints.h"
#include "../pooling/pool_window.h"
#include "aclnn/aclnn_base.h"

namespace poolgrad {

// Checks lengths and values of the attribute arrays (spec rules) and fills attrs.
// Returns ACLNN_SUCCESS or 161002 with a message that names api and the parameter.
aclnnStatus parse_pool_attrs(const char *api, const SmallInts &kernel, const SmallInts &stride,
                             const SmallInts &padding, const SmallInts &dilation, bool ceil,
                             PoolAttrs *attrs);

}  // namespace poolgrad
