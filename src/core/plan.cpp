// SPDX-License-Identifier: Apache-2.0
#include "plan.h"

#include <cinttypes>
#include <cstdlib>

#include "status.h"
#include "threads.h"

namespace poolgrad {

int plan_threads(bool serial) {
  return serial ? 1 : num_threads();
}

std::string Plan::kernel_name() const {
  if (nsteps == 0) return "none";
  std::string name;
  for (int i = 0; i < nsteps; ++i)
    name += std::string(i ? "+" : "") + steps[i].row + (steps[i].serial ? "(serial)" : "");
  return name;
}

aclnnStatus report_data_error(const char *api, const Plan &plan, const FirstError &e) {
  if (e.datum < 0 || e.datum >= plan.nerrors)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: invalid data at position %" PRId64, api, e.pos);
  const DatumText &d = plan.errors[e.datum];
  // The coordinates of pos, row-major over the grid, printed in the datum's order.
  int64_t at[DatumText::kMaxRank] = {};
  int64_t rest = e.pos;
  for (int i = d.rank; i-- > 0;) {
    const int64_t g = d.grid[i] > 0 ? d.grid[i] : 1;
    at[i] = rest % g;
    rest /= g;
  }
  std::string where;
  for (int k = 0; k < d.printed; ++k) where += (k ? "," : "") + std::to_string(at[d.order[k]]);
  std::string value;
  if (d.real) {
    double v;
    std::memcpy(&v, &e.value, sizeof v);
    value = format("%g", v);
  } else {
    value = std::to_string(e.value);
  }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  const std::string rule = format(d.rule_fmt, d.rule_arg);
#pragma GCC diagnostic pop
  return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s[%s]=%s %s", api, d.name, where.c_str(),
              value.c_str(), rule.c_str());
}

DatumText index_datum(const char *name, std::initializer_list<int64_t> grid, bool channels_last,
                      bool with_n, const char *rule_fmt, long long rule_arg) {
  DatumText d;
  d.name = name;
  if (grid.size() > DatumText::kMaxRank) std::abort();  // a builder bug: grow kMaxRank
  for (int64_t g : grid) d.grid[d.rank++] = g;
  if (with_n) d.order[d.printed++] = 0;
  if (!channels_last) d.order[d.printed++] = 1;
  for (int a = 2; a < d.rank; ++a) d.order[d.printed++] = a;
  if (channels_last) d.order[d.printed++] = 1;
  d.rule_fmt = rule_fmt;
  d.rule_arg = rule_arg;
  return d;
}

}  // namespace poolgrad
