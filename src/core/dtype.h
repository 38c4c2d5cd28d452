// SPDX-License-Identifier: Apache-2.0
// Dtypes and formats: names, sizes (the one table), float16 / bfloat16 conversions, the DOUBLE
// extension's switch.
#pragma once

#include <cstdint>

#include "aclnn/aclnn_base.h"

namespace poolgrad {

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

// poolgrad's DOUBLE extension (poolgradSetThreadDoubleDtype), for calls from this thread: the
// max-pool family's operators then also take DOUBLE data beyond CANN's dtype lists.
void set_thread_double_dtype(bool on);
bool thread_double_dtype();

}  // namespace poolgrad
