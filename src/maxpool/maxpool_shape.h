// SPDX-License-Identifier: Apache-2.0
// Max-pool 2-D: the output-size formula and the attribute rules, integers in, status out.
// The one copy of these rules; both the forward and the backward use it.
#pragma once

#include <cstdint>
#include <vector>

#include "aclnn/aclnn_base.h"

namespace poolgrad {

struct PoolAttrs {
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  bool ceil = false;
};

// Attribute values above this are refused, so that no size arithmetic can overflow int64.
constexpr int64_t kMaxAttr = 0x7fffffff;

// One axis: out = floor((in + 2p - E) / s) + 1 (E = d*(k-1)+1), ceil mode rounds up and then drops
// a last window that would start in the bottom/right padding. May return <= 0. Arguments must
// be in range (in >= 0, 0 < k, s, d <= kMaxAttr, 0 <= p <= kMaxAttr).
int64_t pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil);

// Checks lengths and values of the attribute arrays (spec rules) and fills attrs.
// Returns ACLNN_SUCCESS or 161002 with a message that names api and the parameter.
aclnnStatus parse_pool_attrs(const char *api, const std::vector<int64_t> &kernel,
                             const std::vector<int64_t> &stride,
                             const std::vector<int64_t> &padding,
                             const std::vector<int64_t> &dilation, bool ceil, PoolAttrs *attrs);

}  // namespace poolgrad
