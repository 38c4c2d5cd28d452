// SPDX-License-Identifier: Apache-2.0
// RoIAlign in PyTorch (torchvision's roi_align / _roi_align_backward schemas; roi_align_onnx,
// ONNX's RoiAlign, poolgrad's own with no backward): CPU kernels calling the C API, and autograd
// formulas.
#include <torch/library.h>

#include "aclnnop/aclnn_ops_cv.h"
#include "aclnnop/aclnn_ops_nn.h"
#include "torch_call.h"
#include "torch_grad.h"

namespace poolgrad_torch {
namespace {

// ---- RoIAlign (torchvision's roi_align / _roi_align_backward schemas; the ONNX op poolgrad's) ---
// torchvision spells the adaptive sampling -1, CANN 0: any value <= 0 is adaptive in both.
int64_t sampling_of(int64_t sampling_ratio) {
  return sampling_ratio > 0 ? sampling_ratio : 0;
}

Tensor roi_align(const Tensor &x, const Tensor &rois, double scale, c10::SymInt ph_,
                 c10::SymInt pw_, int64_t sampling_ratio, bool aligned) {
  const int64_t ph = ph_.expect_int(), pw = pw_.expect_int();
  Tensor y = new_output({rois.dim() >= 1 ? rois.size(0) : 0, x.dim() >= 2 ? x.size(1) : 0,
                         ph > 0 ? ph : 0, pw > 0 ? pw : 0},
                        x.options());
  View vx(x, ACL_FORMAT_NCHW, "input"), vr(rois, ACL_FORMAT_ND, "rois"),
      vy(y, ACL_FORMAT_NCHW, "out");
  run(aclnnRoiAlignV2GetWorkspaceSize, aclnnRoiAlignV2, vx.get(), vr.get(), ph, pw,
      static_cast<float>(scale), sampling_of(sampling_ratio), aligned, vy.get());
  return y;
}

Tensor roi_align_backward(const Tensor &gy, const Tensor &rois, double scale, c10::SymInt ph,
                          c10::SymInt pw, c10::SymInt n, c10::SymInt c, c10::SymInt h,
                          c10::SymInt w, int64_t sampling_ratio, bool aligned) {
  const std::vector<int64_t> shape{n.expect_int(), c.expect_int(), h.expect_int(), w.expect_int()};
  Tensor gx = new_output(shape, gy.options());
  View vg(gy, ACL_FORMAT_NCHW, "grad"), vr(rois, ACL_FORMAT_ND, "rois"),
      vgx(gx, ACL_FORMAT_NCHW, "grad_input");
  auto is = ints(shape);
  run(aclnnRoiAlignV2BackwardGetWorkspaceSize, aclnnRoiAlignV2Backward, vg.get(), vr.get(), is.a,
      ph.expect_int(), pw.expect_int(), static_cast<float>(scale), sampling_of(sampling_ratio),
      aligned, vgx.get());
  return gx;
}

Tensor roi_align_onnx(const Tensor &x, const Tensor &rois, const Tensor &batch_indices,
                      c10::string_view mode, c10::SymInt oh_, c10::SymInt ow_,
                      int64_t sampling_ratio, double scale) {
  const int64_t oh = oh_.expect_int(), ow = ow_.expect_int();
  if (oh > kInt32Max || ow > kInt32Max || sampling_ratio > kInt32Max || sampling_ratio < -kInt32Max)
    fail(kParamInvalid, "roi_align_onnx: output sizes and sampling_ratio must fit in int32");
  Tensor y = new_output({rois.dim() >= 1 ? rois.size(0) : 0, x.dim() >= 2 ? x.size(1) : 0,
                         oh > 0 ? oh : 0, ow > 0 ? ow : 0},
                        x.options());
  View vx(x, ACL_FORMAT_NCHW, "input"), vr(rois, ACL_FORMAT_ND, "rois"),
      vb(batch_indices, ACL_FORMAT_ND, "batch_indices"), vy(y, ACL_FORMAT_NCHW, "out");
  const std::string m(mode);
  run(aclnnRoiAlignGetWorkspaceSize, aclnnRoiAlign, vx.get(), vr.get(), vb.get(), m.c_str(),
      static_cast<int>(oh), static_cast<int>(ow), static_cast<int>(sampling_ratio),
      static_cast<float>(scale), vy.get());
  return y;
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
}  // namespace poolgrad_torch

using namespace poolgrad_torch;

TORCH_LIBRARY_IMPL(poolgrad, CPU, m) {
  m.impl("roi_align", &roi_align);
  m.impl("_roi_align_backward", &roi_align_backward);
  m.impl("roi_align_onnx", &roi_align_onnx);
}

TORCH_LIBRARY_IMPL(poolgrad, Autograd, m) {
  m.impl("roi_align", &roi_align_autograd);
  m.impl("_roi_align_backward", &roi_align_backward_autograd);
}
