// SPDX-License-Identifier: Apache-2.0
// Dtypes and formats: names, sizes, and the float16 / bfloat16 conversions (round to nearest even).
#include "dtype.h"

#include <cstring>

namespace poolgrad {

static inline uint32_t f2u(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
static inline float u2f(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    if (mant == 0) return u2f(sign);
    float v = static_cast<float>(mant) * 5.9604644775390625e-8f;  // mant * 2^-24
    return u2f(sign | f2u(v));
  }
  // A NaN is made quiet, its payload kept (as F16C's vcvtph2ps does: the AVX2 kernels use it).
  if (exp == 31) return u2f(sign | 0x7f800000u | (mant << 13) | (mant ? 0x400000u : 0u));
  return u2f(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t float_to_half(float f) {
  uint32_t x = f2u(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x > 0x7f800000u)  // a NaN: quiet, the top of its payload kept (as F16C's vcvtps2ph)
    return static_cast<uint16_t>(sign | 0x7e00u | ((x >> 13) & 0x3ffu));
  if (x >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // infinity, or rounds to it
  if (x < 0x38800000u) {
    // Below the smallest normal half: adding 0.5f aligns the bits so that the low mantissa bits
    // are the correctly rounded (to nearest even) subnormal half.
    float a = u2f(x) + 0.5f;
    return static_cast<uint16_t>(sign | (f2u(a) - 0x3f000000u));
  }
  uint32_t odd = (x >> 13) & 1u;
  x += 0xc8000fffu + odd;  // rebias the exponent (-112 << 23) and round to nearest even
  return static_cast<uint16_t>(sign | (x >> 13));
}

uint16_t float_to_bf16(float f) {
  uint32_t x = f2u(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

const char *dtype_name(aclDataType t) {
  switch (t) {
    case ACL_FLOAT:
      return "FLOAT";
    case ACL_FLOAT16:
      return "FLOAT16";
    case ACL_INT8:
      return "INT8";
    case ACL_INT32:
      return "INT32";
    case ACL_UINT8:
      return "UINT8";
    case ACL_INT16:
      return "INT16";
    case ACL_UINT16:
      return "UINT16";
    case ACL_UINT32:
      return "UINT32";
    case ACL_INT64:
      return "INT64";
    case ACL_UINT64:
      return "UINT64";
    case ACL_DOUBLE:
      return "DOUBLE";
    case ACL_BOOL:
      return "BOOL";
    case ACL_STRING:
      return "STRING";
    case ACL_COMPLEX64:
      return "COMPLEX64";
    case ACL_COMPLEX128:
      return "COMPLEX128";
    case ACL_BF16:
      return "BF16";
    case ACL_INT4:
      return "INT4";
    case ACL_UINT1:
      return "UINT1";
    case ACL_COMPLEX32:
      return "COMPLEX32";
    case ACL_DT_UNDEFINED:
      return "UNDEFINED";
  }
  return "UNKNOWN";
}

int64_t dtype_size(aclDataType t) {
  switch (t) {
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
      return 4;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
      return 2;
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
      return 1;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
      return 8;
    case ACL_COMPLEX128:
      return 16;
    case ACL_COMPLEX32:
      return 4;
    default:
      return 0;
  }
}

const char *format_name(aclFormat f) {
  switch (f) {
    case ACL_FORMAT_UNDEFINED:
      return "UNDEFINED";
    case ACL_FORMAT_NCHW:
      return "NCHW";
    case ACL_FORMAT_NHWC:
      return "NHWC";
    case ACL_FORMAT_ND:
      return "ND";
    case ACL_FORMAT_NC1HWC0:
      return "NC1HWC0";
    case ACL_FORMAT_FRACTAL_Z:
      return "FRACTAL_Z";
    case ACL_FORMAT_NC1HWC0_C04:
      return "NC1HWC0_C04";
    case ACL_FORMAT_HWCN:
      return "HWCN";
    case ACL_FORMAT_NDHWC:
      return "NDHWC";
    case ACL_FORMAT_FRACTAL_NZ:
      return "FRACTAL_NZ";
    case ACL_FORMAT_NCDHW:
      return "NCDHW";
    case ACL_FORMAT_NDC1HWC0:
      return "NDC1HWC0";
    case ACL_FRACTAL_Z_3D:
      return "FRACTAL_Z_3D";
    case ACL_FORMAT_NC:
      return "NC";
    case ACL_FORMAT_NCL:
      return "NCL";
  }
  return "UNKNOWN";
}

bool is_known_format(aclFormat f) {
  return std::strcmp(format_name(f), "UNKNOWN") != 0;
}

bool is_private_format(aclFormat f) {
  switch (f) {
    case ACL_FORMAT_ND:
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
    case ACL_FORMAT_HWCN:
    case ACL_FORMAT_NDHWC:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NC:
    case ACL_FORMAT_NCL:
      return false;
    default:
      return true;
  }
}

namespace {
thread_local bool t_double = false;  // per thread: PyTorch's layer sets it around its own calls
}  // namespace

void set_thread_double_dtype(bool on) {
  t_double = on;
}
bool thread_double_dtype() {
  return t_double;
}

}  // namespace poolgrad
