// SPDX-License-Identifier: Apache-2.0
// The validation steps every operator's phase 1 shares: null pointers, data addresses, the element
// bound, alignment and aliasing.
#include "checks.h"

#include <cinttypes>

#include "dtype.h"
#include "scratch.h"
#include "status.h"

namespace poolgrad {

aclnnStatus check_out_pointers(const char *api, const uint64_t *workspace_size,
                               aclOpExecutor **executor) {
  if (!workspace_size)
    return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", api);
  if (!executor) return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", api);
  return ACLNN_SUCCESS;
}

aclnnStatus check_not_null(const char *api, std::initializer_list<NamedArg> args) {
  for (const NamedArg &x : args)
    if (!x.p) return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: %s must not be null", api, x.name);
  return ACLNN_SUCCESS;
}

aclnnStatus check_data(const char *api, std::initializer_list<Named> all) {
  for (const Named &x : all)
    if (x.t->view.numel() > 0 && x.t->view.data == nullptr)
      return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: %s must have data (tensorData is null)", api,
                  x.name);
  return ACLNN_SUCCESS;
}

namespace {
// The bytes [lo, hi) a non-empty view with data can touch.
void byte_range(const View &v, uintptr_t *lo, uintptr_t *hi) {
  int64_t a = v.offset, b = v.offset;
  for (size_t i = 0; i < v.dims.size(); ++i) {
    const int64_t span = (v.dims[i] - 1) * v.strides[i];  // checked by aclCreateTensor
    (span < 0 ? a : b) += span;
  }
  const int64_t es = dtype_size(v.dtype) > 0 ? dtype_size(v.dtype) : 1;
  *lo = reinterpret_cast<uintptr_t>(v.data) + static_cast<uintptr_t>(a * es);
  *hi = reinterpret_cast<uintptr_t>(v.data) + static_cast<uintptr_t>((b + 1) * es);
}
}  // namespace

aclnnStatus check_element_bound(const char *api, std::initializer_list<Named> all) {
  for (const Named &x : all) {
    for (int64_t d : x.t->view.dims)
      if (d < 0)
        return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s dims must be >= 0, but got shape %s", api,
                    x.name, dims_str(x.t->view.dims).c_str());
    int64_t count = 1;
    for (int64_t d : x.t->view.dims)
      if (!checked_mul(count, d > 0 ? d : 1, &count) || count > kMaxElements)
        return fail(ACLNN_ERR_PARAM_INVALID,
                    "%s: %s shape %s asks for more than 2^40 elements (zero dims counted as 1), "
                    "more than any call can need",
                    api, x.name, dims_str(x.t->view.dims).c_str());
  }
  return ACLNN_SUCCESS;
}

aclnnStatus check_arguments(const char *api, const uint64_t *workspace_size,
                            aclOpExecutor **executor, std::initializer_list<Arg> args) {
  if (aclnnStatus st = check_out_pointers(api, workspace_size, executor)) return st;
  for (const Arg &x : args)
    if (!x.p) return check_not_null(api, {{x.name, nullptr}});
  for (const Arg &x : args)
    if (x.t)
      if (aclnnStatus st = check_element_bound(api, {{x.name, x.t}})) return st;
  return ACLNN_SUCCESS;
}

aclnnStatus check_storage(const char *api, std::initializer_list<Io> all) {
  for (const Io &x : all) {
    const View &v = x.t->view;
    const int64_t es = dtype_size(v.dtype);
    if (x.role != Role::kShape && v.data && v.numel() > 0 && es > 1 &&
        (reinterpret_cast<uintptr_t>(v.data) + static_cast<uintptr_t>(v.offset * es)) % es != 0)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "%s: %s data address %p (offset %" PRId64
                  ") is not aligned to its element size "
                  "%" PRId64,
                  api, x.name, v.data, v.offset, es);
  }
  for (const Io &out : all) {
    if (out.role != Role::kWrite || !out.t->view.data || out.t->view.numel() == 0) continue;
    uintptr_t lo, hi;
    byte_range(out.t->view, &lo, &hi);
    for (const Io &other : all) {
      if (&other == &out || other.role == Role::kShape || !other.t->view.data ||
          other.t->view.numel() == 0)
        continue;
      uintptr_t olo, ohi;
      byte_range(other.t->view, &olo, &ohi);
      if (lo < ohi && olo < hi)
        return fail(ACLNN_ERR_PARAM_INVALID,
                    "%s: %s and %s share storage (bytes [%p, %p) and [%p, %p)); an output must not "
                    "overlap another tensor of the call",
                    api, out.name, other.name, reinterpret_cast<void *>(lo),
                    reinterpret_cast<void *>(hi), reinterpret_cast<void *>(olo),
                    reinterpret_cast<void *>(ohi));
    }
  }
  return ACLNN_SUCCESS;
}

std::string describe(const char *name, const aclTensor *t) {
  return format("%s=%s%s/%s", name, dtype_name(t->view.dtype), dims_str(t->view.dims).c_str(),
                format_name(t->view.format));
}

}  // namespace poolgrad
