// SPDX-License-Identifier: Apache-2.0
// The autograd formulas of poolgrad's ops (torch_ops.cpp has their schemas and kernels). A
// forward's gradient is its backward op. A backward op is linear in its gradOutput, so its own
// gradient (double backward) is the gather of the incoming gradient at the stored indices. Every
// op is called through the dispatcher, so the formulas work on fake tensors too (torch.compile,
// torch.export trace through them).
#include <ATen/ATen.h>
#include <torch/autograd.h>
#include <torch/library.h>

#include <tuple>

namespace {

using at::IntArrayRef;
using at::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

template <class Sig>
c10::TypedOperatorHandle<Sig> op(const char *name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Sig>();
}

// Whether this call needs a graph node; without one the op runs below autograd directly (the
// node costs about a microsecond, a third of a small call).
bool records(std::initializer_list<const Tensor *> inputs) {
  if (!at::GradMode::is_enabled()) return false;
  for (const Tensor *t : inputs)
    if (t->defined() && t->requires_grad()) return true;
  return false;
}

// The adjoint of the scatter gx[idx[o]] += gy[o] over the last `dims` dims: g read at idx (0
// where idx is -1).
Tensor gather_at(const Tensor &g, const Tensor &idx, int64_t dims) {
  const Tensor flat = g.flatten(g.dim() - dims), i = idx.flatten(idx.dim() - dims).to(at::kLong);
  return flat.gather(-1, i.clamp_min(0)).masked_fill(i < 0, 0).reshape_symint(idx.sym_sizes());
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

// ---- RoI pooling -------------------------------------------------------------------------------
using RoiSig = std::tuple<Tensor, Tensor>(const Tensor &, const Tensor &, double, c10::SymInt,
                                          c10::SymInt);
using RoiBackwardSig = Tensor(const Tensor &, const Tensor &, const Tensor &, double, c10::SymInt,
                              c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt);

const c10::TypedOperatorHandle<RoiSig> &roi_op() {
  static const auto h = op<RoiSig>("poolgrad::roi_pool");
  return h;
}
const c10::TypedOperatorHandle<RoiBackwardSig> &roi_backward_op() {
  static const auto h = op<RoiBackwardSig>("poolgrad::_roi_pool_backward");
  return h;
}

struct RoiFn : torch::autograd::Function<RoiFn> {
  static variable_list forward(AutogradContext *ctx, const Tensor &x, const Tensor &rois,
                               double scale, c10::SymInt ph, c10::SymInt pw) {
    at::AutoDispatchBelowADInplaceOrView below;
    auto [y, argmax] = roi_op().call(x, rois, scale, ph, pw);
    ctx->save_for_backward({rois, argmax});
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["pooled_height"] = ph;
    ctx->saved_data["pooled_width"] = pw;
    ctx->saved_data["shape"] = x.sym_sizes();
    ctx->mark_non_differentiable({argmax});
    ctx->set_materialize_grads(false);  // no zero gradient for the argmax (see PoolFn)
    return {y, argmax};
  }
  static variable_list backward(AutogradContext *ctx, variable_list g) {
    if (!g[0].defined()) return variable_list(5);
    const auto saved = ctx->get_saved_variables();
    auto &a = ctx->saved_data;
    const auto shape = a["shape"].toSymIntList();
    variable_list grads(5);
    grads[0] = roi_backward_op().call(g[0], saved[0], saved[1], a["scale"].toDouble(),
                                      a["pooled_height"].toSymInt(), a["pooled_width"].toSymInt(),
                                      shape[0], shape[1], shape[2], shape[3]);
    return grads;
  }
};

std::tuple<Tensor, Tensor> roi_autograd(const Tensor &x, const Tensor &rois, double scale,
                                        c10::SymInt ph, c10::SymInt pw) {
  if (!records({&x})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return roi_op().call(x, rois, scale, ph, pw);
  }
  auto r = RoiFn::apply(x, rois, scale, ph, pw);
  return {r[0], r[1]};
}

struct RoiBackwardFn : torch::autograd::Function<RoiBackwardFn> {
  static Tensor forward(AutogradContext *ctx, const Tensor &gy, const Tensor &rois,
                        const Tensor &argmax, double scale, c10::SymInt ph, c10::SymInt pw,
                        c10::SymInt n, c10::SymInt c, c10::SymInt h, c10::SymInt w) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->save_for_backward({rois, argmax});
    return roi_backward_op().call(gy, rois, argmax, scale, ph, pw, n, c, h, w);
  }
  static variable_list backward(AutogradContext *ctx, variable_list g) {
    const auto saved = ctx->get_saved_variables();
    // Each ROI's feature map, (R, C, H, W), read at its argmax.
    const Tensor planes = g[0].index_select(0, saved[0].select(1, 0).to(at::kLong));
    variable_list grads(10);
    grads[0] = gather_at(planes, saved[1], 2);
    return grads;
  }
};

Tensor roi_backward_autograd(const Tensor &gy, const Tensor &rois, const Tensor &argmax,
                             double scale, c10::SymInt ph, c10::SymInt pw, c10::SymInt n,
                             c10::SymInt c, c10::SymInt h, c10::SymInt w) {
  if (!records({&gy})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return roi_backward_op().call(gy, rois, argmax, scale, ph, pw, n, c, h, w);
  }
  return RoiBackwardFn::apply(gy, rois, argmax, scale, ph, pw, n, c, h, w);
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

// ---- RoIAlign: the backward is linear in the gradient, so its own gradient is the forward
// applied to the incoming one (a double backward torchvision has not).
using RoiAlignSig = Tensor(const Tensor &, const Tensor &, double, c10::SymInt, c10::SymInt,
                           int64_t, bool);
using RoiAlignBackwardSig = Tensor(const Tensor &, const Tensor &, double, c10::SymInt, c10::SymInt,
                                   c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt, int64_t,
                                   bool);

const c10::TypedOperatorHandle<RoiAlignSig> &roi_align_op() {
  static const auto h = op<RoiAlignSig>("poolgrad::roi_align");
  return h;
}
const c10::TypedOperatorHandle<RoiAlignBackwardSig> &roi_align_backward_op() {
  static const auto h = op<RoiAlignBackwardSig>("poolgrad::_roi_align_backward");
  return h;
}

struct RoiAlignFn : torch::autograd::Function<RoiAlignFn> {
  static Tensor forward(AutogradContext *ctx, const Tensor &x, const Tensor &rois, double scale,
                        c10::SymInt ph, c10::SymInt pw, int64_t sampling, bool aligned) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->save_for_backward({rois});
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["pooled_height"] = ph;
    ctx->saved_data["pooled_width"] = pw;
    ctx->saved_data["sampling"] = sampling;
    ctx->saved_data["aligned"] = aligned;
    ctx->saved_data["shape"] = x.sym_sizes();
    return roi_align_op().call(x, rois, scale, ph, pw, sampling, aligned);
  }
  static variable_list backward(AutogradContext *ctx, variable_list g) {
    const auto saved = ctx->get_saved_variables();
    auto &a = ctx->saved_data;
    const auto shape = a["shape"].toSymIntList();
    variable_list grads(7);
    grads[0] = roi_align_backward_op().call(
        g[0], saved[0], a["scale"].toDouble(), a["pooled_height"].toSymInt(),
        a["pooled_width"].toSymInt(), shape[0], shape[1], shape[2], shape[3], a["sampling"].toInt(),
        a["aligned"].toBool());
    return grads;
  }
};

Tensor roi_align_autograd(const Tensor &x, const Tensor &rois, double scale, c10::SymInt ph,
                          c10::SymInt pw, int64_t sampling, bool aligned) {
  if (!records({&x})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return roi_align_op().call(x, rois, scale, ph, pw, sampling, aligned);
  }
  return RoiAlignFn::apply(x, rois, scale, ph, pw, sampling, aligned);
}

struct RoiAlignBackwardFn : torch::autograd::Function<RoiAlignBackwardFn> {
  static Tensor forward(AutogradContext *ctx, const Tensor &gy, const Tensor &rois, double scale,
                        c10::SymInt ph, c10::SymInt pw, c10::SymInt n, c10::SymInt c, c10::SymInt h,
                        c10::SymInt w, int64_t sampling, bool aligned) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->save_for_backward({rois});
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["pooled_height"] = ph;
    ctx->saved_data["pooled_width"] = pw;
    ctx->saved_data["sampling"] = sampling;
    ctx->saved_data["aligned"] = aligned;
    return roi_align_backward_op().call(gy, rois, scale, ph, pw, n, c, h, w, sampling, aligned);
  }
  static variable_list backward(AutogradContext *ctx, variable_list g) {
    const auto saved = ctx->get_saved_variables();
    auto &a = ctx->saved_data;
    variable_list grads(11);
    grads[0] = roi_align_op().call(g[0], saved[0], a["scale"].toDouble(),
                                   a["pooled_height"].toSymInt(), a["pooled_width"].toSymInt(),
                                   a["sampling"].toInt(), a["aligned"].toBool());
    return grads;
  }
};

Tensor roi_align_backward_autograd(const Tensor &gy, const Tensor &rois, double scale,
                                   c10::SymInt ph, c10::SymInt pw, c10::SymInt n, c10::SymInt c,
                                   c10::SymInt h, c10::SymInt w, int64_t sampling, bool aligned) {
  if (!records({&gy})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return roi_align_backward_op().call(gy, rois, scale, ph, pw, n, c, h, w, sampling, aligned);
  }
  return RoiAlignBackwardFn::apply(gy, rois, scale, ph, pw, n, c, h, w, sampling, aligned);
}

}  // namespace

TORCH_LIBRARY_IMPL(poolgrad, Autograd, m) {
  m.impl("max_pool2d_with_indices", &pool_autograd<MaxPool2d>);
  m.impl("max_pool2d_with_indices_backward", &pool_backward_autograd<MaxPool2d>);
  m.impl("max_pool3d_with_indices", &pool_autograd<MaxPool3d>);
  m.impl("max_pool3d_with_indices_backward", &pool_backward_autograd<MaxPool3d>);
  m.impl("max_pool2d_with_mask", &pool_autograd<MaxPoolMask>);
  m.impl("max_pool2d_with_mask_backward", &pool_backward_autograd<MaxPoolMask>);
  m.impl("adaptive_max_pool2d", &adaptive_autograd<Adaptive2d>);
  m.impl("adaptive_max_pool2d_backward", &adaptive_backward_autograd<Adaptive2d>);
  m.impl("adaptive_max_pool3d", &adaptive_autograd<Adaptive3d>);
  m.impl("adaptive_max_pool3d_backward", &adaptive_backward_autograd<Adaptive3d>);
  m.impl("roi_pool", &roi_autograd);
  m.impl("_roi_pool_backward", &roi_backward_autograd);
  m.impl("max_unpool2d", &unpool2d_autograd);
  m.impl("max_unpool2d_backward", &unpool2d_backward_autograd);
  m.impl("max_unpool3d", &unpool3d_autograd);
  m.impl("max_unpool3d_backward", &unpool3d_backward_autograd);
  m.impl("roi_align", &roi_align_autograd);
  m.impl("_roi_align_backward", &roi_align_backward_autograd);
}
