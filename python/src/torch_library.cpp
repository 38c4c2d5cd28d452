// SPDX-License-Identifier: Apache-2.0
// poolgrad's operators in PyTorch's dispatcher (namespace poolgrad): their schemas, which are those
// of the ATen and torchvision operators they stand in for, and the refusal of every device without
// a kernel. Registered from C++ because a Python kernel costs tens of microseconds a call
// (docs/pytorch.md). Each family's CPU kernels and autograd formulas are in a file of its own
// (python/src/torch_<family>.cpp), the fake (meta) implementations in poolgrad/ops.py. Built
// against one torch (its C++ ABI): the package refuses to load it under another (poolgrad/ops.py
// says what to do).
#include <torch/library.h>

#include <string>

#include "torch_call.h"

namespace poolgrad_torch {
namespace {

// Every backend without a kernel of its own (CUDA, XPU, MPS, ...): a clear refusal naming the
// device, instead of the dispatcher's list of backends. Meta has the fakes.
void refuse_device(const c10::OperatorHandle &op, c10::DispatchKeySet keys,
                   torch::jit::Stack *stack) {
  std::string device;
  for (const c10::IValue &v : *stack)
    if (v.isTensor() && v.toTensor().defined() && !v.toTensor().is_cpu()) {
      device = v.toTensor().device().str();
      break;
    }
  const std::string backend = c10::toString(keys.highestPriorityTypeId());
  fail(kParamInvalid, op.schema().name() + ": poolgrad runs on the CPU, but " +
                          (device.empty() ? "the call was dispatched to the " + backend + " backend"
                                          : "a tensor is on " + device) +
                          "; move the tensors with .cpu()");
}

// Every op's name and schema, from the operator descriptors (python/poolgrad/operators.json):
// the schemas of the operators they stand in for: ATen's max_pool2d_with_indices(_backward),
// max_pool3d_with_indices(_backward), adaptive_max_pool2d/3d(_backward); torchvision's roi_pool /
// _roi_pool_backward; the Mask pair (no ATen twin) ATen's max-pool schema with the mask in place
// of the indices.
struct OpSchema {
  const char *name, *schema;
};
const OpSchema kOps[] = {
#include "torch_schemas.inc"
};

}  // namespace
}  // namespace poolgrad_torch

using namespace poolgrad_torch;

TORCH_LIBRARY(poolgrad, m) {
  m.set_python_module("poolgrad.ops");  // where the fakes are
  for (const OpSchema &op : kOps) m.def(op.schema);
}

TORCH_LIBRARY_IMPL(poolgrad, CompositeExplicitAutograd, m) {
  for (const OpSchema &op : kOps)
    m.impl(op.name, torch::CppFunction::makeFromBoxedFunction<&refuse_device>());
}
