// SPDX-License-Identifier: Apache-2.0
// Phase 2 as data. Every kernel has one calling convention (Kernel: a workspace function and a run
// function over the same plain parameters and views, the run returning the first data error it
// found); every dispatch table holds KernelRows of such kernels; make_plan is the one place that
// turns a chosen row, its parameters and views into a plan step (ISA, name, workspace, thread
// count); and a data error is reported by the core from text phase 1 prepared (DatumText), so
// phase 2 never returns to an operator's file. A plan records the operator and the rows of its
// steps, so that a device launcher can key on them (docs/architecture.md).
//
// A plan holds everything inline (steps, bound parameters and views, error text): phase 1 makes
// no heap allocation for it (issue 38: a C call's allocations are counted, tests/alloc_probe.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

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

// How to name a data error of one checked datum: `name[i0,i1,...]=value rule`, where the position
// is FirstError::pos read row-major over `grid` and printed in `order`, and the rule is
// `rule_fmt` with the one number `rule_arg` (e.g. "must be -1 or in [0, H*W=%lld)").
struct DatumText {
  static constexpr int kMaxRank = 5;
  const char *name = "";
  int rank = 0;
  int64_t grid[kMaxRank] = {};
  int printed = 0;  // how many of `order` are printed (a lower-rank tensor drops n)
  int order[kMaxRank] = {};
  const char *rule_fmt = "";
  long long rule_arg = 0;
  bool real = false;  // the value holds a double's bits
};

// One phase-2 action: a row of a dispatch table, bound to its parameters and views (copied in,
// all trivially copyable).
struct PlanStep {
  static constexpr size_t kBoundBytes = 640;
  const char *row = "";  // the row's name
  bool serial = false;   // the row runs on one thread (an output that overlaps itself)
  Isa isa = Isa::kPortable;
  Device device = Device::kHost;
  FirstError (*call)(const void *bound, void *workspace) = nullptr;
  alignas(16) unsigned char bound[kBoundBytes];
  FirstError run(void *workspace) const { return call(bound, workspace); }
};

struct Plan {
  static constexpr int kMaxSteps = 2, kMaxErrors = 2;
  const char *op = "";        // the aclnn API
  PlanStep steps[kMaxSteps];  // run in order; none: nothing to do (an empty tensor)
  int nsteps = 0;
  DatumText errors[kMaxErrors];  // indexed by FirstError::datum
  int nerrors = 0;
  int64_t workspace = 0;  // bytes, the largest step's; -1 when a size overflowed int64
  int threads = 1;    // the kernels' thread count, fixed in phase 1 (the workspace depends on it)
  std::string trace;  // the call's description, filled only when POOLGRAD_LOG=info
  // The steps' rows (+ "(serial)"), joined by "+": what the trace and poolgradGetKernelName say.
  std::string kernel_name() const;
};

// Fixes the thread count in the parameters before a row is chosen (a row may apply only to
// parallel runs): an output that overlaps itself runs on one thread, in a fixed order.
int plan_threads(bool serial);
template <class Params>
void fix_threads(Params &p, bool serial) {
  p.serial = serial;
  p.threads = plan_threads(serial);
}

namespace plan_detail {

// The views of a step, as a plain aggregate (std::tuple is not trivially copyable).
template <class... T>
struct Pack {};
template <class H>
struct Pack<H> {
  H head;
};
template <class H, class H2, class... T>
struct Pack<H, H2, T...> {
  H head;
  Pack<H2, T...> tail;
};
template <class H>
Pack<H> pack(const H &h) {
  return {h};
}
template <class H, class H2, class... T>
Pack<H, H2, T...> pack(const H &h, const H2 &h2, const T &...t) {
  return {h, pack(h2, t...)};
}
template <size_t I, class H, class... T>
const auto &get(const Pack<H, T...> &p) {
  if constexpr (I == 0)
    return p.head;
  else
    return get<I - 1>(p.tail);
}

template <class Params, class... Views>
struct Bound {
  FirstError (*run)(const Params &, const Views &..., void *);
  Params p;
  Pack<Views...> views;
  template <size_t... I>
  FirstError invoke(void *workspace, std::index_sequence<I...>) const {
    return run(p, get<I>(views)..., workspace);
  }
  static FirstError call(const void *self, void *workspace) {
    return static_cast<const Bound *>(self)->invoke(workspace, std::index_sequence_for<Views...>{});
  }
};

}  // namespace plan_detail

// Appends the step that runs `row` on p and views to `plan` (the one plan builder).
template <class Params, class... Views>
void add_step(Plan &plan, const KernelRow<Kernel<Params, Views...>> &row, Params p,
              const Views &...views) {
  using B = plan_detail::Bound<Params, Views...>;
  static_assert(sizeof(B) <= PlanStep::kBoundBytes && alignof(B) <= 16, "grow kBoundBytes");
  static_assert(std::is_trivially_copyable<B>::value && std::is_trivially_destructible<B>::value,
                "bound parameters and views are plain data");
  if (plan.nsteps == Plan::kMaxSteps) std::abort();  // a table bug: plans have at most 2 steps
  p.isa = row.isa;
  const int64_t ws = row.kernel.workspace(p, views...);
  plan.workspace = ws < 0 || plan.workspace < 0 ? -1 : std::max(plan.workspace, ws);
  plan.threads = std::max(plan.nsteps == 0 ? 1 : plan.threads, p.threads);
  PlanStep &s = plan.steps[plan.nsteps++];
  s.row = row.name;
  s.serial = p.serial;
  s.isa = row.isa;
  s.device = row.device;
  s.call = &B::call;
  new (s.bound) B{row.kernel.run, p, plan_detail::pack(views...)};
}

// A plan of one step, with the text of the data its kernel checks.
template <class Params, class... Views>
Plan make_plan(const char *op, const KernelRow<Kernel<Params, Views...>> &row, Params p,
               std::initializer_list<DatumText> errors, const Views &...views) {
  Plan plan;
  plan.op = op;
  if (errors.size() > Plan::kMaxErrors) std::abort();  // a builder bug: grow kMaxErrors
  for (const DatumText &d : errors) plan.errors[plan.nerrors++] = d;
  add_step(plan, row, std::move(p), views...);
  return plan;
}

// The 161002 of a data error, in the words phase 1 prepared.
aclnnStatus report_data_error(const char *api, const Plan &plan, const FirstError &e);

// The usual index datum: `name` over a grid of (n, c, spatial...) printed in the tensor's own
// layout (channels last: c after the spatial axes), without n for a tensor of the lower rank.
DatumText index_datum(const char *name, std::initializer_list<int64_t> grid, bool channels_last,
                      bool with_n, const char *rule_fmt, long long rule_arg);

}  // namespace poolgrad
