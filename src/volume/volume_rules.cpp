// SPDX-License-Identifier: Apache-2.0
#include "volume_rules.h"

namespace poolgrad {

const VolumeRules &volume_rules() {
  static const VolumeRules k950 = {
      {ACL_INT32, ACL_INT64}, "INT32 or INT64", true, true, true, true, false};
  static const VolumeRules kA2A3 = {{ACL_INT32}, "INT32 only", false, false, false, false, true};
  return current_soc() == Soc::kAscend950 ? k950 : kA2A3;
}

}  // namespace poolgrad
