// SPDX-License-Identifier: Apache-2.0
// Fluent testers (in the spirit of XNNPACK's): each builds its operator's inputs, runs poolgrad
// through the public C API, compares every output with the independent naive reference and
// reports the first differing position. For example
//   MaxPoolTester().batch(2).input(7, 9).kernel(3).stride(2).padding(1).ceil(true).threads(3)
//       .dtype(ACL_FLOAT16).test();
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "aclnn/aclnn_base.h"

namespace pgtest {

// How a tester lays its tensors out in memory.
enum class Layout {
  Contiguous,  // dense in the tensor's own format
  OtherOrder,  // the other memory order (channels-last memory under an NCHW view)
  Random,      // either order, with gaps between rows and an offset
};

// Where a backward's indices come from.
enum class Indices {
  Forward,  // the forward's
  Random,   // random positions of each window's plane
  Moved,    // the forward's with, in every other plane, one moved elsewhere (or -1), and some
            // gradients -0.0
};

// A max-pool configuration: attribute arrays as the API takes them (empty stride: the kernel).
struct Cfg {
  int64_t n = 1, c = 1, h = 4, w = 4;
  std::vector<int64_t> k{2}, s{}, p{0}, d{1};
  bool ceil = false;
  aclDataType dt = ACL_FLOAT, idt = ACL_INT64;
  bool rank3 = false, nhwc = false;
  Layout layout = Layout::Contiguous;
};

// Runs forward then backward and compares with the naive reference (gtest assertions).
void run_case(const Cfg &c, std::mt19937 &rng, Indices indices);
// A random valid-or-not configuration (output size <= 0 checks the refusal).
Cfg random_cfg(std::mt19937 &rng);

class MaxPoolTester {
 public:
  MaxPoolTester() = default;
  explicit MaxPoolTester(const Cfg &c) : c_(c) {}
  MaxPoolTester &batch(int64_t n) {
    c_.n = n;
    return *this;
  }
  MaxPoolTester &channels(int64_t c) {
    c_.c = c;
    return *this;
  }
  MaxPoolTester &input(int64_t h, int64_t w) {
    c_.h = h;
    c_.w = w;
    return *this;
  }
  MaxPoolTester &kernel(int64_t kh, int64_t kw = 0) {
    c_.k = kw ? std::vector<int64_t>{kh, kw} : std::vector<int64_t>{kh};
    return *this;
  }
  MaxPoolTester &stride(int64_t sh, int64_t sw = 0) {
    c_.s = sw ? std::vector<int64_t>{sh, sw} : std::vector<int64_t>{sh};
    return *this;
  }
  MaxPoolTester &padding(int64_t ph, int64_t pw = -1) {
    c_.p = pw >= 0 ? std::vector<int64_t>{ph, pw} : std::vector<int64_t>{ph};
    return *this;
  }
  MaxPoolTester &dilation(int64_t dh, int64_t dw = 0) {
    c_.d = dw ? std::vector<int64_t>{dh, dw} : std::vector<int64_t>{dh};
    return *this;
  }
  MaxPoolTester &ceil(bool on) {
    c_.ceil = on;
    return *this;
  }
  MaxPoolTester &dtype(aclDataType dt) {
    c_.dt = dt;
    return *this;
  }
  MaxPoolTester &index_dtype(aclDataType dt) {
    c_.idt = dt;
    return *this;
  }
  MaxPoolTester &nhwc(bool on) {
    c_.nhwc = on;
    return *this;
  }
  MaxPoolTester &rank3(bool on) {
    c_.rank3 = on;
    if (on) c_.n = 1;
    return *this;
  }
  MaxPoolTester &layout(Layout l) {
    c_.layout = l;
    return *this;
  }
  MaxPoolTester &indices(Indices from) {
    indices_ = from;
    return *this;
  }
  MaxPoolTester &threads(int t) {
    threads_ = t;
    return *this;
  }
  MaxPoolTester &seed(uint32_t s) {
    seed_ = s;
    return *this;
  }
  // Runs the case (gtest assertions); the thread count is restored afterwards.
  void test() const;

 private:
  Cfg c_;
  Indices indices_ = Indices::Forward;
  int threads_ = 0;
  uint32_t seed_ = 1;
};

}  // namespace pgtest
