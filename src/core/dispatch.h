// SPDX-License-Identifier: Apache-2.0
// The dispatch tables: one per operator, each row a kernel keyed by (device, dtype, index dtype,
// layout, ISA). Phase 1 computes the key of the call and takes the row; the plan keeps the row's
// kernel and name, so that the kernel run and the name traced are the same by construction.
//
// A second device (a CUDA backend) adds rows with Device::kCuda and its own kernels in its own
// folder; tensors carry their device (View::device), so the key is complete (docs/architecture.md).
#pragma once

#include <cstddef>
#include <cstdlib>

#include "aclnn/aclnn_base.h"
#include "isa.h"
#include "view.h"

namespace poolgrad {

// Any dtype the operator's validation accepts: the host kernels convert rows to float32, so one
// kernel serves every dtype. A device with per-dtype kernels fills the column.
constexpr aclDataType kAnyDtype = ACL_DT_UNDEFINED;

template <class Kernel>
struct KernelRow {
  Device device;
  aclDataType dtype;
  aclDataType index_dtype;
  int layout;  // the operator's own path enum
  Isa isa;
  const char *name;
  Kernel kernel;
};

// The row for the call: the first row of the table, in its order, whose key matches (device,
// dtypes) at an ISA the host runs (at most `best`) and whose `applies` column, when it has one,
// holds for these parameters and views. Tables list their rows in order of preference: the
// special paths first, each path's rows from the highest ISA down, and last a portable row that
// applies to every call (so a null is a bug in a table: abort, rather than run nothing).
template <class Row, size_t N, class Params, class... Views>
const Row &choose_kernel(const Row (&table)[N], Device device, Isa best, const Params &p,
                         const Views &...views) {
  for (const Row &r : table)
    if (r.device == device && (r.dtype == kAnyDtype || r.dtype == p.dtype) &&
        (r.index_dtype == kAnyDtype || r.index_dtype == p.index_dtype) && isa_runs(r.isa, best) &&
        (!r.kernel.applies || r.kernel.applies(p, views...)))
      return r;
  std::abort();
}

}  // namespace poolgrad
