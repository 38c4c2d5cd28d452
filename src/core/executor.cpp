// SPDX-License-Identifier: Apache-2.0
// The executor registry and the common phase 2.
#include "executor.h"

#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <unordered_map>

#include "core.h"
#include "fork.h"
#include "poolgrad/poolgrad.h"
#include "threads.h"

namespace poolgrad {

namespace {

struct Executor {
  const char *api = "";
  Plan plan;
  std::string kernel;       // the plan's kernel name, made when first asked for (under g_mutex)
  bool repeatable = false;  // under g_mutex
  std::mutex run_mutex;     // runs of one repeatable executor from several threads take turns
};

// Handles are tokens, not addresses: a non-canonical x86-64 address (so that a caller who
// dereferences one faults at once) carrying a 64-bit serial number that is never reused. A
// stale handle therefore never names a newer executor, whatever the allocator does.
constexpr uintptr_t kTokenBase = uintptr_t(0x5a17) << 48;

std::mutex g_mutex;
uint64_t g_serial = 0;  // under g_mutex
std::unordered_map<uintptr_t, std::shared_ptr<Executor>> &registry() {
  static auto *r = new std::unordered_map<uintptr_t, std::shared_ptr<Executor>>();
  return *r;
}

uintptr_t token(const aclOpExecutor *e) {
  return reinterpret_cast<uintptr_t>(e);
}

int64_t host_memory_limit() {
  static const int64_t limit = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const int64_t phys =
        pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : (int64_t(1) << 34);
    return phys / 2;
  }();
  return limit;
}

// Phase 2 hands the plan its workspace rounded up to a cache line, so that scratch carved at
// 64-byte offsets lies on cache lines whatever the caller's allocator gave (glibc's malloc gives
// large blocks 16 bytes past a page). On AMD Zen 4 a vector store split across a page runs many
// times slower, and kernels that store to the same small scratch again and again (rows of a
// ring, accumulators) slowed 2.5x when it started 16 bytes off (docs/profiles.md, Stop 32). Phase 1
// asks for the slack on top of the kernel's bytes.
constexpr int64_t kWorkspaceAlign = 64;

// (Called after make_executor has refused sizes beyond the host, so the sum cannot overflow.)
int64_t asked_bytes(const Plan &plan) {
  return plan.workspace > 0 ? plan.workspace + kWorkspaceAlign - 1 : plan.workspace;
}

void *aligned_start(void *workspace) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(workspace);
  return reinterpret_cast<void *>((a + kWorkspaceAlign - 1) & ~uintptr_t(kWorkspaceAlign - 1));
}

}  // namespace

// fork.cpp: the registry's lock is held across fork(). In the child, an executor whose turn a
// thread of the parent held (running it) would stay locked for ever: every live executor's turn
// is made anew there (the run it guarded did not cross into the child).
void executor_fork_prepare() {
  g_mutex.lock();
}
void executor_fork_parent() {
  g_mutex.unlock();
}
void executor_fork_child() {
  for (auto &entry : registry()) new (&entry.second->run_mutex) std::mutex();
  g_mutex.unlock();
}

namespace {

const char *const kNotLive =
    "%s: executor %p is not a live executor (a single-use executor already ran, or it was "
    "destroyed)";

}  // namespace

aclnnStatus make_executor(const char *api, Plan plan, uint64_t *workspace_size,
                          aclOpExecutor **executor) {
  if (plan.workspace < 0)
    return fail(ACLNN_ERR_INNER, "%s: the kernel's workspace size overflows int64 for these shapes",
                api);
  if (plan.workspace > host_memory_limit())
    return fail(ACLNN_ERR_INNER,
                "%s: the kernel needs %" PRId64
                " bytes of workspace (%d threads), more than half "
                "of the host's memory (%" PRId64 " bytes)",
                api, plan.workspace, num_threads(), host_memory_limit() * 2);
  std::shared_ptr<Executor> e;
  try {
    e = std::make_shared<Executor>();
    e->api = api;
    e->plan = std::move(plan);
    std::lock_guard<std::mutex> lock(g_mutex);
    const uintptr_t t = kTokenBase + (++g_serial) * 16;
    registry().emplace(t, e);
    *executor = reinterpret_cast<aclOpExecutor *>(t);
  } catch (const std::bad_alloc &) {
    return fail(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: cannot create executor (out of memory)", api);
  }
  *workspace_size = static_cast<uint64_t>(asked_bytes(e->plan));
  return ACLNN_SUCCESS;
}

aclnnStatus run_executor(const char *api, void *workspace, uint64_t workspace_size,
                         aclOpExecutor *executor, aclrtStream /*stream*/) {
  if (executor == nullptr)
    return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", api);
  // Claim the executor in the same critical section that finds it: of two threads running one
  // single-use executor, exactly one gets it. The reference keeps it alive while it runs, even
  // if another thread destroys a repeatable one meanwhile.
  std::shared_ptr<Executor> e;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = registry().find(token(executor));
    if (it == registry().end())
      return fail(ACLNN_ERR_PARAM_INVALID, kNotLive, api, static_cast<void *>(executor));
    e = it->second;
    if (!e->repeatable) registry().erase(it);  // every path from here consumes it, as in CANN
  }
  const Plan &plan = e->plan;
  if (workspace_size > 0 && workspace == nullptr)
    return fail(ACLNN_ERR_PARAM_NULLPTR,
                "%s: workspace must not be null when workspaceSize is %" PRIu64, api,
                workspace_size);
  if (std::strcmp(e->api, api) != 0)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: executor was made by %sGetWorkspaceSize", api,
                e->api);
  if (workspace_size < static_cast<uint64_t>(asked_bytes(plan)))
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: workspaceSize must be >= %" PRId64 " (asked for by phase 1), but got %" PRIu64,
                api, asked_bytes(plan), workspace_size);
  void *const scratch = plan.workspace > 0 ? aligned_start(workspace) : workspace;
  if (plan.nsteps == 0) {
    if (trace_info())
      std::fprintf(log_stream(), "poolgrad: %s %s kernel=none (empty) time=0.000ms status=0\n", api,
                   plan.trace.c_str());
    return ACLNN_SUCCESS;
  }
  std::lock_guard<std::mutex> turn(e->run_mutex);
  aclnnStatus st = ACLNN_SUCCESS;
  const bool trace = trace_info();  // the clock is read only for the trace
  const auto t0 =
      trace ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  try {
    for (int i = 0; i < plan.nsteps; ++i) {
      const FirstError bad = plan.steps[i].run(scratch);
      if (bad.found()) {
        st = report_data_error(api, plan, bad);
        break;
      }
    }
  } catch (const std::exception &ex) {
    st = fail(ACLNN_ERR_INNER, "%s: internal error: %s", api, ex.what());
  }
  if (trace) {
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(log_stream(), "poolgrad: %s %s kernel=%s threads=%d time=%.3fms status=%d\n", api,
                 plan.trace.c_str(), plan.kernel_name().c_str(), plan.threads, ms,
                 static_cast<int>(st));
  }
  return st;
}

}  // namespace poolgrad

using namespace poolgrad;

extern "C" {

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
  if (!executor)
    return fail(ACLNN_ERR_PARAM_NULLPTR,
                "aclSetAclOpExecutorRepeatable: executor must not be null");
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = registry().find(token(executor));
  if (it == registry().end())
    return fail(ACLNN_ERR_PARAM_INVALID,
                "aclSetAclOpExecutorRepeatable: executor %p is not a live executor",
                static_cast<void *>(executor));
  it->second->repeatable = true;
  return ACLNN_SUCCESS;
}

const char *poolgradGetKernelName(const aclOpExecutor *executor) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = registry().find(token(executor));
  if (it == registry().end()) return nullptr;
  Executor &e = *it->second;
  if (e.kernel.empty()) e.kernel = e.plan.kernel_name();
  return e.kernel.c_str();
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
  if (!executor)
    return fail(ACLNN_ERR_PARAM_NULLPTR, "aclDestroyAclOpExecutor: executor must not be null");
  std::shared_ptr<Executor> gone;  // freed after the lock, or by a thread still running it
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = registry().find(token(executor));
    if (it == registry().end())
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "aclDestroyAclOpExecutor: executor %p is not a live executor (already run or "
                  "destroyed)",
                  static_cast<void *>(executor));
    gone = std::move(it->second);
    registry().erase(it);
  }
  return ACLNN_SUCCESS;
}

}  // extern "C"
