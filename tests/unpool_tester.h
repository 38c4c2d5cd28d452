// SPDX-License-Identifier: Apache-2.0
// The MaxUnpool fluent tester: aclnnMaxUnpool2d (or 3d), then its backward, through the public C
// API, each output compared bit for bit with a naive reference written here from the rules
// (docs/max-unpool.md). For example
//   UnpoolTester().batch(2).channels(3).input(4, 5).output(8, 10).dtype(ACL_INT16).test();
//   UnpoolTester().volume(3, 6).batch(2).input(4, 5).output(8, 10).test();  // D 3 -> 6
#pragma once

#include <cstdint>
#include <random>

#include "aclnn/aclnn_base.h"

namespace pgtest {

// Where the indices come from.
enum class UnpoolIndices {
  Distinct,    // distinct positions of the output plane
  Duplicates,  // positions drawn with repeats (the later input element wins)
};

struct UnpoolCase {
  bool volume = false;  // the 3-D APIs (d, od: the depths)
  int64_t n = 1, c = 1, d = 1, h = 2, w = 2, od = 1, oh = 4, ow = 4;
  aclDataType dt = ACL_FLOAT, idt = ACL_INT64;
  aclDataType grad_out_dt = ACL_DT_UNDEFINED;  // the backward's out dtype (undefined: dt)
  bool rank3 = false, strided = false;         // a CHW view; reversed-stride views with gaps
  UnpoolIndices indices = UnpoolIndices::Distinct;
  int threads = 0;  // 0: the library's count
};

void run_unpool_case(const UnpoolCase &k, std::mt19937 &rng);
UnpoolCase random_unpool_case(std::mt19937 &rng, bool volume = false);

class UnpoolTester {
 public:
  UnpoolTester() = default;
  explicit UnpoolTester(const UnpoolCase &k) : k_(k) {}
  UnpoolTester &volume(int64_t d, int64_t od) {
    k_.volume = true;
    k_.d = d, k_.od = od;
    return *this;
  }
  UnpoolTester &batch(int64_t n) {
    k_.n = n;
    return *this;
  }
  UnpoolTester &channels(int64_t c) {
    k_.c = c;
    return *this;
  }
  UnpoolTester &input(int64_t h, int64_t w) {
    k_.h = h, k_.w = w;
    return *this;
  }
  UnpoolTester &output(int64_t oh, int64_t ow) {
    k_.oh = oh, k_.ow = ow;
    return *this;
  }
  UnpoolTester &dtype(aclDataType dt) {
    k_.dt = dt;
    return *this;
  }
  UnpoolTester &index_dtype(aclDataType dt) {
    k_.idt = dt;
    return *this;
  }
  UnpoolTester &backward_out_dtype(aclDataType dt) {
    k_.grad_out_dt = dt;
    return *this;
  }
  UnpoolTester &rank3(bool on) {
    k_.rank3 = on;
    if (on) k_.n = 1;
    return *this;
  }
  UnpoolTester &strided(bool on) {
    k_.strided = on;
    return *this;
  }
  UnpoolTester &indices(UnpoolIndices from) {
    k_.indices = from;
    return *this;
  }
  UnpoolTester &threads(int t) {
    k_.threads = t;
    return *this;
  }
  UnpoolTester &seed(uint32_t s) {
    seed_ = s;
    return *this;
  }
  void test() const;

 private:
  UnpoolCase k_;
  uint32_t seed_ = 1;
};

}  // namespace pgtest
