// SPDX-License-Identifier: Apache-2.0
// Kernel scratch carved from the caller's workspace, and the one overflow-checked size helper.
//
// Each kernel describes its scratch once, as a sequence of take<T>(count) calls on an Arena. Phase
// 1 runs that description on a counting arena (no memory) to get the exact workspace size it
// reports; phase 2 runs the same description on the caller's workspace and gets the pointers. So
// the size reported and the bytes used cannot drift apart, and phase 2 allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>

namespace poolgrad {

// a * b for sizes computed from user-controlled dimensions; false when it overflows int64 or an
// operand is negative (the caller refuses the call).
inline bool checked_mul(int64_t a, int64_t b, int64_t *out) {
  if (a < 0 || b < 0) return false;
  return !__builtin_mul_overflow(a, b, out);
}
inline bool checked_add(int64_t a, int64_t b, int64_t *out) {
  if (a < 0 || b < 0) return false;
  return !__builtin_add_overflow(a, b, out);
}

class Arena {
 public:
  // Counting arena: take() returns null and only adds up the bytes.
  Arena() = default;
  // Carving arena over `bytes` of workspace at `base`.
  Arena(void *base, int64_t bytes) : base_(static_cast<char *>(base)), cap_(bytes) {}

  // count elements of T, 64-byte aligned (a cache line: threads' slices never share one).
  template <class T>
  T *take(int64_t count) {
    int64_t bytes = 0, start = 0, end = 0;
    if (!checked_mul(count, static_cast<int64_t>(sizeof(T)), &bytes) ||
        !checked_add(used_, 63, &start)) {
      overflow_ = true;
      return nullptr;
    }
    start &= ~int64_t(63);
    if (!checked_add(start, bytes, &end)) {
      overflow_ = true;
      return nullptr;
    }
    used_ = end;
    if (!base_ || overflow_ || end > cap_) return nullptr;
    return reinterpret_cast<T *>(base_ + start);
  }
  // `count` equal slices of `each` bytes (per-thread scratch); slice(i) is an arena over slice i.
  struct Slices {
    char *base = nullptr;
    int64_t stride = 0;
    Arena slice(int i) const { return base ? Arena(base + i * stride, stride) : Arena(); }
  };
  Slices take_slices(int count, int64_t each) {
    Slices s;
    int64_t stride;
    if (each < 0 || !checked_add(each, 63, &stride)) {  // each < 0: its layout overflowed
      overflow_ = true;
      return s;
    }
    s.stride = stride & ~int64_t(63);
    s.base = take<char>(checked_mul(count, s.stride, &stride) ? stride : -1);
    return s;
  }
  int64_t used() const { return overflow_ ? -1 : used_; }
  bool overflow() const { return overflow_; }

 private:
  char *base_ = nullptr;
  int64_t cap_ = 0, used_ = 0;
  bool overflow_ = false;
};

// Bytes of a layout described by fn(Arena&) (-1 on overflow).
template <class F>
int64_t layout_bytes(F &&fn) {
  Arena a;
  fn(a);
  return a.used();
}

}  // namespace poolgrad
