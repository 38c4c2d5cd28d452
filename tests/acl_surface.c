/* SPDX-License-Identifier: Apache-2.0 */
/* The ACL functions CANN's example programs call around an aclnn call (tests/acl_surface.txt),
 * used as such a program's shared set-up code uses them, compiled as C99 against poolgrad's
 * headers. Each check prints what failed; the exit status is the number of failures. */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "poolgrad/poolgrad.h"

static int failures = 0;
#define CHECK(cond)                                    \
  do {                                                 \
    if (!(cond)) {                                     \
      printf("FAILED line %d: %s\n", __LINE__, #cond); \
      ++failures;                                      \
    }                                                  \
  } while (0)

int main(void) {
  CHECK(aclInit(NULL) == ACL_SUCCESS);
  CHECK(aclrtSetDevice(0) == ACL_SUCCESS);

  /* Run mode and SoC name. */
  aclrtRunMode mode = ACL_DEVICE;
  CHECK(aclrtGetRunMode(&mode) == ACL_SUCCESS && mode == ACL_HOST);
  CHECK(aclrtGetRunMode(NULL) == ACL_ERROR_INVALID_PARAM);
  const char *soc = aclrtGetSocName();
  CHECK(soc != NULL && strcmp(soc, "Ascend950") == 0);

  /* Contexts: per-thread bindings. */
  aclrtContext def = NULL, ctx = NULL, cur = NULL;
  CHECK(aclrtGetCurrentContext(&def) == ACL_SUCCESS && def != NULL); /* the device's default */
  CHECK(aclrtCreateContext(&ctx, 0) == ACL_SUCCESS && ctx != NULL && ctx != def);
  CHECK(aclrtGetCurrentContext(&cur) == ACL_SUCCESS && cur == ctx);
  CHECK(aclrtSetCurrentContext(def) == ACL_ERROR_INVALID_PARAM); /* not the caller's own */
  CHECK(aclrtCreateContext(&cur, 1) == ACL_ERROR_RT_INVALID_DEVICEID);
  CHECK(aclrtSetCurrentContext(ctx) == ACL_SUCCESS);

  /* Streams, asynchronous copies in stream order, synchronisation with a timeout. */
  aclrtStream stream = NULL;
  CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS);
  void *dev = NULL;
  CHECK(aclrtMalloc(&dev, 32, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  float host[16] = {0}, back[16] = {0};
  for (int i = 0; i < 16; ++i) host[i] = (float)i;
  CHECK(aclrtMemsetAsync(dev, 64, 0, 64, stream) == ACL_SUCCESS); /* CANN's padded 64 bytes */
  CHECK(aclrtMemcpyAsync(dev, 32, host, 32, ACL_MEMCPY_HOST_TO_DEVICE, stream) == ACL_SUCCESS);
  CHECK(aclrtSynchronizeStreamWithTimeout(stream, 5000) == ACL_SUCCESS);
  CHECK(aclrtSynchronizeStreamWithTimeout(stream, -1) == ACL_SUCCESS);
  CHECK(aclrtSynchronizeStreamWithTimeout(stream, -2) == ACL_ERROR_INVALID_PARAM);
  CHECK(aclrtMemcpy(back, sizeof back, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
  CHECK(back[7] == 7.0f && back[8] == 0.0f && back[15] == 0.0f);
  CHECK(aclrtMemcpyAsync(back, 4, dev, 4, ACL_MEMCPY_DEVICE_TO_HOST, (aclrtStream)host) ==
        ACL_ERROR_INVALID_PARAM); /* not a stream */

  /* Tensors, aclInitTensor, tensor lists (which own their tensors). */
  int64_t dims[2] = {2, 8}, strides[2] = {8, 1}, n = 16;
  aclTensor *t0 = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, &n, 1, dev);
  aclTensor *t1 = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, &n, 1, dev);
  int64_t flat[1] = {16}, one[1] = {1};
  CHECK(aclInitTensor(t1, flat, 1, ACL_FLOAT, one, 0, ACL_FORMAT_ND, &n, 1, dev) == ACLNN_SUCCESS);
  aclDataType dt = ACL_DT_UNDEFINED;
  CHECK(aclGetDataType(t1, &dt) == ACLNN_SUCCESS && dt == ACL_FLOAT);
  int64_t too_big[1] = {17};
  CHECK(aclInitTensor(t1, too_big, 1, ACL_FLOAT, one, 0, ACL_FORMAT_ND, &n, 1, dev) ==
        ACLNN_ERR_PARAM_INVALID);
  CHECK(aclInitTensor(NULL, flat, 1, ACL_FLOAT, one, 0, ACL_FORMAT_ND, &n, 1, dev) ==
        ACLNN_ERR_PARAM_NULLPTR);
  const aclTensor *items[2] = {t0, t1};
  aclTensorList *list = aclCreateTensorList(items, 2);
  uint64_t size = 0;
  CHECK(list != NULL && aclGetTensorListSize(list, &size) == ACLNN_SUCCESS && size == 2);
  CHECK(aclCreateTensorList(NULL, 2) == NULL);
  CHECK(aclDestroyTensorList(list) == ACLNN_SUCCESS); /* t0 and t1 go with it */

  /* Scalars and scalar lists (which own their scalars). */
  float alpha = 1.5f;
  double beta = -2.0;
  aclScalar *s0 = aclCreateScalar(&alpha, ACL_FLOAT), *s1 = aclCreateScalar(&beta, ACL_DOUBLE);
  CHECK(s0 != NULL && s1 != NULL);
  CHECK(aclCreateScalar(NULL, ACL_FLOAT) == NULL);
  const aclScalar *scalars[2] = {s0, s1};
  aclScalarList *slist = aclCreateScalarList(scalars, 2);
  CHECK(slist != NULL && aclGetScalarListSize(slist, &size) == ACLNN_SUCCESS && size == 2);
  CHECK(aclDestroyScalarList(slist) == ACLNN_SUCCESS);
  aclScalar *s2 = aclCreateScalar(&alpha, ACL_FLOAT16);
  CHECK(aclDestroyScalar(s2) == ACLNN_SUCCESS);

  /* Tensor descriptions and data buffers. */
  int64_t ddims[3] = {2, 3, 4};
  aclTensorDesc *desc = aclCreateTensorDesc(ACL_FLOAT16, 3, ddims, ACL_FORMAT_NCHW);
  int64_t d1 = 0;
  CHECK(desc != NULL && aclGetTensorDescNumDims(desc) == 3);
  CHECK(aclGetTensorDescDimV2(desc, 1, &d1) == ACL_SUCCESS && d1 == 3);
  CHECK(aclGetTensorDescDimV2(desc, 3, &d1) == ACL_ERROR_INVALID_PARAM);
  CHECK(aclGetTensorDescType(desc) == ACL_FLOAT16 &&
        aclGetTensorDescFormat(desc) == ACL_FORMAT_NCHW);
  CHECK(aclGetTensorDescElementCount(desc) == 24 && aclGetTensorDescSize(desc) == 48);
  CHECK(aclGetTensorDescType(NULL) == ACL_DT_UNDEFINED && aclGetTensorDescSize(NULL) == 0);
  aclDestroyTensorDesc(desc);
  aclDataBuffer *buf = aclCreateDataBuffer(dev, 32);
  CHECK(buf != NULL && aclGetDataBufferAddr(buf) == dev && aclGetDataBufferSizeV2(buf) == 32);
  CHECK(aclDestroyDataBuffer(buf) == ACL_SUCCESS);
  CHECK(aclDestroyDataBuffer(NULL) == ACL_ERROR_INVALID_PARAM);

  /* Tear-down in CANN's order. */
  CHECK(aclrtFree(dev) == ACL_SUCCESS);
  CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
  CHECK(aclrtDestroyContext(ctx) == ACL_SUCCESS);
  CHECK(aclrtDestroyContext(ctx) == ACL_ERROR_INVALID_PARAM);
  CHECK(aclrtGetCurrentContext(&cur) == ACL_SUCCESS && cur == def); /* back to the default */
  CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
  CHECK(aclrtGetCurrentContext(&cur) == ACL_ERROR_RT_CONTEXT_NULL);
  CHECK(aclFinalize() == ACL_SUCCESS);
  (void)aclGetRecentErrMsg();
  printf("acl surface: %d failures\n", failures);
  return failures;
}
