// SPDX-License-Identifier: Apache-2.0
// The kernels' thread pool: a fixed split of [0, n) into parts, one per thread, run on
// poolgrad's own worker threads (not OpenMP), so that a pool that cannot start falls back to
// fewer threads instead of ending the process, and a forked child re-creates its own pool.
#pragma once

#include <cstdint>
#include <utility>

namespace poolgrad {

// Thread counts above this are refused by the controls (POOLGRAD_NUM_THREADS,
// poolgradSetNumThreads): no host this library targets has more cores.
constexpr int kMaxThreads = 1024;

// The calling thread's count (set_thread_num_threads), else the process-wide one.
int num_threads();
// n < 1 restores the default (POOLGRAD_NUM_THREADS, else the cores this process may run on);
// values above kMaxThreads are capped.
void set_num_threads(int n);
// The count for calls from the calling thread only; n < 1: the process-wide count again.
void set_thread_num_threads(int n);

// A non-owning reference to a callable fn(part, begin, end): no allocation, unlike std::function.
class PartFn {
 public:
  template <class F>
  PartFn(F &f)  // NOLINT: implicit, so that callers pass lambdas directly
      : obj_(&f),
        call_([](void *o, int part, int64_t b, int64_t e) { (*static_cast<F *>(o))(part, b, e); }) {
  }
  void operator()(int part, int64_t b, int64_t e) const { call_(obj_, part, b, e); }

 private:
  void *obj_;
  void (*call_)(void *, int, int64_t, int64_t);
};

// Runs fn(part, begin, end) for the parts of [0, n): min(threads, n) contiguous chunks, chunk t
// being [n*t/parts, n*(t+1)/parts). threads <= 0 means num_threads(). Which thread runs which part
// is not fixed, so each part must write only its own results (its own scratch slice `part`).
// An exception thrown by a part is rethrown here after every part has finished.
void parallel_for(int64_t n, PartFn fn, int threads = 0);

// The number of parts parallel_for(n, ..., threads) makes.
int parts_for(int64_t n, int threads);

}  // namespace poolgrad
