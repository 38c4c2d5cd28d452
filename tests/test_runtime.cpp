// SPDX-License-Identifier: Apache-2.0
// The ACL runtime subset, tensor handles and executors.
#include <cstdio>
#include <thread>

#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "test_util.h"

using namespace pgtest;

namespace {

TEST(Runtime, InitFinalizeAndErrors) {
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_NE(last_msg().find("aclInit"), std::string::npos);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
  last_msg();
  EXPECT_EQ(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_FILE);
  EXPECT_NE(last_msg().find("/nonexistent/acl.json"), std::string::npos);
  const char *path = "poolgrad_test_acl.json";
  FILE *f = std::fopen(path, "w");
  std::fputs("{}\n", f);
  std::fclose(f);
  EXPECT_EQ(aclInit(path), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  f = std::fopen(path, "w");
  std::fputs("not json", f);
  std::fclose(f);
  EXPECT_EQ(aclInit(path), ACL_ERROR_PARSE_FILE);
  last_msg();
  std::remove(path);
}

TEST(Runtime, DevicesAndStreams) {
  EXPECT_EQ(aclrtSetDevice(1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_NE(last_msg().find("deviceId"), std::string::npos);
  int32_t dev = -5;
  EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtGetDevice(&dev), ACL_SUCCESS);
  EXPECT_EQ(dev, 0);
  EXPECT_EQ(aclrtGetDevice(nullptr), ACL_ERROR_INVALID_PARAM);
  uint32_t count = 0;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(count, 1u);
  aclrtStream s = nullptr;
  EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_ERROR_INVALID_PARAM);  // already destroyed
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM);
  last_msg();
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtResetDevice(3), ACL_ERROR_RT_INVALID_DEVICEID);
  last_msg();
}

TEST(Runtime, Memory) {
  void *p = nullptr;
  ASSERT_EQ(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  EXPECT_EQ(aclrtMemset(p, 100, 0x5a, 100), ACL_SUCCESS);
  EXPECT_EQ(static_cast<unsigned char *>(p)[99], 0x5a);
  EXPECT_EQ(aclrtMemset(p, 100, 0, 101), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemset(nullptr, 100, 0, 10), ACL_ERROR_INVALID_PARAM);
  char host[200] = {0};
  EXPECT_EQ(aclrtMemcpy(host, 100, p, 100, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(host[0], 0x5a);
  EXPECT_EQ(aclrtMemcpy(host, 50, p, 100, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(nullptr, 50, p, 10, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(host, 50, p, 10, static_cast<aclrtMemcpyKind>(9)), ACL_ERROR_INVALID_PARAM);
  // The kind is checked against where each side lives: device memory is aclrtMalloc's.
  EXPECT_EQ(aclrtMemcpy(host, 100, p, 100, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(pgtest::last_msg().find("dst"), std::string::npos);
  EXPECT_EQ(aclrtMemcpy(host, 100, host + 50, 50, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(pgtest::last_msg().find("src"), std::string::npos);
  EXPECT_EQ(aclrtMemcpy(p, 100, host, 100, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  // CANN's padding: 100 bytes asked for are 128 + 32 = 160 bytes of device memory.
  EXPECT_EQ(aclrtMemcpy(static_cast<char *>(p) + 50, 110, host, 110, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(static_cast<char *>(p) + 50, 111, host, 111, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);  // one byte past the padded allocation
  pgtest::last_msg();
  {  // A 32-byte request reads back 64 bytes, as CANN's aclnnAdaptiveMaxPool3d sample does.
    void *small = nullptr;
    ASSERT_EQ(aclrtMalloc(&small, 32, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(host, 64, small, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(host, 65, small, 65, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
    pgtest::last_msg();
    EXPECT_EQ(aclrtFree(small), ACL_SUCCESS);
  }
  EXPECT_EQ(aclrtMemcpy(host + 50, 50, host, 50, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(p, 100, p, 100, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(aclrtMalloc(nullptr, 10, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  void *q = nullptr;
  EXPECT_EQ(aclrtMalloc(&q, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMalloc(&q, 10, static_cast<aclrtMemMallocPolicy>(7)), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMalloc(&q, size_t(1) << 62, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_BAD_ALLOC);
  EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(p), ACL_ERROR_INVALID_PARAM);  // double free is an error, not a crash
  EXPECT_NE(last_msg().find("already freed"), std::string::npos);
  int local = 0;
  EXPECT_EQ(aclrtFree(&local), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMallocHost(&q, 16), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(q), ACL_SUCCESS);
  last_msg();
}

TEST(Runtime, SysParamOpt) {
  EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
  int64_t v = -1;
  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_SUCCESS);
  EXPECT_EQ(v, 1);
  EXPECT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 5), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetSysParamOpt(static_cast<aclSysParamOpt>(42), 0), ACL_ERROR_INVALID_PARAM);
  last_msg();
}

TEST(ErrorMessages, ThreadLocalAndClearedOnRead) {
  EXPECT_EQ(aclrtSetDevice(9), ACL_ERROR_RT_INVALID_DEVICEID);
  std::string other;
  std::thread t([&] {
    const char *m = aclGetRecentErrMsg();
    other = m ? m : "";
  });
  t.join();
  EXPECT_EQ(other, "");
  const char *m = aclGetRecentErrMsg();
  ASSERT_NE(m, nullptr);
  EXPECT_NE(std::string(m).find("aclrtSetDevice"), std::string::npos);
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
}

TEST(Tensors, CreateAndGetters) {
  int64_t dims[] = {2, 3}, strides[] = {1, 2}, storage[] = {8};
  float data[8];
  aclTensor *t = aclCreateTensor(dims, 2, ACL_FLOAT16, strides, 1, ACL_FORMAT_ND, storage, 1, data);
  ASSERT_NE(t, nullptr);
  int64_t *v = nullptr;
  uint64_t n = 0;
  ASSERT_EQ(aclGetViewShape(t, &v, &n), ACLNN_SUCCESS);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(v[0], 2);
  EXPECT_EQ(v[1], 3);
  delete[] v;
  ASSERT_EQ(aclGetViewStrides(t, &v, &n), ACLNN_SUCCESS);
  EXPECT_EQ(v[1], 2);
  delete[] v;
  ASSERT_EQ(aclGetStorageShape(t, &v, &n), ACLNN_SUCCESS);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(v[0], 8);
  delete[] v;
  int64_t off = 0;
  EXPECT_EQ(aclGetViewOffset(t, &off), ACLNN_SUCCESS);
  EXPECT_EQ(off, 1);
  aclFormat f;
  EXPECT_EQ(aclGetFormat(t, &f), ACLNN_SUCCESS);
  EXPECT_EQ(f, ACL_FORMAT_ND);
  aclDataType dt;
  EXPECT_EQ(aclGetDataType(t, &dt), ACLNN_SUCCESS);
  EXPECT_EQ(dt, ACL_FLOAT16);
  EXPECT_EQ(aclGetViewShape(nullptr, &v, &n), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewShape(t, nullptr, &n), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetDataType(t, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  last_msg();
  EXPECT_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
  int64_t vals[] = {3, 4, 5};
  aclIntArray *a = aclCreateIntArray(vals, 3);
  uint64_t size = 0;
  EXPECT_EQ(aclGetIntArraySize(a, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(aclDestroyIntArray(a), ACLNN_SUCCESS);
  EXPECT_EQ(aclCreateIntArray(nullptr, 2), nullptr);
  last_msg();
  aclIntArray *empty = aclCreateIntArray(nullptr, 0);
  ASSERT_NE(empty, nullptr);
  aclDestroyIntArray(empty);
}

TEST(Tensors, ViewMustLieInsideStorage) {
  float data[16];
  int64_t dims[] = {4, 4}, st[] = {4, 1}, sd15[] = {15}, sd16[] = {16};
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, sd15, 1, data), nullptr);
  std::string m = last_msg();
  EXPECT_NE(m.find("aclCreateTensor"), std::string::npos) << m;
  EXPECT_NE(m.find("outside the storage"), std::string::npos) << m;
  aclTensor *ok = aclCreateTensor(dims, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, sd16, 1, data);
  EXPECT_NE(ok, nullptr);
  aclDestroyTensor(ok);
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, st, 1, ACL_FORMAT_ND, sd16, 1, data), nullptr);
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, st, -1, ACL_FORMAT_ND, sd16, 1, data), nullptr);
  int64_t neg[] = {-4, 1};
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, neg, 0, ACL_FORMAT_ND, sd16, 1, data), nullptr);
  aclTensor *negok = aclCreateTensor(dims, 2, ACL_FLOAT, neg, 12, ACL_FORMAT_ND, sd16, 1, data);
  EXPECT_NE(negok, nullptr);  // a flipped view that stays inside
  aclDestroyTensor(negok);
  // D8: a negative dim makes a tensor (as CANN's aclCreateTensor does) that describes no element;
  // every operator refuses it with 161002 naming the parameter.
  int64_t bad_dims[] = {-1, 4};
  aclTensor *neg_dim = aclCreateTensor(bad_dims, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, sd16, 1, data);
  ASSERT_NE(neg_dim, nullptr) << last_msg();
  aclDestroyTensor(neg_dim);
  int64_t huge[] = {int64_t(1) << 40, int64_t(1) << 40}, huge_st[] = {int64_t(1) << 40, 1};
  EXPECT_EQ(aclCreateTensor(huge, 2, ACL_FLOAT, huge_st, 0, ACL_FORMAT_ND, huge, 2, data), nullptr);
  EXPECT_NE(last_msg().find("overflows"), std::string::npos);
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, st, 0, static_cast<aclFormat>(1234), sd16, 1, data),
            nullptr);
  EXPECT_EQ(
      aclCreateTensor(dims, 2, static_cast<aclDataType>(555), st, 0, ACL_FORMAT_ND, sd16, 1, data),
      nullptr);
  EXPECT_EQ(aclCreateTensor(nullptr, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, sd16, 1, data), nullptr);
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, sd16, 1, data), nullptr);
  last_msg();
  // An empty view needs no storage.
  int64_t edims[] = {0, 4}, zero[] = {0};
  aclTensor *e = aclCreateTensor(edims, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, zero, 1, nullptr);
  EXPECT_NE(e, nullptr);
  aclDestroyTensor(e);
}

TEST(Executors, RepeatableRunsManyTimesAndHandlesMayGoFirst) {
  auto *x = new HostTensor({1, 1, 2, 2}, ACL_FLOAT);
  auto *out = new HostTensor({1, 1, 1, 1}, ACL_FLOAT);
  auto *idx = new HostTensor({1, 1, 1, 1}, ACL_INT32);
  for (int i = 0; i < 4; ++i) x->set(i, static_cast<float>(i == 2 ? 9 : i));
  auto *k = new IntArray({2});
  auto *s = new IntArray({});
  auto *p = new IntArray({0});
  auto *d = new IntArray({1});
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x->t(), *k, *s, *p, *d, false, out->t(),
                                                      idx->t(), &ws, &ex),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), ACLNN_SUCCESS);
  // The attribute arrays may be destroyed before phase 2, as CANN samples do.
  delete k;
  delete s;
  delete p;
  delete d;
  for (int rep = 0; rep < 3; ++rep) {
    x->set(2, static_cast<float>(10 + rep));
    ASSERT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(out->get(0), static_cast<float>(10 + rep));
    EXPECT_EQ(idx->get_int(0), 2);
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyAclOpExecutor(nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(nullptr), ACLNN_ERR_PARAM_NULLPTR);
  last_msg();
  delete x;
  delete out;
  delete idx;
}

TEST(Executors, SingleUseIsConsumedAndMisuseIsDetected) {
  HostTensor x({1, 1, 2, 2}, ACL_FLOAT), out({1, 1, 1, 1}, ACL_FLOAT), idx({1, 1, 1, 1}, ACL_INT32);
  IntArray k({2}), s({}), p({0}), d({1});
  uint64_t ws;
  aclOpExecutor *ex;
  auto phase1 = [&] {
    return aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                     &ws, &ex);
  };
  ASSERT_EQ(phase1(), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
  // Run twice, destroy after the run: the consumed executor is detected, not read.
  EXPECT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(last_msg().find("not a live executor"), std::string::npos);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(last_msg().find("not a live executor"), std::string::npos);
  // Destroyed before running: run and set-repeatable are refused.
  ASSERT_EQ(phase1(), ACLNN_SUCCESS);
  ASSERT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(ex), ACLNN_ERR_PARAM_INVALID);
  last_msg();
  // A workspace larger than asked is fine; a smaller one is refused (and consumes the executor).
  ASSERT_EQ(phase1(), ACLNN_SUCCESS);
  ASSERT_GT(ws, 0u);
  EXPECT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws + 64), ws + 64, ex, nullptr),
            ACLNN_SUCCESS);
  ASSERT_EQ(phase1(), ACLNN_SUCCESS);
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws - 1, ex, nullptr),
                    ACLNN_ERR_PARAM_INVALID, "aclnnMaxPool2dWithIndices",
                    "workspaceSize must be >=");
}

TEST(Executors, TensorHandlesDestroyedBetweenPhases) {
  float xd[4] = {1, 5, 2, 3}, od[1] = {0};
  int64_t id[1] = {-7};
  int64_t dims[] = {1, 1, 2, 2}, st[] = {4, 4, 2, 1}, od_dims[] = {1, 1, 1, 1},
          ost[] = {1, 1, 1, 1};
  aclTensor *x = aclCreateTensor(dims, 4, ACL_FLOAT, st, 0, ACL_FORMAT_NCHW, dims, 4, xd);
  aclTensor *o = aclCreateTensor(od_dims, 4, ACL_FLOAT, ost, 0, ACL_FORMAT_NCHW, od_dims, 4, od);
  aclTensor *i = aclCreateTensor(od_dims, 4, ACL_INT64, ost, 0, ACL_FORMAT_NCHW, od_dims, 4, id);
  int64_t two = 2, zero = 0, one = 1;
  aclIntArray *k = aclCreateIntArray(&two, 1), *p = aclCreateIntArray(&zero, 1),
              *d = aclCreateIntArray(&one, 1), *s = aclCreateIntArray(nullptr, 0);
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x, k, s, p, d, false, o, i, &ws, &ex),
            ACLNN_SUCCESS);
  aclDestroyTensor(x);
  aclDestroyTensor(o);
  aclDestroyTensor(i);
  aclDestroyIntArray(k);
  aclDestroyIntArray(s);
  aclDestroyIntArray(p);
  aclDestroyIntArray(d);
  ASSERT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(od[0], 5.0f);
  EXPECT_EQ(id[0], 1);
}

// aclInitTensor re-describes a tensor with aclCreateTensor's checks, and leaves it alone when
// they fail.
TEST(Tensors, InitTensorRedescribes) {
  std::vector<float> data(16);
  int64_t dims[2] = {2, 8}, strides[2] = {8, 1}, n = 16, flat[1] = {16}, one[1] = {1},
          big[1] = {17};
  aclTensor *t = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, &n, 1, data.data());
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(aclInitTensor(t, flat, 1, ACL_FLOAT16, one, 0, ACL_FORMAT_NCHW, &n, 1, data.data()),
            ACLNN_SUCCESS);
  int64_t *view = nullptr;
  uint64_t ndim = 0;
  ASSERT_EQ(aclGetViewShape(t, &view, &ndim), ACLNN_SUCCESS);
  EXPECT_EQ(ndim, 1u);
  EXPECT_EQ(view[0], 16);
  delete[] view;
  aclDataType dt;
  ASSERT_EQ(aclGetDataType(t, &dt), ACLNN_SUCCESS);
  EXPECT_EQ(dt, ACL_FLOAT16);
  EXPECT_EQ(aclInitTensor(t, big, 1, ACL_FLOAT, one, 0, ACL_FORMAT_ND, &n, 1, data.data()),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(last_msg().find("aclInitTensor: the view"), std::string::npos);
  ASSERT_EQ(aclGetDataType(t, &dt), ACLNN_SUCCESS);
  EXPECT_EQ(dt, ACL_FLOAT16);  // unchanged
  aclDestroyTensor(t);
}

}  // namespace

// D8: an operator given a tensor with a negative dim reports 161002 naming the parameter (CANN's
// UT), not 161001 for a null tensor.
TEST(Tensors, NegativeDimIsRefusedByTheOperator) {
  float xd[16] = {}, od[4] = {};
  int64_t id[4] = {};
  int64_t dims[] = {1, -1, 4, 4}, st[] = {16, 16, 4, 1}, n16 = 16, od_dims[] = {1, 1, 2, 2},
          ost[] = {4, 4, 2, 1}, n4 = 4;
  aclTensor *x = aclCreateTensor(dims, 4, ACL_FLOAT, st, 0, ACL_FORMAT_NCHW, &n16, 1, xd);
  aclTensor *o = aclCreateTensor(od_dims, 4, ACL_FLOAT, ost, 0, ACL_FORMAT_NCHW, &n4, 1, od);
  aclTensor *i = aclCreateTensor(od_dims, 4, ACL_INT64, ost, 0, ACL_FORMAT_NCHW, &n4, 1, id);
  ASSERT_TRUE(x && o && i) << pgtest::last_msg();
  int64_t two = 2, zero = 0, one = 1;
  aclIntArray *k = aclCreateIntArray(&two, 1), *p = aclCreateIntArray(&zero, 1),
              *d = aclCreateIntArray(&one, 1), *s = aclCreateIntArray(nullptr, 0);
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x, k, s, p, d, false, o, i, &ws, &ex),
                    ACLNN_ERR_PARAM_INVALID, "aclnnMaxPool2dWithIndices",
                    "self dims must be >= 0, but got shape [1,-1,4,4]");
  // Steps 1-2 (check_arguments): every null argument is reported before any element bound, and
  // the bound names the first bad tensor in the header's order.
  EXPECT_STATUS_MSG(
      aclnnMaxPool2dWithIndicesGetWorkspaceSize(x, k, s, p, d, false, o, nullptr, &ws, &ex),
      ACLNN_ERR_PARAM_NULLPTR, "aclnnMaxPool2dWithIndices", "indices must not be null");
  int64_t bad_out[] = {1, -1, 2, 2}, good[] = {1, 1, 4, 4};
  aclTensor *ob = aclCreateTensor(bad_out, 4, ACL_FLOAT, ost, 0, ACL_FORMAT_NCHW, &n4, 1, od);
  aclTensor *xg = aclCreateTensor(good, 4, ACL_FLOAT, st, 0, ACL_FORMAT_NCHW, &n16, 1, xd);
  ASSERT_TRUE(ob && xg) << pgtest::last_msg();
  EXPECT_STATUS_MSG(
      aclnnMaxPool2dWithIndicesGetWorkspaceSize(x, k, s, p, d, false, ob, i, &ws, &ex),
      ACLNN_ERR_PARAM_INVALID, "aclnnMaxPool2dWithIndices", "self dims must be >= 0");
  EXPECT_STATUS_MSG(
      aclnnMaxPool2dWithIndicesGetWorkspaceSize(xg, k, s, p, d, false, ob, i, &ws, &ex),
      ACLNN_ERR_PARAM_INVALID, "aclnnMaxPool2dWithIndices",
      "out dims must be >= 0, but got shape [1,-1,2,2]");
  aclDestroyTensor(ob);
  aclDestroyTensor(xg);
  aclDestroyTensor(x);
  aclDestroyTensor(o);
  aclDestroyTensor(i);
  aclDestroyIntArray(k);
  aclDestroyIntArray(s);
  aclDestroyIntArray(p);
  aclDestroyIntArray(d);
}
