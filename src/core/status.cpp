// SPDX-License-Identifier: Apache-2.0
// Status messages: the calling thread's last error (aclGetRecentErrMsg) and the POOLGRAD_LOG trace.
#include "status.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace poolgrad {

namespace {
thread_local std::string t_last_error;

std::string vformat(const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = std::vsnprintf(nullptr, 0, fmt, ap2);
  va_end(ap2);
  if (n <= 0) return std::string();
  std::string s(static_cast<size_t>(n) + 1, '\0');
  std::vsnprintf(&s[0], s.size(), fmt, ap);
  s.resize(static_cast<size_t>(n));
  return s;
}
}  // namespace

std::string take_error() {
  std::string s;
  s.swap(t_last_error);
  return s;
}

std::string format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string s = vformat(fmt, ap);
  va_end(ap);
  return s;
}

LogLevel log_level() {
  static const LogLevel level = [] {
    const char *v = std::getenv("POOLGRAD_LOG");
    if (v && (std::strcmp(v, "info") == 0 || std::strcmp(v, "INFO") == 0)) return LogLevel::kInfo;
    if (v && (std::strcmp(v, "error") == 0 || std::strcmp(v, "ERROR") == 0))
      return LogLevel::kError;
    return LogLevel::kOff;
  }();
  return level;
}

static void log_error(aclnnStatus status) {
  if (log_level() != LogLevel::kOff)
    std::fprintf(stderr, "poolgrad: error %d: %s\n", static_cast<int>(status),
                 t_last_error.c_str());
}

void set_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  t_last_error = vformat(fmt, ap);
  va_end(ap);
  log_error(0);
}

aclnnStatus fail(aclnnStatus status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  t_last_error = vformat(fmt, ap);
  va_end(ap);
  log_error(status);
  return status;
}

}  // namespace poolgrad
