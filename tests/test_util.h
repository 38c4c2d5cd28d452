// SPDX-License-Identifier: Apache-2.0
// Test helpers: host tensors with arbitrary strides, offsets and guard bytes; status checks.
// Nothing here uses poolgrad's internals: only the public C API.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "poolgrad/poolgrad.h"

namespace pgtest {

// Independent of the library's converters: F16C hardware conversion for half, integer rounding
// for bfloat16.
float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);
inline float bf16_to_f32(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint16_t f32_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return uint16_t((u >> 16) | 0x40);
  uint32_t lsb = (u >> 16) & 1;
  return uint16_t((u + 0x7fff + lsb) >> 16);
}
// Rounds a float to what the dtype can hold (identity for FLOAT).
float round_to(aclDataType dt, float v);

// poolgrad's DOUBLE extension (poolgradSetThreadDoubleDtype) on for this thread while in scope
// (when `on`), off again at its end, early returns of failed assertions included.
struct DoubleDtypeScope {
  explicit DoubleDtypeScope(bool on) { poolgradSetThreadDoubleDtype(on ? 1 : 0); }
  ~DoubleDtypeScope() { poolgradSetThreadDoubleDtype(0); }
  DoubleDtypeScope(const DoubleDtypeScope &) = delete;
  DoubleDtypeScope &operator=(const DoubleDtypeScope &) = delete;
};
int64_t elem_size(aclDataType dt);

constexpr uint8_t kGuard = 0xA5;
constexpr size_t kGuardBytes = 64;

// A host tensor: storage with guard bytes on both sides, a view (dims, strides, offset), and
// accessors by view coordinates. Elements of the storage outside the view are filled with a
// poison pattern so that a kernel that writes them is caught.
class HostTensor {
 public:
  HostTensor() = default;
  // Contiguous row-major view.
  HostTensor(std::vector<int64_t> dims, aclDataType dt, aclFormat fmt = ACL_FORMAT_NCHW);
  // Any view: storage of storage_elems elements.
  HostTensor(std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t offset,
             int64_t storage_elems, aclDataType dt, aclFormat fmt);
  ~HostTensor();
  HostTensor(const HostTensor &) = delete;
  HostTensor &operator=(const HostTensor &) = delete;
  HostTensor(HostTensor &&o) noexcept { *this = std::move(o); }
  HostTensor &operator=(HostTensor &&o) noexcept;

  aclTensor *t() const { return t_; }
  int64_t numel() const;
  // Element at the view's linear (row-major) position i.
  float get(int64_t i) const;
  void set(int64_t i, float v);
  int64_t get_int(int64_t i) const;
  // A DOUBLE element (no conversion).
  // Any floating dtype's element as a double: DOUBLE exactly, the others through float.
  double get_real(int64_t i) const { return dt_ == ACL_DOUBLE ? get_double(i) : get(i); }
  void set_real(int64_t i, double v) {
    if (dt_ == ACL_DOUBLE)
      set_double(i, v);
    else
      set(i, static_cast<float>(v));
  }
  double get_double(int64_t i) const;
  void set_double(int64_t i, double v);
  void set_int(int64_t i, int64_t v);
  // The raw bits of a float16 / bfloat16 element (set() and get() convert, and make a signalling
  // NaN quiet on the way).
  uint16_t get_bits16(int64_t i) const;
  void set_bits16(int64_t i, uint16_t bits);
  bool guards_intact() const;
  // True when every storage element outside the view still holds the poison pattern.
  bool outside_view_untouched() const;
  std::vector<float> values() const;
  const std::vector<int64_t> &dims() const { return dims_; }
  aclDataType dtype() const { return dt_; }

 private:
  void init(int64_t storage_elems);
  int64_t storage_index(int64_t i) const;
  // Where the view's element i lies in buf_.
  const uint8_t *addr(int64_t i) const;
  uint8_t *addr(int64_t i);
  std::vector<int64_t> dims_, strides_;
  int64_t offset_ = 0, storage_elems_ = 0;
  aclDataType dt_ = ACL_FLOAT;
  aclFormat fmt_ = ACL_FORMAT_NCHW;
  std::vector<uint8_t> buf_;
  size_t lead_ = kGuardBytes;  // where the storage starts in buf_
  std::vector<uint8_t> in_view_;
  aclTensor *t_ = nullptr;
};

std::vector<int64_t> contiguous_strides(const std::vector<int64_t> &dims);

// A view of `dims` laid out in storage in the order `perm` (outermost first), with `gap` extra
// elements of padding added to each stride and a view offset: a non-contiguous view.
HostTensor make_strided(const std::vector<int64_t> &dims, const std::vector<int> &perm, int64_t gap,
                        int64_t offset, aclDataType dt, aclFormat fmt);

struct IntArray {
  aclIntArray *a;
  explicit IntArray(std::vector<int64_t> v) : a(aclCreateIntArray(v.data(), v.size())) {}
  ~IntArray() { aclDestroyIntArray(a); }
  operator aclIntArray *() const { return a; }
};

// A phase-2 workspace of `bytes`, as a CANN caller allocates it after phase 1 (one buffer per
// thread, grown as needed and reused; null for 0 bytes).
void *workspace(uint64_t bytes);

// Selects a product profile for the duration of a scope (POOLGRAD_SOC is read by aclInit), then
// goes back to the default one.
struct Profile {
  explicit Profile(const char *soc);
  ~Profile();
};

// Phase 1 (a callable taking the workspace-size and executor pointers), then, if it succeeded,
// phase 2 on a workspace of the size it asked for; the first failing status.
template <class P1, class P2>
aclnnStatus two_phase(P1 p1, P2 p2) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const aclnnStatus st = p1(&ws, &ex);
  return st != ACLNN_SUCCESS ? st : p2(workspace(ws), ws, ex, nullptr);
}

// Takes and clears the thread's last message.
inline std::string last_msg() {
  const char *m = aclGetRecentErrMsg();
  return m ? std::string(m) : std::string();
}

}  // namespace pgtest

// Asserts the exact status and a message that names the API and contains `needle`.
#define EXPECT_STATUS_MSG(expr, status, api, needle)                      \
  do {                                                                    \
    aclnnStatus st__ = (expr);                                            \
    EXPECT_EQ(st__, (status));                                            \
    std::string m__ = pgtest::last_msg();                                 \
    EXPECT_NE(m__.find(api), std::string::npos) << "message: " << m__;    \
    EXPECT_NE(m__.find(needle), std::string::npos) << "message: " << m__; \
  } while (0)
