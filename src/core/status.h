// SPDX-License-Identifier: Apache-2.0
// Status messages: the calling thread's last error text (aclGetRecentErrMsg) and the trace
// (POOLGRAD_LOG=info|error, or CANN's ASCEND_GLOBAL_LOG_LEVEL with
// ASCEND_SLOG_PRINT_TO_STDOUT=1; off by default).
#pragma once

#include <cstdio>
#include <functional>
#include <string>

#include "aclnn/aclnn_base.h"

namespace poolgrad {

// Records the calling thread's latest error text (printf-style) for aclGetRecentErrMsg, for the
// functions that return a pointer (NULL on failure); those that return a status use fail().
void set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// Records a message and returns status, so that checks read `return fail(ACLNN_ERR_..., ...)`.
aclnnStatus fail(aclnnStatus status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// Returns and clears the calling thread's latest error text.
std::string take_error();
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

enum class LogLevel { kOff = 0, kError = 1, kInfo = 2 };
LogLevel log_level();  // read once from the environment (status.cpp says which variables)
FILE *log_stream();    // where the trace and the error lines go
inline bool trace_info() {
  return log_level() == LogLevel::kInfo;
}
// A call's attributes for the trace, formatted only when the trace is on: formatting them on every
// call was a fifth of a small call's time.
using TraceText = std::function<std::string()>;

}  // namespace poolgrad
