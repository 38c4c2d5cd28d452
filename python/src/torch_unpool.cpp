// SPDX-License-Identifier: Apache-2.0
// MaxUnpool in PyTorch (ATen's max_unpool2d / max_unpool3d schemas; the backwards are poolgrad's):
// CPU kernels calling the C API, and autograd formulas.
#include <torch/library.h>

#include "aclnnop/aclnn_ops_cv.h"
#include "aclnnop/aclnn_ops_nn.h"
#include "torch_call.h"
#include "torch_grad.h"

namespace poolgrad_torch {
namespace {

// x's shape with its last output_size.size() dims replaced (x's own where it has too few dims,
// so that the library reports what is wrong).
std::vector<int64_t> unpool_shape(const Tensor &x, IntArrayRef size) {
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  if (shape.size() >= size.size())
    for (size_t i = 0; i < size.size(); ++i)
      shape[shape.size() - size.size() + i] = size[i] > 0 ? size[i] : 0;
  return shape;
}

// The 2-D APIs (spatial 2) or the 3-D ones (which take stride and padding).
Tensor max_unpool(int spatial, const Tensor &x, const Tensor &indices, IntArrayRef size,
                  IntArrayRef stride, IntArrayRef padding) {
  Tensor out = new_output(unpool_shape(x, size), x.options());
  View vx(x, ACL_FORMAT_ND, "self"), vi(indices, ACL_FORMAT_ND, "indices"),
      vo(out, ACL_FORMAT_ND, "out");
  auto os = ints(size), ss = ints(stride), pp = ints(padding);
  if (spatial == 2)
    run(aclnnMaxUnpool2dGetWorkspaceSize, aclnnMaxUnpool2d, vx.get(), vi.get(), os.a, vo.get());
  else
    run(aclnnMaxUnpool3dGetWorkspaceSize, aclnnMaxUnpool3d, vx.get(), vi.get(), os.a, ss.a, pp.a,
        vo.get());
  return out;
}

Tensor max_unpool_backward(int spatial, const Tensor &gy, const Tensor &x, const Tensor &indices,
                           IntArrayRef size, IntArrayRef stride, IntArrayRef padding) {
  const Tensor g = gy.contiguous();
  Tensor gx = new_output(x.sizes(), x.options());
  View vg(g, ACL_FORMAT_ND, "grad_output"), vx(x, ACL_FORMAT_ND, "self"),
      vi(indices, ACL_FORMAT_ND, "indices"), vgx(gx, ACL_FORMAT_ND, "grad_input");
  auto os = ints(size), ss = ints(stride), pp = ints(padding);
  if (spatial == 2)
    run(aclnnMaxUnpool2dBackwardGetWorkspaceSize, aclnnMaxUnpool2dBackward, vg.get(), vx.get(),
        vi.get(), os.a, vgx.get());
  else
    run(aclnnMaxUnpool3dBackwardGetWorkspaceSize, aclnnMaxUnpool3dBackward, vg.get(), vx.get(),
        vi.get(), os.a, ss.a, pp.a, vgx.get());
  return gx;
}

Tensor max_unpool2d(const Tensor &x, const Tensor &indices, c10::SymIntArrayRef size) {
  return max_unpool(2, x, indices, C10_AS_INTARRAYREF_SLOW(size), {}, {});
}
Tensor max_unpool2d_backward(const Tensor &gy, const Tensor &x, const Tensor &indices,
                             c10::SymIntArrayRef size) {
  return max_unpool_backward(2, gy, x, indices, C10_AS_INTARRAYREF_SLOW(size), {}, {});
}
Tensor max_unpool3d(const Tensor &x, const Tensor &indices, c10::SymIntArrayRef size,
                    IntArrayRef stride, IntArrayRef padding) {
  return max_unpool(3, x, indices, C10_AS_INTARRAYREF_SLOW(size), stride, padding);
}
Tensor max_unpool3d_backward(const Tensor &gy, const Tensor &x, const Tensor &indices,
                             c10::SymIntArrayRef size, IntArrayRef stride, IntArrayRef padding) {
  return max_unpool_backward(3, gy, x, indices, C10_AS_INTARRAYREF_SLOW(size), stride, padding);
}

// ---- max unpooling: the gradient of the scatter is the gather at the same indices (the
// backward op, as ATen's formula: every input element gets its position's gradient, duplicates
// included); the gather's own gradient is the scatter-add of the incoming gradient into
// gradOutput's plane ----
using Unpool2dSig = Tensor(const Tensor &, const Tensor &, c10::SymIntArrayRef);
using Unpool2dBackwardSig = Tensor(const Tensor &, const Tensor &, const Tensor &,
                                   c10::SymIntArrayRef);
using Unpool3dSig = Tensor(const Tensor &, const Tensor &, c10::SymIntArrayRef, IntArrayRef,
                           IntArrayRef);
using Unpool3dBackwardSig = Tensor(const Tensor &, const Tensor &, const Tensor &,
                                   c10::SymIntArrayRef, IntArrayRef, IntArrayRef);

const c10::TypedOperatorHandle<Unpool2dSig> &unpool2d_op() {
  static const auto h = op<Unpool2dSig>("poolgrad::max_unpool2d");
  return h;
}
const c10::TypedOperatorHandle<Unpool2dBackwardSig> &unpool2d_backward_op() {
  static const auto h = op<Unpool2dBackwardSig>("poolgrad::max_unpool2d_backward");
  return h;
}
const c10::TypedOperatorHandle<Unpool3dSig> &unpool3d_op() {
  static const auto h = op<Unpool3dSig>("poolgrad::max_unpool3d");
  return h;
}
const c10::TypedOperatorHandle<Unpool3dBackwardSig> &unpool3d_backward_op() {
  static const auto h = op<Unpool3dBackwardSig>("poolgrad::max_unpool3d_backward");
  return h;
}

// g (the shape of the unpooled input) added at idx into a zero plane of gy's shape.
Tensor scatter_add_at(const Tensor &g, const Tensor &idx, const Tensor &gy, int64_t dims) {
  const Tensor flat = at::zeros_like(gy).flatten(gy.dim() - dims);
  const Tensor i = idx.flatten(idx.dim() - dims).to(at::kLong);
  return flat.scatter_add(-1, i, g.flatten(g.dim() - dims).to(gy.scalar_type()))
      .reshape_symint(gy.sym_sizes());
}

// The unpool's saved state: self's shape for the backward op, the indices, the sizes.
struct Unpool2dFn : torch::autograd::Function<Unpool2dFn> {
  static Tensor forward(AutogradContext *ctx, const Tensor &x, const Tensor &idx,
                        c10::SymIntArrayRef size) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->save_for_backward({x, idx});
    ctx->saved_data["size"] = size;
    return unpool2d_op().call(x, idx, size);
  }
  static variable_list backward(AutogradContext *ctx, variable_list g) {
    const auto saved = ctx->get_saved_variables();
    return {unpool2d_backward_op().call(g[0], saved[0], saved[1],
                                        ctx->saved_data["size"].toSymIntList().vec()),
            Tensor(), Tensor()};
  }
};

struct Unpool2dBackwardFn : torch::autograd::Function<Unpool2dBackwardFn> {
  static Tensor forward(AutogradContext *ctx, const Tensor &gy, const Tensor &x, const Tensor &idx,
                        c10::SymIntArrayRef size) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->save_for_backward({gy, idx});
    return unpool2d_backward_op().call(gy, x, idx, size);
  }
  static variable_list backward(AutogradContext *ctx, variable_list g) {
    const auto saved = ctx->get_saved_variables();
    return {scatter_add_at(g[0], saved[1], saved[0], 2), Tensor(), Tensor(), Tensor()};
  }
};

struct Unpool3dFn : torch::autograd::Function<Unpool3dFn> {
  static Tensor forward(AutogradContext *ctx, const Tensor &x, const Tensor &idx,
                        c10::SymIntArrayRef size, IntArrayRef stride, IntArrayRef padding) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->save_for_backward({x, idx});
    ctx->saved_data["size"] = size;
    ctx->saved_data["stride"] = stride;
    ctx->saved_data["padding"] = padding;
    return unpool3d_op().call(x, idx, size, stride, padding);
  }
  static variable_list backward(AutogradContext *ctx, variable_list g) {
    const auto saved = ctx->get_saved_variables();
    auto &a = ctx->saved_data;
    return {unpool3d_backward_op().call(g[0], saved[0], saved[1], a["size"].toSymIntList().vec(),
                                        a["stride"].toIntVector(), a["padding"].toIntVector()),
            Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

struct Unpool3dBackwardFn : torch::autograd::Function<Unpool3dBackwardFn> {
  static Tensor forward(AutogradContext *ctx, const Tensor &gy, const Tensor &x, const Tensor &idx,
                        c10::SymIntArrayRef size, IntArrayRef stride, IntArrayRef padding) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->save_for_backward({gy, idx});
    return unpool3d_backward_op().call(gy, x, idx, size, stride, padding);
  }
  static variable_list backward(AutogradContext *ctx, variable_list g) {
    const auto saved = ctx->get_saved_variables();
    return {scatter_add_at(g[0], saved[1], saved[0], 3),
            Tensor(),
            Tensor(),
            Tensor(),
            Tensor(),
            Tensor()};
  }
};

Tensor unpool2d_autograd(const Tensor &x, const Tensor &idx, c10::SymIntArrayRef size) {
  if (!records({&x})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return unpool2d_op().call(x, idx, size);
  }
  return Unpool2dFn::apply(x, idx, size);
}
Tensor unpool2d_backward_autograd(const Tensor &gy, const Tensor &x, const Tensor &idx,
                                  c10::SymIntArrayRef size) {
  if (!records({&gy})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return unpool2d_backward_op().call(gy, x, idx, size);
  }
  return Unpool2dBackwardFn::apply(gy, x, idx, size);
}
Tensor unpool3d_autograd(const Tensor &x, const Tensor &idx, c10::SymIntArrayRef size,
                         IntArrayRef stride, IntArrayRef padding) {
  if (!records({&x})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return unpool3d_op().call(x, idx, size, stride, padding);
  }
  return Unpool3dFn::apply(x, idx, size, stride, padding);
}
Tensor unpool3d_backward_autograd(const Tensor &gy, const Tensor &x, const Tensor &idx,
                                  c10::SymIntArrayRef size, IntArrayRef stride,
                                  IntArrayRef padding) {
  if (!records({&gy})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return unpool3d_backward_op().call(gy, x, idx, size, stride, padding);
  }
  return Unpool3dBackwardFn::apply(gy, x, idx, size, stride, padding);
}

}  // namespace
}  // namespace poolgrad_torch

using namespace poolgrad_torch;

TORCH_LIBRARY_IMPL(poolgrad, CPU, m) {
  m.impl("max_unpool2d", &max_unpool2d);
  m.impl("max_unpool2d_backward", &max_unpool2d_backward);
  m.impl("max_unpool3d", &max_unpool3d);
  m.impl("max_unpool3d_backward", &max_unpool3d_backward);
}

TORCH_LIBRARY_IMPL(poolgrad, Autograd, m) {
  m.impl("max_unpool2d", &unpool2d_autograd);
  m.impl("max_unpool2d_backward", &unpool2d_backward_autograd);
  m.impl("max_unpool3d", &unpool3d_autograd);
  m.impl("max_unpool3d_backward", &unpool3d_backward_autograd);
}
