// SPDX-License-Identifier: Apache-2.0
// What each product profile accepts for the 3-D max pool and the 3-D adaptive max pool (ops-nn's
// public documentation of aclnnMaxPool3dWithArgmax(Backward) and aclnnAdaptiveMaxPool3d(Backward);
// docs/max-pool-3d.md). Every one of the four runs on every profile poolgrad models.
#pragma once

#include <vector>

#include "../core/profile.h"

namespace poolgrad {

struct VolumeRules {
  std::vector<aclDataType> index;  // indices dtypes
  const char *index_text = "";
  bool any_dilation = false;         // false: exactly 1 on every axis (the max pool)
  bool channels_last = false;        // NDHWC accepted (the max pool)
  bool adaptive_nd = false;          // ND format accepted by the adaptive forward
  bool adaptive_short_size = false;  // adaptive outputSize of length 0 (self's size) or 1
  bool int32_volume = true;          // D*H*W <= INT32_MAX whatever the indices' dtype
};

const VolumeRules &volume_rules();

}  // namespace poolgrad
