// SPDX-License-Identifier: Apache-2.0
// The ACL runtime subset for a host without an accelerator: device 0 is the host, device memory
// is host memory, streams are in-order queues whose work runs at enqueue time.
#include <sys/stat.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "acl/acl.h"
#include "core.h"
#include "fork.h"
#include "profile.h"

namespace {
std::mutex g_mutex;
bool g_initialized = false;
int64_t g_deterministic = 0;
// A stream: work runs at enqueue time on the host; it records the device it belongs to (the
// host, device 0), which a second device would use to launch on its own queue.
struct Stream {
  poolgrad::Device device = poolgrad::Device::kHost;
};
std::unordered_set<Stream *> &streams() {
  static auto *s = new std::unordered_set<Stream *>();
  return *s;
}
// Live allocations, so that freeing a foreign or already-freed pointer is an error, not a crash,
// and so that a copy can tell device memory (aclrtMalloc) from host memory. Ordered by address:
// a pointer inside an allocation is found by the allocation that starts at or below it.
struct Allocation {
  size_t size;
  poolgrad::Device device;  // kHost is the only device: what aclrtMalloc returns
  bool device_memory;       // aclrtMalloc (true) or aclrtMallocHost (false)
};
std::map<uintptr_t, Allocation> &allocations() {
  static auto *m = new std::map<uintptr_t, Allocation>();
  return *m;
}

// Whether [p, p + count) lies inside one aclrtMalloc allocation (device memory).
bool is_device_range(const void *p, size_t count) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = allocations().upper_bound(a);
  if (it == allocations().begin()) return false;
  --it;
  return it->second.device_memory && a - it->first <= it->second.size &&
         count <= it->second.size - (a - it->first);
}
thread_local int32_t t_device = -1;

// A context: an object bound per thread (aclrtSetCurrentContext); on the host it carries nothing
// else, as every context shares the one device.
struct Context {
  poolgrad::Device device = poolgrad::Device::kHost;
};
std::unordered_set<Context *> &contexts() {
  static auto *c = new std::unordered_set<Context *>();
  return *c;
}
thread_local Context *t_context = nullptr;
Context *default_context() {
  static auto *c =
      new Context();  // never destroyed, not in contexts(): not the caller's to destroy
  return c;
}
bool live_context(const void *c) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return c && contexts().count(static_cast<Context *>(const_cast<void *>(c))) != 0;
}
// The default stream (null) or one made by aclrtCreateStream and not destroyed.
bool live_stream(const void *s) {
  if (!s) return true;
  std::lock_guard<std::mutex> lock(g_mutex);
  return streams().count(static_cast<Stream *>(const_cast<void *>(s))) != 0;
}
}  // namespace

// fork.cpp: the runtime's one lock is held across fork().
void poolgrad::runtime_fork_prepare() {
  g_mutex.lock();
}
void poolgrad::runtime_fork_parent() {
  g_mutex.unlock();
}
void poolgrad::runtime_fork_child() {
  g_mutex.unlock();
}

namespace {

aclError allocate(const char *api, void **ptr, size_t size, bool device_memory) {
  if (ptr == nullptr) {
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "%s: the output pointer must not be null", api);
  }
  if (size == 0) {
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "%s: size must be > 0", api);
  }
  if (size > (size_t(1) << 48)) {
    return poolgrad::fail(ACL_ERROR_BAD_ALLOC,
                          "%s: size %zu exceeds the host memory this runtime can give", api, size);
  }
  // Device memory is what CANN's runtime gives: the size rounded up to 32 bytes, plus 32 (its
  // runtime documentation; CANN's aclnnAdaptiveMaxPool3d sample reads 64 bytes back from a 32-byte
  // request). The whole padded block is the allocation's extent for aclrtMemcpy's bounds checks.
  if (device_memory) size = (size + 31) / 32 * 32 + 32;
  size_t rounded = (size + 63) & ~size_t(63);  // aligned_alloc wants a multiple of the alignment
  void *p = std::aligned_alloc(64, rounded);
  if (p == nullptr) {
    return poolgrad::fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory for %zu bytes", api, size);
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  allocations()[reinterpret_cast<uintptr_t>(p)] = {size, poolgrad::Device::kHost, device_memory};
  *ptr = p;
  return ACL_SUCCESS;
}

aclError release(const char *api, void *ptr) {
  if (ptr == nullptr) {
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "%s: pointer must not be null", api);
  }
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!allocations().erase(reinterpret_cast<uintptr_t>(ptr))) {
      return poolgrad::fail(
          ACL_ERROR_INVALID_PARAM,
          "%s: %p was not allocated by aclrtMalloc/aclrtMallocHost or was already freed", api, ptr);
    }
  }
  std::free(ptr);
  return ACL_SUCCESS;
}
}  // namespace

extern "C" {

aclError aclInit(const char *configPath) {
  if (configPath != nullptr && configPath[0] != '\0') {
    struct stat st;
    if (stat(configPath, &st) == 0 && !S_ISREG(st.st_mode)) {
      return poolgrad::fail(ACL_ERROR_INVALID_FILE,
                            "aclInit: config path '%s' is not a regular file", configPath);
    }
    FILE *f = std::fopen(configPath, "rb");
    if (!f) {
      return poolgrad::fail(ACL_ERROR_INVALID_FILE, "aclInit: cannot open config file '%s'",
                            configPath);
    }
    int c;
    while ((c = std::fgetc(f)) != EOF && (c == ' ' || c == '\n' || c == '\r' || c == '\t')) {
    }
    std::fclose(f);
    if (c != EOF && c != '{') {
      return poolgrad::fail(ACL_ERROR_PARSE_FILE, "aclInit: config file '%s' is not a JSON object",
                            configPath);
    }
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_initialized) {
    return poolgrad::fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: already initialized");
  }
  if (!poolgrad::load_soc_from_env()) return ACL_ERROR_INVALID_PARAM;  // unknown POOLGRAD_SOC
  g_initialized = true;
  return ACL_SUCCESS;
}

aclError aclFinalize(void) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_initialized) {
    return poolgrad::fail(
        ACL_ERROR_REPEAT_FINALIZE,
        "aclFinalize: not initialized (aclInit was not called, or aclFinalize ran already)");
  }
  g_initialized = false;
  return ACL_SUCCESS;
}

const char *aclGetRecentErrMsg(void) {
  static thread_local std::string handed;
  handed = poolgrad::take_error();
  return handed.empty() ? nullptr : handed.c_str();
}

aclError aclrtSetDevice(int32_t deviceId) {
  if (deviceId != 0) {
    return poolgrad::fail(ACL_ERROR_RT_INVALID_DEVICEID,
                          "aclrtSetDevice: deviceId must be 0 (one host device), but got %d",
                          deviceId);
  }
  t_device = 0;
  return ACL_SUCCESS;
}
aclError aclrtResetDevice(int32_t deviceId) {
  if (deviceId != 0) {
    return poolgrad::fail(ACL_ERROR_RT_INVALID_DEVICEID,
                          "aclrtResetDevice: deviceId must be 0, but got %d", deviceId);
  }
  t_device = -1;
  return ACL_SUCCESS;
}
aclError aclrtGetDevice(int32_t *deviceId) {
  if (!deviceId) {
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId must not be null");
  }
  if (t_device < 0) {
    return poolgrad::fail(
        ACL_ERROR_RT_CONTEXT_NULL,
        "aclrtGetDevice: no device is set on this thread (call aclrtSetDevice(0))");
  }
  *deviceId = t_device;
  return ACL_SUCCESS;
}
aclError aclrtGetDeviceCount(uint32_t *count) {
  if (!count) {
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count must not be null");
  }
  *count = 1;
  return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream *stream) {
  if (!stream) {
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream must not be null");
  }
  auto *s = new Stream();
  std::lock_guard<std::mutex> lock(g_mutex);
  streams().insert(s);
  *stream = s;
  return ACL_SUCCESS;
}
aclError aclrtDestroyStream(aclrtStream stream) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto *s = static_cast<Stream *>(stream);
  if (!stream || !streams().erase(s)) {
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: %p is not a live stream",
                          stream);
  }
  delete s;
  return ACL_SUCCESS;
}
aclError aclrtSynchronizeStream(aclrtStream stream) {
  if (stream == nullptr) return ACL_SUCCESS;  // the default stream
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!streams().count(static_cast<Stream *>(stream))) {
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM,
                          "aclrtSynchronizeStream: %p is not a live stream", stream);
  }
  return ACL_SUCCESS;  // kernels complete before phase 2 returns
}
aclError aclrtSynchronizeDevice(void) {
  return ACL_SUCCESS;
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
  if (policy != ACL_MEM_MALLOC_HUGE_FIRST && policy != ACL_MEM_MALLOC_HUGE_ONLY &&
      policy != ACL_MEM_MALLOC_NORMAL_ONLY) {
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM,
                          "aclrtMalloc: policy %d is not an aclrtMemMallocPolicy",
                          static_cast<int>(policy));
  }
  return allocate("aclrtMalloc", devPtr, size, true);
}
aclError aclrtFree(void *devPtr) {
  return release("aclrtFree", devPtr);
}
aclError aclrtMallocHost(void **hostPtr, size_t size) {
  return allocate("aclrtMallocHost", hostPtr, size, false);
}
aclError aclrtFreeHost(void *hostPtr) {
  return release("aclrtFreeHost", hostPtr);
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                     aclrtMemcpyKind kind) {
  if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEVICE_TO_DEVICE) {
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: kind %d is not an aclrtMemcpyKind",
                          static_cast<int>(kind));
  }
  if (count == 0) return ACL_SUCCESS;
  if (!dst || !src) {
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM,
                          "aclrtMemcpy: dst and src must not be null (dst=%p, src=%p)", dst, src);
  }
  if (count > destMax) {
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: count %zu must be <= destMax %zu",
                          count, destMax);
  }
  // The kind names where each side lives, as on a device: a device side must be count bytes of
  // one aclrtMalloc allocation, a host side must not be device memory.
  static const char *const kKind[] = {"ACL_MEMCPY_HOST_TO_HOST", "ACL_MEMCPY_HOST_TO_DEVICE",
                                      "ACL_MEMCPY_DEVICE_TO_HOST", "ACL_MEMCPY_DEVICE_TO_DEVICE"};
  const bool dst_dev = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  const bool src_dev = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  struct Side {
    const char *name;
    const void *p;
    bool dev;
  };
  for (const Side &side : {Side{"dst", dst, dst_dev}, Side{"src", src, src_dev}})
    if (is_device_range(side.p, count) != side.dev) {
      return poolgrad::fail(
          ACL_ERROR_INVALID_PARAM,
          "aclrtMemcpy: kind %s needs %s %p to be %s memory (%zu bytes), but it is %s", kKind[kind],
          side.name, side.p, side.dev ? "device (aclrtMalloc)" : "host", count,
          side.dev ? "not inside one aclrtMalloc allocation" : "device memory");
    }
  std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
  if (count == 0) return ACL_SUCCESS;
  if (!devPtr) {
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "aclrtMemset: devPtr must not be null");
  }
  if (count > maxCount) {
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "aclrtMemset: count %zu must be <= maxCount %zu",
                          count, maxCount);
  }
  std::memset(devPtr, value, count);
  return ACL_SUCCESS;
}

static aclError set_opt(const char *api, aclSysParamOpt opt, int64_t value) {
  if (opt == ACL_OPT_DETERMINISTIC) {
    if (value != 0 && value != 1) {
      return poolgrad::fail(ACL_ERROR_INVALID_PARAM,
                            "%s: ACL_OPT_DETERMINISTIC must be 0 or 1, but got %" PRId64, api,
                            value);
    }
    g_deterministic = value;  // poolgrad is always deterministic; the value is kept for Get
    return ACL_SUCCESS;
  }
  if (opt == ACL_OPT_ENABLE_DEBUG_KERNEL) return ACL_SUCCESS;
  return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "%s: opt %d is not an aclSysParamOpt", api,
                        static_cast<int>(opt));
}
static aclError get_opt(const char *api, aclSysParamOpt opt, int64_t *value) {
  if (!value) {
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "%s: value must not be null", api);
  }
  if (opt == ACL_OPT_DETERMINISTIC) {
    *value = g_deterministic;
    return ACL_SUCCESS;
  }
  if (opt == ACL_OPT_ENABLE_DEBUG_KERNEL) {
    *value = 0;
    return ACL_SUCCESS;
  }
  return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "%s: opt %d is not an aclSysParamOpt", api,
                        static_cast<int>(opt));
}
aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  return set_opt("aclrtCtxSetSysParamOpt", opt, value);
}
aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  return set_opt("aclrtSetSysParamOpt", opt, value);
}
aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value) {
  return get_opt("aclrtCtxGetSysParamOpt", opt, value);
}
aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value) {
  return get_opt("aclrtGetSysParamOpt", opt, value);
}

// ---- SoC, run mode, contexts ------------------------------------------------------------------

const char *aclrtGetSocName(void) {
  return poolgrad::soc_name(poolgrad::current_soc());  // the product profile phase 1 follows
}

aclError aclrtGetRunMode(aclrtRunMode *runMode) {
  if (!runMode)
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "aclrtGetRunMode: runMode must not be null");
  *runMode = ACL_HOST;  // the program runs on the host, as with an accelerator card in a server
  return ACL_SUCCESS;
}

aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId) {
  if (!context)
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateContext: context must not be null");
  if (deviceId != 0)
    return poolgrad::fail(ACL_ERROR_RT_INVALID_DEVICEID,
                          "aclrtCreateContext: deviceId must be 0 (one host device), but got %d",
                          deviceId);
  auto *c = new Context();
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    contexts().insert(c);
  }
  // As in CANN: a new context becomes the calling thread's current one, on its device.
  t_context = c;
  t_device = 0;
  *context = c;
  return ACL_SUCCESS;
}

aclError aclrtDestroyContext(aclrtContext context) {
  auto *c = static_cast<Context *>(context);
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!context || !contexts().erase(c))
      return poolgrad::fail(ACL_ERROR_INVALID_PARAM,
                            "aclrtDestroyContext: %p is not a live context", context);
  }
  if (t_context == c) t_context = nullptr;
  delete c;
  return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  if (!live_context(context))
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM,
                          "aclrtSetCurrentContext: %p is not a live context", context);
  t_context = static_cast<Context *>(context);
  t_device = 0;
  return ACL_SUCCESS;
}

aclError aclrtGetCurrentContext(aclrtContext *context) {
  if (!context)
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM,
                          "aclrtGetCurrentContext: context must not be null");
  // The thread's own context if it is still alive, else the device's default one (made by
  // aclrtSetDevice, as in CANN), else none.
  if (t_context && live_context(t_context)) {
    *context = t_context;
    return ACL_SUCCESS;
  }
  if (t_device >= 0) {
    *context = default_context();
    return ACL_SUCCESS;
  }
  return poolgrad::fail(
      ACL_ERROR_RT_CONTEXT_NULL,
      "aclrtGetCurrentContext: this thread has no context (call aclrtSetDevice or "
      "aclrtCreateContext first)");
}

// ---- stream-ordered work ----------------------------------------------------------------------
// A stream's work runs when it is enqueued, so the asynchronous calls complete in stream order
// before they return; they check the stream first, as CANN does.

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
  if (timeout < -1)
    return poolgrad::fail(
        ACL_ERROR_INVALID_PARAM,
        "aclrtSynchronizeStreamWithTimeout: timeout must be -1 (wait for ever) or "
        ">= 0 ms, but got %d",
        timeout);
  if (!live_stream(stream))
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM,
                          "aclrtSynchronizeStreamWithTimeout: %p is not a live stream", stream);
  return ACL_SUCCESS;
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream) {
  if (!live_stream(stream))
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpyAsync: %p is not a live stream",
                          stream);
  return aclrtMemcpy(dst, destMax, src, count, kind);
}

aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream) {
  if (!live_stream(stream))
    return poolgrad::fail(ACL_ERROR_INVALID_PARAM, "aclrtMemsetAsync: %p is not a live stream",
                          stream);
  return aclrtMemset(devPtr, maxCount, value, count);
}

}  // extern "C"
