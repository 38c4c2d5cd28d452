// SPDX-License-Identifier: Apache-2.0
// The validation steps every operator's phase 1 shares.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "tensor.h"

namespace poolgrad {

// Step 1 of every phase 1: 161001 when workspaceSize or executor is null.
aclnnStatus check_out_pointers(const char *api, const uint64_t *workspace_size,
                               aclOpExecutor **executor);
// Step 2: 161001 naming the first null argument, in the order given.
struct NamedArg {
  const char *name;
  const void *p;
};
aclnnStatus check_not_null(const char *api, std::initializer_list<NamedArg> args);

struct Named {
  const char *name;
  const aclTensor *t;
};
// check_not_null over a list of tensors that later checks use too.
template <size_t N>
aclnnStatus check_not_null(const char *api, const Named (&all)[N]) {
  for (const Named &x : all)
    if (!x.t) return check_not_null(api, {{x.name, nullptr}});
  return ACLNN_SUCCESS;
}
// Every tensor's element count, with each zero dim counted as 1, is at most this: 2^40 elements
// (4 TiB of float32) is more than any host holds, so no real call needs more, and it keeps every
// product of dims (also in an empty batch) and every byte size far from int64 overflow, and the
// work a zero-stride view can ask for bounded.
constexpr int64_t kMaxElements = int64_t(1) << 40;

enum class Role { kRead, kWrite, kShape };  // kShape: only its shape is used
struct Io {
  const char *name;
  const aclTensor *t;
  Role role;
};
// 161002 for a tensor with a negative dim (aclCreateTensor makes one, as CANN's does) or over the
// element bound above. Every operator checks it right after the null checks, before any
// arithmetic on dims.
aclnnStatus check_element_bound(const char *api, std::initializer_list<Named> all);
// One argument of an API, as steps 1-2 see it: a tensor (whose element bound is checked too) or
// any other pointer argument (an aclIntArray). The tensor form wins for aclTensor pointers.
struct Arg {
  const char *name;
  const void *p;
  const aclTensor *t = nullptr;
  Arg(const char *n, const aclTensor *x) : name(n), p(x), t(x) {}
  Arg(const char *n, const void *x) : name(n), p(x) {}
};
// Steps 1-2 as most operators run them, in CANN's order: check_out_pointers, check_not_null over
// the arguments in the header's order, then check_element_bound over its tensors in that order.
aclnnStatus check_arguments(const char *api, const uint64_t *workspace_size,
                            aclOpExecutor **executor, std::initializer_list<Arg> args);
// The storage rules every operator applies, after its own cascade, to the tensors whose data it
// reads or writes (161002 each): the first element aligned to the element size; no output
// sharing a storage byte with any other tensor of the call (an output that overlaps itself is
// allowed and written on one thread, in a fixed order).
aclnnStatus check_storage(const char *api, std::initializer_list<Io> all);

// 161001 for a tensor that has elements but no data address.
aclnnStatus check_data(const char *api, std::initializer_list<Named> all);

// "name=FLOAT[2,3,4,4]/NCHW" for the trace.
std::string describe(const char *name, const aclTensor *t);

}  // namespace poolgrad
