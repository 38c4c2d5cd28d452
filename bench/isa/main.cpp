// SPDX-License-Identifier: Apache-2.0
// Times the three scans in alternating blocks and checks that they agree bit for bit.
#include <hwy/targets.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "scan.h"

using namespace isa_probe;
using Scan = void (*)(const float *const *, int, int64_t, float *, int32_t *);

int main() {
  const int taps = 9;
  const int64_t n = 2048;  // 9 rows of 8 KB: in L1/L2, so the scan's own cost is measured
  std::mt19937 rng(1);
  std::vector<std::vector<float>> data(taps, std::vector<float>(n));
  for (auto &r : data)
    for (float &v : r) v = static_cast<float>(static_cast<int>(rng() % 64)) / 8;  // ties
  data[3][17] = std::nanf("");
  const float *rows[taps];
  for (int t = 0; t < taps; ++t) rows[t] = data[t].data();
  const Scan scans[] = {scan_vec_portable, scan_vec_avx2, scan_hwy};
  const char *names[] = {"gcc-vector portable", "gcc-vector avx2", "highway"};
  std::vector<float> best[3];
  std::vector<int32_t> bidx[3];
  for (int k = 0; k < 3; ++k) {
    best[k].resize(n);
    bidx[k].resize(n);
    scans[k](rows, taps, n, best[k].data(), bidx[k].data());
  }
  for (int k = 1; k < 3; ++k)
    if (std::memcmp(best[k].data(), best[0].data(), n * 4) != 0 || bidx[k] != bidx[0]) {
      std::printf("%s differs from %s\n", names[k], names[0]);
      return 1;
    }
  // Each Highway target this host runs, then poolgrad's two instantiations, in alternating blocks.
  std::vector<int64_t> targets;
  for (int64_t t : {int64_t(HWY_AVX3), int64_t(HWY_AVX2), int64_t(HWY_SSE4), int64_t(HWY_SSSE3),
                    int64_t(HWY_NEON), int64_t(HWY_SVE), int64_t(HWY_EMU128), int64_t(HWY_SCALAR)})
    if (hwy::SupportedTargets() & t) targets.push_back(t);
  const size_t rows_n = targets.size() + 2;
  std::vector<double> ns(rows_n, 1e30);
  std::vector<float> b(n);
  std::vector<int32_t> bi(n);
  for (int block = 0; block < 11; ++block)
    for (size_t k = 0; k < rows_n; ++k) {
      Scan f = k == 0 ? scan_vec_avx2 : k == 1 ? scan_vec_portable : scan_hwy;
      if (k >= 2) hwy::SetSupportedTargetsForTest(targets[k - 2]);
      f(rows, taps, n, b.data(), bi.data());
      if (std::memcmp(b.data(), best[0].data(), n * 4) != 0 || bi != bidx[0]) {
        std::printf("row %zu differs\n", k);
        return 1;
      }
      const auto t0 = std::chrono::steady_clock::now();
      for (int rep = 0; rep < 500; ++rep) {
        f(rows, taps, n, b.data(), bi.data());
        __asm__ volatile("" ::: "memory");
      }
      const double e =
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
          500 / static_cast<double>(n);
      ns[k] = std::min(ns[k], e);
    }
  hwy::SetSupportedTargetsForTest(0);
  std::printf("%-28s %8.3f ns/output  1.00x\n", "gcc-vector, avx2 (poolgrad)", ns[0]);
  std::printf("%-28s %8.3f ns/output  %.2fx\n", "gcc-vector, baseline", ns[1], ns[1] / ns[0]);
  std::string shown;  // Highway falls back to SCALAR where EMU128 is not compiled: one line
  for (size_t k = 2; k < rows_n; ++k) {
    hwy::SetSupportedTargetsForTest(targets[k - 2]);
    const std::string name = hwy_target();
    if (shown.find(" " + name + " ") != std::string::npos) continue;
    shown += " " + name + " ";
    std::printf("highway %-20s %8.3f ns/output  %.2fx\n", name.c_str(), ns[k], ns[k] / ns[0]);
  }
  return 0;
}
