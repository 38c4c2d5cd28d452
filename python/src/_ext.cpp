// SPDX-License-Identifier: Apache-2.0
// poolgrad's Python extension: a thin nanobind layer over the public C API. Arrays arrive through
// DLPack (NumPy, PyTorch) with their own strides and are passed to aclCreateTensor as views, so
// nothing is copied. Each call returns (status, message); the Python side raises PoolgradError.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "acl_call.h"
#include "aclnnop/aclnn_adaptive_max_pool2d.h"
#include "aclnnop/aclnn_adaptive_max_pool2d_backward.h"
#include "aclnnop/aclnn_adaptive_max_pool3d.h"
#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "aclnnop/aclnn_max_unpool2d.h"
#include "aclnnop/aclnn_max_unpool2d_backward.h"
#include "aclnnop/aclnn_max_unpool3d.h"
#include "aclnnop/aclnn_max_unpool3d_backward.h"
#include "aclnnop/aclnn_roi_align.h"
#include "aclnnop/aclnn_roi_align_v2.h"
#include "aclnnop/aclnn_roi_align_v2_backward.h"
#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "poolgrad/poolgrad.h"

namespace nb = nanobind;

namespace {

// Read-only arrays are accepted: inputs are never written, outputs are made by the package.
using Array = nb::ndarray<nb::ro, nb::device::cpu>;
using Result = std::pair<int, std::string>;

std::string take_msg() {
  return poolgrad_py::recent_error();
}

bool acl_dtype(const Array &a, aclDataType *out) {
  const nb::dlpack::dtype d = a.dtype();
  if (d.lanes != 1) return false;
  if (d == nb::dtype<float>())
    *out = ACL_FLOAT;
  else if (d.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Float) && d.bits == 16)
    *out = ACL_FLOAT16;
  else if (d.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat) && d.bits == 16)
    *out = ACL_BF16;
  else if (d == nb::dtype<int32_t>())
    *out = ACL_INT32;
  else if (d == nb::dtype<int64_t>())
    *out = ACL_INT64;
  else if (d == nb::dtype<double>())
    *out = ACL_DOUBLE;
  // ml_dtypes bfloat16 as the package passes it (uint16 arrays of the caller's own are refused
  // before they get here).
  else if (d == nb::dtype<uint16_t>())
    *out = ACL_BF16;
  else if (d == nb::dtype<int16_t>())
    *out = ACL_INT16;
  else if (d == nb::dtype<int8_t>())
    *out = ACL_INT8;
  else if (d == nb::dtype<uint8_t>())
    *out = ACL_UINT8;
  else if (d == nb::dtype<bool>())
    *out = ACL_BOOL;
  else
    return false;
  return true;
}

// An aclTensor viewing the array's memory (acl_call.h), or the reason there is none.
struct Tensor {
  aclTensor *t = nullptr;
  std::string error;
  Tensor(const Array &a, aclFormat fmt, const char *name) {
    aclDataType dt;
    if (!acl_dtype(a, &dt)) {
      error = std::string(name) + " has a dtype poolgrad does not know";
      return;
    }
    const size_t nd = a.ndim();
    std::vector<int64_t> dims(nd), strides(nd);
    for (size_t i = 0; i < nd; ++i) {
      dims[i] = static_cast<int64_t>(a.shape(i));
      strides[i] = static_cast<int64_t>(a.stride(i));
    }
    t = poolgrad_py::acl_view(const_cast<void *>(a.data()), dt, static_cast<int64_t>(a.itemsize()),
                              dims.data(), strides.data(), nd, fmt);
    if (!t) error = std::string(name) + ": " + take_msg();
  }
  ~Tensor() {
    if (t) aclDestroyTensor(t);
  }
};

using poolgrad_py::Ints;

using Phase2 = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

// What phase 1 produced: a status (and message), or an executor and its workspace size.
struct Phase1 {
  aclnnStatus st = ACLNN_SUCCESS;
  std::string msg;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  Phase2 phase2 = nullptr;
};

// Phase 1 with the GIL released: call(ws, ex) is the operator's GetWorkspaceSize, phase2 its second
// phase (run by finish or a Prepared).
template <class Call>
Phase1 phase1(Call call, Phase2 phase2) {
  Phase1 r;
  {
    nb::gil_scoped_release release;
    r.st = call(&r.ws, &r.ex);
  }
  if (r.st != ACLNN_SUCCESS) r.msg = take_msg();
  r.phase2 = phase2;
  return r;
}

// Runs phase 2 once on a workspace of the size phase 1 asked for.
Result finish(const Phase1 &p1) {
  if (p1.st != ACLNN_SUCCESS) return {p1.st, p1.msg};
  poolgrad_py::Workspace workspace(p1.ws);
  aclnnStatus st;
  {
    nb::gil_scoped_release release;
    st = p1.phase2(workspace.data(), p1.ws, p1.ex, nullptr);
  }
  return {st, st == ACLNN_SUCCESS ? std::string() : take_msg()};
}

// A repeatable executor with its workspace and the arrays it reads and writes (kept alive): phase
// 2 alone, as often as asked. The benchmark times kernels with it.
class Prepared {
 public:
  Prepared(const Phase1 &p1, std::vector<Array> keep) : p1_(p1), keep_(std::move(keep)) {
    if (p1_.st != ACLNN_SUCCESS) throw std::runtime_error(p1_.msg);
    if (aclSetAclOpExecutorRepeatable(p1_.ex) != ACLNN_SUCCESS)
      throw std::runtime_error(take_msg());
    workspace_.resize(p1_.ws);
  }
  ~Prepared() {
    if (p1_.ex) aclDestroyAclOpExecutor(p1_.ex);
  }
  Prepared(const Prepared &) = delete;
  Prepared &operator=(const Prepared &) = delete;
  Result run() {
    aclnnStatus st;
    {
      nb::gil_scoped_release release;
      st = p1_.phase2(workspace_.data(), p1_.ws, p1_.ex, nullptr);
    }
    return {st, st == ACLNN_SUCCESS ? std::string() : take_msg()};
  }
  std::string kernel() const {
    const char *k = poolgradGetKernelName(p1_.ex);
    return k ? k : "";
  }
  uint64_t workspace_size() const { return p1_.ws; }

 private:
  Phase1 p1_;
  std::vector<Array> keep_;
  poolgrad_py::Workspace workspace_;
};

#define POOLGRAD_TENSORS_OK(...)          \
  for (const Tensor *t__ : {__VA_ARGS__}) \
    if (!t__->t) return phase1_error(t__->error);

Phase1 phase1_error(const std::string &msg) {
  Phase1 r;
  r.st = ACLNN_ERR_PARAM_INVALID;
  r.msg = msg;
  return r;
}

Phase1 max_pool2d_fwd_p1(const Array &x, const Array &out, const Array &idx, std::vector<int64_t> k,
                         std::vector<int64_t> s, std::vector<int64_t> p, std::vector<int64_t> d,
                         bool ceil) {
  Tensor tx(x, ACL_FORMAT_NCHW, "x"), to(out, ACL_FORMAT_NCHW, "out"),
      ti(idx, ACL_FORMAT_NCHW, "indices");
  POOLGRAD_TENSORS_OK(&tx, &to, &ti);
  Ints kk(k), ss(s), pp(p), dd(d);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnMaxPool2dWithIndicesGetWorkspaceSize(tx.t, kk.a, ss.a, pp.a, dd.a, ceil, to.t,
                                                         ti.t, ws, ex);
      },
      aclnnMaxPool2dWithIndices);
}

Phase1 max_pool2d_bwd_p1(const Array &gy, const Array &x, const Array &idx, const Array &gx,
                         std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
                         std::vector<int64_t> d, bool ceil) {
  Tensor tg(gy, ACL_FORMAT_NCHW, "grad_output"), tx(x, ACL_FORMAT_NCHW, "x"),
      ti(idx, ACL_FORMAT_NCHW, "indices"), tgx(gx, ACL_FORMAT_NCHW, "grad_input");
  POOLGRAD_TENSORS_OK(&tg, &tx, &ti, &tgx);
  Ints kk(k), ss(s), pp(p), dd(d);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(tg.t, tx.t, ti.t, kk.a, ss.a, pp.a,
                                                                 dd.a, ceil, tgx.t, ws, ex);
      },
      aclnnMaxPool2dWithIndicesBackward);
}

Phase1 mask_fwd_p1(const Array &x, const Array &out, const Array &mask, std::vector<int64_t> k,
                   std::vector<int64_t> s, std::vector<int64_t> p, std::vector<int64_t> d,
                   bool ceil) {
  Tensor tx(x, ACL_FORMAT_NCHW, "x"), to(out, ACL_FORMAT_NCHW, "out"),
      tm(mask, ACL_FORMAT_NCHW, "mask");
  POOLGRAD_TENSORS_OK(&tx, &to, &tm);
  Ints kk(k), ss(s), pp(p), dd(d);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnMaxPool2dWithMaskGetWorkspaceSize(tx.t, kk.a, ss.a, pp.a, dd.a, ceil, to.t,
                                                      tm.t, ws, ex);
      },
      aclnnMaxPool2dWithMask);
}

Phase1 mask_bwd_p1(const Array &gy, const Array &x, const Array &mask, const Array &gx,
                   std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
                   std::vector<int64_t> d, bool ceil) {
  Tensor tg(gy, ACL_FORMAT_NCHW, "grad_output"), tx(x, ACL_FORMAT_NCHW, "x"),
      tm(mask, ACL_FORMAT_NCHW, "mask"), tgx(gx, ACL_FORMAT_NCHW, "grad_input");
  POOLGRAD_TENSORS_OK(&tg, &tx, &tm, &tgx);
  Ints kk(k), ss(s), pp(p), dd(d);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize(tg.t, tx.t, tm.t, kk.a, ss.a, pp.a,
                                                              dd.a, ceil, tgx.t, ws, ex);
      },
      aclnnMaxPool2dWithMaskBackward);
}

Phase1 adaptive_fwd_p1(const Array &x, const Array &out, const Array &idx,
                       std::vector<int64_t> size) {
  const aclFormat fmt = ACL_FORMAT_NCHW;
  Tensor tx(x, fmt, "x"), to(out, fmt, "out"), ti(idx, fmt, "indices");
  POOLGRAD_TENSORS_OK(&tx, &to, &ti);
  Ints os(size);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnAdaptiveMaxPool2dGetWorkspaceSize(tx.t, os.a, to.t, ti.t, ws, ex);
      },
      aclnnAdaptiveMaxPool2d);
}

Phase1 adaptive_bwd_p1(const Array &gy, const Array &x, const Array &idx, const Array &gx) {
  const aclFormat fmt = ACL_FORMAT_NCHW;
  Tensor tg(gy, fmt, "grad_output"), tx(x, fmt, "x"), ti(idx, fmt, "indices"),
      tgx(gx, fmt, "grad_input");
  POOLGRAD_TENSORS_OK(&tg, &tx, &ti, &tgx);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnAdaptiveMaxPool2dBackwardGetWorkspaceSize(tg.t, tx.t, ti.t, tgx.t, ws, ex);
      },
      aclnnAdaptiveMaxPool2dBackward);
}

Phase1 max_pool3d_fwd_p1(const Array &x, const Array &out, const Array &idx, std::vector<int64_t> k,
                         std::vector<int64_t> s, std::vector<int64_t> p, std::vector<int64_t> d,
                         bool ceil) {
  const aclFormat fmt = ACL_FORMAT_NCDHW;
  Tensor tx(x, fmt, "x"), to(out, fmt, "out"), ti(idx, fmt, "indices");
  POOLGRAD_TENSORS_OK(&tx, &to, &ti);
  Ints kk(k), ss(s), pp(p), dd(d);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnMaxPool3dWithArgmaxGetWorkspaceSize(tx.t, kk.a, ss.a, pp.a, dd.a, ceil, to.t,
                                                        ti.t, ws, ex);
      },
      aclnnMaxPool3dWithArgmax);
}

Phase1 max_pool3d_bwd_p1(const Array &gy, const Array &x, const Array &idx, const Array &gx,
                         std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
                         std::vector<int64_t> d, bool ceil) {
  const aclFormat fmt = ACL_FORMAT_NCDHW;
  Tensor tg(gy, fmt, "grad_output"), tx(x, fmt, "x"), ti(idx, fmt, "indices"),
      tgx(gx, fmt, "grad_input");
  POOLGRAD_TENSORS_OK(&tg, &tx, &ti, &tgx);
  Ints kk(k), ss(s), pp(p), dd(d);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(tg.t, tx.t, ti.t, kk.a, ss.a, pp.a,
                                                                dd.a, ceil, tgx.t, ws, ex);
      },
      aclnnMaxPool3dWithArgmaxBackward);
}

Phase1 adaptive3d_fwd_p1(const Array &x, const Array &out, const Array &idx,
                         std::vector<int64_t> size) {
  const aclFormat fmt = ACL_FORMAT_NCDHW;
  Tensor tx(x, fmt, "x"), to(out, fmt, "out"), ti(idx, fmt, "indices");
  POOLGRAD_TENSORS_OK(&tx, &to, &ti);
  Ints os(size);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnAdaptiveMaxPool3dGetWorkspaceSize(tx.t, os.a, to.t, ti.t, ws, ex);
      },
      aclnnAdaptiveMaxPool3d);
}

// MaxUnpool: a 2-D call when stride is empty (the 2-D APIs take none), else the 3-D APIs.
Phase1 max_unpool_fwd_p1(const Array &x, const Array &idx, const Array &out,
                         std::vector<int64_t> size, std::vector<int64_t> stride,
                         std::vector<int64_t> padding) {
  Tensor tx(x, ACL_FORMAT_ND, "x"), ti(idx, ACL_FORMAT_ND, "indices"),
      to(out, ACL_FORMAT_ND, "out");
  POOLGRAD_TENSORS_OK(&tx, &ti, &to);
  Ints os(size), ss(stride), pp(padding);
  if (stride.empty())
    return phase1(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnMaxUnpool2dGetWorkspaceSize(tx.t, ti.t, os.a, to.t, ws, ex);
        },
        aclnnMaxUnpool2d);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnMaxUnpool3dGetWorkspaceSize(tx.t, ti.t, os.a, ss.a, pp.a, to.t, ws, ex);
      },
      aclnnMaxUnpool3d);
}

Phase1 max_unpool_bwd_p1(const Array &gy, const Array &x, const Array &idx, const Array &gx,
                         std::vector<int64_t> size, std::vector<int64_t> stride,
                         std::vector<int64_t> padding) {
  Tensor tg(gy, ACL_FORMAT_ND, "grad_output"), tx(x, ACL_FORMAT_ND, "x"),
      ti(idx, ACL_FORMAT_ND, "indices"), to(gx, ACL_FORMAT_ND, "grad_input");
  POOLGRAD_TENSORS_OK(&tg, &tx, &ti, &to);
  Ints os(size), ss(stride), pp(padding);
  if (stride.empty())
    return phase1(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnMaxUnpool2dBackwardGetWorkspaceSize(tg.t, tx.t, ti.t, os.a, to.t, ws, ex);
        },
        aclnnMaxUnpool2dBackward);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnMaxUnpool3dBackwardGetWorkspaceSize(tg.t, tx.t, ti.t, os.a, ss.a, pp.a, to.t,
                                                        ws, ex);
      },
      aclnnMaxUnpool3dBackward);
}

Phase1 adaptive3d_bwd_p1(const Array &gy, const Array &x, const Array &idx, const Array &gx) {
  const aclFormat fmt = ACL_FORMAT_NCDHW;
  Tensor tg(gy, fmt, "grad_output"), tx(x, fmt, "x"), ti(idx, fmt, "indices"),
      tgx(gx, fmt, "grad_input");
  POOLGRAD_TENSORS_OK(&tg, &tx, &ti, &tgx);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(tg.t, tx.t, ti.t, tgx.t, ws, ex);
      },
      aclnnAdaptiveMaxPool3dBackward);
}

Phase1 roi_fwd_p1(const Array &x, const Array &rois, const Array &y, const Array &argmax,
                  int64_t ph, int64_t pw, float sh, float sw) {
  Tensor tx(x, ACL_FORMAT_ND, "x"), tr(rois, ACL_FORMAT_ND, "rois"), ty(y, ACL_FORMAT_ND, "y"),
      ta(argmax, ACL_FORMAT_ND, "argmax");
  POOLGRAD_TENSORS_OK(&tx, &tr, &ty, &ta);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnRoiPoolingWithArgMaxGetWorkspaceSize(tx.t, tr.t, ph, pw, sh, sw, ty.t, ta.t, ws,
                                                         ex);
      },
      aclnnRoiPoolingWithArgMax);
}

Phase1 roi_bwd_p1(const Array &gy, const Array &gx, const Array &rois, const Array &argmax,
                  int64_t ph, int64_t pw, double scale) {
  Tensor tg(gy, ACL_FORMAT_ND, "grad_output"), tgx(gx, ACL_FORMAT_ND, "grad_input"),
      tr(rois, ACL_FORMAT_ND, "rois"), ta(argmax, ACL_FORMAT_ND, "argmax");
  POOLGRAD_TENSORS_OK(&tg, &tgx, &tr, &ta);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(tg.t, tgx.t, tr.t, ta.t, ph, pw, scale,
                                                             ws, ex);
      },
      aclnnRoiPoolingGradWithArgMax);
}

// RoIAlign: V2 (boxes with the batch index first) and its backward; the ONNX op (mode "avg" or
// "max", batch indices apart).
Phase1 roi_align_fwd_p1(const Array &x, const Array &boxes, const Array &y, int64_t ph, int64_t pw,
                        float scale, int64_t sampling, bool aligned) {
  Tensor tx(x, ACL_FORMAT_NCHW, "x"), tb(boxes, ACL_FORMAT_ND, "boxes"),
      ty(y, ACL_FORMAT_NCHW, "out");
  POOLGRAD_TENSORS_OK(&tx, &tb, &ty);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnRoiAlignV2GetWorkspaceSize(tx.t, tb.t, ph, pw, scale, sampling, aligned, ty.t,
                                               ws, ex);
      },
      aclnnRoiAlignV2);
}

Phase1 roi_align_bwd_p1(const Array &gy, const Array &boxes, const Array &gx, int64_t ph,
                        int64_t pw, float scale, int64_t sampling, bool aligned) {
  Tensor tg(gy, ACL_FORMAT_NCHW, "grad_output"), tb(boxes, ACL_FORMAT_ND, "boxes"),
      tgx(gx, ACL_FORMAT_NCHW, "grad_input");
  POOLGRAD_TENSORS_OK(&tg, &tb, &tgx);
  std::vector<int64_t> shape(gx.ndim());
  for (size_t i = 0; i < gx.ndim(); ++i) shape[i] = static_cast<int64_t>(gx.shape(i));
  Ints is(shape);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnRoiAlignV2BackwardGetWorkspaceSize(tg.t, tb.t, is.a, ph, pw, scale, sampling,
                                                       aligned, tgx.t, ws, ex);
      },
      aclnnRoiAlignV2Backward);
}

Phase1 roi_align_onnx_p1(const Array &x, const Array &rois, const Array &batch, const Array &y,
                         const std::string &mode, int oh, int ow, int sampling, float scale) {
  Tensor tx(x, ACL_FORMAT_NCHW, "x"), tr(rois, ACL_FORMAT_ND, "rois"),
      ti(batch, ACL_FORMAT_ND, "batch_indices"), ty(y, ACL_FORMAT_NCHW, "out");
  POOLGRAD_TENSORS_OK(&tx, &tr, &ti, &ty);
  return phase1(
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnRoiAlignGetWorkspaceSize(tx.t, tr.t, ti.t, mode.c_str(), oh, ow, sampling,
                                             scale, ty.t, ws, ex);
      },
      aclnnRoiAlign);
}

}  // namespace

NB_MODULE(_ext, m) {
  m.doc() = "poolgrad's C API for Python (internal: use the poolgrad package)";
  // One call (phase 1 + phase 2) each, returning (status, message).
  m.def("max_pool2d_fwd",
        [](const Array &x, const Array &out, const Array &idx, std::vector<int64_t> k,
           std::vector<int64_t> s, std::vector<int64_t> p, std::vector<int64_t> d,
           bool ceil) { return finish(max_pool2d_fwd_p1(x, out, idx, k, s, p, d, ceil)); });
  m.def("max_pool2d_bwd", [](const Array &gy, const Array &x, const Array &idx, const Array &gx,
                             std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
                             std::vector<int64_t> d, bool ceil) {
    return finish(max_pool2d_bwd_p1(gy, x, idx, gx, k, s, p, d, ceil));
  });
  m.def("roi_fwd", [](const Array &x, const Array &rois, const Array &y, const Array &argmax,
                      int64_t ph, int64_t pw, float sh,
                      float sw) { return finish(roi_fwd_p1(x, rois, y, argmax, ph, pw, sh, sw)); });
  m.def("roi_bwd", [](const Array &gy, const Array &gx, const Array &rois, const Array &argmax,
                      int64_t ph, int64_t pw, double scale) {
    return finish(roi_bwd_p1(gy, gx, rois, argmax, ph, pw, scale));
  });
  m.def("roi_align_fwd", [](const Array &x, const Array &boxes, const Array &y, int64_t ph,
                            int64_t pw, float scale, int64_t sampling, bool aligned) {
    return finish(roi_align_fwd_p1(x, boxes, y, ph, pw, scale, sampling, aligned));
  });
  m.def("roi_align_bwd", [](const Array &gy, const Array &boxes, const Array &gx, int64_t ph,
                            int64_t pw, float scale, int64_t sampling, bool aligned) {
    return finish(roi_align_bwd_p1(gy, boxes, gx, ph, pw, scale, sampling, aligned));
  });
  m.def("roi_align_onnx", [](const Array &x, const Array &rois, const Array &batch, const Array &y,
                             const std::string &mode, int oh, int ow, int sampling, float scale) {
    return finish(roi_align_onnx_p1(x, rois, batch, y, mode, oh, ow, sampling, scale));
  });
  m.def("mask_fwd", [](const Array &x, const Array &out, const Array &mask, std::vector<int64_t> k,
                       std::vector<int64_t> s, std::vector<int64_t> p, std::vector<int64_t> d,
                       bool ceil) { return finish(mask_fwd_p1(x, out, mask, k, s, p, d, ceil)); });
  m.def("mask_bwd", [](const Array &gy, const Array &x, const Array &mask, const Array &gx,
                       std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
                       std::vector<int64_t> d, bool ceil) {
    return finish(mask_bwd_p1(gy, x, mask, gx, k, s, p, d, ceil));
  });
  m.def("adaptive_fwd",
        [](const Array &x, const Array &out, const Array &idx, std::vector<int64_t> size) {
          return finish(adaptive_fwd_p1(x, out, idx, size));
        });
  m.def("adaptive_bwd", [](const Array &gy, const Array &x, const Array &idx, const Array &gx) {
    return finish(adaptive_bwd_p1(gy, x, idx, gx));
  });
  m.def("max_pool3d_fwd",
        [](const Array &x, const Array &out, const Array &idx, std::vector<int64_t> k,
           std::vector<int64_t> s, std::vector<int64_t> p, std::vector<int64_t> d,
           bool ceil) { return finish(max_pool3d_fwd_p1(x, out, idx, k, s, p, d, ceil)); });
  m.def("max_pool3d_bwd", [](const Array &gy, const Array &x, const Array &idx, const Array &gx,
                             std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
                             std::vector<int64_t> d, bool ceil) {
    return finish(max_pool3d_bwd_p1(gy, x, idx, gx, k, s, p, d, ceil));
  });
  m.def("max_unpool_fwd",
        [](const Array &x, const Array &idx, const Array &out, std::vector<int64_t> size,
           std::vector<int64_t> stride, std::vector<int64_t> padding) {
          return finish(max_unpool_fwd_p1(x, idx, out, size, stride, padding));
        });
  m.def("max_unpool_bwd",
        [](const Array &gy, const Array &x, const Array &idx, const Array &gx,
           std::vector<int64_t> size, std::vector<int64_t> stride, std::vector<int64_t> padding) {
          return finish(max_unpool_bwd_p1(gy, x, idx, gx, size, stride, padding));
        });
  m.def("prepare_max_unpool_fwd",
        [](const Array &x, const Array &idx, const Array &out, std::vector<int64_t> size,
           std::vector<int64_t> stride, std::vector<int64_t> padding) {
          return new Prepared(max_unpool_fwd_p1(x, idx, out, size, stride, padding), {x, idx, out});
        });
  m.def("prepare_max_unpool_bwd", [](const Array &gy, const Array &x, const Array &idx,
                                     const Array &gx, std::vector<int64_t> size,
                                     std::vector<int64_t> stride, std::vector<int64_t> padding) {
    return new Prepared(max_unpool_bwd_p1(gy, x, idx, gx, size, stride, padding), {gy, x, idx, gx});
  });
  m.def("adaptive3d_fwd",
        [](const Array &x, const Array &out, const Array &idx, std::vector<int64_t> size) {
          return finish(adaptive3d_fwd_p1(x, out, idx, size));
        });
  m.def("adaptive3d_bwd", [](const Array &gy, const Array &x, const Array &idx, const Array &gx) {
    return finish(adaptive3d_bwd_p1(gy, x, idx, gx));
  });
  // The product profile phase 1 behaves as (what POOLGRAD_SOC selects at aclInit).
  m.def("set_product", [](const std::string &soc) -> Result {
    const char *old = std::getenv("POOLGRAD_SOC");
    const std::string keep = old ? old : "";
    setenv("POOLGRAD_SOC", soc.c_str(), 1);
    const aclError st = aclInit(nullptr);
    const std::string msg = st == ACL_SUCCESS ? std::string() : take_msg();
    if (st == ACL_SUCCESS) aclFinalize();
    if (old)
      setenv("POOLGRAD_SOC", keep.c_str(), 1);
    else
      unsetenv("POOLGRAD_SOC");
    return {st, msg};
  });
  // The same calls prepared once (phase 1, a repeatable executor) and run as often as asked.
  nb::class_<Prepared>(m, "Prepared")
      .def("run", &Prepared::run)
      .def_prop_ro("kernel", &Prepared::kernel)
      .def_prop_ro("workspace_size", &Prepared::workspace_size);
  m.def("prepare_max_pool2d_fwd",
        [](const Array &x, const Array &out, const Array &idx, std::vector<int64_t> k,
           std::vector<int64_t> s, std::vector<int64_t> p, std::vector<int64_t> d, bool ceil) {
          return new Prepared(max_pool2d_fwd_p1(x, out, idx, k, s, p, d, ceil), {x, out, idx});
        });
  m.def(
      "prepare_max_pool2d_bwd",
      [](const Array &gy, const Array &x, const Array &idx, const Array &gx, std::vector<int64_t> k,
         std::vector<int64_t> s, std::vector<int64_t> p, std::vector<int64_t> d, bool ceil) {
        return new Prepared(max_pool2d_bwd_p1(gy, x, idx, gx, k, s, p, d, ceil), {gy, x, idx, gx});
      });
  m.def("prepare_mask_fwd",
        [](const Array &x, const Array &out, const Array &mask, std::vector<int64_t> k,
           std::vector<int64_t> s, std::vector<int64_t> p, std::vector<int64_t> d, bool ceil) {
          return new Prepared(mask_fwd_p1(x, out, mask, k, s, p, d, ceil), {x, out, mask});
        });
  m.def("prepare_mask_bwd", [](const Array &gy, const Array &x, const Array &mask, const Array &gx,
                               std::vector<int64_t> k, std::vector<int64_t> s,
                               std::vector<int64_t> p, std::vector<int64_t> d, bool ceil) {
    return new Prepared(mask_bwd_p1(gy, x, mask, gx, k, s, p, d, ceil), {gy, x, mask, gx});
  });
  m.def("prepare_adaptive_fwd",
        [](const Array &x, const Array &out, const Array &idx, std::vector<int64_t> size) {
          return new Prepared(adaptive_fwd_p1(x, out, idx, size), {x, out, idx});
        });
  m.def("prepare_adaptive_bwd",
        [](const Array &gy, const Array &x, const Array &idx, const Array &gx) {
          return new Prepared(adaptive_bwd_p1(gy, x, idx, gx), {gy, x, idx, gx});
        });
  m.def("prepare_max_pool3d_fwd",
        [](const Array &x, const Array &out, const Array &idx, std::vector<int64_t> k,
           std::vector<int64_t> s, std::vector<int64_t> p, std::vector<int64_t> d, bool ceil) {
          return new Prepared(max_pool3d_fwd_p1(x, out, idx, k, s, p, d, ceil), {x, out, idx});
        });
  m.def(
      "prepare_max_pool3d_bwd",
      [](const Array &gy, const Array &x, const Array &idx, const Array &gx, std::vector<int64_t> k,
         std::vector<int64_t> s, std::vector<int64_t> p, std::vector<int64_t> d, bool ceil) {
        return new Prepared(max_pool3d_bwd_p1(gy, x, idx, gx, k, s, p, d, ceil), {gy, x, idx, gx});
      });
  m.def("prepare_adaptive3d_fwd",
        [](const Array &x, const Array &out, const Array &idx, std::vector<int64_t> size) {
          return new Prepared(adaptive3d_fwd_p1(x, out, idx, size), {x, out, idx});
        });
  m.def("prepare_adaptive3d_bwd",
        [](const Array &gy, const Array &x, const Array &idx, const Array &gx) {
          return new Prepared(adaptive3d_bwd_p1(gy, x, idx, gx), {gy, x, idx, gx});
        });
  m.def("prepare_roi_align_fwd", [](const Array &x, const Array &boxes, const Array &y, int64_t ph,
                                    int64_t pw, float scale, int64_t sampling, bool aligned) {
    return new Prepared(roi_align_fwd_p1(x, boxes, y, ph, pw, scale, sampling, aligned),
                        {x, boxes, y});
  });
  m.def("prepare_roi_align_bwd",
        [](const Array &gy, const Array &boxes, const Array &gx, int64_t ph, int64_t pw,
           float scale, int64_t sampling, bool aligned) {
          return new Prepared(roi_align_bwd_p1(gy, boxes, gx, ph, pw, scale, sampling, aligned),
                              {gy, boxes, gx});
        });
  m.def("prepare_roi_fwd", [](const Array &x, const Array &rois, const Array &y,
                              const Array &argmax, int64_t ph, int64_t pw, float sh, float sw) {
    return new Prepared(roi_fwd_p1(x, rois, y, argmax, ph, pw, sh, sw), {x, rois, y, argmax});
  });
  m.def("prepare_roi_bwd", [](const Array &gy, const Array &gx, const Array &rois,
                              const Array &argmax, int64_t ph, int64_t pw, double scale) {
    return new Prepared(roi_bwd_p1(gy, gx, rois, argmax, ph, pw, scale), {gy, gx, rois, argmax});
  });
  m.def("out_size", [](int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
    return poolgradPoolOutputSize(in, k, s, p, d, ceil);
  });
  // Huge pages for a new output (acl_call.h); the package asks from huge_bytes() up.
  m.def("advise_huge",
        [](const Array &a) { poolgrad_py::advise_huge(const_cast<void *>(a.data()), a.nbytes()); });
  m.def("huge_bytes", []() { return poolgrad_py::kHugeBytes; });
  m.def("set_num_threads", [](int n) { poolgradSetNumThreads(n); });
  m.def("get_num_threads", []() { return poolgradGetNumThreads(); });
  m.def("version", []() { return std::string(poolgradVersion()); });
}
