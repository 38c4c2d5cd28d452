// poolgrad's Python extension: a thin nanobind layer over the public C API. Arrays arrive through
// DLPack (NumPy, PyTorch) with their own strides and are passed to aclCreateTensor as views, so
// nothing is copied. Each call returns (status, message); the Python side raises PoolgradError.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "poolgrad/poolgrad.h"

namespace nb = nanobind;

namespace {

using Array = nb::ndarray<nb::device::cpu>;
using Result = std::pair<int, std::string>;

const char *kNoMsg = "";

std::string take_msg() {
  const char *m = aclGetRecentErrMsg();
  return m ? std::string(m) : std::string(kNoMsg);
}

bool acl_dtype(const Array &a, aclDataType *out) {
  const nb::dlpack::dtype d = a.dtype();
  if (d.lanes != 1) return false;
  if (d == nb::dtype<float>()) *out = ACL_FLOAT;
  else if (d.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Float) && d.bits == 16) *out = ACL_FLOAT16;
  else if (d.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat) && d.bits == 16) *out = ACL_BF16;
  else if (d == nb::dtype<int32_t>()) *out = ACL_INT32;
  else if (d == nb::dtype<int64_t>()) *out = ACL_INT64;
  else if (d == nb::dtype<double>()) *out = ACL_DOUBLE;
  else if (d == nb::dtype<int16_t>()) *out = ACL_INT16;
  else if (d == nb::dtype<int8_t>()) *out = ACL_INT8;
  else if (d == nb::dtype<uint8_t>()) *out = ACL_UINT8;
  else if (d == nb::dtype<bool>()) *out = ACL_BOOL;
  else return false;
  return true;
}

// An aclTensor viewing the array's memory: view dims and strides as the array has them; the
// storage is the span the view covers (negative strides included).
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
    int64_t lo = 0, hi = 0;
    bool empty = false;
    for (size_t i = 0; i < nd; ++i) {
      dims[i] = static_cast<int64_t>(a.shape(i));
      strides[i] = static_cast<int64_t>(a.stride(i));
      if (dims[i] == 0) empty = true;
    }
    if (!empty)
      for (size_t i = 0; i < nd; ++i) {
        const int64_t span = (dims[i] - 1) * strides[i];
        if (span > 0) hi += span; else lo += span;
      }
    const int64_t esz = static_cast<int64_t>(a.itemsize());
    char *base = static_cast<char *>(const_cast<void *>(a.data())) + lo * esz;
    const int64_t storage = empty ? 0 : hi - lo + 1;
    t = aclCreateTensor(dims.data(), nd, dt, strides.data(), -lo, fmt, &storage, 1, base);
    if (!t) error = std::string(name) + ": " + take_msg();
  }
  ~Tensor() {
    if (t) aclDestroyTensor(t);
  }
};

struct Ints {
  aclIntArray *a;
  explicit Ints(const std::vector<int64_t> &v) : a(aclCreateIntArray(v.data(), v.size())) {}
  ~Ints() { aclDestroyIntArray(a); }
};

Result finish(aclnnStatus st, uint64_t ws, aclOpExecutor *ex,
              aclnnStatus (*phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream)) {
  if (st != ACLNN_SUCCESS) return {st, take_msg()};
  std::vector<char> workspace(ws);
  {
    nb::gil_scoped_release release;
    st = phase2(ws ? workspace.data() : nullptr, ws, ex, nullptr);
  }
  return {st, st == ACLNN_SUCCESS ? std::string() : take_msg()};
}

#define POOLGRAD_TENSORS_OK(...)                                      \
  for (const Tensor *t__ : {__VA_ARGS__})                             \
    if (!t__->t) return {ACLNN_ERR_PARAM_INVALID, t__->error};

Result max_pool2d_fwd(const Array &x, const Array &out, const Array &idx, std::vector<int64_t> k,
                      std::vector<int64_t> s, std::vector<int64_t> p, std::vector<int64_t> d,
                      bool ceil) {
  Tensor tx(x, ACL_FORMAT_NCHW, "x"), to(out, ACL_FORMAT_NCHW, "out"), ti(idx, ACL_FORMAT_NCHW, "indices");
  POOLGRAD_TENSORS_OK(&tx, &to, &ti);
  Ints kk(k), ss(s), pp(p), dd(d);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  aclnnStatus st;
  {
    nb::gil_scoped_release release;
    st = aclnnMaxPool2dWithIndicesGetWorkspaceSize(tx.t, kk.a, ss.a, pp.a, dd.a, ceil, to.t, ti.t, &ws, &ex);
  }
  return finish(st, ws, ex, aclnnMaxPool2dWithIndices);
}

Result max_pool2d_bwd(const Array &gy, const Array &x, const Array &idx, const Array &gx,
                      std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
                      std::vector<int64_t> d, bool ceil) {
  Tensor tg(gy, ACL_FORMAT_NCHW, "grad_output"), tx(x, ACL_FORMAT_NCHW, "x"),
      ti(idx, ACL_FORMAT_NCHW, "indices"), tgx(gx, ACL_FORMAT_NCHW, "grad_input");
  POOLGRAD_TENSORS_OK(&tg, &tx, &ti, &tgx);
  Ints kk(k), ss(s), pp(p), dd(d);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  aclnnStatus st;
  {
    nb::gil_scoped_release release;
    st = aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(tg.t, tx.t, ti.t, kk.a, ss.a, pp.a, dd.a, ceil,
                                                           tgx.t, &ws, &ex);
  }
  return finish(st, ws, ex, aclnnMaxPool2dWithIndicesBackward);
}

Result roi_fwd(const Array &x, const Array &rois, const Array &y, const Array &argmax, int64_t ph,
               int64_t pw, float sh, float sw) {
  Tensor tx(x, ACL_FORMAT_ND, "x"), tr(rois, ACL_FORMAT_ND, "rois"), ty(y, ACL_FORMAT_ND, "y"),
      ta(argmax, ACL_FORMAT_ND, "argmax");
  POOLGRAD_TENSORS_OK(&tx, &tr, &ty, &ta);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  aclnnStatus st;
  {
    nb::gil_scoped_release release;
    st = aclnnRoiPoolingWithArgMaxGetWorkspaceSize(tx.t, tr.t, ph, pw, sh, sw, ty.t, ta.t, &ws, &ex);
  }
  return finish(st, ws, ex, aclnnRoiPoolingWithArgMax);
}

Result roi_bwd(const Array &gy, const Array &gx, const Array &rois, const Array &argmax, int64_t ph,
               int64_t pw, double scale) {
  Tensor tg(gy, ACL_FORMAT_ND, "grad_output"), tgx(gx, ACL_FORMAT_ND, "grad_input"),
      tr(rois, ACL_FORMAT_ND, "rois"), ta(argmax, ACL_FORMAT_ND, "argmax");
  POOLGRAD_TENSORS_OK(&tg, &tgx, &tr, &ta);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  aclnnStatus st;
  {
    nb::gil_scoped_release release;
    st = aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(tg.t, tgx.t, tr.t, ta.t, ph, pw, scale, &ws, &ex);
  }
  return finish(st, ws, ex, aclnnRoiPoolingGradWithArgMax);
}

}  // namespace

NB_MODULE(_ext, m) {
  m.doc() = "poolgrad's C API for Python (internal: use the poolgrad package)";
  m.def("max_pool2d_fwd", &max_pool2d_fwd);
  m.def("max_pool2d_bwd", &max_pool2d_bwd);
  m.def("roi_fwd", &roi_fwd);
  m.def("roi_bwd", &roi_bwd);
  m.def("out_size", [](int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
    return poolgradPoolOutputSize(in, k, s, p, d, ceil);
  });
  m.def("set_num_threads", [](int n) { poolgradSetNumThreads(n); });
  m.def("get_num_threads", []() { return poolgradGetNumThreads(); });
  m.def("version", []() { return std::string(poolgradVersion()); });
}
