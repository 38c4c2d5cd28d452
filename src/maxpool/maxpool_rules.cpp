// SPDX-License-Identifier: Apache-2.0
#include "maxpool_rules.h"

namespace poolgrad {

namespace {

// spec/products.md, one row per (operator, profile).
const MaxPoolRules kBackward950 = {{ACL_FLOAT, ACL_FLOAT16, ACL_BF16},
                                   "FLOAT, FLOAT16 or BF16",
                                   {ACL_INT32, ACL_INT64},
                                   "INT32 or INT64",
                                   true,
                                   true};
const MaxPoolRules kBackwardA2A3 = {{ACL_FLOAT},  "FLOAT only", {ACL_INT32},
                                    "INT32 only", false,        false};
const MaxPoolRules kForward950 = {{ACL_FLOAT, ACL_FLOAT16, ACL_BF16},
                                  "FLOAT, FLOAT16 or BF16",
                                  {ACL_INT32, ACL_INT64},
                                  "INT32 or INT64",
                                  true,
                                  true};
const MaxPoolRules kForwardA2A3 = {{ACL_FLOAT, ACL_FLOAT16, ACL_BF16},
                                   "FLOAT, FLOAT16 or BF16",
                                   {ACL_INT32, ACL_INT64},
                                   "INT32 or INT64",
                                   false,
                                   false};

// The Mask pair: A2/A3 only (CANN deprecates it on 950 in favour of the Indices pair); FLOAT,
// FLOAT16 or BF16 data, the INT8 mask buffer, dilation 1, NCHW / ND (ops-nn's
// aclnnMaxPool2dWithMask / aclnnMaxPool2dWithMaskBackward documentation).
const MaxPoolRules kMask950 = {{}, "", {}, "", false, false, false};
const MaxPoolRules kMaskA2A3 = {{ACL_FLOAT, ACL_FLOAT16, ACL_BF16},
                                "FLOAT, FLOAT16 or BF16",
                                {ACL_INT8},
                                "INT8 only",
                                false,
                                false,
                                true};

}  // namespace

const MaxPoolRules &maxpool_mask_rules() {
  return current_soc() == Soc::kAscend950 ? kMask950 : kMaskA2A3;
}

const MaxPoolRules &maxpool_rules(bool backward) {
  const bool wide = current_soc() == Soc::kAscend950;
  if (backward) return wide ? kBackward950 : kBackwardA2A3;
  return wide ? kForward950 : kForwardA2A3;
}

}  // namespace poolgrad
