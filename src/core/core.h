// poolgrad core: status and last-error messages, tensor handles and views, executors, threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "executor.h"
#include "scratch.h"
#include "threads.h"

namespace poolgrad {

// ---- errors -----------------------------------------------------------------------------------
// Records the calling thread's latest error text (printf-style) for aclGetRecentErrMsg.
void set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// Records a message and returns status, so that checks read `return fail(ACLNN_ERR_..., ...)`.
aclnnStatus fail(aclnnStatus status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// Returns and clears the calling thread's latest error text.
std::string take_error();
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// ---- trace (POOLGRAD_LOG=info|error; off by default) -------------------------------------------
enum class LogLevel { kOff = 0, kError = 1, kInfo = 2 };
LogLevel log_level();  // read once from the environment
inline bool trace_info() { return log_level() == LogLevel::kInfo; }

// ---- dtypes -----------------------------------------------------------------------------------
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
inline float bf16_to_float(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}
uint16_t float_to_bf16(float f);
const char *dtype_name(aclDataType t);
const char *format_name(aclFormat f);
int64_t dtype_size(aclDataType t);  // 0 when unknown
bool is_private_format(aclFormat f);
bool is_known_format(aclFormat f);

// ---- tensors ----------------------------------------------------------------------------------
// A plain, handle-free copy of what a kernel needs of a tensor: phase 1 takes one, so that an
// executor never depends on the caller's aclTensor after phase 1.
struct View {
  void *data = nullptr;       // storage base
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_UNDEFINED;
  int64_t offset = 0;         // elements
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  int64_t numel() const;
  int rank() const { return static_cast<int>(dims.size()); }
};

// A rank-3/4 view seen as (N, C, H, W) with element strides; rank 3 gets N = 1. With nhwc the
// view's dims are read as (N, H, W, C) / (H, W, C).
struct Strided4 {
  char *base = nullptr;  // storage base + view offset, in bytes
  int64_t n = 1, c = 1, h = 1, w = 1;
  int64_t sn = 0, sc = 0, sh = 0, sw = 0;
  // True when each (n, c) plane is dense row-major (sw == 1, sh == w).
  bool plane_dense() const { return sw == 1 && (h == 1 || sh == w); }
};
Strided4 to_nchw(const View &v, bool nhwc);

std::string dims_str(const std::vector<int64_t> &d);
// True when no two elements of the view can share storage (a sufficient test).
bool view_is_non_overlapping(const View &v);

}  // namespace poolgrad

struct aclTensor {
  poolgrad::View view;
  std::vector<int64_t> storage_dims;
};

struct aclIntArray {
  std::vector<int64_t> values;
};
struct aclFloatArray {
  std::vector<float> values;
};
struct aclBoolArray {
  std::vector<bool> values;
};

namespace poolgrad {

// Step 1 of every phase 1: 161001 when workspaceSize or executor is null.
aclnnStatus check_out_pointers(const char *api, const uint64_t *workspace_size, aclOpExecutor **executor);
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
// 161002 for a tensor over the element bound above. Every operator checks it right after the
// null checks, before any arithmetic on dims.
aclnnStatus check_element_bound(const char *api, std::initializer_list<Named> all);
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
