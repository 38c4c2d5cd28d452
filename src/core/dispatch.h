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
#include <initializer_list>

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

// The row for the call: the first of `layouts` (in order of preference) that has a row for the
// device and dtypes at the best ISA available, or failing that at a lower one. Null when none.
template <class Kernel, size_t N>
const KernelRow<Kernel> *find_kernel(const KernelRow<Kernel> (&table)[N], Device device,
                                     aclDataType dtype, aclDataType index_dtype,
                                     std::initializer_list<int> layouts, Isa best) {
  for (int layout : layouts)
    for (int isa = static_cast<int>(best); isa >= 0; --isa)
      for (const KernelRow<Kernel> &r : table)
        if (r.device == device && (r.dtype == kAnyDtype || r.dtype == dtype) &&
            (r.index_dtype == kAnyDtype || r.index_dtype == index_dtype) && r.layout == layout &&
            r.isa == static_cast<Isa>(isa))
          return &r;
  return nullptr;
}

// The row find_kernel found: every operator's tables have a portable row for each key its phase 1
// can form, so a null here is a bug in a table (abort, rather than run nothing).
template <class Row>
const Row &must_find(const Row *r) {
  if (!r) std::abort();
  return *r;
}

}  // namespace poolgrad
