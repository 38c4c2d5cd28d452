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

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace poolgrad {

namespace {

int default_threads() {
  const char *env = std::getenv("POOLGRAD_NUM_THREADS");
  if (env && *env) {
    char *end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end && *end == '\0' && v >= 1 && v <= kMaxThreads) return static_cast<int>(v);
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n >= 1) return n < kMaxThreads ? n : kMaxThreads;
  }
  const int n = static_cast<int>(std::thread::hardware_concurrency());
  return n >= 1 ? (n < kMaxThreads ? n : kMaxThreads) : 1;
}

std::atomic<int> g_threads{0};

struct Job {
  int64_t n = 0;
  int parts = 0;
  const PartFn *fn = nullptr;
  std::atomic<int> next{0};     // next part to claim
  std::atomic<int> done{0};     // parts finished
  std::exception_ptr error;     // the first exception a part threw (under Pool::m)
};

class Pool {
 public:
  // Runs the job's parts with up to want - 1 workers besides the caller.
  void run(Job &job, int want) {
    grow(want - 1);
    {
      std::lock_guard<std::mutex> lock(m_);
      job_ = &job;
      ++generation_;
    }
    cv_work_.notify_all();
    work(job);
    std::unique_lock<std::mutex> lock(m_);
    cv_done_.wait(lock, [&] { return job.done.load() == job.parts && busy_ == 0; });
    job_ = nullptr;
  }
  // One job at a time: a second caller (another application thread) runs its parts itself.
  std::mutex &gate() { return gate_; }

 private:
  void grow(int workers) {
    while (static_cast<int>(threads_.size()) < workers) {
      try {
        threads_.emplace_back([this] { loop(); });
      } catch (const std::system_error &) {
        return;  // the host gives no more threads: run with those that started
      }
    }
  }
  void work(Job &job) {
    for (int t; (t = job.next.fetch_add(1)) < job.parts;) {
      const int64_t b = job.n * t / job.parts, e = job.n * (t + 1) / job.parts;
      try {
        (*job.fn)(t, b, e);
      } catch (...) {
        std::lock_guard<std::mutex> lock(m_);
        if (!job.error) job.error = std::current_exception();
      }
      job.done.fetch_add(1);
    }
  }
  void loop() {
    uint64_t seen = 0;
    for (;;) {
      Job *job;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_work_.wait(lock, [&] { return generation_ != seen && job_ != nullptr; });
        seen = generation_;
        job = job_;
        ++busy_;
      }
      work(*job);
      {
        std::lock_guard<std::mutex> lock(m_);
        --busy_;
      }
      cv_done_.notify_all();
    }
  }

  std::mutex gate_, m_;
  std::condition_variable cv_work_, cv_done_;
  std::vector<std::thread> threads_;  // never joined: they live as long as the process
  Job *job_ = nullptr;
  uint64_t generation_ = 0;
  int busy_ = 0;  // workers inside work() for the current job
};

std::mutex g_pool_create;
Pool *g_pool = nullptr;  // under g_pool_create

// A forked child has only the forking thread: the inherited pool's workers do not exist there.
// Drop it (leaked on purpose: its mutexes may be held by threads that are gone) and let the
// child's first parallel call start a pool of its own.
void atfork_prepare() { g_pool_create.lock(); }
void atfork_parent() { g_pool_create.unlock(); }
void atfork_child() {
  g_pool = nullptr;
  g_pool_create.unlock();
}

Pool *pool() {
  static const bool registered = [] {
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    return true;
  }();
  (void)registered;
  std::lock_guard<std::mutex> lock(g_pool_create);
  if (!g_pool) g_pool = new Pool();
  return g_pool;
}

}  // namespace

int num_threads() {
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
    p->run(job, parts);
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
