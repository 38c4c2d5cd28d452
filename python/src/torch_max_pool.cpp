// SPDX-License-Identifier: Apache-2.0
// Max pooling in PyTorch (2-D and 3-D with indices, and the Mask pair): CPU kernels calling the C
// API, and autograd formulas (one formula, three op pairs).
#include <torch/library.h>

#include "aclnnop/aclnn_ops_cv.h"
#include "aclnnop/aclnn_ops_nn.h"
#include "torch_call.h"
#include "torch_grad.h"

namespace poolgrad_torch {
namespace {

// Axis i of a pooling attribute given as one value or one per spatial axis (dflt for any other
// length, so that the library itself reports the list).
int64_t axis(IntArrayRef v, int i, int spatial, int64_t dflt) {
  return v.size() == 1 ? v[0] : v.size() == static_cast<size_t>(spatial) ? v[i] : dflt;
}

// The output shape the operator expects; the input's own where it is not poolable, so that the
// library reports what is wrong.
std::vector<int64_t> pool_shape(const Tensor &x, IntArrayRef k, IntArrayRef s, IntArrayRef p,
                                IntArrayRef d, bool ceil, int spatial) {
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  const int64_t nd = x.dim();
  if ((nd != spatial + 1 && nd != spatial + 2) || k.empty()) return shape;
  for (int i = 0; i < spatial; ++i) {
    const int64_t ki = axis(k, i, spatial, 1), si = s.empty() ? ki : axis(s, i, spatial, ki);
    const int64_t o = poolgradPoolOutputSize(shape[nd - spatial + i], ki, si,
                                             axis(p, i, spatial, 0), axis(d, i, spatial, 1), ceil);
    shape[nd - spatial + i] = o > 1 ? o : 1;
  }
  return shape;
}

// ---- max pooling -------------------------------------------------------------------------------
std::tuple<Tensor, Tensor> max_pool2d(const Tensor &x, IntArrayRef k, IntArrayRef s, IntArrayRef p,
                                      IntArrayRef d, bool ceil) {
  const auto shape = pool_shape(x, k, s, p, d, ceil, 2);
  const auto mf = layout_of(x);
  Tensor out = new_output(shape, x.options().dtype(float_dtype(x)), mf);
  Tensor idx = new_output(shape, x.options().dtype(at::kLong), mf);
  View vx(x, ACL_FORMAT_NCHW, "x"), vo(out, ACL_FORMAT_NCHW, "out"),
      vi(idx, ACL_FORMAT_NCHW, "indices");
  auto kk = ints(k), ss = ints(s), pp = ints(p), dd = ints(d);
  run(aclnnMaxPool2dWithIndicesGetWorkspaceSize, aclnnMaxPool2dWithIndices, vx.get(), kk.a, ss.a,
      pp.a, dd.a, ceil, vo.get(), vi.get());
  return {out, idx};
}

Tensor max_pool2d_backward(const Tensor &gy, const Tensor &x, IntArrayRef k, IntArrayRef s,
                           IntArrayRef p, IntArrayRef d, bool ceil, const Tensor &idx) {
  const Tensor g = dense(gy);
  Tensor gx = new_output(x.sizes(), x.options().dtype(float_dtype(x)), layout_of(x));
  View vg(g, ACL_FORMAT_NCHW, "grad_output"), vx(x, ACL_FORMAT_NCHW, "x"),
      vi(idx, ACL_FORMAT_NCHW, "indices"), vgx(gx, ACL_FORMAT_NCHW, "grad_input");
  auto kk = ints(k), ss = ints(s), pp = ints(p), dd = ints(d);
  run(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize, aclnnMaxPool2dWithIndicesBackward,
      vg.get(), vx.get(), vi.get(), kk.a, ss.a, pp.a, dd.a, ceil, vgx.get());
  return gx;
}

std::tuple<Tensor, Tensor> max_pool3d(const Tensor &x, IntArrayRef k, IntArrayRef s, IntArrayRef p,
                                      IntArrayRef d, bool ceil) {
  const auto shape = pool_shape(x, k, s, p, d, ceil, 3);
  const auto mf = layout_of(x);
  Tensor out = new_output(shape, x.options().dtype(float_dtype(x)), mf);
  Tensor idx =
      new_output(shape, x.options().dtype(volume_fits_int32(x) ? at::kInt : at::kLong), mf);
  View vx(x, ACL_FORMAT_NCDHW, "x"), vo(out, ACL_FORMAT_NCDHW, "out"),
      vi(idx, ACL_FORMAT_NCDHW, "indices");
  auto kk = ints(k), ss = ints(s), pp = ints(p), dd = ints(d);
  run(aclnnMaxPool3dWithArgmaxGetWorkspaceSize, aclnnMaxPool3dWithArgmax, vx.get(), kk.a, ss.a,
      pp.a, dd.a, ceil, vo.get(), vi.get());
  return {out, idx.to(at::kLong)};
}

Tensor max_pool3d_backward(const Tensor &gy, const Tensor &x, IntArrayRef k, IntArrayRef s,
                           IntArrayRef p, IntArrayRef d, bool ceil, const Tensor &indices) {
  const Tensor g = dense(gy), idx = volume_fits_int32(x) ? indices.to(at::kInt) : indices;
  Tensor gx = new_output(x.sizes(), x.options().dtype(float_dtype(x)), layout_of(x));
  View vg(g, ACL_FORMAT_NCDHW, "grad_output"), vx(x, ACL_FORMAT_NCDHW, "x"),
      vi(idx, ACL_FORMAT_NCDHW, "indices"), vgx(gx, ACL_FORMAT_NCDHW, "grad_input");
  auto kk = ints(k), ss = ints(s), pp = ints(p), dd = ints(d);
  run(aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize, aclnnMaxPool3dWithArgmaxBackward, vg.get(),
      vx.get(), vi.get(), kk.a, ss.a, pp.a, dd.a, ceil, vgx.get());
  return gx;
}

// CANN's mask shape: [N, C, kH*kW, (ceil(Hout*Wout/16) + 1) * 32] (rank 3: without N).
std::tuple<Tensor, Tensor> max_pool2d_with_mask(const Tensor &x, IntArrayRef k, IntArrayRef s,
                                                IntArrayRef p, IntArrayRef d, bool ceil) {
  const auto shape = pool_shape(x, k, s, p, d, ceil, 2);
  auto mask_shape = shape;
  if ((x.dim() == 3 || x.dim() == 4) && !k.empty()) {
    const int64_t plane = shape[shape.size() - 2] * shape.back();
    mask_shape[shape.size() - 2] = axis(k, 0, 2, 1) * axis(k, 1, 2, 1);
    mask_shape.back() = ((plane + 15) / 16 + 1) * 32;
  }
  Tensor out = new_output(shape, x.options().dtype(float_dtype(x)));
  Tensor mask = new_output(mask_shape, x.options().dtype(at::kChar));
  View vx(x, ACL_FORMAT_NCHW, "x"), vo(out, ACL_FORMAT_NCHW, "out"),
      vm(mask, ACL_FORMAT_NCHW, "mask");
  auto kk = ints(k), ss = ints(s), pp = ints(p), dd = ints(d);
  run(aclnnMaxPool2dWithMaskGetWorkspaceSize, aclnnMaxPool2dWithMask, vx.get(), kk.a, ss.a, pp.a,
      dd.a, ceil, vo.get(), vm.get());
  return {out, mask};
}

Tensor max_pool2d_with_mask_backward(const Tensor &gy, const Tensor &x, IntArrayRef k,
                                     IntArrayRef s, IntArrayRef p, IntArrayRef d, bool ceil,
                                     const Tensor &mask) {
  const Tensor g = gy.contiguous();
  Tensor gx = new_output(x.sizes(), x.options().dtype(float_dtype(x)));
  View vg(g, ACL_FORMAT_NCHW, "grad_output"), vx(x, ACL_FORMAT_NCHW, "x"),
      vm(mask, ACL_FORMAT_NCHW, "mask"), vgx(gx, ACL_FORMAT_NCHW, "grad_input");
  auto kk = ints(k), ss = ints(s), pp = ints(p), dd = ints(d);
  run(aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize, aclnnMaxPool2dWithMaskBackward, vg.get(),
      vx.get(), vm.get(), kk.a, ss.a, pp.a, dd.a, ceil, vgx.get());
  return gx;
}

// ---- max pooling (2-D, 3-D and the Mask pair: one formula, three op pairs) -------------------
using PoolSig = std::tuple<Tensor, Tensor>(const Tensor &, IntArrayRef, IntArrayRef, IntArrayRef,
                                           IntArrayRef, bool);
using PoolBackwardSig = Tensor(const Tensor &, const Tensor &, IntArrayRef, IntArrayRef,
                               IntArrayRef, IntArrayRef, bool, const Tensor &);

struct MaxPool2d {
  static constexpr const char *kForward = "poolgrad::max_pool2d_with_indices";
  static constexpr const char *kBackward = "poolgrad::max_pool2d_with_indices_backward";
  static constexpr int64_t kDims = 2;
  static constexpr bool kMask = false;
};
struct MaxPool3d {
  static constexpr const char *kForward = "poolgrad::max_pool3d_with_indices";
  static constexpr const char *kBackward = "poolgrad::max_pool3d_with_indices_backward";
  static constexpr int64_t kDims = 3;
  static constexpr bool kMask = false;
};
struct MaxPoolMask {
  static constexpr const char *kForward = "poolgrad::max_pool2d_with_mask";
  static constexpr const char *kBackward = "poolgrad::max_pool2d_with_mask_backward";
  static constexpr int64_t kDims = 2;
  static constexpr bool kMask = true;
};

template <class Op>
const c10::TypedOperatorHandle<PoolSig> &forward_op() {
  static const auto h = op<PoolSig>(Op::kForward);
  return h;
}
template <class Op>
const c10::TypedOperatorHandle<PoolBackwardSig> &backward_op() {
  static const auto h = op<PoolBackwardSig>(Op::kBackward);
  return h;
}

void save_attrs(AutogradContext *ctx, IntArrayRef k, IntArrayRef s, IntArrayRef p, IntArrayRef d,
                bool ceil) {
  ctx->saved_data["k"] = k;
  ctx->saved_data["s"] = s;
  ctx->saved_data["p"] = p;
  ctx->saved_data["d"] = d;
  ctx->saved_data["ceil"] = ceil;
}

template <class Op>
struct PoolFn : torch::autograd::Function<PoolFn<Op>> {
  static variable_list forward(AutogradContext *ctx, const Tensor &x, IntArrayRef k, IntArrayRef s,
                               IntArrayRef p, IntArrayRef d, bool ceil) {
    at::AutoDispatchBelowADInplaceOrView below;
    auto [out, idx] = forward_op<Op>().call(x, k, s, p, d, ceil);
    ctx->save_for_backward({x, idx});
    save_attrs(ctx, k, s, p, d, ceil);
    ctx->mark_non_differentiable({idx});
    // The indices output has no gradient: no zero one built for it (a full-size fill: 19 ms on
    // the ResNet stem's 51 MB of indices).
    ctx->set_materialize_grads(false);
    return {out, idx};
  }
  static variable_list backward(AutogradContext *ctx, variable_list g) {
    if (!g[0].defined()) return variable_list(7);
    const auto saved = ctx->get_saved_variables();
    auto &a = ctx->saved_data;
    variable_list grads(7);
    grads[0] = backward_op<Op>().call(g[0], saved[0], a["k"].toIntVector(), a["s"].toIntVector(),
                                      a["p"].toIntVector(), a["d"].toIntVector(),
                                      a["ceil"].toBool(), saved[1]);
    return grads;
  }
};

template <class Op>
std::tuple<Tensor, Tensor> pool_autograd(const Tensor &x, IntArrayRef k, IntArrayRef s,
                                         IntArrayRef p, IntArrayRef d, bool ceil) {
  if (!records({&x})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return forward_op<Op>().call(x, k, s, p, d, ceil);
  }
  auto r = PoolFn<Op>::apply(x, k, s, p, d, ceil);
  return {r[0], r[1]};
}

// The int32 indices a mask holds (docs/mask.md), in gy's shape.
Tensor mask_indices(const Tensor &mask, const Tensor &gy) {
  return mask.contiguous()
      .view({-1})
      .view(at::kInt)
      .slice_symint(0, 0, gy.sym_numel())
      .reshape_symint(gy.sym_sizes());
}

template <class Op>
struct PoolBackwardFn : torch::autograd::Function<PoolBackwardFn<Op>> {
  static Tensor forward(AutogradContext *ctx, const Tensor &gy, const Tensor &x, IntArrayRef k,
                        IntArrayRef s, IntArrayRef p, IntArrayRef d, bool ceil, const Tensor &idx) {
    at::AutoDispatchBelowADInplaceOrView below;
    Tensor gx = backward_op<Op>().call(gy, x, k, s, p, d, ceil, idx);
    ctx->save_for_backward({gy, idx});
    save_attrs(ctx, k, s, p, d, ceil);
    return gx;
  }
  static variable_list backward(AutogradContext *ctx, variable_list g) {
    const auto saved = ctx->get_saved_variables();
    const Tensor &gy = saved[0], &idx = saved[1];
    variable_list grads(8);
    if (!Op::kMask) {
      grads[0] = gather_at(g[0], idx, Op::kDims);
      return grads;
    }
    const auto k = ctx->saved_data["k"].toIntVector(), s = ctx->saved_data["s"].toIntVector();
    if (k.front() * k.back() != 1) {
      grads[0] = gather_at(g[0], mask_indices(idx, gy), 2);
      return grads;
    }
    // 1x1 windows keep no indices: output (oh, ow) read input (oh * sH, ow * sW).
    const int64_t sh = s.empty() ? 1 : s.front(), sw = s.empty() ? 1 : s.back();
    const c10::SymInt ho = gy.sym_size(-2), wo = gy.sym_size(-1);
    grads[0] =
        g[0].slice_symint(-2, 0, (ho - 1) * sh + 1, sh).slice_symint(-1, 0, (wo - 1) * sw + 1, sw);
    grads[0] = grads[0].contiguous();
    return grads;
  }
};

template <class Op>
Tensor pool_backward_autograd(const Tensor &gy, const Tensor &x, IntArrayRef k, IntArrayRef s,
                              IntArrayRef p, IntArrayRef d, bool ceil, const Tensor &idx) {
  if (!records({&gy})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return backward_op<Op>().call(gy, x, k, s, p, d, ceil, idx);
  }
  return PoolBackwardFn<Op>::apply(gy, x, k, s, p, d, ceil, idx);
}

}  // namespace
}  // namespace poolgrad_torch

using namespace poolgrad_torch;

TORCH_LIBRARY_IMPL(poolgrad, CPU, m) {
  m.impl("max_pool2d_with_indices", &max_pool2d);
  m.impl("max_pool2d_with_indices_backward", &max_pool2d_backward);
  m.impl("max_pool3d_with_indices", &max_pool3d);
  m.impl("max_pool3d_with_indices_backward", &max_pool3d_backward);
  m.impl("max_pool2d_with_mask", &max_pool2d_with_mask);
  m.impl("max_pool2d_with_mask_backward", &max_pool2d_with_mask_backward);
}

TORCH_LIBRARY_IMPL(poolgrad, Autograd, m) {
  m.impl("max_pool2d_with_indices", &pool_autograd<MaxPool2d>);
  m.impl("max_pool2d_with_indices_backward", &pool_backward_autograd<MaxPool2d>);
  m.impl("max_pool3d_with_indices", &pool_autograd<MaxPool3d>);
  m.impl("max_pool3d_with_indices_backward", &pool_backward_autograd<MaxPool3d>);
  m.impl("max_pool2d_with_mask", &pool_autograd<MaxPoolMask>);
  m.impl("max_pool2d_with_mask_backward", &pool_backward_autograd<MaxPoolMask>);
}
