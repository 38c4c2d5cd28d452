// SPDX-License-Identifier: Apache-2.0
// The 3-D fluent tester: aclnnMaxPool3dWithArgmax or aclnnAdaptiveMaxPool3d, then its backward,
// through the public C API, every output compared with a naive reference. For example
//   VolumeTester().batch(2).channels(3).input(6, 11, 12).kernel(3).stride(2).padding(1).test();
//   VolumeTester(VolumeOp::AdaptiveMaxPool3d).input(3, 37, 37).output(2, 7, 7).test();
#pragma once

#include <cstdint>
#include <random>

#include "aclnn/aclnn_base.h"

namespace pgtest {

enum class VolumeOp { MaxPool3d, AdaptiveMaxPool3d };

struct VolumeCase {
  VolumeOp op = VolumeOp::MaxPool3d;
  int64_t n = 1, c = 1, in[3] = {1, 1, 1};
  int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
  bool ceil = false;
  int64_t osize[3] = {1, 1, 1};  // the adaptive output size
  aclDataType dt = ACL_FLOAT, idt = ACL_INT64;
  bool rank4 = false, cl = false, strided = false;  // CDHW view, NDHWC, reversed strides
  int threads = 0;                                  // 0: the library's count
  int64_t out(int axis) const;                      // the output size of one spatial axis
};

// Runs forward then backward and compares with the reference (gtest assertions).
void run_volume_case(const VolumeCase &k, std::mt19937 &rng);
// A random valid configuration of op (empty batches included).
VolumeCase random_volume_case(std::mt19937 &rng, VolumeOp op);

class VolumeTester {
 public:
  explicit VolumeTester(VolumeOp op = VolumeOp::MaxPool3d) { k_.op = op; }
  explicit VolumeTester(const VolumeCase &k) : k_(k) {}
  VolumeTester &batch(int64_t n) {
    k_.n = n;
    return *this;
  }
  VolumeTester &channels(int64_t c) {
    k_.c = c;
    return *this;
  }
  VolumeTester &input(int64_t d, int64_t h, int64_t w) {
    k_.in[0] = d, k_.in[1] = h, k_.in[2] = w;
    return *this;
  }
  VolumeTester &output(int64_t d, int64_t h, int64_t w) {  // adaptive
    k_.osize[0] = d, k_.osize[1] = h, k_.osize[2] = w;
    return *this;
  }
  VolumeTester &kernel(int64_t k) { return set(k_.k, k); }
  VolumeTester &stride(int64_t s) { return set(k_.s, s); }
  VolumeTester &padding(int64_t p) { return set(k_.p, p); }
  VolumeTester &dilation(int64_t d) { return set(k_.d, d); }
  VolumeTester &ceil(bool on) {
    k_.ceil = on;
    return *this;
  }
  VolumeTester &dtype(aclDataType dt) {
    k_.dt = dt;
    return *this;
  }
  VolumeTester &index_dtype(aclDataType dt) {
    k_.idt = dt;
    return *this;
  }
  VolumeTester &rank4(bool on) {  // an unbatched (C, D, H, W) view
    k_.rank4 = on;
    if (on) k_.n = 1;
    return *this;
  }
  VolumeTester &channels_last(bool on) {
    k_.cl = on;
    return *this;
  }
  VolumeTester &strided(bool on) {
    k_.strided = on;
    return *this;
  }
  VolumeTester &threads(int t) {
    k_.threads = t;
    return *this;
  }
  VolumeTester &seed(uint32_t s) {
    seed_ = s;
    return *this;
  }
  const VolumeCase &config() const { return k_; }
  void test() const;

 private:
  VolumeTester &set(int64_t (&axes)[3], int64_t v) {
    axes[0] = axes[1] = axes[2] = v;
    return *this;
  }
  VolumeCase k_;
  uint32_t seed_ = 1;
};

}  // namespace pgtest
