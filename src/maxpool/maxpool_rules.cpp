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

}  // namespace

const MaxPoolRules &maxpool_rules(bool backward) {
  const bool wide = current_soc() == Soc::kAscend950;
  if (backward) return wide ? kBackward950 : kBackwardA2A3;
  return wide ? kForward950 : kForwardA2A3;
}

}  // namespace poolgrad
