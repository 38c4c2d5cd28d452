// SPDX-License-Identifier: Apache-2.0
// RoI pooling in PyTorch (torchvision's roi_pool / _roi_pool_backward schemas, CANN's geometry):
// CPU kernels calling the C API, and autograd formulas.
#include <torch/library.h>

#include "aclnnop/aclnn_ops_cv.h"
#include "aclnnop/aclnn_ops_nn.h"
#include "torch_call.h"
#include "torch_grad.h"

namespace poolgrad_torch {
namespace {

// ---- RoI pooling (CANN's geometry) -------------------------------------------------------------
std::tuple<Tensor, Tensor> roi_pool(const Tensor &x, const Tensor &rois, double scale,
                                    c10::SymInt ph_, c10::SymInt pw_) {
  const int64_t ph = ph_.expect_int(), pw = pw_.expect_int();
  const std::vector<int64_t> shape{rois.dim() >= 1 ? rois.size(0) : 0, x.dim() >= 2 ? x.size(1) : 0,
                                   ph > 0 ? ph : 0, pw > 0 ? pw : 0};
  Tensor y = new_output(shape, x.options().dtype(float_dtype(x, false)));
  Tensor argmax = new_output(shape, x.options().dtype(at::kInt));
  View vx(x, ACL_FORMAT_ND, "x"), vr(rois, ACL_FORMAT_ND, "rois"), vy(y, ACL_FORMAT_ND, "y"),
      va(argmax, ACL_FORMAT_ND, "argmax");
  const float sc = static_cast<float>(scale);
  run(aclnnRoiPoolingWithArgMaxGetWorkspaceSize, aclnnRoiPoolingWithArgMax, vx.get(), vr.get(), ph,
      pw, sc, sc, vy.get(), va.get());
  return {y, argmax};
}

Tensor roi_pool_backward(const Tensor &gy, const Tensor &rois, const Tensor &argmax, double scale,
                         c10::SymInt ph, c10::SymInt pw, c10::SymInt n, c10::SymInt c,
                         c10::SymInt h, c10::SymInt w) {
  const Tensor g = gy.contiguous();
  Tensor gx = new_output({n.expect_int(), c.expect_int(), h.expect_int(), w.expect_int()},
                         gy.options().dtype(float_dtype(gy, false)));
  View vg(g, ACL_FORMAT_ND, "grad_output"), vgx(gx, ACL_FORMAT_ND, "grad_input"),
      vr(rois, ACL_FORMAT_ND, "rois"), va(argmax, ACL_FORMAT_ND, "argmax");
  run(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize, aclnnRoiPoolingGradWithArgMax, vg.get(),
      vgx.get(), vr.get(), va.get(), ph.expect_int(), pw.expect_int(), scale);
  return gx;
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

}  // namespace
}  // namespace poolgrad_torch

using namespace poolgrad_torch;

TORCH_LIBRARY_IMPL(poolgrad, CPU, m) {
  m.impl("roi_pool", &roi_pool);
  m.impl("_roi_pool_backward", &roi_pool_backward);
}

TORCH_LIBRARY_IMPL(poolgrad, Autograd, m) {
  m.impl("roi_pool", &roi_autograd);
  m.impl("_roi_pool_backward", &roi_backward_autograd);
}
