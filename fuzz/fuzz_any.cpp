// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: every aclnn API of the operator descriptors (aclnn_apis.inc, generated from
// python/poolgrad/operators.json), its arguments decoded from its signature alone: a tensor for
// each aclTensor parameter (a rank, dims drawn from one small pool so that shapes often agree, a
// dtype, a format, strides and data from fz::make), a list for each aclIntArray, a number, bool or
// mode string for the rest. Phases 1 and 2 as fz::run. A new operator is fuzzed here with no code;
// the per-family targets (fuzz_maxpool.cpp, ...) decode deeper, valid-looking calls.
#include <memory>
#include <type_traits>
#include <vector>

#include "aclnnop/aclnn_ops_cv.h"
#include "aclnnop/aclnn_ops_nn.h"
#include "core/api_signature.h"
#include "fuzz_common.h"
#include "poolgrad/poolgrad.h"

namespace {

// What every argument of one call is decoded from: the bytes, and a pool of dims, a data dtype and
// a format that the tensors mostly share (so that more calls pass phase 1 and reach a kernel).
struct Call {
  fz::Reader r;
  int64_t dims[6];
  aclDataType dtype;
  aclFormat format;
};

const aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT,  ACL_FLOAT16, ACL_BF16,  ACL_INT32, ACL_INT64,
                               ACL_INT64, ACL_DOUBLE, ACL_INT8,    ACL_UINT8, ACL_INT16, ACL_BOOL};

template <class T>
struct Arg;

template <class T>
struct TensorArg {
  std::unique_ptr<fz::Tensor> t;
  explicit TensorArg(Call &c) {
    const int rank = c.r.pick(6);  // 0..5, taken from the pool's tail (the spatial dims agree)
    std::vector<int64_t> dims(c.dims + 6 - rank, c.dims + 6);
    if (rank && c.r.pick(8) == 0) dims[c.r.pick(rank)] = c.r.small(0, 9);
    static const aclDataType kIndex[] = {ACL_INT64, ACL_INT32};
    const int which = c.r.pick(8);  // the call's dtype, an index dtype, or any
    const aclDataType dt = which < 4   ? c.dtype
                           : which < 7 ? kIndex[which & 1]
                                       : kDtypes[c.r.pick(12)];
    t = fz::make(c.r, dims, dt, c.r.pick(4) ? c.format : fz::format(c.r));
    // Index data mostly inside the tensor's last two dims (a plane), as the index operands' are.
    const bool plane = rank >= 2 && dims[rank - 1] <= 64 && dims[rank - 2] <= 64;
    if (dt == ACL_INT32 || dt == ACL_INT64)
      t->fill_indices(c.r, plane ? dims[rank - 1] * dims[rank - 2] : 4);
    else
      t->fill_floats(c.r);
  }
  T get() const { return t->t; }
};
template <>
struct Arg<const aclTensor *> : TensorArg<const aclTensor *> {
  using TensorArg::TensorArg;
};
template <>
struct Arg<aclTensor *> : TensorArg<aclTensor *> {
  using TensorArg::TensorArg;
};

template <>
struct Arg<const aclIntArray *> {
  std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray *)> a{nullptr, aclDestroyIntArray};
  explicit Arg(Call &c) {
    if (c.r.pick(16) == 0) return;  // a null list
    const std::vector<int64_t> v = fz::int_array(c.r);
    a.reset(aclCreateIntArray(v.data(), v.size()));
  }
  const aclIntArray *get() const { return a.get(); }
};

template <class T>
struct Number {
  T v;
  explicit Number(Call &c) {
    if constexpr (std::is_floating_point_v<T>) {
      static const T kValues[] = {1, 1, 0.5, 0.25, 0.0625, 0, -1, 16};
      v = c.r.pick(8) == 0 ? static_cast<T>(c.r.f32()) : kValues[c.r.pick(8)];
    } else if constexpr (std::is_same_v<T, bool>) {
      v = c.r.pick(2) != 0;
    } else {
      v = c.r.pick(16) == 0 ? static_cast<T>(int64_t(1) << c.r.small(20, 62))
                            : static_cast<T>(c.r.small(-2, 8));
    }
  }
  T get() const { return v; }
};
template <>
struct Arg<int64_t> : Number<int64_t> {
  using Number::Number;
};
template <>
struct Arg<int> : Number<int> {
  using Number::Number;
};
template <>
struct Arg<float> : Number<float> {
  using Number::Number;
};
template <>
struct Arg<double> : Number<double> {
  using Number::Number;
};
template <>
struct Arg<bool> : Number<bool> {
  using Number::Number;
};
template <>
struct Arg<const char *> {
  const char *v;
  explicit Arg(Call &c) {
    static const char *const kModes[] = {"avg", "max", "", "bilinear", "avg\xff"};
    v = c.r.pick(16) == 0 ? nullptr : kModes[c.r.pick(5)];
  }
  const char *get() const { return v; }
};

template <auto F, auto Run>
void fuzz_api(Call &c) {
  poolgrad::api::with_params<Arg>(
      F, [&](size_t) -> Call & { return c; },
      [&](auto &, auto &phase1) {
        fz::run(phase1, [&](void *ws, uint64_t size, aclOpExecutor *ex) {
          return Run(ws, size, ex, nullptr);
        });
        return 0;
      });
}

#define POOLGRAD_API(name) &fuzz_api<name##GetWorkspaceSize, name>,
void (*const kApis[])(Call &) = {
#include "aclnn_apis.inc"
};
#undef POOLGRAD_API

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Call c{fz::Reader{data, size}, {}};
  poolgradSetNumThreads(1 + c.r.pick(3));
  const int api = c.r.pick(static_cast<int>(sizeof(kApis) / sizeof(kApis[0])));
  for (int64_t &d : c.dims) d = c.r.pick(24) == 0 ? c.r.huge() : c.r.small(0, 6);
  c.dtype = c.r.pick(2) ? ACL_FLOAT : kDtypes[c.r.pick(12)];
  c.format = fz::format(c.r);
  kApis[api](c);
  return 0;
}
