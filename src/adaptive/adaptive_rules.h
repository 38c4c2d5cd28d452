// SPDX-License-Identifier: Apache-2.0
// What each product profile accepts for the adaptive max-pool operators (ops-nn's
// aclnnAdaptiveMaxPool2d / aclnnAdaptiveMaxPool2dBackward documentation: the forward on every
// product poolgrad models, the backward on Atlas A2/A3 only).
#pragma once

#include "../core/profile.h"

namespace poolgrad {

struct AdaptiveRules {
  bool forward;  // false: phase 1 returns 361001
  bool backward;
};

const AdaptiveRules &adaptive_rules();

}  // namespace poolgrad
