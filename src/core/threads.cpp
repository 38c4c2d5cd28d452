// SPDX-License-Identifier: Apache-2.0
// The kernels' thread pool. Workers are plain std::threads that wait for a job, claim its parts
// from an atomic counter and report back; the calling thread claims parts too.
//
// Why not OpenMP: libgomp ends the process when it cannot create a thread (a memory limit, a
// huge thread count), and a child forked after a parallel region hangs in its next one, because
// the pool it inherits names threads that only exist in the parent (Python multiprocessing and
// PyTorch's DataLoader fork exactly so). Here a thread that cannot start means fewer workers, and
// a forked child drops the inherited pool (pthread_atfork) and starts its own on first use.
#include "threads.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "fork.h"

namespace poolgrad {

namespace {

// POOLGRAD_NUM_THREADS: a count from 1 up; above kMaxThreads it is clamped, and anything else is
// ignored for the default; either way a warning says so once per process (stderr).
int env_threads() {
  const char *env = std::getenv("POOLGRAD_NUM_THREADS");
  if (!env || !*env) return 0;
  char *end = nullptr;
  errno = 0;
  const long v = std::strtol(env, &end, 10);
  const bool number = end && *end == '\0' && errno == 0;
  if (number && v >= 1 && v <= kMaxThreads) return static_cast<int>(v);
  static std::atomic<bool> warned{false};
  const bool first = !warned.exchange(true);
  if (number && v > kMaxThreads) {
    if (first)
      std::fprintf(stderr, "poolgrad: warning: POOLGRAD_NUM_THREADS=%s is above %d; using %d\n",
                   env, kMaxThreads, kMaxThreads);
    return kMaxThreads;
  }
  if (first)
    std::fprintf(stderr,
                 "poolgrad: warning: POOLGRAD_NUM_THREADS=%s is not a count >= 1; ignored (the "
                 "cores this process may use)\n",
                 env);
  return 0;
}

// The container's CPU quota in whole cores, rounded up (cgroup v2 `cpu.max`, "QUOTA PERIOD" or
// "max PERIOD"; cgroup v1 `cpu/cpu.cfs_quota_us` and `cpu.cfs_period_us`); 0 when there is none.
// A quota below the cores the process may run on makes more threads only take turns on it.
// POOLGRAD_CGROUP_ROOT names another cgroup mount (tests; containers that mount it elsewhere).
int cgroup_cores() {
  const char *env = std::getenv("POOLGRAD_CGROUP_ROOT");
  const std::string root = env && *env ? env : "/sys/fs/cgroup";
  long long quota = -1, period = 0;
  if (FILE *f = std::fopen((root + "/cpu.max").c_str(), "r")) {
    char q[32] = {};
    if (std::fscanf(f, "%31s %lld", q, &period) == 2 && std::string(q) != "max")
      quota = std::atoll(q);
    std::fclose(f);
  } else if (FILE *fq = std::fopen((root + "/cpu/cpu.cfs_quota_us").c_str(), "r")) {
    if (std::fscanf(fq, "%lld", &quota) != 1) quota = -1;
    std::fclose(fq);
    if (FILE *fp = std::fopen((root + "/cpu/cpu.cfs_period_us").c_str(), "r")) {
      if (std::fscanf(fp, "%lld", &period) != 1) period = 0;
      std::fclose(fp);
    }
  }
  if (quota <= 0 || period <= 0) return 0;
  const long long n = (quota + period - 1) / period;
  return n < kMaxThreads ? static_cast<int>(n) : kMaxThreads;
}

// The cores this process may run on now: its affinity mask, else the hardware's count, else 1.
int affinity_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 1) return CPU_COUNT(&set);
  const int h = static_cast<int>(std::thread::hardware_concurrency());
  return h >= 1 ? h : 1;
}

int default_threads() {
  if (const int n = env_threads()) return n;
  int n = affinity_cores();
  if (const int q = cgroup_cores()) n = std::min(n, q);
  return n < kMaxThreads ? n : kMaxThreads;
}

std::atomic<int> g_threads{0};
thread_local int t_threads = 0;  // set_thread_num_threads: 0 = the process-wide count

// The cores this process may run on, as at the pool's first job.
int cores() {
  static const int n = affinity_cores();
  return n;
}

struct Job {
  int64_t n = 0;
  int parts = 0;
  const PartFn *fn = nullptr;
  std::exception_ptr error;  // the first exception a part threw (under Pool::m_)
};

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Part t of a job always runs on the same thread: the caller runs part 0, worker k part k + 1
// (and the caller any part beyond the workers that started). A fixed assignment, not a shared
// counter: with a counter the caller, already awake, would take the parts of a worker still
// waking up and run a two-part job alone.
class Pool {
 public:
  void run(Job &job) {
    const int active = std::min(grow(job.parts - 1), job.parts - 1);
    // Spinning pays only while every thread has a core; oversubscribed, a spinning thread takes
    // the core the thread it waits for needs.
    spin_.store(active + 1 <= cores() ? kSpin : 0, std::memory_order_relaxed);
    pending_.store(active);
    {
      std::lock_guard<std::mutex> lock(m_);
      job_ = &job;
      ++generation_;
      for (int k = 0; k < active; ++k) slots_[k].go.store(generation_, std::memory_order_release);
    }
    if (active > 0) cv_work_.notify_all();
    part(job, 0);
    for (int t = active + 1; t < job.parts; ++t) part(job, t);
    // Workers finish within microseconds of the caller on balanced parts: spin briefly first.
    const int spin = spin_.load(std::memory_order_relaxed);
    for (int i = 0; i < spin && pending_.load(std::memory_order_acquire) > 0; ++i) cpu_relax();
    if (pending_.load(std::memory_order_acquire) > 0) {
      std::unique_lock<std::mutex> lock(m_);
      cv_done_.wait(lock, [&] { return pending_.load() == 0; });
    }
  }
  // One job at a time: a second caller (another application thread) runs its parts itself.
  std::mutex &gate() { return gate_; }

 private:
  static constexpr int kSpin = 1 << 14;
  struct Slot {
    std::atomic<uint64_t> go{0};  // the generation this worker is to run
  };

  // Starts workers up to `want`; returns how many there are.
  int grow(int want) {
    while (static_cast<int>(threads_.size()) < want) {
      slots_.emplace_back();
      const int k = static_cast<int>(threads_.size());
      try {
        threads_.emplace_back([this, k] { loop(k); });
      } catch (const std::system_error &) {
        slots_.pop_back();
        break;  // the host gives no more threads: run with those that started
      }
    }
    return static_cast<int>(threads_.size());
  }
  void part(Job &job, int t) {
    try {
      (*job.fn)(t, job.n * t / job.parts, job.n * (t + 1) / job.parts);
    } catch (...) {
      std::lock_guard<std::mutex> lock(m_);
      if (!job.error) job.error = std::current_exception();
    }
  }
  void loop(int k) {
    Slot &slot = slots_[k];
    uint64_t seen = 0;
    for (;;) {
      uint64_t g = seen;
      const int spin = spin_.load(std::memory_order_relaxed);
      for (int i = 0; i < spin && (g = slot.go.load(std::memory_order_acquire)) == seen; ++i)
        cpu_relax();
      if (g == seen) {
        std::unique_lock<std::mutex> lock(m_);
        cv_work_.wait(lock, [&] { return (g = slot.go.load(std::memory_order_acquire)) != seen; });
      }
      seen = g;
      part(*job_, k + 1);  // job_ was written before go (release / acquire)
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(m_);
        cv_done_.notify_all();
      }
    }
  }

  std::mutex gate_, m_;
  std::condition_variable cv_work_, cv_done_;
  std::deque<Slot> slots_;            // stable addresses while the pool grows
  std::vector<std::thread> threads_;  // never joined: they live as long as the process
  Job *job_ = nullptr;
  uint64_t generation_ = 0;
  std::atomic<int> pending_{0};  // workers still running their part of the current job
  std::atomic<int> spin_{0};     // pause iterations before sleeping
};

std::mutex g_pool_create;
Pool *g_pool = nullptr;  // under g_pool_create

Pool *pool() {
  std::lock_guard<std::mutex> lock(g_pool_create);
  if (!g_pool) g_pool = new Pool();
  return g_pool;
}

}  // namespace

// fork.cpp. A forked child has only the forking thread: the inherited pool's workers do not exist
// there. The child drops it (leaked on purpose: its mutexes may be held by threads that are gone)
// and its first parallel call starts a pool of its own.
void pool_fork_prepare() {
  g_pool_create.lock();
}
void pool_fork_parent() {
  g_pool_create.unlock();
}
void pool_fork_child() {
  g_pool = nullptr;
  g_pool_create.unlock();
}

int num_threads() {
  if (t_threads > 0) return t_threads;
  int t = g_threads.load(std::memory_order_relaxed);
  if (t <= 0) {
    t = default_threads();
    g_threads.store(t, std::memory_order_relaxed);
  }
  return t;
}

void set_num_threads(int n) {
  g_threads.store(n < 1 ? default_threads() : (n > kMaxThreads ? kMaxThreads : n));
}

void set_thread_num_threads(int n) {
  t_threads = n < 1 ? 0 : (n > kMaxThreads ? kMaxThreads : n);
}

int parts_for(int64_t n, int threads) {
  if (n <= 0) return 0;
  const int t = threads > 0 ? threads : num_threads();
  return n < t ? static_cast<int>(n) : t;
}

void parallel_for(int64_t n, PartFn fn, int threads) {
  const int parts = parts_for(n, threads);
  if (parts == 0) return;
  Job job;
  job.n = n;
  job.parts = parts;
  job.fn = &fn;
  Pool *p = parts > 1 ? pool() : nullptr;
  if (p && p->gate().try_lock()) {
    std::lock_guard<std::mutex> gate(p->gate(), std::adopt_lock);
    p->run(job);
  } else {
    // One part, or the pool is busy with another caller's job: the same parts, one after
    // another. Each part's result does not depend on who runs it, so the answer is the same.
    for (int t = 0; t < parts; ++t) {
      try {
        fn(t, n * t / parts, n * (t + 1) / parts);
      } catch (...) {
        if (!job.error) job.error = std::current_exception();
      }
    }
  }
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace poolgrad
