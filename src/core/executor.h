// SPDX-License-Identifier: Apache-2.0
// Executors: what phase 1 hands to phase 2. A plan (the kernel to run, bound to plain parameters,
// the workspace bytes it needs, the thread count fixed in phase 1) lives in a registry keyed by
// an opaque handle that is never reused, so that a consumed, destroyed or forged handle is
// detected in every build, and a running executor cannot be freed under its caller.
#pragma once

#include <cstdint>
#include <string>

#include "aclnn/aclnn_base.h"
#include "plan.h"

namespace poolgrad {

// The end of every phase 1: refuses a workspace beyond what the host can give (561000 naming
// the bytes; -1 means the size overflowed), else reports it and returns a new executor.
aclnnStatus make_executor(const char *api, Plan plan, uint64_t *workspace_size,
                          aclOpExecutor **executor);

// The common phase 2: checks the handle and the workspace, runs, consumes a single-use executor.
aclnnStatus run_executor(const char *api, void *workspace, uint64_t workspace_size,
                         aclOpExecutor *executor, aclrtStream stream);

}  // namespace poolgrad
