// SPDX-License-Identifier: Apache-2.0
// The one list of the library's process-wide locks and what fork() does with each.
//
// A forked child has only the thread that called fork(): a lock another thread held at that
// moment would stay held in the child for ever, and the child's first call that needs it would
// hang. So before fork() the forking thread takes every lock below, in this order (no code path
// takes one of them while holding a later one, so this cannot deadlock with a running call);
// after fork() the parent releases them in reverse order and the child releases or re-makes them.
// The registration is made when the library is loaded, so it is in place before any lock is
// first taken.
#include "fork.h"

#include <pthread.h>

namespace poolgrad {
namespace {

struct ForkLock {
  const char *what;
  void (*prepare)();
  void (*parent)();
  void (*child)();
};

const ForkLock kLocks[] = {
    {"runtime (aclInit, aclrtMalloc/Free, streams)", runtime_fork_prepare, runtime_fork_parent,
     runtime_fork_child},
    {"executor registry and each executor's run turn", executor_fork_prepare, executor_fork_parent,
     executor_fork_child},
    {"thread pool creation", pool_fork_prepare, pool_fork_parent, pool_fork_child},
};
constexpr int kCount = sizeof(kLocks) / sizeof(kLocks[0]);

void prepare() {
  for (int i = 0; i < kCount; ++i) kLocks[i].prepare();
}
void parent() {
  for (int i = kCount - 1; i >= 0; --i) kLocks[i].parent();
}
void child() {
  for (int i = kCount - 1; i >= 0; --i) kLocks[i].child();
}

const bool g_registered = pthread_atfork(prepare, parent, child) == 0;

}  // namespace
}  // namespace poolgrad
