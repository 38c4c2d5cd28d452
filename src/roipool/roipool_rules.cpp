// SPDX-License-Identifier: Apache-2.0
#include "roipool_rules.h"

namespace poolgrad {

// spec/products.md: the RoI operators exist on Ascend950 only.
const RoiRules &roi_rules() {
  static const RoiRules k950 = {true}, kA2A3 = {false};
  return current_soc() == Soc::kAscend950 ? k950 : kA2A3;
}

}  // namespace poolgrad
