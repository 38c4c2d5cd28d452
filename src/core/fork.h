// SPDX-License-Identifier: Apache-2.0
// Fork safety: every process-wide lock of the library is taken before fork() and released (or
// made anew) in the parent and the child, from one pthread_atfork registration in fork.cpp, which
// lists them. A module that adds a process-wide lock adds its three steps here and a row there.
#pragma once

namespace poolgrad {

// The runtime's lock (runtime.cpp: aclInit/aclFinalize, allocations, streams).
void runtime_fork_prepare();
void runtime_fork_parent();
void runtime_fork_child();

// The executor registry's lock and each live executor's run turn (executor.cpp).
void executor_fork_prepare();
void executor_fork_parent();
void executor_fork_child();

// The thread pool's creation lock (threads.cpp); the child drops the inherited pool.
void pool_fork_prepare();
void pool_fork_parent();
void pool_fork_child();

}  // namespace poolgrad
