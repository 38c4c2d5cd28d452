// SPDX-License-Identifier: Apache-2.0
// The adaptive 2-D fluent tester: aclnnAdaptiveMaxPool2d, then its backward, through the public C
// API, every output compared with a naive reference. For example
//   AdaptiveTester().batch(2).channels(3).input(37, 37).output(7, 7).dtype(ACL_BF16).test();
#pragma once

#include <cstdint>
#include <random>

#include "aclnn/aclnn_base.h"

namespace pgtest {

struct AdaptiveCase {
  int64_t n = 1, c = 1, h = 4, w = 4, ho = 2, wo = 2;
  aclDataType dt = ACL_FLOAT;  // DOUBLE: the forward only (CANN's backward does not take it)
  bool rank3 = false, nhwc = false, strided = false;  // CHW view, NHWC, reversed strides
  int threads = 0;                                    // 0: the library's count
};

// Runs forward then backward and compares with the reference (gtest assertions).
void run_adaptive_case(const AdaptiveCase &k, std::mt19937 &rng);
// A random valid configuration (float32, float16 or bfloat16).
AdaptiveCase random_adaptive_case(std::mt19937 &rng);

class AdaptiveTester {
 public:
  AdaptiveTester() = default;
  explicit AdaptiveTester(const AdaptiveCase &k) : k_(k) {}
  AdaptiveTester &batch(int64_t n) {
    k_.n = n;
    return *this;
  }
  AdaptiveTester &channels(int64_t c) {
    k_.c = c;
    return *this;
  }
  AdaptiveTester &input(int64_t h, int64_t w) {
    k_.h = h, k_.w = w;
    return *this;
  }
  AdaptiveTester &output(int64_t ho, int64_t wo) {
    k_.ho = ho, k_.wo = wo;
    return *this;
  }
  AdaptiveTester &dtype(aclDataType dt) {
    k_.dt = dt;
    return *this;
  }
  AdaptiveTester &rank3(bool on) {
    k_.rank3 = on;
    if (on) k_.n = 1;
    return *this;
  }
  AdaptiveTester &nhwc(bool on) {
    k_.nhwc = on;
    return *this;
  }
  AdaptiveTester &strided(bool on) {
    k_.strided = on;
    return *this;
  }
  AdaptiveTester &threads(int t) {
    k_.threads = t;
    return *this;
  }
  AdaptiveTester &seed(uint32_t s) {
    seed_ = s;
    return *this;
  }
  void test() const;

 private:
  AdaptiveCase k_;
  uint32_t seed_ = 1;
};

}  // namespace pgtest
