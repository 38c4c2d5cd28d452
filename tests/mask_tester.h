// SPDX-License-Identifier: Apache-2.0
// The Mask fluent tester: aclnnMaxPool2dWithMask and its backward (Ascend910B) against the
// Indices pair on the same data: the same out and gradInput bits, the mask holding the Indices
// pair's int32 indices (a bit per output for 1x1 windows). For example
//   MaskTester().batch(2).channels(3).input(9, 11).kernel(3).stride(2).padding(1).test();
#pragma once

#include <cstdint>
#include <random>

#include "aclnn/aclnn_base.h"

namespace pgtest {

struct MaskCase {  // square windows, as the Mask pair's products take them
  int64_t n = 1, c = 1, h = 4, w = 4, k = 2, s = 2, p = 0;
  bool ceil = false;
  aclDataType dt = ACL_FLOAT;
  bool rank3 = false;  // a CHW view
};

// Runs both pairs and compares (gtest assertions).
void run_mask_case(const MaskCase &k, std::mt19937 &rng);
// A random valid configuration.
MaskCase random_mask_case(std::mt19937 &rng);

class MaskTester {
 public:
  MaskTester() = default;
  explicit MaskTester(const MaskCase &k) : k_(k) {}
  MaskTester &batch(int64_t n) {
    k_.n = n;
    return *this;
  }
  MaskTester &channels(int64_t c) {
    k_.c = c;
    return *this;
  }
  MaskTester &input(int64_t h, int64_t w) {
    k_.h = h, k_.w = w;
    return *this;
  }
  MaskTester &kernel(int64_t k) {
    k_.k = k;
    return *this;
  }
  MaskTester &stride(int64_t s) {
    k_.s = s;
    return *this;
  }
  MaskTester &padding(int64_t p) {
    k_.p = p;
    return *this;
  }
  MaskTester &ceil(bool on) {
    k_.ceil = on;
    return *this;
  }
  MaskTester &dtype(aclDataType dt) {
    k_.dt = dt;
    return *this;
  }
  MaskTester &rank3(bool on) {
    k_.rank3 = on;
    if (on) k_.n = 1;
    return *this;
  }
  MaskTester &seed(uint32_t s) {
    seed_ = s;
    return *this;
  }
  void test() const;

 private:
  MaskCase k_;
  uint32_t seed_ = 1;
};

}  // namespace pgtest
