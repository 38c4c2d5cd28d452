// SPDX-License-Identifier: Apache-2.0
// The RoI pooling tester (see maxpool_tester.h): random ROIs (malformed, one-pixel, outside,
// repeated), random features with ties and NaN, optional strided views; the forward and the
// backward against the naive reference of the spec's formulas. For example
//   RoiTester().batch(2).channels(37).input(10, 21).rois(30).pooled(3,
//   5).scale(0.5f).test_forward();
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "aclnn/aclnn_base.h"

namespace pgtest {

struct RoiCase {
  int64_t n, c, h, w, r, ph, pw;
  float sh, sw;
  aclDataType dt = ACL_FLOAT;
  bool strided = false;
};

// The naive reference of the spec's forward formula for one bin (x dense NCHW).
void ref_bin(const std::vector<float> &x, int64_t C, int64_t H, int64_t W, const float *roi,
             int64_t c, int64_t ph, int64_t pw, int64_t PH, int64_t PW, float sh, float sw,
             float *y, int64_t *am);

void run_forward_case(const RoiCase &k, std::mt19937 &rng);
void run_backward_case(const RoiCase &k, std::mt19937 &rng);

class RoiTester {
 public:
  RoiTester() = default;
  explicit RoiTester(const RoiCase &k) : k_(k) {}
  RoiTester &batch(int64_t n) {
    k_.n = n;
    return *this;
  }
  RoiTester &channels(int64_t c) {
    k_.c = c;
    return *this;
  }
  RoiTester &input(int64_t h, int64_t w) {
    k_.h = h;
    k_.w = w;
    return *this;
  }
  RoiTester &rois(int64_t r) {
    k_.r = r;
    return *this;
  }
  RoiTester &pooled(int64_t ph, int64_t pw) {
    k_.ph = ph;
    k_.pw = pw;
    return *this;
  }
  RoiTester &scale(float sh, float sw = 0) {
    k_.sh = sh;
    k_.sw = sw > 0 ? sw : sh;
    return *this;
  }
  RoiTester &dtype(aclDataType dt) {
    k_.dt = dt;
    return *this;
  }
  RoiTester &strided(bool on) {
    k_.strided = on;
    return *this;
  }
  RoiTester &threads(int t) {
    threads_ = t;
    return *this;
  }
  RoiTester &seed(uint32_t s) {
    seed_ = s;
    return *this;
  }
  void test_forward() const;
  void test_backward() const;

 private:
  RoiCase k_{1, 1, 4, 4, 1, 2, 2, 1.0f, 1.0f};
  int threads_ = 0;
  uint32_t seed_ = 1;
};

}  // namespace pgtest
