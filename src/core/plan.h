// SPDX-License-Identifier: Apache-2.0
// Phase 2 as data. Every kernel has one calling convention (Kernel: a workspace function and a run
// function over the same plain parameters and views, the run returning the first data error it
// found); every dispatch table holds KernelRows of such kernels; make_plan is the one place that
// turns a chosen row, its parameters and views into a plan step (ISA, kernel name, workspace,
// thread count); and a data error is reported by the core from text phase 1 prepared (DatumText),
// so phase 2 never returns to an operator's file. A plan records the operator and the rows of its
// steps, so that a device launcher can key on them (docs/architecture.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "dispatch.h"
#include "scatter.h"

namespace poolgrad {

template <class Params, class... Views>
struct Kernel {
  int64_t (*workspace)(const Params &, const Views &...);  // bytes; -1: overflows int64
  FirstError (*run)(const Params &, const Views &..., void *workspace);
  // The dispatch table's "applies" column: whether this path can run the call (null: any call of
  // the row's key).
  bool (*applies)(const Params &, const Views &...) = nullptr;
};

// How to name a data error of one checked datum: `name[i0,i1,...]=value rule`, where the
// position is `FirstError::pos` read row-major over `grid` and printed in `order`.
struct DatumText {
  std::string name;           // "indices", "argmax", "rois"
  std::vector<int64_t> grid;  // the grid pos is flat in
  std::vector<int> order;     // grid axes in printed order (a layout's order)
  std::string rule;           // "must be -1 or in [0, H*W=16)"
  bool real = false;          // the value holds a double's bits
};

// One phase-2 action: a row of a dispatch table, bound to its parameters and views.
struct PlanStep {
  const char *row = "";  // the row's name
  Isa isa = Isa::kPortable;
  Device device = Device::kHost;
  std::function<FirstError(void *workspace)> run;
};

struct Plan {
  const char *op = "";            // the aclnn API
  std::vector<PlanStep> steps;    // run in order; none: nothing to do (an empty tensor)
  std::vector<DatumText> errors;  // indexed by FirstError::datum
  std::string kernel = "none";    // the steps' rows (+ "(serial)"): what the trace prints
  int64_t workspace = 0;          // bytes, the largest step's; -1 when a size overflowed int64
  int threads = 1;    // the kernels' thread count, fixed in phase 1 (the workspace depends on it)
  std::string trace;  // the call's description, filled only when POOLGRAD_LOG=info
};

// Fixes the thread count in the parameters before a row is chosen (a row may apply only to
// parallel runs): an output that overlaps itself runs on one thread, in a fixed order.
int plan_threads(bool serial);
template <class Params>
void fix_threads(Params &p, bool serial) {
  p.serial = serial;
  p.threads = plan_threads(serial);
}

// Appends the step that runs `row` on p and views to `plan` (the one plan builder).
template <class Params, class... Views>
void add_step(Plan &plan, const KernelRow<Kernel<Params, Views...>> &row, Params p,
              const Views &...views) {
  p.isa = row.isa;
  const int64_t ws = row.kernel.workspace(p, views...);
  plan.workspace = ws < 0 || plan.workspace < 0 ? -1 : std::max(plan.workspace, ws);
  plan.threads = std::max(plan.steps.empty() ? 1 : plan.threads, p.threads);
  const std::string name = std::string(row.name) + (p.serial ? "(serial)" : "");
  plan.kernel = plan.steps.empty() ? name : plan.kernel + "+" + name;
  const auto run = row.kernel.run;
  plan.steps.push_back({row.name, row.isa, row.device, [run, p, views...](void *workspace) {
                          return run(p, views..., workspace);
                        }});
}

// A plan of one step.
template <class Params, class... Views>
Plan make_plan(const char *op, const KernelRow<Kernel<Params, Views...>> &row, Params p,
               std::vector<DatumText> errors, const Views &...views) {
  Plan plan;
  plan.op = op;
  plan.errors = std::move(errors);
  add_step(plan, row, std::move(p), views...);
  return plan;
}

// The 161002 of a data error, in the words phase 1 prepared.
aclnnStatus report_data_error(const char *api, const Plan &plan, const FirstError &e);

// The usual index datum: `name` over a grid of (n, c, spatial...) printed in the tensor's own
// layout (channels last: c after the spatial axes), without n for a tensor of the lower rank.
DatumText index_datum(const char *name, std::vector<int64_t> grid, bool channels_last, bool with_n,
                      std::string rule);

}  // namespace poolgrad
