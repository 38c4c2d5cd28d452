// SPDX-License-Identifier: Apache-2.0
// The max-pool operators' rules per product profile (spec/products.md; ops-nn's documentation of
// aclnnMaxPool2dWithIndices(Backward) and aclnnMaxPool2dWithMask(Backward)), one named list per
// (operator, profile), one field a line, as CANN writes DTYPE_SUPPORT_LIST_ASCEND910B.
#include "maxpool_rules.h"

namespace poolgrad {

namespace {

MaxPoolRules rules_950() {  // the Indices pair on Ascend 950: the widest line
  MaxPoolRules r;
  r.data = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  r.data_text = "FLOAT, FLOAT16 or BF16";
  r.index = {ACL_INT32, ACL_INT64};
  r.index_text = "INT32 or INT64";
  r.any_dilation = true;
  r.nhwc = true;
  return r;
}

// Atlas A2/A3: the forward takes every data dtype and both index dtypes, the backward FLOAT
// with INT32 indices; both dilation 1 and no NHWC.
MaxPoolRules forward_a2a3() {
  MaxPoolRules r = rules_950();
  r.any_dilation = false;
  r.nhwc = false;
  return r;
}
MaxPoolRules backward_a2a3() {
  MaxPoolRules r = forward_a2a3();
  r.data = {ACL_FLOAT};
  r.data_text = "FLOAT only";
  r.index = {ACL_INT32};
  r.index_text = "INT32 only";
  return r;
}

// The Mask pair: A2/A3 only (CANN deprecates it on 950 in favour of the Indices pair); FLOAT,
// FLOAT16 or BF16 data, the INT8 mask buffer, dilation 1, NCHW / ND.
MaxPoolRules mask_a2a3() {
  MaxPoolRules r = forward_a2a3();
  r.index = {ACL_INT8};
  r.index_text = "INT8 only";
  return r;
}
MaxPoolRules mask_950() {
  MaxPoolRules r;
  r.available = false;
  return r;
}

}  // namespace

const MaxPoolRules &maxpool_mask_rules() {
  static const MaxPoolRules k950 = mask_950(), kA2A3 = mask_a2a3();
  return current_soc() == Soc::kAscend950 ? k950 : kA2A3;
}

const MaxPoolRules &maxpool_rules(bool backward) {
  static const MaxPoolRules k950 = rules_950(), kForwardA2A3 = forward_a2a3(),
                            kBackwardA2A3 = backward_a2a3();
  if (current_soc() == Soc::kAscend950) return k950;
  return backward ? kBackwardA2A3 : kForwardA2A3;
}

}  // namespace poolgrad
