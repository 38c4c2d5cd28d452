// SPDX-License-Identifier: Apache-2.0
// What both Python-facing layers (_ext for NumPy/DLPack arrays, _torch_ops for PyTorch's
// dispatcher) need to call the public C API on memory a framework owns: an aclTensor viewing that
// memory, integer-list attributes, and the library's last message.
#pragma once

#include <sys/mman.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

namespace poolgrad_py {

// A workspace for phase 2, left uninitialised as aclrtMalloc's are: no kernel reads scratch it
// has not written (a zero-filled vector cost a memset of the whole workspace a call). Its
// alignment does not matter: phase 2 rounds the start up to a cache line itself.
class Workspace {
 public:
  explicit Workspace(uint64_t bytes = 0) { resize(bytes); }
  void resize(uint64_t bytes) { buf_.reset(bytes ? new char[bytes] : nullptr); }
  void *data() { return buf_.get(); }

 private:
  std::unique_ptr<char[]> buf_;
};

inline std::string recent_error() {
  const char *m = aclGetRecentErrMsg();
  return m ? std::string(m) : std::string();
}

// An aclTensor viewing data with the framework's own dims and strides (elements): the storage
// is the span the view covers, negative strides included, so nothing is copied. nullptr (and the
// library's message) when the library refuses the description.
inline aclTensor *acl_view(void *data, aclDataType dt, int64_t itemsize, const int64_t *dims,
                           const int64_t *strides, size_t nd, aclFormat fmt) {
  int64_t lo = 0, hi = 0;
  bool empty = false;
  for (size_t i = 0; i < nd; ++i)
    if (dims[i] == 0) empty = true;
  if (!empty)
    for (size_t i = 0; i < nd; ++i) {
      const int64_t span = (dims[i] - 1) * strides[i];
      if (span > 0)
        hi += span;
      else
        lo += span;
    }
  char *base = static_cast<char *>(data) + lo * itemsize;
  const int64_t storage = empty ? 0 : hi - lo + 1;
  return aclCreateTensor(dims, nd, dt, strides, -lo, fmt, &storage, 1, base);
}

// An integer-list attribute (kernel size, stride, ...) for the length of one call.
struct Ints {
  aclIntArray *a;
  Ints(const int64_t *v, size_t n) : a(aclCreateIntArray(v, n)) {}
  explicit Ints(const std::vector<int64_t> &v) : Ints(v.data(), v.size()) {}
  ~Ints() { aclDestroyIntArray(a); }
  Ints(const Ints &) = delete;
  Ints &operator=(const Ints &) = delete;
};

// A new output's whole pages as transparent huge pages (where the kernel allows them on request):
// the first write of a fresh 100 MB array then takes 50 faults instead of 25,000 (measured on this
// machine: allocate and fill 102 MB 35 ms -> 8 ms). Worth it from kHugeBytes up.
constexpr size_t kHugeBytes = size_t(4) << 20;
inline void advise_huge(void *data, size_t nbytes) {
  const uintptr_t p = reinterpret_cast<uintptr_t>(data), page = 4096;
  const uintptr_t lo = (p + page - 1) & ~(page - 1), hi = (p + nbytes) & ~(page - 1);
  if (hi > lo) madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_HUGEPAGE);
}

}  // namespace poolgrad_py
