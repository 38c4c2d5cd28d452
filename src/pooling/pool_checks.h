// SPDX-License-Identifier: Apache-2.0
// The pooling family's shared phase-1 checks (the max-pool, adaptive and 3-D operators): the
// data dtypes, dtype and format agreement, shapes. Each returns 161002 with a message naming the
// API and the parameter.
#pragma once

#include <initializer_list>
#include <vector>

#include "../core/core.h"

namespace poolgrad {

// FLOAT, FLOAT16 or BF16: the family's data dtypes in CANN's lists.
bool is_pool_dtype(aclDataType t);
// The same, plus DOUBLE where this thread turned poolgrad's extension on (core/dtype.h).
bool takes_pool_dtype(aclDataType t);
// 161002 unless takes_pool_dtype(t's dtype) (the adaptive and 3-D operators' data rule).
aclnnStatus check_pool_dtype(const char *api, const char *name, const aclTensor *t);
// 161002 unless t's dtype equals the dtype of `as` (named as_name in the message).
aclnnStatus check_same_dtype(const char *api, const char *name, const aclTensor *t,
                             const char *as_name, const aclTensor *as);
// 161002 unless t's dtype equals self's.
aclnnStatus check_dtype_as_self(const char *api, const char *name, const aclTensor *t,
                                const aclTensor *self);

// 161002 for a tensor of a private format (NC1HWC0 and the like).
aclnnStatus check_public_formats(const char *api, std::initializer_list<Named> all);
// Public formats only; `same_format` must share the first one's format; ranks 3 or 4.
aclnnStatus check_formats(const char *api, std::initializer_list<Named> same_format,
                          std::initializer_list<Named> all);
aclnnStatus check_same_shape(const char *api, const char *name, const aclTensor *t,
                             const SmallInts &want, const char *what);

}  // namespace poolgrad
