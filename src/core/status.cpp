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

namespace {
struct LogSetting {
  LogLevel level = LogLevel::kOff;
  FILE *stream = stderr;
};

// POOLGRAD_LOG (info | error, to stderr) first; else CANN's own variables, as CANN reads them: with
// ASCEND_SLOG_PRINT_TO_STDOUT=1 the log goes to stdout at ASCEND_GLOBAL_LOG_LEVEL (0 debug and 1
// info: the call trace; 2 warning and 3 error: failures only; 4: nothing; CANN's default is 3).
// Without ASCEND_SLOG_PRINT_TO_STDOUT CANN writes its log to files, which poolgrad does not keep.
LogSetting read_log_setting() {
  LogSetting s;
  const char *v = std::getenv("POOLGRAD_LOG");
  if (v && *v) {
    if (std::strcmp(v, "info") == 0 || std::strcmp(v, "INFO") == 0) s.level = LogLevel::kInfo;
    if (std::strcmp(v, "error") == 0 || std::strcmp(v, "ERROR") == 0) s.level = LogLevel::kError;
    return s;
  }
  const char *out = std::getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
  if (!out || std::strcmp(out, "1") != 0) return s;
  s.stream = stdout;
  const char *lv = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
  const int level = lv && *lv ? std::atoi(lv) : 3;
  s.level = level <= 1 ? LogLevel::kInfo : level <= 3 ? LogLevel::kError : LogLevel::kOff;
  return s;
}

const LogSetting &log_setting() {
  static const LogSetting setting = read_log_setting();
  return setting;
}

void log_error(const int *status) {
  if (log_level() == LogLevel::kOff) return;
  if (status)
    std::fprintf(log_stream(), "poolgrad: error %d: %s\n", *status, t_last_error.c_str());
  else
    std::fprintf(log_stream(), "poolgrad: error: %s\n", t_last_error.c_str());
}
}  // namespace

LogLevel log_level() {
  return log_setting().level;
}

FILE *log_stream() {
  return log_setting().stream;
}

void set_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  t_last_error = vformat(fmt, ap);
  va_end(ap);
  log_error(nullptr);  // (a function that returns a pointer, not a status)
}

aclnnStatus fail(aclnnStatus status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  t_last_error = vformat(fmt, ap);
  va_end(ap);
  log_error(&status);
  return status;
}

}  // namespace poolgrad
