// SPDX-License-Identifier: Apache-2.0
// Decoding fuzz bytes into whole aclnn calls: dtypes, formats, ranks, dims, strides, offsets,
// attribute arrays and the data of every tensor (indices / argmax / rois included).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

namespace fz {

struct Reader {
  const uint8_t *p;
  size_t n;
  uint8_t u8() {
    if (!n) return 0;
    --n;
    return *p++;
  }
  int pick(int k) { return u8() % k; }
  int64_t small(int64_t lo, int64_t hi) { return lo + u8() % (hi - lo + 1); }
  // A dimension far beyond any memory (2^20 .. 2^62): such tensors become zero-stride views.
  int64_t huge() { return int64_t(1) << small(20, 62); }
  float f32() {
    switch (pick(16)) {
      case 0:
        return std::numeric_limits<float>::quiet_NaN();
      case 1:
        return std::numeric_limits<float>::infinity();
      case 2:
        return -std::numeric_limits<float>::infinity();
      case 3:
        return 1e30f;
      case 4:
        return -0.0f;
      default:
        return static_cast<float>(static_cast<int8_t>(u8())) / 8.0f;
    }
  }
};

inline int64_t esize(aclDataType dt) {
  const size_t n = aclDataTypeSize(dt);  // the library's dtype table (0 for sub-byte / unknown)
  return n ? static_cast<int64_t>(n) : 1;
}

// A tensor over its own exactly-sized heap buffer (so ASan sees any access outside it).
struct Tensor {
  std::unique_ptr<uint8_t[]> buf;
  size_t bytes = 0;
  aclTensor *t = nullptr;
  std::vector<int64_t> dims, strides;
  int64_t offset = 0;
  aclDataType dt = ACL_FLOAT;
  ~Tensor() {
    if (t) aclDestroyTensor(t);
  }
  bool broadcast = false;  // every stride 0: one element of storage stands for the whole view
  int64_t numel() const {
    int64_t k = 1;
    for (int64_t d : dims) k *= d;
    return k;
  }
  // How many view elements to fill with data: all, or the one element a broadcast view has.
  int64_t fill_n() const { return broadcast ? std::min<int64_t>(1, numel()) : numel(); }
  // Storage position of view element i (row-major over dims).
  int64_t pos(int64_t i) const {
    int64_t off = offset;
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
      off += (i % dims[d]) * strides[d];
      i /= dims[d];
    }
    return off;
  }
  void set_float(int64_t i, float v) {
    uint8_t *q = buf.get() + pos(i) * esize(dt);
    if (dt == ACL_FLOAT) {
      std::memcpy(q, &v, 4);
    } else if (dt == ACL_FLOAT16 || dt == ACL_BF16) {
      uint16_t h = dt == ACL_FLOAT16 ? aclFloatToFloat16(v) : static_cast<uint16_t>([&] {
        uint32_t u;
        std::memcpy(&u, &v, 4);
        return u >> 16;
      }());
      std::memcpy(q, &h, 2);
    }
  }
  void set_int(int64_t i, int64_t v) {
    uint8_t *q = buf.get() + pos(i) * esize(dt);
    if (dt == ACL_INT64) {
      std::memcpy(q, &v, 8);
    } else if (dt == ACL_INT32) {
      int32_t w = static_cast<int32_t>(v);
      std::memcpy(q, &w, 4);
    }
  }
  // Fill the view (or a broadcast view's one element) with fuzz-chosen values: floats, or
  // indices into `hw` positions (index_value). A tensor that was not made (t null) is skipped.
  void fill_floats(Reader &r);
  void fill_indices(Reader &r, int64_t hw);
};

// The largest logical element count of the tensors made for the current input: phase 2 runs only
// when it is small (a zero-stride view of 2^40 elements is for phase 1's size arithmetic, not a
// fuzz iteration of hours).
inline int64_t &max_numel() {
  static int64_t m = 0;
  return m;
}
constexpr int64_t kMaxRunElements = int64_t(1) << 16;
constexpr uint64_t kMaxRunWorkspace = uint64_t(1) << 26;

// Builds a tensor of `dims`: contiguous, a permuted memory order, padded strides, a zero stride,
// or a negative stride, with an offset; the storage is exactly what the view needs (sometimes one
// element short, which aclCreateTensor must refuse). Views of more than kMaxRunElements are
// zero-stride views of one element.
inline std::unique_ptr<Tensor> make(Reader &r, std::vector<int64_t> dims, aclDataType dt,
                                    aclFormat fmt) {
  auto t = std::make_unique<Tensor>();
  t->dims = dims;
  t->dt = dt;
  const size_t nd = dims.size();
  int64_t count = 1, span = 1;  // span: zero dims counted as 1 (the strides' product)
  for (int64_t d : dims) {
    if (d >= 0 && __builtin_mul_overflow(count, d, &count)) count = INT64_MAX;
    if (__builtin_mul_overflow(span, std::max<int64_t>(d, 1), &span)) span = INT64_MAX;
  }
  max_numel() = std::max(max_numel(), count);
  // A negative dim (aclCreateTensor refuses it) or a view too large to back with memory: a
  // zero-stride view of one element (the storage the harness can afford).
  bool negative = false;
  for (int64_t d : dims) negative |= d < 0;
  if (negative || span > kMaxRunElements) {
    t->broadcast = true;
    t->strides.assign(nd, 0);
    t->offset = r.small(0, 2);
    int64_t storage = t->offset + 1;
    t->bytes = static_cast<size_t>(storage * esize(dt));
    t->buf.reset(new uint8_t[t->bytes]);
    std::memset(t->buf.get(), 0x5a, t->bytes);
    t->t = aclCreateTensor(dims.data(), nd, dt, t->strides.data(), t->offset, fmt, &storage, 1,
                           t->buf.get());
    if (!t->t) aclGetRecentErrMsg();
    return t;
  }
  std::vector<int> perm(nd);
  std::iota(perm.begin(), perm.end(), 0);
  const int layout = r.pick(6);
  if (layout == 1 && nd > 1) std::rotate(perm.begin() + 1, perm.begin() + 2, perm.end());
  if (layout == 2) std::reverse(perm.begin(), perm.end());
  const int64_t gap = layout == 3 ? r.small(1, 3) : 0;
  t->strides.assign(nd, 1);
  int64_t s = 1;
  for (int k = static_cast<int>(nd) - 1; k >= 0; --k) {
    t->strides[perm[k]] = s;
    s = s * std::max<int64_t>(dims[perm[k]], 1) + gap;
  }
  if (layout == 4 && nd > 0) t->strides[r.pick(static_cast<int>(nd))] = 0;
  int64_t lo = 0, hi = 0;
  bool empty = false;
  for (size_t i = 0; i < nd; ++i) empty |= dims[i] == 0;
  if (layout == 5 && nd > 0 && !empty) {
    const int d = r.pick(static_cast<int>(nd));
    t->strides[d] = -t->strides[d];
  }
  for (size_t i = 0; i < nd && !empty; ++i) {
    const int64_t span = (dims[i] - 1) * t->strides[i];
    if (span > 0)
      hi += span;
    else
      lo += span;
  }
  t->offset = -lo + r.small(0, 2);
  int64_t storage = empty ? 0 : t->offset + hi + 1;
  if (r.pick(32) == 0 && storage > 0) --storage;  // a view that does not fit
  t->bytes = static_cast<size_t>(std::max<int64_t>(storage, 0) * esize(dt));
  t->buf.reset(new uint8_t[t->bytes ? t->bytes : 1]);
  std::memset(t->buf.get(), 0x5a, t->bytes ? t->bytes : 1);
  t->t = aclCreateTensor(dims.data(), nd, dt, t->strides.data(), t->offset, fmt, &storage, 1,
                         t->bytes ? t->buf.get() : nullptr);
  if (!t->t) aclGetRecentErrMsg();
  return t;
}

inline aclDataType float_dtype(Reader &r) {
  static const aclDataType k[] = {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT16, ACL_BF16,
                                  ACL_FLOAT, ACL_INT32, ACL_DOUBLE,  ACL_INT8};
  return k[r.pick(8)];
}
inline aclFormat format(Reader &r) {
  static const aclFormat k[] = {ACL_FORMAT_NCHW,    ACL_FORMAT_NCHW, ACL_FORMAT_ND,
                                ACL_FORMAT_NHWC,    ACL_FORMAT_NCL,  ACL_FORMAT_FRACTAL_Z,
                                ACL_FORMAT_NC1HWC0, ACL_FORMAT_HWCN};
  return k[r.pick(8)];
}
inline std::vector<int64_t> int_array(Reader &r) {
  static const int kLen[] = {1, 2, 2, 1, 0, 3};
  std::vector<int64_t> v(kLen[r.pick(6)]);
  for (auto &x : v) x = r.pick(16) == 0 ? (int64_t(1) << 40) : r.small(-1, 5);
  return v;
}
// A value for an index tensor: mostly valid positions, sometimes -1 or out of range.
inline int64_t index_value(Reader &r, int64_t hw) {
  switch (r.pick(12)) {
    case 0:
      return -1;
    case 1:
      return hw;
    case 2:
      return -2;
    case 3:
      return std::numeric_limits<int32_t>::max();
    case 4:
      return std::numeric_limits<int64_t>::min();
    default:
      return hw > 0 ? r.u8() % hw : 0;
  }
}

inline void Tensor::fill_floats(Reader &r) {
  if (t)
    for (int64_t i = 0; i < fill_n(); ++i) set_float(i, r.f32());
}
inline void Tensor::fill_indices(Reader &r, int64_t hw) {
  if (t)
    for (int64_t i = 0; i < fill_n(); ++i) set_int(i, index_value(r, hw));
}

// Phase 1 then, if accepted, phase 2; a refused call must leave a message.
template <class P1, class P2>
inline void run(P1 phase1, P2 phase2) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  aclnnStatus st = phase1(&ws, &ex);
  if (st != ACLNN_SUCCESS) {
    max_numel() = 0;
    const char *m = aclGetRecentErrMsg();
    if (!m || !*m) __builtin_trap();  // every refusal names its reason
    return;
  }
  const bool small = max_numel() <= kMaxRunElements && ws <= kMaxRunWorkspace;
  max_numel() = 0;
  if (!small) {
    aclDestroyAclOpExecutor(ex);
    return;
  }
  // Exactly the bytes phase 1 asked for: ASan sees a kernel that uses more.
  std::vector<uint8_t> workspace(ws);
  st = phase2(ws ? workspace.data() : nullptr, ws, ex);
  if (st != ACLNN_SUCCESS) {
    const char *m = aclGetRecentErrMsg();
    if (!m || !*m) __builtin_trap();
  }
}

}  // namespace fz
