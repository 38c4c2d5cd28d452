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

using poolgrad::set_error;

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
    set_error("%s: the output pointer must not be null", api);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (size == 0) {
    set_error("%s: size must be > 0", api);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (size > (size_t(1) << 48)) {
    set_error("%s: size %zu exceeds the host memory this runtime can give", api, size);
    return ACL_ERROR_BAD_ALLOC;
  }
  size_t rounded = (size + 63) & ~size_t(63);  // aligned_alloc wants a multiple of the alignment
  void *p = std::aligned_alloc(64, rounded);
  if (p == nullptr) {
    set_error("%s: out of host memory for %zu bytes", api, size);
    return ACL_ERROR_BAD_ALLOC;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  allocations()[reinterpret_cast<uintptr_t>(p)] = {size, poolgrad::Device::kHost, device_memory};
  *ptr = p;
  return ACL_SUCCESS;
}

aclError release(const char *api, void *ptr) {
  if (ptr == nullptr) {
    set_error("%s: pointer must not be null", api);
    return ACL_ERROR_INVALID_PARAM;
  }
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!allocations().erase(reinterpret_cast<uintptr_t>(ptr))) {
      set_error("%s: %p was not allocated by aclrtMalloc/aclrtMallocHost or was already freed", api,
                ptr);
      return ACL_ERROR_INVALID_PARAM;
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
      set_error("aclInit: config path '%s' is not a regular file", configPath);
      return ACL_ERROR_INVALID_FILE;
    }
    FILE *f = std::fopen(configPath, "rb");
    if (!f) {
      set_error("aclInit: cannot open config file '%s'", configPath);
      return ACL_ERROR_INVALID_FILE;
    }
    int c;
    while ((c = std::fgetc(f)) != EOF && (c == ' ' || c == '\n' || c == '\r' || c == '\t')) {
    }
    std::fclose(f);
    if (c != EOF && c != '{') {
      set_error("aclInit: config file '%s' is not a JSON object", configPath);
      return ACL_ERROR_PARSE_FILE;
    }
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_initialized) {
    set_error("aclInit: already initialized");
    return ACL_ERROR_REPEAT_INITIALIZE;
  }
  if (!poolgrad::load_soc_from_env()) return ACL_ERROR_INVALID_PARAM;  // unknown POOLGRAD_SOC
  g_initialized = true;
  return ACL_SUCCESS;
}

aclError aclFinalize(void) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_initialized) {
    set_error("aclFinalize: not initialized (aclInit was not called, or aclFinalize ran already)");
    return ACL_ERROR_REPEAT_FINALIZE;
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
    set_error("aclrtSetDevice: deviceId must be 0 (one host device), but got %d", deviceId);
    return ACL_ERROR_RT_INVALID_DEVICEID;
  }
  t_device = 0;
  return ACL_SUCCESS;
}
aclError aclrtResetDevice(int32_t deviceId) {
  if (deviceId != 0) {
    set_error("aclrtResetDevice: deviceId must be 0, but got %d", deviceId);
    return ACL_ERROR_RT_INVALID_DEVICEID;
  }
  t_device = -1;
  return ACL_SUCCESS;
}
aclError aclrtGetDevice(int32_t *deviceId) {
  if (!deviceId) {
    set_error("aclrtGetDevice: deviceId must not be null");
    return ACL_ERROR_INVALID_PARAM;
  }
  if (t_device < 0) {
    set_error("aclrtGetDevice: no device is set on this thread (call aclrtSetDevice(0))");
    return ACL_ERROR_RT_CONTEXT_NULL;
  }
  *deviceId = t_device;
  return ACL_SUCCESS;
}
aclError aclrtGetDeviceCount(uint32_t *count) {
  if (!count) {
    set_error("aclrtGetDeviceCount: count must not be null");
    return ACL_ERROR_INVALID_PARAM;
  }
  *count = 1;
  return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream *stream) {
  if (!stream) {
    set_error("aclrtCreateStream: stream must not be null");
    return ACL_ERROR_INVALID_PARAM;
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
    set_error("aclrtDestroyStream: %p is not a live stream", stream);
    return ACL_ERROR_INVALID_PARAM;
  }
  delete s;
  return ACL_SUCCESS;
}
aclError aclrtSynchronizeStream(aclrtStream stream) {
  if (stream == nullptr) return ACL_SUCCESS;  // the default stream
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!streams().count(static_cast<Stream *>(stream))) {
    set_error("aclrtSynchronizeStream: %p is not a live stream", stream);
    return ACL_ERROR_INVALID_PARAM;
  }
  return ACL_SUCCESS;  // kernels complete before phase 2 returns
}
aclError aclrtSynchronizeDevice(void) {
  return ACL_SUCCESS;
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
  if (policy != ACL_MEM_MALLOC_HUGE_FIRST && policy != ACL_MEM_MALLOC_HUGE_ONLY &&
      policy != ACL_MEM_MALLOC_NORMAL_ONLY) {
    set_error("aclrtMalloc: policy %d is not an aclrtMemMallocPolicy", static_cast<int>(policy));
    return ACL_ERROR_INVALID_PARAM;
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
    set_error("aclrtMemcpy: kind %d is not an aclrtMemcpyKind", static_cast<int>(kind));
    return ACL_ERROR_INVALID_PARAM;
  }
  if (count == 0) return ACL_SUCCESS;
  if (!dst || !src) {
    set_error("aclrtMemcpy: dst and src must not be null (dst=%p, src=%p)", dst, src);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (count > destMax) {
    set_error("aclrtMemcpy: count %zu must be <= destMax %zu", count, destMax);
    return ACL_ERROR_INVALID_PARAM;
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
      set_error("aclrtMemcpy: kind %s needs %s %p to be %s memory (%zu bytes), but it is %s",
                kKind[kind], side.name, side.p, side.dev ? "device (aclrtMalloc)" : "host", count,
                side.dev ? "not inside one aclrtMalloc allocation" : "device memory");
      return ACL_ERROR_INVALID_PARAM;
    }
  std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
  if (count == 0) return ACL_SUCCESS;
  if (!devPtr) {
    set_error("aclrtMemset: devPtr must not be null");
    return ACL_ERROR_INVALID_PARAM;
  }
  if (count > maxCount) {
    set_error("aclrtMemset: count %zu must be <= maxCount %zu", count, maxCount);
    return ACL_ERROR_INVALID_PARAM;
  }
  std::memset(devPtr, value, count);
  return ACL_SUCCESS;
}

static aclError set_opt(const char *api, aclSysParamOpt opt, int64_t value) {
  if (opt == ACL_OPT_DETERMINISTIC) {
    if (value != 0 && value != 1) {
      set_error("%s: ACL_OPT_DETERMINISTIC must be 0 or 1, but got %" PRId64, api, value);
      return ACL_ERROR_INVALID_PARAM;
    }
    g_deterministic = value;  // poolgrad is always deterministic; the value is kept for Get
    return ACL_SUCCESS;
  }
  if (opt == ACL_OPT_ENABLE_DEBUG_KERNEL) return ACL_SUCCESS;
  set_error("%s: opt %d is not an aclSysParamOpt", api, static_cast<int>(opt));
  return ACL_ERROR_INVALID_PARAM;
}
static aclError get_opt(const char *api, aclSysParamOpt opt, int64_t *value) {
  if (!value) {
    set_error("%s: value must not be null", api);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (opt == ACL_OPT_DETERMINISTIC) {
    *value = g_deterministic;
    return ACL_SUCCESS;
  }
  if (opt == ACL_OPT_ENABLE_DEBUG_KERNEL) {
    *value = 0;
    return ACL_SUCCESS;
  }
  set_error("%s: opt %d is not an aclSysParamOpt", api, static_cast<int>(opt));
  return ACL_ERROR_INVALID_PARAM;
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

}  // extern "C"
