// SPDX-License-Identifier: Apache-2.0
// Adaptive max pooling in PyTorch (2-D and 3-D): CPU kernels calling the C API, and autograd
// formulas.
#include <torch/library.h>

#include "aclnnop/aclnn_ops_cv.h"
#include "aclnnop/aclnn_ops_nn.h"
#include "torch_call.h"
#include "torch_grad.h"

namespace poolgrad_torch {
namespace {

std::vector<int64_t> adaptive_shape(const Tensor &x, IntArrayRef size, int spatial) {
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  const int64_t nd = x.dim();
  if ((nd == spatial + 1 || nd == spatial + 2) && size.size() == static_cast<size_t>(spatial))
    for (int i = 0; i < spatial; ++i) shape[nd - spatial + i] = size[i] > 1 ? size[i] : 1;
  return shape;
}

// ---- adaptive max pooling ---------------------------------------------------------------------
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor &x, IntArrayRef size) {
  const auto shape = adaptive_shape(x, size, 2);
  const auto mf = layout_of(x);
  Tensor out = new_output(shape, x.options().dtype(float_dtype(x)), mf);
  Tensor idx = new_output(shape, x.options().dtype(at::kLong), mf);
  View vx(x, ACL_FORMAT_NCHW, "x"), vo(out, ACL_FORMAT_NCHW, "out"),
      vi(idx, ACL_FORMAT_NCHW, "indices");
  auto os = ints(size);
  run(aclnnAdaptiveMaxPool2dGetWorkspaceSize, aclnnAdaptiveMaxPool2d, vx.get(), os.a, vo.get(),
      vi.get());
  return {out, idx};
}

Tensor adaptive_max_pool2d_backward(const Tensor &gy, const Tensor &x, const Tensor &idx) {
  const Tensor g = dense(gy);
  Tensor gx = new_output(x.sizes(), x.options().dtype(float_dtype(x)), layout_of(x));
  View vg(g, ACL_FORMAT_NCHW, "grad_output"), vx(x, ACL_FORMAT_NCHW, "x"),
      vi(idx, ACL_FORMAT_NCHW, "indices"), vgx(gx, ACL_FORMAT_NCHW, "grad_input");
  run(aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize, aclnnAdaptiveMaxPool2dBackward, vg.get(),
      vx.get(), vi.get(), vgx.get());
  return gx;
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor &x, IntArrayRef size) {
  // Contiguous outputs whatever x's format (torch's CPU kernel does the same; its gradient keeps
  // x's format).
  const auto shape = adaptive_shape(x, size, 3);
  Tensor out = new_output(shape, x.options().dtype(float_dtype(x)));
  Tensor idx = new_output(shape, x.options().dtype(volume_fits_int32(x) ? at::kInt : at::kLong));
  View vx(x, ACL_FORMAT_NCDHW, "x"), vo(out, ACL_FORMAT_NCDHW, "out"),
      vi(idx, ACL_FORMAT_NCDHW, "indices");
  auto os = ints(size);
  run(aclnnAdaptiveMaxPool3dGetWorkspaceSize, aclnnAdaptiveMaxPool3d, vx.get(), os.a, vo.get(),
      vi.get());
  return {out, idx.to(at::kLong)};
}

Tensor adaptive_max_pool3d_backward_cpu(const Tensor &gy, const Tensor &x, const Tensor &indices) {
  const Tensor g = dense(gy), idx = volume_fits_int32(x) ? indices.to(at::kInt) : indices;
  Tensor gx = new_output(x.sizes(), x.options().dtype(float_dtype(x)), layout_of(x));
  View vg(g, ACL_FORMAT_NCDHW, "grad_output"), vx(x, ACL_FORMAT_NCDHW, "x"),
      vi(idx, ACL_FORMAT_NCDHW, "indices"), vgx(gx, ACL_FORMAT_NCDHW, "grad_input");
  run(aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize, aclnnAdaptiveMaxPool3dBackward, vg.get(),
      vx.get(), vi.get(), vgx.get());
  return gx;
}

// ---- adaptive max pooling --------------------------------------------------------------------
using AdaptiveSig = std::tuple<Tensor, Tensor>(const Tensor &, IntArrayRef);
using AdaptiveBackwardSig = Tensor(const Tensor &, const Tensor &, const Tensor &);

struct Adaptive2d {
  static constexpr const char *kForward = "poolgrad::adaptive_max_pool2d";
  static constexpr const char *kBackward = "poolgrad::adaptive_max_pool2d_backward";
  static constexpr int64_t kDims = 2;
};
struct Adaptive3d {
  static constexpr const char *kForward = "poolgrad::adaptive_max_pool3d";
  static constexpr const char *kBackward = "poolgrad::adaptive_max_pool3d_backward";
  static constexpr int64_t kDims = 3;
};

template <class Op>
const c10::TypedOperatorHandle<AdaptiveSig> &adaptive_op() {
  static const auto h = op<AdaptiveSig>(Op::kForward);
  return h;
}
template <class Op>
const c10::TypedOperatorHandle<AdaptiveBackwardSig> &adaptive_backward_op() {
  static const auto h = op<AdaptiveBackwardSig>(Op::kBackward);
  return h;
}

template <class Op>
struct AdaptiveFn : torch::autograd::Function<AdaptiveFn<Op>> {
  static variable_list forward(AutogradContext *ctx, const Tensor &x, IntArrayRef size) {
    at::AutoDispatchBelowADInplaceOrView below;
    auto [out, idx] = adaptive_op<Op>().call(x, size);
    ctx->save_for_backward({x, idx});
    ctx->mark_non_differentiable({idx});
    ctx->set_materialize_grads(false);  // no zero gradient for the indices (see PoolFn)
    return {out, idx};
  }
  static variable_list backward(AutogradContext *ctx, variable_list g) {
    if (!g[0].defined()) return variable_list(2);
    const auto saved = ctx->get_saved_variables();
    return {adaptive_backward_op<Op>().call(g[0], saved[0], saved[1]), Tensor()};
  }
};

template <class Op>
std::tuple<Tensor, Tensor> adaptive_autograd(const Tensor &x, IntArrayRef size) {
  if (!records({&x})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return adaptive_op<Op>().call(x, size);
  }
  auto r = AdaptiveFn<Op>::apply(x, size);
  return {r[0], r[1]};
}

template <class Op>
struct AdaptiveBackwardFn : torch::autograd::Function<AdaptiveBackwardFn<Op>> {
  static Tensor forward(AutogradContext *ctx, const Tensor &gy, const Tensor &x,
                        const Tensor &idx) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->save_for_backward({idx});
    return adaptive_backward_op<Op>().call(gy, x, idx);
  }
  static variable_list backward(AutogradContext *ctx, variable_list g) {
    return {gather_at(g[0], ctx->get_saved_variables()[0], Op::kDims), Tensor(), Tensor()};
  }
};

template <class Op>
Tensor adaptive_backward_autograd(const Tensor &gy, const Tensor &x, const Tensor &idx) {
  if (!records({&gy})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return adaptive_backward_op<Op>().call(gy, x, idx);
  }
  return AdaptiveBackwardFn<Op>::apply(gy, x, idx);
}

}  // namespace
}  // namespace poolgrad_torch

using namespace poolgrad_torch;

TORCH_LIBRARY_IMPL(poolgrad, CPU, m) {
  m.impl("adaptive_max_pool2d", &adaptive_max_pool2d);
  m.impl("adaptive_max_pool2d_backward", &adaptive_max_pool2d_backward);
  m.impl("adaptive_max_pool3d", &adaptive_max_pool3d);
  m.impl("adaptive_max_pool3d_backward", &adaptive_max_pool3d_backward_cpu);
}

TORCH_LIBRARY_IMPL(poolgrad, Autograd, m) {
  m.impl("adaptive_max_pool2d", &adaptive_autograd<Adaptive2d>);
  m.impl("adaptive_max_pool2d_backward", &adaptive_backward_autograd<Adaptive2d>);
  m.impl("adaptive_max_pool3d", &adaptive_autograd<Adaptive3d>);
  m.impl("adaptive_max_pool3d_backward", &adaptive_backward_autograd<Adaptive3d>);
}
