// SPDX-License-Identifier: Apache-2.0
// What the torch ops' files (python/src/torch_<family>.cpp) share to call the public C API on
// tensors: an aclTensor viewing a tensor for one call, the two phases with torch's thread count,
// new outputs, and the dtype and layout rules the kernels follow (torch's own).
#pragma once

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cstdint>
#include <string>
#include <vector>

#include "acl_call.h"
#include "poolgrad/poolgrad.h"

namespace poolgrad_torch {

using at::IntArrayRef;
using at::Tensor;

inline constexpr int kParamInvalid = 161002;  // ACLNN_ERR_PARAM_INVALID
inline constexpr int64_t kInt32Max = 2147483647;

// Python sees a ValueError reading "[status] message", the text of the package's PoolgradError.
[[noreturn]] inline void fail(int status, const std::string &message) {
  TORCH_CHECK_VALUE(false, "[", status, "] ", message);
}

inline aclDataType acl_dtype(at::ScalarType t) {
  switch (t) {
    case at::kFloat:
      return ACL_FLOAT;
    case at::kHalf:
      return ACL_FLOAT16;
    case at::kBFloat16:
      return ACL_BF16;
    case at::kInt:
      return ACL_INT32;
    case at::kLong:
      return ACL_INT64;
    case at::kDouble:
      return ACL_DOUBLE;
    case at::kShort:
      return ACL_INT16;
    case at::kChar:
      return ACL_INT8;
    case at::kByte:
      return ACL_UINT8;
    case at::kBool:
      return ACL_BOOL;
    default:
      return ACL_DT_UNDEFINED;
  }
}

// An aclTensor viewing a CPU tensor for the length of one call (the tensor is held by the caller).
class View {
 public:
  View(const Tensor &t, aclFormat fmt, const char *name)
      : keep_(t.is_neg() ? t.resolve_neg() : t) {  // a negated view's bits are not its values
    const aclDataType dt = acl_dtype(keep_.scalar_type());
    if (dt == ACL_DT_UNDEFINED)
      fail(kParamInvalid, std::string(name) + " has dtype " + c10::toString(keep_.scalar_type()) +
                              ", which poolgrad does not take");
    const int64_t nd = keep_.dim();
    t_ = poolgrad_py::acl_view(keep_.data_ptr(), dt, keep_.element_size(), keep_.sizes().data(),
                               keep_.strides().data(), static_cast<size_t>(nd), fmt);
    if (!t_) fail(kParamInvalid, std::string(name) + ": " + poolgrad_py::recent_error());
  }
  ~View() { aclDestroyTensor(t_); }
  View(const View &) = delete;
  View &operator=(const View &) = delete;
  aclTensor *get() const { return t_; }

 private:
  Tensor keep_;
  aclTensor *t_ = nullptr;
};

inline poolgrad_py::Ints ints(IntArrayRef v) {
  return poolgrad_py::Ints(v.data(), v.size());
}

// The ops run with torch's thread count (torch.get_num_threads()), as the ATen operators do, and
// take float64 (poolgrad's DOUBLE extension: gradcheck needs it), both set for this calling
// thread only.
struct TorchCall {
  TorchCall() {
    poolgradSetThreadNumThreads(at::get_num_threads());
    poolgradSetThreadDoubleDtype(1);
  }
  ~TorchCall() {
    poolgradSetThreadNumThreads(0);
    poolgradSetThreadDoubleDtype(0);
  }
};

using Phase2 = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

// Phase 1 (an API's GetWorkspaceSize on args, then the workspace-size and executor pointers),
// then phase 2 on a workspace of that size; a refusal raised with the library's message.
template <class... P, class... A>
void run(aclnnStatus (*phase1)(P...), Phase2 phase2, const A &...args) {
  TorchCall call;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  aclnnStatus st = phase1(args..., &ws, &ex);
  if (st == ACLNN_SUCCESS) {
    poolgrad_py::Workspace workspace(ws);
    st = phase2(workspace.data(), ws, ex, nullptr);
  }
  if (st != ACLNN_SUCCESS) fail(st, poolgrad_py::recent_error());
}

// A new output, never zero-filled (the kernels write every element); large ones on huge pages.
inline Tensor new_output(IntArrayRef shape, const at::TensorOptions &opts,
                         at::MemoryFormat mf = at::MemoryFormat::Contiguous) {
  Tensor t = at::empty(shape, opts.memory_format(mf));
  if (t.nbytes() >= poolgrad_py::kHugeBytes) poolgrad_py::advise_huge(t.data_ptr(), t.nbytes());
  return t;
}

// The dtype of a float result computed from t: t's own where the operator may take it (float64
// included: the library takes or refuses it per operator, naming the parameter), else float32
// (the library then refuses t's dtype).
inline at::ScalarType float_dtype(const Tensor &t, bool bf16 = true) {
  const at::ScalarType s = t.scalar_type();
  return (s == at::kFloat || s == at::kHalf || s == at::kDouble || (bf16 && s == at::kBFloat16))
             ? s
             : at::kFloat;
}

// The memory format an output or gradient keeps, as torch's kernels do: channels-last (2-D) or
// channels-last-3d (3-D) when x is in it and not also plainly contiguous.
inline at::MemoryFormat layout_of(const Tensor &x) {
  if (x.is_contiguous()) return at::MemoryFormat::Contiguous;
  if (x.dim() == 4 && x.is_contiguous(at::MemoryFormat::ChannelsLast))
    return at::MemoryFormat::ChannelsLast;
  if (x.dim() == 5 && x.is_contiguous(at::MemoryFormat::ChannelsLast3d))
    return at::MemoryFormat::ChannelsLast3d;
  return at::MemoryFormat::Contiguous;
}

// Gradients as autograd hands them (often expanded, stride 0) made dense, in the layout they have.
inline Tensor dense(const Tensor &g) {
  return g.is_contiguous() || g.is_contiguous(at::MemoryFormat::ChannelsLast) ||
                 g.is_contiguous(at::MemoryFormat::ChannelsLast3d)
             ? g
             : g.contiguous();
}

// The 3-D operators take INT32 indices on every product (INT64 is Ascend950's): inside, INT32
// wherever the volume fits them; torch sees int64.
inline bool volume_fits_int32(const Tensor &x) {
  return (x.dim() == 4 || x.dim() == 5) && x.size(-3) * x.size(-2) * x.size(-1) <= kInt32Max;
}

}  // namespace poolgrad_torch
