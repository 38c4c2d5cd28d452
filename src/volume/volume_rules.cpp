// SPDX-License-Identifier: Apache-2.0
// The 3-D max pool's and the 3-D adaptive max pool's rules per product profile, one named list per
// profile, one field a line (docs/max-pool-3d.md).
#include "volume_rules.h"

namespace poolgrad {

namespace {

VolumeRules rules_950() {
  VolumeRules r;
  r.index = {ACL_INT32, ACL_INT64};
  r.index_text = "INT32 or INT64";
  r.any_dilation = true;
  r.channels_last = true;
  r.adaptive_nd = true;
  r.adaptive_short_size = true;
  r.int32_volume = false;
  return r;
}

// Atlas A2/A3: INT32 indices, dilation 1, no NDHWC, no ND for the adaptive forward, outputSize
// of length 3, D*H*W within INT32 whatever the indices' dtype.
VolumeRules rules_a2a3() {
  VolumeRules r;
  r.index = {ACL_INT32};
  r.index_text = "INT32 only";
  r.any_dilation = false;
  r.channels_last = false;
  r.adaptive_nd = false;
  r.adaptive_short_size = false;
  r.int32_volume = true;
  return r;
}

}  // namespace

const VolumeRules &volume_rules() {
  static const VolumeRules k950 = rules_950(), kA2A3 = rules_a2a3();
  return current_soc() == Soc::kAscend950 ? k950 : kA2A3;
}

}  // namespace poolgrad
