// SPDX-License-Identifier: Apache-2.0
#include "plan.h"

#include <cinttypes>
#include <cstring>

#include "status.h"
#include "threads.h"

namespace poolgrad {

int plan_threads(bool serial) {
  return serial ? 1 : num_threads();
}

aclnnStatus report_data_error(const char *api, const Plan &plan, const FirstError &e) {
  if (e.datum < 0 || static_cast<size_t>(e.datum) >= plan.errors.size())
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: invalid data at position %" PRId64, api, e.pos);
  const DatumText &d = plan.errors[static_cast<size_t>(e.datum)];
  // The coordinates of pos, row-major over the grid, printed in the datum's order.
  std::vector<int64_t> at(d.grid.size());
  int64_t rest = e.pos;
  for (size_t i = d.grid.size(); i-- > 0;) {
    const int64_t g = d.grid[i] > 0 ? d.grid[i] : 1;
    at[i] = rest % g;
    rest /= g;
  }
  std::string where;
  for (size_t k = 0; k < d.order.size(); ++k)
    where += (k ? "," : "") + std::to_string(at[static_cast<size_t>(d.order[k])]);
  std::string value;
  if (d.real) {
    double v;
    std::memcpy(&v, &e.value, sizeof v);
    value = format("%g", v);
  } else {
    value = std::to_string(e.value);
  }
  return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s[%s]=%s %s", api, d.name.c_str(), where.c_str(),
              value.c_str(), d.rule.c_str());
}

DatumText index_datum(const char *name, std::vector<int64_t> grid, bool channels_last, bool with_n,
                      std::string rule) {
  DatumText d;
  d.name = name;
  const int axes = static_cast<int>(grid.size());  // n, c, spatial...
  if (with_n) d.order.push_back(0);
  if (!channels_last) d.order.push_back(1);
  for (int a = 2; a < axes; ++a) d.order.push_back(a);
  if (channels_last) d.order.push_back(1);
  d.grid = std::move(grid);
  d.rule = std::move(rule);
  return d;
}

}  // namespace poolgrad
