// SPDX-License-Identifier: Apache-2.0
#include "pool_window.h"

namespace poolgrad {

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace

int64_t pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  const int64_t e = d * (k - 1) + 1;  // < 2^62 for arguments <= kMaxAttr
  const int64_t span = in + 2 * p - e;
  int64_t out = floor_div(ceil ? span + s - 1 : span, s) + 1;
  if (ceil && out > 0 && (out - 1) * s >= in + p) --out;
  return out;
}

}  // namespace poolgrad
