// SPDX-License-Identifier: Apache-2.0
// poolgrad's operators in PyTorch's dispatcher (namespace poolgrad): their schemas, which are those
// of the ATen and torchvision operators they stand in for, and their CPU kernels, which call the
// public C API on the tensors' own memory. Registered from C++ because a Python kernel costs
// tens of microseconds a call (docs/pytorch.md); the autograd formulas are in torch_autograd.cpp,
// the fake (meta) implementations in poolgrad/ops.py. Built against one torch (its C++ ABI): the
// package refuses to load it under another (poolgrad/ops.py says what to do).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl_call.h"
#include "aclnnop/aclnn_ops_cv.h"
#include "aclnnop/aclnn_ops_nn.h"
#include "poolgrad/poolgrad.h"

namespace {

using at::IntArrayRef;
using at::Tensor;

constexpr int kParamInvalid = 161002;  // ACLNN_ERR_PARAM_INVALID
constexpr int64_t kInt32Max = 2147483647;

// Python sees a ValueError reading "[status] message", the text of the package's PoolgradError.
[[noreturn]] void fail(int status, const std::string &message) {
  TORCH_CHECK_VALUE(false, "[", status, "] ", message);
}

aclDataType acl_dtype(at::ScalarType t) {
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

poolgrad_py::Ints ints(IntArrayRef v) {
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
Tensor new_output(IntArrayRef shape, const at::TensorOptions &opts,
                  at::MemoryFormat mf = at::MemoryFormat::Contiguous) {
  Tensor t = at::empty(shape, opts.memory_format(mf));
  if (t.nbytes() >= poolgrad_py::kHugeBytes) poolgrad_py::advise_huge(t.data_ptr(), t.nbytes());
  return t;
}

// The dtype of a float result computed from t: t's own where the operator may take it (float64
// included: the library takes or refuses it per operator, naming the parameter), else float32
// (the library then refuses t's dtype).
at::ScalarType float_dtype(const Tensor &t, bool bf16 = true) {
  const at::ScalarType s = t.scalar_type();
  return (s == at::kFloat || s == at::kHalf || s == at::kDouble || (bf16 && s == at::kBFloat16))
             ? s
             : at::kFloat;
}

// The memory format an output or gradient keeps, as torch's kernels do: channels-last (2-D) or
// channels-last-3d (3-D) when x is in it and not also plainly contiguous.
at::MemoryFormat layout_of(const Tensor &x) {
  if (x.is_contiguous()) return at::MemoryFormat::Contiguous;
  if (x.dim() == 4 && x.is_contiguous(at::MemoryFormat::ChannelsLast))
    return at::MemoryFormat::ChannelsLast;
  if (x.dim() == 5 && x.is_contiguous(at::MemoryFormat::ChannelsLast3d))
    return at::MemoryFormat::ChannelsLast3d;
  return at::MemoryFormat::Contiguous;
}

// Gradients as autograd hands them (often expanded, stride 0) made dense, in the layout they have.
Tensor dense(const Tensor &g) {
  return g.is_contiguous() || g.is_contiguous(at::MemoryFormat::ChannelsLast) ||
                 g.is_contiguous(at::MemoryFormat::ChannelsLast3d)
             ? g
             : g.contiguous();
}

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

std::vector<int64_t> adaptive_shape(const Tensor &x, IntArrayRef size, int spatial) {
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  const int64_t nd = x.dim();
  if ((nd == spatial + 1 || nd == spatial + 2) && size.size() == static_cast<size_t>(spatial))
    for (int i = 0; i < spatial; ++i) shape[nd - spatial + i] = size[i] > 1 ? size[i] : 1;
  return shape;
}

// The 3-D operators take INT32 indices on every product (INT64 is Ascend950's): inside, INT32
// wherever the volume fits them; torch sees int64.
bool volume_fits_int32(const Tensor &x) {
  return (x.dim() == 4 || x.dim() == 5) && x.size(-3) * x.size(-2) * x.size(-1) <= kInt32Max;
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

// ---- max unpooling (ATen's max_unpool2d / max_unpool3d schemas; the backwards are poolgrad's)
// ---- x's shape with its last output_size.size() dims replaced (x's own where it has too few dims,
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

TORCH_LIBRARY(poolgrad, m) {
  m.set_python_module("poolgrad.ops");  // where the fakes are
  for (const OpSchema &op : kOps) m.def(op.schema);
}

TORCH_LIBRARY_IMPL(poolgrad, CPU, m) {
  m.impl("max_pool2d_with_indices", &max_pool2d);
  m.impl("max_pool2d_with_indices_backward", &max_pool2d_backward);
  m.impl("max_pool3d_with_indices", &max_pool3d);
  m.impl("max_pool3d_with_indices_backward", &max_pool3d_backward);
  m.impl("max_pool2d_with_mask", &max_pool2d_with_mask);
  m.impl("max_pool2d_with_mask_backward", &max_pool2d_with_mask_backward);
  m.impl("adaptive_max_pool2d", &adaptive_max_pool2d);
  m.impl("adaptive_max_pool2d_backward", &adaptive_max_pool2d_backward);
  m.impl("adaptive_max_pool3d", &adaptive_max_pool3d);
  m.impl("adaptive_max_pool3d_backward", &adaptive_max_pool3d_backward_cpu);
  m.impl("roi_pool", &roi_pool);
  m.impl("_roi_pool_backward", &roi_pool_backward);
  m.impl("max_unpool2d", &max_unpool2d);
  m.impl("max_unpool2d_backward", &max_unpool2d_backward);
  m.impl("max_unpool3d", &max_unpool3d);
  m.impl("max_unpool3d_backward", &max_unpool3d_backward);
  m.impl("roi_align", &roi_align);
  m.impl("_roi_align_backward", &roi_align_backward);
  m.impl("roi_align_onnx", &roi_align_onnx);
}

TORCH_LIBRARY_IMPL(poolgrad, CompositeExplicitAutograd, m) {
  for (const OpSchema &op : kOps)
    m.impl(op.name, torch::CppFunction::makeFromBoxedFunction<&refuse_device>());
}
