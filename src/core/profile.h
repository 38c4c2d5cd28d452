// Product profiles (POOLGRAD_SOC): what each Ascend product accepts. One table per operator and
// profile; the validation cascades read it, no operator branches on the product itself.
#pragma once

#include <vector>

#include "aclnn/aclnn_base.h"

namespace poolgrad {

enum class Soc { kAscend950, kAscend910B, kAscend910_93 };

struct MaxPoolRules {
  std::vector<aclDataType> data;     // self / gradOutput / gradInput / out dtypes
  const char *data_text;             // e.g. "FLOAT only"
  std::vector<aclDataType> index;    // indices dtypes
  const char *index_text;
  bool any_dilation;                 // false: exactly 1 on both axes
  bool nhwc;                         // NHWC format accepted
};

struct RoiRules {
  bool available;  // false: phase 1 returns 361001
};

Soc current_soc();
const char *soc_name(Soc s);
// Reads POOLGRAD_SOC (aclInit calls it); returns false, with a message, for an unknown value.
bool load_soc_from_env();
void set_soc(Soc s);

const MaxPoolRules &maxpool_rules(bool backward);
const RoiRules &roi_rules();
bool allowed(const std::vector<aclDataType> &set, aclDataType t);

}  // namespace poolgrad
