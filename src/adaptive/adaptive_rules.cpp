// SPDX-License-Identifier: Apache-2.0
#include "adaptive_rules.h"

namespace poolgrad {

const AdaptiveRules &adaptive_rules() {
  static const AdaptiveRules k950 = {true, false}, kA2A3 = {true, true};
  return current_soc() == Soc::kAscend950 ? k950 : kA2A3;
}

}  // namespace poolgrad
