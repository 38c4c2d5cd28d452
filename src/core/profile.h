// SPDX-License-Identifier: Apache-2.0
// Product profiles (POOLGRAD_SOC): which Ascend product phase 1 behaves as. Each operator keeps
// its own rule table per profile in its folder (maxpool_rules.cpp, roipool_rules.cpp).
#pragma once

#include <vector>

#include "aclnn/aclnn_base.h"

namespace poolgrad {

enum class Soc { kAscend950, kAscend910B, kAscend910_93 };

Soc current_soc();
const char *soc_name(Soc s);
// Reads POOLGRAD_SOC (aclInit calls it); returns false, with a message, for an unknown value.
bool load_soc_from_env();
void set_soc(Soc s);

bool allowed(const std::vector<aclDataType> &set, aclDataType t);

}  // namespace poolgrad
