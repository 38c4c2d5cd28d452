// SPDX-License-Identifier: Apache-2.0
// The window scan with GCC vector types, as the former src/core/vec.h wrote the max-pool forward.
#include <cstring>

#include "scan.h"

namespace isa_probe {
namespace {
typedef float f8 __attribute__((vector_size(32)));
typedef int32_t i8 __attribute__((vector_size(32)));

__attribute__((always_inline)) inline void body(const float *const *rows, int taps, int64_t n,
                                                float *best, int32_t *bidx) {
  for (int64_t j = 0; j + 8 <= n; j += 8) {
    f8 b;
    std::memcpy(&b, rows[0] + j, sizeof b);
    i8 bi = i8{};
    for (int t = 1; t < taps; ++t) {
      f8 v;
      std::memcpy(&v, rows[t] + j, sizeof v);
      const i8 take = (v > b) | (v != v);
      b = take ? v : b;
      bi = take ? (i8{} + t) : bi;
    }
    std::memcpy(best + j, &b, sizeof b);
    std::memcpy(bidx + j, &bi, sizeof bi);
  }
}
}  // namespace

#if defined(__x86_64__)
__attribute__((target("avx2"))) void scan_vec_avx2(const float *const *rows, int taps, int64_t n,
                                                   float *best, int32_t *bidx) {
  body(rows, taps, n, best, bidx);
}
#else
void scan_vec_avx2(const float *const *rows, int taps, int64_t n, float *best, int32_t *bidx) {
  body(rows, taps, n, best, bidx);
}
#endif
void scan_vec_portable(const float *const *rows, int taps, int64_t n, float *best, int32_t *bidx) {
  body(rows, taps, n, best, bidx);
}
}  // namespace isa_probe
