// SPDX-License-Identifier: Apache-2.0
// What each product profile accepts for the max-pool operators (spec/products.md).
#pragma once

#include <vector>

#include "../core/profile.h"

namespace poolgrad {

struct MaxPoolRules {
  std::vector<aclDataType> data;   // self / gradOutput / gradInput / out dtypes
  const char *data_text = "";      // e.g. "FLOAT only"
  std::vector<aclDataType> index;  // indices dtypes
  const char *index_text = "";
  bool any_dilation = false;  // false: exactly 1 on both axes
  bool nhwc = false;          // NHWC format accepted
  bool available = true;      // false: the API is refused on this profile (the Mask pair on 950)
};

// The rules of the current profile for the forward or the backward.
const MaxPoolRules &maxpool_rules(bool backward);
// aclnnMaxPool2dWithMask and its backward (the same rules for both).
const MaxPoolRules &maxpool_mask_rules();

}  // namespace poolgrad
