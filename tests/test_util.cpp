// SPDX-License-Identifier: Apache-2.0
#include "test_util.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include <cstdlib>

#include "aclnn/acl_meta.h"

namespace pgtest {

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("f16c"))) float f16_to_f32(uint16_t h) {
  return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h)));
}
__attribute__((target("f16c"))) uint16_t f32_to_f16(float f) {
  return static_cast<uint16_t>(_mm_cvtsi128_si32(_mm_cvtps_ph(_mm_set_ss(f), 0)));
}
#elif defined(__aarch64__)
// The hardware's own conversions (FCVT): round to nearest even, NaNs quieted with their payload.
float f16_to_f32(uint16_t h) {
  __fp16 v;
  std::memcpy(&v, &h, 2);
  return static_cast<float>(v);
}
uint16_t f32_to_f16(float f) {
  const __fp16 v = static_cast<__fp16>(f);
  uint16_t h;
  std::memcpy(&h, &v, 2);
  return h;
}
#endif

float round_to(aclDataType dt, float v) {
  if (dt == ACL_FLOAT16) return f16_to_f32(f32_to_f16(v));
  if (dt == ACL_BF16) return bf16_to_f32(f32_to_bf16(v));
  return v;
}

Profile::Profile(const char *soc) {
  setenv("POOLGRAD_SOC", soc, 1);
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS) << last_msg();
}

Profile::~Profile() {
  aclFinalize();
  unsetenv("POOLGRAD_SOC");
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);  // back to the default profile
  aclFinalize();
}

void *workspace(uint64_t bytes) {
  // Exactly `bytes` long, so that AddressSanitizer catches a kernel that uses more than phase 1
  // asked for.
  thread_local std::vector<unsigned char> buf;
  if (bytes == 0) return nullptr;
  if (buf.size() != bytes) std::vector<unsigned char>(bytes).swap(buf);
  return buf.data();
}

int64_t elem_size(aclDataType dt) {
  const size_t n = aclDataTypeSize(dt);  // 0 for sub-byte and unknown dtypes: one byte here
  return n ? static_cast<int64_t>(n) : 1;
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t> &dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * std::max<int64_t>(dims[i + 1], 1);
  return s;
}

HostTensor::HostTensor(std::vector<int64_t> dims, aclDataType dt, aclFormat fmt)
    : dims_(std::move(dims)), dt_(dt), fmt_(fmt) {
  strides_ = contiguous_strides(dims_);
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  init(n);
}

HostTensor::HostTensor(std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t offset,
                       int64_t storage_elems, aclDataType dt, aclFormat fmt)
    : dims_(std::move(dims)), strides_(std::move(strides)), offset_(offset), dt_(dt), fmt_(fmt) {
  init(storage_elems);
}

void HostTensor::init(int64_t storage_elems) {
  storage_elems_ = storage_elems;
  const int64_t es = elem_size(dt_);
  // The storage starts on a 64-byte boundary, as a framework's allocations do (the kernels'
  // streaming stores need whole cache lines); the bytes before it are guard bytes too.
  buf_.assign(kGuardBytes * 2 + 64 + static_cast<size_t>(storage_elems * es), kGuard);
  const uintptr_t at = reinterpret_cast<uintptr_t>(buf_.data()) + kGuardBytes;
  lead_ = kGuardBytes + (64 - at % 64) % 64;
  in_view_.assign(static_cast<size_t>(storage_elems), 0);
  for (int64_t i = 0; i < numel(); ++i) in_view_[storage_index(i)] = 1;
  std::vector<int64_t> sdims = {storage_elems};
  t_ = aclCreateTensor(dims_.data(), dims_.size(), dt_, strides_.data(), offset_, fmt_,
                       sdims.data(), 1, buf_.data() + lead_);
  EXPECT_NE(t_, nullptr) << last_msg();
}

HostTensor &HostTensor::operator=(HostTensor &&o) noexcept {
  if (t_) aclDestroyTensor(t_);
  dims_ = std::move(o.dims_);
  strides_ = std::move(o.strides_);
  offset_ = o.offset_;
  storage_elems_ = o.storage_elems_;
  dt_ = o.dt_;
  fmt_ = o.fmt_;
  buf_ = std::move(o.buf_);
  lead_ = o.lead_;
  in_view_ = std::move(o.in_view_);
  t_ = o.t_;
  o.t_ = nullptr;
  return *this;
}

HostTensor::~HostTensor() {
  if (t_) aclDestroyTensor(t_);
}

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

int64_t HostTensor::storage_index(int64_t i) const {
  int64_t off = offset_;
  for (int d = static_cast<int>(dims_.size()) - 1; d >= 0; --d) {
    off += (i % dims_[d]) * strides_[d];
    i /= dims_[d];
  }
  return off;
}

const uint8_t *HostTensor::addr(int64_t i) const {
  return buf_.data() + lead_ + storage_index(i) * elem_size(dt_);
}

uint8_t *HostTensor::addr(int64_t i) {
  return buf_.data() + lead_ + storage_index(i) * elem_size(dt_);
}

float HostTensor::get(int64_t i) const {
  const uint8_t *p = addr(i);
  if (dt_ == ACL_FLOAT) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return dt_ == ACL_FLOAT16 ? f16_to_f32(h) : bf16_to_f32(h);
}

void HostTensor::set(int64_t i, float v) {
  uint8_t *p = addr(i);
  if (dt_ == ACL_FLOAT) {
    std::memcpy(p, &v, 4);
    return;
  }
  uint16_t h = dt_ == ACL_FLOAT16 ? f32_to_f16(v) : f32_to_bf16(v);
  std::memcpy(p, &h, 2);
}

double HostTensor::get_double(int64_t i) const {
  double d;
  std::memcpy(&d, addr(i), 8);
  return d;
}

void HostTensor::set_double(int64_t i, double v) {
  std::memcpy(addr(i), &v, 8);
}

uint16_t HostTensor::get_bits16(int64_t i) const {
  uint16_t h;
  std::memcpy(&h, addr(i), 2);
  return h;
}

void HostTensor::set_bits16(int64_t i, uint16_t bits) {
  std::memcpy(addr(i), &bits, 2);
}

int64_t HostTensor::get_int(int64_t i) const {
  const uint8_t *p = addr(i);
  if (dt_ == ACL_INT64) {
    int64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (dt_ == ACL_INT8 || dt_ == ACL_UINT8 || dt_ == ACL_BOOL)
    return dt_ == ACL_INT8 ? static_cast<int8_t>(*p) : *p;
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

void HostTensor::set_int(int64_t i, int64_t v) {
  uint8_t *p = addr(i);
  if (dt_ == ACL_INT64) {
    std::memcpy(p, &v, 8);
  } else if (dt_ == ACL_INT8 || dt_ == ACL_UINT8 || dt_ == ACL_BOOL) {
    *p = static_cast<uint8_t>(v);
  } else {
    int32_t w = static_cast<int32_t>(v);
    std::memcpy(p, &w, 4);
  }
}

bool HostTensor::guards_intact() const {
  const size_t end = lead_ + static_cast<size_t>(storage_elems_ * elem_size(dt_));
  for (size_t i = 0; i < lead_; ++i)
    if (buf_[i] != kGuard) return false;
  for (size_t i = end; i < buf_.size(); ++i)
    if (buf_[i] != kGuard) return false;
  return true;
}

bool HostTensor::outside_view_untouched() const {
  const int64_t es = elem_size(dt_);
  for (int64_t s = 0; s < storage_elems_; ++s) {
    if (in_view_[s]) continue;
    for (int64_t b = 0; b < es; ++b)
      if (buf_[lead_ + s * es + b] != kGuard) return false;
  }
  return guards_intact();
}

std::vector<float> HostTensor::values() const {
  std::vector<float> v(static_cast<size_t>(numel()));
  for (int64_t i = 0; i < numel(); ++i) v[i] = get(i);
  return v;
}

HostTensor make_strided(const std::vector<int64_t> &dims, const std::vector<int> &perm, int64_t gap,
                        int64_t offset, aclDataType dt, aclFormat fmt) {
  std::vector<int64_t> strides(dims.size());
  int64_t s = 1;
  for (int k = static_cast<int>(perm.size()) - 1; k >= 0; --k) {
    strides[perm[k]] = s;
    s = s * std::max<int64_t>(dims[perm[k]], 1) + gap;
  }
  return HostTensor(dims, strides, offset, offset + s, dt, fmt);
}

}  // namespace pgtest
