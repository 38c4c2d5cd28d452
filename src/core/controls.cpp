// SPDX-License-Identifier: Apache-2.0
// poolgrad's own controls (threads, version) and the small ACL helpers that are not runtime calls.
#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "dtype.h"
#include "isa.h"
#include "poolgrad/poolgrad.h"
#include "threads.h"

using namespace poolgrad;

extern "C" {

void poolgradSetNumThreads(int n) {
  set_num_threads(n);
}
int poolgradGetNumThreads(void) {
  return num_threads();
}
void poolgradSetThreadNumThreads(int n) {
  set_thread_num_threads(n);
}
void poolgradSetThreadDoubleDtype(int enable) {
  set_thread_double_dtype(enable != 0);
}
const char *poolgradVersion(void) {
  return "0.1.0";
}
int poolgradSetCpuCapability(const char *capability) {
  return set_isa_cap(capability) ? 0 : -1;
}

float aclFloat16ToFloat(aclFloat16 value) {
  return half_to_float(value);
}
aclFloat16 aclFloatToFloat16(float value) {
  return float_to_half(value);
}
aclnnStatus aclnnInit(const char *) {
  return ACLNN_SUCCESS;
}
aclnnStatus aclnnFinalize(void) {
  return ACLNN_SUCCESS;
}

size_t aclDataTypeSize(aclDataType dataType) {
  return static_cast<size_t>(dtype_size(dataType));
}

}  // extern "C"
