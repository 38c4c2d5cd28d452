// SPDX-License-Identifier: Apache-2.0
// What each product profile accepts for the RoI pooling operators (spec/products.md).
#pragma once

#include "../core/profile.h"

namespace poolgrad {

struct RoiRules {
  bool available;  // false: phase 1 returns 361001
};

const RoiRules &roi_rules();

}  // namespace poolgrad
