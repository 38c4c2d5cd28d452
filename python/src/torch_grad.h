// SPDX-License-Identifier: Apache-2.0
// What the autograd formulas of poolgrad's ops share (python/src/torch_<family>.cpp). A forward's
// gradient is its backward op. A backward op is linear in its gradOutput, so its own gradient
// (double backward) is the gather of the incoming gradient at the stored indices. Every op is
// called through the dispatcher, so the formulas work on fake tensors too (torch.compile,
// torch.export trace through them).
#pragma once

#include <ATen/ATen.h>
#include <torch/autograd.h>

#include <initializer_list>

namespace poolgrad_torch {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

template <class Sig>
inline c10::TypedOperatorHandle<Sig> op(const char *name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Sig>();
}

// Whether this call needs a graph node; without one the op runs below autograd directly (the
// node costs about a microsecond, a third of a small call).
inline bool records(std::initializer_list<const at::Tensor *> inputs) {
  if (!at::GradMode::is_enabled()) return false;
  for (const at::Tensor *t : inputs)
    if (t->defined() && t->requires_grad()) return true;
  return false;
}

// The adjoint of the scatter gx[idx[o]] += gy[o] over the last `dims` dims: g read at idx (0
// where idx is -1).
inline at::Tensor gather_at(const at::Tensor &g, const at::Tensor &idx, int64_t dims) {
  const at::Tensor flat = g.flatten(g.dim() - dims),
                   i = idx.flatten(idx.dim() - dims).to(at::kLong);
  return flat.gather(-1, i.clamp_min(0)).masked_fill(i < 0, 0).reshape_symint(idx.sym_sizes());
}

}  // namespace poolgrad_torch
