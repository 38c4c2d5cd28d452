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
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "acl_call.h"
#include "aclnnop/aclnn_ops_cv.h"
#include "aclnnop/aclnn_ops_nn.h"
#include "core/api_signature.h"
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

// One parameter of an aclnn API as the package passes it: its key in the call's dict (the
// header's name), its name in messages (poolgrad's array names from the descriptor; the C name
// for attributes), a tensor's format, and the package's converter for arrays that are not plain
// NumPy arrays (torch tensors as NumPy views of their memory, bfloat16 as uint16:
// poolgrad._ext_arg).
struct Param {
  nb::str key;
  std::string label;
  aclFormat format = ACL_FORMAT_ND;
  nb::handle convert;
};

// numpy.ndarray, whose instances nanobind takes as they are (anything else goes through the
// package's converter first: torch's own DLPack export costs microseconds a tensor).
nb::handle numpy_array_type() {
  static nb::object t = nb::module_::import_("numpy").attr("ndarray");
  return t;
}

// An aclTensor viewing the array's memory (acl_call.h), or the reason there is none.
struct Tensor {
  aclTensor *t = nullptr;
  std::string error;
  nb::object converted;  // what the converter made of the argument, kept for the call
  Tensor(nb::handle h, const Param &p) {
    Array a;
    if (h.type().is(numpy_array_type()) ? !nb::try_cast(h, a) : true) {
      converted = p.convert(h);
      h = converted;
    }
    if (!a.is_valid() && !nb::try_cast(h, a)) {
      error = p.label + " must be a CPU array (NumPy or DLPack), but got " +
              nb::cast<std::string>(nb::str(h.type().attr("__name__")));
      return;
    }
    aclDataType dt;
    if (!acl_dtype(a, &dt)) {
      error = p.label + " has a dtype poolgrad does not know";
      return;
    }
    const size_t nd = a.ndim();
    std::vector<int64_t> dims(nd), strides(nd);
    for (size_t i = 0; i < nd; ++i) {
      dims[i] = static_cast<int64_t>(a.shape(i));
      strides[i] = static_cast<int64_t>(a.stride(i));
    }
    t = poolgrad_py::acl_view(const_cast<void *>(a.data()), dt, static_cast<int64_t>(a.itemsize()),
                              dims.data(), strides.data(), nd, p.format);
    if (!t) error = p.label + ": " + take_msg();
  }
  ~Tensor() {
    if (t) aclDestroyTensor(t);
  }
  Tensor(const Tensor &) = delete;
  Tensor &operator=(const Tensor &) = delete;
  aclTensor *get() const { return t; }
};

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
  Prepared(const Phase1 &p1, nb::object keep) : p1_(p1), keep_(std::move(keep)) {
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
  nb::object keep_;
  poolgrad_py::Workspace workspace_;
};

// ---- the generic caller: every aclnn API through one binding
// ------------------------------------- An API's GetWorkspaceSize signature decides how each Python
// argument is converted (its C type: tensor, integer list, integer, float, bool, string); the table
// of APIs is generated from the operator descriptors (aclnn_apis.inc, cmake/descriptors.cmake), so
// adding an operator adds no line here. Each argument holder keeps the first conversion error
// instead of raising, so that the message names the first bad parameter in the header's order.
template <class T>
struct Arg;

template <>
struct Arg<const aclTensor *> : Tensor {
  using Tensor::Tensor;
};
template <>
struct Arg<aclTensor *> : Tensor {
  using Tensor::Tensor;
};

template <>
struct Arg<const aclIntArray *> {
  std::optional<poolgrad_py::Ints> ints;  // (acl_call.h: owns the aclIntArray)
  std::string error;
  Arg(nb::handle h, const Param &p) {
    std::vector<int64_t> v;
    if (nb::try_cast(h, v))
      ints.emplace(v);
    else
      error = p.label + " must be a list of ints";
  }
  const aclIntArray *get() const { return ints ? ints->a : nullptr; }
};

// Numbers, bools and strings: nanobind's own conversion (an int outside the C type's range fails
// it rather than wrapping).
template <class T, class Held = T>
struct Scalar {
  Held v{};
  std::string error;
  Scalar(nb::handle h, const Param &p) {
    if (!nb::try_cast(h, v))
      error = p.label + " cannot be passed as the API's " + kind() + ": got " +
              nb::cast<std::string>(nb::repr(h));
  }
  static const char *kind() {
    if constexpr (std::is_same_v<T, bool>)
      return "bool";
    else if constexpr (std::is_floating_point_v<T>)
      return "floating-point number";
    else if constexpr (std::is_integral_v<T>)
      return sizeof(T) == 8 ? "64-bit integer" : "32-bit integer";
    else
      return "string";
  }
  T get() const {
    if constexpr (std::is_same_v<Held, std::string>)
      return v.c_str();
    else
      return v;
  }
};
template <>
struct Arg<int64_t> : Scalar<int64_t> {
  using Scalar::Scalar;
};
template <>
struct Arg<int> : Scalar<int> {
  using Scalar::Scalar;
};
template <>
struct Arg<float> : Scalar<float> {
  using Scalar::Scalar;
};
template <>
struct Arg<double> : Scalar<double> {
  using Scalar::Scalar;
};
template <>
struct Arg<bool> : Scalar<bool> {
  using Scalar::Scalar;
};
template <>
struct Arg<const char *> : Scalar<const char *, std::string> {
  using Scalar::Scalar;
};

// An argument and the parameter it is for: what each Arg is built from, in place inside the tuple.
struct Source {
  nb::handle h;
  const Param *p;
  Source(const nb::dict &args, const Param &param)
      : h(PyDict_GetItem(args.ptr(), param.key.ptr())), p(&param) {}
};
template <class T>
struct Built : Arg<T> {
  explicit Built(Source s) : Arg<T>(s.h, *s.p) {}
};

// Phase 1 of API f on the arguments converted by its parameters' C types (the first bad one
// refused, naming it); run is its phase 2.
template <auto F, auto Run>
Phase1 call_api(const std::vector<Param> &params, const nb::dict &args) {
  return poolgrad::api::with_params<Built>(
      F, [&](size_t i) { return Source(args, params[i]); },
      [&](auto &held, auto &call) {
        std::string error;
        std::apply(
            [&](auto &...arg) {
              ((error.empty() && !arg.error.empty() ? (void)(error = arg.error) : void()), ...);
            },
            held);
        if (error.empty()) return phase1(call, Run);
        Phase1 r;
        r.st = ACLNN_ERR_PARAM_INVALID;
        r.msg = error;
        return r;
      });
}

// One row of the table: an API's name, its parameter count and its caller.
struct ApiRow {
  const char *name;
  size_t params;
  Phase1 (*call)(const std::vector<Param> &, const nb::dict &);
};

#define POOLGRAD_API(name)                                    \
  {#name, poolgrad::api::param_count(name##GetWorkspaceSize), \
   &call_api<name##GetWorkspaceSize, name>},
const ApiRow kApis[] = {
#include "aclnn_apis.inc"
};
#undef POOLGRAD_API

aclFormat format_named(const std::string &f) {
  if (f == "NCHW") return ACL_FORMAT_NCHW;
  if (f == "NCDHW") return ACL_FORMAT_NCDHW;
  if (f == "ND") return ACL_FORMAT_ND;
  throw std::invalid_argument("unknown format " + f);
}

// One aclnn API as the package calls it: its arguments a dict keyed by the header's parameter
// names; each parameter's name in messages and format given once (from the descriptor) when the
// package first uses the API.
class Api {
 public:
  Api(const std::string &name, const std::vector<std::string> &keys,
      const std::vector<std::string> &labels, const std::vector<std::string> &formats,
      nb::handle convert)
      : convert_(convert) {
    for (const ApiRow &r : kApis)
      if (name == r.name) row_ = &r;
    if (!row_) throw std::invalid_argument(name + " is not an aclnn API of poolgrad");
    if (keys.size() != row_->params || labels.size() != row_->params ||
        formats.size() != row_->params)
      throw std::invalid_argument(name + " takes " + std::to_string(row_->params) +
                                  " parameters (keys, labels and formats one each)");
    for (size_t i = 0; i < keys.size(); ++i)
      params_.push_back({nb::str(keys[i].c_str()), labels[i], format_named(formats[i]), convert_});
  }
  // Every parameter given, and nothing else (a misspelt name is an error, not an ignored one).
  Phase1 start(const nb::dict &args) const {
    for (const Param &p : params_)
      if (!PyDict_Contains(args.ptr(), p.key.ptr()))
        throw nb::type_error(
            (std::string(row_->name) + ": missing argument " + nb::cast<std::string>(p.key))
                .c_str());
    if (args.size() != params_.size())
      throw nb::type_error((std::string(row_->name) + " takes " + std::to_string(params_.size()) +
                            " arguments, got " + std::to_string(args.size()))
                               .c_str());
    return row_->call(params_, args);
  }

 private:
  const ApiRow *row_ = nullptr;
  // Borrowed: the package's converter lives as long as the package, which holds this object (an
  // owned reference would close a cycle through the package's globals that nothing collects).
  nb::handle convert_;
  std::vector<Param> params_;
};
}  // namespace

NB_MODULE(_ext, m) {
  m.doc() = "poolgrad's C API for Python (internal: use the poolgrad package)";
  // Every aclnn API: one call (phase 1 + phase 2) returning (status, message), or prepared once
  // (phase 1, a repeatable executor) and run as often as asked.
  nb::class_<Api>(m, "Api")
      .def(nb::init<const std::string &, const std::vector<std::string> &,
                    const std::vector<std::string> &, const std::vector<std::string> &,
                    nb::handle>(),
           nb::arg("aclnn"), nb::arg("keys"), nb::arg("labels"), nb::arg("formats"),
           nb::arg("convert"))
      .def("call", [](const Api &api, nb::dict args) { return finish(api.start(args)); })
      .def("prepare",
           [](const Api &api, nb::dict args) { return new Prepared(api.start(args), args); });
  m.def("apis", []() {
    std::vector<std::string> names;
    for (const ApiRow &r : kApis) names.emplace_back(r.name);
    return names;
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
  nb::class_<Prepared>(m, "Prepared")
      .def("run", &Prepared::run)
      .def_prop_ro("kernel", &Prepared::kernel)
      .def_prop_ro("workspace_size", &Prepared::workspace_size);
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
