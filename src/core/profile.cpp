// SPDX-License-Identifier: Apache-2.0
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

}  // namespace

Soc current_soc() {
  return static_cast<Soc>(g_soc.load(std::memory_order_relaxed));
}
void set_soc(Soc s) {
  g_soc.store(static_cast<int>(s));
}

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
  // (aclInit returns this status: the log line names it.)
  fail(ACL_ERROR_INVALID_PARAM,
       "aclInit: POOLGRAD_SOC=%s is not a known product; valid values: Ascend950, Ascend910B, "
       "Ascend910_93",
       v);
  return false;
}

bool allowed(const std::vector<aclDataType> &set, aclDataType t) {
  return std::find(set.begin(), set.end(), t) != set.end();
}

}  // namespace poolgrad
