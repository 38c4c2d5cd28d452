// Element load/store with float32 compute for the storage dtypes the kernels support.
#pragma once

#include <cstdint>
#include <cstring>

#include "core.h"

namespace poolgrad {

struct F32 {
  using storage = float;
  static float load(const storage *p) { return *p; }
  static void store(storage *p, float v) { *p = v; }
};
struct F16 {
  using storage = uint16_t;
  static float load(const storage *p) { return half_to_float(*p); }
  static void store(storage *p, float v) { *p = float_to_half(v); }
};
struct BF16 {
  using storage = uint16_t;
  static float load(const storage *p) { return bf16_to_float(*p); }
  static void store(storage *p, float v) { *p = float_to_bf16(v); }
};

// Calls fn.template operator()<IO>() for the dtype; the dtype must be FLOAT, FLOAT16 or BF16.
template <class Fn>
auto dispatch_float(aclDataType t, Fn &&fn) {
  if (t == ACL_FLOAT16) return fn(F16());
  if (t == ACL_BF16) return fn(BF16());
  return fn(F32());
}

}  // namespace poolgrad
