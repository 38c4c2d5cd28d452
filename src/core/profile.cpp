#include "profile.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "core.h"

namespace poolgrad {

namespace {

std::atomic<int> g_soc{static_cast<int>(Soc::kAscend950)};

struct SocEntry {
  const char *name;
  Soc soc;
};
const SocEntry kSocs[] = {
    {"Ascend950", Soc::kAscend950},
    {"Ascend910B", Soc::kAscend910B},
    {"Ascend910_93", Soc::kAscend910_93},
};

// spec/products.md, one row per (operator, profile).
const MaxPoolRules kMaxPoolBackward950 = {{ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, "FLOAT, FLOAT16 or BF16",
                                          {ACL_INT32, ACL_INT64}, "INT32 or INT64", true, true};
const MaxPoolRules kMaxPoolBackwardA2A3 = {{ACL_FLOAT}, "FLOAT only", {ACL_INT32}, "INT32 only", false, false};
const MaxPoolRules kMaxPoolForward950 = {{ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, "FLOAT, FLOAT16 or BF16",
                                         {ACL_INT32, ACL_INT64}, "INT32 or INT64", true, true};
const MaxPoolRules kMaxPoolForwardA2A3 = {{ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, "FLOAT, FLOAT16 or BF16",
                                          {ACL_INT32, ACL_INT64}, "INT32 or INT64", false, false};
const RoiRules kRoi950 = {true};
const RoiRules kRoiA2A3 = {false};

}  // namespace

Soc current_soc() { return static_cast<Soc>(g_soc.load(std::memory_order_relaxed)); }
void set_soc(Soc s) { g_soc.store(static_cast<int>(s)); }

const char *soc_name(Soc s) {
  for (const SocEntry &e : kSocs)
    if (e.soc == s) return e.name;
  return "?";
}

bool load_soc_from_env() {
  const char *v = std::getenv("POOLGRAD_SOC");
  if (v == nullptr || *v == '\0') {
    set_soc(Soc::kAscend950);
    return true;
  }
  for (const SocEntry &e : kSocs)
    if (std::strcmp(v, e.name) == 0) {
      set_soc(e.soc);
      return true;
    }
  set_error("aclInit: POOLGRAD_SOC=%s is not a known product; valid values: Ascend950, Ascend910B, "
            "Ascend910_93",
            v);
  return false;
}

const MaxPoolRules &maxpool_rules(bool backward) {
  const bool wide = current_soc() == Soc::kAscend950;
  if (backward) return wide ? kMaxPoolBackward950 : kMaxPoolBackwardA2A3;
  return wide ? kMaxPoolForward950 : kMaxPoolForwardA2A3;
}

const RoiRules &roi_rules() { return current_soc() == Soc::kAscend950 ? kRoi950 : kRoiA2A3; }

bool allowed(const std::vector<aclDataType> &set, aclDataType t) {
  return std::find(set.begin(), set.end(), t) != set.end();
}

}  // namespace poolgrad
